// moduco-bench-forward: evaluations per second of mc_forward and MuJoCo 2.2.2's mj_forward on the
// same contact-free models at the same random states, measured in one run.
//
// For each model: load the same file in both engines (contacts and constraints disabled), make
// NSTATE random states, warm up, then time batches of forward calls, alternating the engines
// (A B A B ...), and report the median batch rate of each.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conformance.h"
#include "corpus_list.h"

#define NSTATE 16

// corpus models (folder, main file) timed with contacts and constraints disabled
static const char* const kCorpus[][2] = {
#define MC_CORPUS_ENTRY(folder, file) {folder, file},
  MC_CORPUS_MODELS(MC_CORPUS_ENTRY)
#undef MC_CORPUS_ENTRY
};

// random trees included in the table (seeds)
static const int kTrees[] = {2, 6, 17};

// command-line settings
typedef struct {
  int repeats;                    // timed batches per engine
  double batch;                   // target seconds per batch
  const char* filter;             // only models whose name contains this
  const char* corpus;             // corpus folder; NULL: skip the corpus
  int sensors;                    // keep sensors enabled (default: disabled in both)
} Settings;

// both engines' copies of one model and its states
typedef struct {
  mjModel* mj;
  mjData* dj;
  mcModel* mc;
  mcData* dc;
  double* qpos;                   // NSTATE x nq
  double* qvel;                   // NSTATE x nv
  double* act;                    // NSTATE x na
  double* ctrl;                   // NSTATE x nu
} Bench;

// silence Moduco's messages during timing
static void quiet(void* user, const char* message) {
}


// monotonic seconds
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


// comparison for qsort
static int cmpDouble(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}


// fill the random states from the MuJoCo model's joint layout
static void makeStates(Bench* b, unsigned long long seed) {
  const mjModel* m = b->mj;
  ConfRng r;
  conf_seed(&r, seed);
  for (int s = 0; s < NSTATE; s++) {
    double* qpos = b->qpos + (size_t)s * m->nq;
    memcpy(qpos, m->qpos0, sizeof(double) * m->nq);
    for (int j = 0; j < m->njnt; j++) {
      double* q = qpos + m->jnt_qposadr[j];
      switch (m->jnt_type[j]) {
      case mjJNT_FREE:
        for (int k = 0; k < 3; k++) {
          q[k] += conf_uniform(&r, -0.5, 0.5);
        }
        conf_quat(&r, q + 3);
        break;
      case mjJNT_BALL:
        conf_quat(&r, q);
        break;
      default:
        q[0] += conf_uniform(&r, -0.3, 0.3);
        break;
      }
    }
    for (int i = 0; i < m->nv; i++) {
      b->qvel[(size_t)s * m->nv + i] = conf_uniform(&r, -1, 1);
    }
    for (int i = 0; i < m->na; i++) {
      b->act[(size_t)s * m->na + i] = conf_uniform(&r, 0, 1);
    }
    for (int i = 0; i < m->nu; i++) {
      b->ctrl[(size_t)s * m->nu + i] = conf_uniform(&r, -1, 1);
    }
  }
}


// time n forward evaluations of one engine; return evaluations per second
static double timeBatch(Bench* b, int moduco, long n) {
  const mjModel* m = b->mj;
  size_t nq = m->nq, nv = m->nv, na = m->na, nu = m->nu;
  double start = now();
  for (long i = 0; i < n; i++) {
    int s = (int)(i % NSTATE);
    if (moduco) {
      memcpy(b->dc->qpos, b->qpos + s * nq, sizeof(double) * nq);
      memcpy(b->dc->qvel, b->qvel + s * nv, sizeof(double) * nv);
      memcpy(b->dc->act, b->act + s * na, sizeof(double) * na);
      memcpy(b->dc->ctrl, b->ctrl + s * nu, sizeof(double) * nu);
      mc_forward(b->mc, b->dc);
    } else {
      memcpy(b->dj->qpos, b->qpos + s * nq, sizeof(double) * nq);
      memcpy(b->dj->qvel, b->qvel + s * nv, sizeof(double) * nv);
      memcpy(b->dj->act, b->act + s * na, sizeof(double) * na);
      memcpy(b->dj->ctrl, b->ctrl + s * nu, sizeof(double) * nu);
      mj_forward(b->mj, b->dj);
    }
  }
  double t = now() - start;
  return t > 0 ? (double)n / t : 0;
}


