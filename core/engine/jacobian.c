// Moduco core: Jacobians of points attached to bodies (the C counterparts of MuJoCo's mj_jac*).
//
// cdof holds each dof's motion as a 6-vector (angular, linear) in a frame at the subtree com of
// its tree root, so the velocity of a point p on body b is the sum over the dofs on b's chain
// of cdof_ang x (p - c_root) + cdof_lin. Rows of the 3 x nv results are zero outside the chain.
// mc_pointMotion adds the time derivative of the Jacobian along qvel, from cdof_dot (mc_comVel).
#include <string.h>

#include <moduco/moduco.h>

#include "engine/jacobian.h"
#include "math/math.h"


// last dof moving body b (its own or its nearest moving ancestor's); -1 if none
static int lastDof(const mcModel* m, int b) {
  while (b > 0 && m->body_dofnum[b] == 0) {
    b = m->body_parentid[b];
  }
  return b > 0 ? m->body_dofadr[b] + m->body_dofnum[b] - 1 : -1;
}


// zero the requested 3 x nv Jacobians
static void zeroJac(mcNum* jacp, mcNum* jacr, int nv) {
  if (jacp) {
    mcu_zero(jacp, 3 * nv);
  }
  if (jacr) {
    mcu_zero(jacr, 3 * nv);
  }
}


void mc_jacPoint(const mcModel* m, const mcData* d, mcNum* jacp, mcNum* jacr, const mcNum point[3],
                 int body) {
  int nv = m->nv;
  zeroJac(jacp, jacr, nv);

  // offset from the subtree com of the tree root, the reference point of cdof
  mcNum off[3];
  mcu_sub3(off, point, d->subtree_com + 3 * m->body_rootid[body]);

  // walk the dof chain: linear part + angular x offset
  for (int j = lastDof(m, body); j >= 0; j = m->dof_parentid[j]) {
    const mcNum* cd = d->cdof + 6 * j;
    if (jacp) {
      mcNum t[3];
      mcu_cross(t, cd, off);
      for (int k = 0; k < 3; k++) {
        jacp[k * nv + j] = cd[3 + k] + t[k];
      }
    }
    if (jacr) {
      for (int k = 0; k < 3; k++) {
        jacr[k * nv + j] = cd[k];
      }
    }
  }
}


void mc_jacDot(const mcModel* m, const mcData* d, mcNum* jacp, mcNum* jacr, const mcNum point[3],
               int body) {
  int nv = m->nv;
  zeroJac(jacp, jacr, nv);
  int last = lastDof(m, body);
  if (last < 0) {
    return;
  }

  // offset from the reference point of cdof (fixed in space at this instant), and the point's
  // velocity, the rate of that offset
  mcNum off[3], vel[3] = {0, 0, 0}, t[3];
  mcu_sub3(off, point, d->subtree_com + 3 * m->body_rootid[body]);
  for (int j = last; j >= 0; j = m->dof_parentid[j]) {
    const mcNum* cd = d->cdof + 6 * j;
    mcu_cross(t, cd, off);
    for (int k = 0; k < 3; k++) {
      vel[k] += d->qvel[j] * (cd[3 + k] + t[k]);
    }
  }

  // column j: d/dt (lin_j + ang_j x off) = lin_dot_j + ang_dot_j x off + ang_j x vel; ang_dot_j
  for (int j = last; j >= 0; j = m->dof_parentid[j]) {
    const mcNum* cd = d->cdof + 6 * j;
    // the rate of column j's motion axis. cdof_dot is it for hinges and slides (their axes are
    // fixed in the frame after the body's earlier joints, whose velocity cdof_dot uses); a ball or
    // free rotation axis is fixed in the frame after the whole joint, but cdof_dot gives its three
    // axes the velocity before the joint's rotation (all cdof_dot * qvel needs): add the joint's
    // own rotation (sum of qvel_i cdof_i over its rotation dofs) as a motion cross product
    mcNum cdd[6];
    mcu_copy(cdd, d->cdof_dot + 6 * j, 6);
    int jnt = m->dof_jntid[j], type = m->jnt_type[jnt];
    int rot0 = m->jnt_dofadr[jnt] + (type == mcJNT_FREE ? 3 : 0);
    if ((type == mcJNT_BALL || type == mcJNT_FREE) && j >= rot0) {
      mcNum w[6] = {0, 0, 0, 0, 0, 0}, a[3], b[3], c[3];
      for (int i = rot0; i < rot0 + 3; i++) {
        for (int k = 0; k < 6; k++) {
          w[k] += d->qvel[i] * d->cdof[6 * i + k];
        }
      }
      mcu_cross(a, w, cd);          // angular: w x ang
      mcu_cross(b, w, cd + 3);      // linear: w x lin + v x ang
      mcu_cross(c, w + 3, cd);
      for (int k = 0; k < 3; k++) {
        cdd[k] += a[k];
        cdd[3 + k] += b[k] + c[k];
      }
    }
    if (jacp) {
      mcNum t2[3];
      mcu_cross(t, cdd, off);
      mcu_cross(t2, cd, vel);
      for (int k = 0; k < 3; k++) {
        jacp[k * nv + j] = cdd[3 + k] + t[k] + t2[k];
      }
    }
    if (jacr) {
      for (int k = 0; k < 3; k++) {
        jacr[k * nv + j] = cdd[k];
      }
    }
  }
}


