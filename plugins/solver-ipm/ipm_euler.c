// Moduco plugin "ipm-euler": the integrator paired with the hard-contact solver ipm
// (<option solver="ipm" integrator="ipm-euler"/>).
//
// The step is semi-implicit Euler as ipm's problem assumes it (ipm.h): with Me = M + h D
// (D = diag(dof_damping), unless mcDSBL_EULERDAMP), v+ = v + h Me^-1 (qfrc_smooth +
// qfrc_constraint), q+ = q (+) h v+, act and time advanced as by "euler". ipm makes the gaps
// non-negative to first order, pos + h J v+ >= 0; a body that rotates moves its contact point on an
// arc and can still end the step slightly inside (of order h^2 |w|^2 r). So the step then checks
// the configuration it produced: the position stage at q+ (host->fwdPosition: collision and rows
// at q+), and while a contact distance or limit is below -position_tol, the projection of
// ipm_project.c (smallest M-norm dq with pos + J dq >= 0, equalities kept) moves q+ by dq, at most
// max_project times. Velocities stay v+. Afterwards the position stage runs again at the
// start-of-step q and the solver's efc results are put back, so after mc_step the data hold what
// "euler" leaves (derived quantities of the state the step started from). All scratch is on the
// host stack; the work per step is bounded (1 + max_project position stages, one more to restore).
// Without host->fwdPosition (an older core) the step is plain Euler.
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "ipm.h"

static const mcpConfigKey g_keys[] = {
  {"max_project", mcpCONFIG_INT, 1, "4", 0, 100, NULL,
   "position projections per step at most (0: no end-of-step check)"},
  {"position_tol", mcpCONFIG_REAL, 1, "1e-9", 0, 1, NULL,
   "penetration (m, rad for limits) accepted at the end of the step without projection"},
};

// warning: penetration beyond position_tol left after max_project projections (info: nm)
static const char* const g_warnings[] = {"penetration_left", NULL};

static const mcpPluginExt g_ext = {
  (int)(sizeof(g_keys) / sizeof(g_keys[0])), g_keys, NULL, NULL, g_warnings,
};

static void ipmEulerStep(const mcpHost* host, const mcModel* m, mcData* d);

const mcpIntegrator ipm_eulerIntegrator = {
  .hdr = MCP_HEADER(mcpKIND_INTEGRATOR, mcpIntegrator, "ipm-euler", "0.1.0",
                    "semi-implicit Euler for ipm: end-of-step collision check and projection",
                    -1),
  .step = ipmEulerStep,
  .ext = &g_ext,
};

// complementarity of the projection's starting point: its corrections are nanometres to
// micrometres, so it starts near them rather than at the step's kappa_init (100): 5.6 instead of
// 12.1 iterations per projection on the humanoid (docs/dojo.md, Cost)
#define IPM_PROJECT_KAPPA0 1e-4

// the efc results of the solve that the position stage does not recompute
#define NKEEP 4


static mcNum keyValue(const mcpHost* host, const mcModel* m, int inst, int k) {
  int n = 0;
  const mcNum* v = inst >= 0 && host->config ? host->config(m, inst, g_keys[k].name, &n) : NULL;
  return v && n >= 1 ? v[0] : strtod(g_keys[k].def, NULL);
}


