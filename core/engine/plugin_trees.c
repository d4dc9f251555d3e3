// Moduco core: per-tree work of plugins on the in-step thread pool (the host's runTrees, ABI
// 1.10). An integrator's step is per dof and per joint once the forward dynamics are done, and
// its damped solve is per kinematic tree, so the whole step of a range of whole trees can run as
// one task: the model's trees are cut into ranges (mci_cutTrees, as the core's own stages cut
// them, so a pool thread keeps the same trees), each range gets its bodies, joints, dofs and qpos
// entries, and the tasks are one job on d's pool. A task writes only its range's entries, so
// which thread runs it changes no bit. The cut is kept with the pool's workspace apart from the
// stages' (mci_pluginCutCache), so neither remakes the other's.
#include "engine/plugin_trees.h"

#include "engine/parallel_stages.h"
#include "engine/threadpool.h"
#include "math/math.h"

typedef struct {
  const mciTreeCut* cut;
  const mcModel* m;
  mcpfTreeTask fn;
  void* ctx;
} Job;


// the cut of d's pool for the plugins' jobs, made on the first job for this model (it depends
// only on the model's tree layout and the pool's size); NULL when the work should run serially
static const mciTreeCut* pluginCut(const mcModel* m, mcData* d) {
  int nthread = mci_threads(d);
  if (nthread < 2 || d->plugin_check || m->nbody < 3) {
    return NULL;
  }
  int want = mci_rangesWanted(nthread);   // as the stages' jobs
  const mciTreeCut* c = mci_treeCutFor(mci_pluginCutCache(d), m, d, want);
  return c->n >= 2 && c->dofsorted && c->jntsorted ? c : NULL;
}


// range k of the cut (the qpos entries from the joints' addresses, which follow joint order)
static void treeTask(void* ctx, int k, int thread) {
  (void)thread;
  const Job* job = (const Job*)ctx;
  const mciTreeCut* c = job->cut;
  const mcModel* m = job->m;
  int j0 = c->jnt[k], j1 = c->jnt[k + 1];
  mcpTreeRange r = {
    .index = k,
    .count = c->n,
    .body0 = c->body[k],
    .body1 = c->body[k + 1],
    .jnt0 = j0,
    .jnt1 = j1,
    .dof0 = c->dof[k],
    .dof1 = c->dof[k + 1],
    .qpos0 = j0 < m->njnt ? m->jnt_qposadr[j0] : m->nq,
    .qpos1 = j1 < m->njnt ? m->jnt_qposadr[j1] : m->nq,
  };
  job->fn(job->ctx, &r);
}


int mci_runTrees(const mcModel* m, mcData* d, mcpfTreeTask fn, void* ctx, int mindof) {
  const mciTreeCut* c = m->nv >= mindof ? pluginCut(m, d) : NULL;
  if (!c) {
    mcpTreeRange all = {0, 1, 1, m->nbody, 0, m->njnt, 0, m->nv, 0, m->nq};
    fn(ctx, &all);
    return 1;
  }
  Job job = {c, m, fn, ctx};
  mci_poolRun(d->threadpool, c->n, treeTask, &job);
  return c->n;
}


// the joints [j0, j1) of mc_integratePos (which is this over all joints): the entries of one
// joint depend on nothing else, so any cut of the joints gives its bits (test_plugin_trees pins
// that)
void mci_integratePosRange(const mcModel* m, mcNum* qpos, const mcNum* qvel, mcNum dt, int j0,
                           int j1) {
  for (int j = j0; j < j1; j++) {
    int padr = m->jnt_qposadr[j], vadr = m->jnt_dofadr[j];
    switch (m->jnt_type[j]) {
    case mcJNT_FREE:
      for (int c = 0; c < 3; c++) {
        qpos[padr + c] += dt * qvel[vadr + c];
      }
      padr += 3;
      vadr += 3;
      // fall through
    case mcJNT_BALL:
      mcu_quatIntegrate(qpos + padr, qvel + vadr, dt);
      break;
    default:
      qpos[padr] += dt * qvel[vadr];
      break;
    }
  }
}
