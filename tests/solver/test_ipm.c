// Solver plugin "ipm" (hard contact, primal-dual interior point): penetration at the end of every
// step (measured by collision at the new state), straight Coulomb sliding, large friction, mass
// ratios, a resting stack, frictionless contact, solver statistics, pyramidal rows, determinism.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>
#include "testutil.h"
#include "test_ipm_check.h"
#include <moduco/mcplugin.h>

#define MODEL_DIR MODUCO_SOURCE_DIR "/tests/solver/models/"
#define GRAVITY 9.81

static mcModel* load(const char* name) {
  char error[1024] = "";
  char path[512];
  snprintf(path, sizeof(path), MODEL_DIR "%s", name);
  mcModel* m = mc_loadXML(path, error, sizeof(error));
  cr_assert_not_null(m, "%s: %s", name, error);
  cr_assert_str_eq(m->solver->hdr.name, "ipm");
  return m;
}


// a checked step; the solver must have converged (r_vio and kappa_vio below the default
// tolerances)
static void stepChecked(const mcModel* m, mcData* d, int othersOk) {
  checkedStep(m, d, othersOk);
  int it = d->solver_iter;
  if (d->nefc && it > 0) {
    const mcSolverStat* st = d->solver + (it < mcNSOLVER ? it : mcNSOLVER) - 1;
    if (it >= m->opt.iterations && getenv("IPM_TRACE")) {
      for (int k = 0; k < it && k < mcNSOLVER; k++) {
        printf("[%d %.2e %.2e a=%.3f ne=%d act=%d] ", k, d->solver[k].improvement,
               d->solver[k].gradient, d->solver[k].lineslope, d->solver[k].neval,
               d->solver[k].nactive);
      }
      printf("\n");
    }
    cr_assert(it < m->opt.iterations, "t=%g: no convergence in %d iterations (r_vio %g, "
              "kappa_vio %g)", d->time, it, st->improvement, st->gradient);
    cr_assert(st->improvement < 1e-8 && st->gradient < 1e-8, "t=%g: r_vio %g kappa_vio %g",
              d->time, st->improvement, st->gradient);
  }
}


static void step(const mcModel* m, mcData* d) {
  stepChecked(m, d, 0);
}


// run n steps; return the worst (smallest) contact distance seen after each step
static double run(const mcModel* m, mcData* d, int n) {
  double worst = INFINITY;
  for (int k = 0; k < n; k++) {
    step(m, d);
    worst = fmin(worst, tu_minContactDist(m, d));
  }
  return worst;
}


