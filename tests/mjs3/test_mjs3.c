// Conformance against MuJoCo 3.14.0 (npm package @mujoco/mujoco 3.14.0, WebAssembly, run by Node;
// MuJoCo 3.3.8, mujoco-js 0.0.7, where a case documents a difference between the two).
//
// For each model, the same random initial state and constant controls go to both engines;
// tests/mjs3/run_mujoco.mjs steps MuJoCo, this file steps Moduco, and every recorded field of
// every step is compared with the relative error |a - b| / max(1, |b|) (b: MuJoCo). Contacts and
// constraints are disabled (smooth dynamics: the integrators are the subject). Tolerances are
// defined above the tests, with the figures measured when they were set (docs/mujoco3.md).
//
// The reference needs node in PATH and tests/mjs3/node_modules (npm ci, run by
// scripts/setup-debian.sh); without them the tests fail with that instruction.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>

#include <moduco/moduco.h>

#include "testutil.h"

#define MODEL_DIR   MODUCO_SOURCE_DIR "/tests/mjs3/models"
#define SAMPLE_DIR  "/usr/share/mujoco/model"
#define NSTEP       200

static const char* const integrators[] = {"euler", "rk4", "implicit", "implicitfast"};
#define NINTEGRATOR 4

// compared fields, in the order of the JSON records
enum { F_QPOS = 0, F_QVEL, F_ACT, F_QACC, F_PASSIVE, F_BIAS, F_ACTUATOR, F_TENLEN, F_M, NFIELD };
static const char* const field_names[NFIELD] = {
  "qpos", "qvel", "act", "qacc", "qfrc_passive", "qfrc_bias", "qfrc_actuator", "ten_length", "M"
};


//---------------------------------- environment ---------------------------------------------------

static void quiet(void* user, const char* message) {
  (void)user;
  (void)message;
}


//---------------------------------- random states -------------------------------------------------

typedef struct {
  double* qpos;
  double* qvel;
  double* act;
  double* ctrl;
} State;


// qpos0 perturbed joint by joint (unit quaternions stay unit), qvel in [-vs, vs], act and ctrl in
// their ranges (or [-1, 1])
static void randomState(const mcModel* m, State* s, unsigned long long seed, double qs, double vs) {
  TuRng r = {seed * 0x9E3779B97F4A7C15ULL + 1};
  s->qpos = calloc(m->nq + 1, sizeof(double));
  s->qvel = calloc(m->nv + 1, sizeof(double));
  s->act = calloc(m->na + 1, sizeof(double));
  s->ctrl = calloc(m->nu + 1, sizeof(double));
  cr_assert(s->qpos && s->qvel && s->act && s->ctrl);
  for (int i = 0; i < m->nq; i++) {
    s->qpos[i] = m->qpos0[i];
  }
  for (int j = 0; j < m->njnt; j++) {
    double* q = s->qpos + m->jnt_qposadr[j];
    int type = m->jnt_type[j];
    if (type == mcJNT_FREE) {
      for (int k = 0; k < 3; k++) {
        q[k] += tu_uniform(&r, -qs, qs);
      }
      q += 3;
    }
    if (type == mcJNT_FREE || type == mcJNT_BALL) {
      double n = 0;
      for (int k = 0; k < 4; k++) {
        q[k] += tu_uniform(&r, -qs, qs);
        n += q[k] * q[k];
      }
      for (int k = 0; k < 4; k++) {
        q[k] /= sqrt(n);
      }
    } else {
      q[0] += tu_uniform(&r, -qs, qs);
    }
  }
  for (int i = 0; i < m->nv; i++) {
    s->qvel[i] = tu_uniform(&r, -vs, vs);
  }
  for (int i = 0; i < m->nu; i++) {
    const mcNum* cr = m->actuator_ctrlrange + 2 * i;
    s->ctrl[i] = m->actuator_ctrllimited[i] ? tu_uniform(&r, cr[0], cr[1]) : tu_uniform(&r, -1, 1);
    if (m->actuator_actadr[i] >= 0) {
      const mcNum* ar = m->actuator_actrange + 2 * i;
      for (int k = 0; k < m->actuator_actnum[i]; k++) {
        s->act[m->actuator_actadr[i] + k] =
          m->actuator_actlimited[i] ? tu_uniform(&r, ar[0], ar[1]) : tu_uniform(&r, 0, 1);
      }
    }
  }
}


