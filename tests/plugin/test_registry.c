// Tests of core/plugin: discovery, ABI checks on broken fixture libraries, lookups.
//
// MODUCO_PLUGIN_PATH names the fixture folders (tests/plugin/CMakeLists.txt builds them); the
// built-in plugins come from the build tree. Criterion runs each test in its own process, so
// every test scans afresh.
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

#include "plugin/loader.h"
#include "plugin/registry.h"


// point the search path at the fixtures before the first scan; keep messages off stderr
static void quiet(void* user, const char* message) {
}


static void setup(void) {
  setenv("MODUCO_PLUGIN_PATH", MODUCO_FIXTURE_DIR ":" MODUCO_FIXTURE_DIR2 ":/nonexistent/dir:"
         MODUCO_BUILD_PLUGIN_DIR, 1);
  mc_setMessageHandler(quiet, NULL);
}


TestSuite(plugin_registry, .init = setup);


// real path of a fixture file
static const char* fixture(const char* file) {
  static char path[PATH_MAX];
  char tmp[PATH_MAX];
  snprintf(tmp, sizeof(tmp), "%s/%s", MODUCO_FIXTURE_DIR, file);
  cr_assert_not_null(realpath(tmp, path), "fixture %s missing", tmp);
  return path;
}


// the message line about file, which must contain reason
static void expectMessage(const char* file, const char* reason) {
  char prefix[PATH_MAX + 32];
  snprintf(prefix, sizeof(prefix), "plugin: %s: ", fixture(file));
  const char* all = mc_pluginMessages();
  const char* line = strstr(all, prefix);
  cr_assert_not_null(line, "no message about %s in:\n%s", file, all);
  const char* end = strchr(line, '\n');
  cr_assert_not_null(end);
  char text[2048];
  snprintf(text, sizeof(text), "%.*s", (int)(end - line), line);
  cr_expect_not_null(strstr(text, reason), "message '%s' lacks '%s'", text, reason);

  // exactly one message for the file
  cr_expect_null(strstr(end, prefix), "more than one message about %s:\n%s", file, all);
}


// no message is about file
static void expectNoMessage(const char* file) {
  char prefix[PATH_MAX + 32];
  snprintf(prefix, sizeof(prefix), "plugin: %s: ", fixture(file));
  cr_expect_null(strstr(mc_pluginMessages(), prefix), "unexpected message about %s:\n%s", file,
                 mc_pluginMessages());
}


//---------------------------------- broken libraries ----------------------------------------------

Test(plugin_registry, no_entry_symbol) {
  mc_pluginScan();
  expectMessage("fix-noentry.so", "no entry point 'mcp_library'");
}


Test(plugin_registry, library_abi_major) {
  mc_pluginScan();
  expectMessage("fix-libmajor.so", "library ABI version 2.");
}


Test(plugin_registry, descriptor_abi_major) {
  mc_pluginScan();
  char msg[128];
  snprintf(msg, sizeof(msg), "ABI version %d.%d is incompatible with the host's %d.%d",
           MCP_ABI_MAJOR + 1, MCP_ABI_MINOR, MCP_ABI_MAJOR, MCP_ABI_MINOR);
  expectMessage("fix-major.so", msg);
  cr_expect_null(mcp_find(mcpKIND_INTEGRATOR, "test.single"));
}


Test(plugin_registry, abi_minor_too_new) {
  mc_pluginScan();
  char msg[128];
  snprintf(msg, sizeof(msg), "ABI version %d.%d is newer than the host's %d.%d", MCP_ABI_MAJOR,
           MCP_ABI_MINOR + 1, MCP_ABI_MAJOR, MCP_ABI_MINOR);
  expectMessage("fix-minor.so", msg);
}


Test(plugin_registry, layout_stamp_mismatch) {
  mc_pluginScan();
  expectMessage("fix-layout.so", "library was built against a different mcModel/mcData layout "
                "(first difference at host field 'mcNum qpos_spring[nq][1];");
  expectMessage("fix-layoutsize.so", "library was built against a different mcData (sizeof");
  expectMessage("fix-nostamp.so", "carries no mcModel/mcData layout stamp");
  cr_expect_null(mcp_find(mcpKIND_INTEGRATOR, "test.single"));
}


Test(plugin_registry, precision_mismatch) {
  mc_pluginScan();
  expectMessage("fix-precision.so", "precision 4 (sizeof(mcNum)) does not match the host's 8");
}


Test(plugin_registry, struct_size_too_small) {
  mc_pluginScan();
  expectMessage("fix-size.so", "struct_size");
  expectMessage("fix-size.so", "smaller than the integrator descriptor of ABI 1.0");
}


Test(plugin_registry, unknown_kind) {
  mc_pluginScan();
  expectMessage("fix-kind.so", "unknown kind 99");
}


