// Moduco solver plugins: projected Gauss-Seidel on the dual, and the noslip postsolver.
#include <math.h>
#include <string.h>

#include "solver.h"
#include "solver_internal.h"


// sqrt(inv(D)) of M = L' D L from qLDiagInv (qLDiagSqrtInv may be stale outside mc_factorM)
static void sqrtDiagInv(const mcModel* m, const mcData* d, mcNum* res) {
  for (int k = 0; k < m->nv; k++) {
    res[k] = sqrt(d->qLDiagInv[k]);
  }
}


// B = J inv(L) sqrt(inv(D)), nefc x nv (M = L' D L in qLD; sqrtinv: sqrt(inv(D))), so that
// J inv(M) J' = B B' (sqrtinv NULL: computed per entry). Reads the row-sparse efc_J when it is
// built (no dense efc_J then), else the dense one
static void makeB(const mcModel* m, const mcData* d, mcNum* B, const mcNum* sqrtinv) {
  int nv = m->nv, nefc = d->nefc;
  const int* rownnz = d->efc_J_rownnz;
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;
  const mcNum* LD = d->qLD;

  // rows of B: J_i, then inv(L') from the leaves up, then sqrt(inv(D))
  for (int i = 0; i < nefc; i++) {
    mcNum* x = B + (size_t)i * nv;
    if (rownnz) {
      memset(x, 0, sizeof(mcNum) * nv);
      const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
      const mcNum* val = d->efc_J_val + d->efc_J_rowadr[i];
      for (int k = 0; k < rownnz[i]; k++) {
        x[col[k]] = val[k];
      }
    } else {
      memcpy(x, d->efc_J + (size_t)i * nv, sizeof(mcNum) * nv);
    }
    for (int k = nv - 1; k >= 0; k--) {
      mcNum xk = x[k];
      if (xk == 0) {
        continue;
      }
      int adr = Madr[k] + 1;
      for (int a = parent[k]; a >= 0; a = parent[a]) {
        x[a] -= LD[adr++] * xk;
      }
    }
    for (int k = 0; k < nv; k++) {
      x[k] *= sqrtinv ? sqrtinv[k] : sqrt(d->qLDiagInv[k]);
    }
  }
}


// non-zeros of a row of B into cols/vals; return their number
static int gatherRow(const mcNum* Bi, int nv, int* cols, mcNum* vals) {
  int n = 0;
  for (int k = 0; k < nv; k++) {
    if (Bi[k] != 0) {
      cols[n] = k;
      vals[n++] = Bi[k];
    }
  }
  return n;
}


// AR = J inv(M) J' (+ R when withR), dense nefc x nefc, from B (nefc x nv scratch)
static void makeAR(const mcpHost* host, const mcModel* m, mcData* d, mcNum* AR, mcNum* B,
                   int withR) {
  int nv = m->nv, nefc = d->nefc;

  // AR = B B' over the non-zeros of the rows of B (plain dot products without scratch)
  int* cols = host->stackAlloc(d, sizeof(int) * (size_t)nv, 16);
  mcNum* vals = host->stackAlloc(d, sizeof(mcNum) * (size_t)nv, 16);
  if (vals) {
    sqrtDiagInv(m, d, vals);
  }
  makeB(m, d, B, vals);
  for (int i = 0; i < nefc; i++) {
    const mcNum* Bi = B + (size_t)i * nv;
    int n = cols && vals ? gatherRow(Bi, nv, cols, vals) : 0;
    for (int j = 0; j <= i; j++) {
      const mcNum* Bj = B + (size_t)j * nv;
      mcNum v = 0;
      if (cols && vals) {
        for (int k = 0; k < n; k++) {
          v += vals[k] * Bj[cols[k]];
        }
      } else {
        v = mcs_dot(Bi, Bj, nv);
      }
      AR[(size_t)i * nefc + j] = AR[(size_t)j * nefc + i] = v;
    }
    if (withR) {
      AR[(size_t)i * nefc + i] += d->efc_R[i];
    }
  }
}


//---------------------------------- row-sparse AR -------------------------------------------------