// worst relative qacc difference over the states (a sanity column, not a conformance test)
static double qaccError(Bench* b) {
  const mjModel* m = b->mj;
  double worst = 0;
  for (int s = 0; s < NSTATE; s++) {
    timeBatch(b, 0, s + 1);
    timeBatch(b, 1, s + 1);
    for (int i = 0; i < m->nv; i++) {
      double ref = b->dj->qacc[i];
      double e = fabs(b->dc->qacc[i] - ref) / (fabs(ref) > 1 ? fabs(ref) : 1);
      if (!(e <= worst)) {
        worst = e;
      }
    }
  }
  return worst;
}


// load, time and print one model; file: a path (loaded in place) or NULL with xml text
static void benchModel(const Settings* set, const char* name, const char* file, const char* xml) {
  if (set->filter && !strstr(name, set->filter)) {
    return;
  }
  char path[1024], err[1024] = "";

  // the same file for both engines
  int temp = 0;
  if (!file) {
    snprintf(path, sizeof(path), "/tmp/moduco-bench-XXXXXX.xml");
    int fd = mkstemps(path, 4);
    if (fd < 0 || write(fd, xml, strlen(xml)) != (ssize_t)strlen(xml)) {
      printf("%-30s skipped: cannot write a temporary file\n", name);
      if (fd >= 0) {
        close(fd);
        unlink(path);
      }
      return;
    }
    close(fd);
    file = path;
    temp = 1;
  }
  Bench b;
  memset(&b, 0, sizeof(b));
  b.mj = mj_loadXML(file, NULL, err, sizeof(err));
  if (!b.mj) {
    printf("%-30s skipped: MuJoCo cannot load it: %.60s\n", name, err);
    if (temp) {
      unlink(path);
    }
    return;
  }
  err[0] = 0;
  b.mc = mc_loadXML(file, err, sizeof(err));
  if (temp) {
    unlink(path);
  }
  if (!b.mc) {
    for (char* c = err; *c; c++) {
      *c = *c == '\n' ? ' ' : *c;
    }
    printf("%-30s skipped: Moduco cannot load it: %.80s\n", name, err);
    mj_deleteModel(b.mj);
    return;
  }
  b.mc->opt.enableflags &= ~mcENBL_MULTICCD;  // one contact a pair, as MuJoCo 2.2.2
  if (b.mc->nq != b.mj->nq || b.mc->nv != b.mj->nv || b.mc->nu != b.mj->nu ||
      b.mc->na != b.mj->na) {
    printf("%-30s skipped: sizes differ (nq %d/%d nv %d/%d nu %d/%d na %d/%d)\n", name,
           b.mc->nq, b.mj->nq, b.mc->nv, b.mj->nv, b.mc->nu, b.mj->nu, b.mc->na, b.mj->na);
    mc_deleteModel(b.mc);
    mj_deleteModel(b.mj);
    return;
  }

  // contact-free: no contacts, no constraints, no energy; sensors off unless asked for
  b.mj->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_CONSTRAINT;
  b.mc->opt.disableflags |= mcDSBL_CONTACT | mcDSBL_CONSTRAINT;
  if (!set->sensors) {
    b.mj->opt.disableflags |= mjDSBL_SENSOR;
    b.mc->opt.disableflags |= mcDSBL_SENSOR;
  }
  b.mj->opt.enableflags &= ~mjENBL_ENERGY;
  b.mc->opt.enableflags &= ~mcENBL_ENERGY;
  b.dj = mj_makeData(b.mj);
  b.dc = mc_makeData(b.mc);
  const mjModel* m = b.mj;
  b.qpos = calloc((size_t)NSTATE * m->nq + 1, sizeof(double));
  b.qvel = calloc((size_t)NSTATE * m->nv + 1, sizeof(double));
  b.act = calloc((size_t)NSTATE * m->na + 1, sizeof(double));
  b.ctrl = calloc((size_t)NSTATE * m->nu + 1, sizeof(double));
  makeStates(&b, 12345);

  // warm up both and size the batch from the slower engine
  double err_qacc = qaccError(&b);
  long n = 16;
  for (;;) {
    double ta = now();
    timeBatch(&b, 0, n);
    timeBatch(&b, 1, n);
    double t = now() - ta;
    if (t >= set->batch || n > (1L << 26)) {
      break;
    }
    n = t > 1e-4 ? (long)(n * set->batch / t * 1.1) + 1 : n * 8;
  }
  n = n / 2 > 16 ? n / 2 : 16;

  // interleaved repeats (alternate which engine goes first)
  double* rate_mc = calloc(set->repeats, sizeof(double));
  double* rate_mj = calloc(set->repeats, sizeof(double));
  for (int r = 0; r < set->repeats; r++) {
    if (r % 2 == 0) {
      rate_mc[r] = timeBatch(&b, 1, n);
      rate_mj[r] = timeBatch(&b, 0, n);
    } else {
      rate_mj[r] = timeBatch(&b, 0, n);
      rate_mc[r] = timeBatch(&b, 1, n);
    }
  }
  qsort(rate_mc, set->repeats, sizeof(double), cmpDouble);
  qsort(rate_mj, set->repeats, sizeof(double), cmpDouble);
  double med_mc = rate_mc[set->repeats / 2];
  double med_mj = rate_mj[set->repeats / 2];
  printf("%-30s %4d %14.0f %14.0f %7.2f %11.1e\n", name, m->nv, med_mc, med_mj,
         med_mj > 0 ? med_mc / med_mj : 0, err_qacc);
  fflush(stdout);

  free(rate_mc);
  free(rate_mj);
  free(b.qpos);
  free(b.qvel);
  free(b.act);
  free(b.ctrl);
  mc_deleteData(b.dc);
  mc_deleteModel(b.mc);
  mj_deleteData(b.dj);
  mj_deleteModel(b.mj);
}


