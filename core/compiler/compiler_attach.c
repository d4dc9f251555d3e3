// Moduco core: <attach> (MuJoCo 3.x model composition), expanded in the element tree before the
// sections are compiled.
//
// <asset><model name="m" file="f.xml"/></asset> declares a model file; <attach model="m"
// body="b" prefix="p"/> in a body, a frame or the worldbody inserts body b of that file (its own
// pose, not the frames around it; without body: the file's whole worldbody as a frame) where the
// attach element stands, as MuJoCo 3.14 does:
// - the attached file keeps its own <compiler> settings (angles, euler sequence, autolimits,
//   inertia, asset folders: a scope, mccScope) and its own default classes (looked up in that
//   scope; the attached body starts from the class its ancestors in the file gave it);
// - every name of the file gets the prefix, and so does every reference to a name;
// - all of its assets come along; its tendons, equalities, contact pairs and excludes, actuators
//   and sensors come along when every object they name is in the attached subtree (a tendon or an
//   actuator left behind drops what names it); its numerics and texts come along, and so do the
//   plugin instances of its <extension> (prefixed, as every name);
// - its keyframes become keys of the whole model: the attached objects take the key's values,
//   everything else its qpos0 (mccKeyMap, filled in compiler_misc.c); a key must have the file's
//   full sizes; keys of files attached inside the attached file keep only their own prefix;
// - its <option>, <size>, <visual>, <statistic> and once-per-model plugin configurations are
//   ignored, and so is its <compiler settotalmass>: the model's own scales every body, attached
//   ones included (MuJoCo 3.14, probed; its boundmass and boundinertia do hold for its bodies).
// The file is read once per attach (so two attaches of one file are independent), its nested
// attaches are expanded first, and its elements are moved into the model's tree, keeping their
// file and line for messages; the file's tree lives until the compiler is done.
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "compiler/compiler_mesh.h"

#define MCC_ATTACH_MAXDEPTH 16     // nested attaches
#define MCC_ATTACH_MAXCOUNT 4096   // attached files in one model (as <include> elements)
#define MCC_ATTACH_MAXBYTES ((size_t)64 << 20)  // their XML together (as a model's includes)

// attributes holding a name (prefixed); "world" is never prefixed
static const char* const mca_refAttrs =
    "name mesh hfield material texture target joint joint1 joint2 jointinparent tendon tendon1 "
    "tendon2 site site1 site2 refsite cranksite slidersite sidesite body body1 body2 geom geom1 "
    "geom2 actuator objname refname camera instance";

// kinds of the objects an element may name
enum { MCA_BODY, MCA_JOINT, MCA_GEOM, MCA_SITE, MCA_CAMERA, MCA_TENDON, MCA_ACTUATOR, MCA_ANY };
_Static_assert(MCA_ANY == MCC_ATTACH_NKIND, "kinds of attached objects");

// the names (prefixed) of the attached objects, per kind: c->attnames
typedef mccVec mcaNames;

// the files being attached (cycle check)
typedef struct mcaChain_ {
  const char* file;
  const struct mcaChain_* up;
} mcaChain;

// a joint of the attached file in its qpos order
typedef struct mcaJoint_ {
  const mcxElem* elem;
  int nq, nv;
} mcaJoint;

static void mca_attachTree(mcc* c, mcxElem* root, const mcaChain* chain, int depth);

//---------------------------------- tree editing --------------------------------------------------

static void mca_oom(mcc* c, const mcxElem* e) {
  mcc_error(c, e, "out of memory attaching a model");
}

// set attribute key of e to value (replaced, or appended)
static void mca_setAttr(mcc* c, mcxElem* e, const char* key, const char* value) {
  char* v = mcx_strdup(value);
  if (!v) {
    mca_oom(c, e);
  }
  for (int i = 0; i < e->nattr; i++) {
    if (!strcmp(e->attr[2 * i], key)) {
      free(e->attr[2 * i + 1]);
      e->attr[2 * i + 1] = v;
      return;
    }
  }
  char* k = mcx_strdup(key);
  char** a = (char**)realloc(e->attr, sizeof(char*) * (size_t)(2 * e->nattr + 3));
  if (!k || !a) {
    free(v);
    free(k);
    if (a) {
      e->attr = a;
    }
    mca_oom(c, e);
  }
  e->attr = a;
  a[2 * e->nattr] = k;
  a[2 * e->nattr + 1] = v;
  a[2 * e->nattr + 2] = NULL;
  e->nattr++;
}

// remove child k of e (not freed)
static mcxElem* mca_detach(mcxElem* e, int k) {
  mcxElem* ch = e->child[k];
  memmove(e->child + k, e->child + k + 1, sizeof(mcxElem*) * (size_t)(e->nchild - k - 1));
  e->nchild--;
  ch->parent = NULL;
  return ch;
}

