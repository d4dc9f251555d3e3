// Moduco core: sensor stages (dispatch to the sensor plugins, cutoff) and the post-constraint
// recursive Newton-Euler pass that fills cacc, cfrc_int and cfrc_ext for acceleration sensors.
#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "engine/contact_surface.h"
#include "engine/engine.h"
#include "engine/plugin_check.h"
#include "engine/sensor.h"
#include "math/math.h"
#include "plugin/registry.h"


//---------------------------------- contact forces ------------------------------------------------

void mc_contactForce(const mcModel* m, const mcData* d, int id, mcNum result[6]) {
  mcu_zero(result, 6);
  if (id < 0 || id >= d->ncon) {
    return;
  }
  const mcContact* con = d->contact + id;
  int adr = con->efc_address, dim = con->dim;
  if (adr < 0) {
    return;
  }

  // frictionless and elliptic rows are already in the contact frame
  if (dim == 1 || d->efc_type[adr] != mcCNSTR_CONTACT_PYRAMIDAL) {
    mcu_copy(result, d->efc_force + adr, dim);
  } else {
    // pyramidal: edge pairs give the normal (sum) and the frictional components (difference)
    for (int k = 0; k < dim - 1; k++) {
      mcNum a = d->efc_force[adr + 2 * k], b = d->efc_force[adr + 2 * k + 1];
      result[0] += a + b;
      result[k + 1] = (a - b) * con->friction[k];
    }
  }

  // the net force: the rows carry the normal force shifted by the adhesion (contact_surface.h)
  result[0] -= mc_contactAdhesion(m, con);
}


//---------------------------------- post-constraint rne -------------------------------------------

void mc_rnePostConstraint(const mcModel* m, mcData* d) {
  int nbody = m->nbody;
  mcNum w[6], wc[6], tmp[6], shift[3];

  // world acceleration: minus gravity
  mcu_zero(d->cacc, 6);
  if (!(m->opt.disableflags & mcDSBL_GRAVITY)) {
    mcu_scl3(d->cacc + 3, m->opt.gravity, -1);
  }

  // external forces: applied wrenches at the body com, moved to the com of the tree root
  mcu_zero(d->cfrc_ext, 6 * nbody);
  for (int b = 1; b < nbody; b++) {
    const mcNum* x = d->xfrc_applied + 6 * b;
    if (x[0] == 0 && x[1] == 0 && x[2] == 0 && x[3] == 0 && x[4] == 0 && x[5] == 0) {
      continue;
    }
    mcu_copy3(w, x + 3);
    mcu_copy3(w + 3, x);
    mcu_sub3(shift, d->subtree_com + 3 * m->body_rootid[b], d->xipos + 3 * b);
    mcu_transformSpatial(wc, w, 1, shift, NULL);
    mcu_addTo(d->cfrc_ext + 6 * b, wc, 6);
  }

  // external forces: contacts, added to body 2 and subtracted from body 1
  for (int i = 0; i < d->ncon; i++) {
    const mcContact* con = d->contact + i;
    if (con->efc_address < 0) {
      continue;
    }
    mcNum f[6];
    mc_contactForce(m, d, i, f);
    mcu_mulMatTVec3(w + 3, con->frame, f);
    mcu_mulMatTVec3(w, con->frame, f + 3);
    int b1 = m->geom_bodyid[con->geom1], b2 = m->geom_bodyid[con->geom2];
    mcu_sub3(shift, d->subtree_com + 3 * m->body_rootid[b1], con->pos);
    mcu_transformSpatial(wc, w, 1, shift, NULL);
    mcu_addToScl(d->cfrc_ext + 6 * b1, wc, -1, 6);
    mcu_sub3(shift, d->subtree_com + 3 * m->body_rootid[b2], con->pos);
    mcu_transformSpatial(wc, w, 1, shift, NULL);
    mcu_addTo(d->cfrc_ext + 6 * b2, wc, 6);
  }

  // forward pass: body accelerations
  for (int b = 1; b < nbody; b++) {
    int adr = m->body_dofadr[b], num = m->body_dofnum[b];
    mcNum* a = d->cacc + 6 * b;
    mcu_copy(a, d->cacc + 6 * m->body_parentid[b], 6);
    if (num) {
      mcu_mulDofVec(tmp, d->cdof_dot + 6 * adr, d->qvel + adr, num);
      mcu_addTo(a, tmp, 6);
      mcu_mulDofVec(tmp, d->cdof + 6 * adr, d->qacc + adr, num);
      mcu_addTo(a, tmp, 6);
    }
  }

  // body forces: I a + v x* (I v) - external
  mcu_zero(d->cfrc_int, 6);
  for (int b = 1; b < nbody; b++) {
    mcNum* fi = d->cfrc_int + 6 * b;
    mcu_mulInertVec(fi, d->cinert + 10 * b, d->cacc + 6 * b);
    mcu_mulInertVec(w, d->cinert + 10 * b, d->cvel + 6 * b);
    mcu_crossForce(tmp, d->cvel + 6 * b, w);
    mcu_addTo(fi, tmp, 6);
    mcu_addToScl(fi, d->cfrc_ext + 6 * b, -1, 6);
  }

  // backward pass: accumulate subtrees into their parents
  for (int b = nbody - 1; b > 0; b--) {
    mcu_addTo(d->cfrc_int + 6 * m->body_parentid[b], d->cfrc_int + 6 * b, 6);
  }
}


