// Moduco core: geom mass and inertia, body inertia from geoms, mass bounds and validation.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "compiler/compiler_mesh.h"

//---------------------------------- geoms ---------------------------------------------------------

// surface area and unit-density diagonal inertia of a primitive's surface (shellinertia, as
// MuJoCo 3.3.8); return 0 if it has none
static int mcc_primitiveShell(int type, const mcNum* size, mcNum* area, mcNum I[3]) {
  mcNum r = size[0];
  switch (type) {
  case mcGEOM_SPHERE:
    *area = 4 * mcPI * r * r;
    I[0] = I[1] = I[2] = 2.0 / 3.0 * (*area) * r * r;
    return 1;

  case mcGEOM_CAPSULE: {
    // open cylinder plus a sphere split at the ends (a hemisphere shell's centre: r/2 from base)
    mcNum h = size[1];
    mcNum al = 4 * mcPI * r * h, as = 4 * mcPI * r * r;
    *area = al + as;
    I[0] = I[1] = al * (r * r / 2 + h * h / 3) + as * (2.0 / 3.0 * r * r + h * h + h * r);
    I[2] = al * r * r + 2.0 / 3.0 * as * r * r;
    return 1;
  }

  case mcGEOM_CYLINDER: {
    // open cylinder plus two discs
    mcNum h = size[1];
    mcNum al = 4 * mcPI * r * h, ac = mcPI * r * r;
    *area = al + 2 * ac;
    I[0] = I[1] = al * (r * r / 2 + h * h / 3) + 2 * ac * (r * r / 4 + h * h);
    I[2] = al * r * r + ac * r * r;
    return 1;
  }

  case mcGEOM_ELLIPSOID: {
    // area: Knud Thomsen's formula (p = 1.6075); inertia: the layer of thickness 1e-6 between
    // the ellipsoid and the one with every semi-axis 1e-6 longer, at the density giving that area
    mcNum a = size[0], b = size[1], cc = size[2], p = 1.6075, t = 1e-6;
    *area = 4 * mcPI * pow((pow(a * b, p) + pow(a * cc, p) + pow(b * cc, p)) / 3, 1 / p);
    mcNum A = a + t, B = b + t, C = cc + t;
    mcNum v0 = 4 * mcPI * a * b * cc / 3, v1 = 4 * mcPI * A * B * C / 3;
    mcNum rho = *area / (v1 - v0), m0 = rho * v0, m1 = rho * v1;
    I[0] = m1 * (B * B + C * C) / 5 - m0 * (b * b + cc * cc) / 5;
    I[1] = m1 * (A * A + C * C) / 5 - m0 * (a * a + cc * cc) / 5;
    I[2] = m1 * (A * A + B * B) / 5 - m0 * (a * a + b * b) / 5;
    return 1;
  }

  case mcGEOM_BOX: {
    // three pairs of plates; ax: area of one face normal to x, and so on
    mcNum a = size[0], b = size[1], cc = size[2];
    mcNum ax = 4 * b * cc, ay = 4 * a * cc, az = 4 * a * b;
    *area = 2 * (ax + ay + az);
    I[0] = 2 * ax * (b * b + cc * cc) / 3 + 2 * ay * (b * b + cc * cc / 3) +
           2 * az * (cc * cc + b * b / 3);
    I[1] = 2 * ay * (a * a + cc * cc) / 3 + 2 * ax * (a * a + cc * cc / 3) +
           2 * az * (cc * cc + a * a / 3);
    I[2] = 2 * az * (a * a + b * b) / 3 + 2 * ax * (a * a + b * b / 3) +
           2 * ay * (b * b + a * a / 3);
    return 1;
  }

  default:
    *area = 0;
    I[0] = I[1] = I[2] = 0;
    return 0;
  }
}