Test(ipm, box_drop_no_penetration) {
  mcModel* m = load("ipm_box_drop.xml");
  mcData* d = mc_makeData(m);
  cr_assert_float_eq(m->opt.timestep, 0.01, 0);
  double worst = run(m, d, 200);
  cr_expect(worst >= -1e-6, "penetration %g m", -worst);
  cr_expect(fabs(d->qpos[2] - 0.1) < 1e-6, "rests at z %.9f", d->qpos[2]);
  cr_expect(fabs(d->qvel[2]) < 1e-6, "still moving: vz %g", d->qvel[2]);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// distance slid under semi-implicit Euler with a constant deceleration a: v_k = v0 - k a h
// until it would reverse (then the exact friction stops the box within the step)
static double eulerDistance(double v0, double a, double h) {
  double dist = 0;
  for (double v = v0 - a * h; v > 0; v -= a * h) {
    dist += h * v;
  }
  return dist;
}


// launch the flat box at speed v along angle deg with timestep h; check the straight path, the
// stop distance against Coulomb (1%) and against the exact discrete solution (1e-6 m)
static void slide(double mu, double v, double deg, double h, int pyramidal) {
  mcModel* m = load("ipm_box_slide.xml");
  for (int g = 0; g < m->ngeom; g++) {
    m->geom_friction[3 * g] = mu;
  }
  if (pyramidal) {
    m->opt.cone = mcCONE_PYRAMIDAL;
  }
  m->opt.timestep = h;
  mcData* d = mc_makeData(m);
  double th = deg * M_PI / 180, ux = cos(th), uy = sin(th);
  d->qvel[0] = v * ux;
  d->qvel[1] = v * uy;
  double x0 = d->qpos[0], y0 = d->qpos[1];
  double worst = INFINITY, drift = 0;
  int n = 0;
  while (n < 20000 && (n < 10 || hypot(d->qvel[0], d->qvel[1]) > 1e-12)) {
    step(m, d);
    worst = fmin(worst, tu_minContactDist(m, d));
    drift = fmax(drift, fabs(-uy * (d->qpos[0] - x0) + ux * (d->qpos[1] - y0)));
    n++;
  }
  double along = ux * (d->qpos[0] - x0) + uy * (d->qpos[1] - y0);
  double coulomb = v * v / (2 * mu * GRAVITY);
  cr_expect(hypot(d->qvel[0], d->qvel[1]) < 1e-9, "mu %g: still sliding after %d steps", mu, n);
  cr_expect(drift <= 1e-6, "mu %g angle %g: lateral drift %g m", mu, deg, drift);
  // Coulomb's continuous distance to 1% where Euler's own error (mu g h / v) is below 0.5%
  cr_expect(mu * GRAVITY * h / v > 0.005 || fabs(along - coulomb) <= 0.01 * coulomb, "mu %g angle %g: stops at %.6f m, Coulomb "
            "%.6f m (%.3f%%)", mu, deg, along, coulomb, 100 * (along - coulomb) / coulomb);
  double discrete = eulerDistance(v, mu * GRAVITY, h);
  cr_expect(fabs(along - discrete) <= 1e-6, "mu %g angle %g: stops at %.9f m, semi-implicit "
            "Euler with exact Coulomb friction %.9f m", mu, deg, along, discrete);
  cr_expect(worst >= -1e-6, "mu %g: penetration %g m", mu, -worst);
  cr_expect(fabs(d->qpos[2] - 0.02) < 1e-6, "mu %g: lifted or sunk to z %.9f", mu, d->qpos[2]);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(ipm, slide_straight_coulomb_distance) {
  slide(0.5, 2, 30, 0.002, 0);
  slide(0.5, 2, 0, 0.002, 0);
  slide(0.5, 2, 67, 0.002, 0);
}


Test(ipm, slide_high_friction) {
  slide(2, 2, 30, 0.0005, 0);
  slide(4, 3, 45, 0.0004, 0);
}


// pyramidal rows: ipm reconstructs normal and tangents and still solves the exact cone
Test(ipm, slide_pyramidal_rows_exact_cone) {
  slide(0.5, 2, 30, 0.002, 1);
}


// the heavy box on the light one, and five boxes: nothing moves, nothing penetrates
static void atRest(const char* name, int nstep) {
  mcModel* m = load(name);
  mcData* d = mc_makeData(m);
  mc_forward(m, d);
  double q0[64];
  cr_assert(m->nq <= 64);
  memcpy(q0, d->qpos, sizeof(double) * m->nq);
  double worst = run(m, d, nstep);
  cr_expect(worst >= -1e-6, "%s: penetration %g m", name, -worst);
  for (int i = 0; i < m->nq; i++) {
    cr_expect(fabs(d->qpos[i] - q0[i]) < 1e-6, "%s: qpos[%d] crept %g", name, i,
              d->qpos[i] - q0[i]);
  }
  for (int i = 0; i < m->nv; i++) {
    cr_expect(fabs(d->qvel[i]) < 1e-6, "%s: qvel[%d] = %g", name, i, d->qvel[i]);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(ipm, box_on_box_mass_ratio_100) {
  atRest("ipm_box_on_box.xml", 300);
}


Test(ipm, stack_of_five_no_creep_10s) {
  atRest("ipm_stack5.xml", 1000);
}


Test(ipm, frictionless_condim1) {
  mcModel* m = load("ipm_frictionless.xml");
  mcData* d = mc_makeData(m);
  d->qvel[0] = 1;
  d->qvel[1] = 0.5;
  double worst = run(m, d, 200);
  cr_assert(d->ncon > 0 && d->contact[0].dim == 1);
  cr_expect(fabs(d->qvel[0] - 1) < 1e-9 && fabs(d->qvel[1] - 0.5) < 1e-9,
            "frictionless contact slowed the box: v = (%g, %g)", d->qvel[0], d->qvel[1]);
  cr_expect(fabs(d->qpos[0] - 2) < 1e-9, "x = %.12f after 2 s at 1 m/s", d->qpos[0]);
  cr_expect(worst >= -1e-6, "penetration %g m", -worst);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// large steps: still straight and at the discrete Coulomb distance (Euler itself is then more
// than 0.5% from the continuous distance, so that comparison is not made)
Test(ipm, slide_large_step) {
  slide(0.5, 2, 30, 0.01, 0);
  slide(1, 2, 10, 0.02, 0);
}


// the same run twice gives the same bits; the sparse Jacobian gives the same trajectory
Test(ipm, deterministic_and_sparse) {
  double q[2][64];
  for (int pass = 0; pass < 3; pass++) {
    mcModel* m = load("ipm_stack5.xml");
    if (pass == 2) {
      m->opt.jacobian = mcJAC_SPARSE;
    }
    mcData* d = mc_makeData(m);
    d->qvel[0] = 0.3;  // the bottom box slides under the stack
    for (int k = 0; k < 100; k++) {
      checkedStep(m, d, 0);
    }
    if (pass < 2) {
      memcpy(q[pass], d->qpos, sizeof(double) * m->nq);
    } else {
      cr_assert_null(d->efc_J, "sparse Jacobian requested, dense efc_J present");
      for (int i = 0; i < m->nq; i++) {
        cr_expect(fabs(d->qpos[i] - q[0][i]) < 1e-9, "sparse qpos[%d] %.12g vs dense %.12g", i,
                  d->qpos[i], q[0][i]);
      }
    }
    if (pass == 1) {
      cr_expect(memcmp(q[0], q[1], sizeof(double) * m->nq) == 0, "two runs differ");
    }
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


// limit, friction loss and equality rows: the limit holds at the end of every step, friction
// loss is a box on the force (stick below 2 N, exact a = (f - 2) / m above), the connect
// equality holds to the linearization error of the step (rotation within one step)
Test(ipm, limit_frictionloss_equality) {
  mcModel* m = load("ipm_joints.xml");
  mcData* d = mc_makeData(m);
  int drop = m->jnt_qposadr[mc_name2id(m, mcOBJ_JOINT, "drop")];
  int floss = m->jnt_dofadr[mc_name2id(m, mcOBJ_JOINT, "floss")];
  int pend = mc_name2id(m, mcOBJ_BODY, "pend");
  double worstLimit = INFINITY, worstEq = 0;
  for (int k = 0; k < 200; k++) {
    d->qfrc_applied[floss] = k < 100 ? 1.5 : 3;
    double v0 = d->qvel[floss];
    step(m, d);
    worstLimit = fmin(worstLimit, d->qpos[drop] + 0.5);
    if (k < 100) {
      cr_expect(fabs(d->qvel[floss]) < 1e-8, "step %d: 1.5 N moved the 2 N friction loss (v %g)",
                k, d->qvel[floss]);
    } else {
      cr_expect(fabs((d->qvel[floss] - v0) / m->opt.timestep - 1) < 1e-6,
                "step %d: acceleration %g, expected (3 - 2) / 1", k,
                (d->qvel[floss] - v0) / m->opt.timestep);
    }

    // the anchor (0.1 m along the body's x axis) stays at its world point (2.1, 0, 1)
    mc_fwdPosition(m, d);
    const double* p = d->xpos + 3 * pend;
    const double* R = d->xmat + 9 * pend;
    double e = hypot(hypot(p[0] + 0.1 * R[0] - 2.1, p[1] + 0.1 * R[3]), p[2] + 0.1 * R[6] - 1);
    worstEq = fmax(worstEq, e);
  }
  cr_expect(worstLimit >= -1e-6, "limit violated by %g m", -worstLimit);
  cr_expect(fabs(d->qvel[m->jnt_dofadr[mc_name2id(m, mcOBJ_JOINT, "drop")]]) < 1e-9,
            "slider still moving");
  cr_expect(worstEq < 1e-3, "connect anchor drifted %g m", worstEq);
  printf("ipm equality: worst anchor error %.3g m over 2 s at h = 0.01\n", worstEq);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// condim 4 and 6: torsional and rolling friction in the higher-dimensional cone
// (fn, f1/mu1 .. f5/mu5) in Q: a sphere (r = 0.1 m, 1 kg, I = 0.4 m r^2) spinning about the vertical
// stops its spin at the rate mu_torsion g / (0.4 r^2) (condim 3: spins on); a rolling sphere
// slows at mu_rolling g / (1.4 r) (condim 3: rolls on); both cones (pyramidal rows too)
static void sphereFriction(int condim, int pyramidal, int roll, double* rate) {
  char xml[1024];
  snprintf(xml, sizeof(xml),
           "<mujoco><option timestep='0.002' solver='ipm' cone='%s'/><worldbody>"
           "<geom type='plane' size='5 5 0.1' margin='0.01' condim='%d'"
           " friction='0.8 0.02 0.004'/>"
           "<body pos='0 0 0.1'><freejoint/><geom type='sphere' size='0.1' mass='1' margin='0.01'"
           " condim='%d' friction='0.8 0.02 0.004'/></body></worldbody></mujoco>",
           pyramidal ? "pyramidal" : "elliptic", condim, condim);
  char error[512] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  cr_assert_not_null(m, "%s", error);
  mcData* d = mc_makeData(m);
  for (int k = 0; k < 20; k++) {  // settle
    step(m, d);
  }
  int axis = roll ? 4 : 5;  // angular y (rolling along x) or z (spin)
  d->qvel[axis] = 10;
  if (roll) {
    d->qvel[0] = 10 * 0.1;
  }
  double w0 = 0;
  for (int k = 0; k < 50; k++) {
    if (k == 10) {
      w0 = d->qvel[axis];
    }
    step(m, d);
  }
  *rate = (w0 - d->qvel[axis]) / (40 * m->opt.timestep);
  double worst = tu_minContactDist(m, d);
  cr_expect(worst >= -1e-6, "condim %d: penetration %g m", condim, -worst);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(ipm, condim4_6_torsion_rolling) {
  const double g = GRAVITY, r = 0.1;
  double spin = g * 0.02 / (0.4 * r * r), rollrate = g * 0.004 / (1.4 * r * r);
  for (int pyr = 0; pyr < 2; pyr++) {
    double rate;
    sphereFriction(3, pyr, 0, &rate);
    cr_expect(fabs(rate) < 1e-6, "condim 3: spin decays at %g rad/s^2", rate);
    sphereFriction(4, pyr, 0, &rate);
    cr_expect(fabs(rate - spin) < 0.01 * spin, "condim 4 (%s): spin decays at %g rad/s^2, "
              "torsion gives %g", pyr ? "pyramidal" : "elliptic", rate, spin);
    sphereFriction(6, pyr, 0, &rate);
    cr_expect(fabs(rate - spin) < 0.01 * spin, "condim 6 (%s): spin decays at %g, expected %g",
              pyr ? "pyramidal" : "elliptic", rate, spin);
    sphereFriction(3, pyr, 1, &rate);
    cr_expect(fabs(rate) < 1e-6, "condim 3: rolling decays at %g rad/s^2", rate);
    sphereFriction(6, pyr, 1, &rate);
    cr_expect(fabs(rate - rollrate) < 0.01 * rollrate, "condim 6 (%s): rolling decays at %g "
              "rad/s^2, rolling friction gives %g", pyr ? "pyramidal" : "elliptic", rate,
              rollrate);
  }
}


// the descriptor declares its parameters as config keys (ABI 1.3) with parseable defaults
Test(ipm, config_keys_declared) {
  mcModel* m = load("ipm_box_drop.xml");
  const mcpPluginExt* ext = m->solver->ext;
  cr_assert_not_null(ext);
  static const char* const names[] = {"kappa_tol", "residual_tol", "max_iter", "kappa_init",
                                      "condition", "recovery"};
  cr_assert_eq(ext->nconfig, 6);
  for (int i = 0; i < 6; i++) {
    cr_expect_str_eq(ext->config[i].name, names[i]);
    cr_expect_eq(ext->config[i].count, 1);
    char* end = NULL;
    double v = strtod(ext->config[i].def, &end);
    cr_expect(end && *end == 0, "%s: default '%s' is not a number", names[i],
              ext->config[i].def);
    cr_expect(v >= ext->config[i].lo && v <= ext->config[i].hi, "%s: default out of range",
              names[i]);
  }
  cr_assert_not_null(ext->warnings);
  cr_expect_str_eq(ext->warnings[0], "not_converged");
  cr_expect_null(ext->warnings[1]);
  mc_deleteModel(m);
}


// a humanoid (27 dofs, feet, self-contacts and limits inside lookahead margins) dropped 0.3 m at
// its timestep: the solves converge; at the kappa floor the corrector drops Mehrotra's
// second-order term (kept there, it settled on a point off the central path: 55 of 300 steps at
// the iteration limit with kappa_vio ~1e-7 while resting)
Test(ipm, humanoid_drop_converges) {
  char error[1024] = "";
  mcModel* m = mc_loadXML(MODUCO_SOURCE_DIR "/models/humanoid.xml", error, sizeof(error));
  cr_assert_not_null(m, "%s", error);
  cr_assert_eq(mc_setSolver(m, "ipm", error, sizeof(error)), 0, "%s", error);
  m->opt.cone = mcCONE_ELLIPTIC;
  for (int g = 0; g < m->ngeom; g++) {
    m->geom_margin[g] = fmax(m->geom_margin[g], 0.05);
  }
  for (int j = 0; j < m->njnt; j++) {
    m->jnt_margin[j] = fmax(m->jnt_margin[j], 0.1);
  }
  mcData* d = mc_makeData(m);
  d->qpos[2] += 0.3;
  int unconverged = 0, late = 0;
  for (int k = 0; k < 300; k++) {
    checkedStep(m, d, 1);  // unconverged solves too
    int it = d->solver_iter;
    const mcSolverStat* st = d->solver + (it < mcNSOLVER ? it : mcNSOLVER) - 1;
    int bad = it > 0 && !(st->improvement < 1e-8 && st->gradient < 1e-8);
    unconverged += bad;
    late += bad && k >= 200;  // at rest on the floor
  }
  printf("ipm humanoid: %d of 300 steps unconverged\n", unconverged);
  cr_expect(unconverged <= 5, "%d of 300 steps unconverged", unconverged);
  cr_expect(late == 0, "%d steps unconverged at rest", late);
  cr_expect(d->qpos[2] > 0 && d->qpos[2] < 0.5, "root at %g m", d->qpos[2]);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the diagnostic key 'condition': plugin_data holds the 1-norm condition number of the Newton
// matrix per iteration (>= 1, finite, 0 after the last), and the trajectory is unchanged
Test(ipm, condition_number_diagnostic) {
  double q[2][64] = {{0}};
  for (int pass = 0; pass < 2; pass++) {
    mcModel* m = load("ipm_stack5.xml");
    cr_assert(m->nq <= 64);
    int inst = m->plugin_solver;
    cr_assert(inst >= 0 && m->plugin_confignum[inst] == 6);
    m->plugin_config[m->plugin_configadr[inst] + 4] = pass;
    mcData* d = mc_makeData(m);
    for (int k = 0; k < 50; k++) {
      step(m, d);
      const double* cond = (const double*)d->plugin_data[inst];
      for (int i = 0; i < mcNSOLVER && pass; i++) {
        if (i < d->solver_iter) {
          cr_assert(cond[i] >= 1 && isfinite(cond[i]), "step %d iteration %d: cond %g", k, i,
                    cond[i]);
        } else {
          cr_assert(cond[i] == 0, "step %d: cond[%d] = %g after the last iteration", k, i,
                    cond[i]);
        }
      }
    }
    memcpy(q[pass], d->qpos, sizeof(double) * m->nq);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
  cr_expect(memcmp(q[0], q[1], sizeof(q[0])) == 0, "the diagnostic changed the trajectory");
}


// warning 'not_converged' counts the solves that stop unconverged (one iteration allowed), and
// none on the converging drop
Test(ipm, warning_not_converged_counted) {
  for (int pass = 0; pass < 2; pass++) {
    mcModel* m = load("ipm_box_drop.xml");
    if (pass) {
      m->opt.iterations = 1;
    }
    int inst = m->plugin_solver;
    mcData* d = mc_makeData(m);
    for (int k = 0; k < 100; k++) {
      checkedStep(m, d, 0);  // one iteration: the unconverged forces must pass too
    }
    int count = d->plugin_warncount[m->plugin_warnadr[inst]];
    if (pass) {
      cr_expect(count > 0, "one iteration: no not_converged counted");
    } else {
      cr_expect_eq(count, 0, "converging drop: %d not_converged counted", count);
    }
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


// the corpus quadruped (dm_quadruped, condim-6 feet, tendons, equality rows) dropped 0.3 m at
// 20 Hz with lookahead margins: every solve converges and it comes to rest standing (root 0.40-0.50
// m; the soft newton bounces to 0.7-0.9 m here), on its terrain height field (collision-hfield's
// margin contacts at the true distance; before, spheres above it read as deeply penetrating)
Test(ipm, quadruped_20hz_converges_and_stands) {
  char error[1024] = "";
  mcModel* m = mc_loadXML("/work/shared/corpus/dm_quadruped/quadruped.xml", error, sizeof(error));
  cr_assert_not_null(m, "%s", error);
  cr_assert_eq(mc_setSolver(m, "ipm", error, sizeof(error)), 0, "%s", error);
  m->opt.cone = mcCONE_ELLIPTIC;
  m->opt.timestep = 0.05;
  for (int g = 0; g < m->ngeom; g++) {
    m->geom_margin[g] = fmax(m->geom_margin[g], 0.15);
  }
  for (int j = 0; j < m->njnt; j++) {
    m->jnt_margin[j] = fmax(m->jnt_margin[j], 0.5);
  }
  mcData* d = mc_makeData(m);
  d->qpos[2] += 0.3;
  for (int k = 0; k < 40; k++) {
    // collision 'primitive' gives a foot capsule standing upright a second frame axis along the
    // normal (its axis), which the check refuses: not the solver's (docs/dojo.md, Check mode)
    stepChecked(m, d, 1);
  }
  cr_expect(d->qpos[2] > 0.40 && d->qpos[2] < 0.50, "root at %g m after 2 s", d->qpos[2]);
  cr_expect(fabs(d->qvel[2]) < 1e-2, "still moving: vz %g", d->qvel[2]);
  mc_deleteData(d);
  mc_deleteModel(m);
}
