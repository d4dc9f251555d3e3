// Moduco core: compiler helpers (errors, growable arrays, attribute parsing, orientations).
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"

//---------------------------------- errors --------------------------------------------------------

_Noreturn void mcc_error(mcc* c, const mcxElem* e, const char* fmt, ...) {
  if (c->error && c->error_sz > 0) {
    const char* file = e ? e->file : (c->tree && c->tree->nfile ? c->tree->files[0] : "string");
    int n = e ? snprintf(c->error, (size_t)c->error_sz, "%s:%d: ", file, e->line)
              : snprintf(c->error, (size_t)c->error_sz, "%s: ", file);
    if (n >= 0 && n < c->error_sz) {
      va_list args;
      va_start(args, fmt);
      vsnprintf(c->error + n, (size_t)(c->error_sz - n), fmt, args);
      va_end(args);
    }
  }
  longjmp(c->jmp, 1);
}

_Noreturn void mcc_unknownElem(mcc* c, const mcxElem* child) {
  if (child->parent) {
    mcc_error(c, child, "unknown element <%s> in <%s>", child->name, child->parent->name);
  }
  mcc_error(c, child, "unknown element <%s>", child->name);
}

//---------------------------------- memory --------------------------------------------------------

void mcc_vecInit(mccVec* v, size_t elsz) {
  memset(v, 0, sizeof(*v));
  v->elsz = elsz;
}

void* mcc_push(mcc* c, mccVec* v) {
  if (v->n == v->cap) {
    int cap = v->cap ? 2 * v->cap : 16;
    void* d = realloc(v->data, v->elsz * (size_t)cap);
    if (!d) {
      mcc_error(c, NULL, "out of memory");
    }
    v->data = d;
    v->cap = cap;
  }
  void* el = (char*)v->data + v->elsz * (size_t)v->n;
  memset(el, 0, v->elsz);
  v->n++;
  return el;
}

void mcc_vecFree(mccVec* v) {
  free(v->data);
  v->data = NULL;
  v->n = v->cap = 0;
}

void* mcc_malloc(mcc* c, size_t bytes) {
  void* p = calloc(1, bytes ? bytes : 1);
  if (!p) {
    mcc_error(c, NULL, "out of memory");
  }
  return p;
}

char* mcc_strndup(mcc* c, const char* s, size_t n) {
  char** slot = (char**)mcc_push(c, &c->strs);
  *slot = (char*)mcc_malloc(c, n + 1);
  memcpy(*slot, s, n);
  (*slot)[n] = 0;
  return *slot;
}

//---------------------------------- attributes ----------------------------------------------------

// is word (length n) in the space-separated list
static int mcc_inList(const char* list, const char* word, size_t n) {
  const char* p = list;
  while (*p) {
    while (*p == ' ') {
      p++;
    }
    const char* q = p;
    while (*q && *q != ' ') {
      q++;
    }
    if ((size_t)(q - p) == n && !strncmp(p, word, n)) {
      return 1;
    }
    p = q;
  }
  return 0;
}

void mcc_checkAttrs(mcc* c, const mcxElem* e, const char* allowed) {
  for (int i = 0; i < e->nattr; i++) {
    const char* key = e->attr[2 * i];
    if (!mcc_inList(allowed, key, strlen(key))) {
      mcc_error(c, e, "unknown attribute '%s' in element <%s>", key, e->name);
    }
  }
}

const char* mcc_require(mcc* c, const mcxElem* e, const char* key) {
  const char* v = mcx_attr(e, key);
  if (!v) {
    mcc_error(c, e, "element <%s> requires attribute '%s'", e->name, key);
  }
  return v;
}

// parse up to nmax numbers from s into out (may be NULL); return the count, -1 if malformed or
// -2 if a number is not finite (nan, inf, or beyond the double range such as 1e999); *bad points
// at the offending token
static int mcc_parseNums(const char* s, mcNum* out, int nmax, const char** bad) {
  int n = 0;
  const char* p = s;
  for (;;) {
    while (isspace((unsigned char)*p)) {
      p++;
    }
    if (!*p) {
      return n;
    }
    char* end = NULL;
    double v = strtod(p, &end);
    if (end == p || (*end && !isspace((unsigned char)*end))) {
      *bad = p;
      return -1;
    }
    if (!isfinite(v)) {
      *bad = p;
      return -2;
    }
    if (out && n < nmax) {
      out[n] = v;
    }
    n++;
    p = end;
  }
}

// copy the offending token for messages
static void mcc_token(const char* p, char* buf, int sz) {
  int n = 0;
  while (p[n] && !isspace((unsigned char)p[n]) && n < sz - 1) {
    buf[n] = p[n];
    n++;
  }
  buf[n] = 0;
}

// the error for a malformed (n == -1) or non-finite (n == -2) number in attribute key of e
_Noreturn static void mcc_badNumber(mcc* c, const mcxElem* e, const char* key, const char* bad,
                                    int n) {
  char tok[64];
  mcc_token(bad, tok, sizeof(tok));
  mcc_error(c, e, "%s number '%s' in attribute '%s' of <%s>",
            n == -2 ? "non-finite" : "malformed", tok, key, e->name);
}

