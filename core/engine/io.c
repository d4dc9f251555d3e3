// Moduco core: model and data allocation, reset, copy, the arena and scratch stack, warnings,
// messages and state get/set.
#include "engine/io.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "engine/broadphase.h"
#include "engine/sleep.h"
#include "plugin/registry.h"

#define MCI_ALIGN 64              // alignment of every array in the model and data buffers

// bytes one X-macro array takes in a buffer (rows x cols elements, padded to MCI_ALIGN)
#define MCI_ARRAY_BYTES(type, nr, nc) \
  alignUp((size_t)(nr) * (size_t)(nc) * sizeof(type), MCI_ALIGN)

// bytes between the arena and the stack that only stack frames may use: 8 nested mc_markStack
// calls always succeed in a full arena, so mark/free pairs stay balanced when allocations fail
#define MCI_FRAME_RESERVE 128


//---------------------------------- version -------------------------------------------------------

int mc_version(void) {
  return mcVERSION_HEADER;
}


const char* mc_versionString(void) {
#ifdef MODUCO_VERSION_STRING
  return MODUCO_VERSION_STRING;
#else
  return "1.0.0";
#endif
}


//---------------------------------- messages ------------------------------------------------------

static mcfMessage g_handler = NULL;
static void* g_handler_user = NULL;


void mc_setMessageHandler(mcfMessage handler, void* user) {
  g_handler = handler;
  g_handler_user = user;
}


void mci_message(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);

  // user handler, else stderr
  mcfMessage handler = g_handler;
  if (handler) {
    handler(g_handler_user, buf);
  } else {
    fprintf(stderr, "%s\n", buf);
  }
}


//---------------------------------- warnings ------------------------------------------------------

// message of each warning type; %d is the warning's info (dof, actuator or count)
static const char* const kWarningFormat[mcNWARNING] = {
  "Inertia matrix is too close to singular at DOF %d. Check model.",
  "Too many contacts (%d): the arena is full. Increase <size memory=\"...\"/>.",
  "Too many constraint rows (%d), or no scratch stack left for them: the arena is full. "
  "Increase <size memory=\"...\"/>.",
  "Too many visual geoms (%d).",
  "NaN, Inf or huge value in QPOS at DOF %d. The simulation is unstable.",
  "NaN, Inf or huge value in QVEL at DOF %d. The simulation is unstable.",
  "NaN, Inf or huge value in QACC at DOF %d. The simulation is unstable.",
  "NaN, Inf or huge value in CTRL at actuator %d.",
  "A plugin's output failed the check mode (timer slot %d; see the plugin check message).",
};


const char* mc_warningText(int warning, int info) {
  static _Thread_local char buf[256];
  if (warning < 0 || warning >= mcNWARNING) {
    snprintf(buf, sizeof(buf), "Unknown warning type %d (info %d).", warning, info);
  } else {
    snprintf(buf, sizeof(buf), kWarningFormat[warning], info);
  }
  return buf;
}


static mcfMessage g_error_handler = NULL;
static void* g_error_user = NULL;


void mc_setErrorHandler(mcfMessage handler, void* user) {
  g_error_handler = handler;
  g_error_user = user;
}


unsigned int mc_setWarningPolicy(mcData* d, unsigned int mask) {
  unsigned int old = d->warning_policy;
  d->warning_policy = mask & mcWARNING_ALL;
  return old;
}


int mc_warningError(const mcData* d) {
  return d->warning_stop > 0 ? d->warning_stop - 1 : -1;
}


void mc_clearWarningError(mcData* d) {
  d->warning_stop = 0;
}


// count warnings; print only the first time, or raise an error if the policy escalates the type
void mc_warning(mcData* d, int warning, int info) {
  if (warning < 0 || warning >= mcNWARNING) {
    mci_message("WARNING: unknown warning type %d", warning);
    return;
  }
  if (d->warning_policy & (1u << warning)) {
    if (!d->warning_stop) {
      d->warning_stop = warning + 1;
      char buf[384];
      snprintf(buf, sizeof(buf), "ERROR: %s Time = %.4f.", mc_warningText(warning, info),
               d->time);
      mcfMessage handler = g_error_handler;
      if (handler) {
        handler(g_error_user, buf);
      } else {
        mci_message("%s", buf);
      }
    }
  } else if (!d->warning[warning].number) {
    mci_message("WARNING: %s Time = %.4f.", mc_warningText(warning, info), d->time);
  }
  d->warning[warning].number++;
  d->warning[warning].lastinfo = info;
}


//---------------------------------- options and sizes ---------------------------------------------