static void freeState(State* s) {
  free(s->qpos);
  free(s->qvel);
  free(s->act);
  free(s->ctrl);
}


//---------------------------------- running MuJoCo 3 ----------------------------------------------

static void printArray(FILE* f, const char* key, const double* x, int n) {
  fprintf(f, ",\"%s\":[", key);
  for (int i = 0; i < n; i++) {
    fprintf(f, "%s%.17g", i ? "," : "", x[i]);
  }
  fprintf(f, "]");
}


// run MuJoCo version ("3.14.0" or "3.3.8") on file once per integrator (NULL state: its defaults,
// nstep 1); return the parsed output (caller deletes) and the exit status of node in *status
static cJSON* runMujoco(const char* version, const char* file, const mcModel* m, const State* s,
                        const char* const* integ, int ninteg, int nstep, int* status) {
  char manifest[64];
  FILE* f = tu_tempFile(manifest, sizeof(manifest));
  cr_assert(f, "cannot create a temporary file in /tmp");
  fprintf(f, "{\"cases\":[");
  for (int k = 0; k < ninteg; k++) {
    fprintf(f, "%s{\"name\":\"%s\",\"file\":\"%s\",\"integrator\":\"%s\",\"nstep\":%d,"
            "\"smooth\":true", k ? "," : "", integ[k], file, integ[k], nstep);
    if (s) {
      printArray(f, "qpos", s->qpos, m->nq);
      printArray(f, "qvel", s->qvel, m->nv);
      printArray(f, "act", s->act, m->na);
      printArray(f, "ctrl", s->ctrl, m->nu);
    }
    fprintf(f, "}");
  }
  fprintf(f, "]}\n");
  fclose(f);

  const char* args[] = {"--mujoco", version, manifest, NULL};
  char err[1024];
  cJSON* out = tu_mjs3Json("tests/mjs3/run_mujoco.mjs", args, status, err, sizeof(err));
  remove(manifest);
  cr_assert(out, "%s", err);
  cr_assert_str_eq(cJSON_GetObjectItem(out, "version")->valuestring, version);
  cr_assert(*status == 0 || *status == 2, "run_mujoco.mjs failed (status %d)", *status);
  return out;
}


//---------------------------------- comparison ----------------------------------------------------

typedef struct {
  double err[NFIELD];             // worst relative error per field
  int step[NFIELD];               // at which step
} Worst;


static void compareArray(Worst* w, int field, int step, const double* got, const cJSON* ref,
                         int n) {
  cr_assert(cJSON_IsArray(ref) && cJSON_GetArraySize(ref) == n,
            "%s at step %d: MuJoCo has %d values, Moduco %d", field_names[field], step,
            cJSON_GetArraySize(ref), n);
  int i = 0;
  for (const cJSON* x = ref->child; x; x = x->next, i++) {
    double b = x->valuedouble;
    double e = fabs(got[i] - b) / fmax(1, fabs(b));
    if (!(e <= w->err[field])) {
      w->err[field] = isnan(e) ? INFINITY : e;
      w->step[field] = step;
      if (getenv("MJS3_TRACE") && e > 1e-10) {
        fprintf(stderr, "    %s[%d] step %d: %.17g vs %.17g\n", field_names[field], i, step, got[i],
                b);
      }
    }
  }
}


