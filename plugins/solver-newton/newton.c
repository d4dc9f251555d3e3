// Moduco plugin: Newton constraint solver (primal, Cholesky of the Hessian, exact line search)
#include <moduco/mcplugin.h>

#include "solver.h"

static void solve(const mcpHost* host, const mcModel* m, mcData* d, int maxiter);

static const mcpSolver g_newton = {
  MCP_HEADER(mcpKIND_SOLVER, mcpSolver, "newton", "1.0.0",
             "Newton constraint solver (primal, Cholesky of the Hessian, exact line search)",
             mcSOL_NEWTON),
  solve,
  &mcs_solverExt,
  1,                              // island views accepted (ABI 1.4)
};


// the symbolic cache of the solve: the whole problem's, or in an island view the slot of the
// island's index (the only part of plugin_data an island's solve writes: the islands solved at
// the same time have distinct indices); none on a dense efc_J or without plugin_data of the
// full model's size
static mcsSymbolicCache symbolicCache(const mcpHost* host, const mcModel* m, mcData* d) {
  mcsSymbolicCache c = {NULL, 0, 0};
  const mcModel* full = d->island_view >= 0 ? d->island_model : m;
  if (!d->efc_J_rownnz || d->nefc == 0 || !full || !host->instance || !d->plugin_data) {
    return c;
  }
  int inst = host->instance(full, &g_newton.hdr);
  if (inst < 0 || !d->plugin_data[inst]) {
    return c;
  }
  size_t cap = (size_t)full->plugin_datasize[inst] / sizeof(int);
  if (cap != mcs_symbolicCacheSize(full)) {
    return c;
  }
  if (d->island_view >= 0) {
    return mcs_islandSlot(full, (int*)d->plugin_data[inst], d->island_view);
  }
  c.buf = (int*)d->plugin_data[inst];
  c.cap = cap;
  return c;
}


// entry of the plugin
static void solve(const mcpHost* host, const mcModel* m, mcData* d, int maxiter) {
  mcsSymbolicCache cache = symbolicCache(host, m, d);
  mcs_primal(host, m, d, maxiter, MCS_NEWTON, &cache);
}

static const mcpHeader* const g_list[] = {&g_newton.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("solver-newton", 1, g_list);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  (void)host;
  return &g_library;
}
