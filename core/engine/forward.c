// Moduco core: the forward pipeline (mc_fwdPosition .. mc_fwdConstraint, mc_forward), stepping
// (mc_step, mc_step1, mc_step2), applied Cartesian forces and position integration.
#include <time.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "engine/collision.h"
#include "engine/constraint.h"
#include "engine/contact_surface.h"
#include "engine/engine.h"
#include "engine/io.h"
#include "engine/island.h"
#include "engine/parallel_stages.h"
#include "engine/plugin_trees.h"
#include "engine/plugin_check.h"
#include "engine/sensor.h"
#include "engine/sleep.h"
#include "engine/threadpool.h"
#include "engine/solver_contract.h"
#include "math/math.h"
#include "plugin/registry.h"


//---------------------------------- applied forces ------------------------------------------------

void mc_applyFT(const mcModel* m, const mcData* d, const mcNum* force, const mcNum* torque,
                const mcNum point[3], int body, mcNum* qfrc) {
  // last dof moving the body: its own or its nearest moving ancestor's
  int b = body;
  while (b > 0 && m->body_dofnum[b] == 0) {
    b = m->body_parentid[b];
  }
  if (b <= 0) {
    return;
  }
  int dof = m->body_dofadr[b] + m->body_dofnum[b] - 1;

  // wrench about the subtree com of the tree root
  mcNum w[6] = {0, 0, 0, 0, 0, 0};
  if (torque) {
    mcu_copy3(w, torque);
  }
  if (force) {
    mcNum off[3], t[3];
    mcu_sub3(off, point, d->subtree_com + 3 * m->body_rootid[body]);
    mcu_cross(t, off, force);
    mcu_addTo3(w, t);
    mcu_copy3(w + 3, force);
  }

  // project on the dof chain
  for (; dof >= 0; dof = m->dof_parentid[dof]) {
    qfrc[dof] += mcu_dot6(d->cdof + 6 * dof, w);
  }
}


// the applied Cartesian forces of bodies [b0, b1) (b0 >= 1) added to qfrc: each reaches only
// the dofs of its own tree, in body order
static void xfrcRange(const mcModel* m, const mcData* d, mcNum* qfrc, int b0, int b1) {
  for (int b = b0; b < b1; b++) {
    const mcNum* x = d->xfrc_applied + 6 * b;
    if (x[0] != 0 || x[1] != 0 || x[2] != 0 || x[3] != 0 || x[4] != 0 || x[5] != 0) {
      mc_applyFT(m, d, x, x + 3, d->xipos + 3 * b, b, qfrc);
    }
  }
}


void mc_xfrcAccumulate(const mcModel* m, const mcData* d, mcNum* qfrc) {
  xfrcRange(m, d, qfrc, 1, m->nbody);
}


//---------------------------------- pipeline stages -----------------------------------------------

// the position stage; early: the velocity stage's per-tree part too (mci_velocityEarlyOk) with
// the parts of mci_earlyParts in parts (0 unless early: the scan is the caller's, once a step),
// and the rows' J qvel and position reference where the assembly's pool tasks can make them:
// returns mci_makeConstraint's MCI_REFERENCE_ flags
static int fwdPosition(const mcModel* m, mcData* d, int early, int parts) {
  double t0 = mc_clockNow(d), t1;

  // kinematics, com quantities, cameras (per tree on the thread pool when one is bound), tendons
  // (mc_comPos and mc_camlight in the stage beside the broad phase when allowed, whether the
  // kinematics ran per tree or here)
  int comlater = mci_comLaterOk(m, d);
  if (!mci_positionTrees(m, d, !comlater)) {
    mc_kinematics(m, d);
    if (!comlater) {
      mc_comPos(m, d);
      mc_camlight(m, d);
    }
  }
  mc_tendon(m, d);
  mc_clockAdd(d, mcTIMER_POS_KINEMATICS, t0);

  // joint-space inertia and its factorization, then collision detection (core/engine/
  // collision_driver.c); with a thread pool bound the inertia stage (and, early, the velocity
  // stage's per-tree part) runs beside the broad phase (the collision timer then includes it)
  t1 = mc_clockNow(d);
  if (mci_threads(d) > 1 && !d->plugin_check) {
    mciStageFn stage = early ? (comlater ? mci_comInertiaVelocityStage : mci_inertiaVelocityStage)
                             : (comlater ? mci_comInertiaStage : mci_inertiaStage);
    mci_collisionWith(m, d, stage);
  } else {
    mci_inertiaStage(m, d);
    t1 = mc_clockNow(d);
    mc_collision(m, d);
  }
  while (mc_sleepWakeContacts(m, d)) {  // sleeping trees touched by awake ones: again, all awake
    mc_collision(m, d);
  }
  mc_clockAdd(d, mcTIMER_POS_COLLISION, t1);

  // constraint assembly (core/engine/constraint.c); projection is done by the solver plugins
  t1 = mc_clockNow(d);
  int referenced = mci_makeConstraint(m, d, early);
  mc_clockAdd(d, mcTIMER_POS_MAKE, t1);

  // transmissions last: body (adhesion) transmissions read the contact rows (early, those of
  // joints and tendons ran beside the broad phase: mci_earlyParts)
  if (!(parts & MCI_EARLY_TRN)) {
    t1 = mc_clockNow(d);
    mc_transmission(m, d);
    mc_clockAdd(d, mcTIMER_POS_KINEMATICS, t1);
  }

  mc_clockAdd(d, mcTIMER_POSITION, t0);
  return referenced;
}


