// Determinism contract (docs/determinism.md): 1,000-step trajectories of a contact model hashed
// bitwise (time, qpos, qvel, act) for every available integrator and solver, compared across two
// runs, after mc_resetData, after a mid-run mc_getState/mc_setState into fresh data, after a
// mid-run mc_copyData, and across threads each owning its mcData.
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

#include "common.h"

#define NSTEP 1000
#define NHALF 500

static const char* kIntegrators[] = {"Euler", "RK4", "implicit", "implicitfast"};
static const char* kSolvers[] = {"Newton", "CG", "PGS"};


// load the humanoid with the given integrator and solver; NULL if either plugin is absent
static mcModel* loadWith(const char* integrator, const char* solver) {
  mcModel* m = hardLoad("models/humanoid.xml");
  char error[512] = "";
  if (mc_setIntegrator(m, integrator, error, sizeof(error)) ||
      mc_setSolver(m, solver, error, sizeof(error))) {
    cr_log_warn("skipped %s/%s: %s", integrator, solver, error);
    mc_deleteModel(m);
    return NULL;
  }
  return m;
}


// every check of the contract for one integrator/solver pair; return 0 if skipped
static int checkPair(const char* integrator, const char* solver) {
  mcModel* m = loadWith(integrator, solver);
  if (!m) {
    return 0;
  }
  mcData* d1 = mc_makeData(m);
  mcData* d2 = mc_makeData(m);
  cr_assert(d1 && d2);

  // two runs in two data objects
  uint64_t h1 = hardRun(m, d1, NSTEP);
  uint64_t h2 = hardRun(m, d2, NSTEP);
  cr_expect_eq(h1, h2, "%s/%s: two runs differ", integrator, solver);
  cr_expect(!hardHasNonFinite(m, d1), "%s/%s: non-finite state", integrator, solver);
  cr_expect_gt(d1->maxuse_con, 0, "%s/%s: the model should make contacts", integrator, solver);

  // a run after mc_resetData of used data
  mc_resetData(m, d1);
  uint64_t h3 = hardRun(m, d1, NSTEP);
  cr_expect_eq(h1, h3, "%s/%s: run after mc_resetData differs", integrator, solver);

  // save mid-run, restore into fresh data, run the rest in both
  mc_resetData(m, d1);
  hardRun(m, d1, NHALF);
  int nstate = mc_stateSize(m, mcSTATE_INTEGRATION);
  mcNum* state = (mcNum*)malloc(sizeof(mcNum) * (size_t)nstate);
  cr_assert_not_null(state);
  mc_getState(m, d1, state, mcSTATE_INTEGRATION);
  mcData* fresh = mc_makeData(m);
  cr_assert_not_null(fresh);
  mc_setState(m, fresh, state, mcSTATE_INTEGRATION);
  uint64_t rest_a = hardRun(m, d1, NSTEP - NHALF);
  uint64_t rest_b = hardRun(m, fresh, NSTEP - NHALF);
  cr_expect_eq(rest_a, rest_b, "%s/%s: restored state diverges", integrator, solver);

  // restore into used data (contact history, stale warmstart) reproduces the rest too
  mc_setState(m, d2, state, mcSTATE_INTEGRATION);
  uint64_t rest_c = hardRun(m, d2, NSTEP - NHALF);
  cr_expect_eq(rest_a, rest_c, "%s/%s: restore into used data diverges", integrator, solver);

  // the same with mc_copyData at mid-run (into existing and into new data)
  mc_resetData(m, d1);
  hardRun(m, d1, NHALF);
  mc_copyData(d2, m, d1);
  mcData* copy = mc_copyData(NULL, m, d1);
  cr_assert_not_null(copy);
  rest_a = hardRun(m, d1, NSTEP - NHALF);
  rest_b = hardRun(m, d2, NSTEP - NHALF);
  rest_c = hardRun(m, copy, NSTEP - NHALF);
  cr_expect_eq(rest_a, rest_b, "%s/%s: mc_copyData into existing data diverges", integrator,
               solver);
  cr_expect_eq(rest_a, rest_c, "%s/%s: mc_copyData into new data diverges", integrator, solver);

  free(state);
  mc_deleteData(copy);
  mc_deleteData(fresh);
  mc_deleteData(d1);
  mc_deleteData(d2);
  mc_deleteModel(m);
  return 1;
}


// all solvers for one integrator; at least one pair must have run
static void checkIntegrator(const char* integrator, int required) {
  int ran = 0;
  for (size_t s = 0; s < sizeof(kSolvers) / sizeof(kSolvers[0]); s++) {
    ran += checkPair(integrator, kSolvers[s]);
  }
  if (required) {
    cr_expect_eq(ran, 3, "%s: every solver plugin should be available", integrator);
  }
}


