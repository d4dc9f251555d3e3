// Moduco plugin "ipm": Algorithm 2 of the seed (predictor, centering, corrector, cone line
// search, backtracking on the violations).
#include <math.h>
#include <string.h>

#include "ipm.h"

#define IPM_TAU_MAX 0.99
#define IPM_TAU_MIN 0.95
#define IPM_BETA 0.5
#define IPM_MAXBACK 30            // backtracking halvings per iteration
#define IPM_GAMMA 0               // neighbourhood: every pair strictly inside its cone
#define IPM_SECOND_ORDER 1        // Mehrotra's second-order term in the corrector


// trial point w + alpha dw
static void trial(ipmProblem* P, mcNum alpha) {
  for (int i = 0; i < P->nv; i++) {
    P->a_t[i] = P->a[i] + alpha * P->da[i];
  }
  for (int i = 0; i < P->nb * IPM_MAXLOC; i++) {
    P->loc_t[i] = P->loc[i] + alpha * P->dloc[i];
  }
  for (int i = 0; i < P->nrow; i++) {
    P->Ja_t[i] = P->Ja[i] + alpha * P->Jda[i];
  }
}


// number of blocks carrying force (normal force above the complementarity scale, or EQ/FLOSS)
static int countActive(const ipmProblem* P) {
  int n = 0;
  for (int i = 0; i < P->nb; i++) {
    const mcNum* l = P->loc + IPM_MAXLOC * i;
    const ipmBlock* b = P->block + i;
    n += b->kind == IPM_EQ || b->kind == IPM_FLOSS || l[0] > l[1];
  }
  return n;
}


int ipm_optimize(mcData* d, ipmProblem* P, const ipmParam* prm, mcNum* r_vio, mcNum* kappa_vio) {
  mcNum rv, kv;
  ipm_violation(P, P->a, P->loc, P->Ja, &rv, &kv);
  int iter = 0;
  while (iter < prm->max_iter && !(rv < prm->residual_tol && kv < prm->kappa_tol)) {
    // predictor (affine direction, kappa = 0) and its cone step
    P->corrector = 0;
    P->wantCond = prm->cond && iter < mcNSOLVER;
    int ok = ipm_factor(P);
    if (P->wantCond) {
      prm->cond[iter] = P->cond;
    }
    if (!ok) {
      break;
    }
    // ra holds the residual at the current point: the last point ipm_violation evaluated (the
    // start, or the trial point accepted below)
    P->raFresh = 1;
    ipm_direction(P, 0);
    mcNum alpha_aff = ipm_coneSearch(P, 1, 1);
    memcpy(P->dloc_aff, P->dloc, sizeof(mcNum) * P->nb * IPM_MAXLOC);
    memcpy(P->Jda_aff, P->Jda, sizeof(mcNum) * P->nrow);

    // centering (51-54) and the corrector on the relaxed residual
    mcNum mu, mu_aff;
    ipm_center(P, alpha_aff, &mu, &mu_aff);
    mcNum ratio = mu > 0 ? fmin(1, fmax(0, mu_aff / mu)) : 0;
    mcNum sigma = ratio * ratio * ratio;
    // at the kappa floor the corrector aims at the central point itself: with the second-order
    // term it would settle on a fixed point off the central path (a pair's product several
    // times the floor, above kappa_tol), so the term is dropped there
    mcNum kfloor = prm->kappa_tol / 5;
    mcNum kappa = fmax(sigma * mu, kfloor);
    P->corrector = IPM_SECOND_ORDER && sigma * mu > kfloor;
    ipm_direction(P, kappa);
    P->raFresh = 0;

    // cone line search, then backtrack until one violation decreases
    mcNum viol = fmax(rv, kv);
    mcNum tau_ort = fmax(IPM_TAU_MIN, 1 - viol * viol);
    mcNum tau_soc = fmin(IPM_TAU_MAX, tau_ort);
    mcNum alpha = ipm_coneSearch(P, tau_ort, tau_soc);

    // backtrack (beta) until one violation decreases (the seed's rule) and, as a safeguard not in
    // the seed, every cone pair stays strictly inside its cone at the trial point
    mcNum rv0 = rv, kv0 = kv;
    mcNum rfloor = fmax(rv0, 0.1 * prm->residual_tol);  // round-off below the tolerance
    int nback = 0;
    for (;;) {
      trial(P, alpha);
      ipm_violation(P, P->a_t, P->loc_t, P->Ja_t, &rv, &kv);
      ok = (rv <= rfloor || kv <= kv0) && ipm_centered(P, alpha, IPM_GAMMA);
      if (ok || nback >= IPM_MAXBACK) {
        break;
      }
      alpha *= IPM_BETA;
      nback++;
    }

    // accept
    memcpy(P->a, P->a_t, sizeof(mcNum) * P->nv);
    memcpy(P->loc, P->loc_t, sizeof(mcNum) * P->nb * IPM_MAXLOC);
    memcpy(P->Ja, P->Ja_t, sizeof(mcNum) * P->nrow);

    // statistics of this iteration
    if (iter < mcNSOLVER) {
      mcSolverStat* st = d->solver + iter;
      memset(st, 0, sizeof(*st));
      st->improvement = rv;
      st->gradient = kv;
      st->lineslope = alpha;
      st->nactive = countActive(P);
      st->neval = nback + 1;
    }
    iter++;
  }
  *r_vio = rv;
  *kappa_vio = kv;
  return iter;
}
