// Moduco solver plugins: primal solvers (Newton, CG) with exact line search.
#include <float.h>
#include <math.h>
#include <string.h>

#include "solver.h"
#include "solver_internal.h"

// working set of a primal solve
typedef struct {
  const mcpHost* host;
  const mcModel* m;
  mcData* d;
  int nv, nefc;
  mcNum* x;                       // acceleration (d->qacc)
  mcNum* Ma;                      // M x
  mcNum* jar;                     // J x - aref
  mcNum* grad;                    // M x - qfrc_smooth - J' f
  mcNum* Mgrad;                   // preconditioned gradient (CG: inv(M) grad, Newton: inv(H) grad)
  mcNum* Mgrad_old;               // CG: previous preconditioned gradient
  mcNum* grad_old;                // CG: previous gradient
  mcNum* search;                  // search direction
  mcNum* Mv;                      // M search
  mcNum* Jv;                      // J search
  mcNum* H;                       // Newton: nv x nv Hessian / Cholesky factor
  int* nz;                        // Newton: scratch nonzero indices of a Jacobian row
  int* oldstate;                  // states before the last update
  int sparse;                     // Newton on the row-sparse efc_J: factor in S, not H
  mcsSparseH S;
  mcNum cost;
} Primal;


//---------------------------------- dense Cholesky ------------------------------------------------

int mcs_cholFactor(mcNum* A, int n, mcNum mindiag) {
  int raised = 0;
  for (int j = 0; j < n; j++) {
    mcNum* Aj = A + (size_t)j * n;
    mcNum s = Aj[j] - mcs_dot(Aj, Aj, j);
    if (!(s >= mindiag)) {
      s = mindiag;
      raised++;
    }
    mcNum ljj = sqrt(s);
    Aj[j] = ljj;
    mcNum inv = 1 / ljj;
    for (int i = j + 1; i < n; i++) {
      mcNum* Ai = A + (size_t)i * n;
      Ai[j] = (Ai[j] - mcs_dot(Ai, Aj, j)) * inv;
    }
  }
  return raised;
}


void mcs_cholSolve(const mcNum* L, mcNum* x, int n) {
  // forward: L y = b
  for (int i = 0; i < n; i++) {
    const mcNum* Li = L + (size_t)i * n;
    x[i] = (x[i] - mcs_dot(Li, x, i)) / Li[i];
  }

  // backward: L' x = y
  for (int i = n - 1; i >= 0; i--) {
    mcNum s = x[i];
    for (int k = i + 1; k < n; k++) {
      s -= L[(size_t)k * n + i] * x[k];
    }
    x[i] = s / L[(size_t)i * n + i];
  }
}


//---------------------------------- Hessian -------------------------------------------------------

// H = M (dense, lower and upper) from the tree-sparse qM
static void denseM(const mcModel* m, const mcData* d, mcNum* H) {
  int nv = m->nv;
  memset(H, 0, sizeof(mcNum) * nv * nv);
  for (int i = 0; i < nv; i++) {
    int adr = m->dof_Madr[i];
    H[(size_t)i * nv + i] = d->qM[adr++];
    for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j]) {
      H[(size_t)i * nv + j] = H[(size_t)j * nv + i] = d->qM[adr++];
    }
  }
}


// H = M + J' D J over active rows + cone Hessians; then factor
static void makeHessian(Primal* p) {
  const mcModel* m = p->m;
  mcData* d = p->d;
  int nv = p->nv;
  mcNum* H = p->H;

  // sparse factor
  if (p->sparse) {
    mcs_sparseFactor(m, d, &p->S);
    d->solver_nnz = p->S.nnz;
    return;
  }
  denseM(m, d, H);

  for (int i = 0; i < p->nefc; i++) {
    int state = d->efc_state[i];
    const mcNum* Ji = d->efc_J + (size_t)i * nv;

    // elliptic cone in the middle zone: J_c' H_c J_c
    if (state == mcCNSTRSTATE_CONE) {
      const mcContact* con = d->contact + d->efc_id[i];
      int dim = con->dim;
      for (int a = 0; a < dim; a++) {
        const mcNum* Ja = Ji + (size_t)a * nv;
        for (int b = 0; b < dim; b++) {
          mcNum h = con->H[a * dim + b];
          if (h == 0) {
            continue;
          }
          const mcNum* Jb = Ji + (size_t)b * nv;
          for (int r = 0; r < nv; r++) {
            if (Ja[r] == 0) {
              continue;
            }
            mcNum hr = h * Ja[r];
            mcNum* Hr = H + (size_t)r * nv;
            for (int c = 0; c < nv; c++) {
              Hr[c] += hr * Jb[c];
            }
          }
        }
      }
      i += dim - 1;
      continue;
    }
    if (state != mcCNSTRSTATE_QUADRATIC) {
      continue;
    }

    // quadratic row: D J_i' J_i over the nonzeros
    int nnz = 0;
    for (int k = 0; k < nv; k++) {
      if (Ji[k] != 0) {
        p->nz[nnz++] = k;
      }
    }
    mcNum D = d->efc_D[i];
    for (int a = 0; a < nnz; a++) {
      int r = p->nz[a];
      mcNum dr = D * Ji[r];
      mcNum* Hr = H + (size_t)r * nv;
      for (int b = 0; b < nnz; b++) {
        Hr[p->nz[b]] += dr * Ji[p->nz[b]];
      }
    }
  }
  mcs_cholFactor(H, nv, mcMINVAL);
  d->solver_nnz = nv * nv;
}


