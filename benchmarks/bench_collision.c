// moduco-bench-collision: Moduco's collision stage (mc_collision) against MuJoCo 2.2.2's
// (mj_collision) in one process, on the same geom poses.
//
// Scenes: /usr/share/mujoco/model/humanoid/22_humanoids.xml, a box of free spheres and capsules
// piled on a plane, a pile of convex meshes (benchmarks/collision-models/polytope-*), each
// settled with MuJoCo steps first; both engines then load the same MJCF, get the same qpos and
// run their kinematics once, so only the collision call is timed. Then the broad-phase curve:
// lattice piles of 100 .. 10,000 spheres (not settled: a jittered lattice with slight overlaps),
// timing the whole collision stage and the broad phase alone (pairs and filters, no narrow phase),
// with the exponent of a least-squares fit t ~ n^p. Last, the largest lattice is stepped with
// Moduco alone at the default arena size (nv = 6 n; MuJoCo 2.2.2's dense efc_J cannot hold it).
//
// Ratios are MuJoCo time / Moduco time (above 1: Moduco faster), the median over the repeats of
// the ratio of two adjacent batches, which cancels most of the drift of a loaded machine.
//
//   moduco-bench-collision [--repeats N] [--batch SEC] [--quick] [--max-spheres N]
//                          [--models DIR] [--keep DIR] [--no-step]
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <mujoco/mujoco.h>
#include <moduco/moduco.h>

#include "engine/collision.h"
#include "engine/io.h"

#ifndef MODUCO_SOURCE_DIR
#define MODUCO_SOURCE_DIR "."
#endif

// both engines on one scene
typedef struct {
  const char* name;
  mjModel* mm;
  mjData* md;
  mcModel* m;
  mcData* d;
} Bench;

// run options
typedef struct {
  int repeats;                    // timed batches per engine
  double batch;                   // target seconds per batch
  int maxSpheres;                 // largest sphere pile of the curve
  int pileBodies;                 // bodies of the sphere/capsule pile
  int meshBodies;                 // bodies of the mesh pile
  int settleSteps;                // MuJoCo steps before timing
  int step;                       // step the largest lattice with Moduco
  const char* models;             // folder of the convex meshes
  char dir[512];                  // folder of the generated MJCF files
} Options;

// timing of one scene
typedef struct {
  double mc;                      // seconds per call, median
  double mj;
  double ratio;                   // median of the per-repeat ratios mj / mc
} Timing;


//---------------------------------- helpers -------------------------------------------------------

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


// xorshift64* in [lo, hi)
static double uniform(unsigned long long* s, double lo, double hi) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  unsigned long long x = *s * 2685821657736338717ULL;
  return lo + (hi - lo) * ((double)(x >> 11) / 9007199254740992.0);
}


static int cmpDouble(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}


static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmpDouble);
  return n % 2 ? v[n/2] : 0.5 * (v[n/2 - 1] + v[n/2]);
}


// a growable text buffer for the generated MJCF
typedef struct {
  char* s;
  size_t len;
  size_t cap;
} Text;


// append printf-style text
static void __attribute__((format(printf, 2, 3))) put(Text* t, const char* fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (t->s && t->len + (size_t)n < t->cap) {
      t->len += (size_t)n;
      return;
    }
    t->cap = 2 * (t->cap + (size_t)n + 1024);
    t->s = realloc(t->s, t->cap);
    if (!t->s) {
      fprintf(stderr, "out of memory\n");
      exit(1);
    }
  }
}


static int writeText(const char* path, const Text* t) {
  FILE* f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "cannot write %s\n", path);
    return 0;
  }
  fwrite(t->s, 1, t->len, f);
  fclose(f);
  return 1;
}


//---------------------------------- scene generation ----------------------------------------------

