// Tests of tendons, transmissions, actuator dynamics and forces, activation integration.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include <moduco/moduco.h>

#include "build.h"
#include "engine/engine.h"
#include "math/math.h"


// two hinges (dofs 0, 1) and a slide (dof 2) in a chain, plus nu actuators and one fixed tendon
static mcModel* chain(int nu, int na) {
  int parent[4] = {0, 0, 1, 2}, jtype[4] = {0, mcJNT_HINGE, mcJNT_HINGE, mcJNT_SLIDE};
  tbBody b[4];
  tb_random(4, b, parent, jtype, 42);
  mcModel* m = tb_buildEx(4, b, nu, na, 1, 2);

  // tendon: 0.5 q0 - 2 q2
  m->tendon_adr[0] = 0;
  m->tendon_num[0] = 2;
  m->wrap_type[0] = m->wrap_type[1] = mcWRAP_JOINT;
  m->wrap_objid[0] = 0;
  m->wrap_objid[1] = 2;
  m->wrap_prm[0] = 0.5;
  m->wrap_prm[1] = -2;
  return m;
}


Test(actuation, tendonAndTransmission) {
  mcModel* m = chain(2, 0);
  m->actuator_trntype[0] = mcTRN_JOINT;
  m->actuator_trnid[0] = 1;
  m->actuator_gear[0] = 3;
  m->actuator_trntype[1] = mcTRN_TENDON;
  m->actuator_trnid[2] = 0;
  m->actuator_gear[6] = -1.5;
  mcData* d = mc_makeData(m);
  d->qpos[0] = 0.3;
  d->qpos[1] = -0.2;
  d->qpos[2] = 0.1;
  d->qvel[0] = 1;
  d->qvel[1] = 2;
  d->qvel[2] = -1;
  d->ctrl[0] = 0.5;
  d->ctrl[1] = 2;
  mc_forward(m, d);

  // tendon length, Jacobian, velocity
  cr_assert(fabs(d->ten_length[0] - (0.15 - 0.2)) < 1e-15);
  cr_assert(d->ten_J[0] == 0.5 && d->ten_J[1] == 0 && d->ten_J[2] == -2);
  cr_assert(fabs(d->ten_velocity[0] - 2.5) < 1e-15);

  // actuator lengths, moments, velocities, forces
  cr_assert(fabs(d->actuator_length[0] + 0.6) < 1e-15);
  cr_assert(fabs(d->actuator_length[1] - 1.5 * 0.05) < 1e-15);
  cr_assert(fabs(d->actuator_velocity[0] - 6) < 1e-15);
  cr_assert(fabs(d->actuator_velocity[1] + 3.75) < 1e-15);
  cr_assert(d->actuator_force[0] == 0.5 && d->actuator_force[1] == 2);
  cr_assert(fabs(d->qfrc_actuator[0] - 2 * -1.5 * 0.5) < 1e-15);
  cr_assert(fabs(d->qfrc_actuator[1] - 1.5) < 1e-15);
  cr_assert(fabs(d->qfrc_actuator[2] - 2 * -1.5 * -2) < 1e-15);

  // tendon spring with a dead band and damper
  m->tendon_stiffness[0] = 10;
  m->tendon_damping[0] = 0.2;
  m->tendon_lengthspring[0] = -0.03;
  m->tendon_lengthspring[1] = 0.0;
  mc_forward(m, d);
  double f = -10 * (-0.05 + 0.03) - 0.2 * 2.5;
  cr_assert(fabs(d->qfrc_passive[0] - 0.5 * f) < 1e-14);
  cr_assert(fabs(d->qfrc_passive[2] + 2 * f) < 1e-14);

  // actuation disabled
  m->opt.disableflags |= mcDSBL_ACTUATION;
  mc_forward(m, d);
  cr_assert(d->qfrc_actuator[0] == 0 && d->actuator_force[1] == 0);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(actuation, gainBiasClamp) {
  // position servo with ctrl clamp and force clamp
  mcModel* m = chain(1, 0);
  m->actuator_trnid[0] = 0;
  m->actuator_gaintype[0] = mcGAIN_FIXED;
  m->actuator_gainprm[0] = 10;
  m->actuator_biastype[0] = mcBIAS_AFFINE;
  m->actuator_biasprm[1] = -10;
  m->actuator_biasprm[2] = -1;
  m->actuator_ctrllimited[0] = 1;
  m->actuator_ctrlrange[0] = -0.5;
  m->actuator_ctrlrange[1] = 0.5;
  mcData* d = mc_makeData(m);
  d->qpos[0] = 0.1;
  d->qvel[0] = 0.4;
  d->ctrl[0] = 2;
  mc_forward(m, d);
  cr_assert(fabs(d->actuator_force[0] - (10 * 0.5 - 10 * 0.1 - 0.4)) < 1e-14);
  cr_assert(d->ctrl[0] == 2);

  // no clamping when disabled; force range
  m->opt.disableflags |= mcDSBL_CLAMPCTRL;
  m->actuator_forcelimited[0] = 1;
  m->actuator_forcerange[0] = -1;
  m->actuator_forcerange[1] = 7;
  mc_forward(m, d);
  cr_assert(d->actuator_force[0] == 7);

  // affine gain
  m->opt.disableflags = 0;
  m->actuator_forcelimited[0] = 0;
  m->actuator_gaintype[0] = mcGAIN_AFFINE;
  m->actuator_gainprm[1] = 2;
  m->actuator_gainprm[2] = 3;
  mc_forward(m, d);
  double gain = 10 + 2 * 0.1 + 3 * 0.4;
  cr_assert(fabs(d->actuator_force[0] - (gain * 0.5 - 10 * 0.1 - 0.4)) < 1e-14);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(actuation, activationDynamics) {
  // integrator, filter, filterexact: act_dot, exact integration, actrange, actearly
  mcModel* m = chain(3, 3);
  double tau = 0.05, h = m->opt.timestep;
  for (int i = 0; i < 3; i++) {
    m->actuator_trnid[2 * i] = i;
    m->actuator_actadr[i] = i;
    m->actuator_actnum[i] = 1;
    m->actuator_dynprm[mcNDYN * i] = tau;
  }
  m->actuator_dyntype[0] = mcDYN_INTEGRATOR;
  m->actuator_dyntype[1] = mcDYN_FILTER;
  m->actuator_dyntype[2] = mcDYN_FILTEREXACT;
  m->actuator_actlimited[0] = 1;
  m->actuator_actrange[0] = -1;
  m->actuator_actrange[1] = 0.1001;
  mcData* d = mc_makeData(m);
  d->act[0] = 0.1;
  d->act[1] = 0.2;
  d->act[2] = 0.3;
  d->ctrl[0] = d->ctrl[1] = d->ctrl[2] = 1;
  mc_forward(m, d);
  cr_assert(d->act_dot[0] == 1);
  cr_assert(fabs(d->act_dot[1] - 0.8 / tau) < 1e-12);
  cr_assert(fabs(d->act_dot[2] - 0.7 / tau) < 1e-12);
  cr_assert(d->actuator_force[1] == 0.2);

  // advance: Euler, exact filter, clamped integrator
  mc_advanceAct(m, d, d->act_dot, h);
  cr_assert(d->act[0] == 0.1001);
  cr_assert(fabs(d->act[1] - (0.2 + h * 0.8 / tau)) < 1e-14);
  cr_assert(fabs(d->act[2] - (1 - 0.7 * exp(-h / tau))) < 1e-14);

  // actearly uses the next activation
  m->actuator_actearly[2] = 1;
  mc_forward(m, d);
  double next = d->act[2] + (1 - d->act[2]) * (1 - exp(-h / tau));
  cr_assert(fabs(d->actuator_force[2] - next) < 1e-14);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(actuation, ballAndFreeJoint) {
  // ball: length is the rotation vector along gear; free: 6D gear, length 0
  tbBody b[3];
  memset(b, 0, sizeof(b));
  b[1].jtype = mcJNT_FREE;
  b[1].mass = 1;
  b[1].inertia[0] = b[1].inertia[1] = b[1].inertia[2] = 0.1;
  b[2].parent = 1;
  b[2].jtype = mcJNT_BALL;
  b[2].mass = 1;
  b[2].inertia[0] = b[2].inertia[1] = b[2].inertia[2] = 0.1;
  mcModel* m = tb_buildEx(3, b, 2, 0, 0, 0);
  double g[6] = {1, 2, 3, 4, 5, 6};
  memcpy(m->actuator_gear, g, sizeof(g));
  m->actuator_trnid[0] = 0;
  m->actuator_trnid[2] = 1;
  m->actuator_gear[6] = 0.5;
  m->actuator_gear[7] = 0.7;
  m->actuator_gear[8] = 0.9;
  mcData* d = mc_makeData(m);
  double x[3] = {0.6, -0.8, 0}, qb[4];
  mcu_axisAngle2Quat(qb, x, 0.9);
  memcpy(d->qpos + 7, qb, sizeof(qb));
  mc_forward(m, d);
  for (int k = 0; k < 6; k++) {
    cr_assert(d->actuator_moment[k] == g[k]);
  }
  cr_assert(d->actuator_length[0] == 0);
  cr_assert(fabs(d->actuator_length[1] - 0.9 * (0.6 * 0.5 - 0.8 * 0.7)) < 1e-14);
  cr_assert(d->actuator_moment[9 + 6] == 0.5 && d->actuator_moment[9 + 8] == 0.9);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the dense moment and tendon rows are cleared over their previous span only: a row must still
// hold exactly its new entries after the model's transmission targets change between calls
Test(actuation, momentRowsFollowTransmissionEdits) {
  mcModel* m = chain(2, 0);
  m->actuator_trntype[0] = mcTRN_JOINT;
  m->actuator_trnid[0] = 0;
  m->actuator_gear[0] = 2;
  m->actuator_trntype[1] = mcTRN_TENDON;
  m->actuator_trnid[2] = 0;
  m->actuator_gear[6] = 1;
  mcData* d = mc_makeData(m);
  mc_forward(m, d);
  cr_assert(d->actuator_moment[0] == 2 && d->actuator_moment[1] == 0);
  cr_assert(d->actuator_moment_span[0] == 0 && d->actuator_moment_span[1] == 1);
  cr_assert(d->ten_J_span[0] == 0 && d->ten_J_span[1] == 3);

  // retarget the joint actuator to the slide, the tendon to q1 alone
  m->actuator_trnid[0] = 2;
  m->tendon_num[0] = 1;
  m->wrap_objid[0] = 1;
  mc_forward(m, d);
  const mcNum want0[3] = {0, 0, 2}, wantJ[3] = {0, 0.5, 0};
  for (int c = 0; c < 3; c++) {
    cr_assert(d->actuator_moment[c] == want0[c], "moment(0, %d) = %g", c, d->actuator_moment[c]);
    cr_assert(d->ten_J[c] == wantJ[c], "ten_J(0, %d) = %g", c, d->ten_J[c]);
    cr_assert(d->actuator_moment[3 + c] == wantJ[c]);
  }
  cr_assert(d->ten_J_span[0] == 1 && d->ten_J_span[1] == 2);
  cr_assert(d->actuator_moment_span[2] == 1 && d->actuator_moment_span[3] == 2);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// every nonzero of a row lies in its span, and stepping gives the rows a fresh data computes
static void checkRowsAgainstFresh(const mcModel* m, mcData* d, mcData* fresh) {
  mc_resetData(m, fresh);
  mcu_copy(fresh->qpos, d->qpos, m->nq);
  mcu_copy(fresh->qvel, d->qvel, m->nv);
  mc_fwdPosition(m, fresh);
  mc_fwdPosition(m, d);
  size_t n = (size_t)m->nu * m->nv, nt = (size_t)m->ntendon * m->nv;
  cr_assert(!memcmp(d->actuator_moment, fresh->actuator_moment, sizeof(mcNum) * n));
  cr_assert(!memcmp(d->ten_J, fresh->ten_J, sizeof(mcNum) * nt));
  for (int i = 0; i < m->nu; i++) {
    const int* span = d->actuator_moment_span + 2 * i;
    for (int c = 0; c < m->nv; c++) {
      cr_assert((c >= span[0] && c < span[1]) || d->actuator_moment[(size_t)i * m->nv + c] == 0);
    }
  }
  for (int i = 0; i < m->ntendon; i++) {
    const int* span = d->ten_J_span + 2 * i;
    for (int c = 0; c < m->nv; c++) {
      cr_assert((c >= span[0] && c < span[1]) || d->ten_J[(size_t)i * m->nv + c] == 0);
    }
  }
}


// a box with an adhesion actuator (body transmission: rows from the changing contacts) and a site
// actuator, bouncing on a plane; and the spatial-tendon arm of MuJoCo's samples
static const char* kAdhesion =
    "<mujoco><worldbody><geom type='plane' size='2 2 .1'/>"
    "<body name='box' pos='0 0 .3'><freejoint/><geom type='box' size='.1 .1 .05' margin='.02'/>"
    "<site name='s' pos='.05 0 0'/></body></worldbody>"
    "<actuator><adhesion body='box' ctrlrange='0 1' gain='5'/>"
    "<general site='s' gear='0 0 1 0 1 0'/></actuator></mujoco>";


Test(actuation, momentRowsMatchFreshData) {
  for (int f = 0; f < 2; f++) {
    char err[512] = "";
    mcModel* m = f ? mc_loadXML("/usr/share/mujoco/model/tendon_arm/arm26.xml", err, sizeof(err))
                   : mc_loadXMLString(kAdhesion, NULL, err, sizeof(err));
    cr_assert(m, "model %d: %s", f, err);
    mcData* d = mc_makeData(m);
    mcData* fresh = mc_makeData(m);
    int touched = 0;
    for (int s = 0; s < 400; s++) {
      for (int i = 0; i < m->nu; i++) {
        d->ctrl[i] = 0.5 + 0.5 * sin(0.05 * s + i);
      }
      d->qfrc_applied[2] = f ? 0 : 30 * sin(0.03 * s);  // lift the box off and back on
      mc_step(m, d);
      touched += f == 0 && d->ncon > 0;
      if (s % 10 == 0) {
        checkRowsAgainstFresh(m, d, fresh);
      }
    }
    cr_assert(f || touched > 0, "the box never touched the plane");
    mc_deleteData(fresh);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}
