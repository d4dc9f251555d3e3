// Moduco core: replacing the model-wide integrator or solver instance of a compiled model by an
// instance of another plugin (mc_setIntegrator / mc_setSolver). The result is the model the
// compiler would have made had the file selected that plugin without configuring it: the new
// instance takes the old one's index, its declared defaults, its state and data sizes and its
// warnings. The model is one buffer laid out from its sizes, so the work is done on a copy at the
// new sizes, which replaces the model's contents only when everything succeeded (the old buffer
// is kept until mc_deleteModel: views into it may exist).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "compiler/plugin_defaults.h"
#include "engine/io.h"
#include "plugin/registry.h"

#define MAXSTATE (1 << 24)              // limits of the compiler (compiler_plugin.c)
#define MAXDATA ((size_t)1 << 30)


// number of warnings h declares
static int warningCount(const mcpHeader* h) {
  const mcpPluginExt* ext = mcp_ext(h);
  int n = 0;
  while (ext && ext->warnings && ext->warnings[n]) {
    n++;
  }
  return n;
}


// bytes of the first nw "plugin: warning" name strings of h
static int warningBytes(const mcpHeader* h, int nw) {
  const mcpPluginExt* ext = mcp_ext(h);
  int bytes = 0;
  for (int w = 0; w < nw; w++) {
    bytes += (int)(strlen(h->name) + 2 + strlen(ext->warnings[w]) + 1);
  }
  return bytes;
}


// lay out instance i of n (whose sizes already make room for it) with descriptor h and config
// values def; old holds the configuration values of m before the change
static void layOut(mcModel* n, int i, const mcpHeader* h, const mcNum* def, int ndef,
                   const mcNum* old, int objbytes) {
  n->plugin[i] = h;
  n->plugin_objtype[i] = -1;
  n->plugin_objid[i] = -1;
  int configadr = 0, warnadr = 0;
  for (int j = 0; j < n->nplugin; j++) {
    if (j == i) {
      if (ndef) {
        memcpy(n->plugin_config + configadr, def, sizeof(mcNum) * (size_t)ndef);
      }
      n->plugin_confignum[j] = ndef;
      n->plugin_warnnum[j] = warningCount(h);
    } else if (n->plugin_confignum[j]) {
      memcpy(n->plugin_config + configadr, old + n->plugin_configadr[j],
             sizeof(mcNum) * (size_t)n->plugin_confignum[j]);
    }
    n->plugin_configadr[j] = configadr;
    n->plugin_warnadr[j] = warnadr;
    configadr += n->plugin_confignum[j];
    warnadr += n->plugin_warnnum[j];
  }
  mcp_warningNames(n, n->names + objbytes);
}


// state and data sizes of every instance, asked of the plugins on the finished model n
static int storage(mcModel* n, char* error, int error_sz) {
  int adr = 0;
  for (int i = 0; i < n->nplugin; i++) {
    const mcpPluginExt* ext = mcp_ext(n->plugin[i]);
    int ns = ext && ext->nstate ? ext->nstate(mcp_host(), n, i) : 0;
    size_t bytes = ext && ext->ndata ? ext->ndata(mcp_host(), n, i) : 0;
    if (ns < 0 || ns > MAXSTATE || bytes > MAXDATA) {
      snprintf(error, (size_t)error_sz, "plugin '%s' asks for %d state numbers and %zu bytes of "
               "data (instance %d)", n->plugin[i]->name, ns, bytes, i);
      return -1;
    }
    n->plugin_stateadr[i] = ns ? adr : -1;
    n->plugin_statenum[i] = ns;
    n->plugin_datasize[i] = (int)bytes;
    adr += ns;
  }
  n->npluginstate = adr;
  return 0;
}


// point the kind's descriptor, instance and option fields of n at h and instance i
static void choose(mcModel* n, int kind, const mcpHeader* h, int i) {
  if (kind == mcpKIND_INTEGRATOR) {
    n->integrator = (const mcpIntegrator*)h;
    n->plugin_integrator = i;
    n->opt.integrator = h->code >= 0 ? h->code : mcINT_OTHER;
    snprintf(n->opt.integrator_name, sizeof(n->opt.integrator_name), "%s", h->name);
  } else {
    n->solver = (const mcpSolver*)h;
    n->plugin_solver = i;
    n->opt.solver = h->code >= 0 ? h->code : mcSOL_OTHER;
    snprintf(n->opt.solver_name, sizeof(n->opt.solver_name), "%s", h->name);
  }
}


// the model m with instance i (nplugin: a new last one) of h, in a new allocation; NULL on failure
static mcModel* rebuilt(const mcModel* m, int kind, int i, const mcpHeader* h, const mcNum* def,
                        int ndef, char* error, int error_sz) {
  int append = i == m->nplugin;
  int warnbytes = mcp_warningNames(m, NULL);
  mcModel sizes = *m;
  sizes.nplugin += append;
  sizes.npluginconfig += ndef - (append ? 0 : m->plugin_confignum[i]);
  sizes.npluginwarn += warningCount(h) - (append ? 0 : m->plugin_warnnum[i]);
  sizes.nnames += warningBytes(h, warningCount(h)) -
                  (append ? 0 : warningBytes(m->plugin[i], m->plugin_warnnum[i]));

  mcModel* n = mci_resizedCopy(m, &sizes);
  if (!n) {
    snprintf(error, (size_t)error_sz, "out of memory");
    return NULL;
  }
  layOut(n, i, h, def, ndef, m->plugin_config, m->nnames - warnbytes);
  choose(n, kind, h, i);
  if (storage(n, error, error_sz)) {
    mc_deleteModel(n);
    return NULL;
  }
  return n;
}


int mcp_replaceSingleton(mcModel* m, int kind, const mcpHeader* h, char* error, int error_sz) {
  int i = kind == mcpKIND_INTEGRATOR ? m->plugin_integrator : m->plugin_solver;
  if (i < 0 || i >= m->nplugin) {
    i = m->nplugin;               // no instance yet: a new last one
  } else if (m->plugin[i] == h) {
    return 0;                     // already selected: keep its configuration
  }

  // the declared defaults (a required key cannot be given here)
  int ndef = mcc_defaultConfig(h, NULL, 0, error, error_sz);
  mcNum* def = ndef > 0 ? (mcNum*)malloc(sizeof(mcNum) * (size_t)ndef) : NULL;
  if (ndef < 0 || (ndef > 0 && (!def || mcc_defaultConfig(h, def, ndef, error, error_sz) < 0))) {
    if (ndef > 0 && !def) {
      snprintf(error, (size_t)error_sz, "out of memory");
    }
    free(def);
    return -1;
  }
  mcModel* n = rebuilt(m, kind, i, h, def, ndef, error, error_sz);
  free(def);
  if (!n) {
    return -1;
  }

  mci_replaceModel(m, n);
  return 0;
}
