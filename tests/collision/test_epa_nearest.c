// EPA's nearest-face pick (collision-gjk gjk.h epa_nearestSlot): the two-pass vector search must
// return the very slot of the scalar scan that keeps the first strictly smaller distance, on
// arrays with repeated values, signed zeros, removed slots (infinity) and every length mod 4.
#include <math.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "../../plugins/collision-gjk/gjk.h"

// the scan epa_penetration ran before the two-pass search
static int scanSlot(const mcNum* live, int n) {
  int best = -1;
  mcNum bestDist = INFINITY;
  for (int f = 0; f < n; f++) {
    if (live[f] < bestDist) {
      bestDist = live[f];
      best = f;
    }
  }
  return best;
}


Test(epa_nearest, first_least_slot_as_the_scan) {
  static const mcNum values[] = {INFINITY, 0.5, 0.25, 0.0, -0.0, 1e-300, 0.25, 3.0};
  mcNum live[300];
  srand(7);
  long nlate = 0;
  for (int t = 0; t < 20000; t++) {
    int n = rand() % 300;
    for (int i = 0; i < n; i++) {
      live[i] = values[rand() % 8];
      if (rand() % 3 == 0) {
        live[i] = INFINITY;
      }
    }
    int want = scanSlot(live, n);
    int got = epa_nearestSlot(live, n);
    cr_assert_eq(got, want, "length %d: slot %d, the scan's %d", n, got, want);
    nlate += want >= 4;
  }
  // the least in a later slot than its first equal one (-0 before +0, ties), a lone tail slot
  mcNum tie[9] = {1, 2, 0.0, 3, -0.0, 0.0, 4, 5, -1};
  cr_assert_eq(epa_nearestSlot(tie, 8), 2);
  cr_assert_eq(epa_nearestSlot(tie, 9), 8);
  mcNum none[5] = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY};
  cr_assert_eq(epa_nearestSlot(none, 5), -1);
  cr_assert_eq(epa_nearestSlot(none, 0), -1);
  cr_assert(nlate > 1000);
}
