// Moduco tests: small reference routines shared by several suites (linked into every test).
#ifndef MODUCO_TESTS_TESTUTIL_H_
#define MODUCO_TESTS_TESTUTIL_H_

// Dense Gaussian elimination with partial pivoting: solve A x = b for an n x n row-major A.
// A and b are overwritten; x may alias b. An independent reference for the engine's sparse
// factorisations, deliberately naive.
void tu_denseSolve(int n, double* A, double* b, double* x);

#endif  // MODUCO_TESTS_TESTUTIL_H_
