// Moduco core: <camera> in bodies and defaults, the model's cam_* fields, and the camera constants
// at qpos0 (cam_pos0, cam_poscom0, cam_mat0).
//
// Cameras are numbered in body order like sites. Rendering-only parameters are stored because
// the camprojection sensor reads them. Focal length, principal point and sensor size are floats
// (MuJoCo's types); pixel values are converted in float arithmetic, which carries MuJoCo's
// rounding (checked against 3.3.8 in tests/sensor/test_camera.c).
#include <math.h>
#include <string.h>

#include "compiler/compiler.h"
#include "engine/engine.h"

#define MCC_CAMERA_COMMON                                                                          \
  "mode pos quat axisangle xyaxes zaxis euler projection orthographic fovy ipd resolution focal " \
  "focalpixel principal principalpixel sensorsize user"

//---------------------------------- reading -------------------------------------------------------

void mcc_cameraDefault(mccCamera* s) {
  memset(s, 0, sizeof(*s));
  s->quat[0] = 1;
  s->fovy = 45;
  s->ipd = 0.068;
  s->resolution[0] = s->resolution[1] = 1;
}


// read a pair of numbers; remember that it was given
static void mcc_readPair2(mcc* c, const mcxElem* e, const char* key, mcNum out[2], int* given) {
  if (mcc_readNums(c, e, key, out, 2, 2)) {
    *given = 1;
  }
}


void mcc_readCamera(mcc* c, const mcxElem* e, mccCamera* s, int in_default) {
  mcc_checkAttrs(c, e, in_default ? MCC_CAMERA_COMMON : "name class target " MCC_CAMERA_COMMON);
  int mode = mcc_readEnum(c, e, "mode", "fixed track trackcom targetbody targetbodycom");
  if (mode >= 0) {
    s->mode = mode;
  }
  if (!in_default) {
    s->target = mcx_attr(e, "target");
  }
  mcc_readNums(c, e, "pos", s->pos, 3, 3);
  mcc_readOrient(c, e, s->quat);
  // projection="perspective|orthographic" (MuJoCo 3.14); orthographic="false|true" (3.3.8, which
  // 3.14 refuses) is still read, one of the two per element
  if (mcx_attr(e, "projection") && mcx_attr(e, "orthographic")) {
    mcc_error(c, e, "camera: give either projection or orthographic (MuJoCo 3.3.8's name for "
              "it), not both");
  }
  int ortho = mcc_readEnum(c, e, "projection", "perspective orthographic");
  if (ortho < 0) {
    ortho = mcc_readBool(c, e, "orthographic");
  }
  if (ortho >= 0) {
    s->orthographic = ortho;
  }
  if (mcc_readNum(c, e, "fovy", &s->fovy)) {
    s->has_fovy = 1;
  }
  mcc_readNum(c, e, "ipd", &s->ipd);

  // resolution: two positive integers
  mcNum res[2];
  if (mcc_readNums(c, e, "resolution", res, 2, 2)) {
    for (int k = 0; k < 2; k++) {
      if (!(res[k] >= 1) || res[k] != floor(res[k]) || res[k] > 1e9) {
        mcc_error(c, e, "camera resolution must be two positive integers (got %g %g)", res[0],
                  res[1]);
      }
      s->resolution[k] = (int)res[k];
    }
    s->has_resolution = 1;
  }

  // physical sensor: size, focal length and principal point (lengths or pixels)
  mcc_readPair2(c, e, "sensorsize", s->sensorsize, &s->has_sensorsize);
  mcc_readPair2(c, e, "focal", s->focal, &s->has_focal);
  mcc_readPair2(c, e, "focalpixel", s->focalpixel, &s->has_focalpixel);
  mcc_readPair2(c, e, "principal", s->principal, &s->has_principal);
  mcc_readPair2(c, e, "principalpixel", s->principalpixel, &s->has_principalpixel);
  for (int k = 0; k < 2; k++) {
    if (s->sensorsize[k] < 0 || s->focal[k] < 0 || s->focalpixel[k] < 0) {
      mcc_error(c, e, "camera sensorsize, focal and focalpixel must be nonnegative");
    }
  }
}


void mcc_readCameraElem(mcc* c, const mcxElem* e, int body, int cls, const mcNum fpos[3],
                        const mcNum fquat[4]) {
  mccCameraObj* o = (mccCameraObj*)mcc_push(c, &c->cameras);
  int id = c->cameras.n - 1;
  o->elem = e;
  o->body = body;
  o->s = MCC_AT(c->classes, mccClass, mcc_elemClass(c, e, cls))->camera;
  mcc_readCamera(c, e, &o->s, 0);
  const char* name = mcx_attr(e, "name");
  if (name && name[0] && mcc_findName(c, mcOBJ_CAMERA, name) >= 0) {
    mcc_error(c, e, "duplicate camera name '%s'", name);
  }
  o = MCC_AT(c->cameras, mccCameraObj, id);
  o->name = name && name[0] ? name : NULL;
  mccCamera* s = &o->s;

  // consistency of the sensor parameters (MuJoCo 3.x rules)
  int intrinsic = s->has_focal || s->has_focalpixel || s->has_principal || s->has_principalpixel;
  if (intrinsic && !s->has_sensorsize) {
    mcc_error(c, e, "camera 'focal', 'focalpixel', 'principal' and 'principalpixel' require "
              "'sensorsize'");
  }
  if (s->has_sensorsize && !s->has_resolution) {
    mcc_error(c, e, "camera 'sensorsize' requires 'resolution'");
  }
  if (s->has_sensorsize && s->has_fovy) {
    mcc_error(c, e, "camera 'fovy' cannot be combined with 'sensorsize' (the field of view "
              "follows from the sensor size and focal length)");
  }
  if (s->fovy >= 180) {
    mcc_error(c, e, "camera fovy must be less than 180 degrees (got %g)", s->fovy);
  }
  // a targeting mode without a target keeps the camera fixed, as in MuJoCo

  // pose in the body frame
  mcc_frameMul(s->pos, s->quat, fpos, fquat, s->pos, s->quat);
}

