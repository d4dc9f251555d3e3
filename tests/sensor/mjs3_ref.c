// MuJoCo 3.3.8 reference values for the sensor tests (see mjs3_ref.h).
#include "mjs3_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#define MJS3_NODE_MODULES MODUCO_SOURCE_DIR "/tests/mjs3/node_modules"
#define MJS3_SCRIPT MODUCO_SOURCE_DIR "/tests/sensor/mjs3_sensors.mjs"


void mjs3_require(void) {
  if (system("node --version > /dev/null 2>&1") != 0) {
    cr_assert_fail("node (Node.js >= 18) is not in PATH: run scripts/setup-debian.sh (it installs "
                   "nodejs and runs npm ci in tests/mjs3)");
  }
  if (access(MJS3_NODE_MODULES "/mujoco-js/package.json", R_OK) != 0) {
    cr_assert_fail("%s/mujoco-js is missing: run scripts/setup-debian.sh (npm ci in tests/mjs3) "
                   "to install MuJoCo 3.3.8 (mujoco-js 0.0.7)", MJS3_NODE_MODULES);
  }
}


cJSON* mjs3_run(const char* xmlpath, const double* qpos, int nstate, int nq) {
  mjs3_require();

  // the states
  char statespath[] = "/tmp/moduco-mjs3-states-XXXXXX";
  int fd = mkstemp(statespath);
  cr_assert(fd >= 0, "cannot create a temporary file");
  FILE* f = fdopen(fd, "w");
  cr_assert(f);
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
  char cmd[4096];
  snprintf(cmd, sizeof(cmd), "node '%s' '%s' '%s' '%s'", MJS3_SCRIPT, MJS3_NODE_MODULES, xmlpath,
           statespath);
  FILE* p = popen(cmd, "r");
  cr_assert(p, "cannot run %s", cmd);
  size_t cap = 1 << 16, len = 0, got;
  char* buf = malloc(cap);
  cr_assert(buf);
  while ((got = fread(buf + len, 1, cap - len - 1, p)) > 0) {
    len += got;
    if (cap - len < 4096) {
      cap *= 2;
      buf = realloc(buf, cap);
      cr_assert(buf);
    }
  }
  buf[len] = 0;
  int rc = pclose(p);
  unlink(statespath);
  cr_assert_eq(rc, 0, "%s failed (status %d; its message is above)", cmd, rc);
  cJSON* o = cJSON_Parse(buf);
  free(buf);
  cr_assert(o, "unparsable output of %s", cmd);
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, "version");
  cr_assert(cJSON_IsString(v) && !strcmp(v->valuestring, "3.3.8"), "expected MuJoCo 3.3.8");
  return o;
}


void mjs3_nums(const cJSON* o, const char* key, double* out, int n) {
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(o, key);
  cr_assert(cJSON_IsArray(a), "missing %s in the MuJoCo 3.3.8 output", key);
  cr_assert_eq(cJSON_GetArraySize(a), n, "%s: length %d, expected %d", key,
               cJSON_GetArraySize(a), n);
  int i = 0;
  const cJSON* v;
  cJSON_ArrayForEach(v, a) {
    out[i++] = v->valuedouble;
  }
}
