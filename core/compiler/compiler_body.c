// Moduco core: <asset> and <worldbody>: bodies, frames, joints, geoms, sites, inertials.
//
// Bodies are numbered depth-first in document order. Each body's joints, geoms and sites are read
// before its child bodies, so the object arrays come out grouped by body as mcModel needs.
#include <math.h>
#include <string.h>

#include "compiler/compiler.h"
#include "compiler/compiler_mesh.h"

#define MCC_BODY_ATTR                                                                              \
  "name childclass pos quat axisangle xyaxes zaxis euler mocap gravcomp user sleep"
#define MCC_FRAME_ATTR "name childclass pos quat axisangle xyaxes zaxis euler"

//---------------------------------- names ---------------------------------------------------------

// the vector and element layout holding objects of a type (name is the first field)
static mccVec* mcc_objVec(mcc* c, int objtype) {
  switch (objtype) {
  case mcOBJ_BODY:
  case mcOBJ_XBODY:
    return &c->bodies;
  case mcOBJ_JOINT:
    return &c->joints;
  case mcOBJ_GEOM:
    return &c->geoms;
  case mcOBJ_SITE:
    return &c->sites;
  case mcOBJ_CAMERA:
    return &c->cameras;
  case mcOBJ_MESH:
    return &c->meshes;
  case mcOBJ_HFIELD:
    return &c->hfields;
  case mcOBJ_MATERIAL:
    return &c->materials;
  case mcOBJ_TENDON:
    return &c->tendons;
  case mcOBJ_ACTUATOR:
    return &c->actuators;
  case mcOBJ_SENSOR:
    return &c->sensors;
  case mcOBJ_EQUALITY:
    return &c->eqs;
  case mcOBJ_PAIR:
    return &c->pairs;
  case mcOBJ_NUMERIC:
    return &c->numerics;
  case mcOBJ_KEY:
    return &c->keys;
  default:
    return NULL;
  }
}

// human name of an object type
static const char* mcc_objName(int objtype) {
  switch (objtype) {
  case mcOBJ_BODY:
  case mcOBJ_XBODY:
    return "body";
  case mcOBJ_JOINT:
    return "joint";
  case mcOBJ_GEOM:
    return "geom";
  case mcOBJ_SITE:
    return "site";
  case mcOBJ_CAMERA:
    return "camera";
  case mcOBJ_MESH:
    return "mesh";
  case mcOBJ_HFIELD:
    return "hfield";
  case mcOBJ_MATERIAL:
    return "material";
  case mcOBJ_TENDON:
    return "tendon";
  case mcOBJ_ACTUATOR:
    return "actuator";
  case mcOBJ_SENSOR:
    return "sensor";
  case mcOBJ_EQUALITY:
    return "equality";
  case mcOBJ_PAIR:
    return "pair";
  case mcOBJ_NUMERIC:
    return "numeric";
  case mcOBJ_KEY:
    return "key";
  default:
    return "object";
  }
}

int mcc_findName(mcc* c, int objtype, const char* name) {
  mccVec* v = mcc_objVec(c, objtype);
  if (!v || !name || !name[0]) {
    return -1;
  }
  int type = objtype == mcOBJ_XBODY ? mcOBJ_BODY : objtype;  // one vector, one index
  return mcc_nameIndexFind(c, &c->nameindex[type], v, name);
}

int mcc_lookup(mcc* c, const mcxElem* e, const char* key, int objtype, int required) {
  const char* name = mcx_attr(e, key);
  if (!name) {
    if (required) {
      mcc_error(c, e, "element <%s> requires attribute '%s'", e->name, key);
    }
    return -1;
  }
  int id = mcc_findName(c, objtype, name);
  if (id < 0) {
    mcc_error(c, e, "unknown %s '%s' in attribute '%s' of <%s>", mcc_objName(objtype), name, key,
              e->name);
  }
  return id;
}

// check a new object's name against earlier objects of the same type
static const char* mcc_newName(mcc* c, const mcxElem* e, int objtype) {
  const char* name = mcx_attr(e, "name");
  if (name && name[0] && mcc_findName(c, objtype, name) >= 0) {
    mcc_error(c, e, "duplicate %s name '%s'", mcc_objName(objtype), name);
  }
  return name && name[0] ? name : NULL;
}

