// Moduco plugin: Newton constraint solver (primal, Cholesky of the Hessian, exact line search)
#include <moduco/mcplugin.h>

#include "solver.h"


// entry of the plugin
static void solve(const mcpHost* host, const mcModel* m, mcData* d, int maxiter) {
  mcs_primal(host, m, d, maxiter, MCS_NEWTON);
}


static const mcpSolver g_newton = {
  MCP_HEADER(mcpKIND_SOLVER, mcpSolver, "newton", "1.0.0",
             "Newton constraint solver (primal, Cholesky of the Hessian, exact line search)",
             mcSOL_NEWTON),
  solve,
  NULL,
  1,                              // island views accepted (ABI 1.4)
};

static const mcpHeader* const g_list[] = {&g_newton.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("solver-newton", 1, g_list);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  (void)host;
  return &g_library;
}
