// Buffers: a scene driven past the arena (<size memory="..."/> small, many contacts). The step
// drops what does not fit, counts mcWARN_CONTACTFULL / mcWARN_CNSTRFULL and leaves mcData
// consistent (no NaN, no stack left open, every pointer inside the arena); no crash under ASan.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

#include "common.h"

#define NBALL 48


// a bin of NBALL interpenetrating spheres on a plane; memory: the <size memory> value or NULL
static char* pileXML(const char* memory) {
  size_t cap = 64 * 1024;
  char* xml = (char*)malloc(cap);
  cr_assert_not_null(xml);
  int n = snprintf(xml, cap,
                   "<mujoco><option timestep=\"0.002\"/>%s%s%s<worldbody>"
                   "<geom type=\"plane\" size=\"2 2 0.1\"/>",
                   memory ? "<size memory=\"" : "", memory ? memory : "", memory ? "\"/>" : "");
  for (int i = 0; i < NBALL; i++) {
    double x = 0.08 * (i % 4), y = 0.08 * ((i / 4) % 4), z = 0.06 + 0.08 * (i / 16);
    n += snprintf(xml + n, cap - (size_t)n,
                  "<body pos=\"%g %g %g\"><freejoint/><geom type=\"sphere\" size=\"0.05\"/>"
                  "</body>", x, y, z);
  }
  snprintf(xml + n, cap - (size_t)n, "</worldbody></mujoco>");
  return xml;
}


// every invariant a caller may rely on after a step
static void expectConsistent(const mcModel* m, const mcData* d, const char* memory, int step) {
  cr_assert(!hardHasNonFinite(m, d), "memory %s step %d: non-finite state", memory, step);
  cr_assert_eq(d->stack_marks, 0, "memory %s step %d: stack frame left open", memory, step);
  cr_assert_leq(d->parena, d->pstack, "memory %s step %d: arena and stack overlap", memory, step);
  cr_assert_leq(d->pstack, d->narena, "memory %s step %d", memory, step);
  cr_assert_geq(d->ncon, 0);
  cr_assert_geq(d->nefc, 0);
  cr_assert_leq(d->ne + d->nf, d->nefc);
  if (d->ncon) {
    const char* lo = (const char*)d->arena;
    const char* hi = lo + d->parena;
    cr_assert((const char*)d->contact >= lo && (const char*)(d->contact + d->ncon) <= hi,
              "memory %s step %d: contacts outside the used arena", memory, step);
  }
  for (int i = 0; i < d->ncon; i++) {
    const mcContact* c = d->contact + i;
    cr_assert(c->geom1 >= 0 && c->geom1 < m->ngeom && c->geom2 >= 0 && c->geom2 < m->ngeom);
    cr_assert(c->efc_address >= -1 && c->efc_address < d->nefc,
              "memory %s step %d: contact %d efc_address %d, nefc %d", memory, step, i,
              c->efc_address, d->nefc);
    cr_assert(isfinite(c->dist) && isfinite(c->pos[0]));
  }
  for (int i = 0; i < d->nefc; i++) {
    cr_assert(isfinite(d->efc_force[i]), "memory %s step %d: efc_force[%d]", memory, step, i);
  }
}


