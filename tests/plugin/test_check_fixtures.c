// Check mode against fixture plugins that break the rules (tests/plugin/fixtures/
// check_fixture.c): each failure is caught and the message names the plugin. Also the
// conventions of docs/plugins.md: integrate_act under RK4, equal-priority collision plugins, the
// contact frame completion.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

static char g_log[65536];
static size_t g_nlog;


// collect the core's messages
static void collect(void* user, const char* message) {
  (void)user;
  int n = snprintf(g_log + g_nlog, sizeof(g_log) - g_nlog, "%s\n", message);
  if (n > 0 && g_nlog + (size_t)n < sizeof(g_log)) {
    g_nlog += (size_t)n;
  }
}


// the fixtures first, then the built-in plugins of the build tree
static void setup(void) {
  setenv("MODUCO_PLUGIN_PATH", MODUCO_CHECK_FIXTURE_DIR ":" MODUCO_BUILD_PLUGIN_DIR, 1);
  unsetenv("MODUCO_PLUGIN_CHECK");
  g_nlog = 0;
  g_log[0] = 0;
  mc_setMessageHandler(collect, NULL);
}

TestSuite(plugin_check_fixtures, .init = setup);


// a model from a worldbody and an optional tail (actuators, sensors)
static mcModel* load(const char* world, const char* tail) {
  char xml[4096], err[1024];
  snprintf(xml, sizeof(xml), "<mujoco><worldbody>%s</worldbody>%s</mujoco>", world,
           tail ? tail : "");
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  return m;
}


// a fixed geom and a free one above it at height z (geoms as "type='..' size='..'")
static mcModel* loadPair(const char* fixed, const char* free, double z) {
  char world[512];
  snprintf(world, sizeof(world), "<geom %s/><body pos='0 0 %g'><freejoint/><geom %s/></body>",
           fixed, z, free);
  return load(world, NULL);
}


// new data with check mode on, after one forward pass
static mcData* checkedForward(const mcModel* m) {
  mcData* d = mc_makeData(m);
  cr_assert_not_null(d);
  mc_setPluginCheck(d, 1);
  mc_forward(m, d);
  return d;
}


static void finish(mcModel* m, mcData* d) {
  mc_deleteData(d);
  mc_deleteModel(m);
}


static int nprinted(void) {
  int n = 0;
  for (const char* p = g_log; (p = strstr(p, "plugin check:")); p++) {
    n++;
  }
  return n;
}


#define LOGGED(s) cr_assert_not_null(strstr(g_log, (s)), "expected '%s' in:\n%s", (s), g_log)

static const char kPendulum[] =
    "<body pos='0 0 1'><joint name='j' type='hinge' axis='0 1 0'/>"
    "<geom type='capsule' fromto='0 0 0 .3 0 0' size='.03'/></body>";
static const char kSphereOnPlane[] =
    "<geom type='plane' size='1 1 .1'/>"
    "<body pos='0 0 .099'><freejoint/><geom type='sphere' size='.1'/></body>";


Test(plugin_check_fixtures, integrator_nan_and_time_named) {
  char err[256];
  mcModel* m = load(kPendulum, NULL);
  cr_assert_eq(mc_setIntegrator(m, "test.nanstep", err, sizeof(err)), 0, "%s", err);

  // off: nothing is checked
  mcData* d = mc_makeData(m);
  mc_step(m, d);
  cr_assert_eq(d->warning[mcWARN_PLUGINCHECK].number, 0);
  mc_deleteData(d);

  // on: the NaN and the wrong time step, both naming the plugin
  d = mc_makeData(m);
  mc_setPluginCheck(d, 1);
  mc_step(m, d);
  cr_assert_eq(d->warning[mcWARN_PLUGINCHECK].number, 2);
  cr_assert_eq(d->warning[mcWARN_PLUGINCHECK].lastinfo, mcTIMERPLUGIN_INTEGRATOR);
  LOGGED("plugin check: integrator 'test.nanstep': qvel[0] = nan is not finite");
  LOGGED("plugin check: integrator 'test.nanstep': time advanced by 0.004");
  finish(m, d);
}