// volume and unit-density diagonal inertia of a primitive; return 0 if it has no volume
static int mcc_primitive(int type, const mcNum* size, mcNum* vol, mcNum I[3]) {
  mcNum r = size[0];
  switch (type) {
  case mcGEOM_SPHERE:
    *vol = 4.0 / 3.0 * mcPI * r * r * r;
    I[0] = I[1] = I[2] = 0.4 * (*vol) * r * r;
    return 1;

  case mcGEOM_CAPSULE: {
    // cylinder plus two hemispheres (each hemisphere's center of mass at 3r/8 from its base)
    mcNum h = 2 * size[1];
    mcNum vc = mcPI * r * r * h;
    mcNum vs = 4.0 / 3.0 * mcPI * r * r * r;
    *vol = vc + vs;
    I[0] = I[1] = vc * (3 * r * r + h * h) / 12 + vs * (0.4 * r * r + 0.25 * h * h + 0.375 * r * h);
    I[2] = vc * r * r / 2 + vs * 0.4 * r * r;
    return 1;
  }

  case mcGEOM_CYLINDER: {
    mcNum h = 2 * size[1];
    *vol = mcPI * r * r * h;
    I[0] = I[1] = (*vol) * (3 * r * r + h * h) / 12;
    I[2] = (*vol) * r * r / 2;
    return 1;
  }

  case mcGEOM_ELLIPSOID: {
    mcNum a = size[0], b = size[1], cc = size[2];
    *vol = 4.0 / 3.0 * mcPI * a * b * cc;
    I[0] = (*vol) * (b * b + cc * cc) / 5;
    I[1] = (*vol) * (a * a + cc * cc) / 5;
    I[2] = (*vol) * (a * a + b * b) / 5;
    return 1;
  }

  case mcGEOM_BOX: {
    mcNum a = size[0], b = size[1], cc = size[2];
    *vol = 8 * a * b * cc;
    I[0] = (*vol) * (b * b + cc * cc) / 3;
    I[1] = (*vol) * (a * a + cc * cc) / 3;
    I[2] = (*vol) * (a * a + b * b) / 3;
    return 1;
  }

  default:
    *vol = 0;
    I[0] = I[1] = I[2] = 0;
    return 0;
  }
}

void mcc_geomInertia(mcc* c, const mccGeomObj* g, mcNum* mass, mcNum inertia[3]) {
  mcNum vol, I[3];
  if (g->s.type == mcGEOM_MESH) {
    // MuJoCo 3.3.8: the mesh's own volume (area for inertia="shell") and inertia
    mcc_meshGeomInertia(c, g->meshid, &vol, I);
    mcNum density = g->s.density;
    if (g->s.mass >= 0) {
      density = vol > mcMINVAL ? g->s.mass / vol : 0;
    }
    *mass = g->s.mass >= 0 ? (vol > mcMINVAL ? g->s.mass : 0) : density * vol;
    for (int i = 0; i < 3; i++) {
      inertia[i] = density * I[i];
    }
    return;
  }
  int has = g->s.shellinertia ? mcc_primitiveShell(g->s.type, g->s.size, &vol, I)
                              : mcc_primitive(g->s.type, g->s.size, &vol, I);
  if (!has) {
    *mass = 0;
    inertia[0] = inertia[1] = inertia[2] = 0;
    return;
  }
  mcNum density = g->s.density;
  if (g->s.mass >= 0) {
    density = vol > 0 ? g->s.mass / vol : 0;
  }
  *mass = density * vol;
  for (int i = 0; i < 3; i++) {
    inertia[i] = density * I[i];
  }
}

mcNum mcc_geomRbound(const mccGeomObj* g) {
  const mcNum* s = g->s.size;
  switch (g->s.type) {
  case mcGEOM_SPHERE:
    return s[0];
  case mcGEOM_CAPSULE:
    return s[0] + s[1];
  case mcGEOM_CYLINDER:
    return sqrt(s[0] * s[0] + s[1] * s[1]);
  case mcGEOM_ELLIPSOID:
    return fmax(fmax(s[0], s[1]), s[2]);
  case mcGEOM_BOX:
  case mcGEOM_MESH:
    // a mesh geom's size is the half-extent of its vertices in the mesh frame
    return sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
  default:
    return 0;
  }
}

