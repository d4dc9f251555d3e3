// Inverse dynamics: the analytic constraint force against MuJoCo 2.2.2's mj_inverse (same state
// through the bridge, and whole pipelines side by side), forward-then-inverse recovering the
// applied forces, the discrete-time inverse, and the fwdinv comparison.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "engine/constraint.h"
#include "engine/engine.h"
#include "testutil.h"

#define MODEL_DIR MODUCO_SOURCE_DIR "/tests/constraint/models/"
#define MJ_DIR "/usr/share/mujoco/model/"


static unsigned long long g_rng;


// uniform in [-1, 1]
static double rnd(void) {
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return (double)(g_rng % 200001) / 100000.0 - 1;
}


// random state around qpos0 in MuJoCo (optionally settled first), with qacc from mj_forward plus
// a perturbation of size accscale (so all constraint states occur)
static void mjRandomState(const mjModel* m, mjData* d, unsigned seed, double qscale,
                          int settle) {
  g_rng = 88172645463325252ULL + seed * 2654435761ULL;
  mj_resetData(m, d);
  for (int k = 0; k < settle; k++) {
    mj_step(m, d);
  }
  for (int i = 0; i < m->nq; i++) {
    d->qpos[i] += qscale * rnd();
  }
  mj_normalizeQuat(m, d->qpos);
  for (int i = 0; i < m->nv; i++) {
    d->qvel[i] += 0.3 * rnd();
  }
}


//---------------------------------- bridge: same rows, same qacc ----------------------------------

static double bridgeInverse(const char* file, int cone, double qscale, int settle, double accscale,
                            int nseed) {
  double worst = 0;
  int states[5] = {0};
  for (unsigned seed = 0; seed < (unsigned)nseed; seed++) {
    char error[1000];
    Bridge b;
    cr_assert(bridge_loadFile(&b, file, error, sizeof(error)) == 0, "%s: %s", file, error);
    if (cone >= 0) {
      b.mj->opt.cone = cone;
    }
    mjRandomState(b.mj, b.dj, seed, qscale, settle);
    bridge_forward(&b);

    // MuJoCo's inverse at the forward qacc plus a perturbation
    int nv = b.mj->nv;
    for (int i = 0; i < nv; i++) {
      b.dj->qacc[i] += accscale * rnd();
    }
    mj_inverse(b.mj, b.dj);
    cr_assert_eq(b.dc->nefc, b.dj->nefc);

    // ours on the same rows
    mc_invConstraint(b.mc, b.dc, b.dj->qacc);
    int at;
    double ef = bridge_err(b.dc->efc_force, b.dj->efc_force, b.dj->nefc, &at);
    cr_expect(ef <= 1e-9, "%s seed %u: efc_force[%d] %.12g vs %.12g", file, seed, at,
              at >= 0 ? b.dc->efc_force[at] : 0, at >= 0 ? b.dj->efc_force[at] : 0);
    double eq = bridge_err(b.dc->qfrc_constraint, b.dj->qfrc_constraint, nv, &at);
    cr_expect(eq <= 1e-9, "%s seed %u: qfrc_constraint[%d] %.12g vs %.12g", file, seed, at,
              at >= 0 ? b.dc->qfrc_constraint[at] : 0, at >= 0 ? b.dj->qfrc_constraint[at] : 0);
    for (int i = 0; i < b.dj->nefc; i++) {
      cr_expect_eq(b.dc->efc_state[i], b.dj->efc_state[i], "%s seed %u: efc_state[%d]", file,
                   seed, i);
      states[b.dc->efc_state[i]]++;
    }
    worst = fmax(worst, fmax(ef, eq));
    bridge_free(&b);
  }
  fprintf(stderr,
          "[inverse] bridge %-16s cone %d: worst rel. err %.2e (states sat %d quad %d lin %d "
          "cone %d)\n", strrchr(file, '/') + 1, cone, worst, states[0], states[1],
          states[2] + states[3], states[4]);
  return worst;
}


Test(inverse, bridge_limits_frictionloss) {
  bridgeInverse(MODEL_DIR "limits.xml", -1, 0.4, 0, 3, 10);
}


Test(inverse, bridge_equality) {
  bridgeInverse(MODEL_DIR "equality.xml", -1, 0.3, 0, 3, 10);
}


