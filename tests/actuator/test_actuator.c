// General and shortcut actuators (core fast path and the 'general' plugin, muscles included)
// against MuJoCo 2.2.2: actuator_force, act_dot, qfrc_actuator and act after a step, to 1e-9
// relative (scale max(1, |ref|)).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <moduco/mcplugin.h>

#include "conformance.h"
#include "testutil.h"

#define TOL 1e-9


//---------------------------------- helpers -------------------------------------------------------

// compare two arrays with the relative tolerance
static void expectNear(const char* what, const char* label, const double* got, const double* ref,
                       int n) {
  for (int i = 0; i < n; i++) {
    double e = fabs(got[i] - ref[i]) / fmax(1, fabs(ref[i]));
    cr_expect(e <= TOL, "%s %s[%d]: moduco %.15g mujoco %.15g", label, what, i, got[i], ref[i]);
  }
}


// load a file in both engines; MuJoCo's simulated muscle length ranges are copied over (they are
// checked separately, to the tolerance of the simulation)
static void loadFile(ConfPair* p, const char* path, const char* dir) {
  char* xml = tu_readFile(path);
  cr_assert(xml, "cannot read %s", path);
  char err[1024] = "";
  int rc = conf_load(p, path, xml, dir, err, sizeof(err));
  free(xml);
  cr_assert_eq(rc, 0, "%s", err);
}


static void copyLengthRange(ConfPair* p) {
  memcpy(p->mc->actuator_lengthrange, p->mj->actuator_lengthrange,
         sizeof(double) * 2 * (size_t)p->mj->nu);
}


// MuJoCo 2.2.2 returns the inverted middle branch of the active force-length curve below lmin
// (later MuJoCo and Moduco return 0 there); states with a muscle below lmin are not compared
static int belowLmin(const ConfPair* p) {
  const mjModel* m = p->mj;
  for (int i = 0; i < m->nu; i++) {
    if (m->actuator_gaintype[i] != mjGAIN_MUSCLE) {
      continue;
    }
    const double* prm = m->actuator_gainprm + mjNGAIN * i;
    const double* lr = m->actuator_lengthrange + 2 * i;
    double L0 = (lr[1] - lr[0]) / fmax(mjMINVAL, prm[1] - prm[0]);
    double L = prm[0] + (p->dj->actuator_length[i] - lr[0]) / fmax(mjMINVAL, L0);
    if (L < prm[4]) {
      return 1;
    }
  }
  return 0;
}


// random states: forward compare, then one step from the same state and compare act
static void compareActuation(ConfPair* p, int nstate, unsigned long long seed) {
  ConfRng r;
  conf_seed(&r, seed);
  int nu = p->mj->nu, na = p->mj->na, nv = p->mj->nv;
  for (int s = 0; s < nstate && s < 2000; s++) {
    conf_randomState(p, &r);
    char label[256];
    snprintf(label, sizeof(label), "%s state %d", p->name, s);
    mj_forward(p->mj, p->dj);
    mc_forward(p->mc, p->dc);
    if (belowLmin(p)) {
      nstate++;
      continue;
    }
    expectNear("actuator_force", label, p->dc->actuator_force, p->dj->actuator_force, nu);
    expectNear("act_dot", label, p->dc->act_dot, p->dj->act_dot, na);
    expectNear("qfrc_actuator", label, p->dc->qfrc_actuator, p->dj->qfrc_actuator, nv);
    mj_step(p->mj, p->dj);
    mc_step(p->mc, p->dc);
    expectNear("act after step", label, p->dc->act, p->dj->act, na);
  }
}


// bind every actuator to the 'general' plugin (the plugin must already be in the model)
static int bindAllToPlugin(mcModel* m) {
  int g = -1;
  for (int i = 0; i < m->nplugin; i++) {
    if (m->plugin[i]->kind == mcpKIND_ACTUATOR && !strcmp(m->plugin[i]->name, "general")) {
      g = i;
    }
  }
  if (g < 0) {
    return 0;
  }
  for (int i = 0; i < m->nu; i++) {
    m->actuator_plugin[i] = g;
  }
  return 1;
}


//---------------------------------- dedicated model -----------------------------------------------

#define ALL_MODEL MODUCO_SOURCE_DIR "/tests/actuator/models/actuators_all.xml"


Test(actuator, all_types_vs_mujoco) {
  ConfPair p;
  loadFile(&p, ALL_MODEL, NULL);
  copyLengthRange(&p);
  compareActuation(&p, 40, 1);
  conf_free(&p);
}


Test(actuator, all_types_through_plugin_vs_mujoco) {
  ConfPair p;
  loadFile(&p, ALL_MODEL, NULL);
  copyLengthRange(&p);
  cr_assert(bindAllToPlugin(p.mc), "the general plugin is not bound (no muscle?)");
  compareActuation(&p, 40, 2);
  conf_free(&p);
}


Test(actuator, fast_path_is_plugin_free) {
  ConfPair p;
  loadFile(&p, ALL_MODEL, NULL);
  for (int i = 0; i < p.mc->nu; i++) {
    int muscle = p.mc->actuator_gaintype[i] == mcGAIN_MUSCLE ||
                 p.mc->actuator_biastype[i] == mcBIAS_MUSCLE ||
                 p.mc->actuator_dyntype[i] == mcDYN_MUSCLE;
    cr_expect_eq(p.mc->actuator_plugin[i] >= 0, muscle, "actuator %d", i);
  }
  conf_free(&p);
}


