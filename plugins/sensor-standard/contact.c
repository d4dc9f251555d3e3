// Moduco plugin "sensor-standard": the contact sensor (MuJoCo 3.x <contact>). Every contact of
// d->contact (those in a geom's gap too, with zero force, as MuJoCo 3.14 does) is matched against
// the sensor's two criteria (objtype/objid: geom, body, subtree (xbody) or site volume;
// reftype/refid: geom, body or subtree), reduced to num slots (in contact order, by smallest
// distance, by largest force, or to one net wrench) and written slot by slot with the fields of
// the data mask. A contact matched with its geoms in the opposite order is reported from the
// other side: normal and tangent reversed, and the force and torque expressed in that frame (the
// second tangent, their cross product, keeps its direction).
#include <math.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "contact.h"
#include "smath.h"

enum { FOUND = 1, FORCE = 2, TORQUE = 4, DIST = 8, POS = 16, NORMAL = 32, TANGENT = 64 };
enum { REDUCE_NONE = 0, REDUCE_MINDIST, REDUCE_MAXFORCE, REDUCE_NETFORCE };


//---------------------------------- matching ------------------------------------------------------

// is body b in the subtree of body root
static int inSubtree(const mcModel* m, int b, int root) {
  while (b > root) {
    b = m->body_parentid[b];
  }
  return b == root;
}


// does geom g satisfy a criterion (type mcOBJ_UNKNOWN: none, always true)
static int matchGeom(const mcModel* m, int type, int id, int g) {
  switch (type) {
  case mcOBJ_GEOM:  return g == id;
  case mcOBJ_BODY:  return m->geom_bodyid[g] == id;
  case mcOBJ_XBODY: return inSubtree(m, m->geom_bodyid[g], id);
  default:          return 1;
  }
}


// is the world point p inside the volume of site s
static int insideSite(const mcModel* m, const mcData* d, int s, const mcNum p[3]) {
  const mcNum* c = d->site_xpos + 3 * s;
  const mcNum* size = m->site_size + 3 * s;
  mcNum dp[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]}, x[3];
  ss_mulMatT3(x, d->site_xmat + 9 * s, dp);
  switch (m->site_type[s]) {
  case mcGEOM_SPHERE:
    return ss_dot3(x, x) <= size[0] * size[0];
  case mcGEOM_CAPSULE: {
    mcNum z = fabs(x[2]) > size[1] ? fabs(x[2]) - size[1] : 0;
    return x[0] * x[0] + x[1] * x[1] + z * z <= size[0] * size[0];
  }
  case mcGEOM_ELLIPSOID: {
    mcNum r = 0;
    for (int k = 0; k < 3; k++) {
      r += x[k] * x[k] / (size[k] * size[k]);
    }
    return r <= 1;
  }
  case mcGEOM_CYLINDER:
    return x[0] * x[0] + x[1] * x[1] <= size[0] * size[0] && fabs(x[2]) <= size[1];
  case mcGEOM_BOX:
    return fabs(x[0]) <= size[0] && fabs(x[1]) <= size[1] && fabs(x[2]) <= size[2];
  default:
    return 0;
  }
}


// does contact con match sensor i: 0 no, 1 yes in its own order, -1 yes from the other side
static int matchContact(const mcModel* m, const mcData* d, int i, const mcContact* con) {
  int ot = m->sensor_objtype[i], oid = m->sensor_objid[i];
  int rt = m->sensor_reftype[i], rid = m->sensor_refid[i];
  if (ot == mcOBJ_SITE) {
    if (!insideSite(m, d, oid, con->pos)) {
      return 0;
    }
    ot = mcOBJ_UNKNOWN;
  }
  if (matchGeom(m, ot, oid, con->geom1) && matchGeom(m, rt, rid, con->geom2)) {
    return 1;
  }
  if (matchGeom(m, ot, oid, con->geom2) && matchGeom(m, rt, rid, con->geom1)) {
    return -1;
  }
  return 0;
}


//---------------------------------- contact values ------------------------------------------------

