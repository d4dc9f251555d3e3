// Moduco bench: the run loop. Per arm a warm-up and an untimed statistics pass (the trajectory
// that is timed, since both engines are deterministic) with the warnings, accuracy and state
// samples; then the timed repeats, interleaved (repeat r runs arm 0, 1, ..., n-1), so drift of
// clock speed or load hits every arm alike; then the ratios to each model's baseline arm; then
// the profile and thread-scaling runs, never mixed with the timed ones.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

typedef struct {                  // sums over the steps of the statistics pass
  double iter, grad, impr, ncon, nefc;
  int nstat;                      // steps that ran the solver
  double sncon, scont;            // contacts at the recorded states
} StepSums;


// FNV-1a of n doubles' bytes
static unsigned long long hashDoubles(unsigned long long h, const double* v, int n) {
  const unsigned char* b = (const unsigned char*)v;
  for (size_t i = 0; i < sizeof(double) * (size_t)n; i++) {
    h = (h ^ b[i]) * FNV_PRIME;
  }
  return h;
}


// record the state before the step for the forward evaluations of the scaling runs
static void recordSample(BenchArm* a) {
  if (a->r.engine == mcbENGINE_MODUCO) {
    int ns = mc_stateSize(a->m, mcSTATE_INTEGRATION);
    mc_getState(a->m, a->d, a->samples + (size_t)a->r.nsample++ * (size_t)ns,
                mcSTATE_INTEGRATION);
    return;
  }
#if BENCH_HAVE_MUJOCO
  const mjModel* m = a->mjm;
  const mjData* d = a->mjd;
  int w = m->nq + m->nv + m->na + m->nu;
  double* s = a->mjsamples + (size_t)a->r.nsample++ * (size_t)w;
  memcpy(s, d->qpos, sizeof(double) * (size_t)m->nq);
  memcpy(s + m->nq, d->qvel, sizeof(double) * (size_t)m->nv);
  memcpy(s + m->nq + m->nv, d->act, sizeof(double) * (size_t)m->na);
  memcpy(s + m->nq + m->nv + m->na, d->ctrl, sizeof(double) * (size_t)m->nu);
#endif
}


// add the solver statistics and sizes of the step just taken
static void addStep(const BenchArm* a, StepSums* s, int sampled) {
  int iter = 0, ncon = 0, nefc = 0;
  double grad = 0, impr = 0;
  if (a->r.engine == mcbENGINE_MODUCO) {
    const mcData* d = a->d;
    iter = d->solver_iter, ncon = d->ncon, nefc = d->nefc;
    if (iter > 0) {
      int k = (iter < mcNSOLVER ? iter : mcNSOLVER) - 1;
      grad = d->solver[k].gradient, impr = d->solver[k].improvement;
    }
  }
#if BENCH_HAVE_MUJOCO
  else {
    const mjData* d = a->mjd;
    iter = d->solver_iter, ncon = d->ncon, nefc = d->nefc;
    if (iter > 0) {
      int k = (iter < mjNSOLVER ? iter : mjNSOLVER) - 1;
      grad = d->solver[k].gradient, impr = d->solver[k].improvement;
    }
  }
#endif
  s->iter += iter;
  s->ncon += ncon;
  s->nefc += nefc;
  if (iter > 0) {
    s->grad += grad;
    s->impr += impr;
    s->nstat++;
  }
  if (sampled) {
    s->sncon += ncon;             // the step's forward ran at the recorded state
    s->scont += ncon > 0;
  }
}


// the untimed statistics pass of arm i
static void armStatistics(mcbBench* b, int i) {
  BenchArm* a = &b->arm[i];
  BenchGroup* g = &b->group[a->r.model];
  long steps = b->c.steps;
  int is_base = g->baseline == i;
  bench_armReset(a);
  a->r.energy0 = bench_armEnergy(a);
  bench_armReset(a);

  long every = steps / BENCH_NSAMPLE > 0 ? steps / BENCH_NSAMPLE : 1;
  int nacc = b->c.accuracy;
  long acc_every = nacc > 0 && steps / nacc > 0 ? steps / nacc : 1;
  StepSums s = {0};
  double dev = 0;
  int ndev = 0;
  unsigned long long h = FNV_OFFSET;
  a->r.nsample = 0;
  a->r.acc_samples = 0;
  a->r.res_samples = 0;
  for (long t = 0; t < steps; t++) {
    bench_armSetCtrl(a, g, t);
    int sampled = 0;
    if (t % every == 0 && t / every < BENCH_NSAMPLE) {
      bench_qposRecord(a, g, is_base, (int)(t / every), &dev, &ndev);
      if (a->scaling) {
        recordSample(a);
        sampled = 1;
      }
    }
    if (nacc > 0 && a->ref.err && t % acc_every == 0) {
      bench_accuracySample(a, &b->arm[a->twin], nacc);
    }
    bench_armStep(a);
    addStep(a, &s, sampled);
    h = hashDoubles(h, bench_armQpos(a), a->r.nq);
    h = hashDoubles(h, bench_armQvel(a), a->r.nv);
  }

  // means over steps; energy, warnings and divergence at the end
  mcbResult* r = &a->r;
  double n = steps > 0 ? (double)steps : 1;
  r->sample_ncon = r->nsample ? s.sncon / r->nsample : 0;
  r->sample_incontact = r->nsample ? s.scont / r->nsample : 0;
  r->iter_mean = s.iter / n;
  r->gradient = s.nstat ? s.grad / s.nstat : 0;
  r->improvement = s.nstat ? s.impr / s.nstat : 0;
  r->ncon_mean = s.ncon / n;
  r->nefc_mean = s.nefc / n;
  r->trajectory_hash = h;
  bench_countWarnings(a);         // before the energy's forward call adds to them
  r->energy1 = bench_armEnergy(a);
  r->nonfinite |= !isfinite(r->energy1);
  r->diverged |= r->nonfinite;
  r->has_qpos_dev = is_base || ndev > 0;
  r->qpos_dev = is_base ? 0 : (ndev > 0 ? sqrt(dev / ndev) : NAN);
  if (a->ref.err) {
    bench_accuracySummary(a, nacc);
  }
}


