// Moduco collision-gjk: an ellipsoid resting on a box face, without GJK and EPA. The overlap of
// box B and ellipsoid E along a unit direction m (the box's outward side) is f(m) = h_B(m) +
// h_E(-m), and the depth is its least value over the unit sphere: the distance from the origin to
// the boundary of the Minkowski difference K = B - E, which contains the origin when they overlap.
// In the box frame, with E's centre c and shape A = M M^T (M: E's frame times its semi-axes),
// f(m) = sum_k h_k |m_k| - c.m + sqrt(m^T A m). The boundary of K is made of patches, one for each
// face, edge and corner of the box:
// - a face with outward normal m: a flat rectangle in the plane at distance f(m) from the origin,
//   its nearest point m f(m) inside it exactly when E's deepest point along -m, c - A m /
//   sqrt(m^T A m), lies within the face's extent (then that point is inside B too);
// - an edge along axis a: a part of the elliptic cylinder (line of the edge) - E, whose distance
//   from the origin is the distance in the plane across a from the edge's point to the boundary of
//   E's shadow, an ellipse of shape A's 2 x 2 block; a corner v: a part of v - E, at least the
//   distance from v to E's boundary. A point at ellipsoidal radius rho (rho^2 = x^T A^-1 x in E's
//   or its shadow's frame) lies at least a_min |rho - 1| from the boundary, a_min E's least
//   semi-axis (no smaller than the shadow's, by interlacing).
// When the face of least f has its nearest point inside and every other face, edge and corner
// lies farther by more than a rounding slack, that face's normal gives the depth exactly: the
// point of K's boundary nearest the origin is on it. EPA, run to 1e-15 of the size, ends on the
// same face up to rounding; elsewhere (the ellipsoid over an edge or a corner, or close enough to
// one that the bounds do not separate it) the caller runs GJK and EPA.
#include <math.h>

#include "ellipsoid_box.h"

// the ellipsoid radius rho of x for the shape of 2 x 2 block (a, b; b, c) with determinant det
static inline mcNum shadowRadius(mcNum a, mcNum b, mcNum c, mcNum det, mcNum x0, mcNum x1) {
  return sqrt((c*x0*x0 - 2*b*x0*x1 + a*x1*x1) / det);
}


int ellipsoidBox_faceDepth(const ebPose* e, const ebPose* b, mcNum* depth, mcNum n[3],
                           mcNum xe[3], mcNum xb[3]) {
  const mcNum* rb = b->mat;
  const mcNum* re = e->mat;
  const mcNum* h = b->size;
  const mcNum* s = e->size;
  mcNum amin = fmin(s[0], fmin(s[1], s[2]));
  if (!(amin > 0)) {
    return 0;
  }

  // E in the box frame: centre c, frame rr (columns E's axes), shape A (upper part)
  mcNum dp[3] = {e->pos[0] - b->pos[0], e->pos[1] - b->pos[1], e->pos[2] - b->pos[2]};
  mcNum c[3], rr[3][3], mm[3][3], a[3][3];
  for (int i = 0; i < 3; i++) {
    c[i] = rb[i]*dp[0] + rb[3 + i]*dp[1] + rb[6 + i]*dp[2];
    for (int j = 0; j < 3; j++) {
      rr[i][j] = rb[i]*re[j] + rb[3 + i]*re[3 + j] + rb[6 + i]*re[6 + j];
      mm[i][j] = rr[i][j]*s[j];
    }
  }
  for (int i = 0; i < 3; i++) {
    for (int l = i; l < 3; l++) {
      a[i][l] = a[l][i] = mm[i][0]*mm[l][0] + mm[i][1]*mm[l][1] + mm[i][2]*mm[l][2];
    }
  }

  // the six faces' overlaps: outward normal sign*e_i gives h_i - sign c_i + sqrt(A_ii)
  mcNum f[6], r[3];
  int best = 0;
  for (int i = 0; i < 3; i++) {
    r[i] = sqrt(a[i][i]);
    f[2*i] = h[i] - c[i] + r[i];
    f[2*i + 1] = h[i] + c[i] + r[i];
  }
  for (int k = 1; k < 6; k++) {
    best = f[k] < f[best] ? k : best;
  }
  int i = best / 2;
  mcNum sign = best % 2 ? -1 : 1, d = f[best];
  if (!(d > 0 && d < 2*h[i] && r[i] > 0)) {
    return 0;                       // apart, or through the box
  }
  mcNum slack = 1e-10*(h[0] + h[1] + h[2] + s[0] + s[1] + s[2] +
                       fabs(c[0]) + fabs(c[1]) + fabs(c[2]));
  mcNum beyond = d + slack;
  for (int k = 0; k < 6; k++) {
    if (k != best && !(f[k] > beyond)) {
      return 0;                     // another face as near: a tie EPA settles
    }
  }

  // E's deepest point along -sign e_i, inside the face's extent
  mcNum y[3];
  for (int k = 0; k < 3; k++) {
    y[k] = c[k] - sign*a[k][i] / r[i];
    if (k != i && !(fabs(y[k]) < h[k])) {
      return 0;
    }
  }

  // corners: v - c in E's frame, scaled by the semi-axes
  mcNum w[3], g[3][3];
  for (int j = 0; j < 3; j++) {
    w[j] = (rr[0][j]*c[0] + rr[1][j]*c[1] + rr[2][j]*c[2]) / s[j];
    for (int k = 0; k < 3; k++) {
      g[k][j] = h[k]*rr[k][j] / s[j];
    }
  }
  for (int v = 0; v < 8; v++) {
    mcNum u2 = 0;
    for (int j = 0; j < 3; j++) {
      mcNum u = (v & 1 ? g[0][j] : -g[0][j]) + (v & 2 ? g[1][j] : -g[1][j]) +
                (v & 4 ? g[2][j] : -g[2][j]) - w[j];
      u2 += u*u;
    }
    if (!(amin*fabs(sqrt(u2) - 1) > beyond)) {
      return 0;
    }
  }

  // edges along axis k: the edge's point across k against E's shadow
  for (int k = 0; k < 3; k++) {
    int j = (k + 1) % 3, l = (k + 2) % 3;
    mcNum det = a[j][j]*a[l][l] - a[j][l]*a[j][l];
    if (!(det > 0)) {
      return 0;
    }
    for (int v = 0; v < 4; v++) {
      mcNum x0 = (v & 1 ? h[j] : -h[j]) - c[j], x1 = (v & 2 ? h[l] : -h[l]) - c[l];
      mcNum rho = shadowRadius(a[j][j], a[j][l], a[l][l], det, x0, x1);
      if (!(amin*fabs(rho - 1) > beyond)) {
        return 0;
      }
    }
  }

  // the contact: normal from the ellipsoid into the box, its deepest point and the face's
  *depth = d;
  for (int k = 0; k < 3; k++) {
    n[k] = -sign*rb[3*k + i];
    xe[k] = b->pos[k] + rb[3*k]*y[0] + rb[3*k + 1]*y[1] + rb[3*k + 2]*y[2];
  }
  for (int k = 0; k < 3; k++) {
    xb[k] = xe[k] - d*n[k];
  }
  return 1;
}
