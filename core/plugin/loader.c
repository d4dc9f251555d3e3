// Moduco core: the plugin loader. Opens libraries, checks them against the ABI, hands the
// accepted descriptors to the registry. See mcplugin.h for the rules and docs/plugins.md.
#include "plugin/loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plugin/registry.h"

// end of a field: the minimal struct_size that contains it
#define MCP_END(type, field) (offsetof(type, field) + sizeof(((type*)0)->field))

// more descriptors than this in one library is treated as garbage
#define MCP_MAXPLUGIN 4096


//---------------------------------- checks --------------------------------------------------------

size_t mcp_kindSize(int kind) {
  // sizes of ABI 1.0: the end of the last field of 1.0, so appended fields never change them
  switch (kind) {
  case mcpKIND_SOLVER:
    return MCP_END(mcpSolver, solve);
  case mcpKIND_POSTSOLVER:
    return MCP_END(mcpPostsolver, solve);
  case mcpKIND_INTEGRATOR:
    return MCP_END(mcpIntegrator, step);
  case mcpKIND_COLLISION:
    return MCP_END(mcpCollision, pair);
  case mcpKIND_ACTUATOR:
    return MCP_END(mcpActuator, dforce_dvel);
  case mcpKIND_SENSOR:
    return MCP_END(mcpSensor, compute);
  default:
    return 0;
  }
}


// one character of a name segment
static int nameChar(char c, int upper_ok) {
  if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
    return 1;
  }
  return upper_ok && c >= 'A' && c <= 'Z';
}


int mcp_validName(const char* name) {
  // present, not empty, not too long
  if (!name || !name[0]) {
    return 0;
  }
  size_t len = strnlen(name, MCP_MAXNAME);
  if (len >= MCP_MAXNAME) {
    return 0;
  }

  // built-in names: lowercase, no dot
  const char* dot = strchr(name, '.');
  if (!dot) {
    for (size_t i = 0; i < len; i++) {
      if (!nameChar(name[i], 0)) {
        return 0;
      }
    }
    return 1;
  }

  // namespaced names: non-empty segments separated by single dots
  size_t seg = 0;
  for (size_t i = 0; i < len; i++) {
    if (name[i] == '.') {
      if (seg == 0) {
        return 0;
      }
      seg = 0;
    } else if (nameChar(name[i], 1)) {
      seg++;
    } else {
      return 0;
    }
  }
  return seg > 0;
}


// an MJCF element name: a letter or '_' then letters, digits, '_', '-'
static int validElement(const char* s) {
  if (!s || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_')) {
    return 0;
  }
  size_t len = strnlen(s, MCP_MAXNAME);
  if (len >= MCP_MAXNAME) {
    return 0;
  }
  for (size_t i = 1; i < len; i++) {
    if (!nameChar(s[i], 1)) {
      return 0;
    }
  }
  return 1;
}


// the version and precision fields shared by the library struct and the header
static int checkVersion(const char* what, uint32_t major, uint32_t minor, uint32_t precision,
                        char* why, int why_sz) {
  // major must match, minor may be older
  if (major != MCP_ABI_MAJOR) {
    snprintf(why, why_sz, "%s ABI version %u.%u is incompatible with the host's %d.%d "
             "(major must match)", what, major, minor, MCP_ABI_MAJOR, MCP_ABI_MINOR);
    return -1;
  }
  if (minor > MCP_ABI_MINOR) {
    snprintf(why, why_sz, "%s ABI version %u.%u is newer than the host's %d.%d "
             "(rebuild it against this SDK or update moduco)", what, major, minor,
             MCP_ABI_MAJOR, MCP_ABI_MINOR);
    return -1;
  }

  // same floating-point type
  if (precision != MCP_PRECISION) {
    snprintf(why, why_sz, "%s precision %u (sizeof(mcNum)) does not match the host's %u",
             what, precision, MCP_PRECISION);
    return -1;
  }
  return 0;
}


