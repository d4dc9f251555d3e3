// mcd_transitionFD and mcd_inverseFD against MuJoCo 2.2.2 on the same MJCF text and state, field
// by field. Transition matrices (A, B, C, D) for the Euler, RK4 and implicit integrators, forward
// and centered: against 2.2.2's mjd_transitionFD where it is right, and everywhere against finite
// differences of 2.2.2's mj_step (the same definition, computed by brute force in this file).
// Inverse Jacobians (DfDq, DfDv, DfDa, DmDq) against finite differences of 2.2.2's mj_inverse.
//
// Tolerances. Each entry is a difference of two steps divided by eps (1e-6), so two engines whose
// steps agree to delta give entries that agree to about 2 delta / eps. The contact-free steps agree
// to ~1e-13 (the conformance suite checks forward quantities to 1e-9 and 200-step trajectories to
// 1e-7 relative), so entries agree to ~1e-7 of the matrix's largest entry: we ask 1e-6. With
// contacts both solvers stop at their own convergence tolerance (Newton, tolerance 1e-8 on a
// scaled cost), so the steps agree to ~1e-10 and entries to ~1e-4: we ask 1e-4 (the figure of the
// issue), measured errors are printed per case as "agreement ...".
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "fdtest.h"

#define EPS          1e-6
#define SMOOTH_TOL   1e-6
#define CONTACT_TOL  1e-4
#define NSTATE       3

// a hinge + ball arm with a filter actuator, a motor and sensors of every stage (no contacts)
static const char kSensed[] =
  "<mujoco model=\"sensed\">\n"
  "  <option timestep=\"0.004\"/>\n"
  "  <default><geom contype=\"0\" conaffinity=\"0\"/></default>\n"
  "  <worldbody>\n"
  "    <body name=\"arm\" pos=\"0 0 1\">\n"
  "      <joint name=\"h1\" type=\"hinge\" axis=\"0 1 0\" damping=\"0.1\"/>\n"
  "      <geom type=\"capsule\" fromto=\"0 0 0 0.4 0 0\" size=\"0.04\"/>\n"
  "      <site name=\"tip\" pos=\"0.4 0 0\"/>\n"
  "      <body pos=\"0.4 0 0\">\n"
  "        <joint name=\"b1\" type=\"ball\" damping=\"0.05\" stiffness=\"0.3\"/>\n"
  "        <geom type=\"box\" size=\"0.1 0.05 0.05\" pos=\"0.1 0 0\"/>\n"
  "        <site name=\"s2\" pos=\"0.2 0 0\"/>\n"
  "      </body>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "  <actuator>\n"
  "    <motor name=\"m\" joint=\"h1\" gear=\"0.5\"/>\n"
  "    <general name=\"f\" joint=\"h1\" dyntype=\"filter\" dynprm=\"0.1\" gainprm=\"2\"\n"
  "             ctrllimited=\"true\" ctrlrange=\"-1 1\"/>\n"
  "  </actuator>\n"
  "  <sensor>\n"
  "    <jointpos joint=\"h1\"/>\n"
  "    <jointvel joint=\"h1\"/>\n"
  "    <ballquat joint=\"b1\"/>\n"
  "    <framepos objtype=\"site\" objname=\"s2\"/>\n"
  "    <velocimeter site=\"s2\"/>\n"
  "    <gyro site=\"s2\"/>\n"
  "    <accelerometer site=\"tip\"/>\n"
  "    <actuatorfrc actuator=\"f\"/>\n"
  "  </sensor>\n"
  "</mujoco>\n";


// select an integrator (mjINT_EULER, mjINT_RK4, mjINT_IMPLICIT) in both engines
static void setIntegrator(ConfPair* p, int mjint) {
  char error[1024] = "";
  if (mjint == mjINT_IMPLICIT) {
    cr_assert_eq(mc_setIntegrator(p->mc, "implicit", error, sizeof(error)), 0, "%s", error);
    p->mj->opt.integrator = mjINT_IMPLICIT;
  } else {
    cr_assert_eq(conf_setIntegrator(p, mjint, error, sizeof(error)), 0, "%s", error);
  }
}


