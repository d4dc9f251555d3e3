// Moduco core: mc_geomDistance, the signed distance between two geoms (MuJoCo's mj_geomDistance).
//
// Separated convex geoms (sphere, capsule, ellipsoid, cylinder, box, mesh hull): the distance by
// GJK on the Minkowski difference, until the support plane is within 1e-14 |v|^2 of the iterate
// (measured on ellipsoids: the distance within 5e-15 of its lower bound, the nearest points within
// 5e-8). The number returned is the length of a vector joining a point of each geom, so it is
// never below the true distance nor below the gap along any separating plane; meshes, being
// polytopes, come out exact up to rounding. Spheres and capsules enter GJK as their core point or
// segment and their radius is subtracted afterwards, so these pairs are exact too. Overlapping
// convex geoms (margin 0), and pairs with a plane or a height field (margin distmax): the narrow
// phase the collision plugins provide and the smallest contact distance (the penetration depth of
// that plugin: libccd MPR's for convex pairs without an analytic collider).
//
// Where the support functions live: the collision plugins' support functions are a header-only
// module (plugins/collision-convex/support.h) that depends on nothing but the public SDK header
// mcplugin.h. The core compiles its own copy of it here, as collision-hfield does, so mesh
// supports (hull-graph climbing, the full scan's vertex) are the very same functions and no
// plugin is linked from the core. Scratch: none (fixed-size local simplex, stack for contacts).
#include <math.h>
#include <string.h>

#include <moduco/moduco.h>

#include "../../plugins/collision-convex/support.h"
#include "engine/collision.h"
#include "engine/io.h"
#include "plugin/registry.h"

#define GJK_MAXITER 128

// one geom as GJK sees it: its core (sphere: the centre, capsule: the axis segment, other
// types: the whole geom through support.h) and the radius around that core
typedef struct {
  ConvexObj obj;
  int type;
  mcNum radius;
  mcNum half[3];     // capsule: half the axis segment (world)
} Shape;

// one simplex vertex: w = a - b with a, b the support points of the two shapes
typedef struct {
  mcNum w[3], a[3], b[3];
} Vertex;


static mcNum dot3(const mcNum a[3], const mcNum b[3]) {
  return a[0]*b[0] + a[1]*b[1] + a[2]*b[2];
}


static int isConvex(int type) {
  return type == mcGEOM_SPHERE || type == mcGEOM_CAPSULE || type == mcGEOM_ELLIPSOID ||
         type == mcGEOM_CYLINDER || type == mcGEOM_BOX || type == mcGEOM_MESH;
}


static void shapeInit(Shape* s, const mcModel* m, const mcData* d, int g) {
  memset(s, 0, sizeof(*s));
  s->obj.m = m;
  s->obj.d = d;
  s->obj.geom = g;
  s->type = m->geom_type[g];
  if (s->type == mcGEOM_SPHERE || s->type == mcGEOM_CAPSULE) {
    s->radius = m->geom_size[3*g];
  }
  if (s->type == mcGEOM_CAPSULE) {
    const mcNum* mat = d->geom_xmat + 9*g;
    for (int k = 0; k < 3; k++) {
      s->half[k] = m->geom_size[3*g + 1]*mat[3*k + 2];
    }
  }
}


// support point of the shape's core in world direction dir
static void shapeSupport(const Shape* s, const mcNum dir[3], mcNum res[3]) {
  const mcNum* pos = s->obj.d->geom_xpos + 3*s->obj.geom;
  if (s->type == mcGEOM_SPHERE || s->type == mcGEOM_CAPSULE) {
    mcNum side = dot3(dir, s->half);
    mcNum sgn = side > 0 ? 1 : (side < 0 ? -1 : 0);
    for (int k = 0; k < 3; k++) {
      res[k] = pos[k] + sgn*s->half[k];
    }
    return;
  }
  geomSupport(&s->obj, dir, res);
}


