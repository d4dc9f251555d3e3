// Mesh and height-field assets: file readers, inertia against closed forms, agreement with
// MuJoCo 3.14 (mass properties, mesh frames and vertices: tests/mesh/inertia_ref.mjs) and 2.2.2
// (counts, faces, hull graphs, height fields) on generated files, and every error message of the
// mesh and hfield compilers.
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "compiler/compiler_mesh.h"
#include "mesh_common.h"
#include "testutil.h"

// a model with one free body holding one mesh geom (asset text inserted)
#define ONE_MESH(asset)                                                                            \
  "<mujoco>\n<asset>\n" asset "\n</asset>\n<worldbody>\n<body pos=\"0 0 1\">\n<freejoint/>\n"     \
  "<geom type=\"mesh\" mesh=\"m\" density=\"500\"/>\n</body>\n</worldbody>\n</mujoco>\n"

//---------------------------------- readers -------------------------------------------------------

// binary STL, ASCII STL, OBJ of the same box: same compiled mesh, and the same as MuJoCo
Test(mesh_io, stl_binary_ascii_obj_agree) {
  char dir[64];
  mt_tempdir(dir);
  float tri[108];
  mt_boxTriangles(tri, 2, 1, 3);
  mt_writeSTL(dir, "box.stl", tri, 12);
  mt_writeSTLText(dir, "boxa.stl", tri, 12);

  // the OBJ spells the box with quads (split along the shorter diagonal), a negative index and
  // v/vt/vn
  const char* obj =
    "# box\nv 0 0 0\nv 2 0 0\nv 0 1 0\nv 2 1 0\nv 0 0 3\nv 2 0 3\nv 0 1 3\nv 2 1 3\n"
    "vt 0 0\nvn 0 0 1\n"
    "f 1 3 4 2\nf 5/1 6/1 8/1 7/1\nf 1//1 2//1 6//1 5//1\nf 3 7 8 -5\nf 1 5 7 3\nf 2 4 8 6\n";
  mt_write(dir, "box.obj", obj, strlen(obj));
  const char* xml = ONE_MESH("<mesh name=\"m\" file=\"%s\"/>");
  const char* files[3] = {"box.stl", "boxa.stl", "box.obj"};
  mcModel* mc[3];
  for (int k = 0; k < 3; k++) {
    char text[1024], err[1024] = "";
    snprintf(text, sizeof(text), xml, files[k]);
    mt_write(dir, "model.xml", text, strlen(text));
    mc[k] = mt_loadMC(dir, "model.xml", err, sizeof(err));
    cr_assert_not_null(mc[k], "%s: %s", files[k], err);

    // box 2 x 1 x 3, density 500: mass 3000, inertia m/12 (b^2 + c^2) about the centre
    double mass = 500.0 * 6, I[3] = {mass / 12 * (1 + 9), mass / 12 * (4 + 9),
                                     mass / 12 * (4 + 1)};
    cr_assert_float_eq(mc[k]->body_mass[1], mass, 1e-9 * mass, "%s", files[k]);
    double got[3] = {mc[k]->body_inertia[3], mc[k]->body_inertia[4], mc[k]->body_inertia[5]};
    double want[3] = {I[1], I[0], I[2]};            // decreasing order: y, x, z
    for (int i = 0; i < 3; i++) {
      cr_assert_float_eq(got[i], want[i], 1e-9 * want[i], "%s inertia %d", files[k], i);
    }

    // the geom sits at the box centre in the body frame (body pos 0 0 1 is the frame origin)
    cr_assert_float_eq(mc[k]->geom_pos[0], 1.0, 1e-7);
    cr_assert_float_eq(mc[k]->geom_pos[1], 0.5, 1e-7);
    cr_assert_float_eq(mc[k]->geom_pos[2], 1.5, 1e-7);
    cr_assert_float_eq(mc[k]->geom_rbound[0], sqrt(0.25 + 1 + 2.25), 1e-7);
  }

  // STL files merge repeated vertices: 8 corners; OBJ keeps three vertices per triangle
  cr_assert_eq(mc[0]->nmeshvert, 8);
  cr_assert_eq(mc[1]->nmeshvert, 8);
  cr_assert_eq(mc[2]->nmeshvert, 36);
  cr_assert_eq(mc[0]->nmeshface, 12);
  cr_assert_eq(mc[2]->nmeshface, 12);
  cr_assert_eq(memcmp(mc[0]->mesh_vert, mc[1]->mesh_vert, sizeof(float) * 24), 0);

  // MuJoCo 2.2.2 reads binary STL and OBJ: the same counts, faces and hull (its OBJ reader reads
  // out of bounds on faces that mix v and v//vn corners, so MuJoCo gets plain corners; it fans
  // every quad from its first corner, where MuJoCo 3.14 and Moduco split a quad along its shorter
  // diagonal, here corners 1-3 of each rectangle, whose diagonals tie: the OBJ's fresh vertices
  // per corner keep the face indices, but the hull graph names other vertex ids for the same
  // points, so it is not compared for the OBJ); MuJoCo 3.14 computes the same mass properties,
  // mesh frame and vertices
  const char* plain =
    "v 0 0 0\nv 2 0 0\nv 0 1 0\nv 2 1 0\nv 0 0 3\nv 2 0 3\nv 0 1 3\nv 2 1 3\n"
    "f 1 3 4 2\nf 5 6 8 7\nf 1 2 6 5\nf 3 7 8 -5\nf 1 5 7 3\nf 2 4 8 6\n";
  mt_write(dir, "box.obj", plain, strlen(plain));
  const char* models[3] = {"model_box.stl.xml", "model_box.obj.xml", NULL};
  for (int k = 0; k < 3; k += 2) {
    char text[1024], err[1024] = "";
    snprintf(text, sizeof(text), xml, files[k]);
    mt_write(dir, models[k / 2], text, strlen(text));
    mjModel* mj = mt_loadMJ(dir, models[k / 2], err, sizeof(err));
    cr_assert_not_null(mj, "%s", err);
    mtDiff d;
    mt_compareStructure(mc[k], mj, &d);
    cr_assert(!d.counts && !d.faces && (k == 2 || !d.graphs), "%s: counts/faces/graphs differ",
              files[k]);
    mj_deleteModel(mj);
  }
  cJSON* out = mt_reference3(dir, models);
  for (int k = 0; k < 3; k += 2) {
    mtRefFields ref;
    mt_refFields(out, k / 2, &ref);
    mtDiff d;
    mt_compareFields(mc[k], &ref.f, &d);
    cr_assert(!d.counts && d.mass < 1e-12 && d.ipos < 1e-12 && d.inertia < 1e-12 &&
              d.vert == 0 && d.gpos < 1e-12 && d.gquat < 1e-12 && d.gsize < 1e-12 &&
              d.rbound < 1e-12, "%s against MuJoCo 3.14: mass %g ipos %g inertia %g vert %g "
              "gpos %g gquat %g size %g rbound %g", files[k], d.mass, d.ipos, d.inertia, d.vert,
              d.gpos, d.gquat, d.gsize, d.rbound);
    mt_freeFields(&ref);
  }
  cJSON_Delete(out);
  for (int k = 0; k < 3; k++) {
    mc_deleteModel(mc[k]);
  }
  mt_cleanup(dir);
}


