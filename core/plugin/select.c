// Moduco core: replacing a compiled model's integrator or solver by another registered plugin
// (the `--integrator` / `--solver` switches of `moduco run`, and A/B benchmarks).
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

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


int mc_setIntegrator(mcModel* m, const char* name, char* error, int error_sz) {
  const mcpHeader* p = resolve(mcpKIND_INTEGRATOR, name, error, error_sz);
  if (!p) {
    return -1;
  }
  m->integrator = (const mcpIntegrator*)p;
  m->opt.integrator = p->code >= 0 ? p->code : mcINT_OTHER;
  snprintf(m->opt.integrator_name, sizeof(m->opt.integrator_name), "%s", p->name);
  return 0;
}


int mc_setSolver(mcModel* m, const char* name, char* error, int error_sz) {
  const mcpHeader* p = resolve(mcpKIND_SOLVER, name, error, error_sz);
  if (!p) {
    return -1;
  }
  m->solver = (const mcpSolver*)p;
  m->opt.solver = p->code >= 0 ? p->code : mcSOL_OTHER;
  snprintf(m->opt.solver_name, sizeof(m->opt.solver_name), "%s", p->name);
  return 0;
}
