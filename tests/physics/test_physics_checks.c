// Physical checks through the whole pipeline, for each solver: a box at rest on an incline below
// the friction angle stays put for 10 s; the Dojo lateral-drift experiment (a box launched
// sideways slides straight on the elliptic cone, drifts on the pyramidal one); and inverse
// dynamics after forward dynamics gives back the applied forces.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "physics.h"

#define PI 3.14159265358979323846

// incline: 15 degrees (tan = 0.268) under friction 0.6
#define INCLINE_DEG     15.0
#define INCLINE_MU      0.6
#define INCLINE_SETTLE  0.2         // seconds before the reference position is taken
#define INCLINE_TIME    10.0        // seconds the box must stay put
#define INCLINE_BOUND   2e-3        // metres of displacement allowed over INCLINE_TIME

// lateral drift: launch speed, direction (away from the pyramid's edges and diagonals), friction
#define DRIFT_SPEED     2.0
#define DRIFT_DEG       30.0
#define DRIFT_MU        0.3
#define DRIFT_TIME      1.5
#define DRIFT_BOUND     1e-3        // elliptic drift allowed, as a fraction of the distance slid


// box of half size 0.1 resting on a plane tilted about y by deg degrees
static char* inclineXml(double deg, double mu) {
  double a = deg * PI / 180;
  char* xml = malloc(2048);
  cr_assert_not_null(xml);
  snprintf(xml, 2048,
           "<mujoco model='incline'>\n"
           " <option timestep='0.002'/>\n"
           " <worldbody>\n"
           "  <geom type='plane' size='5 5 .1' euler='0 %.17g 0' friction='%g 0.005 0.0001'/>\n"
           "  <body pos='%.17g 0 %.17g' euler='0 %.17g 0'><freejoint/>\n"
           "   <geom type='box' size='.1 .1 .1' friction='%g 0.005 0.0001'/></body>\n"
           " </worldbody>\n"
           "</mujoco>\n", deg, mu, 0.1 * sin(a), 0.1 * cos(a), deg, mu);
  return xml;
}


// box launched sideways just above a plane
static const char kDriftXml[] =
  "<mujoco model='drift'>\n"
  " <option timestep='0.002'/>\n"
  " <worldbody>\n"
  "  <geom type='plane' size='10 10 .1' friction='0.3'/>\n"
  "  <body pos='0 0 0.12'><freejoint/>\n"
  "   <geom type='box' size='.1 .1 .1' condim='3' friction='0.3'/></body>\n"
  " </worldbody>\n"
  "</mujoco>\n";


//---------------------------------- incline -------------------------------------------------------

Test(physics_checks, incline_box_stays_put, .timeout = 120) {
  phys_quiet();
  char* xml = inclineXml(INCLINE_DEG, INCLINE_MU);
  cr_assert_lt(tan(INCLINE_DEG * PI / 180), INCLINE_MU, "the test incline must be below the "
               "friction angle");
  for (int solver = mjSOL_PGS; solver <= mjSOL_NEWTON; solver++) {
    for (int cone = mjCONE_PYRAMIDAL; cone <= mjCONE_ELLIPTIC; cone++) {
      char error[2048] = "";
      PhysPair p;
      cr_assert_eq(phys_loadText(&p, "incline", xml, error, sizeof(error)), 0, "%s", error);
      cr_assert_eq(phys_setSolver(&p, solver, cone, error, sizeof(error)), 0, "%s", error);
      const mcModel* m = p.mc;
      mcData* d = p.dc;
      double dt = m->opt.timestep;

      // settle, then take the reference position
      int nsettle = (int)lround(INCLINE_SETTLE / dt);
      int nstep = (int)lround(INCLINE_TIME / dt);
      for (int i = 0; i < nsettle; i++) {
        mc_step(m, d);
      }
      double ref[3] = {d->qpos[0], d->qpos[1], d->qpos[2]};
      double worst = 0;
      int nan = 0;
      for (int i = 0; i < nstep && !nan; i++) {
        mc_step(m, d);
        nan = phys_nonfinite(d->qpos, m->nq) || phys_nonfinite(d->qacc, m->nv);
        double dx = d->qpos[0] - ref[0], dy = d->qpos[1] - ref[1], dz = d->qpos[2] - ref[2];
        worst = fmax(worst, sqrt(dx * dx + dy * dy + dz * dz));
      }

      // the same run in MuJoCo, for the report
      for (int i = 0; i < nsettle; i++) {
        mj_step(p.mj, p.dj);
      }
      double mjref[3] = {p.dj->qpos[0], p.dj->qpos[1], p.dj->qpos[2]};
      for (int i = 0; i < nstep; i++) {
        mj_step(p.mj, p.dj);
      }
      double mjdisp = sqrt(pow(p.dj->qpos[0] - mjref[0], 2) + pow(p.dj->qpos[1] - mjref[1], 2) +
                           pow(p.dj->qpos[2] - mjref[2], 2));
      fprintf(stderr, "[physics] incline %g deg mu %g %-6s %-9s: max displacement over %g s "
              "%.3e m (mujoco final %.3e m)\n", INCLINE_DEG, INCLINE_MU, phys_solverName(solver),
              phys_coneName(cone), INCLINE_TIME, worst, mjdisp);
      cr_expect_not(nan, "%s %s: NaN on the incline", phys_solverName(solver),
                    phys_coneName(cone));
      cr_expect_lt(worst, INCLINE_BOUND, "%s %s: the box moved %.3e m in %g s on a %g degree "
                   "incline with friction %g (bound %g m)", phys_solverName(solver),
                   phys_coneName(cone), worst, INCLINE_TIME, INCLINE_DEG, INCLINE_MU,
                   INCLINE_BOUND);
      phys_free(&p);
    }
  }
  free(xml);
}


