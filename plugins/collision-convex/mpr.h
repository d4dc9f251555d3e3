// Moduco collision plugins: Minkowski Portal Refinement (MPR) between two convex objects given
// by support functions. Shared by collision-convex and collision-hfield (compiled into both).
#ifndef MODUCO_PLUGINS_COLLISION_CONVEX_MPR_H_
#define MODUCO_PLUGINS_COLLISION_CONVEX_MPR_H_

#include <moduco/mcplugin.h>

// support point of obj in the (unit, world) direction dir, and its centre (an interior point)
typedef void (*mcmSupport)(const void* obj, const mcNum dir[3], mcNum res[3]);
typedef void (*mcmCenter)(const void* obj, mcNum res[3]);

// one MPR query: the two objects, their callbacks and the stopping rule
typedef struct {
  const void* obj1;
  const void* obj2;
  mcmSupport support1;
  mcmSupport support2;
  mcmCenter center1;
  mcmCenter center2;
  mcNum tolerance;                // portal refinement tolerance
  int max_iterations;             // refinement iterations
} mcmQuery;

// Penetration of obj1 and obj2: return 0 and depth, the unit direction along which obj2 must
// move to separate (dir), and the contact position (midway between the surfaces); return
// nonzero when the objects do not intersect.
int mcm_penetration(const mcmQuery* q, mcNum* depth, mcNum dir[3], mcNum pos[3]);

#endif  // MODUCO_PLUGINS_COLLISION_CONVEX_MPR_H_
