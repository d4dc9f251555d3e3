// MuJoCo 3.14.0 reference values for the sensor tests (see mjs3_ref.h).
#include "mjs3_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "testutil.h"

#define MJS3_SCRIPT "tests/sensor/mjs3_sensors.mjs"


void mjs3_require(void) {
  TU_MJS314_REQUIRE();
}


cJSON* mjs3_run(const char* xmlpath, const double* qpos, int nstate, int nq) {
  mjs3_require();

  // the states
  char statespath[64];
  FILE* f = tu_tempFile(statespath, sizeof(statespath));
  cr_assert(f, "cannot create a temporary file");
  fprintf(f, "{\"qpos\": [");
  for (int s = 0; s < nstate; s++) {
    fprintf(f, "%s[", s ? "," : "");
    for (int k = 0; k < nq; k++) {
      fprintf(f, "%s%.17g", k ? "," : "", qpos[(size_t)s * nq + k]);
    }
    fprintf(f, "]");
  }
  fprintf(f, "]}\n");
  fclose(f);

  // run and read everything
  const char* args[] = {xmlpath, statespath, NULL};
  char err[1024];
  cJSON* o = tu_mjs3Json(MJS3_SCRIPT, args, NULL, err, sizeof(err));
  unlink(statespath);
  cr_assert(o, "%s", err);
  return o;
}


void mjs3_nums(const cJSON* o, const char* key, double* out, int n) {
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(o, key);
  cr_assert(cJSON_IsArray(a), "missing %s in the MuJoCo 3.14.0 output", key);
  cr_assert_eq(cJSON_GetArraySize(a), n, "%s: length %d, expected %d", key,
               cJSON_GetArraySize(a), n);
  int i = 0;
  const cJSON* v;
  cJSON_ArrayForEach(v, a) {
    out[i++] = v->valuedouble;
  }
}
