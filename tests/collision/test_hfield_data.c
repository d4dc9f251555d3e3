// Height-field data (hfield_nrow, _ncol, _adr, _size, _data) as the compiler builds them, against
// MuJoCo 3.14.0 (@mujoco/mujoco 3.14.0, run by Node through tests/collision/hfield_data.mjs; it was
// 3.3.8 before issue 19, which gives the same arrays and contacts) and, for MuJoCo's binary files,
// against MuJoCo 2.2.2 too. Every float is compared bit for bit.
//
// What is checked (facts measured on both engines, see core/compiler/compiler_hfield.c): an
// inline elevation list has its rows stored in reverse order (the first row written is the last
// row of hfield_data, at +y); a binary file keeps its order; both are normalized alike. MuJoCo
// 2.2.2 has no inline elevation, so its geometry for an inline field is the binary file with the
// rows written in reverse order, which the last test checks.
//
// The 3.14 reference needs node in PATH and tests/mjs3/node_modules (npm ci, run by
// scripts/setup-debian.sh); without them the tests fail with that instruction.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <mujoco/mujoco.h>

#include <moduco/moduco.h>

#include "testutil.h"

#define SCRIPT     "tests/collision/hfield_data.mjs"
#define MAXMODEL   64


//---------------------------------- scratch folder ------------------------------------------------

typedef struct {
  char dir[64];
  char files[MAXMODEL][32];       // models, in the order they go to the reference
  int nfile;
  char extra[4 * MAXMODEL][32];   // other files written (binary height fields)
  int nextra;
} Scratch;


static void scratchInit(Scratch* s) {
  memset(s, 0, sizeof(*s));
  strcpy(s->dir, "/tmp/moduco_hfield_XXXXXX");
  cr_assert(mkdtemp(s->dir), "cannot create a folder in /tmp");
}


static void scratchCleanup(Scratch* s) {
  char p[128];
  for (int i = 0; i < s->nfile; i++) {
    snprintf(p, sizeof(p), "%s/%s", s->dir, s->files[i]);
    remove(p);
  }
  for (int i = 0; i < s->nextra; i++) {
    snprintf(p, sizeof(p), "%s/%s", s->dir, s->extra[i]);
    remove(p);
  }
  rmdir(s->dir);
}


static void writeText(const Scratch* s, const char* name, const char* text) {
  char p[128];
  snprintf(p, sizeof(p), "%s/%s", s->dir, name);
  FILE* f = fopen(p, "w");
  cr_assert(f, "cannot write %s", p);
  fputs(text, f);
  fclose(f);
}


// a model file, registered for the reference run; returns its index
static int addModel(Scratch* s, const char* xml) {
  cr_assert(s->nfile < MAXMODEL);
  int i = s->nfile++;
  snprintf(s->files[i], sizeof(s->files[i]), "m%02d.xml", i);
  writeText(s, s->files[i], xml);
  return i;
}


// MuJoCo's binary height field: int32 nrow, int32 ncol, nrow*ncol float32, row-major
static void addBinary(Scratch* s, const char* name, int nrow, int ncol, const float* data) {
  cr_assert(s->nextra < 4 * MAXMODEL);
  snprintf(s->extra[s->nextra++], sizeof(s->extra[0]), "%s", name);
  char p[128];
  snprintf(p, sizeof(p), "%s/%s", s->dir, name);
  FILE* f = fopen(p, "wb");
  cr_assert(f, "cannot write %s", p);
  int32_t dims[2] = {nrow, ncol};
  cr_assert(fwrite(dims, sizeof(dims), 1, f) == 1);
  cr_assert(fwrite(data, sizeof(float), (size_t)nrow * ncol, f) == (size_t)nrow * ncol);
  fclose(f);
}


//---------------------------------- references ----------------------------------------------------

// run hfield_data.mjs on every registered model; the parsed output (caller deletes)
static cJSON* runMujoco3(const Scratch* s) {
  TU_MJS314_REQUIRE();
  const char* args[MAXMODEL + 2] = {s->dir};
  for (int i = 0; i < s->nfile; i++) {
    args[i + 1] = s->files[i];
  }
  char err[1024];
  cJSON* out = tu_mjs3Json(SCRIPT, args, NULL, err, sizeof(err));
  cr_assert(out, "%s", err);
  const cJSON* models = cJSON_GetObjectItem(out, "models");
  cr_assert(cJSON_IsArray(models) && cJSON_GetArraySize(models) == s->nfile,
            "hfield_data.mjs returned %d models, expected %d", cJSON_GetArraySize(models),
            s->nfile);
  return out;
}