//---------------------------------- model fields --------------------------------------------------

void mcc_fillCameras(mcc* c, mcModel* m) {
  for (int i = 0; i < m->ncam; i++) {
    const mccCameraObj* o = MCC_AT(c->cameras, mccCameraObj, i);
    const mccCamera* s = &o->s;

    // target body: any body but the camera's own
    int target = -1;
    if (s->target) {
      target = mcc_findName(c, mcOBJ_BODY, s->target);
      if (target < 0) {
        mcc_error(c, o->elem, "unknown target body '%s' in attribute 'target' of <camera>",
                  s->target);
      }
      if (target == o->body) {
        mcc_error(c, o->elem, "camera cannot target its own body '%s'", s->target);
      }
    }
    m->cam_mode[i] = s->mode;
    m->cam_bodyid[i] = o->body;
    m->cam_targetbodyid[i] = target;
    memcpy(m->cam_pos + 3 * i, s->pos, sizeof(s->pos));
    memcpy(m->cam_quat + 4 * i, s->quat, sizeof(s->quat));
    m->cam_orthographic[i] = s->orthographic;
    m->cam_fovy[i] = s->fovy;
    m->cam_ipd[i] = s->ipd;
    m->cam_resolution[2 * i] = s->resolution[0];
    m->cam_resolution[2 * i + 1] = s->resolution[1];
    m->cam_sensorsize[2 * i] = (float)s->sensorsize[0];
    m->cam_sensorsize[2 * i + 1] = (float)s->sensorsize[1];

    // intrinsics: focal length and principal point in length units; pixel values are divided by
    // the pixels per unit length (resolution / sensorsize); with a sensor, fovy follows from
    // the stored floats (the arctangent in float)
    float* in = m->cam_intrinsic + 4 * i;
    const float* ssf = m->cam_sensorsize + 2 * i;
    in[0] = in[1] = 0.01f;
    in[2] = in[3] = 0;
    if (s->has_sensorsize && ssf[0] > 0 && ssf[1] > 0) {
      for (int k = 0; k < 2; k++) {
        float perlen = (float)s->resolution[k] / ssf[k];
        in[k] = s->has_focalpixel ? (float)s->focalpixel[k] / perlen
                                  : (float)(s->has_focal ? s->focal[k] : 0);
        in[2 + k] = s->has_principalpixel ? (float)s->principalpixel[k] / perlen
                                          : (float)(s->has_principal ? s->principal[k] : 0);
      }
      float half = atanf(ssf[1] / 2 / in[1]);
      m->cam_fovy[i] = 2 * (mcNum)half * 180 / mcPI;
    }
  }
}

//---------------------------------- constants at qpos0 --------------------------------------------

int mcc_cameraConst(mcc* c, mcModel* m) {
  (void)c;
  if (!m->ncam) {
    return 0;
  }
  mcData* d = mc_makeData(m);
  if (!d) {
    return -1;
  }
  mc_kinematics(m, d);
  mc_comPos(m, d);

  // the fixed pose at qpos0 relative to the body and to the subtree com (the target's, if any)
  for (int i = 0; i < m->ncam; i++) {
    int b = m->cam_bodyid[i], t = m->cam_targetbodyid[i];
    mcNum xpos[3], q[4];
    mcc_mjMulQuat(q, d->xquat + 4 * b, m->cam_quat + 4 * i);
    mcNum mat[9];
    mcc_mjQuat2Mat(mat, q);
    const mcNum* bmat = d->xmat + 9 * b;
    const mcNum* lp = m->cam_pos + 3 * i;
    for (int k = 0; k < 3; k++) {
      xpos[k] = d->xpos[3 * b + k] + bmat[3 * k] * lp[0] + bmat[3 * k + 1] * lp[1] +
                bmat[3 * k + 2] * lp[2];
    }
    const mcNum* com = d->subtree_com + 3 * (t >= 0 ? t : b);
    for (int k = 0; k < 3; k++) {
      m->cam_pos0[3 * i + k] = xpos[k] - d->xpos[3 * b + k];
      m->cam_poscom0[3 * i + k] = xpos[k] - com[k];
    }
    memcpy(m->cam_mat0 + 9 * i, mat, sizeof(mat));
  }
  mc_deleteData(d);
  return 0;
}
