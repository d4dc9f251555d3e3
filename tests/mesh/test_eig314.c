// Principal axes against MuJoCo 3.14.0 (tests/mesh/inertia_ref.mjs, the default version): body
// frames of <inertial fullinertia> and of bodies weighed from their geoms, a mesh's frame, and the
// order of the principal inertias (docs/mujoco3.md, "Mesh frames and principal axes"). The cases
// are the probes the 3.14 rule was read from: tiny rotations (1e-15 .. 1e-5 rad, far below where
// the legacy rule stops), every scale from 1 to 1e-14, pairs of inertias 1e-12 apart relative to
// the largest (the ordering threshold), repeated inertias and diagonal matrices in every order.
// Near-degenerate pairs (a relative gap below ~1e-9) are left out: their axes within the pair
// follow the last bits of the arithmetic, in MuJoCo as in Moduco.
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_common.h"
#include "testutil.h"

#define NMAX 160

typedef struct {
  double m[9];
} Mat3;

// rotation by angle about axis (unit after normalisation), row-major
static void rotation(double r[9], const double axis[3], double angle) {
  double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  double x = axis[0] / n, y = axis[1] / n, z = axis[2] / n;
  double c = cos(angle), s = sin(angle), C = 1 - c;
  double v[9] = {c + x * x * C,     x * y * C - z * s, x * z * C + y * s,
                 y * x * C + z * s, c + y * y * C,     y * z * C - x * s,
                 z * x * C - y * s, z * y * C + x * s, c + z * z * C};
  memcpy(r, v, sizeof(v));
}

// R diag(l) R' (scaled by s)
static Mat3 similar(const double axis[3], double angle, const double l[3], double s) {
  double r[9];
  rotation(r, axis, angle);
  Mat3 a;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      double v = 0;
      for (int k = 0; k < 3; k++) {
        v += r[3 * i + k] * l[k] * r[3 * j + k];
      }
      a.m[3 * i + j] = s * v;
    }
  }
  return a;
}

static Mat3 diagonal(double a, double b, double c) {
  Mat3 m = {{a, 0, 0, 0, b, 0, 0, 0, c}};
  return m;
}

static Mat3 offdiag(double a, double b, double c, int i, int j, double o) {
  Mat3 m = diagonal(a, b, c);
  m.m[3 * i + j] = m.m[3 * j + i] = o;
  return m;
}

// the probe matrices (well conditioned, or exactly repeated)
static int probes(Mat3* out) {
  int n = 0;
  static const double axes[4][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 2, 3}};
  static const double l[3] = {3, 2, 1.5};
  static const double angles[] = {1e-9, 1e-7, 1e-6, 3e-6, 1e-5, 1e-3, 0.3};
  for (int a = 0; a < 7; a++) {
    for (int x = 0; x < 4; x++) {
      out[n++] = similar(axes[x], angles[a], l, 1);
    }
  }
  for (double s = 1; s > 1e-15; s *= 1e-2) {
    out[n++] = similar(axes[3], 0.3, l, s);
    out[n++] = similar(axes[3], 1e-3, l, s);
  }
  static const double rep[3][3] = {{2, 2, 1.5}, {2, 1.5, 1.5}, {2, 2, 2}};
  for (int k = 0; k < 3; k++) {
    out[n++] = similar(axes[3], 0.4, rep[k], 1);
  }
  out[n++] = diagonal(1, 2, 3);
  out[n++] = diagonal(2, 1, 3);
  out[n++] = diagonal(1, 2, 2);
  out[n++] = diagonal(2, 1, 2);
  out[n++] = offdiag(2, 2, 1.5, 0, 1, 1e-9);
  // the ordering threshold: 1e-12 of the largest inertia, not of the pair
  for (int k = -2; k <= 2; k++) {
    double r = 1e-12 * (1 + 0.05 * k);
    out[n++] = diagonal(1, 1 + r, 0.01);
    out[n++] = diagonal(1.5, 1, 1 + 1.5 * r);
    out[n++] = diagonal(4, 4 * (1 + r), 3);
  }
  // off-diagonal entries around the stopping threshold (2e-15 of the diagonal's sum)
  static const double offs[] = {1e-15, 5e-15, 1e-14, 2e-14, 1e-13, 1e-11, 1e-9};
  for (int k = 0; k < 7; k++) {
    out[n++] = offdiag(3, 2, 1.5, 1, 2, offs[k]);
    out[n++] = offdiag(1.2, 2, 1.5, 1, 2, offs[k]);
    out[n++] = offdiag(3, 2, 1.5, 0, 2, offs[k]);
    out[n++] = offdiag(1, 1.5, 0.8, 1, 2, offs[k]);
  }
  cr_assert_leq(n, NMAX);
  return n;
}

