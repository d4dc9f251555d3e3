// Moduco solver plugins: projected Gauss-Seidel on the dual, and the noslip postsolver.
#include <math.h>
#include <string.h>

#include "solver.h"
#include "solver_internal.h"


// AR = J inv(M) J' (+ R when withR), dense nefc x nefc; MinvJT is nefc x nv scratch
static void makeAR(const mcpHost* host, const mcModel* m, mcData* d, mcNum* AR, mcNum* MinvJT,
                   int withR) {
  int nv = m->nv, nefc = d->nefc;
  host->solveM(m, d, MinvJT, d->efc_J, nefc);
  for (int i = 0; i < nefc; i++) {
    const mcNum* Ji = d->efc_J + (size_t)i * nv;
    for (int j = 0; j <= i; j++) {
      mcNum v = mcs_dot(Ji, MinvJT + (size_t)j * nv, nv);
      AR[(size_t)i * nefc + j] = AR[(size_t)j * nefc + i] = v;
    }
    if (withR) {
      AR[(size_t)i * nefc + i] += d->efc_R[i];
    }
  }
}


// dual cost 0.5 f' AR f + f' b
static mcNum dualCost(const mcNum* AR, const mcNum* f, const mcNum* b, int n) {
  mcNum c = 0;
  for (int i = 0; i < n; i++) {
    if (f[i] != 0) {
      c += f[i] * (0.5 * mcs_dot(AR + (size_t)i * n, f, n) + b[i]);
    }
  }
  return c;
}


// Cholesky in place (lower triangle) that fails when a pivot falls below mindiag; return 1 on
// success
static int cholStrict(mcNum* A, int n, mcNum mindiag) {
  for (int j = 0; j < n; j++) {
    mcNum* Aj = A + (size_t)j * n;
    mcNum s = Aj[j] - mcs_dot(Aj, Aj, j);
    if (!(s >= mindiag)) {
      return 0;
    }
    Aj[j] = sqrt(s);
    for (int i = j + 1; i < n; i++) {
      mcNum* Ai = A + (size_t)i * n;
      Ai[j] = (Ai[j] - mcs_dot(Ai, Aj, j)) / Aj[j];
    }
  }
  return 1;
}


// minimize 0.5 x' A x + x' g over the ellipse sum (x_j / mu_j)^2 <= r^2 (n <= 5); A is n x n.
// In y = x / mu the minimizer is y(lambda) = -inv(A' + lambda I) g' with the smallest lambda >= 0
// such that |y|^2 <= r^2; lambda comes from Newton's method on h(lambda) = |y|^2 - r^2, which is
// convex and decreasing, so the iterates approach the root from the left (at most 20 steps, stop
// when h or the step drops below 1e-10; a point still outside is then scaled onto the ellipse).
// A block that is not positive definite gives x = 0.
static void ellipseQP(const mcNum* A, const mcNum* g, const mcNum* mu, mcNum r, int n,
                      mcNum* x) {
  mcNum As[25], gs[5], L[25], y[5], z[5];

  // scaled problem: y = x / mu, A' = mu A mu, g' = mu g, constraint |y| <= r
  for (int a = 0; a < n; a++) {
    gs[a] = mu[a] * g[a];
    for (int b = 0; b < n; b++) {
      As[a * n + b] = mu[a] * A[a * n + b] * mu[b];
    }
  }

  // Newton iterations on lambda
  mcNum lambda = 0;
  memset(y, 0, sizeof(mcNum) * n);
  for (int it = 0; it < 20; it++) {
    memcpy(L, As, sizeof(mcNum) * n * n);
    for (int a = 0; a < n; a++) {
      L[a * n + a] += lambda;
      y[a] = -gs[a];
    }
    if (!cholStrict(L, n, 1e-10)) {
      memset(x, 0, sizeof(mcNum) * n);
      return;
    }
    mcs_cholSolve(L, y, n);

    // h(lambda) and h'(lambda) = -2 y' inv(A' + lambda I) y
    mcNum h = mcs_dot(y, y, n) - r * r;
    if (h < 1e-10) {
      break;
    }
    memcpy(z, y, sizeof(mcNum) * n);
    mcs_cholSolve(L, z, n);
    mcNum step = h / (2 * mcs_dot(y, z, n));
    if (step < 1e-10) {
      break;
    }
    lambda += step;
  }

  // back to x; an unconverged iterate (outside the ellipse) is scaled onto its boundary
  mcNum ny = mcs_norm(y, n);
  mcNum s = ny > r ? r / ny : 1;
  for (int a = 0; a < n; a++) {
    x[a] = mu[a] * y[a] * s;
  }
}


