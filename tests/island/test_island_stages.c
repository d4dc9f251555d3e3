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

#include "engine/collision.h"
#include "engine/parallel_stages.h"
#include "engine/threadpool.h"

#define NCHAIN 6                  // hanging chains (trees) of CHAIN hinges each: 6 x 40 x 39 / 2
#define CHAIN 40                  // off-diagonal entries of M, above the pooled solves' threshold

// the chains' model; tendon: a fixed tendon per chain couples two of its joints with a spring
// and a damper when springy (the passive forces are then whole, not per tree), an actuator pulls
// it always; site: one more actuator, on a site (the transmissions then wait for collision);
// agc: the middle joint of each chain takes its gravity compensation through the actuators;
// more: appended to the model (sensors)
static mcModel* chainsWith(int springy, int site, int agc, const char* more) {
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
                            "<joint name='j%d_%d' axis='%s' damping='%s' stiffness='%s'%s/>"
                            "<geom type='capsule' fromto='0 0 0 0 0 -.1' size='.02'/>"
                            "<body pos='0 0 -.1'%s>%s",
                            c, k, k % 2 ? "1 0 0" : "0 1 0", k % 3 ? ".02" : "0",
                            k % 4 ? "0" : ".3",
                            agc && k == CHAIN / 2 ? " actuatorgravcomp='true'" : "",
                            k == CHAIN / 2 ? " gravcomp='1'" : "",
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
                          "<general name='a%d' joint='j%d_0' dyntype='filter' dynprm='.05' "
                          "gainprm='3'/>"
                          "<general joint='j%d_6' dyntype='integrator' gainprm='2' "
                          "actlimited='true' actrange='-1 1'/>"
                          "<motor joint='j%d_9' gear='2'/><motor tendon='t%d'/>",
                          c, c, c, c, c);
  }
  snprintf(xml + n, size - n, "%s</actuator>%s</mujoco>",
           site ? "<general site='s' gear='0 1 0 0 0 0' gainprm='1'/>" : "", more);
  return pt_loadOwnedXML(xml);
}


static mcModel* chains(int springy, int site) {
  return chainsWith(springy, site, 0, "");
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
  mcThreadPool* pool;
  mcData* d = pt_makeData(m, nthread, &pool);
  unsigned long long h = PT_HASH0;
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
  pt_deleteData(d, pool);
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
  mci_poolSetEager(pool, 1);   // the jobs on small models too
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
  pt_deleteData(d, pool);
  mc_deleteModel(m);
}


// the actuator outputs of d (forces, generalized forces, activation derivatives) hashed
static unsigned long long actuationHash(const mcModel* m, const mcData* d) {
  unsigned long long h = pt_hashNums(1469598103934665603ULL, d->qfrc_actuator, (size_t)m->nv);
  h = pt_hashNums(h, d->actuator_force, (size_t)m->nu);
  return pt_hashNums(h, d->act_dot, (size_t)m->na);
}


// the smooth acceleration's outputs hashed
static unsigned long long accelerationHash(const mcModel* m, const mcData* d) {
  unsigned long long h = pt_hashNums(1469598103934665603ULL, d->qfrc_smooth, (size_t)m->nv);
  return pt_hashNums(h, d->qacc_smooth, (size_t)m->nv);
}


