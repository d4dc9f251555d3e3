// Newton's sparse Hessian factor (plugins/solver-common/solver_sparse.c): the rows of efc_J with
// the same columns are listed by columns once (the first row of each run) and added to H
// together. The factor L (H = L' L) must reproduce M + J' D J + the cone Hessians assembled
// densely here row by row, for every mix of row states within the runs (quadratic, satisfied,
// middle zone of an elliptic cone), and the runs must be exactly the maximal blocks of
// consecutive rows with equal columns. Rank-1 updates for many changed rows must match a fresh
// factorization, and Newton must use them (not refactor) on humanoid100's moves with many
// changes when they cost less.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>
#include "capsule_pile.h"
#include "plugin/registry.h"
#include "solver.h"

#define NBODY 6


// rows a and b of efc_J have the same columns
static int sameColumns(const mcData* d, int a, int b) {
  return d->efc_J_rownnz[a] == d->efc_J_rownnz[b] &&
         !memcmp(d->efc_J_colind + d->efc_J_rowadr[a], d->efc_J_colind + d->efc_J_rowadr[b],
                 sizeof(int) * (size_t)d->efc_J_rownnz[a]);
}


// row r of efc_J as a dense vector
static void denseRow(const mcData* d, int r, int nv, double* out) {
  memset(out, 0, sizeof(double) * (size_t)nv);
  for (int k = 0; k < d->efc_J_rownnz[r]; k++) {
    out[d->efc_J_colind[d->efc_J_rowadr[r] + k]] = d->efc_J_val[d->efc_J_rowadr[r] + k];
  }
}


// H = M + J' D J over the quadratic rows + J_c' H_c J_c over the contacts in the cone zone
static void denseHessian(const mcModel* m, const mcData* d, double* H) {
  int nv = m->nv;
  memset(H, 0, sizeof(double) * (size_t)nv * nv);
  for (int i = 0; i < nv; i++) {
    int adr = m->dof_Madr[i];
    H[i * nv + i] = d->qM[adr++];
    for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j]) {
      H[i * nv + j] = H[j * nv + i] = d->qM[adr++];
    }
  }
  double* a = malloc(sizeof(double) * 2 * (size_t)nv);
  double* b = a + nv;
  for (int r = 0; r < d->nefc; r++) {
    if (d->efc_state[r] == mcCNSTRSTATE_QUADRATIC) {
      denseRow(d, r, nv, a);
      for (int i = 0; i < nv; i++) {
        for (int j = 0; j < nv; j++) {
          H[i * nv + j] += d->efc_D[r] * a[i] * a[j];
        }
      }
    } else if (d->efc_state[r] == mcCNSTRSTATE_CONE) {
      const mcContact* con = d->contact + d->efc_id[r];
      int dim = con->dim, ra = r - con->efc_address;
      denseRow(d, r, nv, a);
      for (int q = 0; q < dim; q++) {
        denseRow(d, con->efc_address + q, nv, b);
        for (int i = 0; i < nv; i++) {
          for (int j = 0; j < nv; j++) {
            H[i * nv + j] += con->H[ra * dim + q] * a[i] * b[j];
          }
        }
      }
    }
  }
  free(a);
}


// largest |(L' L - H)_ij| / max(1, |H_ij|)
static double factorError(const mcsSparseH* S, const double* H) {
  int nv = S->nv;
  double* L = calloc((size_t)nv * nv, sizeof(double));
  for (int k = 0; k < nv; k++) {
    for (int q = 0; q < S->rownnz[k]; q++) {
      L[k * nv + S->colind[S->rowadr[k] + q]] = S->val[S->rowadr[k] + q];
    }
  }
  double err = 0;
  for (int i = 0; i < nv; i++) {
    for (int j = 0; j < nv; j++) {
      double s = 0;
      for (int k = 0; k < nv; k++) {
        s += L[k * nv + i] * L[k * nv + j];
      }
      double e = fabs(s - H[i * nv + j]) / fmax(1, fabs(H[i * nv + j]));
      err = e > err ? e : err;
    }
  }
  free(L);
  return err;
}


// the solves' reciprocals of L's diagonal are those of the current factor
static void checkInverseDiagonal(const mcsSparseH* S, const char* when) {
  for (int k = 0; k < S->nv; k++) {
    double lkk = S->val[S->rowadr[k] + S->rownnz[k] - 1];
    cr_assert_leq(fabs(S->idiag[k] * lkk - 1), 1e-15, "1 / L[%d, %d] out of step %s", k, k, when);
  }
}