typedef struct {
  const char* file;               // model path
  unsigned long long seed;        // initial state
  double qscale, vscale;          // size of the qpos perturbation and of the velocities
  double tol;                     // bound on the worst relative error of every field
  const char* mjfile;             // the model MuJoCo loads, if not file
  double fluid_tol;               // > 0: check geom_fluid to this, then use MuJoCo's (see below)
  double lengthrange_tol;         // > 0: same for the muscles' lengthrange (and gain/bias prm)
} Case;

// the MuJoCo version compared with (3.3.8 only where a case says why)
static const char* version(const Case* c) {
  (void)c;
  return "3.14.0";
}


// compare a compiled constant with MuJoCo's (relative error), print it, then use MuJoCo's
static void adoptConstant(const Case* c, const char* name, mcNum* mine, const cJSON* ref, int n,
                          double tol, int report) {
  cr_assert(cJSON_IsArray(ref) && cJSON_GetArraySize(ref) == n, "%s: bad %s", c->file, name);
  double err = 0;
  int i = 0;
  for (const cJSON* x = ref->child; x; x = x->next, i++) {
    err = fmax(err, fabs(mine[i] - x->valuedouble) / fmax(1, fabs(x->valuedouble)));
    mine[i] = x->valuedouble;
  }
  if (report) {
    fprintf(stderr, "mjs3 %-28s %s worst relative difference %.3g\n", strrchr(c->file, '/') + 1,
            name, err);
  }
  cr_expect_leq(err, tol, "%s: %s differs from MuJoCo %s by %.3g", c->file, name, version(c), err);
}


// Moduco stepped from state s with integrator k against MuJoCo's record ref of the same run
// (MuJoCo version); the worst relative error over the fields and steps, printed, its field in *wf
static double compareRun(const Case* c, mcModel* m, const State* s, int k, const cJSON* ref,
                         const char* mjversion, int* wf) {
  char error[1024] = "";
  int nv = m->nv;
  double* M = malloc(sizeof(double) * (size_t)(nv * nv + 1));
  cr_assert(M);
  cr_assert_eq(mc_setIntegrator(m, integrators[k], error, sizeof(error)), 0, "%s", error);
  m->opt.disableflags |= mcDSBL_CONTACT | mcDSBL_CONSTRAINT;
  mcData* d = mc_makeData(m);
  cr_assert(d);
  memcpy(d->qpos, s->qpos, sizeof(double) * m->nq);
  memcpy(d->qvel, s->qvel, sizeof(double) * m->nv);
  memcpy(d->act, s->act, sizeof(double) * m->na);
  memcpy(d->ctrl, s->ctrl, sizeof(double) * m->nu);

  Worst w = {{0}, {0}};
  const cJSON* steps = cJSON_GetObjectItem(ref, "steps");
  cr_assert_eq(cJSON_GetArraySize(steps), NSTEP);
  int t = 0;
  for (const cJSON* st = steps->child; st; st = st->next, t++) {
    mc_step(m, d);
    mc_fullM(m, M, d->qM);
    const double* got[NFIELD] = {d->qpos, d->qvel, d->act, d->qacc, d->qfrc_passive,
                                 d->qfrc_bias, d->qfrc_actuator, d->ten_length, M};
    int n[NFIELD] = {m->nq, nv, m->na, nv, nv, nv, nv, m->ntendon, nv * nv};
    for (int f = 0; f < NFIELD; f++) {
      compareArray(&w, f, t, got[f], cJSON_GetObjectItem(st, field_names[f]), n[f]);
    }
    if (getenv("MJS3_TRACE")) {
      fprintf(stderr, "  %s step %d: worst qvel %.3g qacc %.3g M %.3g\n", integrators[k], t,
              w.err[F_QVEL], w.err[F_QACC], w.err[F_M]);
    }
  }
  mc_deleteData(d);
  free(M);

  double worst = 0;
  *wf = 0;
  for (int f = 0; f < NFIELD; f++) {
    if (w.err[f] > worst) {
      worst = w.err[f];
      *wf = f;
    }
  }
  fprintf(stderr, "mjs3 %-28s %-12s worst %.3g (%s, step %d); qpos %.3g qvel %.3g M %.3g "
          "(MuJoCo %s)\n", strrchr(c->file, '/') + 1, integrators[k], worst, field_names[*wf],
          w.step[*wf], w.err[F_QPOS], w.err[F_QVEL], w.err[F_M], mjversion);
  return worst;
}


