// Moduco viewer: the perturbation spring (see perturb.h).
#include "perturb.h"

#include <string.h>

static void cross(const double a[3], const double b[3], double c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}


void mcv_applyPerturb(const mcModel* m, mcData* d, const mcvPerturb* p, int* last) {
  if (*last > 0 && *last < m->nbody) {
    memset(d->xfrc_applied + 6 * *last, 0, 6 * sizeof(mcNum));
  }
  *last = p->body;
  int b = p->body;
  if (b <= 0 || b >= m->nbody) {
    return;
  }
  // the anchor in the world, its offset from the body's centre of mass, and its velocity
  // (cvel is rot:lin at the subtree com of the body's root)
  const mcNum* R = d->xmat + 9 * b;
  const mcNum* cv = d->cvel + 6 * b;
  const mcNum* origin = d->subtree_com + 3 * m->body_rootid[b];
  double pw[3], r[3], ro[3], wxr[3], v[3], dx[3];
  for (int i = 0; i < 3; i++) {
    pw[i] = d->xpos[3 * b + i] + R[3 * i] * p->anchor[0] + R[3 * i + 1] * p->anchor[1] +
            R[3 * i + 2] * p->anchor[2];
    r[i] = pw[i] - d->xipos[3 * b + i];
    ro[i] = pw[i] - origin[i];
    dx[i] = p->target[i] - pw[i];
  }
  cross(cv, ro, wxr);
  for (int i = 0; i < 3; i++) {
    v[i] = cv[3 + i] + wxr[i];
  }
  double mass = m->body_subtreemass[b];
  mcNum* f = d->xfrc_applied + 6 * b;
  if (!p->rotate) {
    // force at the anchor: a torque about the centre of mass where xfrc_applied acts
    double F[3], t[3];
    for (int i = 0; i < 3; i++) {
      F[i] = mass * (MCV_PERTURB_STIFFNESS * dx[i] - MCV_PERTURB_DAMPING * v[i]);
    }
    cross(r, F, t);
    for (int i = 0; i < 3; i++) {
      f[i] = F[i];
      f[3 + i] = t[i];
    }
  } else {
    // torque only: turn the anchor towards the target about the centre of mass
    double rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2], t[3];
    cross(r, dx, t);
    for (int i = 0; i < 3; i++) {
      f[i] = 0;
      f[3 + i] = mass * (MCV_PERTURB_STIFFNESS * t[i] - MCV_PERTURB_DAMPING * rr * cv[i]);
    }
  }
}