void mci_defaultOption(mcOption* opt) {
  memset(opt, 0, sizeof(mcOption));

  // timing
  opt->timestep = 0.002;
  opt->apirate = 100;

  // solver parameters
  opt->impratio = 1;
  opt->tolerance = 1e-8;
  opt->ls_tolerance = 0.01;
  opt->noslip_tolerance = 1e-6;
  opt->mpr_tolerance = 1e-6;

  // physical constants
  opt->gravity[2] = -9.81;
  opt->magnetic[1] = -0.5;

  // override parameters
  opt->o_solref[0] = 0.02;
  opt->o_solref[1] = 1;
  opt->o_solimp[0] = 0.9;
  opt->o_solimp[1] = 0.95;
  opt->o_solimp[2] = 0.001;
  opt->o_solimp[3] = 0.5;
  opt->o_solimp[4] = 2;

  // discrete settings
  opt->integrator = mcINT_EULER;
  opt->collision = mcCOL_ALL;
  opt->cone = mcCONE_PYRAMIDAL;
  opt->jacobian = mcJAC_AUTO;
  opt->solver = mcSOL_NEWTON;
  opt->iterations = 100;
  opt->ls_iterations = 50;
  opt->noslip_iterations = 0;
  opt->mpr_iterations = 50;
  snprintf(opt->integrator_name, sizeof(opt->integrator_name), "Euler");
  snprintf(opt->solver_name, sizeof(opt->solver_name), "Newton");
}


// round up to the buffer alignment
static size_t alignUp(size_t n, size_t a) {
  return (n + a - 1) / a * a;
}


// A model buffer replaced by mci_replaceModel, kept until mc_deleteModel; its slot follows the
// arrays of the buffer that replaced it (zero: none).
typedef struct RetiredBuffer_ {
  void* buffer;
  int nbuffer;
} RetiredBuffer;


static RetiredBuffer* retiredSlot(void* buffer, int nbuffer) {
  return (RetiredBuffer*)((char*)buffer + alignUp((size_t)nbuffer, MCI_ALIGN));
}


// bytes of the model buffer for the sizes in m (arrays, then the plugin pointer table)
static size_t modelBytes(const mcModel* m) {
  // size fields as local variables, so that column expressions like nmocap*3 evaluate
#define X(name) const size_t name = (size_t)(m->name > 0 ? m->name : 0); (void)name;
  MC_MODEL_SIZES(X)
#undef X

  size_t bytes = 0;
#define X(type, name, nr, nc) bytes += MCI_ARRAY_BYTES(type, nr, nc);
  MC_MODEL_POINTERS(X)
#undef X
  bytes += alignUp(nplugin * sizeof(const mcpHeader*), MCI_ALIGN);
  return bytes;
}


// point every array of m into m->buffer
static void modelSetPointers(mcModel* m) {
#define X(name) const size_t name = (size_t)(m->name > 0 ? m->name : 0); (void)name;
  MC_MODEL_SIZES(X)
#undef X

  char* ptr = (char*)m->buffer;
#define X(type, name, nr, nc)                                                                      \
  m->name = (type*)ptr;                                                                            \
  ptr += MCI_ARRAY_BYTES(type, nr, nc);
  MC_MODEL_POINTERS(X)
#undef X
  m->plugin = (const struct mcpHeader_**)ptr;
}


mcModel* mci_makeModel(const mcModel* sizes) {
  mcModel* m = (mcModel*)calloc(1, sizeof(mcModel));
  if (!m) {
    return NULL;
  }

  // copy sizes and options
#define X(name) m->name = sizes->name;
  MC_MODEL_SIZES(X)
#undef X
  m->opt = sizes->opt;
  m->sleep_tolerance = sizes->sleep_tolerance;
  m->narena = sizes->narena;

  // one zeroed buffer for all arrays, then the retired-buffer slot
  size_t bytes = modelBytes(m);
  size_t total = alignUp(bytes, MCI_ALIGN) + alignUp(sizeof(RetiredBuffer), MCI_ALIGN);
  m->nbuffer = (int)bytes;
  m->buffer = aligned_alloc(MCI_ALIGN, total);
  if (!m->buffer) {
    free(m);
    return NULL;
  }
  memset(m->buffer, 0, total);
  modelSetPointers(m);
  return m;
}


void mc_deleteModel(mcModel* m) {
  if (!m) {
    return;
  }
  mci_modelChanged();             // its address may come back as another model
  void* buffer = m->buffer;
  int nbuffer = m->nbuffer;
  while (buffer) {
    RetiredBuffer r = *retiredSlot(buffer, nbuffer);
    free(buffer);
    buffer = r.buffer;
    nbuffer = r.nbuffer;
  }
  free(m);
}


mcModel* mc_copyModel(mcModel* dest, const mcModel* src) {
  if (!src) {
    return NULL;
  }

  // allocate, or check that dest has the same sizes
  if (!dest) {
    dest = mci_makeModel(src);
    if (!dest) {
      return NULL;
    }
  } else if (dest->nbuffer != src->nbuffer || modelBytes(dest) != modelBytes(src)) {
    return NULL;
  }

  // copy everything but the pointers, then the buffer
  mci_modelChanged();
  void* buffer = dest->buffer;
  *dest = *src;
  dest->buffer = buffer;
  memcpy(dest->buffer, src->buffer, (size_t)src->nbuffer);
  modelSetPointers(dest);
  return dest;
}


