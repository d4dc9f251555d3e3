// Moduco collision-primitive plugin: analytic collide functions for planes, spheres and
// capsules (plane-sphere, plane-capsule, plane-ellipsoid, plane-cylinder, plane-box,
// sphere-sphere, sphere-capsule, capsule-capsule) and the plugin's entry symbol. Box pairs are
// in box.c.
#include <math.h>

#include <moduco/mcplugin.h>

#include "geom.h"
#include "primitive.h"


//---------------------------------- shared raw tests ----------------------------------------------

// two spheres given by centre and radius; normal from the first to the second (inlined into the
// sphere and capsule pairs: the call cost about a tenth of capsule-capsule)
static inline int spherePair(mcContact* con, mcNum margin, const mcNum p1[3], mcNum r1,
                             const mcNum p2[3], mcNum r2) {
  mcNum n[3], pos[3];
  sub3(n, p2, p1);
  mcNum len = norm3(n);
  mcNum dist = len - r1 - r2;
  if (dist > margin) {
    return 0;
  }
  if (len == 0) {
    n[0] = 1;
    n[1] = n[2] = 0;
  } else {
    scl3(n, n, 1/len);
  }
  addScl3(pos, p1, n, r1 + dist/2);
  setContact(con, dist, pos, n, NULL);
  return 1;
}


int mcc_sphereSphere(mcContact* con, mcNum margin, const mcNum p1[3], mcNum r1,
                     const mcNum p2[3], mcNum r2) {
  return spherePair(con, margin, p1, r1, p2, r2);
}


// a point with radius r (sphere) against a plane through pp with unit normal n
static int sphereOnPlane(mcContact* con, mcNum margin, const mcNum pp[3], const mcNum n[3],
                         const mcNum c[3], mcNum r, const mcNum* yaxis) {
  mcNum dif[3], pos[3];
  sub3(dif, c, pp);
  mcNum dist = dot3(dif, n) - r;
  if (dist > margin) {
    return 0;
  }
  addScl3(pos, c, n, -(r + dist/2));
  setContact(con, dist, pos, n, yaxis);
  return 1;
}


//---------------------------------- plane pairs ---------------------------------------------------

static int planeSphere(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                       int g1, int g2, mcNum margin) {
  mcNum n[3];
  matCol(n, MCC_MAT(d, g1), 2);
  return sphereOnPlane(con, margin, MCC_POS(d, g1), n, MCC_POS(d, g2), MCC_SIZE(m, g2)[0], NULL);
}


// the two end spheres, +axis end first; the second frame axis is the capsule axis
static int planeCapsule(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                        int g1, int g2, mcNum margin) {
  mcNum n[3], axis[3], end[3];
  matCol(n, MCC_MAT(d, g1), 2);
  matCol(axis, MCC_MAT(d, g2), 2);
  const mcNum* size = MCC_SIZE(m, g2);
  int cnt = 0;
  addScl3(end, MCC_POS(d, g2), axis, size[1]);
  cnt += sphereOnPlane(con + cnt, margin, MCC_POS(d, g1), n, end, size[0], axis);
  addScl3(end, MCC_POS(d, g2), axis, -size[1]);
  cnt += sphereOnPlane(con + cnt, margin, MCC_POS(d, g1), n, end, size[0], axis);
  return cnt;
}


// the ellipsoid's support point in the direction of -normal
static int planeEllipsoid(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                          int g1, int g2, mcNum margin) {
  mcNum n[3], dir[3], loc[3], pt[3], pos[3];
  const mcNum* s = MCC_SIZE(m, g2);
  const mcNum* mat = MCC_MAT(d, g2);
  matCol(n, MCC_MAT(d, g1), 2);

  // direction in the ellipsoid frame, support point x = S^2 u / |S u|
  scl3(dir, n, -1);
  mulMatTVec(loc, mat, dir);
  mcNum su[3] = {s[0]*loc[0], s[1]*loc[1], s[2]*loc[2]};
  mcNum len = norm3(su);
  if (len < mcMINVAL) {
    return 0;
  }
  mcNum sp[3] = {s[0]*su[0]/len, s[1]*su[1]/len, s[2]*su[2]/len};
  mulMatVec(pt, mat, sp);
  add3(pt, pt, MCC_POS(d, g2));

  // distance of the support point
  mcNum dif[3];
  sub3(dif, pt, MCC_POS(d, g1));
  mcNum dist = dot3(dif, n);
  if (dist > margin) {
    return 0;
  }
  addScl3(pos, pt, n, -dist/2);
  setContact(con, dist, pos, n, NULL);
  return 1;
}