// AR + R with the row-sparse efc_J: rows i and j couple only when their dofs lie in a common
// kinematic tree (B's rows are closed under ancestors), so each row of AR is stored on the rows
// it couples with (CSR: adr, nnz, col, val; diag: 1 / AR_ii)
typedef struct {
  int* adr;
  int* nnz;
  int* col;
  mcNum* val;
  mcNum* diaginv;
} SparseAR;


// dofs of the ancestor closure of a row's columns, descending (the non-zeros of its row of B);
// mark: nv ints, mark[k] == tag for dofs already listed; return the count
static int rowClosure(const mcModel* m, const int* col, int ncol, int* mark, int tag, int* list) {
  int n = 0;
  for (int k = 0; k < ncol; k++) {
    for (int a = col[k]; a >= 0 && mark[a] != tag; a = m->dof_parentid[a]) {
      mark[a] = tag;
      list[n++] = a;
    }
  }

  // insertion sort, descending (lists are short: one or two chains)
  for (int i = 1; i < n; i++) {
    int v = list[i], j = i - 1;
    while (j >= 0 && list[j] < v) {
      list[j + 1] = list[j];
      j--;
    }
    list[j + 1] = v;
  }
  return n;
}


// build S on the stack; 0 if the scratch does not fit
static int makeSparseAR(const mcpHost* host, const mcModel* m, mcData* d, SparseAR* S) {
  int nv = m->nv, nefc = d->nefc;
  const int* rownnz = d->efc_J_rownnz;
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;
  const mcNum* LD = d->qLD;

  // root dof of every dof; closure sizes (the non-zeros of the rows of B)
  int* root = host->stackAlloc(d, sizeof(int) * (size_t)nv, 16);
  int* mark = host->stackAlloc(d, sizeof(int) * (size_t)nv, 16);
  int* list = host->stackAlloc(d, sizeof(int) * (size_t)nv, 16);
  mcNum* work = host->stackAlloc(d, sizeof(mcNum) * (size_t)nv, 16);
  mcNum* sqrtinv = host->stackAlloc(d, sizeof(mcNum) * (size_t)nv, 16);
  int* badr = host->stackAlloc(d, sizeof(int) * ((size_t)nefc + 1), 16);
  int* tcount = host->stackAlloc(d, sizeof(int) * ((size_t)nv + 1), 16);
  int* stamp = host->stackAlloc(d, sizeof(int) * (size_t)nefc, 16);
  S->adr = host->stackAlloc(d, sizeof(int) * (size_t)nefc, 16);
  S->nnz = host->stackAlloc(d, sizeof(int) * (size_t)nefc, 16);
  S->diaginv = host->stackAlloc(d, sizeof(mcNum) * (size_t)nefc, 16);
  if (!root || !mark || !list || !work || !sqrtinv || !badr || !tcount || !stamp || !S->adr ||
      !S->nnz || !S->diaginv) {
    return 0;
  }
  sqrtDiagInv(m, d, sqrtinv);
  for (int k = 0; k < nv; k++) {
    int p = parent[k];
    root[k] = p < 0 ? k : root[p];               // parents come first
    mark[k] = -1;
    work[k] = 0;
  }
  badr[0] = 0;
  for (int i = 0; i < nefc; i++) {
    const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
    badr[i + 1] = badr[i] + rowClosure(m, col, rownnz[i], mark, i, list);
  }
  int nnzB = badr[nefc];

  // rows of B (row-sparse on the closure): J_i, inv(L') from the leaves up, sqrt(inv(D))
  int* bcol = host->stackAlloc(d, sizeof(int) * ((size_t)nnzB + 1), 16);
  mcNum* bval = host->stackAlloc(d, sizeof(mcNum) * ((size_t)nnzB + 1), 16);
  int* trow = host->stackAlloc(d, sizeof(int) * ((size_t)nnzB + 1), 16);
  if (!bcol || !bval || !trow) {
    return 0;
  }
  for (int k = 0; k < nv; k++) {
    mark[k] = -1;
  }
  for (int i = 0; i < nefc; i++) {
    const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
    const mcNum* val = d->efc_J_val + d->efc_J_rowadr[i];
    int n = rowClosure(m, col, rownnz[i], mark, i, bcol + badr[i]);
    const int* cl = bcol + badr[i];
    for (int k = 0; k < rownnz[i]; k++) {
      work[col[k]] = val[k];
    }
    for (int q = 0; q < n; q++) {
      int k = cl[q];
      mcNum xk = work[k];
      if (xk == 0) {
        continue;
      }
      int adr = Madr[k] + 1;
      for (int a = parent[k]; a >= 0; a = parent[a]) {
        work[a] -= LD[adr++] * xk;
      }
    }
    for (int q = 0; q < n; q++) {
      int k = cl[q];
      bval[badr[i] + q] = work[k] * sqrtinv[k];
      work[k] = 0;
    }
  }

  // rows of every tree (by root dof, CSR in tcount/trow): a row is in the trees of its columns
  memset(tcount, 0, sizeof(int) * ((size_t)nv + 1));
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < nefc; i++) {
      for (int q = badr[i]; q < badr[i + 1]; q++) {
        if (parent[bcol[q]] >= 0) {
          continue;                               // roots only: one per tree of the row
        }
        if (pass == 0) {
          tcount[bcol[q] + 1]++;
        } else {
          trow[tcount[bcol[q]]++] = i;
        }
      }
    }
    if (pass == 0) {
      for (int t = 0; t < nv; t++) {
        tcount[t + 1] += tcount[t];
      }
    } else {
      for (int t = nv; t > 0; t--) {
        tcount[t] = tcount[t - 1];
      }
      tcount[0] = 0;
    }
  }

  // coupled rows of each row (itself first): count, allocate, fill
  int total = 0;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      S->col = host->stackAlloc(d, sizeof(int) * ((size_t)total + 1), 16);
      S->val = host->stackAlloc(d, sizeof(mcNum) * ((size_t)total + 1), 16);
      if (!S->col || !S->val) {
        return 0;
      }
    }
    for (int i = 0; i < nefc; i++) {
      stamp[i] = -1;
    }
    int adr = 0;
    for (int i = 0; i < nefc; i++) {
      int n = 1;
      stamp[i] = i;
      if (pass == 1) {
        S->col[adr] = i;
      }
      for (int q = badr[i]; q < badr[i + 1]; q++) {
        int t = bcol[q];
        if (parent[t] >= 0) {
          continue;
        }
        for (int r = tcount[t]; r < tcount[t + 1]; r++) {
          int j = trow[r];
          if (stamp[j] != i) {
            stamp[j] = i;
            if (pass == 1) {
              S->col[adr + n] = j;
            }
            n++;
          }
        }
      }
      if (pass == 1) {
        S->adr[i] = adr;
        S->nnz[i] = n;
      }
      adr += n;
    }
    total = adr;
  }

  // values: B_i . B_j (B_i scattered into work), plus R on the diagonal
  for (int i = 0; i < nefc; i++) {
    for (int q = badr[i]; q < badr[i + 1]; q++) {
      work[bcol[q]] = bval[q];
    }
    for (int q = 0; q < S->nnz[i]; q++) {
      int j = S->col[S->adr[i] + q];
      mcNum v = 0;
      for (int r = badr[j]; r < badr[j + 1]; r++) {
        v += work[bcol[r]] * bval[r];
      }
      S->val[S->adr[i] + q] = v;
    }
    for (int q = badr[i]; q < badr[i + 1]; q++) {
      work[bcol[q]] = 0;
    }
    S->val[S->adr[i]] += d->efc_R[i];
    S->diaginv[i] = 1 / S->val[S->adr[i]];
  }
  d->solver_nnz = total;
  return 1;
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


