// moduco-bench-dojo: the Dojo paper's experiments with the hard-contact solver "ipm" next to the
// soft solvers (newton, cg, pgs) with pyramidal and elliptic cones, in one engine on one model.
//   moduco-bench-dojo cone                 box launched at several angles (Fig. 5)
//   moduco-bench-dojo impact [MODEL...]    humanoid drop at h = 0.1, 0.01, 0.001 (Table II)
//   moduco-bench-dojo stability [MODEL]    root height at 20, 50, 100, 500 Hz (Fig. 7)
//   moduco-bench-dojo convergence MODEL... r_vio, kappa_vio per iteration (Figs. 9-10)
//   moduco-bench-dojo cost MODEL...        steps/s and iterations, ipm against newton
//                                          (MODUCO_DOJO_STEPS=N: exactly N steps per arm, for
//                                          instruction counts under callgrind)
//   moduco-bench-dojo unconverged MODEL H T [LIFT]  ipm solves that stop unconverged in a drop
//                                          from LIFT (0.3) m for T s at timestep H
// Prints markdown tables (docs/dojo.md). The ipm arms give every geom a margin and every joint a
// limit margin (the lookahead a hard solver needs to see a contact or limit before it closes:
// a violation already present is removed in one step, which injects energy at large h); the soft
// arms keep the model's margins, since a soft solver treats margin as the distance it pushes
// back at.
// With MODUCO_DOJO_CSV=DIR, cone, stability and convergence also write their series to
// DIR/cone-box.csv, DIR/stability-MODEL.csv and DIR/convergence-MODEL.csv, which benchmarks/dojo/plot.py turns into
// the SVG plots of docs/dojo.md.
// ipm's steps run under the plugin check mode (but in cost's timed loop); the count of steps whose
// solver or integrator results fail it is printed last, and the exit status is 1 if it is not 0.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#define GRAVITY 9.81

typedef struct {
  const char* solver;
  int cone;                       // mctCone (ignored by ipm: always the exact cone)
  const char* label;
} Arm;

static const Arm kArms[] = {
  {"ipm", mcCONE_ELLIPTIC, "ipm (exact cone)"},
  {"newton", mcCONE_PYRAMIDAL, "newton pyramidal"},
  {"newton", mcCONE_ELLIPTIC, "newton elliptic"},
  {"cg", mcCONE_PYRAMIDAL, "cg pyramidal"},
  {"cg", mcCONE_ELLIPTIC, "cg elliptic"},
  {"pgs", mcCONE_PYRAMIDAL, "pgs pyramidal"},
  {"pgs", mcCONE_ELLIPTIC, "pgs elliptic"},
};
#define NARM ((int)(sizeof(kArms) / sizeof(kArms[0])))


// whether arm k runs: all, or those of the solver named by MODUCO_DOJO_SOLVER (quick reruns)
static int armWanted(int k) {
  const char* only = getenv("MODUCO_DOJO_SOLVER");
  return !only || !*only || !strcmp(only, kArms[k].solver);
}


static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);  // CPU time: the machine is shared
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


// load a model file or string and apply an arm: solver, cone, timestep, floor lookahead for ipm
static mcModel* loadArm(const char* file, const char* xml, const Arm* arm, double h,
                        double lookahead) {
  char error[1024] = "";
  mcModel* m = file ? mc_loadXML(file, error, sizeof(error))
                    : mc_loadXMLString(xml, NULL, error, sizeof(error));
  if (!m) {
    fprintf(stderr, "moduco-bench-dojo: %s\n", error);
    exit(1);
  }
  if (mc_setSolver(m, arm->solver, error, sizeof(error))) {
    fprintf(stderr, "moduco-bench-dojo: %s\n", error);
    exit(1);
  }
  m->opt.cone = arm->cone;

  if (h > 0) {
    m->opt.timestep = h;
  }
  if (!strcmp(arm->solver, "ipm")) {
    // the paired integrator: end-of-step collision check and position projection
    if (!getenv("MODUCO_DOJO_EULER") && mc_setIntegrator(m, "ipm-euler", error, sizeof(error))) {
      fprintf(stderr, "moduco-bench-dojo: %s\n", error);
      exit(1);
    }
    for (int g = 0; g < m->ngeom; g++) {
      m->geom_margin[g] = fmax(m->geom_margin[g], lookahead);
    }
    double angle = fmax(0.1, 10 * m->opt.timestep);  // 10 rad/s for one step
    for (int j = 0; j < m->njnt; j++) {
      m->jnt_margin[j] = fmax(m->jnt_margin[j], angle);
    }
  }
  return m;
}


