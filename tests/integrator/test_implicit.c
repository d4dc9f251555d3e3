// Implicit integrators: "implicit" trajectories against MuJoCo 2.2.2 (1e-7 over 200 steps),
// "implicitfast" against an independent dense evaluation of eq. (5) with a finite-difference D,
// and the stability checks of the integrator section (figures printed to stderr).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "conformance.h"
#include "models.h"
#include "testutil.h"

#define TRAJ_TOL  1e-7
#define NSTEP     200

static void quiet(void* user, const char* message) {
}


// a damped pendulum chain with a velocity servo and tendon damping
static const char* const chain_xml =
  "<mujoco model='chain'>"
  "  <option timestep='0.005'/>"
  "  <worldbody>"
  "    <body pos='0 0 2'>"
  "      <joint axis='0 1 0' damping='0.5'/>"
  "      <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.04'/>"
  "      <body pos='0.3 0 0'>"
  "        <joint type='ball' damping='0.2'/>"
  "        <geom type='capsule' fromto='0 0 0 0.3 0.1 0' size='0.04'/>"
  "        <body pos='0.3 0.1 0'>"
  "          <joint name='h3' axis='1 0 1'/>"
  "          <joint name='s3' type='slide' axis='0 1 0' damping='1'/>"
  "          <geom type='box' size='0.1 0.05 0.02' pos='0.1 0 0'/>"
  "        </body>"
  "      </body>"
  "    </body>"
  "    <body pos='1 0 1'>"
  "      <freejoint/>"
  "      <geom type='box' size='0.2 0.1 0.05'/>"
  "    </body>"
  "  </worldbody>"
  "  <tendon>"
  "    <fixed damping='3'><joint joint='h3' coef='1'/><joint joint='s3' coef='-0.5'/></fixed>"
  "  </tendon>"
  "  <actuator>"
  "    <velocity joint='h3' kv='4'/>"
  "    <general joint='s3' gaintype='affine' gainprm='1 0 -2' biastype='affine' biasprm='0 -1 -3'/>"
  "  </actuator>"
  "</mujoco>";


// load in both engines, select "implicit" in both, random state
static void loadImplicit(ConfPair* p, const char* name, const char* xml, unsigned long long seed) {
  char error[2048] = "";
  char* free_xml = conf_disableContacts(xml);
  cr_assert_eq(conf_load(p, name, free_xml, NULL, error, sizeof(error)), 0, "%s", error);
  free(free_xml);
  mc_setMessageHandler(quiet, NULL);
  cr_assert_eq(mc_setIntegrator(p->mc, "implicit", error, sizeof(error)), 0, "%s", error);
  p->mj->opt.integrator = mjINT_IMPLICIT;
  ConfRng r;
  conf_seed(&r, seed);
  conf_randomState(p, &r);
}


static void trajectory(const char* name, const char* xml, unsigned long long seed) {
  ConfPair p;
  loadImplicit(&p, name, xml, seed);
  char msg[4096] = "";
  int fail = conf_trajectoryCompare(&p, NSTEP, TRAJ_TOL, msg, sizeof(msg));
  double worst = fmax(p.stat[CONF_QPOS].err, p.stat[CONF_QVEL].err);
  fprintf(stderr, "implicit vs MuJoCo 2.2.2, %s: worst relative error %.3g over %d steps\n",
          name, worst, NSTEP);
  conf_free(&p);
  cr_assert_eq(fail, 0, "%s", msg);
}


Test(implicit, trajectory_chain) {
  trajectory("chain", chain_xml, 21);
}


Test(implicit, trajectory_fixed_tendons) {
  trajectory("fixed", tendon_model_fixed, 22);
}


Test(implicit, trajectory_spatial_tendons) {
  // several random starts
  for (unsigned long long seed = 23; seed < 28; seed++) {
    trajectory("spatial", tendon_model_spatial, seed);
  }
}


Test(implicit, trajectory_slider_crank) {
  char* xml = tu_readFile("/usr/share/mujoco/model/slider_crank/slider_crank.xml");
  cr_assert_not_null(xml);
  trajectory("slider_crank", xml, 24);
  free(xml);
}


//---------------------------------- implicitfast against a dense eq. (5) --------------------------

// true if j is i or an ancestor of i in the dof tree
static int related(const mcModel* m, int i, int j) {
  for (int k = i; k >= 0; k = m->dof_parentid[k]) {
    if (k == j) {
      return 1;
    }
  }
  return 0;
}


// true if dof i belongs to a free body without children (MuJoCo 3.14's implicitfast integrates
// those as implicit does)
static int freeLeafDof(const mcModel* m, int i) {
  int b = m->dof_bodyid[i];
  for (int c = b + 1; c < m->nbody; c++) {
    if (m->body_parentid[c] == b) {
      return 0;
    }
  }
  return m->jnt_type[m->dof_jntid[i]] == mcJNT_FREE;
}


