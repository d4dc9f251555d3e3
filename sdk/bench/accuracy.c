// Moduco bench: the accuracy measures, computed the same way for every arm.
//
// Solver accuracy: at sampled states of the arm's own trajectory, the arm's qacc (its model and
// solver, from a copy of its data) is compared with a reference solve of the same state: a copy of
// the arm's model whose solver is Newton with tolerance 1e-12 and 1000 iterations. The error is
// the M-norm of the difference relative to the larger of the constraint acceleration
// |qacc_ref - qacc_smooth|_M and |qacc_ref|_M; states without constraint rows are skipped (every
// solver returns qacc_smooth there). MuJoCo arms use the reference of their Moduco twin.
//
// Solver residual (Moduco arms): mc_solverResidual of the arm's own solve at the same states, the
// core's optimality measure of any solver's output (dynamics, feasibility, optimality parts).
//
// Trajectory deviation: RMS over sampled steps and coordinates of qpos minus the qpos of the
// model's baseline arm at the same step (0 for the baseline itself).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define REF_TOLERANCE 1e-12
#define REF_ITERATIONS 1000
#define REF_LS_ITERATIONS 100


// make the reference of a Moduco arm, or only the error buffer of a MuJoCo arm; return 0 or -1
int bench_referenceCreate(BenchArm* a, int samples) {
  BenchReference* ref = &a->ref;
  ref->err = calloc((size_t)(samples ? samples : 1), sizeof(double));
  ref->res = calloc(4 * (size_t)(samples ? samples : 1), sizeof(double));
  if (!ref->err || !ref->res) {
    return -1;
  }
  if (a->r.engine != mcbENGINE_MODUCO) {
    return 0;
  }
  ref->m = mc_copyModel(NULL, a->m);
  if (!ref->m || mc_setSolver(ref->m, "Newton", NULL, 0)) {
    return -1;
  }
  ref->m->opt.tolerance = REF_TOLERANCE;
  ref->m->opt.iterations = REF_ITERATIONS;
  ref->m->opt.ls_iterations = REF_LS_ITERATIONS;
  ref->d = mc_makeData(ref->m);
  ref->scratch = mc_makeData(a->m);
  int nstate = mc_stateSize(a->m, mcSTATE_INTEGRATION);
  ref->spec = mcSTATE_INTEGRATION;
  if (mc_stateSize(ref->m, mcSTATE_INTEGRATION) != nstate) {
    ref->spec &= ~(unsigned int)mcSTATE_PLUGIN;       // solver plugins with state of their own
  }
  int nv = a->m->nv ? a->m->nv : 1;
  ref->state = malloc(sizeof(mcNum) * (size_t)(nstate ? nstate : 1));
  ref->dq = malloc(sizeof(mcNum) * (size_t)nv);
  ref->mdq = malloc(sizeof(mcNum) * (size_t)nv);
  return ref->d && ref->scratch && ref->state && ref->dq && ref->mdq ? 0 : -1;
}


void bench_referenceFree(BenchReference* ref) {
  mc_deleteData(ref->d);
  mc_deleteData(ref->scratch);
  mc_deleteModel(ref->m);
  free(ref->state);
  free(ref->dq);
  free(ref->mdq);
  free(ref->err);
  free(ref->res);
  memset(ref, 0, sizeof(*ref));
}


// sqrt(v' M v) with the reference's mass matrix
static double mNorm(BenchReference* ref, const mcNum* v) {
  mc_mulM(ref->m, ref->d, ref->mdq, v);
  double s = 0;
  for (int i = 0; i < ref->m->nv; i++) {
    s += v[i] * ref->mdq[i];
  }
  return sqrt(fmax(s, 0));
}


