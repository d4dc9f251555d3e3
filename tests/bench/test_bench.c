// Tests of 'moduco bench': the built binary is run with few steps and its JSON is checked against
// the schema of docs/bench.md; a bad model or an unknown plugin fails its arm only. Behaviour, not
// speed: no rate is compared with anything.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>

#define MODELS MODUCO_SOURCE_DIR "/models/"

static char g_dir[256];


// a scratch folder per test
static void setup(void) {
  snprintf(g_dir, sizeof(g_dir), "/tmp/moduco-bench-XXXXXX");
  cr_assert_not_null(mkdtemp(g_dir));
}


static void teardown(void) {
  char cmd[512];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
  if (system(cmd)) {
    fprintf(stderr, "could not remove %s\n", g_dir);
  }
}


// run the CLI with arguments; return its exit code, stdout+stderr in a malloc'd string
static int run(const char* args, char** output) {
  char cmd[4096];
  snprintf(cmd, sizeof(cmd), "'%s' bench %s 2>&1", MODUCO_CLI, args);
  FILE* p = popen(cmd, "r");
  cr_assert_not_null(p);
  size_t cap = 1 << 16, n = 0;
  char* buf = malloc(cap);
  size_t k;
  while ((k = fread(buf + n, 1, cap - n - 1, p)) > 0) {
    n += k;
    if (n + 1 >= cap) {
      cap *= 2;
      buf = realloc(buf, cap);
    }
  }
  buf[n] = 0;
  int status = pclose(p);
  *output = buf;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}


// read and parse a JSON file
static cJSON* readJson(const char* file) {
  FILE* f = fopen(file, "r");
  cr_assert_not_null(f, "%s was not written", file);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* text = malloc((size_t)n + 1);
  cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
  text[n] = 0;
  fclose(f);
  cJSON* j = cJSON_Parse(text);
  cr_assert_not_null(j, "%s is not JSON", file);
  free(text);
  return j;
}


// a member of the given cJSON type (cJSON_Number, cJSON_String, ...; cJSON_NULL allowed if nul)
static const cJSON* member(const cJSON* o, const char* key, int type, int nul) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
  cr_assert_not_null(v, "missing key '%s'", key);
  if (nul && cJSON_IsNull(v)) {
    return NULL;
  }
  cr_assert((v->type & 0xFF) == type, "key '%s' has type %d, expected %d", key, v->type & 0xFF,
            type);
  return v;
}


// the statistics object {median, min, max, samples[]} of a running arm
static void checkRate(const cJSON* sps, int repeat) {
  double med = member(sps, "median", cJSON_Number, 0)->valuedouble;
  double lo = member(sps, "min", cJSON_Number, 0)->valuedouble;
  double hi = member(sps, "max", cJSON_Number, 0)->valuedouble;
  cr_expect(lo > 0 && lo <= med && med <= hi);
  const cJSON* s = member(sps, "samples", cJSON_Array, 0);
  cr_expect_eq(cJSON_GetArraySize(s), repeat);
}


