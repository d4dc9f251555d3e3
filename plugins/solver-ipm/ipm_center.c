// Moduco plugin "ipm": the cone line search (seed 40-46) and the centering measures (51-53).
#include <math.h>

#include "ipm.h"


// orthant (41): tau times the largest step keeping y + alpha dy >= 0, at most 1
static mcNum orthStep(mcNum y, mcNum dy, mcNum tau) {
  return dy < 0 ? fmin(1, -tau * y / dy) : 1;
}


mcNum ipm_coneSearch(const ipmProblem* P, mcNum tau_ort, mcNum tau_soc) {
  mcNum alpha = 1;
  for (int i = 0; i < P->nb; i++) {
    const ipmBlock* b = P->block + i;
    const mcNum* l = P->loc + IPM_MAXLOC * i;
    const mcNum* dl = P->dloc + IPM_MAXLOC * i;
    if (b->kind == IPM_EQ) {
      continue;
    }
    if (b->kind != IPM_FLOSS) {
      alpha = fmin(alpha, orthStep(l[0], dl[0], tau_ort));
      alpha = fmin(alpha, orthStep(l[1], dl[1], tau_ort));
    }
    if (b->kind != IPM_ORTH) {
      // directions of the cone variables: x and the velocity dual are affine in (loc, Ja)
      mcNum x[IPM_MAXCONE], dx[IPM_MAXCONE], y[IPM_MAXCONE], dy[IPM_MAXCONE];
      int n = ipm_forceCone(b, l, x);
      ipm_forceCone(b, dl, dx);
      if (b->kind == IPM_FLOSS) {
        dx[0] = 0;  // F is fixed
      }
      ipm_velocityDual(P, b, l, P->Ja, NULL, 0, y);
      ipm_velocityStep(P, b, dl, P->Jda, dy);
      alpha = fmin(alpha, ipm_socStep(x, dx, tau_soc, n));
      alpha = fmin(alpha, ipm_socStep(y, dy, tau_soc, n));
    }
  }
  return alpha;
}


// the cone pairs of block i at (loc + alpha dloc, Ja + alpha Jda): products b'c in dot[] and
// the central-path measures in cen[] (orthant: s z; cone: sqrt(det x det y), equal to kappa on
// the central path); return the number of pairs
static int blockPairs(const ipmProblem* P, int i, mcNum alpha, mcNum dot[2], mcNum cen[2]) {
  const ipmBlock* b = P->block + i;
  if (b->kind == IPM_EQ) {
    return 0;
  }
  mcNum l[IPM_MAXLOC];
  for (int k = 0; k < IPM_MAXLOC; k++) {
    l[k] = P->loc[IPM_MAXLOC * i + k] + alpha * P->dloc[IPM_MAXLOC * i + k];
  }
  int n = 0;
  if (b->kind != IPM_FLOSS) {
    dot[n] = cen[n] = l[0] * l[1];
    n++;
  }
  if (b->kind != IPM_ORTH) {
    mcNum x[IPM_MAXCONE], y[IPM_MAXCONE];
    int m = ipm_forceCone(b, l, x);
    ipm_velocityDual(P, b, l, P->Ja, P->Jda, alpha, y);
    mcNum xy = 0, dx = ipm_socDet(x, m), dy = ipm_socDet(y, m);
    for (int k = 0; k < m; k++) {
      xy += x[k] * y[k];
    }
    dot[n] = xy;
    cen[n] = dx > 0 && dy > 0 ? sqrt(dx * dy) : 0;
    n++;
  }
  return n;
}


// mean complementarity (52, 53) and the smallest central-path measure at step alpha
static mcNum meanGap(const ipmProblem* P, mcNum alpha, mcNum* mincen) {
  mcNum sum = 0, lo = INFINITY;
  int deg = 0;
  for (int i = 0; i < P->nb; i++) {
    mcNum dot[2], cen[2];
    int n = blockPairs(P, i, alpha, dot, cen);
    for (int k = 0; k < n; k++) {
      sum += dot[k];
      lo = fmin(lo, cen[k]);
    }
    deg += n;
  }
  if (mincen) {
    *mincen = lo;
  }
  return deg ? sum / deg : 0;
}


void ipm_center(const ipmProblem* P, mcNum alpha, mcNum* mu, mcNum* mu_aff) {
  *mu = meanGap(P, 0, NULL);
  *mu_aff = meanGap(P, alpha, NULL);
}


int ipm_centered(const ipmProblem* P, mcNum alpha, mcNum gamma) {
  mcNum lo;
  mcNum mu = meanGap(P, alpha, &lo);
  return lo >= gamma * mu;
}
