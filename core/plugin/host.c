// Moduco core: the service table handed to plugins (mcpHost). Plugins link against nothing in
// libmoduco; every core function they need is reached through this table.
#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "engine/engine.h"
#include "engine/io.h"
#include "engine/parallel_stages.h"
#include "engine/plugin_trees.h"
#include "engine/solver_contract.h"
#include "plugin/loader.h"
#include "plugin/registry.h"

// TEMPORARY (until core/compiler defines it): a weak reference so the tree links meanwhile; the
// table holds NULL while it is missing. Remove once mc_name2id has landed: a weak reference does
// not pull an object out of the static archive.
#pragma weak mc_name2id


// print a plugin's text through the process-wide message handler
static void hostMessage(const char* text) {
  mci_message("%s", text ? text : "");
}


// the table: append-only, in the order of mcplugin.h
static const mcpHost g_host = {
  .abi_major = MCP_ABI_MAJOR,
  .abi_minor = MCP_ABI_MINOR,
  .struct_size = (uint32_t)sizeof(mcpHost),
  .precision = MCP_PRECISION,
  .warning = mc_warning,
  .message = hostMessage,
  .markStack = mc_markStack,
  .freeStack = mc_freeStack,
  .stackAlloc = mc_stackAlloc,
  .forward = mc_forward,
  .forwardSkip = mc_forwardSkip,
  .integratePos = mc_integratePos,
  .normalizeQuat = mc_normalizeQuat,
  .advanceAct = mc_advanceAct,
  .mulM = mc_mulM,
  .solveM = mc_solveM,
  .factorI = mc_factorI,
  .solveLD = mc_solveLD,
  .name2id = mc_name2id,
  .mulJ = mc_mulJ,
  .mulJT = mc_mulJT,
  .rowJ = mc_rowJ,
  .makeAR = mc_makeAR,
  .instance = mcp_instance,
  .config = mcp_config,
  .pluginWarning = mcp_pluginWarning,
  .fwdPosition = mc_fwdPosition,
  .factorIPool = mci_factorIPool,
  .solveLDPool = mci_solveLDPool,
  .solveMDamped = mci_solveMDamped,
  .runTrees = mci_runTrees,
  .solveMDampedRange = mci_solveMDampedRange,
  .integratePosRange = mci_integratePosRange,
};


const mcpHost* mcp_host(void) {
  return &g_host;
}
