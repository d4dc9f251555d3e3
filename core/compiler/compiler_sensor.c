// Moduco core: <sensor>: types, objects, dimensions, stages and sensor plugins.
#include <stdio.h>
#include <string.h>

#include "compiler/compiler.h"
#include "plugin/registry.h"


// one built-in sensor element
typedef struct mccSensorInfo_ {
  const char* element;
  int type;
  const char* objattr;            // attribute naming the object (NULL: none or objtype/objname)
  int objtype;                    // mctObj of that object
  int dim;
  int stage;
  int datatype;
} mccSensorInfo;

#define R mcDATATYPE_REAL
static const mccSensorInfo mcc_sensorTable[] = {
  {"touch",            mcSENS_TOUCH,          "site",     mcOBJ_SITE,     1, mcSTAGE_ACC,
   mcDATATYPE_POSITIVE},
  {"accelerometer",    mcSENS_ACCELEROMETER,  "site",     mcOBJ_SITE,     3, mcSTAGE_ACC, R},
  {"velocimeter",      mcSENS_VELOCIMETER,    "site",     mcOBJ_SITE,     3, mcSTAGE_VEL, R},
  {"gyro",             mcSENS_GYRO,           "site",     mcOBJ_SITE,     3, mcSTAGE_VEL, R},
  {"force",            mcSENS_FORCE,          "site",     mcOBJ_SITE,     3, mcSTAGE_ACC, R},
  {"torque",           mcSENS_TORQUE,         "site",     mcOBJ_SITE,     3, mcSTAGE_ACC, R},
  {"magnetometer",     mcSENS_MAGNETOMETER,   "site",     mcOBJ_SITE,     3, mcSTAGE_POS, R},
  {"rangefinder",      mcSENS_RANGEFINDER,    "site",     mcOBJ_SITE,     1, mcSTAGE_POS,
   mcDATATYPE_POSITIVE},
  {"jointpos",         mcSENS_JOINTPOS,       "joint",    mcOBJ_JOINT,    1, mcSTAGE_POS, R},
  {"jointvel",         mcSENS_JOINTVEL,       "joint",    mcOBJ_JOINT,    1, mcSTAGE_VEL, R},
  {"tendonpos",        mcSENS_TENDONPOS,      "tendon",   mcOBJ_TENDON,   1, mcSTAGE_POS, R},
  {"tendonvel",        mcSENS_TENDONVEL,      "tendon",   mcOBJ_TENDON,   1, mcSTAGE_VEL, R},
  {"actuatorpos",      mcSENS_ACTUATORPOS,    "actuator", mcOBJ_ACTUATOR, 1, mcSTAGE_POS, R},
  {"actuatorvel",      mcSENS_ACTUATORVEL,    "actuator", mcOBJ_ACTUATOR, 1, mcSTAGE_VEL, R},
  {"actuatorfrc",      mcSENS_ACTUATORFRC,    "actuator", mcOBJ_ACTUATOR, 1, mcSTAGE_ACC, R},
  {"jointactuatorfrc", mcSENS_JOINTACTFRC,    "joint",    mcOBJ_JOINT,    1, mcSTAGE_ACC, R},
  {"ballquat",         mcSENS_BALLQUAT,       "joint",    mcOBJ_JOINT,    4, mcSTAGE_POS,
   mcDATATYPE_QUATERNION},
  {"ballangvel",       mcSENS_BALLANGVEL,     "joint",    mcOBJ_JOINT,    3, mcSTAGE_VEL, R},
  {"jointlimitpos",    mcSENS_JOINTLIMITPOS,  "joint",    mcOBJ_JOINT,    1, mcSTAGE_POS, R},
  {"jointlimitvel",    mcSENS_JOINTLIMITVEL,  "joint",    mcOBJ_JOINT,    1, mcSTAGE_VEL, R},
  {"jointlimitfrc",    mcSENS_JOINTLIMITFRC,  "joint",    mcOBJ_JOINT,    1, mcSTAGE_ACC, R},
  {"tendonlimitpos",   mcSENS_TENDONLIMITPOS, "tendon",   mcOBJ_TENDON,   1, mcSTAGE_POS, R},
  {"tendonlimitvel",   mcSENS_TENDONLIMITVEL, "tendon",   mcOBJ_TENDON,   1, mcSTAGE_VEL, R},
  {"tendonlimitfrc",   mcSENS_TENDONLIMITFRC, "tendon",   mcOBJ_TENDON,   1, mcSTAGE_ACC, R},
  {"framepos",         mcSENS_FRAMEPOS,       NULL,       0,              3, mcSTAGE_POS, R},
  {"framequat",        mcSENS_FRAMEQUAT,      NULL,       0,              4, mcSTAGE_POS,
   mcDATATYPE_QUATERNION},
  {"framexaxis",       mcSENS_FRAMEXAXIS,     NULL,       0,              3, mcSTAGE_POS,
   mcDATATYPE_AXIS},
  {"frameyaxis",       mcSENS_FRAMEYAXIS,     NULL,       0,              3, mcSTAGE_POS,
   mcDATATYPE_AXIS},
  {"framezaxis",       mcSENS_FRAMEZAXIS,     NULL,       0,              3, mcSTAGE_POS,
   mcDATATYPE_AXIS},
  {"framelinvel",      mcSENS_FRAMELINVEL,    NULL,       0,              3, mcSTAGE_VEL, R},
  {"frameangvel",      mcSENS_FRAMEANGVEL,    NULL,       0,              3, mcSTAGE_VEL, R},
  {"framelinacc",      mcSENS_FRAMELINACC,    NULL,       0,              3, mcSTAGE_ACC, R},
  {"frameangacc",      mcSENS_FRAMEANGACC,    NULL,       0,              3, mcSTAGE_ACC, R},
  {"subtreecom",       mcSENS_SUBTREECOM,     "body",     mcOBJ_BODY,     3, mcSTAGE_POS, R},
  {"subtreelinvel",    mcSENS_SUBTREELINVEL,  "body",     mcOBJ_BODY,     3, mcSTAGE_VEL, R},
  {"subtreeangmom",    mcSENS_SUBTREEANGMOM,  "body",     mcOBJ_BODY,     3, mcSTAGE_VEL, R},
  {"clock",            mcSENS_CLOCK,          NULL,       0,              1, mcSTAGE_POS, R},
  {NULL, 0, NULL, 0, 0, 0, 0}
};
#undef R

