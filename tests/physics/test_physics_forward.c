// Whole-pipeline conformance against MuJoCo 2.2.2 for each solver and both cones: the same MJCF
// in both engines, the same state (MuJoCo's, after it ran into its contacts), then mc_forward vs
// mj_forward. Contacts and constraint rows must be the same; efc_force and qacc must agree to
// 1e-6 (Newton) and 1e-4 (CG, PGS), relative with scale max(1, |MuJoCo's value|), plus ten times
// MuJoCo's own sensitivity at that state (its change when qvel moves by 1e-13 relative: where the
// reference itself is not stable, agreement is only defined within that). The diagnosed
// differences below are the only cases allowed more.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "physics.h"

static const double kTol[3] = {1e-4, 1e-4, 1e-6};      // by solver: pgs, cg, newton
#define SENS_FACTOR   10                              // times MuJoCo's own sensitivity
#define SENS_QVEL     1e-13                           // relative qvel perturbation measuring it
#define ROW_TOL       1e-12                           // efc_J, efc_pos of the weld rows

//---------------------------------- documented exceptions -----------------------------------------

// each limit sits just above the worst relative error measured over the states of the case (the
// default bound there is kTol + 10 x MuJoCo's sensitivity, which these cases may exceed)
static const PhysException kExceptions[] = {
  // closed-loop equality scene, CG: the problem is quadratic (one Newton step per line search,
  // as in 2.2.2), but CG on it amplifies round-off by ~100x per iteration, so 2.2.2 is not
  // reproducible at the last bit there: scaling its own qfrc_smooth by 1 +- 1e-16 moves its
  // qacc by 8.0e-4 at state 2 (its qvel-based sensitivity there is 3.9e-6), and Moduco's inputs
  // differ from its at 1e-15. With 2.2.2's exact solver inputs copied in, Moduco's CG agrees to
  // 4.0e-6 at state 2. Measured 6.8e-4 to 8.0e-4 depending on the round-off of the code (at
  // times within the default bound); the cone plays no part (no contacts)
  {"equality", mjSOL_CG, mjCONE_PYRAMIDAL, "qacc", 9e-4, "round-off amplified by 2.2.2's own CG "
   "iterations on this scene"},
  {"equality", mjSOL_CG, mjCONE_ELLIPTIC, "qacc", 9e-4, "round-off amplified by 2.2.2's own CG "
   "iterations on this scene"},

  // (22 humanoids, elliptic cone, CG at its 100-iteration cap, was an exception at 6e-2: the line
  // search now accepts a point by 2.2.2's rule, scaled slope below tolerance * ls_tolerance, and
  // visits the same points, so the iterates agree until round-off grows; measured 1.3e-3 in
  // qacc, within the default bound)
};
static const int kNexception = (int)(sizeof(kExceptions) / sizeof(kExceptions[0]));
static const char* const kChecks[] = {"efc_force", "qacc", NULL};


//---------------------------------- helpers -------------------------------------------------------

// MuJoCo's own sensitivity at the current state: the relative change of its efc_force and qacc
// when qvel is scaled by 1 + SENS_QVEL (an unconverged or ill-conditioned reference moves by
// itself)
typedef struct {
  double force, qacc;
} Sensitivity;

static Sensitivity mujocoSensitivity(PhysPair* p) {
  const mjModel* m = p->mj;
  Sensitivity s = {0, 0};
  mjData* d = mj_makeData(m);
  cr_assert_not_null(d);
  mj_copyData(d, m, p->dj);
  mj_forward(m, d);
  int nefc = d->nefc;
  double* qacc = mju_malloc(sizeof(double) * (m->nv + 1));
  double* force = mju_malloc(sizeof(double) * (nefc + 1));
  memcpy(qacc, d->qacc, sizeof(double) * m->nv);
  memcpy(force, d->efc_force, sizeof(double) * nefc);
  mj_copyData(d, m, p->dj);
  for (int i = 0; i < m->nv; i++) {
    d->qvel[i] *= 1 + SENS_QVEL;
  }
  mj_forward(m, d);
  cr_assert_eq(d->nefc, nefc, "%s: qvel perturbation changed nefc", p->name);
  s.qacc = phys_relerr(d->qacc, qacc, m->nv, NULL);
  s.force = phys_relerr(d->efc_force, force, nefc, NULL);
  mju_free(force);
  mju_free(qacc);
  mj_deleteData(d);
  return s;
}


// bound of one check at one state: the exception's limit, else kTol + SENS_FACTOR x sensitivity
static double bound(const char* scene, int solver, int cone, const char* check, double sens,
                    const char** why) {
  double dflt = kTol[solver] + SENS_FACTOR * sens;
  return phys_limit(kExceptions, kNexception, scene, solver, cone, check, dflt, why);
}


