// Moduco plugin library "sensor-standard": every MuJoCo sensor type, one descriptor per MJCF
// element (touch, accelerometer, ..., clock). The core compiler parses the element (object,
// dimension, stage, data type) and binds the sensor to the descriptor of its element; compute
// switches on m->sensor_type. The core calls compute at the sensor's stage, after completing
// cacc/cfrc_int/cfrc_ext for acceleration sensors, and applies the cutoff afterwards. Noise is
// stored in the model and not applied, as in MuJoCo.
#include <math.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "contact.h"
#include "ray.h"
#include "smath.h"


//---------------------------------- object frames -------------------------------------------------

// frame of an object: position, orientation matrix and the body that carries it
static void objFrame(const mcModel* m, const mcData* d, int type, int id, const mcNum** pos,
                     const mcNum** mat, int* body) {
  switch (type) {
  case mcOBJ_XBODY:
    *pos = d->xpos + 3 * id;
    *mat = d->xmat + 9 * id;
    *body = id;
    break;
  case mcOBJ_GEOM:
    *pos = d->geom_xpos + 3 * id;
    *mat = d->geom_xmat + 9 * id;
    *body = m->geom_bodyid[id];
    break;
  case mcOBJ_SITE:
    *pos = d->site_xpos + 3 * id;
    *mat = d->site_xmat + 9 * id;
    *body = m->site_bodyid[id];
    break;
  case mcOBJ_CAMERA:
    *pos = d->cam_xpos + 3 * id;
    *mat = d->cam_xmat + 9 * id;
    *body = m->cam_bodyid[id];
    break;
  default:  // mcOBJ_BODY: the inertial frame
    *pos = d->xipos + 3 * id;
    *mat = d->ximat + 9 * id;
    *body = id;
    break;
  }
}


// orientation quaternion of an object
static void objQuat(const mcModel* m, const mcData* d, int type, int id, mcNum q[4]) {
  switch (type) {
  case mcOBJ_XBODY:
    memcpy(q, d->xquat + 4 * id, 4 * sizeof(mcNum));
    break;
  case mcOBJ_GEOM:
    ss_mulQuat(q, d->xquat + 4 * m->geom_bodyid[id], m->geom_quat + 4 * id);
    break;
  case mcOBJ_SITE:
    ss_mulQuat(q, d->xquat + 4 * m->site_bodyid[id], m->site_quat + 4 * id);
    break;
  case mcOBJ_CAMERA:
    ss_mulQuat(q, d->xquat + 4 * m->cam_bodyid[id], m->cam_quat + 4 * id);
    break;
  default:
    ss_mulQuat(q, d->xquat + 4 * id, m->body_iquat + 4 * id);
    break;
  }
}


// spatial velocity (rot:lin) of an object at its position; local: in its own frame
static void objVelocity(const mcModel* m, const mcData* d, int type, int id, int local,
                        mcNum res[6]) {
  const mcNum *pos, *mat;
  int b;
  objFrame(m, d, type, id, &pos, &mat, &b);
  const mcNum* com = d->subtree_com + 3 * m->body_rootid[b];
  mcNum shift[3] = {pos[0] - com[0], pos[1] - com[1], pos[2] - com[2]};
  ss_transform(res, d->cvel + 6 * b, 0, shift, local ? mat : NULL);
}


// spatial acceleration (rot:lin) of an object at its position, with the Coriolis correction of
// the linear part; local: in its own frame
static void objAcceleration(const mcModel* m, const mcData* d, int type, int id, int local,
                            mcNum res[6]) {
  const mcNum *pos, *mat;
  int b;
  objFrame(m, d, type, id, &pos, &mat, &b);
  const mcNum* com = d->subtree_com + 3 * m->body_rootid[b];
  mcNum shift[3] = {pos[0] - com[0], pos[1] - com[1], pos[2] - com[2]};
  mcNum vel[6], c[3];
  ss_transform(vel, d->cvel + 6 * b, 0, shift, local ? mat : NULL);
  ss_transform(res, d->cacc + 6 * b, 0, shift, local ? mat : NULL);
  ss_cross(c, vel, vel + 3);
  res[3] += c[0];
  res[4] += c[1];
  res[5] += c[2];
}


