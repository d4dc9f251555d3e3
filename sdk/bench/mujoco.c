// Moduco bench: MuJoCo 2.2.2 as a reference engine, dlopened at run time (libmoducobench and the
// moduco binary never link it; a library of another version is refused, since the struct layouts
// come from the 2.2.2 headers).
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "bench.h"

BenchMuJoCo bench_mj;


// dlopen libmujoco and resolve its symbols; return 0, or -1 with bench_mj.error set
int bench_mujocoOpen(void) {
#if BENCH_HAVE_MUJOCO
  BenchMuJoCo* g = &bench_mj;
  if (g->lib) {
    return 0;
  }
  const char* names[] = {"libmujoco.so.2.2.2", "libmujoco.so", "libmujoco.so.2"};
  for (int i = 0; i < 3 && !g->lib; i++) {
    g->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  }
  if (!g->lib) {
    snprintf(g->error, sizeof(g->error), "MuJoCo not found (libmujoco.so.2.2.2): %s", dlerror());
    return -1;
  }
  int (*version)(void) = (int (*)(void))dlsym(g->lib, "mj_version");
  g->loadXML = (mjModel* (*)(const char*, const mjVFS*, char*, int))dlsym(g->lib, "mj_loadXML");
  g->makeData = (mjData* (*)(const mjModel*))dlsym(g->lib, "mj_makeData");
  g->copyData = (mjData* (*)(mjData*, const mjModel*, const mjData*))dlsym(g->lib,
                                                                           "mj_copyData");
  g->step = (void (*)(const mjModel*, mjData*))dlsym(g->lib, "mj_step");
  g->forward = (void (*)(const mjModel*, mjData*))dlsym(g->lib, "mj_forward");
  g->resetData = (void (*)(const mjModel*, mjData*))dlsym(g->lib, "mj_resetData");
  g->deleteData = (void (*)(mjData*))dlsym(g->lib, "mj_deleteData");
  g->deleteModel = (void (*)(mjModel*))dlsym(g->lib, "mj_deleteModel");
  g->cbtime = (mjfTime*)dlsym(g->lib, "mjcb_time");
  if (!version || !g->loadXML || !g->makeData || !g->copyData || !g->step || !g->forward ||
      !g->resetData || !g->deleteData || !g->deleteModel) {
    snprintf(g->error, sizeof(g->error), "libmujoco lacks mj_loadXML/mj_step/...");
    dlclose(g->lib);
    g->lib = NULL;
    return -1;
  }
  g->version = version();
  if (g->version != mjVERSION_HEADER) {
    snprintf(g->error, sizeof(g->error), "libmujoco is version %d, the bench was built against "
             "%d", g->version, mjVERSION_HEADER);
    dlclose(g->lib);
    g->lib = NULL;
    return -1;
  }
  return 0;
#else
  snprintf(bench_mj.error, sizeof(bench_mj.error), "moduco was built without MuJoCo headers");
  return -1;
#endif
}


// index of name in a list of three, case-insensitive; -1 if absent
static int lookup3(const char* name, const char* const known[3]) {
  for (int i = 0; i < 3; i++) {
    if (!strcasecmp(name, known[i])) {
      return i;
    }
  }
  return -1;
}


// MuJoCo's option code for a solver / integrator name; -1 if MuJoCo 2.2.2 has no equivalent
int bench_mujocoSolver(const char* name) {
  static const char* const known[3] = {"pgs", "cg", "newton"};
  return lookup3(name, known);
}


int bench_mujocoIntegrator(const char* name) {
  static const char* const known[3] = {"euler", "rk4", "implicit"};
  return lookup3(name, known);
}


// load a MuJoCo arm with the solver and integrator already copied from its Moduco twin
void bench_setupMuJoCo(BenchArm* a) {
#if BENCH_HAVE_MUJOCO
  if (bench_mujocoOpen()) {
    snprintf(a->error, sizeof(a->error), "%s", bench_mj.error);
    return;
  }
  char err[1024] = "";
  a->mjm = bench_mj.loadXML(a->r.file, NULL, err, sizeof(err));
  if (!a->mjm) {
    snprintf(a->error, sizeof(a->error), "MuJoCo: %.1000s",
             err[0] ? err : "could not load model");
    return;
  }
  int s = bench_mujocoSolver(a->solver), i = bench_mujocoIntegrator(a->integrator);
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
  a->mjd = bench_mj.makeData(a->mjm);
  a->mjscratch = bench_mj.makeData(a->mjm);
  if (!a->mjd || !a->mjscratch) {
    snprintf(a->error, sizeof(a->error), "MuJoCo: could not allocate data");
    return;
  }
  a->r.nq = a->mjm->nq;
  a->r.nv = a->mjm->nv;
  a->r.nu = a->mjm->nu;
  a->r.timestep = a->mjm->opt.timestep;
#else
  snprintf(a->error, sizeof(a->error), "moduco was built without MuJoCo headers");
#endif
}


void bench_freeMuJoCo(BenchArm* a) {
#if BENCH_HAVE_MUJOCO
  if (a->mjd) {
    bench_mj.deleteData(a->mjd);
  }
  if (a->mjscratch) {
    bench_mj.deleteData(a->mjscratch);
  }
  if (a->mjm) {
    bench_mj.deleteModel(a->mjm);
  }
  free(a->mjsamples);
#else
  (void)a;
#endif
}
