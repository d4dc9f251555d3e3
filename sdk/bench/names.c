// Moduco bench: names used by the reports, and clocks.
#include <string.h>
#include <time.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "bench.h"

static const char* const kTimerName[mcNTIMER] = {
  "step", "forward", "inverse", "position", "velocity", "actuation", "acceleration",
  "constraint", "pos_kinematics", "pos_inertia", "pos_collision", "pos_make", "pos_project",
  "integrator", "sensor", "postsolver"};

static const char* const kWarningName[mcNWARNING] = {
  "inertia", "contactfull", "cnstrfull", "vgeomfull", "badqpos", "badqvel", "badqacc",
  "badctrl", "plugincheck"};


const char* mcb_timerName(int timer) {
  return timer >= 0 && timer < mcNTIMER ? kTimerName[timer] : "?";
}


const char* mcb_engineName(int engine) {
  return engine == mcbENGINE_MODUCO ? "moduco" : "mujoco-2.2.2";
}


const char* mcb_warningName(int warning) {
  return warning >= 0 && warning < mcNWARNING ? kWarningName[warning] : "?";
}


void mcb_pluginSlotKind(const mcModel* m, int slot, const char** kind, const char** stage) {
  *kind = "?";
  *stage = "?";
  if (slot == mcTIMERPLUGIN_INTEGRATOR) {
    *kind = "integrator", *stage = "integrator";
  } else if (slot == mcTIMERPLUGIN_SOLVER) {
    *kind = "solver", *stage = "constraint";
  } else if (slot == mcTIMERPLUGIN_POSTSOLVER) {
    *kind = "postsolver", *stage = "postsolver";
  } else if (slot < mcTIMERPLUGIN_ELEMENT) {
    *kind = "collision", *stage = "pos_collision";
  } else {
    // an element slot names an actuator or sensor plugin the model has instances of
    const char* name = mc_timerPluginName(m, slot);
    for (int i = 0; name && i < m->nplugin; i++) {
      if (m->plugin[i] && m->plugin[i]->name && !strcmp(m->plugin[i]->name, name)) {
        int k = (int)m->plugin[i]->kind;
        *kind = k == mcpKIND_ACTUATOR ? "actuator" : "sensor";
        *stage = k == mcpKIND_ACTUATOR ? "actuation" : "sensor";
        break;
      }
    }
  }
}


const char* mcb_integratorName(const mcModel* m) {
  if (m->integrator && m->integrator->hdr.name) {
    return m->integrator->hdr.name;
  }
  return m->opt.integrator_name[0] ? m->opt.integrator_name : "none";
}


const char* mcb_solverName(const mcModel* m) {
  if (m->solver && m->solver->hdr.name) {
    return m->solver->hdr.name;
  }
  return "none";
}


double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


// CPU seconds used by the process (all threads); unlike wall time, not inflated while the
// threads wait for a core on a loaded machine
double bench_cpuNow(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


// the file name without folders
const char* bench_baseName(const char* path) {
  const char* s = strrchr(path, '/');
  return s ? s + 1 : path;
}
