// Moduco core: internal Jacobian helpers (jacobian.c); the public mc_jac* are in moduco.h.
#ifndef MODUCO_CORE_ENGINE_JACOBIAN_H_
#define MODUCO_CORE_ENGINE_JACOBIAN_H_

#include <moduco/moduco.h>

// Add scl * u' * (Jp(pb on body b) - Jp(pa on body a)) to row (nv), with u a unit direction.
void mc_addJacDifDir(const mcModel* m, const mcData* d, mcNum* row, const mcNum u[3],
                     const mcNum pa[3], int a, const mcNum pb[3], int b, mcNum scl);

// Motion of a point p fixed to body b at the current qvel: velocity vel = Jp qvel, the body's
// angular velocity angvel = Jr qvel, and the velocity-product accelerations acc = (dJp/dt) qvel
// and angacc = (dJr/dt) qvel (the accelerations at zero qacc). Needs cdof_dot (mc_comVel).
typedef struct {
  mcNum vel[3];
  mcNum acc[3];
  mcNum angvel[3];
  mcNum angacc[3];
} mcPointMotion;
void mc_pointMotion(const mcModel* m, const mcData* d, const mcNum p[3], int b, mcPointMotion* pm);

#endif  // MODUCO_CORE_ENGINE_JACOBIAN_H_
