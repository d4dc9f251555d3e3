// Moduco core: the in-step thread pool (mc_threadPoolCreate, mc_bindThreadPool) and the per-thread
// views of an mcData that let parallel tasks use a scratch stack each.
#include "engine/threadpool.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/io.h"
#include "engine/parallel_stages.h"

#define MAXTHREAD 256
#define MINSTACK ((size_t)1 << 20)
// a helper waits this long (ns) awake for the next job, then sleeps. Waking a sleeping helper
// (pthread_cond_broadcast) held the caller 300-600 us on the virtual machines measured (session
// 21): with 500 us the helper woken by a stalled caller spun out before the next job came, slept
// again, and the next job's wake stalled the caller again, a cycle that held 2 threads below 1 on
// shadow_hand_right and dm_dog; 5 ms outlasts the stall (Intel's OpenMP waits 200 ms by default)
#define SPINNS 5000000
#define PAUSENS 20000             // pause-spinning this long first (then yielding); the caller as long
                                  // for a started task before it sleeps
#define LINE 64

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define PAUSE() _mm_pause()
#elif defined(__aarch64__)
#define PAUSE() __asm__ __volatile__("yield")
#else
#define PAUSE() ((void)0)
#endif

typedef struct {
  struct mcThreadPool_* pool;
  int id;                         // thread number (1 .. nthread-1)
} Helper;

typedef struct {                  // the tasks a thread takes first (a cache line each)
  _Alignas(LINE) atomic_ullong span;  // its untaken tasks: first (low 32 bits) to one past the
                                  // last (high 32 bits); the owner takes from the front, and in a
                                  // job cut into blocks the others take from the back
} Block;

struct mcThreadPool_ {
  int nthread;                    // threads including the caller
  pthread_t* thread;              // helpers 1 .. nthread-1
  Helper* helper;                 // their arguments
  Block* block;                   // per thread: its share of the current job's tasks

  // job hand-off without locks while the helpers are awake: the caller writes the job, opens it
  // and bumps the generation; a helper that sees a new generation joins (active + 1) only while
  // the job is open. The caller takes every task no helper has started, then closes the job and
  // waits only for the helpers that joined, so a descheduled helper never delays the step. A
  // helper stays awake SPINNS for the next generation before it sleeps on the condition variable.
  _Alignas(LINE) atomic_ulong generation;
  atomic_int open;                // helpers may still join the current job
  _Alignas(LINE) atomic_int active;  // helpers that joined the current job and are still in it
  _Alignas(LINE) atomic_int sleepers;  // helpers on (or about to wait on) the condition variable
  atomic_int waiting;             // the caller sleeps until active reaches zero
  atomic_int quit;
  atomic_int wakeposted;          // a wake was posted since the last helper went to sleep (the
                                  // caller posts one wake, not one a job, to helpers still waking)
  atomic_long spinns;             // the spin time (mci_poolSetSpin)
  atomic_int hold;                // helpers never join (mci_poolSetSpin with hold)
  atomic_int eager;               // stages run their jobs whatever their size (mci_poolSetEager)
  pthread_mutex_t lock;           // guards the sleep
  pthread_cond_t wake;            // a new generation was posted
  pthread_cond_t done;            // active reached zero while the caller was waiting
  mciTaskFn fn;                   // the job (written before it is opened)
  void* ctx;
  int back;                       // the job's thieves take from the back of a block
  atomic_int taken[MAXTHREAD];    // tasks run by each thread (statistics)

  // the job trace (mc_threadPoolTrace): the records are the caller's; the helpers that join a
  // job add to its sums here (reset by the caller before it opens the job)
  mcPoolJob* trace;
  int tracecap;
  long ntraced;
  _Alignas(LINE) atomic_int tracing;
  atomic_long tjoin, tleave, tbusy;
  atomic_int ttasks, thelpers;

  pthread_mutex_t call;           // one run at a time
};

typedef struct {                  // mcData.threadwork
  int nthread;
  mciWorker* worker;
  mciTreeCut cut;                 // the trees' cut for the per-tree jobs (parallel_stages.c)
  mciTreeCut plugincut;           // the cut of the plugins' tree jobs (plugin_trees.c)
  mciNarrowTables narrow;         // the narrow phase's task tables (collision_narrow.c)
} ThreadWork;


