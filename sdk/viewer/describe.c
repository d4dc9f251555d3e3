// Moduco viewer: the model description the page draws from (GET /model.json).
#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "protocol.h"

// geom type names, indexed by mctGeom
static const char* kGeomNames[] = {"plane", "hfield", "sphere", "capsule", "ellipsoid",
                                   "cylinder", "box", "mesh"};
#define NGEOMTYPE ((int)(sizeof(kGeomNames) / sizeof(kGeomNames[0])))


// add a JSON array of n numbers read by get(v, i) (non-finite values become 0: JSON has no NaN)
static int addArray(cJSON* obj, const char* key, const void* v, int n,
                    double (*get)(const void*, int)) {
  cJSON* arr = cJSON_AddArrayToObject(obj, key);
  for (int i = 0; arr && i < n; i++) {
    double x = get(v, i);
    cJSON* item = cJSON_CreateNumber(isfinite(x) ? x : 0.0);
    if (!item || !cJSON_AddItemToArray(arr, item)) {
      cJSON_Delete(item);
      return -1;
    }
  }
  return arr ? 0 : -1;
}

static double getNum(const void* v, int i) {
  return (double)((const mcNum*)v)[i];
}

static double getFloat(const void* v, int i) {
  return (double)((const float*)v)[i];
}

static double getInt(const void* v, int i) {
  return (double)((const int*)v)[i];
}


// a new object appended to the array arr, or NULL
static cJSON* addItem(cJSON* arr) {
  cJSON* o = arr ? cJSON_CreateObject() : NULL;
  if (o && !cJSON_AddItemToArray(arr, o)) {
    cJSON_Delete(o);
    o = NULL;
  }
  return o;
}


// name of an object from its address in m->names ("" if none)
static const char* nameAt(const mcModel* m, const int* adr, int i) {
  return adr && adr[i] >= 0 && adr[i] < m->nnames ? m->names + adr[i] : "";
}


// bodies: name and parent
static int addBodies(cJSON* root, const mcModel* m) {
  cJSON* arr = cJSON_AddArrayToObject(root, "bodies");
  for (int b = 0; arr && b < m->nbody; b++) {
    cJSON* o = addItem(arr);
    if (!o ||
        !cJSON_AddStringToObject(o, "name", nameAt(m, m->name_bodyadr, b)) ||
        !cJSON_AddNumberToObject(o, "parent", m->body_parentid[b]) ||
        !cJSON_AddNumberToObject(o, "mass", m->body_mass[b]) ||
        addArray(o, "ipos", m->body_ipos + 3 * b, 3, getNum)) {
      return -1;
    }
  }
  return arr ? 0 : -1;
}


// joints: type, body, anchor and axis in the body's frame (the page draws the axes)
static int addJoints(cJSON* root, const mcModel* m) {
  static const char* types[] = {"free", "ball", "slide", "hinge"};
  cJSON* arr = cJSON_AddArrayToObject(root, "joints");
  for (int j = 0; arr && j < m->njnt; j++) {
    int t = m->jnt_type[j];
    cJSON* o = addItem(arr);
    if (!o ||
        !cJSON_AddStringToObject(o, "name", nameAt(m, m->name_jntadr, j)) ||
        !cJSON_AddStringToObject(o, "type", t >= 0 && t < 4 ? types[t] : "unknown") ||
        !cJSON_AddNumberToObject(o, "body", m->jnt_bodyid[j]) ||
        addArray(o, "pos", m->jnt_pos + 3 * j, 3, getNum) ||
        addArray(o, "axis", m->jnt_axis + 3 * j, 3, getNum)) {
      return -1;
    }
  }
  return arr ? 0 : -1;
}


// keyframes: names (the page offers them for reset)
static int addKeys(cJSON* root, const mcModel* m) {
  cJSON* arr = cJSON_AddArrayToObject(root, "keys");
  for (int k = 0; arr && k < m->nkey; k++) {
    cJSON* name = cJSON_CreateString(nameAt(m, m->name_keyadr, k));
    if (!name || !cJSON_AddItemToArray(arr, name)) {
      cJSON_Delete(name);
      return -1;
    }
  }
  return arr ? 0 : -1;
}


// actuators: name and control range (the page makes a slider of each)
static int addActuators(cJSON* root, const mcModel* m) {
  cJSON* arr = cJSON_AddArrayToObject(root, "actuators");
  for (int i = 0; arr && i < m->nu; i++) {
    cJSON* o = addItem(arr);
    if (!o ||
        !cJSON_AddStringToObject(o, "name", nameAt(m, m->name_actuatoradr, i)) ||
        !cJSON_AddBoolToObject(o, "ctrllimited", m->actuator_ctrllimited[i]) ||
        addArray(o, "ctrlrange", m->actuator_ctrlrange + 2 * i, 2, getNum)) {
      return -1;
    }
  }
  return arr ? 0 : -1;
}


