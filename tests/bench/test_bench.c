// Tests of 'moduco bench' (libmoducobench through the CLI): the built binary is run with few steps
// and its JSON is checked against the schema of docs/bench.md; a bad model or an unknown plugin
// fails its arm only; a diverging arm fails the run unless allowed; ratios refer to each model's
// own baseline; a model's controls do not depend on the other models; the accuracy measure ranks
// a converged solver above an unconverged one; the table stays aligned with a long plugin name.
// Behaviour, not speed: no rate is compared with anything.
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>

#define MODELS MODUCO_SOURCE_DIR "/models/"
#define FIXTURES MODUCO_SOURCE_DIR "/tests/bench/"

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
  cr_expect_str_eq(member(root, "schema", cJSON_String, 0)->valuestring, "moduco-bench/2");
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
    member(a, "ratio_to_baseline", cJSON_Number, 1);
    member(a, "baseline", cJSON_Number, 1);
    member(a, "ratio_ci", cJSON_Object, 1);
    member(a, "ratio_to_mujoco", cJSON_Number, 1);
    if (failed) {
      continue;
    }
    checkRate(sps, repeat);
    member(a, "realtime_factor", cJSON_Number, 0);
    member(a, "timestep", cJSON_Number, 0);
    member(a, "nv", cJSON_Number, 0);
    double r = member(a, "ratio_to_baseline", cJSON_Number, 0)->valuedouble;
    int base = member(a, "baseline", cJSON_Number, 0)->valueint;
    cr_expect(base >= 0 && base < i, "baseline %d of arm %d", base, i - 1);
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
    member(a, "plugin_warnings", cJSON_Number, 0);
    member(a, "resets", cJSON_Number, 0);
    member(a, "trajectory_hash", cJSON_String, 0);
    const cJSON* wc = member(a, "warning_counts", cJSON_Object, 0);
    member(wc, "badqacc", cJSON_Number, 0);
    cr_expect(cJSON_IsBool(cJSON_GetObjectItem(a, "diverged")), "diverged is not a bool");
    cr_expect(cJSON_IsBool(cJSON_GetObjectItem(a, "nonfinite")), "nonfinite is not a bool");
    const cJSON* acc = member(a, "accuracy", cJSON_Object, 1);
    if (acc) {
      cr_expect(member(acc, "samples", cJSON_Number, 0)->valueint > 0);
      double med = member(acc, "median", cJSON_Number, 0)->valuedouble;
      double mx = member(acc, "max", cJSON_Number, 0)->valuedouble;
      cr_expect(med >= 0 && med <= mx, "accuracy median %g max %g", med, mx);
    }
    member(a, "qpos_deviation", cJSON_Number, 1);
    const cJSON* sr = member(a, "solver_residual", cJSON_Object, 1);
    if (sr) {
      cr_expect(member(sr, "samples", cJSON_Number, 0)->valueint > 0);
      cr_expect(member(sr, "median", cJSON_Number, 0)->valuedouble <=
                member(sr, "max", cJSON_Number, 0)->valuedouble);
      member(sr, "dynamics", cJSON_Number, 0);
      member(sr, "feasibility", cJSON_Number, 0);
      member(sr, "optimality", cJSON_Number, 0);
    }
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
  cr_expect_eq(cJSON_GetObjectItem(first, "ratio_to_baseline")->valuedouble, 1.0);
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
  cr_expect_eq(run(MODELS "pendulum.xml --accuracy x", &out), 2);
  free(out);

  // lists with empty items are refused, naming the option (not read as fewer names)
  const char* lists[] = {"--solver ,,,", "--solver newton,,pgs", "--solver ,newton",
                         "--integrator euler,", "--threads 1,,2", "--solver ''"};
  for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]); k++) {
    char args[256];
    snprintf(args, sizeof(args), MODELS "pendulum.xml %s --steps 5 --repeat 1", lists[k]);
    cr_expect_eq(run(args, &out), 2, "%s: %s", lists[k], out);
    char opt[32];
    snprintf(opt, sizeof(opt), "%.*s", (int)strcspn(lists[k], " "), lists[k]);
    cr_expect(strstr(out, opt) && strstr(out, "empty items"), "%s: %s", lists[k], out);
    cr_expect(!strstr(out, "arms,"), "%s: the bench must not run: %s", lists[k], out);
    free(out);
  }
}