//---------------------------------- contacts and constraints --------------------------------------

// first constraint row of the given type and object, or -1
static int findRow(const mcData* d, int type, int id) {
  for (int i = 0; i < d->nefc; i++) {
    if (d->efc_type[i] == type && d->efc_id[i] == id) {
      return i;
    }
  }
  return -1;
}


// touch: normal forces of contacts on the site's body whose force ray enters the site volume
static mcNum touch(const mcModel* m, const mcData* d, int site) {
  int body = m->site_bodyid[site];
  mcNum sum = 0;
  for (int i = 0; i < d->ncon; i++) {
    const mcContact* con = d->contact + i;
    int b1 = m->geom_bodyid[con->geom1], b2 = m->geom_bodyid[con->geom2];
    if (b1 != body && b2 != body) {
      continue;
    }
    mcNum fc[6];
    ss_contactForce(m, d, i, fc);
    mcNum f = fc[0];
    if (f <= 0) {
      continue;
    }

    // ray along the normal, reversed when the sensor is on the second body (MuJoCo's rule)
    mcNum ray[3] = {con->frame[0], con->frame[1], con->frame[2]};
    if (b2 == body) {
      ray[0] = -ray[0];
      ray[1] = -ray[1];
      ray[2] = -ray[2];
    }
    if (ss_rayShape(m->site_type[site], d->site_xpos + 3 * site, d->site_xmat + 9 * site,
                    m->site_size + 3 * site, con->pos, ray) >= 0) {
      sum += f;
    }
  }
  return sum;
}


//---------------------------------- subtree momentum ----------------------------------------------

// linear velocity (out 0..2) or angular momentum (out 0..2) of the subtree of body root
static void subtreeMomentum(const mcpHost* host, const mcModel* m, mcData* d, int root,
                            int angular, mcNum out[3]) {
  int nbody = m->nbody;
  host->markStack(d);
  mcNum* lin = host->stackAlloc(d, sizeof(mcNum) * 3 * (size_t)nbody, _Alignof(mcNum));
  mcNum* ang = host->stackAlloc(d, sizeof(mcNum) * 3 * (size_t)nbody, _Alignof(mcNum));
  mcNum* vcom = host->stackAlloc(d, sizeof(mcNum) * 3 * (size_t)nbody, _Alignof(mcNum));
  if (!lin || !ang || !vcom) {
    out[0] = out[1] = out[2] = 0;
    host->freeStack(d);
    return;
  }

  // per body: com velocity, linear momentum, spin angular momentum about its com
  for (int b = 0; b < nbody; b++) {
    const mcNum* com = d->subtree_com + 3 * m->body_rootid[b];
    const mcNum* xi = d->xipos + 3 * b;
    mcNum shift[3] = {xi[0] - com[0], xi[1] - com[1], xi[2] - com[2]};
    mcNum v[6], wl[3];
    ss_transform(v, d->cvel + 6 * b, 0, shift, NULL);
    mcNum mass = m->body_mass[b];
    for (int k = 0; k < 3; k++) {
      vcom[3 * b + k] = v[3 + k];
      lin[3 * b + k] = mass * v[3 + k];
    }
    ss_mulMatT3(wl, d->ximat + 9 * b, v);
    for (int k = 0; k < 3; k++) {
      wl[k] *= m->body_inertia[3 * b + k];
    }
    ss_mulMat3(ang + 3 * b, d->ximat + 9 * b, wl);
  }

  // subtree linear momentum, then velocity
  for (int b = nbody - 1; b > 0; b--) {
    int p = m->body_parentid[b];
    for (int k = 0; k < 3; k++) {
      lin[3 * p + k] += lin[3 * b + k];
    }
  }
  for (int b = 0; b < nbody; b++) {
    mcNum sm = m->body_subtreemass[b];
    sm = sm > mcMINVAL ? sm : mcMINVAL;
    for (int k = 0; k < 3; k++) {
      lin[3 * b + k] /= sm;
    }
  }

  // subtree angular momentum about the subtree com: own spin and orbit, then the children
  if (angular) {
    for (int b = nbody - 1; b >= 0; b--) {
      const mcNum* sc = d->subtree_com + 3 * b;
      const mcNum* xi = d->xipos + 3 * b;
      mcNum dx[3], dv[3], c[3];
      for (int k = 0; k < 3; k++) {
        dx[k] = xi[k] - sc[k];
        dv[k] = m->body_mass[b] * (vcom[3 * b + k] - lin[3 * b + k]);
      }
      ss_cross(c, dx, dv);
      for (int k = 0; k < 3; k++) {
        ang[3 * b + k] += c[k];
      }
      if (b == 0) {
        break;
      }
      int p = m->body_parentid[b];
      const mcNum* pc = d->subtree_com + 3 * p;
      for (int k = 0; k < 3; k++) {
        dx[k] = sc[k] - pc[k];
        dv[k] = m->body_subtreemass[b] * (lin[3 * b + k] - lin[3 * p + k]);
      }
      ss_cross(c, dx, dv);
      for (int k = 0; k < 3; k++) {
        ang[3 * p + k] += ang[3 * b + k] + c[k];
      }
    }
  }
  const mcNum* src = angular ? ang : lin;
  out[0] = src[3 * root];
  out[1] = src[3 * root + 1];
  out[2] = src[3 * root + 2];
  host->freeStack(d);
}


