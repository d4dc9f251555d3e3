// The solver contract (docs/plugins.md): what the core fills before a solver plugin runs, the
// host products with J, efc_AR from host->makeAR, mc_solverResidual, and two third-party solvers
// built in-tree (the "test.entry" fixture, which checks the inputs on entry, and the example PGS
// of sdk/examples/solver-pgs), on dense and row-sparse Jacobians.
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "engine/io.h"
#include "engine/solver_contract.h"
#include "plugin/registry.h"

// three boxes stacked on a plane, a hinge with a limit and friction loss, and a tendon-free
// equality: every row type but elliptic cones (selected per test)
static const char* kScene =
  "<mujoco>\n"
  "  <option timestep='0.005' solver='%s' jacobian='%s' cone='%s' iterations='%d'\n"
  "          tolerance='%g' noslip_iterations='0'/>\n"
  "  <worldbody>\n"
  "    <geom type='plane' size='2 2 0.1'/>\n"
  "    <body pos='0 0 0.1'><freejoint/><geom type='box' size='0.1 0.1 0.1'/></body>\n"
  "    <body pos='0.01 0 0.3'><freejoint/><geom type='box' size='0.1 0.1 0.1'/></body>\n"
  "    <body pos='0 0.01 0.5'><freejoint/><geom type='box' size='0.1 0.1 0.1'/></body>\n"
  "    <body name='arm' pos='1 0 0.5'>\n"
  "      <joint name='h' type='hinge' axis='0 1 0' limited='true' range='-0.2 0.2'\n"
  "             frictionloss='0.05'/>\n"
  "      <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.04'/>\n"
  "      <body pos='0.3 0 0'>\n"
  "        <joint name='h2' type='hinge' axis='0 1 0'/>\n"
  "        <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.04'/>\n"
  "      </body>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "  <equality><joint joint1='h2' polycoef='0.1 0 0 0 0'/></equality>\n"
  "</mujoco>\n";

static const char* const kJac[2] = {"dense", "sparse"};


static void quiet(void* user, const char* message) {
  (void)user;
  (void)message;
}


static void setup(void) {
  setenv("MODUCO_PLUGIN_PATH", MODUCO_BUILD_PLUGIN_DIR ":" MODUCO_SOLVER_FIXTURE_DIR, 1);
  mc_setMessageHandler(quiet, NULL);
}


TestSuite(solver_contract, .init = setup);


static mcModel* load(const char* solver, const char* jacobian, const char* cone, int iterations,
                     double tolerance) {
  char xml[4096], error[1000];
  snprintf(xml, sizeof(xml), kScene, solver, jacobian, cone, iterations, tolerance);
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  cr_assert_not_null(m, "%s: %s", solver, error);
  return m;
}


// the model and data after nstep steps and one forward
static mcData* settle(const mcModel* m, int nstep) {
  mcData* d = mc_makeData(m);
  cr_assert_not_null(d);
  for (int i = 0; i < nstep; i++) {
    mc_step(m, d);
  }
  mc_forward(m, d);
  cr_assert_gt(d->nefc, 10, "the scene has too few rows (%d)", d->nefc);
  return d;
}


// dense copy of efc_J (nefc x nv) through mc_rowJ
static double* denseJ(const mcModel* m, const mcData* d) {
  int nv = m->nv;
  double* J = calloc((size_t)d->nefc * nv + 1, sizeof(double));
  cr_assert_not_null(J);
  for (int i = 0; i < d->nefc; i++) {
    const int* col;
    const mcNum* val;
    int n = mc_rowJ(m, d, i, &col, &val);
    for (int k = 0; k < n; k++) {
      cr_assert(!col || k == 0 || col[k] > col[k - 1], "row %d: columns not ascending", i);
      J[(size_t)i * nv + (col ? col[k] : k)] = val[k];
    }
  }
  return J;
}


//---------------------------------- host table and products ---------------------------------------

Test(solver_contract, host_table) {
  const mcpHost* host = mcp_host();
  cr_assert_eq(host->mulJ, mc_mulJ);
  cr_assert_eq(host->mulJT, mc_mulJT);
  cr_assert_eq(host->rowJ, mc_rowJ);
  cr_assert_eq(host->makeAR, mc_makeAR);
}