// compare one scene at nstate states for every solver and cone
static void forwardScene(const char* name, int nstate) {
  const PhysScene* s = phys_scene(name);
  cr_assert_not_null(s, "unknown scene %s", name);
  phys_quiet();
  for (int solver = mjSOL_NEWTON; solver >= mjSOL_PGS; solver--) {
    for (int cone = mjCONE_PYRAMIDAL; cone <= mjCONE_ELLIPTIC; cone++) {
      // load and select in both
      char error[2048] = "";
      PhysPair p;
      cr_assert_eq(phys_loadScene(&p, s, error, sizeof(error)), 0, "%s", error);
      cr_assert_eq(phys_setSolver(&p, solver, cone, error, sizeof(error)), 0, "%s", error);
      const char* sn = phys_solverName(solver);
      const char* cn = phys_coneName(cone);

      // worst errors over the states; whether every state is within the default bound
      double wf = 0, wa = 0, wsf = 0, wsa = 0;
      int maxefc = 0, maxcon = 0, fits_force = 1, fits_qacc = 1;
      const char* why_force = NULL;
      const char* why_qacc = NULL;
      for (int k = 0; k < nstate; k++) {
        phys_sceneState(&p, s, k);
        phys_copyState(&p);
        Sensitivity sens = mujocoSensitivity(&p);
        mj_forward(p.mj, p.dj);
        mc_forward(p.mc, p.dc);
        PhysErr e;
        char msg[1024] = "";
        int rc = phys_compareForward(&p, &e, msg, sizeof(msg));
        cr_expect_eq(rc, 0, "%s %s state %d: %s", sn, cn, k, msg);
        if (rc) {
          continue;
        }

        // efc_force and qacc within tolerance plus MuJoCo's own sensitivity (or the exception)
        const mjData* r = p.dj;
        const mcData* d = p.dc;
        double bf = bound(name, solver, cone, "efc_force", sens.force, &why_force);
        double ba = bound(name, solver, cone, "qacc", sens.qacc, &why_qacc);
        cr_expect(e.force <= bf, "%s %s %s state %d: efc_force[%d] moduco %.17g mujoco %.17g "
                  "(relerr %.3e > bound %.3e = %s; mujoco sensitivity %.3e; iter %d vs %d)",
                  name, sn, cn, k, e.force_at, d->efc_force[e.force_at], r->efc_force[e.force_at],
                  e.force, bf, why_force ? why_force : "tol + 10 x sensitivity", sens.force,
                  d->solver_iter, r->solver_iter);
        cr_expect(e.qacc <= ba, "%s %s %s state %d: qacc[%d] moduco %.17g mujoco %.17g "
                  "(relerr %.3e > bound %.3e = %s; mujoco sensitivity %.3e; iter %d vs %d)",
                  name, sn, cn, k, e.qacc_at, d->qacc[e.qacc_at], r->qacc[e.qacc_at], e.qacc, ba,
                  why_qacc ? why_qacc : "tol + 10 x sensitivity", sens.qacc, d->solver_iter,
                  r->solver_iter);
        fits_force &= e.force <= kTol[solver] + SENS_FACTOR * sens.force;
        fits_qacc &= e.qacc <= kTol[solver] + SENS_FACTOR * sens.qacc;
        wf = fmax(wf, e.force);
        wa = fmax(wa, e.qacc);
        wsf = fmax(wsf, sens.force);
        wsa = fmax(wsa, sens.qacc);
        maxefc = r->nefc > maxefc ? r->nefc : maxefc;
        maxcon = r->ncon > maxcon ? r->ncon : maxcon;
      }

      // a scene that produced no constraint rows would test nothing
      cr_expect_gt(maxefc, 0, "%s: no constraints in any state", name);
      if (s->contact) {
        cr_expect_gt(maxcon, 0, "%s: no contacts in any state", name);
      }
      fprintf(stderr, "[physics] forward %-18s %-6s %-9s ncon<=%4d nefc<=%5d efc_force %.2e%s "
              "qacc %.2e%s (mujoco sensitivity %.1e %.1e)\n", name, sn, cn, maxcon, maxefc, wf,
              why_force ? " [exception]" : "", wa, why_qacc ? " [exception]" : "", wsf, wsa);
      if (why_force && fits_force) {
        fprintf(stderr, "%s %s %s: exception for efc_force no longer needed (%.3e)\n", name, sn,
                cn, wf);
      }
      if (why_qacc && fits_qacc) {
        fprintf(stderr, "%s %s %s: exception for qacc no longer needed (%.3e)\n", name, sn, cn,
                wa);
      }
      phys_free(&p);
    }
  }
}