// a point on the cylinder against the plane
static int pointOnPlane(mcContact* con, mcNum margin, const mcNum pp[3], const mcNum n[3],
                        const mcNum pt[3]) {
  return sphereOnPlane(con, margin, pp, n, pt, 0, NULL);
}


// cylinder: the deepest rim point of the lower disk, the deepest rim point of the other disk,
// and two more points of the lower disk completing an inscribed equilateral triangle
static int planeCylinder(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                         int g1, int g2, mcNum margin) {
  mcNum n[3], axis[3], vec[3], pt[3], lo[3], hi[3], side[3];
  const mcNum* pos2 = MCC_POS(d, g2);
  const mcNum* mat2 = MCC_MAT(d, g2);
  mcNum r = MCC_SIZE(m, g2)[0], h = MCC_SIZE(m, g2)[1];
  matCol(n, MCC_MAT(d, g1), 2);
  matCol(axis, mat2, 2);

  // rim direction pointing most against the normal
  mcNum prj = dot3(axis, n);
  addScl3(vec, n, axis, -prj);
  scl3(vec, vec, -1);
  if (norm3(vec) < mcMINVAL) {
    matCol(vec, mat2, 0);
  } else {
    normalize3(vec);
  }
  scl3(vec, vec, r);

  // lower and upper disk centres
  if (prj > 0) {
    addScl3(lo, pos2, axis, -h);
    addScl3(hi, pos2, axis, h);
  } else {
    addScl3(lo, pos2, axis, h);
    addScl3(hi, pos2, axis, -h);
  }

  // deepest point, then the other disk
  int cnt = 0;
  add3(pt, lo, vec);
  cnt += pointOnPlane(con + cnt, margin, MCC_POS(d, g1), n, pt);
  if (!cnt) {
    return 0;
  }
  add3(pt, hi, vec);
  cnt += pointOnPlane(con + cnt, margin, MCC_POS(d, g1), n, pt);

  // triangle points on the lower disk
  if (prj <= 0) {
    scl3(axis, axis, -1);
  }
  cross3(side, axis, vec);
  scl3(side, side, sqrt(3.0)/2);
  for (int k = 0; k < 2; k++) {
    addScl3(pt, lo, vec, -0.5);
    addScl3(pt, pt, side, k == 0 ? 1 : -1);
    cnt += pointOnPlane(con + cnt, margin, MCC_POS(d, g1), n, pt);
  }
  return cnt;
}


// box corners below the plane (the 4 deepest at most), corners above the centre skipped
static int planeBox(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                    int g1, int g2, mcNum margin) {
  mcNum n[3], dif[3], corner[3], loc[3], pos[3];
  const mcNum* pos2 = MCC_POS(d, g2);
  const mcNum* mat2 = MCC_MAT(d, g2);
  const mcNum* s = MCC_SIZE(m, g2);
  matCol(n, MCC_MAT(d, g1), 2);
  sub3(dif, pos2, MCC_POS(d, g1));
  mcNum cdist = dot3(dif, n);

  int cnt = 0;
  for (int i = 0; i < 8; i++) {
    loc[0] = (i & 1) ? s[0] : -s[0];
    loc[1] = (i & 2) ? s[1] : -s[1];
    loc[2] = (i & 4) ? s[2] : -s[2];
    mulMatVec(corner, mat2, loc);
    mcNum ldist = dot3(corner, n);
    if (cdist + ldist > margin || ldist > 0) {
      continue;
    }
    mcNum dist = cdist + ldist;
    add3(pos, pos2, corner);
    addScl3(pos, pos, n, -dist/2);
    setContact(con + cnt, dist, pos, n, NULL);
    if (++cnt >= 4) {
      break;
    }
  }
  return cnt;
}


//---------------------------------- sphere and capsule pairs --------------------------------------

static int sphereSphere(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                        int g1, int g2, mcNum margin) {
  return spherePair(con, margin, MCC_POS(d, g1), MCC_SIZE(m, g1)[0], MCC_POS(d, g2),
                    MCC_SIZE(m, g2)[0]);
}


// nearest point of the capsule segment to the sphere centre
static int sphereCapsule(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                         int g1, int g2, mcNum margin) {
  mcNum axis[3], dif[3], pt[3];
  const mcNum* pos2 = MCC_POS(d, g2);
  mcNum h = MCC_SIZE(m, g2)[1];
  matCol(axis, MCC_MAT(d, g2), 2);
  sub3(dif, MCC_POS(d, g1), pos2);
  mcNum x = dot3(dif, axis);
  x = x > h ? h : (x < -h ? -h : x);
  addScl3(pt, pos2, axis, x);
  return spherePair(con, margin, MCC_POS(d, g1), MCC_SIZE(m, g1)[0], pt, MCC_SIZE(m, g2)[0]);
}


