// The kinematics part of the position stage on the in-step thread pool (core/engine/
// parallel_stages.c, mci_positionTrees): body frames, geom, site and camera poses and the com
// quantities per range of trees, then tendons and transmissions. Its outputs are bitwise those of
// the serial stage without a pool and with 1, 2 and 3 threads, on models with sites, spatial
// tendons wrapping spheres and cylinders (one across two trees), fixed tendons, tendon, joint
// and site actuators and cameras of every tracking mode; the cameras go per tree when each reads
// only its own tree, else all after the trees. Built twice, as island/test_island.c is: a
// Criterion suite and a plain program for ThreadSanitizer (make test-tsan).
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
#include "engine/plugin_trees.h"
#include "engine/threadpool.h"

#define NARM 9                    // arms (trees) of LINK bodies each: 9 x 20 bodies, so that the
#define LINK 20                   // pool runs the trees (above MCI_MINPOSSHARED off either thread)

// the arms' model: each arm a chain of hinges and balls with sites, a sphere and a cylinder to
// wrap around, a spatial tendon over them, a fixed tendon, cameras (fixed, track, trackcom on
// its links, targetbody and targetbodycom looking at its own tip); across: a spatial tendon
// joining arms 0 and 1 and, when worldcam, cameras on the world tracking the whole model's com
// and arm 2's tip (those cannot go per tree)
static mcModel* arms(int worldcam) {
  size_t size = 1 << 20, n = 0;
  char* xml = malloc(size);
  cr_assert(xml);
  n += (size_t)snprintf(xml + n, size - n,
                        "<mujoco><option timestep='.004'/><worldbody>"
                        "<geom type='plane' size='10 10 .1'/>"
                        "<camera name='wfixed' pos='0 -6 3' xyaxes='1 0 0 0 .5 1'/>%s",
                        worldcam ? "<camera name='wcom' mode='trackcom' pos='0 -6 3'/>"
                                   "<camera name='wtarget' mode='targetbody' target='l2_19' "
                                   "pos='0 -6 3'/>"
                                 : "");
  for (int a = 0; a < NARM; a++) {
    n += (size_t)snprintf(xml + n, size - n, "<body name='l%d_0' pos='%d 0 3'>", a, a);
    for (int k = 0; k < LINK; k++) {
      if (k > 0) {
        n += (size_t)snprintf(xml + n, size - n, "<body name='l%d_%d' pos='0 0 -.12' "
                              "quat='%s'>", a, k, k % 3 ? "1 0 0 0" : ".99 .1 0 0");
      }
      n += (size_t)snprintf(xml + n, size - n,
                            "<joint name='j%d_%d' %s/>"
                            "<geom type='capsule' fromto='0 0 0 0 0 -.1' size='.02'/>"
                            "<site name='s%d_%d' pos='.03 0 -.05'/>",
                            a, k, k % 5 == 4 ? "type='ball' damping='.1'"
                                             : (k % 2 ? "axis='1 0 0' damping='.05'"
                                                      : "axis='0 1 0' pos='0 0 .01'"),
                            a, k);
      if (k == 6) {
        n += (size_t)snprintf(xml + n, size - n,
                              "<geom name='sph%d' type='sphere' size='.04' pos='0 0 -.05'/>"
                              "<site name='side%d' pos='0 .08 -.05'/>", a, a);
      }
      if (k == 10) {
        n += (size_t)snprintf(xml + n, size - n,
                              "<geom name='cyl%d' type='cylinder' size='.03 .04' "
                              "pos='0 0 -.05' quat='.707 .707 0 0'/>", a);
      }
      if (k == 3) {
        n += (size_t)snprintf(xml + n, size - n,
                              "<camera name='fix%d' pos='.1 0 0' xyaxes='0 -1 0 .1 0 1'/>"
                              "<camera name='trk%d' mode='track' pos='0 -2 0'/>"
                              "<camera name='com%d' mode='trackcom' pos='0 -3 1'/>"
                              "<camera name='tb%d' mode='targetbody' target='l%d_19' "
                              "pos='0 -1 0'/>"
                              "<camera name='tbc%d' mode='targetbodycom' target='l%d_12' "
                              "pos='0 -1 0'/>", a, a, a, a, a, a, a);
      }
    }
    for (int k = 0; k < LINK; k++) {
      n += (size_t)snprintf(xml + n, size - n, "</body>");
    }
  }
  n += (size_t)snprintf(xml + n, size - n, "</worldbody><tendon>");
  for (int a = 0; a < NARM; a++) {
    n += (size_t)snprintf(xml + n, size - n,
                          "<spatial name='sp%d'><site site='s%d_2'/><geom geom='sph%d' "
                          "sidesite='side%d'/><site site='s%d_8'/><geom geom='cyl%d'/>"
                          "<site site='s%d_13'/></spatial>"
                          "<fixed name='fx%d'><joint joint='j%d_1' coef='1'/>"
                          "<joint joint='j%d_3' coef='-.5'/></fixed>",
                          a, a, a, a, a, a, a, a, a, a);
  }
  n += (size_t)snprintf(xml + n, size - n,
                        "<spatial name='across'><site site='s0_19'/><site site='s1_19'/>"
                        "</spatial></tendon><actuator>");
  for (int a = 0; a < NARM; a++) {
    n += (size_t)snprintf(xml + n, size - n,
                          "<motor tendon='sp%d' gear='2'/><general site='s%d_15' "
                          "gear='0 0 1 0 0 0'/>", a, a);
  }
  snprintf(xml + n, size - n, "<motor tendon='across'/></actuator></mujoco>");
  return pt_loadOwnedXML(xml);
}


