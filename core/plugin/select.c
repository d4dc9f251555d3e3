// Moduco core: replacing a compiled model's integrator or solver by another registered plugin
// (the `--integrator` / `--solver` switches of `moduco run`, A/B benchmarks, Python's
// set_solver). The model's instance of the old plugin is replaced by one of the new plugin
// (core/plugin/replace.c): call before making mcData from the model (docs/plugins.md).
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "engine/io.h"
#include "plugin/registry.h"


// resolve a plugin of a kind by name; on failure write the available names to error
static const mcpHeader* resolve(int kind, const char* name, char* error, int error_sz) {
  const mcpHeader* p = name ? mcp_find(kind, name) : NULL;
  if (!p && error && error_sz > 0) {
    char list[1024];
    mcp_listNames(kind, list, sizeof(list));
    snprintf(error, (size_t)error_sz, "unknown %s '%s' (available: %s)", mcp_kindName(kind),
             name ? name : "(null)", list[0] ? list : "none");
  }
  return p;
}


// select plugin name of kind as the model-wide instance of that kind
static int replace(mcModel* m, int kind, const char* name, char* error, int error_sz) {
  char why[1024] = "";
  const mcpHeader* p = resolve(kind, name, error, error_sz);
  if (!m || !p) {
    return -1;
  }
  if (mcp_replaceSingleton(m, kind, p, why, sizeof(why))) {
    if (error && error_sz > 0) {
      snprintf(error, (size_t)error_sz, "cannot select %s '%s': %s", mcp_kindName(kind), p->name,
               why);
    }
    return -1;
  }
  mci_modelChanged();             // data made before may no longer fit (mc_step checks again)
  return 0;
}


int mc_setIntegrator(mcModel* m, const char* name, char* error, int error_sz) {
  return replace(m, mcpKIND_INTEGRATOR, name, error, error_sz);
}


int mc_setSolver(mcModel* m, const char* name, char* error, int error_sz) {
  return replace(m, mcpKIND_SOLVER, name, error, error_sz);
}
