// Moduco core: the narrow phase of collision on the in-step thread pool. Candidates are cut into
// chunks; a thread collides a chunk into its own view of the data (contacts in its arena,
// scratch on its stack) and the caller appends the chunks' contacts to the data in chunk order,
// with the same capacity checks as the serial loop, so the contact list is bitwise the same for
// any thread count. The caller appends the finished chunks that fit whole while the job runs
// (after each chunk of its own), the rest after it. A chunk that runs out of a thread's memory is
// collided again on the caller. The job's task tables are the pool workspace's and a chunk redone
// on the caller uses the serial loop's scratch, so the narrow phase takes the same bytes of d's
// stack with and without a pool: where the arena fills, the same contacts fit.
#include <stdatomic.h>
#include <string.h>

#include "engine/collision.h"
#include "engine/io.h"
#include "engine/threadpool.h"

// candidates are cut into up to CHUNKPERTHREAD chunks per thread of at least MINCHUNK candidates
// on average: pairs differ a lot in cost (a GJK pair costs several primitive ones), and the finer
// cut balances the threads better (humanoid100's narrow phase on two threads: 29 -> 27 us with 32
// chunks instead of 8) (CHUNKPERTHREAD tasks a thread is the room of the workspace's tables).
// The chunks hold equal estimated costs (the caller's mciNarrowCostFn), not equal counts:
// humanoid100's costly pairs (its objects: ellipsoids and cylinders through GJK, 4-40 times a
// capsule pair) sit together near the end of the list; in chunks of equal counts the costliest of
// its 58 took ~30 us a step on average (of a ~165 us job, the others ~1 us), so the job often
// ended on it with the other thread idle; cut by cost the costliest takes ~17 us
#define CHUNKPERTHREAD MCI_NARROWCHUNKS
#define MINCHUNK 2

typedef struct {
  const mcModel* m;
  mcData* d;
  const void* list;
  int n;                          // candidates
  const int* first;               // task t: candidates first[t] .. first[t+1]-1
  mciNarrowFn fn;
  const mcContact** out;          // per task: its contacts (in a worker's arena)
  int* nout;                      // per task: how many
  atomic_int* ok;                 // per task: 0 running, 1 complete, 2 out of memory (the
                                  // store that publishes out and nout)
  int ntask;
  int next;                       // the caller's: the first task not appended to d
  int stop;                       // the caller's: task next is left to the appends after the job
  mcContact** scratch;            // per thread: its zeroed narrow-phase scratch (NULL: not yet)
} Job;

// zeroed narrow-phase scratch on the stack of a view (collideGeoms zeroes the entries it used
// after each pair, so one per thread and job is enough, as one per mc_collision is serially)
static mcContact* chunkScratch(mcData* v) {
  mcContact* s = mc_stackAlloc(v, sizeof(mcContact) * mcMAXCONPAIR, _Alignof(mcContact));
  if (s) {
    memset(s, 0, sizeof(mcContact) * mcMAXCONPAIR);
  }
  return s;
}


static void appendFinished(Job* job);


// pool task: collide a chunk into the thread's view
static void chunkTask(void* ctx, int t, int thread) {
  Job* job = (Job*)ctx;
  mcData* v = &mci_worker(job->d, thread)->view;
  int first = job->first[t], last = job->first[t + 1];
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
  job->nout[t] = count;
  job->out[t] = (const mcContact*)((char*)v->arena + v->parena) - count;
  if (!ok) {
    memcpy(v->warning, warn0, sizeof(warn0));   // the caller redoes the chunk, warnings and all
  }
  atomic_store_explicit(job->ok + t, ok ? 1 : 2, memory_order_release);

  // the caller (thread 0) appends what is finished in order: the copies leave the serial rest
  // after the job for the time the job runs (the helpers write nothing of d, so only the caller
  // may)
  if (thread == 0) {
    appendFinished(job);
  }
}


// append a whole chunk's count contacts to d as count calls of mci_newContact would when they all
// fit (contacts are allocated back to back: their size is a multiple of their alignment); 0 and d
// unchanged when they do not all fit (the serial append after the job then fills what fits and
// warns as the serial loop)
static int appendWhole(const mcModel* m, mcData* d, const mcContact* con, int count) {
  if (count == 0) {
    return 1;
  }
  if (m->nconmax > 0 && d->ncon > m->nconmax - count) {
    return 0;
  }
  mcContact* dst = (mcContact*)mci_arenaAlloc(d, sizeof(mcContact) * (size_t)count,
                                              _Alignof(mcContact));
  if (!dst) {
    return 0;
  }
  for (int i = 0; i < count; i++) {
    dst[i] = con[i];
  }
  d->ncon += count;
  return 1;
}


