// Moduco tests: small reference routines shared by several suites (linked into every test).
#ifndef MODUCO_TESTS_TESTUTIL_H_
#define MODUCO_TESTS_TESTUTIL_H_

#include <stdio.h>

// Dense Gaussian elimination with partial pivoting: solve A x = b for an n x n row-major A.
// A and b are overwritten; x may alias b. An independent reference for the engine's sparse
// factorisations, deliberately naive.
void tu_denseSolve(int n, double* A, double* b, double* x);

// a whole file as a NUL-terminated string (caller frees); NULL if it cannot be read
char* tu_readFile(const char* path);

// a new empty file /tmp/moduco-XXXXXX open for writing, its name in path (path_sz >= 32); NULL
// if it cannot be made
FILE* tu_tempFile(char* path, int path_sz);

// xorshift64* random numbers: a state (any seed but 0) and a uniform double in [lo, hi)
typedef struct {
  unsigned long long s;
} TuRng;
double tu_uniform(TuRng* r, double lo, double hi);

// a random unit vector (uniform on the sphere)
void tu_randomUnit(TuRng* r, double u[3]);

// Marsaglia's xorshift64 (shifts 13, 7, 17) on the state *s (any seed but 0): a uniform double in
// [lo, hi)
double tu_xorshiftUniform(unsigned long long* s, double lo, double hi);

// random poses of n free bodies whose qpos are the 7 numbers each from qpos on: positions
// uniform in [-spread, spread)^3, orientations the normalised quaternion of four numbers uniform
// in [-1, 1) (tu_xorshiftUniform on *s, in that order)
void tu_randomFreePoses(unsigned long long* s, double* qpos, int n, double spread);

// a random unit quaternion; with axis set, a multiple of 90 degrees about a coordinate axis
void tu_randomQuat(TuRng* r, double q[4], int axis);

// append to buf (size sz) an MJCF <mesh name="name"> of n random points in a box of half sizes s
void tu_cloudMesh(char* buf, size_t sz, TuRng* r, const char* name, int n, const double s[3]);


//---------------------------------- MuJoCo 3 under Node ------------------------------------------
// The suites that compare against MuJoCo 3 run a script of the source tree (tests/.../*.mjs, which
// load @mujoco/mujoco 3.14.0, or mujoco-js 3.3.8 with --mujoco 3.3.8, through
// tests/mjs3/harness.mjs) with node. They need node in PATH and
// tests/mjs3/node_modules (npm ci, run by scripts/setup-debian.sh); without them the tests fail
// with that instruction, never skip.

typedef struct cJSON cJSON;

// NULL when the reference can run; otherwise the setup instruction (a static string): node is
// not in PATH, or tests/mjs3/node_modules/mujoco-js is missing
const char* tu_mjs3Missing(void);

// fail the calling Criterion test with the setup instruction unless the reference can run
#define TU_MJS_REQUIRE_(missing)                                                                  \
  do {                                                                                            \
    const char* tu_why_ = missing();                                                              \
    if (tu_why_) {                                                                                \
      cr_assert_fail("%s", tu_why_);                                                              \
    }                                                                                             \
  } while (0)
#define TU_MJS3_REQUIRE() TU_MJS_REQUIRE_(tu_mjs3Missing)

// tu_mjs3Missing for the scripts on MuJoCo 3.14.0 (tests/mjs3/mujoco314.mjs): also
// tests/mjs3/node_modules/@mujoco/mujoco
const char* tu_mjs314Missing(void);

#define TU_MJS314_REQUIRE() TU_MJS_REQUIRE_(tu_mjs314Missing)

// run `node SOURCE_DIR/script arg...` (args: NULL-terminated, each passed as one argument; its
// messages go to the test's stderr); its whole stdout (caller frees) and exit status (-1 if it
// did not exit normally) in *status. NULL, with the reason in err, when the reference cannot run
// (tu_mjs3Missing) or node cannot be started
char* tu_mjs3Run(const char* script, const char* const* args, int* status, char* err, int err_sz);

// tu_mjs3Run, its stdout parsed as one JSON object whose "version" must be "3.3.8" or "3.14.0"
// (the script checks which one it loaded; caller
// cJSON_Deletes). With status NULL the exit status must be 0; otherwise it is stored there and
// any exit is accepted. NULL, with the reason in err, on any failure
cJSON* tu_mjs3Json(const char* script, const char* const* args, int* status, char* err,
                   int err_sz);

