// The constraint force of the primal solvers (plugins/solver-common/solver_primal.c):
// qfrc_constraint is J' efc_force of the final forces, taken from the last gradient of the solve
// instead of a product of its own. It must be bitwise the product row by row (rows in order,
// each adding f_i J_i), for Newton and CG, dense and row-sparse Jacobians, pyramidal and
// elliptic cones, at every step of a pile whose contacts come and go.
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>
#include "capsule_pile.h"

#define NBODY 5
#define NSTEP 250
#define NVMAX 64

// J' f row by row in row order (what the core's product forms)
static void jtf(const mcModel* m, const mcData* d, mcNum* res) {
  int nv = m->nv;
  memset(res, 0, sizeof(mcNum) * (size_t)nv);
  for (int i = 0; i < d->nefc; i++) {
    mcNum f = d->efc_force[i];
    if (f == 0) {
      continue;
    }
    if (d->efc_J_rownnz) {
      const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
      const mcNum* val = d->efc_J_val + d->efc_J_rowadr[i];
      for (int k = 0; k < d->efc_J_rownnz[i]; k++) {
        res[col[k]] += f * val[k];
      }
    } else {
      for (int j = 0; j < nv; j++) {
        res[j] += f * d->efc_J[(size_t)i * nv + j];
      }
    }
  }
}


static void checkForce(const char* solver, const char* jacobian, const char* cone) {
  char option[256];
  snprintf(option, sizeof(option), "timestep=\"0.005\" solver=\"%s\" jacobian=\"%s\" cone=\"%s\"",
           solver, jacobian, cone);
  mcModel* m = capsulePile(option, NBODY, 0);
  cr_assert_leq(m->nv, NVMAX);
  mcData* d = mc_makeData(m);
  int forced = 0;
  for (int k = 0; k < NSTEP; k++) {
    mc_step(m, d);
    mcNum ref[NVMAX];
    jtf(m, d, ref);
    for (int j = 0; j < m->nv; j++) {
      cr_expect(memcmp(ref + j, d->qfrc_constraint + j, sizeof(mcNum)) == 0,
                "%s %s %s step %d dof %d: qfrc_constraint %.17g, J' f %.17g", solver, jacobian,
                cone, k, j, d->qfrc_constraint[j], ref[j]);
    }
    forced += d->nefc > 0 && d->solver_iter > 0;
  }
  cr_assert_gt(forced, NSTEP / 2, "%s %s %s: only %d steps with a solve", solver, jacobian, cone,
               forced);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(newton_force, newton_dense_pyramidal) {
  checkForce("newton", "dense", "pyramidal");
}


Test(newton_force, newton_sparse_pyramidal) {
  checkForce("newton", "sparse", "pyramidal");
}


Test(newton_force, newton_dense_elliptic) {
  checkForce("newton", "dense", "elliptic");
}


Test(newton_force, newton_sparse_elliptic) {
  checkForce("newton", "sparse", "elliptic");
}


Test(newton_force, cg_dense_pyramidal) {
  checkForce("CG", "dense", "pyramidal");
}


Test(newton_force, cg_sparse_elliptic) {
  checkForce("CG", "sparse", "elliptic");
}
