// Moduco core: a mesh's support tie chains (mesh_tie), for the collision plugins' mesh support.
//
// The plugins' mesh support is the full scan's vertex: the first mesh vertex (in the vertex list)
// with the largest projection on the direction. They find it by hill climbing on the convex hull
// graph; where the climb ends in a near-tie (a hull face or edge nearly normal to the direction)
// they flood the hull vertices within a tolerance of the top (plugins/collision-convex/support.h)
// and weigh, besides those, the mesh points that can tie with or beat them without being hull
// vertices. This file lists those points, per hull vertex, as a chain: mesh_tie[g] (g the hull
// vertex's mesh index) is the first point of its chain, mesh_tie[of that point] the next, -1 ends.
// Every point other than a hull vertex sits in at most one chain, so one int per mesh vertex holds
// all chains. What goes in the chain of hull vertex g:
// - the first mesh vertex at g's point, when it comes before g (same projection, earlier in the
//   scan);
// - every other point (the first copy of it) whose distance to the hull's surface, as the
//   compiled (float) vertices place it, is at most TIE_NEAR of the mesh's size, in the chain of
//   the corner with the largest barycentric weight at its nearest point on the nearest hull
//   triangle.
// Why that suffices: a point that wins the scan for a unit direction d lies within rounding of
// the surface (the mesh lies in the hull; the compiled vertices and their projections are
// rounded: ~1e-7 of the size), so its nearest surface point y (barycentric weights l_i on the
// triangle's corners h_i) has d.y within that rounding r of the top M, sum l_i (M - d.h_i) <= r,
// and the corner with l_i >= 1/3 is within 3 r of the top: in the flood (tolerance 1e-5 of the
// size, far above 3 r), whose chain then holds the point. Points farther inside never win.
// No chains (mesh_tied 0: the plugins scan all vertices on a tie) when two hull vertices share a
// point, for non-finite coordinates, or when the face grid below would grow too large.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler_mesh.h"

// points within this fraction of the mesh size (largest vertex norm) of the hull surface enter
// a chain (a bound far above the rounding of the compiled vertices, ~1e-7, and below the
// plugins' flood tolerance, 1e-5)
#define TIE_NEAR 1e-6

// cells per axis of the face grid at most, and face-cell entries at most (16 MB; the corpus
// meshes need up to 48k)
#define TIE_GRID_MAX 48
#define TIE_GRID_ENTRIES (1 << 22)

// a vertex with its index, for grouping equal points
typedef struct {
  float x[3];
  int i;
} TiePoint;


// order by coordinates, then index (equal floats compare equal, -0 as 0)
static int tieCmp(const void* pa, const void* pb) {
  const TiePoint* a = (const TiePoint*)pa;
  const TiePoint* b = (const TiePoint*)pb;
  for (int k = 0; k < 3; k++) {
    if (a->x[k] != b->x[k]) {
      return a->x[k] < b->x[k] ? -1 : 1;
    }
  }
  return (a->i > b->i) - (a->i < b->i);
}


static int tieSame(const float* a, const float* b) {
  return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}


// squared distance from p to the triangle (a, b, c) and, in *corner (0, 1, 2), the corner with
// the largest barycentric weight at the nearest point of the triangle
static double tieTriangle(const double p[3], const double* t[3], int* corner) {
  double ab[3], ac[3], ap[3];
  for (int k = 0; k < 3; k++) {
    ab[k] = t[1][k] - t[0][k];
    ac[k] = t[2][k] - t[0][k];
    ap[k] = p[k] - t[0][k];
  }
  double d00 = ab[0]*ab[0] + ab[1]*ab[1] + ab[2]*ab[2];
  double d01 = ab[0]*ac[0] + ab[1]*ac[1] + ab[2]*ac[2];
  double d11 = ac[0]*ac[0] + ac[1]*ac[1] + ac[2]*ac[2];
  double d20 = ap[0]*ab[0] + ap[1]*ab[1] + ap[2]*ab[2];
  double d21 = ap[0]*ac[0] + ap[1]*ac[1] + ap[2]*ac[2];
  double den = d00*d11 - d01*d01;

  // the foot of the perpendicular, when it falls inside
  if (den > 1e-12*d00*d11) {
    double w[3];
    w[1] = (d11*d20 - d01*d21) / den;
    w[2] = (d00*d21 - d01*d20) / den;
    w[0] = 1 - w[1] - w[2];
    if (w[0] >= 0 && w[1] >= 0 && w[2] >= 0) {
      double dd = 0;
      for (int k = 0; k < 3; k++) {
        double q = ap[k] - w[1]*ab[k] - w[2]*ac[k];
        dd += q*q;
      }
      *corner = w[0] >= w[1] && w[0] >= w[2] ? 0 : (w[1] >= w[2] ? 1 : 2);
      return dd;
    }
  }

  // else the nearest point of the three edges
  double best = INFINITY;
  for (int e = 0; e < 3; e++) {
    const double* x = t[e];
    const double* y = t[(e + 1) % 3];
    double xy[3] = {y[0] - x[0], y[1] - x[1], y[2] - x[2]};
    double xp[3] = {p[0] - x[0], p[1] - x[1], p[2] - x[2]};
    double ll = xy[0]*xy[0] + xy[1]*xy[1] + xy[2]*xy[2];
    double s = ll > 0 ? (xp[0]*xy[0] + xp[1]*xy[1] + xp[2]*xy[2]) / ll : 0;
    s = s < 0 ? 0 : (s > 1 ? 1 : s);
    double dd = 0;
    for (int k = 0; k < 3; k++) {
      double q = xp[k] - s*xy[k];
      dd += q*q;
    }
    if (dd < best) {
      best = dd;
      *corner = s <= 0.5 ? e : (e + 1) % 3;
    }
  }
  return best;
}


