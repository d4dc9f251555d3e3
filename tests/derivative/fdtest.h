// Helpers of the derivative tests: models loaded in both engines, states, matrix errors.
#ifndef MODUCO_TESTS_DERIVATIVE_FDTEST_H_
#define MODUCO_TESTS_DERIVATIVE_FDTEST_H_

#include "conformance.h"

// Message handler that drops Moduco's messages (the tests check return values instead).
void fd_quiet(void* user, const char* message);

// MJCF text of a file below the source tree (caller frees); NULL if unreadable.
char* fd_readSource(const char* relpath);

// Load MJCF text in both engines; 0 or -1 with a message in error.
int fd_load(ConfPair* p, const char* name, const char* xml, char* error, int error_sz);

// Controls of both engines: uniform inside the middle 80% of each range ([-1, 1] if unlimited).
void fd_insideCtrl(ConfPair* p, ConfRng* r);

// Copy MuJoCo's time, qpos, qvel, act, ctrl, qacc_warmstart and qfrc_applied into Moduco.
void fd_syncState(ConfPair* p);

// Largest |x_i| of n numbers.
double fd_maxAbs(const double* x, int n);

// Worst entry error of got against ref (n numbers), relative to ref's largest entry (or absolute
// if ref is all zero): max |got - ref| / max(max |ref|, 1e-300).
double fd_matErr(const double* got, const double* ref, int n);

// Transition matrices of one engine, sized for its model.
typedef struct {
  int ndx, nu, ns;
  double *A, *B, *C, *D;
} FdMats;

void fd_alloc(FdMats* f, int nv, int na, int nu, int ns);
void fd_free(FdMats* f);

#endif  // MODUCO_TESTS_DERIVATIVE_FDTEST_H_
