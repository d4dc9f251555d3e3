// Check mode over the built-in plugins: every solver (with and without noslip) x cone x Jacobian,
// every integrator, the collision pairs, the actuator and sensor plugins, on the bundled models,
// a few corpus models and a model made to raise every row type, with check mode on: no check
// warning may be raised. Also the switch itself (mc_setPluginCheck, MODUCO_PLUGIN_CHECK).
#include <math.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

static const char* const kModels[] = {
  MODUCO_SOURCE_DIR "/models/pendulum.xml",
  MODUCO_SOURCE_DIR "/models/double_pendulum.xml",
  MODUCO_SOURCE_DIR "/models/chain.xml",
  MODUCO_SOURCE_DIR "/models/humanoid.xml",
  "/work/shared/corpus/gym_ant/ant.xml",
  "/work/shared/corpus/dm_ball_in_cup/ball_in_cup.xml",
  "/work/shared/corpus/dm_stacker/stacker.xml",
  "/work/shared/corpus/dm_quadruped/quadruped.xml",
  "/work/shared/corpus/mj_arm26/arm26.xml",
};
#define NMODEL ((int)(sizeof(kModels) / sizeof(kModels[0])))

// every constraint row type (equality, dof and tendon friction, joint and tendon limits, contacts
// of spheres, capsules, boxes, cylinders and ellipsoids), core and plugin actuators with
// activations, and sensors of several stages
static const char kRows[] =
  "<mujoco><option timestep='0.002'/>"
  "<asset><hfield name='hf' nrow='3' ncol='3' size='.5 .5 .1 .05' "
  "elevation='0 .2 0 .3 1 .4 0 .1 0'/></asset>"
  "<worldbody><geom type='plane' size='5 5 .1'/>"
  "<geom type='hfield' hfield='hf' pos='3 0 0'/>"
  "<body name='a' pos='0 0 .1'><freejoint/><geom type='box' size='.3 .3 .1'/>"
  "<site name='sa'/></body>"
  "<body name='b' pos='.1 0 .32'><freejoint/><geom type='sphere' size='.1'/></body>"
  "<body name='c' pos='-.2 .1 .8' euler='30 20 0'><freejoint/>"
  "<geom type='capsule' size='.05 .15'/></body>"
  "<body name='e' pos='-.1 -.1 .35'><freejoint/><geom type='cylinder' size='.08 .1'/></body>"
  "<body name='f' pos='.15 .15 .3'><freejoint/><geom type='ellipsoid' size='.1 .07 .05'/>"
  "</body>"
  "<body name='g' pos='3 0 .3'><freejoint/><geom type='sphere' size='.08'/></body>"
  "<body name='k' pos='3.2 .1 .3'><freejoint/><geom type='box' size='.06 .06 .06'/></body>"
  "<body name='arm' pos='1 0 1'><joint name='h1' type='hinge' axis='0 1 0' limited='true' "
  "range='-30 3' frictionloss='.2'/><geom type='capsule' fromto='0 0 0 .3 0 0' size='.03'/>"
  "<site name='tip' pos='.3 0 0'/>"
  "<body pos='.3 0 0'><joint name='h2' type='hinge' axis='0 1 0' frictionloss='.1'/>"
  "<geom type='capsule' fromto='0 0 0 .3 0 0' size='.03'/><site name='tip2' pos='.3 0 0'/>"
  "</body></body></worldbody>"
  "<tendon><fixed name='t' limited='true' range='-.06 .5' frictionloss='.05'>"
  "<joint joint='h1' coef='1'/></fixed></tendon>"
  "<equality><joint joint1='h1' joint2='h2' polycoef='0 .5 0 0 0'/></equality>"
  "<actuator><motor name='m1' joint='h1' gear='2'/>"
  "<general joint='h2' dyntype='filter' dynprm='.05' gainprm='1'/>"
  "<dcmotor joint='h2' resistance='2' motorconst='0.1'/></actuator>"
  "<sensor><jointpos joint='h1'/><framepos objtype='site' objname='tip'/>"
  "<velocimeter site='sa'/><accelerometer site='sa'/><touch site='sa'/>"
  "<actuatorfrc actuator='m1'/><tendonpos tendon='t'/><framequat objtype='body' objname='c'/>"
  "</sensor></mujoco>";

