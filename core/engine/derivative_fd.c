// Moduco core: finite-difference derivatives (mcd_transitionFD, mcd_transitionFDPool,
// mcd_inverseFD). Definitions and the differences from MuJoCo: docs/derivatives.md.
//
// The input of a step is x = (dqpos, qvel, act) with qpos perturbed in the tangent space (a free
// or ball joint's quaternion moves by exp(eps e_i / 2) on the body side, as mc_integratePos does),
// and u = ctrl. Every evaluation starts from the full integration state of the caller
// (mcSTATE_INTEGRATION: time, physics, warmstart, user inputs, plugin state), so any plugin state
// is held fixed and a column depends only on its perturbation. The solver's warmstart is the
// caller's for the nominal step; under Newton the columns start from the nominal solve's result
// (the same for every column: see nominal).
//
// Columns are numbered 0 .. ndx-1 for x and ndx .. ndx+nu-1 for u. A column is (hi - lo) / h with
// hi and lo the outputs at the plus and minus perturbations (or the nominal one), h their
// distance; positions are differenced on the manifold (the tangent vector from lo to hi).
//
// The serial version reuses stages: perturbing ctrl or act recomputes from the actuation stage,
// perturbing qvel from the velocity stage, as MuJoCo does. This is valid only when the integrator
// leaves the position and velocity stages of the step's start in d: the built-in single-stage
// schemes (Euler, implicit, implicitfast) do; RK4 and third-party integrators (which may call
// forward at other states) are evaluated without reuse. Reuse changes no bit of the result.
//
// The pool version hands the columns, in the same order, to the pool's threads one at a time. A
// thread resets its data once per call, runs the nominal step, then its columns as the serial
// loop does (the items it takes come in increasing order, so its reused stages are the nominal's):
// every column is computed from the same inputs and stages as in the serial version, so the
// result is bitwise the serial one for any thread count.
//
// An evaluation that raises a warning (divergence, auto-reset, full arena, ...) or gives a
// non-finite output makes its column zero; the functions return how many columns failed.
#include <math.h>
#include <string.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "engine/derivative.h"
#include "engine/engine.h"
#include "engine/io.h"
#include "engine/plugin_check.h"
#include "engine/rollout.h"
#include "engine/sensor.h"
#include "math/math.h"
#include "plugin/registry.h"

#define FULL mcSTATE_INTEGRATION


//---------------------------------- layout and columns --------------------------------------------

void mci_derivLayout(const mcModel* m, Layout* L) {
  L->nq = m->nq;
  L->nv = m->nv;
  L->na = m->na;
  L->nu = m->nu;
  L->ns = m->nsensordata;
  L->ndx = 2 * m->nv + m->na;
  L->nfull = mc_stateSize(m, FULL);
  L->oqpos = mc_stateSize(m, FULL & (mcSTATE_QPOS - 1));
  L->octrl = mc_stateSize(m, FULL & (mcSTATE_CTRL - 1));
  L->nphys = m->nq + m->nv + m->na;
}


// plan column col: centered needs both sides; a limited control only moves inside its range
Column mci_derivPlan(const mcModel* m, const Layout* L, const mcNum* state, int col,
                         mcNum eps, int centered) {
  int canPlus = 1, canMinus = 1;
  if (col >= L->ndx) {
    int i = col - L->ndx;
    if (m->actuator_ctrllimited[i] && !(m->opt.disableflags & mcDSBL_CLAMPCTRL)) {
      mcNum u = state[L->octrl + i];
      canPlus = u + eps <= m->actuator_ctrlrange[2 * i + 1];
      canMinus = u - eps >= m->actuator_ctrlrange[2 * i];
    }
  }
  Column c = {1, 0, 0};
  if (centered && canPlus && canMinus) {
    c.minus = 1;
  } else if (!canPlus && canMinus) {
    c.plus = 0;
    c.minus = 1;
  }
  c.scale = 1 / (eps * (c.plus + c.minus));
  return c;
}


