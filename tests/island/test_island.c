// Constraint islands (core/engine/island.c, island_solve.c) and the in-step thread pool
// (core/engine/threadpool.c, collision_narrow.c): discovery on a scene with a known answer, the
// invariants of the island lists, island solves against the whole-problem solve, and bitwise
// identical results for any thread count (built-in solvers, islands on and off). Built twice: as
// a Criterion suite and, with ROLLOUT_PLAIN, as a plain program for ThreadSanitizer (make
// test-tsan).
#ifdef ROLLOUT_PLAIN
#include "plain_test.h"
#else
#include <criterion/criterion.h>
#endif
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <moduco/moduco.h>

#include "engine/constraint.h"
#include "engine/island.h"
#include "engine/parallel_stages.h"
#include "engine/threadpool.h"

#define HUMANOID22 "/usr/share/mujoco/model/humanoid/22_humanoids.xml"

// under ThreadSanitizer (make test-tsan, 10-20x slower) the threaded tests run one solver and
// the single-threaded comparison is left to the other builds
#ifdef __SANITIZE_THREAD__
#define NSOLVER_THREADED 1
#define TSAN_SKIP() return
#else
#define NSOLVER_THREADED 3
#define TSAN_SKIP() (void)0
#endif

// five free bodies: A and B rest on the floor apart, C and D are welded together (one island
// through the equality rows, first dof after A and B), E floats far away (no rows: no island)
static const char* g_scene =
  "<mujoco>"
  "  <option><flag island='enable'/></option>"
  "  <worldbody>"
  "    <geom type='plane' size='5 5 .1'/>"
  "    <body name='A' pos='-1 0 .099'><freejoint/><geom type='sphere' size='.1'/></body>"
  "    <body name='B' pos='1 0 .099'><freejoint/><geom type='sphere' size='.1'/></body>"
  "    <body name='C' pos='0 2 1'><freejoint/><geom type='box' size='.1 .1 .1'/></body>"
  "    <body name='D' pos='0 2.3 1'><freejoint/><geom type='box' size='.1 .1 .1'/></body>"
  "    <body name='E' pos='3 3 3'><freejoint/><geom type='sphere' size='.1'/></body>"
  "  </worldbody>"
  "  <equality><weld body1='C' body2='D'/></equality>"
  "</mujoco>";