static const char* integratorName(int mjint) {
  return mjint == mjINT_RK4 ? "rk4" : mjint == mjINT_IMPLICIT ? "implicit" : "euler";
}


// MuJoCo's transition matrices by brute force: every column a full mj_step from the saved state
// (qpos perturbed with mj_integratePos, differenced with mj_differentiatePos). The reference
// where 2.2.2's mjd_transitionFD is wrong: with RK4 it reuses position and velocity stages that
// the RK4 step overwrote (off by up to 100%, and it can diverge and reset the data); with the
// implicit integrator it reuses a velocity derivative that depends on the perturbed controls and
// activations (off by ~1e-2 on the 'actuators' model); its centered D has the wrong sign.
static void mujocoBrute(ConfPair* p, double eps, int centered, FdMats* f) {
  const mjModel* m = p->mj;
  mjData* d = p->dj;
  int nq = m->nq, nv = m->nv, na = m->na, nu = m->nu, ns = m->nsensordata, ndx = f->ndx;
  int nx = nq + nv + na;
  double* save = calloc((size_t)(nx + nu + nv + 1), sizeof(double));
  double* out = calloc(2 * ((size_t)nx + ns) + 1, sizeof(double));
  double* dq = calloc((size_t)ndx + 1, sizeof(double));
  double time = d->time;
  memcpy(save, d->qpos, sizeof(double) * nq);
  memcpy(save + nq, d->qvel, sizeof(double) * nv);
  memcpy(save + nq + nv, d->act, sizeof(double) * na);
  memcpy(save + nx, d->ctrl, sizeof(double) * nu);
  memcpy(save + nx + nu, d->qacc_warmstart, sizeof(double) * nv);

  for (int col = 0; col < ndx + nu; col++) {
    for (int side = 0; side < 2; side++) {
      // restore, perturb (side 1: minus, or the nominal for forward differences), step
      double h = side ? (centered ? -eps : 0) : eps;
      d->time = time;
      memcpy(d->qpos, save, sizeof(double) * nq);
      memcpy(d->qvel, save + nq, sizeof(double) * nv);
      memcpy(d->act, save + nq + nv, sizeof(double) * na);
      memcpy(d->ctrl, save + nx, sizeof(double) * nu);
      memcpy(d->qacc_warmstart, save + nx + nu, sizeof(double) * nv);
      if (col < nv) {
        memset(dq, 0, sizeof(double) * nv);
        dq[col] = 1;
        mj_integratePos(m, d->qpos, dq, h);
      } else if (col < nv + nv) {
        d->qvel[col - nv] += h;
      } else if (col < ndx) {
        d->act[col - 2 * nv] += h;
      } else {
        d->ctrl[col - ndx] += h;
      }
      mj_step(m, d);
      double* o = out + side * (nx + ns);
      memcpy(o, d->qpos, sizeof(double) * nq);
      memcpy(o + nq, d->qvel, sizeof(double) * nv);
      memcpy(o + nq + nv, d->act, sizeof(double) * na);
      memcpy(o + nx, d->sensordata, sizeof(double) * ns);
    }

    // difference into column col
    double* hi = out;
    double* lo = out + nx + ns;
    double scale = 1 / (centered ? 2 * eps : eps);
    mj_differentiatePos(m, dq, 1, lo, hi);
    for (int i = 0; i < nv + na; i++) {
      dq[nv + i] = hi[nq + i] - lo[nq + i];
    }
    int isx = col < ndx, c = isx ? col : col - ndx, ncol = isx ? ndx : nu;
    double* X = isx ? f->A : f->B;
    double* S = isx ? f->C : f->D;
    for (int r = 0; r < ndx; r++) {
      X[r * ncol + c] = dq[r] * scale;
    }
    for (int r = 0; r < ns; r++) {
      S[r * ncol + c] = (hi[nx + r] - lo[nx + r]) * scale;
    }
  }

  // restore
  d->time = time;
  memcpy(d->qpos, save, sizeof(double) * nq);
  memcpy(d->qvel, save + nq, sizeof(double) * nv);
  memcpy(d->act, save + nq + nv, sizeof(double) * na);
  memcpy(d->ctrl, save + nx, sizeof(double) * nu);
  memcpy(d->qacc_warmstart, save + nx + nu, sizeof(double) * nv);
  free(save);
  free(out);
  free(dq);
}


