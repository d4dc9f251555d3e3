// Moduco core: transition matrices with the constraint solver differentiated implicitly
// (mcd_transitionImplicit; docs/derivatives.md, "Implicit gradients").
//
// One step is x+ = Phi(x, u, qfrc_constraint): the smooth dynamics give qfrc_smooth(x, u), the
// solver qfrc_constraint = S(qfrc_smooth, qvel; qpos), the integrator Phi. For a velocity,
// activation or control column the position stage is fixed, so S moves only through
// qfrc_smooth and qvel, and its derivative comes from the solver's 'derivative' entry
// (ABI 1.5): dS = Dfrc dqfrc_smooth + Dvel dqvel. The column is a centered difference of steps
// in which the solver is replaced by that linearization around the nominal solution:
//   qfrc_constraint = S0 + Dfrc (qfrc_smooth - qfrc_smooth0) + Dvel (qvel - qvel0),
//   qacc = M^-1 (qfrc_smooth + qfrc_constraint),
// and the rest (smooth forces, activation dynamics, integrator) is the real step. Position
// columns move M, J and the contact geometry: they are centered differences of the full step
// (mcd_transitionFD's, mci_transitionFDPositions).
#include <math.h>
#include <string.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "engine/derivative.h"
#include "engine/engine.h"
#include "engine/io.h"
#include "math/math.h"
#include "plugin/registry.h"

#define FULL mcSTATE_INTEGRATION
#define FN "mcd_transitionImplicit"

typedef struct {                  // the nominal point and the solver's linearization
  const mcNum* state0;            // full state (nfull)
  mcNum* state;                   // perturbed full state (nfull)
  mcNum *frc0, *cfrc0, *vel0;     // qfrc_smooth, qfrc_constraint, qvel at the nominal (nv each)
  mcNum *Dfrc, *Dvel;             // the solver's derivative (nv x nv each)
  mcNum *dq, *work;               // nv and 2 nv scratch
} Linear;


// the solver's derivative at d (after mc_forward); 0, or -1 (message printed)
static int solverDerivative(const mcModel* m, mcData* d, mcNum kappa, Linear* lin) {
  size_t n2 = (size_t)m->nv * m->nv;
  const mcpSolver* s = m->solver;
  if (d->nefc == 0 || !s) {
    mcu_zero(lin->Dfrc, (int)n2);
    mcu_zero(lin->Dvel, (int)n2);
    return 0;
  }
  if (s->hdr.abi_minor < 5 || s->hdr.struct_size < offsetof(mcpSolver, derivative) +
      sizeof(s->derivative) || !s->derivative) {
    mci_message("%s: solver '%s' has no derivative (plugin ABI 1.5 'derivative' entry)", FN,
                s->hdr.name);
    return -1;
  }
  if (s->derivative(mcp_host(), m, d, kappa, NULL, lin->Dfrc, lin->Dvel)) {
    mci_message("%s: solver '%s' could not differentiate its solution (stack full or singular "
                "system)", FN, s->hdr.name);
    return -1;
  }
  return 0;
}