static mcModel* loadString(const char* xml) {
  char error[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  cr_assert(m, "%s", error);
  return m;
}


static mcModel* loadFile(const char* file) {
  char error[1024] = "";
  mcModel* m = mc_loadXML(file, error, sizeof(error));
  cr_assert(m, "%s: %s", file, error);
  return m;
}


// every list of the islands is consistent with the rows and the trees
static void checkInvariants(const mcModel* m, const mcData* d) {
  int ndof = 0, nrow = 0;
  for (int i = 0; i < d->nisland; i++) {
    const int* dof = d->island_dofind + d->island_dofadr[i];
    const int* row = d->island_efcind + d->island_efcadr[i];
    cr_expect(d->island_dofnum[i] > 0 && d->island_efcnum[i] > 0);
    if (i > 0) {
      cr_expect(dof[0] > d->island_dofind[d->island_dofadr[i - 1]]);   // numbered by first dof
    }
    for (int k = 0; k < d->island_dofnum[i]; k++) {
      cr_expect(k == 0 || dof[k] > dof[k - 1]);
      cr_expect_eq(d->dof_island[dof[k]], i);
      int p = m->dof_parentid[dof[k]];
      cr_expect(p < 0 || d->dof_island[p] == i);                         // whole trees
    }
    for (int k = 0; k < d->island_efcnum[i]; k++) {
      cr_expect(k == 0 || row[k] > row[k - 1]);
      cr_expect_eq(d->efc_island[row[k]], i);
      const int* col = d->efc_J_colind + d->efc_J_rowadr[row[k]];
      for (int c = 0; d->efc_J_rownnz && c < d->efc_J_rownnz[row[k]]; c++) {
        cr_expect_eq(d->dof_island[col[c]], i);                          // rows stay inside
      }
    }
    ndof += d->island_dofnum[i];
    nrow += d->island_efcnum[i];
  }
  for (int k = 0; k < m->nv; k++) {
    ndof -= d->dof_island[k] < 0;
  }
  cr_expect_eq(nrow, d->nefc);
  cr_expect(ndof <= m->nv);
}


Test(island, discovery_known_scene) {
  mcModel* m = loadString(g_scene);
  m->opt.jacobian = mcJAC_SPARSE;
  mcData* d = mc_makeData(m);
  mc_forward(m, d);
  cr_assert_eq(d->nisland, 3);
  cr_expect_eq(d->dof_island[0], 0);                 // A
  cr_expect_eq(d->dof_island[6], 1);                 // B
  cr_expect_eq(d->dof_island[12], 2);                // C and D
  cr_expect_eq(d->dof_island[18], 2);
  cr_expect_eq(d->dof_island[24], -1);               // E: no rows
  cr_expect_eq(d->island_dofnum[2], 12);
  checkInvariants(m, d);

  // solved island by island: statistics merged (most iterations, summed Hessian non-zeros)
  cr_expect_eq(d->island_solved, 1);
  int most = 0;
  for (int i = 0; i < d->nisland; i++) {
    cr_expect(d->island_iter[i] >= 1);
    most = d->island_iter[i] > most ? d->island_iter[i] : most;
  }
  cr_expect_eq(d->solver_iter, most);
  cr_expect(d->solver_nnz > 0);
  cr_expect_eq(d->qacc[26], d->qacc_smooth[26]);     // E: unconstrained, falls freely
  cr_expect_eq(d->qfrc_constraint[26], 0);

  // the flag off: no islands, the whole problem
  m->opt.enableflags &= ~mcENBL_ISLAND;
  mc_forward(m, d);
  cr_expect_eq(d->nisland, 0);
  cr_expect_eq(d->island_solved, 0);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(island, dense_jacobian_same_islands) {
  mcModel* m = loadString(g_scene);
  m->opt.jacobian = mcJAC_DENSE;
  mcData* d = mc_makeData(m);
  mc_forward(m, d);
  cr_expect_eq(d->nisland, 3);
  cr_expect_eq(d->island_solved, 1);
  cr_expect_eq(d->dof_island[24], -1);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// with solver selected: 150 steps from the start (humanoids on the floor, islands on), then one
// forward at that state with islands on and off; the largest difference of the accelerations
// relative to the largest acceleration
static double islandGap(mcModel* m, const char* solver) {
  char error[256];
  cr_assert(mc_setSolver(m, solver, error, sizeof(error)) == 0, "%s", error);
  m->opt.enableflags |= mcENBL_ISLAND;
  mcData* a = mc_makeData(m);
  for (int i = 0; i < 150; i++) {
    mc_step(m, a);
  }
  cr_assert(a->nisland >= 2, "nisland %d", a->nisland);
  checkInvariants(m, a);
  mcData* b = mc_copyData(NULL, m, a);
  cr_assert(b);
  mc_forward(m, a);
  cr_expect(a->island_solved, "%s: nisland %d", solver, a->nisland);
  m->opt.enableflags &= ~mcENBL_ISLAND;
  mc_forward(m, b);
  cr_expect(!b->island_solved);
  double gap = 0, scale = 1e-9;
  for (int i = 0; i < m->nv; i++) {
    gap = fmax(gap, fabs(a->qacc[i] - b->qacc[i]));
    scale = fmax(scale, fabs(b->qacc[i]));
  }
  mc_deleteData(a);
  mc_deleteData(b);
  return gap / scale;
}


Test(island, island_solve_matches_whole_problem) {
  TSAN_SKIP();
  mcModel* m = loadFile(HUMANOID22);

  // a tight tolerance: both solves converge to the same optimum (PGS slowest)
  m->opt.tolerance = 1e-10;
  m->opt.iterations = 200;
  double gnewton = islandGap(m, "newton");
  double gcg = islandGap(m, "cg");
  double gpgs = islandGap(m, "pgs");
  fprintf(stderr, "relative gaps: newton %g cg %g pgs %g\n", gnewton, gcg, gpgs);
  cr_expect(gnewton < 1e-6, "newton: relative gap %g", gnewton);
  cr_expect(gcg < 1e-3, "cg: relative gap %g", gcg);
  cr_expect(gpgs < 1e-3, "pgs: relative gap %g", gpgs);
  mc_deleteModel(m);
}


// how the pool's helpers wait for jobs (mci_poolSetSpin)
enum { SPIN_DEFAULT, SPIN_NONE, HELPERS_HELD };

static unsigned long long hashNums(unsigned long long h, const mcNum* a, size_t n) {
  for (size_t i = 0; a && i < n; i++) {
    unsigned long long x;
    memcpy(&x, a + i, sizeof(x));
    h = (h ^ x) * 1099511628211ULL;
  }
  return h;
}


static unsigned long long hashInts(unsigned long long h, const int* a, size_t n) {
  for (size_t i = 0; a && i < n; i++) {
    h = (h ^ (unsigned int)a[i]) * 1099511628211ULL;
  }
  return h;
}


// the outputs of the constraint assembly (rows filled on the pool by chunks of contacts): types,
// ids, the dense or sparse Jacobian, residuals, soft-constraint parameters, reference, and the
// contacts' row addresses
static unsigned long long hashRows(const mcModel* m, const mcData* d, unsigned long long h) {
  size_t n = (size_t)d->nefc;
  h = hashInts(h, d->efc_type, n);
  h = hashInts(h, d->efc_id, n);
  if (d->efc_J_rownnz) {
    size_t nnz = n ? (size_t)d->efc_J_rowadr[n - 1] + (size_t)d->efc_J_rownnz[n - 1] : 0;
    h = hashInts(h, d->efc_J_rownnz, n);
    h = hashInts(h, d->efc_J_rowadr, n);
    h = hashInts(h, d->efc_J_colind, nnz);
    h = hashNums(h, d->efc_J_val, nnz);
  } else {
    h = hashNums(h, d->efc_J, n * (size_t)m->nv);
  }
  const mcNum* arr[8] = {d->efc_pos, d->efc_margin, d->efc_frictionloss, d->efc_diagApprox,
                         d->efc_D, d->efc_R, d->efc_vel, d->efc_aref};
  for (int a = 0; a < 8; a++) {
    h = hashNums(h, arr[a], n);
  }
  h = hashNums(h, d->efc_KBIP, 4 * n);
  for (int i = 0; i < d->ncon; i++) {
    h = hashInts(h, &d->contact[i].efc_address, 1);
    h = hashNums(h, &d->contact[i].mu, 1);
  }
  return h;
}


// hash of the state and the solver outputs after nstep steps on a pool of nthread (0: none)
// whose helpers wait as mode says
static unsigned long long runHashMode(const mcModel* m, int nthread, int nstep, int* nisland,
                                      int mode) {
  mcData* d = mc_makeData(m);
  mcThreadPool* pool = NULL;
  if (nthread > 0) {
    pool = mc_threadPoolCreate(nthread);
    mci_poolSetEager(pool, 1);   // the jobs on small models too
    cr_assert(pool);
    cr_assert_eq(mc_bindThreadPool(d, pool), 0);
    if (mode == SPIN_NONE) {
      mci_poolSetSpin(pool, 0, 0);
    } else if (mode == HELPERS_HELD) {
      mci_poolSetSpin(pool, 0, 1);
    }
  }
  unsigned long long h = 1469598103934665603ULL;
  for (int s = 0; s < nstep; s++) {
    mc_step(m, d);
    // the state, then the outputs of the per-tree stages (kinematics, com quantities, com
    // velocities, bias forces) and of the narrow phase (geom frames)
    const mcNum* arr[15] = {d->qpos, d->qvel, d->qacc, d->xpos, d->xquat, d->xipos,
                            d->subtree_com, d->cinert, d->cdof, d->cvel, d->cdof_dot,
                            d->qfrc_bias, d->geom_xpos, d->geom_xmat, d->site_xpos};
    int len[15] = {m->nq, m->nv, m->nv, 3 * m->nbody, 4 * m->nbody, 3 * m->nbody,
                   3 * m->nbody, 10 * m->nbody, 6 * m->nv, 6 * m->nbody, 6 * m->nv, m->nv,
                   3 * m->ngeom, 9 * m->ngeom, 3 * m->nsite};
    for (int a = 0; a < 15; a++) {
      for (int i = 0; i < len[a]; i++) {
        unsigned long long x;
        memcpy(&x, arr[a] + i, sizeof(x));
        h = (h ^ x) * 1099511628211ULL;
      }
    }
    for (int i = 0; i < d->nefc; i++) {
      unsigned long long x;
      memcpy(&x, d->efc_force + i, sizeof(x));
      h = (h ^ x ^ (unsigned long long)d->efc_state[i]) * 1099511628211ULL;
    }
    h = hashRows(m, d, h);
    h = (h ^ (unsigned long long)d->ncon ^ ((unsigned long long)d->solver_iter << 32)) *
        1099511628211ULL;
  }
  *nisland = d->nisland;
  if (pool && mode == HELPERS_HELD) {
    long taken[3] = {0, 0, 0};
    mci_poolTaken(pool, taken);
    cr_expect(taken[0] > 0 && taken[1] == 0, "held helpers ran %ld tasks", taken[1]);
  }
  mc_bindThreadPool(d, NULL);
  mc_threadPoolDelete(pool);
  mc_deleteData(d);
  return h;
}


static unsigned long long runHash(const mcModel* m, int nthread, int nstep, int* nisland) {
  return runHashMode(m, nthread, nstep, nisland, SPIN_DEFAULT);
}


// the same hash without a pool and with 1, 2 and 3 threads
static void sameForAnyThreads(mcModel* m, int nstep, int island) {
  if (island) {
    m->opt.enableflags |= mcENBL_ISLAND;
  } else {
    m->opt.enableflags &= ~mcENBL_ISLAND;
  }
  int nisland = 0;
  unsigned long long h0 = runHash(m, 0, nstep, &nisland);
  cr_expect(!island || nisland >= 2, "nisland %d", nisland);
  for (int t = 1; t <= 3; t++) {
    int n;
    cr_expect(runHash(m, t, nstep, &n) == h0, "%d threads differ (island %d)", t, island);
  }
}


Test(island, bitwise_any_thread_count_22_humanoids) {
  mcModel* m = loadFile(HUMANOID22);
  const char* solver[3] = {"newton", "cg", "pgs"};
  for (int s = 0; s < NSOLVER_THREADED; s++) {
    char error[256];
    cr_assert(mc_setSolver(m, solver[s], error, sizeof(error)) == 0, "%s", error);
    sameForAnyThreads(m, 120, 1);
  }
  sameForAnyThreads(m, 120, 0);                      // collision on the pool, whole solve
  mc_deleteModel(m);
}


// contact rows filled on the pool with the dense Jacobian, pyramidal and elliptic cones
Test(island, bitwise_any_thread_count_dense_jacobian) {
  mcModel* m = loadFile(HUMANOID22);
  m->opt.jacobian = mcJAC_DENSE;
  sameForAnyThreads(m, 60, 1);
  m->opt.cone = mcCONE_ELLIPTIC;
  sameForAnyThreads(m, 60, 1);
  m->opt.jacobian = mcJAC_SPARSE;
  sameForAnyThreads(m, 60, 0);
  mc_deleteModel(m);
}


// 22_humanoids after 80 steps (the humanoids on the floor: contact rows), forward done
static mcData* humanoidsLanded(mcModel** m) {
  *m = loadFile(HUMANOID22);
  mcData* d = mc_makeData(*m);
  for (int s = 0; s < 80; s++) {
    mc_step(*m, d);
  }
  mc_forward(*m, d);
  return d;
}


// the chunks of contacts cover every contact row exactly once, in order, balanced by rows; the
// assembly's one pass (mci_cutContactsFrom) gives the same chunks and their first non-zeros
Test(island, contact_chunks_cover_rows_once) {
  mcModel* m;
  mcData* d = humanoidsLanded(&m);
  int first = d->nefc, withrows = 0;
  for (int i = 0; i < d->ncon; i++) {
    if (d->contact[i].efc_address >= 0) {
      first = d->contact[i].efc_address < first ? d->contact[i].efc_address : first;
      withrows++;
    }
  }
  cr_assert(withrows > 8 && d->nefc - first >= 64, "only %d contacts with rows", withrows);
  cr_assert(d->efc_J_rownnz, "a sparse Jacobian");
  int* seen = calloc((size_t)d->nefc, sizeof(int));
  cr_assert(seen);
  const int want[5] = {1, 2, 3, 8, 100};
  for (int w = 0; w < 5; w++) {
    int con[65], row[65];
    int n = mci_cutContacts(m, d, want[w], 1, con, row);
    cr_expect(n >= 1 && n <= (want[w] < 64 ? want[w] : 64), "want %d: %d chunks", want[w], n);
    cr_expect(con[0] == 0 && con[n] == d->ncon && row[0] == first && row[n] == d->nefc);
    memset(seen, 0, sizeof(int) * (size_t)d->nefc);
    int most = 0;
    for (int k = 0; k < n; k++) {
      cr_expect(con[k] < con[k + 1] && row[k] < row[k + 1], "chunk %d empty", k);
      most = row[k + 1] - row[k] > most ? row[k + 1] - row[k] : most;
      for (int i = con[k]; i < con[k + 1]; i++) {   // a contact's rows lie in its chunk
        int adr = d->contact[i].efc_address;
        if (adr < 0) {
          continue;
        }
        int end = adr + 1;
        while (end < d->nefc && d->efc_id[end] == i && d->efc_type[end] == d->efc_type[adr]) {
          end++;
        }
        cr_expect(adr >= row[k] && end <= row[k + 1], "contact %d outside chunk %d", i, k);
        for (int r = adr; r < end; r++) {
          seen[r]++;
        }
      }
    }
    for (int r = first; r < d->nefc; r++) {
      cr_expect_eq(seen[r], 1, "want %d: row %d covered %d times", want[w], r, seen[r]);
    }
    int fair = (d->nefc - first + n - 1) / n;
    cr_expect(most <= fair + 10, "want %d: chunk of %d rows, mean %d", want[w],
              most, fair);

    // the one pass from the contacts' first row: the same chunks, and (sparse) each chunk's
    // first non-zero where its rows' non-zeros start
    int con1[65], row1[65], nnz[65];
    for (int sparse = 0; sparse < 2; sparse++) {
      int n1 = mci_cutContactsFrom(m, d, want[w], 1, first, sparse, NULL, 7, con1,
                                    row1, nnz);
      cr_expect_eq(n1, n, "want %d: %d chunks in one pass, %d", want[w], n1, n);
      cr_expect(memcmp(con1, con, sizeof(int) * (size_t)(n + 1)) == 0 &&
                memcmp(row1, row, sizeof(int) * (size_t)(n + 1)) == 0, "want %d", want[w]);
      for (int k = 0; k <= n; k++) {
        int expect = 7;
        for (int r = first; sparse && r < row[k]; r++) {
          expect += d->efc_J_rownnz[r];
        }
        cr_expect_eq(nnz[k], expect, "want %d, sparse %d: chunk %d's first non-zero", want[w],
                     sparse, k);
      }
    }
  }
  free(seen);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the same bits whether the helpers spin for jobs, sleep between them or never join one
Test(island, bitwise_any_helper_wait) {
  mcModel* m = loadFile(HUMANOID22);
  m->opt.enableflags |= mcENBL_ISLAND;
  int n;
  unsigned long long h0 = runHash(m, 0, 60, &n);
  cr_expect(runHashMode(m, 2, 60, &n, SPIN_NONE) == h0, "helpers sleeping between jobs differ");
  cr_expect(runHashMode(m, 2, 60, &n, HELPERS_HELD) == h0, "caller alone differs");
  cr_expect(runHashMode(m, 3, 60, &n, SPIN_NONE) == h0, "3 threads sleeping differ");
  mc_deleteModel(m);
}


Test(island, bitwise_any_thread_count_humanoid100) {
  mcModel* m = loadFile("/usr/share/mujoco/model/humanoid100/humanoid100.xml");
  sameForAnyThreads(m, 160, 1);
  mc_deleteModel(m);
}


// trees of every kind for the per-tree stages: a mocap body, a static body with a site, a chain of
// hinge, slide and ball joints with an offset inertial frame and sites, a massless subtree, free
// bodies, and a geom on the world
static const char* g_trees =
  "<mujoco>"
  "  <worldbody>"
  "    <geom type='plane' size='5 5 .1'/>"
  "    <site name='w' pos='0 0 1'/>"
  "    <body name='mocap' mocap='true' pos='2 0 1'><geom type='box' size='.1 .1 .1'/></body>"
  "    <body name='static' pos='0 3 .5'><geom type='sphere' size='.2'/><site name='s'/></body>"
  "    <body name='arm' pos='0 0 1.5'>"
  "      <joint type='hinge' axis='0 1 0' damping='.1'/>"
  "      <geom type='capsule' fromto='0 0 0 .5 0 0' size='.05'/>"
  "      <body pos='.5 0 0'><joint type='slide' axis='1 0 0'/>"
  "        <inertial pos='.1 .05 0' mass='1' diaginertia='.01 .02 .03' quat='.9 .1 .3 0'/>"
  "        <geom type='box' size='.1 .05 .05' pos='.1 0 0'/><site name='t' pos='.2 0 0'/>"
  "        <body pos='.2 0 0'><joint type='ball'/>"
  "          <geom type='sphere' size='.08' pos='0 0 -.2'/>"
  "          <body pos='0 0 -.3'><site name='massless'/></body>"
  "        </body>"
  "      </body>"
  "    </body>"
  "    <body pos='-1 0 .5'><freejoint/><geom type='box' size='.1 .2 .1'/></body>"
  "    <body pos='-1 1 .8' euler='10 20 30'><freejoint/><geom type='ellipsoid' size='.1 .2 .1'/>"
  "      <body pos='.3 0 0'><joint type='hinge' axis='0 0 1'/><geom type='sphere' size='.1'/>"
  "      </body></body>"
  "  </worldbody>"
  "</mujoco>";


Test(island, per_tree_stages_any_thread_count) {
  mcModel* m = loadString(g_trees);
  cr_assert(m);
  sameForAnyThreads(m, 200, 0);
  mc_deleteModel(m);
}


// the inertia stage cut into trees beside the broad phase (mci_inertiaTreesBeside): after one
// mc_forward with nthread threads (0: no pool) the composite inertias, M, its factor and the
// pivot warnings (count, last dof) are copied out
typedef struct {
  mcNum* arr;                     // crb, qM, qLD, qLDiagInv, qLDiagSqrtInv one after the other
  size_t n;
  int nwarn, lastinfo;
} Inertia;


static Inertia forwardInertia(const mcModel* m, int nthread) {
  mcData* d = mc_makeData(m);
  mcThreadPool* pool = nthread ? mc_threadPoolCreate(nthread) : NULL;
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(d && (!nthread || pool));
  if (pool) {
    cr_assert_eq(mc_bindThreadPool(d, pool), 0);
  }
  mc_forward(m, d);
  Inertia r;
  size_t len[5] = {10 * (size_t)m->nbody, (size_t)m->nM, (size_t)m->nM, (size_t)m->nv,
                   (size_t)m->nv};
  const mcNum* src[5] = {d->crb, d->qM, d->qLD, d->qLDiagInv, d->qLDiagSqrtInv};
  r.n = len[0] + len[1] + len[2] + len[3] + len[4];
  r.arr = malloc(sizeof(mcNum) * r.n);
  cr_assert(r.arr);
  for (int a = 0, at = 0; a < 5; at += (int)len[a], a++) {
    memcpy(r.arr + at, src[a], sizeof(mcNum) * len[a]);
  }
  r.nwarn = d->warning[mcWARN_INERTIA].number;
  r.lastinfo = d->warning[mcWARN_INERTIA].lastinfo;
  mc_bindThreadPool(d, NULL);
  mc_threadPoolDelete(pool);
  mc_deleteData(d);
  return r;
}


Test(island, inertia_trees_same_bits_and_warnings) {
  mcModel* m = loadString(g_trees);
  cr_assert(m);
  // two trees lose their mass (the arm's ball body, the first free body): zero pivots, which
  // the factorization replaces and warns about, in two different ranges of the cut
  int ball = -1, free1 = -1;
  for (int j = 0; j < m->njnt; j++) {
    if (m->jnt_type[j] == mcJNT_BALL) {
      ball = m->jnt_bodyid[j];
    } else if (m->jnt_type[j] == mcJNT_FREE && free1 < 0) {
      free1 = m->jnt_bodyid[j];
    }
  }
  cr_assert(ball > 0 && free1 > 0 && m->body_rootid[ball] != m->body_rootid[free1]);
  int body[2] = {ball, free1};
  for (int k = 0; k < 2; k++) {
    m->body_mass[body[k]] = 0;
    memset(m->body_inertia + 3 * body[k], 0, 3 * sizeof(mcNum));
    int dof = m->jnt_dofadr[m->body_jntadr[body[k]]];
    for (int i = 0; i < (m->jnt_type[m->body_jntadr[body[k]]] == mcJNT_FREE ? 6 : 3); i++) {
      m->dof_armature[dof + i] = 0;
    }
  }
  Inertia serial = forwardInertia(m, 0);
  cr_expect(serial.nwarn >= 2, "pivot warnings %d", serial.nwarn);
  for (int t = 2; t <= 3; t++) {
    Inertia r = forwardInertia(m, t);
    cr_expect(!memcmp(r.arr, serial.arr, sizeof(mcNum) * serial.n), "%d threads: other bits", t);
    cr_expect_eq(r.nwarn, serial.nwarn, "%d threads: %d warnings, serially %d", t, r.nwarn,
                 serial.nwarn);
    cr_expect_eq(r.lastinfo, serial.lastinfo, "%d threads: last dof %d, serially %d", t,
                 r.lastinfo, serial.lastinfo);
    free(r.arr);
  }
  free(serial.arr);
  mc_deleteModel(m);
}


// tapered for T threads, the chunks cover the contacts' rows in order, each (but the last) with
// at least its share, shrinking within each of T blocks of C = want / T chunks (weighing C, C-1
// .. 1; a thread's block of contiguous contacts): every block ends with a fraction of its first
// and holds about a T-th of the rows; the one pass (mci_cutContactsFrom) gives the same chunks
Test(island, contact_chunks_taper_per_block) {
  mcModel* m;
  mcData* d = humanoidsLanded(&m);
  int first = d->nefc;
  for (int i = 0; i < d->ncon; i++) {
    int adr = d->contact[i].efc_address;
    first = adr >= 0 && adr < first ? adr : first;
  }
  int total = d->nefc - first;
  cr_assert(total >= 200, "only %d contact rows", total);
  for (int taper = 2; taper <= 3; taper++) {
    int want = 4 * taper, con[65], row[65];
    int n = mci_cutContacts(m, d, want, taper, con, row);
    cr_assert(n >= want - 1 && n <= want, "taper %d: %d chunks", taper, n);
    cr_expect(con[0] == 0 && con[n] == d->ncon && row[0] == first && row[n] == d->nefc);
    long sum = (long)taper * 4 * 5 / 2;
    for (int k = 0; k + 1 < n; k++) {
      long share = ((long)total * (4 - k % 4) + sum - 1) / sum;
      cr_expect(row[k + 1] - row[k] >= share && row[k + 1] - row[k] <= share + 10,
                "taper %d: chunk %d has %d rows, its share %ld", taper, k, row[k + 1] - row[k],
                share);
    }
    for (int k = 0; k < taper; k++) {   // each block: a k-th of the rows, shrinking to a fraction
      int lo = 4 * k, hi = 4 * (k + 1) < n ? 4 * (k + 1) : n;
      int rows = row[hi] - row[lo], firstrows = row[lo + 1] - row[lo];
      int lastrows = row[hi] - row[hi - 1];
      cr_expect(hi == n || labs((long)rows * taper - total) <= 10L * 4 * taper, "taper %d: "
                "block %d has %d of %d rows", taper, k, rows, total);
      cr_expect(hi < n || rows * taper <= total, "taper %d: last block %d of %d rows", taper,
                rows, total);
      cr_expect(hi == n ? lastrows <= firstrows : lastrows * 3 <= firstrows, "taper %d: block "
                "%d's first chunk %d rows, last %d", taper, k, firstrows, lastrows);
    }
    int con1[65], row1[65], nnz[65];
    int n1 = mci_cutContactsFrom(m, d, want, taper, first, 1, NULL, 0, con1, row1, nnz);
    cr_expect(n1 == n && memcmp(con1, con, sizeof(int) * (size_t)(n + 1)) == 0 &&
              memcmp(row1, row, sizeof(int) * (size_t)(n + 1)) == 0, "taper %d", taper);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the cost class of the island order: the bit length of the cost (0 for 0), by a loop
static long refClass(long cost) {
  long c = 0;
  for (; cost > 0; cost >>= 1) {
    c++;
  }
  return c;
}


// the island order on a pool (mci_islandOrder) is a permutation whose blocks (first, as
// mci_poolRunCut takes them) hold contiguous runs of islands (tree order: a thread's islands are
// the trees it made before), run largest cost class first (a class: the cost's bit length), and
// are balanced: each block's cost within the largest island's of an equal share
Test(island, island_order_blocks_contiguous_balanced_largest_first) {
  mcModel* m = loadFile("/usr/share/mujoco/model/humanoid100/humanoid100.xml");
  cr_assert(m);
  m->opt.enableflags |= mcENBL_ISLAND;
  mcData* d = mc_makeData(m);
  for (int s = 0; s < 100; s++) {
    mc_step(m, d);
  }
  int n = d->nisland;
  cr_assert(n >= 4, "nisland %d", n);
  long cost[512], total = 0, most = 0;
  cr_assert(n <= 512);
  for (int i = 0; i < n; i++) {
    long dofs = d->island_dofnum[i], rows = d->island_efcnum[i];
    cost[i] = rows * dofs + dofs * dofs;
    total += cost[i];
    most = cost[i] > most ? cost[i] : most;
  }
  for (int nthread = 2; nthread <= 3; nthread++) {
    int order[512], seen[512] = {0}, first[4];
    cr_assert(mci_islandOrder(d, nthread, order, first));
    cr_expect(first[0] == 0 && first[nthread] == n);
    for (int t = 0; t < n; t++) {
      cr_assert(order[t] >= 0 && order[t] < n && !seen[order[t]]++, "task %d: island %d", t,
                order[t]);
    }
    for (int k = 0; k < nthread; k++) {
      int lo = first[k], hi = first[k + 1], min = n, max = -1;
      cr_assert(lo <= hi);
      long sum = 0;
      for (int t = lo; t < hi; t++) {
        min = order[t] < min ? order[t] : min;
        max = order[t] > max ? order[t] : max;
        sum += cost[order[t]];
        if (t > lo) {
          cr_expect(refClass(cost[order[t]]) <= refClass(cost[order[t - 1]]),
                    "%d threads: block %d not descending", nthread, k);
        }
      }
      cr_expect(hi == lo || (min == lo && max == hi - 1), "%d threads: block %d holds islands "
                "%d..%d, not %d..%d", nthread, k, min, max, lo, hi - 1);
      cr_expect(labs(sum * nthread - total) <= most * nthread, "%d threads: block %d costs %ld "
                "of %ld", nthread, k, sum, total);
    }
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}


// mc_step on a pool does the velocity stage's per-tree part early, beside the broad phase;
// mc_step1 + mc_step2 (separate stages) do not: the two give the same bits every step (state,
// com velocities, bias forces, accelerations) on 22_humanoids and the scene of every kind of tree
static void earlySameAsSeparate(mcModel* m, int nstep) {
  mcData* a = mc_makeData(m);
  mcData* b = mc_makeData(m);
  mcThreadPool* pool = mc_threadPoolCreate(2);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(a && b && pool);
  cr_assert_eq(mc_bindThreadPool(a, pool), 0);
  cr_assert_eq(mc_bindThreadPool(b, pool), 0);
  cr_assert(mci_velocityEarlyOk(m, a));
  for (int s = 0; s < nstep; s++) {
    mc_step(m, a);
    mc_step1(m, b);
    mc_step2(m, b);
    cr_assert(!memcmp(a->qpos, b->qpos, sizeof(mcNum) * (size_t)m->nq), "qpos step %d", s);
    cr_assert(!memcmp(a->qvel, b->qvel, sizeof(mcNum) * (size_t)m->nv), "qvel step %d", s);
    cr_assert(!memcmp(a->qacc, b->qacc, sizeof(mcNum) * (size_t)m->nv), "qacc step %d", s);
    cr_assert(!memcmp(a->qfrc_bias, b->qfrc_bias, sizeof(mcNum) * (size_t)m->nv),
              "qfrc_bias step %d", s);
    cr_assert(!memcmp(a->cvel, b->cvel, sizeof(mcNum) * 6 * (size_t)m->nbody), "cvel step %d", s);
    cr_assert(!memcmp(a->cdof_dot, b->cdof_dot, sizeof(mcNum) * 6 * (size_t)m->nv),
              "cdof_dot step %d", s);
  }
  mc_bindThreadPool(a, NULL);
  mc_bindThreadPool(b, NULL);
  mc_threadPoolDelete(pool);
  mc_deleteData(a);
  mc_deleteData(b);
}


Test(island, velocity_early_same_as_separate_stages) {
  mcModel* m = loadFile(HUMANOID22);
  m->opt.enableflags |= mcENBL_ISLAND;
  earlySameAsSeparate(m, 60);
  mc_deleteModel(m);
  m = loadString(g_trees);
  cr_assert(m);
  earlySameAsSeparate(m, 100);

  // not with sleeping trees, nor without a pool
  mcData* d = mc_makeData(m);
  cr_assert(!mci_velocityEarlyOk(m, d));
  mcThreadPool* pool = mc_threadPoolCreate(2);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert_eq(mc_bindThreadPool(d, pool), 0);
  m->opt.enableflags |= mcENBL_SLEEP;
  cr_assert(!mci_velocityEarlyOk(m, d));
  mc_bindThreadPool(d, NULL);
  mc_threadPoolDelete(pool);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// pool task: count the task's runs, check the thread number
typedef struct {
  int nthread;
  int count[64];
  int badthread;
} Tally;

static void tallyTask(void* ctx, int task, int thread) {
  Tally* t = (Tally*)ctx;
  __atomic_fetch_add(&t->count[task], 1, __ATOMIC_RELAXED);
  if (thread < 0 || thread >= t->nthread) {
    __atomic_store_n(&t->badthread, 1, __ATOMIC_RELAXED);
  }
}


// every task runs exactly once however many tasks, threads and however the helpers wait; held
// helpers run none
Test(island, pool_runs_every_task_once) {
  for (int nthread = 2; nthread <= 4; nthread++) {
    mcThreadPool* pool = mc_threadPoolCreate(nthread);
    mci_poolSetEager(pool, 1);   // the jobs on small models too
    cr_assert(pool);
    for (int mode = 0; mode < 3; mode++) {
      mci_poolSetSpin(pool, mode == 0 ? 100000 : 0, mode == 2);
      long taken[4] = {0, 0, 0, 0};
      mci_poolTaken(pool, taken);
      long total = 0;
      for (int ntask = 0; ntask <= 64; ntask++) {
        for (int rep = 0; rep < 5; rep++) {
          Tally t;
          memset(&t, 0, sizeof(t));
          t.nthread = nthread;
          mci_poolRun(pool, ntask, tallyTask, &t);
          for (int k = 0; k < 64; k++) {
            cr_assert_eq(t.count[k], k < ntask, "%d threads, mode %d: task %d of %d ran %d times",
                         nthread, mode, k, ntask, t.count[k]);
          }
          cr_assert(!t.badthread);
          total += ntask >= 2 ? ntask : 0;
        }
      }
      mci_poolTaken(pool, taken);
      cr_expect_eq(taken[0] + taken[1] + taken[2] + taken[3], total);
      if (mode == 2) {
        cr_expect_eq(taken[0], total, "held helpers ran tasks");
      }
    }
    mc_threadPoolDelete(pool);
  }
}


// the dofs of no island (objects still falling while others landed) keep the smooth acceleration
// and no constraint force after an island solve, with and without a pool (the pool's workspace
// has the trees' runs: one test a tree there)
Test(island, dofs_of_no_island_unconstrained) {
  mcModel* m = loadFile("/usr/share/mujoco/model/humanoid100/humanoid100.xml");
  cr_assert(m);
  m->opt.enableflags |= mcENBL_ISLAND;
  for (int nthread = 0; nthread <= 2; nthread += 2) {
    mcData* d = mc_makeData(m);
    mcThreadPool* pool = nthread ? mc_threadPoolCreate(nthread) : NULL;
    mci_poolSetEager(pool, 1);   // the jobs on small models too
    cr_assert(!nthread || (pool && mc_bindThreadPool(d, pool) == 0));
    int checked = 0;
    for (int s = 0; s < 160; s++) {
      mc_step(m, d);
      if (!d->island_solved) {
        continue;
      }
      int free = 0;
      for (int k = 0; k < m->nv; k++) {
        if (d->dof_island[k] < 0) {
          free++;
          cr_assert(d->qacc[k] == d->qacc_smooth[k] && d->qacc_warmstart[k] == d->qacc_smooth[k]
                    && d->qfrc_constraint[k] == 0, "%d threads, step %d: dof %d", nthread, s, k);
        }
      }
      checked += free > 0 && free < m->nv;
    }
    cr_expect(checked > 10, "%d threads: %d steps with dofs in and out of islands", nthread,
              checked);
    mc_deleteData(d);
    mc_threadPoolDelete(pool);
  }
  mc_deleteModel(m);
}


// wait until *count (raised by helpers) reaches n, or a second has passed (a loaded machine)
static void awaitCount(const int* count, int n) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do {
    sched_yield();
    clock_gettime(CLOCK_MONOTONIC, &t1);
  } while (__atomic_load_n(count, __ATOMIC_SEQ_CST) < n &&
           (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 1000000000L);
}


// a pool of two threads whose helper stays awake, so that it joins every job
static mcThreadPool* awakePool(void) {
  mcThreadPool* pool = mc_threadPoolCreate(2);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(pool);
  mci_poolSetSpin(pool, 100000000, 0);
  return pool;
}


// with blocks given (mci_poolRunCut), every task still runs once, and a helper starts on its own
// block's first task: task 0 (the caller's first) holds the caller until a helper has begun one
typedef struct {
  int count[16];
  int firstof[4];                 // the first task each thread began (-1: none)
  int started;                    // tasks begun by helpers
} Cut;

static void cutTask(void* ctx, int task, int thread) {
  Cut* c = (Cut*)ctx;
  __atomic_fetch_add(&c->count[task], 1, __ATOMIC_RELAXED);
  int none = -1;
  __atomic_compare_exchange_n(&c->firstof[thread], &none, task, 0, __ATOMIC_SEQ_CST,
                              __ATOMIC_SEQ_CST);
  if (thread > 0) {
    __atomic_fetch_add(&c->started, 1, __ATOMIC_SEQ_CST);
  }
  if (task == 0) {                // up to a second for a helper to join (a loaded machine)
    awaitCount(&c->started, 1);
  }
}

Test(island, pool_run_cut_blocks_first) {
  mcThreadPool* pool = awakePool();
  int joined = 0;
  for (int rep = 0; rep < 20; rep++) {
    Cut c;
    memset(&c, 0, sizeof(c));
    c.firstof[0] = c.firstof[1] = -1;
    int first[3] = {0, 9, 12};          // uneven: equal counts would start the helper at 6
    mci_poolRunCut(pool, 12, cutTask, &c, first);
    for (int k = 0; k < 16; k++) {
      cr_assert_eq(c.count[k], k < 12, "task %d ran %d times", k, c.count[k]);
    }
    cr_expect_eq(c.firstof[0], 0);
    if (c.firstof[1] >= 0) {
      joined++;
      cr_expect_eq(c.firstof[1], 9, "the helper began at task %d", c.firstof[1]);
    }
  }
  cr_expect(joined > 0, "no helper joined any of 20 jobs");
  mc_threadPoolDelete(pool);
}


// in a job cut into blocks a thread that has emptied its own block takes the others' tasks from
// their back (the owner goes on from the front): the caller's first task holds it until the
// helper, done with its block, has taken one of the caller's, which must be the caller's last
typedef struct {
  int count[16];
  int order[16];                  // the helper's tasks in the order it began them
  int nhelper;                    // how many
} Back;

static void backTask(void* ctx, int task, int thread) {
  Back* c = (Back*)ctx;
  __atomic_fetch_add(&c->count[task], 1, __ATOMIC_RELAXED);
  if (thread > 0) {
    int k = __atomic_fetch_add(&c->nhelper, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&c->order[k], task, __ATOMIC_SEQ_CST);
  }
  if (task == 0) {                // up to a second for the helper to take 7 tasks
    awaitCount(&c->nhelper, 7);
  }
}

Test(island, pool_run_cut_thieves_take_from_the_back) {
  mcThreadPool* pool = awakePool();
  int stole = 0;
  for (int rep = 0; rep < 20; rep++) {
    Back c;
    memset(&c, 0, sizeof(c));
    int first[3] = {0, 6, 12};
    mci_poolRunCut(pool, 12, backTask, &c, first);
    for (int k = 0; k < 16; k++) {
      cr_assert_eq(c.count[k], k < 12, "task %d ran %d times", k, c.count[k]);
    }
    if (c.nhelper >= 7) {         // the helper began its block, then stole
      stole++;
      for (int k = 0; k < 6; k++) {
        cr_assert_eq(c.order[k], 6 + k, "the helper's task %d was %d", k, c.order[k]);
      }
      cr_assert_eq(c.order[6], 5, "the helper stole task %d first, not the caller's last",
                   c.order[6]);
      for (int k = 7; k < c.nhelper; k++) {
        cr_assert_eq(c.order[k], 11 - k, "the helper's steal %d was task %d", k - 6, c.order[k]);
      }
    }
  }
  cr_expect(stole > 0, "the helper stole in none of 20 jobs");

  // without blocks (mci_poolRun) the thief takes from the front: its first steal is task 1
  stole = 0;
  for (int rep = 0; rep < 20; rep++) {
    Back c;
    memset(&c, 0, sizeof(c));
    mci_poolRun(pool, 12, backTask, &c);
    if (c.nhelper >= 7) {
      stole++;
      cr_assert_eq(c.order[6], 1, "the helper stole task %d first, not the caller's next",
                   c.order[6]);
    }
  }
  cr_expect(stole > 0, "the helper stole in none of 20 plain jobs");
  mc_threadPoolDelete(pool);
}


// the job trace (mc_threadPoolTrace): one record per job, named by its task function, with the
// helpers' part; jobs past the cap counted, not kept; stopping stops the count
Test(island, pool_trace_records_every_job) {
  mcThreadPool* pool = awakePool();
  mcPoolJob rec[5];
  memset(rec, 0x5a, sizeof(rec));
  mcPoolJob untouched = rec[4];
  mc_threadPoolTrace(pool, rec, 4);
  long taken[2];
  mci_poolTaken(pool, taken);       // (reset the per-thread counts)
  int joined = 0;
  for (int job = 0; job < 6; job++) {
    Cut c;
    memset(&c, 0, sizeof(c));
    c.firstof[0] = c.firstof[1] = -1;
    int first[3] = {0, 6, 12};
    if (job == 2) {
      mci_poolRun(pool, 1, cutTask, &c);    // one task: run inline on the caller
    } else {
      mci_poolRunCut(pool, 12, cutTask, &c, first);
    }
    mci_poolTaken(pool, taken);
    if (job >= 4) {
      continue;                   // past the cap
    }
    const mcPoolJob* r = rec + job;
    cr_assert_str_eq(r->name, "cutTask");
    cr_assert_eq(r->ntask, job == 2 ? 1 : 12);
    cr_assert(r->post <= r->drained && r->drained <= r->end, "job %d: times out of order", job);
    cr_assert_eq(r->helpertasks, taken[1], "job %d: helpers ran %ld, recorded %d", job, taken[1],
                 r->helpertasks);
    if (r->helpers > 0) {
      joined++;
      cr_assert_eq(r->helpers, 1);
      cr_assert(r->post <= r->join && r->join <= r->leave && r->leave <= r->end,
                "job %d: helper times out of order", job);
      cr_assert(r->busy == r->leave - r->join);
    } else {
      cr_assert(r->helpertasks == 0 && r->join == 0 && r->leave == 0 && r->busy == 0);
    }
    if (job > 0) {
      cr_assert(rec[job - 1].end <= r->post, "job %d began before job %d ended", job, job - 1);
    }
  }
  cr_expect(joined > 0, "no helper joined a traced job");
  cr_assert_eq(rec[2].helpers, 0);
  cr_assert_eq(mc_threadPoolTraced(pool), 6);
  cr_assert(!memcmp(rec + 4, &untouched, sizeof(mcPoolJob)), "a record past the cap was written");

  // stopped: nothing recorded or counted; NULL pool: nothing done
  mc_threadPoolTrace(pool, NULL, 0);
  Cut c;
  memset(&c, 0, sizeof(c));
  c.firstof[0] = c.firstof[1] = -1;
  mci_poolRun(pool, 12, cutTask, &c);
  cr_assert_eq(mc_threadPoolTraced(pool), 0);
  mc_threadPoolTrace(NULL, rec, 4);
  cr_assert_eq(mc_threadPoolTraced(NULL), 0);
  mc_threadPoolDelete(pool);
}


// the trace of steps on a bound pool: the jobs of a step one after another, each a task
// function of the core, and the stepping bitwise the same with the trace on
Test(island, pool_trace_of_steps) {
  char error[1024] = "";
  mcModel* m = mc_loadXML(HUMANOID22, error, sizeof(error));
  cr_assert(m, "%s", error);
  m->opt.enableflags |= mcENBL_ISLAND;
  mcData* d = mc_makeData(m);
  mcData* e = mc_makeData(m);
  mcThreadPool* pool = mc_threadPoolCreate(2);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(d && e && pool && mc_bindThreadPool(d, pool) == 0 && mc_bindThreadPool(e, pool) == 0);
  enum { CAP = 1024 };
  mcPoolJob* rec = calloc(CAP, sizeof(mcPoolJob));
  cr_assert(rec);
  for (int i = 0; i < 40; i++) {  // (into contact)
    mc_step(m, d);
    mc_step(m, e);
  }
  mc_threadPoolTrace(pool, rec, CAP);
  int solved = 0;                 // steps whose islands were solved (on the pool)
  for (int i = 0; i < 5; i++) {
    mc_step(m, d);
    solved += d->island_solved;
  }
  long n = mc_threadPoolTraced(pool);
  mc_threadPoolTrace(pool, NULL, 0);
  for (int i = 0; i < 5; i++) {
    mc_step(m, e);
  }
  cr_assert(n >= 5 && n <= CAP, "%ld jobs in 5 steps", n);
  int islands = 0;
  for (long j = 0; j < n; j++) {
    cr_assert(rec[j].name && rec[j].ntask >= 1);
    cr_assert(rec[j].post <= rec[j].drained && rec[j].drained <= rec[j].end);
    cr_assert(j == 0 || rec[j - 1].end <= rec[j].post);
    islands += !strcmp(rec[j].name, "islandTask");
  }
  cr_assert(solved > 0, "no island solve in 5 steps");
  cr_assert_eq(islands, solved, "island solves traced in %d steps, solved in %d", islands, solved);
  cr_assert(!memcmp(d->qpos, e->qpos, sizeof(mcNum) * (size_t)m->nq) &&
            !memcmp(d->qvel, e->qvel, sizeof(mcNum) * (size_t)m->nv));
  free(rec);
  mc_bindThreadPool(d, NULL);
  mc_bindThreadPool(e, NULL);
  mc_threadPoolDelete(pool);
  mc_deleteData(d);
  mc_deleteData(e);
  mc_deleteModel(m);
}


// the jobs of n traced steps of d (after it is stepped into contact) named name
static int tracedJobs(const mcModel* m, mcData* d, mcThreadPool* pool, int n, const char* name) {
  enum { CAP = 1024 };
  mcPoolJob* rec = calloc(CAP, sizeof(mcPoolJob));
  cr_assert(rec);
  mc_threadPoolTrace(pool, rec, CAP);
  for (int i = 0; i < n; i++) {
    mc_step(m, d);
  }
  long njob = mc_threadPoolTraced(pool);
  mc_threadPoolTrace(pool, NULL, 0);
  cr_assert(njob <= CAP);
  int count = 0;
  for (long j = 0; j < njob; j++) {
    count += !strcmp(rec[j].name, name);
  }
  free(rec);
  return count;
}


// three datas of m stepped alike into contact: d[0] on a default two-thread pool, d[1] on an eager
// one, d[2] without a pool
typedef struct {
  mcData* d[3];
  mcThreadPool* pool[2];
} Trio;

static void trioMake(const mcModel* m, Trio* t, int steps) {
  for (int k = 0; k < 3; k++) {
    t->d[k] = mc_makeData(m);
    cr_assert(t->d[k]);
  }
  for (int k = 0; k < 2; k++) {
    t->pool[k] = mc_threadPoolCreate(2);
    cr_assert(t->pool[k] && mc_bindThreadPool(t->d[k], t->pool[k]) == 0);
  }
  mci_poolSetEager(t->pool[1], 1);
  for (int i = 0; i < steps; i++) {
    for (int k = 0; k < 3; k++) {
      mc_step(m, t->d[k]);
    }
  }
}

// step d[2] by the steps the pooled datas were traced, check they all hold the same state, free
static void trioCheckFree(const mcModel* m, Trio* t, int traced, const char* what) {
  for (int i = 0; i < traced; i++) {
    mc_step(m, t->d[2]);
  }
  for (int k = 0; k < 2; k++) {
    cr_expect(!memcmp(t->d[k]->qpos, t->d[2]->qpos, sizeof(mcNum) * (size_t)m->nq) &&
                  !memcmp(t->d[k]->qvel, t->d[2]->qvel, sizeof(mcNum) * (size_t)m->nv),
              "%s: pool %d differs from no pool", what, k);
    mc_bindThreadPool(t->d[k], NULL);
    mc_threadPoolDelete(t->pool[k]);
  }
  for (int k = 0; k < 3; k++) {
    mc_deleteData(t->d[k]);
  }
}


// the collision driver's jobs (the broad phase beside the inertia stage, the narrow phase's
// chunks) run on the pool only for models with work enough to share them (MINBESIDE,
// MINNARROWPAIRS in collision_driver.c): not on the humanoid, unless the pool is eager; on
// 22_humanoids every step; the same trajectory either way
Test(island, collision_jobs_only_when_they_pay) {
  const char* file[2] = {"/usr/share/mujoco/model/humanoid/humanoid.xml", HUMANOID22};
  for (int f = 0; f < 2; f++) {
    mcModel* m = loadFile(file[f]);
    m->opt.enableflags |= mcENBL_ISLAND;
    Trio t;
    trioMake(m, &t, 60);
    int beside = tracedJobs(m, t.d[0], t.pool[0], 5, "besideTask");
    int narrow = tracedJobs(m, t.d[0], t.pool[0], 5, "chunkTask");
    int besideEager = tracedJobs(m, t.d[1], t.pool[1], 5, "besideTask");
    int narrowEager = tracedJobs(m, t.d[1], t.pool[1], 5, "chunkTask");
    cr_expect(t.d[0]->ncon > 0, "%s: no contact", file[f]);
    if (f == 0) {
      cr_expect_eq(beside + narrow, 0, "humanoid: %d beside and %d narrow jobs", beside, narrow);
    } else {
      cr_expect(beside == 5 && narrow == 5, "22_humanoids: %d beside and %d narrow jobs in 5 steps",
                beside, narrow);
    }
    cr_expect(besideEager == 5 && narrowEager == 5,
              "%s, eager pool: %d beside and %d narrow jobs in 5 steps", file[f], besideEager,
              narrowEager);
    trioCheckFree(m, &t, 10, file[f]);
    mc_deleteModel(m);
  }
}


// the island job runs on the pool only when the islands' solves cost enough to share
// (MINISLANDCOST in island_solve.c): not for g_scene's three small islands, unless the pool is
// eager; on 22_humanoids whenever its islands are solved in their views; the same trajectory
Test(island, island_job_only_when_it_pays) {
  for (int f = 0; f < 2; f++) {
    mcModel* m = f ? loadFile(HUMANOID22) : loadString(g_scene);
    m->opt.enableflags |= mcENBL_ISLAND;
    Trio t;
    trioMake(m, &t, 40);
    int jobs = tracedJobs(m, t.d[0], t.pool[0], 5, "islandTask");
    int eager = tracedJobs(m, t.d[1], t.pool[1], 5, "islandTask");
    cr_assert(t.d[0]->nisland >= 2, "%d islands", t.d[0]->nisland);
    if (f == 0) {
      cr_expect(jobs == 0 && eager == 5, "g_scene: %d island jobs on a default pool, %d on an "
                "eager one in 5 steps", jobs, eager);
    } else {                      // (islands not solved in every step: one island, no contact)
      cr_expect(jobs >= 1 && jobs == eager, "22_humanoids: %d island jobs on a default pool, %d "
                "on an eager one in 5 steps", jobs, eager);
    }
    trioCheckFree(m, &t, 5, f ? "22_humanoids" : "g_scene");
    mc_deleteModel(m);
  }
}


typedef struct {
  atomic_int started;             // the helpers' task started
  int ranby;                      // the thread that ran task 1
} Wake;

// task 1 marks that it started; task 0 waits (up to two seconds) for it, so that the caller
// leaves task 1 to a helper that wakes
static void wakeTask(void* ctx, int task, int thread) {
  Wake* w = (Wake*)ctx;
  if (task == 1) {
    w->ranby = thread;
    atomic_store(&w->started, 1);
    return;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do {
    clock_gettime(CLOCK_MONOTONIC, &t1);
  } while (!atomic_load(&w->started) &&
           (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 2000000000L);
}


// a helper that sleeps after every job (spin 0) is woken for every next one: the caller posts one
// wake per sleep (a helper still waking gets none), never none to a helper that went to sleep
Test(island, pool_wakes_a_sleeping_helper_for_every_job) {
  mcThreadPool* pool = mc_threadPoolCreate(2);
  cr_assert(pool);
  mci_poolSetSpin(pool, 0, 0);
  for (int job = 0; job < 200; job++) {
    Wake w;
    atomic_init(&w.started, 0);
    w.ranby = -1;
    mci_poolRun(pool, 2, wakeTask, &w);
    cr_assert_eq(w.ranby, 1, "job %d: task 1 ran on thread %d (the helper did not wake)", job,
                 w.ranby);
    if (job % 3 == 0) {           // time for the helper to fall asleep before the next job
      struct timespec pause = {0, 200000};
      nanosleep(&pause, NULL);
    }
  }
  mc_threadPoolDelete(pool);
}


// cut by cost: contiguous blocks whose boundaries are the nearest to equal shares of the total
Test(island, cut_by_cost_nearest_shares) {
  int first[5];
  long even[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  mci_cutByCost(even, 8, 4, first);
  cr_expect(first[0] == 0 && first[1] == 2 && first[2] == 4 && first[3] == 6 && first[4] == 8);
  long heavy[6] = {10, 1, 1, 1, 1, 1};  // 15: the share 7.5 is nearer 10 than 0
  mci_cutByCost(heavy, 6, 2, first);
  cr_expect(first[0] == 0 && first[1] == 1 && first[2] == 6, "cut at %d", first[1]);
  long tail[6] = {1, 1, 1, 1, 1, 10};   // 15: 7.5 nearest after 5 items (5, not 15)
  mci_cutByCost(tail, 6, 2, first);
  cr_expect_eq(first[1], 5);
  long tie[4] = {1, 1, 1, 1};           // 3 threads, shares 4/3 and 8/3: boundaries 1 and 3
  mci_cutByCost(tie, 4, 3, first);
  cr_expect(first[1] == 1 && first[2] == 3 && first[3] == 4, "%d %d", first[1], first[2]);
  long two[2] = {1, 1};                 // more threads than items: empty blocks, in order
  mci_cutByCost(two, 2, 4, first);
  for (int k = 0; k < 4; k++) {
    cr_expect(first[k] <= first[k + 1]);
  }
  cr_expect(first[0] == 0 && first[4] == 2);
}


// the cut into ranges of whole trees covers bodies 1 .. nbody-1 once, in order, each range
// starting at a tree root with no later body in an earlier tree, at most want ranges
static void checkCut(const mcModel* m, int want) {
  int body[65];
  int n = mci_cutTrees(m, want, body);
  cr_expect(n >= 1 && n <= want, "%d ranges for %d", n, want);
  cr_expect_eq(body[0], 1);
  cr_expect_eq(body[n], m->nbody);
  for (int k = 0; k < n; k++) {
    cr_expect(body[k + 1] > body[k], "range %d empty", k);
    cr_expect_eq(m->body_rootid[body[k]], body[k], "range %d starts inside a tree", k);
    for (int i = body[k]; i < m->nbody; i++) {
      cr_expect(m->body_rootid[i] >= body[k], "body %d after cut %d is in an earlier tree", i, k);
    }
  }
  int again[65];
  cr_expect_eq(mci_cutTrees(m, want, again), n);
  cr_expect(!memcmp(body, again, sizeof(int) * (size_t)(n + 1)), "the cut is not repeatable");
}


Test(island, tree_cut_covers_every_body_once) {
  mcModel* m22 = loadFile(HUMANOID22);
  mcModel* mt = loadString(g_trees);
  for (int want = 1; want <= 64; want++) {
    checkCut(m22, want);
    checkCut(mt, want);
  }
  int body[65];
  cr_expect_eq(mci_cutTrees(m22, 8, body), 8, "22 trees make 8 ranges");
  mc_deleteModel(m22);
  mc_deleteModel(mt);
}


Test(island, pool_api) {
  cr_expect(mc_threadPoolCreate(0) == NULL);
  cr_expect(mc_threadPoolCreate(257) == NULL);
  cr_expect_eq(mc_threadPoolThreads(NULL), 0);
  mcThreadPool* pool = mc_threadPoolCreate(3);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(pool);
  cr_expect_eq(mc_threadPoolThreads(pool), 3);
  mcModel* m = loadString(g_scene);
  mcData* d = mc_makeData(m);
  cr_expect_eq(mc_bindThreadPool(d, pool), 0);
  cr_expect(d->threadpool == pool);

  // a copy keeps its own binding (none), the original keeps the pool
  mcData* c = mc_copyData(NULL, m, d);
  cr_assert(c);
  cr_expect(c->threadpool == NULL);
  mc_step(m, d);
  mc_step(m, c);
  cr_expect(!memcmp(d->qpos, c->qpos, sizeof(mcNum) * (size_t)m->nq));
  cr_expect_eq(mc_bindThreadPool(d, NULL), 0);
  cr_expect(d->threadpool == NULL);
  mc_deleteData(c);
  mc_deleteData(d);
  mc_deleteModel(m);
  mc_threadPoolDelete(pool);
  mc_threadPoolDelete(NULL);
}


// the reference of mci_islandOrder: the blocks cut where the running cost is nearest k equal
// shares (ties: the earlier cut), each block by qsort on cost class descending, ties by island
// index (key[2i] the cost, key[2i+1] the island; the blocks cut by cost, sorted by class)
static int refCmp(const void* a, const void* b) {
  const long* x = (const long*)a;
  const long* y = (const long*)b;
  long cx = refClass(x[0]), cy = refClass(y[0]);
  return cx != cy ? (cx < cy ? 1 : -1) : (x[1] > y[1]) - (x[1] < y[1]);
}

static void refOrder(const mcData* d, int nthread, int* order, int* first) {
  int n = d->nisland;
  long key[2 * 512], total = 0;
  for (int i = 0; i < n; i++) {
    long dofs = d->island_dofnum[i], rows = d->island_efcnum[i];
    key[2 * i] = rows * dofs + dofs * dofs;
    key[2 * i + 1] = i;
    total += key[2 * i];
  }
  first[0] = 0;
  first[nthread] = n;
  for (int k = 1; k < nthread; k++) {   // every cut: the nearest of all candidate boundaries
    double share = (double)total * k / nthread, best = -1;
    long sum = 0;
    for (int c = 0; c <= n; c++) {
      double miss = fabs((double)sum - share);
      if (best < 0 || miss < best) {
        best = miss;
        first[k] = c;
      }
      sum += c < n ? key[2 * c] : 0;
    }
    if (first[k] < first[k - 1]) {
      first[k] = first[k - 1];
    }
  }
  for (int k = 0; k < nthread; k++) {
    qsort(key + 2 * first[k], (size_t)(first[k + 1] - first[k]), 2 * sizeof(long), refCmp);
  }
  for (int t = 0; t < n; t++) {
    order[t] = (int)key[2 * t + 1];
  }
}


// the order and blocks are exactly the reference's for every island count up to the data's, random
// sizes from a small range (many equal classes: the index decides) and from a wide one (costs at
// and beside powers of two), 1 to 4 threads (the counting sort inside mci_islandOrder is its own;
// it fails with ties broken the other way, classes counted ascending or a class off by one)
Test(island, island_order_equals_sorted_reference) {
  mcModel* m = loadFile("/usr/share/mujoco/model/humanoid100/humanoid100.xml");
  cr_assert(m);
  m->opt.enableflags |= mcENBL_ISLAND;
  mcData* d = mc_makeData(m);
  for (int s = 0; s < 100; s++) {
    mc_step(m, d);
  }
  int nmax = d->nisland;
  cr_assert(nmax >= 20 && nmax <= 512, "nisland %d", nmax);
  unsigned seed = 12345;
  for (int n = 1; n <= nmax; n++) {
    for (int spread = 0; spread < 2; spread++) {
      d->nisland = n;
      for (int i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        int range = spread ? 200 : 3;
        d->island_dofnum[i] = 1 + (int)((seed >> 16) % (unsigned)range);
        seed = seed * 1103515245u + 12345u;
        d->island_efcnum[i] = (int)((seed >> 16) % (unsigned)range);
      }
      for (int nthread = 1; nthread <= 4; nthread++) {
        int order[512], want[512], first[5], wantfirst[5];
        cr_assert(mci_islandOrder(d, nthread, order, first));
        refOrder(d, nthread, want, wantfirst);
        for (int k = 0; k <= nthread; k++) {
          cr_assert_eq(first[k], wantfirst[k], "n %d spread %d threads %d: block %d starts at "
                       "%d, want %d", n, spread, nthread, k, first[k], wantfirst[k]);
        }
        for (int t = 0; t < n; t++) {
          cr_assert_eq(order[t], want[t], "n %d spread %d threads %d: task %d island %d, want %d",
                       n, spread, nthread, t, order[t], want[t]);
        }
      }
    }
  }
  d->nisland = 0;   // the island arrays were overwritten: nothing of them is read again
  mc_deleteData(d);
  mc_deleteModel(m);
}
