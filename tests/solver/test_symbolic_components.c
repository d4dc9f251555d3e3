// Newton's symbolic cache, component by component (plugins/solver-common/solver_sparse.c): when
// the rows change, the rows of L of each component (trees joined by rows) whose dofs and rows'
// columns are those of the previous pattern are reused, the others recomputed. Every pattern
// must equal the one found without the cache (a stale component fails the comparison), and the
// components that did not change must be reused even when their rows are renumbered. Built
// twice: as a Criterion suite and, with ROLLOUT_PLAIN, as a plain program for ThreadSanitizer
// (island_pile_bitwise runs island solves on a pool).
#ifdef ROLLOUT_PLAIN
#include "plain_test.h"
#define cr_assert_gt(a, b, ...) cr_assert((a) > (b))
#define cr_expect_gt(a, b, ...) cr_expect((a) > (b))
#else
#include <criterion/criterion.h>
#endif
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>
#include "capsule_pile.h"
#include "plugin/registry.h"
#include "engine/threadpool.h"
#include "solver.h"

// four trees of 8 dofs each (a free joint and two hinges): 0-7, 8-15, 16-23, 24-31
#define NTREE 4
#define MAXROW 16
#define MAXCOL 64

typedef struct {
  int nrow;
  int rownnz[MAXROW];
  int rowadr[MAXROW];
  int colind[MAXCOL];
} Rows;


// rows from lists of columns ending in -1, the list of rows ending in NULL
static Rows makeRows(const int* const* list) {
  Rows r;
  memset(&r, 0, sizeof(r));
  int adr = 0;
  for (; list[r.nrow]; r.nrow++) {
    r.rowadr[r.nrow] = adr;
    for (const int* c = list[r.nrow]; *c >= 0; c++) {
      r.colind[adr++] = *c;
    }
    r.rownnz[r.nrow] = adr - r.rowadr[r.nrow];
  }
  return r;
}


typedef struct {
  mcModel* m;
  mcData* d;
  mcsSymbolicCache cache;
} Fixture;


static Fixture setup(void) {
  Fixture f;
  memset(&f, 0, sizeof(f));
  f.m = capsulePile("solver=\"newton\" jacobian=\"sparse\"", NTREE, 1);
  cr_assert_eq(f.m->nv, 8 * NTREE);
  f.d = mc_makeData(f.m);
  f.cache.cap = mcs_symbolicCacheSize(f.m);
  cr_assert_gt(f.cache.cap, 0);
  f.cache.buf = calloc(f.cache.cap, sizeof(int));
  return f;
}


static void teardown(Fixture* f) {
  free(f->cache.buf);
  f->d->nefc = 0;
  f->d->efc_J_rownnz = f->d->efc_J_rowadr = f->d->efc_J_colind = NULL;
  mc_deleteData(f->d);
  mc_deleteModel(f->m);
}


static void sameInts(const int* a, const int* b, int n, const char* what) {
  for (int i = 0; i < n; i++) {
    cr_assert_eq(a[i], b[i], "%s differs at %d", what, i);
  }
}


// the pattern of rows with the cache equals the one without; return the components reused
// (-1: the whole problem's pattern was reused)
static int check(Fixture* f, Rows* rows, int ncompWant) {
  const mcpHost* host = mcp_host();
  mcModel* m = f->m;
  mcData* d = f->d;
  int nv = m->nv;
  d->nefc = rows->nrow;
  d->efc_J_rownnz = rows->rownnz;
  d->efc_J_rowadr = rows->rowadr;
  d->efc_J_colind = rows->colind;

  host->markStack(d);
  mcsSparseH A, B;
  cr_assert(mcs_sparseSymbolic(host, m, d, &A, &f->cache), "no stack");
  cr_assert(mcs_sparseSymbolic(host, m, d, &B, NULL), "no stack");
  int ncomp, reused = mcs_symbolicCacheReused(&f->cache, &ncomp);
  cr_assert_eq(A.nnz, B.nnz, "nnz of L");
  cr_assert_eq(A.work, B.work, "work");
  for (int k = 0; k < nv; k++) {
    cr_assert_eq(A.rownnz[k], B.rownnz[k], "row %d of L: %d columns, %d without the cache", k,
                 A.rownnz[k], B.rownnz[k]);
    sameInts(A.colind + A.rowadr[k], B.colind + B.rowadr[k], A.rownnz[k], "a row of L");
  }
  sameInts(A.jcoladr, B.jcoladr, nv + 1, "jcoladr");
  sameInts(A.jcolnnz, B.jcolnnz, nv, "jcolnnz");
  sameInts(A.jrow, B.jrow, A.jcoladr[nv], "jrow");
  sameInts(A.jpos, B.jpos, A.jcoladr[nv], "jpos");
  sameInts(A.rrun, B.rrun, d->nefc, "rrun");
  host->freeStack(d);
  if (reused >= 0) {
    cr_assert_eq(ncomp, ncompWant, "%d components, %d expected", ncomp, ncompWant);
  }
  return reused;
}


