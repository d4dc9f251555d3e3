// Moduco core: forward kinematics (mc_kinematics) and com-based quantities (mc_comPos).
#include <moduco/moduco.h>

#include "engine/parallel_stages.h"
#include "math/math.h"


// whether q is exactly the unit quaternion (1, 0, 0, 0)
static inline int isUnitQuat(const mcNum q[4]) {
  return q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0;
}


// place an object with local offset (pos, quat) on a body frame (bpos, bquat, bmat)
static void localToGlobal(mcNum xpos[3], mcNum xmat[9], const mcNum pos[3], const mcNum quat[4],
                          const mcNum bpos[3], const mcNum bquat[4], const mcNum bmat[9]) {
  // position: body position plus rotated offset
  mcu_mulMatVec3(xpos, bmat, pos);
  mcu_addTo3(xpos, bpos);

  // orientation: the body's when the offset does not rotate (bmat is quat2Mat of bquat, which
  // bquat * (1, 0, 0, 0) reproduces up to the sign of zeros), else the composed quaternion's
  if (isUnitQuat(quat)) {
    mcu_copy(xmat, bmat, 9);
    return;
  }
  mcNum q[4];
  mcu_mulQuat(q, bquat, quat);
  mcu_quat2Mat(xmat, q);
}


// place geoms or sites: sameframe 1 copies the body frame, 2 the inertial frame
static void placeObjects(const mcData* d, int n, const int* bodyid, const mcByte* sameframe,
                         const mcNum* pos, const mcNum* quat, mcNum* xpos, mcNum* xmat) {
  for (int i = 0; i < n; i++) {
    int b = bodyid[i];
    mcNum* p = xpos + 3 * i;
    mcNum* R = xmat + 9 * i;

    // copy a shared frame when possible
    if (sameframe[i] == 1) {
      mcu_copy3(p, d->xpos + 3 * b);
      mcu_copy(R, d->xmat + 9 * b, 9);
    } else if (sameframe[i] == 2) {
      mcu_copy3(p, d->xipos + 3 * b);
      mcu_copy(R, d->ximat + 9 * b, 9);
    } else {
      localToGlobal(p, R, pos + 3 * i, quat + 4 * i, d->xpos + 3 * b, d->xquat + 4 * b,
                    d->xmat + 9 * b);
    }
  }
}


// apply the joints of body i to its frame (xpos, xquat), filling xanchor and xaxis
static void applyJoints(const mcModel* m, mcData* d, int i, mcNum xpos[3], mcNum xquat[4]) {
  int jadr = m->body_jntadr[i], jnum = m->body_jntnum[i];
  for (int j = jadr; j < jadr + jnum; j++) {
    int qadr = m->jnt_qposadr[j];
    int type = m->jnt_type[j];
    mcNum* anchor = d->xanchor + 3 * j;
    mcNum* axis = d->xaxis + 3 * j;

    // free joint: the frame comes from qpos
    if (type == mcJNT_FREE) {
      mcu_copy3(xpos, d->qpos + qadr);
      mcu_copy4(xquat, d->qpos + qadr + 3);
      mcu_normalize4(xquat);
      mcu_copy3(anchor, xpos);
      mcu_copy3(axis, m->jnt_axis + 3 * j);
      continue;
    }

    // axis and anchor in the global frame, before this joint moves the body (a joint at the
    // body origin, the common case, anchors there and moves no origin: no rotated offsets)
    const mcNum* jpos = m->jnt_pos + 3 * j;
    int origin = jpos[0] == 0 && jpos[1] == 0 && jpos[2] == 0;
    mcu_rotVecQuat(axis, m->jnt_axis + 3 * j, xquat);
    if (origin) {
      mcu_copy3(anchor, xpos);
    } else {
      mcu_rotVecQuat(anchor, jpos, xquat);
      mcu_addTo3(anchor, xpos);
    }

    // slide: translate along the axis
    if (type == mcJNT_SLIDE) {
      mcu_addToScl3(xpos, axis, d->qpos[qadr] - m->qpos0[qadr]);
      continue;
    }

    // ball and hinge: rotate about the anchor
    mcNum qloc[4];
    if (type == mcJNT_BALL) {
      mcu_copy4(qloc, d->qpos + qadr);
      mcu_normalize4(qloc);
    } else {
      mcu_axisAngle2Quat(qloc, m->jnt_axis + 3 * j, d->qpos[qadr] - m->qpos0[qadr]);
    }
    mcu_mulQuat(xquat, xquat, qloc);

    // keep the anchor fixed: xpos = anchor - R * jnt_pos
    if (!origin) {
      mcNum off[3];
      mcu_rotVecQuat(off, jpos, xquat);
      mcu_sub3(xpos, anchor, off);
    }
  }
}


