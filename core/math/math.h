// Moduco core: small vector, matrix, quaternion and spatial-algebra helpers (mcu_*).
//
// Conventions: matrices are row-major; quaternions are (w, x, y, z); spatial vectors are 6-vectors
// in (rot:lin) order, expressed in the global frame at some reference point (usually the subtree
// center of mass); a com-based inertia is 10 numbers: the 3x3 rotational inertia about the
// reference point as (xx, yy, zz, xy, xz, yz), then mass times the offset of the body com from the
// reference point, then the mass.
//
// Hot helpers are static inline here; larger ones live in math.c.
#ifndef MODUCO_CORE_MATH_MATH_H_
#define MODUCO_CORE_MATH_MATH_H_

#include <math.h>
#include <string.h>

#include <moduco/mctnum.h>

//---------------------------------- scalars -------------------------------------------------------

static inline mcNum mcu_max(mcNum a, mcNum b) {
  return a > b ? a : b;
}


static inline mcNum mcu_min(mcNum a, mcNum b) {
  return a < b ? a : b;
}


static inline mcNum mcu_clip(mcNum x, mcNum lo, mcNum hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}


// NaN or beyond +-mcMAXVAL
static inline int mcu_isBad(mcNum x) {
  return x != x || x > mcMAXVAL || x < -mcMAXVAL;
}


//---------------------------------- 3-vectors -----------------------------------------------------

static inline void mcu_zero3(mcNum r[3]) {
  r[0] = r[1] = r[2] = 0;
}


static inline void mcu_copy3(mcNum r[3], const mcNum a[3]) {
  r[0] = a[0];
  r[1] = a[1];
  r[2] = a[2];
}


static inline void mcu_add3(mcNum r[3], const mcNum a[3], const mcNum b[3]) {
  r[0] = a[0] + b[0];
  r[1] = a[1] + b[1];
  r[2] = a[2] + b[2];
}


static inline void mcu_sub3(mcNum r[3], const mcNum a[3], const mcNum b[3]) {
  r[0] = a[0] - b[0];
  r[1] = a[1] - b[1];
  r[2] = a[2] - b[2];
}


static inline void mcu_scl3(mcNum r[3], const mcNum a[3], mcNum s) {
  r[0] = a[0] * s;
  r[1] = a[1] * s;
  r[2] = a[2] * s;
}


static inline void mcu_addTo3(mcNum r[3], const mcNum a[3]) {
  r[0] += a[0];
  r[1] += a[1];
  r[2] += a[2];
}


static inline void mcu_subFrom3(mcNum r[3], const mcNum a[3]) {
  r[0] -= a[0];
  r[1] -= a[1];
  r[2] -= a[2];
}


static inline void mcu_addToScl3(mcNum r[3], const mcNum a[3], mcNum s) {
  r[0] += a[0] * s;
  r[1] += a[1] * s;
  r[2] += a[2] * s;
}


static inline mcNum mcu_dot3(const mcNum a[3], const mcNum b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}


static inline mcNum mcu_norm3(const mcNum a[3]) {
  return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}


// r = a x b (r must not alias a or b)
static inline void mcu_cross(mcNum r[3], const mcNum a[3], const mcNum b[3]) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}


// normalize in place, return the original norm; a tiny vector becomes (1, 0, 0)
static inline mcNum mcu_normalize3(mcNum a[3]) {
  mcNum n = mcu_norm3(a);
  if (n < mcMINVAL) {
    a[0] = 1;
    a[1] = a[2] = 0;
  } else {
    mcNum s = 1 / n;
    a[0] *= s;
    a[1] *= s;
    a[2] *= s;
  }
  return n;
}


//---------------------------------- n-vectors -----------------------------------------------------

static inline void mcu_zero(mcNum* r, int n) {
  if (n > 0) {
    memset(r, 0, sizeof(mcNum) * (size_t)n);
  }
}


static inline void mcu_copy(mcNum* r, const mcNum* a, int n) {
  if (n > 0 && r != a) {
    memcpy(r, a, sizeof(mcNum) * (size_t)n);
  }
}


static inline mcNum mcu_dot(const mcNum* a, const mcNum* b, int n) {
  mcNum s = 0;
  for (int i = 0; i < n; i++) {
    s += a[i] * b[i];
  }
  return s;
}


