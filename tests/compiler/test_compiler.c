// Tests of core/compiler: semantics (orientation, defaults, inertia, layout, keyframes, options,
// actuators, names), compared live with MuJoCo 2.2.2 where it is installed.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <moduco/moduco.h>

#include <mujoco/mujoco.h>

// load a string or fail the test with the message
static mcModel* load(const char* xml) {
  char err[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert_not_null(m, "load failed: %s", err);
  return m;
}

// |a - b| <= tol (relative to magnitude)
static void near(double a, double b, double tol, const char* what, int i) {
  cr_assert(fabs(a - b) <= tol * (1 + fabs(b)), "%s[%d]: moduco %.15g, expected %.15g", what, i, a,
            b);
}

// the same rotation (q and -q are equal)
static void sameQuat(const mcNum* a, const double* b, const char* what) {
  double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  cr_assert(fabs(fabs(dot) - 1) < 1e-9, "%s: (%g %g %g %g) vs (%g %g %g %g)", what, a[0], a[1],
            a[2], a[3], b[0], b[1], b[2], b[3]);
}

// full inertia tensor R diag(I) R' of body b
static void tensor(const double* quat, const double* I, double T[9]) {
  double w = quat[0], x = quat[1], y = quat[2], z = quat[3];
  double R[9] = {w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y),
                 2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x),
                 2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z};
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      T[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) {
        T[3 * i + j] += R[3 * i + k] * I[k] * R[3 * j + k];
      }
    }
  }
}

// load the same text in MuJoCo (through a temporary file)
static mjModel* loadMJ(const char* xml) {
  char path[] = "/tmp/moduco-compiler-XXXXXX.xml";
  int fd = mkstemps(path, 4);
  cr_assert(fd >= 0);
  cr_assert_eq(write(fd, xml, strlen(xml)), (ssize_t)strlen(xml));
  close(fd);
  char err[1024] = "";
  mjModel* m = mj_loadXML(path, NULL, err, sizeof(err));
  unlink(path);
  cr_assert_not_null(m, "MuJoCo failed: %s", err);
  return m;
}

//---------------------------------- orientation ---------------------------------------------------

static const char* kOrient =
  "<mujoco><compiler eulerseq=\"zyx\"/><worldbody>"
  "<body name=\"q\" quat=\"2 0 0 2\"><geom size=\"1\"/></body>"
  "<body name=\"aa\" axisangle=\"1 1 0 30\"><geom size=\"1\"/></body>"
  "<body name=\"eu\" euler=\"10 20 30\"><geom size=\"1\"/></body>"
  "<body name=\"xy\" xyaxes=\"0 1 0 -1 0.2 0\"><geom size=\"1\"/></body>"
  "<body name=\"za\" zaxis=\"1 1 1\"><geom size=\"1\"/></body>"
  "<body name=\"zn\" zaxis=\"0 0 -1\"><geom size=\"1\"/></body>"
  "</worldbody></mujoco>";

// <frame> (MuJoCo 3.x only, so not compared with 2.2.2)
static const char* kFrame =
  "<mujoco><compiler eulerseq=\"zyx\"/><worldbody>"
  "<body name=\"fr\"><frame pos=\"1 0 0\" euler=\"0 0 90\"><geom name=\"fg\" pos=\"1 0 0\" "
  "size=\"1\"/></frame></body>"
  "</worldbody></mujoco>";

Test(compiler, orientation_forms) {
  mcModel* m = load(kOrient);
  double s = sqrt(0.5);
  double q[4] = {s, 0, 0, s};
  sameQuat(m->body_quat + 4 * 1, q, "quat normalized");
  double a = 15 * mcPI / 180;
  double qa[4] = {cos(a), sin(a) * s, sin(a) * s, 0};
  sameQuat(m->body_quat + 4 * 2, qa, "axisangle");
  // frame composes onto the geom: with eulerseq zyx the frame turns 90 deg about x, so the
  // geom at (1,0,0) in the frame lands at (2,0,0)
  mcModel* mf = load(kFrame);
  int g = mc_name2id(mf, mcOBJ_GEOM, "fg");
  near(mf->geom_pos[3 * g], 2, 1e-12, "frame pos", 0);
  near(mf->geom_pos[3 * g + 1], 0, 1e-12, "frame pos", 1);
  mc_deleteModel(mf);
  mjModel* r = loadMJ(kOrient);
  for (int b = 1; b < m->nbody; b++) {
    sameQuat(m->body_quat + 4 * b, r->body_quat + 4 * b, mc_id2name(m, mcOBJ_BODY, b));
  }
  for (int i = 0; i < 3 * m->ngeom; i++) {
    near(m->geom_pos[i], r->geom_pos[i], 1e-12, "geom_pos", i);
  }
  mj_deleteModel(r);
  mc_deleteModel(m);
}

