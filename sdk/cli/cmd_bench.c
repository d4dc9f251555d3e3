// Moduco command-line tool: 'bench' runs A/B benchmarks of solver and integrator plugins (and
// MuJoCo 2.2.2, dlopened at run time) on the same models, states and control sequences.
// Output: a table on stdout, optionally JSON (docs/bench.md) and an SVG bar chart.
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <moduco/mcplugin.h>

#include "cli.h"

// MuJoCo's headers give the struct layouts of the reference arm; the library is never linked
#if defined(__has_include)
#if __has_include(<mujoco/mujoco.h>)
#include <mujoco/mujoco.h>
#define BENCH_HAVE_MUJOCO 1
#endif
#endif
#ifndef BENCH_HAVE_MUJOCO
#define BENCH_HAVE_MUJOCO 0
#endif

#define MAXLIST 32                // most names in one --solver / --integrator / --threads list
#define NSAMPLE 64                // states kept per arm for the forward-evaluation scaling
#define BOOTSTRAP 2000            // resamples of the ratio confidence interval
#define ENGINE_MODUCO 0
#define ENGINE_MUJOCO 1

static const char* const kUsage =
  "usage: moduco bench MODEL... [--solver A,B,...] [--integrator A,B,...] [--steps N] "
  "[--repeat R] [--warmup N] [--threads T1,T2,...] [--ctrlnoise S] [--seed S] [--json FILE] "
  "[--plot FILE.svg] [--reference mujoco] [--profile]";

//---------------------------------- MuJoCo, dlopened ----------------------------------------------

typedef struct {                  // the MuJoCo entry points the reference arm needs
  void* lib;
  int version;
  char error[256];
#if BENCH_HAVE_MUJOCO
  mjModel* (*loadXML)(const char*, const mjVFS*, char*, int);
  mjData* (*makeData)(const mjModel*);
  void (*step)(const mjModel*, mjData*);
  void (*forward)(const mjModel*, mjData*);
  void (*resetData)(const mjModel*, mjData*);
  void (*deleteData)(mjData*);
  void (*deleteModel)(mjModel*);
  mjfTime* cbtime;
#endif
} MuJoCo;

static MuJoCo g_mj;


#if BENCH_HAVE_MUJOCO
// clock handed to MuJoCo's timers (mjcb_time), in microseconds
static mjtNum mujocoClock(void) {
  return (mjtNum)(cli_now() * 1e6);
}
#endif


// dlopen libmujoco and resolve its symbols; return 0, or -1 with g_mj.error set
static int mujocoOpen(void) {
#if BENCH_HAVE_MUJOCO
  if (g_mj.lib) {
    return 0;
  }
  const char* names[] = {"libmujoco.so.2.2.2", "libmujoco.so", "libmujoco.so.2"};
  for (int i = 0; i < 3 && !g_mj.lib; i++) {
    g_mj.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  }
  if (!g_mj.lib) {
    snprintf(g_mj.error, sizeof(g_mj.error), "MuJoCo not found (libmujoco.so.2.2.2): %s",
             dlerror());
    return -1;
  }
  int (*version)(void) = (int (*)(void))dlsym(g_mj.lib, "mj_version");
  g_mj.loadXML = (mjModel* (*)(const char*, const mjVFS*, char*, int))dlsym(g_mj.lib,
                                                                               "mj_loadXML");
  g_mj.makeData = (mjData* (*)(const mjModel*))dlsym(g_mj.lib, "mj_makeData");
  g_mj.step = (void (*)(const mjModel*, mjData*))dlsym(g_mj.lib, "mj_step");
  g_mj.forward = (void (*)(const mjModel*, mjData*))dlsym(g_mj.lib, "mj_forward");
  g_mj.resetData = (void (*)(const mjModel*, mjData*))dlsym(g_mj.lib, "mj_resetData");
  g_mj.deleteData = (void (*)(mjData*))dlsym(g_mj.lib, "mj_deleteData");
  g_mj.deleteModel = (void (*)(mjModel*))dlsym(g_mj.lib, "mj_deleteModel");
  g_mj.cbtime = (mjfTime*)dlsym(g_mj.lib, "mjcb_time");
  if (!version || !g_mj.loadXML || !g_mj.makeData || !g_mj.step || !g_mj.forward ||
      !g_mj.resetData || !g_mj.deleteData || !g_mj.deleteModel) {
    snprintf(g_mj.error, sizeof(g_mj.error), "libmujoco lacks mj_loadXML/mj_step/...");
    dlclose(g_mj.lib);
    g_mj.lib = NULL;
    return -1;
  }

  // the struct layouts come from the 2.2.2 headers: refuse another version
  g_mj.version = version();
  if (g_mj.version != mjVERSION_HEADER) {
    snprintf(g_mj.error, sizeof(g_mj.error), "libmujoco is version %d, the bench was built "
             "against %d", g_mj.version, mjVERSION_HEADER);
    dlclose(g_mj.lib);
    g_mj.lib = NULL;
    return -1;
  }
  return 0;
#else
  snprintf(g_mj.error, sizeof(g_mj.error), "moduco was built without MuJoCo headers");
  return -1;
#endif
}


// MuJoCo's option code for a solver / integrator name; -1 if MuJoCo 2.2.2 has no equivalent
static int mujocoSolver(const char* name) {
  const char* known[] = {"pgs", "cg", "newton"};
  for (int i = 0; i < 3; i++) {
    if (!strcasecmp(name, known[i])) {
      return i;
    }
  }
  return -1;
}


static int mujocoIntegrator(const char* name) {
  const char* known[] = {"euler", "rk4", "implicit"};
  for (int i = 0; i < 3; i++) {
    if (!strcasecmp(name, known[i])) {
      return i;
    }
  }
  return -1;
}


//---------------------------------- arms ----------------------------------------------------------

typedef struct {                  // scaling at one thread count
  int threads;
  double steps_per_second;        // batch rollouts, all threads together
  double forward_per_second;      // forward evaluations at recorded states
  double forward_per_cpu_second;  // the same per second of process CPU time (per busy core)
} Scaling;

typedef struct {                  // one benchmark arm: engine x model x solver x integrator
  int engine;
  int group;                      // index of the model (arms of one model share inputs)
  const char* file;
  char solver[64];                // requested name ("" = the model's own)
  char integrator[64];
  char error[1024];               // non-empty: the arm could not run

  // moduco
  mcModel* m;
  mcData* d;

  // mujoco
#if BENCH_HAVE_MUJOCO
  mjModel* mjm;
  mjData* mjd;
#endif

  // sizes and statistics (filled by the untimed statistics pass)
  int nq, nv, nu;
  double timestep;
  double iter_mean, gradient, improvement, ncon_mean, nefc_mean;
  double energy0, energy1;
  int warnings;

  // timing
  double* rate;                   // steps/s of each timed repeat
  double median, min, max;
  double ratio, ratio_lo, ratio_hi, ratio_min, ratio_max;
  int has_ratio;
  int mujoco_arm;                 // index of the MuJoCo arm with the same settings, or -1

  // profile: seconds per step of each timer; per-plugin timers (moduco only)
  int has_profile;
  double prof[mcNTIMER];
  double pprof[mcNTIMERPLUGIN];   // seconds per step of each plugin slot
  double pcalls[mcNTIMERPLUGIN];  // calls per step of each plugin slot

  // thread scaling
  Scaling* scaling;
  mcNum* samples;                 // NSAMPLE states (moduco: mcSTATE_INTEGRATION)
  int nsample;
  double sample_ncon;             // mean contacts at the recorded states
  double sample_incontact;        // fraction of the recorded states with a contact
#if BENCH_HAVE_MUJOCO
  double* mjsamples;              // NSAMPLE x (nq + nv + na + nu) for MuJoCo
#endif
} Arm;

