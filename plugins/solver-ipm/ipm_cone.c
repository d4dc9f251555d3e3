// Moduco plugin "ipm": the Jordan algebra of the second-order cone Q^n (n <= IPM_MAXCONE):
// product, determinant, Nesterov-Todd scaling and the analytic cone line search (seed 42-46).
#include <math.h>

#include "ipm.h"


void ipm_socProduct(const mcNum* x, const mcNum* y, mcNum* res, int n) {
  res[0] = 0;
  for (int k = 0; k < n; k++) {
    res[0] += x[k] * y[k];
  }
  for (int k = 1; k < n; k++) {
    res[k] = x[0] * y[k] + y[0] * x[k];
  }
}


mcNum ipm_socDet(const mcNum* x, int n) {
  mcNum det = x[0] * x[0];
  for (int k = 1; k < n; k++) {
    det -= x[k] * x[k];
  }
  return det;
}


void ipm_matVec(const mcNum* A, const mcNum* v, int n, mcNum* res) {
  for (int i = 0; i < n; i++) {
    res[i] = 0;
    for (int j = 0; j < n; j++) {
      res[i] += A[i * n + j] * v[j];
    }
  }
}


// f(u) by the spectral decomposition u = l1 c1 + l2 c2 (l = u0 +- |u1|); inv = 0: square root,
// 1: inverse square root
static void spectral(const mcNum* u, int n, int inv, mcNum* res) {
  mcNum r = 0;
  for (int k = 1; k < n; k++) {
    r += u[k] * u[k];
  }
  r = sqrt(r);
  mcNum f1 = sqrt(fmax(u[0] + r, 0)), f2 = sqrt(fmax(u[0] - r, 0));
  if (inv) {
    f1 = 1 / f1;
    f2 = 1 / f2;
  }
  res[0] = 0.5 * (f1 + f2);
  for (int k = 1; k < n; k++) {
    res[k] = r > 0 ? 0.5 * (f1 - f2) * u[k] / r : 0;
  }
}


// quadratic representation P(u) = 2 u u' - det(u) J (J = diag(1, -1, ..))
static void quadRep(const mcNum* u, int n, mcNum* Pm) {
  mcNum det = ipm_socDet(u, n);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      Pm[i * n + j] = 2 * u[i] * u[j] - (i == j ? (i ? -det : det) : 0);
    }
  }
}


// the point w with P(w) y = x: w = P(x^1/2) (P(x^1/2) y)^-1/2; W = P(w^1/2), W^-1 = P(w^-1/2)
void ipm_ntScaling(const mcNum* x, const mcNum* y, int n, mcNum* W, mcNum* Wi, mcNum* lam) {
  mcNum xh[IPM_MAXCONE] = {0}, t[IPM_MAXCONE] = {0}, u[IPM_MAXCONE] = {0};
  mcNum w[IPM_MAXCONE] = {0}, wh[IPM_MAXCONE] = {0};
  mcNum Pm[IPM_MAXCONE * IPM_MAXCONE];
  spectral(x, n, 0, xh);
  quadRep(xh, n, Pm);
  ipm_matVec(Pm, y, n, t);
  spectral(t, n, 1, u);
  ipm_matVec(Pm, u, n, w);
  spectral(w, n, 0, wh);
  quadRep(wh, n, W);
  spectral(w, n, 1, wh);
  quadRep(wh, n, Wi);
  ipm_matVec(W, y, n, lam);
}


mcNum ipm_socStep(const mcNum* y, const mcNum* d, mcNum tau, int n) {
  mcNum yy = 0, yd = 0;
  for (int k = 1; k < n; k++) {
    yy += y[k] * y[k];
    yd += y[k] * d[k];
  }
  mcNum nu = y[0] * y[0] - yy;
  if (!(nu > 0) || !(y[0] > 0)) {
    return 0;
  }
  mcNum zeta = y[0] * d[0] - yd, sn = sqrt(nu);
  mcNum rho0 = zeta / nu, c = (zeta / sn + d[0]) / (y[0] * sn + nu), rn = 0;
  for (int k = 1; k < n; k++) {
    mcNum rk = d[k] / sn - c * y[k];
    rn += rk * rk;
  }
  rn = sqrt(rn);
  return rn > rho0 ? fmin(1, tau / (rn - rho0)) : 1;
}
