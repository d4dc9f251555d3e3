// Native convex collision (<flag nativeccd="enable"/>: plugins/collision-gjk, GJK/EPA; box-box by
// the separating-axis collider of collision-primitive) against MuJoCo 3.14.0 (@mujoco/mujoco,
// tests/collision/contacts314_ref.mjs; node and tests/mjs3/node_modules needed, npm ci, else the
// tests fail with that instruction). Scenes set multiccd="disable" (on by default in 3.14 and,
// with nativeccd, in Moduco) except the multiccd tests:
// - random poses of every convex type pair (sphere, capsule, ellipsoid, cylinder, box, mesh of a
//   random point cloud), from separated within the margin to deep penetration: contact count,
//   dist, position and normal per pair, and how far each engine's contact is from the exact
//   answer (excess); the agreement table in the log;
// - box-box by SAT on random and resting poses; whole scenes of 8 crowded convex geoms;
// - the flag: off (MuJoCo 2.2.2's libccd MPR) and on (the default, as in 3.x) give the two
//   colliders; exact answers of GJK/EPA on pairs with a known solution (a sphere against a round
//   ellipsoid, a box against a cube mesh face to face).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>

#include <moduco/moduco.h>

#include "testutil.h"
#include "../../plugins/collision-convex/support.h"

static mcModel* load(const char* xml) {
  char err[1000] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert(m, "compile: %s", err);
  return m;
}


static const char* const g_types[6] = {"sphere", "capsule", "ellipsoid", "cylinder", "box",
                                       "mesh"};
static const char* const g_sizes[6] = {"0.1", "0.07 0.12", "0.12 0.08 0.15", "0.09 0.11",
                                       "0.1 0.07 0.12", ""};

// a scene of geoms a (type t1) and b (type t2) on free bodies, b at distance R along a random
// direction, both turned at random; margin on geom a, half of it on geom b (MuJoCo 3.14 and
// Moduco add the two geoms' margins: the pair is detected within 1.5 margin); opt: attributes of
// <option>, flags: those of its <flag>
static char* pairScene(TuRng* rng, int t1, int t2, double R, double margin, const char* opt,
                       const char* flags) {
  char assets[2048] = "<asset>";
  tu_cloudMesh(assets, sizeof(assets), rng, "ma", 14, (double[3]){0.12, 0.1, 0.15});
  tu_cloudMesh(assets, sizeof(assets), rng, "mb", 10, (double[3]){0.1, 0.13, 0.1});
  strcat(assets, "</asset>");
  char g[2][256];
  const int t[2] = {t1, t2};
  const char* name[2] = {"a", "b"};
  for (int i = 0; i < 2; i++) {
    if (t[i] == 5) {
      snprintf(g[i], sizeof(g[i]), "<geom name='%s' type='mesh' mesh='m%s' margin='%g'/>",
               name[i], name[i], i ? 0.5 * margin : margin);
    } else {
      snprintf(g[i], sizeof(g[i]), "<geom name='%s' type='%s' size='%s' margin='%g'/>",
               name[i], g_types[t[i]], g_sizes[t[i]], i ? 0.5 * margin : margin);
    }
  }
  double qa[4], qb[4], dir[3];
  tu_randomQuat(rng, qa, 0);
  tu_randomQuat(rng, qb, 0);
  tu_randomUnit(rng, dir);
  char* xml = malloc(4096);
  snprintf(xml, 4096, "<mujoco><option %s><flag %s/></option>%s<worldbody>"
           "<body quat='%.17g %.17g %.17g %.17g'><freejoint/>%s</body>"
           "<body pos='%.17g %.17g %.17g' quat='%.17g %.17g %.17g %.17g'><freejoint/>%s</body>"
           "</worldbody></mujoco>", opt, flags, assets, qa[0], qa[1], qa[2], qa[3], g[0], R*dir[0],
           R*dir[1], R*dir[2], qb[0], qb[1], qb[2], qb[3], g[1]);
  return xml;
}


// How far a contact is from the exact answer: the overlap of geoms 0 and 1 along the contact's
// normal n (from geom 0 toward geom 1; the largest projection of geom 0 on n minus the smallest
// of geom 1) plus its dist. Zero for the exact answer: the true depth (distance) is the smallest
// overlap (largest gap) over all directions, reached along the true normal. Positive when the
// normal is off or the depth short of the overlap along the normal.
static double excessOf(const mcModel* m, const mcData* d, int g1, int g2, double dist,
                       const double n[3]) {
  ConvexObj oa = {m, d, g1, 0, 0}, ob = {m, d, g2, 0, 0};
  double neg[3] = {-n[0], -n[1], -n[2]}, sa[3], sb[3];
  geomSupport(&oa, n, sa);
  geomSupport(&ob, neg, sb);
  return (sa[0] - sb[0])*n[0] + (sa[1] - sb[1])*n[1] + (sa[2] - sb[2])*n[2] + dist;
}

static double excess(const mcModel* m, const mcData* d, double dist, const double n[3]) {
  return excessOf(m, d, 0, 1, dist, n);
}


// errors of one matched contact: dist, position, normal
typedef struct {
  double dist;
  double pos;
  double normal;
} ConErr;

static double vecErr(const double* a, const cJSON* arr, int off) {
  double e = 0;
  for (int k = 0; k < 3; k++) {
    e = fmax(e, fabs(a[k] - cJSON_GetArrayItem(arr, off + k)->valuedouble));
  }
  return e;
}


// compare Moduco's contacts of a scene with 3.14's (as sets, each reference contact paired with
// the nearest unused one by position): the largest errors, in *beyond the largest dist error
// beyond 3.14's own (its excess); -1 when the counts differ
static int compareScene(const mcModel* m, const mcData* d, const cJSON* ref, ConErr* err,
                        int* nwithin, double* beyond) {
  int nr = cJSON_GetArraySize(ref);
  memset(err, 0, sizeof(*err));
  if (nr != d->ncon) {
    return -1;
  }
  int used[64] = {0};
  for (int i = 0; i < nr && i < 64; i++) {
    const cJSON* c = cJSON_GetArrayItem(ref, i);
    int best = -1;
    double bestErr = INFINITY;
    for (int j = 0; j < d->ncon && j < 64; j++) {
      double e = vecErr(d->contact[j].pos, c, 3);
      if (!used[j] && e < bestErr) {
        bestErr = e;
        best = j;
      }
    }
    used[best] = 1;
    const mcContact* con = d->contact + best;
    err->dist = fmax(err->dist, fabs(con->dist - cJSON_GetArrayItem(c, 2)->valuedouble));
    err->pos = fmax(err->pos, bestErr);
    double ed = fabs(con->dist - cJSON_GetArrayItem(c, 2)->valuedouble);
    double en = vecErr(con->frame, c, 6);
    err->normal = fmax(err->normal, en);
    double n[3];
    for (int k = 0; k < 3; k++) {
      n[k] = cJSON_GetArrayItem(c, 6 + k)->valuedouble;
    }
    double exRef = excessOf(m, d, con->geom1, con->geom2, cJSON_GetArrayItem(c, 2)->valuedouble,
                            n);
    *beyond = fmax(*beyond, ed - fabs(exRef));
    *nwithin += ed <= 1e-6 && bestErr <= 1e-6 && en <= 1e-6;
  }
  return nr;
}


// agreement of one type pair over its poses
typedef struct {
  int nscene;                     // scenes
  int ncontact;                   // scenes where 3.14 reports a contact
  int countOk;                    // scenes with the same number of contacts
  int within;                     // scenes with contacts all within 1e-6 (dist, pos, normal)
  ConErr worst;                   // largest errors over the scenes with equal counts
  double excessMc;                // largest excess() of Moduco's single contacts
  double excessRef;               // the same for 3.14's
  int ncon;                       // contacts compared (scenes with equal counts)
  int nconWithin;                 // of those within 1e-6 in dist, pos and normal
  double distBeyond;              // largest dist error beyond 3.14's own excess in that scene
  int reversed;                   // scenes whose 3.14 normals were taken back (runScenesRev)
} PairStats;

// agreement per type pair of the geom pairs in whole scenes
typedef struct {
  int npair[6][6];                // geom pairs in contact in either engine
  int same[6][6];                 // of those with the same number of contacts
  int ncon[6][6];                 // 3.14's contacts of the pairs with the same count
  int within[6][6];               // of those within 1e-6 of Moduco's (dist, pos, normal)
} KindStats;

// the geom pairs of scene number scene (m, d) against 3.14's contacts rc, tallied per type pair (sphere 0 to
// mesh 5, lower type first) in ks; a pair whose counts differ is logged
static void tallyKinds(const mcModel* m, const mcData* d, const cJSON* rc, int scene,
                       KindStats* ks) {
  enum { MAXG = 16 };
  int cm[MAXG][MAXG] = {{0}}, cr[MAXG][MAXG] = {{0}}, nr = cJSON_GetArraySize(rc);
  cr_assert(m->ngeom <= MAXG, "scene of %d geoms", m->ngeom);
  for (int j = 0; j < d->ncon; j++) {
    cm[d->contact[j].geom1][d->contact[j].geom2]++;
  }
  for (int j = 0; j < nr; j++) {
    const cJSON* c = cJSON_GetArrayItem(rc, j);
    cr[cJSON_GetArrayItem(c, 0)->valueint][cJSON_GetArrayItem(c, 1)->valueint]++;
  }
  for (int a = 0; a < m->ngeom; a++) {
    for (int b = 0; b < m->ngeom; b++) {
      if (!cm[a][b] && !cr[a][b]) {
        continue;
      }
      int ta = m->geom_type[a] - mcGEOM_SPHERE, tb = m->geom_type[b] - mcGEOM_SPHERE;
      int lo = ta < tb ? ta : tb, hi = ta < tb ? tb : ta;
      ks->npair[lo][hi]++;
      if (cm[a][b] != cr[a][b]) {
        cr_log_info("  scene %d, geoms %d %d (%s-%s): %d contacts, 3.14 %d", scene, a, b,
                    g_types[ta], g_types[tb], cm[a][b], cr[a][b]);
        continue;
      }
      ks->same[lo][hi]++;
      for (int j = 0; j < nr; j++) {   // each of 3.14's contacts against Moduco's nearest one
        const cJSON* c = cJSON_GetArrayItem(rc, j);
        if (cJSON_GetArrayItem(c, 0)->valueint != a || cJSON_GetArrayItem(c, 1)->valueint != b) {
          continue;
        }
        double best = INFINITY;
        for (int i = 0; i < d->ncon; i++) {
          const mcContact* con = d->contact + i;
          if (con->geom1 == a && con->geom2 == b) {
            best = fmin(best, fmax(fmax(vecErr(con->pos, c, 3), vecErr(con->frame, c, 6)),
                                   fabs(con->dist - cJSON_GetArrayItem(c, 2)->valuedouble)));
          }
        }
        ks->ncon[lo][hi]++;
        ks->within[lo][hi] += best <= 1e-6;
      }
    }
  }
}


// MuJoCo 3.14's reversed normals taken back in scene contacts rc (Moduco's in d): each normal
// of 3.14 pointing against Moduco's first contact's is negated; the number negated
static int takeBackReversed(const mcData* d, const cJSON* rc) {
  int nrev = 0;
  for (int j = 0; j < cJSON_GetArraySize(rc) && d->ncon > 0; j++) {
    cJSON* c = cJSON_GetArrayItem(rc, j);
    double dot = 0;
    for (int k = 0; k < 3; k++) {
      dot += cJSON_GetArrayItem(c, 6 + k)->valuedouble*d->contact[0].frame[k];
    }
    if (dot < 0) {
      nrev++;
      for (int k = 0; k < 3; k++) {
        cJSON* x = cJSON_GetArrayItem(c, 6 + k);
        cJSON_SetNumberValue(x, -x->valuedouble);
      }
    }
  }
  return nrev;
}