Test(plugin_registry, duplicate_name) {
  // the first (fix-a-good.so) is kept, the message names both files
  mc_pluginScan();
  expectMessage("fix-dup.so", "duplicate name: 'test.good' is already registered by");
  expectMessage("fix-dup.so", fixture("fix-a-good.so"));
  mcPluginInfo info;
  int n = mc_pluginCount();
  int found = 0;
  for (int i = 0; i < n; i++) {
    cr_assert_eq(mc_pluginInfo(i, &info), 0);
    if (!strcmp(info.name, "test.good")) {
      found++;
      cr_expect_str_eq(info.file, fixture("fix-a-good.so"));
    }
  }
  cr_expect_eq(found, 1);
}


Test(plugin_registry, bad_name) {
  mc_pluginScan();
  expectMessage("fix-badname.so", "invalid name 'Bad Name!'");
}


Test(plugin_registry, null_callback) {
  mc_pluginScan();
  expectMessage("fix-nullcb.so", "mandatory callback 'step' is NULL");
}


Test(plugin_registry, entry_returns_null) {
  mc_pluginScan();
  expectMessage("fix-nullentry.so", "returned NULL");
}


Test(plugin_registry, not_an_elf_file) {
  mc_pluginScan();
  expectMessage("not-elf.so", "dlopen failed: ");
}


Test(plugin_registry, missing_directory_reported) {
  mc_pluginScan();
  cr_expect_not_null(strstr(mc_pluginMessages(), "plugin: /nonexistent/dir: cannot open"));
}


Test(plugin_registry, mixed_library_keeps_good_plugin) {
  // the bad descriptor is reported, the good one of the same library registered
  mc_pluginScan();
  expectMessage("fix-mixed.so", "plugin 'test.mixed_bad': mandatory callback 'solve' is NULL");
  cr_expect_not_null(mcp_find(mcpKIND_INTEGRATOR, "test.mixed_ok"));
  cr_expect_null(mcp_find(mcpKIND_SOLVER, "test.mixed_bad"));
}


Test(plugin_registry, symlink_loaded_once_with_real_path) {
  // fix-0-link.so (sorted first) and fixtures2/link-good.so both point at fix-a-good.so
  mc_pluginScan();
  expectNoMessage("fix-a-good.so");
  cr_expect_null(strstr(mc_pluginMessages(), "link"), "%s", mc_pluginMessages());
  int n = mc_pluginCount();
  int count = 0;
  for (int i = 0; i < n; i++) {
    mcPluginInfo info;
    cr_assert_eq(mc_pluginInfo(i, &info), 0);
    cr_expect_null(strstr(info.file, "link"), "listed with the link path: %s", info.file);
    if (!strcmp(info.file, fixture("fix-a-good.so"))) {
      count++;
    }
  }
  cr_expect_eq(count, 7, "the good library registers 7 plugins once, got %d", count);
}


Test(plugin_registry, earlier_folder_overrides_file_name) {
  // fixtures2/fix-mixed.so (a copy of fix-dup.so) is skipped: fixtures/fix-mixed.so came first
  mc_pluginScan();
  char dir2[PATH_MAX];
  cr_assert_not_null(realpath(MODUCO_FIXTURE_DIR2, dir2));
  cr_expect_null(strstr(mc_pluginMessages(), dir2), "%s", mc_pluginMessages());
  cr_expect_not_null(mcp_find(mcpKIND_INTEGRATOR, "test.mixed_ok"));
}


Test(plugin_registry, one_message_per_bad_file) {
  // 16 broken files or descriptors in the fixture folder, one line each
  mc_pluginScan();
  char prefix[PATH_MAX + 16];
  char dir[PATH_MAX];
  cr_assert_not_null(realpath(MODUCO_FIXTURE_DIR, dir));
  snprintf(prefix, sizeof(prefix), "plugin: %s/", dir);
  int lines = 0;
  for (const char* p = strstr(mc_pluginMessages(), prefix); p; p = strstr(p + 1, prefix)) {
    lines++;
  }
  cr_expect_eq(lines, 16, "messages:\n%s", mc_pluginMessages());
}


//---------------------------------- good plugins and lookups --------------------------------------

Test(plugin_registry, good_plugins_load) {
  mc_pluginScan();
  cr_expect_not_null(mcp_find(mcpKIND_INTEGRATOR, "test.good"));
  cr_expect_not_null(mcp_find(mcpKIND_SOLVER, "test.solver"));
  cr_expect_not_null(mcp_find(mcpKIND_POSTSOLVER, "test.post"));
  cr_expect_not_null(mcp_find(mcpKIND_COLLISION, "test.col_lo"));
  cr_expect_not_null(mcp_find(mcpKIND_ACTUATOR, "test.act"));
  cr_expect_not_null(mcp_find(mcpKIND_SENSOR, "test.sensor"));

  // kind is part of the lookup; kind 0 means any
  cr_expect_null(mcp_find(mcpKIND_SOLVER, "test.good"));
  cr_expect_not_null(mcp_find(0, "test.good"));
}