// Newton after a move: rank-1 updates of the sparse factor for the rows whose quadratic state
// changed (additions first, then removals), else a full factorization; return the updates done
static int updateHessian(Primal* p) {
  mcData* d = p->d;
  int nefc = p->nefc, nchange = 0;
  if (p->sparse) {
    for (int i = 0; i < nefc; i++) {
      int now = d->efc_state[i], old = p->oldstate[i];
      if (now == mcCNSTRSTATE_CONE || old == mcCNSTRSTATE_CONE) {
        nchange = -1;
        break;
      }
      nchange += (now == mcCNSTRSTATE_QUADRATIC) != (old == mcCNSTRSTATE_QUADRATIC);
    }
  }
  if (!p->sparse || nchange < 0 || nchange > 8 + p->nv / 16) {
    makeHessian(p);
    return 0;
  }

  // additions, then removals; a failed downdate falls back to the full factorization
  mcNum* w = p->Mgrad_old;
  memset(w, 0, sizeof(mcNum) * p->nv);
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < nefc; i++) {
      int now = d->efc_state[i] == mcCNSTRSTATE_QUADRATIC;
      int old = p->oldstate[i] == mcCNSTRSTATE_QUADRATIC;
      if (now == old || now != (pass == 0)) {
        continue;
      }
      mcNum sigma = now ? d->efc_D[i] : -d->efc_D[i];
      if (!mcs_sparseUpdate(d, &p->S, i, sigma, w)) {
        makeHessian(p);
        return 0;
      }
    }
  }
  return nchange;
}


//---------------------------------- cost along a line ---------------------------------------------

typedef struct {
  mcNum alpha;
  mcNum cost;
  mcNum d1;                       // derivative of the cost along the line
  mcNum d2;                       // second derivative
  mcNum d1mag;                    // sum of the magnitudes of the terms of d1 (its rounding scale)
} LinePoint;


