// Moduco bench: one arm, whichever its engine: reset, controls, step, timed run, energy, state.
#include "bench.h"


// reset the arm to its initial state (clears warnings and timers)
void bench_armReset(BenchArm* a) {
  if (a->r.engine == mcbENGINE_MODUCO) {
    mc_resetData(a->m, a->d);
  }
#if BENCH_HAVE_MUJOCO
  else {
    bench_mj.resetData(a->mjm, a->mjd);
  }
#endif
}


// write the controls of step t into ctrl
void bench_armSetCtrl(BenchArm* a, const BenchGroup* g, long t) {
  int nu = g->nu;
  double* ctrl = NULL;
  if (a->r.engine == mcbENGINE_MODUCO) {
    ctrl = a->d->ctrl;
  }
#if BENCH_HAVE_MUJOCO
  else {
    ctrl = a->mjd->ctrl;
  }
#endif
  for (int i = 0; i < nu; i++) {
    ctrl[i] = g->ctrl[t * nu + i];
  }
}


void bench_armStep(BenchArm* a) {
  if (a->r.engine == mcbENGINE_MODUCO) {
    mc_step(a->m, a->d);
  }
#if BENCH_HAVE_MUJOCO
  else {
    bench_mj.step(a->mjm, a->mjd);
  }
#endif
}


// run steps from the initial state with the group's controls; return the wall time
double bench_armRun(BenchArm* a, const BenchGroup* g, long steps) {
  bench_armReset(a);
  double t0 = bench_now();
  for (long t = 0; t < steps; t++) {
    bench_armSetCtrl(a, g, t);
    bench_armStep(a);
  }
  return bench_now() - t0;
}


// total energy of the arm at its current state (forward first)
double bench_armEnergy(BenchArm* a) {
  if (a->r.engine == mcbENGINE_MODUCO) {
    return (double)mc_totalEnergy(a->m, a->d);
  }
#if BENCH_HAVE_MUJOCO
  // energy on for this one forward call only
  int flags = a->mjm->opt.enableflags;
  a->mjm->opt.enableflags |= mjENBL_ENERGY;
  bench_mj.forward(a->mjm, a->mjd);
  a->mjm->opt.enableflags = flags;
  return a->mjd->energy[0] + a->mjd->energy[1];
#else
  return 0;
#endif
}


const double* bench_armQpos(const BenchArm* a) {
#if BENCH_HAVE_MUJOCO
  if (a->r.engine == mcbENGINE_MUJOCO) {
    return a->mjd->qpos;
  }
#endif
  return a->d->qpos;
}


const double* bench_armQvel(const BenchArm* a) {
#if BENCH_HAVE_MUJOCO
  if (a->r.engine == mcbENGINE_MUJOCO) {
    return a->mjd->qvel;
  }
#endif
  return a->d->qvel;
}
