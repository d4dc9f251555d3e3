// Solver plugins against MuJoCo 2.2.2: efc_force and qacc for Newton (1e-6), CG and PGS (1e-4)
// on limits, friction loss, equality and contact scenes with both cones; robustness.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../constraint/bridge.h"

#define MODEL_DIR MODUCO_SOURCE_DIR "/tests/constraint/models/"

static const char* const kSolverName[3] = {"pgs", "cg", "newton"};


static int g_settle = 0;         // MuJoCo steps taken after the perturbation (contact scenes)
static int g_sparse = 0;         // both engines on the sparse Jacobian (row-sparse efc_J)


// sparse mode: efc_J is row-sparse only (no dense copy), with ascending columns, and holds
// MuJoCo's rows (its efc_J scattered dense): every value to 1e-9, every non-zero of MuJoCo's
static void checkSparseJ(const Bridge* b) {
  const mcModel* m = b->mc;
  const mcData* d = b->dc;
  const mjData* r = b->dj;
  int nv = m->nv;
  cr_assert(d->nefc == 0 || d->efc_J_rownnz, "sparse Jacobian requested but not built");
  cr_assert_null(d->efc_J, "dense efc_J filled in sparse mode");
  double* ref = calloc((size_t)nv + 1, sizeof(double));
  cr_assert_not_null(ref);
  for (int i = 0; i < d->nefc; i++) {
    memset(ref, 0, sizeof(double) * nv);
    if (mj_isSparse(b->mj)) {
      for (int k = 0; k < r->efc_J_rownnz[i]; k++) {
        ref[r->efc_J_colind[r->efc_J_rowadr[i] + k]] = r->efc_J[r->efc_J_rowadr[i] + k];
      }
    } else {
      memcpy(ref, r->efc_J + (size_t)i * nv, sizeof(double) * nv);
    }
    int adr = d->efc_J_rowadr[i], n = d->efc_J_rownnz[i];
    for (int k = 0; k < n; k++) {
      int c = d->efc_J_colind[adr + k];
      double v = d->efc_J_val[adr + k];
      cr_assert(k == 0 || c > d->efc_J_colind[adr + k - 1], "row %d: columns not ascending", i);
      cr_assert(fabs(v - ref[c]) <= 1e-9 * fmax(1, fabs(ref[c])), "row %d col %d: %.17g vs "
                "mujoco %.17g", i, c, v, ref[c]);
      ref[c] = 0;
    }
    for (int c = 0; c < nv; c++) {
      cr_assert(fabs(ref[c]) <= 1e-9, "row %d col %d: mujoco %.17g not in the sparse row", i, c,
                ref[c]);
    }
  }
  free(ref);
}


static void randomState(Bridge* b, unsigned seed, double qscale, double vscale) {
  unsigned long long s = 88172645463325252ULL + seed * 2654435761ULL;
  const mjModel* m = b->mj;
  mjData* d = b->dj;
  mj_resetData(m, d);
  if (g_settle) {
    vscale = 0;
  }
  for (int i = 0; i < m->nq; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    d->qpos[i] += qscale * ((double)(s % 20001) / 10000.0 - 1);
  }
  mj_normalizeQuat(m, d->qpos);
  for (int i = 0; i < m->nv; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    d->qvel[i] = vscale * ((double)(s % 20001) / 10000.0 - 1);
  }
  for (int k = 0; k < g_settle; k++) {
    mj_step(m, d);
  }
}


