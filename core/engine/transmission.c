// Moduco core: tendons (mc_tendon), actuator transmissions (mc_transmission), and tendon and
// actuator velocities.
#include <math.h>
#include <string.h>

#include <moduco/moduco.h>

#include "engine/engine.h"
#include "engine/tendon_wrap.h"
#include "math/math.h"


//---------------------------------- tendons and transmissions -------------------------------------

// row spans: columns [span[0], span[1]) of a dense row hold all its nonzeros; the rest is zero
// (kept from the previous step, so a row costs its span, not nv)
static void clearSpan(mcNum* row, int* span) {
  if (span[1] > span[0]) {
    mcu_zero(row + span[0], span[1] - span[0]);
  }
  span[0] = span[1] = 0;
}


// the tight span of a row written anywhere: from its first to its last entry that is not +0 (a
// -0 counts, so that the next clear restores the +0 of a freshly made data bit for bit)
static void scanSpan(const mcNum* row, int n, int* span) {
  int lo = 0, hi = n;
  while (lo < hi && row[lo] == 0 && !signbit(row[lo])) {
    lo++;
  }
  while (hi > lo && row[hi - 1] == 0 && !signbit(row[hi - 1])) {
    hi--;
  }
  span[0] = lo;
  span[1] = hi;
}


// widen a span to hold column c
static void growSpan(int* span, int c) {
  if (span[1] <= span[0]) {
    span[0] = c;
    span[1] = c + 1;
  } else {
    span[0] = c < span[0] ? c : span[0];
    span[1] = c + 1 > span[1] ? c + 1 : span[1];
  }
}


