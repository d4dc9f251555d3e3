// Moduco core: the in-step thread pool (private to libmoduco; public API in moduco.h).
//
// mci_poolRun hands tasks 0 .. ntask-1 to the pool's threads and returns when all are done; the
// caller works as thread 0. The tasks are cut into one contiguous block per thread, which that
// thread takes first (so a thread gets the same tasks, hence the same trees' data, in every job
// with the same cut); a thread that has emptied its block takes the rest of the others' blocks.
// Helpers spin briefly for the next job before they sleep; the caller runs every task no helper
// has started and waits only for tasks already started. Which thread runs a task must never
// change its result: a task writes only its own outputs, and merges happen on the caller in task
// order. Each thread has a workspace (mciWorker) made by mc_bindThreadPool: a copy of the mcData
// struct whose scratch stack is the thread's own, so host->stackAlloc works in parallel.
#ifndef MODUCO_CORE_ENGINE_THREADPOOL_H_
#define MODUCO_CORE_ENGINE_THREADPOOL_H_

#include <stdatomic.h>
#include <stdint.h>

#include <moduco/moduco.h>

typedef void (*mciTaskFn)(void* ctx, int task, int thread);

typedef struct {
  mcData view;                    // the data's struct with its own stack (mci_workerView)
  mcModel mview;                  // room for a model view (island solves)
  char* stack;                    // the thread's scratch memory
  size_t nstack;                  // its size in bytes
  int warnbase[mcNWARNING];       // warning counts of the data when the view was made
} mciWorker;

// Run fn(ctx, task, thread) for every task on the pool (pool NULL: all on the caller, in order).
// (A macro: the job trace names a job by its task function as written at the call.)
#define mci_poolRun(pool, ntask, fn, ctx) mci_poolRunNamed(pool, ntask, fn, ctx, NULL, #fn)