//---------------------------------- running tasks -------------------------------------------------

// take a task of block b: its first untaken one, or its last (back); -1 when none is left
static inline int takeTask(Block* b, int back) {
  unsigned long long s = atomic_load_explicit(&b->span, memory_order_relaxed);
  for (;;) {
    unsigned lo = (unsigned)(s & 0xffffffffu), hi = (unsigned)(s >> 32);
    if (lo >= hi) {
      return -1;
    }
    unsigned long long next = back ? ((unsigned long long)(hi - 1) << 32) | lo : s + 1;
    if (atomic_compare_exchange_weak_explicit(&b->span, &s, next, memory_order_relaxed,
                                              memory_order_relaxed)) {
      return (int)(back ? hi - 1 : lo);
    }
  }
}


// take tasks until none is left: the thread's own block first (from its front), then the
// others' in turn (from their back in a job cut into blocks: a block is ordered for its owner,
// largest or costliest first, so a thief takes the small tasks at the end and the job ends on
// one of those; from their front otherwise, for jobs whose tasks finish best in order)
static __attribute__((noinline)) int drain(mcThreadPool* pool, mciTaskFn fn, void* ctx,
                                           int thread) {
  int n = pool->nthread, ran = 0, back = pool->back;
  for (int k = 0; k < n; k++) {
    Block* b = pool->block + (thread + k) % n;
    for (int t; (t = takeTask(b, k > 0 && back)) >= 0;) {
      fn(ctx, t, thread);
      ran++;
    }
  }
  atomic_fetch_add_explicit(&pool->taken[thread], ran, memory_order_relaxed);
  return ran;
}


static long nanosNow(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long)t.tv_sec * 1000000000L + t.tv_nsec;
}


// wait for a generation other than seen (or quit): spin with a pause for up to PAUSENS, then
// with sched_yield up to the spin time (on a loaded machine the caller, or another process,
// gets the core; on an idle one the yield returns at once), then sleep
static unsigned long awaitJob(mcThreadPool* pool, unsigned long seen) {
  long limit = atomic_load_explicit(&pool->spinns, memory_order_relaxed), start = 0, now = 0;
  for (int spin = 0;; spin++) {
    unsigned long g = atomic_load(&pool->generation);
    if (g != seen || atomic_load(&pool->quit)) {
      return g;
    }
    if ((spin & 63) == 63) {
      now = nanosNow();
      start = start ? start : now;
      if (now - start >= limit) {
        break;
      }
    }
    if (start && now - start >= PAUSENS) {
      sched_yield();
    } else {
      PAUSE();
    }
  }
  // sleep: sleepers is raised before the generation is read again, the caller bumps the
  // generation before it reads sleepers, so one of the two sees the other; a new sleeper clears
  // wakeposted (under the lock the caller's wake takes), so the next job wakes it
  pthread_mutex_lock(&pool->lock);
  atomic_fetch_add(&pool->sleepers, 1);
  atomic_store(&pool->wakeposted, 0);
  unsigned long g;
  while ((g = atomic_load(&pool->generation)) == seen && !atomic_load(&pool->quit)) {
    pthread_cond_wait(&pool->wake, &pool->lock);
  }
  atomic_fetch_sub(&pool->sleepers, 1);
  pthread_mutex_unlock(&pool->lock);
  return g;
}


// a helper's part of a traced job: it joined at t0, left at t1 after ran tasks
static void traceHelper(mcThreadPool* pool, long t0, long t1, int ran) {
  long j = atomic_load(&pool->tjoin);
  while (t0 < j && !atomic_compare_exchange_weak(&pool->tjoin, &j, t0)) {
  }
  long l = atomic_load(&pool->tleave);
  while (t1 > l && !atomic_compare_exchange_weak(&pool->tleave, &l, t1)) {
  }
  atomic_fetch_add(&pool->tbusy, t1 - t0);
  atomic_fetch_add(&pool->ttasks, ran);
  atomic_fetch_add(&pool->thelpers, 1);
}