void mci_kinematicsRange(const mcModel* m, mcData* d, int first, int last) {
  // world body
  if (first == 0) {
    mcu_zero3(d->xpos);
    mcu_unitQuat(d->xquat);
    mcu_quat2Mat(d->xmat, d->xquat);
    mcu_zero3(d->xipos);
    mcu_copy(d->ximat, d->xmat, 9);
    first = 1;
  }

  // bodies in tree order (parents come first)
  for (int i = first; i < last; i++) {
    mcNum* xpos = d->xpos + 3 * i;
    mcNum* xquat = d->xquat + 4 * i;
    int mocap = m->body_mocapid[i];

    // mocap body: frame from mocap_pos/quat; otherwise parent frame, offset, then joints
    if (mocap >= 0) {
      mcu_copy3(xpos, d->mocap_pos + 3 * mocap);
      mcu_copy4(xquat, d->mocap_quat + 4 * mocap);
    } else {
      int p = m->body_parentid[i];
      mcu_mulMatVec3(xpos, d->xmat + 9 * p, m->body_pos + 3 * i);
      mcu_addTo3(xpos, d->xpos + 3 * p);
      if (isUnitQuat(m->body_quat + 4 * i)) {
        mcu_copy4(xquat, d->xquat + 4 * p);
      } else {
        mcu_mulQuat(xquat, d->xquat + 4 * p, m->body_quat + 4 * i);
      }
      applyJoints(m, d, i, xpos, xquat);
    }

    // orientation matrix from the normalized quaternion
    mcu_normalize4(xquat);
    mcu_quat2Mat(d->xmat + 9 * i, xquat);

    // inertial frame
    if (m->body_sameframe[i]) {
      mcu_copy3(d->xipos + 3 * i, xpos);
      mcu_copy(d->ximat + 9 * i, d->xmat + 9 * i, 9);
    } else {
      localToGlobal(d->xipos + 3 * i, d->ximat + 9 * i, m->body_ipos + 3 * i,
                    m->body_iquat + 4 * i, xpos, xquat, d->xmat + 9 * i);
    }
  }
}


void mci_placeRange(const mcModel* m, mcData* d, int g0, int g1, int s0, int s1) {
  if (g1 > g0) {
    placeObjects(d, g1 - g0, m->geom_bodyid + g0, m->geom_sameframe + g0,
                 m->geom_pos + 3 * g0, m->geom_quat + 4 * g0, d->geom_xpos + 3 * g0, d->geom_xmat + 9 * g0);
  }
  if (s1 > s0) {
    placeObjects(d, s1 - s0, m->site_bodyid + s0, m->site_sameframe + s0, m->site_pos + 3 * s0,
                 m->site_quat + 4 * s0, d->site_xpos + 3 * s0, d->site_xmat + 9 * s0);
  }
}


void mc_kinematics(const mcModel* m, mcData* d) {
  mci_kinematicsRange(m, d, 0, m->nbody);
  mci_placeRange(m, d, 0, m->ngeom, 0, m->nsite);
}


