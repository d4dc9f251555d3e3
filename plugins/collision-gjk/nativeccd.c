// Moduco collision-gjk plugin: MuJoCo 3.x's native convex collision for the convex pairs that
// have no analytic collider (the pairs collision-convex serves by libccd MPR): the distance by
// GJK and, for overlapping geoms, the penetration depth and normal by EPA (gjk.c, epa.c), on the
// exact shapes (no margin growth: a contact is reported when the distance is at most the margin).
// Spheres and capsules enter as their centre point and axis segment, their radius added after
// (signedDistance). The penetration of an ellipsoid and an ellipsoid, sphere or capsule is finished
// by Newton's method from EPA's normal (smoothPair, ellipsoids.c).
// The contact: dist the signed distance, pos halfway between the two closest (or deepest) points,
// the normal from geom1 toward geom2. With the multiccd flag the contacts of two polytopes' or
// cylinders' faces as MuJoCo 3.14 makes them (faces314.c), a capsule pair's turned pairs as 3.14
// makes them (tilt314.c) or, for the other pairs, the multi-contact of collision-convex
// (multiccd.c, MuJoCo 3.3.8's) follow. The core uses this
// plugin only for models with mcENBL_NATIVECCD (on unless <flag nativeccd="disable"/>, as in
// MuJoCo 3.x; docs/status.md).
#include <limits.h>
#include <math.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "ellipsoid_box.h"
#include "ellipsoids.h"
#include "faces314.h"
#include "gjk.h"
#include "multiccd.h"
#include "tilt314.h"
#include "support.h"

// one geom for GJK: the shape, or with core set a sphere's centre or a capsule's segment
typedef struct {
  ConvexObj o;
  int core;
} Shape;

// the radius taken off a sphere or capsule to make its core (0 for the other types)
static mcNum coreRadius(const mcModel* m, int g) {
  int t = m->geom_type[g];
  return t == mcGEOM_SPHERE || t == mcGEOM_CAPSULE ? m->geom_size[3*g] : 0;
}


static void shapeSupport(const void* obj, const mcNum dir[3], mcNum res[3]) {
  const Shape* s = (const Shape*)obj;
  const mcModel* m = s->o.m;
  int g = s->o.geom;
  if (!s->core || coreRadius(m, g) == 0) {
    geomSupport(&s->o, dir, res);
    return;
  }
  geomCoreSupport(&s->o, dir, res);
}


// the size of the pair of geoms g1, g2: the sum of their bounding radii (1 when that is 0)
static mcNum pairSize(const mcModel* m, int g1, int g2) {
  mcNum scale = m->geom_rbound[g1] + m->geom_rbound[g2];
  return scale > 0 ? scale : 1;
}


// a GJK query between shapes s1 and s2 with the model's tolerance and iteration limit
static void setQuery(gjkQuery* q, const Shape* s1, const Shape* s2, mcNum cutoff) {
  const mcModel* m = s1->o.m;
  const mcData* d = s1->o.d;
  q->obj1 = s1;
  q->obj2 = s2;
  q->support1 = shapeSupport;
  q->support2 = shapeSupport;
  memcpy(q->center1, d->geom_xpos + 3*s1->o.geom, sizeof(q->center1));
  memcpy(q->center2, d->geom_xpos + 3*s2->o.geom, sizeof(q->center2));
  // Far below MuJoCo 3.14's ccd_tolerance (1e-6, and its EPA stops after ccd_iterations = 35),
  // so the results are those of the shapes to rounding: both algorithms stop when the support
  // point along their direction lies within the tolerance of the current bound. Not looser: on
  // curved pairs the normal's error goes like the square root of the depth's (at 1e-10 of the
  // size, fewer than half of test_collision_gjk's sphere-ellipsoid and ellipsoid-cylinder scenes
  // agreed with converged 3.14 to 1e-6); ellipsoid pairs get there cheaper (smoothPair).
  q->tolerance = 1e-15*pairSize(m, s1->o.geom, s2->o.geom);
  q->max_iterations = 250;
  q->cutoff = cutoff;
}


