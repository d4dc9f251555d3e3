// Moduco fuzz harnesses: the entry points shared by the libFuzzer targets (fuzz/*.c) and the
// Criterion regression test that replays saved inputs (tests/hardening/test_fuzz_regress.c).
// Each harness returns 0; a bug shows as a sanitizer report or a trap.
#ifndef MODUCO_FUZZ_FUZZ_COMMON_H_
#define MODUCO_FUZZ_FUZZ_COMMON_H_

#include <stddef.h>
#include <stdint.h>

// MJCF reader and compiler, plus a few steps of the compiled model. The input is split at NUL
// bytes into files: the first is "main.xml", the k-th after it "inc<k>.xml" (k = 1, 2, ...), all
// served from memory through the reader's read hook, so <include file="inc1.xml"/> works.
int fuzzMJCF(const uint8_t* data, size_t size);

// Mesh and height-field readers: the first byte picks the format ('s' STL, 'o' OBJ, 'm' MSH,
// 'h' height-field binary; anything else STL), the rest is the file. It is written to a temporary
// file that a small model uses as a colliding mesh geom (or height field); the model is stepped.
int fuzzMesh(const uint8_t* data, size_t size);

// Plugin descriptor validation: a library struct and up to 4 descriptors built from the bytes
// (every pointer field pointing at valid memory or NULL, as a loaded library's would) go through
// mcp_checkLibrary and mcp_checkDescriptor; an accepted descriptor must satisfy the ABI rules.
int fuzzPluginDescriptor(const uint8_t* data, size_t size);

// Silence library messages (the default handler prints to stderr).
void fuzzQuiet(void);

#endif  // MODUCO_FUZZ_FUZZ_COMMON_H_
