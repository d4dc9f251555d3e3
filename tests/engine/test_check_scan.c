// The divergence checks' scan (core/engine/check.c): mc_checkPos, mc_checkVel and mc_checkAcc
// test pairs of entries with vector compares and look for the first bad entry one by one only
// when a pair failed. Every length 1..21 (full blocks of eight, pairs and an odd tail), every
// position of a bad value (NaN of either sign, infinities, just past mcMAXVAL, huge) with a
// second bad value after it: the warning names the first one, exactly as an entry-by-entry scan;
// values at exactly +-mcMAXVAL, zeros of both signs and subnormals are not bad.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>


// n slides, one a body: nq = nv = n
static mcModel* slides(int n) {
  char xml[8192];
  int len = snprintf(xml, sizeof(xml), "<mujoco><worldbody>");
  for (int i = 0; i < n; i++) {
    len += snprintf(xml + len, sizeof(xml) - (size_t)len,
                    "<body pos='%d 0 0'><joint type='slide'/><geom size='.1'/></body>", i);
  }
  snprintf(xml + len, sizeof(xml) - (size_t)len, "</worldbody></mujoco>");
  char error[512] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  cr_assert_not_null(m, "%s", error);
  cr_assert_eq(m->nv, n);
  cr_assert_eq(m->nq, n);
  m->opt.disableflags |= mcDSBL_AUTORESET;   // warn only: the entries stay for the next case
  return m;
}


static const mcNum kGood[] = {0.0, -0.0, mcMAXVAL, -mcMAXVAL, 4.9e-324, -1e-310, 3.5, -9.99e9};
#define NGOOD ((int)(sizeof(kGood) / sizeof(kGood[0])))


static void fillGood(mcNum* x, int n, int seed) {
  for (int i = 0; i < n; i++) {
    x[i] = kGood[(i + seed) % NGOOD];
  }
}


typedef void (*CheckFn)(const mcModel*, mcData*);


// one check on one array: clean arrays do not warn, a bad entry (and another after it) warns
// once with the first one's index
static void sweep(CheckFn check, int warning, int which) {
  const mcNum bad[] = {NAN, -NAN, INFINITY, -INFINITY, nextafter(mcMAXVAL, INFINITY),
                       -nextafter(mcMAXVAL, INFINITY), 1e300, -1e11};
  int nbad = (int)(sizeof(bad) / sizeof(bad[0]));
  for (int n = 1; n <= 21; n++) {
    mcModel* m = slides(n);
    mcData* d = mc_makeData(m);
    cr_assert_not_null(d);
    mcNum* x = which == 0 ? d->qpos : which == 1 ? d->qvel : d->qacc;
    for (int seed = 0; seed < NGOOD; seed++) {
      fillGood(x, n, seed);
      int before = d->warning[warning].number;
      check(m, d);
      cr_expect_eq(d->warning[warning].number, before, "n %d seed %d: clean array warned", n,
                   seed);
    }
    for (int i = 0; i < n; i++) {
      for (int b = 0; b < nbad; b++) {
        fillGood(x, n, i + b);
        x[i] = bad[b];
        if (i + 3 < n) {
          x[n - 1] = bad[(b + 1) % nbad];
        }
        int before = d->warning[warning].number;
        check(m, d);
        cr_expect_eq(d->warning[warning].number, before + 1, "n %d bad %g at %d: no warning", n,
                     bad[b], i);
        cr_expect_eq(d->warning[warning].lastinfo, i, "n %d bad %g at %d: warned at %d", n,
                     bad[b], i, d->warning[warning].lastinfo);
      }
    }
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


Test(check_scan, qpos_first_bad_entry) {
  sweep(mc_checkPos, mcWARN_BADQPOS, 0);
}


Test(check_scan, qvel_first_bad_entry) {
  sweep(mc_checkVel, mcWARN_BADQVEL, 1);
}


Test(check_scan, qacc_first_bad_entry) {
  sweep(mc_checkAcc, mcWARN_BADQACC, 2);
}