static const cJSON* refModel(const cJSON* out, int i) {
  return cJSON_GetArrayItem(cJSON_GetObjectItem(out, "models"), i);
}


static mcModel* loadModuco(const Scratch* s, int i, char* err, int err_sz) {
  char p[128];
  snprintf(p, sizeof(p), "%s/%s", s->dir, s->files[i]);
  err[0] = 0;
  return mc_loadXML(p, err, err_sz);
}


// MuJoCo 3.14's record of model i of s, which must have compiled
static const cJSON* refCompiled(const Scratch* s, const cJSON* out, int i) {
  const cJSON* rm = refModel(out, i);
  cr_assert(!cJSON_GetObjectItem(rm, "error"), "%s: MuJoCo 3.14 refused it", s->files[i]);
  return rm;
}


// Moduco's model i of s, which must compile
static mcModel* moducoCompiled(const Scratch* s, int i) {
  char err[1024];
  mcModel* m = loadModuco(s, i, err, sizeof(err));
  cr_assert(m, "%s: %s", s->files[i], err);
  return m;
}


static mjModel* loadMujoco2(const Scratch* s, int i, char* err, int err_sz) {
  char p[128];
  snprintf(p, sizeof(p), "%s/%s", s->dir, s->files[i]);
  err[0] = 0;
  return mj_loadXML(p, NULL, err, err_sz);
}


// bit-identical floats (NaN never appears: both sides refuse or normalize finite data)
static int sameFloat(float a, float b) {
  return memcmp(&a, &b, sizeof(float)) == 0;
}


// hfield arrays of a Moduco model against a 3.14 record; the number of differences
static int compare3(const mcModel* m, const cJSON* ref, const char* what) {
  const cJSON* nrow = cJSON_GetObjectItem(ref, "nrow");
  const cJSON* ncol = cJSON_GetObjectItem(ref, "ncol");
  const cJSON* adr = cJSON_GetObjectItem(ref, "adr");
  const cJSON* size = cJSON_GetObjectItem(ref, "size");
  const cJSON* data = cJSON_GetObjectItem(ref, "data");
  cr_assert(nrow && ncol && adr && size && data, "%s: incomplete record", what);
  cr_assert_eq(m->nhfield, cJSON_GetArraySize(nrow), "%s: nhfield %d, MuJoCo 3.14 %d", what,
               m->nhfield, cJSON_GetArraySize(nrow));
  cr_assert_eq(m->nhfielddata, cJSON_GetArraySize(data), "%s: nhfielddata %d, MuJoCo 3.14 %d",
               what, m->nhfielddata, cJSON_GetArraySize(data));
  int nbad = 0;
  for (int h = 0; h < m->nhfield; h++) {
    nbad += m->hfield_nrow[h] != cJSON_GetArrayItem(nrow, h)->valueint;
    nbad += m->hfield_ncol[h] != cJSON_GetArrayItem(ncol, h)->valueint;
    nbad += m->hfield_adr[h] != cJSON_GetArrayItem(adr, h)->valueint;
    for (int k = 0; k < 4; k++) {
      nbad += m->hfield_size[4 * h + k] != cJSON_GetArrayItem(size, 4 * h + k)->valuedouble;
    }
  }
  cr_expect_eq(nbad, 0, "%s: nrow/ncol/adr/size differ from MuJoCo 3.14", what);
  int ndata = 0;
  for (int i = 0; i < m->nhfielddata; i++) {
    float r = (float)cJSON_GetArrayItem(data, i)->valuedouble;
    if (!sameFloat(m->hfield_data[i], r)) {
      if (ndata++ < 4) {
        cr_expect_fail("%s: hfield_data[%d] = %.9g, MuJoCo 3.14 %.9g", what, i,
                       m->hfield_data[i], r);
      }
    }
  }
  return nbad + ndata;
}


