// Moduco core: tendons (mc_tendon), actuator transmissions (mc_transmission), tendon and
// actuator velocities, actuator dynamics and forces (mc_fwdActuation), activation integration
// (mc_advanceAct).
#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "engine/engine.h"
#include "math/math.h"
#include "plugin/registry.h"


//---------------------------------- tendons and transmissions -------------------------------------

void mc_tendon(const mcModel* m, mcData* d) {
  int nv = m->nv;

  // dense Jacobian rows start at zero
  mcu_zero(d->ten_J, m->ntendon * nv);

  // fixed tendons: linear combinations of joint coordinates
  for (int i = 0; i < m->ntendon; i++) {
    mcNum len = 0;
    mcNum* J = d->ten_J + (size_t)i * nv;
    int adr = m->tendon_adr[i], num = m->tendon_num[i];
    for (int w = adr; w < adr + num; w++) {
      if (m->wrap_type[w] != mcWRAP_JOINT) {
        // hook: spatial tendons (sites, wrapping geoms, pulleys) are a later issue; length 0
        len = 0;
        mcu_zero(J, nv);
        break;
      }
      int jnt = m->wrap_objid[w];
      mcNum coef = m->wrap_prm[w];
      len += coef * d->qpos[m->jnt_qposadr[jnt]];
      J[m->jnt_dofadr[jnt]] += coef;
    }
    d->ten_length[i] = len;
  }
}


// ball and free joint transmission: 3D (ball) or 6D (free) gear
static void transmissionQuat(const mcModel* m, mcData* d, int i, int jnt, mcNum* moment) {
  const mcNum* gear = m->actuator_gear + 6 * i;
  int free = m->jnt_type[jnt] == mcJNT_FREE;
  int dadr = m->jnt_dofadr[jnt];
  const mcNum* grot = free ? gear + 3 : gear;

  // joint rotation
  mcNum quat[4];
  mcu_copy4(quat, d->qpos + m->jnt_qposadr[jnt] + (free ? 3 : 0));
  mcu_normalize4(quat);

  // gear axis, in the parent frame for jointinparent
  mcNum axis[3];
  if (m->actuator_trntype[i] == mcTRN_JOINTINPARENT) {
    mcNum qinv[4];
    mcu_negQuat(qinv, quat);
    mcu_rotVecQuat(axis, grot, qinv);
  } else {
    mcu_copy3(axis, grot);
  }

  // free: translation gear then rotation axis, length 0
  if (free) {
    mcu_copy3(moment + dadr, gear);
    mcu_copy3(moment + dadr + 3, axis);
    d->actuator_length[i] = 0;
    return;
  }

  // ball: length is the rotation vector along the gear
  mcNum rotvec[3];
  mcu_quat2Vel(rotvec, quat, 1);
  mcu_copy3(moment + dadr, axis);
  d->actuator_length[i] = mcu_dot3(rotvec, axis);
}


void mc_transmission(const mcModel* m, mcData* d) {
  int nv = m->nv;

  // dense moment rows start at zero
  mcu_zero(d->actuator_moment, m->nu * nv);

  for (int i = 0; i < m->nu; i++) {
    int id = m->actuator_trnid[2 * i];
    mcNum g = m->actuator_gear[6 * i];
    mcNum* moment = d->actuator_moment + (size_t)i * nv;

    switch (m->actuator_trntype[i]) {
    case mcTRN_JOINT:
    case mcTRN_JOINTINPARENT:
      // hinge and slide: scalar gear; ball and free: vector gear
      if (m->jnt_type[id] == mcJNT_HINGE || m->jnt_type[id] == mcJNT_SLIDE) {
        d->actuator_length[i] = d->qpos[m->jnt_qposadr[id]] * g;
        moment[m->jnt_dofadr[id]] = g;
      } else {
        transmissionQuat(m, d, i, id, moment);
      }
      break;

    case mcTRN_TENDON: {
      // scaled tendon length and Jacobian
      const mcNum* J = d->ten_J + (size_t)id * nv;
      d->actuator_length[i] = d->ten_length[id] * g;
      for (int c = 0; c < nv; c++) {
        moment[c] = J[c] * g;
      }
      break;
    }

    default:
      // hook: slider-crank, site and body transmissions are a later issue
      d->actuator_length[i] = 0;
      break;
    }
  }
}