// controls that move every actuator
static void drive(const mcModel* m, mcData* d, int step) {
  for (int i = 0; i < m->nu; i++) {
    d->ctrl[i] = 0.4 * (((i + step / 30) % 3) - 1);
  }
}


// hash of the kinematics outputs after each of nstep steps with nthread threads (0: no pool);
// camplaced: how the pool's cut must place the cameras (-1: no pool, not checked)
static unsigned long long runHash(const mcModel* m, int nthread, int nstep, int camplaced) {
  mcThreadPool* pool;
  mcData* d = pt_makeData(m, nthread, &pool);
  unsigned long long h = PT_HASH0;
  for (int s = 0; s < nstep; s++) {
    drive(m, d, s);
    mc_step(m, d);
    const mcNum* arr[19] = {d->qpos, d->xpos, d->xquat, d->xmat, d->xipos, d->ximat,
                            d->xanchor, d->xaxis, d->geom_xpos, d->geom_xmat, d->site_xpos,
                            d->site_xmat, d->subtree_com, d->cinert, d->cdof, d->cam_xpos,
                            d->cam_xmat, d->ten_length, d->actuator_length};
    size_t len[19] = {m->nq, 3 * m->nbody, 4 * m->nbody, 9 * m->nbody, 3 * m->nbody,
                      9 * m->nbody, 3 * m->njnt, 3 * m->njnt, 3 * m->ngeom, 9 * m->ngeom,
                      3 * m->nsite, 9 * m->nsite, 3 * m->nbody, 10 * m->nbody, 6 * m->nv,
                      3 * m->ncam, 9 * m->ncam, m->ntendon, m->nu};
    for (int a = 0; a < 19; a++) {
      h = pt_hashNums(h, arr[a], len[a]);
    }
    h = pt_hashNums(h, d->ten_J, (size_t)m->ntendon * m->nv);
    h = pt_hashNums(h, d->actuator_moment, (size_t)m->nu * m->nv);
  }
  if (nthread > 1) {              // the trees ran on the pool, the cameras as expected
    const mciTreeCut* c = mci_treeCutCache(d);
    cr_expect(c->model == m && c->n >= 2, "%d threads: no tree cut", nthread);
    cr_expect(c->placed, "geoms and sites not placed per tree");
    cr_expect(c->camplaced == camplaced, "cameras per tree %d, expected %d", c->camplaced,
              camplaced);
  }
  pt_deleteData(d, pool);
  return h;
}


