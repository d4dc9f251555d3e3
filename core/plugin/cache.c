// Moduco core: the verdict cache of the plugin probe, so a library is probed in a child process
// once, not on every run.
//
// The cache is a text file, one verdict per line (see docs/plugins.md, "Discovery"):
//   <host stamp> <dev> <ino> <size> <mtime s> <mtime ns> <ctime s> <ctime ns> <ok> <path>[\t<reason>]...
// It lives in $MODUCO_PLUGIN_CACHE if set ("off" disables it), else
// $XDG_CACHE_HOME/moduco/plugins.cache, else ~/.cache/moduco/plugins.cache. A verdict is used only
// if the file (real path, device, inode, size, mtime, ctime) and the host stamp (ABI, layout
// stamp, precision, version, core folders, sanitizer) all match, so a rebuilt library or another
// build of moduco is probed again. Unreadable, oversized or malformed caches are ignored; the file
// is replaced atomically (write to a temporary file, rename). Used only during the scan, which
// runs once under pthread_once, so no lock is needed.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin/loader.h"

#ifndef MODUCO_VERSION_STRING
#define MODUCO_VERSION_STRING "0"
#endif

#define CACHE_MAXBYTES (4 << 20)  // a bigger file is not a cache we wrote: ignored
#define CACHE_MAXRECORDS 2048     // oldest verdicts dropped beyond this
#define CACHE_HEADER "# moduco plugin probe cache v1 (docs/plugins.md, Discovery): one verdict " \
                     "per line; delete this file to clear it\n"

typedef struct {                  // one verdict
  unsigned long long stamp, dev, ino, size;
  long long mtime_s, mtime_ns, ctime_s, ctime_ns;
  int ok;
  char* path;
  char* reasons;                  // one per line
} Record;

static struct {
  int loaded;                     // the file was read (or there is none)
  int dirty;                      // a verdict was stored: write the file
  char path[PATH_MAX];            // "" when the cache is off
  Record* rec;
  int nrec, maxrec;
} g_cache;


// FNV-1a over bytes
static uint64_t hashBytes(uint64_t h, const void* data, size_t len) {
  const unsigned char* p = data;
  for (size_t i = 0; i < len; i++) {
    h = (h ^ p[i]) * 1099511628211ULL;
  }
  return h;
}


// everything about this host that changes a verdict
static uint64_t hostStamp(void) {
  static const char layout[] = MCP_LAYOUT;
  static const uint32_t sizes[4] = MCP_LAYOUT_SIZES;
  uint32_t abi[3] = {MCP_ABI_MAJOR, MCP_ABI_MINOR, MCP_PRECISION};
  uint64_t h = 1469598103934665603ULL;
  h = hashBytes(h, layout, sizeof(layout));
  h = hashBytes(h, sizes, sizeof(sizes));
  h = hashBytes(h, abi, sizeof(abi));
  h = hashBytes(h, MODUCO_VERSION_STRING, sizeof(MODUCO_VERSION_STRING));
  for (int i = 0; mcp_coreFolder(i); i++) {
    h = hashBytes(h, mcp_coreFolder(i), strlen(mcp_coreFolder(i)) + 1);
  }
#if defined(__SANITIZE_ADDRESS__)
  h = hashBytes(h, "asan", 4);
#endif
  return h;
}


// the cache file name; 0 if the cache is off. mkdirs: create the default folders
static int cachePath(char* path, size_t path_sz, int mkdirs) {
  const char* env = getenv("MODUCO_PLUGIN_CACHE");
  if (env && !strcmp(env, "off")) {
    return 0;
  }
  if (env && env[0]) {
    int len = snprintf(path, path_sz, "%s", env);
    return len > 0 && (size_t)len < path_sz;
  }

  // $XDG_CACHE_HOME/moduco, else $HOME/.cache/moduco (absolute paths only)
  const char* xdg = getenv("XDG_CACHE_HOME");
  const char* home = getenv("HOME");
  char dir[PATH_MAX];
  int len;
  if (xdg && xdg[0] == '/') {
    len = snprintf(dir, sizeof(dir), "%s", xdg);
  } else if (home && home[0] == '/') {
    len = snprintf(dir, sizeof(dir), "%s/.cache", home);
  } else {
    return 0;
  }
  if (len <= 0 || (size_t)len >= sizeof(dir) - 8) {
    return 0;
  }
  if (mkdirs) {
    mkdir(dir, 0700);
  }
  strcat(dir, "/moduco");
  if (mkdirs) {
    mkdir(dir, 0700);
  }
  len = snprintf(path, path_sz, "%s/plugins.cache", dir);
  return len > 0 && (size_t)len < path_sz;
}


