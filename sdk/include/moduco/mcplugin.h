// Moduco: the plugin ABI.
//
// A plugin library (.so) exports one C symbol, MCP_ENTRY_SYMBOL ("mcp_library"), of type
// mcpLibraryFn. The host calls it once with its service table (mcpHost) and receives an mcpLibrary
// listing the library's plugin descriptors. Every descriptor starts with an mcpHeader that
// carries the ABI version, the size of the whole descriptor and the precision tag (sizeof(mcNum)).
//
// Host rules (what the loader checks, in order): the entry symbol exists; library and every
// descriptor have abi_major == MCP_ABI_MAJOR and abi_minor <= MCP_ABI_MINOR; precision ==
// sizeof(mcNum); struct_size covers the fields of that ABI minor; the library (ABI 1.2 or newer)
// carries the layout stamp of the host's mcModel and mcData (MCP_LAYOUT, MCP_LAYOUT_SIZES), so a
// plugin built against other model/data headers is refused; kind is known; name is a valid,
// not yet registered name; mandatory callbacks are non-NULL. A library or descriptor that fails
// is skipped with a message naming the file; the host never crashes on a bad library.
//
// Plugin rules: every callback is reentrant. Per-simulation state lives in mcData (act,
// plugin_state, plugin_data); the model is read-only. Callbacks made during mc_step never call
// malloc: scratch memory comes from host->stackAlloc between host->markStack/host->freeStack.
// A plugin calls into the core only through the mcpHost table it is handed, so it links against
// nothing in libmoduco and keeps working with any newer core of the same ABI major.
//
// Appending fields at the end of a descriptor or of mcpHost bumps MCP_ABI_MINOR; any other
// change bumps MCP_ABI_MAJOR. tests/plugin pins offsetof/sizeof of every struct here.
#ifndef MODUCO_MCPLUGIN_H_
#define MODUCO_MCPLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#include <moduco/mctnum.h>
#include <moduco/mcmodel.h>
#include <moduco/mcdata.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MCP_ABI_MAJOR 1
#define MCP_ABI_MINOR 10
#define MCP_ENTRY_SYMBOL "mcp_library"
#define MCP_PRECISION ((uint32_t)sizeof(mcNum))
#define MCP_MAXNAME 64            // longest plugin name, including the terminating 0

typedef enum mcpKind_ {           // plugin kinds
  mcpKIND_SOLVER = 1,             // constraint solver: qacc and efc_force from efc_* arrays
  mcpKIND_POSTSOLVER,             // runs after the solver (noslip)
  mcpKIND_INTEGRATOR,             // advances time, qpos, qvel, act
  mcpKIND_COLLISION,              // narrow phase for a set of geom-type pairs
  mcpKIND_ACTUATOR,               // an actuator type: activation dynamics and force
  mcpKIND_SENSOR,                 // a sensor type
  mcpNKIND
} mcpKind;

struct mcpHost_;

//---------------------------------- common header -------------------------------------------------

// Header at the start of every descriptor.
typedef struct mcpHeader_ {
  uint32_t abi_major;             // MCP_ABI_MAJOR the plugin was built with
  uint32_t abi_minor;             // MCP_ABI_MINOR the plugin was built with
  uint32_t struct_size;           // sizeof the whole kind-specific descriptor
  uint32_t precision;             // sizeof(mcNum) the plugin was built with
  uint32_t kind;                  // mcpKind
  uint32_t flags;                 // reserved, must be 0
  const char* name;               // unique name: built-ins "newton", others "vendor.name"
  const char* version;            // plugin version, e.g. "1.0.0"
  const char* description;        // one line for 'moduco plugins'
  int code;                       // built-in option code (mctIntegrator, mctSolver), else -1

  // optional lifecycle hooks (NULL: not needed), called once per instance of the plugin in the
  // model, for every kind (ABI 1.3): init when an mcData is made (after plugin_state and the
  // ndata bytes of plugin_data[instance] are in place and zeroed), reset by mc_resetData and
  // keyframe resets, destroy when the mcData is deleted. instance: index in mcModel.plugin[].
  int  (*init)(const struct mcpHost_* host, const mcModel* m, mcData* d, int instance);
  void (*destroy)(const struct mcpHost_* host, mcData* d, int instance);
  void (*reset)(const struct mcpHost_* host, const mcModel* m, mcData* d, int instance);
} mcpHeader;