//---------------------------------- defaults ------------------------------------------------------

Test(compiler, defaults_nested_and_childclass) {
  mcModel* m = load(
    "<mujoco><default>"
    "  <joint damping=\"1\" armature=\"0.1\"/><geom size=\"0.1\" friction=\"0.5\"/>"
    "  <default class=\"a\"><joint damping=\"2\"/>"
    "    <default class=\"b\"><joint stiffness=\"3\"/><geom type=\"box\" size=\"1 2 3\"/></default>"
    "  </default>"
    "</default><worldbody>"
    "<body><joint name=\"j0\"/><geom name=\"g0\"/></body>"
    "<body childclass=\"b\"><joint name=\"j1\"/><geom name=\"g1\"/>"
    "  <body><joint name=\"j2\" class=\"a\" damping=\"5\"/><geom name=\"g2\" class=\"main\"/></body>"
    "</body></worldbody></mujoco>");
  int j0 = mc_name2id(m, mcOBJ_JOINT, "j0"), j1 = mc_name2id(m, mcOBJ_JOINT, "j1");
  int j2 = mc_name2id(m, mcOBJ_JOINT, "j2");
  cr_assert_eq(m->dof_damping[m->jnt_dofadr[j0]], 1);
  cr_assert_eq(m->dof_damping[m->jnt_dofadr[j1]], 2);     // inherited from a through b
  cr_assert_eq(m->jnt_stiffness[j1], 3);
  cr_assert_eq(m->dof_armature[m->jnt_dofadr[j1]], 0.1);  // from main through a and b
  cr_assert_eq(m->dof_damping[m->jnt_dofadr[j2]], 5);     // explicit value wins
  cr_assert_eq(m->jnt_stiffness[j2], 0);                  // class a has no stiffness
  int g1 = mc_name2id(m, mcOBJ_GEOM, "g1"), g2 = mc_name2id(m, mcOBJ_GEOM, "g2");
  cr_assert_eq(m->geom_type[g1], mcGEOM_BOX);
  cr_assert_eq(m->geom_size[3 * g1 + 2], 3);
  cr_assert_eq(m->geom_friction[3 * g1], 0.5);
  cr_assert_eq(m->geom_type[g2], mcGEOM_SPHERE);
  mc_deleteModel(m);
}

Test(compiler, actuator_defaults_and_shortcuts) {
  mcModel* m = load(
    "<mujoco><default><default class=\"servo\"><position kp=\"50\" kv=\"2\" "
    "ctrlrange=\"-1 1\"/></default></default>"
    "<worldbody><body><joint name=\"j\"/><geom size=\"0.1\"/></body></worldbody>"
    "<actuator><motor name=\"m\" joint=\"j\" gear=\"3\"/>"
    "<position name=\"p\" joint=\"j\" class=\"servo\"/>"
    "<velocity name=\"v\" joint=\"j\" kv=\"7\"/>"
    "<general name=\"g\" joint=\"j\" dyntype=\"filter\" dynprm=\"0.5\" gainprm=\"2\"/>"
    "</actuator></mujoco>");
  cr_assert_eq(m->nu, 4);
  cr_assert_eq(m->na, 1);
  cr_assert_eq(m->actuator_gear[0], 3);
  cr_assert_eq(m->actuator_biastype[0], mcBIAS_NONE);
  cr_assert_eq(m->actuator_gainprm[mcNGAIN * 1], 50);
  cr_assert_eq(m->actuator_biasprm[mcNBIAS * 1 + 1], -50);
  cr_assert_eq(m->actuator_biasprm[mcNBIAS * 1 + 2], -2);
  cr_assert_eq(m->actuator_ctrllimited[1], 1);           // autolimits: range given
  cr_assert_eq(m->actuator_ctrllimited[0], 0);
  cr_assert_eq(m->actuator_gainprm[mcNGAIN * 2], 7);
  cr_assert_eq(m->actuator_biasprm[mcNBIAS * 2 + 2], -7);
  cr_assert_eq(m->actuator_dyntype[3], mcDYN_FILTER);
  cr_assert_eq(m->actuator_actadr[3], 0);
  cr_assert_eq(m->actuator_actnum[3], 1);
  cr_assert_eq(m->actuator_actadr[0], -1);
  cr_assert_eq(m->actuator_trntype[0], mcTRN_JOINT);
  cr_assert_eq(m->actuator_plugin[0], -1);
  mc_deleteModel(m);
}