// move column col of a full state by h (dq: nv scratch)
void mci_derivPerturb(const mcModel* m, const Layout* L, mcNum* state, int col, mcNum h,
                    mcNum* dq) {
  mcNum* qpos = state + L->oqpos;
  if (col < L->nv) {
    mcu_zero(dq, L->nv);
    dq[col] = 1;
    mc_integratePos(m, qpos, dq, h);
  } else if (col < L->ndx) {
    qpos[L->nq + col - L->nv] += h;           // qvel, then act, follow qpos
  } else {
    state[L->octrl + col - L->ndx] += h;
  }
}


// tangent vector v (nv) with qpos0 (+) v = qpos1
static void differencePos(const mcModel* m, mcNum* v, const mcNum* qpos0, const mcNum* qpos1) {
  for (int j = 0; j < m->njnt; j++) {
    int padr = m->jnt_qposadr[j], vadr = m->jnt_dofadr[j];
    switch (m->jnt_type[j]) {
    case mcJNT_FREE:
      for (int c = 0; c < 3; c++) {
        v[vadr + c] = qpos1[padr + c] - qpos0[padr + c];
      }
      mcu_subQuat(v + vadr + 3, qpos1 + padr + 3, qpos0 + padr + 3);
      break;
    case mcJNT_BALL:
      mcu_subQuat(v + vadr, qpos1 + padr, qpos0 + padr);
      break;
    default:
      v[vadr] = qpos1[padr] - qpos0[padr];
      break;
    }
  }
}


// write column col of A/B (state part) and C/D (sensor part) from the outputs hi and lo (physics
// state qpos, qvel, act; sensors); a failed column is zeroed; tmp: ndx scratch
void mci_derivStore(const mcModel* m, const Layout* L, int col, mcNum scale, int failed,
                        const mcNum* xhi, const mcNum* shi, const mcNum* xlo, const mcNum* slo,
                        mcNum* A, mcNum* B, mcNum* C, mcNum* D, mcNum* tmp) {
  int ndx = L->ndx, isx = col < ndx;
  int c = isx ? col : col - ndx, ncol = isx ? ndx : L->nu;
  mcNum* X = isx ? A : B;
  mcNum* S = isx ? C : D;

  // next state: positions on the manifold, then velocities and activations
  if (X) {
    differencePos(m, tmp, xlo, xhi);
    for (int i = 0; i < L->nv + L->na; i++) {
      tmp[L->nv + i] = xhi[L->nq + i] - xlo[L->nq + i];
    }
    for (int r = 0; r < ndx; r++) {
      X[(size_t)r * ncol + c] = failed ? 0 : tmp[r] * scale;
    }
  }

  // sensors
  if (S) {
    for (int r = 0; r < L->ns; r++) {
      S[(size_t)r * ncol + c] = failed ? 0 : (shi[r] - slo[r]) * scale;
    }
  }
}


// 1 if any of the n numbers is NaN or infinite
int mci_derivNotFinite(const mcNum* x, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(x[i])) {
      return 1;
    }
  }
  return 0;
}


// 1 if column col, differenced from xhi/shi and xlo/slo, has a non-finite input
static int badOutputs(const Layout* L, const mcNum* xhi, const mcNum* shi, const mcNum* xlo,
                      const mcNum* slo, int sensors) {
  return mci_derivNotFinite(xhi, L->nphys) || mci_derivNotFinite(xlo, L->nphys) ||
         (sensors && (mci_derivNotFinite(shi, L->ns) || mci_derivNotFinite(slo, L->ns)));
}


