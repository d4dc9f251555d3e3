// Moduco core: the solver contract (private to libmoduco and white-box tests).
//
// Constraint assembly (constraint.c) and the smooth dynamics (forward.c) leave efc_J (dense or
// row-sparse), efc_R, efc_D, efc_aref, efc_frictionloss, contact mu/friction/dim, qfrc_smooth,
// qacc_smooth and the factorized M. mc_solverInputs completes what a solver plugin reads (efc_b)
// right before m->solver->solve, for the built-in solvers and third-party ones alike. The
// products with J and efc_AR are the host functions mulJ, mulJT, rowJ and makeAR (docs/plugins.md,
// "The solver contract").
#ifndef MODUCO_CORE_ENGINE_SOLVER_CONTRACT_H_
#define MODUCO_CORE_ENGINE_SOLVER_CONTRACT_H_

#include <moduco/moduco.h>

// efc_b = J qacc_smooth - aref; called by mc_fwdConstraint before the solver of the whole
// problem (an island solve makes its islands' rows itself, on the island's thread).
void mc_solverInputs(const mcModel* m, mcData* d);

// efc_b of n rows: rows[0 .. n-1], or rows 0 .. n-1 when rows is NULL (each row on its own: the
// same bits however the rows are split)
void mc_solverInputRows(const mcModel* m, mcData* d, const int* rows, int n);

// res = J vec (nefc) and res = J' vec (nv), on the dense or the row-sparse efc_J.
void mc_mulJ(const mcModel* m, const mcData* d, mcNum* res, const mcNum* vec);
void mc_mulJT(const mcModel* m, const mcData* d, mcNum* res, const mcNum* vec);

// Row i of efc_J: its number of entries; *colind is NULL when the row is dense (nv entries).
// A row out of range gives 0 and NULL pointers.
int mc_rowJ(const mcModel* m, const mcData* d, int row, const int** colind, const mcNum** val);

// efc_AR = J M^-1 J' + diag(efc_R) in the arena (dense with a dense efc_J, else row-sparse with
// ascending columns); kept until the next assembly, so a second call reuses the storage.
// 0, or -1 with mcWARN_CNSTRFULL when the arena or the stack is full.
int mc_makeAR(const mcModel* m, mcData* d);

#endif  // MODUCO_CORE_ENGINE_SOLVER_CONTRACT_H_
