// Moduco core: the process-wide plugin registry.
//
// The registry is filled once, under pthread_once, by scanning the search path (see
// registry.h); afterwards it is read-only, so lookups need no lock. Accepted libraries stay
// loaded until the process exits. Messages about skipped libraries and descriptors are kept for
// mc_pluginMessages and printed through mci_message as they happen.
#include "plugin/registry.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <moduco/moduco.h>

#include "engine/engine.h"
#include "engine/io.h"
#include "plugin/loader.h"

#ifndef MODUCO_INSTALL_PLUGIN_DIR
#define MODUCO_INSTALL_PLUGIN_DIR ""
#endif
#ifndef MODUCO_BUILD_PLUGIN_DIR
#define MODUCO_BUILD_PLUGIN_DIR ""
#endif
#ifndef MODUCO_PLUGIN_SUBDIR
#define MODUCO_PLUGIN_SUBDIR "moduco/plugins"
#endif

typedef struct mcpEntry_ {        // a registered plugin
  const mcpHeader* hdr;           // descriptor (inside its library)
  int lib;                        // index in g_reg.lib
} mcpEntry;

typedef struct mcpLib_ {          // a loaded library with at least one registered plugin
  void* handle;                   // from dlopen
  char* file;                     // real path
  char* name;                     // file name as found in its folder
} mcpLib;

typedef struct mcpSeen_ {         // a file already tried
  dev_t dev;
  ino_t ino;
} mcpSeen;

static struct {
  mcpEntry* entry;
  int nentry, maxentry;
  mcpLib* lib;
  int nlib, maxlib;
  mcpSeen* seen;
  int nseen, maxseen;
  int* collision;                 // entry indices of collision plugins, by descending priority
  int ncollision;
  signed char pair_owner[2][mcNGEOMTYPES][mcNGEOMTYPES];  // index in collision of the plugin that
                                                       // collides a type pair (t1 <= t2); -1: none
  char* msg;                      // messages, one per line
  size_t nmsg, maxmsg;
} g_reg;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;


//---------------------------------- storage -------------------------------------------------------

// grow an array to hold one more element; 0 on success
static int grow(void** array, int* max, int n, size_t elsize) {
  if (n < *max) {
    return 0;
  }
  int newmax = *max ? 2 * *max : 16;
  void* p = realloc(*array, (size_t)newmax * elsize);
  if (!p) {
    return -1;
  }
  *array = p;
  *max = newmax;
  return 0;
}


void mcp_report(const char* file, const char* fmt, ...) {
  // format "plugin: <file>: <reason>"
  char reason[768];
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof(reason), fmt, ap);
  va_end(ap);
  int len = snprintf(line, sizeof(line), "plugin: %s: %s", file, reason);
  if (len < 0) {
    return;
  }
  if (len >= (int)sizeof(line)) {
    len = (int)sizeof(line) - 1;
  }

  // keep it for mc_pluginMessages
  size_t need = g_reg.nmsg + (size_t)len + 2;
  if (need > g_reg.maxmsg) {
    size_t newmax = need > 2 * g_reg.maxmsg ? need + 1024 : 2 * g_reg.maxmsg;
    char* p = realloc(g_reg.msg, newmax);
    if (p) {
      g_reg.msg = p;
      g_reg.maxmsg = newmax;
    }
  }
  if (need <= g_reg.maxmsg) {
    memcpy(g_reg.msg + g_reg.nmsg, line, (size_t)len);
    g_reg.nmsg += (size_t)len;
    g_reg.msg[g_reg.nmsg++] = '\n';
    g_reg.msg[g_reg.nmsg] = 0;
  }

  // and print it
  mci_message("%s", line);
}


int mcp_seenFile(dev_t dev, ino_t ino) {
  // known
  for (int i = 0; i < g_reg.nseen; i++) {
    if (g_reg.seen[i].dev == dev && g_reg.seen[i].ino == ino) {
      return 1;
    }
  }

  // remember
  if (!grow((void**)&g_reg.seen, &g_reg.maxseen, g_reg.nseen, sizeof(mcpSeen))) {
    g_reg.seen[g_reg.nseen].dev = dev;
    g_reg.seen[g_reg.nseen].ino = ino;
    g_reg.nseen++;
  }
  return 0;
}


