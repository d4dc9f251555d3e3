// The built-in integrator plugins against MuJoCo 2.2.2 (the oracle), 200 steps to 1e-7.
//
// Part 1 (shim) isolates the integrators from the rest of the engine: the plugin runs on an
// mcModel/mcData whose arrays point into a MuJoCo mjModel/mjData, with a host table whose
// forward dynamics are MuJoCo's. Any difference is then the integration scheme itself.
// Part 2 (end to end) loads the same model in Moduco and compares mc_step with mj_step.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "plugin/registry.h"

#define NSTEP 200
#define TOL 1e-7

// pendulum with hinge + ball joints, damping, a free body, filter and limited integrator
// activations; no contacts
static const char* kPendulumXML =
  "<mujoco>\n"
  "  <option timestep='0.005'/>\n"
  "  <worldbody>\n"
  "    <body pos='0 0 1'>\n"
  "      <joint name='j0' type='hinge' axis='0 1 0' damping='0.5'/>\n"
  "      <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.05'/>\n"
  "      <body pos='0.3 0 0'>\n"
  "        <joint name='j1' type='ball' damping='0.2'/>\n"
  "        <geom type='capsule' fromto='0 0 0 0.3 0.1 0' size='0.05'/>\n"
  "      </body>\n"
  "    </body>\n"
  "    <body pos='1 0 1'><freejoint/><geom type='box' size='0.1 0.2 0.05'/></body>\n"
  "  </worldbody>\n"
  "  <actuator>\n"
  "    <general joint='j0' dyntype='filter' dynprm='0.05' gainprm='2' ctrlrange='-1 1'\n"
  "             ctrllimited='true'/>\n"
  "    <general joint='j0' dyntype='integrator' gainprm='1' actlimited='true'\n"
  "             actrange='-0.3 0.3'/>\n"
  "  </actuator>\n"
  "</mujoco>\n";

// the same without damping (Euler takes the plain semi-implicit branch)
static const char* kUndampedXML =
  "<mujoco>\n"
  "  <option timestep='0.01'/>\n"
  "  <worldbody>\n"
  "    <body pos='0 0 1'>\n"
  "      <joint type='hinge' axis='0 1 0'/>\n"
  "      <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.05'/>\n"
  "      <body pos='0.3 0 0'>\n"
  "        <joint type='ball'/>\n"
  "        <geom type='capsule' fromto='0 0 0 0.3 0.1 0' size='0.05'/>\n"
  "      </body>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "</mujoco>\n";


//---------------------------------- MuJoCo side ---------------------------------------------------

// write xml to a temporary file and load it with MuJoCo
static mjModel* mjLoadString(const char* xml) {
  char path[] = "/tmp/moduco-test-XXXXXX.xml";
  int fd = mkstemps(path, 4);
  cr_assert_geq(fd, 0);
  FILE* f = fdopen(fd, "w");
  fputs(xml, f);
  fclose(f);
  char err[1000];
  mjModel* m = mj_loadXML(path, NULL, err, sizeof(err));
  remove(path);
  cr_assert_not_null(m, "MuJoCo: %s", err);
  return m;
}


// a reproducible non-trivial initial state and controls
static void mjInit(const mjModel* m, mjData* d) {
  for (int i = 0; i < m->nv; i++) {
    d->qvel[i] = 0.3 * (i + 1) * (i % 2 ? -1 : 1);
  }
  for (int i = 0; i < m->nu; i++) {
    d->ctrl[i] = 0.8 - 0.3 * i;
  }
}


//---------------------------------- the shim host -------------------------------------------------

static const mjModel* g_mjm;
static mjData* g_mjd;
static _Alignas(64) unsigned char g_stack[1 << 22];
static size_t g_top, g_mark[64];
static int g_nmark, g_maxmark;


static void shimMark(mcData* d) {
  cr_assert_lt(g_nmark, 64);
  g_mark[g_nmark++] = g_top;
  g_maxmark = g_nmark > g_maxmark ? g_nmark : g_maxmark;
}


