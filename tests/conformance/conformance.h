// Conformance harness: load the same MJCF text in Moduco and MuJoCo 2.2.2, set the same random
// states, and compare fields with a relative tolerance (scale max(1, |ref|)).
#ifndef MODUCO_TESTS_CONFORMANCE_CONFORMANCE_H_
#define MODUCO_TESTS_CONFORMANCE_CONFORMANCE_H_

#include <stddef.h>

#include <mujoco/mujoco.h>
#include <moduco/moduco.h>

//---------------------------------- string builder ------------------------------------------------

typedef struct {
  char* buf;
  size_t len;
  size_t cap;
} ConfText;

// Append formatted text (aborts on out of memory: test code).
void conf_printf(ConfText* t, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

//---------------------------------- random numbers ------------------------------------------------

// Deterministic generator (xorshift64*), independent of libc.
typedef struct {
  unsigned long long s;
} ConfRng;

void conf_seed(ConfRng* r, unsigned long long seed);
double conf_uniform(ConfRng* r, double lo, double hi);
int conf_int(ConfRng* r, int lo, int hi);           // lo..hi inclusive
void conf_quat(ConfRng* r, double q[4]);            // random unit quaternion, w first

//---------------------------------- models --------------------------------------------------------

// Names of the built-in contact-free models ("tree:N" is the random tree of seed N).
extern const char* const conf_model_names[];
extern const int conf_model_count;

// MJCF text of a named model (caller frees); NULL if the name is unknown.
char* conf_modelXml(const char* name);

// MJCF text of a random tree from a seed (caller frees).
char* conf_randomTree(unsigned long long seed);

// Read a file and add <flag contact="disable" constraint="disable"/> to its <option> (caller
// frees); NULL if unreadable.
char* conf_readWithoutContacts(const char* file);

// Insert <flag contact="disable" constraint="disable"/> into MJCF text (caller frees).
char* conf_disableContacts(const char* xml);

//---------------------------------- model pairs ---------------------------------------------------

// Fields compared by the harness.
typedef enum {
  CONF_XPOS = 0,
  CONF_XQUAT,
  CONF_QM,
  CONF_QFRC_BIAS,
  CONF_QFRC_PASSIVE,
  CONF_QFRC_ACTUATOR,
  CONF_QACC,
  CONF_ACT_DOT,
  CONF_QPOS,
  CONF_QVEL,
  CONF_ACT,
  CONF_NFIELD
} ConfField;

extern const char* const conf_field_names[CONF_NFIELD];

// Worst error seen for one field.
typedef struct {
  double err;                     // worst relative error |a-b| / max(1, |b|)
  int index;                      // where (flat index)
  double got, ref;                // Moduco and MuJoCo values there
  int count;                      // values compared
} ConfStat;

// One model loaded in both engines.
typedef struct {
  char name[128];
  mcModel* mc;
  mcData* dc;
  mjModel* mj;
  mjData* dj;
  ConfStat stat[CONF_NFIELD];
  double* scratch;                // 2 * nv * nv (+ a little) for dense inertia
} ConfPair;

// Load xml in both engines (through one temporary file, or dir/<tmp> if dir is given so relative
// includes resolve). Return 0, or -1 with a message in error.
int conf_load(ConfPair* p, const char* name, const char* xml, const char* dir, char* error,
              int error_sz);

// Free both models and data; append the worst errors to $MODUCO_CONF_REPORT if set.
void conf_free(ConfPair* p);

// Set the same random state in both: qpos (unit quaternions), qvel, act, ctrl (partly outside
// ctrlrange), qfrc_applied; time 0.
void conf_randomState(ConfPair* p, ConfRng* r);

// Copy MuJoCo's compiled body inertias (body_mass, body_ipos, body_iquat, body_inertia) into the
// Moduco model, to test the pipeline apart from the compiler's inertia computation.
void conf_copyInertia(ConfPair* p);

// Moduco's sensor type for a MuJoCo 2.2.2 sensor type (2.2.2 has no camprojection and no
// jointactuatorfrc, which Moduco numbers as 3.3.8 does).
int conf_sensorType(int mjtype);

// Select the integrator (mjINT_EULER or mjINT_RK4) in both models.
int conf_setIntegrator(ConfPair* p, int mjint, char* error, int error_sz);

// Compare one field; update the pair's stats; on failure write a message naming the model, the
// field, the worst index and both values. Return 1 if within tol.
int conf_compare(ConfPair* p, ConfField f, const char* label, const double* got,
                 const double* ref, int n, double tol, char* msg, int msg_sz);

// Run mc_forward and mj_forward on the current states and compare xpos, xquat, dense qM,
// qfrc_bias, qfrc_passive, qfrc_actuator, qacc, act_dot. Return the number of failing fields;
// messages are concatenated into msg.
int conf_forwardCompare(ConfPair* p, const char* label, double tol, char* msg, int msg_sz);

// Step both nstep times, comparing qpos, qvel, act after every step; stop at the first step that
// fails. Return the number of failing fields.
int conf_trajectoryCompare(ConfPair* p, int nstep, double tol, char* msg, int msg_sz);

#endif  // MODUCO_TESTS_CONFORMANCE_CONFORMANCE_H_