// scale, refpos, refquat and class defaults, with a left-handed (mirroring) scale: mass
// properties, mesh frames and vertices as MuJoCo 3.14, faces and hulls as 2.2.2
Test(mesh_io, scale_ref_and_defaults_match_mujoco, .timeout = 600) {
  char dir[64];
  mt_tempdir(dir);
  float tri[108];
  mt_boxTriangles(tri, 2, 1, 3);
  tri[0] = 0.25f;                                   // break the symmetry a little
  mt_writeSTL(dir, "box.stl", tri, 12);
  const char* xml =
    "<mujoco>\n<default>\n<default class=\"small\">\n<mesh scale=\"0.1 -0.2 0.3\"/>\n"
    "<geom density=\"700\"/>\n</default>\n</default>\n<asset>\n"
    "<mesh name=\"a\" class=\"small\" file=\"box.stl\"/>\n"
    "<mesh name=\"b\" file=\"box.stl\" refquat=\"0.9 0.1 0.3 -0.2\"/>\n"
    "<mesh name=\"c\" file=\"box.stl\" scale=\"-1 1 1\" refpos=\"0.5 0.1 -0.2\"/>\n"
    "</asset>\n<worldbody>\n<body>\n<freejoint/>\n<geom type=\"mesh\" mesh=\"a\" "
    "euler=\"10 20 30\" pos=\"0.1 0 0\"/>\n</body>\n<body>\n<freejoint/>\n"
    "<geom type=\"mesh\" mesh=\"b\" contype=\"0\" conaffinity=\"0\"/>\n"
    "<geom type=\"mesh\" mesh=\"c\" mass=\"2\" pos=\"0 1 0\"/>\n</body>\n</worldbody>\n"
    "</mujoco>\n";
  mt_write(dir, "model.xml", xml, strlen(xml));
  char err[1024] = "";
  mcModel* mc = mt_loadMC(dir, "model.xml", err, sizeof(err));
  cr_assert_not_null(mc, "%s", err);
  mjModel* mj = mt_loadMJ(dir, "model.xml", err, sizeof(err));
  cr_assert_not_null(mj, "%s", err);
  mtDiff d;
  mt_compareStructure(mc, mj, &d);
  cr_assert(!d.counts && !d.faces && !d.graphs);
  cr_assert_eq(mc->mesh_graphadr[1], -1, "a visual-only mesh has no hull");
  mj_deleteModel(mj);
  const char* models[2] = {"model.xml", NULL};
  cJSON* out = mt_reference3(dir, models);
  mtRefFields ref;
  mt_refFields(out, 0, &ref);
  mt_compareFields(mc, &ref.f, &d);
  cr_assert(!d.counts && d.mass < 1e-12 && d.ipos < 1e-12 && d.inertia < 1e-12 && d.vert == 0 &&
            d.gpos < 1e-12 && d.gquat < 1e-12 && d.gsize < 1e-12 && d.rbound < 1e-12,
            "against MuJoCo 3.14: mass %g ipos %g inertia %g vert %g gpos %g gquat %g size %g "
            "rbound %g", d.mass, d.ipos, d.inertia, d.vert, d.gpos, d.gquat, d.gsize, d.rbound);
  mt_freeFields(&ref);
  cJSON_Delete(out);
  mc_deleteModel(mc);
  mt_cleanup(dir);
}