static inline void mcu_addTo(mcNum* r, const mcNum* a, int n) {
  for (int i = 0; i < n; i++) {
    r[i] += a[i];
  }
}


static inline void mcu_add(mcNum* r, const mcNum* a, const mcNum* b, int n) {
  for (int i = 0; i < n; i++) {
    r[i] = a[i] + b[i];
  }
}


static inline void mcu_sub(mcNum* r, const mcNum* a, const mcNum* b, int n) {
  for (int i = 0; i < n; i++) {
    r[i] = a[i] - b[i];
  }
}


static inline void mcu_scl(mcNum* r, const mcNum* a, mcNum s, int n) {
  for (int i = 0; i < n; i++) {
    r[i] = a[i] * s;
  }
}


static inline void mcu_addToScl(mcNum* r, const mcNum* a, mcNum s, int n) {
  for (int i = 0; i < n; i++) {
    r[i] += a[i] * s;
  }
}


// dot product of 6-vectors
static inline mcNum mcu_dot6(const mcNum a[6], const mcNum b[6]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}


//---------------------------------- matrices ------------------------------------------------------

// r = M * v, M is nr x nc row-major
static inline void mcu_mulMatVec(mcNum* r, const mcNum* M, const mcNum* v, int nr, int nc) {
  for (int i = 0; i < nr; i++) {
    r[i] = mcu_dot(M + (size_t)i * nc, v, nc);
  }
}


// r = M' * v, M is nr x nc row-major
static inline void mcu_mulMatTVec(mcNum* r, const mcNum* M, const mcNum* v, int nr, int nc) {
  mcu_zero(r, nc);
  for (int i = 0; i < nr; i++) {
    if (v[i] != 0) {
      mcu_addToScl(r, M + (size_t)i * nc, v[i], nc);
    }
  }
}


// r = M * v for a 3x3 matrix (r must not alias v)
static inline void mcu_mulMatVec3(mcNum r[3], const mcNum M[9], const mcNum v[3]) {
  r[0] = M[0] * v[0] + M[1] * v[1] + M[2] * v[2];
  r[1] = M[3] * v[0] + M[4] * v[1] + M[5] * v[2];
  r[2] = M[6] * v[0] + M[7] * v[1] + M[8] * v[2];
}


// r = M' * v for a 3x3 matrix (r must not alias v)
static inline void mcu_mulMatTVec3(mcNum r[3], const mcNum M[9], const mcNum v[3]) {
  r[0] = M[0] * v[0] + M[3] * v[1] + M[6] * v[2];
  r[1] = M[1] * v[0] + M[4] * v[1] + M[7] * v[2];
  r[2] = M[2] * v[0] + M[5] * v[1] + M[8] * v[2];
}


// r = A * B for 3x3 matrices (r must not alias A or B)
static inline void mcu_mulMatMat3(mcNum r[9], const mcNum A[9], const mcNum B[9]) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      r[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
    }
  }
}


//---------------------------------- quaternions ---------------------------------------------------

static inline void mcu_unitQuat(mcNum q[4]) {
  q[0] = 1;
  q[1] = q[2] = q[3] = 0;
}


static inline void mcu_copy4(mcNum r[4], const mcNum a[4]) {
  r[0] = a[0];
  r[1] = a[1];
  r[2] = a[2];
  r[3] = a[3];
}


// normalize in place, return the original norm; a tiny quaternion becomes the identity
static inline mcNum mcu_normalize4(mcNum q[4]) {
  mcNum n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n < mcMINVAL) {
    mcu_unitQuat(q);
  } else if (n != 1) {
    mcNum s = 1 / n;
    q[0] *= s;
    q[1] *= s;
    q[2] *= s;
    q[3] *= s;
  }
  return n;
}


// conjugate (inverse of a unit quaternion)
static inline void mcu_negQuat(mcNum r[4], const mcNum q[4]) {
  r[0] = q[0];
  r[1] = -q[1];
  r[2] = -q[2];
  r[3] = -q[3];
}


// r = a * b (r may alias a or b)
static inline void mcu_mulQuat(mcNum r[4], const mcNum a[4], const mcNum b[4]) {
  mcNum w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  mcNum x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  mcNum y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  mcNum z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  r[0] = w;
  r[1] = x;
  r[2] = y;
  r[3] = z;
}


