// Moduco core: the broad phase over bounding cubes (private to libmoduco).
#ifndef MODUCO_CORE_ENGINE_BROADPHASE_H_
#define MODUCO_CORE_ENGINE_BROADPHASE_H_

#include <math.h>

#include <moduco/moduco.h>

// a bounded geom of the broad phase: centre and half size of its axis-aligned bounding cube (the
// bounding sphere grown by the geom's own margin)
typedef struct {
  mcNum c[3];
  mcNum r;
  int geom;
} mciBox;

// do two boxes overlap? (the test that decides; symmetric)
static inline int mci_boxOverlap(const mciBox* x, const mciBox* y) {
  mcNum r = x->r + y->r;
  return fabs(x->c[0] - y->c[0]) <= r && fabs(x->c[1] - y->c[1]) <= r &&
         fabs(x->c[2] - y->c[2]) <= r;
}

// up to this many boxes the collision driver sweeps; above, it uses its uniform grid (O(n)
// expected, where a sweep grows faster than n on scenes spread in two or three dimensions)
#define MCI_SWEEP_MAXBOX 1024

// up to this many boxes mci_sweepPairs tests each pair directly (laying out and sorting keys costs
// a few hundred instructions a box; measured on humanoid's 17 geom cubes: 2.2k fewer a step)
#define MCI_ALLPAIRS_MAXBOX 32

// called once per overlapping pair with the geoms of the two boxes
typedef void (*mciPairFn)(void* ctx, int g1, int g2);

// Every pair of boxes that mci_boxOverlap accepts, each once (in no particular order), by sweep
// and prune along the axis of the largest spread of the centres (each against each up to
// MCI_ALLPAIRS_MAXBOX boxes); boxes with a non-finite centre or size are tested against all.
// Scratch on d's stack (the caller marks and frees). Return 0 if the stack is full.
int mci_sweepPairs(mcData* d, const mciBox* box, int nbox, mciPairFn fn, void* ctx);

#endif  // MODUCO_CORE_ENGINE_BROADPHASE_H_