// check the common arguments; return 0 or -1 (message printed)
int mci_derivCheck(const char* fn, const mcModel* m, const mcData* d, mcNum eps) {
  if (!m || !d) {
    mci_message("%s: model or data is NULL", fn);
    return -1;
  }
  if (d->model_signature != mci_modelSignature(m)) {
    mci_message("%s: data was made for another model", fn);
    return -1;
  }
  if (!(eps > 0) || !isfinite(eps)) {
    mci_message("%s: eps must be positive and finite (got %g)", fn, (double)eps);
    return -1;
  }
  if (d->warning_stop) {
    mci_message("%s: an escalated warning is pending (mc_clearWarningError first)", fn);
    return -1;
  }
  return 0;
}


// total warnings counted in d
int mci_derivWarnings(const mcData* d) {
  int n = 0;
  for (int i = 0; i < mcNWARNING; i++) {
    n += d->warning[i].number;
  }
  return n;
}


// report failed columns once per call
void mci_derivReport(const char* fn, int nfailed) {
  if (nfailed) {
    mci_message("%s: %d column(s) set to zero: their evaluation raised a warning or was not "
                "finite", fn, nfailed);
  }
}


//---------------------------------- serial transition ---------------------------------------------

// 1 (and a counted warning) if x has a NaN or a number beyond mcMAXVAL
int mci_derivBadState(mcData* d, const mcNum* x, int n, int warning) {
  for (int i = 0; i < n; i++) {
    if (mcu_isBad(x[i])) {
      mc_warning(d, warning, i);
      return 1;
    }
  }
  return 0;
}


// mc_step from a stage on (MuJoCo's mj_stepSkip): forward dynamics without the stages before
// skipstage, then the integrator plugin. A bad qpos, qvel or qacc is counted as a warning and
// ends the evaluation without the auto-reset of mc_step, which would clear the stack this file's
// scratch lives on (the caller restores the state anyway)
static void stepSkip(const mcModel* m, mcData* d, int skipstage, int skipsensor) {
  if (mci_derivBadState(d, d->qpos, m->nq, mcWARN_BADQPOS) ||
      mci_derivBadState(d, d->qvel, m->nv, mcWARN_BADQVEL)) {
    return;
  }
  mc_forwardSkip(m, d, skipstage, skipsensor);
  if (mci_derivBadState(d, d->qacc, m->nv, mcWARN_BADQACC) || d->warning_stop || !m->integrator ||
      !m->integrator->step) {
    return;
  }
  mcNum time0 = d->time;
  m->integrator->step(mcp_host(), m, d);
  if (d->plugin_check) {
    mci_checkIntegrator(m, d, time0);
  }
}


// 1 if the integrator leaves the position and velocity stages of the step's start in d
int mci_derivReuses(const mcModel* m) {
  int code = m->opt.integrator;
  return code == mcINT_EULER || code == mcINT_IMPLICIT || code == mcINT_IMPLICITFAST;
}


typedef struct {                  // scratch of one evaluator: the serial call, or one pool thread
  const mcNum* state0;            // nominal full state
  mcNum* state;                   // perturbed full state (nfull)
  mcNum *x0, *xp, *xm;            // physics after the nominal, plus and minus steps (nphys each)
  mcNum *s0, *sp, *sm;            // sensors after them (ns each)
  mcNum* dq;                      // nv scratch
  mcNum* warm;                    // Newton: the nominal solve's acceleration (nv), see nominal
  mcNum* tmp;                     // ndx scratch
  int skipsensor;
  int ready;                      // d holds the nominal evaluation's stages (x0, s0, bad0 valid)
  int bad0;                       // the nominal evaluation raised a warning
  int warmcols;                   // the columns start the solver from warm, not the caller's
  int nfailed;                    // columns this evaluator zeroed
} Worker;