//---------------------------------- bodies --------------------------------------------------------

// add a mass with principal inertia I at (pos, quat) to the accumulators (about the origin)
static void mcc_accumulate(mcNum* M, mcNum com[3], mcNum T[9], mcNum mass, const mcNum I[3],
                           const mcNum pos[3], const mcNum quat[4]) {
  mcNum R[9];
  mcc_quat2Mat(R, quat);
  *M += mass;
  for (int i = 0; i < 3; i++) {
    com[i] += mass * pos[i];
  }

  // rotated inertia R diag(I) R' plus the point-mass term m (|p|^2 E - p p')
  mcNum p2 = pos[0] * pos[0] + pos[1] * pos[1] + pos[2] * pos[2];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      mcNum v = 0;
      for (int k = 0; k < 3; k++) {
        v += R[3 * i + k] * I[k] * R[3 * j + k];
      }
      v += mass * ((i == j ? p2 : 0) - pos[i] * pos[j]);
      T[3 * i + j] += v;
    }
  }
}

// turn accumulators (about the origin) into com, principal inertia and frame; 0 if massless
static int mcc_principal(mcNum M, const mcNum comsum[3], const mcNum T[9], mcNum ipos[3],
                         mcNum iquat[4], mcNum inertia[3]) {
  if (M < mcMINVAL) {
    memset(ipos, 0, sizeof(mcNum) * 3);
    iquat[0] = 1;
    iquat[1] = iquat[2] = iquat[3] = 0;
    memset(inertia, 0, sizeof(mcNum) * 3);
    return 0;
  }
  mcNum com[3] = {comsum[0] / M, comsum[1] / M, comsum[2] / M};
  mcNum Tc[9];
  mcNum c2 = com[0] * com[0] + com[1] * com[1] + com[2] * com[2];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      Tc[3 * i + j] = T[3 * i + j] - M * ((i == j ? c2 : 0) - com[i] * com[j]);
    }
  }
  memcpy(ipos, com, sizeof(com));
  mcc_eig3(inertia, iquat, Tc, MCC_EIG_BODY);
  for (int i = 0; i < 3; i++) {
    if (inertia[i] < 0 && inertia[i] > -1e-12 * (inertia[0] + 1)) {
      inertia[i] = 0;
    }
  }
  return 1;
}

// pose of body b relative to its weld root (the nearest ancestor-or-self with joints)
static void mcc_poseInWeld(mcc* c, int b, mcNum pos[3], mcNum quat[4]) {
  mccBody* bb = MCC_AT(c->bodies, mccBody, b);
  pos[0] = pos[1] = pos[2] = 0;
  quat[0] = 1;
  quat[1] = quat[2] = quat[3] = 0;
  while (b != bb->weldid && b > 0) {
    mccBody* cur = MCC_AT(c->bodies, mccBody, b);
    mcc_frameMul(pos, quat, cur->pos, cur->quat, pos, quat);
    b = cur->parent;
  }
}

