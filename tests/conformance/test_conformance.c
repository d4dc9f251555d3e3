// Conformance against MuJoCo 2.2.2: forward quantities at random states (1e-9) and 200-step Euler
// and RK4 trajectories (1e-7), on contact-free models loaded from the same MJCF text.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "conformance.h"

#define FORWARD_TOL     1e-9
#define TRAJECTORY_TOL  1e-7
#define NSTATE          10
#define NSTEP           200
#define NTREE_FORWARD   60
#define NTREE_STEP      25

// silence Moduco's warnings in the test log (MuJoCo prints its own)
static void quiet(void* user, const char* message) {
}


// load a named model in both engines or fail the test
static void loadOrFail(ConfPair* p, const char* name) {
  char* xml = conf_modelXml(name);
  cr_assert_not_null(xml, "%s: no model text", name);
  char error[2048] = "";
  int rc = conf_load(p, name, xml, NULL, error, sizeof(error));
  free(xml);
  cr_assert_eq(rc, 0, "%s", error);
  mc_setMessageHandler(quiet, NULL);
}


// forward comparison at several random states; return the number of failing fields
static int forwardModel(const char* name, unsigned long long seed, int same_inertia, char* msg,
                        int msg_sz) {
  ConfPair p;
  loadOrFail(&p, name);
  if (same_inertia) {
    conf_copyInertia(&p);
    snprintf(p.name + strlen(p.name), sizeof(p.name) - strlen(p.name), "/mjinertia");
  }
  ConfRng r;
  conf_seed(&r, seed);
  int fail = 0;
  for (int s = 0; s < NSTATE && !fail; s++) {
    char label[64];
    snprintf(label, sizeof(label), "state %d", s);
    conf_randomState(&p, &r);
    fail += conf_forwardCompare(&p, label, FORWARD_TOL, msg, msg_sz);
  }
  conf_free(&p);
  return fail;
}


// trajectory comparison with one integrator; return the number of failing fields
static int trajectoryModel(const char* name, int mjint, unsigned long long seed, int same_inertia,
                           char* msg, int msg_sz) {
  ConfPair p;
  loadOrFail(&p, name);
  if (same_inertia) {
    conf_copyInertia(&p);
    snprintf(p.name + strlen(p.name), sizeof(p.name) - strlen(p.name), "/mjinertia");
  }
  char error[1024] = "";
  int rc = conf_setIntegrator(&p, mjint, error, sizeof(error));
  if (rc) {
    conf_free(&p);
    cr_assert_fail("%s", error);
  }
  snprintf(p.name + strlen(p.name), sizeof(p.name) - strlen(p.name), "/%s",
           mjint == mjINT_RK4 ? "rk4" : "euler");
  ConfRng r;
  conf_seed(&r, seed);
  conf_randomState(&p, &r);
  int fail = conf_trajectoryCompare(&p, NSTEP, TRAJECTORY_TOL, msg, msg_sz);
  conf_free(&p);
  return fail;
}


// forward and both trajectories of one named model
static void checkModel(const char* name) {
  char msg[4096] = "";
  int fail = forwardModel(name, 1, 0, msg, sizeof(msg));
  cr_expect_eq(fail, 0, "forward mismatch:\n%s", msg);
  msg[0] = 0;
  fail = trajectoryModel(name, mjINT_EULER, 2, 0, msg, sizeof(msg));
  cr_expect_eq(fail, 0, "Euler trajectory mismatch:\n%s", msg);
  msg[0] = 0;
  fail = trajectoryModel(name, mjINT_RK4, 3, 0, msg, sizeof(msg));
  cr_expect_eq(fail, 0, "RK4 trajectory mismatch:\n%s", msg);
}


Test(conformance, pendulum, .timeout = 120) {
  checkModel("pendulum");
}


Test(conformance, double_pendulum, .timeout = 120) {
  checkModel("double_pendulum");
}


Test(conformance, hinge_chain, .timeout = 120) {
  checkModel("hinge_chain");
}


Test(conformance, ball_chain, .timeout = 120) {
  checkModel("ball_chain");
}


Test(conformance, free_bodies, .timeout = 120) {
  checkModel("free_bodies");
}


Test(conformance, slide_springs, .timeout = 120) {
  checkModel("slide_springs");
}


Test(conformance, hinge_springs, .timeout = 120) {
  checkModel("hinge_springs");
}


Test(conformance, actuators, .timeout = 120) {
  checkModel("actuators");
}


Test(conformance, mixed_joints, .timeout = 120) {
  checkModel("mixed_joints");
}


Test(conformance, humanoid, .timeout = 300) {
  checkModel("humanoid");
}


