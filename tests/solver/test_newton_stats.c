// Newton's per-iteration statistics (plugins/solver-common/solver_primal.c): the Hessian is
// updated or refactored only for an iteration that goes on, so the last iteration of a solve
// reports no Cholesky work (nupdate 0) and every earlier one reports some, whether the solve
// stops on convergence or on the iteration cap.
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>
#include "capsule_pile.h"

#define NBODY 5
#define NSTEP 300

// hinged capsule pairs dropped onto a floor and onto each other (contacts come and go, so solves
// take several iterations), dense or row-sparse Jacobian, pyramidal or elliptic cones
static mcModel* loadScene(const char* jacobian, const char* cone, int iterations) {
  char option[256];
  snprintf(option, sizeof(option), "timestep=\"0.005\" solver=\"newton\" jacobian=\"%s\" "
           "cone=\"%s\" iterations=\"%d\"", jacobian, cone, iterations);
  return capsulePile(option, NBODY, 0);
}


static void checkStats(const char* jacobian, const char* cone) {
  mcModel* m = loadScene(jacobian, cone, 100);
  mcData* d = mc_makeData(m);
  int multi = 0, solves = 0;
  for (int k = 0; k < NSTEP; k++) {
    mc_step(m, d);
    int iter = d->solver_iter;
    if (d->nefc == 0 || iter == 0) {
      continue;
    }
    solves++;
    cr_assert(iter <= mcNSOLVER, "%s %s step %d: %d iterations", jacobian, cone, k, iter);
    cr_expect_eq(d->solver[iter - 1].nupdate, 0,
                 "%s %s step %d: the last of %d iterations reports %d Hessian updates", jacobian,
                 cone, k, iter, d->solver[iter - 1].nupdate);
    for (int t = 0; t + 1 < iter; t++) {
      cr_expect_gt(d->solver[t].nupdate, 0, "%s %s step %d: iteration %d of %d reports none",
                   jacobian, cone, k, t, iter);
    }
    multi += iter > 1;
  }
  cr_assert_gt(solves, NSTEP / 2, "%s %s: only %d solves with constraints", jacobian, cone,
               solves);
  cr_assert_gt(multi, 10, "%s %s: only %d solves took more than one iteration", jacobian, cone,
               multi);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(newton_stats, last_iteration_no_update_dense_pyramidal) {
  checkStats("dense", "pyramidal");
}


Test(newton_stats, last_iteration_no_update_sparse_pyramidal) {
  checkStats("sparse", "pyramidal");
}


Test(newton_stats, last_iteration_no_update_dense_elliptic) {
  checkStats("dense", "elliptic");
}


Test(newton_stats, last_iteration_no_update_sparse_elliptic) {
  checkStats("sparse", "elliptic");
}


// solves stopped by the iteration cap (2): no Hessian work in the last iteration either, and the
// accelerations stay finite
Test(newton_stats, capped_solve_last_iteration_no_update) {
  mcModel* m = loadScene("dense", "pyramidal", 2);
  mcData* d = mc_makeData(m);
  int capped = 0;
  for (int k = 0; k < NSTEP; k++) {
    mc_step(m, d);
    if (d->nefc == 0 || d->solver_iter == 0) {
      continue;
    }
    cr_assert_leq(d->solver_iter, 2, "step %d", k);
    cr_expect_eq(d->solver[d->solver_iter - 1].nupdate, 0, "step %d", k);
    capped += d->solver_iter == 2;
    for (int i = 0; i < m->nv; i++) {
      cr_assert(d->qacc[i] == d->qacc[i], "step %d: qacc[%d] NaN", k, i);
    }
  }
  cr_assert_gt(capped, 0, "no solve reached the cap of 2");
  mc_deleteData(d);
  mc_deleteModel(m);
}
