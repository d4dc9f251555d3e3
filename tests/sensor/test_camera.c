// Cameras and the camprojection sensor.
//
// - Against MuJoCo 2.2.2 (linked): camera model fields and cam_xpos/cam_xmat for every camera
//   mode, and frame sensors on cameras, at random states of tests/sensor/models/cameras.xml and of
//   the Debian sample models with cameras (humanoid, 22_humanoids); 1e-9 relative.
// - Against MuJoCo 3.14.0 (@mujoco/mujoco under Node, tests/sensor/mjs3_sensors.mjs run through
//   popen): camprojection sensordata, cam_xpos/cam_xmat, the intrinsics, fovy, resolution and
//   projection (perspective/orthographic) of
//   tests/sensor/models/camprojection.xml at random states; 1e-9 relative. The same sensordata is
//   also checked against an independent pinhole-camera formula written here.
// - Bad camera and camprojection input gives `file:line: message`.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "conformance.h"
#include "mjs3_ref.h"
#include "testutil.h"

#define TOL 1e-9


//---------------------------------- helpers -------------------------------------------------------

static double relErr(double a, double b) {
  return fabs(a - b) / fmax(1, fabs(b));
}


// compare n doubles; return the worst relative error and assert it within tol
static double compareArr(const char* what, const char* label, const double* got,
                         const double* ref, int n, double tol) {
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double e = relErr(got[i], ref[i]);
    if (!(e <= tol)) {
      cr_expect(0, "%s %s [%d]: moduco %.17g reference %.17g", label, what, i, got[i], ref[i]);
      return e;
    }
    worst = fmax(worst, e);
  }
  return worst;
}


//---------------------------------- MuJoCo 2.2.2: modes, model fields, frame sensors -------------

// camera model fields of both engines
static void compareCameraModel(ConfPair* p) {
  const mjModel* mj = p->mj;
  const mcModel* mc = p->mc;
  cr_assert_eq(mc->ncam, mj->ncam, "%s: ncam", p->name);
  for (int i = 0; i < mj->ncam; i++) {
    cr_expect_eq(mc->cam_mode[i], mj->cam_mode[i], "%s: cam_mode[%d]", p->name, i);
    cr_expect_eq(mc->cam_bodyid[i], mj->cam_bodyid[i], "%s: cam_bodyid[%d]", p->name, i);
    cr_expect_eq(mc->cam_targetbodyid[i], mj->cam_targetbodyid[i], "%s: cam_targetbodyid[%d]",
                 p->name, i);
    cr_expect_str_eq(mc->names + mc->name_camadr[i], mj->names + mj->name_camadr[i],
                     "%s: camera %d name", p->name, i);
  }
  int n = mj->ncam;
  compareArr("cam_pos", p->name, mc->cam_pos, mj->cam_pos, 3 * n, TOL);
  compareArr("cam_quat", p->name, mc->cam_quat, mj->cam_quat, 4 * n, TOL);
  compareArr("cam_pos0", p->name, mc->cam_pos0, mj->cam_pos0, 3 * n, TOL);
  compareArr("cam_poscom0", p->name, mc->cam_poscom0, mj->cam_poscom0, 3 * n, TOL);
  compareArr("cam_mat0", p->name, mc->cam_mat0, mj->cam_mat0, 9 * n, TOL);
  compareArr("cam_fovy", p->name, mc->cam_fovy, mj->cam_fovy, n, TOL);
  compareArr("cam_ipd", p->name, mc->cam_ipd, mj->cam_ipd, n, TOL);
}


