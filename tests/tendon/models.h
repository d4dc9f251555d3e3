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

// sphere and cylinder wraps (on a hinged and sliding holder) with and without a side site, the
// end sites and the side site on bodies with three slide joints (qpos = their positions)
extern const char* const tendon_model_sidesite;

// adhesion (body transmission): a box on a tilted plane, a box held under a ceiling box with an
// offset mass, an ellipsoid rolling down the plane (the last as the equivalent <general body>)
extern const char* const tendon_model_adhesion;

#endif  // MODUCO_TESTS_TENDON_MODELS_H_