// the order of the principal axes: MuJoCo 3.14 sorts the mesh's unit-density principal inertias
// where two differ by more than 1e-12 of the largest, at any scale, so a 6 x 4 x 2 box gets them
// sorted (a rotation) at scale 1, 1e-3 (inertias ~1e-12) and 1e-4; a box with two nearly equal
// inertias (x and y extents 2 and 2.0001) likewise (MuJoCo 3.3.8, by an absolute 1e-12, kept the
// file axes of the small ones)
Test(mesh_io, principal_axes_order_matches_mujoco314, .timeout = 600) {
  char dir[64];
  mt_tempdir(dir);
  float tri[108];
  mt_boxTriangles(tri, 6, 4, 2);
  mt_writeSTL(dir, "box.stl", tri, 12);
  mt_boxTriangles(tri, 2, 2.0001f, 6);
  mt_writeSTL(dir, "tie.stl", tri, 12);
  static const char* const cases[][2] = {
    {"box.stl", "1 1 1"}, {"box.stl", "1e-3 1e-3 1e-3"}, {"box.stl", "1e-4 1e-4 1e-4"},
    {"tie.stl", "1 1 1"}, {"tie.stl", "1e-2 1e-2 1e-2"}, {"tie.stl", "3e-3 3e-3 3e-3"},
  };
  const int n = (int)(sizeof(cases) / sizeof(cases[0]));
  char names[6][32];
  const char* models[7];
  for (int k = 0; k < n; k++) {
    char text[1024];
    snprintf(text, sizeof(text), "<mujoco>\n<asset>\n<mesh name=\"m\" file=\"%s\" scale=\"%s\"/>\n"
             "</asset>\n<worldbody>\n<body>\n<freejoint/>\n<geom type=\"mesh\" mesh=\"m\" "
             "density=\"1e6\"/>\n</body>\n</worldbody>\n</mujoco>\n", cases[k][0], cases[k][1]);
    snprintf(names[k], sizeof(names[k]), "m%d.xml", k);
    mt_write(dir, names[k], text, strlen(text));
    models[k] = names[k];
  }
  models[n] = NULL;
  cJSON* out = mt_reference3(dir, models);
  int unsorted = 0;
  for (int k = 0; k < n; k++) {
    mtDiff d;
    mcModel* m = mt_loadCompared(dir, names[k], out, k, &d);
    cr_assert(!d.counts && d.mass < 1e-12 && d.inertia < 1e-12 && d.gquat < 1e-12 &&
              d.gsize < 1e-12 && d.vert == 0, "%s scale %s against MuJoCo 3.14: mass %g inertia "
              "%g gquat %g size %g vert %g", cases[k][0], cases[k][1], d.mass, d.inertia,
              d.gquat, d.gsize, d.vert);
    cr_assert(m->body_inertia[3] > 0 && m->body_inertia[4] > 0 && m->body_inertia[5] > 0);
    unsorted += m->body_inertia[3] < m->body_inertia[4] || m->body_inertia[4] < m->body_inertia[5];
    mc_deleteModel(m);
  }
  cr_assert_eq(unsorted, 0, "%d cases kept an unsorted frame", unsorted);
  cJSON_Delete(out);
  mt_cleanup(dir);
}