Test(plugin_registry, builtin_integrators_from_build_tree) {
  const mcpIntegrator* euler = (const mcpIntegrator*)mcp_find(mcpKIND_INTEGRATOR, "euler");
  const mcpIntegrator* rk4 = (const mcpIntegrator*)mcp_find(mcpKIND_INTEGRATOR, "rk4");
  cr_assert_not_null(euler, "%s", mc_pluginMessages());
  cr_assert_not_null(rk4);
  cr_expect_eq(euler->hdr.code, mcINT_EULER);
  cr_expect_eq(rk4->hdr.code, mcINT_RK4);
  cr_expect_not_null(euler->step);
}


Test(plugin_registry, builtin_names_case_insensitive) {
  mc_pluginScan();
  const mcpHeader* euler = mcp_find(mcpKIND_INTEGRATOR, "euler");
  cr_assert_not_null(euler);
  cr_expect_eq(mcp_find(mcpKIND_INTEGRATOR, "Euler"), euler);
  cr_expect_eq(mcp_find(mcpKIND_INTEGRATOR, "EULER"), euler);
  cr_expect_not_null(mcp_find(mcpKIND_INTEGRATOR, "RK4"));

  // namespaced names are exact
  cr_expect_null(mcp_find(mcpKIND_INTEGRATOR, "Test.Good"));
  cr_expect_null(mcp_find(mcpKIND_INTEGRATOR, "nosuch"));
  cr_expect_null(mcp_find(mcpKIND_INTEGRATOR, NULL));
}


Test(plugin_registry, elements) {
  const mcpActuator* a = mcp_findActuatorElement("testact");
  const mcpSensor* s = mcp_findSensorElement("testsensor");
  cr_assert_not_null(a);
  cr_assert_not_null(s);
  cr_expect_str_eq(a->hdr.name, "test.act");
  cr_expect_str_eq(s->hdr.name, "test.sensor");
  cr_expect_null(mcp_findActuatorElement("testsensor"));
  cr_expect_null(mcp_findSensorElement(NULL));
}


Test(plugin_registry, collision_priority_order) {
  // descending priority: test.col_hi (7) before built-ins (0) before test.col_lo (-5)
  int n = mcp_collisionCount();
  cr_assert_geq(n, 2);
  int prev = 1 << 30, hi = -1, lo = -1;
  for (int i = 0; i < n; i++) {
    const mcpCollision* c = mcp_collision(i);
    cr_assert_not_null(c);
    cr_expect_leq(c->priority, prev);
    prev = c->priority;
    hi = !strcmp(c->hdr.name, "test.col_hi") ? i : hi;
    lo = !strcmp(c->hdr.name, "test.col_lo") ? i : lo;
  }
  cr_expect(hi >= 0 && lo > hi);
  cr_expect_null(mcp_collision(n));
  cr_expect_null(mcp_collision(-1));
}


Test(plugin_registry, list_names) {
  char buf[1024];
  mcp_listNames(mcpKIND_INTEGRATOR, buf, sizeof(buf));
  cr_expect_not_null(strstr(buf, "test.good"), "%s", buf);
  cr_expect_not_null(strstr(buf, "euler"), "%s", buf);
  cr_expect_not_null(strstr(buf, ", "), "%s", buf);
  cr_expect_null(strstr(buf, "test.solver"), "%s", buf);

  // truncation keeps whole names and a terminated string
  char small[12];
  mcp_listNames(mcpKIND_INTEGRATOR, small, sizeof(small));
  cr_expect_lt(strlen(small), sizeof(small));
}


Test(plugin_registry, info) {
  int n = mc_pluginScan();
  cr_assert_eq(n, mc_pluginCount());
  mcPluginInfo info;
  cr_expect_eq(mc_pluginInfo(-1, &info), -1);
  cr_expect_eq(mc_pluginInfo(n, &info), -1);
  for (int i = 0; i < n; i++) {
    cr_assert_eq(mc_pluginInfo(i, &info), 0);
    if (!strcmp(info.name, "test.good")) {
      cr_expect_str_eq(info.kind, "integrator");
      cr_expect_str_eq(info.version, "1.2.3");
      cr_expect_str_eq(info.description, "good integrator");
    }
  }
}


Test(plugin_registry, kind_names) {
  cr_expect_str_eq(mcp_kindName(mcpKIND_SOLVER), "solver");
  cr_expect_str_eq(mcp_kindName(mcpKIND_POSTSOLVER), "postsolver");
  cr_expect_str_eq(mcp_kindName(mcpKIND_INTEGRATOR), "integrator");
  cr_expect_str_eq(mcp_kindName(mcpKIND_COLLISION), "collision");
  cr_expect_str_eq(mcp_kindName(mcpKIND_ACTUATOR), "actuator");
  cr_expect_str_eq(mcp_kindName(mcpKIND_SENSOR), "sensor");
  cr_expect_str_eq(mcp_kindName(42), "unknown");
}