// append ch to the children of e
static void mca_append(mcc* c, mcxElem* e, mcxElem* ch) {
  if (e->nchild == e->cchild) {
    int cap = e->cchild ? 2 * e->cchild : 4;
    mcxElem** list = (mcxElem**)realloc(e->child, sizeof(mcxElem*) * (size_t)cap);
    if (!list) {
      mcx_freeElem(ch);
      mca_oom(c, e);
    }
    e->child = list;
    e->cchild = cap;
  }
  e->child[e->nchild++] = ch;
  ch->parent = e;
}

// a new empty element like 'like' (file, line, scope)
static mcxElem* mca_newElem(mcc* c, const char* name, const mcxElem* like) {
  mcxElem* e = (mcxElem*)calloc(1, sizeof(mcxElem));
  if (e) {
    e->name = mcx_strdup(name);
    e->attr = (char**)calloc(1, sizeof(char*));
  }
  if (!e || !e->name || !e->attr) {
    mcx_freeElem(e);
    mca_oom(c, like);
  }
  e->line = like->line;
  e->file = like->file;
  e->scope = like->scope;
  return e;
}

static void mca_setScope(mcxElem* e, int scope) {
  e->scope = scope;
  for (int k = 0; k < e->nchild; k++) {
    mca_setScope(e->child[k], scope);
  }
}

//---------------------------------- names ---------------------------------------------------------

// prefix (and suffix: a replicated attach) every name and reference below e (e included); an
// unnamed mesh or height field takes its file's stem; a key's name takes no suffix (MuJoCo 3.14)
static void mca_prefix(mcc* c, mcxElem* e, const char* prefix, const char* suffix) {
  char buf[4096];
  if (!strcmp(e->name, "key")) {
    suffix = "";
  }
  for (int i = 0; i < e->nattr; i++) {
    const char* key = e->attr[2 * i];
    const char* val = e->attr[2 * i + 1];
    if (mcc_wordIn(mca_refAttrs, key) && strcmp(val, "world") && val[0]) {
      if (snprintf(buf, sizeof(buf), "%s%s%s", prefix, val, suffix) >= (int)sizeof(buf)) {
        mcc_error(c, e, "name '%s' with prefix '%s' is too long", val, prefix);
      }
      mca_setAttr(c, e, key, buf);
    }
  }
  int asset = !strcmp(e->name, "mesh") || !strcmp(e->name, "hfield");
  const char* file = mcx_attr(e, "file");
  if (asset && !mcx_attr(e, "name") && file && e->parent && !strcmp(e->parent->name, "asset")) {
    const char* base = strrchr(file, '/');
    base = base ? base + 1 : file;
    const char* dot = strrchr(base, '.');
    int n = dot ? (int)(dot - base) : (int)strlen(base);
    snprintf(buf, sizeof(buf), "%s%.*s%s", prefix, n, base, suffix);
    mca_setAttr(c, e, "name", buf);
  }
  for (int k = 0; k < e->nchild; k++) {
    mca_prefix(c, e->child[k], prefix, suffix);
  }
}

static void mca_addName(mcc* c, mcaNames* nm, int kind, const char* name) {
  if (name && name[0]) {
    *(const char**)mcc_push(c, &nm[kind]) = name;
  }
}

// the names of the bodies, joints, geoms, sites and cameras below e (e included)
static void mca_collect(mcc* c, const mcxElem* e, mcaNames* nm) {
  static const char* const elems[] = {"body", "joint", "geom", "site", "camera", "freejoint"};
  static const int kinds[] = {MCA_BODY, MCA_JOINT, MCA_GEOM, MCA_SITE, MCA_CAMERA, MCA_JOINT};
  for (int i = 0; i < 6; i++) {
    if (!strcmp(e->name, elems[i])) {
      mca_addName(c, nm, kinds[i], mcx_attr(e, "name"));
    }
  }
  for (int k = 0; k < e->nchild; k++) {
    mca_collect(c, e->child[k], nm);
  }
}

// the kind an attribute names (objname/refname: by the element's objtype/reftype); -1: none
static int mca_kind(const mcxElem* e, const char* key) {
  static const char* const lists[MCA_ANY] = {
    "body body1 body2", "joint joint1 joint2 jointinparent", "geom geom1 geom2",
    "site site1 site2 refsite cranksite slidersite sidesite", "camera", "tendon tendon1 tendon2",
    "actuator"};
  static const char* const types[MCA_ANY] = {"body xbody", "joint", "geom", "site", "camera",
                                             "tendon", "actuator"};
  int byname = !strcmp(key, "objname") || !strcmp(key, "refname");
  const char* type = byname ? mcx_attr(e, key[0] == 'o' ? "objtype" : "reftype") : NULL;
  for (int k = 0; k < MCA_ANY; k++) {
    if (byname ? type && mcc_wordIn(types[k], type) : mcc_wordIn(lists[k], key)) {
      return k;
    }
  }
  return byname ? MCA_ANY : -1;
}

