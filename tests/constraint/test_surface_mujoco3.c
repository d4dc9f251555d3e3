// Moving contact surfaces (geom surfacevel) and contact adhesion (geom adhesion) against MuJoCo
// 3.14.0 (tests/constraint/surface_ref.mjs): conveyor belts, a turntable, opposite belts and a
// tracked free body, and sticky contacts (models/surface), each with both cones and the Newton,
// CG and PGS solvers. At several steps of MuJoCo's run Moduco takes MuJoCo's state (qpos, qvel,
// qacc_warmstart) and runs its forward: accelerations, passive forces (the adhesive pull), the
// rows' efc_vel (relative to the moving surfaces), efc_aref and efc_force, every contact (geoms,
// distance, point, frame, net force) and the sensors (touch and contact sensors: net forces)
// are compared field by field; Moduco's own run from the keyframe is compared too. The noslip
// postsolver runs on two of the models.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>

#include <moduco/moduco.h>

#include "testutil.h"

#define MODEL_DIR MODUCO_SOURCE_DIR "/tests/constraint/models/surface/"
#define NFRAME 4
static const char* const kSteps[NFRAME] = {"0", "20", "100", "250"};

// worst error of n numbers of field key of obj, relative to max(1, |reference|)
static double fieldErr(const cJSON* obj, const char* key, const double* got, int n) {
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(obj, key);
  cr_assert(cJSON_IsArray(a) && cJSON_GetArraySize(a) == n, "%s: expected %d numbers, got %d",
            key, n, cJSON_GetArraySize(a));
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double w = cJSON_GetArrayItem(a, i)->valuedouble;
    worst = fmax(worst, fabs(got[i] - w) / fmax(1, fabs(w)));
  }
  return worst;
}

static void readField(const cJSON* obj, const char* key, double* out, int n) {
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(obj, key);
  cr_assert(cJSON_IsArray(a) && cJSON_GetArraySize(a) == n, "%s: expected %d numbers", key, n);
  for (int i = 0; i < n; i++) {
    out[i] = cJSON_GetArrayItem(a, i)->valuedouble;
  }
}

// the model file with cone and solver of its <option> replaced and the attributes extra added,
// in a new temporary folder (the path in path, size sz)
static void variant(const char* file, const char* cone, const char* solver, const char* extra,
                    char* path, int sz) {
  char* xml = tu_readFile(file);
  cr_assert(xml, "cannot read %s", file);
  char dir[] = "/tmp/moduco-surface-XXXXXX";
  cr_assert(mkdtemp(dir), "no temporary folder");
  snprintf(path, (size_t)sz, "%s/%s-%s-%s.xml", dir, strrchr(file, '/') + 1, cone, solver);
  FILE* f = fopen(path, "w");
  cr_assert(f);
  const char* a = strstr(xml, "cone=\"elliptic\" solver=\"Newton\"");
  cr_assert(a, "%s: no cone=\"elliptic\" solver=\"Newton\" to vary", file);
  fprintf(f, "%.*scone=\"%s\" solver=\"%s\"%s%s", (int)(a - xml), xml, cone, solver, extra,
          a + strlen("cone=\"elliptic\" solver=\"Newton\""));
  fclose(f);
  free(xml);
}

static void removeVariant(const char* path) {
  remove(path);
  char dir[512];
  snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(path, '/') - path), path);
  rmdir(dir);
}