static void shimFree(mcData* d) {
  cr_assert_gt(g_nmark, 0, "freeStack without markStack");
  g_top = g_mark[--g_nmark];
}


static void* shimAlloc(mcData* d, size_t bytes, size_t align) {
  cr_assert_gt(g_nmark, 0, "stackAlloc outside a markStack frame");
  size_t start = (g_top + align - 1) / align * align;
  if (start + bytes > sizeof(g_stack)) {
    return NULL;
  }
  g_top = start + bytes;
  return g_stack + start;
}


static void shimForward(const mcModel* m, mcData* d) {
  g_mjd->time = d->time;
  mj_forward(g_mjm, g_mjd);
}


static void shimForwardSkip(const mcModel* m, mcData* d, int skipstage, int skipsensor) {
  g_mjd->time = d->time;
  mj_forwardSkip(g_mjm, g_mjd, skipstage, skipsensor);
}


static void shimIntegratePos(const mcModel* m, mcNum* qpos, const mcNum* qvel, mcNum dt) {
  mj_integratePos(g_mjm, qpos, qvel, dt);
}


static void shimNormalizeQuat(const mcModel* m, mcNum* qpos) {
  mj_normalizeQuat(g_mjm, qpos);
}


// MuJoCo 2.2.2 activations: the last na actuators, explicit Euler, clamped when actlimited
static void shimAdvanceAct(const mcModel* m, mcData* d, const mcNum* act_dot, mcNum h) {
  int first = g_mjm->nu - g_mjm->na;
  for (int j = 0; j < g_mjm->na; j++) {
    d->act[j] += h * act_dot[j];
    if (g_mjm->actuator_actlimited[first + j]) {
      const mjtNum* range = g_mjm->actuator_actrange + 2 * (first + j);
      d->act[j] = d->act[j] < range[0] ? range[0] : d->act[j] > range[1] ? range[1] : d->act[j];
    }
  }
}


// L'DL of the tree-sparse layout (M and qLD may alias)
static void shimFactorI(const mcModel* m, const mcNum* M, mcNum* qLD, mcNum* qLDiagInv) {
  const int* madr = g_mjm->dof_Madr;
  const int* parent = g_mjm->dof_parentid;
  if (qLD != M) {
    memcpy(qLD, M, sizeof(mcNum) * (size_t)g_mjm->nM);
  }

  // from the leaves up: update the ancestors' rows, then scale row k
  for (int k = g_mjm->nv - 1; k >= 0; k--) {
    mcNum invD = 1 / qLD[madr[k]];
    int adr_ki = madr[k] + 1;
    for (int i = parent[k]; i >= 0; i = parent[i], adr_ki++) {
      mcNum tmp = qLD[adr_ki] * invD;
      int adr_ij = madr[i];
      int adr_kj = adr_ki;
      for (int j = i; j >= 0; j = parent[j]) {
        qLD[adr_ij++] -= tmp * qLD[adr_kj++];
      }
    }
    adr_ki = madr[k] + 1;
    for (int i = parent[k]; i >= 0; i = parent[i]) {
      qLD[adr_ki++] *= invD;
    }
  }
  for (int k = 0; k < g_mjm->nv; k++) {
    qLDiagInv[k] = 1 / qLD[madr[k]];
  }
}


// x = (L'DL)^-1 x for one column
static void shimSolveLD(const mcModel* m, mcNum* x, int n, const mcNum* qLD,
                        const mcNum* qLDiagInv) {
  const int* madr = g_mjm->dof_Madr;
  const int* parent = g_mjm->dof_parentid;
  int nv = g_mjm->nv;
  for (int c = 0; c < n; c++, x += nv) {
    for (int i = nv - 1; i >= 0; i--) {
      int adr = madr[i] + 1;
      for (int j = parent[i]; j >= 0; j = parent[j]) {
        x[j] -= qLD[adr++] * x[i];
      }
    }
    for (int i = 0; i < nv; i++) {
      x[i] *= qLDiagInv[i];
    }
    for (int i = 0; i < nv; i++) {
      int adr = madr[i] + 1;
      for (int j = parent[i]; j >= 0; j = parent[j]) {
        x[i] -= qLD[adr++] * x[j];
      }
    }
  }
}