// s as ellipsoids.c takes it: an ellipsoid, or a sphere's or capsule's core as a point or a
// segment along the frame's z (size the semi-axes' storage); 0 for other shapes
static int smoothPose(const Shape* s, mcNum size[3], ellipsoidPose* e) {
  const mcModel* m = s->o.m;
  int g = s->o.geom, t = m->geom_type[g];
  const mcNum* gs = m->geom_size + 3*g;
  if (t == mcGEOM_ELLIPSOID) {
    memcpy(size, gs, 3*sizeof(mcNum));
  } else if ((t == mcGEOM_SPHERE || t == mcGEOM_CAPSULE) && s->core) {
    size[0] = size[1] = 0;
    size[2] = t == mcGEOM_CAPSULE ? gs[1] : 0;
  } else {
    return 0;
  }
  *e = (ellipsoidPose){s->o.d->geom_xpos + 3*g, s->o.d->geom_xmat + 9*g, size};
  return 1;
}


// The penetration of an ellipsoid and an ellipsoid, sphere or capsule (s1 and s2 in either
// order; 0 for other pairs): EPA stops at 1e-6 of the pair's size (3.14's own default; ellipsoid
// pairs take about four EPA iterations a decade, 18 instead of 35-60 on humanoid100), and Newton's
// method on the support functions (ellipsoids.c; a sphere is its centre point, a capsule its
// segment) takes the normal from there to the nearest local minimum of the overlap, to rounding.
// That minimum is kept when it lies between EPA's bounds (its depth no more than the overlap
// along EPA's normal, no less than EPA's nearest face less 1e-10 of the size for rounding), so it
// is within EPA's gap of the least overlap and, except where another minimum lies that close, the
// least itself; otherwise (0: also a capsule's segment at right angles to the normal, where its
// support is not unique) EPA runs again to q's tolerance.
static int smoothPair(const Shape* s1, const Shape* s2, gjkQuery* q, const gjkSimplex* simplex,
                      mcNum* depth, mcNum n[3], mcNum x1[3], mcNum x2[3]) {
  const mcModel* m = s1->o.m;
  int g1 = s1->o.geom, g2 = s2->o.geom;
  mcNum size1[3], size2[3];
  ellipsoidPose e1, e2;
  if ((m->geom_type[g1] != mcGEOM_ELLIPSOID && m->geom_type[g2] != mcGEOM_ELLIPSOID) ||
      !smoothPose(s1, size1, &e1) || !smoothPose(s2, size2, &e2)) {
    return 0;
  }
  mcNum size = pairSize(m, g1, g2), tol = q->tolerance;
  q->tolerance = 1e-6*size;
  int ok = epa_penetration(q, simplex, depth, n, x1, x2);
  q->tolerance = tol;
  if (!ok) {
    return 0;
  }
  mcNum u[3] = {n[0], n[1], n[2]}, best, y1[3], y2[3];
  mcNum along = ellipsoids_overlap(&e1, &e2, n);
  if (!ellipsoids_depth(&e1, &e2, u, &best, y1, y2) || !(best <= along) ||
      !(best >= *depth - 1e-10*size)) {
    return 0;
  }
  *depth = best;
  memcpy(n, u, sizeof(u));
  memcpy(x1, y1, sizeof(y1));
  memcpy(x2, y2, sizeof(y2));
  return 1;
}


// Signed distance of shapes s1, s2 up to cutoff: dist, normal (s1 to s2) and closest (or
// deepest) points; return 1, or -1 when farther than cutoff (n then a unit direction from s1
// toward s2 along which they lie farther apart, or 0 0 0), 0 when degenerate (flat cores).
static int shapeDistance(Shape* s1, Shape* s2, mcNum cutoff, mcNum* dist, mcNum n[3], mcNum x1[3],
                         mcNum x2[3]) {
  gjkQuery q;
  gjkSimplex simplex;
  setQuery(&q, s1, s2, cutoff);
  gjkResult res = gjk_distance(&q, dist, x1, x2, &simplex);
  if (res == gjkBEYOND) {
    mcNum u[3] = {x2[0] - x1[0], x2[1] - x1[1], x2[2] - x1[2]};
    mcNum len = sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2]);
    for (int k = 0; k < 3; k++) {
      n[k] = len > 0 && isfinite(len) ? u[k] / len : 0;
    }
    return -1;
  }
  if (res == gjkSEPARATED) {
    if (!(*dist > 0)) {
      return 0;
    }
    for (int k = 0; k < 3; k++) {
      n[k] = (x2[k] - x1[k]) / *dist;
    }
    return 1;
  }
  mcNum depth;
  if (!(smoothPair(s1, s2, &q, &simplex, &depth, n, x1, x2) ||
        epa_penetration(&q, &simplex, &depth, n, x1, x2))) {
    return 0;
  }
  *dist = -depth;
  return 1;
}


