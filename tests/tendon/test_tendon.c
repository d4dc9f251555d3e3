// Tendons, transmissions and passive forces against MuJoCo 2.2.2: ten_length, ten_J,
// actuator_length, actuator_moment, qfrc_passive, qfrc_actuator and qacc at random states (1e-9
// relative, scale max(1, |ref|)); gravity compensation against its closed form; the refsite
// transmission against finite differences of its length.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "conformance.h"
#include "models.h"

#define TOL     1e-9
#define NSTATE  20
#define MODELS  "/usr/share/mujoco/model"

// silence Moduco's warnings in the test log
static void quiet(void* user, const char* message) {
}


// whole text of a file (caller frees)
static char* readFile(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* text = calloc(n + 1, 1);
  if (text && fread(text, 1, n, f) != (size_t)n) {
    free(text);
    text = NULL;
  }
  fclose(f);
  return text;
}


// load MJCF text in both engines or fail the test
static void loadOrFail(ConfPair* p, const char* name, const char* xml, const char* dir) {
  char error[2048] = "";
  int rc = conf_load(p, name, xml, dir, error, sizeof(error));
  cr_assert_eq(rc, 0, "%s", error);
  mc_setMessageHandler(quiet, NULL);
}


// worst relative error of got against ref; report the place in msg when above tol
static int compareArray(const char* model, const char* what, const char* label, const double* got,
                        const double* ref, int n, double tol, char* msg, int msg_sz) {
  double worst = 0;
  int at = -1;
  for (int i = 0; i < n; i++) {
    double e = fabs(got[i] - ref[i]) / fmax(1, fabs(ref[i]));
    if (!(e <= worst)) {
      worst = e;
      at = i;
    }
  }
  if (worst <= tol) {
    return 1;
  }
  size_t len = strlen(msg);
  snprintf(msg + len, msg_sz - len, "%s %s %s[%d]: got %.15g ref %.15g (err %.3g)\n", model, label,
           what, at, got[at], ref[at], worst);
  return 0;
}


// compare the tendon and transmission fields after both forwards; return failures
static int compareTendon(ConfPair* p, const char* label, char* msg, int msg_sz) {
  const mjModel* m = p->mj;
  const mjData* a = p->dj;
  const mcData* b = p->dc;
  int fail = 0;
  fail += !compareArray(p->name, "ten_length", label, b->ten_length, a->ten_length, m->ntendon,
                        TOL, msg, msg_sz);
  fail += !compareArray(p->name, "ten_J", label, b->ten_J, a->ten_J, m->ntendon * m->nv, TOL, msg,
                        msg_sz);
  fail += !compareArray(p->name, "ten_velocity", label, b->ten_velocity, a->ten_velocity,
                        m->ntendon, TOL, msg, msg_sz);
  fail += !compareArray(p->name, "actuator_length", label, b->actuator_length, a->actuator_length,
                        m->nu, TOL, msg, msg_sz);
  fail += !compareArray(p->name, "actuator_moment", label, b->actuator_moment, a->actuator_moment,
                        m->nu * m->nv, TOL, msg, msg_sz);
  fail += !compareArray(p->name, "actuator_velocity", label, b->actuator_velocity,
                        a->actuator_velocity, m->nu, TOL, msg, msg_sz);
  return fail;
}


// full forward comparison (kinematics, forces, qacc) plus tendon fields at random states
static void forwardModel(const char* name, const char* xml, const char* dir, int full,
                         unsigned long long seed) {
  // contacts are compared elsewhere
  char* free_xml = conf_disableContacts(xml);
  ConfPair p;
  loadOrFail(&p, name, free_xml, dir);
  free(free_xml);
  ConfRng r;
  conf_seed(&r, seed);
  char msg[8192] = "";
  int fail = 0;
  for (int s = 0; s < NSTATE && !fail; s++) {
    char label[64];
    snprintf(label, sizeof(label), "state %d", s);
    conf_randomState(&p, &r);
    if (full) {
      fail += conf_forwardCompare(&p, label, TOL, msg, sizeof(msg));
    } else {
      mj_forward(p.mj, p.dj);
      mc_forward(p.mc, p.dc);
      fail += !compareArray(name, "qfrc_passive", label, p.dc->qfrc_passive, p.dj->qfrc_passive,
                            p.mj->nv, TOL, msg, sizeof(msg));
    }
    fail += compareTendon(&p, label, msg, sizeof(msg));
  }
  conf_free(&p);
  cr_assert_eq(fail, 0, "%s", msg);
}


