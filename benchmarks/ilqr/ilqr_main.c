// moduco-ilqr: the Dojo paper's trajectory-optimization table (Table III) with Moduco's solvers:
// iterative LQR (ilqr.c) on finite-difference transition Jacobians, for the planar box moved 1 m
// right or 1 m up in 1 s, and the dm_control hopper moved 0.5 m forward in 1 s, each with soft
// contact (newton, h = 0.01) and hard contact (ipm, h = 0.05 and 0.1). Prints a markdown table.
//
//   moduco-ilqr [--task box-right|box-up|hopper|all] [--maxiter N] [--corpus DIR] [--kappa K]
//
// The goal state (positions and zero velocities) is a constraint at T (augmented Lagrangian,
// tolerance kGoalTol), as the goal-constraint violation of the seed's Table III; success is a
// final position within 1 cm of the goal. Running weights are rates times h.
//
// Gradients: finite differences (mcd_transitionFD) for every run, and for the ipm runs also
// implicit gradients (mcd_transitionImplicit: ipm's derivative at central-path kappa K, default
// 1e-4). The ipm runs are repeated with the rollouts simulated at kappa_tol = 5 K (relaxed
// contact, "rollouts at kappa") with either kind of gradient. Prints "kappa K" in the header.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

#include "ilqr.h"

typedef struct {
  const char* task;     // box-right, box-up, hopper
  const char* solver;
  double h;
} Run;

static const double kGoalTol = 1e-3;  // the goal constraint's tolerance (m); success: 1e-2

static const double kRelaxedMargin = 1e-3;  // contact margin of the relaxed rollouts (m)

static const Run kRuns[] = {
  {"box-right", "newton", 0.01}, {"box-right", "ipm", 0.05}, {"box-right", "ipm", 0.1},
  {"box-up", "newton", 0.01},    {"box-up", "ipm", 0.05},    {"box-up", "ipm", 0.1},
  {"hopper", "newton", 0.01},    {"hopper", "ipm", 0.05},
};


// the task's problem for model m at qpos0 (weights and targets in w, sized 6 * ndx + nu)
static void makeProblem(const char* task, const mcModel* m, double h, int maxiter,
                        IlqrProblem* p, double* w) {
  int nx = 2 * m->nv + m->na, nq = m->nq;
  double *goal = w, *Q = w + nx, *Qf = w + 2 * nx, *mid = w + 3 * nx, *Qmid = w + 4 * nx;
  double* R = w + 5 * nx;
  memset(w, 0, sizeof(double) * (5 * nx + m->nu));
  memcpy(goal, m->qpos0, sizeof(double) * nq);
  memcpy(mid, m->qpos0, sizeof(double) * nq);
  int box = strncmp(task, "box", 3) == 0;
  // running weights are rates (per second) times h, so that every h optimizes the same
  // continuous cost (the weights per step of h = 0.01 are 1e-2 on states, 1e-2 box and 1e-3
  // hopper on controls)
  for (int i = 0; i < nx; i++) {
    Q[i] = 1 * h;
    Qf[i] = i < nq ? 100 : 10;
  }
  for (int j = 0; j < m->nu; j++) {
    R[j] = (box ? 1 : 0.1) * h;
  }
  p->Qmid = NULL;
  if (!strcmp(task, "box-right")) {
    goal[0] += 1;
  } else if (!strcmp(task, "box-up")) {
    goal[1] += 1;
  } else {
    // hopper: rootx 0.5 m ahead at the end, the torso 0.2 m higher half way (a hop)
    goal[0] += 0.5;
    mid[1] += 0.2;
    Qmid[1] = 10;
    p->Qmid = Qmid;
  }
  p->horizon = (int)lround(1.0 / h);
  p->tmid = p->horizon / 2;
  p->goal = goal;
  p->Q = Q;
  p->Qf = Qf;
  p->R = R;
  p->mid = mid;
  p->maxiter = maxiter;
  p->tolerance = 1e-6;
  p->goalTol = kGoalTol;
}


// the model file with ipm selected and its kappa_tol set (the <option> element of the file
// without a solver attribute gets solver="ipm" and an <extension> configuring it); NULL on error
static mcModel* loadSmoothed(const char* path, double kappa_tol, char* err, int err_sz) {
  FILE* f = fopen(path, "rb");
  char text[16384];
  size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
  if (f) {
    fclose(f);
  }
  text[n] = 0;
  char* opt = strstr(text, "<option");
  char* end = opt ? strstr(opt, "/>") : NULL;
  if (!end || n == sizeof(text) - 1) {
    snprintf(err, (size_t)err_sz, "%s: unreadable, too long or without <option .../>", path);
    return NULL;
  }
  static char xml[20000];
  snprintf(xml, sizeof(xml), "%.*s solver=\"ipm\"/><extension><plugin plugin=\"ipm\"><config "
           "key=\"kappa_tol\" value=\"%g\"/></plugin></extension>%s", (int)(end - text), text,
           kappa_tol, end + 2);
  char dir[1024];
  snprintf(dir, sizeof(dir), "%s", path);
  char* slash = strrchr(dir, '/');
  if (slash) {
    *slash = 0;
  }
  return mc_loadXMLString(xml, slash ? dir : NULL, err, err_sz);
}