// the hull triangles (global vertex ids) in a uniform grid over the vertices' bounding box, each
// in every cell its bounding box grown by near overlaps; cell c holds item[start[c] ..
// start[c + 1]); 0 if too large
typedef struct {
  double lo[3], cell[3];
  int n[3];
  int* start;
  int* item;
} TieGrid;


static void tieCellRange(const TieGrid* g, const double lo[3], const double hi[3], int a[3],
                         int b[3]) {
  for (int k = 0; k < 3; k++) {
    double fa = floor((lo[k] - g->lo[k]) / g->cell[k]);
    double fb = floor((hi[k] - g->lo[k]) / g->cell[k]);
    a[k] = fa < 0 ? 0 : (fa > g->n[k] - 1 ? g->n[k] - 1 : (int)fa);
    b[k] = fb < 0 ? 0 : (fb > g->n[k] - 1 ? g->n[k] - 1 : (int)fb);
  }
}


static int tieGridBuild(TieGrid* g, const double* v, int nvert, const int* face, int nface,
                        double near) {
  double hi[3];
  for (int k = 0; k < 3; k++) {
    g->lo[k] = hi[k] = v[k];
  }
  for (int i = 1; i < nvert; i++) {
    for (int k = 0; k < 3; k++) {
      g->lo[k] = fmin(g->lo[k], v[3*i + k]);
      hi[k] = fmax(hi[k], v[3*i + k]);
    }
  }
  int side = (int)ceil(cbrt((double)nface));
  side = side < 1 ? 1 : (side > TIE_GRID_MAX ? TIE_GRID_MAX : side);
  for (int k = 0; k < 3; k++) {
    double ext = hi[k] - g->lo[k];
    g->n[k] = ext > 0 ? side : 1;
    g->cell[k] = ext > 0 ? ext / side : 1;
  }
  int ncell = g->n[0]*g->n[1]*g->n[2];
  g->start = (int*)calloc((size_t)ncell + 1, sizeof(int));
  if (!g->start) {
    return 0;
  }

  // two passes over the faces: count per cell, then fill
  long total = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (int f = 0; f < nface; f++) {
      double flo[3], fhi[3];
      for (int k = 0; k < 3; k++) {
        flo[k] = fmin(fmin(v[3*face[3*f] + k], v[3*face[3*f + 1] + k]), v[3*face[3*f + 2] + k]);
        fhi[k] = fmax(fmax(v[3*face[3*f] + k], v[3*face[3*f + 1] + k]), v[3*face[3*f + 2] + k]);
        flo[k] -= near;
        fhi[k] += near;
      }
      int a[3], b[3];
      tieCellRange(g, flo, fhi, a, b);
      for (int x = a[0]; x <= b[0]; x++) {
        for (int y = a[1]; y <= b[1]; y++) {
          for (int z = a[2]; z <= b[2]; z++) {
            int c = (x*g->n[1] + y)*g->n[2] + z;
            if (pass) {
              g->item[g->start[c + 1]++] = f;
            } else {
              g->start[c + 1]++;
              total++;
            }
          }
        }
      }
    }
    if (!pass) {
      if (total > TIE_GRID_ENTRIES) {
        return 0;
      }
      g->item = (int*)malloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
      if (!g->item) {
        return 0;
      }
      // start[c + 1] becomes the fill position of cell c (start[c]), reaching start[c + 1]
      for (int c = 0; c < ncell; c++) {
        g->start[c + 1] += g->start[c];
      }
      memmove(g->start + 1, g->start, sizeof(int) * (size_t)ncell);
      g->start[0] = 0;
    }
  }
  return 1;
}