// errors of the four matrices of a against b
static void matErrors(const FdMats* a, const FdMats* b, double e[4]) {
  int ndx = a->ndx, nu = a->nu, ns = a->ns;
  e[0] = fd_matErr(a->A, b->A, ndx * ndx);
  e[1] = fd_matErr(a->B, b->B, ndx * nu);
  e[2] = fd_matErr(a->C, b->C, ns * ndx);
  e[3] = fd_matErr(a->D, b->D, ns * nu);
}


// Moduco's transition matrices at the current (equal) states against MuJoCo's brute force, and
// against mjd_transitionFD where 2.2.2 computes them right (Euler; not the centered D); expect
// agreement within tol. The brute force runs first: 2.2.2's RK4 mjd_transitionFD may reset the
// data it diverged on.
static void compareAt(ConfPair* p, int mjint, int centered, double tol, const char* label) {
  const mjModel* m = p->mj;
  FdMats a, b, c;
  fd_alloc(&a, m->nv, m->na, m->nu, m->nsensordata);
  fd_alloc(&b, m->nv, m->na, m->nu, m->nsensordata);
  fd_alloc(&c, m->nv, m->na, m->nu, m->nsensordata);
  int rc = mcd_transitionFD(p->mc, p->dc, EPS, centered, a.A, a.B, a.C, a.D);
  mujocoBrute(p, EPS, centered, &c);
  mjd_transitionFD(p->mj, p->dj, EPS, (mjtByte)centered, b.A, b.B, b.C, b.D);
  double e[4], eb[4];
  matErrors(&a, &b, e);
  matErrors(&a, &c, eb);
  const char* mode = centered ? "centered" : "forward";
  fprintf(stderr, "agreement %-16s %-8s %-8s %-9s mjd_transitionFD A %.1e B %.1e C %.1e D %.1e"
          " | brute force A %.1e B %.1e C %.1e D %.1e\n", p->name, integratorName(mjint),
          mode, label, e[0], e[1], e[2], e[3], eb[0], eb[1], eb[2], eb[3]);
  cr_expect_eq(rc, 0, "%s: mcd_transitionFD returned %d", p->name, rc);
  const char* field[4] = {"A", "B", "C", "D"};
  for (int k = 0; k < 4; k++) {
    int trusted = mjint == mjINT_EULER && !(centered && k == 3);
    cr_expect(!trusted || e[k] <= tol, "%s %s %s %s: %s differs from mjd_transitionFD by %.3g "
              "(tol %.1g)", p->name, integratorName(mjint), mode, label, field[k], e[k], tol);
    cr_expect(eb[k] <= tol, "%s %s %s %s: %s differs from MuJoCo's brute force by %.3g "
              "(tol %.1g)", p->name, integratorName(mjint), mode, label, field[k], eb[k], tol);
  }
  fd_free(&a);
  fd_free(&b);
  fd_free(&c);
}


// random states of a contact-free model, every integrator, both difference schemes
static void smoothModel(const char* name, const char* xml, unsigned long long seed) {
  ConfPair p;
  char error[2048] = "";
  cr_assert_eq(fd_load(&p, name, xml, error, sizeof(error)), 0, "%s", error);
  int ints[3] = {mjINT_EULER, mjINT_RK4, mjINT_IMPLICIT};
  ConfRng r;
  conf_seed(&r, seed);
  for (int k = 0; k < 3; k++) {
    setIntegrator(&p, ints[k]);
    for (int s = 0; s < NSTATE; s++) {
      conf_randomState(&p, &r);
      fd_insideCtrl(&p, &r);
      char label[32];
      snprintf(label, sizeof(label), "state %d", s);
      compareAt(&p, ints[k], s % 2, SMOOTH_TOL, label);
    }
  }
  conf_free(&p);
}


