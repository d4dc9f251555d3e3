// The host's per-tree jobs for plugins (ABI 1.10, core/engine/plugin_trees.c) and the euler
// integrator's step on them (plugins/integrator-euler/euler.c): runTrees cuts the model into
// ranges of whole trees that cover every body, joint, dof and qpos entry once, as one job on the
// pool, and falls back to one whole-model call on the caller; integratePosRange gives
// mc_integratePos's bits on any cut of the joints; the euler step is one job of the cut's tasks
// and its results are bitwise the same without a pool, with 1, 2 and 3 threads and on a host
// older than 1.10 (the whole-model path), with damping on every tree, on some, on none, and with
// an actuator's drag. Built twice: as a Criterion suite and, with ROLLOUT_PLAIN, as a plain
// program for ThreadSanitizer (make test-tsan).
#ifdef ROLLOUT_PLAIN
#include "plain_test.h"
#else
#include <criterion/criterion.h>
#endif
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "../rollout/pool_test_util.h"

#include "engine/threadpool.h"
#include "plugin/registry.h"

#define NTREE 24                  // trees: 12 dofs each, 288 in all (over euler's MINDOF, 256)

#ifdef __SANITIZE_THREAD__
#define NSTEP 25
#else
#define NSTEP 80
#endif

// damping of the scene's joints
enum { DAMP_ALL, DAMP_NONE, DAMP_SOME, DAMP_DRAG };

// ntree trees falling on a plane: a free base, a ball, a hinge, a slide and a hinge in a chain
// (quaternions in two joints of each tree), damped on every tree (DAMP_ALL, DAMP_DRAG), on the
// even trees (DAMP_SOME: the others reuse the factor of M) or nowhere; DAMP_DRAG adds a dcmotor
// with polynomial drag on tree 1's first hinge (h D made on the caller) and a motor on each tree
static char* sceneXML(int ntree, int damp) {
  size_t cap = 4096 + 1200 * (size_t)ntree, len = 0;
  char* xml = malloc(cap);
  cr_assert(xml);
  len += (size_t)snprintf(xml + len, cap - len,
                          "<mujoco><option timestep='0.004'/><worldbody>"
                          "<geom type='plane' size='20 20 .1'/>");
  for (int k = 0; k < ntree; k++) {
    int damped = damp == DAMP_ALL || damp == DAMP_DRAG || (damp == DAMP_SOME && k % 2 == 0);
    const char* dm = damped ? " damping='.3'" : "";
    len += (size_t)snprintf(
        xml + len, cap - len,
        "<body pos='%d %d .5' euler='10 %d 5'><freejoint/>"
        "<geom type='box' size='.1 .08 .05'/>"
        "<body pos='0 0 .15'><joint type='ball'%s/><geom type='capsule' size='.03 .08'/>"
        "<body pos='0 0 .2'><joint name='h%d' axis='1 0 0'%s/><geom type='sphere' size='.04'/>"
        "<body pos='0 .1 0'><joint type='slide' axis='0 1 0'%s/><geom size='.03'/>"
        "<body pos='.1 0 0'><joint name='g%d' axis='0 1 0'%s/><geom size='.03'/>"
        "</body></body></body></body></body>",
        (k % 6) * 2, (k / 6) * 2, 7 * k, dm, k, dm, dm, k, dm);
  }
  len += (size_t)snprintf(xml + len, cap - len, "</worldbody><actuator>");
  for (int k = 0; k < ntree; k++) {
    len += (size_t)snprintf(xml + len, cap - len, "<motor joint='g%d' gear='2'/>", k);
  }
  if (damp == DAMP_DRAG) {
    len += (size_t)snprintf(xml + len, cap - len,
                            "<dcmotor joint='h1' resistance='2' motorconst='.1' "
                            "damping='0 .02 .01'/>");
  }
  snprintf(xml + len, cap - len, "</actuator></mujoco>");
  return xml;
}


