// Moduco core: the per-tree parts of the position and velocity stages, and the drivers that run
// them on the in-step thread pool (core/engine/parallel_stages.c; private to libmoduco).
//
// The bodies of each kinematic tree (a child subtree of the world) are a contiguous range in body
// order. A range function handles the bodies [first, last) of whole trees: it reads only the
// world and the bodies of the range and writes only theirs, so ranges run in parallel and give
// bitwise the results of the serial stage (which is the range of all bodies). Anything summed
// across trees (the world's subtree com) is finished on the caller in the serial order.
#ifndef MODUCO_CORE_ENGINE_PARALLEL_STAGES_H_
#define MODUCO_CORE_ENGINE_PARALLEL_STAGES_H_

#include <moduco/moduco.h>

// core/engine/kinematics.c: body frames of [first, last) (first 0: the world's frame first);
// geom and site frames of geoms [g0, g1) and sites [s0, s1) from their bodies' frames
void mci_kinematicsRange(const mcModel* m, mcData* d, int first, int last);
void mci_placeRange(const mcModel* m, mcData* d, int g0, int g1, int s0, int s1);

// core/engine/camera.c: mc_camlight of the cameras [c0, c1); whether camera i reads only its own
// tree's bodies (or the world's frame, set before the trees): then it may be placed in its tree's
// range after the subtree coms
void mci_camlightRange(const mcModel* m, mcData* d, int c0, int c1);
int mci_camlightInTree(const mcModel* m, int i);

// core/engine/kinematics.c: subtree coms, cinert and cdof of the trees [first, last) (first >= 1).
// A tree root's mass-weighted sum is added to the world's (rootsum NULL, serial only) or stored
// in rootsum[3 * root] for mci_comPosWorld, which then finishes the world's subtree com (the
// world's own mass-weighted com must be in subtree_com before either) and cinert.
void mci_comPosRange(const mcModel* m, mcData* d, int first, int last, mcNum* rootsum);
void mci_comPosWorld(const mcModel* m, mcData* d, const mcNum* rootsum);

// core/engine/velocity.c: mc_passive restricted to the joints [j0, j1), dofs [k0, k1) and bodies
// [b0, b1) of whole trees (b0 >= 1), for a model where mci_passiveTreesOk: no tendon
// spring-damper and no fluid forces, which may reach any dof
void mci_passiveRange(const mcModel* m, mcData* d, int j0, int j1, int k0, int k1, int b0,
                      int b1);
int mci_passiveTreesOk(const mcModel* m);

// core/engine/transmission.c: may mc_transmission run before collision? Only when every
// actuator's transmission is a joint or a tendon (no contact rows read, no scratch used)
int mci_transmissionEarlyOk(const mcModel* m);

// core/engine/actuation.c: may mc_fwdActuation run early, right after the transmissions and the
// actuator velocities beside the broad phase (mci_earlyParts with MCI_EARLY_TRN)? Only when no
// sensor of the position or velocity stage may read its outputs before the serial place, no
// actuator is a plugin, and qfrc_gravcomp is complete there (gravcompReady: the passive forces
// ran whole before it) or no joint takes gravity compensation through its actuators.
// mci_fwdActuationEarly runs it unless a control is bad (0: nothing done, the serial place then
// warns and zeroes the controls as always).
int mci_actuationEarlyOk(const mcModel* m, int gravcompReady);
int mci_fwdActuationEarly(const mcModel* m, mcData* d);

// core/engine/velocity.c: cvel and cdof_dot of the trees [first, last) (the world's cvel zero)
void mci_comVelRange(const mcModel* m, mcData* d, int first, int last);

// core/engine/velocity.c: mc_rne in parts: the world's entries of the scratch cacc, cfrc (6 x
// nbody each), then the passes of the trees [first, last), writing result at their dofs
void mci_rneWorld(const mcModel* m, mcNum* cacc, mcNum* cfrc);
void mci_rneRange(const mcModel* m, const mcData* d, int flg_acc, mcNum* cacc, mcNum* cfrc,
                  mcNum* result, int first, int last);