// run n scenes through Moduco and 3.14; stats per scene pair index pairOf[i], and per type pair
// of the geom pairs in kinds (NULL: not wanted); in the scenes i with reversed[i] (NULL: none)
// 3.14's normals that point against Moduco's are negated before the comparison and counted in
// the scene kind's reversed
static void runScenesRev(char** xmls, const int* pairOf, int n, PairStats* st, KindStats* kinds,
                         const int* reversed) {
  char err[512] = "";
  cJSON* ref = tu_mjs3Models("tests/collision/contacts314_ref.mjs", (const char* const*)xmls, n,
                             err, sizeof(err));
  cr_assert(ref, "MuJoCo 3.14.0 reference: %s", err);
  const cJSON* models = cJSON_GetObjectItemCaseSensitive(ref, "models");
  for (int i = 0; i < n; i++) {
    const cJSON* e = cJSON_GetArrayItem(models, i);
    cr_assert(!cJSON_GetObjectItemCaseSensitive(e, "error"), "3.14 did not compile scene %d", i);
    const cJSON* rc = cJSON_GetObjectItemCaseSensitive(e, "contacts");
    mcModel* m = load(xmls[i]);
    mcData* d = mc_makeData(m);
    mc_forward(m, d);
    PairStats* s = st + pairOf[i];
    if (reversed && reversed[i]) {
      s->reversed += takeBackReversed(d, rc) > 0;
    }
    if (kinds) {
      tallyKinds(m, d, rc, i, kinds);
    }
    ConErr ce;
    s->nscene++;
    s->ncontact += cJSON_GetArraySize(rc) > 0;
    double beyond = 0;
    int within = 0, okc = compareScene(m, d, rc, &ce, &within, &beyond);
    if (d->ncon == 1) {
      s->excessMc = fmax(s->excessMc, fabs(excess(m, d, d->contact[0].dist, d->contact[0].frame)));
    }
    if (cJSON_GetArraySize(rc) == 1) {
      const cJSON* c = cJSON_GetArrayItem(rc, 0);
      double n[3];
      for (int k = 0; k < 3; k++) {
        n[k] = cJSON_GetArrayItem(c, 6 + k)->valuedouble;
      }
      s->excessRef = fmax(s->excessRef,
                          fabs(excess(m, d, cJSON_GetArrayItem(c, 2)->valuedouble, n)));
    }
    if (okc >= 0) {
      s->ncon += okc;
      s->nconWithin += within;
      s->countOk++;
      s->worst.dist = fmax(s->worst.dist, ce.dist);
      s->distBeyond = fmax(s->distBeyond, beyond);
      s->worst.pos = fmax(s->worst.pos, ce.pos);
      s->worst.normal = fmax(s->worst.normal, ce.normal);
      s->within += ce.dist <= 1e-6 && ce.pos <= 1e-6 && ce.normal <= 1e-6;
    }
    mc_deleteData(d);
    mc_deleteModel(m);
  }
  cJSON_Delete(ref);
}

static void runScenes(char** xmls, const int* pairOf, int n, PairStats* st, KindStats* kinds) {
  runScenesRev(xmls, pairOf, n, st, kinds, NULL);
}


// Log the agreement of the nkind pair kinds of a multiccd test (names) and expect the same
// contact count in all but 4 of each kind's scenes and, with halfWithin, all contacts within 1e-6
// in at least half of them.
static void reportKinds(const PairStats* st, const char* const* names, int nkind, int halfWithin) {
  for (int k = 0; k < nkind; k++) {
    const PairStats* s = st + k;
    cr_log_info("multiccd %s: %d scenes, %d with contact, %d same count, %d all within 1e-6 "
                "(%d of %d contacts), worst dist %.2g pos %.2g normal %.2g", names[k], s->nscene,
                s->ncontact, s->countOk, s->within, s->nconWithin, s->ncon, s->worst.dist,
                s->worst.pos, s->worst.normal);
    cr_expect(s->countOk >= s->nscene - 4, "%s: counts differ in %d of %d scenes", names[k],
              s->nscene - s->countOk, s->nscene);
    cr_expect(!halfWithin || s->within >= s->nscene/2, "%s: only %d of %d scenes within 1e-6",
              names[k], s->within, s->nscene);
  }
}


static void logTable(const char* title, const PairStats st[6][6], int lo) {
  cr_log_info("%s: pair, scenes, with contact, same count, all within 1e-6, worst dist / pos / "
              "normal, excess Moduco / 3.14", title);
  for (int t1 = lo; t1 < 6; t1++) {
    for (int t2 = t1; t2 < 6; t2++) {
      const PairStats* s = &st[t1][t2];
      if (!s->nscene) {
        continue;
      }
      cr_log_info("  %s-%s: %d, %d, %d, %d, %.2g / %.2g / %.2g, %.2g / %.2g", g_types[t1],
                  g_types[t2], s->nscene, s->ncontact, s->countOk, s->within, s->worst.dist,
                  s->worst.pos, s->worst.normal, s->excessMc, s->excessRef);
    }
  }
}


enum { NPOSE = 40 };

// NPOSE random poses of every convex type pair (the same poses for the same seed) with <option>
// attributes opt, through Moduco and 3.14; stats per pair in st
static void runPairs(const char* opt, PairStats st[6][6]) {
  TuRng rng = {0x6a4b};
  enum { N = 21*NPOSE };
  char* xmls[N];
  int pairOf[N];
  int n = 0;
  for (int t1 = 0; t1 < 6; t1++) {
    for (int t2 = t1; t2 < 6; t2++) {
      for (int p = 0; p < NPOSE; p++, n++) {
        // from 0.02 beyond touching range down to centres together
        double R = tu_uniform(&rng, 0.0, 0.3);
        xmls[n] = pairScene(&rng, t1, t2, R, p % 4 == 0 ? 0.02 : 0, opt,
                            "nativeccd='enable' multiccd='disable'");
        pairOf[n] = 6*t1 + t2;
      }
    }
  }
  memset(st, 0, sizeof(PairStats)*36);
  runScenes(xmls, pairOf, n, &st[0][0], NULL);
  for (int i = 0; i < n; i++) {
    free(xmls[i]);
  }
}


Test(collision_gjk, every_convex_pair_against_mujoco314, .timeout = 1200) {
  TU_MJS314_REQUIRE();
  PairStats st[6][6];
  runPairs("", st);
  logTable("nativeccd against MuJoCo 3.14", (const PairStats(*)[6])st, 0);
  for (int t1 = 0; t1 < 6; t1++) {
    for (int t2 = t1; t2 < 6; t2++) {
      const PairStats* ps = &st[t1][t2];
      const char* a = g_types[t1];
      const char* b = g_types[t2];
      // box-box (SAT, more in its own test below): 1 of these 40 poses takes the edge axis where
      // 3.14 takes a face
      int boxbox = t1 == 4 && t2 == 4;
      cr_expect(ps->countOk >= ps->nscene - boxbox, "%s-%s: contact counts differ in %d of %d "
                "scenes", a, b, ps->nscene - ps->countOk, ps->nscene);
      cr_expect(ps->ncontact >= NPOSE/2, "%s-%s: only %d scenes in contact", a, b, ps->ncontact);
      // Moduco's answer is the exact one (excess: zero up to rounding); between two cylinders
      // GJK's normal between parallel caps (a large flat face of the Minkowski difference) is
      // off by rounding (measured 1.4e-7 in one separated pose)
      int cyl = t1 == 3 || t2 == 3;
      int analytic = t1 != 2 && t1 != 3 && t2 != 2 && t2 != 3 && t2 != 5;  // collision-primitive
      cr_expect(analytic || ps->excessMc <= (t1 == 3 && t2 == 3 ? 5e-7 : 1e-9), "%s-%s: "
                "Moduco's contact is %.3g off the exact answer", a, b, ps->excessMc);
      // where 3.14 is exact too (its analytic pairs, measured up to 1.2e-15) all agree to 1e-6;
      // on polytopes 3.14's EPA stops at its ccd_tolerance (1e-6): dist within 2e-6 (measured
      // 9e-7); on curved shapes 3.14's EPA stops after ccd_iterations = 35 up to 0.024 short
      // (excessRef), so it is not compared there (the next test compares them with 3.14's EPA
      // run to convergence)
      int curved = t1 == 2 || t2 == 2 || cyl;
      if (ps->excessRef <= 1e-9) {
        cr_expect(ps->worst.dist <= 1e-6 && ps->worst.pos <= (cyl ? 1e-5 : 1e-6) &&
                  ps->worst.normal <= (cyl ? 1e-4 : 1e-6), "%s-%s: differs from exact 3.14 by "
                  "%.3g / %.3g / %.3g", a, b, ps->worst.dist, ps->worst.pos, ps->worst.normal);
      } else if (!curved) {
        cr_expect(ps->worst.dist <= 2e-6, "%s-%s: dist differs from 3.14 by %.3g", a, b,
                  ps->worst.dist);
      }
    }
  }
}


// MuJoCo 3.x's names of mpr_iterations and mpr_tolerance are read into them
Test(collision_gjk, ccd_option_names) {
  mcModel* m = load("<mujoco><option ccd_iterations='77' ccd_tolerance='1e-9'/><worldbody>"
                    "<geom type='sphere' size='0.1'/></worldbody></mujoco>");
  cr_expect_eq(m->opt.mpr_iterations, 77);
  cr_expect_eq(m->opt.mpr_tolerance, 1e-9);
  mc_deleteModel(m);
}


// The same poses with 3.14's GJK/EPA run to convergence (ccd_iterations 1000, ccd_tolerance
// 1e-14; Moduco reads both, MuJoCo 3.x's names of mpr_iterations and mpr_tolerance, and converges
// whatever they are). 3.14's EPA stops once the support point along the nearest face's normal is
// within ccd_tolerance of that face, or after ccd_iterations (probed: the depth grows with each
// iteration up to the cap, and a tolerance of 1e-4 stops it at the state of the 35th iteration),
// so its default (35, 1e-6) leaves curved pairs short; converged, the depths agree to 1e-6 beyond
// what 3.14 itself is off the exact answer (sphere-ellipsoid: 2.5e-6 short even so), and Moduco's
// contact is at least as exact as 3.14's (excess). Position and normal are compared in the log
// only: near a curved optimum the depth is flat in the normal (an error e in the normal costs
// about e^2 in depth) and on flat features the position is any point of the overlap, so both
// converged engines differ there by up to 1e-4 (measured) while exact to 1e-9.
Test(collision_gjk, every_convex_pair_against_converged_mujoco314, .timeout = 1200) {
  TU_MJS314_REQUIRE();
  PairStats st[6][6];
  runPairs("ccd_iterations='1000' ccd_tolerance='1e-14'", st);
  logTable("nativeccd against MuJoCo 3.14 converged", (const PairStats(*)[6])st, 0);
  for (int t1 = 0; t1 < 6; t1++) {
    for (int t2 = t1; t2 < 6; t2++) {
      const PairStats* ps = &st[t1][t2];
      int boxbox = t1 == 4 && t2 == 4;
      cr_expect(ps->countOk >= ps->nscene - boxbox && ps->distBeyond <= 1e-6,
                "%s-%s: %d of %d scenes with the same count, dist %.3g beyond 3.14's own error",
                g_types[t1], g_types[t2], ps->countOk, ps->nscene, ps->distBeyond);
      cr_expect(ps->excessMc <= ps->excessRef + (t1 == 3 && t2 == 3 ? 5e-7 : 1e-9),
                "%s-%s: Moduco's contact %.3g off the exact answer, 3.14's %.3g", g_types[t1],
                g_types[t2], ps->excessMc, ps->excessRef);
    }
  }
}


// the one contact of geoms 0 and 1 of the scene (fails unless there is exactly one)
static mcContact oneContact(const char* xml) {
  mcModel* m = load(xml);
  mcData* d = mc_makeData(m);
  mc_forward(m, d);
  cr_assert_eq(d->ncon, 1, "%d contacts", d->ncon);
  mcContact c = d->contact[0];
  mc_deleteData(d);
  mc_deleteModel(m);
  return c;
}


