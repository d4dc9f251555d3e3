// Moduco core: object names (mc_name2id, mc_id2name).
#include <string.h>

#include <moduco/moduco.h>

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
