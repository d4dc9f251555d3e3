// MJCF text of the tendon, transmission and passive-force test models (shared by the tendon and
// integrator tests).
#ifndef MODUCO_TESTS_TENDON_MODELS_H_
#define MODUCO_TESTS_TENDON_MODELS_H_

// spatial tendons: sphere and cylinder wrapping with and without side sites, pulleys, fixed
// tendons with springs and dampers, tendon, joint, site and slider-crank actuators
extern const char* const tendon_model_spatial;

// fixed tendons, joint/jointinparent on ball and free joints, tendon actuators with velocity
// terms
extern const char* const tendon_model_fixed;

// site transmissions with and without refsite
extern const char* const tendon_model_site;

// fluid: inertia-box model (every body without fluidshape)
extern const char* const tendon_model_fluidbox;

// fluid: ellipsoid model with fluidshape and fluidcoef on several geom types
extern const char* const tendon_model_fluidellipsoid;

// gravity compensation on a chain
extern const char* const tendon_model_gravcomp;

#endif  // MODUCO_TESTS_TENDON_MODELS_H_
