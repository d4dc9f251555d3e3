// Mesh inertia modes (<mesh inertia="legacy|convex|exact|shell">) and geom shellinertia against
// MuJoCo 3.14 (tests/mesh/inertia_ref.mjs under node: @mujoco/mujoco), and inconsistent face
// winding (MuJoCo issue #1529) against MuJoCo 2.2.2 and 3.14.
//
// Meshes: a cube, the cube with a deep dent in its top (non-convex: legacy overcounts, convex is
// the cube), a random point cloud (faces from its hull), an L-shaped prism under an anisotropic
// scale and a reference offset, the follower link of the Robotiq 2F-85 gripper (corpus STL), the
// dent under refpos/refquat in a body of three geoms, and the whole Robotiq and dog models.
// Bodies are compared by mass, centre and the full inertia tensor (R diag(I) R', so the order and
// signs of principal axes do not matter) to 1e-12 relative; the shell ellipsoid to 1e-10 (MuJoCo
// takes it from a finite difference, whose rounding is not reproducible further).
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_common.h"
#include "testutil.h"

#define CORPUS "/work/shared/corpus/"
#define NMAX 64
#define REF_SCRIPT "tests/mesh/inertia_ref.mjs"

static const char* const kModes[4] = {"legacy", "convex", "exact", "shell"};

//---------------------------------- model texts ---------------------------------------------------

typedef struct {
  char name[64];
  char* xml;
} MtModel;

typedef struct {
  MtModel m[NMAX];
  int n;
  char dir[64];
} MtSet;

static void setAdd(MtSet* s, const char* name, const char* xml) {
  cr_assert_lt(s->n, NMAX);
  MtModel* m = s->m + s->n++;
  snprintf(m->name, sizeof(m->name), "%s", name);
  m->xml = strdup(xml);
  mt_write(s->dir, m->name, xml, strlen(xml));
}

static void setFree(MtSet* s) {
  for (int i = 0; i < s->n; i++) {
    free(s->m[i].xml);
  }
  mt_cleanup(s->dir);
}

// append printf text to a growing buffer
static void cat(char** buf, size_t* len, size_t* cap, const char* fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int k = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
    va_end(ap);
    cr_assert_geq(k, 0);
    if (*len + (size_t)k < *cap) {
      *len += (size_t)k;
      return;
    }
    *cap = 2 * (*cap + (size_t)k);
    *buf = realloc(*buf, *cap);
    cr_assert_not_null(*buf);
  }
}

// one free body with one mesh geom; mesh attributes attr, geom attributes gattr; faces optional
static char* meshModel(const double* v, int nv, const int* f, int nf, const char* attr,
                       const char* gattr) {
  size_t len = 0, cap = 4096;
  char* b = malloc(cap);
  b[0] = 0;
  cat(&b, &len, &cap, "<mujoco>\n<asset>\n<mesh name=\"m\" %s vertex=\"", attr);
  for (int i = 0; i < 3 * nv; i++) {
    cat(&b, &len, &cap, "%s%.9g", i ? " " : "", v[i]);
  }
  cat(&b, &len, &cap, "\"");
  if (f) {
    cat(&b, &len, &cap, " face=\"");
    for (int i = 0; i < 3 * nf; i++) {
      cat(&b, &len, &cap, "%s%d", i ? " " : "", f[i]);
    }
    cat(&b, &len, &cap, "\"");
  }
  cat(&b, &len, &cap, "/>\n</asset>\n<worldbody>\n<body pos=\"0 0 1\">\n<freejoint/>\n"
      "<geom type=\"mesh\" mesh=\"m\" %s/>\n</body>\n</worldbody>\n</mujoco>\n", gattr);
  return b;
}

// a model around a mesh file
static char* fileModel(const char* file, const char* attr) {
  size_t len = 0, cap = 1024;
  char* b = malloc(cap);
  b[0] = 0;
  cat(&b, &len, &cap, "<mujoco>\n<asset>\n<mesh name=\"m\" file=\"%s\" %s/>\n</asset>\n"
      "<worldbody>\n<body>\n<freejoint/>\n<geom type=\"mesh\" mesh=\"m\"/>\n</body>\n"
      "</worldbody>\n</mujoco>\n", file, attr);
  return b;
}

//---------------------------------- meshes --------------------------------------------------------

static const double kCubeV[24] = {-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1,
                                  -1, -1, 1,  1, -1, 1,  1, 1, 1,  -1, 1, 1};
static const int kCubeF[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                               1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};

// the cube with its top replaced by four triangles down to (0, 0, -0.5)
static const double kDentV[27] = {-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1, -1, -1, 1,
                                  1,  -1, 1,  1, 1,  1,  -1, 1, 1, 0,  0,  -0.5};
static const int kDentF[42] = {0, 2, 1, 0, 3, 2, 4, 5, 8, 5, 6, 8, 6, 7, 8, 7, 4, 8, 0, 1, 5,
                               0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};

