// Whole-pipeline conformance against MuJoCo 2.2.2 for each solver and both cones: the same MJCF
// in both engines, the same state (MuJoCo's, after it ran into its contacts), then mc_forward vs
// mj_forward. Contacts and constraint rows must be the same; efc_force and qacc must agree to
// 1e-6 (Newton) and 1e-4 (CG, PGS), relative with scale max(1, |MuJoCo's value|).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "physics.h"

static const double kTol[3] = {1e-4, 1e-4, 1e-6};      // by solver: pgs, cg, newton


// MuJoCo's own spread: its qacc at the current state against its qacc with qvel scaled by
// 1 + 1e-13 (reported with a failure: an unconverged reference moves this much by itself)
static double mujocoSpread(PhysPair* p) {
  const mjModel* m = p->mj;
  mjData* d = mj_makeData(m);
  cr_assert_not_null(d);
  double* qacc = mju_malloc(sizeof(double) * (m->nv + 1));
  mj_copyData(d, m, p->dj);
  mj_forward(m, d);
  memcpy(qacc, d->qacc, sizeof(double) * m->nv);
  mj_copyData(d, m, p->dj);
  for (int i = 0; i < m->nv; i++) {
    d->qvel[i] *= 1 + 1e-13;
  }
  mj_forward(m, d);
  double spread = phys_relerr(d->qacc, qacc, m->nv, NULL);
  mju_free(qacc);
  mj_deleteData(d);
  return spread;
}


// compare one scene at nstate states for every solver and cone
static void forwardScene(const char* name, int nstate) {
  const PhysScene* s = phys_scene(name);
  cr_assert_not_null(s, "unknown scene %s", name);
  phys_quiet();
  for (int solver = mjSOL_NEWTON; solver >= mjSOL_PGS; solver--) {
    for (int cone = mjCONE_PYRAMIDAL; cone <= mjCONE_ELLIPTIC; cone++) {
      // load and select in both
      char error[2048] = "";
      PhysPair p;
      cr_assert_eq(phys_loadScene(&p, s, error, sizeof(error)), 0, "%s", error);
      cr_assert_eq(phys_setSolver(&p, solver, cone, error, sizeof(error)), 0, "%s", error);

      // worst errors over the states
      double wf = 0, wa = 0, ws = 0;
      int maxefc = 0, maxcon = 0;
      for (int k = 0; k < nstate; k++) {
        phys_sceneState(&p, s, k);
        phys_copyState(&p);
        double spread = mujocoSpread(&p);
        ws = fmax(ws, spread);
        mj_forward(p.mj, p.dj);
        mc_forward(p.mc, p.dc);
        PhysErr e;
        char msg[1024] = "";
        int rc = phys_compareForward(&p, &e, msg, sizeof(msg));
        cr_expect_eq(rc, 0, "%s %s state %d: %s", phys_solverName(solver), phys_coneName(cone), k,
                     msg);
        if (rc) {
          continue;
        }
        double tol = kTol[solver];
        const mjData* r = p.dj;
        const mcData* d = p.dc;
        cr_expect(e.force <= tol, "%s %s %s state %d: efc_force[%d] moduco %.17g mujoco %.17g "
                  "(relerr %.3e > %.0e; iter %d vs %d; mujoco self-spread %.1e)", name,
                  phys_solverName(solver), phys_coneName(cone), k, e.force_at,
                  d->efc_force[e.force_at], r->efc_force[e.force_at], e.force, tol,
                  d->solver_iter, r->solver_iter, spread);
        cr_expect(e.qacc <= tol, "%s %s %s state %d: qacc[%d] moduco %.17g mujoco %.17g "
                  "(relerr %.3e > %.0e; iter %d vs %d; mujoco self-spread %.1e)", name,
                  phys_solverName(solver), phys_coneName(cone), k, e.qacc_at,
                  d->qacc[e.qacc_at], r->qacc[e.qacc_at], e.qacc, tol, d->solver_iter,
                  r->solver_iter, spread);
        wf = fmax(wf, e.force);
        wa = fmax(wa, e.qacc);
        maxefc = r->nefc > maxefc ? r->nefc : maxefc;
        maxcon = r->ncon > maxcon ? r->ncon : maxcon;
      }

      // a scene that produced no constraint rows would test nothing
      cr_expect_gt(maxefc, 0, "%s: no constraints in any state", name);
      if (s->contact) {
        cr_expect_gt(maxcon, 0, "%s: no contacts in any state", name);
      }
      fprintf(stderr, "[physics] forward %-16s %-6s %-9s ncon<=%4d nefc<=%5d efc_force %.2e "
              "qacc %.2e (mujoco self-spread %.1e)\n", name, phys_solverName(solver),
              phys_coneName(cone), maxcon, maxefc, wf, wa, ws);
      phys_free(&p);
    }
  }
}


Test(physics_forward, spheres, .timeout = 120) {
  forwardScene("spheres", 5);
}


Test(physics_forward, capsules, .timeout = 120) {
  forwardScene("capsules", 5);
}


Test(physics_forward, boxes_on_plane, .timeout = 120) {
  forwardScene("boxes", 5);
}


Test(physics_forward, sphere_stack, .timeout = 120) {
  forwardScene("sphere_stack", 5);
}


Test(physics_forward, capsule_stack, .timeout = 120) {
  forwardScene("capsule_stack", 5);
}


Test(physics_forward, equality, .timeout = 120) {
  forwardScene("equality", 5);
}


// weld rows scaled by torquescale: the rotational residual must be MuJoCo's too
Test(physics_forward, weld_torquescale, .timeout = 120) {
  forwardScene("weld_torquescale", 5);
}


Test(physics_forward, limits_frictionloss, .timeout = 120) {
  forwardScene("limits", 5);
}


Test(physics_forward, humanoid_falling, .timeout = 120) {
  forwardScene("humanoid", 4);
}


Test(physics_forward, humanoids22_falling, .timeout = 120) {
  forwardScene("22_humanoids", 3);
}