void mcc_bodyInertia(mcc* c) {
  int nbody = c->bodies.n;

  // inertia from geoms where the compiler says so
  for (int b = 1; b < nbody; b++) {
    mccBody* body = MCC_AT(c->bodies, mccBody, b);
    const mccScope* sc = mcc_scope(c, body->elem);
    int fromgeom = sc->inertiafromgeom == MCC_TRUE ||
                   (sc->inertiafromgeom == MCC_AUTO && !body->has_inertial);
    if (!fromgeom) {
      if (!body->has_inertial) {
        body->mass = 0;
        body->iquat[0] = 1;
      }
      continue;
    }
    mcNum M = 0, com[3] = {0, 0, 0}, T[9] = {0};
    int ngeom = 0;
    const mccGeomObj* single = NULL;
    mcNum single_I[3] = {0, 0, 0};
    for (int i = body->geomadr; i >= 0 && i < body->geomadr + body->geomnum; i++) {
      const mccGeomObj* g = MCC_AT(c->geoms, mccGeomObj, i);
      if (g->s.mass == 0 || (g->s.mass < 0 && g->s.density == 0) ||
          g->s.group < sc->inertiagroup[0] || g->s.group > sc->inertiagroup[1]) {
        continue;  // massless, or outside inertiagrouprange
      }
      mcNum mass, I[3];
      mcc_geomInertia(c, g, &mass, I);
      mcc_accumulate(&M, com, T, mass, I, g->s.pos, g->s.quat);
      single = g;
      memcpy(single_I, I, sizeof(single_I));
      ngeom++;
    }
    body = MCC_AT(c->bodies, mccBody, b);
    body->mass = M;
    if (ngeom == 1) {
      // one geom with mass: the inertial frame is the geom frame (principal axes in geom order)
      memcpy(body->ipos, single->s.pos, sizeof(body->ipos));
      memcpy(body->iquat, single->s.quat, sizeof(body->iquat));
      memcpy(body->inertia, single_I, sizeof(body->inertia));
    } else {
      mcc_principal(M, com, T, body->ipos, body->iquat, body->inertia);
    }
  }

  // bounds, balance and total mass (all bodies except the world)
  mcNum total = 0;
  for (int b = 1; b < nbody; b++) {
    mccBody* body = MCC_AT(c->bodies, mccBody, b);
    const mccScope* sc = mcc_scope(c, body->elem);
    if (body->mass < sc->boundmass) {
      body->mass = sc->boundmass;
    }
    for (int i = 0; i < 3; i++) {
      if (body->inertia[i] < sc->boundinertia) {
        body->inertia[i] = sc->boundinertia;
      }
    }
    if (sc->balanceinertia) {
      mcNum* I = body->inertia;
      if (I[0] + I[1] < I[2] || I[0] + I[2] < I[1] || I[1] + I[2] < I[0]) {
        mcNum mean = (I[0] + I[1] + I[2]) / 3;
        I[0] = I[1] = I[2] = mean;
      }
    }
    total += body->mass;
  }
  mcNum settotal = mcc_scope(c, NULL)->settotalmass;
  if (settotal > 0 && total > mcMINVAL) {
    mcNum scale = settotal / total;
    for (int b = 1; b < nbody; b++) {
      mccBody* body = MCC_AT(c->bodies, mccBody, b);
      body->mass *= scale;
      for (int i = 0; i < 3; i++) {
        body->inertia[i] *= scale;
      }
    }
  }

  // validation: physical inertia and non-degenerate moving weld groups
  for (int b = 1; b < nbody; b++) {
    mccBody* body = MCC_AT(c->bodies, mccBody, b);
    const mcNum* I = body->inertia;
    const char* name = body->name ? body->name : "(unnamed)";
    if (body->mass < 0 || I[0] < 0 || I[1] < 0 || I[2] < 0) {
      mcc_error(c, body->elem, "negative mass or inertia in body '%s'", name);
    }
    mcNum tol = 1e-10 * (I[0] + I[1] + I[2]);
    if (I[0] + I[1] + tol < I[2] || I[0] + I[2] + tol < I[1] || I[1] + I[2] + tol < I[0]) {
      mcc_error(c, body->elem,
                "inertia of body '%s' (%g %g %g) violates the triangle inequality A + B >= C; "
                "use <compiler balanceinertia=\"true\"/> to fix",
                name, I[0], I[1], I[2]);
    }
  }
  // bodies are in depth-first order, so the subtree of b is [b, end[b]): the bodies welded to b
  // are found there (linear in the body count times the depth, not quadratic)
  int* end = (int*)mcc_malloc(c, sizeof(int) * (size_t)nbody);
  c->scratch = end;
  for (int b = 0; b < nbody; b++) {
    end[b] = b + 1;
  }
  for (int b = nbody - 1; b > 0; b--) {
    int p = MCC_AT(c->bodies, mccBody, b)->parent;
    end[p] = end[b] > end[p] ? end[b] : end[p];
  }
  for (int b = 1; b < nbody; b++) {
    mccBody* body = MCC_AT(c->bodies, mccBody, b);
    if (body->jntnum == 0) {
      continue;
    }

    // composite inertia of the bodies welded to b, in b's frame
    mcNum M = 0, com[3] = {0, 0, 0}, T[9] = {0};
    for (int k = b; k < end[b]; k++) {
      mccBody* bk = MCC_AT(c->bodies, mccBody, k);
      if (bk->weldid != b) {
        continue;
      }
      mcNum pos[3], quat[4], ip[3], iq[4];
      mcc_poseInWeld(c, k, pos, quat);
      mcc_frameMul(ip, iq, pos, quat, bk->ipos, bk->iquat);
      mcc_accumulate(&M, com, T, bk->mass, bk->inertia, ip, iq);
    }
    mcNum ipos[3], iquat[4], I[3];
    mcc_principal(M, com, T, ipos, iquat, I);
    if (M < mcMINVAL || I[2] < mcMINVAL) {
      mcc_error(c, body->elem,
                "mass and inertia of moving body '%s' must be larger than mcMINVAL (1e-15): "
                "got mass %g, inertia %g %g %g; add geoms or an <inertial>, or use <compiler "
                "boundmass=... boundinertia=...>",
                body->name ? body->name : "(unnamed)", M, I[0], I[1], I[2]);
    }
  }
  free(end);
  c->scratch = NULL;
}


