// An ellipsoid on a box face without GJK and EPA (collision-gjk ellipsoid_box.c): where it answers,
// its depth is the least overlap (no sampled direction overlaps less, GJK and EPA run to 1e-15 of
// the size find the same depth, normal and points), its points lie on the two shapes; it answers
// on most ellipsoids resting on a face and declines over an edge or a corner, when apart and
// when the box is passed through.
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>

#include "testutil.h"
#include "../../plugins/collision-gjk/ellipsoid_box.c"
#include "../../plugins/collision-gjk/gjk.c"
#include "../../plugins/collision-gjk/epa.c"

typedef struct {
  double pos[3], mat[9], size[3];
} Body;


static void randomFrame(TuRng* r, double mat[9]) {
  double q[4];
  tu_randomQuat(r, q, 0);
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double m[9] = {1 - 2*(y*y + z*z), 2*(x*y - w*z), 2*(x*z + w*y),
                 2*(x*y + w*z), 1 - 2*(x*x + z*z), 2*(y*z - w*x),
                 2*(x*z - w*y), 2*(y*z + w*x), 1 - 2*(x*x + y*y)};
  memcpy(mat, m, sizeof(m));
}


// world direction u in b's frame
static void local(const Body* b, const double u[3], double l[3]) {
  for (int k = 0; k < 3; k++) {
    l[k] = b->mat[k]*u[0] + b->mat[3 + k]*u[1] + b->mat[6 + k]*u[2];
  }
}


static void world(const Body* b, const double l[3], double x[3]) {
  for (int k = 0; k < 3; k++) {
    x[k] = b->pos[k] + b->mat[3*k]*l[0] + b->mat[3*k + 1]*l[1] + b->mat[3*k + 2]*l[2];
  }
}


static void ellipsoidSupport(const void* obj, const double dir[3], double res[3]) {
  const Body* e = obj;
  double l[3], len = 0;
  local(e, dir, l);
  for (int k = 0; k < 3; k++) {
    len += e->size[k]*e->size[k]*l[k]*l[k];
  }
  len = sqrt(len);
  for (int k = 0; k < 3; k++) {
    l[k] = e->size[k]*e->size[k]*l[k] / len;
  }
  world(e, l, res);
}


static void boxSupport(const void* obj, const double dir[3], double res[3]) {
  const Body* b = obj;
  double l[3];
  local(b, dir, l);
  for (int k = 0; k < 3; k++) {
    l[k] = l[k] > 0 ? b->size[k] : (l[k] < 0 ? -b->size[k] : 0);
  }
  world(b, l, res);
}


// the overlap of e and b along unit u (from e toward b): e's largest projection less b's least
static double overlap(const Body* e, const Body* b, const double u[3]) {
  double pe[3], pb[3], neg[3] = {-u[0], -u[1], -u[2]};
  ellipsoidSupport(e, u, pe);
  boxSupport(b, neg, pb);
  return dot(pe, u) - dot(pb, u);
}


static double dist3(const double a[3], const double b[3]) {
  double d[3];
  sub(a, b, d);
  return sqrt(dot(d, d));
}


static int faceDepth(const Body* e, const Body* b, double* depth, double n[3], double xe[3],
                     double xb[3]) {
  ebPose pe = {e->pos, e->mat, e->size}, pb = {b->pos, b->mat, b->size};
  return ellipsoidBox_faceDepth(&pe, &pb, depth, n, xe, xb);
}


// worst differences from GJK and EPA (depth, normal, points) over the answered poses
typedef struct {
  double depth, normal, point;
} Worst;


