// Moduco tests: models of tests/compiler/models against MuJoCo 3.14.0 (see model_ref.h).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "model_ref.h"
#include "testutil.h"

void mr_openRef(mrCase* k, const char* script, const char* const* args, const char* dir,
                const char* file, const char* version) {
  char err[1024] = "", path[1024];
  k->out = tu_mjs3Json(script, args, NULL, err, sizeof(err));
  cr_assert_not_null(k->out, "MuJoCo %s reference (%s): %s", version ? version : "3", script,
                     err);
  const char* got = cJSON_GetObjectItemCaseSensitive(k->out, "version")->valuestring;
  k->ref = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(k->out, "models"), 0);
  const cJSON* e = cJSON_GetObjectItemCaseSensitive(k->ref, "error");
  cr_assert(!e, "MuJoCo %s does not load %s: %s", got, file,
            cJSON_IsString(e) ? e->valuestring : "");
  snprintf(path, sizeof(path), "%s/%s", dir, file);
  k->m = mc_loadXML(path, err, sizeof(err));
  cr_assert_not_null(k->m, "Moduco does not load %s: %s", file, err);
  k->d = mc_makeData(k->m);
  cr_assert_not_null(k->d);
  if (k->m->nkey > 0) {
    cr_assert_eq(mc_resetDataKeyframe(k->m, k->d, 0), 0);
  }
  mc_forward(k->m, k->d);
}

// forward_ref.mjs on MuJoCo version ("3.14.0" or "3.3.8"), which it must report
static void openVersion(mrCase* k, const char* file, int nstep, const char* version) {
  char steps[32];
  snprintf(steps, sizeof(steps), "%d", nstep);
  const char* args[] = {"--mujoco", version, MR_MODEL_DIR, steps, file, NULL};
  mr_openRef(k, "tests/compiler/forward_ref.mjs", args, MR_MODEL_DIR, file, version);
  cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(k->out, "version")->valuestring, version);
}

void mr_open(mrCase* k, const char* file, int nstep) {
  TU_MJS314_REQUIRE();
  openVersion(k, file, nstep, "3.14.0");
}

void mr_open338(mrCase* k, const char* file, int nstep) {
  TU_MJS3_REQUIRE();
  openVersion(k, file, nstep, "3.3.8");
}

void mr_openScript(mrCase* k, const char* script, const char* dir, const char* file, int nstep) {
  char steps[32];
  snprintf(steps, sizeof(steps), "%d", nstep);
  const char* args[] = {dir, steps, file, NULL};
  mr_openRef(k, script, args, dir, file, NULL);
}

void mr_close(mrCase* k) {
  mc_deleteData(k->d);
  mc_deleteModel(k->m);
  cJSON_Delete(k->out);
}

void mr_step(mrCase* k, int nstep) {
  for (int i = 0; i < nstep; i++) {
    mc_step(k->m, k->d);
  }
  mc_forward(k->m, k->d);
}

const cJSON* mr_field(const mrCase* k, const char* group, const char* field) {
  const cJSON* obj = group ? cJSON_GetObjectItemCaseSensitive(k->ref, group) : k->ref;
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(obj, field);
  cr_assert_not_null(a, "reference field %s%s%s missing", group ? group : "", group ? "." : "",
                     field);
  return a;
}

double mr_compare(const mrCase* k, const char* group, const char* field, const mcNum* ours, int n,
                  double tol) {
  const cJSON* a = mr_field(k, group, field);
  cr_assert_eq(cJSON_GetArraySize(a), n, "%s: %d values in MuJoCo, %d in Moduco", field,
               cJSON_GetArraySize(a), n);
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double b = cJSON_GetArrayItem(a, i)->valuedouble;
    double rel = fabs(ours[i] - b) / fmax(1, fabs(b));
    cr_assert(rel <= tol, "%s%s%s[%d]: Moduco %.17g, MuJoCo %.17g (error %.3g > %.3g)",
              group ? group : "", group ? "." : "", field, i, ours[i], b, rel, tol);
    worst = fmax(worst, rel);
  }
  return worst;
}

void mr_compareInt(const mrCase* k, const char* group, const char* field, const int* ours, int n) {
  const cJSON* a = mr_field(k, group, field);
  cr_assert_eq(cJSON_GetArraySize(a), n, "%s: %d values in MuJoCo, %d in Moduco", field,
               cJSON_GetArraySize(a), n);
  for (int i = 0; i < n; i++) {
    cr_assert_eq(ours[i], cJSON_GetArrayItem(a, i)->valueint, "%s[%d]: Moduco %d, MuJoCo %d",
                 field, i, ours[i], cJSON_GetArrayItem(a, i)->valueint);
  }
}

double mr_number(const mrCase* k, const char* group, const char* field) {
  const cJSON* v = mr_field(k, group, field);
  cr_assert(cJSON_IsNumber(v), "reference field %s is not a number", field);
  return v->valuedouble;
}