mcModel* mci_resizedCopy(const mcModel* src, const mcModel* sizes) {
  mcModel* n = mci_makeModel(sizes);
  if (!n) {
    return NULL;
  }
  void* buffer = n->buffer;
  int bytes = n->nbuffer;
  *n = *src;
#define X(name) n->name = sizes->name;
  MC_MODEL_SIZES(X)
#undef X
  n->buffer = buffer;
  n->nbuffer = bytes;
  modelSetPointers(n);

  // every array keeps its leading values (all of them when its size did not change)
#define X(name) const size_t name = (size_t)(src->name > 0 ? src->name : 0); (void)name;
  MC_MODEL_SIZES(X)
#undef X
#define X(type, name, nr, nc)                                                                      \
  {                                                                                                \
    size_t old = (size_t)(nr) * (size_t)(nc);                                                      \
    size_t now = (size_t)(n->nr > 0 ? n->nr : 0) * (size_t)(nc);                                   \
    if (old && now) {                                                                              \
      memcpy(n->name, src->name, sizeof(type) * (old < now ? old : now));                          \
    }                                                                                              \
  }
  MC_MODEL_POINTERS(X)
#undef X
  size_t keep = nplugin < (size_t)n->nplugin ? nplugin : (size_t)n->nplugin;
  if (keep) {
    memcpy(n->plugin, src->plugin, sizeof(const mcpHeader*) * keep);
  }
  return n;
}


void mci_replaceModel(mcModel* m, mcModel* n) {
  // views into m's arrays (Python) may outlive this: its buffer stays allocated, chained behind
  // n's, until mc_deleteModel
  RetiredBuffer* r = retiredSlot(n->buffer, n->nbuffer);
  r->buffer = m->buffer;
  r->nbuffer = m->nbuffer;
  *m = *n;
  free(n);
}

void mc_printSizes(const mcModel* m, void* file) {
  FILE* fp = file ? (FILE*)file : stdout;
#define X(name) fprintf(fp, "%-14s %d\n", #name, m->name);
  MC_MODEL_SIZES(X)
#undef X
}


//---------------------------------- arena size ----------------------------------------------------

// THE place that decides whether the arena reserves the dense constraint Jacobian efc_J
// (nefc x nv) and the dense nv x nv solver matrices: only when the model runs the dense path,
// that is option jacobian="dense", or "auto" with nv < 60 (constraint.c's rule for building the
// row-sparse efc_J instead). Sparse models get the row-sparse efc_J and sparse solvers only.
int mci_denseJacobian(const mcModel* m) {
  return !(m->opt.jacobian == mcJAC_SPARSE || (m->opt.jacobian == mcJAC_AUTO && m->nv >= 60));
}


// largest number of dofs on one body's chain to the world (the non-zeros of one body's
// Jacobian row)
static size_t maxChainDofs(const mcModel* m) {
  size_t best = 0;
  for (int b = 1; b < m->nbody; b++) {
    size_t n = 0;
    for (int p = b; p > 0; p = m->body_parentid[p]) {
      n += (size_t)(m->body_dofnum[p] > 0 ? m->body_dofnum[p] : 0);
    }
    if (n > best) {
      best = n;
    }
  }
  return best;
}


size_t mci_arenaSize(const mcModel* m) {
  // explicit request
  if (m->narena > 0) {
    return alignUp(m->narena, MCI_ALIGN);
  }

  // contacts and constraint rows: per-row scalars, plus the dense efc_J row, or the row-sparse
  // one bounded by the dofs of two body chains
  size_t nv = (size_t)m->nv;
  size_t ncon = m->nconmax > 0 ? (size_t)m->nconmax : 100 + 4 * (size_t)m->ngeom;
  size_t nefc = m->njmax > 0 ? (size_t)m->njmax : 500 + 6 * ncon;
  int dense = mci_denseJacobian(m);
  size_t efc_row = 24 * sizeof(mcNum) + 4 * sizeof(int);
  size_t rownnz = 2 * maxChainDofs(m);
  if (rownnz > nv) {
    rownnz = nv;
  }
  if (dense) {
    efc_row += nv * sizeof(mcNum);
  } else {
    efc_row += rownnz * (sizeof(mcNum) + sizeof(int)) + 2 * sizeof(int);
  }
  size_t bytes = ncon * sizeof(mcContact) + nefc * efc_row;

  // scratch stack: vectors for integrators and solvers, plus dense nv x nv work (Newton's
  // Hessian, PGS) on the dense path, or per-row work (nefc vectors, the sparse Hessian's
  // row-sparse structures) on the sparse path
  size_t vec = (size_t)(m->nq + m->nv + m->na + m->nu + m->nM + 10 * m->nbody + m->ntendon);
  size_t stack = 64 * vec * sizeof(mcNum) + (1 << 20);
  if (dense) {
    stack += 8 * nv * nv * sizeof(mcNum);
  } else {
    stack += nefc * (16 * sizeof(mcNum) + 2 * rownnz * (sizeof(mcNum) + sizeof(int)));

    // Newton's sparse factor reserves the whole lower triangle for its symbolic pass (column
    // lists and values); reserved while that stays below 1 GB (nv up to about 13 000)
    size_t tri = nv * (nv + 1) / 2 * (sizeof(int) + sizeof(mcNum));
    if (m->opt.solver == mcSOL_NEWTON && tri <= ((size_t)1 << 30)) {
      stack += tri;
    }
  }
  size_t legacy = m->nstack > 0 ? (size_t)m->nstack * sizeof(mcNum) : 0;
  bytes += stack > legacy ? stack : legacy;
  return alignUp(bytes, MCI_ALIGN);
}


