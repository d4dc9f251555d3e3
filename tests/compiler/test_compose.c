// MuJoCo 3.x MJCF features compared field by field with MuJoCo 3.14.0 (tests/compiler/ref314.mjs
// under Node, through tu_mjs3Json) on the models of tests/compiler/compose: the tendon actuator-
// force clamp, welds between sites and model composition with <attach>; and their refusals.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <moduco/moduco.h>

#include "model_ref.h"
#include "plugin/registry.h"
#include "testutil.h"

#define CP_DIR MODUCO_SOURCE_DIR "/tests/compiler/compose"
#define TOL_COMPILE 1e-12   // compiled constants: same formulas
#define TOL_FORWARD 1e-9    // one forward pass

// load file (relative to CP_DIR) in MuJoCo 3.14 and Moduco, both reset to the first keyframe
// (qpos0 without one) and run through forward
static void cpOpen(mrCase* k, const char* file) {
  TU_MJS314_REQUIRE();
  const char* args[] = {CP_DIR, file, NULL};
  mr_openRef(k, "tests/compiler/ref314.mjs", args, CP_DIR, file, "3.14");
}

// a size of the reference record equals Moduco's
static void cpSize(const mrCase* k, const char* field, int ours) {
  cr_assert_eq((int)mr_number(k, NULL, field), ours, "%s: Moduco %d, MuJoCo %d", field, ours,
               (int)mr_number(k, NULL, field));
}

// the names of n objects of type (Moduco) equal the reference list names.<key> ("" unnamed)
static void cpNames(const mrCase* k, const char* key, int type, int n) {
  const cJSON* list = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(k->ref, "names"), key);
  cr_assert_eq(cJSON_GetArraySize(list), n, "%s: %d names in MuJoCo, %d objects in Moduco", key,
               cJSON_GetArraySize(list), n);
  for (int i = 0; i < n; i++) {
    const char* ours = mc_id2name(k->m, type, i);
    const char* ref = cJSON_GetArrayItem(list, i)->valuestring;
    cr_assert_str_eq(ours ? ours : "", ref, "%s %d: Moduco '%s', MuJoCo '%s'", key, i,
                     ours ? ours : "", ref);
  }
}

//---------------------------------- tendon actuatorfrcrange ---------------------------------------

Test(tendon_actfrc, clamp_as_mujoco) {
  mrCase k;
  cpOpen(&k, "tendon_actfrc.xml");
  int nt = k.m->ntendon;
  cr_assert_eq(k.m->tendon_actfrclimited[0], 1);
  cr_assert_eq(k.m->tendon_actfrclimited[1], 0);  // actuatorfrclimited="false"
  mr_compare(&k, NULL, "tendon_actfrcrange", k.m->tendon_actfrcrange, 2 * nt, 0);
  // m1 and m2 sum to 1.6 on tendon t, limited to 1.5: both scaled by 15/16 (gears not counted)
  cr_assert_float_eq(k.d->actuator_force[0], 0.6 * 1.5 / 1.6, 1e-15);
  cr_assert_float_eq(k.d->actuator_force[1], 1.5 / 1.6, 1e-15);
  cr_assert_eq(k.d->actuator_force[3], 5);  // the unlimited tendon t2
  mr_compare(&k, "forward", "actuator_force", k.d->actuator_force, k.m->nu, TOL_FORWARD);
  mr_compare(&k, "forward", "qfrc_actuator", k.d->qfrc_actuator, k.m->nv, TOL_FORWARD);
  mr_compare(&k, "forward", "sensordata", k.d->sensordata, k.m->nsensordata, TOL_FORWARD);
  mr_compare(&k, "forward", "qacc", k.d->qacc, k.m->nv, TOL_FORWARD);
  mr_close(&k);
}

