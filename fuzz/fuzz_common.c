// Moduco fuzz harnesses (see fuzz_common.h and docs/fuzzing.md).
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "engine/io.h"
#include "plugin/loader.h"
#include "xml/xml_reader.h"

#define FUZZ_MAXFILE 16           // files carved from one input
#define FUZZ_MAXSTEP 20           // steps of a compiled model
#define FUZZ_MAXARENA (32u << 20) // larger arenas are not allocated (memory limit of the fuzzer)
#define FUZZ_MAXNV 300            // larger models are compiled but not stepped (dense nv x nv)

// the in-memory file system of one input
typedef struct {
  const char* name[FUZZ_MAXFILE];
  const uint8_t* data[FUZZ_MAXFILE];
  size_t size[FUZZ_MAXFILE];
  int n;
} FuzzFS;

static const char* kFileNames[FUZZ_MAXFILE] = {
  "main.xml", "inc1.xml", "inc2.xml", "inc3.xml", "inc4.xml", "inc5.xml", "inc6.xml", "inc7.xml",
  "inc8.xml", "inc9.xml", "inc10.xml", "inc11.xml", "inc12.xml", "inc13.xml", "inc14.xml",
  "inc15.xml"};


// drop every message
static void quietHandler(void* user, const char* message) {
  (void)user;
  (void)message;
}


void fuzzQuiet(void) {
  mc_setMessageHandler(quietHandler, NULL);
}


// the read hook: match the path's last component against the carved files
static char* fsRead(void* user, const char* path, size_t* len) {
  const FuzzFS* fs = (const FuzzFS*)user;
  const char* slash = strrchr(path, '/');
  const char* base = slash ? slash + 1 : path;
  for (int i = 0; i < fs->n; i++) {
    if (!strcmp(base, fs->name[i])) {
      char* buf = (char*)malloc(fs->size[i] + 1);
      if (!buf) {
        return NULL;
      }
      if (fs->size[i]) {
        memcpy(buf, fs->data[i], fs->size[i]);
      }
      *len = fs->size[i];
      return buf;
    }
  }
  return NULL;
}


// step a compiled model a few times with bounded solver work
static void stepModel(mcModel* m) {
  if (m->nv > FUZZ_MAXNV || mci_arenaSize(m) > FUZZ_MAXARENA) {
    return;
  }
  if (m->opt.iterations > 10) {
    m->opt.iterations = 10;
  }
  if (m->opt.ls_iterations > 10) {
    m->opt.ls_iterations = 10;
  }
  if (m->opt.noslip_iterations > 5) {
    m->opt.noslip_iterations = 5;
  }
  mcData* d = mc_makeData(m);
  if (!d) {
    return;
  }
  for (int k = 0; k < FUZZ_MAXSTEP; k++) {
    for (int i = 0; i < m->nu; i++) {
      d->ctrl[i] = (k & 1) ? 1.0 : -1.0;
    }
    mc_step(m, d);
  }
  mc_deleteData(d);
}


int fuzzMJCF(const uint8_t* data, size_t size) {
  fuzzQuiet();

  // carve files at NUL bytes
  FuzzFS fs;
  memset(&fs, 0, sizeof(fs));
  size_t start = 0;
  for (size_t i = 0; i <= size && fs.n < FUZZ_MAXFILE; i++) {
    if (i == size || data[i] == 0) {
      fs.name[fs.n] = kFileNames[fs.n];
      fs.data[fs.n] = data + start;
      fs.size[fs.n] = i - start;
      fs.n++;
      start = i + 1;
    }
  }

  // load through the hook, then step
  char error[1024];
  mcx_setReadHook(fsRead, &fs);
  mcModel* m = mc_loadXML("main.xml", error, sizeof(error));
  mcx_setReadHook(NULL, NULL);
  if (m) {
    stepModel(m);
    mc_deleteModel(m);
  }
  return 0;
}


//---------------------------------- mesh and height-field files ----------------------------------