//---------------------------------- data ----------------------------------------------------------

// signature of what data made from a model depends on: its sizes and, per plugin instance, the
// state and data sizes and the descriptor when it has lifecycle hooks (its init ran on the data).
// Kept in mcData to catch data used with another model, or made before an mc_setSolver /
// mc_setIntegrator that changed any of these.
static uint64_t modelSignature(const mcModel* m) {
  // four FNV-1a lanes, one value at a time round-robin: mc_step checks the signature every step,
  // and one chain of ~100 dependent multiplies was a few percent of a small model's step
  const uint64_t prime = 1099511628211ULL;
  const uint32_t sizes[] = {
#define X(name) (uint32_t)m->name,
    MC_MODEL_SIZES(X)
#undef X
  };
  uint64_t h[4] = {1469598103934665603ULL, 1469598103934665603ULL ^ 1,
                   1469598103934665603ULL ^ 2, 1469598103934665603ULL ^ 3};
  const int nsize = (int)(sizeof(sizes) / sizeof(sizes[0]));
  for (int i = 0; i < nsize; i++) {
    h[i & 3] = (h[i & 3] ^ sizes[i]) * prime;
  }
  for (int i = 0; m->plugin && i < m->nplugin; i++) {
    const mcpHeader* p = m->plugin[i];
    int hooks = p && (p->init || p->reset || p->destroy);
    h[0] = (h[0] ^ (uint64_t)(uintptr_t)(hooks ? p : NULL)) * prime;
    h[1] = (h[1] ^ (uint64_t)(uint32_t)m->plugin_statenum[i]) * prime;
    h[2] = (h[2] ^ (uint64_t)(uint32_t)m->plugin_datasize[i]) * prime;
  }
  return ((h[0] * prime ^ h[1]) * prime ^ h[2]) * prime ^ h[3];
}


uint64_t mci_modelSignature(const mcModel* m) {
  return modelSignature(m);
}


// bumped whenever a model's sizes or plugin instances may change in place or its memory goes
// (mc_deleteModel, mc_copyModel into an existing model, mc_setSolver / mc_setIntegrator)
static atomic_ulong g_modelGeneration = 1;

void mci_modelChanged(void) {
  atomic_fetch_add_explicit(&g_modelGeneration, 1, memory_order_acq_rel);
}


// the model a data's signature was last found to match, and the generation then; kept after the
// sweep order in the data's buffer (a view has none)
typedef struct {
  const mcModel* model;
  unsigned long generation;
} SignatureCheck;


static SignatureCheck* signatureCheck(const mcData* d) {
  int* order = mci_sweepOrder(d);
  if (!order) {
    return NULL;
  }
  char* at = (char*)order + alignUp(sizeof(int) * (size_t)(3 + order[0]), MCI_ALIGN);
  if (at + sizeof(SignatureCheck) > (char*)d->buffer + d->nbuffer) {
    return NULL;
  }
  return (SignatureCheck*)at;
}


void* mci_groupCache(const mcModel* m, const mcData* d) {
  SignatureCheck* c = signatureCheck(d);
  size_t bytes = mci_groupBytes(m);
  if (!c || !bytes) {
    return NULL;
  }
  char* at = (char*)c + alignUp(sizeof(SignatureCheck), MCI_ALIGN);
  return at + bytes <= (char*)d->buffer + d->nbuffer ? at : NULL;
}


int mci_stepSignatureOk(const mcModel* m, mcData* d) {
  unsigned long gen = atomic_load_explicit(&g_modelGeneration, memory_order_acquire);
  SignatureCheck* c = signatureCheck(d);
  if (c && c->model == m && c->generation == gen) {
    return 1;
  }
  if (d->model_signature != modelSignature(m)) {
    return 0;
  }
  if (c) {
    c->model = m;
    c->generation = gen;
  }
  return 1;
}


int mc_dataMatches(const mcModel* m, const mcData* d) {
  return d->model_signature == modelSignature(m);
}


// bytes of the data arrays (without the arena)
static size_t dataBytes(const mcModel* m) {
#define X(name) const size_t name = (size_t)(m->name > 0 ? m->name : 0); (void)name;
  MC_MODEL_SIZES(X)
#undef X

  size_t bytes = 0;
#define X(type, name, nr, nc) bytes += MCI_ARRAY_BYTES(type, nr, nc);
  MC_DATA_POINTERS(X)
#undef X
  bytes += alignUp(nplugin * sizeof(void*), MCI_ALIGN);
  bytes += alignUp(nplugin * sizeof(const mcpHeader*), MCI_ALIGN);
  for (size_t i = 0; i < nplugin; i++) {
    bytes += alignUp((size_t)(m->plugin_datasize[i] > 0 ? m->plugin_datasize[i] : 0), MCI_ALIGN);
  }
  return bytes;
}