static int mca_has(const mcaNames* nm, int kind, const char* name) {
  for (int k = kind == MCA_ANY ? 0 : kind; k < (kind == MCA_ANY ? MCA_ANY : kind + 1); k++) {
    for (int i = 0; i < nm[k].n; i++) {
      if (!strcmp(*MCC_AT(nm[k], const char*, i), name)) {
        return 1;
      }
    }
  }
  return 0;
}

// does every object e (and its children: a tendon's path) names belong to the attached objects
static int mca_inside(const mcxElem* e, const mcaNames* nm) {
  for (int i = 0; i < e->nattr; i++) {
    const char* key = e->attr[2 * i];
    const char* val = e->attr[2 * i + 1];
    int kind = mca_kind(e, key);
    if (kind >= 0 && strcmp(val, "world") && !mca_has(nm, kind, val)) {
      return 0;
    }
  }
  for (int k = 0; k < e->nchild; k++) {
    if (!mca_inside(e->child[k], nm)) {
      return 0;
    }
  }
  return 1;
}

// keep the children of section sec that name attached objects only; add the names of the kept
// ones to kind (-1: none). The others are freed, or moved to park (not NULL: the actuators left
// behind, whose activations the keys' act still counts, mca_fillAct)
static void mca_filter(mcc* c, mcxElem* sec, mcaNames* nm, int kind, mcxElem* park) {
  for (int k = 0; k < sec->nchild; k++) {
    if (!mca_inside(sec->child[k], nm)) {
      mcxElem* gone = mca_detach(sec, k);
      if (park) {
        mca_append(c, park, gone);
      } else {
        mcx_freeElem(gone);
      }
      k--;
    } else if (kind >= 0) {
      mca_addName(c, nm, kind, mcx_attr(sec->child[k], "name"));
    }
  }
}

//---------------------------------- the attached file's layout ------------------------------------

// the <default> element of class name in scope (NULL: none) below e
static const mcxElem* mca_findDefault(const mcxElem* e, int scope, const char* name) {
  for (int k = 0; k < e->nchild; k++) {
    const mcxElem* d = e->child[k];
    if (strcmp(d->name, "default") || d->scope != scope) {
      continue;
    }
    const char* cls = mcx_attr(d, "class");
    int top = !strcmp(e->name, "mujoco");
    if ((top && !strcmp(name, "main")) || (cls && !strcmp(cls, name))) {
      return d;
    }
    const mcxElem* r = mca_findDefault(d, scope, name);
    if (r) {
      return r;
    }
  }
  return NULL;
}

// the type of joint element j of class cls (its own class, else the inherited one) in root
static int mca_jointType(mcc* c, const mcxElem* root, const mcxElem* j, const char* cls) {
  if (!strcmp(j->name, "freejoint")) {
    return mcJNT_FREE;
  }
  int type = mcc_readEnum(c, j, "type", "free ball slide hinge");
  const char* own = mcx_attr(j, "class");
  const mcxElem* d = mca_findDefault(root, j->scope, own ? own : cls);
  for (; type < 0 && d && !strcmp(d->name, "default"); d = d->parent) {
    for (int k = d->nchild - 1; k >= 0 && type < 0; k--) {
      if (!strcmp(d->child[k]->name, "joint")) {
        type = mcc_readEnum(c, d->child[k], "type", "free ball slide hinge");
      }
    }
  }
  return type < 0 ? mcJNT_HINGE : type;
}

// the joints below e (a body, frame or worldbody of root) in qpos order: a body's own joints
// (frames included) before its child bodies, as the compiler numbers them
static void mca_joints(mcc* c, const mcxElem* root, const mcxElem* e, const char* cls, int pass,
                       mccVec* out) {
  for (int k = 0; k < e->nchild; k++) {
    const mcxElem* ch = e->child[k];
    const char* ccls = ch->scope == e->scope ? cls : "main";
    const char* cc = mcx_attr(ch, "childclass");
    if (!strcmp(ch->name, "frame")) {
      mca_joints(c, root, ch, cc ? cc : ccls, pass, out);
    } else if (!strcmp(ch->name, "body") && pass == 1) {
      mca_joints(c, root, ch, cc ? cc : ccls, 0, out);
      mca_joints(c, root, ch, cc ? cc : ccls, 1, out);
    } else if (pass == 0 && (!strcmp(ch->name, "joint") || !strcmp(ch->name, "freejoint"))) {
      static const int nq[4] = {7, 4, 1, 1}, nv[4] = {6, 3, 1, 1};
      int type = mca_jointType(c, root, ch, ccls);
      mcaJoint* j = (mcaJoint*)mcc_push(c, out);
      j->elem = ch;
      j->nq = nq[type];
      j->nv = nv[type];
    }
  }
}

