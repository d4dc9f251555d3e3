// libFuzzer target: MJCF reader and compiler (bytes in, includes from memory), then a few steps.
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);


int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzzMJCF(data, size);
}