// the Minkowski-difference vertex in direction dir (support of A along dir, of B against it)
static void support(const Shape* A, const Shape* B, const mcNum dir[3], Vertex* v) {
  mcNum neg[3] = {-dir[0], -dir[1], -dir[2]};
  shapeSupport(A, dir, v->a);
  shapeSupport(B, neg, v->b);
  for (int k = 0; k < 3; k++) {
    v->w[k] = v->a[k] - v->b[k];
  }
}


// The point of the face spanned by s[idx[0..n-1]] (n = 1..3) nearest to the origin, if it lies
// in the face's relative interior: barycentric weights in lam, return 1; 0 if it does not or the
// face is degenerate.
static int faceProjection(const Vertex* s, const int* idx, int n, mcNum lam[4]) {
  if (n == 1) {
    lam[0] = 1;
    return 1;
  }
  const mcNum* p0 = s[idx[0]].w;
  mcNum e[2][3];
  for (int j = 0; j < n - 1; j++) {
    for (int k = 0; k < 3; k++) {
      e[j][k] = s[idx[j + 1]].w[k] - p0[k];
    }
  }
  mcNum mu[2];
  if (n == 2) {
    mcNum g = dot3(e[0], e[0]);
    if (g <= 0) {
      return 0;
    }
    mu[0] = -dot3(e[0], p0) / g;
  } else {
    mcNum g00 = dot3(e[0], e[0]), g01 = dot3(e[0], e[1]), g11 = dot3(e[1], e[1]);
    mcNum r0 = -dot3(e[0], p0), r1 = -dot3(e[1], p0);
    mcNum det = g00*g11 - g01*g01;
    if (!(det > 1e-14*g00*g11)) {
      return 0;                       // (nearly) collinear: an edge covers it
    }
    mu[0] = (r0*g11 - r1*g01) / det;
    mu[1] = (g00*r1 - g01*r0) / det;
  }
  lam[0] = 1;
  for (int j = 0; j < n - 1; j++) {
    lam[j + 1] = mu[j];
    lam[0] -= mu[j];
  }
  for (int j = 0; j < n; j++) {
    if (!(lam[j] > 0)) {
      return 0;
    }
  }
  return 1;
}


// does the tetrahedron s[0..3] contain the origin (strictly, not degenerate)?
static int tetraContainsOrigin(const Vertex* s) {
  mcNum det[5];
  for (int i = 0; i < 5; i++) {     // i < 4: origin in place of vertex i; 4: the tetrahedron
    const mcNum* p[4];
    static const mcNum zero[3] = {0, 0, 0};
    for (int j = 0; j < 4; j++) {
      p[j] = i == j ? zero : s[j].w;
    }
    mcNum a[3], b[3], c[3];
    for (int k = 0; k < 3; k++) {
      a[k] = p[1][k] - p[0][k];
      b[k] = p[2][k] - p[0][k];
      c[k] = p[3][k] - p[0][k];
    }
    det[i] = a[0]*(b[1]*c[2] - b[2]*c[1]) - a[1]*(b[0]*c[2] - b[2]*c[0]) +
             a[2]*(b[0]*c[1] - b[1]*c[0]);
  }
  if (det[4] == 0) {
    return 0;
  }
  for (int i = 0; i < 4; i++) {
    if (!(det[i]*det[4] > 0)) {
      return 0;
    }
  }
  return 1;
}


// Reduce the simplex s (n vertices) to the face holding the point of its hull nearest to the
// origin (every face is tried, the nearest interior projection wins): v = that point; return
// the new vertex count, 0 if the origin lies inside the tetrahedron.
static int closestOnSimplex(Vertex* s, int n, mcNum v[3]) {
  if (n == 4 && tetraContainsOrigin(s)) {
    return 0;
  }
  int bestMask = 0, bestN = 0;
  mcNum bestLam[4] = {0}, bestDist = INFINITY;
  for (int mask = 1; mask < (1 << n); mask++) {
    int idx[4], cnt = 0;
    for (int i = 0; i < n; i++) {
      if (mask & (1 << i)) {
        idx[cnt++] = i;
      }
    }
    mcNum lam[4] = {0, 0, 0, 0};
    if (cnt == 4 || !faceProjection(s, idx, cnt, lam)) {
      continue;
    }
    mcNum p[3] = {0, 0, 0};
    for (int j = 0; j < cnt; j++) {
      for (int k = 0; k < 3; k++) {
        p[k] += lam[j]*s[idx[j]].w[k];
      }
    }
    mcNum dist = dot3(p, p);
    if (dist < bestDist) {
      bestDist = dist;
      bestMask = mask;
      bestN = cnt;
      memcpy(bestLam, lam, sizeof(lam));
    }
  }

  // keep the winning face, its weights stored for the witness points
  Vertex keep[4];
  int cnt = 0;
  for (int i = 0; i < n; i++) {
    if (bestMask & (1 << i)) {
      keep[cnt++] = s[i];
    }
  }
  memcpy(s, keep, sizeof(Vertex)*bestN);
  v[0] = v[1] = v[2] = 0;
  for (int j = 0; j < bestN; j++) {
    for (int k = 0; k < 3; k++) {
      v[k] += bestLam[j]*s[j].w[k];
    }
  }
  return bestN;
}