Test(plugin_check_fixtures, message_flood_is_bounded) {
  char err[256];
  mcModel* m = load(kPendulum, NULL);
  cr_assert_eq(mc_setIntegrator(m, "test.nanstep", err, sizeof(err)), 0, "%s", err);
  mcData* d = mc_makeData(m);
  mc_setPluginCheck(d, 1);
  for (int i = 0; i < 50; i++) {
    mc_step(m, d);
  }
  cr_assert_gt(d->warning[mcWARN_PLUGINCHECK].number, 50, "every failure is counted");
  cr_assert_eq(nprinted(), 8, "only the first 8 are printed:\n%s", g_log);
  finish(m, d);
}


Test(plugin_check_fixtures, solver_negative_force_named) {
  char err[256];
  mcModel* m = load(kSphereOnPlane, NULL);
  cr_assert_eq(mc_setSolver(m, "test.badsolve", err, sizeof(err)), 0, "%s", err);
  mcData* d = checkedForward(m);
  cr_assert_gt(d->nefc, 0);
  cr_assert_eq(d->warning[mcWARN_PLUGINCHECK].number, 2);
  cr_assert_eq(d->warning[mcWARN_PLUGINCHECK].lastinfo, mcTIMERPLUGIN_SOLVER);
  LOGGED("plugin check: solver 'test.badsolve': qfrc_constraint[");
  LOGGED("plugin check: solver 'test.badsolve': efc_force[0] = -1 < 0 on a unilateral row");
  finish(m, d);
}


Test(plugin_check_fixtures, collision_non_unit_normal_named) {
  mcModel* m = loadPair("type='sphere' size='.1'", "type='ellipsoid' size='.1 .1 .1'", .15);
  mcData* d = checkedForward(m);
  cr_assert_eq(d->ncon, 1);
  cr_assert_eq(d->warning[mcWARN_PLUGINCHECK].number, 1);
  int slot = d->warning[mcWARN_PLUGINCHECK].lastinfo;
  cr_assert_geq(slot, mcTIMERPLUGIN_COLLISION);
  cr_assert_str_eq(mc_timerPluginName(m, slot), "test.badcollide");
  LOGGED("plugin check: collision 'test.badcollide': contact 0: normal (0 0 2) has length 2");
  finish(m, d);
}


Test(plugin_check_fixtures, collision_nan_distance_named) {
  const char* ellipsoid = "type='ellipsoid' size='.1 .1 .1'";
  mcModel* m = loadPair(ellipsoid, ellipsoid, .15);
  mcData* d = checkedForward(m);
  cr_assert_geq(d->warning[mcWARN_PLUGINCHECK].number, 1);
  LOGGED("plugin check: collision 'test.badcollide': contact.dist[0] = nan is not finite");
  cr_assert_eq(strstr(g_log, "plugin check:"), strstr(g_log, "plugin check: collision"),
               "the collision is reported first:\n%s", g_log);
  finish(m, d);
}


Test(plugin_check_fixtures, actuator_nan_named) {
  mcModel* m = load(kPendulum, "<actuator><nanact joint='j'/></actuator>");
  mcData* d = checkedForward(m);
  cr_assert_eq(d->warning[mcWARN_PLUGINCHECK].number, 2);
  cr_assert_eq(d->warning[mcWARN_PLUGINCHECK].lastinfo,
               mcTIMERPLUGIN_ELEMENT + m->actuator_plugin[0]);
  LOGGED("plugin check: actuator 'test.nanact': act_dot[0] = nan is not finite");
  LOGGED("plugin check: actuator 'test.nanact': force of actuator 0 = inf is not finite");
  finish(m, d);
}


