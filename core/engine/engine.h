// Moduco core: internal interface of the smooth-dynamics pipeline (private to libmoduco).
//
// The public stages are declared in moduco.h; this header adds the helpers shared between the
// engine files, the plugin host table and white-box tests.
#ifndef MODUCO_CORE_ENGINE_ENGINE_H_
#define MODUCO_CORE_ENGINE_ENGINE_H_

#include <time.h>

#include <moduco/moduco.h>

// L'DL factorization of a matrix M in the qM tree-sparse layout (no fill-in): qLD gets L below
// the diagonal and D on it, qLDiagInv = 1/D. M and qLD may alias. Pivots below mcMINVAL are
// replaced by mcMINVAL.
void mc_factorI(const mcModel* m, const mcNum* M, mcNum* qLD, mcNum* qLDiagInv);

// Solve (L'DL) x = x in place for n right-hand sides (nv x n, column after column).
void mc_solveLD(const mcModel* m, mcNum* x, int n, const mcNum* qLD, const mcNum* qLDiagInv);

// x <- (M + diag(D))^-1 x for one vector, M = d->qM with d->qLD its factor (mc_factorM since qM
// last changed). Trees whose dofs all have D = 0 reuse d->qLD, the others are factored again in
// LD (nM) and diagInv (nv), caller scratch; the rows of simple dofs are skipped as mc_solveM
// skips them (mci_simpleRowsZero). Results: those of mc_factorI and mc_solveLD on M + diag(D) but
// for the sign of a zero, bitwise the same for any thread count (the trees' ranges on the pool).
void mci_solveMDamped(const mcModel* m, mcData* d, const mcNum* D, mcNum* x, mcNum* LD,
                      mcNum* diagInv);

// Add J' * [torque; force] to qfrc, where J is the Jacobian of the given global point attached
// to body (force and torque are global; either may be NULL).
void mc_applyFT(const mcModel* m, const mcData* d, const mcNum* force, const mcNum* torque,
                const mcNum point[3], int body, mcNum* qfrc);

// Sum J' * xfrc_applied of all bodies into qfrc.
void mc_xfrcAccumulate(const mcModel* m, const mcData* d, mcNum* qfrc);

// Tendon armature (core/engine/tendon_armature.c): add armature * J'J to qM on its tree sparsity,
// and armature * J' (dJ/dt qvel) to qfrc (the bias force). Both do nothing without armature.
void mc_tendonArmatureM(const mcModel* m, mcData* d);
// does any tendon have armature? (it adds to qM off the diagonal blocks of simple bodies)
int mc_tendonArmatureAny(const mcModel* m);
void mc_tendonArmatureBias(const mcModel* m, mcData* d, mcNum* qfrc);

// Camera poses cam_xpos, cam_xmat for every tracking mode (core/engine/camera.c); needs
// kinematics and comPos.
void mc_camlight(const mcModel* m, mcData* d);

// Tendon and actuator velocities: ten_velocity = ten_J * qvel, actuator_velocity = moment * qvel.
void mc_fwdVelocityTendonActuator(const mcModel* m, mcData* d);

// Activation that actuator i will have after one timestep (clamped to actrange when limited);
// used for actearly.
mcNum mc_nextActivation(const mcModel* m, const mcData* d, int i, int adr, mcNum act_dot);

// true when actuator i is a scalar joint transmission (one nonzero moment entry)
static inline int mc_scalarJointActuator(const mcModel* m, int i) {
  int t = m->actuator_trntype[i];
  if (t != mcTRN_JOINT && t != mcTRN_JOINTINPARENT) {
    return 0;
  }
  int jt = m->jnt_type[m->actuator_trnid[2 * i]];
  return jt == mcJNT_HINGE || jt == mcJNT_SLIDE;
}


//---------------------------------- stage timers (mcData.timer, only when d->profile) -----------

// wall clock in seconds, only read when d->profile is set
static inline double mc_clockNow(const mcData* d) {
  if (!d->profile) {
    return 0;
  }
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


// accumulate a timer started at t0
static inline void mc_clockAdd(mcData* d, int timer, double t0) {
  if (d->profile) {
    d->timer[timer].duration += mc_clockNow(d) - t0;
    d->timer[timer].number++;
  }
}


// accumulate the per-plugin timer of a slot (mctTimerPlugin) started at t0; return the clock read
// (the start of what follows)
static inline double mc_clockAddPlugin(mcData* d, int slot, double t0) {
  if (!d->profile) {
    return 0;
  }
  double t1 = mc_clockNow(d);
  slot = slot < mcNTIMERPLUGIN - 1 ? slot : mcNTIMERPLUGIN - 1;
  d->timer_plugin[slot].duration += t1 - t0;
  d->timer_plugin[slot].number++;
  return t1;
}


// per-plugin timer slot of an actuator or sensor plugin (core/plugin/registry.c); -1: none
int mcp_elementSlot(const struct mcpHeader_* hdr);


// accumulate the per-plugin timer of the plugin of element instance p, started at t0; return the
// clock read (a loop over elements starts the next one's timer there: one read per element)
static inline double mc_clockAddElement(const mcModel* m, mcData* d, int p, double t0) {
  if (d->profile && p >= 0 && p < m->nplugin) {
    int slot = mcp_elementSlot(m->plugin[p]);
    if (slot >= 0) {
      return mc_clockAddPlugin(d, slot, t0);
    }
  }
  return mc_clockNow(d);
}


// slot of the collision plugin whose function collides geom types type1, type2 (-1: none);
// core/plugin/registry.c, consistent with the collide-function table (For: that of model m,
// which may have the nativeccd flag; m NULL or mcp_collisionSlot: without it)
int mcp_collisionSlot(int type1, int type2);
int mcp_collisionSlotFor(const mcModel* m, int type1, int type2);


// accumulate the per-plugin timer of the narrow-phase function for geom types type1, type2
static inline void mc_clockAddCollision(const mcModel* m, mcData* d, int type1, int type2,
                                        double t0) {
  if (d->profile) {
    int k = mcp_collisionSlotFor(m, type1, type2);
    if (k >= 0) {
      k = k < mcNTIMERCOLLISION - 1 ? k : mcNTIMERCOLLISION - 1;
      mc_clockAddPlugin(d, mcTIMERPLUGIN_COLLISION + k, t0);
    }
  }
}


#endif  // MODUCO_CORE_ENGINE_ENGINE_H_