// the report files are closed and checked: a write that fails (a full device) fails the run
Test(bench, report_write_errors_fail, .init = setup, .fini = teardown) {
  const char* opts[] = {"--json /dev/full", "--plot /dev/full"};
  for (int k = 0; k < 2; k++) {
    char args[512], *out;
    snprintf(args, sizeof(args), MODELS "pendulum.xml --steps 5 --repeat 1 --accuracy 0 %s",
             opts[k]);
    cr_expect_eq(run(args, &out), 1, "%s must fail: %s", opts[k], out);
    cr_expect(strstr(out, "moduco: cannot write /dev/full: No space left on device"), "%s", out);
    free(out);
  }

  // a file that cannot be created fails before the run
  char args[1024], *out;
  snprintf(args, sizeof(args), MODELS "pendulum.xml --steps 5 --repeat 1 --json %s/no/b.json",
           g_dir);
  cr_expect_eq(run(args, &out), 1, "%s", out);
  cr_expect(strstr(out, "cannot write") && strstr(out, "/no/b.json"), "%s", out);
  cr_expect(!strstr(out, "arms,"), "the bench must not run: %s", out);
  free(out);

  // and the same command writing to real files succeeds
  snprintf(args, sizeof(args), MODELS "pendulum.xml --steps 5 --repeat 1 --accuracy 0 "
           "--json %s/b.json --plot %s/b.svg", g_dir, g_dir);
  cr_expect_eq(run(args, &out), 0, "%s", out);
  free(out);
}


// run with a JSON file in the scratch folder; return the parsed document, the exit code in *rc
static cJSON* runJson(const char* args, int* rc, char** out) {
  char cmd[4096], json[300];
  snprintf(json, sizeof(json), "%s/run.json", g_dir);
  snprintf(cmd, sizeof(cmd), "%s --json %s", args, json);
  *rc = run(cmd, out);
  return readJson(json);
}


static const cJSON* arm(const cJSON* root, int i) {
  const cJSON* a = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "arms"), i);
  cr_assert_not_null(a, "no arm %d", i);
  return a;
}


static double num(const cJSON* o, const char* key) {
  const cJSON* v = cJSON_GetObjectItem(o, key);
  cr_assert(cJSON_IsNumber(v), "'%s' is not a number", key);
  return v->valuedouble;
}


Test(bench, divergence_fails_unless_allowed, .init = setup, .fini = teardown) {
  // the stiff spring diverges under explicit Euler (auto-resets); the pendulum does not
  char* out;
  int rc;
  cJSON* root = runJson(MODELS "pendulum.xml " FIXTURES "stiff.xml --integrator euler "
                        "--steps 200 --repeat 2", &rc, &out);
  cr_expect_eq(rc, 3, "a diverging arm must fail the run: exit %d\n%s", rc, out);
  cr_expect(strstr(out, "DIVERGED"), "the table marks the arm\n%s", out);
  cr_expect(strstr(out, "arm 1 (moduco") && strstr(out, "diverged:"), "%s", out);
  checkSchema(root, 2);
  cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(arm(root, 0), "diverged")));
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(arm(root, 1), "diverged")));
  cr_expect(num(arm(root, 1), "resets") > 0);
  cr_expect_eq(num(arm(root, 0), "resets"), 0);
  const cJSON* wc = cJSON_GetObjectItem(arm(root, 1), "warning_counts");
  cr_expect(num(wc, "badqacc") + num(wc, "badqvel") + num(wc, "badqpos") > 0);
  cJSON_Delete(root);
  free(out);

  // allowed: exit 0, the arm still marked
  root = runJson(MODELS "pendulum.xml " FIXTURES "stiff.xml --integrator euler --steps 200 "
                 "--repeat 2 --allow-divergence", &rc, &out);
  cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
  cr_expect(strstr(out, "DIVERGED"), "%s", out);
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(arm(root, 1), "diverged")));
  cJSON_Delete(root);
  free(out);

  // a failed arm outranks a diverged one
  cr_expect_eq(run(FIXTURES "stiff.xml --solver newton,nosuch --steps 50 --repeat 1", &out), 1);
  free(out);
}