// the same incline above the friction angle: the box must slide (so the check above can fail)
Test(physics_checks, incline_box_slides_above_friction_angle, .timeout = 60) {
  phys_quiet();
  char* xml = inclineXml(35, 0.4);
  for (int solver = mjSOL_PGS; solver <= mjSOL_NEWTON; solver++) {
    char error[2048] = "";
    PhysPair p;
    cr_assert_eq(phys_loadText(&p, "incline35", xml, error, sizeof(error)), 0, "%s", error);
    cr_assert_eq(phys_setSolver(&p, solver, mjCONE_ELLIPTIC, error, sizeof(error)), 0, "%s",
                 error);
    double x0 = p.dc->qpos[0];
    for (int i = 0; i < 500; i++) {
      mc_step(p.mc, p.dc);
    }
    // along the slope: g (sin - mu cos) t^2 / 2 = 0.5 * 9.81 * 0.246 * 1 ~ 1.2 m
    double moved = fabs(p.dc->qpos[0] - x0);
    cr_expect_gt(moved, 0.5, "%s: the box moved only %.3e m in 1 s on a 35 degree incline with "
                 "friction 0.4", phys_solverName(solver), moved);
    phys_free(&p);
  }
  free(xml);
}


//---------------------------------- lateral drift -------------------------------------------------

// launch the box, slide, return the drift (distance off the launch line) and the distance slid
static void driftRun(PhysPair* p, int moduco, double* drift, double* slid) {
  double a = DRIFT_DEG * PI / 180;
  double dir[2] = {cos(a), sin(a)};
  double* qpos = moduco ? p->dc->qpos : p->dj->qpos;
  double* qvel = moduco ? p->dc->qvel : p->dj->qvel;
  qvel[0] = DRIFT_SPEED * dir[0];
  qvel[1] = DRIFT_SPEED * dir[1];
  double x0 = qpos[0], y0 = qpos[1];
  int nstep = (int)lround(DRIFT_TIME / p->mj->opt.timestep);
  for (int i = 0; i < nstep; i++) {
    if (moduco) {
      mc_step(p->mc, p->dc);
    } else {
      mj_step(p->mj, p->dj);
    }
  }
  double dx = qpos[0] - x0, dy = qpos[1] - y0;
  *slid = dx * dir[0] + dy * dir[1];
  *drift = fabs(-dx * dir[1] + dy * dir[0]);
}