static const mcpHost* host(void) {
  const mcpHost* h = mcp_host();
  cr_assert(h->struct_size >= offsetof(mcpHost, integratePosRange) + sizeof(void*));
  cr_assert(h->runTrees && h->solveMDampedRange && h->integratePosRange);
  return h;
}


//---------------------------------- runTrees ------------------------------------------------------

#define MAXREC 64

typedef struct {
  mcpTreeRange range[MAXREC];     // what task index k was given (each task writes its own slot)
  int calls[MAXREC];              // how often index k ran
} Record;


static void recordTask(void* ctx, const mcpTreeRange* r) {
  Record* rec = (Record*)ctx;
  if (r->index >= 0 && r->index < MAXREC) {
    rec->range[r->index] = *r;
    rec->calls[r->index]++;
  }
}


// the n recorded ranges tile bodies 1.., joints, dofs and qpos in order, each of whole trees, each
// run once
static void checkRanges(const mcModel* m, const Record* rec, int n) {
  cr_assert(n >= 1 && n <= MAXREC);
  for (int k = 0; k < n; k++) {
    const mcpTreeRange* r = rec->range + k;
    cr_expect_eq(rec->calls[k], 1);
    cr_expect_eq(r->index, k);
    cr_expect_eq(r->count, n);
    cr_expect_eq(r->body0, k ? rec->range[k - 1].body1 : 1);
    cr_expect_eq(r->jnt0, k ? rec->range[k - 1].jnt1 : 0);
    cr_expect_eq(r->dof0, k ? rec->range[k - 1].dof1 : 0);
    cr_expect_eq(r->qpos0, k ? rec->range[k - 1].qpos1 : 0);
    cr_expect(r->body0 < r->body1);
    for (int b = r->body0; b < r->body1; b++) {
      int root = m->body_rootid[b];
      cr_expect(root >= r->body0 && root < r->body1);   // whole trees
    }
    for (int j = r->jnt0; j < r->jnt1; j++) {
      cr_expect(m->jnt_bodyid[j] >= r->body0 && m->jnt_bodyid[j] < r->body1);
    }
    for (int i = r->dof0; i < r->dof1; i++) {
      cr_expect(m->dof_bodyid[i] >= r->body0 && m->dof_bodyid[i] < r->body1);
    }
    cr_expect_eq(r->qpos0, r->jnt0 < m->njnt ? m->jnt_qposadr[r->jnt0] : m->nq);
  }
  const mcpTreeRange* last = rec->range + n - 1;
  cr_expect_eq(last->body1, m->nbody);
  cr_expect_eq(last->jnt1, m->njnt);
  cr_expect_eq(last->dof1, m->nv);
  cr_expect_eq(last->qpos1, m->nq);
  for (int k = n; k < MAXREC; k++) {
    cr_expect_eq(rec->calls[k], 0);
  }
}


