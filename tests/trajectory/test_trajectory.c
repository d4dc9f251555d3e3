// 20-step trajectories against MuJoCo 2.2.2 for each solver and both cones: the same MJCF and the
// same start state (MuJoCo's, warmstart included) in both engines, then each engine steps itself;
// qpos and qvel must agree after every step to 1e-5 (relative, scale max(1, |MuJoCo's value|))
// plus ten times MuJoCo's own sensitivity (its trajectory from the start qvel scaled by 1 + 1e-13,
// stepped alongside). The diagnosed differences below are the only cases allowed more.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "physics.h"

#define NSTEP        20
#define TOL          1e-5
#define SENS_FACTOR  10                 // times MuJoCo's own sensitivity
#define SENS_QVEL    1e-13              // relative qvel perturbation measuring it

//---------------------------------- documented exceptions -----------------------------------------

// each limit sits just above the worst relative error of qpos/qvel measured over the steps of the
// case (where the default bound, TOL + 10 x MuJoCo's sensitivity, does not hold)
static const PhysException kExceptions[] = {
  // closed-loop equality scene, CG: 2.2.2's own CG amplifies round-off here (see
  // tests/physics/test_physics_forward.c: scaling its qfrc_smooth by 1 +- 1e-16 moves its qacc by
  // 8.0e-4), and the forward difference grows along the trajectory beyond 10 x MuJoCo's
  // qvel-based sensitivity (start 0 step 10: qvel[15] 0.00932 vs 0.02605, sensitivity 2.3e-4);
  // measured 1.6e-2 to 1.9e-2 over the last code changes (4.9e-3 with the earlier line search:
  // which value comes out depends on the round-off); no contacts, so the cone plays no part
  {"equality", mjSOL_CG, mjCONE_PYRAMIDAL, "traj", 2e-2, "round-off amplified by 2.2.2's own CG "
   "iterations on this scene"},
  {"equality", mjSOL_CG, mjCONE_ELLIPTIC, "traj", 2e-2, "round-off amplified by 2.2.2's own CG "
   "iterations on this scene"},

  // humanoid, elliptic cone, CG: after 2 steps the states differ by 3.6e-14 (qvel), and at step
  // 3 the CG iterates of 2.2.2 itself part by ~30x per iteration (scaling its qfrc_smooth by
  // 1 +- 1e-16 moves its qacc by 6.5e-6, by 1e-14 by 7.5e-5), while its qvel-based sensitivity
  // there is 2.8e-6; with 2.2.2's exact solver inputs at that step Moduco's CG agrees to 8.2e-7.
  // Start 2 step 3: qvel[8] -0.0561995 vs -0.0562477 (4.8e-5); measured 2.4e-4 over all steps
  {"humanoid", mjSOL_CG, mjCONE_ELLIPTIC, "traj", 3e-4, "round-off amplified by 2.2.2's own CG "
   "iterations at start 2 step 3"},
};
static const int kNexception = (int)(sizeof(kExceptions) / sizeof(kExceptions[0]));
static const char* const kChecks[] = {"traj", NULL};


