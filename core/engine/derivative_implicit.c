// Moduco core: transition matrices with the constraint solver differentiated implicitly
// (mcd_transitionImplicit, mcd_transitionImplicitEx, mcd_transitionImplicitPool;
// docs/derivatives.md, "Implicit gradients").
//
// One step is x+ = Phi(x, u, qfrc_constraint): the smooth dynamics give qfrc_smooth(x, u), the
// solver qfrc_constraint = S(qfrc_smooth, qvel; qpos), the integrator Phi. Every column is a
// centered difference of steps in which S is the relaxed solution at kappa (the solver's
// 'derivative' entry, ABI 1.5: ipm's central point at kappa and its tangent):
//  * velocity, activation and control columns keep the position stage, so S moves only through
//    qfrc_smooth and qvel, and is replaced by the entry's linearization at the nominal point:
//      qfrc_constraint = S0 + Dfrc (qfrc_smooth - qfrc_smooth0) + Dvel (qvel - qvel0);
//  * position columns move M, J and the contact geometry, which the linearization does not
//    cover: the full forward dynamics run at the perturbed qpos and the entry's relaxed solution
//    there (its frc output) replaces the solver's own one ("relaxed steps").
// Then qacc = M^-1 (qfrc_smooth + qfrc_constraint) and the integrator plugin steps.
//
// Sensors (C, D) are those of the evaluated steps: the velocity stage at the perturbed state,
// the acceleration stage from the relaxed or linearized qacc. A sensor that reads per-row
// constraint forces (efc_force: touch, force, torque, ...) cannot be smoothed, since the entry
// gives only J' dF: such sensors are found by a probe at the nominal point (moving efc_force
// changes them) and take their values from the hard forward dynamics at the same perturbed
// input, i.e. their rows are the centered differences of mcd_transitionFD.
//
// Columns are numbered as in derivative_fd.c and run in the order velocity-stage columns
// (controls, activations, velocities) first, positions last, each column computed by one
// evaluator from its data after one nominal mc_forward. The pool hands columns to threads in
// that order, and every thread's data is reset and brought to the nominal point the same way
// as the serial evaluator's, so the result is bitwise the serial one for any thread count.
#include <math.h>
#include <string.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "engine/derivative.h"
#include "engine/engine.h"
#include "engine/io.h"
#include "engine/rollout.h"
#include "engine/sensor.h"
#include "math/math.h"
#include "plugin/registry.h"

#define FULL mcSTATE_INTEGRATION
#define FN "mcd_transitionImplicit"

typedef struct {                  // what every column of one call shares (read only in columns)
  const Layout* L;
  const mcNum* state0;            // nominal full state (nfull)
  const mcNum *frc0, *cfrc0, *vel0; // qfrc_smooth, relaxed qfrc_constraint, qvel at the nominal
  const mcNum *Dfrc, *Dvel;       // the solver's derivative at the nominal (nv x nv each)
  const unsigned char* hard;      // per sensor row: 1 if it reads efc_force (NULL: none)
  const int* cols;                // column of each item
  mcNum eps, kappa;
  int sensors;                    // C or D asked (and the model has sensor data)
  mcNum *A, *B, *C, *D;
  const mcModel* m;               // (pool) the model
  void* pool;                     // (pool) the evaluators, one per thread
} Shared;

typedef struct {                  // scratch of one evaluator: the serial call, or one pool thread
  mcNum* state;                   // perturbed full state (nfull)
  mcNum *xp, *xm, *sp, *sm;       // physics (nphys) and sensors (ns) of the two sides
  mcNum *dq, *work, *tmp, *shard; // nv, 2 nv, ndx, ns scratch
  int ready;                      // d holds the nominal position stage
  int started;                    // (pool) the thread's data was reset in this call
  int nfailed;
} Evaluator;


//---------------------------------- the solver's relaxed solution ---------------------------------

// 1 if the solver has the ABI 1.5 derivative entry
static int hasDerivative(const mcpSolver* s) {
  return s && s->hdr.abi_minor >= 5 &&
         s->hdr.struct_size >= offsetof(mcpSolver, derivative) + sizeof(s->derivative) &&
         s->derivative;
}