// Signed distance of geoms g1, g2 up to the margin: the contact's dist, normal (g1 to g2) and
// closest (or deepest) points; 0 when farther than margin or degenerate. Spheres and capsules
// go in as their cores: the support of a shape grown by r is the core's plus r along the
// direction, so the whole shapes' overlap along any direction is the cores' plus r1 + r2, and
// the depth (the smallest overlap) and distance are the cores' shifted by the radii, with the
// same normal, whether the cores overlap or not. Only flat cores (a point or segment against
// another) go through the whole shapes. The mesh climbs start at hull vertices *warm1 and *warm2
// (negative: from a sample; the supports are the same from any start), which are left where the
// last ones ended. Without a contact, *apart
// says whether n is a unit direction from g1 toward g2 along which the geoms lie farther apart
// than the margin.
static int signedDistance(const mcModel* m, const mcData* d, int g1, int g2, mcNum margin,
                          int* warm1, int* warm2, mcNum* dist, mcNum n[3], mcNum x1[3],
                          mcNum x2[3], int* apart) {
  Shape s1 = {{m, d, g1, 0, *warm1}, 1}, s2 = {{m, d, g2, 0, *warm2}, 1};
  mcNum r1 = coreRadius(m, g1), r2 = coreRadius(m, g2);
  int res = shapeDistance(&s1, &s2, margin + r1 + r2, dist, n, x1, x2);
  if (res == 0 && r1 + r2 > 0) {
    s1.core = s2.core = 0;
    r1 = r2 = 0;
    res = shapeDistance(&s1, &s2, margin, dist, n, x1, x2);
  }
  *warm1 = s1.o.warm;
  *warm2 = s2.o.warm;
  *apart = res < 0 && (n[0] != 0 || n[1] != 0 || n[2] != 0);
  if (res <= 0) {
    return 0;
  }
  for (int k = 0; k < 3; k++) {
    x1[k] += r1*n[k];
    x2[k] -= r2*n[k];
  }
  *dist -= r1 + r2;
  *apart = !(*dist <= margin);
  return !*apart;
}


// The separating-direction cache (mcData.collision_sepdir): 2 ngeom slots of 6 numbers, the key
// g1 ngeom + g2 + 1 (0: empty), a unit direction from g1 toward g2 along which the pair was last
// found farther apart than its margin, and the hull vertices where the meshes' climbs ended
// then (where the next climbs start: any start gives the same support). Or, for a pair last
// found apart by the box test, minus the key and the number of the box axis that showed it
// (geomBoxesApartFrom), tried first the next time. A pair's slot is a hash of the pair (other
// pairs may take it over). Narrow-phase threads share the array, so every number is read and
// written by a relaxed atomic access: a slot torn between two writers holds some direction or
// axis, and any direction or axis only decides whether an exact check (geomSupportsApart,
// geomBoxAxisApart) is passed.
static mcNum* sepSlot(const mcModel* m, const mcData* d, int g1, int g2) {
  if (!d->collision_sepdir || m->ngeom <= 0) {
    return NULL;
  }
  unsigned h = (unsigned)g1*2654435761u ^ (unsigned)g2*2246822519u;
  return d->collision_sepdir + 6*(size_t)(h % (2u*(unsigned)m->ngeom));
}


static inline mcNum sepKey(const mcModel* m, int g1, int g2) {
  return (mcNum)g1*m->ngeom + g2 + 1;
}


static inline mcNum loadRelaxed(const mcNum* x) {
  mcNum v;
  __atomic_load(x, &v, __ATOMIC_RELAXED);
  return v;
}


static inline void storeRelaxed(mcNum* x, mcNum v) {
  __atomic_store(x, &v, __ATOMIC_RELAXED);
}


// the slot's direction for the pair in u and the climbs' starts in o1, o2: 1 if the slot holds
// the pair with a unit direction (a slot torn between writers may not: the gap along a longer
// one would be overstated; a start out of range climbs from the first hull vertex)
static int sepLoad(const mcNum* slot, mcNum key, mcNum u[3], ConvexObj* o1, ConvexObj* o2) {
  if (loadRelaxed(slot) != key) {
    return 0;
  }
  for (int k = 0; k < 3; k++) {
    u[k] = loadRelaxed(slot + 1 + k);
  }
  if (!(fabs(u[0]*u[0] + u[1]*u[1] + u[2]*u[2] - 1) <= 1e-9)) {
    return 0;
  }
  mcNum w1 = loadRelaxed(slot + 4), w2 = loadRelaxed(slot + 5);
  o1->warm = w1 >= 0 && w1 < INT_MAX ? (int)w1 : -1;
  o2->warm = w2 >= 0 && w2 < INT_MAX ? (int)w2 : -1;
  return 1;
}


