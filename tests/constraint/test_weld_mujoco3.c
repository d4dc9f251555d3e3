// Equality rows against MuJoCo 3.14.0 (tests/constraint/weld_ref.mjs): a weld's orientation rows
// take the bodies' rotational inverse weights (2.2.2 gave them the translational ones, which the
// 2.2.2 suites emulate with tu_legacyWeldWeights), so a weld to a mocap body and a weld between
// free bodies posed apart give MuJoCo 3.14's diagApprox, R, D, forces and accelerations. Connect
// and weld rows between moving bodies: efc_aref less dJ/dt qvel, as MuJoCo 3.14 (the 2.2.2 suites
// leave it out with tu_legacy222). Bodies moved by sliders alone: the inverse weights of a free
// mass (1/mass) in body_invweight0, dof_invweight0 and the contact rows, as MuJoCo 3.x.
#include <math.h>
#include <stdio.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>

#include <moduco/moduco.h>

#include "testutil.h"

#define MODEL_DIR MODUCO_SOURCE_DIR "/tests/constraint/models/"

// worst relative error of n numbers of field key against the reference object
static double fieldErr(const cJSON* ref, const char* key, const double* got, int n) {
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(ref, key);
  cr_assert(cJSON_IsArray(a) && cJSON_GetArraySize(a) == n, "%s: expected %d numbers", key, n);
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double w = cJSON_GetArrayItem(a, i)->valuedouble;
    worst = fmax(worst, fabs(got[i] - w) / fmax(1, fabs(w)));
  }
  return worst;
}


static void compareModel(const char* file) {
  TU_MJS314_REQUIRE();
  char err[512];
  const char* args[] = {file, NULL};
  cJSON* ref = tu_mjs3Json("tests/constraint/weld_ref.mjs", args, NULL, err, sizeof(err));
  cr_assert(ref, "%s: %s", file, err);
  mcModel* m = mc_loadXML(file, err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  if (m->nkey) {
    mc_resetDataKeyframe(m, d, 0);
  }
  mc_forward(m, d);
  double w = fmax(fieldErr(ref, "body_invweight0", m->body_invweight0, 2 * m->nbody),
                  fieldErr(ref, "dof_invweight0", m->dof_invweight0, m->nv));
  printf("%s invweight0: %.2e against MuJoCo 3.14\n", file, w);
  cr_expect(w <= 1e-12, "%s: body or dof_invweight0 differs from MuJoCo 3.14 by %g", file, w);
  int n = d->nefc;
  cr_assert_eq(n, cJSON_GetObjectItemCaseSensitive(ref, "nefc")->valueint, "%s: nefc", file);
  const struct {
    const char* key;
    const double* v;
    int n;
    double tol;
  } f[] = {{"efc_diagApprox", d->efc_diagApprox, n, 1e-9}, {"efc_R", d->efc_R, n, 1e-9},
           {"efc_D", d->efc_D, n, 1e-9}, {"efc_vel", d->efc_vel, n, 1e-12},
           {"efc_aref", d->efc_aref, n, 1e-10}, {"efc_force", d->efc_force, n, 1e-6},
           {"qacc", d->qacc, m->nv, 1e-6}};
  for (int k = 0; k < (int)(sizeof(f) / sizeof(f[0])); k++) {
    double e = fieldErr(ref, f[k].key, f[k].v, f[k].n);
    printf("%s %s: %.2e against MuJoCo 3.14\n", file, f[k].key, e);
    cr_expect(e <= f[k].tol, "%s: %s differs from MuJoCo 3.14 by %g", file, f[k].key, e);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
  cJSON_Delete(ref);
}


Test(weld_mujoco3, weld_to_mocap) {
  compareModel(MODEL_DIR "weld_mocap.xml");
}


Test(weld_mujoco3, weld_and_connect_between_free_bodies) {
  compareModel(MODEL_DIR "weld_free.xml");
}


Test(weld_mujoco3, velocity_term_between_moving_chains) {
  compareModel(MODEL_DIR "eq_moving_chains.xml");
}


Test(weld_mujoco3, velocity_term_between_free_bodies_and_sites) {
  compareModel(MODEL_DIR "eq_moving_free.xml");
}


Test(weld_mujoco3, slider_bodies_weights) {
  compareModel(MODEL_DIR "slider_bodies.xml");
}
