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