//---------------------------------- camera projection ---------------------------------------------

// pixel coordinates (u right, v down, origin at the image corner) of a world point seen through a
// pinhole camera looking along its -z axis; the focal lengths in pixels come from the focal length
// and sensor size when the camera has a sensor (float arithmetic on the stored floats, as MuJoCo
// 3.3.8), else from fovy; the principal point is the image center
static void camProjection(const mcModel* m, const mcData* d, const mcNum point[3], int cam,
                          mcNum out[2]) {
  const mcNum* cp = d->cam_xpos + 3 * cam;
  mcNum rel[3] = {point[0] - cp[0], point[1] - cp[1], point[2] - cp[2]}, q[3];
  ss_mulMatT3(q, d->cam_xmat + 9 * cam, rel);
  const int* res = m->cam_resolution + 2 * cam;
  const float* in = m->cam_intrinsic + 4 * cam;
  const float* ss = m->cam_sensorsize + 2 * cam;
  mcNum fx, fy;
  if (ss[0] != 0 && ss[1] != 0) {
    float fxf = in[0] / ss[0] * (float)res[0];
    float fyf = in[1] / ss[1] * (float)res[1];
    fx = fxf;
    fy = fyf;
  } else {
    fy = 0.5 / tan(m->cam_fovy[cam] * mcPI / 360) * res[1];
    fx = fy;
  }

  // homogeneous image coordinates; the depth along -z, kept away from zero
  mcNum w = q[2];
  if (fabs(w) < mcMINVAL) {
    w = w < 0 ? -mcMINVAL : mcMINVAL;
  }
  mcNum u = -fx * q[0] + 0.5 * res[0] * q[2];
  mcNum v = fy * q[1] + 0.5 * res[1] * q[2];
  out[0] = u / w;
  out[1] = v / w;
}


//---------------------------------- frame sensors -------------------------------------------------