// the contacts MuJoCo 3.14 finds at qpos0 (mj_forward) in each of the n MJCF texts xmls,
// through tests/collision/contacts_ref.mjs (the texts are written to a temporary folder, removed
// afterwards; includes and assets by relative path are not available). The output object (caller
// cJSON_Deletes) holds "models": n entries in order, each {"file", "contacts": [[geom1, geom2,
// dist, px, py, pz, nx, ny, nz], ...]} or {"file", "error": true}. NULL, with the reason in err,
// on any failure
cJSON* tu_mjs3Contacts(const char* const* xmls, int n, char* err, int err_sz);

// the same for any script taking `DIR MODEL.xml...` (each text written as DIR/sNNNNN.xml) and
// printing {"version", "models": [n entries]}
cJSON* tu_mjs3Models(const char* script, const char* const* xmls, int n, char* err,
                     int err_sz);

//---------------------------------- MuJoCo 2.2.2's legacy rules ----------------------------------

typedef struct mcModel_ mcModel;

// MuJoCo 2.2.2 gives a weld's three orientation rows the translational inverse weights of the two
// bodies; MuJoCo 3.x and Moduco the rotational ones (docs/mujoco3.md). For the suites that compare
// weld models with 2.2.2: set the rotational body_invweight0 of every welded body to its
// translational one, so Moduco builds 2.2.2's rows (elliptic torsion and rolling rows of contacts
// on those bodies change too; the suites have none)
void tu_legacyWeldWeights(mcModel* m);

// MuJoCo 2.2.2's collision on a compiled model, for the suites that compare contacts with 2.2.2
// (MuJoCo 3.x and Moduco differ by default, docs/mujoco3.md): clear mcENBL_NATIVECCD (libccd MPR
// and 2.2.2's box-box instead of GJK/EPA and box-box by SAT) and mcENBL_MULTICCD (on by default
// with nativeccd, as in 3.x; 2.2.2 has one contact a pair) and set mcENBL_LEGACYMARGIN (a
// pair's margin and gap are the larger of the two geoms', contacts are detected at the margin
// and make rows below margin - gap; 3.14 adds the geoms' margins and gaps, detects at margin +
// gap and makes rows below the margin)
void tu_legacyCollision(mcModel* m);

// mc_loadXMLString (no folder) then tu_legacyCollision, multiccd kept where the text enables it
// (multiccd='enable', as the compiler keeps it with nativeccd="disable"); for the suites on
// MuJoCo 3.3.8 whose colliders are Moduco's legacy ones (3.3.8 takes the larger margin as 2.2.2;
// its box-box is 2.2.2's before 3.12's separating-axis test; multiccd compared on top of libccd
// MPR)
mcModel* tu_loadLegacyCollision(const char* xml, char* err, int err_sz);

// MuJoCo 2.2.2's rules where Moduco follows MuJoCo 3.x in dynamics (the internal switch
// mcDSBL_LEGACY222, core/engine/constraint.h): connect and weld rows without dJ/dt qvel in
// efc_aref, and the model constants recomputed (mc_setConst) with the mean inverse weights for
// bodies moved by sliders alone. For the suites that step or solve models compiled by Moduco
// against MuJoCo 2.2.2 (docs/mujoco3.md); call it before tu_legacyWeldWeights
void tu_legacy222(mcModel* m);

// MuJoCo 2.2.2's (and 3.3.8's) principal-axis rule for the models this thread compiles while on:
// the eigen-solver stopping near 1e-6 rad and ordering by an absolute 1e-12 (the internal switch
// mcc_setLegacyEig, core/compiler/compiler.h; no MJCF attribute, not ABI). Compile time needs the
// switch before the model exists, so it is thread state, not a model flag. For the suites that
// compare a compiled model's inertias, frames or mass matrix with 2.2.2 or 3.3.8 at tolerances
// finer than the ~1e-8 by which 3.14's rule moves them (docs/mujoco3.md)
void tu_legacy222Compile(int on);

// smallest contact distance at d's positions (mc_fwdPosition first: collision at the state a step
// produced); INFINITY without contacts
typedef struct mcData_ mcData;
double tu_minContactDist(const mcModel* m, mcData* d);

#endif  // MODUCO_TESTS_TESTUTIL_H_
