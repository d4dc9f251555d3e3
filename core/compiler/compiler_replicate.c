// Moduco core: <replicate> (MuJoCo 3.x MJCF), expanded in the element tree before the bodies are
// read.
//
// <replicate count="n" sep="s" offset="x y z" euler="a b c"> holds body contents (bodies, geoms,
// sites, joints, frames, nested replicates). It is replaced by n <frame> elements; frame i is the
// i-fold composition of the transform (offset, euler): pos(i+1) = pos(i) + R(quat(i)) offset,
// quat(i+1) = quat(i) * rot(euler), starting from the identity. Every "name" attribute in copy i
// gets the suffix sep + i, with i zero-padded to the number of digits of n; nested replicates
// are expanded first, so an inner suffix comes before the outer one ("b" -> "bB1A0"). Names of
// assets and classes are untouched. Copies keep the file and line of their originals, so errors
// inside a replica still name the right line. Keyframes are not replicated: a <key> describes the
// whole expanded model and must have its sizes (checked in compiler_misc.c).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"

// at most this many elements created by all replicates of one model (nested counts multiply)
#define MCC_REPLICATE_MAXELEM 250000
#define MCC_REPLICATE_MAXCOUNT 100000

// running total of created elements
typedef struct mccRep_ {
  long created;
} mccRep;

//---------------------------------- element helpers (same ownership as core/xml) ------------------

// a new element with nattr attribute slots (filled by the caller) and room for nchild children;
// NULL if out of memory
static mcxElem* repNew(const char* name, int nattr, int nchild, const mcxElem* like) {
  mcxElem* e = (mcxElem*)calloc(1, sizeof(mcxElem));
  if (!e) {
    return NULL;
  }
  e->name = mcx_strdup(name);
  e->attr = (char**)calloc((size_t)(2 * nattr + 1), sizeof(char*));
  e->child = nchild ? (mcxElem**)calloc((size_t)nchild, sizeof(mcxElem*)) : NULL;
  e->cchild = nchild;
  e->line = like->line;
  e->file = like->file;
  e->scope = like->scope;
  if (!e->name || !e->attr || (nchild && !e->child)) {
    mcx_freeElem(e);
    return NULL;
  }
  return e;
}

// deep copy of e with suffix appended to every "name" attribute (an <attach> keeps it for the
// names it brings: MCC_REPLICATE_SUFFIX); NULL if out of memory
static mcxElem* repCopy(const mcxElem* e, const char* suffix) {
  int attach = !strcmp(e->name, "attach");
  const char* had = attach ? mcx_attr(e, MCC_REPLICATE_SUFFIX) : NULL;
  mcxElem* r = repNew(e->name, e->nattr + (attach && !had), e->nchild, e);
  if (!r) {
    return NULL;
  }
  for (int i = 0; i < e->nattr; i++) {
    const char* key = e->attr[2 * i];
    const char* val = e->attr[2 * i + 1];
    r->attr[2 * i] = mcx_strdup(key);
    if (!strcmp(key, "name") || (attach && !strcmp(key, MCC_REPLICATE_SUFFIX))) {
      size_t n = strlen(val) + strlen(suffix) + 1;
      r->attr[2 * i + 1] = (char*)malloc(n);
      if (r->attr[2 * i + 1]) {
        snprintf(r->attr[2 * i + 1], n, "%s%s", val, suffix);
      }
    } else {
      r->attr[2 * i + 1] = mcx_strdup(val);
    }
    r->nattr = i + 1;
    if (!r->attr[2 * i] || !r->attr[2 * i + 1]) {
      mcx_freeElem(r);
      return NULL;
    }
  }
  if (attach && !had) {
    r->attr[2 * r->nattr] = mcx_strdup(MCC_REPLICATE_SUFFIX);
    r->attr[2 * r->nattr + 1] = mcx_strdup(suffix);
    r->nattr++;
    if (!r->attr[2 * r->nattr - 2] || !r->attr[2 * r->nattr - 1]) {
      mcx_freeElem(r);
      return NULL;
    }
  }
  for (int k = 0; k < e->nchild; k++) {
    mcxElem* ch = repCopy(e->child[k], suffix);
    if (!ch) {
      mcx_freeElem(r);
      return NULL;
    }
    ch->parent = r;
    r->child[r->nchild++] = ch;
  }
  return r;
}

// number of elements in the subtree of e (e included)
static long repCount(const mcxElem* e) {
  long n = 1;
  for (int k = 0; k < e->nchild; k++) {
    n += repCount(e->child[k]);
  }
  return n;
}

//---------------------------------- expansion -----------------------------------------------------

static void repExpandChildren(mcc* c, mcxElem* e, mccRep* rep);

