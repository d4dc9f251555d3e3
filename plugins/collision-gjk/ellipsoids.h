// Moduco collision-gjk: the penetration of overlapping ellipsoids (or a point or segment against an
// ellipsoid), polished by Newton's method from EPA's normal (ellipsoids.c).
#ifndef MODUCO_PLUGINS_COLLISION_GJK_ELLIPSOIDS_H_
#define MODUCO_PLUGINS_COLLISION_GJK_ELLIPSOIDS_H_

#include <moduco/mcplugin.h>

// an ellipsoid: centre, frame (row-major, world = mat local) and semi-axes; all three 0 make a
// point, two a segment along the third axis (a sphere's or capsule's core)
typedef struct {
  const mcNum* pos;
  const mcNum* mat;
  const mcNum* size;
} ellipsoidPose;

// The depth of overlapping ellipsoids e1 and e2 along the unit normal n (from e1 toward e2) that
// is a local minimum of their overlap over directions, found from n by Newton's method on the unit
// sphere; n is replaced by it, with the depth and the deepest points x1 (of e1) and x2 (of e2, x1 -
// x2 = depth n). Return 0 (n, depth, x1, x2 unspecified) when the iteration stalls or meets a
// direction where the overlap is not locally convex or a segment lies at right angles to n.
int ellipsoids_depth(const ellipsoidPose* e1, const ellipsoidPose* e2, mcNum n[3], mcNum* depth,
                     mcNum x1[3], mcNum x2[3]);

// the overlap of e1 and e2 along the unit direction n: the largest projection of e1 on n minus the
// smallest of e2
mcNum ellipsoids_overlap(const ellipsoidPose* e1, const ellipsoidPose* e2, const mcNum n[3]);

#endif  // MODUCO_PLUGINS_COLLISION_GJK_ELLIPSOIDS_H_
