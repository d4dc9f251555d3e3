// Moduco command-line tool: writing and reading recordings (format in record.h and
// docs/viewer.md).
#include "record.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

// little-endian encoding, whatever the host's byte order
static void putU32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; i++) {
    p[i] = (unsigned char)(v >> (8 * i));
  }
}

static void putF64(unsigned char* p, double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  for (int i = 0; i < 8; i++) {
    p[i] = (unsigned char)(u >> (8 * i));
  }
}

static uint32_t getU32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    v |= (uint32_t)p[i] << (8 * i);
  }
  return v;
}

static double getF64(const unsigned char* p) {
  uint64_t u = 0;
  for (int i = 0; i < 8; i++) {
    u |= (uint64_t)p[i] << (8 * i);
  }
  double v;
  memcpy(&v, &u, 8);
  return v;
}


int rec_open(RecWriter* w, const char* path, const char* model_file, const mcModel* m) {
  memset(w, 0, sizeof(*w));
  w->path = path;
  w->nq = m->nq;
  char full[PATH_MAX];
  const char* name = realpath(model_file, full) ? full : model_file;
  size_t len = strlen(name);
  if (len > REC_MAXPATH) {
    cli_error("cannot write %s: the model's path is longer than %d bytes", path, REC_MAXPATH);
    return -1;
  }
  struct stat st;
  if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
    cli_error("cannot write %s: it is a directory", path);
    return -1;
  }
  w->f = fopen(path, "wb");
  if (!w->f) {
    cli_error("cannot write %s: %s", path, strerror(errno));
    return -1;
  }
  unsigned char head[24];
  memcpy(head, REC_MAGIC, 8);
  putU32(head + 8, (uint32_t)m->nq);
  putF64(head + 12, m->opt.timestep);
  putU32(head + 20, (uint32_t)len);
  fwrite(head, 1, sizeof(head), w->f);
  fwrite(name, 1, len, w->f);
  return 0;
}


int rec_frame(RecWriter* w, const mcData* d) {
  unsigned char b[8];
  errno = 0;
  putF64(b, d->time);
  int ok = fwrite(b, 1, 8, w->f) == 8;
  for (int i = 0; i < w->nq && ok; i++) {
    putF64(b, d->qpos[i]);
    ok = fwrite(b, 1, 8, w->f) == 8;
  }
  if (!ok || ferror(w->f)) {
    // report now, while errno still tells why (the buffer flush that failed set it)
    cli_error("cannot write %s: %s", w->path, errno ? strerror(errno) : "write error");
    w->reported = 1;
    return -1;
  }
  return 0;
}


int rec_close(RecWriter* w) {
  int rc;
  if (w->reported) {
    fclose(w->f);
    rc = -1;
  } else {
    rc = cli_closeOutput(w->f, w->path);
  }
  w->f = NULL;
  return rc;
}


// read the whole file (a regular file of at most REC_MAXBYTES) into a malloc'ed buffer
static unsigned char* readAll(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    cli_error("cannot read recording %s: %s", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size > REC_MAXBYTES) {
    cli_error("cannot read recording %s: not a regular file of at most %ld bytes", path,
              REC_MAXBYTES);
    fclose(f);
    return NULL;
  }
  unsigned char* buf = malloc((size_t)st.st_size + 1);
  size_t n = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
  int bad = !buf || n != (size_t)st.st_size || ferror(f);
  fclose(f);
  if (bad) {
    cli_error("cannot read recording %s: %s", path, buf ? "read error" : "out of memory");
    free(buf);
    return NULL;
  }
  *size = n;
  return buf;
}


int rec_read(const char* path, Recording* r) {
  memset(r, 0, sizeof(*r));
  size_t size = 0;
  unsigned char* buf = readAll(path, &size);
  if (!buf) {
    return -1;
  }
  const char* why = NULL;
  uint32_t nq = 0, len = 0;
  if (size < 24 || memcmp(buf, REC_MAGIC, 8)) {
    why = "not a moduco recording (no MCREC001 header; make one with moduco run --record)";
  } else {
    nq = getU32(buf + 8);
    r->timestep = getF64(buf + 12);
    len = getU32(buf + 20);
    if (nq > 1000000 || len == 0 || len > REC_MAXPATH || 24 + (size_t)len > size) {
      why = "corrupt header (nq or model path length out of range)";
    } else if (!(r->timestep > 0)) {
      why = "corrupt header (timestep not positive)";
    } else if ((size - 24 - len) % (8 * ((size_t)nq + 1)) != 0) {
      why = "truncated: the frames do not fill the file (the run was cut short?)";
    } else if (size - 24 - len == 0) {
      why = "no frames";
    } else if (memchr(buf + 24, 0, len)) {
      why = "corrupt header (NUL in the model path)";
    }
  }
  if (why) {
    cli_error("cannot read recording %s: %s", path, why);
    free(buf);
    return -1;
  }
  r->nq = (int)nq;
  r->nframe = (long)((size - 24 - len) / (8 * ((size_t)nq + 1)));
  r->model = malloc(len + 1);
  r->frames = malloc((size - 24 - len) / 8 * sizeof(double));
  if (!r->model || !r->frames) {
    cli_error("cannot read recording %s: out of memory", path);
    free(buf);
    rec_free(r);
    return -1;
  }
  memcpy(r->model, buf + 24, len);
  r->model[len] = 0;
  size_t nval = (size - 24 - len) / 8;
  for (size_t i = 0; i < nval; i++) {
    r->frames[i] = getF64(buf + 24 + len + 8 * i);
  }
  free(buf);
  return 0;
}


void rec_free(Recording* r) {
  free(r->model);
  free(r->frames);
  memset(r, 0, sizeof(*r));
}
