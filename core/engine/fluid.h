// Moduco core: fluid forces, the inertia-box and ellipsoid models (private to libmoduco; the
// compiler uses the semi-axes and added-mass helpers).
#ifndef MODUCO_CORE_ENGINE_FLUID_H_
#define MODUCO_CORE_ENGINE_FLUID_H_

#include <moduco/moduco.h>

// Semi-axes of the ellipsoid that stands for a geom in the ellipsoid fluid model.
void mc_fluidSemiAxes(int type, const mcNum size[3], mcNum r[3]);

// Added (virtual) mass and inertia per unit fluid density of an ellipsoid with semi-axes r:
// out[0..2] the masses, out[3..5] the moments of inertia (the geom_fluid[6..11] layout).
void mc_fluidAddedMass(const mcNum r[3], mcNum out[6]);

// Whether the model has fluid forces (density or viscosity positive). They read every body's
// velocity (cvel), so they run on the whole model after all of it is made.
static inline int mc_fluidOn(const mcModel* m) {
  return m->opt.density > 0 || m->opt.viscosity > 0;
}

// Add the fluid forces of all bodies to qfrc (nothing unless density or viscosity is positive).
void mc_fluid(const mcModel* m, mcData* d, mcNum* qfrc);

#endif  // MODUCO_CORE_ENGINE_FLUID_H_
