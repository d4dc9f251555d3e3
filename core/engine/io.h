// Moduco core: model and data allocation, the scratch stack, warnings, names, state.
//
// The model is one buffer holding every array of MC_MODEL_POINTERS; mcData is one buffer holding
// every array of MC_DATA_POINTERS followed by the arena (contacts and constraint rows grow up
// from its start, the scratch stack grows down from its end).
#ifndef MODUCO_CORE_ENGINE_IO_H_
#define MODUCO_CORE_ENGINE_IO_H_

#include <stdint.h>

#include <moduco/moduco.h>

// Allocate a model whose size fields are copied from *sizes (only sizes and opt are read);
// every array is zeroed, opt is copied. Return NULL on allocation failure.
mcModel* mci_makeModel(const mcModel* sizes);

// A copy of src with the sizes of *sizes (only size fields are read) in a new allocation: every
// array keeps its leading values (all of them when its size is unchanged), new values are zero,
// every other field is src's. NULL on allocation failure.
mcModel* mci_resizedCopy(const mcModel* src, const mcModel* sizes);

// m takes the contents of n (made by mci_resizedCopy or mc_copyModel) and keeps its address; n's
// struct is freed. m's old buffer stays allocated until mc_deleteModel(m), so that views into it
// (Python arrays) never dangle.
void mci_replaceModel(mcModel* m, mcModel* n);

// Default physics options (MuJoCo's defaults: timestep 0.002, gravity -9.81 z, ...).
void mci_defaultOption(mcOption* opt);

// Arena size in bytes for a model (from <size memory>, njmax/nconmax, or a default).
size_t mci_arenaSize(const mcModel* m);

// 1 if the arena reserves the dense efc_J and nv x nv solver work (dense Jacobian path).
int mci_denseJacobian(const mcModel* m);

// Print a message through the process-wide message handler.
void mci_message(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Allocate contacts / constraint rows from the arena (grows up). NULL if full (caller warns).
void* mci_arenaAlloc(mcData* d, size_t bytes, size_t align);

// Hash of a model's sizes and plugin instances (stored in mcData.model_signature by mc_makeData).
uint64_t mci_modelSignature(const mcModel* m);

// mc_step's check that d was made for m: the hash, skipped while m is the model d last matched
// and no model changed in place or went since (mci_modelChanged)
int mci_stepSignatureOk(const mcModel* m, mcData* d);
void mci_modelChanged(void);

// The order of the geoms in the last sweep of the broad phase (core/engine/broadphase.c), kept
// after the arena of the data that owns it: [capacity, count, axis, geom ids...]; NULL in a view. A
// hint for the next sort only: the sorted order does not depend on it.
int* mci_sweepOrder(const mcData* d);

// The broad phase's geom groups (core/engine/broadphase_groups.c, mci_groupBytes(m) bytes) kept
// after the sweep order of the data that owns its arena; NULL in a view or when m has none.
void* mci_groupCache(const mcModel* m, const mcData* d);

// Has d's free memory (between the arena's top and the stack) room to spare for bytes of optional
// scratch: four times them and 64 KiB besides, so that taking them never leaves the rows, the
// contacts or a later stack allocation short (optional: without them the work is done another
// way, with no warning)
static inline int mci_stackRoomy(const mcData* d, size_t bytes) {
  return d->pstack >= d->parena && d->pstack - d->parena >= 4 * bytes + 65536;
}

// Clear the arena (contacts and efc arrays) at the start of a step.
void mci_clearArena(mcData* d);

#endif  // MODUCO_CORE_ENGINE_IO_H_
