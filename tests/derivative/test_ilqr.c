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


// a weak terminal weight leaves the unconstrained optimum far from the goal; the goal constraint
// brings the final position within its tolerance
Test(ilqr, goal_constraint_met) {
  char err[512];
  mcModel* m = mc_loadXMLString(kMass, NULL, err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  double goal[4] = {1, -0.5, 0, 0}, Q[4] = {0.01, 0.01, 0.01, 0.01};
  double Qf[4] = {1, 1, 1, 1}, R[2] = {1, 1};
  double viol[2];
  for (int constrained = 0; constrained < 2; constrained++) {
    IlqrProblem p = {.horizon = T, .goal = goal, .Q = Q, .R = R, .Qf = Qf, .maxiter = 100,
                     .tolerance = 1e-9, .goalTol = constrained ? 1e-4 : 0};
    double* U = calloc(2 * T, sizeof(double));
    IlqrResult r;
    cr_assert_eq(ilqr_solve(m, d, &p, U, &r, err, sizeof(err)), 0, "%s", err);
    printf("ilqr point mass, goal %s: %d iterations, %d multiplier updates, cost %g, "
           "violation %g\n", constrained ? "constrained" : "as cost", r.iterations, r.outer,
           r.cost, r.violation);
    cr_expect(r.converged, "did not converge in %d iterations", r.iterations);
    // the reported cost is the objective alone, that of the returned controls
    double c = costOf(m, d, &p, U);
    cr_expect(fabs(c - r.cost) <= 1e-9 * c, "rollout cost %.12g, reported %.12g", c, r.cost);
    viol[constrained] = r.violation;
    free(U);
  }
  cr_expect_gt(viol[0], 0.1, "the weak terminal weight alone reaches %g m", viol[0]);
  cr_expect_leq(viol[1], 1e-4, "constrained: %g m from the goal", viol[1]);
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


// the Dojo box task (1 m to the right in 1 s, h = 0.1) with contact simulated by ipm at
// kappa_tol 5e-4: implicit gradients at kappa 1e-4 take iLQR to the goal's neighbourhood (finite
// differences of these relaxed steps are printed for comparison; they do as well here)
Test(ilqr, implicit_gradients_move_the_box, .timeout = 120) {
  char err[1024];
  mcModel* m = mc_loadXMLString(
    "<mujoco><option timestep='0.1' cone='elliptic' solver='ipm'/><extension><plugin "
      "plugin='ipm'><config key='kappa_tol' value='5e-4'/></plugin></extension><worldbody>"
      "<geom type='plane' size='5 5 0.1' friction='0.5'/><body pos='0 0 0.1'>"
      "<joint name='x' type='slide' axis='1 0 0'/><joint type='slide' axis='0 0 1'/>"
      "<joint type='hinge' axis='0 1 0'/><geom type='box' size='0.1 0.1 0.1' mass='1' "
      "friction='0.5'/></body></worldbody><actuator><motor joint='x'/></actuator></mujoco>",
      NULL, err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  double goal[6] = {1, 0, 0, 0, 0, 0}, Q[6], Qf[6] = {100, 100, 100, 10, 10, 10}, R[1] = {1e-2};
  for (int i = 0; i < 6; i++) {
    Q[i] = 1e-2;
  }
  double cost[2], viol[2];
  for (int implicit = 0; implicit < 2; implicit++) {
    IlqrProblem p = {.horizon = 10, .goal = goal, .Q = Q, .R = R, .Qf = Qf, .maxiter = 100,
                     .tolerance = 1e-6, .implicit = implicit, .kappa = 1e-4};
    double U[10] = {0};
    IlqrResult r;
    mc_resetData(m, d);
    cr_assert_eq(ilqr_solve(m, d, &p, U, &r, err, sizeof(err)), 0, "%s", err);
    printf("ilqr box right, %s gradients: %d iterations, cost %g -> %g, %.3g m from the goal\n",
           implicit ? "implicit" : "finite-difference", r.iterations, r.cost0, r.cost,
           r.violation);
    cost[implicit] = r.cost / r.cost0;
    viol[implicit] = r.violation;
  }
  cr_expect_lt(cost[1], 0.1, "implicit gradients: cost ratio %g", cost[1]);
  cr_expect_lt(viol[1], 0.1, "implicit gradients: %g m from the goal", viol[1]);
  (void)cost[0];
  (void)viol[0];
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the planar box of benchmarks/ilqr/box_planar.xml resting on the floor (0.1 mm into it, so that
// the contact holds it from the first step), hard contact (ipm at its default tolerance),
// h = 0.1, goal 1 m right or up at the end as a constraint: implicit gradients at kappa 1e-4 reach
// the Table III success threshold (1 cm); finite differences of the hard steps see only static
// friction and a floor that gives no gradient, and are printed for comparison
Test(ilqr, implicit_gradients_reach_box_goals, .timeout = 240) {
  char err[1024];
  mcModel* m = mc_loadXMLString(
    "<mujoco><option timestep='0.1' cone='elliptic' solver='ipm'/><worldbody>"
      "<geom type='plane' size='5 5 0.1' friction='0.5'/><body pos='0 0 0.0999'>"
      "<joint name='x' type='slide' axis='1 0 0'/><joint name='z' type='slide' axis='0 0 1'/>"
      "<joint type='hinge' axis='0 1 0'/><geom type='box' size='0.1 0.1 0.1' mass='1' "
      "friction='0.5'/></body></worldbody><actuator><motor joint='x'/><motor joint='z'/>"
      "</actuator></mujoco>",
      NULL, err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  double Q[6], Qf[6] = {100, 100, 100, 10, 10, 10}, R[2] = {0.1, 0.1};
  for (int i = 0; i < 6; i++) {
    Q[i] = 0.1;
  }
  for (int task = 0; task < 2; task++) {
    double goal[6] = {task == 0, task == 1, 0, 0, 0, 0};
    for (int implicit = 0; implicit < 2; implicit++) {
      IlqrProblem p = {.horizon = 10, .goal = goal, .Q = Q, .R = R, .Qf = Qf, .maxiter = 200,
                       .tolerance = 1e-6, .goalTol = 1e-3, .implicit = implicit,
                       .kappa = 1e-4};
      double U[20] = {0};
      IlqrResult r;
      mc_resetData(m, d);
      cr_assert_eq(ilqr_solve(m, d, &p, U, &r, err, sizeof(err)), 0, "%s", err);
      printf("ilqr box %s, %s gradients: %d iterations, %d multiplier updates, cost %g -> %g, "
             "%.3g m from the goal\n", task ? "up" : "right",
             implicit ? "implicit" : "finite-difference", r.iterations, r.outer, r.cost0, r.cost,
             r.violation);
      if (implicit) {
        cr_expect(r.converged, "box %d: not converged in %d iterations", task, r.iterations);
        cr_expect_leq(r.violation, 1e-2, "box %d: %g m from the goal", task, r.violation);
      }
    }
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}