Test(plugin_check_fixtures, sensor_overrun_and_nan_named) {
  mcModel* m = load(kPendulum, "<sensor><overrun/><nansensor/></sensor>");
  cr_assert_eq(m->nsensordata, 4);
  mcData* d = checkedForward(m);
  cr_assert_eq(d->warning[mcWARN_PLUGINCHECK].number, 2);
  LOGGED("plugin check: sensor 'test.overrun': sensor 0 wrote outside its 2 outputs (at "
         "offset 2)");
  LOGGED("plugin check: sensor 'test.nansensor': sensordata[3] = nan is not finite");

  // the checked call writes the slice only
  cr_assert_eq(d->sensordata[0], 1);
  cr_assert_eq(d->sensordata[1], 2);
  cr_assert_eq(d->sensordata[2], 1);
  finish(m, d);
}


// the contact frame: the core completes a frame given by its normal only, and orthogonalizes a
// tangent hint; both are right-handed orthonormal frames, and neither is a check failure
Test(plugin_check_fixtures, contact_frame_completed_by_the_core) {
  mcModel* m = loadPair("type='cylinder' size='.1 .1'", "type='cylinder' size='.1 .1'", .19);
  mcData* d = checkedForward(m);
  cr_assert_eq(d->ncon, 2);
  cr_assert_eq(d->warning[mcWARN_PLUGINCHECK].number, 0, "%s", g_log);
  for (int c = 0; c < 2; c++) {
    const mcNum* f = d->contact[c].frame;
    for (int a = 0; a < 3; a++) {
      for (int b = 0; b < 3; b++) {
        mcNum dot = f[3*a]*f[3*b] + f[3*a+1]*f[3*b+1] + f[3*a+2]*f[3*b+2];
        cr_assert_float_eq(dot, a == b ? 1.0 : 0.0, 1e-12, "contact %d axes %d %d", c, a, b);
      }
    }
    mcNum det = f[0]*(f[4]*f[8] - f[5]*f[7]) - f[1]*(f[3]*f[8] - f[5]*f[6]) +
                f[2]*(f[3]*f[7] - f[4]*f[6]);
    cr_assert_float_eq(det, 1.0, 1e-12, "contact %d: right-handed", c);
  }

  // contact 0 keeps its normal; contact 1's hint (0.8 0 0.6) becomes x, so the third axis is y
  const mcNum* f0 = d->contact[0].frame;
  cr_assert_float_eq(f0[0], 1.0 / 3, 1e-15);
  cr_assert_float_eq(f0[1], 2.0 / 3, 1e-15);
  cr_assert_float_eq(f0[2], 2.0 / 3, 1e-15);
  const mcNum* f1 = d->contact[1].frame;
  cr_assert_float_eq(f1[3], 1.0, 1e-15);
  cr_assert_float_eq(f1[5], 0.0, 1e-15);
  cr_assert_float_eq(f1[7], 1.0, 1e-15);
  finish(m, d);
}