// barycentric weights of v on the face s[0..n-1] (n = 1..3), as closestOnSimplex found it
static void faceWeights(const Vertex* s, int n, mcNum lam[4]) {
  int idx[4] = {0, 1, 2, 3};
  if (!faceProjection(s, idx, n, lam)) {  // rounding at the border: the nearest vertex
    int best = 0;
    for (int i = 1; i < n; i++) {
      if (dot3(s[i].w, s[i].w) < dot3(s[best].w, s[best].w)) {
        best = i;
      }
    }
    for (int i = 0; i < n; i++) {
      lam[i] = i == best;
    }
  }
}


// GJK distance between the cores of A and B: return |v| (the closest-point vector a - b) and the
// witness points pa, pb; 0 if the cores overlap (the origin inside the Minkowski difference).
// Stops when the gap between |v| and the support plane's lower bound v.w/|v| falls below 1e-14
// |v|, when the new support point brings no progress, or after GJK_MAXITER iterations; each
// iterate is the distance between two points of the geoms, so the result never undershoots.
static mcNum gjkDistance(const Shape* A, const Shape* B, mcNum pa[3], mcNum pb[3]) {
  const mcNum* ca = A->obj.d->geom_xpos + 3*A->obj.geom;
  const mcNum* cb = B->obj.d->geom_xpos + 3*B->obj.geom;
  mcNum dir[3] = {cb[0] - ca[0], cb[1] - ca[1], cb[2] - ca[2]};
  if (dot3(dir, dir) < mcMINVAL) {
    dir[0] = 1;
  }
  Vertex s[4];
  int n = 1;
  support(A, B, dir, s);
  mcNum v[3] = {s[0].w[0], s[0].w[1], s[0].w[2]};
  for (int iter = 0; iter < GJK_MAXITER; iter++) {
    mcNum vv = dot3(v, v);
    if (vv < mcMINVAL*mcMINVAL) {
      return 0;
    }
    mcNum neg[3] = {-v[0], -v[1], -v[2]};
    Vertex w;
    support(A, B, neg, &w);
    if (vv - dot3(v, w.w) <= 1e-14*vv) {
      break;                            // the support plane is within 1e-14 |v| of v
    }
    int dup = 0;
    for (int i = 0; i < n; i++) {
      dup |= !memcmp(s[i].w, w.w, sizeof(w.w));
    }
    if (dup) {
      break;
    }
    Vertex trial[4];
    memcpy(trial, s, sizeof(Vertex)*n);
    trial[n] = w;
    mcNum nv[3];
    int nn = closestOnSimplex(trial, n + 1, nv);
    if (nn == 0) {
      return 0;
    }
    if (!(dot3(nv, nv) < vv)) {
      break;                            // no progress (rounding): keep the last iterate
    }
    memcpy(s, trial, sizeof(Vertex)*nn);
    n = nn;
    memcpy(v, nv, sizeof(v));
  }

  // witness points from the face weights
  mcNum lam[4];
  faceWeights(s, n, lam);
  for (int k = 0; k < 3; k++) {
    pa[k] = pb[k] = 0;
    for (int i = 0; i < n; i++) {
      pa[k] += lam[i]*s[i].a[k];
      pb[k] += lam[i]*s[i].b[k];
    }
  }
  mcNum d[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
  return sqrt(dot3(d, d));
}


// the collision plugins' narrow phase with the given margin: the smallest contact distance below
// distmax (and its segment in fromto, from g1 to g2), distmax when there is none
static mcNum colliderDistance(const mcModel* m, mcData* d, int g1, int g2, mcNum margin,
                              mcNum distmax, mcNum fromto[6]) {
  int swap = m->geom_type[g1] > m->geom_type[g2];
  int a = swap ? g2 : g1, b = swap ? g1 : g2;
  mcpfCollide fn = mci_collisionFuncFor(m, m->geom_type[a], m->geom_type[b]);
  if (!fn) {
    return distmax;
  }
  mc_markStack(d);
  mcContact* con = mcSTACKALLOC(d, mcMAXCONPAIR, mcContact);
  mcNum best = distmax;
  if (con) {
    memset(con, 0, sizeof(mcContact)*mcMAXCONPAIR);
    int num = fn(mcp_host(), m, d, con, a, b, margin);
    for (int i = 0; i < num && i < mcMAXCONPAIR; i++) {
      if (con[i].dist < best) {
        best = con[i].dist;
        mcNum sgn = swap ? -1 : 1;   // the normal points from a to b
        for (int k = 0; k < 3; k++) {
          fromto[k] = con[i].pos[k] - 0.5*sgn*best*con[i].frame[k];
          fromto[3 + k] = con[i].pos[k] + 0.5*sgn*best*con[i].frame[k];
        }
      }
    }
  } else {
    mci_message("mc_geomDistance: scratch stack full; increase <size memory>");
  }
  mc_freeStack(d);
  return best;
}


mcNum mc_geomDistance(const mcModel* m, mcData* d, int g1, int g2, mcNum distmax,
                      mcNum* fromto) {
  mcNum ft[6] = {0, 0, 0, 0, 0, 0};
  if (g1 < 0 || g1 >= m->ngeom || g2 < 0 || g2 >= m->ngeom) {
    mci_message("mc_geomDistance: geom ids %d, %d out of range (ngeom = %d)", g1, g2, m->ngeom);
    if (fromto) {
      memset(fromto, 0, sizeof(ft));
    }
    return distmax;
  }

  // separated convex geoms: GJK; otherwise the narrow phase
  int t1 = m->geom_type[g1], t2 = m->geom_type[g2];
  int convex = isConvex(t1) && isConvex(t2);
  mcNum sep = 0, pa[3] = {0, 0, 0}, pb[3] = {0, 0, 0}, core = 0;
  Shape A = {{0}}, B = {{0}};
  if (convex) {
    shapeInit(&A, m, d, g1);
    shapeInit(&B, m, d, g2);
    core = gjkDistance(&A, &B, pa, pb);
    sep = core - A.radius - B.radius;
  }
  // the narrow phase: with margin distmax for planes and height fields (their colliders are
  // exact at any margin), with margin 0 for overlapping convex geoms (MPR on shapes grown by a
  // large margin loses the depth: -0.072 for -0.05 on two cubes at distmax 10)
  mcNum dist = distmax;
  if (!convex || !(sep > 0)) {
    dist = colliderDistance(m, d, g1, g2, convex ? 0 : distmax, distmax, ft);
  }

  // separated, or overlapping where the narrow phase found no contact (the cores apart: only the
  // radii overlap, the signed distance along the cores' segment; the cores overlapping: 0)
  if (convex && (sep > 0 || dist >= distmax)) {
    mcNum gjk = sep > 0 || core > 0 ? sep : 0;
    if (gjk < distmax) {
      dist = gjk;
      for (int k = 0; k < 3 && core > 0; k++) {
        mcNum n = (pb[k] - pa[k]) / core;         // unit, from g1 to g2
        ft[k] = pa[k] + A.radius*n;
        ft[3 + k] = pb[k] - B.radius*n;
      }
    }
  }
  if (fromto) {
    memcpy(fromto, ft, sizeof(ft));
  }
  return dist;
}