// bytes of the broad phase's sweep order after the arena (mci_sweepOrder): capacity, count, axis
// and up to ngeom geoms
static size_t sweepOrderBytes(const mcModel* m) {
  return alignUp(sizeof(int) * (size_t)(3 + (m->ngeom > 0 ? m->ngeom : 0)), MCI_ALIGN);
}


int* mci_sweepOrder(const mcData* d) {
  // only the data that owns its arena (a worker's view has its arena elsewhere)
  uintptr_t buf = (uintptr_t)d->buffer, arena = (uintptr_t)d->arena;
  if (!d->buffer || arena < buf || arena + d->narena + 3 * sizeof(int) > buf + d->nbuffer) {
    return NULL;
  }
  return (int*)(arena + d->narena);
}


// point every array of d into d->buffer, and the arena after them
static void dataSetPointers(const mcModel* m, mcData* d) {
#define X(name) const size_t name = (size_t)(m->name > 0 ? m->name : 0); (void)name;
  MC_MODEL_SIZES(X)
#undef X

  char* ptr = (char*)d->buffer;
#define X(type, name, nr, nc)                                                                      \
  d->name = (type*)ptr;                                                                            \
  ptr += MCI_ARRAY_BYTES(type, nr, nc);
  MC_DATA_POINTERS(X)
#undef X
  d->plugin_data = (void**)ptr;
  ptr += alignUp(nplugin * sizeof(void*), MCI_ALIGN);
  d->plugin_desc = (const struct mcpHeader_**)ptr;
  ptr += alignUp(nplugin * sizeof(const mcpHeader*), MCI_ALIGN);

  // the per-instance plugin data (zeroed with the buffer; mc_resetData leaves it to the plugins)
  for (size_t i = 0; i < nplugin; i++) {
    size_t n = (size_t)(m->plugin_datasize[i] > 0 ? m->plugin_datasize[i] : 0);
    d->plugin_data[i] = n ? ptr : NULL;
    ptr += alignUp(n, MCI_ALIGN);
  }
  d->arena = ptr;
}


// call the destroy hook of every initialized instance (d->nplugin of them), last first
static void destroyPlugins(mcData* d) {
  for (int i = d->nplugin - 1; i >= 0; i--) {
    const mcpHeader* p = d->plugin_desc[i];
    if (p && p->destroy) {
      p->destroy(mcp_host(), d, i);
    }
  }
  d->nplugin = 0;
}


// call the init hook of every instance, in order; on a failure d->nplugin counts the instances
// initialized before it (those mc_deleteData destroys). Return 0 on success
static int initPlugins(const mcModel* m, mcData* d) {
  for (int i = 0; i < m->nplugin; i++) {
    d->plugin_desc[i] = m->plugin[i];
  }
  for (int i = 0; i < m->nplugin; i++) {
    const mcpHeader* p = m->plugin[i];
    if (p && p->init && p->init(mcp_host(), m, d, i) != 0) {
      mci_message("plugin '%s': init failed (instance %d)", p->name ? p->name : "?", i);
      d->nplugin = i;
      return -1;
    }
  }
  return 0;
}


mcData* mc_makeData(const mcModel* m) {
  if (!m) {
    return NULL;
  }
  mcData* d = (mcData*)calloc(1, sizeof(mcData));
  if (!d) {
    return NULL;
  }

  // one buffer: arrays, then the arena
  size_t bytes = dataBytes(m);
  d->narena = mci_arenaSize(m);
  d->nbuffer = bytes + d->narena + sweepOrderBytes(m) +
               alignUp(sizeof(SignatureCheck), MCI_ALIGN) + alignUp(mci_groupBytes(m), MCI_ALIGN);
  d->buffer = aligned_alloc(MCI_ALIGN, alignUp(d->nbuffer, MCI_ALIGN));
  if (!d->buffer) {
    mci_message("mc_makeData: cannot allocate the data of the model: %zu bytes (arrays %zu, arena "
                "%zu; see <size> memory, nconmax, njmax, nstack, nuserdata)", d->nbuffer, bytes,
                d->narena);
    free(d);
    return NULL;
  }
  memset(d->buffer, 0, d->nbuffer);
  dataSetPointers(m, d);
  int* order = mci_sweepOrder(d);
  order[0] = m->ngeom > 0 ? m->ngeom : 0;
  d->nplugin = m->nplugin;
  d->model_signature = modelSignature(m);
  d->island_view = -1;

  // plugin instances
  if (initPlugins(m, d) != 0) {
    mc_deleteData(d);
    return NULL;
  }

  mc_resetData(m, d);

  // check mode from the environment (docs/plugins.md, "Check mode")
  const char* check = getenv("MODUCO_PLUGIN_CHECK");
  d->plugin_check = check && check[0] && strcmp(check, "0") != 0;
  return d;
}


void mc_deleteData(mcData* d) {
  if (!d) {
    return;
  }
  destroyPlugins(d);
  mc_bindThreadPool(d, NULL);
  free(d->buffer);
  free(d);
}


