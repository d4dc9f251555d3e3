// Sensor conformance against MuJoCo 2.2.2: the same MJCF in both engines, random states (and
// states along a MuJoCo trajectory for contact models), sensordata compared to 1e-9 relative.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "conformance.h"

#define TOL 1e-9


//---------------------------------- helpers -------------------------------------------------------

// read a file into a string (caller frees)
static char* readText(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* s = malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = 0;
  fclose(f);
  return s;
}


// MuJoCo 2.2.2 sensor type -> ours (2.2.2 has no camprojection and no jointactuatorfrc)
static int mapType(int t) {
  if (t >= mjSENS_JOINTPOS && t <= mjSENS_ACTUATORFRC) {
    return t + 1;
  }
  if (t > mjSENS_ACTUATORFRC) {
    return t + 2;
  }
  return t;
}


// forward in both engines and compare every sensor; return the worst relative error
static double compareSensors(ConfPair* p, const char* label, int assert_ok) {
  mj_forward(p->mj, p->dj);
  mc_forward(p->mc, p->dc);
  cr_assert_eq(p->mc->nsensordata, p->mj->nsensordata, "%s: nsensordata", p->name);
  double worst = 0;
  for (int i = 0; i < p->mj->nsensor; i++) {
    cr_assert_eq(p->mc->sensor_type[i], mapType(p->mj->sensor_type[i]), "%s: sensor %d type",
                 p->name, i);
    int adr = p->mj->sensor_adr[i];
    for (int k = 0; k < p->mj->sensor_dim[i]; k++) {
      double a = p->dc->sensordata[adr + k], b = p->dj->sensordata[adr + k];
      double e = fabs(a - b) / fmax(1, fabs(b));
      worst = fmax(worst, e);
      if (assert_ok) {
        cr_expect(e <= TOL, "%s %s: sensor %d (mj type %d) [%d]: moduco %.15g mujoco %.15g",
                  p->name, label, i, p->mj->sensor_type[i], k, a, b);
      }
    }
  }
  return worst;
}


// copy MuJoCo's state into Moduco
static void copyState(ConfPair* p) {
  memcpy(p->dc->qpos, p->dj->qpos, sizeof(double) * (size_t)p->mj->nq);
  memcpy(p->dc->qvel, p->dj->qvel, sizeof(double) * (size_t)p->mj->nv);
  memcpy(p->dc->act, p->dj->act, sizeof(double) * (size_t)p->mj->na);
  memcpy(p->dc->ctrl, p->dj->ctrl, sizeof(double) * (size_t)p->mj->nu);
  memcpy(p->dc->qacc_warmstart, p->dj->qacc_warmstart, sizeof(double) * (size_t)p->mj->nv);
  memcpy(p->dc->qfrc_applied, p->dj->qfrc_applied, sizeof(double) * (size_t)p->mj->nv);
  memcpy(p->dc->xfrc_applied, p->dj->xfrc_applied, sizeof(double) * 6 * (size_t)p->mj->nbody);
  p->dc->time = p->dj->time;
}


// load a model text in both engines
static void load(ConfPair* p, const char* name, const char* xml, const char* dir) {
  char err[1024] = "";
  int rc = conf_load(p, name, xml, dir, err, sizeof(err));
  cr_assert_eq(rc, 0, "%s", err);
  // muscle length ranges are simulated by both compilers; use MuJoCo's (tests/actuator checks
  // ours separately)
  memcpy(p->mc->actuator_lengthrange, p->mj->actuator_lengthrange,
         sizeof(double) * 2 * (size_t)p->mj->nu);
}


// random states with applied Cartesian forces
static void randomStates(ConfPair* p, int n, unsigned long long seed) {
  ConfRng r;
  conf_seed(&r, seed);
  for (int s = 0; s < n; s++) {
    conf_randomState(p, &r);
    for (int k = 6; k < 6 * p->mj->nbody; k++) {
      double f = conf_uniform(&r, -2, 2);
      p->dj->xfrc_applied[k] = p->dc->xfrc_applied[k] = f;
    }
    p->dj->time = p->dc->time = conf_uniform(&r, 0, 10);
    char label[32];
    snprintf(label, sizeof(label), "state %d", s);
    compareSensors(p, label, 1);
  }
}