//---------------------------------- ABI 1.3: configuration, state, warnings ----------------------

// Type of a configuration value. Every value is stored as an mcNum in mcModel.plugin_config;
// INT and BOOL values are integral, ENUM values are the index of the choice.
typedef enum mcpConfigType_ {
  mcpCONFIG_REAL = 0,             // a real number
  mcpCONFIG_INT,                  // an integer
  mcpCONFIG_BOOL,                 // true/false (also 1/0)
  mcpCONFIG_ENUM                  // one of the '|'-separated words in choices, stored as index
} mcpConfigType;

// One configuration key a plugin declares. The core parses, range-checks and stores the values
// of every instance; an unknown key, a wrong count or type, or a value out of range is a load
// error naming file, line, key and value.
typedef struct mcpConfigKey_ {
  const char* name;               // key, as written in the model (attribute or <config key>)
  int type;                       // mcpConfigType
  int count;                      // number of values (>= 1)
  const char* def;                // default as it would be written ("1.3", "0 0 1"); NULL: required
  mcNum lo, hi;                   // allowed range, inclusive (REAL and INT); lo > hi: unbounded
  const char* choices;            // ENUM: "a|b|c"; else NULL
  const char* doc;                // one line for 'moduco plugins --config'
} mcpConfigKey;

// Per-instance declarations of a plugin, appended to every kind descriptor as 'ext' (ABI 1.3).
// An instance is one use of a plugin in one model: one per actuator or sensor element, one per
// <extension><plugin><instance>, and one per model for the selected integrator, solver,
// postsolver and every collision plugin that fills a geom-type pair.
typedef struct mcpPluginExt_ {
  int nconfig;                    // number of configuration keys
  const mcpConfigKey* config;     // the keys (actuator/sensor: also accepted as element attributes)

  // number of state numbers of an instance, saved and restored with the state (NULL: 0)
  int (*nstate)(const struct mcpHost_* host, const mcModel* m, int instance);

  // bytes of scratch memory (plugin_data) of an instance, inside mcData (NULL: 0)
  size_t (*ndata)(const struct mcpHost_* host, const mcModel* m, int instance);

  const char* const* warnings;    // NULL-terminated names of the plugin's own warnings (or NULL)
} mcpPluginExt;

//---------------------------------- kind descriptors ----------------------------------------------

// Integrator: advance d->time, qpos, qvel and act by one m->opt.timestep. Called by mc_step
// (and mc_step2) after the forward dynamics at the current state are complete, so d->qacc and
// d->act_dot are valid. May call host->forward / host->forwardSkip for multi-stage schemes.
typedef struct mcpIntegrator_ {
  mcpHeader hdr;
  void (*step)(const struct mcpHost_* host, const mcModel* m, mcData* d);

  // ABI 1.3 (read only when struct_size covers it)
  const mcpPluginExt* ext;        // configuration, state and warnings; NULL: none
} mcpIntegrator;

