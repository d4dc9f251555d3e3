// Moduco core: divergence checks of qpos, qvel and qacc (mc_checkPos, mc_checkVel, mc_checkAcc).
#include <stdint.h>
#include <string.h>

#include <moduco/moduco.h>

#include "math/math.h"


// the first bad entry of x[from .. n-1] one by one, or -1
static int scanBad(const mcNum* x, int from, int n) {
  for (int i = from; i < n; i++) {
    if (mcu_isBad(x[i])) {
      return i;
    }
  }
  return -1;
}


// index of the first bad entry of x, or -1. The three checks run on every step over nq or nv
// entries, where a branch per entry cost about 11 instructions: the pairs are tested with vector
// compares without a branch (|x| <= mcMAXVAL is false exactly where mcu_isBad says bad, NaN
// included), and only when one failed is the first bad entry looked for one by one.
#if defined(__GNUC__)
typedef double Pair __attribute__((vector_size(16)));
typedef int64_t PairBits __attribute__((vector_size(16)));   // what a compare of Pairs gives

static int firstBad(const mcNum* x, int n) {
  const Pair hi = {mcMAXVAL, mcMAXVAL};
  const PairBits magnitude = {INT64_MAX, INT64_MAX};   // all bits but the sign: |x|, NaN kept
  PairBits good = {0, 0};         // minus the entries that passed, per lane (a sum of the
  int i = 0;                      // compares' all-ones masks: adds vectorize where ands did not)
  for (; i + 8 <= n; i += 8) {
    Pair a, b, c, e;
    memcpy(&a, x + i, sizeof(a));
    memcpy(&b, x + i + 2, sizeof(b));
    memcpy(&c, x + i + 4, sizeof(c));
    memcpy(&e, x + i + 6, sizeof(e));
    good += ((Pair)((PairBits)a & magnitude) <= hi) + ((Pair)((PairBits)b & magnitude) <= hi) +
            ((Pair)((PairBits)c & magnitude) <= hi) + ((Pair)((PairBits)e & magnitude) <= hi);
  }
  for (; i + 2 <= n; i += 2) {
    Pair a;
    memcpy(&a, x + i, sizeof(a));
    good += (Pair)((PairBits)a & magnitude) <= hi;
  }
  return scanBad(x, good[0] + good[1] == -(int64_t)i ? i : 0, n);
}
#else
static int firstBad(const mcNum* x, int n) {
  return scanBad(x, 0, n);
}
#endif


// warn about entry i, then reset unless disabled, escalated to an error, or an escalated error is
// already pending (the warning statistics survive the reset; an escalated warning keeps the bad
// state for inspection and mc_step stops integrating until the error is cleared, so a later
// warning that is not escalated, e.g. the bad qacc that follows an escalated bad qpos, must not
// reset it away); return 1 if the data was reset
static int warnReset(const mcModel* m, mcData* d, int warning, int i) {
  mc_warning(d, warning, i);
  if ((m->opt.disableflags & mcDSBL_AUTORESET) || (d->warning_policy & (1u << warning)) ||
      d->warning_stop) {
    return 0;
  }
  mcWarningStat saved[mcNWARNING];
  memcpy(saved, d->warning, sizeof(saved));
  mc_resetData(m, d);
  memcpy(d->warning, saved, sizeof(saved));
  return 1;
}


void mc_checkPos(const mcModel* m, mcData* d) {
  int i = firstBad(d->qpos, m->nq);
  if (i >= 0) {
    warnReset(m, d, mcWARN_BADQPOS, i);
  }
}


void mc_checkVel(const mcModel* m, mcData* d) {
  int i = firstBad(d->qvel, m->nv);
  if (i >= 0) {
    warnReset(m, d, mcWARN_BADQVEL, i);
  }
}


void mc_checkAcc(const mcModel* m, mcData* d) {
  // after a reset, recompute the dynamics so the integrator sees a consistent state
  int i = firstBad(d->qacc, m->nv);
  if (i >= 0 && warnReset(m, d, mcWARN_BADQACC, i)) {
    mc_forward(m, d);
  }
}