static mcNum clamp1(mcNum x) {
  return x > 1 ? 1 : (x < -1 ? -1 : x);
}


// reach plus a slack of 1e-9 of the coordinates' scale (dif the segments' centres' offset, len1,
// len2 their half-axes' lengths): a lower bound of the segments' distance above it, computed to
// rounding, means capsuleCapsule's own distance, also rounded, lies above reach too
static inline mcNum reachWithSlack(const mcNum dif[3], mcNum len1, mcNum len2, mcNum reach) {
  return reach + 1e-9*(fabs(dif[0]) + fabs(dif[1]) + fabs(dif[2]) + len1 + len2 + fabs(reach));
}


// Whether parallel segments p1 + x1 a1 and p2 + x2 a2 (|x1|, |x2| <= 1; dif = p1 - p2, aa, ab
// the products of a1 with a1 and a2) lie farther apart than reach: every pair of their points
// differs across a1 by P dif - x2 P a2 (P the projection off a1), so they lie at least |P dif| -
// |P a2| apart; beyond reachWithSlack the sphere tests capsuleCapsule would make find no
// contact. Most parallel pairs the broad phase passes are apart (22_humanoids, alike
// humanoids side by side: 5,852 calls in 300 steps, none touching), and the four sphere tests
// cost about 300 instructions.
static inline int parallelApart(const mcNum dif[3], const mcNum a1[3], const mcNum a2[3],
                                mcNum aa, mcNum ab, mcNum len1, mcNum len2, mcNum reach) {
  mcNum bound = reachWithSlack(dif, len1, len2, reach);
  if (!(aa > 0)) {
    return 0;
  }
  mcNum w[3], v[3];
  addScl3(w, dif, a1, -dot3(dif, a1) / aa);
  addScl3(v, a2, a1, -ab / aa);
  return norm3(w) - norm3(v) > bound;
}


// capsule g1's and g2's segments: centres p1, p2, half-axes a1, a2 (parameters in [-1, 1]), radii
// r1, r2, dif = p1 - p2, and the normal equations of min |p1 + x1 a1 - p2 - x2 a2|
typedef struct {
  const mcNum* p1;
  const mcNum* p2;
  mcNum r1, r2;
  mcNum a1[3], a2[3], dif[3];
  mcNum aa, bb, ab, u, v, det;
} SegmentPair;


static inline void segmentPair(SegmentPair* s, const mcModel* m, const mcData* d, int g1, int g2) {
  s->p1 = MCC_POS(d, g1);
  s->p2 = MCC_POS(d, g2);
  s->r1 = MCC_SIZE(m, g1)[0];
  s->r2 = MCC_SIZE(m, g2)[0];
  matCol(s->a1, MCC_MAT(d, g1), 2);
  matCol(s->a2, MCC_MAT(d, g2), 2);
  scl3(s->a1, s->a1, MCC_SIZE(m, g1)[1]);
  scl3(s->a2, s->a2, MCC_SIZE(m, g2)[1]);
  sub3(s->dif, s->p1, s->p2);
  s->u = -dot3(s->a1, s->dif);
  s->v = dot3(s->a2, s->dif);
}


// the rest of the normal equations (after apartAlongCentres, which needs only u and v)
static inline void segmentProducts(SegmentPair* s) {
  s->aa = dot3(s->a1, s->a1);
  s->bb = dot3(s->a2, s->a2);
  s->ab = dot3(s->a1, s->a2);
  s->det = s->aa*s->bb - s->ab*s->ab;
}


// Whether capsule segments s lie farther apart than reach along their centres' offset: for
// points q1 = p1 + x1 a1, q2 = p2 + x2 a2, (q1 - q2).dif >= |dif|^2 - |a1.dif| - |a2.dif| (the last
// two are |u| and |v|), so |q1 - q2| >= lo / |dif| with lo that difference; compared squared
// against reachWithSlack (len1, len2 the half-axes' lengths). Side by side or crossing limbs
// are settled here (22_humanoids: capsuleCapsule -17 % with it, about 25 instructions against the
// 60 of the closest points and the sphere test).
static inline int apartAlongCentres(const SegmentPair* s, mcNum len1, mcNum len2, mcNum reach) {
  mcNum dd = dot3(s->dif, s->dif), lo = dd - fabs(s->u) - fabs(s->v);
  mcNum bound = reachWithSlack(s->dif, len1, len2, reach);
  return lo > 0 && bound > 0 && lo*lo > bound*bound*dd;
}