// cost and derivatives at x + alpha * search; quad = Gauss terms (c0, c1, c2) and the magnitude
// of the terms of c1
static void lineEval(const Primal* p, const mcNum quad[4], mcNum alpha, LinePoint* lp) {
  const mcData* d = p->d;
  mcNum c = quad[0] + alpha * quad[1] + 0.5 * alpha * alpha * quad[2];
  mcNum d1 = quad[1] + alpha * quad[2], d2 = quad[2];
  mcNum mag = quad[3] + fabs(alpha * quad[2]);

  for (int i = 0; i < p->nefc; i++) {
    int type = d->efc_type[i];
    mcNum v = p->Jv[i], j = p->jar[i] + alpha * v, D = d->efc_D[i];

    // elliptic cone: zone at the new point
    if (type == mcCNSTR_CONTACT_ELLIPTIC) {
      const mcContact* con = d->contact + d->efc_id[i];
      int dim = con->dim;
      mcNum jj[6] = {0}, vv[6] = {0}, N, T;
      for (int k = 0; k < dim; k++) {
        vv[k] = p->Jv[i + k];
        jj[k] = p->jar[i + k] + alpha * vv[k];
      }
      int zone = mcs_coneZone(con, jj, &N, &T);
      if (zone == mcCNSTRSTATE_QUADRATIC) {
        for (int k = 0; k < dim; k++) {
          mcNum Dk = d->efc_D[i + k];
          c += 0.5 * Dk * jj[k] * jj[k];
          d1 += Dk * jj[k] * vv[k];
          d2 += Dk * vv[k] * vv[k];
          mag += fabs(Dk * jj[k] * vv[k]);
        }
      } else if (zone == mcCNSTRSTATE_CONE) {
        mcNum mu = con->mu, w[6], U[6];
        w[0] = mu * vv[0];
        U[0] = mu * jj[0];
        mcNum uw = 0, ww = 0;
        for (int k = 1; k < dim; k++) {
          w[k] = con->friction[k - 1] * vv[k];
          U[k] = con->friction[k - 1] * jj[k];
          uw += U[k] * w[k];
          ww += w[k] * w[k];
        }
        mcNum Dm = D / (mu * mu * (1 + mu * mu));
        mcNum g = N - mu * T;
        mcNum dT = uw / T, d2T = (ww - dT * dT) / T;
        mcNum dg = w[0] - mu * dT, d2g = -mu * d2T;
        c += 0.5 * Dm * g * g;
        d1 += Dm * g * dg;
        mag += Dm * ((fabs(N) + mu * T) * fabs(dg) + fabs(g) * (fabs(w[0]) + mu * fabs(dT)));
        d2 += Dm * (dg * dg + g * d2g);
      }
      i += dim - 1;
      continue;
    }

    // friction loss: Huber
    if (type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON) {
      mcNum fl = d->efc_frictionloss[i], Rfl = d->efc_R[i] * fl;
      if (j <= -Rfl) {
        c += -fl * j - 0.5 * Rfl * fl;
        d1 += -fl * v;
        mag += fabs(fl * v);
        continue;
      }
      if (j >= Rfl) {
        c += fl * j - 0.5 * Rfl * fl;
        d1 += fl * v;
        mag += fabs(fl * v);
        continue;
      }
    } else if (type != mcCNSTR_EQUALITY && j >= 0) {
      continue;
    }

    // quadratic
    c += 0.5 * D * j * j;
    d1 += D * j * v;
    d2 += D * v * v;
    mag += fabs(D * j * v);
  }
  lp->alpha = alpha;
  lp->cost = c;
  lp->d1 = d1;
  lp->d2 = d2;
  lp->d1mag = mag;
}


// exact line search by safeguarded 1-D Newton; returns the step, fills the statistics
static mcNum lineSearch(Primal* p, mcSolverStat* stat) {
  const mcModel* m = p->m;
  const mcData* d = p->d;
  int nv = p->nv;

  // Gauss part: c(a) = c0 + a c1 + a^2 c2 / 2
  // quad[3]: magnitude of the terms of quad[1], for the rounding scale of the slope
  mcNum quad[4];
  quad[0] = 0;
  quad[1] = 0;
  quad[3] = 0;
  quad[2] = mcs_dot(p->search, p->Mv, nv);
  for (int i = 0; i < nv; i++) {
    quad[1] += p->search[i] * (p->Ma[i] - d->qfrc_smooth[i]);
    quad[3] += fabs(p->search[i]) * (fabs(p->Ma[i]) + fabs(d->qfrc_smooth[i]));
    quad[0] += 0.5 * (p->Ma[i] - d->qfrc_smooth[i]) * (p->x[i] - d->qacc_smooth[i]);
  }

  LinePoint p0, cur, lo, hi;
  lineEval(p, quad, 0, &p0);
  int neval = 1;
  mcNum snorm = mcs_norm(p->search, nv);
  stat->lineslope = snorm > 0 ? p0.d1 / snorm : 0;
  if (!(p0.d1 < 0)) {
    stat->neval = neval;
    return 0;
  }

  // tolerance on the slope
  mcNum gtol = m->opt.ls_tolerance * fabs(p0.d1);
  mcNum tiny = 1e-14 * fabs(p0.d1);
  if (gtol > tiny) {
    gtol = gtol * 1e-6 > tiny ? gtol * 1e-6 : tiny;
  }
  int maxls = m->opt.ls_iterations > 0 ? m->opt.ls_iterations : 50;
  if (maxls < 20) {
    maxls = 20;
  }

  // Newton steps inside a bracket [lo, hi]
  lo = p0;
  int havehi = 0;
  hi = p0;
  mcNum alpha = p0.d2 > 0 ? -p0.d1 / p0.d2 : 1;
  LinePoint best = p0;
  for (int it = 0; it < maxls; it++) {
    lineEval(p, quad, alpha, &cur);
    neval++;
    if (cur.cost < best.cost || (cur.cost == best.cost && fabs(cur.d1) < fabs(best.d1))) {
      best = cur;
    }
    // converged: the slope is below the tolerance, or below what its rounding can resolve
    // (near the optimum the cost differences are below the rounding of the cost itself)
    if (fabs(cur.d1) <= gtol || fabs(cur.d1) <= 16 * DBL_EPSILON * cur.d1mag) {
      best = cur;
      break;
    }
    if (cur.d1 < 0) {
      lo = cur;
    } else {
      hi = cur;
      havehi = 1;
    }

    // next point: Newton from the current point, kept inside the bracket
    mcNum next = cur.d2 > 0 ? cur.alpha - cur.d1 / cur.d2 : 2 * cur.alpha;
    if (havehi) {
      if (!(next > lo.alpha && next < hi.alpha)) {
        mcNum den = hi.d1 - lo.d1;
        next = den > 0 ? lo.alpha - lo.d1 * (hi.alpha - lo.alpha) / den
                       : 0.5 * (lo.alpha + hi.alpha);
        if (!(next > lo.alpha && next < hi.alpha)) {
          next = 0.5 * (lo.alpha + hi.alpha);
        }
      }
      if (hi.alpha - lo.alpha <= 1e-15 * (1 + hi.alpha)) {
        break;
      }
    } else if (!(next > lo.alpha)) {
      next = 2 * (lo.alpha > 0 ? lo.alpha : 1);
    }
    alpha = next;
  }
  stat->neval = neval;

  // the 1-D cost is convex: a point still descending (d1 < 0) is below the start even when the
  // rounded costs cannot tell them apart
  if (!(best.alpha > 0) && lo.alpha > 0) {
    best = lo;
  }
  return best.alpha > 0 ? best.alpha : 0;
}