int mcp_haveLibraryName(const char* name) {
  for (int i = 0; i < g_reg.nlib; i++) {
    if (g_reg.lib[i].name && !strcmp(g_reg.lib[i].name, name)) {
      return 1;
    }
  }
  return 0;
}


int mcp_addLibrary(void* handle, const char* file, const char* name) {
  if (grow((void**)&g_reg.lib, &g_reg.maxlib, g_reg.nlib, sizeof(mcpLib))) {
    return -1;
  }
  g_reg.lib[g_reg.nlib].handle = handle;
  g_reg.lib[g_reg.nlib].file = strdup(file);
  g_reg.lib[g_reg.nlib].name = strdup(name);
  return g_reg.nlib++;
}


void mcp_addPlugin(const mcpHeader* hdr, int lib) {
  if (lib < 0 || grow((void**)&g_reg.entry, &g_reg.maxentry, g_reg.nentry, sizeof(mcpEntry))) {
    return;
  }
  g_reg.entry[g_reg.nentry].hdr = hdr;
  g_reg.entry[g_reg.nentry].lib = lib;
  g_reg.nentry++;
}


// file of entry i
static const char* entryFile(int i) {
  const char* file = g_reg.lib[g_reg.entry[i].lib].file;
  return file ? file : "?";
}


// names are equal: built-in names (no dot) case-insensitively, namespaced names exactly
static int sameName(const char* a, const char* b) {
  if (strchr(a, '.') || strchr(b, '.')) {
    return !strcmp(a, b);
  }
  return !strcasecmp(a, b);
}


// MJCF element owned by an actuator or sensor descriptor; NULL for other kinds
static const char* elementOf(const mcpHeader* hdr) {
  if (hdr->kind == mcpKIND_ACTUATOR) {
    return ((const mcpActuator*)hdr)->element;
  }
  if (hdr->kind == mcpKIND_SENSOR) {
    return ((const mcpSensor*)hdr)->element;
  }
  return NULL;
}


int mcp_conflict(const mcpHeader* hdr, char* why, int why_sz) {
  const char* element = elementOf(hdr);
  for (int i = 0; i < g_reg.nentry; i++) {
    const mcpHeader* other = g_reg.entry[i].hdr;

    // name taken (by a plugin of any kind)
    if (sameName(hdr->name, other->name)) {
      snprintf(why, why_sz, "duplicate name: '%s' is already registered by %s (kept the first)",
               other->name, entryFile(i));
      return -1;
    }

    // MJCF element taken by a plugin of the same kind
    const char* other_element = elementOf(other);
    if (element && other_element && other->kind == hdr->kind &&
        !strcmp(element, other_element)) {
      snprintf(why, why_sz, "duplicate %s element <%s>: already owned by '%s' of %s "
               "(kept the first)", mcp_kindName((int)hdr->kind), element, other->name,
               entryFile(i));
      return -1;
    }
  }
  return 0;
}


//---------------------------------- the scan ------------------------------------------------------

// folder <dir of libmoduco>/moduco/plugins; 0 if unknown or if the core is linked statically
static int besideLibrary(char* dir, size_t dir_sz) {
  // the object that holds this function
  Dl_info info;
  if (!dladdr((void*)&mc_pluginScan, &info) || !info.dli_fname || !info.dli_fname[0]) {
    return 0;
  }
  char lib[PATH_MAX];
  if (!realpath(info.dli_fname, lib)) {
    return 0;
  }

  // static build: that object is the executable itself
  char exe[PATH_MAX];
  if (realpath("/proc/self/exe", exe) && !strcmp(exe, lib)) {
    return 0;
  }

  // its folder
  char* slash = strrchr(lib, '/');
  if (!slash) {
    return 0;
  }
  *slash = 0;
  int len = snprintf(dir, dir_sz, "%s/%s", lib, MODUCO_PLUGIN_SUBDIR);
  return len > 0 && len < (int)dir_sz;
}


// order of collision plugins: descending priority; equal priorities by name (byte order), so the
// winner of a pair both cover does not depend on the search path or the folder listing
static int collisionOrder(const void* a, const void* b) {
  int ia = *(const int*)a, ib = *(const int*)b;
  const mcpCollision* ca = (const mcpCollision*)g_reg.entry[ia].hdr;
  const mcpCollision* cb = (const mcpCollision*)g_reg.entry[ib].hdr;
  if (ca->priority != cb->priority) {
    return ca->priority > cb->priority ? -1 : 1;
  }
  int c = strcmp(ca->hdr.name, cb->hdr.name);
  if (c) {
    return c;
  }
  return ia < ib ? -1 : ia > ib;
}


