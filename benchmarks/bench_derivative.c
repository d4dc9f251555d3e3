// moduco-bench-derivative: transition Jacobians (A, B by forward differences, eps 1e-6) per
// second of mcd_transitionFD (serial, and on a rollout pool of 1 and 2 threads) against MuJoCo
// 2.2.2's mjd_transitionFD, on the same model file at the same state, in one run.
//
// For each model: load the file in both engines (MuJoCo's stack enlarged: 2.2.2 overflows its
// default on some models), reset to keyframe 0 if there is one, let MuJoCo settle for 200 steps
// under small random controls (contacts form), give Moduco the same state, warm up, then time
// batches alternating the engines and report the median batch rate of each. A Jacobian of a
// model with ndx = 2 nv + na and nu controls costs 1 + ndx + nu steps in both engines.
//
// usage: moduco-bench-derivative [--repeats N] [--batch SECONDS] [--calls N] [model.xml ...]
// (default models: the sample humanoid, MuJoCo's humanoid and 22_humanoids). --calls N: no
// timing, N Jacobians of MuJoCo's then N of mcd_transitionFD per model, for an instruction
// count that does not depend on the machine's load:
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=mjd_transitionFD
//     --toggle-collect=mcd_transitionFD moduco-bench-derivative --calls 5 model.xml
// then callgrind_annotate --inclusive=yes: the two functions' inclusive counts / N.
// --engine mujoco|serial|pool1|pool2 with --calls N (N >= 0): that engine only, for whole-program
// counts per thread (valgrind --tool=callgrind --separate-threads=yes; N = 0 gives the setup).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>
#include <moduco/moduco.h>

#define MJ_STACK (1 << 24)        // mjtNums of MuJoCo stack (128 MB)
#define NENGINE 4                 // MuJoCo, Moduco serial, pool of 1, pool of 2

static const char* const kEngine[NENGINE] = {"mujoco", "serial", "pool1", "pool2"};

typedef struct {
  int repeats;
  double batch;
  int calls;                      // > 0: count mode (no timing)
  int engine;                     // count mode: the engine run (-1: MuJoCo, then serial)
} Settings;

typedef struct {                  // one model in both engines, and the outputs
  mjModel* mj;
  mjData* dj;
  mcModel* mc;
  mcData* dc;
  mcRolloutPool* pool[2];
  double *A, *B;
} Bench;


static void quiet(void* user, const char* message) {
  (void)user;
  (void)message;
}


static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


static int compareDouble(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}


// xorshift64* in [-1, 1)
static double uniform(unsigned long long* s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return (double)((*s * 2685821657736338717ULL) >> 11) / 4503599627370496.0 - 1;
}


// controls of MuJoCo: a quarter of each range around its middle ([-0.25, 0.25] if unlimited)
static void smallCtrl(const mjModel* m, mjData* d, unsigned long long* s) {
  for (int i = 0; i < m->nu; i++) {
    double lo = -1, hi = 1;
    if (m->actuator_ctrllimited[i]) {
      lo = m->actuator_ctrlrange[2 * i];
      hi = m->actuator_ctrlrange[2 * i + 1];
    }
    d->ctrl[i] = 0.5 * (lo + hi) + 0.125 * (hi - lo) * uniform(s);
  }
}