// expect the scene xml (number i) to have expect contacts in Moduco
static void expectCount(const char* xml, int expect, int i) {
  mcModel* m = load(xml);
  mcData* d = mc_makeData(m);
  mc_forward(m, d);
  cr_expect_eq(d->ncon, expect, "scene %d: %d contacts, %d expected", i, d->ncon, expect);
  mc_deleteData(d);
  mc_deleteModel(m);
}


static void expectContact(const mcContact* c, double dist, const double pos[3],
                          const double n[3], double tol, const char* what) {
  cr_expect(fabs(c->dist - dist) <= tol, "%s: dist %.15g, expected %.15g", what, c->dist, dist);
  for (int k = 0; k < 3; k++) {
    cr_expect(!pos || fabs(c->pos[k] - pos[k]) <= tol, "%s: pos[%d] %.15g, expected %.15g", what,
              k, c->pos[k], pos ? pos[k] : 0);
    cr_expect(fabs(c->frame[k] - n[k]) <= tol, "%s: normal[%d] %.15g, expected %.15g", what, k,
              c->frame[k], n[k]);
  }
}


// a sphere against a round ellipsoid (a sphere of radius 0.2): the sphere-sphere answer,
// separated within the margin and overlapping
Test(collision_gjk, round_ellipsoid_exact) {
  const double c[3] = {0.25, 0.05, -0.02};
  double len = sqrt(c[0]*c[0] + c[1]*c[1] + c[2]*c[2]);
  for (int sep = 0; sep < 2; sep++) {
    double s = sep ? 0.32 / len : 1;    // centres 0.32 apart: 0.02 apart within margin 0.05
    char xml[1024];
    snprintf(xml, sizeof(xml), "<mujoco><option><flag nativeccd='enable'/></option><worldbody>"
             "<body><freejoint/><geom type='sphere' size='0.1' margin='0.05'/></body>"
             "<body pos='%.17g %.17g %.17g'><freejoint/>"
             "<geom type='ellipsoid' size='0.2 0.2 0.2'/></body></worldbody></mujoco>",
             s*c[0], s*c[1], s*c[2]);
    mcContact con = oneContact(xml);
    double d = s*len - 0.3, n[3], pos[3];
    for (int k = 0; k < 3; k++) {
      n[k] = c[k] / len;
      pos[k] = n[k]*(0.1 + 0.5*d);      // halfway between the two surfaces
    }
    expectContact(&con, d, pos, n, 1e-9, sep ? "separated" : "overlapping");
  }
}


// a box against a cube mesh, faces parallel: depth and normal exact (the position is any point
// of the overlap: only checked to lie in it)
Test(collision_gjk, box_mesh_faces_exact) {
  const char* xml = "<mujoco><option><flag nativeccd='enable' multiccd='disable'/></option><asset>"
                    "<mesh name='cube' "
                    "vertex='-.1 -.1 -.1 .1 -.1 -.1 -.1 .1 -.1 .1 .1 -.1 -.1 -.1 .1 .1 -.1 .1 "
                    "-.1 .1 .1 .1 .1 .1'/></asset><worldbody>"
                    "<body><freejoint/><geom type='box' size='0.1 0.2 0.3'/></body>"
                    "<body pos='0.17 0.05 0.02'><freejoint/><geom type='mesh' mesh='cube'/></body>"
                    "</worldbody></mujoco>";
  mcContact con = oneContact(xml);
  // the mesh's vertices are floats
  expectContact(&con, 0.17 - 0.1 - (double)0.1f, NULL, (double[3]){1, 0, 0}, 1e-12, "box-mesh");
  cr_expect(con.pos[0] >= 0.07 - 1e-9 && con.pos[0] <= 0.1 + 1e-9 && fabs(con.pos[1]) <= 0.2 &&
            con.pos[1] >= -0.05 && fabs(con.pos[2]) <= 0.12, "position %g %g %g outside the "
            "overlap", con.pos[0], con.pos[1], con.pos[2]);
}


// The flag picks the collider: off the libccd MPR of collision-convex as MuJoCo 2.2.2, short of
// the true depth in deep cylinder-box poses; on (the default, as in MuJoCo 3.x) the exact GJK/EPA
// answer.
Test(collision_gjk, flag_selects_collider) {
  const char* flags[3] = {"nativeccd='disable'", "nativeccd='enable' multiccd='disable'",
                          "multiccd='disable'"};
  TuRng rng = {0xf1a9};
  int differ = 0, n = 0;
  for (int p = 0; p < 20; p++) {
    double dist[3];
    double R = tu_uniform(&rng, 0.0, 0.15);
    TuRng pose = rng;
    for (int i = 0; i < 3; i++) {
      pose = rng;                       // the same pose for the three flags
      char* xml = pairScene(&pose, 3, 4, R, 0, "", flags[i]);
      mcModel* m = load(xml);
      mcData* d = mc_makeData(m);
      mc_forward(m, d);
      dist[i] = d->ncon ? d->contact[0].dist : 1;
      if (i == 1 && d->ncon) {
        double ex = excess(m, d, d->contact[0].dist, d->contact[0].frame);
        cr_expect(fabs(ex) <= 5e-5, "pose %d: GJK/EPA off the exact answer by %.3g", p, ex);
      }
      mc_deleteData(d);
      mc_deleteModel(m);
      free(xml);
    }
    rng = pose;
    n += dist[1] < 0;
    differ += fabs(dist[0] - dist[1]) > 1e-3;
    cr_expect_eq(dist[1], dist[2], "pose %d: the default (%g) is not the flag on (%g)", p,
                 dist[2], dist[1]);
  }
  cr_log_info("%d of %d overlapping cylinder-box poses differ by over 1e-3 between MPR and EPA",
              differ, n);
  cr_expect(differ > 0, "MPR and EPA never differ: the flag did not switch the collider");
}


// multiccd as MuJoCo 3.x selects it: on by default with nativeccd (3.x's disable flag, probed on
// 3.14: disableflags bit 1<<19 clear by default), multiccd="disable" turns it off, "enable" is
// accepted; with nativeccd off (the legacy colliders, MuJoCo 2.2.2 has no multiccd) off unless
// enabled; a bad value is refused with the file and line
Test(collision_gjk, multiccd_default_as_mujoco3) {
  static const struct {
    const char* flags;
    int on;
  } cases[] = {{"", 1}, {"multiccd='disable'", 0}, {"multiccd='enable'", 1},
               {"nativeccd='enable'", 1}, {"nativeccd='disable'", 0},
               {"nativeccd='disable' multiccd='enable'", 1},
               {"nativeccd='disable' multiccd='disable'", 0}};
  for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
    char xml[512];
    snprintf(xml, sizeof(xml), "<mujoco><option><flag %s/></option><worldbody><geom "
             "type='box' size='1 1 .1'/><body pos='0 0 .199'><freejoint/><geom type='cylinder' "
             "size='.1 .1'/></body></worldbody></mujoco>", cases[i].flags);
    mcModel* m = load(xml);
    cr_expect_eq(!!(m->opt.enableflags & mcENBL_MULTICCD), cases[i].on, "<flag %s/>: multiccd "
                 "%s", cases[i].flags, cases[i].on ? "off" : "on");
    mcData* d = mc_makeData(m);
    mc_forward(m, d);
    // an upright cylinder on a box: 4 points of its cap (3.14) with the flag on by 3.14's rule, 5
    // (3.3.8's, on MPR) with the legacy colliders, one without the flag
    int native = !strstr(cases[i].flags, "nativeccd='disable'");
    cr_expect_eq(d->ncon, cases[i].on ? (native ? 4 : 5) : 1, "<flag %s/>: %d contacts",
                 cases[i].flags, d->ncon);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
  const char* file = "multiccd_bad_flag.xml";
  FILE* f = fopen(file, "w");
  cr_assert(f);
  fputs("<mujoco>\n  <option>\n    <flag multiccd='on'/>\n  </option>\n</mujoco>\n", f);
  fclose(f);
  char err[1000] = "";
  mcModel* m = mc_loadXML(file, err, sizeof(err));
  remove(file);
  cr_expect_null(m, "multiccd='on' accepted");
  cr_expect(strstr(err, "multiccd_bad_flag.xml:3"), "error does not name the file and line: %s",
            err);
  cr_expect(strstr(err, "multiccd"), "error does not name the attribute: %s", err);
  if (m) {
    mc_deleteModel(m);
  }
}


// box-box as MuJoCo 3.12+ (the separating-axis collider of collision-primitive, chosen by the
// nativeccd flag): random poses from separated within the margin to deep, and boxes resting
// face on face (parallel faces, turned about the common normal)
Test(collision_gjk, box_box_sat_against_mujoco314, .timeout = 1200) {
  TU_MJS314_REQUIRE();
  TuRng rng = {0xb0c5};
  enum { NRAND = 400, NFLAT = 50, N = NRAND + NFLAT };
  char* xmls[N];
  int pairOf[N];
  for (int i = 0; i < N; i++) {
    if (i < NRAND) {
      xmls[i] = pairScene(&rng, 4, 4, tu_uniform(&rng, 0.0, 0.3), i % 4 == 0 ? 0.02 : 0, "",
                          "nativeccd='enable' multiccd='disable'");
      pairOf[i] = 0;
    } else {
      // box b on top of box a, turned about z, shifted, sunk by up to 1 cm
      double h = tu_uniform(&rng, -M_PI, M_PI), x = tu_uniform(&rng, -0.1, 0.1);
      double y = tu_uniform(&rng, -0.1, 0.1), z = 0.17 - tu_uniform(&rng, 0, 0.01);
      xmls[i] = malloc(1024);
      snprintf(xmls[i], 1024, "<mujoco><option><flag nativeccd='enable' multiccd='disable'/>"
               "</option><worldbody><body><freejoint/><geom type='box' size='0.1 0.07 0.12'/>"
               "</body><body pos='%.17g %.17g %.17g' quat='%.17g 0 0 %.17g'><freejoint/>"
               "<geom type='box' size='0.08 0.1 0.05'/></body></worldbody></mujoco>", x, y, z,
               cos(h/2), sin(h/2));
      pairOf[i] = 1;
    }
  }
  PairStats st[2];
  memset(st, 0, sizeof(st));
  runScenes(xmls, pairOf, N, st, NULL);
  const char* what[2] = {"random poses", "face on face"};
  for (int k = 0; k < 2; k++) {
    const PairStats* s = st + k;
    cr_log_info("box-box %s: %d scenes, %d with contact, %d same count, %d all within 1e-6, "
                "worst dist %.2g pos %.2g normal %.2g", what[k], s->nscene, s->ncontact,
                s->countOk, s->within, s->worst.dist, s->worst.pos, s->worst.normal);
    // the edge-or-face choice near parallel axes is probed (box_sat.c: SAT_EDGECOS, SAT_EDGEGAIN):
    // 1 of 600 poses went the other way with each of two seeds
    cr_expect(s->countOk >= s->nscene - (k == 0 ? 2 : 0), "box-box %s: counts differ in %d "
              "scenes", what[k], s->nscene - s->countOk);
    cr_expect_eq(s->within, s->countOk, "box-box %s: %d scenes differ beyond 1e-6", what[k],
                 s->countOk - s->within);
  }
  for (int i = 0; i < N; i++) {
    free(xmls[i]);
  }
}


// Polytopes face to face with MuJoCo 3.14's multiccd (on by default there): a box or a flat mesh
// slab below, a box, a cube mesh or a hexagonal prism mesh above, tilted by up to 8 degrees about
// a random horizontal axis (the faces count within 5.1 degrees), turned, shifted (overlapping the
// lower face's edge in some poses) and sunk by up to 5 mm, with a margin in one pose of four; the
// contacts compared as sets. Which 4 points 3.14 keeps of a larger overlap polygon (the octagon of
// two turned squares) is not reproduced: scenes with 4 contacts are compared in count only.
static const char g_cube[] = "<mesh name='cube' vertex='-.1 -.1 -.1 .1 -.1 -.1 -.1 .1 -.1 .1 .1 "
                             "-.1 -.1 -.1 .1 .1 -.1 .1 -.1 .1 .1 .1 .1 .1'/>";