static const mcpHost kShimHost = {
  .abi_major = MCP_ABI_MAJOR,
  .abi_minor = MCP_ABI_MINOR,
  .struct_size = sizeof(mcpHost),
  .precision = MCP_PRECISION,
  .markStack = shimMark,
  .freeStack = shimFree,
  .stackAlloc = shimAlloc,
  .forward = shimForward,
  .forwardSkip = shimForwardSkip,
  .integratePos = shimIntegratePos,
  .normalizeQuat = shimNormalizeQuat,
  .advanceAct = shimAdvanceAct,
  .factorI = shimFactorI,
  .solveLD = shimSolveLD,
};


//---------------------------------- comparison ----------------------------------------------------

// largest |a - b| / max(1, |b|)
static double maxdiff(const double* a, const double* b, int n) {
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double e = fabs(a[i] - b[i]) / fmax(1, fabs(b[i]));
    worst = e > worst || isnan(e) ? e : worst;
  }
  return worst;
}


// step MuJoCo (reference) and the plugin on the shim side by side
static void compareShim(const char* xml, const char* integrator, int mjint, int nstep) {
  // the plugin
  mc_setMessageHandler(NULL, NULL);
  const mcpIntegrator* plugin = (const mcpIntegrator*)mcp_find(mcpKIND_INTEGRATOR, integrator);
  cr_assert_not_null(plugin, "integrator '%s' not registered: %s", integrator,
                     mc_pluginMessages());

  // reference and shim data on the same model
  mjModel* m = (mjModel*)mjLoadString(xml);
  m->opt.integrator = mjint;
  mjData* ref = mj_makeData(m);
  mjData* sim = mj_makeData(m);
  mjInit(m, ref);
  mjInit(m, sim);
  g_mjm = m;
  g_mjd = sim;

  // mcModel / mcData views of the MuJoCo arrays the integrators read
  static mcModel fm;
  static mcData fd;
  memset(&fm, 0, sizeof(fm));
  memset(&fd, 0, sizeof(fd));
  fm.nq = m->nq, fm.nv = m->nv, fm.na = m->na, fm.nu = m->nu, fm.nM = m->nM;
  fm.opt.timestep = m->opt.timestep;
  fm.dof_damping = m->dof_damping;
  fm.dof_Madr = m->dof_Madr;
  fm.dof_parentid = m->dof_parentid;
  mcNum* nodrag = calloc((size_t)m->nu * 3 + 1, sizeof(mcNum));  // no actuator drag (2.2.2 has
  fm.actuator_damping = nodrag;                                    // none): Euler's D = dof_damping
  fd.qpos = sim->qpos, fd.qvel = sim->qvel, fd.act = sim->act, fd.qacc = sim->qacc;
  fd.act_dot = sim->act_dot, fd.qfrc_smooth = sim->qfrc_smooth;
  fd.qfrc_constraint = sim->qfrc_constraint, fd.qM = sim->qM;
  fd.qacc_warmstart = sim->qacc_warmstart;

  // step both
  double worst = 0;
  for (int s = 0; s < nstep; s++) {
    mj_step(m, ref);
    mj_forward(m, sim);
    fd.time = sim->time;
    plugin->step(&kShimHost, &fm, &fd);
    sim->time = fd.time;
    cr_assert_eq(g_nmark, 0, "unbalanced markStack/freeStack");

    double e[6] = {
      maxdiff(sim->qpos, ref->qpos, m->nq),
      maxdiff(sim->qvel, ref->qvel, m->nv),
      maxdiff(sim->act, ref->act, m->na),
      maxdiff(sim->qacc, ref->qacc, m->nv),
      maxdiff(sim->qacc_warmstart, ref->qacc_warmstart, m->nv),
      fabs(sim->time - ref->time),
    };
    for (int k = 0; k < 6; k++) {
      cr_assert_leq(e[k], TOL, "%s step %d: %s differs from mj_step by %g", integrator, s,
                    (const char*[]){"qpos", "qvel", "act", "qacc", "qacc_warmstart", "time"}[k],
                    e[k]);
      worst = e[k] > worst ? e[k] : worst;
    }
  }

  // the trajectory moved
  cr_expect_gt(fabs(ref->qpos[0] - m->qpos0[0]), 1e-3);
  mj_deleteData(ref);
  mj_deleteData(sim);
  mj_deleteModel(m);
  free(nodrag);
}


