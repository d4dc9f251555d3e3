// Moduco core: <tendon>, <equality>, <contact>, <custom> and <keyframe>.
#include <math.h>
#include <string.h>

#include "compiler/compiler.h"

// class of a top-level element (no childclass inheritance outside the body tree)
static mccClass* mcc_topClass(mcc* c, const mcxElem* e) {
  return MCC_AT(c->classes, mccClass, mcc_elemClass(c, e, 0));
}

// check a new object's name against earlier objects of the same type
static const char* mcc_uniqueName(mcc* c, const mcxElem* e, int objtype, const char* what) {
  const char* name = mcx_attr(e, "name");
  if (name && name[0] && mcc_findName(c, objtype, name) >= 0) {
    mcc_error(c, e, "duplicate %s name '%s'", what, name);
  }
  return name && name[0] ? name : NULL;
}

// resolve 'limited' against a range and the compiler's autolimits
static int mcc_resolveLimited(mcc* c, const mcxElem* e, int limited, int has_range,
                              const char* what) {
  if (limited != MCC_AUTO) {
    return limited;
  }
  if (mcc_scope(c, e)->autolimits) {
    return has_range;
  }
  if (has_range) {
    mcc_error(c, e, "%s has a range but no 'limited' attribute and autolimits is false", what);
  }
  return 0;
}

//---------------------------------- tendons -------------------------------------------------------


