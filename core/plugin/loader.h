// Moduco core: the plugin loader (private to core/plugin).
//
// registry.c owns the tables and the search path; loader.c opens one directory or one file,
// checks the library and each descriptor against the ABI rules of mcplugin.h and hands the
// accepted descriptors to the registry. The checks are pure functions so tests can call them on
// descriptors built in memory.
#ifndef MODUCO_CORE_PLUGIN_LOADER_H_
#define MODUCO_CORE_PLUGIN_LOADER_H_

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

// Load every regular file "*.so" in dir (sorted by name). report_missing: add a message if the
// directory cannot be opened.
void mcp_loadDir(const char* dir, int report_missing);

// Load one library file.
void mcp_loadFile(const char* path);

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