// a valid entry of a collision plugin's pair table
static int validPair(const mcpCollisionPair* p) {
  return p->type1 >= 0 && p->type2 >= 0 && p->type1 < mcNGEOMTYPES && p->type2 < mcNGEOMTYPES &&
         p->type1 <= p->type2 && p->collide;
}


int mcp_collisionNativeOnly(const mcpCollision* c) {
  return c && !strcmp(c->hdr.name, "gjk");
}


// the owner of every geom-type pair: the first collision plugin (by priority, then name) with a
// valid entry for it, as the collide-function table of core/engine/collision_driver.c picks it,
// in two tables: [0] without the nativeccd plugins (mcp_collisionNativeOnly), [1] with them; a
// pair also covered by another plugin of the same priority is reported, naming both
static void fillPairOwner(void) {
  static const char* const type[mcNGEOMTYPES] = {
    "plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"
  };
  memset(g_reg.pair_owner, -1, sizeof(g_reg.pair_owner));
  for (int i = 0; i < g_reg.ncollision; i++) {
    const mcpCollision* c = (const mcpCollision*)g_reg.entry[g_reg.collision[i]].hdr;
    int native = mcp_collisionNativeOnly(c);
    for (int k = 0; c->pair && k < c->npair; k++) {
      const mcpCollisionPair* p = c->pair + k;
      if (!validPair(p)) {
        continue;
      }
      if (!native && g_reg.pair_owner[0][p->type1][p->type2] < 0) {
        g_reg.pair_owner[0][p->type1][p->type2] = (signed char)(i < 127 ? i : 127);
      }
      int owner = g_reg.pair_owner[1][p->type1][p->type2];
      if (owner < 0) {
        g_reg.pair_owner[1][p->type1][p->type2] = (signed char)(i < 127 ? i : 127);
        continue;
      }
      const mcpCollision* o = (const mcpCollision*)g_reg.entry[g_reg.collision[owner]].hdr;
      if (o != c && o->priority == c->priority) {
        mcp_report(entryFile(g_reg.collision[i]), "collision plugin '%s' and '%s' (%s) both "
                   "cover geom types %s-%s at priority %d: '%s' is used (equal priority: the "
                   "name first in byte order wins)", c->hdr.name, o->hdr.name,
                   entryFile(g_reg.collision[owner]), type[p->type1], type[p->type2],
                   c->priority, o->hdr.name);
      }
    }
  }
}


// load the search path once
static void scan(void) {
  // the core's own folders: only their libraries may register built-in names (loader.c)
  char dir[PATH_MAX];
  if (besideLibrary(dir, sizeof(dir))) {
    mcp_addCoreFolder(dir);
  }
  mcp_addCoreFolder(MODUCO_INSTALL_PLUGIN_DIR);
  mcp_addCoreFolder(MODUCO_BUILD_PLUGIN_DIR);

  // MODUCO_PLUGIN_PATH: colon-separated folders, reported if missing
  const char* env = getenv("MODUCO_PLUGIN_PATH");
  if (env && env[0]) {
    char* copy = strdup(env);
    char* save = NULL;
    for (char* dir = copy ? strtok_r(copy, ":", &save) : NULL; dir;
         dir = strtok_r(NULL, ":", &save)) {
      mcp_loadDir(dir, 1);
    }
    free(copy);
  }

  // beside libmoduco, the install folder, the build tree (silent if missing); then remember
  // the probe verdicts
  if (besideLibrary(dir, sizeof(dir))) {
    mcp_loadDir(dir, 0);
  }
  if (MODUCO_INSTALL_PLUGIN_DIR[0]) {
    mcp_loadDir(MODUCO_INSTALL_PLUGIN_DIR, 0);
  }
  if (MODUCO_BUILD_PLUGIN_DIR[0]) {
    mcp_loadDir(MODUCO_BUILD_PLUGIN_DIR, 0);
  }
  mcp_cacheSave();

  // collision plugins by priority
  g_reg.collision = malloc(sizeof(int) * (size_t)(g_reg.nentry ? g_reg.nentry : 1));
  if (g_reg.collision) {
    for (int i = 0; i < g_reg.nentry; i++) {
      if (g_reg.entry[i].hdr->kind == mcpKIND_COLLISION) {
        g_reg.collision[g_reg.ncollision++] = i;
      }
    }
    qsort(g_reg.collision, (size_t)g_reg.ncollision, sizeof(int), collisionOrder);
  }
  fillPairOwner();
}