Test(bench, controls_independent_of_model_order, .init = setup, .fini = teardown) {
  char* out;
  int rc;
  cJSON* alone = runJson(MODELS "humanoid.xml --steps 150 --repeat 1 --accuracy 0", &rc, &out);
  cr_assert_eq(rc, 0, "%s", out);
  free(out);
  char after[300];
  snprintf(after, sizeof(after), "%s/after.json", g_dir);
  cJSON* second = runJson(MODELS "pendulum.xml " MODELS "chain.xml " MODELS "humanoid.xml "
                          "--steps 150 --repeat 1 --accuracy 0", &rc, &out);
  cr_assert_eq(rc, 0, "%s", out);
  free(out);
  cJSON* seed2 = runJson(MODELS "humanoid.xml --steps 150 --repeat 1 --accuracy 0 --seed 2", &rc,
                         &out);
  free(out);

  // the humanoid alone (arm 0) and third (arm 2): same contacts and the same trajectory
  const cJSON* a = arm(alone, 0);
  const cJSON* b = arm(second, 2);
  cr_expect_str_eq(cJSON_GetObjectItem(b, "model")->valuestring, MODELS "humanoid.xml");
  cr_expect_eq(num(a, "contacts_per_step"), num(b, "contacts_per_step"));
  cr_expect_eq(num(a, "constraints_per_step"), num(b, "constraints_per_step"));
  const char* ha = cJSON_GetObjectItem(a, "trajectory_hash")->valuestring;
  cr_expect_str_eq(ha, cJSON_GetObjectItem(b, "trajectory_hash")->valuestring);
  cr_expect_eq(num(cJSON_GetObjectItem(a, "energy"), "final"),
               num(cJSON_GetObjectItem(b, "energy"), "final"));

  // and the hash does see the controls: another seed, another trajectory
  cr_expect_str_neq(ha, cJSON_GetObjectItem(arm(seed2, 0), "trajectory_hash")->valuestring);
  cJSON_Delete(alone);
  cJSON_Delete(second);
  cJSON_Delete(seed2);
}


Test(bench, ratios_per_model_baseline, .init = setup, .fini = teardown) {
  char* out;
  int rc;
  cJSON* root = runJson(MODELS "pendulum.xml " FIXTURES "boxstack.xml --solver newton,pgs "
                        "--steps 50 --repeat 3 --accuracy 0", &rc, &out);
  cr_assert_eq(rc, 0, "%s", out);
  checkSchema(root, 3);

  // arms 0, 1: pendulum (baseline 0); arms 2, 3: box stack (baseline 2, its own first arm)
  int expect[4] = {0, 0, 2, 2};
  for (int i = 0; i < 4; i++) {
    cr_expect_eq((int)num(arm(root, i), "baseline"), expect[i], "arm %d", i);
  }
  cr_expect_eq(num(arm(root, 2), "ratio_to_baseline"), 1.0);

  // the ratio of arm 3 is its paired ratio to arm 2, repeat by repeat
  const cJSON* s2 = cJSON_GetObjectItem(cJSON_GetObjectItem(arm(root, 2), "steps_per_second"),
                                        "samples");
  const cJSON* s3 = cJSON_GetObjectItem(cJSON_GetObjectItem(arm(root, 3), "steps_per_second"),
                                        "samples");
  double q[3];
  for (int r = 0; r < 3; r++) {
    q[r] = cJSON_GetArrayItem(s3, r)->valuedouble / cJSON_GetArrayItem(s2, r)->valuedouble;
  }
  double lo = q[0] < q[1] ? q[0] : q[1], hi = q[0] < q[1] ? q[1] : q[0];
  double med = q[2] < lo ? lo : (q[2] > hi ? hi : q[2]);
  cr_expect_float_eq(num(arm(root, 3), "ratio_to_baseline"), med, 1e-12);
  cr_expect(strstr(out, "base"), "%s", out);
  cJSON_Delete(root);
  free(out);
}