// scratch of an evaluator from d's stack; 0 or -1 (stack full)
static int allocWorker(mcData* d, const Layout* L, const mcNum* state0, int skipsensor,
                       Worker* w) {
  size_t nx = (size_t)L->nphys, ns = (size_t)L->ns;
  mcNum* buf = mcSTACKALLOC(d, (size_t)L->nfull + 3 * (nx + ns) + 2 * L->nv + L->ndx + 1, mcNum);
  if (!buf) {
    return -1;
  }
  memset(w, 0, sizeof(*w));
  w->state0 = state0;
  w->state = buf;
  w->x0 = buf + L->nfull;
  w->xp = w->x0 + nx;
  w->xm = w->xp + nx;
  w->s0 = w->xm + nx;
  w->sp = w->s0 + ns;
  w->sm = w->sp + ns;
  w->dq = w->sm + ns;
  w->warm = w->dq + L->nv;
  w->tmp = w->warm + L->nv;
  w->skipsensor = skipsensor;
  return 0;
}


// evaluate the full state w->state from skipstage on into x (physics) and sens; return the number
// of warnings raised, at least 1 while an escalated warning stops d (stepSkip then does not step)
static int evaluate(const mcModel* m, mcData* d, const Worker* w, int skipstage, int column,
                    mcNum* x, mcNum* sens) {
  int w0 = mci_derivWarnings(d);
  mc_setState(m, d, w->state, FULL);
  if (column && w->warmcols) {
    mcu_copy(d->qacc_warmstart, w->warm, m->nv);
  }
  if (skipstage > mcSTAGE_NONE && !w->skipsensor && m->nsensordata) {
    mcu_copy(d->sensordata, w->s0, m->nsensordata);
  }
  stepSkip(m, d, skipstage, w->skipsensor);
  mc_getState(m, d, x, mcSTATE_PHYSICS);
  if (!w->skipsensor && m->nsensordata) {
    mcu_copy(sens, d->sensordata, m->nsensordata);
  }
  int raised = mci_derivWarnings(d) - w0;
  return raised > 0 ? raised : d->warning_stop != 0;
}


// stage to recompute from when column col is perturbed
static int skipStageOf(const mcModel* m, const Layout* L, int col) {
  if (!mci_derivReuses(m) || col < L->nv) {
    return mcSTAGE_NONE;
  }
  return col < 2 * L->nv ? mcSTAGE_POS : mcSTAGE_VEL;
}


// the nominal step in d: its outputs, and the stages the next columns reuse. Under the Newton
// solver the columns start from the nominal solve's acceleration, not from the caller's
// warmstart (which MuJoCo restores for every column): from a solution that close, the first
// Newton step on the piecewise-quadratic cost is exact while the active set stays, so a
// column's solve takes one iteration instead of several and ends at the same optimum. Not for
// CG or PGS: their first step from there is inexact, yet improves the cost by less than the
// tolerance, so they would stop at once and the difference would lose the perturbation's effect
static void nominal(const mcModel* m, mcData* d, const Layout* L, Worker* w) {
  mcu_copy(w->state, w->state0, L->nfull);
  w->bad0 = evaluate(m, d, w, mcSTAGE_NONE, 0, w->x0, w->s0) > 0;
  mcu_copy(w->warm, d->qacc_warmstart, m->nv);
  w->warmcols = m->opt.solver == mcSOL_NEWTON && !w->bad0;
  w->ready = 1;
}


typedef struct {                  // what every column of one call shares
  const Layout* L;
  mcNum eps;
  int centered;
  mcNum *A, *B, *C, *D;
} Outputs;