void mc_tendon(const mcModel* m, mcData* d) {
  int nv = m->nv;

  for (int i = 0; i < m->ntendon; i++) {
    mcNum* J = d->ten_J + (size_t)i * nv;
    int* span = d->ten_J_span + 2 * i;
    int adr = m->tendon_adr[i], num = m->tendon_num[i];

    // the previous row's nonzeros go back to zero
    clearSpan(J, span);

    // spatial tendons: paths through sites, wrapping geoms and pulleys
    if (num && m->wrap_type[adr] != mcWRAP_JOINT) {
      d->ten_length[i] = mc_spatialTendon(m, d, i, J);
      scanSpan(J, nv, span);
      continue;
    }

    // fixed tendons: linear combinations of joint coordinates
    mcNum len = 0;
    for (int w = adr; w < adr + num; w++) {
      int jnt = m->wrap_objid[w];
      mcNum coef = m->wrap_prm[w];
      len += coef * d->qpos[m->jnt_qposadr[jnt]];
      J[m->jnt_dofadr[jnt]] += coef;
      growSpan(span, m->jnt_dofadr[jnt]);
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


// rotation matrix to unit quaternion
static void mat2Quat(mcNum q[4], const mcNum R[9]) {
  mcNum tr = R[0] + R[4] + R[8];
  if (tr > 0) {
    mcNum s = 2 * sqrt(1 + tr);
    q[0] = 0.25 * s;
    q[1] = (R[7] - R[5]) / s;
    q[2] = (R[2] - R[6]) / s;
    q[3] = (R[3] - R[1]) / s;
  } else if (R[0] > R[4] && R[0] > R[8]) {
    mcNum s = 2 * sqrt(1 + R[0] - R[4] - R[8]);
    q[0] = (R[7] - R[5]) / s;
    q[1] = 0.25 * s;
    q[2] = (R[1] + R[3]) / s;
    q[3] = (R[2] + R[6]) / s;
  } else if (R[4] > R[8]) {
    mcNum s = 2 * sqrt(1 + R[4] - R[0] - R[8]);
    q[0] = (R[2] - R[6]) / s;
    q[1] = (R[1] + R[3]) / s;
    q[2] = 0.25 * s;
    q[3] = (R[5] + R[7]) / s;
  } else {
    mcNum s = 2 * sqrt(1 + R[8] - R[0] - R[4]);
    q[0] = (R[3] - R[1]) / s;
    q[1] = (R[2] + R[6]) / s;
    q[2] = (R[5] + R[7]) / s;
    q[3] = 0.25 * s;
  }
  mcu_normalize4(q);
}


// slider-crank: the slider moves along the z axis of the slider site, a rod of cranklength
// connects it to the crank site; jac is scratch of 9 nv
static void transmissionSliderCrank(const mcModel* m, mcData* d, int i, mcNum* moment,
                                    mcNum* jac) {
  int nv = m->nv;
  int crank = m->actuator_trnid[2 * i], slider = m->actuator_trnid[2 * i + 1];
  mcNum rod = m->actuator_cranklength[i], g = m->actuator_gear[6 * i];

  // slider axis and crank offset
  const mcNum* sm = d->site_xmat + 9 * slider;
  mcNum axis[3] = {sm[2], sm[5], sm[8]}, vec[3];
  mcu_sub3(vec, d->site_xpos + 3 * crank, d->site_xpos + 3 * slider);

  // length = a'v - sqrt((a'v)^2 + rod^2 - v'v), and its gradients in v and a
  mcNum av = mcu_dot3(vec, axis);
  mcNum det = av * av + rod * rod - mcu_dot3(vec, vec);
  mcNum len, dldv[3], dlda[3];
  if (det <= 0) {
    // rod too short: the projection alone
    len = av;
    mcu_copy3(dldv, axis);
    mcu_copy3(dlda, vec);
  } else {
    mcNum sdet = sqrt(det), c = 1 - av / sdet;
    len = av - sdet;
    for (int k = 0; k < 3; k++) {
      dldv[k] = c * axis[k] + vec[k] / sdet;
      dlda[k] = c * vec[k];
    }
  }
  d->actuator_length[i] = g * len;

  // Jacobians of the crank point, the slider point and the slider rotation
  mcNum* jc = jac;
  mcNum* js = jac + 3 * nv;
  mcNum* jr = jac + 6 * nv;
  mc_jacPoint(m, d, jc, NULL, d->site_xpos + 3 * crank, m->site_bodyid[crank]);
  mc_jacPoint(m, d, js, jr, d->site_xpos + 3 * slider, m->site_bodyid[slider]);

  // chain rule: dv = Jc - Js, da = w x axis
  for (int c = 0; c < nv; c++) {
    mcNum dv[3], w[3], da[3];
    for (int k = 0; k < 3; k++) {
      dv[k] = jc[k * nv + c] - js[k * nv + c];
      w[k] = jr[k * nv + c];
    }
    mcu_cross(da, w, axis);
    moment[c] = g * (mcu_dot3(dldv, dv) + mcu_dot3(dlda, da));
  }
}


// site: a wrench fixed in the site frame, or with refsite in the reference frame and the pose
// difference as length; jac is scratch of 12 nv
static void transmissionSite(const mcModel* m, mcData* d, int i, mcNum* moment, mcNum* jac) {
  int nv = m->nv;
  int site = m->actuator_trnid[2 * i], ref = m->actuator_trnid[2 * i + 1];
  const mcNum* gear = m->actuator_gear + 6 * i;
  mcNum* jp = jac;
  mcNum* jr = jac + 3 * nv;

  // Jacobians of the site (minus those of the reference site)
  mc_jacPoint(m, d, jp, jr, d->site_xpos + 3 * site, m->site_bodyid[site]);
  const mcNum* frame = d->site_xmat + 9 * (ref >= 0 ? ref : site);
  if (ref >= 0) {
    mcNum* jpr = jac + 6 * nv;
    mcNum* jrr = jac + 9 * nv;
    mc_jacPoint(m, d, jpr, jrr, d->site_xpos + 3 * ref, m->site_bodyid[ref]);
    for (int k = 0; k < 3 * nv; k++) {
      jp[k] -= jpr[k];
      jr[k] -= jrr[k];
    }

    // length: translation and rotation of the site in the reference frame, along the gear
    mcNum dif[3], loc[3], qs[4], qr[4], qdif[4], rot[3];
    mcu_sub3(dif, d->site_xpos + 3 * site, d->site_xpos + 3 * ref);
    mcu_mulMatTVec3(loc, frame, dif);
    mat2Quat(qs, d->site_xmat + 9 * site);
    mat2Quat(qr, frame);
    mcu_negQuat(qr, qr);
    mcu_mulQuat(qdif, qr, qs);
    mcu_quat2Vel(rot, qdif, 1);
    d->actuator_length[i] = mcu_dot3(loc, gear) + mcu_dot3(rot, gear + 3);
  } else {
    d->actuator_length[i] = 0;
  }

  // wrench in world coordinates, mapped through the Jacobians
  mcNum f[3], t[3];
  mcu_mulMatVec3(f, frame, gear);
  mcu_mulMatVec3(t, frame, gear + 3);
  for (int c = 0; c < nv; c++) {
    moment[c] = 0;
    for (int k = 0; k < 3; k++) {
      moment[c] += jp[k * nv + c] * f[k] + jr[k * nv + c] * t[k];
    }
  }
}


// body (adhesion): minus the average contact-normal Jacobian over the body's contacts
static void transmissionBody(const mcModel* m, mcData* d, int i, mcNum* moment) {
  int nv = m->nv, body = m->actuator_trnid[2 * i], count = 0;
  d->actuator_length[i] = 0;

  for (int c = 0; c < d->ncon; c++) {
    const mcContact* con = d->contact + c;
    int adr = con->efc_address;
    if (adr < 0 || con->exclude) {
      continue;
    }
    if (m->geom_bodyid[con->geom1] != body && m->geom_bodyid[con->geom2] != body) {
      continue;
    }

    // normal row: pyramid edges come in pairs J_n +- mu J_t, whose mean is J_n
    int pyramid = con->dim > 1 && d->efc_type[adr] == mcCNSTR_CONTACT_PYRAMIDAL;
    if (d->efc_J_rownnz) {
      // row-sparse: the edges of a contact are stored on the same columns (else half of each)
      const int* col = d->efc_J_colind + d->efc_J_rowadr[adr];
      const mcNum* val = d->efc_J_val + d->efc_J_rowadr[adr];
      int n = d->efc_J_rownnz[adr];
      if (!pyramid) {
        for (int k = 0; k < n; k++) {
          moment[col[k]] += val[k];
        }
      } else {
        const int* col2 = d->efc_J_colind + d->efc_J_rowadr[adr + 1];
        const mcNum* val2 = d->efc_J_val + d->efc_J_rowadr[adr + 1];
        int n2 = d->efc_J_rownnz[adr + 1];
        if (n2 == n && !memcmp(col, col2, sizeof(int) * (size_t)n)) {
          for (int k = 0; k < n; k++) {
            moment[col[k]] += 0.5 * (val[k] + val2[k]);
          }
        } else {
          for (int k = 0; k < n; k++) {
            moment[col[k]] += 0.5 * val[k];
          }
          for (int k = 0; k < n2; k++) {
            moment[col2[k]] += 0.5 * val2[k];
          }
        }
      }
    } else {
      const mcNum* row = d->efc_J + (size_t)adr * nv;
      if (pyramid) {
        for (int k = 0; k < nv; k++) {
          moment[k] += 0.5 * (row[k] + row[nv + k]);
        }
      } else {
        mcu_addTo(moment, row, nv);
      }
    }
    count++;
  }

  // average, negated so that a positive force pulls the body onto its contacts
  if (count) {
    mcu_scl(moment, moment, -m->actuator_gear[6 * i] / count, nv);
  }
}


void mc_transmission(const mcModel* m, mcData* d) {
  int nv = m->nv;

  // scratch for point Jacobians (slider-crank and site transmissions)
  mc_markStack(d);
  mcNum* jac = NULL;
  for (int i = 0; i < m->nu; i++) {
    int t = m->actuator_trntype[i];
    if (t == mcTRN_SLIDERCRANK || t == mcTRN_SITE) {
      jac = mcSTACKALLOC(d, 12 * nv, mcNum);
      break;
    }
  }

  for (int i = 0; i < m->nu; i++) {
    int id = m->actuator_trnid[2 * i];
    mcNum g = m->actuator_gear[6 * i];
    mcNum* moment = d->actuator_moment + (size_t)i * nv;
    int* span = d->actuator_moment_span + 2 * i;

    // the previous row's nonzeros go back to zero; the row is dense, its span is what is written
    clearSpan(moment, span);

    switch (m->actuator_trntype[i]) {
    case mcTRN_JOINT:
    case mcTRN_JOINTINPARENT: {
      // hinge and slide: scalar gear; ball and free: vector gear
      int dof = m->jnt_dofadr[id], type = m->jnt_type[id];
      if (type == mcJNT_HINGE || type == mcJNT_SLIDE) {
        d->actuator_length[i] = d->qpos[m->jnt_qposadr[id]] * g;
        moment[dof] = g;
        span[1] = 1;
      } else {
        transmissionQuat(m, d, i, id, moment);
        span[1] = type == mcJNT_FREE ? 6 : 3;
      }
      span[0] = dof;
      span[1] += dof;
      break;
    }

    case mcTRN_TENDON: {
      // scaled tendon length and Jacobian, over the tendon row's span
      const mcNum* J = d->ten_J + (size_t)id * nv;
      const int* tspan = d->ten_J_span + 2 * id;
      d->actuator_length[i] = d->ten_length[id] * g;
      for (int c = tspan[0]; c < tspan[1]; c++) {
        moment[c] = J[c] * g;
      }
      span[0] = tspan[0];
      span[1] = tspan[1];
      break;
    }

    case mcTRN_SLIDERCRANK:
      if (jac) {
        transmissionSliderCrank(m, d, i, moment, jac);
        scanSpan(moment, nv, span);
      }
      break;

    case mcTRN_SITE:
      if (jac) {
        transmissionSite(m, d, i, moment, jac);
        scanSpan(moment, nv, span);
      }
      break;

    case mcTRN_BODY:
      transmissionBody(m, d, i, moment);
      scanSpan(moment, nv, span);
      break;

    default:
      d->actuator_length[i] = 0;
      break;
    }
  }
  mc_freeStack(d);
}


int mci_transmissionEarlyOk(const mcModel* m) {
  for (int i = 0; i < m->nu; i++) {
    int t = m->actuator_trntype[i];
    if (t != mcTRN_JOINT && t != mcTRN_JOINTINPARENT && t != mcTRN_TENDON) {
      return 0;
    }
  }
  return 1;
}


void mc_fwdVelocityTendonActuator(const mcModel* m, mcData* d) {
  int nv = m->nv;

  // tendon velocities, over each row's nonzero span
  for (int i = 0; i < m->ntendon; i++) {
    const int* span = d->ten_J_span + 2 * i;
    d->ten_velocity[i] = mcu_dot(d->ten_J + (size_t)i * nv + span[0], d->qvel + span[0],
                                 span[1] - span[0]);
  }

  // actuator velocities, with a shortcut for scalar joint transmissions
  for (int i = 0; i < m->nu; i++) {
    if (mc_scalarJointActuator(m, i)) {
      int dof = m->jnt_dofadr[m->actuator_trnid[2 * i]];
      d->actuator_velocity[i] = m->actuator_gear[6 * i] * d->qvel[dof];
    } else {
      const int* span = d->actuator_moment_span + 2 * i;
      d->actuator_velocity[i] = mcu_dot(d->actuator_moment + (size_t)i * nv + span[0],
                                        d->qvel + span[0], span[1] - span[0]);
    }
  }
}