// Solver: given the assembled constraint rows (efc_*), qacc_smooth and the factorized inertia,
// compute d->qacc, d->efc_force, d->efc_state and d->qfrc_constraint; record statistics in
// d->solver[] and d->solver_iter. maxiter is m->opt.iterations (or a caller's override). What
// the core guarantees on entry and what must be written: docs/plugins.md, "The solver contract".
//
// Island solves (ABI 1.4): a solver that sets 'islands' may be called once per constraint island
// (mcData.nisland >= 2 and the model's island flag on) instead of once on the whole problem, on
// several threads at once when an in-step thread pool is bound (mc_bindThreadPool). Each call gets
// an island view: a model whose nv, nM, dof_parentid, dof_Madr, dof_M0, dof_damping, dof_armature
// and dof_invweight0 hold the island's dofs only, and a data whose nefc/ne/nf, efc_* rows,
// qacc, qacc_smooth, qacc_warmstart, qfrc_smooth, qfrc_constraint, qM, qLD, qLDiagInv and
// qLDiagSqrtInv are the island's (local indices; efc_id and contact stay global), with
// island_view set to the island's index, island_model to the full model and island_M0trace to
// the sum of its dof_M0 (for statistics scaled like the whole problem's). Other dof-sized
// arrays are NULL in the view. The host table works on the view as on full data (stack, mulM,
// solveM, mulJ, makeAR, ...). Such a solver must not write plugin_state, nor any part of
// plugin_data that another island's call could use at the same time (a slot per island_view is
// safe: the islands of one solve have distinct indices), and must write only the island's own
// contacts (the cone Hessian H). docs/plugins.md, "Island solves".
typedef struct mcpSolver_ {
  mcpHeader hdr;
  void (*solve)(const struct mcpHost_* host, const mcModel* m, mcData* d, int maxiter);

  // ABI 1.3 (read only when struct_size covers it)
  const mcpPluginExt* ext;        // configuration, state and warnings; NULL: none

  // ABI 1.4 (read only when struct_size covers it)
  int islands;                    // 1: solve accepts island views (above); 0: whole problem

  // ABI 1.5 (read only when struct_size covers it; NULL: the solver has no derivative)
  // Implicit derivative of the solution (docs/derivatives.md, "Implicit gradients"). Called on d
  // as mc_forward left it (efc_* inputs assembled, the solver run), on the whole problem. Writes
  // the sensitivity of qfrc_constraint (nv) to the solver's inputs that change with velocity and
  // control, all else (qpos, M, J, efc_pos) held fixed, row-major nv x nv:
  //   dfrc: d qfrc_constraint / d qfrc_smooth,
  //   dvel: d qfrc_constraint / d qvel through the constraint rows (qfrc_smooth held fixed).
  // and frc (nv): qfrc_constraint of the solution differentiated. Any may be NULL. smoothing > 0
  // asks for the derivative of a relaxed solution (ipm: at the central-path parameter kappa);
  // 0: of the solver's own solution (ipm: at its kappa floor). Scratch from the host stack; d's
  // outputs (qacc, efc_force, ...) are left as they were. Returns 0, or -1 when it cannot (stack
  // full, singular system).
  int (*derivative)(const struct mcpHost_* host, const mcModel* m, mcData* d, mcNum smoothing,
                    mcNum* frc, mcNum* dfrc, mcNum* dvel);
} mcpSolver;

// Postsolver: refines the solver's result (noslip); same contract as a solver.
typedef struct mcpPostsolver_ {
  mcpHeader hdr;
  void (*solve)(const struct mcpHost_* host, const mcModel* m, mcData* d, int maxiter);

  // ABI 1.3 (read only when struct_size covers it)
  const mcpPluginExt* ext;        // configuration, state and warnings; NULL: none
} mcpPostsolver;

// Narrow-phase function: write at most mcMAXCONPAIR contacts for geoms g1, g2 (types as declared
// in the pair table, g1's type first) into con; fill dist, pos, frame; return how many. frame[0..2]
// is the unit contact normal (pointing from g1 to g2) and must be filled. The tangent axes are
// optional: frame[3..8] left zero, the core completes the frame from the normal; a second axis
// given (a unit vector not parallel to the normal) fixes the friction directions: the core
// orthogonalizes it against the normal and sets the third axis to normal x second (a third axis
// given must already be that). Check mode (docs/plugins.md) verifies all of this.
typedef int (*mcpfCollide)(const struct mcpHost_* host, const mcModel* m, const mcData* d,
                           mcContact* con, int g1, int g2, mcNum margin);

typedef struct mcpCollisionPair_ {
  int type1;                      // mctGeom of the first geom
  int type2;                      // mctGeom of the second geom (type1 <= type2)
  mcpfCollide collide;            // the function
} mcpCollisionPair;