// on a pool of two: the position stage, the actuator and smooth acceleration outputs cleared,
// then the job beside the broad phase as mc_forward runs it early; whether that job ran the
// actuation (the flag is taken once) and, when it did, its outputs against mc_fwdActuation's on
// the same state; *accel: whether it made the smooth acceleration too (checked against
// mc_fwdAcceleration's)
static int actuatedBesideAccel(const mcModel* m, int badctrl, int* accel) {
  mcData* d = mc_makeData(m);
  mcThreadPool* pool = mc_threadPoolCreate(2);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(d && pool);
  cr_assert_eq(mc_bindThreadPool(d, pool), 0);
  drive(m, d, 7);
  mc_step(m, d);
  drive(m, d, 8);
  mc_fwdPosition(m, d);
  mc_fwdVelocity(m, d);           // the actuator velocities at this qvel
  mc_fwdActuation(m, d);
  unsigned long long want = actuationHash(m, d);
  mc_fwdAcceleration(m, d);
  unsigned long long wantAcc = accelerationHash(m, d);
  memset(d->qfrc_actuator, 0, sizeof(mcNum) * (size_t)m->nv);
  memset(d->actuator_force, 0, sizeof(mcNum) * (size_t)m->nu);
  memset(d->qfrc_smooth, 0, sizeof(mcNum) * (size_t)m->nv);
  memset(d->qacc_smooth, 0, sizeof(mcNum) * (size_t)m->nv);
  if (badctrl) {
    d->ctrl[1] = 0.0 / 0.0;
  }
  cr_assert(mci_velocityEarlyOk(m, d));
  mci_collisionWith(m, d, mci_inertiaVelocityStage);
  *accel = mci_treeCutCache(d)->accelerated;
  if (*accel) {
    cr_expect(accelerationHash(m, d) == wantAcc, "early smooth acceleration: other bits");
    cr_expect(mci_accelerationTrees(m, d) && !mci_treeCutCache(d)->accelerated, "flag taken");
  }
  int done = mci_takeActuationEarly(d);
  cr_expect(!mci_takeActuationEarly(d), "the flag is taken once");
  cr_expect(done || !*accel, "acceleration without the actuation");
  if (done) {
    cr_expect(actuationHash(m, d) == want, "early actuation: other bits");
  } else {
    cr_expect(d->actuator_force[0] == 0, "not run: outputs untouched");
    cr_expect(d->warning[mcWARN_BADCTRL].number == 0, "not run: no warning yet");
  }
  pt_deleteData(d, pool);
  return done;
}


static int actuatedBeside(const mcModel* m, int badctrl) {
  int accel;
  int done = actuatedBesideAccel(m, badctrl, &accel);
  cr_expect(accel == done, "smooth acceleration beside: %d, actuation: %d", accel, done);
  return done;
}


Test(island_stages, actuation_beside_the_broad_phase) {
  // joint and tendon transmissions, no sensor, no actuator plugin: the actuation runs in the job
  // beside the broad phase, after the transmissions and actuator velocities, the same bits
  mcModel* m = chains(0, 0);
  cr_expect(mci_actuationEarlyOk(m, 0));
  cr_expect(actuatedBeside(m, 0), "not run beside the broad phase");
  cr_expect(!actuatedBeside(m, 1), "a bad control: left to its place");
  mc_deleteModel(m);

  // passive forces whole (tendon spring-dampers) before it: gravity compensation through the
  // actuators may be read
  m = chainsWith(1, 0, 1, "");
  cr_expect(mci_actuationEarlyOk(m, 1) && !mci_actuationEarlyOk(m, 0));
  cr_expect(actuatedBeside(m, 0), "passive forces whole: not run beside");
  sameForAnyThreads(m, 40);
  mc_deleteModel(m);
}


Test(island_stages, actuation_in_place_when_read_before_it) {
  // passive forces per tree: the gravity compensation of other trees is not ready in task 0
  mcModel* m = chainsWith(0, 0, 1, "");
  cr_expect(mci_passiveTreesOk(m) && !mci_actuationEarlyOk(m, 0));
  cr_expect(!actuatedBeside(m, 0));
  sameForAnyThreads(m, 40);
  mc_deleteModel(m);

  // a velocity-stage sensor may read the actuator outputs of the last step; an acceleration-
  // stage one may not (it comes after the actuation either way), nor any when sensors are off
  m = chainsWith(0, 0, 0, "<sensor><jointvel joint='j0_1'/></sensor>");
  cr_expect(!mci_actuationEarlyOk(m, 0));
  cr_expect(!actuatedBeside(m, 0));
  sameForAnyThreads(m, 40);
  m->opt.disableflags |= mcDSBL_SENSOR;
  cr_expect(mci_actuationEarlyOk(m, 0));
  mc_deleteModel(m);
  m = chainsWith(0, 0, 0, "<sensor><actuatorfrc actuator='a0'/></sensor>");
  cr_expect(mci_actuationEarlyOk(m, 0));
  cr_expect(actuatedBeside(m, 0));
  mc_deleteModel(m);
}


// a bad control at step bad, then the steps after it: state and warning count
static unsigned long long badCtrlRun(const mcModel* m, int nthread, int* warned) {
  mcData* d = mc_makeData(m);
  mcThreadPool* pool = nthread ? mc_threadPoolCreate(nthread) : NULL;
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(d);
  if (pool) {
    cr_assert_eq(mc_bindThreadPool(d, pool), 0);
  }
  d->warning_policy = 0;
  unsigned long long h = 1469598103934665603ULL;
  for (int s = 0; s < 30; s++) {
    drive(m, d, s);
    if (s == 12) {
      d->ctrl[3] = 1.0 / 0.0;
    }
    mc_step(m, d);
    h = pt_hashNums(h, d->qvel, (size_t)m->nv);
    h = pt_hashNums(h, d->act, (size_t)m->na);
    h = pt_hashNums(h, d->ctrl, (size_t)m->nu);
  }
  *warned = d->warning[mcWARN_BADCTRL].number;
  pt_deleteData(d, pool);
  return h;
}