// the box axis kept for the pair (sepStoreAxis), or -1
static int sepLoadAxis(const mcNum* slot, mcNum key) {
  if (loadRelaxed(slot) != -key) {
    return -1;
  }
  mcNum k = loadRelaxed(slot + 1);
  return k >= 0 && k < 6 ? (int)k : -1;
}


// keep box axis k for the pair unless the slot holds a direction (worth more: it saves GJK)
static void sepStoreAxis(mcNum* slot, mcNum key, int k) {
  if (loadRelaxed(slot) > 0) {
    return;
  }
  storeRelaxed(slot, -key);
  storeRelaxed(slot + 1, k);
}


// keep direction u and the climbs' ends warm1, warm2 for the pair (u NULL: forget the pair if
// the slot holds it)
static void sepStore(mcNum* slot, mcNum key, const mcNum u[3], int warm1, int warm2) {
  if (!u) {
    if (loadRelaxed(slot) == key) {
      storeRelaxed(slot, 0);
    }
    return;
  }
  storeRelaxed(slot, key);
  for (int k = 0; k < 3; k++) {
    storeRelaxed(slot + 1 + k, u[k]);
  }
  storeRelaxed(slot + 4, warm1);
  storeRelaxed(slot + 5, warm2);
}


// The contact of an ellipsoid and a box (g1, g2 in either order) lying on one of the box's faces,
// proven so without GJK and EPA (ellipsoid_box.c): dist (negative), the normal from g1 toward g2,
// the deepest points x1 of g1 and x2 of g2. Return 0 for other pairs and poses (and a negative
// margin, which a touching pair may not reach).
static int ellipsoidOnBoxFace(const mcModel* m, const mcData* d, int g1, int g2, mcNum margin,
                              mcNum* dist, mcNum n[3], mcNum x1[3], mcNum x2[3]) {
  int t1 = m->geom_type[g1], t2 = m->geom_type[g2];
  int flip = t1 == mcGEOM_BOX;
  if (!(margin >= 0) || !((t1 == mcGEOM_ELLIPSOID && t2 == mcGEOM_BOX) ||
                          (flip && t2 == mcGEOM_ELLIPSOID))) {
    return 0;
  }
  int ge = flip ? g2 : g1, gb = flip ? g1 : g2;
  ebPose e = {d->geom_xpos + 3*ge, d->geom_xmat + 9*ge, m->geom_size + 3*ge};
  ebPose b = {d->geom_xpos + 3*gb, d->geom_xmat + 9*gb, m->geom_size + 3*gb};
  mcNum depth;
  if (!ellipsoidBox_faceDepth(&e, &b, &depth, n, flip ? x2 : x1, flip ? x1 : x2)) {
    return 0;
  }
  if (flip) {
    for (int k = 0; k < 3; k++) {
      n[k] = -n[k];
    }
  }
  *dist = -depth;
  return 1;
}