int mcc_countNums(mcc* c, const mcxElem* e, const char* key) {
  const char* s = mcx_attr(e, key);
  if (!s) {
    return -1;
  }
  const char* bad = NULL;
  int n = mcc_parseNums(s, NULL, 0, &bad);
  if (n < 0) {
    mcc_badNumber(c, e, key, bad, n);
  }
  return n;
}

int mcc_readNums(mcc* c, const mcxElem* e, const char* key, mcNum* out, int nmin, int nmax) {
  const char* s = mcx_attr(e, key);
  if (!s) {
    return 0;
  }
  // out has room for nmax values; parse straight into it (longer lists are an error below)
  const char* bad = NULL;
  int n = mcc_parseNums(s, out, nmax, &bad);
  if (n < 0) {
    mcc_badNumber(c, e, key, bad, n);
  }
  if (n < nmin || n > nmax) {
    if (nmin == nmax) {
      mcc_error(c, e, "attribute '%s' of <%s> expects %d values, got %d", key, e->name, nmin, n);
    }
    mcc_error(c, e, "attribute '%s' of <%s> expects %d to %d values, got %d", key, e->name, nmin,
              nmax, n);
  }
  return n;
}

int mcc_readFloats(mcc* c, const mcxElem* e, const char* key, float* out, int nmin, int nmax) {
  // long lists (inline meshes and height fields): count and check first, so nothing unwinds
  // while the temporary buffer is held
  mcNum small[64];
  int cnt = mcc_countNums(c, e, key);
  int heap = cnt > 64 && cnt >= nmin && cnt <= nmax;
  mcNum* tmp = heap ? (mcNum*)malloc(sizeof(mcNum) * (size_t)cnt) : small;
  if (!tmp) {
    mcc_error(c, e, "out of memory reading attribute '%s' of <%s>", key, e->name);
  }
  int n = mcc_readNums(c, e, key, tmp, nmin, tmp == small ? (nmax < 64 ? nmax : 64) : nmax);
  int big = -1;  // a value beyond the float range (rgba, inline meshes and height fields)
  for (int i = 0; i < n; i++) {
    out[i] = (float)tmp[i];
    if (big < 0 && !isfinite(out[i])) {
      big = i;
    }
  }
  mcNum bigval = big >= 0 ? tmp[big] : 0;
  if (tmp != small) {
    free(tmp);
  }
  if (big >= 0) {
    mcc_error(c, e, "number %g (value %d) in attribute '%s' of <%s> is beyond the single-precision "
              "range", bigval, big + 1, key, e->name);
  }
  return n;
}

void mcc_checkSign(mcc* c, const mcxElem* e, const char* key, const mcNum* v, int n, int strict) {
  for (int i = 0; i < n && mcx_attr(e, key); i++) {
    if (strict ? !(v[i] > 0) : !(v[i] >= 0)) {
      mcc_error(c, e, "attribute '%s' of <%s> must be %s (got '%s')", key, e->name,
                strict ? "positive" : "nonnegative", mcx_attr(e, key));
    }
  }
}

int mcc_readNum(mcc* c, const mcxElem* e, const char* key, mcNum* out) {
  return mcc_readNums(c, e, key, out, 1, 1);
}

int mcc_readInt(mcc* c, const mcxElem* e, const char* key, int* out) {
  const char* s = mcx_attr(e, key);
  if (!s) {
    return 0;
  }
  while (isspace((unsigned char)*s)) {
    s++;
  }
  char* end = NULL;
  long v = strtol(s, &end, 10);
  while (end && isspace((unsigned char)*end)) {
    end++;
  }
  if (end == s || *end || v > 2147483647L || v < -2147483647L) {
    mcc_error(c, e, "malformed integer '%s' in attribute '%s' of <%s>", s, key, e->name);
  }
  *out = (int)v;
  return 1;
}

int mcc_readEnum(mcc* c, const mcxElem* e, const char* key, const char* words) {
  const char* s = mcx_attr(e, key);
  if (!s) {
    return -1;
  }
  int idx = 0;
  const char* p = words;
  size_t n = strlen(s);
  while (*p) {
    const char* q = p;
    while (*q && *q != ' ') {
      q++;
    }
    if ((size_t)(q - p) == n && !strncmp(p, s, n)) {
      return idx;
    }
    idx++;
    p = *q ? q + 1 : q;
  }
  mcc_error(c, e, "invalid value '%s' of attribute '%s' in <%s> (expected one of: %s)", s, key,
            e->name, words);
}

const char* mcc_deformableMsg(const char* elem) {
  static const char* const names[] = {"flexcomp", "flex", "composite", "deformable"};
  static const char* const msgs[] = {
    "not supported: <flexcomp> (deformable bodies are out of Moduco's scope: rigid bodies only)",
    "not supported: <flex> (deformable bodies are out of Moduco's scope: rigid bodies only)",
    "not supported: <composite> (deformable and composite objects are out of Moduco's scope: "
    "rigid bodies only)",
    "not supported: <deformable> (deformable bodies are out of Moduco's scope: rigid bodies "
    "only)"};
  for (int i = 0; i < 4; i++) {
    if (!strcmp(elem, names[i])) {
      return msgs[i];
    }
  }
  return "not supported: deformable bodies are out of Moduco's scope";
}

