// libFuzzer target: STL, OBJ and MSH mesh readers and the height-field reader (via the compiler).
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);


int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzzMesh(data, size);
}