// v+ = v + h Me^-1 (qfrc_smooth + qfrc_constraint), act and time (explicit damping, d->qacc,
// if the stack is full)
static void advanceVelocity(const mcpHost* host, const mcModel* m, mcData* d) {
  int nv = m->nv;
  mcNum h = m->opt.timestep;
  int damped = 0;
  for (int i = 0; i < nv && !(m->opt.disableflags & mcDSBL_EULERDAMP); i++) {
    damped |= m->dof_damping[i] > 0;
  }
  const mcNum* acc = d->qacc;
  if (damped) {
    mcNum* H = host->stackAlloc(d, sizeof(mcNum) * (size_t)m->nM, _Alignof(mcNum));
    mcNum* Hdi = host->stackAlloc(d, sizeof(mcNum) * (size_t)nv, _Alignof(mcNum));
    mcNum* a = host->stackAlloc(d, sizeof(mcNum) * (size_t)nv, _Alignof(mcNum));
    if (H && Hdi && a) {
      memcpy(H, d->qM, sizeof(mcNum) * (size_t)m->nM);
      for (int i = 0; i < nv; i++) {
        H[m->dof_Madr[i]] += h * m->dof_damping[i];
        a[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
      }
      host->factorI(m, H, H, Hdi);
      host->solveLD(m, a, 1, H, Hdi);
      acc = a;
    }
  }
  memcpy(d->qacc_warmstart, d->qacc, sizeof(mcNum) * (size_t)nv);
  if (m->na) {
    host->advanceAct(m, d, d->act_dot, h);
  }
  for (int i = 0; i < nv; i++) {
    d->qvel[i] += h * acc[i];
  }
  d->time += h;
}


// deepest penetration of the rows d holds: contact distances and limit positions (>= 0: none)
static mcNum worstGap(const mcData* d) {
  mcNum worst = 0;
  for (int i = 0; i < d->nefc; i++) {
    int t = d->efc_type[i];
    if (t >= mcCNSTR_CONTACT_FRICTIONLESS) {
      worst = fmin(worst, d->contact[d->efc_id[i]].dist);
    } else if (t == mcCNSTR_LIMIT_JOINT || t == mcCNSTR_LIMIT_TENDON) {
      worst = fmin(worst, d->efc_pos[i]);
    }
  }
  return worst;
}


// check q+ and project it, keeping a projection only while it makes the deepest penetration
// smaller (a projection from a deep violation, a contact that the step's rows did not hold, can
// overshoot: without a limit margin it turns joints past limits it does not see; a halved step
// was tried and diverged on the hopper); qprev (nq) is scratch; return the deepest penetration
// left (0: none)
static mcNum checkAndProject(const mcpHost* host, const mcModel* m, mcData* d, int inst,
                             mcNum* dq, mcNum* qprev) {
  int maxproj = (int)keyValue(host, m, inst, 0);
  mcNum tol = keyValue(host, m, inst, 1);
  ipmParam prm = {.kappa_tol = 1e-8, .residual_tol = 1e-10, .kappa_init = IPM_PROJECT_KAPPA0,
                  .max_iter = 100};
  mcNum best = 0;
  for (int k = 0;; k++) {
    host->fwdPosition(m, d);
    mcNum worst = worstGap(d);
    if (k > 0 && !(worst > best)) {  // no better: back to the previous configuration
      memcpy(d->qpos, qprev, sizeof(mcNum) * (size_t)m->nq);
      return best;
    }
    best = worst;
    mcNum rv, kv;
    if (worst >= -tol || k >= maxproj || ipm_project(host, m, d, &prm, dq, &rv, &kv) < 0) {
      return worst;
    }
    memcpy(qprev, d->qpos, sizeof(mcNum) * (size_t)m->nq);
    host->integratePos(m, d->qpos, dq, 1);
  }
}


static void ipmEulerStep(const mcpHost* host, const mcModel* m, mcData* d) {
  int nv = m->nv, nq = m->nq, nefc = d->nefc;
  int check = host->struct_size >= offsetof(mcpHost, fwdPosition) + sizeof(host->fwdPosition) &&
              host->fwdPosition;
  int inst = host->instance ? host->instance(m, &ipm_eulerIntegrator.hdr) : -1;
  check = check && keyValue(host, m, inst, 0) > 0;
  host->markStack(d);

  // what the step starts from: q, and the solve's efc results
  mcNum* q0 = host->stackAlloc(d, sizeof(mcNum) * (size_t)nq, _Alignof(mcNum));
  mcNum* q1 = host->stackAlloc(d, sizeof(mcNum) * (size_t)nq, _Alignof(mcNum));
  mcNum* dq = host->stackAlloc(d, sizeof(mcNum) * (size_t)(nv > 0 ? nv : 1), _Alignof(mcNum));
  mcNum* keep = host->stackAlloc(d, sizeof(mcNum) * (size_t)(NKEEP * nefc + 1), _Alignof(mcNum));
  int* state = host->stackAlloc(d, sizeof(int) * (size_t)(nefc + 1), _Alignof(int));
  mcNum* const efc[NKEEP] = {d->efc_vel, d->efc_aref, d->efc_b, d->efc_force};
  check = check && q0 && q1 && dq && keep && state;
  if (check) {
    memcpy(q0, d->qpos, sizeof(mcNum) * (size_t)nq);
  }
  if (check && nefc > 0) {
    for (int k = 0; k < NKEEP; k++) {
      memcpy(keep + (size_t)k * nefc, efc[k], sizeof(mcNum) * (size_t)nefc);
    }
    memcpy(state, d->efc_state, sizeof(int) * (size_t)nefc);
  }

  // Euler: velocities, then positions with them
  advanceVelocity(host, m, d);
  host->integratePos(m, d->qpos, d->qvel, m->opt.timestep);

  // the end-of-step configuration: check, project; then the start's position stage again
  if (check) {
    mcNum worst = checkAndProject(host, m, d, inst, dq, q1);
    if (worst < -keyValue(host, m, inst, 1) && inst >= 0 && host->pluginWarning) {
      host->pluginWarning(m, d, inst, 0, (int)fmin(-worst * 1e9, 2e9));
    }
    memcpy(q1, d->qpos, sizeof(mcNum) * (size_t)nq);
    memcpy(d->qpos, q0, sizeof(mcNum) * (size_t)nq);
    host->fwdPosition(m, d);
    memcpy(d->qpos, q1, sizeof(mcNum) * (size_t)nq);
    if (nefc > 0 && d->nefc == nefc) {
      mcNum* const now[NKEEP] = {d->efc_vel, d->efc_aref, d->efc_b, d->efc_force};
      for (int k = 0; k < NKEEP; k++) {
        memcpy(now[k], keep + (size_t)k * nefc, sizeof(mcNum) * (size_t)nefc);
      }
      memcpy(d->efc_state, state, sizeof(int) * (size_t)nefc);
    }
  }
  host->freeStack(d);
}