//---------------------------------- the primal loop -----------------------------------------------

// gradient and preconditioned gradient at the current point
static void gradient(Primal* p, mcsPrimal kind) {
  mcData* d = p->d;
  int nv = p->nv;
  mcs_mulJT(p->m, d, p->grad, d->efc_force);
  for (int i = 0; i < nv; i++) {
    p->grad[i] = p->Ma[i] - d->qfrc_smooth[i] - p->grad[i];
  }
  if (kind == MCS_NEWTON) {
    memcpy(p->Mgrad, p->grad, sizeof(mcNum) * nv);
    if (p->sparse) {
      mcs_sparseSolve(&p->S, p->Mgrad);
    } else {
      mcs_cholSolve(p->H, p->Mgrad, nv);
    }
  } else {
    p->host->solveM(p->m, d, p->Mgrad, p->grad, 1);
  }
}


// primal cost at the current point (constraint update included)
static mcNum primalCost(Primal* p, int flg_hessian) {
  const mcData* d = p->d;
  mcNum c = mcs_constraintUpdate(p->m, p->d, p->jar, flg_hessian);
  for (int i = 0; i < p->nv; i++) {
    c += 0.5 * (p->Ma[i] - d->qfrc_smooth[i]) * (p->x[i] - d->qacc_smooth[i]);
  }
  return c;
}


// no scratch or a diverged solve: the unconstrained acceleration with the forces it implies
static void fallback(const mcModel* m, mcData* d) {
  mcs_constraintUpdate(m, d, d->efc_b, 0);
  memcpy(d->qacc, d->qacc_smooth, sizeof(mcNum) * m->nv);
  mcs_finish(m, d);
}


