// Moduco bench: thread scaling of one arm: batch rollouts and forward evaluations at the states
// recorded in the statistics pass, on the mc_rollout pool (Moduco) or one mjData per thread
// (MuJoCo). Median of the repeats (at least 3); pools and data are made before the clock starts.
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#if BENCH_HAVE_MUJOCO
typedef struct {                  // MuJoCo threads: one mjData each, items from a counter
  const BenchArm* arm;
  const BenchGroup* group;
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
      const double* s = w->arm->mjsamples + (size_t)(i % w->arm->r.nsample) * (size_t)width;
      memcpy(w->d->qpos, s, sizeof(double) * (size_t)m->nq);
      memcpy(w->d->qvel, s + m->nq, sizeof(double) * (size_t)m->nv);
      memcpy(w->d->act, s + m->nq + m->nv, sizeof(double) * (size_t)m->na);
      memcpy(w->d->ctrl, s + m->nq + m->nv + m->na, sizeof(double) * (size_t)m->nu);
      bench_mj.forward(m, w->d);
    } else {
      bench_mj.resetData(m, w->d);
      for (long t = 0; t < w->steps; t++) {
        memcpy(w->d->ctrl, w->group->ctrl + t * m->nu, sizeof(double) * (size_t)m->nu);
        bench_mj.step(m, w->d);
      }
    }
  }
}


// time nitem MuJoCo items on nthread threads (data made before the clocks start); return the
// wall time, and the process CPU time in *cpu (nullable)
static double mujocoBatch(const BenchArm* a, const BenchGroup* g, int nthread, int forward,
                          int nitem, long steps, double* cpu) {
  MjWorker* w = calloc((size_t)nthread, sizeof(MjWorker));
  pthread_t* th = calloc((size_t)nthread, sizeof(pthread_t));
  atomic_int next;
  atomic_init(&next, 0);
  if (!w || !th) {
    free(w), free(th);
    return 0;
  }
  for (int i = 0; i < nthread; i++) {
    w[i] = (MjWorker){a, g, bench_mj.makeData(a->mjm), forward, nitem, steps, &next};
  }
  double t0 = bench_now(), c0 = bench_cpuNow();
  for (int i = 1; i < nthread; i++) {
    pthread_create(&th[i], NULL, mjWorkerMain, &w[i]);
  }
  mjWorkerMain(&w[0]);
  for (int i = 1; i < nthread; i++) {
    pthread_join(th[i], NULL);
  }
  double dt = bench_now() - t0;
  if (cpu) {
    *cpu = bench_cpuNow() - c0;
  }
  for (int i = 0; i < nthread; i++) {
    bench_mj.deleteData(w[i].d);
  }
  free(w), free(th);
  return dt;
}
#endif


typedef struct {                  // the work of one scaling measurement
  int nroll;                      // rollouts: 2 per thread of the largest count
  int nfwd;                       // forward items: about 50 ms on one thread
  int reps;
  double* t;                      // wall time of each repeat
  double* c;                      // CPU time of each repeat
} Work;


