// Moduco core: the plugin loader (private to core/plugin).
//
// registry.c owns the tables and the search path; loader.c opens one directory or one file,
// checks the library and each descriptor against the ABI rules of mcplugin.h and hands the
// accepted descriptors to the registry. The checks are pure functions so tests can call them on
// descriptors built in memory.
#ifndef MODUCO_CORE_PLUGIN_LOADER_H_
#define MODUCO_CORE_PLUGIN_LOADER_H_

#include <sys/stat.h>
#include <sys/types.h>

#include <moduco/mcplugin.h>

//---------------------------------- checks (loader.c) ---------------------------------------------

// Check the library struct returned by the entry symbol. Return 0, or -1 with the reason in why.
int mcp_checkLibrary(const mcpLibrary* lib, char* why, int why_sz);

// Check one descriptor (version, precision, kind, size, flags, name, callbacks). Does not look
// at other plugins (duplicates are the registry's job). Return 0, or -1 with the reason in why.
int mcp_checkDescriptor(const mcpHeader* hdr, char* why, int why_sz);

// Nonzero if name is valid: built-in "[a-z0-9_-]+" or namespaced "vendor.name" (segments of
// [A-Za-z0-9_-] separated by single dots), shorter than MCP_MAXNAME.
int mcp_validName(const char* name);

// Minimal struct_size of a descriptor of this kind at ABI 1.0; 0 for an unknown kind.
size_t mcp_kindSize(int kind);

//---------------------------------- loading (loader.c) --------------------------------------------

// Check descriptor i of a library; return 0, or -1 with the message to report ("plugin 'x': why"
// or "descriptor i: why") in msg.
int mcp_checkEntry(const mcpHeader* hdr, int i, char* msg, int msg_sz);

// Open a library in this process: dlopen, the entry symbol, mcp_checkLibrary and the reserved
// built-in names (a library outside the core's own folders registering a name without a dot is
// refused whole). Return 0 with the handle and library struct, or -1 with the reason in why.
int mcp_openLibrary(const char* real, void** handle, const mcpLibrary** library, char* why,
                    int why_sz);

// Add one of the core's own plugin folders (resolved to its real path; ignored if it does not
// exist). Libraries directly in these folders may register built-in names.
void mcp_addCoreFolder(const char* dir);

// Core folder i, or NULL past the last one.
const char* mcp_coreFolder(int i);

// Load every regular file "*.so" in dir (sorted by name). report_missing: add a message if the
// directory cannot be opened.
void mcp_loadDir(const char* dir, int report_missing);

// Load one library file.
void mcp_loadFile(const char* path);

//---------------------------------- probe and verdict cache (probe.c, cache.c) --------------------

#define MCP_MAXREASONS 4096

typedef struct mcpVerdict_ {      // whether a library may be loaded in this process
  int ok;                         // 1: it passed the probe
  int cacheable;                  // 0: do not remember it (the probe itself could not decide)
  char reasons[MCP_MAXREASONS];   // why not: one reason per line, each reported as
                                  // "plugin: <file>: <reason>"
} mcpVerdict;

// Probe a library in a child process with a time limit (MODUCO_PLUGIN_PROBE_TIMEOUT seconds,
// default 5): mcp_openLibrary and every descriptor checked there. It passes if the child reports
// at least one valid descriptor; a crash, abort, exit or hang there is a failure naming the cause.
void mcp_probe(const char* real, mcpVerdict* verdict);

// The verdict cache (see docs/plugins.md, "Discovery"). Lookup returns 1 and fills verdict if a
// verdict is known for this file (real path, device, inode, size, mtime, ctime) and this host
// (ABI, layout stamp, core folders). Store remembers one; save writes the cache file if anything
// changed and releases the cache (called once at the end of the scan).
int mcp_cacheLookup(const char* real, const struct stat* st, mcpVerdict* verdict);
void mcp_cacheStore(const char* real, const struct stat* st, const mcpVerdict* verdict);
void mcp_cacheSave(void);

//---------------------------------- registry internals (registry.c) -------------------------------

// Add a message "plugin: <file>: <reason>" (collected and printed through mci_message).
void mcp_report(const char* file, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// Remember a file (by device and inode); return 1 if it was seen before.
int mcp_seenFile(dev_t dev, ino_t ino);

// Nonzero if a library with this file name (no folder) is already registered: a file name
// loaded from an earlier folder overrides the same name in later folders.
int mcp_haveLibraryName(const char* name);

// Register a library handle, its real path and its file name as found; return its index.
int mcp_addLibrary(void* handle, const char* file, const char* name);

// Check that hdr can be added (its name and MJCF element are not taken). Return 0, or -1 with
// the reason, naming the file that registered the name first, in why.
int mcp_conflict(const mcpHeader* hdr, char* why, int why_sz);

// Add an accepted descriptor of library lib.
void mcp_addPlugin(const mcpHeader* hdr, int lib);

// The host table (host.c).
const mcpHost* mcp_host(void);

#endif  // MODUCO_CORE_PLUGIN_LOADER_H_
