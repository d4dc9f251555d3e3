// Island solves of one large island (core/engine/island_solve.c): an island that leaves dofs out
// is solved in its view even when it is the only one, an island holding every dof is solved
// whole, the island solves make efc_b of their rows (the solver input), and a pile of boxes (one
// large island, alone or beside small ones) gives bitwise the same accelerations and forces
// without a pool and with 1, 2 and 3 threads, under Newton and CG. Built twice, like
// test_island.c: as a Criterion suite and, with ROLLOUT_PLAIN, as a plain program for
// ThreadSanitizer.
#ifdef ROLLOUT_PLAIN
#include "plain_test.h"
#else
#include <criterion/criterion.h>
#endif
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>

#include "engine/solver_contract.h"
#include "engine/threadpool.h"

// a column of six boxes on the floor (one island through their contacts); with far, a sphere
// floating far away (no rows: no island); with side, three single boxes apart on the floor (three
// small islands beside the column)
static const char* g_column =
  "    <geom type='plane' size='5 5 .1'/>"
  "    <body pos='0 0 .1'><freejoint/><geom type='box' size='.1 .1 .1'/></body>"
  "    <body pos='.01 0 .3'><freejoint/><geom type='box' size='.1 .1 .1'/></body>"
  "    <body pos='0 .01 .5'><freejoint/><geom type='box' size='.1 .1 .1'/></body>"
  "    <body pos='-.01 0 .7'><freejoint/><geom type='box' size='.1 .1 .1'/></body>"
  "    <body pos='0 -.01 .9'><freejoint/><geom type='box' size='.1 .1 .1'/></body>"
  "    <body pos='.02 .01 1.1'><freejoint/><geom type='box' size='.1 .1 .1'/></body>";
static const char* g_far =
  "    <body pos='3 3 3'><freejoint/><geom type='sphere' size='.1'/></body>";
static const char* g_side =
  "    <body pos='1 0 .1'><freejoint/><geom type='box' size='.1 .1 .1'/></body>"
  "    <body pos='-1 0 .1'><freejoint/><geom type='box' size='.1 .1 .1'/></body>"
  "    <body pos='0 1 .1'><freejoint/><geom type='sphere' size='.1'/></body>";


// the column with the optional parts, islands on, solver by name
static mcModel* loadScene(int far, int side, const char* solver) {
  char xml[4096], error[1024] = "";
  snprintf(xml, sizeof(xml),
           "<mujoco><option><flag island='enable'/></option><worldbody>%s%s%s</worldbody>"
           "</mujoco>", g_column, far ? g_far : "", side ? g_side : "");
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  cr_assert(m, "%s", error);
  cr_assert(mc_setSolver(m, solver, error, sizeof(error)) == 0, "%s", error);
  return m;
}


// the first dof of the far sphere (the last body of the column scene with far)
enum { FAR_DOF = 36 };


// islands on and off at the state of 30 steps with the given efc_J layout: the largest
// difference of the accelerations relative to the largest acceleration; checks the one island's
// solve on the way
static double oneIslandGap(const char* solver, int jacobian) {
  mcModel* m = loadScene(1, 0, solver);
  m->opt.jacobian = jacobian;
  m->opt.tolerance = 1e-10;
  m->opt.iterations = 200;
  mcData* a = mc_makeData(m);
  for (int i = 0; i < 30; i++) {
    mc_step(m, a);
  }
  mcData* b = mc_copyData(NULL, m, a);
  cr_assert(b);
  mc_forward(m, a);
  cr_expect_eq(a->nisland, 1);
  cr_expect(a->island_solved, "%s: one island leaving dofs out is solved in its view", solver);
  cr_expect((a->efc_J_rownnz != NULL) == (jacobian == mcJAC_SPARSE));
  cr_expect(a->island_dofnum[0] == 36 && a->dof_island[FAR_DOF] == -1);
  for (int k = FAR_DOF; k < m->nv; k++) {          // the floating sphere: unconstrained
    cr_expect(a->qacc[k] == a->qacc_smooth[k] && a->qfrc_constraint[k] == 0);
  }

  // efc_b made by the island solve: J qacc_smooth - aref, bit for bit
  mcNum b0[512];
  cr_assert(a->nefc > 0 && a->nefc <= 512, "nefc %d", a->nefc);
  mc_mulJ(m, a, b0, a->qacc_smooth);
  for (int i = 0; i < a->nefc; i++) {
    mcNum want = b0[i] - a->efc_aref[i];
    cr_expect(memcmp(&want, a->efc_b + i, sizeof(mcNum)) == 0, "efc_b[%d]", i);
  }

  // the whole problem at the same state; the gap relative to its largest acceleration
  m->opt.enableflags &= ~mcENBL_ISLAND;
  mc_forward(m, b);
  cr_expect(!b->island_solved);
  double worst[2] = {0, 1e-9};
  for (int i = 0; i < m->nv; i++) {
    worst[0] = fmax(worst[0], fabs(a->qacc[i] - b->qacc[i]));
    worst[1] = fmax(worst[1], fabs(b->qacc[i]));
  }
  mc_deleteData(a);
  mc_deleteData(b);
  mc_deleteModel(m);
  return worst[0] / worst[1];
}