// hfield arrays of a Moduco model against MuJoCo 2.2.2; the number of differences
static int compare2(const mcModel* m, const mjModel* mm, const char* what) {
  cr_assert_eq(m->nhfield, mm->nhfield, "%s: nhfield", what);
  cr_assert_eq(m->nhfielddata, mm->nhfielddata, "%s: nhfielddata", what);
  int nbad = 0;
  for (int h = 0; h < m->nhfield; h++) {
    nbad += m->hfield_nrow[h] != mm->hfield_nrow[h] || m->hfield_ncol[h] != mm->hfield_ncol[h] ||
            m->hfield_adr[h] != mm->hfield_adr[h];
    for (int k = 0; k < 4; k++) {
      nbad += m->hfield_size[4 * h + k] != mm->hfield_size[4 * h + k];
    }
  }
  cr_expect_eq(nbad, 0, "%s: nrow/ncol/adr/size differ from MuJoCo 2.2.2", what);
  int ndata = 0;
  for (int i = 0; i < m->nhfielddata; i++) {
    if (!sameFloat(m->hfield_data[i], mm->hfield_data[i])) {
      if (ndata++ < 4) {
        cr_expect_fail("%s: hfield_data[%d] = %.9g, MuJoCo 2.2.2 %.9g", what, i,
                       m->hfield_data[i], mm->hfield_data[i]);
      }
    }
  }
  return nbad + ndata;
}


// whether a stored grid differs from itself with the rows reversed (a test that can tell the
// two row orders apart)
static int rowAsymmetric(const float* d, int nrow, int ncol) {
  for (int r = 0; r < nrow / 2; r++) {
    for (int c = 0; c < ncol; c++) {
      if (!sameFloat(d[r * ncol + c], d[(nrow - 1 - r) * ncol + c])) {
        return 1;
      }
    }
  }
  return 0;
}


//---------------------------------- random fields -------------------------------------------------

static int irand(TuRng* r, int lo, int hi) {
  int v = lo + (int)tu_uniform(r, 0, hi - lo + 1);
  return v > hi ? hi : v;
}


// one elevation as text: float-exact decimals, 17-digit doubles, small integers, or a wide range
static void elevText(TuRng* r, int mode, char* out, size_t sz) {
  switch (mode) {
  case 0:
    snprintf(out, sz, "%.9g", (float)tu_uniform(r, -3, 5));
    break;
  case 1:
    snprintf(out, sz, "%.17g", tu_uniform(r, -1, 1) * pow(10, irand(r, -3, 3)));
    break;
  case 2:
    snprintf(out, sz, "%d", irand(r, -4, 9));
    break;
  default:
    snprintf(out, sz, "%.6g", tu_uniform(r, -2e10, 2e10));
    break;
  }
}


// append an inline height field with random grid, size and elevations (written order, as text)
static void inlineField(TuRng* r, const char* name, int nrow, int ncol, int mode, char* xml,
                        size_t sz) {
  size_t len = strlen(xml);
  len += (size_t)snprintf(xml + len, sz - len,
                          "<hfield name='%s' nrow='%d' ncol='%d' size='%.9g %.9g %.9g %.9g' "
                          "elevation='", name, nrow, ncol, tu_uniform(r, 0.1, 3),
                          tu_uniform(r, 0.1, 3), tu_uniform(r, 0.05, 1), tu_uniform(r, 0.01, 0.5));
  for (int k = 0; k < nrow * ncol; k++) {
    char v[64];
    elevText(r, mode, v, sizeof(v));
    len += (size_t)snprintf(xml + len, sz - len, "%s%s", k ? " " : "", v);
  }
  snprintf(xml + len, sz - len, "'/>");
  cr_assert(strlen(xml) < sz - 1, "model text too long");
}


//---------------------------------- tests ---------------------------------------------------------