// position, orientation or axis of an object, optionally in a reference frame
static void framePose(const mcModel* m, const mcData* d, int type, int ot, int oid, int rt,
                      int rid, mcNum* out) {
  const mcNum *pos, *mat, *rpos = NULL, *rmat = NULL;
  int b;
  objFrame(m, d, ot, oid, &pos, &mat, &b);
  if (rid >= 0) {
    objFrame(m, d, rt, rid, &rpos, &rmat, &b);
  }
  if (type == mcSENS_FRAMEPOS) {
    mcNum dp[3] = {pos[0], pos[1], pos[2]};
    if (rmat) {
      dp[0] -= rpos[0];
      dp[1] -= rpos[1];
      dp[2] -= rpos[2];
      ss_mulMatT3(out, rmat, dp);
    } else {
      memcpy(out, dp, sizeof(dp));
    }
  } else if (type == mcSENS_FRAMEQUAT) {
    mcNum q[4];
    objQuat(m, d, ot, oid, q);
    if (rid >= 0) {
      mcNum r[4];
      objQuat(m, d, rt, rid, r);
      r[1] = -r[1];
      r[2] = -r[2];
      r[3] = -r[3];
      ss_mulQuat(out, r, q);
    } else {
      memcpy(out, q, sizeof(q));
    }
  } else {
    int col = type - mcSENS_FRAMEXAXIS;
    mcNum ax[3] = {mat[col], mat[3 + col], mat[6 + col]};
    if (rmat) {
      ss_mulMatT3(out, rmat, ax);
    } else {
      memcpy(out, ax, sizeof(ax));
    }
  }
}


// linear or angular velocity of an object, optionally relative to a reference frame
static void frameVelocity(const mcModel* m, const mcData* d, int type, int ot, int oid, int rt,
                          int rid, mcNum* out) {
  mcNum v[6];
  objVelocity(m, d, ot, oid, 0, v);
  if (rid < 0) {
    memcpy(out, type == mcSENS_FRAMELINVEL ? v + 3 : v, 3 * sizeof(mcNum));
    return;
  }

  // relative to the moving reference frame, expressed in it
  const mcNum *pos, *mat, *rpos, *rmat;
  int b;
  mcNum vr[6], rel[3];
  objFrame(m, d, ot, oid, &pos, &mat, &b);
  objFrame(m, d, rt, rid, &rpos, &rmat, &b);
  objVelocity(m, d, rt, rid, 0, vr);
  if (type == mcSENS_FRAMELINVEL) {
    mcNum dp[3] = {pos[0] - rpos[0], pos[1] - rpos[1], pos[2] - rpos[2]}, c[3];
    ss_cross(c, vr, dp);
    for (int k = 0; k < 3; k++) {
      rel[k] = v[3 + k] - vr[3 + k] - c[k];
    }
  } else {
    for (int k = 0; k < 3; k++) {
      rel[k] = v[k] - vr[k];
    }
  }
  ss_mulMatT3(out, rmat, rel);
}


//---------------------------------- compute -------------------------------------------------------