//---------------------------------- assets --------------------------------------------------------

void mcc_readAsset(mcc* c, const mcxElem* e) {
  mcc_checkAttrs(c, e, "");
  for (int k = 0; k < e->nchild; k++) {
    const mcxElem* ch = e->child[k];
    if (!strcmp(ch->name, "mesh") || !strcmp(ch->name, "hfield")) {
      int type = ch->name[0] == 'm' ? mcOBJ_MESH : mcOBJ_HFIELD;
      const char* name = mcc_newName(c, ch, type);
      // an unnamed mesh takes the file name without folder and extension
      mccNamed* a = (mccNamed*)mcc_push(c, type == mcOBJ_MESH ? &c->meshes : &c->hfields);
      a->elem = ch;
      a->name = name;
      if (!name) {
        const char* file = mcx_attr(ch, "file");
        if (!file) {
          mcc_error(c, ch, "<%s> requires attribute 'name' or 'file'", ch->name);
        }
        const char* base = strrchr(file, '/');
        base = base ? base + 1 : file;
        size_t n = strlen(base);
        const char* dot = strrchr(base, '.');
        if (dot) {
          n = (size_t)(dot - base);
        }
        char* stem = mcc_strndup(c, base, n);
        if (mcc_findName(c, type, stem) >= 0) {
          mcc_error(c, ch, "duplicate %s name '%s'", ch->name, stem);
        }
        a = MCC_AT(*(type == mcOBJ_MESH ? &c->meshes : &c->hfields), mccNamed,
                   (type == mcOBJ_MESH ? c->meshes.n : c->hfields.n) - 1);
        a->name = stem;
      }
    } else if (!strcmp(ch->name, "model")) {
      // a model file for <attach> (compiler_attach.c)
      mcc_checkAttrs(c, ch, "name file content_type");
      mcc_require(c, ch, "name");
      mcc_require(c, ch, "file");
    } else if (!strcmp(ch->name, "material")) {
      mcc_readMaterial(c, ch);
    } else if (!strcmp(ch->name, "texture") || !strcmp(ch->name, "skin")) {
      // visual assets: accepted, no physics meaning
      continue;
    } else {
      mcc_unknownElem(c, ch);
    }
  }
}

//---------------------------------- body contents -------------------------------------------------

// frame transform of the enclosing <frame> elements, relative to the body
typedef struct mccFrame_ {
  mcNum pos[3], quat[4];
} mccFrame;

// apply the frame to a local pose
static void mcc_applyFrame(const mccFrame* f, mcNum pos[3], mcNum quat[4]) {
  mcc_frameMul(pos, quat, f->pos, f->quat, pos, quat);
}

// fromto: pos, quat and the half-length for capsule/cylinder (size[1]) or box/ellipsoid (size[2])
static void mcc_fromto(mcc* c, const mcxElem* e, int type, const mcNum ft[6], mcNum pos[3],
                       mcNum quat[4], mcNum size[3]) {
  // the local z axis points from 'to' towards 'from', as in MuJoCo
  mcNum d[3] = {ft[0] - ft[3], ft[1] - ft[4], ft[2] - ft[5]};
  mcNum len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (len < mcMINVAL) {
    mcc_error(c, e, "fromto of <%s> has zero length", e->name);
  }
  if (type == mcGEOM_CAPSULE || type == mcGEOM_CYLINDER) {
    size[1] = len / 2;
  } else if (type == mcGEOM_BOX || type == mcGEOM_ELLIPSOID) {
    size[2] = len / 2;
  } else {
    mcc_error(c, e, "fromto of <%s> requires type capsule, cylinder, box or ellipsoid", e->name);
  }
  for (int i = 0; i < 3; i++) {
    pos[i] = 0.5 * (ft[i] + ft[i + 3]);
  }
  mcc_quatZ2Vec(quat, d);
}

// check the sizes a geom type needs
static void mcc_checkGeomSize(mcc* c, const mcxElem* e, const mccGeom* g) {
  int need = 0;
  switch (g->type) {
  case mcGEOM_SPHERE:
    need = 1;
    break;
  case mcGEOM_CAPSULE:
  case mcGEOM_CYLINDER:
    need = 2;
    break;
  case mcGEOM_ELLIPSOID:
  case mcGEOM_BOX:
    need = 3;
    break;
  default:
    need = 0;
  }
  for (int i = 0; i < need; i++) {
    if (!(g->size[i] > 0)) {
      mcc_error(c, e, "size %d of <%s> must be positive (got %g)", i, e->name, g->size[i]);
    }
  }
}