// link the points near the surface into the chains (see the top); 0 if the grid fails
static int tieNearPoints(const float* vf, int nvert, const int* face, int nface,
                         const unsigned char* candidate, int* tie) {
  double* v = (double*)malloc(sizeof(double) * 3 * (size_t)nvert);
  TieGrid g = {{0}, {0}, {0}, NULL, NULL};
  double size = 0;
  int ok = v != NULL;
  for (int i = 0; ok && i < nvert; i++) {
    for (int k = 0; k < 3; k++) {
      v[3*i + k] = vf[3*i + k];
    }
    size = fmax(size, sqrt(v[3*i]*v[3*i] + v[3*i + 1]*v[3*i + 1] + v[3*i + 2]*v[3*i + 2]));
  }
  double near = TIE_NEAR*size;
  ok = ok && tieGridBuild(&g, v, nvert, face, nface, near);
  for (int i = 0; ok && i < nvert; i++) {
    if (!candidate[i]) {
      continue;
    }
    int c0[3], c1[3], best = -1;
    double bestdd = near*near;
    tieCellRange(&g, v + 3*i, v + 3*i, c0, c1);
    int c = (c0[0]*g.n[1] + c0[1])*g.n[2] + c0[2];
    for (int j = g.start[c]; j < g.start[c + 1]; j++) {
      const int* f = face + 3*g.item[j];
      const double* t[3] = {v + 3*f[0], v + 3*f[1], v + 3*f[2]};
      int corner = 0;
      double dd = tieTriangle(v + 3*i, t, &corner);
      if (dd <= bestdd) {
        bestdd = dd;
        best = f[corner];
      }
    }
    if (best >= 0) {
      tie[i] = tie[best];
      tie[best] = i;
    }
  }
  free(g.start);
  free(g.item);
  free(v);
  return ok;
}


int mcc_meshTieChains(const float* v, int nvert, const int* graph, int* tie) {
  int nv = graph[0], nf = graph[1];
  if (nvert <= 0 || nv <= 0 || nf <= 0 || nv > nvert) {
    return 0;
  }
  const int* gid = graph + 2 + nv;
  const int* face = graph + 2 + 3*nv + 3*nf;
  for (int i = 0; i < 3*nvert; i++) {
    if (!isfinite(v[i])) {
      return 0;
    }
  }
  for (int j = 0; j < 3*nf; j++) {
    if (face[j] < 0 || face[j] >= nvert) {
      return 0;
    }
  }
  TiePoint* pt = (TiePoint*)malloc(sizeof(TiePoint) * (size_t)nvert);
  unsigned char* hull = (unsigned char*)calloc((size_t)nvert, 1);
  unsigned char* candidate = (unsigned char*)calloc((size_t)nvert, 1);
  int ok = pt && hull && candidate;
  for (int k = 0; ok && k < nv; k++) {
    ok = gid[k] >= 0 && gid[k] < nvert && !hull[gid[k]];
    if (ok) {
      hull[gid[k]] = 1;
    }
  }
  for (int i = 0; ok && i < nvert; i++) {
    memcpy(pt[i].x, v + 3*i, sizeof(pt[i].x));
    pt[i].i = i;
    tie[i] = -1;
  }

  // groups of equal points: the first copy goes into the chain of the group's hull vertex, or
  // is a candidate for a near point when the group has none; two hull vertices at one point: no
  // chains
  if (ok) {
    qsort(pt, (size_t)nvert, sizeof(TiePoint), tieCmp);
  }
  for (int a = 0, b = 0; ok && a < nvert; a = b) {
    int h = -1, nh = 0;
    for (b = a; b < nvert && tieSame(pt[b].x, pt[a].x); b++) {
      if (hull[pt[b].i]) {
        h = pt[b].i;
        nh++;
      }
    }
    int first = pt[a].i;
    ok = nh <= 1;
    if (ok && h >= 0 && first != h) {
      tie[h] = first;
    } else if (ok && h < 0) {
      candidate[first] = 1;
    }
  }
  ok = ok && tieNearPoints(v, nvert, face, nf, candidate, tie);
  free(pt);
  free(hull);
  free(candidate);
  return ok;
}