void mcc_readTendons(mcc* c, const mcxElem* e) {
  mcc_checkAttrs(c, e, "");
  for (int k = 0; k < e->nchild; k++) {
    const mcxElem* te = e->child[k];
    int spatial = !strcmp(te->name, "spatial");
    if (!spatial && strcmp(te->name, "fixed")) {
      mcc_unknownElem(c, te);
    }
    mccTendon s = mcc_topClass(c, te)->tendon;
    mcc_readTendon(c, te, &s, 0);
    const char* name = mcc_uniqueName(c, te, mcOBJ_TENDON, "tendon");
    mccTendonObj* t = (mccTendonObj*)mcc_push(c, &c->tendons);
    int id = c->tendons.n - 1;
    t->name = name;
    t->elem = te;
    t->s = s;
    t->spatial = spatial;
    t->wrapadr = c->wraps.n;
    t->s.limited = mcc_resolveLimited(c, te, s.limited, s.has_range, "tendon");
    // actuator-force clamp: 'auto' limits only a proper range (MuJoCo 3.14 leaves [0 0] or an
    // inverted range unlimited); a limited range must hold 0
    if (s.actfrclimited == MCC_AUTO && mcc_scope(c, te)->autolimits) {
      t->s.actfrclimited = s.actfrcrange[0] < s.actfrcrange[1];
    } else {
      t->s.actfrclimited = mcc_resolveLimited(c, te, s.actfrclimited, s.has_actfrcrange,
                                              "tendon actuatorfrc");
    }
    if (t->s.actfrclimited && !(s.actfrcrange[0] < s.actfrcrange[1] && s.actfrcrange[0] <= 0 &&
                                s.actfrcrange[1] >= 0)) {
      mcc_error(c, te, "invalid tendon actuatorfrcrange [%g, %g]: range[0] < range[1] and the "
                "range must contain 0", s.actfrcrange[0], s.actfrcrange[1]);
    }
    if (t->s.limited && !(t->s.range[0] < t->s.range[1])) {
      mcc_error(c, te, "invalid tendon range [%g, %g]: range[0] must be smaller than range[1]",
                t->s.range[0], t->s.range[1]);
    }
    if (!(t->s.armature >= 0) || !isfinite(t->s.armature)) {
      mcc_error(c, te, "tendon armature must be finite and non-negative (got %g)", t->s.armature);
    }

    // path
    int nsite = 0;
    for (int i = 0; i < te->nchild; i++) {
      const mcxElem* we = te->child[i];
      mccWrap w = {mcWRAP_NONE, -1, 0};
      if (!spatial) {
        if (strcmp(we->name, "joint")) {
          mcc_unknownElem(c, we);
        }
        mcc_checkAttrs(c, we, "joint coef");
        w.type = mcWRAP_JOINT;
        w.objid = mcc_lookup(c, we, "joint", mcOBJ_JOINT, 1);
        int jt = MCC_AT(c->joints, mccJointObj, w.objid)->s.type;
        if (jt != mcJNT_HINGE && jt != mcJNT_SLIDE) {
          mcc_error(c, we, "fixed tendon joint '%s' must be a hinge or slide joint",
                    mcx_attr(we, "joint"));
        }
        w.prm = 1;
        mcc_readNum(c, we, "coef", &w.prm);
      } else if (!strcmp(we->name, "site")) {
        mcc_checkAttrs(c, we, "site");
        w.type = mcWRAP_SITE;
        w.objid = mcc_lookup(c, we, "site", mcOBJ_SITE, 1);
        nsite++;
      } else if (!strcmp(we->name, "geom")) {
        mcc_checkAttrs(c, we, "geom sidesite");
        w.objid = mcc_lookup(c, we, "geom", mcOBJ_GEOM, 1);
        int gt = MCC_AT(c->geoms, mccGeomObj, w.objid)->s.type;
        if (gt != mcGEOM_SPHERE && gt != mcGEOM_CYLINDER) {
          mcc_error(c, we, "wrapping geom '%s' must be a sphere or cylinder", mcx_attr(we, "geom"));
        }
        w.type = gt == mcGEOM_SPHERE ? mcWRAP_SPHERE : mcWRAP_CYLINDER;
        w.prm = mcc_lookup(c, we, "sidesite", mcOBJ_SITE, 0);
      } else if (!strcmp(we->name, "pulley")) {
        mcc_checkAttrs(c, we, "divisor");
        w.type = mcWRAP_PULLEY;
        w.prm = 1;
        mcc_readNum(c, we, "divisor", &w.prm);
        if (!(w.prm > 0)) {
          mcc_error(c, we, "pulley divisor must be positive");
        }
      } else {
        mcc_unknownElem(c, we);
      }
      *(mccWrap*)mcc_push(c, &c->wraps) = w;
    }
    t = MCC_AT(c->tendons, mccTendonObj, id);
    t->wrapnum = c->wraps.n - t->wrapadr;
    if (t->wrapnum == 0) {
      mcc_error(c, te, "tendon has an empty path");
    }
    if (spatial && t->s.armature > 0) {
      // as in MuJoCo 3.3.8: the armature bias needs dJ/dt, defined here for straight segments only
      for (int i = 0; i < t->wrapnum; i++) {
        int wt = MCC_AT(c->wraps, mccWrap, t->wrapadr + i)->type;
        if (wt == mcWRAP_SPHERE || wt == mcWRAP_CYLINDER) {
          mcc_error(c, te, "tendon armature is not supported on a spatial tendon that wraps "
                    "around geoms");
          break;
        }
      }
    }
    if (spatial) {
      const mccWrap* first = MCC_AT(c->wraps, mccWrap, t->wrapadr);
      const mccWrap* last = MCC_AT(c->wraps, mccWrap, t->wrapadr + t->wrapnum - 1);
      if (nsite < 2 || first->type != mcWRAP_SITE || last->type != mcWRAP_SITE) {
        mcc_error(c, te, "spatial tendon path must start and end with a site");
      }
    }
  }
}

//---------------------------------- equality ------------------------------------------------------

// world pose of body b in the default configuration (qpos0 leaves every joint at its reference)
static void mcc_bodyWorld(mcc* c, int b, mcNum pos[3], mcNum quat[4]) {
  pos[0] = pos[1] = pos[2] = 0;
  quat[0] = 1;
  quat[1] = quat[2] = quat[3] = 0;
  while (b > 0) {
    const mccBody* body = MCC_AT(c->bodies, mccBody, b);
    mcc_frameMul(pos, quat, body->pos, body->quat, pos, quat);
    b = body->parent;
  }
}

