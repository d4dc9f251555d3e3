// Moduco core: small 3D math used by the compiler (quaternions, frames, 3x3 eigensolver).
#include <math.h>
#include <string.h>

#include "compiler/compiler.h"
#include "math/math.h"

void mcc_quatMul(mcNum res[4], const mcNum a[4], const mcNum b[4]) {
  mcu_mulQuat(res, a, b);
}

void mcc_quat2Mat(mcNum mat[9], const mcNum q[4]) {
  mcu_quat2Mat(mat, q);
}

void mcc_rotVecQuat(mcNum res[3], const mcNum v[3], const mcNum q[4]) {
  mcNum mat[9];
  mcc_quat2Mat(mat, q);
  mcNum r[3] = {
    mat[0] * v[0] + mat[1] * v[1] + mat[2] * v[2],
    mat[3] * v[0] + mat[4] * v[1] + mat[5] * v[2],
    mat[6] * v[0] + mat[7] * v[1] + mat[8] * v[2]
  };
  memcpy(res, r, sizeof(r));
}

void mcc_mat2Quat(mcNum q[4], const mcNum m[9]) {
  // pick the numerically largest component first
  mcNum tr = m[0] + m[4] + m[8];
  if (tr > 0) {
    mcNum s = sqrt(tr + 1.0) * 2;
    q[0] = 0.25 * s;
    q[1] = (m[7] - m[5]) / s;
    q[2] = (m[2] - m[6]) / s;
    q[3] = (m[3] - m[1]) / s;
  } else if (m[0] > m[4] && m[0] > m[8]) {
    mcNum s = sqrt(1.0 + m[0] - m[4] - m[8]) * 2;
    q[0] = (m[7] - m[5]) / s;
    q[1] = 0.25 * s;
    q[2] = (m[1] + m[3]) / s;
    q[3] = (m[2] + m[6]) / s;
  } else if (m[4] > m[8]) {
    mcNum s = sqrt(1.0 + m[4] - m[0] - m[8]) * 2;
    q[0] = (m[2] - m[6]) / s;
    q[1] = (m[1] + m[3]) / s;
    q[2] = 0.25 * s;
    q[3] = (m[5] + m[7]) / s;
  } else {
    mcNum s = sqrt(1.0 + m[8] - m[0] - m[4]) * 2;
    q[0] = (m[3] - m[1]) / s;
    q[1] = (m[2] + m[6]) / s;
    q[2] = (m[5] + m[7]) / s;
    q[3] = 0.25 * s;
  }
  mcc_normalize4(q);
}

int mcc_normalize4(mcNum q[4]) {
  mcNum n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n < mcMINVAL) {
    return 0;
  }
  for (int i = 0; i < 4; i++) {
    q[i] /= n;
  }
  return 1;
}

int mcc_normalize3(mcNum v[3]) {
  mcNum n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (n < mcMINVAL) {
    return 0;
  }
  for (int i = 0; i < 3; i++) {
    v[i] /= n;
  }
  return 1;
}

void mcc_axisAngle2Quat(mcNum q[4], const mcNum axis[3], mcNum angle) {
  mcNum s = sin(angle / 2);
  q[0] = cos(angle / 2);
  q[1] = axis[0] * s;
  q[2] = axis[1] * s;
  q[3] = axis[2] * s;
}

void mcc_quatZ2Vec(mcNum q[4], const mcNum vec[3]) {
  mcNum v[3] = {vec[0], vec[1], vec[2]};
  q[0] = 1;
  q[1] = q[2] = q[3] = 0;
  if (!mcc_normalize3(v)) {
    return;
  }
  // axis = z x v, angle = acos(z . v)
  mcNum axis[3] = {-v[1], v[0], 0};
  mcNum s = sqrt(axis[0] * axis[0] + axis[1] * axis[1]);
  if (s < 1e-10) {
    // parallel or anti-parallel to z
    if (v[2] < 0) {
      q[0] = 0;
      q[1] = 1;
    }
    return;
  }
  axis[0] /= s;
  axis[1] /= s;
  mcc_axisAngle2Quat(q, axis, atan2(s, v[2]));
}

void mcc_frameMul(mcNum pos[3], mcNum quat[4], const mcNum fpos[3], const mcNum fquat[4],
                  const mcNum lpos[3], const mcNum lquat[4]) {
  mcNum p[3], q[4];
  mcc_rotVecQuat(p, lpos, fquat);
  for (int i = 0; i < 3; i++) {
    p[i] += fpos[i];
  }
  mcc_quatMul(q, fquat, lquat);
  mcc_normalize4(q);
  memcpy(pos, p, sizeof(p));
  memcpy(quat, q, sizeof(q));
}


//---------------------------------- MuJoCo-exact quaternion helpers (used by mcc_eig3) --------

// normalize a quaternion; leave it alone when already unit to machine precision
void mcc_mjNormalize4(mcNum q[4]) {
  mcNum n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n < mcMINVAL) {
    q[0] = 1;
    q[1] = q[2] = q[3] = 0;
  } else if (fabs(n - 1) > mcMINVAL) {
    for (int i = 0; i < 4; i++) {
      q[i] /= n;
    }
  }
}


// rotation matrix of a unit quaternion (row-major): the engine's own, so compiler and engine agree
void mcc_mjQuat2Mat(mcNum r[9], const mcNum q[4]) {
  mcu_quat2Mat(r, q);
}


// quaternion product a*b
void mcc_mjMulQuat(mcNum res[4], const mcNum a[4], const mcNum b[4]) {
  mcu_mulQuat(res, a, b);
}


