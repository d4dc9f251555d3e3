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


// B' of B = J inv(L) sqrt(inv(D)), nv x nefc (M = L' D L in qLD; sqrtinv: sqrt(inv(D))), so that
// J inv(M) J' = B B'. Reads the row-sparse efc_J when it is built (no dense efc_J then), else the
// dense one. Rows of B are made four at a time in work (4 nv): J_i, then inv(L') from the leaves
// up, then sqrt(inv(D)). A dof where all four rows are zero is skipped; a row that is zero there
// while another is not takes an update by L * 0, which changes no value of B B' (only the sign of
// a zero in B)
static void makeBT(const mcModel* m, const mcData* d, mcNum* BT, const mcNum* sqrtinv,
                   mcNum* work) {
  int nv = m->nv, nefc = d->nefc;
  const int* rownnz = d->efc_J_rownnz;
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;
  const mcNum* LD = d->qLD;
  mcNum *x0 = work, *x1 = work + nv, *x2 = work + 2 * nv, *x3 = work + 3 * nv;

  for (int i0 = 0; i0 < nefc; i0 += 4) {
    int nr = nefc - i0 < 4 ? nefc - i0 : 4;
    memset(work, 0, sizeof(mcNum) * 4 * (size_t)nv);
    for (int r = 0; r < nr; r++) {
      int i = i0 + r;
      mcNum* x = work + (size_t)r * nv;
      if (rownnz) {
        const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
        const mcNum* val = d->efc_J_val + d->efc_J_rowadr[i];
        for (int k = 0; k < rownnz[i]; k++) {
          x[col[k]] = val[k];
        }
      } else {
        memcpy(x, d->efc_J + (size_t)i * nv, sizeof(mcNum) * nv);
      }
    }
    for (int k = nv - 1; k >= 0; k--) {
      mcNum a0 = x0[k], a1 = x1[k], a2 = x2[k], a3 = x3[k];
      if (a0 == 0 && a1 == 0 && a2 == 0 && a3 == 0) {
        continue;
      }
      int adr = Madr[k] + 1;
      for (int a = parent[k]; a >= 0; a = parent[a]) {
        mcNum l = LD[adr++];
        x0[a] -= l * a0;
        x1[a] -= l * a1;
        x2[a] -= l * a2;
        x3[a] -= l * a3;
      }
    }
    for (int k = 0; k < nv; k++) {
      mcNum* dst = BT + (size_t)k * nefc + i0;
      for (int r = 0; r < nr; r++) {
        dst[r] = work[(size_t)r * nv + k] * sqrtinv[k];
      }
    }
  }
}


// AR = J inv(M) J' (+ R when withR), dense nefc x nefc, with B' in BT (nv x nefc scratch); 0 if
// the host stack is full. AR_ij = B_i . B_j is summed over the non-zeros of B_i in dof order:
// the terms left out are exact zeros, so AR_ij and AR_ji are the same number. Eight entries of
// a row are summed side by side, each in that order.
static int makeAR(const mcpHost* host, const mcModel* m, mcData* d, mcNum* AR, mcNum* BT,
                  int withR) {
  int nv = m->nv, nefc = d->nefc;
  int* cols = host->stackAlloc(d, sizeof(int) * (size_t)nv, 16);
  mcNum* vals = host->stackAlloc(d, sizeof(mcNum) * 5 * (size_t)nv, 16);
  if (!cols || !vals) {
    return 0;
  }
  sqrtDiagInv(m, d, vals);
  makeBT(m, d, BT, vals, vals + nv);

  for (int i = 0; i < nefc; i++) {
    // non-zeros of row i of B
    int n = 0;
    for (int k = 0; k < nv; k++) {
      mcNum v = BT[(size_t)k * nefc + i];
      if (v != 0) {
        cols[n] = k;
        vals[n++] = v;
      }
    }

    // entries 0..i (and the rest of the last block of eight)
    mcNum* ARi = AR + (size_t)i * nefc;
    int j = 0;
    for (; j <= i && j + 8 <= nefc; j += 8) {
      mcNum acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int q = 0; q < n; q++) {
        const mcNum* bt = BT + (size_t)cols[q] * nefc + j;
        mcNum x = vals[q];
        for (int t = 0; t < 8; t++) {
          acc[t] += x * bt[t];
        }
      }
      memcpy(ARi + j, acc, sizeof(acc));
    }
    for (; j <= i; j++) {
      mcNum v = 0;
      for (int q = 0; q < n; q++) {
        v += vals[q] * BT[(size_t)cols[q] * nefc + j];
      }
      ARi[j] = v;
    }
    for (j = 0; j < i; j++) {
      AR[(size_t)j * nefc + i] = ARi[j];
    }
    if (withR) {
      ARi[i] += d->efc_R[i];
    }
  }
  return 1;
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


