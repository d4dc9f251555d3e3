// The narrow phase on the in-step thread pool (core/engine/collision_narrow.c): the caller appends
// the finished chunks that fit whole to the data while the job runs, the rest after it; the
// contact list, the contact count, the arena's use and the warnings are bitwise those of the
// serial loop for any thread count, at the contact limit (nconmax) and with a full arena. Built
// twice: as a Criterion suite and, with ROLLOUT_PLAIN, as a plain program for ThreadSanitizer
// (make test-tsan).
#ifdef ROLLOUT_PLAIN
#include "plain_test.h"
#else
#include <criterion/criterion.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

#include "engine/collision.h"
#include "engine/threadpool.h"

// candidates of the direct test: candidate i makes i % 3 contacts (0, 1 or 2, a chunk of two
// candidates may make none) and records the data's contact count when the caller starts it
#define NCAND 40

typedef struct {
  const mcData* main;             // the data the job appends to
  int seen[NCAND];                // main->ncon when candidate i started
} Direct;


static int directFn(const mcModel* m, mcData* v, mcContact* scratch, const void* list, int i) {
  (void)scratch;
  Direct* dl = (Direct*)list;
  dl->seen[i] = dl->main->ncon;
  for (int k = 0; k < i % 3; k++) {
    mcContact* con = mci_newContact(m, v);
    if (!con) {
      return 0;
    }
    memset(con, 0, sizeof(*con));
    con->dist = -0.001 * i;
    con->pos[0] = i;
    con->pos[1] = k;
    con->geom1 = i;
    con->geom2 = k;
    con->efc_address = -1;
    v->ncon++;
  }
  return 1;
}