Test(inverse, bridge_contacts) {
  bridgeInverse(MODEL_DIR "box_pyramidal.xml", -1, 0.01, 0, 2, 10);
  bridgeInverse(MODEL_DIR "box_elliptic.xml", -1, 0.01, 0, 2, 10);
  bridgeInverse(MJ_DIR "humanoid/humanoid.xml", mjCONE_PYRAMIDAL, 0.02, 300, 5, 5);
  bridgeInverse(MJ_DIR "humanoid/humanoid.xml", mjCONE_ELLIPTIC, 0.02, 300, 5, 5);
}


//---------------------------------- full pipelines ------------------------------------------------

typedef struct {
  mjModel* mj;
  mjData* dj;
  mcModel* mc;
  mcData* dc;
} Pair;


static void pairLoad(Pair* p, const char* file) {
  char error[1000] = "";
  p->mj = mj_loadXML(file, NULL, error, sizeof(error));
  cr_assert(p->mj, "MuJoCo: %s: %s", file, error);
  p->mc = mc_loadXML(file, error, sizeof(error));
  cr_assert(p->mc, "Moduco: %s: %s", file, error);
  tu_legacy222(p->mc);
  tu_legacyWeldWeights(p->mc);
  tu_legacyCollision(p->mc);
  p->dj = mj_makeData(p->mj);
  p->dc = mc_makeData(p->mc);
  cr_assert(p->dj && p->dc);
  cr_assert(p->mc->nv == p->mj->nv && p->mc->nq == p->mj->nq && p->mc->nu == p->mj->nu);
}


static void pairFree(Pair* p) {
  mc_deleteData(p->dc);
  mc_deleteModel(p->mc);
  mj_deleteData(p->dj);
  mj_deleteModel(p->mj);
}


// same random state, controls and applied forces in both engines
static void pairState(Pair* p, unsigned seed, double qscale) {
  mjRandomState(p->mj, p->dj, seed, qscale, 0);
  mjData* s = p->dj;
  mcData* d = p->dc;
  const mjModel* m = p->mj;
  mc_resetData(p->mc, d);
  for (int i = 0; i < m->nu; i++) {
    s->ctrl[i] = rnd();
  }
  for (int i = 0; i < m->nv; i++) {
    s->qfrc_applied[i] = 2 * rnd();
  }
  for (int i = 6; i < 6 * m->nbody; i++) {
    s->xfrc_applied[i] = rnd();
  }
  memcpy(d->qpos, s->qpos, sizeof(double) * m->nq);
  memcpy(d->qvel, s->qvel, sizeof(double) * m->nv);
  memcpy(d->ctrl, s->ctrl, sizeof(double) * m->nu);
  memcpy(d->qfrc_applied, s->qfrc_applied, sizeof(double) * m->nv);
  memcpy(d->xfrc_applied, s->xfrc_applied, sizeof(double) * 6 * m->nbody);
}


// max |qfrc_constraint|, at least 1: the force scale of the solve
static double forceScale(const double* qfrc, int nv) {
  double s = 1;
  for (int i = 0; i < nv; i++) {
    s = fmax(s, fabs(qfrc[i]));
  }
  return s;
}