static const char g_cubeVertices[] = "-.1 -.1 -.1 .1 -.1 -.1 -.1 .1 -.1 .1 .1 -.1 -.1 -.1 .1 .1 -.1 "
                                     ".1 -.1 .1 .1 .1 .1 .1";
static const char g_slab[] = "<mesh name='slab' vertex='-.3 -.25 -.05 .3 -.25 -.05 -.3 .25 -.05 "
                             ".3 .25 -.05 -.3 -.25 .05 .3 -.25 .05 -.3 .25 .05 .3 .25 .05'/>";

// Without the oracle: a cube mesh (half size 0.1f) on a box, tilted by 0.2 degrees about the x
// axis and sunk so that its lowest edge is 1 mm deep: with multiccd the contacts are the 4 corners
// of its bottom face, each at its own depth below the box's top (vertical, the box's face
// normal), placed halfway along the cube face's normal, with that normal; with a margin on the
// pair the face scheme does not apply (3.14 turns the pair there: tilt314.c).
Test(collision_gjk, multiccd_faces_exact) {
  const double t = 0.2*M_PI/180, h = 0.1f, sink = 1e-3;
  const double c = cos(t), sn = sin(t);
  const double z = 0.05 + h*c + h*sn - sink;        // lowest corner (y = -h, z = -h) at 0.05 - sink
  for (int withMargin = 0; withMargin < 2; withMargin++) {
    char xml[1024];
    snprintf(xml, sizeof(xml), "<mujoco><option><flag multiccd='enable'/></option><asset>%s"
             "</asset><worldbody><geom type='box' size='0.3 0.25 0.05' margin='%g'/>"
             "<body pos='0 0 %.17g' quat='%.17g %.17g 0 0'><freejoint/><geom type='mesh' "
             "mesh='cube'/></body></worldbody></mujoco>", g_cube, withMargin ? 1e-4 : 0, z,
             cos(t/2), sin(t/2));
    mcModel* m = load(xml);
    mcData* d = mc_makeData(m);
    mc_forward(m, d);
    if (withMargin) {
      // the turned pairs: contacts beside the single one with normals tipped by 1e-3
      int tipped = 0;
      for (int j = 1; j < d->ncon; j++) {
        double e = 0;
        for (int k = 0; k < 3; k++) {
          e = fmax(e, fabs(d->contact[j].frame[k] - d->contact[0].frame[k]));
        }
        tipped += e > 5e-4 && e < 2e-3;
      }
      cr_expect(d->ncon > 1 && tipped == d->ncon - 1, "with a margin: %d contacts, %d tipped",
                d->ncon, tipped);
    } else {
      cr_assert_eq(d->ncon, 4, "%d contacts", d->ncon);
      const double n[3] = {0, -sn, c};                 // the cube's +z turned about x
      for (int i = 0; i < 4; i++) {
        double y = (i & 1) ? h : -h, x = (i & 2) ? h : -h;
        double v[3] = {x, y*c + h*sn, y*sn - h*c + z};  // bottom corner (x, y, -h) turned
        double depth = 0.05 - v[2];
        int found = 0;
        for (int j = 0; j < d->ncon; j++) {
          const mcContact* con = d->contact + j;
          double pos[3] = {v[0] + 0.5*depth*n[0], v[1] + 0.5*depth*n[1], v[2] + 0.5*depth*n[2]};
          double e = fmax(fabs(con->pos[0] - pos[0]), fmax(fabs(con->pos[1] - pos[1]),
                                                           fabs(con->pos[2] - pos[2])));
          if (e < 1e-12) {
            found = 1;
            expectContact(con, -depth, pos, n, 1e-12, "corner");
          }
        }
        cr_expect(found, "no contact at corner %d (depth %g)", i, depth);
      }
    }
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


// the local vertices of the upper geom of kind k (0 box, 1 cube mesh, 2 prism mesh); their count
static int upperVertices(int k, double v[12][3]) {
  const double box[3] = {0.1, 0.08, 0.06};
  int n = 0;
  for (int i = 0; i < (k == 2 ? 12 : 8); i++, n++) {
    if (k == 2) {                   // hexagon of radius 0.1, half height 0.06
      double a = M_PI/3*(i % 6);
      v[n][0] = 0.1*cos(a);
      v[n][1] = 0.1*sin(a);
      v[n][2] = i < 6 ? -0.06 : 0.06;
    } else {
      for (int j = 0; j < 3; j++) {
        double s = k == 0 ? box[j] : 0.1;
        v[n][j] = (i >> j) & 1 ? s : -s;
      }
    }
  }
  return n;
}


static void rotateByQuat(const double q[4], const double v[3], double r[3]) {
  double u[3] = {q[1], q[2], q[3]}, t[3], w = q[0];
  t[0] = 2*(u[1]*v[2] - u[2]*v[1]);
  t[1] = 2*(u[2]*v[0] - u[0]*v[2]);
  t[2] = 2*(u[0]*v[1] - u[1]*v[0]);
  r[0] = v[0] + w*t[0] + u[1]*t[2] - u[2]*t[1];
  r[1] = v[1] + w*t[1] + u[2]*t[0] - u[0]*t[2];
  r[2] = v[2] + w*t[2] + u[0]*t[1] - u[1]*t[0];
}


static void quatMul(const double a[4], const double b[4], double r[4]) {
  r[0] = a[0]*b[0] - a[1]*b[1] - a[2]*b[2] - a[3]*b[3];
  r[1] = a[0]*b[1] + a[1]*b[0] + a[2]*b[3] - a[3]*b[2];
  r[2] = a[0]*b[2] - a[1]*b[3] + a[2]*b[0] + a[3]*b[1];
  r[3] = a[0]*b[3] + a[1]*b[2] - a[2]*b[1] + a[3]*b[0];
}


// the lower geoms of the face scenes: a box, the slab mesh, a wide standing cylinder (top at 0.05)
static const char* const g_lower[3] = {"<geom type='box' size='0.3 0.25 0.05'/>",
                                       "<geom type='mesh' mesh='slab'/>",
                                       "<geom type='cylinder' size='0.3 0.05'/>"};

// one face-to-face scene: lower kind lo (g_lower), upper kind up (upperVertices)
// tilted by tilt about the horizontal axis at angle ax, turned by yaw, at x, y, sunk by sink
static char* faceSceneAt(int lo, int up, double ax, double tilt, double yaw, double x, double y,
                         double sink, double margin, const char* flags) {
  double qt[4] = {cos(tilt/2), sin(tilt/2)*cos(ax), sin(tilt/2)*sin(ax), 0};
  double qy[4] = {cos(yaw/2), 0, 0, sin(yaw/2)}, q[4];
  quatMul(qt, qy, q);
  double v[12][3], zmin = INFINITY;
  int nv = upperVertices(up, v);
  for (int i = 0; i < nv; i++) {
    double r[3];
    rotateByQuat(q, v[i], r);
    zmin = fmin(zmin, r[2]);
  }
  char upper[256];
  if (up == 0) {
    snprintf(upper, sizeof(upper), "<geom type='box' size='0.1 0.08 0.06' margin='%g'/>", margin);
  } else {
    snprintf(upper, sizeof(upper), "<geom type='mesh' mesh='%s' margin='%g'/>",
             up == 1 ? "cube" : "prism", margin);
  }
  char* xml = malloc(4096);
  snprintf(xml, 4096, "<mujoco><option><flag %s/></option><asset>%s%s<mesh name='prism' vertex='",
           flags, g_cube, g_slab);
  for (int i = 0; i < nv && up == 2; i++) {
    snprintf(xml + strlen(xml), 4096 - strlen(xml), "%.17g %.17g %.17g ", v[i][0], v[i][1],
             v[i][2]);
  }
  snprintf(xml + strlen(xml), 4096 - strlen(xml), "%s'/></asset><worldbody>%s<body pos='%.17g "
           "%.17g %.17g' quat='%.17g %.17g %.17g %.17g'><freejoint/>%s</body></worldbody>"
           "</mujoco>", up == 2 ? "" : "0 0 0 1 0 0 0 1 0 0 0 1",
           g_lower[lo], x, y, 0.05 - zmin - sink, q[0], q[1], q[2], q[3], upper);
  return xml;
}


static char* faceScene(TuRng* rng, int lo, int up, const char* flags) {
  double ax = tu_uniform(rng, 0, 2*M_PI), tilt = tu_uniform(rng, 0, 8)*M_PI/180;
  double yaw = tu_uniform(rng, -M_PI, M_PI), sink = tu_uniform(rng, 2e-4, 5e-3);
  double x = tu_uniform(rng, -0.3, 0.3), y = tu_uniform(rng, -0.25, 0.25);
  double margin = tu_uniform(rng, 0, 1) < 0.25 ? 0.003 : 0;
  return faceSceneAt(lo, up, ax, tilt, yaw, x, y, sink, margin, flags);
}


// Poses probed on 3.14 whose rule is known, without ties: a cube mesh on a box tilted by less
// than the faces' angle (its face's corners inside the box's face at their own depths, the cube
// face's normal), by more (the box's normal: the cube's edge that enters), the box above the
// slab mesh, and a hexagonal prism tilted by 5.5 degrees about axes 10, 30, ..., 350 degrees
// (one edge of its face or one vertex); all agree to 1e-6.
Test(collision_gjk, multiccd_probed_faces_against_mujoco314, .timeout = 600) {
  TU_MJS314_REQUIRE();
  static const double pose[][5] = {  // axis, tilt (degrees), yaw (degrees), x, sink
    {30, 0.5, 10, 0.02, 0.002}, {60, 1.0, 0, 0.02, 0.003}, {10, 2.0, 40, 0.02, 0.001},
    {80, 0.2, 5, 0.02, 0.0015}, {45, 0.5, 0, 0.02, 0.002}, {3, 15, 0, 0.02, 0.005},
    {20, 15, 30, -0.05, 0.004}};
  enum { NPOSE = sizeof(pose)/sizeof(pose[0]), NPRISM = 18, N = 2*NPOSE + NPRISM };
  char* xmls[N];
  int pairOf[N];
  for (int i = 0; i < NPOSE; i++) {
    const double* p = pose[i];
    for (int k = 0; k < 2; k++) {
      xmls[2*i + k] = faceSceneAt(k, k ? 0 : 1, p[0]*M_PI/180, p[1]*M_PI/180, p[2]*M_PI/180,
                                  p[3], -0.03, p[4], 0, "multiccd='enable'");
      pairOf[2*i + k] = k;
    }
  }
  for (int i = 0; i < NPRISM; i++) {
    xmls[2*NPOSE + i] = faceSceneAt(0, 2, (10 + 20*i)*M_PI/180, 5.5*M_PI/180, 0, 0, 0, 0.002, 0,
                                    "multiccd='enable'");
    pairOf[2*NPOSE + i] = 2;
  }
  PairStats st[3];
  memset(st, 0, sizeof(st));
  runScenes(xmls, pairOf, N, st, NULL);
  for (int k = 0; k < 3; k++) {
    cr_log_info("probed multiccd poses %d: %d scenes, %d same count, %d all within 1e-6 (%d of %d "
                "contacts)", k, st[k].nscene, st[k].countOk, st[k].within, st[k].nconWithin,
                st[k].ncon);
    cr_expect(st[k].countOk == st[k].nscene && st[k].within == st[k].nscene, "kind %d: %d of %d "
              "scenes with the same count, %d within 1e-6 (worst dist %.3g pos %.3g normal %.3g)",
              k, st[k].countOk, st[k].nscene, st[k].within, st[k].worst.dist, st[k].worst.pos,
              st[k].worst.normal);
  }
  for (int i = 0; i < N; i++) {
    free(xmls[i]);
  }
}


// The scene xml (malloc'ed) with 3.14's GJK/EPA run to convergence (as every_convex_pair_against_
// converged_mujoco314): a new string, xml freed.
static char* convergedScene(char* xml) {
  static const char opt[] = " ccd_iterations='1000' ccd_tolerance='1e-14'";
  const char* at = strstr(xml, "<option");
  cr_assert(at, "a scene without <option>");
  size_t head = (size_t)(at - xml) + strlen("<option"), len = strlen(xml);
  char* res = malloc(len + sizeof(opt));
  memcpy(res, xml, head);
  memcpy(res + head, opt, sizeof(opt) - 1);
  memcpy(res + head + sizeof(opt) - 1, xml + head, len - head + 1);
  free(xml);
  return res;
}


// The face scenes of the polytope pairs, 40 a kind, against 3.14 at its defaults or converged;
// the agreement per kind in st.
enum { NFACEKIND = 5 };
static const char* const g_faceKinds[NFACEKIND] = {"box-cube mesh", "box-prism mesh",
                                                   "slab mesh-box", "slab mesh-cube mesh",
                                                   "slab mesh-prism mesh"};

static void runFaceScenes(int converged, PairStats st[NFACEKIND]) {
  TuRng rng = {0xfacef};
  enum { NPER = 40, N = NFACEKIND*NPER };
  // (lower, upper): box-mesh cube, box-prism, slab-box, slab-cube, slab-prism (box-box is SAT's)
  static const int kinds[NFACEKIND][2] = {{0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}};
  char* xmls[N];
  int pairOf[N];
  for (int i = 0; i < N; i++) {
    pairOf[i] = i % NFACEKIND;
    xmls[i] = faceScene(&rng, kinds[pairOf[i]][0], kinds[pairOf[i]][1], "multiccd='enable'");
    if (converged) {
      xmls[i] = convergedScene(xmls[i]);
    }
  }
  memset(st, 0, sizeof(PairStats)*NFACEKIND);
  runScenes(xmls, pairOf, N, st, NULL);
  for (int i = 0; i < N; i++) {
    free(xmls[i]);
  }
}


Test(collision_gjk, multiccd_faces_against_mujoco314, .timeout = 1200) {
  TU_MJS314_REQUIRE();
  PairStats st[NFACEKIND];
  runFaceScenes(0, st);
  // measured: counts differ in 0 or 1 of 40 (a slab-cube pose where 3.14 reports another contact
  // twice; 0 to 3 before session 11's border and face-angle rules and the turned pairs with a
  // margin); besides 4-point reductions, scenes differ beyond 1e-6 where 3.14's EPA stops at its
  // tolerance (single contacts within 5e-7 in depth, 2e-5 in position)
  reportKinds(st, g_faceKinds, NFACEKIND, 1);
}


// The same against 3.14 run to convergence: what is left is which 4 points 3.14 keeps of a longer
// overlap (measured: 40, 39, 39, 40, 35 of 40 scenes within 1e-6, the 7 others 4-point choices
// of a hexagon or a face clipped by the lower face's border)
Test(collision_gjk, multiccd_faces_against_converged_mujoco314, .timeout = 1200) {
  TU_MJS314_REQUIRE();
  PairStats st[NFACEKIND];
  runFaceScenes(1, st);
  reportKinds(st, g_faceKinds, NFACEKIND, 1);
  for (int k = 0; k < NFACEKIND; k++) {
    cr_expect(st[k].countOk == st[k].nscene && st[k].within >= st[k].nscene - 6, "%s: %d same "
              "count, %d within 1e-6 of %d", g_faceKinds[k], st[k].countOk, st[k].within,
              st[k].nscene);
  }
}


// Cylinders face to face with MuJoCo 3.14's multiccd: a box, the slab mesh or a wide standing
// cylinder below (top at z = 0.05), a cylinder (radius 0.08, half height 0.06) above standing
// (up 0) or lying (up 1, its axis along y before the turn), tilted by tilt about the horizontal
// axis at angle ax, turned by yaw, at x, y, its lowest point sunk by sink; margin on the upper
// geom; the z component of its axis in *axisz (NULL: not wanted).
static char* cylSceneAt(int lo, int up, double ax, double tilt, double yaw, double x, double y,
                        double sink, double margin, double* axisz) {
  double qt[4] = {cos(tilt/2), sin(tilt/2)*cos(ax), sin(tilt/2)*sin(ax), 0};
  double qy[4] = {cos(yaw/2), 0, 0, sin(yaw/2)}, ql[4] = {M_SQRT1_2, M_SQRT1_2, 0, 0};
  double q[4], p[4];
  quatMul(qt, qy, p);
  if (up) {
    quatMul(p, ql, q);
  } else {
    memcpy(q, p, sizeof(q));
  }
  const double r = 0.08, h = 0.06, ez[3] = {0, 0, 1};
  double w[3];
  rotateByQuat(q, ez, w);
  double zmin = -(h*fabs(w[2]) + r*sqrt(fmax(0, 1 - w[2]*w[2])));
  if (axisz) {
    *axisz = w[2];
  }
  char* xml = malloc(4096);
  snprintf(xml, 4096, "<mujoco><option><flag multiccd='enable'/></option><asset>%s</asset>"
           "<worldbody>%s<body pos='%.17g %.17g %.17g' "
           "quat='%.17g %.17g %.17g %.17g'><freejoint/><geom type='cylinder' size='%g %g' "
           "margin='%g'/></body></worldbody></mujoco>", g_slab, g_lower[lo], x, y,
           0.05 - zmin - sink, q[0], q[1], q[2], q[3], r, h, margin);
  return xml;
}


// Cylinder poses probed on 3.14 whose overlap has at most 4 points: a lying cylinder level,
// tilted by 2 and 4 degrees along its axis and turned (its side line's two ends, each at its own
// depth, with the box's or slab's face normal), across the face's border (an end and the border
// point; tilted 1 degree down off the box, its inner end not deep enough: the border point twice,
// as 3.14 clips the side line), a standing one over the box's corner (a cap vertex, two border
// points and the corner), and a lying one tilted along its axis by 5.094 and 5.096 degrees, 12 mm
// deep (2 contacts, then 1: the side line counts within an edge's angle, 5.0945 degrees): the
// same counts, within 1e-6 but where 3.14's EPA normal places the side line.
Test(collision_gjk, multiccd_probed_cylinders_against_mujoco314, .timeout = 600) {
  TU_MJS314_REQUIRE();
  static const double pose[][7] = {  // lower, upper, tilt (degrees), yaw (degrees), x, y, sink
    {0, 1, 0, 0, 0, 0, 0.001}, {0, 1, 2, 0, 0.05, 0, 0.004}, {0, 1, 4, 30, 0, 0.1, 0.008},
    {1, 1, 0, 60, 0.1, 0, 0.002}, {1, 1, 2, -20, 0, 0, 0.005}, {0, 1, 0, 0, 0, 0.22, 0.002},
    {1, 1, 1, 90, 0.25, 0, 0.003}, {0, 0, 0, 0, 0.345, 0.295, 0.002},
    {1, 0, 0, 0, -0.345, -0.295, 0.001}, {0, 1, -1, 0, 0, 0.28, 0.002},
    {0, 1, 5.094, 0, 0, 0, 0.012}, {0, 1, 5.096, 0, 0, 0, 0.012}};
  enum { N = sizeof(pose)/sizeof(pose[0]) };
  char* xmls[N];
  int pairOf[N];
  for (int i = 0; i < N; i++) {
    const double* p = pose[i];
    xmls[i] = cylSceneAt((int)p[0], (int)p[1], 0, p[2]*M_PI/180, p[3]*M_PI/180, p[4], p[5], p[6],
                         0, NULL);
    pairOf[i] = 0;
  }
  PairStats st;
  memset(&st, 0, sizeof(st));
  runScenes(xmls, pairOf, N, &st, NULL);
  cr_log_info("probed multiccd cylinder poses: %d scenes, %d same count, %d all within 1e-6 (%d of "
              "%d contacts)", st.nscene, st.countOk, st.within, st.nconWithin, st.ncon);
  // measured: 6 of 12 within 1e-6; the level and tilted lying ones 3.14 places on the side line
  // along its EPA normal, which stops short (3.5e-5 across the line, 8e-9 in depth; 12 mm deep:
  // 1.6e-4 across, its single contact's normal 1.1e-6 off)
  cr_expect(st.countOk == st.nscene && st.within >= 6 && st.worst.dist <= 1e-6 &&
            st.worst.pos <= 2e-4 && st.worst.normal <= 2e-6, "%d of %d scenes with the same "
            "count, %d within 1e-6 (worst dist %.3g pos %.3g normal %.3g)", st.countOk, st.nscene,
            st.within, st.worst.dist, st.worst.pos, st.worst.normal);
  for (int i = 0; i < N; i++) {
    free(xmls[i]);
  }
}


// Edges on faces, probed on 3.14 (multiccd on): pairs of the crowded scenes below. A box's edge
// lies 4.6 degrees off a mesh face that is 8.4 degrees off the single contact's normal (the box's
// nearest face 40 degrees off): the edge clipped on the mesh face, that face's normal, 2
// contacts; a box's face 25 degrees off, a mesh face 0.7 degrees off and the box's edge at its
// deepest corner along the mesh face: 2; a box face along the normal and a mesh face 24 degrees
// off whose edges at its deepest vertex rise by 17 degrees: 1 (the single contact); a cylinder's
// side 4.1 degrees off a box face that is 41 degrees off the normal: the side line clipped on the
// face, 2. And the edges' angle: a cube mesh rolled by 20 degrees about x on a box, its bottom
// edge along x tilted by 5.094 degrees (2 contacts) and 5.096 degrees (1; 3.14 counts an edge
// within 5.0945 degrees, a face within 5.126). The polytope pairs agree to 1e-8; the cylinder's
// line lies where each engine's single contact normal puts it (3.14's EPA stops early on the
// cylinder: 1.3e-4 in depth).
Test(collision_gjk, multiccd_probed_edges_against_mujoco314, .timeout = 600) {
  TU_MJS314_REQUIRE();
  static const struct {
    const char* mesh;               // the cloud mesh's vertices
    const char* geom[2];            // geom attributes
    double pose[2][7];              // body pos, quat
  } pair[] = {
    {"0.012139 -0.036046 0.099380 0.015391 0.022441 0.052769 0.015475 -0.045569 0.068493 "
     "0.012434 0.033933 0.087856 0.024681 0.053789 0.091845 -0.072396 0.031712 -0.051787 "
     "-0.018619 0.034501 0.034159 -0.006803 0.006687 -0.072560 0.038114 -0.020271 0.058203 "
     "-0.060070 0.053888 0.056024 -0.036141 -0.015445 -0.061381 -0.016729 0.019749 -0.032519",
     {"type='box' size='0.1 0.07 0.12'", "type='mesh' mesh='m'"},
     {{0.045626111532708513, 0.036109035127782657, -0.073768055266200977, -0.99682872439149028,
       0.02330064425171895, 0.062072567501432779, -0.044006483264050412},
      {0.11628776273426372, 0.14800045228205316, -0.12386451671465837, 0.19420253268663748,
       -0.53950255571729766, 0.76506872402127701, -0.29307373849776192}}},
    {"0.014524 0.059612 -0.097400 0.029521 -0.056450 -0.022021 0.015689 0.020801 0.019694 "
     "-0.079956 -0.034474 0.025660 0.023432 -0.044079 0.065570 0.000423 0.029195 -0.099775 "
     "-0.068221 -0.056981 -0.023856 0.047794 0.052304 -0.048217 0.028275 -0.048812 0.006170 "
     "-0.021768 -0.056463 0.076821 0.037291 -0.011083 -0.030481 -0.056931 -0.004190 0.055872",
     {"type='box' size='0.1 0.07 0.12'", "type='mesh' mesh='m'"},
     {{-0.16511439018888319, -0.14506329780675781, 0.06027745497813522, -0.82817756170265278,
       -0.20929955381126983, -0.17943085741014431, 0.48797560438582649},
      {-0.17497374819416317, -0.17099071848850406, -0.090059926851233318, -0.61716981597931364,
       0.075670383068682054, -0.71630224311996316, 0.31668045072534595}}},
    {"0.008856 -0.043974 -0.098146 0.009205 -0.024491 -0.021700 0.023700 0.003941 -0.018406 "
     "-0.062167 -0.030836 0.007830 -0.033672 -0.013479 -0.030337 -0.073802 0.050493 0.015586 "
     "0.006565 0.057998 -0.077700 0.045600 -0.046267 0.084280 -0.043103 0.021691 -0.084922 "
     "0.003419 0.025916 -0.068093 0.055662 -0.021843 0.054818 0.042075 -0.034651 -0.029452",
     {"type='box' size='0.1 0.07 0.12'", "type='mesh' mesh='m'"},
     {{-0.14257178022255895, 0.04776111213082937, -0.14709900631724301, 0.5691407809180703,
       0.62836131066921885, -0.51363674898451472, -0.13197774373980356},
      {-0.17330794580816522, 0.11691513454799518, -0.10265676219482496, 0.75498586901198828,
       -0.34108765630009175, -0.51377710472178606, -0.22290947708794751}}},
    {"0 0 0 1 0 0 0 1 0 0 0 1", {"type='cylinder' size='0.09 0.11'",
                                 "type='box' size='0.1 0.07 0.12'"},
     {{0.075468945970133205, 0.010378780828829676, -0.045006569016288106, 0.60739747278087597,
       -0.47561963802110813, -0.35781174893697237, -0.52614163711945494},
      {-0.046355787542763927, -0.16136481985875978, 0.11676975099958259, -0.96112663266256593,
       -0.24937715327055968, -0.11816432335941182, -0.0091555501419237784}}},
    {g_cubeVertices, {"type='box' size='0.3 0.25 0.05'", "type='mesh' mesh='m'"},
     {{0, 0, 0, 1, 0, 0, 0}, {0, 0, 0.1615440462769079, 0.9838348656337986, 0.17347663137292604,
                              0.04376376990479018, -0.007716733411731638}}},
    {g_cubeVertices, {"type='box' size='0.3 0.25 0.05'", "type='mesh' mesh='m'"},
     {{0, 0, 0, 1, 0, 0, 0}, {0, 0, 0.16154712581707567, 0.9838341016620742, 0.1734764966640985,
                              0.04378094105582493, -0.007719761148948885}}}};
  enum { N = sizeof(pair)/sizeof(pair[0]) };
  static const int expect[N] = {2, 2, 1, 2, 2, 1};
  char* xmls[N];
  int pairOf[N];
  for (int i = 0; i < N; i++) {
    const double* a = pair[i].pose[0];
    const double* b = pair[i].pose[1];
    xmls[i] = malloc(4096);
    snprintf(xmls[i], 4096, "<mujoco><asset><mesh name='m' vertex='%s'/></asset><worldbody>"
             "<body pos='%.17g %.17g %.17g' quat='%.17g %.17g %.17g %.17g'><freejoint/><geom %s/>"
             "</body><body pos='%.17g %.17g %.17g' quat='%.17g %.17g %.17g %.17g'><freejoint/>"
             "<geom %s/></body></worldbody></mujoco>", pair[i].mesh, a[0], a[1], a[2], a[3], a[4],
             a[5], a[6], pair[i].geom[0], b[0], b[1], b[2], b[3], b[4], b[5], b[6],
             pair[i].geom[1]);
    pairOf[i] = i;
    expectCount(xmls[i], expect[i], i);
  }
  PairStats st[N];
  memset(st, 0, sizeof(st));
  runScenes(xmls, pairOf, N, st, NULL);
  for (int i = 0; i < N; i++) {
    cr_log_info("probed multiccd edge on face %d: %d contacts, same count %d, worst dist %.2g pos "
                "%.2g normal %.2g", i, st[i].ncon, st[i].countOk, st[i].worst.dist,
                st[i].worst.pos, st[i].worst.normal);
    cr_expect(st[i].countOk == 1, "pair %d: the counts differ", i);
    int cyl = i == 3;
    cr_expect(st[i].worst.dist <= (cyl ? 2e-4 : 1e-8) && st[i].worst.pos <= (cyl ? 1e-3 : 1e-8) &&
              st[i].worst.normal <= 1e-6, "pair %d: dist %.3g pos %.3g normal %.3g off 3.14's",
              i, st[i].worst.dist, st[i].worst.pos, st[i].worst.normal);
    free(xmls[i]);
  }
}


// a cube mesh on the box (lo 0) or the slab mesh (lo 1), turned by th degrees about x and then ph
// about y (one bottom edge nearly along x, its two ends ph apart in depth), its centre at x0 (the
// edge crossing the lower face's border x = 0.3 in some poses), its lowest vertex sunk by sink
static char* cubeEdgeSceneAt(int lo, double th, double ph, double x0, double sink) {
  double qx[4] = {cos(th*M_PI/360), sin(th*M_PI/360), 0, 0};
  double qy[4] = {cos(ph*M_PI/360), 0, sin(ph*M_PI/360), 0}, q[4];
  quatMul(qy, qx, q);
  double v[12][3], zmin = INFINITY;
  int nv = upperVertices(1, v);
  for (int i = 0; i < nv; i++) {
    double r[3];
    rotateByQuat(q, v[i], r);
    zmin = fmin(zmin, r[2]);
  }
  char* xml = malloc(4096);
  snprintf(xml, 4096, "<mujoco><asset>%s%s</asset><worldbody>%s<body pos='%.17g 0 %.17g' "
           "quat='%.17g %.17g %.17g %.17g'><freejoint/><geom type='mesh' mesh='cube'/></body>"
           "</worldbody></mujoco>", g_cube, g_slab,
           g_lower[lo], x0,
           0.05 - zmin - sink, q[0], q[1], q[2], q[3]);
  return xml;
}


// Probed on 3.14 (multiccd on, session 11): (1) a cube mesh's bottom edge entering a box or the
// slab mesh (the cube's face 8 degrees off, so its edge on the lower face) across the lower face's
// border: when its deeper end lies beyond the border the single contact stands (the edge's start
// would be the border point, twice), whether the other end is deep enough or not; when the deeper
// end lies inside, the deeper end and the border point (as before). (2) Face on face needs the
// faces within the angle of each other too: a cube mesh over a box's corner whose single contact
// normal is 4.3 degrees off the box's face and 1.5 degrees off the cube's, the faces 5.7 degrees
// apart: the box's edge on the cube's face, 2 contacts along it with the cube's normal (3 before,
// face on face). (3) When the cube's edge does not enter (its deeper end beyond the border), the
// lower face's edge on the cube's face is tried: the slab mesh's border edge on a cube face 6
// degrees off, within the edges' angle of it, crossing the cube face's border on both sides: its
// two border points (the same point twice in 3.14, as here; before: the cube's edge, 2 other
// points). All within 1e-6 of 3.14 (measured: 1e-9).
Test(collision_gjk, multiccd_probed_borders_against_mujoco314, .timeout = 600) {
  TU_MJS314_REQUIRE();
  static const double pose[][5] = {  // lower, th, ph (degrees), x0, sink
    {0, 8, 1, 0.3, 0.002}, {0, 8, -1, 0.3, 0.002}, {0, 8, 1, 0.25, 0.002},
    {0, 8, -1, 0.25, 0.002}, {0, 8, -1, 0.35, 0.002}, {1, 8, 1, 0.3, 0.002},
    {1, 8, -1, 0.3, 0.002}, {1, 8, 1, 0.25, 0.002}, {1, 7, 2, 0.28, 0.003},
    {1, 9, -2, 0.31, 0.003}};
  static const char* const scene[] = {  // lower geom, then the cube's body pose
    "<geom type='box' size='0.3 0.25 0.05'/><body pos='-0.27335758013801315 0.15180174918347256 "
    "0.15935591182509398' quat='0.96353237922510226 -0.049221586145366689 "
    "0.0063833028213757057 0.26294836581967646'>",
    "<geom type='mesh' mesh='slab'/><body pos='0.10351581584160385 -0.147831539650152 "
    "0.15758284250483959' quat='0.48529872677830049 0.046591572027503483 "
    "-0.026780268064076372 0.87269535832716716'>"};
  enum { NPOSE = sizeof(pose)/sizeof(pose[0]), N = NPOSE + 2 };
  static const int expect[N] = {1, 2, 1, 1, 2, 1, 2, 1, 1, 1, 2, 2};
  char* xmls[N];
  int pairOf[N];
  for (int i = 0; i < NPOSE; i++) {
    xmls[i] = cubeEdgeSceneAt((int)pose[i][0], pose[i][1], pose[i][2], pose[i][3], pose[i][4]);
    pairOf[i] = 0;
  }
  for (int i = NPOSE; i < N; i++) {
    xmls[i] = malloc(4096);
    snprintf(xmls[i], 4096, "<mujoco><asset>%s%s</asset><worldbody>%s<freejoint/><geom "
             "type='mesh' mesh='cube'/></body></worldbody></mujoco>", g_cube, g_slab,
             scene[i - NPOSE]);
    pairOf[i] = 1;
  }
  for (int i = 0; i < N; i++) {
    expectCount(xmls[i], expect[i], i);
  }
  PairStats st[2];
  memset(st, 0, sizeof(st));
  runScenes(xmls, pairOf, N, st, NULL);
  for (int k = 0; k < 2; k++) {
    cr_log_info("probed multiccd %s: %d scenes, %d same count, %d all within 1e-6 (%d of %d "
                "contacts)", k ? "faces apart, edges the other way" : "borders", st[k].nscene, st[k].countOk,
                st[k].within, st[k].nconWithin, st[k].ncon);
    cr_expect(st[k].countOk == st[k].nscene && st[k].within == st[k].nscene, "%d of %d scenes "
              "with the same count, %d within 1e-6 (worst dist %.3g pos %.3g normal %.3g)",
              st[k].countOk, st[k].nscene, st[k].within, st[k].worst.dist, st[k].worst.pos,
              st[k].worst.normal);
  }
  for (int i = 0; i < N; i++) {
    free(xmls[i]);
  }
}


// Margins, probed on 3.14 (multiccd on, session 11): with a margin on the pair 3.14 turns the pair
// by 1e-3 about the four axes and collides each turned pair by GJK/EPA (as for capsules,
// tilt314.c) also for boxes, meshes and cylinders: a cube mesh flat on a box with margin 0.001 gets
// the single contact and four contacts at its face's borders with normals tipped by 1e-3 (3.3.8's
// scheme, used here before: the face's 4 corners with the single normal); a cylinder standing on
// a box, and one on a wide cylinder's cap (a pose of the random scenes below: 5 contacts, 3 by
// 3.3.8's scheme). The same counts and depths; normals within 5e-4, half the tip (measured 2.1e-4:
// on the wide cap 3.14's single normal is tipped by its EPA's early stop); positions anywhere on
// the flat overlap (each engine's EPA puts the single contact and the turned pairs' points
// somewhere on the face or edge: measured 0.071 apart on the cube's 0.2 m edge).
Test(collision_gjk, multiccd_probed_margins_against_mujoco314, .timeout = 600) {
  TU_MJS314_REQUIRE();
  static const char* const body[] = {
    "<geom type='box' size='0.3 0.25 0.05' margin='0.001'/><body pos='0.2 -0.1 0.1495'>"
    "<freejoint/><geom type='mesh' mesh='cube'/></body>",
    "<geom type='box' size='0.3 0.25 0.05' margin='0.001'/><body pos='0.01 0.02 0.159' "
    "quat='0.99 0.003 0.004 0.2'><freejoint/><geom type='cylinder' size='0.08 0.11'/></body>",
    "<geom type='cylinder' size='0.3 0.05'/><body pos='-0.1993332188123392 "
    "-0.096939597783994372 0.11000821617429209' quat='0.9622404813176495 0.0045201821472333342 "
    "-0.0078575255078693687 0.27204978103249278'><freejoint/><geom type='cylinder' "
    "size='0.08 0.06' margin='0.003'/></body>"};
  enum { N = sizeof(body)/sizeof(body[0]) };
  static const int expect[N] = {5, 5, 5};
  char* xmls[N];
  int pairOf[N];
  for (int i = 0; i < N; i++) {
    xmls[i] = malloc(4096);
    snprintf(xmls[i], 4096, "<mujoco><asset>%s</asset><worldbody>%s</worldbody></mujoco>", g_cube,
             body[i]);
    pairOf[i] = 0;
    expectCount(xmls[i], expect[i], i);
  }
  PairStats st;
  memset(&st, 0, sizeof(st));
  runScenes(xmls, pairOf, N, &st, NULL);
  cr_log_info("probed multiccd margins: %d scenes, %d same count, %d all within 1e-6 (%d of %d "
              "contacts), worst dist %.2g pos %.2g normal %.2g", st.nscene, st.countOk, st.within,
              st.nconWithin, st.ncon, st.worst.dist, st.worst.pos, st.worst.normal);
  cr_expect(st.countOk == st.nscene && st.worst.dist <= 1e-6 && st.worst.normal <= 5e-4 &&
            st.worst.pos <= 0.1, "%d of %d scenes with the same count (worst dist %.3g pos "
            "%.3g normal %.3g)", st.countOk, st.nscene, st.worst.dist, st.worst.pos,
            st.worst.normal);
  for (int i = 0; i < N; i++) {
    free(xmls[i]);
  }
}


// Capsule poses probed on 3.14 (multiccd on): a capsule lying on a cube mesh, level and turned a
// little, on a cylinder's cap and across a lying cylinder's side (3 contacts: the single one and
// the two of the pair turned about the contact's second tangent, the other two turns
// duplicates), one deep into a cap with its end (EPA's single contact), one deep into a cube
// mesh's edge, the lying one 1.5 mm above the cube with a margin of 3 mm and the deep one with
// that margin (the same contacts: 3.14 turns the pair with a margin too), and three deep
// capsule-cylinder poses of the crowded scenes below (5, 3 and 3 contacts within 1e-3 of each
// other: each turned pair's GJK/EPA point, kept when it is more than 1e-3 min(rbound) from the
// others; 3.3.8's scheme, which settles each turned pair's point on the features, gave 3, 2 and 1
// there). The same counts; within 1e-6 but where 3.14's EPA stops early (the capsule's end deep
// in the cap: its point 6e-5 off; the deep pairs below).
Test(collision_gjk, multiccd_probed_capsules_against_mujoco314, .timeout = 600) {
  TU_MJS314_REQUIRE();
  static const char* const lower[] = {
    "<geom type='mesh' mesh='cube'/>", "<geom type='cylinder' size='0.2 0.1'/>",
    "<geom type='cylinder' size='0.1 0.2' quat='0.7071068 0.7071068 0 0'/>"};
  static const struct {
    int lower;
    double pos[3], quat[4], margin;
  } pose[] = {
    {0, {0.01, 0.02, 0.128}, {0.7071068, 0, 0.7071068, 0}, 0},
    {0, {0.01, 0.02, 0.128}, {0.7068, 0.01, 0.7071, 0.02}, 0},
    {1, {0.01, 0.02, 0.128}, {0.7071068, 0, 0.7071068, 0}, 0},
    {1, {0.01, 0.02, 0.125}, {0.9, 0.3, 0.2, 0.1}, 0},
    {2, {0.01, 0.02, 0.128}, {0.7071068, 0, 0.7071068, 0}, 0},
    {0, {0.05, 0.02, 0.08}, {0.9, 0.3, 0.2, 0.1}, 0},
    {0, {0.01, 0.02, 0.1315}, {0.7071068, 0, 0.7071068, 0}, 0.003},
    {0, {0.05, 0.02, 0.08}, {0.9, 0.3, 0.2, 0.1}, 0.003}};
  // the crowded scenes' pairs: capsule pose, cylinder pose (pos, quat)
  static const double deep[][14] = {
    {-0.11829997879392987, -0.095572730659836166, -0.041064859306944757, -0.16195111765584644,
     -0.57782800646995114, -0.79472973018762672, -0.091056501057785275, -0.021429887664614705,
     -0.11727522330954566, -0.094765704710265006, 0.96808375056632912, -0.20061945171446255,
     -0.11686815485461839, -0.094379668700917352},
    {0.042796585173808632, 0.096182647603847482, -0.14439210586847798, -0.99687860808897433,
     0.020173345792272965, 0.069555731010858948, 0.031433694305308776, 0.039077556307023614,
     -0.031537457154583864, -0.033978557192051756, 0.92626161858488376, 0.22493128502758122,
     0.30158727342602165, -0.022146048401698471},
    {-0.16873312742271895, 0.011153650113707031, 0.040608865593965676, -0.27747154182468309,
     -0.30766274350073958, -0.67918602586437826, -0.60585437359945138, -0.17099996829732936,
     -0.0018414092755320299, 0.11518846310408021, -0.65812515288389728, -0.15479080965896094,
     0.46162952592028617, -0.57429023079387476}};
  enum { NPOSE = sizeof(pose)/sizeof(pose[0]), NDEEP = sizeof(deep)/sizeof(deep[0]),
         N = NPOSE + NDEEP };
  char* xmls[N];
  int pairOf[N];
  for (int i = 0; i < N; i++) {
    xmls[i] = malloc(4096);
    pairOf[i] = i < NPOSE ? 0 : 1;
    if (i < NPOSE) {
      const double* p = pose[i].pos;
      const double* q = pose[i].quat;
      snprintf(xmls[i], 4096, "<mujoco><asset>%s</asset><worldbody>%s<body pos='%.17g %.17g %.17g'"
               " quat='%.17g %.17g %.17g %.17g'><freejoint/><geom type='capsule' "
               "size='0.03 0.08' margin='%g'/></body></worldbody></mujoco>", g_cube,
               lower[pose[i].lower], p[0], p[1], p[2], q[0], q[1], q[2], q[3], pose[i].margin);
    } else {
      const double* p = deep[i - NPOSE];
      snprintf(xmls[i], 4096, "<mujoco><worldbody><body pos='%.17g %.17g %.17g' "
               "quat='%.17g %.17g %.17g %.17g'><freejoint/><geom type='capsule' size='0.07 0.12'/>"
               "</body><body pos='%.17g %.17g %.17g' quat='%.17g %.17g %.17g %.17g'><freejoint/>"
               "<geom type='cylinder' size='0.09 0.11'/></body></worldbody></mujoco>", p[0], p[1],
               p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13]);
    }
  }
  PairStats st[2];
  memset(st, 0, sizeof(st));
  runScenes(xmls, pairOf, N, st, NULL);
  for (int k = 0; k < 2; k++) {
    cr_log_info("probed multiccd capsule poses%s: %d scenes, %d same count, %d all within 1e-6 "
                "(%d of %d contacts), worst dist %.2g pos %.2g normal %.2g", k ? ", deep" : "",
                st[k].nscene, st[k].countOk, st[k].within, st[k].nconWithin, st[k].ncon,
                st[k].worst.dist, st[k].worst.pos, st[k].worst.normal);
    cr_expect(st[k].countOk == st[k].nscene, "%d of %d scenes with the same count",
              st[k].countOk, st[k].nscene);
  }
  // measured: all 8 shallow poses within 1e-6 but the one deep into the cap (EPA stopped early)
  cr_expect(st[0].within >= st[0].nscene - 1, "%d of %d shallow poses within 1e-6",
            st[0].within, st[0].nscene);
  // deep: 3.14's EPA stopped early (measured: dist 7.7e-7, position 1.3e-4, normal 5e-3 off
  // where its turned pairs' normals spread by 1e-2 against Moduco's 2.6e-3)
  cr_expect(st[1].worst.dist <= 1e-6 && st[1].worst.pos <= 2e-4 && st[1].worst.normal <= 1e-2,
            "deep poses: worst dist %.3g pos %.3g normal %.3g", st[1].worst.dist, st[1].worst.pos,
            st[1].worst.normal);
  for (int i = 0; i < N; i++) {
    free(xmls[i]);
  }
}


// the sine of the edges' angle with a face's plane within which 3.14's multiccd lets an edge enter
// (5.0945 degrees; faces314.c's EDGESIN)
#define CAPEDGESIN 0.088799

// A 3.14 error: geom2's edge entering geom1's cylinder cap. With multiccd (its default) 3.14
// reverses the single contact's normal (exactly: dist and position unchanged, the normal
// negated, so it points from geom2 into geom1) when geom2's edge (a lying cylinder's side line, a
// box's or a mesh's edge) lies within the edges' angle of the cap's plane but not parallel to it,
// without margin, its deeper end on the cap (probed: a lying cylinder tilted 0.001 to 5.02
// degrees, the edge of a box or a cube mesh tilted 0.1 to 3 degrees; level, beyond 5.0945
// degrees, with the edge's deeper end past the cap's rim, or with a margin: not reversed; with
// multiccd disabled never). It is not followed: in 3.14 a lying cylinder tilted 1 degree and a
// box on its edge, dropped 2 mm deep onto the cap, fall through the lower cylinder (its z 0.129
// to -0.88 in 200 steps, contact dist down to -0.12), where with multiccd disabled they rest;
// Moduco keeps the single contact's own normal and they rest (checked here over 200 steps).
Test(collision_gjk, multiccd_cap_edge_reversed_in_mujoco314, .timeout = 600) {
  TU_MJS314_REQUIRE();
  static const double pose[][6] = {  // upper (0 lying cylinder, 1 box, 2 cube mesh), axis and
    {0, 30, 0, 20, 0.05, 0},          // tilt (degrees), yaw (degrees), x, 3.14 reverses
    {0, 30, 0.1, 20, 0.05, 1}, {0, 30, 1, 20, 0.05, 1}, {0, 30, 3, 20, 0.05, 1},
    {0, 30, 5.1, 20, 0.05, 1}, {0, 30, 5.2, 20, 0.05, 0}, {0, 30, 7, 20, 0.05, 0},
    {1, 0, 6, 0, 0.02, 0}, {1, 10, 6, 0, 0.02, 1}, {1, 60, 6, 0, 0.02, 1},
    {1, 45, 9, 0, 0.02, 0}, {2, 10, 6, 0, 0.02, 1}, {2, 10, 6, 0, 0.25, 0}};
  enum { N = sizeof(pose)/sizeof(pose[0]) };
  char* xmls[N];
  int pairOf[N], reversed[N], nreversed = 0;
  for (int i = 0; i < N; i++) {
    const double* p = pose[i];
    const double ax = p[1]*M_PI/180, tilt = p[2]*M_PI/180, yaw = p[3]*M_PI/180;
    xmls[i] = p[0] == 0 ? cylSceneAt(2, 1, ax, tilt, yaw, p[4], 0.02, 0.002, 0, NULL) :
              faceSceneAt(2, (int)p[0] - 1, ax, tilt, yaw, p[4], 0.01, 0.002, 0, "");
    pairOf[i] = 0;
    reversed[i] = p[5] != 0;
    nreversed += reversed[i];
  }
  PairStats st;
  memset(&st, 0, sizeof(st));
  runScenesRev(xmls, pairOf, N, &st, NULL, reversed);
  cr_log_info("cylinder caps with an entering edge: %d scenes, %d reversed in 3.14 of %d expected, "
              "%d same count, %d within 1e-6 after taking back (worst dist %.2g pos %.2g normal "
              "%.2g)", st.nscene, st.reversed, nreversed, st.countOk, st.within, st.worst.dist,
              st.worst.pos, st.worst.normal);
  cr_expect(st.reversed == nreversed && st.countOk == N, "3.14 reversed %d of %d, counts agree "
            "in %d of %d", st.reversed, nreversed, st.countOk, N);
  // the normals taken back agree; measured: the reversed ones to 1e-14 (3.14's EPA on the round
  // rim stops early: their positions 4.5e-5 apart); level edges are line contacts, placed by
  // each engine's EPA (2.2e-3 apart), a cube's corner beyond the rim 1.4e-4 in the normal
  cr_expect(st.worst.normal <= 2e-4 && st.worst.dist <= 1e-6 && st.worst.pos <= 5e-3,
            "worst dist %.3g pos %.3g normal %.3g", st.worst.dist, st.worst.pos, st.worst.normal);
  for (int i = 0; i < N; i++) {
    if (reversed[i]) {              // Moduco's bodies stay on the cap (top at 0.05)
      mcModel* m = load(xmls[i]);
      mcData* d = mc_makeData(m);
      for (int k = 0; k < 200; k++) {
        mc_step(m, d);
      }
      cr_expect(d->qpos[2] > 0.1, "scene %d: the body's centre fell to %g", i, d->qpos[2]);
      mc_deleteData(d);
      mc_deleteModel(m);
    }
    free(xmls[i]);
  }
}


// Cylinder pairs with 3.14's multiccd (on by default there), 40 random scenes per kind (tilt 0 to
// 8 degrees, sunk 0.2 to 5 mm, shifted to overlap the lower face's border in some, margin 0.003
// in 1/4): 3.14 treats a cylinder's cap as a regular 16-gon and its side as the line nearest the
// normal (faces314.c). Which 4 points 3.14 keeps of a 16-gon or a clipped one is not reproduced:
// those scenes agree in count. A lying cylinder on the wide cylinder's cap without margin, its
// axis within the edges' angle (5.0945 degrees) of the cap's plane: 3.14 reverses the single
// contact's normal (a 3.14 error, multiccd_cap_edge_reversed_in_mujoco314), taken back here.
enum { NCYLKIND = 6 };
static const char* const g_cylKinds[NCYLKIND] = {"box-standing cylinder", "box-lying cylinder",
                                                 "slab mesh-standing cylinder",
                                                 "slab mesh-lying cylinder",
                                                 "cylinder-standing cylinder",
                                                 "cylinder-lying cylinder"};

// the cylinder scenes, 40 a kind, against 3.14 at its defaults or converged: the agreement per
// kind in st; expects 3.14's reversed normals where they are predicted
static void runCylinderScenes(int converged, PairStats st[NCYLKIND]) {
  TuRng rng = {0xc71d};
  enum { NPER = 40, N = NCYLKIND*NPER };
  static const int kinds[NCYLKIND][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}};
  char* xmls[N];
  int pairOf[N], reversed[N], nreversed = 0;
  for (int i = 0; i < N; i++) {
    pairOf[i] = i % NCYLKIND;
    double ax = tu_uniform(&rng, 0, 2*M_PI), tilt = tu_uniform(&rng, 0, 8)*M_PI/180;
    double yaw = tu_uniform(&rng, -M_PI, M_PI), sink = tu_uniform(&rng, 2e-4, 5e-3);
    double x = tu_uniform(&rng, -0.3, 0.3), y = tu_uniform(&rng, -0.25, 0.25);
    double margin = tu_uniform(&rng, 0, 1) < 0.25 ? 0.003 : 0;
    if (kinds[pairOf[i]][0] == 2) {                 // on the round cap: within its radius
      x *= 0.8;
      y *= 0.8;
    }
    double axisz;
    xmls[i] = cylSceneAt(kinds[pairOf[i]][0], kinds[pairOf[i]][1], ax, tilt, yaw, x, y, sink,
                         margin, &axisz);
    if (converged) {
      xmls[i] = convergedScene(xmls[i]);
    }
    reversed[i] = pairOf[i] == 5 && margin == 0 && fabs(axisz) <= CAPEDGESIN;
    nreversed += reversed[i];
  }
  memset(st, 0, sizeof(PairStats)*NCYLKIND);
  runScenesRev(xmls, pairOf, N, st, NULL, reversed);
  // measured: 26 scenes of cylinder-lying cylinder, all reversed in 3.14
  cr_expect(st[5].reversed == nreversed, "3.14 reversed the normal in %d of the %d scenes "
            "where it does", st[5].reversed, nreversed);
  for (int i = 0; i < N; i++) {
    free(xmls[i]);
  }
}