void mc_fwdPosition(const mcModel* m, mcData* d) {
  fwdPosition(m, d, 0, 0);
}


// the velocity stage; early: its per-tree part and parts (mci_earlyParts; 0 unless early) were
// done by fwdPosition; referenced: fwdPosition's result (mci_makeConstraint's: the rows' J qvel
// and reference made, no adhesion to add)
static void fwdVelocity(const mcModel* m, mcData* d, int early, int parts, int referenced) {
  double t0 = mc_clockNow(d);

  // tendon and actuator velocities, com velocities, passive and bias forces; with a thread pool
  // bound, com velocities and the bias forces per tree on it first (passive forces read cvel,
  // neither reads what the other writes); early: those and the parts of mci_earlyParts were done
  // beside the broad phase
  if (!(parts & MCI_EARLY_TRN)) {
    mc_fwdVelocityTendonActuator(m, d);
  }
  int trees = early || mci_velocityTrees(m, d);
  if (!trees) {
    mc_comVel(m, d);
  }
  if (!(parts & MCI_EARLY_PASSIVE)) {
    mc_passive(m, d);
  }
  if (!(referenced & MCI_REFERENCE_NOADHESION)) {
    mc_adhesionPassive(m, d);  // contact adhesion (core/engine/contact_surface.c)
  }
  if (d->nefc) {
    mci_referenceConstraint(m, d, referenced);
  }
  if (!trees) {
    mc_rne(m, d, 0, d->qfrc_bias);
  }
  mc_tendonArmatureBias(m, d, d->qfrc_bias);

  mc_clockAdd(d, mcTIMER_VELOCITY, t0);
}


void mc_fwdVelocity(const mcModel* m, mcData* d) {
  fwdVelocity(m, d, 0, 0, 0);
}


void mci_smoothRange(const mcModel* m, mcData* d, int b0, int b1, int k0, int k1) {
  mcNum* f = d->qfrc_smooth;

  // net smooth force, then the unconstrained acceleration's right-hand side
  for (int i = k0; i < k1; i++) {
    f[i] = d->qfrc_passive[i] - d->qfrc_bias[i] + d->qfrc_applied[i] + d->qfrc_actuator[i];
  }
  xfrcRange(m, d, f, b0, b1);
  mcu_copy(d->qacc_smooth + k0, f + k0, k1 - k0);
}


void mc_fwdAcceleration(const mcModel* m, mcData* d) {
  double t0 = mc_clockNow(d);

  // net smooth force and unconstrained acceleration: per tree on the thread pool when one is
  // bound (one job; the same bits), else here
  if (!mci_accelerationTrees(m, d)) {
    mci_smoothRange(m, d, 1, m->nbody, 0, m->nv);
    mc_solveM(m, d, d->qacc_smooth, d->qacc_smooth, 1);
  }

  mc_clockAdd(d, mcTIMER_ACCELERATION, t0);
}


