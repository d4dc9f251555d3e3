// Moduco plugin: noslip postsolver (friction rows without regularizer)
#include <moduco/mcplugin.h>

#include "solver.h"


// entry of the plugin
static void solve(const mcpHost* host, const mcModel* m, mcData* d, int maxiter) {
  mcs_noslip(host, m, d, maxiter);
}


static const mcpPostsolver g_noslip = {
  MCP_HEADER(mcpKIND_POSTSOLVER, mcpPostsolver, "noslip", "1.0.0",
             "noslip postsolver (friction rows without regularizer)",
             -1),
  solve,
};

static const mcpHeader* const g_list[] = {&g_noslip.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("solver-noslip", 1, g_list);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  (void)host;
  return &g_library;
}