// core/engine/crb.c: mc_factorI and mc_solveLD restricted to the dofs [k0, k1) of whole trees
// (their rows reach only ancestors, which are in the same tree); d (nullable) gets the warnings;
// skipSimple: the factor is qLD of a model whose simple dofs' rows are zero off the diagonal
// (mci_simpleRowsZero), as mc_solveM takes it
void mci_factorRange(const mcModel* m, mcData* d, mcNum* LD, mcNum* diagInv, int k0, int k1);
void mci_solveLDRange(const mcModel* m, mcNum* x, int n, const mcNum* qLD,
                      const mcNum* qLDiagInv, int k0, int k1, int skipSimple);
int mci_simpleRowsZero(const mcModel* m);

// core/engine/crb.c: mc_crb and mc_factorM restricted to the bodies [first, last) and their dofs
// [k0, k1) (whole trees, first >= 1) of a model without tendon armature (mci_simpleRowsZero); the
// world's composite inertia is the caller's; d gets the pivot warnings
void mci_inertiaRange(const mcModel* m, mcData* d, int first, int last, int k0, int k1);

// mc_factorI and mc_solveLD with the trees on d's thread pool when it can (bitwise the same),
// else serially: the host's factorIPool and solveLDPool (ABI 1.7)
void mci_factorIPool(const mcModel* m, mcData* d, const mcNum* M, mcNum* qLD, mcNum* qLDiagInv);
void mci_solveLDPool(const mcModel* m, mcData* d, mcNum* x, int n, const mcNum* qLD,
                     const mcNum* qLDiagInv);

// core/engine/forward.c: qfrc_smooth (passive - bias + applied + actuator, then the applied
// Cartesian forces) of the bodies [b0, b1) and dofs [k0, k1) of whole trees (b0 >= 1), copied to
// qacc_smooth (mc_fwdAcceleration then solves it with M)
void mci_smoothRange(const mcModel* m, mcData* d, int b0, int b1, int k0, int k1);

// mc_fwdAcceleration's work (mci_smoothRange and the solve with d's factor of M) per tree as one
// job on d's pool; 0 (nothing done) when it should run serially (as mci_solveMDampedPool). 1 at
// once when the job beside the broad phase made it already this step (after the early actuation,
// each range once task 0 was done; no geom adhesion, whose forces the velocity stage adds later)
int mci_accelerationTrees(const mcModel* m, mcData* d);

// core/engine/crb.c: mci_solveMDamped restricted to the dofs [k0, k1) of whole trees (its rows
// of LD, diagInv and x); the serial call is the range of all dofs
void mci_solveMDampedRange(const mcModel* m, const mcData* d, const mcNum* D, mcNum* x,
                           mcNum* LD, mcNum* diagInv, int k0, int k1);

// mci_solveMDampedRange over the trees' ranges as one job on d's pool; 0 (nothing done) when it
// should run serially (no pool, or too little work for a job: see MINOFFDIAG)
int mci_solveMDampedPool(const mcModel* m, mcData* d, const mcNum* D, mcNum* x, mcNum* LD,
                         mcNum* diagInv);

// The trees' dofs (island.c mci_treeDofs: the root dof and chain length of every dof, the trees'
// runs of dofs) of a model of up to MCI_TREEDOFMAX dofs, kept with the workspace of d's pool (in
// the cut's struct below) so that the constraint assembly does not make them every step (~15
// instructions a dof on the caller: 9.7k a step on humanoid100). Made on the first call for a
// model and remade when the model, its signature or nv changes, as the cut (the tree layout is
// the model's, read-only while stepping).
#define MCI_TREEDOFMAX 2048
typedef struct {
  const mcModel* model;           // key: the model it was made for, its signature and nv
  uint64_t signature;
  int nv;
  int nrun;                       // the trees' runs: run[0 .. nrun] (run[nrun] = nv)
  int tree[MCI_TREEDOFMAX];
  int depth[MCI_TREEDOFMAX];
  int run[MCI_TREEDOFMAX + 1];
} mciTreeDofs;

// d's cache of the trees' dofs, made here if stale; NULL without a pool workspace (no pool bound,
// or a thread's view) or when the model has more than MCI_TREEDOFMAX dofs (or none)
const mciTreeDofs* mci_treeDofsCache(const mcModel* m, mcData* d);

