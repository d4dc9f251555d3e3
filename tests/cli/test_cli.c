// Tests of the moduco command-line tool: the built binary is run on small models and its output
// checked against the library (sizes) and the dump contract (docs/dump.md).
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>

#include <moduco/moduco.h>

static const char kArm[] =
  "<mujoco model=\"arm\">\n"
  "  <default><geom contype=\"0\" conaffinity=\"0\"/></default>\n"
  "  <worldbody>\n"
  "    <body name=\"base\" pos=\"0 0 1\">\n"
  "      <joint name=\"j1\" type=\"hinge\" axis=\"0 1 0\" damping=\"0.1\"/>\n"
  "      <geom type=\"capsule\" fromto=\"0 0 0 0.3 0 0\" size=\"0.04\"/>\n"
  "      <body name=\"tip\" pos=\"0.3 0 0\">\n"
  "        <joint name=\"j2\" type=\"ball\"/>\n"
  "        <geom type=\"box\" size=\"0.1 0.02 0.02\" pos=\"0.1 0 0\"/>\n"
  "      </body>\n"
  "    </body>\n"
  "    <body name=\"free\" pos=\"1 0 1\">\n"
  "      <joint type=\"free\"/>\n"
  "      <geom type=\"sphere\" size=\"0.1\"/>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "  <actuator>\n"
  "    <motor joint=\"j1\" gear=\"2\"/>\n"
  "    <general joint=\"j1\" dyntype=\"integrator\" gainprm=\"1\"/>\n"
  "  </actuator>\n"
  "  <keyframe>\n"
  "    <key name=\"bent\" qpos=\"0.5  1 0 0 0  1 0 1.5  1 0 0 0\"/>\n"
  "  </keyframe>\n"
  "</mujoco>\n";

// a scratch folder per test
static char g_dir[256];


// make the scratch folder
static void setup(void) {
  snprintf(g_dir, sizeof(g_dir), "/tmp/moduco-cli-XXXXXX");
  cr_assert_not_null(mkdtemp(g_dir));
}


// remove the scratch folder
static void teardown(void) {
  char cmd[512];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
  if (system(cmd)) {
    fprintf(stderr, "could not remove %s\n", g_dir);
  }
}


// write text to a file in the scratch folder; return its path (static buffer per slot)
static const char* writeFile(int slot, const char* name, const char* text) {
  static char paths[4][512];
  snprintf(paths[slot], sizeof(paths[slot]), "%s/%s", g_dir, name);
  FILE* f = fopen(paths[slot], "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
  return paths[slot];
}


// read a whole file (caller frees)
static char* readAll(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    return calloc(1, 1);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* buf = calloc((size_t)n + 1, 1);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
    buf[0] = 0;
  }
  fclose(f);
  return buf;
}


// result of one run of the tool
typedef struct {
  int status;
  char* out;
  char* err;
} Run;


// run the tool with environment assignments env (may be "") and arguments (already quoted as
// needed), stdout to the file out (NULL: captured); capture stderr and the exit status
static Run runWith(const char* env, const char* args, const char* out) {
  char cmd[8192], outpath[512];
  snprintf(outpath, sizeof(outpath), "%s/out", g_dir);
  snprintf(cmd, sizeof(cmd), "%s '%s' %s >'%s' 2>'%s/err' </dev/null", env, MODUCO_CLI, args,
           out ? out : outpath, g_dir);
  int rc = system(cmd);
  Run r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 255;
  char path[512];
  snprintf(path, sizeof(path), "%s/out", g_dir);
  r.out = readAll(path);
  snprintf(path, sizeof(path), "%s/err", g_dir);
  r.err = readAll(path);
  return r;
}


// run the tool with arguments; capture stdout, stderr, exit status
static Run run(const char* args) {
  return runWith("", args, NULL);
}


// free a run's captured output
static void freeRun(Run* r) {
  free(r->out);
  free(r->err);
}


// number of lines in a text
static int lineCount(const char* s) {
  int n = 0;
  for (; *s; s++) {
    n += *s == '\n';
  }
  return n;
}


// value of "name value" in the compile output; -1 if absent
static long sizeValue(const char* out, const char* name) {
  size_t len = strlen(name);
  for (const char* line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1
                                                                          : NULL) {
    if (!strncmp(line, name, len) && line[len] == ' ') {
      return strtol(line + len, NULL, 10);
    }
  }
  return -1;
}


// a JSON array of n numbers
static void expectVector(const cJSON* o, const char* key, int n) {
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(o, key);
  cr_assert(cJSON_IsArray(a), "key '%s' missing or not an array", key);
  cr_expect_eq(cJSON_GetArraySize(a), n, "'%s' has %d values, expected %d", key,
               cJSON_GetArraySize(a), n);
  const cJSON* v;
  cJSON_ArrayForEach(v, a) {
    cr_expect(cJSON_IsNumber(v), "'%s' holds a non-number", key);
  }
}


// a JSON array of rows arrays of cols numbers
static void expectMatrix(const cJSON* o, const char* key, int rows, int cols) {
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(o, key);
  cr_assert(cJSON_IsArray(a), "key '%s' missing or not an array", key);
  cr_expect_eq(cJSON_GetArraySize(a), rows, "'%s' has %d rows, expected %d", key,
               cJSON_GetArraySize(a), rows);
  const cJSON* row;
  cJSON_ArrayForEach(row, a) {
    cr_expect(cJSON_IsArray(row) && cJSON_GetArraySize(row) == cols, "'%s' row is not %d long",
              key, cols);
  }
}


// integer member of a JSON object
static int intOf(const cJSON* o, const char* key) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
  cr_assert(cJSON_IsNumber(v), "key '%s' missing or not a number", key);
  return v->valueint;
}