// an L-shaped prism: the polygon (0,0) (2,0) (2,1) (1,1) (1,2) (0,2), z in [0, 1]
static void lPrism(double v[36], int f[60]) {
  static const double poly[6][2] = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}};
  for (int i = 0; i < 6; i++) {
    for (int z = 0; z < 2; z++) {
      double* p = v + 3 * (i + 6 * z);
      p[0] = poly[i][0];
      p[1] = poly[i][1];
      p[2] = z;
    }
  }
  int n = 0;
  for (int i = 1; i < 5; i++) {            // fans from vertex 0: bottom down, top up
    int bot[3] = {0, i + 1, i}, top[3] = {6, 6 + i, 6 + i + 1};
    memcpy(f + 3 * n++, bot, sizeof(bot));
    memcpy(f + 3 * n++, top, sizeof(top));
  }
  for (int i = 0; i < 6; i++) {            // sides of the counter-clockwise outline
    int j = (i + 1) % 6;
    int s1[3] = {i, j, 6 + j}, s2[3] = {i, 6 + j, 6 + i};
    memcpy(f + 3 * n++, s1, sizeof(s1));
    memcpy(f + 3 * n++, s2, sizeof(s2));
  }
}

// faces with face k reversed (k < 0: all of them)
static void flipped(const int* f, int nf, int k, int* out) {
  memcpy(out, f, sizeof(int) * 3 * (size_t)nf);
  for (int i = 0; i < nf; i++) {
    if (k < 0 || i == k) {
      out[3 * i + 1] = f[3 * i + 2];
      out[3 * i + 2] = f[3 * i + 1];
    }
  }
}

//---------------------------------- MuJoCo 3.14 ---------------------------------------------------

// run inertia_ref.mjs on every model of the set
static cJSON* reference(const MtSet* s) {
  TU_MJS3_REQUIRE();
  // MuJoCo 3.14 (docs/mujoco3.md, "Mesh frames and principal axes")
  const char* args[NMAX + 2] = {s->dir};
  for (int i = 0; i < s->n; i++) {
    args[1 + i] = s->m[i].name;
  }
  args[1 + s->n] = NULL;
  char err[1024] = "";
  cJSON* out = tu_mjs3Json(REF_SCRIPT, args, NULL, err, sizeof(err));
  cr_assert_not_null(out, "MuJoCo 3.14 reference: %s", err);
  const cJSON* models = cJSON_GetObjectItemCaseSensitive(out, "models");
  cr_assert(cJSON_IsArray(models) && cJSON_GetArraySize(models) == s->n,
            "the reference returned %d models, expected %d",
            cJSON_IsArray(models) ? cJSON_GetArraySize(models) : -1, s->n);
  return out;
}

static const cJSON* refModel(const cJSON* out, int k) {
  return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(out, "models"), k);
}

// MuJoCo 3.14's error message for model k (NULL if it compiled)
static const char* refError(const cJSON* out, int k) {
  const cJSON* e = cJSON_GetObjectItemCaseSensitive(refModel(out, k), "error");
  return cJSON_IsString(e) ? e->valuestring : NULL;
}

static double refNum(const cJSON* out, int k, const char* field, int i) {
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(refModel(out, k), field);
  cr_assert(cJSON_IsArray(a) && i < cJSON_GetArraySize(a), "reference field %s[%d]", field, i);
  return cJSON_GetArrayItem(a, i)->valuedouble;
}

// R diag(d) R'
static void fullInertia(const double q[4], const double d[3], double T[9]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
  double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                 2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                 2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      T[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) {
        T[3 * i + j] += R[3 * i + k] * d[k] * R[3 * j + k];
      }
    }
  }
}

// largest relative difference of body b's mass, centre and inertia tensor (Moduco vs reference)
static double bodyDiff(const mcModel* m, const cJSON* out, int k, int b) {
  double mass = refNum(out, k, "body_mass", b);
  double I[3], q[4], p[3], Tm[9], Tr[9];
  for (int i = 0; i < 3; i++) {
    I[i] = refNum(out, k, "body_inertia", 3 * b + i);
    p[i] = refNum(out, k, "body_ipos", 3 * b + i);
  }
  for (int i = 0; i < 4; i++) {
    q[i] = refNum(out, k, "body_iquat", 4 * b + i);
  }
  fullInertia(q, I, Tr);
  fullInertia(m->body_iquat + 4 * b, m->body_inertia + 3 * b, Tm);
  double d = fabs(m->body_mass[b] - mass) / mass;
  double scale = fmax(fmax(I[0], I[1]), I[2]);
  for (int i = 0; i < 9; i++) {
    d = fmax(d, fabs(Tm[i] - Tr[i]) / scale);
  }
  double len = sqrt((I[0] + I[1] + I[2]) / mass);     // radius of gyration
  for (int i = 0; i < 3; i++) {
    len = fmax(len, fabs(p[i]));
  }
  for (int i = 0; i < 3; i++) {
    d = fmax(d, fabs(m->body_ipos[3 * b + i] - p[i]) / len);
  }
  return d;
}