// a box (floor plane and four static walls) of inner half-width half, walls of height h
static void putBox(Text* t, double half, double h) {
  put(t, "<geom name='floor' type='plane' size='0 0 0.1'/>\n");
  put(t, "<geom type='box' size='%g 0.05 %g' pos='0 %g %g'/>\n", half + 0.1, h, half + 0.05, h);
  put(t, "<geom type='box' size='%g 0.05 %g' pos='0 %g %g'/>\n", half + 0.1, h, -half - 0.05, h);
  put(t, "<geom type='box' size='0.05 %g %g' pos='%g 0 %g'/>\n", half + 0.1, h, half + 0.05, h);
  put(t, "<geom type='box' size='0.05 %g %g' pos='%g 0 %g'/>\n", half + 0.1, h, -half - 0.05, h);
}


// sizes for MuJoCo 2.2.2, which fixes them at compile time (its efc_J is njmax x nv and dense,
// so scenes that are never stepped get a token njmax; its broad phase takes stack of the order
// of nbody^2)
static void putSize(Text* t, int nbody, int njmax) {
  put(t, "<size nconmax='%d' njmax='%d' nstack='%lld'/>\n", 12*nbody + 1000, njmax,
      2000000LL + 2000LL*nbody + (long long)nbody*nbody);
}


// MuJoCo errors end the run with a message (2.2.2's default handler waits for Enter)
static void mjError(const char* msg) {
  fprintf(stderr, "MuJoCo error: %s\n", msg);
  exit(1);
}


// free spheres and capsules on a lattice above a box, dropped and settled by the caller
// (frictionless, so that MuJoCo 2.2.2's dense constraint arrays stay small while settling)
static void genPile(Text* t, int nbody) {
  int side = (int)ceil(sqrt(nbody / 10.0));
  double pitch = 0.12, half = 0.5 * side * pitch;
  unsigned long long seed = 7;
  put(t, "<mujoco model='pile'>\n<option timestep='0.005' solver='CG' iterations='30'"
      " jacobian='sparse'/>\n");
  put(t, "<default><geom condim='1'/></default>\n");
  putSize(t, nbody, 5*nbody + 500);
  put(t, "<worldbody>\n");
  putBox(t, half, 0.6);
  for (int i = 0; i < nbody; i++) {
    double x = -half + pitch * (0.5 + i % side), y = -half + pitch * (0.5 + (i / side) % side);
    double z = 0.08 + pitch * (i / (side * side));
    double dx = uniform(&seed, -0.005, 0.005), dy = uniform(&seed, -0.005, 0.005);
    put(t, "<body pos='%.4f %.4f %.4f' euler='%d %d 0'><freejoint/>", x + dx, y + dy, z,
        (int)uniform(&seed, 0, 180), (int)uniform(&seed, 0, 180));
    if (i % 2) {
      put(t, "<geom type='sphere' size='%.4f'/></body>\n", uniform(&seed, 0.035, 0.05));
    } else {
      put(t, "<geom type='capsule' size='%.4f %.4f'/></body>\n", uniform(&seed, 0.02, 0.03),
          uniform(&seed, 0.02, 0.04));
    }
  }
  put(t, "</worldbody>\n</mujoco>\n");
}


// free convex meshes (eight polytopes, cycled) on a lattice above a box
static void genMeshPile(Text* t, int nbody, const char* meshdir) {
  int side = (int)ceil(sqrt(nbody / 5.0));
  double pitch = 0.11, half = 0.5 * side * pitch;
  unsigned long long seed = 11;
  put(t, "<mujoco model='meshpile'>\n<compiler meshdir='%s'/>\n", meshdir);
  put(t, "<option timestep='0.005' solver='CG' iterations='30' cone='elliptic'/>\n");
  putSize(t, nbody, 24*nbody + 1000);
  put(t, "<asset>\n");
  for (int k = 0; k < 8; k++) {
    put(t, "<mesh name='p%d' file='polytope-%d.%s'/>\n", k, k, k < 4 ? "obj" : "stl");
  }
  put(t, "</asset>\n<worldbody>\n");
  putBox(t, half, 0.5);
  for (int i = 0; i < nbody; i++) {
    double x = -half + pitch * (0.5 + i % side), y = -half + pitch * (0.5 + (i / side) % side);
    double z = 0.08 + pitch * (i / (side * side));
    put(t, "<body pos='%.4f %.4f %.4f' euler='%d %d 0'><freejoint/>"
        "<geom type='mesh' mesh='p%d'/></body>\n", x, y, z, (int)uniform(&seed, 0, 180),
        (int)uniform(&seed, 0, 180), i % 8);
  }
  put(t, "</worldbody>\n</mujoco>\n");
}