// run one model with every integrator in both engines and compare; return the worst error
static double compareModel(const Case* c) {
  char error[1024] = "";
  mc_setMessageHandler(quiet, NULL);
  mcModel* m = mc_loadXML(c->file, error, sizeof(error));
  cr_assert(m, "Moduco cannot load %s: %s", c->file, error);
  State s;
  randomState(m, &s, c->seed, c->qscale, c->vscale);

  int status;
  const char* mjfile = c->mjfile ? c->mjfile : c->file;
  cJSON* out = runMujoco(version(c), mjfile, m, &s, integrators, NINTEGRATOR, NSTEP, &status);
  cr_assert_eq(status, 0, "MuJoCo %s could not run %s", version(c), mjfile);
  const cJSON* cases = cJSON_GetObjectItem(out, "cases");
  cr_assert_eq(cJSON_GetArraySize(cases), NINTEGRATOR);

  double worst_all = 0;
  for (int k = 0; k < NINTEGRATOR; k++) {
    const cJSON* ref = cJSON_GetArrayItem(cases, k);
    const cJSON* sizes[5] = {cJSON_GetObjectItem(ref, "nq"), cJSON_GetObjectItem(ref, "nv"),
                             cJSON_GetObjectItem(ref, "na"), cJSON_GetObjectItem(ref, "nu"),
                             cJSON_GetObjectItem(ref, "ntendon")};
    int mine[5] = {m->nq, m->nv, m->na, m->nu, m->ntendon};
    for (int i = 0; i < 5; i++) {
      cr_assert(cJSON_IsNumber(sizes[i]) && sizes[i]->valueint == mine[i],
                "%s: model sizes differ (nq nv na nu ntendon, item %d)", c->file, i);
    }

    // constants from numerical procedures in both compilers, checked, then taken from MuJoCo so
    // that the dynamics are compared on equal constants: the ellipsoid model's added mass (a
    // quadrature) and the muscles' lengthrange (a simulation; gainprm and biasprm hold the
    // muscle's force scale and range, derived from it)
    if (c->fluid_tol > 0) {
      adoptConstant(c, "geom_fluid", m->geom_fluid, cJSON_GetObjectItem(ref, "geom_fluid"),
                    mcNFLUID * m->ngeom, c->fluid_tol, k == 0);
    }
    if (c->lengthrange_tol > 0) {
      adoptConstant(c, "actuator_lengthrange", m->actuator_lengthrange,
                    cJSON_GetObjectItem(ref, "actuator_lengthrange"), 2 * m->nu,
                    c->lengthrange_tol, k == 0);
      adoptConstant(c, "actuator_gainprm", m->actuator_gainprm,
                    cJSON_GetObjectItem(ref, "actuator_gainprm"), mcNGAIN * m->nu,
                    c->lengthrange_tol, k == 0);
      adoptConstant(c, "actuator_biasprm", m->actuator_biasprm,
                    cJSON_GetObjectItem(ref, "actuator_biasprm"), mcNBIAS * m->nu,
                    c->lengthrange_tol, k == 0);
    }

    // same integrator, flags and state; report, then check
    int wf;
    double worst = compareRun(c, m, &s, k, ref, version(c), &wf);
    const char* against = version(c);
    cr_expect_leq(worst, c->tol, "%s, %s: %s differs from MuJoCo %s by %.3g", c->file,
                  integrators[k], field_names[wf], against, worst);
    worst_all = fmax(worst_all, worst);
  }

  cJSON_Delete(out);
  freeState(&s);
  mc_deleteModel(m);
  return worst_all;
}