// the layout stamp (ABI 1.2): same X-macro lists and struct sizes as the host's headers
static int checkLayout(const mcpLibrary* lib, char* why, int why_sz) {
  if (lib->abi_minor < 2 || lib->struct_size < MCP_END(mcpLibrary, layout_sizes)) {
    snprintf(why, why_sz, "library built with ABI %u.%u carries no mcModel/mcData layout stamp "
             "(ABI 1.2); rebuild it against this SDK", lib->abi_major, lib->abi_minor);
    return -1;
  }
  static const char host[] = MCP_LAYOUT;
  static const uint32_t host_sizes[4] = MCP_LAYOUT_SIZES;
  if (!lib->layout) {
    snprintf(why, why_sz, "library has a NULL layout stamp (use MCP_LIBRARY to fill it)");
    return -1;
  }

  // first difference of the stamps (bounded by the host's length), reported by field
  size_t i = 0;
  while (i < sizeof(host) && lib->layout[i] == host[i]) {
    i++;
  }
  if (i < sizeof(host)) {
    size_t start = i;
    while (start > 0 && host[start - 1] != ';' && host[start - 1] != '{' &&
           host[start - 1] != ',') {
      start--;
    }
    while (host[start] == ' ') {
      start++;
    }
    snprintf(why, why_sz, "library was built against a different mcModel/mcData layout (first "
             "difference at host field '%.48s'); rebuild it against this SDK", host + start);
    return -1;
  }
  static const char* const what[4] = {"mcModel", "mcData", "mcOption", "mcContact"};
  for (int k = 0; k < 4; k++) {
    if (lib->layout_sizes[k] != host_sizes[k]) {
      snprintf(why, why_sz, "library was built against a different %s (sizeof %u, host %u); "
               "rebuild it against this SDK", what[k], lib->layout_sizes[k], host_sizes[k]);
      return -1;
    }
  }
  return 0;
}


int mcp_checkLibrary(const mcpLibrary* lib, char* why, int why_sz) {
  // the entry point may refuse
  if (!lib) {
    snprintf(why, why_sz, "entry point %s returned NULL (the library refused to load)",
             MCP_ENTRY_SYMBOL);
    return -1;
  }

  // version, precision, size
  if (checkVersion("library", lib->abi_major, lib->abi_minor, lib->precision, why, why_sz)) {
    return -1;
  }
  size_t need = MCP_END(mcpLibrary, plugin);
  if (lib->struct_size < need) {
    snprintf(why, why_sz, "library struct_size %u is smaller than mcpLibrary of ABI 1.0 (%zu)",
             lib->struct_size, need);
    return -1;
  }

  // the mcModel/mcData layout the library was compiled against
  if (checkLayout(lib, why, why_sz)) {
    return -1;
  }

  // the descriptor list
  if (lib->nplugin < 0 || lib->nplugin > MCP_MAXPLUGIN) {
    snprintf(why, why_sz, "library declares %d plugins (expected 1 to %d)", lib->nplugin,
             MCP_MAXPLUGIN);
    return -1;
  }
  if (lib->nplugin == 0) {
    snprintf(why, why_sz, "library declares no plugins");
    return -1;
  }
  if (!lib->plugin) {
    snprintf(why, why_sz, "library declares %d plugins but its plugin list is NULL",
             lib->nplugin);
    return -1;
  }
  return 0;
}


// the mandatory callbacks and tables of each kind
static int checkKind(const mcpHeader* hdr, char* why, int why_sz) {
  switch (hdr->kind) {
  case mcpKIND_SOLVER:
    if (!((const mcpSolver*)hdr)->solve) {
      snprintf(why, why_sz, "mandatory callback 'solve' is NULL");
      return -1;
    }
    return 0;

  case mcpKIND_POSTSOLVER:
    if (!((const mcpPostsolver*)hdr)->solve) {
      snprintf(why, why_sz, "mandatory callback 'solve' is NULL");
      return -1;
    }
    return 0;

  case mcpKIND_INTEGRATOR:
    if (!((const mcpIntegrator*)hdr)->step) {
      snprintf(why, why_sz, "mandatory callback 'step' is NULL");
      return -1;
    }
    return 0;

  case mcpKIND_COLLISION: {
    const mcpCollision* c = (const mcpCollision*)hdr;
    if (c->npair <= 0 || !c->pair) {
      snprintf(why, why_sz, "mandatory pair table is empty or NULL (npair %d)", c->npair);
      return -1;
    }
    for (int i = 0; i < c->npair; i++) {
      const mcpCollisionPair* p = c->pair + i;
      if (p->type1 < 0 || p->type2 >= mcNGEOMTYPES || p->type1 > p->type2) {
        snprintf(why, why_sz, "pair %d has geom types (%d, %d) (expected 0 <= type1 <= type2 "
                 "< %d)", i, p->type1, p->type2, mcNGEOMTYPES);
        return -1;
      }
      if (!p->collide) {
        snprintf(why, why_sz, "mandatory callback 'collide' of pair %d is NULL", i);
        return -1;
      }
    }
    return 0;
  }

  case mcpKIND_ACTUATOR: {
    const mcpActuator* a = (const mcpActuator*)hdr;
    if (!validElement(a->element)) {
      snprintf(why, why_sz, "missing or invalid MJCF element name");
      return -1;
    }
    if (!a->force) {
      snprintf(why, why_sz, "mandatory callback 'force' is NULL");
      return -1;
    }
    return 0;
  }

  case mcpKIND_SENSOR: {
    const mcpSensor* s = (const mcpSensor*)hdr;
    if (!validElement(s->element)) {
      snprintf(why, why_sz, "missing or invalid MJCF element name");
      return -1;
    }
    if (!s->compute) {
      snprintf(why, why_sz, "mandatory callback 'compute' is NULL");
      return -1;
    }
    return 0;
  }

  default:
    snprintf(why, why_sz, "unknown kind %u", hdr->kind);
    return -1;
  }
}


