// Moduco core: batch rollouts, batch forward dynamics and internal tasks (engine/rollout.h) on a
// persistent pthread pool.
//
// A pool owns one mcData per thread, made once by mc_rolloutCreate. A call hands out work items
// (one rollout, or one forward evaluation) through an atomic counter; every item starts from
// mc_resetData followed by mc_setState (and, for a rollout, the optional warmstart), so its
// result depends only on its inputs and never on which thread ran it or what that thread ran
// before: results are bit-identical for any thread count. The calling thread works as thread 0.
// Calls on one pool are serialized by a mutex, so a pool may be shared between threads (they take
// turns). No allocation after mc_rolloutCreate.
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

#include "engine/io.h"
#include "engine/rollout.h"

typedef enum {                    // kinds of job handed to the workers
  JOB_NONE = 0,
  JOB_ROLLOUT,
  JOB_FORWARD,
  JOB_TASK,
  JOB_EXIT
} JobKind;

typedef struct {                  // one job: the arguments of mc_rolloutEx / mc_forwardBatch
  JobKind kind;
  int n;                          // number of items (rollouts or states)
  int nstep;                      // steps per rollout
  unsigned spec;                  // state components of state0 / states_out
  int nstate;                     // mc_stateSize(m, spec)
  const mcNum* state;             // inputs, n x nstate
  const mcNum* warmstart;         // n x nv: qacc_warmstart after the initial state, nullable
  unsigned cspec;                 // state components of each step's control vector
  int ncontrol;                   // mc_stateSize(m, cspec)
  const mcNum* ctrl;              // n x nstep x ncontrol, nullable
  mcNum* out;                     // rollout: n x nstep x nstate; forward: n x nv (qacc)
  mcNum* sensor;                  // n x nstep x nsensordata (forward: n x nsensordata), nullable
  mciRolloutTask task;            // JOB_TASK: the function run per item, and its argument
  void* arg;
} Job;

struct mcRolloutPool_ {
  const mcModel* m;
  int nthread;                    // workers including the caller
  int nbatch;                     // most items per call
  mcData** data;                  // one per thread
  pthread_t* thread;              // nthread - 1 helper threads
  int* started;                   // helper i was created
  int* info;                      // per item: warnings raised (nbatch)

  // job hand-off
  pthread_mutex_t lock;           // guards generation, job, pending
  pthread_cond_t wake;            // a new generation was posted
  pthread_cond_t done;            // pending reached zero
  unsigned long generation;       // incremented per posted job
  int pending;                    // helpers still working on the current generation
  Job job;
  atomic_int next;                // next item to take

  // one call at a time
  pthread_mutex_t call;
};


//---------------------------------- work items ----------------------------------------------------

// total warnings counted in d
static int warningCount(const mcData* d) {
  int n = 0;
  for (int i = 0; i < mcNWARNING; i++) {
    n += d->warning[i].number;
  }
  return n;
}


// one rollout: reset, set the initial state (and warmstart), then step with the given controls
static void runRollout(mcRolloutPool* p, mcData* d, int r) {
  const mcModel* m = p->m;
  const Job* j = &p->job;
  int nv = m->nv, ns = m->nsensordata, nc = j->ncontrol;

  // start from the same data for every item
  mc_resetData(m, d);
  mc_setState(m, d, j->state + (size_t)r * (size_t)j->nstate, j->spec);
  if (j->warmstart && nv) {
    memcpy(d->qacc_warmstart, j->warmstart + (size_t)r * (size_t)nv, sizeof(mcNum) * (size_t)nv);
  }

  // step, recording the state (and sensors) after each step
  for (int t = 0; t < j->nstep; t++) {
    size_t rt = (size_t)r * (size_t)j->nstep + (size_t)t;
    if (j->ctrl && nc) {
      mc_setState(m, d, j->ctrl + rt * (size_t)nc, j->cspec);
    }
    mc_step(m, d);
    if (j->out) {
      mc_getState(m, d, j->out + rt * (size_t)j->nstate, j->spec);
    }
    if (j->sensor && ns) {
      memcpy(j->sensor + rt * (size_t)ns, d->sensordata, sizeof(mcNum) * (size_t)ns);
    }
  }
  p->info[r] = warningCount(d);
}