int fuzzMesh(const uint8_t* data, size_t size) {
  fuzzQuiet();
  if (size < 1) {
    return 0;
  }

  // the tag byte picks the reader; the rest is the file, written where the compiler can open it
  const char* ext = data[0] == 'o' ? "obj" : data[0] == 'h' ? "bin" :
                    data[0] == 'm' ? "msh" : "stl";
  char path[256];
  snprintf(path, sizeof(path), "%s/moduco-fuzz-%d.%s",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid(), ext);
  FILE* f = fopen(path, "wb");
  if (!f) {
    return 0;
  }
  size_t put = size > 1 ? fwrite(data + 1, 1, size - 1, f) : 0;
  fclose(f);
  if (put != size - 1) {
    remove(path);
    return 0;
  }

  // a model using the file as a colliding mesh geom or a height field
  char xml[1024], error[1024];
  if (data[0] == 'h') {
    snprintf(xml, sizeof(xml),
             "<mujoco><asset><hfield name=\"h\" file=\"%s\" size=\"1 1 0.2 0.1\"/></asset>"
             "<worldbody><geom type=\"hfield\" hfield=\"h\"/><body pos=\"0 0 0.5\">"
             "<freejoint/><geom size=\"0.1\"/></body></worldbody></mujoco>", path);
  } else {
    snprintf(xml, sizeof(xml),
             "<mujoco><asset><mesh name=\"m\" file=\"%s\"/></asset><worldbody>"
             "<geom type=\"plane\" size=\"1 1 0.1\"/><body pos=\"0 0 0.5\"><freejoint/>"
             "<geom type=\"mesh\" mesh=\"m\"/></body></worldbody></mujoco>", path);
  }
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  remove(path);
  if (m) {
    stepModel(m);
    mc_deleteModel(m);
  }
  return 0;
}


//---------------------------------- plugin descriptors --------------------------------------------

// a byte reader over the input
typedef struct {
  const uint8_t* p;
  size_t n;
} Bytes;


// next 32-bit value (zero when the input is exhausted)
static uint32_t take32(Bytes* b) {
  uint32_t v = 0;
  size_t k = b->n < 4 ? b->n : 4;
  memcpy(&v, b->p, k);
  b->p += k;
  b->n -= k;
  return v;
}


// a dummy callback for every non-NULL function pointer
static void dummyFn(void) {
}


// one descriptor: storage for every kind, a name buffer, a pair table
typedef struct {
  union {
    mcpHeader hdr;
    mcpIntegrator integrator;
    mcpSolver solver;
    mcpPostsolver postsolver;
    mcpCollision collision;
    mcpActuator actuator;
    mcpSensor sensor;
  } u;
  char name[MCP_MAXNAME + 8];
  char element[MCP_MAXNAME + 8];
  mcpCollisionPair pair[8];
} FuzzDesc;


// a callback pointer: NULL or the dummy, chosen by one bit
static void setFn(void* slot, int bit) {
  void (*fn)(void) = bit ? dummyFn : NULL;
  memcpy(slot, &fn, sizeof(fn));
}


// fill a string buffer from the input (may be unterminated within its first MCP_MAXNAME bytes)
static void takeString(Bytes* b, char* out, size_t cap) {
  size_t len = take32(b) % (cap - 1);
  memset(out, 0, cap);
  for (size_t i = 0; i < len && b->n; i++) {
    out[i] = (char)*b->p;
    b->p++;
    b->n--;
  }
}


// build one descriptor from the input
static void buildDesc(Bytes* b, FuzzDesc* f) {
  memset(f, 0, sizeof(*f));
  mcpHeader* h = &f->u.hdr;
  uint32_t sel = take32(b);

  // version fields: mostly valid, sometimes raw
  h->abi_major = (sel & 1) ? take32(b) : MCP_ABI_MAJOR;
  h->abi_minor = (sel & 2) ? take32(b) : MCP_ABI_MINOR;
  h->precision = (sel & 4) ? take32(b) : MCP_PRECISION;
  h->kind = (sel & 8) ? take32(b) : 1 + take32(b) % (mcpNKIND - 1);
  h->struct_size = (sel & 16) ? take32(b) % (sizeof(f->u) + 1) : (uint32_t)sizeof(f->u);
  h->flags = (sel & 32) ? take32(b) : 0;
  h->code = (int)take32(b);

  // strings: NULL, or fuzzed bytes
  takeString(b, f->name, sizeof(f->name));
  takeString(b, f->element, sizeof(f->element));
  h->name = (sel & 64) ? NULL : f->name;
  h->version = "1.0.0";
  h->description = "fuzz";

  // kind-specific callbacks and tables
  uint32_t fn = take32(b);
  setFn(&f->u.integrator.step, fn & 1);
  if (h->kind == mcpKIND_SOLVER) {
    setFn(&f->u.solver.solve, fn & 1);
  } else if (h->kind == mcpKIND_POSTSOLVER) {
    setFn(&f->u.postsolver.solve, fn & 1);
  } else if (h->kind == mcpKIND_COLLISION) {
    int npair = (int)(take32(b) % 9) - ((fn & 2) ? 1 : 0);
    f->u.collision.npair = npair;
    f->u.collision.pair = (fn & 4) ? NULL : f->pair;
    for (int i = 0; i < 8; i++) {
      f->pair[i].type1 = (int)take32(b);
      f->pair[i].type2 = (int)take32(b);
      setFn(&f->pair[i].collide, (fn >> (8 + i)) & 1);
    }
  } else if (h->kind == mcpKIND_ACTUATOR) {
    f->u.actuator.element = (fn & 2) ? NULL : f->element;
    setFn(&f->u.actuator.force, fn & 1);
  } else if (h->kind == mcpKIND_SENSOR) {
    f->u.sensor.element = (fn & 2) ? NULL : f->element;
    setFn(&f->u.sensor.compute, fn & 1);
  }
}


