// Moduco collision-gjk: several contacts for a pair turned by small angles, each turned pair
// collided by GJK/EPA, as MuJoCo 3.14 makes them for its multiccd flag where the faces of
// faces314.c do not apply: capsules, and the pairs of faces314.c with a margin (tilt314.c).
#ifndef MODUCO_PLUGINS_COLLISION_GJK_TILT314_H_
#define MODUCO_PLUGINS_COLLISION_GJK_TILT314_H_

#include <moduco/mcplugin.h>

// is the pair (g1, g2) a capsule against a capsule, cylinder, box or mesh (tilt314_contacts also
// serves faces314_applies' pairs with a margin)
int tilt314_applies(const mcModel* m, int g1, int g2);

// con[0] holds the single contact of geoms g1, g2 (normal from g1 to g2, GJK/EPA's); append the
// contacts of the turned pairs (con has room for mcMAXCONPAIR) and return the count, con[0]
// included (con[0] unchanged)
int tilt314_contacts(const mcModel* m, const mcData* d, mcContact* con, int g1, int g2,
                     mcNum margin);

#endif  // MODUCO_PLUGINS_COLLISION_GJK_TILT314_H_