// the answer for e on b checked against sampled directions, the shapes and GJK + EPA
static void checkAnswer(TuRng* r, const Body* e, const Body* b, double depth, const double n[3],
                        const double xe[3], const double xb[3], Worst* w) {
  double size = sqrt(dot(e->size, e->size)) + sqrt(dot(b->size, b->size));
  cr_assert(depth > 0 && fabs(dot(n, n) - 1) < 1e-12);
  cr_assert(fabs(overlap(e, b, n) - depth) <= 1e-14*size, "overlap along n %.17g, depth %.17g",
            overlap(e, b, n), depth);
  for (int t = 0; t < 600; t++) {
    double u[3];
    tu_randomUnit(r, u);
    if (t % 2) {
      double a = pow(10, tu_uniform(r, -8, -1));
      for (int k = 0; k < 3; k++) {
        u[k] = n[k] + a*u[k];
      }
      double len = sqrt(dot(u, u));
      for (int k = 0; k < 3; k++) {
        u[k] /= len;
      }
    }
    cr_assert(overlap(e, b, u) >= depth - 1e-14*size, "direction overlapping less: %.17g < %.17g",
              overlap(e, b, u), depth);
  }
  // xe on the ellipsoid, xb on the box's surface, xe - xb = depth n
  double le[3], lb[3], rho = 0, d[3], out = 0;
  Body eo = *e, bo = *b;
  for (int k = 0; k < 3; k++) {
    eo.pos[k] = bo.pos[k] = 0;
    d[k] = xe[k] - e->pos[k];
  }
  local(&eo, d, le);
  for (int k = 0; k < 3; k++) {
    rho += le[k]*le[k] / (e->size[k]*e->size[k]);
    d[k] = xb[k] - b->pos[k];
  }
  local(&bo, d, lb);
  for (int k = 0; k < 3; k++) {
    out = fmax(out, fabs(lb[k]) - b->size[k]);
    d[k] = xe[k] - xb[k] - depth*n[k];
  }
  cr_assert(fabs(rho - 1) < 1e-13 && fabs(out) < 1e-14*size && sqrt(dot(d, d)) < 1e-15,
            "points: rho %.17g, box %.3g, xe - xb - depth n %.3g", rho, out, sqrt(dot(d, d)));

  // GJK and EPA as the plugin runs them
  gjkQuery q = {e, b, ellipsoidSupport, boxSupport, {0}, {0}, 1e-15*size, 250, INFINITY};
  memcpy(q.center1, e->pos, sizeof(q.center1));
  memcpy(q.center2, b->pos, sizeof(q.center2));
  gjkSimplex s;
  double gd, x1[3], x2[3], gn[3], gdepth;
  cr_assert(gjk_distance(&q, &gd, x1, x2, &s) == gjkOVERLAP);
  cr_assert(epa_penetration(&q, &s, &gdepth, gn, x1, x2));
  double pm[3], gm[3];
  for (int k = 0; k < 3; k++) {
    pm[k] = 0.5*(xe[k] + xb[k]);
    gm[k] = 0.5*(x1[k] + x2[k]);
  }
  w->depth = fmax(w->depth, fabs(gdepth - depth) / size);
  w->normal = fmax(w->normal, dist3(gn, n));
  w->point = fmax(w->point, dist3(pm, gm) / size);
}


static void randomBodies(TuRng* r, Body* e, Body* b) {
  for (int k = 0; k < 3; k++) {
    b->size[k] = tu_uniform(r, 0.01, 0.1);
    e->size[k] = tu_uniform(r, 0.01, 0.08);
    b->pos[k] = tu_uniform(r, -1, 1);
  }
  randomFrame(r, b->mat);
  randomFrame(r, e->mat);
}


// e placed so that its deepest point along minus face (i, sign) of b lies at the box-frame point
// whose other coordinates are frac times the face's extent, depth under the face
static void placeOnFace(Body* e, const Body* b, int i, double sign, const double frac[3],
                        double depth) {
  double mw[3], l[3], target[3], off[3], zero[3] = {0, 0, 0};
  for (int k = 0; k < 3; k++) {
    l[k] = k == i ? sign*(b->size[k] - depth) : frac[k]*b->size[k];
    mw[k] = -sign*b->mat[3*k + i];
  }
  world(b, l, target);
  memcpy(e->pos, zero, sizeof(zero));
  ellipsoidSupport(e, mw, off);
  for (int k = 0; k < 3; k++) {
    e->pos[k] = target[k] - off[k];
  }
}