// joint-level actuator force: the clamp of qfrc_actuator (actuatorfrclimited follows limited's
// 'auto' rule; MuJoCo applies it to hinge and slide joints only)
static void mcc_jointActuatorForce(mcc* c, const mcxElem* e, mccJoint* s) {
  if (s->actfrclimited == MCC_AUTO) {
    if (mcc_scope(c, e)->autolimits) {
      s->actfrclimited = s->has_actfrcrange ? MCC_TRUE : MCC_FALSE;
    } else if (s->has_actfrcrange) {
      mcc_error(c, e, "joint has an actuatorfrcrange but no 'actuatorfrclimited' attribute and "
                "autolimits is false");
    } else {
      s->actfrclimited = MCC_FALSE;
    }
  }
  if (s->actfrclimited && !(s->actfrcrange[0] <= s->actfrcrange[1])) {
    mcc_error(c, e, "invalid actuatorfrcrange [%g, %g]: range[0] must not exceed range[1]",
              s->actfrcrange[0], s->actfrcrange[1]);
  }
  if (s->type == mcJNT_FREE || s->type == mcJNT_BALL) {
    s->actfrclimited = MCC_FALSE;
  }
}

static void mcc_readJointElem(mcc* c, const mcxElem* e, int body, int cls, const mccFrame* f,
                              int isfree) {
  mccJointObj* j = (mccJointObj*)mcc_push(c, &c->joints);
  int id = c->joints.n - 1;
  j->elem = e;
  j->body = body;
  if (isfree) {
    mcc_checkAttrs(c, e, "name group align");
    // <freejoint> ignores the default classes
    mccClass fresh;
    mcc_defaultClassInit(&fresh);
    j->s = fresh.joint;
    j->s.type = mcJNT_FREE;
    mcc_readInt(c, e, "group", &j->s.group);
    int align = mcc_readBool(c, e, "align");
    j->align = align >= 0 ? align : mcc_scope(c, e)->alignfree;
    j->s.limited = MCC_FALSE;
    j->s.has_range = 0;
  } else {
    j->s = MCC_AT(c->classes, mccClass, mcc_elemClass(c, e, cls))->joint;
    mcc_readJoint(c, e, &j->s, 0);
  }
  j->name = NULL;
  const char* name = mcc_newName(c, e, mcOBJ_JOINT);
  j = MCC_AT(c->joints, mccJointObj, id);
  j->name = name;

  // axis and frame
  if (!mcc_normalize3(j->s.axis)) {
    mcc_error(c, e, "axis of zero length in <%s>", e->name);
  }
  mcNum q[4] = {1, 0, 0, 0};
  mcc_applyFrame(f, j->s.pos, q);
  mcc_rotVecQuat(j->s.axis, j->s.axis, f->quat);

  // free joints only on bodies attached to the world
  if (j->s.type == mcJNT_FREE && MCC_AT(c->bodies, mccBody, body)->parent != 0) {
    mcc_error(c, e, "free joint can only be used on a top-level body (child of the worldbody)");
  }

  // angular units
  if (j->s.type == mcJNT_HINGE) {
    j->s.range[0] = mcc_angle(c, e, j->s.range[0]);
    j->s.range[1] = mcc_angle(c, e, j->s.range[1]);
    j->s.ref = mcc_angle(c, e, j->s.ref);
    j->s.springref = mcc_angle(c, e, j->s.springref);
  } else if (j->s.type == mcJNT_BALL) {
    j->s.range[0] = mcc_angle(c, e, j->s.range[0]);
    j->s.range[1] = mcc_angle(c, e, j->s.range[1]);
  }

  // limits: autolimits makes 'auto' follow the presence of a range
  if (j->s.limited == MCC_AUTO) {
    if (mcc_scope(c, e)->autolimits) {
      j->s.limited = j->s.has_range ? MCC_TRUE : MCC_FALSE;
    } else if (j->s.has_range && j->s.type != mcJNT_FREE) {
      mcc_error(c, e, "joint has a range but no 'limited' attribute and autolimits is false");
    } else {
      j->s.limited = MCC_FALSE;
    }
  }
  if (j->s.limited && j->s.type == mcJNT_FREE) {
    mcc_error(c, e, "free joints cannot be limited");
  }
  if (j->s.limited && j->s.type != mcJNT_BALL && !(j->s.range[0] < j->s.range[1])) {
    const char* written = mcx_attr(e, "range");  // else from a default class, in radians
    if (written) {
      mcc_error(c, e, "invalid joint range '%s': range[0] must be smaller than range[1]",
                written);
    }
    mcc_error(c, e, "invalid joint range [%g, %g] (from the default class, in radians): range[0] "
              "must be smaller than range[1]", j->s.range[0], j->s.range[1]);
  }
  mcc_jointActuatorForce(c, e, &j->s);
}