static void* helperMain(void* arg) {
  Helper* h = (Helper*)arg;
  mcThreadPool* pool = h->pool;
  unsigned long seen = 0;
  for (;;) {
    seen = awaitJob(pool, seen);
    if (atomic_load(&pool->quit)) {
      return NULL;
    }
    // join (active first, then the open flag: the caller closes first, then reads active); the
    // hold flag is read after open, so a job opened after mci_poolSetSpin's hold is never joined
    atomic_fetch_add(&pool->active, 1);
    if (atomic_load(&pool->open) && !atomic_load(&pool->hold)) {
      seen = atomic_load(&pool->generation);   // the job joined (perhaps a newer one)
      if (atomic_load_explicit(&pool->tracing, memory_order_relaxed)) {
        long t0 = nanosNow();
        int ran = drain(pool, pool->fn, pool->ctx, h->id);
        traceHelper(pool, t0, nanosNow(), ran);
      } else {
        drain(pool, pool->fn, pool->ctx, h->id);
      }
    }
    // leave; the last one out wakes a caller that sleeps (it raised waiting before it read
    // active, this thread lowered active before it reads waiting)
    if (atomic_fetch_sub(&pool->active, 1) == 1 && atomic_load(&pool->waiting)) {
      pthread_mutex_lock(&pool->lock);
      pthread_cond_signal(&pool->done);
      pthread_mutex_unlock(&pool->lock);
    }
  }
}


// sleep until no helper is in the current job (the last one out signals done)
static void waitHelpers(mcThreadPool* pool) {
  pthread_mutex_lock(&pool->lock);
  atomic_store(&pool->waiting, 1);
  while (atomic_load(&pool->active) > 0) {
    pthread_cond_wait(&pool->done, &pool->lock);
  }
  atomic_store(&pool->waiting, 0);
  pthread_mutex_unlock(&pool->lock);
}


void mci_cutByCost(const long* cost, int n, int nthread, int* first) {
  long total = 0;
  for (int i = 0; i < n; i++) {
    total += cost[i];
  }
  first[0] = 0;
  long sum = 0;
  int i = 0;
  for (int k = 1; k < nthread; k++) {
    // the boundary whose cumulative cost is nearest k shares (ties: the earlier one)
    double target = (double)total * k / nthread;
    while (i < n && fabs((double)(sum + cost[i]) - target) < fabs((double)sum - target)) {
      sum += cost[i++];
    }
    first[k] = i;
  }
  first[nthread] = n;
}


// the caller's record of a traced job (helpers: whether they may have joined)
static void traceJob(mcThreadPool* pool, const char* name, int ntask, long post, long drained,
                     int helpers) {
  long k = pool->ntraced++;
  if (k >= pool->tracecap) {
    return;
  }
  mcPoolJob* r = pool->trace + k;
  r->name = name;
  r->ntask = ntask;
  r->post = post;
  r->drained = drained;
  r->end = nanosNow();
  r->helpers = helpers ? atomic_load(&pool->thelpers) : 0;
  r->helpertasks = r->helpers ? atomic_load(&pool->ttasks) : 0;
  r->join = r->helpers ? atomic_load(&pool->tjoin) : 0;
  r->leave = r->helpers ? atomic_load(&pool->tleave) : 0;
  r->busy = r->helpers ? atomic_load(&pool->tbusy) : 0;
}


