// A minimal stand-in for the Criterion macros used by test_rollout.c, so the same tests also
// build as a plain program: Criterion's sandbox does not run under ThreadSanitizer.
#ifndef MODUCO_TESTS_ROLLOUT_PLAIN_TEST_H_
#define MODUCO_TESTS_ROLLOUT_PLAIN_TEST_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {                  // one registered test
  const char* name;
  void (*fn)(void);
} PlainTest;

static PlainTest g_plain_test[32];
static int g_plain_ntest = 0;
static int g_plain_fail = 0;


// add a test to the list (called from constructors)
static void plainRegister(const char* name, void (*fn)(void)) {
  if (g_plain_ntest < 32) {
    g_plain_test[g_plain_ntest].name = name;
    g_plain_test[g_plain_ntest].fn = fn;
    g_plain_ntest++;
  }
}


// report a failed check; fatal checks end the program
static void plainCheck(int ok, int fatal, const char* file, int line, const char* what) {
  if (!ok) {
    fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
    g_plain_fail++;
    if (fatal) {
      exit(1);
    }
  }
}

#define Test(suite, name)                                                                         \
  static void suite##_##name(void);                                                               \
  __attribute__((constructor)) static void reg_##suite##_##name(void) {                           \
    plainRegister(#suite "::" #name, suite##_##name);                                             \
  }                                                                                               \
  static void suite##_##name(void)

#define cr_assert(cond, ...) plainCheck(!!(cond), 1, __FILE__, __LINE__, #cond)
#define cr_expect(cond, ...) plainCheck(!!(cond), 0, __FILE__, __LINE__, #cond)
#define cr_assert_eq(a, b, ...) cr_assert((a) == (b))
#define cr_expect_eq(a, b, ...) cr_expect((a) == (b))
#define cr_assert_str_eq(a, b, ...) cr_assert(strcmp((a), (b)) == 0)
#define cr_expect_null(a, ...) cr_expect((a) == NULL)
#define cr_expect_not_null(a, ...) cr_expect((a) != NULL)


int main(void) {
  for (int i = 0; i < g_plain_ntest; i++) {
    fprintf(stderr, "[RUN ] %s\n", g_plain_test[i].name);
    g_plain_test[i].fn();
  }
  fprintf(stderr, "%d tests, %d failed checks\n", g_plain_ntest, g_plain_fail);
  return g_plain_fail ? 1 : 0;
}

#endif  // MODUCO_TESTS_ROLLOUT_PLAIN_TEST_H_
