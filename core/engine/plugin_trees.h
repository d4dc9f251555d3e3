// Moduco core: the plugins' per-tree jobs on the in-step thread pool (core/engine/plugin_trees.c;
// private to libmoduco). The host table's runTrees and integratePosRange (ABI 1.10).
#ifndef MODUCO_CORE_ENGINE_PLUGIN_TREES_H_
#define MODUCO_CORE_ENGINE_PLUGIN_TREES_H_

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

// fn(ctx, range) for the ranges of whole trees of d's pool's cut, as one job; the whole model in
// one call on the caller when no pool is bound, in plugin check mode, when m->nv < mindof or the
// model does not cut into two ranges (joints or dofs not in body order, fewer than two trees).
// Returns the number of ranges run (mcpHost.runTrees).
int mci_runTrees(const mcModel* m, mcData* d, mcpfTreeTask fn, void* ctx, int mindof);

// mc_integratePos on the joints [j0, j1) only: their qpos entries, the same arithmetic
void mci_integratePosRange(const mcModel* m, mcNum* qpos, const mcNum* qvel, mcNum dt, int j0,
                           int j1);

#endif  // MODUCO_CORE_ENGINE_PLUGIN_TREES_H_