static void compute(const mcpHost* host, const mcModel* m, mcData* d, int i, mcNum* out) {
  int type = m->sensor_type[i], oid = m->sensor_objid[i], ot = m->sensor_objtype[i];
  int rt = m->sensor_reftype[i], rid = m->sensor_refid[i];
  mcNum tmp[6];

  switch (type) {
  // site sensors
  case mcSENS_TOUCH:
    out[0] = touch(m, d, oid);
    break;
  case mcSENS_ACCELEROMETER:
    objAcceleration(m, d, mcOBJ_SITE, oid, 1, tmp);
    memcpy(out, tmp + 3, 3 * sizeof(mcNum));
    break;
  case mcSENS_VELOCIMETER:
    objVelocity(m, d, mcOBJ_SITE, oid, 1, tmp);
    memcpy(out, tmp + 3, 3 * sizeof(mcNum));
    break;
  case mcSENS_GYRO:
    objVelocity(m, d, mcOBJ_SITE, oid, 1, tmp);
    memcpy(out, tmp, 3 * sizeof(mcNum));
    break;
  case mcSENS_FORCE:
  case mcSENS_TORQUE: {
    int b = m->site_bodyid[oid];
    const mcNum* com = d->subtree_com + 3 * m->body_rootid[b];
    const mcNum* sp = d->site_xpos + 3 * oid;
    mcNum shift[3] = {sp[0] - com[0], sp[1] - com[1], sp[2] - com[2]};
    ss_transform(tmp, d->cfrc_int + 6 * b, 1, shift, d->site_xmat + 9 * oid);
    memcpy(out, type == mcSENS_FORCE ? tmp + 3 : tmp, 3 * sizeof(mcNum));
    break;
  }
  case mcSENS_MAGNETOMETER:
    ss_mulMatT3(out, d->site_xmat + 9 * oid, m->opt.magnetic);
    break;
  case mcSENS_RANGEFINDER: {
    const mcNum* mat = d->site_xmat + 9 * oid;
    mcNum z[3] = {mat[2], mat[5], mat[8]};
    out[0] = ss_rayModel(m, d, d->site_xpos + 3 * oid, z, m->site_bodyid[oid]);
    break;
  }
  case mcSENS_CAMPROJECTION:
    camProjection(m, d, d->site_xpos + 3 * oid, rid, out);
    break;

  // joints, tendons, actuators
  case mcSENS_JOINTPOS:
    out[0] = d->qpos[m->jnt_qposadr[oid]];
    break;
  case mcSENS_JOINTVEL:
    out[0] = d->qvel[m->jnt_dofadr[oid]];
    break;
  case mcSENS_TENDONPOS:
    out[0] = d->ten_length[oid];
    break;
  case mcSENS_TENDONVEL:
    out[0] = d->ten_velocity[oid];
    break;
  case mcSENS_ACTUATORPOS:
    out[0] = d->actuator_length[oid];
    break;
  case mcSENS_ACTUATORVEL:
    out[0] = d->actuator_velocity[oid];
    break;
  case mcSENS_ACTUATORFRC:
    out[0] = d->actuator_force[oid];
    break;
  case mcSENS_JOINTACTFRC:
    out[0] = d->qfrc_actuator[m->jnt_dofadr[oid]];
    break;
  case mcSENS_BALLQUAT: {
    const mcNum* q = d->qpos + m->jnt_qposadr[oid];
    mcNum n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n < mcMINVAL) {
      out[0] = 1;
      out[1] = out[2] = out[3] = 0;
    } else {
      for (int k = 0; k < 4; k++) {
        out[k] = q[k] / n;
      }
    }
    break;
  }
  case mcSENS_BALLANGVEL:
    memcpy(out, d->qvel + m->jnt_dofadr[oid], 3 * sizeof(mcNum));
    break;

  // limits: the first active limit row of the object
  case mcSENS_JOINTLIMITPOS:
  case mcSENS_JOINTLIMITVEL:
  case mcSENS_JOINTLIMITFRC:
  case mcSENS_TENDONLIMITPOS:
  case mcSENS_TENDONLIMITVEL:
  case mcSENS_TENDONLIMITFRC: {
    int joint = type <= mcSENS_JOINTLIMITFRC;
    int r = findRow(d, joint ? mcCNSTR_LIMIT_JOINT : mcCNSTR_LIMIT_TENDON, oid);
    int what = (type - (joint ? mcSENS_JOINTLIMITPOS : mcSENS_TENDONLIMITPOS));
    if (r < 0) {
      out[0] = 0;
    } else if (what == 0) {
      out[0] = d->efc_pos[r] - d->efc_margin[r];
    } else if (what == 1) {
      out[0] = d->efc_vel[r];
    } else {
      out[0] = d->efc_force[r];
    }
    break;
  }

  // frames
  case mcSENS_FRAMEPOS:
  case mcSENS_FRAMEQUAT:
  case mcSENS_FRAMEXAXIS:
  case mcSENS_FRAMEYAXIS:
  case mcSENS_FRAMEZAXIS:
    framePose(m, d, type, ot, oid, rt, rid, out);
    break;
  case mcSENS_FRAMELINVEL:
  case mcSENS_FRAMEANGVEL:
    frameVelocity(m, d, type, ot, oid, rt, rid, out);
    break;
  case mcSENS_FRAMELINACC:
  case mcSENS_FRAMEANGACC:
    objAcceleration(m, d, ot, oid, 0, tmp);
    memcpy(out, type == mcSENS_FRAMELINACC ? tmp + 3 : tmp, 3 * sizeof(mcNum));
    break;

  // subtrees and time
  case mcSENS_SUBTREECOM:
    memcpy(out, d->subtree_com + 3 * oid, 3 * sizeof(mcNum));
    break;
  case mcSENS_SUBTREELINVEL:
    subtreeMomentum(host, m, d, oid, 0, out);
    break;
  case mcSENS_SUBTREEANGMOM:
    subtreeMomentum(host, m, d, oid, 1, out);
    break;
  case mcSENS_CLOCK:
    out[0] = d->time;
    break;
  default:
    memset(out, 0, sizeof(mcNum) * (size_t)m->sensor_dim[i]);
    break;
  }
}


