// Moduco collision-convex: several contacts for a convex pair when opt.enableflags has
// mcENBL_MULTICCD, as MuJoCo 3.3.8 does for its multiccd flag: flat features in contact (face-face,
// face-edge, parallel edges) of boxes and mesh hulls, and contacts of the pair turned by small
// angles for capsules and cylinders against capsules, cylinders, boxes and meshes (multiccd.c).
// Spheres and ellipsoids keep their single contact.
#ifndef MODUCO_PLUGINS_COLLISION_CONVEX_MULTICCD_H_
#define MODUCO_PLUGINS_COLLISION_CONVEX_MULTICCD_H_

#include <moduco/mcplugin.h>

// con[0] holds the single contact of geoms g1, g2 (normal in frame[0..2], from g1 to g2; found on
// the shapes grown by margin/2 each); replace it with up to 5 contacts (con[0] may change too) and
// return their number (1: con[0] may still be refined). con has room for mcMAXCONPAIR contacts.
int mccd_multiContact(const mcModel* m, const mcData* d, mcContact* con, int g1, int g2,
                      mcNum margin);

// The axes of the tilt scheme's turns for the contact normal n: with the contact frame's tangents
// t1 (world y made normal to n, world z when n is within 60 degrees of y) and t2 = n x t1, for
// d = -t2, +t2, +t1, -t1 in this order the axis n x d (turning geom2 about it by a positive angle
// tips its normal toward d). Shared with collision-gjk's tilt314.c.
void mccd_turnAxes(const mcNum n[3], mcNum axes[4][3]);

// rotation matrix (row-major) by angle about the unit axis a
void mccd_axisRotation(const mcNum a[3], mcNum angle, mcNum R[9]);

#endif  // MODUCO_PLUGINS_COLLISION_CONVEX_MULTICCD_H_