// <connect site1 site2> (MuJoCo 3): the two sites held together; stored as a body connect whose
// anchors are the sites' positions in their bodies
static void mcc_connectSites(mcc* c, const mcxElem* ee, mccEqObj* eq) {
  if (mcx_attr(ee, "body1") || mcx_attr(ee, "body2") || mcx_attr(ee, "anchor")) {
    mcc_error(c, ee, "<connect> takes either body1 (body2) and anchor, or site1 and site2");
  }
  const mccSiteObj* s[2];
  for (int k = 0; k < 2; k++) {
    int id = mcc_lookup(c, ee, k ? "site2" : "site1", mcOBJ_SITE, 1);
    s[k] = MCC_AT(c->sites, mccSiteObj, id);
  }
  eq->obj1 = s[0]->body;
  eq->obj2 = s[1]->body;
  if (eq->obj1 == eq->obj2) {
    mcc_error(c, ee, "site1 and site2 of <connect> must be on different bodies");
  }
  memcpy(eq->data, s[0]->s.pos, 3 * sizeof(mcNum));
  memcpy(eq->data + 3, s[1]->s.pos, 3 * sizeof(mcNum));
}

// <weld site1 site2> (MuJoCo 3): the two sites' frames held together, kept as sites (eq_objtype
// site) as MuJoCo 3.14 does: the engine reads their frames, eq_data holds only torquescale
static void mcc_weldSites(mcc* c, const mcxElem* ee, mccEqObj* eq) {
  if (mcx_attr(ee, "body1") || mcx_attr(ee, "body2") || mcx_attr(ee, "anchor") ||
      mcx_attr(ee, "relpose")) {
    mcc_error(c, ee, "<weld> takes either body1 (body2, anchor, relpose), or site1 and site2");
  }
  eq->objtype = mcOBJ_SITE;
  eq->obj1 = mcc_lookup(c, ee, "site1", mcOBJ_SITE, 1);
  eq->obj2 = mcc_lookup(c, ee, "site2", mcOBJ_SITE, 1);
  if (MCC_AT(c->sites, mccSiteObj, eq->obj1)->body ==
      MCC_AT(c->sites, mccSiteObj, eq->obj2)->body) {
    mcc_error(c, ee, "site1 and site2 of <weld> must be on different bodies");
  }
  mcNum ts = 1;
  mcc_readNum(c, ee, "torquescale", &ts);
  eq->data[10] = ts;
}

