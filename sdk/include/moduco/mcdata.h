// Moduco: simulation data, a flat struct of arrays with MuJoCo's field names.
//
// One allocation per mcData: the arrays listed in MC_DATA_POINTERS, then an arena that holds
// contacts and constraint rows (growing up) and a scratch stack (growing down). Nothing in the
// step loop calls malloc; scratch memory comes from mc_stackAlloc between mc_markStack and
// mc_freeStack in the same function.
#ifndef MODUCO_MCDATA_H_
#define MODUCO_MCDATA_H_

#include <stddef.h>
#include <stdint.h>

#include <moduco/mctnum.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mcpHeader_;

typedef enum mctWarning_ {        // warning types
  mcWARN_INERTIA = 0,             // (near) singular inertia matrix
  mcWARN_CONTACTFULL,             // too many contacts in contact list
  mcWARN_CNSTRFULL,               // too many constraints
  mcWARN_VGEOMFULL,               // too many visual geoms (unused)
  mcWARN_BADQPOS,                 // bad number in qpos
  mcWARN_BADQVEL,                 // bad number in qvel
  mcWARN_BADQACC,                 // bad number in qacc
  mcWARN_BADCTRL,                 // bad number in ctrl
  mcWARN_PLUGINCHECK,             // a plugin's output failed check mode (info: timer slot)
  mcNWARNING
} mctWarning;

typedef enum mctConstraint_ {     // type of constraint row (efc_type)
  mcCNSTR_EQUALITY = 0,           // equality constraint
  mcCNSTR_FRICTION_DOF,           // dof friction loss
  mcCNSTR_FRICTION_TENDON,        // tendon friction loss
  mcCNSTR_LIMIT_JOINT,            // joint limit
  mcCNSTR_LIMIT_TENDON,           // tendon limit
  mcCNSTR_CONTACT_FRICTIONLESS,   // frictionless contact
  mcCNSTR_CONTACT_PYRAMIDAL,      // frictional contact, pyramidal friction cone
  mcCNSTR_CONTACT_ELLIPTIC        // frictional contact, elliptic friction cone
} mctConstraint;

typedef enum mctConstraintState_ {  // constraint state (efc_state)
  mcCNSTRSTATE_SATISFIED = 0,     // constraint satisfied, zero cost (limit, contact)
  mcCNSTRSTATE_QUADRATIC,         // quadratic cost (equality, friction, limit, contact)
  mcCNSTRSTATE_LINEARNEG,         // linear cost, negative side (friction)
  mcCNSTRSTATE_LINEARPOS,         // linear cost, positive side (friction)
  mcCNSTRSTATE_CONE               // squared distance to cone cost (elliptic contact)
} mctConstraintState;

typedef enum mctTimer_ {          // stage timers (filled only when profiling is on)
  mcTIMER_STEP = 0,               // mc_step
  mcTIMER_FORWARD,                // mc_forward
  mcTIMER_INVERSE,                // mc_inverse
  mcTIMER_POSITION,               // fwdPosition
  mcTIMER_VELOCITY,               // fwdVelocity
  mcTIMER_ACTUATION,              // fwdActuation
  mcTIMER_ACCELERATION,           // fwdAcceleration
  mcTIMER_CONSTRAINT,             // fwdConstraint (solver plugin)
  mcTIMER_POS_KINEMATICS,         // kinematics, com, tendon, transmission
  mcTIMER_POS_INERTIA,            // crb, factorM
  mcTIMER_POS_COLLISION,          // collision
  mcTIMER_POS_MAKE,               // make constraints
  mcTIMER_POS_PROJECT,            // project constraints
  mcTIMER_INTEGRATOR,             // integrator plugin
  mcTIMER_SENSOR,                 // sensor plugins (all stages)
  mcTIMER_POSTSOLVER,             // postsolver plugin (noslip)
  mcNTIMER
} mctTimer;