// clear the variable-size part: arena, stack, constraint pointers
void mci_clearArena(mcData* d) {
  d->parena = 0;
  d->pstack = d->narena;
  d->pbase = d->narena;
  d->stack_marks = 0;
  d->ncon = 0;
  d->ne = 0;
  d->nf = 0;
  d->nefc = 0;
  d->contact = NULL;
  d->efc_type = NULL;
  d->efc_id = NULL;
  d->efc_state = NULL;
  d->efc_J = NULL;
  d->efc_pos = NULL;
  d->efc_margin = NULL;
  d->efc_frictionloss = NULL;
  d->efc_diagApprox = NULL;
  d->efc_KBIP = NULL;
  d->efc_D = NULL;
  d->efc_R = NULL;
  d->efc_vel = NULL;
  d->efc_aref = NULL;
  d->efc_b = NULL;
  d->efc_force = NULL;
  d->efc_J_rownnz = NULL;
  d->efc_J_rowadr = NULL;
  d->efc_J_colind = NULL;
  d->efc_J_val = NULL;
  d->efc_AR = NULL;
  d->efc_AR_rownnz = NULL;
  d->efc_AR_rowadr = NULL;
  d->efc_AR_colind = NULL;
  d->nisland = 0;
  d->island_solved = 0;
  d->efc_island = NULL;
  d->island_efcind = NULL;
}


void mc_resetData(const mcModel* m, mcData* d) {
  // data made for another model (or before mc_setSolver / mc_setIntegrator): its plugin blocks
  // do not fit the model's instances, so their reset hooks must not see it
  if (d->model_signature != modelSignature(m)) {
    mci_message("mc_resetData: data was made for another model; reset refused");
    return;
  }

  // zero all arrays (not the plugin tables)
  size_t arrays = (size_t)((char*)d->plugin_data - (char*)d->buffer);
  memset(d->buffer, 0, arrays);

  // scalars and statistics
  d->time = 0;
  d->energy[0] = d->energy[1] = 0;
  memset(d->warning, 0, sizeof(d->warning));
  d->warning_stop = 0;  // the policy (warning_policy) is a setting and survives the reset
  memset(d->timer, 0, sizeof(d->timer));
  memset(d->timer_plugin, 0, sizeof(d->timer_plugin));
  memset(d->solver, 0, sizeof(d->solver));
  d->solver_iter = 0;
  d->solver_nnz = 0;
  d->solver_fwdinv[0] = d->solver_fwdinv[1] = 0;
  d->maxuse_stack = 0;
  d->maxuse_arena = 0;
  d->maxuse_con = 0;
  d->maxuse_efc = 0;
  mci_clearArena(d);

  // default configuration
  if (m->nq) {
    memcpy(d->qpos, m->qpos0, sizeof(mcNum) * (size_t)m->nq);
  }

  // equality constraints
  for (int i = 0; i < m->neq; i++) {
    d->eq_active[i] = m->eq_active0[i];
  }

  // mocap bodies at their model pose
  for (int b = 0; b < m->nbody; b++) {
    int id = m->body_mocapid[b];
    if (id >= 0) {
      memcpy(d->mocap_pos + 3 * id, m->body_pos + 3 * b, 3 * sizeof(mcNum));
      memcpy(d->mocap_quat + 4 * id, m->body_quat + 4 * b, 4 * sizeof(mcNum));
    }
  }

  // every tree awake (or asleep for sleep="init", engine/sleep.c)
  mc_sleepReset(m, d);

  // plugin reset hooks
  for (int i = 0; i < m->nplugin; i++) {
    const mcpHeader* p = m->plugin[i];
    if (p && p->reset) {
      p->reset(mcp_host(), m, d, i);
    }
  }
}


int mc_resetDataKeyframe(const mcModel* m, mcData* d, int key) {
  mc_resetData(m, d);
  if (key < 0 || key >= m->nkey || d->model_signature != modelSignature(m)) {
    return -1;
  }

  // copy the keyframe's state
  d->time = m->key_time[key];
  if (m->nq) memcpy(d->qpos, m->key_qpos + (size_t)key * m->nq, sizeof(mcNum) * (size_t)m->nq);
  if (m->nv) memcpy(d->qvel, m->key_qvel + (size_t)key * m->nv, sizeof(mcNum) * (size_t)m->nv);
  if (m->na) memcpy(d->act, m->key_act + (size_t)key * m->na, sizeof(mcNum) * (size_t)m->na);
  if (m->nu) memcpy(d->ctrl, m->key_ctrl + (size_t)key * m->nu, sizeof(mcNum) * (size_t)m->nu);
  if (m->nmocap) {
    memcpy(d->mocap_pos, m->key_mpos + (size_t)key * 3 * m->nmocap,
           sizeof(mcNum) * 3 * (size_t)m->nmocap);
    memcpy(d->mocap_quat, m->key_mquat + (size_t)key * 4 * m->nmocap,
           sizeof(mcNum) * 4 * (size_t)m->nmocap);
  }
  return 0;
}