// mci_poolRun with thread k's block the tasks first[k] .. first[k+1]-1 (first: nthread + 1
// ascending ints, first[0] 0, first[nthread] ntask; NULL: equal counts, as mci_poolRun), so that a
// thread first takes the tasks whose inputs it made in the jobs before (those trees' data in its
// core's cache: reading a line another core wrote costs a cross-core transfer); the others still
// take from the block once theirs is empty, from its back (mci_poolRun's thieves take from the
// front): order each block for its owner with the large tasks first, and a thief takes the small
// ones at its end, so the job ends on a small task.
#define mci_poolRunCut(pool, ntask, fn, ctx, first)                                                \
  mci_poolRunNamed(pool, ntask, fn, ctx, first, #fn)

// The two above, the job named name in the trace (mc_threadPoolTrace).
void mci_poolRunNamed(mcThreadPool* pool, int ntask, mciTaskFn fn, void* ctx, const int* first,
                      const char* name);


// Items 0 .. n-1 in order cut into nthread contiguous blocks of about equal summed cost (costs
// > 0): first[k] .. first[k+1]-1 is block k (first: nthread + 1 ints, as mci_poolRunCut takes);
// block k ends where the running cost is nearest k + 1 of nthread equal shares of the total (of
// two as near, the earlier).
void mci_cutByCost(const long* cost, int n, int nthread, int* first);

// Tuning and tests: helpers spin spinns nanoseconds for the next job before they sleep (0: sleep
// at once); hold != 0 keeps them from joining any job (the caller runs every task).
void mci_poolSetSpin(mcThreadPool* pool, long spinns, int hold);

// Tests: eager != 0 has the stages run their jobs on the pool whatever their size (the parallel
// paths on small models); by default a stage whose work is too small to pay for a job runs on the
// caller (the collision driver's beside and narrow jobs).
void mci_poolSetEager(mcThreadPool* pool, int eager);

// Is d's pool eager (mci_poolSetEager)? 0 without a pool.
int mci_poolEager(const mcData* d);

// Tasks run by each thread of the pool since the last call (taken[0 .. nthread-1]), reset to 0.
void mci_poolTaken(mcThreadPool* pool, long* taken);

// Part k of n equal parts of [0, total): [*lo, *hi) (the parts cover it in order, sizes differ by
// at most one)
static inline void mci_rowRange(int total, int k, int n, int* lo, int* hi) {
  *lo = (int)((long)total * k / n);
  *hi = (int)((long)total * (k + 1) / n);
}

// core/engine/island_solve.c: the task order of d's islands on a pool of nthread (order[task] =
// island, a permutation) and the threads' blocks for mci_poolRunCut (first: nthread + 1 ints):
// the islands (numbered by their first dof, so in tree order) cut into contiguous blocks of about
// equal estimated cost, each block by cost class (costs within a factor of two), largest class
// first and by index within a class, so a thread solves the islands of the trees it
// made in the stages before and the small ones even out the job's end; 0 when d's stack has no
// room (order and first untouched)
int mci_islandOrder(mcData* d, int nthread, int* order, int* first);

// Number of threads of d's bound pool, 1 when none.
int mci_threads(const mcData* d);

// Workspace of thread t of d's bound pool (NULL when none is bound).
mciWorker* mci_worker(const mcData* d, int t);

// The tree cut kept for d's pool (parallel_stages.c fills and checks it); d must have a pool bound
struct mciTreeCut_* mci_treeCutCache(const mcData* d);

// The tree cut kept for the plugins' tree jobs on d's pool (plugin_trees.c fills and checks it,
// apart from the stages' cut above, which those jobs leave alone); d must have a pool bound
struct mciTreeCut_* mci_pluginCutCache(const mcData* d);

// The narrow phase's task tables (collision_narrow.c), made with the workspace by
// mc_bindThreadPool for up to MCI_NARROWCHUNKS tasks a thread: the job takes none of d's stack, so
// an arena that fills during the narrow phase holds the same contacts with and without a pool
#define MCI_NARROWCHUNKS 32
typedef struct {
  const mcContact** out;          // per task: its contacts (in a worker's arena)
  int* nout;                      // per task: how many
  int* first;                     // per task: its first candidate (ntask + 1 entries)
  atomic_int* state;              // per task: 0 running, 1 complete, 2 out of memory
  mcContact** scratch;            // per thread: its zeroed scratch (NULL: not yet)
  int ntask;                      // room: MCI_NARROWCHUNKS tasks a thread
  const mcModel* model;           // the model whose geoms costly tells (with its signature): the
  uint64_t signature;             // collision driver's, kept per data as the trees' cut
  int costly;                     // a geom type whose pairs cost many primitive ones
  int sized;                      // the beside job's size: bodies and bounded collidable geoms
} mciNarrowTables;

// The narrow phase's tables of d's pool; d must have a pool bound
mciNarrowTables* mci_narrowTables(const mcData* d);

// Make w->view a copy of d whose arena and stack are the worker's own memory (empty: no contacts
// or rows), with the stage and plugin timers zeroed when d profiles (else left as copied: no timer
// runs) and the solver statistics (d->solver) not copied; the warning counts of d are remembered
// for mci_mergeView.
void mci_workerView(mciWorker* w, const mcData* d);

// Add what the view counted since mci_workerView (warnings, escalation, and when d profiles its
// stage and plugin timers) into d.
void mci_mergeView(mcData* d, const mciWorker* w);

// Run fn(ctx) and stage(m, view) at the same time on d's pool (2 threads or more): fn works on the
// data itself, the stage on a thread's view of it, whose warnings and timers are merged into d
// afterwards, so the two never write the same field of d. The stage writes d's arrays through the
// view; its scratch stack is thread 0's workspace (idle during the job), not d's, and it must not
// read what fn writes. The inertia stages of parallel_stages.h are instead cut into trees, tasks
// of the same job as fn (mci_inertiaTreesBeside), when they can be.
void mci_runBeside(const mcModel* m, mcData* d, void (*stage)(const mcModel*, mcData*),
                   void (*fn)(void*), void* ctx);

#endif  // MODUCO_CORE_ENGINE_THREADPOOL_H_
