// Tests of the shortcuts of the serial core stages (session 9): each gives the numbers of the
// general formula it skips, checked against that formula written out here.
//  - kinematics: a site, geom or inertial frame with a unit local quaternion copies its body's
//    xmat; a body with a unit body_quat starts from its parent's xquat; a joint at the body
//    origin anchors at the body position and moves no origin;
//  - constraint: the default solimp power 2 squares with x * x; efc_vel and efc_aref are computed
//    once, in the velocity stage, and hold J qvel and the reference of the rows' parameters;
//  - profiling: consecutive actuator plugin calls share their clock reads.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include <moduco/moduco.h>

#include "engine/constraint.h"
#include "engine/engine.h"
#include "plugin/registry.h"
#include "math/math.h"


// bodies with and without body quaternions, joints at and off the origin (hinge, slide, ball),
// sites and geoms with and without local rotations, an explicit rotated inertial frame, contacts
// with the floor and a joint limit
static const char* kXml =
  "<mujoco>"
  "  <worldbody>"
  "    <geom name='floor' type='plane' size='5 5 .1'/>"
  "    <body name='a' pos='0 0 .3'>"
  "      <freejoint/>"
  "      <geom type='box' size='.1 .2 .05'/>"
  "      <site name='s0' pos='.1 .2 .3'/>"
  "      <site name='s1' pos='.1 0 0' quat='.9 .1 .3 .2'/>"
  "      <body name='b' pos='.2 0 0'>"
  "        <joint type='hinge' axis='0 1 0' range='-.5 .5'/>"
  "        <geom type='capsule' fromto='0 0 0 .2 0 0' size='.03'/>"
  "        <site name='s2' pos='.05 .01 .02'/>"
  "        <body name='c' pos='.2 0 0' quat='.7 .1 -.2 .3'>"
  "          <joint type='hinge' pos='.03 -.02 .01' axis='1 1 0'/>"
  "          <joint type='slide' axis='0 0 1'/>"
  "          <inertial pos='.01 .02 .03' quat='.6 .2 .1 -.3' mass='.4' diaginertia='.01 .02 .03'/>"
  "          <geom type='sphere' size='.04' pos='.05 0 0'/>"
  "          <site name='s3' pos='.05 0 0' quat='1 0 0 0'/>"
  "          <body name='d' pos='0 .1 0'>"
  "            <joint type='ball' pos='.01 .02 0'/>"
  "            <geom type='box' size='.02 .03 .04' pos='.02 0 0' euler='10 20 30'/>"
  "          </body>"
  "        </body>"
  "      </body>"
  "    </body>"
  "  </worldbody>"
  "</mujoco>";


static mcModel* load(const char* xml) {
  char err[512] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert(m, "model: %s", err);
  return m;
}


// pseudo-random state
static void randomState(const mcModel* m, mcData* d, int seed) {
  unsigned s = 12345u + 7919u * (unsigned)seed;
  for (int i = 0; i < m->nq; i++) {
    s = s * 1103515245u + 12345u;
    d->qpos[i] = m->qpos0[i] + 0.6 * ((double)(s >> 8) / (double)(1u << 24) - 0.5);
  }
  for (int i = 0; i < m->nv; i++) {
    s = s * 1103515245u + 12345u;
    d->qvel[i] = 2.0 * ((double)(s >> 8) / (double)(1u << 24) - 0.5);
  }
  d->qpos[2] = 0.05;  // the free body low enough to touch the floor
}


// the general frame formulas: object frame = body frame * local (pos, quat)
static void refLocal(double xpos[3], double xmat[9], const double* pos, const double* quat,
                     const double* bpos, const double* bquat) {
  double R[9], q[4];
  mcu_quat2Mat(R, bquat);
  mcu_mulMatVec3(xpos, R, pos);
  mcu_addTo3(xpos, bpos);
  mcu_mulQuat(q, bquat, quat);
  mcu_quat2Mat(xmat, q);
}


static void expectSame(const double* a, const double* b, int n, const char* what, int i) {
  for (int k = 0; k < n; k++) {
    cr_expect(a[k] == b[k], "%s %d [%d]: %.17g against the general formula's %.17g", what, i, k,
              a[k], b[k]);
  }
}


// n sites or geoms against the general formula on their bodies' frames
static void expectObjects(const mcData* d, int n, const int* bodyid, const double* pos,
                          const double* quat, const double* xpos, const double* xmat,
                          const char* what) {
  for (int i = 0; i < n; i++) {
    int b = bodyid[i];
    double p[3], R[9];
    refLocal(p, R, pos + 3 * i, quat + 4 * i, d->xpos + 3 * b, d->xquat + 4 * b);
    expectSame(xpos + 3 * i, p, 3, what, i);
    expectSame(xmat + 9 * i, R, 9, what, i);
  }
}