// ipm's results under the plugin check mode (docs/plugins.md section 17) in every experiment
// but the timed cost loop: failures of the solver or the integrator (the collision's are not
// ipm's; their checks run before, so a step whose last failure is a collision's has none of
// ipm's), reported at the end and in the exit status
static long g_ipmCheckFail;

static void stepChecked(const mcModel* m, mcData* d) {
  int ipm = !strcmp(m->solver->hdr.name, "ipm"), nfail = d->warning[mcWARN_PLUGINCHECK].number;
  mc_setPluginCheck(d, ipm);
  mc_step(m, d);
  int who = d->warning[mcWARN_PLUGINCHECK].lastinfo;
  if (d->warning[mcWARN_PLUGINCHECK].number != nfail &&
      (who == mcTIMERPLUGIN_SOLVER || who == mcTIMERPLUGIN_INTEGRATOR)) {
    g_ipmCheckFail++;
  }
}


// raise every free body by dz (a stack is lifted whole, not its first box into the second)
static void liftFree(const mcModel* m, mcData* d, double dz) {
  for (int j = 0; j < m->njnt; j++) {
    if (m->jnt_type[j] == mcJNT_FREE) {
      d->qpos[m->jnt_qposadr[j] + 2] += dz;
    }
  }
}


// smallest distance of the contacts that involve a plane, at the current positions
static double floorDist(const mcModel* m, mcData* d) {
  mc_fwdPosition(m, d);
  double md = INFINITY;
  for (int i = 0; i < d->ncon; i++) {
    const mcContact* c = d->contact + i;
    if (m->geom_type[c->geom1] == mcGEOM_PLANE || m->geom_type[c->geom2] == mcGEOM_PLANE) {
      md = fmin(md, c->dist);
    }
  }
  return md;
}


static int diverged(const mcModel* m, const mcData* d) {
  for (int i = 0; i < m->nv; i++) {
    if (!isfinite(d->qvel[i]) || fabs(d->qvel[i]) > 1e4) {
      return 1;
    }
  }
  return d->warning[mcWARN_BADQACC].number > 0 || d->warning[mcWARN_BADQVEL].number > 0;
}


// DIR/<kind>-<model file name without .xml>.csv open for writing when MODUCO_DOJO_CSV=DIR is set;
// NULL otherwise (or with a message when it cannot be written)
static FILE* csvOpen(const char* kind, const char* file) {
  const char* dir = getenv("MODUCO_DOJO_CSV");
  if (!dir || !*dir) {
    return NULL;
  }
  const char* base = strrchr(file, '/');
  base = base ? base + 1 : file;
  char path[1024];
  int n = snprintf(path, sizeof(path), "%s/%s-%.*s.csv", dir, kind,
                   (int)(strstr(base, ".xml") ? strstr(base, ".xml") - base : (long)strlen(base)),
                   base);
  FILE* f = n > 0 && n < (int)sizeof(path) ? fopen(path, "w") : NULL;
  if (!f) {
    fprintf(stderr, "moduco-bench-dojo: cannot write the series to %s\n", path);
  }
  return f;
}


//---------------------------------- friction cone (Fig. 5) ----------------------------------------

static const char* kBox =
    "<mujoco><option timestep='0.002'/><worldbody>"
    "<geom type='plane' size='50 50 0.1' friction='0.5'/>"
    "<body pos='0 0 0.1'><freejoint/>"
    "<geom type='box' size='0.1 0.1 0.1' mass='1' friction='0.5'/></body>"
    "</worldbody></mujoco>";