// random inline fields, one to three per model, every grid shape from 1 x 1 to 9 x 9
Test(hfield_data, inline_elevation_matches_mujoco314) {
  Scratch s;
  scratchInit(&s);
  TuRng rng = {0x5eedULL};
  static char xml[1 << 16];
  int nfield = 0;
  for (int im = 0; im < 48; im++) {
    strcpy(xml, "<mujoco><asset>");
    int nh = 1 + im % 3;
    for (int h = 0; h < nh; h++) {
      char name[16];
      snprintf(name, sizeof(name), "h%d", h);
      int nrow = im < 6 ? 1 + im : irand(&rng, 1, 9), ncol = im < 6 ? 6 - im : irand(&rng, 1, 9);
      inlineField(&rng, name, nrow, ncol, (im + h) % 4, xml, sizeof(xml));
      nfield++;
    }
    strcat(xml, "</asset><worldbody><geom type='hfield' hfield='h0'/></worldbody></mujoco>");
    addModel(&s, xml);
  }
  cJSON* ref = runMujoco3(&s);
  int nbad = 0, nasym = 0;
  for (int i = 0; i < s.nfile; i++) {
    const cJSON* rm = refCompiled(&s, ref, i);
    mcModel* m = moducoCompiled(&s, i);
    nbad += compare3(m, rm, s.files[i]) > 0;
    for (int h = 0; h < m->nhfield; h++) {
      nasym += rowAsymmetric(m->hfield_data + m->hfield_adr[h], m->hfield_nrow[h],
                             m->hfield_ncol[h]);
    }
    mc_deleteModel(m);
  }
  printf("inline: %d models, %d fields (%d tell the row orders apart), %d differ from 3.14\n",
         s.nfile, nfield, nasym, nbad);
  cr_expect_eq(nbad, 0, "%d of %d models differ from MuJoCo 3.14", nbad, s.nfile);
  cr_expect(nasym >= nfield / 2, "too few fields can tell the row orders apart: %d of %d", nasym,
            nfield);
  cJSON_Delete(ref);
  scratchCleanup(&s);
}


// normalization corners, written inline and as files, and both kinds in one model
Test(hfield_data, normalization_corners_match_mujoco314) {
  Scratch s;
  scratchInit(&s);
  static const char* const elev[] = {
    "5 5 5 5 5 5",                           // constant: all zeros
    "1e-20 0 0 0 0 0",                       // range below 1e-15: shifted, not scaled
    "2e10 3e10 4e10 5e10 2.5e10 1.5e10",     // above the +1e10 bound of the minimum
    "-2e10 -3e10 -4e10 -5e10 -1.5e10 -6e10", // below the -1e10 bound of the maximum
    "1 1 1 1.0000001 1 1",                   // range of one ulp
    "-1 -2 -3 -4 -5 -6",
    "0 0.5 0.25 0.1 0.2 0.3",
  };
  const int ncase = (int)(sizeof(elev) / sizeof(elev[0]));
  char xml[1024];
  int binary[MAXMODEL] = {0};     // models of binary files only, compared with 2.2.2 too
  for (int k = 0; k < ncase; k++) {
    // inline, 2 x 3 and 3 x 2 grids
    for (int t = 0; t < 2; t++) {
      snprintf(xml, sizeof(xml), "<mujoco><asset><hfield name='h' nrow='%d' ncol='%d' "
               "size='1 2 0.5 0.1' elevation='%s'/></asset></mujoco>", 2 + t, 3 - t, elev[k]);
      addModel(&s, xml);
    }
    // the same numbers as a binary file
    float v[6];
    char* end = (char*)elev[k];
    for (int j = 0; j < 6; j++) {
      v[j] = strtof(end, &end);
    }
    char bin[32];
    snprintf(bin, sizeof(bin), "c%d.bin", k);
    addBinary(&s, bin, 3, 2, v);
    snprintf(xml, sizeof(xml), "<mujoco><asset><hfield name='h' file='%s' size='1 2 0.5 0.1'/>"
             "</asset></mujoco>", bin);
    binary[addModel(&s, xml)] = 1;
  }
  // no elevation: zeros; several fields of both kinds: addresses
  addModel(&s, "<mujoco><asset><hfield name='h' nrow='3' ncol='4' size='1 2 0.5 0.1'/>"
               "</asset></mujoco>");
  addModel(&s, "<mujoco><asset><hfield name='a' nrow='3' ncol='2' size='1 2 0.5 0.1' "
               "elevation='1 2 3 4 5 7'/><hfield name='b' file='c6.bin' size='3 1 0.2 0.3'/>"
               "<hfield name='c' nrow='1' ncol='1' size='0.5 0.5 0.5 0.5' elevation='4'/>"
               "<hfield name='d' nrow='2' ncol='2' size='1 1 1 1'/>"
               "<hfield name='e' nrow='4' ncol='1' size='1 1 1 1' elevation='9 -1 3 2'/>"
               "</asset></mujoco>");

  cJSON* ref = runMujoco3(&s);
  int nbad = 0, nbin = 0, nbad2 = 0;
  for (int i = 0; i < s.nfile; i++) {
    const cJSON* rm = refCompiled(&s, ref, i);
    char err[1024];
    mcModel* m = moducoCompiled(&s, i);
    nbad += compare3(m, rm, s.files[i]) > 0;
    if (binary[i]) {
      mjModel* mm = loadMujoco2(&s, i, err, sizeof(err));
      cr_assert(mm, "%s: MuJoCo 2.2.2: %s", s.files[i], err);
      nbad2 += compare2(m, mm, s.files[i]) > 0;
      nbin++;
      mj_deleteModel(mm);
    }
    mc_deleteModel(m);
  }
  printf("corners: %d models, %d differ from 3.14; %d of them binary, %d differ from 2.2.2\n",
         s.nfile, nbad, nbin, nbad2);
  cr_expect_eq(nbad, 0);
  cr_expect_eq(nbad2, 0);
  cr_expect_eq(nbin, ncase);
  cJSON_Delete(ref);
  scratchCleanup(&s);
}