// n spheres of radius 0.05 on a jittered lattice, four layers deep, spacing slightly below the
// diameter so neighbours and the floor overlap (the contact count per sphere does not depend
// on n); the footprint is square and grows with n. Contacts are disabled in the file so that
// MuJoCo's compiler does not build constraints for the overlaps (loadBoth enables them again).
static void genLattice(Text* t, int n, int step) {
  int layers = 4, side = (int)ceil(sqrt((double)n / layers));
  double pitch = 0.098, half = 0.5 * side * pitch;
  unsigned long long seed = 3;
  if (step) {
    // for Moduco alone: contacts on, CG on the sparse Jacobian, default arena size
    put(t, "<mujoco model='lattice%d'>\n<option solver='CG' iterations='20'/>\n", n);
  } else {
    put(t, "<mujoco model='lattice%d'>\n<option><flag contact='disable'/></option>\n", n);
    putSize(t, n, 10);
  }
  put(t, "<worldbody>\n<geom name='floor' type='plane' size='0 0 0.1'/>\n");
  for (int i = 0; i < n; i++) {
    double x = -half + pitch * (0.5 + i % side) + uniform(&seed, -0.002, 0.002);
    double y = -half + pitch * (0.5 + (i / side) % side) + uniform(&seed, -0.002, 0.002);
    double z = 0.049 + pitch * (i / (side * side)) + uniform(&seed, -0.002, 0.002);
    put(t, "<body pos='%.5f %.5f %.5f'><freejoint/><geom type='sphere' size='0.05'/></body>\n",
        x, y, z);
  }
  put(t, "</worldbody>\n</mujoco>\n");
}


//---------------------------------- engines -------------------------------------------------------

// load a file in both engines; NULL members and a message on failure
static int loadBoth(Bench* b, const char* path) {
  char err[1000] = "";
  b->mm = mj_loadXML(path, NULL, err, sizeof(err));
  if (!b->mm) {
    fprintf(stderr, "%s: MuJoCo: %s\n", b->name, err);
    return 0;
  }
  if (b->mm->nconmax < 12*b->mm->nbody + 1000) {
    b->mm->nconmax = 12*b->mm->nbody + 1000;
  }
  b->mm->opt.disableflags &= ~mjDSBL_CONTACT;
  b->md = mj_makeData(b->mm);
  b->m = mc_loadXML(path, err, sizeof(err));
  if (!b->m) {
    fprintf(stderr, "%s: Moduco: %s\n", b->name, err);
    return 0;
  }
  b->m->opt.disableflags &= ~mcDSBL_CONTACT;
  b->m->opt.enableflags &= ~mcENBL_MULTICCD;  // one contact a pair, as MuJoCo 2.2.2

  // room for every contact of the pile (contacts start the arena)
  size_t need = (size_t)(12*b->m->nbody + 1000) * 2 * sizeof(mcContact) + (64u << 20);
  if (b->m->narena < need) {
    b->m->narena = need;
  }
  b->m->nconmax = -1;
  b->d = mc_makeData(b->m);
  if (!b->d || !b->md) {
    fprintf(stderr, "%s: cannot make data\n", b->name);
    return 0;
  }
  if (b->m->nq != b->mm->nq || b->m->ngeom != b->mm->ngeom) {
    fprintf(stderr, "%s: engines disagree on nq (%d, %d) or ngeom (%d, %d)\n", b->name,
            b->m->nq, b->mm->nq, b->m->ngeom, b->mm->ngeom);
    return 0;
  }
  return 1;
}


