// Newton's symbolic cache (plugins/solver-common/solver_sparse.c): the sparse factor's pattern
// kept across steps while the constraint rows keep their columns must give bitwise the same
// trajectory as recomputing it every step, on scenes whose contacts come and go.
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>
#include "capsule_pile.h"

#define NBODY 6
#define NSTEP 400

// free capsule "arms" with two hinged links each, dropped onto a floor and onto each other, on
// the row-sparse Jacobian
static mcModel* loadScene(const char* cone) {
  char option[256];
  snprintf(option, sizeof(option), "timestep=\"0.005\" solver=\"newton\" jacobian=\"sparse\" "
           "cone=\"%s\"", cone);
  return capsulePile(option, NBODY, 1);
}


// the cache buffer of the solver instance
static int* cacheOf(const mcModel* m, mcData* d) {
  int inst = m->plugin_solver;
  cr_assert(inst >= 0 && m->plugin_datasize[inst] > 0, "no symbolic cache for a sparse model");
  return (int*)d->plugin_data[inst];
}


static void compareRuns(const char* cone) {
  mcModel* m = loadScene(cone);
  mcData* d0 = mc_makeData(m);
  mcData* d1 = mc_makeData(m);
  size_t cap = (size_t)m->plugin_datasize[m->plugin_solver];
  int changes = 0, prevStructure = -1, maxcon = 0;
  for (int k = 0; k < NSTEP; k++) {
    memset(cacheOf(m, d0), 0, cap);
    mc_step(m, d0);
    mc_step(m, d1);
    cr_assert_eq(d0->nefc, d1->nefc, "step %d", k);
    cr_assert(!memcmp(d0->qpos, d1->qpos, sizeof(mcNum) * (size_t)m->nq), "qpos, step %d", k);
    cr_assert(!memcmp(d0->qvel, d1->qvel, sizeof(mcNum) * (size_t)m->nv), "qvel, step %d", k);
    cr_assert(!memcmp(d0->qacc, d1->qacc, sizeof(mcNum) * (size_t)m->nv), "qacc, step %d", k);
    cr_assert(!memcmp(d0->efc_force, d1->efc_force, sizeof(mcNum) * (size_t)d0->nefc),
              "efc_force, step %d", k);

    // the row structure changes now and then (the cache is refilled), and stays (it is reused)
    int structure = d1->nefc * 1000 + d1->ncon;
    changes += structure != prevStructure;
    prevStructure = structure;
    maxcon = d1->ncon > maxcon ? d1->ncon : maxcon;
  }
  cr_expect(changes > 5 && changes < NSTEP / 2, "%d structure changes in %d steps", changes,
            NSTEP);
  cr_expect(maxcon >= NBODY, "only %d contacts", maxcon);
  cr_expect_eq(cacheOf(m, d1)[0], 1, "no pattern stored");

  // a copy carries the cache along and continues bitwise like the original
  mcData* c = mc_copyData(NULL, m, d1);
  for (int k = 0; k < 50; k++) {
    mc_step(m, d1);
    mc_step(m, c);
    cr_assert(!memcmp(c->qacc, d1->qacc, sizeof(mcNum) * (size_t)m->nv), "copy, step %d", k);
  }
  mc_deleteData(c);
  mc_deleteData(d0);
  mc_deleteData(d1);
  mc_deleteModel(m);
}


Test(newton_cache, pyramidal_bitwise) {
  compareRuns("pyramidal");
}


Test(newton_cache, elliptic_bitwise) {
  compareRuns("elliptic");
}


// the cache is only made for models on the row-sparse Jacobian (auto: nv >= 60)
Test(newton_cache, dense_models_have_none) {
  char error[512] = "";
  mcModel* m = mc_loadXMLString("<mujoco><option solver=\"newton\"/><worldbody>"
                                "<body><freejoint/><geom size=\"0.1\"/></body>"
                                "</worldbody></mujoco>", NULL, error, sizeof(error));
  cr_assert(m, "load: %s", error);
  cr_assert(m->plugin_solver >= 0);
  cr_expect_eq(m->plugin_datasize[m->plugin_solver], 0);
  mc_deleteModel(m);
}