TestSuite(cli, .init = setup, .fini = teardown, .timeout = 60);


Test(cli, compile_prints_sizes) {
  const char* model = writeFile(0, "arm.xml", kArm);
  char args[600];
  snprintf(args, sizeof(args), "compile '%s'", model);
  Run r = run(args);
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);

  // every size agrees with the library
  char error[512];
  mcModel* m = mc_loadXML(model, error, sizeof(error));
  cr_assert_not_null(m, "%s", error);
  const struct {
    const char* name;
    int value;
  } sizes[] = {
    {"nq", m->nq}, {"nv", m->nv}, {"nu", m->nu}, {"na", m->na}, {"nbody", m->nbody},
    {"njnt", m->njnt}, {"ngeom", m->ngeom}, {"nsite", m->nsite}, {"nsensor", m->nsensor},
    {"nsensordata", m->nsensordata}, {"ntendon", m->ntendon}, {"neq", m->neq},
    {"nkey", m->nkey}, {"nM", m->nM},
  };
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    cr_expect_eq(sizeValue(r.out, sizes[i].name), sizes[i].value, "%s: printed %ld, model %d",
                 sizes[i].name, sizeValue(r.out, sizes[i].name), sizes[i].value);
  }
  cr_expect_eq(sizeValue(r.out, "nq"), 1 + 4 + 7);
  cr_expect_eq(sizeValue(r.out, "nv"), 1 + 3 + 6);
  cr_expect(strstr(r.out, "integrator ") != NULL, "no integrator line:\n%s", r.out);
  cr_expect(strstr(r.out, "solver ") != NULL, "no solver line:\n%s", r.out);
  mc_deleteModel(m);
  freeRun(&r);
}


Test(cli, dump_has_documented_keys) {
  const char* model = writeFile(0, "arm.xml", kArm);
  char args[600];
  snprintf(args, sizeof(args), "dump '%s' --steps 3", model);
  Run r = run(args);
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cJSON* o = cJSON_Parse(r.out);
  cr_assert(cJSON_IsObject(o), "stdout is not a JSON object:\n%.400s", r.out);

  // sizes
  const cJSON* sizes = cJSON_GetObjectItemCaseSensitive(o, "model");
  cr_assert(cJSON_IsObject(sizes), "no 'model' object");
  int nq = intOf(sizes, "nq"), nv = intOf(sizes, "nv"), nu = intOf(sizes, "nu");
  int na = intOf(sizes, "na"), nbody = intOf(sizes, "nbody");
  int nsensordata = intOf(sizes, "nsensordata");
  intOf(sizes, "ngeom");
  cr_expect_eq(nq, 12);
  cr_expect_eq(nv, 10);
  cr_expect_eq(nu, 2);
  cr_expect_eq(na, 1);
  cr_expect_eq(nbody, 4);

  // arrays and their lengths
  cr_expect(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "time")), "no 'time'");
  expectVector(o, "qpos", nq);
  expectVector(o, "qvel", nv);
  expectVector(o, "act", na);
  expectVector(o, "qacc", nv);
  expectVector(o, "qfrc_bias", nv);
  expectVector(o, "qfrc_passive", nv);
  expectVector(o, "qfrc_actuator", nv);
  expectVector(o, "qfrc_constraint", nv);
  expectMatrix(o, "qM", nv, nv);
  expectMatrix(o, "xpos", nbody, 3);
  expectMatrix(o, "xquat", nbody, 4);
  int ncon = intOf(o, "ncon");
  const cJSON* contact = cJSON_GetObjectItemCaseSensitive(o, "contact");
  cr_expect(cJSON_IsArray(contact) && cJSON_GetArraySize(contact) == ncon, "contact list");
  expectVector(o, "efc_force", intOf(o, "nefc"));
  expectVector(o, "actuator_force", nu);
  expectVector(o, "sensordata", nsensordata);
  expectVector(o, "energy", 2);

  // three steps of the default timestep
  double t = cJSON_GetObjectItemCaseSensitive(o, "time")->valuedouble;
  cr_expect(t > 0.0059 && t < 0.0061, "time %g after 3 steps", t);

  // the world body sits at the origin with the identity orientation
  const cJSON* q0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "xquat"), 0);
  cr_expect_eq(cJSON_GetArrayItem(q0, 0)->valuedouble, 1.0);
  cJSON_Delete(o);
  freeRun(&r);
}