// Collision: a table of geom-type pairs; for each pair the registered plugin with the highest
// priority wins, so a third party can replace one pair without touching the others. Between
// plugins of equal priority the name first in byte order (strcmp) wins, whatever the load order,
// and the loader reports the tie naming both plugins and files.
typedef struct mcpCollision_ {
  mcpHeader hdr;
  int priority;                   // built-ins use 0; higher overrides
  int npair;                      // number of entries in pair
  const mcpCollisionPair* pair;   // covered pairs

  // ABI 1.3 (read only when struct_size covers it)
  const mcpPluginExt* ext;        // configuration, state and warnings; NULL: none
} mcpCollision;

// Values of one element's attributes, as written in the model file.
typedef struct mcpAttributes_ {
  int n;                          // number of attributes given
  const char* const* key;         // attribute names
  const char* const* value;       // attribute values (strings, unparsed)
  const char* file;               // model file, for messages
  int line;                       // line of the element, for messages
} mcpAttributes;

// Model-side parameters of one actuator, filled by the actuator plugin's compile callback.
typedef struct mcpActuatorSpec_ {
  int dyntype, gaintype, biastype;    // mctDyn, mctGain, mctBias (or the plugin's own codes)
  int actnum;                         // number of activation states
  int ctrllimited, forcelimited, actlimited, actearly;
  mcNum dynprm[mcNDYN];
  mcNum gainprm[mcNGAIN];
  mcNum biasprm[mcNBIAS];
  mcNum ctrlrange[2];
  mcNum forcerange[2];
  mcNum actrange[2];

  // ABI 1.1: write only when host->abi_minor >= 1 (the host zeroes them before compile)
  mcNum damping[3];                   // post-clamp drag coefficients B1 B2 B3 (actuator_damping);
                                      // on a hinge/slide joint the core moves B1 into the joint
                                      // damping (B1 gear^2) and stores 0 for it
  mcNum armature;                     // rotor inertia J_r; the core adds J_r*gear^2 to the dof
} mcpActuatorSpec;

// Actuator: an MJCF element under <actuator> (or a <plugin> instance) with its own attributes.
// The transmission attributes (joint, tendon, site, gear, ...) are handled by the core.
typedef struct mcpActuator_ {
  mcpHeader hdr;
  const char* element;                // MJCF element name, e.g. "dcmotor"
  const char* const* attributes;      // NULL-terminated list of the plugin's own attributes

  // compile the element's attributes into spec (already holding the core defaults);
  // return 0 on success, else write a message naming the attribute to error
  int (*compile)(const struct mcpHost_* host, const mcpAttributes* attr, mcpActuatorSpec* spec,
                 char* error, int error_sz);

  // activation time-derivative: write d->act_dot[adr .. adr+actnum-1]
  void (*act_dot)(const struct mcpHost_* host, const mcModel* m, mcData* d, int id);

  // scalar force in actuation space (before forcerange clamping)
  mcNum (*force)(const struct mcpHost_* host, const mcModel* m, mcData* d, int id);

  // optional: exact integration of the activation over h (NULL: explicit Euler)
  void (*integrate_act)(const struct mcpHost_* host, const mcModel* m, mcData* d, int id,
                        const mcNum* act_dot, mcNum h);

  // optional: d force / d actuator velocity, for the implicit integrators (NULL: 0)
  mcNum (*dforce_dvel)(const struct mcpHost_* host, const mcModel* m, const mcData* d, int id);

  // ABI 1.3 (read only when struct_size covers it)
  const mcpPluginExt* ext;        // configuration, state and warnings; NULL: none
} mcpActuator;

// Model-side parameters of one sensor, filled by the sensor plugin's compile callback.
typedef struct mcpSensorSpec_ {
  int dim;                            // number of outputs
  int needstage;                      // mctStage at which it is computed
  int datatype;                       // mctDataType
  int objtype, objid;                 // sensorized object (resolved by the core from 'objname')
  int reftype, refid;                 // reference frame
} mcpSensorSpec;

// Sensor: an MJCF element under <sensor> with its own attributes.
typedef struct mcpSensor_ {
  mcpHeader hdr;
  const char* element;                // MJCF element name
  const char* const* attributes;      // NULL-terminated list of the plugin's own attributes
  int (*compile)(const struct mcpHost_* host, const mcModel* m, const mcpAttributes* attr,
                 mcpSensorSpec* spec, char* error, int error_sz);
  void (*compute)(const struct mcpHost_* host, const mcModel* m, mcData* d, int id,
                  mcNum* out);

  // ABI 1.3 (read only when struct_size covers it)
  const mcpPluginExt* ext;        // configuration, state and warnings; NULL: none
} mcpSensor;

