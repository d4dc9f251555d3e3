// Shared helpers of the mesh tests.
#include "mesh_common.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

void mt_tempdir(char* dir) {
  snprintf(dir, 64, "/tmp/moduco-mesh-XXXXXX");
  cr_assert_not_null(mkdtemp(dir), "mkdtemp failed");
}


void mt_cleanup(const char* dir) {
  char cmd[256];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  if (strncmp(dir, "/tmp/moduco-mesh-", 17) == 0) {
    int rc = system(cmd);
    (void)rc;
  }
}


void mt_write(const char* dir, const char* name, const void* data, size_t len) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  cr_assert_not_null(f, "cannot write %s", path);
  cr_assert_eq(fwrite(data, 1, len, f), len);
  fclose(f);
}


void mt_writeSTL(const char* dir, const char* name, const float* tri, int ntri) {
  size_t len = 84 + 50 * (size_t)ntri;
  unsigned char* b = (unsigned char*)calloc(1, len);
  memcpy(b, "binary stl written by the moduco tests", 38);
  uint32_t n = (uint32_t)ntri;
  memcpy(b + 80, &n, 4);
  for (int i = 0; i < ntri; i++) {
    memcpy(b + 84 + 50 * (size_t)i + 12, tri + 9 * i, 36);
  }
  mt_write(dir, name, b, len);
  free(b);
}


void mt_writeSTLText(const char* dir, const char* name, const float* tri, int ntri) {
  size_t cap = 256 + 256 * (size_t)ntri, len = 0;
  char* s = (char*)malloc(cap);
  len += (size_t)snprintf(s + len, cap - len, "solid test\n");
  for (int i = 0; i < ntri; i++) {
    const float* t = tri + 9 * i;
    len += (size_t)snprintf(s + len, cap - len, "  facet normal 0 0 0\n    outer loop\n");
    for (int k = 0; k < 3; k++) {
      len += (size_t)snprintf(s + len, cap - len, "      vertex %.9g %.9g %.9g\n", t[3 * k],
                              t[3 * k + 1], t[3 * k + 2]);
    }
    len += (size_t)snprintf(s + len, cap - len, "    endloop\n  endfacet\n");
  }
  len += (size_t)snprintf(s + len, cap - len, "endsolid test\n");
  mt_write(dir, name, s, len);
  free(s);
}


void mt_boxTriangles(float tri[108], float a, float b, float c) {
  // corners: bit 0 = x, bit 1 = y, bit 2 = z
  float v[8][3];
  for (int i = 0; i < 8; i++) {
    v[i][0] = (i & 1) ? a : 0;
    v[i][1] = (i & 2) ? b : 0;
    v[i][2] = (i & 4) ? c : 0;
  }
  static const int f[12][3] = {
    {0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6},     // z = 0, z = c
    {0, 1, 4}, {1, 5, 4}, {2, 6, 3}, {3, 6, 7},     // y = 0, y = b
    {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5},     // x = 0, x = a
  };
  for (int t = 0; t < 12; t++) {
    for (int k = 0; k < 3; k++) {
      memcpy(tri + 9 * t + 3 * k, v[f[t][k]], sizeof(float) * 3);
    }
  }
}


mcModel* mt_loadMC(const char* dir, const char* name, char* err, int err_sz) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  return mc_loadXML(path, err, err_sz);
}


mjModel* mt_loadMJ(const char* dir, const char* name, char* err, int err_sz) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  return mj_loadXML(path, NULL, err, err_sz);
}


// R diag(d) R' of a principal inertia
static void mt_fullInertia(const double q[4], const double d[3], double T[9]) {
  double R[9];
  mju_quat2Mat(R, q);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      T[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) {
        T[3 * i + j] += R[3 * i + k] * d[k] * R[3 * j + k];
      }
    }
  }
}


static double mt_rel(double a, double b, double scale) {
  return fabs(a - b) / fmax(scale, 1e-300);
}


