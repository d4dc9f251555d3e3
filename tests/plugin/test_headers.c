// Header hygiene: the build compiles one C file per public header including only that header
// (-Wall -Wextra -Wpedantic -Werror) and a C++ file including all of them; this test only calls
// into them so they are linked. A broken header fails the build of this test.
#include <criterion/criterion.h>

// from test_headers_cpp.cpp
int header_cpp_all(void);


Test(plugin_headers, each_alone_in_c_all_in_cpp) {
  cr_expect_eq(header_cpp_all(), 0);
}
