// MJCF features that change the physics, on small models of tests/compiler/models compared field
// by field with MuJoCo 3.14.0 (model_ref.h), and their refusals.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include <moduco/moduco.h>

#include "model_ref.h"
#include "testutil.h"

#define TOL_COMPILE 1e-12   // compiled constants: same formulas
#define TOL_FORWARD 1e-9    // one forward pass
#define TOL_STEPPED 1e-6    // after 20 steps

// the compile error of an MJCF text (empty when it compiles)
static void compileError(const char* xml, char* err, int err_sz) {
  err[0] = 0;
  mcModel* m = mc_loadXMLString(xml, NULL, err, err_sz);
  if (m) {
    err[0] = 0;
    mc_deleteModel(m);
  }
}

//---------------------------------- joint actuatorfrcrange ----------------------------------------

Test(actuatorfrcrange, franka_like_arm_clamped_as_mujoco) {
  mrCase k;
  mr_open(&k, "franka_frc.xml", 20);
  int nj = k.m->njnt, lim[16];
  for (int j = 0; j < nj; j++) {
    lim[j] = k.m->jnt_actfrclimited[j];
  }
  mr_compareInt(&k, NULL, "jnt_actfrclimited", lim, nj);
  mr_compare(&k, NULL, "jnt_actfrcrange", k.m->jnt_actfrcrange, 2 * nj, 0);

  // the servos ask for thousands of N m: the joints receive their limits (j7 is not limited)
  mr_compare(&k, "forward", "actuator_force", k.d->actuator_force, k.m->nu, TOL_FORWARD);
  mr_compare(&k, "forward", "qfrc_actuator", k.d->qfrc_actuator, k.m->nv, TOL_FORWARD);
  cr_assert_eq(k.d->qfrc_actuator[0], 87);
  cr_assert_eq(k.d->qfrc_actuator[1], -87);
  cr_assert_gt(fabs(k.d->qfrc_actuator[6]), 1000);
  mr_compare(&k, "forward", "qfrc_passive", k.d->qfrc_passive, k.m->nv, TOL_FORWARD);
  mr_compare(&k, "forward", "qacc", k.d->qacc, k.m->nv, TOL_FORWARD);

  mr_step(&k, 20);
  mr_compare(&k, "stepped", "qpos", k.d->qpos, k.m->nq, TOL_STEPPED);
  mr_compare(&k, "stepped", "qfrc_actuator", k.d->qfrc_actuator, k.m->nv, TOL_STEPPED);
  mr_close(&k);
}

Test(actuatorfrcrange, refusals_and_auto) {
  char err[512];
  // a range without actuatorfrclimited under autolimits=false: an error, as limited
  compileError("<mujoco><compiler autolimits='false'/><worldbody><body><joint "
               "actuatorfrcrange='-1 1'/><geom size='1'/></body></worldbody></mujoco>",
               err, sizeof(err));
  cr_assert(strstr(err, "actuatorfrcrange"), "got '%s'", err);
  compileError("<mujoco><worldbody><body><joint actuatorfrcrange='1 -1'/><geom size='1'/></body>"
               "</worldbody></mujoco>", err, sizeof(err));
  cr_assert(strstr(err, "invalid actuatorfrcrange"), "got '%s'", err);
  // the tendon's actuatorfrcrange must hold 0 (test_compose.c compares the clamp with 3.14)
  compileError("<mujoco><worldbody><body><joint name='j'/><geom size='1'/><site name='s'/>"
               "</body></worldbody><tendon><fixed actuatorfrcrange='0.5 1'><joint joint='j' "
               "coef='1'/></fixed></tendon></mujoco>", err, sizeof(err));
  cr_assert(strstr(err, "invalid tendon actuatorfrcrange"), "got '%s'", err);
  compileError("<mujoco><worldbody><body><joint actuatorgravcomp='false' "
               "actuatorfrclimited='false' actuatorfrcrange='-1 1'/><geom size='1'/></body>"
               "</worldbody></mujoco>", err, sizeof(err));
  cr_assert_str_empty(err);
}

//---------------------------------- inertiagrouprange ---------------------------------------------