//---------------------------------- ABI 1.10: per-tree work on the thread pool -------------------

// One range of whole kinematic trees (child subtrees of the world) handed to a tree task by
// host->runTrees. The bodies of a tree are contiguous, and so are its joints, dofs and qpos
// entries (the model's layout), so each interval below holds exactly the range's trees' objects.
typedef struct mcpTreeRange_ {
  int index;                      // 0 .. count-1, in tree order
  int count;                      // ranges of this call (1: the serial call, the whole model)
  int body0, body1;               // bodies [body0, body1) (body0 >= 1)
  int jnt0, jnt1;                 // joints [jnt0, jnt1)
  int dof0, dof1;                 // dofs [dof0, dof1)
  int qpos0, qpos1;               // qpos entries [qpos0, qpos1)
} mcpTreeRange;

// A tree task: the work of the trees of one range. See mcpHost.runTrees for what it may do.
typedef void (*mcpfTreeTask)(void* ctx, const mcpTreeRange* range);

//---------------------------------- host services -------------------------------------------------

// Services of the core, handed to the entry symbol and to every callback. Append-only.
typedef struct mcpHost_ {
  uint32_t abi_major;
  uint32_t abi_minor;
  uint32_t struct_size;           // sizeof(mcpHost) of the core
  uint32_t precision;             // sizeof(mcNum) of the core

  // diagnostics
  void  (*warning)(mcData* d, int warning, int info);           // count a mctWarning
  void  (*message)(const char* text);                            // print through the core

  // scratch stack inside mcData
  void  (*markStack)(mcData* d);
  void  (*freeStack)(mcData* d);
  void* (*stackAlloc)(mcData* d, size_t bytes, size_t align);   // NULL (and warning) if full

  // pipeline
  void  (*forward)(const mcModel* m, mcData* d);
  void  (*forwardSkip)(const mcModel* m, mcData* d, int skipstage, int skipsensor);

  // integration helpers
  void  (*integratePos)(const mcModel* m, mcNum* qpos, const mcNum* qvel, mcNum dt);
  void  (*normalizeQuat)(const mcModel* m, mcNum* qpos);
  void  (*advanceAct)(const mcModel* m, mcData* d, const mcNum* act_dot, mcNum h);

  // joint-space inertia in the tree-sparse layout (dof_Madr); factorI: L'DL of M into qLD and
  // qLDiagInv (M and qLD may alias); solveLD: x = (L'DL)^-1 x in place, n columns of nv
  void  (*mulM)(const mcModel* m, const mcData* d, mcNum* res, const mcNum* vec);
  void  (*solveM)(const mcModel* m, mcData* d, mcNum* x, const mcNum* y, int n);
  void  (*factorI)(const mcModel* m, const mcNum* M, mcNum* qLD, mcNum* qLDiagInv);
  void  (*solveLD)(const mcModel* m, mcNum* x, int n, const mcNum* qLD, const mcNum* qLDiagInv);

  // lookup
  int   (*name2id)(const mcModel* m, int type, const char* name);

  // ABI 1.3: the solver contract. Before a solver or postsolver runs, the core has filled every
  // efc_* input (efc_J dense or row-sparse, efc_b, efc_R, efc_D, efc_aref, efc_frictionloss,
  // contact mu/friction/dim), qacc_smooth, qfrc_smooth and the factorized M (qLD).
  //   mulJ: res = J vec (nefc), mulJT: res = J' vec (nv), on whichever efc_J the data holds;
  //   rowJ: row i of J: returns its number of entries n and sets *colind (NULL when the row is
  //         dense: then n == nv and column k is val[k]) and *val;
  //   makeAR: efc_AR = J M^-1 J' + diag(efc_R) into d->efc_AR, dense (nefc x nefc) with a dense
  //         efc_J, else row-sparse (efc_AR_rownnz/rowadr/colind); 0, or -1 if the arena is full.
  void  (*mulJ)(const mcModel* m, const mcData* d, mcNum* res, const mcNum* vec);
  void  (*mulJT)(const mcModel* m, const mcData* d, mcNum* res, const mcNum* vec);
  int   (*rowJ)(const mcModel* m, const mcData* d, int row, const int** colind,
                const mcNum** val);
  int   (*makeAR)(const mcModel* m, mcData* d);

  // ABI 1.3: instances, configuration and warnings
  //   instance: the instance of a plugin used once per model (integrator, solver, postsolver,
  //         collision), found by its descriptor; -1 if the model does not use it;
  //   config: the values of key for an instance (count set to the key's count); NULL if the
  //         plugin declared no such key. Values stay valid while the model lives;
  //   pluginWarning: count warning k (index in the plugin's ext->warnings) of an instance in
  //         d->plugin_warncount; the first occurrence is printed, naming plugin and warning.
  int   (*instance)(const mcModel* m, const mcpHeader* desc);
  const mcNum* (*config)(const mcModel* m, int instance, const char* key, int* count);
  void  (*pluginWarning)(const mcModel* m, mcData* d, int instance, int warning, int info);

  // ABI 1.5 (issue 16; read only when struct_size covers it): the position stage
  // alone (kinematics, inertia, collision, constraint rows) at d->qpos, for an integrator that
  // checks the configuration it produces (the ipm solver's paired integrator "ipm-euler")
  void  (*fwdPosition)(const mcModel* m, mcData* d);

  // ABI 1.7 (issue 15; read only when struct_size covers it): factorI and solveLD on the kinematic
  // trees of d's in-step thread pool (mc_bindThreadPool) when one is bound, bitwise the results of
  // factorI and solveLD; d is not otherwise read or written
  void  (*factorIPool)(const mcModel* m, mcData* d, const mcNum* M, mcNum* qLD,
                       mcNum* qLDiagInv);
  void  (*solveLDPool)(const mcModel* m, mcData* d, mcNum* x, int n, const mcNum* qLD,
                       const mcNum* qLDiagInv);

  // appended in session 11 (issue 15; read only when struct_size covers it): x <- (qM + diag(D))^-1
  // x for one vector (an integrator's implicit damping), with d->qLD the factor of d->qM (as after
  // mc_forward): the kinematic trees whose dofs all have D = 0 reuse d->qLD, the others are
  // factored again in LD (nM) and LDiagInv (nv), caller scratch. The result of factorI and
  // solveLD on a copy of qM with D added to its diagonal (the rows of simple dofs skipped as the
  // core's own solves skip them: only the sign of a zero can differ), bitwise the same for any
  // thread count
  void  (*solveMDamped)(const mcModel* m, mcData* d, const mcNum* D, mcNum* x, mcNum* LD,
                        mcNum* LDiagInv);

  // ABI 1.10 (issue 15; read only when struct_size covers it): per-tree work of a step on d's
  // in-step thread pool (mc_bindThreadPool), for integrators.
  //   runTrees: run fn(ctx, range) once for each range of a cut of the model's kinematic trees
  //         into ranges (mcpTreeRange), as one job on d's pool, and return the number of ranges
  //         when all have run. It calls fn once, on the calling thread, with the whole model
  //         (bodies [1, nbody), every joint, dof and qpos entry; count 1) and returns 1 when no
  //         pool is bound, in plugin check mode, when m->nv < mindof (too little work for a
  //         job: the plugin's estimate), or when the model does not cut into two ranges. The cut
  //         depends on the model and the pool's size only. A task may run on any thread and at
  //         the same time as the others: it reads what no task writes and writes only entries of
  //         its own range (of dof-, joint-, qpos- and body-indexed arrays of d, and of caller
  //         scratch indexed so), so the results are those of the serial call, bitwise, for any
  //         thread count, when each entry's arithmetic does not depend on the range. A task must
  //         not use d's stack (allocate scratch before the call), count warnings, or call back
  //         into the pipeline (forward, forwardSkip, fwdPosition) or the pooled entries above;
  //   solveMDampedRange: solveMDamped's work on the dofs [dof0, dof1) of whole trees only (its
  //         rows of x, LD and LDiagInv); the serial solve is the range of all dofs. d is read only
  //         (qM, qLD, qLDiagInv), so ranges may run at once;
  //   integratePosRange: integratePos on the joints [jnt0, jnt1) only (their qpos entries), the
  //         same bits.
  int   (*runTrees)(const mcModel* m, mcData* d, mcpfTreeTask fn, void* ctx, int mindof);
  void  (*solveMDampedRange)(const mcModel* m, const mcData* d, const mcNum* D, mcNum* x,
                             mcNum* LD, mcNum* LDiagInv, int dof0, int dof1);
  void  (*integratePosRange)(const mcModel* m, mcNum* qpos, const mcNum* qvel, mcNum dt,
                             int jnt0, int jnt1);
} mcpHost;

