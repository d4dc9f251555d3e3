// Moduco plugin "sensor-standard": small vector helpers (plugins link no core code).
#ifndef MODUCO_PLUGINS_SENSOR_STANDARD_SMATH_H_
#define MODUCO_PLUGINS_SENSOR_STANDARD_SMATH_H_

#include <math.h>

#include <moduco/mctnum.h>


// r = a x b (r must not alias a or b)
static inline void ss_cross(mcNum r[3], const mcNum a[3], const mcNum b[3]) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}


// dot product of 3-vectors
static inline mcNum ss_dot3(const mcNum a[3], const mcNum b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}


// r = M' v for a row-major 3x3 M
static inline void ss_mulMatT3(mcNum r[3], const mcNum M[9], const mcNum v[3]) {
  mcNum t0 = M[0] * v[0] + M[3] * v[1] + M[6] * v[2];
  mcNum t1 = M[1] * v[0] + M[4] * v[1] + M[7] * v[2];
  mcNum t2 = M[2] * v[0] + M[5] * v[1] + M[8] * v[2];
  r[0] = t0;
  r[1] = t1;
  r[2] = t2;
}


// r = M v for a row-major 3x3 M
static inline void ss_mulMat3(mcNum r[3], const mcNum M[9], const mcNum v[3]) {
  mcNum t0 = M[0] * v[0] + M[1] * v[1] + M[2] * v[2];
  mcNum t1 = M[3] * v[0] + M[4] * v[1] + M[5] * v[2];
  mcNum t2 = M[6] * v[0] + M[7] * v[1] + M[8] * v[2];
  r[0] = t0;
  r[1] = t1;
  r[2] = t2;
}


// quaternion product r = a * b (w first; r may not alias)
static inline void ss_mulQuat(mcNum r[4], const mcNum a[4], const mcNum b[4]) {
  r[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  r[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  r[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  r[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}


// spatial vector vec (rot:lin) moved by shift = new point - old point, then rotated by rot'
// (rot may be NULL); force (1) moves the torque, motion (0) the linear part
static inline void ss_transform(mcNum res[6], const mcNum vec[6], int force, const mcNum shift[3],
                                const mcNum* rot) {
  mcNum t[6], c[3];
  for (int k = 0; k < 6; k++) {
    t[k] = vec[k];
  }
  if (force) {
    ss_cross(c, shift, vec + 3);
    t[0] -= c[0];
    t[1] -= c[1];
    t[2] -= c[2];
  } else {
    ss_cross(c, shift, vec);
    t[3] -= c[0];
    t[4] -= c[1];
    t[5] -= c[2];
  }
  if (rot) {
    ss_mulMatT3(res, rot, t);
    ss_mulMatT3(res + 3, rot, t + 3);
  } else {
    for (int k = 0; k < 6; k++) {
      res[k] = t[k];
    }
  }
}

#endif  // MODUCO_PLUGINS_SENSOR_STANDARD_SMATH_H_
