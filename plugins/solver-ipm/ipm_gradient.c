// Moduco plugin "ipm": implicit derivative of the solution (the seed's Section IV-C, Algorithm 2
// line 25: the implicit function theorem at the relaxed solution w*(theta, kappa)).
//
// At a solution of the relaxed problem r(w; theta, kappa) = 0 (ipm.h: dynamics, gap, equality and
// complementarity rows, w = (a, the locals of every block)), dw/dtheta = -(dr/dw)^-1 dr/dtheta.
// dr/dw is the Newton matrix ipm_factor builds at w: every block's locals eliminated, leaving
//   (Me - sum J_b' G_b J_b) da - Je' dfe = rhs,   dF_b = G_b J_b da (+ its local right side)
// with the Nesterov-Todd scaled complementarity rows, which on the central path (x o y = kappa e)
// define the same path as the unscaled ones, so the matrix gives the path's tangent.
//
// The inputs that move with velocity and control (M, J, efc_pos held fixed):
//   qfrc_smooth: the dynamics rows only: rhs = dqfrc, no local right side;
//   qvel: the rows see it through J v only (the gap c = pos + h J v, the velocity duals J v+ and
//         the equality targets), always as J (h a + v) = h J (a + v / h). With a' = a + v/h the
//         constraint rows are homogeneous in a' and the dynamics become
//         Me da' - J' dF = Me dv / h, so the same solve gives dF for a velocity direction.
// qfrc_constraint = J' F over the problem rows, so d qfrc_constraint = J' dF.
//
// The solution is recomputed here from the start point (the solve keeps nothing between calls),
// with the kappa floor at the asked smoothing, then centered on the path by a few Newton steps
// at that kappa before the matrix is factored. d->solver[] and solver_iter are restored; with
// the diagnostic key 'condition' on, the solve's condition numbers in plugin_data are cleared
// (the parameters are read as the solve reads them, which resets that array).
#include <math.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "ipm.h"
#include "ipm_gradient.h"

#define IPM_CENTER_ITER 12        // Newton steps toward the central point at the smoothing kappa
#define IPM_CENTER_TOL 1e-13      // stop when a step moves no variable more than this (relative)


// largest |x_i| of n numbers
static mcNum maxAbs(const mcNum* x, int n) {
  mcNum v = 0;
  for (int i = 0; i < n; i++) {
    v = fmax(v, fabs(x[i]));
  }
  return v;
}


// Newton steps on r(w; kappa) without the predictor, keeping the cones' interior
static void center(ipmProblem* P, mcNum kappa) {
  int nl = P->nb * IPM_MAXLOC;
  for (int it = 0; it < IPM_CENTER_ITER; it++) {
    P->corrector = 0;
    P->wantCond = 0;
    if (!ipm_factor(P)) {
      return;
    }
    ipm_direction(P, kappa);
    mcNum alpha = ipm_coneSearch(P, 0.99, 0.99);
    for (int i = 0; i < P->nv; i++) {
      P->a[i] += alpha * P->da[i];
    }
    for (int i = 0; i < nl; i++) {
      P->loc[i] += alpha * P->dloc[i];
    }
    for (int i = 0; i < P->nrow; i++) {
      P->Ja[i] += alpha * P->Jda[i];
    }
    mcNum step = fmax(maxAbs(P->da, P->nv), maxAbs(P->dloc, nl));
    mcNum size = 1 + fmax(maxAbs(P->a, P->nv), maxAbs(P->loc, nl));
    if (step <= IPM_CENTER_TOL * size) {
      return;
    }
  }
}


// out += J_b' F for block b's force F along its rows
static void addForce(const ipmProblem* P, const ipmBlock* b, const mcNum* F, mcNum* out) {
  int nv = P->nv;
  for (int k = 0; k < b->nrow; k++) {
    int r = b->row + k;
    const mcNum* J = P->Jrow + (size_t)r * nv;
    const int* col = P->Jcol + (size_t)r * nv;
    for (int t = 0; t < P->Jn[r]; t++) {
      out[col[t]] += J[col[t]] * F[k];
    }
  }
}


