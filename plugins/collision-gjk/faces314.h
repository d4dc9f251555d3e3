// Moduco collision-gjk: several contacts for two polytopes (boxes and meshes) or cylinders as
// MuJoCo 3.14 makes them for its multiccd flag (faces314.c).
#ifndef MODUCO_PLUGINS_COLLISION_GJK_FACES314_H_
#define MODUCO_PLUGINS_COLLISION_GJK_FACES314_H_

#include <moduco/mcplugin.h>

// do geoms g1 and g2 both have flat faces here (box, mesh with a hull graph, or cylinder)
int faces314_applies(const mcModel* m, int g1, int g2);

// con[0] holds the single contact of polytopes g1, g2 (normal from g1 to g2); replace it with the
// contacts of their faces (at most 4, con has room for mcMAXCONPAIR) and return their number, or
// return 0 and leave con[0] alone when the single contact stands (no face within the angle, or no
// point of the faces' overlap within the margin); MuJoCo 3.14 uses it without a margin only
int faces314_contacts(const mcModel* m, const mcData* d, mcContact* con, int g1, int g2,
                      mcNum margin);

#endif  // MODUCO_PLUGINS_COLLISION_GJK_FACES314_H_
