// Moduco plugin "sensor-standard": ray casting against geoms (rangefinder) and against a site's
// volume (touch). A ray is pnt + x vec, x >= 0; every function returns the smallest such x where
// the ray meets the surface, or -1.
#include <math.h>

#include "ray.h"
#include "smath.h"


//---------------------------------- local-frame primitives ----------------------------------------

// keep the smaller nonnegative candidate
static inline mcNum nearest(mcNum best, mcNum x) {
  if (x >= 0 && (best < 0 || x < best)) {
    return x;
  }
  return best;
}


// roots of a x^2 + 2 b x + c = 0 (a > 0): the smallest nonnegative one, or -1
static mcNum quadratic(mcNum a, mcNum b, mcNum c) {
  mcNum det = b * b - a * c;
  if (det < 0 || a < mcMINVAL) {
    return -1;
  }
  mcNum s = sqrt(det);
  mcNum x1 = (-b - s) / a, x2 = (-b + s) / a;
  return x1 >= 0 ? x1 : (x2 >= 0 ? x2 : -1);
}


// plane z = 0 seen from above, bounded by size[0], size[1] when positive
static mcNum rayPlane(const mcNum* size, const mcNum p[3], const mcNum v[3]) {
  if (v[2] > -mcMINVAL) {
    return -1;
  }
  mcNum x = -p[2] / v[2];
  if (x < 0) {
    return -1;
  }
  mcNum a = p[0] + x * v[0], b = p[1] + x * v[1];
  if ((size[0] > 0 && fabs(a) > size[0]) || (size[1] > 0 && fabs(b) > size[1])) {
    return -1;
  }
  return x;
}


// sphere of radius r at the origin
static mcNum raySphere(mcNum r, const mcNum p[3], const mcNum v[3]) {
  return quadratic(ss_dot3(v, v), ss_dot3(p, v), ss_dot3(p, p) - r * r);
}


// side of a cylinder of radius r, |z| <= h
static mcNum rayCylSide(mcNum r, mcNum h, const mcNum p[3], const mcNum v[3]) {
  mcNum a = v[0] * v[0] + v[1] * v[1];
  mcNum b = p[0] * v[0] + p[1] * v[1];
  mcNum c = p[0] * p[0] + p[1] * p[1] - r * r;
  mcNum det = b * b - a * c;
  if (a < mcMINVAL || det < 0) {
    return -1;
  }
  mcNum s = sqrt(det), best = -1;
  mcNum xs[2] = {(-b - s) / a, (-b + s) / a};
  for (int k = 0; k < 2; k++) {
    if (xs[k] >= 0 && fabs(p[2] + xs[k] * v[2]) <= h) {
      best = nearest(best, xs[k]);
    }
  }
  return best;
}


// capsule: cylinder side and the outer halves of the two end spheres
static mcNum rayCapsule(const mcNum* size, const mcNum p[3], const mcNum v[3]) {
  mcNum r = size[0], h = size[1];
  mcNum best = rayCylSide(r, h, p, v);
  for (int s = -1; s <= 1; s += 2) {
    mcNum q[3] = {p[0], p[1], p[2] - s * h};
    mcNum a = ss_dot3(v, v), b = ss_dot3(q, v), c = ss_dot3(q, q) - r * r;
    mcNum det = b * b - a * c;
    if (det < 0 || a < mcMINVAL) {
      continue;
    }
    mcNum sd = sqrt(det);
    mcNum xs[2] = {(-b - sd) / a, (-b + sd) / a};
    for (int k = 0; k < 2; k++) {
      if (xs[k] >= 0 && s * (q[2] + xs[k] * v[2]) >= 0) {
        best = nearest(best, xs[k]);
      }
    }
  }
  return best;
}


// ellipsoid with semi-axes size: a unit sphere after scaling
static mcNum rayEllipsoid(const mcNum* size, const mcNum p[3], const mcNum v[3]) {
  mcNum q[3], w[3];
  for (int k = 0; k < 3; k++) {
    q[k] = p[k] / size[k];
    w[k] = v[k] / size[k];
  }
  return raySphere(1, q, w);
}


// cylinder: side and the two caps
static mcNum rayCylinder(const mcNum* size, const mcNum p[3], const mcNum v[3]) {
  mcNum r = size[0], h = size[1];
  mcNum best = rayCylSide(r, h, p, v);
  if (fabs(v[2]) > mcMINVAL) {
    for (int s = -1; s <= 1; s += 2) {
      mcNum x = (s * h - p[2]) / v[2];
      mcNum a = p[0] + x * v[0], b = p[1] + x * v[1];
      if (x >= 0 && a * a + b * b <= r * r) {
        best = nearest(best, x);
      }
    }
  }
  return best;
}


