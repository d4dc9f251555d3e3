// Fuzz regression: every saved input under tests/hardening/inputs/<target>/ (crashes found by the
// fuzzers in fuzz/, and hand-written edge cases) replayed through the same harness entry points.
// A regression shows as a crash, a sanitizer report (ASan build) or a trap.
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

#include "common.h"
#include "fuzz_common.h"

typedef int (*Harness)(const uint8_t* data, size_t size);


// read a whole file; NULL if it cannot be read
static uint8_t* readFile(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t* buf = (uint8_t*)malloc(n > 0 ? (size_t)n : 1);
  size_t got = buf && n > 0 ? fread(buf, 1, (size_t)n, f) : 0;
  fclose(f);
  *size = got;
  return buf;
}


// replay every regular file of dir (relative to the source tree if relative); return the count
static int replayDir(const char* dir, Harness fn) {
  DIR* dp = opendir(dir);
  if (!dp) {
    return 0;
  }
  int count = 0;
  struct dirent* e;
  while ((e = readdir(dp))) {
    if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md")) {
      continue;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    size_t size = 0;
    uint8_t* data = readFile(path, &size);
    if (!data) {
      continue;
    }
    cr_log_info("replaying %s (%zu bytes)", path, size);
    fn(data, size);
    free(data);
    count++;
  }
  closedir(dp);
  return count;
}


Test(fuzz_regress, mjcf_inputs, .timeout = 600) {
  int n = replayDir(MODUCO_HARDENING_INPUTS "/mjcf", fuzzMJCF);
  cr_expect_gt(n, 0, "no saved MJCF inputs found");
  mc_setMessageHandler(NULL, NULL);
}


Test(fuzz_regress, mesh_inputs, .timeout = 600) {
  int n = replayDir(MODUCO_HARDENING_INPUTS "/mesh", fuzzMesh);
  cr_expect_gt(n, 0, "no saved mesh inputs found");
  mc_setMessageHandler(NULL, NULL);
}


Test(fuzz_regress, plugin_inputs) {
  int n = replayDir(MODUCO_HARDENING_INPUTS "/plugin", fuzzPluginDescriptor);
  cr_expect_gt(n, 0, "no saved plugin-descriptor inputs found");
}


// the bundled models go through the MJCF harness as the fuzzer's seeds do
Test(fuzz_regress, bundled_models_as_seeds, .timeout = 600) {
  int n = replayDir(MODUCO_SOURCE_DIR "/models", fuzzMJCF);
  cr_expect_gt(n, 0);
  mc_setMessageHandler(NULL, NULL);
}


// includes through the in-memory file system of the harness resolve, and a cycle is an error
Test(fuzz_regress, harness_includes_resolve) {
  const char main_xml[] =
      "<mujoco><include file=\"inc1.xml\"/></mujoco>\0"
      "<mujoco><worldbody><body><freejoint/><geom size=\"0.1\"/></body></worldbody></mujoco>";
  fuzzMJCF((const uint8_t*)main_xml, sizeof(main_xml) - 1);
  const char cycle[] =
      "<mujoco><include file=\"inc1.xml\"/></mujoco>\0"
      "<mujoco><include file=\"main.xml\"/></mujoco>";
  fuzzMJCF((const uint8_t*)cycle, sizeof(cycle) - 1);
  mc_setMessageHandler(NULL, NULL);
}