// random trees: forward at random states, all seeds; return a failure report in all
static int treesForward(int same_inertia, char* all, int all_sz) {
  int failed = 0;
  for (int seed = 1; seed <= NTREE_FORWARD; seed++) {
    char name[32], msg[2048] = "";
    snprintf(name, sizeof(name), "tree:%d", seed);
    if (forwardModel(name, 100 + seed, same_inertia, msg, sizeof(msg))) {
      failed++;
      size_t len = strlen(all);
      snprintf(all + len, all_sz - len, "%s\n", msg);
    }
  }
  return failed;
}


// random trees: Euler and RK4 trajectories; return a failure report in all
static int treesTrajectory(int same_inertia, char* all, int all_sz) {
  int failed = 0;
  for (int seed = 1; seed <= NTREE_STEP; seed++) {
    char name[32], msg[2048] = "";
    snprintf(name, sizeof(name), "tree:%d", seed);
    for (int k = 0; k < 2; k++) {
      msg[0] = 0;
      if (trajectoryModel(name, k ? mjINT_RK4 : mjINT_EULER, 200 + seed, same_inertia, msg,
                          sizeof(msg))) {
        failed++;
        size_t len = strlen(all);
        snprintf(all + len, all_sz - len, "%s\n", msg);
      }
    }
  }
  return failed;
}


// rotation matrix of a unit quaternion (w, x, y, z)
static void quatToMat(const double q[4], double R[9]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2*(y*y + z*z); R[1] = 2*(x*y - w*z);     R[2] = 2*(x*z + w*y);
  R[3] = 2*(x*y + w*z);     R[4] = 1 - 2*(x*x + z*z); R[5] = 2*(y*z - w*x);
  R[6] = 2*(x*z - w*y);     R[7] = 2*(y*z + w*x);     R[8] = 1 - 2*(x*x + y*y);
}


// full inertia tensor in the body frame: R diag(I) R'
static void bodyTensor(const double iquat[4], const double inertia[3], double T[9]) {
  double R[9];
  quatToMat(iquat, R);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      T[3*i + j] = 0;
      for (int k = 0; k < 3; k++) {
        T[3*i + j] += R[3*i + k] * inertia[k] * R[3*j + k];
      }
    }
  }
}


// the same MJCF text in both engines: the compiled mass, centre of mass and inertia tensor of
// every body agree. The tensor is compared (not body_iquat/body_inertia) so that a failure points
// at the inertia itself rather than at the axis convention.
#define INERTIA_TOL 1e-9

Test(conformance, random_trees_compiled_inertia, .timeout = 600) {
  int failed = 0;
  char all[8192] = "";
  for (int seed = 1; seed <= NTREE_FORWARD; seed++) {
    char name[32];
    snprintf(name, sizeof(name), "tree:%d", seed);
    ConfPair p;
    loadOrFail(&p, name);
    double worst = 0;
    int worst_body = -1;
    for (int b = 1; b < p.mj->nbody; b++) {
      double Tmj[9], Tmc[9];
      bodyTensor(p.mj->body_iquat + 4*b, p.mj->body_inertia + 3*b, Tmj);
      bodyTensor(p.mc->body_iquat + 4*b, p.mc->body_inertia + 3*b, Tmc);
      double scale = 1e-12;
      for (int k = 0; k < 9; k++) {
        scale = fmax(scale, fabs(Tmj[k]));
      }
      double e = fabs(p.mc->body_mass[b] - p.mj->body_mass[b]) / fmax(1, p.mj->body_mass[b]);
      for (int k = 0; k < 3; k++) {
        e = fmax(e, fabs(p.mc->body_ipos[3*b + k] - p.mj->body_ipos[3*b + k]) /
                    fmax(1, fabs(p.mj->body_ipos[3*b + k])));
      }
      for (int k = 0; k < 9; k++) {
        e = fmax(e, fabs(Tmc[k] - Tmj[k]) / scale);
      }
      if (e > worst) {
        worst = e;
        worst_body = b;
      }
    }
    if (worst > INERTIA_TOL) {
      failed++;
      size_t len = strlen(all);
      snprintf(all + len, sizeof(all) - len, "%s: body %d inertia differs by %.3g\n", name,
               worst_body, worst);
    }
    conf_free(&p);
  }
  cr_expect_eq(failed, 0, "%d of %d random trees differ:\n%s", failed, NTREE_FORWARD, all);
}


// the same MJCF text in both engines: compiler and pipeline together
Test(conformance, random_trees_forward, .timeout = 600) {
  char all[8192] = "";
  int failed = treesForward(0, all, sizeof(all));
  cr_expect_eq(failed, 0, "%d of %d random trees differ:\n%s", failed, NTREE_FORWARD, all);
}


Test(conformance, random_trees_trajectory, .timeout = 600) {
  char all[8192] = "";
  int failed = treesTrajectory(0, all, sizeof(all));
  cr_expect_eq(failed, 0, "%d of %d random-tree trajectories differ:\n%s", failed,
               2 * NTREE_STEP, all);
}