// rotation matrix of a unit quaternion
static inline void mcu_quat2Mat(mcNum R[9], const mcNum q[4]) {
  // identity shortcut
  if (q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0) {
    R[0] = R[4] = R[8] = 1;
    R[1] = R[2] = R[3] = R[5] = R[6] = R[7] = 0;
    return;
  }

  // products of components
  mcNum ww = q[0] * q[0], xx = q[1] * q[1], yy = q[2] * q[2], zz = q[3] * q[3];
  mcNum wx = q[0] * q[1], wy = q[0] * q[2], wz = q[0] * q[3];
  mcNum xy = q[1] * q[2], xz = q[1] * q[3], yz = q[2] * q[3];

  // diagonal, then off-diagonal
  R[0] = ww + xx - yy - zz;
  R[4] = ww - xx + yy - zz;
  R[8] = ww - xx - yy + zz;
  R[1] = 2 * (xy - wz);
  R[2] = 2 * (xz + wy);
  R[3] = 2 * (xy + wz);
  R[5] = 2 * (yz - wx);
  R[6] = 2 * (xz - wy);
  R[7] = 2 * (yz + wx);
}


// r = rotation of v by the unit quaternion q (r must not alias v)
static inline void mcu_rotVecQuat(mcNum r[3], const mcNum v[3], const mcNum q[4]) {
  // identity shortcut
  if (q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0) {
    mcu_copy3(r, v);
    return;
  }

  // r = v + 2 w (u x v) + 2 u x (u x v), u = vector part
  mcNum t[3] = {
    2 * (q[2] * v[2] - q[3] * v[1]),
    2 * (q[3] * v[0] - q[1] * v[2]),
    2 * (q[1] * v[1] - q[2] * v[0])
  };
  r[0] = v[0] + q[0] * t[0] + q[2] * t[2] - q[3] * t[1];
  r[1] = v[1] + q[0] * t[1] + q[3] * t[0] - q[1] * t[2];
  r[2] = v[2] + q[0] * t[2] + q[1] * t[1] - q[2] * t[0];
}


// quaternion of a rotation by angle about a unit axis
static inline void mcu_axisAngle2Quat(mcNum q[4], const mcNum axis[3], mcNum angle) {
  // zero angle: identity
  if (angle == 0) {
    mcu_unitQuat(q);
    return;
  }
  mcNum s = sin(0.5 * angle);
  q[0] = cos(0.5 * angle);
  q[1] = axis[0] * s;
  q[2] = axis[1] * s;
  q[3] = axis[2] * s;
}


// angular velocity that rotates by the unit quaternion q in time dt (angle wrapped to [-pi, pi])
static inline void mcu_quat2Vel(mcNum r[3], const mcNum q[4], mcNum dt) {
  mcNum s = sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (s < mcMINVAL) {
    mcu_zero3(r);
    return;
  }
  mcNum angle = 2 * atan2(s, q[0]);
  if (angle > mcPI) {
    angle -= 2 * mcPI;
  }
  mcNum k = angle / (s * dt);
  r[0] = q[1] * k;
  r[1] = q[2] * k;
  r[2] = q[3] * k;
}


// local angular displacement r with qb * exp(r) = qa (unit quaternions)
static inline void mcu_subQuat(mcNum r[3], const mcNum qa[4], const mcNum qb[4]) {
  mcNum nb[4], dq[4];
  mcu_negQuat(nb, qb);
  mcu_mulQuat(dq, nb, qa);
  mcu_quat2Vel(r, dq, 1);
}


//---------------------------------- spatial algebra -----------------------------------------------

// r = v x m: cross product of motion vectors (r must not alias v or m)
static inline void mcu_crossMotion(mcNum r[6], const mcNum v[6], const mcNum m[6]) {
  // rotational: w x m_rot
  r[0] = v[1] * m[2] - v[2] * m[1];
  r[1] = v[2] * m[0] - v[0] * m[2];
  r[2] = v[0] * m[1] - v[1] * m[0];

  // linear: w x m_lin + v_lin x m_rot
  r[3] = v[1] * m[5] - v[2] * m[4] + v[4] * m[2] - v[5] * m[1];
  r[4] = v[2] * m[3] - v[0] * m[5] + v[5] * m[0] - v[3] * m[2];
  r[5] = v[0] * m[4] - v[1] * m[3] + v[3] * m[1] - v[4] * m[0];
}