// one implicitfast step against v + h (M - h Dsym)^-1 (qfrc_smooth + qfrc_constraint) where D is
// d(qfrc_passive + qfrc_actuator)/dqvel by central differences, restricted to the sparsity of M;
// on the rows of free bodies without children D is not symmetrized and includes -d qfrc_bias/dqvel;
// between two dofs of the body named simple (NULL: none; a MuJoCo 3.14 "simple" body by
// construction) D is dropped, and M too (3.14 keeps only the diagonal there)
static double fastStepErrorSimple(const char* xml, unsigned long long seed, const char* simple) {
  char err[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(mc_setIntegrator(m, "implicitfast", err, sizeof(err)), 0, "%s", err);
  int nv = m->nv;
  mcData* d = mc_makeData(m);
  mcData* e = mc_makeData(m);
  ConfRng r;
  conf_seed(&r, seed);
  for (int i = 0; i < m->nq; i++) {
    d->qpos[i] = m->qpos0[i] + conf_uniform(&r, -0.5, 0.5);
  }
  mc_normalizeQuat(m, d->qpos);
  for (int i = 0; i < nv; i++) {
    d->qvel[i] = conf_uniform(&r, -1, 1);
  }
  for (int i = 0; i < m->nu; i++) {
    d->ctrl[i] = conf_uniform(&r, -1, 1);
  }
  mc_forward(m, d);

  // D by central differences of the passive and actuator forces
  double* D = calloc((size_t)nv * nv, sizeof(double));
  double* A = calloc((size_t)nv * nv, sizeof(double));
  double* b = calloc(nv, sizeof(double));
  double eps = 1e-6;
  for (int c = 0; c < nv; c++) {
    double f[2][64];
    for (int sg = 0; sg < 2; sg++) {
      memcpy(e->qpos, d->qpos, sizeof(double) * m->nq);
      memcpy(e->qvel, d->qvel, sizeof(double) * nv);
      memcpy(e->ctrl, d->ctrl, sizeof(double) * m->nu);
      memcpy(e->act, d->act, sizeof(double) * m->na);
      e->qvel[c] += sg ? -eps : eps;
      mc_forward(m, e);
      for (int i = 0; i < nv; i++) {
        f[sg][i] = e->qfrc_passive[i] + e->qfrc_actuator[i] -
                   (freeLeafDof(m, i) ? e->qfrc_bias[i] : 0);
      }
    }
    for (int i = 0; i < nv; i++) {
      D[i * nv + c] = (f[0][i] - f[1][i]) / (2 * eps);
    }
  }

  // dense M - h (D + D')/2 on the sparsity of M
  double h = m->opt.timestep;
  int sb = simple ? mc_name2id(m, mcOBJ_BODY, simple) : -1;
  cr_assert(!simple || sb > 0, "no body %s", simple);
  mc_fullM(m, A, d->qM);
  for (int i = 0; i < nv; i++) {
    for (int j = 0; j < nv; j++) {
      if (i != j && m->dof_bodyid[i] == sb && m->dof_bodyid[j] == sb) {
        A[i * nv + j] = 0;
      } else if (freeLeafDof(m, i) && (related(m, i, j) || related(m, j, i))) {
        A[i * nv + j] -= h * D[i * nv + j];
      } else if (related(m, i, j) || related(m, j, i)) {
        A[i * nv + j] -= h * 0.5 * (D[i * nv + j] + D[j * nv + i]);
      }
    }
    b[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
  }
  tu_denseSolve(nv, A, b, b);

  // the plugin's step
  double* v0 = calloc(nv, sizeof(double));
  memcpy(v0, d->qvel, sizeof(double) * nv);
  mc_step(m, d);
  double worst = 0;
  for (int i = 0; i < nv; i++) {
    double ref = v0[i] + h * b[i];
    worst = fmax(worst, fabs(d->qvel[i] - ref) / fmax(1, fabs(ref)));
  }
  free(v0);
  free(D);
  free(A);
  free(b);
  mc_deleteData(d);
  mc_deleteData(e);
  mc_deleteModel(m);
  return worst;
}


static double fastStepError(const char* xml, unsigned long long seed) {
  return fastStepErrorSimple(xml, seed, NULL);
}


// a MuJoCo 3.14 "simple" body (slide then hinge at the origin of a body hanging from the world,
// center of mass on it) beside a near miss (hinge then slide), each with a damped tendon and a
// velocity-gain actuator coupling its two dofs
static const char* const simple_xml =
  "<mujoco><option timestep='0.01' density='1.2' viscosity='0.3'/><worldbody>"
  "  <body name='simple' pos='0 0 1' euler='10 20 30'>"
  "    <joint name='s0' type='slide' axis='0 0 1'/><joint name='s1' axis='0 1 0'/>"
  "    <geom type='box' size='0.1 0.07 0.05'/><site name='s' pos='0.1 0.05 0.02'/></body>"
  "  <body name='miss' pos='1 0 1'>"
  "    <joint name='m0' axis='0 0 1'/><joint name='m1' type='slide' axis='1 0 0'/>"
  "    <geom type='box' size='0.1 0.07 0.05'/><site name='m' pos='0.1 0.05 0.02'/></body>"
  "</worldbody><tendon>"
  "  <fixed damping='2'><joint joint='s0' coef='1'/><joint joint='s1' coef='0.5'/></fixed>"
  "  <fixed damping='2'><joint joint='m0' coef='0.5'/><joint joint='m1' coef='1'/></fixed>"
  "</tendon><actuator>"
  "  <general site='s' gear='1 0.5 0.2 0.1 0.3 0' gaintype='affine' gainprm='1 0 -3'/>"
  "  <general site='m' gear='1 0.5 0.2 0.1 0.3 0' gaintype='affine' gainprm='1 0 -3'/>"
  "</actuator></mujoco>";


// implicitfast keeps only the diagonal of D on a simple body; the full tree rule would miss
Test(implicitfast, dense_reference_simple_body) {
  double worst = 0, full = 0;
  for (int s = 0; s < 5; s++) {
    worst = fmax(worst, fastStepErrorSimple(simple_xml, 61 + s, "simple"));
    full = fmax(full, fastStepError(simple_xml, 61 + s));
  }
  fprintf(stderr, "implicitfast vs dense eq. (5), simple body: worst relative error %.3g "
          "(%.3g against the full tree sparsity)\n", worst, full);
  cr_assert_lt(worst, 1e-7);
  cr_assert_gt(full, 1e-5);
}


Test(implicitfast, dense_reference_chain) {
  double worst = 0;
  for (int s = 0; s < 5; s++) {
    worst = fmax(worst, fastStepError(chain_xml, 31 + s));
  }
  fprintf(stderr, "implicitfast vs dense eq. (5), chain: worst relative error %.3g\n", worst);
  cr_assert_lt(worst, 1e-7);
}


Test(implicitfast, dense_reference_tendons) {
  double worst = 0;
  for (int s = 0; s < 5; s++) {
    worst = fmax(worst, fastStepError(tendon_model_fixed, 41 + s));
    worst = fmax(worst, fastStepError(tendon_model_spatial, 51 + s));
  }
  fprintf(stderr, "implicitfast vs dense eq. (5), tendons: worst relative error %.3g\n", worst);
  cr_assert_lt(worst, 1e-7);
}


//---------------------------------- stability -----------------------------------------------------

// kinetic + gravitational potential energy at the current state
static double energy(const mcModel* m, mcData* d) {
  mc_forward(m, d);
  double* Mv = calloc(m->nv, sizeof(double));
  mc_mulM(m, d, Mv, d->qvel);
  double e = 0;
  for (int i = 0; i < m->nv; i++) {
    e += 0.5 * d->qvel[i] * Mv[i];
  }
  for (int b = 1; b < m->nbody; b++) {
    for (int k = 0; k < 3; k++) {
      e -= m->body_mass[b] * m->opt.gravity[k] * d->xipos[3 * b + k];
    }
  }
  free(Mv);
  return e;
}


static const char* const spinner_xml =
  "<mujoco model='spinner'>"
  "  <option gravity='0 0 0' timestep='0.01'/>"
  "  <worldbody>"
  "    <body>"
  "      <freejoint/>"
  "      <geom type='box' size='0.4 0.2 0.05' density='1000'/>"
  "    </body>"
  "  </worldbody>"
  "</mujoco>";


// worst energy ratio E/E0 over nstep steps of a fast spin about the intermediate axis
static double spinRatio(const char* integrator, int nstep) {
  char err[1024] = "";
  mcModel* m = mc_loadXMLString(spinner_xml, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(mc_setIntegrator(m, integrator, err, sizeof(err)), 0, "%s", err);
  mcData* d = mc_makeData(m);
  d->qvel[3] = 0.1;
  d->qvel[4] = 20;
  d->qvel[5] = 0.1;
  double e0 = energy(m, d), worst = 1;
  for (int i = 0; i < nstep; i++) {
    mc_step(m, d);
    double r = energy(m, d) / e0;
    if (!(r <= worst)) {
      worst = r;
    }
    if (!isfinite(r) || r > 1e6) {
      break;
    }
  }
  mc_deleteData(d);
  mc_deleteModel(m);
  return worst;
}


Test(stability, gyroscopic_spin_implicit_bounded) {
  double imp = spinRatio("implicit", 2000);
  double eul = spinRatio("euler", 2000);
  fprintf(stderr, "spinning box, 2000 steps of 10 ms: max E/E0 implicit %.6f, euler %.6g\n", imp,
          eul);
  cr_assert(isfinite(imp) && imp <= 1.0 + 1e-9, "implicit energy grew: %g", imp);
}


static const char* const pendulum_xml =
  "<mujoco model='pendulum'>"
  "  <default><geom contype='0' conaffinity='0'/></default>"
  "  <option timestep='%g'/>"
  "  <worldbody>"
  "    <body pos='0 0 2'>"
  "      <joint axis='0 1 0'/>"
  "      <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.03'/>"
  "      <body pos='0.3 0 0'>"
  "        <joint axis='0 1 0'/>"
  "        <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.03'/>"
  "        <body pos='0.3 0 0'>"
  "          <joint axis='0 1 0'/>"
  "          <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.03'/>"
  "          <body pos='0.3 0 0'>"
  "            <joint axis='0 1 0'/>"
  "            <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.03'/>"
  "          </body>"
  "        </body>"
  "      </body>"
  "    </body>"
  "  </worldbody>"
  "</mujoco>";


// worst relative energy drift of the chain over 10 s
static double pendulumDrift(const char* integrator, double dt) {
  char xml[4096], err[1024] = "";
  snprintf(xml, sizeof(xml), pendulum_xml, dt);
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(mc_setIntegrator(m, integrator, err, sizeof(err)), 0, "%s", err);
  mcData* d = mc_makeData(m);
  d->qpos[0] = 0.3;
  d->qvel[1] = 2;
  double e0 = energy(m, d), worst = 0;
  int n = (int)(10 / dt + 0.5);
  for (int i = 0; i < n; i++) {
    mc_step(m, d);
    worst = fmax(worst, fabs(energy(m, d) - e0) / fabs(e0));
  }
  mc_deleteData(d);
  mc_deleteModel(m);
  return worst;
}


Test(stability, pendulum_rk4_beats_euler_at_equal_cost) {
  // rk4 makes 4 forward evaluations per step: euler gets a 4 times smaller step
  double rk4 = pendulumDrift("rk4", 0.004);
  double eul = pendulumDrift("euler", 0.001);
  fprintf(stderr, "4-link pendulum, 10 s: max |E-E0|/|E0| rk4 (4 ms) %.3g, euler (1 ms) %.3g\n",
          rk4, eul);
  cr_assert_lt(rk4, eul);
}


// implicit with fluid: the inertia-box derivatives enter D as in MuJoCo 2.2.2
Test(implicit, trajectory_fluid_inertia_box) {
  trajectory("fluidbox", tendon_model_fluidbox, 25);
}


// implicit with the ellipsoid fluid model (all five coefficients, wind, viscosity): MuJoCo's
// added-mass constants are copied (its kappa quadrature differs by ~1e-6, see test_tendon);
// vscale shrinks the random velocities into the range where MuJoCo's blunt-drag area gradient is
// held back by its mcMINVAL floor (sqrt(C Q^3) < 1e-15)
static void trajectoryEllipsoid(const char* name, double vscale, unsigned long long seed) {
  ConfPair p;
  loadImplicit(&p, name, tendon_model_fluidellipsoid, seed);
  for (int k = 0; k < mcNFLUID * p.mj->ngeom; k++) {
    p.mc->geom_fluid[k] = p.mj->geom_fluid[k];
  }
  for (int i = 0; i < p.mj->nv; i++) {
    p.dj->qvel[i] *= vscale;
    p.dc->qvel[i] *= vscale;
  }
  char msg[4096] = "";
  int fail = conf_trajectoryCompare(&p, NSTEP, TRAJ_TOL, msg, sizeof(msg));
  double worst = fmax(p.stat[CONF_QPOS].err, p.stat[CONF_QVEL].err);
  fprintf(stderr, "implicit vs MuJoCo 2.2.2, %s: worst relative error %.3g over %d steps\n",
          name, worst, NSTEP);
  conf_free(&p);
  cr_assert_eq(fail, 0, "%s", msg);
}


Test(implicit, trajectory_fluid_ellipsoid) {
  trajectoryEllipsoid("fluidellipsoid", 1, 26);
}


Test(implicit, trajectory_fluid_ellipsoid_slow) {
  trajectoryEllipsoid("fluidellipsoid_slow", 0.02, 27);
}