Test(plugin_registry, host_table) {
  const mcpHost* host = mcp_host();
  cr_assert_not_null(host);
  cr_expect_eq(host->abi_major, MCP_ABI_MAJOR);
  cr_expect_eq(host->abi_minor, MCP_ABI_MINOR);
  cr_expect_eq(host->struct_size, sizeof(mcpHost));
  cr_expect_eq(host->precision, sizeof(mcNum));
  cr_expect_not_null(host->warning);
  cr_expect_not_null(host->message);
  cr_expect_not_null(host->markStack);
  cr_expect_not_null(host->freeStack);
  cr_expect_not_null(host->stackAlloc);
  cr_expect_not_null(host->mulM);
  cr_expect_not_null(host->solveM);
  cr_expect_not_null(host->factorI);
  cr_expect_not_null(host->solveLD);
}


Test(plugin_registry, scan_is_once) {
  int n = mc_pluginScan();
  const char* msg = mc_pluginMessages();
  cr_expect_eq(mc_pluginScan(), n);
  cr_expect_eq(mc_pluginMessages(), msg);
}


//---------------------------------- pure checks ---------------------------------------------------

Test(plugin_registry, names) {
  cr_expect(mcp_validName("euler"));
  cr_expect(mcp_validName("implicit-fast_2"));
  cr_expect(mcp_validName("acme.midpoint"));
  cr_expect(mcp_validName("acme.kind.Name-2"));
  cr_expect(!mcp_validName(NULL));
  cr_expect(!mcp_validName(""));
  cr_expect(!mcp_validName("Euler"));
  cr_expect(!mcp_validName("has space"));
  cr_expect(!mcp_validName(".acme"));
  cr_expect(!mcp_validName("acme."));
  cr_expect(!mcp_validName("acme..x"));
  cr_expect(!mcp_validName("acme/x"));
  char longname[MCP_MAXNAME + 1];
  memset(longname, 'a', MCP_MAXNAME);
  longname[MCP_MAXNAME] = 0;
  cr_expect(!mcp_validName(longname));
  longname[MCP_MAXNAME - 1] = 0;
  cr_expect(mcp_validName(longname));
}


static void stepNothing(const mcpHost* host, const mcModel* m, mcData* d) {
}


Test(plugin_registry, descriptor_checks_in_memory) {
  char why[512];
  mcpIntegrator in = {MCP_HEADER(mcpKIND_INTEGRATOR, mcpIntegrator, "x.y", "1", "", -1),
                      stepNothing};
  cr_expect_eq(mcp_checkDescriptor(&in.hdr, why, sizeof(why)), 0, "%s", why);

  // reserved flags
  in.hdr.flags = 1;
  cr_expect_eq(mcp_checkDescriptor(&in.hdr, why, sizeof(why)), -1);
  cr_expect_not_null(strstr(why, "reserved flags"));
  in.hdr.flags = 0;

  // a NULL descriptor
  cr_expect_eq(mcp_checkDescriptor(NULL, why, sizeof(why)), -1);

  // collision pair tables
  mcpCollisionPair pair = {mcGEOM_BOX, mcGEOM_SPHERE, NULL};
  mcpCollision col = {MCP_HEADER(mcpKIND_COLLISION, mcpCollision, "x.col", "1", "", -1), 0, 0,
                      NULL};
  cr_expect_eq(mcp_checkDescriptor(&col.hdr, why, sizeof(why)), -1);
  cr_expect_not_null(strstr(why, "pair table"));
  col.npair = 1;
  col.pair = &pair;
  cr_expect_eq(mcp_checkDescriptor(&col.hdr, why, sizeof(why)), -1);
  cr_expect_not_null(strstr(why, "geom types"), "%s", why);

  // library struct
  mcpLibrary lib = MCP_LIBRARY("x", 0, NULL);
  cr_expect_eq(mcp_checkLibrary(&lib, why, sizeof(why)), -1);
  cr_expect_not_null(strstr(why, "no plugins"));
  lib.nplugin = -3;
  cr_expect_eq(mcp_checkLibrary(&lib, why, sizeof(why)), -1);
  lib.nplugin = 2;
  cr_expect_eq(mcp_checkLibrary(&lib, why, sizeof(why)), -1);
  cr_expect_not_null(strstr(why, "NULL"));
  lib.struct_size = 8;
  cr_expect_eq(mcp_checkLibrary(&lib, why, sizeof(why)), -1);
  cr_expect_not_null(strstr(why, "struct_size"));
}
