// scripts/corpus-check on the small tree tests/corpus/check (one model of each kind: matching,
// refused by Moduco only, refused by both, differing at the start, included by another, not a
// model), and its expectations mode: a regression against the file fails, the same results pass.
// Needs node, python3 and MuJoCo 3.14.0 (tests/mjs3/node_modules), as the script does.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <cjson/cJSON.h>

#include "testutil.h"

#define TREE MODUCO_SOURCE_DIR "/tests/corpus/check"

// run the script on TREE with extra arguments; its exit status, its stdout in out (malloc'ed)
static int runCheck(const char* extra, char** out) {
  char cmd[4096];
  snprintf(cmd, sizeof(cmd), "python3 '%s/scripts/corpus-check' '%s' --moduco '%s' --steps 20 %s",
           MODUCO_SOURCE_DIR, TREE, MODUCO_CLI, extra);
  FILE* p = popen(cmd, "r");
  cr_assert_not_null(p, "cannot run %s", cmd);
  size_t n = 0, cap = 1 << 16;
  char* text = malloc(cap);
  size_t got;
  while ((got = fread(text + n, 1, cap - n - 1, p)) > 0) {
    n += got;
    if (cap - n < 1024) {
      cap *= 2;
      text = realloc(text, cap);
    }
  }
  text[n] = 0;
  int rc = pclose(p);
  *out = text;
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// a temporary file name (created empty)
static void tmpName(char* path, size_t sz, const char* what) {
  snprintf(path, sz, "/tmp/moduco-corpus-%s-XXXXXX", what);
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0, "cannot create %s", path);
  close(fd);
}

static cJSON* readJson(const char* path) {
  char* text = tu_readFile(path);
  cr_assert_not_null(text, "cannot read %s", path);
  cJSON* j = cJSON_Parse(text);
  free(text);
  cr_assert_not_null(j, "%s is not JSON", path);
  return j;
}

static const cJSON* row(const cJSON* out, const char* file) {
  const cJSON* r;
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(out, "models")) {
    if (!strcmp(cJSON_GetObjectItemCaseSensitive(r, "file")->valuestring, file)) {
      return r;
    }
  }
  cr_assert_fail("no row for %s", file);
  return NULL;
}

static const char* str(const cJSON* o, const char* key) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : "";
}

static int matched(const cJSON* r, const char* state) {
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(r, state), "match"));
}

Test(corpus_check, classifies_each_kind_of_file) {
  TU_MJS314_REQUIRE();
  char json[256], *text;
  tmpName(json, sizeof(json), "json");
  char extra[512];
  snprintf(extra, sizeof(extra), "--json '%s'", json);
  cr_assert_eq(runCheck(extra, &text), 0, "%s", text);
  cr_assert(strstr(text, "pendulum.xml"), "no table: %s", text);
  free(text);
  cJSON* out = readJson(json);
  remove(json);

  const cJSON* r = row(out, "pendulum.xml");
  cr_expect_str_eq(str(r, "load"), "both");
  cr_expect(matched(r, "start") && matched(r, "stepped"), "pendulum.xml does not match");

  r = row(out, "multiccd.xml");  // 3.14 keeps other points of the cylinder's cap (multiccd)
  cr_expect_str_eq(str(r, "load"), "both");
  cr_expect(!matched(r, "start"), "multiccd.xml matches at the start");
  cr_expect_str_eq(str(cJSON_GetObjectItemCaseSensitive(r, "start"), "field"), "qacc");

  r = row(out, "cloth.xml");
  cr_expect_str_eq(str(r, "load"), "only MuJoCo");
  cr_expect(strstr(str(r, "moduco_error"), "flexcomp"), "%s", str(r, "moduco_error"));

  r = row(out, "typo.xml");
  cr_expect_str_eq(str(r, "load"), "neither");
  cr_expect(strstr(str(r, "mujoco_error"), "sizee") && strstr(str(r, "moduco_error"), "typo.xml:3"),
            "%s / %s", str(r, "mujoco_error"), str(r, "moduco_error"));

  r = row(out, "sub/defaults.xml");
  cr_expect_str_eq(str(r, "included_by"), "pendulum.xml");

  const cJSON* others = cJSON_GetObjectItemCaseSensitive(out, "not_models");
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(out, "models")), 5);
  cr_expect(strstr(str(others, "robot.urdf.xml"), "<robot>"), "robot.urdf.xml: %s",
            str(others, "robot.urdf.xml"));
  cJSON_Delete(out);
}

// the script run with the expectations file holding text; its exit status, its stdout in out
static int runExpect(const char* text, char** out) {
  char path[256], extra[600];
  tmpName(path, sizeof(path), "expect");
  FILE* f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
  snprintf(extra, sizeof(extra), "--expect '%s'", path);
  int rc = runCheck(extra, out);
  remove(path);
  return rc;
}

Test(corpus_check, fails_only_on_a_regression) {
  TU_MJS314_REQUIRE();
  char path[256], extra[600], *text;

  // the current results as expectations: no regression
  tmpName(path, sizeof(path), "expect");
  snprintf(extra, sizeof(extra), "--write-expect '%s'", path);
  cr_assert_eq(runCheck(extra, &text), 0, "%s", text);
  free(text);
  snprintf(extra, sizeof(extra), "--expect '%s'", path);
  cr_expect_eq(runCheck(extra, &text), 0, "%s", text);
  cr_expect(strstr(text, "no regression"), "%s", text);
  free(text);
  cJSON* e = readJson(path);
  remove(path);
  const cJSON* models = cJSON_GetObjectItemCaseSensitive(e, "models");
  cr_expect_eq(cJSON_GetArraySize(models), 5);
  cr_expect(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(models, "multiccd.xml"), "start")));
  cJSON_Delete(e);

  // a model that must match and does not, one that must load and does not, one that is gone
  cr_expect_eq(runExpect(
      "{\"steps\": 20, \"models\": {"
      "\"multiccd.xml\": {\"load\": \"both\", \"start\": true, \"stepped\": false},"
      "\"cloth.xml\": {\"load\": \"both\", \"start\": false, \"stepped\": false},"
      "\"gone.xml\": {\"load\": \"both\", \"start\": true, \"stepped\": true}}}", &text),
      1, "%s", text);
  cr_expect(strstr(text, "REGRESSION") && strstr(text, "multiccd.xml: no longer matches at the "
                                                          "start"), "%s", text);
  cr_expect(strstr(text, "cloth.xml: load is \"only MuJoCo\", expected \"both\""), "%s", text);
  cr_expect(strstr(text, "gone.xml: expected in the tree, not found"), "%s", text);
  // the models the file does not name are listed as new, not failed
  cr_expect(strstr(text, "pendulum.xml: new in the tree"), "%s", text);
  free(text);

  // expectations below the results: listed as better, exit 0
  cr_expect_eq(runExpect(
      "{\"steps\": 20, \"models\": {"
      "\"pendulum.xml\": {\"load\": \"neither\", \"start\": false, \"stepped\": false}}}",
      &text), 0, "%s", text);
  cr_expect(strstr(text, "pendulum.xml: now matches after the steps"), "%s", text);
  free(text);
}
