// Moduco core: out-of-line math helpers (see math.h).
#include "math/math.h"


void mcu_quatIntegrate(mcNum q[4], const mcNum vel[3], mcNum dt) {
  // rotation axis and angle of the increment
  mcNum axis[3] = {vel[0], vel[1], vel[2]};
  mcNum angle = dt * mcu_normalize3(axis);

  // right-multiply: the velocity is expressed in the local frame
  mcNum dq[4];
  mcu_axisAngle2Quat(dq, axis, angle);
  mcu_normalize4(q);
  mcu_mulQuat(q, q, dq);
}


void mcu_inertCom(mcNum r[10], const mcNum diag[3], const mcNum R[9], const mcNum dif[3],
                  mcNum mass) {
  // rotational inertia about the com in the global frame: R diag(d) R'
  mcNum t[9];
  for (int i = 0; i < 3; i++) {
    t[3 * i + 0] = R[3 * i + 0] * diag[0];
    t[3 * i + 1] = R[3 * i + 1] * diag[1];
    t[3 * i + 2] = R[3 * i + 2] * diag[2];
  }
  r[0] = t[0] * R[0] + t[1] * R[1] + t[2] * R[2];
  r[1] = t[3] * R[3] + t[4] * R[4] + t[5] * R[5];
  r[2] = t[6] * R[6] + t[7] * R[7] + t[8] * R[8];
  r[3] = t[0] * R[3] + t[1] * R[4] + t[2] * R[5];
  r[4] = t[0] * R[6] + t[1] * R[7] + t[2] * R[8];
  r[5] = t[3] * R[6] + t[4] * R[7] + t[5] * R[8];

  // parallel axis shift to the reference point
  mcNum xx = dif[0] * dif[0], yy = dif[1] * dif[1], zz = dif[2] * dif[2];
  r[0] += mass * (yy + zz);
  r[1] += mass * (xx + zz);
  r[2] += mass * (xx + yy);
  r[3] -= mass * dif[0] * dif[1];
  r[4] -= mass * dif[0] * dif[2];
  r[5] -= mass * dif[1] * dif[2];

  // first moment and mass
  r[6] = mass * dif[0];
  r[7] = mass * dif[1];
  r[8] = mass * dif[2];
  r[9] = mass;
}


void mcu_transformSpatial(mcNum res[6], const mcNum vec[6], int flg_force, const mcNum shift[3],
                          const mcNum* rot) {
  mcNum tmp[6], c[3];

  // shift the reference point: force moves the torque, motion moves the linear part
  mcu_copy(tmp, vec, 6);
  if (flg_force) {
    mcu_cross(c, shift, vec + 3);
    mcu_subFrom3(tmp, c);
  } else {
    mcu_cross(c, shift, vec);
    mcu_subFrom3(tmp + 3, c);
  }

  // rotate both halves into the new frame, or copy
  if (rot) {
    mcu_mulMatTVec3(res, rot, tmp);
    mcu_mulMatTVec3(res + 3, rot, tmp + 3);
  } else {
    mcu_copy(res, tmp, 6);
  }
}

