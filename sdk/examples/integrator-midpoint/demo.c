// Loads one model twice, once with <option integrator="example.midpoint"/> and once with
// integrator="Euler", steps both and prints how far the trajectories drift apart. Exit status 0
// when the plugin was used (the trajectories differ measurably and stay finite).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>

static const char* kModel =
  "<mujoco>\n"
  "  <option timestep='0.01' integrator='%s'/>\n"
  "  <worldbody>\n"
  "    <body pos='0 0 1'>\n"
  "      <joint type='hinge' axis='0 1 0'/>\n"
  "      <geom type='capsule' fromto='0 0 0 0.5 0 0' size='0.05'/>\n"
  "      <body pos='0.5 0 0'>\n"
  "        <joint type='hinge' axis='0 1 0'/>\n"
  "        <geom type='capsule' fromto='0 0 0 0.5 0 0' size='0.05'/>\n"
  "      </body>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "</mujoco>\n";


// load the model with an integrator, step it, return qpos[0..1] at the end
static int run(const char* integrator, int nstep, double out[2]) {
  char xml[2048], error[1024];
  snprintf(xml, sizeof(xml), kModel, integrator);
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  if (!m) {
    fprintf(stderr, "%s: %s\n", integrator, error);
    return -1;
  }
  mcData* d = mc_makeData(m);
  d->qvel[0] = 1;
  for (int i = 0; i < nstep; i++) {
    mc_step(m, d);
  }
  out[0] = d->qpos[0];
  out[1] = d->qpos[1];
  mc_deleteData(d);
  mc_deleteModel(m);
  return 0;
}


int main(void) {
  // the plugins the core found
  for (int i = 0; i < mc_pluginCount(); i++) {
    mcPluginInfo info;
    mc_pluginInfo(i, &info);
    printf("%-20s %-11s %s\n", info.name, info.kind, info.file);
  }

  // the two trajectories
  double mid[2], euler[2];
  if (run("example.midpoint", 200, mid) || run("Euler", 200, euler)) {
    return 1;
  }
  double diff = fabs(mid[0] - euler[0]) + fabs(mid[1] - euler[1]);
  printf("qpos after 200 steps: midpoint %.9f %.9f, euler %.9f %.9f, |difference| %.3g\n",
         mid[0], mid[1], euler[0], euler[1], diff);
  return isfinite(diff) && diff > 1e-4 ? 0 : 2;
}
