// Moduco collision plugins: Minkowski Portal Refinement on the Minkowski difference obj1 - obj2.
// A portal is a triangle (v1, v2, v3) of support points that the ray from the interior point v0
// toward the origin passes through; it is refined toward the surface until the support in the
// portal's normal direction gains less than the tolerance.
#include <float.h>
#include <math.h>

#include "mpr.h"

#define MPR_EPS DBL_EPSILON

// a point of the Minkowski difference with the two support points that produced it
typedef struct {
  mcNum v[3];
  mcNum p1[3];
  mcNum p2[3];
} MprPoint;


static mcNum mdot(const mcNum a[3], const mcNum b[3]) {
  return a[0]*b[0] + a[1]*b[1] + a[2]*b[2];
}


static void mcross(mcNum r[3], const mcNum a[3], const mcNum b[3]) {
  mcNum x = a[1]*b[2] - a[2]*b[1];
  mcNum y = a[2]*b[0] - a[0]*b[2];
  mcNum z = a[0]*b[1] - a[1]*b[0];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}


static void msub(mcNum r[3], const mcNum a[3], const mcNum b[3]) {
  r[0] = a[0] - b[0];
  r[1] = a[1] - b[1];
  r[2] = a[2] - b[2];
}


static void mnormalize(mcNum a[3]) {
  mcNum k = 1 / sqrt(mdot(a, a));
  a[0] *= k;
  a[1] *= k;
  a[2] *= k;
}


static int isZero(mcNum x) {
  return fabs(x) < MPR_EPS;
}


// relative equality
static int isEq(mcNum a, mcNum b) {
  mcNum ab = fabs(a - b);
  if (ab < MPR_EPS) {
    return 1;
  }
  mcNum fa = fabs(a), fb = fabs(b);
  return ab < MPR_EPS * (fb > fa ? fb : fa);
}


// support point of the difference in direction dir
static void support(const mcmQuery* q, const mcNum dir[3], MprPoint* s) {
  mcNum neg[3] = {-dir[0], -dir[1], -dir[2]};
  q->support1(q->obj1, dir, s->p1);
  q->support2(q->obj2, neg, s->p2);
  msub(s->v, s->p1, s->p2);
}


// unit normal of the portal triangle
static void portalDir(const MprPoint* pt, mcNum dir[3]) {
  mcNum a[3], b[3];
  msub(a, pt[2].v, pt[1].v);
  msub(b, pt[3].v, pt[1].v);
  mcross(dir, a, b);
  mnormalize(dir);
}


// does the support v4 in direction dir gain less than the tolerance over the portal?
static int reachTolerance(const MprPoint* pt, const MprPoint* v4, const mcNum dir[3],
                          mcNum tol) {
  mcNum d4 = mdot(v4->v, dir);
  mcNum g = d4 - mdot(pt[1].v, dir);
  mcNum g2 = d4 - mdot(pt[2].v, dir);
  mcNum g3 = d4 - mdot(pt[3].v, dir);
  g = g2 < g ? g2 : g;
  g = g3 < g ? g3 : g;
  return isEq(g, tol) || g < tol;
}


// replace one portal vertex by v4 so the ray from v0 still passes through the portal
static void expandPortal(MprPoint* pt, const MprPoint* v4) {
  mcNum c[3];
  mcross(c, v4->v, pt[0].v);
  if (mdot(pt[1].v, c) > 0) {
    if (mdot(pt[2].v, c) > 0) {
      pt[1] = *v4;
    } else {
      pt[3] = *v4;
    }
  } else {
    if (mdot(pt[3].v, c) > 0) {
      pt[2] = *v4;
    } else {
      pt[1] = *v4;
    }
  }
}