// forward with a Newton solve run to round-off (tolerance 0), then inverse: qfrc_inverse
// reproduces the applied, actuation and Cartesian forces; errors are relative to the force scale
// of the problem (max(1, |qfrc_constraint|)) since that is what limits the forward solve.
// MuJoCo's own mj_forward -> mj_inverse round trip on the same states is printed for reference.
static void forwardInverse(const char* file, double qscale, int nseed) {
  Pair p;
  pairLoad(&p, file);
  char error[200];
  cr_assert(mc_setSolver(p.mc, "newton", error, sizeof(error)) == 0, "%s", error);
  p.mc->opt.tolerance = p.mj->opt.tolerance = 0;
  p.mc->opt.iterations = p.mj->opt.iterations = 100;
  p.mj->opt.solver = mjSOL_NEWTON;
  int nv = p.mc->nv;
  double worst = 0, worstmj = 0;
  int nefc = 0;
  for (unsigned seed = 0; seed < (unsigned)nseed; seed++) {
    pairState(&p, seed, qscale);
    mcData* d = p.dc;
    mc_forward(p.mc, d);
    nefc += d->nefc;

    // expected: applied + actuation + J' xfrc, from the forward computation
    double expect[1000];
    cr_assert(nv <= 1000);
    for (int i = 0; i < nv; i++) {
      expect[i] = d->qfrc_applied[i] + d->qfrc_actuator[i];
    }
    mc_xfrcAccumulate(p.mc, d, expect);
    double scale = forceScale(d->qfrc_constraint, nv);
    mc_inverse(p.mc, d);
    double e = 0;
    int at = -1;
    for (int i = 0; i < nv; i++) {
      double ei = fabs(d->qfrc_inverse[i] - expect[i]) / scale;
      if (ei > e) {
        e = ei;
        at = i;
      }
    }
    cr_expect(e <= 1e-8, "%s seed %u: qfrc_inverse[%d] %.12g vs %.12g (scale %.3g, nefc %d, "
              "iter %d)", file, seed, at, at >= 0 ? d->qfrc_inverse[at] : 0,
              at >= 0 ? expect[at] : 0, scale, d->nefc, d->solver_iter);
    worst = fmax(worst, e);

    // MuJoCo's round trip, same measure
    mjData* s = p.dj;
    mj_forward(p.mj, s);
    for (int i = 0; i < nv; i++) {
      expect[i] = s->qfrc_applied[i] + s->qfrc_actuator[i];
    }
    for (int b = 1; b < p.mj->nbody; b++) {
      mj_applyFT(p.mj, s, s->xfrc_applied + 6 * b, s->xfrc_applied + 6 * b + 3, s->xipos + 3 * b,
                 b, expect);
    }
    scale = forceScale(s->qfrc_constraint, nv);
    mj_inverse(p.mj, s);
    for (int i = 0; i < nv; i++) {
      worstmj = fmax(worstmj, fabs(s->qfrc_inverse[i] - expect[i]) / scale);
    }
  }
  fprintf(stderr,
          "[inverse] fwd->inv %-16s: worst err %.2e of the force scale over %d states (%d rows);"
          " MuJoCo's round trip %.2e\n", strrchr(file, '/') + 1, worst, nseed, nefc, worstmj);
  pairFree(&p);
}


Test(inverse, forward_inverse) {
  forwardInverse(MODEL_DIR "limits.xml", 0.4, 10);
  forwardInverse(MODEL_DIR "equality.xml", 0.3, 10);
  forwardInverse(MODEL_DIR "box_pyramidal.xml", 0.01, 10);
  forwardInverse(MODEL_DIR "box_elliptic.xml", 0.01, 10);
  forwardInverse(MODEL_DIR "setconst.xml", 0.3, 10);
  forwardInverse(MJ_DIR "humanoid/humanoid.xml", 0.05, 5);
}


// mc_inverse against mj_inverse at the same (qpos, qvel, qacc): whole pipelines side by side;
// sparse: both engines on the sparse Jacobian (Moduco then builds the row-sparse efc_J only)
static void againstMujoco(const char* file, double qscale, int nseed, int sparse) {
  Pair p;
  pairLoad(&p, file);
  if (sparse) {
    p.mc->opt.jacobian = mcJAC_SPARSE;
    p.mj->opt.jacobian = mjJAC_SPARSE;
  }
  int nv = p.mc->nv;
  double worst = 0;
  for (unsigned seed = 0; seed < (unsigned)nseed; seed++) {
    pairState(&p, seed, qscale);
    for (int i = 0; i < nv; i++) {
      p.dj->qacc[i] = 5 * rnd();
    }
    memcpy(p.dc->qacc, p.dj->qacc, sizeof(double) * nv);
    mj_inverse(p.mj, p.dj);
    mc_inverse(p.mc, p.dc);
    cr_assert_eq(p.dc->nefc, p.dj->nefc, "%s seed %u: nefc", file, seed);
    if (sparse) {
      cr_assert(p.dc->nefc == 0 || (p.dc->efc_J_rownnz && !p.dc->efc_J),
                "%s: sparse mode must build the row-sparse efc_J only", file);
    }
    int at;
    double e = bridge_err(p.dc->qfrc_inverse, p.dj->qfrc_inverse, nv, &at);
    cr_expect(e <= 1e-8, "%s seed %u: qfrc_inverse[%d] %.12g vs MuJoCo %.12g", file, seed, at,
              at >= 0 ? p.dc->qfrc_inverse[at] : 0, at >= 0 ? p.dj->qfrc_inverse[at] : 0);
    double ef = bridge_err(p.dc->efc_force, p.dj->efc_force, p.dj->nefc, &at);
    cr_expect(ef <= 1e-8, "%s seed %u: efc_force[%d] %.12g vs MuJoCo %.12g", file, seed, at,
              at >= 0 ? p.dc->efc_force[at] : 0, at >= 0 ? p.dj->efc_force[at] : 0);
    worst = fmax(worst, fmax(e, ef));
  }
  fprintf(stderr, "[inverse] vs mj_inverse %-12s%s: worst rel. err %.2e over %d states\n",
          strrchr(file, '/') + 1, sparse ? " (sparse)" : "", worst, nseed);
  pairFree(&p);
}