int mcp_checkDescriptor(const mcpHeader* hdr, char* why, int why_sz) {
  // present
  if (!hdr) {
    snprintf(why, why_sz, "descriptor is NULL");
    return -1;
  }

  // version and precision before anything else
  if (checkVersion("descriptor", hdr->abi_major, hdr->abi_minor, hdr->precision, why, why_sz)) {
    return -1;
  }

  // known kind, big enough for it
  size_t need = mcp_kindSize((int)hdr->kind);
  if (!need) {
    snprintf(why, why_sz, "unknown kind %u (expected 1 to %d)", hdr->kind, mcpNKIND - 1);
    return -1;
  }
  if (hdr->struct_size < need) {
    snprintf(why, why_sz, "struct_size %u is smaller than the %s descriptor of ABI 1.0 (%zu)",
             hdr->struct_size, mcp_kindName((int)hdr->kind), need);
    return -1;
  }

  // reserved bits
  if (hdr->flags) {
    snprintf(why, why_sz, "reserved flags are 0x%x (must be 0)", hdr->flags);
    return -1;
  }

  // name
  if (!mcp_validName(hdr->name)) {
    snprintf(why, why_sz, "invalid name '%.*s' (expected [a-z0-9_-]+ for built-ins, "
             "'vendor.name' for third parties, shorter than %d)", MCP_MAXNAME,
             hdr->name ? hdr->name : "(null)", MCP_MAXNAME);
    return -1;
  }

  // callbacks of the kind
  return checkKind(hdr, why, why_sz);
}


//---------------------------------- built-in names ------------------------------------------------

// the core's own plugin folders (real paths): the only folders whose libraries may register
// built-in names (names without a dot)
#define MCP_MAXCORE 4
static char g_core[MCP_MAXCORE][PATH_MAX];
static int g_ncore;


void mcp_addCoreFolder(const char* dir) {
  char real[PATH_MAX];
  if (!dir || !dir[0] || g_ncore >= MCP_MAXCORE || !realpath(dir, real)) {
    return;
  }
  for (int i = 0; i < g_ncore; i++) {
    if (!strcmp(g_core[i], real)) {
      return;
    }
  }
  snprintf(g_core[g_ncore++], PATH_MAX, "%s", real);
}


const char* mcp_coreFolder(int i) {
  return i >= 0 && i < g_ncore ? g_core[i] : NULL;
}


// nonzero if the library's real path lies directly in one of the core's own folders
static int inCoreFolder(const char* real) {
  const char* slash = strrchr(real, '/');
  if (!slash) {
    return 0;
  }
  size_t len = (size_t)(slash - real);
  for (int i = 0; i < g_ncore; i++) {
    if (strlen(g_core[i]) == len && !strncmp(g_core[i], real, len)) {
      return 1;
    }
  }
  return 0;
}


//---------------------------------- loading -------------------------------------------------------

// the entry symbol, converted from the object pointer dlsym returns
static mcpLibraryFn entryPoint(void* handle) {
  mcpLibraryFn fn = NULL;
  void* sym = dlsym(handle, MCP_ENTRY_SYMBOL);
  memcpy(&fn, &sym, sizeof(fn));
  return fn;
}


int mcp_checkEntry(const mcpHeader* hdr, int i, char* msg, int msg_sz) {
  char why[384];
  if (!mcp_checkDescriptor(hdr, why, sizeof(why))) {
    return 0;
  }

  // name the descriptor when its header can be trusted that far
  if (hdr && hdr->abi_major == MCP_ABI_MAJOR && hdr->name && mcp_validName(hdr->name)) {
    snprintf(msg, msg_sz, "plugin '%s': %s", hdr->name, why);
  } else {
    snprintf(msg, msg_sz, "descriptor %d: %s", i, why);
  }
  return -1;
}


