// Sweep and prune (core/engine/broadphase.c): the pairs it reports are exactly the pairs of boxes
// that the exact cube test accepts over all pairs, each once, for random boxes of sizes over six
// orders of magnitude, touching boxes (equal ends), far-away boxes and non-finite ones.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "engine/broadphase.h"
#include "engine/io.h"

#define MAXBOX 600

typedef struct {
  unsigned char seen[MAXBOX][MAXBOX];
  int n, twice;
} Pairs;


static void collect(void* ctx, int g1, int g2) {
  Pairs* p = ctx;
  int a = g1 < g2 ? g1 : g2, b = g1 < g2 ? g2 : g1;
  p->twice += p->seen[a][b];
  p->seen[a][b] = 1;
  p->n++;
}


static double uniform(unsigned* s, double lo, double hi) {
  *s = *s * 1664525u + 1013904223u;
  return lo + (hi - lo) * ((*s >> 8) / 16777216.0);
}


// all pairs of nbox boxes by the exact test against those the sweep reports on d (pairs named
// by geom); return the number of overlapping pairs
static int sweepMatches(mcData* d, const mciBox* box, int nbox, int round) {
  Pairs* p = calloc(1, sizeof(Pairs));
  cr_assert(p);
  mc_markStack(d);
  int ok = mci_sweepPairs(d, box, nbox, collect, p);
  mc_freeStack(d);
  cr_assert(ok, "stack full");
  int want = 0, missing = 0;
  for (int i = 0; i < nbox; i++) {
    for (int j = i + 1; j < nbox; j++) {
      if (mci_boxOverlap(box + i, box + j)) {
        int a = box[i].geom, b = box[j].geom;
        want++;
        missing += !p->seen[a < b ? a : b][a < b ? b : a];
      }
    }
  }
  cr_expect_eq(p->twice, 0, "round %d: %d pairs reported twice", round, p->twice);
  cr_expect_eq(missing, 0, "round %d: %d overlapping pairs missed", round, missing);
  cr_expect_eq(p->n, want, "round %d: %d pairs reported, %d overlap", round, p->n, want);
  free(p);
  return want;
}


// compare the sweep with all pairs on nbox boxes made by seed
static void check(int nbox, unsigned seed) {
  mciBox* box = calloc((size_t)nbox, sizeof(mciBox));
  cr_assert(box);
  unsigned s = seed;
  for (int i = 0; i < nbox; i++) {
    for (int k = 0; k < 3; k++) {
      box[i].c[k] = uniform(&s, -2, 2);
    }
    box[i].r = 0.001 * pow(1000.0, uniform(&s, 0, 1));
    box[i].geom = i;
    if (i % 17 == 3) {
      box[i].c[0] = 1e7 + i;                     // far away, one ulp of 1e7 is 2e-9
    }
    if (i % 29 == 5 && i > 0) {                 // touching the previous box exactly along x
      box[i].c[1] = box[i - 1].c[1];
      box[i].c[2] = box[i - 1].c[2];
      box[i].r = 0.25;
      box[i].c[0] = box[i - 1].c[0] + box[i - 1].r + 0.25;
    }
    if (i % 41 == 7) {
      box[i].r = INFINITY;                      // infinite size: overlaps every finite box
    }
    if (i % 53 == 9) {
      box[i].c[2] = NAN;                        // overlaps nothing
    }
  }

  char err[256] = "";
  mcModel* m = mc_loadXMLString("<mujoco/>", NULL, err, sizeof(err));
  cr_assert(m, "load: %s", err);
  mcData* d = mc_makeData(m);
  cr_assert(d);
  int want = sweepMatches(d, box, nbox, 0);
  cr_expect(nbox < 50 || want > nbox / 4, "too few overlaps (%d) to mean anything", want);
  mc_deleteData(d);
  mc_deleteModel(m);
  free(box);
}


Test(broadphase_sweep, matches_all_pairs) {
  for (unsigned seed = 1; seed <= 8; seed++) {
    check(seed * 70, seed);
  }
}


// few boxes (each against each up to MCI_ALLPAIRS_MAXBOX) and the smallest sorted sweeps
Test(broadphase_sweep, tiny_inputs) {
  check(2, 11);
  check(3, 12);
  check(17, 13);
  check(MCI_ALLPAIRS_MAXBOX, 14);
  check(MCI_ALLPAIRS_MAXBOX + 1, 15);
  check(MCI_ALLPAIRS_MAXBOX + 2, 16);
}


// the data keeps the last sweep's order as a hint for the next sort: over steps of moving boxes,
// a changing set of boxes (geoms dropping out, non-finite ones, geoms past the model's count), a
// switch of the sweep axis and a corrupted hint, the pairs stay exactly the exact test's
Test(broadphase_sweep, order_kept_across_calls) {
  enum { NG = 400 };
  char* xml = malloc(64 * NG + 128);
  cr_assert(xml);
  int len = sprintf(xml, "<mujoco><worldbody>");
  for (int g = 0; g < NG; g++) {
    len += sprintf(xml + len, "<geom size='.1' pos='%d 0 0'/>", g);
  }
  sprintf(xml + len, "</worldbody></mujoco>");
  char err[256] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  free(xml);
  cr_assert(m, "load: %s", err);
  mcData* d = mc_makeData(m);
  cr_assert(d);

  mciBox box[NG], work[NG + 20];
  unsigned s = 99;
  for (int i = 0; i < NG; i++) {
    box[i].c[0] = uniform(&s, -3, 3);
    box[i].c[1] = uniform(&s, -1, 1);
    box[i].c[2] = uniform(&s, -1, 1);
    box[i].r = uniform(&s, 0.01, 0.2);
    box[i].geom = i;
  }
  for (int round = 0; round < 40; round++) {
    int nbox = NG - (round % 7) * 9;             // later geoms drop out and come back
    for (int i = 0; i < nbox; i++) {
      box[i].c[0] += uniform(&s, -0.05, 0.05);   // small moves: a few keys change places
      box[i].c[1] += uniform(&s, -0.05, 0.05);
    }
    if (round % 5 == 2) {
      box[11].c[2] = NAN;                        // non-finite: out of the sweep, tested apart
    } else {
      box[11].c[2] = 0.3;
    }
    if (round == 20) {
      for (int i = 0; i < nbox; i++) {           // the spread moves to y: another axis
        box[i].c[1] *= 10;
      }
    }
    if (round == 30) {
      int* order = mci_sweepOrder(d);
      cr_assert(order && order[0] == NG && order[1] > 0);
      for (int t = 0; t < order[1]; t++) {
        order[3 + t] = (t * 7919) % (NG + 50) - 25;  // duplicates, out of range, negative
      }
    }
    int n = nbox;
    memcpy(work, box, sizeof(mciBox) * (size_t)nbox);
    if (round % 3 == 1) {                        // geoms the hint cannot hold
      for (int k = 0; k < 20; k++, n++) {
        work[n] = box[k];
        work[n].geom = NG + k;
        work[n].c[2] += 0.05;
      }
    }
    sweepMatches(d, work, n, round);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}
