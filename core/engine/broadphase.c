// Moduco core: broad phase by sweep and prune.
//
// The boxes are sorted by the low end of their extent along one axis (the one whose centres
// spread most); a box can then only overlap the boxes after it whose low end is below its high
// end, and the exact cube test (mci_boxOverlap) decides for those. The extents are widened by a
// relative 1e-9 so that rounding in c +- r never drops a pair the exact test accepts: the sweep
// only prefilters, the set of pairs is exactly that of the exact test over all pairs.
#include "engine/broadphase.h"

#include <string.h>

// sweep key of a box: the low and high ends of its widened extent along the axis
typedef struct {
  mcNum lo, hi;
  int box;
} mciSweep;


static int finiteBox(const mciBox* b) {
  return isfinite(b->r) && isfinite(b->c[0]) && isfinite(b->c[1]) && isfinite(b->c[2]);
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
      while (j > s && (t.lo < a[j - 1].lo || (t.lo == a[j - 1].lo && t.box < a[j - 1].box))) {
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
        int left = src[i].lo < src[j].lo || (src[i].lo == src[j].lo && src[i].box < src[j].box);
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


int mci_sweepPairs(mcData* d, const mciBox* box, int nbox, mciPairFn fn, void* ctx) {
  if (nbox < 2) {
    return 1;
  }
  mciSweep* key = (mciSweep*)mc_stackAlloc(d, sizeof(mciSweep) * 2 * (size_t)nbox,
                                           _Alignof(mciSweep));
  int* rest = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)nbox, _Alignof(int));
  if (!key || !rest) {
    return 0;
  }

  // axis of the largest spread (variance) of the finite centres
  mcNum mean[3] = {0, 0, 0}, var[3] = {0, 0, 0};
  int nfinite = 0, nrest = 0;
  for (int i = 0; i < nbox; i++) {
    if (finiteBox(box + i)) {
      for (int k = 0; k < 3; k++) {
        mean[k] += box[i].c[k];
      }
      nfinite++;
    } else {
      rest[nrest++] = i;
    }
  }
  for (int k = 0; k < 3 && nfinite; k++) {
    mean[k] /= nfinite;
  }
  for (int i = 0; i < nbox; i++) {
    if (finiteBox(box + i)) {
      for (int k = 0; k < 3; k++) {
        mcNum e = box[i].c[k] - mean[k];
        var[k] += e * e;
      }
    }
  }
  int axis = 0;
  for (int k = 1; k < 3; k++) {
    if (var[k] > var[axis]) {
      axis = k;
    }
  }

  // sweep keys of the finite boxes, sorted by their low ends
  int n = 0;
  for (int i = 0; i < nbox; i++) {
    if (finiteBox(box + i)) {
      mcNum c = box[i].c[axis], r = box[i].r, slack = 1e-9 * (fabs(c) + fabs(r));
      key[n].lo = c - r - slack;
      key[n].hi = c + r + slack;
      key[n].box = i;
      n++;
    }
  }
  sortSweep(key, key + nbox, n);

  // each box against the later ones that start before it ends
  for (int s = 0; s < n; s++) {
    const mciBox* bs = box + key[s].box;
    mcNum hi = key[s].hi;
    for (int t = s + 1; t < n && key[t].lo <= hi; t++) {
      const mciBox* bt = box + key[t].box;
      if (mci_boxOverlap(bs, bt)) {
        fn(ctx, bs->geom, bt->geom);
      }
    }
  }

  // non-finite boxes against every other box (pairs among them once)
  for (int k = 0; k < nrest; k++) {
    int i = rest[k];
    for (int j = 0; j < nbox; j++) {
      if (j == i || (j < i && !finiteBox(box + j))) {
        continue;
      }
      if (mci_boxOverlap(box + i, box + j)) {
        fn(ctx, box[i].geom, box[j].geom);
      }
    }
  }
  return 1;
}