Test(bench, accuracy_newton_vs_pgs, .init = setup, .fini = teardown) {
  // the box stack allows 8 iterations: Newton converges within them, PGS does not
  char* out;
  int rc;
  cJSON* root = runJson(FIXTURES "boxstack.xml --solver newton,pgs --steps 200 --repeat 1 "
                        "--accuracy 8", &rc, &out);
  cr_assert_eq(rc, 0, "%s", out);
  cr_expect(strstr(out, "acc med") && strstr(out, "acc max"), "accuracy columns\n%s", out);
  checkSchema(root, 1);
  const cJSON* an = cJSON_GetObjectItem(arm(root, 0), "accuracy");
  const cJSON* ap = cJSON_GetObjectItem(arm(root, 1), "accuracy");
  cr_assert(cJSON_IsObject(an) && cJSON_IsObject(ap), "accuracy missing");
  cr_expect_eq(num(an, "samples"), 8);
  cr_expect_eq(num(ap, "samples"), 8);
  cr_expect(num(an, "median") < 1e-6, "newton %g", num(an, "median"));
  cr_expect(num(ap, "median") > 10 * num(an, "median") + 1e-6, "pgs %g, newton %g",
            num(ap, "median"), num(an, "median"));
  cr_expect(num(ap, "max") >= num(ap, "median"));

  // the core's residual of each arm's solve at the same states ranks them the same way
  const cJSON* rn = cJSON_GetObjectItem(arm(root, 0), "solver_residual");
  const cJSON* rp = cJSON_GetObjectItem(arm(root, 1), "solver_residual");
  cr_assert(cJSON_IsObject(rn) && cJSON_IsObject(rp), "solver_residual missing");
  cr_expect_eq(num(rn, "samples"), 8);
  cr_expect(num(rn, "median") < 1e-9, "newton residual %g", num(rn, "median"));
  cr_expect(num(rp, "median") > 1e-3, "pgs residual %g", num(rp, "median"));
  cr_expect(strstr(out, "resid med"), "residual column\n%s", out);

  // integrator arms: qpos deviation from the baseline, 0 for the baseline itself
  cr_expect_eq(num(arm(root, 0), "qpos_deviation"), 0);
  cr_expect(num(arm(root, 1), "qpos_deviation") > 0);
  cJSON_Delete(root);
  free(out);

  // --accuracy 0 turns the measure off
  root = runJson(FIXTURES "boxstack.xml --steps 20 --repeat 1 --accuracy 0", &rc, &out);
  cr_expect(cJSON_IsNull(cJSON_GetObjectItem(arm(root, 0), "accuracy")));
  cJSON_Delete(root);
  free(out);
}


// column of the first occurrence of word in line, -1 if absent
static int column(const char* line, const char* word) {
  const char* p = strstr(line, word);
  return p ? (int)(p - line) : -1;
}


