// Moduco plugin "rk4": the classic fixed-step 4th-order Runge-Kutta method on (qpos, qvel, act).
//
// The state derivative is F = (qvel, qacc, act_dot). Stage 0 is the forward dynamics already
// computed by mc_step at (t, X0). Stage i = 1..3 evaluates the dynamics (sensors skipped) at
//   X_i = X0 + h A_i F_{i-1},  time t + C_i h,   A = C = (1/2, 1/2, 1)
// with positions integrated on the manifold from the saved qpos0. The step is then
//   X = X0 + h (F_0/6 + F_1/3 + F_2/3 + F_3/6)
// through the same advance as Euler (activations by host->advanceAct, qvel, then qpos with the
// weighted velocity, time += h). d->qacc and d->act_dot hold the last stage's values afterwards,
// and qacc_warmstart is set from d->qacc.
#include <string.h>

#include <moduco/mcplugin.h>

// the tableau: diagonal A (stage i uses stage i-1 only), weights B, times C
static const mcNum kA[3] = {0.5, 0.5, 1.0};
static const mcNum kB[4] = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
static const mcNum kC[3] = {0.5, 0.5, 1.0};


// scratch array of n numbers (n may be 0)
static mcNum* scratch(const mcpHost* host, mcData* d, int n) {
  return host->stackAlloc(d, sizeof(mcNum) * (size_t)(n > 0 ? n : 1), _Alignof(mcNum));
}


// the step
static void rk4Step(const mcpHost* host, const mcModel* m, mcData* d) {
  int nq = m->nq, nv = m->nv, na = m->na;
  mcNum h = m->opt.timestep;
  mcNum time0 = d->time;

  // scratch: initial state, the four derivatives, the weighted sums
  host->markStack(d);
  mcNum* qpos0 = scratch(host, d, nq);
  mcNum* qvel0 = scratch(host, d, nv);
  mcNum* act0 = scratch(host, d, na);
  mcNum* fvel = scratch(host, d, 4 * nv);
  mcNum* facc = scratch(host, d, 4 * nv);
  mcNum* fact = scratch(host, d, 4 * na);
  mcNum* dvel = scratch(host, d, nv);
  if (!qpos0 || !qvel0 || !act0 || !fvel || !facc || !fact || !dvel) {
    // stack full (already warned): leave the state unchanged
    host->freeStack(d);
    return;
  }

  // stage 0: the current state and its derivative
  memcpy(qpos0, d->qpos, sizeof(mcNum) * (size_t)nq);
  memcpy(qvel0, d->qvel, sizeof(mcNum) * (size_t)nv);
  memcpy(act0, d->act, sizeof(mcNum) * (size_t)na);
  memcpy(fvel, d->qvel, sizeof(mcNum) * (size_t)nv);
  memcpy(facc, d->qacc, sizeof(mcNum) * (size_t)nv);
  memcpy(fact, d->act_dot, sizeof(mcNum) * (size_t)na);

  // stages 1..3
  for (int i = 1; i < 4; i++) {
    const mcNum* pvel = fvel + (i - 1) * nv;
    const mcNum* pacc = facc + (i - 1) * nv;
    const mcNum* pact = fact + (i - 1) * na;
    mcNum a = kA[i - 1];

    // positions on the manifold from qpos0
    for (int j = 0; j < nv; j++) {
      dvel[j] = a * pvel[j];
    }
    memcpy(d->qpos, qpos0, sizeof(mcNum) * (size_t)nq);
    host->integratePos(m, d->qpos, dvel, h);

    // velocities, activations, time
    for (int j = 0; j < nv; j++) {
      d->qvel[j] = qvel0[j] + h * a * pacc[j];
    }
    for (int j = 0; j < na; j++) {
      d->act[j] = act0[j] + h * a * pact[j];
    }
    d->time = time0 + kC[i - 1] * h;

    // dynamics at the stage (sensors skipped), stored as F_i
    host->forwardSkip(m, d, mcSTAGE_NONE, 1);
    memcpy(fvel + i * nv, d->qvel, sizeof(mcNum) * (size_t)nv);
    memcpy(facc + i * nv, d->qacc, sizeof(mcNum) * (size_t)nv);
    memcpy(fact + i * na, d->act_dot, sizeof(mcNum) * (size_t)na);
  }

  // weighted derivative; dacc and dact reuse the stage-0 slots (no longer needed)
  mcNum* dacc = facc;
  mcNum* dact = fact;
  for (int j = 0; j < nv; j++) {
    dvel[j] = kB[0] * fvel[j] + kB[1] * fvel[nv + j] + kB[2] * fvel[2 * nv + j] +
              kB[3] * fvel[3 * nv + j];
    dacc[j] = kB[0] * facc[j] + kB[1] * facc[nv + j] + kB[2] * facc[2 * nv + j] +
              kB[3] * facc[3 * nv + j];
  }
  for (int j = 0; j < na; j++) {
    dact[j] = kB[0] * fact[j] + kB[1] * fact[na + j] + kB[2] * fact[2 * na + j] +
              kB[3] * fact[3 * na + j];
  }

  // back to the initial state, then one advance with the weighted derivative
  memcpy(d->qpos, qpos0, sizeof(mcNum) * (size_t)nq);
  memcpy(d->qvel, qvel0, sizeof(mcNum) * (size_t)nv);
  memcpy(d->act, act0, sizeof(mcNum) * (size_t)na);
  d->time = time0;

  // warmstart from the last stage, activations, velocities, positions, time
  memcpy(d->qacc_warmstart, d->qacc, sizeof(mcNum) * (size_t)nv);
  if (na) {
    host->advanceAct(m, d, dact, h);
  }
  for (int j = 0; j < nv; j++) {
    d->qvel[j] += h * dacc[j];
  }
  host->integratePos(m, d->qpos, dvel, h);
  d->time += h;

  host->freeStack(d);
}


// descriptor and library
static const mcpIntegrator g_rk4 = {
  .hdr = MCP_HEADER(mcpKIND_INTEGRATOR, mcpIntegrator, "rk4", "1.0.0",
                    "4th-order Runge-Kutta (classic tableau)", mcINT_RK4),
  .step = rk4Step,
};

static const mcpHeader* const g_plugins[] = {&g_rk4.hdr};

static const mcpLibrary g_library = MCP_LIBRARY("integrator-rk4", 1, g_plugins);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  // refuse a host of another major version or precision
  if (!host || host->abi_major != MCP_ABI_MAJOR || host->precision != MCP_PRECISION) {
    return NULL;
  }
  return &g_library;
}
