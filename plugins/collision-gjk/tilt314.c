// Moduco collision-gjk: the multi-contact of a capsule against a capsule, cylinder, box or mesh,
// and of two boxes, meshes or cylinders with a margin on the pair (session 11: a cube mesh flat on
// a box, a cylinder on a box or a cap), as MuJoCo 3.14 makes it for its multiccd flag, found by
// probing 3.14 as a black box
// (tests/collision/test_collision_gjk.c, multiccd tests; docs/mujoco3.md): the pair turned by
// small angles, each turned pair collided by the same GJK/EPA as the single contact (3.3.8's
// scheme, collision-convex's multiccd.c, settles each turned pair's normal and point on the
// features instead, which in deep crowded poses puts the point far from 3.14's).
//
// With the single contact's normal n and point p, and the contact frame's tangents t1 (world y
// made normal to n, world z when n is within 60 degrees of y) and t2 = n x t1, for d = -t2, +t2,
// +t1, -t1 in this order geom2 is turned by TILT about the axis n x d through p (which tips its
// normal toward d) and geom1 by the same angle the other way. The turned pair's GJK/EPA contact
// (its normal, and its point halfway between the two deepest or closest points, not turned back)
// is an extra contact with the single contact's distance, unless it lies within
// DUPTOL min(rbound1, rbound2) of the single contact or an extra kept before (across n). The
// single contact stays as it is.
#include <math.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "gjk.h"
#include "multiccd.h"
#include "support.h"
#include "tilt314.h"

#define TILT   1e-3                 // each geom turned by this angle (radians)
#define DUPTOL 1e-3                 // extras within DUPTOL*min(rbound) of another are dropped

// a geom, as its core (a sphere's centre, a capsule's segment) or whole, turned by R about piv
typedef struct {
  ConvexObj o;
  mcNum R[9];
  mcNum piv[3];
  mcNum radius;                     // the core's radius (0: the whole shape)
} Turned;


// support of the geom's core (or of the whole geom when it has none) in the world direction dir
static void coreSupport(const Turned* t, const mcNum dir[3], mcNum res[3]) {
  if (t->radius == 0) {
    geomSupport(&t->o, dir, res);
    return;
  }
  geomCoreSupport(&t->o, dir, res);
}


// world direction dir: the support of the turned core, piv + R (s(R^T dir) - piv)
static void turnedSupport(const void* obj, const mcNum dir[3], mcNum res[3]) {
  const Turned* t = (const Turned*)obj;
  const mcNum* R = t->R;
  mcNum loc[3], s[3];
  for (int k = 0; k < 3; k++) {
    loc[k] = R[k]*dir[0] + R[3 + k]*dir[1] + R[6 + k]*dir[2];
  }
  coreSupport(t, loc, s);
  for (int k = 0; k < 3; k++) {
    s[k] -= t->piv[k];
  }
  for (int k = 0; k < 3; k++) {
    res[k] = t->piv[k] + R[3*k]*s[0] + R[3*k + 1]*s[1] + R[3*k + 2]*s[2];
  }
}


static mcNum coreRadius(const mcModel* m, int g) {
  int t = m->geom_type[g];
  return t == mcGEOM_SPHERE || t == mcGEOM_CAPSULE ? m->geom_size[3*g] : 0;
}