Test(bench, table_aligned_with_long_plugin_name, .init = setup, .fini = teardown) {
  static const char* const kLong = "benchfixture.semi_implicit_euler_without_damping_long_name";
  char args[2048], *out;
  snprintf(args, sizeof(args), "%spendulum.xml --integrator euler,%s,rk4 --steps 20 --repeat 1 "
           "--profile", MODELS, kLong);
  setenv("MODUCO_PLUGIN_PATH_SAVED", getenv("MODUCO_PLUGIN_PATH") ?
         getenv("MODUCO_PLUGIN_PATH") : "", 1);
  char path[2048];
  snprintf(path, sizeof(path), "%s:%s", MODUCO_BENCH_FIXTURE_DIR,
           getenv("MODUCO_PLUGIN_PATH_SAVED"));
  setenv("MODUCO_PLUGIN_PATH", path, 1);
  int rc = run(args, &out);
  setenv("MODUCO_PLUGIN_PATH", getenv("MODUCO_PLUGIN_PATH_SAVED"), 1);
  cr_assert_eq(rc, 0, "exit %d\n%s", rc, out);
  cr_assert(strstr(out, kLong), "the long name is printed\n%s", out);

  // the arm table: header, then rows 0..2; the right edge of steps/s and the status column line up
  char* lines[64];
  int n = 0;
  for (char* l = strtok(out, "\n"); l && n < 64; l = strtok(NULL, "\n")) {
    lines[n++] = l;
  }
  int head = -1;
  for (int i = 0; i < n && head < 0; i++) {
    if (!strncmp(lines[i], "arm", 3) && strstr(lines[i], "steps/s")) {
      head = i;
    }
  }
  cr_assert(head >= 0 && head + 3 < n, "no arm table");
  int edge = column(lines[head], "steps/s") + (int)strlen("steps/s");
  int status = column(lines[head], "status");
  int integ = column(lines[head], "integrator");
  for (int i = head + 1; i <= head + 3; i++) {
    const char* l = lines[i];
    cr_expect((int)strlen(l) > status && !strncmp(l + status, "ok", 2), "status column: %s", l);
    cr_expect(l[edge - 1] >= '0' && l[edge - 1] <= '9' && l[edge] == ' ', "steps/s column: %s",
              l);
    cr_expect(l[integ] != ' ' && l[integ - 1] == ' ', "integrator column: %s", l);
  }

  // the plugin timer table too: the us/step column ends at one place
  int ph = -1;
  for (int i = head; i < n && ph < 0; i++) {
    if (strstr(lines[i], "calls/step") && strstr(lines[i], "plugin")) {
      ph = i;
    }
  }
  cr_assert(ph >= 0, "no plugin timer table");
  int us = column(lines[ph], "us/step") + (int)strlen("us/step");
  int rows = 0;
  for (int i = ph + 1; i < n && lines[i][0] != 0 && strchr("0123456789 ", lines[i][0]); i++) {
    cr_expect(lines[i][us - 1] >= '0' && lines[i][us - 1] <= '9' && lines[i][us] == ' ',
              "us/step column: %s", lines[i]);
    rows++;
  }
  cr_expect(rows >= 6, "plugin timer rows: %d", rows);
  free(out);
}


// put dir first on MODUCO_PLUGIN_PATH; return the old value to restore (malloc'd, or NULL)
static char* prependPluginPath(const char* dir) {
  const char* old = getenv("MODUCO_PLUGIN_PATH");
  char* saved = old ? strdup(old) : NULL;
  char path[4096];
  snprintf(path, sizeof(path), "%s:%s", dir, old ? old : "");
  setenv("MODUCO_PLUGIN_PATH", path, 1);
  return saved;
}


static void restorePluginPath(char* saved) {
  if (saved) {
    setenv("MODUCO_PLUGIN_PATH", saved, 1);
  } else {
    unsetenv("MODUCO_PLUGIN_PATH");
  }
  free(saved);
}