Test(island_stages, bad_control_bitwise_any_thread_count) {
  mcModel* m = chains(0, 0);
  int w0, w;
  unsigned long long h0 = badCtrlRun(m, 0, &w0);
  cr_expect(w0 == 1, "%d bad-control warnings", w0);
  for (int t = 1; t <= 3; t++) {
    cr_expect(badCtrlRun(m, t, &w) == h0 && w == w0, "%d threads differ", t);
  }
  mc_deleteModel(m);
}


Test(island_stages, acceleration_in_place_with_adhesion) {
  // geom adhesion adds to qfrc_passive in the velocity stage, after collision: the actuation
  // still runs beside the broad phase, the smooth acceleration in its place
  mcModel* m = chains(0, 0);
  unsigned long long plain = runHash(m, 0, 400, 1);
  m->geom_adhesion[0] = 50;       // the plane, touched by the falling box (half its weight
                                  // compensated) after 0.61 s
  int accel;
  cr_expect(actuatedBesideAccel(m, 0, &accel), "actuation not run beside");
  cr_expect(!accel, "smooth acceleration beside the broad phase despite adhesion");
  cr_expect(runHash(m, 0, 400, 1) != plain, "no adhesive contact");
  sameForAnyThreads(m, 400);
  mc_deleteModel(m);
}


// planar boxes (two slides and a hinge each, as dm_stacker's) on a plane, and last a body with no
// joint: its tree has no dofs, so a cut of one tree a range ends on a range of no dofs (k0 = k1 =
// nv) when a job asks for at least as many ranges as there are trees
static mcModel* boxesThenStatic(void) {
  size_t cap = 4096, len = 0;
  char* xml = malloc(cap);
  cr_assert(xml);
  len += (size_t)snprintf(xml + len, cap - len,
    "<mujoco><option timestep='0.002'><flag island='enable'/></option><worldbody>"
    "<geom type='plane' size='2 2 .1'/>");
  for (int i = 0; i < 5; i++) {
    len += (size_t)snprintf(xml + len, cap - len,
      "<body pos='%g 0 %g'><joint type='slide' axis='1 0 0' damping='.1'/>"
      "<joint type='slide' axis='0 0 1'/><joint type='hinge' axis='0 1 0'/>"
      "<geom type='box' size='.05 .05 .05' euler='0 %d 0'/></body>", 0.2 * i, 0.1 + 0.06 * i,
      7 * i);
  }
  snprintf(xml + len, cap - len,
    "<body name='target' pos='.3 .5 .2'><geom type='sphere' size='.02' contype='0' "
    "conaffinity='0'/></body></worldbody></mujoco>");
  return pt_loadOwnedXML(xml);
}