void mc_fwdConstraint(const mcModel* m, mcData* d) {
  double t0 = mc_clockNow(d);

  // no solver or no rows: the smooth acceleration stands
  if (!m->solver || d->nefc == 0) {
    mcu_copy(d->qacc, d->qacc_smooth, m->nv);
    mcu_zero(d->qfrc_constraint, m->nv);
    d->solver_iter = 0;
    d->island_solved = 0;
  } else {
    // every input of the solver contract (efc_b; the rest is done by assembly and the smooth
    // dynamics), for built-in and third-party solvers alike: made by the island solves for
    // their rows, else here for the whole problem
    const mcpHost* host = mcp_host();
    double t1 = mc_clockNow(d);
    if (!mc_solveIslands(m, d, m->opt.iterations)) {
      mc_solverInputs(m, d);
      m->solver->solve(host, m, d, m->opt.iterations);
    }
    mc_clockAddPlugin(d, mcTIMERPLUGIN_SOLVER, t1);
    if (d->plugin_check) {
      mci_checkSolver(m, d, mcTIMERPLUGIN_SOLVER);
    }
    if (m->postsolver && m->opt.noslip_iterations > 0) {
      t1 = mc_clockNow(d);
      m->postsolver->solve(host, m, d, m->opt.noslip_iterations);
      mc_clockAddPlugin(d, mcTIMERPLUGIN_POSTSOLVER, t1);  // read first: nested in the stage
      mc_clockAdd(d, mcTIMER_POSTSOLVER, t1);
      if (d->plugin_check) {
        mci_checkSolver(m, d, mcTIMERPLUGIN_POSTSOLVER);
      }
    }
  }

  mc_clockAdd(d, mcTIMER_CONSTRAINT, t0);
}


void mc_forwardSkip(const mcModel* m, mcData* d, int skipstage, int skipsensor) {
  double t0 = mc_clockNow(d);
  int energy = m->opt.enableflags & mcENBL_ENERGY;
  int early = skipstage < mcSTAGE_POS && mci_velocityEarlyOk(m, d), referenced = 0;
  int parts = early ? mci_earlyParts(m) : 0;  // (a model scan: once a step)

  // position stage
  if (skipstage < mcSTAGE_POS) {
    referenced = fwdPosition(m, d, early, parts);
    if (!skipsensor) {
      mc_sensorStage(m, d, mcSTAGE_POS);
    }
    if (energy) {
      mc_energyPos(m, d);
    }
  }

  // velocity stage
  if (skipstage < mcSTAGE_VEL) {
    fwdVelocity(m, d, early, parts, referenced);
    if (!skipsensor) {
      mc_sensorStage(m, d, mcSTAGE_VEL);
    }
    if (energy) {
      mc_energyVel(m, d);
    }
  }

  // acceleration stage (early, the actuation may have run beside the broad phase already)
  double t1 = mc_clockNow(d);
  if (!mci_takeActuationEarly(d)) {
    mc_fwdActuation(m, d);
    mc_clockAdd(d, mcTIMER_ACTUATION, t1);
  }
  mc_fwdAcceleration(m, d);
  mc_fwdConstraint(m, d);
  if (!skipsensor) {
    mc_sensorStage(m, d, mcSTAGE_ACC);
  }

  mc_clockAdd(d, mcTIMER_FORWARD, t0);
}


void mc_forward(const mcModel* m, mcData* d) {
  mc_forwardSkip(m, d, mcSTAGE_NONE, 0);
}


//---------------------------------- stepping ------------------------------------------------------

// refuse data made for another model
static int sameModel(const mcModel* m, mcData* d) {
  if (!mci_stepSignatureOk(m, d)) {
    mci_message("mc_step: data was made for another model; step refused");
    return 0;
  }
  return 1;
}


// compare forward and inverse dynamics if asked, then run the integrator plugin
static void integrate(const mcModel* m, mcData* d) {
  if (d->warning_stop) {  // an escalated warning is pending (docs/warnings.md)
    return;
  }
  if (m->opt.enableflags & mcENBL_FWDINV) {
    mc_compareFwdInv(m, d);
  }
  double t0 = mc_clockNow(d);
  mc_markStack(d);
  const mcNum* held = mc_sleepUpdate(m, d) ? mc_sleepHold(m, d) : NULL;  // sleeping trees
  if (m->integrator && m->integrator->step) {
    mcNum time0 = d->time;
    m->integrator->step(mcp_host(), m, d);
    if (held) {
      mc_sleepRelease(m, d, held);
    }
    mc_clockAddPlugin(d, mcTIMERPLUGIN_INTEGRATOR, t0);
    if (d->plugin_check) {
      mci_checkIntegrator(m, d, time0);
    }
  } else {
    mci_message("mc_step: the model has no integrator");
  }
  mc_freeStack(d);
  mc_clockAdd(d, mcTIMER_INTEGRATOR, t0);
}