void mc_jacPointAxis(const mcModel* m, const mcData* d, mcNum* jacPoint, mcNum* jacAxis,
                     const mcNum point[3], const mcNum axis[3], int body) {
  mc_jacPoint(m, d, jacPoint, NULL, point, body);
  if (!jacAxis) {
    return;
  }
  // an axis turning with the body: column j is ang_j x axis
  int nv = m->nv;
  mcu_zero(jacAxis, 3 * nv);
  for (int j = lastDof(m, body); j >= 0; j = m->dof_parentid[j]) {
    mcNum t[3];
    mcu_cross(t, d->cdof + 6 * j, axis);
    for (int k = 0; k < 3; k++) {
      jacAxis[k * nv + j] = t[k];
    }
  }
}


void mc_jacBody(const mcModel* m, const mcData* d, mcNum* jacp, mcNum* jacr, int body) {
  mc_jacPoint(m, d, jacp, jacr, d->xpos + 3 * body, body);
}


void mc_jacBodyCom(const mcModel* m, const mcData* d, mcNum* jacp, mcNum* jacr, int body) {
  mc_jacPoint(m, d, jacp, jacr, d->xipos + 3 * body, body);
}


void mc_jacGeom(const mcModel* m, const mcData* d, mcNum* jacp, mcNum* jacr, int geom) {
  mc_jacPoint(m, d, jacp, jacr, d->geom_xpos + 3 * geom, m->geom_bodyid[geom]);
}


void mc_jacSite(const mcModel* m, const mcData* d, mcNum* jacp, mcNum* jacr, int site) {
  mc_jacPoint(m, d, jacp, jacr, d->site_xpos + 3 * site, m->site_bodyid[site]);
}


void mc_jacSubtreeCom(const mcModel* m, mcData* d, mcNum* jacp, int body) {
  int nv = m->nv;
  mcu_zero(jacp, 3 * nv);
  mcNum mass = m->body_subtreemass[body];
  if (mass <= 0) {
    return;
  }
  mc_markStack(d);
  mcNum* Jb = mcSTACKALLOC(d, 3 * (size_t)nv, mcNum);
  // bodies come after their parents: b is in the subtree when its parent chain reaches body
  for (int b = body; Jb && b < m->nbody; b++) {
    int a = b;
    while (a > body) {
      a = m->body_parentid[a];
    }
    if (a != body || m->body_mass[b] == 0) {
      continue;
    }
    mc_jacPoint(m, d, Jb, NULL, d->xipos + 3 * b, b);
    mcNum w = m->body_mass[b] / mass;
    for (int k = 0; k < 3 * nv; k++) {
      jacp[k] += w * Jb[k];
    }
  }
  mc_freeStack(d);
}


// add s * u' * Jp(point on body) to row
static void addJacDir(const mcModel* m, const mcData* d, mcNum* row, const mcNum u[3],
                      const mcNum point[3], int body, mcNum s) {
  // u' (lin + ang x off) = u' lin + ang' (off x u)
  mcNum off[3], w[3];
  mcu_sub3(off, point, d->subtree_com + 3 * m->body_rootid[body]);
  mcu_cross(w, off, u);
  for (int j = lastDof(m, body); j >= 0; j = m->dof_parentid[j]) {
    const mcNum* cd = d->cdof + 6 * j;
    row[j] += s * (mcu_dot3(cd, w) + mcu_dot3(cd + 3, u));
  }
}


void mc_addJacDifDir(const mcModel* m, const mcData* d, mcNum* row, const mcNum u[3],
                     const mcNum pa[3], int a, const mcNum pb[3], int b, mcNum scl) {
  // same body: the difference moves rigidly with it and the distance does not change
  if (a == b) {
    return;
  }
  addJacDir(m, d, row, u, pb, b, scl);
  addJacDir(m, d, row, u, pa, a, -scl);
}


void mc_pointMotion(const mcModel* m, const mcData* d, const mcNum p[3], int b, mcPointMotion* pm) {
  memset(pm, 0, sizeof(*pm));
  int last = lastDof(m, b);
  if (last < 0) {
    return;
  }

  // offset from the reference point of cdof (fixed in space at this instant)
  mcNum off[3], t[3];
  mcu_sub3(off, p, d->subtree_com + 3 * m->body_rootid[b]);

  // velocity: sum of qvel_j (lin_j + ang_j x off, ang_j)
  for (int j = last; j >= 0; j = m->dof_parentid[j]) {
    const mcNum* cd = d->cdof + 6 * j;
    mcNum qv = d->qvel[j];
    mcu_cross(t, cd, off);
    for (int k = 0; k < 3; k++) {
      pm->vel[k] += qv * (cd[3 + k] + t[k]);
      pm->angvel[k] += qv * cd[k];
    }
  }

  // acceleration: the time derivative of each column, with d(off)/dt = vel
  for (int j = last; j >= 0; j = m->dof_parentid[j]) {
    const mcNum* cd = d->cdof + 6 * j;
    const mcNum* cdd = d->cdof_dot + 6 * j;
    mcNum qv = d->qvel[j], t2[3];
    mcu_cross(t, cdd, off);
    mcu_cross(t2, cd, pm->vel);
    for (int k = 0; k < 3; k++) {
      pm->acc[k] += qv * (cdd[3 + k] + t[k] + t2[k]);
      pm->angacc[k] += qv * cdd[k];
    }
  }
}
