// Newton's method for two ellipsoids' penetration (collision-gjk ellipsoids.c, which polishes
// EPA's normal): on spheres (ellipsoids with equal axes) it gives the analytic depth, normal and
// deepest points, and a point (a sphere's core) in a ball; on random overlapping ellipsoids, and a
// point or segment (a capsule's core) against an ellipsoid, no sampled direction overlaps less
// than its depth, and its points and depth agree with the overlap along its normal.
#include <math.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "../../plugins/collision-gjk/ellipsoids.c"

static double uniform(double a, double b) {
  return a + (b - a)*((double)rand() / RAND_MAX);
}


static void randomUnit(double u[3]) {
  double len;
  do {
    for (int k = 0; k < 3; k++) {
      u[k] = uniform(-1, 1);
    }
    len = sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2]);
  } while (len < 0.1 || len > 1);
  for (int k = 0; k < 3; k++) {
    u[k] /= len;
  }
}


// a random rotation (row-major) from a random unit quaternion
static void randomFrame(double mat[9]) {
  double q[4], len = 0;
  for (int k = 0; k < 4; k++) {
    q[k] = uniform(-1, 1);
    len += q[k]*q[k];
  }
  len = sqrt(len);
  for (int k = 0; k < 4; k++) {
    q[k] /= len;
  }
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double m[9] = {1 - 2*(y*y + z*z), 2*(x*y - w*z), 2*(x*z + w*y),
                 2*(x*y + w*z), 1 - 2*(x*x + z*z), 2*(y*z - w*x),
                 2*(x*z - w*y), 2*(y*z + w*x), 1 - 2*(x*x + y*y)};
  for (int k = 0; k < 9; k++) {
    mat[k] = m[k];
  }
}


// n turned away from itself by about angle (radians), unit
static void perturb(double n[3], double angle) {
  double r[3];
  randomUnit(r);
  double len = 0;
  for (int k = 0; k < 3; k++) {
    n[k] += angle*r[k];
    len += n[k]*n[k];
  }
  len = sqrt(len);
  for (int k = 0; k < 3; k++) {
    n[k] /= len;
  }
}


Test(ellipsoid_depth, spheres_analytic) {
  srand(11);
  int nok = 0;
  for (int t = 0; t < 500; t++) {
    double p1[3], p2[3], m1[9], m2[9], u[3];
    double r1 = uniform(0.02, 0.3), r2 = uniform(0.02, 0.3);
    double s1[3] = {r1, r1, r1}, s2[3] = {r2, r2, r2};
    randomFrame(m1);
    randomFrame(m2);
    randomUnit(u);
    double dist = uniform(0.2, 0.95)*(r1 + r2);
    for (int k = 0; k < 3; k++) {
      p1[k] = uniform(-1, 1);
      p2[k] = p1[k] + dist*u[k];
    }
    ellipsoidPose e1 = {p1, m1, s1}, e2 = {p2, m2, s2};
    double n[3] = {u[0], u[1], u[2]}, depth, x1[3], x2[3];
    perturb(n, 0.05);
    if (!ellipsoids_depth(&e1, &e2, n, &depth, x1, x2)) {
      continue;
    }
    nok++;
    double want = r1 + r2 - dist;
    cr_expect(fabs(depth - want) <= 1e-14, "depth %.17g, expected %.17g", depth, want);
    for (int k = 0; k < 3; k++) {
      cr_expect(fabs(n[k] - u[k]) <= 1e-12, "normal[%d] %.17g, expected %.17g", k, n[k], u[k]);
      cr_expect(fabs(x1[k] - (p1[k] + r1*u[k])) <= 1e-13, "x1[%d]", k);
      cr_expect(fabs(x2[k] - (p2[k] - r2*u[k])) <= 1e-13, "x2[%d]", k);
    }
  }
  cr_expect_eq(nok, 500, "Newton converged in only %d of 500 sphere pairs", nok);
}