// the colour a geom is drawn in, as MuJoCo's renderer chooses it: the geom's own rgba when it
// differs from the default 0.5 0.5 0.5 1, else its material's (geom_matrgba; alpha < 0: none)
static void drawColour(const mcModel* m, int g, float rgba[4]) {
  const float* own = m->geom_rgba + 4 * g;
  const float* mat = m->geom_matrgba + 4 * g;
  int isdefault = own[0] == 0.5f && own[1] == 0.5f && own[2] == 0.5f && own[3] == 1.0f;
  memcpy(rgba, isdefault && mat[3] >= 0 ? mat : own, 4 * sizeof(float));
}


// geoms: type, body, size, local frame, colour, mesh id
static int addGeoms(cJSON* root, const mcModel* m) {
  cJSON* arr = cJSON_AddArrayToObject(root, "geoms");
  for (int g = 0; arr && g < m->ngeom; g++) {
    int type = m->geom_type[g];
    float rgba[4];
    drawColour(m, g, rgba);
    cJSON* o = addItem(arr);
    if (!o ||
        !cJSON_AddStringToObject(o, "name", nameAt(m, m->name_geomadr, g)) ||
        !cJSON_AddStringToObject(o, "type",
                                 type >= 0 && type < NGEOMTYPE ? kGeomNames[type] : "unknown") ||
        !cJSON_AddNumberToObject(o, "body", m->geom_bodyid[g]) ||
        !cJSON_AddNumberToObject(o, "group", m->geom_group[g]) ||
        !cJSON_AddNumberToObject(o, "data", m->geom_dataid[g]) ||
        addArray(o, "size", m->geom_size + 3 * g, 3, getNum) ||
        addArray(o, "pos", m->geom_pos + 3 * g, 3, getNum) ||
        addArray(o, "quat", m->geom_quat + 4 * g, 4, getNum) ||
        addArray(o, "rgba", rgba, 4, getFloat)) {
      return -1;
    }
  }
  return arr ? 0 : -1;
}


// meshes: vertices and triangles
static int addMeshes(cJSON* root, const mcModel* m) {
  cJSON* arr = cJSON_AddArrayToObject(root, "meshes");
  for (int k = 0; arr && k < m->nmesh; k++) {
    cJSON* o = addItem(arr);
    if (!o ||
        !cJSON_AddStringToObject(o, "name", nameAt(m, m->name_meshadr, k)) ||
        addArray(o, "vert", m->mesh_vert + 3 * m->mesh_vertadr[k], 3 * m->mesh_vertnum[k],
                 getFloat) ||
        addArray(o, "face", m->mesh_face + 3 * m->mesh_faceadr[k], 3 * m->mesh_facenum[k],
                 getInt)) {
      return -1;
    }
  }
  return arr ? 0 : -1;
}


// height fields: grid size, size (x, y, z_top, z_bottom) and the elevation data (row-major)
static int addHfields(cJSON* root, const mcModel* m) {
  cJSON* arr = cJSON_AddArrayToObject(root, "hfields");
  for (int k = 0; arr && k < m->nhfield; k++) {
    cJSON* o = addItem(arr);
    if (!o ||
        !cJSON_AddStringToObject(o, "name", nameAt(m, m->name_hfieldadr, k)) ||
        !cJSON_AddNumberToObject(o, "nrow", m->hfield_nrow[k]) ||
        !cJSON_AddNumberToObject(o, "ncol", m->hfield_ncol[k]) ||
        addArray(o, "size", m->hfield_size + 4 * k, 4, getNum) ||
        addArray(o, "data", m->hfield_data + m->hfield_adr[k],
                 m->hfield_nrow[k] * m->hfield_ncol[k], getFloat)) {
      return -1;
    }
  }
  return arr ? 0 : -1;
}


char* mcv_describeModel(const mcModel* m, const char* name) {
  cJSON* root = cJSON_CreateObject();
  char* text = NULL;
  if (root && cJSON_AddStringToObject(root, "model", name) &&
      cJSON_AddNumberToObject(root, "timestep", m->opt.timestep) &&
      cJSON_AddNumberToObject(root, "nbody", m->nbody) &&
      cJSON_AddNumberToObject(root, "ngeom", m->ngeom) &&
      cJSON_AddNumberToObject(root, "nq", m->nq) &&
      cJSON_AddNumberToObject(root, "nv", m->nv) &&
      cJSON_AddNumberToObject(root, "nu", m->nu) &&
      !addBodies(root, m) && !addJoints(root, m) && !addGeoms(root, m) && !addMeshes(root, m) && !addHfields(root, m) &&
      !addKeys(root, m) && !addActuators(root, m)) {
    text = cJSON_PrintUnformatted(root);
  }
  cJSON_Delete(root);
  return text;
}