typedef struct {                  // command line
  const char* model[MAXLIST];
  int nmodel;
  char* solver[MAXLIST];
  int nsolver;
  char* integrator[MAXLIST];
  int nintegrator;
  int threads[MAXLIST];
  int nthreads;
  long steps, repeat, warmup;
  double ctrlnoise;
  unsigned long long seed;
  const char* json;
  const char* plot;
  int reference;
  int profile;
} Options;

typedef struct {                  // inputs shared by the arms of one model
  int nu;
  double* ctrl;                   // steps x nu
} Group;


// split a comma-separated list in place
static int splitList(char* s, char** out, int max) {
  int n = 0;
  for (char* tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ",")) {
    if (*tok) {
      out[n++] = tok;
    }
  }
  return n;
}


// xorshift64 in [-1, 1]
static double uniform(unsigned long long* s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return (double)(*s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}


// a control sequence: smoothed noise of amplitude ctrlnoise, scaled to ctrlrange when limited
static double* makeControls(const mcModel* m, long steps, double noise, unsigned long long seed) {
  int nu = m->nu;
  double* c = calloc((size_t)(steps * (nu ? nu : 1)), sizeof(double));
  unsigned long long s = seed * 0x9E3779B97F4A7C15ULL + 12345;
  double* x = calloc((size_t)(nu ? nu : 1), sizeof(double));
  if (!c || !x) {
    free(c);
    free(x);
    return NULL;
  }
  for (long t = 0; t < steps; t++) {
    for (int i = 0; i < nu; i++) {
      // first-order filtered noise keeps the controls smooth
      x[i] = 0.9 * x[i] + 0.1 * uniform(&s) * 3.0;
      double v = noise * x[i];
      if (m->actuator_ctrllimited[i]) {
        double lo = m->actuator_ctrlrange[2 * i], hi = m->actuator_ctrlrange[2 * i + 1];
        v = 0.5 * (lo + hi) + 0.5 * (hi - lo) * v;
        v = v < lo ? lo : (v > hi ? hi : v);
      }
      c[t * nu + i] = v;
    }
  }
  free(x);
  return c;
}


// load the moduco arm and apply its plugins; on failure fill arm->error
static void setupModuco(Arm* a) {
  a->m = mc_loadXML(a->file, a->error, sizeof(a->error));
  if (!a->m) {
    if (!a->error[0]) {
      snprintf(a->error, sizeof(a->error), "%s: could not load model", a->file);
    }
    return;
  }
  char err[1024] = "";
  if ((a->solver[0] && mc_setSolver(a->m, a->solver, err, sizeof(err))) ||
      (a->integrator[0] && mc_setIntegrator(a->m, a->integrator, err, sizeof(err)))) {
    snprintf(a->error, sizeof(a->error), "%s", err[0] ? err : "could not set plugin");
    return;
  }
  snprintf(a->solver, sizeof(a->solver), "%s", cli_solverName(a->m));
  snprintf(a->integrator, sizeof(a->integrator), "%s", cli_integratorName(a->m));
  a->d = mc_makeData(a->m);
  if (!a->d) {
    snprintf(a->error, sizeof(a->error), "could not allocate data");
    return;
  }
  a->nq = a->m->nq;
  a->nv = a->m->nv;
  a->nu = a->m->nu;
  a->timestep = a->m->opt.timestep;
}


// load the MuJoCo arm with the solver and integrator of its moduco twin
static void setupMuJoCo(Arm* a) {
#if BENCH_HAVE_MUJOCO
  if (mujocoOpen()) {
    snprintf(a->error, sizeof(a->error), "%s", g_mj.error);
    return;
  }
  char err[1024] = "";
  a->mjm = g_mj.loadXML(a->file, NULL, err, sizeof(err));
  if (!a->mjm) {
    snprintf(a->error, sizeof(a->error), "MuJoCo: %.1000s",
             err[0] ? err : "could not load model");
    return;
  }
  int s = mujocoSolver(a->solver), i = mujocoIntegrator(a->integrator);
  if (s >= 0) {
    a->mjm->opt.solver = s;
  }
  if (i >= 0) {
    a->mjm->opt.integrator = i;
  }
  const char* sn[] = {"PGS", "CG", "Newton"};
  const char* in[] = {"Euler", "RK4", "implicit"};
  snprintf(a->solver, sizeof(a->solver), "%s", sn[a->mjm->opt.solver % 3]);
  snprintf(a->integrator, sizeof(a->integrator), "%s", in[a->mjm->opt.integrator % 3]);
  a->mjd = g_mj.makeData(a->mjm);
  if (!a->mjd) {
    snprintf(a->error, sizeof(a->error), "MuJoCo: could not allocate data");
    return;
  }
  a->nq = a->mjm->nq;
  a->nv = a->mjm->nv;
  a->nu = a->mjm->nu;
  a->timestep = a->mjm->opt.timestep;
#else
  snprintf(a->error, sizeof(a->error), "moduco was built without MuJoCo headers");
#endif
}


// reset the arm to its initial state
static void armReset(Arm* a) {
  if (a->engine == ENGINE_MODUCO) {
    mc_resetData(a->m, a->d);
  }
#if BENCH_HAVE_MUJOCO
  else {
    g_mj.resetData(a->mjm, a->mjd);
  }
#endif
}


// run steps with the group's controls; return the wall time
static double armRun(Arm* a, const Group* g, long steps) {
  int nu = g->nu;
  armReset(a);
  double t0 = cli_now();
  if (a->engine == ENGINE_MODUCO) {
    mcData* d = a->d;
    for (long t = 0; t < steps; t++) {
      for (int i = 0; i < nu; i++) {
        d->ctrl[i] = g->ctrl[t * nu + i];
      }
      mc_step(a->m, d);
    }
  }
#if BENCH_HAVE_MUJOCO
  else {
    mjData* d = a->mjd;
    for (long t = 0; t < steps; t++) {
      for (int i = 0; i < nu; i++) {
        d->ctrl[i] = g->ctrl[t * nu + i];
      }
      g_mj.step(a->mjm, d);
    }
  }
#endif
  return cli_now() - t0;
}


// total energy of the arm at its current state (forward first)
static double armEnergy(Arm* a) {
  if (a->engine == ENGINE_MODUCO) {
    return (double)mc_totalEnergy(a->m, a->d);
  }
#if BENCH_HAVE_MUJOCO
  // energy on for this one forward call only
  int flags = a->mjm->opt.enableflags;
  a->mjm->opt.enableflags |= mjENBL_ENERGY;
  g_mj.forward(a->mjm, a->mjd);
  a->mjm->opt.enableflags = flags;
  return a->mjd->energy[0] + a->mjd->energy[1];
#else
  return 0;
#endif
}


// the untimed statistics pass: iterations, residual, contacts, energy, states for scaling
static void armStatistics(Arm* a, const Group* g, long steps) {
  int nu = g->nu;
  double iter = 0, grad = 0, impr = 0, ncon = 0, nefc = 0;
  int nstat = 0;
  armReset(a);
  a->energy0 = armEnergy(a);
  armReset(a);
  long every = steps / NSAMPLE > 0 ? steps / NSAMPLE : 1;
  double sncon = 0, scont = 0;
  a->nsample = 0;
  for (long t = 0; t < steps; t++) {
    int sampled = 0;
    if (a->engine == ENGINE_MODUCO) {
      mcData* d = a->d;
      for (int i = 0; i < nu; i++) {
        d->ctrl[i] = g->ctrl[t * nu + i];
      }
      if (a->samples && t % every == 0 && a->nsample < NSAMPLE) {
        int ns = mc_stateSize(a->m, mcSTATE_INTEGRATION);
        mc_getState(a->m, d, a->samples + (size_t)a->nsample++ * (size_t)ns,
                    mcSTATE_INTEGRATION);
        sampled = 1;
      }
      mc_step(a->m, d);
      if (sampled) {
        sncon += d->ncon;           // the step's forward ran at the recorded state
        scont += d->ncon > 0;
      }
      iter += d->solver_iter;
      if (d->solver_iter > 0) {
        int k = (d->solver_iter < mcNSOLVER ? d->solver_iter : mcNSOLVER) - 1;
        grad += d->solver[k].gradient;
        impr += d->solver[k].improvement;
        nstat++;
      }
      ncon += d->ncon;
      nefc += d->nefc;
    }
#if BENCH_HAVE_MUJOCO
    else {
      mjData* d = a->mjd;
      for (int i = 0; i < nu; i++) {
        d->ctrl[i] = g->ctrl[t * nu + i];
      }
      if (a->mjsamples && t % every == 0 && a->nsample < NSAMPLE) {
        int w = a->mjm->nq + a->mjm->nv + a->mjm->na + a->mjm->nu;
        double* s = a->mjsamples + (size_t)a->nsample++ * (size_t)w;
        memcpy(s, d->qpos, sizeof(double) * (size_t)a->mjm->nq);
        memcpy(s + a->mjm->nq, d->qvel, sizeof(double) * (size_t)a->mjm->nv);
        memcpy(s + a->mjm->nq + a->mjm->nv, d->act, sizeof(double) * (size_t)a->mjm->na);
        memcpy(s + a->mjm->nq + a->mjm->nv + a->mjm->na, d->ctrl,
               sizeof(double) * (size_t)a->mjm->nu);
        sampled = 1;
      }
      g_mj.step(a->mjm, d);
      if (sampled) {
        sncon += d->ncon;
        scont += d->ncon > 0;
      }
      iter += d->solver_iter;
      if (d->solver_iter > 0) {
        int k = (d->solver_iter < mjNSOLVER ? d->solver_iter : mjNSOLVER) - 1;
        grad += d->solver[k].gradient;
        impr += d->solver[k].improvement;
        nstat++;
      }
      ncon += d->ncon;
      nefc += d->nefc;
    }
#endif
  }

  // means over steps; energy at the final state
  a->sample_ncon = a->nsample ? sncon / a->nsample : 0;
  a->sample_incontact = a->nsample ? scont / a->nsample : 0;
  double n = steps > 0 ? (double)steps : 1;
  a->iter_mean = iter / n;
  a->gradient = nstat ? grad / nstat : 0;
  a->improvement = nstat ? impr / nstat : 0;
  a->ncon_mean = ncon / n;
  a->nefc_mean = nefc / n;
  a->energy1 = armEnergy(a);
  a->warnings = 0;
  if (a->engine == ENGINE_MODUCO) {
    for (int i = 0; i < mcNWARNING; i++) {
      a->warnings += a->d->warning[i].number;
    }
  }
#if BENCH_HAVE_MUJOCO
  else {
    for (int i = 0; i < mjNWARNING; i++) {
      a->warnings += a->mjd->warning[i].number;
    }
  }
#endif
}


// profile pass: timers per step (MuJoCo through mjcb_time; it has no integrator timer)
static void armProfile(Arm* a, const Group* g, long steps) {
  memset(a->prof, 0, sizeof(a->prof));
  memset(a->pprof, 0, sizeof(a->pprof));
  memset(a->pcalls, 0, sizeof(a->pcalls));
  if (a->engine == ENGINE_MODUCO) {
    a->d->profile = 1;
    armRun(a, g, steps);               // mc_resetData clears the timers first
    for (int i = 0; i < mcNTIMER; i++) {
      a->prof[i] = steps ? a->d->timer[i].duration / (double)steps : 0;
    }
    for (int i = 0; i < mcNTIMERPLUGIN; i++) {
      a->pprof[i] = steps ? a->d->timer_plugin[i].duration / (double)steps : 0;
      a->pcalls[i] = steps ? a->d->timer_plugin[i].number / (double)steps : 0;
    }
    a->d->profile = 0;
    a->has_profile = 1;
  }
#if BENCH_HAVE_MUJOCO
  else if (g_mj.cbtime) {
    *g_mj.cbtime = mujocoClock;
    armRun(a, g, steps);               // mj_resetData clears the timers first
    *g_mj.cbtime = NULL;
    for (int i = 0; i < mjNTIMER && i < mcNTIMER; i++) {
      a->prof[i] = steps ? 1e-6 * a->mjd->timer[i].duration / (double)steps : 0;
    }
    a->has_profile = 1;
  }
#endif
}


//---------------------------------- thread scaling ------------------------------------------------

#if BENCH_HAVE_MUJOCO
typedef struct {                  // MuJoCo threads: one mjData each, items from a counter
  Arm* arm;
  const Group* group;
  mjData* d;
  int forward;                    // 1: forward evaluations, 0: rollouts
  int nitem;
  long steps;
  atomic_int* next;
} MjWorker;


// take items until none are left
static void* mjWorkerMain(void* arg) {
  MjWorker* w = arg;
  const mjModel* m = w->arm->mjm;
  int width = m->nq + m->nv + m->na + m->nu;
  for (;;) {
    int i = atomic_fetch_add(w->next, 1);
    if (i >= w->nitem) {
      return NULL;
    }
    if (w->forward) {
      const double* s = w->arm->mjsamples + (size_t)(i % w->arm->nsample) * (size_t)width;
      memcpy(w->d->qpos, s, sizeof(double) * (size_t)m->nq);
      memcpy(w->d->qvel, s + m->nq, sizeof(double) * (size_t)m->nv);
      memcpy(w->d->act, s + m->nq + m->nv, sizeof(double) * (size_t)m->na);
      memcpy(w->d->ctrl, s + m->nq + m->nv + m->na, sizeof(double) * (size_t)m->nu);
      g_mj.forward(m, w->d);
    } else {
      g_mj.resetData(m, w->d);
      for (long t = 0; t < w->steps; t++) {
        memcpy(w->d->ctrl, w->group->ctrl + t * m->nu, sizeof(double) * (size_t)m->nu);
        g_mj.step(m, w->d);
      }
    }
  }
}


static double cpuNow(void);


// time nitem MuJoCo items on nthread threads (data made before the clocks start); return the
// wall time, and the process CPU time in *cpu (nullable)
static double mujocoBatch(Arm* a, const Group* g, int nthread, int forward, int nitem,
                          long steps, double* cpu) {
  MjWorker w[MAXLIST];
  pthread_t th[MAXLIST];
  atomic_int next;
  atomic_init(&next, 0);
  for (int i = 0; i < nthread; i++) {
    w[i] = (MjWorker){a, g, g_mj.makeData(a->mjm), forward, nitem, steps, &next};
  }
  double t0 = cli_now(), c0 = cpuNow();
  for (int i = 1; i < nthread; i++) {
    pthread_create(&th[i], NULL, mjWorkerMain, &w[i]);
  }
  mjWorkerMain(&w[0]);
  for (int i = 1; i < nthread; i++) {
    pthread_join(th[i], NULL);
  }
  double dt = cli_now() - t0;
  if (cpu) {
    *cpu = cpuNow() - c0;
  }
  for (int i = 0; i < nthread; i++) {
    g_mj.deleteData(w[i].d);
  }
  return dt;
}
#endif


// CPU seconds used by the process (all threads); unlike wall time, not inflated while the
// threads wait for a core on a loaded machine
static double cpuNow(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


// median of n values (sorts a copy)
static int cmpDouble(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}


static double median(const double* v, int n) {
  if (n <= 0) {
    return 0;
  }
  double* c = malloc(sizeof(double) * (size_t)n);
  memcpy(c, v, sizeof(double) * (size_t)n);
  qsort(c, (size_t)n, sizeof(double), cmpDouble);
  double r = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
  free(c);
  return r;
}


// rollout and forward throughput of one arm at each thread count (median of repeats)
static void armScaling(Arm* a, const Group* g, const Options* o, double rate1) {
  int maxthr = 1;
  for (int k = 0; k < o->nthreads; k++) {
    maxthr = o->threads[k] > maxthr ? o->threads[k] : maxthr;
  }
  // rollouts: 2 per thread of the largest count, so every count does the same work
  int nroll = 2 * maxthr;
  long steps = o->steps;
  // forward items: about 50 ms on one thread at the measured step rate
  int nfwd = (int)(rate1 * 0.05);
  nfwd = nfwd < 64 ? 64 : (nfwd > 200000 ? 200000 : nfwd);
  nfwd = (nfwd + maxthr - 1) / maxthr * maxthr;
  int reps = o->repeat < 3 ? 3 : (int)o->repeat;
  double* t = malloc(sizeof(double) * (size_t)reps);
  double* c = malloc(sizeof(double) * (size_t)reps);

  for (int k = 0; k < o->nthreads; k++) {
    int nthr = o->threads[k];
    Scaling* s = &a->scaling[k];
    s->threads = nthr;
    if (a->engine == ENGINE_MODUCO) {
      // one pool per thread count, made before timing
      int ns = mc_stateSize(a->m, mcSTATE_INTEGRATION);
      int nb = nfwd > nroll ? nfwd : nroll;
      mcRolloutPool* p = mc_rolloutCreate(a->m, nthr, nb);
      mcNum* st0 = malloc(sizeof(mcNum) * (size_t)ns * (size_t)nroll);
      mcNum* ctrl = malloc(sizeof(mcNum) * (size_t)(nroll * steps * (g->nu ? g->nu : 1)));
      mcNum* fst = malloc(sizeof(mcNum) * (size_t)ns * (size_t)nfwd);
      mcNum* qacc = malloc(sizeof(mcNum) * (size_t)(nfwd * (a->nv ? a->nv : 1)));
      if (!p || !st0 || !ctrl || !fst || !qacc || a->nsample == 0) {
        free(st0), free(ctrl), free(fst), free(qacc);
        mc_rolloutDelete(p);
        continue;
      }
      mc_resetData(a->m, a->d);
      for (int r = 0; r < nroll; r++) {
        mc_getState(a->m, a->d, st0 + (size_t)r * (size_t)ns, mcSTATE_INTEGRATION);
        for (long i = 0; i < steps * g->nu; i++) {
          ctrl[r * steps * g->nu + i] = g->ctrl[i];
        }
      }
      for (int i = 0; i < nfwd; i++) {
        memcpy(fst + (size_t)i * (size_t)ns, a->samples + (size_t)(i % a->nsample) * (size_t)ns,
               sizeof(mcNum) * (size_t)ns);
      }

      // warm-up, then repeats
      mc_forwardBatch(p, nfwd, mcSTATE_INTEGRATION, fst, qacc, NULL);
      for (int r = 0; r < reps; r++) {
        double t0 = cli_now();
        mc_rollout(p, nroll, (int)steps, mcSTATE_INTEGRATION, st0, ctrl, NULL, NULL);
        t[r] = cli_now() - t0;
      }
      s->steps_per_second = (double)(nroll * steps) / median(t, reps);
      for (int r = 0; r < reps; r++) {
        double t0 = cli_now(), c0 = cpuNow();
        mc_forwardBatch(p, nfwd, mcSTATE_INTEGRATION, fst, qacc, NULL);
        t[r] = cli_now() - t0;
        c[r] = cpuNow() - c0;
      }
      s->forward_per_second = (double)nfwd / median(t, reps);
      s->forward_per_cpu_second = (double)nfwd / median(c, reps);
      free(st0), free(ctrl), free(fst), free(qacc);
      mc_rolloutDelete(p);
    }
#if BENCH_HAVE_MUJOCO
    else if (a->nsample > 0 && nthr <= MAXLIST) {
      mujocoBatch(a, g, nthr, 1, nfwd, 0, NULL);
      for (int r = 0; r < reps; r++) {
        t[r] = mujocoBatch(a, g, nthr, 0, nroll, steps, NULL);
      }
      s->steps_per_second = (double)(nroll * steps) / median(t, reps);
      for (int r = 0; r < reps; r++) {
        t[r] = mujocoBatch(a, g, nthr, 1, nfwd, 0, &c[r]);
      }
      s->forward_per_second = (double)nfwd / median(t, reps);
      s->forward_per_cpu_second = (double)nfwd / median(c, reps);
    }
#endif
  }
  free(t);
  free(c);
}


//---------------------------------- ratios --------------------------------------------------------

// paired ratios rate_a[r] / rate_b[r] (same repeat, adjacent in time): median, min, max and a
// seeded percentile-bootstrap 95% interval of the median
static void pairedRatio(Arm* a, const double* ref, int n, unsigned long long seed) {
  double* q = malloc(sizeof(double) * (size_t)n);
  double* boot = malloc(sizeof(double) * BOOTSTRAP);
  double* res = malloc(sizeof(double) * (size_t)n);
  a->ratio_min = INFINITY;
  a->ratio_max = -INFINITY;
  for (int r = 0; r < n; r++) {
    q[r] = ref[r] > 0 ? a->rate[r] / ref[r] : 0;
    a->ratio_min = q[r] < a->ratio_min ? q[r] : a->ratio_min;
    a->ratio_max = q[r] > a->ratio_max ? q[r] : a->ratio_max;
  }
  a->ratio = median(q, n);
  unsigned long long s = seed * 0x2545F4914F6CDD1DULL + 99;
  for (int b = 0; b < BOOTSTRAP; b++) {
    for (int r = 0; r < n; r++) {
      double u = 0.5 * (uniform(&s) + 1);
      int k = (int)(u * n);
      res[r] = q[k < n ? k : n - 1];
    }
    boot[b] = median(res, n);
  }
  qsort(boot, BOOTSTRAP, sizeof(double), cmpDouble);
  a->ratio_lo = boot[(int)(0.025 * BOOTSTRAP)];
  a->ratio_hi = boot[(int)(0.975 * BOOTSTRAP) - 1];
  a->has_ratio = 1;
  free(q);
  free(boot);
  free(res);
}


//---------------------------------- output --------------------------------------------------------

// engine label of an arm
static const char* engineName(const Arm* a) {
  return a->engine == ENGINE_MODUCO ? "moduco" : "mujoco-2.2.2";
}


// short model name: the file name without folders
static const char* baseName(const char* path) {
  const char* s = strrchr(path, '/');
  return s ? s + 1 : path;
}


// the table on stdout
static void printTable(const Arm* arm, int narm, const Options* o) {
  printf("%-3s %-13s %-22s %-8s %-10s %12s %12s %12s %9s %7s %9s %6s %6s %11s %s\n", "arm",
         "engine", "model", "solver", "integrator", "steps/s", "min", "max", "realtime",
         "iter", "gradient", "ncon", "nefc", "E drift", "ratio [95% CI] (min..max)");
  for (int i = 0; i < narm; i++) {
    const Arm* a = &arm[i];
    if (a->error[0]) {
      printf("%-3d %-13s %-22s %-8s %-10s FAILED: %s\n", i, engineName(a), baseName(a->file),
             a->solver[0] ? a->solver : "-", a->integrator[0] ? a->integrator : "-", a->error);
      continue;
    }
    printf("%-3d %-13s %-22s %-8s %-10s %12.0f %12.0f %12.0f %9.2f %7.2f %9.2e %6.1f %6.1f "
           "%11.3e ", i, engineName(a), baseName(a->file), a->solver, a->integrator, a->median,
           a->min, a->max, a->median * a->timestep, a->iter_mean, a->gradient, a->ncon_mean,
           a->nefc_mean, a->energy1 - a->energy0);
    if (a->has_ratio) {
      printf("%.3f [%.3f, %.3f] (%.3f..%.3f)\n", a->ratio, a->ratio_lo, a->ratio_hi,
             a->ratio_min, a->ratio_max);
    } else {
      printf("-\n");
    }
  }
  printf("ratio: median over repeats of the paired ratio arm/first-arm (same repeat), 95%% "
         "percentile-bootstrap CI of that median (%d resamples), min..max of the paired "
         "ratios\n", BOOTSTRAP);

  // moduco against the MuJoCo arm with the same settings
  for (int i = 0; i < narm; i++) {
    const Arm* a = &arm[i];
    if (!a->error[0] && a->mujoco_arm >= 0 && !arm[a->mujoco_arm].error[0]) {
      printf("moduco/mujoco  arm %d vs %d  %s %s/%s: %.3f\n", i, a->mujoco_arm,
             baseName(a->file), a->solver, a->integrator,
             a->median / arm[a->mujoco_arm].median);
    }
  }

  // profile
  if (o->profile) {
    printf("\nprofile (microseconds per step; MuJoCo 2.2.2 has no integrator, sensor, postsolver "
           "timer)\n%-3s", "arm");
    for (int k = 0; k < mcNTIMER; k++) {
      if (k != 2) {
        printf(" %*s", k >= 8 ? 14 : 12, cli_timerName[k]);
      }
    }
    printf("\n");
    for (int i = 0; i < narm; i++) {
      if (!arm[i].has_profile) {
        continue;
      }
      printf("%-3d", i);
      for (int k = 0; k < mcNTIMER; k++) {
        if (k != 2) {
          printf(" %*.2f", k >= 8 ? 14 : 12, 1e6 * arm[i].prof[k]);
        }
      }
      printf("\n");
    }

    // per-plugin timers of the moduco arms (slots that were called, or that name a plugin)
    printf("\nplugin timers (microseconds and calls per step; each within its stage timer)\n"
           "%-3s %-5s %-11s %-24s %12s %12s %14s\n", "arm", "slot", "kind", "plugin", "us/step",
           "calls/step", "stage");
    for (int i = 0; i < narm; i++) {
      const Arm* a = &arm[i];
      if (!a->has_profile || a->engine != ENGINE_MODUCO) {
        continue;
      }
      for (int k = 0; k < mcNTIMERPLUGIN; k++) {
        const char* name = mc_timerPluginName(a->m, k);
        if (a->pcalls[k] == 0 && (!name || k >= mcTIMERPLUGIN_COLLISION)) {
          continue;
        }
        const char *kind, *stage;
        cli_pluginSlotKind(a->m, k, &kind, &stage);
        printf("%-3d %-5d %-11s %-24s %12.2f %12.2f %14s\n", i, k, kind, name ? name : "?",
               1e6 * a->pprof[k], a->pcalls[k], stage);
      }
    }
  }

  // thread scaling
  if (o->nthreads) {
    printf("\nthread scaling (batch rollouts of %ld steps; forward = evaluations at recorded "
           "states; forward/cpu-s per second of process CPU time)\n%-3s %8s %14s %9s %14s %9s "
           "%14s %14s\n", o->steps, "arm", "threads", "steps/s", "speedup", "forward/s",
           "speedup", "forward/s/thr", "forward/cpu-s");
    for (int i = 0; i < narm; i++) {
      if (!arm[i].scaling || arm[i].error[0]) {
        continue;
      }
      const Scaling* s0 = &arm[i].scaling[0];
      printf("%-3d forward states: %d recorded, %.1f contacts on average, %.0f%% in contact\n",
             i, arm[i].nsample, arm[i].sample_ncon, 100 * arm[i].sample_incontact);
      for (int k = 0; k < o->nthreads; k++) {
        const Scaling* s = &arm[i].scaling[k];
        printf("%-3d %8d %14.0f %9.2f %14.0f %9.2f %14.0f %14.0f\n", i, s->threads,
               s->steps_per_second,
               s0->steps_per_second > 0 ? s->steps_per_second / s0->steps_per_second : 0,
               s->forward_per_second,
               s0->forward_per_second > 0 ? s->forward_per_second / s0->forward_per_second : 0,
               s->forward_per_second / s->threads, s->forward_per_cpu_second);
      }
    }
  }
}


// one line of /proc/cpuinfo's model name
static void cpuName(char* out, int n) {
  snprintf(out, (size_t)n, "unknown");
  FILE* f = fopen("/proc/cpuinfo", "r");
  if (!f) {
    return;
  }
  char line[512];
  while (fgets(line, sizeof(line), f)) {
    if (!strncmp(line, "model name", 10)) {
      char* c = strchr(line, ':');
      if (c) {
        c += 1 + (c[1] == ' ');
        c[strcspn(c, "\n")] = 0;
        snprintf(out, (size_t)n, "%s", c);
      }
      break;
    }
  }
  fclose(f);
}


// a number, or null when not finite
static cJSON* jnum(double v) {
  return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}


// write the JSON report (docs/bench.md); return 0 or -1
static int writeJson(const Arm* arm, int narm, const Options* o, int argc, char** argv) {
  cJSON* root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "schema", "moduco-bench/1");

  // date and command
  char date[64];
  time_t now = time(NULL);
  strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  cJSON_AddStringToObject(root, "date", date);
  char cmd[4096] = "moduco bench";
  for (int i = 0; i < argc; i++) {
    size_t len = strlen(cmd);
    snprintf(cmd + len, sizeof(cmd) - len, " %s", argv[i]);
  }
  cJSON_AddStringToObject(root, "command", cmd);

  // settings
  cJSON* set = cJSON_AddObjectToObject(root, "settings");
  cJSON_AddNumberToObject(set, "steps", (double)o->steps);
  cJSON_AddNumberToObject(set, "repeat", (double)o->repeat);
  cJSON_AddNumberToObject(set, "warmup_steps", (double)o->warmup);
  cJSON_AddNumberToObject(set, "ctrlnoise", o->ctrlnoise);
  cJSON_AddNumberToObject(set, "seed", (double)o->seed);
  cJSON_AddStringToObject(set, "order", "interleaved: arm 0..n-1 once per repeat");
  cJSON_AddStringToObject(set, "ratio_method", "median of paired per-repeat ratios; 95% "
                          "percentile bootstrap of that median");
  cJSON* thr = cJSON_AddArrayToObject(set, "threads");
  for (int k = 0; k < o->nthreads; k++) {
    cJSON_AddItemToArray(thr, cJSON_CreateNumber(o->threads[k]));
  }

  // machine
  cJSON* mach = cJSON_AddObjectToObject(root, "machine");
  char buf[256];
  cpuName(buf, sizeof(buf));
  cJSON_AddStringToObject(mach, "cpu", buf);
  cJSON_AddNumberToObject(mach, "ncpu", (double)sysconf(_SC_NPROCESSORS_ONLN));
  struct utsname u;
  if (!uname(&u)) {
    cJSON_AddStringToObject(mach, "hostname", u.nodename);
    cJSON_AddStringToObject(mach, "os", u.sysname);
    cJSON_AddStringToObject(mach, "kernel", u.release);
    cJSON_AddStringToObject(mach, "arch", u.machine);
  }
#ifdef __VERSION__
  cJSON_AddStringToObject(mach, "compiler", __VERSION__);
#endif
  cJSON_AddStringToObject(mach, "moduco_version", mc_versionString());
  if (g_mj.lib) {
    snprintf(buf, sizeof(buf), "%d.%d.%d", g_mj.version / 100, g_mj.version / 10 % 10,
             g_mj.version % 10);
    cJSON_AddStringToObject(mach, "mujoco_version", buf);
  } else {
    cJSON_AddNullToObject(mach, "mujoco_version");
  }

  // arms
  cJSON* arms = cJSON_AddArrayToObject(root, "arms");
  for (int i = 0; i < narm; i++) {
    const Arm* a = &arm[i];
    int ok = !a->error[0];
    cJSON* j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "index", i);
    cJSON_AddStringToObject(j, "engine", engineName(a));
    cJSON_AddStringToObject(j, "model", a->file);
    cJSON_AddStringToObject(j, "solver", a->solver[0] ? a->solver : "default");
    cJSON_AddStringToObject(j, "integrator", a->integrator[0] ? a->integrator : "default");
    if (ok) {
      cJSON_AddNullToObject(j, "error");
    } else {
      cJSON_AddStringToObject(j, "error", a->error);
    }
    cJSON_AddNumberToObject(j, "nq", a->nq);
    cJSON_AddNumberToObject(j, "nv", a->nv);
    cJSON_AddNumberToObject(j, "nu", a->nu);
    cJSON_AddItemToObject(j, "timestep", ok ? jnum(a->timestep) : cJSON_CreateNull());

    // speed
    if (ok) {
      cJSON* sps = cJSON_AddObjectToObject(j, "steps_per_second");
      cJSON_AddItemToObject(sps, "median", jnum(a->median));
      cJSON_AddItemToObject(sps, "min", jnum(a->min));
      cJSON_AddItemToObject(sps, "max", jnum(a->max));
      cJSON* samp = cJSON_AddArrayToObject(sps, "samples");
      for (int r = 0; r < o->repeat; r++) {
        cJSON_AddItemToArray(samp, jnum(a->rate[r]));
      }
      cJSON_AddItemToObject(j, "realtime_factor", jnum(a->median * a->timestep));
    } else {
      cJSON_AddNullToObject(j, "steps_per_second");
      cJSON_AddNullToObject(j, "realtime_factor");
    }

    // ratio to the first arm that ran
    if (ok && a->has_ratio) {
      cJSON_AddItemToObject(j, "ratio_to_first", jnum(a->ratio));
      cJSON* ci = cJSON_AddObjectToObject(j, "ratio_ci");
      cJSON_AddItemToObject(ci, "low", jnum(a->ratio_lo));
      cJSON_AddItemToObject(ci, "high", jnum(a->ratio_hi));
      cJSON_AddNumberToObject(ci, "level", 0.95);
      cJSON_AddStringToObject(ci, "method", "bootstrap-median-paired");
      cJSON* rr = cJSON_AddObjectToObject(j, "ratio_range");
      cJSON_AddItemToObject(rr, "min", jnum(a->ratio_min));
      cJSON_AddItemToObject(rr, "max", jnum(a->ratio_max));
    } else {
      cJSON_AddNullToObject(j, "ratio_to_first");
      cJSON_AddNullToObject(j, "ratio_ci");
      cJSON_AddNullToObject(j, "ratio_range");
    }
    if (ok && a->mujoco_arm >= 0 && !arm[a->mujoco_arm].error[0]) {
      cJSON_AddItemToObject(j, "ratio_to_mujoco", jnum(a->median / arm[a->mujoco_arm].median));
    } else {
      cJSON_AddNullToObject(j, "ratio_to_mujoco");
    }

    // solver and physics statistics
    if (ok) {
      cJSON_AddItemToObject(j, "solver_iterations_mean", jnum(a->iter_mean));
      cJSON* res = cJSON_AddObjectToObject(j, "residual");
      cJSON_AddItemToObject(res, "gradient", jnum(a->gradient));
      cJSON_AddItemToObject(res, "improvement", jnum(a->improvement));
      cJSON_AddItemToObject(j, "contacts_per_step", jnum(a->ncon_mean));
      cJSON_AddItemToObject(j, "constraints_per_step", jnum(a->nefc_mean));
      cJSON* en = cJSON_AddObjectToObject(j, "energy");
      cJSON_AddItemToObject(en, "initial", jnum(a->energy0));
      cJSON_AddItemToObject(en, "final", jnum(a->energy1));
      cJSON_AddItemToObject(en, "drift", jnum(a->energy1 - a->energy0));
      double scale = fabs(a->energy0) > 1e-12 ? fabs(a->energy0) : 1.0;
      cJSON_AddItemToObject(en, "relative_drift", jnum((a->energy1 - a->energy0) / scale));
      cJSON_AddNumberToObject(j, "warnings", a->warnings);
    }

    // profile
    if (ok && a->has_profile) {
      cJSON* pr = cJSON_AddObjectToObject(j, "profile_us_per_step");
      for (int k = 0; k < mcNTIMER; k++) {
        if (k == mcTIMER_INVERSE || (a->engine == ENGINE_MUJOCO && k >= mcTIMER_INTEGRATOR)) {
          continue;
        }
        cJSON_AddItemToObject(pr, cli_timerName[k], jnum(1e6 * a->prof[k]));
      }
      if (a->engine == ENGINE_MODUCO) {
        cJSON* pp = cJSON_AddArrayToObject(j, "profile_plugins");
        for (int k = 0; k < mcNTIMERPLUGIN; k++) {
          const char* name = mc_timerPluginName(a->m, k);
          if (a->pcalls[k] == 0 && (!name || k >= mcTIMERPLUGIN_COLLISION)) {
            continue;
          }
          const char *kind, *stage;
          cli_pluginSlotKind(a->m, k, &kind, &stage);
          cJSON* e = cJSON_CreateObject();
          cJSON_AddNumberToObject(e, "slot", k);
          cJSON_AddStringToObject(e, "kind", kind);
          if (name) {
            cJSON_AddStringToObject(e, "plugin", name);
          } else {
            cJSON_AddNullToObject(e, "plugin");
          }
          cJSON_AddStringToObject(e, "stage", stage);
          cJSON_AddItemToObject(e, "us_per_step", jnum(1e6 * a->pprof[k]));
          cJSON_AddItemToObject(e, "calls_per_step", jnum(a->pcalls[k]));
          cJSON_AddItemToArray(pp, e);
        }
      }
    }

    // scaling
    if (ok && a->scaling) {
      cJSON* fs = cJSON_AddObjectToObject(j, "forward_states");
      cJSON_AddNumberToObject(fs, "count", a->nsample);
      cJSON_AddItemToObject(fs, "mean_contacts", jnum(a->sample_ncon));
      cJSON_AddItemToObject(fs, "in_contact", jnum(a->sample_incontact));
      cJSON* sc = cJSON_AddArrayToObject(j, "threads");
      for (int k = 0; k < o->nthreads; k++) {
        const Scaling* s = &a->scaling[k];
        cJSON* e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "threads", s->threads);
        cJSON_AddItemToObject(e, "steps_per_second", jnum(s->steps_per_second));
        cJSON_AddItemToObject(e, "forward_per_second", jnum(s->forward_per_second));
        cJSON_AddItemToObject(e, "forward_per_cpu_second", jnum(s->forward_per_cpu_second));
        cJSON_AddItemToObject(e, "speedup_steps", jnum(s->steps_per_second /
                                                        a->scaling[0].steps_per_second));
        cJSON_AddItemToObject(e, "speedup_forward", jnum(s->forward_per_second /
                                                          a->scaling[0].forward_per_second));
        cJSON_AddItemToArray(sc, e);
      }
    }
    cJSON_AddItemToArray(arms, j);
  }

  // write
  char* text = cJSON_Print(root);
  cJSON_Delete(root);
  FILE* f = !strcmp(o->json, "-") ? stdout : fopen(o->json, "w");
  if (!f || !text) {
    cli_error("cannot write %s", o->json);
    free(text);
    return -1;
  }
  fprintf(f, "%s\n", text);
  if (f != stdout) {
    fclose(f);
  }
  free(text);
  return 0;
}