Test(island_stages, range_of_no_dofs_writes_no_factor) {
  // the last tree's range (no dofs, k0 = k1 = nv) copies no block of qM into qLD: it used to read
  // dof_Madr[nv], one past the array, and copy from there to nM while the other ranges factored
  mcModel* m = boxesThenStatic();
  int last = m->nbody - 1;
  cr_assert(m->body_dofnum[last] == 0 && m->body_rootid[last] == last);
  mcData* d = mc_makeData(m);
  cr_assert(d);
  mc_forward(m, d);
  for (int i = 0; i < m->nM; i++) {
    d->qLD[i] = -7.0 - i;
  }
  mci_inertiaRange(m, d, last, m->nbody, m->nv, m->nv);
  for (int i = 0; i < m->nM; i++) {
    cr_expect(d->qLD[i] == -7.0 - i, "qLD[%d] written by a range of no dofs", i);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(island_stages, trailing_tree_of_no_dofs_bitwise_any_thread_count) {
  // dm_stacker's shape on the pool's ranges of one tree each (a race on qLD, found as a trajectory
  // that differed from run to run on 2 threads; ThreadSanitizer sees it in the plain twin)
  mcModel* m = boxesThenStatic();
  for (int k = 0; k < 3; k++) {
    sameForAnyThreads(m, 150);
  }
  mc_deleteModel(m);
}


Test(island_stages, fluid_forces_bitwise_any_thread_count) {
  // fluid forces read every body's cvel, which the ranges make beside the broad phase: the
  // passive forces then run whole after that job, not in its task 0 (which read the cvel of the
  // last step where no range had made it yet: menagerie's robotiq 2f85 scene, viscosity 0.1)
  for (int k = 0; k < 2; k++) {
    mcModel* m = k ? boxesThenStatic() : chains(0, 0);
    m->opt.viscosity = 0.1;
    m->opt.density = 1.2 * k;
    cr_expect(!mci_passiveTreesOk(m));
    sameForAnyThreads(m, 120);
    mc_deleteModel(m);
  }
}


Test(island_stages, beside_blocks_hold_the_other_jobs_ranges) {
  // the job beside the broad phase gives thread t the ranges mci_poolRun gives it in the other
  // tree jobs (n * t / nthread on), task 0 (extra) to the caller and the broad phase first in the
  // last block; before, its blocks were equal counts of all its tasks, which shifted the ranges by
  // one where the inserted tasks did not split evenly (3 threads; 2 threads without task 0 and an
  // odd number of ranges: humanoid-like models with the stage not early)
  for (int nthread = 2; nthread <= 5; nthread++) {
    for (int n = 2; n <= MCI_MAXRANGE; n++) {
      for (int extra = 0; extra <= 1; extra++) {
        int first[8];
        int broad = mci_besideBlocks(n, nthread, extra, first);
        int ntask = n + 1 + extra;
        cr_assert(first[0] == 0 && first[nthread] == ntask, "n %d: blocks cover the tasks", n);
        cr_assert(broad == first[nthread - 1] && broad >= 1, "n %d: broad phase %d", n, broad);
        for (int t = 0; t < nthread; t++) {
          cr_assert(first[t] <= first[t + 1], "n %d: block %d ascending", n, t);
          for (int task = first[t]; task < first[t + 1]; task++) {
            if (task == broad || (extra && task == 0)) {
              continue;
            }
            int k = task - extra - (task > broad);
            int k0 = (int)((long)n * t / nthread), k1 = (int)((long)n * (t + 1) / nthread);
            cr_expect(k >= k0 && k < k1, "%d threads, %d ranges, extra %d: range %d in block %d",
                      nthread, n, extra, k, t);
          }
        }
      }
    }
  }
}


// NaN bytes over the first n numbers of thread t's scratch (its workspace's stack start)
static void poisonScratch(mcData* d, int t, size_t n) {
  memset(mci_worker(d, t)->stack, 0xff, sizeof(mcNum) * n);
}


// is any of body i's rne accelerations (cacc: the first 6 x nbody numbers) in thread t's scratch
// written since poisonScratch?
static int accWritten(mcData* d, int t, int i) {
  unsigned char poison[6 * sizeof(mcNum)];
  memset(poison, 0xff, sizeof(poison));
  return memcmp((const mcNum*)mci_worker(d, t)->stack + 6 * i, poison, sizeof(poison)) != 0;
}


static void besideNothing(void* ctx) {
  (void)ctx;
}


Test(island_stages, helper_ranges_use_the_helpers_scratch) {
  // the rne passes of the ranges beside the broad phase write the scratch of the thread that runs
  // them, never another's (the helper's went to the caller's, moving those lines between cores
  // every step); each body's in exactly one thread's scratch. Retried until the helper ran a range
  mcModel* m = chains(0, 0);
  mcThreadPool* pool;
  mcData* d = pt_makeData(m, 2, &pool);
  mc_forward(m, d);
  size_t n = 12 * (size_t)m->nbody;
  int helperRan = 0;
  for (int attempt = 0; attempt < 500 && !helperRan; attempt++) {
    poisonScratch(d, 0, n);
    poisonScratch(d, 1, n);
    cr_assert(mci_inertiaTreesBeside(m, d, mci_inertiaVelocityStage, besideNothing, NULL));
    for (int i = 1; i < m->nbody; i++) {
      int w0 = accWritten(d, 0, i), w1 = accWritten(d, 1, i);
      cr_assert(w0 != w1, "body %d: rne scratch written by %s", i, w0 ? "both" : "neither");
      helperRan |= w1;
    }
    mci_takeActuationEarly(d);
    mci_accelerationTrees(m, d);  // take the flags of the job
  }
  cr_expect(helperRan, "the helper never ran a range");
  pt_deleteData(d, pool);
  mc_deleteModel(m);
}
