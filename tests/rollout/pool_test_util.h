// Helpers shared by the thread-pool suites (tests/island, tests/constraint, tests/plugin): load a
// generated scene, make a data on a pool of n threads, and hash arrays of numbers bit for bit.
// Include after plain_test.h or Criterion.
#ifndef MODUCO_TESTS_ROLLOUT_POOL_TEST_UTIL_H_
#define MODUCO_TESTS_ROLLOUT_POOL_TEST_UTIL_H_

#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

#include "engine/threadpool.h"

// the model of a generated XML text, which it frees; the test fails with the loader's error
static inline mcModel* pt_loadOwnedXML(char* xml) {
  char error[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  free(xml);
  cr_assert(m, "%s", error);
  return m;
}


// a data of m bound to a new pool of nthread threads (*pool), or with no pool (*pool NULL) when
// nthread is 0; the test fails when either cannot be made
static inline mcData* pt_makeData(const mcModel* m, int nthread, mcThreadPool** pool) {
  mcData* d = mc_makeData(m);
  cr_assert(d);
  *pool = NULL;
  if (nthread > 0) {
    *pool = mc_threadPoolCreate(nthread);
    mci_poolSetEager(*pool, 1);   // the jobs on small models too
    cr_assert(*pool);
    cr_assert_eq(mc_bindThreadPool(d, *pool), 0);
  }
  return d;
}


// unbind and free what pt_makeData made
static inline void pt_deleteData(mcData* d, mcThreadPool* pool) {
  mc_bindThreadPool(d, NULL);
  mc_threadPoolDelete(pool);
  mc_deleteData(d);
}


// the start of a hash (pt_hashNums)
#define PT_HASH0 1469598103934665603ULL

// FNV-style hash of n numbers' bits, continuing from h
static inline unsigned long long pt_hashNums(unsigned long long h, const mcNum* a, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned long long x;
    memcpy(&x, a + i, sizeof(x));
    h = (h ^ x) * 1099511628211ULL;
  }
  return h;
}

#endif  // MODUCO_TESTS_ROLLOUT_POOL_TEST_UTIL_H_