// OBJ quads: MuJoCo 3.14 splits a quad along its shorter diagonal (corners 0-2 if strictly shorter
// than 1-3, else 1-3), where 2.2.2 and 3.3.8 fan it from corner 0; on a non-planar quad the two
// splits enclose different volumes, so the mass, centre and frame tell them apart (cubes of six
// quads with perturbed corners and quads starting at every corner, and the unit cube, whose
// diagonals tie; with the fan the mass differs by up to 5.5e-2 and the frames by 0.6)
Test(mesh_io, obj_quads_split_as_mujoco314, .timeout = 600) {
  char dir[64];
  mt_tempdir(dir);
  static const int quad[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1},
                                 {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
  enum { NCUBE = 7 };
  unsigned rng = 12345;
  char names[NCUBE][32], objs[NCUBE][32];
  const char* models[NCUBE + 1];
  for (int c = 0; c < NCUBE; c++) {
    char obj[2048];
    size_t len = 0;
    for (int v = 0; v < 8; v++) {
      double p[3] = {v >> 2 & 1, v >> 1 & 1, v & 1};
      for (int k = 0; k < 3 && c; k++) {
        rng = rng * 1103515245u + 12345u;
        p[k] += 0.4 * ((rng >> 8 & 0xffff) / 65535.0 - 0.5);
      }
      len += (size_t)snprintf(obj + len, sizeof(obj) - len, "v %.6f %.6f %.6f\n", p[0], p[1], p[2]);
    }
    for (int f = 0; f < 6; f++) {
      int s0 = (c + f) % 4;
      len += (size_t)snprintf(obj + len, sizeof(obj) - len, "f %d %d %d %d\n",
                              quad[f][s0] + 1, quad[f][(s0 + 1) % 4] + 1,
                              quad[f][(s0 + 2) % 4] + 1, quad[f][(s0 + 3) % 4] + 1);
    }
    snprintf(objs[c], sizeof(objs[c]), "q%d.obj", c);
    mt_write(dir, objs[c], obj, len);
    char text[1024];
    snprintf(text, sizeof(text), ONE_MESH("<mesh name=\"m\" file=\"%s\"/>"), objs[c]);
    snprintf(names[c], sizeof(names[c]), "q%d.xml", c);
    mt_write(dir, names[c], text, strlen(text));
    models[c] = names[c];
  }
  models[NCUBE] = NULL;
  cJSON* out = mt_reference3(dir, models);
  for (int c = 0; c < NCUBE; c++) {
    mtDiff d;
    mcModel* m = mt_loadCompared(dir, names[c], out, c, &d);
    cr_assert(!d.counts && d.mass < 1e-12 && d.ipos < 1e-12 && d.inertia < 1e-12 &&
              d.gpos < 1e-12 && d.gquat < 1e-12 && d.gsize < 1e-12 && d.vert < 1e-12,
              "%s against MuJoCo 3.14: mass %g ipos %g inertia %g gpos %g gquat %g size %g "
              "vert %g", names[c], d.mass, d.ipos, d.inertia, d.gpos, d.gquat, d.gsize, d.vert);
    mc_deleteModel(m);
  }
  cJSON_Delete(out);
  mt_cleanup(dir);
}


// when MuJoCo 3.14 stops turning a mesh's frame: after the Jacobi rotation whose pivot is at least
// 1e-7 of the largest diagonal entry of the inertia, whatever the size of the rotation (3.3.8
// stopped at rotations below 1.4e-6 rad, the legacy rule). Boxes turned by small angles about one
// axis, whose single off-diagonal entry lies on either side of the threshold (pivot / largest
// 3.2e-8 .. 2.4e-7 for the 1 x 2 x 3 box about z, 7.7e-8 .. 1.2e-7 for 1 x 5 x 5.05 about x)
Test(mesh_io, principal_axes_stop_as_mujoco314, .timeout = 600) {
  char dir[64];
  mt_tempdir(dir);
  static const struct {
    double half[3];
    int axis;
    double angle;
  } cases[] = {
    {{1, 2, 3}, 2, 3e-7}, {{1, 2, 3}, 2, 4e-7}, {{1, 2, 3}, 2, 5e-7}, {{1, 2, 3}, 2, 6e-7},
    {{1, 2, 3}, 2, 8e-7}, {{1, 2, 3}, 2, 1e-6}, {{1, 5, 5.05}, 0, 7e-6}, {{1, 5, 5.05}, 0, 8e-6},
    {{1, 5, 5.05}, 0, 1e-5}, {{1, 5, 5.05}, 0, 1.1e-5},
  };
  enum { NCASE = sizeof(cases) / sizeof(cases[0]) };
  static const char* faces = "0 2 1 1 2 3 4 5 6 5 7 6 0 1 4 1 5 4 2 6 3 3 6 7 0 4 2 2 4 6 1 3 5 "
                             "3 7 5";
  char names[NCASE][32];
  const char* models[NCASE + 1];
  for (int k = 0; k < NCASE; k++) {
    char vert[1024];
    size_t len = 0;
    int a = cases[k].axis == 0 ? 1 : 0, b = cases[k].axis == 2 ? 1 : 2;
    double cs = cos(cases[k].angle), sn = sin(cases[k].angle);
    for (int v = 0; v < 8; v++) {
      double p[3];
      for (int j = 0; j < 3; j++) {
        p[j] = (v >> (2 - j) & 1 ? 1 : -1) * cases[k].half[j];
      }
      double pa = p[a], pb = p[b];
      p[a] = cs * pa - sn * pb;
      p[b] = sn * pa + cs * pb;
      len += (size_t)snprintf(vert + len, sizeof(vert) - len, "%s%.9g %.9g %.9g", v ? " " : "",
                              p[0], p[1], p[2]);
    }
    char text[2048];
    snprintf(text, sizeof(text), ONE_MESH("<mesh name=\"m\" vertex=\"%s\" face=\"%s\"/>"), vert,
             faces);
    snprintf(names[k], sizeof(names[k]), "r%d.xml", k);
    mt_write(dir, names[k], text, strlen(text));
    models[k] = names[k];
  }
  models[NCASE] = NULL;
  cJSON* out = mt_reference3(dir, models);
  int turned = 0;
  for (int k = 0; k < NCASE; k++) {
    mtDiff d;
    mcModel* m = mt_loadCompared(dir, names[k], out, k, &d);
    cr_assert(!d.counts && d.inertia < 1e-12 && d.gquat < 1e-12 && d.gsize < 1e-12,
              "angle %g against MuJoCo 3.14: inertia %g gquat %g size %g", cases[k].angle,
              d.inertia, d.gquat, d.gsize);
    turned += m->geom_quat[0] != 1;
    mc_deleteModel(m);
  }
  cr_assert(turned > 0 && turned < NCASE, "%d of %d frames turned: the stop is not exercised",
            turned, NCASE);
  cJSON_Delete(out);
  mt_cleanup(dir);
}


//---------------------------------- inertia vs closed forms ---------------------------------------

// a tetrahedron: centre of mass and principal inertia per unit volume from the closed form
Test(mesh_inertia, tetrahedron_closed_form) {
  const double V[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 2, 0}, {0.25, 0.125, 1.5}};
  char xml[2048];
  snprintf(xml, sizeof(xml), ONE_MESH("<mesh name=\"m\" vertex=\"%g %g %g %g %g %g %g %g %g "
                                      "%g %g %g\"/>"),
           V[0][0], V[0][1], V[0][2], V[1][0], V[1][1], V[1][2], V[2][0], V[2][1], V[2][2],
           V[3][0], V[3][1], V[3][2]);
  char err[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);

  // closed form: volume |det|/6, centroid the vertex mean, covariance vol/20 (sum vv' + ss')
  double com[3] = {0, 0, 0};
  for (int i = 0; i < 4; i++) {
    for (int k = 0; k < 3; k++) {
      com[k] += V[i][k] / 4;
    }
  }
  double e1[3], e2[3], e3[3];
  for (int k = 0; k < 3; k++) {
    e1[k] = V[1][k] - V[0][k];
    e2[k] = V[2][k] - V[0][k];
    e3[k] = V[3][k] - V[0][k];
  }
  double vol = fabs(e1[0] * (e2[1] * e3[2] - e2[2] * e3[1]) - e1[1] * (e2[0] * e3[2] -
                    e2[2] * e3[0]) + e1[2] * (e2[0] * e3[1] - e2[1] * e3[0])) / 6;
  double C[9] = {0}, s[3] = {0, 0, 0};
  for (int i = 0; i < 4; i++) {
    for (int k = 0; k < 3; k++) {
      s[k] += V[i][k] - com[k];
    }
  }
  for (int a = 0; a < 3; a++) {
    for (int b = 0; b < 3; b++) {
      double sum = s[a] * s[b];
      for (int i = 0; i < 4; i++) {
        sum += (V[i][a] - com[a]) * (V[i][b] - com[b]);
      }
      C[3 * a + b] = vol / 20 * sum;
    }
  }
  double tr = C[0] + C[4] + C[8], I[9];
  for (int k = 0; k < 9; k++) {
    I[k] = (k % 4 == 0 ? tr : 0) - C[k];
  }
  double eig[3], q[4];
  mcc_eig3(eig, q, I, MCC_EIG_BODY);

  // body com (world frame: body at z=1, geom frame is the mesh inertial frame)
  for (int k = 0; k < 3; k++) {
    cr_assert_float_eq(m->body_ipos[k + 3], com[k], 1e-12, "com %d", k);
  }

  // the mesh's own volume and inertia at density 500 (MuJoCo 3.14; 2.2.2 weighed the box with
  // the same inertia per unit mass)
  double mass = m->body_mass[1];
  cr_assert_float_eq(mass, 500 * vol, 1e-12 * mass);
  for (int k = 0; k < 3; k++) {
    cr_assert_float_eq(m->body_inertia[3 + k], 500 * eig[k], 1e-12 * 500 * eig[0], "inertia %d",
                       k);
  }
  mc_deleteModel(m);
}


