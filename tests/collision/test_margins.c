// Margin and gap of contacts: MuJoCo 3.14's rule (Moduco's default) against MuJoCo 3.14.0
// (margins314_ref.mjs under node), and MuJoCo 2.2.2's rule (mcENBL_LEGACYMARGIN, set by
// tu_legacyCollision) against the linked MuJoCo 2.2.2.
//
// 3.14: a geom pair's margin and gap are the sums of the two geoms' (an explicit pair's are its
// own, 0 unless given); the pair is detected below margin + gap and makes constraint rows below
// the margin (includemargin = margin; a contact in the gap above it is kept without rows).
// 2.2.2: the larger margin and the larger gap; detected below the margin, rows below margin - gap.
// The override margin replaces the margin in both. The scenes are built so that the rules give
// different contact sets: spheres, boxes and ellipsoids at 14 heights over a plane and sphere
// pairs at the same distances, for six margin/gap combinations and five pair/override variants.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <mujoco/mujoco.h>

#include <moduco/moduco.h>

#include "testutil.h"

#define NHEIGHT 14
#define NCOMBO 6
#define NVARIANT 5
#define NSCENE (NCOMBO * NVARIANT)
#define XML_SZ 32768

// gaps between the shapes and the plane (or the two spheres), clear of every threshold
static const double kHeight[NHEIGHT] = {
  -0.005, 0.0045, 0.0085, 0.0125, 0.0165, 0.0185, 0.0215, 0.0235, 0.0265, 0.0285, 0.0335,
  0.0385, 0.0415, 0.0485
};

// margin and gap of the plane (and the second sphere of a pair), then of the shapes
static const double kCombo[NCOMBO][4] = {
  {0, 0, 0, 0}, {0.01, 0, 0.01, 0}, {0.02, 0, 0.01, 0}, {0.01, 0.005, 0.01, 0.005},
  {0.01, 0.005, 0.01, 0.002}, {0.015, 0, 0, 0.004}
};

// variants: geom rules, override margin, explicit pairs without, with margin and gap, with margin
static const char* const kOption[NVARIANT] = {
  "", "o_margin='0.03'><flag override='enable'/></option", "", "", ""
};
static const char* const kPair[NVARIANT] = {NULL, NULL, "", "margin='0.03' gap='0.01'",
                                            "margin='0.01'"};

// append printf output to buf (size XML_SZ)
#define APPEND(...) (len += (size_t)snprintf(buf + len, XML_SZ - len, __VA_ARGS__))

// pairs 0: without the sphere pairs (see mujoco222_legacy)
static void scene(char* buf, int combo, int variant, int pairs) {
  const double* c = kCombo[combo];
  size_t len = 0;
  APPEND("<mujoco><option gravity='0 0 0' %s%s>", kOption[variant], *kOption[variant] ? "" : "/");
  APPEND("<worldbody><geom name='floor' type='plane' size='20 20 1' margin='%g' gap='%g'/>",
         c[0], c[1]);
  for (int i = 0; i < NHEIGHT; i++) {
    double h = kHeight[i], x = 0.5 * i;
    const char* shape[3] = {"type='sphere' size='0.1'", "type='box' size='0.1 0.1 0.1'",
                            "type='ellipsoid' size='0.1 0.08 0.1'"};
    for (int k = 0; k < 3; k++) {
      APPEND("<body pos='%g %d %.17g'><freejoint/><geom name='g%d_%d' %s margin='%g' gap='%g'/>"
             "</body>", x, k, 0.1 + h, i, k, shape[k], c[2], c[3]);
    }
    if (!pairs) {
      continue;
    }
    APPEND("<body pos='%g 3 1'><freejoint/><geom name='a%d' type='sphere' size='0.1' margin='%g' "
           "gap='%g'/></body>", x, i, c[2], c[3]);
    APPEND("<body pos='%g %.17g 1'><freejoint/><geom name='b%d' type='sphere' size='0.1' "
           "margin='%g' gap='%g'/></body>", x, 3.2 + h, i, c[0], c[1]);
  }
  APPEND("</worldbody>");
  if (kPair[variant]) {
    APPEND("<contact>");
    for (int i = 0; i < NHEIGHT; i++) {
      APPEND("<pair geom1='floor' geom2='g%d_0' %s/>", i, kPair[variant]);
      if (pairs) {
        APPEND("<pair geom1='a%d' geom2='b%d' %s/>", i, i, kPair[variant]);
      }
    }
    APPEND("</contact>");
  }
  APPEND("</mujoco>");
}