// trees 0 and 1 joined by a contact-like row (island A), tree 2 alone with a row (island B), tree
// 3 without rows; then: same rows (whole reuse), A gains a row before B's (B renumbered but
// reused), A's joining row moves to other columns of the same count (A recomputed), B and the
// row-less tree 3 merge (the merged component recomputed, A reused)
Test(symbolic_components, change_renumber_merge) {
  Fixture f = setup();
  static const int a0[] = {3, 5, 9, 12, -1}, a1[] = {2, 4, -1}, b0[] = {17, 20, 23, -1},
                   b1[] = {17, 20, 23, -1}, a2[] = {0, 14, -1}, a0x[] = {1, 5, 9, 12, -1},
                   m0[] = {18, 26, -1};

  const int* s1[] = {a0, a1, b0, b1, NULL};
  Rows r1 = makeRows(s1);
  cr_expect_eq(check(&f, &r1, 3), 0, "the first pattern reused components");
  cr_expect_eq(check(&f, &r1, -1), -1, "the same rows did not reuse the whole pattern");

  const int* s2[] = {a0, a1, a2, b0, b1, NULL};
  Rows r2 = makeRows(s2);
  cr_expect_eq(check(&f, &r2, 3), 2, "renumbered island B and tree 3 not reused");

  const int* s3[] = {a0x, a1, a2, b0, b1, NULL};
  Rows r3 = makeRows(s3);
  cr_expect_eq(check(&f, &r3, 3), 2, "only island A changed");

  const int* s4[] = {a0x, a1, a2, b0, m0, b1, NULL};
  Rows r4 = makeRows(s4);
  cr_expect_eq(check(&f, &r4, 2), 1, "only island A is unchanged after the merge");

  // back to the first rows: computed again (the cache holds the last pattern only)
  cr_expect_eq(check(&f, &r1, 3), 0, "no component of the first rows in the last pattern");
  teardown(&f);
}


// components with the same first dof, dof count and row shapes but other trees: trees 0 + 1
// against trees 0 + 2 (must not be confused), and the rows of one island split into two
// islands with the same rows in other positions
Test(symbolic_components, same_size_other_trees) {
  Fixture f = setup();
  static const int x01[] = {3, 5, 9, 12, -1}, x02[] = {3, 5, 17, 20, -1}, t3[] = {25, 30, -1},
                   t1[] = {9, 12, -1};
  const int* s1[] = {x01, t3, NULL};
  Rows r1 = makeRows(s1);
  cr_expect_eq(check(&f, &r1, 3), 0);   // {0, 1}, {2}, {3}
  const int* s2[] = {x02, t3, NULL};
  Rows r2 = makeRows(s2);
  cr_expect_eq(check(&f, &r2, 3), 1);   // {0, 2}, {1}, {3}: only {3} reused
  const int* s3[] = {t3, x02, t1, NULL};
  Rows r3 = makeRows(s3);
  cr_expect_eq(check(&f, &r3, 3), 2);   // {0, 2} and {3} reused in other row positions
  teardown(&f);
}