// one row: finite-difference or implicit (at kappa) gradients; smooth: the rollouts simulated by
// ipm at kappa_tol = 5 kappa (relaxed contact) instead of its default tolerance
static int runOne(const Run* r, const char* boxPath, const char* hopperPath, int maxiter,
                  int implicit, int smooth, double kappa) {
  char err[1024];
  const char* path = strcmp(r->task, "hopper") ? boxPath : hopperPath;
  mcModel* m = smooth ? loadSmoothed(path, 5 * kappa, err, sizeof(err))
                      : mc_loadXML(path, err, sizeof(err));
  if (!m) {
    fprintf(stderr, "moduco-ilqr: %s\n", err);
    return -1;
  }
  if (mc_setSolver(m, r->solver, err, sizeof(err))) {
    fprintf(stderr, "moduco-ilqr: %s\n", err);
    mc_deleteModel(m);
    return -1;
  }
  m->opt.timestep = r->h;
  if (smooth) {
    // relaxed contact keeps a small positive gap (of the order of kappa over the force): a
    // contact at a positive distance is no constraint without a margin, so the box would drop
    // through a whole step once lifted by it. ipm takes the distance itself as the gap (the
    // margin only widens detection), so 1 mm keeps the resting contact without moving it.
    for (int g = 0; g < m->ngeom; g++) {
      m->geom_margin[g] = fmax(m->geom_margin[g], kRelaxedMargin);
    }
  }
  mcData* d = mc_makeData(m);
  int nx = 2 * m->nv + m->na;
  double* w = calloc((size_t)(5 * nx + m->nu), sizeof(double));
  IlqrProblem p;
  makeProblem(r->task, m, r->h, maxiter, &p, w);
  p.implicit = implicit;
  p.kappa = kappa;
  double* U = calloc((size_t)p.horizon * m->nu, sizeof(double));
  // the box starts from zero force; the hopper's controls start at zero too
  IlqrResult res;
  int rc = d && w && U ? ilqr_solve(m, d, &p, U, &res, err, sizeof(err)) : -1;
  if (rc) {
    fprintf(stderr, "moduco-ilqr: %s %s h=%g: %s\n", r->task, r->solver, r->h,
            d && w && U ? err : "out of memory");
  } else {
    int success = res.violation <= 1e-2;
    char grad[96];
    snprintf(grad, sizeof(grad), "%s%s", implicit ? "implicit" : "finite differences",
             smooth ? ", rollouts at kappa" : "");
    printf("| %s | %s | %g | %s | %d | %.4g | %.4g | %.2e | %s | %.2f |\n", r->task, r->solver,
           r->h, grad, res.iterations, res.cost0, res.cost, res.violation,
           success ? "yes" : "no", res.seconds);
  }
  free(U);
  free(w);
  mc_deleteData(d);
  mc_deleteModel(m);
  return rc;
}


int main(int argc, char** argv) {
  const char* task = "all";
  const char* corpus = "/work/shared/corpus";
  int maxiter = 200;
  double kappa = 1e-4;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--task") && i + 1 < argc) {
      task = argv[++i];
    } else if (!strcmp(argv[i], "--maxiter") && i + 1 < argc) {
      maxiter = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--corpus") && i + 1 < argc) {
      corpus = argv[++i];
    } else if (!strcmp(argv[i], "--kappa") && i + 1 < argc) {
      kappa = atof(argv[++i]);
    } else {
      fprintf(stderr, "usage: moduco-ilqr [--task box-right|box-up|hopper|all] [--maxiter N] "
              "[--corpus DIR] [--kappa K]\n");
      return 2;
    }
  }
  if (maxiter < 1) {
    fprintf(stderr, "moduco-ilqr: --maxiter must be a positive count\n");
    return 2;
  }
  if (!(kappa >= 0) || !isfinite(kappa)) {
    fprintf(stderr, "moduco-ilqr: --kappa must be zero or positive\n");
    return 2;
  }
  char boxPath[1024], hopperPath[1024];
  snprintf(boxPath, sizeof(boxPath), "%s/benchmarks/ilqr/box_planar.xml", MODUCO_SOURCE_DIR);
  snprintf(hopperPath, sizeof(hopperPath), "%s/dm_hopper/hopper.xml", corpus);
  printf("kappa %g\n\n", kappa);
  printf("| task | solver | h | gradients | iterations | initial cost | final cost | goal "
         "violation (m) | success (<= 1e-2) | wall time (s) |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|\n");
  int failed = 0, ran = 0;
  for (size_t i = 0; i < sizeof(kRuns) / sizeof(kRuns[0]); i++) {
    if (!strcmp(task, "all") || !strcmp(task, kRuns[i].task)) {
      failed += runOne(kRuns + i, boxPath, hopperPath, maxiter, 0, 0, kappa) != 0;
      if (!strcmp(kRuns[i].solver, "ipm")) {
        failed += runOne(kRuns + i, boxPath, hopperPath, maxiter, 1, 0, kappa) != 0;
        failed += runOne(kRuns + i, boxPath, hopperPath, maxiter, 0, 1, kappa) != 0;
        failed += runOne(kRuns + i, boxPath, hopperPath, maxiter, 1, 1, kappa) != 0;
      }
      ran++;
    }
  }
  if (!ran) {
    fprintf(stderr, "moduco-ilqr: unknown task '%s'\n", task);
    return 2;
  }
  return failed ? 1 : 0;
}