Test(actuator, muscle_lengthrange_simulated) {
  ConfPair p;
  loadFile(&p, ALL_MODEL, NULL);
  for (int i = 0; i < 2 * p.mj->nu; i++) {
    double a = p.mc->actuator_lengthrange[i], b = p.mj->actuator_lengthrange[i];
    cr_expect(fabs(a - b) <= 2e-3 * fmax(1, fabs(b)), "lengthrange[%d]: %.10g vs %.10g", i, a, b);
  }
  conf_free(&p);
}


Test(actuator, trajectory_vs_mujoco) {
  ConfPair p;
  loadFile(&p, ALL_MODEL, NULL);
  copyLengthRange(&p);
  ConfRng r;
  conf_seed(&r, 9);
  for (int s = 0; s < 300; s++) {
    for (int i = 0; i < p.mj->nu; i++) {
      p.dj->ctrl[i] = p.dc->ctrl[i] = conf_uniform(&r, -1.2, 1.2);
    }
    mj_step(p.mj, p.dj);
    mc_step(p.mc, p.dc);
    char label[32];
    snprintf(label, sizeof(label), "step %d", s);
    if (belowLmin(&p)) {
      continue;
    }
    expectNear("actuator_force", label, p.dc->actuator_force, p.dj->actuator_force, p.mj->nu);
    expectNear("act", label, p.dc->act, p.dj->act, p.mj->na);
    // re-synchronize the state so errors do not grow chaotically
    memcpy(p.dc->qpos, p.dj->qpos, sizeof(double) * (size_t)p.mj->nq);
    memcpy(p.dc->qvel, p.dj->qvel, sizeof(double) * (size_t)p.mj->nv);
    memcpy(p.dc->act, p.dj->act, sizeof(double) * (size_t)p.mj->na);
    memcpy(p.dc->qacc_warmstart, p.dj->qacc_warmstart, sizeof(double) * (size_t)p.mj->nv);
  }
  conf_free(&p);
}


//---------------------------------- Debian sample models ------------------------------------------

static void sample(const char* rel, int bind) {
  char path[1024], dir[1024];
  snprintf(path, sizeof(path), "/usr/share/mujoco/model/%s", rel);
  snprintf(dir, sizeof(dir), "%s", path);
  *strrchr(dir, '/') = 0;
  ConfPair p;
  loadFile(&p, path, dir);
  copyLengthRange(&p);
  if (bind) {
    bindAllToPlugin(p.mc);
  }
  compareActuation(&p, 20, 3);
  conf_free(&p);
}


Test(actuator_models, arm26_muscles) {
  sample("tendon_arm/arm26.xml", 0);
}


Test(actuator_models, arm26_lengthrange) {
  ConfPair p;
  loadFile(&p, "/usr/share/mujoco/model/tendon_arm/arm26.xml", "/usr/share/mujoco/model/tendon_arm");
  for (int i = 0; i < 2 * p.mj->nu; i++) {
    double a = p.mc->actuator_lengthrange[i], b = p.mj->actuator_lengthrange[i];
    cr_expect(fabs(a - b) <= 2e-3 * fmax(1, fabs(b)), "lengthrange[%d]: %.10g vs %.10g", i, a, b);
  }
  conf_free(&p);
}


Test(actuator_models, humanoid_motors) {
  sample("humanoid/humanoid.xml", 0);
}


Test(actuator_models, slider_crank) {
  sample("slider_crank/slider_crank.xml", 0);
}


//---------------------------------- Moduco-only semantics -----------------------------------------

// actearly and filterexact: the force uses the next activation, integrated in closed form
Test(actuator, actearly_filterexact_closed_form) {
  const char* xml =
    "<mujoco><option timestep='0.01'/><worldbody><body><joint name='j' axis='0 1 0'/>"
    "<geom size='.1'/></body></worldbody><actuator>"
    "<general joint='j' dyntype='filterexact' dynprm='0.05' gainprm='2' actearly='true'/>"
    "<general joint='j' dyntype='filter' dynprm='0.05' gainprm='3'/>"
    "</actuator></mujoco>";
  char err[512] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  d->ctrl[0] = 1;
  d->ctrl[1] = 1;
  d->act[0] = 0.2;
  d->act[1] = 0.2;
  mc_forward(m, d);
  double h = 0.01, tau = 0.05;
  double next = 0.2 + (1 - 0.2) * (1 - exp(-h / tau));
  cr_expect(fabs(d->actuator_force[0] - 2 * next) < 1e-12, "%.15g", d->actuator_force[0]);
  cr_expect(fabs(d->actuator_force[1] - 3 * 0.2) < 1e-12);
  mc_step(m, d);
  cr_expect(fabs(d->act[0] - next) < 1e-12);
  cr_expect(fabs(d->act[1] - (0.2 + h * (1 - 0.2) / tau)) < 1e-12);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// two force-limited actuators on one joint: each clamped on its own, forces summed
Test(actuator, two_forcelimited_on_one_joint) {
  const char* xml =
    "<mujoco><worldbody><body><joint name='j' axis='0 1 0'/><geom size='.1'/></body></worldbody>"
    "<actuator><motor joint='j' gear='2' forcerange='-1 1'/><motor joint='j' forcerange='-.5 .25'/>"
    "</actuator></mujoco>";
  char err[512] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  d->ctrl[0] = 3;
  d->ctrl[1] = 3;
  mc_forward(m, d);
  cr_expect_eq(d->actuator_force[0], 1);
  cr_expect_eq(d->actuator_force[1], 0.25);
  cr_expect(fabs(d->qfrc_actuator[0] - 2.25) < 1e-15);
  mc_deleteData(d);
  mc_deleteModel(m);
}