// the arm's qacc at its current state (controls of the coming step set), solved on a copy; the
// reference data set to the same state
static const double* armSolve(BenchArm* a, BenchReference* ref) {
  if (a->r.engine == mcbENGINE_MODUCO) {
    mc_copyData(ref->scratch, a->m, a->d);
    mc_forward(a->m, ref->scratch);
    mc_getState(a->m, a->d, ref->state, ref->spec);
    mc_setState(ref->m, ref->d, ref->state, ref->spec);
    return ref->scratch->qacc;
  }
#if BENCH_HAVE_MUJOCO
  const mjModel* m = a->mjm;
  bench_mj.copyData(a->mjscratch, m, a->mjd);
  bench_mj.forward(m, a->mjscratch);
  mcData* d = ref->d;
  mc_resetData(ref->m, d);
  d->time = a->mjd->time;
  memcpy(d->qpos, a->mjd->qpos, sizeof(double) * (size_t)m->nq);
  memcpy(d->qvel, a->mjd->qvel, sizeof(double) * (size_t)m->nv);
  memcpy(d->act, a->mjd->act, sizeof(double) * (size_t)m->na);
  memcpy(d->ctrl, a->mjd->ctrl, sizeof(double) * (size_t)m->nu);
  memcpy(d->qacc_warmstart, a->mjd->qacc_warmstart, sizeof(double) * (size_t)m->nv);
  return a->mjscratch->qacc;
#else
  return NULL;
#endif
}


// measure the arm at its current state (one more sample, at most cap); twin: the arm whose
// reference it uses (itself for Moduco arms)
void bench_accuracySample(BenchArm* a, BenchArm* twin, int cap) {
  BenchReference* ref = &twin->ref;
  if (!ref->m || a->r.nv != ref->m->nv || a->r.acc_samples >= cap) {
    return;
  }
  const double* qacc = armSolve(a, ref);
  mc_forward(ref->m, ref->d);
  if (!qacc || ref->d->nefc == 0) {
    return;
  }
  int nv = ref->m->nv;
  for (int i = 0; i < nv; i++) {
    ref->dq[i] = qacc[i] - ref->d->qacc[i];
  }
  double num = mNorm(ref, ref->dq);
  double full = mNorm(ref, ref->d->qacc);
  for (int i = 0; i < nv; i++) {
    ref->dq[i] = ref->d->qacc[i] - ref->d->qacc_smooth[i];
  }
  double den = fmax(mNorm(ref, ref->dq), full);
  double e = den > 0 ? num / den : (num > 0 ? INFINITY : 0);
  int k = a->r.acc_samples++;
  a->ref.err[k] = isnan(e) ? INFINITY : e;

  // the core's residual of the arm's own solve (Moduco arms; the scratch data holds it)
  mcNum parts[3] = {0, 0, 0};
  if (a->r.engine == mcbENGINE_MODUCO && mc_solverResidual(a->m, ref->scratch, parts) >= 0) {
    int n = a->r.res_samples++;
    double* res = a->ref.res;
    res[n] = parts[0] + parts[1] + parts[2];
    for (int i = 0; i < 3; i++) {
      res[(size_t)(i + 1) * (size_t)cap + (size_t)n] = parts[i];
    }
  }
}


// max of n values (0 if none)
static double maxOf(const double* v, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) {
    m = fmax(m, v[i]);
  }
  return m;
}


// median and max of the errors and residuals of the samples measured; cap: samples allowed
void bench_accuracySummary(BenchArm* a, int cap) {
  mcbResult* r = &a->r;
  r->acc_median = bench_median(a->ref.err, r->acc_samples);
  r->acc_max = maxOf(a->ref.err, r->acc_samples);
  r->res_median = bench_median(a->ref.res, r->res_samples);
  r->res_max = maxOf(a->ref.res, r->res_samples);
  for (int i = 0; i < 3; i++) {
    r->res_part[i] = bench_median(a->ref.res + (size_t)(i + 1) * (size_t)cap, r->res_samples);
  }
}


// sampled step k: the baseline records its qpos, every other arm adds its squared differences
// to *sum (its count to *n)
void bench_qposRecord(BenchArm* a, BenchGroup* g, int is_baseline, int k, double* sum, int* n) {
  const double* q = bench_armQpos(a);
  int nq = a->r.nq;
  if (!g->base_qpos || k >= BENCH_NSAMPLE) {
    return;
  }
  double* base = g->base_qpos + (size_t)k * (size_t)nq;
  if (is_baseline) {
    memcpy(base, q, sizeof(double) * (size_t)nq);
    g->nbase = k + 1;
    return;
  }
  if (k >= g->nbase) {
    return;
  }
  for (int i = 0; i < nq; i++) {
    *sum += (q[i] - base[i]) * (q[i] - base[i]);
  }
  *n += nq;
}