static const char* const kSolvers[] = {"newton", "cg", "pgs"};
static const char* const kIntegrators[] = {"euler", "rk4", "implicit", "implicitfast"};


// step a model under check mode with the given options; return the number of check warnings
static int runChecked(mcModel* m, const char* solver, const char* integrator, int cone,
                      int jacobian, int noslip, int nstep, int drive) {
  char err[512];
  cr_assert_eq(mc_setSolver(m, solver, err, sizeof(err)), 0, "%s", err);
  cr_assert_eq(mc_setIntegrator(m, integrator, err, sizeof(err)), 0, "%s", err);
  m->opt.cone = cone;
  m->opt.jacobian = jacobian;
  m->opt.noslip_iterations = noslip;
  mcData* d = mc_makeData(m);
  cr_assert_not_null(d);
  mc_setPluginCheck(d, 1);
  for (int i = 0; i < m->nu; i++) {
    d->ctrl[i] = 0.3 * ((i % 3) - 1);
  }
  for (int t = 0; t < nstep && !d->warning[mcWARN_PLUGINCHECK].number; t++) {
    if (m->nu && drive) {  // the rows model: to both limits and back
      d->ctrl[0] = (t / 150) % 2 ? -10 : 10;
    }
    mc_step(m, d);
  }
  int n = d->warning[mcWARN_PLUGINCHECK].number;
  cr_expect_eq(d->warning[mcWARN_BADQVEL].number + d->warning[mcWARN_BADQACC].number +
               d->warning[mcWARN_BADQPOS].number, 0, "%s/%s: the run diverged", solver,
               integrator);
  mc_deleteData(d);
  return n;
}


static mcModel* loadFile(const char* file) {
  char err[1024];
  mcModel* m = mc_loadXML(file, err, sizeof(err));
  cr_assert_not_null(m, "%s: %s", file, err);
  return m;
}


// every solver x cone x Jacobian x noslip on one model
static void solverMatrix(mcModel* m, const char* what, int nstep, int drive) {
  for (int s = 0; s < 3; s++) {
    for (int cone = 0; cone < 2; cone++) {
      for (int jac = 0; jac < 2; jac++) {
        for (int noslip = 0; noslip <= 3; noslip += 3) {
          int n = runChecked(m, kSolvers[s], "euler", cone, jac, noslip, nstep, drive);
          cr_expect_eq(n, 0, "%s: solver %s cone %d jacobian %d noslip %d: %d check warnings",
                       what, kSolvers[s], cone, jac, noslip, n);
        }
      }
    }
  }
}


TestSuite(plugin_check);


