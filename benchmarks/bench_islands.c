// moduco-bench-islands: constraint islands and the in-step thread pool (issue 15).
//
//   moduco-bench-islands threads [--steps N] [--repeat R] [--threads T] [--pair K] [--stages]
//                                [--trace] MODEL...
//     per model: interleaved rounds of N steps without a pool and on a pool of T threads (islands
//     on); prints the median wall-clock step times, the median of the per-round ratios and its
//     range, the median CPU time per step of both (all threads, and the calling thread's alone:
//     1 thread / caller is what the step could gain on idle cores, an upper bound that a loaded
//     machine does not distort), and checks that both runs end in the same state bit for bit.
//     Each round also times the machine's ceiling: T independent copies of the same run at once,
//     one per thread, each on its own data and no pool; T x (1 thread) / (T copies) is the most
//     any T-thread step could gain on this machine at that moment (shared caches, memory
//     bandwidth and the host's scheduling of the virtual CPUs all show in it), and the step's
//     ratio over that ceiling says how much of it the pool reaches. Last, the fastest round of
//     each kind compared: best 1 thread / best T threads (and the ceiling's copies alike), the
//     runs the host disturbed least: the figure to quote on a shared virtual machine.
//     First it prints the round trip of a cache line between two threads pinned to two CPUs: on
//     a virtual machine it can change by 5x when the host moves the virtual CPUs (about 60 ns
//     sharing a cache, 330 ns apart on the development VM), and the step on two threads with it.
//     Each round ends with a paired run: both datas from the reset state, alternating every K
//     steps (--pair, default 10) between no pool and the pool, so that the two see the host at
//     nearly the same moments; its ratio is the least disturbed by a host whose speed drifts
//     over tenths of a second (the development VM's single-thread step time varies by 40 %).
//     --stages: then one more round of each with the stage timers on (d->profile), printing the
//     microseconds per step of every stage on 1 and T threads, to see which stages gain and which
//     stay serial.
//     --trace: then rounds on the pool with its job trace on (mc_threadPoolTrace), each after a
//     round without a pool, printing per job (the core's task function) its count and time per
//     step, the helpers' delay to join it, their busy and idle time in it, the caller's wait at
//     its end and the caller's serial work after it; then the shares of the step (serial, the
//     helpers' idle time, the caller's waits) and the work of all threads against the 1-thread
//     step of the rounds between (what the pooled path costs more, in work or in the machine).
//   moduco-bench-islands scale [--steps N] [--repeat R] [--max N] [--no-island]
//     piles of n free bodies (stacks of five on a plane: spheres, capsules, boxes) for n = 300 ..
//     10,000 (up to --max), islands on (--no-island: off), Newton; prints the median CPU time per
//     step, nisland,
//     contacts and rows, and the least-squares exponent p of t ~ n^p; then the peak memory.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE               // pthread_setaffinity_np, CPU_SET
#endif
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <moduco/moduco.h>

// wall clock (0), the CPU time of the process (1: all threads) or of the calling thread (2): on a
// machine shared with other jobs CPU times are the figures that do not inflate with the load
static double now(int cpu) {
  struct timespec t;
  clock_gettime(cpu == 2 ? CLOCK_THREAD_CPUTIME_ID :
                cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}


static int cmpDouble(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}


static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmpDouble);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}


// time nstep steps from the reset state: wall clock, the process's CPU time into *cpu and the
// calling thread's into *own (nullable)
static double run(const mcModel* m, mcData* d, int nstep, double* cpu, double* own) {
  mc_resetData(m, d);
  double t0 = now(0), c0 = now(1), o0 = now(2);
  for (int i = 0; i < nstep; i++) {
    mc_step(m, d);
  }
  *cpu = now(1) - c0;
  if (own) {
    *own = now(2) - o0;
  }
  return now(0) - t0;
}