static int convexGjk(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                     int g1, int g2, mcNum margin) {
  mcNum dist, n[3], x1[3], x2[3];
  // the direction that separated the pair when it was last apart (the last step, mostly): the
  // geoms' supports along it prove a gap above the margin as GJK would find it, in two supports
  // instead of GJK's iterations; where they do not, GJK from there (the climbs warm)
  mcNum* slot = sepSlot(m, d, g1, g2);
  mcNum key = sepKey(m, g1, g2), u[3];
  ConvexObj o1 = {m, d, g1, 0, -1}, o2 = {m, d, g2, 0, -1};
  if (slot && sepLoad(slot, key, u, &o1, &o2)) {
    int w1 = o1.warm, w2 = o2.warm;
    if (geomSupportsApart(&o1, &o2, margin, u)) {
      // the climbs' new ends, where the next step's climbs start (mostly at their top again)
      if (o1.warm != w1 || o2.warm != w2) {
        sepStore(slot, key, u, o1.warm, o2.warm);
      }
      return 0;
    }
  }
  // (the box test after it: a kept pair came past the box test, which mostly fails it again),
  // from the axis that showed the gap the last time
  int axis = slot ? sepLoadAxis(slot, key) : -1, kept = axis;
  if (geomBoxesApartFrom(m, d, g1, g2, margin, n, &dist, &axis)) {
    if (slot && axis != kept) {
      sepStoreAxis(slot, key, axis);
    }
    return 0;                       // farther than margin: GJK would find no contact either
  }
  int apart = 0;
  if (!ellipsoidOnBoxFace(m, d, g1, g2, margin, &dist, n, x1, x2) &&
      !signedDistance(m, d, g1, g2, margin, &o1.warm, &o2.warm, &dist, n, x1, x2, &apart)) {
    if (slot) {
      sepStore(slot, key, apart ? n : NULL, o1.warm, o2.warm);
    }
    return 0;
  }
  if (slot) {
    sepStore(slot, key, NULL, 0, 0);
  }
  con->dist = dist;
  for (int k = 0; k < 3; k++) {
    con->pos[k] = 0.5*(x1[k] + x2[k]);
    con->frame[k] = n[k];
  }
  memset(con->frame + 3, 0, sizeof(mcNum)*6);
  if (!(m->opt.enableflags & mcENBL_MULTICCD)) {
    return 1;
  }
  // several contacts: polytopes and cylinders without margin as MuJoCo 3.14 (faces314.c); pairs
  // of a capsule and a capsule, cylinder, box or mesh, and polytopes and cylinders with a margin,
  // by 3.14's turned pairs on GJK/EPA (tilt314.c; probed: a cube mesh's edge on a box with a
  // margin gives the single contact and the edge's two ends with normals tipped by 1e-3, 3.3.8's
  // scheme of collision-convex/multiccd.c the two ends with the single normal); the others
  // (spheres and ellipsoids) keep their single contact (multiccd.c)
  if (faces314_applies(m, g1, g2)) {
    if (margin == 0) {
      int n = faces314_contacts(m, d, con, g1, g2, margin);
      return n > 0 ? n : 1;
    }
    return tilt314_contacts(m, d, con, g1, g2, margin);
  }
  if (tilt314_applies(m, g1, g2)) {
    return tilt314_contacts(m, d, con, g1, g2, margin);
  }
  return mccd_multiContact(m, d, con, g1, g2, margin);
}


//---------------------------------- plugin descriptor ---------------------------------------------

// the pairs MuJoCo 3.x collides by its general convex collider (the others have analytic ones)
static const mcpCollisionPair g_pairs[] = {
  {mcGEOM_SPHERE, mcGEOM_ELLIPSOID, convexGjk},
  {mcGEOM_SPHERE, mcGEOM_CYLINDER, convexGjk},
  {mcGEOM_SPHERE, mcGEOM_MESH, convexGjk},
  {mcGEOM_CAPSULE, mcGEOM_ELLIPSOID, convexGjk},
  {mcGEOM_CAPSULE, mcGEOM_CYLINDER, convexGjk},
  {mcGEOM_CAPSULE, mcGEOM_MESH, convexGjk},
  {mcGEOM_ELLIPSOID, mcGEOM_ELLIPSOID, convexGjk},
  {mcGEOM_ELLIPSOID, mcGEOM_CYLINDER, convexGjk},
  {mcGEOM_ELLIPSOID, mcGEOM_BOX, convexGjk},
  {mcGEOM_ELLIPSOID, mcGEOM_MESH, convexGjk},
  {mcGEOM_CYLINDER, mcGEOM_CYLINDER, convexGjk},
  {mcGEOM_CYLINDER, mcGEOM_BOX, convexGjk},
  {mcGEOM_CYLINDER, mcGEOM_MESH, convexGjk},
  {mcGEOM_BOX, mcGEOM_MESH, convexGjk},
  {mcGEOM_MESH, mcGEOM_MESH, convexGjk},
};

// between collision-primitive (0) and collision-convex (-10): the analytic pairs stay analytic
static const mcpCollision g_plugin = {
  MCP_HEADER(mcpKIND_COLLISION, mcpCollision, "gjk", "1.0.0",
             "convex pairs by GJK distance and EPA penetration (nativeccd flag)", -1),
  -5,
  (int)(sizeof(g_pairs) / sizeof(g_pairs[0])),
  g_pairs
};

static const mcpHeader* const g_list[] = {&g_plugin.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("collision-gjk", 1, g_list);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  if (!host || host->abi_major != MCP_ABI_MAJOR) {
    return NULL;
  }
  return &g_library;
}