// Random overlapping pairs of an ellipsoid-like e1 (kind 0 an ellipsoid, 1 a point, 2 a segment:
// a sphere's or capsule's core) and an ellipsoid e2, Newton started from the least overlap of
// 4000 sampled directions: its depth no more than that, the overlap along its normal its depth,
// x1 - x2 = depth n, and no nearby direction overlapping less. Return the overlapping pairs and,
// in *nok, those where Newton converged.
static int leastOverlap(unsigned seed, int kind, int* nok) {
  srand(seed);
  enum { NDIR = 4000 };
  static double dirs[NDIR][3];
  for (int i = 0; i < NDIR; i++) {
    randomUnit(dirs[i]);
  }
  int ntry = 0;
  *nok = 0;
  for (int t = 0; t < 200; t++) {
    double p1[3], p2[3], m1[9], m2[9], u[3], s1[3], s2[3];
    for (int k = 0; k < 3; k++) {
      s1[k] = kind == 0 || (kind == 2 && k == 2) ? uniform(0.03, 0.2) : 0;
      s2[k] = uniform(0.03, 0.2);
    }
    randomFrame(m1);
    randomFrame(m2);
    randomUnit(u);
    double dist = uniform(0.05, 0.25);
    for (int k = 0; k < 3; k++) {
      p1[k] = uniform(-1, 1);
      p2[k] = p1[k] + dist*u[k];
    }
    ellipsoidPose e1 = {p1, m1, s1}, e2 = {p2, m2, s2};
    // the sampled direction of least overlap (a stand-in for EPA's normal)
    double best = INFINITY, n[3] = {0, 0, 0};
    for (int i = 0; i < NDIR; i++) {
      double o = ellipsoids_overlap(&e1, &e2, dirs[i]);
      if (o < best) {
        best = o;
        n[0] = dirs[i][0];
        n[1] = dirs[i][1];
        n[2] = dirs[i][2];
      }
    }
    if (!(best > 0)) {
      continue;                     // apart: no penetration to find
    }
    ntry++;
    double depth, x1[3], x2[3];
    if (!ellipsoids_depth(&e1, &e2, n, &depth, x1, x2)) {
      continue;
    }
    (*nok)++;
    cr_expect(depth <= best + 1e-15, "kind %d: depth %.17g above the sampled least overlap %.17g",
              kind, depth, best);
    double along = ellipsoids_overlap(&e1, &e2, n);
    cr_expect(fabs(along - depth) <= 1e-14, "kind %d: overlap along the normal %.17g, depth "
              "%.17g", kind, along, depth);
    for (int k = 0; k < 3; k++) {
      cr_expect(fabs(x1[k] - x2[k] - depth*n[k]) <= 1e-13, "kind %d: x1 - x2 != depth n (%d)",
                kind, k);
    }
    // a stationary point: nudging the normal raises the overlap
    for (int j = 0; j < 20; j++) {
      double v[3] = {n[0], n[1], n[2]};
      perturb(v, 1e-4);
      cr_expect(ellipsoids_overlap(&e1, &e2, v) >= depth - 1e-15, "kind %d: a nearby direction "
                "overlaps less", kind);
    }
  }
  return ntry;
}


Test(ellipsoid_depth, ellipsoids_least_overlap) {
  int nok, ntry = leastOverlap(12, 0, &nok);
  cr_log_info("ellipsoid pairs: %d overlapping, Newton converged in %d", ntry, nok);
  cr_expect(ntry >= 100 && nok == ntry, "Newton converged in %d of %d overlapping pairs", nok,
            ntry);
}


// a sphere's core (a point) inside a ball: depth r - |c2 - c1|, normal along c2 - c1 (the point
// inside e2 is pushed out through e2's nearest boundary point)
Test(ellipsoid_depth, point_in_ball_analytic) {
  srand(13);
  for (int t = 0; t < 200; t++) {
    double p1[3], p2[3], m1[9], m2[9], u[3], s1[3] = {0, 0, 0};
    double r = uniform(0.05, 0.3);
    double s2[3] = {r, r, r};
    randomFrame(m1);
    randomFrame(m2);
    randomUnit(u);
    double dist = uniform(0.05, 0.9)*r;
    for (int k = 0; k < 3; k++) {
      p1[k] = uniform(-1, 1);
      p2[k] = p1[k] + dist*u[k];
    }
    ellipsoidPose e1 = {p1, m1, s1}, e2 = {p2, m2, s2};
    double n[3] = {u[0], u[1], u[2]}, depth, x1[3], x2[3];
    perturb(n, 0.05);
    cr_assert(ellipsoids_depth(&e1, &e2, n, &depth, x1, x2), "no convergence for a point in a "
              "ball");
    cr_expect(fabs(depth - (r - dist)) <= 1e-14, "depth %.17g, expected %.17g", depth, r - dist);
    for (int k = 0; k < 3; k++) {
      cr_expect(fabs(n[k] - u[k]) <= 1e-12, "normal[%d] %.17g, expected %.17g", k, n[k], u[k]);
      cr_expect(fabs(x1[k] - p1[k]) <= 1e-15, "x1[%d] not the point", k);
      cr_expect(fabs(x2[k] - (p2[k] - r*u[k])) <= 1e-13, "x2[%d]", k);
    }
  }
}


Test(ellipsoid_depth, points_least_overlap) {
  int nok, ntry = leastOverlap(14, 1, &nok);
  cr_log_info("point-ellipsoid pairs: %d overlapping, Newton converged in %d", ntry, nok);
  cr_expect(ntry >= 50 && nok == ntry, "Newton converged in %d of %d overlapping pairs", nok,
            ntry);
}


// a segment's support is not unique where it lies at right angles to the normal, which is where
// the least overlap often lies (a segment inside lengthwise): there Newton gives up (0) and the
// caller runs EPA; where it converges it must be right
Test(ellipsoid_depth, segments_least_overlap) {
  int nok, ntry = leastOverlap(15, 2, &nok);
  cr_log_info("segment-ellipsoid pairs: %d overlapping, Newton converged in %d", ntry, nok);
  cr_expect(ntry >= 50 && nok >= 10, "Newton converged in %d of %d overlapping pairs", nok, ntry);
}