Test(cli, dump_state_overrides) {
  const char* model = writeFile(0, "arm.xml", kArm);
  const char* state = writeFile(1, "state.json",
      "{\"time\": 2.5,\n"
      " \"qpos\": [0.25, 0.5, 0.5, 0.5, 0.5, 1, 2, 3, 1, 0, 0, 0],\n"
      " \"qvel\": [0.125, 0, 0, 0, 0, 0, 0, 0, 0, 0.75],\n"
      " \"ctrl\": [0.3, -0.2], \"act\": [0.0625],\n"
      " \"qfrc_applied\": [1, 0, 0, 0, 0, 0, 0, 0, 0, 0]}\n");
  char args[1200];
  snprintf(args, sizeof(args), "dump '%s' --state '%s'", model, state);
  Run r = run(args);
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cJSON* o = cJSON_Parse(r.out);
  cr_assert(cJSON_IsObject(o), "stdout is not JSON");

  // the state comes back unchanged (no steps)
  cr_expect_eq(cJSON_GetObjectItemCaseSensitive(o, "time")->valuedouble, 2.5);
  const cJSON* qpos = cJSON_GetObjectItemCaseSensitive(o, "qpos");
  cr_expect_eq(cJSON_GetArrayItem(qpos, 0)->valuedouble, 0.25);
  cr_expect_eq(cJSON_GetArrayItem(qpos, 7)->valuedouble, 3.0);
  const cJSON* qvel = cJSON_GetObjectItemCaseSensitive(o, "qvel");
  cr_expect_eq(cJSON_GetArrayItem(qvel, 0)->valuedouble, 0.125);
  cr_expect_eq(cJSON_GetArrayItem(qvel, 9)->valuedouble, 0.75);
  cr_expect_eq(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "act"), 0)->valuedouble,
               0.0625);

  // the free body's position follows qpos
  const cJSON* xpos3 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "xpos"), 3);
  cr_expect_eq(cJSON_GetArrayItem(xpos3, 2)->valuedouble, 3.0);

  // the motor force is the held control times the gear (ctrl 0.3, gear 2 on actuator 0)
  const cJSON* force = cJSON_GetObjectItemCaseSensitive(o, "actuator_force");
  double f0 = cJSON_GetArrayItem(force, 0)->valuedouble;
  cr_expect(f0 > 0.2999999 && f0 < 0.3000001, "actuator_force[0] = %g", f0);
  cJSON_Delete(o);
  freeRun(&r);

  // a wrong length is an error naming the field
  state = writeFile(1, "bad.json", "{\"qpos\": [1, 2, 3]}");
  snprintf(args, sizeof(args), "dump '%s' --state '%s'", model, state);
  r = run(args);
  cr_expect_neq(r.status, 0);
  cr_expect_eq(lineCount(r.err), 1, "stderr:\n%s", r.err);
  cr_expect(strstr(r.err, "qpos") != NULL, "stderr: %s", r.err);
  cr_expect_eq(r.out[0], 0, "stdout not empty on error");
  freeRun(&r);
}


Test(cli, dump_keyframe) {
  const char* model = writeFile(0, "arm.xml", kArm);
  char args[600];
  snprintf(args, sizeof(args), "dump '%s' --key bent", model);
  Run r = run(args);
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cJSON* o = cJSON_Parse(r.out);
  cr_assert(cJSON_IsObject(o));
  const cJSON* qpos = cJSON_GetObjectItemCaseSensitive(o, "qpos");
  cr_expect_eq(cJSON_GetArrayItem(qpos, 0)->valuedouble, 0.5);
  cr_expect_eq(cJSON_GetArrayItem(qpos, 7)->valuedouble, 1.5);
  cJSON_Delete(o);
  freeRun(&r);

  // a missing keyframe is an error
  snprintf(args, sizeof(args), "dump '%s' --key 7", model);
  r = run(args);
  cr_expect_neq(r.status, 0);
  cr_expect_eq(lineCount(r.err), 1, "stderr:\n%s", r.err);
  freeRun(&r);
}


// --distance G1,G2[,DISTMAX]: mc_geomDistance in the dump; bad geoms are a usage error
Test(cli, dump_distance) {
  const char* model = writeFile(0, "pair.xml",
      "<mujoco><worldbody><geom name='a' type='sphere' size='0.1'/><body pos='1 0.2 0'>"
      "<freejoint/><geom name='b' type='box' size='0.1 0.2 0.3'/></body></worldbody></mujoco>");
  char args[600];
  snprintf(args, sizeof(args), "dump '%s' --distance a,1", model);
  Run r = run(args);
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cJSON* o = cJSON_Parse(r.out);
  const cJSON* dist = cJSON_GetObjectItemCaseSensitive(o, "distance");
  cr_assert(cJSON_IsObject(dist), "no distance object");
  cr_expect(fabs(cJSON_GetObjectItemCaseSensitive(dist, "dist")->valuedouble - 0.8) < 1e-12);
  const cJSON* ft = cJSON_GetObjectItemCaseSensitive(dist, "fromto");
  cr_expect(fabs(cJSON_GetArrayItem(ft, 0)->valuedouble - 0.1) < 1e-12 &&
            fabs(cJSON_GetArrayItem(ft, 3)->valuedouble - 0.9) < 1e-12);
  cJSON_Delete(o);
  freeRun(&r);

  // capped at DISTMAX
  snprintf(args, sizeof(args), "dump '%s' --distance a,b,0.5", model);
  r = run(args);
  o = cJSON_Parse(r.out);
  dist = cJSON_GetObjectItemCaseSensitive(o, "distance");
  cr_expect(cJSON_IsObject(dist) &&
            cJSON_GetObjectItemCaseSensitive(dist, "dist")->valuedouble == 0.5);
  cJSON_Delete(o);
  freeRun(&r);

  // an unknown geom, a bad cap: usage errors (status 2) on one line
  static const char* const bad[3] = {"a,zz", "a", "a,b,-1"};
  for (int k = 0; k < 3; k++) {
    snprintf(args, sizeof(args), "dump '%s' --distance %s", model, bad[k]);
    r = run(args);
    cr_expect_eq(r.status, 2, "--distance %s: exit %d", bad[k], r.status);
    cr_expect_eq(lineCount(r.err), 1, "stderr:\n%s", r.err);
    freeRun(&r);
  }
}

