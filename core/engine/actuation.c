// Moduco core: actuator dynamics and forces (mc_fwdActuation) and activation integration
// (mc_advanceAct). Tendons and transmissions are in transmission.c.
#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "engine/engine.h"
#include "engine/parallel_stages.h"
#include "engine/plugin_check.h"
#include "math/math.h"
#include "plugin/registry.h"


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



// tendon t's actuatorfrcrange (MuJoCo 3.x): the sum of the forces of the actuators transmitting
// through t (gears not counted), when outside the range, scales each of them by bound / sum
static void clampTendonForce(const mcModel* m, mcData* d, int t) {
  mcNum total = 0;
  for (int i = 0; i < m->nu; i++) {
    if (m->actuator_trntype[i] == mcTRN_TENDON && m->actuator_trnid[2 * i] == t) {
      total += d->actuator_force[i];
    }
  }
  const mcNum* range = m->tendon_actfrcrange + 2 * t;
  mcNum bound = mcu_clip(total, range[0], range[1]);
  if (bound == total) {
    return;
  }
  mcNum scale = bound / total;  // the range holds 0 (compiler), so total is not 0 here
  for (int i = 0; i < m->nu; i++) {
    if (m->actuator_trntype[i] == mcTRN_TENDON && m->actuator_trnid[2 * i] == t) {
      d->actuator_force[i] *= scale;
    }
  }
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

  // activation derivatives (per-plugin timers, when profiling: consecutive plugin calls share
  // their clock reads, the end of one the start of the next; a core actuator breaks the chain)
  double t0 = 0;
  int chained = 0;
  for (int i = 0; i < nu; i++) {
    int adr = m->actuator_actadr[i];
    if (adr < 0 || m->actuator_actnum[i] == 0) {
      continue;
    }
    const mcpActuator* p = actuatorPlugin(m, i);
    if (p) {
      if (p->act_dot) {
        host = host ? host : mcp_host();
        t0 = chained ? t0 : mc_clockNow(d);
        p->act_dot(host, m, d, i);
        t0 = mc_clockAddElement(m, d, m->actuator_plugin[i], t0);
        chained = 1;
        if (d->plugin_check) {
          mci_checkActDot(m, d, i);
          chained = 0;
        }
      }
    } else {
      coreActDot(m, d, i, adr);
      chained = 0;
    }
  }

  // forces in actuation space, clamped to forcerange
  chained = 0;
  for (int i = 0; i < nu; i++) {
    const mcpActuator* p = actuatorPlugin(m, i);
    mcNum f;
    if (p) {
      host = host ? host : mcp_host();
      t0 = chained ? t0 : mc_clockNow(d);
      f = p->force ? p->force(host, m, d, i) : 0;
      t0 = mc_clockAddElement(m, d, m->actuator_plugin[i], t0);
      chained = 1;
      if (d->plugin_check) {
        mci_checkActForce(m, d, i, f);
        chained = 0;
      }
    } else {
      f = coreForce(m, d, i);
      chained = 0;
    }
    if (m->actuator_forcelimited[i]) {
      f = mcu_clip(f, m->actuator_forcerange[2 * i], m->actuator_forcerange[2 * i + 1]);
    }
    d->actuator_force[i] = f;
  }

  // tendon-level limits: the actuator forces on a tendon scaled so their sum is in its range
  for (int t = 0; t < m->ntendon; t++) {
    if (m->tendon_actfrclimited[t]) {
      clampTendonForce(m, d, t);
    }
  }

  // generalized forces: moment' * force, sparse for scalar joint transmissions
  for (int i = 0; i < nu; i++) {
    mcNum f = d->actuator_force[i];
    if (f == 0) {
      continue;
    }
    if (mc_scalarJointActuator(m, i)) {
      int dof = m->jnt_dofadr[m->actuator_trnid[2 * i]];
      d->qfrc_actuator[dof] += m->actuator_gear[6 * i] * f;
    } else {
      const mcNum* moment = d->actuator_moment + (size_t)i * nv;
      const int* span = d->actuator_moment_span + 2 * i;
      for (int c = span[0]; c < span[1]; c++) {
        if (moment[c] != 0) {
          d->qfrc_actuator[c] += moment[c] * f;
        }
      }
    }
  }

  // gravity compensation counted as actuator force (actuatorgravcomp; mc_passive computed it)
  for (int i = 0; i < nv; i++) {
    if (m->jnt_actgravcomp[m->dof_jntid[i]]) {
      d->qfrc_actuator[i] += d->qfrc_gravcomp[i];
    }
  }

  // joint-level limits: the total actuator force on a hinge or slide joint clamped to its range
  for (int j = 0; j < m->njnt; j++) {
    if (m->jnt_actfrclimited[j]) {
      mcNum* f = d->qfrc_actuator + m->jnt_dofadr[j];
      *f = mcu_clip(*f, m->jnt_actfrcrange[2 * j], m->jnt_actfrcrange[2 * j + 1]);
    }
  }
}


//---------------------------------- early actuation -----------------------------------------------

int mci_actuationEarlyOk(const mcModel* m, int gravcompReady) {
  // a sensor computed before the acceleration stage may read the actuator outputs (which the
  // serial order leaves at the last step's values there), an actuator plugin anything
  if (m->nsensor && !(m->opt.disableflags & mcDSBL_SENSOR)) {
    for (int i = 0; i < m->nsensor; i++) {
      if (m->sensor_needstage[i] != mcSTAGE_ACC) {
        return 0;
      }
    }
  }
  for (int i = 0; m->actuator_plugin && i < m->nu; i++) {
    if (m->actuator_plugin[i] >= 0) {
      return 0;
    }
  }

  // gravity compensation through the actuators reads qfrc_gravcomp of every tree
  if (!gravcompReady) {
    for (int j = 0; j < m->njnt; j++) {
      if (m->jnt_actgravcomp[j]) {
        return 0;
      }
    }
  }
  return 1;
}


int mci_fwdActuationEarly(const mcModel* m, mcData* d) {
  // a bad control warns and zeroes the controls: left to the serial place, in the warnings' order
  for (int i = 0; i < m->nu; i++) {
    if (mcu_isBad(d->ctrl[i])) {
      return 0;
    }
  }
  mc_fwdActuation(m, d);
  return 1;
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