//---------------------------------- alignfree -----------------------------------------------------

// express a local pose (pos, quat) of body b in b's inertial frame (ipos, iquat)
static void mcc_toInertial(const mccBody* b, mcNum pos[3], mcNum quat[4]) {
  mcNum inv[4] = {b->iquat[0], -b->iquat[1], -b->iquat[2], -b->iquat[3]}, d[3], q[4];
  for (int i = 0; i < 3; i++) {
    d[i] = pos[i] - b->ipos[i];
  }
  mcc_rotVecQuat(pos, d, inv);
  mcc_quatMul(q, inv, quat);
  mcc_normalize4(q);
  memcpy(quat, q, sizeof(q));
}

void mcc_alignFree(mcc* c) {
  // a body with an aligned free joint and no child body (as MuJoCo 3.14): its frame moves to its
  // inertial frame, its geoms, sites and cameras keep their world poses
  for (int j = 0; j < c->joints.n; j++) {
    const mccJointObj* jo = MCC_AT(c->joints, mccJointObj, j);
    if (jo->s.type != mcJNT_FREE || !jo->align) {
      continue;
    }
    int b = jo->body, leaf = 1;
    for (int k = b + 1; k < c->bodies.n && leaf; k++) {
      leaf = MCC_AT(c->bodies, mccBody, k)->parent != b;
    }
    if (!leaf) {
      continue;
    }
    mccBody* body = MCC_AT(c->bodies, mccBody, b);
    for (int g = 0; g < c->geoms.n; g++) {
      mccGeomObj* go = MCC_AT(c->geoms, mccGeomObj, g);
      if (go->body == b) {
        mcc_toInertial(body, go->s.pos, go->s.quat);
      }
    }
    for (int s = 0; s < c->sites.n; s++) {
      mccSiteObj* so = MCC_AT(c->sites, mccSiteObj, s);
      if (so->body == b) {
        mcc_toInertial(body, so->s.pos, so->s.quat);
      }
    }
    for (int k = 0; k < c->cameras.n; k++) {
      mccCameraObj* co = MCC_AT(c->cameras, mccCameraObj, k);
      if (co->body == b) {
        mcc_toInertial(body, co->s.pos, co->s.quat);
      }
    }
    mcNum d[3], q[4];
    mcc_rotVecQuat(d, body->ipos, body->quat);
    for (int i = 0; i < 3; i++) {
      body->pos[i] += d[i];
      body->ipos[i] = 0;
    }
    mcc_quatMul(q, body->quat, body->iquat);
    mcc_normalize4(q);
    memcpy(body->quat, q, sizeof(q));
    body->iquat[0] = 1;
    body->iquat[1] = body->iquat[2] = body->iquat[3] = 0;
  }
}
