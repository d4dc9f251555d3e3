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

int mcc_isBuiltinSensor(const char* name) {
  for (int i = 0; mcc_sensorTable[i].element; i++) {
    if (!strcmp(mcc_sensorTable[i].element, name)) {
      return 1;
    }
  }
  return !strcmp(name, "user") || !strcmp(name, "camprojection") || !strcmp(name, "contact");
}

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

// the instance of the 'sensor-standard' descriptor of a built-in element
static int mcc_standardInstance(mcc* c, const mcxElem* se) {
  const mcpSensor* ps = mcp_findSensorElement(se->name);
  if (!ps) {
    mcc_error(c, se, "sensor <%s> is computed by the 'sensor-standard' plugin, which is not "
              "loaded", se->name);
  }
  return mcc_addInstance(c, &ps->hdr, mcOBJ_SENSOR, c->sensors.n, NULL, se);
}


//---------------------------------- contact sensor ------------------------------------------------

// the data fields of <contact data=...>, in their required order, and their sizes
static const char* const mcc_contactData[7] = {"found", "force", "torque", "dist", "pos",
                                                "normal", "tangent"};
static const int mcc_contactDataSize[7] = {1, 3, 3, 1, 3, 3, 3};

// one matching criterion of a slot (1 or 2): the object of whichever of geomK, bodyK, subtreeK
// (and site, slot 1) is given; none: type mcOBJ_UNKNOWN, id -1
static void mcc_contactMatch(mcc* c, const mcxElem* se, int slot, int* type, int* id) {
  static const char* const keys[2][4] = {{"geom1", "body1", "subtree1", "site"},
                                         {"geom2", "body2", "subtree2", NULL}};
  static const int types[4] = {mcOBJ_GEOM, mcOBJ_BODY, mcOBJ_XBODY, mcOBJ_SITE};
  static const int lookup[4] = {mcOBJ_GEOM, mcOBJ_BODY, mcOBJ_BODY, mcOBJ_SITE};
  *type = mcOBJ_UNKNOWN;
  *id = -1;
  const char* given = NULL;
  for (int k = 0; k < 4 && keys[slot][k]; k++) {
    if (!mcx_attr(se, keys[slot][k])) {
      continue;
    }
    if (given) {
      mcc_error(c, se, "<contact> sensor: attributes '%s' and '%s' are both given; at most one of "
                "%s can be", given, keys[slot][k], slot ? "geom2, body2, subtree2" :
                "geom1, body1, subtree1, site");
    }
    given = keys[slot][k];
    *type = types[k];
    *id = mcc_lookup(c, se, given, lookup[k], 1);
  }
}