// the eigen solver's legacy rule follows MuJoCo 2.2.2's mju_eig3 (same frame; last bits may
// differ on general matrices, exact on the corpus meshes)
Test(mesh_inertia, eig3_legacy_matches_mujoco222) {
  tu_legacy222Compile(1);
  unsigned long long s = 12345;
  for (int t = 0; t < 2000; t++) {
    double A[9], B[9];
    for (int k = 0; k < 9; k++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      A[k] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        B[3 * i + j] = A[3 * i + j] + A[3 * j + i] + (i == j ? 2 : 0);
      }
    }
    double e1[3], q1[4], e2[3], q2[4], v2[9];
    mcc_eig3(e1, q1, B, MCC_EIG_BODY);
    mju_eig3(e2, v2, q2, B);
    for (int k = 0; k < 4; k++) {
      cr_assert(fabs(q1[k] - q2[k]) < 1e-12, "matrix %d: quat %d differs", t, k);
    }
    for (int k = 0; k < 3; k++) {
      cr_assert(fabs(e1[k] - e2[k]) < 1e-12 * fabs(e2[0]), "matrix %d: eig %d differs", t, k);
    }
  }
}


//---------------------------------- height fields -------------------------------------------------

Test(hfield, binary_file_and_inline_match_mujoco) {
  char dir[64];
  mt_tempdir(dir);
  unsigned char buf[8 + 4 * 12];
  int32_t dims[2] = {3, 4};
  float data[12] = {1, 2, 3, 4, 5, 7, -1, 0.5f, 2, 2, 2, 3};
  memcpy(buf, dims, 8);
  memcpy(buf + 8, data, sizeof(data));
  mt_write(dir, "terrain.bin", buf, sizeof(buf));
  const char* xml =
    "<mujoco>\n<asset>\n<hfield name=\"t\" file=\"terrain.bin\" size=\"1 2 0.5 0.1\"/>\n"
    "<hfield name=\"z\" nrow=\"2\" ncol=\"5\" size=\"3 3 1 1\"/>\n</asset>\n<worldbody>\n"
    "<geom type=\"hfield\" hfield=\"t\" pos=\"0 0 -1\"/>\n</worldbody>\n</mujoco>\n";
  mt_write(dir, "model.xml", xml, strlen(xml));
  char err[1024] = "";
  mcModel* mc = mt_loadMC(dir, "model.xml", err, sizeof(err));
  cr_assert_not_null(mc, "%s", err);
  mjModel* mj = mt_loadMJ(dir, "model.xml", err, sizeof(err));
  cr_assert_not_null(mj, "%s", err);
  cr_assert_eq(mc->nhfield, mj->nhfield);
  cr_assert_eq(mc->nhfielddata, mj->nhfielddata);
  for (int i = 0; i < mj->nhfield; i++) {
    cr_assert_eq(mc->hfield_nrow[i], mj->hfield_nrow[i]);
    cr_assert_eq(mc->hfield_ncol[i], mj->hfield_ncol[i]);
    cr_assert_eq(mc->hfield_adr[i], mj->hfield_adr[i]);
    for (int k = 0; k < 4; k++) {
      cr_assert_eq(mc->hfield_size[4 * i + k], mj->hfield_size[4 * i + k]);
    }
  }
  cr_assert_eq(memcmp(mc->hfield_data, mj->hfield_data, sizeof(float) * 22), 0);
  for (int k = 0; k < 3; k++) {
    cr_assert_eq(mc->geom_size[k], mj->geom_size[k]);
  }
  mj_deleteModel(mj);
  mc_deleteModel(mc);

  // inline elevation (MuJoCo 3 syntax) normalizes the same way; its rows are written last row
  // first (MuJoCo 3.14 stores them reversed), so this is the file's field
  const char* xml2 =
    "<mujoco>\n<asset>\n<hfield name=\"t\" nrow=\"3\" ncol=\"4\" size=\"1 2 0.5 0.1\" "
    "elevation=\"2 2 2 3 5 7 -1 0.5 1 2 3 4\"/>\n</asset>\n</mujoco>\n";
  mt_write(dir, "model2.xml", xml2, strlen(xml2));
  mcModel* mc2 = mt_loadMC(dir, "model2.xml", err, sizeof(err));
  cr_assert_not_null(mc2, "%s", err);
  mcModel* mc1 = mt_loadMC(dir, "model.xml", err, sizeof(err));
  cr_assert_eq(memcmp(mc1->hfield_data, mc2->hfield_data, sizeof(float) * 12), 0);
  cr_assert_float_eq(mc2->hfield_data[6], 0.0f, 0);
  cr_assert_float_eq(mc2->hfield_data[5], 1.0f, 0);
  mc_deleteModel(mc1);
  mc_deleteModel(mc2);
  mt_cleanup(dir);
}