// nstep steps from the reset state of both, alternating every k steps between d1 (no pool) and dn
// (a pool): the wall-clock seconds of each in *s1 and *sn. Both follow the same trajectory bit
// for bit, so each pair of k-step runs does the same work a few milliseconds apart: a host's
// slowdown lasting longer than that slows both alike and cancels in the ratio, where the rounds'
// separate runs (a tenth of a second each) see different moments of the host
static void runPaired(const mcModel* m, mcData* d1, mcData* dn, int nstep, int k, double* s1,
                      double* sn) {
  mc_resetData(m, d1);
  mc_resetData(m, dn);
  *s1 = *sn = 0;
  for (int i = 0; i < nstep; i += k) {
    int n = nstep - i < k ? nstep - i : k;
    double t0 = now(0);
    for (int j = 0; j < n; j++) {
      mc_step(m, d1);
    }
    double t1 = now(0);
    for (int j = 0; j < n; j++) {
      mc_step(m, dn);
    }
    *s1 += t1 - t0;
    *sn += now(0) - t1;
  }
}


//---------------------------------- threads -------------------------------------------------------

#define NPING 20000

typedef struct {
  _Alignas(64) atomic_int flag;   // odd: the caller's turn answered; even: the partner's
  int cpu;                        // the partner's CPU
} Ping;


// pin the calling thread to cpu (ignored where not allowed)
static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}


static void* pingPartner(void* arg) {
  Ping* p = (Ping*)arg;
  pin(p->cpu);
  for (int i = 0; i < NPING; i++) {
    while (atomic_load_explicit(&p->flag, memory_order_acquire) != 2 * i + 1) {
    }
    atomic_store_explicit(&p->flag, 2 * i + 2, memory_order_release);
  }
  return NULL;
}


// round trip of a cache line between the first two CPUs this process may use (ns); 0 with fewer
// than two (the calling thread's affinity is restored after)
static double crossCoreRoundTrip(void) {
  cpu_set_t mine;
  if (sched_getaffinity(0, sizeof(mine), &mine) != 0) {
    return 0;
  }
  int cpu[2], n = 0;
  for (int c = 0; c < CPU_SETSIZE && n < 2; c++) {
    if (CPU_ISSET(c, &mine)) {
      cpu[n++] = c;
    }
  }
  if (n < 2) {
    return 0;
  }
  Ping p;
  atomic_init(&p.flag, 0);
  p.cpu = cpu[1];
  pthread_t partner;
  if (pthread_create(&partner, NULL, pingPartner, &p) != 0) {
    return 0;
  }
  pin(cpu[0]);
  double t0 = now(0);
  for (int i = 0; i < NPING; i++) {
    atomic_store_explicit(&p.flag, 2 * i + 1, memory_order_release);
    while (atomic_load_explicit(&p.flag, memory_order_acquire) != 2 * i + 2) {
    }
  }
  double t = now(0) - t0;
  pthread_join(partner, NULL);
  pthread_setaffinity_np(pthread_self(), sizeof(mine), &mine);
  return 1e9 * t / NPING;
}


// stages printed by --stages (a stage's time includes the stages indented under it)
static const struct {
  int timer;
  const char* name;
} kStage[] = {
  {mcTIMER_STEP, "step"}, {mcTIMER_POSITION, "  position"},
  {mcTIMER_POS_KINEMATICS, "    kinematics"}, {mcTIMER_POS_INERTIA, "    inertia"},
  {mcTIMER_POS_COLLISION, "    collision (+ inertia beside it)"},
  {mcTIMER_POS_MAKE, "    make constraint"}, {mcTIMER_VELOCITY, "  velocity"},
  {mcTIMER_ACTUATION, "  actuation"}, {mcTIMER_ACCELERATION, "  acceleration"},
  {mcTIMER_CONSTRAINT, "  constraint (solver)"}, {mcTIMER_INTEGRATOR, "  integrator"}};


