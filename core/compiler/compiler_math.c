// Moduco core: small 3D math used by the compiler (quaternions, frames, 3x3 eigensolver).
#include <math.h>
#include <string.h>

#include "compiler/compiler.h"

void mcc_quatMul(mcNum res[4], const mcNum a[4], const mcNum b[4]) {
  mcNum r[4] = {
    a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
    a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
    a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
    a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]
  };
  memcpy(res, r, sizeof(r));
}

void mcc_quat2Mat(mcNum mat[9], const mcNum q[4]) {
  mcNum w = q[0], x = q[1], y = q[2], z = q[3];
  mat[0] = w * w + x * x - y * y - z * z;
  mat[1] = 2 * (x * y - w * z);
  mat[2] = 2 * (x * z + w * y);
  mat[3] = 2 * (x * y + w * z);
  mat[4] = w * w - x * x + y * y - z * z;
  mat[5] = 2 * (y * z - w * x);
  mat[6] = 2 * (x * z - w * y);
  mat[7] = 2 * (y * z + w * x);
  mat[8] = w * w - x * x - y * y + z * z;
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

void mcc_eig3(mcNum eigval[3], mcNum quat[4], const mcNum mat[9]) {
  // cyclic Jacobi rotations on a copy of the symmetric matrix; V accumulates the eigenvectors
  mcNum a[3][3], v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      a[i][j] = 0.5 * (mat[3 * i + j] + mat[3 * j + i]);
    }
  }
  for (int sweep = 0; sweep < 50; sweep++) {
    mcNum off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
    mcNum scale = fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]);
    if (off <= 1e-15 * scale || off == 0) {
      break;
    }
    for (int p = 0; p < 2; p++) {
      for (int q = p + 1; q < 3; q++) {
        if (a[p][q] == 0) {
          continue;
        }
        mcNum theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        mcNum t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
        mcNum cs = 1 / sqrt(t * t + 1), sn = t * cs;
        for (int k = 0; k < 3; k++) {
          mcNum akp = a[k][p], akq = a[k][q];
          a[k][p] = cs * akp - sn * akq;
          a[k][q] = sn * akp + cs * akq;
        }
        for (int k = 0; k < 3; k++) {
          mcNum apk = a[p][k], aqk = a[q][k];
          a[p][k] = cs * apk - sn * aqk;
          a[q][k] = sn * apk + cs * aqk;
        }
        for (int k = 0; k < 3; k++) {
          mcNum vkp = v[k][p], vkq = v[k][q];
          v[k][p] = cs * vkp - sn * vkq;
          v[k][q] = sn * vkp + cs * vkq;
        }
      }
    }
  }

  // sort eigenvalues in decreasing order (columns of v follow)
  int idx[3] = {0, 1, 2};
  for (int i = 0; i < 2; i++) {
    for (int j = i + 1; j < 3; j++) {
      if (a[idx[j]][idx[j]] > a[idx[i]][idx[i]]) {
        int t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
      }
    }
  }
  mcNum r[9];
  for (int k = 0; k < 3; k++) {
    eigval[k] = a[idx[k]][idx[k]];
    for (int i = 0; i < 3; i++) {
      r[3 * i + k] = v[i][idx[k]];
    }
  }

  // make the frame right-handed
  mcNum det = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) +
              r[2] * (r[3] * r[7] - r[4] * r[6]);
  if (det < 0) {
    for (int i = 0; i < 3; i++) {
      r[3 * i + 2] = -r[3 * i + 2];
    }
  }
  mcc_mat2Quat(quat, r);
}
