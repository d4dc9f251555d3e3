// Moduco core: fluid forces behind option density, viscosity and wind.
//
// Inertia-box model: each body is its equivalent inertia box (half sizes from the principal
// inertia); quadratic drag and Stokes viscous resistance in the inertial frame at the com.
// Ellipsoid model (bodies with a geom of fluidshape="ellipsoid"): each such geom is an ellipsoid
// with added mass, blunt/slender drag, angular drag, Kutta and Magnus lift and viscous terms in
// the geom frame at the geom center. Velocities are taken relative to the wind.
#include <math.h>

#include <moduco/moduco.h>

#include "engine/engine.h"
#include "engine/fluid.h"
#include "math/math.h"

#define PI 3.14159265358979323846


//---------------------------------- model constants -----------------------------------------------

void mc_fluidSemiAxes(int type, const mcNum size[3], mcNum r[3]) {
  switch (type) {
  case mcGEOM_SPHERE:
    r[0] = r[1] = r[2] = size[0];
    break;
  case mcGEOM_CAPSULE:
    r[0] = r[1] = size[0];
    r[2] = size[1] + size[0];
    break;
  case mcGEOM_CYLINDER:
    r[0] = r[1] = size[0];
    r[2] = size[1];
    break;
  default:
    r[0] = size[0];
    r[1] = size[1];
    r[2] = size[2];
    break;
  }
}


// Carlson's symmetric elliptic integral of the second kind R_D(x, y, z) by duplication
static mcNum carlsonRD(mcNum x, mcNum y, mcNum z) {
  mcNum sum = 0, fac = 1, mu, dx, dy, dz;
  for (int it = 0; it < 100; it++) {
    mu = (x + y + 3 * z) / 5;
    dx = (mu - x) / mu;
    dy = (mu - y) / mu;
    dz = (mu - z) / mu;
    if (fmax(fabs(dx), fmax(fabs(dy), fabs(dz))) < 1e-4) {
      break;
    }
    mcNum sx = sqrt(x), sy = sqrt(y), sz = sqrt(z);
    mcNum lam = sx * sy + sx * sz + sy * sz;
    sum += fac / (sz * (z + lam));
    fac *= 0.25;
    x = 0.25 * (x + lam);
    y = 0.25 * (y + lam);
    z = 0.25 * (z + lam);
  }

  // fifth-order series around the common value
  mcNum ea = dx * dy, eb = dz * dz, ec = ea - eb, ed = ea - 6 * eb, ee = ed + 2 * ec;
  mcNum ser = 1 + ed * (-3.0 / 14 + 9.0 / 88 * ed - 9.0 / 52 * dz * ee)
              + dz * (ee / 6 + dz * (-9.0 / 22 * ec + 3.0 / 26 * dz * ea));
  return 3 * sum + fac * ser / (mu * sqrt(mu));
}


void mc_fluidAddedMass(const mcNum r[3], mcNum out[6]) {
  // kappa_i = r_x r_y r_z int_0^inf dl / sqrt((r_i^2+l)^3 (r_j^2+l) (r_k^2+l)) = (2/3) abc R_D
  mcNum kappa[3], r2[3], vol = 4.0 / 3.0 * PI * r[0] * r[1] * r[2];
  for (int i = 0; i < 3; i++) {
    r2[i] = r[i] * r[i];
  }
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, k = (i + 2) % 3;
    kappa[i] = 2.0 / 3.0 * r[0] * r[1] * r[2] * carlsonRD(r2[j], r2[k], r2[i]);
  }

  // virtual masses V kappa / (2 - kappa); virtual inertias from the Tuckerman coefficients
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, k = (i + 2) % 3;
    out[i] = vol * kappa[i] / (2 - kappa[i]);
    mcNum dr = r2[j] - r2[k];
    mcNum num = dr * dr * (kappa[k] - kappa[j]);
    mcNum den = 2 * dr + (r2[j] + r2[k]) * (kappa[j] - kappa[k]);
    out[3 + i] = fabs(den) < mcMINVAL || num == 0 ? 0 : vol / 5 * num / den;
  }
}


//---------------------------------- shared pieces -------------------------------------------------