// The cut of the trees used by the jobs of a data's pool, kept with its workspace
// (mci_treeCutCache) and remade when the model or the number of ranges changes
#define MCI_MAXRANGE 64
typedef struct mciTreeCut_ {
  const mcModel* model;           // key: the model it was made for, its signature, want and sizes
  uint64_t signature;
  int want, nbody, ngeom, nsite, nv, ncam, njnt;
  int n;                          // ranges
  int body[MCI_MAXRANGE + 1];     // range k: bodies body[k] .. body[k+1]-1 (body[0] >= 1)
  int geom[MCI_MAXRANGE + 1];     // its geoms (geom[0] 0: the world's with the first range)
  int site[MCI_MAXRANGE + 1];     // its sites
  int placed;                     // geoms and sites sorted by body: placed by the ranges
  int cam[MCI_MAXRANGE + 1];      // its cameras (when camplaced)
  int camplaced;                  // cameras sorted by body, each in its tree: placed by the ranges
  int dof[MCI_MAXRANGE + 1];      // its dofs (when dofsorted)
  int dofsorted;                  // dofs sorted by body
  int jnt[MCI_MAXRANGE + 1];      // its joints (when jntsorted)
  int jntsorted;                  // joints sorted by body
  int actuated;                   // not of the cut: mci_takeActuationEarly's flag, per step
  int accelerated;                // not of the cut: the smooth acceleration was made beside the
                                  // broad phase (mci_accelerationTrees takes it), per step
  mciTreeDofs dofs;               // not of the cut: mci_treeDofsCache (its own key)
} mciTreeCut;

// c made m's cut into want ranges, with its objects placed (geoms, sites, cameras, dofs, joints),
// unless it holds that cut already (its key: the model, d's model signature, want and the sizes)
const mciTreeCut* mci_treeCutFor(mciTreeCut* c, const mcModel* m, const mcData* d, int want);

// Ranges a job of whole trees asks for per thread (the stages' jobs and the plugins', so a pool
// thread keeps the same trees): more ranges than threads, so that a thread that joins a job late
// or whose ranges run slow is balanced by the others taking its block's rest. 8, not 4: with 4
// the caller of humanoid100 waited 2.1-2.7 % of its step at the join of the job beside the broad
// phase, with 8 1.2-1.6 % (perf sampling, docs/speed.md session 16); the hand-off of a range is
// a few hundred instructions against thousands of its work.
#define MCI_RANGEPERTHREAD 8

// The number of ranges (want of mci_cutTrees) for a pool of nthread threads: MCI_RANGEPERTHREAD a
// thread, at most MCI_MAXRANGE
static inline int mci_rangesWanted(int nthread) {
  long want = (long)MCI_RANGEPERTHREAD * nthread;
  return want < MCI_MAXRANGE ? (int)want : MCI_MAXRANGE;
}

// The threads' blocks of the job beside the broad phase (mci_inertiaTreesBeside) for
// mci_poolRunCut (first: nthread + 1 ints): its tasks are task 0 the whole-model parts when extra
// (else none), then the n ranges in order with the broad phase inserted before the first range of
// the last thread's block, and thread t's block holds the ranges mci_poolRun gives thread t in the
// other tree jobs of a step (n * t / nthread .. n * (t + 1) / nthread - 1: kinematics, velocity,
// acceleration, the plugins' tree jobs), so a range's trees stay on the core that made them.
// Returns the broad phase's task (>= 1).
int mci_besideBlocks(int n, int nthread, int extra, int* first);

// Cut bodies 1 .. nbody-1 into at most want (<= 64) ranges of whole trees balanced by body count:
// range k is bodies body[k] .. body[k+1]-1; returns the number of ranges. The same model and want
// give the same cut, so pool thread t (which takes the same block of ranges first in every job)
// keeps the same trees across the stages of a step.
int mci_cutTrees(const mcModel* m, int want, int* body);

// mc_kinematics, and with com mc_comPos + mc_camlight, with the trees on d's thread pool; 0
// (nothing done) when no pool is bound, in plugin check mode, with fewer than two trees, or when
// the threads other than the busiest would take fewer than MCI_MINPOSSHARED bodies of the cut
// (mci_positionShared). Without com the stage beside the broad phase makes the com quantities
// (mci_comLaterOk). Kinematics cost ~440 instructions a body (humanoid100: 51k a step for 117
// bodies), a job's hand-off about as much as a few bodies: from 32 bodies off the busiest thread
// the job takes ~14k instructions off the critical path. (Before session 15 the threshold was
// 160 bodies, which kept humanoid100's 51k on the caller; a single tree, or a robot beside a
// few free objects, stays serial.)
#define MCI_MINPOSSHARED 32
int mci_positionShared(const mciTreeCut* c, int nthread);
int mci_positionTrees(const mcModel* m, mcData* d, int com);