static mcModel* loadModuco(const char* xml) {
  char err[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert_not_null(m, "Moduco: %s", err);
  return m;
}

// one contact's fields as compared: geom1, geom2, dist, includemargin, exclude
typedef struct {
  int g1, g2, exclude;
  double dist, include;
} Con;

// compare Moduco's contacts (and row count) with the reference's; return the contacts compared
static int compareContacts(const char* what, int s, const mcData* d, const Con* ref, int nref,
                           int nefc) {
  cr_assert_eq(d->ncon, nref, "%s scene %d: %d contacts, MuJoCo %d", what, s, d->ncon, nref);
  for (int i = 0; i < nref; i++) {
    const mcContact* c = d->contact + i;
    cr_assert(c->geom1 == ref[i].g1 && c->geom2 == ref[i].g2,
              "%s scene %d contact %d: geoms %d %d, MuJoCo %d %d", what, s, i, c->geom1,
              c->geom2, ref[i].g1, ref[i].g2);
    cr_assert(fabs(c->dist - ref[i].dist) < 1e-6, "%s scene %d contact %d: dist %.9g, MuJoCo %.9g",
              what, s, i, c->dist, ref[i].dist);
    cr_assert(fabs(c->includemargin - ref[i].include) < 1e-15,
              "%s scene %d contact %d: includemargin %.17g, MuJoCo %.17g", what, s, i,
              c->includemargin, ref[i].include);
    cr_assert_eq(c->exclude, ref[i].exclude, "%s scene %d contact %d: exclude %d, MuJoCo %d",
                 what, s, i, c->exclude, ref[i].exclude);
  }
  cr_assert_eq(d->nefc, nefc, "%s scene %d: %d rows, MuJoCo %d", what, s, d->nefc, nefc);
  return nref;
}

// the scenes (with the sphere pairs unless legacy and the override variant)
static char** allScenes(int legacy) {
  char** xmls = calloc(NSCENE, sizeof(char*));
  cr_assert_not_null(xmls);
  for (int s = 0; s < NSCENE; s++) {
    xmls[s] = malloc(XML_SZ);
    cr_assert_not_null(xmls[s]);
    scene(xmls[s], s / NVARIANT, s % NVARIANT, !(legacy && s % NVARIANT == 1));
  }
  return xmls;
}

static void freeScenes(char** xmls) {
  for (int s = 0; s < NSCENE; s++) {
    free(xmls[s]);
  }
  free(xmls);
}

Test(margins, mujoco314) {
  TU_MJS314_REQUIRE();
  char** xmls = allScenes(0);
  char err[1024] = "";
  cJSON* out = tu_mjs3Models("tests/collision/margins314_ref.mjs", (const char* const*)xmls,
                             NSCENE, err, sizeof(err));
  cr_assert_not_null(out, "%s", err);
  const cJSON* models = cJSON_GetObjectItemCaseSensitive(out, "models");
  int ncon = 0, nexcl = 0;
  for (int s = 0; s < NSCENE; s++) {
    const cJSON* mod = cJSON_GetArrayItem(models, s);
    const cJSON* list = cJSON_GetObjectItemCaseSensitive(mod, "contacts");
    cr_assert(cJSON_IsArray(list), "MuJoCo 3.14 did not load scene %d", s);
    int n = cJSON_GetArraySize(list);
    Con* ref = calloc((size_t)n + 1, sizeof(Con));
    for (int i = 0; i < n; i++) {
      const cJSON* row = cJSON_GetArrayItem(list, i);
      ref[i].g1 = cJSON_GetArrayItem(row, 0)->valueint;
      ref[i].g2 = cJSON_GetArrayItem(row, 1)->valueint;
      ref[i].dist = cJSON_GetArrayItem(row, 2)->valuedouble;
      ref[i].include = cJSON_GetArrayItem(row, 3)->valuedouble;
      ref[i].exclude = cJSON_GetArrayItem(row, 4)->valueint;
      nexcl += ref[i].exclude;
    }
    mcModel* m = loadModuco(xmls[s]);
    mcData* d = mc_makeData(m);
    mc_forward(m, d);
    ncon += compareContacts("3.14", s, d, ref,
                            n, cJSON_GetObjectItemCaseSensitive(mod, "nefc")->valueint);
    free(ref);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
  fprintf(stderr, "margins against MuJoCo 3.14: %d scenes, %d contacts (%d in the gap) agree\n",
          NSCENE, ncon, nexcl);
  cJSON_Delete(out);
  freeScenes(xmls);
}

// With the override, MuJoCo 2.2.2's broad phase (bounding boxes in the principal frame of the
// geom centres, grown by the geom margins, not the override margin) passes a pair of spheres
// between the geom margin and the override margin or not depending on the rest of the scene (a
// pair 0.0085 apart is found in the scene of 70 geoms, 0.0095 alone not), where Moduco finds
// every pair within the override margin: the override scenes have no sphere pairs here.
Test(margins, mujoco222_legacy) {
  char** xmls = allScenes(1);
  int ncon = 0, nexcl = 0;
  for (int s = 0; s < NSCENE; s++) {
    char path[] = "/tmp/moduco-margins-XXXXXX.xml";
    int fd = mkstemps(path, 4);
    cr_assert_geq(fd, 0);
    FILE* f = fdopen(fd, "w");
    fputs(xmls[s], f);
    fclose(f);
    char err[1024] = "";
    mjModel* mm = mj_loadXML(path, NULL, err, sizeof(err));
    remove(path);
    cr_assert_not_null(mm, "MuJoCo 2.2.2: %s", err);
    mjData* md = mj_makeData(mm);
    mj_forward(mm, md);
    Con* ref = calloc((size_t)md->ncon + 1, sizeof(Con));
    for (int i = 0; i < md->ncon; i++) {
      const mjContact* c = md->contact + i;
      ref[i] = (Con){c->geom1, c->geom2, c->exclude, c->dist, c->includemargin};
      nexcl += c->exclude;
    }
    mcModel* m = loadModuco(xmls[s]);
    tu_legacyCollision(m);
    mcData* d = mc_makeData(m);
    mc_forward(m, d);
    ncon += compareContacts("2.2.2", s, d, ref, md->ncon, md->nefc);
    free(ref);
    mc_deleteData(d);
    mc_deleteModel(m);
    mj_deleteData(md);
    mj_deleteModel(mm);
  }
  fprintf(stderr, "margins against MuJoCo 2.2.2 (legacy rule): %d scenes, %d contacts (%d in the "
          "gap) agree\n", NSCENE, ncon, nexcl);
  freeScenes(xmls);
}

// nativeccd is on unless the model disables it, as in MuJoCo 3.x
Test(margins, nativeccd_default) {
  const char* on = "<mujoco><worldbody><geom type='sphere' size='1'/></worldbody></mujoco>";
  const char* off = "<mujoco><option><flag nativeccd='disable'/></option><worldbody>"
                    "<geom type='sphere' size='1'/></worldbody></mujoco>";
  mcModel* m = loadModuco(on);
  cr_expect(m->opt.enableflags & mcENBL_NATIVECCD, "nativeccd off by default");
  cr_expect(!(m->opt.enableflags & mcENBL_LEGACYMARGIN), "legacy margin rule set by default");
  mc_deleteModel(m);
  m = loadModuco(off);
  cr_expect(!(m->opt.enableflags & mcENBL_NATIVECCD), "nativeccd='disable' kept it on");
  mc_deleteModel(m);
}