// Moduco loads model k of the set and agrees with the reference on every body to tol
static void expectAgree(const MtSet* s, const cJSON* out, int k, double tol) {
  const char* name = s->m[k].name;
  cr_assert_null(refError(out, k), "%s: MuJoCo 3.14 refused it: %s", name, refError(out, k));
  char err[1024] = "";
  mcModel* m = mt_loadMC(s->dir, name, err, sizeof(err));
  cr_assert_not_null(m, "%s: %s", name, err);
  int nbody = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(refModel(out, k), "body_mass"));
  cr_assert_eq(m->nbody, nbody, "%s: %d bodies, MuJoCo 3.14 has %d", name, m->nbody, nbody);
  for (int b = 1; b < m->nbody; b++) {
    double d = bodyDiff(m, out, k, b);
    cr_assert_leq(d, tol, "%s body %d: relative difference %.3g from MuJoCo 3.14 (mass %.17g vs "
                  "%.17g, inertia %.17g %.17g %.17g vs %.17g %.17g %.17g)", name, b, d,
                  m->body_mass[b], refNum(out, k, "body_mass", b), m->body_inertia[3 * b],
                  m->body_inertia[3 * b + 1], m->body_inertia[3 * b + 2],
                  refNum(out, k, "body_inertia", 3 * b), refNum(out, k, "body_inertia", 3 * b + 1),
                  refNum(out, k, "body_inertia", 3 * b + 2));
  }
  mc_deleteModel(m);
}

// Moduco refuses model k with a message containing each of the words; MuJoCo 3.14 refuses it
// too, its message containing mjword (if given)
static void expectRefused(const MtSet* s, const cJSON* out, int k, const char* mjword,
                          const char* const* words) {
  const char* name = s->m[k].name;
  cr_assert_not_null(refError(out, k), "%s: MuJoCo 3.14 accepted it", name);
  if (mjword) {
    cr_assert(strstr(refError(out, k), mjword), "%s: MuJoCo 3.14 says '%s', expected '%s'", name,
              refError(out, k), mjword);
  }
  char err[1024] = "";
  mcModel* m = mt_loadMC(s->dir, name, err, sizeof(err));
  cr_assert_null(m, "%s: Moduco accepted it", name);
  for (int i = 0; words[i]; i++) {
    cr_assert(strstr(err, words[i]), "%s: message '%s' lacks '%s'", name, err, words[i]);
  }
}

//---------------------------------- inertia modes -------------------------------------------------

