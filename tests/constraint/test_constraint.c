// Constraint assembly against MuJoCo 2.2.2: efc rows (type, id, pos, margin, frictionloss, J,
// diagApprox, KBIP, R, D, vel, aref) on the same positions, velocities and contacts.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bridge.h"
#include "engine/constraint.h"

#define MODEL_DIR MODUCO_SOURCE_DIR "/tests/constraint/models/"


// deterministic perturbation of the state
static void randomState(Bridge* b, unsigned seed, double qscale, double vscale) {
  unsigned long long s = 88172645463325252ULL + seed * 2654435761ULL;
  const mjModel* m = b->mj;
  mjData* d = b->dj;
  mj_resetData(m, d);
  for (int i = 0; i < m->nq; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    d->qpos[i] += qscale * ((double)(s % 20001) / 10000.0 - 1);
  }
  mj_normalizeQuat(m, d->qpos);
  for (int i = 0; i < m->nv; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    d->qvel[i] = vscale * ((double)(s % 20001) / 10000.0 - 1);
  }
}


// compare one efc field; returns the error
static double cmp(const char* model, const char* field, const double* got, const double* ref,
                  int n, double tol) {
  int at;
  double e = bridge_err(got, ref, n, &at);
  cr_expect(e <= tol, "%s: %s[%d] = %.12g, MuJoCo %.12g (err %.3g)", model, field, at,
            at >= 0 ? got[at] : 0, at >= 0 ? ref[at] : 0, e);
  return e;
}


static double checkAssembly(const char* file, unsigned seed, double qscale) {
  char error[1000];
  Bridge b;
  int rc = bridge_loadFile(&b, file, error, sizeof(error));
  cr_assert(rc == 0, "%s: %s", file, error);
  randomState(&b, seed, qscale, 0.5);
  bridge_forward(&b);
  const mjData* r = b.dj;
  const mcData* d = b.dc;
  int nv = b.mj->nv;
  cr_assert_eq(d->nefc, r->nefc, "%s: nefc %d, MuJoCo %d", file, d->nefc, r->nefc);
  cr_expect_eq(d->ne, r->ne, "%s: ne %d vs %d", file, d->ne, r->ne);
  cr_expect_eq(d->nf, r->nf, "%s: nf %d vs %d", file, d->nf, r->nf);
  int n = r->nefc;
  for (int i = 0; i < n; i++) {
    cr_expect_eq(d->efc_type[i], r->efc_type[i], "%s: efc_type[%d]", file, i);
    cr_expect_eq(d->efc_id[i], r->efc_id[i], "%s: efc_id[%d]", file, i);
  }
  double worst = 0;
  worst = fmax(worst, cmp(file, "efc_pos", d->efc_pos, r->efc_pos, n, 1e-9));
  worst = fmax(worst, cmp(file, "efc_margin", d->efc_margin, r->efc_margin, n, 1e-12));
  worst = fmax(worst, cmp(file, "efc_frictionloss", d->efc_frictionloss, r->efc_frictionloss,
                          n, 1e-12));
  worst = fmax(worst, cmp(file, "efc_J", d->efc_J, r->efc_J, n * nv, 1e-9));
  worst = fmax(worst, cmp(file, "efc_diagApprox", d->efc_diagApprox, r->efc_diagApprox, n,
                          1e-9));
  worst = fmax(worst, cmp(file, "efc_KBIP", d->efc_KBIP, r->efc_KBIP, 4 * n, 1e-9));
  worst = fmax(worst, cmp(file, "efc_R", d->efc_R, r->efc_R, n, 1e-9));
  worst = fmax(worst, cmp(file, "efc_D", d->efc_D, r->efc_D, n, 1e-9));
  worst = fmax(worst, cmp(file, "efc_vel", d->efc_vel, r->efc_vel, n, 1e-9));
  worst = fmax(worst, cmp(file, "efc_aref", d->efc_aref, r->efc_aref, n, 1e-9));
  for (int i = 0; i < r->ncon; i++) {
    cr_expect_eq(d->contact[i].efc_address, r->contact[i].efc_address, "%s: efc_address[%d]",
                 file, i);
    cr_expect(fabs(d->contact[i].mu - r->contact[i].mu) < 1e-12, "%s: mu[%d]", file, i);
  }
  bridge_free(&b);
  return worst;
}


Test(constraint, limits_frictionloss) {
  for (unsigned s = 0; s < 20; s++) {
    checkAssembly(MODEL_DIR "limits.xml", s, 0.4);
  }
}


Test(constraint, equality) {
  for (unsigned s = 0; s < 20; s++) {
    checkAssembly(MODEL_DIR "equality.xml", s, 0.3);
  }
}


Test(constraint, contact_pyramidal) {
  for (unsigned s = 0; s < 10; s++) {
    checkAssembly(MODEL_DIR "box_pyramidal.xml", s, 0.01);
  }
}


Test(constraint, contact_elliptic) {
  for (unsigned s = 0; s < 10; s++) {
    checkAssembly(MODEL_DIR "box_elliptic.xml", s, 0.01);
  }
}


Test(constraint, humanoid) {
  for (unsigned s = 0; s < 5; s++) {
    checkAssembly("/usr/share/mujoco/model/humanoid/humanoid.xml", s, 0.05);
  }
}


Test(constraint, impedance_curve) {
  // saturation, flat curve, and the midpoint continuity of the two power segments
  mcNum si[5] = {0.5, 0.9, 0.1, 0.3, 3}, imp, impP, lo, hi, dummy;
  mc_impedance(si, 0.2, &imp, &impP);
  cr_expect_float_eq(imp, 0.9, 1e-15);
  cr_expect_float_eq(impP, 0, 1e-15);
  mc_impedance(si, 0, &imp, &impP);
  cr_expect_float_eq(imp, 0.5, 1e-15);
  mc_impedance(si, 0.03 - 1e-9, &lo, &dummy);
  mc_impedance(si, 0.03 + 1e-9, &hi, &dummy);
  cr_expect(fabs(hi - lo) < 1e-6);
  mcNum flat[5] = {0.9, 0.9, 0.1, 0.5, 2};
  mc_impedance(flat, -0.05, &imp, &impP);
  cr_expect_float_eq(imp, 0.9, 1e-15);
}