void mcs_primal(const mcpHost* host, const mcModel* m, mcData* d, int maxiter, mcsPrimal kind) {
  int nv = m->nv, nefc = d->nefc;
  d->solver_iter = 0;
  if (nefc == 0) {
    mcs_unconstrained(m, d);
    return;
  }
  mcs_warmstart(host, m, d, 0);

  // scratch
  host->markStack(d);
  Primal p;
  memset(&p, 0, sizeof(p));
  p.host = host;
  p.m = m;
  p.d = d;
  p.nv = nv;
  p.nefc = nefc;
  p.x = d->qacc;
  size_t nvec = 8 * (size_t)nv + 2 * (size_t)nefc;
  p.sparse = kind == MCS_NEWTON && d->efc_J_rownnz != NULL;
  size_t nH = kind == MCS_NEWTON && !p.sparse ? (size_t)nv * nv : 0;
  nvec += nH;
  mcNum* buf = host->stackAlloc(d, sizeof(mcNum) * nvec, 16);
  int* ibuf = host->stackAlloc(d, sizeof(int) * ((size_t)nv + nefc), 16);
  if (!buf || !ibuf || (p.sparse && !mcs_sparseSymbolic(host, m, d, &p.S))) {
    host->freeStack(d);
    fallback(m, d);
    return;
  }
  p.Ma = buf;
  p.grad = p.Ma + nv;
  p.Mgrad = p.grad + nv;
  p.Mgrad_old = p.Mgrad + nv;
  p.grad_old = p.Mgrad_old + nv;
  p.search = p.grad_old + nv;
  p.Mv = p.search + nv;
  p.H = p.Mv + 2 * nv;
  p.jar = p.H + nH;
  p.Jv = p.jar + nefc;
  p.nz = ibuf;
  p.oldstate = ibuf + nv;

  // initial point
  host->mulM(m, d, p.Ma, p.x);
  mcs_mulJ(m, d, p.jar, p.x);
  for (int i = 0; i < nefc; i++) {
    p.jar[i] -= d->efc_aref[i];
  }
  p.cost = primalCost(&p, kind == MCS_NEWTON);
  if (kind == MCS_NEWTON) {
    makeHessian(&p);
  }
  gradient(&p, kind);
  for (int i = 0; i < nv; i++) {
    p.search[i] = -p.Mgrad[i];
  }

  // iterate
  mcNum scale = mcs_scale(m), tol = m->opt.tolerance;
  int iter = 0;
  while (iter < maxiter) {
    mcSolverStat* stat = d->solver + (iter < mcNSOLVER ? iter : mcNSOLVER - 1);
    memset(stat, 0, sizeof(*stat));

    // line search along the direction
    host->mulM(m, d, p.Mv, p.search);
    mcs_mulJ(m, d, p.Jv, p.search);
    mcNum alpha = lineSearch(&p, stat);
    stat->lineslope *= scale;
    iter++;
    if (alpha <= 0) {
      stat->improvement = 0;
      stat->gradient = scale * mcs_norm(p.grad, nv);
      break;
    }

    // move
    mcs_addToScl(p.x, p.search, alpha, nv);
    mcs_addToScl(p.Ma, p.Mv, alpha, nv);
    mcs_addToScl(p.jar, p.Jv, alpha, nefc);
    memcpy(p.oldstate, d->efc_state, sizeof(int) * nefc);
    mcNum oldcost = p.cost;
    p.cost = primalCost(&p, kind == MCS_NEWTON);
    int nchange = 0, nactive = 0;
    for (int i = 0; i < nefc; i++) {
      nchange += d->efc_state[i] != p.oldstate[i];
      nactive += d->efc_state[i] != mcCNSTRSTATE_SATISFIED;
    }

    // new gradient and direction
    if (kind == MCS_CG) {
      memcpy(p.Mgrad_old, p.Mgrad, sizeof(mcNum) * nv);
      memcpy(p.grad_old, p.grad, sizeof(mcNum) * nv);
    } else {
      int nupdate = updateHessian(&p);
      stat->nupdate = nupdate ? nupdate : nactive;
    }
    gradient(&p, kind);

    // statistics and convergence
    stat->improvement = scale * (oldcost - p.cost);
    stat->gradient = scale * mcs_norm(p.grad, nv);
    stat->nactive = nactive;
    stat->nchange = nchange;
    if (stat->improvement < tol || stat->gradient < tol) {
      break;
    }

    if (kind == MCS_CG) {
      // Polak-Ribiere, restarted when negative
      mcNum den = mcs_dot(p.grad_old, p.Mgrad_old, nv), num = 0;
      for (int i = 0; i < nv; i++) {
        num += p.grad[i] * (p.Mgrad[i] - p.Mgrad_old[i]);
      }
      mcNum beta = den > 0 ? num / den : 0;
      if (!(beta > 0)) {
        beta = 0;
      }
      for (int i = 0; i < nv; i++) {
        p.search[i] = -p.Mgrad[i] + beta * p.search[i];
      }
    } else {
      for (int i = 0; i < nv; i++) {
        p.search[i] = -p.Mgrad[i];
      }
    }
  }
  d->solver_iter = iter;

  // a diverged solve falls back to the unconstrained acceleration, never NaN
  for (int i = 0; i < nv; i++) {
    if (!isfinite(p.x[i])) {
      host->freeStack(d);
      fallback(m, d);
      return;
    }
  }
  host->freeStack(d);
  mcs_finish(m, d);
}
