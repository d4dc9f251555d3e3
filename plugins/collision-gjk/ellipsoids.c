// Moduco collision-gjk: Newton's method for the penetration of two ellipsoids. The overlap of
// ellipsoids e1, e2 along a unit direction n is f(n) = h1(n) + h2(-n), the support functions of
// the two, and the depth is its least value over the unit sphere (where the Minkowski difference's
// boundary is nearest to the origin). For an ellipsoid with centre c, frame R and semi-axes s,
// h(n) = c.n + |S R^T n| = c.n + q, a smooth function whose gradient is the support point
// c + Q n / q (Q = R S^2 R^T) and whose Hessian is (Q - Q n (Q n)^T / q^2) / q. On the sphere the
// gradient is taken in the tangent plane and the Hessian of the Lagrangian is H - f I (f is
// homogeneous of degree 1, so n.grad f = f); Newton's step in the plane's basis (t1, t2) solves
// that 2 x 2 system and turns n by the step. From EPA's normal (a few iterations short of the
// optimum) it converges quadratically. Semi-axes may be 0: a point (all three; h(n) = c.n) or a
// segment (two; h(n) = c.n + s |a.n| for its axis a, smooth where a.n != 0), the cores of a
// sphere and a capsule.
#include <math.h>

#include "ellipsoids.h"

// one ellipsoid's part at direction n: its support function value q (without c.n), the world
// vector Q n / q (its support point less the centre) and, with t (two tangent vectors), its
// Hessian's entries in their basis
typedef struct {
  mcNum q;
  mcNum p[3];
  mcNum h11, h12, h22;
} ellipsoidTerms;


// R^T v: v in the frame mat (row-major)
static void toLocal(const mcNum* mat, const mcNum v[3], mcNum res[3]) {
  for (int k = 0; k < 3; k++) {
    res[k] = mat[k]*v[0] + mat[3 + k]*v[1] + mat[6 + k]*v[2];
  }
}


// the terms of e at n; the Hessian only with t (NULL: skipped). Return 0 where e's support at n
// is not unique (a segment at right angles to n).
static int terms(const ellipsoidPose* e, const mcNum n[3], const mcNum (*t)[3],
                 ellipsoidTerms* r) {
  const mcNum* s = e->size;
  const mcNum* mat = e->mat;
  mcNum l[3], w[3];
  toLocal(mat, n, l);
  mcNum q2 = 0;
  for (int k = 0; k < 3; k++) {
    w[k] = s[k]*s[k];
    q2 += w[k]*l[k]*l[k];
  }
  r->q = sqrt(q2);
  if (s[0] == 0 && s[1] == 0 && s[2] == 0) {
    *r = (ellipsoidTerms){0, {0, 0, 0}, 0, 0, 0};   // a point: h(n) = c.n
    return 1;
  }
  if (!(r->q > 0)) {
    return 0;                       // a segment across n (its support not unique), or NaN
  }
  mcNum loc[3] = {w[0]*l[0]/r->q, w[1]*l[1]/r->q, w[2]*l[2]/r->q};
  for (int k = 0; k < 3; k++) {
    r->p[k] = mat[3*k]*loc[0] + mat[3*k + 1]*loc[1] + mat[3*k + 2]*loc[2];
  }
  if (!t) {
    return 1;
  }
  mcNum a[3], b[3];
  toLocal(mat, t[0], a);
  toLocal(mat, t[1], b);
  mcNum aa = 0, ab = 0, bb = 0, an = 0, bn = 0;
  for (int k = 0; k < 3; k++) {
    aa += w[k]*a[k]*a[k];
    ab += w[k]*a[k]*b[k];
    bb += w[k]*b[k]*b[k];
    an += w[k]*a[k]*l[k];
    bn += w[k]*b[k]*l[k];
  }
  an /= r->q;
  bn /= r->q;
  r->h11 = (aa - an*an) / r->q;
  r->h12 = (ab - an*bn) / r->q;
  r->h22 = (bb - bn*bn) / r->q;
  return 1;
}


