// Real-model corpus (/work/shared/corpus): measure how Moduco agrees with MuJoCo 2.2.2 on each
// model (load, sizes, contact-free forward at random states, forward with contacts at the initial
// state and after 100 MuJoCo steps, a 200-step trajectory of each engine) and check the
// measurements against the default tolerances and the documented per-model exceptions.
#ifndef MODUCO_TESTS_CORPUS_CORPUS_H_
#define MODUCO_TESTS_CORPUS_CORPUS_H_

#define CP_CORPUS_DIR "/work/shared/corpus/"

// the quantities checked, each with a default tolerance
typedef enum {
  CP_LOAD = 0,        // loads in Moduco (0: yes)
  CP_SIZES,           // number of size fields that differ from MuJoCo
  CP_MODEL,           // model fields checked one to one (stiffness, damping, invweight0 ...)
  CP_QM,              // contact-free forward at random states, relative error ...
  CP_QFRC_BIAS,
  CP_QFRC_PASSIVE,
  CP_QFRC_ACTUATOR,
  CP_QACC,
  CP_SENSORDATA,
  CP_NCON0,           // forward at the initial state with contacts: |ncon difference|
  CP_NEFC0,           // |nefc difference|
  CP_QACC0,           // qacc relative error
  CP_NCON100,         // the same after 100 MuJoCo steps
  CP_NEFC100,
  CP_QACC100,
  CP_FINITE,          // 200 steps of each engine: steps with a non-finite state or a reset
  CP_TRAJ,            // 200 steps of each engine: worst relative error of qpos, qvel, act
  CP_NCHECK
} CpCheck;

extern const char* const cp_check_names[CP_NCHECK];

// one corpus model
typedef struct {
  const char* name;               // folder in the corpus
  const char* file;               // main file in the folder
} CpModel;

extern const CpModel cp_models[];
extern const int cp_model_count;

// where the worst error of a check was found
typedef struct {
  double value;                   // the measurement (error or count difference)
  char where[160];                // label, index, values of both engines
} CpMeasure;

// all measurements of one model
typedef struct {
  char error[1024];               // load error (CP_LOAD)
  int contact_free;               // MuJoCo's 200-step trajectory has no contact
  int nefc_max;                   // most constraint rows MuJoCo had in the 200 steps
  int ncon_mj[2], ncon_mc[2];     // contact counts at the initial state and after 100 steps
  int nefc_mj[2], nefc_mc[2];
  CpMeasure m[CP_NCHECK];
} CpResult;

// a documented exception: check `check` of model `model` may reach `limit` for reason `why`
typedef struct {
  const char* model;
  CpCheck check;
  double limit;
  const char* why;
} CpException;

extern const CpException cp_exceptions[];
extern const int cp_exception_count;

// measure one model (the result is zeroed first)
void cp_measure(const CpModel* model, CpResult* r);

// the bound a check must meet on a model: an exception's limit, else the default
double cp_limit(const char* model, CpCheck check, const char** why);

// does the trajectory check apply (contact-free models only)
int cp_applies(const CpResult* r, CpCheck check);

#endif  // MODUCO_TESTS_CORPUS_CORPUS_H_
