// mcd_transitionImplicit and the ipm solver's derivative entry (ABI 1.5): agreement with centered
// finite differences of the ipm step where those are smooth (no contact, equality rows, a box
// sliding or held by friction with the solution relaxed to the same kappa), informative gradients
// where finite differences are flat (static friction at a small kappa), purity, refusals.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "plugin/registry.h"

static void quiet(void* user, const char* message) {
  (void)user;
  (void)message;
}


// the planar box of benchmarks/ilqr (slide x, slide z, hinge y; 1 kg; friction 0.5) under ipm with
// the given tolerances, settled on the plane for 30 steps
// recovery 1e10: a violation at the start of the step is removed within the step, so the step is
// smooth in qpos at rest (with ipm's default, recovery 0, the start-of-step gap is clamped at 0 and
// a box resting at the contact sits on the kink, where centered differences are no reference)
static mcModel* planarBox(double kappa_tol, double residual_tol, const char* joint) {
  char xml[2048];
  snprintf(xml, sizeof(xml),
           "<mujoco><option timestep='0.01' cone='elliptic' solver='ipm'/>"
           "<extension><plugin plugin='ipm'><config key='kappa_tol' value='%g'/>"
           "<config key='residual_tol' value='%g'/><config key='recovery' value='1e10'/>"
           "</plugin></extension><worldbody>"
           "<geom type='plane' size='5 5 0.1' friction='0.5' margin='0.01'/><body pos='0 0 0.1'>%s"
           "<geom type='box' size='0.1 0.1 0.1' mass='1' friction='0.5' margin='0.01'/></body></worldbody>"
           "<actuator><motor joint='%s'/>%s</actuator></mujoco>",
           kappa_tol, residual_tol, joint,
           strstr(joint, "free") ? "free" : "x",
           strstr(joint, "free") ? "" : "<motor joint='z'/>");
  char error[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  cr_assert_not_null(m, "%s", error);
  return m;
}

#define PLANAR "<joint name='x' type='slide' axis='1 0 0'/><joint name='z' type='slide' " \
               "axis='0 0 1'/><joint name='ry' type='hinge' axis='0 1 0'/>"
#define FREE "<freejoint name='free'/>"


typedef struct {
  int ndx, nu;
  double *A, *B;
} Mats;

static Mats alloc(const mcModel* m) {
  Mats x = {2 * m->nv + m->na, m->nu, NULL, NULL};
  x.A = calloc((size_t)x.ndx * x.ndx, sizeof(double));
  x.B = calloc((size_t)x.ndx * (x.nu > 0 ? x.nu : 1), sizeof(double));
  return x;
}

static void release(Mats* x) {
  free(x->A);
  free(x->B);
}


// max |got - ref| over n entries relative to the larger of ref's largest entry and floor
static double errOver(const double* got, const double* ref, int n, double floor) {
  double e = 0, s = floor;
  for (int i = 0; i < n; i++) {
    e = fmax(e, fabs(got[i] - ref[i]));
    s = fmax(s, fabs(ref[i]));
  }
  return e / fmax(s, 1e-300);
}

static double relErr(const double* got, const double* ref, int n) {
  return errOver(got, ref, n, 0);
}


// implicit against centered FD at d's state; print and return the worst of A and B (B relative
// to at least h: a 1 kg body's free response to a unit control, since B is ~0 in stiction)
static double compare(const char* what, const mcModel* m, mcData* d, double eps_fd,
                      double kappa) {
  Mats fd = alloc(m), im = alloc(m);
  cr_assert_eq(mcd_transitionFD(m, d, eps_fd, 1, fd.A, fd.B, NULL, NULL), 0, "%s: FD", what);
  cr_assert_eq(mcd_transitionImplicit(m, d, 1e-6, kappa, im.A, im.B), 0, "%s: implicit", what);
  double ea = relErr(im.A, fd.A, fd.ndx * fd.ndx), eb = errOver(im.B, fd.B, fd.ndx * fd.nu, m->opt.timestep);
  double bmax = 0;
  for (int i = 0; i < fd.ndx * fd.nu; i++) {
    bmax = fmax(bmax, fabs(fd.B[i]));
  }
  printf("implicit vs FD: %-40s A %.2e  B %.2e (max |B| %.2e)\n", what, ea, eb, bmax);
  release(&fd);
  release(&im);
  return fmax(ea, eb);
}


// the box resting on the plane after 30 steps under the controls u (scaled per actuator)
static mcData* settled(const mcModel* m, const double* u, double vx) {
  mcData* d = mc_makeData(m);
  for (int t = 0; t < 30; t++) {
    for (int i = 0; i < m->nu; i++) {
      d->ctrl[i] = u[i];
    }
    mc_step(m, d);
  }
  d->qvel[0] += vx;
  return d;
}


// no contact: two hinges coupled by a joint equality, a motor, a filter actuator (an activation
// column), damping (the implicit Euler damping path), the solver's equality rows only; under
// each single-stage integrator
Test(implicit, contact_free_equality_matches_fd) {
  const char* integrators[] = {"Euler", "implicit", "implicitfast"};
  for (int k = 0; k < 3; k++) {
    char xml[2048], error[1024] = "";
    snprintf(xml, sizeof(xml),
      "<mujoco><option timestep='0.01' solver='ipm' integrator='%s'/><worldbody><body>"
      "<joint name='a' type='hinge' axis='0 1 0' damping='0.3'/>"
      "<geom type='capsule' fromto='0 0 0 0.5 0 0' size='0.05'/><body pos='0.5 0 0'>"
      "<joint name='b' type='hinge' axis='0 1 0'/><geom type='capsule' fromto='0 0 0 0.5 0 0' "
      "size='0.05'/></body></body><body pos='0 1 0'><joint name='c' type='slide' axis='0 0 1'/>"
      "<geom type='sphere' size='0.1'/></body></worldbody>"
      "<equality><joint joint1='a' joint2='b' polycoef='0 0.5 0 0 0'/></equality>"
      "<actuator><motor joint='a'/><velocity joint='c' kv='2'/>"
      "<general joint='b' dyntype='filter' dynprm='0.1' gainprm='1'/></actuator></mujoco>",
      integrators[k]);
    mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
    cr_assert_not_null(m, "%s", error);
    mcData* d = mc_makeData(m);
    d->qpos[0] = 0.3, d->qvel[0] = 0.7, d->qvel[2] = -0.2, d->ctrl[0] = 0.4, d->ctrl[1] = 3;
    d->ctrl[2] = -0.5, d->act[0] = 0.2;
    mc_step(m, d);
    cr_assert_gt(d->nefc, 0);
    cr_assert_eq(m->na, 1);
    char what[96];
    snprintf(what, sizeof(what), "two hinges with a joint equality (%s)", integrators[k]);
    double e = compare(what, m, d, 1e-6, 0);
    cr_expect_lt(e, 1e-5, "%s: contact-free implicit gradients off by %g", what, e);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


// with contact, at the solver's own kappa (kappa_tol 1e-8, derivative at its floor): a box held by
// static friction (2 N push), sliding (8 N push, moving at 1 m/s), pulled up, and a free box.
// The reference differences use eps 1e-4: at 1e-6 the stopped solver's round-off (~4e-10 in
// qvel) shows as a spurious 3.6e-4 pitch response of the sliding free box
Test(implicit, contacts_match_fd, .timeout = 120) {
  struct {
    const char* what;
    const char* joint;
    double u[2], vx, tol;
  } cases[] = {
    {"planar box held by friction (2 N)", PLANAR, {2, 0}, 0, 5e-4},
    {"planar box sliding (8 N, 1 m/s)", PLANAR, {8, 0}, 1, 5e-4},
    {"planar box pulled up (0 N, 5 N)", PLANAR, {0, 5}, 0, 5e-4},
    {"free box held by friction (2 N)", FREE, {2, 0}, 0, 5e-4},
    {"free box sliding (8 N, 1 m/s)", FREE, {8, 0}, 1, 5e-4},
  };
  for (int k = 0; k < (int)(sizeof(cases) / sizeof(cases[0])); k++) {
    mcModel* m = planarBox(1e-8, 1e-12, cases[k].joint);
    mcData* d = settled(m, cases[k].u, cases[k].vx);
    cr_assert_gt(d->ncon, 0, "%s: no contact", cases[k].what);
    double e = compare(cases[k].what, m, d, 1e-4, 0);
    cr_expect_lt(e, cases[k].tol, "%s: implicit off by %g", cases[k].what, e);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


// the solver entry itself at kappa = 1e-4 (strong smoothing): its Dfrc and Dvel against centered
// differences of the relaxed solution it reports (frc) when qfrc_applied or qvel move

// centered differences, over x[j] moved by +-eps, of the entry's frc and of qfrc_smooth (nv each)
static void centered(const mcModel* m, mcData* d, double kappa, double* x, int j, double eps,
                     double* dfrc, double* dsmooth) {
  int nv = m->nv;
  double fp[64], fm[64], sp[64], sm[64];
  for (int side = 0; side < 2; side++) {
    double h = side ? -eps : eps;
    x[j] += h;
    mc_forward(m, d);
    memcpy(side ? sm : sp, d->qfrc_smooth, sizeof(double) * nv);
    cr_assert_eq(m->solver->derivative(mcp_host(), m, d, kappa, side ? fm : fp, NULL, NULL), 0);
    x[j] -= h;
  }
  for (int i = 0; i < nv; i++) {
    dfrc[i] = (fp[i] - fm[i]) / (2 * eps);
    dsmooth[i] = (sp[i] - sm[i]) / (2 * eps);
  }
}


static double entryError(const mcModel* m, mcData* d, double kappa) {
  int nv = m->nv;
  cr_assert_leq(nv, 8);
  double Df[64], Dv[64], Ff[64], Sv[64], df[8], ds[8];
  mc_forward(m, d);
  cr_assert_eq(m->solver->derivative(mcp_host(), m, d, kappa, NULL, Df, Dv), 0);
  for (int j = 0; j < nv; j++) {
    // a force: only qfrc_smooth moves
    centered(m, d, kappa, d->qfrc_applied, j, 1e-6, df, ds);
    for (int i = 0; i < nv; i++) {
      Ff[i * nv + j] = df[i];
    }
    // a velocity: the total change minus the part through qfrc_smooth
    centered(m, d, kappa, d->qvel, j, 1e-6, df, ds);
    for (int i = 0; i < nv; i++) {
      Sv[i * nv + j] = df[i];
      for (int k = 0; k < nv; k++) {
        Sv[i * nv + j] -= Df[i * nv + k] * ds[k];
      }
    }
  }
  mc_forward(m, d);
  double ef = relErr(Df, Ff, nv * nv), ev = relErr(Dv, Sv, nv * nv);
  printf("solver entry vs FD of its relaxed solution (kappa %g): dfrc %.2e  dvel %.2e\n", kappa,
         ef, ev);
  return fmax(ef, ev);
}


Test(implicit, solver_entry_matches_fd_of_relaxed_solution, .timeout = 120) {
  const char* joints[] = {PLANAR, FREE};
  double pushes[] = {2, 8};
  for (int k = 0; k < 2; k++) {
    for (int p = 0; p < 2; p++) {
      mcModel* m = planarBox(1e-8, 1e-12, joints[k]);
      double u[2] = {pushes[p], 0};
      mcData* d = settled(m, u, p);
      for (int e = 4; e <= 6; e += 2) {
        double err = entryError(m, d, pow(10, -e));
        cr_expect_lt(err, 1e-4, "%s push %g kappa 1e-%d: off by %g", k ? "free" : "planar",
                     pushes[p], e, err);
      }
      mc_deleteData(d);
      mc_deleteModel(m);
    }
  }
}


// static friction at the solver's default kappa: finite differences see nothing (the box
// sticks), the implicit gradient at kappa = 1e-4 says how a push moves the box
Test(implicit, informative_through_static_friction) {
  mcModel* m = planarBox(1e-8, 1e-10, PLANAR);
  double u[2] = {2, 0};
  mcData* d = settled(m, u, 0);
  Mats fd = alloc(m), im = alloc(m);
  cr_assert_eq(mcd_transitionFD(m, d, 1e-6, 1, fd.A, fd.B, NULL, NULL), 0);
  cr_assert_eq(mcd_transitionImplicit(m, d, 1e-6, 1e-4, im.A, im.B), 0);
  int vx = m->nv;                      // row of qvel_x, column of fx
  double gfd = fd.B[vx * fd.nu], gim = im.B[vx * im.nu];
  printf("d vx+ / d fx at 2 N: FD %.3g, implicit (kappa 1e-4) %.3g, free box h/m = %.3g\n",
         gfd, gim, m->opt.timestep);
  cr_expect_lt(fabs(gfd), 1e-6, "FD should be flat in stiction, got %g", gfd);
  cr_expect_gt(gim, 1e-4, "implicit gradient should be informative, got %g", gim);
  cr_expect_lt(gim, m->opt.timestep, "bounded by the free box's h/m, got %g", gim);
  release(&fd);
  release(&im);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// pure: the state is restored, two calls give the same bits, the stack is balanced
Test(implicit, pure_and_repeatable) {
  mcModel* m = planarBox(5e-4, 1e-12, PLANAR);
  double u[2] = {2, 0};
  mcData* d = settled(m, u, 0);
  int ns = mc_stateSize(m, mcSTATE_INTEGRATION);
  double* s0 = malloc(sizeof(double) * ns);
  double* s1 = malloc(sizeof(double) * ns);
  mc_getState(m, d, s0, mcSTATE_INTEGRATION);
  size_t top = d->pstack;
  Mats a = alloc(m), b = alloc(m);
  cr_assert_eq(mcd_transitionImplicit(m, d, 1e-6, 1e-4, a.A, a.B), 0);
  mc_getState(m, d, s1, mcSTATE_INTEGRATION);
  cr_expect(memcmp(s0, s1, sizeof(double) * ns) == 0, "state not restored");
  cr_expect_eq(d->pstack, top, "stack not balanced");
  cr_assert_eq(mcd_transitionImplicit(m, d, 1e-6, 1e-4, b.A, b.B), 0);
  cr_expect(memcmp(a.A, b.A, sizeof(double) * a.ndx * a.ndx) == 0, "A not repeatable");
  cr_expect(memcmp(a.B, b.B, sizeof(double) * a.ndx * a.nu) == 0, "B not repeatable");
  // A alone gives the same A
  Mats c = alloc(m);
  cr_assert_eq(mcd_transitionImplicit(m, d, 1e-6, 1e-4, c.A, NULL), 0);
  cr_expect(memcmp(a.A, c.A, sizeof(double) * a.ndx * a.ndx) == 0, "A alone differs");
  release(&a);
  release(&b);
  release(&c);
  free(s0);
  free(s1);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// refusals: bad arguments, a solver without a derivative with contacts, RK4
Test(implicit, refusals) {
  mc_setMessageHandler(quiet, NULL);
  mcModel* m = planarBox(1e-8, 1e-8, PLANAR);
  double u[2] = {2, 0};
  mcData* d = settled(m, u, 0);
  Mats a = alloc(m);
  cr_expect_eq(mcd_transitionImplicit(NULL, d, 1e-6, 0, a.A, a.B), -1);
  cr_expect_eq(mcd_transitionImplicit(m, d, 0, 0, a.A, a.B), -1);
  cr_expect_eq(mcd_transitionImplicit(m, d, 1e-6, -1, a.A, a.B), -1);
  cr_expect_eq(mcd_transitionImplicit(m, d, 1e-6, NAN, a.A, a.B), -1);
  char error[512] = "";
  cr_assert_eq(mc_setSolver(m, "newton", error, sizeof(error)), 0, "%s", error);
  cr_expect_eq(mcd_transitionImplicit(m, d, 1e-6, 0, a.A, a.B), -1, "newton has no derivative");
  cr_assert_eq(mc_setSolver(m, "ipm", error, sizeof(error)), 0, "%s", error);
  cr_assert_eq(mc_setIntegrator(m, "rk4", error, sizeof(error)), 0, "%s", error);
  cr_expect_eq(mcd_transitionImplicit(m, d, 1e-6, 0, a.A, a.B), -1, "RK4 refused");
  mc_setMessageHandler(NULL, NULL);
  release(&a);
  mc_deleteData(d);
  mc_deleteModel(m);
}


//---------------------------------- sensors, pool, relaxed positions, divergence ------------------

// the planar box with sensors of every stage on a site at its centre: framepos (position),
// velocimeter (velocity), accelerometer (acceleration, from qacc), touch and force (acceleration,
// from the contact force rows)
static mcModel* sensedBox(double kappa_tol) {
  char xml[2560];
  snprintf(xml, sizeof(xml),
           "<mujoco><option timestep='0.01' cone='elliptic' solver='ipm'/>"
           "<extension><plugin plugin='ipm'><config key='kappa_tol' value='%g'/>"
           "<config key='residual_tol' value='1e-12'/><config key='recovery' value='1e10'/>"
           "</plugin></extension><worldbody>"
           "<geom type='plane' size='5 5 0.1' friction='0.5' margin='0.01'/><body pos='0 0 0.1'>"
           PLANAR "<geom type='box' size='0.1 0.1 0.1' mass='1' friction='0.5' margin='0.01'/>"
           "<site name='c' size='0.12'/></body></worldbody>"
           "<actuator><motor joint='x'/><motor joint='z'/></actuator>"
           "<sensor><framepos objtype='site' objname='c'/><velocimeter site='c'/>"
           "<accelerometer site='c'/><touch site='c'/><force site='c'/></sensor></mujoco>",
           kappa_tol);
  char error[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  cr_assert_not_null(m, "%s", error);
  return m;
}

enum { S_POS = 0, S_VEL = 3, S_ACC = 6, S_TOUCH = 9, S_FORCE = 10, S_N = 13 };

typedef struct {
  int ndx, nu, ns;
  double *A, *B, *C, *D;
} Full;

static Full fullAlloc(const mcModel* m) {
  Full f = {2 * m->nv + m->na, m->nu, m->nsensordata, NULL, NULL, NULL, NULL};
  f.A = calloc((size_t)f.ndx * f.ndx, sizeof(double));
  f.B = calloc((size_t)f.ndx * f.nu + 1, sizeof(double));
  f.C = calloc((size_t)f.ns * f.ndx + 1, sizeof(double));
  f.D = calloc((size_t)f.ns * f.nu + 1, sizeof(double));
  return f;
}

static void fullFree(Full* f) {
  free(f->A);
  free(f->B);
  free(f->C);
  free(f->D);
}

static int fullSame(const Full* a, const Full* b) {
  return !memcmp(a->A, b->A, sizeof(double) * a->ndx * a->ndx) &&
         !memcmp(a->B, b->B, sizeof(double) * a->ndx * a->nu) &&
         !memcmp(a->C, b->C, sizeof(double) * a->ns * a->ndx) &&
         !memcmp(a->D, b->D, sizeof(double) * a->ns * a->nu);
}

// worst |got - ref| over sensor rows r0 .. r1-1 of C and D, relative to max(largest ref, floor)
static double sensorRowsErr(const Full* got, const Full* ref, int r0, int r1, double floor) {
  double e = 0, s = floor;
  for (int r = r0; r < r1; r++) {
    for (int c = 0; c < got->ndx; c++) {
      e = fmax(e, fabs(got->C[r * got->ndx + c] - ref->C[r * ref->ndx + c]));
      s = fmax(s, fabs(ref->C[r * ref->ndx + c]));
    }
    for (int c = 0; c < got->nu; c++) {
      e = fmax(e, fabs(got->D[r * got->nu + c] - ref->D[r * ref->nu + c]));
      s = fmax(s, fabs(ref->D[r * ref->nu + c]));
    }
  }
  return e / s;
}


// at the solver's own kappa, the sensor blocks agree with finite differences of the hard step;
// the contact-force sensors (touch, force) are those differences exactly; A and B are those of
// mcd_transitionImplicit
Test(implicit, sensor_blocks_match_fd) {
  struct {
    const char* what;
    double u[2], vx;
  } cases[] = {{"held (2 N)", {2, 0}, 0}, {"sliding (8 N, 1 m/s)", {8, 0}, 1}};
  for (int k = 0; k < 2; k++) {
    mcModel* m = sensedBox(1e-8);
    cr_assert_eq(m->nsensordata, S_N);
    mcData* d = settled(m, cases[k].u, cases[k].vx);
    cr_assert_gt(d->ncon, 0);
    Full fd = fullAlloc(m), im = fullAlloc(m), ab = fullAlloc(m);
    cr_assert_eq(mcd_transitionFD(m, d, 1e-6, 1, fd.A, fd.B, fd.C, fd.D), 0);
    cr_assert_eq(mcd_transitionImplicitEx(m, d, 1e-6, 0, im.A, im.B, im.C, im.D), 0);
    cr_assert_eq(mcd_transitionImplicit(m, d, 1e-6, 0, ab.A, ab.B), 0);
    cr_expect(!memcmp(ab.A, im.A, sizeof(double) * im.ndx * im.ndx) &&
              !memcmp(ab.B, im.B, sizeof(double) * im.ndx * im.nu),
              "%s: A, B of the Ex call differ from mcd_transitionImplicit's", cases[k].what);
    // position and velocity sensors: the same state differences; the accelerometer through the
    // linearized qacc (relative to g: its reading's scale); contact-force sensors: FD's rows
    double epv = sensorRowsErr(&im, &fd, S_POS, S_ACC, 1e-3);
    double eacc = sensorRowsErr(&im, &fd, S_ACC, S_TOUCH, 9.81);
    double efrc = sensorRowsErr(&im, &fd, S_TOUCH, S_N, 1e-3);
    printf("sensors vs FD, box %s: pos/vel %.2e, accelerometer %.2e, touch/force %.2e\n",
           cases[k].what, epv, eacc, efrc);
    cr_expect_lt(epv, 1e-6, "%s: position/velocity sensors off by %g", cases[k].what, epv);
    cr_expect_lt(eacc, 1e-4, "%s: accelerometer off by %g", cases[k].what, eacc);
    cr_expect_lt(efrc, 1e-9, "%s: touch/force rows are not FD's (%g)", cases[k].what, efrc);
    fullFree(&fd);
    fullFree(&im);
    fullFree(&ab);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


// smoothing reaches the sensors: in stiction the accelerometer's response to the push is the
// implicit d vx+ / d fx over h (Euler), where finite differences see nothing
Test(implicit, sensor_blocks_smoothed) {
  mcModel* m = sensedBox(1e-8);
  double u[2] = {2, 0};
  mcData* d = settled(m, u, 0);
  Full fd = fullAlloc(m), im = fullAlloc(m);
  cr_assert_eq(mcd_transitionFD(m, d, 1e-6, 1, fd.A, fd.B, fd.C, fd.D), 0);
  cr_assert_eq(mcd_transitionImplicitEx(m, d, 1e-6, 1e-4, im.A, im.B, im.C, im.D), 0);
  int vx = m->nv, ax = S_ACC;           // row of qvel_x in B, accelerometer x in D
  double h = m->opt.timestep, gB = im.B[vx * im.nu], gD = im.D[ax * im.nu];
  printf("stiction: d accel_x / d fx FD %.3g, implicit %.3g, implicit d vx+ / d fx / h %.3g\n",
         fd.D[ax * fd.nu], gD, gB / h);
  cr_expect_lt(fabs(fd.D[ax * fd.nu]), 1e-4, "FD accelerometer should be flat in stiction");
  cr_expect_gt(gD, 1e-2, "implicit accelerometer gradient should be informative, got %g", gD);
  cr_expect_lt(fabs(gD - gB / h), 1e-6 * fabs(gD) + 1e-9, "accelerometer %g vs B / h %g", gD,
               gB / h);
  fullFree(&fd);
  fullFree(&im);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the pool gives the serial bits for 1 to 3 threads, on contact (sensors, kappa 1e-4) and on the
// contact-free equality model, and twice on the same pool
Test(implicit, pool_bitwise_serial, .timeout = 120) {
  mcModel* m = sensedBox(1e-8);
  double u[2] = {2, 1};
  mcData* d = settled(m, u, 0.3);
  Full ser = fullAlloc(m), par = fullAlloc(m);
  cr_assert_eq(mcd_transitionImplicitEx(m, d, 1e-6, 1e-4, ser.A, ser.B, ser.C, ser.D), 0);
  for (int nt = 1; nt <= 3; nt++) {
    mcRolloutPool* pool = mc_rolloutCreate(m, nt, mcd_transitionFDItems(m, 0));
    cr_assert_not_null(pool);
    for (int rep = 0; rep < 2; rep++) {
      memset(par.A, 0xff, sizeof(double) * par.ndx * par.ndx);
      cr_assert_eq(mcd_transitionImplicitPool(pool, m, d, 1e-6, 1e-4, par.A, par.B, par.C,
                                              par.D), 0);
      cr_expect(fullSame(&ser, &par), "%d threads (call %d) differ from the serial result", nt,
                rep + 1);
    }
    mc_rolloutDelete(pool);
  }
  // a pool too small and one made for another model are refused
  mc_setMessageHandler(quiet, NULL);
  mcRolloutPool* small = mc_rolloutCreate(m, 2, 3);
  cr_expect_eq(mcd_transitionImplicitPool(small, m, d, 1e-6, 1e-4, par.A, NULL, NULL, NULL), -1);
  mc_rolloutDelete(small);
  mcModel* other = planarBox(1e-8, 1e-8, FREE);
  mcRolloutPool* wrong = mc_rolloutCreate(other, 1, 100);
  cr_expect_eq(mcd_transitionImplicitPool(wrong, m, d, 1e-6, 1e-4, par.A, NULL, NULL, NULL), -1);
  cr_expect_eq(mcd_transitionImplicitPool(NULL, m, d, 1e-6, 1e-4, par.A, NULL, NULL, NULL), -1);
  mc_rolloutDelete(wrong);
  mc_deleteModel(other);
  mc_setMessageHandler(NULL, NULL);
  fullFree(&ser);
  fullFree(&par);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// a relaxed step as the test computes it: the forward dynamics at d's state, the solution
// replaced by the entry's relaxed one at kappa, the integrator; next (qpos, qvel) into x
static void relaxedStepRef(const mcModel* m, mcData* d, double kappa, double* x) {
  int nv = m->nv;
  double frc[16], f[16];
  cr_assert_leq(nv, 16);
  mc_forward(m, d);
  cr_assert_eq(m->solver->derivative(mcp_host(), m, d, kappa, frc, NULL, NULL), 0);
  for (int i = 0; i < nv; i++) {
    d->qfrc_constraint[i] = frc[i];
    f[i] = d->qfrc_smooth[i] + frc[i];
  }
  mc_solveM(m, d, d->qacc, f, 1);
  m->integrator->step(mcp_host(), m, d);
  memcpy(x, d->qpos, sizeof(double) * m->nq);
  memcpy(x + m->nq, d->qvel, sizeof(double) * nv);
}


// position columns go through the relaxed solve: against centered differences (eps 1e-6) of
// relaxed steps computed here (independently of the core's code), at kappa 1e-4 and 1e-6
// (planar box: qpos is its own tangent space)
// on the stuck and the sliding box; and at kappa 1e-4 they differ from the hard step's
Test(implicit, position_columns_are_relaxed, .timeout = 120) {
  double pushes[] = {2, 8};
  for (int p = 0; p < 2; p++) {
    mcModel* m = planarBox(1e-8, 1e-12, PLANAR);
    double u[2] = {pushes[p], 0};
    mcData* d = settled(m, u, p);
    int nv = m->nv, nq = m->nq, ndx = 2 * nv;
    cr_assert_eq(nq, nv);
    double* s0 = malloc(sizeof(double) * mc_stateSize(m, mcSTATE_INTEGRATION));
    mc_getState(m, d, s0, mcSTATE_INTEGRATION);
    Mats im = alloc(m), fd = alloc(m);
    cr_assert_eq(mcd_transitionFD(m, d, 1e-6, 1, fd.A, NULL, NULL, NULL), 0);
    for (int e = 4; e <= 6; e += 2) {
      double kappa = pow(10, -e), eps = 1e-6, err = 0, scale = 0, diff = 0;
      cr_assert_eq(mcd_transitionImplicit(m, d, 1e-6, kappa, im.A, NULL), 0);
      for (int j = 0; j < nv; j++) {
        double xp[16], xm[16];
        d->qpos[j] += eps;
        relaxedStepRef(m, d, kappa, xp);
        mc_setState(m, d, s0, mcSTATE_INTEGRATION);
        d->qpos[j] -= eps;
        relaxedStepRef(m, d, kappa, xm);
        mc_setState(m, d, s0, mcSTATE_INTEGRATION);
        for (int r = 0; r < ndx; r++) {
          double ref = (xp[r] - xm[r]) / (2 * eps), got = im.A[r * ndx + j];
          err = fmax(err, fabs(got - ref));
          scale = fmax(scale, fabs(ref));
          diff = fmax(diff, fabs(got - fd.A[r * ndx + j]));
        }
      }
      printf("position columns, box push %g N, kappa %g: vs FD of relaxed steps %.2e, vs the "
             "hard step's %.2e (largest entry %.3g)\n", pushes[p], kappa, err / scale,
             diff / scale, scale);
      cr_expect_lt(err / scale, 1e-7, "push %g kappa %g: position columns off by %g",
                   pushes[p], kappa, err / scale);
      if (e == 4 && p == 0) {
        cr_expect_gt(diff / scale, 1e-3, "kappa 1e-4: relaxed positions should differ from the "
                     "hard step's in stiction (%g)", diff / scale);
      }
    }
    release(&im);
    release(&fd);
    free(s0);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


// NaN never escapes: a diverging state zeroes and counts every column, serial and pool alike
Test(implicit, divergence_zeroed) {
  mc_setMessageHandler(quiet, NULL);
  mcModel* m = sensedBox(1e-8);
  double u[2] = {2, 0};
  mcData* d = settled(m, u, 0);
  d->qvel[2] = 1e200;
  Full a = fullAlloc(m), b = fullAlloc(m);
  int rc = mcd_transitionImplicitEx(m, d, 1e-6, 1e-4, a.A, a.B, a.C, a.D);
  mcRolloutPool* pool = mc_rolloutCreate(m, 2, mcd_transitionFDItems(m, 0));
  int rcp = mcd_transitionImplicitPool(pool, m, d, 1e-6, 1e-4, b.A, b.B, b.C, b.D);
  cr_expect(rc == -1 || rc > 0, "diverging state: rc %d", rc);
  cr_expect_eq(rc, rcp, "serial %d, pool %d", rc, rcp);
  int finite = 1;
  for (int i = 0; i < a.ndx * a.ndx; i++) {
    finite &= isfinite(a.A[i]) && isfinite(b.A[i]);
  }
  for (int i = 0; i < a.ns * a.ndx; i++) {
    finite &= isfinite(a.C[i]) && isfinite(b.C[i]);
  }
  cr_expect(finite, "a non-finite number escaped");
  printf("divergence: qvel 1e200 gives %d (serial) and %d (pool)\n", rc, rcp);
  // a velocity beyond mcMAXVAL (1e10) with finite forward dynamics: every evaluation is refused
  // as diverged (a bad qvel warning), so every column is zero and counted, serial and pool
  mc_deleteData(d);
  d = settled(m, u, 0);
  d->qvel[0] = 1e11;
  for (int i = 0; i < a.ndx * a.ndx; i++) {
    a.A[i] = b.A[i] = NAN;
  }
  rc = mcd_transitionImplicitEx(m, d, 1e-6, 1e-4, a.A, a.B, a.C, a.D);
  rcp = mcd_transitionImplicitPool(pool, m, d, 1e-6, 1e-4, b.A, b.B, b.C, b.D);
  printf("divergence: qvel 1e11 gives %d (serial) and %d (pool) of %d columns\n", rc, rcp,
         a.ndx + a.nu);
  cr_expect_eq(rc, a.ndx + a.nu, "qvel 1e11: %d columns zeroed", rc);
  cr_expect_eq(rcp, rc, "qvel 1e11: pool %d, serial %d", rcp, rc);
  cr_expect(fullSame(&a, &b), "qvel 1e11: pool and serial differ");
  for (int i = 0; i < a.ndx * a.ndx; i++) {
    cr_assert_eq(a.A[i], 0, "A[%d] = %g, not zeroed", i, a.A[i]);
  }
  for (int i = 0; i < a.ns * a.nu; i++) {
    cr_assert_eq(a.D[i], 0, "D[%d] = %g, not zeroed", i, a.D[i]);
  }
  mc_rolloutDelete(pool);
  mc_setMessageHandler(NULL, NULL);
  fullFree(&a);
  fullFree(&b);
  mc_deleteData(d);
  mc_deleteModel(m);
}
