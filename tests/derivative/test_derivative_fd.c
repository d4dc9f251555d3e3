// mcd_transitionFD, mcd_transitionFDPool and mcd_inverseFD on their own: analytic derivatives of
// a linear spring-damper, inverse-dynamics consistency (d f / d qacc = M, d f / d qpos against
// d qM / d qpos), the order of forward and centered differences, controls at their limits, NULL
// outputs, purity (state restored, repeated calls identical), the rollout pool (bitwise equal
// to the serial result for 1 and 2 threads) and divergence (zeroed columns, no NaN).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "fdtest.h"

// mass 2 on a slide joint: spring 30, damper 1.5, a motor, a position servo (kp 5) and a filter
// actuator (tau 0.2, gain 3); no gravity, Euler with implicit damping, h = 0.01
static const char kSpring[] =
  "<mujoco model=\"spring_damper\">\n"
  "  <option timestep=\"0.01\" gravity=\"0 0 0\"/>\n"
  "  <worldbody>\n"
  "    <body name=\"mass\">\n"
  "      <joint name=\"x\" type=\"slide\" axis=\"1 0 0\" stiffness=\"30\" damping=\"1.5\"/>\n"
  "      <geom type=\"sphere\" size=\"0.1\" contype=\"0\" conaffinity=\"0\"/>\n"
  "      <inertial pos=\"0 0 0\" mass=\"2\" diaginertia=\"1 1 1\"/>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "  <actuator>\n"
  "    <motor name=\"u\" joint=\"x\" gear=\"1\"/>\n"
  "    <position name=\"p\" joint=\"x\" kp=\"5\"/>\n"
  "    <general name=\"f\" joint=\"x\" dyntype=\"filter\" dynprm=\"0.2\" gainprm=\"3\"/>\n"
  "  </actuator>\n"
  "  <sensor>\n"
  "    <jointpos joint=\"x\"/>\n"
  "    <jointvel joint=\"x\"/>\n"
  "    <actuatorfrc actuator=\"f\"/>\n"
  "  </sensor>\n"
  "</mujoco>\n";

#define SM 2.0
#define SK 30.0
#define SC 1.5
#define SKP 5.0
#define SG 3.0
#define STAU 0.2
#define SH 0.01


static mcModel* loadString(const char* xml) {
  char error[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  cr_assert_not_null(m, "%s", error);
  mc_setMessageHandler(fd_quiet, NULL);
  return m;
}


static mcModel* loadSource(const char* relpath) {
  char* xml = fd_readSource(relpath);
  cr_assert_not_null(xml, "cannot read %s", relpath);
  mcModel* m = loadString(xml);
  free(xml);
  return m;
}


static void springState(mcData* d) {
  d->qpos[0] = 0.3;
  d->qvel[0] = -0.2;
  d->act[0] = 0.1;
  d->ctrl[0] = 0.5;
  d->ctrl[1] = -0.4;
  d->ctrl[2] = 0.7;
}


//---------------------------------- analytic ------------------------------------------------------

// semi-implicit Euler with implicit damping: (m + h c) a = -(k + kp) q - c v + u + kp up + g act,
// v' = v + h a, q' = q + h v', act' = act + h (uf - act) / tau
Test(derivative_fd, spring_damper_analytic) {
  mcModel* m = loadString(kSpring);
  mcData* d = mc_makeData(m);
  cr_assert_eq(m->nv, 1);
  cr_assert_eq(m->na, 1);
  cr_assert_eq(m->nu, 3);
  cr_assert_eq(m->nsensordata, 3);
  springState(d);

  double den = SM + SH * SC;
  double dv[3] = {-SH * (SK + SKP) / den, SM / den, SH * SG / den};   // d v' / d (q, v, act)
  double dvu[3] = {SH / den, SH * SKP / den, 0};                        // d v' / d u
  double A[9] = {1 + SH * dv[0], SH * dv[1], SH * dv[2],
                 dv[0], dv[1], dv[2],
                 0, 0, 1 - SH / STAU};
  double B[9] = {SH * dvu[0], SH * dvu[1], 0,
                 dvu[0], dvu[1], 0,
                 0, 0, SH / STAU};
  double C[9] = {1, 0, 0, 0, 1, 0, 0, 0, SG};

  for (int centered = 0; centered < 2; centered++) {
    double a[9], b[9], c[9], e[9];
    cr_assert_eq(mcd_transitionFD(m, d, 1e-6, centered, a, b, c, e), 0);
    for (int i = 0; i < 9; i++) {
      cr_expect(fabs(a[i] - A[i]) < 1e-8, "A[%d] = %.12g, analytic %.12g", i, a[i], A[i]);
      cr_expect(fabs(b[i] - B[i]) < 1e-8, "B[%d] = %.12g, analytic %.12g", i, b[i], B[i]);
      cr_expect(fabs(c[i] - C[i]) < 1e-8, "C[%d] = %.12g, analytic %.12g", i, c[i], C[i]);
      cr_expect(fabs(e[i]) < 1e-8, "D[%d] = %.12g, analytic 0", i, e[i]);
    }
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}


// f = m a + (k + kp) q + c v (with the actuation subtracted) or m a + k q + c v (without)
Test(derivative_fd, spring_damper_inverse) {
  mcModel* m = loadString(kSpring);
  mcData* d = mc_makeData(m);
  springState(d);
  d->qacc[0] = 0.8;
  for (int act = 0; act < 2; act++) {
    double fq, fv, fa, s[3][3], mq;
    cr_assert_eq(mcd_inverseFD(m, d, 1e-6, act, &fq, &fv, &fa, s[0], s[1], s[2], &mq), 0);
    cr_expect(fabs(fq - (SK + (act ? SKP : 0))) < 1e-6, "DfDq %.10g (actuation %d)", fq, act);
    cr_expect(fabs(fv - SC) < 1e-6, "DfDv %.10g", fv);
    cr_expect(fabs(fa - SM) < 1e-6, "DfDa %.10g", fa);
    cr_expect(fabs(mq) < 1e-6, "DmDq %.10g", mq);
    double ref[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 0}};  // jointpos, jointvel, actuatorfrc
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        cr_expect(fabs(s[i][j] - ref[i][j]) < 1e-6, "Ds[%d][%d] = %.10g", i, j, s[i][j]);
      }
    }
    cr_expect_eq(d->qacc[0], 0.8, "qacc restored");
    cr_expect_eq(d->qpos[0], 0.3, "qpos restored");
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}