// true when actuator i is a scalar joint transmission (one nonzero moment entry)
static inline int scalarJoint(const mcModel* m, int i) {
  int t = m->actuator_trntype[i];
  if (t != mcTRN_JOINT && t != mcTRN_JOINTINPARENT) {
    return 0;
  }
  int jt = m->jnt_type[m->actuator_trnid[2 * i]];
  return jt == mcJNT_HINGE || jt == mcJNT_SLIDE;
}


void mc_fwdVelocityTendonActuator(const mcModel* m, mcData* d) {
  int nv = m->nv;

  // tendon velocities
  for (int i = 0; i < m->ntendon; i++) {
    d->ten_velocity[i] = mcu_dot(d->ten_J + (size_t)i * nv, d->qvel, nv);
  }

  // actuator velocities, with a shortcut for scalar joint transmissions
  for (int i = 0; i < m->nu; i++) {
    if (scalarJoint(m, i)) {
      int dof = m->jnt_dofadr[m->actuator_trnid[2 * i]];
      d->actuator_velocity[i] = m->actuator_gear[6 * i] * d->qvel[dof];
    } else {
      d->actuator_velocity[i] = mcu_dot(d->actuator_moment + (size_t)i * nv, d->qvel, nv);
    }
  }
}


//---------------------------------- dynamics and force --------------------------------------------

// the actuator plugin of actuator i, or NULL
static inline const mcpActuator* actuatorPlugin(const mcModel* m, int i) {
  int p = m->actuator_plugin ? m->actuator_plugin[i] : -1;
  if (p < 0 || !m->plugin) {
    return NULL;
  }
  return (const mcpActuator*)m->plugin[p];
}


// control of actuator i, clamped to ctrlrange unless disabled
static inline mcNum clampedCtrl(const mcModel* m, const mcData* d, int i) {
  mcNum u = d->ctrl[i];
  if (m->actuator_ctrllimited[i] && !(m->opt.disableflags & mcDSBL_CLAMPCTRL)) {
    u = mcu_clip(u, m->actuator_ctrlrange[2 * i], m->actuator_ctrlrange[2 * i + 1]);
  }
  return u;
}


// time constant of a filter, guarded
static inline mcNum filterTau(const mcModel* m, int i) {
  return mcu_max(m->actuator_dynprm[mcNDYN * i], mcMINVAL);
}


mcNum mc_nextActivation(const mcModel* m, const mcData* d, int i, int adr, mcNum act_dot) {
  mcNum act = d->act[adr];
  mcNum h = m->opt.timestep;

  // exact integration for filterexact, Euler otherwise
  if (m->actuator_dyntype[i] == mcDYN_FILTEREXACT) {
    mcNum tau = filterTau(m, i);
    act += act_dot * tau * (1 - exp(-h / tau));
  } else {
    act += act_dot * h;
  }

  // activation limits
  if (m->actuator_actlimited[i]) {
    act = mcu_clip(act, m->actuator_actrange[2 * i], m->actuator_actrange[2 * i + 1]);
  }
  return act;
}


// activation derivative of core actuator i (activation address adr)
static void coreActDot(const mcModel* m, mcData* d, int i, int adr) {
  int num = m->actuator_actnum[i];
  mcNum u = clampedCtrl(m, d, i);
  for (int k = adr; k < adr + num; k++) {
    switch (m->actuator_dyntype[i]) {
    case mcDYN_INTEGRATOR:
      d->act_dot[k] = u;
      break;
    case mcDYN_FILTER:
    case mcDYN_FILTEREXACT:
      d->act_dot[k] = (u - d->act[k]) / filterTau(m, i);
      break;
    default:
      // hook: muscle and user dynamics are a later issue
      d->act_dot[k] = 0;
      break;
    }
  }
}


// scalar force of core actuator i (before forcerange clamping)
static mcNum coreForce(const mcModel* m, const mcData* d, int i) {
  const mcNum* gp = m->actuator_gainprm + mcNGAIN * i;
  const mcNum* bp = m->actuator_biasprm + mcNBIAS * i;
  mcNum len = d->actuator_length[i], vel = d->actuator_velocity[i];

  // gain
  mcNum gain;
  switch (m->actuator_gaintype[i]) {
  case mcGAIN_FIXED:
    gain = gp[0];
    break;
  case mcGAIN_AFFINE:
    gain = gp[0] + gp[1] * len + gp[2] * vel;
    break;
  default:
    // hook: muscle and user gains are a later issue
    gain = 0;
    break;
  }

  // input: control for stateless actuators, (next) activation otherwise
  mcNum input;
  int adr = m->actuator_actadr[i];
  if (adr < 0 || m->actuator_actnum[i] == 0) {
    input = clampedCtrl(m, d, i);
  } else {
    int last = adr + m->actuator_actnum[i] - 1;
    if (m->actuator_actearly[i]) {
      input = mc_nextActivation(m, d, i, last, d->act_dot[last]);
    } else {
      input = d->act[last];
    }
  }

  // bias
  mcNum bias = 0;
  if (m->actuator_biastype[i] == mcBIAS_AFFINE) {
    bias = bp[0] + bp[1] * len + bp[2] * vel;
  }
  return gain * input + bias;
}