// Per-plugin timers (mcData.timer_plugin, filled only when profiling is on): every call the core
// makes into a plugin is added to the slot of that plugin, so a stage timer can be split by
// plugin. Each slot's calls happen inside one stage timer, so the slots of a stage sum to at most
// that stage's timer. mc_timerPluginName(m, slot) names the plugin of a slot (NULL: unused).
#define mcNTIMERCOLLISION 8       // collision plugin slots (the last also takes any further ones)
#define mcNTIMERPLUGIN 64         // size of mcData.timer_plugin

typedef enum mctTimerPlugin_ {    // slots of mcData.timer_plugin
  mcTIMERPLUGIN_INTEGRATOR = 0,   // m->integrator step            (within mcTIMER_INTEGRATOR)
  mcTIMERPLUGIN_SOLVER,           // m->solver solve               (within mcTIMER_CONSTRAINT)
  mcTIMERPLUGIN_POSTSOLVER,       // m->postsolver solve           (within mcTIMER_POSTSOLVER)
  mcTIMERPLUGIN_COLLISION,        // + k: narrow-phase calls of collision plugin k in registry
                                  // order (descending priority) (within mcTIMER_POS_COLLISION)
  mcTIMERPLUGIN_ELEMENT = mcTIMERPLUGIN_COLLISION + mcNTIMERCOLLISION
                                  // + i: m->plugin[i]: actuator act_dot/force calls (within
                                  // mcTIMER_ACTUATION), sensor compute calls (within
                                  // mcTIMER_SENSOR); the last slot also takes any further i
} mctTimerPlugin;

typedef struct mcWarningStat_ {   // warning statistics
  int lastinfo;                   // info from last warning
  int number;                     // how many times was warning raised
} mcWarningStat;

typedef struct mcTimerStat_ {     // timer statistics
  double duration;                // cumulative duration (seconds)
  int number;                     // how many times was timer called
} mcTimerStat;

#define mcNSOLVER 200             // size of the solver statistics array

typedef struct mcSolverStat_ {    // per-iteration solver statistics
  mcNum improvement;              // cost reduction, scaled by 1/trace(M(qpos0))
  mcNum gradient;                 // gradient norm (primal only, scaled)
  mcNum lineslope;                // slope in linesearch
  int nactive;                    // number of active constraints
  int nchange;                    // number of constraint state changes
  int neval;                      // number of cost evaluations in line search
  int nupdate;                    // number of Cholesky updates in line search
} mcSolverStat;

typedef struct mcContact_ {       // result of collision detection functions
  // contact parameters set by near-phase collision function
  mcNum dist;                     // distance between nearest points; neg: penetration
  mcNum pos[3];                   // position of contact point: midpoint between geoms
  mcNum frame[9];                 // normal is in [0-2], points from geom1 to geom2

  // contact parameters set by mc_collideGeoms
  mcNum includemargin;            // include if dist<includemargin=margin-gap
  mcNum friction[5];              // tangent1, 2, spin, roll1, 2
  mcNum solref[mcNREF];           // constraint solver reference, normal direction
  mcNum solreffriction[mcNREF];   // constraint solver reference, frictional directions
  mcNum solimp[mcNIMP];           // constraint solver impedance
  mcNum mu;                       // friction of regularized cone, set by constraint assembly

  // internal storage used by engine
  mcNum H[36];                    // cone Hessian: solver scratch (the built-in Newton)

  // contact descriptors set by mc_collideGeoms
  int dim;                        // contact space dimensionality: 1, 3, 4 or 6
  int geom1;                      // id of geom 1
  int geom2;                      // id of geom 2

  // flag set by mc_setContact or mc_instantiateContact
  int exclude;                    // 0: include, 1: in gap, 2: fused, 3: no dofs

  // address computed by constraint assembly
  int efc_address;                // address in efc; -1: not included
} mcContact;