//---------------------------------- the models ----------------------------------------------------

// Tolerances, with what was measured when they were set (200 steps, the four integrators):
//   TOL              every field of every step; worst measured 7.1e-10 (humanoid, qacc), all
//                    other models <= 2e-12, qpos/qvel <= 6e-11: the margin is more than 100
//   FLUID_TOL        geom_fluid (ellipsoid added mass, a quadrature); measured 3.4e-10
//   LENGTHRANGE_TOL  muscle lengthrange (found by simulation); measured 3.8e-6 on arm26
#define TOL 1e-7
#define FLUID_TOL 1e-8
#define LENGTHRANGE_TOL 1e-4

// a test running one model (the Case fields, designated) in both engines
#define MJS3_MODEL_TEST(name, ...) \
  Test(mjs3, name) {               \
    Case c = {__VA_ARGS__};        \
    compareModel(&c);              \
  }

MJS3_MODEL_TEST(fixed_tendon, .file = MODEL_DIR "/fixed_tendon.xml", .seed = 1, .qscale = 0.3,
                .vscale = 1, .tol = TOL)

MJS3_MODEL_TEST(spatial_wrap, .file = MODEL_DIR "/spatial_wrap.xml", .seed = 2, .qscale = 0.3,
                .vscale = 1, .tol = TOL)

MJS3_MODEL_TEST(pulley, .file = MODEL_DIR "/pulley.xml", .seed = 3, .qscale = 0.1, .vscale = 0.5,
                .tol = TOL)

MJS3_MODEL_TEST(slider_crank, .file = MODEL_DIR "/slider_crank.xml", .seed = 4, .qscale = 0.3,
                .vscale = 1, .tol = TOL)

// site_transmission, gravcomp, fluid_box, fluid_ellipsoid, tendon_armature: a free body without
// children, which MuJoCo 3.14's implicitfast integrates as its implicit does (docs/mujoco3.md)
MJS3_MODEL_TEST(site_transmission, .file = MODEL_DIR "/site_transmission.xml", .seed = 5,
                .qscale = 0.3, .vscale = 1, .tol = TOL)

MJS3_MODEL_TEST(gravcomp, .file = MODEL_DIR "/gravcomp.xml", .seed = 6, .qscale = 0.3, .vscale = 1,
                .tol = TOL)

MJS3_MODEL_TEST(fluid_box, .file = MODEL_DIR "/fluid_box.xml", .seed = 7, .qscale = 0.3,
                .vscale = 1, .tol = TOL)

MJS3_MODEL_TEST(fluid_ellipsoid, .file = MODEL_DIR "/fluid_ellipsoid.xml", .seed = 8, .qscale = 0.3,
                .vscale = 1, .tol = TOL, .fluid_tol = FLUID_TOL)

MJS3_MODEL_TEST(actuators, .file = MODEL_DIR "/actuators.xml", .seed = 9, .qscale = 0.3,
                .vscale = 1, .tol = TOL)

MJS3_MODEL_TEST(tendon_armature, .file = MODEL_DIR "/tendon_armature.xml", .seed = 10,
                .qscale = 0.3, .vscale = 1, .tol = TOL)

// arm26.xml has an exact tie built in (world sites s0 and x0 perpendicular as seen from the
// shoulder axis): behind a shoulder angle near -1.8 the tendon BE either wraps or not (0.47 of
// length) by rounding, in both engines; this state stays clear of it for 200 steps (seed 11
// reaches it at step 150 and the trajectories part there)
MJS3_MODEL_TEST(arm26, .file = SAMPLE_DIR "/tendon_arm/arm26.xml", .seed = 12, .qscale = 0.1,
                .vscale = 0.2, .tol = TOL, .lengthrange_tol = LENGTHRANGE_TOL)

