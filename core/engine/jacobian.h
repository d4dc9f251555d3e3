// Moduco core: internal Jacobian helpers (jacobian.c); the public mc_jac* are in moduco.h.
#ifndef MODUCO_CORE_ENGINE_JACOBIAN_H_
#define MODUCO_CORE_ENGINE_JACOBIAN_H_

#include <moduco/moduco.h>

// Add scl * u' * (Jp(pb on body b) - Jp(pa on body a)) to row (nv), with u a unit direction.
void mc_addJacDifDir(const mcModel* m, const mcData* d, mcNum* row, const mcNum u[3],
                     const mcNum pa[3], int a, const mcNum pb[3], int b, mcNum scl);

#endif  // MODUCO_CORE_ENGINE_JACOBIAN_H_