//---------------------------------- the library ---------------------------------------------------

// What the entry symbol returns.
typedef struct mcpLibrary_ {
  uint32_t abi_major;             // MCP_ABI_MAJOR
  uint32_t abi_minor;             // MCP_ABI_MINOR
  uint32_t struct_size;           // sizeof(mcpLibrary)
  uint32_t precision;             // sizeof(mcNum)
  const char* name;               // library name, for messages
  int nplugin;                    // number of descriptors
  const mcpHeader* const* plugin; // descriptors (each the header of a kind-specific struct)

  // ABI 1.2: the mcModel/mcData layout the library was compiled against (MCP_LIBRARY fills both)
  const char* layout;             // MCP_LAYOUT
  uint32_t layout_sizes[4];       // MCP_LAYOUT_SIZES
} mcpLibrary;

// Type of the entry symbol. Return NULL to refuse loading (e.g. host too old).
typedef const mcpLibrary* (*mcpLibraryFn)(const mcpHost* host);

// Fill the version fields of a header (use in static initializers).
#define MCP_HEADER(KIND, TYPE, NAME, VERSION, DESCRIPTION, CODE)                                  \
  { MCP_ABI_MAJOR, MCP_ABI_MINOR, (uint32_t)sizeof(TYPE), MCP_PRECISION, (KIND), 0,              \
    (NAME), (VERSION), (DESCRIPTION), (CODE), NULL, NULL, NULL }