// with the factored matrix: solve for the dynamics right side rhs (nv), then out = J' dF (nv)
static void sensitivity(ipmProblem* P, const mcNum* rhs, mcNum* out) {
  int nv = P->nv, nk = nv + P->ne;
  memset(P->rhs, 0, sizeof(mcNum) * (size_t)nk);
  memcpy(P->rhs, rhs, sizeof(mcNum) * (size_t)nv);
  ipm_solveLU(P->K, P->piv, P->rhs, nk);
  ipm_mulRows(P, P->rhs, P->Jda);
  memset(out, 0, sizeof(mcNum) * (size_t)nv);
  int e = nv;
  for (int i = 0; i < P->nb; i++) {
    const ipmBlock* b = P->block + i;
    mcNum dF[IPM_MAXROW];
    if (b->kind == IPM_EQ) {
      dF[0] = P->rhs[e++];
    } else {
      const mcNum* G = P->G + IPM_MAXROW * IPM_MAXROW * i;
      for (int k = 0; k < b->nrow; k++) {
        dF[k] = 0;
        for (int c = 0; c < b->nrow; c++) {
          dF[k] += G[k * IPM_MAXROW + c] * P->Jda[b->row + c];
        }
      }
    }
    addForce(P, b, dF, out);
  }
}


// qfrc_constraint = J' F of the current iterate into out (nv)
static void constraintForce(const ipmProblem* P, mcNum* out) {
  memset(out, 0, sizeof(mcNum) * (size_t)P->nv);
  for (int i = 0; i < P->nb; i++) {
    mcNum F[IPM_MAXROW];
    ipm_blockForce(P->block + i, P->loc + IPM_MAXLOC * i, F);
    addForce(P, P->block + i, F, out);
  }
}


// the solution at the smoothing kappa, centered and linearized (factored); 0 on failure
static int linearizedSolution(const mcpHost* host, const mcModel* m, mcData* d, mcNum smoothing,
                              ipmProblem* P) {
  ipmParam prm;
  ipm_params(host, m, d, m->opt.iterations, &prm);
  prm.cond = NULL;
  if (smoothing > 0) {
    prm.kappa_tol = 5 * smoothing;  // the optimizer's kappa floor is kappa_tol / 5
  }
  if (!ipm_build(host, m, d, P)) {
    return 0;
  }
  ipm_recovery(P, d, prm.recovery);
  memcpy(P->a, d->qacc_smooth, sizeof(mcNum) * (size_t)m->nv);
  ipm_start(P, prm.kappa_init);
  mcNum r_vio, kappa_vio;
  ipm_optimize(d, P, &prm, &r_vio, &kappa_vio);
  center(P, prm.kappa_tol / 5);
  P->corrector = 0;
  P->wantCond = 0;
  return ipm_factor(P);
}


int ipm_derivative(const mcpHost* host, const mcModel* m, mcData* d, mcNum smoothing,
                   mcNum* frc, mcNum* dfrc, mcNum* dvel) {
  int nv = m->nv;
  if (!(smoothing >= 0) || !isfinite(smoothing)) {
    return -1;
  }

  // the optimizer writes the per-iteration statistics: keep the solve's
  host->markStack(d);
  mcSolverStat* stat = (mcSolverStat*)host->stackAlloc(d, sizeof(d->solver),
                                                       _Alignof(mcSolverStat));
  mcNum* rhs = (mcNum*)host->stackAlloc(d, sizeof(mcNum) * (size_t)(2 * nv + 1), _Alignof(mcNum));
  if (!stat || !rhs) {
    host->freeStack(d);
    return -1;
  }
  memcpy(stat, d->solver, sizeof(d->solver));
  int iter = d->solver_iter;

  ipmProblem P;
  int ok = linearizedSolution(host, m, d, smoothing, &P);
  mcNum* out = rhs + nv;
  if (ok && frc) {
    // J' F of the relaxed solution
    constraintForce(&P, frc);
  }
  for (int j = 0; ok && j < nv; j++) {
    // column j: a unit force, then a unit velocity (Me e_j / h)
    if (dfrc) {
      memset(rhs, 0, sizeof(mcNum) * (size_t)nv);
      rhs[j] = 1;
      sensitivity(&P, rhs, out);
      for (int i = 0; i < nv; i++) {
        dfrc[(size_t)i * nv + j] = out[i];
      }
    }
    if (dvel) {
      for (int i = 0; i < nv; i++) {
        rhs[i] = P.M[(size_t)i * nv + j] / P.h;
      }
      sensitivity(&P, rhs, out);
      for (int i = 0; i < nv; i++) {
        dvel[(size_t)i * nv + j] = out[i];
      }
    }
  }

  memcpy(d->solver, stat, sizeof(d->solver));
  d->solver_iter = iter;
  host->freeStack(d);
  return ok ? 0 : -1;
}