// a NaN acceleration zeroes every row instead of spreading
Test(derivative_fd, inverse_nan_zeroes_rows) {
  mcModel* m = loadString(kSpring);
  mcData* d = mc_makeData(m);
  springState(d);
  d->qacc[0] = NAN;
  double fq = 1, fv = 1, fa = 1;
  cr_expect_eq(mcd_inverseFD(m, d, 1e-6, 0, &fq, &fv, &fa, NULL, NULL, NULL, NULL), 3);
  cr_expect(fq == 0 && fv == 0 && fa == 0, "rows not zeroed: %g %g %g", fq, fv, fa);
  cr_expect(isnan(d->qacc[0]), "qacc restored");
  mc_deleteData(d);
  mc_deleteModel(m);
}


//---------------------------------- inverse consistency -------------------------------------------

// contact-free humanoid: d f / d qacc is the inertia matrix, and d f / d qpos changes with qacc
// by (d qM / d qpos) qacc
Test(derivative_fd, inverse_humanoid_consistency, .timeout = 120) {
  char* xml = conf_modelXml("humanoid");
  mcModel* m = loadString(xml);
  free(xml);
  mcData* d = mc_makeData(m);
  int nv = m->nv, nM = m->nM;
  ConfRng r;
  conf_seed(&r, 5);
  mc_resetDataKeyframe(m, d, 0) == 0 || (mc_resetData(m, d), 0);
  for (int i = 0; i < nv; i++) {
    d->qvel[i] = conf_uniform(&r, -1, 1);
    d->qacc[i] = conf_uniform(&r, -2, 2);
  }
  double* Dfa = calloc((size_t)nv * nv, sizeof(double));
  double* Dfq = calloc((size_t)nv * nv, sizeof(double));
  double* Dfq0 = calloc((size_t)nv * nv, sizeof(double));
  double* Dmq = calloc((size_t)nv * nM, sizeof(double));
  double* M = calloc((size_t)nv * nv, sizeof(double));
  double* dM = calloc((size_t)nv * nv, sizeof(double));
  double* qacc = calloc((size_t)nv, sizeof(double));
  memcpy(qacc, d->qacc, sizeof(double) * nv);

  // DfDa = M (the inverse dynamics are linear in qacc)
  cr_assert_eq(mcd_inverseFD(m, d, 1e-6, 0, Dfq, NULL, Dfa, NULL, NULL, NULL, Dmq), 0);
  mc_forward(m, d);
  mc_fullM(m, M, d->qM);
  double e = fd_matErr(Dfa, M, nv * nv);
  fprintf(stderr, "inverse humanoid: |DfDa - M| / max|M| = %.2e\n", e);
  cr_expect(e < 1e-7, "DfDa differs from M by %.3g", e);

  // DfDq(qacc) - DfDq(0) = row i: (d qM / d q_i) qacc
  memset(d->qacc, 0, sizeof(double) * nv);
  cr_assert_eq(mcd_inverseFD(m, d, 1e-6, 0, Dfq0, NULL, NULL, NULL, NULL, NULL, NULL), 0);
  double worst = 0, scale = 0;
  for (int i = 0; i < nv; i++) {
    mc_fullM(m, dM, Dmq + (size_t)i * nM);
    for (int j = 0; j < nv; j++) {
      double ref = 0;
      for (int k = 0; k < nv; k++) {
        ref += dM[j * nv + k] * qacc[k];
      }
      worst = fmax(worst, fabs(Dfq[i * nv + j] - Dfq0[i * nv + j] - ref));
      scale = fmax(scale, fabs(ref));
    }
  }
  fprintf(stderr, "inverse humanoid: |dDfDq - DmDq qacc| / max = %.2e\n", worst / scale);
  cr_expect(scale > 1e-3, "the check needs a position-dependent inertia");
  cr_expect(worst < 1e-6 * scale, "DfDq and DmDq disagree: %.3g (scale %.3g)", worst, scale);
  free(Dfa);
  free(Dfq);
  free(Dfq0);
  free(Dmq);
  free(M);
  free(dM);
  free(qacc);
  mc_deleteData(d);
  mc_deleteModel(m);
}