// one elliptic contact block: ray step, then the QCQP on the slice (friction only if noslip)
static void ellipticUpdate(const mcNum* AR, const mcNum* b, mcNum* f, int adr, int dim,
                           const mcContact* con, int nefc, int frictiononly) {
  mcNum A[36], r[6];

  // local matrix and residual without the block's own contribution
  for (int a = 0; a < dim; a++) {
    const mcNum* row = AR + (size_t)(adr + a) * nefc;
    r[a] = mcs_dot(row, f, nefc) + b[adr + a];
    for (int c = 0; c < dim; c++) {
      A[a * dim + c] = row[adr + c];
      r[a] -= row[adr + c] * f[adr + c];
    }
  }
  mcNum* fc = f + adr;
  mcNum old[6];
  memcpy(old, fc, sizeof(mcNum) * dim);

  // ray from the cone tip through the current force (or the normal)
  if (!frictiononly) {
    mcNum v[6];
    if (fc[0] > 0) {
      memcpy(v, fc, sizeof(mcNum) * dim);
    } else {
      memset(v, 0, sizeof(mcNum) * dim);
      v[0] = 1;
    }
    mcNum vAv = 0, vr = mcs_dot(v, r, dim);
    for (int a = 0; a < dim; a++) {
      vAv += v[a] * mcs_dot(A + a * dim, v, dim);
    }
    mcNum t = vAv > mcMINVAL ? -vr / vAv : 0;
    if (t < 0) {
      t = 0;
    }
    for (int a = 0; a < dim; a++) {
      fc[a] = t * v[a];
    }
  }

  // slice at the current normal force: friction inside the ellipse of radius f0
  int n = dim - 1;
  mcNum At[25], g[5], mu[5], x[5];
  for (int a = 0; a < n; a++) {
    g[a] = r[1 + a] + A[(1 + a) * dim] * fc[0];
    mu[a] = con->friction[a];
    for (int c = 0; c < n; c++) {
      At[a * n + c] = A[(1 + a) * dim + 1 + c];
    }
  }
  if (fc[0] < mcMINVAL) {
    memset(x, 0, sizeof(mcNum) * n);
  } else {
    ellipseQP(At, g, mu, fc[0], n, x);
  }
  memcpy(fc + 1, x, sizeof(mcNum) * n);

  // keep the old force if the block cost 0.5 f' A f + f' r went up by more than round-off
  mcNum change = 0;
  for (int a = 0; a < dim; a++) {
    mcNum Af = mcs_dot(A + a * dim, fc, dim), Ao = mcs_dot(A + a * dim, old, dim);
    change += fc[a] * (0.5 * Af + r[a]) - old[a] * (0.5 * Ao + r[a]);
  }
  if (change > 1e-10) {
    memcpy(fc, old, sizeof(mcNum) * dim);
  }
}