// one forward evaluation: reset, set the state, mc_forward, copy qacc (and sensors)
static void runForward(mcRolloutPool* p, mcData* d, int i) {
  const mcModel* m = p->m;
  const Job* j = &p->job;
  int nv = m->nv, ns = m->nsensordata;

  mc_resetData(m, d);
  mc_setState(m, d, j->state + (size_t)i * (size_t)j->nstate, j->spec);
  mc_forward(m, d);
  if (j->out && nv) {
    memcpy(j->out + (size_t)i * (size_t)nv, d->qacc, sizeof(mcNum) * (size_t)nv);
  }
  if (j->sensor && ns) {
    memcpy(j->sensor + (size_t)i * (size_t)ns, d->sensordata, sizeof(mcNum) * (size_t)ns);
  }
  p->info[i] = warningCount(d);
}


// take items from the shared counter until none are left
static void work(mcRolloutPool* p, int tid) {
  mcData* d = p->data[tid];
  for (;;) {
    int i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
    if (i >= p->job.n) {
      return;
    }
    if (p->job.kind == JOB_ROLLOUT) {
      runRollout(p, d, i);
    } else if (p->job.kind == JOB_TASK) {
      p->job.task(p->job.arg, d, tid, i);
    } else {
      runForward(p, d, i);
    }
  }
}


//---------------------------------- the pool ------------------------------------------------------

typedef struct {                  // argument of a helper thread
  mcRolloutPool* pool;
  int tid;
} Helper;


// helper thread: wait for a generation, work, report, repeat until JOB_EXIT
static void* helperMain(void* arg) {
  mcRolloutPool* p = ((Helper*)arg)->pool;
  int tid = ((Helper*)arg)->tid;
  free(arg);
  unsigned long seen = 0;

  for (;;) {
    // wait for a new job
    pthread_mutex_lock(&p->lock);
    while (p->generation == seen) {
      pthread_cond_wait(&p->wake, &p->lock);
    }
    seen = p->generation;
    JobKind kind = p->job.kind;
    pthread_mutex_unlock(&p->lock);
    if (kind == JOB_EXIT) {
      return NULL;
    }

    // work, then count down
    work(p, tid);
    pthread_mutex_lock(&p->lock);
    if (--p->pending == 0) {
      pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
  }
}


// post a job to the helpers, work on it as thread 0, wait until every helper is done
static void runJob(mcRolloutPool* p, const Job* job) {
  pthread_mutex_lock(&p->lock);
  p->job = *job;
  atomic_store_explicit(&p->next, 0, memory_order_relaxed);
  p->pending = p->nthread - 1;
  p->generation++;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);

  if (job->kind != JOB_EXIT) {
    work(p, 0);
  }

  pthread_mutex_lock(&p->lock);
  while (p->pending > 0) {
    pthread_cond_wait(&p->done, &p->lock);
  }
  pthread_mutex_unlock(&p->lock);
}


// stop the helpers that were started and free everything
static void destroyPool(mcRolloutPool* p) {
  int any = 0;
  for (int i = 1; i < p->nthread; i++) {
    any |= p->started && p->started[i];
  }

  // ask every started helper to exit (pending counts only them)
  if (any) {
    pthread_mutex_lock(&p->lock);
    p->job.kind = JOB_EXIT;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 1; i < p->nthread; i++) {
      if (p->started[i]) {
        pthread_join(p->thread[i], NULL);
      }
    }
  }

  // data and arrays
  if (p->data) {
    for (int i = 0; i < p->nthread; i++) {
      mc_deleteData(p->data[i]);
    }
  }
  pthread_mutex_destroy(&p->lock);
  pthread_mutex_destroy(&p->call);
  pthread_cond_destroy(&p->wake);
  pthread_cond_destroy(&p->done);
  free(p->data);
  free(p->thread);
  free(p->started);
  free(p->info);
  free(p);
}