Test(ellipsoid_box, resting_on_a_face_exact) {
  TuRng r = {0x5eed1234abcdULL};
  Worst w = {0};
  int answered = 0, n = 2000;
  for (int t = 0; t < n; t++) {
    Body e, b;
    randomBodies(&r, &e, &b);
    int i = (int)tu_uniform(&r, 0, 3);
    double sign = tu_uniform(&r, -1, 1) < 0 ? -1 : 1, frac[3];
    for (int k = 0; k < 3; k++) {
      frac[k] = tu_uniform(&r, -0.9, 0.9);
    }
    double amin = fmin(e.size[0], fmin(e.size[1], e.size[2]));
    double deep = fmin(amin, b.size[i])*pow(10, tu_uniform(&r, -6, -0.5));
    placeOnFace(&e, &b, i, sign, frac, deep);
    double depth, nn[3], xe[3], xb[3];
    if (faceDepth(&e, &b, &depth, nn, xe, xb)) {
      answered++;
      cr_assert(fabs(depth - deep) <= 1e-12, "depth %.17g placed %.17g", depth, deep);
      checkAnswer(&r, &e, &b, depth, nn, xe, xb, &w);
    }
  }
  cr_log_info("resting: %d of %d answered; worst against EPA: depth %.3g, normal %.3g, point %.3g "
              "(of the size)", answered, n, w.depth, w.normal, w.point);
  cr_expect(answered >= n/2, "only %d of %d resting poses answered", answered, n);
  cr_expect(w.depth <= 1e-13 && w.normal <= 1e-12 && w.point <= 1e-7,
            "against EPA: depth %.3g, normal %.3g, point %.3g", w.depth, w.normal, w.point);
}


// centres anywhere around and inside the box: every answer exact (the bounds never let an edge
// or corner nearer than the face pass)
Test(ellipsoid_box, random_poses_exact) {
  TuRng r = {0xabad1deaULL};
  Worst w = {0};
  int answered = 0, overlapping = 0, n = 20000;
  for (int t = 0; t < n; t++) {
    Body e, b;
    randomBodies(&r, &e, &b);
    double l[3];
    for (int k = 0; k < 3; k++) {
      l[k] = tu_uniform(&r, -1.3, 1.3)*(b.size[k] + e.size[0]);
    }
    world(&b, l, e.pos);
    double depth, nn[3], xe[3], xb[3], u[3];
    sub(b.pos, e.pos, u);
    double gap = INFINITY;
    for (int s = 0; s < 200; s++) {
      tu_randomUnit(&r, u);
      gap = fmin(gap, overlap(&e, &b, u));
    }
    overlapping += gap > 0;
    if (faceDepth(&e, &b, &depth, nn, xe, xb)) {
      answered++;
      checkAnswer(&r, &e, &b, depth, nn, xe, xb, &w);
    }
  }
  cr_log_info("random: %d of %d answered (%d overlapping); worst against EPA: depth %.3g, normal "
              "%.3g, point %.3g (of the size)", answered, n, overlapping, w.depth, w.normal,
              w.point);
  cr_expect(answered >= n/100, "only %d of %d random poses answered", answered, n);
  cr_expect(w.depth <= 1e-13 && w.normal <= 1e-12 && w.point <= 1e-7,
            "against EPA: depth %.3g, normal %.3g, point %.3g", w.depth, w.normal, w.point);
}


// a round ellipsoid over a box's corner or edge, apart from it, or through a thin box: no answer
Test(ellipsoid_box, declines_edges_corners_apart_through) {
  double ident[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  Body b = {{0, 0, 0}, {0}, {0.1, 0.1, 0.1}};
  memcpy(b.mat, ident, sizeof(ident));
  Body e = {{0, 0, 0}, {0}, {0.05, 0.05, 0.04}};
  memcpy(e.mat, ident, sizeof(ident));
  double depth, n[3], xe[3], xb[3];
  const double poses[][3] = {
    {0.13, 0.13, 0.13},           // over a corner, overlapping it
    {0.13, 0.13, 0},              // over an edge
    {0.0, 0.0, 0.15},             // 0.01 above the top face
    {0.099, 0.0, 0.139},          // on the top face but its edge within reach
  };
  for (size_t k = 0; k < sizeof(poses)/sizeof(poses[0]); k++) {
    memcpy(e.pos, poses[k], sizeof(e.pos));
    cr_expect(!faceDepth(&e, &b, &depth, n, xe, xb), "pose %zu answered (depth %g)", k, depth);
  }
  // on the top face, well inside it: answered, normal straight down
  memcpy(e.pos, (double[3]){0.01, -0.02, 0.139}, sizeof(e.pos));
  cr_assert(faceDepth(&e, &b, &depth, n, xe, xb));
  cr_expect(fabs(depth - 0.001) < 1e-15 && n[0] == 0 && n[1] == 0 && n[2] == -1);
  // a thin box passed through (deeper than its thickness)
  Body thin = b;
  thin.size[2] = 0.005;
  memcpy(e.pos, (double[3]){0, 0, 0.02}, sizeof(e.pos));
  cr_expect(!faceDepth(&e, &thin, &depth, n, xe, xb));
}