// box with half-sizes size: the six faces
static mcNum rayBox(const mcNum* size, const mcNum p[3], const mcNum v[3]) {
  mcNum best = -1;
  for (int i = 0; i < 3; i++) {
    if (fabs(v[i]) < mcMINVAL) {
      continue;
    }
    int j = (i + 1) % 3, k = (i + 2) % 3;
    for (int s = -1; s <= 1; s += 2) {
      mcNum x = (s * size[i] - p[i]) / v[i];
      if (x < 0) {
        continue;
      }
      if (fabs(p[j] + x * v[j]) <= size[j] && fabs(p[k] + x * v[k]) <= size[k]) {
        best = nearest(best, x);
      }
    }
  }
  return best;
}


// triangle (a, b, c): Moller-Trumbore
static mcNum rayTriangle(const mcNum a[3], const mcNum b[3], const mcNum c[3], const mcNum p[3],
                         const mcNum v[3]) {
  mcNum e1[3], e2[3], s[3], h[3], q[3];
  for (int k = 0; k < 3; k++) {
    e1[k] = b[k] - a[k];
    e2[k] = c[k] - a[k];
    s[k] = p[k] - a[k];
  }
  ss_cross(h, v, e2);
  mcNum det = ss_dot3(e1, h);
  if (fabs(det) < mcMINVAL) {
    return -1;
  }
  mcNum inv = 1 / det, u = inv * ss_dot3(s, h);
  if (u < 0 || u > 1) {
    return -1;
  }
  ss_cross(q, s, e1);
  mcNum w = inv * ss_dot3(v, q);
  if (w < 0 || u + w > 1) {
    return -1;
  }
  return inv * ss_dot3(e2, q);
}


// mesh: every face
static mcNum rayMesh(const mcModel* m, int meshid, const mcNum p[3], const mcNum v[3]) {
  if (meshid < 0 || meshid >= m->nmesh) {
    return -1;
  }
  const float* vert = m->mesh_vert + 3 * m->mesh_vertadr[meshid];
  const int* face = m->mesh_face + 3 * m->mesh_faceadr[meshid];
  mcNum best = -1;
  for (int f = 0; f < m->mesh_facenum[meshid]; f++) {
    mcNum t[3][3];
    for (int k = 0; k < 3; k++) {
      const float* q = vert + 3 * face[3 * f + k];
      t[k][0] = q[0];
      t[k][1] = q[1];
      t[k][2] = q[2];
    }
    best = nearest(best, rayTriangle(t[0], t[1], t[2], p, v));
  }
  return best;
}


// a grid index from a floating-point cell coordinate x, clamped to [0, hi] before the cast
static int cellIndex(mcNum x, int hi) {
  return x < 0 ? 0 : (x > hi ? hi : (int)x);
}