// adhesion of a contact, MuJoCo 3.14's rule as the core applies it (core/engine/contact_surface.h):
// the geom of higher priority gives its own, equal priorities the sum, explicit pairs none
static mcNum adhesion(const mcModel* m, const mcContact* con) {
  int g1 = con->geom1, g2 = con->geom2;
  mcNum a1 = m->geom_adhesion[g1], a2 = m->geom_adhesion[g2];
  if (a1 == 0 && a2 == 0) {
    return 0;
  }
  for (int i = 0; i < m->npair; i++) {
    int p1 = m->pair_geom1[i], p2 = m->pair_geom2[i];
    if ((p1 == g1 && p2 == g2) || (p1 == g2 && p2 == g1)) {
      return 0;
    }
  }
  int p1 = m->geom_priority[g1], p2 = m->geom_priority[g2];
  return p1 > p2 ? a1 : p2 > p1 ? a2 : a1 + a2;
}


void ss_contactForce(const mcModel* m, const mcData* d, int id, mcNum f[6]) {
  const mcContact* con = d->contact + id;
  int adr = con->efc_address, dim = con->dim;
  memset(f, 0, 6 * sizeof(mcNum));
  if (adr < 0) {
    return;
  }
  if (dim == 1 || d->efc_type[adr] != mcCNSTR_CONTACT_PYRAMIDAL) {
    memcpy(f, d->efc_force + adr, (size_t)dim * sizeof(mcNum));
  } else {
    // pyramidal: each edge pair gives the normal part (sum) and one frictional part (difference)
    for (int k = 0; k < dim - 1; k++) {
      mcNum a = d->efc_force[adr + 2 * k], b = d->efc_force[adr + 2 * k + 1];
      f[0] += a + b;
      f[k + 1] = (a - b) * con->friction[k];
    }
  }

  // the rows carry the normal force shifted by the adhesion: the net force is without it
  f[0] -= adhesion(m, con);
}


// force and torque of a contact as seen by the sensor: in the contact frame, or from the other
// side (sign -1) in the frame with normal and first tangent reversed
static void sensedForce(const mcModel* m, const mcData* d, int id, int sign, mcNum f[6]) {
  ss_contactForce(m, d, id, f);
  if (sign < 0) {
    f[2] = -f[2];
    f[5] = -f[5];
  }
}


// global force and torque on the second side of a contact (from the sensor's view)
static void globalWrench(const mcModel* m, const mcData* d, int id, int sign, mcNum out[6]) {
  mcNum f[6];
  ss_contactForce(m, d, id, f);
  const mcNum* R = d->contact[id].frame;
  for (int k = 0; k < 3; k++) {
    out[k] = sign * (R[k] * f[0] + R[3 + k] * f[1] + R[6 + k] * f[2]);
    out[3 + k] = sign * (R[k] * f[3] + R[3 + k] * f[4] + R[6 + k] * f[5]);
  }
}


// the norm of the force of a contact (maxforce and netforce weights)
static mcNum forceNorm(const mcModel* m, const mcData* d, int id) {
  mcNum f[6];
  ss_contactForce(m, d, id, f);
  return sqrt(ss_dot3(f, f));
}


//---------------------------------- output --------------------------------------------------------

// append v[0..n) to out when the field is in mask
static mcNum* put(mcNum* out, int mask, int field, const mcNum* v, int n) {
  if (mask & field) {
    memcpy(out, v, (size_t)n * sizeof(mcNum));
    out += n;
  }
  return out;
}


// write one slot of the fields in mask; returns the slot's end
static mcNum* writeSlot(mcNum* out, int mask, mcNum found, const mcNum f[6], mcNum dist,
                        const mcNum pos[3], const mcNum normal[3], const mcNum tangent[3]) {
  out = put(out, mask, FOUND, &found, 1);
  out = put(out, mask, FORCE, f, 3);
  out = put(out, mask, TORQUE, f + 3, 3);
  out = put(out, mask, DIST, &dist, 1);
  out = put(out, mask, POS, pos, 3);
  out = put(out, mask, NORMAL, normal, 3);
  return put(out, mask, TANGENT, tangent, 3);
}


// one matched contact into a slot
static mcNum* writeContact(const mcModel* m, const mcData* d, mcNum* out, int mask, int nmatch, int id, int sign) {
  const mcContact* con = d->contact + id;
  mcNum f[6], normal[3], tangent[3];
  sensedForce(m, d, id, sign, f);
  for (int k = 0; k < 3; k++) {
    normal[k] = sign * con->frame[k];
    tangent[k] = sign * con->frame[3 + k];
  }
  return writeSlot(out, mask, nmatch, f, con->dist, con->pos, normal, tangent);
}