MJS3_MODEL_TEST(humanoid, .file = SAMPLE_DIR "/humanoid/humanoid.xml", .seed = 12, .qscale = 0.1,
                .vscale = 0.5, .tol = TOL)

// side-site tie of arm26.xml's shoulder (Moduco used to force a wrap there: path 0.9 vs 0.25)
MJS3_MODEL_TEST(wrap_side_tie, .file = MODEL_DIR "/wrap_side_tie.xml", .seed = 14, .qscale = 0.02,
                .vscale = 0.5, .tol = TOL)


// pulley.xml with "simple" bodies (implicitfast keeps only the diagonal of D on their dofs)
MJS3_MODEL_TEST(simple_bodies, .file = MODEL_DIR "/simple_bodies.xml", .seed = 3, .qscale = 0.1,
                .vscale = 0.5, .tol = TOL)

// MuJoCo 3.14's rule for simple bodies, their near misses, a chain and free bodies, each with
// couplings between its dofs (fluid, tendon damping, actuator velocity gains)
MJS3_MODEL_TEST(simple_rule, .file = MODEL_DIR "/simple_rule.xml", .seed = 15, .qscale = 0.3,
                .vscale = 1, .tol = TOL)


//---------------------------------- tendon armature: compiler -------------------------------------

// armature from a default class (the schema of MuJoCo 3.14, as 3.3.8's, refuses it there) against
// MuJoCo running the same model with the values written out
Test(mjs3, tendon_armature_default_class) {
  Case c = {.file = MODEL_DIR "/tendon_armature_default.xml", .seed = 13, .qscale = 0.3,
            .vscale = 1, .tol = TOL, .mjfile = MODEL_DIR "/tendon_armature_explicit.xml"};
  char error[1024] = "";
  mcModel* m = mc_loadXML(c.file, error, sizeof(error));
  cr_assert(m, "%s", error);
  cr_assert_eq(m->ntendon, 2);
  cr_expect_eq(m->tendon_armature[0], 0.3);
  cr_expect_eq(m->tendon_armature[1], 0.4);
  mc_deleteModel(m);
  compareModel(&c);
}


// armature on a tendon wrapping a geom: both engines refuse the model
Test(mjs3, tendon_armature_wrap_rejected) {
  const char* file = MODEL_DIR "/armature_wrap.xml";
  char error[1024] = "";
  mc_setMessageHandler(quiet, NULL);
  mcModel* m = mc_loadXML(file, error, sizeof(error));
  cr_assert_null(m, "Moduco accepted %s", file);
  cr_expect(strstr(error, "armature_wrap.xml:") && strstr(error, "armature"),
            "unclear error: %s", error);

  // MuJoCo 3.14 reports the case as failed to load (exit status 2)
  const char* one[] = {"euler"};
  int status;
  cJSON* out = runMujoco("3.14.0", file, NULL, NULL, one, 1, 1, &status);
  const cJSON* r = cJSON_GetArrayItem(cJSON_GetObjectItem(out, "cases"), 0);
  cr_expect_eq(status, 2);
  cr_expect(cJSON_IsString(cJSON_GetObjectItem(r, "error")), "MuJoCo 3.14 loaded %s", file);
  cJSON_Delete(out);
}


// negative armature: refused by Moduco with the tendon's location (MuJoCo 3.14, as 3.3.8, accepts
// it and builds an indefinite inertia; see docs/mujoco3.md)
Test(mjs3, tendon_armature_negative_rejected) {
  const char* xml =
    "<mujoco><worldbody><body><joint name='j' axis='0 1 0'/><geom size='0.1'/></body>"
    "</worldbody><tendon><fixed armature='-1'><joint joint='j' coef='1'/></fixed></tendon>"
    "</mujoco>";
  char error[1024] = "";
  mc_setMessageHandler(quiet, NULL);
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  cr_assert_null(m);
  cr_expect(strstr(error, "armature") && strstr(error, ":1"), "unclear error: %s", error);
}