// escape &, <, > for SVG text
static void svgText(FILE* f, const char* s) {
  for (; *s; s++) {
    if (*s == '&') {
      fputs("&amp;", f);
    } else if (*s == '<') {
      fputs("&lt;", f);
    } else if (*s == '>') {
      fputs("&gt;", f);
    } else {
      fputc(*s, f);
    }
  }
}


// horizontal bar chart of the median steps/s with min..max whiskers
static int writePlot(const Arm* arm, int narm, const char* file) {
  FILE* f = fopen(file, "w");
  if (!f) {
    cli_error("cannot write %s", file);
    return -1;
  }
  double vmax = 0;
  for (int i = 0; i < narm; i++) {
    if (!arm[i].error[0] && arm[i].max > vmax) {
      vmax = arm[i].max;
    }
  }
  vmax = vmax > 0 ? vmax : 1;
  int bar = 22, gap = 8, left = 330, width = 460, top = 40;
  int height = top + narm * (bar + gap) + 40;
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          "font-family=\"sans-serif\" font-size=\"12\">\n", left + width + 120, height);
  fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
  fprintf(f, "<text x=\"10\" y=\"22\" font-size=\"15\">moduco bench: steps/s (median, "
          "whiskers min..max)</text>\n");
  for (int i = 0; i < narm; i++) {
    const Arm* a = &arm[i];
    int y = top + i * (bar + gap);
    char label[512];
    snprintf(label, sizeof(label), "%d %s %s %s/%s", i, engineName(a), baseName(a->file),
             a->solver[0] ? a->solver : "-", a->integrator[0] ? a->integrator : "-");
    fprintf(f, "<text x=\"10\" y=\"%d\">", y + bar - 6);
    svgText(f, label);
    fprintf(f, "</text>\n");
    if (a->error[0]) {
      fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#b00\">failed</text>\n", left, y + bar - 6);
      continue;
    }
    const char* color = a->engine == ENGINE_MODUCO ? "#3a76c4" : "#d08a2c";
    double w = width * a->median / vmax;
    double x0 = left + width * a->min / vmax, x1 = left + width * a->max / vmax;
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", left, y,
            w, bar, color);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>\n", x0,
            y + bar / 2, x1, y + bar / 2);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\">%.0f", left + w + 6 > x1 + 6 ? left + w + 6 : x1 + 6,
            y + bar - 6, a->median);
    if (a->has_ratio) {
      fprintf(f, " (x%.2f)", a->ratio);
    }
    fprintf(f, "</text>\n");
  }
  fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", left, top - 4,
          left, height - 30);
  fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\">blue: Moduco, orange: MuJoCo 2.2.2; (xR): "
          "ratio to arm 0</text>\n</svg>\n", left, height - 12);
  fclose(f);
  return 0;
}


