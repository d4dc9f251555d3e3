// Collision tests: boxes touching face to face from 5 mm to 1 m (issue 14: two 6x4x6 mm boxes got
// 2 contacts, scaled to 0.18 m with 3 mm overlap 0, where MuJoCo gives 4). The corners of one face
// lie on the edges of the other, where the rounding of the poses decided each strict overlap
// test. Moduco must give the corners of the overlap rectangle, once each, at every size and pose;
// MuJoCo 3.14 (contacts_ref.mjs) must agree on the distance and every position it reports. Both
// run the separating-axis box-box of MuJoCo 3.12+ (Moduco's default, nativeccd on): the corners on
// the mid-plane between the faces, the whole overlap as distance. Until issue 19 this compared
// Moduco's pre-3.12 box-box (nativeccd off, half the overlap as distance) with MuJoCo 3.3.8, which
// repeated or dropped corners in some of these poses; that collider is compared with MuJoCo 2.2.2
// in test_collision_pairs.c and test_collision_boxes.c.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>

#include <moduco/moduco.h>

#include "testutil.h"

#define NWIDTH 7
#define NPOSE  4
#define NSCENE (NWIDTH * NPOSE)

static const double widths[NWIDTH] = {0.005, 0.006, 0.02, 0.06, 0.18, 0.6, 1.0};

// frame of both boxes: position, euler (degrees); in-plane offset of box 2 in units of hx
static const struct {
  double pos[3], euler[3], shift;
} poses[NPOSE] = {
  {{0, 0, 0}, {0, 0, 0}, 0},
  {{0.7, -0.4, 0.9}, {23, -61, 117}, 0},
  {{-1.3, 0.2, 0.5}, {-140, 35, 12}, 0},
  {{0.4, 0.8, -0.6}, {77, 13, -50}, 0.3},
};

// box 1 fixed, box 2 on its +y face (local), overlapping by 5% of hy (3 mm at 0.18 m: 0.05 * 0.06)
static void sceneXml(int w, int p, char* xml, int sz, double* hs, double* overlap) {
  double W = widths[w];
  hs[0] = W / 2;
  hs[1] = W / 3;
  hs[2] = W / 2;
  *overlap = 0.05 * hs[1] * 2 / 2;
  snprintf(xml, (size_t)sz,
           "<mujoco><worldbody><frame pos='%.17g %.17g %.17g' euler='%g %g %g'>"
           "<geom type='box' size='%.17g %.17g %.17g'/>"
           "<body pos='%.17g %.17g 0'><freejoint/><geom type='box' size='%.17g %.17g %.17g'/>"
           "</body></frame></worldbody></mujoco>",
           poses[p].pos[0], poses[p].pos[1], poses[p].pos[2], poses[p].euler[0],
           poses[p].euler[1], poses[p].euler[2], hs[0], hs[1], hs[2],
           poses[p].shift * hs[0], 2 * hs[1] - *overlap, hs[0], hs[1], hs[2]);
}

static double dist3(const double* a, const double* b) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
              (a[2] - b[2]) * (a[2] - b[2]));
}

// distance of x from the segment a-b
static double segDist(const double* x, const double* a, const double* b) {
  double ab[3], ax[3], l2 = 0, t = 0;
  for (int k = 0; k < 3; k++) {
    ab[k] = b[k] - a[k];
    ax[k] = x[k] - a[k];
    l2 += ab[k] * ab[k];
    t += ab[k] * ax[k];
  }
  t = l2 > 0 ? fmin(1, fmax(0, t / l2)) : 0;
  double p[3] = {a[0] + t * ab[0], a[1] + t * ab[1], a[2] + t * ab[2]};
  return dist3(x, p);
}