// qfrc_constraint = J' f, qacc = qacc_smooth + inv(M) qfrc_constraint, states, warmstart (what
// mcs_finish writes, with J' f computed once)
static void dualFinish(const mcpHost* host, const mcModel* m, mcData* d) {
  host->mulJT(m, d, d->qfrc_constraint, d->efc_force);
  host->solveM(m, d, d->qacc, d->qfrc_constraint, 1);
  for (int i = 0; i < m->nv; i++) {
    d->qacc[i] += d->qacc_smooth[i];
  }
  dualStates(m, d);
  memcpy(d->qacc_warmstart, d->qacc, sizeof(mcNum) * m->nv);
}


// the dual problem of PGS: AR + R dense (AR) or row-sparse (S), its inverse diagonal, the box of
// every scalar row, efc_b
typedef struct {
  int nefc;
  const mcNum* AR;                // dense nefc x nefc, or NULL
  const SparseAR* S;              // row-sparse when AR is NULL
  const mcNum* diaginv;           // 1 / (AR + R)_ii
  const mcNum* lo;                // box of the scalar rows: [-frictionloss, frictionloss] for
  const mcNum* hi;                // friction loss, [0, inf) for limits and contacts, free for
                                  // equalities (elliptic rows: unused)
  const mcNum* b;
  int elliptic;                   // some row is an elliptic contact (dense AR only)
} DualProblem;


// box of each scalar row in lo, hi; return 1 if a row is elliptic
static int rowBounds(const mcData* d, mcNum* lo, mcNum* hi) {
  int elliptic = 0;
  for (int i = 0; i < d->nefc; i++) {
    int type = d->efc_type[i];
    if (type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON) {
      lo[i] = -d->efc_frictionloss[i];
      hi[i] = d->efc_frictionloss[i];
    } else {
      lo[i] = type == mcCNSTR_EQUALITY ? -INFINITY : 0;
      hi[i] = INFINITY;
    }
    elliptic |= type == mcCNSTR_CONTACT_ELLIPTIC;
  }
  return elliptic;
}


// v clamped to the box of scalar row i (lo > v ? lo : v, then hi < v ? hi : v: NaN is kept)
static inline mcNum clampBox(const DualProblem* P, int i, mcNum v) {
  v = P->lo[i] > v ? P->lo[i] : v;
  return P->hi[i] < v ? P->hi[i] : v;
}


// one Gauss-Seidel sweep in row order with the dense AR: each scalar row moves to the minimum of
// the dual cost along it, v = f_i - res_i / AR_ii with res = AR f + b, clamped to its box. The
// long sum of row i does not wait for row i - 1: it is taken while f[i-1] still holds its old
// value op (the new value vp is stored after it) and row i - 1 enters as
//   v = w - c vp,  w = f_i - (sum + b_i) / AR_ii + c op,  c = AR_i,i-1 / AR_ii
// (the pending update is stored before an elliptic block). Return the cost decrease summed over
// the row updates, the rows whose force changed sign (nchange) and the non-zero forces after the
// sweep (nactive).
static mcNum sweepDense(const mcData* d, const DualProblem* P, mcNum* f, int* nchange,
                        int* nactive) {
  int nefc = P->nefc;
  const mcNum* b = P->b;
  mcNum improvement = 0, pv = 0, pold = 0;
  int change = 0, active = 0, pend = -1;
  for (int i = 0; i < nefc; i++) {
    if (P->elliptic && d->efc_type[i] == mcCNSTR_CONTACT_ELLIPTIC) {
      if (pend >= 0) {
        f[pend] = pv;
        pend = -1;
        pv = pold = 0;
      }
      const mcContact* con = d->contact + d->efc_id[i];
      improvement -= ellipticUpdate(P->AR, b, f, i, con->dim, con, nefc, 0);
      for (int k = 0; k < con->dim; k++) {
        active += f[i + k] != 0;
      }
      i += con->dim - 1;
      continue;
    }
    const mcNum* row = P->AR + (size_t)i * nefc;
    mcNum dinv = P->diaginv[i], old = f[i];
    mcNum sum = mcs_dot(row, f, nefc) + b[i];
    mcNum a = 0;
    if (pend >= 0) {
      f[pend] = pv;
      a = row[pend];
    }
    mcNum c = a * dinv;
    mcNum w = (old - sum * dinv) + c * pold;
    mcNum v = clampBox(P, i, w - c * pv);
    mcNum delta = v - old, res = sum + a * (pv - pold);
    improvement -= delta * (res + 0.5 * row[i] * delta);
    change += (old > 0) != (v > 0);
    active += v != 0;
    pend = i;
    pv = v;
    pold = old;
  }
  if (pend >= 0) {
    f[pend] = pv;
  }
  *nchange = change;
  *nactive = active;
  return improvement;
}


