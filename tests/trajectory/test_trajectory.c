// 20-step trajectories against MuJoCo 2.2.2 for each solver and both cones: the same MJCF and the
// same start state (MuJoCo's, warmstart included) in both engines, then each engine steps itself;
// qpos and qvel must agree to 1e-5 after every step (relative, scale max(1, |MuJoCo's value|)).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "physics.h"

#define NSTEP  20
#define TOL    1e-5


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
      double worst = 0;
      int maxcon = 0, maxefc = 0;
      for (int k = 0; k < nstart; k++) {
        phys_sceneState(&p, s, k);
        phys_copyState(&p);

        // each engine steps itself; stop at the first step out of tolerance
        for (int t = 0; t < NSTEP; t++) {
          mj_step(p.mj, p.dj);
          mc_step(p.mc, p.dc);
          maxcon = p.dj->ncon > maxcon ? p.dj->ncon : maxcon;
          maxefc = p.dj->nefc > maxefc ? p.dj->nefc : maxefc;
          int aq, av;
          double eq = phys_relerr(p.dc->qpos, p.dj->qpos, p.mj->nq, &aq);
          double ev = phys_relerr(p.dc->qvel, p.dj->qvel, p.mj->nv, &av);
          worst = fmax(worst, fmax(eq, ev));
          cr_expect(eq <= TOL, "%s %s %s start %d step %d: qpos[%d] moduco %.17g mujoco %.17g "
                    "(relerr %.3e; ncon %d vs %d)", name, phys_solverName(solver),
                    phys_coneName(cone), k, t + 1, aq, p.dc->qpos[aq], p.dj->qpos[aq], eq,
                    p.dc->ncon, p.dj->ncon);
          cr_expect(ev <= TOL, "%s %s %s start %d step %d: qvel[%d] moduco %.17g mujoco %.17g "
                    "(relerr %.3e; ncon %d vs %d)", name, phys_solverName(solver),
                    phys_coneName(cone), k, t + 1, av, p.dc->qvel[av], p.dj->qvel[av], ev,
                    p.dc->ncon, p.dj->ncon);
          if (eq > TOL || ev > TOL) {
            break;
          }
        }
      }
      cr_expect_gt(maxefc, 0, "%s: no constraints along the trajectories", name);
      if (s->contact) {
        cr_expect_gt(maxcon, 0, "%s: no contacts along the trajectories", name);
      }
      fprintf(stderr, "[trajectory] %-16s %-6s %-9s %d x %d steps ncon<=%4d nefc<=%5d worst "
              "%.2e\n", name, phys_solverName(solver), phys_coneName(cone), nstart, NSTEP, maxcon,
              maxefc, worst);
      phys_free(&p);
    }
  }
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


Test(trajectory, weld_torquescale, .timeout = 120) {
  trajectoryScene("weld_torquescale", 2);
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