// the caller's appends during the job: the finished tasks from job->next on, in order, while
// each completed and fits whole
static void appendFinished(Job* job) {
  while (!job->stop && job->next < job->ntask) {
    int t = job->next, state = atomic_load_explicit(job->ok + t, memory_order_acquire);
    if (state == 0) {
      return;
    }
    if (state == 2 || !appendWhole(job->m, job->d, job->out[t], job->nout[t])) {
      job->stop = 1;
      return;
    }
    job->next++;
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


void mci_narrowChunks(const mcModel* m, const void* list, int n, mciNarrowCostFn cost, int ntask,
                      int* first, long* sum) {
  first[0] = 0;
  if (!cost) {
    for (int t = 1; t <= ntask; t++) {
      first[t] = (int)((long)n * t / ntask);
    }
    return;
  }
  long total = 0;
  for (int i = 0; i < n; i++) {
    if (sum) {
      sum[i] = total;
    }
    total += cost(m, list, i);
  }
  // chunk t ends before the first candidate whose cost would take the sum up to past (t + 1)
  // shares; the last chunk ends at n
  long before = 0;
  int t = 1;
  for (int i = 0; i < n && t < ntask; i++) {
    long after = sum ? (i + 1 < n ? sum[i + 1] : total) : before + cost(m, list, i);
    while (t < ntask && after * ntask > total * t) {
      first[t++] = i;
    }
    before = after;
  }
  while (t <= ntask) {
    first[t++] = n;
  }
}


// the job's chunk count for n candidates on nthread threads
static int taskCount(int n, int nthread) {
  int chunk = (n + CHUNKPERTHREAD * nthread - 1) / (CHUNKPERTHREAD * nthread);
  if (chunk < MINCHUNK) {
    chunk = MINCHUNK;
  }
  return (n + chunk - 1) / chunk;   // at most CHUNKPERTHREAD * nthread
}


int mci_narrowCutAhead(const mcModel* m, mcData* d, const void* list, int n,
                       mciNarrowCostFn cost) {
  mciNarrowTables* tab = mci_narrowTables(d);
  int ntask = taskCount(n, mci_threads(d));
  if (n < 1 || ntask > tab->ntask) {
    return 0;
  }
  // the sums of the costs on d's stack when it has room to spare (one call of cost a candidate;
  // else two, and no warning: nothing needs the room)
  size_t bytes = sizeof(long) * (size_t)n;
  int roomy = mci_stackRoomy(d, bytes);
  if (roomy) {
    mc_markStack(d);
  }
  long* sum = roomy ? mc_stackAlloc(d, bytes, _Alignof(long)) : NULL;
  mci_narrowChunks(m, list, n, cost, ntask, tab->first, sum);
  if (roomy) {
    mc_freeStack(d);
  }
  return ntask;
}


int mci_narrowParallel(const mcModel* m, mcData* d, const void* list, int n, mciNarrowFn fn,
                       mciNarrowCostFn cost, mcContact* scratch, int cut) {
  int nthread = mci_threads(d);
  mciNarrowTables* tab = mci_narrowTables(d);
  Job job;
  job.m = m;
  job.d = d;
  job.list = list;
  job.n = n;
  job.fn = fn;
  int ntask = taskCount(n, nthread);

  // task tables from the pool's workspace (none of d's stack: the serial loop takes none)
  job.out = tab->out;
  job.nout = tab->nout;
  job.ok = tab->state;
  job.scratch = tab->scratch;
  if (ntask > tab->ntask) {
    return 0;                     // not reached: the chunk size bounds the tasks
  }
  for (int t = 0; t < ntask; t++) {
    atomic_init(job.ok + t, 0);
  }
  // the chunks cut now unless mci_narrowCutAhead cut them (the sums of the costs on thread 0's
  // stack: its view is made afresh below)
  if (cut != ntask) {
    mciWorker* w0 = mci_worker(d, 0);
    long* sum = (size_t)n * sizeof(long) <= w0->nstack ? (long*)w0->stack : NULL;
    mci_narrowChunks(m, list, n, cost, ntask, tab->first, sum);
  }
  job.first = tab->first;
  job.ntask = ntask;
  job.next = 0;
  job.stop = 0;

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

  // append in chunk order from the first the job did not append; chunks that failed are collided
  // here with the caller's scratch, zeroed then (a 50-contact memset the step saves when every
  // chunk fits)
  int zeroed = 0;
  for (int t = job.next; t < ntask; t++) {
    if (atomic_load_explicit(job.ok + t, memory_order_relaxed) == 1) {
      if (!appendChunk(m, d, job.out[t], job.nout[t])) {
        return 0;
      }
      continue;
    }
    if (!zeroed) {
      memset(scratch, 0, sizeof(mcContact) * mcMAXCONPAIR);
      zeroed = 1;
    }
    for (int i = job.first[t]; i < job.first[t + 1]; i++) {
      if (!fn(m, d, scratch, list, i)) {
        return 0;
      }
    }
  }
  return 1;
}