// the relaxed solution frc (nv; NULL: not asked) and its derivative (Dfrc, Dvel; NULL: not asked)
// at d after mc_forward; without constraint rows all are zero. 0, or -1 (message printed when
// verbose)
static int relaxed(const mcModel* m, mcData* d, mcNum kappa, mcNum* frc, mcNum* Dfrc,
                   mcNum* Dvel, int verbose) {
  int nv = m->nv;
  const mcpSolver* s = m->solver;
  if (d->nefc == 0 || !s) {
    if (frc) {
      mcu_zero(frc, nv);
    }
    if (Dfrc) {
      mcu_zero(Dfrc, nv * nv);
      mcu_zero(Dvel, nv * nv);
    }
    return 0;
  }
  if (!hasDerivative(s)) {
    if (verbose) {
      mci_message("%s: solver '%s' has no derivative (plugin ABI 1.5 'derivative' entry)", FN,
                  s->hdr.name);
    }
    return -1;
  }
  if (s->derivative(mcp_host(), m, d, kappa, frc, Dfrc, Dvel)) {
    if (verbose) {
      mci_message("%s: solver '%s' could not differentiate its solution (stack full or "
                  "singular system)", FN, s->hdr.name);
    }
    return -1;
  }
  return 0;
}


//---------------------------------- one evaluation ------------------------------------------------