static int mt_cmpVert(const void* a, const void* b) {
  const float* x = (const float*)a;
  const float* y = (const float*)b;
  for (int k = 0; k < 3; k++) {
    if (x[k] != y[k]) {
      return x[k] < y[k] ? -1 : 1;
    }
  }
  return 0;
}


// largest distance (relative to len) from a vertex of p (np) to the nearest vertex of q (nq):
// every vertex of p must be one of q's
static double mt_vertSets(const float* p, int np, const float* q, int nq, double len) {
  double worst = 0;
  float* sorted = malloc(sizeof(float) * 3 * (size_t)(nq > 0 ? nq : 1));
  cr_assert_not_null(sorted);
  memcpy(sorted, q, sizeof(float) * 3 * (size_t)nq);
  qsort(sorted, (size_t)nq, sizeof(float) * 3, mt_cmpVert);
  for (int i = 0; i < np; i++) {
    if (bsearch(p + 3 * i, sorted, (size_t)nq, sizeof(float) * 3, mt_cmpVert)) {
      continue;
    }
    double best = INFINITY;                        // not there: the nearest one
    for (int j = 0; j < nq; j++) {
      double e = 0;
      for (int k = 0; k < 3; k++) {
        e = fmax(e, mt_rel(p[3 * i + k], q[3 * j + k], len));
      }
      best = fmin(best, e);
    }
    worst = fmax(worst, best);
  }
  free(sorted);
  return worst;
}


void mt_compareFields(const mcModel* c, const mtFields* m, mtDiff* d) {
  memset(d, 0, sizeof(*d));
  d->inertia_body = -1;
  if (c->nbody != m->nbody || c->ngeom != m->ngeom || c->nmesh != m->nmesh) {
    d->counts = 1;
    return;
  }

  // bodies: mass, centre of mass, inertia as a full tensor (frame conventions cancel)
  for (int b = 1; b < m->nbody; b++) {
    d->mass = fmax(d->mass, mt_rel(c->body_mass[b], m->body_mass[b], m->body_mass[b]));
    double len = 1e-3, T1[9], T2[9], n = 0;
    for (int k = 0; k < 3; k++) {
      len = fmax(len, fabs(m->body_ipos[3 * b + k]));
      n = fmax(n, m->body_inertia[3 * b + k]);
    }
    for (int k = 0; k < 3; k++) {
      d->ipos = fmax(d->ipos, mt_rel(c->body_ipos[3 * b + k], m->body_ipos[3 * b + k], len));
    }
    mt_fullInertia(m->body_iquat + 4 * b, m->body_inertia + 3 * b, T1);
    mt_fullInertia(c->body_iquat + 4 * b, c->body_inertia + 3 * b, T2);
    for (int k = 0; k < 9; k++) {
      double e = mt_rel(T2[k], T1[k], n);
      if (e > d->inertia) {
        d->inertia = e;
        d->inertia_body = b;
      }
    }
  }

  // mesh geoms: pose after re-centring, size, bounding radius
  for (int g = 0; g < m->ngeom; g++) {
    if (c->geom_type[g] != mcGEOM_MESH) {
      continue;
    }
    double len = 1e-3, dq1 = 0, dq2 = 0;
    for (int k = 0; k < 3; k++) {
      len = fmax(len, fabs(m->geom_pos[3 * g + k]));
    }
    for (int k = 0; k < 3; k++) {
      d->gpos = fmax(d->gpos, mt_rel(c->geom_pos[3 * g + k], m->geom_pos[3 * g + k], len));
      d->gsize = fmax(d->gsize, mt_rel(c->geom_size[3 * g + k], m->geom_size[3 * g + k],
                                       fmax(fabs(m->geom_size[3 * g + k]), 1e-12)));
    }
    for (int k = 0; k < 4; k++) {
      dq1 = fmax(dq1, fabs(c->geom_quat[4 * g + k] - m->geom_quat[4 * g + k]));
      dq2 = fmax(dq2, fabs(c->geom_quat[4 * g + k] + m->geom_quat[4 * g + k]));
    }
    d->gquat = fmax(d->gquat, fmin(dq1, dq2));
    d->rbound = fmax(d->rbound, mt_rel(c->geom_rbound[g], m->geom_rbound[g],
                                       fmax(m->geom_rbound[g], 1e-12)));
  }

  // meshes: vertices (relative to the mesh extent), one to one, or as sets when that is closer
  for (int i = 0; i < m->nmesh; i++) {
    int nv = m->mesh_vertnum[i], nc = c->mesh_vertnum[i];
    const float* v1 = m->mesh_vert + 3 * m->mesh_vertadr[i];
    const float* v2 = c->mesh_vert + 3 * c->mesh_vertadr[i];
    double len = 0;
    for (int k = 0; k < 3 * nv; k++) {
      len = fmax(len, fabs(v1[k]));
    }
    double e = INFINITY;
    if (nv == nc) {
      e = 0;
      for (int k = 0; k < 3 * nv; k++) {
        e = fmax(e, mt_rel(v2[k], v1[k], len));
      }
    }
    if (e > 0) {
      double es = mt_vertSets(v2, nc, v1, nv, len);
      if (es < e) {
        e = es;
        d->vertsets++;
      }
    }
    d->vert = fmax(d->vert, e);
  }
}