//---------------------------------- errors --------------------------------------------------------

// write files, load dir/model.xml, expect an error at line with the key words
static void expectFileError(const char* dir, const char* xml, int line, const char* k1,
                            const char* k2) {
  mt_write(dir, "model.xml", xml, strlen(xml));
  char err[1024] = "";
  mcModel* m = mt_loadMC(dir, "model.xml", err, sizeof(err));
  if (m) {
    mc_deleteModel(m);
  }
  cr_assert_null(m, "expected an error (%s)", k1);
  char prefix[128];
  snprintf(prefix, sizeof(prefix), "%s/model.xml:%d: ", dir, line);
  cr_assert(!strncmp(err, prefix, strlen(prefix)), "expected prefix '%s' in '%s'", prefix, err);
  cr_assert(strstr(err, k1), "expected '%s' in '%s'", k1, err);
  if (k2) {
    cr_assert(strstr(err, k2), "expected '%s' in '%s'", k2, err);
  }
}


Test(mesh_errors, malformed_files) {
  char dir[64];
  mt_tempdir(dir);
  float tri[108];
  mt_boxTriangles(tri, 1, 1, 1);
  char xml[1024];
#define MESHFILE(f) (snprintf(xml, sizeof(xml), ONE_MESH("<mesh name=\"m\" file=\"%s\"/>"), f), xml)

  // truncated binary STL: the header promises more triangles than the file holds
  mt_writeSTL(dir, "trunc.stl", tri, 12);
  {
    char path[256];
    snprintf(path, sizeof(path), "%s/trunc.stl", dir);
    cr_assert_eq(truncate(path, 84 + 50 * 12 - 7), 0);
  }
  expectFileError(dir, MESHFILE("trunc.stl"), 3, "trunc.stl", "truncated or corrupt");

  // shorter than the header, no triangles, too many triangles
  mt_write(dir, "tiny.stl", "abc", 3);
  expectFileError(dir, MESHFILE("tiny.stl"), 3, "tiny.stl", "too short");
  unsigned char hdr[84] = {0};
  mt_write(dir, "empty.stl", hdr, sizeof(hdr));
  expectFileError(dir, MESHFILE("empty.stl"), 3, "empty.stl", "no triangles");
  uint32_t big = 250000;
  memcpy(hdr + 80, &big, 4);
  mt_write(dir, "big.stl", hdr, sizeof(hdr));
  expectFileError(dir, MESHFILE("big.stl"), 3, "big.stl", "250000 triangles (12500084 bytes)");

  // ASCII STL: a facet with two vertices, a truncated file
  const char* bad = "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                    "endloop\nendfacet\nendsolid\n";
  mt_write(dir, "bad.stl", bad, strlen(bad));
  expectFileError(dir, MESHFILE("bad.stl"), 3, "line 7", "facet has 2 vertices");
  const char* cut = "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n";
  mt_write(dir, "cut.stl", cut, strlen(cut));
  expectFileError(dir, MESHFILE("cut.stl"), 3, "cut.stl", "ends inside a facet");

  // OBJ: index out of range, face with two corners, malformed index, no vertices
  const char* o1 = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n";
  mt_write(dir, "o1.obj", o1, strlen(o1));
  expectFileError(dir, MESHFILE("o1.obj"), 3, "o1.obj' line 4", "face index 4 out of range");
  const char* o2 = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n";
  mt_write(dir, "o2.obj", o2, strlen(o2));
  expectFileError(dir, MESHFILE("o2.obj"), 3, "line 4", "at least 3 vertices");
  const char* o3 = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 x 3\n";
  mt_write(dir, "o3.obj", o3, strlen(o3));
  expectFileError(dir, MESHFILE("o3.obj"), 3, "line 4", "bad face index 'x'");
  mt_write(dir, "o4.obj", "# nothing\n", 10);
  expectFileError(dir, MESHFILE("o4.obj"), 3, "o4.obj", "no vertices");
  const char* o5 = "v 0 0\n";
  mt_write(dir, "o5.obj", o5, strlen(o5));
  expectFileError(dir, MESHFILE("o5.obj"), 3, "line 1", "3 coordinates");

  // MSH with inconsistent sizes; unknown extension; missing file
  int32_t msh[4] = {4, 0, 0, 1};
  mt_write(dir, "a.msh", msh, sizeof(msh));
  expectFileError(dir, MESHFILE("a.msh"), 3, "a.msh", "its header implies");
  expectFileError(dir, MESHFILE("x.ply"), 3, "unknown mesh file type", "x.ply");
  expectFileError(dir, MESHFILE("missing.stl"), 3, "could not open mesh file", "missing.stl");
#undef MESHFILE
  mt_cleanup(dir);
}