Test(island_one, partial_island_solved_in_its_view) {
  for (int jac = mcJAC_DENSE; jac <= mcJAC_SPARSE; jac++) {
    double gnewton = oneIslandGap("newton", jac);
    double gcg = oneIslandGap("cg", jac);
    cr_expect(gnewton < 1e-6, "newton, jacobian %d: relative gap %g", jac, gnewton);
    cr_expect(gcg < 1e-3, "cg, jacobian %d: relative gap %g", jac, gcg);
  }
}


Test(island_one, island_holding_every_dof_solved_whole) {
  mcModel* m = loadScene(0, 0, "newton");
  mcData* d = mc_makeData(m);
  for (int i = 0; i < 30; i++) {
    mc_step(m, d);
  }
  cr_expect_eq(d->nisland, 1);
  cr_expect_eq(d->island_dofnum[0], m->nv);
  cr_expect(!d->island_solved, "the view would be the whole problem again");
  mc_deleteData(d);
  mc_deleteModel(m);
}


// FNV-1a over the bits of n numbers
static unsigned long long hashNums(unsigned long long h, const mcNum* a, int n) {
  for (int i = 0; i < n; i++) {
    unsigned long long x;
    memcpy(&x, a + i, sizeof(x));
    h = (h ^ x) * 1099511628211ULL;
  }
  return h;
}


// hash of qacc, efc_force and efc_b of every step of nstep on a pool of nthread (0: none); the
// smallest and largest island count seen, and the steps solved by islands
static unsigned long long runHash(const mcModel* m, int nthread, int nstep, int* lo, int* hi,
                                  int* solved) {
  mcData* d = mc_makeData(m);
  mcThreadPool* pool = nthread > 0 ? mc_threadPoolCreate(nthread) : NULL;
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(nthread == 0 || (pool && mc_bindThreadPool(d, pool) == 0), "%d threads", nthread);
  unsigned long long h = 1469598103934665603ULL;
  *lo = 1 << 30;
  *hi = 0;
  *solved = 0;
  for (int s = 0; s < nstep; s++) {
    mc_step(m, d);
    h = hashNums(h, d->qacc, m->nv);
    h = hashNums(h, d->efc_force, d->nefc);
    h = hashNums(h, d->efc_b, d->nefc);
    *lo = d->nisland < *lo ? d->nisland : *lo;
    *hi = d->nisland > *hi ? d->nisland : *hi;
    *solved += d->island_solved;
  }
  mc_bindThreadPool(d, NULL);
  mc_threadPoolDelete(pool);
  mc_deleteData(d);
  return h;
}


// the same hash without a pool and with 1, 2 and 3 threads; the island counts expected (the
// most in some step; at least one in every step)
static void sameForAnyThreads(int far, int side, const char* solver, int maxisland) {
  mcModel* m = loadScene(far, side, solver);
  int lo, hi, solved;
  unsigned long long h0 = runHash(m, 0, 60, &lo, &hi, &solved);
  cr_expect(lo >= 1 && hi == maxisland, "%s: nisland %d .. %d", solver, lo, hi);
  cr_expect(solved > 0, "%s: no step solved by islands", solver);
  for (int t = 1; t <= 3; t++) {
    int l, u, s;
    cr_expect(runHash(m, t, 60, &l, &u, &s) == h0, "%s: %d threads differ", solver, t);
    cr_expect(s == solved, "%s: %d threads: %d island solves, %d without a pool", solver, t, s,
              solved);
  }
  mc_deleteModel(m);
}


// the column alone with the far sphere: one island every step
Test(island_one, one_large_island_any_thread_count) {
  sameForAnyThreads(1, 0, "newton", 1);
  sameForAnyThreads(1, 0, "cg", 1);
}


// the column beside three small islands: the large one dealt first
Test(island_one, large_island_beside_small_ones_any_thread_count) {
  sameForAnyThreads(0, 1, "newton", 4);
  sameForAnyThreads(0, 1, "cg", 4);
}
