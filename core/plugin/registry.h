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

// is c a collision plugin used only for models with the nativeccd flag (mcENBL_NATIVECCD):
// MuJoCo 3.x's native convex collision, plugins/collision-gjk (registered as "gjk")
int mcp_collisionNativeOnly(const mcpCollision* c);

// 1 if collision plugin i (as in mcp_collision) collides at least one geom-type pair.
int mcp_collisionOwnsPair(int i);

// Per-plugin timer slot (mctTimerPlugin) of an actuator or sensor plugin: mcTIMERPLUGIN_ELEMENT
// plus its rank among the registered actuator and sensor plugins; -1 if not registered.
int mcp_elementSlot(const mcpHeader* hdr);

// The ABI 1.3 declarations of a descriptor (config keys, state, warnings); NULL for older
// descriptors or none.
const mcpPluginExt* mcp_ext(const mcpHeader* hdr);

// The ABI 1.3 host functions on instances (core/plugin/instance.c).
int mcp_instance(const mcModel* m, const mcpHeader* desc);
const mcNum* mcp_config(const mcModel* m, int instance, const char* key, int* count);
void mcp_pluginWarning(const mcModel* m, mcData* d, int instance, int warning, int info);

// Bytes of the "plugin: warning\0" strings of m's instances (plugin[], plugin_warnnum), which the
// compiler stores at the end of m->names; written to out unless it is NULL.
int mcp_warningNames(const mcModel* m, char* out);

// Replace the model-wide integrator or solver instance of m (kind mcpKIND_INTEGRATOR or
// mcpKIND_SOLVER) by a new instance of h with its declared defaults, state, data and warnings
// (core/plugin/replace.c). Return 0, or -1 with m unchanged and why in error.
int mcp_replaceSingleton(mcModel* m, int kind, const mcpHeader* h, char* error, int error_sz);

// The host service table handed to plugins.
const mcpHost* mcp_host(void);

// Name of a plugin kind ("solver", "integrator", ...).
const char* mcp_kindName(int kind);

#endif  // MODUCO_CORE_PLUGIN_REGISTRY_H_