// one elliptic contact block: ray step, then the QCQP on the slice (friction only if noslip);
// return the change of the dual cost (0 when the old force is kept)
static mcNum ellipticUpdate(const mcNum* AR, const mcNum* b, mcNum* f, int adr, int dim,
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
    return 0;
  }
  return change;
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
  host->mulJT(m, d, d->qfrc_constraint, d->efc_force);
  host->solveM(m, d, d->qacc, d->qfrc_constraint, 1);
  for (int i = 0; i < m->nv; i++) {
    d->qacc[i] += d->qacc_smooth[i];
  }
  dualStates(m, d);
  mcs_finish(host, m, d);
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

  // row-sparse AR with the sparse Jacobian (elliptic blocks need the dense rows)
  SparseAR S;
  memset(&S, 0, sizeof(S));
  int sparse = d->efc_J_rownnz != NULL;
  for (int i = 0; i < nefc && sparse; i++) {
    sparse = d->efc_type[i] != mcCNSTR_CONTACT_ELLIPTIC;
  }
  if (sparse && !makeSparseAR(host, m, d, &S)) {
    host->freeStack(d);
    host->markStack(d);
    sparse = 0;
  }
  mcNum* AR = NULL;
  mcNum* ARinv = NULL;
  if (!sparse) {
    AR = host->stackAlloc(d, sizeof(mcNum) * ((size_t)nefc * nefc + (size_t)nefc * nv), 16);
    if (!AR) {
      host->freeStack(d);
      memset(d->efc_force, 0, sizeof(mcNum) * nefc);
      dualFinish(host, m, d);
      return;
    }
    makeAR(host, m, d, AR, AR + (size_t)nefc * nefc, 1);
    d->solver_nnz = nefc * nefc;

    // inverse diagonal (in the nefc x nv scratch, no longer needed)
    ARinv = AR + (size_t)nefc * nefc;
    for (int i = 0; i < nefc; i++) {
      ARinv[i] = 1 / AR[(size_t)i * nefc + i];
    }
  }

  mcNum* f = d->efc_force;
  const mcNum* b = d->efc_b;
  mcNum scale = mcs_scale(m, d), tol = m->opt.tolerance;
  int iter = 0;
  while (iter < maxiter) {
    // one sweep in row order; the cost decrease is summed over the row updates
    mcNum improvement = 0;
    int nchange = 0;
    for (int i = 0; i < nefc; i++) {
      int type = d->efc_type[i];
      const mcNum* row = sparse ? NULL : AR + (size_t)i * nefc;
      if (type == mcCNSTR_CONTACT_ELLIPTIC) {
        const mcContact* con = d->contact + d->efc_id[i];
        improvement -= ellipticUpdate(AR, b, f, i, con->dim, con, nefc, 0);
        i += con->dim - 1;
        continue;
      }
      mcNum old = f[i], res, diag, diaginv;
      if (sparse) {
        const int* col = S.col + S.adr[i];
        const mcNum* val = S.val + S.adr[i];
        res = b[i];
        for (int k = 0; k < S.nnz[i]; k++) {
          res += val[k] * f[col[k]];
        }
        diag = val[0];
        diaginv = S.diaginv[i];
      } else {
        res = mcs_dot(row, f, nefc) + b[i];
        diag = row[i];
        diaginv = ARinv[i];
      }
      mcNum v = old - res * diaginv;
      if (type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON) {
        mcNum fl = d->efc_frictionloss[i];
        v = v < -fl ? -fl : (v > fl ? fl : v);
      } else if (type != mcCNSTR_EQUALITY && v < 0) {
        v = 0;
      }
      mcNum delta = v - old;
      improvement -= delta * (res + 0.5 * diag * delta);
      f[i] = v;
      nchange += (old > 0) != (v > 0);
    }

    // statistics
    mcSolverStat* stat = d->solver + (iter < mcNSOLVER ? iter : mcNSOLVER - 1);
    memset(stat, 0, sizeof(*stat));
    stat->improvement = scale * improvement;
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

  // A without the regularizer; efc_b (J qacc_smooth - aref) is the core's
  makeAR(host, m, d, AR, AR + (size_t)nefc * nefc, 0);
  mcNum* f = d->efc_force;
  const mcNum* b = d->efc_b;
  mcNum scale = mcs_scale(m, d), tol = m->opt.noslip_tolerance;

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