void mcc_readEqualities(mcc* c, const mcxElem* e) {
  mcc_checkAttrs(c, e, "");
  for (int k = 0; k < e->nchild; k++) {
    const mcxElem* ee = e->child[k];
    const char* t = ee->name;
    int type;
    if (!strcmp(t, "connect")) {
      type = mcEQ_CONNECT;
      mcc_checkAttrs(c, ee, "name class active solref solimp body1 body2 anchor site1 site2");
    } else if (!strcmp(t, "weld")) {
      type = mcEQ_WELD;
      mcc_checkAttrs(c, ee, "name class active solref solimp body1 body2 anchor relpose "
                            "torquescale site1 site2");
    } else if (!strcmp(t, "joint")) {
      type = mcEQ_JOINT;
      mcc_checkAttrs(c, ee, "name class active solref solimp joint1 joint2 polycoef");
    } else if (!strcmp(t, "tendon")) {
      type = mcEQ_TENDON;
      mcc_checkAttrs(c, ee, "name class active solref solimp tendon1 tendon2 polycoef");
    } else if (!strcmp(t, "distance")) {
      mcc_error(c, ee, "not supported yet: <distance> (removed in MuJoCo 2.2.2)");
    } else {
      mcc_unknownElem(c, ee);
    }
    mccEquality s = mcc_topClass(c, ee)->eq;
    mcc_readEquality(c, ee, &s, 0);
    const char* name = mcc_uniqueName(c, ee, mcOBJ_EQUALITY, "equality");
    mccEqObj eq;
    memset(&eq, 0, sizeof(eq));
    eq.name = name;
    eq.elem = ee;
    eq.s = s;
    eq.type = type;

    eq.objtype = type == mcEQ_JOINT ? mcOBJ_JOINT : type == mcEQ_TENDON ? mcOBJ_TENDON
                                                                       : mcOBJ_BODY;
    if (type == mcEQ_CONNECT && (mcx_attr(ee, "site1") || mcx_attr(ee, "site2"))) {
      mcc_connectSites(c, ee, &eq);
    } else if (type == mcEQ_WELD && (mcx_attr(ee, "site1") || mcx_attr(ee, "site2"))) {
      mcc_weldSites(c, ee, &eq);
    } else if (type == mcEQ_CONNECT || type == mcEQ_WELD) {
      eq.obj1 = mcc_lookup(c, ee, "body1", mcOBJ_BODY, 1);
      eq.obj2 = mcx_attr(ee, "body2") ? mcc_lookup(c, ee, "body2", mcOBJ_BODY, 1) : 0;
      if (eq.obj1 == eq.obj2) {
        mcc_error(c, ee, "body1 and body2 of <%s> must differ", t);
      }
      mcNum anchor[3] = {0, 0, 0};
      if (type == mcEQ_CONNECT && !mcx_attr(ee, "anchor")) {
        mcc_error(c, ee, "element <connect> requires attribute 'anchor'");
      }
      mcc_readNums(c, ee, "anchor", anchor, 3, 3);
      mcNum p1[3], q1[4], p2[3], q2[4];
      mcc_bodyWorld(c, eq.obj1, p1, q1);
      mcc_bodyWorld(c, eq.obj2, p2, q2);
      mcNum q2inv[4] = {q2[0], -q2[1], -q2[2], -q2[3]};
      if (type == mcEQ_CONNECT) {
        // anchor in body1, and the same point in body2 at qpos0
        mcNum w[3], d[3];
        mcc_rotVecQuat(w, anchor, q1);
        for (int i = 0; i < 3; i++) {
          d[i] = w[i] + p1[i] - p2[i];
        }
        memcpy(eq.data, anchor, sizeof(anchor));
        mcc_rotVecQuat(eq.data + 3, d, q2inv);
      } else {
        // anchor, relative pose (body2 in body1; zero quaternion: from qpos0), torquescale
        mcNum rel[7] = {0, 1, 0, 0, 0, 0, 0}, ts = 1;
        mcc_readNums(c, ee, "relpose", rel, 7, 7);
        mcc_readNum(c, ee, "torquescale", &ts);
        memcpy(eq.data, anchor, sizeof(anchor));
        if (rel[3] == 0 && rel[4] == 0 && rel[5] == 0 && rel[6] == 0) {
          mcNum q1inv[4] = {q1[0], -q1[1], -q1[2], -q1[3]}, d[3];
          for (int i = 0; i < 3; i++) {
            d[i] = p2[i] - p1[i];
          }
          mcc_rotVecQuat(eq.data + 3, d, q1inv);
          mcc_quatMul(eq.data + 6, q1inv, q2);
          mcc_normalize4(eq.data + 6);
        } else {
          if (!mcc_normalize4(rel + 3)) {
            mcc_error(c, ee, "zero quaternion in attribute 'relpose'");
          }
          memcpy(eq.data + 3, rel, sizeof(rel));
        }
        eq.data[10] = ts;
      }
    } else {
      int objtype = type == mcEQ_JOINT ? mcOBJ_JOINT : mcOBJ_TENDON;
      const char* k1 = type == mcEQ_JOINT ? "joint1" : "tendon1";
      const char* k2 = type == mcEQ_JOINT ? "joint2" : "tendon2";
      eq.obj1 = mcc_lookup(c, ee, k1, objtype, 1);
      eq.obj2 = mcc_lookup(c, ee, k2, objtype, 0);
      if (type == mcEQ_JOINT) {
        for (int i = 0; i < 2; i++) {
          int j = i == 0 ? eq.obj1 : eq.obj2;
          if (j < 0) {
            continue;
          }
          int jt = MCC_AT(c->joints, mccJointObj, j)->s.type;
          if (jt != mcJNT_HINGE && jt != mcJNT_SLIDE) {
            mcc_error(c, ee, "joint equality requires hinge or slide joints");
          }
        }
      }
      mcNum poly[5] = {0, 1, 0, 0, 0};
      mcc_readNums(c, ee, "polycoef", poly, 1, 5);
      memcpy(eq.data, poly, sizeof(poly));
    }
    if (type != mcEQ_WELD) {
      eq.data[10] = 1;                  // MuJoCo 2.2.2 stores torquescale 1 for every type
    }
    *(mccEqObj*)mcc_push(c, &c->eqs) = eq;
  }
}