// the probes as one model: a free body per matrix
static char* probeModel(const Mat3* a, int n) {
  size_t sz = 400 * (size_t)n + 100, len = 0;
  char* xml = malloc(sz);
  cr_assert_not_null(xml);
  len += (size_t)snprintf(xml + len, sz - len, "<mujoco><worldbody>\n");
  for (int k = 0; k < n; k++) {
    const double* m = a[k].m;
    len += (size_t)snprintf(xml + len, sz - len, "<body><freejoint/><inertial pos='0 0 0' "
                            "mass='1' fullinertia='%.17g %.17g %.17g %.17g %.17g %.17g'/></body>\n",
                            m[0], m[4], m[8], m[1], m[2], m[5]);
  }
  snprintf(xml + len, sz - len, "</worldbody></mujoco>\n");
  return xml;
}

// largest body_iquat difference and relative body_inertia difference over the bodies
static void bodyDiff(const mcModel* m, const mtFields* r, double* dq, double* di, int* worst) {
  *dq = *di = 0;
  *worst = -1;
  cr_assert_eq(m->nbody, r->nbody);
  for (int b = 1; b < m->nbody; b++) {
    double s = fmax(fmax(r->body_inertia[3 * b], r->body_inertia[3 * b + 1]),
                    r->body_inertia[3 * b + 2]);
    double q = 0, i = 0;
    for (int k = 0; k < 4; k++) {
      q = fmax(q, fabs(m->body_iquat[4 * b + k] - r->body_iquat[4 * b + k]));
    }
    for (int k = 0; k < 3; k++) {
      i = fmax(i, fabs(m->body_inertia[3 * b + k] - r->body_inertia[3 * b + k]) / s);
    }
    if (fmax(q, i) > fmax(*dq, *di)) {
      *worst = b;
    }
    *dq = fmax(*dq, q);
    *di = fmax(*di, i);
  }
}

