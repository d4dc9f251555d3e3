// Moduco: the application API.
//
// Functions named mc_ take (const mcModel* m, mcData* d, ...) or create/free those objects.
// Loading returns NULL and fills a caller buffer with `file:line: message`; the library never
// calls exit or abort on bad input. Numerical trouble while stepping is counted in d->warning[],
// printed once through the warning handler, and (unless mcDSBL_AUTORESET) resets the data.
#ifndef MODUCO_MODUCO_H_
#define MODUCO_MODUCO_H_

#include <stddef.h>

#include <moduco/mctnum.h>
#include <moduco/mcmodel.h>
#include <moduco/mcdata.h>

#ifdef __cplusplus
extern "C" {
#endif

#define mcVERSION_HEADER 100      // 1.0.0 as major*100 + minor*10 + patch

//---------------------------------- version -------------------------------------------------------

// Return the library version (same encoding as mcVERSION_HEADER).
MCAPI int mc_version(void);

// Return the library version as a string, e.g. "1.0.0".
MCAPI const char* mc_versionString(void);

//---------------------------------- model ---------------------------------------------------------

// Load and compile an MJCF file. Nullable: error. On failure return NULL and write
// "file:line: message" to error.
MCAPI mcModel* mc_loadXML(const char* filename, char* error, int error_sz);

// Load and compile MJCF from a string; relative asset and include paths resolve against dir
// (NULL: current directory). Nullable: dir, error.
MCAPI mcModel* mc_loadXMLString(const char* xml, const char* dir, char* error, int error_sz);

// Copy a model; dest NULL allocates a new one. Return dest (or the new model), NULL on failure.
MCAPI mcModel* mc_copyModel(mcModel* dest, const mcModel* src);

// Free a model. Nullable: m.
MCAPI void mc_deleteModel(mcModel* m);

// Print a short size summary of the model (nq nv nu ...) to a FILE*.
MCAPI void mc_printSizes(const mcModel* m, void* file);

//---------------------------------- data ----------------------------------------------------------

// Allocate data for the model (one allocation) and reset it. Return NULL on failure.
MCAPI mcData* mc_makeData(const mcModel* m);

// Free data. Nullable: d.
MCAPI void mc_deleteData(mcData* d);

// Reset data to the model's default state (qpos0, zero velocities, mocap from the model). Data
// made for another model (mcData.model_signature) is left as it is, with a message.
MCAPI void mc_resetData(const mcModel* m, mcData* d);

// Reset data, then set the state of keyframe key. Return 0, or -1 if key is out of range or the
// data was made for another model.
MCAPI int mc_resetDataKeyframe(const mcModel* m, mcData* d, int key);

// Copy data; dest NULL allocates. Return dest (or the new data).
MCAPI mcData* mc_copyData(mcData* dest, const mcModel* m, const mcData* src);

// Return 1 if d was made for a model of m's sizes and plugin instances (mcData.model_signature),
// else 0. The stepping and derivative functions refuse data that does not match; bindings check
// this before handing a data/model pair to them.
MCAPI int mc_dataMatches(const mcModel* m, const mcData* d);

//---------------------------------- simulation ----------------------------------------------------

// Advance the simulation by one timestep: checks, forward dynamics, integrator plugin.
MCAPI void mc_step(const mcModel* m, mcData* d);

// First half of mc_step: position and velocity stages; set ctrl between mc_step1 and mc_step2.
MCAPI void mc_step1(const mcModel* m, mcData* d);

// Second half of mc_step: actuation, acceleration, constraint, integrator plugin.
MCAPI void mc_step2(const mcModel* m, mcData* d);

// Forward dynamics at the current state (no integration).
MCAPI void mc_forward(const mcModel* m, mcData* d);

// Forward dynamics skipping stages up to skipstage (mctStage); skipsensor: skip sensors.
MCAPI void mc_forwardSkip(const mcModel* m, mcData* d, int skipstage, int skipsensor);

// Pipeline stages composed by mc_forward.
MCAPI void mc_fwdPosition(const mcModel* m, mcData* d);
MCAPI void mc_fwdVelocity(const mcModel* m, mcData* d);
MCAPI void mc_fwdActuation(const mcModel* m, mcData* d);
MCAPI void mc_fwdAcceleration(const mcModel* m, mcData* d);
MCAPI void mc_fwdConstraint(const mcModel* m, mcData* d);

// Sub-stages.
MCAPI void mc_kinematics(const mcModel* m, mcData* d);
MCAPI void mc_comPos(const mcModel* m, mcData* d);
MCAPI void mc_tendon(const mcModel* m, mcData* d);
MCAPI void mc_transmission(const mcModel* m, mcData* d);
MCAPI void mc_crb(const mcModel* m, mcData* d);
MCAPI void mc_factorM(const mcModel* m, mcData* d);
MCAPI void mc_comVel(const mcModel* m, mcData* d);
MCAPI void mc_passive(const mcModel* m, mcData* d);
MCAPI void mc_rne(const mcModel* m, mcData* d, int flg_acc, mcNum* result);
MCAPI void mc_energyPos(const mcModel* m, mcData* d);
MCAPI void mc_energyVel(const mcModel* m, mcData* d);

// Divergence checks: a bad (NaN or |x| > mcMAXVAL) qpos, qvel or qacc raises a warning and,
// unless mcDSBL_AUTORESET is set, resets the data.
MCAPI void mc_checkPos(const mcModel* m, mcData* d);
MCAPI void mc_checkVel(const mcModel* m, mcData* d);
MCAPI void mc_checkAcc(const mcModel* m, mcData* d);

// Inverse dynamics at (qpos, qvel, qacc): position and velocity stages, the analytic constraint
// force of the soft model (efc_force, efc_state, qfrc_constraint), and qfrc_inverse = M qacc +
// qfrc_bias - qfrc_passive - qfrc_constraint, which equals qfrc_applied + qfrc_actuator + J'
// xfrc_applied of the forward dynamics that produced qacc. With mcENBL_INVDISCRETE and the Euler
// integrator, qacc is read as the discrete-time acceleration (qvel_next - qvel) / timestep.
MCAPI void mc_inverse(const mcModel* m, mcData* d);

// Accuracy of a constraint solver's output, computed by the core the same way for every solver
// (built-in or plugin), at d->qacc and d->efc_force after mc_forward (or mc_fwdConstraint). Every
// norm is the Euclidean norm, every part is relative (dimensionless) and 0 for an exact solution
// of MuJoCo's convex soft-constraint problem:
//   parts[0] dynamics:    |M qacc - qfrc_smooth - J' f| / (|M qacc| + |qfrc_smooth| + |J' f| + tiny)
//   parts[1] feasibility: |v| / (|f| + tiny), v per row: equality 0; friction loss max(0, |f| -
//                         frictionloss); limit, frictionless and pyramidal contact max(0, -f);
//                         elliptic contact: max(0, -f_normal) at its normal row and
//                         max(0, |(f_j / friction_j)_j| - max(0, f_normal)) at its first tangent row
//   parts[2] optimality:  |f - f*| / (|f| + |f*| + tiny), f* = the force the soft model gives at
//                         J qacc - aref (what mc_inverse's constraint step computes)
// with f = efc_force and tiny = mcMINVAL. Returns parts[0] + parts[1] + parts[2] (parts may be
// NULL). Without constraint rows only parts[0] can be nonzero. A postsolver (noslip) moves
// efc_force off the soft model on purpose, so parts[2] measures that change too. Uses the stack;
// returns -1 (parts unchanged) if it is full. d->efc_force, efc_state and qfrc_constraint are
// left as they were.
MCAPI mcNum mc_solverResidual(const mcModel* m, mcData* d, mcNum parts[3]);

//---------------------------------- inertia and integration helpers -------------------------------

// res = M * vec.
MCAPI void mc_mulM(const mcModel* m, const mcData* d, mcNum* res, const mcNum* vec);

// Solve M * x = y for n right-hand sides (nv x n, column after column) with qLD.
MCAPI void mc_solveM(const mcModel* m, mcData* d, mcNum* x, const mcNum* y, int n);

// Copy the sparse qM into a dense nv x nv row-major matrix.
MCAPI void mc_fullM(const mcModel* m, mcNum* dst, const mcNum* M);

// qpos = qpos + dt * qvel, with quaternions integrated on SO(3).
MCAPI void mc_integratePos(const mcModel* m, mcNum* qpos, const mcNum* qvel, mcNum dt);

// qvel = (qpos2 - qpos1) / dt, the inverse of mc_integratePos: the velocity that integrates
// qpos1 to qpos2 in time dt (quaternions: the local rotation from qpos1 to qpos2, both normalized
// first, angle wrapped to [-pi, pi]).
MCAPI void mc_differentiatePos(const mcModel* m, mcNum* qvel, mcNum dt, const mcNum* qpos1,
                               const mcNum* qpos2);

// Normalize all quaternions in qpos.
MCAPI void mc_normalizeQuat(const mcModel* m, mcNum* qpos);

// Integrate activations over h given act_dot (filterexact, plugin exact schemes, actrange).
MCAPI void mc_advanceAct(const mcModel* m, mcData* d, const mcNum* act_dot, mcNum h);

//---------------------------------- Jacobians, contact forces, model constants --------------------

// Jacobians (dense 3 x nv, row-major) of a global point moving with body: translational jacp and
// rotational jacr; either may be NULL. Need the position stage (cdof, subtree_com) of d.
MCAPI void mc_jacPoint(const mcModel* m, const mcData* d, mcNum* jacp, mcNum* jacr,
                       const mcNum point[3], int body);

// The same at a body's frame origin, a body's center of mass, a geom's and a site's centre.
MCAPI void mc_jacBody(const mcModel* m, const mcData* d, mcNum* jacp, mcNum* jacr, int body);
MCAPI void mc_jacBodyCom(const mcModel* m, const mcData* d, mcNum* jacp, mcNum* jacr, int body);
MCAPI void mc_jacGeom(const mcModel* m, const mcData* d, mcNum* jacp, mcNum* jacr, int geom);
MCAPI void mc_jacSite(const mcModel* m, const mcData* d, mcNum* jacp, mcNum* jacr, int site);

// Time derivative of mc_jacPoint's Jacobians (3 x nv each, row-major, either may be NULL) at the
// current qvel, as mj_jacDot; needs the velocity stage (cdof_dot: mc_forward or mc_comVel).
MCAPI void mc_jacDot(const mcModel* m, const mcData* d, mcNum* jacp, mcNum* jacr,
                     const mcNum point[3], int body);

// As mj_jacPointAxis: mc_jacPoint's translational Jacobian of point (jacPoint) and the Jacobian
// of a unit axis turning with body (jacAxis, 3 x nv: column j is the rotation axis of dof j
// crossed with axis); either may be NULL.
MCAPI void mc_jacPointAxis(const mcModel* m, const mcData* d, mcNum* jacPoint, mcNum* jacAxis,
                           const mcNum point[3], const mcNum axis[3], int body);

// Translational Jacobian (3 x nv) of the center of mass of body's subtree: the mass-weighted sum
// of the body-com Jacobians in it (zero for a massless subtree). Uses d's stack.
MCAPI void mc_jacSubtreeCom(const mcModel* m, mcData* d, mcNum* jacp, int body);

// Force and torque (6 numbers) of contact id in its contact frame (normal first), from efc_force:
// the net force (an adhesive contact's rows carry its normal force plus the adhesion, taken off).
MCAPI void mc_contactForce(const mcModel* m, const mcData* d, int id, mcNum result[6]);

// com-based acceleration cacc, external force cfrc_ext (applied, contact, connect and weld) and
// interaction force cfrc_int of every body, from qacc and the constraint forces (computed by
// mc_forward when a sensor needs them).
MCAPI void mc_rnePostConstraint(const mcModel* m, mcData* d);

// Model constants at qpos0: dof_M0, dof_invweight0, body_invweight0, tendon_invweight0,
// actuator_length0 and actuator_acc0. Runs kinematics, comPos, tendon, transmission, crb and
// factorM on d at qpos0 (d->qpos is overwritten; pass fresh data). Called by the compiler at the
// end of compilation, and again by users who edit qpos0 or the inertias.
MCAPI void mc_setConst(mcModel* m, mcData* d);

//---------------------------------- state ---------------------------------------------------------

typedef enum mctState_ {          // state components (bitmask)
  mcSTATE_TIME          = 1<<0,
  mcSTATE_QPOS          = 1<<1,
  mcSTATE_QVEL          = 1<<2,
  mcSTATE_ACT           = 1<<3,
  mcSTATE_WARMSTART     = 1<<4,
  mcSTATE_CTRL          = 1<<5,
  mcSTATE_QFRC_APPLIED  = 1<<6,
  mcSTATE_XFRC_APPLIED  = 1<<7,
  mcSTATE_EQ_ACTIVE     = 1<<8,
  mcSTATE_MOCAP_POS     = 1<<9,
  mcSTATE_MOCAP_QUAT    = 1<<10,
  mcSTATE_USERDATA      = 1<<11,
  mcSTATE_PLUGIN        = 1<<12,
  mcNSTATE              = 13,

  mcSTATE_PHYSICS       = mcSTATE_QPOS | mcSTATE_QVEL | mcSTATE_ACT,
  mcSTATE_FULLPHYSICS   = mcSTATE_TIME | mcSTATE_PHYSICS | mcSTATE_PLUGIN,
  mcSTATE_USER          = mcSTATE_CTRL | mcSTATE_QFRC_APPLIED | mcSTATE_XFRC_APPLIED |
                          mcSTATE_EQ_ACTIVE | mcSTATE_MOCAP_POS | mcSTATE_MOCAP_QUAT |
                          mcSTATE_USERDATA,
  mcSTATE_INTEGRATION   = mcSTATE_FULLPHYSICS | mcSTATE_USER | mcSTATE_WARMSTART
} mctState;

// Number of mcNums in the state selected by spec (mctState bits).
MCAPI int mc_stateSize(const mcModel* m, unsigned int spec);

// Copy the selected state components into state (concatenated in bit order).
MCAPI void mc_getState(const mcModel* m, const mcData* d, mcNum* state, unsigned int spec);

// Set the selected state components from state (concatenated in bit order).
MCAPI void mc_setState(const mcModel* m, mcData* d, const mcNum* state, unsigned int spec);

//---------------------------------- geom distance -------------------------------------------------

// Signed distance between geoms g1 and g2 at the poses of the last mc_kinematics/mc_forward (as
// MuJoCo's mj_geomDistance): separated convex geoms (sphere, capsule, ellipsoid, cylinder, box,
// mesh hull) by GJK, exact up to rounding (curved shapes: to 1e-14 relative) and never below the
// true distance; overlapping convex geoms by the collision plugins' narrow phase (negative: its
// penetration depth), pairs with a plane or height field by it with margin distmax. Distances are
// capped at distmax: when nothing comes closer, returns distmax and fromto is zero. fromto (6
// numbers, may be NULL): the nearest points, from g1's surface to g2's. Uses the stack. Geom ids
// out of range: a message, distmax returned.
MCAPI mcNum mc_geomDistance(const mcModel* m, mcData* d, int g1, int g2, mcNum distmax,
                            mcNum* fromto);

//---------------------------------- energy --------------------------------------------------------

// Total mechanical energy: potential (gravity, springs) plus kinetic, at the current state.
// Computes the position and velocity stages it needs.
MCAPI mcNum mc_totalEnergy(const mcModel* m, mcData* d);

//---------------------------------- stack ---------------------------------------------------------

// Open a scratch-stack frame.
MCAPI void mc_markStack(mcData* d);

// Close the frame opened by the matching mc_markStack.
MCAPI void mc_freeStack(mcData* d);

// Allocate bytes on the scratch stack (aligned); NULL and a warning if the arena is full.
MCAPI void* mc_stackAlloc(mcData* d, size_t bytes, size_t align);

#define mcSTACKALLOC(d, num, type) ((type*)mc_stackAlloc((d), (num) * sizeof(type), _Alignof(type)))

//---------------------------------- warnings and messages -----------------------------------------

// Count a warning; print it (with time and info) the first time only.
MCAPI void mc_warning(mcData* d, int warning, int info);

// Text of a warning type.
MCAPI const char* mc_warningText(int warning, int info);

// Message handler: receives warnings and plugin-loader messages. NULL restores the default
// (print to stderr). The handler is process-wide; user is passed back unchanged.
typedef void (*mcfMessage)(void* user, const char* message);
MCAPI void mc_setMessageHandler(mcfMessage handler, void* user);

// Warnings as errors (docs/warnings.md). mask: bits (1 << mctWarning) of d's warnings to escalate
// (mcWARNING_ALL: every type; 0, the default: none). An escalated warning is still counted; it
// also calls the error handler, suppresses the auto-reset of a bad qpos/qvel/qacc (the state is
// kept for inspection), and stops mc_step/mc_step2 from integrating until mc_clearWarningError
// or a reset. mc_resetData keeps the policy; mc_copyData copies it. Return the previous mask.
#define mcWARNING_ALL ((1u << mcNWARNING) - 1)
MCAPI unsigned int mc_setWarningPolicy(mcData* d, unsigned int mask);

// The first escalated warning (mctWarning) raised since the last reset or clear; -1 if none.
MCAPI int mc_warningError(const mcData* d);

// Check mode (docs/plugins.md, "Check mode"): nonzero on verifies every plugin's output after
// each call (finite values, cones and bounds, unit contact normals, sensor slices, ...) and raises
// mcWARN_PLUGINCHECK naming the plugin. MODUCO_PLUGIN_CHECK=1 turns it on in mc_makeData. Off,
// it costs one branch per plugin call.
MCAPI void mc_setPluginCheck(mcData* d, int on);

// Clear the pending escalated warning (the counters in d->warning stay), so stepping resumes.
MCAPI void mc_clearWarningError(mcData* d);

// Error handler: receives "ERROR: <warning text> Time = t." for every escalated warning raised
// while none is pending. NULL restores the default (the message handler). Process-wide.
MCAPI void mc_setErrorHandler(mcfMessage handler, void* user);

//---------------------------------- names ---------------------------------------------------------

// Id of the object with the given type (mctObj) and name; -1 if none.
MCAPI int mc_name2id(const mcModel* m, int type, const char* name);

// Name of the object with the given type and id; NULL if none or unnamed.
MCAPI const char* mc_id2name(const mcModel* m, int type, int id);

//---------------------------------- plugins -------------------------------------------------------

typedef struct mcPluginInfo_ {    // a registered plugin, as listed by 'moduco plugins'
  const char* name;
  const char* kind;               // "solver", "integrator", ...
  const char* version;
  const char* file;               // library path (symlinks resolved)
  const char* description;
} mcPluginInfo;

// Scan the plugin search path (MODUCO_PLUGIN_PATH, then the plugin folder beside libmoduco,
// then the install folder) once; later calls do nothing. Thread-safe. Return the plugin count.
MCAPI int mc_pluginScan(void);

// Number of registered plugins (scans first if needed).
MCAPI int mc_pluginCount(void);

// Info of plugin i (0 <= i < mc_pluginCount()); return 0, or -1 if out of range.
MCAPI int mc_pluginInfo(int i, mcPluginInfo* info);

// Messages from the last scan (skipped libraries and why), one per line; "" if none.
MCAPI const char* mc_pluginMessages(void);

// Name of the plugin whose calls per-plugin timer slot (mctTimerPlugin) of mcData.timer_plugin
// accumulates for this model; NULL if the slot is unused.
MCAPI const char* mc_timerPluginName(const mcModel* m, int slot);

// Name of plugin-defined warning k (0 <= k < m->npluginwarn, the index in
// mcData.plugin_warncount and plugin_warninfo) as "plugin.name: warning-name"; NULL if out of
// range. The string lives as long as the model.
MCAPI const char* mc_pluginWarningName(const mcModel* m, int k);

// Replace the model's integrator by the registered integrator plugin called name (built-in names
// case-insensitive, as in MJCF): the model becomes the one its file would have compiled to had it
// selected that integrator without configuring it. The old model-wide instance is replaced by
// one of the new plugin (same index, declared config defaults, state/data sizes, warnings); sets
// m->integrator, m->plugin_integrator, opt.integrator and opt.integrator_name. Selecting the
// plugin already selected keeps its configuration. Call before making data from m: data made
// earlier is refused by mc_step unless the swap changed nothing it depends on (model_signature:
// sizes, per-instance state and data sizes, plugins with lifecycle hooks); m's old buffer stays
// allocated until mc_deleteModel. Return 0, or -1 with m unchanged and write
// "unknown integrator 'name' (available: a, b, ...)" or "cannot select integrator 'name': why"
// to error. Nullable: error.
MCAPI int mc_setIntegrator(mcModel* m, const char* name, char* error, int error_sz);

// Replace the model's constraint solver by the registered solver plugin called name, as
// mc_setIntegrator does (sets m->solver, m->plugin_solver, opt.solver, opt.solver_name).
// Nullable: error.
MCAPI int mc_setSolver(mcModel* m, const char* name, char* error, int error_sz);

//---------------------------------- in-step thread pool -------------------------------------------

// A pthread pool that runs parts of one mc_step in parallel (core/engine/threadpool.c): the narrow
// phase of collision (pairs in chunks, contacts merged in pair order) and the solves of the
// constraint islands. Results are bitwise identical for any thread count, including no pool.
// Opt-in per mcData, like MuJoCo's mju_threadpool. A pool may be bound to several mcData that are
// stepped one at a time (not concurrently). Stages whose work is too small to share (small models)
// run on the caller, so a pool does not slow them down. Helpers wait for the next job awake for
// up to 5 ms (spinning, yielding their CPU), then sleep. See docs/performance.md.
typedef struct mcThreadPool_ mcThreadPool;

// Create a pool of nthread threads, the caller of mc_step counting as one (1 .. 256); NULL on
// failure (message printed).
MCAPI mcThreadPool* mc_threadPoolCreate(int nthread);

// Stop the threads and free the pool. Unbind it from every mcData first. Nullable: pool.
MCAPI void mc_threadPoolDelete(mcThreadPool* pool);

// Number of threads of the pool, the caller included (0 for NULL).
MCAPI int mc_threadPoolThreads(const mcThreadPool* pool);

// Bind pool to d (NULL: unbind, the step runs on the caller only). Allocates the per-thread
// workspace (a view of d and a scratch stack of narena / nthread bytes, at least 1 MiB, per
// thread) here, never in the step. Return 0, or -1 with d unbound on allocation failure.
MCAPI int mc_bindThreadPool(mcData* d, mcThreadPool* pool);

// One job of a pool's trace (mc_threadPoolTrace): where a step on the pool spends its time.
// Times are CLOCK_MONOTONIC nanoseconds. From post to end the caller is in the job; the helpers
// are idle in it for (end - post) * helpers - busy (and all of it when none joined), and between
// one job's end and the next one's post the caller works alone (its serial part).
typedef struct mcPoolJob_ {
  const char* name;               // the job's task function in the core (static storage)
  int ntask;                      // tasks of the job
  int helpertasks;                // of them run by helpers
  int helpers;                    // helpers that joined it
  long post;                      // the caller opened the job
  long drained;                   // the caller found no task left to take (its share done)
  long end;                       // the helpers that joined have all left: the job returns
  long join;                      // the first helper's start in the job (0: none joined)
  long leave;                     // the last helper's leave (0: none joined)
  long busy;                      // the helpers' time in the job, summed (join to leave each)
} mcPoolJob;

// Record every job the pool runs from now on into job (cap records; job NULL or cap 0: stop
// recording); jobs past cap are counted, not kept. Tracing costs two clock reads per thread and
// job. Call it between steps (no job running). Nullable: pool (nothing done).
MCAPI void mc_threadPoolTrace(mcThreadPool* pool, mcPoolJob* job, int cap);

// Jobs run since mc_threadPoolTrace started recording, those past its cap included (0 for NULL).
MCAPI long mc_threadPoolTraced(const mcThreadPool* pool);

//---------------------------------- batch rollouts ------------------------------------------------

// A persistent pthread pool stepping many data instances of one model (core/engine/rollout.c).
// Every item (a rollout or a forward evaluation) starts from mc_resetData followed by
// mc_setState(spec), so results are bit-identical for any thread count and any schedule. The
// model must outlive the pool and must not change while a call runs. Calls on one pool are
// serialized (a second thread waits for the first); mc_step itself allocates nothing, and a call
// allocates nothing after mc_rolloutCreate. See docs/performance.md.
typedef struct mcRolloutPool_ mcRolloutPool;

// Create a pool of nthread threads (the caller counts as one; 1: no helper threads) with one
// mcData each, for calls of at most nbatch items. Return NULL on failure (message printed).
MCAPI mcRolloutPool* mc_rolloutCreate(const mcModel* m, int nthread, int nbatch);

// Stop the threads and free the pool and its data. Nullable: pool.
MCAPI void mc_rolloutDelete(mcRolloutPool* pool);

// Number of threads of the pool, the caller included.
MCAPI int mc_rolloutThreads(const mcRolloutPool* pool);

// Data of thread i (e.g. to set d->profile or read timers); NULL if out of range.
MCAPI mcData* mc_rolloutData(mcRolloutPool* pool, int thread);

// Warnings raised by each item of the last call (nbatch ints; item i of the last call at i).
MCAPI const int* mc_rolloutWarnings(const mcRolloutPool* pool);

// Run nroll rollouts of nstep steps. Rollout r starts at state0 + r*ns (ns = mc_stateSize(m,
// spec)); before step t it copies ctrl + (r*nstep + t)*nu into d->ctrl (ctrl NULL: controls come
// from the state, or zero); after step t it writes the state to states_out + (r*nstep + t)*ns
// and d->sensordata to sensor_out + (r*nstep + t)*nsensordata. Return 0, or -1 on bad arguments
// (nroll > nbatch). Nullable: ctrl, states_out, sensor_out.
MCAPI int mc_rollout(mcRolloutPool* pool, int nroll, int nstep, unsigned int spec,
                     const mcNum* state0, const mcNum* ctrl, mcNum* states_out,
                     mcNum* sensor_out);

// Forward dynamics at n states (states + i*ns, layout of mc_getState(spec)): write qacc to
// qacc_out + i*nv and sensordata to sensor_out + i*nsensordata. For finite differences and
// sampling-based optimisers. Return 0, or -1 on bad arguments (n > nbatch). Nullable: qacc_out,
// sensor_out.
MCAPI int mc_forwardBatch(mcRolloutPool* pool, int n, unsigned int spec, const mcNum* states,
                          mcNum* qacc_out, mcNum* sensor_out);

// mc_rollout with general per-step inputs (MuJoCo's rollout control_spec and initial_warmstart).
// control_spec is any subset of mcSTATE_USER (CTRL, QFRC_APPLIED, XFRC_APPLIED, EQ_ACTIVE,
// MOCAP_POS, MOCAP_QUAT, USERDATA); nc = mc_stateSize(m, control_spec). Rollout r starts from
// mc_resetData and state0 + r*ns (spec), then, if warmstart is given, copies warmstart + r*nv into
// d->qacc_warmstart; before step t it applies control + (r*nstep + t)*nc with
// mc_setState(control_spec) (control NULL: nothing is applied). Outputs as mc_rollout's, which
// is mc_rolloutEx(pool, nroll, nstep, spec, state0, NULL, mcSTATE_CTRL, ctrl, states_out,
// sensor_out). Return 0, or -1 on bad arguments (message printed; a control_spec bit outside
// mcSTATE_USER). Nullable: warmstart, control, states_out, sensor_out.
MCAPI int mc_rolloutEx(mcRolloutPool* pool, int nroll, int nstep, unsigned int spec,
                       const mcNum* state0, const mcNum* warmstart, unsigned int control_spec,
                       const mcNum* control, mcNum* states_out, mcNum* sensor_out);

//---------------------------------- derivatives ---------------------------------------------------

// Finite-difference transition matrices of one mc_step at d's state (MuJoCo's mjd_transitionFD,
// control-theory layout, row-major; docs/derivatives.md). With x = (qpos in the tangent space,
// qvel, act), ndx = 2*nv + na, and u = ctrl:
//   A = d x_next / d x          (ndx x ndx)     B = d x_next / d u          (ndx x nu)
//   C = d sensordata / d x      (nsensordata x ndx)
//   D = d sensordata / d u      (nsensordata x nu)
// Forward differences, or centered ones if flg_centered; a limited control is only moved inside
// its range. Every evaluation starts from d's full integration state (warmstart and plugin state
// included), so the result is a pure function of it. d's state is restored on return; its
// derived quantities (xpos, sensordata, ...) are those of the last evaluation (call mc_forward
// to refresh them). Uses d's stack, allocates nothing. Return the number of columns set to zero
// because an evaluation raised a warning or was not finite (message printed), 0 normally, -1 on
// bad arguments. Nullable: A, B, C, D.
MCAPI int mcd_transitionFD(const mcModel* m, mcData* d, mcNum eps, int flg_centered, mcNum* A,
                           mcNum* B, mcNum* C, mcNum* D);

// mcd_transitionFD with the columns spread over a rollout pool made for m, with the same stage
// reuse per thread (results are bitwise identical to mcd_transitionFD for any thread count). The
// pool must take at least mcd_transitionFDItems(m, flg_centered) items per call. Scratch comes
// from d's stack (one evaluator per thread). Same return values. Nullable: A, B, C, D.
MCAPI int mcd_transitionFDPool(mcRolloutPool* pool, const mcModel* m, mcData* d, mcNum eps,
                               int flg_centered, mcNum* A, mcNum* B, mcNum* C, mcNum* D);

// Most evaluations one mcd_transitionFDPool call hands to the pool at once (the nbatch to give
// mc_rolloutCreate): 1 + (flg_centered ? 2 : 1) * (2*nv + na + nu).
MCAPI int mcd_transitionFDItems(const mcModel* m, int flg_centered);

// Transition matrices A, B (as mcd_transitionFD's) with the constraint solver differentiated
// implicitly (docs/derivatives.md, "Implicit gradients"): the smooth dynamics of the velocity,
// activation and control columns by centered differences, the solver's response to them by its
// 'derivative' entry (ABI 1.5; ipm: the implicit function theorem at the relaxed solution with
// central-path parameter kappa > 0, or at its own tolerance with kappa 0); position columns by
// centered differences of steps whose solver solution is the entry's relaxed one at kappa.
// Needs a single-stage integrator (Euler, implicit, implicitfast) and, when there are constraint
// rows, a solver with a derivative. Same state handling and return values as mcd_transitionFD.
// Nullable: A, B. (mcd_transitionImplicitEx adds the sensor blocks.)
MCAPI int mcd_transitionImplicit(const mcModel* m, mcData* d, mcNum eps, mcNum kappa, mcNum* A,
                                 mcNum* B);

// mcd_transitionImplicit with the sensor blocks C = d sensordata / d x (nsensordata x ndx) and
// D = d sensordata / d u (nsensordata x nu) of the same relaxed and linearized steps; sensors that
// read per-row constraint forces (efc_force: touch, force, torque, ...) get the rows of
// mcd_transitionFD's centered C, D (docs/derivatives.md). Nullable: A, B, C, D.
MCAPI int mcd_transitionImplicitEx(const mcModel* m, mcData* d, mcNum eps, mcNum kappa,
                                   mcNum* A, mcNum* B, mcNum* C, mcNum* D);

// mcd_transitionImplicitEx with the columns spread over a rollout pool made for m (at least
// mcd_transitionFDItems(m, 0) items); bitwise identical to it for any thread count. Scratch from
// d's stack. Same return values. Nullable: A, B, C, D.
MCAPI int mcd_transitionImplicitPool(mcRolloutPool* pool, const mcModel* m, mcData* d, mcNum eps,
                                     mcNum kappa, mcNum* A, mcNum* B, mcNum* C, mcNum* D);

// Finite-difference Jacobians of inverse dynamics (MuJoCo 3's mjd_inverseFD; forward
// differences) at d's qpos, qvel, qacc, with f = qfrc_inverse (minus qfrc_actuator if
// flg_actuation), s = sensordata (computed after the inverse dynamics), M = qM (sparse, nM).
// Layout transposed w.r.t. control theory, row i is the derivative w.r.t. input i:
//   DfDq, DfDv, DfDa: (nv x nv)    DsDq, DsDv, DsDa: (nv x nsensordata)    DmDq: (nv x nM)
// with q in the tangent space. d's qpos, qvel, qacc are restored and the nominal inverse results
// left in d. Uses d's stack. Return the number of rows set to zero (evaluation not finite),
// 0 normally, -1 on bad arguments. Nullable: every output.
MCAPI int mcd_inverseFD(const mcModel* m, mcData* d, mcNum eps, int flg_actuation, mcNum* DfDq,
                        mcNum* DfDv, mcNum* DfDa, mcNum* DsDq, mcNum* DsDv, mcNum* DsDa,
                        mcNum* DmDq);

#ifdef __cplusplus
}
#endif

#endif  // MODUCO_MODUCO_H_