// GJK/EPA on the turned pair: its normal (t1 toward t2) and point; 0 when no contact within the
// margin (or degenerate)
static int turnedContact(Turned* t1, Turned* t2, mcNum margin, mcNum n[3], mcNum pos[3]) {
  const mcModel* m = t1->o.m;
  gjkQuery q;
  q.obj1 = t1;
  q.obj2 = t2;
  q.support1 = turnedSupport;
  q.support2 = turnedSupport;
  for (int i = 0; i < 2; i++) {
    const Turned* t = i ? t2 : t1;
    const mcNum* c = t->o.d->geom_xpos + 3*t->o.geom;
    mcNum* res = i ? q.center2 : q.center1;
    mcNum x[3] = {c[0] - t->piv[0], c[1] - t->piv[1], c[2] - t->piv[2]};
    for (int k = 0; k < 3; k++) {
      res[k] = t->piv[k] + t->R[3*k]*x[0] + t->R[3*k + 1]*x[1] + t->R[3*k + 2]*x[2];
    }
  }
  mcNum scale = m->geom_rbound[t1->o.geom] + m->geom_rbound[t2->o.geom];
  q.tolerance = 1e-15*(scale > 0 ? scale : 1);
  q.max_iterations = 250;
  mcNum r = t1->radius + t2->radius;
  q.cutoff = margin + r;
  gjkSimplex s;
  mcNum dist, x1[3], x2[3];
  gjkResult res = gjk_distance(&q, &dist, x1, x2, &s);
  if (res == gjkBEYOND) {
    return 0;
  }
  if (res == gjkSEPARATED) {
    if (!(dist > 0)) {
      return 0;
    }
    for (int k = 0; k < 3; k++) {
      n[k] = (x2[k] - x1[k]) / dist;
    }
  } else {
    mcNum depth;
    if (!epa_penetration(&q, &s, &depth, n, x1, x2)) {
      return 0;
    }
    dist = -depth;
  }
  if (!(dist - r <= margin)) {
    return 0;
  }
  for (int k = 0; k < 3; k++) {
    pos[k] = 0.5*(x1[k] + t1->radius*n[k] + x2[k] - t2->radius*n[k]);
  }
  return 1;
}


static mcNum dot3(const mcNum a[3], const mcNum b[3]) {
  return a[0]*b[0] + a[1]*b[1] + a[2]*b[2];
}


// distance of a and b across the unit normal n
static mcNum across(const mcNum a[3], const mcNum b[3], const mcNum n[3]) {
  mcNum dv[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  mcNum h = dot3(dv, n), d2 = dot3(dv, dv) - h*h;
  return d2 > 0 ? sqrt(d2) : 0;
}


int tilt314_applies(const mcModel* m, int g1, int g2) {
  int t1 = m->geom_type[g1], t2 = m->geom_type[g2];
  int flat1 = t1 == mcGEOM_CYLINDER || t1 == mcGEOM_BOX || t1 == mcGEOM_MESH;
  int flat2 = t2 == mcGEOM_CYLINDER || t2 == mcGEOM_BOX || t2 == mcGEOM_MESH;
  return (t1 == mcGEOM_CAPSULE && (flat2 || t2 == mcGEOM_CAPSULE)) ||
         (t2 == mcGEOM_CAPSULE && flat1);
}


int tilt314_contacts(const mcModel* m, const mcData* d, mcContact* con, int g1, int g2,
                     mcNum margin) {
  const mcNum* n = con[0].frame;
  const mcNum* p = con[0].pos;
  mcNum dupTol = DUPTOL*fmin(m->geom_rbound[g1], m->geom_rbound[g2]);
  mcNum axes[4][3];
  mccd_turnAxes(n, axes);
  int nc = 1;
  for (int dir = 0; dir < 4 && nc < mcMAXCONPAIR; dir++) {
    const mcNum* ax = axes[dir];
    Turned o1 = {{m, d, g1, 0, -1}, {0}, {p[0], p[1], p[2]}, coreRadius(m, g1)};
    Turned o2 = {{m, d, g2, 0, -1}, {0}, {p[0], p[1], p[2]}, coreRadius(m, g2)};
    mccd_axisRotation(ax, -TILT, o1.R);
    mccd_axisRotation(ax, TILT, o2.R);
    mcNum ns[3], pos[3];
    if (!turnedContact(&o1, &o2, margin, ns, pos) || !isfinite(dot3(pos, pos))) {
      continue;
    }
    int dup = 0;
    for (int i = 0; i < nc && !dup; i++) {
      dup = across(pos, con[i].pos, n) <= dupTol;
    }
    if (dup) {
      continue;
    }
    mcContact* c = con + nc++;
    *c = con[0];
    memcpy(c->pos, pos, sizeof(pos));
    memcpy(c->frame, ns, sizeof(ns));
    memset(c->frame + 3, 0, sizeof(mcNum)*6);
  }
  return nc;
}
