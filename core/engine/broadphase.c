// Moduco core: broad phase by sweep and prune.
//
// The boxes are sorted by the low end of their extent along one axis (the one whose centres
// spread most); a box can then only overlap the boxes after it whose low end is below its high
// end, and the exact cube test (mci_boxOverlap) decides for those. The extents are widened by a
// relative 1e-9 so that rounding in c +- r never drops a pair the exact test accepts: the sweep
// only prefilters, the set of pairs is exactly that of the exact test over all pairs.
#include "engine/broadphase.h"

#include <string.h>

#include "engine/io.h"

// sweep key of a box: the low and high ends of its widened extent along the axis, and the box's
// own centre and half size with the sweep axis first (the exact test reads the key alone)
typedef struct {
  mcNum lo, hi;
  mcNum c[3];                     // centre: along the sweep axis, then the two others
  mcNum r;
  int box;
} mciSweep;


static int finiteBox(const mciBox* b) {
  return isfinite(b->r) && isfinite(b->c[0]) && isfinite(b->c[1]) && isfinite(b->c[2]);
}


// does key x come before key y? (lo, then box: a strict total order, so that every sort gives
// the same order)
static inline int sweepBefore(const mciSweep* x, const mciSweep* y) {
  return x->lo < y->lo || (x->lo == y->lo && x->box < y->box);
}


// straight insertion over all n keys while the moves stay within budget: linear on keys laid
// out in the last step's order, which bodies moving a little change in few places. Return 1 if
// sorted; 0 if the budget ran out (a then holds a permutation of the keys)
static int insertionWithin(mciSweep* a, int n, int budget) {
  for (int i = 1; i < n; i++) {
    mciSweep t = a[i];
    int j = i;
    while (j > 0 && sweepBefore(&t, a + j - 1)) {
      a[j] = a[j - 1];
      j--;
      if (--budget < 0) {
        a[j] = t;
        return 0;
      }
    }
    a[j] = t;
  }
  return 1;
}


// merge sort of n keys by (lo, box), tmp of the same size (stable, deterministic, no malloc)
static void sortSweep(mciSweep* a, mciSweep* tmp, int n) {
  // short runs by insertion
  const int run = 16;
  for (int s = 0; s < n; s += run) {
    int e = s + run < n ? s + run : n;
    for (int i = s + 1; i < e; i++) {
      mciSweep t = a[i];
      int j = i;
      while (j > s && sweepBefore(&t, a + j - 1)) {
        a[j] = a[j - 1];
        j--;
      }
      a[j] = t;
    }
  }

  // then merges of doubling width, back and forth between a and tmp
  mciSweep* src = a;
  mciSweep* dst = tmp;
  for (int w = run; w < n; w *= 2) {
    for (int s = 0; s < n; s += 2 * w) {
      int m = s + w < n ? s + w : n, e = s + 2 * w < n ? s + 2 * w : n;
      int i = s, j = m, k = s;
      while (i < m && j < e) {
        int left = sweepBefore(src + i, src + j);
        dst[k++] = left ? src[i++] : src[j++];
      }
      while (i < m) {
        dst[k++] = src[i++];
      }
      while (j < e) {
        dst[k++] = src[j++];
      }
    }
    mciSweep* t = src;
    src = dst;
    dst = t;
  }
  if (src != a) {
    memcpy(a, src, sizeof(mciSweep) * (size_t)n);
  }
}


// the sweep key of box i along axis
static void setKey(mciSweep* k, const mciBox* box, int i, int axis) {
  mcNum c = box[i].c[axis], r = box[i].r, slack = 1e-9 * (fabs(c) + fabs(r));
  k->lo = c - r - slack;
  k->hi = c + r + slack;
  k->c[0] = c;
  k->c[1] = box[i].c[axis == 0 ? 1 : 0];
  k->c[2] = box[i].c[axis == 2 ? 1 : 2];
  k->r = r;
  k->box = i;
}


// mci_boxOverlap of the boxes of two keys (the same test: the axes in another order)
static inline int keyOverlap(const mciSweep* x, const mciSweep* y) {
  mcNum r = x->r + y->r;
  return fabs(x->c[1] - y->c[1]) <= r && fabs(x->c[2] - y->c[2]) <= r &&
         fabs(x->c[0] - y->c[0]) <= r;
}


