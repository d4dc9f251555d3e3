// libFuzzer target: plugin library and descriptor validation (core/plugin/loader.c checks).
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);


int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzzPluginDescriptor(data, size);
}