// after the forward dynamics with the given qfrc_constraint in d: qacc, the acceleration-stage
// sensors (rows reading efc_force from the hard evaluation saved in shard), the integrator; next
// physics state into x, sensors into sens; 1 if not finite
static int finishStep(const mcModel* m, mcData* d, const Shared* sh, Evaluator* e, mcNum* x,
                      mcNum* sens) {
  const Layout* L = sh->L;
  int nv = L->nv;
  for (int i = 0; i < nv; i++) {
    e->work[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
  }
  mc_solveM(m, d, d->qacc, e->work, 1);
  if (mci_derivBadState(d, d->qacc, nv, mcWARN_BADQACC) || d->warning_stop) {
    return 1;
  }
  if (sh->sensors) {
    mc_sensorStage(m, d, mcSTAGE_ACC);
    for (int r = 0; r < L->ns; r++) {
      sens[r] = sh->hard && sh->hard[r] ? e->shard[r] : d->sensordata[r];
    }
  }
  m->integrator->step(mcp_host(), m, d);
  mc_getState(m, d, x, mcSTATE_PHYSICS);
  return mci_derivNotFinite(x, L->nphys) || (sh->sensors && mci_derivNotFinite(sens, L->ns)) ||
         d->warning_stop;
}


// a velocity-stage column (control, activation, velocity) moved by h: the smooth dynamics at the
// perturbed input on the nominal position stage, the linearized solver. With efc_force-reading
// sensors the hard forward dynamics run first (the same position stage: qpos is the nominal's)
static int linearStep(const mcModel* m, mcData* d, const Shared* sh, Evaluator* e, int col,
                      mcNum h, mcNum* x, mcNum* sens) {
  const Layout* L = sh->L;
  int nv = L->nv;
  mcu_copy(e->state, sh->state0, L->nfull);
  if (h != 0) {
    mci_derivPerturb(m, L, e->state, col, h, e->dq);
  }
  mc_setState(m, d, e->state, FULL);
  int w0 = mci_derivWarnings(d);
  if (mci_derivBadState(d, d->qvel, nv, mcWARN_BADQVEL)) {
    return 1;
  }
  if (sh->sensors && sh->hard) {
    mc_forward(m, d);
    mcu_copy(e->shard, d->sensordata, L->ns);
  } else {
    mc_fwdVelocity(m, d);
    if (sh->sensors) {
      mc_sensorStage(m, d, mcSTAGE_VEL);
    }
    mc_fwdActuation(m, d);
    mc_fwdAcceleration(m, d);
  }

  // the linearized solver
  mcNum* df = e->work;
  mcNum* dv = e->work + nv;
  for (int i = 0; i < nv; i++) {
    df[i] = d->qfrc_smooth[i] - sh->frc0[i];
    dv[i] = d->qvel[i] - sh->vel0[i];
  }
  for (int i = 0; i < nv; i++) {
    d->qfrc_constraint[i] = sh->cfrc0[i] + mcu_dot(sh->Dfrc + (size_t)i * nv, df, nv) +
                            mcu_dot(sh->Dvel + (size_t)i * nv, dv, nv);
  }
  return finishStep(m, d, sh, e, x, sens) || mci_derivWarnings(d) > w0;
}


// a position column moved by h: the full forward dynamics at the perturbed qpos with the
// solver's solution replaced by the relaxed one (the solver's own if it has no derivative and
// constraint rows appear here, which cannot happen at the nominal point: it was refused there)
static int relaxedStep(const mcModel* m, mcData* d, const Shared* sh, Evaluator* e, int col,
                       mcNum h, mcNum* x, mcNum* sens) {
  const Layout* L = sh->L;
  mcu_copy(e->state, sh->state0, L->nfull);
  mci_derivPerturb(m, L, e->state, col, h, e->dq);
  mc_setState(m, d, e->state, FULL);
  if (mci_derivBadState(d, d->qpos, L->nq, mcWARN_BADQPOS) ||
      mci_derivBadState(d, d->qvel, L->nv, mcWARN_BADQVEL)) {
    return 1;
  }
  int w0 = mci_derivWarnings(d);
  mc_forward(m, d);
  if (sh->sensors) {
    mcu_copy(e->shard, d->sensordata, L->ns);
  }
  if (hasDerivative(m->solver) || d->nefc == 0) {
    if (relaxed(m, d, sh->kappa, e->work, NULL, NULL, 0)) {
      return 1;
    }
    mcu_copy(d->qfrc_constraint, e->work, L->nv);
  }
  return finishStep(m, d, sh, e, x, sens) || mci_derivWarnings(d) > w0;
}


// the nominal point in the evaluator's data: the caller's state, one mc_forward (the position
// stage the velocity-stage columns reuse)
static void nominal(const mcModel* m, mcData* d, const Shared* sh, Evaluator* e) {
  mc_setState(m, d, sh->state0, FULL);
  mc_forward(m, d);
  e->ready = 1;
}


// column col into the outputs (both sides, centered; a limited control at its bound one-sided)
static void runColumn(const mcModel* m, mcData* d, const Shared* sh, Evaluator* e, int col) {
  const Layout* L = sh->L;
  int pos = col < L->nv;
  if (!pos && !e->ready) {
    nominal(m, d, sh, e);
  }
  Column c = mci_derivPlan(m, L, sh->state0, col, sh->eps, 1);
  int bad = 0;
  for (int side = 0; side < 2; side++) {
    mcNum h = side ? (c.minus ? -sh->eps : 0) : (c.plus ? sh->eps : 0);
    mcNum* x = side ? e->xm : e->xp;
    mcNum* s = side ? e->sm : e->sp;
    bad |= pos ? relaxedStep(m, d, sh, e, col, h, x, s) : linearStep(m, d, sh, e, col, h, x, s);
  }
  e->ready = e->ready && !pos;
  e->nfailed += bad;
  mci_derivStore(m, L, col, c.scale, bad, e->xp, e->sp, e->xm, e->sm, sh->A, sh->B,
                 sh->sensors ? sh->C : NULL, sh->sensors ? sh->D : NULL, e->tmp);
}


//---------------------------------- the call ------------------------------------------------------

// scratch of an evaluator from d's stack; 0 or -1
static int allocEvaluator(mcData* d, const Layout* L, Evaluator* e) {
  size_t nx = (size_t)L->nphys, ns = (size_t)L->ns, nv = (size_t)L->nv;
  mcNum* buf = mcSTACKALLOC(d, (size_t)L->nfull + 2 * (nx + ns) + 3 * nv + L->ndx + ns + 1,
                            mcNum);
  if (!buf) {
    return -1;
  }
  memset(e, 0, sizeof(*e));
  e->state = buf;
  e->xp = buf + L->nfull;
  e->xm = e->xp + nx;
  e->sp = e->xm + nx;
  e->sm = e->sp + ns;
  e->dq = e->sm + ns;
  e->work = e->dq + nv;
  e->tmp = e->work + 2 * nv;
  e->shard = e->tmp + L->ndx;
  return 0;
}


// sensor rows whose acceleration-stage value moves with efc_force at d (after mc_forward): hard
// (ns) set, sensordata left as it was; the number found
static int probeHardSensors(const mcModel* m, mcData* d, unsigned char* hard, mcNum* s0,
                            mcNum* save) {
  int ns = m->nsensordata, nefc = d->nefc, n = 0;
  memset(hard, 0, (size_t)ns);
  if (!nefc) {
    return 0;
  }
  mcu_copy(s0, d->sensordata, ns);
  mcu_copy(save, d->efc_force, nefc);
  for (int i = 0; i < nefc; i++) {
    d->efc_force[i] += 1 + 0.25 * (i % 5);
  }
  mc_sensorStage(m, d, mcSTAGE_ACC);
  for (int i = 0; i < m->nsensor; i++) {
    int adr = m->sensor_adr[i], dim = m->sensor_dim[i], moved = 0;
    for (int k = 0; k < dim; k++) {
      moved |= d->sensordata[adr + k] != s0[adr + k];
    }
    if (moved) {
      memset(hard + adr, 1, (size_t)dim);
      n++;
    }
  }
  mcu_copy(d->efc_force, save, nefc);
  mcu_copy(d->sensordata, s0, ns);
  return n;
}


typedef struct {                  // the nominal point's shared arrays (from the caller's stack)
  mcNum *state0, *frc0, *cfrc0, *vel0, *Dfrc, *Dvel;
  unsigned char* hard;
  int* cols;
} Nominal;


// scratch of the nominal point; 0 or -1
static int allocNominal(mcData* d, const Layout* L, Nominal* n) {
  size_t nv = (size_t)L->nv, ns = (size_t)L->ns;
  mcNum* buf = mcSTACKALLOC(d, (size_t)L->nfull + 4 * nv + 2 * nv * nv + 1 + ns, mcNum);
  n->hard = mcSTACKALLOC(d, ns + 1, unsigned char);
  n->cols = mcSTACKALLOC(d, (size_t)L->ndx + L->nu + 1, int);
  if (!buf || !n->hard || !n->cols) {
    return -1;
  }
  n->state0 = buf;
  n->frc0 = buf + L->nfull;
  n->cfrc0 = n->frc0 + nv;
  n->vel0 = n->cfrc0 + nv;
  n->Dfrc = n->vel0 + nv;
  n->Dvel = n->Dfrc + nv * nv;
  return 0;
}


// the nominal point at d's state: forward dynamics, the relaxed solution and its derivative, the
// efc_force-reading sensors, the column order (velocity-stage columns, then positions). Fills sh;
// the number of columns, or -1 (message printed)
static int prepare(const mcModel* m, mcData* d, const Layout* L, Nominal* n, mcNum eps,
                   mcNum kappa, mcNum* A, mcNum* B, mcNum* C, mcNum* D, Shared* sh) {
  int nv = L->nv, ndx = L->ndx;
  mc_getState(m, d, n->state0, FULL);
  mc_forward(m, d);
  if (d->warning_stop || mci_derivNotFinite(d->qacc, nv)) {
    mci_message("%s: the forward dynamics at the given state are not finite", FN);
    return -1;
  }
  mcu_copy(n->frc0, d->qfrc_smooth, nv);
  mcu_copy(n->vel0, d->qvel, nv);
  if (relaxed(m, d, kappa, n->cfrc0, n->Dfrc, n->Dvel, 1)) {
    return -1;
  }
  int sensors = (C || D) && L->ns > 0, nhard = 0;
  if (sensors) {
    mcNum* scratch = mcSTACKALLOC(d, (size_t)L->ns + d->nefc + 1, mcNum);
    if (!scratch) {
      mci_message("%s: stack full; increase <size memory>", FN);
      return -1;
    }
    nhard = probeHardSensors(m, d, n->hard, scratch, scratch + L->ns);
  }
  *sh = (Shared){L, n->state0, n->frc0, n->cfrc0, n->vel0, n->Dfrc, n->Dvel,
                 nhard ? n->hard : NULL, n->cols, eps, kappa, sensors, A, B, C, D};
  int ncol = 0;
  for (int col = nv; col < ndx + L->nu; col++) {
    if ((col < ndx && (A || C)) || (col >= ndx && (B || D))) {
      n->cols[ncol++] = col;
    }
  }
  for (int col = 0; col < nv && (A || C); col++) {
    n->cols[ncol++] = col;
  }
  return ncol;
}


// checks shared by the serial and pool calls; 0 or -1 (message printed)
static int checkArgs(const mcModel* m, mcData* d, mcNum eps, mcNum kappa) {
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
  return 0;
}


// one column on a pool thread: the thread's data is reset once per call, then runs its columns
// in increasing order as the serial loop does
static void poolColumn(void* arg, mcData* d, int thread, int item) {
  const Shared* sh = arg;
  Evaluator* e = (Evaluator*)sh->pool + thread;
  if (!e->started) {
    mc_resetData(sh->m, d);
    e->started = 1;
  }
  runColumn(sh->m, d, sh, e, sh->cols[item]);
}


// the serial call (pool NULL) or the pool's
static int transitionImplicit(mcRolloutPool* pool, const mcModel* m, mcData* d, mcNum eps,
                              mcNum kappa, mcNum* A, mcNum* B, mcNum* C, mcNum* D) {
  if (checkArgs(m, d, eps, kappa)) {
    return -1;
  }
  if (pool) {
    mcData* d0 = mc_rolloutData(pool, 0);
    if (!d0 || d0->model_signature != d->model_signature) {
      mci_message("%s: the pool is NULL or was made for another model", FN);
      return -1;
    }
  }
  if (!A && !B && !C && !D) {
    return 0;
  }
  Layout L;
  mci_derivLayout(m, &L);
  int nthread = pool ? mc_rolloutThreads(pool) : 1;

  // scratch: the nominal point, one evaluator per thread
  mc_markStack(d);
  Nominal n;
  Evaluator* e = mcSTACKALLOC(d, nthread, Evaluator);
  int ok = e && !allocNominal(d, &L, &n);
  for (int i = 0; ok && i < nthread; i++) {
    ok = !allocEvaluator(d, &L, e + i);
  }
  if (!ok) {
    mc_freeStack(d);
    mci_message("%s: stack full; increase <size memory>", FN);
    return -1;
  }

  // the nominal point, then the columns
  Shared sh;
  int ncol = prepare(m, d, &L, &n, eps, kappa, A, B, C, D, &sh), rc = 0;
  if (ncol >= 0 && pool) {
    sh.m = m;
    sh.pool = e;
    rc = mci_rolloutTasks(pool, ncol, poolColumn, &sh);
  } else {
    for (int k = 0; k < ncol; k++) {
      runColumn(m, d, &sh, e, n.cols[k]);
    }
  }
  int nfailed = 0;
  for (int i = 0; i < nthread; i++) {
    nfailed += e[i].nfailed;
  }

  // restore the caller's state
  mc_setState(m, d, n.state0, FULL);
  mc_freeStack(d);
  if (rc) {
    mci_message("%s: the pool takes fewer items than a call needs (create it with nbatch >= "
                "mcd_transitionFDItems(m, 0))", FN);
    return -1;
  }
  if (ncol < 0) {
    return -1;
  }
  mci_derivReport(FN, nfailed);
  return nfailed;
}


int mcd_transitionImplicitEx(const mcModel* m, mcData* d, mcNum eps, mcNum kappa, mcNum* A,
                             mcNum* B, mcNum* C, mcNum* D) {
  return transitionImplicit(NULL, m, d, eps, kappa, A, B, C, D);
}


int mcd_transitionImplicit(const mcModel* m, mcData* d, mcNum eps, mcNum kappa, mcNum* A,
                           mcNum* B) {
  return transitionImplicit(NULL, m, d, eps, kappa, A, B, NULL, NULL);
}


int mcd_transitionImplicitPool(mcRolloutPool* pool, const mcModel* m, mcData* d, mcNum eps,
                               mcNum kappa, mcNum* A, mcNum* B, mcNum* C, mcNum* D) {
  if (!pool) {
    mci_message("%s: the pool is NULL", FN);
    return -1;
  }
  return transitionImplicit(pool, m, d, eps, kappa, A, B, C, D);
}