//---------------------------------- inertia and layout against MuJoCo -----------------------------

static const char* kTree =
  "<mujoco><worldbody>"
  "<body name=\"a\" pos=\"0 0 1\"><freejoint/>"
  "  <geom type=\"box\" size=\"0.1 0.2 0.3\" pos=\"0.1 0 0\" euler=\"10 20 30\"/>"
  "  <geom type=\"sphere\" size=\"0.1\" pos=\"0 0.3 0\"/>"
  "  <geom type=\"capsule\" fromto=\"0 0 0 0.3 0.1 0.2\" size=\"0.05\" density=\"300\"/>"
  "  <body name=\"b\" pos=\"0 0 -0.5\"><joint type=\"ball\"/>"
  "    <geom type=\"cylinder\" size=\"0.05 0.2\" mass=\"2\"/>"
  "    <geom type=\"ellipsoid\" size=\"0.1 0.2 0.05\" pos=\"0 0 -0.2\"/>"
  "    <body name=\"c\" pos=\"0 0 -0.4\"><joint axis=\"1 0 0\"/><joint type=\"slide\"/>"
  "      <geom type=\"capsule\" size=\"0.04 0.1\"/></body>"
  "    <body name=\"d\"><joint axis=\"0 1 0\"/><geom type=\"box\" size=\".1 .1 .1\"/></body>"
  "  </body>"
  "</body></worldbody></mujoco>";

Test(compiler, inertia_from_geoms) {
  mcModel* m = load(kTree);
  mjModel* r = loadMJ(kTree);
  cr_assert_eq(m->nbody, r->nbody);
  for (int b = 1; b < m->nbody; b++) {
    near(m->body_mass[b], r->body_mass[b], 1e-12, "body_mass", b);
    near(m->body_subtreemass[b], r->body_subtreemass[b], 1e-12, "body_subtreemass", b);
    for (int k = 0; k < 3; k++) {
      near(m->body_ipos[3 * b + k], r->body_ipos[3 * b + k], 1e-9, "body_ipos", 3 * b + k);
    }
    // the principal frame may differ by axis signs: compare full tensors (MuJoCo's eig3 is
    // accurate to about 1e-8)
    double Tm[9], Tr[9];
    tensor(m->body_iquat + 4 * b, m->body_inertia + 3 * b, Tm);
    tensor(r->body_iquat + 4 * b, r->body_inertia + 3 * b, Tr);
    for (int k = 0; k < 9; k++) {
      near(Tm[k], Tr[k], 1e-7, "inertia tensor", 9 * b + k);
    }
  }
  mj_deleteModel(r);
  mc_deleteModel(m);
}

Test(compiler, single_geom_inertia_constants) {
  // values from MuJoCo 2.2.2 (mj_loadXML + printed body_mass/body_inertia, 2026-11-22)
  mcModel* m = load("<mujoco><worldbody><body><joint/>"
                    "<geom type=\"capsule\" size=\"0.1 0.2\"/></body></worldbody></mujoco>");
  near(m->body_mass[1], 16.7551608191456, 1e-12, "capsule mass", 1);
  near(m->body_inertia[3], 0.44610615681, 1e-9, "capsule Ixx", 0);
  near(m->body_inertia[5], 0.0795870138909, 1e-9, "capsule Izz", 2);
  mc_deleteModel(m);
}