// along a MuJoCo trajectory from the initial state: copy, forward, compare, step MuJoCo
static void trajectory(ConfPair* p, int nstep, unsigned long long seed) {
  ConfRng r;
  conf_seed(&r, seed);
  for (int i = 0; i < p->mj->nu; i++) {
    p->dj->ctrl[i] = conf_uniform(&r, -1, 1);
  }
  for (int s = 0; s < nstep; s++) {
    copyState(p);
    char label[32];
    snprintf(label, sizeof(label), "step %d", s);
    compareSensors(p, label, 1);
    mj_step(p->mj, p->dj);
  }
}


//---------------------------------- dedicated models ----------------------------------------------

Test(sensor, all_types_random_states) {
  char* xml = readText(MODUCO_SOURCE_DIR "/tests/sensor/models/sensors_all.xml");
  cr_assert(xml);
  ConfPair p;
  load(&p, "sensors_all", xml, NULL);
  randomStates(&p, 20, 11);
  conf_free(&p);
  free(xml);
}


Test(sensor, all_types_trajectory_with_contacts) {
  char* xml = readText(MODUCO_SOURCE_DIR "/tests/sensor/models/sensors_all.xml");
  cr_assert(xml);
  ConfPair p;
  load(&p, "sensors_all", xml, NULL);
  trajectory(&p, 300, 5);
  conf_free(&p);
  free(xml);
}


Test(sensor, all_types_no_constraints) {
  char* xml = readText(MODUCO_SOURCE_DIR "/tests/sensor/models/sensors_all.xml");
  cr_assert(xml);
  char* free_xml = conf_disableContacts(xml);
  ConfPair p;
  load(&p, "sensors_all_nocon", free_xml, NULL);
  randomStates(&p, 20, 12);
  conf_free(&p);
  free(free_xml);
  free(xml);
}


Test(sensor, cutoff_and_noise_stored) {
  const char* xml =
    "<mujoco><worldbody><body><joint name='j' axis='0 1 0'/><geom size='.1'/></body>"
    "</worldbody><sensor><jointpos joint='j' cutoff='0.5' noise='0.25'/>"
    "<jointvel joint='j' cutoff='2'/><clock cutoff='3'/></sensor></mujoco>";
  ConfPair p;
  load(&p, "cutoff", xml, NULL);
  cr_expect_eq(p.mc->sensor_noise[0], 0.25);
  cr_expect_eq(p.mc->sensor_cutoff[0], 0.5);
  p.dj->qpos[0] = p.dc->qpos[0] = 0.9;
  p.dj->qvel[0] = p.dc->qvel[0] = -5;
  p.dj->time = p.dc->time = 7;
  compareSensors(&p, "cutoff", 1);
  cr_expect_eq(p.dc->sensordata[0], 0.5);
  cr_expect_eq(p.dc->sensordata[1], -2);
  cr_expect_eq(p.dc->sensordata[2], 3);
  conf_free(&p);
}


Test(sensor, disabled_flag_and_skipsensor) {
  const char* xml =
    "<mujoco><option><flag sensor='disable'/></option><worldbody><body><joint name='j'/>"
    "<geom size='.1'/></body></worldbody><sensor><jointpos joint='j'/></sensor></mujoco>";
  ConfPair p;
  load(&p, "disabled", xml, NULL);
  p.dc->qpos[0] = 0.3;
  mc_forward(p.mc, p.dc);
  cr_expect_eq(p.dc->sensordata[0], 0);
  conf_free(&p);
}


//---------------------------------- Debian sample models ------------------------------------------