// two unit vectors completing the unit n to an orthonormal basis
static void tangents(const mcNum n[3], mcNum t[2][3]) {
  int k = 0;                        // the axis least aligned with n
  for (int j = 1; j < 3; j++) {
    k = fabs(n[j]) < fabs(n[k]) ? j : k;
  }
  mcNum e[3] = {0, 0, 0};
  e[k] = 1;
  t[0][0] = n[1]*e[2] - n[2]*e[1];
  t[0][1] = n[2]*e[0] - n[0]*e[2];
  t[0][2] = n[0]*e[1] - n[1]*e[0];
  mcNum len = sqrt(t[0][0]*t[0][0] + t[0][1]*t[0][1] + t[0][2]*t[0][2]);
  for (int j = 0; j < 3; j++) {
    t[0][j] /= len;
  }
  t[1][0] = n[1]*t[0][2] - n[2]*t[0][1];
  t[1][1] = n[2]*t[0][0] - n[0]*t[0][2];
  t[1][2] = n[0]*t[0][1] - n[1]*t[0][0];
}


mcNum ellipsoids_overlap(const ellipsoidPose* e1, const ellipsoidPose* e2, const mcNum n[3]) {
  ellipsoidTerms a, b;
  mcNum neg[3] = {-n[0], -n[1], -n[2]};
  if (!terms(e1, n, NULL, &a) || !terms(e2, neg, NULL, &b)) {
    return INFINITY;
  }
  mcNum c = 0;
  for (int k = 0; k < 3; k++) {
    c += (e1->pos[k] - e2->pos[k])*n[k];
  }
  return c + a.q + b.q;
}


int ellipsoids_depth(const ellipsoidPose* e1, const ellipsoidPose* e2, mcNum n[3], mcNum* depth,
                     mcNum x1[3], mcNum x2[3]) {
  enum { MAXIT = 20 };
  for (int it = 0; it < MAXIT; it++) {
    mcNum t[2][3], neg[3] = {-n[0], -n[1], -n[2]};
    tangents(n, t);
    ellipsoidTerms a, b;
    // e2's support function is taken at -n: its gradient in n changes sign, its Hessian (the
    // sign changing twice) does not
    if (!terms(e1, n, (const mcNum(*)[3])t, &a) || !terms(e2, neg, (const mcNum(*)[3])t, &b)) {
      return 0;
    }
    mcNum grad[3], f = 0;
    for (int k = 0; k < 3; k++) {
      grad[k] = e1->pos[k] - e2->pos[k] + a.p[k] - b.p[k];
      f += grad[k]*n[k];
    }
    mcNum g1 = grad[0]*t[0][0] + grad[1]*t[0][1] + grad[2]*t[0][2];
    mcNum g2 = grad[0]*t[1][0] + grad[1]*t[1][1] + grad[2]*t[1][2];
    mcNum h11 = a.h11 + b.h11 - f, h12 = a.h12 + b.h12, h22 = a.h22 + b.h22 - f;
    mcNum det = h11*h22 - h12*h12;
    if (!(h11 > 0 && det > 0)) {
      return 0;                     // not locally convex: no minimum nearby
    }
    mcNum s1 = -(h22*g1 - h12*g2) / det, s2 = -(h11*g2 - h12*g1) / det;
    if (!isfinite(s1) || !isfinite(s2)) {
      return 0;
    }
    if (s1*s1 + s2*s2 <= 1e-28) {
      // converged: the last step was below 1e-14 rad, so n is the optimum to rounding
      *depth = f;
      for (int k = 0; k < 3; k++) {
        x1[k] = e1->pos[k] + a.p[k];
        x2[k] = e2->pos[k] + b.p[k];
      }
      return 1;
    }
    mcNum m[3], len = 0;
    for (int k = 0; k < 3; k++) {
      m[k] = n[k] + s1*t[0][k] + s2*t[1][k];
      len += m[k]*m[k];
    }
    len = sqrt(len);
    for (int k = 0; k < 3; k++) {
      n[k] = m[k] / len;
    }
  }
  return 0;
}