// random binary files: stored in file order by MuJoCo 2.2.2, MuJoCo 3.14 and Moduco
Test(hfield_data, binary_files_match_mujoco222_and_mujoco314) {
  Scratch s;
  scratchInit(&s);
  TuRng rng = {0xb1aULL};
  char xml[2048];
  for (int im = 0; im < 24; im++) {
    strcpy(xml, "<mujoco><asset>");
    int nh = 1 + im % 2;
    for (int h = 0; h < nh; h++) {
      int nrow = irand(&rng, 1, 12), ncol = irand(&rng, 1, 12);
      float v[144];
      double scale = pow(10, irand(&rng, -4, 4));
      for (int k = 0; k < nrow * ncol; k++) {
        v[k] = (float)(scale * tu_uniform(&rng, -1, 1));
      }
      char bin[32];
      snprintf(bin, sizeof(bin), "b%d_%d.bin", im, h);
      addBinary(&s, bin, nrow, ncol, v);
      size_t len = strlen(xml);
      snprintf(xml + len, sizeof(xml) - len, "<hfield name='h%d' file='%s' size='%.9g %.9g %.9g "
               "%.9g'/>", h, bin, tu_uniform(&rng, 0.1, 3), tu_uniform(&rng, 0.1, 3),
               tu_uniform(&rng, 0.05, 1), tu_uniform(&rng, 0.01, 0.5));
    }
    strcat(xml, "</asset></mujoco>");
    addModel(&s, xml);
  }
  cJSON* ref = runMujoco3(&s);
  int nbad3 = 0, nbad2 = 0;
  for (int i = 0; i < s.nfile; i++) {
    const cJSON* rm = refCompiled(&s, ref, i);
    char err[1024];
    mcModel* m = moducoCompiled(&s, i);
    mjModel* mm = loadMujoco2(&s, i, err, sizeof(err));
    cr_assert(mm, "%s: MuJoCo 2.2.2: %s", s.files[i], err);
    nbad3 += compare3(m, rm, s.files[i]) > 0;
    nbad2 += compare2(m, mm, s.files[i]) > 0;
    mj_deleteModel(mm);
    mc_deleteModel(m);
  }
  printf("binary: %d models, %d differ from 3.14, %d from 2.2.2\n", s.nfile, nbad3, nbad2);
  cr_expect_eq(nbad3, 0);
  cr_expect_eq(nbad2, 0);
  cJSON_Delete(ref);
  scratchCleanup(&s);
}