// the mocap bodies below e (the file's worldbody: its children, through frames) in body order
static void mca_mocaps(mcc* c, const mcxElem* e, mccVec* out) {
  for (int k = 0; k < e->nchild; k++) {
    const mcxElem* ch = e->child[k];
    if (!strcmp(ch->name, "frame")) {
      mca_mocaps(c, ch, out);
    } else if (!strcmp(ch->name, "body") && mcc_readBool(c, ch, "mocap") > 0) {
      *(const mcxElem**)mcc_push(c, out) = ch;
    }
  }
}

// numbers of attribute key of e into a buffer freed with the context; their count (n exactly,
// else an error naming what)
static const mcNum* mca_keyNums(mcc* c, const mcxElem* e, const char* key, int n,
                                const char* what) {
  int cnt = mcc_countNums(c, e, key);
  if (cnt < 0) {
    return NULL;
  }
  if (cnt != n) {
    mcc_error(c, e, "keyframe attribute '%s' has %d values, expected %d (%s of the attached model)",
              key, cnt, n, what);
  }
  char** slot = (char**)mcc_push(c, &c->strs);
  *slot = (char*)mcc_malloc(c, sizeof(mcNum) * (size_t)(n + 1));
  mcNum* v = (mcNum*)*slot;
  if (n > 0) {
    mcc_readNums(c, e, key, v, n, n);
  }
  return v;
}

// turn the keys of the attached file (root) into key maps of the model's layout; a replicated
// attach keeps no ctrl and no act (as MuJoCo 3.14); act, mpos and mquat as MuJoCo 3.14 maps them: act by
// actuator (laid out once the model's actuators are compiled, mcc_keyMapFill), mpos/mquat by
// mocap body, the key's values as written (not moved by the attach frame)
static void mca_keys(mcc* c, mcxElem* root, int scope, int replicated) {
  int have = 0;
  for (int k = 0; k < root->nchild; k++) {
    const mcxElem* s = root->child[k];
    have |= !strcmp(s->name, "keyframe") && s->scope == scope && s->nchild;
  }
  if (!have) {
    return;
  }
  _Static_assert(sizeof(mcaJoint) == sizeof(void*) + 2 * sizeof(int), "c->attjoints layout");
  c->attjoints.n = c->attacts.n = 0;  // the context's scratch (freed with it)
  int nq = 0, nv = 0;
  for (int k = 0; k < root->nchild; k++) {
    const mcxElem* s = root->child[k];
    if (!strcmp(s->name, "worldbody")) {
      const char* cc = mcx_attr(s, "childclass");
      mca_joints(c, root, s, cc ? cc : "main", 0, &c->attjoints);
      mca_joints(c, root, s, cc ? cc : "main", 1, &c->attjoints);
    } else if (!strcmp(s->name, "actuator")) {
      for (int i = 0; i < s->nchild; i++) {
        *(const mcxElem**)mcc_push(c, &c->attacts) = s->child[i];
      }
    }
  }
  const int nu = c->attacts.n;  // c->attacts: the actuators, then the mocap bodies
  for (int k = 0; k < root->nchild; k++) {
    if (!strcmp(root->child[k]->name, "worldbody")) {
      mca_mocaps(c, root->child[k], &c->attacts);
    }
  }
  const int nmocap = c->attacts.n - nu;
  const mccVec joints = c->attjoints, acts = c->attacts;
  for (int i = 0; i < joints.n; i++) {
    nq += MCC_AT(joints, mcaJoint, i)->nq;
    nv += MCC_AT(joints, mcaJoint, i)->nv;
  }
  for (int k = 0; k < root->nchild; k++) {
    const mcxElem* s = root->child[k];
    if (strcmp(s->name, "keyframe") || s->scope != scope) {
      continue;
    }
    for (int i = 0; i < s->nchild; i++) {
      const mcxElem* key = s->child[i];
      if (strcmp(key->name, "key")) {
        mcc_unknownElem(c, key);
      }
      mcc_checkAttrs(c, key, "name time qpos qvel act ctrl mpos mquat");
      mccKeyMap* map = (mccKeyMap*)mcc_push(c, &c->keymaps);
      map->key = key;
      map->act = NULL;
      map->nact = 0;
      mcc_vecInit(&map->values, sizeof(mccKeyValue));
      const mcNum* qpos = mca_keyNums(c, key, "qpos", nq, "nq");
      const mcNum* qvel = mca_keyNums(c, key, "qvel", nv, "nv");
      const mcNum* ctrl = mca_keyNums(c, key, "ctrl", nu, "nu");
      const mcNum* mpos = mca_keyNums(c, key, "mpos", 3 * nmocap, "3*nmocap");
      const mcNum* mquat = mca_keyNums(c, key, "mquat", 4 * nmocap, "4*nmocap");
      int nact = mcc_countNums(c, key, "act");
      if (nact >= 0) {  // its size is checked once the actuators' activations are known
        map->act = mca_keyNums(c, key, "act", nact, "na");
        map->act = replicated ? NULL : map->act;
        map->nact = nact;
      }
      int aq = 0, av = 0;
      for (int j = 0; j < joints.n; j++) {
        const mcaJoint* jt = MCC_AT(joints, mcaJoint, j);
        for (int f = 0; f < 2; f++) {
          const mcNum* src = f ? qvel : qpos;
          if (src) {
            mccKeyValue* kv = (mccKeyValue*)mcc_push(c, &map->values);
            kv->obj = jt->elem;
            kv->field = f;
            kv->n = f ? jt->nv : jt->nq;
            memcpy(kv->v, src + (f ? av : aq), sizeof(mcNum) * (size_t)kv->n);
          }
        }
        aq += jt->nq;
        av += jt->nv;
      }
      for (int a = 0; a < nu; a++) {
        for (int f = 2; f < 4; f++) {
          if (!replicated && (f == 2 ? ctrl != NULL : map->act != NULL)) {
            mccKeyValue* kv = (mccKeyValue*)mcc_push(c, &map->values);
            kv->obj = *MCC_AT(acts, const mcxElem*, a);
            kv->field = f;
            kv->n = f == 2;
            kv->v[0] = f == 2 ? ctrl[a] : 0;
          }
        }
      }
      for (int b = 0; b < nmocap; b++) {
        for (int f = 4; f < 6; f++) {
          const mcNum* src = f == 4 ? mpos : mquat;
          if (src) {
            mccKeyValue* kv = (mccKeyValue*)mcc_push(c, &map->values);
            kv->obj = *MCC_AT(acts, const mcxElem*, nu + b);
            kv->field = f;
            kv->n = f == 4 ? 3 : 4;
            memcpy(kv->v, src + kv->n * b, sizeof(mcNum) * (size_t)kv->n);
          }
        }
      }
    }
  }
}