// find a first portal: 0 found, 1 origin at v1 (touching), 2 origin on segment v0-v1, -1 none
static int discoverPortal(const mcmQuery* q, MprPoint* pt) {
  mcNum dir[3], a[3], b[3];

  // interior point
  q->center1(q->obj1, pt[0].p1);
  q->center2(q->obj2, pt[0].p2);
  msub(pt[0].v, pt[0].p1, pt[0].p2);
  if (isZero(mdot(pt[0].v, pt[0].v))) {
    pt[0].v[0] += 10*MPR_EPS;
  }

  // first support toward the origin
  dir[0] = -pt[0].v[0];
  dir[1] = -pt[0].v[1];
  dir[2] = -pt[0].v[2];
  mnormalize(dir);
  support(q, dir, pt + 1);
  mcNum dt = mdot(pt[1].v, dir);
  if (isZero(dt) || dt < 0) {
    return -1;
  }

  // second support normal to v0 and v1
  mcross(dir, pt[0].v, pt[1].v);
  if (isZero(mdot(dir, dir))) {
    if (isEq(pt[1].v[0], 0) && isEq(pt[1].v[1], 0) && isEq(pt[1].v[2], 0)) {
      return 1;
    }
    return 2;
  }
  mnormalize(dir);
  support(q, dir, pt + 2);
  dt = mdot(pt[2].v, dir);
  if (isZero(dt) || dt < 0) {
    return -1;
  }

  // third support normal to the triangle (v0, v1, v2), on the origin's side
  msub(a, pt[1].v, pt[0].v);
  msub(b, pt[2].v, pt[0].v);
  mcross(dir, a, b);
  mnormalize(dir);
  if (mdot(dir, pt[0].v) > 0) {
    MprPoint t = pt[1];
    pt[1] = pt[2];
    pt[2] = t;
    dir[0] = -dir[0];
    dir[1] = -dir[1];
    dir[2] = -dir[2];
  }
  for (;;) {
    support(q, dir, pt + 3);
    dt = mdot(pt[3].v, dir);
    if (isZero(dt) || dt < 0) {
      return -1;
    }

    // origin outside the planes (v0, v1, v3) or (v0, v3, v2): replace and retry
    int again = 0;
    mcross(a, pt[1].v, pt[3].v);
    if (mdot(a, pt[0].v) < -MPR_EPS) {
      pt[2] = pt[3];
      again = 1;
    }
    if (!again) {
      mcross(a, pt[3].v, pt[2].v);
      if (mdot(a, pt[0].v) < -MPR_EPS) {
        pt[1] = pt[3];
        again = 1;
      }
    }
    if (!again) {
      return 0;
    }
    msub(a, pt[1].v, pt[0].v);
    msub(b, pt[2].v, pt[0].v);
    mcross(dir, a, b);
    mnormalize(dir);
  }
}


// move the portal until it separates the origin from v0 (0) or shows none exists (-1)
static int refinePortal(const mcmQuery* q, MprPoint* pt) {
  mcNum dir[3];
  for (;;) {
    portalDir(pt, dir);
    mcNum dt = mdot(pt[1].v, dir);
    if (isZero(dt) || dt > 0) {
      return 0;
    }
    MprPoint v4;
    support(q, dir, &v4);
    dt = mdot(v4.v, dir);
    if (!(isZero(dt) || dt > 0) || reachTolerance(pt, &v4, dir, q->tolerance)) {
      return -1;
    }
    expandPortal(pt, &v4);
  }
}


// squared distance from the origin to segment (a, b); nearest point in w
static mcNum segDist2(const mcNum a[3], const mcNum b[3], mcNum w[3]) {
  mcNum d[3], t;
  msub(d, b, a);
  mcNum dd = mdot(d, d);
  t = dd > 0 ? -mdot(a, d) / dd : 0;
  if (t <= 0 || isZero(t)) {
    t = 0;
  } else if (t >= 1 || isEq(t, 1)) {
    t = 1;
  }
  for (int k = 0; k < 3; k++) {
    w[k] = a[k] + t*d[k];
  }
  return mdot(w, w);
}