// every mode on the five meshes (and the dent transformed, in a body of three geoms), and 3.14's
// default (no attribute) is its legacy mode
Test(mesh_inertia, modes_match_mujoco338, .timeout = 600) {
  MtSet s = {.n = 0};
  mt_tempdir(s.dir);

  // the cloud: 40 random points in [-1, 1]^3, vertices only (faces from the hull)
  TuRng rng = {0x5eed1529ULL};
  double cloud[120];
  for (int i = 0; i < 120; i++) {
    cloud[i] = round(tu_uniform(&rng, -1, 1) * 1e4) / 1e4;
  }
  double lv[36];
  int lf[60];
  lPrism(lv, lf);

  // the corpus mesh (copied next to the models)
  char* stl = NULL;
  {
    FILE* fp = fopen(CORPUS "menagerie_robotiq_2f85/assets/follower.stl", "rb");
    cr_assert_not_null(fp, "cannot read the corpus mesh follower.stl");
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    stl = malloc((size_t)len);
    cr_assert_eq(fread(stl, 1, (size_t)len, fp), (size_t)len);
    fclose(fp);
    mt_write(s.dir, "follower.stl", stl, (size_t)len);
    free(stl);
  }

  for (int mode = -1; mode < 4; mode++) {
    char attr[256], name[64];
    const char* mname = mode < 0 ? "none" : kModes[mode];
    const char* ia = mode < 0 ? "" : kModes[mode];
    char* x;
    snprintf(attr, sizeof(attr), "%s%s%s scale=\"0.1 0.1 0.1\"", mode < 0 ? "" : "inertia=\"",
             ia, mode < 0 ? "" : "\"");
    snprintf(name, sizeof(name), "cube_%s.xml", mname);
    x = meshModel(kCubeV, 8, kCubeF, 12, attr, "");
    setAdd(&s, name, x);
    free(x);
    snprintf(name, sizeof(name), "dent_%s.xml", mname);
    x = meshModel(kDentV, 9, kDentF, 14, attr, "");
    setAdd(&s, name, x);
    free(x);

    snprintf(attr, sizeof(attr), "%s%s%s", mode < 0 ? "" : "inertia=\"", ia,
             mode < 0 ? "" : "\"");
    snprintf(name, sizeof(name), "cloud_%s.xml", mname);
    x = meshModel(cloud, 40, NULL, 0, attr, "density=\"700\"");
    setAdd(&s, name, x);
    free(x);

    snprintf(attr, sizeof(attr), "%s%s%s scale=\"0.1 0.2 0.05\" refpos=\"0.3 0.1 0\"",
             mode < 0 ? "" : "inertia=\"", ia, mode < 0 ? "" : "\"");
    snprintf(name, sizeof(name), "lprism_%s.xml", mname);
    x = meshModel(lv, 12, lf, 20, attr, "mass=\"2.5\"");
    setAdd(&s, name, x);
    free(x);

    snprintf(attr, sizeof(attr), "%s%s%s scale=\"0.001 0.001 0.001\"",
             mode < 0 ? "" : "inertia=\"", ia, mode < 0 ? "" : "\"");
    snprintf(name, sizeof(name), "follower_%s.xml", mname);
    x = fileModel("follower.stl", attr);
    setAdd(&s, name, x);
    free(x);

    // the dent under refpos, refquat and an anisotropic scale, in a body with an offset mesh
    // geom, a sphere and a shell box
    snprintf(attr, sizeof(attr), "%s%s%s scale=\"0.1 0.2 0.3\" refpos=\"0.1 0.2 0.05\" "
             "refquat=\"0.9 0.1 0.3 -0.2\"", mode < 0 ? "" : "inertia=\"", ia,
             mode < 0 ? "" : "\"");
    snprintf(name, sizeof(name), "composite_%s.xml", mname);
    x = meshModel(kDentV, 9, kDentF, 14, attr,
                  "pos=\"0.1 0.2 0.3\" euler=\"0.1 0.2 0.3\" density=\"300\"/>\n"
                  "<geom type=\"sphere\" size=\"0.05\" pos=\"-0.2 0 0\"/>\n"
                  "<geom type=\"box\" size=\"0.05 0.1 0.02\" shellinertia=\"true\" "
                  "pos=\"0 0.3 0\" quat=\"0.9 0 0.3 0.1\"");
    setAdd(&s, name, x);
    free(x);
  }
  cJSON* out = reference(&s);
  const int per = 6;                     // models per mode, in the order above
  for (int k = 0; k < s.n; k++) {
    expectAgree(&s, out, k, 1e-12);
  }

  // MuJoCo 3.14 without the attribute computes what its inertia="legacy" computes
  for (int k = 0; k < per; k++) {
    for (int b = 1; b < 2; b++) {
      cr_assert_float_eq(refNum(out, k, "body_mass", b), refNum(out, k + per, "body_mass", b),
                         1e-15 * refNum(out, k, "body_mass", b), "%s", s.m[k].name);
    }
  }

  // the modes differ where they should: non-convex meshes (dent, L prism, follower) have less
  // volume than their hull, and legacy overcounts the dent and the follower
  double dent[4], follower[4];
  for (int mode = 0; mode < 4; mode++) {
    dent[mode] = refNum(out, per * (mode + 1) + 1, "body_mass", 1);
    follower[mode] = refNum(out, per * (mode + 1) + 4, "body_mass", 1);
  }
  cr_assert_float_eq(dent[2], 6.0, 1e-12);                         // 8 - 4 x 1.5 / 3, x 1000
  cr_assert_float_eq(dent[1], 8.0, 1e-12);                         // the cube
  cr_assert_gt(dent[0], dent[2] * 1.1);
  cr_assert_gt(follower[0], follower[2] * 1.2);
  cr_assert_gt(follower[1], follower[0]);
  cJSON_Delete(out);
  setFree(&s);
}

// MuJoCo 3.3.8 measures a hull cut down to maxhullvert vertices; Moduco does not cut hulls yet,
// so it refuses the combination instead of measuring the whole hull
Test(mesh_inertia, maxhullvert_refused) {
  char dir[64];
  mt_tempdir(dir);
  char* x = meshModel(kCubeV, 8, kCubeF, 12, "inertia=\"convex\" maxhullvert=\"6\"", "");
  mt_write(dir, "convex.xml", x, strlen(x));
  free(x);
  x = meshModel(kCubeV, 8, NULL, 0, "inertia=\"legacy\" maxhullvert=\"6\"", "");
  mt_write(dir, "hull.xml", x, strlen(x));
  free(x);
  x = meshModel(kCubeV, 8, kCubeF, 12, "inertia=\"exact\" maxhullvert=\"6\"", "");
  mt_write(dir, "faces.xml", x, strlen(x));
  free(x);
  char err[1024] = "";
  cr_assert_null(mt_loadMC(dir, "convex.xml", err, sizeof(err)));
  cr_assert(strstr(err, "mesh 'm'") && strstr(err, "maxhullvert") && strstr(err, "not supported"),
            "%s", err);
  cr_assert_null(mt_loadMC(dir, "hull.xml", err, sizeof(err)));
  cr_assert(strstr(err, "maxhullvert") && strstr(err, "legacy"), "%s", err);
  mcModel* m = mt_loadMC(dir, "faces.xml", err, sizeof(err));   // given faces: no hull measured
  cr_assert_not_null(m, "%s", err);
  mc_deleteModel(m);
  mt_cleanup(dir);
}


