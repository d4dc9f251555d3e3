// Moduco core: the plugin registry (private to libmoduco).
//
// The registry is process-wide and thread-safe. It is filled once (mc_pluginScan) by loading
// every library on the search path: MODUCO_PLUGIN_PATH (colon-separated), the folder
// moduco/plugins beside libmoduco, the install folder, the build tree. The same file reached
// twice (symlinks resolved) is loaded once; a file name already loaded from an earlier folder is
// skipped (earlier folders override later ones); a plugin name registered twice keeps the first
// and reports the second with both file names. The compiler resolves every plugin name of a model here, once.
#ifndef MODUCO_CORE_PLUGIN_REGISTRY_H_
#define MODUCO_CORE_PLUGIN_REGISTRY_H_

#include <moduco/mcplugin.h>

// Find a registered plugin of the given kind by name. Built-in names (no '.') match
// case-insensitively, namespaced names ("vendor.name") exactly. NULL if none.
const mcpHeader* mcp_find(int kind, const char* name);

// Find the actuator / sensor plugin that owns an MJCF element name. NULL if none.
const mcpActuator* mcp_findActuatorElement(const char* element);
const mcpSensor* mcp_findSensorElement(const char* element);

// Write the names of all registered plugins of a kind, comma-separated, into buf.
void mcp_listNames(int kind, char* buf, int buf_sz);

// Collision plugins, by descending priority, equal priorities by name (byte order), for filling
// a geom-type pair table.
int mcp_collisionCount(void);
const mcpCollision* mcp_collision(int i);

// The host service table handed to plugins.
const mcpHost* mcp_host(void);

// Name of a plugin kind ("solver", "integrator", ...).
const char* mcp_kindName(int kind);

#endif  // MODUCO_CORE_PLUGIN_REGISTRY_H_