// squared distance from the origin to triangle (a, b, c); nearest point in w
static mcNum triDist2(const mcNum a[3], const mcNum b[3], const mcNum c[3], mcNum w[3]) {
  mcNum d1[3], d2[3];
  msub(d1, b, a);
  msub(d2, c, a);
  mcNum v = mdot(d1, d1), ww = mdot(d2, d2);
  mcNum p = mdot(a, d1), q = mdot(a, d2), r = mdot(d1, d2);
  mcNum div = ww*v - r*r;
  mcNum s = (q*r - ww*p) / div;
  mcNum t = (-s*r - q) / ww;
  if ((isZero(s) || s > 0) && (isEq(s, 1) || s < 1) && (isZero(t) || t > 0) &&
      (isEq(t, 1) || t < 1) && (isEq(t + s, 1) || t + s < 1)) {
    for (int k = 0; k < 3; k++) {
      w[k] = a[k] + s*d1[k] + t*d2[k];
    }
    return mdot(w, w);
  }

  // nearest point on an edge
  mcNum w2[3];
  mcNum best = segDist2(a, b, w);
  mcNum e = segDist2(a, c, w2);
  if (e < best) {
    best = e;
    w[0] = w2[0];
    w[1] = w2[1];
    w[2] = w2[2];
  }
  e = segDist2(b, c, w2);
  if (e < best) {
    best = e;
    w[0] = w2[0];
    w[1] = w2[1];
    w[2] = w2[2];
  }
  return best;
}


// contact position: barycentric coordinates of the origin's projection in the tetrahedron
// (v0, portal), applied to the support points of both objects, then averaged
static void findPos(const MprPoint* pt, mcNum pos[3]) {
  mcNum dir[3], c[3], b[4];
  portalDir(pt, dir);
  mcross(c, pt[1].v, pt[2].v);
  b[0] = mdot(c, pt[3].v);
  mcross(c, pt[3].v, pt[2].v);
  b[1] = mdot(c, pt[0].v);
  mcross(c, pt[0].v, pt[1].v);
  b[2] = mdot(c, pt[3].v);
  mcross(c, pt[2].v, pt[1].v);
  b[3] = mdot(c, pt[0].v);
  mcNum sum = b[0] + b[1] + b[2] + b[3];
  if (isZero(sum) || sum < 0) {
    b[0] = 0;
    mcross(c, pt[2].v, pt[3].v);
    b[1] = mdot(c, dir);
    mcross(c, pt[3].v, pt[1].v);
    b[2] = mdot(c, dir);
    mcross(c, pt[1].v, pt[2].v);
    b[3] = mdot(c, dir);
    sum = b[1] + b[2] + b[3];
  }
  mcNum inv = 1 / sum;
  for (int k = 0; k < 3; k++) {
    mcNum a1 = 0, a2 = 0;
    for (int i = 0; i < 4; i++) {
      a1 += b[i]*pt[i].p1[k];
      a2 += b[i]*pt[i].p2[k];
    }
    pos[k] = 0.5*(a1 + a2)*inv;
  }
}


int mcm_penetration(const mcmQuery* q, mcNum* depth, mcNum dir[3], mcNum pos[3]) {
  MprPoint pt[4];
  int res = discoverPortal(q, pt);
  if (res == 0) {
    res = refinePortal(q, pt);
  }
  if (res < 0) {
    return -1;
  }

  // touching at v1, or the origin on the segment v0-v1
  if (res == 1 || res == 2) {
    for (int k = 0; k < 3; k++) {
      pos[k] = 0.5*(pt[1].p1[k] + pt[1].p2[k]);
      dir[k] = res == 2 ? pt[1].v[k] : 0;
    }
    *depth = res == 2 ? sqrt(mdot(dir, dir)) : 0;
    if (res == 2) {
      mnormalize(dir);
    }
    return 0;
  }

  // refine toward the surface of the difference
  for (int it = 0;; it++) {
    mcNum pd[3];
    MprPoint v4;
    portalDir(pt, pd);
    support(q, pd, &v4);
    if (reachTolerance(pt, &v4, pd, q->tolerance) || it > q->max_iterations) {
      *depth = sqrt(triDist2(pt[1].v, pt[2].v, pt[3].v, dir));
      if (isZero(*depth)) {
        dir[0] = dir[1] = dir[2] = 0;
      } else {
        mnormalize(dir);
      }
#ifdef MCM_DEBUG
      mcm_debugPortal(pt, pd, &v4);
#endif
      findPos(pt, pos);
      return 0;
    }
    expandPortal(pt, &v4);
  }
}