Test(core_shortcuts, kinematicsEqualsGeneralFormulas) {
  mcModel* m = load(kXml);
  mcData* d = mc_makeData(m);
  int unitSites = 0, unitBodies = 0, originJoints = 0, offJoints = 0;
  for (int i = 0; i < m->nsite; i++) {
    const double* q = m->site_quat + 4 * i;
    unitSites += q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0 && !m->site_sameframe[i];
  }
  for (int i = 1; i < m->nbody; i++) {
    const double* q = m->body_quat + 4 * i;
    unitBodies += q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0;
  }
  for (int j = 0; j < m->njnt; j++) {
    const double* p = m->jnt_pos + 3 * j;
    if (m->jnt_type[j] != mcJNT_FREE) {
      int origin = p[0] == 0 && p[1] == 0 && p[2] == 0;
      originJoints += origin;
      offJoints += !origin;
    }
  }
  cr_assert(unitSites >= 2 && unitBodies >= 2 && originJoints >= 1 && offJoints >= 2,
            "the model covers both sides of every shortcut");

  for (int t = 0; t < 20; t++) {
    randomState(m, d, t);
    mc_forward(m, d);

    // bodies: parent frame, body offset, then the joints by the general formulas
    for (int i = 1; i < m->nbody; i++) {
      int p = m->body_parentid[i];
      double xpos[3], xquat[4];
      mcu_mulMatVec3(xpos, d->xmat + 9 * p, m->body_pos + 3 * i);
      mcu_addTo3(xpos, d->xpos + 3 * p);
      mcu_mulQuat(xquat, d->xquat + 4 * p, m->body_quat + 4 * i);
      for (int j = m->body_jntadr[i]; j < m->body_jntadr[i] + m->body_jntnum[i]; j++) {
        const double* qp = d->qpos + m->jnt_qposadr[j];
        double axis[3], anchor[3], off[3], qloc[4];
        if (m->jnt_type[j] == mcJNT_FREE) {
          mcu_copy3(xpos, qp);
          mcu_copy4(xquat, qp + 3);
          mcu_normalize4(xquat);
          continue;
        }
        mcu_rotVecQuat(axis, m->jnt_axis + 3 * j, xquat);
        mcu_rotVecQuat(anchor, m->jnt_pos + 3 * j, xquat);
        mcu_addTo3(anchor, xpos);
        expectSame(d->xaxis + 3 * j, axis, 3, "xaxis", j);
        expectSame(d->xanchor + 3 * j, anchor, 3, "xanchor", j);
        if (m->jnt_type[j] == mcJNT_SLIDE) {
          mcu_addToScl3(xpos, axis, qp[0] - m->qpos0[m->jnt_qposadr[j]]);
          continue;
        }
        if (m->jnt_type[j] == mcJNT_BALL) {
          mcu_copy4(qloc, qp);
          mcu_normalize4(qloc);
        } else {
          mcu_axisAngle2Quat(qloc, m->jnt_axis + 3 * j, qp[0] - m->qpos0[m->jnt_qposadr[j]]);
        }
        mcu_mulQuat(xquat, xquat, qloc);
        mcu_rotVecQuat(off, m->jnt_pos + 3 * j, xquat);
        mcu_sub3(xpos, anchor, off);
      }
      mcu_normalize4(xquat);
      expectSame(d->xpos + 3 * i, xpos, 3, "xpos", i);
      expectSame(d->xquat + 4 * i, xquat, 4, "xquat", i);

      // inertial frame
      double xipos[3], ximat[9];
      refLocal(xipos, ximat, m->body_ipos + 3 * i, m->body_iquat + 4 * i, d->xpos + 3 * i,
               d->xquat + 4 * i);
      expectSame(d->xipos + 3 * i, xipos, 3, "xipos", i);
      expectSame(d->ximat + 9 * i, ximat, 9, "ximat", i);
    }

    // sites and geoms
    expectObjects(d, m->nsite, m->site_bodyid, m->site_pos, m->site_quat, d->site_xpos,
                  d->site_xmat, "site");
    expectObjects(d, m->ngeom, m->geom_bodyid, m->geom_pos, m->geom_quat, d->geom_xpos,
                  d->geom_xmat, "geom");
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(core_shortcuts, impedancePowerTwoIsTheSquare) {
  // power 2 on both sides of the midpoint: the exact square, within an ulp of pow's
  double si[mcNIMP] = {0.9, 0.95, 0.001, 0.5, 2};
  for (int k = 1; k < 1000; k++) {
    double x = -0.001 + 0.002 * k / 1000.0, imp, impP;
    mc_impedance(si, x, &imp, &impP);
    double u = fabs(x) / si[2];
    if (u >= 1) {
      cr_expect(imp == si[1]);
      continue;
    }
    double a = u <= si[3] ? 1 / si[3] : 1 / (1 - si[3]);
    double y = u <= si[3] ? a * (u * u) : 1 - a * ((1 - u) * (1 - u));
    cr_expect(imp == si[0] + y * (si[1] - si[0]), "x = %.17g: %.17g", x, imp);
    double yp = u <= si[3] ? a * pow(u, 2) : 1 - a * pow(1 - u, 2);
    double viaPow = si[0] + yp * (si[1] - si[0]);
    cr_expect(fabs(imp - viaPow) <= 2 * (nextafter(imp, 2) - imp), "x = %.17g", x);
  }

  // another power still goes through pow
  double s3[mcNIMP] = {0.9, 0.95, 0.001, 0.5, 3}, imp, impP;
  mc_impedance(s3, 0.0003, &imp, &impP);
  double u = 0.0003 / 0.001, a = 1 / pow(0.5, 2);
  cr_expect(imp == 0.9 + a * pow(u, 3) * (0.95 - 0.9), "power 3: %.17g", imp);
}


Test(core_shortcuts, referenceComputedInTheVelocityStage) {
  mcModel* m = load(kXml);
  mcData* d = mc_makeData(m);
  int rows = 0;
  for (int t = 0; t < 20; t++) {
    randomState(m, d, t);
    mc_forward(m, d);
    rows += d->nefc;
    for (int i = 0; i < d->nefc; i++) {
      const double* kbip = d->efc_KBIP + 4 * i;
      double vel = 0;
      for (int c = 0; c < m->nv; c++) {
        vel += d->efc_J[(size_t)i * m->nv + c] * d->qvel[c];
      }
      cr_expect(fabs(d->efc_vel[i] - vel) <= 1e-12 * (1 + fabs(vel)), "row %d: %g against %g",
                i, d->efc_vel[i], vel);
      double aref = -kbip[1] * d->efc_vel[i] - kbip[0] * kbip[2] * (d->efc_pos[i] -
                                                                     d->efc_margin[i]);
      cr_expect(d->efc_aref[i] == aref, "row %d: aref %g against %g", i, d->efc_aref[i], aref);
    }
  }
  cr_assert(rows > 20, "the states make contact and limit rows (%d)", rows);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// profiling: consecutive actuator plugin calls share their clock reads; every call still counts
// once in its plugin's timer, and the plugin's time stays within the actuation stage's
Test(core_shortcuts, chainedActuatorTimers) {
  static const char* xml =
    "<mujoco>"
    "  <worldbody>"
    "    <site name='a0' pos='0 0 1.5'/><site name='a1' pos='.1 0 1.5'/>"
    "    <body name='arm' pos='0 0 1'>"
    "      <joint name='hinge' type='hinge' axis='0 1 0'/>"
    "      <geom type='capsule' fromto='0 0 0 .3 0 0' size='.03'/>"
    "      <site name='tip' pos='.3 0 0'/>"
    "    </body>"
    "  </worldbody>"
    "  <tendon>"
    "    <spatial name='t0'><site site='a0'/><site site='tip'/></spatial>"
    "    <spatial name='t1'><site site='a1'/><site site='tip'/></spatial>"
    "  </tendon>"
    "  <actuator>"
    "    <muscle tendon='t0' ctrllimited='true' ctrlrange='0 1'/>"
    "    <muscle tendon='t1' ctrllimited='true' ctrlrange='0 1'/>"
    "    <motor joint='hinge' gear='1'/>"
    "    <muscle tendon='t0' ctrllimited='true' ctrlrange='0 1'/>"
    "  </actuator>"
    "</mujoco>";
  mcModel* m = load(xml);
  mcData* d = mc_makeData(m);
  int slot = -1;
  for (int i = 0; i < m->nplugin; i++) {
    if ((int)m->plugin[i]->kind == mcpKIND_ACTUATOR) {
      slot = mcp_elementSlot(m->plugin[i]);
    }
  }
  cr_assert_geq(slot, 0, "the muscles should be bound to an actuator plugin");
  d->profile = 1;
  int steps = 50;
  for (int t = 0; t < steps; t++) {
    for (int i = 0; i < m->nu; i++) {
      d->ctrl[i] = 0.5;
    }
    mc_step(m, d);
  }
  const mcTimerStat* p = d->timer_plugin + (slot < mcNTIMERPLUGIN - 1 ? slot : mcNTIMERPLUGIN - 1);
  cr_expect_eq(p->number, 2 * 3 * steps, "act_dot and force of three muscles a step");
  cr_expect_gt(p->duration, 0);
  cr_expect_leq(p->duration, d->timer[mcTIMER_ACTUATION].duration,
                "plugin time %g beyond the actuation stage's %g", p->duration,
                d->timer[mcTIMER_ACTUATION].duration);
  mc_deleteData(d);
  mc_deleteModel(m);
}
