// Moduco core: object names: the compiler's name index (mcc_nameIndexFind) and the model's
// lookups (mc_name2id, mc_id2name).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

#include "compiler/compiler.h"

//---------------------------------- compiler: name index ------------------------------------------

// Every new object's name is checked against the earlier objects of its type, and references
// (joint="...", body="...") are resolved by name, so a linear search made compiling n named
// bodies cost n^2 string compares. The index is an open-addressing hash table of positions,
// filled in object order: lookups return the first object with the name, as the search did, and
// the table (its size and probe order) depends only on the names, so compiling is deterministic.

// name of the object at position i of v (the name is the first field of every object struct)
static const char* mcc_nameAt(const mccVec* v, int i) {
  return *(const char* const*)((const char*)v->data + v->elsz * (size_t)i);
}


// FNV-1a
static uint32_t mcc_hashName(const char* s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) {
    h = (h ^ (unsigned char)*s) * 16777619u;
  }
  return h;
}


// the slot holding name, or the empty slot where it would go
static int mcc_probe(const mccNameIndex* ix, const mccVec* v, const char* name) {
  unsigned mask = (unsigned)ix->cap - 1;
  unsigned k = mcc_hashName(name) & mask;
  while (ix->slot[k] >= 0 && strcmp(mcc_nameAt(v, ix->slot[k]), name)) {
    k = (k + 1) & mask;
  }
  return (int)k;
}


// add position i (named) unless an earlier object has its name; the table stays at most half full
static void mcc_indexAdd(mcc* c, mccNameIndex* ix, const mccVec* v, int i) {
  if (2 * (ix->count + 1) > ix->cap) {
    int cap = ix->cap ? 2 * ix->cap : 64;
    int* old = ix->slot;
    int oldcap = ix->cap;
    ix->slot = (int*)malloc(sizeof(int) * (size_t)cap);
    if (!ix->slot) {
      ix->slot = old;  // freed with the context
      mcc_error(c, NULL, "out of memory");
    }
    memset(ix->slot, 0xff, sizeof(int) * (size_t)cap);
    ix->cap = cap;
    for (int k = 0; k < oldcap; k++) {
      if (old[k] >= 0) {
        ix->slot[mcc_probe(ix, v, mcc_nameAt(v, old[k]))] = old[k];
      }
    }
    free(old);
  }
  int k = mcc_probe(ix, v, mcc_nameAt(v, i));
  if (ix->slot[k] < 0) {
    ix->slot[k] = i;
    ix->count++;
  }
}


int mcc_nameIndexFind(mcc* c, mccNameIndex* ix, const mccVec* v, const char* name) {
  // index every object but the newest: its name may not be set yet
  for (; ix->nindexed < v->n - 1; ix->nindexed++) {
    const char* n = mcc_nameAt(v, ix->nindexed);
    if (n && n[0]) {
      mcc_indexAdd(c, ix, v, ix->nindexed);
    }
  }
  if (ix->count) {
    int k = mcc_probe(ix, v, name);
    if (ix->slot[k] >= 0) {
      return ix->slot[k];
    }
  }
  for (int i = ix->nindexed; i < v->n; i++) {
    const char* n = mcc_nameAt(v, i);
    if (n && !strcmp(n, name)) {
      return i;
    }
  }
  return -1;
}


void mcc_nameIndexFree(mcc* c) {
  for (size_t t = 0; t < sizeof(c->nameindex) / sizeof(c->nameindex[0]); t++) {
    free(c->nameindex[t].slot);
    memset(&c->nameindex[t], 0, sizeof(c->nameindex[t]));
  }
}

//---------------------------------- model: names --------------------------------------------------

// the name address array and count of an object type; NULL if the type has no names
static const int* mcc_nameAdr(const mcModel* m, int type, int* n) {
  switch (type) {
  case mcOBJ_BODY:
  case mcOBJ_XBODY:
    *n = m->nbody;
    return m->name_bodyadr;
  case mcOBJ_JOINT:
    *n = m->njnt;
    return m->name_jntadr;
  case mcOBJ_GEOM:
    *n = m->ngeom;
    return m->name_geomadr;
  case mcOBJ_SITE:
    *n = m->nsite;
    return m->name_siteadr;
  case mcOBJ_MESH:
    *n = m->nmesh;
    return m->name_meshadr;
  case mcOBJ_HFIELD:
    *n = m->nhfield;
    return m->name_hfieldadr;
  case mcOBJ_PAIR:
    *n = m->npair;
    return m->name_pairadr;
  case mcOBJ_EQUALITY:
    *n = m->neq;
    return m->name_eqadr;
  case mcOBJ_TENDON:
    *n = m->ntendon;
    return m->name_tendonadr;
  case mcOBJ_ACTUATOR:
    *n = m->nu;
    return m->name_actuatoradr;
  case mcOBJ_SENSOR:
    *n = m->nsensor;
    return m->name_sensoradr;
  case mcOBJ_NUMERIC:
    *n = m->nnumeric;
    return m->name_numericadr;
  case mcOBJ_KEY:
    *n = m->nkey;
    return m->name_keyadr;
  default:
    *n = 0;
    return NULL;
  }
}

int mc_name2id(const mcModel* m, int type, const char* name) {
  int n = 0;
  if (!m || !name || !name[0]) {
    return -1;
  }
  const int* adr = mcc_nameAdr(m, type, &n);
  for (int i = 0; adr && i < n; i++) {
    if (adr[i] >= 0 && adr[i] < m->nnames && !strcmp(m->names + adr[i], name)) {
      return i;
    }
  }
  return -1;
}

const char* mc_id2name(const mcModel* m, int type, int id) {
  int n = 0;
  if (!m) {
    return NULL;
  }
  const int* adr = mcc_nameAdr(m, type, &n);
  if (!adr || id < 0 || id >= n || adr[id] < 0 || adr[id] >= m->nnames) {
    return NULL;
  }
  const char* name = m->names + adr[id];
  return name[0] ? name : NULL;
}