//---------------------------------- eps and centered ----------------------------------------------

// error of A against a reference, pendulum at 0.7 rad
static double pendulumErr(const mcModel* m, mcData* d, double eps, int centered,
                          const double* ref) {
  double A[4];
  cr_assert_eq(mcd_transitionFD(m, d, eps, centered, A, NULL, NULL, NULL), 0);
  return fd_matErr(A, ref, 4);
}


// forward differences are first order in eps, centered ones second order
Test(derivative_fd, eps_order) {
  mcModel* m = loadSource("models/pendulum.xml");
  mcData* d = mc_makeData(m);
  d->qpos[0] = 0.7;
  d->qvel[0] = 1.1;
  double ref[4];
  cr_assert_eq(mcd_transitionFD(m, d, 1e-5, 1, ref, NULL, NULL, NULL), 0);
  double f2 = pendulumErr(m, d, 1e-2, 0, ref), f3 = pendulumErr(m, d, 1e-3, 0, ref);
  double c2 = pendulumErr(m, d, 1e-2, 1, ref), c3 = pendulumErr(m, d, 1e-3, 1, ref);
  fprintf(stderr, "eps order: forward %.2e -> %.2e, centered %.2e -> %.2e\n", f2, f3, c2, c3);
  cr_expect(f2 / f3 > 5 && f2 / f3 < 20, "forward: ratio %.3g, expected ~10", f2 / f3);
  cr_expect(c2 / c3 > 50 && c2 / c3 < 200, "centered: ratio %.3g, expected ~100", c2 / c3);
  cr_expect(c3 < f3);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// a linear system: forward and centered agree to roundoff
Test(derivative_fd, centered_equals_forward_when_linear) {
  mcModel* m = loadString(kSpring);
  mcData* d = mc_makeData(m);
  springState(d);
  double a0[9], a1[9], b0[9], b1[9];
  cr_assert_eq(mcd_transitionFD(m, d, 1e-4, 0, a0, b0, NULL, NULL), 0);
  cr_assert_eq(mcd_transitionFD(m, d, 1e-4, 1, a1, b1, NULL, NULL), 0);
  cr_expect(fd_matErr(a0, a1, 9) < 1e-9 && fd_matErr(b0, b1, 9) < 1e-9);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// a control at (or within eps of) its limit is differenced inside the range: the pendulum's
// motor column is the same as in the middle of the range
Test(derivative_fd, control_at_limit) {
  mcModel* m = loadSource("models/pendulum.xml");
  mcData* d = mc_makeData(m);
  d->qpos[0] = 0.4;
  double mid[2], hi[2], lo[2], at[2];
  for (int centered = 0; centered < 2; centered++) {
    d->ctrl[0] = 0;
    cr_assert_eq(mcd_transitionFD(m, d, 1e-6, centered, NULL, mid, NULL, NULL), 0);
    d->ctrl[0] = 2 - 1e-7;
    cr_assert_eq(mcd_transitionFD(m, d, 1e-6, centered, NULL, hi, NULL, NULL), 0);
    d->ctrl[0] = -2;
    cr_assert_eq(mcd_transitionFD(m, d, 1e-6, centered, NULL, lo, NULL, NULL), 0);
    d->ctrl[0] = 2;
    cr_assert_eq(mcd_transitionFD(m, d, 1e-6, centered, NULL, at, NULL, NULL), 0);
    cr_expect(fabs(mid[1]) > 1e-4, "the motor moves the pendulum");
    cr_expect(fd_matErr(hi, mid, 2) < 1e-6, "near the upper limit: %g vs %g", hi[1], mid[1]);
    cr_expect(fd_matErr(lo, mid, 2) < 1e-6, "at the lower limit: %g vs %g", lo[1], mid[1]);
    cr_expect(fd_matErr(at, mid, 2) < 1e-6, "at the upper limit: %g vs %g", at[1], mid[1]);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}


//---------------------------------- NULL outputs, purity ------------------------------------------

typedef struct {
  mcModel* m;
  mcData* d;
  int ndx, nu, ns;
} Scene;


// the sample humanoid in contact with its floor, random controls; memory: "" or a <size memory>
static Scene contactSceneSized(int rk4, const char* memory) {
  Scene s;
  char* xml = fd_readSource("models/humanoid.xml");
  cr_assert_not_null(xml);
  if (memory[0]) {
    char* at = strstr(xml, "<compiler");
    cr_assert_not_null(at);
    size_t n = strlen(xml) + 64;
    char* sized = malloc(n);
    snprintf(sized, n, "%.*s<size memory=\"%s\"/>\n  %s", (int)(at - xml), xml, memory, at);
    free(xml);
    xml = sized;
  }
  s.m = loadString(xml);
  free(xml);
  if (rk4) {
    char error[256];
    cr_assert_eq(mc_setIntegrator(s.m, "RK4", error, sizeof(error)), 0, "%s", error);
  }
  s.d = mc_makeData(s.m);
  mc_resetDataKeyframe(s.m, s.d, 0);
  ConfRng r;
  conf_seed(&r, 3);
  for (int t = 0; t < 150; t++) {
    for (int i = 0; i < s.m->nu; i++) {
      s.d->ctrl[i] = conf_uniform(&r, -0.8, 0.8);
    }
    mc_step(s.m, s.d);
  }
  mc_forward(s.m, s.d);
  cr_assert_gt(s.d->ncon, 0);
  s.ndx = 2 * s.m->nv + s.m->na;
  s.nu = s.m->nu;
  s.ns = s.m->nsensordata;
  return s;
}


static Scene contactScene(int rk4) {
  return contactSceneSized(rk4, "");
}


static void freeScene(Scene* s) {
  mc_deleteData(s->d);
  mc_deleteModel(s->m);
}


#define SENTINEL 12345.678

// one output alone equals that output of the full call, and nothing is written past its end
Test(derivative_fd, null_outputs, .timeout = 120) {
  Scene s = contactScene(0);
  FdMats full, one;
  fd_alloc(&full, s.m->nv, s.m->na, s.nu, s.ns);
  fd_alloc(&one, s.m->nv, s.m->na, s.nu, s.ns);
  int n[4] = {s.ndx * s.ndx, s.ndx * s.nu, s.ns * s.ndx, s.ns * s.nu};
  cr_assert_eq(mcd_transitionFD(s.m, s.d, 1e-6, 0, full.A, full.B, full.C, full.D), 0);
  double* fm[4] = {full.A, full.B, full.C, full.D};
  double* om[4] = {one.A, one.B, one.C, one.D};
  for (int k = 0; k < 4; k++) {
    om[k][n[k]] = SENTINEL;
    double* arg[4] = {NULL, NULL, NULL, NULL};
    arg[k] = om[k];
    cr_assert_eq(mcd_transitionFD(s.m, s.d, 1e-6, 0, arg[0], arg[1], arg[2], arg[3]), 0);
    cr_expect(memcmp(om[k], fm[k], sizeof(double) * n[k]) == 0, "output %d alone differs", k);
    cr_expect_eq(om[k][n[k]], SENTINEL, "output %d overflowed", k);
  }
  cr_expect_eq(mcd_transitionFD(s.m, s.d, 1e-6, 1, NULL, NULL, NULL, NULL), 0);
  cr_expect_eq(mcd_inverseFD(s.m, s.d, 1e-6, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL), 0);
  fd_free(&full);
  fd_free(&one);
  freeScene(&s);
}


// the state is restored, the stack balanced, and a second call gives the same bits (each
// evaluation starts from the same warmstart)
Test(derivative_fd, pure_function_of_state, .timeout = 120) {
  Scene s = contactScene(0);
  int nfull = mc_stateSize(s.m, mcSTATE_INTEGRATION);
  double* before = calloc((size_t)nfull, sizeof(double));
  double* after = calloc((size_t)nfull, sizeof(double));
  FdMats a, b;
  fd_alloc(&a, s.m->nv, s.m->na, s.nu, s.ns);
  fd_alloc(&b, s.m->nv, s.m->na, s.nu, s.ns);
  mc_getState(s.m, s.d, before, mcSTATE_INTEGRATION);
  size_t pstack = s.d->pstack;
  for (int centered = 0; centered < 2; centered++) {
    cr_assert_eq(mcd_transitionFD(s.m, s.d, 1e-6, centered, a.A, a.B, a.C, a.D), 0);
    mc_getState(s.m, s.d, after, mcSTATE_INTEGRATION);
    cr_expect(memcmp(before, after, sizeof(double) * nfull) == 0, "state not restored");
    cr_expect_eq(s.d->pstack, pstack, "stack not balanced");
    cr_assert_eq(mcd_transitionFD(s.m, s.d, 1e-6, centered, b.A, b.B, b.C, b.D), 0);
    cr_expect(memcmp(a.A, b.A, sizeof(double) * s.ndx * s.ndx) == 0, "A not repeatable");
    cr_expect(memcmp(a.B, b.B, sizeof(double) * s.ndx * s.nu) == 0, "B not repeatable");
  }
  free(before);
  free(after);
  fd_free(&a);
  fd_free(&b);
  freeScene(&s);
}


// bad arguments are refused
Test(derivative_fd, bad_arguments) {
  mcModel* m = loadString(kSpring);
  mcData* d = mc_makeData(m);
  double A[9];
  cr_expect_eq(mcd_transitionFD(m, d, 0, 0, A, NULL, NULL, NULL), -1);
  cr_expect_eq(mcd_transitionFD(m, d, NAN, 0, A, NULL, NULL, NULL), -1);
  cr_expect_eq(mcd_transitionFD(NULL, d, 1e-6, 0, A, NULL, NULL, NULL), -1);
  cr_expect_eq(mcd_inverseFD(m, d, -1, 0, A, NULL, NULL, NULL, NULL, NULL, NULL), -1);
  cr_expect_eq(mcd_transitionFDPool(NULL, m, d, 1e-6, 0, A, NULL, NULL, NULL), -1);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// warnings escalated to errors: the first failing column stops the data, and no later column is
// taken from a step the stop prevented. With eps 6e9 the geared motor's column (evaluated first)
// gives a huge qacc; every later evaluation finds the data stopped and must fail rather than give
// the unstepped perturbed state (which would read as A = identity)
Test(derivative_fd, escalated_warning_stops_columns) {
  mcModel* m = loadString(
    "<mujoco><worldbody><body><joint name='s' type='slide' axis='1 0 0'/>"
    "<geom size='.1' mass='1'/></body></worldbody><actuator><motor joint='s' gear='10'/>"
    "<motor joint='s' ctrlrange='-1 1'/></actuator></mujoco>");
  mcData* d = mc_makeData(m);
  d->qvel[0] = 1;
  mc_setWarningPolicy(d, mcWARNING_ALL);
  double A[4] = {1, 1, 1, 1}, B[4] = {1, 1, 1, 1};
  int rc = mcd_transitionFD(m, d, 6e9, 0, A, B, NULL, NULL);
  cr_expect_eq(rc, 4, "%d failed columns", rc);
  cr_expect_eq(fd_maxAbs(A, 4), 0, "A = %g %g %g %g", A[0], A[1], A[2], A[3]);
  cr_expect_eq(fd_maxAbs(B, 4), 0);
  cr_expect_geq(mc_warningError(d), 0, "the escalated warning is left for the caller");
  mc_deleteData(d);
  mc_deleteModel(m);
}


// a state that diverges (auto-reset) zeroes every column and says so; no NaN escapes
Test(derivative_fd, divergence_zeroes_columns, .timeout = 120) {
  Scene s = contactScene(0);
  s.d->qvel[0] = 1e11;
  FdMats a;
  fd_alloc(&a, s.m->nv, s.m->na, s.nu, s.ns);
  int rc = mcd_transitionFD(s.m, s.d, 1e-6, 0, a.A, a.B, a.C, a.D);
  cr_expect_eq(rc, s.ndx + s.nu, "%d failed columns", rc);
  cr_expect_eq(fd_maxAbs(a.A, s.ndx * s.ndx), 0);
  cr_expect_eq(fd_maxAbs(a.B, s.ndx * s.nu), 0);
  cr_expect_eq(s.d->qvel[0], 1e11, "state restored");
  fd_free(&a);
  freeScene(&s);
}


//---------------------------------- rollout pool --------------------------------------------------

// forward-difference A and C with no stage reuse at all, for models without quaternions (nq ==
// nv): every evaluation is one mc_rollout step from fresh data. The same arithmetic as
// mcd_transitionFD ((hi - lo) * (1 / eps)), so a reuse that changed anything shows as a bit
static void fullRecompute(const mcModel* m, mcData* d, double eps, double* A, double* C) {
  cr_assert_eq(m->nq, m->nv, "fullRecompute: no quaternions");
  int nfull = mc_stateSize(m, mcSTATE_INTEGRATION);
  int oq = mc_stateSize(m, mcSTATE_INTEGRATION & (mcSTATE_QPOS - 1));
  int ndx = 2 * m->nv + m->na, ns = m->nsensordata, n = ndx + 1;
  double* in = malloc(sizeof(double) * (size_t)n * nfull);
  double* out = malloc(sizeof(double) * (size_t)n * nfull);
  double* sens = malloc(sizeof(double) * ((size_t)n * ns + 1));
  for (int k = 0; k < n; k++) {
    mc_getState(m, d, in + (size_t)k * nfull, mcSTATE_INTEGRATION);
    if (k > 0) {
      in[(size_t)k * nfull + oq + k - 1] += eps;  // qpos (hinge/slide), qvel, act follow
    }
  }
  mcRolloutPool* pool = mc_rolloutCreate(m, 1, n);
  cr_assert_eq(mc_rollout(pool, n, 1, mcSTATE_INTEGRATION, in, NULL, out, sens), 0);
  double scale = 1 / (eps * 1);
  for (int c = 0; c < ndx; c++) {
    const double *x1 = out + (size_t)(c + 1) * nfull + oq, *x0 = out + oq;
    for (int r = 0; r < ndx; r++) {
      A[r * ndx + c] = (x1[r] - x0[r]) * scale;
    }
    for (int r = 0; r < ns; r++) {
      C[r * ndx + c] = (sens[(size_t)(c + 1) * ns + r] - sens[r]) * scale;
    }
  }
  mc_rolloutDelete(pool);
  free(in);
  free(out);
  free(sens);
}


// the stage reuse of mcd_transitionFD (serial and pool) changes no bit of A and C: against
// fullRecompute, forward differences
static void reuseChangesNothing(const mcModel* m, mcData* d, const char* what) {
  FdMats ref, got;
  fd_alloc(&ref, m->nv, m->na, m->nu, m->nsensordata);
  fd_alloc(&got, m->nv, m->na, m->nu, m->nsensordata);
  int ndx = ref.ndx, ns = m->nsensordata;
  fullRecompute(m, d, 1e-6, ref.A, ref.C);
  cr_assert_eq(mcd_transitionFD(m, d, 1e-6, 0, got.A, got.B, got.C, got.D), 0);
  cr_expect(memcmp(ref.A, got.A, sizeof(double) * ndx * ndx) == 0,
            "%s: A with stage reuse differs by %.3g", what, fd_matErr(got.A, ref.A, ndx * ndx));
  cr_expect(memcmp(ref.C, got.C, sizeof(double) * ns * ndx) == 0,
            "%s: C with stage reuse differs by %.3g", what, fd_matErr(got.C, ref.C, ns * ndx));
  fd_free(&ref);
  fd_free(&got);
}



// the pool's result is bitwise the serial one, for 1 to 4 threads (more threads than cores, so
// the columns fall to the threads differently from call to call), forward and centered, on the
// first call of a pool and on a second one (the threads' data then holds the first call's stages)
static void poolMatchesScene(Scene s, const char* what) {
  FdMats ser, par;
  fd_alloc(&ser, s.m->nv, s.m->na, s.nu, s.ns);
  fd_alloc(&par, s.m->nv, s.m->na, s.nu, s.ns);
  int n[4] = {s.ndx * s.ndx, s.ndx * s.nu, s.ns * s.ndx, s.ns * s.nu};
  for (int centered = 0; centered < 2; centered++) {
    cr_assert_eq(mcd_transitionFD(s.m, s.d, 1e-6, centered, ser.A, ser.B, ser.C, ser.D), 0);
    for (int nthread = 1; nthread <= 4; nthread++) {
      mcRolloutPool* pool = mc_rolloutCreate(s.m, nthread, mcd_transitionFDItems(s.m, centered));
      cr_assert_not_null(pool);
      for (int call = 0; call < 2; call++) {
        memset(par.A, 0, sizeof(double) * n[0]);
        int rc = mcd_transitionFDPool(pool, s.m, s.d, 1e-6, centered, par.A, par.B, par.C, par.D);
        cr_expect_eq(rc, 0);
        double* sm[4] = {ser.A, ser.B, ser.C, ser.D};
        double* pm[4] = {par.A, par.B, par.C, par.D};
        for (int k = 0; k < 4; k++) {
          cr_expect(memcmp(sm[k], pm[k], sizeof(double) * n[k]) == 0,
                    "%s, %d thread(s), call %d, %s: output %d differs from the serial one "
                    "(by %.3g)", what, nthread, call, centered ? "centered" : "forward", k,
                    fd_matErr(pm[k], sm[k], n[k]));
        }
      }
      mc_rolloutDelete(pool);
    }
  }

  // a pool too small for one chunk is refused
  mcRolloutPool* small = mc_rolloutCreate(s.m, 1, 2);
  cr_expect_eq(mcd_transitionFDPool(small, s.m, s.d, 1e-6, 0, par.A, NULL, NULL, NULL), -1);
  mc_rolloutDelete(small);
  fd_free(&ser);
  fd_free(&par);
  freeScene(&s);
}


static void poolMatches(int rk4) {
  poolMatchesScene(contactScene(rk4), rk4 ? "rk4" : "euler");
}


Test(derivative_fd, pool_bitwise_euler, .timeout = 300) {
  poolMatches(0);
}


Test(derivative_fd, pool_bitwise_rk4, .timeout = 300) {
  poolMatches(1);
}


// implicit integration with velocity-dependent actuator gains that change with the controls and
// activations (the case where MuJoCo 2.2.2's stage reuse goes wrong)
Test(derivative_fd, pool_bitwise_implicit_actuators, .timeout = 300) {
  char* xml = conf_modelXml("actuators");
  Scene s;
  s.m = loadString(xml);
  free(xml);
  char error[256];
  cr_assert_eq(mc_setIntegrator(s.m, "implicit", error, sizeof(error)), 0, "%s", error);
  s.d = mc_makeData(s.m);
  ConfRng r;
  conf_seed(&r, 9);
  for (int i = 0; i < s.m->nv; i++) {
    s.d->qpos[i] = conf_uniform(&r, -1, 1);
    s.d->qvel[i] = conf_uniform(&r, -1, 1);
  }
  for (int i = 0; i < s.m->na; i++) {
    s.d->act[i] = conf_uniform(&r, -0.4, 0.4);
  }
  for (int i = 0; i < s.m->nu; i++) {
    s.d->ctrl[i] = conf_uniform(&r, -0.4, 0.4);
  }
  s.ndx = 2 * s.m->nv + s.m->na;
  s.nu = s.m->nu;
  s.ns = s.m->nsensordata;
  reuseChangesNothing(s.m, s.d, "implicit");
  poolMatchesScene(s, "implicit");
}


// a small stack (the pool version's scratch, one evaluator per thread, lives on the caller's):
// same bits
Test(derivative_fd, pool_on_a_small_stack, .timeout = 300) {
  Scene s = contactSceneSized(0, "400K");
  FdMats ser, par;
  fd_alloc(&ser, s.m->nv, s.m->na, s.nu, s.ns);
  fd_alloc(&par, s.m->nv, s.m->na, s.nu, s.ns);
  cr_assert_eq(mcd_transitionFD(s.m, s.d, 1e-6, 1, ser.A, ser.B, NULL, NULL), 0);
  mcRolloutPool* pool = mc_rolloutCreate(s.m, 2, mcd_transitionFDItems(s.m, 1));
  cr_assert_not_null(pool);
  cr_assert_eq(mcd_transitionFDPool(pool, s.m, s.d, 1e-6, 1, par.A, par.B, NULL, NULL), 0);
  cr_expect(memcmp(ser.A, par.A, sizeof(double) * s.ndx * s.ndx) == 0, "A differs");
  cr_expect(memcmp(ser.B, par.B, sizeof(double) * s.ndx * s.nu) == 0, "B differs");
  mc_rolloutDelete(pool);
  fd_free(&ser);
  fd_free(&par);
  freeScene(&s);
}


// a dcmotor with five activation states (slew, current, temperature, LuGre bristle, integral):
// both versions restart activation columns at the actuation stage; equal bits with fullRecompute
// show no earlier stage reads the activations
Test(derivative_fd, stateful_actuator_pool_matches_serial, .timeout = 120) {
  mcModel* m = loadString(
    "<mujoco><option timestep='0.001'/><worldbody><body><joint name='j' axis='0 0 1'/>"
    "<geom size='.1' mass='1'/></body></worldbody><actuator><dcmotor name='mot' joint='j' "
    "resistance='1' motorconst='0.1' inductance='0 0.002' thermal='2 10 0 0.0039 25 25' "
    "lugre='1e3 0.1 0.1 0.2 0.05' input='position' controller='5 1 0.1 2 1 12'/>"
    "</actuator><sensor><actuatorfrc actuator='mot'/><jointvel joint='j'/></sensor></mujoco>");
  mcData* d = mc_makeData(m);
  cr_assert_eq(m->na, 5);
  for (int t = 0; t < 300; t++) {
    d->ctrl[0] = 0.5;
    mc_step(m, d);
  }
  FdMats ser, par;
  fd_alloc(&ser, m->nv, m->na, m->nu, m->nsensordata);
  fd_alloc(&par, m->nv, m->na, m->nu, m->nsensordata);
  int ndx = ser.ndx, n[4] = {ndx * ndx, ndx * m->nu, m->nsensordata * ndx, m->nsensordata * m->nu};
  reuseChangesNothing(m, d, "dcmotor");
  mcRolloutPool* pool = mc_rolloutCreate(m, 2, mcd_transitionFDItems(m, 1));
  for (int centered = 0; centered < 2; centered++) {
    cr_assert_eq(mcd_transitionFD(m, d, 1e-6, centered, ser.A, ser.B, ser.C, ser.D), 0);
    cr_assert_eq(mcd_transitionFDPool(pool, m, d, 1e-6, centered, par.A, par.B, par.C, par.D), 0);
    double* sm[4] = {ser.A, ser.B, ser.C, ser.D};
    double* pm[4] = {par.A, par.B, par.C, par.D};
    for (int k = 0; k < 4; k++) {
      cr_expect(memcmp(sm[k], pm[k], sizeof(double) * n[k]) == 0, "output %d differs (%.3g)", k,
                fd_matErr(pm[k], sm[k], n[k]));
    }
    // the activations drive the joint: some act column of the qvel row is nonzero
    cr_expect_gt(fd_maxAbs(ser.A + 1 * ndx + 2, m->na), 0);
  }
  mc_rolloutDelete(pool);
  fd_free(&ser);
  fd_free(&par);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the pool version zeroes diverging columns too
Test(derivative_fd, divergence_in_the_pool, .timeout = 120) {
  Scene s = contactScene(0);
  s.d->qvel[0] = 1e11;
  FdMats a;
  fd_alloc(&a, s.m->nv, s.m->na, s.nu, s.ns);
  mcRolloutPool* pool = mc_rolloutCreate(s.m, 2, mcd_transitionFDItems(s.m, 0));
  int rc = mcd_transitionFDPool(pool, s.m, s.d, 1e-6, 0, a.A, a.B, NULL, NULL);
  cr_expect_eq(rc, s.ndx + s.nu, "%d failed columns", rc);
  cr_expect_eq(fd_maxAbs(a.A, s.ndx * s.ndx), 0);
  cr_expect_eq(fd_maxAbs(a.B, s.ndx * s.nu), 0);
  mc_rolloutDelete(pool);
  fd_free(&a);
  freeScene(&s);
}


// a box resting on a plane under every solver plugin: repeated serial calls and the pool give the
// same bits (each evaluation starts from the same warmstart; no solver keeps hidden state)
Test(derivative_fd, every_solver_deterministic, .timeout = 300) {
  const char* solvers[] = {"newton", "cg", "pgs", "ipm"};
  for (int k = 0; k < 4; k++) {
    mcModel* m = loadString(
      "<mujoco><option timestep='0.01' cone='elliptic'/><worldbody>"
      "<geom type='plane' size='5 5 0.1' margin='0.005'/>"
      "<body pos='0 0 0.1'><freejoint name='free'/>"
      "<geom name='box' type='box' size='0.1 0.1 0.1' mass='1'/></body></worldbody>"
      "<actuator><motor gear='1 0 0 0 0 0' joint='free' ctrlrange='-30 30'/></actuator></mujoco>");
    char error[512] = "";
    cr_assert_eq(mc_setSolver(m, solvers[k], error, sizeof(error)), 0, "%s", error);
    mcData* d = mc_makeData(m);
    for (int t = 0; t < 50; t++) {
      d->ctrl[0] = 2;
      mc_step(m, d);
    }
    cr_assert_gt(d->ncon, 0, "%s: the box should rest on the plane", solvers[k]);
    FdMats a, b, c;
    fd_alloc(&a, m->nv, m->na, m->nu, m->nsensordata);
    fd_alloc(&b, m->nv, m->na, m->nu, m->nsensordata);
    fd_alloc(&c, m->nv, m->na, m->nu, m->nsensordata);
    int ndx = a.ndx;
    cr_expect_eq(mcd_transitionFD(m, d, 1e-6, 1, a.A, a.B, NULL, NULL), 0, "%s", solvers[k]);
    cr_expect_eq(mcd_transitionFD(m, d, 1e-6, 1, b.A, b.B, NULL, NULL), 0, "%s", solvers[k]);
    mcRolloutPool* pool = mc_rolloutCreate(m, 2, mcd_transitionFDItems(m, 1));
    cr_expect_eq(mcd_transitionFDPool(pool, m, d, 1e-6, 1, c.A, c.B, NULL, NULL), 0);
    cr_expect(memcmp(a.A, b.A, sizeof(double) * ndx * ndx) == 0, "%s: A not repeatable",
              solvers[k]);
    cr_expect(memcmp(a.A, c.A, sizeof(double) * ndx * ndx) == 0 &&
              memcmp(a.B, c.B, sizeof(double) * ndx * m->nu) == 0,
              "%s: the pool differs by %.3g", solvers[k], fd_matErr(c.A, a.A, ndx * ndx));
    // 2 N is below static friction: the soft solvers let the box creep, the hard-contact ipm
    // holds it (finite differences through stiction are zero, the case for implicit gradients)
    if (k < 3) {
      cr_expect_gt(fabs(a.B[6]), 1e-4, "%s: the motor accelerates the box", solvers[k]);
    } else {
      cr_expect_lt(fabs(a.B[6]), 1e-6, "ipm: the box should stick");
    }
    mc_rolloutDelete(pool);
    fd_free(&a);
    fd_free(&b);
    fd_free(&c);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}