// velocity [rot; lin] of the point p of body b in the frame R, minus the wind (linear part)
static void localVelocity(const mcModel* m, const mcData* d, int b, const mcNum p[3],
                          const mcNum R[9], mcNum lvel[6]) {
  mcNum shift[3], lwind[3];
  mcu_sub3(shift, p, d->subtree_com + 3 * m->body_rootid[b]);
  mcu_transformSpatial(lvel, d->cvel + 6 * b, 0, shift, R);
  mcu_mulMatTVec3(lwind, R, m->opt.wind);
  mcu_subFrom3(lvel + 3, lwind);
}


// rotate a local [torque; force] to the global frame and apply it at p of body b
static void applyLocal(const mcModel* m, const mcData* d, int b, const mcNum p[3],
                       const mcNum R[9], const mcNum lfrc[6], mcNum* qfrc) {
  mcNum gfrc[6];
  mcu_mulMatVec3(gfrc, R, lfrc);
  mcu_mulMatVec3(gfrc + 3, R, lfrc + 3);
  mc_applyFT(m, d, gfrc + 3, gfrc, p, b, qfrc);
}


//---------------------------------- inertia-box model ---------------------------------------------

static void inertiaBox(const mcModel* m, const mcData* d, int b, mcNum* qfrc) {
  mcNum rho = m->opt.density, beta = m->opt.viscosity;
  const mcNum* I = m->body_inertia + 3 * b;
  mcNum mass = m->body_mass[b];

  // full box sizes: s_i = sqrt(6 (I_j + I_k - I_i) / mass)
  mcNum s[3];
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, k = (i + 2) % 3;
    s[i] = sqrt(fmax(mcMINVAL, I[j] + I[k] - I[i]) / mass * 6);
  }

  // velocity at the com in the inertial frame, relative to the wind
  mcNum lvel[6], lfrc[6] = {0};
  const mcNum* R = d->ximat + 9 * b;
  const mcNum* p = d->xipos + 3 * b;
  localVelocity(m, d, b, p, R, lvel);

  // viscous resistance of the equivalent sphere (diameter = mean size)
  if (beta > 0) {
    mcNum diam = (s[0] + s[1] + s[2]) / 3;
    for (int i = 0; i < 3; i++) {
      lfrc[i] -= PI * diam * diam * diam * beta * lvel[i];
      lfrc[3 + i] -= 3 * PI * diam * beta * lvel[3 + i];
    }
  }

  // quadratic drag on the box faces
  if (rho > 0) {
    for (int i = 0; i < 3; i++) {
      int j = (i + 1) % 3, k = (i + 2) % 3;
      mcNum sj2 = s[j] * s[j], sk2 = s[k] * s[k];
      lfrc[i] -= rho * s[i] * (sj2 * sj2 + sk2 * sk2) / 64 * fabs(lvel[i]) * lvel[i];
      lfrc[3 + i] -= 0.5 * rho * s[j] * s[k] * fabs(lvel[3 + i]) * lvel[3 + i];
    }
  }
  applyLocal(m, d, b, p, R, lfrc, qfrc);
}


//---------------------------------- ellipsoid model -----------------------------------------------

// projected area of the ellipsoid r on the plane normal to v (v != 0)
static mcNum projectedArea(const mcNum r[3], const mcNum v[3]) {
  mcNum yz = r[1] * r[2], xz = r[0] * r[2], xy = r[0] * r[1];
  mcNum a = yz * yz * v[0] * v[0] + xz * xz * v[1] * v[1] + xy * xy * v[2] * v[2];
  mcNum c = yz * yz * yz * yz * v[0] * v[0] + xz * xz * xz * xz * v[1] * v[1]
            + xy * xy * xy * xy * v[2] * v[2];
  return PI * sqrt(c / fmax(mcMINVAL, a));
}