void mcc_refuseAttr(mcc* c, const mcxElem* e, const char* key, const char* what) {
  if (mcx_attr(e, key)) {
    mcc_error(c, e, "not supported yet: attribute '%s' of <%s> (%s)", key, e->name, what);
  }
}

void mcc_refuseTrue(mcc* c, const mcxElem* e, const char* key, const char* what) {
  if (mcc_readBool(c, e, key) == 1) {
    mcc_error(c, e, "not supported yet: %s=\"true\" in <%s> (%s)", key, e->name, what);
  }
}

int mcc_readBool(mcc* c, const mcxElem* e, const char* key) {
  return mcc_readEnum(c, e, key, "false true");
}

int mcc_readTri(mcc* c, const mcxElem* e, const char* key) {
  return mcc_readEnum(c, e, key, "false true auto");
}

//---------------------------------- orientation ---------------------------------------------------

mccScope* mcc_scope(const mcc* c, const mcxElem* e) {
  int k = e ? e->scope : 0;
  return MCC_AT(c->scopes, mccScope, k >= 0 && k < c->scopes.n ? k : 0);
}

void mcc_scopeInit(mccScope* s) {
  memset(s, 0, sizeof(*s));
  s->degree = 1;
  memcpy(s->eulerseq, "xyz", 4);
  s->inertiafromgeom = MCC_AUTO;
  s->autolimits = 1;
  s->inertiagroup[1] = 5;
}

mcNum mcc_angle(mcc* c, const mcxElem* e, mcNum a) {
  return mcc_scope(c, e)->degree ? a * mcPI / 180.0 : a;
}

int mcc_readOrient(mcc* c, const mcxElem* e, mcNum quat[4]) {
  static const char* const keys[5] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
  int which = -1;
  for (int i = 0; i < 5; i++) {
    if (mcx_attr(e, keys[i])) {
      if (which >= 0) {
        mcc_error(c, e, "multiple orientation specifiers ('%s' and '%s') in <%s>", keys[which],
                  keys[i], e->name);
      }
      which = i;
    }
  }
  if (which < 0) {
    return 0;
  }

  mcNum v[6];
  switch (which) {
  case 0:
    // quaternion: normalized here
    mcc_readNums(c, e, "quat", v, 4, 4);
    if (!mcc_normalize4(v)) {
      mcc_error(c, e, "zero quaternion in <%s> cannot be normalized", e->name);
    }
    memcpy(quat, v, sizeof(mcNum) * 4);
    break;

  case 1:
    // axis and angle
    mcc_readNums(c, e, "axisangle", v, 4, 4);
    if (!mcc_normalize3(v)) {
      mcc_error(c, e, "axis of zero length in attribute 'axisangle' of <%s>", e->name);
    }
    mcc_axisAngle2Quat(quat, v, mcc_angle(c, e, v[3]));
    break;

  case 2: {
    // euler angles in the sequence of <compiler eulerseq>; lowercase: intrinsic (moving axes)
    mcc_readNums(c, e, "euler", v, 3, 3);
    mcNum q[4] = {1, 0, 0, 0};
    for (int i = 0; i < 3; i++) {
      char ax = mcc_scope(c, e)->eulerseq[i];
      mcNum axis[3] = {0, 0, 0};
      axis[tolower((unsigned char)ax) - 'x'] = 1;
      mcNum qi[4], tmp[4];
      mcc_axisAngle2Quat(qi, axis, mcc_angle(c, e, v[i]));
      if (islower((unsigned char)ax)) {
        mcc_quatMul(tmp, q, qi);
      } else {
        mcc_quatMul(tmp, qi, q);
      }
      memcpy(q, tmp, sizeof(q));
    }
    memcpy(quat, q, sizeof(q));
    break;
  }

  case 3: {
    // x and y axes: y is made orthogonal to x, z = x cross y
    mcc_readNums(c, e, "xyaxes", v, 6, 6);
    mcNum* x = v;
    mcNum* y = v + 3;
    if (!mcc_normalize3(x)) {
      mcc_error(c, e, "axis of zero length in attribute 'xyaxes' of <%s>", e->name);
    }
    mcNum d = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    for (int i = 0; i < 3; i++) {
      y[i] -= d * x[i];
    }
    if (!mcc_normalize3(y)) {
      mcc_error(c, e, "axis of zero length (or parallel to x) in attribute 'xyaxes' of <%s>",
                e->name);
    }
    mcNum z[3] = {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]};
    mcNum mat[9] = {x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]};
    mcc_mat2Quat(quat, mat);
    break;
  }

  default:
    // z axis: minimal rotation from (0,0,1)
    mcc_readNums(c, e, "zaxis", v, 3, 3);
    if (!mcc_normalize3(v)) {
      mcc_error(c, e, "axis of zero length in attribute 'zaxis' of <%s>", e->name);
    }
    mcc_quatZ2Vec(quat, v);
    break;
  }
  return 1;
}