// random states: cam_xpos, cam_xmat and every sensor; return the worst error
static double compareCameraStates(ConfPair* p, int nstate, unsigned long long seed) {
  ConfRng r;
  conf_seed(&r, seed);
  double worst = 0;
  for (int s = 0; s < nstate; s++) {
    conf_randomState(p, &r);
    mj_forward(p->mj, p->dj);
    mc_forward(p->mc, p->dc);
    char label[160];
    snprintf(label, sizeof(label), "%s state %d", p->name, s);
    int n = p->mj->ncam;
    worst = fmax(worst, compareArr("cam_xpos", label, p->dc->cam_xpos, p->dj->cam_xpos, 3 * n,
                                   TOL));
    worst = fmax(worst, compareArr("cam_xmat", label, p->dc->cam_xmat, p->dj->cam_xmat, 9 * n,
                                   TOL));
    cr_assert_eq(p->mc->nsensordata, p->mj->nsensordata);
    for (int i = 0; i < p->mj->nsensor; i++) {
      cr_assert_eq(p->mc->sensor_type[i], conf_sensorType(p->mj->sensor_type[i]));
    }
    worst = fmax(worst, compareArr("sensordata", label, p->dc->sensordata, p->dj->sensordata,
                                   p->mj->nsensordata, TOL));
  }
  return worst;
}


Test(camera, every_mode_vs_mujoco222) {
  char* xml = tu_readFile(MODUCO_SOURCE_DIR "/tests/sensor/models/cameras.xml");
  cr_assert(xml);
  ConfPair p;
  char err[1024] = "";
  cr_assert_eq(conf_load(&p, "cameras", xml, NULL, err, sizeof(err)), 0, "%s", err);
  compareCameraModel(&p);

  // every mode is present, so each code path is compared
  int seen[5] = {0};
  for (int i = 0; i < p.mc->ncam; i++) {
    seen[p.mc->cam_mode[i]]++;
  }
  for (int k = 0; k < 5; k++) {
    cr_expect(seen[k] > 0, "mode %d not covered", k);
  }
  double worst = compareCameraStates(&p, 40, 17);
  fprintf(stderr, "cameras.xml: worst relative error %.2e over 40 states\n", worst);
  conf_free(&p);
  free(xml);
}


static void sampleCameras(const char* rel) {
  char path[1024], dir[1024];
  snprintf(path, sizeof(path), "/usr/share/mujoco/model/%s", rel);
  snprintf(dir, sizeof(dir), "%s", path);
  *strrchr(dir, '/') = 0;
  char* xml = tu_readFile(path);
  if (!xml) {
    cr_assert_fail("%s not installed (scripts/setup-debian.sh installs libmujoco-samples)", path);
  }
  char* nocon = conf_disableContacts(xml);
  ConfPair p;
  char err[1024] = "";
  cr_assert_eq(conf_load(&p, rel, nocon, dir, err, sizeof(err)), 0, "%s", err);
  cr_assert(p.mj->ncam > 0);
  compareCameraModel(&p);
  compareCameraStates(&p, 10, 23);
  conf_free(&p);
  free(nocon);
  free(xml);
}


Test(camera, humanoid_vs_mujoco222) {
  sampleCameras("humanoid/humanoid.xml");
}


Test(camera, humanoids22_vs_mujoco222) {
  sampleCameras("humanoid/22_humanoids.xml");
}


//---------------------------------- MuJoCo 3.14: camprojection ----------------------------------

// independent pinhole model: a point at depth z_c > 0 in front of the camera (along -z of
// cam_xmat), x_c right, y_c up, lands at u = W/2 + f_x x_c / z_c, v = H/2 - f_y y_c / z_c; the
// focal lengths in pixels are focal / sensorsize * resolution with a sensor, else
// (H/2) / tan(fovy/2) for both
static void pinhole(const mcModel* m, const mcData* d, int site, int cam, double uv[2]) {
  const double* R = d->cam_xmat + 9 * cam;
  double rel[3], c[3];
  for (int k = 0; k < 3; k++) {
    rel[k] = d->site_xpos[3 * site + k] - d->cam_xpos[3 * cam + k];
  }
  for (int k = 0; k < 3; k++) {
    c[k] = R[k] * rel[0] + R[3 + k] * rel[1] + R[6 + k] * rel[2];   // column k . rel
  }
  double W = m->cam_resolution[2 * cam], H = m->cam_resolution[2 * cam + 1];
  double fx, fy;
  const float* ss = m->cam_sensorsize + 2 * cam;
  if (ss[0] > 0 && ss[1] > 0) {
    fx = (double)m->cam_intrinsic[4 * cam] / ss[0] * W;
    fy = (double)m->cam_intrinsic[4 * cam + 1] / ss[1] * H;
  } else {
    fy = fx = (H / 2) / tan(m->cam_fovy[cam] / 2 * M_PI / 180);
  }
  double depth = -c[2];
  uv[0] = W / 2 + fx * c[0] / depth;
  uv[1] = H / 2 - fy * c[1] / depth;
}