// the frames replacing replicate element r (already expanded inside): a malloc'ed array of count
// elements; errors unwind through mcc_error after freeing what was made
static mcxElem** repMakeFrames(mcc* c, const mcxElem* r, int* count, mccRep* rep) {
  mcc_checkAttrs(c, r, "count sep offset euler");
  int n = 0;
  if (!mcx_attr(r, "count")) {
    mcc_error(c, r, "<replicate> requires attribute 'count'");
  }
  mcc_readInt(c, r, "count", &n);
  if (n < 1 || n > MCC_REPLICATE_MAXCOUNT) {
    mcc_error(c, r, "<replicate> count must be between 1 and %d, got %d", MCC_REPLICATE_MAXCOUNT,
              n);
  }
  const char* sep = mcx_attr(r, "sep");
  sep = sep ? sep : "";
  if (strlen(sep) > 200) {
    mcc_error(c, r, "<replicate> separator longer than 200 characters");
  }
  mcNum offset[3] = {0, 0, 0}, rot[4] = {1, 0, 0, 0};
  mcc_readNums(c, r, "offset", offset, 3, 3);
  mcc_readOrient(c, r, rot);

  // bound the expansion (nested replicates multiply)
  long size = 0;
  for (int k = 0; k < r->nchild; k++) {
    size += repCount(r->child[k]);
  }
  rep->created += (long)n * (size + 1);
  if (rep->created > MCC_REPLICATE_MAXELEM) {
    mcc_error(c, r, "<replicate> expands to more than %d elements", MCC_REPLICATE_MAXELEM);
  }

  // digits of the index: those of count
  int ndigit = snprintf(NULL, 0, "%d", n);
  mcxElem** frames = (mcxElem**)calloc((size_t)n, sizeof(mcxElem*));
  if (!frames) {
    mcc_error(c, r, "out of memory expanding <replicate>");
  }
  mcNum pos[3] = {0, 0, 0}, quat[4] = {1, 0, 0, 0};
  for (int i = 0; i < n; i++) {
    char suffix[256], spos[128], squat[160];
    snprintf(suffix, sizeof(suffix), "%s%0*d", sep, ndigit, i);
    snprintf(spos, sizeof(spos), "%.17g %.17g %.17g", pos[0], pos[1], pos[2]);
    snprintf(squat, sizeof(squat), "%.17g %.17g %.17g %.17g", quat[0], quat[1], quat[2], quat[3]);
    mcxElem* f = repNew("frame", 2, r->nchild, r);
    int ok = f != NULL;
    if (ok) {
      f->attr[0] = mcx_strdup("pos");
      f->attr[1] = mcx_strdup(spos);
      f->attr[2] = mcx_strdup("quat");
      f->attr[3] = mcx_strdup(squat);
      f->nattr = 2;
      ok = f->attr[0] && f->attr[1] && f->attr[2] && f->attr[3];
    }
    for (int k = 0; ok && k < r->nchild; k++) {
      mcxElem* ch = repCopy(r->child[k], suffix);
      ok = ch != NULL;
      if (ok) {
        ch->parent = f;
        f->child[f->nchild++] = ch;
      }
    }
    if (!ok) {
      mcx_freeElem(f);
      for (int j = 0; j < i; j++) {
        mcx_freeElem(frames[j]);
      }
      free(frames);
      mcc_error(c, r, "out of memory expanding <replicate>");
    }
    frames[i] = f;

    // next replica: compose with (offset, rot)
    mcNum dp[3], q[4];
    mcc_rotVecQuat(dp, offset, quat);
    mcc_quatMul(q, quat, rot);
    for (int k = 0; k < 3; k++) {
      pos[k] += dp[k];
    }
    mcc_normalize4(q);
    memcpy(quat, q, sizeof(q));
  }
  *count = n;
  return frames;
}

// replace every <replicate> child of e (recursively) by its frames
static void repExpandChildren(mcc* c, mcxElem* e, mccRep* rep) {
  for (int k = 0; k < e->nchild; k++) {
    mcxElem* ch = e->child[k];
    if (!strcmp(ch->name, "body") || !strcmp(ch->name, "frame")) {
      repExpandChildren(c, ch, rep);
      continue;
    }
    if (strcmp(ch->name, "replicate")) {
      continue;
    }

    // inner replicates first, so their suffixes come before this one's
    repExpandChildren(c, ch, rep);
    int n = 0;
    mcxElem** frames = repMakeFrames(c, ch, &n, rep);

    // splice: e->child[k] becomes frames[0..n)
    int total = e->nchild - 1 + n;
    mcxElem** list = (mcxElem**)malloc(sizeof(mcxElem*) * (size_t)total);
    if (!list) {
      for (int j = 0; j < n; j++) {
        mcx_freeElem(frames[j]);
      }
      free(frames);
      mcc_error(c, ch, "out of memory expanding <replicate>");
    }
    memcpy(list, e->child, sizeof(mcxElem*) * (size_t)k);
    for (int j = 0; j < n; j++) {
      frames[j]->parent = e;
      list[k + j] = frames[j];
    }
    memcpy(list + k + n, e->child + k + 1, sizeof(mcxElem*) * (size_t)(e->nchild - k - 1));
    free(frames);
    free(e->child);
    e->child = list;
    e->nchild = total;
    e->cchild = total;
    mcx_freeElem(ch);
    k += n - 1;  // the frames hold no replicate any more
  }
}

void mcc_expandReplicate(mcc* c, mcxElem* root) {
  mccRep rep = {0};
  for (int k = 0; k < root->nchild; k++) {
    if (!strcmp(root->child[k]->name, "worldbody")) {
      repExpandChildren(c, root->child[k], &rep);
    }
  }
}