// the keys of a later replica of a replicated attach carry the first replica's names: MuJoCo 3.14
// keeps the first replica's keys only, so drop those of sec whose name a key of root has
static void mca_dropReplicaKeys(mcc* c, mcxElem* root, mcxElem* sec) {
  for (int i = 0; i < sec->nchild; i++) {
    const char* name = mcx_attr(sec->child[i], "name");
    int dup = 0;
    for (int s = 0; s < root->nchild && name && !dup; s++) {
      const mcxElem* ks = root->child[s];
      for (int j = 0; !strcmp(ks->name, "keyframe") && j < ks->nchild && !dup; j++) {
        const char* other = mcx_attr(ks->child[j], "name");
        dup = other && !strcmp(other, name);
      }
    }
    if (dup) {
      for (int m = 0; m < c->keymaps.n; m++) {
        mccKeyMap* map = MCC_AT(c->keymaps, mccKeyMap, m);
        map->key = map->key == sec->child[i] ? NULL : map->key;
      }
      mcx_freeElem(mca_detach(sec, i--));
    }
  }
}

//---------------------------------- one attach ----------------------------------------------------

// the <model> asset called name in root (scope of the attach element)
static const mcxElem* mca_modelAsset(mcc* c, const mcxElem* root, const mcxElem* at,
                                     const char* name) {
  for (int k = 0; k < root->nchild; k++) {
    const mcxElem* s = root->child[k];
    if (strcmp(s->name, "asset") || s->scope != at->scope) {
      continue;
    }
    for (int i = 0; i < s->nchild; i++) {
      const mcxElem* a = s->child[i];
      const char* n = mcx_attr(a, "name");
      if (!strcmp(a->name, "model") && n && !strcmp(n, name)) {
        return a;
      }
    }
  }
  mcc_error(c, at, "unknown model asset '%s' in attribute 'model' of <attach>", name);
}

// body called name below e (depth first), or NULL
static mcxElem* mca_findBody(mcxElem* e, const char* name) {
  for (int k = 0; k < e->nchild; k++) {
    mcxElem* ch = e->child[k];
    if (!strcmp(ch->name, "body") || !strcmp(ch->name, "frame")) {
      const char* n = mcx_attr(ch, "name");
      if (!strcmp(ch->name, "body") && n && !strcmp(n, name)) {
        return ch;
      }
      mcxElem* r = mca_findBody(ch, name);
      if (r) {
        return r;
      }
    }
  }
  return NULL;
}