Test(tendon_actfrc, ranges_as_mujoco) {
  static const struct {
    const char* attrs;
    int limited;                  // -1: refused
  } cases[] = {
    {"actuatorfrcrange='-1 1'", 1},
    {"actuatorfrcrange='0 1'", 1},
    {"actuatorfrcrange='0 0'", 0},      // auto: not a range
    {"actuatorfrcrange='1 -1'", 0},
    {"actuatorfrcrange='0.5 1'", -1},   // must hold 0
    {"actuatorfrcrange='-1 -0.5'", -1},
    {"actuatorfrcrange='0 0' actuatorfrclimited='true'", -1},
    {"actuatorfrcrange='0.5 1' actuatorfrclimited='false'", 0},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char xml[1024], err[512] = "";
    snprintf(xml, sizeof(xml), "<mujoco><worldbody><body><joint name='j'/><geom size='1'/>"
             "</body></worldbody><tendon><fixed %s><joint joint='j' coef='1'/></fixed></tendon>"
             "</mujoco>", cases[i].attrs);
    mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
    if (cases[i].limited < 0) {
      cr_assert_null(m, "%s compiled", cases[i].attrs);
      cr_assert(strstr(err, "string:1: invalid tendon actuatorfrcrange"), "got '%s'", err);
      continue;
    }
    cr_assert_not_null(m, "%s: %s", cases[i].attrs, err);
    cr_assert_eq(m->tendon_actfrclimited[0], cases[i].limited, "%s", cases[i].attrs);
    mc_deleteModel(m);
  }
  // autolimits="false" needs actuatorfrclimited
  char err[512] = "";
  mcModel* m = mc_loadXMLString("<mujoco><compiler autolimits='false'/><worldbody><body><joint "
                                "name='j'/><geom size='1'/></body></worldbody><tendon><fixed "
                                "actuatorfrcrange='-1 1'><joint joint='j' coef='1'/></fixed>"
                                "</tendon></mujoco>", NULL, err, sizeof(err));
  cr_assert_null(m);
  cr_assert(strstr(err, "actuatorfrc"), "got '%s'", err);
}

//---------------------------------- weld between sites --------------------------------------------

Test(weld_sites, constraint_as_mujoco) {
  mrCase k;
  cpOpen(&k, "weld_sites.xml");
  cr_assert_eq(k.m->neq, 3);
  cr_assert_eq(k.m->eq_objtype[0], mcOBJ_SITE);
  cr_assert_eq(k.m->eq_objtype[1], mcOBJ_SITE);
  cr_assert_eq(k.m->eq_objtype[2], mcOBJ_BODY);  // a connect
  int ids[6] = {k.m->eq_obj1id[0], k.m->eq_obj1id[1], k.m->eq_obj1id[2], k.m->eq_obj2id[0],
                k.m->eq_obj2id[1], k.m->eq_obj2id[2]};
  mr_compareInt(&k, NULL, "eq_obj1id", ids, 3);
  mr_compareInt(&k, NULL, "eq_obj2id", ids + 3, 3);
  cr_assert_eq((int)mr_number(&k, "forward", "nefc"), k.d->nefc);
  mr_compare(&k, "forward", "efc_pos", k.d->efc_pos, k.d->nefc, TOL_FORWARD);
  mr_compare(&k, "forward", "qfrc_constraint", k.d->qfrc_constraint, k.m->nv, 1e-8);
  mr_compare(&k, "forward", "qacc", k.d->qacc, k.m->nv, 1e-8);
  mr_close(&k);
}

