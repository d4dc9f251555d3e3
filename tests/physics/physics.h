// Whole-pipeline helpers shared by tests/physics and tests/trajectory: one MJCF loaded in both
// Moduco and MuJoCo 2.2.2, the solver and cone selected in both, states copied from MuJoCo to
// Moduco, and the contact scenes used for conformance.
#ifndef MODUCO_TESTS_PHYSICS_PHYSICS_H_
#define MODUCO_TESTS_PHYSICS_PHYSICS_H_

#include <mujoco/mujoco.h>
#include <moduco/moduco.h>

//---------------------------------- model pairs ---------------------------------------------------

typedef struct {
  char name[160];
  mjModel* mj;
  mjData* dj;
  mcModel* mc;
  mcData* dc;
} PhysPair;

// Load MJCF text (through a temporary file in /tmp) in both engines and check that the sizes
// agree. Return 0, or -1 with a message in error.
int phys_loadText(PhysPair* p, const char* name, const char* xml, char* error, int error_sz);

// Load an MJCF file in both engines.
int phys_loadFile(PhysPair* p, const char* name, const char* path, char* error, int error_sz);

// Free both sides.
void phys_free(PhysPair* p);

// Select the solver (mjSOL_PGS, mjSOL_CG, mjSOL_NEWTON) and the cone (mjCONE_*) in both models:
// mj_ options on the MuJoCo side, mc_setSolver and opt.cone on the Moduco side. Return 0, or -1.
int phys_setSolver(PhysPair* p, int solver, int cone, char* error, int error_sz);

// Set iterations and tolerance in both models.
void phys_setIterations(PhysPair* p, int iterations, double tolerance);

// Copy MuJoCo's state (time, qpos, qvel, act, ctrl, applied forces, warmstart, mocap) to Moduco.
void phys_copyState(PhysPair* p);

// Name of a solver code ("pgs", "cg", "newton") and of a cone ("pyramidal", "elliptic").
const char* phys_solverName(int solver);
const char* phys_coneName(int cone);

// Silence Moduco's message handler and MuJoCo's warning handler (warnings are counted in
// d->warning all the same, and MuJoCo writes no MUJOCO_LOG.TXT).
void phys_quiet(void);

//---------------------------------- comparison ----------------------------------------------------

// Worst relative error |got-ref| / max(1, |ref|) over n values (NaN on one side only: infinite);
// index of the worst in *at (-1 if n == 0).
double phys_relerr(const double* got, const double* ref, int n, int* at);

// Nonzero if any of n values is NaN or infinite.
int phys_nonfinite(const double* x, int n);

// Worst errors of one whole-pipeline forward comparison.
typedef struct {
  double force;                   // efc_force
  double qacc;                    // qacc
  int force_at, qacc_at;          // where
} PhysErr;

// After mj_forward and mc_forward on the same state: check that the contact lists (geom pairs,
// dims) and constraint rows (type, id) agree, then measure efc_force and qacc. Return 0, or -1
// and a message naming the first structural difference in msg.
int phys_compareForward(PhysPair* p, PhysErr* e, char* msg, int msg_sz);

//---------------------------------- documented exceptions -----------------------------------------

// One diagnosed difference from MuJoCo 2.2.2 (the pattern of tests/corpus/test_corpus.c): the
// case it applies to (scene, solver code, cone code), the check it relaxes, the bound the check may
// reach there (just above the measured value) and the cause. Every other case keeps the default.
typedef struct {
  const char* scene;
  int solver;                     // mjSOL_*
  int cone;                       // mjCONE_*
  const char* check;              // name of the check in the test that owns the table
  double limit;
  const char* why;
} PhysException;

// Bound of a check in one case: the limit of the table's entry for it, else dflt. *why (if not
// NULL) gets the entry's cause, or NULL when the default applies.
double phys_limit(const PhysException* table, int n, const char* scene, int solver, int cone,
                  const char* check, double dflt, const char** why);

// Check a table: known scene (or one of extra[], NULL-terminated), solver and cone codes, a check
// named in checks[] (NULL-terminated), a positive limit, a cause, no duplicate. Return 0, or -1
// with the first problem in msg.
int phys_checkExceptions(const PhysException* table, int n, const char* const* checks,
                         const char* const* extra, char* msg, int msg_sz);

//---------------------------------- scenes --------------------------------------------------------

typedef struct {
  const char* name;
  const char* xml;                // MJCF text, or NULL when file is set
  const char* file;               // MJCF file (MuJoCo's own models)
  int contact;                    // nonzero: the scene has contacts (settle before comparing)
} PhysScene;

// Scenes for the whole-pipeline comparison: contacts (spheres, capsules, boxes on planes, stacks,
// humanoid, 22 humanoids), equality, limits and friction loss.
extern const PhysScene phys_scenes[];
extern const int phys_nscene;

// Scene by name; NULL if unknown.
const PhysScene* phys_scene(const char* name);

// Load a scene in both engines.
int phys_loadScene(PhysPair* p, const PhysScene* s, char* error, int error_sz);

// Put MuJoCo in state k of a scene (reset, perturb velocities with a seed, step it k-dependent
// times); the caller copies the state to Moduco.
void phys_sceneState(PhysPair* p, const PhysScene* s, int k);

#endif  // MODUCO_TESTS_PHYSICS_PHYSICS_H_