Test(compiler, dof_layout) {
  mcModel* m = load(kTree);
  // tree-sparse inertia: each dof stores its ancestor chain
  int madr = 0;
  for (int i = 0; i < m->nv; i++) {
    cr_assert_eq(m->dof_Madr[i], madr);
    int len = 0;
    for (int j = i; j >= 0; j = m->dof_parentid[j]) {
      len++;
    }
    madr += len;
  }
  cr_assert_eq(m->nM, madr);
  cr_assert_eq(m->nD, 2 * m->nM - m->nv);
  cr_assert_eq(m->nq, 7 + 4 + 2 + 1);
  cr_assert_eq(m->nv, 6 + 3 + 2 + 1);
  // d's hinge hangs below the ball joint, not below c's slide
  cr_assert_eq(m->dof_parentid[11], 8);
  cr_assert_eq(m->dof_parentid[9], 8);
  cr_assert_eq(m->dof_parentid[10], 9);
  cr_assert_eq(m->qpos0[2], 1);
  cr_assert_eq(m->qpos0[3], 1);
  cr_assert_eq(m->qpos0[7], 1);
  mjModel* r = loadMJ(kTree);
  cr_assert_eq(m->nM, r->nM);
  cr_assert_eq(m->nD, r->nD);
  for (int i = 0; i < m->nv; i++) {
    cr_assert_eq(m->dof_Madr[i], r->dof_Madr[i]);
    cr_assert_eq(m->dof_parentid[i], r->dof_parentid[i]);
    cr_assert_eq(m->dof_bodyid[i], r->dof_bodyid[i]);
    cr_assert_eq(m->dof_jntid[i], r->dof_jntid[i]);
    near(m->dof_invweight0[i], r->dof_invweight0[i], 1e-6, "dof_invweight0", i);
  }
  for (int b = 0; b < m->nbody; b++) {
    cr_assert_eq(m->body_weldid[b], r->body_weldid[b]);
    cr_assert_eq(m->body_rootid[b], r->body_rootid[b]);
    cr_assert_eq(m->body_dofadr[b], r->body_dofadr[b]);
    cr_assert_eq(m->body_jntadr[b], r->body_jntadr[b]);
    cr_assert_eq(m->body_geomadr[b], r->body_geomadr[b]);
  }
  mj_deleteModel(r);
  mc_deleteModel(m);
}

//---------------------------------- keyframes, options, names -------------------------------------

Test(compiler, keyframes) {
  mcModel* m = load(
    "<mujoco><size nkey=\"3\"/><worldbody>"
    "<body name=\"mc\" mocap=\"true\" pos=\"1 2 3\"><geom size=\"0.1\"/></body>"
    "<body pos=\"0 0 1\"><joint name=\"h\" ref=\"10\"/><geom size=\"0.1\"/></body>"
    "</worldbody><actuator><general joint=\"h\" dyntype=\"integrator\"/></actuator>"
    "<keyframe><key name=\"k0\" time=\"1.5\" qpos=\"0.5\" qvel=\"2\" act=\"3\" ctrl=\"4\" "
    "mpos=\"7 8 9\" mquat=\"0 1 0 0\"/><key name=\"k1\"/></keyframe></mujoco>");
  cr_assert_eq(m->nkey, 3);
  cr_assert_eq(m->nmocap, 1);
  cr_assert_eq(m->key_time[0], 1.5);
  cr_assert_eq(m->key_qpos[0], 0.5);
  cr_assert_eq(m->key_qvel[0], 2);
  cr_assert_eq(m->key_act[0], 3);
  cr_assert_eq(m->key_ctrl[0], 4);
  cr_assert_eq(m->key_mpos[2], 9);
  cr_assert_eq(m->key_mquat[1], 1);
  near(m->key_qpos[1], 10 * mcPI / 180, 1e-15, "default key qpos = qpos0", 1);
  cr_assert_eq(m->key_mpos[3 + 1], 2);                    // default mpos: body pos
  cr_assert_eq(m->key_mquat[8], 1);
  cr_assert_eq(mc_name2id(m, mcOBJ_KEY, "k1"), 1);
  mc_deleteModel(m);
}