//---------------------------------- the command ---------------------------------------------------

// parse the command line; return CLI_OK or CLI_USAGE
static int parseOptions(int argc, char** argv, Options* o) {
  memset(o, 0, sizeof(*o));
  o->steps = 1000;
  o->repeat = 7;
  o->warmup = -1;
  o->ctrlnoise = 0.1;
  o->seed = 1;
  for (int i = 0; i < argc; i++) {
    const char* a = argv[i];
    int has = i + 1 < argc;
    long v;
    if (!strcmp(a, "--solver") && has) {
      o->nsolver = splitList(argv[++i], o->solver, MAXLIST);
    } else if (!strcmp(a, "--integrator") && has) {
      o->nintegrator = splitList(argv[++i], o->integrator, MAXLIST);
    } else if ((!strcmp(a, "--steps") || !strcmp(a, "--repeat") || !strcmp(a, "--warmup") ||
                !strcmp(a, "--seed")) && has) {
      if (cli_parseCount(argv[++i], &v) || (v == 0 && strcmp(a, "--warmup") &&
                                            strcmp(a, "--seed"))) {
        cli_error("%s needs a positive integer, got '%s'", a, argv[i]);
        return CLI_USAGE;
      }
      if (!strcmp(a, "--steps")) {
        o->steps = v;
      } else if (!strcmp(a, "--repeat")) {
        o->repeat = v;
      } else if (!strcmp(a, "--warmup")) {
        o->warmup = v;
      } else {
        o->seed = (unsigned long long)v;
      }
    } else if (!strcmp(a, "--threads") && has) {
      char* list[MAXLIST];
      int n = splitList(argv[++i], list, MAXLIST);
      for (int k = 0; k < n; k++) {
        if (cli_parseCount(list[k], &v) || v < 1 || v > 256) {
          cli_error("--threads needs counts 1..256, got '%s'", list[k]);
          return CLI_USAGE;
        }
        o->threads[o->nthreads++] = (int)v;
      }
    } else if (!strcmp(a, "--ctrlnoise") && has) {
      if (cli_parseDouble(argv[++i], &o->ctrlnoise) || o->ctrlnoise < 0) {
        cli_error("--ctrlnoise needs a non-negative number, got '%s'", argv[i]);
        return CLI_USAGE;
      }
    } else if (!strcmp(a, "--json") && has) {
      o->json = argv[++i];
    } else if (!strcmp(a, "--plot") && has) {
      o->plot = argv[++i];
    } else if (!strcmp(a, "--reference") && has) {
      if (strcasecmp(argv[++i], "mujoco")) {
        cli_error("--reference knows only 'mujoco', got '%s'", argv[i]);
        return CLI_USAGE;
      }
      o->reference = 1;
    } else if (!strcmp(a, "--profile")) {
      o->profile = 1;
    } else if (a[0] == '-' && a[1]) {
      cli_error("unknown or incomplete option '%s' (%s)", a, kUsage);
      return CLI_USAGE;
    } else if (o->nmodel < MAXLIST) {
      o->model[o->nmodel++] = a;
    } else {
      cli_error("at most %d models", MAXLIST);
      return CLI_USAGE;
    }
  }
  if (!o->nmodel) {
    cli_error("%s", kUsage);
    return CLI_USAGE;
  }
  if (o->warmup < 0) {
    o->warmup = o->steps;
  }
  return CLI_OK;
}