static void namedModel(const char* name, unsigned long long seed) {
  char* xml = conf_modelXml(name);
  cr_assert_not_null(xml);
  smoothModel(name, xml, seed);
  free(xml);
}


Test(transition_mujoco, pendulum, .timeout = 300) {
  char* xml = fd_readSource("models/pendulum.xml");
  cr_assert_not_null(xml);
  smoothModel("pendulum", xml, 11);
  free(xml);
}


Test(transition_mujoco, actuators_with_activation, .timeout = 300) {
  namedModel("actuators", 12);
}


Test(transition_mujoco, mixed_joints, .timeout = 300) {
  namedModel("mixed_joints", 13);
}


Test(transition_mujoco, free_bodies, .timeout = 300) {
  namedModel("free_bodies", 14);
}


Test(transition_mujoco, sensors, .timeout = 300) {
  smoothModel("sensed", kSensed, 15);
}


Test(transition_mujoco, humanoid_no_contact, .timeout = 600) {
  namedModel("humanoid", 16);
}


// the sample humanoid (models/humanoid.xml) in both engines, and a generator seeded with seed
static void loadContactHumanoid(ConfPair* p, ConfRng* r, unsigned long long seed) {
  char* xml = fd_readSource("models/humanoid.xml");
  cr_assert_not_null(xml);
  char error[2048] = "";
  cr_assert_eq(fd_load(p, "humanoid_contact", xml, error, sizeof(error)), 0, "%s", error);
  free(xml);
  conf_seed(r, seed);
}


// the sample humanoid standing on its plane (feet and hands in contact after falling from the
// crouch keyframe under MuJoCo), Euler and implicit
Test(transition_mujoco, humanoid_contacts, .timeout = 600) {
  ConfPair p;
  ConfRng r;
  loadContactHumanoid(&p, &r, 17);
  int ints[2] = {mjINT_EULER, mjINT_IMPLICIT};
  for (int k = 0; k < 2; k++) {
    setIntegrator(&p, ints[k]);
    for (int s = 0; s < 2; s++) {
      // settle under MuJoCo with random controls, then give Moduco the same state
      mj_resetDataKeyframe(p.mj, p.dj, 0);
      for (int t = 0; t < 150 + 100 * s; t++) {
        fd_insideCtrl(&p, &r);
        mj_step(p.mj, p.dj);
      }
      fd_insideCtrl(&p, &r);
      fd_syncState(&p);
      cr_assert_gt(p.dj->ncon, 0, "the scene should be in contact");
      char label[32];
      snprintf(label, sizeof(label), "ncon %d", p.dj->ncon);
      compareAt(&p, ints[k], s % 2, CONTACT_TOL, label);
    }
  }
  conf_free(&p);
}


//---------------------------------- inverse dynamics ----------------------------------------------

// d qfrc_inverse / d (qpos, qvel, qacc) and d qM / d qpos by forward differences of 2.2.2's
// mj_inverse (2.2.2 has no mjd_inverseFD), MuJoCo 3's layout: row i = input i
static void mujocoInverseBrute(ConfPair* p, double eps, double* D[3], double* DmDq) {
  const mjModel* m = p->mj;
  mjData* d = p->dj;
  int nq = m->nq, nv = m->nv, nM = m->nM;
  double* save = calloc((size_t)(nq + 2 * nv + 1), sizeof(double));
  double* f0 = calloc((size_t)(nv + nM + 1), sizeof(double));
  double* dq = calloc((size_t)nv + 1, sizeof(double));
  memcpy(save, d->qpos, sizeof(double) * nq);
  memcpy(save + nq, d->qvel, sizeof(double) * nv);
  memcpy(save + nq + nv, d->qacc, sizeof(double) * nv);
  mj_inverse(m, d);
  memcpy(f0, d->qfrc_inverse, sizeof(double) * nv);
  memcpy(f0 + nv, d->qM, sizeof(double) * nM);
  for (int block = 0; block < 3; block++) {
    for (int i = 0; i < nv; i++) {
      if (block == 0) {
        memset(dq, 0, sizeof(double) * nv);
        dq[i] = 1;
        mj_integratePos(m, d->qpos, dq, eps);
      } else {
        (block == 1 ? d->qvel : d->qacc)[i] += eps;
      }
      mj_inverse(m, d);
      for (int j = 0; j < nv; j++) {
        D[block][i * nv + j] = (d->qfrc_inverse[j] - f0[j]) / eps;
      }
      for (int j = 0; block == 0 && j < nM; j++) {
        DmDq[i * nM + j] = (d->qM[j] - f0[nv + j]) / eps;
      }
      memcpy(d->qpos, save, sizeof(double) * nq);
      memcpy(d->qvel, save + nq, sizeof(double) * nv);
      memcpy(d->qacc, save + nq + nv, sizeof(double) * nv);
    }
  }
  free(save);
  free(f0);
  free(dq);
}