// height field: the solid under the triangulated surface (two triangles per grid cell, split
// along the diagonal from (c, r) to (c+1, r+1)) over the rectangle, on top of the base box
// z in [-size[3], 0]; the sides of the solid are the vertical faces of the top box z in
// [0, size[2]] below the boundary profile
static mcNum rayHfield(const mcModel* m, int hid, const mcNum p[3], const mcNum v[3]) {
  if (hid < 0 || hid >= m->nhfield) {
    return -1;
  }
  int nrow = m->hfield_nrow[hid], ncol = m->hfield_ncol[hid];
  const mcNum* size = m->hfield_size + 4 * hid;
  const float* data = m->hfield_data + m->hfield_adr[hid];

  // base box
  mcNum bsize[3] = {size[0], size[1], 0.5 * size[3]};
  mcNum pb[3] = {p[0], p[1], p[2] + 0.5 * size[3]};
  mcNum best = rayBox(bsize, pb, v);
  if (nrow < 2 || ncol < 2) {
    return best;
  }

  // the part of the ray inside the top box [-size0, size0] x [-size1, size1] x [0, size2]
  mcNum lo[3] = {-size[0], -size[1], 0}, hi[3] = {size[0], size[1], size[2]};
  mcNum t0 = 0, t1 = 1e300;
  for (int k = 0; k < 3; k++) {
    if (fabs(v[k]) < mcMINVAL) {
      if (p[k] < lo[k] || p[k] > hi[k]) {
        return best;
      }
      continue;
    }
    mcNum a = (lo[k] - p[k]) / v[k], b = (hi[k] - p[k]) / v[k];
    if (a > b) {
      mcNum t = a;
      a = b;
      b = t;
    }
    t0 = a > t0 ? a : t0;
    t1 = b < t1 ? b : t1;
  }
  if (t0 > t1) {
    return best;
  }

  // grid cells under that part (one cell of padding on each side); a non-finite ray (a diverged
  // state) hits nothing, and the cell range is clamped in floating point before the int cast
  mcNum dx = 2 * size[0] / (ncol - 1), dy = 2 * size[1] / (nrow - 1);
  mcNum x0 = (p[0] + t0 * v[0] + size[0]) / dx, x1 = (p[0] + t1 * v[0] + size[0]) / dx;
  mcNum y0 = (p[1] + t0 * v[1] + size[1]) / dy, y1 = (p[1] + t1 * v[1] + size[1]) / dy;
  if (!isfinite(x0) || !isfinite(x1) || !isfinite(y0) || !isfinite(y1)) {
    return best;
  }
  int cmin = cellIndex(floor(x0 < x1 ? x0 : x1) - 1, ncol - 1);
  int cmax = cellIndex(ceil(x0 > x1 ? x0 : x1) + 1, ncol - 1);
  int rmin = cellIndex(floor(y0 < y1 ? y0 : y1) - 1, nrow - 1);
  int rmax = cellIndex(ceil(y0 > y1 ? y0 : y1) + 1, nrow - 1);

  // the surface
  for (int r = rmin; r < rmax; r++) {
    for (int c = cmin; c < cmax; c++) {
      mcNum q00[3] = {c * dx - size[0], r * dy - size[1], size[2] * data[r * ncol + c]};
      mcNum q10[3] = {(c + 1) * dx - size[0], r * dy - size[1],
                      size[2] * data[r * ncol + c + 1]};
      mcNum q01[3] = {c * dx - size[0], (r + 1) * dy - size[1],
                      size[2] * data[(r + 1) * ncol + c]};
      mcNum q11[3] = {(c + 1) * dx - size[0], (r + 1) * dy - size[1],
                      size[2] * data[(r + 1) * ncol + c + 1]};
      best = nearest(best, rayTriangle(q00, q11, q10, p, v));
      best = nearest(best, rayTriangle(q00, q11, q01, p, v));
    }
  }

  // the four sides, where the hit lies below the boundary profile
  for (int axis = 0; axis < 2; axis++) {
    if (fabs(v[axis]) < mcMINVAL) {
      continue;
    }
    int other = 1 - axis;
    for (int side = 0; side < 2; side++) {
      mcNum t = ((side ? size[axis] : -size[axis]) - p[axis]) / v[axis];
      if (t < 0 || (best >= 0 && t >= best)) {
        continue;
      }
      mcNum w = p[other] + t * v[other], z = p[2] + t * v[2];
      if (fabs(w) > size[other] || z < 0 || z > size[2]) {
        continue;
      }

      // profile along the side: linear between the grid points of the boundary row/column
      int n = axis == 0 ? nrow : ncol;
      mcNum step = axis == 0 ? dy : dx;
      mcNum u = (w + size[other]) / step;
      int i0 = (int)floor(u);
      i0 = i0 < 0 ? 0 : (i0 > n - 2 ? n - 2 : i0);
      mcNum h0, h1;
      if (axis == 0) {
        int col = side ? ncol - 1 : 0;
        h0 = data[i0 * ncol + col];
        h1 = data[(i0 + 1) * ncol + col];
      } else {
        int row = side ? nrow - 1 : 0;
        h0 = data[row * ncol + i0];
        h1 = data[row * ncol + i0 + 1];
      }
      if (z < size[2] * (h0 * (i0 + 1 - u) + h1 * (u - i0))) {
        best = t;
      }
    }
  }
  return best;
}


//---------------------------------- public --------------------------------------------------------

mcNum ss_rayShape(int type, const mcNum pos[3], const mcNum mat[9], const mcNum* size,
                  const mcNum pnt[3], const mcNum vec[3]) {
  // ray in the shape's frame
  mcNum d[3] = {pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]};
  mcNum p[3], v[3];
  ss_mulMatT3(p, mat, d);
  ss_mulMatT3(v, mat, vec);

  switch (type) {
  case mcGEOM_PLANE:
    return rayPlane(size, p, v);
  case mcGEOM_SPHERE:
    return raySphere(size[0], p, v);
  case mcGEOM_CAPSULE:
    return rayCapsule(size, p, v);
  case mcGEOM_ELLIPSOID:
    return rayEllipsoid(size, p, v);
  case mcGEOM_CYLINDER:
    return rayCylinder(size, p, v);
  case mcGEOM_BOX:
    return rayBox(size, p, v);
  default:
    return -1;
  }
}


mcNum ss_rayModel(const mcModel* m, const mcData* d, const mcNum pnt[3], const mcNum vec[3],
                  int bodyexclude) {
  mcNum best = -1;
  for (int g = 0; g < m->ngeom; g++) {
    // excluded body and invisible geoms
    if (m->geom_bodyid[g] == bodyexclude || m->geom_rgba[4 * g + 3] == 0) {
      continue;
    }
    const mcNum* pos = d->geom_xpos + 3 * g;
    const mcNum* mat = d->geom_xmat + 9 * g;
    mcNum x;
    if (m->geom_type[g] == mcGEOM_MESH) {
      mcNum dd[3] = {pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]};
      mcNum p[3], v[3];
      ss_mulMatT3(p, mat, dd);
      ss_mulMatT3(v, mat, vec);
      x = rayMesh(m, m->geom_dataid[g], p, v);
    } else if (m->geom_type[g] == mcGEOM_HFIELD) {
      mcNum dd[3] = {pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]};
      mcNum p[3], v[3];
      ss_mulMatT3(p, mat, dd);
      ss_mulMatT3(v, mat, vec);
      x = rayHfield(m, m->geom_dataid[g], p, v);
    } else {
      x = ss_rayShape(m->geom_type[g], pos, mat, m->geom_size + 3 * g, pnt, vec);
    }
    best = nearest(best, x);
  }
  return best;
}
