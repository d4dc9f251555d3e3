// mc_setSolver / mc_setIntegrator give the new plugin a model instance: the swapped model equals
// the model compiled from a file that selects the plugin (defaults, state, data, warnings and their
// names, the other instances untouched), mcData made afterwards runs the new instance's lifecycle
// and counts its warnings, data made before the swap is refused, and swapping back restores the
// original model. Fixture: fixtures/instances.c (test.tallied, test.damped, test.counter).
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <moduco/mcplugin.h>
#include <moduco/moduco.h>

#include "compiler/plugin_defaults.h"
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
  cr_assert_not_null(mcp_find(mcpKIND_SOLVER, "test.tallied"), "fixture not loaded: %s",
                     mc_pluginMessages());
}


TestSuite(swap, .init = setup);


// a symbol of the fixture library (already loaded by the scan)
static void* fixtureSymbol(const char* name) {
  void* h = dlopen(MODUCO_INSTANCE_FIXTURE_DIR "/fix-instances.so", RTLD_NOW | RTLD_NOLOAD);
  cr_assert_not_null(h, "fixture library not loaded");
  void* p = dlsym(h, name);
  cr_assert_not_null(p, "%s", name);
  dlclose(h);
  return p;
}

enum { INIT = 0, DESTROY = 1, RESET = 2, BADDATA = 5, TALLIED_INIT = 7 };   // fixture_counts


// two stateful counters with warnings and a tally sensor around the swapped singleton, and a
// friction row so that the solver runs; solver and integrator attributes spliced in
static mcModel* load(const char* option) {
  char xml[2048];
  snprintf(xml, sizeof(xml),
           "<mujoco>\n<option gravity='0 0 -10' %s/>\n"
           "<worldbody><body><joint name='j' type='slide' axis='0 0 1' frictionloss='0.1'/>"
           "<geom size='.1'/></body></worldbody>\n"
           "<actuator><counter name='a' joint='j' steps='1' gain='3'/>"
           "<counter name='b' joint='j' steps='1'/></actuator>\n"
           "<sensor><tally name='t' scale='2'/></sensor></mujoco>", option);
  char file[PATH_MAX] = "/tmp/moduco_swap_XXXXXX.xml";
  int fd = mkstemps(file, 4);
  cr_assert_geq(fd, 0);
  FILE* f = fdopen(fd, "w");
  fputs(xml, f);
  fclose(f);
  char error[1024] = "";
  mcModel* m = mc_loadXML(file, error, sizeof(error));
  unlink(file);
  cr_assert_not_null(m, "load failed: %s", error);
  return m;
}


// the plugin tables, configuration and warning names of a and b are the same
static void expectSamePlugins(const mcModel* a, const mcModel* b) {
  cr_assert_eq(a->nplugin, b->nplugin);
  cr_expect_eq(a->npluginconfig, b->npluginconfig);
  cr_expect_eq(a->npluginstate, b->npluginstate);
  cr_expect_eq(a->npluginwarn, b->npluginwarn);
  cr_expect_eq(a->plugin_solver, b->plugin_solver);
  cr_expect_eq(a->plugin_integrator, b->plugin_integrator);
  cr_expect_eq(a->solver, b->solver);
  cr_expect_eq(a->integrator, b->integrator);
  cr_expect_eq(a->opt.solver, b->opt.solver);
  // names as written (the model file's default "Newton", the registered "newton")
  cr_expect(!strcasecmp(a->opt.solver_name, b->opt.solver_name), "%s", a->opt.solver_name);
  cr_expect(!strcasecmp(a->opt.integrator_name, b->opt.integrator_name), "%s",
            a->opt.integrator_name);
  for (int i = 0; i < a->nplugin; i++) {
    cr_expect_eq(a->plugin[i], b->plugin[i], "instance %d", i);
    cr_expect_eq(a->plugin_objtype[i], b->plugin_objtype[i], "instance %d", i);
    cr_expect_eq(a->plugin_objid[i], b->plugin_objid[i], "instance %d", i);
    cr_expect_eq(a->plugin_configadr[i], b->plugin_configadr[i], "instance %d", i);
    cr_expect_eq(a->plugin_confignum[i], b->plugin_confignum[i], "instance %d", i);
    cr_expect_eq(a->plugin_stateadr[i], b->plugin_stateadr[i], "instance %d", i);
    cr_expect_eq(a->plugin_statenum[i], b->plugin_statenum[i], "instance %d", i);
    cr_expect_eq(a->plugin_datasize[i], b->plugin_datasize[i], "instance %d", i);
    cr_expect_eq(a->plugin_warnadr[i], b->plugin_warnadr[i], "instance %d", i);
    cr_expect_eq(a->plugin_warnnum[i], b->plugin_warnnum[i], "instance %d", i);
  }
  cr_expect_arr_eq(a->plugin_config, b->plugin_config, sizeof(mcNum) * (size_t)a->npluginconfig);
  cr_assert_eq(a->nnames, b->nnames);
  cr_expect_arr_eq(a->names, b->names, (size_t)a->nnames);
  for (int k = 0; k < a->npluginwarn; k++) {
    cr_expect_str_eq(mc_pluginWarningName(a, k), mc_pluginWarningName(b, k));
  }
}


