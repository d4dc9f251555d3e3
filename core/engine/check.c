// Moduco core: divergence checks of qpos, qvel and qacc (mc_checkPos, mc_checkVel, mc_checkAcc).
#include <string.h>

#include <moduco/moduco.h>

#include "math/math.h"


// index of the first bad entry of x, or -1
static int firstBad(const mcNum* x, int n) {
  for (int i = 0; i < n; i++) {
    if (mcu_isBad(x[i])) {
      return i;
    }
  }
  return -1;
}


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