Test(inertiagrouprange, mixed_groups_as_mujoco) {
  mrCase k;
  mr_open(&k, "inertiagroup.xml", 0);
  int nb = k.m->nbody;
  mr_compare(&k, NULL, "body_mass", k.m->body_mass, nb, TOL_COMPILE);
  mr_compare(&k, NULL, "body_ipos", k.m->body_ipos, 3 * nb, TOL_COMPILE);
  mr_compare(&k, NULL, "body_inertia", k.m->body_inertia, 3 * nb, TOL_COMPILE);
  mr_compare(&k, NULL, "body_iquat", k.m->body_iquat, 4 * nb, TOL_COMPILE);
  mr_compare(&k, "forward", "qacc", k.d->qacc, k.m->nv, TOL_FORWARD);
  mr_close(&k);
}

//---------------------------------- refusals (the audit, docs/mjcf-audit.md) ----------------------

// each text must fail to compile with a message naming its line (2) and holding want
static void refused(const char* body, const char* want) {
  char xml[2048], err[512];
  snprintf(xml, sizeof(xml), "<mujoco>\n%s\n</mujoco>", body);
  compileError(xml, err, sizeof(err));
  cr_assert(strstr(err, want), "'%s': expected '%s' in '%s'", body, want, err);
  cr_assert(strstr(err, ":2:") || strstr(err, "line 2"), "'%s': no line in '%s'", body, err);
}

Test(audit, physics_attributes_not_implemented_are_refused) {
  refused("<worldbody><geom name='a' size='1'/><geom name='b' size='1'/></worldbody><contact>"
          "<pair geom1='a' geom2='b' solreffriction='0.01 1'/></contact>", "solreffriction");
  // geom adhesion and surfacevel are implemented (test_surface_mujoco3); bad values refused
  refused("<worldbody><geom size='1' adhesion='nan'/></worldbody>", "adhesion");
  refused("<worldbody><geom size='1' adhesion='1 2'/></worldbody>", "adhesion");
  refused("<worldbody><geom size='1' surfacevel='1 0 inf'/></worldbody>", "surfacevel");
  refused("<worldbody><geom size='1' surfacevel='1 0 0 0 0 0 1'/></worldbody>", "surfacevel");
  refused("<default><geom surfacevel='1 x'/></default>", "surfacevel");
  // the sleep flag is implemented (tests/engine/test_sleep.c); a body's sleep policy only on the
  // root of a kinematic tree (MuJoCo 3.14.0 crashes elsewhere)
  refused("<worldbody><body sleep='never'><geom size='1'/></body></worldbody>", "sleep");
  refused("<worldbody><body><joint/><geom size='1'/><body sleep='init'><joint/><geom size='1'/>"
          "</body></body></worldbody>", "sleep");
  refused("<worldbody><body sleep='sometimes'><joint/><geom size='1'/></body></worldbody>",
          "sleep");
  // <attach>, weld sites, tendon actuatorfrcrange, alignfree: test_compose.c (MuJoCo 3.14)
}

Test(audit, deformables_are_out_of_scope) {
  refused("<worldbody><flexcomp name='f' type='grid' count='2 2 1' spacing='1 1 1'/>"
          "</worldbody>", "out of Moduco's scope");
  refused("<worldbody><composite type='cable' count='4 1 1'/></worldbody>",
          "out of Moduco's scope");
  refused("<deformable><flex name='f' dim='1' body='world world' vertex='0 0 0 1 0 0' "
          "element='0 1'/></deformable>", "out of Moduco's scope");
}

Test(audit, no_op_options_keep_the_physics) {
  // discardvisual and fusestatic change the model's layout, not its physics (checked against
  // MuJoCo 3.3.8 when the audit was written); exactmeshinertia has no effect in MuJoCo 3
  char err[512];
  compileError("<mujoco><compiler discardvisual='true' fusestatic='true' exactmeshinertia='true' "
               "alignfree='false' fitaabb='false'/><worldbody><body><freejoint align='false'/>"
               "<geom size='1'/></body></worldbody></mujoco>", err, sizeof(err));
  cr_assert_str_empty(err);
}

//---------------------------------- primitives sized from a mesh ----------------------------------