void mc_fwdActuation(const mcModel* m, mcData* d) {
  int nu = m->nu, nv = m->nv;
  const mcpHost* host = NULL;

  // clear outputs; nothing more when there is no actuation
  mcu_zero(d->qfrc_actuator, nv);
  mcu_zero(d->actuator_force, nu);
  mcu_zero(d->act_dot, m->na);
  if (!nu || (m->opt.disableflags & mcDSBL_ACTUATION)) {
    return;
  }

  // a bad control zeroes all controls
  for (int i = 0; i < nu; i++) {
    if (mcu_isBad(d->ctrl[i])) {
      mc_warning(d, mcWARN_BADCTRL, i);
      mcu_zero(d->ctrl, nu);
      break;
    }
  }

  // activation derivatives
  for (int i = 0; i < nu; i++) {
    int adr = m->actuator_actadr[i];
    if (adr < 0 || m->actuator_actnum[i] == 0) {
      continue;
    }
    const mcpActuator* p = actuatorPlugin(m, i);
    if (p) {
      if (p->act_dot) {
        host = host ? host : mcp_host();
        p->act_dot(host, m, d, i);
      }
    } else {
      coreActDot(m, d, i, adr);
    }
  }

  // forces in actuation space, clamped to forcerange
  for (int i = 0; i < nu; i++) {
    const mcpActuator* p = actuatorPlugin(m, i);
    mcNum f;
    if (p) {
      host = host ? host : mcp_host();
      f = p->force ? p->force(host, m, d, i) : 0;
    } else {
      f = coreForce(m, d, i);
    }
    if (m->actuator_forcelimited[i]) {
      f = mcu_clip(f, m->actuator_forcerange[2 * i], m->actuator_forcerange[2 * i + 1]);
    }
    d->actuator_force[i] = f;
  }

  // generalized forces: moment' * force, sparse for scalar joint transmissions
  for (int i = 0; i < nu; i++) {
    mcNum f = d->actuator_force[i];
    if (f == 0) {
      continue;
    }
    if (scalarJoint(m, i)) {
      int dof = m->jnt_dofadr[m->actuator_trnid[2 * i]];
      d->qfrc_actuator[dof] += m->actuator_gear[6 * i] * f;
    } else {
      const mcNum* moment = d->actuator_moment + (size_t)i * nv;
      for (int c = 0; c < nv; c++) {
        if (moment[c] != 0) {
          d->qfrc_actuator[c] += moment[c] * f;
        }
      }
    }
  }
}


//---------------------------------- activation integration ----------------------------------------

void mc_advanceAct(const mcModel* m, mcData* d, const mcNum* act_dot, mcNum h) {
  const mcpHost* host = NULL;

  for (int i = 0; i < m->nu; i++) {
    int adr = m->actuator_actadr[i], num = m->actuator_actnum[i];
    if (adr < 0 || num == 0) {
      continue;
    }

    // plugin exact scheme, filterexact in closed form, explicit Euler otherwise
    const mcpActuator* p = actuatorPlugin(m, i);
    if (p && p->integrate_act) {
      host = host ? host : mcp_host();
      p->integrate_act(host, m, d, i, act_dot, h);
    } else if (!p && m->actuator_dyntype[i] == mcDYN_FILTEREXACT) {
      mcNum tau = filterTau(m, i);
      mcNum s = tau * (1 - exp(-h / tau));
      for (int k = adr; k < adr + num; k++) {
        d->act[k] += act_dot[k] * s;
      }
    } else {
      for (int k = adr; k < adr + num; k++) {
        d->act[k] += act_dot[k] * h;
      }
    }

    // activation limits
    if (m->actuator_actlimited[i]) {
      mcNum lo = m->actuator_actrange[2 * i], hi = m->actuator_actrange[2 * i + 1];
      for (int k = adr; k < adr + num; k++) {
        d->act[k] = mcu_clip(d->act[k], lo, hi);
      }
    }
  }
}
