// Moduco core: the in-step thread pool (mc_threadPoolCreate, mc_bindThreadPool) and the per-thread
// views of an mcData that let parallel tasks use a scratch stack each.
#include "engine/threadpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "engine/io.h"

#define MAXTHREAD 256
#define MINSTACK ((size_t)1 << 20)

typedef struct {
  struct mcThreadPool_* pool;
  int id;                         // thread number (1 .. nthread-1)
} Helper;

struct mcThreadPool_ {
  int nthread;                    // threads including the caller
  pthread_t* thread;              // helpers 1 .. nthread-1
  Helper* helper;                 // their arguments

  // job hand-off: a helper joins the current job only while it is open; the caller closes it
  // once it has run out of tasks and then waits only for the helpers that joined, so a helper
  // that is slow to wake (a loaded machine) never delays the step
  pthread_mutex_t lock;           // guards generation, open, active, quit and the job
  pthread_cond_t wake;            // a new generation was posted
  pthread_cond_t done;            // active reached zero
  unsigned long generation;
  int open;                       // helpers may still join the current job
  int active;                     // helpers working on the current job
  int quit;
  mciTaskFn fn;
  void* ctx;
  int ntask;
  atomic_int next;                // next task to take

  pthread_mutex_t call;           // one run at a time
};

typedef struct {                  // mcData.threadwork
  int nthread;
  mciWorker* worker;
} ThreadWork;


//---------------------------------- running tasks -------------------------------------------------

// take tasks until none is left
static void drain(mcThreadPool* pool, mciTaskFn fn, void* ctx, int ntask, int thread) {
  for (;;) {
    int t = atomic_fetch_add_explicit(&pool->next, 1, memory_order_relaxed);
    if (t >= ntask) {
      return;
    }
    fn(ctx, t, thread);
  }
}


static void* helperMain(void* arg) {
  Helper* h = (Helper*)arg;
  mcThreadPool* pool = h->pool;
  unsigned long seen = 0;
  for (;;) {
    pthread_mutex_lock(&pool->lock);
    while (pool->generation == seen && !pool->quit) {
      pthread_cond_wait(&pool->wake, &pool->lock);
    }
    if (pool->quit) {
      pthread_mutex_unlock(&pool->lock);
      return NULL;
    }
    seen = pool->generation;
    if (!pool->open) {            // woke after the caller finished: nothing to join
      pthread_mutex_unlock(&pool->lock);
      continue;
    }
    pool->active++;
    mciTaskFn fn = pool->fn;
    void* ctx = pool->ctx;
    int ntask = pool->ntask;
    pthread_mutex_unlock(&pool->lock);

    drain(pool, fn, ctx, ntask, h->id);

    pthread_mutex_lock(&pool->lock);
    if (--pool->active == 0) {
      pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
  }
}


void mci_poolRun(mcThreadPool* pool, int ntask, mciTaskFn fn, void* ctx) {
  if (!pool || pool->nthread < 2 || ntask < 2) {
    for (int t = 0; t < ntask; t++) {
      fn(ctx, t, 0);
    }
    return;
  }
  pthread_mutex_lock(&pool->call);
  pthread_mutex_lock(&pool->lock);
  pool->fn = fn;
  pool->ctx = ctx;
  pool->ntask = ntask;
  atomic_store(&pool->next, 0);
  pool->open = 1;
  pool->active = 0;
  pool->generation++;
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->lock);

  drain(pool, fn, ctx, ntask, 0);

  // no task left to take: close the job, wait for the helpers still running one
  pthread_mutex_lock(&pool->lock);
  pool->open = 0;
  while (pool->active > 0) {
    pthread_cond_wait(&pool->done, &pool->lock);
  }
  pthread_mutex_unlock(&pool->lock);
  pthread_mutex_unlock(&pool->call);
}


//---------------------------------- the pool ------------------------------------------------------

// stop and join the first n helpers, free everything
static void destroyPool(mcThreadPool* pool, int n) {
  pthread_mutex_lock(&pool->lock);
  pool->quit = 1;
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
  free(pool);
}


mcThreadPool* mc_threadPoolCreate(int nthread) {
  if (nthread < 1 || nthread > MAXTHREAD) {
    mci_message("mc_threadPoolCreate: nthread must be 1..%d, got %d", MAXTHREAD, nthread);
    return NULL;
  }
  mcThreadPool* pool = (mcThreadPool*)calloc(1, sizeof(mcThreadPool));
  pthread_t* thread = (pthread_t*)calloc((size_t)nthread, sizeof(pthread_t));
  Helper* helper = (Helper*)calloc((size_t)nthread, sizeof(Helper));
  if (!pool || !thread || !helper) {
    free(pool);
    free(thread);
    free(helper);
    mci_message("mc_threadPoolCreate: out of memory");
    return NULL;
  }
  pool->nthread = nthread;
  pool->thread = thread;
  pool->helper = helper;
  pthread_mutex_init(&pool->lock, NULL);
  pthread_mutex_init(&pool->call, NULL);
  pthread_cond_init(&pool->wake, NULL);
  pthread_cond_init(&pool->done, NULL);
  atomic_init(&pool->next, 0);
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


void mci_workerView(mciWorker* w, const mcData* d) {
  mcData* v = &w->view;
  *v = *d;
  v->arena = w->stack;
  v->narena = w->nstack;
  mci_clearArena(v);              // empty arena and stack; no contacts or rows in the view
  v->maxuse_stack = 0;
  v->maxuse_arena = 0;
  v->threadpool = NULL;           // no nested parallel runs
  v->threadwork = NULL;
  memset(v->timer, 0, sizeof(v->timer));
  memset(v->timer_plugin, 0, sizeof(v->timer_plugin));
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
  mciWorker* w = mci_worker(d, 0);
  mci_workerView(w, d);
  Beside b = {m, d, stage, fn, ctx};
  mci_poolRun(d->threadpool, 2, besideTask, &b);
  mci_mergeView(d, w);
}