static void meshFit(const char* file) {
  mrCase k;
  mr_open(&k, file, 10);
  int ng = k.m->ngeom, nb = k.m->nbody;
  mr_compareInt(&k, NULL, "geom_type", k.m->geom_type, ng);
  mr_compare(&k, NULL, "geom_size", k.m->geom_size, 3 * ng, 1e-6);
  mr_compare(&k, NULL, "geom_pos", k.m->geom_pos, 3 * ng, 1e-6);
  mr_compare(&k, NULL, "geom_quat", k.m->geom_quat, 4 * ng, 1e-6);
  mr_compare(&k, NULL, "geom_rbound", k.m->geom_rbound, ng, 1e-6);
  mr_compare(&k, NULL, "body_mass", k.m->body_mass, nb, 1e-6);
  mr_compare(&k, NULL, "body_inertia", k.m->body_inertia, 3 * nb, 1e-6);
  mr_step(&k, 10);
  mr_compare(&k, "stepped", "qpos", k.d->qpos, k.m->nq, 1e-6);
  mr_close(&k);
}

Test(meshfit, inertia_box_as_mujoco) {
  meshFit("meshfit.xml");
}

Test(meshfit, fitaabb_as_mujoco) {
  meshFit("meshfit_aabb.xml");
}

//---------------------------------- keyframe quaternions -----------------------------------------

// key_qpos and key_mquat as MuJoCo 3.14 compiles them, and the forward pass at each keyframe
Test(keyframe, quaternions_normalized_as_mujoco) {
  mrCase k;
  mr_open(&k, "key_quat.xml", 0);
  cr_assert_eq(k.m->nkey, 2);
  mr_compare(&k, NULL, "key_qpos", k.m->key_qpos, k.m->nkey * k.m->nq, TOL_COMPILE);
  mr_compare(&k, NULL, "key_mquat", k.m->key_mquat, k.m->nkey * 4 * k.m->nmocap, TOL_COMPILE);
  mr_compare(&k, "forward", "qacc", k.d->qacc, k.m->nv, TOL_FORWARD);
  // the first ball joint's quaternion is unit length (MuJoCo's to the last bit), zero ones are
  // the identity (second key: the ball quaternion of norm 1.4e-16, the free one of 1e-20)
  const mcNum* q = k.m->key_qpos;
  cr_assert_float_eq(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1, 1e-15);
  const mcNum* t = k.m->key_qpos + k.m->nq;
  cr_assert(t[0] == 1 && t[1] == 0 && t[11] == 1 && t[12] == 0, "%g %g %g %g", t[0], t[1], t[11],
            t[12]);
  mr_close(&k);
}

//---------------------------------- connect between sites -----------------------------------------

// At rest and along 20 steps against 3.14 (the trajectory includes the velocity term dJ/dt qvel of
// the connect rows, which 3.3.8 leaves out: 2% of qacc at this model's qvel, docs/mujoco3.md).
Test(connect, sites_as_mujoco) {
  mrCase k;
  mr_open(&k, "connect_sites.xml", 0);
  int nv = k.m->nv;
  mr_compare(&k, "forward", "qfrc_constraint", k.d->qfrc_constraint, nv, TOL_FORWARD);
  mr_compare(&k, "forward", "qacc", k.d->qacc, nv, TOL_FORWARD);
  mr_close(&k);
  mr_open(&k, "connect_sites.xml", 20);
  mr_step(&k, 20);
  mr_compare(&k, "stepped", "qpos", k.d->qpos, k.m->nq, TOL_STEPPED);
  mr_compare(&k, "stepped", "qvel", k.d->qvel, nv, TOL_STEPPED);
  mr_close(&k);

  char err[512];
  compileError("<mujoco><worldbody><site name='s'/><body name='b'><joint/><geom size='1'/>"
               "<site name='t'/></body></worldbody><equality><connect site1='s' site2='t' "
               "body1='b' anchor='0 0 0'/></equality></mujoco>", err, sizeof(err));
  cr_assert(strstr(err, "either"), "got '%s'", err);
  // <weld site1 site2>: tests/compiler/test_compose.c (against MuJoCo 3.14)
}

//---------------------------------- assets of included files --------------------------------------

Test(include, assets_from_the_model_folder_first) {
  mrCase k;
  mr_open(&k, "include_both.xml", 0);
  mr_compare(&k, NULL, "body_mass", k.m->body_mass, k.m->nbody, TOL_COMPILE);
  cr_assert_float_eq(k.m->body_mass[1], 1000 * 2.0 / 6, 1e-9);
  mr_close(&k);
}

Test(include, assets_next_to_the_included_file) {
  char err[512];
  mcModel* m = mc_loadXML(MR_MODEL_DIR "/include_beside.xml", err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_float_eq(m->body_mass[1], 1000 * 3.0 / 6, 1e-9);
  mc_deleteModel(m);
}
