// The core stages run on the in-step thread pool (core/engine/parallel_stages.c): passive forces
// and transmissions beside the broad phase, the smooth acceleration per tree, the Euler damped
// solve per tree. Each gives bitwise the serial results without a pool and with 1, 2 and 3
// threads, on a model that exercises them: joint springs and dampers, gravity compensation,
// applied Cartesian forces, actuators with activation on joints and a tendon, and trees large
// enough for the pooled solves. Built twice, as island/test_island.c is: a Criterion suite and a
// plain program for ThreadSanitizer (make test-tsan).
#ifdef ROLLOUT_PLAIN
#include "plain_test.h"
#else
#include <criterion/criterion.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

#include "../rollout/pool_test_util.h"

#include "engine/parallel_stages.h"
#include "engine/threadpool.h"

#define NCHAIN 6                  // hanging chains (trees) of CHAIN hinges each: 6 x 40 x 39 / 2
#define CHAIN 40                  // off-diagonal entries of M, above the pooled solves' threshold

// the chains' model; tendon: a fixed tendon per chain couples two of its joints with a spring
// and a damper when springy (the passive forces are then whole, not per tree), an actuator pulls
// it always; site: one more actuator, on a site (the transmissions then wait for collision)
static mcModel* chains(int springy, int site) {
  size_t size = 1 << 20, n = 0;
  char* xml = malloc(size);
  cr_assert(xml);
  n += (size_t)snprintf(xml + n, size - n,
                        "<mujoco><option timestep='.002'/><worldbody>"
                        "<geom type='plane' size='10 10 .1'/>"
                        "<body name='free' pos='0 -2 1' gravcomp='.5'><freejoint/>"
                        "<geom type='box' size='.1 .2 .1'/></body>");
  for (int c = 0; c < NCHAIN; c++) {
    n += (size_t)snprintf(xml + n, size - n, "<body pos='%d 0 4.2'>", c);
    for (int k = 0; k < CHAIN; k++) {
      n += (size_t)snprintf(xml + n, size - n,
                            "<joint name='j%d_%d' axis='%s' damping='%s' stiffness='%s'/>"
                            "<geom type='capsule' fromto='0 0 0 0 0 -.1' size='.02'/>"
                            "<body pos='0 0 -.1'%s>%s",
                            c, k, k % 2 ? "1 0 0" : "0 1 0", k % 3 ? ".02" : "0",
                            k % 4 ? "0" : ".3", k == CHAIN / 2 ? " gravcomp='1'" : "",
                            c == 0 && k == 5 ? "<site name='s'/>" : "");
    }
    n += (size_t)snprintf(xml + n, size - n, "<geom type='sphere' size='.05'/>");
    for (int k = 0; k <= CHAIN; k++) {
      n += (size_t)snprintf(xml + n, size - n, "</body>");
    }
  }
  n += (size_t)snprintf(xml + n, size - n, "</worldbody><tendon>");
  for (int c = 0; c < NCHAIN; c++) {
    n += (size_t)snprintf(xml + n, size - n,
                          "<fixed name='t%d'%s><joint joint='j%d_1' coef='1'/>"
                          "<joint joint='j%d_3' coef='-.5'/></fixed>",
                          c, springy ? " stiffness='2' damping='.5'" : "", c, c);
  }
  n += (size_t)snprintf(xml + n, size - n, "</tendon><actuator>");
  for (int c = 0; c < NCHAIN; c++) {
    n += (size_t)snprintf(xml + n, size - n,
                          "<general joint='j%d_0' dyntype='filter' dynprm='.05' gainprm='3'/>"
                          "<general joint='j%d_6' dyntype='integrator' gainprm='2' "
                          "actlimited='true' actrange='-1 1'/>"
                          "<motor joint='j%d_9' gear='2'/><motor tendon='t%d'/>",
                          c, c, c, c);
  }
  snprintf(xml + n, size - n, "%s</actuator></mujoco>",
           site ? "<general site='s' gear='0 1 0 0 0 0' gainprm='1'/>" : "");
  return pt_loadOwnedXML(xml);
}


// controls that move every actuator, and a push on the free body and one link per chain
static void drive(const mcModel* m, mcData* d, int step) {
  for (int i = 0; i < m->nu; i++) {
    d->ctrl[i] = 0.5 * (((i + step / 40) % 3) - 1);
  }
  memset(d->xfrc_applied, 0, sizeof(mcNum) * 6 * (size_t)m->nbody);
  for (int b = 1; b < m->nbody; b += CHAIN / 2 + 1) {
    d->xfrc_applied[6 * b + (step / 25) % 6] = step % 50 < 25 ? 0.3 : -0.2;
  }
}


