// Loads a pod on a vertical slide with a <thruster> (example.thruster) and two <speedometer>
// sensors (example.speedometer), all selected by element name from plugins found through
// MODUCO_PLUGIN_PATH. Runs it with full and with zero throttle and checks that the thrust lifts
// the pod (the simulation changes measurably), that the force follows the spin-up lag, and that
// the sensors read |v| and v along the nose. Exit status 0 when all hold.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>

static const char* kModel =
  "<mujoco>\n"
  "  <option timestep='0.002'/>\n"
  "  <worldbody>\n"
  "    <body name='pod' pos='0 0 1'>\n"
  "      <joint name='lift' type='slide' axis='0 0 1'/>\n"
  "      <geom type='box' size='.1 .1 .05' mass='1'/>\n"
  "      <site name='nose' quat='0.7071067811865476 0 -0.7071067811865476 0'/>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "  <actuator>\n"
  "    <thruster name='prop' joint='lift' thrust='20' spinup='0.05' ctrllimited='true'\n"
  "              ctrlrange='0 1'/>\n"
  "  </actuator>\n"
  "  <sensor>\n"
  "    <speedometer name='speed' objtype='body' objname='pod' mode='speed'/>\n"
  "    <speedometer name='climb' objtype='site' objname='nose' mode='forward'/>\n"
  "  </sensor>\n"
  "</mujoco>\n";


// run 1 s at a throttle; return the height change, or NAN on a failed check
static double run(double throttle, int* bad) {
  char error[1024];
  mcModel* m = mc_loadXMLString(kModel, NULL, error, sizeof(error));
  if (!m) {
    fprintf(stderr, "load: %s\n", error);
    *bad = 1;
    return NAN;
  }
  mcData* d = mc_makeData(m);
  double h = m->opt.timestep, t = 0;
  for (int k = 0; k < 500; k++) {
    d->ctrl[0] = throttle;
    mc_step(m, d);
    t += h;
  }

  // the spin-up state after t: throttle (1 - exp(-t / 0.05)); the force 20 times it
  mc_forward(m, d);
  double spin = throttle * (1 - exp(-t / 0.05));
  if (fabs(d->act[0] - spin) > 1e-9 || fabs(d->actuator_force[0] - 20 * d->act[0]) > 1e-12) {
    fprintf(stderr, "throttle %g: act %.12g (expected %.12g), force %.12g\n", throttle,
            d->act[0], spin, d->actuator_force[0]);
    *bad = 1;
  }

  // the sensors at the current state
  double v = d->qvel[0];
  if (fabs(d->sensordata[0] - fabs(v)) > 1e-12 || fabs(d->sensordata[1] - v) > 1e-12) {
    fprintf(stderr, "throttle %g: speed %.15g climb %.15g, qvel %.15g\n", throttle,
            d->sensordata[0], d->sensordata[1], v);
    *bad = 1;
  }
  printf("throttle %g: height %+.6f m, velocity %+.6f m/s, speed sensor %.6f, climb sensor "
         "%+.6f\n", throttle, d->qpos[0], v, d->sensordata[0], d->sensordata[1]);
  double z = d->qpos[0];
  mc_deleteData(d);
  mc_deleteModel(m);
  return z;
}


int main(void) {
  int bad = 0;
  double up = run(1, &bad), down = run(0, &bad);
  if (bad || !isfinite(up) || !isfinite(down)) {
    return 1;
  }

  // thrust 20 N against 9.81 N of weight: the pod climbs; without it, it falls ~g/2 t^2
  if (!(up > 1 && down < -4)) {
    fprintf(stderr, "no measurable effect of the thruster: %g vs %g\n", up, down);
    return 1;
  }
  printf("example.thruster and example.speedometer used\n");
  return 0;
}