// plugin-defined warnings by name, per arm: the fixture actuator of tests/plugin (instances.c)
// raises "unused" on every force call when disabled; two instances share one name
Test(bench, plugin_warnings_by_name, .init = setup, .fini = teardown) {
  char model[300];
  snprintf(model, sizeof(model), "%s/plugwarn.xml", g_dir);
  FILE* f = fopen(model, "w");
  cr_assert_not_null(f);
  fputs("<mujoco><worldbody><body><joint name='j' type='slide'/><geom size='.1'/></body>"
        "</worldbody><actuator><counter joint='j' steps='1' enabled='false'/>"
        "<counter joint='j' steps='1' enabled='false'/></actuator></mujoco>", f);
  fclose(f);
  char* saved = prependPluginPath(MODUCO_INSTANCE_FIXTURE_DIR);
  char args[1024], *out;
  int rc;
  snprintf(args, sizeof(args), "%s --solver newton,cg --steps 40 --repeat 2 --accuracy 0", model);
  cJSON* root = runJson(args, &rc, &out);
  restorePluginPath(saved);
  cr_assert_eq(rc, 0, "plugin warnings are not divergence: exit %d\n%s", rc, out);
  checkSchema(root, 2);
  for (int i = 0; i < 2; i++) {
    const cJSON* a = arm(root, i);
    const cJSON* pw = cJSON_GetObjectItem(a, "plugin_warning_counts");
    cr_assert(cJSON_IsObject(pw), "arm %d: plugin_warning_counts missing", i);
    cr_expect_eq(cJSON_GetArraySize(pw), 2, "one entry per name, not per instance");
    double unused = num(pw, "test.counter: unused");
    cr_expect_eq(num(pw, "test.counter: saturated"), 0);
    cr_expect_geq(unused, 2 * 40, "two disabled actuators, one force call per step each");
    cr_expect_eq(unused, num(a, "plugin_warnings"));
    cr_expect_eq(num(a, "warnings"), unused, "no built-in warning here");

    // the table's row of the arm names it with the same count
    char cell[128];
    snprintf(cell, sizeof(cell), "test.counter:unused=%d", (int)unused);
    char row[16];
    snprintf(row, sizeof(row), "\n  %d  moduco", i);
    const char* line = strstr(out, row);
    cr_assert(line, "no row %d\n%s", i, out);
    const char* end = strchr(line + 1, '\n');
    const char* hit = strstr(line, cell);
    cr_expect(hit && (!end || hit < end), "arm %d: '%s' not in its row\n%s", i, cell, out);
  }
  cr_expect(strstr(out, "plugin warnings"), "column header\n%s", out);

  cJSON_Delete(root);
  free(out);

  // a model without plugin warnings: an empty object
  root = runJson(MODELS "pendulum.xml --steps 10 --repeat 1 --accuracy 0", &rc, &out);
  const cJSON* pw = cJSON_GetObjectItem(arm(root, 0), "plugin_warning_counts");
  cr_expect(cJSON_IsObject(pw) && cJSON_GetArraySize(pw) == 0);
  cJSON_Delete(root);
  free(out);
}


// a third-party solver arm: the example PGS of sdk/examples/solver-pgs (built in-tree by
// tests/plugin), found through MODUCO_PLUGIN_PATH, runs beside the built-ins with the same
// accuracy measures and agrees with the built-in PGS
Test(bench, third_party_solver_arm, .init = setup, .fini = teardown) {
  char* saved = prependPluginPath(MODUCO_SOLVER_FIXTURE_DIR);
  char* out;
  int rc;
  cJSON* root = runJson(FIXTURES "boxstack.xml --solver newton,pgs,example.pgs --steps 100 "
                        "--repeat 2 --accuracy 8", &rc, &out);
  cr_assert_eq(rc, 0, "exit %d\n%s", rc, out);
  checkSchema(root, 2);
  const cJSON* pgs = arm(root, 1);
  const cJSON* ex = arm(root, 2);
  cr_expect_str_eq(cJSON_GetObjectItem(ex, "solver")->valuestring, "example.pgs");
  cr_expect(cJSON_IsNull(cJSON_GetObjectItem(ex, "error")));
  cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(ex, "diverged")));
  cr_expect(num(ex, "solver_iterations_mean") > 0, "the example solver ran");

  // chosen by name, it has its model instance like any selected plugin: nothing to note
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(ex, "model_instance")), "schema 2: always true");

  // the same algorithm as the built-in PGS on pyramidal cones: the same accuracy
  const cJSON* ap = cJSON_GetObjectItem(pgs, "accuracy");
  const cJSON* ae = cJSON_GetObjectItem(ex, "accuracy");
  cr_assert(cJSON_IsObject(ap) && cJSON_IsObject(ae), "accuracy missing");
  cr_expect_eq(num(ae, "samples"), 8);
  double mp = num(ap, "median"), me = num(ae, "median");
  cr_expect(me > 0 && fabs(me - mp) <= 1e-2 * mp, "example %g, pgs %g", me, mp);
  const cJSON* re = cJSON_GetObjectItem(ex, "solver_residual");
  cr_expect(cJSON_IsObject(re) && num(re, "samples") == 8, "solver_residual of the example");
  cJSON_Delete(root);
  free(out);

  // selected and configured in the model file: the arm has its instance, no note
  char model[300];
  snprintf(model, sizeof(model), "%s/relaxed.xml", g_dir);
  FILE* f = fopen(model, "w");
  cr_assert_not_null(f);
  fputs("<mujoco><option solver='example.pgs' cone='pyramidal'/>\n<extension><plugin "
        "plugin='example.pgs'><config key='relaxation' value='0.8'/></plugin></extension>\n"
        "<worldbody><geom type='plane' size='1 1 .1'/><body pos='0 0 .1'><freejoint/>"
        "<geom type='box' size='.1 .1 .1'/></body></worldbody></mujoco>", f);
  fclose(f);
  char args[512];
  snprintf(args, sizeof(args), "%s --solver example.pgs --steps 50 --repeat 1 --accuracy 4",
           model);
  root = runJson(args, &rc, &out);
  restorePluginPath(saved);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect(cJSON_IsNull(cJSON_GetObjectItem(arm(root, 0), "error")), "%s", out);
  cJSON_Delete(root);
  free(out);
}