static void coneExperiment(void) {
  const double v0 = 2, mu = 0.5, h = 0.002, angles[] = {0, 15, 30, 45, 60};
  double coulomb = v0 * v0 / (2 * mu * GRAVITY);
  printf("## friction cone: 1 kg box (0.1 m half-size), v0 = %g m/s, mu = %g, h = %g\n\n", v0, mu,
         h);
  printf("Coulomb distance v0^2/(2 mu g) = %.4f m. Columns per angle: stop distance error %% / "
         "max lateral drift mm.\n\n", coulomb);
  printf("| solver |");
  for (int a = 0; a < 5; a++) {
    printf(" %g deg |", angles[a]);
  }
  printf("\n|---|");
  for (int a = 0; a < 5; a++) {
    printf("---|");
  }
  printf("\n");
  FILE* csv = csvOpen("cone", "box");
  if (csv) {
    fprintf(csv, "solver,angle,along,lateral\n");
  }
  for (int k = 0; k < NARM; k++) {
    if (!armWanted(k)) {
      continue;
    }
    printf("| %s |", kArms[k].label);
    for (int a = 0; a < 5; a++) {
      mcModel* m = loadArm(NULL, kBox, kArms + k, h, 0.05);
      mcData* d = mc_makeData(m);
      mc_forward(m, d);
      for (int s = 0; s < 50; s++) {  // settle on the floor (soft solvers sink a little)
        stepChecked(m, d);
      }
      double th = angles[a] * M_PI / 180, ux = cos(th), uy = sin(th);
      double x0 = d->qpos[0], y0 = d->qpos[1], drift = 0;
      d->qvel[0] = v0 * ux;
      d->qvel[1] = v0 * uy;
      int n = 0;
      while (n < 3 / h && (n < 5 || hypot(d->qvel[0], d->qvel[1]) > 1e-6)) {
        stepChecked(m, d);
        double lateral = -uy * (d->qpos[0] - x0) + ux * (d->qpos[1] - y0);
        drift = fmax(drift, fabs(lateral));
        if (csv && n % 5 == 0) {
          fprintf(csv, "%s,%g,%.6f,%.6e\n", kArms[k].label, angles[a],
                  ux * (d->qpos[0] - x0) + uy * (d->qpos[1] - y0), lateral);
        }
        n++;
      }
      double along = ux * (d->qpos[0] - x0) + uy * (d->qpos[1] - y0);
      if (diverged(m, d)) {
        printf(" failure |");
      } else {
        printf(" %+.2f%% / %.3g |", 100 * (along - coulomb) / coulomb, 1e3 * drift);
      }
      fflush(stdout);
      mc_deleteData(d);
      mc_deleteModel(m);
    }
    printf("\n");
  }
  if (csv) {
    fclose(csv);
  }
  printf("\n");
}


//---------------------------------- impact (Table II) ---------------------------------------------

static void impactExperiment(const char* file) {
  const double hs[] = {0.1, 0.01, 0.001}, duration = 1.5, lift = 0.3;
  printf("## impact: %s dropped from %g m above its standing pose, %g s\n\n", file, lift,
         duration);
  printf("Worst floor penetration in mm over the run (positive: never touched); failure: "
         "diverged. ipm lookahead: geom margin max(0.05, 3 m/s * h), joint limit margin "
         "max(0.1, 10 rad/s * h).\n\n");
  printf("| solver | h = 0.1 | h = 0.01 | h = 0.001 |\n|---|---|---|---|\n");
  for (int k = 0; k < NARM; k++) {
    if (!armWanted(k)) {
      continue;
    }
    printf("| %s |", kArms[k].label);
    for (int i = 0; i < 3; i++) {
      double h = hs[i];
      mcModel* m = loadArm(file, NULL, kArms + k, h, fmax(0.05, 3 * h));
      mcData* d = mc_makeData(m);
      liftFree(m, d, lift);
      double worst = INFINITY;
      int failed = 0, n = (int)lround(duration / h);
      for (int s = 0; s < n && !failed; s++) {
        stepChecked(m, d);
        failed = diverged(m, d);
        worst = fmin(worst, floorDist(m, d));
      }
      if (failed) {
        printf(" failure |");
      } else {
        printf(" %.3g |", 1e3 * worst);
      }
      fflush(stdout);
      mc_deleteData(d);
      mc_deleteModel(m);
    }
    printf("\n");
  }
  printf("\n");
}


//---------------------------------- low-frequency stability (Fig. 7) -----------------------------