// read the attached file of model asset 'asset' as a new scope; its tree, with its sections
// checked, its settings read and its replicates and nested attaches expanded
static mcxTree* mca_readFile(mcc* c, const mcxElem* at, const mcxElem* asset,
                             const mcaChain* chain, int depth, char* path, int path_sz) {
  const char* file = mcc_require(c, asset, "file");
  mcc_checkAttrs(c, asset, "name file content_type");
  mcc_assetFile(c, asset, file, path, path_sz);
  if (depth >= MCC_ATTACH_MAXDEPTH) {
    mcc_error(c, at, "attaches nested deeper than %d", MCC_ATTACH_MAXDEPTH);
  }
  for (const mcaChain* k = chain; k; k = k->up) {
    if (!strcmp(k->file, path)) {
      mcc_error(c, at, "attach cycle: '%s' is already being attached", path);
    }
  }
  char err[1024] = "";
  mcxTree* tree = mcx_readFile(path, err, sizeof(err));
  if (!tree) {
    mcc_error(c, at, "could not read the attached model (%s)", err);
  }
  *(mcxTree**)mcc_push(c, &c->attached) = tree;
  c->attached_bytes += tree->nbytes;
  if (c->attached.n > MCC_ATTACH_MAXCOUNT || c->attached_bytes > MCC_ATTACH_MAXBYTES) {
    mcc_error(c, at, "more than %d attached models or %zu MiB of attached XML",
              MCC_ATTACH_MAXCOUNT, MCC_ATTACH_MAXBYTES >> 20);
  }

  // its scope: compiler settings and main class
  int scope = c->scopes.n;
  mccScope* sc = (mccScope*)mcc_push(c, &c->scopes);
  mcc_scopeInit(sc);
  mcx_dirname(path, sc->dir, sizeof(sc->dir));
  mccClass* main = (mccClass*)mcc_push(c, &c->classes);
  mcc_defaultClassInit(main);
  main->scope = scope;
  MCC_AT(c->scopes, mccScope, scope)->mainclass = c->classes.n - 1;
  mcxElem* root = tree->root;
  mca_setScope(root, scope);

  // sections
  if (strcmp(root->name, "mujoco")) {
    mcc_error(c, root, "root element must be <mujoco>, not <%s>", root->name);
  }
  static const char* const known =
      "compiler option size visual statistic default asset worldbody contact tendon equality "
      "actuator sensor custom keyframe extension";
  for (int k = 0; k < root->nchild; k++) {
    const mcxElem* s = root->child[k];
    if (!strcmp(s->name, "deformable")) {
      mcc_error(c, s, "%s", mcc_deformableMsg("deformable"));
    } else if (!mcc_wordIn(known, s->name)) {
      mcc_unknownElem(c, s);
    } else if (!strcmp(s->name, "compiler")) {
      mcc_readCompiler(c, s);  // its settotalmass is read into its scope and not used
    }
  }
  mcc_expandReplicate(c, root);
  mcaChain link = {path, chain};
  mca_attachTree(c, root, &link, depth + 1);
  return tree;
}

