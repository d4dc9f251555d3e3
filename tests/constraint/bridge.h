// Test bridge: build a Moduco model and data from MuJoCo 2.2.2's, so constraint assembly and
// the solvers can be checked against MuJoCo on exactly the same positions, velocities,
// inertia and contacts (independent of the rest of the Moduco pipeline).
#ifndef MODUCO_TESTS_CONSTRAINT_BRIDGE_H_
#define MODUCO_TESTS_CONSTRAINT_BRIDGE_H_

#include <mujoco/mujoco.h>
#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

typedef struct {
  mjModel* mj;
  mjData* dj;
  mcModel* mc;
  mcData* dc;
} Bridge;

// Load MJCF text in MuJoCo (dense Jacobian forced) and make the matching Moduco model. Return 0,
// or -1 with a message in error.
int bridge_load(Bridge* b, const char* xml, char* error, int error_sz);

// Load an MJCF file.
int bridge_loadFile(Bridge* b, const char* file, char* error, int error_sz);

// Copy the options that matter to the solvers from mj into mc (after the test changed them).
void bridge_syncOptions(Bridge* b);

// Run mj_forward, copy everything up to qacc_smooth and the contacts into Moduco's data, then
// run mc_makeConstraint.
void bridge_forward(Bridge* b);

// Run a solver plugin (descriptor from the built .so) on the Moduco side.
void bridge_solve(Bridge* b, const mcpSolver* solver);

// Solver / postsolver descriptors loaded from the build tree (NULL if missing).
const mcpSolver* bridge_solver(const char* name);
const mcpPostsolver* bridge_postsolver(const char* name);

// The host table used by the tests (stack, mulM, solveM from the core).
const mcpHost* bridge_host(void);

// Max relative error |a-b| / max(1, |b|).
double bridge_err(const double* a, const double* b, int n, int* where);

void bridge_free(Bridge* b);

#endif  // MODUCO_TESTS_CONSTRAINT_BRIDGE_H_
