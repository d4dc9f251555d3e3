// Plugin instances (ABI 1.3) against the fixture library fixtures/instances.c: configuration
// (forms, defaults, errors with file:line), per-instance state and data through reset, get/set
// state, copy, keyframes and rollouts, the lifecycle per instance, plugin warnings, plugin
// elements in <default>, the sensor compile convention and the single file:line prefix.
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <moduco/mcplugin.h>
#include <moduco/moduco.h>

#include "plugin/registry.h"

static char g_messages[8192];


static void capture(void* user, const char* message) {
  (void)user;
  size_t n = strlen(g_messages);
  snprintf(g_messages + n, sizeof(g_messages) - n, "%s\n", message);
}


static void setup(void) {
  setenv("MODUCO_PLUGIN_PATH", MODUCO_INSTANCE_FIXTURE_DIR ":" MODUCO_BUILD_PLUGIN_DIR, 1);
  mc_setMessageHandler(capture, NULL);
  cr_assert_gt(mc_pluginScan(), 0);
  cr_assert_not_null(mcp_find(mcpKIND_ACTUATOR, "test.counter"), "fixture not loaded: %s",
                     mc_pluginMessages());
}


TestSuite(instances, .init = setup);


// the fixture's counters (the library is already loaded by the scan)
static int* counts(void) {
  void* h = dlopen(MODUCO_INSTANCE_FIXTURE_DIR "/fix-instances.so", RTLD_NOW | RTLD_NOLOAD);
  cr_assert_not_null(h, "fixture library not loaded");
  int* c = (int*)dlsym(h, "fixture_counts");
  cr_assert_not_null(c);
  dlclose(h);
  return c;
}


static double solverScale(void) {
  void* h = dlopen(MODUCO_INSTANCE_FIXTURE_DIR "/fix-instances.so", RTLD_NOW | RTLD_NOLOAD);
  cr_assert_not_null(h);
  double* v = (double*)dlsym(h, "fixture_solver_scale");
  dlclose(h);
  return *v;
}


// write xml to a temporary file and load it; on failure return NULL with the message in error
static char g_file[PATH_MAX];

static mcModel* loadText(const char* xml, char* error, int error_sz) {
  snprintf(g_file, sizeof(g_file), "/tmp/moduco_instances_XXXXXX.xml");
  int fd = mkstemps(g_file, 4);
  cr_assert_geq(fd, 0);
  FILE* f = fdopen(fd, "w");
  fputs(xml, f);
  fclose(f);
  mcModel* m = mc_loadXML(g_file, error, error_sz);
  unlink(g_file);
  return m;
}


static mcModel* load(const char* xml) {
  char error[1024] = "";
  mcModel* m = loadText(xml, error, sizeof(error));
  cr_assert_not_null(m, "load failed: %s", error);
  return m;
}


// the load must fail with a message holding "file:line:" and every string of want
static void expectError(const char* xml, int line, const char* want1, const char* want2) {
  char error[1024] = "";
  mcModel* m = loadText(xml, error, sizeof(error));
  cr_assert_null(m, "model should be refused (%s, %s)", want1, want2 ? want2 : "");
  char where[PATH_MAX + 32];
  snprintf(where, sizeof(where), "%s:%d:", g_file, line);
  cr_expect(strstr(error, where) == error, "expected '%s' first in '%s'", where, error);
  cr_expect(strstr(error, want1), "expected '%s' in '%s'", want1, error);
  cr_expect(!want2 || strstr(error, want2), "expected '%s' in '%s'", want2, error);
}


#define HEAD "<mujoco>\n<worldbody><body><joint name='j' type='slide'/><geom size='.1'/></body>" \
             "</worldbody>\n"

//---------------------------------- configuration errors ------------------------------------------

Test(instances, unknownKeyRefusedWithFileLine) {
  expectError(HEAD "<actuator>\n<counter joint='j' steps='3'>\n"
              "  <config key='bogus' value='1'/>\n</counter></actuator></mujoco>",
              5, "no configuration key 'bogus'", "gain, offsets, mode, enabled, steps");
  expectError(HEAD "<actuator>\n<counter joint='j' steps='3' bogus='1'/></actuator></mujoco>",
              4, "unknown attribute 'bogus'", NULL);
  expectError(HEAD "<extension><plugin plugin='test.counter'>\n<instance name='a'>\n"
              "<config key='nope' value='1'/></instance></plugin></extension></mujoco>",
              5, "no configuration key 'nope'", NULL);
}


