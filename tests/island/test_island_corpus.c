// Real models on the in-step thread pool: every array of mcData bit for bit the same as the step
// without a pool, after every step, with 2 and 3 threads, islands on. The generated scenes of the
// other pool suites missed two races that only real models had (dm_stacker: a tree with no dofs
// at the end of a cut, its range copying a garbage span of qLD; the robotiq 2f85 scene: fluid
// forces that read bodies' velocities before the job made them).
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>

#include "../common/corpus_list.h"
#include "../rollout/pool_test_util.h"

#define CORPUS "/work/shared/corpus/"
#define SAMPLES "/usr/share/mujoco/model/"
#define NSTEP 150

typedef struct {
  const char* path;
} Model;

static const Model kModels[] = {
#define X(folder, file) {CORPUS folder "/" file},
    MC_CORPUS_MODELS(X)
#undef X
    {SAMPLES "humanoid/22_humanoids.xml"},
    {SAMPLES "humanoid100/humanoid100.xml"},
    {SAMPLES "slider_crank/slider_crank.xml"},
    {SAMPLES "tendon_arm/arm26.xml"},
};


// the first array of d (no pool) and p (pool) whose bits differ, or NULL; the separating
// directions of the collision plugins are a cache that never changes a result (mcdata.h) and
// are filled in whatever order the narrow phase's threads meet the pairs
static const char* firstDiff(const mcModel* m, const mcData* d, const mcData* p) {
  int nv = m->nv;
  (void)nv;                       // a size of some arrays' columns
#define X(type, name, rows, cols)                                                          \
  if (strcmp(#name, "collision_sepdir") && (size_t)(m->rows) * (size_t)(cols) > 0 &&      \
      memcmp(d->name, p->name, sizeof(type) * (size_t)(m->rows) * (size_t)(cols))) {      \
    return #name;                                                                          \
  }
  MC_DATA_POINTERS(X)
#undef X
  if (d->ncon != p->ncon || d->nefc != p->nefc) {
    return "ncon or nefc";
  }
  if (d->nefc > 0 && memcmp(d->efc_force, p->efc_force, sizeof(mcNum) * (size_t)d->nefc)) {
    return "efc_force";
  }
  return NULL;
}


Test(island_corpus, pool_bitwise_the_serial_step, .timeout = 1200) {
  int nmodel = (int)(sizeof(kModels) / sizeof(kModels[0]));
  for (int i = 0; i < nmodel; i++) {
    char error[1024] = "";
    mcModel* m = mc_loadXML(kModels[i].path, error, sizeof(error));
    cr_assert(m, "%s: %s", kModels[i].path, error);
    m->opt.enableflags |= mcENBL_ISLAND;
    for (int nthread = 2; nthread <= 3; nthread++) {
      mcThreadPool* pool;
      mcData* d = pt_makeData(m, 0, &pool);
      mcData* p = pt_makeData(m, nthread, &pool);
      const char* diff = NULL;
      int step = 0;
      for (; step < NSTEP && !diff; step++) {
        mc_step(m, d);
        mc_step(m, p);
        diff = firstDiff(m, d, p);
      }
      cr_expect(!diff, "%s, %d threads: %s differs after step %d", kModels[i].path, nthread, diff,
                step - 1);
      pt_deleteData(p, pool);
      mc_deleteData(d);
    }
    mc_deleteModel(m);
  }
}
