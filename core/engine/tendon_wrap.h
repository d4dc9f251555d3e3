// Moduco core: spatial tendon geometry (paths through sites, wrapping around spheres and
// cylinders, pulleys) and point Jacobians shared by the tendon and transmission code.
#ifndef MODUCO_CORE_ENGINE_TENDON_WRAP_H_
#define MODUCO_CORE_ENGINE_TENDON_WRAP_H_

#include <moduco/moduco.h>

// Dense 3 x nv Jacobians of a global point attached to body: translational (jacp) and
// rotational (jacr); either may be NULL.
void mc_jacPoint(const mcModel* m, const mcData* d, mcNum* jacp, mcNum* jacr, const mcNum point[3],
                 int body);

// Add scl * u' * (Jp(pb on body b) - Jp(pa on body a)) to row (nv), with u a unit direction.
void mc_addJacDifDir(const mcModel* m, const mcData* d, mcNum* row, const mcNum u[3],
                     const mcNum pa[3], int a, const mcNum pb[3], int b, mcNum scl);

// Shortest path from x0 to x1 around a sphere or cylinder (type mcWRAP_SPHERE or _CYLINDER) of
// the given radius at pose (xpos, xmat); side (nullable) is the global side-site position.
// Return the length of the part on the surface and write the two tangent points (global) to
// wpnt, or return -1 if the straight segment is the path.
mcNum mc_wrap(mcNum wpnt[6], const mcNum x0[3], const mcNum x1[3], const mcNum xpos[3],
              const mcNum xmat[9], mcNum radius, int type, const mcNum* side);

// Length of spatial tendon i; its Jacobian is added to J (nv, zeroed by the caller).
mcNum mc_spatialTendon(const mcModel* m, const mcData* d, int i, mcNum* J);

#endif  // MODUCO_CORE_ENGINE_TENDON_WRAP_H_