Test(weld_sites, refusals) {
  static const char* const bad[][2] = {
    {"site1='s1' site2='s2' body1='a'", "either body1"},
    {"site1='s1' site2='s2' relpose='0 0 0 1 0 0 0'", "either body1"},
    {"site1='s1' site2='t'", "must be on different bodies"},
    {"site1='s1' site2='nope'", "unknown site 'nope'"},
    {"site1='s1'", "requires attribute 'site2'"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    char xml[1024], err[512] = "";
    snprintf(xml, sizeof(xml), "<mujoco><worldbody><body name='a'><freejoint/><geom size='1'/>"
             "<site name='s1'/><site name='t'/></body><body name='b'><freejoint/><geom size='1'/>"
             "<site name='s2'/></body></worldbody><equality>\n<weld %s/></equality></mujoco>",
             bad[i][0]);
    mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
    cr_assert_null(m, "%s compiled", bad[i][0]);
    cr_assert(strstr(err, "string:2: ") && strstr(err, bad[i][1]), "%s: got '%s'", bad[i][0], err);
  }
}

//---------------------------------- <attach> ------------------------------------------------------

// the composed model against MuJoCo 3.14: sizes, names, compiled bodies, keys and forward
// dynamics at the first key
static void attachCase(const char* file) {
  mrCase k;
  cpOpen(&k, file);
  const mcModel* m = k.m;
  static const char* const sizes[] = {"nq", "nv", "nu", "na", "nbody", "njnt", "ngeom", "nsite",
                                      "nmesh", "ntendon", "neq", "npair", "nexclude", "nsensor",
                                      "nsensordata", "nkey", "nnumeric", "nmocap"};
  const int ours[] = {m->nq, m->nv, m->nu, m->na, m->nbody, m->njnt, m->ngeom, m->nsite,
                      m->nmesh, m->ntendon, m->neq, m->npair, m->nexclude, m->nsensor,
                      m->nsensordata, m->nkey, m->nnumeric, m->nmocap};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    cpSize(&k, sizes[i], ours[i]);
  }
  cpNames(&k, "body", mcOBJ_BODY, m->nbody);
  cpNames(&k, "joint", mcOBJ_JOINT, m->njnt);
  cpNames(&k, "geom", mcOBJ_GEOM, m->ngeom);
  cpNames(&k, "site", mcOBJ_SITE, m->nsite);
  cpNames(&k, "mesh", mcOBJ_MESH, m->nmesh);
  cpNames(&k, "tendon", mcOBJ_TENDON, m->ntendon);
  cpNames(&k, "equality", mcOBJ_EQUALITY, m->neq);
  cpNames(&k, "actuator", mcOBJ_ACTUATOR, m->nu);
  cpNames(&k, "sensor", mcOBJ_SENSOR, m->nsensor);
  cpNames(&k, "key", mcOBJ_KEY, m->nkey);

  int nb = m->nbody, nj = m->njnt, ng = m->ngeom;
  mr_compareInt(&k, NULL, "body_parentid", m->body_parentid, nb);
  mr_compareInt(&k, NULL, "jnt_type", m->jnt_type, nj);
  mr_compare(&k, NULL, "body_pos", m->body_pos, 3 * nb, TOL_COMPILE);
  mr_compare(&k, NULL, "body_quat", m->body_quat, 4 * nb, TOL_COMPILE);
  mr_compare(&k, NULL, "body_mass", m->body_mass, nb, 1e-10);
  mr_compare(&k, NULL, "body_inertia", m->body_inertia, 3 * nb, 1e-10);
  mr_compare(&k, NULL, "body_ipos", m->body_ipos, 3 * nb, 1e-10);
  mr_compare(&k, NULL, "jnt_range", m->jnt_range, 2 * nj, TOL_COMPILE);
  mr_compare(&k, NULL, "dof_damping", m->dof_damping, m->nv, 0);
  mr_compare(&k, NULL, "dof_armature", m->dof_armature, m->nv, 0);
  mr_compare(&k, NULL, "geom_size", m->geom_size, 3 * ng, 1e-10);
  mr_compare(&k, NULL, "geom_pos", m->geom_pos, 3 * ng, 1e-10);
  mr_compare(&k, NULL, "geom_friction", m->geom_friction, 3 * ng, 0);
  mr_compare(&k, NULL, "qpos0", m->qpos0, m->nq, TOL_COMPILE);
  mr_compare(&k, NULL, "key_qpos", m->key_qpos, m->nkey * m->nq, 0);
  mr_compare(&k, NULL, "key_qvel", m->key_qvel, m->nkey * m->nv, 0);
  mr_compare(&k, NULL, "key_ctrl", m->key_ctrl, m->nkey * m->nu, 0);
  mr_compare(&k, NULL, "key_act", m->key_act, m->nkey * m->na, 0);
  mr_compare(&k, NULL, "key_mpos", m->key_mpos, m->nkey * 3 * m->nmocap, TOL_COMPILE);
  mr_compare(&k, NULL, "key_mquat", m->key_mquat, m->nkey * 4 * m->nmocap, TOL_COMPILE);
  mr_compareInt(&k, NULL, "actuator_trnid", m->actuator_trnid, 2 * m->nu);
  mr_compare(&k, NULL, "actuator_gear", m->actuator_gear, 6 * m->nu, 0);
  mr_compareInt(&k, NULL, "eq_obj1id", m->eq_obj1id, m->neq);
  // exclude signatures: Moduco keeps MuJoCo 2.2.2's (body1 + 1) << 16 | (body2 + 1), 3.x drops
  // the + 1s
  int sig[64];
  cr_assert_leq(m->nexclude, 64);
  for (int i = 0; i < m->nexclude; i++) {
    sig[i] = m->exclude_signature[i] - (1 << 16) - 1;
  }
  mr_compareInt(&k, NULL, "exclude_signature", sig, m->nexclude);
  mr_compareInt(&k, NULL, "tendon_num", m->tendon_num, m->ntendon);

  cr_assert_eq((int)mr_number(&k, "forward", "nefc"), k.d->nefc);
  mcNum* diag = (mcNum*)malloc(sizeof(mcNum) * (size_t)(m->nv + 1));
  cr_assert_not_null(diag);
  for (int i = 0; i < m->nv; i++) {
    diag[i] = k.d->qM[m->dof_Madr[i]];
  }
  mr_compare(&k, "forward", "qM_diag", diag, m->nv, 1e-9);  // mesh inertia: 1.3e-10
  free(diag);
  mr_compare(&k, "forward", "xpos", k.d->xpos, 3 * nb, TOL_FORWARD);
  mr_compare(&k, "forward", "sensordata", k.d->sensordata, m->nsensordata, TOL_FORWARD);
  mr_compare(&k, "forward", "actuator_force", k.d->actuator_force, m->nu, TOL_FORWARD);
  // the constraint solver stops at its tolerance (the arm's joint equality and limits)
  mr_compare(&k, "forward", "qacc", k.d->qacc, m->nv, 1e-6);
  mr_close(&k);
}