// one Gauss-Seidel sweep in row order with the row-sparse AR (no elliptic rows), as sweepDense
static mcNum sweepSparse(const DualProblem* P, mcNum* f, int* nchange, int* nactive) {
  const SparseAR* S = P->S;
  mcNum improvement = 0;
  int change = 0, active = 0;
  for (int i = 0; i < P->nefc; i++) {
    const int* col = S->col + S->adr[i];
    const mcNum* val = S->val + S->adr[i];
    mcNum res = P->b[i];
    for (int k = 0; k < S->nnz[i]; k++) {
      res += val[k] * f[col[k]];
    }
    mcNum old = f[i];
    mcNum v = clampBox(P, i, old - res * P->diaginv[i]);
    mcNum delta = v - old;
    improvement -= delta * (res + 0.5 * val[0] * delta);
    f[i] = v;
    change += (old > 0) != (v > 0);
    active += v != 0;
  }
  *nchange = change;
  *nactive = active;
  return improvement;
}


void mcs_pgs(const mcpHost* host, const mcModel* m, mcData* d, int maxiter) {
  int nv = m->nv, nefc = d->nefc;
  d->solver_iter = 0;
  if (nefc == 0) {
    mcs_unconstrained(m, d);
    return;
  }
  mcs_warmstartDual(host, m, d);

  host->markStack(d);
  DualProblem P;
  memset(&P, 0, sizeof(P));
  P.nefc = nefc;
  P.b = d->efc_b;

  // row-sparse AR with the sparse Jacobian (elliptic blocks need the dense rows)
  SparseAR S;
  int sparse = d->efc_J_rownnz != NULL;
  for (int i = 0; i < nefc && sparse; i++) {
    sparse = d->efc_type[i] != mcCNSTR_CONTACT_ELLIPTIC;
  }
  if (sparse && makeSparseAR(host, m, d, &S)) {
    P.S = &S;
    P.diaginv = S.diaginv;
  } else {
    host->freeStack(d);
    host->markStack(d);

    // dense AR, its inverse diagonal in the nefc x nv scratch (no longer needed then)
    mcNum* AR = host->stackAlloc(d, sizeof(mcNum) * ((size_t)nefc * nefc + (size_t)nefc * nv),
                                 16);
    if (AR && makeAR(host, m, d, AR, AR + (size_t)nefc * nefc, 1)) {
      mcNum* diaginv = AR + (size_t)nefc * nefc;
      for (int i = 0; i < nefc; i++) {
        diaginv[i] = 1 / AR[(size_t)i * nefc + i];
      }
      d->solver_nnz = nefc * nefc;
      P.AR = AR;
      P.diaginv = diaginv;
    }
  }
  mcNum* lo = P.diaginv ? host->stackAlloc(d, sizeof(mcNum) * 2 * (size_t)nefc, 16) : NULL;
  if (!lo) {
    // the stack is full (warned): no constraint force
    host->freeStack(d);
    memset(d->efc_force, 0, sizeof(mcNum) * nefc);
    dualFinish(host, m, d);
    return;
  }
  P.lo = lo;
  P.hi = lo + nefc;
  P.elliptic = rowBounds(d, lo, lo + nefc);

  // sweeps until the scaled improvement falls below the tolerance
  mcNum* f = d->efc_force;
  mcNum scale = mcs_scale(m, d), tol = m->opt.tolerance;
  int iter = 0;
  while (iter < maxiter) {
    int nchange, nactive;
    mcNum improvement = P.AR ? sweepDense(d, &P, f, &nchange, &nactive)
                             : sweepSparse(&P, f, &nchange, &nactive);
    mcSolverStat* stat = d->solver + (iter < mcNSOLVER ? iter : mcNSOLVER - 1);
    memset(stat, 0, sizeof(*stat));
    stat->improvement = scale * improvement;
    stat->nchange = nchange;
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
  // A without the regularizer; efc_b (J qacc_smooth - aref) is the core's
  if (!AR || !makeAR(host, m, d, AR, AR + (size_t)nefc * nefc, 0)) {
    host->freeStack(d);
    return;
  }
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