Test(collision_gjk, multiccd_cylinders_against_mujoco314, .timeout = 1200) {
  TU_MJS314_REQUIRE();
  PairStats st[NCYLKIND];
  runCylinderScenes(0, st);
  // measured: 36 to 40 of 40 (3.3.8's scheme: 8 to 15; 38 and 39 for the lying kinds before
  // the border points went in twice as in 3.14); the misses: 3.14's single contact (EPA
  // stopped early) stands where Moduco's feature just counts, or the other way round, and with a
  // margin (turned pairs, session 11: slab-standing 38 to 36, three kinds 39 to 40) a turned
  // pair's point on a line contact within 1e-3 rbound of the single contact in one engine only
  // (each engine's EPA puts the single contact elsewhere on the line)
  reportKinds(st, g_cylKinds, NCYLKIND, 0);
}


// The same against 3.14 run to convergence: the lying cylinders agree (measured: 40, 39 of 40
// with one count differing, 40 within 1e-6; the miss a turned pair's point on a line contact), the
// standing ones where the cap's overlap has at most 4 points (29, 27, 30: the others which 4 of the
// 16-gon 3.14 keeps, two slab scenes a turned pair on a line contact)
Test(collision_gjk, multiccd_cylinders_against_converged_mujoco314, .timeout = 1200) {
  TU_MJS314_REQUIRE();
  PairStats st[NCYLKIND];
  runCylinderScenes(1, st);
  reportKinds(st, g_cylKinds, NCYLKIND, 0);
  for (int k = 0; k < NCYLKIND; k++) {
    int lying = k % 2;
    cr_expect(st[k].within >= (lying ? st[k].nscene - 2 : st[k].nscene/2 + 4), "%s: %d same "
              "count, %d within 1e-6 of %d", g_cylKinds[k], st[k].countOk, st[k].within,
              st[k].nscene);
  }
}


