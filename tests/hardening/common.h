// tests/hardening: shared helpers (model loading, trajectory hashing, message capture).
#ifndef MODUCO_TESTS_HARDENING_COMMON_H_
#define MODUCO_TESTS_HARDENING_COMMON_H_

#include <stdint.h>

#include <moduco/moduco.h>

// load a model from the source tree (path relative to the repository root); fail the test on error
mcModel* hardLoad(const char* relpath);

// load a model from an XML string; fail the test on error
mcModel* hardLoadString(const char* xml);

// 64-bit FNV-1a over raw bytes, continuing from h
uint64_t hardHash(uint64_t h, const void* bytes, size_t n);

// hash of time, qpos, qvel and act (bitwise)
uint64_t hardHashState(const mcModel* m, const mcData* d, uint64_t h);

// a deterministic open-loop control depending only on time and actuator index
void hardControl(const mcModel* m, mcData* d);

// run nstep steps with hardControl, hashing the state after every step; return the hash
uint64_t hardRun(const mcModel* m, mcData* d, int nstep);

// 1 if any entry of qpos, qvel, act, qacc or ctrl is NaN or infinite
int hardHasNonFinite(const mcModel* m, const mcData* d);

// message capture: install a handler that keeps every message (up to a limit)
void hardCaptureBegin(void);
void hardCaptureEnd(void);
int hardCaptureCount(void);
const char* hardCaptureMessage(int i);

// number of captured messages containing needle
int hardCaptureCountWith(const char* needle);

#endif  // MODUCO_TESTS_HARDENING_COMMON_H_
