// Moduco viewer: choosing the solver or integrator while the simulation runs.
#ifndef MODUCO_SDK_VIEWER_SWAP_H_
#define MODUCO_SDK_VIEWER_SWAP_H_

#include <stddef.h>

#include <moduco/moduco.h>

// Replace the solver (integrator 0) or the integrator (1) of m by the loaded plugin called
// name, keeping the simulation state of *d (time, qpos, qvel, act, ctrl, applied forces,
// eq_active; not the warm start nor plugin state): *d is replaced by new data made for the new
// model. Return 0, or -1 with the reason in err (m and *d unchanged but when out of memory).
int mcv_swapPlugin(mcModel* m, mcData** d, int integrator, const char* name, char* err,
                   size_t errsz);

// The A/B mode's copy B: *mb a copy of m (same solver and integrator), *db a copy of d (so,
// with the same plugins, B steps exactly as A). Return 0, or -1 with the reason in err (*mb, *db NULL).
int mcv_startCopy(const mcModel* m, const mcData* d, mcModel** mb, mcData** db, char* err,
                  size_t errsz);

// Name of the model's solver / integrator plugin ("none" if none).
const char* mcv_solverName(const mcModel* m);
const char* mcv_integratorName(const mcModel* m);

// A JSON array of the names of the loaded plugins of kind ("solver", "integrator") into buf.
void mcv_pluginList(const char* kind, char* buf, size_t bufsz);

#endif  // MODUCO_SDK_VIEWER_SWAP_H_