void mc_step(const mcModel* m, mcData* d) {
  if (!sameModel(m, d)) {
    return;
  }
  double t0 = mc_clockNow(d);

  // checks, wake the sleeping trees moved or pushed, forward dynamics, checks, integration
  mc_checkPos(m, d);
  mc_checkVel(m, d);
  mc_sleepWakeInputs(m, d);
  mc_forward(m, d);
  mc_checkAcc(m, d);
  integrate(m, d);

  mc_clockAdd(d, mcTIMER_STEP, t0);
}


void mc_step1(const mcModel* m, mcData* d) {
  if (!sameModel(m, d)) {
    return;
  }
  double t0 = mc_clockNow(d);
  int energy = m->opt.enableflags & mcENBL_ENERGY;

  // checks, wake the sleeping trees moved or pushed, then position and velocity stages
  mc_checkPos(m, d);
  mc_checkVel(m, d);
  mc_sleepWakeInputs(m, d);
  mc_fwdPosition(m, d);
  mc_sensorStage(m, d, mcSTAGE_POS);
  if (energy) {
    mc_energyPos(m, d);
  }
  mc_fwdVelocity(m, d);
  mc_sensorStage(m, d, mcSTAGE_VEL);
  if (energy) {
    mc_energyVel(m, d);
  }

  mc_clockAdd(d, mcTIMER_STEP, t0);
}


void mc_step2(const mcModel* m, mcData* d) {
  if (!sameModel(m, d)) {
    return;
  }
  double t0 = mc_clockNow(d);

  // acceleration stages, checks, integration
  double t1 = mc_clockNow(d);
  mc_fwdActuation(m, d);
  mc_clockAdd(d, mcTIMER_ACTUATION, t1);
  mc_fwdAcceleration(m, d);
  mc_fwdConstraint(m, d);
  mc_sensorStage(m, d, mcSTAGE_ACC);
  mc_checkAcc(m, d);
  integrate(m, d);

  mc_clockAdd(d, mcTIMER_STEP, t0);
}


//---------------------------------- position integration ------------------------------------------

void mc_integratePos(const mcModel* m, mcNum* qpos, const mcNum* qvel, mcNum dt) {
  mci_integratePosRange(m, qpos, qvel, dt, 0, m->njnt);
}


void mc_differentiatePos(const mcModel* m, mcNum* qvel, mcNum dt, const mcNum* qpos1,
                         const mcNum* qpos2) {
  for (int j = 0; j < m->njnt; j++) {
    int padr = m->jnt_qposadr[j], vadr = m->jnt_dofadr[j];
    switch (m->jnt_type[j]) {
    case mcJNT_FREE:
      for (int c = 0; c < 3; c++) {
        qvel[vadr + c] = (qpos2[padr + c] - qpos1[padr + c]) / dt;
      }
      padr += 3;
      vadr += 3;
      // fall through
    case mcJNT_BALL: {
      // the local rotation from unit copies of both quaternions, as mc_integratePos applies it
      mcNum q1[4], q2[4];
      for (int c = 0; c < 4; c++) {
        q1[c] = qpos1[padr + c];
        q2[c] = qpos2[padr + c];
      }
      mcu_normalize4(q1);
      mcu_normalize4(q2);
      mcu_subQuat(qvel + vadr, q2, q1);
      for (int c = 0; c < 3; c++) {
        qvel[vadr + c] /= dt;
      }
      break;
    }
    default:
      qvel[vadr] = (qpos2[padr] - qpos1[padr]) / dt;
      break;
    }
  }
}


void mc_normalizeQuat(const mcModel* m, mcNum* qpos) {
  for (int j = 0; j < m->njnt; j++) {
    int type = m->jnt_type[j];
    if (type == mcJNT_BALL || type == mcJNT_FREE) {
      mcu_normalize4(qpos + m->jnt_qposadr[j] + (type == mcJNT_FREE ? 3 : 0));
    }
  }
}