// move a pointer from src's buffer into dest's buffer
static void* rebase(const void* p, const mcData* src, const mcData* dest) {
  if (!p) {
    return NULL;
  }
  return (char*)dest->buffer + ((const char*)p - (const char*)src->buffer);
}


mcData* mc_copyData(mcData* dest, const mcModel* m, const mcData* src) {
  if (!src) {
    return NULL;
  }
  if (!dest) {
    dest = mc_makeData(m);
    if (!dest) {
      return NULL;
    }
  } else if (dest->nbuffer != src->nbuffer) {
    return NULL;
  }

  // keep dest's own buffer and thread pool, copy everything else (plugin state and data included)
  void* buffer = dest->buffer;
  struct mcThreadPool_* pool = dest->threadpool;
  void* work = dest->threadwork;
  *dest = *src;
  dest->buffer = buffer;
  dest->threadpool = pool;
  dest->threadwork = work;
  memcpy(dest->buffer, src->buffer, src->nbuffer);

  // rebase every pointer into dest's buffer
#define X(type, name, nr, nc) dest->name = (type*)rebase(src->name, src, dest);
  MC_DATA_POINTERS(X)
#undef X
  dest->arena = rebase(src->arena, src, dest);
  dest->plugin_data = (void**)rebase(src->plugin_data, src, dest);
  dest->plugin_desc = (const struct mcpHeader_**)rebase(src->plugin_desc, src, dest);
  dest->contact = (mcContact*)rebase(src->contact, src, dest);
  dest->efc_type = (int*)rebase(src->efc_type, src, dest);
  dest->efc_id = (int*)rebase(src->efc_id, src, dest);
  dest->efc_state = (int*)rebase(src->efc_state, src, dest);
  dest->efc_J = (mcNum*)rebase(src->efc_J, src, dest);
  dest->efc_pos = (mcNum*)rebase(src->efc_pos, src, dest);
  dest->efc_margin = (mcNum*)rebase(src->efc_margin, src, dest);
  dest->efc_frictionloss = (mcNum*)rebase(src->efc_frictionloss, src, dest);
  dest->efc_diagApprox = (mcNum*)rebase(src->efc_diagApprox, src, dest);
  dest->efc_KBIP = (mcNum*)rebase(src->efc_KBIP, src, dest);
  dest->efc_D = (mcNum*)rebase(src->efc_D, src, dest);
  dest->efc_R = (mcNum*)rebase(src->efc_R, src, dest);
  dest->efc_vel = (mcNum*)rebase(src->efc_vel, src, dest);
  dest->efc_aref = (mcNum*)rebase(src->efc_aref, src, dest);
  dest->efc_b = (mcNum*)rebase(src->efc_b, src, dest);
  dest->efc_force = (mcNum*)rebase(src->efc_force, src, dest);
  dest->efc_J_rownnz = (int*)rebase(src->efc_J_rownnz, src, dest);
  dest->efc_J_rowadr = (int*)rebase(src->efc_J_rowadr, src, dest);
  dest->efc_J_colind = (int*)rebase(src->efc_J_colind, src, dest);
  dest->efc_J_val = (mcNum*)rebase(src->efc_J_val, src, dest);
  dest->efc_AR = (mcNum*)rebase(src->efc_AR, src, dest);
  dest->efc_AR_rownnz = (int*)rebase(src->efc_AR_rownnz, src, dest);
  dest->efc_AR_rowadr = (int*)rebase(src->efc_AR_rowadr, src, dest);
  dest->efc_AR_colind = (int*)rebase(src->efc_AR_colind, src, dest);
  dest->efc_island = (int*)rebase(src->efc_island, src, dest);
  dest->island_efcind = (int*)rebase(src->island_efcind, src, dest);

  // per-instance plugin data lives in the buffer: its contents were copied, point into dest's
  for (int i = 0; i < dest->nplugin; i++) {
    dest->plugin_data[i] = rebase(src->plugin_data[i], src, dest);
  }
  return dest;
}


//---------------------------------- arena and stack -----------------------------------------------

void* mci_arenaAlloc(mcData* d, size_t bytes, size_t align) {
  if (align < 8) {
    align = 8;
  }
  size_t start = alignUp(d->parena, align);
  if (bytes > d->pstack || start > d->pstack - bytes ||
      d->pstack - (start + bytes) < MCI_FRAME_RESERVE) {
    return NULL;
  }
  d->parena = start + bytes;
  if (d->parena > d->maxuse_arena) {
    d->maxuse_arena = d->parena;
  }
  return (char*)d->arena + start;
}


// a stack frame starts with 16 bytes holding the previous frame base and stack pointer
void mc_markStack(mcData* d) {
  if (d->pstack < 16 + d->parena) {
    mci_message("mc_markStack: arena full (%zu bytes); increase <size memory>", d->narena);
    return;
  }
  size_t top = (d->pstack - 16) & ~(size_t)15;
  if (top < d->parena) {
    mci_message("mc_markStack: arena full (%zu bytes); increase <size memory>", d->narena);
    return;
  }
  size_t* slot = (size_t*)((char*)d->arena + top);
  slot[0] = d->pbase;
  slot[1] = d->pstack;
  d->pbase = top;
  d->pstack = top;
  d->stack_marks++;
}


