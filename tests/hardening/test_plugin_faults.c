// Plugin faults missing from tests/plugin's fixture matrix: an init hook that fails (mc_makeData
// returns NULL with a message naming the plugin), a name clash with a built-in, and a model that
// names a rejected plugin (the load error carries the loader's reason and the file).
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/mcplugin.h>
#include <moduco/moduco.h>

#include "common.h"
#include "engine/io.h"
#include "plugin/loader.h"
#include "plugin/registry.h"

static int g_destroyed;


// an init hook that refuses
static int failingInit(const mcpHost* host, const mcModel* m, mcData* d, int instance) {
  (void)host;
  (void)m;
  (void)d;
  (void)instance;
  return -1;
}


// an init hook that accepts and marks its instance
static int goodInit(const mcpHost* host, const mcModel* m, mcData* d, int instance) {
  (void)host;
  (void)m;
  d->plugin_data[instance] = d;
  return 0;
}


static void countDestroy(const mcpHost* host, mcData* d, int instance) {
  (void)host;
  (void)d;
  (void)instance;
  g_destroyed++;
}


static mcNum dummyForce(const mcpHost* host, const mcModel* m, mcData* d, int id) {
  (void)host;
  (void)m;
  (void)d;
  (void)id;
  return 0;
}


static mcpActuator g_good = {
  MCP_HEADER(mcpKIND_ACTUATOR, mcpActuator, "test.goodinit", "1.0", "", -1),
  "goodinit", NULL, NULL, NULL, dummyForce, NULL, NULL};
static mcpActuator g_bad = {
  MCP_HEADER(mcpKIND_ACTUATOR, mcpActuator, "test.badinit", "1.0", "", -1),
  "badinit", NULL, NULL, NULL, dummyForce, NULL, NULL};


// a model with two plugin instances: a good one, then the failing one
Test(plugin_faults, init_failure_makes_data_null_with_message) {
  g_good.hdr.init = goodInit;
  g_good.hdr.destroy = countDestroy;
  g_bad.hdr.init = failingInit;
  mcModel sizes;
  memset(&sizes, 0, sizeof(sizes));
  mci_defaultOption(&sizes.opt);
  sizes.nbody = 1;
  sizes.nplugin = 2;
  mcModel* m = mci_makeModel(&sizes);
  cr_assert_not_null(m);
  m->plugin[0] = &g_good.hdr;
  m->plugin[1] = &g_bad.hdr;
  g_destroyed = 0;
  hardCaptureBegin();
  mcData* d = mc_makeData(m);
  hardCaptureEnd();
  cr_expect_null(d);
  cr_expect_eq(hardCaptureCountWith("test.badinit"), 1, "got '%s'", hardCaptureMessage(0));
  cr_expect_eq(hardCaptureCountWith("init failed"), 1);
  cr_expect_eq(g_destroyed, 1, "the instance made before the failure must be destroyed");

  // the host keeps running: the same model without the bad instance works
  m->nplugin = 1;
  cr_expect_eq(mc_pluginScan() >= 0, 1);
  mc_deleteModel(m);
}


// a third-party descriptor named like a built-in is refused, naming the file that owns the name
Test(plugin_faults, builtin_name_clash) {
  mc_pluginScan();
  cr_assert_not_null(mcp_find(mcpKIND_INTEGRATOR, "euler"), "the euler plugin must be built");
  mcpIntegrator clash = {
    MCP_HEADER(mcpKIND_INTEGRATOR, mcpIntegrator, "euler", "1.0", "", -1), NULL};
  char why[512] = "";
  cr_expect_eq(mcp_conflict(&clash.hdr, why, sizeof(why)), -1);
  cr_expect(strstr(why, "euler"), "why: '%s'", why);
  cr_expect(strstr(why, ".so"), "the reason should name the file: '%s'", why);

  // built-in names are lowercase: "EULER" is not a valid third-party name either
  char why2[512] = "";
  clash.hdr.name = "EULER";
  cr_expect_eq(mcp_checkDescriptor(&clash.hdr, why2, sizeof(why2)), -1);
}


// scanning the broken fixtures of tests/plugin, then loading a model that names one
Test(plugin_faults, model_naming_rejected_plugin_fails_with_reason) {
  char path[4096];
  snprintf(path, sizeof(path), "%s:%s", MODUCO_FIXTURE_DIR, MODUCO_BUILD_PLUGIN_DIR);
  setenv("MODUCO_PLUGIN_PATH", path, 1);
  hardCaptureBegin();
  mc_pluginScan();
  hardCaptureEnd();
  const char* msgs = mc_pluginMessages();
  cr_assert(strstr(msgs, "plugin 'test.single':"), "fixtures not rejected? messages:\n%s", msgs);

  // as an <extension> plugin
  char error[2048] = "";
  mcModel* m = mc_loadXMLString(
      "<mujoco><extension><plugin plugin=\"test.single\"/></extension><worldbody/></mujoco>",
      NULL, error, sizeof(error));
  cr_expect_null(m);
  cr_expect(strstr(error, "unknown plugin 'test.single'"), "error: %s", error);
  cr_expect(strstr(error, "rejected by the loader"), "error: %s", error);
  cr_expect(strstr(error, "fix-"), "the error should name the library file: %s", error);
  mc_deleteModel(m);

  // as the integrator
  m = mc_loadXMLString(
      "<mujoco><option integrator=\"test.single\"/><worldbody/></mujoco>", NULL, error,
      sizeof(error));
  cr_expect_null(m);
  cr_expect(strstr(error, "rejected by the loader"), "error: %s", error);
  mc_deleteModel(m);

  // the host keeps running: a good model still loads and steps
  m = hardLoad("models/pendulum.xml");
  mcData* d = mc_makeData(m);
  mc_step(m, d);
  cr_expect_gt(d->time, 0);
  mc_deleteData(d);
  mc_deleteModel(m);
}