// whole scenes: 8 free convex geoms of random types, sizes and poses crowded in a 0.35 m cube
// (many pairs overlapping at once), contacts of all pairs compared as one set; opt: attributes of
// <option>, multi: the multiccd flag; the agreement per type pair of the geom pairs in *ks and
// the log (a pair whose counts differ logged too)
static PairStats runWholeScenes(const char* opt, const char* multi, KindStats* ks) {
  TuRng rng = {0x5ce9e};
  enum { N = 30, NGEOM = 8 };
  char* xmls[N];
  int pairOf[N];
  for (int i = 0; i < N; i++) {
    size_t len = 0, sz = 16384;
    xmls[i] = malloc(sz);
    len += (size_t)snprintf(xmls[i], sz, "<mujoco><option %s><flag nativeccd='enable' "
                            "multiccd='%s'/></option><asset>", opt, multi);
    tu_cloudMesh(xmls[i], sz, &rng, "m", 12, (double[3]){0.08, 0.06, 0.1});
    len = strlen(xmls[i]);
    len += (size_t)snprintf(xmls[i] + len, sz - len, "</asset><worldbody>");
    for (int g = 0; g < NGEOM; g++) {
      int t = (int)tu_uniform(&rng, 0, 6);
      double q[4], p[3];
      tu_randomQuat(&rng, q, 0);
      for (int k = 0; k < 3; k++) {
        p[k] = tu_uniform(&rng, -0.175, 0.175);
      }
      len += (size_t)snprintf(xmls[i] + len, sz - len, "<body pos='%.17g %.17g %.17g' "
                              "quat='%.17g %.17g %.17g %.17g'><freejoint/>", p[0], p[1], p[2],
                              q[0], q[1], q[2], q[3]);
      if (t == 5) {
        len += (size_t)snprintf(xmls[i] + len, sz - len, "<geom type='mesh' mesh='m'/></body>");
      } else {
        len += (size_t)snprintf(xmls[i] + len, sz - len, "<geom type='%s' size='%s'/></body>",
                                g_types[t], g_sizes[t]);
      }
    }
    snprintf(xmls[i] + len, sz - len, "</worldbody></mujoco>");
    pairOf[i] = 0;
  }
  PairStats st;
  memset(&st, 0, sizeof(st));
  memset(ks, 0, sizeof(*ks));
  runScenes(xmls, pairOf, N, &st, ks);
  cr_log_info("whole scenes%s%s, multiccd %s: %d scenes, %d same count, %d all within 1e-6; %d of "
              "%d contacts within 1e-6; worst dist %.2g pos %.2g normal %.2g", *opt ? " with " : "",
              opt, multi, st.nscene, st.countOk, st.within, st.nconWithin, st.ncon, st.worst.dist,
              st.worst.pos, st.worst.normal);
  cr_log_info("  per type pair: geom pairs in contact, same count, contacts within 1e-6 of those");
  for (int a = 0; a < 6; a++) {
    for (int b = a; b < 6; b++) {
      if (ks->npair[a][b]) {
        cr_log_info("  %s-%s: %d, %d, %d of %d", g_types[a], g_types[b], ks->npair[a][b],
                    ks->same[a][b], ks->within[a][b], ks->ncon[a][b]);
      }
    }
  }
  for (int i = 0; i < N; i++) {
    free(xmls[i]);
  }
  return st;
}