void mci_poolRunNamed(mcThreadPool* pool, int ntask, mciTaskFn fn, void* ctx, const int* first,
                      const char* name) {
  int traced = pool && pool->trace;   // (set while no job runs: mc_threadPoolTrace)
  long post = traced ? nanosNow() : 0;
  if (!pool || pool->nthread < 2 || ntask < 2) {
    for (int t = 0; t < ntask; t++) {
      fn(ctx, t, 0);
    }
    if (traced) {                 // (the records are guarded as the pool's jobs are)
      pthread_mutex_lock(&pool->call);
      traceJob(pool, name, ntask, post, nanosNow(), 0);
      pthread_mutex_unlock(&pool->call);
    }
    return;
  }
  pthread_mutex_lock(&pool->call);
  int n = pool->nthread;
  if (traced) {                   // the helpers' sums of this job (before it is opened)
    atomic_store(&pool->tjoin, LONG_MAX);
    atomic_store(&pool->tleave, 0);
    atomic_store(&pool->tbusy, 0);
    atomic_store(&pool->ttasks, 0);
    atomic_store(&pool->thelpers, 0);
  }
  pool->fn = fn;
  pool->ctx = ctx;
  pool->back = first != NULL;
  for (int k = 0; k < n; k++) {   // contiguous blocks: thread k keeps the same tasks every job
    int lo = first ? first[k] : (int)((long)ntask * k / n);
    int hi = first ? first[k + 1] : (int)((long)ntask * (k + 1) / n);
    atomic_store_explicit(&pool->block[k].span, ((unsigned long long)hi << 32) | (unsigned)lo,
                          memory_order_relaxed);
  }
  atomic_store(&pool->open, 1);
  atomic_fetch_add(&pool->generation, 1);
  // wake the sleepers once: a helper woken for an earlier job but not yet running gets no second
  // broadcast (each cost the caller tens of microseconds on a virtual machine while the helper's
  // CPU was still being scheduled)
  if (atomic_load(&pool->sleepers) > 0 && !atomic_exchange(&pool->wakeposted, 1)) {
    pthread_mutex_lock(&pool->lock);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
  }

  drain(pool, fn, ctx, 0);
  long drained = traced ? nanosNow() : 0;

  // no task left to take: close the job, wait for the helpers still running one
  atomic_store(&pool->open, 0);
  long start = 0;
  for (int spin = 0; atomic_load(&pool->active) > 0; spin++) {
    if ((spin & 63) == 63) {
      long now = nanosNow();
      start = start ? start : now;
      if (now - start >= PAUSENS) {   // a helper descheduled in its task: sleep
        waitHelpers(pool);
        break;
      }
    }
    PAUSE();                      // a task in progress: usually a few microseconds
  }
  if (traced) {
    traceJob(pool, name, ntask, post, drained, 1);
  }
  pthread_mutex_unlock(&pool->call);
}


void mc_threadPoolTrace(mcThreadPool* pool, mcPoolJob* job, int cap) {
  if (pool) {
    pool->trace = cap > 0 ? job : NULL;
    pool->tracecap = cap > 0 && job ? cap : 0;
    pool->ntraced = 0;
    atomic_store(&pool->tracing, pool->trace != NULL);
  }
}


long mc_threadPoolTraced(const mcThreadPool* pool) {
  return pool ? pool->ntraced : 0;
}


void mci_poolSetEager(mcThreadPool* pool, int eager) {
  if (pool) {
    atomic_store_explicit(&pool->eager, eager != 0, memory_order_relaxed);
  }
}


int mci_poolEager(const mcData* d) {
  return d->threadpool && atomic_load_explicit(&d->threadpool->eager, memory_order_relaxed);
}


void mci_poolSetSpin(mcThreadPool* pool, long spinns, int hold) {
  if (pool) {
    atomic_store(&pool->spinns, spinns < 0 ? 0 : spinns);
    atomic_store(&pool->hold, hold != 0);
  }
}


void mci_poolTaken(mcThreadPool* pool, long* taken) {
  for (int t = 0; pool && t < pool->nthread; t++) {
    taken[t] = atomic_exchange(&pool->taken[t], 0);
  }
}


//---------------------------------- the pool ------------------------------------------------------

// allocate n zeroed bytes aligned to a cache line
static void* lineAlloc(size_t n) {
  n = (n + LINE - 1) & ~(size_t)(LINE - 1);
  void* p = aligned_alloc(LINE, n);
  if (p) {
    memset(p, 0, n);
  }
  return p;
}


// stop and join the first n helpers, free everything
static void destroyPool(mcThreadPool* pool, int n) {
  pthread_mutex_lock(&pool->lock);
  atomic_store(&pool->quit, 1);
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->lock);
  for (int i = 1; i <= n; i++) {
    pthread_join(pool->thread[i], NULL);
  }
  pthread_mutex_destroy(&pool->lock);
  pthread_mutex_destroy(&pool->call);
  pthread_cond_destroy(&pool->wake);
  pthread_cond_destroy(&pool->done);
  free(pool->thread);
  free(pool->helper);
  free(pool->block);
  free(pool);
}