// post-multiply q by rot and renormalize
void mcc_mjAccumQuat(mcNum q[4], const mcNum rot[4]) {
  mcNum t[4];
  mcc_mjMulQuat(t, q, rot);
  memcpy(q, t, sizeof(t));
  mcc_mjNormalize4(q);
}


// the legacy rule (MuJoCo 2.2.2 and 3.3.8) for the compilations of the calling thread: off unless a
// 2.2.2-comparing test asks for it (tu_legacy222Compile); thread-local, so a compilation on
// another thread keeps the 3.14 rule
static _Thread_local int mcc_legacyEig;

void mcc_setLegacyEig(int on) {
  mcc_legacyEig = on;
}

int mcc_getLegacyEig(void) {
  return mcc_legacyEig;
}

// Jacobi by quaternions: rotate until the largest off-diagonal entry of R' A R vanishes. Rule of
// MuJoCo 3.14 (probed, docs/mujoco3.md "Mesh frames and principal axes"): for a body, iterate
// until that entry is below 2e-15 of the diagonal's absolute sum, whatever the scale; for a mesh,
// until it is below 1e-7 of the largest diagonal entry of the matrix given (not of the rotated
// one: dm_dog's mesh 21 tells them apart; bracketed between 9.7e-8 and 1.01e-7 by rotated boxes
// and Cassie's meshes); both with the plane rotation's half angle taken from its
// tangent and no stop on the rotation's size, so that rotations far below 1e-6 rad still turn the
// frame; order decreasing, swapping a pair only when the second exceeds the first by more than
// 1e-12 of the largest eigenvalue. Legacy rule (2.2.2 / 3.3.8): stop at an absolute 1e-12 entry
// or once the rotation's cosine exceeds 1 - 1e-12 (about 1.4e-6 rad), swap beyond an absolute
// tolerance: 0 for a body, 1e-12 for a mesh
void mcc_eig3(mcNum eigval[3], mcNum quat[4], const mcNum mat[9], int kind) {
  const mcNum tol = 1e-12;
  const int legacy = mcc_legacyEig;
  const mcNum meshstop = 1e-7 * fmax(fmax(fabs(mat[0]), fabs(mat[4])), fabs(mat[8]));
  quat[0] = 1;
  quat[1] = quat[2] = quat[3] = 0;

  for (int iter = 0; iter < 500; iter++) {
    mcNum r[9], ar[9], d[9];
    mcc_mjQuat2Mat(r, quat);
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        mcNum s = 0;
        for (int k = 0; k < 3; k++) {
          s += r[3 * k + i] * mat[3 * k + j];
        }
        ar[3 * i + j] = s;
      }
    }
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        mcNum s = 0;
        for (int k = 0; k < 3; k++) {
          s += ar[3 * i + k] * r[3 * k + j];
        }
        d[3 * i + j] = s;
      }
    }
    eigval[0] = d[0];
    eigval[1] = d[4];
    eigval[2] = d[8];

    // pivot (row, col) and the axis of the plane rotation
    int row, col, axis;
    if (fabs(d[1]) > fabs(d[2]) && fabs(d[1]) > fabs(d[5])) {
      row = 0, col = 1, axis = 2;
    } else if (fabs(d[2]) > fabs(d[5])) {
      row = 0, col = 2, axis = 1;
    } else {
      row = 1, col = 2, axis = 0;
    }
    mcNum stop = tol;
    if (!legacy && kind == MCC_EIG_MESH) {
      stop = meshstop;
    } else if (!legacy) {
      stop = 2e-15 * (fabs(d[0]) + fabs(d[4]) + fabs(d[8]));
    }
    if (fabs(d[3 * row + col]) < stop || d[3 * row + col] == 0) {
      break;
    }

    // symmetric 2x2 Schur step as a half-angle quaternion about 'axis'
    mcNum tau = (d[4 * col] - d[4 * row]) / (2 * d[3 * row + col]);
    mcNum t = tau >= 0 ? 1 / (tau + sqrt(1 + tau * tau)) : -1 / (-tau + sqrt(1 + tau * tau));
    mcNum rot[4] = {0, 0, 0, 0};
    mcNum half;
    if (legacy) {
      mcNum cs = 1 / sqrt(1 + t * t);
      if (cs > 1 - tol) {
        break;
      }
      half = sqrt(0.5 - 0.5 * cs);
      rot[0] = sqrt(1 - half * half);
    } else {
      // the half angle from the tangent: exact for tiny rotations, where 1 - cos rounds to 0
      mcNum ang = 0.5 * atan(fabs(t));
      half = sin(ang);
      rot[0] = cos(ang);
    }
    rot[axis + 1] = tau >= 0 ? -half : half;
    if (axis == 1) {
      rot[axis + 1] = -rot[axis + 1];
    }
    mcc_mjNormalize4(rot);
    mcc_mjAccumQuat(quat, rot);
  }

  // order the eigenvalues decreasing with three compare-and-swap steps (pairs 01, 12, 01)
  mcNum gap = kind == MCC_EIG_MESH ? 1e-12 : 0;
  if (!legacy) {
    gap = 1e-12 * fmax(fmax(eigval[0], eigval[1]), eigval[2]);
  }
  for (int step = 0; step < 3; step++) {
    int i = step % 2;
    if (eigval[i] + gap < eigval[i + 1]) {
      mcNum t = eigval[i];
      eigval[i] = eigval[i + 1];
      eigval[i + 1] = t;
      mcNum rot[4] = {0.707106781186548, 0, 0, 0};
      rot[(i + 2) % 3 + 1] = rot[0];
      mcc_mjAccumQuat(quat, rot);
    }
  }
}
