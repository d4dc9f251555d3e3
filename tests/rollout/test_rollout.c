// Batch rollouts (core/engine/rollout.c): same inputs give bit-identical trajectories across runs
// and across thread counts, for every registered solver and integrator plugin; the pool matches a
// plain mc_step loop; bad arguments are refused; a pool shared by two threads stays correct.
// Built twice: as a Criterion suite, and with ROLLOUT_PLAIN as a plain program (make test-tsan).
#ifdef ROLLOUT_PLAIN
#include "plain_test.h"
#else
#include <criterion/criterion.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

#define MODEL MODUCO_SOURCE_DIR "/models/humanoid.xml"
#define NROLL 6
#define NSTEP 12
#define SPEC ((unsigned)mcSTATE_INTEGRATION)

// a seeded generator shared by all tests (xorshift64)
static double uniform(unsigned long long* s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return (double)(*s % 2000001ULL) / 1000000.0 - 1.0;
}


// load the test model or fail
static mcModel* load(void) {
  char error[1024] = "";
  mcModel* m = mc_loadXML(MODEL, error, sizeof(error));
  cr_assert(m, "%s: %s", MODEL, error);
  return m;
}


// nroll initial states near qpos0 (falling, so contacts appear) and nroll x nstep controls
static void inputs(const mcModel* m, unsigned long long seed, int nroll, int nstep,
                   mcNum** state0, mcNum** ctrl) {
  int ns = mc_stateSize(m, SPEC);
  mcData* d = mc_makeData(m);
  cr_assert(d);
  *state0 = malloc(sizeof(mcNum) * (size_t)(ns * nroll));
  *ctrl = malloc(sizeof(mcNum) * (size_t)(nroll * nstep * (m->nu ? m->nu : 1)));
  unsigned long long s = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (int r = 0; r < nroll; r++) {
    mc_resetData(m, d);
    for (int i = 0; i < m->nq; i++) {
      d->qpos[i] += 0.05 * uniform(&s);
    }
    mc_normalizeQuat(m, d->qpos);
    for (int i = 0; i < m->nv; i++) {
      d->qvel[i] = 0.3 * uniform(&s);
    }
    mc_getState(m, d, *state0 + (size_t)r * (size_t)ns, SPEC);
  }
  for (int i = 0; i < nroll * nstep * m->nu; i++) {
    (*ctrl)[i] = 0.5 * uniform(&s);
  }
  mc_deleteData(d);
}


// run the batch on a fresh pool of nthread threads; return the states (caller frees)
static mcNum* runPool(const mcModel* m, int nthread, const mcNum* state0, const mcNum* ctrl,
                      mcNum** sensor) {
  int ns = mc_stateSize(m, SPEC);
  mcNum* out = malloc(sizeof(mcNum) * (size_t)(NROLL * NSTEP * ns));
  *sensor = malloc(sizeof(mcNum) * (size_t)(NROLL * NSTEP * (m->nsensordata + 1)));
  mcRolloutPool* p = mc_rolloutCreate(m, nthread, NROLL);
  cr_assert(p);
  cr_assert_eq(mc_rolloutThreads(p), nthread);
  cr_assert_eq(mc_rollout(p, NROLL, NSTEP, SPEC, state0, ctrl, out, *sensor), 0);
  mc_rolloutDelete(p);
  return out;
}


// names of the registered plugins of one kind
static int pluginNames(const char* kind, const char** names, int max) {
  int n = 0;
  for (int i = 0; i < mc_pluginCount() && n < max; i++) {
    mcPluginInfo info;
    if (!mc_pluginInfo(i, &info) && info.kind && !strcmp(info.kind, kind)) {
      names[n++] = info.name;
    }
  }
  return n;
}