// replace parent->child[k], an <attach> element of the tree of root, with what it attaches
static void mca_attach(mcc* c, mcxElem* root, mcxElem* parent, int k, const mcaChain* chain,
                       int depth) {
  mcxElem* at = parent->child[k];
  char suffix[256] = "";
  for (int i = 0; i < at->nattr; i++) {
    if (!strcmp(at->attr[2 * i], MCC_REPLICATE_SUFFIX)) {
      snprintf(suffix, sizeof(suffix), "%s", at->attr[2 * i + 1]);
      free(at->attr[2 * i]);
      free(at->attr[2 * i + 1]);
      // the later pairs and the NULL that ends the list
      memmove(at->attr + 2 * i, at->attr + 2 * i + 2,
              sizeof(char*) * (size_t)(2 * (at->nattr - i) - 1));
      at->nattr--;
      break;
    }
  }
  mcc_checkAttrs(c, at, "model body prefix");
  if (at->nchild) {
    mcc_error(c, at, "<attach> cannot have child elements");
  }
  const char* model = mcc_require(c, at, "model");
  char prefix[1024];
  if (snprintf(prefix, sizeof(prefix), "%s", mcc_require(c, at, "prefix")) >= (int)sizeof(prefix)) {
    mcc_error(c, at, "attribute 'prefix' of <attach> is longer than %d characters",
              (int)sizeof(prefix) - 1);
  }
  const char* bodyname = mcx_attr(at, "body");
  const mcxElem* asset = mca_modelAsset(c, root, at, model);
  char path[2048];
  mcxTree* tree = mca_readFile(c, at, asset, chain, depth, path, sizeof(path));
  mcxElem* croot = tree->root;
  int scope = croot->scope;
  mca_keys(c, croot, scope, suffix[0] != 0);  // in the file's layout, before anything moves

  // the attached subtree: the body (from the class its ancestors give it), or the whole
  // worldbody as a frame
  mcxElem* sub = NULL;
  if (bodyname) {
    for (int s = 0; s < croot->nchild && !sub; s++) {
      if (!strcmp(croot->child[s]->name, "worldbody")) {
        sub = mca_findBody(croot->child[s], bodyname);
      }
    }
    if (!sub) {
      mcc_error(c, at, "could not find body '%s' in model asset '%s'", bodyname, model);
    }
    const char* cls = NULL;
    for (const mcxElem* a = sub; a && !cls; a = a->parent) {
      cls = mcx_attr(a, "childclass");
    }
    mcxElem* up = sub->parent;
    for (int i = 0; i < up->nchild; i++) {
      if (up->child[i] == sub) {
        mca_detach(up, i);
        break;
      }
    }
    sub->parent = parent;         // owned by the model's tree from here
    parent->child[k] = sub;
    mcx_freeElem(at);
    if (cls && !mcx_attr(sub, "childclass")) {
      mca_setAttr(c, sub, "childclass", cls);
    }
  } else {
    sub = mca_newElem(c, "frame", at);
    sub->scope = scope;
    sub->parent = parent;
    parent->child[k] = sub;
    mcx_freeElem(at);
    for (int s = 0; s < croot->nchild; s++) {
      mcxElem* wb = croot->child[s];
      if (strcmp(wb->name, "worldbody")) {
        continue;
      }
      const char* cc = mcx_attr(wb, "childclass");
      if (cc) {
        mca_setAttr(c, sub, "childclass", cc);
      }
      while (wb->nchild) {
        mca_append(c, sub, mca_detach(wb, 0));
      }
    }
  }

  mca_prefix(c, sub, prefix, suffix);
  mcxElem* park = mca_newElem(c, "left behind", croot);  // freed with the file's tree
  mca_append(c, croot, park);
  mcaNames* nm = c->attnames;
  for (int i = 0; i < MCA_ANY; i++) {
    nm[i].n = 0;
  }
  mca_collect(c, sub, nm);

  // the other sections follow the model's own: tendons before the actuators naming them,
  // actuators before the sensors
  static const char* const order[] = {"extension", "default", "asset", "tendon", "actuator",
                                      "sensor", "equality", "contact", "custom", "keyframe", NULL};
  static const int adds[] = {-1, -1, -1, MCA_TENDON, MCA_ACTUATOR, -1, -1, -1, -1, -1};
  for (int o = 0; order[o]; o++) {
    for (int s = 0; s < croot->nchild; s++) {
      mcxElem* sec = croot->child[s];
      if (strcmp(sec->name, order[o])) {
        continue;
      }
      mca_detach(croot, s--);
      if (!strcmp(sec->name, "asset")) {
        for (int i = 0; i < sec->nchild; i++) {
          if (!strcmp(sec->child[i]->name, "model")) {
            mcx_freeElem(mca_detach(sec, i--));
          }
        }
      }
      // plugin instances come along (names prefixed); the configuration of a once-per-model
      // plugin (solver, integrator) is a model-wide setting, ignored as the file's <option>
      for (int i = 0; !strcmp(sec->name, "extension") && i < sec->nchild; i++) {
        mcxElem* pl = sec->child[i];
        for (int j = 0; j < pl->nchild; j++) {
          if (!strcmp(pl->child[j]->name, "config")) {
            mcx_freeElem(mca_detach(pl, j--));
          }
        }
      }
      // the keys of files attached inside this one keep their own prefix only (MuJoCo 3.14)
      if (strcmp(sec->name, "keyframe") || sec->scope == scope) {
        mca_prefix(c, sec, prefix, suffix);
      }
      if (!strcmp(sec->name, "keyframe") && suffix[0]) {
        mca_dropReplicaKeys(c, root, sec);
      }
      if (adds[o] >= 0 || !strcmp(sec->name, "sensor") || !strcmp(sec->name, "equality") ||
          !strcmp(sec->name, "contact")) {
        mca_filter(c, sec, nm, adds[o], adds[o] == MCA_ACTUATOR ? park : NULL);
      }
      mca_append(c, root, sec);
    }
  }
}

// expand the attach elements below e (a body, frame or worldbody of the tree of root)
static void mca_walk(mcc* c, mcxElem* root, mcxElem* e, const mcaChain* chain, int depth) {
  for (int k = 0; k < e->nchild; k++) {
    mcxElem* ch = e->child[k];
    if (!strcmp(ch->name, "attach")) {
      mca_attach(c, root, e, k, chain, depth);
    } else if (!strcmp(ch->name, "body") || !strcmp(ch->name, "frame")) {
      mca_walk(c, root, ch, chain, depth);
    }
  }
}

static void mca_attachTree(mcc* c, mcxElem* root, const mcaChain* chain, int depth) {
  for (int k = 0; k < root->nchild; k++) {
    if (!strcmp(root->child[k]->name, "worldbody")) {
      mca_walk(c, root, root->child[k], chain, depth);
    }
  }
}

//---------------------------------- entry points --------------------------------------------------

void mcc_expandAttach(mcc* c) {
  mcxElem* root = c->tree->root;
  mcc_expandReplicate(c, root);
  mca_attachTree(c, root, NULL, 0);
}