Test(instances, badValuesRefused) {
  const char* bad[][2] = {
    {"gain='200'", "out of the range"},
    {"gain='-1'", "out of the range"},
    {"gain='nan'", "not a finite number"},
    {"gain='inf'", "not a finite number"},
    {"gain='1 2'", "expected 1 value, got 2"},
    {"offsets='1'", "expected 2 values, got 1"},
    {"mode='cubic'", "not one of linear|square"},
    {"enabled='maybe'", "not true or false"},
    {"steps='1.5'", "not an integer"},
    {"steps='0'", "out of the range"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    char xml[1024];
    snprintf(xml, sizeof(xml), HEAD "<actuator>\n<counter joint='j' steps='3' %s/>"
             "</actuator></mujoco>", bad[i][0]);
    if (!strncmp(bad[i][0], "steps", 5)) {
      snprintf(xml, sizeof(xml), HEAD "<actuator>\n<counter joint='j' %s/></actuator></mujoco>",
               bad[i][0]);
    }
    expectError(xml, 4, bad[i][1], "test.counter");
  }
}


Test(instances, keyGivenTwiceRefused) {
  expectError(HEAD "<actuator>\n<counter joint='j' steps='3'>\n"
              "  <config key='steps' value='4'/>\n</counter></actuator></mujoco>",
              5, "'steps' is given twice", NULL);
  expectError("<mujoco>\n<default>\n<counter gain='5'>\n<config key='steps' value='1'/>"
              "</counter></default></mujoco>", 4, "as attributes", NULL);
}


Test(instances, requiredKeyMissing) {
  expectError(HEAD "<actuator>\n<counter joint='j'/></actuator></mujoco>", 4,
              "requires configuration key 'steps'", NULL);
}

//---------------------------------- configuration values ------------------------------------------

Test(instances, defaultsAndFormsStored) {
  mcModel* m = load(HEAD "<extension><plugin plugin='test.counter'>\n"
                    "<instance name='spare'><config key='steps' value='9'/>"
                    "<config key='mode' value='square'/></instance></plugin></extension>\n"
                    "<actuator><counter name='a' joint='j' steps='3' offsets='4 5'/>\n"
                    "<counter name='b' joint='j' gain='7'><config key='steps' value='8'/>"
                    "<config key='enabled' value='false'/></counter></actuator></mujoco>");
  const mcpHost* host = mcp_host();
  int a = m->actuator_plugin[0], b = m->actuator_plugin[1];
  cr_assert(a >= 0 && b >= 0 && a != b, "one instance per actuator (%d, %d)", a, b);
  cr_expect_eq(m->plugin_objtype[a], mcOBJ_ACTUATOR);
  cr_expect_eq(m->plugin_objid[b], 1);
  int n = 0;
  cr_expect_eq(host->config(m, a, "gain", &n)[0], 2, "default gain");
  cr_expect_eq(n, 1);
  const mcNum* off = host->config(m, a, "offsets", &n);
  cr_expect(n == 2 && off[0] == 4 && off[1] == 5);
  cr_expect_eq(host->config(m, a, "mode", NULL)[0], 0, "default enum index");
  cr_expect_eq(host->config(m, a, "enabled", NULL)[0], 1, "default bool");
  cr_expect_eq(host->config(m, a, "steps", NULL)[0], 3);
  cr_expect_eq(host->config(m, b, "gain", NULL)[0], 7);
  cr_expect_eq(host->config(m, b, "steps", NULL)[0], 8);
  cr_expect_eq(host->config(m, b, "enabled", NULL)[0], 0);
  cr_expect_null(host->config(m, b, "nope", &n));
  cr_expect_eq(n, 0);
  cr_expect_eq(m->plugin_confignum[a], 6);

  // the <extension> instance: model-wide (not bound to an element), its own values
  int spare = -1;
  for (int i = 0; i < m->nplugin; i++) {
    if (!strcmp(m->plugin[i]->name, "test.counter") && m->plugin_objtype[i] < 0) {
      spare = i;
    }
  }
  cr_assert_geq(spare, 0);
  cr_expect_eq(host->config(m, spare, "steps", NULL)[0], 9);
  cr_expect_eq(host->config(m, spare, "mode", NULL)[0], 1);

  // the disabled actuator gives no force, the other gain * ctrl
  mcData* d = mc_makeData(m);
  d->ctrl[0] = 0.5;
  d->ctrl[1] = 0.5;
  mc_forward(m, d);
  cr_expect_eq(d->actuator_force[0], 1.0);
  cr_expect_eq(d->actuator_force[1], 0.0);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// MuJoCo's form: <plugin plugin="..."> makes an instance, <plugin instance="..."> binds one
Test(instances, pluginElementFormsBindInstances) {
  mcModel* m = load(HEAD "<extension><plugin plugin='test.counter'>\n<instance name='fast'>"
                    "<config key='steps' value='5'/><config key='gain' value='3'/></instance>"
                    "</plugin><plugin plugin='test.tally'><instance name='t2'>"
                    "<config key='scale' value='4'/></instance></plugin></extension>\n"
                    "<actuator><plugin instance='fast' joint='j'/>\n"
                    "<plugin plugin='test.counter' joint='j' steps='6'/></actuator>"
                    "<sensor><plugin instance='t2'/>"
                    "<plugin plugin='test.tally' scale='5'/></sensor>"
                    "</mujoco>");
  const mcpHost* host = mcp_host();
  int a0 = m->actuator_plugin[0], a1 = m->actuator_plugin[1];
  cr_expect_eq(m->plugin_objtype[a0], mcOBJ_ACTUATOR);
  cr_expect_eq(m->plugin_objid[a0], 0, "the <extension> instance is bound to actuator 0");
  cr_expect_eq(host->config(m, a0, "gain", NULL)[0], 3);
  cr_expect_eq(host->config(m, a1, "steps", NULL)[0], 6);
  cr_expect_eq(host->config(m, m->sensor_plugin[0], "scale", NULL)[0], 4);
  cr_expect_eq(host->config(m, m->sensor_plugin[1], "scale", NULL)[0], 5);
  cr_expect_eq(m->plugin_objid[m->sensor_plugin[1]], 1);
  mc_deleteModel(m);

  expectError(HEAD "<actuator>\n<plugin instance='nope' joint='j'/></actuator></mujoco>", 4,
              "unknown plugin instance 'nope'", NULL);
  expectError(HEAD "<extension><plugin plugin='test.counter'><instance name='x'>"
              "<config key='steps' value='1'/></instance></plugin></extension>\n<actuator>"
              "<plugin instance='x' joint='j'/>\n<plugin instance='x' joint='j'/></actuator>"
              "</mujoco>", 5, "already used", NULL);
  expectError(HEAD "<sensor>\n<plugin plugin='test.counter'/></sensor></mujoco>", 4,
              "not a sensor plugin", NULL);
  expectError(HEAD "<extension><plugin plugin='test.counter'><instance name='x'>"
              "<config key='steps' value='1'/></instance></plugin></extension>\n<actuator>"
              "<plugin instance='x' joint='j' gain='3'/></actuator></mujoco>", 4,
              "unknown attribute 'gain'", NULL);
}


Test(instances, integratorAndSolverConfigReachThem) {
  int* c = counts();
  mcModel* m = load("<mujoco>\n<option integrator='test.damped' solver='test.scaled' "
                    "gravity='0 0 -10'/>\n<extension><plugin plugin='test.damped'>"
                    "<config key='damping' value='1'/></plugin>\n<plugin plugin='test.scaled'>"
                    "<config key='scale' value='0.5'/></plugin></extension>\n"
                    "<worldbody><body><joint type='slide' axis='0 0 1' frictionloss='0.1'/>"
                    "<geom size='.1'/></body></worldbody></mujoco>");
  cr_assert_geq(m->plugin_integrator, 0);
  cr_assert_geq(m->plugin_solver, 0);
  cr_expect_eq(m->plugin[m->plugin_integrator], &m->integrator->hdr);
  cr_expect_eq(m->plugin[m->plugin_solver], &m->solver->hdr);
  cr_expect_eq(mcp_host()->instance(m, &m->integrator->hdr), m->plugin_integrator);
  cr_expect_eq(mcp_host()->instance(m, &m->solver->hdr), m->plugin_solver);
  cr_expect_eq(mcp_host()->instance(m, mcp_find(mcpKIND_ACTUATOR, "test.counter")), -1);
  int solver_init = c[6];
  mcData* d = mc_makeData(m);
  cr_expect_eq(c[6], solver_init + 1, "the solver's init runs once per data");
  cr_expect_eq(solverScale(), 0.5, "the solver read its configuration in init");
  mc_step(m, d);
  cr_expect_gt(d->nefc, 0, "the solver must run: a friction row");
  cr_expect_eq(d->qacc[0], -5, "qacc = scale * qacc_smooth");
  cr_expect_eq(d->qvel[0], 0, "damping 1 keeps no velocity");
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(instances, singletonConfigErrors) {
  expectError("<mujoco>\n<extension>\n<plugin plugin='test.damped'>\n"
              "<config key='damping' value='0.5'/></plugin></extension></mujoco>",
              4, "test.damped", "does not use");
  expectError("<mujoco>\n<option integrator='test.damped'/><extension>\n"
              "<plugin plugin='test.damped'>\n<instance name='x'/></plugin></extension></mujoco>",
              4, "used once per model", NULL);
  expectError("<mujoco>\n<option integrator='test.damped'/><extension>\n"
              "<plugin plugin='test.damped'>\n<config key='damping' value='2'/></plugin>"
              "</extension></mujoco>", 4, "out of the range", NULL);
  expectError("<mujoco>\n<extension>\n<plugin plugin='test.counter'>\n"
              "<config key='gain' value='2'/></plugin></extension></mujoco>", 4,
              "belongs in an <instance>", NULL);
}

//---------------------------------- <default> ----------------------------------------------------

Test(instances, pluginElementInDefault) {
  mcModel* m = load("<mujoco>\n<default><counter gain='5' steps='4' ctrlrange='-2 2'/>"
                    "<default class='x'><counter gain='7'/></default></default>\n"
                    "<worldbody><body><joint name='j' type='slide'/><geom size='.1'/></body>"
                    "</worldbody>\n<actuator><counter joint='j'/><counter class='x' joint='j'/>"
                    "<counter class='x' joint='j' gain='9' steps='1'/></actuator></mujoco>");
  const mcpHost* host = mcp_host();
  int a0 = m->actuator_plugin[0], a1 = m->actuator_plugin[1], a2 = m->actuator_plugin[2];
  cr_expect_eq(host->config(m, a0, "gain", NULL)[0], 5);
  cr_expect_eq(host->config(m, a0, "steps", NULL)[0], 4);
  cr_expect_eq(host->config(m, a1, "gain", NULL)[0], 7, "the class's own value");
  cr_expect_eq(host->config(m, a1, "steps", NULL)[0], 4, "inherited from main");
  cr_expect_eq(host->config(m, a2, "gain", NULL)[0], 9, "the element wins");
  cr_expect_eq(host->config(m, a2, "steps", NULL)[0], 1);
  cr_expect_eq(m->actuator_ctrlrange[1], 2, "core attributes from the default too");
  cr_expect_eq(m->actuator_ctrllimited[2], 1);
  mc_deleteModel(m);

  // a misspelled attribute in the default is refused where it is written
  expectError("<mujoco>\n<default>\n<counter gian='5'/></default></mujoco>", 3,
              "unknown attribute 'gian'", NULL);
}


// <default><dcmotor> (a built-in plugin element): the same model as with the attributes written
Test(instances, builtinPluginElementInDefault) {
  cr_assert_not_null(mcp_findActuatorElement("dcmotor"), "the dcmotor plugin must be built");
  const char* fmt = "<mujoco>\n<default><default class='m'><dcmotor %s/></default></default>\n"
                    "<worldbody><body><joint name='j'/><geom size='.1'/></body></worldbody>\n"
                    "<actuator><dcmotor class='m' joint='j' %s/></actuator></mujoco>";
  const char* attrs = "resistance='2' motorconst='0.05' ctrlrange='-3 3'";
  char xml1[1024], xml2[1024];
  snprintf(xml1, sizeof(xml1), fmt, attrs, "");
  snprintf(xml2, sizeof(xml2), fmt, "", attrs);
  mcModel* m1 = load(xml1);
  mcModel* m2 = load(xml2);
  cr_expect_eq(m1->actuator_ctrlrange[1], 3);
  cr_expect_eq(memcmp(m1->actuator_gainprm, m2->actuator_gainprm, sizeof(mcNum) * mcNGAIN), 0);
  cr_expect_eq(memcmp(m1->actuator_dynprm, m2->actuator_dynprm, sizeof(mcNum) * mcNDYN), 0);
  cr_expect_eq(memcmp(m1->actuator_biasprm, m2->actuator_biasprm, sizeof(mcNum) * mcNBIAS), 0);
  cr_expect_eq(m1->actuator_actnum[0], m2->actuator_actnum[0]);

  // and the defaults' values matter: without them the parameters differ
  snprintf(xml1, sizeof(xml1), fmt, "", "resistance='1' motorconst='0.05'");
  mcModel* m3 = load(xml1);
  cr_expect_neq(memcmp(m3->actuator_gainprm, m2->actuator_gainprm, sizeof(mcNum) * mcNGAIN) ||
                memcmp(m3->actuator_biasprm, m2->actuator_biasprm, sizeof(mcNum) * mcNBIAS) ||
                memcmp(m3->actuator_dynprm, m2->actuator_dynprm, sizeof(mcNum) * mcNDYN), 0);
  mc_deleteModel(m1);
  mc_deleteModel(m2);
  mc_deleteModel(m3);
}


//---------------------------------- state, data and lifecycle -------------------------------------

#define TWO_COUNTERS                                                                               \
  "<mujoco>\n<worldbody><body><joint name='j' type='slide'/><geom size='.1'/></body>"             \
  "</worldbody>\n<actuator><counter name='a' joint='j' steps='1'/>"                               \
  "<counter name='b' joint='j' steps='1'/></actuator>\n"                                           \
  "<sensor><tally name='t' scale='2'/></sensor>\n"                                                 \
  "<keyframe><key qpos='0.25'/></keyframe></mujoco>"

Test(instances, separateStateSurvivesStateCopyAndKeyframe) {
  mcModel* m = load(TWO_COUNTERS);
  int a = m->actuator_plugin[0], b = m->actuator_plugin[1], t = m->sensor_plugin[0];
  cr_assert_eq(m->plugin_statenum[a], 1);
  cr_assert_eq(m->plugin_statenum[b], 1);
  cr_assert_eq(m->plugin_statenum[t], 2);
  cr_assert_neq(m->plugin_stateadr[a], m->plugin_stateadr[b]);
  cr_assert_eq(m->npluginstate, 4);
  cr_assert_eq(m->sensor_dim[0], 2, "the sensor's compile saw the model");

  mcData* d = mc_makeData(m);
  cr_assert_not_null(d->plugin_data[a]);
  cr_assert_neq(d->plugin_data[a], d->plugin_data[b]);
  for (int k = 0; k < 5; k++) {
    mc_step(m, d);
  }
  mcNum* ps = d->plugin_state;
  mcNum sa = ps[m->plugin_stateadr[a]], sb = ps[m->plugin_stateadr[b]];
  cr_expect_gt(sa, 0);
  cr_expect_eq(sa, sb, "both counters were called as often");

  // make them differ: a's state is set by hand
  ps[m->plugin_stateadr[a]] = 100;
  int ns = mc_stateSize(m, mcSTATE_INTEGRATION);
  mcNum* state = calloc((size_t)ns, sizeof(mcNum));
  mc_getState(m, d, state, mcSTATE_INTEGRATION);
  cr_expect_eq(mc_stateSize(m, mcSTATE_PLUGIN), 4);

  // a copy carries state and data contents, with its own data pointers
  mcData* d2 = mc_copyData(NULL, m, d);
  cr_assert_not_null(d2);
  cr_expect_eq(d2->plugin_state[m->plugin_stateadr[a]], 100);
  cr_expect_eq(d2->plugin_state[m->plugin_stateadr[b]], sb);
  cr_expect((char*)d2->plugin_data[a] >= (char*)d2->buffer &&
            (char*)d2->plugin_data[a] < (char*)d2->buffer + d2->nbuffer,
            "plugin data must point into the copy's buffer");
  cr_expect_eq(memcmp(d2->plugin_data[a], d->plugin_data[a], (size_t)m->plugin_datasize[a]), 0);
  mcData* d3 = mc_makeData(m);
  cr_assert_eq(mc_copyData(d3, m, d), d3);
  cr_expect_eq(d3->plugin_state[m->plugin_stateadr[a]], 100);
  cr_expect_neq(d3->plugin_data[a], d->plugin_data[a]);

  // both continue identically
  mc_step(m, d);
  mc_step(m, d2);
  mc_step(m, d3);
  cr_expect_eq(memcmp(d->qpos, d2->qpos, sizeof(mcNum) * (size_t)m->nq), 0);
  cr_expect_eq(memcmp(d->qpos, d3->qpos, sizeof(mcNum) * (size_t)m->nq), 0);
  cr_expect_eq(memcmp(d->plugin_state, d2->plugin_state, sizeof(mcNum) * 4), 0);

  // the state round-trips through mc_setState
  mc_resetData(m, d2);
  cr_expect_eq(d2->plugin_state[m->plugin_stateadr[a]], 0, "reset zeroes plugin state");
  mc_setState(m, d2, state, mcSTATE_INTEGRATION);
  cr_expect_eq(d2->plugin_state[m->plugin_stateadr[a]], 100);
  cr_expect_eq(d2->plugin_state[m->plugin_stateadr[b]], sb);

  // a keyframe reset restarts the plugin state
  int* c = counts();
  int resets = c[2];
  cr_assert_eq(mc_resetDataKeyframe(m, d, 0), 0);
  cr_expect_eq(d->qpos[0], 0.25);
  for (int i = 0; i < m->npluginstate; i++) {
    cr_expect_eq(d->plugin_state[i], 0, "plugin state %d after a keyframe reset", i);
  }
  cr_expect_eq(c[2], resets + 3, "reset once per instance of the fixture");
  free(state);
  mc_deleteData(d);
  mc_deleteData(d2);
  mc_deleteData(d3);
  mc_deleteModel(m);
}


Test(instances, initDestroyOncePerInstance) {
  int* c = counts();
  mcModel* m = load(TWO_COUNTERS);
  int n = 0;
  for (int i = 0; i < m->nplugin; i++) {
    n += !strncmp(m->plugin[i]->name, "test.", 5);
  }
  cr_assert_eq(n, 3, "two counters and a tally");
  int init0 = c[0], destroy0 = c[1], bad0 = c[5];
  mcData* d = mc_makeData(m);
  cr_expect_eq(c[0], init0 + 3);
  cr_expect_eq(c[5], bad0, "plugin data zeroed and aligned at init");
  mcData* d2 = mc_makeData(m);
  cr_expect_eq(c[0], init0 + 6);
  mc_deleteData(d);
  cr_expect_eq(c[1], destroy0 + 3);
  mc_deleteData(d2);
  cr_expect_eq(c[1], destroy0 + 6);
  mc_deleteModel(m);
}


Test(instances, sensorCompiledOnceWithModel) {
  int* c = counts();
  int before = c[3], nullm = c[4];
  mcModel* m = load(TWO_COUNTERS);
  cr_expect_eq(c[3], before + 1, "compile once per sensor");
  cr_expect_eq(c[4], nullm, "never with m == NULL");
  cr_expect_eq(m->nsensordata, 2);
  mc_deleteModel(m);
}

//---------------------------------- warnings ------------------------------------------------------

Test(instances, pluginWarningCountedAndNamed) {
  mcModel* m = load(TWO_COUNTERS);
  int b = m->actuator_plugin[1];
  cr_assert_eq(m->npluginwarn, 2 * 2, "two warnings per counter");
  int k = m->plugin_warnadr[b];
  cr_expect_str_eq(mc_pluginWarningName(m, k), "test.counter: saturated");
  cr_expect_str_eq(mc_pluginWarningName(m, k + 1), "test.counter: unused");
  cr_expect_null(mc_pluginWarningName(m, m->npluginwarn));
  cr_expect_null(mc_pluginWarningName(m, -1));

  mcData* d = mc_makeData(m);
  g_messages[0] = 0;
  d->ctrl[1] = 3;   // only b saturates
  mc_step(m, d);
  mc_step(m, d);
  cr_expect_eq(d->plugin_warncount[k], 2);
  cr_expect_eq(d->plugin_warninfo[k], 1, "info: the actuator id");
  cr_expect_eq(d->plugin_warncount[m->plugin_warnadr[m->actuator_plugin[0]]], 0);
  cr_expect(strstr(g_messages, "test.counter: saturated"), "printed once: '%s'", g_messages);
  const char* second = strstr(g_messages, "saturated");
  cr_expect(second && !strstr(second + 1, "saturated"), "printed only the first time");
  mc_resetData(m, d);
  cr_expect_eq(d->plugin_warncount[k], 0, "reset clears plugin warnings");
  mc_deleteData(d);
  mc_deleteModel(m);
}

//---------------------------------- conventions ---------------------------------------------------

Test(instances, compileErrorHasOneFileLine) {
  char error[1024] = "";
  mcModel* m = loadText(HEAD "<actuator>\n<counter joint='j' steps='1' fail='1'/></actuator>"
                        "</mujoco>", error, sizeof(error));
  cr_assert_null(m);
  char where[PATH_MAX + 32];
  snprintf(where, sizeof(where), "%s:4:", g_file);
  const char* first = strstr(error, where);
  cr_expect(first == error, "'%s' should start with '%s'", error, where);
  cr_expect(first && !strstr(first + 1, g_file), "file named twice: '%s'", error);
  cr_expect(strstr(error, "asks to fail"), "%s", error);
}


// the same rollouts on 1 and 2 threads give bit-identical states, plugin state included
Test(instances, rolloutDeterministicWithStatefulPlugin) {
  mcModel* m = load(TWO_COUNTERS);
  unsigned spec = mcSTATE_FULLPHYSICS;
  int ns = mc_stateSize(m, spec), nroll = 6, nstep = 30;
  mcNum* state0 = calloc((size_t)(ns * nroll), sizeof(mcNum));
  mcNum* ctrl = calloc((size_t)(nroll * nstep * m->nu), sizeof(mcNum));
  mcNum* out1 = calloc((size_t)(ns * nroll * nstep), sizeof(mcNum));
  mcNum* out2 = calloc((size_t)(ns * nroll * nstep), sizeof(mcNum));
  mcNum* sen1 = calloc((size_t)(m->nsensordata * nroll * nstep), sizeof(mcNum));
  mcNum* sen2 = calloc((size_t)(m->nsensordata * nroll * nstep), sizeof(mcNum));
  for (int r = 0; r < nroll; r++) {
    state0[r * ns + 1] = 0.1 * r;                           // qpos
    state0[r * ns + ns - 4 + m->plugin_stateadr[m->actuator_plugin[0]]] = 10.0 * r;
  }
  for (int i = 0; i < nroll * nstep * m->nu; i++) {
    ctrl[i] = sin(0.37 * i);
  }
  mcRolloutPool* p1 = mc_rolloutCreate(m, 1, nroll);
  mcRolloutPool* p2 = mc_rolloutCreate(m, 2, nroll);
  cr_assert(p1 && p2);
  cr_assert_eq(mc_rollout(p1, nroll, nstep, spec, state0, ctrl, out1, sen1), 0);
  cr_assert_eq(mc_rollout(p2, nroll, nstep, spec, state0, ctrl, out2, sen2), 0);
  cr_expect_eq(memcmp(out1, out2, sizeof(mcNum) * (size_t)(ns * nroll * nstep)), 0);
  cr_expect_eq(memcmp(sen1, sen2, sizeof(mcNum) * (size_t)(m->nsensordata * nroll * nstep)), 0);

  // the plugin state is part of the rollout state and differs between rollouts as it started
  mcNum last0 = out1[(size_t)(nstep - 1) * ns + ns - 4 + m->plugin_stateadr[m->actuator_plugin[0]]];
  mcNum last1 = out1[(size_t)(2 * nstep - 1) * ns + ns - 4 +
                     m->plugin_stateadr[m->actuator_plugin[0]]];
  cr_expect_eq(last1 - last0, 10.0, "the plugin state carried from state0 (%g, %g)", last0, last1);
  mc_rolloutDelete(p1);
  mc_rolloutDelete(p2);
  free(state0);
  free(ctrl);
  free(out1);
  free(out2);
  free(sen1);
  free(sen2);
  mc_deleteModel(m);
}