Test(compiler, options_and_flags) {
  mcModel* m = load(
    "<mujoco><option timestep=\"0.01\" gravity=\"0 0 -1\" integrator=\"RK4\" solver=\"PGS\" "
    "cone=\"elliptic\" iterations=\"7\" o_solimp=\"0.8\" jacobian=\"sparse\">"
    "<flag contact=\"disable\" warmstart=\"disable\" energy=\"enable\" gravity=\"enable\"/>"
    "</option><size memory=\"2M\" njmax=\"100\" nuserdata=\"4\"/>"
    "<worldbody/></mujoco>");
  cr_assert_eq(m->opt.timestep, 0.01);
  cr_assert_eq(m->opt.gravity[2], -1);
  cr_assert_eq(m->opt.integrator, mcINT_RK4);
  cr_assert_str_eq(m->opt.integrator_name, "RK4");
  cr_assert_not_null(m->integrator);
  cr_assert_eq(m->opt.solver, mcSOL_PGS);
  cr_assert_eq(m->opt.cone, mcCONE_ELLIPTIC);
  cr_assert_eq(m->opt.jacobian, mcJAC_SPARSE);
  cr_assert_eq(m->opt.iterations, 7);
  cr_assert_eq(m->opt.o_solimp[0], 0.8);
  cr_assert_eq(m->opt.o_solimp[1], 0.95);
  cr_assert_eq(m->opt.disableflags, mcDSBL_CONTACT | mcDSBL_WARMSTART);
  // nativeccd and multiccd (with nativeccd) on by default, as in MuJoCo 3.x
  cr_assert_eq(m->opt.enableflags, mcENBL_ENERGY | mcENBL_NATIVECCD | mcENBL_MULTICCD);
  cr_assert_eq(m->narena, (size_t)2 * 1024 * 1024);
  cr_assert_eq(m->njmax, 100);
  cr_assert_eq(m->nuserdata, 4);
  mc_deleteModel(m);
}

Test(compiler, names) {
  mcModel* m = load("<mujoco model=\"named\"><worldbody><body name=\"b\"><joint name=\"j\"/>"
                    "<geom name=\"g\" size=\"1\"/><geom size=\"1\"/></body></worldbody></mujoco>");
  cr_assert_eq(mc_name2id(m, mcOBJ_BODY, "world"), 0);
  cr_assert_eq(mc_name2id(m, mcOBJ_BODY, "b"), 1);
  cr_assert_eq(mc_name2id(m, mcOBJ_XBODY, "b"), 1);
  cr_assert_eq(mc_name2id(m, mcOBJ_JOINT, "j"), 0);
  cr_assert_eq(mc_name2id(m, mcOBJ_GEOM, "g"), 0);
  cr_assert_eq(mc_name2id(m, mcOBJ_GEOM, "nope"), -1);
  cr_assert_eq(mc_name2id(m, mcOBJ_CAMERA, "b"), -1);
  cr_assert_str_eq(mc_id2name(m, mcOBJ_GEOM, 0), "g");
  cr_assert_null(mc_id2name(m, mcOBJ_GEOM, 1));
  cr_assert_null(mc_id2name(m, mcOBJ_GEOM, 2));
  cr_assert_str_eq(m->names, "named");
  mc_deleteModel(m);
}