static void ellipsoidGeom(const mcModel* m, const mcData* d, int b, int g, mcNum* qfrc) {
  mcNum rho = m->opt.density, beta = m->opt.viscosity;
  const mcNum* fl = m->geom_fluid + mcNFLUID * g;
  mcNum cblunt = fl[1], cslender = fl[2], cang = fl[3], ckutta = fl[4], cmagnus = fl[5];
  const mcNum* vmass = fl + 6;
  const mcNum* vinert = fl + 9;
  mcNum r[3];
  mc_fluidSemiAxes(m->geom_type[g], m->geom_size + 3 * g, r);
  mcNum vol = 4.0 / 3.0 * PI * r[0] * r[1] * r[2];

  // velocity of the geom center in the geom frame, relative to the wind
  const mcNum* R = d->geom_xmat + 9 * g;
  const mcNum* p = d->geom_xpos + 3 * g;
  mcNum lvel[6], lfrc[6] = {0}, t[3], u[3];
  localVelocity(m, d, b, p, R, lvel);
  const mcNum* w = lvel;
  const mcNum* v = lvel + 3;
  mcNum speed = mcu_norm3(v);

  // added mass: f = (mA v) x w, g = (mA v) x v + (IA w) x w (times the density)
  mcNum pl[3], pa[3];
  for (int i = 0; i < 3; i++) {
    pl[i] = rho * vmass[i] * v[i];
    pa[i] = rho * vinert[i] * w[i];
  }
  mcu_cross(t, pl, w);
  mcu_addTo3(lfrc + 3, t);
  mcu_cross(t, pl, v);
  mcu_addTo3(lfrc, t);
  mcu_cross(t, pa, w);
  mcu_addTo3(lfrc, t);

  // Magnus lift: C_M rho V w x v
  mcu_cross(t, w, v);
  mcu_addToScl3(lfrc + 3, t, cmagnus * rho * vol);

  // Kutta lift: C_K rho A_proj (v^.n^) (n^ x v) x v, n the normal of the projecting section
  mcNum aproj = 0;
  if (speed > mcMINVAL) {
    aproj = projectedArea(r, v);
    mcNum n[3] = {r[1] * r[2] / r[0] * v[0], r[2] * r[0] / r[1] * v[1],
                  r[0] * r[1] / r[2] * v[2]};
    mcNum nn = mcu_norm3(n);
    if (nn > mcMINVAL) {
      mcu_scl3(n, n, 1 / nn);
      mcNum cosa = mcu_dot3(n, v) / speed;
      mcu_cross(u, n, v);
      mcu_cross(t, u, v);
      mcu_addToScl3(lfrc + 3, t, ckutta * rho * aproj * cosa);
    }
  }

  // blunt and slender drag; the largest projected area is that of the two largest semi-axes
  mcNum rmax = fmax(r[0], fmax(r[1], r[2])), rmin = fmin(r[0], fmin(r[1], r[2]));
  mcNum rmid = r[0] + r[1] + r[2] - rmax - rmin;
  mcNum amax = PI * rmax * rmid;
  mcu_addToScl3(lfrc + 3, v, -rho * (cblunt * aproj + cslender * (amax - aproj)) * speed);

  // angular drag from the swept-ellipsoid inertias
  mcNum idrag[3], imax = 0;
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, k = (i + 2) % 3;
    mcNum rm = fmax(r[j], r[k]);
    idrag[i] = 8.0 / 15.0 * PI * r[i] * rm * rm * rm * rm;
    imax = fmax(imax, idrag[i]);
  }
  for (int i = 0; i < 3; i++) {
    t[i] = (cang * idrag[i] + cslender * (imax - idrag[i])) * w[i];
  }
  mcu_addToScl3(lfrc, w, -rho * mcu_norm3(t));

  // viscous resistance of the equivalent sphere
  mcNum rd = (r[0] + r[1] + r[2]) / 3;
  mcu_addToScl3(lfrc + 3, v, -6 * PI * rd * beta);
  mcu_addToScl3(lfrc, w, -8 * PI * rd * rd * rd * beta);

  // the interaction coefficient scales everything
  mcu_scl(lfrc, lfrc, fl[0], 6);
  applyLocal(m, d, b, p, R, lfrc, qfrc);
}


//---------------------------------- entry -------------------------------------------------------

void mc_fluid(const mcModel* m, mcData* d, mcNum* qfrc) {
  if (!mc_fluidOn(m)) {
    return;
  }
  for (int b = 1; b < m->nbody; b++) {
    if (m->body_mass[b] < mcMINVAL) {
      continue;
    }

    // ellipsoid model when any geom of the body asks for it
    int ell = 0;
    for (int k = 0; k < m->body_geomnum[b]; k++) {
      ell |= m->geom_fluid[mcNFLUID * (m->body_geomadr[b] + k)] > 0;
    }
    if (!ell) {
      inertiaBox(m, d, b, qfrc);
      continue;
    }
    for (int k = 0; k < m->body_geomnum[b]; k++) {
      int g = m->body_geomadr[b] + k;
      if (m->geom_fluid[mcNFLUID * g] > 0) {
        ellipsoidGeom(m, d, b, g, qfrc);
      }
    }
  }
}