// com-based motion axes of the dofs of joint j
static void comDof(const mcModel* m, mcData* d, int j) {
  const mcNum* com = d->subtree_com;
  int b = m->jnt_bodyid[j];
  int dadr = m->jnt_dofadr[j];
  mcNum* cdof = d->cdof + 6 * dadr;
  const mcNum* axis = d->xaxis + 3 * j;
  mcNum off[3];
  mcu_sub3(off, com + 3 * m->body_rootid[b], d->xanchor + 3 * j);

  switch (m->jnt_type[j]) {
  case mcJNT_FREE:
    // translations along the global axes, then rotations about the body axes
    for (int k = 0; k < 3; k++) {
      mcNum e[3] = {k == 0, k == 1, k == 2};
      mcu_dofCom(cdof + 6 * k, e, NULL);
    }
    cdof += 18;
    // fall through
  case mcJNT_BALL:
    // rotations about the body axes (columns of xmat)
    for (int k = 0; k < 3; k++) {
      const mcNum* R = d->xmat + 9 * b;
      mcNum e[3] = {R[k], R[3 + k], R[6 + k]};
      mcu_dofCom(cdof + 6 * k, e, off);
    }
    break;
  case mcJNT_SLIDE:
    mcu_dofCom(cdof, axis, NULL);
    break;
  default:
    mcu_dofCom(cdof, axis, off);
    break;
  }
}


// subtree com of body i from its mass-weighted sum (massless subtrees keep the body com)
static void divideCom(const mcModel* m, mcData* d, int i) {
  mcNum* com = d->subtree_com + 3 * i;
  mcNum sm = m->body_subtreemass[i];
  if (sm < mcMINVAL) {
    mcu_copy3(com, d->xipos + 3 * i);
  } else {
    mcu_scl3(com, com, 1 / sm);
  }
}


void mci_comPosRange(const mcModel* m, mcData* d, int first, int last, mcNum* rootsum) {
  mcNum* com = d->subtree_com;

  // mass-weighted body coms
  for (int i = first; i < last; i++) {
    mcu_scl3(com + 3 * i, d->xipos + 3 * i, m->body_mass[i]);
  }

  // accumulate subtrees, children first; a tree root's sum goes to the world or to rootsum
  for (int i = last - 1; i >= first; i--) {
    int p = m->body_parentid[i];
    if (p == 0 && rootsum) {
      mcu_copy3(rootsum + 3 * i, com + 3 * i);
    } else {
      mcu_addTo3(com + 3 * p, com + 3 * i);
    }
  }

  // divide by subtree mass
  for (int i = first; i < last; i++) {
    divideCom(m, d, i);
  }

  // com-based body inertias about the subtree com of the tree root
  for (int i = first; i < last; i++) {
    mcNum dif[3];
    mcu_sub3(dif, d->xipos + 3 * i, com + 3 * m->body_rootid[i]);
    mcu_inertCom(d->cinert + 10 * i, m->body_inertia + 3 * i, d->ximat + 9 * i, dif,
                 m->body_mass[i]);
  }

  // com-based motion axes of the dofs
  for (int b = first; b < last; b++) {
    int jadr = m->body_jntadr[b];
    for (int j = jadr; j < jadr + m->body_jntnum[b]; j++) {
      comDof(m, d, j);
    }
  }
}


void mci_comPosWorld(const mcModel* m, mcData* d, const mcNum* rootsum) {
  if (rootsum) {
    for (int i = m->nbody - 1; i > 0; i--) {
      if (m->body_parentid[i] == 0) {
        mcu_addTo3(d->subtree_com, rootsum + 3 * i);
      }
    }
  }
  divideCom(m, d, 0);
  mcu_zero(d->cinert, 10);
}


void mc_comPos(const mcModel* m, mcData* d) {
  mcu_scl3(d->subtree_com, d->xipos, m->body_mass[0]);
  mci_comPosRange(m, d, 1, m->nbody, NULL);
  mci_comPosWorld(m, d, NULL);
}