// <contact>: contacts matched by geom, body, subtree or site volume, reduced to num slots of the
// fields named in data (MuJoCo 3.x); the plugin instance keeps the data mask, reduction and num
static void mcc_contactSensor(mcc* c, const mcxElem* se, mccSensorObj* s) {
  mcc_checkAttrs(c, se, "name noise cutoff user geom1 geom2 body1 body2 subtree1 subtree2 site "
                 "num data reduce");
  s->type = mcSENS_CONTACT;
  s->needstage = mcSTAGE_ACC;
  s->datatype = mcDATATYPE_REAL;
  mcc_contactMatch(c, se, 0, &s->objtype, &s->objid);
  mcc_contactMatch(c, se, 1, &s->reftype, &s->refid);

  // data: field names, each once, in the documented order (default: found)
  int mask = 0, size = 0, last = -1;
  const char* p = mcx_attr(se, "data");
  while (p && *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
      p++;
    }
    size_t n = strcspn(p, " \t\n\r");
    if (!n) {
      break;
    }
    int f = -1;
    for (int k = 0; k < 7; k++) {
      if (strlen(mcc_contactData[k]) == n && !strncmp(p, mcc_contactData[k], n)) {
        f = k;
      }
    }
    if (f < 0) {
      mcc_error(c, se, "<contact> sensor: unknown data field '%.*s' (fields: found force torque "
                "dist pos normal tangent)", (int)n, p);
    }
    if (f <= last) {
      mcc_error(c, se, "<contact> sensor: data field '%s' %s; fields must be given once each, in "
                "the order found, force, torque, dist, pos, normal, tangent", mcc_contactData[f],
                f == last ? "is repeated" : "is out of order");
    }
    last = f;
    mask |= 1 << f;
    size += mcc_contactDataSize[f];
    p += n;
  }
  if (!mask) {
    mask = 1;
    size = 1;
  }

  int num = 1;
  if (mcc_readInt(c, se, "num", &num) && (num <= 0 || num > MCC_MAXSIZE / size)) {
    mcc_error(c, se, "<contact> sensor: 'num' must be positive and at most %d, got %d",
              MCC_MAXSIZE / size, num);
  }
  int reduce = mcc_readEnum(c, se, "reduce", "none mindist maxforce netforce");
  s->dim = num * size;

  // the plugin reads data mask, reduction and slot count from its instance configuration
  static const char* const reduceName[4] = {"none", "mindist", "maxforce", "netforce"};
  char text[32];
  s->plugin = mcc_standardInstance(c, se);
  snprintf(text, sizeof(text), "%d", mask);
  mcc_configSet(c, s->plugin, "dataspec", text, se);
  snprintf(text, sizeof(text), "%d", num);
  mcc_configSet(c, s->plugin, "num", text, se);
  mcc_configSet(c, s->plugin, "reduce", reduceName[reduce < 0 ? 0 : reduce], se);
}


// attributes the core handles for every plugin sensor (plugins see the others)
static const char* const mcc_coreSensAttr =
  "name class noise cutoff user objtype objname reftype refname";