// --derivatives: A, B, C, D of mcd_transitionFD at the dumped state, which it leaves unchanged
Test(cli, dump_derivatives) {
  const char* model = writeFile(0, "hinge.xml",
      "<mujoco><option timestep='0.01'/><worldbody><body pos='0 0 1'>"
      "<joint name='j' type='hinge' axis='0 1 0'/>"
      "<geom type='capsule' fromto='0 0 0 0.5 0 0' size='0.05'/></body></worldbody>"
      "<actuator><motor joint='j'/></actuator><sensor><jointpos joint='j'/></sensor></mujoco>");
  char args[600];
  snprintf(args, sizeof(args), "dump '%s' --steps 3 --derivatives", model);
  Run r = run(args);
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cJSON* o = cJSON_Parse(r.out);
  const cJSON* dv = cJSON_GetObjectItemCaseSensitive(o, "derivatives");
  cr_assert(cJSON_IsObject(dv), "no derivatives object");
  const cJSON* A = cJSON_GetObjectItemCaseSensitive(dv, "A");
  const cJSON* B = cJSON_GetObjectItemCaseSensitive(dv, "B");
  const cJSON* C = cJSON_GetObjectItemCaseSensitive(dv, "C");
  const cJSON* D = cJSON_GetObjectItemCaseSensitive(dv, "D");
  cr_assert(cJSON_GetArraySize(A) == 2 && cJSON_GetArraySize(cJSON_GetArrayItem(A, 0)) == 2);
  cr_assert(cJSON_GetArraySize(B) == 2 && cJSON_GetArraySize(cJSON_GetArrayItem(B, 0)) == 1);
  cr_assert(cJSON_GetArraySize(C) == 1 && cJSON_GetArraySize(cJSON_GetArrayItem(C, 0)) == 2);
#define AT(M, i, j) cJSON_GetArrayItem(cJSON_GetArrayItem(M, i), j)->valuedouble
  // semi-implicit Euler: qpos' = qpos + h qvel', so d qpos'/d qvel = h and d qpos'/d u =
  // h d qvel'/d u; the position sensor is read before the step: C = (1, 0), D = 0
  cr_expect(fabs(AT(A, 0, 1) - 0.01) < 1e-9, "A01 %g", AT(A, 0, 1));
  cr_expect(AT(B, 1, 0) > 0 && fabs(AT(B, 0, 0) - 0.01 * AT(B, 1, 0)) < 1e-12);
  cr_expect(fabs(AT(C, 0, 0) - 1) < 1e-9 && fabs(AT(C, 0, 1)) < 1e-9 && AT(D, 0, 0) == 0);
#undef AT
  double q = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "qpos"), 0)->valuedouble;
  cJSON_Delete(o);
  freeRun(&r);

  // the dumped state is the one without --derivatives
  snprintf(args, sizeof(args), "dump '%s' --steps 3", model);
  r = run(args);
  o = cJSON_Parse(r.out);
  cr_expect_eq(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "qpos"), 0)->valuedouble,
               q);
  cJSON_Delete(o);
  freeRun(&r);
}

// --implicit KAPPA: A and B by mcd_transitionImplicit; refused for a solver without a derivative
Test(cli, dump_derivatives_implicit) {
  const char* model = writeFile(0, "ipmbox.xml",
      "<mujoco><option timestep='0.01' solver='ipm'/><worldbody>"
      "<geom type='plane' size='5 5 0.1' margin='0.01'/><body pos='0 0 0.1'>"
      "<joint name='x' type='slide' axis='1 0 0'/><joint type='slide' axis='0 0 1'/>"
      "<geom type='box' size='0.1 0.1 0.1' mass='1' margin='0.01'/></body></worldbody>"
      "<actuator><motor joint='x'/></actuator></mujoco>");
  char args[600];
  snprintf(args, sizeof(args), "dump '%s' --steps 20 --implicit 1e-4", model);
  Run r = run(args);
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cJSON* o = cJSON_Parse(r.out);
  const cJSON* B = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(o, "derivatives"), "B");
  cr_assert(cJSON_GetArraySize(B) == 4);
  // at rest under static friction the smoothed d vx' / d u is positive and below the free h/m
  double g = cJSON_GetArrayItem(cJSON_GetArrayItem(B, 2), 0)->valuedouble;
  cr_expect(g > 1e-7 && g < 0.01, "d vx'/d u = %g", g);
  cJSON_Delete(o);
  freeRun(&r);
  snprintf(args, sizeof(args), "dump '%s' --implicit -1", model);
  r = run(args);
  cr_expect_eq(r.status, 2, "a negative kappa is a usage error (exit %d)", r.status);
  freeRun(&r);
}

Test(cli, bad_model_names_file_and_line) {
  const char* model = writeFile(0, "broken.xml",
      "<mujoco>\n  <worldbody>\n    <body>\n      <geom size=\"0.1\"/>\n  </worldbody>\n"
      "</mujoco>\n");
  char args[600];
  snprintf(args, sizeof(args), "run '%s' --steps 1", model);
  Run r = run(args);
  cr_expect_neq(r.status, 0);
  cr_expect_eq(lineCount(r.err), 1, "stderr is not one line:\n%s", r.err);

  // "broken.xml:<line>:"
  const char* at = strstr(r.err, "broken.xml:");
  cr_expect(at && isdigit((unsigned char)at[strlen("broken.xml:")]), "no file:line in: %s",
            r.err);
  freeRun(&r);

  // the same for a file that does not exist, and for compile and dump
  snprintf(args, sizeof(args), "compile '%s/missing.xml'", g_dir);
  r = run(args);
  cr_expect_neq(r.status, 0);
  cr_expect_eq(lineCount(r.err), 1, "stderr:\n%s", r.err);
  cr_expect(strstr(r.err, "missing.xml") != NULL, "stderr: %s", r.err);
  freeRun(&r);
  snprintf(args, sizeof(args), "dump '%s'", model);
  r = run(args);
  cr_expect_neq(r.status, 0);
  cr_expect_eq(lineCount(r.err), 1, "stderr:\n%s", r.err);
  freeRun(&r);
}


