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
#include "testutil.h"

#define TOL     1e-9
#define NSTATE  20
#define MODELS  "/usr/share/mujoco/model"

// silence Moduco's warnings in the test log
static void quiet(void* user, const char* message) {
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
  char* xml = tu_readFile(path);
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


// random configurations of the wrap: ends anywhere outside the geoms, the side site inside or
// outside them (inside: the path touches the surface at one point; outside: the side chooses the
// wrap, and a segment missing the geom wraps on the side site's side); ten_length and ten_J
Test(tendon, sidesite_random_configurations) {
  char* xml = conf_disableContacts(tendon_model_sidesite);
  ConfPair p;
  loadOrFail(&p, "sidesite", xml, NULL);
  free(xml);
  ConfRng r;
  conf_seed(&r, 41);
  char msg[8192] = "";
  int fail = 0, wraps = 0, single = 0;
  for (int s = 0; s < 4000 && fail < 3; s++) {
    // holder pose, both ends in a box around the geoms, the side site nearer (scale varies)
    double sr = s % 2 ? 1.2 : 2.5;
    for (int i = 0; i < p.mj->nq; i++) {
      double lo = i < 2 ? -0.5 : (i < 8 ? -3 : -sr);
      double v = conf_uniform(&r, lo, -lo);
      p.dj->qpos[i] = v;
      p.dc->qpos[i] = v;
    }
    mj_forward(p.mj, p.dj);
    mc_forward(p.mc, p.dc);
    char label[64];
    snprintf(label, sizeof(label), "configuration %d", s);
    fail += !compareArray("sidesite", "ten_length", label, p.dc->ten_length, p.dj->ten_length,
                          p.mj->ntendon, TOL, msg, sizeof(msg));
    fail += !compareArray("sidesite", "ten_J", label, p.dc->ten_J, p.dj->ten_J,
                          p.mj->ntendon * p.mj->nv, TOL, msg, sizeof(msg));

    // count the wrapped cases and the one-point (side site inside) ones
    for (int t = 0; t < 2; t++) {
      int adr = p.dj->ten_wrapadr[t];
      if (p.dj->ten_wrapnum[t] == 4) {
        wraps++;
        const double* w = p.dj->wrap_xpos + 3 * (adr + 1);
        single += w[0] == w[3] && w[1] == w[4] && w[2] == w[5];
      }
    }
  }
  conf_free(&p);
  fprintf(stderr, "sidesite: %d wraps, %d through one point\n", wraps, single);
  cr_assert_eq(fail, 0, "%s", msg);
  cr_assert_gt(single, 500);
  cr_assert_gt(wraps - single, 1000);
}


Test(transmission, slider_crank) {
  forwardFile("slider_crank/slider_crank.xml", 1, 14);
}


Test(transmission, site) {
  forwardModel("site", tendon_model_site, NULL, 1, 15);
}


// adhesion: MuJoCo steps the model (ctrl on, then reduced: the hanger drops, a negative ctrl is
// clamped to 0); every 100 steps Moduco takes its state and both run forward: contacts,
// actuator_length, actuator_moment, qfrc_actuator, qacc (the Newton solvers agree to ~1e-12).
// The initial state (face-face box overlap) is left out: the box-box contact counts differ there.
static void adhesionCompare(const char* name, const char* xml) {
  ConfPair p;
  loadOrFail(&p, name, xml, NULL);
  const mjModel* m = p.mj;
  mjData* a = p.dj;
  mcData* b = p.dc;
  int nv = m->nv, nu = m->nu, fail = 0, held = 1;
  char msg[8192] = "";
  double worst = 0;
  for (int s = 0; s <= 1000 && !fail; s++) {
    for (int i = 0; i < nu; i++) {
      a->ctrl[i] = s < 500 ? 1 - 0.2 * i : 0.3 * i - 0.2;
    }
    if (s > 0 && s % 100 == 0) {
      // same state in Moduco
      memcpy(b->qpos, a->qpos, sizeof(double) * m->nq);
      memcpy(b->qvel, a->qvel, sizeof(double) * nv);
      memcpy(b->ctrl, a->ctrl, sizeof(double) * nu);
      memcpy(b->qacc_warmstart, a->qacc_warmstart, sizeof(double) * nv);
      mj_forward(m, a);
      mc_forward(p.mc, b);
      char label[64];
      snprintf(label, sizeof(label), "step %d", s);
      if (a->ncon != b->ncon) {
        fail++;
        snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), "%s: ncon %d vs %d\n", label,
                 b->ncon, a->ncon);
        break;
      }
      fail += !compareArray(name, "actuator_length", label, b->actuator_length,
                            a->actuator_length, nu, TOL, msg, sizeof(msg));
      fail += !compareArray(name, "actuator_moment", label, b->actuator_moment,
                            a->actuator_moment, nu * nv, TOL, msg, sizeof(msg));
      fail += !compareArray(name, "qfrc_actuator", label, b->qfrc_actuator, a->qfrc_actuator, nv,
                            TOL, msg, sizeof(msg));
      fail += !compareArray(name, "qacc", label, b->qacc, a->qacc, nv, TOL, msg, sizeof(msg));
      for (int i = 0; i < nv; i++) {
        worst = fmax(worst, fabs(b->qacc[i] - a->qacc[i]) / fmax(1, fabs(a->qacc[i])));
      }

      // while ctrl is on: every adhesion body in contact (a nonzero moment row), the hanger held
      for (int i = 0; i < nu && s < 500; i++) {
        double norm = 0;
        for (int j = 0; j < nv; j++) {
          norm += fabs(a->actuator_moment[i * nv + j]);
        }
        if (!(norm > 0.5)) {
          fail++;
          snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), "%s: actuator %d not in contact\n",
                   label, i);
        }
      }
      held &= s >= 500 || a->qpos[9] > 0.52;
    }
    mj_step(m, a);
  }
  conf_free(&p);
  fprintf(stderr, "adhesion (%s): worst qacc error %.3g\n", name, worst);
  cr_assert_eq(fail, 0, "%s", msg);
  cr_assert(held, "the hanger fell while the adhesion was on");
}