// mcd_inverseFD against the brute force of 2.2.2 at the current (equal) qpos, qvel and qacc
static void inverseAt(ConfPair* p, double tol, const char* label) {
  const mjModel* m = p->mj;
  int nv = m->nv, nM = m->nM;
  cr_assert_eq(p->mc->nM, nM, "%s: qM layouts differ", p->name);
  double* got[4];
  double* ref[4];
  for (int k = 0; k < 4; k++) {
    int n = k < 3 ? nv * nv : nv * nM;
    got[k] = calloc((size_t)n + 1, sizeof(double));
    ref[k] = calloc((size_t)n + 1, sizeof(double));
  }
  memcpy(p->dc->qacc, p->dj->qacc, sizeof(double) * nv);
  int rc = mcd_inverseFD(p->mc, p->dc, EPS, 0, got[0], got[1], got[2], NULL, NULL, NULL, got[3]);
  mujocoInverseBrute(p, EPS, ref, ref[3]);
  double e[4];
  for (int k = 0; k < 4; k++) {
    e[k] = fd_matErr(got[k], ref[k], k < 3 ? nv * nv : nv * nM);
  }
  fprintf(stderr, "agreement %-16s inverse  %-9s DfDq %.1e DfDv %.1e DfDa %.1e DmDq %.1e\n",
          p->name, label, e[0], e[1], e[2], e[3]);
  cr_expect_eq(rc, 0);
  const char* field[4] = {"DfDq", "DfDv", "DfDa", "DmDq"};
  for (int k = 0; k < 4; k++) {
    cr_expect(e[k] <= tol, "%s inverse %s: %s differs from MuJoCo's by %.3g (tol %.1g)", p->name,
              label, field[k], e[k], tol);
    free(got[k]);
    free(ref[k]);
  }
}


// random states and accelerations of contact-free models
Test(inverse_mujoco, contact_free_models, .timeout = 300) {
  const char* names[] = {"actuators", "mixed_joints", "free_bodies", "humanoid"};
  ConfRng r;
  conf_seed(&r, 21);
  for (int k = 0; k < 4; k++) {
    char* xml = conf_modelXml(names[k]);
    ConfPair p;
    char error[2048] = "";
    cr_assert_eq(fd_load(&p, names[k], xml, error, sizeof(error)), 0, "%s", error);
    free(xml);
    for (int s = 0; s < 2; s++) {
      conf_randomState(&p, &r);
      for (int i = 0; i < p.mj->nv; i++) {
        p.dj->qacc[i] = conf_uniform(&r, -2, 2);
      }
      inverseAt(&p, SMOOTH_TOL, s ? "state 1" : "state 0");
    }
    conf_free(&p);
  }
}


// the contact humanoid at a settled state, with the acceleration of MuJoCo's forward dynamics
Test(inverse_mujoco, humanoid_contacts, .timeout = 300) {
  ConfPair p;
  ConfRng r;
  loadContactHumanoid(&p, &r, 23);
  mj_resetDataKeyframe(p.mj, p.dj, 0);
  for (int t = 0; t < 200; t++) {
    fd_insideCtrl(&p, &r);
    mj_step(p.mj, p.dj);
  }
  fd_syncState(&p);
  mj_forward(p.mj, p.dj);
  cr_assert_gt(p.dj->ncon, 0);
  inverseAt(&p, CONTACT_TOL, "settled");
  conf_free(&p);
}