// test the plugins of this build tree (not an older installed copy)
static void setup(void) {
  setenv("MODUCO_PLUGIN_PATH", MODUCO_BUILD_PLUGIN_DIR, 1);
}


TestSuite(plugin_integrators, .init = setup);


Test(plugin_integrators, euler_damped_shim) {
  compareShim(kPendulumXML, "euler", mjINT_EULER, NSTEP);
  cr_expect_gt(g_maxmark, 0, "damped Euler uses the scratch stack");
}


Test(plugin_integrators, euler_undamped_shim) {
  compareShim(kUndampedXML, "euler", mjINT_EULER, NSTEP);
}


Test(plugin_integrators, rk4_shim) {
  compareShim(kPendulumXML, "rk4", mjINT_RK4, NSTEP);
}


Test(plugin_integrators, rk4_undamped_shim) {
  compareShim(kUndampedXML, "rk4", mjINT_RK4, NSTEP);
}


Test(plugin_integrators, humanoid_contacts_shim) {
  // contacts, limits, damping, motors: the solver warmstart path goes through qacc_warmstart
  FILE* f = fopen("/usr/share/mujoco/model/humanoid/humanoid.xml", "r");
  if (!f) {
    cr_assert_fail("humanoid.xml of libmujoco-samples not installed (scripts/setup-debian.sh)");
  }
  static char xml[1 << 16];
  size_t n = fread(xml, 1, sizeof(xml) - 1, f);
  xml[n] = 0;
  fclose(f);
  compareShim(xml, "euler", mjINT_EULER, NSTEP);
  compareShim(xml, "rk4", mjINT_RK4, NSTEP);
}


Test(plugin_integrators, euler_eulerdamp_disabled) {
  // with mcDSBL_EULERDAMP the damped model takes the explicit branch: qvel += h qacc, no scratch
  const mcpIntegrator* euler = (const mcpIntegrator*)mcp_find(mcpKIND_INTEGRATOR, "euler");
  cr_assert_not_null(euler);
  mjModel* m = mjLoadString(kPendulumXML);
  mjData* d = mj_makeData(m);
  mjInit(m, d);
  mj_forward(m, d);
  g_mjm = m;
  g_mjd = d;
  static mcModel fm;
  static mcData fd;
  fm.nq = m->nq, fm.nv = m->nv, fm.na = m->na, fm.nu = m->nu, fm.nM = m->nM;
  fm.opt.timestep = m->opt.timestep;
  fm.opt.disableflags = mcDSBL_EULERDAMP;
  fm.dof_damping = m->dof_damping;
  fm.dof_Madr = m->dof_Madr;
  fd.qpos = d->qpos, fd.qvel = d->qvel, fd.act = d->act, fd.qacc = d->qacc;
  fd.act_dot = d->act_dot, fd.qfrc_smooth = d->qfrc_smooth;
  fd.qfrc_constraint = d->qfrc_constraint, fd.qM = d->qM;
  fd.qacc_warmstart = d->qacc_warmstart;
  double qvel0[64];
  for (int i = 0; i < m->nv; i++) {
    qvel0[i] = d->qvel[i];
  }
  euler->step(&kShimHost, &fm, &fd);
  for (int i = 0; i < m->nv; i++) {
    cr_expect_eq(d->qvel[i], qvel0[i] + m->opt.timestep * d->qacc[i]);
  }
  cr_expect_eq(g_maxmark, 0);
  cr_expect_eq(fd.time, m->opt.timestep);
  mj_deleteData(d);
  mj_deleteModel(m);
}