// one forward solve in both engines; return the worst relative error of force and qacc
static double solveCompare(const char* file, int solver, int cone, unsigned seed, double qscale,
                           double tol, int report) {
  char error[1000];
  Bridge b;
  cr_assert(bridge_loadFile(&b, file, error, sizeof(error)) == 0, "%s: %s", file, error);
  b.mj->opt.solver = solver;
  if (cone >= 0) {
    b.mj->opt.cone = cone;
  }
  if (g_sparse) {
    b.mj->opt.jacobian = mjJAC_SPARSE;
  }
  const mcpSolver* s = bridge_solver(kSolverName[solver]);
  cr_assert(s, "solver plugin %s not built", kSolverName[solver]);
  randomState(&b, seed, qscale, 0.5);
  bridge_forward(&b);
  bridge_solve(&b, s);
  const mjData* r = b.dj;
  const mcData* d = b.dc;
  cr_assert_eq(d->nefc, r->nefc);
  if (g_sparse) {
    checkSparseJ(&b);
  }
  int at1, at2;
  double ef = bridge_err(d->efc_force, r->efc_force, r->nefc, &at1);
  double ea = bridge_err(d->qacc, r->qacc, b.mj->nv, &at2);
  cr_expect(ef <= tol, "%s %s cone %d seed %u: efc_force[%d] %.10g vs %.10g (err %.3g, iter %d/%d)",
            file, kSolverName[solver], b.mj->opt.cone, seed, at1, at1 >= 0 ? d->efc_force[at1] : 0,
            at1 >= 0 ? r->efc_force[at1] : 0, ef, d->solver_iter, r->solver_iter);
  cr_expect(ea <= tol, "%s %s cone %d seed %u: qacc[%d] %.10g vs %.10g (err %.3g)", file,
            kSolverName[solver], b.mj->opt.cone, seed, at2, at2 >= 0 ? d->qacc[at2] : 0,
            at2 >= 0 ? r->qacc[at2] : 0, ea);
  double qe = bridge_err(d->qfrc_constraint, r->qfrc_constraint, b.mj->nv, NULL);
  cr_expect(qe <= tol * 10, "%s: qfrc_constraint err %.3g", file, qe);
  if (report) {
    fprintf(stderr,
            "[solver] %-14s %-6s cone %d nefc %3d force err %.2e qacc err %.2e iter %d/%d\n",
            strrchr(file, '/') + 1, kSolverName[solver], b.mj->opt.cone, r->nefc, ef, ea,
            d->solver_iter, r->solver_iter);
  }
  bridge_free(&b);
  return fmax(ef, ea);
}


static void sweep(const char* file, int cone, double qscale, int nseed) {
  double tol[3] = {1e-4, 1e-4, 1e-6};
  for (int solver = 2; solver >= 0; solver--) {
    double worst = 0;
    for (unsigned seed = 0; seed < (unsigned)nseed; seed++) {
      worst = fmax(worst, solveCompare(file, solver, cone, seed, qscale, tol[solver], 0));
    }
    fprintf(stderr, "[solver] %-18s %-6s cone %d: worst relative error %.2e over %d states\n",
            strrchr(file, '/') + 1, kSolverName[solver], cone, worst, nseed);
  }
}


Test(solver, limits_frictionloss) {
  sweep(MODEL_DIR "limits.xml", -1, 0.4, 10);
}


Test(solver, equality) {
  sweep(MODEL_DIR "equality.xml", -1, 0.3, 10);
}


Test(solver, contact_pyramidal) {
  sweep(MODEL_DIR "box_pyramidal.xml", -1, 0.01, 10);
}


Test(solver, contact_elliptic) {
  sweep(MODEL_DIR "box_elliptic.xml", -1, 0.01, 10);
}


Test(solver, humanoid_pyramidal) {
  g_settle = 300;
  sweep("/usr/share/mujoco/model/humanoid/humanoid.xml", mjCONE_PYRAMIDAL, 0.02, 5);
}


Test(solver, humanoid_elliptic) {
  g_settle = 300;
  sweep("/usr/share/mujoco/model/humanoid/humanoid.xml", mjCONE_ELLIPTIC, 0.02, 5);
}


// the same scenes on the sparse Jacobian (sparse Hessian and rank-1 updates in Newton); limits.xml
// is left out: with a sparse Jacobian MuJoCo stores ten_J row-sparse, which the bridge copies dense
Test(solver_sparse, equality) {
  g_sparse = 1;
  sweep(MODEL_DIR "equality.xml", -1, 0.3, 10);
}


Test(solver_sparse, contact_pyramidal) {
  g_sparse = 1;
  sweep(MODEL_DIR "box_pyramidal.xml", -1, 0.01, 10);
}


Test(solver_sparse, contact_elliptic) {
  g_sparse = 1;
  sweep(MODEL_DIR "box_elliptic.xml", -1, 0.01, 10);
}


Test(solver_sparse, humanoid_pyramidal) {
  g_sparse = 1;
  g_settle = 300;
  sweep("/usr/share/mujoco/model/humanoid/humanoid.xml", mjCONE_PYRAMIDAL, 0.02, 5);
}