//---------------------------------- sensor stages -------------------------------------------------

// true when an acceleration sensor needs cacc, cfrc_int or cfrc_ext
static int needsRnePost(const mcModel* m) {
  for (int i = 0; i < m->nsensor; i++) {
    if (m->sensor_needstage[i] != mcSTAGE_ACC) {
      continue;
    }
    switch (m->sensor_type[i]) {
    case mcSENS_ACCELEROMETER:
    case mcSENS_FORCE:
    case mcSENS_TORQUE:
    case mcSENS_FRAMELINACC:
    case mcSENS_FRAMEANGACC:
    case mcSENS_PLUGIN:
    case mcSENS_USER:
      return 1;
    default:
      break;
    }
  }
  return 0;
}


// clamp the outputs of sensor i to its cutoff (real and positive data only)
static void applyCutoff(const mcModel* m, mcData* d, int i) {
  mcNum c = m->sensor_cutoff[i];
  int type = m->sensor_datatype[i];
  if (c <= 0 || (type != mcDATATYPE_REAL && type != mcDATATYPE_POSITIVE) ||
      m->sensor_type[i] == mcSENS_CONTACT) {  // MuJoCo 3.x: a contact sensor ignores cutoff
    return;
  }
  mcNum* out = d->sensordata + m->sensor_adr[i];
  for (int k = 0; k < m->sensor_dim[i]; k++) {
    out[k] = type == mcDATATYPE_REAL ? mcu_clip(out[k], -c, c) : mcu_min(out[k], c);
  }
}


void mc_sensorStage(const mcModel* m, mcData* d, int stage) {
  if (!m->nsensor || (m->opt.disableflags & mcDSBL_SENSOR)) {
    return;
  }

  double t0 = mc_clockNow(d);

  // the acceleration stage first completes the post-constraint quantities
  if (stage == mcSTAGE_ACC && needsRnePost(m)) {
    mc_rnePostConstraint(m, d);
  }

  // every sensor of this stage: its plugin computes it, user sensors are zero
  const mcpHost* host = mcp_host();
  for (int i = 0; i < m->nsensor; i++) {
    if (m->sensor_needstage[i] != stage) {
      continue;
    }
    mcNum* out = d->sensordata + m->sensor_adr[i];
    int p = m->sensor_plugin[i];
    if (p >= 0 && m->plugin && m->plugin[p]) {
      const mcpSensor* ps = (const mcpSensor*)m->plugin[p];
      double t1 = mc_clockNow(d);
      if (d->plugin_check) {
        mci_computeSensorChecked(host, m, d, ps, i, out);
      } else {
        ps->compute(host, m, d, i, out);
      }
      mc_clockAddElement(m, d, p, t1);
    } else {
      mcu_zero(out, m->sensor_dim[i]);
    }
    applyCutoff(m, d, i);
  }
  mc_clockAdd(d, mcTIMER_SENSOR, t0);
}