static void mcc_readGeomElem(mcc* c, const mcxElem* e, int body, int cls, const mccFrame* f) {
  mccGeomObj* g = (mccGeomObj*)mcc_push(c, &c->geoms);
  int id = c->geoms.n - 1;
  g->elem = e;
  g->body = body;
  g->meshid = -1;
  g->matid = -1;
  g->s = MCC_AT(c->classes, mccClass, mcc_elemClass(c, e, cls))->geom;
  mcc_readGeom(c, e, &g->s, 0);
  const char* name = mcc_newName(c, e, mcOBJ_GEOM);
  g = MCC_AT(c->geoms, mccGeomObj, id);
  g->name = name;

  // fromto replaces pos and orientation
  if (g->s.has_fromto) {
    mcc_fromto(c, e, g->s.type, g->s.fromto, g->s.pos, g->s.quat, g->s.size);
  }
  if (!mcc_normalize4(g->s.quat)) {
    mcc_error(c, e, "zero quaternion in <%s> cannot be normalized", e->name);
  }
  mcc_applyFrame(f, g->s.pos, g->s.quat);
  int primitive = g->s.type == mcGEOM_SPHERE || g->s.type == mcGEOM_CAPSULE ||
                  g->s.type == mcGEOM_CYLINDER || g->s.type == mcGEOM_ELLIPSOID ||
                  g->s.type == mcGEOM_BOX;
  g->fitmesh = primitive && g->s.mesh;  // sized from the mesh (compiler_mesh.c)
  if (!g->fitmesh) {
    mcc_checkGeomSize(c, e, &g->s);
  }

  // mesh and height field references
  if (g->s.type == mcGEOM_MESH || g->fitmesh) {
    if (!g->s.mesh) {
      mcc_error(c, e, "mesh geom requires attribute 'mesh'");
    }
    g->meshid = mcc_findName(c, mcOBJ_MESH, g->s.mesh);
    if (g->meshid < 0) {
      mcc_error(c, e, "unknown mesh '%s' in attribute 'mesh' of <geom>", g->s.mesh);
    }
  } else if (g->s.type == mcGEOM_HFIELD) {
    if (!g->s.hfield) {
      mcc_error(c, e, "hfield geom requires attribute 'hfield'");
    }
    g->meshid = mcc_findName(c, mcOBJ_HFIELD, g->s.hfield);
    if (g->meshid < 0) {
      mcc_error(c, e, "unknown hfield '%s' in attribute 'hfield' of <geom>", g->s.hfield);
    }
  } else if (g->s.mesh && mcx_attr(e, "mesh")) {
    mcc_error(c, e, "attribute 'mesh' requires type=\"mesh\"");
  }
  g->matid = mcc_geomMaterial(c, e, g->s.material);
}

static void mcc_readSiteElem(mcc* c, const mcxElem* e, int body, int cls, const mccFrame* f) {
  mccSiteObj* s = (mccSiteObj*)mcc_push(c, &c->sites);
  int id = c->sites.n - 1;
  s->elem = e;
  s->body = body;
  s->s = MCC_AT(c->classes, mccClass, mcc_elemClass(c, e, cls))->site;
  mcc_readSite(c, e, &s->s, 0);
  const char* name = mcc_newName(c, e, mcOBJ_SITE);
  s = MCC_AT(c->sites, mccSiteObj, id);
  s->name = name;
  if (s->s.has_fromto) {
    mcc_fromto(c, e, s->s.type, s->s.fromto, s->s.pos, s->s.quat, s->s.size);
  }
  if (!mcc_normalize4(s->s.quat)) {
    mcc_error(c, e, "zero quaternion in <%s> cannot be normalized", e->name);
  }
  mcc_applyFrame(f, s->s.pos, s->s.quat);
}

