// Test fixture plugin for 'moduco bench': an integrator with a very long name (the table must stay
// aligned). It is semi-implicit Euler without implicit damping: qvel += h qacc, then qpos with the
// new qvel, time += h.
#include <string.h>

#include <moduco/mcplugin.h>


static void step(const mcpHost* host, const mcModel* m, mcData* d) {
  mcNum h = m->opt.timestep;
  memcpy(d->qacc_warmstart, d->qacc, sizeof(mcNum) * (size_t)m->nv);
  if (m->na) {
    host->advanceAct(m, d, d->act_dot, h);
  }
  for (int i = 0; i < m->nv; i++) {
    d->qvel[i] += h * d->qacc[i];
  }
  host->integratePos(m, d->qpos, d->qvel, h);
  d->time += h;
}


static const mcpIntegrator g_integrator = {
  .hdr = MCP_HEADER(mcpKIND_INTEGRATOR, mcpIntegrator,
                    "benchfixture.semi_implicit_euler_without_damping_long_name", "1.0.0",
                    "bench test fixture: Euler without implicit damping", -1),
  .step = step,
};

static const mcpHeader* const g_plugins[] = {&g_integrator.hdr};

static const mcpLibrary g_library = MCP_LIBRARY("benchfixture-longname", 1, g_plugins);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  if (!host || host->abi_major != MCP_ABI_MAJOR || host->precision != MCP_PRECISION) {
    return NULL;
  }
  return &g_library;
}