Test(attach, arm_twice_with_two_prefixes_as_mujoco) {
  attachCase("arms.xml");
}

Test(attach, three_humanoids_in_a_scene_as_mujoco) {
  attachCase("humanoids.xml");
}

Test(attach, replicated_attach_as_mujoco) {
  attachCase("replicated.xml");
}

Test(attach, whole_worldbody_and_nested_attach_as_mujoco) {
  attachCase("nested.xml");
}

Test(attach, keyframe_act_mpos_mquat_as_mujoco) {
  attachCase("mocap_keys.xml");
  // the values are there, not only zeros on both sides: key a/k1 (1) sets a/g and a/p's
  // activations and a/hand's mquat (normalized); c/k1 (3) places c/target as written, not moved by
  // the attach frame
  char err[512] = "";
  mcModel* m = mc_loadXML(CP_DIR "/mocap_keys.xml", err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(m->na, 7);
  cr_assert_eq(m->nmocap, 5);
  cr_assert_eq(m->key_act[1 * 7 + 1], 0.5);
  cr_assert_eq(m->key_act[1 * 7 + 2], 0.6);
  cr_assert_eq(m->key_act[5 * 7 + 6], 0.6);  // b/k1: the arm alone keeps its actuators
  cr_assert_eq(m->key_mquat[1 * 20 + 2 * 4 + 3], 1);
  const mcNum* mpos = m->key_mpos + 3 * 15 + 3 * 3;
  cr_assert(mpos[0] == 1 && mpos[1] == 1 && mpos[2] == 1);
  mc_deleteModel(m);
}

Test(attach, keys_of_a_partial_or_replicated_attach_as_mujoco) {
  attachCase("tip_keys.xml");        // an actuator with activation left behind
  attachCase("replicated_act.xml");  // no act
  char err[512] = "";
  mcModel* m = mc_loadXML(CP_DIR "/tip_keys.xml", err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert(m->na == 1 && m->nkey == 2 && m->key_act[0] == 0.6 && m->key_act[1] == 0.25);
  mc_deleteModel(m);
}

Test(attach, settotalmass_of_an_attached_file_as_mujoco) {
  // the attached file's settotalmass is ignored, its boundmass and boundinertia hold
  attachCase("totalmass.xml");
  // the model's own settotalmass scales every body, the attached ones included
  attachCase("totalmass_scaled.xml");
  char err[512] = "";
  mcModel* m = mc_loadXML(CP_DIR "/totalmass.xml", err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(m->body_mass[3], 0.6);  // x/tip: the file's boundmass
  mcNum total = 0;
  for (int b = 1; b < m->nbody; b++) {
    total += m->body_mass[b];
  }
  cr_assert(fabs(total - 10) > 1 && fabs(total - 20) > 1, "total mass %g", total);
  mc_deleteModel(m);
  m = mc_loadXML(CP_DIR "/totalmass_scaled.xml", err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  total = 0;
  for (int b = 1; b < m->nbody; b++) {
    total += m->body_mass[b];
  }
  cr_assert_float_eq(total, 5, 1e-12);
  mc_deleteModel(m);
}

Test(attach, keyframe_act_with_actuators_left_behind_anywhere_as_mujoco) {
  // actuators with and without activation left behind at several places of the files' lists,
  // one with its dynamics from a class
  attachCase("act_spread.xml");
  attachCase("act_nested.xml");  // in a nested attach, actuators of both files left behind
  char err[512] = "";
  mcModel* m = mc_loadXML(CP_DIR "/act_spread.xml", err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(m->na, 17);
  // x/k1 (key 3): x/D and x/G take parts/acts.xml's 3rd and 5th act values
  int d = m->actuator_actadr[mc_name2id(m, mcOBJ_ACTUATOR, "x/D")];
  int g = m->actuator_actadr[mc_name2id(m, mcOBJ_ACTUATOR, "x/G")];
  cr_assert(m->key_act[3 * 17 + d] == 3 && m->key_act[3 * 17 + g] == 0.5);
  // y/q (key 5): y/F, after G (left behind, filterexact from its class), takes the 4th
  int f = m->actuator_actadr[mc_name2id(m, mcOBJ_ACTUATOR, "y/F")];
  cr_assert_eq(m->key_act[5 * 17 + f], 0.4);
  mc_deleteModel(m);
}

Test(attach, keys_leave_other_copies_alone) {
  // a departure from MuJoCo 3.14: key x/k1 of a partial attach holds values for objects x/ left
  // behind (joint h: 0.1, actuator A: act 1); 3.14 writes them into the next copy of the file
  // that takes those objects (z/), Moduco leaves z/ at qpos0 (one robot's key does not move
  // another). The rest of the model agrees.
  mrCase k;
  cpOpen(&k, "act_leak.xml");
  const mcModel* m = k.m;
  int key = mc_name2id(m, mcOBJ_KEY, "x/k1");
  int h = m->jnt_qposadr[mc_name2id(m, mcOBJ_JOINT, "z/h")];
  int a = m->actuator_actadr[mc_name2id(m, mcOBJ_ACTUATOR, "z/A")];
  cr_assert(key == 0 && h >= 0 && a >= 0);
  const cJSON* qpos = mr_field(&k, NULL, "key_qpos");
  const cJSON* act = mr_field(&k, NULL, "key_act");
  cr_assert_eq(cJSON_GetArrayItem(qpos, h)->valuedouble, 0.1);
  cr_assert_eq(cJSON_GetArrayItem(act, a)->valuedouble, 1);
  cr_assert_eq(m->key_qpos[h], m->qpos0[h]);
  cr_assert_eq(m->key_act[a], 0);
  // x/'s own values and z/'s keys as 3.14
  int xg = m->actuator_actadr[mc_name2id(m, mcOBJ_ACTUATOR, "x/G")];
  cr_assert_eq(m->key_act[xg], 0.5);
  cr_assert_eq(cJSON_GetArrayItem(act, xg)->valuedouble, 0.5);
  cr_assert_eq(cJSON_GetArraySize(act), m->nkey * m->na);
  for (int i = 2 * m->na; i < m->nkey * m->na; i++) {  // keys z/k1, z/k2
    cr_assert_eq(m->key_act[i], cJSON_GetArrayItem(act, i)->valuedouble, "key act %d", i);
  }
  mr_close(&k);
}

static void attachError(const char* body, const char* want1, const char* want2);

Test(attach, plugin_instances_come_along) {
  // MuJoCo 3.14's WebAssembly build has no plugins to compare with: the fixture's test.counter
  // instances, one per attached copy, each bound to its copy's actuator with the file's
  // configuration (force = gain * ctrl on the first evaluation)
  setenv("MODUCO_PLUGIN_PATH", MODUCO_INSTANCE_FIXTURE_DIR ":" MODUCO_BUILD_PLUGIN_DIR, 1);
  cr_assert_gt(mc_pluginScan(), 0);
  char err[512] = "";
  mcModel* m = mc_loadXML(CP_DIR "/plugins.xml", err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(m->nu, 2);
  const mcpHost* host = mcp_host();
  for (int i = 0; i < 2; i++) {
    int p = m->actuator_plugin[i];
    cr_assert_geq(p, 0);
    cr_assert_eq(m->plugin_objtype[p], mcOBJ_ACTUATOR);
    cr_assert_eq(m->plugin_objid[p], i);
    cr_assert_eq(host->config(m, p, "gain", NULL)[0], 3);
  }
  cr_assert_neq(m->actuator_plugin[0], m->actuator_plugin[1]);
  cr_assert_str_eq(mc_id2name(m, mcOBJ_ACTUATOR, 1), "q/a");
  mcData* d = mc_makeData(m);
  cr_assert_not_null(d);
  d->ctrl[0] = 0.5;
  d->ctrl[1] = -0.25;
  mc_forward(m, d);
  cr_assert(d->actuator_force[0] == 1.5 && d->actuator_force[1] == -0.75, "forces %g %g",
            d->actuator_force[0], d->actuator_force[1]);
  mc_deleteData(d);
  mc_deleteModel(m);
  // a key's act when a plugin actuator is left behind: its activations (none) take what the
  // others leave
  m = mc_loadXML(CP_DIR "/plugin_keys.xml", err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert(m->nu == 2 && m->na == 2 && m->nkey == 1);
  cr_assert(m->key_act[0] == 1 && m->key_act[1] == 3, "key act %g %g", m->key_act[0],
            m->key_act[1]);
  mc_deleteModel(m);
  // an instance the attached file does not declare: named at its line there
  attachError("<attach model='badinst' body='b' prefix='x'/>", "parts/badinstance.xml:5:",
              "unknown plugin instance 'xnope'");
}

// the compile error of an MJCF text whose files resolve from CP_DIR
static void attachError(const char* body, const char* want1, const char* want2) {
  char xml[2048], err[1024] = "";
  snprintf(xml, sizeof(xml), "<mujoco>\n<asset><model name='arm' file='parts/arm.xml'/>"
           "<model name='bad' file='parts/bad.xml'/><model name='cycle' "
           "file='parts/selfattach.xml'/><model name='short' file='parts/shortkey.xml'/>"
           "<model name='badact' file='parts/badact.xml'/><model name='badmpos' "
           "file='parts/badmpos.xml'/><model name='badinst' file='parts/badinstance.xml'/></asset>\n<worldbody>\n%s\n</worldbody></mujoco>", body);
  mcModel* m = mc_loadXMLString(xml, CP_DIR, err, sizeof(err));
  cr_assert_null(m, "'%s' compiled", body);
  cr_assert(strstr(err, want1) && (!want2 || strstr(err, want2)), "'%s': got '%s'", body, err);
}

Test(attach, errors_name_file_and_line) {
  // an error inside the attached file names that file and its line
  attachError("<attach model='bad' body='b' prefix='x'/>", "parts/bad.xml:4:", "stiffnes");
  attachError("<attach model='nope' body='b' prefix='x'/>", "string:4:", "unknown model asset");
  attachError("<attach model='arm' body='elbow' prefix='x'/>", "string:4:",
              "could not find body 'elbow'");
  attachError("<attach model='arm' body='base'/>", "string:4:", "'prefix'");
  attachError("<attach model='arm' body='base' prefix='p' pos='1 0 0'/>", "string:4:", "pos");
  attachError("<attach model='cycle' body='b' prefix='x'/>", "parts/selfattach.xml:5:",
              "attach cycle");
  // one prefix twice: the second copy's names collide (its assets first), at their line in the
  // arm's file
  attachError("<attach model='arm' body='base' prefix='p'/><attach model='arm' body='base' "
              "prefix='p'/>", "parts/arm.xml:17:", "duplicate mesh name 'ptet'");
  // keys of an attached file must have its full sizes (MuJoCo 3.14 refuses them too)
  attachError("<attach model='short' body='b' prefix='x'/>", "parts/shortkey.xml:6:",
              "expected 2");
  attachError("<attach model='badact' body='b' prefix='x'/>", "parts/badact.xml:10:",
              "'act' has 2 values, expected 1");
  attachError("<attach model='badmpos' prefix='x'/>", "parts/badmpos.xml:10:",
              "'mpos' has 2 values, expected 3");
  // <attach> outside the body tree
  attachError("<body><geom size='1'/></body></worldbody><contact><attach model='arm' "
              "prefix='x'/></contact><worldbody>", "string:4:", "attach");
}

//---------------------------------- alignfree -----------------------------------------------------

// body a's inertial frame comes from a 3x3 eigen decomposition: MuJoCo's and Moduco's frames
// agree to 1e-10, the poses expressed in them to 1e-9
#define TOL_EIG 1e-8

Test(alignfree, leaf_free_bodies_as_mujoco) {
  mrCase k;
  cpOpen(&k, "alignfree.xml");
  const mcModel* m = k.m;
  int nb = m->nbody;
  mr_compare(&k, NULL, "body_pos", m->body_pos, 3 * nb, TOL_EIG);
  mr_compare(&k, NULL, "body_quat", m->body_quat, 4 * nb, TOL_EIG);
  mr_compare(&k, NULL, "body_ipos", m->body_ipos, 3 * nb, TOL_EIG);
  mr_compare(&k, NULL, "body_iquat", m->body_iquat, 4 * nb, TOL_EIG);
  mr_compare(&k, NULL, "geom_pos", m->geom_pos, 3 * m->ngeom, TOL_EIG);
  mr_compare(&k, NULL, "geom_quat", m->geom_quat, 4 * m->ngeom, TOL_EIG);
  mr_compare(&k, NULL, "site_pos", m->site_pos, 3 * m->nsite, TOL_EIG);
  mr_compare(&k, NULL, "site_quat", m->site_quat, 4 * m->nsite, TOL_EIG);
  mr_compare(&k, NULL, "cam_pos", m->cam_pos, 3 * m->ncam, TOL_EIG);
  mr_compare(&k, NULL, "cam_quat", m->cam_quat, 4 * m->ncam, TOL_EIG);
  mr_compare(&k, NULL, "qpos0", m->qpos0, m->nq, TOL_EIG);
  // a and b moved to their inertial frames; c (a child body) and d (align="false") did not
  cr_assert_neq(m->body_pos[3], 0);
  cr_assert_eq(m->body_ipos[3 * 1], 0);
  cr_assert_eq(m->body_ipos[3 * 2], 0);
  cr_assert_neq(m->body_ipos[3 * 3], 0);
  cr_assert_neq(m->body_ipos[3 * 5], 0);
  mr_compare(&k, "forward", "xpos", k.d->xpos, 3 * nb, TOL_EIG);
  mr_compare(&k, "forward", "sensordata", k.d->sensordata, m->nsensordata, TOL_EIG);
  mr_compare(&k, "forward", "qacc", k.d->qacc, m->nv, 1e-8);
  mr_close(&k);
}

Test(attach, fan_out_is_bounded) {
  // a file attaching another 64 times, which attaches a third 64 times: 4160 attached files,
  // over the bound of 4096 (as <include> elements are bounded): an error, not a memory bomb
  char dir[] = "/tmp/moduco_attach_XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  const char* names[3] = {"top.xml", "mid.xml", "leaf.xml"};
  for (int f = 0; f < 3; f++) {
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, names[f]);
    FILE* out = fopen(path, "w");
    cr_assert_not_null(out);
    if (f == 2) {
      fprintf(out, "<mujoco><worldbody><body name='b'><geom size='1'/></body></worldbody>"
                   "</mujoco>\n");
    } else {
      fprintf(out, "<mujoco><asset><model name='m' file='%s'/></asset><worldbody>"
                   "<body name='b'><geom size='1'/>\n", names[f + 1]);
      for (int i = 0; i < 64; i++) {
        fprintf(out, "<attach model='m' body='b' prefix='%d_'/>\n", i);
      }
      fprintf(out, "</body></worldbody></mujoco>\n");
    }
    fclose(out);
  }
  char path[256], err[1024] = "";
  snprintf(path, sizeof(path), "%s/top.xml", dir);
  mcModel* m = mc_loadXML(path, err, sizeof(err));
  cr_assert_null(m);
  cr_assert(strstr(err, "more than 4096 attached models"), "got '%s'", err);
  for (int f = 0; f < 3; f++) {
    snprintf(path, sizeof(path), "%s/%s", dir, names[f]);
    remove(path);
  }
  rmdir(dir);
}
