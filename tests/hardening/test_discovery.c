// Plugin discovery isolated from the host: hostile libraries (fixtures/hostile.c) that crash,
// abort, exit or hang while loading are probed in a child process and skipped with a message
// naming them and the reason; the host (this test process) survives and keeps the built-ins. A
// library claiming a built-in name is refused. The probe verdicts are cached, so a later scan
// does not load a failed library again, and a changed file is probed again.
//
// Criterion runs each test in its own process, so each test gets its own (single) scan; the cache
// tests fork one child per scan.
#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <moduco/mcplugin.h>
#include <moduco/moduco.h>

#include "common.h"
#include "plugin/registry.h"

static char g_dir[256];


static void setup(void) {
  snprintf(g_dir, sizeof(g_dir), "/tmp/moduco-discovery-XXXXXX");
  cr_assert_not_null(mkdtemp(g_dir));
  setenv("MODUCO_PLUGIN_PROBE_TIMEOUT", "1", 1);
}


static void teardown(void) {
  char cmd[512];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
  if (system(cmd)) {
    fprintf(stderr, "could not remove %s\n", g_dir);
  }
}


TestSuite(discovery, .init = setup, .fini = teardown, .timeout = 120);


// a file of the hostile folder copied into the scratch folder (a fresh inode and mtime)
static void copyHostile(const char* name) {
  char cmd[1024];
  snprintf(cmd, sizeof(cmd), "cp '%s/%s' '%s/'", MODUCO_HOSTILE_DIR, name, g_dir);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
}


// every hostile library is skipped with its reason; the host survives with the real built-ins
Test(discovery, hostile_libraries_skipped_with_reason) {
  char path[4096];
  snprintf(path, sizeof(path), "%s:%s", MODUCO_HOSTILE_DIR, MODUCO_BUILD_PLUGIN_DIR);
  setenv("MODUCO_PLUGIN_PATH", path, 1);
  setenv("MODUCO_PLUGIN_CACHE", "off", 1);
  hardCaptureBegin();
  int n = mc_pluginScan();
  hardCaptureEnd();
  const char* msgs = mc_pluginMessages();
  cr_assert_gt(n, 0);

  const struct {
    const char* file;
    const char* reason;
  } cases[] = {
    {"hostile-crash-entry.so", "crashed while loading (signal 11, SIGSEGV"},
    {"hostile-crash-ctor.so", "crashed while loading (signal 11, SIGSEGV"},
    {"hostile-abort-entry.so", "crashed while loading (signal 6, SIGABRT"},
    {"hostile-exit-entry.so", "ended the process while loading (exit status 3"},
    {"hostile-exit-ctor.so", "ended the process while loading (exit status 0"},
    {"hostile-hang-entry.so", "did not finish loading within 1 s"},
    {"hostile-hang-ctor.so", "did not finish loading within 1 s"},
    {"hostile-reserved.so", "plugin 'euler': the name is reserved for moduco's built-in"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char line[512];
    snprintf(line, sizeof(line), "plugin: %s/%s: %s", MODUCO_HOSTILE_DIR, cases[i].file,
             cases[i].reason);
    cr_expect(strstr(msgs, line), "missing '%s' in:\n%s", line, msgs);
    cr_expect_eq(hardCaptureCountWith(cases[i].file), 1, "%s reported %d times", cases[i].file,
                 hardCaptureCountWith(cases[i].file));
  }

  // the good control library is registered; the refused ones are not, not even their valid names
  cr_expect_not_null(mcp_find(mcpKIND_INTEGRATOR, "hostile.step"));
  cr_expect_null(mcp_find(mcpKIND_INTEGRATOR, "hostile.own"));

  // "euler" is the real one from the build tree, and it steps (a falling body gains speed)
  int found = 0;
  for (int i = 0; i < mc_pluginCount(); i++) {
    mcPluginInfo info;
    if (!mc_pluginInfo(i, &info) && !strcmp(info.name, "euler")) {
      found++;
      cr_expect(strstr(info.file, MODUCO_BUILD_PLUGIN_DIR) == info.file, "euler from %s",
                info.file);
    }
  }
  cr_expect_eq(found, 1);
  mcModel* m = hardLoadString(
      "<mujoco><option integrator=\"Euler\"/><worldbody><body><freejoint/>"
      "<geom size=\"0.1\"/></body></worldbody></mujoco>");
  mcData* d = mc_makeData(m);
  for (int i = 0; i < 10; i++) {
    mc_step(m, d);
  }
  cr_expect_lt(d->qvel[2], -0.1, "the body must fall (qvel z %g)", d->qvel[2]);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// one scan in a child process; returns 1 if the messages contain needle
static int scanInChild(const char* needle) {
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    hardCaptureBegin();
    mc_pluginScan();
    hardCaptureEnd();
    _exit(strstr(mc_pluginMessages(), needle) ? 1 : 0);
  }
  int status = 0;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status), "the scan took the process down (status %d)", status);
  return WEXITSTATUS(status);
}


// lines in a file (0 if absent)
static int lines(const char* file) {
  FILE* f = fopen(file, "r");
  if (!f) {
    return 0;
  }
  int n = 0, c;
  while ((c = fgetc(f)) != EOF) {
    n += c == '\n';
  }
  fclose(f);
  return n;
}