Test(plugin_trees, ranges_cover_every_tree_once_as_one_job) {
  mcModel* m = pt_loadOwnedXML(sceneXML(NTREE, DAMP_ALL));
  mcData* d = mc_makeData(m);
  cr_assert(d);
  for (int nthread = 2; nthread <= 3; nthread++) {
    mcThreadPool* pool = mc_threadPoolCreate(nthread);
    mci_poolSetEager(pool, 1);   // the jobs on small models too
    cr_assert(pool);
    cr_assert_eq(mc_bindThreadPool(d, pool), 0);
    for (int hold = 0; hold <= 1; hold++) {
      mci_poolSetSpin(pool, 100000, hold);
      long taken[4] = {0};
      mci_poolTaken(pool, taken);
      static Record rec;
      memset(&rec, 0, sizeof(rec));
      int n = host()->runTrees(m, d, recordTask, &rec, 0);
      cr_expect(n >= 2, "%d threads: %d ranges", nthread, n);
      checkRanges(m, &rec, n);
      mci_poolTaken(pool, taken);
      long total = 0;
      for (int t = 0; t < nthread; t++) {
        total += taken[t];
      }
      cr_expect_eq(total, n);   // one job of n tasks on the pool
      if (hold) {
        cr_expect_eq(taken[0], n);   // helpers held: the caller ran them all
      }
    }
    mc_bindThreadPool(d, NULL);
    mc_threadPoolDelete(pool);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}


// one call with the whole model, on the caller
static void expectSerial(const mcModel* m, mcData* d, int mindof, mcThreadPool* pool) {
  static Record rec;
  memset(&rec, 0, sizeof(rec));
  long taken[4] = {0};
  if (pool) {
    mci_poolTaken(pool, taken);
  }
  cr_expect_eq(host()->runTrees(m, d, recordTask, &rec, mindof), 1);
  checkRanges(m, &rec, 1);
  cr_expect_eq(rec.range[0].body0, 1);
  if (pool) {
    mci_poolTaken(pool, taken);
    cr_expect_eq(taken[0] + taken[1], 0);   // no job
  }
}


Test(plugin_trees, serial_fallback_is_one_whole_call) {
  mcModel* m = pt_loadOwnedXML(sceneXML(NTREE, DAMP_ALL));
  mcData* d = mc_makeData(m);
  cr_assert(d);
  expectSerial(m, d, 0, NULL);    // no pool
  mcThreadPool* one = mc_threadPoolCreate(1);
  mci_poolSetEager(one, 1);   // the jobs on small models too
  cr_assert_eq(mc_bindThreadPool(d, one), 0);
  expectSerial(m, d, 0, NULL);    // a pool of one thread
  mc_bindThreadPool(d, NULL);
  mc_threadPoolDelete(one);

  mcThreadPool* pool = mc_threadPoolCreate(2);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert_eq(mc_bindThreadPool(d, pool), 0);
  expectSerial(m, d, m->nv + 1, pool);   // too little work for the plugin
  mc_setPluginCheck(d, 1);
  expectSerial(m, d, 0, pool);           // check mode
  mc_setPluginCheck(d, 0);
  mc_bindThreadPool(d, NULL);
  mc_deleteData(d);
  mc_deleteModel(m);

  // one tree: nothing to cut
  m = pt_loadOwnedXML(sceneXML(1, DAMP_ALL));
  d = mc_makeData(m);
  cr_assert_eq(mc_bindThreadPool(d, pool), 0);
  expectSerial(m, d, 0, pool);
  mc_bindThreadPool(d, NULL);
  mc_threadPoolDelete(pool);
  mc_deleteData(d);
  mc_deleteModel(m);
}


//---------------------------------- integratePosRange ---------------------------------------------

Test(plugin_trees, integrate_pos_range_bitwise_on_any_split) {
  mcModel* m = pt_loadOwnedXML(sceneXML(3, DAMP_NONE));
  mcNum* qvel = malloc(sizeof(mcNum) * (size_t)m->nv);
  mcNum* whole = malloc(sizeof(mcNum) * (size_t)m->nq);
  mcNum* split = malloc(sizeof(mcNum) * (size_t)m->nq);
  cr_assert(qvel && whole && split);
  for (int i = 0; i < m->nv; i++) {
    qvel[i] = 0.7 * (i % 5) - 1.3 + 0.01 * i;
  }
  mc_integratePos(m, memcpy(whole, m->qpos0, sizeof(mcNum) * (size_t)m->nq), qvel, 0.013);
  for (int s = 0; s <= m->njnt; s++) {
    for (int e = s; e <= m->njnt; e++) {
      memcpy(split, m->qpos0, sizeof(mcNum) * (size_t)m->nq);
      host()->integratePosRange(m, split, qvel, 0.013, 0, s);
      host()->integratePosRange(m, split, qvel, 0.013, s, e);
      host()->integratePosRange(m, split, qvel, 0.013, e, m->njnt);
      cr_expect(memcmp(split, whole, sizeof(mcNum) * (size_t)m->nq) == 0, "split %d %d", s, e);
    }
  }
  free(qvel);
  free(whole);
  free(split);
  mc_deleteModel(m);
}


//---------------------------------- the euler step ------------------------------------------------

// controls that move every tree (and the dcmotor)
static void drive(const mcModel* m, mcData* d, int s) {
  for (int i = 0; i < m->nu; i++) {
    d->ctrl[i] = 0.4 * ((s + 3 * i) % 7 - 3) / 3.0;
  }
}


static unsigned long long hashState(const mcModel* m, const mcData* d, unsigned long long h) {
  h = pt_hashNums(h, d->qpos, (size_t)m->nq);
  h = pt_hashNums(h, d->qvel, (size_t)m->nv);
  h = pt_hashNums(h, d->act, (size_t)m->na);
  h = pt_hashNums(h, d->qacc, (size_t)m->nv);
  h = pt_hashNums(h, d->qacc_warmstart, (size_t)m->nv);
  return pt_hashNums(h, &d->time, 1);
}


// hash of the state after each of nstep steps with nthread threads (0: no pool)
static unsigned long long runHash(const mcModel* m, int nthread, int nstep) {
  mcThreadPool* pool;
  mcData* d = pt_makeData(m, nthread, &pool);
  unsigned long long h = PT_HASH0;
  for (int s = 0; s < nstep; s++) {
    drive(m, d, s);
    mc_step(m, d);
    h = hashState(m, d, h);
  }
  pt_deleteData(d, pool);
  return h;
}


// each step's forward dynamics, then euler's step through a host of ABI 1.10 on a pool of two
// (one job: the cut's tasks, counted) and through a host of 1.9 (the whole-model path) on a copy:
// the same bits
static void sameAsWholeModelPath(const mcModel* m, int nstep) {
  const mcpIntegrator* euler = (const mcpIntegrator*)mcp_find(mcpKIND_INTEGRATOR, "euler");
  cr_assert(euler);
  mcpHost old = *host();
  old.struct_size = (uint32_t)offsetof(mcpHost, runTrees);   // as a 1.9 core
  old.abi_minor = 9;
  mcData* d = mc_makeData(m);
  mcData* e = mc_makeData(m);
  cr_assert(d && e);
  mcThreadPool* pool = mc_threadPoolCreate(2);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert_eq(mc_bindThreadPool(d, pool), 0);
  static Record rec;
  int n = host()->runTrees(m, d, recordTask, &rec, 0);
  cr_expect(n >= 2);
  for (int s = 0; s < nstep; s++) {
    drive(m, d, s);
    mc_forward(m, d);
    mc_copyData(e, m, d);
    long taken[2] = {0};
    mci_poolTaken(pool, taken);
    euler->step(host(), m, d);
    mci_poolTaken(pool, taken);
    cr_expect_eq(taken[0] + taken[1], n, "step %d: %ld tasks, not one job of %d", s,
                 taken[0] + taken[1], n);
    euler->step(&old, m, e);
    cr_expect(hashState(m, d, 1) == hashState(m, e, 1), "step %d differs", s);
  }
  mc_bindThreadPool(d, NULL);
  mc_threadPoolDelete(pool);
  mc_deleteData(e);
  mc_deleteData(d);
}


static void eulerBitwise(int damp) {
  mcModel* m = pt_loadOwnedXML(sceneXML(NTREE, damp));
  cr_assert(m->nv >= 256);
  cr_assert_eq(m->opt.integrator, mcINT_EULER);
  unsigned long long h0 = runHash(m, 0, NSTEP);
  for (int t = 1; t <= 3; t++) {
    cr_expect(runHash(m, t, NSTEP) == h0, "%d threads differ", t);
  }
  sameAsWholeModelPath(m, NSTEP / 4);
  mc_deleteModel(m);
}


Test(plugin_trees, euler_damped_bitwise_any_thread_count) {
  eulerBitwise(DAMP_ALL);
}


Test(plugin_trees, euler_undamped_bitwise_any_thread_count) {
  eulerBitwise(DAMP_NONE);
}


Test(plugin_trees, euler_some_trees_damped_bitwise_any_thread_count) {
  eulerBitwise(DAMP_SOME);
}


Test(plugin_trees, euler_actuator_drag_bitwise_any_thread_count) {
  eulerBitwise(DAMP_DRAG);
}