// one profiled round of nstep steps: the stages' microseconds per step into us
static void stageRound(const mcModel* m, mcData* d, int nstep, double* us) {
  double cpu;
  d->profile = 1;
  mc_resetData(m, d);             // clears the timers
  run(m, d, nstep, &cpu, NULL);
  size_t nstage = sizeof(kStage) / sizeof(kStage[0]);
  for (size_t k = 0; k < nstage; k++) {
    us[k] = 1e6 * d->timer[kStage[k].timer].duration / nstep;
  }
  us[nstage] = 0;                 // the collision plugins' calls (all threads together)
  for (int k = 0; k < mcNTIMERCOLLISION; k++) {
    us[nstage] += 1e6 * d->timer_plugin[mcTIMERPLUGIN_COLLISION + k].duration / nstep;
  }
  d->profile = 0;
}


static void printStages(const mcModel* m, mcData* d1, mcData* dn, int nstep) {
  enum { NSTAGE = sizeof(kStage) / sizeof(kStage[0]) };
  double u1[NSTAGE + 1], un[NSTAGE + 1];
  stageRound(m, d1, nstep, u1);
  stageRound(m, dn, nstep, un);
  printf("  %-36s %10s %10s %8s\n", "stage (us/step)", "1 thread", "threads", "ratio");
  for (int k = 0; k < NSTAGE; k++) {
    printf("  %-36s %10.1f %10.1f %8.2f\n", kStage[k].name, u1[k], un[k],
           un[k] > 0 ? u1[k] / un[k] : 0.0);
  }
  printf("  %-36s %10.1f %10.1f  (all threads)\n", "narrow-phase plugin calls", u1[NSTAGE],
         un[NSTAGE]);
}


typedef struct {
  const mcModel* m;
  mcData* d;
  int nstep;
  pthread_barrier_t* start;
} Copy;


static void* copyMain(void* arg) {
  Copy* c = (Copy*)arg;
  double cpu;
  pthread_barrier_wait(c->start);
  run(c->m, c->d, c->nstep, &cpu, NULL);
  return NULL;
}


// wall clock of n copies of run() at once, copy k on data d[k] in thread k (the caller is thread
// 0); 0 when a thread cannot be made
static double runCopies(const mcModel* m, mcData** d, int n, int nstep) {
  Copy copy[64];
  pthread_t thread[64];
  pthread_barrier_t start;
  if (pthread_barrier_init(&start, NULL, (unsigned)n) != 0) {
    return 0;
  }
  int made = 1;
  for (int k = 0; k < n; k++) {
    copy[k] = (Copy){m, d[k], nstep, &start};
  }
  for (int k = 1; k < n && made; k++) {
    made = pthread_create(thread + k, NULL, copyMain, copy + k) == 0;
    if (!made) {
      // the threads already made wait at the barrier: nothing can release them but n arrivals
      fprintf(stderr, "cannot make thread %d of the ceiling's copies\n", k);
      exit(1);
    }
  }
  pthread_barrier_wait(&start);
  double t0 = now(0), cpu;
  run(m, d[0], nstep, &cpu, NULL);
  for (int k = 1; k < n; k++) {
    pthread_join(thread[k], NULL);
  }
  double t = now(0) - t0;
  pthread_barrier_destroy(&start);
  return t;
}


//---------------------------------- job trace -----------------------------------------------------

#define MAXJOBKIND 32

typedef struct {
  const char* name;
  long n;                         // jobs
  double dur, join, busy, idle, wait, serial;   // summed seconds (join: over the jobs joined)
  long joined;
} JobKind;