// the probes against 3.14 to 1e-12; the legacy rule (2.2.2 / 3.3.8) misses them by far more
Test(eig314, fullinertia_frames_match_mujoco314, .timeout = 600) {
  Mat3 a[NMAX];
  int n = probes(a);
  char dir[64];
  mt_tempdir(dir);
  char* xml = probeModel(a, n);
  mt_write(dir, "full.xml", xml, strlen(xml));
  free(xml);
  const char* models[2] = {"full.xml", NULL};
  cJSON* out = mt_referenceVersion(dir, models, "3.14.0");
  cr_assert_null(mt_refError(out, 0), "MuJoCo 3.14 refused the probes: %s", mt_refError(out, 0));
  mtRefFields ref;
  mt_refFields(out, 0, &ref);

  char err[1024] = "";
  char path[128];
  snprintf(path, sizeof(path), "%s/full.xml", dir);
  tu_legacy222Compile(0);
  mcModel* m = mc_loadXML(path, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  double dq, di;
  int worst;
  bodyDiff(m, &ref.f, &dq, &di, &worst);
  fprintf(stderr, "fullinertia probes (%d) vs 3.14: iquat %.1e inertia %.1e\n", n, dq, di);
  cr_expect(dq < 1e-12 && di < 1e-12, "body %d: iquat %g inertia %g from MuJoCo 3.14 (%.17g %.17g "
            "%.17g %.17g vs %.17g %.17g %.17g %.17g)", worst, dq, di, m->body_iquat[4 * worst],
            m->body_iquat[4 * worst + 1], m->body_iquat[4 * worst + 2],
            m->body_iquat[4 * worst + 3], ref.f.body_iquat[4 * worst],
            ref.f.body_iquat[4 * worst + 1], ref.f.body_iquat[4 * worst + 2],
            ref.f.body_iquat[4 * worst + 3]);
  mc_deleteModel(m);

  // the legacy rule: the same probes, compiled as 2.2.2 and 3.3.8 would, differ (the cases
  // exercise the new rule)
  tu_legacy222Compile(1);
  m = mc_loadXML(path, err, sizeof(err));
  tu_legacy222Compile(0);
  cr_assert_not_null(m, "%s", err);
  bodyDiff(m, &ref.f, &dq, &di, &worst);
  fprintf(stderr, "fullinertia probes, legacy rule, vs 3.14: iquat %.1e inertia %.1e\n", dq, di);
  cr_expect(dq > 1e-9, "the legacy rule agrees with 3.14 to %g: the probes do not test the rule",
            dq);
  mc_deleteModel(m);
  mt_freeFields(&ref);
  cJSON_Delete(out);
  mt_cleanup(dir);
}


// bodies weighed from their geoms (the composite inertia's principal axes), and a mesh's frame
// (MuJoCo's mug: the frame solved by the mesh rule, the body's by the body rule), against 3.14
Test(eig314, composite_and_mesh_frames_match_mujoco314, .timeout = 600) {
  char dir[64];
  mt_tempdir(dir);
  static const char* xml =
      "<mujoco><worldbody>\n"
      "<body><freejoint/><geom type='box' size='.3 .2 .1' euler='0 0 1e-7'/>"
      "<geom type='box' size='.1 .1 .1' pos='.2 0 0'/></body>\n"
      "<body><freejoint/><geom type='capsule' size='.1 .3' euler='1e-6 0 0'/>"
      "<geom type='sphere' size='.1' pos='0 .01 .3'/><geom type='box' size='.1 .2 .05' "
      "pos='0 0 -.3' euler='.3 .2 .1'/></body>\n"
      "<body><freejoint/><geom type='box' size='.2 .2 .1'/><geom type='sphere' size='.05' "
      "pos='1e-9 0 .15'/></body>\n"
      "<body><freejoint/><geom type='ellipsoid' size='.2 .1 .05' euler='0 3e-7 0'/>"
      "<geom type='cylinder' size='.05 .1' pos='.1 .1 0'/></body>\n"
      "</worldbody></mujoco>\n";
  mt_write(dir, "composite.xml", xml, strlen(xml));
  const char* models[2] = {"composite.xml", NULL};
  cJSON* out = mt_referenceVersion(dir, models, "3.14.0");
  mtRefFields ref;
  mt_refFields(out, 0, &ref);
  char err[1024] = "", path[128];
  snprintf(path, sizeof(path), "%s/composite.xml", dir);
  tu_legacy222Compile(0);
  mcModel* m = mc_loadXML(path, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  double dq, di;
  int worst;
  bodyDiff(m, &ref.f, &dq, &di, &worst);
  fprintf(stderr, "composite bodies vs 3.14: iquat %.1e inertia %.1e\n", dq, di);
  cr_expect(dq < 1e-12 && di < 1e-12, "composite body %d: iquat %g inertia %g from MuJoCo 3.14",
            worst, dq, di);
  mc_deleteModel(m);
  mt_freeFields(&ref);
  cJSON_Delete(out);
  mt_cleanup(dir);

  // the mug: one mesh, its frame and the body's
  const char* mug[2] = {"mug.xml", NULL};
  out = mt_referenceVersion("/usr/share/mujoco/model/mug", mug, "3.14.0");
  mt_refFields(out, 0, &ref);
  m = mc_loadXML("/usr/share/mujoco/model/mug/mug.xml", err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  mtDiff d;
  mt_compareFields(m, &ref.f, &d);
  bodyDiff(m, &ref.f, &dq, &di, &worst);
  fprintf(stderr, "mug vs 3.14: iquat %.1e inertia %.1e gquat %.1e gsize %.1e gpos %.1e vert "
          "%.1e\n", dq, di, d.gquat, d.gsize, d.gpos, d.vert);
  cr_expect(dq < 1e-12 && di < 1e-12 && d.gquat < 1e-12 && d.gsize < 1e-12 && d.gpos < 1e-12 &&
            d.vert < 1e-6, "mug against MuJoCo 3.14: iquat %g inertia %g gquat %g gsize %g gpos %g "
            "vert %g", dq, di, d.gquat, d.gsize, d.gpos, d.vert);
  mc_deleteModel(m);
  mt_freeFields(&ref);
  cJSON_Delete(out);
}


// the Franka Panda (issue 19: its qM moved by 1e-8 between 3.3.8 and 3.14): every body's
// principal axes and inertias as 3.14's, to 1e-12
Test(eig314, panda_bodies_match_mujoco314, .timeout = 600) {
  const char* models[2] = {"panda.xml", NULL};
  const char* dir = "/work/shared/corpus/menagerie_franka_panda_2023";
  cJSON* out = mt_referenceVersion(dir, models, "3.14.0");
  mtRefFields ref;
  mt_refFields(out, 0, &ref);
  char err[1024] = "", path[256];
  snprintf(path, sizeof(path), "%s/panda.xml", dir);
  tu_legacy222Compile(0);
  mcModel* m = mc_loadXML(path, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  double dq, di;
  int worst;
  bodyDiff(m, &ref.f, &dq, &di, &worst);
  fprintf(stderr, "panda bodies vs 3.14: iquat %.1e inertia %.1e\n", dq, di);
  cr_expect(dq < 1e-12 && di < 1e-12, "panda body %d: iquat %g inertia %g from MuJoCo 3.14", worst,
            dq, di);
  mc_deleteModel(m);
  mt_freeFields(&ref);
  cJSON_Delete(out);
}