// the net wrench of the matched contacts, at their force-weighted centroid, in the global frame
static mcNum* writeNet(const mcModel* m, const mcData* d, mcNum* out, int mask, int nmatch, const int* id,
                       const int* sign) {
  mcNum w = 0, c[3] = {0, 0, 0}, net[6] = {0, 0, 0, 0, 0, 0};
  for (int j = 0; j < nmatch; j++) {
    mcNum wj = forceNorm(m, d, id[j]);
    const mcNum* p = d->contact[id[j]].pos;
    w += wj;
    for (int k = 0; k < 3; k++) {
      c[k] += wj * p[k];
    }
  }
  for (int k = 0; k < 3; k++) {
    c[k] = w > 0 ? c[k] / w : 0;
  }
  for (int j = 0; j < nmatch; j++) {
    mcNum g[6], r[3], t[3];
    globalWrench(m, d, id[j], sign[j], g);
    const mcNum* p = d->contact[id[j]].pos;
    for (int k = 0; k < 3; k++) {
      r[k] = p[k] - c[k];
    }
    ss_cross(t, r, g);
    for (int k = 0; k < 3; k++) {
      net[k] += g[k];
      net[3 + k] += g[3 + k] + t[k];
    }
  }
  static const mcNum ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0};
  return writeSlot(out, mask, nmatch, net, 0, c, ex, ey);
}


// move the best remaining candidate (smallest key, first on ties) to position k
static void selectBest(const mcModel* m, const mcData* d, int reduce, int* id, int* sign, int k, int n) {
  int best = k;
  mcNum bestkey = 0;
  for (int j = k; j < n; j++) {
    mcNum key = reduce == REDUCE_MINDIST ? d->contact[id[j]].dist : -forceNorm(m, d, id[j]);
    if (j == k || key < bestkey) {
      best = j;
      bestkey = key;
    }
  }
  int ti = id[best], ts = sign[best];
  memmove(id + k + 1, id + k, (size_t)(best - k) * sizeof(int));
  memmove(sign + k + 1, sign + k, (size_t)(best - k) * sizeof(int));
  id[k] = ti;
  sign[k] = ts;
}


//---------------------------------- compute -------------------------------------------------------

void ss_contactSensor(const mcpHost* host, const mcModel* m, mcData* d, int i, mcNum* out) {
  int dim = m->sensor_dim[i], cnt;
  memset(out, 0, (size_t)dim * sizeof(mcNum));
  int inst = m->sensor_plugin[i];
  const mcNum* pmask = host->config(m, inst, "dataspec", &cnt);
  const mcNum* preduce = host->config(m, inst, "reduce", &cnt);
  const mcNum* pnum = host->config(m, inst, "num", &cnt);
  if (!pmask || !preduce || !pnum) {
    return;
  }
  int mask = (int)pmask[0], reduce = (int)preduce[0], num = (int)pnum[0];

  // matched contacts in contact order, with the side they are seen from
  host->markStack(d);
  size_t n = d->ncon > 0 ? (size_t)d->ncon : 1;
  int* id = host->stackAlloc(d, sizeof(int) * n, _Alignof(int));
  int* sign = host->stackAlloc(d, sizeof(int) * n, _Alignof(int));
  if (!id || !sign) {
    host->freeStack(d);
    return;
  }
  int nmatch = 0;
  for (int j = 0; j < d->ncon; j++) {
    int s = matchContact(m, d, i, d->contact + j);
    if (s) {
      id[nmatch] = j;
      sign[nmatch++] = s;
    }
  }

  // reduction and extraction (the net wrench is written even of no contact: found 0, the
  // global frame's x and y axes as normal and tangent, as MuJoCo 3.14)
  if (reduce == REDUCE_NETFORCE) {
    writeNet(m, d, out, mask, nmatch, id, sign);
  } else {
    int nslot = nmatch < num ? nmatch : num;
    for (int k = 0; k < nslot; k++) {
      if (reduce != REDUCE_NONE) {
        selectBest(m, d, reduce, id, sign, k, nmatch);
      }
      out = writeContact(m, d, out, mask, nmatch, id[k], sign[k]);
    }
  }
  host->freeStack(d);
}