// profile pass: timers per step (MuJoCo through mjcb_time; it has no integrator timer)
#if BENCH_HAVE_MUJOCO
static mjtNum mujocoClock(void) {
  return (mjtNum)(bench_now() * 1e6);
}
#endif


static void armProfile(BenchArm* a, const BenchGroup* g, long steps) {
  mcbResult* r = &a->r;
  double n = steps > 0 ? (double)steps : 1;
  if (a->r.engine == mcbENGINE_MODUCO) {
    a->d->profile = 1;
    bench_armRun(a, g, steps);                // mc_resetData clears the timers first
    for (int i = 0; i < mcNTIMER; i++) {
      r->prof[i] = a->d->timer[i].duration / n;
    }
    for (int i = 0; i < mcNTIMERPLUGIN; i++) {
      r->pprof[i] = a->d->timer_plugin[i].duration / n;
      r->pcalls[i] = a->d->timer_plugin[i].number / n;
    }
    a->d->profile = 0;
    r->has_profile = 1;
  }
#if BENCH_HAVE_MUJOCO
  else if (bench_mj.cbtime) {
    *bench_mj.cbtime = mujocoClock;
    bench_armRun(a, g, steps);                // mj_resetData clears the timers first
    *bench_mj.cbtime = NULL;
    for (int i = 0; i < mjNTIMER && i < mcNTIMER; i++) {
      r->prof[i] = 1e-6 * a->mjd->timer[i].duration / n;
    }
    r->has_profile = 1;
  }
#endif
}


// buffers of the optional passes; a failed reference only turns the accuracy measure off
static void armPrepare(mcbBench* b, BenchArm* a) {
  if (b->c.nthreads) {
    a->scaling = calloc((size_t)b->c.nthreads, sizeof(mcbScaling));
    a->r.scaling = a->scaling;
    if (a->r.engine == mcbENGINE_MODUCO) {
      a->samples = calloc((size_t)BENCH_NSAMPLE * (size_t)mc_stateSize(a->m, mcSTATE_INTEGRATION),
                          sizeof(mcNum));
    }
#if BENCH_HAVE_MUJOCO
    else {
      int w = a->mjm->nq + a->mjm->nv + a->mjm->na + a->mjm->nu;
      a->mjsamples = calloc((size_t)BENCH_NSAMPLE * (size_t)(w ? w : 1), sizeof(double));
    }
#endif
  }
  if (b->c.accuracy > 0 && bench_referenceCreate(a, b->c.accuracy)) {
    bench_referenceFree(&a->ref);
  }
}


int mcb_run(mcbBench* b) {
  const mcbConfig* c = &b->c;
  int repeat = (int)c->repeat;
  if (b->ran) {
    return -1;                    // once per bench: the buffers of the passes are made here
  }

  // warm-up and statistics (untimed); baselines first within each model (arm order)
  for (int i = 0; i < b->narm; i++) {
    BenchArm* a = &b->arm[i];
    if (a->error[0]) {
      continue;
    }
    armPrepare(b, a);
    bench_armRun(a, &b->group[a->r.model], c->warmup);
    armStatistics(b, i);
  }

  // timed repeats, interleaved: every arm once per repeat, same order
  for (int r = 0; r < repeat; r++) {
    for (int i = 0; i < b->narm; i++) {
      BenchArm* a = &b->arm[i];
      if (!a->error[0]) {
        double dt = bench_armRun(a, &b->group[a->r.model], c->steps);
        a->rate[r] = dt > 0 ? (double)c->steps / dt : 0;
      }
    }
  }

  // summaries and paired ratios to the model's baseline arm
  for (int i = 0; i < b->narm; i++) {
    BenchArm* a = &b->arm[i];
    if (a->error[0]) {
      continue;
    }
    a->r.median = bench_median(a->rate, repeat);
    a->r.min = a->r.max = a->rate[0];
    for (int r = 1; r < repeat; r++) {
      a->r.min = fmin(a->r.min, a->rate[r]);
      a->r.max = fmax(a->r.max, a->rate[r]);
    }
    int base = b->group[a->r.model].baseline;
    a->r.baseline = base;
    bench_pairedRatio(&a->r, a->rate, b->arm[base].rate, repeat, c->seed + (unsigned)i);
  }

  // profile and scaling
  for (int i = 0; i < b->narm; i++) {
    BenchArm* a = &b->arm[i];
    if (a->error[0]) {
      continue;
    }
    if (c->profile) {
      armProfile(a, &b->group[a->r.model], c->steps);
    }
    if (c->nthreads) {
      bench_armScaling(a, &b->group[a->r.model], c);
    }
  }
  b->ran = 1;
  return 0;
}