// load, settle under MuJoCo, copy the state to Moduco; 0 or -1 (message printed)
static int loadBench(Bench* b, const char* file) {
  memset(b, 0, sizeof(*b));
  char err[1024] = "";
  b->mj = mj_loadXML(file, NULL, err, sizeof(err));
  if (!b->mj) {
    fprintf(stderr, "%s: MuJoCo: %s\n", file, err);
    return -1;
  }
  b->mc = mc_loadXML(file, err, sizeof(err));
  if (!b->mc) {
    fprintf(stderr, "%s: Moduco: %s\n", file, err);
    return -1;
  }
  b->mc->opt.enableflags &= ~mcENBL_MULTICCD;  // one contact a pair, as MuJoCo 2.2.2
  if (b->mj->nstack < MJ_STACK) {
    b->mj->nstack = MJ_STACK;
  }
  b->dj = mj_makeData(b->mj);
  b->dc = mc_makeData(b->mc);
  if (!b->dj || !b->dc) {
    fprintf(stderr, "%s: cannot make data\n", file);
    return -1;
  }

  // settle under MuJoCo, then the same state in Moduco
  const mjModel* m = b->mj;
  mjData* d = b->dj;
  if (m->nkey > 0) {
    mj_resetDataKeyframe(m, d, 0);
  }
  unsigned long long seed = 0x9e3779b97f4a7c15ULL;
  for (int t = 0; t < 200; t++) {
    smallCtrl(m, d, &seed);
    mj_step(m, d);
  }
  smallCtrl(m, d, &seed);
  mcData* c = b->dc;
  c->time = d->time;
  memcpy(c->qpos, d->qpos, sizeof(double) * (size_t)m->nq);
  memcpy(c->qvel, d->qvel, sizeof(double) * (size_t)m->nv);
  memcpy(c->act, d->act, sizeof(double) * (size_t)m->na);
  memcpy(c->ctrl, d->ctrl, sizeof(double) * (size_t)m->nu);
  memcpy(c->qacc_warmstart, d->qacc_warmstart, sizeof(double) * (size_t)m->nv);

  // outputs and pools
  int ndx = 2 * m->nv + m->na;
  b->A = calloc((size_t)ndx * ndx, sizeof(double));
  b->B = calloc((size_t)ndx * (m->nu ? m->nu : 1), sizeof(double));
  for (int k = 0; k < 2; k++) {
    b->pool[k] = mc_rolloutCreate(b->mc, k + 1, mcd_transitionFDItems(b->mc, 0));
  }
  if (!b->A || !b->B || !b->pool[0] || !b->pool[1]) {
    fprintf(stderr, "%s: out of memory\n", file);
    return -1;
  }
  return 0;
}


static void freeBench(Bench* b) {
  for (int k = 0; k < 2; k++) {
    mc_rolloutDelete(b->pool[k]);
  }
  free(b->A);
  free(b->B);
  mc_deleteData(b->dc);
  mc_deleteModel(b->mc);
  if (b->dj) {
    mj_deleteData(b->dj);
  }
  if (b->mj) {
    mj_deleteModel(b->mj);
  }
}


// n Jacobians with engine e
static void run(Bench* b, int e, int n) {
  for (int i = 0; i < n; i++) {
    switch (e) {
    case 0:
      mjd_transitionFD(b->mj, b->dj, 1e-6, 0, b->A, b->B, NULL, NULL);
      break;
    case 1:
      mcd_transitionFD(b->mc, b->dc, 1e-6, 0, b->A, b->B, NULL, NULL);
      break;
    default:
      mcd_transitionFDPool(b->pool[e - 2], b->mc, b->dc, 1e-6, 0, b->A, b->B, NULL, NULL);
      break;
    }
  }
}


// median Jacobians per second of each engine, batches alternating between engines
static void measure(Bench* b, const Settings* s, double rate[NENGINE]) {
  // calls per batch from a short calibration
  int calls[NENGINE];
  for (int e = 0; e < NENGINE; e++) {
    run(b, e, 1);
    double t0 = now();
    int n = 0;
    while (now() - t0 < 0.2 * s->batch) {
      run(b, e, 1);
      n++;
    }
    double per = (now() - t0) / n;
    calls[e] = (int)fmax(1, s->batch / per);
  }

  // alternating batches
  double* r = calloc((size_t)NENGINE * s->repeats, sizeof(double));
  for (int k = 0; k < s->repeats; k++) {
    for (int e = 0; e < NENGINE; e++) {
      double t0 = now();
      run(b, e, calls[e]);
      r[e * s->repeats + k] = calls[e] / (now() - t0);
    }
  }
  for (int e = 0; e < NENGINE; e++) {
    qsort(r + e * s->repeats, (size_t)s->repeats, sizeof(double), compareDouble);
    rate[e] = r[e * s->repeats + s->repeats / 2];
  }
  free(r);
}