Test(cli, unknown_integrator_lists_available) {
  const char* model = writeFile(0, "arm.xml", kArm);
  char args[600];
  snprintf(args, sizeof(args), "run '%s' --steps 1 --integrator bogus", model);
  Run r = run(args);
  cr_expect_neq(r.status, 0);
  cr_expect_eq(lineCount(r.err), 1, "stderr:\n%s", r.err);
  cr_expect(strstr(r.err, "bogus") != NULL, "stderr: %s", r.err);
  cr_expect(strstr(r.err, "available") != NULL, "stderr: %s", r.err);
  cr_expect(strcasestr(r.err, "euler") != NULL, "euler not listed: %s", r.err);
  cr_expect(strcasestr(r.err, "rk4") != NULL, "rk4 not listed: %s", r.err);
  freeRun(&r);
}


Test(cli, run_prints_summary) {
  const char* model = writeFile(0, "arm.xml", kArm);
  char args[600];
  snprintf(args, sizeof(args), "run '%s' --steps 50", model);
  Run r = run(args);
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cr_expect_eq(sizeValue(r.out, "steps"), 50, "summary:\n%s", r.out);
  const char* keys[] = {"sim time", "wall time", "steps/s", "realtime factor", "energy",
                        "warnings"};
  for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
    cr_expect(strstr(r.out, keys[i]) != NULL, "no '%s' in summary:\n%s", keys[i], r.out);
  }
  freeRun(&r);

  // switching to RK4 by name (any case) works
  snprintf(args, sizeof(args), "run '%s' --duration 0.01 --integrator rk4", model);
  r = run(args);
  cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cr_expect_eq(sizeValue(r.out, "steps"), 5, "summary:\n%s", r.out);
  freeRun(&r);
}


// --profile on a pool of two threads adds the pool's jobs per step (the core's task functions),
// the caller's serial part and the other threads' idle share; without a pool (or on one thread)
// there is no such section
Test(cli, run_profile_pool_jobs) {
  const char* model = "/usr/share/mujoco/model/humanoid/22_humanoids.xml";
  char args[600];
  snprintf(args, sizeof(args), "run '%s' --steps 60 --island on --threads 2 --profile", model);
  Run r = run(args);
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  const char* keys[] = {"pool jobs        2 threads", "positionTask", "besideTask", "chunkTask",
                        "serial (caller alone)", "the other threads idle"};
  for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
    cr_expect(strstr(r.out, keys[i]) != NULL, "no '%s' in:\n%s", keys[i], r.out);
  }
  const char* row = strstr(r.out, "positionTask");
  double perstep = -1, caller = -1;
  cr_assert(row && sscanf(row, "positionTask %lf %lf", &perstep, &caller) == 2, "%s", r.out);
  cr_expect(perstep == 1.0 && caller > 0, "positionTask: %g jobs a step, %g us", perstep, caller);
  freeRun(&r);

  const char* flags[] = {"--threads 1 --profile", "--profile"};
  for (int k = 0; k < 2; k++) {
    snprintf(args, sizeof(args), "run '%s' --steps 5 --island on %s", model, flags[k]);
    r = run(args);
    cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.out, "profile (microseconds") && !strstr(r.out, "pool jobs"), "%s: %s",
              flags[k], r.out);
    freeRun(&r);
  }
}


// --multiccd on|off overrides the model's flag: a cylinder standing on a box (through GJK/EPA)
// gets one contact without multiccd and a ring with it, so the recorded motion differs; on equals
// the default (multiccd on with nativeccd), and a value other than on/off is a one-line error
static const char kStanding[] =
    "<mujoco><option timestep='0.002'/><worldbody>"
    "<geom type='box' size='1 1 0.1'/>"
    "<body pos='0.02 0 0.19' euler='0 3 0'><freejoint/>"
    "<geom type='cylinder' size='0.1 0.1'/></body></worldbody></mujoco>";

// record 100 steps of model with extra run flags into the file g_dir/name; return its path
static const char* recordRun(const char* model, const char* flags, const char* name) {
  static char recs[3][600];
  static int next = 0;
  char* rec = recs[next++ % 3];
  char args[1400];
  snprintf(rec, sizeof(recs[0]), "%s/%s", g_dir, name);
  snprintf(args, sizeof(args), "run '%s' --steps 100 %s --record '%s'", model, flags, rec);
  Run r = run(args);
  cr_assert_eq(r.status, 0, "%s: exit %d: %s", flags, r.status, r.err);
  freeRun(&r);
  return rec;
}


// whether two files have the same bytes (the recordings are binary)
static int sameFile(const char* a, const char* b) {
  char cmd[1400];
  snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
  return system(cmd) == 0;
}


Test(cli, run_multiccd_switch) {
  const char* model = writeFile(0, "standing.xml", kStanding);
  const char* byDefault = recordRun(model, "", "rec_default");
  const char* on = recordRun(model, "--multiccd on", "rec_on");
  const char* off = recordRun(model, "--multiccd off", "rec_off");
  cr_expect(sameFile(byDefault, on), "--multiccd on differs from the default");
  cr_expect(!sameFile(on, off), "--multiccd off records the same motion as on");
  char args[600];
  snprintf(args, sizeof(args), "run '%s' --steps 5 --multiccd maybe", model);
  Run r = run(args);
  cr_expect_neq(r.status, 0);
  cr_expect_eq(lineCount(r.err), 1, "stderr:\n%s", r.err);
  cr_expect(strstr(r.err, "--multiccd") != NULL, "stderr:\n%s", r.err);
  freeRun(&r);
}