// from the factor S of the current states: new states at other random points, rank-1 updates
// for every row whose quadratic state changed (additions, then removals, as Newton does when the
// updates cost less than a factorization), compared with a fresh factorization at the new states
// (scenes without rows in the middle zone of a cone: its Hessian is no rank-1 term); return the
// number of updates
static int checkUpdates(const mcModel* m, mcData* d, mcsSparseH* S, unsigned seed) {
  int nv = m->nv, nefc = d->nefc;
  int* old = malloc(sizeof(int) * (size_t)nefc);
  double* jar = malloc(sizeof(double) * (size_t)nefc);
  double* w = calloc((size_t)nv, sizeof(double));
  double* fresh = malloc(sizeof(double) * (size_t)S->nnz);
  memcpy(old, d->efc_state, sizeof(int) * (size_t)nefc);
  srand(seed + 1000);
  for (int r = 0; r < nefc; r++) {
    jar[r] = (double)rand() / RAND_MAX - 0.5;
  }
  mcs_constraintUpdate(m, d, jar, 1);
  int changes = 0, ok = 1;
  for (int r = 0; r < nefc; r++) {
    cr_assert(old[r] != mcCNSTRSTATE_CONE && d->efc_state[r] != mcCNSTRSTATE_CONE);
  }
  for (int pass = 0; pass < 2; pass++) {
    for (int r = 0; r < nefc; r++) {
      int now = d->efc_state[r] == mcCNSTRSTATE_QUADRATIC;
      int was = old[r] == mcCNSTRSTATE_QUADRATIC;
      if (now != was && now == (pass == 0)) {
        ok = ok && mcs_sparseUpdate(d, S, r, now ? d->efc_D[r] : -d->efc_D[r], w);
        changes++;
      }
    }
  }
  cr_assert(ok, "a downdate failed (seed %u)", seed);
  checkInverseDiagonal(S, "after the updates");
  memcpy(fresh, S->val, sizeof(double) * (size_t)S->nnz);
  mcs_sparseFactor(m, d, S);
  double err = 0;
  for (int k = 0; k < S->nnz; k++) {
    double e = fabs(fresh[k] - S->val[k]) / fmax(1, fabs(S->val[k]));
    err = e > err ? e : err;
  }
  cr_assert_leq(err, 1e-9, "%d updates differ from the factorization by %g (seed %u)", changes,
                err, seed);
  free(old);
  free(jar);
  free(w);
  free(fresh);
  return changes;
}


// states at random points jar around zero (each row's zone, the cone Hessians), the factor, and
// its check; return the number of runs holding two or more quadratic rows and, through mixed,
// of runs holding both a cone row and a quadratic row; with updates (pyramidal cones), the
// number of rank-1 updates checked by checkUpdates
static int longRuns;  // runs with more than eight quadratic rows (the assembly adds eight a call)