// column col into the outputs. Columns must come in the order of columnOrder (ctrl, act, qvel,
// qpos) after the nominal step in d, so the stages they skip are the nominal's. A failed column
// makes the next one redo the nominal step, so no state a failure left behind is reused
static void runColumn(const mcModel* m, mcData* d, const Outputs* o, Worker* w, int col) {
  const Layout* L = o->L;
  if (!w->ready) {
    nominal(m, d, L, w);
  }
  Column c = mci_derivPlan(m, L, w->state0, col, o->eps, o->centered);
  int skip = skipStageOf(m, L, col), bad = 0;

  // the two sides
  if (c.plus) {
    mcu_copy(w->state, w->state0, L->nfull);
    mci_derivPerturb(m, L, w->state, col, o->eps, w->dq);
    bad |= evaluate(m, d, w, skip, 1, w->xp, w->sp) > 0;
  }
  if (c.minus) {
    mcu_copy(w->state, w->state0, L->nfull);
    mci_derivPerturb(m, L, w->state, col, -o->eps, w->dq);
    bad |= evaluate(m, d, w, skip, 1, w->xm, w->sm) > 0;
  }
  bad |= (!c.plus || !c.minus) && w->bad0;

  // difference
  const mcNum *xhi = c.plus ? w->xp : w->x0, *shi = c.plus ? w->sp : w->s0;
  const mcNum *xlo = c.minus ? w->xm : w->x0, *slo = c.minus ? w->sm : w->s0;
  bad |= badOutputs(L, xhi, shi, xlo, slo, !w->skipsensor);
  w->nfailed += bad;
  w->ready = !bad;
  mci_derivStore(m, L, col, c.scale, bad, xhi, shi, xlo, slo, o->A, o->B, o->C, o->D, w->tmp);
}


// the columns asked for, in the order that keeps reused stages valid: ctrl, act, qvel, qpos;
// return their number
static int columnOrder(const Layout* L, int doX, int doU, int* cols) {
  int n = 0;
  int range[4][2] = {{L->ndx, L->ndx + L->nu}, {2 * L->nv, L->ndx}, {L->nv, 2 * L->nv},
                     {0, L->nv}};
  for (int g = 0; g < 4; g++) {
    if ((g == 0 && !doU) || (g > 0 && !doX)) {
      continue;
    }
    for (int col = range[g][0]; col < range[g][1]; col++) {
      cols[n++] = col;
    }
  }
  return n;
}


int mcd_transitionFD(const mcModel* m, mcData* d, mcNum eps, int flg_centered, mcNum* A,
                     mcNum* B, mcNum* C, mcNum* D) {
  if (mci_derivCheck("mcd_transitionFD", m, d, eps)) {
    return -1;
  }
  Layout L;
  mci_derivLayout(m, &L);
  int doX = A || C, doU = (B || D) && L.nu > 0;

  // scratch: nominal state, column order, the evaluator
  mc_markStack(d);
  mcNum* state0 = mcSTACKALLOC(d, L.nfull, mcNum);
  int* cols = mcSTACKALLOC(d, (size_t)L.ndx + L.nu + 1, int);
  Worker w;
  if (!state0 || !cols || allocWorker(d, &L, state0, !C && !D, &w)) {
    mc_freeStack(d);
    mci_message("mcd_transitionFD: stack full; increase <size memory>");
    return -1;
  }
  mc_getState(m, d, state0, FULL);

  // the nominal step, then the columns
  Outputs o = {&L, eps, flg_centered, A, B, C, D};
  int ncol = columnOrder(&L, doX, doU, cols);
  nominal(m, d, &L, &w);
  for (int k = 0; k < ncol; k++) {
    runColumn(m, d, &o, &w, cols[k]);
  }

  // restore the caller's state
  mc_setState(m, d, state0, FULL);
  mc_freeStack(d);
  mci_derivReport("mcd_transitionFD", w.nfailed);
  return w.nfailed;
}


//---------------------------------- transition on the rollout pool --------------------------------

int mcd_transitionFDItems(const mcModel* m, int flg_centered) {
  if (!m) {
    return 0;
  }
  return 1 + (flg_centered ? 2 : 1) * (2 * m->nv + m->na + m->nu);
}


typedef struct {                  // argument of the pool task
  const mcModel* m;
  const Outputs* o;
  const int* cols;                // column of each item
  Worker* w;                      // one per thread
  int* started;                   // per thread: its data was reset in this call
} PoolTask;


// one column on a pool thread: the thread's data starts clean once per call, then it runs its
// columns in increasing order like the serial loop, reusing the nominal step's stages
static void poolColumn(void* arg, mcData* d, int thread, int item) {
  PoolTask* t = arg;
  Worker* w = t->w + thread;
  if (!t->started[thread]) {
    mc_resetData(t->m, d);
    t->started[thread] = 1;
  }
  runColumn(t->m, d, t->o, w, t->cols[item]);
}