// the rows of every weld with torquescale != 1 (3 rotational rows each): efc_J agrees with MuJoCo,
// Moduco's efc_pos is torquescale x MuJoCo's (MuJoCo 3.x semantics: torquescale scales the
// angular residual; 2.2.2 scales only the Jacobian rows). Every other row agrees in efc_J, efc_pos.
static void weldRows(const char* name, int nstate) {
  const PhysScene* s = phys_scene(name);
  cr_assert_not_null(s, "unknown scene %s", name);
  phys_quiet();
  char error[2048] = "";
  PhysPair p;
  cr_assert_eq(phys_loadScene(&p, s, error, sizeof(error)), 0, "%s", error);
  const mjModel* m = p.mj;
  int nv = m->nv, nscaled = 0;
  double wj = 0, wpos = 0, wscaled = 0;
  cr_assert_not(mj_isSparse(m), "%s: efc_J is compared dense", name);
  for (int k = 0; k < nstate; k++) {
    phys_sceneState(&p, s, k);
    phys_copyState(&p);
    mj_forward(p.mj, p.dj);
    mc_forward(p.mc, p.dc);
    PhysErr e;
    char msg[1024] = "";
    int rc = phys_compareForward(&p, &e, msg, sizeof(msg));
    cr_expect_eq(rc, 0, "state %d: %s", k, msg);
    if (rc) {
      continue;
    }
    const mjData* r = p.dj;
    const mcData* d = p.dc;
    for (int i = 0; i < r->nefc; i++) {
      // row of a weld: its offset in the weld's 6 rows (3..5 rotational), the torquescale
      int id = r->efc_id[i], first = i;
      while (first > 0 && r->efc_type[first - 1] == r->efc_type[i] &&
             r->efc_id[first - 1] == id) {
        first--;
      }
      int weld = r->efc_type[i] == mjCNSTR_EQUALITY && m->eq_type[id] == mjEQ_WELD;
      double ts = weld ? m->eq_data[mjNEQDATA * id + 10] : 1;
      int scaled = weld && i - first >= 3 && ts != 1;

      // efc_J agrees on every row
      int at;
      double ej = phys_relerr(d->efc_J + nv * i, r->efc_J + nv * i, nv, &at);
      cr_expect_leq(ej, ROW_TOL, "%s state %d row %d: efc_J[%d] moduco %.17g mujoco %.17g", name,
                    k, i, at, d->efc_J[nv * i + at], r->efc_J[nv * i + at]);
      wj = fmax(wj, ej);

      // efc_pos: torquescale x MuJoCo's on the scaled rows, MuJoCo's on the others
      double want = scaled ? ts * r->efc_pos[i] : r->efc_pos[i];
      double ep = phys_relerr(d->efc_pos + i, &want, 1, NULL);
      cr_expect_leq(ep, ROW_TOL, "%s state %d row %d (%s): efc_pos moduco %.17g, expected "
                    "%.17g (mujoco %.17g, torquescale %g)", name, k, i,
                    scaled ? "rotational weld row" : "other row", d->efc_pos[i], want,
                    r->efc_pos[i], ts);
      if (scaled) {
        wscaled = fmax(wscaled, ep);
        nscaled++;
      } else {
        wpos = fmax(wpos, ep);
      }
    }
  }

  // the scene must exercise the scaled rows: 2 welds x 3 rows x nstate
  cr_expect_eq(nscaled, 6 * nstate, "%s: %d scaled rows, expected %d", name, nscaled,
               6 * nstate);
  fprintf(stderr, "[physics] weld rows %s: efc_J %.2e, efc_pos %.2e, torquescale x efc_pos "
          "%.2e (%d rows)\n", name, wj, wpos, wscaled, nscaled);
  phys_free(&p);
}


// every exception names a known scene and check, a limit and a cause
Test(physics_forward, exceptions_wellformed) {
  char msg[512] = "";
  cr_expect_eq(phys_checkExceptions(kExceptions, kNexception, kChecks, NULL, msg, sizeof(msg)), 0,
               "%s", msg);
}


Test(physics_forward, spheres, .timeout = 120) {
  forwardScene("spheres", 5);
}


Test(physics_forward, capsules, .timeout = 120) {
  forwardScene("capsules", 5);
}


Test(physics_forward, boxes_on_plane, .timeout = 120) {
  forwardScene("boxes", 5);
}


Test(physics_forward, sphere_stack, .timeout = 120) {
  forwardScene("sphere_stack", 5);
}


Test(physics_forward, capsule_stack, .timeout = 120) {
  forwardScene("capsule_stack", 5);
}


Test(physics_forward, equality, .timeout = 120) {
  forwardScene("equality", 5);
}


// weld rows scaled by torquescale: Moduco follows MuJoCo 3.x (the angular residual efc_pos is
// scaled too), 2.2.2 scales only the Jacobian rows, so the rows are compared (weldRows) and
// efc_force and qacc, which follow from the different residual, are not compared with 2.2.2 here
Test(physics_forward, weld_torquescale, .timeout = 120) {
  weldRows("weld_torquescale", 5);
}


// the same welds with torquescale 1, where both semantics coincide: full agreement
Test(physics_forward, weld_torquescale_1, .timeout = 120) {
  forwardScene("weld_torquescale_1", 5);
}


Test(physics_forward, limits_frictionloss, .timeout = 120) {
  forwardScene("limits", 5);
}


Test(physics_forward, humanoid_falling, .timeout = 120) {
  forwardScene("humanoid", 4);
}


Test(physics_forward, humanoids22_falling, .timeout = 120) {
  forwardScene("22_humanoids", 3);
}