// one step from column col moved by h with the linearized solver; next (qpos, qvel, act) into x;
// 1 if it failed (warning or not finite)
static int linearStep(const mcModel* m, mcData* d, const Layout* L, const Linear* lin, int col,
                      mcNum h, mcNum* x) {
  int nv = m->nv;
  memcpy(lin->state, lin->state0, sizeof(mcNum) * (size_t)L->nfull);
  if (h != 0) {
    mci_derivPerturb(m, L, lin->state, col, h, lin->dq);
  }
  mc_setState(m, d, lin->state, FULL);

  // smooth dynamics at the perturbed velocity and control (the position stage is the nominal's)
  mc_fwdVelocity(m, d);
  mc_fwdActuation(m, d);
  mc_fwdAcceleration(m, d);

  // linearized solver, then the acceleration it gives
  mcNum* df = lin->work;
  mcNum* dv = lin->work + nv;
  for (int i = 0; i < nv; i++) {
    df[i] = d->qfrc_smooth[i] - lin->frc0[i];
    dv[i] = d->qvel[i] - lin->vel0[i];
  }
  for (int i = 0; i < nv; i++) {
    d->qfrc_constraint[i] = lin->cfrc0[i] + mcu_dot(lin->Dfrc + (size_t)i * nv, df, nv) +
                            mcu_dot(lin->Dvel + (size_t)i * nv, dv, nv);
  }
  for (int i = 0; i < nv; i++) {
    df[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
  }
  mc_solveM(m, d, d->qacc, df, 1);
  if (mci_derivNotFinite(d->qacc, nv) || d->warning_stop) {
    return 1;
  }
  m->integrator->step(mcp_host(), m, d);
  memcpy(x, d->qpos, sizeof(mcNum) * (size_t)m->nq);
  memcpy(x + m->nq, d->qvel, sizeof(mcNum) * (size_t)nv);
  memcpy(x + m->nq + nv, d->act, sizeof(mcNum) * (size_t)m->na);
  return mci_derivNotFinite(x, L->nphys) || d->warning_stop;
}


// scratch of the linearization from d's stack; 0 or -1
static int allocLinear(mcData* d, const Layout* L, Linear* lin) {
  size_t nv = (size_t)L->nv;
  mcNum* buf = mcSTACKALLOC(d, 2 * (size_t)L->nfull + 2 * nv * nv + 8 * nv + 1, mcNum);
  if (!buf) {
    return -1;
  }
  lin->state0 = buf;
  lin->state = buf + L->nfull;
  lin->Dfrc = lin->state + L->nfull;
  lin->Dvel = lin->Dfrc + nv * nv;
  lin->frc0 = lin->Dvel + nv * nv;
  lin->cfrc0 = lin->frc0 + nv;
  lin->vel0 = lin->cfrc0 + nv;
  lin->dq = lin->vel0 + nv;
  lin->work = lin->dq + nv;
  return 0;
}


// the velocity, activation and control columns; the number that failed
static int implicitColumns(const mcModel* m, mcData* d, const Layout* L, const Linear* lin,
                           mcNum eps, mcNum* A, mcNum* B) {
  mcNum* x0 = mcSTACKALLOC(d, 3 * (size_t)L->nphys + L->ndx + 1, mcNum);
  if (!x0) {
    return -1;
  }
  mcNum *xp = x0 + L->nphys, *xm = xp + L->nphys, *tmp = xm + L->nphys;
  int nfailed = 0;
  int bad0 = linearStep(m, d, L, lin, 0, 0, x0);
  for (int col = L->nv; col < L->ndx + L->nu; col++) {
    if ((col < L->ndx && !A) || (col >= L->ndx && !B)) {
      continue;
    }
    Column c = mci_derivPlan(m, L, lin->state0, col, eps, 1);
    int failed = bad0;
    failed |= c.plus ? linearStep(m, d, L, lin, col, eps, xp) : (memcpy(xp, x0, sizeof(mcNum) *
                                                                        (size_t)L->nphys), 0);
    failed |= c.minus ? linearStep(m, d, L, lin, col, -eps, xm) : (memcpy(xm, x0, sizeof(mcNum) *
                                                                          (size_t)L->nphys), 0);
    mci_derivStore(m, L, col, c.scale, failed, xp, NULL, xm, NULL, A, B, NULL, NULL, tmp);
    nfailed += failed;
  }
  return nfailed;
}


int mcd_transitionImplicit(const mcModel* m, mcData* d, mcNum eps, mcNum kappa, mcNum* A,
                           mcNum* B) {
  if (mci_derivCheck(FN, m, d, eps)) {
    return -1;
  }
  if (!(kappa >= 0) || !isfinite(kappa)) {
    mci_message("%s: kappa must be zero or positive and finite (got %g)", FN, (double)kappa);
    return -1;
  }
  if (!mci_derivReuses(m) || !m->integrator || !m->integrator->step) {
    mci_message("%s: needs a single-stage integrator (Euler, implicit, implicitfast)", FN);
    return -1;
  }

  // the position columns by centered differences of the full step
  int nfd = A ? mci_transitionFDPositions(m, d, eps, A) : 0;
  if (nfd < 0 || (!A && !B)) {
    return nfd;
  }

  Layout L;
  mci_derivLayout(m, &L);
  mc_markStack(d);
  Linear lin;
  if (allocLinear(d, &L, &lin)) {
    mc_freeStack(d);
    mci_message("%s: stack full; increase <size memory>", FN);
    return -1;
  }
  mc_getState(m, d, (mcNum*)lin.state0, FULL);

  // the nominal forward dynamics and the solver's derivative there
  mc_forward(m, d);
  int nv = m->nv, rc = 0;
  memcpy(lin.frc0, d->qfrc_smooth, sizeof(mcNum) * (size_t)nv);
  memcpy(lin.cfrc0, d->qfrc_constraint, sizeof(mcNum) * (size_t)nv);
  memcpy(lin.vel0, d->qvel, sizeof(mcNum) * (size_t)nv);
  if (d->warning_stop || mci_derivNotFinite(d->qacc, nv) || solverDerivative(m, d, kappa, &lin)) {
    rc = -1;
  } else {
    int nfailed = implicitColumns(m, d, &L, &lin, eps, A, B);
    if (nfailed < 0) {
      mci_message("%s: stack full; increase <size memory>", FN);
      rc = -1;
    } else {
      mci_derivReport(FN, nfailed);
      rc = nfd + nfailed;
    }
  }

  // restore the caller's state
  mc_setState(m, d, lin.state0, FULL);
  mc_freeStack(d);
  return rc;
}