Test(mesh_errors, degenerate_meshes) {
  char dir[64];
  mt_tempdir(dir);

  // a flat square: a targeted message instead of a raw qhull error
  expectFileError(dir, ONE_MESH("<mesh name=\"m\" vertex=\"0 0 0 1 0 0 0 1 0 1 1 0\"/>"), 3,
                  "mesh 'm'", "lie in one plane");

  // a flat STL used for collision (needs a hull) and as visual only (needs a volume)
  float sq[18] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0};
  mt_writeSTL(dir, "flat.stl", sq, 2);
  expectFileError(dir, ONE_MESH("<mesh name=\"m\" file=\"flat.stl\"/>"), 3, "flat.stl",
                  "degenerate");
  const char* vis =
    "<mujoco>\n<asset>\n<mesh name=\"m\" file=\"flat.stl\"/>\n</asset>\n<worldbody>\n"
    "<geom type=\"mesh\" mesh=\"m\" contype=\"0\" conaffinity=\"0\"/>\n</worldbody>\n</mujoco>\n";
  expectFileError(dir, vis, 3, "mesh 'm'", "lie in one plane");

  // too few vertices, collinear points, bad inline counts and indices
  expectFileError(dir, ONE_MESH("<mesh name=\"m\" vertex=\"0 0 0 1 0 0 0 1 0\"/>"), 3,
                  "at least 4 vertices", NULL);
  expectFileError(dir, ONE_MESH("<mesh name=\"m\" vertex=\"0 0 0 1 0 0 2 0 0 3 0 0\"/>"), 3,
                  "degenerate", "one line");
  expectFileError(dir, ONE_MESH("<mesh name=\"m\" vertex=\"0 0 0 1 0 0 0 1 0 0 0 1 5\"/>"), 3,
                  "multiple of 3", NULL);
  expectFileError(dir, ONE_MESH("<mesh name=\"m\" vertex=\"0 0 0 1 0 0 0 1 0 0 0 1\" "
                                "face=\"0 1 4\"/>"), 3, "vertex index 4", "out of range");
  expectFileError(dir, ONE_MESH("<mesh name=\"m\" face=\"0 1 2\"/>"), 3, "no vertices", NULL);
  mt_cleanup(dir);
}


