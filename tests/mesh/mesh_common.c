// Shared helpers of the mesh tests.
#include "mesh_common.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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


void mt_compare(const mcModel* c, const mjModel* m, mtDiff* d) {
  memset(d, 0, sizeof(*d));
  d->inertia_body = -1;
  if (c->nbody != m->nbody || c->ngeom != m->ngeom || c->nmesh != m->nmesh ||
      c->nmeshvert != m->nmeshvert || c->nmeshface != m->nmeshface ||
      c->nmeshgraph != m->nmeshgraph) {
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

  // geoms: pose after re-centring, size, bounding radius
  for (int g = 0; g < m->ngeom; g++) {
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

  // meshes: vertices (relative to the mesh extent), faces and hull graphs exactly
  for (int i = 0; i < m->nmesh; i++) {
    int nv = m->mesh_vertnum[i], nf = m->mesh_facenum[i];
    if (nv != c->mesh_vertnum[i] || nf != c->mesh_facenum[i] ||
        m->mesh_vertadr[i] != c->mesh_vertadr[i] || m->mesh_faceadr[i] != c->mesh_faceadr[i]) {
      d->counts = 1;
      continue;
    }
    const float* v1 = m->mesh_vert + 3 * m->mesh_vertadr[i];
    const float* v2 = c->mesh_vert + 3 * c->mesh_vertadr[i];
    double len = 0;
    for (int k = 0; k < 3 * nv; k++) {
      len = fmax(len, fabs(v1[k]));
    }
    for (int k = 0; k < 3 * nv; k++) {
      d->vert = fmax(d->vert, mt_rel(v2[k], v1[k], len));
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