// rounds of nstep steps on dn's pool with the job trace on, each after a round of d1 (no pool)
// timed the same way, summed per job kind (the task function)
static void printTrace(const mcModel* m, mcData* d1, mcData* dn, mcThreadPool* pool, int nstep,
                       int nthread, int rounds) {
  int cap = 64 * nstep;
  mcPoolJob* job = (mcPoolJob*)malloc(sizeof(mcPoolJob) * (size_t)cap);
  double* lost = (double*)malloc(sizeof(double) * (size_t)cap * (size_t)rounds);
  long nlost = 0;                 // per joined job: the threads' idle time in it (helpers + caller)
  if (!job || !lost) {
    fprintf(stderr, "trace: out of memory\n");
    free(job);
    free(lost);
    return;
  }
  JobKind kind[MAXJOBKIND];
  int nkind = 0;
  double jobs = 0, idle = 0, wait = 0, work = 0, nh = nthread - 1, total = 0, t1 = 0, cpu;
  for (int round = 0; round < rounds; round++) {
    t1 += run(m, d1, nstep, &cpu, NULL);
    mc_resetData(m, dn);
    mc_threadPoolTrace(pool, job, cap);
    double t0 = now(0);
    for (int i = 0; i < nstep; i++) {
      mc_step(m, dn);
    }
    total += now(0) - t0;
    long njob = mc_threadPoolTraced(pool);
    mc_threadPoolTrace(pool, NULL, 0);
    if (njob > cap) {
      printf("  trace: %ld jobs, the first %d kept\n", njob, cap);
      njob = cap;
    }
    for (long j = 0; j < njob; j++) {
      const mcPoolJob* r = job + j;
      int k = 0;
      while (k < nkind && strcmp(kind[k].name, r->name)) {
        k++;
      }
      if (k == nkind) {
        if (nkind == MAXJOBKIND) {
          continue;
        }
        memset(kind + nkind, 0, sizeof(JobKind));
        kind[nkind++].name = r->name;
      }
      JobKind* q = kind + k;
      double dur = 1e-9 * (double)(r->end - r->post), busy = 1e-9 * (double)r->busy;
      double gap = j + 1 < njob ? 1e-9 * (double)(job[j + 1].post - r->end) : 0;
      gap = gap > 0 ? gap : 0;  // (the next step's first job: the step boundary counts too)
      q->n++;
      q->dur += dur;
      q->busy += busy;
      q->idle += dur * nh - busy;
      q->wait += 1e-9 * (double)(r->end - r->drained);
      q->serial += gap;
      if (r->helpers > 0) {
        q->join += 1e-9 * (double)(r->join - r->post);
        q->joined++;
        lost[nlost++] = dur * nh - busy + 1e-9 * (double)(r->end - r->drained);
      }
      jobs += dur;
      idle += dur * nh - busy;
      wait += 1e-9 * (double)(r->end - r->drained);
      work += 1e-9 * (double)(r->drained - r->post) + busy;
    }
  }
  double serial = total - jobs;
  work += serial;
  double us = 1e6 / ((double)nstep * rounds);
  printf(
      "  job trace (%d rounds of %d steps on %d threads, each after one on 1 thread; us per "
      "step; join: us per job joined)\n",
      rounds, nstep, nthread);
  printf("  %-28s %8s %8s %7s %8s %8s %8s %8s\n", "job", "per step", "time", "join", "helpers",
         "h. idle", "c. wait", "serial>");
  for (int k = 0; k < nkind; k++) {
    const JobKind* q = kind + k;
    printf("  %-28s %8.2f %8.1f %7.2f %8.1f %8.1f %8.1f %8.1f\n", q->name,
           (double)q->n / ((double)nstep * rounds), q->dur * us,
           q->joined ? 1e6 * q->join / (double)q->joined : 0, q->busy * us, q->idle * us,
           q->wait * us, q->serial * us);
  }
  printf(
      "  step %.1f us: in jobs %.1f %%, serial %.1f %%; helpers idle %.1f %% of their time "
      "(in jobs %.1f %%, serial %.1f %%); caller waiting at joins %.1f %%\n",
      total * us, 100 * jobs / total, 100 * serial / total,
      100 * (idle + serial * nh) / (total * nh), 100 * idle / (total * nh), 100 * serial / total,
      100 * wait / total);
  printf(
      "  step on 1 thread %.1f us (the rounds before), on %d threads %.1f us: ratio %.2f; work "
      "of all threads %.1f us = %.2f x the 1-thread step\n",
      t1 * us, nthread, total * us, t1 / total, work * us, work / t1);
  // how the idle time inside the jobs is spread over them: a few long stalls (a thread
  // descheduled inside a task) or every job's tail
  if (nlost > 0) {
    double sum = 0, worst = 0;
    for (long j = 0; j < nlost; j++) {
      sum += lost[j];
    }
    double mid = median(lost, (int)nlost);   // (sorts lost)
    for (long j = nlost - (nlost + 9) / 10; j < nlost; j++) {
      worst += lost[j];
    }
    printf(
        "  idle inside the joined jobs (helpers' and the caller's): median %.2f us a job, 99th "
        "percentile %.1f us, the worst tenth of the jobs %.0f %% of it\n",
        1e6 * mid, 1e6 * lost[(long)(0.99 * (double)(nlost - 1))], sum > 0 ? 100 * worst / sum : 0);
  }
  free(job);
  free(lost);
}