// integrate_act receives the integrator's effective derivative: under Euler (and the implicit
// integrators) d->act_dot at the start of the step, under RK4 the weighted average of its four
// stage derivatives; h is the time step. The fixture's act_dot is the time, so Euler from t = 1
// passes 1 and RK4 passes (1 + 2 (1 + h/2) + 2 (1 + h/2) + (1 + h)) / 6 = 1 + h/2.
Test(plugin_check_fixtures, integrate_act_receives_the_effective_derivative) {
  static const char* const integrators[] = {"euler", "implicit", "implicitfast", "rk4"};
  for (int k = 0; k < 4; k++) {
    char err[256];
    mcModel* m = load(kPendulum, "<actuator><recact joint='j'/></actuator>");
    cr_assert_eq(mc_setIntegrator(m, integrators[k], err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(m->na, 2);
    mcNum h = m->opt.timestep;
    mcData* d = mc_makeData(m);
    mc_setPluginCheck(d, 1);
    d->time = 1;
    mc_step(m, d);
    mcNum expect = k == 3 ? 1 + h / 2 : 1;
    cr_assert_float_eq(d->act[0], expect, 1e-14, "%s: act_dot passed %.17g, expected %.17g",
                       integrators[k], d->act[0], expect);
    cr_assert_eq(d->act[1], h, "%s: h", integrators[k]);
    cr_assert_eq(d->warning[mcWARN_PLUGINCHECK].number, 0, "%s", g_log);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


// two collision plugins of priority 50 cover capsule-capsule; test.tie_zeta's library loads
// first, yet test.tie_alpha (first by name) is used, and the loader reports the tie
Test(plugin_check_fixtures, equal_priority_collision_plugins) {
  mcModel* m = loadPair("type='capsule' size='.1 .2'", "type='capsule' size='.1 .2'", .25);
  mcData* d = mc_makeData(m);
  mc_forward(m, d);
  cr_assert_eq(d->ncon, 1);
  cr_assert_float_eq(d->contact[0].dist, -0.0123, 1e-15, "test.tie_alpha's contact");
  const char* msg = mc_pluginMessages();
  cr_assert_not_null(strstr(msg, "collision plugin 'test.tie_zeta' and 'test.tie_alpha'"), "%s",
                     msg);
  cr_assert_not_null(strstr(msg, "geom types capsule-capsule at priority 50: 'test.tie_alpha' "
                                 "is used"), "%s", msg);
  cr_assert_not_null(strstr(msg, "fixc-tie1.so"), "the file of each is named: %s", msg);
  cr_assert_not_null(strstr(msg, "fixc-tie2.so"), "the file of each is named: %s", msg);
  finish(m, d);
}


// moduco run/dump --check: check mode on, the plugin named on stderr, a failed check fails the
// command; without --check the same run succeeds
Test(plugin_check_fixtures, cli_check_flag) {
  char model[] = "/tmp/moduco-check-XXXXXX.xml";
  int fd = mkstemps(model, 4);
  cr_assert_geq(fd, 0);
  FILE* f = fdopen(fd, "w");
  fprintf(f, "<mujoco><worldbody>%s</worldbody></mujoco>\n", kPendulum);
  fclose(f);

  static const char* const cmds[][2] = {
    {"run", "--steps 3"}, {"dump", "--steps 3"}
  };
  for (int k = 0; k < 2; k++) {
    for (int check = 0; check < 2; check++) {
      char cmd[1024], out[8192] = "";
      snprintf(cmd, sizeof(cmd), "%s/bin/moduco %s %s %s --integrator test.nanstep %s 2>&1",
               MODUCO_BINARY_DIR, cmds[k][0], model, cmds[k][1], check ? "--check" : "");
      if (k == 1) {  // dump has no --integrator: the plugin is selected in the model instead
        snprintf(cmd, sizeof(cmd), "sed 's/<worldbody>/<option integrator=\"test.nanstep\"\\/>"
                 "<worldbody>/' %s > %s.dump.xml && %s/bin/moduco dump %s.dump.xml %s %s 2>&1",
                 model, model, MODUCO_BINARY_DIR, model, cmds[k][1], check ? "--check" : "");
      }
      FILE* p = popen(cmd, "r");
      cr_assert_not_null(p);
      size_t n = fread(out, 1, sizeof(out) - 1, p);
      out[n] = 0;
      int status = pclose(p);
      int named = strstr(out, "plugin check: integrator 'test.nanstep'") != NULL;
      cr_expect_eq(named, check, "%s (check %d): %s", cmds[k][0], check, out);
      cr_expect_eq(status != 0, check, "%s (check %d): exit status %d", cmds[k][0], check,
                   status);
    }
  }
  char dump[64];
  snprintf(dump, sizeof(dump), "%s.dump.xml", model);
  remove(dump);
  remove(model);
}
