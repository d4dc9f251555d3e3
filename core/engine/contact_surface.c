// Moduco core: moving contact surfaces and contact adhesion (MuJoCo 3.14's geom surfacevel and
// adhesion), entering through the constraint reference and the passive force; see
// contact_surface.h.
#include "engine/contact_surface.h"

#include "math/math.h"


//---------------------------------- per contact ---------------------------------------------------

// is the geom pair (either order) one of the explicit <pair>s?
static int explicitPair(const mcModel* m, int g1, int g2) {
  for (int i = 0; i < m->npair; i++) {
    int p1 = m->pair_geom1[i], p2 = m->pair_geom2[i];
    if ((p1 == g1 && p2 == g2) || (p1 == g2 && p2 == g1)) {
      return 1;
    }
  }
  return 0;
}


mcNum mc_contactAdhesion(const mcModel* m, const mcContact* con) {
  int g1 = con->geom1, g2 = con->geom2;
  mcNum a1 = m->geom_adhesion[g1], a2 = m->geom_adhesion[g2];
  if ((a1 == 0 && a2 == 0) || explicitPair(m, g1, g2)) {
    return 0;
  }
  int p1 = m->geom_priority[g1], p2 = m->geom_priority[g2];
  return p1 > p2 ? a1 : p2 > p1 ? a2 : a1 + a2;
}


// add sign times the surface velocity of geom g at the world point p: linear lin, angular ang
static void addSurface(const mcModel* m, const mcData* d, int g, const mcNum p[3], mcNum sign,
                       mcNum lin[3], mcNum ang[3]) {
  const mcNum* sv = m->geom_surfacevel + 6 * g;
  const mcNum* R = d->geom_xmat + 9 * g;
  mcNum v[3], w[3], r[3], wr[3];
  mcu_mulMatVec3(v, R, sv);
  mcu_mulMatVec3(w, R, sv + 3);
  mcu_sub3(r, p, d->geom_xpos + 3 * g);
  mcu_cross(wr, w, r);
  for (int k = 0; k < 3; k++) {
    lin[k] += sign * (v[k] + wr[k]);
    ang[k] += sign * w[k];
  }
}


static int hasSurfaceVel(const mcModel* m, int g) {
  const mcNum* sv = m->geom_surfacevel + 6 * g;
  for (int k = 0; k < 6; k++) {
    if (sv[k] != 0) {
      return 1;
    }
  }
  return 0;
}


int mc_contactSurfaceVel(const mcModel* m, const mcData* d, const mcContact* con, mcNum v[6]) {
  mcu_zero(v, 6);
  int s1 = hasSurfaceVel(m, con->geom1), s2 = hasSurfaceVel(m, con->geom2);
  if (!s1 && !s2) {
    return 0;
  }

  // geom2's surface relative to geom1's, as the contact Jacobian (geom2 minus geom1)
  mcNum lin[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
  if (s1) {
    addSurface(m, d, con->geom1, con->pos, -1, lin, ang);
  }
  if (s2) {
    addSurface(m, d, con->geom2, con->pos, 1, lin, ang);
  }

  // tangential part of the linear field, normal part (spin) of the angular one
  v[1] = mcu_dot3(con->frame + 3, lin);
  v[2] = mcu_dot3(con->frame + 6, lin);
  v[3] = mcu_dot3(con->frame, ang);
  return 1;
}


//---------------------------------- per row -------------------------------------------------------

// number of rows of the contact with efc rows at adr, and whether they are pyramid edges
static int contactRowCount(const mcData* d, const mcContact* con, int* pyramid) {
  *pyramid = d->efc_type[con->efc_address] == mcCNSTR_CONTACT_PYRAMIDAL;
  if (con->dim <= 1) {
    return 1;
  }
  return *pyramid ? 2 * (con->dim - 1) : con->dim;
}


// share of the adhesion a taken by row k of a contact (rows of contactRowCount)
static mcNum adhesionShare(mcNum a, int k, int nrow, int pyramid) {
  if (pyramid) {
    return a / nrow;
  }
  return k == 0 ? a : 0;
}


void mc_surfaceReference(const mcModel* m, mcData* d) {
  mci_surfaceReferenceRange(m, d, 0, d->ncon);
}


void mci_surfaceReferenceRange(const mcModel* m, mcData* d, int c0, int c1) {
  for (int c = c0; c < c1; c++) {
    const mcContact* con = d->contact + c;
    int adr = con->efc_address;
    if (adr < 0) {
      continue;
    }
    mcNum sv[6], a = mc_contactAdhesion(m, con);
    int moving = con->dim > 1 && mc_contactSurfaceVel(m, d, con, sv);
    if (!moving && a == 0) {
      continue;
    }
    int pyramid, nrow = contactRowCount(d, con, &pyramid);
    for (int k = 0; k < nrow; k++) {
      int i = adr + k;

      // velocity relative to the moving surfaces: direction k, or the edge's friction direction
      mcNum dv = 0;
      if (moving && pyramid) {
        int dir = 1 + k / 2;
        dv = (k % 2 ? -con->friction[dir - 1] : con->friction[dir - 1]) * sv[dir];
      } else if (moving) {
        dv = sv[k];
      }
      d->efc_vel[i] += dv;
      d->efc_aref[i] += -d->efc_KBIP[4 * i + 1] * dv +
                        adhesionShare(a, k, nrow, pyramid) * d->efc_R[i];
    }
  }
}


void mc_adhesionPassive(const mcModel* m, mcData* d) {
  int nv = m->nv;
  for (int c = 0; c < d->ncon; c++) {
    const mcContact* con = d->contact + c;
    int adr = con->efc_address;
    mcNum a;
    if (adr < 0 || (a = mc_contactAdhesion(m, con)) == 0) {
      continue;
    }

    // qfrc_passive -= s J' on every row with a share s
    int pyramid, nrow = contactRowCount(d, con, &pyramid);
    for (int k = 0; k < nrow; k++) {
      int i = adr + k;
      mcNum s = adhesionShare(a, k, nrow, pyramid);
      if (s == 0) {
        continue;
      }
      if (d->efc_J_rownnz) {
        const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
        const mcNum* val = d->efc_J_val + d->efc_J_rowadr[i];
        for (int t = 0, n = d->efc_J_rownnz[i]; t < n; t++) {
          d->qfrc_passive[col[t]] -= s * val[t];
        }
      } else {
        mcu_addToScl(d->qfrc_passive, d->efc_J + (size_t)i * nv, -s, nv);
      }
    }
  }
}