// the rows model does exercise what it claims: every row type, the collision plugins (convex
// pairs by gjk with nativeccd, the default, by convex without), actuator and sensor plugins
Test(plugin_check, rows_model_coverage) {
  char err[1024];
  mcModel* m = mc_loadXMLString(kRows, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  for (int run = 0; run < 4; run++) {
    int cone = run % 2, native = run < 2;
    m->opt.cone = cone;
    m->opt.enableflags = native ? m->opt.enableflags | mcENBL_NATIVECCD :
                                  m->opt.enableflags & ~mcENBL_NATIVECCD;
    mcData* d = mc_makeData(m);
    d->profile = 1;
    int seen[8] = {0};
    for (int t = 0; t < 300; t++) {
      d->ctrl[0] = t < 150 ? 10 : -10;
      mc_step(m, d);
      for (int i = 0; i < d->nefc; i++) {
        seen[d->efc_type[i]] = 1;
      }
    }
    for (int type = 0; type < 8; type++) {
      int expect = type == mcCNSTR_CONTACT_FRICTIONLESS ? 0 :
                   type == mcCNSTR_CONTACT_PYRAMIDAL ? !cone :
                   type == mcCNSTR_CONTACT_ELLIPTIC ? cone : 1;
      cr_expect_eq(seen[type], expect, "cone %d: row type %d seen %d", cone, type, seen[type]);
    }
    const char* const collide[] = {"primitive", native ? "gjk" : "convex", "hfield"};
    for (int k = 0; k < 3; k++) {
      int calls = 0;
      for (int s = mcTIMERPLUGIN_COLLISION; s < mcTIMERPLUGIN_ELEMENT; s++) {
        const char* name = mc_timerPluginName(m, s);
        if (name && !strcmp(name, collide[k])) {
          calls += d->timer_plugin[s].number;
        }
      }
      cr_expect_gt(calls, 0, "collision plugin %s not called", collide[k]);
    }
    mc_deleteData(d);
  }
  int nact = 0, nsens = 0;
  for (int i = 0; i < m->nu; i++) {
    nact += m->actuator_plugin[i] >= 0;
  }
  for (int i = 0; i < m->nsensor; i++) {
    nsens += m->sensor_plugin[i] >= 0;
  }
  cr_expect_geq(nact, 1, "actuator plugins");

  // arm26's muscles run on the general plugin
  mcModel* arm = loadFile(kModels[NMODEL - 1]);
  cr_expect_gt(arm->nu, 0);
  for (int i = 0; i < arm->nu; i++) {
    cr_expect_geq(arm->actuator_plugin[i], 0, "arm26 actuator %d has no plugin", i);
  }
  mc_deleteModel(arm);
  cr_expect_eq(nsens, m->nsensor, "sensor plugins");
  mc_deleteModel(m);
}


Test(plugin_check, solvers_on_every_row_type) {
  char err[1024];
  mcModel* m = mc_loadXMLString(kRows, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_gt(m->nu, 2);
  solverMatrix(m, "rows model", 600, 1);
  mc_deleteModel(m);
}


Test(plugin_check, solvers_on_bundled_and_corpus_models, .timeout = 900) {
  for (int i = 0; i < NMODEL; i++) {
    mcModel* m = loadFile(kModels[i]);
    solverMatrix(m, kModels[i], 150, 0);
    mc_deleteModel(m);
  }
}


Test(plugin_check, integrators_on_every_model) {
  char err[1024];
  for (int i = -1; i < NMODEL; i++) {
    mcModel* m = i < 0 ? mc_loadXMLString(kRows, NULL, err, sizeof(err)) : loadFile(kModels[i]);
    cr_assert_not_null(m, "%s", err);
    for (int k = 0; k < 4; k++) {
      // rk4 on dm_stacker diverges within three steps with or without check mode (a known
      // issue of that pairing, reported separately); the other integrators run it
      if (k == 1 && i >= 0 && strstr(kModels[i], "stacker")) {
        continue;
      }
      int n = runChecked(m, "newton", kIntegrators[k], 0, 0, 0, 400, i < 0);
      cr_expect_eq(n, 0, "%s: integrator %s: %d check warnings", i < 0 ? "rows" : kModels[i],
                   kIntegrators[k], n);
    }
    mc_deleteModel(m);
  }
}


// every geom-type pair the built-in collision plugins cover: a fixed geom of each type and a free
// geom of each type over it, at several turns and depths; no check warning, and contacts found
Test(plugin_check, every_collision_pair) {
  static const char* const fixed[] = {
    "type='plane' size='1 1 .1'", "type='hfield' hfield='hf'", "type='sphere' size='.1'",
    "type='capsule' size='.08 .12'", "type='ellipsoid' size='.12 .09 .07'",
    "type='cylinder' size='.1 .08'", "type='box' size='.1 .08 .06'", "type='mesh' mesh='tet'"};
  static const char* const assets =
    "<asset><hfield name='hf' nrow='3' ncol='3' size='.5 .5 .1 .05' "
    "elevation='0 .2 0 .3 1 .4 0 .1 0'/>"
    "<mesh name='tet' vertex='0 0 .15  .14 0 -.05  -.07 .12 -.05  -.07 -.12 -.05'/></asset>";
  char xml[2048], err[1024];
  for (int a = 0; a < 8; a++) {
    for (int b = 2; b < 8; b++) {
      int found = 0;
      for (int k = 0; k < 6; k++) {
        double z = (a == 1 ? 0.1 : 0) + 0.06 + 0.04 * (k % 3);
        snprintf(xml, sizeof(xml), "<mujoco>%s<worldbody><geom %s/><body pos='.01 .02 %g' "
                 "euler='%d %d %d'><freejoint/><geom %s/></body></worldbody></mujoco>", assets,
                 fixed[a], z, 17 * k, 29 * k + 5, 11 * k, fixed[b]);
        mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
        cr_assert_not_null(m, "%s", err);
        mcData* d = mc_makeData(m);
        mc_setPluginCheck(d, 1);
        for (int t = 0; t < 20; t++) {
          mc_step(m, d);
          found += d->ncon > 0;
        }
        cr_expect_eq(d->warning[mcWARN_PLUGINCHECK].number, 0, "pair %d-%d turn %d", a, b, k);
        mc_deleteData(d);
        mc_deleteModel(m);
      }
      cr_expect_gt(found, 0, "pair %s / %s: never in contact", fixed[a], fixed[b]);
    }
  }
}


// a capsule standing on a plane hands the core its axis, along the contact normal: the plugin
// must give a frame hint across the normal (the check refused the upright feet of dm_quadruped,
// the humanoid and the H1); on a flat plane the frame stays MuJoCo's (second axis world x)
Test(plugin_check, capsule_upright_on_plane) {
  static const char* const planes[] = {"0 0 0", "0 20 0", "30 0 45", "0 90 0"};
  char xml[1024], err[512];
  for (int p = 0; p < 4; p++) {
    snprintf(xml, sizeof(xml), "<mujoco><worldbody><body euler='%s'><geom type='plane' "
             "size='1 1 .1'/><body pos='0 0 .199'><joint type='slide' axis='0 0 1'/><geom type='capsule' "
             "size='.05 .15'/></body></body></worldbody></mujoco>", planes[p]);
    mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
    cr_assert_not_null(m, "%s", err);
    mcData* d = mc_makeData(m);
    mc_setPluginCheck(d, 1);
    mc_forward(m, d);
    cr_assert_gt(d->ncon, 0, "plane %s: the capsule's lower end touches", planes[p]);
    for (int i = 0; i < d->ncon; i++) {
      const mcNum* f = d->contact[i].frame;
      cr_expect_lt(fabs(f[0]*f[3] + f[1]*f[4] + f[2]*f[5]), 1e-12, "plane %s: frame not "
                   "orthogonal", planes[p]);
      if (p == 0) {
        cr_expect(f[3] == 1 && f[4] == 0 && f[5] == 0, "flat plane: second axis (%g %g %g)",
                  f[3], f[4], f[5]);
      }
    }
    for (int t = 0; t < 10; t++) {
      mc_step(m, d);
    }
    cr_expect_eq(d->warning[mcWARN_PLUGINCHECK].number, 0, "plane %s", planes[p]);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


Test(plugin_check, switch_and_environment) {
  char err[1024];
  mcModel* m = loadFile(kModels[0]);

  // off by default, on with the environment variable, on/off by the API
  unsetenv("MODUCO_PLUGIN_CHECK");
  mcData* d = mc_makeData(m);
  cr_assert_eq(d->plugin_check, 0);
  mc_setPluginCheck(d, 7);
  cr_assert_eq(d->plugin_check, 1);
  mc_setPluginCheck(d, 0);
  cr_assert_eq(d->plugin_check, 0);
  mc_deleteData(d);
  setenv("MODUCO_PLUGIN_CHECK", "1", 1);
  d = mc_makeData(m);
  cr_assert_eq(d->plugin_check, 1);
  mc_resetData(m, d);
  cr_assert_eq(d->plugin_check, 1, "a reset keeps the setting");
  mc_deleteData(d);
  setenv("MODUCO_PLUGIN_CHECK", "0", 1);
  d = mc_makeData(m);
  cr_assert_eq(d->plugin_check, 0);
  mc_deleteData(d);
  unsetenv("MODUCO_PLUGIN_CHECK");
  (void)err;
  mc_deleteModel(m);
}


Test(plugin_check, results_unchanged_by_check_mode) {
  // the checks only read: a checked run is bitwise the unchecked one
  char err[1024];
  mcModel* m = mc_loadXMLString(kRows, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  mcData* d1 = mc_makeData(m);
  mcData* d2 = mc_makeData(m);
  mc_setPluginCheck(d2, 1);
  for (int t = 0; t < 300; t++) {
    mc_step(m, d1);
    mc_step(m, d2);
  }
  cr_assert_eq(memcmp(d1->qpos, d2->qpos, sizeof(mcNum) * (size_t)m->nq), 0);
  cr_assert_eq(memcmp(d1->qvel, d2->qvel, sizeof(mcNum) * (size_t)m->nv), 0);
  cr_assert_eq(memcmp(d1->sensordata, d2->sensordata, sizeof(mcNum) * (size_t)m->nsensordata),
               0);
  cr_assert_eq(d2->warning[mcWARN_PLUGINCHECK].number, 0);
  mc_deleteData(d1);
  mc_deleteData(d2);
  mc_deleteModel(m);
}
