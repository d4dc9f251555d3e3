// Test helper: build small tree models by hand (no MJCF compiler needed).
//
// Each body i >= 1 has a parent, at most one joint of a given type (-1: welded), and either given
// or pseudo-random geometry. The helper fills every field the smooth pipeline reads: addresses,
// dof tree, sparse inertia layout, subtree masses.
#ifndef MODUCO_TESTS_ENGINE_BUILD_H_
#define MODUCO_TESTS_ENGINE_BUILD_H_

#include <moduco/moduco.h>

typedef struct tbBody_ {
  int parent;                     // parent body (0: world)
  int jtype;                      // mctJoint, or -1 for no joint
  double pos[3];                  // offset from parent
  double quat[4];                 // orientation offset (w first); zero: identity
  double ipos[3];                 // com in body frame
  double iquat[4];                // inertia frame; zero: identity
  double mass;
  double inertia[3];
  double jpos[3];                 // joint anchor in body frame
  double jaxis[3];                // joint axis (hinge, slide); zero: z
} tbBody;

// build a model of n bodies (b[0] is the world and ignored); opt defaults, gravity -9.81 z
mcModel* tb_build(int n, const tbBody* b);

// the same with nu actuators (stateless unit motors until set), na activations, ntendon tendons
// and nwrap wrap entries (all zero)
mcModel* tb_buildEx(int n, const tbBody* b, int nu, int na, int ntendon, int nwrap);

// fill b[1..n-1] with pseudo-random geometry for a given parent array and joint types
void tb_random(int n, tbBody* b, const int* parent, const int* jtype, unsigned seed);

// uniform pseudo-random number in [lo, hi) from a seed state
double tb_rand(unsigned* state, double lo, double hi);

#endif  // MODUCO_TESTS_ENGINE_BUILD_H_