static int benchThreads(const char* file, int nstep, int repeat, int nthread, int stages,
                        int pairk, int trace) {
  char error[1024] = "";
  mcModel* m = mc_loadXML(file, error, sizeof(error));
  if (!m) {
    fprintf(stderr, "%s: %s\n", file, error);
    return 1;
  }
  m->opt.enableflags |= mcENBL_ISLAND;
  mcData* d1 = mc_makeData(m);
  mcData* dn = mc_makeData(m);
  mcThreadPool* pool = mc_threadPoolCreate(nthread);
  if (!d1 || !dn || !pool || mc_bindThreadPool(dn, pool) != 0) {
    fprintf(stderr, "%s: cannot make data or pool\n", file);
    return 1;
  }
  // the ceiling's copies: d1 and nthread - 1 more datas
  mcData* copies[64] = {d1};
  int ncopy = nthread > 64 ? 64 : nthread;
  for (int k = 1; k < ncopy; k++) {
    if (!(copies[k] = mc_makeData(m))) {
      fprintf(stderr, "%s: cannot make data\n", file);
      return 1;
    }
  }
  double t1[64], tn[64], ratio[64], c1[64], cn[64], on[64], oratio[64], ceil[64], reach[64], tc[64];
  double p1[64], pn[64], pratio[64];
  int same = 1;
  repeat = repeat > 64 ? 64 : repeat;
  run(m, d1, nstep, c1, NULL);                       // warm-up
  run(m, dn, nstep, cn, NULL);
  for (int r = 0; r < repeat; r++) {
    t1[r] = run(m, d1, nstep, c1 + r, NULL);
    tn[r] = run(m, dn, nstep, cn + r, on + r);
    tc[r] = runCopies(m, copies, ncopy, nstep);
    runPaired(m, d1, dn, nstep, pairk, p1 + r, pn + r);
    pratio[r] = p1[r] / pn[r];
    ratio[r] = t1[r] / tn[r];
    oratio[r] = c1[r] / on[r];
    ceil[r] = tc[r] > 0 ? ncopy * t1[r] / tc[r] : 0;
    reach[r] = ceil[r] > 0 ? ratio[r] / ceil[r] : 0;
    same = same && !memcmp(d1->qpos, dn->qpos, sizeof(mcNum) * (size_t)m->nq) &&
           !memcmp(d1->qvel, dn->qvel, sizeof(mcNum) * (size_t)m->nv);
  }
  double lo = ratio[0], hi = ratio[0], clo = ceil[0], chi = ceil[0];
  for (int r = 1; r < repeat; r++) {
    lo = fmin(lo, ratio[r]);
    hi = fmax(hi, ratio[r]);
    clo = fmin(clo, ceil[r]);
    chi = fmax(chi, ceil[r]);
  }
  printf("%s\n  nisland %d  wall: 1 thread %.3f ms/step, %d threads %.3f ms/step, ratio %.2f "
         "(%.2f-%.2f)\n  CPU: 1 thread %.3f ms/step; %d threads %.3f ms/step in all, %.3f on the "
         "caller (1 thread / caller: %.2f)  %s\n", file, d1->nisland,
         1e3 * median(t1, repeat) / nstep, nthread, 1e3 * median(tn, repeat) / nstep,
         median(ratio, repeat), lo, hi, 1e3 * median(c1, repeat) / nstep, nthread,
         1e3 * median(cn, repeat) / nstep, 1e3 * median(on, repeat) / nstep,
         median(oratio, repeat), same ? "bitwise same" : "DIFFERENT");
  printf("  machine ceiling (%d independent copies at once): %.2f (%.2f-%.2f); the step's ratio "
         "reaches %.2f of it (median of the rounds' ratio / ceiling)\n", ncopy,
         median(ceil, repeat), clo, chi, median(reach, repeat));
  // the fastest of each kind of round: the runs least disturbed by the host (a run is only ever
  // slowed by the machine, never sped up), compared as best 1 thread / best T threads
  double b1 = t1[0], bn = tn[0], bc = tc[0];
  for (int r = 1; r < repeat; r++) {
    b1 = fmin(b1, t1[r]);
    bn = fmin(bn, tn[r]);
    bc = fmin(bc, tc[r]);
  }
  printf("  best of %d rounds: 1 thread %.3f ms/step, %d threads %.3f ms/step, ratio %.2f; "
         "ceiling %.2f\n", repeat, 1e3 * b1 / nstep, nthread, 1e3 * bn / nstep, b1 / bn,
         bc > 0 ? ncopy * b1 / bc : 0);
  double plo = pratio[0], phi = pratio[0], s1 = 0, sn = 0;
  for (int r = 0; r < repeat; r++) {
    plo = fmin(plo, pratio[r]);
    phi = fmax(phi, pratio[r]);
    s1 += p1[r];
    sn += pn[r];
  }
  printf("  paired (alternating every %d steps): 1 thread %.3f ms/step, %d threads %.3f ms/step, "
         "ratio %.2f (%.2f-%.2f; all rounds' time %.2f)\n", pairk, 1e3 * median(p1, repeat) / nstep,
         nthread, 1e3 * median(pn, repeat) / nstep, median(pratio, repeat), plo, phi, s1 / sn);
  if (stages) {
    printStages(m, d1, dn, nstep);
  }
  if (trace) {
    printTrace(m, d1, dn, pool, nstep, nthread, repeat);
  }
  mc_bindThreadPool(dn, NULL);
  mc_threadPoolDelete(pool);
  for (int k = 1; k < ncopy; k++) {
    mc_deleteData(copies[k]);
  }
  mc_deleteData(d1);
  mc_deleteData(dn);
  mc_deleteModel(m);
  return same ? 0 : 1;
}