// check the whole document against docs/bench.md; return the arms array
static const cJSON* checkSchema(const cJSON* root, int repeat) {
  cr_expect_str_eq(member(root, "schema", cJSON_String, 0)->valuestring, "moduco-bench/1");
  member(root, "date", cJSON_String, 0);
  member(root, "command", cJSON_String, 0);
  const cJSON* set = member(root, "settings", cJSON_Object, 0);
  cr_expect_eq(member(set, "repeat", cJSON_Number, 0)->valueint, repeat);
  member(set, "steps", cJSON_Number, 0);
  member(set, "warmup_steps", cJSON_Number, 0);
  member(set, "seed", cJSON_Number, 0);
  member(set, "ratio_method", cJSON_String, 0);
  member(set, "threads", cJSON_Array, 0);
  const cJSON* mach = member(root, "machine", cJSON_Object, 0);
  member(mach, "cpu", cJSON_String, 0);
  member(mach, "ncpu", cJSON_Number, 0);
  member(mach, "moduco_version", cJSON_String, 0);
  member(mach, "mujoco_version", cJSON_String, 1);

  const cJSON* arms = member(root, "arms", cJSON_Array, 0);
  const cJSON* a;
  int i = 0;
  cJSON_ArrayForEach(a, arms) {
    cr_expect_eq(member(a, "index", cJSON_Number, 0)->valueint, i++);
    const char* engine = member(a, "engine", cJSON_String, 0)->valuestring;
    cr_expect(!strcmp(engine, "moduco") || !strcmp(engine, "mujoco-2.2.2"), "engine %s", engine);
    member(a, "model", cJSON_String, 0);
    member(a, "solver", cJSON_String, 0);
    member(a, "integrator", cJSON_String, 0);
    int failed = member(a, "error", cJSON_String, 1) != NULL;
    const cJSON* sps = member(a, "steps_per_second", cJSON_Object, 1);
    cr_expect_eq(sps == NULL, failed);
    member(a, "ratio_to_first", cJSON_Number, 1);
    member(a, "ratio_ci", cJSON_Object, 1);
    member(a, "ratio_to_mujoco", cJSON_Number, 1);
    if (failed) {
      continue;
    }
    checkRate(sps, repeat);
    member(a, "realtime_factor", cJSON_Number, 0);
    member(a, "timestep", cJSON_Number, 0);
    member(a, "nv", cJSON_Number, 0);
    double r = member(a, "ratio_to_first", cJSON_Number, 0)->valuedouble;
    const cJSON* ci = member(a, "ratio_ci", cJSON_Object, 0);
    double lo = member(ci, "low", cJSON_Number, 0)->valuedouble;
    double hi = member(ci, "high", cJSON_Number, 0)->valuedouble;
    cr_expect(lo <= r && r <= hi, "ratio %g outside [%g, %g]", r, lo, hi);
    member(ci, "method", cJSON_String, 0);
    const cJSON* rr = member(a, "ratio_range", cJSON_Object, 0);
    member(rr, "min", cJSON_Number, 0);
    member(rr, "max", cJSON_Number, 0);
    member(a, "solver_iterations_mean", cJSON_Number, 0);
    const cJSON* res = member(a, "residual", cJSON_Object, 0);
    member(res, "gradient", cJSON_Number, 0);
    member(res, "improvement", cJSON_Number, 0);
    member(a, "contacts_per_step", cJSON_Number, 0);
    member(a, "constraints_per_step", cJSON_Number, 0);
    const cJSON* en = member(a, "energy", cJSON_Object, 0);
    member(en, "initial", cJSON_Number, 0);
    member(en, "final", cJSON_Number, 0);
    member(en, "drift", cJSON_Number, 0);
    member(en, "relative_drift", cJSON_Number, 0);
    member(a, "warnings", cJSON_Number, 0);
  }
  return arms;
}


// does libmujoco 2.2.2 load here (the reference arm is optional)
static int haveMuJoCo(void) {
  void* h = dlopen("libmujoco.so.2.2.2", RTLD_NOW | RTLD_LOCAL);
  if (h) {
    dlclose(h);
  }
  return h != NULL;
}


Test(bench, json_schema_and_failing_arms, .init = setup, .fini = teardown) {
  char args[2048], json[300], *out;
  snprintf(json, sizeof(json), "%s/b.json", g_dir);
  snprintf(args, sizeof(args), "%spendulum.xml %s/missing.xml --solver newton,nosuch "
           "--integrator euler,rk4 --steps 20 --repeat 3 --json %s", MODELS, g_dir, json);
  int rc = run(args, &out);

  // failures are reported, the other arms ran, the exit code says something failed
  cr_expect_eq(rc, 1, "exit code %d\n%s", rc, out);
  cr_expect(strstr(out, "unknown solver 'nosuch'"), "%s", out);
  cr_expect(strstr(out, "missing.xml"), "%s", out);
  cJSON* root = readJson(json);
  const cJSON* arms = checkSchema(root, 3);
  cr_assert_eq(cJSON_GetArraySize(arms), 8);
  int ok = 0, bad = 0;
  const cJSON* a;
  cJSON_ArrayForEach(a, arms) {
    int failed = cJSON_IsString(cJSON_GetObjectItem(a, "error"));
    ok += !failed;
    bad += failed;
    const char* model = cJSON_GetObjectItem(a, "model")->valuestring;
    const char* solver = cJSON_GetObjectItem(a, "solver")->valuestring;
    cr_expect_eq(failed, strstr(model, "missing") || !strcmp(solver, "nosuch"), "%s %s", model,
                 solver);
  }
  cr_expect_eq(ok, 2);
  cr_expect_eq(bad, 6);

  // the first arm is its own reference
  const cJSON* first = cJSON_GetArrayItem(arms, 0);
  cr_expect_eq(cJSON_GetObjectItem(first, "ratio_to_first")->valuedouble, 1.0);
  cJSON_Delete(root);
  free(out);
}