// the same bits without a pool and with 1, 2 and 3 threads
static void sameForAnyThreads(const mcModel* m, int nstep, int camplaced) {
  unsigned long long h0 = runHash(m, 0, nstep, camplaced);
  for (int t = 1; t <= 3; t++) {
    cr_expect(runHash(m, t, nstep, camplaced) == h0, "%d threads differ", t);
  }
}


Test(island_kinematics, cameras_per_tree_bitwise_any_thread_count) {
  mcModel* m = arms(0);
  cr_assert(m->ncam == 1 + 5 * NARM && m->ntendon == 2 * NARM + 1);
  for (int i = 0; i < m->ncam; i++) {
    cr_expect(mci_camlightInTree(m, i), "camera %d", i);
  }
  sameForAnyThreads(m, 150, 1);
  mc_deleteModel(m);
}


Test(island_kinematics, world_cameras_after_the_trees_bitwise_any_thread_count) {
  // a world camera tracking the whole model's com and one looking at another tree's body: every
  // camera is placed after the trees
  mcModel* m = arms(1);
  int world = 0;
  for (int i = 0; i < m->ncam; i++) {
    world += !mci_camlightInTree(m, i);
  }
  cr_expect(world == 2, "%d cameras outside their tree", world);
  sameForAnyThreads(m, 100, 0);
  mc_deleteModel(m);
}


Test(island_kinematics, small_models_stay_serial) {
  // the position stage goes to the pool only when the other thread takes MCI_MINPOSSHARED bodies
  // or more of the cut: not with two bodies, nor one large tree beside a few small ones
  mcModel* m = arms(0);
  mcData* d = mc_makeData(m);
  cr_assert(d);
  mcThreadPool* pool = mc_threadPoolCreate(2);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(pool);
  cr_assert_eq(mc_bindThreadPool(d, pool), 0);
  mc_forward(m, d);
  cr_expect(mci_positionTrees(m, d, 1), "%d bodies on a pool of two: per tree", m->nbody);
  pt_deleteData(d, pool);
  mc_deleteModel(m);

  char error[512] = "";
  m = mc_loadXMLString("<mujoco><worldbody><body><freejoint/><geom size='.1'/></body>"
                       "<body pos='1 0 0'><freejoint/><geom size='.1'/></body></worldbody>"
                       "</mujoco>", NULL, error, sizeof(error));
  cr_assert(m, "%s", error);
  d = mc_makeData(m);
  cr_assert(d);
  pool = mc_threadPoolCreate(2);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(pool);
  cr_assert_eq(mc_bindThreadPool(d, pool), 0);
  cr_expect(!mci_positionTrees(m, d, 1), "two bodies: serial");
  pt_deleteData(d, pool);
  mc_deleteModel(m);

  // a chain of 150 bodies and five arms of 6 (181 bodies): cut into three ranges (the chain
  // with one arm, two arms, two arms), the other thread would take 24 bodies
  size_t size = 1 << 16, n = 0;
  char* xml = malloc(size);
  cr_assert(xml);
  n += (size_t)snprintf(xml + n, size - n, "<mujoco><worldbody>");
  for (int a = 0; a < 6; a++) {
    int len = a ? 6 : 150;
    n += (size_t)snprintf(xml + n, size - n, "<body pos='%d 1 0'>", a);
    for (int k = 0; k < len; k++) {
      n += (size_t)snprintf(xml + n, size - n, "%s<joint/><geom size='.05'/>",
                            k ? "<body pos='0 0 -.1'>" : "");
    }
    for (int k = 0; k < len; k++) {
      n += (size_t)snprintf(xml + n, size - n, "</body>");
    }
  }
  snprintf(xml + n, size - n, "</worldbody></mujoco>");
  m = pt_loadOwnedXML(xml);
  d = mc_makeData(m);
  pool = mc_threadPoolCreate(2);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(d && pool);
  cr_assert_eq(mc_bindThreadPool(d, pool), 0);
  cr_assert_eq(m->nbody, 181);
  cr_expect(!mci_positionTrees(m, d, 1), "a chain and five arms: serial");
  const mciTreeCut* c = mci_treeCutCache(d);
  cr_expect(c->model == m && c->n == 3 && mci_positionShared(c, 2) == 24,
            "%d ranges, %d bodies off the busiest thread", c->n, mci_positionShared(c, 2));
  pt_deleteData(d, pool);
  mc_deleteModel(m);
}