// a solver chosen by name gets its model instance (mc_setSolver): the fixture "test.scaled",
// which reads its configuration in its init hook, runs; "test.tallied" raises its warning once per
// solve and the arm counts it by name; ipm's not_converged is counted with one iteration allowed
Test(bench, solver_chosen_by_name_has_its_instance, .init = setup, .fini = teardown) {
  char* saved = prependPluginPath(MODUCO_INSTANCE_FIXTURE_DIR);
  char model[300];
  snprintf(model, sizeof(model), "%s/torsion.xml", g_dir);
  FILE* f = fopen(model, "w");
  cr_assert_not_null(f);
  fputs("<mujoco><option iterations='1'/><worldbody><geom type='plane' size='1 1 .1' condim='6'/>"
        "<body pos='0 0 .099'>"
        "<freejoint/><geom type='sphere' size='.1' condim='6'/></body></worldbody></mujoco>", f);
  fclose(f);
  char args[600];
  snprintf(args, sizeof(args), "%s --solver newton,test.scaled,test.tallied,ipm --steps 10 "
           "--repeat 1 --accuracy 0", model);
  char* out;
  int rc;
  cJSON* root = runJson(args, &rc, &out);
  restorePluginPath(saved);
  cr_assert_eq(rc, 0, "exit %d\n%s", rc, out);
  const char* names[] = {"newton", "test.scaled", "test.tallied", "ipm"};
  for (int i = 0; i < 4; i++) {
    const cJSON* a = arm(root, i);
    cr_expect_str_eq(cJSON_GetObjectItem(a, "solver")->valuestring, names[i]);
    cr_expect(cJSON_IsNull(cJSON_GetObjectItem(a, "error")), "arm %d: %s", i, out);
  }
  const cJSON* pw = cJSON_GetObjectItem(arm(root, 2), "plugin_warning_counts");
  const cJSON* solved = cJSON_GetObjectItem(pw, "test.tallied: solved");
  cr_expect(cJSON_IsNumber(solved) && solved->valueint >= 10, "one per solve: %s", out);
  pw = cJSON_GetObjectItem(arm(root, 3), "plugin_warning_counts");
  const cJSON* torsion = cJSON_GetObjectItem(pw, "ipm: not_converged");
  cr_expect(cJSON_IsNumber(torsion) && torsion->valueint > 0, "counted: %s", out);
  cr_expect(num(arm(root, 3), "plugin_warnings") >= torsion->valueint);
  cJSON_Delete(root);
  free(out);
}
