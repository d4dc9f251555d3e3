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

// mci_sweepPairs with the order of an earlier sweep of the same boxes as a hint (d's own order
// in mci_sweepPairs; NULL: none; see mci_sweepOrder)
int mci_sweepPairsHinted(mcData* d, const mciBox* box, int nbox, mciPairFn fn, void* ctx,
                         int* order);

// the cube of the boxes box[idx[0..n)] (n > 0, all finite), widened by a relative 1e-9 so that
// rounding never leaves one of them sticking out; its geom is set to tag (inline: the body
// level's loop over bodies calls it per body)
static inline void mci_boxUnion(const mciBox* box, const int* idx, int n, int tag, mciBox* out) {
  mcNum lo[3], hi[3];
  for (int k = 0; k < 3; k++) {
    lo[k] = INFINITY;
    hi[k] = -INFINITY;
  }
  for (int i = 0; i < n; i++) {
    const mciBox* g = box + idx[i];
    for (int k = 0; k < 3; k++) {
      lo[k] = g->c[k] - g->r < lo[k] ? g->c[k] - g->r : lo[k];
      hi[k] = g->c[k] + g->r > hi[k] ? g->c[k] + g->r : hi[k];
    }
  }
  mcNum r = 0, scale = 0;
  for (int k = 0; k < 3; k++) {
    out->c[k] = 0.5 * (lo[k] + hi[k]);
    r = 0.5 * (hi[k] - lo[k]) > r ? 0.5 * (hi[k] - lo[k]) : r;
    scale = fabs(out->c[k]) > scale ? fabs(out->c[k]) : scale;
  }
  out->r = r + 1e-9 * (scale + r);
  out->geom = tag;
}


//---------------------------------- groups (broadphase_groups.c) ---------------------------------
//
// The bounded collidable geoms (those of the broad phase's boxes, in geom order) by kinematic tree,
// a geom of a body welded to the world alone, and in each tree the geom pairs that the filters of
// the model (contype and conaffinity, same weld body, parent-child, exclude) let through: built
// once and kept in the data (mci_groupCache), rebuilt only when what it was built from changes.
// A step then tests the group cubes against each other and, in each group, only its listed pairs;
// pairs inside the humanoids of a crowd that can never collide are never looked at.

typedef struct mciGroups_ mciGroups;

// the model's filters of two geoms (1: they may collide), for the build
typedef int (*mciAllowFn)(const mcModel* m, int g1, int g2);

// bytes the data keeps for m's groups (0: none, m has too many geoms)
size_t mci_groupBytes(const mcModel* m);

// the groups of m in d, built or rebuilt when geom types, contype, conaffinity, bodies, the tree,
// the exclude list or the parent filter flag differ from the last build; NULL when d keeps none
// or its stack is full
const mciGroups* mci_groups(const mcModel* m, mcData* d, mciAllowFn allow);

// every pair of boxes (the boxes of the bounded collidable geoms in geom order) that
// mci_boxOverlap accepts and the groups keep, each once, in no particular order: listed pairs
// (which passed the model's filters) to listed, the others to other. Return 1; 0 if the stack
// is full; -1 (nothing reported) if a box is not finite, nbox is not that of the groups, or the
// lists leave out fewer pairs than there are boxes (the groups would not pay): the caller
// sweeps instead
int mci_groupPairs(mcData* d, const mciGroups* g, const mciBox* box, int nbox, mciPairFn listed,
                   mciPairFn other, void* ctx);

#endif  // MODUCO_CORE_ENGINE_BROADPHASE_H_