// scan if not done yet (every accessor calls this)
static void ensureScan(void) {
  pthread_once(&g_once, scan);
}


//---------------------------------- public API ----------------------------------------------------

int mc_pluginScan(void) {
  ensureScan();
  return g_reg.nentry;
}


int mc_pluginCount(void) {
  ensureScan();
  return g_reg.nentry;
}


int mc_pluginInfo(int i, mcPluginInfo* info) {
  ensureScan();
  if (i < 0 || i >= g_reg.nentry || !info) {
    return -1;
  }
  const mcpHeader* hdr = g_reg.entry[i].hdr;
  info->name = hdr->name;
  info->kind = mcp_kindName((int)hdr->kind);
  info->version = hdr->version ? hdr->version : "";
  info->file = entryFile(i);
  info->description = hdr->description ? hdr->description : "";
  return 0;
}


const char* mc_pluginMessages(void) {
  ensureScan();
  return g_reg.msg ? g_reg.msg : "";
}


//---------------------------------- internal lookups ----------------------------------------------

const mcpHeader* mcp_find(int kind, const char* name) {
  ensureScan();
  if (!name) {
    return NULL;
  }
  for (int i = 0; i < g_reg.nentry; i++) {
    const mcpHeader* hdr = g_reg.entry[i].hdr;
    if ((kind <= 0 || (int)hdr->kind == kind) && sameName(name, hdr->name)) {
      return hdr;
    }
  }
  return NULL;
}


// the plugin of a kind that owns an MJCF element
static const mcpHeader* findElement(int kind, const char* element) {
  ensureScan();
  if (!element) {
    return NULL;
  }
  for (int i = 0; i < g_reg.nentry; i++) {
    const mcpHeader* hdr = g_reg.entry[i].hdr;
    if ((int)hdr->kind == kind && !strcmp(elementOf(hdr), element)) {
      return hdr;
    }
  }
  return NULL;
}


const mcpActuator* mcp_findActuatorElement(const char* element) {
  return (const mcpActuator*)findElement(mcpKIND_ACTUATOR, element);
}


const mcpSensor* mcp_findSensorElement(const char* element) {
  return (const mcpSensor*)findElement(mcpKIND_SENSOR, element);
}


void mcp_listNames(int kind, char* buf, int buf_sz) {
  ensureScan();
  if (!buf || buf_sz <= 0) {
    return;
  }
  buf[0] = 0;

  // "a, b, c" (truncated to the buffer)
  size_t len = 0;
  for (int i = 0; i < g_reg.nentry; i++) {
    const mcpHeader* hdr = g_reg.entry[i].hdr;
    if (kind > 0 && (int)hdr->kind != kind) {
      continue;
    }
    int n = snprintf(buf + len, (size_t)buf_sz - len, "%s%s", len ? ", " : "", hdr->name);
    if (n < 0 || (size_t)n >= (size_t)buf_sz - len) {
      break;
    }
    len += (size_t)n;
  }
}


int mcp_collisionCount(void) {
  ensureScan();
  return g_reg.ncollision;
}


const mcpCollision* mcp_collision(int i) {
  ensureScan();
  if (i < 0 || i >= g_reg.ncollision) {
    return NULL;
  }
  return (const mcpCollision*)g_reg.entry[g_reg.collision[i]].hdr;
}


int mcp_collisionSlotFor(const mcModel* m, int type1, int type2) {
  ensureScan();
  if (type1 < 0 || type2 < 0 || type1 >= mcNGEOMTYPES || type2 >= mcNGEOMTYPES) {
    return -1;
  }
  int t = m && (m->opt.enableflags & mcENBL_NATIVECCD) ? 1 : 0;
  return type1 <= type2 ? g_reg.pair_owner[t][type1][type2] : g_reg.pair_owner[t][type2][type1];
}