// append sensors for every named joint, body, site, tendon and actuator of the MuJoCo model
static char* instrument(const char* xml, const mjModel* m) {
  ConfText t = {0};
  const char* end = strstr(xml, "</mujoco>");
  conf_printf(&t, "%.*s<sensor>\n", (int)(end - xml), xml);
  for (int i = 0; i < m->njnt; i++) {
    const char* n = m->names + m->name_jntadr[i];
    int type = m->jnt_type[i];
    if (!n[0]) {
      continue;
    }
    if (type == mjJNT_HINGE || type == mjJNT_SLIDE) {
      conf_printf(&t, "<jointpos joint='%s'/><jointvel joint='%s'/>\n", n, n);
    } else if (type == mjJNT_BALL) {
      conf_printf(&t, "<ballquat joint='%s'/><ballangvel joint='%s'/>\n", n, n);
    }
    if (m->jnt_limited[i]) {
      conf_printf(&t, "<jointlimitpos joint='%s'/><jointlimitvel joint='%s'/>"
                  "<jointlimitfrc joint='%s'/>\n", n, n, n);
    }
  }
  for (int i = 1; i < m->nbody; i++) {
    const char* n = m->names + m->name_bodyadr[i];
    if (!n[0]) {
      continue;
    }
    conf_printf(&t, "<framepos objtype='body' objname='%s'/><framequat objtype='xbody' "
                "objname='%s'/><framelinvel objtype='body' objname='%s'/><frameangvel "
                "objtype='xbody' objname='%s'/><framelinacc objtype='body' objname='%s'/>"
                "<frameangacc objtype='body' objname='%s'/><subtreecom body='%s'/>"
                "<subtreelinvel body='%s'/><subtreeangmom body='%s'/>\n",
                n, n, n, n, n, n, n, n, n);
  }
  for (int i = 0; i < m->nsite; i++) {
    const char* n = m->names + m->name_siteadr[i];
    if (!n[0]) {
      continue;
    }
    conf_printf(&t, "<touch site='%s'/><accelerometer site='%s'/><velocimeter site='%s'/>"
                "<gyro site='%s'/><force site='%s'/><torque site='%s'/>"
                "<magnetometer site='%s'/><rangefinder site='%s'/>\n", n, n, n, n, n, n, n, n);
  }
  for (int i = 0; i < m->ntendon; i++) {
    const char* n = m->names + m->name_tendonadr[i];
    if (n[0]) {
      conf_printf(&t, "<tendonpos tendon='%s'/><tendonvel tendon='%s'/>\n", n, n);
      if (m->tendon_limited[i]) {
        conf_printf(&t, "<tendonlimitpos tendon='%s'/><tendonlimitvel tendon='%s'/>"
                    "<tendonlimitfrc tendon='%s'/>\n", n, n, n);
      }
    }
  }
  for (int i = 0; i < m->nu; i++) {
    const char* n = m->names + m->name_actuatoradr[i];
    if (n[0]) {
      conf_printf(&t, "<actuatorpos actuator='%s'/><actuatorvel actuator='%s'/>"
                  "<actuatorfrc actuator='%s'/>\n", n, n, n);
    }
  }
  conf_printf(&t, "<clock/></sensor>\n</mujoco>\n");
  return t.buf;
}


// load a sample model, add sensors, compare along a trajectory and at random states
static void sampleModel(const char* rel, int contacts) {
  char path[1024], dir[1024];
  snprintf(path, sizeof(path), "/usr/share/mujoco/model/%s", rel);
  snprintf(dir, sizeof(dir), "%s", path);
  *strrchr(dir, '/') = 0;
  char* xml = readText(path);
  if (!xml) {
    cr_assert_fail("%s not installed (scripts/setup-debian.sh installs libmujoco-samples)", path);
  }
  char err[1024] = "";
  mjModel* mj = mj_loadXML(path, NULL, err, sizeof(err));
  cr_assert(mj, "%s", err);
  char* inst = instrument(xml, mj);
  mj_deleteModel(mj);
  char* use = contacts ? inst : conf_disableContacts(inst);

  ConfPair p;
  load(&p, rel, use, dir);
  if (contacts) {
    trajectory(&p, 200, 3);
  } else {
    randomStates(&p, 10, 21);
  }
  conf_free(&p);
  if (use != inst) {
    free(use);
  }
  free(inst);
  free(xml);
}


Test(sensor_models, humanoid_random) {
  sampleModel("humanoid/humanoid.xml", 0);
}


Test(sensor_models, humanoid_trajectory) {
  sampleModel("humanoid/humanoid.xml", 1);
}


Test(sensor_models, arm26_random) {
  sampleModel("tendon_arm/arm26.xml", 0);
}


Test(sensor_models, slider_crank_random) {
  sampleModel("slider_crank/slider_crank.xml", 0);
}