//---------------------------------- contact -------------------------------------------------------

// signature of a body pair: (min+1) << 16 | (max+1), as documented in mcmodel.h
static int mcc_signature(int b1, int b2) {
  int lo = b1 < b2 ? b1 : b2, hi = b1 < b2 ? b2 : b1;
  return ((lo + 1) << 16) + hi + 1;
}

// pair parameters not given explicitly: mixed from the two geoms as in MuJoCo
static void mcc_mixPair(mcc* c, mccPairObj* p, const mccPair* s) {
  const mccGeom* g1 = &MCC_AT(c->geoms, mccGeomObj, p->geom1)->s;
  const mccGeom* g2 = &MCC_AT(c->geoms, mccGeomObj, p->geom2)->s;
  mcNum f[3];
  int condim;
  mcNum mix;
  if (g1->priority != g2->priority) {
    const mccGeom* g = g1->priority > g2->priority ? g1 : g2;
    condim = g->condim;
    memcpy(f, g->friction, sizeof(f));
    mix = g == g1 ? 1 : 0;
  } else {
    condim = g1->condim > g2->condim ? g1->condim : g2->condim;
    for (int i = 0; i < 3; i++) {
      f[i] = fmax(g1->friction[i], g2->friction[i]);
    }
    if (g1->solmix < mcMINVAL && g2->solmix < mcMINVAL) {
      mix = 0.5;
    } else if (g1->solmix < mcMINVAL) {
      mix = 0;
    } else if (g2->solmix < mcMINVAL) {
      mix = 1;
    } else {
      mix = g1->solmix / (g1->solmix + g2->solmix);
    }
  }
  p->dim = s->has_condim ? s->condim : condim;
  if (s->has_friction) {
    memcpy(p->friction, s->friction, sizeof(p->friction));
  } else {
    mcNum f5[5] = {f[0], f[0], f[1], f[2], f[2]};
    memcpy(p->friction, f5, sizeof(f5));
  }
  for (int i = 0; i < mcNREF; i++) {
    p->solref[i] = s->has_solref ? s->solref[i] : mix * g1->solref[i] + (1 - mix) * g2->solref[i];
  }
  for (int i = 0; i < mcNIMP; i++) {
    p->solimp[i] = s->has_solimp ? s->solimp[i] : mix * g1->solimp[i] + (1 - mix) * g2->solimp[i];
  }
  // margin and gap are the pair's own (default 0), not the geoms' (MuJoCo 2.2.2 and 3.14 alike)
  p->margin = s->has_margin ? s->margin : 0;
  p->gap = s->has_gap ? s->gap : 0;
}

