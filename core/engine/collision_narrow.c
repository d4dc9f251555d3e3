// Moduco core: the narrow phase of collision on the in-step thread pool. Candidates are cut into
// chunks; a thread collides a chunk into its own view of the data (contacts in its arena,
// scratch on its stack) and the caller appends the chunks' contacts to the data in chunk order,
// with the same capacity checks as the serial loop, so the contact list is bitwise the same for
// any thread count. A chunk that runs out of a thread's memory is collided again on the caller.
#include <string.h>

#include "engine/collision.h"
#include "engine/io.h"
#include "engine/threadpool.h"

// candidates are cut into up to CHUNKPERTHREAD chunks per thread of at least MINCHUNK: pairs differ
// a lot in cost (a GJK pair costs several primitive ones), and the finer cut balances the threads
// better (humanoid100's narrow phase on two threads: 29 -> 27 us with 32 chunks instead of 8)
#define CHUNKPERTHREAD 32
#define MINCHUNK 2

typedef struct {
  const mcModel* m;
  mcData* d;
  const void* list;
  int n;                          // candidates
  int chunk;                      // candidates per task
  mciNarrowFn fn;
  const mcContact** out;          // per task: its contacts (in a worker's arena)
  int* nout;                      // per task: how many
  int* ok;                        // per task: 1 if complete
  mcContact** scratch;            // per thread: its zeroed narrow-phase scratch (NULL: not yet)
} Job;


// zeroed narrow-phase scratch on the stack of d or a view (collideGeoms zeroes the entries it used
// after each pair, so one per thread and job is enough, as one per mc_collision is serially)
static mcContact* chunkScratch(mcData* v) {
  mcContact* s = mc_stackAlloc(v, sizeof(mcContact) * mcMAXCONPAIR, _Alignof(mcContact));
  if (s) {
    memset(s, 0, sizeof(mcContact) * mcMAXCONPAIR);
  }
  return s;
}


// pool task: collide a chunk into the thread's view
static void chunkTask(void* ctx, int t, int thread) {
  Job* job = (Job*)ctx;
  mcData* v = &mci_worker(job->d, thread)->view;
  int first = t * job->chunk, last = first + job->chunk < job->n ? first + job->chunk : job->n;
  mcWarningStat warn0[mcNWARNING];
  memcpy(warn0, v->warning, sizeof(warn0));
  int ncon0 = v->ncon;

  if (!job->scratch[thread]) {
    job->scratch[thread] = chunkScratch(v);   // kept until the job ends
  }
  mcContact* scratch = job->scratch[thread];
  int ok = scratch != NULL;
  for (int i = first; ok && i < last; i++) {
    ok = job->fn(job->m, v, scratch, job->list, i);
  }
  int count = v->ncon - ncon0;
  job->ok[t] = ok;
  job->nout[t] = count;
  job->out[t] = (const mcContact*)((char*)v->arena + v->parena) - count;
  if (!ok) {
    memcpy(v->warning, warn0, sizeof(warn0));   // the caller redoes the chunk, warnings and all
  }
}


// append count contacts to d as the serial loop would; 0 when full
static int appendChunk(const mcModel* m, mcData* d, const mcContact* con, int count) {
  for (int i = 0; i < count; i++) {
    mcContact* dst = mci_newContact(m, d);
    if (!dst) {
      return 0;
    }
    *dst = con[i];
    d->ncon++;
  }
  return 1;
}


int mci_narrowParallel(const mcModel* m, mcData* d, const void* list, int n, mciNarrowFn fn) {
  int nthread = mci_threads(d);
  Job job;
  job.m = m;
  job.d = d;
  job.list = list;
  job.n = n;
  job.fn = fn;
  job.chunk = (n + CHUNKPERTHREAD * nthread - 1) / (CHUNKPERTHREAD * nthread);
  if (job.chunk < MINCHUNK) {
    job.chunk = MINCHUNK;
  }
  int ntask = (n + job.chunk - 1) / job.chunk;

  // task tables on the data's stack (the caller's frame is open)
  job.out = mc_stackAlloc(d, sizeof(mcContact*) * (size_t)ntask, _Alignof(mcContact*));
  job.nout = mc_stackAlloc(d, sizeof(int) * (size_t)ntask, _Alignof(int));
  job.ok = mc_stackAlloc(d, sizeof(int) * (size_t)ntask, _Alignof(int));
  job.scratch = mc_stackAlloc(d, sizeof(mcContact*) * (size_t)nthread, _Alignof(mcContact*));
  if (!job.out || !job.nout || !job.ok || !job.scratch) {
    return 0;
  }

  // collide in parallel, each thread into its own view (contacts from the start of its arena)
  for (int t = 0; t < nthread; t++) {
    mciWorker* w = mci_worker(d, t);
    job.scratch[t] = NULL;
    mci_workerView(w, d);
    w->view.ncon = 0;
    w->view.contact = (mcContact*)w->view.arena;
  }
  mci_poolRun(d->threadpool, ntask, chunkTask, &job);
  for (int t = 0; t < nthread; t++) {
    mci_mergeView(d, mci_worker(d, t));
  }

  // append in chunk order; chunks that failed are collided here (with a scratch made then: a
  // 50-contact memset the step saves when every chunk fits)
  mcContact* scratch = NULL;
  for (int t = 0; t < ntask; t++) {
    if (job.ok[t]) {
      if (!appendChunk(m, d, job.out[t], job.nout[t])) {
        return 0;
      }
      continue;
    }
    scratch = scratch ? scratch : chunkScratch(d);
    if (!scratch) {
      return 0;
    }
    int last = (t + 1) * job.chunk < n ? (t + 1) * job.chunk : n;
    for (int i = t * job.chunk; i < last; i++) {
      if (!fn(m, d, scratch, list, i)) {
        return 0;
      }
    }
  }
  return 1;
}