// one frame: Moduco's forward at MuJoCo's state against MuJoCo's fields; the worst errors of
// the force-like fields (forces, accelerations) and the kinematic ones (velocities, contacts)
static void compareFrame(const mcModel* m, mcData* d, const cJSON* fr, const char* what,
                         double tolForce) {
  readField(fr, "qpos", d->qpos, m->nq);
  readField(fr, "qvel", d->qvel, m->nv);
  readField(fr, "qacc_warmstart", d->qacc_warmstart, m->nv);
  mc_forward(m, d);
  int n = d->nefc;
  int nref = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(fr, "efc_type"));
  cr_assert_eq(n, nref, "%s: nefc %d, MuJoCo 3.14 %d", what, n, nref);
  const cJSON* cons = cJSON_GetObjectItemCaseSensitive(fr, "contacts");
  cr_assert_eq(d->ncon, cJSON_GetArraySize(cons), "%s: ncon", what);
  double ek = fmax(fieldErr(fr, "efc_vel", d->efc_vel, n),
                   fieldErr(fr, "efc_aref", d->efc_aref, n));
  double ef = fmax(fieldErr(fr, "efc_force", d->efc_force, n),
                   fieldErr(fr, "qacc", d->qacc, m->nv));
  ef = fmax(ef, fieldErr(fr, "qfrc_passive", d->qfrc_passive, m->nv));
  ef = fmax(ef, fieldErr(fr, "sensordata", d->sensordata, m->nsensordata));
  for (int c = 0; c < d->ncon; c++) {
    const cJSON* rc = cJSON_GetArrayItem(cons, c);
    const mcContact* con = d->contact + c;
    cr_assert(con->geom1 == cJSON_GetArrayItem(rc, 0)->valueint &&
              con->geom2 == cJSON_GetArrayItem(rc, 1)->valueint, "%s: contact %d geoms", what, c);
    double geo[13], force[6], ref[21];
    geo[0] = con->dist;
    memcpy(geo + 1, con->pos, sizeof(con->pos));
    memcpy(geo + 4, con->frame, sizeof(con->frame));
    mc_contactForce(m, d, c, force);
    for (int k = 0; k < 21; k++) {
      ref[k] = cJSON_GetArrayItem(rc, k)->valuedouble;
    }
    for (int k = 0; k < 13; k++) {
      ek = fmax(ek, fabs(geo[k] - ref[2 + k]));
    }
    for (int k = 0; k < 6; k++) {
      ef = fmax(ef, fabs(force[k] - ref[15 + k]) / fmax(1, fabs(ref[15 + k])));
    }
  }
  printf("%s: nefc %d, velocity/aref/contacts %.2e, forces/qacc %.2e\n", what, n, ek, ef);
  cr_expect(ek <= 1e-8, "%s: efc_vel, efc_aref or a contact differs from MuJoCo 3.14 by %g",
            what, ek);
  cr_expect(ef <= tolForce, "%s: efc_force, qacc, qfrc_passive or a contact force differs from "
            "MuJoCo 3.14 by %g", what, ef);
}