//---------------------------------- descriptors ---------------------------------------------------

#define SENSOR(VAR, ELEM, DESC)                                                                    \
  static const mcpSensor VAR = {                                                                   \
    .hdr = MCP_HEADER(mcpKIND_SENSOR, mcpSensor, ELEM, "1.0.0", DESC, -1),                         \
    .element = ELEM,                                                                               \
    .attributes = NULL,                                                                            \
    .compile = NULL,                                                                               \
    .compute = compute,                                                                            \
  };

SENSOR(g_touch, "touch", "normal contact force in a site volume")
SENSOR(g_accelerometer, "accelerometer", "linear acceleration in a site frame")
SENSOR(g_velocimeter, "velocimeter", "linear velocity in a site frame")
SENSOR(g_gyro, "gyro", "angular velocity in a site frame")
SENSOR(g_force, "force", "interaction force at a site")
SENSOR(g_torque, "torque", "interaction torque at a site")
SENSOR(g_magnetometer, "magnetometer", "magnetic flux in a site frame")
SENSOR(g_rangefinder, "rangefinder", "distance along a site's z axis")
SENSOR(g_camprojection, "camprojection", "pixel coordinates of a site seen by a camera")
SENSOR(g_jointpos, "jointpos", "joint position")
SENSOR(g_jointvel, "jointvel", "joint velocity")
SENSOR(g_tendonpos, "tendonpos", "tendon length")
SENSOR(g_tendonvel, "tendonvel", "tendon velocity")
SENSOR(g_actuatorpos, "actuatorpos", "actuator length")
SENSOR(g_actuatorvel, "actuatorvel", "actuator velocity")
SENSOR(g_actuatorfrc, "actuatorfrc", "actuator force")
SENSOR(g_jointactuatorfrc, "jointactuatorfrc", "actuator force at a joint")
SENSOR(g_ballquat, "ballquat", "ball joint quaternion")
SENSOR(g_ballangvel, "ballangvel", "ball joint angular velocity")
SENSOR(g_jointlimitpos, "jointlimitpos", "joint limit distance minus margin")
SENSOR(g_jointlimitvel, "jointlimitvel", "joint limit velocity")
SENSOR(g_jointlimitfrc, "jointlimitfrc", "joint limit force")
SENSOR(g_tendonlimitpos, "tendonlimitpos", "tendon limit distance minus margin")
SENSOR(g_tendonlimitvel, "tendonlimitvel", "tendon limit velocity")
SENSOR(g_tendonlimitfrc, "tendonlimitfrc", "tendon limit force")
SENSOR(g_framepos, "framepos", "frame position")
SENSOR(g_framequat, "framequat", "frame orientation")
SENSOR(g_framexaxis, "framexaxis", "frame x axis")
SENSOR(g_frameyaxis, "frameyaxis", "frame y axis")
SENSOR(g_framezaxis, "framezaxis", "frame z axis")
SENSOR(g_framelinvel, "framelinvel", "frame linear velocity")
SENSOR(g_frameangvel, "frameangvel", "frame angular velocity")
SENSOR(g_framelinacc, "framelinacc", "frame linear acceleration")
SENSOR(g_frameangacc, "frameangacc", "frame angular acceleration")
SENSOR(g_subtreecom, "subtreecom", "subtree center of mass")
SENSOR(g_subtreelinvel, "subtreelinvel", "subtree linear velocity")
SENSOR(g_subtreeangmom, "subtreeangmom", "subtree angular momentum")
SENSOR(g_clock, "clock", "simulation time")

