// Helpers shared by the thread-pool suites (tests/island, tests/constraint): load a generated
// scene and hash arrays of numbers bit for bit. Include after plain_test.h or Criterion.
#ifndef MODUCO_TESTS_ROLLOUT_POOL_TEST_UTIL_H_
#define MODUCO_TESTS_ROLLOUT_POOL_TEST_UTIL_H_

#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

// the model of a generated XML text, which it frees; the test fails with the loader's error
static inline mcModel* pt_loadOwnedXML(char* xml) {
  char error[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  free(xml);
  cr_assert(m, "%s", error);
  return m;
}


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