static void mcc_readInertial(mcc* c, const mcxElem* e, int body) {
  mcc_checkAttrs(c, e, "pos quat axisangle xyaxes zaxis euler mass diaginertia fullinertia");
  mccBody* b = MCC_AT(c->bodies, mccBody, body);
  if (b->has_inertial) {
    mcc_error(c, e, "body has more than one <inertial>");
  }
  b->has_inertial = 1;
  b->iquat[0] = 1;
  mcc_readNums(c, e, "pos", b->ipos, 3, 3);
  mcc_readOrient(c, e, b->iquat);
  mcNum mass;
  if (!mcc_readNum(c, e, "mass", &mass)) {
    mcc_error(c, e, "<inertial> requires attribute 'mass'");
  }
  mcc_checkSign(c, e, "mass", &mass, 1, 0);
  b->mass = mass;
  int has_diag = mcx_attr(e, "diaginertia") != NULL;
  int has_full = mcx_attr(e, "fullinertia") != NULL;
  if (has_diag && has_full) {
    mcc_error(c, e, "<inertial> cannot have both 'diaginertia' and 'fullinertia'");
  }
  if (!has_diag && !has_full) {
    mcc_error(c, e, "<inertial> requires attribute 'diaginertia' or 'fullinertia'");
  }
  if (has_diag) {
    mcc_readNums(c, e, "diaginertia", b->inertia, 3, 3);
    mcc_checkSign(c, e, "diaginertia", b->inertia, 3, 0);
    return;
  }

  // full inertia (ixx iyy izz ixy ixz iyz): diagonalize, compose the principal frame
  if (mcx_attr(e, "quat") || mcx_attr(e, "axisangle") || mcx_attr(e, "euler") ||
      mcx_attr(e, "xyaxes") || mcx_attr(e, "zaxis")) {
    mcc_error(c, e, "<inertial> cannot combine 'fullinertia' with an orientation");
  }
  mcNum fi[6], mat[9], eq[4];
  mcc_readNums(c, e, "fullinertia", fi, 6, 6);
  mat[0] = fi[0];
  mat[4] = fi[1];
  mat[8] = fi[2];
  mat[1] = mat[3] = fi[3];
  mat[2] = mat[6] = fi[4];
  mat[5] = mat[7] = fi[5];
  mcc_eig3(b->inertia, eq, mat, MCC_EIG_BODY);
  if (b->inertia[2] < 0) {
    mcc_error(c, e, "fullinertia is not positive semi-definite (eigenvalue %g)", b->inertia[2]);
  }
  memcpy(b->iquat, eq, sizeof(eq));
  b->has_full = 1;
}

static void mcc_readBody(mcc* c, const mcxElem* e, int parent, int cls, const mccFrame* f);