Test(inverse, against_mujoco) {
  againstMujoco(MODEL_DIR "limits.xml", 0.4, 10, 0);
  againstMujoco(MODEL_DIR "equality.xml", 0.3, 10, 0);
  againstMujoco(MODEL_DIR "box_pyramidal.xml", 0.01, 10, 0);
  againstMujoco(MODEL_DIR "box_elliptic.xml", 0.01, 10, 0);
  againstMujoco(MJ_DIR "humanoid/humanoid.xml", 0.05, 5, 0);
}


// the same on the sparse Jacobian: mc_invConstraint reads the row-sparse efc_J
Test(inverse, against_mujoco_sparse) {
  againstMujoco(MODEL_DIR "limits.xml", 0.4, 10, 1);
  againstMujoco(MODEL_DIR "equality.xml", 0.3, 10, 1);
  againstMujoco(MODEL_DIR "box_pyramidal.xml", 0.01, 10, 1);
  againstMujoco(MODEL_DIR "box_elliptic.xml", 0.01, 10, 1);
  againstMujoco(MJ_DIR "humanoid/humanoid.xml", 0.05, 5, 1);
}


//---------------------------------- adhesion on the sparse Jacobian -------------------------------

// a box and a capsule pressed onto a plane by adhesion actuators (condim 3 and 6)
static const char kAdhesion[] =
  "<mujoco>\n"
  " <option timestep='0.002'/>\n"
  " <worldbody>\n"
  "  <geom type='plane' size='5 5 0.1'/>\n"
  "  <body name='box' pos='0 0 0.1'><freejoint/><geom type='box' size='0.1 0.08 0.1'/></body>\n"
  "  <body name='cap' pos='0.5 0 0.05'><freejoint/>\n"
  "   <geom type='capsule' fromto='-0.1 0 0 0.1 0 0' size='0.05' condim='6'/>\n"
  "   <body pos='0.1 0 0'><joint type='hinge' axis='0 1 0'/>\n"
  "    <geom type='capsule' fromto='0 0 0 0.2 0 0' size='0.04'/></body></body>\n"
  " </worldbody>\n"
  " <actuator>\n"
  "  <adhesion body='box' ctrlrange='0 1' gain='3'/>\n"
  "  <adhesion body='cap' ctrlrange='0 1' gain='2'/>\n"
  " </actuator>\n"
  "</mujoco>\n";