Test(collision_gjk, random_scenes_against_mujoco314, .timeout = 1200) {
  TU_MJS314_REQUIRE();
  KindStats ks;
  PairStats st = runWholeScenes("", "disable", &ks);
  cr_expect_eq(st.countOk, st.nscene, "contact counts differ in %d scenes",
               st.nscene - st.countOk);
}


// the same scenes with multiccd (on by default in 3.14): box, mesh and cylinder pairs as 3.14
// (faces314.c), capsule pairs by 3.14's turned pairs on GJK/EPA (tilt314.c): counts agree in 28 of
// 30 scenes (measured; 23 before an edge could meet a face off the single contact's normal, 19
// with capsules by 3.3.8's scheme, 14 with cylinders too), the 2 misses being capsule-cylinder
// pairs (line contacts, where 3.14's EPA puts a turned pair's point elsewhere on the line: kept
// there, a duplicate here)
Test(collision_gjk, random_scenes_multiccd_against_mujoco314, .timeout = 1200) {
  TU_MJS314_REQUIRE();
  KindStats ks;
  PairStats st = runWholeScenes("", "enable", &ks);
  cr_expect(st.countOk >= 27, "contact counts differ in %d scenes",
            st.nscene - st.countOk);
  // capsule pairs (measured: capsule-cylinder 26 of 28 geom pairs, capsule-mesh 8 of 8)
  cr_expect(ks.same[1][3] >= ks.npair[1][3] - 3 && ks.same[1][5] >= ks.npair[1][5] - 1,
            "capsule-cylinder %d of %d, capsule-mesh %d of %d pairs with the same count",
            ks.same[1][3], ks.npair[1][3], ks.same[1][5], ks.npair[1][5]);
}