void mcc_readContact(mcc* c, const mcxElem* e) {
  mcc_checkAttrs(c, e, "");
  for (int k = 0; k < e->nchild; k++) {
    const mcxElem* ce = e->child[k];
    if (!strcmp(ce->name, "pair")) {
      mcc_checkAttrs(c, ce, "name class geom1 geom2 condim friction solref solreffriction solimp "
                            "gap margin");
      mccPair s = mcc_topClass(c, ce)->pair;
      // values set by the element or its class win over the mix of the two geoms
      mcc_readPair(c, ce, &s, 0);
      mccPairObj p;
      memset(&p, 0, sizeof(p));
      p.name = mcc_uniqueName(c, ce, mcOBJ_PAIR, "pair");
      p.elem = ce;
      p.geom1 = mcc_lookup(c, ce, "geom1", mcOBJ_GEOM, 1);
      p.geom2 = mcc_lookup(c, ce, "geom2", mcOBJ_GEOM, 1);
      if (p.geom1 == p.geom2) {
        mcc_error(c, ce, "geom1 and geom2 of <pair> must differ");
      }
      mcc_mixPair(c, &p, &s);
      p.signature = mcc_signature(MCC_AT(c->geoms, mccGeomObj, p.geom1)->body,
                                  MCC_AT(c->geoms, mccGeomObj, p.geom2)->body);
      *(mccPairObj*)mcc_push(c, &c->pairs) = p;
    } else if (!strcmp(ce->name, "exclude")) {
      mcc_checkAttrs(c, ce, "name body1 body2");
      mccPairObj p;
      memset(&p, 0, sizeof(p));
      p.elem = ce;
      int b1 = mcc_lookup(c, ce, "body1", mcOBJ_BODY, 1);
      int b2 = mcc_lookup(c, ce, "body2", mcOBJ_BODY, 1);
      p.signature = mcc_signature(b1, b2);
      *(mccPairObj*)mcc_push(c, &c->excludes) = p;
    } else {
      mcc_unknownElem(c, ce);
    }
  }
}

//---------------------------------- custom --------------------------------------------------------

void mcc_readCustom(mcc* c, const mcxElem* e) {
  mcc_checkAttrs(c, e, "");
  for (int k = 0; k < e->nchild; k++) {
    const mcxElem* ne = e->child[k];
    if (!strcmp(ne->name, "text") || !strcmp(ne->name, "tuple")) {
      // no physics meaning: accepted
      continue;
    }
    if (strcmp(ne->name, "numeric")) {
      mcc_unknownElem(c, ne);
    }
    mcc_checkAttrs(c, ne, "name size data");
    const char* name = mcc_require(c, ne, "name");
    if (mcc_findName(c, mcOBJ_NUMERIC, name) >= 0) {
      mcc_error(c, ne, "duplicate numeric name '%s'", name);
    }
    int ndata = mcc_countNums(c, ne, "data");
    int size = ndata > 0 ? ndata : 0;
    if (mcc_readInt(c, ne, "size", &size)) {
      if (size <= 0) {
        mcc_error(c, ne, "numeric size must be positive");
      }
      if (ndata > size) {
        mcc_error(c, ne, "numeric '%s' has %d data values but size %d", name, ndata, size);
      }
    } else if (ndata <= 0) {
      mcc_error(c, ne, "numeric '%s' needs 'data' or 'size'", name);
    }
    mccNumeric* n = (mccNumeric*)mcc_push(c, &c->numerics);
    n->name = name;
    n->elem = ne;
    n->size = size;
    n->data = (mcNum*)mcc_malloc(c, sizeof(mcNum) * (size_t)size);
    if (ndata > 0) {
      mcc_readNums(c, ne, "data", n->data, ndata, ndata);
    }
  }
}

//---------------------------------- keyframes -----------------------------------------------------

void mcc_readKeyframe(mcc* c, const mcxElem* e) {
  mcc_checkAttrs(c, e, "");
  for (int k = 0; k < e->nchild; k++) {
    const mcxElem* ke = e->child[k];
    if (strcmp(ke->name, "key")) {
      mcc_unknownElem(c, ke);
    }
    mcc_checkAttrs(c, ke, "name time qpos qvel act ctrl mpos mquat");
    const char* name = mcc_uniqueName(c, ke, mcOBJ_KEY, "key");
    mccNamed* key = (mccNamed*)mcc_push(c, &c->keys);
    key->name = name;
    key->elem = ke;
  }
}