// adhesion moments and the whole forward on the row-sparse efc_J equal the dense ones, and
// MuJoCo's (sparse Jacobian on both sides), for both cones
Test(inverse, adhesion_sparse) {
  char path[] = "/tmp/moduco_adhesion_XXXXXX.xml";
  int fd = mkstemps(path, 4);
  cr_assert(fd >= 0);
  FILE* f = fdopen(fd, "w");
  cr_assert_not_null(f);
  fputs(kAdhesion, f);
  fclose(f);
  int ncheck = 0;
  for (int cone = 0; cone < 2; cone++) {
    Pair p, q;
    pairLoad(&p, path);
    pairLoad(&q, path);
    p.mc->opt.cone = q.mc->opt.cone = cone;
    p.mj->opt.cone = cone;
    p.mc->opt.jacobian = mcJAC_DENSE;
    q.mc->opt.jacobian = mcJAC_SPARSE;
    p.mj->opt.jacobian = mjJAC_SPARSE;
    int nv = p.mc->nv, nu = p.mc->nu;
    for (unsigned seed = 0; seed < 4; seed++) {
      // settle onto the plane in MuJoCo, then the same state in all three
      mj_resetData(p.mj, p.dj);
      g_rng = 88172645463325252ULL + seed * 2654435761ULL;
      for (int i = 0; i < nu; i++) {
        p.dj->ctrl[i] = 0.5 + 0.5 * rnd();
      }
      for (int k = 0; k < 50 + 20 * (int)seed; k++) {
        mj_step(p.mj, p.dj);
      }
      mc_resetData(p.mc, p.dc);
      mc_resetData(q.mc, q.dc);
      mcData* ds[2] = {p.dc, q.dc};
      for (int k = 0; k < 2; k++) {
        memcpy(ds[k]->qpos, p.dj->qpos, sizeof(double) * p.mj->nq);
        memcpy(ds[k]->qvel, p.dj->qvel, sizeof(double) * nv);
        memcpy(ds[k]->ctrl, p.dj->ctrl, sizeof(double) * nu);
        memcpy(ds[k]->qacc_warmstart, p.dj->qacc_warmstart, sizeof(double) * nv);
      }
      mj_forward(p.mj, p.dj);
      mc_forward(p.mc, p.dc);
      mc_forward(q.mc, q.dc);
      cr_assert(q.dc->nefc > 0 && q.dc->efc_J_rownnz && !q.dc->efc_J, "cone %d seed %u: "
                "sparse mode must build the row-sparse efc_J only", cone, seed);
      cr_assert(p.dc->efc_J && !p.dc->efc_J_rownnz);
      cr_assert_eq(q.dc->nefc, p.dc->nefc);
      cr_assert_eq(q.dc->nefc, p.dj->nefc);

      // moments: sparse vs dense to round-off, vs MuJoCo to 1e-9
      double em = bridge_err(q.dc->actuator_moment, p.dc->actuator_moment, nu * nv, NULL);
      cr_expect(em <= 1e-14, "cone %d seed %u: sparse vs dense actuator_moment %.3g", cone,
                seed, em);
      double ej = bridge_err(q.dc->actuator_moment, p.dj->actuator_moment, nu * nv, NULL);
      cr_expect(ej <= 1e-9, "cone %d seed %u: actuator_moment vs MuJoCo %.3g", cone, seed, ej);
      double nz = 0;
      for (int i = 0; i < nu * nv; i++) {
        nz += fabs(q.dc->actuator_moment[i]);
      }
      cr_expect(nz > 0, "cone %d seed %u: no adhesion moment (no contacts?)", cone, seed);

      // the forward results on the two Jacobians
      double ea = bridge_err(q.dc->qacc, p.dc->qacc, nv, NULL);
      cr_expect(ea <= 1e-10, "cone %d seed %u: sparse vs dense qacc %.3g", cone, seed, ea);
      ncheck++;
    }
    pairFree(&p);
    pairFree(&q);
  }
  remove(path);
  cr_expect_eq(ncheck, 8);
}


// discrete-time inverse: one Euler step with implicit damping, then the inverse of the velocity
// difference reproduces the applied forces
Test(inverse, invdiscrete_euler) {
  Pair p;
  pairLoad(&p, MODEL_DIR "limits.xml");
  char error[200];
  cr_assert(mc_setSolver(p.mc, "newton", error, sizeof(error)) == 0, "%s", error);
  cr_assert(mc_setIntegrator(p.mc, "euler", error, sizeof(error)) == 0, "%s", error);
  p.mc->opt.tolerance = 0;
  p.mc->opt.iterations = 100;
  int nv = p.mc->nv, nq = p.mc->nq;
  double worst = 0, worstc = 0;
  for (unsigned seed = 0; seed < 10; seed++) {
    pairState(&p, seed, 0.4);
    mcData* d = p.dc;
    double qpos[100], qvel[100], expect[100], qacc[100];
    cr_assert(nq <= 100);
    memcpy(qpos, d->qpos, sizeof(double) * nq);
    memcpy(qvel, d->qvel, sizeof(double) * nv);
    mc_step(p.mc, d);
    for (int i = 0; i < nv; i++) {
      expect[i] = d->qfrc_applied[i] + d->qfrc_actuator[i];
      qacc[i] = (d->qvel[i] - qvel[i]) / p.mc->opt.timestep;
    }
    mc_xfrcAccumulate(p.mc, d, expect);    // kinematics of the pre-step state

    // back to the pre-step state with the discrete acceleration
    memcpy(d->qpos, qpos, sizeof(double) * nq);
    memcpy(d->qvel, qvel, sizeof(double) * nv);
    memcpy(d->qacc, qacc, sizeof(double) * nv);
    p.mc->opt.enableflags |= mcENBL_INVDISCRETE;
    mc_inverse(p.mc, d);
    worst = fmax(worst, bridge_err(d->qfrc_inverse, expect, nv, NULL));

    // without the flag the same input is read as continuous and misses the damping term
    p.mc->opt.enableflags &= ~mcENBL_INVDISCRETE;
    mc_inverse(p.mc, d);
    worstc = fmax(worstc, bridge_err(d->qfrc_inverse, expect, nv, NULL));
  }
  cr_expect(worst <= 1e-8, "invdiscrete: worst rel. err %.3g", worst);
  cr_expect(worstc > 1e-6, "continuous reading should differ (damping), err %.3g", worstc);
  fprintf(stderr, "[inverse] invdiscrete euler: worst rel. err %.2e (continuous reading %.2e)\n",
          worst, worstc);
  pairFree(&p);
}


