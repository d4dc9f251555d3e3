// Moduco core: spatial tendon geometry (paths through sites, wrapping around spheres and
// cylinders, pulleys).
#ifndef MODUCO_CORE_ENGINE_TENDON_WRAP_H_
#define MODUCO_CORE_ENGINE_TENDON_WRAP_H_

#include <moduco/moduco.h>

#include "engine/jacobian.h"

// Shortest path from x0 to x1 around a sphere or cylinder (type mcWRAP_SPHERE or _CYLINDER) of
// the given radius at pose (xpos, xmat); side (nullable) is the global side-site position.
// Return the length of the part on the surface and write the two tangent points (global) to
// wpnt, or return -1 if the straight segment is the path.
mcNum mc_wrap(mcNum wpnt[6], const mcNum x0[3], const mcNum x1[3], const mcNum xpos[3],
              const mcNum xmat[9], mcNum radius, int type, const mcNum* side);

// Length of spatial tendon i; its Jacobian is added to J (nv, zeroed by the caller).
mcNum mc_spatialTendon(const mcModel* m, const mcData* d, int i, mcNum* J);

#endif  // MODUCO_CORE_ENGINE_TENDON_WRAP_H_