// messages of the library during the run go to stderr, once each
static void onMessage(void* user, const char* message) {
  fprintf(stderr, "%s\n", message);
}


int cmd_bench(int argc, char** argv) {
  Options o;
  int rc = parseOptions(argc, argv, &o);
  if (rc != CLI_OK) {
    return rc;
  }
  mc_setMessageHandler(onMessage, NULL);

  // arms: model x solver x integrator, then the MuJoCo twins
  int nsol = o.nsolver ? o.nsolver : 1, nint = o.nintegrator ? o.nintegrator : 1;
  int nmax = o.nmodel * nsol * nint * (o.reference ? 2 : 1);
  Arm* arm = calloc((size_t)nmax, sizeof(Arm));
  Group* group = calloc((size_t)o.nmodel, sizeof(Group));
  int narm = 0;
  for (int g = 0; g < o.nmodel; g++) {
    int first = narm;
    for (int s = 0; s < nsol; s++) {
      for (int k = 0; k < nint; k++) {
        Arm* a = &arm[narm++];
        a->engine = ENGINE_MODUCO;
        a->group = g;
        a->file = o.model[g];
        a->mujoco_arm = -1;
        snprintf(a->solver, sizeof(a->solver), "%s", o.nsolver ? o.solver[s] : "");
        snprintf(a->integrator, sizeof(a->integrator), "%s",
                 o.nintegrator ? o.integrator[k] : "");
        setupModuco(a);
      }
    }

    // MuJoCo twins of this model's moduco arms (one per distinct solver/integrator pair)
    int last = narm;
    for (int i = first; o.reference && i < last; i++) {
      Arm* src = &arm[i];
      if (src->error[0] && !src->m) {
        continue;                     // the model does not load: no twin
      }
      if (src->error[0] || mujocoSolver(src->solver) < 0 ||
          mujocoIntegrator(src->integrator) < 0) {
        continue;                     // no MuJoCo equivalent of this pair
      }
      int dup = -1;
      for (int j = last; j < narm; j++) {
        if (!strcasecmp(arm[j].solver, src->solver) &&
            !strcasecmp(arm[j].integrator, src->integrator)) {
          dup = j;
        }
      }
      if (dup >= 0) {
        src->mujoco_arm = dup;
        continue;
      }
      Arm* a = &arm[narm++];
      a->engine = ENGINE_MUJOCO;
      a->group = g;
      a->file = o.model[g];
      a->mujoco_arm = -1;
      memcpy(a->solver, src->solver, sizeof(a->solver));
      memcpy(a->integrator, src->integrator, sizeof(a->integrator));
      setupMuJoCo(a);
      src->mujoco_arm = (int)(a - arm);
    }

    // the model's shared control sequence, from the first arm that loaded
    for (int i = first; i < narm; i++) {
      if (arm[i].m) {
        group[g].nu = arm[i].m->nu;
        group[g].ctrl = makeControls(arm[i].m, o.steps + o.warmup, o.ctrlnoise, o.seed + g);
        break;
      }
    }
    for (int i = first; i < narm; i++) {
      if (!arm[i].error[0] && (!group[g].ctrl || arm[i].nu != group[g].nu)) {
        snprintf(arm[i].error, sizeof(arm[i].error), "%s", group[g].ctrl ?
                 "actuator count differs from the moduco model" : "no control sequence");
      }
    }
  }

  // report failures now, then run the rest
  int nfail = 0;
  for (int i = 0; i < narm; i++) {
    if (arm[i].error[0]) {
      cli_error("arm %d (%s %s %s/%s) skipped: %s", i, engineName(&arm[i]), arm[i].file,
                arm[i].solver[0] ? arm[i].solver : "-",
                arm[i].integrator[0] ? arm[i].integrator : "-", arm[i].error);
      nfail++;
    }
  }

  // warm-up and statistics (untimed), samples for the scaling runs
  for (int i = 0; i < narm; i++) {
    Arm* a = &arm[i];
    a->rate = calloc((size_t)o.repeat, sizeof(double));
    if (a->error[0]) {
      continue;
    }
    if (o.nthreads) {
      a->scaling = calloc((size_t)o.nthreads, sizeof(Scaling));
      if (a->engine == ENGINE_MODUCO) {
        a->samples = calloc((size_t)NSAMPLE * (size_t)mc_stateSize(a->m, mcSTATE_INTEGRATION),
                            sizeof(mcNum));
      }
#if BENCH_HAVE_MUJOCO
      else {
        int w = a->mjm->nq + a->mjm->nv + a->mjm->na + a->mjm->nu;
        a->mjsamples = calloc((size_t)NSAMPLE * (size_t)(w ? w : 1), sizeof(double));
      }
#endif
    }
    armRun(a, &group[a->group], o.warmup);
    armStatistics(a, &group[a->group], o.steps);
  }

  // timed repeats, interleaved: every arm once per repeat, same order
  fprintf(stderr, "moduco bench: %d arms, %ld steps x %ld repeats\n", narm, o.steps, o.repeat);
  for (long r = 0; r < o.repeat; r++) {
    for (int i = 0; i < narm; i++) {
      if (!arm[i].error[0]) {
        double dt = armRun(&arm[i], &group[arm[i].group], o.steps);
        arm[i].rate[r] = dt > 0 ? (double)o.steps / dt : 0;
      }
    }
  }

  // summaries and ratios to the first arm that ran
  int firstok = -1;
  for (int i = 0; i < narm; i++) {
    Arm* a = &arm[i];
    if (a->error[0]) {
      continue;
    }
    a->median = median(a->rate, (int)o.repeat);
    a->min = a->max = a->rate[0];
    for (long r = 1; r < o.repeat; r++) {
      a->min = a->rate[r] < a->min ? a->rate[r] : a->min;
      a->max = a->rate[r] > a->max ? a->rate[r] : a->max;
    }
    if (firstok < 0) {
      firstok = i;
    }
    pairedRatio(a, arm[firstok].rate, (int)o.repeat, o.seed + (unsigned long long)i);
  }

  // profile and scaling (after the timed repeats, never mixed with them)
  for (int i = 0; i < narm; i++) {
    if (arm[i].error[0]) {
      continue;
    }
    if (o.profile) {
      armProfile(&arm[i], &group[arm[i].group], o.steps);
    }
    if (o.nthreads) {
      armScaling(&arm[i], &group[arm[i].group], &o, arm[i].median);
    }
  }

  // output
  printTable(arm, narm, &o);
  if (o.json && writeJson(arm, narm, &o, argc, argv)) {
    rc = CLI_FAIL;
  }
  if (o.plot && writePlot(arm, narm, o.plot)) {
    rc = CLI_FAIL;
  }
  if (nfail) {
    rc = CLI_FAIL;
  }

  // free
  for (int i = 0; i < narm; i++) {
    Arm* a = &arm[i];
    mc_deleteData(a->d);
    mc_deleteModel(a->m);
#if BENCH_HAVE_MUJOCO
    if (a->mjd) {
      g_mj.deleteData(a->mjd);
    }
    if (a->mjm) {
      g_mj.deleteModel(a->mjm);
    }
    free(a->mjsamples);
#endif
    free(a->rate);
    free(a->scaling);
    free(a->samples);
  }
  for (int g = 0; g < o.nmodel; g++) {
    free(group[g].ctrl);
  }
  free(group);
  free(arm);
  mc_setMessageHandler(NULL, NULL);
  return rc;
}