Test(bench, reference_threads_profile_plot, .init = setup, .fini = teardown) {
  char args[2048], json[300], svg[300], *out;
  snprintf(json, sizeof(json), "%s/b.json", g_dir);
  snprintf(svg, sizeof(svg), "%s/b.svg", g_dir);
  snprintf(args, sizeof(args), "%spendulum.xml --solver newton,cg --steps 20 --repeat 3 "
           "--threads 1,2 --profile --reference mujoco --json %s --plot %s", MODELS, json, svg);
  int rc = run(args, &out);
  int mj = haveMuJoCo();
  cr_expect_eq(rc, mj ? 0 : 1, "exit code %d\n%s", rc, out);
  cr_expect(strstr(out, "profile"), "%s", out);
  cr_expect(strstr(out, "plugin timers"), "%s", out);

  // mujoco twins for both solvers when MuJoCo is present, reported as failed otherwise
  cJSON* root = readJson(json);
  const cJSON* arms = checkSchema(root, 3);
  int nmj = 0;
  const cJSON* a;
  cJSON_ArrayForEach(a, arms) {
    const char* engine = cJSON_GetObjectItem(a, "engine")->valuestring;
    int failed = cJSON_IsString(cJSON_GetObjectItem(a, "error"));
    if (!strcmp(engine, "mujoco-2.2.2")) {
      nmj++;
      cr_expect_eq(failed, !mj);
      continue;
    }
    cr_expect(!failed);
    cr_expect(cJSON_IsObject(cJSON_GetObjectItem(a, "profile_us_per_step")));

    // per-plugin timers: the integrator and solver slots name the arm's plugins
    const cJSON* pp = cJSON_GetObjectItem(a, "profile_plugins");
    cr_assert(cJSON_IsArray(pp), "profile_plugins missing");
    int nint = 0, nsol = 0;
    const cJSON* e;
    cJSON_ArrayForEach(e, pp) {
      const char* kind = cJSON_GetObjectItem(e, "kind")->valuestring;
      const cJSON* plugin = cJSON_GetObjectItem(e, "plugin");
      cr_expect(cJSON_GetObjectItem(e, "us_per_step")->valuedouble >= 0);
      if (!strcmp(kind, "integrator")) {
        nint++;
        cr_expect(cJSON_IsString(plugin));
        cr_expect_eq(cJSON_GetObjectItem(e, "calls_per_step")->valuedouble, 1.0);
      } else if (!strcmp(kind, "solver")) {
        nsol++;
        cr_expect(cJSON_IsString(plugin) && !strcasecmp(plugin->valuestring,
                  cJSON_GetObjectItem(a, "solver")->valuestring), "solver slot names the arm's");
      }
    }
    cr_expect_eq(nint, 1);
    cr_expect_eq(nsol, 1);
    const cJSON* fs = cJSON_GetObjectItem(a, "forward_states");
    cr_assert(cJSON_IsObject(fs), "forward_states missing");
    cr_expect(cJSON_GetObjectItem(fs, "count")->valueint > 0);
    double inc = cJSON_GetObjectItem(fs, "in_contact")->valuedouble;
    cr_expect(inc >= 0 && inc <= 1);
    const cJSON* thr = cJSON_GetObjectItem(a, "threads");
    cr_assert(cJSON_IsArray(thr));
    cr_expect_eq(cJSON_GetArraySize(thr), 2);
    const cJSON* t;
    cJSON_ArrayForEach(t, thr) {
      cr_expect(cJSON_GetObjectItem(t, "steps_per_second")->valuedouble > 0);
      cr_expect(cJSON_GetObjectItem(t, "forward_per_second")->valuedouble > 0);
      cr_expect(cJSON_GetObjectItem(t, "forward_per_cpu_second")->valuedouble > 0);
    }
    if (mj) {
      cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(a, "ratio_to_mujoco")));
    }
  }
  cr_expect_eq(nmj, 2);
  cJSON_Delete(root);

  // the chart is an SVG document
  FILE* f = fopen(svg, "r");
  cr_assert_not_null(f);
  char head[16] = "";
  cr_expect(fread(head, 1, 4, f) == 4 && !strncmp(head, "<svg", 4));
  fclose(f);
  free(out);
}


Test(bench, usage_errors) {
  char* out;
  cr_expect_eq(run("", &out), 2);
  free(out);
  cr_expect_eq(run(MODELS "pendulum.xml --steps 0", &out), 2);
  free(out);
  cr_expect_eq(run(MODELS "pendulum.xml --reference bullet", &out), 2);
  free(out);
  cr_expect_eq(run(MODELS "pendulum.xml --threads 0", &out), 2);
  free(out);
}