// ntree free trees of len bodies each (a chain of hinges under a free joint; 22 x 16 is
// 22_humanoids' layout)
static mcModel* chains(int ntree, int len) {
  size_t size = 1 << 18, n = 0;
  char* xml = malloc(size);
  cr_assert(xml);
  n += (size_t)snprintf(xml + n, size - n, "<mujoco><worldbody>");
  for (int t = 0; t < ntree; t++) {
    n += (size_t)snprintf(xml + n, size - n, "<body pos='%d 0 1'><freejoint/>", t);
    for (int k = 0; k < len; k++) {
      n += (size_t)snprintf(xml + n, size - n, "%s<geom size='.05'/>",
                            k ? "<body pos='0 0 -.1'><joint/>" : "");
    }
    for (int k = 0; k < len; k++) {
      n += (size_t)snprintf(xml + n, size - n, "</body>");
    }
  }
  snprintf(xml + n, size - n, "</worldbody></mujoco>");
  char error[512] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  free(xml);
  cr_assert(m, "%s", error);
  cr_assert_eq(m->nbody, 1 + ntree * len);
  return m;
}


Test(island_kinematics, tree_cut_balances_the_threads_blocks) {
  // 22 trees of 16 bodies (as 22_humanoids) cut for a pool of 2 and 3 threads (4 ranges each):
  // each thread's block of ranges (mci_poolRun's contiguous split) holds its share of the bodies
  // within one tree
  mcModel* m = chains(22, 16);
  for (int nthread = 2; nthread <= 3; nthread++) {
    int body[MCI_MAXRANGE + 1];
    int nrange = mci_cutTrees(m, 4 * nthread, body);
    for (int t = 0; t < nthread; t++) {
      int k0 = (int)((long)nrange * t / nthread), k1 = (int)((long)nrange * (t + 1) / nthread);
      double share = body[k1] - body[k0], even = (m->nbody - 1) / (double)nthread;
      cr_expect(share > even - 16 && share < even + 16,
                "%d threads: block %d holds %g bodies of %g", nthread, t, share, even);
    }
  }
  mc_deleteModel(m);
}


// the ranges of one plugin tree job (mci_runTrees): bodies [body[k], body[k+1]) of range k
typedef struct {
  int n;
  int body0[MCI_MAXRANGE], body1[MCI_MAXRANGE];
} Ranges;

static void recordRange(void* ctx, const mcpTreeRange* r) {
  Ranges* rs = (Ranges*)ctx;
  cr_assert(r->index >= 0 && r->index < MCI_MAXRANGE);
  rs->body0[r->index] = r->body0;
  rs->body1[r->index] = r->body1;
  __atomic_fetch_add(&rs->n, 1, __ATOMIC_RELAXED);
}