// largest difference between the two engines' A and B (a sanity check printed with the rates)
static double agreement(Bench* b) {
  const mjModel* m = b->mj;
  int ndx = 2 * m->nv + m->na, n = ndx * ndx + ndx * m->nu;
  double* ref = calloc((size_t)n + 1, sizeof(double));
  mjd_transitionFD(b->mj, b->dj, 1e-6, 0, ref, ref + ndx * ndx, NULL, NULL);
  mcd_transitionFD(b->mc, b->dc, 1e-6, 0, b->A, b->B, NULL, NULL);
  double worst = 0, scale = 1e-300;
  for (int i = 0; i < n; i++) {
    double got = i < ndx * ndx ? b->A[i] : b->B[i - ndx * ndx];
    worst = fmax(worst, fabs(got - ref[i]));
    scale = fmax(scale, fabs(ref[i]));
  }
  free(ref);
  return worst / scale;
}


int main(int argc, char** argv) {
  Settings s = {7, 0.5, -1, -1};
  const char* files[64];
  int nfile = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
      s.repeats = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--batch") && i + 1 < argc) {
      s.batch = atof(argv[++i]);
    } else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
      s.calls = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--engine") && i + 1 < argc) {
      const char* name = argv[++i];
      for (int e = 0; e < NENGINE; e++) {
        s.engine = strcmp(name, kEngine[e]) ? s.engine : e;
      }
      if (s.engine < 0) {
        fprintf(stderr, "%s: --engine takes mujoco, serial, pool1 or pool2 (got '%s')\n",
                argv[0], name);
        return 2;
      }
    } else if (argv[i][0] == '-' || nfile == 64) {
      fprintf(stderr, "usage: %s [--repeats N] [--batch SECONDS] [--calls N [--engine E]] "
              "[model.xml ...]\n", argv[0]);
      return 2;
    } else {
      files[nfile++] = argv[i];
    }
  }
  if (s.repeats < 1 || !(s.batch > 0)) {
    fprintf(stderr, "%s: --repeats must be >= 1 and --batch > 0\n", argv[0]);
    return 2;
  }
  if (!nfile) {
    files[nfile++] = MODUCO_SOURCE_DIR "/models/humanoid.xml";
    files[nfile++] = "/usr/share/mujoco/model/humanoid/humanoid.xml";
    files[nfile++] = "/usr/share/mujoco/model/humanoid/22_humanoids.xml";
  }
  mc_setMessageHandler(quiet, NULL);

  if (s.calls < 0) {
    printf("transition Jacobians per second (A and B, forward differences, eps 1e-6; median of %d "
           "batches of %.2f s)\n", s.repeats, s.batch);
    printf("%-18s %4s %4s %5s %10s %10s %10s %10s %7s %7s %8s %9s\n", "model", "nv", "nu", "ncon",
           kEngine[0], kEngine[1], kEngine[2], kEngine[3], "ser/mj", "p1/mj", "p2/p1", "|A-Amj|");
  }
  int failed = 0;
  for (int f = 0; f < nfile; f++) {
    Bench b;
    if (loadBench(&b, files[f])) {
      failed = 1;
      freeBench(&b);
      continue;
    }
    if (s.calls >= 0 && s.engine >= 0) {
      run(&b, s.engine, s.calls);
      printf("%s: %d Jacobians of %s\n", files[f], s.calls, kEngine[s.engine]);
      freeBench(&b);
      continue;
    }
    if (s.calls >= 0) {
      run(&b, 0, s.calls);
      run(&b, 1, s.calls);
      printf("%s: %d Jacobians each of mjd_transitionFD and mcd_transitionFD\n", files[f],
             s.calls);
      freeBench(&b);
      continue;
    }
    double rate[NENGINE], agree = agreement(&b);
    measure(&b, &s, rate);
    const char* name = strrchr(files[f], '/') ? strrchr(files[f], '/') + 1 : files[f];
    char label[64];
    snprintf(label, sizeof(label), "%s%s", strstr(files[f], MODUCO_SOURCE_DIR) ? "moduco/" : "",
             name);
    printf("%-18s %4d %4d %5d %10.3g %10.3g %10.3g %10.3g %7.2f %7.2f %8.2f %9.1e\n", label,
           b.mj->nv, b.mj->nu, b.dj->ncon, rate[0], rate[1], rate[2], rate[3], rate[1] / rate[0],
           rate[2] / rate[0], rate[3] / rate[2], agree);
    fflush(stdout);
    freeBench(&b);
  }
  return failed;
}