// parallel segments (out of line: the general case compiles leaner without it): ends of segment
// 1 against segment 2, then ends of segment 2 against segment 1, up to two contacts
static __attribute__((noinline)) int parallelCapsules(const mcModel* m, const mcData* d,
                                                      mcContact* con, int g1, int g2,
                                                      mcNum margin) {
  SegmentPair s;
  segmentPair(&s, m, d, g1, g2);
  segmentProducts(&s);
  if (parallelApart(s.dif, s.a1, s.a2, s.aa, s.ab, MCC_SIZE(m, g1)[1], MCC_SIZE(m, g2)[1],
                    margin + s.r1 + s.r2)) {
    return 0;
  }
  int cnt = 0;
  mcNum q1[3], q2[3];
  for (int k = 0; k < 4 && cnt < 2; k++) {
    mcNum sg = (k % 2 == 0) ? 1 : -1, x1, x2;
    if (k < 2) {
      x1 = sg;
      x2 = clamp1((s.v + sg*s.ab) / s.bb);
    } else {
      x2 = sg;
      x1 = clamp1((s.u + sg*s.ab) / s.aa);
    }
    addScl3(q1, s.p1, s.a1, x1);
    addScl3(q2, s.p2, s.a2, x2);
    cnt += mcc_sphereSphere(con + cnt, margin, q1, s.r1, q2, s.r2);
  }
  return cnt;
}


// segments in general position: the free minimizer clipped to the square; nearly parallel ones
// by parallelCapsules
static int capsuleCapsule(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                          int g1, int g2, mcNum margin) {
  SegmentPair s;
  segmentPair(&s, m, d, g1, g2);
  if (apartAlongCentres(&s, MCC_SIZE(m, g1)[1], MCC_SIZE(m, g2)[1], margin + s.r1 + s.r2)) {
    return 0;
  }
  segmentProducts(&s);
  if (!(fabs(s.det) >= mcMINVAL)) {
    return parallelCapsules(m, d, con, g1, g2, margin);
  }
  mcNum aa = s.aa, bb = s.bb, ab = s.ab, u = s.u, v = s.v, det = s.det, q1[3], q2[3];
  mcNum x1 = (bb*u + ab*v) / det, x2 = (ab*u + aa*v) / det;
  if (x1 > 1) {
    x1 = 1;
    x2 = (v + ab) / bb;
  } else if (x1 < -1) {
    x1 = -1;
    x2 = (v - ab) / bb;
  }
  if (x2 > 1) {
    x2 = 1;
    x1 = clamp1((u + ab) / aa);
  } else if (x2 < -1) {
    x2 = -1;
    x1 = clamp1((u - ab) / aa);
  }
  addScl3(q1, s.p1, s.a1, x1);
  addScl3(q2, s.p2, s.a2, x2);
  return spherePair(con, margin, q1, s.r1, q2, s.r2);
}


//---------------------------------- plugin descriptor ---------------------------------------------

static const mcpCollisionPair g_pairs[] = {
  {mcGEOM_PLANE, mcGEOM_SPHERE, planeSphere},
  {mcGEOM_PLANE, mcGEOM_CAPSULE, planeCapsule},
  {mcGEOM_PLANE, mcGEOM_ELLIPSOID, planeEllipsoid},
  {mcGEOM_PLANE, mcGEOM_CYLINDER, planeCylinder},
  {mcGEOM_PLANE, mcGEOM_BOX, planeBox},
  {mcGEOM_SPHERE, mcGEOM_SPHERE, sphereSphere},
  {mcGEOM_SPHERE, mcGEOM_CAPSULE, sphereCapsule},
  {mcGEOM_SPHERE, mcGEOM_BOX, mcc_sphereBox},
  {mcGEOM_CAPSULE, mcGEOM_CAPSULE, capsuleCapsule},
  {mcGEOM_CAPSULE, mcGEOM_BOX, mcc_capsuleBox},
  {mcGEOM_BOX, mcGEOM_BOX, mcc_boxBox},
};

static const mcpCollision g_plugin = {
  MCP_HEADER(mcpKIND_COLLISION, mcpCollision, "primitive", "1.0.0",
             "analytic plane, sphere, capsule, cylinder, ellipsoid and box pairs", -1),
  0,
  (int)(sizeof(g_pairs) / sizeof(g_pairs[0])),
  g_pairs
};

static const mcpHeader* const g_list[] = {&g_plugin.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("collision-primitive", 1, g_list);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  if (!host || host->abi_major != MCP_ABI_MAJOR) {
    return NULL;
  }
  return &g_library;
}