// every frame of one model variant, then Moduco's own run against MuJoCo's positions
static void compareModel(const char* name, const char* cone, const char* solver, double tolForce,
                         double tolRun) {
  TU_MJS314_REQUIRE();
  char path[512], err[512], what[256];
  variant(name, cone, solver, "", path, sizeof(path));
  const char* args[NFRAME + 2] = {path};
  for (int i = 0; i < NFRAME; i++) {
    args[1 + i] = kSteps[i];
  }
  args[NFRAME + 1] = NULL;
  cJSON* ref = tu_mjs3Json("tests/constraint/surface_ref.mjs", args, NULL, err, sizeof(err));
  cr_assert(ref, "%s: %s", path, err);
  mcModel* m = mc_loadXML(path, err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  const cJSON* frames = cJSON_GetObjectItemCaseSensitive(ref, "frames");
  cr_assert_eq(cJSON_GetArraySize(frames), NFRAME);
  for (int i = 0; i < NFRAME; i++) {
    mc_resetDataKeyframe(m, d, 0);
    snprintf(what, sizeof(what), "%s step %s", strrchr(path, '/') + 1, kSteps[i]);
    compareFrame(m, d, cJSON_GetArrayItem(frames, i), what, tolForce);
  }

  // Moduco's run from the keyframe: positions at each frame
  mc_resetDataKeyframe(m, d, 0);
  double worst = 0;
  for (int i = 0, done = 0; i < NFRAME; i++) {
    for (int s = atoi(kSteps[i]); done < s; done++) {
      mc_step(m, d);
    }
    worst = fmax(worst, fieldErr(cJSON_GetArrayItem(frames, i), "qpos", d->qpos, m->nq));
  }
  printf("%s run: qpos within %.2e of MuJoCo 3.14\n", strrchr(path, '/') + 1, worst);
  cr_expect(worst <= tolRun, "%s: Moduco's run leaves MuJoCo 3.14's by %g", path, worst);
  mc_deleteData(d);
  mc_deleteModel(m);
  cJSON_Delete(ref);
  removeVariant(path);
}

static const char* const kModels[] = {"conveyor.xml", "turntable.xml", "two_surfaces.xml",
                                      "adhesion.xml", "noslip.xml", "noslip_adhesion.xml"};

// each model in one cone with one solver
static void compareAll(const char* cone, const char* solver, double tolForce, double tolRun) {
  for (size_t i = 0; i < sizeof(kModels) / sizeof(kModels[0]); i++) {
    char file[512];
    snprintf(file, sizeof(file), "%s%s", MODEL_DIR, kModels[i]);
    compareModel(file, cone, solver, tolForce, tolRun);
  }
}

// Newton: every field as MuJoCo 3.14 (the forces to 1e-4: 6.6e-5 at the first contact frame of
// two_surfaces.xml, where the two Newton solvers stop at different iterations; 1.5e-6 elsewhere)
Test(surface_mujoco3, elliptic_newton) {
  compareAll("elliptic", "Newton", 1e-4, 1e-6);
}

Test(surface_mujoco3, pyramidal_newton) {
  compareAll("pyramidal", "Newton", 1e-4, 1e-6);
}

// CG and PGS: the surface velocities and the adhesion enter efc_vel and efc_aref, matched to
// 1e-8 as with Newton; the iterative solvers' forces differ from MuJoCo 3.14's at their
// iteration limit already without moving surfaces or adhesion (CG up to 1e-4 relative, PGS up
// to 0.7 on these models with both attributes removed), so the forces get a loose bound and the
// runs one far below the centimetres to decimetres the surfaces and the adhesion move the bodies
Test(surface_mujoco3, elliptic_cg) {
  compareAll("elliptic", "CG", 5e-2, 2e-3);
}

Test(surface_mujoco3, pyramidal_cg) {
  compareAll("pyramidal", "CG", 5e-2, 2e-3);
}

Test(surface_mujoco3, elliptic_pgs) {
  compareAll("elliptic", "PGS", 1, 5e-4);
}

Test(surface_mujoco3, pyramidal_pgs) {
  compareAll("pyramidal", "PGS", 1, 5e-4);
}

// the inverse dynamics of the sticky contacts: the adhesive pull in qfrc_passive and the
// shifted rows give back the applied (actuator) forces of the forward at every frame
Test(surface_mujoco3, adhesion_inverse_matches_forward) {
  const char* cones[] = {"elliptic", "pyramidal"};
  for (int c = 0; c < 2; c++) {
    char path[512], err[512];
    variant(MODEL_DIR "adhesion.xml", cones[c], "Newton", "", path, sizeof(path));
    mcModel* m = mc_loadXML(path, err, sizeof(err));
    cr_assert(m, "%s", err);
    mcData* d = mc_makeData(m);
    mc_resetDataKeyframe(m, d, 0);
    double worst = 0, pull = 0;
    for (int s = 0; s <= 100; s++) {
      mc_forward(m, d);
      for (int i = 0; i < m->nv; i++) {
        pull = fmax(pull, fabs(d->qfrc_passive[i]));
      }
      mc_inverse(m, d);
      for (int i = 0; i < m->nv; i++) {
        worst = fmax(worst, fabs(d->qfrc_inverse[i] - d->qfrc_actuator[i]));
      }
      mc_step(m, d);
    }
    printf("adhesion %s: inverse within %.2e N of the forward's forces (pull up to %g N)\n",
           cones[c], worst, pull);
    cr_expect(pull >= 5, "%s: no adhesive pull in qfrc_passive (%g)", cones[c], pull);
    cr_expect(worst <= 1e-6, "%s: the inverse differs from the forward by %g", cones[c], worst);
    mc_deleteData(d);
    mc_deleteModel(m);
    removeVariant(path);
  }
}


// the row-sparse Jacobian (the adhesive pull read from its rows) moves the bodies as the dense one
Test(surface_mujoco3, sparse_jacobian_as_dense) {
  const char* files[] = {"adhesion.xml", "two_surfaces.xml"};
  for (int k = 0; k < 4; k++) {
    const char* cone = k % 2 ? "pyramidal" : "elliptic";
    char file[512], path[2][512], err[512];
    snprintf(file, sizeof(file), "%s%s", MODEL_DIR, files[k / 2]);
    variant(file, cone, "Newton", " jacobian=\"dense\"", path[0], sizeof(path[0]));
    variant(file, cone, "Newton", " jacobian=\"sparse\"", path[1], sizeof(path[1]));
    mcModel* m[2];
    mcData* d[2];
    for (int j = 0; j < 2; j++) {
      m[j] = mc_loadXML(path[j], err, sizeof(err));
      cr_assert(m[j], "%s", err);
      d[j] = mc_makeData(m[j]);
      mc_resetDataKeyframe(m[j], d[j], 0);
    }
    double worst = 0;
    for (int s = 0; s < 200; s++) {
      mc_forward(m[0], d[0]);
      mc_forward(m[1], d[1]);
      cr_assert(!d[0]->efc_J_rownnz && d[1]->efc_J_rownnz, "not a dense and a sparse Jacobian");
      for (int i = 0; i < m[0]->nv; i++) {
        worst = fmax(worst, fabs(d[0]->qacc[i] - d[1]->qacc[i]));
        worst = fmax(worst, fabs(d[0]->qfrc_passive[i] - d[1]->qfrc_passive[i]));
      }
      mc_step(m[0], d[0]);
      mc_step(m[1], d[1]);
    }
    printf("%s %s: sparse within %.2e of dense\n", files[k / 2], cone, worst);
    cr_expect(worst <= 1e-9, "%s %s: sparse differs from dense by %g", files[k / 2], cone, worst);
    for (int j = 0; j < 2; j++) {
      mc_deleteData(d[j]);
      mc_deleteModel(m[j]);
      removeVariant(path[j]);
    }
  }
}
