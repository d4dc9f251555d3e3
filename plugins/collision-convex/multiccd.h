// Moduco collision-convex: several contacts for flat convex features in contact (face-face,
// face-edge, parallel edges) when opt.enableflags has mcENBL_MULTICCD, as MuJoCo 3.3.8 does for
// its multiccd flag. Boxes and mesh hulls only; other types keep their single contact.
#ifndef MODUCO_PLUGINS_COLLISION_CONVEX_MULTICCD_H_
#define MODUCO_PLUGINS_COLLISION_CONVEX_MULTICCD_H_

#include <moduco/mcplugin.h>

// con[0] holds the single contact of geoms g1, g2 (normal in frame[0..2], from g1 to g2); replace
// it with up to 4 contacts spanning the overlap of the two supporting features along that normal
// and return their number (1: con[0] left unchanged). con has room for mcMAXCONPAIR contacts.
int mccd_multiContact(const mcModel* m, const mcData* d, mcContact* con, int g1, int g2);

#endif  // MODUCO_PLUGINS_COLLISION_CONVEX_MULTICCD_H_