// the contact sensor: the core parses <contact> and stores its data mask, reduction and slot
// count in these keys of the instance (the element's own attributes are geom1, data, ...)
static const mcpConfigKey g_contactKeys[] = {
  {"dataspec", mcpCONFIG_INT, 1, "1", 1, 127, NULL,
   "fields per slot: bits found 1, force 2, torque 4, dist 8, pos 16, normal 32, tangent 64"},
  {"reduce", mcpCONFIG_ENUM, 1, "none", 0, -1, "none|mindist|maxforce|netforce",
   "reduction of the matched contacts to the slots"},
  {"num", mcpCONFIG_INT, 1, "1", 1, 1 << 28, NULL, "number of slots"},
};

static const mcpPluginExt g_contactExt = {
  (int)(sizeof(g_contactKeys) / sizeof(g_contactKeys[0])), g_contactKeys, NULL, NULL, NULL,
};

static const mcpSensor g_contact = {
  .hdr = MCP_HEADER(mcpKIND_SENSOR, mcpSensor, "contact", "1.0.0",
                    "matched contacts: found, force, torque, dist, pos, normal, tangent", -1),
  .element = "contact",
  .attributes = NULL,
  .compile = NULL,
  .compute = ss_contactSensor,
  .ext = &g_contactExt,
};

static const mcpHeader* const g_plugins[] = {
  &g_touch.hdr, &g_accelerometer.hdr, &g_velocimeter.hdr, &g_gyro.hdr, &g_force.hdr,
  &g_torque.hdr, &g_magnetometer.hdr, &g_rangefinder.hdr, &g_camprojection.hdr,
  &g_jointpos.hdr, &g_jointvel.hdr,
  &g_tendonpos.hdr, &g_tendonvel.hdr, &g_actuatorpos.hdr, &g_actuatorvel.hdr,
  &g_actuatorfrc.hdr, &g_jointactuatorfrc.hdr, &g_ballquat.hdr, &g_ballangvel.hdr,
  &g_jointlimitpos.hdr, &g_jointlimitvel.hdr, &g_jointlimitfrc.hdr, &g_tendonlimitpos.hdr,
  &g_tendonlimitvel.hdr, &g_tendonlimitfrc.hdr, &g_framepos.hdr, &g_framequat.hdr,
  &g_framexaxis.hdr, &g_frameyaxis.hdr, &g_framezaxis.hdr, &g_framelinvel.hdr,
  &g_frameangvel.hdr, &g_framelinacc.hdr, &g_frameangacc.hdr, &g_subtreecom.hdr,
  &g_subtreelinvel.hdr, &g_subtreeangmom.hdr, &g_clock.hdr, &g_contact.hdr,
};

static const mcpLibrary g_library =
  MCP_LIBRARY("sensor-standard", (int)(sizeof(g_plugins) / sizeof(g_plugins[0])), g_plugins);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  if (host->abi_major != MCP_ABI_MAJOR || host->precision != MCP_PRECISION) {
    return NULL;
  }
  return &g_library;
}