// step one scene from nstart start states with every solver and cone
static void trajectoryScene(const char* name, int nstart) {
  const PhysScene* s = phys_scene(name);
  cr_assert_not_null(s, "unknown scene %s", name);
  phys_quiet();
  for (int solver = mjSOL_NEWTON; solver >= mjSOL_PGS; solver--) {
    for (int cone = mjCONE_PYRAMIDAL; cone <= mjCONE_ELLIPTIC; cone++) {
      char error[2048] = "";
      PhysPair p;
      cr_assert_eq(phys_loadScene(&p, s, error, sizeof(error)), 0, "%s", error);
      cr_assert_eq(phys_setSolver(&p, solver, cone, error, sizeof(error)), 0, "%s", error);
      const mjModel* m = p.mj;
      const char* sn = phys_solverName(solver);
      const char* cn = phys_coneName(cone);
      const char* why;
      double limit = phys_limit(kExceptions, kNexception, name, solver, cone, "traj", -1, &why);
      mjData* dp = mj_makeData(m);
      cr_assert_not_null(dp);
      double worst = 0, wsens = 0;
      int maxcon = 0, maxefc = 0, fits = 1;
      for (int k = 0; k < nstart; k++) {
        phys_sceneState(&p, s, k);
        phys_copyState(&p);

        // MuJoCo again from the start qvel scaled by 1 + SENS_QVEL: its own sensitivity
        mj_copyData(dp, m, p.dj);
        for (int i = 0; i < m->nv; i++) {
          dp->qvel[i] *= 1 + SENS_QVEL;
        }

        // each engine steps itself; stop at the first step out of bounds
        for (int t = 0; t < NSTEP; t++) {
          mj_step(m, p.dj);
          mj_step(m, dp);
          mc_step(p.mc, p.dc);
          maxcon = p.dj->ncon > maxcon ? p.dj->ncon : maxcon;
          maxefc = p.dj->nefc > maxefc ? p.dj->nefc : maxefc;
          int aq, av;
          double eq = phys_relerr(p.dc->qpos, p.dj->qpos, m->nq, &aq);
          double ev = phys_relerr(p.dc->qvel, p.dj->qvel, m->nv, &av);
          double sq = phys_relerr(dp->qpos, p.dj->qpos, m->nq, NULL);
          double sv = phys_relerr(dp->qvel, p.dj->qvel, m->nv, NULL);
          double bq = why ? limit : TOL + SENS_FACTOR * sq;
          double bv = why ? limit : TOL + SENS_FACTOR * sv;
          fits &= eq <= TOL + SENS_FACTOR * sq && ev <= TOL + SENS_FACTOR * sv;
          worst = fmax(worst, fmax(eq, ev));
          wsens = fmax(wsens, fmax(sq, sv));
          cr_expect(eq <= bq, "%s %s %s start %d step %d: qpos[%d] moduco %.17g mujoco %.17g "
                    "(relerr %.3e > bound %.3e = %s; mujoco sensitivity %.3e; ncon %d vs %d)",
                    name, sn, cn, k, t + 1, aq, p.dc->qpos[aq], p.dj->qpos[aq], eq, bq,
                    why ? why : "tol + 10 x sensitivity", sq, p.dc->ncon, p.dj->ncon);
          cr_expect(ev <= bv, "%s %s %s start %d step %d: qvel[%d] moduco %.17g mujoco %.17g "
                    "(relerr %.3e > bound %.3e = %s; mujoco sensitivity %.3e; ncon %d vs %d)",
                    name, sn, cn, k, t + 1, av, p.dc->qvel[av], p.dj->qvel[av], ev, bv,
                    why ? why : "tol + 10 x sensitivity", sv, p.dc->ncon, p.dj->ncon);
          if (eq > bq || ev > bv) {
            break;
          }
        }
      }
      cr_expect_gt(maxefc, 0, "%s: no constraints along the trajectories", name);
      if (s->contact) {
        cr_expect_gt(maxcon, 0, "%s: no contacts along the trajectories", name);
      }
      fprintf(stderr, "[trajectory] %-18s %-6s %-9s %d x %d steps ncon<=%4d nefc<=%5d worst "
              "%.2e%s (mujoco sensitivity %.1e)\n", name, sn, cn, nstart, NSTEP, maxcon, maxefc,
              worst, why ? " [exception]" : "", wsens);
      if (why && fits) {
        fprintf(stderr, "%s %s %s: trajectory exception no longer needed (%.3e)\n", name, sn, cn,
                worst);
      }
      mj_deleteData(dp);
      phys_free(&p);
    }
  }
}


// every exception names a known scene, a limit and a cause
Test(trajectory, exceptions_wellformed) {
  char msg[512] = "";
  cr_expect_eq(phys_checkExceptions(kExceptions, kNexception, kChecks, NULL, msg, sizeof(msg)), 0,
               "%s", msg);
}


Test(trajectory, spheres, .timeout = 120) {
  trajectoryScene("spheres", 3);
}


Test(trajectory, capsules, .timeout = 120) {
  trajectoryScene("capsules", 3);
}


Test(trajectory, boxes_on_plane, .timeout = 120) {
  trajectoryScene("boxes", 3);
}


Test(trajectory, sphere_stack, .timeout = 120) {
  trajectoryScene("sphere_stack", 3);
}


Test(trajectory, capsule_stack, .timeout = 120) {
  trajectoryScene("capsule_stack", 3);
}


Test(trajectory, equality, .timeout = 120) {
  trajectoryScene("equality", 3);
}


// torquescale != 1 is not compared with 2.2.2: Moduco scales the weld's angular residual by it
// (MuJoCo 3.x semantics), 2.2.2 only the Jacobian rows, so the trajectories differ by design
// (tests/physics/test_physics_forward.c checks those rows); with torquescale 1 they must agree
Test(trajectory, weld_torquescale_1, .timeout = 120) {
  trajectoryScene("weld_torquescale_1", 2);
}


Test(trajectory, limits_frictionloss, .timeout = 120) {
  trajectoryScene("limits", 3);
}


Test(trajectory, humanoid_falling, .timeout = 120) {
  trajectoryScene("humanoid", 3);
}


Test(trajectory, humanoids22_falling, .timeout = 120) {
  trajectoryScene("22_humanoids", 2);
}