static int checkFactor(const mcModel* m, mcData* d, unsigned seed, int* mixed, int* updates) {
  const mcpHost* host = mcp_host();
  int nv = m->nv, nefc = d->nefc;
  double* jar = malloc(sizeof(double) * (size_t)nefc);
  srand(seed);
  for (int r = 0; r < nefc; r++) {
    jar[r] = (double)rand() / RAND_MAX - 0.5;
  }
  mcs_constraintUpdate(m, d, jar, 1);
  free(jar);

  host->markStack(d);
  mcsSparseH S;
  cr_assert(mcs_sparseSymbolic(host, m, d, &S, NULL), "no stack for the symbolic pass");

  // runs: maximal, and the only rows listed by columns
  int grouped = 0;
  *mixed = 0;
  for (int r = 0; r < nefc; r += S.rrun[r]) {
    cr_assert(S.rrun[r] >= 1 && r + S.rrun[r] <= nefc);
    int nq = 0, nc = 0;
    for (int q = r; q < r + S.rrun[r]; q++) {
      cr_assert(sameColumns(d, r, q), "row %d in the run of row %d has other columns", q, r);
      cr_assert_eq(S.rrun[q], S.rrun[r] - (q - r));
      nq += d->efc_state[q] == mcCNSTRSTATE_QUADRATIC;
      nc += d->efc_state[q] == mcCNSTRSTATE_CONE;
    }
    int end = r + S.rrun[r];
    cr_assert(end == nefc || !sameColumns(d, r, end), "run of row %d not maximal", r);
    grouped += nq >= 2;
    *mixed += nq > 0 && nc > 0;
    longRuns += nq > 8;
  }
  for (int c = 0; c < nv; c++) {
    for (int t = S.jcoladr[c]; t < S.jcoladr[c + 1]; t++) {
      int r = S.jrow[t];
      cr_assert(r == 0 || S.rrun[r - 1] == 1 || !sameColumns(d, r - 1, r),
                "column %d lists row %d, not the first of its run", c, r);
      cr_assert_eq(d->efc_J_colind[d->efc_J_rowadr[r] + S.jpos[t]], c);
    }
  }

  // rows of L: columns strictly ascending, the diagonal last, every ancestor of the dof in M
  // (the symbolic pass sorts them merged with the fill of the constraint rows)
  for (int k = 0; k < nv; k++) {
    const int* ck = S.colind + S.rowadr[k];
    int n = S.rownnz[k];
    cr_assert(n >= 1 && ck[n - 1] == k, "row %d of L does not end on its diagonal", k);
    for (int q = 0; q + 1 < n; q++) {
      cr_assert_lt(ck[q], ck[q + 1], "row %d of L not ascending at %d", k, q);
    }
    for (int j = m->dof_parentid[k], q = n - 2; j >= 0; j = m->dof_parentid[j]) {
      while (q >= 0 && ck[q] > j) {
        q--;
      }
      cr_assert(q >= 0 && ck[q] == j, "row %d of L misses its ancestor %d", k, j);
    }
  }

  mcs_sparseFactor(m, d, &S);
  double* H = malloc(sizeof(double) * (size_t)nv * nv);
  denseHessian(m, d, H);
  double err = factorError(&S, H);
  checkInverseDiagonal(&S, "after the factorization");
  cr_assert_leq(err, 1e-10, "L'L differs from M + J'DJ by %g (seed %u)", err, seed);
  free(H);
  if (updates) {
    *updates = checkUpdates(m, d, &S, seed);
  }
  host->freeStack(d);
  return grouped;
}