// frame object types of frame sensors
static int mcc_frameObjType(mcc* c, const mcxElem* e, const char* key) {
  int t = mcc_readEnum(c, e, key, "body xbody geom site camera");
  static const int map[5] = {mcOBJ_BODY, mcOBJ_XBODY, mcOBJ_GEOM, mcOBJ_SITE, mcOBJ_CAMERA};
  return t < 0 ? -1 : map[t];
}

// resolve an object by type and the name in attribute key
static int mcc_objByType(mcc* c, const mcxElem* e, int objtype, const char* key) {
  const char* name = mcc_require(c, e, key);
  int id = mcc_findName(c, objtype == mcOBJ_XBODY ? mcOBJ_BODY : objtype, name);
  if (id < 0) {
    mcc_error(c, e, "unknown object '%s' in attribute '%s' of <%s>", name, key, e->name);
  }
  return id;
}

// a sensor plugin element
static void mcc_pluginSensor(mcc* c, const mcxElem* e, const mcpSensor* ps, mccSensorObj* s) {
  char allowed[2048];
  int n = snprintf(allowed, sizeof(allowed), "name noise cutoff user objtype objname reftype "
                   "refname");
  for (int i = 0; ps->attributes && ps->attributes[i]; i++) {
    n += snprintf(allowed + n, sizeof(allowed) - (size_t)(n < (int)sizeof(allowed) ? n : 0), " %s",
                  ps->attributes[i]);
    if (n >= (int)sizeof(allowed)) {
      mcc_error(c, e, "too many attributes declared by sensor plugin '%s'", ps->hdr.name);
    }
  }
  mcc_checkAttrs(c, e, allowed);
  mcpSensorSpec spec;
  memset(&spec, 0, sizeof(spec));
  spec.dim = 1;
  spec.needstage = mcSTAGE_ACC;
  spec.objtype = mcOBJ_UNKNOWN;
  spec.objid = -1;
  spec.reftype = mcOBJ_UNKNOWN;
  spec.refid = -1;
  if (mcx_attr(e, "objtype")) {
    spec.objtype = mcc_frameObjType(c, e, "objtype");
    spec.objid = mcc_objByType(c, e, spec.objtype, "objname");
  }
  if (mcx_attr(e, "reftype")) {
    spec.reftype = mcc_frameObjType(c, e, "reftype");
    spec.refid = mcc_objByType(c, e, spec.reftype, "refname");
  }
  const char* keys[64];
  const char* vals[64];
  int nown = 0;
  for (int i = 0; i < e->nattr && nown < 64; i++) {
    keys[nown] = e->attr[2 * i];
    vals[nown] = e->attr[2 * i + 1];
    nown++;
  }
  mcpAttributes attr = {nown, keys, vals, e->file, e->line};
  char perr[512] = "";
  if (!ps->compile) {
    mcc_error(c, e, "sensor plugin '%s' has no compile callback", ps->hdr.name);
  }
  // first pass while the model is being sized (m == NULL); mcc_finishSensors calls compile
  // again with the finished model
  if (ps->compile(mcp_host(), NULL, &attr, &spec, perr, sizeof(perr))) {
    mcc_error(c, e, "<%s>: %s", e->name, perr[0] ? perr : "plugin compile failed");
  }
  if (spec.dim <= 0) {
    mcc_error(c, e, "sensor plugin '%s' returned dimension %d", ps->hdr.name, spec.dim);
  }
  s->type = mcSENS_PLUGIN;
  s->dim = spec.dim;
  s->needstage = spec.needstage;
  s->datatype = spec.datatype;
  s->objtype = spec.objtype;
  s->objid = spec.objid;
  s->reftype = spec.reftype;
  s->refid = spec.refid;
  s->plugin = mcc_pluginIndex(c, &ps->hdr);
}