mcThreadPool* mc_threadPoolCreate(int nthread) {
  if (nthread < 1 || nthread > MAXTHREAD) {
    mci_message("mc_threadPoolCreate: nthread must be 1..%d, got %d", MAXTHREAD, nthread);
    return NULL;
  }
  mcThreadPool* pool = (mcThreadPool*)lineAlloc(sizeof(mcThreadPool));
  pthread_t* thread = (pthread_t*)calloc((size_t)nthread, sizeof(pthread_t));
  Helper* helper = (Helper*)calloc((size_t)nthread, sizeof(Helper));
  Block* block = (Block*)lineAlloc(sizeof(Block) * (size_t)nthread);
  if (!pool || !thread || !helper || !block) {
    free(pool);
    free(thread);
    free(helper);
    free(block);
    mci_message("mc_threadPoolCreate: out of memory");
    return NULL;
  }
  pool->nthread = nthread;
  pool->thread = thread;
  pool->helper = helper;
  pool->block = block;
  pthread_mutex_init(&pool->lock, NULL);
  pthread_mutex_init(&pool->call, NULL);
  pthread_cond_init(&pool->wake, NULL);
  pthread_cond_init(&pool->done, NULL);
  atomic_init(&pool->spinns, SPINNS);
  atomic_init(&pool->wakeposted, 0);
  atomic_init(&pool->eager, 0);
  for (int i = 1; i < nthread; i++) {
    helper[i].pool = pool;
    helper[i].id = i;
    if (pthread_create(&thread[i], NULL, helperMain, &helper[i]) != 0) {
      mci_message("mc_threadPoolCreate: could not start thread %d", i);
      destroyPool(pool, i - 1);
      return NULL;
    }
  }
  return pool;
}


void mc_threadPoolDelete(mcThreadPool* pool) {
  if (pool) {
    destroyPool(pool, pool->nthread - 1);
  }
}


int mc_threadPoolThreads(const mcThreadPool* pool) {
  return pool ? pool->nthread : 0;
}


//---------------------------------- binding and views ---------------------------------------------

static void freeWork(ThreadWork* w) {
  if (!w) {
    return;
  }
  for (int t = 0; w->worker && t < w->nthread; t++) {
    free(w->worker[t].stack);
  }
  free((void*)w->narrow.out);
  free(w->narrow.nout);
  free(w->narrow.first);
  free(w->narrow.state);
  free(w->narrow.scratch);
  free(w->worker);
  free(w);
}


int mc_bindThreadPool(mcData* d, mcThreadPool* pool) {
  if (!d) {
    return -1;
  }
  freeWork((ThreadWork*)d->threadwork);
  d->threadwork = NULL;
  d->threadpool = NULL;
  if (!pool) {
    return 0;
  }

  // a view and a scratch stack per thread, allocated here and never in the step
  ThreadWork* w = (ThreadWork*)calloc(1, sizeof(ThreadWork));
  mciWorker* worker = (mciWorker*)calloc((size_t)pool->nthread, sizeof(mciWorker));
  if (w) {
    w->worker = worker;
    w->nthread = worker ? pool->nthread : 0;
  }
  size_t nstack = d->narena / (size_t)pool->nthread;
  nstack = (nstack < MINSTACK ? MINSTACK : nstack + 63) & ~(size_t)63;
  int ok = w && worker;
  if (ok) {
    size_t ntask = (size_t)MCI_NARROWCHUNKS * (size_t)pool->nthread;
    w->narrow.out = (const mcContact**)calloc(ntask, sizeof(mcContact*));
    w->narrow.nout = (int*)calloc(ntask, sizeof(int));
    w->narrow.first = (int*)calloc(ntask + 1, sizeof(int));
    w->narrow.state = (atomic_int*)calloc(ntask, sizeof(atomic_int));
    w->narrow.scratch = (mcContact**)calloc((size_t)pool->nthread, sizeof(mcContact*));
    w->narrow.ntask = (int)ntask;
    ok = w->narrow.out && w->narrow.nout && w->narrow.first && w->narrow.state &&
         w->narrow.scratch;
  }
  for (int t = 0; ok && t < pool->nthread; t++) {
    worker[t].stack = (char*)aligned_alloc(64, nstack);
    worker[t].nstack = nstack;
    ok = worker[t].stack != NULL;
  }
  if (!ok) {
    freeWork(w);
    mci_message("mc_bindThreadPool: could not allocate the per-thread workspace");
    return -1;
  }
  d->threadwork = w;
  d->threadpool = pool;
  return 0;
}