// the index of the compiled object of vector v (element type T, member elem) made from e, or -1
#define MCA_FIND(v, T, e) mca_find(&(v), sizeof(T), offsetof(T, elem), (e))
static int mca_find(const mccVec* v, size_t size, size_t off, const mcxElem* e) {
  for (int i = 0; e && i < v->n; i++) {
    if (*(const mcxElem* const*)((const char*)v->data + size * (size_t)i + off) == e) {
      return i;
    }
  }
  return -1;
}

// the activations of an actuator of an attached file: compiled (a >= 0), or left behind at its
// attach (e, read from its class as mcc_readActuators reads it); -1 when not known (an actuator
// plugin's: only its compile callback knows)
static int mca_actnum(mcc* c, const mcModel* m, const mcxElem* e, int a) {
  if (a >= 0) {
    return m->actuator_actnum[a];
  }
  if (!mcc_isActuatorElem(e->name)) {
    return -1;
  }
  mccActuator s = MCC_AT(c->classes, mccClass, mcc_elemClass(c, e, 0))->act;
  mcc_readActuator(c, e, &s, 0);
  return s.dyntype != mcDYN_NONE;
}

// the key's act values, in the file's actuator order, into the activations of its actuators that
// came along (MuJoCo 3.14 maps them by actuator, wherever the ones left behind stand). The
// activations of plugin actuators left behind take what the others leave, which is unambiguous
// when no actuator with activations stands between them
static void mca_fillAct(mcc* c, mcModel* m, const mccKeyMap* map, int k) {
  int known = 0, unknown = 0, between = 0, split = 0;
  for (int i = 0; i < map->values.n; i++) {
    const mccKeyValue* kv = MCC_AT(map->values, mccKeyValue, i);
    if (kv->field == 3) {
      int n = mca_actnum(c, m, kv->obj, MCA_FIND(c->actuators, mccActObj, kv->obj));
      split |= n < 0 && unknown && between;
      between |= n > 0 && unknown;
      unknown += n < 0;
      known += n > 0 ? n : 0;
    }
  }
  int left = map->nact - known;  // the activations of the plugin actuators left behind
  if (left < 0 || (!unknown && left)) {
    mcc_error(c, map->key, "keyframe attribute 'act' has %d values, expected %s%d (na of the "
              "attached model)", map->nact, unknown ? "at most " : "", known);
  }
  if (split && left) {
    mcc_error(c, map->key, "not supported yet: keyframe attribute 'act' when plugin actuators "
              "of the attached model left behind stand apart in its actuator list");
  }
  int at = 0;
  for (int i = 0; i < map->values.n; i++) {
    const mccKeyValue* kv = MCC_AT(map->values, mccKeyValue, i);
    if (kv->field != 3) {
      continue;
    }
    int a = MCA_FIND(c->actuators, mccActObj, kv->obj);
    int n = mca_actnum(c, m, kv->obj, a);
    if (n < 0) {
      n = left;  // the first one takes them all: the others are next to it
      left = 0;
    } else if (a >= 0 && n) {
      memcpy(m->key_act + (size_t)k * m->na + m->actuator_actadr[a], map->act + at,
             sizeof(mcNum) * (size_t)n);
    }
    at += n;
  }
}

void mcc_keyMapFill(mcc* c, mcModel* m, const mccKeyMap* map, int k) {
  if (map->act) {
    mca_fillAct(c, m, map, k);
  }
  for (int i = 0; i < map->values.n; i++) {
    const mccKeyValue* kv = MCC_AT(map->values, mccKeyValue, i);
    if (kv->field == 2) {
      int a = MCA_FIND(c->actuators, mccActObj, kv->obj);
      if (a >= 0) {
        m->key_ctrl[(size_t)k * m->nu + a] = kv->v[0];
      }
    } else if (kv->field >= 4) {
      int b = MCA_FIND(c->bodies, mccBody, kv->obj);
      int id = b >= 0 ? m->body_mocapid[b] : -1;  // the body came along
      if (id >= 0 && kv->field == 4) {
        memcpy(m->key_mpos + (size_t)k * 3 * m->nmocap + 3 * id, kv->v, sizeof(mcNum) * 3);
      } else if (id >= 0) {
        mcNum* q = m->key_mquat + (size_t)k * 4 * m->nmocap + 4 * id;
        memcpy(q, kv->v, sizeof(mcNum) * 4);
        mcc_normalize4(q);  // a zero one stays zero, as in a model's own keys
      }
    } else if (kv->field < 2) {
      int j = MCA_FIND(c->joints, mccJointObj, kv->obj);
      if (j >= 0) {
        mcNum* dst = kv->field == 0 ? m->key_qpos + (size_t)k * m->nq + m->jnt_qposadr[j]
                                    : m->key_qvel + (size_t)k * m->nv + m->jnt_dofadr[j];
        memcpy(dst, kv->v, sizeof(mcNum) * (size_t)kv->n);
      }
    }
  }
}