Test(rollout, bitwise_across_runs_threads_solvers_integrators) {
  const char* solver[16];
  const char* integrator[16];
  int nsolver = pluginNames("solver", solver, 16);
  int nintegrator = pluginNames("integrator", integrator, 16);
  cr_assert(nsolver >= 3, "expected newton, cg, pgs; found %d solvers", nsolver);
  cr_assert(nintegrator >= 2, "expected euler, rk4; found %d integrators", nintegrator);

  mcModel* base = load();
  int ns = mc_stateSize(base, SPEC);
  size_t nout = (size_t)(NROLL * NSTEP * ns);
  for (int a = 0; a < nsolver; a++) {
    for (int b = 0; b < nintegrator; b++) {
      // the arm's model
      char error[512] = "";
      mcModel* m = mc_copyModel(NULL, base);
      cr_assert(m);
      cr_assert_eq(mc_setSolver(m, solver[a], error, sizeof(error)), 0, "%s", error);
      cr_assert_eq(mc_setIntegrator(m, integrator[b], error, sizeof(error)), 0, "%s", error);
      mcNum *state0, *ctrl, *s1, *s3, *s1b;
      inputs(m, 7 + (unsigned)(a * 16 + b), NROLL, NSTEP, &state0, &ctrl);

      // one thread twice, then three threads
      mcNum* out1 = runPool(m, 1, state0, ctrl, &s1);
      mcNum* out1b = runPool(m, 1, state0, ctrl, &s1b);
      mcNum* out3 = runPool(m, 3, state0, ctrl, &s3);
      cr_expect(!memcmp(out1, out1b, sizeof(mcNum) * nout), "%s/%s: runs differ", solver[a],
                integrator[b]);
      cr_expect(!memcmp(out1, out3, sizeof(mcNum) * nout), "%s/%s: 1 vs 3 threads differ",
                solver[a], integrator[b]);
      size_t nsens = (size_t)(NROLL * NSTEP * m->nsensordata);
      cr_expect(!memcmp(s1, s3, sizeof(mcNum) * nsens), "%s/%s: sensors differ", solver[a],
                integrator[b]);

      // the trajectory moved (the test is not vacuous)
      cr_expect(memcmp(out1, state0, sizeof(mcNum) * (size_t)ns), "%s/%s: nothing moved",
                solver[a], integrator[b]);
      free(out1), free(out1b), free(out3), free(s1), free(s1b), free(s3);
      free(state0), free(ctrl);
      mc_deleteModel(m);
    }
  }
  mc_deleteModel(base);
}