// plugin-defined warnings are counted in the summary with the built-in ones, by name
Test(cli, run_prints_plugin_warnings) {
  const char* model = writeFile(0, "plugwarn.xml",
      "<mujoco><worldbody><body><joint name='j' type='slide'/><geom size='.1'/></body>"
      "</worldbody><actuator><counter joint='j' steps='1' enabled='false'/></actuator>"
      "</mujoco>");
  const char* old = getenv("MODUCO_PLUGIN_PATH");
  char path[4096];
  snprintf(path, sizeof(path), "%s:%s", MODUCO_INSTANCE_FIXTURE_DIR, old ? old : "");
  setenv("MODUCO_PLUGIN_PATH", path, 1);
  char args[1024];
  snprintf(args, sizeof(args), "run '%s' --steps 10", model);
  Run r = run(args);
  cr_expect_eq(r.status, 0, "stderr: %s", r.err);
  const char* w = strstr(r.out, "warnings ");
  cr_expect(w && atoi(w + 9) >= 10, "one per force call at least: %s", r.out);
  const char* line = strstr(r.out, "test.counter: unused (info 0)");
  cr_expect(line, "summary: %s", r.out);
  cr_expect(w && line && atoi(w + 9) == atoi(strstr(w, "\n") + 1), "the total is the plugin's: %s",
            r.out);
  freeRun(&r);
}


// a solver chosen by --solver gets its model instance: its warnings are counted by name (the
// fixture's test.tallied raises one per solve; ipm's not_converged with one iteration allowed)
Test(cli, run_solver_switch_counts_its_warnings) {
  const char* slide = writeFile(0, "slide.xml",
      "<mujoco><worldbody><body><joint type='slide' axis='0 0 1' frictionloss='0.1'/>"
      "<geom size='.1'/></body></worldbody></mujoco>");
  const char* torsion = writeFile(1, "torsion.xml",
      "<mujoco><option iterations='1'/><worldbody><geom type='plane' size='1 1 .1' condim='6'/>"
      "<body pos='0 0 .099'>"
      "<freejoint/><geom type='sphere' size='.1' condim='6'/></body></worldbody></mujoco>");
  const char* old = getenv("MODUCO_PLUGIN_PATH");
  char path[4096];
  snprintf(path, sizeof(path), "%s:%s", MODUCO_INSTANCE_FIXTURE_DIR, old ? old : "");
  setenv("MODUCO_PLUGIN_PATH", path, 1);
  char args[1024];
  snprintf(args, sizeof(args), "run '%s' --steps 10 --solver test.tallied", slide);
  Run r = run(args);
  cr_expect_eq(r.status, 0, "stderr: %s", r.err);
  const char* line = strstr(r.out, "test.tallied: solved (info 1)");
  cr_expect(line && atoi(line - 16) >= 10, "one per solve at least: %s", r.out);
  freeRun(&r);

  snprintf(args, sizeof(args), "run '%s' --steps 10 --solver ipm", torsion);
  r = run(args);
  cr_expect_eq(r.status, 0, "stderr: %s", r.err);
  line = strstr(r.out, "ipm: not_converged");
  cr_expect(line && atoi(line - 16) > 0, "summary: %s", r.out);
  freeRun(&r);
}


Test(cli, plugins_lists_builtins) {
  Run r = run("plugins");
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cr_expect(strcasestr(r.out, "euler") != NULL, "euler missing:\n%s", r.out);
  cr_expect(strcasestr(r.out, "rk4") != NULL, "rk4 missing:\n%s", r.out);
  cr_expect(strstr(r.out, "integrator") != NULL, "kind missing:\n%s", r.out);
  freeRun(&r);
}


Test(cli, bad_usage) {
  Run r = run("frobnicate");
  cr_expect_neq(r.status, 0);
  cr_expect_eq(lineCount(r.err), 1, "stderr:\n%s", r.err);
  freeRun(&r);
  r = run("run");
  cr_expect_neq(r.status, 0);
  freeRun(&r);
  r = run("run x.xml --steps -3");
  cr_expect_neq(r.status, 0);
  cr_expect_eq(lineCount(r.err), 1, "stderr:\n%s", r.err);
  freeRun(&r);
}


//---------------------------------- hardening: output, ranges, state files, non-finite ----------

// a full device: every command's lost output is an error with a non-zero status
Test(cli, output_to_full_device_fails) {
  const char* model = writeFile(0, "arm.xml", kArm);
  const char* fmts[] = {"run '%s' --steps 5", "dump '%s'", "compile '%s'", "plugins", "version",
                        "help"};
  for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
    char args[700];
    snprintf(args, sizeof(args), fmts[i], model);
    Run r = runWith("", args, "/dev/full");
    cr_expect_eq(r.status, 1, "'%s' > /dev/full: exit %d", args, r.status);
    cr_expect(strstr(r.err, "moduco: cannot write standard output: No space left on device"),
              "'%s' > /dev/full: stderr '%s'", args, r.err);
    freeRun(&r);
  }
}