int mcp_openLibrary(const char* real, void** handle, const mcpLibrary** library, char* why,
                    int why_sz) {
  // open: every symbol resolved now, nothing exported to later libraries
  *handle = NULL;
  *library = NULL;
  dlerror();
  void* h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* err = dlerror();
    snprintf(why, why_sz, "dlopen failed: %s", err ? err : "unknown error");
    return -1;
  }

  // the entry symbol
  mcpLibraryFn entry = entryPoint(h);
  if (!entry) {
    snprintf(why, why_sz, "no entry point '%s' (not a moduco plugin?)", MCP_ENTRY_SYMBOL);
    dlclose(h);
    return -1;
  }

  // the library struct
  const mcpLibrary* lib = entry(mcp_host());
  if (mcp_checkLibrary(lib, why, why_sz)) {
    dlclose(h);
    return -1;
  }

  // built-in names (no dot) belong to the core's own folders: an impostor is refused whole
  char msg[512];
  for (int i = 0; !inCoreFolder(real) && i < lib->nplugin; i++) {
    const mcpHeader* hdr = lib->plugin[i];
    if (!mcp_checkEntry(hdr, i, msg, sizeof(msg)) && !strchr(hdr->name, '.')) {
      snprintf(why, why_sz, "plugin '%s': the name is reserved for moduco's built-in plugins "
               "(names without a dot belong to libraries in moduco's own plugin folder); a "
               "third-party plugin must be named 'vendor.name'; library refused", hdr->name);
      dlclose(h);
      return -1;
    }
  }
  *handle = h;
  *library = lib;
  return 0;
}


void mcp_loadFile(const char* path) {
  char why[512];

  // a file name not loaded from an earlier folder (an earlier folder overrides a later one)
  const char* slash = strrchr(path, '/');
  const char* name = slash ? slash + 1 : path;
  if (mcp_haveLibraryName(name)) {
    return;
  }

  // a regular file (symlinks followed) not seen before
  struct stat st;
  if (stat(path, &st)) {
    mcp_report(path, "cannot read: %s", strerror(errno));
    return;
  }
  if (!S_ISREG(st.st_mode) || mcp_seenFile(st.st_dev, st.st_ino)) {
    return;
  }
  char real[PATH_MAX];
  if (!realpath(path, real)) {
    snprintf(real, sizeof(real), "%s", path);
  }

  // the verdict of the probe in a child process (cached): only a library that passed is loaded
  // here, so one that crashes, exits or hangs while loading cannot take the host down
  mcpVerdict verdict;
  if (!mcp_cacheLookup(real, &st, &verdict)) {
    mcp_probe(real, &verdict);
    if (verdict.cacheable) {
      mcp_cacheStore(real, &st, &verdict);
    }
  }
  if (!verdict.ok) {
    for (const char* r = verdict.reasons; *r;) {
      const char* eol = strchr(r, '\n');
      int len = eol ? (int)(eol - r) : (int)strlen(r);
      mcp_report(real, "%.*s", len, r);
      r += len + (eol ? 1 : 0);
    }
    return;
  }

  // load in-process
  void* handle;
  const mcpLibrary* lib;
  if (mcp_openLibrary(real, &handle, &lib, why, sizeof(why))) {
    mcp_report(real, "%s", why);
    return;
  }

  // each descriptor: checks, then conflicts with plugins already registered
  int index = -1;
  for (int i = 0; i < lib->nplugin; i++) {
    const mcpHeader* hdr = lib->plugin[i];
    if (mcp_checkEntry(hdr, i, why, sizeof(why))) {
      mcp_report(real, "%s", why);
    } else if (mcp_conflict(hdr, why, sizeof(why))) {
      mcp_report(real, "plugin '%s': %s", hdr->name, why);
    } else {
      if (index < 0) {
        index = mcp_addLibrary(handle, real, name);
      }
      mcp_addPlugin(hdr, index);
    }
  }

  // nothing usable: unload
  if (index < 0) {
    dlclose(handle);
  }
}


// directory entries named *.so (no hidden files)
static int isLibraryName(const struct dirent* e) {
  size_t len = strlen(e->d_name);
  return e->d_name[0] != '.' && len > 3 && !strcmp(e->d_name + len - 3, ".so");
}


void mcp_loadDir(const char* dir, int report_missing) {
  // sorted listing, so the load order (and the winner of a duplicate) is reproducible
  struct dirent** list = NULL;
  int n = scandir(dir, &list, isLibraryName, alphasort);
  if (n < 0) {
    if (report_missing) {
      mcp_report(dir, "cannot open plugin directory: %s", strerror(errno));
    }
    return;
  }

  // load each file
  for (int i = 0; i < n; i++) {
    char path[PATH_MAX];
    int len = snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
    if (len > 0 && len < (int)sizeof(path)) {
      mcp_loadFile(path);
    }
    free(list[i]);
  }
  free(list);
}