// read the children of a body (or frame); pass 0: own objects, pass 1: child bodies
static void mcc_readContents(mcc* c, const mcxElem* e, int body, int cls, const mccFrame* f,
                             int pass) {
  for (int k = 0; k < e->nchild; k++) {
    const mcxElem* ch = e->child[k];
    const char* n = ch->name;
    if (!strcmp(n, "frame")) {
      // compose the frame and recurse in the same pass
      mcc_checkAttrs(c, ch, MCC_FRAME_ATTR);
      mccFrame g;
      memset(&g, 0, sizeof(g));
      g.quat[0] = 1;
      mcc_readNums(c, ch, "pos", g.pos, 3, 3);
      mcc_readOrient(c, ch, g.quat);
      mcc_applyFrame(f, g.pos, g.quat);
      const char* cc = mcx_attr(ch, "childclass");
      int fcls = cc ? mcc_findClass(c, ch, cc) : cls;
      mcc_readContents(c, ch, body, fcls, &g, pass);
    } else if (!strcmp(n, "body")) {
      if (pass == 1) {
        mcc_readBody(c, ch, body, cls, f);
      }
    } else if (pass == 1) {
      continue;
    } else if (!strcmp(n, "joint") || !strcmp(n, "freejoint")) {
      if (body == 0) {
        mcc_error(c, ch, "<%s> is not allowed in <worldbody>", n);
      }
      mcc_readJointElem(c, ch, body, cls, f, n[0] == 'f');
    } else if (!strcmp(n, "geom")) {
      mcc_readGeomElem(c, ch, body, cls, f);
    } else if (!strcmp(n, "site")) {
      mcc_readSiteElem(c, ch, body, cls, f);
    } else if (!strcmp(n, "inertial")) {
      if (body == 0 || strcmp(e->name, "body")) {
        mcc_error(c, ch, "<inertial> is only allowed directly in a <body>");
      }
      mcc_readInertial(c, ch, body);
    } else if (!strcmp(n, "camera")) {
      mcc_readCameraElem(c, ch, body, cls, f->pos, f->quat);
    } else if (!strcmp(n, "light")) {
      // rendering only: accepted and ignored
      continue;
    } else if (!strcmp(n, "composite") || !strcmp(n, "flexcomp")) {
      mcc_error(c, ch, "%s", mcc_deformableMsg(n));
    } else if (!strcmp(n, "attach")) {
      mcc_error(c, ch, "<attach> is only allowed in <worldbody>, <body> and <frame>");
    } else if (!strcmp(n, "replicate") || !strcmp(n, "plugin")) {
      mcc_error(c, ch, "not supported yet: <%s>", n);
    } else {
      mcc_unknownElem(c, ch);
    }
  }
}

static void mcc_readBody(mcc* c, const mcxElem* e, int parent, int cls, const mccFrame* f) {
  mcc_checkAttrs(c, e, MCC_BODY_ATTR);
  mccBody* b = (mccBody*)mcc_push(c, &c->bodies);
  int id = c->bodies.n - 1;
  b->elem = e;
  b->parent = parent;
  b->quat[0] = 1;
  b->iquat[0] = 1;
  mcc_readNums(c, e, "pos", b->pos, 3, 3);
  mcc_readOrient(c, e, b->quat);
  mcc_applyFrame(f, b->pos, b->quat);
  int mocap = mcc_readBool(c, e, "mocap");
  b->mocap = mocap > 0;
  mcc_readNum(c, e, "gravcomp", &b->gravcomp);
  int sleep = mcc_readEnum(c, e, "sleep", "auto never allowed init");
  b->sleep = sleep > 0 ? sleep : mcSLEEP_AUTO;
  const char* name = mcc_newName(c, e, mcOBJ_BODY);
  b = MCC_AT(c->bodies, mccBody, id);
  b->name = name;
  if (b->mocap && parent != 0) {
    mcc_error(c, e, "mocap body must be a child of the worldbody");
  }

  // childclass applies to everything below
  const char* cc = mcx_attr(e, "childclass");
  int bcls = cc ? mcc_findClass(c, e, cc) : cls;
  mccFrame id_frame;
  memset(&id_frame, 0, sizeof(id_frame));
  id_frame.quat[0] = 1;
  mcc_readContents(c, e, id, bcls, &id_frame, 0);
  mcc_readContents(c, e, id, bcls, &id_frame, 1);

  // mocap bodies cannot move through joints
  b = MCC_AT(c->bodies, mccBody, id);
  if (b->mocap) {
    for (int i = 0; i < c->joints.n; i++) {
      if (MCC_AT(c->joints, mccJointObj, i)->body == id) {
        mcc_error(c, e, "mocap body cannot have joints");
      }
    }
  }
}

void mcc_readWorldbody(mcc* c, const mcxElem* root) {
  // every <worldbody> section: the world's own objects first, then the bodies
  mccFrame f;
  memset(&f, 0, sizeof(f));
  f.quat[0] = 1;
  for (int pass = 0; pass < 2; pass++) {
    for (int k = 0; k < root->nchild; k++) {
      const mcxElem* e = root->child[k];
      if (strcmp(e->name, "worldbody")) {
        continue;
      }
      mcc_checkAttrs(c, e, "childclass");
      const char* cc = mcx_attr(e, "childclass");
      int cls = cc ? mcc_findClass(c, e, cc) : 0;
      mcc_readContents(c, e, 0, cls, &f, pass);
    }
  }
}