// MuJoCo 2.2.2 reads no inline elevation; the binary file holding the written rows in reverse
// order is the same field: Moduco's inline field equals 2.2.2's file, and not the file in
// written order (what the tests that compare hfield collisions with 2.2.2 rely on)
Test(hfield_data, inline_field_is_mujoco222_file_with_rows_reversed) {
  Scratch s;
  scratchInit(&s);
  TuRng rng = {0x2e2ULL};
  int ndiffer = 0, nmodel = 0;
  for (int im = 0; im < 16; im++) {
    int nrow = irand(&rng, 2, 9), ncol = irand(&rng, 1, 9);
    float v[81], rev[81];
    char text[2048] = "";
    for (int k = 0; k < nrow * ncol; k++) {
      v[k] = (float)tu_uniform(&rng, -1, 4);
      size_t len = strlen(text);
      snprintf(text + len, sizeof(text) - len, "%s%.9g", k ? " " : "", v[k]);
    }
    for (int r = 0; r < nrow; r++) {
      memcpy(rev + r * ncol, v + (nrow - 1 - r) * ncol, sizeof(float) * (size_t)ncol);
    }
    char name[2][32], xml[4096];
    snprintf(name[0], sizeof(name[0]), "rev%d.bin", im);
    snprintf(name[1], sizeof(name[1]), "fwd%d.bin", im);
    addBinary(&s, name[0], nrow, ncol, rev);
    addBinary(&s, name[1], nrow, ncol, v);
    snprintf(xml, sizeof(xml), "<mujoco><asset><hfield name='h' nrow='%d' ncol='%d' "
             "size='1 0.7 0.4 0.2' elevation='%s'/></asset></mujoco>", nrow, ncol, text);
    int imc = addModel(&s, xml);
    int ij[2];
    for (int t = 0; t < 2; t++) {
      snprintf(xml, sizeof(xml), "<mujoco><asset><hfield name='h' file='%s' "
               "size='1 0.7 0.4 0.2'/></asset></mujoco>", name[t]);
      ij[t] = addModel(&s, xml);
    }
    char err[1024];
    mcModel* m = loadModuco(&s, imc, err, sizeof(err));
    cr_assert(m, "%s", err);
    mjModel* rev2 = loadMujoco2(&s, ij[0], err, sizeof(err));
    cr_assert(rev2, "MuJoCo 2.2.2: %s", err);
    mjModel* fwd2 = loadMujoco2(&s, ij[1], err, sizeof(err));
    cr_assert(fwd2, "MuJoCo 2.2.2: %s", err);
    cr_expect_eq(compare2(m, rev2, s.files[imc]), 0, "inline field %d x %d is not 2.2.2's "
                 "row-reversed file", nrow, ncol);
    int same = 1;
    for (int i = 0; i < m->nhfielddata; i++) {
      same &= sameFloat(m->hfield_data[i], fwd2->hfield_data[i]);
    }
    ndiffer += !same;
    nmodel++;
    mj_deleteModel(fwd2);
    mj_deleteModel(rev2);
    mc_deleteModel(m);
  }
  cr_expect_eq(ndiffer, nmodel, "only %d of %d inline fields differ from the file in written "
               "order", ndiffer, nmodel);
  scratchCleanup(&s);
}


// models both compilers refuse: a wrong number of elevations, no size, no grid
Test(hfield_data, refused_by_both) {
  Scratch s;
  scratchInit(&s);
  static const char* const bad[] = {
    "nrow='2' ncol='3' size='1 2 0.5 0.1' elevation='1 2 3 4 5'",
    "nrow='2' ncol='3' size='1 2 0.5 0.1' elevation='1 2 3 4 5 6 7'",
    "nrow='2' ncol='2' elevation='1 2 3 4'",
    "size='1 2 0.5 0.1'",
    "nrow='0' ncol='2' size='1 2 0.5 0.1'",
    "nrow='2' ncol='2' size='-1 2 0.5 0.1'",
    "nrow='2' ncol='2' size='1 2 0 0.1'",
    "nrow='2' ncol='2' size='1 2 0.5 -0.1'",
  };
  const int n = (int)(sizeof(bad) / sizeof(bad[0]));
  char xml[512];
  for (int k = 0; k < n; k++) {
    snprintf(xml, sizeof(xml), "<mujoco><asset><hfield name='h' %s/></asset></mujoco>", bad[k]);
    addModel(&s, xml);
  }
  // a control that both accept, so the script's refusals are not blanket failures
  addModel(&s, "<mujoco><asset><hfield name='h' nrow='2' ncol='3' size='1 2 0.5 0.1' "
               "elevation='1 2 3 4 5 6'/></asset></mujoco>");
  cJSON* ref = runMujoco3(&s);
  for (int i = 0; i < s.nfile; i++) {
    int refused3 = cJSON_GetObjectItem(refModel(ref, i), "error") != NULL;
    char err[1024];
    mcModel* m = loadModuco(&s, i, err, sizeof(err));
    int want = i < n;
    cr_expect_eq(refused3, want, "%s: MuJoCo 3.14 %s it", s.files[i],
                 refused3 ? "refused" : "accepted");
    cr_expect_eq(m == NULL, want, "%s: Moduco %s it (%s)", s.files[i], m ? "accepted" : "refused",
                 err);
    if (m) {
      mc_deleteModel(m);
    }
  }
  cJSON_Delete(ref);
  scratchCleanup(&s);
}