Test(determinism, euler_all_solvers, .timeout = 600) {
  checkIntegrator(kIntegrators[0], 1);
}


Test(determinism, rk4_all_solvers, .timeout = 600) {
  checkIntegrator(kIntegrators[1], 1);
}


Test(determinism, implicit_all_solvers, .timeout = 600) {
  checkIntegrator(kIntegrators[2], 0);
}


Test(determinism, implicitfast_all_solvers, .timeout = 600) {
  checkIntegrator(kIntegrators[3], 0);
}


// restoring only the physics state (no warmstart) still gives a finite, close trajectory; the
// contract only promises bitwise equality for mcSTATE_INTEGRATION
Test(determinism, physics_only_restore_is_close) {
  mcModel* m = hardLoad("models/humanoid.xml");
  mcData* d = mc_makeData(m);
  hardRun(m, d, NHALF);
  int n = mc_stateSize(m, mcSTATE_FULLPHYSICS | mcSTATE_CTRL);
  mcNum* state = (mcNum*)malloc(sizeof(mcNum) * (size_t)n);
  mc_getState(m, d, state, mcSTATE_FULLPHYSICS | mcSTATE_CTRL);
  mcData* e = mc_makeData(m);
  mc_setState(m, e, state, mcSTATE_FULLPHYSICS | mcSTATE_CTRL);
  hardRun(m, d, 10);
  hardRun(m, e, 10);
  cr_expect(!hardHasNonFinite(m, e));
  cr_expect_eq(d->time, e->time);
  for (int i = 0; i < m->nq; i++) {
    cr_expect_float_eq(d->qpos[i], e->qpos[i], 1e-3, "qpos[%d]", i);
  }
  free(state);
  mc_deleteData(e);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// reset clears mocap, warmstart and ctrl (Gymnasium-Robotics#207)
Test(determinism, reset_clears_user_inputs_and_warmstart) {
  mcModel* m = hardLoad("models/humanoid.xml");
  mcData* d = mc_makeData(m);
  hardRun(m, d, 50);
  for (int i = 0; i < m->nv; i++) {
    d->qfrc_applied[i] = 1;
  }
  d->xfrc_applied[6 + 2] = 3;
  mc_resetData(m, d);
  for (int i = 0; i < m->nv; i++) {
    cr_expect_eq(d->qacc_warmstart[i], 0.0);
    cr_expect_eq(d->qfrc_applied[i], 0.0);
    cr_expect_eq(d->qvel[i], 0.0);
  }
  for (int i = 0; i < m->nu; i++) {
    cr_expect_eq(d->ctrl[i], 0.0);
  }
  for (int i = 0; i < 6 * m->nbody; i++) {
    cr_expect_eq(d->xfrc_applied[i], 0.0);
  }
  for (int i = 0; i < m->nq; i++) {
    cr_expect_eq(d->qpos[i], m->qpos0[i]);
  }
  cr_expect_eq(d->time, 0.0);
  mc_deleteData(d);
  mc_deleteModel(m);
}


//---------------------------------- threads -------------------------------------------------------

typedef struct {
  const mcModel* m;
  uint64_t hash;
} Job;


// simulate in a thread-owned mcData
static void* threadRun(void* arg) {
  Job* job = (Job*)arg;
  mcData* d = mc_makeData(job->m);
  job->hash = d ? hardRun(job->m, d, NSTEP / 2) : 0;
  mc_deleteData(d);
  return NULL;
}


// N threads, each with its own mcData, reproduce the serial trajectory (MJ#1093)
Test(determinism, threads_match_serial, .timeout = 600) {
  mcModel* m = hardLoad("models/humanoid.xml");
  mcData* d = mc_makeData(m);
  uint64_t serial = hardRun(m, d, NSTEP / 2);
  mc_deleteData(d);

  enum { NTHREAD = 4 };
  pthread_t th[NTHREAD];
  Job job[NTHREAD];
  for (int i = 0; i < NTHREAD; i++) {
    job[i].m = m;
    job[i].hash = 0;
    cr_assert_eq(pthread_create(th + i, NULL, threadRun, job + i), 0);
  }
  for (int i = 0; i < NTHREAD; i++) {
    pthread_join(th[i], NULL);
    cr_expect_eq(job[i].hash, serial, "thread %d differs from the serial run", i);
  }
  mc_deleteModel(m);
}