Test(rollout, matches_plain_step_loop) {
  mcModel* m = load();
  int ns = mc_stateSize(m, SPEC);
  mcNum *state0, *ctrl, *sens;
  inputs(m, 3, NROLL, NSTEP, &state0, &ctrl);
  mcNum* out = runPool(m, 2, state0, ctrl, &sens);

  // rollout 4 by hand on a fresh data
  int r = 4;
  mcData* d = mc_makeData(m);
  mcNum* st = malloc(sizeof(mcNum) * (size_t)ns);
  mc_setState(m, d, state0 + r * ns, SPEC);
  for (int t = 0; t < NSTEP; t++) {
    memcpy(d->ctrl, ctrl + (r * NSTEP + t) * m->nu, sizeof(mcNum) * (size_t)m->nu);
    mc_step(m, d);
    mc_getState(m, d, st, SPEC);
    cr_assert(!memcmp(st, out + (size_t)(r * NSTEP + t) * (size_t)ns, sizeof(mcNum) * (size_t)ns),
              "step %d differs from mc_step", t);
  }
  cr_expect(d->ncon > 0 || d->time > 0);
  free(st), free(out), free(sens), free(state0), free(ctrl);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(rollout, forward_batch_bitwise_and_matches_forward) {
  mcModel* m = load();
  int ns = mc_stateSize(m, SPEC), nv = m->nv, n = 9;
  mcNum *states, *ctrl;
  inputs(m, 11, n, 1, &states, &ctrl);
  mcNum* q1 = malloc(sizeof(mcNum) * (size_t)(n * nv));
  mcNum* q2 = malloc(sizeof(mcNum) * (size_t)(n * nv));

  // 1 and 2 threads, two calls on the same pool
  mcRolloutPool* p1 = mc_rolloutCreate(m, 1, n);
  mcRolloutPool* p2 = mc_rolloutCreate(m, 2, n);
  cr_assert(p1 && p2);
  cr_assert_eq(mc_forwardBatch(p1, n, SPEC, states, q1, NULL), 0);
  cr_assert_eq(mc_forwardBatch(p2, n, SPEC, states, q2, NULL), 0);
  cr_expect(!memcmp(q1, q2, sizeof(mcNum) * (size_t)(n * nv)));
  cr_assert_eq(mc_forwardBatch(p2, n, SPEC, states, q2, NULL), 0);
  cr_expect(!memcmp(q1, q2, sizeof(mcNum) * (size_t)(n * nv)));

  // against mc_forward on a fresh data
  mcData* d = mc_makeData(m);
  mc_setState(m, d, states + 5 * ns, SPEC);
  mc_forward(m, d);
  cr_expect(!memcmp(d->qacc, q1 + 5 * nv, sizeof(mcNum) * (size_t)nv));
  mc_deleteData(d);
  mc_rolloutDelete(p1);
  mc_rolloutDelete(p2);
  free(q1), free(q2), free(states), free(ctrl);
  mc_deleteModel(m);
}


Test(rollout, bad_arguments) {
  mcModel* m = load();
  cr_expect_null(mc_rolloutCreate(NULL, 1, 1));
  cr_expect_null(mc_rolloutCreate(m, 0, 1));
  cr_expect_null(mc_rolloutCreate(m, 1, 0));
  mcRolloutPool* p = mc_rolloutCreate(m, 2, 2);
  cr_assert(p);
  mcNum* st = calloc((size_t)(3 * mc_stateSize(m, SPEC)), sizeof(mcNum));
  cr_expect_eq(mc_rollout(p, 3, 1, SPEC, st, NULL, NULL, NULL), -1);
  cr_expect_eq(mc_rollout(p, 1, -1, SPEC, st, NULL, NULL, NULL), -1);
  cr_expect_eq(mc_rollout(p, 1, 1, SPEC, NULL, NULL, NULL, NULL), -1);
  cr_expect_eq(mc_forwardBatch(p, 3, SPEC, st, NULL, NULL), -1);
  cr_expect_eq(mc_rollout(NULL, 1, 1, SPEC, st, NULL, NULL, NULL), -1);
  cr_expect_eq(mc_rollout(p, 0, 5, SPEC, st, NULL, NULL, NULL), 0);
  cr_expect_null(mc_rolloutData(p, 2));
  cr_expect_not_null(mc_rolloutData(p, 1));
  mc_rolloutDelete(p);
  mc_rolloutDelete(NULL);
  free(st);
  mc_deleteModel(m);
}


typedef struct {                  // argument of a thread sharing one pool
  mcRolloutPool* pool;
  const mcModel* m;
  const mcNum* state0;
  const mcNum* ctrl;
  mcNum* out;
} Shared;


// call mc_rollout a few times on a pool another thread also uses
static void* sharedMain(void* arg) {
  Shared* s = arg;
  for (int k = 0; k < 3; k++) {
    mc_rollout(s->pool, NROLL, NSTEP, SPEC, s->state0, s->ctrl, s->out, NULL);
  }
  return NULL;
}


Test(rollout, pool_shared_by_two_threads) {
  mcModel* m = load();
  int ns = mc_stateSize(m, SPEC);
  size_t nout = (size_t)(NROLL * NSTEP * ns);
  mcNum *state0, *ctrl, *sens;
  inputs(m, 5, NROLL, NSTEP, &state0, &ctrl);
  mcNum* ref = runPool(m, 1, state0, ctrl, &sens);

  // two callers, one pool of two threads
  mcRolloutPool* p = mc_rolloutCreate(m, 2, NROLL);
  cr_assert(p);
  Shared a = {p, m, state0, ctrl, malloc(sizeof(mcNum) * nout)};
  Shared b = {p, m, state0, ctrl, malloc(sizeof(mcNum) * nout)};
  pthread_t ta, tb;
  pthread_create(&ta, NULL, sharedMain, &a);
  pthread_create(&tb, NULL, sharedMain, &b);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  cr_expect(!memcmp(a.out, ref, sizeof(mcNum) * nout));
  cr_expect(!memcmp(b.out, ref, sizeof(mcNum) * nout));
  mc_rolloutDelete(p);
  free(a.out), free(b.out), free(ref), free(sens), free(state0), free(ctrl);
  mc_deleteModel(m);
}


//---------------------------------- control_spec and warmstart (mc_rolloutEx) ---------------------

// a box on the floor welded to a mocap body, a hinged arm with a motor: every mcSTATE_USER
// component has a size, and CG with one iteration makes the result depend on the warmstart
static const char* USER_XML =
    "<mujoco><option solver='CG' iterations='1'/>"
    "<worldbody><geom type='plane' size='5 5 0.1'/>"
    "<body name='target' mocap='true' pos='0 0 0.3'/>"
    "<body name='box' pos='0 0 0.1'><freejoint/><geom type='box' size='0.1 0.1 0.1'/>"
    "<body pos='0.1 0 0.1'><joint name='hinge' axis='0 1 0'/>"
    "<geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.02'/></body></body></worldbody>"
    "<equality><weld body1='box' body2='target' solref='0.05 1'/></equality>"
    "<actuator><motor joint='hinge'/></actuator>"
    "<sensor><jointpos joint='hinge'/><framepos objtype='body' objname='box'/></sensor>"
    "</mujoco>";
#define CSPEC ((unsigned)mcSTATE_USER)


// nroll x nstep random control vectors of CSPEC (eq_active entries 0 or 1; 1 at the first step,
// so every rollout starts with the weld's rows, where the warmstart counts)
static mcNum* userControls(const mcModel* m, int nroll, int nstep, unsigned long long seed) {
  int nc = mc_stateSize(m, CSPEC);
  mcNum* c = malloc(sizeof(mcNum) * (size_t)(nroll * nstep * nc));
  cr_assert(c);
  unsigned long long s = seed;
  int eq = mc_stateSize(m, mcSTATE_CTRL | mcSTATE_QFRC_APPLIED | mcSTATE_XFRC_APPLIED);
  for (int k = 0; k < nroll * nstep; k++) {
    for (int i = 0; i < nc; i++) {
      mcNum u = uniform(&s);
      c[k * nc + i] = (i >= eq && i < eq + m->neq) ? (k % nstep == 0 || u > 0) : 0.5 * u;
    }
  }
  return c;
}


// rollout r by hand: reset, state, warmstart, then mc_setState(CSPEC) + mc_step; compare every
// step's state and sensors with the pool's outputs
static void expectByHand(const mcModel* m, int r, int nstep, const mcNum* state0,
                         const mcNum* warm, const mcNum* ctrl, const mcNum* out,
                         const mcNum* sens) {
  int ns = mc_stateSize(m, SPEC), nc = mc_stateSize(m, CSPEC), nsd = m->nsensordata;
  mcData* d = mc_makeData(m);
  mcNum* st = malloc(sizeof(mcNum) * (size_t)ns);
  cr_assert(d && st);
  mc_setState(m, d, state0 + r * ns, SPEC);
  memcpy(d->qacc_warmstart, warm + r * m->nv, sizeof(mcNum) * (size_t)m->nv);
  for (int t = 0; t < nstep; t++) {
    int rt = r * nstep + t;
    mc_setState(m, d, ctrl + rt * nc, CSPEC);
    mc_step(m, d);
    mc_getState(m, d, st, SPEC);
    cr_expect(!memcmp(st, out + (size_t)rt * (size_t)ns, sizeof(mcNum) * (size_t)ns),
              "rollout %d step %d: state differs from stepping by hand", r, t);
    cr_expect(!memcmp(d->sensordata, sens + (size_t)rt * (size_t)nsd,
                      sizeof(mcNum) * (size_t)nsd),
              "rollout %d step %d: sensors differ from stepping by hand", r, t);
  }
  free(st);
  mc_deleteData(d);
}


Test(rollout, control_spec_and_warmstart_bitwise) {
  char error[512] = "";
  mcModel* m = mc_loadXMLString(USER_XML, NULL, error, sizeof(error));
  cr_assert(m, "%s", error);
  cr_assert(m->nmocap == 1 && m->neq == 1 && m->nu == 1);
  int ns = mc_stateSize(m, SPEC), nv = m->nv, nsd = m->nsensordata;
  size_t nout = (size_t)(NROLL * NSTEP * ns), nsens = (size_t)(NROLL * NSTEP * nsd);

  // initial states, controls, warmstarts (near the first step's qacc, so the solver keeps them)
  mcNum *state0, *unused;
  inputs(m, 13, NROLL, NSTEP, &state0, &unused);
  mcNum* ctrl = userControls(m, NROLL, NSTEP, 99);
  int nc = mc_stateSize(m, CSPEC);
  mcNum* warm = malloc(sizeof(mcNum) * (size_t)(NROLL * nv));
  mcData* d = mc_makeData(m);
  for (int r = 0; r < NROLL; r++) {
    mc_setState(m, d, state0 + r * ns, SPEC);
    mc_setState(m, d, ctrl + r * NSTEP * nc, CSPEC);
    mc_forward(m, d);
    for (int i = 0; i < nv; i++) {
      warm[r * nv + i] = (0.9 + 0.02 * r) * d->qacc[i];
    }
  }

  // 1 and 3 threads, then each rollout by hand
  mcNum* out[2];
  mcNum* sens[2];
  for (int k = 0; k < 2; k++) {
    out[k] = malloc(sizeof(mcNum) * nout);
    sens[k] = malloc(sizeof(mcNum) * (nsens + 1));
    mcRolloutPool* p = mc_rolloutCreate(m, k ? 3 : 1, NROLL);
    cr_assert(p);
    cr_assert_eq(mc_rolloutEx(p, NROLL, NSTEP, SPEC, state0, warm, CSPEC, ctrl, out[k],
                              sens[k]), 0);
    mc_rolloutDelete(p);
  }
  cr_expect(!memcmp(out[0], out[1], sizeof(mcNum) * nout), "1 vs 3 threads differ");
  cr_expect(!memcmp(sens[0], sens[1], sizeof(mcNum) * nsens), "1 vs 3 threads: sensors differ");
  for (int r = 0; r < NROLL; r++) {
    expectByHand(m, r, NSTEP, state0, warm, ctrl, out[1], sens[1]);
  }

  // the inputs matter: without the warmstart, or without the controls, the first step of every
  // rollout differs
  mcRolloutPool* p = mc_rolloutCreate(m, 2, NROLL);
  cr_assert(p);
  mcNum* other = malloc(sizeof(mcNum) * nout);
  for (int k = 0; k < 2; k++) {
    cr_assert_eq(mc_rolloutEx(p, NROLL, NSTEP, SPEC, state0, k ? warm : NULL, CSPEC,
                              k ? NULL : ctrl, other, NULL), 0);
    for (int r = 0; r < NROLL; r++) {
      size_t first = (size_t)r * NSTEP * (size_t)ns;
      cr_expect(memcmp(other + first, out[0] + first, sizeof(mcNum) * (size_t)ns),
                "rollout %d: the %s changed nothing", r, k ? "controls" : "warmstart");
    }
  }

  // mc_rollout is mc_rolloutEx with mcSTATE_CTRL and no warmstart
  mcNum* ref = malloc(sizeof(mcNum) * nout);
  cr_assert_eq(mc_rollout(p, NROLL, NSTEP, SPEC, state0, unused, ref, NULL), 0);
  cr_assert_eq(mc_rolloutEx(p, NROLL, NSTEP, SPEC, state0, NULL, mcSTATE_CTRL, unused, other,
                            NULL), 0);
  cr_expect(!memcmp(ref, other, sizeof(mcNum) * nout), "mc_rollout differs from mc_rolloutEx");

  // a control_spec outside mcSTATE_USER is refused
  cr_expect_eq(mc_rolloutEx(p, 1, 1, SPEC, state0, NULL, mcSTATE_QPOS, ctrl, NULL, NULL), -1);
  cr_expect_eq(mc_rolloutEx(p, 1, 1, SPEC, state0, NULL, 1u << mcNSTATE, ctrl, NULL, NULL), -1);
  cr_expect_eq(mc_rolloutEx(p, 1, -1, SPEC, state0, NULL, CSPEC, ctrl, NULL, NULL), -1);
  mc_rolloutDelete(p);
  for (int k = 0; k < 2; k++) {
    free(out[k]), free(sens[k]);
  }
  free(other), free(ref), free(warm), free(ctrl), free(state0), free(unused);
  mc_deleteData(d);
  mc_deleteModel(m);
}