Test(island_kinematics, tree_jobs_cut_finer_than_the_threads) {
  // the stages' tree jobs and the plugins' cut 22_humanoids' layout into MCI_RANGEPERTHREAD (8)
  // ranges a thread where the trees allow (2 threads: 16 ranges of one or two trees, not 8 of
  // two or three), so a late or slow thread's rest is taken by the others; the ranges tile the
  // bodies 1 .. nbody-1 once, in order
  mcModel* m = chains(22, 16);
  for (int nthread = 2; nthread <= 3; nthread++) {
    mcData* d = mc_makeData(m);
    mcThreadPool* pool = mc_threadPoolCreate(nthread);
    mci_poolSetEager(pool, 1);   // the jobs on small models too
    cr_assert(d && pool);
    cr_assert_eq(mc_bindThreadPool(d, pool), 0);
    int want = mci_rangesWanted(nthread), expect = want < 22 ? want : 22;
    cr_expect(want >= 8 * nthread, "%d threads: %d ranges wanted", nthread, want);
    cr_assert(mci_positionTrees(m, d, 1), "the kinematics run per tree");
    const mciTreeCut* c = mci_treeCutCache(d);
    cr_expect_eq(c->n, expect, "%d threads: the stages' cut has %d ranges", nthread, c->n);
    cr_expect_eq(c->body[0], 1);
    cr_expect_eq(c->body[c->n], m->nbody);
    for (int k = 0; k < c->n; k++) {
      int len = c->body[k + 1] - c->body[k];
      cr_expect(len == 16 || len == 32, "%d threads: range %d has %d bodies", nthread, k, len);
    }
    Ranges rs = {0};
    int n = mci_runTrees(m, d, recordRange, &rs, 0);
    cr_expect_eq(n, expect, "%d threads: the plugins' job ran %d ranges", nthread, n);
    cr_expect_eq(rs.n, n);
    int next = 1;
    for (int k = 0; k < n && k < MCI_MAXRANGE; k++) {
      cr_expect_eq(rs.body0[k], next, "%d threads: range %d starts at %d", nthread, k,
                   rs.body0[k]);
      cr_expect(rs.body1[k] - rs.body0[k] <= 32, "%d threads: range %d", nthread, k);
      next = rs.body1[k];
    }
    cr_expect_eq(next, m->nbody);
    pt_deleteData(d, pool);
  }
  mc_deleteModel(m);
}


// mc_comPos and mc_camlight go with the inertia ranges beside the broad phase (mci_comLaterOk;
// each range its com quantities and cameras, the world's com after the job), whether the
// kinematics stay serial (6 arms: 24 bodies off the busiest thread, under MCI_MINPOSSHARED) or
// run per tree without them (12 arms, 48 bodies; humanoid100's case): narm arms of hinges on a
// floor with damping, fixed tendons, cameras per tree and (worldcam) on the world tracking the
// whole com; stiff: a tendon spring, so the passive forces run whole in task 0 and the com
// quantities are made before the job; spatial: a spatial tendon, whose Jacobian reads cdof, keeps
// them in place (the kinematics job makes them)
static mcModel* smallArms(int narm, int worldcam, int stiff, int spatial) {
  size_t size = 1 << 18, n = 0;
  char* xml = malloc(size);
  cr_assert(xml);
  n += (size_t)snprintf(xml + n, size - n,
                        "<mujoco><option timestep='.004'/><worldbody>"
                        "<geom type='plane' size='10 10 .1'/>%s",
                        worldcam ? "<camera name='wcom' mode='trackcom' pos='0 -6 3'/>" : "");
  for (int a = 0; a < narm; a++) {
    n += (size_t)snprintf(xml + n, size - n, "<body name='b%d_0' pos='%d 0 .8'>", a, a);
    for (int k = 0; k < 8; k++) {
      if (k > 0) {
        n += (size_t)snprintf(xml + n, size - n, "<body name='b%d_%d' pos='0 0 -.12'>", a, k);
      }
      n += (size_t)snprintf(xml + n, size - n,
                            "<joint name='h%d_%d' axis='%s' damping='.05'/>"
                            "<geom type='capsule' fromto='0 0 0 0 0 -.1' size='.02'/>"
                            "<site name='t%d_%d' pos='.03 0 -.05'/>",
                            a, k, k % 2 ? "1 0 0" : "0 1 0", a, k);
      if (k == 2) {
        n += (size_t)snprintf(xml + n, size - n,
                              "<camera name='c%d' mode='trackcom' pos='0 -3 1'/>"
                              "<camera name='f%d' pos='.1 0 0'/>", a, a);
      }
    }
    for (int k = 0; k < 8; k++) {
      n += (size_t)snprintf(xml + n, size - n, "</body>");
    }
  }
  n += (size_t)snprintf(xml + n, size - n,
                        "<body pos='0 1 .3'><freejoint/><geom type='box' size='.1 .1 .1'/>"
                        "</body></worldbody><tendon>");
  for (int a = 0; a < narm; a++) {
    n += (size_t)snprintf(xml + n, size - n,
                          "<fixed name='x%d' %s><joint joint='h%d_1' coef='1'/>"
                          "<joint joint='h%d_3' coef='-.5'/></fixed>",
                          a, stiff && a == 2 ? "stiffness='3'" : "", a, a);
  }
  if (spatial) {
    n += (size_t)snprintf(xml + n, size - n,
                          "<spatial name='sp'><site site='t0_1'/><site site='t0_6'/></spatial>");
  }
  n += (size_t)snprintf(xml + n, size - n, "</tendon><actuator>");
  for (int a = 0; a < narm; a++) {
    n += (size_t)snprintf(xml + n, size - n, "<motor tendon='x%d' gear='2'/>"
                          "<motor joint='h%d_5'/>", a, a);
  }
  snprintf(xml + n, size - n, "</actuator></mujoco>");
  return pt_loadOwnedXML(xml);
}


