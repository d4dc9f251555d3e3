// Tests of core/math: quaternions, rotations, spatial algebra against closed forms and identities.
#include <criterion/criterion.h>
#include <math.h>

#include "math/math.h"

#define TOL 1e-12


// deterministic pseudo-random numbers
static double rnd(unsigned* s) {
  *s = *s * 1103515245u + 12345u;
  return ((double)((*s >> 8) & 0xFFFFFF) / (double)0x1000000) * 2 - 1;
}


static void randQuat(unsigned* s, mcNum q[4]) {
  for (int k = 0; k < 4; k++) {
    q[k] = rnd(s);
  }
  mcu_normalize4(q);
}


static void assertNear(const mcNum* a, const mcNum* b, int n, double tol) {
  for (int i = 0; i < n; i++) {
    cr_assert(fabs(a[i] - b[i]) <= tol, "entry %d: %.17g vs %.17g", i, a[i], b[i]);
  }
}


Test(math, axisAngleRotatesAboutZ) {
  // rotation by theta about z maps x to (cos, sin, 0)
  mcNum z[3] = {0, 0, 1}, x[3] = {1, 0, 0}, q[4], r[3], R[9];
  double th = 0.73;
  mcu_axisAngle2Quat(q, z, th);
  mcu_rotVecQuat(r, x, q);
  mcNum expect[3] = {cos(th), sin(th), 0};
  assertNear(r, expect, 3, TOL);

  // the matrix agrees
  mcu_quat2Mat(R, q);
  mcu_mulMatVec3(r, R, x);
  assertNear(r, expect, 3, TOL);
}


Test(math, quatMatConsistent) {
  unsigned s = 7;
  for (int t = 0; t < 100; t++) {
    mcNum a[4], b[4], ab[4], v[3], r1[3], r2[3], Ra[9], Rb[9], Rab[9], RaRb[9];
    randQuat(&s, a);
    randQuat(&s, b);
    for (int k = 0; k < 3; k++) {
      v[k] = rnd(&s);
    }

    // rotVecQuat matches quat2Mat
    mcu_quat2Mat(Ra, a);
    mcu_rotVecQuat(r1, v, a);
    mcu_mulMatVec3(r2, Ra, v);
    assertNear(r1, r2, 3, TOL);

    // product of quaternions is product of matrices
    mcu_mulQuat(ab, a, b);
    mcu_quat2Mat(Rb, b);
    mcu_quat2Mat(Rab, ab);
    mcu_mulMatMat3(RaRb, Ra, Rb);
    assertNear(Rab, RaRb, 9, TOL);

    // R is orthonormal: R'R v = v
    mcu_mulMatTVec3(r1, Ra, r2);
    assertNear(r1, v, 3, TOL);
  }
}


Test(math, quatIntegrateClosedForm) {
  // constant angular velocity about a fixed axis: n small steps equal one big step
  unsigned s = 11;
  for (int t = 0; t < 20; t++) {
    mcNum q0[4], w[3], q1[4], q2[4], dq[4], axis[3];
    randQuat(&s, q0);
    for (int k = 0; k < 3; k++) {
      w[k] = 3 * rnd(&s);
    }
    double T = 0.7;

    // closed form: q0 * exp(w T) in the local frame
    mcu_copy3(axis, w);
    double speed = mcu_normalize3(axis);
    mcu_axisAngle2Quat(dq, axis, speed * T);
    mcu_mulQuat(q1, q0, dq);

    // integrated in 100 steps
    mcu_copy4(q2, q0);
    for (int k = 0; k < 100; k++) {
      mcu_quatIntegrate(q2, w, T / 100);
    }
    assertNear(q1, q2, 4, 1e-12);

    // subQuat recovers the displacement
    mcNum r[3], expect[3];
    mcu_scl3(expect, w, T);
    mcu_subQuat(r, q1, q0);
    if (speed * T < mcPI) {
      assertNear(r, expect, 3, 1e-12);
    }
  }
}