int mcp_collisionSlot(int type1, int type2) {
  return mcp_collisionSlotFor(NULL, type1, type2);
}


int mcp_collisionOwnsPair(int i) {
  ensureScan();
  for (int t1 = 0; t1 < mcNGEOMTYPES; t1++) {
    for (int t2 = t1; t2 < mcNGEOMTYPES; t2++) {
      if (g_reg.pair_owner[0][t1][t2] == i || g_reg.pair_owner[1][t1][t2] == i) {
        return 1;
      }
    }
  }
  return 0;
}


// is an entry an actuator or sensor plugin (the kinds with per-element timer slots)
static int isElementEntry(int i) {
  int kind = (int)g_reg.entry[i].hdr->kind;
  return kind == mcpKIND_ACTUATOR || kind == mcpKIND_SENSOR;
}


int mcp_elementSlot(const mcpHeader* hdr) {
  ensureScan();
  int k = 0;
  for (int i = 0; hdr && i < g_reg.nentry; i++) {
    if (g_reg.entry[i].hdr == hdr) {
      return mcTIMERPLUGIN_ELEMENT + k;
    }
    k += isElementEntry(i);
  }
  return -1;
}


// the actuator or sensor plugin of an element timer slot, if the model uses it
static const mcpHeader* elementOfSlot(const mcModel* m, int slot) {
  const mcpHeader* hdr = NULL;
  for (int i = 0, k = mcTIMERPLUGIN_ELEMENT; i < g_reg.nentry && !hdr; i++) {
    if (isElementEntry(i) && k++ == slot) {
      hdr = g_reg.entry[i].hdr;
    }
  }
  for (int i = 0; hdr && m->plugin && i < m->nplugin; i++) {
    if (m->plugin[i] == hdr) {
      return hdr;
    }
  }
  return NULL;
}


const mcpPluginExt* mcp_ext(const mcpHeader* hdr) {
  if (!hdr || hdr->abi_minor < 3) {
    return NULL;
  }
  size_t off;
  switch (hdr->kind) {
  case mcpKIND_SOLVER:     off = offsetof(mcpSolver, ext); break;
  case mcpKIND_POSTSOLVER: off = offsetof(mcpPostsolver, ext); break;
  case mcpKIND_INTEGRATOR: off = offsetof(mcpIntegrator, ext); break;
  case mcpKIND_COLLISION:  off = offsetof(mcpCollision, ext); break;
  case mcpKIND_ACTUATOR:   off = offsetof(mcpActuator, ext); break;
  case mcpKIND_SENSOR:     off = offsetof(mcpSensor, ext); break;
  default:                 return NULL;
  }
  if (hdr->struct_size < off + sizeof(const mcpPluginExt*)) {
    return NULL;
  }
  return *(const mcpPluginExt* const*)((const char*)hdr + off);
}


const char* mc_timerPluginName(const mcModel* m, int slot) {
  if (!m || slot < 0 || slot >= mcNTIMERPLUGIN) {
    return NULL;
  }
  const mcpHeader* hdr = NULL;
  if (slot == mcTIMERPLUGIN_INTEGRATOR) {
    hdr = m->integrator ? &m->integrator->hdr : NULL;
  } else if (slot == mcTIMERPLUGIN_SOLVER) {
    hdr = m->solver ? &m->solver->hdr : NULL;
  } else if (slot == mcTIMERPLUGIN_POSTSOLVER) {
    hdr = m->postsolver ? &m->postsolver->hdr : NULL;
  } else if (slot < mcTIMERPLUGIN_ELEMENT) {
    const mcpCollision* c = mcp_collision(slot - mcTIMERPLUGIN_COLLISION);
    hdr = c ? &c->hdr : NULL;
  } else {
    ensureScan();
    hdr = elementOfSlot(m, slot);
  }
  return hdr && hdr->name ? hdr->name : NULL;
}


const char* mcp_kindName(int kind) {
  switch (kind) {
  case mcpKIND_SOLVER:
    return "solver";
  case mcpKIND_POSTSOLVER:
    return "postsolver";
  case mcpKIND_INTEGRATOR:
    return "integrator";
  case mcpKIND_COLLISION:
    return "collision";
  case mcpKIND_ACTUATOR:
    return "actuator";
  case mcpKIND_SENSOR:
    return "sensor";
  default:
    return "unknown";
  }
}
