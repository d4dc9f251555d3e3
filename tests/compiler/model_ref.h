// Moduco tests: models of tests/compiler/models compared field by field with MuJoCo 3.14.0
// (tests/compiler/forward_ref.mjs under Node, through tu_mjs3Json): compiled fields, forward
// dynamics at the first keyframe (qpos0 without one) and the state after a number of steps.
#ifndef MODUCO_TESTS_COMPILER_MODEL_REF_H_
#define MODUCO_TESTS_COMPILER_MODEL_REF_H_

#include <cjson/cJSON.h>

#include <moduco/moduco.h>

#define MR_MODEL_DIR MODUCO_SOURCE_DIR "/tests/compiler/models"

// one model in both engines: MuJoCo's record (owned by out) and Moduco's model and data, reset
// to the first keyframe and run through mc_forward
typedef struct {
  cJSON* out;               // the whole reference output
  const cJSON* ref;         // the model's record
  mcModel* m;
  mcData* d;
} mrCase;

// load file (relative to MR_MODEL_DIR) in both engines; the reference (MuJoCo 3.14.0) steps nstep
// times
void mr_open(mrCase* k, const char* file, int nstep);

// the same with another reference script of the same output (run with DIR NSTEP FILE) on file of
// folder dir (the caller checks first that the script's MuJoCo can run: TU_MJS3*_REQUIRE)
void mr_openScript(mrCase* k, const char* script, const char* dir, const char* file, int nstep);

// mr_open against MuJoCo 3.3.8, for the checks that document where 3.3.8 and 3.14 differ
void mr_open338(mrCase* k, const char* file, int nstep);

// the same with another reference script (run with args; its first model is file's record) on
// the models of dir, naming MuJoCo version in messages
void mr_openRef(mrCase* k, const char* script, const char* const* args, const char* dir,
                const char* file, const char* version);
void mr_close(mrCase* k);

// step Moduco nstep times, then mc_forward (as the reference did for "stepped")
void mr_step(mrCase* k, int nstep);

// the largest relative error |a - b| / max(1, |b|) of n values against the reference field
// (group: NULL for a model field, "forward" or "stepped"); fails when the lengths differ or the
// error exceeds tol, naming the field and the index
double mr_compare(const mrCase* k, const char* group, const char* field, const mcNum* ours, int n,
                  double tol);

// the same for a reference field of bytes or ints
void mr_compareInt(const mrCase* k, const char* group, const char* field, const int* ours, int n);

// a reference field of the record (group as above); fails when it is missing
const cJSON* mr_field(const mrCase* k, const char* group, const char* field);

// a reference number of the record (group as above)
double mr_number(const mrCase* k, const char* group, const char* field);

#endif  // MODUCO_TESTS_COMPILER_MODEL_REF_H_