Test(swap, solverSwapEqualsCompiledSelection) {
  mcModel* m = load("");
  mcModel* want = load("solver='test.tallied'");
  int slot = m->plugin_solver;
  int gain_a = m->plugin_configadr[m->actuator_plugin[0]];
  const mcNum* mass = m->body_mass;   // a view taken before the swap (as Python arrays are)
  char error[512] = "";
  cr_assert_eq(mc_setSolver(m, "test.tallied", error, sizeof(error)), 0, "%s", error);
  cr_expect_eq(mass[1], m->body_mass[1], "the old buffer stays readable until mc_deleteModel");
  cr_expect_eq(m->plugin_solver, slot, "the new instance takes the old one's index");
  expectSamePlugins(m, want);
  cr_expect_eq(mcp_host()->instance(m, &m->solver->hdr), slot);
  int n = 0;
  const mcNum* gain = mcp_host()->config(m, slot, "gain", &n);
  cr_assert_not_null(gain);
  cr_expect_eq(n, 1);
  cr_expect_eq(gain[0], 0.5, "declared default");
  cr_expect_eq(mcp_host()->config(m, slot, "label", NULL)[0], 1, "enum default 'b'");
  cr_expect_eq(m->plugin_statenum[slot], 3);
  cr_expect_gt(m->plugin_datasize[slot], 0);
  cr_expect_eq(m->plugin_warnnum[slot], 1);
  cr_expect_str_eq(mc_pluginWarningName(m, m->plugin_warnadr[slot]), "test.tallied: solved");
  cr_expect_eq(m->plugin_config[m->plugin_configadr[m->actuator_plugin[0]]], 3,
               "the counter keeps its gain (was at %d)", gain_a);
  mc_deleteModel(want);
  mc_deleteModel(m);
}


