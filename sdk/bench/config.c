// Moduco bench: the arms of a configuration (every model x solver x integrator, then the MuJoCo
// twins of each model), each model's control sequence and baseline arm; accessors; status.
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench.h"


void mcb_defaultConfig(mcbConfig* c) {
  memset(c, 0, sizeof(*c));
  c->steps = 1000;
  c->repeat = 7;
  c->warmup = -1;
  c->ctrlnoise = 0.1;
  c->seed = 1;
  c->accuracy = 16;
}


// load a Moduco arm and apply its plugins; on failure fill a->error. Against a MuJoCo 2.2.2
// reference (one contact a pair) multiccd, on by default with nativeccd as in MuJoCo 3.x, is
// turned off so that both engines do the same collision work
static void setupModuco(BenchArm* a, int reference) {
  a->m = mc_loadXML(a->r.file, a->error, sizeof(a->error));
  if (!a->m) {
    if (!a->error[0]) {
      snprintf(a->error, sizeof(a->error), "%s: could not load model", a->r.file);
    }
    return;
  }
  if (reference) {
    a->m->opt.enableflags &= ~mcENBL_MULTICCD;
  }
  char err[1024] = "";
  if ((a->solver[0] && mc_setSolver(a->m, a->solver, err, sizeof(err))) ||
      (a->integrator[0] && mc_setIntegrator(a->m, a->integrator, err, sizeof(err)))) {
    snprintf(a->error, sizeof(a->error), "%s", err[0] ? err : "could not set plugin");
    return;
  }
  snprintf(a->solver, sizeof(a->solver), "%s", mcb_solverName(a->m));
  snprintf(a->integrator, sizeof(a->integrator), "%s", mcb_integratorName(a->m));
  a->d = mc_makeData(a->m);
  if (!a->d || bench_pluginWarningsSetup(a)) {
    snprintf(a->error, sizeof(a->error), "could not allocate data");
    return;
  }
  a->r.nq = a->m->nq;
  a->r.nv = a->m->nv;
  a->r.nu = a->m->nu;
  a->r.timestep = a->m->opt.timestep;
}


// a new arm of model g
static BenchArm* newArm(mcbBench* b, int g, int engine) {
  BenchArm* a = &b->arm[b->narm];
  a->r.engine = engine;
  a->r.model = g;
  a->r.file = b->c.model[g];
  a->r.baseline = -1;
  a->r.mujoco_arm = -1;
  a->twin = b->narm++;
  return a;
}


// MuJoCo twins of the Moduco arms first..last-1 (one per distinct solver/integrator pair)
static void addTwins(mcbBench* b, int g, int first, int last) {
  for (int i = first; i < last; i++) {
    BenchArm* src = &b->arm[i];
    if (src->error[0] || bench_mujocoSolver(src->solver) < 0 ||
        bench_mujocoIntegrator(src->integrator) < 0) {
      continue;                   // no model, or no MuJoCo equivalent of this pair
    }
    int dup = -1;
    for (int j = last; j < b->narm; j++) {
      if (!strcasecmp(b->arm[j].solver, src->solver) &&
          !strcasecmp(b->arm[j].integrator, src->integrator)) {
        dup = j;
      }
    }
    if (dup >= 0) {
      src->r.mujoco_arm = dup;
      continue;
    }
    BenchArm* a = newArm(b, g, mcbENGINE_MUJOCO);
    src = &b->arm[i];
    a->twin = i;
    memcpy(a->solver, src->solver, sizeof(a->solver));
    memcpy(a->integrator, src->integrator, sizeof(a->integrator));
    bench_setupMuJoCo(a);
    src->r.mujoco_arm = (int)(a - b->arm);
  }
}