// Array fields of mcData with fixed size: X(type, name, rows, cols); rows and cols are model
// size fields or constants.
#define MC_DATA_POINTERS(X)                                                                        \
  /* state */                                                                                      \
  X(mcNum,  qpos,              nq,       1)  /* position */                                        \
  X(mcNum,  qvel,              nv,       1)  /* velocity */                                        \
  X(mcNum,  act,               na,       1)  /* actuator activation */                             \
  X(mcNum,  qacc_warmstart,    nv,       1)  /* acceleration used for warmstart */                 \
  X(mcNum,  plugin_state,      npluginstate, 1) /* plugin state */                                 \
  /* plugin-defined warnings (mcModel.plugin_warnadr) */                                           \
  X(int,    plugin_warncount,  npluginwarn, 1) /* how many times each was raised */                \
  X(int,    plugin_warninfo,   npluginwarn, 1) /* info of the last one */                          \
  /* control */                                                                                    \
  X(mcNum,  ctrl,              nu,       1)  /* control */                                         \
  X(mcNum,  qfrc_applied,      nv,       1)  /* applied generalized force */                       \
  X(mcNum,  xfrc_applied,      nbody,    6)  /* applied Cartesian force/torque */                  \
  X(mcByte, eq_active,         neq,      1)  /* enable/disable constraints */                      \
  /* mocap data */                                                                                 \
  X(mcNum,  mocap_pos,         nmocap,   3)  /* positions of mocap bodies */                       \
  X(mcNum,  mocap_quat,        nmocap,   4)  /* orientations of mocap bodies */                    \
  /* dynamics */                                                                                   \
  X(mcNum,  qacc,              nv,       1)  /* acceleration */                                    \
  X(mcNum,  act_dot,           na,       1)  /* time-derivative of actuator activation */          \
  /* user data */                                                                                  \
  X(mcNum,  userdata,          nuserdata, 1) /* user data, not touched by engine */                \
  /* sensors */                                                                                    \
  X(mcNum,  sensordata,        nsensordata, 1) /* sensor data array */                             \
  /* computed by mc_fwdPosition / mc_kinematics */                                                 \
  X(mcNum,  xpos,              nbody,    3)  /* Cartesian position of body frame */                \
  X(mcNum,  xquat,             nbody,    4)  /* Cartesian orientation of body frame */             \
  X(mcNum,  xmat,              nbody,    9)  /* Cartesian orientation of body frame */             \
  X(mcNum,  xipos,             nbody,    3)  /* Cartesian position of body com */                  \
  X(mcNum,  ximat,             nbody,    9)  /* Cartesian orientation of body inertia */           \
  X(mcNum,  xanchor,           njnt,     3)  /* Cartesian position of joint anchor */              \
  X(mcNum,  xaxis,             njnt,     3)  /* Cartesian joint axis */                            \
  X(mcNum,  geom_xpos,         ngeom,    3)  /* Cartesian geom position */                         \
  X(mcNum,  geom_xmat,         ngeom,    9)  /* Cartesian geom orientation */                      \
  X(mcNum,  site_xpos,         nsite,    3)  /* Cartesian site position */                         \
  X(mcNum,  site_xmat,         nsite,    9)  /* Cartesian site orientation */                      \
  X(mcNum,  cam_xpos,          ncam,     3)  /* Cartesian camera position */                       \
  X(mcNum,  cam_xmat,          ncam,     9)  /* Cartesian camera orientation */                    \
  /* computed by mc_fwdPosition / mc_comPos */                                                     \
  X(mcNum,  subtree_com,       nbody,    3)  /* center of mass of each subtree */                  \
  X(mcNum,  cdof,              nv,       6)  /* com-based motion axis of each dof (rot:lin) */     \
  X(mcNum,  cinert,            nbody,   10)  /* com-based body inertia and mass */                 \
  /* computed by mc_fwdPosition / mc_tendon, mc_transmission */                                    \
  X(mcNum,  ten_length,        ntendon,  1)  /* tendon lengths */                                  \
  X(mcNum,  ten_J,             ntendon, nv)  /* tendon Jacobian (dense) */                         \
  X(mcNum,  actuator_length,   nu,       1)  /* actuator lengths */                                \
  X(mcNum,  actuator_moment,   nu,      nv)  /* actuator moments (dense) */                        \
  /* computed by mc_fwdPosition / mc_crb, mc_factorM */                                            \
  X(mcNum,  crb,               nbody,   10)  /* com-based composite inertia and mass */            \
  X(mcNum,  qM,                nM,       1)  /* total inertia (sparse, tree layout) */             \
  X(mcNum,  qLD,               nM,       1)  /* L'*D*L factorization of M (sparse) */              \
  X(mcNum,  qLDiagInv,         nv,       1)  /* 1/diag(D) */                                       \
  X(mcNum,  qLDiagSqrtInv,     nv,       1)  /* 1/sqrt(diag(D)) */                                 \
  /* computed by mc_fwdVelocity */                                                                 \
  X(mcNum,  ten_velocity,      ntendon,  1)  /* tendon velocities */                               \
  X(mcNum,  actuator_velocity, nu,       1)  /* actuator velocities */                             \
  X(mcNum,  cvel,              nbody,    6)  /* com-based velocity (rot:lin) */                    \
  X(mcNum,  cdof_dot,          nv,       6)  /* time-derivative of cdof (rot:lin) */               \
  X(mcNum,  qfrc_bias,         nv,       1)  /* C(qpos,qvel) */                                    \
  X(mcNum,  qfrc_passive,      nv,       1)  /* passive force */                                   \
  X(mcNum,  qfrc_gravcomp,     nv,       1)  /* gravity compensation force */                      \
  /* computed by mc_fwdActuation */                                                                \
  X(mcNum,  actuator_force,    nu,       1)  /* actuator force in actuation space */               \
  X(mcNum,  qfrc_actuator,     nv,       1)  /* actuator force */                                  \
  /* computed by mc_fwdAcceleration */                                                             \
  X(mcNum,  qfrc_smooth,       nv,       1)  /* net unconstrained force */                         \
  X(mcNum,  qacc_smooth,       nv,       1)  /* unconstrained acceleration */                      \
  /* computed by mc_fwdConstraint / mc_inverse */                                                  \
  X(mcNum,  qfrc_constraint,   nv,       1)  /* constraint force */                                \
  X(mcNum,  qfrc_inverse,      nv,       1)  /* net external force; should equal qfrc_applied */   \
  /* computed by mc_rnePostConstraint (sensors) */                                                 \
  X(mcNum,  cacc,              nbody,    6)  /* com-based acceleration */                          \
  X(mcNum,  cfrc_int,          nbody,    6)  /* com-based interaction force with parent */         \
  X(mcNum,  cfrc_ext,          nbody,    6)  /* com-based external force on body */          \
  /* computed by mc_fwdPosition / mc_island (ABI 1.4); nisland <= nv islands */                   \
  X(int,    dof_island,        nv,       1)  /* island of each dof; -1: no constraint row */   \
  X(int,    island_dofadr,     nv,       1)  /* island i: start in island_dofind */            \
  X(int,    island_dofnum,     nv,       1)  /* island i: number of dofs */                    \
  X(int,    island_dofind,     nv,       1)  /* dofs of the islands, ascending in each */      \
  X(int,    island_efcadr,     nv,       1)  /* island i: start in island_efcind */            \
  X(int,    island_efcnum,     nv,       1)  /* island i: number of constraint rows */         \
  X(int,    island_iter,       nv,       1)  /* island i: solver iterations (island solve) */  \
  /* computed by mc_tendon, mc_transmission (ABI 1.4): columns [span0, span1) hold every        \
     nonzero of a row of ten_J / actuator_moment; the rest of the row is zero */                  \
  X(int,    ten_J_span,        ntendon,  2)  /* nonzero column range of each ten_J row */     \
  X(int,    actuator_moment_span, nu,    2)  /* nonzero column range of each moment row */   \
  /* sleeping trees (mcENBL_SLEEP, core/engine/sleep.c): trees numbered by root dof; entries     \
     past the number of trees unused */                                                          \
  X(int,    tree_asleep,       nv,       1)  /* <0: awake (-11 + steps at rest); >=0: asleep,   \
                                                 next tree of its sleeping cycle */              \
  X(int,    body_awake,        nbody,    1)  /* 1: awake, 0: asleep, -1: static (no dofs) */   \
  /* collision plugins' separating directions (appended in ABI 1.8, collision-gjk nativeccd.c): a  \
     hash of geom pairs to 2 ngeom slots of (key, direction, climb starts); only speeds up the \
     narrow phase, never changes a result; relaxed atomics, as narrow-phase threads share it */ \
  X(mcNum,  collision_sepdir,  ngeom,   12)  /* per slot: g1 ngeom + g2 + 1 (0: empty), unit   \
                                                 direction from g1 toward g2, 2 hull vertices */