//---------------------------------- scale ---------------------------------------------------------

// n free bodies in stacks of five on a plane (a square grid of stacks 0.5 apart)
static char* pileXml(int n, int island) {
  size_t cap = 512 + (size_t)n * 200;
  char* xml = malloc(cap);
  size_t len = (size_t)snprintf(xml, cap,
    "<mujoco><option solver='Newton' jacobian='sparse'><flag island='%s'/></option>"
    "<worldbody><geom type='plane' size='0 0 1'/>", island ? "enable" : "disable");
  int nstack = (n + 4) / 5, side = (int)ceil(sqrt((double)nstack));
  double z = 0;
  for (int i = 0; i < n; i++) {
    int s = i / 5, kind = i % 3;
    double x = 0.5 * (s % side), y = 0.5 * (s / side), half = kind == 0 ? 0.09 : 0.06;
    z = i % 5 == 0 ? 0 : z;
    z += half - 0.002;                               // each body slightly into the one below
    const char* geom = kind == 0 ? "<geom type='sphere' size='.09'/>" :
                       kind == 1 ? "<geom type='capsule' size='.06' fromto='-.06 0 0 .06 0 0'/>" :
                                   "<geom type='box' size='.08 .07 .06'/>";
    len += (size_t)snprintf(xml + len, cap - len,
                            "<body pos='%.3f %.3f %.3f'><freejoint/>%s</body>", x, y, z, geom);
    z += half;
  }
  snprintf(xml + len, cap - len, "</worldbody></mujoco>");
  return xml;
}


