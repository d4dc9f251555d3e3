// Moduco core: the declared configuration defaults of a plugin, outside a compilation (used when
// a compiled model's integrator or solver is replaced by name: core/plugin/replace.c).
#ifndef MODUCO_CORE_COMPILER_PLUGIN_DEFAULTS_H_
#define MODUCO_CORE_COMPILER_PLUGIN_DEFAULTS_H_

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

// Write the default values of every configuration key h declares (key order, as in
// mcModel.plugin_config) into out (room for max; NULL: only check and count) and return their
// number; on an invalid key
// table, a bad default, more than max values or a required key (no default) write why to error
// and return -1.
int mcc_defaultConfig(const mcpHeader* h, mcNum* out, int max, char* error, int error_sz);

#endif  // MODUCO_CORE_COMPILER_PLUGIN_DEFAULTS_H_