Test(solver_sparse, humanoid_elliptic) {
  g_sparse = 1;
  g_settle = 300;
  sweep("/usr/share/mujoco/model/humanoid/humanoid.xml", mjCONE_ELLIPTIC, 0.02, 5);
}


// noslip postsolver after PGS or Newton (MuJoCo runs it inside mj_forward when
// noslip_iterations > 0): efc_force and qacc agree to 1e-4 relative (1e-6 after Newton), the
// iteration count (main + noslip) matches; returns the worst error
static double noslipCompare(const char* file, int solver, int cone, unsigned seed, double qscale,
                            int nsi) {
  char error[1000];
  Bridge b;
  cr_assert(bridge_loadFile(&b, file, error, sizeof(error)) == 0, "%s: %s", file, error);
  b.mj->opt.solver = solver;
  b.mj->opt.noslip_iterations = nsi;
  if (cone >= 0) {
    b.mj->opt.cone = cone;
  }
  const mcpSolver* s = bridge_solver(kSolverName[solver]);
  const mcpPostsolver* ns = bridge_postsolver("noslip");
  cr_assert(s && ns, "solver plugins not built");
  randomState(&b, seed, qscale, 0.5);
  bridge_forward(&b);
  bridge_solve(&b, s);
  ns->solve(bridge_host(), b.mc, b.dc, b.mc->opt.noslip_iterations);
  const mjData* r = b.dj;
  const mcData* d = b.dc;
  cr_assert_eq(d->nefc, r->nefc);
  double tol = solver == mjSOL_NEWTON ? 1e-6 : 1e-4;
  int at1, at2;
  double ef = bridge_err(d->efc_force, r->efc_force, r->nefc, &at1);
  double ea = bridge_err(d->qacc, r->qacc, b.mj->nv, &at2);
  cr_expect(ef <= tol, "%s %s+noslip seed %u: efc_force[%d] %.10g vs %.10g (err %.3g)", file,
            kSolverName[solver], seed, at1, at1 >= 0 ? d->efc_force[at1] : 0,
            at1 >= 0 ? r->efc_force[at1] : 0, ef);
  cr_expect(ea <= tol, "%s %s+noslip seed %u: qacc[%d] %.10g vs %.10g (err %.3g)", file,
            kSolverName[solver], seed, at2, at2 >= 0 ? d->qacc[at2] : 0,
            at2 >= 0 ? r->qacc[at2] : 0, ea);
  cr_expect_eq(d->solver_iter, r->solver_iter, "%s %s+noslip seed %u: iterations", file,
               kSolverName[solver], seed);
  bridge_free(&b);
  return fmax(ef, ea);
}


static void noslipSweep(const char* file, int cone, double qscale, int nseed, int nsi) {
  const int solvers[2] = {mjSOL_PGS, mjSOL_NEWTON};
  for (int k = 0; k < 2; k++) {
    double worst = 0;
    for (unsigned seed = 0; seed < (unsigned)nseed; seed++) {
      worst = fmax(worst, noslipCompare(file, solvers[k], cone, seed, qscale, nsi));
    }
    fprintf(stderr, "[noslip] %-18s %-6s cone %d noslip %2d: worst relative error %.2e over %d"
            " states\n", strrchr(file, '/') + 1, kSolverName[solvers[k]], cone, nsi, worst,
            nseed);
  }
}


Test(noslip, contact_pyramidal) {
  noslipSweep(MODEL_DIR "box_pyramidal.xml", -1, 0.01, 10, 10);
  noslipSweep(MODEL_DIR "box_pyramidal.xml", -1, 0.01, 10, 2);
}


Test(noslip, contact_elliptic) {
  noslipSweep(MODEL_DIR "box_elliptic.xml", -1, 0.01, 10, 10);
  noslipSweep(MODEL_DIR "box_elliptic.xml", -1, 0.01, 10, 1);
}


Test(noslip, frictionloss) {
  noslipSweep(MODEL_DIR "limits.xml", -1, 0.4, 10, 10);
  noslipSweep(MODEL_DIR "equality.xml", -1, 0.3, 10, 10);
}


Test(noslip, humanoid) {
  g_settle = 300;
  noslipSweep("/usr/share/mujoco/model/humanoid/humanoid.xml", mjCONE_PYRAMIDAL, 0.02, 5, 10);
  noslipSweep("/usr/share/mujoco/model/humanoid/humanoid.xml", mjCONE_ELLIPTIC, 0.02, 5, 10);
}