void mt_compareStructure(const mcModel* c, const mjModel* m, mtDiff* d) {
  memset(d, 0, sizeof(*d));
  d->inertia_body = -1;
  if (c->nbody != m->nbody || c->ngeom != m->ngeom || c->nmesh != m->nmesh ||
      c->nmeshvert != m->nmeshvert || c->nmeshface != m->nmeshface ||
      c->nmeshgraph != m->nmeshgraph) {
    d->counts = 1;
    return;
  }

  // meshes: vertex and face counts, faces and hull graphs exactly
  for (int i = 0; i < m->nmesh; i++) {
    int nf = m->mesh_facenum[i];
    if (nf != c->mesh_facenum[i] || m->mesh_faceadr[i] != c->mesh_faceadr[i] ||
        m->mesh_vertnum[i] != c->mesh_vertnum[i] || m->mesh_vertadr[i] != c->mesh_vertadr[i]) {
      d->counts = 1;
      continue;
    }
    if (memcmp(m->mesh_face + 3 * m->mesh_faceadr[i], c->mesh_face + 3 * c->mesh_faceadr[i],
               sizeof(int) * 3 * (size_t)nf)) {
      d->faces++;
    }
    int g1 = m->mesh_graphadr[i], g2 = c->mesh_graphadr[i];
    if ((g1 < 0) != (g2 < 0)) {
      d->graphs++;
    } else if (g1 >= 0) {
      const int* a = m->mesh_graph + g1;
      const int* b = c->mesh_graph + g2;
      int n = 2 + 3 * a[0] + 6 * a[1];
      if (a[0] != b[0] || a[1] != b[1] || memcmp(a, b, sizeof(int) * (size_t)n)) {
        d->graphs++;
      }
    }
  }
}


//---------------------------------- MuJoCo 3.14 ---------------------------------------------------

cJSON* mt_reference3(const char* dir, const char* const* models) {
  return mt_referenceVersion(dir, models, "3.14.0");
}


cJSON* mt_referenceVersion(const char* dir, const char* const* models, const char* version) {
  TU_MJS3_REQUIRE();
  int n = 0;
  while (models[n]) {
    n++;
  }
  const char** args = calloc((size_t)n + 4, sizeof(char*));
  cr_assert_not_null(args);
  // the script's default is 3.14: the option only for another version
  int a = 0;
  if (strcmp(version, "3.14.0")) {
    args[a++] = "--mujoco";
    args[a++] = version;
  }
  args[a++] = dir;
  for (int i = 0; i < n; i++) {
    args[a + i] = models[i];
  }
  char err[1024] = "";
  cJSON* out = tu_mjs3Json("tests/mesh/inertia_ref.mjs", args, NULL, err, sizeof(err));
  free(args);
  cr_assert_not_null(out, "MuJoCo %s reference: %s", version, err);
  const cJSON* list = cJSON_GetObjectItemCaseSensitive(out, "models");
  cr_assert(cJSON_IsArray(list) && cJSON_GetArraySize(list) == n,
            "the reference returned %d models, expected %d",
            cJSON_IsArray(list) ? cJSON_GetArraySize(list) : -1, n);
  return out;
}