//---------------------------------- corpus models -------------------------------------------------

// text with the first occurrence of from replaced by to (caller frees); from must occur
static char* replaceOnce(char* text, const char* from, const char* to) {
  char* at = strstr(text, from);
  cr_assert_not_null(at, "'%s' not found", from);
  size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
  char* out = malloc(n);
  snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  free(text);
  return out;
}

// a corpus model flattened into one folder (its asset folders copied next to it, paths
// rewritten by the pairs of edits), once as is and once with <default><mesh inertia="legacy"/>:
// Moduco agrees with MuJoCo 3.14 on every body of both, and MuJoCo 3.14's default is legacy
static void corpusLegacy(const char* folder, const char* file, const char* const* copy,
                         const char* const* edits) {
  MtSet s = {.n = 0};
  mt_tempdir(s.dir);
  for (int i = 0; copy[i]; i++) {
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "cp '%s/%s'/* '%s'/", folder, copy[i], s.dir);
    cr_assert_eq(system(cmd), 0, "%s failed", cmd);
  }
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", folder, file);
  char* text = tu_readFile(path);
  cr_assert_not_null(text, "cannot read %s", path);
  for (int i = 0; edits[i]; i += 2) {
    text = replaceOnce(text, edits[i], edits[i + 1]);
  }
  setAdd(&s, "plain.xml", text);
  text = replaceOnce(text, "<default>", "<default><mesh inertia=\"legacy\"/>");
  setAdd(&s, "legacy.xml", text);
  free(text);
  cJSON* out = reference(&s);
  expectAgree(&s, out, 1, 1e-12);
  int nbody = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(refModel(out, 0), "body_mass"));
  for (int b = 1; b < nbody; b++) {
    double a = refNum(out, 0, "body_mass", b), l = refNum(out, 1, "body_mass", b);
    cr_assert_float_eq(a, l, 1e-15 * a, "%s body %d: MuJoCo 3.14 default %.17g, legacy %.17g",
                       file, b, a, l);
  }

  // Moduco without the attribute is MuJoCo 3.14's default too (MuJoCo 2.2.2 differs by up to
  // 56%: its geoms weighed the equivalent inertia box, not the mesh's volume)
  expectAgree(&s, out, 0, 1e-12);
  cJSON_Delete(out);
  setFree(&s);
}

Test(mesh_inertia, corpus_robotiq_legacy_is_mujoco338_default, .timeout = 600) {
  static const char* const copy[] = {"assets", NULL};
  static const char* const edits[] = {"meshdir=\"assets\"", "meshdir=\".\"", NULL};
  corpusLegacy(CORPUS "menagerie_robotiq_2f85", "2f85.xml", copy, edits);
}

Test(mesh_inertia, corpus_dog_legacy_is_mujoco338_default, .timeout = 600) {
  static const char* const copy[] = {"dog_assets", "common", NULL};
  static const char* const edits[] = {
    "meshdir=\"dog_assets/\" texturedir=\"dog_assets/\"", "meshdir=\".\" texturedir=\".\"",
    "./common/skybox.xml", "skybox.xml", "./common/visual.xml", "visual.xml",
    "./common/materials.xml", "materials.xml", NULL};
  corpusLegacy(CORPUS "dm_dog", "dog.xml", copy, edits);
}


//---------------------------------- shellinertia --------------------------------------------------