// Layout stamp: the X-macro lists that lay out mcModel and mcData, turned into one string by the
// preprocessor (field types, names and dimensions in order), and the sizes of the structs. Any
// change of those headers changes the stamp, so the host can refuse a plugin built against other
// headers instead of letting it read the wrong fields.
#define MCP_STR_(...) #__VA_ARGS__
#define MCP_XSTR_(...) MCP_STR_(__VA_ARGS__)
#define MCP_LAYOUT_SIZE_(name) name,
#define MCP_LAYOUT_ARRAY_(type, name, n, m) type name[n][m];
#define MCP_LAYOUT                                                                                 \
  MCP_XSTR_(mcModel{MC_MODEL_SIZES(MCP_LAYOUT_SIZE_)} {MC_MODEL_POINTERS(MCP_LAYOUT_ARRAY_)}    \
            mcData{MC_DATA_POINTERS(MCP_LAYOUT_ARRAY_)})
#define MCP_LAYOUT_SIZES                                                                           \
  { (uint32_t)sizeof(mcModel), (uint32_t)sizeof(mcData), (uint32_t)sizeof(mcOption),             \
    (uint32_t)sizeof(mcContact) }

// Fill the version fields and the layout stamp of a library (use in static initializers).
#define MCP_LIBRARY(NAME, N, LIST)                                                                 \
  { MCP_ABI_MAJOR, MCP_ABI_MINOR, (uint32_t)sizeof(mcpLibrary), MCP_PRECISION, (NAME), (N),      \
    (LIST), MCP_LAYOUT, MCP_LAYOUT_SIZES }

// Export macro for the entry symbol.
#define MCP_EXPORT MCAPI

#ifdef __cplusplus
}
#endif

#endif  // MODUCO_MCPLUGIN_H_