// Moduco: one pool per thread count, made before timing
static void modBatch(BenchArm* a, const BenchGroup* g, long steps, int nthr, const Work* w,
                     mcbScaling* s) {
  int ns = mc_stateSize(a->m, mcSTATE_INTEGRATION);
  int nroll = w->nroll, nfwd = w->nfwd;
  mcRolloutPool* p = mc_rolloutCreate(a->m, nthr, nfwd > nroll ? nfwd : nroll);
  mcNum* st0 = malloc(sizeof(mcNum) * (size_t)ns * (size_t)nroll);
  mcNum* ctrl = malloc(sizeof(mcNum) * (size_t)(nroll * steps * (g->nu ? g->nu : 1)));
  mcNum* fst = malloc(sizeof(mcNum) * (size_t)ns * (size_t)nfwd);
  mcNum* qacc = malloc(sizeof(mcNum) * (size_t)(nfwd * (a->r.nv ? a->r.nv : 1)));
  if (p && st0 && ctrl && fst && qacc && a->r.nsample > 0) {
    mc_resetData(a->m, a->d);
    for (int r = 0; r < nroll; r++) {
      mc_getState(a->m, a->d, st0 + (size_t)r * (size_t)ns, mcSTATE_INTEGRATION);
      memcpy(ctrl + r * steps * g->nu, g->ctrl, sizeof(mcNum) * (size_t)(steps * g->nu));
    }
    for (int i = 0; i < nfwd; i++) {
      memcpy(fst + (size_t)i * (size_t)ns, a->samples + (size_t)(i % a->r.nsample) * (size_t)ns,
             sizeof(mcNum) * (size_t)ns);
    }

    // warm-up, then repeats
    mc_forwardBatch(p, nfwd, mcSTATE_INTEGRATION, fst, qacc, NULL);
    for (int r = 0; r < w->reps; r++) {
      double t0 = bench_now();
      mc_rollout(p, nroll, (int)steps, mcSTATE_INTEGRATION, st0, ctrl, NULL, NULL);
      w->t[r] = bench_now() - t0;
    }
    s->steps_per_second = (double)(nroll * steps) / bench_median(w->t, w->reps);
    for (int r = 0; r < w->reps; r++) {
      double t0 = bench_now(), c0 = bench_cpuNow();
      mc_forwardBatch(p, nfwd, mcSTATE_INTEGRATION, fst, qacc, NULL);
      w->t[r] = bench_now() - t0;
      w->c[r] = bench_cpuNow() - c0;
    }
    s->forward_per_second = (double)nfwd / bench_median(w->t, w->reps);
    s->forward_per_cpu_second = (double)nfwd / bench_median(w->c, w->reps);
  }
  free(st0), free(ctrl), free(fst), free(qacc);
  mc_rolloutDelete(p);
}


// rollout and forward throughput of one arm at each thread count
void bench_armScaling(BenchArm* a, const BenchGroup* g, const mcbConfig* c) {
  int maxthr = 1;
  for (int k = 0; k < c->nthreads; k++) {
    maxthr = c->threads[k] > maxthr ? c->threads[k] : maxthr;
  }
  Work w = {2 * maxthr, (int)(a->r.median * 0.05), c->repeat < 3 ? 3 : (int)c->repeat, 0, 0};
  w.nfwd = w.nfwd < 64 ? 64 : (w.nfwd > 200000 ? 200000 : w.nfwd);
  w.nfwd = (w.nfwd + maxthr - 1) / maxthr * maxthr;
  w.t = malloc(sizeof(double) * (size_t)w.reps);
  w.c = malloc(sizeof(double) * (size_t)w.reps);
  for (int k = 0; k < c->nthreads && w.t && w.c; k++) {
    int nthr = c->threads[k];
    mcbScaling* s = &a->scaling[k];
    s->threads = nthr;
    if (a->r.engine == mcbENGINE_MODUCO) {
      modBatch(a, g, c->steps, nthr, &w, s);
    }
#if BENCH_HAVE_MUJOCO
    else if (a->r.nsample > 0 && nthr <= BENCH_MAXTHREAD) {
      mujocoBatch(a, g, nthr, 1, w.nfwd, 0, NULL);
      for (int r = 0; r < w.reps; r++) {
        w.t[r] = mujocoBatch(a, g, nthr, 0, w.nroll, c->steps, NULL);
      }
      s->steps_per_second = (double)(w.nroll * c->steps) / bench_median(w.t, w.reps);
      for (int r = 0; r < w.reps; r++) {
        w.t[r] = mujocoBatch(a, g, nthr, 1, w.nfwd, 0, &w.c[r]);
      }
      s->forward_per_second = (double)w.nfwd / bench_median(w.t, w.reps);
      s->forward_per_cpu_second = (double)w.nfwd / bench_median(w.c, w.reps);
    }
#endif
  }
  free(w.t);
  free(w.c);
}