int mcd_transitionFDPool(mcRolloutPool* pool, const mcModel* m, mcData* d, mcNum eps,
                         int flg_centered, mcNum* A, mcNum* B, mcNum* C, mcNum* D) {
  const char* fn = "mcd_transitionFDPool";
  if (mci_derivCheck(fn, m, d, eps)) {
    return -1;
  }
  mcData* d0 = mc_rolloutData(pool, 0);
  if (!d0 || d0->model_signature != d->model_signature) {
    mci_message("%s: the pool is NULL or was made for another model", fn);
    return -1;
  }
  Layout L;
  mci_derivLayout(m, &L);
  int doX = A || C, doU = (B || D) && L.nu > 0;
  int nthread = mc_rolloutThreads(pool);

  // scratch from the caller's stack: nominal state, column order, one evaluator per thread
  mc_markStack(d);
  mcNum* state0 = mcSTACKALLOC(d, L.nfull, mcNum);
  int* cols = mcSTACKALLOC(d, (size_t)L.ndx + L.nu + 1, int);
  int* started = mcSTACKALLOC(d, nthread, int);
  Worker* w = mcSTACKALLOC(d, nthread, Worker);
  int ok = state0 && cols && started && w;
  for (int i = 0; ok && i < nthread; i++) {
    ok = !allocWorker(d, &L, state0, !C && !D, w + i);
    started[i] = 0;
  }
  if (!ok) {
    mc_freeStack(d);
    mci_message("%s: stack full; increase <size memory>", fn);
    return -1;
  }
  mc_getState(m, d, state0, FULL);

  // the columns across the threads
  Outputs o = {&L, eps, flg_centered, A, B, C, D};
  PoolTask task = {m, &o, cols, w, started};
  int ncol = columnOrder(&L, doX, doU, cols);
  int rc = mci_rolloutTasks(pool, ncol, poolColumn, &task);
  int nfailed = 0;
  for (int i = 0; i < nthread; i++) {
    nfailed += w[i].nfailed;
  }
  mc_freeStack(d);
  if (rc) {
    mci_message("%s: the pool takes fewer items than a call needs (create it with nbatch >= "
                "mcd_transitionFDItems)", fn);
    return -1;
  }
  mci_derivReport(fn, nfailed);
  return nfailed;
}


//---------------------------------- inverse dynamics ----------------------------------------------

typedef struct {                  // outputs of one inverse evaluation
  mcNum* f;                       // qfrc_inverse (minus qfrc_actuator with flg_actuation), nv
  mcNum* s;                       // sensordata, nsensordata
  mcNum* M;                       // qM, nM
} InverseOut;


// inverse dynamics at d's qpos, qvel, qacc (and sensors, actuation if asked) into o
static void inverseEval(const mcModel* m, mcData* d, int flg_actuation, int sensors,
                        int inertia, const InverseOut* o) {
  mc_inverse(m, d);
  if (flg_actuation || sensors) {
    mc_fwdActuation(m, d);
  }
  mcu_copy(o->f, d->qfrc_inverse, m->nv);
  if (flg_actuation) {
    for (int i = 0; i < m->nv; i++) {
      o->f[i] -= d->qfrc_actuator[i];
    }
  }
  if (sensors) {
    mc_sensorStage(m, d, mcSTAGE_POS);
    mc_sensorStage(m, d, mcSTAGE_VEL);
    mc_sensorStage(m, d, mcSTAGE_ACC);
    mcu_copy(o->s, d->sensordata, m->nsensordata);
  }
  if (inertia) {
    mcu_copy(o->M, d->qM, m->nM);
  }
}