static void freeBoth(Bench* b) {
  if (b->d) {
    mc_deleteData(b->d);
  }
  if (b->m) {
    mc_deleteModel(b->m);
  }
  if (b->md) {
    mj_deleteData(b->md);
  }
  if (b->mm) {
    mj_deleteModel(b->mm);
  }
  memset(b, 0, sizeof(*b));
}


// MuJoCo steps, then the same qpos and kinematics in both engines
static void settle(Bench* b, int steps) {
  for (int i = 0; i < steps; i++) {
    mj_step(b->mm, b->md);
  }
  mj_kinematics(b->mm, b->md);
  mj_comPos(b->mm, b->md);
  memcpy(b->d->qpos, b->md->qpos, sizeof(mcNum) * (size_t)b->m->nq);
  mc_kinematics(b->m, b->d);
}


// seconds for `calls` collision calls of one engine
static double batchMc(Bench* b, int calls) {
  double t0 = now();
  for (int i = 0; i < calls; i++) {
    mc_collision(b->m, b->d);
  }
  return now() - t0;
}


static double batchMj(Bench* b, int calls) {
  double t0 = now();
  for (int i = 0; i < calls; i++) {
    mj_collision(b->mm, b->md);
  }
  return now() - t0;
}


// seconds for `calls` broad-phase calls (pairs and filters only) of Moduco
static double batchPairs(Bench* b, int calls) {
  double t0 = now();
  for (int i = 0; i < calls; i++) {
    mci_collisionPairs(b->m, b->d);
  }
  return now() - t0;
}


// calls per batch so that one batch takes about `target` seconds (at least one)
static int calibrate(double per_call, double target) {
  double c = target / (per_call > 1e-9 ? per_call : 1e-9);
  return c < 1 ? 1 : c > 1e7 ? 10000000 : (int)c;
}


// warm up, then interleaved batches (Moduco, MuJoCo, MuJoCo, Moduco, ...); medians per call
static Timing timeBoth(Bench* b, const Options* o, int withMj) {
  double tmc = batchMc(b, 1), tmj = withMj ? batchMj(b, 1) : 0;
  tmc = batchMc(b, 3) / 3;
  int cmc = calibrate(tmc, o->batch), cmj = 1;
  if (withMj) {
    tmj = batchMj(b, 3) / 3;
    cmj = calibrate(tmj, o->batch);
  }
  batchMc(b, cmc);
  if (withMj) {
    batchMj(b, cmj);
  }
  double vmc[64], vmj[64], vr[64];
  int n = o->repeats > 64 ? 64 : o->repeats;
  for (int r = 0; r < n; r++) {
    if (r % 2 == 0 || !withMj) {
      vmc[r] = batchMc(b, cmc) / cmc;
      vmj[r] = withMj ? batchMj(b, cmj) / cmj : 0;
    } else {
      vmj[r] = batchMj(b, cmj) / cmj;
      vmc[r] = batchMc(b, cmc) / cmc;
    }
    vr[r] = vmc[r] > 0 ? vmj[r] / vmc[r] : 0;
  }
  Timing t = {median(vmc, n), withMj ? median(vmj, n) : 0, withMj ? median(vr, n) : 0};
  return t;
}


// median seconds per broad-phase call
static double timePairs(Bench* b, const Options* o) {
  batchPairs(b, 1);
  int c = calibrate(batchPairs(b, 3) / 3, o->batch);
  double v[64];
  int n = o->repeats > 64 ? 64 : o->repeats;
  for (int r = 0; r < n; r++) {
    v[r] = batchPairs(b, c) / c;
  }
  return median(v, n);
}


