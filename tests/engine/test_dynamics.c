// Tests of the smooth pipeline against closed forms: pendulum, free body, position integration,
// energy conservation, divergence checks.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include <moduco/moduco.h>

#include "build.h"
#include "engine/engine.h"
#include "math/math.h"

#define G 9.81


// one hinge about y at the origin, com at (0, 0, -l)
static mcModel* pendulum(double mass, double l, double Iyy) {
  tbBody b[2];
  memset(b, 0, sizeof(b));
  b[1].parent = 0;
  b[1].jtype = mcJNT_HINGE;
  b[1].jaxis[1] = 1;
  b[1].ipos[2] = -l;
  b[1].mass = mass;
  b[1].inertia[0] = b[1].inertia[1] = Iyy;
  b[1].inertia[2] = 0.01;
  return tb_build(2, b);
}


Test(dynamics, pendulumClosedForm) {
  double mass = 1.3, l = 0.7, Iyy = 0.05, arm = 0.02, damp = 0.3, k = 2.0, ref = 0.1;
  mcModel* m = pendulum(mass, l, Iyy);
  m->dof_armature[0] = arm;
  m->dof_damping[0] = damp;
  m->jnt_stiffness[0] = k;
  m->qpos_spring[0] = ref;
  mcData* d = mc_makeData(m);

  for (int t = 0; t < 10; t++) {
    double th = -1.5 + 0.33 * t, w = 0.7 - 0.2 * t, tau = 0.25 * t - 1;
    d->qpos[0] = th;
    d->qvel[0] = w;
    d->qfrc_applied[0] = tau;
    mc_forward(m, d);

    // inertia, gravity bias, passive force, acceleration
    double I = Iyy + mass * l * l + arm;
    double bias = mass * G * l * sin(th);
    double pas = -k * (th - ref) - damp * w;
    cr_assert(fabs(d->qM[0] - I) < 1e-12);
    cr_assert(fabs(d->qfrc_bias[0] - bias) < 1e-12, "%g vs %g", d->qfrc_bias[0], bias);
    cr_assert(fabs(d->qfrc_passive[0] - pas) < 1e-12);
    cr_assert(fabs(d->qacc[0] - (pas - bias + tau) / I) < 1e-12);

    // body com position
    cr_assert(fabs(d->xipos[3] + l * sin(th)) < 1e-12);
    cr_assert(fabs(d->xipos[5] + l * cos(th)) < 1e-12);
  }

  // gravity compensation cancels the gravity bias in the passive force
  m->jnt_stiffness[0] = 0;
  m->dof_damping[0] = 0;
  m->body_gravcomp[1] = 1;
  mc_forward(m, d);
  cr_assert(fabs(d->qfrc_passive[0] - d->qfrc_bias[0]) < 1e-12);
  m->body_gravcomp[1] = 0;

  // gravity disabled
  m->opt.disableflags |= mcDSBL_GRAVITY;
  mc_forward(m, d);
  cr_assert(fabs(d->qfrc_bias[0]) < 1e-14);

  // passive disabled
  m->opt.disableflags |= mcDSBL_PASSIVE;
  mc_forward(m, d);
  cr_assert(d->qfrc_passive[0] == 0);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(dynamics, freeBodyEuler) {
  // free body with com at its origin: diagonal inertia, gravity, Euler's equations
  tbBody b[2];
  memset(b, 0, sizeof(b));
  b[1].jtype = mcJNT_FREE;
  b[1].pos[2] = 1;
  b[1].mass = 2;
  b[1].inertia[0] = 0.1;
  b[1].inertia[1] = 0.2;
  b[1].inertia[2] = 0.3;
  mcModel* m = tb_build(2, b);
  mcData* d = mc_makeData(m);
  double w[3] = {0.4, -1.1, 2.0};
  double q[4] = {0.8, 0.2, -0.3, 0.4};
  mcu_normalize4(q);
  memcpy(d->qpos + 3, q, sizeof(q));
  memcpy(d->qvel + 3, w, sizeof(w));
  d->qvel[0] = 0.5;
  mc_forward(m, d);

  // mass matrix: m I3 (translation), diag(I) in the local frame (rotation), no coupling
  double full[36];
  mc_fullM(m, full, d->qM);
  for (int i = 0; i < 6; i++) {
    for (int j = 0; j < 6; j++) {
      double e = i == j ? (i < 3 ? 2 : b[1].inertia[i - 3]) : 0;
      cr_assert(fabs(full[6 * i + j] - e) < 1e-12, "M(%d,%d)=%g", i, j, full[6 * i + j]);
    }
  }

  // accelerations: free fall, torque-free Euler equations I dw = -(w x I w)
  cr_assert(fabs(d->qacc[2] + G) < 1e-12);
  cr_assert(fabs(d->qacc[0]) < 1e-12 && fabs(d->qacc[1]) < 1e-12);
  double Iw[3] = {0.1 * w[0], 0.2 * w[1], 0.3 * w[2]}, c[3];
  mcu_cross(c, w, Iw);
  for (int k = 0; k < 3; k++) {
    cr_assert(fabs(d->qacc[3 + k] + c[k] / b[1].inertia[k]) < 1e-12);
  }

  // applied Cartesian force at the com acts like a linear force; torque is rotated locally
  mcu_zero(d->qvel, 6);
  d->xfrc_applied[6 + 0] = 4;
  d->xfrc_applied[6 + 3] = 0.3;
  mc_forward(m, d);
  cr_assert(fabs(d->qacc[0] - 2) < 1e-12);
  double R[9], tl[3], tg[3] = {0.3, 0, 0};
  mcu_quat2Mat(R, q);
  mcu_mulMatTVec3(tl, R, tg);
  for (int k = 0; k < 3; k++) {
    cr_assert(fabs(d->qacc[3 + k] - tl[k] / b[1].inertia[k]) < 1e-12);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}


// a free body with one child on a joint of type child
static mcModel* freeWithChild(int child) {
  tbBody b[3];
  memset(b, 0, sizeof(b));
  b[1].jtype = mcJNT_FREE;
  b[1].mass = 1;
  b[2].parent = 1;
  b[2].jtype = child;
  b[2].mass = 1;
  return tb_build(3, b);
}


Test(dynamics, integratePos) {
  // a free joint and a hinge: translation and hinge add, the quaternion rotates locally
  mcModel* m = freeWithChild(mcJNT_HINGE);
  double qpos[8] = {1, 2, 3, 0.5, 0.5, 0.5, 0.5, 0.2};
  double qvel[7] = {0.1, 0.2, 0.3, 0, 0, 2, -1};
  mc_integratePos(m, qpos, qvel, 0.5);
  double e[8] = {1.05, 2.1, 3.15};
  double q0[4] = {0.5, 0.5, 0.5, 0.5}, z[3] = {0, 0, 1}, dq[4];
  mcu_axisAngle2Quat(dq, z, 1.0);
  mcu_mulQuat(e + 3, q0, dq);
  e[7] = -0.3;
  for (int k = 0; k < 8; k++) {
    cr_assert(fabs(qpos[k] - e[k]) < 1e-14, "qpos[%d]", k);
  }

  // normalizeQuat
  qpos[3] = 2;
  mc_normalizeQuat(m, qpos);
  double n = sqrt(qpos[3] * qpos[3] + qpos[4] * qpos[4] + qpos[5] * qpos[5] + qpos[6] * qpos[6]);
  cr_assert(fabs(n - 1) < 1e-15);
  mc_deleteModel(m);
}


Test(dynamics, differentiatePos_inverts_integratePos) {
  // a free joint and a ball joint: differentiating an integrated step gives the velocity back,
  // and an unnormalized quaternion is read as its unit copy
  mcModel* m = freeWithChild(mcJNT_BALL);
  cr_assert_eq(m->nq, 11);
  double q1[11] = {1, 2, 3, 0.5, 0.5, 0.5, 0.5, 0.8, 0, 0.6, 0};
  double v[9] = {0.1, -0.2, 0.3, 0.4, -1, 2, 0.7, 0.1, -0.3}, q2[11], back[9];
  memcpy(q2, q1, sizeof(q1));
  mc_integratePos(m, q2, v, 0.25);
  q2[3] *= 2;
  q2[4] *= 2;
  q2[5] *= 2;
  q2[6] *= 2;
  mc_differentiatePos(m, back, 0.25, q1, q2);
  for (int k = 0; k < 9; k++) {
    cr_assert(fabs(back[k] - v[k]) < 1e-12, "qvel[%d] %g, expected %g", k, back[k], v[k]);
  }
  mc_differentiatePos(m, back, 0.25, q1, q1);
  for (int k = 0; k < 9; k++) {
    cr_assert_eq(back[k], 0.0);
  }
  mc_deleteModel(m);
}


// one RK4 step with the forward dynamics (qpos on the manifold through integratePos)
static void rk4(const mcModel* m, mcData* d, double h) {
  int nq = m->nq, nv = m->nv;
  double q0[64], v0[64], kv[4][64], ka[4][64];
  memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
  memcpy(v0, d->qvel, sizeof(double) * (size_t)nv);
  static const double c[4] = {0, 0.5, 0.5, 1}, w[4] = {1, 2, 2, 1};
  for (int s = 0; s < 4; s++) {
    // stage state from the previous stage's slopes
    memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
    memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
    if (s > 0) {
      mc_integratePos(m, d->qpos, kv[s - 1], c[s] * h);
      for (int i = 0; i < nv; i++) {
        d->qvel[i] = v0[i] + c[s] * h * ka[s - 1][i];
      }
    }
    mc_forward(m, d);
    memcpy(kv[s], d->qvel, sizeof(double) * (size_t)nv);
    memcpy(ka[s], d->qacc, sizeof(double) * (size_t)nv);
  }

  // combine the slopes
  double vbar[64];
  for (int i = 0; i < nv; i++) {
    vbar[i] = (kv[0][i] + 2 * kv[1][i] + 2 * kv[2][i] + kv[3][i]) / 6;
    d->qvel[i] = v0[i] + h * (ka[0][i] + 2 * ka[1][i] + 2 * ka[2][i] + ka[3][i]) / 6;
  }
  (void)w;
  memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
  mc_integratePos(m, d->qpos, vbar, h);
}


// energy drift of a spring-loaded chain after integrating T = steps * h with RK4
static double energyDrift(const int* jtype, int steps, double h) {
  int parent[5] = {0, 0, 1, 2, 3};
  tbBody b[5];
  tb_random(5, b, parent, jtype, 3);
  mcModel* m = tb_build(5, b);
  m->opt.enableflags |= mcENBL_ENERGY;
  for (int j = 0; j < m->njnt; j++) {
    m->jnt_stiffness[j] = 3 + 5 * j;
  }
  mcData* d = mc_makeData(m);
  for (int i = 0; i < m->nv; i++) {
    d->qvel[i] = 1.5 - 0.7 * i;
  }
  mc_forward(m, d);
  double e0 = d->energy[0] + d->energy[1];

  // totalEnergy agrees; kinetic energy is 0.5 v'Mv
  cr_assert(fabs(mc_totalEnergy(m, d) - e0) < 1e-12);
  cr_assert(d->energy[1] > 0);
  double Mv[16], ke = 0;
  mc_mulM(m, d, Mv, d->qvel);
  for (int i = 0; i < m->nv; i++) {
    ke += 0.5 * Mv[i] * d->qvel[i];
  }
  cr_assert(fabs(ke - d->energy[1]) < 1e-12);

  // integrate
  for (int k = 0; k < steps; k++) {
    rk4(m, d, h);
  }
  mc_forward(m, d);
  double drift = fabs(d->energy[0] + d->energy[1] - e0) / (1 + fabs(e0));
  mc_deleteData(d);
  mc_deleteModel(m);
  return drift;
}


Test(dynamics, energyConservation) {
  // hinges and a slide: RK4 conserves energy to its 4th-order accuracy
  int flat[5] = {0, mcJNT_HINGE, mcJNT_HINGE, mcJNT_SLIDE, mcJNT_HINGE};
  double e = energyDrift(flat, 2000, 5e-4);
  cr_assert(e < 1e-9, "drift %g", e);

  // with a ball joint the quaternion stages make RK4 second order: drift shrinks ~4x per halving
  int ball[5] = {0, mcJNT_HINGE, mcJNT_BALL, mcJNT_HINGE, mcJNT_SLIDE};
  double e1 = energyDrift(ball, 1000, 1e-3);
  double e2 = energyDrift(ball, 2000, 5e-4);
  cr_assert(e2 < 1e-5 && e1 > 3 * e2, "drift %g then %g", e1, e2);
}


// capture warnings instead of printing them
static int g_messages;
static void quiet(void* user, const char* msg) {
  (void)user;
  (void)msg;
  g_messages++;
}


Test(dynamics, checksResetOrWarn) {
  mcModel* m = pendulum(1, 0.5, 0.1);
  mcData* d = mc_makeData(m);
  mc_setMessageHandler(quiet, NULL);

  // bad qpos: warning and reset
  d->qpos[0] = NAN;
  d->qvel[0] = 3;
  mc_checkPos(m, d);
  cr_assert(d->warning[mcWARN_BADQPOS].number == 1);
  cr_assert(d->qpos[0] == m->qpos0[0]);
  cr_assert(d->qvel[0] == 0);

  // bad qvel without autoreset: warning only
  m->opt.disableflags |= mcDSBL_AUTORESET;
  d->qvel[0] = 2e10;
  mc_checkVel(m, d);
  cr_assert(d->warning[mcWARN_BADQVEL].number == 1);
  cr_assert(d->warning[mcWARN_BADQVEL].lastinfo == 0);
  cr_assert(d->qvel[0] == 2e10);

  // bad qacc with autoreset: reset, then forward again
  m->opt.disableflags &= ~mcDSBL_AUTORESET;
  d->qacc[0] = -INFINITY;
  mc_checkAcc(m, d);
  cr_assert(d->warning[mcWARN_BADQACC].number == 1);
  cr_assert(d->qvel[0] == 0);
  cr_assert(isfinite(d->qacc[0]));
  mc_setMessageHandler(NULL, NULL);
  mc_deleteData(d);
  mc_deleteModel(m);
}