int mci_threads(const mcData* d) {
  const ThreadWork* w = (const ThreadWork*)d->threadwork;
  return d->threadpool && w ? w->nthread : 1;
}


mciWorker* mci_worker(const mcData* d, int t) {
  const ThreadWork* w = (const ThreadWork*)d->threadwork;
  return w && t >= 0 && t < w->nthread ? w->worker + t : NULL;
}


mciTreeCut* mci_treeCutCache(const mcData* d) {
  return &((ThreadWork*)d->threadwork)->cut;
}


mciTreeCut* mci_pluginCutCache(const mcData* d) {
  return &((ThreadWork*)d->threadwork)->plugincut;
}


mciNarrowTables* mci_narrowTables(const mcData* d) {
  return &((ThreadWork*)d->threadwork)->narrow;
}


void mci_workerView(mciWorker* w, const mcData* d) {
  // the struct but its solver statistics (most of its 10 KB, copied for every view of every
  // job): a solver writes an iteration's statistics before it reads them, and the island solves
  // take from a view only those its solve wrote
  mcData* v = &w->view;
  size_t skip0 = offsetof(mcData, solver), skip1 = skip0 + sizeof(d->solver);
  memcpy(v, d, skip0);
  memcpy((char*)v + skip1, (const char*)d + skip1, sizeof(mcData) - skip1);
  v->arena = w->stack;
  v->narena = w->nstack;
  mci_clearArena(v);              // empty arena and stack; no contacts or rows in the view
  v->maxuse_stack = 0;
  v->maxuse_arena = 0;
  v->threadpool = NULL;           // no nested parallel runs
  v->threadwork = NULL;
  if (d->profile) {               // (timers are written only when profiling: else never merged)
    memset(v->timer, 0, sizeof(v->timer));
    memset(v->timer_plugin, 0, sizeof(v->timer_plugin));
  }
  for (int k = 0; k < mcNWARNING; k++) {
    w->warnbase[k] = d->warning[k].number;
  }
}


void mci_mergeView(mcData* d, const mciWorker* w) {
  const mcData* v = &w->view;
  for (int k = 0; k < mcNWARNING; k++) {
    int n = v->warning[k].number - w->warnbase[k];
    if (n > 0) {
      d->warning[k].number += n;
      d->warning[k].lastinfo = v->warning[k].lastinfo;
    }
  }
  if (!d->warning_stop && v->warning_stop) {
    d->warning_stop = v->warning_stop;
  }
  if (!d->profile) {             // no timer ran (engine.h: every timer is d->profile's)
    return;
  }
  for (int k = 0; k < mcNTIMER; k++) {
    d->timer[k].duration += v->timer[k].duration;
    d->timer[k].number += v->timer[k].number;
  }
  for (int k = 0; k < mcNTIMERPLUGIN; k++) {
    d->timer_plugin[k].duration += v->timer_plugin[k].duration;
    d->timer_plugin[k].number += v->timer_plugin[k].number;
  }
}


//---------------------------------- two stages side by side --------------------------------------

typedef struct {
  const mcModel* m;
  mcData* d;
  void (*stage)(const mcModel*, mcData*);
  void (*fn)(void*);
  void* ctx;
} Beside;


// the stage uses no scratch stack, so one view (thread 0's) serves whichever thread runs it
static void besideTask(void* ctx, int task, int thread) {
  (void)thread;
  Beside* b = (Beside*)ctx;
  if (task == 0) {
    b->fn(b->ctx);
  } else {
    b->stage(b->m, &mci_worker(b->d, 0)->view);
  }
}


void mci_runBeside(const mcModel* m, mcData* d, void (*stage)(const mcModel*, mcData*),
                   void (*fn)(void*), void* ctx) {
  if (mci_inertiaTreesBeside(m, d, stage, fn, ctx)) {
    return;                       // the stage cut into trees, tasks of the same job
  }
  mciWorker* w = mci_worker(d, 0);
  mci_workerView(w, d);
  Beside b = {m, d, stage, fn, ctx};
  mci_poolRun(d->threadpool, 2, besideTask, &b);
  mci_mergeView(d, w);
}