// states from dual forces
static void dualStates(const mcModel* m, mcData* d) {
  for (int i = 0; i < d->nefc; i++) {
    int type = d->efc_type[i];
    mcNum f = d->efc_force[i];
    if (type == mcCNSTR_EQUALITY) {
      d->efc_state[i] = mcCNSTRSTATE_QUADRATIC;
    } else if (type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON) {
      mcNum fl = d->efc_frictionloss[i];
      d->efc_state[i] = f >= fl ? mcCNSTRSTATE_LINEARNEG
                      : f <= -fl ? mcCNSTRSTATE_LINEARPOS : mcCNSTRSTATE_QUADRATIC;
    } else if (type == mcCNSTR_CONTACT_ELLIPTIC) {
      const mcContact* con = d->contact + d->efc_id[i];
      int dim = con->dim, state = mcCNSTRSTATE_SATISFIED;
      if (f > 0) {
        mcNum t = 0;
        for (int k = 1; k < dim; k++) {
          mcNum u = d->efc_force[i + k] / con->friction[k - 1];
          t += u * u;
        }
        state = sqrt(t) >= f * (1 - 1e-10) ? mcCNSTRSTATE_CONE : mcCNSTRSTATE_QUADRATIC;
      }
      for (int k = 0; k < dim; k++) {
        d->efc_state[i + k] = state;
      }
      i += dim - 1;
    } else {
      d->efc_state[i] = f > 0 ? mcCNSTRSTATE_QUADRATIC : mcCNSTRSTATE_SATISFIED;
    }
  }
}


// qacc = qacc_smooth + inv(M) J' f, then the common finish
static void dualFinish(const mcpHost* host, const mcModel* m, mcData* d) {
  mcs_mulJT(m, d, d->qfrc_constraint, d->efc_force);
  host->solveM(m, d, d->qacc, d->qfrc_constraint, 1);
  for (int i = 0; i < m->nv; i++) {
    d->qacc[i] += d->qacc_smooth[i];
  }
  dualStates(m, d);
  mcs_finish(m, d);
}


void mcs_pgs(const mcpHost* host, const mcModel* m, mcData* d, int maxiter) {
  int nv = m->nv, nefc = d->nefc;
  d->solver_iter = 0;
  if (nefc == 0) {
    mcs_unconstrained(m, d);
    return;
  }
  mcs_warmstart(host, m, d, 1);

  host->markStack(d);
  mcNum* AR = host->stackAlloc(d, sizeof(mcNum) * ((size_t)nefc * nefc + (size_t)nefc * nv), 16);
  if (!AR) {
    host->freeStack(d);
    memset(d->efc_force, 0, sizeof(mcNum) * nefc);
    dualFinish(host, m, d);
    return;
  }
  makeAR(host, m, d, AR, AR + (size_t)nefc * nefc, 1);
  d->solver_nnz = nefc * nefc;

  mcNum* f = d->efc_force;
  const mcNum* b = d->efc_b;
  mcNum scale = mcs_scale(m), tol = m->opt.tolerance;
  mcNum cost = dualCost(AR, f, b, nefc);
  int iter = 0;
  while (iter < maxiter) {
    mcNum oldcost = cost;
    int nchange = 0;

    // one sweep in row order
    for (int i = 0; i < nefc; i++) {
      int type = d->efc_type[i];
      const mcNum* row = AR + (size_t)i * nefc;
      if (type == mcCNSTR_CONTACT_ELLIPTIC) {
        const mcContact* con = d->contact + d->efc_id[i];
        ellipticUpdate(AR, b, f, i, con->dim, con, nefc, 0);
        i += con->dim - 1;
        continue;
      }
      mcNum old = f[i];
      mcNum v = old - (mcs_dot(row, f, nefc) + b[i]) / row[i];
      if (type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON) {
        mcNum fl = d->efc_frictionloss[i];
        v = v < -fl ? -fl : (v > fl ? fl : v);
      } else if (type != mcCNSTR_EQUALITY && v < 0) {
        v = 0;
      }
      f[i] = v;
      nchange += (old > 0) != (v > 0);
    }

    // statistics
    cost = dualCost(AR, f, b, nefc);
    mcSolverStat* stat = d->solver + (iter < mcNSOLVER ? iter : mcNSOLVER - 1);
    memset(stat, 0, sizeof(*stat));
    stat->improvement = scale * (oldcost - cost);
    stat->nchange = nchange;
    int nactive = 0;
    for (int i = 0; i < nefc; i++) {
      nactive += f[i] != 0;
    }
    stat->nactive = nactive;
    iter++;
    if (stat->improvement < tol) {
      break;
    }
  }
  d->solver_iter = iter;

  // never NaN
  for (int i = 0; i < nefc; i++) {
    if (!isfinite(f[i])) {
      memset(f, 0, sizeof(mcNum) * nefc);
      break;
    }
  }
  host->freeStack(d);
  dualFinish(host, m, d);
}