// the verdict is cached: a failed library is not loaded again until its file changes
Test(discovery, verdicts_cached_until_the_file_changes) {
  copyHostile("hostile-exit-ctor.so");
  copyHostile("hostile-good.so");
  char cache[512], log[512], lib[512];
  snprintf(cache, sizeof(cache), "%s/cache/plugins.cache", g_dir);
  snprintf(log, sizeof(log), "%s/probe.log", g_dir);
  snprintf(lib, sizeof(lib), "%s/hostile-exit-ctor.so", g_dir);
  char dir[512];
  snprintf(dir, sizeof(dir), "%s/cache", g_dir);
  cr_assert_eq(mkdir(dir, 0700), 0);
  setenv("MODUCO_PLUGIN_PATH", g_dir, 1);
  setenv("MODUCO_PLUGIN_CACHE", cache, 1);
  setenv("MODUCO_TEST_PROBE_LOG", log, 1);

  // first scan: each library probed once (child); the good one then loaded in-process
  cr_expect_eq(scanInChild("exit status 0"), 1);
  cr_expect_eq(lines(log), 3, "first scan: %d loads", lines(log));
  struct stat st;
  cr_expect_eq(stat(cache, &st), 0, "the cache file was not written");

  // second scan: from the cache; the failed library is reported again but not loaded
  cr_expect_eq(scanInChild("exit status 0"), 1);
  cr_expect_eq(lines(log), 4, "second scan: %d loads (only the good library's)", lines(log));

  // the file changes: probed again
  cr_assert_eq(utimensat(AT_FDCWD, lib, NULL, 0), 0);
  cr_expect_eq(scanInChild("exit status 0"), 1);
  cr_expect_eq(lines(log), 6, "after touching: %d loads", lines(log));

  // MODUCO_PLUGIN_CACHE=off: probed every time
  setenv("MODUCO_PLUGIN_CACHE", "off", 1);
  cr_expect_eq(scanInChild("exit status 0"), 1);
  cr_expect_eq(lines(log), 9, "cache off: %d loads", lines(log));
}


// a damaged or foreign cache file is ignored (libraries probed again), never trusted
Test(discovery, damaged_cache_ignored) {
  copyHostile("hostile-crash-entry.so");
  char cache[512];
  snprintf(cache, sizeof(cache), "%s/plugins.cache", g_dir);
  FILE* f = fopen(cache, "w");
  cr_assert_not_null(f);
  fprintf(f, "garbage\n0 1 2\nffffffffffffffff 1 2 3 4 5 6 7 1 %s/hostile-crash-entry.so\n",
          g_dir);
  fputc(0, f);
  fclose(f);
  setenv("MODUCO_PLUGIN_PATH", g_dir, 1);
  setenv("MODUCO_PLUGIN_CACHE", cache, 1);
  cr_expect_eq(scanInChild("SIGSEGV"), 1, "the forged 'ok' verdict must not be used");

  // a cache path that is not a regular file is neither read nor replaced
  setenv("MODUCO_PLUGIN_CACHE", "/dev/null", 1);
  cr_expect_eq(scanInChild("SIGSEGV"), 1);
  struct stat st;
  cr_expect_eq(stat("/dev/null", &st), 0);
  cr_expect(S_ISCHR(st.st_mode));
}


static void* scanThread(void* arg) {
  *(int*)arg = mc_pluginScan();
  return NULL;
}


// several threads ask for the registry at once: one scan, the same answer for all; the probe's
// hang verdicts are not cached from a multi-threaded process (a lock held by another thread at
// fork time could be the cause), its crash verdicts are
Test(discovery, concurrent_first_scan) {
  copyHostile("hostile-crash-entry.so");
  copyHostile("hostile-hang-entry.so");
  copyHostile("hostile-good.so");
  char cache[512];
  snprintf(cache, sizeof(cache), "%s/plugins.cache", g_dir);
  setenv("MODUCO_PLUGIN_PATH", g_dir, 1);
  setenv("MODUCO_PLUGIN_CACHE", cache, 1);

  enum { NTHREAD = 4 };
  pthread_t th[NTHREAD];
  int count[NTHREAD] = {0};
  hardCaptureBegin();
  for (int i = 0; i < NTHREAD; i++) {
    cr_assert_eq(pthread_create(th + i, NULL, scanThread, count + i), 0);
  }
  for (int i = 0; i < NTHREAD; i++) {
    pthread_join(th[i], NULL);
  }
  hardCaptureEnd();
  for (int i = 1; i < NTHREAD; i++) {
    cr_expect_eq(count[i], count[0]);
  }
  cr_expect_eq(hardCaptureCountWith("hostile-crash-entry.so: crashed"), 1);
  cr_expect_eq(hardCaptureCountWith("hostile-hang-entry.so: did not finish"), 1);
  cr_expect_not_null(mcp_find(mcpKIND_INTEGRATOR, "hostile.step"));

  // the cache holds the crash and the good library, not the hang
  FILE* f = fopen(cache, "r");
  cr_assert_not_null(f, "no cache written");
  char text[65536];
  size_t n = fread(text, 1, sizeof(text) - 1, f);
  text[n] = 0;
  fclose(f);
  cr_expect(strstr(text, "hostile-crash-entry.so\tcrashed"), "cache:\n%s", text);
  cr_expect(strstr(text, "hostile-good.so"), "cache:\n%s", text);
  cr_expect(!strstr(text, "hostile-hang-entry.so"), "cache:\n%s", text);
}