static void run(const char* cone, int wantMixed) {
  char option[256];
  snprintf(option, sizeof(option), "timestep=\"0.005\" solver=\"newton\" jacobian=\"sparse\" "
           "cone=\"%s\"", cone);
  mcModel* m = capsulePile(option, NBODY, 1);
  mcData* d = mc_makeData(m);
  int grouped = 0, mixed = 0, checks = 0, updates = 0;
  for (int k = 0; k < 300; k++) {
    mc_step(m, d);
    if (k % 25 == 24) {
      mc_forward(m, d);
      if (d->nefc == 0) {
        continue;
      }
      cr_assert(d->efc_J_rownnz, "the scene runs on the row-sparse Jacobian");
      for (unsigned seed = 1; seed <= 3; seed++) {
        int mix, upd = 0;
        grouped += checkFactor(m, d, seed + 7 * k, &mix, wantMixed ? NULL : &upd);
        mixed += mix;
        updates += upd;
        checks++;
      }
    }
  }
  cr_assert_gt(grouped, checks, "too few runs with several quadratic rows: %d", grouped);
  if (wantMixed) {
    cr_assert_gt(mixed, 0, "no run mixes cone and quadratic rows");
  } else {
    cr_assert_gt(updates, 20 * checks, "too few rank-1 updates checked: %d", updates);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(sparse_factor, pyramidal_runs) {
  run("pyramidal", 0);
}


Test(sparse_factor, elliptic_runs) {
  run("elliptic", 1);
}


// 22_humanoids (feet on the floor: runs of more than eight quadratic rows, which the assembly
// adds eight at a time): the factor against the dense M + J' D J at random states
Test(sparse_factor, long_runs) {
  char error[1024] = "";
  mcModel* m = mc_loadXML("/usr/share/mujoco/model/humanoid/22_humanoids.xml", error,
                          sizeof(error));
  cr_assert(m, "load: %s", error);
  mcData* d = mc_makeData(m);
  longRuns = 0;
  int grouped = 0, mixed = 0;
  for (int k = 0; k < 150; k++) {
    mc_step(m, d);
    if (k % 50 == 49 && d->nefc > 0) {
      mc_forward(m, d);
      cr_assert(d->efc_J_rownnz, "22_humanoids runs on the row-sparse Jacobian");
      grouped += checkFactor(m, d, (unsigned)k, &mixed, NULL);
    }
  }
  cr_assert_gt(grouped, 0, "no run with several quadratic rows");
  cr_assert_gt(longRuns, 0, "no run with more than eight quadratic rows");
  mc_deleteData(d);
  mc_deleteModel(m);
}


// humanoid100 (a humanoid and 100 free objects, the sparse path): Newton updates its factor
// instead of refactoring it after moves that change more rows than the old fixed limit of
// 8 + nv / 16, when the updates cost less than a factorization
Test(sparse_factor, many_changes_update) {
  char error[1024] = "";
  mcModel* m = mc_loadXML("/usr/share/mujoco/model/humanoid100/humanoid100.xml", error,
                          sizeof(error));
  cr_assert(m, "load: %s", error);
  mcData* d = mc_makeData(m);
  int many = 0, updated = 0;
  for (int k = 0; k < 300; k++) {
    mc_step(m, d);
    cr_assert(d->nefc == 0 || d->efc_J_rownnz, "humanoid100 runs on the row-sparse Jacobian");
    for (int t = 0; t + 1 < d->solver_iter && t < mcNSOLVER; t++) {
      const mcSolverStat* s = d->solver + t;
      if (s->nchange > 8 + m->nv / 16) {
        many++;
        updated += s->nupdate == s->nchange;
      }
    }
  }
  cr_assert_gt(many, 10, "too few iterations with many changes: %d", many);
  cr_assert_gt(updated, many / 2, "%d of %d moves with many changes updated", updated, many);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// J v and J' f over runs of rows with the same columns (Newton's products on the sparse path)
// are bitwise those of the rows one by one, rows with f 0 included (they add nothing, not +0)
Test(sparse_factor, run_products) {
  mcModel* m = capsulePile("timestep=\"0.005\" solver=\"newton\" jacobian=\"sparse\"", NBODY, 1);
  mcData* d = mc_makeData(m);
  const mcpHost* host = mcp_host();
  int nv = m->nv, longRuns = 0;
  for (int k = 0; k < 300; k++) {
    mc_step(m, d);
    if (k % 20 != 19 || d->nefc == 0) {
      continue;
    }
    mc_forward(m, d);
    int nefc = d->nefc;
    host->markStack(d);
    mcsSparseH S;
    cr_assert(mcs_sparseSymbolic(host, m, d, &S, NULL), "no stack for the symbolic pass");
    double* v = malloc(sizeof(double) * (4 * (size_t)nefc + 3 * (size_t)nv));
    double *f = v + nv, *a = f + nefc, *b = a + nefc, *ta = b + nefc, *tb = ta + nv;
    srand(k);
    for (int i = 0; i < nv; i++) {
      v[i] = (double)rand() / RAND_MAX - 0.5;
    }
    for (int r = 0; r < nefc; r++) {
      f[r] = r % 3 == 1 ? (r % 2 ? -0.0 : 0.0) : (double)rand() / RAND_MAX - 0.5;
      longRuns += S.rrun[r] >= 3;
    }
    const int *nnz = d->efc_J_rownnz, *adr = d->efc_J_rowadr, *col = d->efc_J_colind;
    mcs_mulRows(nefc, nnz, adr, col, d->efc_J_val, S.rrun, a, v);
    mcs_mulRows(nefc, nnz, adr, col, d->efc_J_val, NULL, b, v);
    cr_assert(!memcmp(a, b, sizeof(double) * (size_t)nefc), "J v over runs differs (step %d)", k);
    for (int i = 0; i < nv; i++) {
      ta[i] = tb[i] = -0.0;
    }
    mcs_mulRowsT(nefc, nnz, adr, col, d->efc_J_val, S.rrun, ta, f);
    for (int r = 0; r < nefc; r++) {
      if (f[r] != 0) {
        for (int q = 0; q < nnz[r]; q++) {
          tb[col[adr[r] + q]] += f[r] * d->efc_J_val[adr[r] + q];
        }
      }
    }
    cr_assert(!memcmp(ta, tb, sizeof(double) * (size_t)nv), "J' f over runs differs (step %d)", k);
    free(v);
    host->freeStack(d);
  }
  cr_assert_gt(longRuns, 10, "too few runs of 3 or more rows: %d", longRuns);
  mc_deleteData(d);
  mc_deleteModel(m);
}
