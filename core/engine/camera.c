// Moduco core: camera poses (cam_xpos, cam_xmat) in the position stage, for every tracking mode.
//
//   fixed          pose fixed in the body frame
//   track          body position + the world offset at qpos0, orientation of qpos0
//   trackcom       subtree com + the world offset at qpos0, orientation of qpos0
//   targetbody     position fixed in the body; the -z axis looks at the target body's origin,
//                  the x axis stays horizontal (orthogonal to world z)
//   targetbodycom  the same, looking at the target's subtree center of mass
//
// A targeting mode without a target body behaves like fixed.
#include <moduco/moduco.h>

#include "engine/engine.h"
#include "engine/parallel_stages.h"
#include "math/math.h"


// orientation looking from pos towards target: z = normalized (pos - target), x orthogonal to
// world z and to z, y = z cross x; the columns of mat
static void mc_camLookAt(mcNum mat[9], const mcNum pos[3], const mcNum target[3]) {
  static const mcNum up[3] = {0, 0, 1};
  mcNum x[3], y[3], z[3];
  mcu_sub3(z, pos, target);
  mcu_normalize3(z);
  mcu_cross(x, up, z);
  mcu_normalize3(x);
  mcu_cross(y, z, x);
  mcu_normalize3(y);
  for (int k = 0; k < 3; k++) {
    mat[3 * k] = x[k];
    mat[3 * k + 1] = y[k];
    mat[3 * k + 2] = z[k];
  }
}


void mci_camlightRange(const mcModel* m, mcData* d, int c0, int c1) {
  for (int i = c0; i < c1; i++) {
    int b = m->cam_bodyid[i], t = m->cam_targetbodyid[i];
    mcNum* xpos = d->cam_xpos + 3 * i;
    mcNum* xmat = d->cam_xmat + 9 * i;

    // the pose fixed in the body frame
    mcNum off[3], q[4];
    mcu_mulMatVec3(off, d->xmat + 9 * b, m->cam_pos + 3 * i);
    mcu_add3(xpos, d->xpos + 3 * b, off);
    mcu_mulQuat(q, d->xquat + 4 * b, m->cam_quat + 4 * i);
    mcu_quat2Mat(xmat, q);

    switch (m->cam_mode[i]) {
    case mcCAMLIGHT_TRACK:
      mcu_add3(xpos, d->xpos + 3 * b, m->cam_pos0 + 3 * i);
      mcu_copy(xmat, m->cam_mat0 + 9 * i, 9);
      break;
    case mcCAMLIGHT_TRACKCOM:
      mcu_add3(xpos, d->subtree_com + 3 * b, m->cam_poscom0 + 3 * i);
      mcu_copy(xmat, m->cam_mat0 + 9 * i, 9);
      break;
    case mcCAMLIGHT_TARGETBODY:
    case mcCAMLIGHT_TARGETBODYCOM:
      if (t >= 0) {
        const mcNum* tp = m->cam_mode[i] == mcCAMLIGHT_TARGETBODY ? d->xpos + 3 * t
                                                                   : d->subtree_com + 3 * t;
        mc_camLookAt(xmat, xpos, tp);
      }
      break;
    default:
      break;
    }
  }
}


int mci_camlightInTree(const mcModel* m, int i) {
  int b = m->cam_bodyid[i], t = m->cam_targetbodyid[i];
  int sametree = t >= 1 && b >= 1 && m->body_rootid[t] == m->body_rootid[b];
  switch (m->cam_mode[i]) {
  case mcCAMLIGHT_TRACKCOM:
    return b >= 1;
  case mcCAMLIGHT_TARGETBODY:
    return t <= 0 || sametree;
  case mcCAMLIGHT_TARGETBODYCOM:
    return t < 0 || sametree;
  default:
    return 1;
  }
}


void mc_camlight(const mcModel* m, mcData* d) {
  mci_camlightRange(m, d, 0, m->ncam);
}