Test(compiler, include_through_loader) {
  char dir[] = "/tmp/moduco-inc-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof(path), "%s/part.xml", dir);
  FILE* f = fopen(path, "w");
  fputs("<mujoco><body name=\"inc\"><joint/><geom size=\"0.1\"/></body></mujoco>", f);
  fclose(f);
  char err[512];
  mcModel* m = mc_loadXMLString("<mujoco><worldbody><include file=\"part.xml\"/></worldbody>"
                                "</mujoco>", dir, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(mc_name2id(m, mcOBJ_BODY, "inc"), 1);
  mc_deleteModel(m);
}

//---------------------------------- sensors, tendons, equality, contact ---------------------------

Test(compiler, sensors_tendons_equality_contact) {
  mcModel* m = load(
    "<mujoco><worldbody>"
    "<body name=\"a\"><joint name=\"j1\"/><geom name=\"ga\" size=\"0.1\"/><site name=\"s1\"/>"
    "  <body name=\"b\" pos=\"0 0 1\"><joint name=\"j2\"/><geom name=\"gb\" size=\"0.1\"/>"
    "  <site name=\"s2\" pos=\"0 0 0.5\"/></body></body></worldbody>"
    "<tendon><fixed name=\"f\"><joint joint=\"j1\" coef=\"2\"/><joint joint=\"j2\" coef=\"-1\"/>"
    "</fixed><spatial name=\"sp\" range=\"0 2\"><site site=\"s1\"/><site site=\"s2\"/></spatial>"
    "</tendon>"
    "<equality><joint joint1=\"j1\" joint2=\"j2\" polycoef=\"0 2\"/>"
    "<connect body1=\"b\" anchor=\"0 0 1\"/></equality>"
    "<contact><pair geom1=\"ga\" geom2=\"gb\" condim=\"4\"/><exclude body1=\"a\" body2=\"b\"/>"
    "</contact>"
    "<sensor><jointpos joint=\"j1\"/><accelerometer site=\"s1\" noise=\"0.1\"/>"
    "<framequat objtype=\"body\" objname=\"b\"/><tendonpos tendon=\"f\"/>"
    "<subtreecom body=\"a\"/></sensor></mujoco>");
  cr_assert_eq(m->ntendon, 2);
  cr_assert_eq(m->nwrap, 4);
  cr_assert_eq(m->wrap_type[0], mcWRAP_JOINT);
  cr_assert_eq(m->wrap_prm[0], 2);
  cr_assert_eq(m->wrap_type[2], mcWRAP_SITE);
  cr_assert_eq(m->tendon_limited[1], 1);
  near(m->tendon_length0[0], 0, 1e-12, "fixed length0", 0);
  cr_assert_eq(m->neq, 2);
  cr_assert_eq(m->eq_type[0], mcEQ_JOINT);
  cr_assert_eq(m->eq_obj2id[0], 1);
  cr_assert_eq(m->eq_data[1], 2);
  cr_assert_eq(m->eq_obj2id[1], 0);
  cr_assert_eq(m->eq_data[mcNEQDATA + 5], 2);             // anchor in the world at qpos0
  cr_assert_eq(m->npair, 1);
  cr_assert_eq(m->pair_dim[0], 4);
  cr_assert_eq(m->pair_friction[1], 1);
  cr_assert_eq(m->nexclude, 1);
  cr_assert_eq(m->exclude_signature[0], (2 << 16) + 3);
  cr_assert_eq(m->nsensor, 5);
  int dims[5] = {1, 3, 4, 1, 3};
  int adr = 0;
  for (int i = 0; i < 5; i++) {
    cr_assert_eq(m->sensor_dim[i], dims[i]);
    cr_assert_eq(m->sensor_adr[i], adr);
    adr += dims[i];
  }
  cr_assert_eq(m->nsensordata, adr);
  cr_assert_eq(m->sensor_needstage[1], mcSTAGE_ACC);
  cr_assert_eq(m->sensor_noise[1], 0.1);
  cr_assert_eq(m->sensor_objtype[2], mcOBJ_BODY);
  cr_assert_eq(m->sensor_datatype[2], mcDATATYPE_QUATERNION);
  mc_deleteModel(m);
}

//---------------------------------- the bundled models --------------------------------------------

Test(compiler, bundled_models_load) {
  const char* files[4] = {"humanoid.xml", "pendulum.xml", "double_pendulum.xml", "chain.xml"};
  for (int i = 0; i < 4; i++) {
    char path[1024], err[1024];
    snprintf(path, sizeof(path), "%s/models/%s", MODUCO_SOURCE_DIR, files[i]);
    mcModel* m = mc_loadXML(path, err, sizeof(err));
    cr_assert_not_null(m, "%s", err);
    cr_assert_str_eq(m->modelfile, path);
    mjModel* r = mj_loadXML(path, NULL, err, sizeof(err));
    cr_assert_not_null(r, "MuJoCo: %s", err);
    cr_assert_eq(m->nq, r->nq);
    cr_assert_eq(m->nv, r->nv);
    cr_assert_eq(m->nu, r->nu);
    cr_assert_eq(m->nkey, r->nkey);
    for (int b = 0; b < m->nbody; b++) {
      near(m->body_mass[b], r->body_mass[b], 1e-9, files[i], b);
    }
    mj_deleteModel(r);
    mc_deleteModel(m);
  }
}
