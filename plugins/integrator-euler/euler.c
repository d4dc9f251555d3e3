// Moduco plugin "euler": semi-implicit Euler with implicit joint damping (MuJoCo's default).
//
// With h the timestep and D = diag(dof_damping) plus, on the dof of an actuator's hinge or slide
// joint transmission, the slope of its polynomial drag gear^2 (B2 qdot|qdot| + B3 qdot^3)
// (actuator_damping[1..2]: dcmotor; B1 is in dof_damping already), as MuJoCo 3.14 does, the
// velocity update uses
//   qacc_e = (M + h D)^-1 (qfrc_smooth + qfrc_constraint)
// when some dof has damping (and mcDSBL_EULERDAMP is clear), else d->qacc. Then
//   act += h act_dot (through host->advanceAct), qvel += h qacc_e,
//   qpos = qpos (+) h qvel (new velocity; quaternions on SO(3)), time += h.
// d->qacc keeps the forward-dynamics acceleration; it is also saved to qacc_warmstart.
#include <math.h>
#include <stddef.h>
#include <string.h>

#include <moduco/mcplugin.h>


// advance the state with the given acceleration
static void advance(const mcpHost* host, const mcModel* m, mcData* d, const mcNum* qacc) {
  mcNum h = m->opt.timestep;

  // warmstart for the next solver call
  memcpy(d->qacc_warmstart, d->qacc, sizeof(mcNum) * (size_t)m->nv);

  // activations (actuator plugins may integrate exactly; actrange clamping)
  if (m->na) {
    host->advanceAct(m, d, d->act_dot, h);
  }

  // velocities, then positions with the new velocities
  for (int i = 0; i < m->nv; i++) {
    d->qvel[i] += h * qacc[i];
  }
  host->integratePos(m, d->qpos, d->qvel, h);

  // time
  d->time += h;
}


// the dof of actuator i's hinge or slide joint transmission with polynomial drag, its slope
// gear^2 (2 B2 |qdot| + 3 B3 qdot^2) in *slope; -1 if none
static int dragSlope(const mcModel* m, const mcData* d, int i, mcNum* slope) {
  const mcNum* b = m->actuator_damping + 3 * i;
  if (!(b[1] > 0 || b[2] > 0) || (m->opt.disableflags & mcDSBL_ACTUATION) ||
      (m->actuator_trntype[i] != mcTRN_JOINT && m->actuator_trntype[i] != mcTRN_JOINTINPARENT)) {
    return -1;
  }
  int j = m->actuator_trnid[2 * i];
  if (j < 0 || (m->jnt_type[j] != mcJNT_HINGE && m->jnt_type[j] != mcJNT_SLIDE)) {
    return -1;
  }
  int dof = m->jnt_dofadr[j];
  mcNum n2 = m->actuator_gear[6 * i] * m->actuator_gear[6 * i], v = d->qvel[dof];
  *slope = n2 * (2 * b[1] * fabs(v) + 3 * b[2] * v * v);
  return dof;
}


// the step: implicit joint damping if needed, then advance
static void eulerStep(const mcpHost* host, const mcModel* m, mcData* d) {
  int nv = m->nv;
  mcNum h = m->opt.timestep;

  // does any dof have damping (and is implicit damping enabled)?
  int damped = 0;
  if (!(m->opt.disableflags & mcDSBL_EULERDAMP)) {
    for (int i = 0; i < nv && !damped; i++) {
      damped = m->dof_damping[i] > 0;
    }
    for (int i = 0; i < m->nu && !damped; i++) {
      mcNum slope;
      damped = dragSlope(m, d, i, &slope) >= 0;
    }
  }
  if (!damped) {
    advance(host, m, d, d->qacc);
    return;
  }

  // scratch: M + h D and its factorization, the damped acceleration, h D
  host->markStack(d);
  mcNum* H = host->stackAlloc(d, sizeof(mcNum) * (size_t)m->nM, _Alignof(mcNum));
  mcNum* HDiagInv = host->stackAlloc(d, sizeof(mcNum) * (size_t)nv, _Alignof(mcNum));
  mcNum* qacc = host->stackAlloc(d, sizeof(mcNum) * (size_t)nv, _Alignof(mcNum));
  mcNum* hD = host->stackAlloc(d, sizeof(mcNum) * (size_t)nv, _Alignof(mcNum));
  if (!H || !HDiagInv || !qacc || !hD) {
    // stack full (already warned): explicit damping rather than no step
    host->freeStack(d);
    advance(host, m, d, d->qacc);
    return;
  }

  // h D: joint damping, then the actuators' drag slopes
  for (int i = 0; i < nv; i++) {
    hD[i] = h * m->dof_damping[i];
  }
  for (int i = 0; i < m->nu; i++) {
    mcNum slope;
    int dof = dragSlope(m, d, i, &slope);
    if (dof >= 0) {
      hD[dof] += h * slope;
    }
  }

  // qacc = (M + h D)^-1 (qfrc_smooth + qfrc_constraint)
  for (int i = 0; i < nv; i++) {
    qacc[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
  }
  if (host->struct_size >= offsetof(mcpHost, solveMDamped) + sizeof(host->solveMDamped) &&
      host->solveMDamped) {
    // the trees without damping reuse the factor of M (appended to the host in session 11)
    host->solveMDamped(m, d, hD, qacc, H, HDiagInv);
  } else {
    // H = M + h D factorized in place, per kinematic tree on the data's thread pool when the core
    // offers it (ABI 1.7, same bits)
    memcpy(H, d->qM, sizeof(mcNum) * (size_t)m->nM);
    for (int i = 0; i < nv; i++) {
      H[m->dof_Madr[i]] += hD[i];
    }
    int pool = host->struct_size >= offsetof(mcpHost, solveLDPool) + sizeof(host->solveLDPool) &&
               host->factorIPool && host->solveLDPool;
    if (pool) {
      host->factorIPool(m, d, H, H, HDiagInv);
      host->solveLDPool(m, d, qacc, 1, H, HDiagInv);
    } else {
      host->factorI(m, H, H, HDiagInv);
      host->solveLD(m, qacc, 1, H, HDiagInv);
    }
  }

  // advance with the damped acceleration
  advance(host, m, d, qacc);
  host->freeStack(d);
}


// descriptor and library
static const mcpIntegrator g_euler = {
  .hdr = MCP_HEADER(mcpKIND_INTEGRATOR, mcpIntegrator, "euler", "1.0.0",
                    "semi-implicit Euler with implicit joint damping", mcINT_EULER),
  .step = eulerStep,
};

static const mcpHeader* const g_plugins[] = {&g_euler.hdr};

static const mcpLibrary g_library = MCP_LIBRARY("integrator-euler", 1, g_plugins);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  // refuse a host of another major version or precision
  if (!host || host->abi_major != MCP_ABI_MAJOR || host->precision != MCP_PRECISION) {
    return NULL;
  }
  return &g_library;
}