// the pattern of rows in the island slot c equals the one without a cache; return 1 if it came
// from the slot
static int checkSlot(Fixture* f, const mcModel* m, Rows* rows, mcsSymbolicCache* c) {
  const mcpHost* host = mcp_host();
  mcData* d = f->d;
  d->nefc = rows->nrow;
  d->efc_J_rownnz = rows->rownnz;
  d->efc_J_rowadr = rows->rowadr;
  d->efc_J_colind = rows->colind;
  host->markStack(d);
  mcsSparseH A, B;
  cr_assert(mcs_sparseSymbolic(host, m, d, &A, c), "no stack");
  cr_assert(mcs_sparseSymbolic(host, m, d, &B, NULL), "no stack");
  cr_assert_eq(A.nnz, B.nnz, "nnz of L");
  cr_assert_eq(A.work, B.work, "work");
  for (int k = 0; k < m->nv; k++) {
    cr_assert_eq(A.rownnz[k], B.rownnz[k], "row %d of L: %d columns, %d without the cache", k,
                 A.rownnz[k], B.rownnz[k]);
    sameInts(A.colind + A.rowadr[k], B.colind + B.rowadr[k], A.rownnz[k], "a row of L");
  }
  sameInts(A.jcoladr, B.jcoladr, m->nv + 1, "jcoladr");
  sameInts(A.jrow, B.jrow, A.jcoladr[m->nv], "jrow");
  sameInts(A.jpos, B.jpos, A.jcoladr[m->nv], "jpos");
  sameInts(A.rrun, B.rrun, d->nefc, "rrun");
  int hit = A.colind >= c->buf && A.colind < c->buf + c->cap;
  host->freeStack(d);
  return hit;
}


// island views keep their pattern in the slot of their index: the slots lie apart inside the
// buffer, and a slot is reused only for the same dof tree and the same rows' columns (a row
// moved to other columns of the same count, or the same rows over another tree, must miss)
Test(symbolic_components, island_slots) {
  Fixture f = setup();
  mcsSymbolicCache s0 = mcs_islandSlot(f.m, f.cache.buf, 0);
  mcsSymbolicCache s1 = mcs_islandSlot(f.m, f.cache.buf, 1);
  cr_assert(s0.buf && s1.buf && s0.slot && s1.slot, "no slots");
  cr_assert(s1.buf >= s0.buf + s0.cap, "slots overlap");
  int nslot = 2;
  while (mcs_islandSlot(f.m, f.cache.buf, nslot).buf) {
    mcsSymbolicCache s = mcs_islandSlot(f.m, f.cache.buf, nslot++);
    cr_assert(s.buf + s.cap <= f.cache.buf + f.cache.cap, "slot past the buffer");
  }
  cr_assert(!mcs_islandSlot(f.m, f.cache.buf, -1).buf);

  static const int a0[] = {3, 5, 9, 12, -1}, a1[] = {2, 4, -1}, a0x[] = {1, 5, 9, 12, -1},
                   b0[] = {17, 20, 23, -1};
  const int* s1r[] = {a0, a1, NULL};
  const int* s2r[] = {a0x, a1, NULL};
  const int* s3r[] = {b0, NULL};
  Rows r1 = makeRows(s1r), r2 = makeRows(s2r), r3 = makeRows(s3r);
  cr_expect(!checkSlot(&f, f.m, &r1, &s0), "empty slot hit");
  cr_expect(checkSlot(&f, f.m, &r1, &s0), "same island missed");
  cr_expect(!checkSlot(&f, f.m, &r3, &s1), "empty slot hit");
  cr_expect(checkSlot(&f, f.m, &r1, &s0), "slot 0 lost to slot 1");
  cr_expect(!checkSlot(&f, f.m, &r2, &s0), "a row on other columns hit");
  cr_expect(checkSlot(&f, f.m, &r2, &s0), "same island missed");

  // the same rows over another tree: dof 8 hung below dof 4 (trees 0 and 1 one tree)
  mcModel mv = *f.m;
  int* parent = malloc(sizeof(int) * (size_t)f.m->nv);
  memcpy(parent, f.m->dof_parentid, sizeof(int) * (size_t)f.m->nv);
  parent[8] = 4;
  mv.dof_parentid = parent;
  cr_expect(!checkSlot(&f, &mv, &r2, &s0), "another dof tree hit");
  cr_expect(checkSlot(&f, &mv, &r2, &s0), "same island missed");
  cr_expect(checkSlot(&f, f.m, &r3, &s1), "slot 1 lost");
  free(parent);
  teardown(&f);
}