// the geometry, not only the array: a field whose k-th written row is 1 and the others 0, with a
// free sphere hovering over each grid row (data row j at y = -size1 + 2 size1 j / (nrow - 1));
// the spheres in contact with the field after mc_forward are those of MuJoCo 3.14 (the one
// over the written row k, at data row nrow-1-k)
Test(hfield_data, inline_rows_touch_the_spheres_mujoco314_touches) {
  Scratch s;
  scratchInit(&s);
  static char xml[8192];
  int nexpect = 0;
  for (int nrow = 2; nrow <= 6; nrow++) {
    for (int k = 0; k < nrow; k++) {
      size_t len = (size_t)snprintf(xml, sizeof(xml), "<mujoco><asset><hfield name='h' "
                                    "nrow='%d' ncol='3' size='1 1 1 0.1' elevation='", nrow);
      for (int r = 0; r < nrow; r++) {
        len += (size_t)snprintf(xml + len, sizeof(xml) - len, r == k ? "1 1 1 " : "0 0 0 ");
      }
      len += (size_t)snprintf(xml + len, sizeof(xml) - len, "'/></asset><worldbody>"
                              "<geom type='hfield' hfield='h'/>");
      for (int j = 0; j < nrow; j++) {
        len += (size_t)snprintf(xml + len, sizeof(xml) - len, "<body pos='0.3 %.9g 0.5'>"
                                "<freejoint/><geom size='0.1'/></body>",
                                -1 + 2.0 * j / (nrow - 1));
      }
      snprintf(xml + len, sizeof(xml) - len, "</worldbody></mujoco>");
      addModel(&s, xml);
      nexpect++;
    }
  }
  cJSON* ref = runMujoco3(&s);
  int nbad = 0;
  for (int i = 0; i < s.nfile; i++) {
    const cJSON* rm = refCompiled(&s, ref, i);
    const cJSON* pairs = cJSON_GetObjectItem(rm, "contacts");
    cr_assert(cJSON_IsArray(pairs) && cJSON_GetArraySize(pairs) == 1,
              "%s: MuJoCo 3.14 has %d geom pairs in contact, the model is built for one",
              s.files[i], cJSON_GetArraySize(pairs));
    int g1 = cJSON_GetArrayItem(cJSON_GetArrayItem(pairs, 0), 0)->valueint;
    int g2 = cJSON_GetArrayItem(cJSON_GetArrayItem(pairs, 0), 1)->valueint;
    mcModel* m = moducoCompiled(&s, i);
    mcData* d = mc_makeData(m);
    cr_assert(d);
    mc_forward(m, d);
    int ok = d->ncon > 0;
    for (int c = 0; c < d->ncon; c++) {
      int a = d->contact[c].geom1, b = d->contact[c].geom2;
      ok &= (a < b ? a : b) == g1 && (a < b ? b : a) == g2;
    }
    if (!ok) {
      nbad++;
      cr_expect_fail("%s: Moduco has %d contacts (first: geoms %d %d), MuJoCo 3.14 touches "
                     "geoms %d %d", s.files[i], d->ncon, d->ncon ? d->contact[0].geom1 : -1,
                     d->ncon ? d->contact[0].geom2 : -1, g1, g2);
    }
    mc_deleteData(d);
    mc_deleteModel(m);
  }
  printf("geometry: %d models, %d touch other spheres than 3.14's\n", nexpect, nbad);
  cr_expect_eq(nbad, 0);
  cJSON_Delete(ref);
  scratchCleanup(&s);
}