static void comLater(int narm, int worldcam, int stiff, int spatial) {
  mcModel* m = smallArms(narm, worldcam, stiff, spatial);
  mcData* d = mc_makeData(m);
  mcThreadPool* pool = mc_threadPoolCreate(2);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(d && pool);
  cr_assert_eq(mc_bindThreadPool(d, pool), 0);
  cr_expect(mci_comLaterOk(m, d) == !spatial, "mci_comLaterOk %d", mci_comLaterOk(m, d));
  int pertree = mci_positionTrees(m, d, spatial);
  cr_expect(pertree == (narm > 6), "%d bodies: kinematics per tree %d", m->nbody, pertree);
  pt_deleteData(d, pool);
  sameForAnyThreads(m, 150, !worldcam);
  mc_deleteModel(m);
}


Test(island_kinematics, com_beside_the_broad_phase_bitwise_any_thread_count) {
  comLater(6, 0, 0, 0);
}


Test(island_kinematics, com_beside_with_world_camera_bitwise_any_thread_count) {
  comLater(6, 1, 0, 0);
}


Test(island_kinematics, com_before_the_job_when_passive_whole_bitwise_any_thread_count) {
  comLater(6, 0, 1, 0);
}


Test(island_kinematics, com_in_place_with_a_spatial_tendon_bitwise_any_thread_count) {
  comLater(6, 1, 0, 1);
}


Test(island_kinematics, kinematics_per_tree_com_beside_bitwise_any_thread_count) {
  // 97 bodies (under the 160 that kept humanoid100's kinematics serial before session 15): the
  // kinematics job without the com quantities, those beside the broad phase
  comLater(12, 0, 0, 0);
}


Test(island_kinematics, kinematics_per_tree_com_beside_world_camera_bitwise_any_thread_count) {
  comLater(12, 1, 0, 0);
}


Test(island_kinematics, kinematics_per_tree_com_before_the_job_bitwise_any_thread_count) {
  comLater(12, 0, 1, 0);
}


Test(island_kinematics, kinematics_per_tree_com_in_the_job_bitwise_any_thread_count) {
  comLater(12, 1, 0, 1);
}
