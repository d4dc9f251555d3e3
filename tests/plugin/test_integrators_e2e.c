// End to end: models loaded by Moduco and stepped with mc_step (the euler / rk4 plugins chosen
// by <option integrator>) against MuJoCo 2.2.2's mj_step, 200 steps, to 1e-7.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include <moduco/moduco.h>
#include "testutil.h"

#define NSTEP 200
#define TOL 1e-7

// a chain with damping, a free body, filter and limited integrator activations; no contacts
static const char* kModel =
  "<mujoco>\n"
  "  <option timestep='0.005' integrator='%s'/>\n"
  "  <worldbody>\n"
  "    <body pos='0 0 1'>\n"
  "      <joint name='j0' type='hinge' axis='0 1 0' damping='%s'/>\n"
  "      <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.05'/>\n"
  "      <body pos='0.3 0 0'>\n"
  "        <joint name='j1' type='ball' damping='%s'/>\n"
  "        <geom type='capsule' fromto='0 0 0 0.3 0.1 0' size='0.05'/>\n"
  "      </body>\n"
  "    </body>\n"
  "    <body pos='1 0 1'><freejoint/><geom type='box' size='0.1 0.2 0.05'/></body>\n"
  "  </worldbody>\n"
  "  <actuator>\n"
  "    <general joint='j0' dyntype='filter' dynprm='0.05' gainprm='2' ctrlrange='-1 1'\n"
  "             ctrllimited='true'/>\n"
  "    <general joint='j0' dyntype='integrator' gainprm='1' actlimited='true'\n"
  "             actrange='-0.3 0.3'/>\n"
  "  </actuator>\n"
  "</mujoco>\n";


// largest |a - b| / max(1, |b|)
static double maxdiff(const double* a, const double* b, int n) {
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double e = fabs(a[i] - b[i]) / fmax(1, fabs(b[i]));
    worst = e > worst || isnan(e) ? e : worst;
  }
  return worst;
}


// test the plugins of this build tree (not an older installed copy)
static void setup(void) {
  setenv("MODUCO_PLUGIN_PATH", MODUCO_BUILD_PLUGIN_DIR, 1);
}


TestSuite(plugin_integrators_e2e, .init = setup);


static void compare(const char* integrator, const char* damping) {
  // the same XML for both engines
  char xml[4096];
  snprintf(xml, sizeof(xml), kModel, integrator, damping, damping);
  char path[] = "/tmp/moduco-e2e-XXXXXX.xml";
  int fd = mkstemps(path, 4);
  cr_assert_geq(fd, 0);
  FILE* f = fdopen(fd, "w");
  fputs(xml, f);
  fclose(f);
  char err[1024];
  mjModel* mjm = mj_loadXML(path, NULL, err, sizeof(err));
  cr_assert_not_null(mjm, "MuJoCo: %s", err);
  mcModel* m = mc_loadXML(path, err, sizeof(err));
  remove(path);
  cr_assert_not_null(m, "Moduco: %s", err);
  tu_legacyCollision(m);
  cr_assert_eq(m->nq, mjm->nq);
  cr_assert_eq(m->nv, mjm->nv);
  cr_assert_eq(m->na, mjm->na);

  // same initial state and controls
  mjData* mjd = mj_makeData(mjm);
  mcData* d = mc_makeData(m);
  for (int i = 0; i < m->nv; i++) {
    mjd->qvel[i] = d->qvel[i] = 0.3 * (i + 1) * (i % 2 ? -1 : 1);
  }
  for (int i = 0; i < m->nu; i++) {
    mjd->ctrl[i] = d->ctrl[i] = 0.8 - 0.3 * i;
  }

  // step both
  for (int s = 0; s < NSTEP; s++) {
    mj_step(mjm, mjd);
    mc_step(m, d);
    double e[4] = {maxdiff(d->qpos, mjd->qpos, m->nq), maxdiff(d->qvel, mjd->qvel, m->nv),
                   maxdiff(d->act, mjd->act, m->na), fabs(d->time - mjd->time)};
    for (int k = 0; k < 4; k++) {
      cr_assert_leq(e[k], TOL, "%s step %d: %s differs from mj_step by %g", integrator, s,
                    (const char*[]){"qpos", "qvel", "act", "time"}[k], e[k]);
    }
  }
  mc_deleteData(d);
  mc_deleteModel(m);
  mj_deleteData(mjd);
  mj_deleteModel(mjm);
}


Test(plugin_integrators_e2e, euler_damped) {
  compare("Euler", "0.5");
}


Test(plugin_integrators_e2e, euler_undamped) {
  compare("Euler", "0");
}


Test(plugin_integrators_e2e, rk4) {
  compare("RK4", "0.5");
}
