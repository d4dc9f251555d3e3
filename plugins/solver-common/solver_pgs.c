// Moduco solver plugins: the noslip postsolver on the dense dual (B' and A = J inv(M) J'), and the
// elliptic block update and dual finish it shares with PGS (plugins/solver-pgs).
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


// solve (L L') x = b in place with the factor of cholStrict
void mcs_cholSolve(const mcNum* L, mcNum* x, int n) {
  // forward: L y = b
  for (int i = 0; i < n; i++) {
    const mcNum* Li = L + (size_t)i * n;
    x[i] = (x[i] - mcs_dot(Li, x, i)) / Li[i];
  }

  // backward: L' x = y, by rows of L (each solved entry is removed from the ones above it), two
  // rows at a time: the entries above both receive row i's term, then row i-1's, as one by one
  int i = n - 1;
  for (; i >= 1; i -= 2) {
    const mcNum* Li = L + (size_t)i * n;
    const mcNum* Lh = Li - n;
    mcNum xi = x[i] / Li[i];
    x[i] = xi;
    mcNum xh = (x[i - 1] - Li[i - 1] * xi) / Lh[i - 1];
    x[i - 1] = xh;
    for (int k = 0; k < i - 1; k++) {
      x[k] = x[k] - Li[k] * xi - Lh[k] * xh;
    }
  }
  if (i == 0) {
    x[0] /= L[0];
  }
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


mcNum mcs_ellipticUpdate(const mcNum* AR, int ld, const mcNum* b, mcNum* f, int adr, int dim,
                         const mcContact* con, int nefc, int frictiononly) {
  mcNum A[36], r[6];

  // local matrix and residual without the block's own contribution
  for (int a = 0; a < dim; a++) {
    const mcNum* row = AR + (size_t)(adr + a) * ld;
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


void mcs_dualFinish(const mcpHost* host, const mcModel* m, mcData* d) {
  host->mulJT(m, d, d->qfrc_constraint, d->efc_force);
  host->solveM(m, d, d->qacc, d->qfrc_constraint, 1);
  for (int i = 0; i < m->nv; i++) {
    d->qacc[i] += d->qacc_smooth[i];
  }
  dualStates(m, d);
  memcpy(d->qacc_warmstart, d->qacc, sizeof(mcNum) * m->nv);
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
          mcs_ellipticUpdate(AR, nefc, b, f, i, con->dim, con, nefc, 1);
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
  mcs_dualFinish(host, m, d);
}
