// Example third-party integrator "example.midpoint": the explicit midpoint rule (2nd order).
//
//   X_mid = X0 + h/2 F(X0)           (dynamics evaluated there, sensors skipped)
//   X     = X0 + h   F(X_mid)        (positions on the manifold from qpos0)
//
// It shows the plugin rules: one exported entry symbol, versioned descriptors, no malloc (the
// scratch stack of mcData), no state outside mcData, the core reached only through the host.
#include <string.h>

#include <moduco/mcplugin.h>


static void midpointStep(const mcpHost* host, const mcModel* m, mcData* d) {
  int nq = m->nq, nv = m->nv, na = m->na;
  mcNum h = m->opt.timestep;
  mcNum time0 = d->time;

  // scratch: the initial state and a velocity buffer
  host->markStack(d);
  mcNum* qpos0 = host->stackAlloc(d, sizeof(mcNum) * (size_t)(nq + 1), _Alignof(mcNum));
  mcNum* qvel0 = host->stackAlloc(d, sizeof(mcNum) * (size_t)(nv + 1), _Alignof(mcNum));
  mcNum* act0 = host->stackAlloc(d, sizeof(mcNum) * (size_t)(na + 1), _Alignof(mcNum));
  mcNum* vel = host->stackAlloc(d, sizeof(mcNum) * (size_t)(nv + 1), _Alignof(mcNum));
  if (!qpos0 || !qvel0 || !act0 || !vel) {
    host->freeStack(d);
    return;
  }
  memcpy(qpos0, d->qpos, sizeof(mcNum) * (size_t)nq);
  memcpy(qvel0, d->qvel, sizeof(mcNum) * (size_t)nv);
  memcpy(act0, d->act, sizeof(mcNum) * (size_t)na);

  // half step with the current derivative
  host->integratePos(m, d->qpos, qvel0, 0.5 * h);
  for (int i = 0; i < nv; i++) {
    d->qvel[i] += 0.5 * h * d->qacc[i];
  }
  for (int i = 0; i < na; i++) {
    d->act[i] += 0.5 * h * d->act_dot[i];
  }
  d->time = time0 + 0.5 * h;

  // dynamics at the midpoint
  host->forwardSkip(m, d, mcSTAGE_NONE, 1);
  memcpy(vel, d->qvel, sizeof(mcNum) * (size_t)nv);

  // full step from the initial state with the midpoint derivative
  memcpy(d->qacc_warmstart, d->qacc, sizeof(mcNum) * (size_t)nv);
  memcpy(d->qpos, qpos0, sizeof(mcNum) * (size_t)nq);
  memcpy(d->act, act0, sizeof(mcNum) * (size_t)na);
  if (na) {
    host->advanceAct(m, d, d->act_dot, h);
  }
  for (int i = 0; i < nv; i++) {
    d->qvel[i] = qvel0[i] + h * d->qacc[i];
  }
  host->integratePos(m, d->qpos, vel, h);
  d->time = time0 + h;

  host->freeStack(d);
}


// descriptor ("vendor.name": third-party names carry a dot) and library
static const mcpIntegrator g_midpoint = {
  .hdr = MCP_HEADER(mcpKIND_INTEGRATOR, mcpIntegrator, "example.midpoint", "1.0.0",
                    "explicit midpoint rule (example plugin)", -1),
  .step = midpointStep,
};

static const mcpHeader* const g_plugins[] = {&g_midpoint.hdr};

static const mcpLibrary g_library = MCP_LIBRARY("example-midpoint", 1, g_plugins);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  // this plugin needs the ABI 1.0 host table and double precision
  if (!host || host->abi_major != MCP_ABI_MAJOR || host->precision != MCP_PRECISION) {
    return NULL;
  }
  return &g_library;
}