Test(transmission, adhesion_pyramidal) {
  adhesionCompare("adhesion", tendon_model_adhesion);
}


Test(transmission, adhesion_elliptic) {
  const char* key = "iterations='200'";
  const char* at = strstr(tendon_model_adhesion, key);
  cr_assert_not_null(at);
  ConfText t = {0};
  conf_printf(&t, "%.*s%s cone='elliptic'%s", (int)(at - tendon_model_adhesion),
              tendon_model_adhesion, key, at + strlen(key));
  adhesionCompare("adhesion_elliptic", t.buf);
  free(t.buf);
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


//---------------------------------- fluid forces --------------------------------------------------

// forward comparison at random states; flg_mjfluid copies MuJoCo's added-mass constants
// geom_fluid[6..11] into the Moduco model first (MuJoCo integrates kappa numerically, see below)
static void fluidForward(const char* name, const char* xml, const char* dir, int flg_mjfluid,
                         unsigned long long seed) {
  ConfPair p;
  loadOrFail(&p, name, xml, dir);
  if (flg_mjfluid) {
    for (int k = 0; k < mcNFLUID * p.mj->ngeom; k++) {
      p.mc->geom_fluid[k] = p.mj->geom_fluid[k];
    }
  }
  ConfRng r;
  conf_seed(&r, seed);
  char msg[8192] = "";
  int fail = 0;
  for (int s = 0; s < NSTATE && !fail; s++) {
    char label[64];
    snprintf(label, sizeof(label), "state %d", s);
    conf_randomState(&p, &r);
    fail += conf_forwardCompare(&p, label, TOL, msg, sizeof(msg));
  }
  conf_free(&p);
  cr_assert_eq(fail, 0, "%s", msg);
}


// a corpus model with its own flags, constraints switched off as well (the swimmer only
// disables contacts); qfrc_passive at random states, and qacc through M dqacc (the 50-link
// swimmer's M is ill-conditioned: qacc differs by ~3e-8 with fluid off as well)
static void fluidCorpus(const char* file, const char* from, const char* to,
                        unsigned long long seed) {
  char* xml = tu_readFile(file);
  cr_assert_not_null(xml, "cannot read %s", file);
  char* at = strstr(xml, from);
  cr_assert_not_null(at, "%s: no '%s'", file, from);
  size_t nf = strlen(from), nt = strlen(to), n = strlen(xml);
  char* text = calloc(n + nt + 1, 1);
  memcpy(text, xml, at - xml);
  memcpy(text + (at - xml), to, nt);
  strcpy(text + (at - xml) + nt, at + nf);
  char dir[512];
  snprintf(dir, sizeof(dir), "%s", file);
  *strrchr(dir, '/') = 0;

  ConfPair p;
  loadOrFail(&p, file, text, dir);
  free(text);
  free(xml);
  ConfRng r;
  conf_seed(&r, seed);
  int nv = p.mj->nv;
  double* dq = calloc(nv, sizeof(double));
  double* mdq = calloc(nv, sizeof(double));
  char msg[8192] = "";
  int fail = 0;
  double worst = 0;
  for (int s = 0; s < NSTATE && !fail; s++) {
    char label[64];
    snprintf(label, sizeof(label), "state %d", s);
    conf_randomState(&p, &r);
    mj_forward(p.mj, p.dj);
    mc_forward(p.mc, p.dc);
    fail += !compareArray(file, "qfrc_passive", label, p.dc->qfrc_passive, p.dj->qfrc_passive, nv,
                          TOL, msg, sizeof(msg));

    // M (qacc_moduco - qacc_mujoco) against the force scale
    double scale = 1;
    for (int i = 0; i < nv; i++) {
      dq[i] = p.dc->qacc[i] - p.dj->qacc[i];
      scale = fmax(scale, fabs(p.dj->qfrc_passive[i]) + fabs(p.dj->qfrc_bias[i]));
    }
    mj_mulM(p.mj, p.dj, mdq, dq);
    for (int i = 0; i < nv; i++) {
      worst = fmax(worst, fabs(mdq[i]) / scale);
    }
  }
  free(dq);
  free(mdq);
  conf_free(&p);
  cr_assert_eq(fail, 0, "%s", msg);
  cr_assert_lt(worst, TOL, "%s: |M dqacc| / force scale = %g", file, worst);
}


Test(passive, fluid_inertia_box) {
  char* xml = conf_disableContacts(tendon_model_fluidbox);
  fluidForward("fluidbox", xml, NULL, 0, 31);
  free(xml);
}


Test(passive, fluid_ellipsoid_forces) {
  // the runtime model with identical constants: every term to 1e-9
  char* xml = conf_disableContacts(tendon_model_fluidellipsoid);
  fluidForward("fluidellipsoid", xml, NULL, 1, 32);
  free(xml);
}


// kappa_i by composite Simpson in s = 1/sqrt(1 + l/c), an independent check of the compiler
static double kappaSimpson(const double r[3], int i) {
  int j = (i + 1) % 3, k = (i + 2) % 3, n = 200000;
  double c = fmin(r[0], fmin(r[1], r[2]));
  c *= c;
  double sum = 0;
  for (int q = 1; q <= n; q++) {
    double s = (double)q / n;
    double l = c * (1 / (s * s) - 1);
    double f = r[0] * r[1] * r[2] * 2 * c / (s * s * s)
               / sqrt(pow(r[i] * r[i] + l, 3) * (r[j] * r[j] + l) * (r[k] * r[k] + l));
    sum += (q == n ? 1 : (q % 2 ? 4 : 2)) * f;
  }
  return sum / (3.0 * n);
}


Test(passive, fluid_ellipsoid_added_mass) {
  // geom_fluid: shape and coefficients as MuJoCo; virtual masses from the exact kappa integral
  // (Carlson R_D) agree with an independent quadrature to 1e-10 and with MuJoCo 2.2.2, whose
  // own quadrature of the same integral is accurate to about 1e-6, to 2e-6
  ConfPair p;
  loadOrFail(&p, "fluidellipsoid", tendon_model_fluidellipsoid, NULL);
  double worst_mj = 0, worst_ref = 0;
  for (int g = 0; g < p.mj->ngeom; g++) {
    const mcNum* a = p.mc->geom_fluid + mcNFLUID * g;
    const mjtNum* b = p.mj->geom_fluid + mjNFLUID * g;
    for (int k = 0; k < 6; k++) {
      cr_assert_eq(a[k], b[k], "geom %d fluid[%d]: %.17g vs %.17g", g, k, a[k], b[k]);
    }
    if (a[0] == 0) {
      continue;
    }
    for (int k = 6; k < 12; k++) {
      worst_mj = fmax(worst_mj, fabs(a[k] - b[k]) / fmax(1e-300, fabs(b[k])));
    }

    // masses from the quadrature: V kappa / (2 - kappa)
    double r[3];
    const mcNum* size = p.mc->geom_size + 3 * g;
    int type = p.mc->geom_type[g];
    r[0] = size[0];
    r[1] = type == mcGEOM_SPHERE || type == mcGEOM_CAPSULE || type == mcGEOM_CYLINDER ? size[0]
                                                                                      : size[1];
    r[2] = type == mcGEOM_SPHERE ? size[0]
           : type == mcGEOM_CAPSULE ? size[0] + size[1]
           : type == mcGEOM_CYLINDER ? size[1] : size[2];
    double vol = 4.0 / 3.0 * M_PI * r[0] * r[1] * r[2];
    for (int i = 0; i < 3; i++) {
      double kap = kappaSimpson(r, i);
      double ref = vol * kap / (2 - kap);
      worst_ref = fmax(worst_ref, fabs(a[6 + i] - ref) / ref);
    }
  }
  conf_free(&p);
  fprintf(stderr, "fluid added mass: vs quadrature %.3g, vs MuJoCo 2.2.2 %.3g\n", worst_ref,
          worst_mj);
  cr_assert_lt(worst_ref, 1e-10);
  cr_assert_lt(worst_mj, 2e-6);
}


Test(passive, fluid_fish) {
  // fish.xml already disables constraints (and gravity)
  fluidCorpus("/work/shared/corpus/dm_fish/fish.xml", "constraint=\"disable\"",
              "constraint=\"disable\"", 33);
}


Test(passive, fluid_swimmer50) {
  fluidCorpus("/work/shared/corpus/dm_swimmer50/swimmer50.xml", "<flag contact=\"disable\" />",
              "<flag contact=\"disable\" constraint=\"disable\"/>", 34);
}
