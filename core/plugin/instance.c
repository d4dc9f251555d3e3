// Moduco core: plugin instances at run time: the host functions instance, config and
// pluginWarning (mcpHost, ABI 1.3), and the names of plugin-defined warnings.
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "engine/io.h"
#include "plugin/registry.h"


int mcp_instance(const mcModel* m, const mcpHeader* desc) {
  if (!m || !desc || !m->plugin) {
    return -1;
  }
  for (int i = 0; i < m->nplugin; i++) {
    if (m->plugin[i] == desc && m->plugin_objtype[i] < 0 && desc->kind != mcpKIND_ACTUATOR &&
        desc->kind != mcpKIND_SENSOR) {
      return i;
    }
  }
  return -1;
}


const mcNum* mcp_config(const mcModel* m, int instance, const char* key, int* count) {
  if (count) {
    *count = 0;
  }
  if (!m || !key || instance < 0 || instance >= m->nplugin) {
    return NULL;
  }
  const mcpPluginExt* ext = mcp_ext(m->plugin[instance]);
  int adr = m->plugin_configadr[instance];
  for (int k = 0; ext && k < ext->nconfig; k++) {
    if (!strcmp(ext->config[k].name, key)) {
      if (count) {
        *count = ext->config[k].count;
      }
      return m->plugin_config + adr;
    }
    adr += ext->config[k].count;
  }
  return NULL;
}


void mcp_pluginWarning(const mcModel* m, mcData* d, int instance, int warning, int info) {
  if (!m || !d || instance < 0 || instance >= m->nplugin || warning < 0 ||
      warning >= m->plugin_warnnum[instance]) {
    return;
  }
  int k = m->plugin_warnadr[instance] + warning;
  if (d->plugin_warncount[k] == 0) {
    mci_message("plugin warning '%s' (instance %d, info %d): first occurrence, counted in "
                "plugin_warncount[%d]", mc_pluginWarningName(m, k), instance, info, k);
  }
  d->plugin_warncount[k]++;
  d->plugin_warninfo[k] = info;
}


int mcp_warningNames(const mcModel* m, char* out) {
  int bytes = 0;
  for (int i = 0; i < m->nplugin; i++) {
    const mcpPluginExt* ext = mcp_ext(m->plugin[i]);
    for (int w = 0; ext && ext->warnings && w < m->plugin_warnnum[i]; w++) {
      int len = (int)(strlen(m->plugin[i]->name) + 2 + strlen(ext->warnings[w]));
      if (out) {
        snprintf(out + bytes, (size_t)len + 1, "%s: %s", m->plugin[i]->name, ext->warnings[w]);
      }
      bytes += len + 1;
    }
  }
  return bytes;
}


const char* mc_pluginWarningName(const mcModel* m, int k) {
  if (!m || k < 0 || k >= m->npluginwarn || !m->names) {
    return NULL;
  }

  // the compiler stores "plugin: warning" strings, in warning order, at the end of m->names
  int bytes = mcp_warningNames(m, NULL);
  const char* p = m->names + m->nnames - bytes;
  if (bytes > m->nnames) {
    return NULL;
  }
  for (int i = 0; i < k; i++) {
    p += strlen(p) + 1;
  }
  return p;
}