Test(hfield_errors, messages) {
  char dir[64];
  mt_tempdir(dir);
#define HF(attrs) "<mujoco>\n<asset>\n<hfield name=\"h\" " attrs "/>\n</asset>\n</mujoco>\n"
  expectFileError(dir, HF("nrow=\"2\" ncol=\"2\""), 3, "requires attribute 'size'", NULL);
  expectFileError(dir, HF("nrow=\"2\" ncol=\"2\" size=\"1 1 0 0.1\""), 3, "must be positive",
                  "z_top");
  // z_bottom 0: refused like both MuJoCo versions
  expectFileError(dir, HF("nrow=\"2\" ncol=\"2\" size=\"1 1 1 0\""), 3, "must be positive",
                  "z_bottom");
  expectFileError(dir, HF("size=\"1 1 1 0.1\""), 3, "needs a file", "positive nrow and ncol");
  expectFileError(dir, HF("nrow=\"2\" ncol=\"2\" size=\"1 1 1 0.1\" elevation=\"1 2 3\""), 3,
                  "elevation has 3 numbers", "= 4");
  int32_t bad[3] = {2, 2, 0};
  mt_write(dir, "bad.bin", bad, sizeof(bad));
  expectFileError(dir, HF("file=\"bad.bin\" size=\"1 1 1 0.1\""), 3, "bad.bin",
                  "2 x 2 floats need 24");
  // PNG height fields are read (tests/sensor/test_hfield_png.c): a missing one is named
  expectFileError(dir, HF("file=\"t.png\" size=\"1 1 1 0.1\""), 3, "t.png", "could not open");
  expectFileError(dir, HF("file=\"bad.bin\" nrow=\"2\" size=\"1 1 1 0.1\""), 3, "not both", NULL);
#undef HF
  mt_cleanup(dir);
}
