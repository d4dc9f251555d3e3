// MuJoCo 3.x physics attributes against MuJoCo 3.14 (tests/sensor/contact_ref.mjs): geom
// adhesion and surfacevel (implemented: core/engine/contact_surface.c; field by field in
// tests/constraint/test_surface_mujoco3.c) load and move as in 3.14 at neutral and other values;
// the sleep flag (core/engine/sleep.c; step by step in tests/engine/test_sleep.c) with
// sleep_tolerance moves as in 3.14, where it moves differently from the neutral model.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "contact_ref.h"
#include "testutil.h"

#define DIR MODUCO_SOURCE_DIR "/tests/compiler/models/mujoco314"
#define NSTEP 250

Test(mujoco3_attrs, neutral_values_load_and_move_as_mujoco314) {
  mrCase k;
  cr_open(&k, DIR, "neutral.xml", NSTEP);
  mr_compare(&k, "forward", "qacc", k.d->qacc, k.m->nv, 1e-6);
  mr_step(&k, NSTEP);
  mr_compare(&k, "stepped", "qpos", k.d->qpos, k.m->nq, 1e-6);
  mr_compare(&k, "stepped", "qvel", k.d->qvel, k.m->nv, 1e-5);
  // the slider has moved: the comparison is of motion
  cr_assert(k.d->qpos[7] > 0.55, "slider at x %g", k.d->qpos[7]);
  mr_close(&k);
}

Test(mujoco3_attrs, adhesion_and_surfacevel_move_as_mujoco314) {
  const char* files[] = {"adhesion.xml", "surfacevel.xml"};
  for (int i = 0; i < 2; i++) {
    mrCase k;
    cr_open(&k, DIR, files[i], NSTEP);
    mr_compare(&k, "forward", "qacc", k.d->qacc, k.m->nv, 1e-6);
    mr_step(&k, NSTEP);
    mr_compare(&k, "stepped", "qpos", k.d->qpos, k.m->nq, 1e-6);
    mr_compare(&k, "stepped", "qvel", k.d->qvel, k.m->nv, 1e-5);
    mr_close(&k);
  }
}

// qpos after NSTEP steps of each model in MuJoCo 3.14 (file names of DIR): the largest
// difference between the first and every other, in diff[1..n)
static void mujocoDiffs(const char* const* files, int n, double* diff) {
  TU_MJS314_REQUIRE();
  char err[1024] = "", steps[16];
  snprintf(steps, sizeof(steps), "%d", NSTEP);
  const char* args[8] = {DIR, steps};
  for (int i = 0; i < n; i++) {
    args[2 + i] = files[i];
  }
  args[2 + n] = NULL;
  cJSON* out = tu_mjs3Json("tests/sensor/contact_ref.mjs", args, NULL, err, sizeof(err));
  cr_assert_not_null(out, "MuJoCo 3.14 reference: %s", err);
  const cJSON* models = cJSON_GetObjectItemCaseSensitive(out, "models");
  const cJSON* q0 = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(models, 0), "stepped"), "qpos");
  for (int i = 1; i < n; i++) {
    const cJSON* mi = cJSON_GetArrayItem(models, i);
    cr_assert(!cJSON_GetObjectItemCaseSensitive(mi, "error"), "MuJoCo 3.14 refuses %s", files[i]);
    const cJSON* qi = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(mi, "stepped"), "qpos");
    diff[i] = 0;
    for (int j = 0; j < cJSON_GetArraySize(q0); j++) {
      diff[i] = fmax(diff[i], fabs(cJSON_GetArrayItem(qi, j)->valuedouble -
                                   cJSON_GetArrayItem(q0, j)->valuedouble));
    }
  }
  cJSON_Delete(out);
}

Test(mujoco3_attrs, sleep_moves_as_mujoco314) {
  mrCase k;
  cr_open(&k, DIR, "sleep.xml", NSTEP);
  mr_step(&k, NSTEP);
  mr_compare(&k, "stepped", "qpos", k.d->qpos, k.m->nq, 1e-6);
  mr_compare(&k, "stepped", "qvel", k.d->qvel, k.m->nv, 1e-5);
  mr_close(&k);

  // MuJoCo 3.14 loads each and moves differently from the neutral model (0.03 m of slide lost to
  // adhesion, the box carried 0.45 m by the surface, resting bodies frozen 0.13 mm higher)
  const char* files[] = {"neutral.xml", "adhesion.xml", "surfacevel.xml", "sleep.xml"};
  double diff[4];
  mujocoDiffs(files, 4, diff);
  for (int i = 1; i < 4; i++) {
    cr_assert(diff[i] > 1e-4, "%s moves as neutral.xml in MuJoCo 3.14 (qpos within %g)", files[i],
              diff[i]);
  }
}