void mcc_readSensors(mcc* c, const mcxElem* e) {
  mcc_checkAttrs(c, e, "");
  for (int k = 0; k < e->nchild; k++) {
    const mcxElem* se = e->child[k];
    mccSensorObj s;
    memset(&s, 0, sizeof(s));
    s.elem = se;
    s.plugin = -1;
    s.objid = -1;
    s.refid = -1;

    // find the element
    const mccSensorInfo* info = NULL;
    for (int i = 0; mcc_sensorTable[i].element; i++) {
      if (!strcmp(mcc_sensorTable[i].element, se->name)) {
        info = mcc_sensorTable + i;
        break;
      }
    }

    if (info) {
      s.type = info->type;
      s.dim = info->dim;
      s.needstage = info->stage;
      s.datatype = info->datatype;
      if (info->objattr) {
        char allowed[128];
        snprintf(allowed, sizeof(allowed), "name noise cutoff user %s", info->objattr);
        mcc_checkAttrs(c, se, allowed);
        s.objtype = info->objtype;
        s.objid = mcc_lookup(c, se, info->objattr, info->objtype, 1);
      } else if (info->type == mcSENS_CLOCK) {
        mcc_checkAttrs(c, se, "name noise cutoff user");
      } else {
        // frame sensors: objtype/objname and an optional reference frame
        mcc_checkAttrs(c, se, "name noise cutoff user objtype objname reftype refname");
        s.objtype = mcc_frameObjType(c, se, "objtype");
        if (s.objtype < 0) {
          mcc_error(c, se, "element <%s> requires attribute 'objtype'", se->name);
        }
        s.objid = mcc_objByType(c, se, s.objtype, "objname");
        if (mcx_attr(se, "reftype") || mcx_attr(se, "refname")) {
          s.reftype = mcc_frameObjType(c, se, "reftype");
          if (s.reftype < 0) {
            mcc_error(c, se, "attribute 'refname' requires 'reftype'");
          }
          s.refid = mcc_objByType(c, se, s.reftype, "refname");
        }
      }

      // the standard sensor plugin computes every built-in type
      const mcpSensor* ps = mcp_findSensorElement(se->name);
      if (!ps) {
        mcc_error(c, se, "sensor <%s> is computed by the 'sensor-standard' plugin, which is not "
                  "loaded", se->name);
      }
      s.plugin = mcc_pluginIndex(c, &ps->hdr);

      // joint sensors need the right joint type
      if (s.objtype == mcOBJ_JOINT) {
        int jt = MCC_AT(c->joints, mccJointObj, s.objid)->s.type;
        int ball = s.type == mcSENS_BALLQUAT || s.type == mcSENS_BALLANGVEL;
        int scalar = jt == mcJNT_HINGE || jt == mcJNT_SLIDE;
        if (ball && jt != mcJNT_BALL) {
          mcc_error(c, se, "<%s> requires a ball joint", se->name);
        }
        if (!ball && !scalar && s.type != mcSENS_JOINTLIMITPOS && s.type != mcSENS_JOINTLIMITVEL &&
            s.type != mcSENS_JOINTLIMITFRC) {
          mcc_error(c, se, "<%s> requires a hinge or slide joint", se->name);
        }
      }
    } else if (!strcmp(se->name, "user")) {
      mcc_checkAttrs(c, se, "name noise cutoff user objtype objname datatype needstage dim");
      s.type = mcSENS_USER;
      int ot = mcc_readEnum(c, se, "objtype",
                            "unknown body xbody joint dof geom site camera light mesh skin hfield "
                            "texture material pair exclude equality tendon actuator sensor "
                            "numeric text tuple key plugin");
      s.objtype = ot < 0 ? mcOBJ_UNKNOWN : ot;
      if (s.objtype != mcOBJ_UNKNOWN) {
        s.objid = mcc_objByType(c, se, s.objtype, "objname");
      }
      int dt = mcc_readEnum(c, se, "datatype", "real positive axis quaternion");
      s.datatype = dt < 0 ? mcDATATYPE_REAL : dt;
      int st = mcc_readEnum(c, se, "needstage", "none pos vel acc");
      s.needstage = st < 0 ? mcSTAGE_ACC : st;
      if (!mcc_readInt(c, se, "dim", &s.dim) || s.dim <= 0) {
        mcc_error(c, se, "user sensor requires a positive 'dim'");
      }
    } else if (!strcmp(se->name, "camprojection")) {
      // pixel coordinates of a site seen through a camera (MuJoCo 3.x)
      mcc_checkAttrs(c, se, "name noise cutoff user site camera");
      s.type = mcSENS_CAMPROJECTION;
      s.dim = 2;
      s.needstage = mcSTAGE_POS;
      s.datatype = mcDATATYPE_REAL;
      s.objtype = mcOBJ_SITE;
      s.objid = mcc_lookup(c, se, "site", mcOBJ_SITE, 1);
      s.reftype = mcOBJ_CAMERA;
      s.refid = mcc_lookup(c, se, "camera", mcOBJ_CAMERA, 1);
      const mcpSensor* ps = mcp_findSensorElement(se->name);
      if (!ps) {
        mcc_error(c, se, "sensor <%s> is computed by the 'sensor-standard' plugin, which is not "
                  "loaded", se->name);
      }
      s.plugin = mcc_pluginIndex(c, &ps->hdr);
    } else {
      const mcpSensor* ps = mcp_findSensorElement(se->name);
      if (!ps) {
        mcc_error(c, se, "unknown element <%s> in <sensor> (not built in, and no sensor plugin "
                  "provides it)", se->name);
      }
      mcc_pluginSensor(c, se, ps, &s);
    }

    // common attributes
    mcc_readNum(c, se, "noise", &s.noise);
    mcc_readNum(c, se, "cutoff", &s.cutoff);
    if (s.noise < 0 || s.cutoff < 0) {
      mcc_error(c, se, "noise and cutoff must be nonnegative");
    }
    const char* name = mcx_attr(se, "name");
    if (name && name[0] && mcc_findName(c, mcOBJ_SENSOR, name) >= 0) {
      mcc_error(c, se, "duplicate sensor name '%s'", name);
    }
    s.name = name && name[0] ? name : NULL;
    *(mccSensorObj*)mcc_push(c, &c->sensors) = s;
  }
}