Test(swap, swappedSolverLifecycleStateAndWarnings) {
  int* c = (int*)fixtureSymbol("fixture_counts");
  double* read_gain = (double*)fixtureSymbol("fixture_tallied_gain");
  mcModel* m = load("");
  char error[512] = "";
  cr_assert_eq(mc_setSolver(m, "test.tallied", error, sizeof(error)), 0, "%s", error);
  int slot = m->plugin_solver;
  *read_gain = 0;
  int init0 = c[INIT], tinit0 = c[TALLIED_INIT], bad0 = c[BADDATA];
  mcData* d = mc_makeData(m);
  cr_assert_not_null(d);
  cr_expect_eq(c[TALLIED_INIT], tinit0 + 1, "init once per data");
  cr_expect_eq(c[INIT], init0 + 4, "two counters, the tally and the solver");
  cr_expect_eq(c[BADDATA], bad0, "its data zeroed and aligned");
  cr_expect_eq(*read_gain, 0.5, "init read the default");
  mcData* d2 = mc_makeData(m);
  cr_expect_eq(c[TALLIED_INIT], tinit0 + 2, "init once per data");

  g_messages[0] = 0;
  mc_step(m, d);
  mc_step(m, d);
  cr_expect_gt(d->nefc, 0, "a friction row: the solver runs");
  cr_expect_eq(d->qacc[0], 0.5 * d->qacc_smooth[0], "qacc = gain * qacc_smooth");
  int k = m->plugin_warnadr[slot];
  cr_expect_eq(d->plugin_warncount[k], 2, "its warning counted once per solve");
  cr_expect_eq(d->plugin_warninfo[k], d->nefc);
  cr_expect(strstr(g_messages, "test.tallied: solved"), "%s", g_messages);

  // its state is part of mcSTATE_PLUGIN, after the other instances' state
  int ns = mc_stateSize(m, mcSTATE_PLUGIN);
  cr_assert_eq(ns, m->npluginstate);
  cr_assert_eq(ns, 1 + 1 + 2 + 3);
  mcNum state[16];
  mc_getState(m, d, state, mcSTATE_PLUGIN);
  cr_expect_eq(state[m->plugin_stateadr[slot]], 2, "two solves counted in its state");

  int reset0 = c[RESET];
  mc_resetData(m, d);
  cr_expect_eq(c[RESET], reset0 + 4, "reset per instance");
  cr_expect_eq(d->plugin_warncount[k], 0);
  int destroy0 = c[DESTROY];
  mc_deleteData(d);
  mc_deleteData(d2);
  cr_expect_eq(c[DESTROY], destroy0 + 8, "destroy per instance and data");
  mc_deleteModel(m);
}


Test(swap, swapBackRestoresTheModel) {
  mcModel* m = load("");
  mcModel* orig = load("");
  char error[512] = "";
  cr_assert_eq(mc_setSolver(m, "test.tallied", error, sizeof(error)), 0, "%s", error);
  cr_assert_eq(mc_setSolver(m, "Newton", error, sizeof(error)), 0, "%s", error);
  expectSamePlugins(m, orig);
  mcData* d = mc_makeData(m);
  mcData* e = mc_makeData(orig);
  for (int i = 0; i < 20; i++) {
    mc_step(m, d);
    mc_step(orig, e);
  }
  cr_expect_eq(memcmp(d->qpos, e->qpos, sizeof(mcNum) * (size_t)m->nq), 0, "same trajectory");
  mc_deleteData(e);
  mc_deleteData(d);
  mc_deleteModel(orig);
  mc_deleteModel(m);
}


Test(swap, integratorSwapAndBack) {
  mcModel* m = load("");
  mcModel* want = load("integrator='test.damped'");
  mcModel* orig = load("");
  char error[512] = "";
  cr_assert_eq(mc_setIntegrator(m, "test.damped", error, sizeof(error)), 0, "%s", error);
  expectSamePlugins(m, want);
  int slot = m->plugin_integrator;
  cr_expect_eq(mcp_host()->instance(m, &m->integrator->hdr), slot);
  cr_expect_eq(mcp_host()->config(m, slot, "damping", NULL)[0], 0, "declared default");
  mcData* d = mc_makeData(m);
  mc_step(m, d);
  cr_expect(d->time > 0 && d->qpos[0] == d->qpos[0], "stepped");
  mc_deleteData(d);
  cr_assert_eq(mc_setIntegrator(m, "euler", error, sizeof(error)), 0, "%s", error);
  expectSamePlugins(m, orig);
  mc_deleteModel(orig);
  mc_deleteModel(want);
  mc_deleteModel(m);
}