static const cJSON* mt_refModel(const cJSON* out, int k) {
  return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(out, "models"), k);
}


const char* mt_refError(const cJSON* out, int k) {
  const cJSON* e = cJSON_GetObjectItemCaseSensitive(mt_refModel(out, k), "error");
  return cJSON_IsString(e) ? e->valuestring : NULL;
}


// the field of a reference model as an array of n (n < 0: any length, returned in *len)
static const cJSON* mt_refArray(const cJSON* model, const char* field, int* len) {
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(model, field);
  cr_assert(cJSON_IsArray(a), "reference field %s missing", field);
  *len = cJSON_GetArraySize(a);
  return a;
}


void mt_refFields(const cJSON* out, int k, mtRefFields* r) {
  const cJSON* model = mt_refModel(out, k);
  cr_assert_null(mt_refError(out, k), "MuJoCo 3.14 refused model %d: %s", k, mt_refError(out, k));
  static const char* const dbl[8] = {"body_mass", "body_ipos", "body_iquat", "body_inertia",
                                     "geom_pos", "geom_quat", "geom_size", "geom_rbound"};
  int len[8], nadr, nnum, nvert;
  size_t total = 0;
  for (int i = 0; i < 8; i++) {
    mt_refArray(model, dbl[i], len + i);
    total += (size_t)len[i];
  }
  mt_refArray(model, "mesh_vertadr", &nadr);
  mt_refArray(model, "mesh_vertnum", &nnum);
  mt_refArray(model, "mesh_vert", &nvert);
  cr_assert_eq(nadr, nnum);
  size_t bytes = sizeof(double) * total + sizeof(int) * 2 * (size_t)nadr +
                 sizeof(float) * (size_t)nvert + 16;
  char* buf = calloc(1, bytes);
  cr_assert_not_null(buf);
  r->buf = buf;
  double* p = (double*)buf;
  const double* arr[8];
  for (int i = 0; i < 8; i++) {
    const cJSON* a = cJSON_GetObjectItemCaseSensitive(model, dbl[i]);
    arr[i] = p;
    for (int j = 0; j < len[i]; j++) {
      *p++ = cJSON_GetArrayItem(a, j)->valuedouble;
    }
  }
  int* ip = (int*)p;
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(model, "mesh_vertadr");
  const cJSON* b = cJSON_GetObjectItemCaseSensitive(model, "mesh_vertnum");
  for (int j = 0; j < nadr; j++) {
    ip[j] = cJSON_GetArrayItem(a, j)->valueint;
    ip[nadr + j] = cJSON_GetArrayItem(b, j)->valueint;
  }
  float* fp = (float*)(ip + 2 * nadr);
  a = cJSON_GetObjectItemCaseSensitive(model, "mesh_vert");
  int j = 0;
  const cJSON* it;
  cJSON_ArrayForEach(it, a) {
    fp[j++] = (float)it->valuedouble;
  }
  mtFields f = {len[0], len[7], nadr, arr[0], arr[1], arr[2], arr[3], arr[4], arr[5], arr[6],
                arr[7], ip, ip + nadr, fp};
  r->f = f;
}


void mt_freeFields(mtRefFields* r) {
  free(r->buf);
  r->buf = NULL;
}


mcModel* mt_loadCompared(const char* dir, const char* name, const cJSON* out, int k, mtDiff* d) {
  char err[1024] = "";
  mcModel* m = mt_loadMC(dir, name, err, sizeof(err));
  cr_assert_not_null(m, "%s: %s", name, err);
  mtRefFields ref;
  mt_refFields(out, k, &ref);
  mt_compareFields(m, &ref.f, d);
  mt_freeFields(&ref);
  return m;
}