void mcs_noslip(const mcpHost* host, const mcModel* m, mcData* d, int maxiter) {
  int nv = m->nv, nefc = d->nefc;
  if (nefc == 0 || maxiter <= 0) {
    return;
  }
  host->markStack(d);
  mcNum* AR = host->stackAlloc(d, sizeof(mcNum) * ((size_t)nefc * nefc + (size_t)nefc * nv), 16);
  if (!AR) {
    host->freeStack(d);
    return;
  }

  // A without the regularizer, b from the smooth acceleration
  makeAR(host, m, d, AR, AR + (size_t)nefc * nefc, 0);
  mcs_mulJ(m, d, d->efc_b, d->qacc_smooth);
  for (int i = 0; i < nefc; i++) {
    d->efc_b[i] -= d->efc_aref[i];
  }
  mcNum* f = d->efc_force;
  const mcNum* b = d->efc_b;
  mcNum scale = mcs_scale(m), tol = m->opt.noslip_tolerance;

  // the first sweep's improvement is measured from the main solver's regularized dual cost
  mcNum cost = dualCost(AR, f, b, nefc);
  for (int i = 0; i < nefc; i++) {
    cost += 0.5 * d->efc_R[i] * f[i] * f[i];
  }
  for (int iter = 0; iter < maxiter; iter++) {
    mcNum oldcost = cost;
    for (int i = 0; i < nefc; i++) {
      int type = d->efc_type[i];
      const mcNum* row = AR + (size_t)i * nefc;

      // friction loss: scalar box
      if (type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON) {
        if (row[i] > mcMINVAL) {
          mcNum fl = d->efc_frictionloss[i];
          mcNum v = f[i] - (mcs_dot(row, f, nefc) + b[i]) / row[i];
          f[i] = v < -fl ? -fl : (v > fl ? fl : v);
        }
      }

      // elliptic: friction inside the ellipse of the fixed normal force
      else if (type == mcCNSTR_CONTACT_ELLIPTIC) {
        const mcContact* con = d->contact + d->efc_id[i];
        if (con->dim > 1) {
          ellipticUpdate(AR, b, f, i, con->dim, con, nefc, 1);
        }
        i += con->dim - 1;
      }

      // pyramidal: each pair of opposite edges keeps its sum, moves its difference
      else if (type == mcCNSTR_CONTACT_PYRAMIDAL) {
        const mcContact* con = d->contact + d->efc_id[i];
        int npair = con->dim - 1;
        for (int k = 0; k < npair; k++) {
          int a = i + 2 * k, c = a + 1;
          const mcNum* ra = AR + (size_t)a * nefc;
          const mcNum* rc = AR + (size_t)c * nefc;
          mcNum ga = mcs_dot(ra, f, nefc) + b[a], gc = mcs_dot(rc, f, nefc) + b[c];
          mcNum curv = ra[a] + rc[c] - 2 * ra[c];
          if (curv <= mcMINVAL) {
            continue;
          }
          mcNum s = f[a] + f[c];
          mcNum delta = -(ga - gc) / curv;
          mcNum fa = f[a] + delta;
          fa = fa < 0 ? 0 : (fa > s ? s : fa);
          f[a] = fa;
          f[c] = s - fa;
        }
        i += 2 * npair - 1;
      }
    }

    // statistics after the main solver's, as one more iteration each
    cost = dualCost(AR, f, b, nefc);
    int slot = d->solver_iter < mcNSOLVER ? d->solver_iter : mcNSOLVER - 1;
    mcSolverStat* stat = d->solver + slot;
    memset(stat, 0, sizeof(*stat));
    stat->improvement = scale * (oldcost - cost);
    d->solver_iter++;
    if (stat->improvement < tol) {
      break;
    }
  }
  host->freeStack(d);
  dualFinish(host, m, d);
}