static void stabilityExperiment(const char* file) {
  const double rates[] = {20, 50, 100, 500}, duration = 2, lift = 0.3;
  const int arms[] = {0, 2};  // ipm, newton elliptic
  printf("## stability: %s dropped from %g m, root height (qpos[2], m) over time\n\n", file,
         lift);
  printf("| solver | rate | t = 0.25 | 0.5 | 0.75 | 1.0 | 1.5 | 2.0 |\n");
  printf("|---|---|---|---|---|---|---|---|\n");
  FILE* csv = csvOpen("stability", file);
  if (csv) {
    fprintf(csv, "solver,rate,t,height\n");
  }
  for (int a = 0; a < 2; a++) {
    for (int r = 0; r < 4; r++) {
      double h = 1 / rates[r];
      mcModel* m = loadArm(file, NULL, kArms + arms[a], h, fmax(0.05, 3 * h));
      mcData* d = mc_makeData(m);
      liftFree(m, d, lift);
      printf("| %s | %g Hz |", kArms[arms[a]].label, rates[r]);
      const double marks[] = {0.25, 0.5, 0.75, 1.0, 1.5, 2.0};
      int next = 0, failed = 0;
      for (int s = 1; s <= (int)lround(duration / h) && !failed; s++) {
        stepChecked(m, d);
        failed = diverged(m, d);
        if (csv && !failed) {
          fprintf(csv, "%s,%g,%.6f,%.6f\n", kArms[arms[a]].label, rates[r], s * h, d->qpos[2]);
        }
        while (next < 6 && s * h >= marks[next] - 1e-9) {
          printf(" %.3f |", d->qpos[2]);
          next++;
        }
      }
      for (; next < 6; next++) {
        printf(" failure |");
      }
      printf("\n");
      fflush(stdout);
      mc_deleteData(d);
      mc_deleteModel(m);
    }
  }
  if (csv) {
    fclose(csv);
  }
  printf("\n");
}


//---------------------------------- convergence (Figs. 9-10) --------------------------------------

// ipm on a drop: iterations per step (mean, max, unconverged) and r_vio, kappa_vio per
// iteration of the step that took the most iterations
// (the solver's 'condition' key: the Newton matrix's 1-norm condition number per iteration in
// its plugin_data)
static void convergenceExperiment(const char* file, double h) {
  mcModel* m = loadArm(file, NULL, kArms, h, fmax(0.05, 3 * h));
  int inst = m->plugin_solver;
  m->plugin_config[m->plugin_configadr[inst] + 4] = 1;  // key 'condition'
  mcData* d = mc_makeData(m);
  liftFree(m, d, 0.3);
  mcSolverStat worst[mcNSOLVER];
  double wcond[mcNSOLVER], maxcond = 0;
  int nworst = 0, wstep = -1, n = (int)lround(1.5 / m->opt.timestep), unconverged = 0;
  long total = 0;
  for (int s = 0; s < n; s++) {
    stepChecked(m, d);
    int it = d->solver_iter;
    const double* cond = (const double*)d->plugin_data[inst];
    total += it;
    unconverged += it >= m->opt.iterations;
    for (int i = 0; i < it && i < mcNSOLVER; i++) {
      maxcond = fmax(maxcond, cond[i]);
    }
    if (it > nworst) {
      nworst = it < mcNSOLVER ? it : mcNSOLVER;
      memcpy(worst, d->solver, sizeof(mcSolverStat) * (size_t)nworst);
      memcpy(wcond, cond, sizeof(double) * (size_t)nworst);
      wstep = s;
    }
  }
  const char* base = strrchr(file, '/');
  printf("### %s, h = %g: %d steps, mean %.1f iterations, max %d (step %d), %d at the limit "
         "(%d), largest condition number %.2e\n\n", base ? base + 1 : file, m->opt.timestep, n,
         (double)total / n, nworst, wstep, unconverged, m->opt.iterations, maxcond);
  printf("| iteration | r_vio | kappa_vio | alpha | cond_1(K) |\n|---|---|---|---|---|\n");
  FILE* csv = csvOpen("convergence", file);
  if (csv) {
    fprintf(csv, "iteration,r_vio,kappa_vio,alpha,cond\n");
  }
  for (int i = 0; i < nworst; i++) {
    printf("| %d | %.2e | %.2e | %.3f | %.2e |\n", i + 1, worst[i].improvement,
           worst[i].gradient, worst[i].lineslope, wcond[i]);
    if (csv) {
      fprintf(csv, "%d,%.6e,%.6e,%.6f,%.6e\n", i + 1, worst[i].improvement, worst[i].gradient,
              worst[i].lineslope, wcond[i]);
    }
  }
  if (csv) {
    fclose(csv);
  }
  printf("\n");
  mc_deleteData(d);
  mc_deleteModel(m);
}


//---------------------------------- cost ----------------------------------------------------------