void mcc_finishSensors(mcc* c, mcModel* m) {
  for (int i = 0; i < m->nsensor; i++) {
    const mccSensorObj* s = MCC_AT(c->sensors, mccSensorObj, i);
    if (s->type != mcSENS_PLUGIN || s->plugin < 0) {
      continue;
    }
    const mcpSensor* ps = (const mcpSensor*)m->plugin[s->plugin];
    const mcxElem* e = s->elem;

    // the same attributes and spec as the first pass, now with the model
    const char* keys[64];
    const char* vals[64];
    int n = 0;
    for (int k = 0; k < e->nattr && n < 64; k++, n++) {
      keys[n] = e->attr[2 * k];
      vals[n] = e->attr[2 * k + 1];
    }
    mcpAttributes attr = {n, keys, vals, e->file, e->line};
    mcpSensorSpec spec;
    memset(&spec, 0, sizeof(spec));
    spec.dim = s->dim;
    spec.needstage = s->needstage;
    spec.datatype = s->datatype;
    spec.objtype = s->objtype;
    spec.objid = s->objid;
    spec.reftype = s->reftype;
    spec.refid = s->refid;
    char perr[512] = "";
    if (ps->compile(mcp_host(), m, &attr, &spec, perr, sizeof(perr))) {
      mcc_error(c, e, "<%s>: %s", e->name, perr[0] ? perr : "plugin compile failed");
    }
    if (spec.dim != s->dim) {
      mcc_error(c, e, "sensor plugin '%s' changed its dimension from %d to %d once the model "
                "existed", ps->hdr.name, s->dim, spec.dim);
    }
    m->sensor_needstage[i] = spec.needstage;
    m->sensor_datatype[i] = spec.datatype;
    m->sensor_objtype[i] = spec.objtype;
    m->sensor_objid[i] = spec.objid;
    m->sensor_reftype[i] = spec.reftype;
    m->sensor_refid[i] = spec.refid;
  }
}