// the trajectory of a pile with the cache equals the one that recomputes every pattern, and the
// component pass reuses components while contacts come and go
Test(symbolic_components, pile_reuses_components) {
  mcModel* m = capsulePile("timestep=\"0.005\" solver=\"newton\" jacobian=\"sparse\"", 8, 1);
  mcData* d0 = mc_makeData(m);
  mcData* d1 = mc_makeData(m);
  int inst = m->plugin_solver;
  size_t cap = (size_t)m->plugin_datasize[inst];
  mcsSymbolicCache c = {(int*)d1->plugin_data[inst], cap / sizeof(int), 0};
  long reusedSum = 0, compSum = 0;
  for (int k = 0; k < 400; k++) {
    memset(d0->plugin_data[inst], 0, cap);
    mc_step(m, d0);
    mc_step(m, d1);
    cr_assert(!memcmp(d0->qacc, d1->qacc, sizeof(mcNum) * (size_t)m->nv), "qacc, step %d", k);
    cr_assert(!memcmp(d0->qpos, d1->qpos, sizeof(mcNum) * (size_t)m->nq), "qpos, step %d", k);
    int ncomp, reused = mcs_symbolicCacheReused(&c, &ncomp);
    if (d1->nefc > 0 && reused >= 0) {
      reusedSum += reused;
      compSum += ncomp;
    }
  }
  cr_expect_gt(reusedSum, compSum / 4, "%ld of %ld components reused", reusedSum, compSum);
  mc_deleteData(d0);
  mc_deleteData(d1);
  mc_deleteModel(m);
}


// island solves (three threads, and none) with their slots equal the island solves that
// recompute every pattern, and the slots are filled
Test(symbolic_components, island_pile_bitwise) {
  mcModel* m = capsulePile("timestep=\"0.005\" solver=\"newton\" jacobian=\"sparse\"", 8, 1);
  m->opt.enableflags |= mcENBL_ISLAND;
  mcData* d[3] = {mc_makeData(m), mc_makeData(m), mc_makeData(m)};
  mcThreadPool* pool = mc_threadPoolCreate(3);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(pool && mc_bindThreadPool(d[2], pool) == 0, "no pool");
  int inst = m->plugin_solver;
  size_t cap = (size_t)m->plugin_datasize[inst];
  int islands = 0, filled = 0;
  for (int k = 0; k < 300; k++) {
    memset(d[0]->plugin_data[inst], 0, cap);
    for (int i = 0; i < 3; i++) {
      mc_step(m, d[i]);
    }
    for (int i = 1; i < 3; i++) {
      cr_assert(!memcmp(d[0]->qacc, d[i]->qacc, sizeof(mcNum) * (size_t)m->nv), "qacc, step %d",
                k);
      cr_assert(!memcmp(d[0]->qpos, d[i]->qpos, sizeof(mcNum) * (size_t)m->nq), "qpos, step %d",
                k);
    }
    islands += d[1]->island_solved && d[1]->nisland >= 2;
  }
  for (int i = 0; i < 8; i++) {
    mcsSymbolicCache s = mcs_islandSlot(m, (int*)d[1]->plugin_data[inst], i);
    filled += s.buf && s.buf[0] == 1;
  }
  cr_expect_gt(islands, 100, "only %d steps solved by islands", islands);
  cr_expect_gt(filled, 1, "%d island slots filled", filled);
  mc_bindThreadPool(d[2], NULL);
  mc_threadPoolDelete(pool);
  for (int i = 0; i < 3; i++) {
    mc_deleteData(d[i]);
  }
  mc_deleteModel(m);
}