// read one key vector of exactly n values (absent: keep the default already in out)
static void mcc_keyVec(mcc* c, const mcxElem* e, const char* key, mcNum* out, int n,
                       const char* what) {
  int cnt = mcc_countNums(c, e, key);
  if (cnt < 0) {
    return;
  }
  if (cnt != n) {
    mcc_error(c, e, "keyframe attribute '%s' has %d values, expected %d (%s)", key, cnt, n, what);
  }
  if (n > 0) {
    mcc_readNums(c, e, key, out, n, n);
  }
}

// the quaternions of keyframe k normalized as MuJoCo normalizes them when it compiles (measured on
// 2.2.2, 3.3.8 and 3.14): those of free and ball joints in qpos (a zero one becomes the identity),
// the mocap ones in mquat (a zero one stays zero)
static void mcc_normalizeKeyQuats(mcModel* m, int k) {
  for (int j = 0; j < m->njnt; j++) {
    int t = m->jnt_type[j];
    if (t == mcJNT_FREE || t == mcJNT_BALL) {
      mcNum* q = m->key_qpos + (size_t)k * m->nq + m->jnt_qposadr[j] + (t == mcJNT_FREE ? 3 : 0);
      if (!mcc_normalize4(q)) {
        q[0] = 1;
        q[1] = q[2] = q[3] = 0;
      }
    }
  }
  for (int i = 0; i < m->nmocap; i++) {
    mcc_normalize4(m->key_mquat + (size_t)k * 4 * m->nmocap + 4 * i);
  }
}

void mcc_fillKeys(mcc* c, mcModel* m) {
  for (int k = 0; k < m->nkey; k++) {
    // defaults: qpos0, zero velocity/act/ctrl, mocap bodies at their model pose
    memcpy(m->key_qpos + (size_t)k * m->nq, m->qpos0, sizeof(mcNum) * (size_t)m->nq);
    for (int b = 0; b < m->nbody; b++) {
      int id = m->body_mocapid[b];
      if (id >= 0) {
        memcpy(m->key_mpos + (size_t)k * 3 * m->nmocap + 3 * id, m->body_pos + 3 * b,
               sizeof(mcNum) * 3);
        memcpy(m->key_mquat + (size_t)k * 4 * m->nmocap + 4 * id, m->body_quat + 4 * b,
               sizeof(mcNum) * 4);
      }
    }
    if (k >= c->keys.n) {
      continue;
    }
    const mcxElem* e = MCC_AT(c->keys, mccNamed, k)->elem;
    mcc_readNum(c, e, "time", m->key_time + k);
    const mccKeyMap* map = NULL;
    for (int i = 0; i < c->keymaps.n && !map; i++) {
      map = MCC_AT(c->keymaps, mccKeyMap, i)->key == e ? MCC_AT(c->keymaps, mccKeyMap, i) : NULL;
    }
    if (map) {
      mcc_keyMapFill(c, m, map, k);  // a key of an attached file
      continue;
    }
    mcc_keyVec(c, e, "qpos", m->key_qpos + (size_t)k * m->nq, m->nq, "nq");
    mcc_keyVec(c, e, "qvel", m->key_qvel + (size_t)k * m->nv, m->nv, "nv");
    mcc_keyVec(c, e, "act", m->key_act + (size_t)k * m->na, m->na, "na");
    mcc_keyVec(c, e, "ctrl", m->key_ctrl + (size_t)k * m->nu, m->nu, "nu");
    mcc_keyVec(c, e, "mpos", m->key_mpos + (size_t)k * 3 * m->nmocap, 3 * m->nmocap, "3*nmocap");
    mcc_keyVec(c, e, "mquat", m->key_mquat + (size_t)k * 4 * m->nmocap, 4 * m->nmocap,
               "4*nmocap");
    mcc_normalizeKeyQuats(m, k);
  }
}