static void costExperiment(int nfile, char** files) {
  printf("## cost: steps/s and mean solver iterations, ipm against newton (elliptic), "
         "model timestep\n\n");
  printf("| model | ipm steps/s | ipm iter | newton steps/s | newton iter | newton/ipm |\n");
  printf("|---|---|---|---|---|---|\n");
  for (int f = 0; f < nfile; f++) {
    double rate[2], iter[2];
    const Arm arms[2] = {kArms[0], kArms[2]};
    for (int k = 0; k < 2; k++) {
      const char* only = getenv("MODUCO_DOJO_SOLVER");  // one arm (callgrind per solver)
      if (only && *only && strcmp(only, arms[k].solver)) {
        rate[k] = iter[k] = NAN;
        continue;
      }
      mcModel* m = loadArm(files[f], NULL, arms + k, 0, 0.05);
      mcData* d = mc_makeData(m);
      int n = 0;
      long its = 0;
      const char* fixed = getenv("MODUCO_DOJO_STEPS");
      int nfix = fixed ? atoi(fixed) : 0;
      double t0 = now();
      while (nfix > 0 ? n < nfix : now() - t0 < 2 && n < 200000) {
        mc_step(m, d);
        its += d->solver_iter;
        n++;
      }
      rate[k] = n / (now() - t0);
      iter[k] = (double)its / n;
      mc_deleteData(d);
      mc_deleteModel(m);
    }
    const char* base = strrchr(files[f], '/');
    printf("| %s | %.0f | %.1f | %.0f | %.1f | %.1f |\n", base ? base + 1 : files[f], rate[0],
           iter[0], rate[1], iter[1], rate[1] / rate[0]);
    fflush(stdout);
  }
  printf("\n");
}


//---------------------------------- unconverged solves -------------------------------------------

// the H1 / humanoid drop of the impact experiment under ipm at one timestep: solves that stop
// unconverged (warning not_converged), mean and largest iterations
static void unconvergedExperiment(const char* file, double h, double duration, double lift) {
  mcModel* m = loadArm(file, NULL, kArms, h, fmax(0.05, 3 * h));
  mcData* d = mc_makeData(m);
  liftFree(m, d, lift);
  int n = (int)lround(duration / h), inst = m->plugin_solver, maxit = 0;
  long its = 0;
  for (int s = 0; s < n; s++) {
    stepChecked(m, d);
    its += d->solver_iter;
    maxit = d->solver_iter > maxit ? d->solver_iter : maxit;
  }
  int bad = inst >= 0 ? d->plugin_warncount[m->plugin_warnadr[inst]] : -1;
  printf("%s h = %g, lift %g m, %d steps: %d unconverged, mean %.1f iterations, max %d\n", file, h,
         lift, n, bad,
         (double)its / n, maxit);
  mc_deleteData(d);
  mc_deleteModel(m);
}


int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: moduco-bench-dojo cone | impact [MODEL] | stability [MODEL] | "
            "convergence MODEL... | cost MODEL... | unconverged MODEL H T [LIFT]\n");
    return 2;
  }
  if (!strcmp(argv[1], "cone")) {
    coneExperiment();
  } else if (!strcmp(argv[1], "impact")) {
    if (argc == 2) {
      impactExperiment(MODUCO_SOURCE_DIR "/models/humanoid.xml");
    }
    for (int i = 2; i < argc; i++) {
      impactExperiment(argv[i]);
    }
  } else if (!strcmp(argv[1], "stability")) {
    stabilityExperiment(argc > 2 ? argv[2] : MODUCO_SOURCE_DIR "/models/humanoid.xml");
  } else if (!strcmp(argv[1], "convergence") && argc > 2) {
    for (int i = 2; i < argc; i++) {
      convergenceExperiment(argv[i], 0);
    }
  } else if (!strcmp(argv[1], "unconverged") && (argc == 5 || argc == 6)) {
    unconvergedExperiment(argv[2], atof(argv[3]), atof(argv[4]), argc == 6 ? atof(argv[5]) : 0.3);
  } else if (!strcmp(argv[1], "cost") && argc > 2) {
    costExperiment(argc - 2, argv + 2);
  } else {
    fprintf(stderr, "moduco-bench-dojo: unknown experiment '%s'\n", argv[1]);
    return 2;
  }
  printf("plugin check on ipm's results (solver and integrator): %ld failing steps\n",
         g_ipmCheckFail);
  return g_ipmCheckFail ? 1 : 0;
}