// Simulation data. Create with mc_makeData, free with mc_deleteData.
typedef struct mcData_ {
  // constant sizes
  size_t narena;                  // size of the arena in bytes (contacts, efc, stack)
  size_t nbuffer;                 // size of the main buffer in bytes

  // stack pointer and arena
  size_t pstack;                  // first available byte in stack (grows down from the end)
  size_t parena;                  // first available byte in arena (grows up)
  size_t pbase;                   // start of the innermost stack frame (mc_markStack)
  size_t maxuse_stack;            // maximum stack allocation in bytes
  size_t maxuse_arena;            // maximum arena allocation in bytes
  int maxuse_con;                 // maximum number of contacts
  int maxuse_efc;                 // maximum number of scalar constraints
  int stack_marks;                // number of open mc_markStack frames (checked in debug)

  // diagnostics
  mcWarningStat warning[mcNWARNING];  // warning statistics
  mcTimerStat timer[mcNTIMER];        // timer statistics
  int profile;                        // nonzero: fill timer[] (off by default, zero cost)
  unsigned int warning_policy;        // bits (1<<mctWarning) escalated to errors (0: none)
  int warning_stop;                   // 1 + first escalated warning since reset; 0: none
  int plugin_check;                   // nonzero: check every plugin's output (mc_setPluginCheck;
                                      // MODUCO_PLUGIN_CHECK=1 sets it in mc_makeData)

  // solver statistics
  int solver_iter;                // number of solver iterations
  int solver_nnz;                 // number of non-zeros in Hessian or efc_AR
  mcSolverStat solver[mcNSOLVER]; // solver statistics per iteration
  mcNum solver_fwdinv[2];         // forward-inverse gap: constraint force, applied force

  // variable sizes
  int ne;                         // number of equality constraints
  int nf;                         // number of friction constraints
  int nefc;                       // number of constraints
  int ncon;                       // number of detected contacts

  // global properties
  mcNum time;                     // simulation time
  mcNum energy[2];                // potential, kinetic energy

  // buffers
  void* buffer;                   // main buffer; all pointers point in it
  void* arena;                    // arena plus stack buffer (inside buffer)

  // arrays
#define X(type, name, nr, nc) type* name;
  MC_DATA_POINTERS(X)
#undef X

  // arena-allocated: contacts and constraints (valid after mc_fwdPosition)
  mcContact* contact;             // list of all detected contacts                 (ncon x 1)
  int*   efc_type;                // constraint type                               (nefc x 1)
  int*   efc_id;                  // id of object of specified type                (nefc x 1)
  int*   efc_state;               // constraint state                              (nefc x 1)
  mcNum* efc_J;                   // constraint Jacobian, dense; NULL when sparse  (nefc x nv)
  mcNum* efc_pos;                 // constraint position (equality, contact)       (nefc x 1)
  mcNum* efc_margin;              // inclusion margin (contact)                    (nefc x 1)
  mcNum* efc_frictionloss;        // frictionloss (friction)                       (nefc x 1)
  mcNum* efc_diagApprox;          // approximation to diagonal of A                (nefc x 1)
  mcNum* efc_KBIP;                // stiffness, damping, impedance, imp'           (nefc x 4)
  mcNum* efc_D;                   // constraint mass                               (nefc x 1)
  mcNum* efc_R;                   // inverse constraint mass                       (nefc x 1)
  mcNum* efc_vel;                 // velocity in constraint space: J*qvel          (nefc x 1)
  mcNum* efc_aref;                // reference pseudo-acceleration                 (nefc x 1)
  mcNum* efc_b;                   // J*qacc_smooth - aref, set before the solver   (nefc x 1)
  mcNum* efc_force;               // constraint force in constraint space          (nefc x 1)

  // The Jacobian J is stored in ONE of two layouts. Dense (option jacobian="dense", or "auto"
  // with nv < 60): efc_J holds J row-major and the four arrays below are NULL. Sparse (jacobian
  // "sparse", or "auto" with nv >= 60): efc_J is NULL and J is only in the row-sparse arrays
  // below. One way reads either: host->rowJ (plugins) gives a row's entries and column indices
  // (NULL for a dense row); host->mulJ / host->mulJT multiply by J and J'.
  // arena-allocated: row-sparse J when the Jacobian is sparse, else NULL
  int*   efc_J_rownnz;            // number of non-zeros in each row               (nefc x 1)
  int*   efc_J_rowadr;            // row start address in colind and val           (nefc x 1)
  int*   efc_J_colind;            // column indices, ascending within a row        (nnzJ x 1)
  mcNum* efc_J_val;               // values                                        (nnzJ x 1)

  // arena-allocated on request by host->makeAR (solver contract): efc_AR = J M^-1 J' + diag(R),
  // dense (nefc x nefc, efc_AR_rownnz NULL) or row-sparse like efc_J (every row holds its
  // diagonal); NULL until requested, and again after the next constraint assembly
  mcNum* efc_AR;                  // values                                        (nnzAR x 1)
  int*   efc_AR_rownnz;           // number of non-zeros in each row               (nefc x 1)
  int*   efc_AR_rowadr;           // row start address in colind and values        (nefc x 1)
  int*   efc_AR_colind;           // column indices, ascending within a row        (nnzAR x 1)

  // plugin data: per-instance scratch of plugin_datasize bytes inside the buffer (NULL when 0)
  int nplugin;                    // number of plugin instances (copied from the model)
  void** plugin_data;             // per-instance data                             (nplugin x 1)
  const struct mcpHeader_** plugin_desc;  // descriptors, kept so mc_deleteData can destroy

  // signature of the model this data was made for (sizes hash; mc_step refuses a mismatch)
  uint64_t model_signature;

  // per-plugin timers (mctTimerPlugin slots; filled only when profile is set, like timer[])
  mcTimerStat timer_plugin[mcNTIMERPLUGIN];

  // ABI 1.4: constraint islands (mc_island, after constraint assembly; docs/performance.md).
  // An island is a set of kinematic trees coupled by constraint rows, numbered by first dof.
  int nisland;                    // number of islands (0 when the model has no rows)
  int island_solved;              // 1 if the last solve went island by island, else 0
  int*   efc_island;              // arena: island of each row                     (nefc x 1)
  int*   island_efcind;           // arena: rows of the islands, ascending in each (nefc x 1)

  // ABI 1.4: island view. In the full data: island_view -1, island_model NULL. In the view the
  // core hands to an island-capable solver (mcpSolver.islands): the island's index and the full
  // model (the view's model holds the island's dofs only; docs/plugins.md, "Island solves")
  int island_view;
  const struct mcModel_* island_model;
  mcNum island_M0trace;           // island view: sum of the full model's dof_M0, in dof order

  // ABI 1.4: in-step thread pool (mc_bindThreadPool; NULL: the step runs on the caller only)
  struct mcThreadPool_* threadpool;
  void* threadwork;               // per-thread workspace of the bound pool (core-private)
} mcData;

#ifdef __cplusplus
}
#endif

#endif  // MODUCO_MCDATA_H_