Test(camera, camprojection_vs_mujoco314) {
  mjs3_require();
  const char* xmlpath = MODUCO_SOURCE_DIR "/tests/sensor/models/camprojection.xml";
  char err[1024] = "";
  mcModel* m = mc_loadXML(xmlpath, err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  cr_assert(d);

  // random states: free base anywhere near the origin, hinge angle
  enum { NSTATE = 30 };
  ConfRng r;
  conf_seed(&r, 31);
  double* qpos = calloc((size_t)NSTATE * m->nq, sizeof(double));
  for (int s = 0; s < NSTATE; s++) {
    double* q = qpos + (size_t)s * m->nq;
    q[0] = conf_uniform(&r, -0.5, 0.5);
    q[1] = conf_uniform(&r, -0.5, 0.5);
    q[2] = conf_uniform(&r, 0.5, 1.5);
    conf_quat(&r, q + 3);
    q[7] = conf_uniform(&r, -3, 3);
  }
  cJSON* o = mjs3_run(xmlpath, qpos, NSTATE, m->nq);

  cr_assert_eq(cJSON_GetObjectItemCaseSensitive(o, "ncam")->valueint, m->ncam);
  cr_assert_eq(cJSON_GetObjectItemCaseSensitive(o, "nsensordata")->valueint, m->nsensordata);
  int nc = m->ncam, ns = m->nsensordata;
  double buf[1024];

  // model fields: floats must agree exactly, fovy (derived in float) to 1e-9
  mjs3_nums(o, "cam_intrinsic", buf, 4 * nc);
  for (int i = 0; i < 4 * nc; i++) {
    cr_expect_eq((float)buf[i], m->cam_intrinsic[i], "cam_intrinsic[%d]: %.9g vs %.9g", i,
                 (double)m->cam_intrinsic[i], buf[i]);
  }
  mjs3_nums(o, "cam_sensorsize", buf, 2 * nc);
  for (int i = 0; i < 2 * nc; i++) {
    cr_expect_eq((float)buf[i], m->cam_sensorsize[i], "cam_sensorsize[%d]", i);
  }
  mjs3_nums(o, "cam_resolution", buf, 2 * nc);
  for (int i = 0; i < 2 * nc; i++) {
    cr_expect_eq((int)buf[i], m->cam_resolution[i], "cam_resolution[%d]", i);
  }
  mjs3_nums(o, "cam_orthographic", buf, nc);
  for (int i = 0; i < nc; i++) {
    cr_expect_eq((int)buf[i], m->cam_orthographic[i], "cam_orthographic[%d]", i);
  }
  mjs3_nums(o, "cam_fovy", buf, nc);
  compareArr("cam_fovy", "camprojection.xml", m->cam_fovy, buf, nc, TOL);
  mjs3_nums(o, "cam_pos0", buf, 3 * nc);
  compareArr("cam_pos0", "camprojection.xml", m->cam_pos0, buf, 3 * nc, TOL);
  mjs3_nums(o, "cam_poscom0", buf, 3 * nc);
  compareArr("cam_poscom0", "camprojection.xml", m->cam_poscom0, buf, 3 * nc, TOL);
  mjs3_nums(o, "cam_mat0", buf, 9 * nc);
  compareArr("cam_mat0", "camprojection.xml", m->cam_mat0, buf, 9 * nc, TOL);

  // states
  const cJSON* states = cJSON_GetObjectItemCaseSensitive(o, "states");
  cr_assert_eq(cJSON_GetArraySize(states), NSTATE);
  double worst = 0, worst_pinhole = 0;
  int front = 0, behind = 0;
  for (int s = 0; s < NSTATE; s++) {
    const cJSON* st = cJSON_GetArrayItem(states, s);
    memcpy(d->qpos, qpos + (size_t)s * m->nq, sizeof(double) * (size_t)m->nq);
    mc_forward(m, d);
    char label[64];
    snprintf(label, sizeof(label), "camprojection.xml state %d", s);
    mjs3_nums(st, "cam_xpos", buf, 3 * nc);
    worst = fmax(worst, compareArr("cam_xpos", label, d->cam_xpos, buf, 3 * nc, TOL));
    mjs3_nums(st, "cam_xmat", buf, 9 * nc);
    worst = fmax(worst, compareArr("cam_xmat", label, d->cam_xmat, buf, 9 * nc, TOL));
    mjs3_nums(st, "sensordata", buf, ns);
    worst = fmax(worst, compareArr("sensordata", label, d->sensordata, buf, ns, TOL));

    // independent formula (focal lengths in pixels computed in double here, in float by both
    // engines: 1e-6 of the image size)
    for (int i = 0; i < m->nsensor; i++) {
      cr_assert_eq(m->sensor_type[i], mcSENS_CAMPROJECTION);
      if (m->sensor_cutoff[i] > 0) {
        continue;
      }
      double uv[2];
      pinhole(m, d, m->sensor_objid[i], m->sensor_refid[i], uv);
      const double* got = d->sensordata + m->sensor_adr[i];
      const int* res = m->cam_resolution + 2 * m->sensor_refid[i];
      for (int k = 0; k < 2; k++) {
        // relative to the image size: the focal lengths in pixels differ by float rounding
        double e = fabs(got[k] - uv[k]) / fmax(fabs(uv[k]), fmax(res[0], res[1]));
        worst_pinhole = fmax(worst_pinhole, e);
        cr_expect(e <= 1e-6, "%s sensor %d [%d]: moduco %.17g pinhole %.17g", label, i, k,
                  got[k], uv[k]);
      }

      // both sides of the image plane occur
      const double* R = d->cam_xmat + 9 * m->sensor_refid[i];
      const double* cp = d->cam_xpos + 3 * m->sensor_refid[i];
      const double* sp = d->site_xpos + 3 * m->sensor_objid[i];
      double z = R[2] * (sp[0] - cp[0]) + R[5] * (sp[1] - cp[1]) + R[8] * (sp[2] - cp[2]);
      if (z < 0) {
        front++;
      } else {
        behind++;
      }
    }
  }
  cr_expect(front > 0 && behind > 0, "points in front %d, behind %d", front, behind);
  fprintf(stderr, "camprojection.xml: worst relative error vs MuJoCo 3.14 %.2e, vs pinhole "
          "%.2e (%d states)\n", worst, worst_pinhole, NSTATE);
  cJSON_Delete(o);
  free(qpos);
  mc_deleteData(d);
  mc_deleteModel(m);
}


//---------------------------------- bad input -----------------------------------------------------

// the model must fail with `file:line: ` + a message containing want
static void expectError(const char* xml, const char* want, int line) {
  char err[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  if (m) {
    mc_deleteModel(m);
  }
  cr_expect_null(m, "loaded, expected an error containing '%s'", want);
  char prefix[32];
  snprintf(prefix, sizeof(prefix), ":%d: ", line);
  cr_expect(strstr(err, prefix) != NULL, "no '%s' in: %s", prefix, err);
  cr_expect(strstr(err, want) != NULL, "no '%s' in: %s", want, err);
}


#define BODY "<mujoco>\n<worldbody>\n<body name='b'>\n<joint/>\n<geom size='.1'/>\n" \
             "<site name='s'/>\n"

Test(camera, bad_input) {
  expectError(BODY "<camera target='nope' mode='targetbody'/>\n</body>\n</worldbody>\n</mujoco>",
              "unknown target body 'nope'", 7);
  expectError(BODY "<camera target='b' mode='targetbody'/>\n</body>\n</worldbody>\n</mujoco>",
              "cannot target its own body", 7);
  expectError(BODY "<camera mode='orbit'/>\n</body>\n</worldbody>\n</mujoco>", "orbit", 7);
  expectError(BODY "<camera focal='.01 .01'/>\n</body>\n</worldbody>\n</mujoco>",
              "require 'sensorsize'", 7);
  expectError(BODY "<camera sensorsize='.01 .01'/>\n</body>\n</worldbody>\n</mujoco>",
              "requires 'resolution'", 7);
  expectError(BODY "<camera sensorsize='.01 .01' resolution='10 10' fovy='40'/>\n</body>\n"
              "</worldbody>\n</mujoco>", "cannot be combined", 7);
  expectError(BODY "<camera resolution='0 10'/>\n</body>\n</worldbody>\n</mujoco>",
              "positive integers", 7);
  expectError(BODY "<camera resolution='10.5 10'/>\n</body>\n</worldbody>\n</mujoco>",
              "positive integers", 7);
  expectError(BODY "<camera fovy='180'/>\n</body>\n</worldbody>\n</mujoco>", "less than 180", 7);
  expectError(BODY "<camera name='c'/>\n<camera name='c'/>\n</body>\n</worldbody>\n</mujoco>",
              "duplicate camera name 'c'", 8);
  expectError(BODY "<camera bogus='1'/>\n</body>\n</worldbody>\n</mujoco>", "bogus", 7);
  expectError(BODY "<camera projection='fisheye'/>\n</body>\n</worldbody>\n</mujoco>",
              "perspective orthographic", 7);
  expectError(BODY "<camera projection='orthographic' orthographic='true'/>\n</body>\n"
              "</worldbody>\n</mujoco>", "either projection or orthographic", 7);
  expectError(BODY "<camera name='c'/>\n</body>\n</worldbody>\n<sensor>\n"
              "<camprojection site='s' camera='nope'/>\n</sensor>\n</mujoco>",
              "unknown camera 'nope'", 11);
  expectError(BODY "<camera name='c'/>\n</body>\n</worldbody>\n<sensor>\n"
              "<camprojection site='nope' camera='c'/>\n</sensor>\n</mujoco>",
              "unknown site 'nope'", 11);
  expectError(BODY "<camera name='c'/>\n</body>\n</worldbody>\n<sensor>\n"
              "<camprojection site='s'/>\n</sensor>\n</mujoco>", "'camera'", 11);
  expectError(BODY "</body>\n</worldbody>\n<sensor>\n"
              "<framepos objtype='camera' objname='nope'/>\n</sensor>\n</mujoco>", "nope", 10);
  expectError("<mujoco>\n<default>\n<camera name='x'/>\n</default>\n</mujoco>", "name", 3);
}


// projection="perspective|orthographic" (MuJoCo 3.14, its cam_projection; camprojection.xml's
// orthographic camera is compared with 3.14 above), from defaults too; MuJoCo 3.3.8's
// orthographic="true" (which 3.14 refuses) still reads
Test(camera, projection_attribute) {
  const char* xml =
    "<mujoco><default><camera projection='orthographic'/>"
    "<default class='p'><camera projection='perspective'/></default></default><worldbody>"
    "<camera name='a'/><camera name='b' class='p'/><camera name='c' projection='perspective'/>"
    "<camera name='d' class='p' projection='orthographic'/><camera name='e' class='p' "
    "orthographic='true'/><camera name='f' orthographic='false'/></worldbody></mujoco>";
  char err[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert(m, "%s", err);
  const int want[6] = {1, 0, 0, 1, 1, 0};
  cr_assert_eq(m->ncam, 6);
  for (int i = 0; i < 6; i++) {
    cr_expect_eq(m->cam_orthographic[i], want[i], "camera %d: cam_orthographic %d, expected %d", i,
                 m->cam_orthographic[i], want[i]);
  }
  mc_deleteModel(m);
}