// step counts: a duration is range-checked before conversion; explicit --steps has a ceiling
Test(cli, step_count_limits) {
  const char* model = writeFile(0, "arm.xml", kArm);
  const char* tiny = writeFile(1, "tiny.xml",
                               "<mujoco><option timestep=\"1e-12\"/><worldbody><body><freejoint/>"
                               "<geom size=\"0.1\"/></body></worldbody></mujoco>");
  const struct {
    const char* fmt;
    int status;
    const char* err;
  } cases[] = {
    {"run '%s' --duration 1e300", 1, "is 5e+302 steps, more than the 100000000 a duration"},
    {"run '%s' --duration 1e17", 1, "is 5e+19 steps"},
    {"run '%s' --duration 3e5", 1, "pass --steps N"},
    {"run '%s' --steps 1000000000000001", 2, "--steps needs an integer from 0 to"},
    {"run '%s' --steps 99999999999999999999", 2, "--steps needs an integer"},
    {"run '%s' --steps ' 5'", 2, "--steps needs an integer"},
    {"run '%s' --steps +5", 2, "--steps needs an integer"},
    {"dump '%s' --steps 1e3", 2, "--steps needs an integer"},
    {"run '%s' --duration ' 1'", 2, "--duration"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char args[700];
    snprintf(args, sizeof(args), cases[i].fmt, model);
    Run r = run(args);
    cr_expect_eq(r.status, cases[i].status, "'%s': exit %d (%s)", args, r.status, r.err);
    cr_expect(strstr(r.err, cases[i].err), "'%s': stderr '%s'", args, r.err);
    cr_expect_eq(lineCount(r.err), 1, "'%s': stderr '%s'", args, r.err);
    cr_expect(!strstr(r.out, "steps "), "'%s' simulated:\n%s", args, r.out);
    freeRun(&r);
  }

  // timestep 1e-12 with the default 5 s: refused, naming the model; explicit steps run
  char args[700];
  snprintf(args, sizeof(args), "run '%s'", tiny);
  Run r = run(args);
  cr_expect_eq(r.status, 1, "exit %d", r.status);
  cr_expect(strstr(r.err, "tiny.xml: 5 s of model time at timestep 1e-12 is 5e+12 steps"),
            "stderr '%s'", r.err);
  freeRun(&r);
  snprintf(args, sizeof(args), "run '%s' --steps 20", tiny);
  r = run(args);
  cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cr_expect_eq(sizeValue(r.out, "steps"), 20);
  freeRun(&r);
}


// every malformed state file of tests/hardening/inputs/state is refused, naming the file
Test(cli, state_files_strict) {
  const char* model = writeFile(0, "arm.xml", kArm);
  const struct {
    const char* file;
    const char* err;
  } cases[] = {
    {"trailing-garbage.json", ":1: unexpected data at byte 12 after the JSON object"},
    {"trailing-bracket.json", ":2: unexpected data at byte 16 after the JSON object"},
    {"two-objects.json", ":2: unexpected data at byte 12 after the JSON object"},
    {"nul-inside.json", ":1: NUL byte at byte 22"},
    {"nul-after.json", ":2: NUL byte at byte 12"},
    {"duplicate-key.json", ": duplicate key 'time'"},
    {"array.json", ": the state must be a JSON object"},
    {"truncated.json", ":1: invalid JSON at byte"},
    {"empty.json", ":1: invalid JSON at byte 0"},
    {"nan-token.json", ":1: invalid JSON at byte"},
    {"time-overflow.json", ": 'time' must be a finite number"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char path[512], args[1400], want[600];
    snprintf(path, sizeof(path), "%s/tests/hardening/inputs/state/%s", MODUCO_SOURCE_DIR,
             cases[i].file);
    snprintf(args, sizeof(args), "dump '%s' --state '%s'", model, path);
    snprintf(want, sizeof(want), "moduco: %s%s", path, cases[i].err);
    Run r = run(args);
    cr_expect_eq(r.status, 1, "%s: exit %d", cases[i].file, r.status);
    cr_expect(strstr(r.err, want), "%s: stderr '%s', expected '%s'", cases[i].file, r.err, want);
    cr_expect_eq(r.out[0], 0, "%s: printed output", cases[i].file);
    freeRun(&r);
  }

  // not regular files: refused before reading
  const char* special[] = {"/dev/zero", "/tmp"};
  for (size_t i = 0; i < 2; i++) {
    char args[700];
    snprintf(args, sizeof(args), "dump '%s' --state %s", model, special[i]);
    Run r = run(args);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "not a regular file"), "stderr '%s'", r.err);
    freeRun(&r);
  }
}


// a "nan" or "inf" number (any case, any sign) in a text, outside indented lines (the warning
// texts of run's summary, which say "NaN, Inf or huge value")
static int hasNonFiniteToken(const char* s) {
  int indented = *s == ' ';
  for (const char* p = s; *p; p++) {
    if (*p == '\n') {
      indented = p[1] == ' ';
      continue;
    }
    int start = p == s || strchr(" \t[:,(-+", p[-1]);
    if (!indented && start && (!strncasecmp(p, "nan", 3) || !strncasecmp(p, "inf", 3)) &&
        !isalpha((unsigned char)p[3])) {
      return 1;
    }
  }
  return 0;
}


// a diverging model: run and dump never print a non-finite number, and say what happened
Test(cli, nonfinite_never_printed) {
  const char* model = writeFile(0, "huge.xml",
                                "<mujoco><option gravity=\"0 0 -1e300\"/><worldbody><body>"
                                "<freejoint/><geom size=\"0.1\"/></body></worldbody></mujoco>");
  char args[700];
  snprintf(args, sizeof(args), "run '%s' --steps 50", model);
  Run r = run(args);
  cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cr_expect(!hasNonFiniteToken(r.out), "run printed a non-finite number:\n%s", r.out);
  cr_expect(strstr(r.out, "energy           unavailable (not finite"), "summary:\n%s", r.out);
  cr_expect(strstr(r.out, "reset the state"), "summary:\n%s", r.out);
  cr_expect(strstr(r.err, "WARNING: NaN, Inf or huge value"), "stderr:\n%s", r.err);
  freeRun(&r);

  // dump after the steps: nulls, listed in "nonfinite", and a warning line
  snprintf(args, sizeof(args), "dump '%s' --steps 3", model);
  r = run(args);
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cr_expect(!hasNonFiniteToken(r.out), "dump printed a non-finite number");
  cJSON* o = cJSON_Parse(r.out);
  cr_assert_not_null(o, "dump output is not JSON");
  const cJSON* names = cJSON_GetObjectItemCaseSensitive(o, "nonfinite");
  cr_assert(cJSON_IsArray(names));
  cr_expect_gt(cJSON_GetArraySize(names), 0);
  int energy = 0;
  const cJSON* n;
  cJSON_ArrayForEach(n, names) {
    energy += cJSON_IsString(n) && !strcmp(n->valuestring, "energy");
  }
  cr_expect_eq(energy, 1, "'energy' not listed in nonfinite");
  cr_expect(strstr(r.err, "non-finite value"), "stderr:\n%s", r.err);
  cJSON_Delete(o);
  freeRun(&r);

  // a finite model: "nonfinite" is empty and nothing is said
  const char* arm = writeFile(1, "arm.xml", kArm);
  snprintf(args, sizeof(args), "dump '%s' --steps 3", arm);
  r = run(args);
  o = cJSON_Parse(r.out);
  cr_assert_not_null(o);
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "nonfinite")), 0);
  cr_expect_eq(r.err[0], 0, "stderr:\n%s", r.err);
  cJSON_Delete(o);
  freeRun(&r);
}