// r = v x* f: cross product of a motion and a force vector (r must not alias v or f)
static inline void mcu_crossForce(mcNum r[6], const mcNum v[6], const mcNum f[6]) {
  // rotational: w x f_rot + v_lin x f_lin
  r[0] = v[1] * f[2] - v[2] * f[1] + v[4] * f[5] - v[5] * f[4];
  r[1] = v[2] * f[0] - v[0] * f[2] + v[5] * f[3] - v[3] * f[5];
  r[2] = v[0] * f[1] - v[1] * f[0] + v[3] * f[4] - v[4] * f[3];

  // linear: w x f_lin
  r[3] = v[1] * f[5] - v[2] * f[4];
  r[4] = v[2] * f[3] - v[0] * f[5];
  r[5] = v[0] * f[4] - v[1] * f[3];
}


// r = I * v for a com-based inertia I (10 numbers) and a motion vector v
static inline void mcu_mulInertVec(mcNum r[6], const mcNum I[10], const mcNum v[6]) {
  // angular momentum: I w + h x v_lin
  r[0] = I[0] * v[0] + I[3] * v[1] + I[4] * v[2] + I[7] * v[5] - I[8] * v[4];
  r[1] = I[3] * v[0] + I[1] * v[1] + I[5] * v[2] + I[8] * v[3] - I[6] * v[5];
  r[2] = I[4] * v[0] + I[5] * v[1] + I[2] * v[2] + I[6] * v[4] - I[7] * v[3];

  // linear momentum: m v_lin + w x h
  r[3] = I[9] * v[3] + v[1] * I[8] - v[2] * I[7];
  r[4] = I[9] * v[4] + v[2] * I[6] - v[0] * I[8];
  r[5] = I[9] * v[5] + v[0] * I[7] - v[1] * I[6];
}


// motion axis of a dof about the reference point: rotation axis with offset (point - anchor), or
// pure translation when offset is NULL
static inline void mcu_dofCom(mcNum r[6], const mcNum axis[3], const mcNum* offset) {
  if (offset) {
    mcu_copy3(r, axis);
    mcu_cross(r + 3, axis, offset);
  } else {
    mcu_zero3(r);
    mcu_copy3(r + 3, axis);
  }
}


// r = sum_k cdof[k] * v[k] over n consecutive dofs (6-vectors)
static inline void mcu_mulDofVec(mcNum r[6], const mcNum* cdof, const mcNum* v, int n) {
  r[0] = r[1] = r[2] = r[3] = r[4] = r[5] = 0;
  for (int k = 0; k < n; k++) {
    const mcNum* c = cdof + 6 * k;
    mcNum s = v[k];
    r[0] += c[0] * s;
    r[1] += c[1] * s;
    r[2] += c[2] * s;
    r[3] += c[3] * s;
    r[4] += c[4] * s;
    r[5] += c[5] * s;
  }
}


//---------------------------------- out-of-line helpers (math.c) ----------------------------------

// rotate the unit quaternion q by the angular velocity vel (local frame) over time dt
void mcu_quatIntegrate(mcNum q[4], const mcNum vel[3], mcNum dt);

// com-based inertia (10 numbers) of a body: principal inertia diag in frame R (3x3, columns are
// the principal axes in the global frame), mass, com offset dif = body com - reference point
void mcu_inertCom(mcNum r[10], const mcNum diag[3], const mcNum R[9], const mcNum dif[3],
                  mcNum mass);

// transform a spatial vector between reference points: res is vec expressed at a point displaced
// by 'shift' (new point - old point); flg_force selects force (1) or motion (0) semantics; rot
// (3x3, nullable) then rotates both halves into a new frame (res_half = rot' * half)
void mcu_transformSpatial(mcNum res[6], const mcNum vec[6], int flg_force, const mcNum shift[3],
                          const mcNum* rot);

#endif  // MODUCO_CORE_MATH_MATH_H_