// step a pile with the given memory; return the warning counts through the pointers
static void runPile(const char* memory, int nstep, int* contactfull, int* cnstrfull,
                    int* maxcon) {
  char* xml = pileXML(memory);
  mcModel* m = hardLoadString(xml);
  free(xml);
  mcData* d = mc_makeData(m);
  cr_assert_not_null(d, "memory %s: mc_makeData failed", memory);
  hardCaptureBegin();
  for (int k = 0; k < nstep; k++) {
    mc_step(m, d);
    expectConsistent(m, d, memory, k);
  }
  hardCaptureEnd();
  *contactfull = d->warning[mcWARN_CONTACTFULL].number;
  *cnstrfull = d->warning[mcWARN_CNSTRFULL].number;
  *maxcon = d->maxuse_con;
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the default arena holds the pile: no warning
Test(buffers, default_arena_holds_the_pile, .timeout = 300) {
  int cf = 0, cn = 0, maxcon = 0;
  runPile(NULL, 100, &cf, &cn, &maxcon);
  cr_expect_eq(cf, 0);
  cr_expect_eq(cn, 0);
  cr_expect_gt(maxcon, NBALL, "the pile should make many contacts");
}


// a tiny arena: contacts dropped, warnings counted, data consistent
Test(buffers, tiny_arena_drops_and_warns, .timeout = 300) {
  int cf = 0, cn = 0, maxcon = 0;
  runPile("24K", 100, &cf, &cn, &maxcon);
  cr_expect_gt(cf + cn, 0, "a full arena must be counted");
}


// a sweep of sizes from tiny to ample: always consistent, warnings only when it does not fit
Test(buffers, memory_sweep_consistent, .timeout = 900) {
  const char* sizes[] = {"1K", "4K", "16K", "40K", "64K", "100K", "160K", "256K", "512K",
                         "1M", "4M"};
  int nsize = (int)(sizeof(sizes) / sizeof(sizes[0]));
  int last_warned = -1;
  for (int s = 0; s < nsize; s++) {
    int cf = 0, cn = 0, maxcon = 0;
    runPile(sizes[s], 40, &cf, &cn, &maxcon);
    if (cf + cn) {
      last_warned = s;
    }
  }
  cr_expect_lt(last_warned, nsize - 1, "the largest arena should not be full");
  cr_expect_geq(last_warned, 0, "the smallest arena should be full");
}


// nconmax caps the contact list exactly and counts CONTACTFULL
Test(buffers, nconmax_caps_contacts) {
  char* xml = pileXML(NULL);
  char* at = strstr(xml, "<worldbody>");
  char* xml2 = (char*)malloc(strlen(xml) + 64);
  snprintf(xml2, strlen(xml) + 64, "%.*s<size nconmax=\"10\"/>%s", (int)(at - xml), xml, at);
  free(xml);
  mcModel* m = hardLoadString(xml2);
  free(xml2);
  mcData* d = mc_makeData(m);
  hardCaptureBegin();
  for (int k = 0; k < 20; k++) {
    mc_step(m, d);
    cr_assert_leq(d->ncon, 10);
    expectConsistent(m, d, "nconmax=10", k);
  }
  hardCaptureEnd();
  cr_expect_gt(d->warning[mcWARN_CONTACTFULL].number, 0);
  cr_expect_eq(hardCaptureCountWith("Too many contacts"), 1);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// every solver and integrator survives a full arena
Test(buffers, all_solvers_survive_full_arena, .timeout = 600) {
  const char* solvers[] = {"Newton", "CG", "PGS"};
  const char* integrators[] = {"Euler", "RK4", "implicit", "implicitfast"};
  for (int s = 0; s < 3; s++) {
    for (int i = 0; i < 4; i++) {
      char* xml = pileXML("48K");
      mcModel* m = hardLoadString(xml);
      free(xml);
      if (mc_setSolver(m, solvers[s], NULL, 0) || mc_setIntegrator(m, integrators[i], NULL, 0)) {
        mc_deleteModel(m);
        continue;
      }
      mcData* d = mc_makeData(m);
      hardCaptureBegin();
      for (int k = 0; k < 30; k++) {
        mc_step(m, d);
        expectConsistent(m, d, integrators[i], k);
      }
      hardCaptureEnd();
      mc_deleteData(d);
      mc_deleteModel(m);
    }
  }
}


// a malformed or absurd memory size is a load error, not a crash or a huge allocation
Test(buffers, malformed_memory_is_an_error) {
  const char* bad[] = {"abc", "12Q", "-5", "nan", "1e300T", "inf"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    char xml[256], error[512] = "";
    snprintf(xml, sizeof(xml),
             "<mujoco><size memory=\"%s\"/><worldbody/></mujoco>", bad[i]);
    mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
    cr_expect_null(m, "memory '%s' should be rejected", bad[i]);
    cr_expect(strstr(error, "memory"), "memory '%s': error '%s'", bad[i], error);
    mc_deleteModel(m);
  }
}


// an arena too big to allocate: a load error at the <size> element that asks for it (the
// compiler makes data for its constants, mc_makeData returns NULL and warns); never an abort
Test(buffers, unallocatable_arena_returns_null) {
  char error[512] = "";
  hardCaptureBegin();
  mcModel* m = mc_loadXMLString("<mujoco>\n<size memory=\"64T\"/><worldbody/></mujoco>", NULL,
                                error, sizeof(error));
  hardCaptureEnd();
  cr_assert_null(m, "a 64 TiB arena was allocated");
  cr_expect(strstr(error, "string:2: cannot allocate the 70368744177664-byte arena") &&
            strstr(error, "memory='64T'"), "error '%s'", error);
  cr_expect_geq(hardCaptureCount(), 1);
}