// hostile plugin libraries on the path: every command survives, 'plugins' says why each was
// skipped, and the impostor "euler" is refused
Test(cli, hostile_plugins_listed_with_reason) {
  char env[1024];
  snprintf(env, sizeof(env), "MODUCO_PLUGIN_PATH='%s:%s' MODUCO_PLUGIN_CACHE=off "
           "MODUCO_PLUGIN_PROBE_TIMEOUT=1", MODUCO_HOSTILE_DIR, MODUCO_BUILD_PLUGIN_DIR);
  Run r = runWith(env, "plugins", NULL);
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  const char* msgs = strstr(r.out, "loader messages:");
  cr_assert_not_null(msgs, "no loader messages:\n%s", r.out);
  const char* files[] = {"hostile-crash-entry.so: crashed", "hostile-crash-ctor.so: crashed",
                         "hostile-abort-entry.so: crashed", "hostile-exit-entry.so: ended",
                         "hostile-exit-ctor.so: ended", "hostile-hang-entry.so: did not finish",
                         "hostile-hang-ctor.so: did not finish",
                         "hostile-reserved.so: plugin 'euler': the name is reserved"};
  for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    cr_expect(strstr(msgs, files[i]), "'%s' missing:\n%s", files[i], msgs);
  }
  cr_expect(strstr(r.out, "hostile.step"), "the good library is missing:\n%s", r.out);
  cr_expect(!strstr(r.out, "impostor") && !strstr(r.out, "9.9 "), "impostor listed:\n%s", r.out);
  freeRun(&r);

  // a model run with the same path: exits 0 with its summary
  const char* model = writeFile(0, "arm.xml", kArm);
  char args[700];
  snprintf(args, sizeof(args), "run '%s' --steps 5", model);
  r = runWith(env, args, NULL);
  cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cr_expect_eq(sizeValue(r.out, "steps"), 5, "summary:\n%s", r.out);
  freeRun(&r);
}


// a hinge spring too stiff for a 10 ms explicit step: it blows up and auto-resets
static const char kStiff[] =
  "<mujoco model=\"stiff\">\n"
  "  <option timestep=\"0.01\" gravity=\"0 0 0\"/>\n"
  "  <worldbody>\n"
  "    <body pos=\"0 0 1\">\n"
  "      <joint type=\"hinge\" axis=\"0 1 0\" stiffness=\"10000\" springref=\"0.1\"/>\n"
  "      <geom type=\"capsule\" fromto=\"0 0 0 0.1 0 0\" size=\"0.01\" mass=\"0.1\"/>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "</mujoco>\n";


Test(cli, bench_exit_status) {
  const char* arm = writeFile(0, "arm.xml", kArm);
  const char* stiff = writeFile(1, "stiff.xml", kStiff);
  char args[1200];

  // every arm ran, none diverged: 0
  snprintf(args, sizeof(args), "bench '%s' --steps 20 --repeat 1", arm);
  Run r = run(args);
  cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.out, " ok") != NULL, "status column:\n%s", r.out);
  freeRun(&r);

  // a diverged arm: 3, named on stderr and marked in the table
  snprintf(args, sizeof(args), "bench '%s' '%s' --steps 100 --repeat 1", arm, stiff);
  r = run(args);
  cr_expect_eq(r.status, 3, "exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, "moduco: arm 1 (") && strstr(r.err, "diverged"), "stderr: %s", r.err);
  cr_expect(strstr(r.out, "DIVERGED") != NULL, "table:\n%s", r.out);
  freeRun(&r);

  // allowed: 0, still marked
  snprintf(args, sizeof(args), "bench '%s' --steps 100 --repeat 1 --allow-divergence", stiff);
  r = run(args);
  cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.out, "DIVERGED") != NULL, "table:\n%s", r.out);
  freeRun(&r);

  // the usage names the new options
  r = run("help");
  cr_expect(strstr(r.out, "--allow-divergence") || strstr(r.err, "--allow-divergence"),
            "usage: %s%s", r.out, r.err);
  freeRun(&r);
}


// an unallocatable data block (huge <size> counts): every stderr line carries the "moduco: "
// prefix (the library's own message too) and the error names the attributes as written
Test(cli, data_allocation_failure_prefixed_and_named) {
  const char* model = writeFile(0, "hugesize.xml",
                                "<mujoco>\n<size nconmax=\"268435456\" njmax=\"268435456\"/>\n"
                                "<worldbody><body><freejoint/><geom size=\"0.1\"/></body>"
                                "</worldbody></mujoco>");
  char args[700];
  snprintf(args, sizeof(args), "compile '%s'", model);
  Run r = runWith("ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1", args, NULL);
  cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, "hugesize.xml:2: cannot allocate the data sized by <size "
                          "nconmax='268435456' njmax='268435456'>"), "stderr:\n%s", r.err);
  int lines = 0;
  for (const char* line = r.err; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
    cr_expect(!strncmp(line, "moduco: ", 8), "line without the prefix in:\n%s", r.err);
    lines++;
  }
  cr_expect_geq(lines, 1);
  freeRun(&r);
}