Test(mesh_inertia, shellinertia_primitives_match_mujoco338, .timeout = 600) {
  MtSet s = {.n = 0};
  mt_tempdir(s.dir);
  static const char* const geoms[][2] = {
    {"sphere", "size=\"0.3\""},
    {"box", "size=\"0.1 0.2 0.3\""},
    {"capsule", "size=\"0.1 0.3\""},
    {"cylinder", "size=\"0.1 0.3\""},
    {"capsule", "fromto=\"0 0 0 0.2 0.1 0.3\" size=\"0.05\""},
    {"box", "size=\"0.4 0.05 0.1\" mass=\"3\""},
    {"sphere", "size=\"0.3\" density=\"2\""},
    {"ellipsoid", "size=\"0.1 0.2 0.3\""},
    {"ellipsoid", "size=\"0.3 0.1 0.1\""},
    {"ellipsoid", "size=\"0.05 0.2 0.4\""},
  };
  int ng = (int)(sizeof(geoms) / sizeof(geoms[0]));
  char xml[2048], name[64];
  for (int i = 0; i < ng; i++) {
    for (int sh = 0; sh < 2; sh++) {
      snprintf(xml, sizeof(xml), "<mujoco>\n<worldbody>\n<body>\n<freejoint/>\n<geom type=\"%s\" "
               "%s shellinertia=\"%s\"/>\n</body>\n</worldbody>\n</mujoco>\n", geoms[i][0],
               geoms[i][1], sh ? "true" : "false");
      snprintf(name, sizeof(name), "g%d_%d.xml", i, sh);
      setAdd(&s, name, xml);
    }
  }

  // a body of several shell and solid geoms off-centre, shellinertia from a default class
  snprintf(xml, sizeof(xml),
           "<mujoco>\n<default>\n<default class=\"s\">\n<geom shellinertia=\"true\"/>\n"
           "</default>\n</default>\n<worldbody>\n<body>\n<freejoint/>\n"
           "<geom class=\"s\" type=\"box\" size=\"0.1 0.2 0.05\" pos=\"0.1 0 0\" euler=\"0.3 0 0\"/>\n"
           "<geom class=\"s\" type=\"cylinder\" size=\"0.05 0.2\" pos=\"0 0.2 0.1\"/>\n"
           "<geom type=\"sphere\" size=\"0.1\" pos=\"-0.2 0 0\"/>\n"
           "</body>\n</worldbody>\n</mujoco>\n");
  setAdd(&s, "mixed.xml", xml);

  cJSON* out = reference(&s);
  for (int k = 0; k < s.n; k++) {
    int ellipsoid = strstr(s.m[k].xml, "ellipsoid") != NULL;
    expectAgree(&s, out, k, ellipsoid ? 1e-10 : 1e-12);
  }

  // the shell has the surface's mass: a sphere of radius 0.3 at density 1000
  cr_assert_float_eq(refNum(out, 1, "body_mass", 1), 1000 * 4 * M_PI * 0.09, 1e-9);
  cJSON_Delete(out);
  setFree(&s);
}

// shellinertia on a mesh geom is refused by MuJoCo 3.14 (the mesh says how): so by Moduco
Test(mesh_inertia, shellinertia_on_mesh_refused, .timeout = 600) {
  MtSet s = {.n = 0};
  mt_tempdir(s.dir);
  char* x = meshModel(kCubeV, 8, kCubeF, 12, "", "name=\"g\" shellinertia=\"true\"");
  setAdd(&s, "direct.xml", x);
  free(x);
  x = meshModel(kCubeV, 8, kCubeF, 12, "inertia=\"shell\"", "shellinertia=\"true\"");
  setAdd(&s, "withshell.xml", x);
  free(x);
  const char* dflt =
    "<mujoco>\n<default>\n<geom shellinertia=\"true\"/>\n</default>\n<asset>\n"
    "<mesh name=\"m\" vertex=\"-1 -1 -1 1 -1 -1 1 1 -1 -1 1 -1 -1 -1 1 1 -1 1 1 1 1 -1 1 1\"/>\n"
    "</asset>\n<worldbody>\n<body>\n<freejoint/>\n<geom type=\"mesh\" mesh=\"m\"/>\n</body>\n"
    "</worldbody>\n</mujoco>\n";
  setAdd(&s, "default.xml", dflt);
  cJSON* out = reference(&s);
  static const char* const w1[] = {"geom 'g'", "shellinertia", "inertia=\"shell\"", NULL};
  static const char* const w2[] = {"shellinertia", "<mesh name=\"m\" inertia=\"shell\">", NULL};
  expectRefused(&s, out, 0, "inertia should be specified in the mesh asset", w1);
  expectRefused(&s, out, 1, "inertia should be specified in the mesh asset", w2);
  expectRefused(&s, out, 2, "inertia should be specified in the mesh asset", w2);
  cJSON_Delete(out);
  setFree(&s);
}

//---------------------------------- face winding --------------------------------------------------

static char g_msg[4096];

static void captureMessage(void* user, const char* msg) {
  (void)user;
  size_t n = strlen(g_msg);
  snprintf(g_msg + n, sizeof(g_msg) - n, "%s\n", msg);
}

// Moduco loads dir/name; the messages it printed go to g_msg
static mcModel* loadCapture(const char* dir, const char* name, char* err, int err_sz) {
  g_msg[0] = 0;
  mc_setMessageHandler(captureMessage, NULL);
  mcModel* m = mt_loadMC(dir, name, err, err_sz);
  mc_setMessageHandler(NULL, NULL);
  return m;
}