// hash of every output of the moved stages after each of nstep steps with nthread threads (0:
// no pool); early: mc_step (the velocity stage's parts beside the broad phase on a pool), else
// mc_step1 + mc_step2 (the stages separately)
static unsigned long long runHash(const mcModel* m, int nthread, int nstep, int early) {
  mcData* d = mc_makeData(m);
  mcThreadPool* pool = NULL;
  cr_assert(d);
  if (nthread > 0) {
    pool = mc_threadPoolCreate(nthread);
    cr_assert(pool);
    cr_assert_eq(mc_bindThreadPool(d, pool), 0);
  }
  unsigned long long h = 1469598103934665603ULL;
  for (int s = 0; s < nstep; s++) {
    drive(m, d, s);
    if (early) {
      mc_step(m, d);
    } else {
      mc_step1(m, d);
      mc_step2(m, d);
    }
    const mcNum* arr[14] = {d->qpos, d->qvel, d->act, d->qacc, d->qfrc_passive,
                            d->qfrc_gravcomp, d->qfrc_actuator, d->qfrc_smooth, d->qacc_smooth,
                            d->actuator_length, d->actuator_moment, d->act_dot,
                            d->actuator_velocity, d->ten_velocity};
    size_t len[14] = {m->nq, m->nv, m->na, m->nv, m->nv, m->nv, m->nv, m->nv, m->nv, m->nu,
                      (size_t)m->nu * m->nv, m->na, m->nu, m->ntendon};
    for (int a = 0; a < 14; a++) {
      h = pt_hashNums(h, arr[a], len[a]);
    }
    h = (h ^ (unsigned long long)d->ncon) * 1099511628211ULL;
  }
  mc_bindThreadPool(d, NULL);
  mc_threadPoolDelete(pool);
  mc_deleteData(d);
  return h;
}


// the same bits without a pool, with 1, 2 and 3 threads, and with the stages run separately
static void sameForAnyThreads(const mcModel* m, int nstep) {
  unsigned long long h0 = runHash(m, 0, nstep, 1);
  for (int t = 1; t <= 3; t++) {
    cr_expect(runHash(m, t, nstep, 1) == h0, "%d threads differ", t);
  }
  cr_expect(runHash(m, 2, nstep, 0) == h0, "2 threads, stages separately: other bits");
}


Test(island_stages, chains_bitwise_any_thread_count) {
  mcModel* m = chains(0, 0);
  cr_assert(m->na == 2 * NCHAIN && m->ntendon == NCHAIN);

  // the paths taken on a pool: passive forces per tree, transmissions early, pooled solves
  cr_expect(mci_passiveTreesOk(m));
  cr_expect(mci_earlyParts(m) == (MCI_EARLY_TRN | MCI_EARLY_PASSIVE));
  cr_expect(m->nM - m->nv >= 4096, "%d off-diagonal entries", m->nM - m->nv);
  sameForAnyThreads(m, 120);
  mc_deleteModel(m);
}


Test(island_stages, springy_tendons_bitwise_any_thread_count) {
  // tendon spring-dampers reach dofs across the cut: the passive forces are whole, early after
  // the tendon velocities
  mcModel* m = chains(1, 0);
  cr_expect(!mci_passiveTreesOk(m));
  cr_expect(mci_earlyParts(m) == (MCI_EARLY_TRN | MCI_EARLY_PASSIVE));
  sameForAnyThreads(m, 80);
  mc_deleteModel(m);
}


Test(island_stages, site_transmission_bitwise_any_thread_count) {
  // a site transmission: transmissions after collision; with tendon spring-dampers the passive
  // forces then wait for the velocity stage, without them they are still per tree
  mcModel* m = chains(1, 1);
  cr_expect(mci_earlyParts(m) == 0);
  sameForAnyThreads(m, 60);
  mc_deleteModel(m);
  m = chains(0, 1);
  cr_expect(mci_earlyParts(m) == MCI_EARLY_PASSIVE);
  sameForAnyThreads(m, 60);
  mc_deleteModel(m);
}


Test(island_stages, pooled_jobs_run_on_a_pool_only) {
  // the per-tree jobs report work done on a pool of two and leave it to the caller without one
  mcModel* m = chains(0, 0);
  mcData* d = mc_makeData(m);
  cr_assert(d);
  mc_forward(m, d);
  cr_expect(!mci_accelerationTrees(m, d), "no pool: serial");
  mcThreadPool* pool = mc_threadPoolCreate(2);
  cr_assert(pool);
  cr_assert_eq(mc_bindThreadPool(d, pool), 0);
  mc_forward(m, d);
  mcNum* qacc = malloc(sizeof(mcNum) * (size_t)m->nv);
  cr_assert(qacc);
  memcpy(qacc, d->qacc_smooth, sizeof(mcNum) * (size_t)m->nv);
  memset(d->qacc_smooth, 0, sizeof(mcNum) * (size_t)m->nv);
  cr_expect(mci_accelerationTrees(m, d), "pool of two: per tree");
  cr_expect(!memcmp(qacc, d->qacc_smooth, sizeof(mcNum) * (size_t)m->nv), "other bits");
  free(qacc);
  mc_bindThreadPool(d, NULL);
  mc_threadPoolDelete(pool);
  mc_deleteData(d);
  mc_deleteModel(m);
}
