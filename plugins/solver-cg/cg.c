// Moduco plugin: CG constraint solver (primal, Polak-Ribiere, exact line search)
#include <moduco/mcplugin.h>

#include "solver.h"


// entry of the plugin
static void solve(const mcpHost* host, const mcModel* m, mcData* d, int maxiter) {
  mcs_primal(host, m, d, maxiter, MCS_CG, NULL);
}


static const mcpSolver g_cg = {
  MCP_HEADER(mcpKIND_SOLVER, mcpSolver, "cg", "1.0.0",
             "CG constraint solver (primal, Polak-Ribiere, exact line search)",
             mcSOL_CG),
  solve,
  &mcs_solverExt,                 // plugin_data as Newton's (swaps keep the data usable)
  1,                              // island views accepted (ABI 1.4)
};

static const mcpHeader* const g_list[] = {&g_cg.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("solver-cg", 1, g_list);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  (void)host;
  return &g_library;
}