Test(swap, dataMadeBeforeTheSwapRefused) {
  mcModel* m = load("");
  mcData* d = mc_makeData(m);
  char error[512] = "";
  cr_assert_eq(mc_setSolver(m, "test.tallied", error, sizeof(error)), 0, "%s", error);
  g_messages[0] = 0;
  mc_step(m, d);
  cr_expect_eq(d->time, 0, "stale data not stepped");
  cr_expect(strstr(g_messages, "data was made for another model"), "%s", g_messages);
  int* c = (int*)fixtureSymbol("fixture_counts");
  int reset0 = c[RESET];
  d->time = 1;
  mc_resetData(m, d);
  cr_expect_eq(c[RESET], reset0, "no reset hook sees the stale data");
  cr_expect_eq(d->time, 1, "reset refused");
  cr_expect(strstr(g_messages, "mc_resetData: data was made for another model"), "%s",
            g_messages);

  // swapping back to Newton does not make the data fit again: test.tallied was swapped in, and
  // the data's plugin blocks are Newton's
  cr_assert_eq(mc_setSolver(m, "newton", error, sizeof(error)), 0, "%s", error);
  mc_step(m, d);
  cr_expect_gt(d->time, 0, "back to the model the data was made for: it fits");

  // a swap that changes nothing data depends on (Newton to CG: no hooks, state or data) keeps
  // earlier data usable, as MuJoCo's opt.solver; the result is the fresh data's
  mcModel* m2 = load("");
  mcData* d2 = mc_makeData(m2);
  cr_assert_eq(mc_setSolver(m2, "CG", error, sizeof(error)), 0, "%s", error);
  mcData* fresh = mc_makeData(m2);
  mc_step(m2, d2);
  mc_step(m2, fresh);
  cr_expect_gt(d2->time, 0, "stepped");
  cr_expect_eq(d2->qvel[0], fresh->qvel[0], "same as data made after the swap");

  // a swap to a plugin whose init never ran on the data is caught (test.scaled)
  cr_assert_eq(mc_setSolver(m2, "test.scaled", error, sizeof(error)), 0, "%s", error);
  g_messages[0] = 0;
  double t = d2->time;
  mc_step(m2, d2);
  cr_expect_eq(d2->time, t, "its init never ran on this data: refused");
  cr_expect(strstr(g_messages, "data was made for another model"), "%s", g_messages);
  mc_deleteData(fresh);
  mc_deleteData(d2);
  mc_deleteModel(m2);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(swap, sameSolverKeepsConfigAndErrorsLeaveModel) {
  mcModel* m = load("solver='test.scaled'");
  mcModel* orig = load("solver='test.scaled'");
  cr_assert_eq(mcp_host()->config(m, m->plugin_solver, "scale", NULL)[0], 1);
  char error[512] = "";
  cr_expect_eq(mc_setSolver(m, "test.scaled", error, sizeof(error)), 0, "%s", error);
  expectSamePlugins(m, orig);
  cr_expect_eq(mc_setSolver(m, "nosuch", error, sizeof(error)), -1);
  cr_expect(strstr(error, "unknown solver 'nosuch'"), "%s", error);
  cr_expect_eq(mc_setIntegrator(m, "test.tallied", error, sizeof(error)), -1,
               "a solver is no integrator");
  expectSamePlugins(m, orig);

  // a copy of a swapped model is the swapped model
  cr_assert_eq(mc_setSolver(m, "test.tallied", error, sizeof(error)), 0, "%s", error);
  mcModel* copy = mc_copyModel(NULL, m);
  cr_assert_not_null(copy);
  expectSamePlugins(copy, m);
  mc_deleteModel(copy);
  mc_deleteModel(orig);
  mc_deleteModel(m);
}


// the defaults a swapped-in instance gets; a required key (no default) refuses the plugin
Test(swap, declaredDefaultsAndRequiredKeys) {
  char error[512] = "";
  mcNum v[4] = {-1, -1, -1, -1};
  const mcpHeader* tallied = mcp_find(mcpKIND_SOLVER, "test.tallied");
  cr_assert_eq(mcc_defaultConfig(tallied, NULL, 0, error, sizeof(error)), 2, "%s", error);
  cr_assert_eq(mcc_defaultConfig(tallied, v, 4, error, sizeof(error)), 2, "%s", error);
  cr_expect_eq(v[0], 0.5);
  cr_expect_eq(v[1], 1, "enum 'b' of a|b|c");
  cr_expect_eq(v[2], -1, "nothing written past the values");
  cr_expect_eq(mcc_defaultConfig(tallied, v, 1, error, sizeof(error)), -1, "no room");
  error[0] = 0;
  const mcpHeader* counter = mcp_find(mcpKIND_ACTUATOR, "test.counter");
  cr_expect_eq(mcc_defaultConfig(counter, NULL, 0, error, sizeof(error)), -1);
  cr_expect(strstr(error, "requires configuration key 'steps'"), "%s", error);
}
