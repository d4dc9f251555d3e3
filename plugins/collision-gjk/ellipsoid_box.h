// Moduco collision-gjk: the penetration of an ellipsoid resting on a box face, exact and proven
// the least without GJK and EPA where the bounds of ellipsoid_box.c allow it.
#ifndef MODUCO_PLUGINS_COLLISION_GJK_ELLIPSOID_BOX_H_
#define MODUCO_PLUGINS_COLLISION_GJK_ELLIPSOID_BOX_H_

#include <moduco/mcplugin.h>

// an ellipsoid or a box: centre, frame (row-major, world = mat local) and semi-axes or half sizes
typedef struct {
  const mcNum* pos;
  const mcNum* mat;
  const mcNum* size;
} ebPose;

// The penetration of ellipsoid e and box b when its least overlap lies along a face normal of the
// box, with the ellipsoid's deepest point inside that face: depth (> 0), the unit normal n from
// the ellipsoid toward the box (minus the face's outward normal), the ellipsoid's deepest point xe
// and the box's xb = xe - depth n (on the face). Return 1 only when every other face, edge and
// corner of the box is proven to give a larger overlap; 0 otherwise (outputs unspecified): the
// pair then needs GJK and EPA.
int ellipsoidBox_faceDepth(const ebPose* e, const ebPose* b, mcNum* depth, mcNum n[3],
                           mcNum xe[3], mcNum xb[3]);

#endif  // MODUCO_PLUGINS_COLLISION_GJK_ELLIPSOID_BOX_H_