mcRolloutPool* mc_rolloutCreate(const mcModel* m, int nthread, int nbatch) {
  if (!m || nthread < 1 || nbatch < 1) {
    mci_message("mc_rolloutCreate: need a model, nthread >= 1 and nbatch >= 1");
    return NULL;
  }
  mcRolloutPool* p = calloc(1, sizeof(mcRolloutPool));
  if (!p) {
    return NULL;
  }
  p->m = m;
  p->nthread = nthread;
  p->nbatch = nbatch;
  pthread_mutex_init(&p->lock, NULL);
  pthread_mutex_init(&p->call, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  atomic_init(&p->next, 0);

  // per-thread data and bookkeeping
  p->data = calloc((size_t)nthread, sizeof(mcData*));
  p->thread = calloc((size_t)nthread, sizeof(pthread_t));
  p->started = calloc((size_t)nthread, sizeof(int));
  p->info = calloc((size_t)nbatch, sizeof(int));
  if (!p->data || !p->thread || !p->started || !p->info) {
    destroyPool(p);
    return NULL;
  }
  for (int i = 0; i < nthread; i++) {
    p->data[i] = mc_makeData(m);
    if (!p->data[i]) {
      mci_message("mc_rolloutCreate: could not allocate data for thread %d", i);
      destroyPool(p);
      return NULL;
    }
  }

  // helper threads (the caller is thread 0)
  for (int i = 1; i < nthread; i++) {
    Helper* h = malloc(sizeof(Helper));
    if (!h) {
      destroyPool(p);
      return NULL;
    }
    h->pool = p;
    h->tid = i;
    if (pthread_create(&p->thread[i], NULL, helperMain, h)) {
      free(h);
      mci_message("mc_rolloutCreate: could not start thread %d", i);
      destroyPool(p);
      return NULL;
    }
    p->started[i] = 1;
  }
  return p;
}


void mc_rolloutDelete(mcRolloutPool* pool) {
  if (pool) {
    destroyPool(pool);
  }
}


int mc_rolloutThreads(const mcRolloutPool* pool) {
  return pool ? pool->nthread : 0;
}


mcData* mc_rolloutData(mcRolloutPool* pool, int thread) {
  if (!pool || thread < 0 || thread >= pool->nthread) {
    return NULL;
  }
  return pool->data[thread];
}


const int* mc_rolloutWarnings(const mcRolloutPool* pool) {
  return pool ? pool->info : NULL;
}


// run one job, one caller at a time
static void callJob(mcRolloutPool* pool, const Job* job) {
  pthread_mutex_lock(&pool->call);
  runJob(pool, job);
  pthread_mutex_unlock(&pool->call);
}


// check the common arguments of a batch call (have: the inputs, a state or a task, are given)
static int checkCall(const mcRolloutPool* pool, const char* fn, int n, int have) {
  if (!pool) {
    mci_message("%s: pool is NULL", fn);
    return -1;
  }
  if (n < 0 || n > pool->nbatch) {
    mci_message("%s: %d items, the pool was made for 0..%d", fn, n, pool->nbatch);
    return -1;
  }
  if (n > 0 && !have) {
    mci_message("%s: %s is NULL", fn, strcmp(fn, "mci_rolloutTasks") ? "state" : "task");
    return -1;
  }
  return 0;
}


int mc_rolloutEx(mcRolloutPool* pool, int nroll, int nstep, unsigned int spec,
                 const mcNum* state0, const mcNum* warmstart, unsigned int control_spec,
                 const mcNum* control, mcNum* states_out, mcNum* sensor_out) {
  if (checkCall(pool, "mc_rolloutEx", nroll, state0 != NULL)) {
    return -1;
  }
  if (nstep < 0) {
    mci_message("mc_rolloutEx: nstep %d is negative", nstep);
    return -1;
  }
  if (control_spec & ~(unsigned)mcSTATE_USER) {
    mci_message("mc_rolloutEx: control_spec 0x%x has bits outside mcSTATE_USER (0x%x)",
                control_spec, (unsigned)mcSTATE_USER);
    return -1;
  }
  const mcModel* m = pool->m;
  Job job = {.kind = JOB_ROLLOUT, .n = nroll, .nstep = nstep, .spec = spec,
             .nstate = mc_stateSize(m, spec), .state = state0, .warmstart = warmstart,
             .cspec = control_spec, .ncontrol = mc_stateSize(m, control_spec), .ctrl = control,
             .out = states_out, .sensor = sensor_out};
  callJob(pool, &job);
  return 0;
}


int mc_rollout(mcRolloutPool* pool, int nroll, int nstep, unsigned int spec,
               const mcNum* state0, const mcNum* ctrl, mcNum* states_out, mcNum* sensor_out) {
  return mc_rolloutEx(pool, nroll, nstep, spec, state0, NULL, mcSTATE_CTRL, ctrl, states_out,
                      sensor_out);
}


int mc_forwardBatch(mcRolloutPool* pool, int n, unsigned int spec, const mcNum* states,
                    mcNum* qacc_out, mcNum* sensor_out) {
  if (checkCall(pool, "mc_forwardBatch", n, states != NULL)) {
    return -1;
  }
  Job job = {.kind = JOB_FORWARD, .n = n, .spec = spec, .nstate = mc_stateSize(pool->m, spec),
             .state = states, .out = qacc_out, .sensor = sensor_out};
  callJob(pool, &job);
  return 0;
}


int mci_rolloutTasks(mcRolloutPool* pool, int n, mciRolloutTask task, void* arg) {
  if (checkCall(pool, "mci_rolloutTasks", n, task != NULL)) {
    return -1;
  }
  Job job = {.kind = JOB_TASK, .n = n, .task = task, .arg = arg};
  callJob(pool, &job);
  return 0;
}