// the multiccd scenes against 3.14 run to convergence: the counts agree in every scene
// (measured: 30 of 30; the 2 capsule-cylinder line contacts that differ at 3.14's defaults are
// its EPA stopping early)
Test(collision_gjk, random_scenes_multiccd_against_converged_mujoco314, .timeout = 1200) {
  TU_MJS314_REQUIRE();
  KindStats ks;
  PairStats st = runWholeScenes("ccd_iterations='1000' ccd_tolerance='1e-14'", "enable", &ks);
  cr_expect_eq(st.countOk, st.nscene, "contact counts differ in %d scenes",
               st.nscene - st.countOk);
}


// the same scenes with 3.14's GJK/EPA run to convergence (as every_convex_pair_against_converged_
// mujoco314): the same counts, depths within 1e-6 beyond 3.14's own error
Test(collision_gjk, random_scenes_against_converged_mujoco314, .timeout = 1200) {
  TU_MJS314_REQUIRE();
  KindStats ks;
  PairStats st = runWholeScenes("ccd_iterations='1000' ccd_tolerance='1e-14'", "disable", &ks);
  cr_expect(st.countOk == st.nscene && st.distBeyond <= 1e-6, "contact counts differ in %d "
            "scenes, dist %.3g beyond 3.14's error", st.nscene - st.countOk, st.distBeyond);
}
