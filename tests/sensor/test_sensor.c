// Sensor conformance against MuJoCo 2.2.2: the same MJCF in both engines, random states (and
// states along a MuJoCo trajectory for contact models), sensordata compared to 1e-9 relative;
// rangefinders on height fields also against MuJoCo 3.14 (mjs3_ref.c).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "conformance.h"
#include "mjs3_ref.h"
#include "testutil.h"

#define TOL 1e-9


//---------------------------------- helpers -------------------------------------------------------

// forward in both engines and compare every sensor; return the worst relative error
static double compareSensors(ConfPair* p, const char* label, int assert_ok) {
  mj_forward(p->mj, p->dj);
  mc_forward(p->mc, p->dc);
  cr_assert_eq(p->mc->nsensordata, p->mj->nsensordata, "%s: nsensordata", p->name);
  double worst = 0;
  for (int i = 0; i < p->mj->nsensor; i++) {
    cr_assert_eq(p->mc->sensor_type[i], conf_sensorType(p->mj->sensor_type[i]), "%s: sensor %d type",
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
  char* xml = tu_readFile(MODUCO_SOURCE_DIR "/tests/sensor/models/sensors_all.xml");
  cr_assert(xml);
  ConfPair p;
  load(&p, "sensors_all", xml, NULL);
  randomStates(&p, 20, 11);
  conf_free(&p);
  free(xml);
}


Test(sensor, all_types_trajectory_with_contacts) {
  char* xml = tu_readFile(MODUCO_SOURCE_DIR "/tests/sensor/models/sensors_all.xml");
  cr_assert(xml);
  ConfPair p;
  load(&p, "sensors_all", xml, NULL);
  trajectory(&p, 300, 5);
  conf_free(&p);
  free(xml);
}


Test(sensor, all_types_no_constraints) {
  char* xml = tu_readFile(MODUCO_SOURCE_DIR "/tests/sensor/models/sensors_all.xml");
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

// append sensors for every named joint, body, site, camera, tendon and actuator of the MuJoCo
// model
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
  for (int i = 0; i < m->ncam; i++) {
    const char* n = m->names + m->name_camadr[i];
    if (n[0]) {
      conf_printf(&t, "<framepos objtype='camera' objname='%s'/><framequat objtype='camera' "
                  "objname='%s'/><framexaxis objtype='camera' objname='%s'/><framezaxis "
                  "objtype='camera' objname='%s'/><framelinvel objtype='camera' objname='%s'/>"
                  "<frameangvel objtype='camera' objname='%s'/>\n", n, n, n, n, n, n);
    }
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
  char* xml = tu_readFile(path);
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




//---------------------------------- rangefinder on height fields ----------------------------------

// MuJoCo's binary height field: int32 nrow, int32 ncol, nrow*ncol float32 elevations
static void writeHfield(const char* path, int nrow, int ncol, ConfRng* r) {
  FILE* f = fopen(path, "wb");
  cr_assert(f, "cannot write %s", path);
  int dims[2] = {nrow, ncol};
  fwrite(dims, sizeof(int), 2, f);
  for (int i = 0; i < nrow * ncol; i++) {
    float v = (float)conf_uniform(r, -1, 3);
    fwrite(&v, sizeof(float), 1, f);
  }
  fclose(f);
}


// where a hit of geom g's height field lies: 0 top surface, 1 side, 2 base
static int hitKind(const mcModel* m, const mcData* d, int g, const double hit[3]) {
  const double* pos = d->geom_xpos + 3 * g;
  const double* mat = d->geom_xmat + 9 * g;
  const double* size = m->hfield_size + 4 * m->geom_dataid[g];
  double rel[3] = {hit[0] - pos[0], hit[1] - pos[1], hit[2] - pos[2]}, l[3];
  for (int k = 0; k < 3; k++) {
    l[k] = mat[k] * rel[0] + mat[3 + k] * rel[1] + mat[6 + k] * rel[2];
  }
  if (l[2] < -1e-9) {
    return 2;
  }
  if (fabs(fabs(l[0]) - size[0]) < 1e-9 || fabs(fabs(l[1]) - size[1]) < 1e-9) {
    return 1;
  }
  return 0;
}


enum { HF_NSITE = 16 };

// two posed height fields with random elevations (MuJoCo's binary files written into dir, grids
// r1 x c1 and r2 x c2) and a free body carrying HF_NSITE rangefinder sites of random orientation
static char* hfieldRayModel(const char* dir, int r1, int c1, int r2, int c2, ConfRng* r) {
  char path[1100];
  snprintf(path, sizeof(path), "%s/h1.bin", dir);
  writeHfield(path, r1, c1, r);
  snprintf(path, sizeof(path), "%s/h2.bin", dir);
  writeHfield(path, r2, c2, r);
  ConfText t = {0};
  conf_printf(&t, "<mujoco><option><flag contact='disable' constraint='disable' "
              "gravity='disable'/></option><asset>"
              "<hfield name='h1' file='h1.bin' size='1.2 0.9 0.6 0.3'/>"
              "<hfield name='h2' file='h2.bin' size='0.5 0.7 0.3 0.1'/></asset><worldbody>"
              "<geom name='g1' type='hfield' hfield='h1' pos='0.1 -0.2 0.05' euler='5 -3 20'/>"
              "<geom name='g2' type='hfield' hfield='h2' pos='2.4 0.3 0.2' euler='20 10 -40'/>"
              "<body name='probe'><freejoint/>"
              "<geom size='0.01' contype='0' conaffinity='0'/>");
  for (int i = 0; i < HF_NSITE; i++) {
    conf_printf(&t, "<site name='s%d' pos='%.3f %.3f %.3f' euler='%.2f %.2f %.2f'/>", i,
                conf_uniform(r, -0.1, 0.1), conf_uniform(r, -0.1, 0.1),
                conf_uniform(r, -0.1, 0.1), conf_uniform(r, -180, 180),
                conf_uniform(r, -180, 180), conf_uniform(r, -180, 180));
  }
  conf_printf(&t, "</body></worldbody><sensor>");
  for (int i = 0; i < HF_NSITE; i++) {
    conf_printf(&t, "<rangefinder site='s%d'/>", i);
  }
  conf_printf(&t, "</sensor></mujoco>");
  return t.buf;
}


// a random pose of the probe body around both height fields (free joint qpos)
static void hfieldProbePose(ConfRng* r, double q[7]) {
  q[0] = conf_uniform(r, -1.6, 3.2);
  q[1] = conf_uniform(r, -1.3, 1.3);
  q[2] = conf_uniform(r, -0.7, 1.5);
  conf_quat(r, q + 3);
}


static void removeHfieldDir(const char* dir) {
  char path[1100];
  snprintf(path, sizeof(path), "%s/h1.bin", dir);
  unlink(path);
  snprintf(path, sizeof(path), "%s/h2.bin", dir);
  unlink(path);
  snprintf(path, sizeof(path), "%s/m.xml", dir);
  unlink(path);
  rmdir(dir);
}


// random rays against MuJoCo 2.2.2's rangefinder (mj_ray). The grids are square: for the sides
// normal to x, 2.2.2 reads the boundary profile with a row stride of nrow instead of ncol, which
// only agrees with the geometry (and with MuJoCo 3.14, next test) when nrow == ncol.
Test(sensor, rangefinder_hfield) {
  char dir[] = "/tmp/moduco-hfray-XXXXXX";
  cr_assert(mkdtemp(dir));
  ConfRng r;
  conf_seed(&r, 77);
  char* xml = hfieldRayModel(dir, 11, 11, 6, 6, &r);
  ConfPair p;
  load(&p, "hfield_rays", xml, dir);
  cr_assert_eq(p.mc->nhfielddata, p.mj->nhfielddata);
  for (int i = 0; i < p.mj->nhfielddata; i++) {
    cr_assert_eq(p.mc->hfield_data[i], p.mj->hfield_data[i], "hfield_data[%d]", i);
  }

  enum { NSTATE = 500 };
  int kinds[3] = {0, 0, 0}, miss = 0;
  double worst = 0;
  for (int s = 0; s < NSTATE; s++) {
    hfieldProbePose(&r, p.dj->qpos);
    memcpy(p.dc->qpos, p.dj->qpos, sizeof(double) * 7);
    char label[32];
    snprintf(label, sizeof(label), "state %d", s);
    worst = fmax(worst, compareSensors(&p, label, 1));

    // classify the hits (MuJoCo names the geom hit)
    for (int i = 0; i < HF_NSITE; i++) {
      double x = p.dj->sensordata[i];
      if (x < 0) {
        miss++;
        continue;
      }
      const double* sp = p.dc->site_xpos + 3 * i;
      const double* sm = p.dc->site_xmat + 9 * i;
      double z[3] = {sm[2], sm[5], sm[8]};
      double hit[3] = {sp[0] + x * z[0], sp[1] + x * z[1], sp[2] + x * z[2]};
      int geomid = -1;
      mj_ray(p.mj, p.dj, p.dj->site_xpos + 3 * i, z, NULL, 1, p.mj->site_bodyid[i], &geomid);
      cr_assert(geomid == 0 || geomid == 1);
      kinds[hitKind(p.mc, p.dc, geomid, hit)]++;
    }
  }
  fprintf(stderr, "rangefinder_hfield vs 2.2.2: %d rays, top %d side %d base %d miss %d, worst "
          "%.2e\n", NSTATE * HF_NSITE, kinds[0], kinds[1], kinds[2], miss, worst);
  cr_expect(kinds[0] > 500 && kinds[1] > 50 && kinds[2] > 50 && miss > 50,
            "rays do not cover every part: top %d side %d base %d miss %d", kinds[0], kinds[1],
            kinds[2], miss);
  conf_free(&p);
  free(xml);
  removeHfieldDir(dir);
}


// random rays against MuJoCo 3.14 (@mujoco/mujoco under Node) on non-square grids, both wider and
// taller than square
Test(sensor, rangefinder_hfield_mujoco314) {
  mjs3_require();
  char dir[] = "/tmp/moduco-hfray3-XXXXXX";
  cr_assert(mkdtemp(dir));
  ConfRng r;
  conf_seed(&r, 78);
  char* xml = hfieldRayModel(dir, 9, 13, 7, 4, &r);
  char path[1100];
  snprintf(path, sizeof(path), "%s/m.xml", dir);
  FILE* f = fopen(path, "w");
  cr_assert(f);
  fputs(xml, f);
  fclose(f);
  char err[1024] = "";
  mcModel* m = mc_loadXML(path, err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);

  enum { NSTATE = 400 };
  double* qpos = calloc((size_t)NSTATE * m->nq, sizeof(double));
  for (int s = 0; s < NSTATE; s++) {
    hfieldProbePose(&r, qpos + (size_t)s * m->nq);
  }
  cJSON* o = mjs3_run(path, qpos, NSTATE, m->nq);
  const cJSON* states = cJSON_GetObjectItemCaseSensitive(o, "states");
  cr_assert_eq(cJSON_GetArraySize(states), NSTATE);
  double ref[HF_NSITE], worst = 0;
  int hits = 0;
  for (int s = 0; s < NSTATE; s++) {
    memcpy(d->qpos, qpos + (size_t)s * m->nq, sizeof(double) * (size_t)m->nq);
    mc_forward(m, d);
    mjs3_nums(cJSON_GetArrayItem(states, s), "sensordata", ref, HF_NSITE);
    for (int i = 0; i < HF_NSITE; i++) {
      double e = fabs(d->sensordata[i] - ref[i]) / fmax(1, fabs(ref[i]));
      worst = fmax(worst, e);
      hits += ref[i] >= 0;
      cr_expect(e <= TOL, "state %d sensor %d: moduco %.15g mujoco 3.14 %.15g", s, i,
                d->sensordata[i], ref[i]);
    }
  }
  fprintf(stderr, "rangefinder_hfield vs 3.14: %d rays, %d hits, worst %.2e\n",
          NSTATE * HF_NSITE, hits, worst);
  cr_expect(hits > NSTATE * HF_NSITE / 5, "only %d hits", hits);
  cJSON_Delete(o);
  free(qpos);
  mc_deleteData(d);
  mc_deleteModel(m);
  free(xml);
  removeHfieldDir(dir);
}


//---------------------------------- muscle length ranges ------------------------------------------

// the compiler's own muscle lengthrange (simulated as in 2.2.2's compiler: constant acceleration
// along the moment arms, velocity decay exp(-dt/timeconst)) against 2.2.2's, then actuator
// sensors with it
Test(sensor_models, arm26_own_lengthrange) {
  const char* path = "/usr/share/mujoco/model/tendon_arm/arm26.xml";
  char* xml = tu_readFile(path);
  if (!xml) {
    cr_assert_fail("%s not installed (scripts/setup-debian.sh installs libmujoco-samples)", path);
  }
  char err[1024] = "";
  mjModel* mj = mj_loadXML(path, NULL, err, sizeof(err));
  cr_assert(mj, "%s", err);
  char* inst = instrument(xml, mj);
  mj_deleteModel(mj);
  char* use = conf_disableContacts(inst);
  ConfPair p;
  cr_assert_eq(conf_load(&p, "arm26_own_lengthrange", use, "/usr/share/mujoco/model/tendon_arm",
                         err, sizeof(err)), 0, "%s", err);
  double worst = 0;
  for (int i = 0; i < 2 * p.mj->nu; i++) {
    double a = p.mc->actuator_lengthrange[i], b = p.mj->actuator_lengthrange[i];
    worst = fmax(worst, fabs(a - b) / fabs(b));
    cr_expect(fabs(a - b) <= TOL * fabs(b), "actuator_lengthrange[%d]: moduco %.15g mujoco %.15g",
              i, a, b);
  }
  fprintf(stderr, "arm26 lengthrange: worst relative difference %.2e\n", worst);
  randomStates(&p, 10, 31);
  conf_free(&p);
  free(use);
  free(inst);
  free(xml);
}