Test(math, quat2VelWraps) {
  // a rotation by 3/2 pi is a rotation by -pi/2
  mcNum x[3] = {1, 0, 0}, q[4], v[3];
  mcu_axisAngle2Quat(q, x, 1.5 * mcPI);
  mcu_quat2Vel(v, q, 1);
  cr_assert(fabs(v[0] + 0.5 * mcPI) < TOL);
  cr_assert(fabs(v[1]) < TOL && fabs(v[2]) < TOL);
}


Test(math, normalizeDegenerate) {
  mcNum q[4] = {0, 0, 0, 0}, v[3] = {0, 0, 0};
  mcu_normalize4(q);
  cr_assert(q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0);
  cr_assert(mcu_normalize3(v) == 0);
  cr_assert(v[0] == 1);
}


Test(math, spatialDuality) {
  // (v x m) . f = -m . (v x* f), and power is invariant under a change of reference point
  unsigned s = 5;
  for (int t = 0; t < 100; t++) {
    mcNum v[6], mo[6], f[6], a[6], b[6], shift[3];
    for (int k = 0; k < 6; k++) {
      v[k] = rnd(&s);
      mo[k] = rnd(&s);
      f[k] = rnd(&s);
    }
    for (int k = 0; k < 3; k++) {
      shift[k] = rnd(&s);
    }
    mcu_crossMotion(a, v, mo);
    mcu_crossForce(b, v, f);
    cr_assert(fabs(mcu_dot6(a, f) + mcu_dot6(mo, b)) < TOL);

    // power at a shifted and rotated point
    mcNum q[4], R[9], mo2[6], f2[6];
    randQuat(&s, q);
    mcu_quat2Mat(R, q);
    mcu_transformSpatial(mo2, mo, 0, shift, R);
    mcu_transformSpatial(f2, f, 1, shift, R);
    cr_assert(fabs(mcu_dot6(mo2, f2) - mcu_dot6(mo, f)) < TOL);
  }
}


Test(math, inertiaPointMasses) {
  // a body of two equal point masses equals the inertCom formula with zero principal inertia
  // plus the parallel axis; the product I*v is symmetric and gives the kinetic energy
  unsigned s = 9;
  mcNum p1[3] = {0.3, -0.1, 0.2}, p2[3] = {-0.1, 0.4, 0.0}, mass = 1.5;
  mcNum com[3], dif[3], R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, zero[3] = {0, 0, 0}, I[10];
  for (int k = 0; k < 3; k++) {
    com[k] = 0.5 * (p1[k] + p2[k]);
    dif[k] = 0.5 * (p1[k] - p2[k]);
  }

  // principal inertia of the pair about its com
  mcNum Ic[10];
  mcu_inertCom(Ic, zero, R, dif, mass);
  mcNum Ic2[10];
  mcNum ndif[3] = {-dif[0], -dif[1], -dif[2]};
  mcu_inertCom(Ic2, zero, R, ndif, mass);
  for (int k = 0; k < 6; k++) {
    Ic[k] += Ic2[k];
  }

  // kinetic energy of the point masses moving with a random spatial velocity about the origin
  mcNum v[6], Iv[6];
  for (int k = 0; k < 6; k++) {
    v[k] = rnd(&s);
  }
  double ke = 0;
  const mcNum* pts[2] = {p1, p2};
  for (int p = 0; p < 2; p++) {
    mcNum vel[3];
    mcu_cross(vel, v, pts[p]);
    mcu_addTo3(vel, v + 3);
    ke += 0.5 * mass * mcu_dot3(vel, vel);
  }

  // the same body as one com-based inertia about the origin
  mcNum full[10];
  mcu_inertCom(full, zero, R, com, 2 * mass);
  for (int k = 0; k < 6; k++) {
    full[k] += Ic[k];
  }
  mcu_copy(I, full, 10);
  mcu_mulInertVec(Iv, I, v);
  cr_assert(fabs(0.5 * mcu_dot6(v, Iv) - ke) < 1e-12, "%g vs %g", 0.5 * mcu_dot6(v, Iv), ke);
}