// mc_comVel + mc_rne(m, d, 0, d->qfrc_bias) with the trees on d's thread pool; 0 as above
int mci_velocityTrees(const mcModel* m, mcData* d);

// May mc_forward run the velocity stage's per-tree part (com velocities, bias forces) and the
// parts of mci_earlyParts early, beside the broad phase in the position stage
// (mci_velocityEarly)? Only on d's pool (where the inertia stage runs beside the broad phase),
// not in plugin check mode, and not with sleeping trees (waking a tree after collision may change
// qvel). Neither reads what the other writes, and it is the serial stages' code, so the results
// are bitwise those of the position and velocity stages.
int mci_velocityEarlyOk(const mcModel* m, const mcData* d);

// What else an early velocity stage does: MCI_EARLY_TRN the transmissions (mc_transmission) and
// the tendon and actuator velocities (mc_fwdVelocityTendonActuator) when mci_transmissionEarlyOk,
// MCI_EARLY_PASSIVE the passive forces (mc_passive) when those are done or mci_passiveTreesOk
#define MCI_EARLY_TRN 1
#define MCI_EARLY_PASSIVE 2
int mci_earlyParts(const mcModel* m);

// mc_comVel + mc_rne(m, d, 0, d->qfrc_bias) and the parts of mci_earlyParts on the calling
// thread (d may be a thread's view; its scratch is the view's stack); with d->profile their time
// is added to the stages' timers
void mci_velocityEarly(const mcModel* m, mcData* d);

// The inertia stage (mc_crb, mc_factorM under the inertia timer), and the same followed by
// mci_velocityEarly: the stages mc_forward runs beside the broad phase (mci_collisionWith) when a
// pool is bound
void mci_inertiaStage(const mcModel* m, mcData* d);
void mci_inertiaVelocityStage(const mcModel* m, mcData* d);

// May mc_forward leave mc_comPos and mc_camlight (after serial kinematics, or the per-tree job
// without them) to the stage beside the broad phase? A pool, no plugin check, no sleep, and mc_tendon reads no com
// quantity (fixed tendons only); nothing else between reads them (the broad phase reads the geoms'
// poses). The stages then are mci_comInertiaStage or mci_comInertiaVelocityStage: mc_comPos and
// mc_camlight, then the stage above; cut into the trees, each range makes its com quantities and
// cameras first and the world's com follows the job (the serial functions' bits).
int mci_comLaterOk(const mcModel* m, const mcData* d);
void mci_comInertiaStage(const mcModel* m, mcData* d);
void mci_comInertiaVelocityStage(const mcModel* m, mcData* d);

// Run fn(ctx) (the broad phase, on d) beside stage (mci_inertiaStage or mci_inertiaVelocityStage)
// cut into the trees' ranges, all as tasks of one job on d's pool, so the threads share the work
// whatever the two cost; bitwise the serial stages' results (pivot warnings replayed on d in the
// serial order). 0 (nothing done) when the stage cannot be cut: another stage, tendon armature,
// fewer than two trees, dofs not sorted by body, or no pool. With mci_inertiaVelocityStage, task 0
// also runs the actuation after the early transmissions (mci_actuationEarlyOk; taken by
// mci_takeActuationEarly), and then each range makes its share of the smooth acceleration
// (taken by mci_accelerationTrees): mc_forwardSkip relies on nothing after the job, up to
// mc_fwdAcceleration, writing the forces these read (only geom adhesion does, then they wait).
int mci_inertiaTreesBeside(const mcModel* m, mcData* d, void (*stage)(const mcModel*, mcData*),
                           void (*fn)(void*), void* ctx);

// Did the last job beside the broad phase (mci_inertiaTreesBeside of mci_inertiaVelocityStage) run
// mc_fwdActuation too (mci_actuationEarlyOk, mci_fwdActuationEarly)? Then mc_forwardSkip skips
// it in its place; the flag is cleared by the call. 0 without a pool.
int mci_takeActuationEarly(mcData* d);

#endif  // MODUCO_CORE_ENGINE_PARALLEL_STAGES_H_
