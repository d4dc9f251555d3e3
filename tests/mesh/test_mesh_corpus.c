// Mesh-derived fields of real models. Against MuJoCo 3.14 (tests/mesh/inertia_ref.mjs, whose
// mesh inertia and frames Moduco follows; 2.2.2 weighed a mesh geom as its equivalent inertia box
// and measured in float): body mass, centre of mass and inertia (as full tensors), geom pose after
// re-centring, geom size and bounding radius, vertices. Against MuJoCo 2.2.2: vertex, face and
// hull-graph counts, faces and convex-hull graphs exactly, height fields exactly (Cassie's OBJ
// quads are split otherwise by 3.14 and Moduco, but OBJ faces index fresh vertices per corner,
// so the face arrays stay 2.2.2's).
// Measured against 3.14 (the stderr line of each model): body fields to ~1.3e-14, mesh geom pose,
// size and bounding radius to 8.6e-13 (ANYmal C's geom_quat; the others 6.4e-14 or less),
// vertices bit for bit (one to one, or as sets where Moduco keeps 2.2.2's OBJ vertex layout, see
// mt_compareFields).
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_common.h"
#include "testutil.h"

#define CORPUS "/work/shared/corpus/"

// compare one model: file in folder dir (xml text optional: loaded with Moduco from a string in
// dir)
static void mt_corpus(const char* dir, const char* file, const char* mc_xml) {
  char err[1024] = "", path[512];
  snprintf(path, sizeof(path), "%s/%s", dir, file);
  mjModel* mj = mj_loadXML(path, NULL, err, sizeof(err));
  cr_assert_not_null(mj, "MuJoCo: %s", err);
  mcModel* mc = mc_xml ? mc_loadXMLString(mc_xml, dir, err, sizeof(err))
                       : mc_loadXML(path, err, sizeof(err));
  cr_assert_not_null(mc, "Moduco: %s", err);
  const char* models[2] = {file, NULL};
  cJSON* out = mt_reference3(dir, models);
  mtRefFields ref;
  mt_refFields(out, 0, &ref);

  // MuJoCo 2.2.2: sizes, faces and hull graphs exactly
  mtDiff d;
  mt_compareStructure(mc, mj, &d);
  cr_expect(!d.counts, "%s: sizes differ from MuJoCo 2.2.2 (nmeshvert %d/%d, nmeshface %d/%d, "
            "nmeshgraph %d/%d)", path, mc->nmeshvert, mj->nmeshvert, mc->nmeshface,
            mj->nmeshface, mc->nmeshgraph, mj->nmeshgraph);
  cr_expect(!d.faces && !d.graphs, "%s: %d meshes with other faces, %d with other hulls", path,
            d.faces, d.graphs);

  // MuJoCo 3.14: mass properties and the mesh frames
  mt_compareFields(mc, &ref.f, &d);
  fprintf(stderr, "%s vs 3.14: mass %.1e ipos %.1e inertia %.1e gpos %.1e gquat %.1e size %.1e "
          "rbound %.1e vert %.1e (%d of %d meshes as vertex sets)\n", path, d.mass, d.ipos,
          d.inertia, d.gpos, d.gquat, d.gsize, d.rbound, d.vert, d.vertsets, mc->nmesh);
  cr_expect(!d.counts, "%s: nbody, ngeom or nmesh differ from MuJoCo 3.14", path);
  cr_expect(d.mass < 1e-9, "%s: body_mass %g", path, d.mass);
  cr_expect(d.ipos < 1e-9, "%s: body_ipos %g", path, d.ipos);
  cr_expect(d.inertia < 1e-9, "%s: body inertia %g (body %d)", path, d.inertia, d.inertia_body);
  cr_expect(d.gpos < 1e-9, "%s: geom_pos %g", path, d.gpos);
  cr_expect(d.gquat < 1e-9, "%s: geom_quat %g", path, d.gquat);
  cr_expect(d.gsize < 1e-9, "%s: geom_size %g", path, d.gsize);
  cr_expect(d.rbound < 1e-9, "%s: geom_rbound %g", path, d.rbound);
  cr_expect(d.vert < 1e-9, "%s: mesh_vert %g", path, d.vert);
  mt_freeFields(&ref);
  cJSON_Delete(out);

  // height fields exactly
  cr_expect_eq(mc->nhfielddata, mj->nhfielddata);
  if (mc->nhfielddata == mj->nhfielddata) {
    cr_expect(!memcmp(mc->hfield_data, mj->hfield_data, sizeof(float) * (size_t)mj->nhfielddata));
  }
  mc_deleteModel(mc);
  mj_deleteModel(mj);
}


#define MT_MODEL(name, dir, file)                                                                  \
  Test(mesh_corpus, name, .timeout = 600) {                                                        \
    mt_corpus(dir, file, NULL);                                                                    \
  }

MT_MODEL(mug, "/usr/share/mujoco/model/mug", "mug.xml")
MT_MODEL(robotiq_2f85, CORPUS "menagerie_robotiq_2f85", "2f85.xml")
MT_MODEL(unitree_h1, CORPUS "menagerie_unitree_h1", "h1.xml")
MT_MODEL(shadow_hand, CORPUS "menagerie_shadow_hand_right", "right_hand.xml")
MT_MODEL(anymal_c, CORPUS "menagerie_anybotics_anymal_c", "anymal_c.xml")
MT_MODEL(cassie, CORPUS "menagerie_agility_cassie", "cassie.xml")
MT_MODEL(quadruped_hfield, CORPUS "dm_quadruped", "quadruped.xml")
MT_MODEL(dog, CORPUS "dm_dog", "dog.xml")


// franka_panda_2023 asks for integrator="implicit" (not a Moduco plugin yet): patched in a copy
// for Moduco (MuJoCo 3.14 compiles the file as it is)
Test(mesh_corpus, franka_panda_2023, .timeout = 600) {
  const char* dir = CORPUS "menagerie_franka_panda_2023";
  char path[512];
  snprintf(path, sizeof(path), "%s/panda.xml", dir);
  FILE* f = fopen(path, "rb");
  cr_assert_not_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* xml = (char*)calloc(1, (size_t)n + 64);
  cr_assert_eq(fread(xml, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  char* p = strstr(xml, "integrator=\"implicit\"");
  if (p) {
    memcpy(p, "integrator=\"Euler\"   ", 21);
  }
  mt_corpus(dir, "panda.xml", xml);
  free(xml);
}
