// The iLQR example (benchmarks/ilqr/ilqr.c) on problems whose answer is known: a point mass in
// the x-z plane without gravity or contacts is linear, its cost quadratic, so iLQR must reach the
// LQR optimum in a couple of iterations; at the returned controls no small perturbation lowers
// the cost (first-order optimality checked by rollouts), and models with quaternions are refused.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <moduco/moduco.h>

#include "../../benchmarks/ilqr/ilqr.h"

static const char kMass[] =
  "<mujoco><option timestep='0.02' gravity='0 0 0'/>"
  "<worldbody><body><joint name='x' type='slide' axis='1 0 0'/>"
  "<joint name='z' type='slide' axis='0 0 1'/><geom type='sphere' size='0.1' mass='2'/>"
  "</body></worldbody><actuator><motor joint='x'/><motor joint='z'/></actuator></mujoco>";

#define T 50

// total cost of controls U from rest, by plain rollout
static double costOf(const mcModel* m, mcData* d, const IlqrProblem* p, const double* U) {
  mc_resetData(m, d);
  double c = 0;
  int nx = 2 * m->nv;
  double x[4];
  for (int t = 0; t <= T; t++) {
    memcpy(x, d->qpos, sizeof(double) * 2);
    memcpy(x + 2, d->qvel, sizeof(double) * 2);
    const double* w = t < T ? p->Q : p->Qf;
    for (int i = 0; i < nx; i++) {
      c += 0.5 * w[i] * (x[i] - p->goal[i]) * (x[i] - p->goal[i]);
    }
    if (t < T) {
      for (int j = 0; j < m->nu; j++) {
        c += 0.5 * p->R[j] * U[t * m->nu + j] * U[t * m->nu + j];
        d->ctrl[j] = U[t * m->nu + j];
      }
      mc_step(m, d);
    }
  }
  return c;
}


Test(ilqr, linear_quadratic_point_mass) {
  char err[512];
  mcModel* m = mc_loadXMLString(kMass, NULL, err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  double goal[4] = {1, -0.5, 0, 0}, Q[4] = {0.01, 0.01, 0.01, 0.01};
  double Qf[4] = {1e4, 1e4, 1e3, 1e3}, R[2] = {0.01, 0.01};
  IlqrProblem p = {.horizon = T, .goal = goal, .Q = Q, .R = R, .Qf = Qf, .maxiter = 50,
                   .tolerance = 1e-9};
  double* U = calloc(2 * T, sizeof(double));
  IlqrResult r;
  cr_assert_eq(ilqr_solve(m, d, &p, U, &r, err, sizeof(err)), 0, "%s", err);
  printf("ilqr point mass: %d iterations, cost %g -> %g, violation %g\n", r.iterations, r.cost0,
         r.cost, r.violation);
  cr_expect(r.converged, "did not converge in %d iterations", r.iterations);
  cr_expect(r.iterations <= 4, "a linear-quadratic problem took %d iterations", r.iterations);
  cr_expect(r.cost < 0.5 * r.cost0, "cost %g from %g", r.cost, r.cost0);
  cr_expect(r.violation < 0.01, "final position %g m from the goal", r.violation);

  // the reported cost is the cost of the returned controls, and no perturbation lowers it
  double c = costOf(m, d, &p, U);
  cr_expect(fabs(c - r.cost) <= 1e-9 * c, "rollout cost %.12g, reported %.12g", c, r.cost);
  unsigned s = 7;
  for (int trial = 0; trial < 20; trial++) {
    double* V = malloc(sizeof(double) * 2 * T);
    for (int i = 0; i < 2 * T; i++) {
      s = s * 1103515245u + 12345u;
      V[i] = U[i] + 1e-3 * ((s >> 8) / 16777216.0 - 0.5);
    }
    double cv = costOf(m, d, &p, V);
    cr_expect(cv >= c - 1e-9 * c, "trial %d: a perturbation lowered the cost %.12g -> %.12g",
              trial, c, cv);
    free(V);
  }
  free(U);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(ilqr, quaternions_refused) {
  char err[512];
  mcModel* m = mc_loadXMLString(
      "<mujoco><worldbody><body><freejoint/><geom size='0.1'/></body></worldbody></mujoco>",
      NULL, err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  double z[13] = {0};
  IlqrProblem p = {.horizon = 3, .goal = z, .Q = z, .R = z, .Qf = z, .maxiter = 2};
  IlqrResult r;
  cr_expect_eq(ilqr_solve(m, d, &p, z, &r, err, sizeof(err)), -1);
  cr_expect(strstr(err, "quaternions"), "message: %s", err);
  mc_deleteData(d);
  mc_deleteModel(m);
}