// fwdinv: PGS stopped after a few sweeps leaves a forward/inverse gap; the same gap as MuJoCo's
// (both PGS runs agree iterate by iterate), and ~0 for a converged Newton solve
Test(inverse, fwdinv) {
  const char* files[3] = {MODEL_DIR "limits.xml", MODEL_DIR "equality.xml",
                          MODEL_DIR "box_elliptic.xml"};
  for (int f = 0; f < 3; f++) {
    Pair p;
    pairLoad(&p, files[f]);
    char error[200];
    cr_assert(mc_setSolver(p.mc, "pgs", error, sizeof(error)) == 0, "%s", error);
    p.mj->opt.solver = mjSOL_PGS;
    p.mj->opt.iterations = p.mc->opt.iterations = 4;
    p.mj->opt.tolerance = p.mc->opt.tolerance = 0;
    p.mj->opt.enableflags |= mjENBL_FWDINV;
    p.mc->opt.enableflags |= mcENBL_FWDINV;
    double worst = 0;
    for (unsigned seed = 0; seed < 5; seed++) {
      pairState(&p, seed, f == 2 ? 0.01 : 0.3);
      mj_step(p.mj, p.dj);              // MuJoCo compares in mj_step, before integrating
      mc_forward(p.mc, p.dc);
      mc_compareFwdInv(p.mc, p.dc);
      for (int k = 0; k < 2; k++) {
        double a = p.dc->solver_fwdinv[k], b = p.dj->solver_fwdinv[k];
        // relative above 1e-3, absolute 1e-9 below (round-off level gaps of converged solves)
        double e = fabs(a - b) / fmax(1e-3, fabs(b));
        cr_expect(e <= 1e-6, "%s seed %u fwdinv[%d]: %.12g vs MuJoCo %.12g", files[f], seed, k, a,
                  b);
        worst = fmax(worst, e);
      }
    }
    fprintf(stderr, "[inverse] fwdinv pgs(4) %-16s: worst rel. err %.2e (last %.3g %.3g)\n",
            strrchr(files[f], '/') + 1, worst, p.dc->solver_fwdinv[0], p.dc->solver_fwdinv[1]);

    // converged Newton: forward and inverse agree
    cr_assert(mc_setSolver(p.mc, "newton", error, sizeof(error)) == 0, "%s", error);
    p.mc->opt.tolerance = 0;
    p.mc->opt.iterations = 100;
    mc_forward(p.mc, p.dc);
    mc_compareFwdInv(p.mc, p.dc);
    double scale = 1;
    for (int i = 0; i < p.mc->nv; i++) {
      scale = fmax(scale, fabs(p.dc->qfrc_constraint[i]));
    }
    cr_expect(p.dc->solver_fwdinv[0] <= 1e-8 * scale && p.dc->solver_fwdinv[1] <= 1e-8 * scale,
              "%s newton fwdinv %.3g %.3g", files[f], p.dc->solver_fwdinv[0],
              p.dc->solver_fwdinv[1]);
    pairFree(&p);
  }
}