// a sensor plugin element: the core's attributes, the instance and its configuration; the
// plugin's compile callback runs once the model exists (mcc_finishSensors)
// (inst: an <extension> instance bound to the element, or -1 to make one)
static void mcc_pluginSensor(mcc* c, const mcxElem* e, const mcpSensor* ps, mccSensorObj* s,
                             int inst) {
  char allowed[2048];
  mcc_pluginAllowed(c, e, &ps->hdr, mcc_coreSensAttr, ps->attributes, inst < 0, allowed,
                    sizeof(allowed));
  mcc_checkAttrs(c, e, allowed);
  s->type = mcSENS_PLUGIN;
  s->dim = 0;
  s->needstage = mcSTAGE_ACC;
  s->datatype = mcDATATYPE_REAL;
  s->objtype = mcOBJ_UNKNOWN;
  s->reftype = mcOBJ_UNKNOWN;
  if (mcx_attr(e, "objtype")) {
    s->objtype = mcc_frameObjType(c, e, "objtype");
    s->objid = mcc_objByType(c, e, s->objtype, "objname");
  }
  if (mcx_attr(e, "reftype")) {
    s->reftype = mcc_frameObjType(c, e, "reftype");
    s->refid = mcc_objByType(c, e, s->reftype, "refname");
  }
  s->plugin = inst >= 0 ? inst : mcc_addInstance(c, &ps->hdr, mcOBJ_SENSOR, c->sensors.n, NULL,
                                                  e);
  const char* keys[64];
  const char* vals[64];
  mcc_pluginAttrs(c, e, s->plugin, mcc_coreSensAttr, ps->attributes, 1, keys, vals, 64);
  mcc_configChildren(c, s->plugin, e);
  mcc_configDone(c, s->plugin, e);
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
      s.plugin = mcc_standardInstance(c, se);

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
      s.plugin = mcc_standardInstance(c, se);
    } else if (!strcmp(se->name, "contact")) {
      mcc_contactSensor(c, se, &s);
    } else if (!strcmp(se->name, "plugin")) {
      const mcpHeader* h = NULL;
      int inst = mcc_pluginRef(c, se, mcpKIND_SENSOR, mcOBJ_SENSOR, c->sensors.n, &h);
      mcc_pluginSensor(c, se, (const mcpSensor*)h, &s, inst);
    } else {
      const mcpSensor* ps = mcp_findSensorElement(se->name);
      if (!ps) {
        mcc_error(c, se, "unknown element <%s> in <sensor> (not built in, and no sensor plugin "
                  "provides it)", se->name);
      }
      se = mcc_pluginElem(c, se, mcc_elemClass(c, se, 0));
      s.elem = se;
      mcc_pluginSensor(c, se, ps, &s, -1);
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


// object types a plugin sensor may name (objtype/reftype), with their counts in the model
static int mcc_sensorObjCount(const mcModel* m, int objtype) {
  switch (objtype) {
  case mcOBJ_BODY:
  case mcOBJ_XBODY:    return m->nbody;
  case mcOBJ_JOINT:    return m->njnt;
  case mcOBJ_GEOM:     return m->ngeom;
  case mcOBJ_SITE:     return m->nsite;
  case mcOBJ_CAMERA:   return m->ncam;
  case mcOBJ_TENDON:   return m->ntendon;
  case mcOBJ_ACTUATOR: return m->nu;
  default:             return -1;
  }
}

// a (type, id) pair a plugin returned: none (mcOBJ_UNKNOWN, -1) or an object of the model
static int mcc_sensorObjOk(const mcModel* m, int type, int id) {
  if (type == mcOBJ_UNKNOWN) {
    return id == -1;
  }
  int n = mcc_sensorObjCount(m, type);
  return n >= 0 && id >= 0 && id < n;
}

void mcc_finishSensors(mcc* c, mcModel* m) {
  for (int i = 0; i < m->nsensor; i++) {
    mccSensorObj* s = MCC_AT(c->sensors, mccSensorObj, i);
    if (s->type != mcSENS_PLUGIN || s->plugin < 0) {
      continue;
    }
    const mcpSensor* ps = (const mcpSensor*)m->plugin[s->plugin];
    const mcxElem* e = s->elem;
    const char* keys[64];
    const char* vals[64];
    int n = mcc_pluginAttrs(c, e, s->plugin, mcc_coreSensAttr, ps->attributes, 0, keys, vals,
                            64);
    mcpAttributes attr = {n, keys, vals, e->file, e->line};
    mcpSensorSpec spec;
    memset(&spec, 0, sizeof(spec));
    spec.dim = 1;
    spec.needstage = s->needstage;
    spec.datatype = s->datatype;
    spec.objtype = s->objtype;
    spec.objid = s->objid;
    spec.reftype = s->reftype;
    spec.refid = s->refid;
    char perr[512] = "";
    if (!ps->compile) {
      mcc_error(c, e, "sensor plugin '%s' has no compile callback", ps->hdr.name);
    }
    if (ps->compile(mcp_host(), m, &attr, &spec, perr, sizeof(perr))) {
      mcc_pluginFail(c, e, perr);
    }
    if (spec.dim <= 0) {
      mcc_error(c, e, "sensor plugin '%s' returned dimension %d", ps->hdr.name, spec.dim);
    }
    if (spec.needstage < mcSTAGE_NONE || spec.needstage > mcSTAGE_ACC ||
        spec.datatype < mcDATATYPE_REAL || spec.datatype > mcDATATYPE_QUATERNION) {
      mcc_error(c, e, "sensor plugin '%s' returned stage %d, datatype %d", ps->hdr.name,
                spec.needstage, spec.datatype);
    }
    if (!mcc_sensorObjOk(m, spec.objtype, spec.objid) ||
        !mcc_sensorObjOk(m, spec.reftype, spec.refid)) {
      mcc_error(c, e, "sensor plugin '%s' returned an invalid object (objtype %d, objid %d, "
                "reftype %d, refid %d)", ps->hdr.name, spec.objtype, spec.objid, spec.reftype,
                spec.refid);
    }
    s->dim = spec.dim;
    s->needstage = spec.needstage;
    s->datatype = spec.datatype;
    s->objtype = spec.objtype;
    s->objid = spec.objid;
    s->reftype = spec.reftype;
    s->refid = spec.refid;
  }
}
