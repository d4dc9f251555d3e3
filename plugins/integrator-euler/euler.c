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
// On a host of ABI 1.10 the whole step of a range of kinematic trees is one task of one job on
// the data's thread pool (host->runTrees), the same bits for any thread count; older hosts step
// the whole model part by part (stepWhole).
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


// h D: joint damping, then the actuators' drag slopes
static void makeHD(const mcModel* m, const mcData* d, mcNum* hD) {
  mcNum h = m->opt.timestep;
  for (int i = 0; i < m->nv; i++) {
    hD[i] = h * m->dof_damping[i];
  }
  for (int i = 0; i < m->nu; i++) {
    mcNum slope;
    int dof = dragSlope(m, d, i, &slope);
    if (dof >= 0) {
      hD[dof] += h * slope;
    }
  }
}


// is any of x[0 .. n-1] > 0? Four pairs at a time compared without a branch (GCC vector
// extension; mcNum is double), the compares' all-ones masks summed (or-ing them compiled to a
// scalar test per pair)
static int anyPositive(const mcNum* x, int n) {
  int i = 0, found = 0;
#if defined(__GNUC__)
  typedef double Pair __attribute__((vector_size(16)));
  typedef long long Mask __attribute__((vector_size(16)));
  const Pair zero = {0, 0};
  Mask count = {0, 0};            // minus the positive entries, per lane
  for (; i + 8 <= n; i += 8) {
    Pair a, b, c, e;
    memcpy(&a, x + i, sizeof(a));
    memcpy(&b, x + i + 2, sizeof(b));
    memcpy(&c, x + i + 4, sizeof(c));
    memcpy(&e, x + i + 6, sizeof(e));
    count += (a > zero) + (b > zero) + (c > zero) + (e > zero);
  }
  found = count[0] + count[1] != 0;
#endif
  for (; i < n; i++) {
    found |= x[i] > 0;
  }
  return found;
}


// is the damping implicit this step (some dof has damping or some actuator a drag slope, and
// mcDSBL_EULERDAMP is clear)? *drag: some actuator has a drag slope
static int dampedStep(const mcModel* m, const mcData* d, int* drag) {
  *drag = 0;
  if (m->opt.disableflags & mcDSBL_EULERDAMP) {
    return 0;
  }

  // dragSlope's test per actuator only when some coefficient is positive (22_humanoids: 462
  // motors, none with drag: 12 instructions an actuator through dragSlope's first test)
  int maybe = anyPositive(m->actuator_damping, 3 * m->nu);
  for (int i = 0; i < m->nu && maybe && !*drag; i++) {
    mcNum slope;
    *drag = dragSlope(m, d, i, &slope) >= 0;
  }
  for (int i = 0; i < m->nv && !*drag; i++) {
    if (m->dof_damping[i] > 0) {
      return 1;
    }
  }
  return *drag;
}


// the step on a host older than ABI 1.10 (no tree jobs): implicit joint damping if needed, then
// advance, each part over the whole model
static void stepWhole(const mcpHost* host, const mcModel* m, mcData* d, int damped) {
  int nv = m->nv;
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

  makeHD(m, d, hD);

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


//---------------------------------- the step per kinematic tree (ABI 1.10) ------------------------

// Below this many dofs the step runs in one call on the caller: a job's hand-off costs about what
// a few hundred dofs' step saves on a second thread (the step is ~50-90 instructions a dof with
// damping: humanoid100, 627 dofs, 58k a step; 22_humanoids, 594 dofs, 28k)
#define MINDOF 256

typedef struct {
  const mcpHost* host;
  const mcModel* m;
  mcData* d;
  mcNum h;                        // the timestep
  mcNum* hD;                      // implicit damping: h D (NULL: none), made by the tasks unless
  int hDmade;                     // the caller made it (actuator drag reaches any dof)
  mcNum* qacc;                    // the damped acceleration
  mcNum* H;                       // M + h D factored (the damped trees' rows) and its inverse
  mcNum* HDiagInv;                // diagonal
} TreeStep;


// the whole step of one range of trees: h D, the right-hand side, the damped solve, the warmstart,
// qvel and qpos of its dofs and joints; every entry's arithmetic is the whole-model step's, so
// any cut (and the one serial call) gives the same bits
static void treeStep(void* ctx, const mcpTreeRange* r) {
  const TreeStep* s = (const TreeStep*)ctx;
  const mcModel* m = s->m;
  mcData* d = s->d;
  mcNum h = s->h;
  int k0 = r->dof0, k1 = r->dof1;
  const mcNum* qacc = d->qacc;
  if (s->hD) {
    if (!s->hDmade) {
      for (int i = k0; i < k1; i++) {
        s->hD[i] = h * m->dof_damping[i];
      }
    }
    for (int i = k0; i < k1; i++) {
      s->qacc[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
    }
    s->host->solveMDampedRange(m, d, s->hD, s->qacc, s->H, s->HDiagInv, k0, k1);
    qacc = s->qacc;
  }
  memcpy(d->qacc_warmstart + k0, d->qacc + k0, sizeof(mcNum) * (size_t)(k1 - k0));
  for (int i = k0; i < k1; i++) {
    d->qvel[i] += h * qacc[i];
  }
  s->host->integratePosRange(m, d->qpos, d->qvel, h, r->jnt0, r->jnt1);
}


// the step as one job of tree ranges on d's pool (one call on the caller without a pool): only the
// activations (before, as advance orders them) and the time stay on the caller, and h D when an
// actuator's drag adds to it
static void stepTrees(const mcpHost* host, const mcModel* m, mcData* d, int damped, int drag) {
  int nv = m->nv;
  TreeStep s = {host, m, d, m->opt.timestep, NULL, 0, NULL, NULL, NULL};
  if (m->na) {
    host->advanceAct(m, d, d->act_dot, s.h);
  }
  if (damped) {
    host->markStack(d);
    s.H = host->stackAlloc(d, sizeof(mcNum) * (size_t)m->nM, _Alignof(mcNum));
    s.HDiagInv = host->stackAlloc(d, sizeof(mcNum) * (size_t)nv, _Alignof(mcNum));
    s.qacc = host->stackAlloc(d, sizeof(mcNum) * (size_t)nv, _Alignof(mcNum));
    s.hD = host->stackAlloc(d, sizeof(mcNum) * (size_t)nv, _Alignof(mcNum));
    if (!s.H || !s.HDiagInv || !s.qacc || !s.hD) {
      s.hD = NULL;                // stack full (already warned): explicit damping, not no step
    } else if (drag) {
      makeHD(m, d, s.hD);
      s.hDmade = 1;
    }
  }
  host->runTrees(m, d, treeStep, &s, MINDOF);
  if (damped) {
    host->freeStack(d);
  }
  d->time += s.h;
}


// the step: implicit joint damping if needed, then advance
static void eulerStep(const mcpHost* host, const mcModel* m, mcData* d) {
  int drag, damped = dampedStep(m, d, &drag);
  if (host->struct_size >= offsetof(mcpHost, integratePosRange) + sizeof(host->integratePosRange) &&
      host->runTrees && host->solveMDampedRange && host->integratePosRange) {
    stepTrees(host, m, d, damped, drag);
  } else {
    stepWhole(host, m, d, damped);
  }
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