Test(box_scale, face_to_face_5mm_to_1m) {
  TU_MJS314_REQUIRE();
  static char text[NSCENE][1024];
  const char* xmls[NSCENE];
  double hs[NSCENE][3], ov[NSCENE];
  for (int w = 0; w < NWIDTH; w++) {
    for (int p = 0; p < NPOSE; p++) {
      int i = w * NPOSE + p;
      sceneXml(w, p, text[i], sizeof(text[i]), hs[i], &ov[i]);
      xmls[i] = text[i];
    }
  }
  char err[1024];
  cJSON* out = tu_mjs3Contacts(xmls, NSCENE, err, sizeof(err));
  cr_assert_not_null(out, "%s", err);
  const cJSON* models = cJSON_GetObjectItemCaseSensitive(out, "models");
  int nedge = 0;

  for (int i = 0; i < NSCENE; i++) {
    mcModel* m = mc_loadXMLString(xmls[i], NULL, err, sizeof(err));
    cr_assert_not_null(m, "%s", err);
    mcData* d = mc_makeData(m);
    mc_forward(m, d);
    double W = widths[i / NPOSE], tol = 1e-9 * (1 + W);
    const char* what = xmls[i];

    // the overlap rectangle's corners on the mid-plane, in box 1's frame, then in the world
    double shift = poses[i % NPOSE].shift * hs[i][0];
    double lx[2] = {-hs[i][0] + shift, hs[i][0]}, lz[2] = {-hs[i][2], hs[i][2]};
    double ly = hs[i][1] - ov[i] / 2, corner[4][3];
    const mcNum* P = d->geom_xpos;
    const mcNum* R = d->geom_xmat;
    for (int c = 0; c < 4; c++) {
      double l[3] = {lx[c & 1], ly, lz[c >> 1]};
      for (int k = 0; k < 3; k++) {
        corner[c][k] = P[k] + R[3 * k] * l[0] + R[3 * k + 1] * l[1] + R[3 * k + 2] * l[2];
      }
    }

    // Moduco: the four corners, once each, the whole overlap as distance (the face axis)
    cr_assert_eq(d->ncon, 4, "%d contacts, expected 4: %s", d->ncon, what);
    int seen[4] = {0, 0, 0, 0};
    for (int j = 0; j < d->ncon; j++) {
      int hit = -1;
      for (int c = 0; c < 4; c++) {
        if (dist3(d->contact[j].pos, corner[c]) < tol) {
          hit = c;
        }
      }
      cr_assert(hit >= 0 && !seen[hit], "contact %d at (%g %g %g) is not a new corner: %s", j,
                d->contact[j].pos[0], d->contact[j].pos[1], d->contact[j].pos[2], what);
      seen[hit] = 1;
      cr_assert(fabs(d->contact[j].dist + ov[i]) < tol, "dist %g, expected %g: %s",
                d->contact[j].dist, -ov[i], what);
    }

    // MuJoCo 3.14: the four corners, each once, with the same distance; besides them only points
    // on the rectangle's border (counted: where an incident edge lies on a side plane, rounding
    // can cut it anywhere, which 3.14 does in some poses and Moduco avoids, SAT_SNAP of box_sat.c)
    const cJSON* list = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(models, i),
                                                         "contacts");
    cr_assert(cJSON_IsArray(list), "MuJoCo 3.14 did not load: %s", what);
    int nref = cJSON_GetArraySize(list), rseen[4] = {0, 0, 0, 0};
    for (int j = 0; j < nref; j++) {
      const cJSON* c = cJSON_GetArrayItem(list, j);
      double pos[3], dist = cJSON_GetArrayItem(c, 2)->valuedouble;
      for (int k = 0; k < 3; k++) {
        pos[k] = cJSON_GetArrayItem(c, 3 + k)->valuedouble;
      }
      int hit = -1;
      double border = INFINITY;
      for (int q = 0; q < 4; q++) {
        if (dist3(pos, corner[q]) < tol) {
          hit = q;
        }
        static const int next[4] = {1, 3, 0, 2};  // the rectangle's edges: corner order 0 1 3 2
        border = fmin(border, segDist(pos, corner[q], corner[next[q]]));
      }
      if (hit >= 0) {
        cr_assert(!rseen[hit], "MuJoCo repeats corner %d: %s", hit, what);
        rseen[hit] = 1;
      } else {
        cr_assert(border < tol, "MuJoCo's contact %d at (%g %g %g) is %g off the overlap's border: "
                  "%s", j, pos[0], pos[1], pos[2], border, what);
        nedge++;
      }
      cr_assert(fabs(dist + ov[i]) < tol, "MuJoCo dist %g: %s", dist, what);
    }
    cr_assert(rseen[0] && rseen[1] && rseen[2] && rseen[3], "MuJoCo misses a corner: %s", what);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
  cJSON_Delete(out);
  printf("box scale: %d poses, 4 corners in both; MuJoCo 3.14 adds %d points along an edge\n",
         NSCENE, nedge);
  cr_expect_eq(nedge, 1, "MuJoCo 3.14 adds %d border points (measured: 1, at 0.18 m)", nedge);
}
