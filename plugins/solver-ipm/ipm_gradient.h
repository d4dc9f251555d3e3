// Moduco plugin "ipm": implicit derivative of the solution (ipm_gradient.c).
#ifndef MODUCO_PLUGINS_SOLVER_IPM_IPM_GRADIENT_H_
#define MODUCO_PLUGINS_SOLVER_IPM_IPM_GRADIENT_H_

#include <moduco/mcplugin.h>

#include "ipm.h"

// The solver descriptor's 'derivative' entry (ABI 1.5; contract in mcplugin.h).
int ipm_derivative(const mcpHost* host, const mcModel* m, mcData* d, mcNum smoothing,
                   mcNum* frc, mcNum* dfrc, mcNum* dvel);

// The instance's parameters (ipm.c), as the solver reads them.
void ipm_params(const mcpHost* host, const mcModel* m, mcData* d, int maxiter, ipmParam* prm);

#endif  // MODUCO_PLUGINS_SOLVER_IPM_IPM_GRADIENT_H_