// a regular file no bigger than the limit, read whole; NULL otherwise
static char* readSmallFile(const char* path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    return NULL;
  }
  struct stat st;
  char* buf = NULL;
  if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size < CACHE_MAXBYTES) {
    buf = malloc((size_t)st.st_size + 1);
    size_t len = 0;
    ssize_t n = 1;
    while (buf && n > 0 && len < (size_t)st.st_size) {
      n = read(fd, buf + len, (size_t)st.st_size - len);
      len += n > 0 ? (size_t)n : 0;
    }
    if (buf) {
      buf[len] = 0;
    }
  }
  close(fd);
  return buf;
}


// append a record (takes ownership of path and reasons); drop the oldest beyond the limit
static void addRecord(const Record* r) {
  if (g_cache.nrec == CACHE_MAXRECORDS) {
    free(g_cache.rec[0].path);
    free(g_cache.rec[0].reasons);
    memmove(g_cache.rec, g_cache.rec + 1, sizeof(Record) * (size_t)(g_cache.nrec - 1));
    g_cache.nrec--;
  }
  if (g_cache.nrec == g_cache.maxrec) {
    int newmax = g_cache.maxrec ? 2 * g_cache.maxrec : 64;
    Record* p = realloc(g_cache.rec, sizeof(Record) * (size_t)newmax);
    if (!p) {
      free(r->path);
      free(r->reasons);
      return;
    }
    g_cache.rec = p;
    g_cache.maxrec = newmax;
  }
  g_cache.rec[g_cache.nrec++] = *r;
}


// parse one line; malformed lines are ignored
static void parseLine(char* line) {
  Record r;
  memset(&r, 0, sizeof(r));
  int at = 0;
  if (line[0] == '#' ||
      sscanf(line, "%llx %llu %llu %llu %lld %lld %lld %lld %d %n", &r.stamp, &r.dev, &r.ino,
             &r.size, &r.mtime_s, &r.mtime_ns, &r.ctime_s, &r.ctime_ns, &r.ok, &at) != 9 ||
      at <= 0 || line[at] != '/') {
    return;
  }
  char* tab = strchr(line + at, '\t');
  if (tab) {
    *tab = 0;
  }
  r.path = strdup(line + at);
  r.reasons = strdup(tab ? tab + 1 : "");
  if (!r.path || !r.reasons) {
    free(r.path);
    free(r.reasons);
    return;
  }
  for (char* c = r.reasons; *c; c++) {
    if (*c == '\t') {
      *c = '\n';
    }
  }
  if (r.reasons[0] && r.reasons[strlen(r.reasons) - 1] != '\n') {
    char* grown = realloc(r.reasons, strlen(r.reasons) + 2);
    if (grown) {
      r.reasons = grown;
      strcat(r.reasons, "\n");
    }
  }
  addRecord(&r);
}


// read the cache file once
static void load(void) {
  if (g_cache.loaded) {
    return;
  }
  g_cache.loaded = 1;
  if (!cachePath(g_cache.path, sizeof(g_cache.path), 0)) {
    g_cache.path[0] = 0;
    return;
  }
  char* text = readSmallFile(g_cache.path);
  for (char* line = text; line && *line;) {
    char* eol = strchr(line, '\n');
    if (eol) {
      *eol = 0;
    }
    parseLine(line);
    line = eol ? eol + 1 : line + strlen(line);
  }
  free(text);
}