// an accepted descriptor must satisfy every rule of mcplugin.h; trap otherwise
static void checkAccepted(const FuzzDesc* f) {
  const mcpHeader* h = &f->u.hdr;
  int ok = h->abi_major == MCP_ABI_MAJOR && h->abi_minor <= MCP_ABI_MINOR &&
           h->precision == MCP_PRECISION && h->kind >= 1 && h->kind < mcpNKIND &&
           h->struct_size >= mcp_kindSize((int)h->kind) && h->flags == 0 && h->name &&
           mcp_validName(h->name) && strlen(h->name) < MCP_MAXNAME;
  if (ok && h->kind == mcpKIND_COLLISION) {
    const mcpCollision* c = &f->u.collision;
    ok = c->npair > 0 && c->pair;
    for (int i = 0; ok && i < c->npair; i++) {
      ok = c->pair[i].type1 >= 0 && c->pair[i].type1 <= c->pair[i].type2 &&
           c->pair[i].type2 < mcNGEOMTYPES && c->pair[i].collide;
    }
  }
  if (ok && h->kind == mcpKIND_ACTUATOR) {
    ok = f->u.actuator.element && f->u.actuator.force;
  }
  if (ok && h->kind == mcpKIND_SENSOR) {
    ok = f->u.sensor.element && f->u.sensor.compute;
  }
  if (!ok) {
    __builtin_trap();
  }
}


int fuzzPluginDescriptor(const uint8_t* data, size_t size) {
  Bytes b = {data, size};
  char why[512];

  // the library struct
  static FuzzDesc desc[4];
  const mcpHeader* list[4];
  uint32_t sel = take32(&b);
  mcpLibrary lib;
  memset(&lib, 0, sizeof(lib));
  lib.abi_major = (sel & 1) ? take32(&b) : MCP_ABI_MAJOR;
  lib.abi_minor = (sel & 2) ? take32(&b) : MCP_ABI_MINOR;
  lib.precision = (sel & 4) ? take32(&b) : MCP_PRECISION;
  lib.struct_size = (sel & 8) ? take32(&b) : (uint32_t)sizeof(mcpLibrary);
  lib.name = "fuzz";

  // the layout stamp: the host's, or a corrupted copy, a NULL one, other struct sizes
  static const char host_layout[] = MCP_LAYOUT;
  static char bad_layout[sizeof(MCP_LAYOUT)];
  static const uint32_t host_sizes[4] = MCP_LAYOUT_SIZES;
  lib.layout = host_layout;
  memcpy(lib.layout_sizes, host_sizes, sizeof(host_sizes));
  if (sel & 2048) {
    memcpy(bad_layout, host_layout, sizeof(bad_layout));
    bad_layout[take32(&b) % (sizeof(bad_layout) - 1)] ^= (char)((take32(&b) & 0x7f) | 1);
    lib.layout = bad_layout;
  }
  if (sel & 4096) {
    lib.layout = NULL;
  }
  if (sel & 8192) {
    uint32_t k = take32(&b) % 4;
    lib.layout_sizes[k] = take32(&b);
  }
  int nreal = (int)(take32(&b) % 5);
  lib.nplugin = (sel & 16) ? (int)take32(&b) : nreal;
  lib.plugin = (sel & 32) ? NULL : list;
  for (int i = 0; i < 4; i++) {
    buildDesc(&b, desc + i);
    list[i] = (sel & (64u << i)) ? NULL : &desc[i].u.hdr;
  }
  why[0] = 0;
  int libok = mcp_checkLibrary((sel & 1024) ? NULL : &lib, why, sizeof(why)) == 0;
  if (!libok && !why[0]) {
    __builtin_trap();            // a rejection always says why
  }
  if (libok && (lib.nplugin < 1 || !lib.plugin)) {
    __builtin_trap();            // an accepted library has a descriptor list
  }
  if (libok && (!lib.layout || strcmp(lib.layout, host_layout) ||
                memcmp(lib.layout_sizes, host_sizes, sizeof(host_sizes)))) {
    __builtin_trap();            // an accepted library has the host's layout stamp
  }

  // each descriptor as the loader would check it (only those that really exist)
  int n = libok ? (lib.nplugin < nreal ? lib.nplugin : nreal) : 4;
  for (int i = 0; i < n; i++) {
    why[0] = 0;
    if (mcp_checkDescriptor(list[i], why, sizeof(why)) == 0) {
      checkAccepted(desc + i);
    } else if (!why[0]) {
      __builtin_trap();
    }
  }
  return 0;
}