Test(solver_contract, layouts_and_products) {
  for (int s = 0; s < 2; s++) {
    mcModel* m = load("PGS", kJac[s], "pyramidal", 50, 1e-8);
    mcData* d = settle(m, 20);
    int nv = m->nv, nefc = d->nefc;

    // the documented layouts: dense efc_J, or efc_J NULL and the row-sparse arrays
    if (s == 0) {
      cr_assert_not_null(d->efc_J);
      cr_assert_null(d->efc_J_rownnz);
    } else {
      cr_assert_null(d->efc_J, "sparse Jacobian: efc_J must be NULL");
      cr_assert_not_null(d->efc_J_rownnz);
    }
    const int* col;
    const mcNum* val;
    cr_assert_eq(mc_rowJ(m, d, -1, &col, &val), 0);
    cr_assert_eq(mc_rowJ(m, d, nefc, &col, &val), 0);
    cr_assert(col == NULL && val == NULL);

    // J x and J' y against the dense copy
    double* J = denseJ(m, d);
    double* x = calloc((size_t)nv + nefc, sizeof(double));
    double* y = calloc((size_t)nv + nefc, sizeof(double));
    for (int k = 0; k < nv; k++) {
      x[k] = sin(1.0 + k);
    }
    mc_mulJ(m, d, y, x);
    for (int i = 0; i < nefc; i++) {
      double ref = 0;
      for (int k = 0; k < nv; k++) {
        ref += J[(size_t)i * nv + k] * x[k];
      }
      cr_assert(fabs(y[i] - ref) <= 1e-12 * (1 + fabs(ref)), "%s J x row %d", kJac[s], i);
      y[i] = cos(2.0 + i);
    }
    mc_mulJT(m, d, x, y);
    for (int k = 0; k < nv; k++) {
      double ref = 0;
      for (int i = 0; i < nefc; i++) {
        ref += J[(size_t)i * nv + k] * y[i];
      }
      cr_assert(fabs(x[k] - ref) <= 1e-12 * (1 + fabs(ref)), "%s J' y col %d", kJac[s], k);
    }
    free(J);
    free(x);
    free(y);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


//---------------------------------- efc_AR --------------------------------------------------------

// value of AR at (i, j) from either layout; 0 outside the sparse pattern (*in set to 0)
static double entryAR(const mcData* d, int i, int j, int* in) {
  *in = 1;
  if (!d->efc_AR_rownnz) {
    return d->efc_AR[(size_t)i * d->nefc + j];
  }
  for (int k = 0; k < d->efc_AR_rownnz[i]; k++) {
    if (d->efc_AR_colind[d->efc_AR_rowadr[i] + k] == j) {
      return d->efc_AR[d->efc_AR_rowadr[i] + k];
    }
  }
  *in = 0;
  return 0;
}


static void checkAR(const mcModel* m, mcData* d, const char* what) {
  int nv = m->nv, nefc = d->nefc;

  // explicit J inv(M) J' + diag(R): X = inv(M) J' column by column
  double* J = denseJ(m, d);
  double* X = calloc((size_t)nefc * nv + 1, sizeof(double));
  cr_assert_not_null(X);
  for (int i = 0; i < nefc; i++) {
    mc_solveM(m, d, X + (size_t)i * nv, J + (size_t)i * nv, 1);
  }
  double scale = 0;
  for (int i = 0; i < nefc; i++) {
    scale = fmax(scale, fabs(d->efc_R[i]));
  }
  for (int i = 0; i < nefc; i++) {
    if (d->efc_AR_rownnz) {
      const int* c = d->efc_AR_colind + d->efc_AR_rowadr[i];
      for (int k = 1; k < d->efc_AR_rownnz[i]; k++) {
        cr_assert_gt(c[k], c[k - 1], "%s: AR row %d columns not ascending", what, i);
      }
    }
    for (int j = 0; j < nefc; j++) {
      double ref = (i == j) ? d->efc_R[i] : 0;
      for (int k = 0; k < nv; k++) {
        ref += J[(size_t)i * nv + k] * X[(size_t)j * nv + k];
      }
      int in, inT;
      double v = entryAR(d, i, j, &in), vT = entryAR(d, j, i, &inT);
      cr_assert_eq(in, inT, "%s: AR pattern not symmetric at %d %d", what, i, j);
      cr_assert(in || fabs(ref) <= 1e-12 * (1 + scale), "%s: AR %d %d = %.17g outside the "
                "pattern", what, i, j, ref);
      cr_assert(fabs(v - ref) <= 1e-10 * (1 + fabs(ref)), "%s: AR %d %d %.17g vs %.17g", what,
                i, j, v, ref);
      cr_assert_eq(v, vT, "%s: AR not symmetric at %d %d", what, i, j);
    }
  }
  free(J);
  free(X);
}


Test(solver_contract, makeAR_dense_and_sparse) {
  for (int s = 0; s < 2; s++) {
    for (int c = 0; c < 2; c++) {
      mcModel* m = load("PGS", kJac[s], c ? "elliptic" : "pyramidal", 50, 1e-8);
      mcData* d = settle(m, 20);
      char what[64];
      snprintf(what, sizeof(what), "%s %s", kJac[s], c ? "elliptic" : "pyramidal");
      cr_assert_null(d->efc_AR, "%s: efc_AR must be NULL until requested", what);
      cr_assert_eq(mc_makeAR(m, d), 0, "%s: makeAR failed", what);
      cr_assert_not_null(d->efc_AR);
      cr_assert_eq(d->efc_AR_rownnz != NULL, s == 1, "%s: AR layout must follow efc_J", what);
      checkAR(m, d, what);

      // a second request reuses the storage
      size_t parena = d->parena;
      mcNum* ar = d->efc_AR;
      cr_assert_eq(mc_makeAR(m, d), 0);
      cr_assert_eq(d->parena, parena, "%s: second makeAR allocated again", what);
      cr_assert_eq(d->efc_AR, ar);

      // the next assembly drops it; a copy of the data carries it rebased
      mcData* d2 = mc_copyData(NULL, m, d);
      cr_assert_not_null(d2);
      cr_assert_eq((char*)d2->efc_AR - (char*)d2->arena, (char*)d->efc_AR - (char*)d->arena);
      cr_assert_eq(d2->efc_AR[0], d->efc_AR[0]);
      mc_forward(m, d);
      cr_assert_null(d->efc_AR, "%s: efc_AR survived a new assembly", what);
      cr_assert_null(d->efc_AR_rownnz);
      mc_deleteData(d2);
      mc_deleteData(d);
      mc_deleteModel(m);
    }
  }
}


Test(solver_contract, makeAR_full_arena) {
  for (int s = 0; s < 2; s++) {
    mcModel* m = load("PGS", kJac[s], "pyramidal", 50, 1e-8);
    mcData* d = settle(m, 20);

    // take the free space between the arena and the stack, leaving a little
    size_t free = d->pstack - d->parena;
    cr_assert_not_null(mci_arenaAlloc(d, free - 4096, 16));
    int before = d->warning[mcWARN_CNSTRFULL].number;
    cr_assert_eq(mc_makeAR(m, d), -1, "%s: makeAR must fail in a full arena", kJac[s]);
    cr_assert_null(d->efc_AR);
    cr_assert_null(d->efc_AR_rownnz);
    cr_assert_gt(d->warning[mcWARN_CNSTRFULL].number, before, "no warning counted");
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


//---------------------------------- third-party solvers -------------------------------------------

typedef struct {
  int calls, nefc, sparse;
  double bdev, rdev, mudev, jdev;
} EntryReport;


Test(solver_contract, inputs_filled_before_the_solver) {
  for (int s = 0; s < 2; s++) {
    for (int c = 0; c < 2; c++) {
      mcModel* m = load("test.entry", kJac[s], c ? "elliptic" : "pyramidal", 50, 1e-8);
      cr_assert_str_eq(((const mcpHeader*)m->solver)->name, "test.entry");

      // the fixture library is loaded by now; its report is reset per configuration
      void* h = dlopen(MODUCO_SOLVER_FIXTURE_DIR "/fixture-solver-entry.so",
                       RTLD_NOW | RTLD_NOLOAD);
      cr_assert_not_null(h, "fixture not loaded: %s", dlerror());
      EntryReport* r = dlsym(h, "g_entry_report");
      cr_assert_not_null(r);
      memset(r, 0, sizeof(*r));

      // the first forward of fresh data: efc_b in a zeroed arena unless the core fills it
      mcData* d = mc_makeData(m);
      mc_forward(m, d);
      for (int i = 0; i < 3; i++) {
        mc_step(m, d);
      }

      // only the acceleration stage again, with a new applied force: efc_b follows qacc_smooth
      for (int k = 0; k < m->nv; k++) {
        d->qfrc_applied[k] = 5 * sin(1.0 + k);
      }
      mc_forwardSkip(m, d, mcSTAGE_VEL, 0);
      cr_assert_geq(r->calls, 5);
      cr_assert_gt(r->nefc, 10);
      cr_assert_eq(r->sparse, s, "rowJ layout");
      cr_assert_leq(r->bdev, 1e-12, "%s: efc_b is not J qacc_smooth - aref on entry (%.3g)",
                    kJac[s], r->bdev);
      cr_assert_leq(r->rdev, 1e-12, "efc_R/efc_D");
      cr_assert_leq(r->mudev, 1e-12, "contact mu not set before the solver");
      cr_assert_leq(r->jdev, 1e-12, "host->mulJ/mulJT disagree with rowJ");
      dlclose(h);
      mc_deleteData(d);
      mc_deleteModel(m);
    }
  }
}


// relative difference, scaled by max(1, |reference|)
static double relErr(const mcNum* a, const mcNum* b, int n) {
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double e = fabs(a[i] - b[i]) / fmax(1, fabs(b[i]));
    worst = !(e <= worst) ? e : worst;
  }
  return worst;
}


Test(solver_contract, example_pgs_matches_builtin_pgs) {
  for (int s = 0; s < 2; s++) {
    // settle with the built-in PGS, then solve the same state with both solvers
    mcModel* ref = load("PGS", kJac[s], "pyramidal", 1000, 1e-15);
    mcModel* ex = load("example.pgs", kJac[s], "pyramidal", 1000, 1e-15);
    cr_assert_str_eq(((const mcpHeader*)ex->solver)->name, "example.pgs");
    mcData* dr = settle(ref, 100);
    mcData* de = mc_makeData(ex);
    int n = mc_stateSize(ref, mcSTATE_PHYSICS);
    mcNum* state = calloc((size_t)n, sizeof(mcNum));
    mc_getState(ref, dr, state, mcSTATE_PHYSICS);
    mc_setState(ex, de, state, mcSTATE_PHYSICS);
    mc_forward(ex, de);
    cr_assert_eq(de->nefc, dr->nefc);
    cr_assert_gt(de->solver_iter, 0, "example.pgs did not run");
    double ef = relErr(de->efc_force, dr->efc_force, dr->nefc);
    double ea = relErr(de->qacc, dr->qacc, ref->nv);
    cr_assert_leq(ef, 1e-4, "%s: efc_force differs by %.3g", kJac[s], ef);
    cr_assert_leq(ea, 1e-4, "%s: qacc differs by %.3g", kJac[s], ea);
    cr_assert_eq(de->efc_AR_rownnz != NULL, s == 1, "example used the wrong AR layout");

    // and over a trajectory
    for (int i = 0; i < 100; i++) {
      mc_step(ref, dr);
      mc_step(ex, de);
    }
    double eq = relErr(de->qpos, dr->qpos, ref->nq);
    cr_assert_leq(eq, 1e-4, "%s: qpos after 100 steps differs by %.3g", kJac[s], eq);
    free(state);
    mc_deleteData(dr);
    mc_deleteData(de);
    mc_deleteModel(ref);
    mc_deleteModel(ex);
  }
}


// the scene with example.pgs configured in the model file (relaxation NULL: not configured),
// written to a temporary file so that errors carry file:line; NULL with the message in error
static char g_file[64];

static mcModel* loadRelaxed(const char* relaxation, const char* jacobian, char* error,
                            int error_sz) {
  char scene[4096], xml[4608];
  snprintf(scene, sizeof(scene), kScene, "example.pgs", jacobian, "pyramidal", 1000, 1e-15);
  if (relaxation) {
    snprintf(xml, sizeof(xml), "<mujoco>\n<extension>\n  <plugin plugin=\"example.pgs\">\n"
             "    <config key=\"relaxation\" value=\"%s\"/>\n  </plugin>\n</extension>\n%s",
             relaxation, scene + strlen("<mujoco>\n"));
  } else {
    snprintf(xml, sizeof(xml), "%s", scene);
  }
  snprintf(g_file, sizeof(g_file), "/tmp/moduco_relaxation_XXXXXX.xml");
  int fd = mkstemps(g_file, 4);
  cr_assert_geq(fd, 0);
  FILE* f = fdopen(fd, "w");
  fputs(xml, f);
  fclose(f);
  mcModel* m = mc_loadXML(g_file, error, error_sz);
  unlink(g_file);
  return m;
}


// the example solves the built-in PGS's settled state; return its iterations, forces in f
static int solveAt(const mcModel* ex, const mcModel* ref, const mcData* dr, mcNum* f) {
  mcData* de = mc_makeData(ex);
  int n = mc_stateSize(ref, mcSTATE_PHYSICS);
  mcNum* state = calloc((size_t)n, sizeof(mcNum));
  mc_getState(ref, dr, state, mcSTATE_PHYSICS);
  mc_setState(ex, de, state, mcSTATE_PHYSICS);
  mc_forward(ex, de);
  cr_assert_eq(de->nefc, dr->nefc);
  memcpy(f, de->efc_force, sizeof(mcNum) * (size_t)de->nefc);
  int iter = de->solver_iter;
  free(state);
  mc_deleteData(de);
  return iter;
}


Test(solver_contract, example_pgs_reads_relaxation_from_the_model) {
  for (int s = 0; s < 2; s++) {
    char error[1024] = "";
    mcModel* ref = load("PGS", kJac[s], "pyramidal", 1000, 1e-15);
    mcData* dr = settle(ref, 100);
    mcModel* plain = loadRelaxed(NULL, kJac[s], error, sizeof(error));
    cr_assert_not_null(plain, "%s", error);
    cr_assert_eq(mcp_host()->config(plain, plain->plugin_solver, "relaxation", NULL)[0], 1.0);
    mcNum* f1 = calloc((size_t)dr->nefc, sizeof(mcNum));
    mcNum* fw = calloc((size_t)dr->nefc, sizeof(mcNum));
    int it1 = solveAt(plain, ref, dr, f1);
    double e1 = relErr(f1, dr->efc_force, dr->nefc);
    cr_expect_leq(e1, 1e-4, "%s: w 1.0 differs from pgs by %.3g", kJac[s], e1);

    // under- and over-relaxed
    const char* value[2] = {"0.8", "1.5"};
    for (int k = 0; k < 2; k++) {
      mcModel* relaxed = loadRelaxed(value[k], kJac[s], error, sizeof(error));
      cr_assert_not_null(relaxed, "%s", error);

      // the value reaches the solver's instance
      const mcpHost* host = mcp_host();
      int inst = host->instance(relaxed, &relaxed->solver->hdr);
      cr_assert_eq(inst, relaxed->plugin_solver);
      int count = 0;
      const mcNum* w = host->config(relaxed, inst, "relaxation", &count);
      cr_assert(w && count == 1 && w[0] == atof(value[k]), "relaxation not stored");

      // and changes the sweep: another iteration count, the same forces to PGS's tolerance
      int itw = solveAt(relaxed, ref, dr, fw);
      double ew = relErr(fw, dr->efc_force, dr->nefc);
      fprintf(stderr, "[relaxation] %s: w 1.0 %d iterations, w %s %d iterations (force "
              "difference to pgs %.1e, %.1e)\n", kJac[s], it1, value[k], itw, e1, ew);
      cr_expect_neq(it1, itw, "%s: relaxation %s did not change the sweep (%d iterations)",
                    kJac[s], value[k], itw);
      cr_expect_leq(ew, 1e-4, "%s: w %s differs from pgs by %.3g", kJac[s], value[k], ew);
      mc_deleteModel(relaxed);
    }
    free(f1);
    free(fw);
    mc_deleteData(dr);
    mc_deleteModel(ref);
    mc_deleteModel(plain);
  }
}


Test(solver_contract, example_pgs_refuses_bad_relaxation) {
  const char* bad[][2] = {
    {"3", "out of the range"}, {"2", "out of the range"}, {"0", "out of the range"},
    {"-1", "out of the range"}, {"fast", "not a finite number"}, {"1 1", "expected 1 value"},
  };
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
    char error[1024] = "", where[96];
    mcModel* m = loadRelaxed(bad[k][0], "dense", error, sizeof(error));
    cr_expect_null(m, "relaxation '%s' was accepted", bad[k][0]);
    mc_deleteModel(m);
    snprintf(where, sizeof(where), "%s:4:", g_file);   // the <config> line
    cr_expect(strstr(error, where) == error, "'%s' does not start with '%s'", error, where);
    cr_expect(strstr(error, "example.pgs") && strstr(error, "relaxation") &&
              strstr(error, bad[k][1]), "'%s': %s", bad[k][0], error);
  }

  // a stray attribute on <config> is refused too
  char error[1024] = "";
  cr_expect_null(loadRelaxed("1\" extra=\"1", "dense", error, sizeof(error)));
}


//---------------------------------- mc_solverResidual ---------------------------------------------

static double residualOf(const char* solver, const char* jacobian, int iterations, double tol,
                         mcNum parts[3]) {
  mcModel* m = load(solver, jacobian, "pyramidal", iterations, tol);
  mcData* d = settle(m, 50);
  double r = mc_solverResidual(m, d, parts);
  mc_deleteData(d);
  mc_deleteModel(m);
  return r;
}


Test(solver_contract, residual_ranks_solvers) {
  for (int s = 0; s < 2; s++) {
    mcNum pn[3], pp[3];
    double rn = residualOf("Newton", kJac[s], 100, 1e-12, pn);
    double rp = residualOf("PGS", kJac[s], 2, 1e-12, pp);
    fprintf(stderr, "[residual] %s newton %.2e (%.1e %.1e %.1e), pgs x2 %.2e (%.1e %.1e %.1e)\n",
            kJac[s], rn, pn[0], pn[1], pn[2], rp, pp[0], pp[1], pp[2]);
    cr_assert_eq(rn, pn[0] + pn[1] + pn[2]);
    cr_assert_leq(rn, 1e-8, "%s: newton at tight tolerance has residual %.3g", kJac[s], rn);
    cr_assert_gt(rp, 100 * rn, "%s: pgs with 2 iterations (%.3g) not worse than newton (%.3g)",
                 kJac[s], rp, rn);
    cr_assert_gt(rp, 1e-6);
  }
}


Test(solver_contract, residual_detects_corruption) {
  mcModel* m = load("Newton", "dense", "elliptic", 100, 1e-12);
  mcData* d = settle(m, 50);
  mcNum parts[3];
  double r0 = mc_solverResidual(m, d, parts);
  cr_assert_leq(r0, 1e-8);
  cr_assert_eq(parts[1], 0, "newton's forces are feasible");

  // the residual leaves the solver's output alone
  int nefc = d->nefc;
  mcNum* f = malloc(sizeof(mcNum) * nefc);
  memcpy(f, d->efc_force, sizeof(mcNum) * nefc);
  double again = mc_solverResidual(m, d, NULL);
  cr_assert_eq(again, r0);
  cr_assert_eq(memcmp(f, d->efc_force, sizeof(mcNum) * nefc), 0);

  // the largest force scaled: dynamics and optimality break
  int row = 0;
  for (int i = 1; i < nefc; i++) {
    row = fabs(d->efc_force[i]) > fabs(d->efc_force[row]) ? i : row;
  }
  cr_assert_gt(d->efc_force[row], 0);
  d->efc_force[row] *= 1.5;
  double r1 = mc_solverResidual(m, d, parts);
  cr_assert_gt(parts[0], 1e-4, "dynamics part missed the change (%.3g)", parts[0]);
  cr_assert_gt(parts[2], 1e-4, "optimality part missed the change (%.3g)", parts[2]);
  cr_assert_gt(r1, 1e3 * r0);

  // a force outside its cone or sign: feasibility
  memcpy(d->efc_force, f, sizeof(mcNum) * nefc);
  d->efc_force[row] = -d->efc_force[row];
  mc_solverResidual(m, d, parts);
  cr_assert_gt(parts[1], 1e-4, "feasibility part missed a negative force (%.3g)", parts[1]);
  free(f);
  mc_deleteData(d);
  mc_deleteModel(m);
}