// one flipped face and all faces flipped, on the cube and the dent, in every mode: exact refuses
// (naming the mesh and the edge), the other modes ignore the winding as MuJoCo 3.14 does
Test(mesh_winding, modes_against_mujoco338, .timeout = 600) {
  MtSet s = {.n = 0};
  mt_tempdir(s.dir);
  int f1[42], fa[42];
  char attr[128], name[64];
  for (int mesh = 0; mesh < 2; mesh++) {
    const double* v = mesh ? kDentV : kCubeV;
    const int* f = mesh ? kDentF : kCubeF;
    int nv = mesh ? 9 : 8, nf = mesh ? 14 : 12;
    flipped(f, nf, mesh ? 8 : 4, f1);
    flipped(f, nf, -1, fa);
    for (int mode = 0; mode < 4; mode++) {
      snprintf(attr, sizeof(attr), "inertia=\"%s\" scale=\"0.1 0.1 0.1\"", kModes[mode]);
      for (int w = 0; w < 3; w++) {
        char* x = meshModel(v, nv, w == 0 ? f : w == 1 ? f1 : fa, nf, attr, "");
        snprintf(name, sizeof(name), "%s_%s_%s.xml", mesh ? "dent" : "cube", kModes[mode],
                 w == 0 ? "ok" : w == 1 ? "flip1" : "flipall");
        setAdd(&s, name, x);
        free(x);
      }
    }
  }
  cJSON* out = reference(&s);
  for (int k = 0; k < s.n; k++) {
    const char* name = s.m[k].name;
    int exact = strstr(name, "_exact_") != NULL;
    if (exact && strstr(name, "_flip1")) {
      // cube: face 4 (0 1 5) reversed repeats the edge 0 -> 5 of face 5; dent: face 8 (1 2 6)
      // reversed repeats 1 -> 6 of face 9
      const char* const words[] = {"mesh 'm'", "wound inconsistently",
                                   strstr(name, "cube") ? "from vertex 0 (-1 -1 -1) to vertex 5"
                                                        : "from vertex 1 (1 -1 -1) to vertex 6",
                                   NULL};
      expectRefused(&s, out, k, "inconsistent orientation", words);
    } else if (exact && strstr(name, "_flipall")) {
      const char* const words[] = {"mesh 'm'", "volume is negative", "wound inward", NULL};
      expectRefused(&s, out, k, "volume is negative", words);
    } else {
      expectAgree(&s, out, k, 1e-12);
      char err[1024] = "";
      mcModel* m = loadCapture(s.dir, name, err, sizeof(err));
      cr_assert_not_null(m, "%s: %s", name, err);
      cr_assert_eq(g_msg[0], 0, "%s: unexpected message %s", name, g_msg);
      mc_deleteModel(m);
    }
  }
  cJSON_Delete(out);
  setFree(&s);
}

// a mirroring scale (negative determinant): MuJoCo 3.14 mirrors the winding of given faces and of
// the hull with it, so exact measures the mirrored mesh (3.3.8 turned them inside out and refused
// exact); convex still refuses the mesh, with or without faces; legacy and shell accept it
Test(mesh_winding, mirrored_against_mujoco314, .timeout = 600) {
  MtSet s = {.n = 0};
  mt_tempdir(s.dir);
  char attr[128], name[64];
  for (int faces = 0; faces < 2; faces++) {
    for (int mode = 0; mode < 4; mode++) {
      snprintf(attr, sizeof(attr), "inertia=\"%s\" scale=\"0.1 -0.2 0.3\"", kModes[mode]);
      char* x = meshModel(kDentV, 9, faces ? kDentF : NULL, 14, attr, "");
      snprintf(name, sizeof(name), "%s_%s.xml", faces ? "dent" : "hull", kModes[mode]);
      setAdd(&s, name, x);
      free(x);
    }
  }
  cJSON* out = reference(&s);
  for (int k = 0; k < s.n; k++) {
    if (strstr(s.m[k].name, "_convex")) {
      const char* const words[] = {"mesh 'm'", "inertia=\"convex\"", "mirroring scale", NULL};
      expectRefused(&s, out, k, "volume is negative", words);
    } else {
      expectAgree(&s, out, k, 1e-12);
    }
  }
  cJSON_Delete(out);
  setFree(&s);
}