// print usage
static void usage(void) {
  fprintf(stderr, "usage: moduco-bench-forward [--repeats N] [--batch SECONDS] [--filter TEXT] "
          "[--corpus DIR | --no-corpus] [--sensors]\n");
}


int main(int argc, char** argv) {
  Settings set = {7, 0.05, NULL, MODUCO_CORPUS_DIR, 0};
  if (getenv("MODUCO_CORPUS")) {
    set.corpus = getenv("MODUCO_CORPUS");
  }

  // arguments
  for (int i = 1; i < argc; i++) {
    int has = i + 1 < argc;
    if (!strcmp(argv[i], "--repeats") && has) {
      set.repeats = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--batch") && has) {
      set.batch = atof(argv[++i]);
    } else if (!strcmp(argv[i], "--filter") && has) {
      set.filter = argv[++i];
    } else if (!strcmp(argv[i], "--corpus") && has) {
      set.corpus = argv[++i];
    } else if (!strcmp(argv[i], "--no-corpus")) {
      set.corpus = NULL;
    } else if (!strcmp(argv[i], "--sensors")) {
      set.sensors = 1;
    } else {
      usage();
      return 2;
    }
  }
  if (set.repeats < 1 || !(set.batch > 0)) {
    usage();
    return 2;
  }
  mc_setMessageHandler(quiet, NULL);

  // header
  printf("mc_forward vs mj_forward (MuJoCo %s), contacts, constraints%s disabled, %d states,\n"
         "median of %d interleaved batches of ~%.0f ms per engine; ratio = Moduco / MuJoCo;\n"
         "qacc err = worst relative qacc difference (sanity check, not a conformance test)\n\n",
         mj_versionString(), set.sensors ? "" : " and sensors", NSTATE, set.repeats,
         1000 * set.batch / 2);
  printf("%-30s %4s %14s %14s %7s %11s\n", "model", "nv", "Moduco eval/s", "MuJoCo eval/s",
         "ratio", "qacc err");

  // built-in conformance models and random trees
  for (int i = 0; i < conf_model_count; i++) {
    char* xml = conf_modelXml(conf_model_names[i]);
    if (xml) {
      benchModel(&set, conf_model_names[i], NULL, xml);
      free(xml);
    }
  }
  for (size_t i = 0; i < sizeof(kTrees) / sizeof(kTrees[0]); i++) {
    char name[32];
    snprintf(name, sizeof(name), "tree:%d", kTrees[i]);
    char* xml = conf_modelXml(name);
    benchModel(&set, name, NULL, xml);
    free(xml);
  }

  // corpus models, loaded in place (relative includes and assets)
  for (size_t i = 0; set.corpus && i < sizeof(kCorpus) / sizeof(kCorpus[0]); i++) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s/%s", set.corpus, kCorpus[i][0], kCorpus[i][1]);
    if (access(path, R_OK)) {
      continue;
    }
    benchModel(&set, kCorpus[i][0], path, NULL);
  }
  return 0;
}