// the keys of the finite boxes (finite[i]) into key: in the order of the last sweep if it was along the same
// axis (*hinted = 1; geoms new to the sweep last), else in box order. Return their count, -1 if
// the stack is full
static int sweepKeys(mcData* d, const mciBox* box, const unsigned char* finite, int nbox,
                     int axis, const int* order, mciSweep* key, int* hinted) {
  int n = 0;
  *hinted = order && order[1] > 0 && order[1] <= order[0] && order[2] == axis;
  if (!*hinted) {
    for (int i = 0; i < nbox; i++) {
      if (finite[i]) {
        setKey(key + n++, box, i, axis);
      }
    }
    return n;
  }

  // box of each geom (-1: none or already laid out)
  int cap = order[0];
  int* slot = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)(cap + 1), _Alignof(int));
  if (!slot) {
    return -1;
  }
  for (int g = 0; g < cap; g++) {
    slot[g] = -1;
  }
  for (int i = 0; i < nbox; i++) {
    if (box[i].geom < cap && finite[i]) {
      slot[box[i].geom] = i;
    }
  }
  for (int t = 0; t < order[1]; t++) {
    int g = order[3 + t];
    if (g >= 0 && g < cap && slot[g] >= 0) {
      setKey(key + n++, box, slot[g], axis);
      slot[g] = -1;
    }
  }
  for (int i = 0; i < nbox; i++) {
    int g = box[i].geom;
    if (g < cap ? slot[g] == i : finite[i]) {
      setKey(key + n++, box, i, axis);
    }
  }
  return n;
}


int mci_sweepPairs(mcData* d, const mciBox* box, int nbox, mciPairFn fn, void* ctx) {
  return mci_sweepPairsHinted(d, box, nbox, fn, ctx, mci_sweepOrder(d));
}


int mci_sweepPairsHinted(mcData* d, const mciBox* box, int nbox, mciPairFn fn, void* ctx,
                         int* order) {
  if (nbox < 2) {
    return 1;
  }

  // few boxes: each against each costs less than laying out and sorting the keys
  if (nbox <= MCI_ALLPAIRS_MAXBOX) {
    for (int i = 0; i < nbox; i++) {
      for (int j = i + 1; j < nbox; j++) {
        if (mci_boxOverlap(box + i, box + j)) {
          fn(ctx, box[i].geom, box[j].geom);
        }
      }
    }
    return 1;
  }
  mciSweep* key = (mciSweep*)mc_stackAlloc(d, sizeof(mciSweep) * (2 * (size_t)nbox + 1),
                                           _Alignof(mciSweep));
  int* rest = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)nbox, _Alignof(int));
  unsigned char* finite = (unsigned char*)mc_stackAlloc(d, (size_t)nbox, 1);
  if (!key || !rest || !finite) {
    return 0;
  }

  // axis of the largest spread (n^2 times the variance) of the finite centres, in one pass over
  // the centres less the first finite one (no cancellation far from the origin; the axis only
  // steers the sweep, never which pairs it reports)
  mcNum sum[3] = {0, 0, 0}, sq[3] = {0, 0, 0};
  const mcNum* c0 = NULL;
  int nfinite = 0, nrest = 0;
  for (int i = 0; i < nbox; i++) {
    finite[i] = (unsigned char)finiteBox(box + i);
    if (!finite[i]) {
      rest[nrest++] = i;
      continue;
    }
    c0 = c0 ? c0 : box[i].c;
    for (int k = 0; k < 3; k++) {
      mcNum e = box[i].c[k] - c0[k];
      sum[k] += e;
      sq[k] += e * e;
    }
    nfinite++;
  }
  int axis = 0;
  mcNum spread[3];
  for (int k = 0; k < 3; k++) {
    spread[k] = nfinite * sq[k] - sum[k] * sum[k];
    if (spread[k] > spread[axis]) {
      axis = k;
    }
  }

  // sweep keys of the finite boxes, sorted by their low ends: laid out in the order of the last
  // sweep (same axis), the sort is mostly a straight insertion
  int hinted = 0;
  int n = sweepKeys(d, box, finite, nbox, axis, order, key, &hinted);
  if (n < 0) {
    return 0;
  }
  if (!hinted || !insertionWithin(key, n, 4 * n)) {
    sortSweep(key, key + nbox + 1, n);
  }
  if (order && n <= order[0]) {
    order[1] = n;
    order[2] = axis;
    for (int t = 0; t < n; t++) {
      order[3 + t] = box[key[t].box].geom;
    }
  }

  // each box against the later ones that start before it ends (a NaN low end after the last key
  // stops every scan there)
  key[n].lo = NAN;
  for (int s = 0; s < n; s++) {
    const mciSweep* ks = key + s;
    mcNum hi = ks->hi;
    for (const mciSweep* kt = ks + 1; kt->lo <= hi; kt++) {
      if (keyOverlap(ks, kt)) {
        fn(ctx, box[ks->box].geom, box[kt->box].geom);
      }
    }
  }

  // non-finite boxes against every other box (pairs among them once)
  for (int k = 0; k < nrest; k++) {
    int i = rest[k];
    for (int j = 0; j < nbox; j++) {
      if (j == i || (j < i && !finite[j])) {
        continue;
      }
      if (mci_boxOverlap(box + i, box + j)) {
        fn(ctx, box[i].geom, box[j].geom);
      }
    }
  }
  return 1;
}