// exact names the mesh file; a flipped face is found in an STL file (vertices merged) and in an
// OBJ file (vertices repeated per corner: compared by position)
Test(mesh_winding, files_exact_and_default, .timeout = 600) {
  MtSet s = {.n = 0};
  mt_tempdir(s.dir);
  int f1[36];
  flipped(kCubeF, 12, 4, f1);
  float tri[108];
  for (int t = 0; t < 12; t++) {
    for (int k = 0; k < 3; k++) {
      for (int j = 0; j < 3; j++) {
        tri[9 * t + 3 * k + j] = (float)kCubeV[3 * f1[3 * t + k] + j];
      }
    }
  }
  mt_writeSTL(s.dir, "flip.stl", tri, 12);
  char obj[1024];
  size_t len = 0;
  for (int i = 0; i < 8; i++) {
    len += (size_t)snprintf(obj + len, sizeof(obj) - len, "v %g %g %g\n", kCubeV[3 * i],
                            kCubeV[3 * i + 1], kCubeV[3 * i + 2]);
  }
  for (int t = 0; t < 12; t++) {
    len += (size_t)snprintf(obj + len, sizeof(obj) - len, "f %d %d %d\n", f1[3 * t] + 1,
                            f1[3 * t + 1] + 1, f1[3 * t + 2] + 1);
  }
  mt_write(s.dir, "flip.obj", obj, len);
  const char* files[2] = {"flip.stl", "flip.obj"};
  char name[64];
  for (int i = 0; i < 2; i++) {
    for (int mode = 0; mode < 4; mode++) {
      char attr[128];
      snprintf(attr, sizeof(attr), "inertia=\"%s\" scale=\"0.1 0.1 0.1\"", kModes[mode]);
      char* x = fileModel(files[i], attr);
      snprintf(name, sizeof(name), "%s_%s.xml", i ? "obj" : "stl", kModes[mode]);
      setAdd(&s, name, x);
      free(x);
    }
  }
  cJSON* out = reference(&s);
  for (int k = 0; k < s.n; k++) {
    if (strstr(s.m[k].name, "_exact")) {
      const char* const words[] = {"mesh 'm'", strstr(s.m[k].name, "stl") ? "flip.stl" : "flip.obj",
                                   "wound inconsistently", "(-1 -1 -1)", "(1 -1 1)", NULL};
      expectRefused(&s, out, k, "inconsistent orientation", words);
    } else {
      expectAgree(&s, out, k, 1e-12);
    }
  }
  cJSON_Delete(out);
  setFree(&s);
}

// without an inertia attribute (legacy, MuJoCo 3.14's default): an inline mesh with one flipped
// face, with all faces flipped, with one flipped face under an explicit <inertial>, and STL and OBJ
// files with a flipped face are all accepted without a message, with MuJoCo 3.14's numbers (the
// legacy volume does not depend on the winding). MuJoCo 2.2.2 refused the inline mesh with one
// flipped face in a body whose inertia comes from its geoms (checked, so the difference stays
// documented)
Test(mesh_winding, default_against_mujoco338, .timeout = 600) {
  MtSet s = {.n = 0};
  mt_tempdir(s.dir);
  int f1[36], fa[36];
  flipped(kCubeF, 12, 4, f1);
  flipped(kCubeF, 12, -1, fa);
  const char* attr = "scale=\"0.1 0.1 0.1\"";
  char* x = meshModel(kCubeV, 8, kCubeF, 12, attr, "");
  setAdd(&s, "ok.xml", x);
  free(x);
  x = meshModel(kCubeV, 8, f1, 12, attr, "");
  setAdd(&s, "flip1.xml", x);
  x = replaceOnce(x, "<freejoint/>\n",
                  "<freejoint/>\n<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/>\n");
  setAdd(&s, "flip1_inertial.xml", x);
  free(x);
  x = meshModel(kCubeV, 8, fa, 12, attr, "");
  setAdd(&s, "flipall.xml", x);
  free(x);
  float tri[108];
  for (int t = 0; t < 12; t++) {
    for (int k = 0; k < 3; k++) {
      for (int j = 0; j < 3; j++) {
        tri[9 * t + 3 * k + j] = (float)kCubeV[3 * f1[3 * t + k] + j];
      }
    }
  }
  mt_writeSTL(s.dir, "flip.stl", tri, 12);
  char obj[1024];
  size_t len = 0;
  for (int i = 0; i < 8; i++) {
    len += (size_t)snprintf(obj + len, sizeof(obj) - len, "v %g %g %g\n", kCubeV[3 * i],
                            kCubeV[3 * i + 1], kCubeV[3 * i + 2]);
  }
  for (int t = 0; t < 12; t++) {
    len += (size_t)snprintf(obj + len, sizeof(obj) - len, "f %d %d %d\n", f1[3 * t] + 1,
                            f1[3 * t + 1] + 1, f1[3 * t + 2] + 1);
  }
  mt_write(s.dir, "flip.obj", obj, len);
  x = fileModel("flip.stl", attr);
  setAdd(&s, "stl.xml", x);
  free(x);
  x = fileModel("flip.obj", attr);
  setAdd(&s, "obj.xml", x);
  free(x);

  cJSON* out = reference(&s);
  for (int k = 0; k < s.n; k++) {
    expectAgree(&s, out, k, 1e-12);
    char err[1024] = "";
    mcModel* m = loadCapture(s.dir, s.m[k].name, err, sizeof(err));
    cr_assert_not_null(m, "%s: %s", s.m[k].name, err);
    cr_assert_eq(g_msg[0], 0, "%s: unexpected message '%s'", s.m[k].name, g_msg);
    mc_deleteModel(m);
  }
  cJSON_Delete(out);

  char mjerr[1024] = "";
  mjModel* mj = mt_loadMJ(s.dir, "flip1.xml", mjerr, sizeof(mjerr));
  cr_assert_null(mj, "flip1.xml: MuJoCo 2.2.2 accepted it");
  cr_assert(strstr(mjerr, "inconsistent orientation"), "flip1.xml: MuJoCo 2.2.2 says '%s'", mjerr);
  setFree(&s);
}