static mcModel* loadString(const char* xml) {
  char error[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  cr_assert(m, "%s", error);
  return m;
}


// the direct candidates' job on a pool of two whose helper is held (the caller runs every chunk
// in order), chunks cut by cost (NULL: equal counts); *pool for the test to delete
static mcData* runHeld(const mcModel* m, Direct* dl, mciNarrowCostFn cost, mcThreadPool** pool) {
  mcData* d = mc_makeData(m);
  *pool = mc_threadPoolCreate(2);
  mci_poolSetEager(*pool, 1);   // the jobs on small models too
  cr_assert(d && *pool && mc_bindThreadPool(d, *pool) == 0);
  mci_poolSetSpin(*pool, 0, 1);
  memset(dl, 0, sizeof(*dl));
  dl->main = d;
  d->ncon = 0;
  d->parena = 0;
  d->contact = (mcContact*)d->arena;
  mc_markStack(d);
  mcContact* scratch = mc_stackAlloc(d, sizeof(mcContact) * mcMAXCONPAIR, _Alignof(mcContact));
  cr_assert(scratch && mci_narrowParallel(m, d, dl, NCAND, directFn, cost, scratch, 0));
  mc_freeStack(d);
  return d;
}


// the helpers held: the caller runs every chunk in order, so by its last candidate it has
// appended every earlier chunk (the counts it saw are prefix sums of the contacts before); the
// list after the job is the serial loop's
Test(narrow_append, caller_appends_finished_chunks_during_job) {
  mcModel* m = loadString("<mujoco><worldbody><geom size='1'/></worldbody></mujoco>");
  mcThreadPool* pool;
  Direct dl;
  mcData* d = runHeld(m, &dl, NULL, &pool);

  int prefix[NCAND + 1];
  prefix[0] = 0;
  for (int i = 0; i < NCAND; i++) {
    prefix[i + 1] = prefix[i] + i % 3;
  }
  cr_expect_eq(d->ncon, prefix[NCAND]);
  for (int i = 0; i < NCAND; i++) {
    int j = 0;
    while (j < i && prefix[j] != dl.seen[i]) {
      j++;
    }
    cr_expect(prefix[j] == dl.seen[i], "candidate %d saw %d contacts", i, dl.seen[i]);
    cr_expect(i == 0 || dl.seen[i] >= dl.seen[i - 1]);
  }
  cr_expect(dl.seen[NCAND - 1] > 0, "nothing appended while the job ran");

  // the serial loop's list: candidate order, each candidate's contacts in order
  int c = 0;
  for (int i = 0; i < NCAND; i++) {
    for (int k = 0; k < i % 3; k++, c++) {
      cr_expect(d->contact[c].geom1 == i && d->contact[c].geom2 == k);
      cr_expect(d->contact[c].dist == -0.001 * i && d->contact[c].pos[1] == k);
    }
  }
  long taken[2] = {0, 0};
  mci_poolTaken(pool, taken);
  cr_expect(taken[1] == 0, "held helpers ran %ld tasks", taken[1]);

  mc_bindThreadPool(d, NULL);
  mc_threadPoolDelete(pool);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the cost of candidate i of the cost tests: the last tenth ten times the rest (as humanoid100's
// objects, whose GJK pairs end its candidate list)
static int tailCost(const mcModel* m, const void* list, int i) {
  (void)m;
  const int* n = (const int*)list;
  return i >= *n - *n / 10 ? 10 : 1;
}


Test(narrow_append, chunks_cut_by_cost_tile_the_candidates) {
  // 450 candidates in 57 tasks (humanoid100's narrow phase on two threads): each chunk's cost is
  // within the even share plus one candidate's, the chunks tile 0 .. n-1 once in order, and the
  // costly tail is cut finer than the rest; without a cost, equal counts
  int n = 450, ntask = 57, first[58];
  mci_narrowChunks(NULL, &n, n, tailCost, ntask, first, NULL);
  int again[58];
  long sum[450];
  mci_narrowChunks(NULL, &n, n, tailCost, ntask, again, sum);
  cr_expect(!memcmp(first, again, sizeof(first)), "the same cut with the sums stored");
  long total = 0;
  for (int i = 0; i < n; i++) {
    total += tailCost(NULL, &n, i);
  }
  cr_expect(first[0] == 0 && first[ntask] == n);
  int maxhead = 0, maxtail = 0;
  for (int t = 0; t < ntask; t++) {
    cr_expect(first[t + 1] >= first[t], "chunk %d ends before it starts", t);
    long cost = 0;
    for (int i = first[t]; i < first[t + 1]; i++) {
      cost += tailCost(NULL, &n, i);
    }
    cr_expect(cost * ntask < total + 10L * ntask, "chunk %d costs %ld of %ld", t, cost, total);
    int len = first[t + 1] - first[t];
    if (first[t] >= n - n / 10) {
      maxtail = len > maxtail ? len : maxtail;
    } else if (first[t + 1] <= n - n / 10) {
      maxhead = len > maxhead ? len : maxhead;
    }
  }
  cr_expect(maxtail > 0 && maxtail * 4 < maxhead, "costly chunks of %d, cheap ones of %d", maxtail,
            maxhead);
  mci_narrowChunks(NULL, &n, n, NULL, ntask, first, NULL);
  for (int t = 0; t <= ntask; t++) {
    cr_expect_eq(first[t], (int)((long)n * t / ntask));
  }
}


// the job cuts its chunks by the cost given: with the helpers held the caller runs the chunks in
// order and appends each after it, so a candidate sees the contacts of the chunks before its own
// (the direct test's candidates, the last tenth costly)
static int directCost(const mcModel* m, const void* list, int i) {
  (void)m;
  (void)list;
  return i >= NCAND - NCAND / 10 ? 10 : 1;
}


Test(narrow_append, job_uses_the_cost_cut) {
  mcModel* m = loadString("<mujoco><worldbody><geom size='1'/></worldbody></mujoco>");
  mcThreadPool* pool;
  Direct dl;
  mcData* d = runHeld(m, &dl, directCost, &pool);

  // the chunks the job ran (its task count: 40 candidates in chunks of 2 on average)
  int ntask = NCAND / 2, first[NCAND / 2 + 1], prefix[NCAND + 1];
  mci_narrowChunks(m, &dl, NCAND, directCost, ntask, first, NULL);
  prefix[0] = 0;
  for (int i = 0; i < NCAND; i++) {
    prefix[i + 1] = prefix[i] + i % 3;
  }
  cr_expect_eq(d->ncon, prefix[NCAND]);
  for (int t = 0; t < ntask; t++) {
    for (int i = first[t]; i < first[t + 1]; i++) {
      cr_expect_eq(dl.seen[i], prefix[first[t]], "candidate %d of chunk %d saw %d contacts", i, t,
                   dl.seen[i]);
    }
  }
  mc_bindThreadPool(d, NULL);
  mc_threadPoolDelete(pool);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the cost of the cut-ahead test's candidates (directCost's) counting its calls
static int g_costCalls;
static int countedCost(const mcModel* m, const void* list, int i) {
  g_costCalls++;
  return directCost(m, list, i);
}


// chunks cut ahead (as the broad-phase task does, on a helper) are the job's own cut, and the job
// takes them without a cost pass of its own; the contacts are the serial loop's
Test(narrow_append, chunks_cut_ahead_are_taken_as_cut) {
  mcModel* m = loadString("<mujoco><worldbody><geom size='1'/></worldbody></mujoco>");
  mcData* d = mc_makeData(m);
  mcThreadPool* pool = mc_threadPoolCreate(2);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(d && pool && mc_bindThreadPool(d, pool) == 0);
  mci_poolSetSpin(pool, 0, 1);
  Direct dl;
  memset(&dl, 0, sizeof(dl));
  dl.main = d;
  int ntask = NCAND / 2, first[NCAND / 2 + 1];
  long sum[NCAND];
  mci_narrowChunks(m, &dl, NCAND, directCost, ntask, first, sum);
  g_costCalls = 0;
  int cut = mci_narrowCutAhead(m, d, &dl, NCAND, countedCost);
  cr_expect_eq(cut, ntask);
  cr_expect_eq(g_costCalls, NCAND, "%d calls of the cost for %d candidates (sums on d's stack: one "
               "a candidate)", g_costCalls, NCAND);
  const mciNarrowTables* tab = mci_narrowTables(d);
  for (int t = 0; t <= ntask; t++) {
    cr_expect_eq(tab->first[t], first[t], "chunk %d starts at %d, not %d", t, tab->first[t],
                 first[t]);
  }

  g_costCalls = 0;
  d->ncon = 0;
  d->parena = 0;
  d->contact = (mcContact*)d->arena;
  mc_markStack(d);
  mcContact* scratch = mc_stackAlloc(d, sizeof(mcContact) * mcMAXCONPAIR, _Alignof(mcContact));
  cr_assert(scratch && mci_narrowParallel(m, d, &dl, NCAND, directFn, countedCost, scratch, cut));
  mc_freeStack(d);
  cr_expect_eq(g_costCalls, 0, "the job cut the chunks again");
  int c = 0;
  for (int i = 0; i < NCAND; i++) {
    for (int k = 0; k < i % 3; k++, c++) {
      cr_expect(d->contact[c].geom1 == i && d->contact[c].geom2 == k);
    }
  }
  cr_expect_eq(d->ncon, c);

  // a count that is not the job's: cut again (one call a candidate)
  d->ncon = 0;
  d->parena = 0;
  mc_markStack(d);
  scratch = mc_stackAlloc(d, sizeof(mcContact) * mcMAXCONPAIR, _Alignof(mcContact));
  cr_assert(scratch && mci_narrowParallel(m, d, &dl, NCAND, directFn, countedCost, scratch, 0));
  mc_freeStack(d);
  cr_expect_eq(g_costCalls, NCAND);
  cr_expect_eq(d->ncon, c);

  mc_bindThreadPool(d, NULL);
  mc_threadPoolDelete(pool);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// a heap of nine by nine overlapping spheres, capsules and boxes on a floor (over 150 contacts);
// memory in bytes of the arena (0: the default)
static mcModel* heap(int memory) {
  char* xml = malloc(1 << 16);
  cr_assert(xml);
  int n = memory > 0 ? snprintf(xml, 1 << 16, "<mujoco><size memory='%d'/>", memory) :
                       snprintf(xml, 1 << 16, "<mujoco>");
  n += snprintf(xml + n, (size_t)((1 << 16) - n),
                "<worldbody><geom type='plane' size='5 5 .1'/>");
  for (int i = 0; i < 9; i++) {
    for (int j = 0; j < 9; j++) {
      n += snprintf(xml + n, (size_t)((1 << 16) - n),
                    "<body pos='%g %g %g'><freejoint/><geom type='%s' size='.1 .08 .06'/></body>",
                    0.17 * i, 0.17 * j, 0.09 + 0.01 * ((i + j) % 3),
                    (i * 9 + j) % 4 == 3 ? "box" : (i + j) % 2 ? "sphere" : "capsule");
    }
  }
  snprintf(xml + n, (size_t)((1 << 16) - n), "</worldbody></mujoco>");
  mcModel* m = loadString(xml);
  free(xml);
  return m;
}


typedef struct {
  int ncon, nconmax_warn, nconmax_info, arena_warn, maxuse_con, nefc;
  size_t parena, maxuse_arena;
  unsigned long long rest;        // hash of qacc and the rows' forces after mc_forward
  mcContact* con;                 // ncon contacts (malloc)
} Outcome;


// FNV-1a over n bytes, continuing h
static unsigned long long hashBytes(unsigned long long h, const void* p, size_t n) {
  const unsigned char* b = (const unsigned char*)p;
  for (size_t i = 0; i < n; i++) {
    h = (h ^ b[i]) * 1099511628211ULL;
  }
  return h;
}


// mc_forward on the heap with nthread threads (0: no pool; negative: -nthread with the helpers
// held)
static Outcome forwardHeap(const mcModel* m, int nthread) {
  mcData* d = mc_makeData(m);
  cr_assert(d);
  mcThreadPool* pool = NULL;
  if (nthread != 0) {
    pool = mc_threadPoolCreate(nthread < 0 ? -nthread : nthread);
    mci_poolSetEager(pool, 1);   // the jobs on small models too
    cr_assert(pool && mc_bindThreadPool(d, pool) == 0);
    if (nthread < 0) {
      mci_poolSetSpin(pool, 0, 1);
    }
  }
  mc_forward(m, d);
  Outcome o;
  o.ncon = d->ncon;
  o.nconmax_warn = d->warning[mcWARN_CONTACTFULL].number;
  o.nconmax_info = d->warning[mcWARN_CONTACTFULL].lastinfo;
  o.arena_warn = d->warning[mcWARN_CNSTRFULL].number;
  o.maxuse_con = d->maxuse_con;
  o.parena = d->parena;
  o.maxuse_arena = d->maxuse_arena;
  o.nefc = d->nefc;
  o.rest = hashBytes(14695981039346656037ULL, d->qacc, sizeof(mcNum) * (size_t)m->nv);
  o.rest = hashBytes(o.rest, d->efc_force, sizeof(mcNum) * (size_t)d->nefc);
  o.con = malloc(sizeof(mcContact) * (size_t)(d->ncon + 1));
  cr_assert(o.con);
  memcpy(o.con, d->contact, sizeof(mcContact) * (size_t)d->ncon);
  if (pool) {
    mc_bindThreadPool(d, NULL);
    mc_threadPoolDelete(pool);
  }
  mc_deleteData(d);
  return o;
}


static void expectSame(const Outcome* a, const Outcome* b, const char* what) {
  cr_expect(a->ncon == b->ncon, "%s: ncon %d vs %d", what, a->ncon, b->ncon);
  cr_expect(a->nconmax_warn == b->nconmax_warn && a->nconmax_info == b->nconmax_info,
            "%s: contact-full warnings differ", what);
  cr_expect(a->arena_warn == b->arena_warn && a->maxuse_con == b->maxuse_con, "%s", what);
  cr_expect(a->parena == b->parena && a->maxuse_arena == b->maxuse_arena, "%s: arena", what);
  cr_expect(a->ncon != b->ncon ||
            memcmp(a->con, b->con, sizeof(mcContact) * (size_t)a->ncon) == 0,
            "%s: contacts differ", what);
  cr_expect(a->nefc == b->nefc && a->rest == b->rest, "%s: rows or qacc differ", what);
}


static void sameAnyThreads(const mcModel* m, const char* what, int* ncon) {
  Outcome ref = forwardHeap(m, 0);
  const int threads[4] = {1, 2, 3, -2};
  for (int k = 0; k < 4; k++) {
    Outcome o = forwardHeap(m, threads[k]);
    char name[128];
    snprintf(name, sizeof(name), "%s, %d threads", what, threads[k]);
    expectSame(&ref, &o, name);
    free(o.con);
  }
  *ncon = ref.ncon;
  free(ref.con);
}


Test(narrow_append, same_contacts_any_thread_count) {
  mcModel* m = heap(0);
  int ncon = 0;
  sameAnyThreads(m, "heap", &ncon);
  cr_expect(ncon > 150, "the heap makes %d contacts", ncon);
  mc_deleteModel(m);
}


// cylinders and ellipsoids among the heap's shapes (pairs only GJK collides): the chunks are cut
// by cost, in the broad-phase task of the beside job (mc_forward on a pool), and the contacts,
// warnings and the rest of the step are the same for any thread count
Test(narrow_append, same_contacts_with_chunks_cut_ahead) {
  char* xml = malloc(1 << 16);
  cr_assert(xml);
  int n = snprintf(xml, 1 << 16, "<mujoco><worldbody><geom type='plane' size='5 5 .1'/>");
  for (int i = 0; i < 7; i++) {
    for (int j = 0; j < 7; j++) {
      n += snprintf(xml + n, (size_t)((1 << 16) - n),
                    "<body pos='%g %g %g'><freejoint/><geom type='%s' size='.1 .08 .06'/></body>",
                    0.17 * i, 0.17 * j, 0.09 + 0.01 * ((i + j) % 3),
                    (i + j) % 3 == 0 ? "cylinder" : (i + j) % 3 == 1 ? "ellipsoid" : "capsule");
    }
  }
  snprintf(xml + n, (size_t)((1 << 16) - n), "</worldbody></mujoco>");
  mcModel* m = loadString(xml);
  free(xml);
  int ncon = 0;
  sameAnyThreads(m, "GJK heap", &ncon);
  cr_expect(ncon > 40, "the GJK heap makes %d contacts", ncon);
  mc_deleteModel(m);
}


// the limit inside a chunk, at its end and at the first contact: the job stops appending at the
// chunk that does not fit whole and the serial append fills and warns as the serial loop
Test(narrow_append, same_contacts_at_the_contact_limit) {
  mcModel* m = heap(0);
  int full = 0;
  sameAnyThreads(m, "heap", &full);
  const int limits[6] = {1, 2, 7, 64, full / 2 + 1, full - 1};
  for (int k = 0; k < 6; k++) {
    m->nconmax = limits[k];
    char what[64];
    snprintf(what, sizeof(what), "nconmax %d", limits[k]);
    int ncon = 0;
    sameAnyThreads(m, what, &ncon);
    cr_expect(ncon == limits[k], "%s: %d contacts", what, ncon);
  }
  mc_deleteModel(m);
}


// arenas too small for every contact: the job's whole-chunk allocation fails where the serial
// append after it fills the arena contact by contact: with the helpers held (the caller appends
// every chunk during the job) and free (part after it)
Test(narrow_append, same_contacts_with_a_full_arena) {
  const int memory[3] = {60000, 90000, 120000};
  for (int k = 0; k < 3; k++) {
    mcModel* m = heap(memory[k]);
    for (int nthread = 2; nthread <= 3; nthread++) {
      Outcome held = forwardHeap(m, -nthread);
      cr_expect(held.nconmax_warn > 0, "memory %d: the arena did not fill", memory[k]);
      for (int run = 0; run < 3; run++) {
        Outcome o = forwardHeap(m, nthread);
        char what[64];
        snprintf(what, sizeof(what), "memory %d, %d threads", memory[k], nthread);
        expectSame(&held, &o, what);
        free(o.con);
      }
      free(held.con);
    }
    mc_deleteModel(m);
  }
}


// arenas that fill during the narrow phase hold the same contacts with and without a pool, for
// any thread count (the pool's task tables are the workspace's, and its chunks redone on the
// caller use the serial loop's scratch: both paths leave contacts the same room), and the rest
// of the step, whose rows come from the same arena, is the same; islands off and on
Test(narrow_append, full_arena_same_for_any_thread_count) {
  int filled = 0;
  for (int island = 0; island < 2; island++) {
    for (int memory = 50000; memory <= 130000; memory += 4000) {
      mcModel* m = heap(memory);
      if (island) {
        m->opt.enableflags |= mcENBL_ISLAND;
      }
      Outcome ref = forwardHeap(m, 0);
      filled += ref.nconmax_warn > 0;
      const int threads[4] = {1, 2, 3, -3};
      for (int k = 0; k < 4; k++) {
        Outcome o = forwardHeap(m, threads[k]);
        char what[96];
        snprintf(what, sizeof(what), "memory %d, islands %d, %d threads", memory, island,
                 threads[k]);
        expectSame(&ref, &o, what);
        free(o.con);
      }
      free(ref.con);
      mc_deleteModel(m);
    }
  }
  cr_expect(filled >= 10, "the arena filled in %d runs", filled);
}