static int benchScale(int nstep, int repeat, int nmax, int island) {
  const int sizes[] = {300, 1000, 3000, 10000};
  double lx[4], ly[4];
  int npoint = 0;
  repeat = repeat > 64 ? 64 : repeat;
  printf("%8s %8s %8s %8s %8s %12s %14s\n", "bodies", "nv", "nisland", "ncon", "nefc",
         "ms/step", "us/step/body");
  for (int k = 0; k < 4 && sizes[k] <= nmax; k++) {
    char error[1024] = "";
    char* xml = pileXml(sizes[k], island);
    mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
    free(xml);
    mcData* d = m ? mc_makeData(m) : NULL;
    if (!d) {
      fprintf(stderr, "pile of %d: %s\n", sizes[k], m ? "cannot make data" : error);
      return 1;
    }
    double t[64];
    for (int r = 0; r < repeat; r++) {
      run(m, d, nstep, t + r, NULL);                 // CPU time (one thread)
      t[r] /= nstep;
    }
    double tm = median(t, repeat);
    int nwarn = 0;
    for (int w = 0; w < mcNWARNING; w++) {
      nwarn += d->warning[w].number;
    }
    printf("%8d %8d %8d %8d %8d %12.3f %14.3f %s\n", sizes[k], m->nv, d->nisland, d->ncon,
           d->nefc, 1e3 * tm, 1e6 * tm / sizes[k], nwarn ? "(warnings: stack full)" : "");
    lx[npoint] = log((double)sizes[k]);
    ly[npoint++] = log(tm);
    mc_deleteData(d);
    mc_deleteModel(m);
  }

  // least-squares slope of log t over log n
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < npoint; i++) {
    sx += lx[i];
    sy += ly[i];
    sxx += lx[i] * lx[i];
    sxy += lx[i] * ly[i];
  }
  if (npoint >= 2) {
    printf("fitted exponent p (t ~ n^p): %.2f\n",
           (npoint * sxy - sx * sy) / (npoint * sxx - sx * sx));
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("peak resident memory: %.0f MB\n", (double)ru.ru_maxrss / 1024);
  return 0;
}


int main(int argc, char** argv) {
  if (argc < 2 || (strcmp(argv[1], "threads") && strcmp(argv[1], "scale"))) {
    fprintf(stderr, "usage: %s threads [--steps N] [--repeat R] [--threads T] [--pair K] [--stages] "
                    "[--trace] MODEL...\n"
                    "       %s scale [--steps N] [--repeat R] [--max N] [--no-island]\n", argv[0], argv[0]);
    return 2;
  }
  int nstep = 200, repeat = 5, nthread = 2, nmax = 10000, island = 1, stages = 0, status = 0;
  int pairk = 10, trace = 0;
  int first = argc;
  for (int i = 2; i < argc; i++) {
    if (i + 1 < argc && !strcmp(argv[i], "--steps")) {
      nstep = atoi(argv[++i]);
    } else if (i + 1 < argc && !strcmp(argv[i], "--repeat")) {
      repeat = atoi(argv[++i]);
    } else if (i + 1 < argc && !strcmp(argv[i], "--threads")) {
      nthread = atoi(argv[++i]);
    } else if (i + 1 < argc && !strcmp(argv[i], "--max")) {
      nmax = atoi(argv[++i]);
    } else if (i + 1 < argc && !strcmp(argv[i], "--pair")) {
      pairk = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--no-island")) {
      island = 0;
    } else if (!strcmp(argv[i], "--stages")) {
      stages = 1;
    } else if (!strcmp(argv[i], "--trace")) {
      trace = 1;
    } else {
      first = i < first ? i : first;
      break;
    }
  }
  if (nstep < 1 || repeat < 1 || nthread < 1 || pairk < 1) {
    fprintf(stderr, "--steps, --repeat, --threads and --pair must be positive\n");
    return 2;
  }
  if (!strcmp(argv[1], "scale")) {
    return benchScale(nstep, repeat, nmax, island);
  }
  printf("cross-core round trip %.0f ns\n", crossCoreRoundTrip());
  for (int i = first; i < argc; i++) {
    status |= benchThreads(argv[i], nstep, repeat, nthread, stages, pairk, trace);
  }
  return status;
}
