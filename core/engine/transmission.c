// Moduco core: tendons (mc_tendon), actuator transmissions (mc_transmission), and tendon and
// actuator velocities.
#include <moduco/moduco.h>

#include "engine/engine.h"
#include "math/math.h"


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


void mc_fwdVelocityTendonActuator(const mcModel* m, mcData* d) {
  int nv = m->nv;

  // tendon velocities
  for (int i = 0; i < m->ntendon; i++) {
    d->ten_velocity[i] = mcu_dot(d->ten_J + (size_t)i * nv, d->qvel, nv);
  }

  // actuator velocities, with a shortcut for scalar joint transmissions
  for (int i = 0; i < m->nu; i++) {
    if (mc_scalarJointActuator(m, i)) {
      int dof = m->jnt_dofadr[m->actuator_trnid[2 * i]];
      d->actuator_velocity[i] = m->actuator_gear[6 * i] * d->qvel[dof];
    } else {
      d->actuator_velocity[i] = mcu_dot(d->actuator_moment + (size_t)i * nv, d->qvel, nv);
    }
  }
}