// exponent p of the least-squares fit log t = p log n + c
static double fitExponent(const double* n, const double* t, int k) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < k; i++) {
    double x = log(n[i]), y = log(t[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  double den = k * sxx - sx * sx;
  return k > 1 && den > 0 ? (k * sxy - sx * sy) / den : 0;
}


static const char* fmtTime(double s, char* buf, size_t sz) {
  if (s < 1e-3) {
    snprintf(buf, sz, "%8.2f us", 1e6 * s);
  } else {
    snprintf(buf, sz, "%8.3f ms", 1e3 * s);
  }
  return buf;
}


// the exponent that a fit of n log n itself gives over the same sizes (reference for the above)
static double nlognExponent(const double* n, int k) {
  double t[8];
  for (int i = 0; i < k && i < 8; i++) {
    t[i] = n[i] * log(n[i]);
  }
  return fitExponent(n, t, k < 8 ? k : 8);
}


// load a lattice with Moduco alone at the default arena size and step it; 0 on failure
static int stepLattice(const char* path, int n) {
  char err[1000] = "";
  mcModel* m = mc_loadXML(path, err, sizeof(err));
  if (!m) {
    printf("\nstep %d spheres: Moduco cannot load: %s\n", n, err);
    return 0;
  }
  double t0 = now();
  mcData* d = mc_makeData(m);
  double tmake = now() - t0;
  if (!d) {
    printf("\nstep %d spheres (nv %d): mc_makeData failed (arena %.1f MB)\n", n, m->nv,
           (double)mci_arenaSize(m) / (1 << 20));
    mc_deleteModel(m);
    return 0;
  }
  int nstep = 5, ok = 1;
  t0 = now();
  for (int i = 0; i < nstep; i++) {
    mc_step(m, d);
  }
  double tstep = (now() - t0) / nstep;
  t0 = now();
  for (int i = 0; i < nstep; i++) {
    mc_collision(m, d);
  }
  double tcol = (now() - t0) / nstep;
  int nwarn = 0;
  for (int w = 0; w < mcNWARNING; w++) {
    nwarn += d->warning[w].number;
  }
  for (int i = 0; i < m->nv; i++) {
    ok = ok && isfinite(d->qacc[i]);
  }
  char a[32], c[32];
  printf("\nstep %d spheres with Moduco alone (nv %d, default arena %.1f MB, dense efc_J %s):"
         " mc_makeData %.2f s, %d steps of %s, collision stage %s, ncon %d, nefc %d,"
         " warnings %d, qacc %s\n", n, m->nv, (double)d->narena / (1 << 20),
         mci_denseJacobian(m) ? "reserved" : "not reserved", tmake, nstep,
         fmtTime(tstep, a, sizeof(a)), fmtTime(tcol, c, sizeof(c)), d->ncon, d->nefc, nwarn,
         ok ? "finite" : "NOT finite");
  mc_deleteData(d);
  mc_deleteModel(m);
  return ok && nwarn == 0;
}




// contacts per geom-type pair of both engines, printed when their counts differ
static void typeCounts(const Bench* b) {
  static const char* const tn[8] = {"plane", "hfield", "sphere", "capsule", "ellipsoid",
                                    "cylinder", "box", "mesh"};
  int cmc[8][8] = {{0}}, cmj[8][8] = {{0}};
  for (int i = 0; i < b->d->ncon; i++) {
    int t1 = b->m->geom_type[b->d->contact[i].geom1], t2 = b->m->geom_type[b->d->contact[i].geom2];
    cmc[t1 < t2 ? t1 : t2][t1 < t2 ? t2 : t1]++;
  }
  for (int i = 0; i < b->md->ncon; i++) {
    int t1 = b->mm->geom_type[b->md->contact[i].geom1];
    int t2 = b->mm->geom_type[b->md->contact[i].geom2];
    cmj[t1 < t2 ? t1 : t2][t1 < t2 ? t2 : t1]++;
  }
  for (int t1 = 0; t1 < 8; t1++) {
    for (int t2 = t1; t2 < 8; t2++) {
      if (cmc[t1][t2] != cmj[t1][t2]) {
        printf("    %s-%s contacts: Moduco %d, MuJoCo %d\n", tn[t1], tn[t2], cmc[t1][t2],
               cmj[t1][t2]);
      }
    }
  }
}


//---------------------------------- main ----------------------------------------------------------

static void usage(void) {
  printf("usage: moduco-bench-collision [--repeats N] [--batch SEC] [--quick] [--max-spheres N]\n"
         "                              [--models DIR] [--keep DIR] [--no-step]\n");
}


int main(int argc, char** argv) {
  Options o = {9, 0.05, 10000, 1000, 100, 600, 1,
               MODUCO_SOURCE_DIR "/benchmarks/collision-models", ""};
  const char* keep = NULL;
  mju_user_error = mjError;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
      o.repeats = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--batch") && i + 1 < argc) {
      o.batch = atof(argv[++i]);
    } else if (!strcmp(argv[i], "--max-spheres") && i + 1 < argc) {
      o.maxSpheres = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--models") && i + 1 < argc) {
      o.models = argv[++i];
    } else if (!strcmp(argv[i], "--keep") && i + 1 < argc) {
      keep = argv[++i];
    } else if (!strcmp(argv[i], "--no-step")) {
      o.step = 0;
    } else if (!strcmp(argv[i], "--quick")) {
      o.repeats = 3;
      o.batch = 0.01;
      o.maxSpheres = 3000;
      o.settleSteps = 200;
    } else {
      usage();
      return strcmp(argv[i], "--help") ? 2 : 0;
    }
  }
  if (o.repeats < 1) {
    o.repeats = 1;
  }

  // generated scenes go to --keep DIR or a temporary folder
  if (keep) {
    mkdir(keep, 0755);
    snprintf(o.dir, sizeof(o.dir), "%s", keep);
  } else {
    snprintf(o.dir, sizeof(o.dir), "/tmp/moduco-bench-collision-XXXXXX");
    if (!mkdtemp(o.dir)) {
      fprintf(stderr, "cannot create a temporary folder\n");
      return 1;
    }
  }
  printf("moduco-bench-collision: Moduco %s vs MuJoCo %d, %d interleaved batches of ~%g s,"
         " median per call\n", mc_versionString(), mj_version(), o.repeats, o.batch);
  printf("scenes in %s\n\n", o.dir);

  // the three scenes
  char path[3][700];
  snprintf(path[0], sizeof(path[0]), "/usr/share/mujoco/model/humanoid/22_humanoids.xml");
  snprintf(path[1], sizeof(path[1]), "%s/pile.xml", o.dir);
  snprintf(path[2], sizeof(path[2]), "%s/meshpile.xml", o.dir);
  Text t = {0};
  genPile(&t, o.pileBodies);
  writeText(path[1], &t);
  t.len = 0;
  genMeshPile(&t, o.meshBodies, o.models);
  writeText(path[2], &t);
  const char* names[3] = {"22_humanoids", "pile 1000 spheres+capsules", "pile 100 meshes"};
  int steps[3] = {o.settleSteps, 2*o.settleSteps, 2*o.settleSteps};
  int status = 0;

  printf("%-28s %6s %6s %6s %11s %11s %7s %7s\n", "scene", "ngeom", "ncon", "ncon", "Moduco",
         "MuJoCo", "ratio", "settle");
  printf("%-28s %6s %6s %6s %11s %11s %7s %7s\n", "", "", "Moduco", "MuJoCo", "per call",
         "per call", "mj/mc", "steps");
  for (int s = 0; s < 3; s++) {
    Bench b = {names[s], NULL, NULL, NULL, NULL};
    if (!loadBoth(&b, path[s])) {
      printf("%-28s skipped (see above)\n", names[s]);
      freeBoth(&b);
      status = 1;
      continue;
    }
    settle(&b, steps[s]);
    Timing tm = timeBoth(&b, &o, 1);
    char a[32], c[32];
    printf("%-28s %6d %6d %6d %11s %11s %6.2fx %7d\n", names[s], b.m->ngeom, b.d->ncon,
           b.md->ncon, fmtTime(tm.mc, a, sizeof(a)), fmtTime(tm.mj, c, sizeof(c)),
           tm.ratio, steps[s]);
    if (b.d->ncon != b.md->ncon) {
      typeCounts(&b);
    }
    fflush(stdout);
    freeBoth(&b);
  }

  // the broad-phase curve
  printf("\nsphere lattice piles (4 layers, radius 0.05, slight overlaps; not settled):"
         " growth of the collision time\n");
  printf("%7s %6s %6s %11s %11s %7s %11s %7s %12s %12s\n", "n", "ncon", "ncon", "Moduco",
         "MuJoCo", "ratio", "Moduco", "pairs", "broad/nlogn", "MuJoCo/nlogn");
  printf("%7s %6s %6s %11s %11s %7s %11s %7s %12s %12s\n", "", "Moduco", "MuJoCo", "stage",
         "stage", "mj/mc", "broad ph.", "", "(ns)", "(ns)");
  const int sizes[5] = {100, 300, 1000, 3000, 10000};
  double cn[5], cmc[5], cmj[5], cbp[5];
  int npoint = 0;
  for (int k = 0; k < 5 && sizes[k] <= o.maxSpheres; k++) {
    int n = sizes[k];
    char p[700];
    snprintf(p, sizeof(p), "%s/lattice%d.xml", o.dir, n);
    t.len = 0;
    genLattice(&t, n, 0);
    writeText(p, &t);
    Bench b = {"lattice", NULL, NULL, NULL, NULL};
    if (!loadBoth(&b, p)) {
      printf("%7d skipped (see above)\n", n);
      freeBoth(&b);
      status = 1;
      continue;
    }
    settle(&b, 0);
    Timing tm = timeBoth(&b, &o, 1);
    double tbp = timePairs(&b, &o);
    int npair = mci_collisionPairs(b.m, b.d);
    double nlogn = n * log2((double)n);
    char a[32], c[32], e[32];
    printf("%7d %6d %6d %11s %11s %6.2fx %11s %7d %12.3f %12.3f\n", n, b.d->ncon, b.md->ncon,
           fmtTime(tm.mc, a, sizeof(a)), fmtTime(tm.mj, c, sizeof(c)), tm.ratio,
           fmtTime(tbp, e, sizeof(e)), npair, 1e9 * tbp / nlogn, 1e9 * tm.mj / nlogn);
    if (b.d->ncon != b.md->ncon) {
      typeCounts(&b);
      status = 1;
    }
    cn[npoint] = n;
    cmc[npoint] = tm.mc;
    cmj[npoint] = tm.mj;
    cbp[npoint] = tbp;
    npoint++;
    fflush(stdout);
    freeBoth(&b);
    if (!keep) {
      unlink(p);
    }
  }
  if (npoint > 1) {
    printf("fitted exponent p of t ~ n^p over n = %g..%g: Moduco stage %.2f, Moduco broad phase"
           " %.2f, MuJoCo stage %.2f (n log n over this range fits p = %.2f)\n", cn[0],
           cn[npoint - 1], fitExponent(cn, cmc, npoint), fitExponent(cn, cbp, npoint),
           fitExponent(cn, cmj, npoint), nlognExponent(cn, npoint));
  }

  // the largest lattice stepped by Moduco at the default arena size
  if (o.step) {
    int n = o.maxSpheres;
    char p[700];
    snprintf(p, sizeof(p), "%s/lattice%d-step.xml", o.dir, n);
    t.len = 0;
    genLattice(&t, n, 1);
    writeText(p, &t);
    if (!stepLattice(p, n)) {
      status = 1;
    }
    if (!keep) {
      unlink(p);
    }
  }
  free(t.s);
  if (!keep) {
    unlink(path[1]);
    unlink(path[2]);
    rmdir(o.dir);
  }
  return status;
}