void mc_freeStack(mcData* d) {
  if (d->stack_marks <= 0) {
    mci_message("mc_freeStack: no matching mc_markStack");
    return;
  }
  const size_t* slot = (const size_t*)((char*)d->arena + d->pbase);
  d->pbase = slot[0];
  d->pstack = slot[1];
  d->stack_marks--;
}


void* mc_stackAlloc(mcData* d, size_t bytes, size_t align) {
  if (align < 16) {
    align = 16;
  }

  // a full arena is counted (and printed once) as CNSTRFULL: the stack serves the solvers
  if (bytes > d->pstack) {
    mc_warning(d, mcWARN_CNSTRFULL, d->nefc);
    return NULL;
  }
  size_t top = (d->pstack - bytes) & ~(align - 1);
  if (top < d->parena || top > d->pstack || top - d->parena < MCI_FRAME_RESERVE) {
    mc_warning(d, mcWARN_CNSTRFULL, d->nefc);
    return NULL;
  }
  d->pstack = top;
  size_t used = d->narena - top;
  if (used > d->maxuse_stack) {
    d->maxuse_stack = used;
  }
  return (char*)d->arena + top;
}


//---------------------------------- state ---------------------------------------------------------

// size of one state component
static int componentSize(const mcModel* m, int bit) {
  switch (1 << bit) {
  case mcSTATE_TIME:         return 1;
  case mcSTATE_QPOS:         return m->nq;
  case mcSTATE_QVEL:         return m->nv;
  case mcSTATE_ACT:          return m->na;
  case mcSTATE_WARMSTART:    return m->nv;
  case mcSTATE_CTRL:         return m->nu;
  case mcSTATE_QFRC_APPLIED: return m->nv;
  case mcSTATE_XFRC_APPLIED: return 6 * m->nbody;
  case mcSTATE_EQ_ACTIVE:    return m->neq;
  case mcSTATE_MOCAP_POS:    return 3 * m->nmocap;
  case mcSTATE_MOCAP_QUAT:   return 4 * m->nmocap;
  case mcSTATE_USERDATA:     return m->nuserdata;
  case mcSTATE_PLUGIN:       return m->npluginstate;
  default:                   return 0;
  }
}


// pointer to the mcNum array of a state component (NULL for eq_active and time)
static mcNum* componentPtr(mcData* d, int bit) {
  switch (1 << bit) {
  case mcSTATE_QPOS:         return d->qpos;
  case mcSTATE_QVEL:         return d->qvel;
  case mcSTATE_ACT:          return d->act;
  case mcSTATE_WARMSTART:    return d->qacc_warmstart;
  case mcSTATE_CTRL:         return d->ctrl;
  case mcSTATE_QFRC_APPLIED: return d->qfrc_applied;
  case mcSTATE_XFRC_APPLIED: return d->xfrc_applied;
  case mcSTATE_MOCAP_POS:    return d->mocap_pos;
  case mcSTATE_MOCAP_QUAT:   return d->mocap_quat;
  case mcSTATE_USERDATA:     return d->userdata;
  case mcSTATE_PLUGIN:       return d->plugin_state;
  default:                   return NULL;
  }
}


int mc_stateSize(const mcModel* m, unsigned int spec) {
  int size = 0;
  for (int bit = 0; bit < mcNSTATE; bit++) {
    if (spec & (1u << bit)) {
      size += componentSize(m, bit);
    }
  }
  return size;
}


void mc_getState(const mcModel* m, const mcData* d, mcNum* state, unsigned int spec) {
  int adr = 0;
  for (int bit = 0; bit < mcNSTATE; bit++) {
    if (!(spec & (1u << bit))) {
      continue;
    }
    int n = componentSize(m, bit);
    if ((1 << bit) == mcSTATE_TIME) {
      state[adr] = d->time;
    } else if ((1 << bit) == mcSTATE_EQ_ACTIVE) {
      for (int i = 0; i < n; i++) {
        state[adr + i] = d->eq_active[i];
      }
    } else if (n) {
      memcpy(state + adr, componentPtr((mcData*)d, bit), sizeof(mcNum) * (size_t)n);
    }
    adr += n;
  }
}


void mc_setState(const mcModel* m, mcData* d, const mcNum* state, unsigned int spec) {
  int adr = 0;
  for (int bit = 0; bit < mcNSTATE; bit++) {
    if (!(spec & (1u << bit))) {
      continue;
    }
    int n = componentSize(m, bit);
    if ((1 << bit) == mcSTATE_TIME) {
      d->time = state[adr];
    } else if ((1 << bit) == mcSTATE_EQ_ACTIVE) {
      for (int i = 0; i < n; i++) {
        d->eq_active[i] = state[adr + i] != 0;
      }
    } else if (n) {
      memcpy(componentPtr(d, bit), state + adr, sizeof(mcNum) * (size_t)n);
    }
    adr += n;
  }
}
