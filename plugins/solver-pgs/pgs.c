// Moduco plugin: PGS constraint solver (dual, projected Gauss-Seidel, elliptic cone blocks)
#include <moduco/mcplugin.h>

#include "pgs_dual.h"
#include "solver.h"

// the dense kernels' instruction set, chosen when the library loads (every set gives the same
// numbers)
static PgsIsa g_isa = PGS_ISA_PORTABLE;


// entry of the plugin
static void solve(const mcpHost* host, const mcModel* m, mcData* d, int maxiter) {
  pgs_solve(host, m, d, maxiter, g_isa);
}


static const mcpSolver g_pgs = {
  MCP_HEADER(mcpKIND_SOLVER, mcpSolver, "pgs", "1.0.0",
             "PGS constraint solver (dual, projected Gauss-Seidel, elliptic cone blocks)",
             mcSOL_PGS),
  solve,
  &mcs_solverExt,                 // plugin_data as Newton's (swaps keep the data usable)
  1,                              // island views accepted (ABI 1.4)
};

static const mcpHeader* const g_list[] = {&g_pgs.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("solver-pgs", 1, g_list);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  (void)host;
  g_isa = pgs_isaSelect();
  return &g_library;
}