// row i of a block: (out - nominal) / eps, zero if failed
static void storeRow(mcNum* X, int i, int n, const mcNum* out, const mcNum* nominal, mcNum eps,
                     int failed) {
  if (X) {
    for (int j = 0; j < n; j++) {
      X[(size_t)i * n + j] = failed ? 0 : (out[j] - nominal[j]) / eps;
    }
  }
}


int mcd_inverseFD(const mcModel* m, mcData* d, mcNum eps, int flg_actuation, mcNum* DfDq,
                  mcNum* DfDv, mcNum* DfDa, mcNum* DsDq, mcNum* DsDv, mcNum* DsDa, mcNum* DmDq) {
  if (mci_derivCheck("mcd_inverseFD", m, d, eps)) {
    return -1;
  }
  int nq = m->nq, nv = m->nv, ns = m->nsensordata, nM = m->nM;
  int sensors = (DsDq || DsDv || DsDa) && ns > 0, inertia = DmDq != NULL;

  // scratch: saved inputs, nominal and perturbed outputs
  mc_markStack(d);
  mcNum* save = mcSTACKALLOC(d, (size_t)nq + 2 * (size_t)nv + 1, mcNum);
  mcNum* dq = mcSTACKALLOC(d, (size_t)nv + 1, mcNum);
  mcNum* buf = mcSTACKALLOC(d, 2 * ((size_t)nv + ns + nM) + 1, mcNum);
  if (!save || !dq || !buf) {
    mc_freeStack(d);
    mci_message("mcd_inverseFD: stack full; increase <size memory>");
    return -1;
  }
  mcNum *qpos0 = save, *qvel0 = save + nq, *qacc0 = save + nq + nv;
  mcu_copy(qpos0, d->qpos, nq);
  mcu_copy(qvel0, d->qvel, nv);
  mcu_copy(qacc0, d->qacc, nv);
  InverseOut o0 = {buf, buf + nv, buf + nv + ns};
  InverseOut o1 = {buf + nv + ns + nM, buf + 2 * nv + ns + nM, buf + 2 * nv + 2 * ns + nM};

  // nominal
  inverseEval(m, d, flg_actuation, sensors, inertia, &o0);
  int bad0 = mci_derivNotFinite(o0.f, nv) || (sensors && mci_derivNotFinite(o0.s, ns));

  // positions (tangent space), velocities, accelerations
  int nfailed = 0;
  for (int block = 0; block < 3; block++) {
    mcNum* Df = block == 0 ? DfDq : block == 1 ? DfDv : DfDa;
    mcNum* Ds = block == 0 ? DsDq : block == 1 ? DsDv : DsDa;
    mcNum* Dm = block == 0 ? DmDq : NULL;
    if (!Df && !(Ds && sensors) && !Dm) {
      continue;
    }
    for (int i = 0; i < nv; i++) {
      if (block == 0) {
        mcu_zero(dq, nv);
        dq[i] = 1;
        mc_integratePos(m, d->qpos, dq, eps);
      } else {
        (block == 1 ? d->qvel : d->qacc)[i] += eps;
      }
      inverseEval(m, d, flg_actuation, sensors && Ds, inertia && Dm, &o1);
      int bad = bad0 || mci_derivNotFinite(o1.f, nv) ||
                (sensors && Ds && mci_derivNotFinite(o1.s, ns));
      nfailed += bad;
      storeRow(Df, i, nv, o1.f, o0.f, eps, bad);
      storeRow(sensors ? Ds : NULL, i, ns, o1.s, o0.s, eps, bad);
      storeRow(Dm, i, nM, o1.M, o0.M, eps, bad);

      // restore the input
      mcu_copy(d->qpos, qpos0, nq);
      mcu_copy(d->qvel, qvel0, nv);
      mcu_copy(d->qacc, qacc0, nv);
    }
  }

  // leave the nominal results in d
  inverseEval(m, d, flg_actuation, sensors, 0, &o1);
  mc_freeStack(d);
  mci_derivReport("mcd_inverseFD", nfailed);
  return nfailed;
}