// does a record describe this file on this host
static int matches(const Record* r, uint64_t stamp, const char* real, const struct stat* st) {
  return r->stamp == stamp && r->dev == (unsigned long long)st->st_dev &&
         r->ino == (unsigned long long)st->st_ino && r->size == (unsigned long long)st->st_size &&
         r->mtime_s == (long long)st->st_mtim.tv_sec &&
         r->mtime_ns == (long long)st->st_mtim.tv_nsec &&
         r->ctime_s == (long long)st->st_ctim.tv_sec &&
         r->ctime_ns == (long long)st->st_ctim.tv_nsec && !strcmp(r->path, real);
}


int mcp_cacheLookup(const char* real, const struct stat* st, mcpVerdict* verdict) {
  load();
  uint64_t stamp = hostStamp();
  for (int i = g_cache.nrec - 1; i >= 0; i--) {
    const Record* r = g_cache.rec + i;
    if (matches(r, stamp, real, st)) {
      memset(verdict, 0, sizeof(*verdict));
      verdict->ok = r->ok;
      verdict->cacheable = 1;
      snprintf(verdict->reasons, sizeof(verdict->reasons), "%s", r->reasons);
      return 1;
    }
  }
  return 0;
}


void mcp_cacheStore(const char* real, const struct stat* st, const mcpVerdict* verdict) {
  load();
  if (!g_cache.path[0] || real[0] != '/' || strpbrk(real, "\t\n\r")) {
    return;
  }

  // an older verdict for the same path on this host is replaced
  uint64_t stamp = hostStamp();
  for (int i = 0; i < g_cache.nrec; i++) {
    if (g_cache.rec[i].stamp == stamp && !strcmp(g_cache.rec[i].path, real)) {
      free(g_cache.rec[i].path);
      free(g_cache.rec[i].reasons);
      memmove(g_cache.rec + i, g_cache.rec + i + 1, sizeof(Record) * (size_t)(g_cache.nrec - i - 1));
      g_cache.nrec--;
      break;
    }
  }
  Record r = {stamp, (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
              (unsigned long long)st->st_size, (long long)st->st_mtim.tv_sec,
              (long long)st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec,
              (long long)st->st_ctim.tv_nsec, verdict->ok, strdup(real),
              strdup(verdict->reasons)};
  if (!r.path || !r.reasons) {
    free(r.path);
    free(r.reasons);
    return;
  }
  addRecord(&r);
  g_cache.dirty = 1;
}


// write every record to a temporary file beside the cache, then rename it over the cache
static void write_(void) {
  char path[PATH_MAX], tmp[PATH_MAX + 32];
  if (!cachePath(path, sizeof(path), 1)) {
    return;
  }
  struct stat st;
  if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
    return;                       // never replace something that is not our file
  }
  snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
  FILE* f = fopen(tmp, "wx");
  if (!f) {
    return;
  }
  fputs(CACHE_HEADER, f);
  for (int i = 0; i < g_cache.nrec; i++) {
    const Record* r = g_cache.rec + i;
    fprintf(f, "%016llx %llu %llu %llu %lld %lld %lld %lld %d %s", r->stamp, r->dev, r->ino,
            r->size, r->mtime_s, r->mtime_ns, r->ctime_s, r->ctime_ns, r->ok, r->path);
    if (r->reasons[0]) {
      fputc('\t', f);
    }
    for (const char* c = r->reasons; *c; c++) {
      if (*c != '\n') {
        fputc(*c == '\t' ? ' ' : *c, f);
      } else if (c[1]) {
        fputc('\t', f);
      }
    }
    fputc('\n', f);
  }
  int failed = ferror(f);
  failed |= fclose(f) != 0;
  if (failed || rename(tmp, path)) {
    unlink(tmp);
  }
}


void mcp_cacheSave(void) {
  if (g_cache.dirty && g_cache.path[0]) {
    write_();
  }
  for (int i = 0; i < g_cache.nrec; i++) {
    free(g_cache.rec[i].path);
    free(g_cache.rec[i].reasons);
  }
  free(g_cache.rec);
  memset(&g_cache, 0, sizeof(g_cache));
}