Test(physics_checks, lateral_drift_dojo, .timeout = 60) {
  phys_quiet();
  for (int solver = mjSOL_PGS; solver <= mjSOL_NEWTON; solver++) {
    double drift[2], slid[2];
    for (int cone = mjCONE_PYRAMIDAL; cone <= mjCONE_ELLIPTIC; cone++) {
      char error[2048] = "";
      PhysPair p;
      cr_assert_eq(phys_loadText(&p, "drift", kDriftXml, error, sizeof(error)), 0, "%s", error);
      cr_assert_eq(phys_setSolver(&p, solver, cone, error, sizeof(error)), 0, "%s", error);
      double mjdrift, mjslid;
      driftRun(&p, 1, drift + cone, slid + cone);
      driftRun(&p, 0, &mjdrift, &mjslid);
      fprintf(stderr, "[physics] drift %-6s %-9s: slid %.4f m, lateral drift %.3e m (%.2e of "
              "the slide); mujoco slid %.4f m, drift %.3e m\n", phys_solverName(solver),
              phys_coneName(cone), slid[cone], drift[cone], drift[cone] / slid[cone], mjslid,
              mjdrift);

      // the box must have slid and come to rest: v^2 / (2 mu g) = 0.68 m
      cr_expect(slid[cone] > 0.4 && slid[cone] < 1.0, "%s %s: slid %.4f m, expected about "
                "0.68 m", phys_solverName(solver), phys_coneName(cone), slid[cone]);
      phys_free(&p);
    }

    // elliptic: a straight line; pyramidal: a visible drift (the cone option is in effect)
    cr_expect_lt(drift[mjCONE_ELLIPTIC], DRIFT_BOUND * slid[mjCONE_ELLIPTIC], "%s elliptic: "
                 "lateral drift %.3e m over %.4f m slid", phys_solverName(solver),
                 drift[mjCONE_ELLIPTIC], slid[mjCONE_ELLIPTIC]);
    cr_expect_gt(drift[mjCONE_PYRAMIDAL], 10 * drift[mjCONE_ELLIPTIC], "%s: pyramidal drift "
                 "%.3e m is not clearly above the elliptic %.3e m", phys_solverName(solver),
                 drift[mjCONE_PYRAMIDAL], drift[mjCONE_ELLIPTIC]);
  }
}


//---------------------------------- inverse of forward --------------------------------------------

// forward (with random applied forces) then inverse at the resulting qacc: qfrc_inverse must give
// back qfrc_applied + qfrc_actuator; the solver runs with a tight tolerance and returns the worst
// relative error
static double inverseScene(const char* name, int solver, int cone) {
  const PhysScene* s = phys_scene(name);
  cr_assert_not_null(s);
  char error[2048] = "";
  PhysPair p;
  cr_assert_eq(phys_loadScene(&p, s, error, sizeof(error)), 0, "%s", error);
  cr_assert_eq(phys_setSolver(&p, solver, cone, error, sizeof(error)), 0, "%s", error);
  phys_setIterations(&p, 1000, 1e-12);
  const mcModel* m = p.mc;
  mcData* d = p.dc;
  int nv = m->nv;
  double* want = calloc(nv, sizeof(double));
  double* got = calloc(nv, sizeof(double));
  cr_assert(want && got);
  double worst = 0;
  for (int k = 0; k < 3; k++) {
    phys_sceneState(&p, s, k);
    phys_copyState(&p);
    mc_forward(m, d);
    int nefc = d->nefc;
    for (int i = 0; i < nv; i++) {
      want[i] = d->qfrc_applied[i] + d->qfrc_actuator[i];
    }
    mc_inverse(m, d);
    memcpy(got, d->qfrc_inverse, sizeof(double) * nv);
    int at;
    double e = phys_relerr(got, want, nv, &at);
    cr_expect_eq(d->nefc, nefc, "%s: nefc changed from %d to %d in mc_inverse", name, nefc,
                 d->nefc);
    cr_expect_not(phys_nonfinite(got, nv), "%s %s: non-finite qfrc_inverse", name,
                  phys_solverName(solver));
    worst = fmax(worst, e);
    if (e > 1e-3) {
      fprintf(stderr, "[physics] inverse %s %s %s state %d: qfrc_inverse[%d] %.17g, applied "
              "%.17g\n", name, phys_solverName(solver), phys_coneName(cone), k, at, got[at],
              want[at]);
    }
  }
  free(want);
  free(got);
  phys_free(&p);
  return worst;
}


Test(physics_checks, inverse_of_forward, .timeout = 120) {
  phys_quiet();
  static const char* const scenes[] = {"spheres", "boxes", "capsule_stack", "equality",
                                       "limits", "humanoid"};
  static const double tol[3] = {1e-4, 1e-5, 1e-7};
  for (int solver = mjSOL_PGS; solver <= mjSOL_NEWTON; solver++) {
    for (int cone = mjCONE_PYRAMIDAL; cone <= mjCONE_ELLIPTIC; cone++) {
      double worst = 0;
      const char* where = "";
      for (size_t i = 0; i < sizeof(scenes) / sizeof(scenes[0]); i++) {
        double e = inverseScene(scenes[i], solver, cone);
        cr_expect_leq(e, tol[solver], "%s %s %s: inverse of forward misses qfrc_applied by "
                      "%.3e relative (tolerance %.0e)", scenes[i], phys_solverName(solver),
                      phys_coneName(cone), e, tol[solver]);
        if (e >= worst) {
          worst = e;
          where = scenes[i];
        }
      }
      fprintf(stderr, "[physics] inverse-of-forward %-6s %-9s: worst relative error %.2e (%s)\n",
              phys_solverName(solver), phys_coneName(cone), worst, where);
    }
  }
}