// a model file from the MuJoCo distribution without contacts
static void forwardFile(const char* file, int full, unsigned long long seed) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", MODELS, file);
  char* xml = readFile(path);
  cr_assert_not_null(xml, "cannot read %s", path);
  char dir[512];
  snprintf(dir, sizeof(dir), "%s", path);
  *strrchr(dir, '/') = 0;
  forwardModel(file, xml, NULL, full, seed);
  free(xml);
}


Test(tendon, spatial_wrap_pulley) {
  forwardModel("spatial", tendon_model_spatial, NULL, 1, 11);
}


Test(tendon, fixed_and_joint_transmissions) {
  forwardModel("fixed", tendon_model_fixed, NULL, 1, 12);
}


Test(tendon, arm26_tendons_and_moments) {
  // the muscles are compared elsewhere: lengths, moment arms and passive forces only
  forwardFile("tendon_arm/arm26.xml", 0, 13);
}


Test(transmission, slider_crank) {
  forwardFile("slider_crank/slider_crank.xml", 1, 14);
}


Test(transmission, site) {
  forwardModel("site", tendon_model_site, NULL, 1, 15);
}


Test(passive, gravcomp_closed_form) {
  // closed form: qfrc_passive = sum_b J_b(com)' * (-gravcomp_b * mass_b * gravity)
  char err[512] = "";
  mcModel* m = mc_loadXMLString(tendon_model_gravcomp, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  mcData* d = mc_makeData(m);
  ConfRng r;
  conf_seed(&r, 18);
  int nv = m->nv;
  double* ref = calloc(nv, sizeof(double));
  double* jac = calloc(3 * nv, sizeof(double));
  double worst = 0;
  for (int s = 0; s < NSTATE; s++) {
    // random configuration, random velocity (gravcomp does not depend on it)
    mc_resetData(m, d);
    for (int i = 0; i < m->nq; i++) {
      d->qpos[i] = conf_uniform(&r, -1, 1);
    }
    mc_normalizeQuat(m, d->qpos);
    for (int i = 0; i < nv; i++) {
      d->qvel[i] = conf_uniform(&r, -1, 1);
    }
    mc_forward(m, d);

    // reference from finite differences of the com positions: J = d xipos / d q
    memset(ref, 0, sizeof(double) * nv);
    mcData* e = mc_makeData(m);
    for (int j = 0; j < nv; j++) {
      double h = 1e-6, dq[64] = {0};
      double* xp = calloc(3 * m->nbody, sizeof(double));
      double* xm = calloc(3 * m->nbody, sizeof(double));
      for (int sg = 0; sg < 2; sg++) {
        memcpy(e->qpos, d->qpos, sizeof(double) * m->nq);
        memset(dq, 0, sizeof(dq));
        dq[j] = sg ? -1 : 1;
        mc_integratePos(m, e->qpos, dq, h);
        mc_kinematics(m, e);
        memcpy(sg ? xm : xp, e->xipos, sizeof(double) * 3 * m->nbody);
      }
      for (int b = 1; b < m->nbody; b++) {
        for (int k = 0; k < 3; k++) {
          double dx = (xp[3 * b + k] - xm[3 * b + k]) / (2 * h);
          ref[j] -= dx * m->body_gravcomp[b] * m->body_mass[b] * m->opt.gravity[k];
        }
      }
      free(xp);
      free(xm);
    }
    mc_deleteData(e);
    for (int j = 0; j < nv; j++) {
      double err1 = fabs(d->qfrc_passive[j] - ref[j]) / fmax(1, fabs(ref[j]));
      worst = fmax(worst, err1);
    }
  }
  free(ref);
  free(jac);
  mc_deleteData(d);
  mc_deleteModel(m);
  // central differences: truncation error ~h^2
  cr_assert_lt(worst, 1e-8, "gravcomp error %g", worst);
}