// the model's control sequence (from its first Moduco model) and baseline arm
static void setupGroup(mcbBench* b, int g, int first) {
  BenchGroup* grp = &b->group[g];
  const mcbConfig* c = &b->c;
  grp->baseline = -1;
  for (int i = first; i < b->narm; i++) {
    if (b->arm[i].m) {
      const mcModel* m = b->arm[i].m;
      unsigned long long seed = c->seed ^ bench_modelHash(c->model[g], m);
      grp->nu = m->nu;
      grp->ctrl = bench_makeControls(m, c->steps + c->warmup, c->ctrlnoise, c->ctrlzero,
                                     seed);
      grp->base_qpos = calloc((size_t)BENCH_NSAMPLE * (size_t)(m->nq ? m->nq : 1),
                              sizeof(double));
      break;
    }
  }
  for (int i = first; i < b->narm; i++) {
    BenchArm* a = &b->arm[i];
    if (!a->error[0] && (!grp->ctrl || a->r.nu != grp->nu)) {
      snprintf(a->error, sizeof(a->error), "%s", grp->ctrl ?
               "actuator count differs from the moduco model" : "no control sequence");
    }
    if (!a->error[0] && grp->baseline < 0) {
      grp->baseline = i;
    }
  }
}


mcbBench* mcb_create(const mcbConfig* config) {
  mcbBench* b = calloc(1, sizeof(mcbBench));
  if (!b) {
    return NULL;
  }
  b->c = *config;
  mcbConfig* c = &b->c;
  c->warmup = c->warmup < 0 ? c->steps : c->warmup;
  c->repeat = c->repeat < 1 ? 1 : c->repeat;
  int nsol = c->nsolver ? c->nsolver : 1, nint = c->nintegrator ? c->nintegrator : 1;
  int nmax = c->nmodel * nsol * nint * (c->reference ? 2 : 1);
  b->arm = calloc((size_t)(nmax ? nmax : 1), sizeof(BenchArm));
  b->group = calloc((size_t)(c->nmodel ? c->nmodel : 1), sizeof(BenchGroup));
  if (!b->arm || !b->group) {
    mcb_delete(b);
    return NULL;
  }
  for (int g = 0; g < c->nmodel; g++) {
    int first = b->narm;
    for (int s = 0; s < nsol; s++) {
      for (int k = 0; k < nint; k++) {
        BenchArm* a = newArm(b, g, mcbENGINE_MODUCO);
        snprintf(a->solver, sizeof(a->solver), "%s", c->nsolver ? c->solver[s] : "");
        snprintf(a->integrator, sizeof(a->integrator), "%s",
                 c->nintegrator ? c->integrator[k] : "");
        setupModuco(a, c->reference);
      }
    }
    if (c->reference) {
      addTwins(b, g, first, b->narm);
    }
    setupGroup(b, g, first);
  }

  // every arm: names and error for the results, repeat buffer
  for (int i = 0; i < b->narm; i++) {
    BenchArm* a = &b->arm[i];
    a->r.solver = a->solver;
    a->r.integrator = a->integrator;
    a->r.error = a->error[0] ? a->error : NULL;
    a->rate = calloc((size_t)c->repeat, sizeof(double));
    a->r.rate = a->rate;
    if (!a->rate) {
      mcb_delete(b);
      return NULL;
    }
  }
  return b;
}


int mcb_armCount(const mcbBench* b) {
  return b->narm;
}


const mcbResult* mcb_result(const mcbBench* b, int arm) {
  return arm >= 0 && arm < b->narm ? &b->arm[arm].r : NULL;
}


const mcbConfig* mcb_config(const mcbBench* b) {
  return &b->c;
}


int mcb_status(const mcbBench* b, int allow_divergence) {
  int diverged = 0;
  for (int i = 0; i < b->narm; i++) {
    if (b->arm[i].error[0]) {
      return mcbSTATUS_FAILED;
    }
    diverged |= b->arm[i].r.diverged;
  }
  return diverged && !allow_divergence ? mcbSTATUS_DIVERGED : mcbSTATUS_OK;
}


void mcb_delete(mcbBench* b) {
  if (!b) {
    return;
  }
  for (int i = 0; i < b->narm; i++) {
    BenchArm* a = &b->arm[i];
    bench_referenceFree(&a->ref);
    mc_deleteData(a->d);
    mc_deleteModel(a->m);
    bench_freeMuJoCo(a);
    free(a->pwname);
    free(a->pwcount);
    free(a->pwslot);
    free(a->rate);
    free(a->scaling);
    free(a->samples);
  }
  for (int g = 0; b->group && g < b->c.nmodel; g++) {
    free(b->group[g].ctrl);
    free(b->group[g].base_qpos);
  }
  free(b->group);
  free(b->arm);
  free(b);
}
