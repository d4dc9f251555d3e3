// moduco-bench-dcmotor: mc_step cost of a 20-link chain driven by 20 dcmotor actuators with all
// states on (slew, integral, thermal, LuGre, current; position input, cogging, drag, armature)
// against the same chain driven by 20 plain <motor> actuators (contacts off, so the cost does not
// depend on where the chain swings). Prints both and the ratio.
//   moduco-bench-dcmotor [steps]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <moduco/moduco.h>

#define NLINK 20


// the chain with one actuator element per joint
static mcModel* chain(int dc) {
  static char xml[65536];
  char err[1024];
  int n = snprintf(xml, sizeof(xml), "<mujoco><option timestep='0.001'><flag contact='disable'/>"
                   "</option><worldbody>");
  for (int i = 0; i < NLINK; i++) {
    n += snprintf(xml + n, sizeof(xml) - (size_t)n,
                  "<body pos='0 0 %s'><joint name='j%d' axis='0 1 0' damping='0.01'/>"
                  "<geom type='capsule' fromto='0 0 0 0 0 -0.1' size='0.02' mass='0.1'/>",
                  i ? "-0.1" : "0", i);
  }
  for (int i = 0; i < NLINK; i++) {
    n += snprintf(xml + n, sizeof(xml) - (size_t)n, "</body>");
  }
  n += snprintf(xml + n, sizeof(xml) - (size_t)n, "</worldbody><actuator>");
  for (int i = 0; i < NLINK; i++) {
    if (dc) {
      n += snprintf(xml + n, sizeof(xml) - (size_t)n,
                    "<dcmotor joint='j%d' gear='10' resistance='2' motorconst='0.02' "
                    "saturation='0 3 5000' inductance='0 0.0005' thermal='4 5 0 0.0039 25 25' "
                    "lugre='1e4 0.001 0.002 0.003 0.1' cogging='0.001 6 0' "
                    "damping='1e-5 1e-6 1e-7' armature='1e-6' input='position' "
                    "controller='20 5 0.5 10 1 12'/>", i);
    } else {
      n += snprintf(xml + n, sizeof(xml) - (size_t)n, "<motor joint='j%d' gear='10'/>", i);
    }
  }
  snprintf(xml + n, sizeof(xml) - (size_t)n, "</actuator></mujoco>");
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  if (!m) {
    fprintf(stderr, "%s\n", err);
  }
  return m;
}


// seconds per mc_step over nstep steps (best of 3 runs)
static double timeSteps(const mcModel* m, int nstep) {
  double best = 1e30;
  for (int rep = 0; rep < 3; rep++) {
    mcData* d = mc_makeData(m);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int s = 0; s < nstep; s++) {
      for (int i = 0; i < m->nu; i++) {
        d->ctrl[i] = 0.3 * ((s / 500 + i) % 3 - 1);
      }
      mc_step(m, d);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double t = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    best = t / nstep < best ? t / nstep : best;
    mc_deleteData(d);
  }
  return best;
}


int main(int argc, char** argv) {
  int nstep = argc > 1 ? atoi(argv[1]) : 20000;
  mcModel* dc = chain(1);
  mcModel* mo = chain(0);
  if (!dc || !mo) {
    return 1;
  }
  double tdc = timeSteps(dc, nstep), tmo = timeSteps(mo, nstep);
  printf("20 dcmotor (na=%d): %.3f us/step\n", dc->na, 1e6 * tdc);
  printf("20 motor   (na=%d): %.3f us/step\n", mo->na, 1e6 * tmo);
  printf("ratio dcmotor/motor: %.3f\n", tdc / tmo);
  mc_deleteModel(dc);
  mc_deleteModel(mo);
  return 0;
}
