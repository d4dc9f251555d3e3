// Moduco collision-convex: multi-contact for flat features (opt.enableflags & mcENBL_MULTICCD).
//
// Given the single contact of a convex pair (normal n from geom1 to geom2), each geom's supporting
// feature is the set of its vertices that are extreme along the normal (geom1 along +n, geom2
// along -n) up to a small tilt: one vertex, an edge or a face. With a vertex on either side the
// single contact stays. Otherwise both features are projected on the plane orthogonal to n and
// intersected there (polygon clipping, segment against polygon, or the overlap of two parallel
// segments); the points of the intersection, at most 4 (the largest-area quadrilateral of a
// longer polygon), are lifted back on the carrier feature: the lower-dimensional one, geom2's when
// both have the same dimension. As measured on MuJoCo 3.3.8 (see tests/collision/test_multiccd.c):
// every contact keeps the single contact's distance, the normal becomes the face normal (geom2's
// face when both are faces), and the position is the carrier point moved by -dist/2 along the
// normal, whichever geom carries it. Not reproduced: which 4 vertices 3.3.8 keeps of a longer
// overlap (not the largest quadrilateral; it may repeat one), 3.3.8's flatness threshold (about
// 0.09 degrees for 2 m faces, smaller for smaller ones; FLATTOL here), and 3.3.8's GJK/EPA
// normal, which can hit a face normal where MPR's misses it (then one contact here, several
// there). Cylinders keep their single contact here (3.3.8 gives them several by another scheme).
//
// Boxes and mesh vertex sets only (the mesh's hull has the same extreme vertices); all work is in
// fixed-size local buffers, features larger than MAXFEAT vertices keep the single contact.
#include <math.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "multiccd.h"

#define MAXFEAT  64                 // vertices in one supporting feature
#define MAXPOLY  (2*MAXFEAT + 8)    // vertices of a clipped polygon
#define FLATTOL  1.6e-3             // sine of the largest tilt of a face or edge still flat
#define MAXMULTI 4                  // contacts kept (MuJoCo 3.3.8 keeps at most 4)


//---------------------------------- vertices ------------------------------------------------------

// number of vertices of a box or mesh geom (0: other types, no multi-contact)
static int vertexCount(const mcModel* m, int g) {
  if (m->geom_type[g] == mcGEOM_BOX) {
    return 8;
  }
  if (m->geom_type[g] == mcGEOM_MESH) {
    int id = m->geom_dataid[g];
    if (id >= 0 && m->nmesh && m->mesh_vert) {
      return m->mesh_vertnum[id];
    }
  }
  return 0;
}


// vertex i of geom g in world coordinates
static void vertex(const mcModel* m, const mcData* d, int g, int i, mcNum res[3]) {
  mcNum loc[3];
  if (m->geom_type[g] == mcGEOM_BOX) {
    const mcNum* s = m->geom_size + 3*g;
    loc[0] = (i & 1) ? s[0] : -s[0];
    loc[1] = (i & 2) ? s[1] : -s[1];
    loc[2] = (i & 4) ? s[2] : -s[2];
  } else {
    const float* v = m->mesh_vert + 3*(m->mesh_vertadr[m->geom_dataid[g]] + i);
    loc[0] = v[0];
    loc[1] = v[1];
    loc[2] = v[2];
  }
  const mcNum* pos = d->geom_xpos + 3*g;
  const mcNum* mat = d->geom_xmat + 9*g;
  for (int k = 0; k < 3; k++) {
    res[k] = pos[k] + mat[3*k]*loc[0] + mat[3*k + 1]*loc[1] + mat[3*k + 2]*loc[2];
  }
}


static mcNum dot3(const mcNum a[3], const mcNum b[3]) {
  return a[0]*b[0] + a[1]*b[1] + a[2]*b[2];
}


// supporting feature of geom g along dir: the extreme vertex and every vertex v whose drop below
// it along dir is at most FLATTOL times its distance from it across dir; the count, -1 if more
// than MAXFEAT
static int feature(const mcModel* m, const mcData* d, int g, const mcNum dir[3],
                   mcNum pts[MAXFEAT][3]) {
  int nv = vertexCount(m, g), best = -1;
  mcNum hmax = -INFINITY, v[3], top[3];
  for (int i = 0; i < nv; i++) {
    vertex(m, d, g, i, v);
    mcNum h = dot3(v, dir);
    if (h > hmax) {
      hmax = h;
      best = i;
    }
  }
  if (best < 0) {
    return 0;
  }
  vertex(m, d, g, best, top);
  mcNum eps = 1e-9*(1 + m->geom_rbound[g]);
  int n = 0;
  for (int i = 0; i < nv; i++) {
    vertex(m, d, g, i, v);
    mcNum dv[3] = {v[0] - top[0], v[1] - top[1], v[2] - top[2]};
    mcNum drop = -dot3(dv, dir);
    mcNum across2 = dot3(dv, dv) - drop*drop;
    mcNum across = across2 > 0 ? sqrt(across2) : 0;
    if (drop <= FLATTOL*across + eps) {
      if (n == MAXFEAT) {
        return -1;
      }
      memcpy(pts[n++], v, sizeof(v));
    }
  }
  return n;
}


//---------------------------------- plane geometry ------------------------------------------------

static mcNum cross2(const mcNum o[2], const mcNum a[2], const mcNum b[2]) {
  return (a[0] - o[0])*(b[1] - o[1]) - (a[1] - o[1])*(b[0] - o[0]);
}


// convex hull (counter-clockwise, no collinear points) of n 2D points, indices into p; count
static int hull2(mcNum p[][2], int n, mcNum eps, int idx[]) {
  // insertion sort of indices by x, then y
  int ord[MAXFEAT];
  for (int i = 0; i < n; i++) {
    int j = i;
    while (j > 0 && (p[ord[j - 1]][0] > p[i][0] ||
                     (p[ord[j - 1]][0] == p[i][0] && p[ord[j - 1]][1] > p[i][1]))) {
      ord[j] = ord[j - 1];
      j--;
    }
    ord[j] = i;
  }

  // monotone chain, lower then upper; collinear and repeated points are dropped
  int h[2*MAXFEAT + 2] = {0}, k = 0;
  for (int s = 0; s < n; s++) {
    while (k >= 2 && cross2(p[h[k - 2]], p[h[k - 1]], p[ord[s]]) <= eps) {
      k--;
    }
    h[k++] = ord[s];
  }
  for (int s = n - 2, t = k + 1; s >= 0; s--) {
    while (k >= t && cross2(p[h[k - 2]], p[h[k - 1]], p[ord[s]]) <= eps) {
      k--;
    }
    h[k++] = ord[s];
  }
  k--;  // the first point closes the chain
  if (k < 1) {
    k = 1;
  }
  for (int i = 0; i < k; i++) {
    idx[i] = h[i];
  }

  // two points that coincide: one
  if (k == 2) {
    mcNum dx = p[idx[1]][0] - p[idx[0]][0], dy = p[idx[1]][1] - p[idx[0]][1];
    if (dx*dx + dy*dy <= eps) {
      k = 1;
    }
  }
  return k;
}


// clip the counter-clockwise polygon a (na) by the counter-clockwise polygon b (nb); count
static int clipPoly(const mcNum a[][2], int na, const mcNum b[][2], int nb, mcNum out[][2]) {
  mcNum buf[2][MAXPOLY][2];
  int n = na;
  memcpy(buf[0], a, sizeof(mcNum)*2*na);
  int cur = 0;
  for (int e = 0; e < nb && n > 0; e++) {
    const mcNum* q0 = b[e];
    const mcNum* q1 = b[(e + 1) % nb];
    mcNum (*src)[2] = buf[cur];
    mcNum (*dst)[2] = buf[1 - cur];
    int m = 0;
    for (int i = 0; i < n && m < MAXPOLY - 1; i++) {
      const mcNum* p = src[i];
      const mcNum* r = src[(i + 1) % n];
      mcNum sp = cross2(q0, q1, p), sr = cross2(q0, q1, r);
      if (sp >= 0) {
        dst[m][0] = p[0];
        dst[m++][1] = p[1];
      }
      if ((sp >= 0) != (sr >= 0)) {
        mcNum u = sp / (sp - sr);
        dst[m][0] = p[0] + u*(r[0] - p[0]);
        dst[m++][1] = p[1] + u*(r[1] - p[1]);
      }
    }
    n = m;
    cur = 1 - cur;
  }
  memcpy(out, buf[cur], sizeof(mcNum)*2*n);
  return n;
}


// segment s0-s1 against the counter-clockwise polygon b: parameter range [t0, t1]; 0 if empty
static int clipSegment(const mcNum s0[2], const mcNum s1[2], const mcNum b[][2], int nb,
                       mcNum* t0, mcNum* t1) {
  mcNum lo = 0, hi = 1;
  for (int e = 0; e < nb; e++) {
    mcNum c0 = cross2(b[e], b[(e + 1) % nb], s0);
    mcNum c1 = cross2(b[e], b[(e + 1) % nb], s1);
    if (c0 < 0 && c1 < 0) {
      return 0;
    }
    if (c0 < 0) {
      mcNum t = c0 / (c0 - c1);
      lo = t > lo ? t : lo;
    } else if (c1 < 0) {
      mcNum t = c0 / (c0 - c1);
      hi = t < hi ? t : hi;
    }
  }
  *t0 = lo;
  *t1 = hi;
  return lo <= hi;
}


static mcNum triArea(const mcNum a[2], const mcNum b[2], const mcNum c[2]) {
  return fabs(cross2(a, b, c));
}


// the 4 vertices of the convex polygon p (n > 4) spanning the largest quadrilateral, in order
static void largestQuad(mcNum p[][2], int n) {
  int best[4] = {0, 1, 2, 3};
  mcNum bestA = -1;
  for (int i = 0; i < n; i++) {
    for (int k = i + 2; k < n; k++) {
      int bj = -1, bl = -1;
      mcNum aj = -1, al = -1;
      for (int j = i + 1; j < k; j++) {
        mcNum a = triArea(p[i], p[j], p[k]);
        if (a > aj) {
          aj = a;
          bj = j;
        }
      }
      for (int l = k + 1; l < n + i; l++) {
        mcNum a = triArea(p[i], p[k], p[l % n]);
        if (a > al) {
          al = a;
          bl = l % n;
        }
      }
      if (bj >= 0 && bl >= 0 && bl != i && aj + al > bestA) {
        bestA = aj + al;
        best[0] = i;
        best[1] = bj;
        best[2] = k;
        best[3] = bl;
      }
    }
  }
  mcNum q[4][2];
  for (int i = 0; i < 4; i++) {
    q[i][0] = p[best[i]][0];
    q[i][1] = p[best[i]][1];
  }
  memcpy(p, q, sizeof(q));
}


// outward normal of the planar polygon pts[idx[0..n-1]] (counter-clockwise seen from +axis) by
// Newell's method, oriented to the side of axis
static void faceNormal(mcNum pts[][3], const int* idx, int n, const mcNum axis[3],
                       mcNum res[3]) {
  res[0] = res[1] = res[2] = 0;
  for (int i = 0; i < n; i++) {
    const mcNum* a = pts[idx[i]];
    const mcNum* b = pts[idx[(i + 1) % n]];
    res[0] += (a[1] - b[1])*(a[2] + b[2]);
    res[1] += (a[2] - b[2])*(a[0] + b[0]);
    res[2] += (a[0] - b[0])*(a[1] + b[1]);
  }
  mcNum len = sqrt(dot3(res, res));
  if (len < mcMINVAL || !isfinite(len)) {
    memcpy(res, axis, sizeof(mcNum)*3);
    return;
  }
  mcNum s = dot3(res, axis) < 0 ? -1/len : 1/len;
  for (int k = 0; k < 3; k++) {
    res[k] *= s;
  }
}


// tangent basis t1, t2 of unit normal n and the projections p of the nf points f relative to org
static void project(const mcNum n[3], const mcNum org[3], mcNum f[][3], int nf, mcNum p[][2],
                    mcNum t1[3], mcNum t2[3]) {
  if (fabs(n[0]) < 0.6) {
    t1[0] = 0; t1[1] = n[2]; t1[2] = -n[1];   // n x (1,0,0) up to sign
  } else {
    t1[0] = -n[2]; t1[1] = 0; t1[2] = n[0];   // (0,1,0) x n
  }
  mcNum tl = sqrt(dot3(t1, t1));
  for (int k = 0; k < 3; k++) {
    t1[k] /= tl;
  }
  t2[0] = n[1]*t1[2] - n[2]*t1[1];
  t2[1] = n[2]*t1[0] - n[0]*t1[2];
  t2[2] = n[0]*t1[1] - n[1]*t1[0];
  for (int i = 0; i < nf; i++) {
    mcNum r[3] = {f[i][0] - org[0], f[i][1] - org[1], f[i][2] - org[2]};
    p[i][0] = dot3(r, t1);
    p[i][1] = dot3(r, t2);
  }
}


//---------------------------------- multi-contact -------------------------------------------------

int mccd_multiContact(const mcModel* m, const mcData* d, mcContact* con, int g1, int g2) {
  if (!vertexCount(m, g1) || !vertexCount(m, g2)) {
    return 1;
  }
  mcNum n[3] = {con->frame[0], con->frame[1], con->frame[2]};
  mcNum nlen = sqrt(dot3(n, n));
  if (!(nlen > mcMINVAL)) {
    return 1;
  }
  for (int k = 0; k < 3; k++) {
    n[k] /= nlen;
  }
  mcNum mn[3] = {-n[0], -n[1], -n[2]};
  mcNum org[3] = {con->pos[0], con->pos[1], con->pos[2]};  // con[0] is overwritten below

  // supporting features
  mcNum f1[MAXFEAT][3], f2[MAXFEAT][3];
  int n1 = feature(m, d, g1, n, f1);
  int n2 = feature(m, d, g2, mn, f2);
  if (n1 < 2 || n2 < 2) {
    return 1;
  }

  // 2D projections relative to the contact position along the single contact's normal
  mcNum t1[3], t2[3], p1[MAXFEAT][2], p2[MAXFEAT][2];
  project(n, org, f1, n1, p1, t1, t2);
  project(n, org, f2, n2, p2, t1, t2);
  mcNum scale = m->geom_rbound[g1] + m->geom_rbound[g2];
  mcNum eps = 1e-18*(1 + scale*scale);
  int h1[2*MAXFEAT + 2], h2[2*MAXFEAT + 2];
  int k1 = hull2(p1, n1, eps, h1);
  int k2 = hull2(p2, n2, eps, h2);
  if (k1 < 2 || k2 < 2) {
    return 1;
  }
  int dim1 = k1 > 2 ? 2 : 1, dim2 = k2 > 2 ? 2 : 1;
  mcNum poly1[MAXFEAT][2], poly2[MAXFEAT][2];
  for (int i = 0; i < k1; i++) {
    memcpy(poly1[i], p1[h1[i]], sizeof(mcNum)*2);
  }
  for (int i = 0; i < k2; i++) {
    memcpy(poly2[i], p2[h2[i]], sizeof(mcNum)*2);
  }

  // normal: geom2's face, else geom1's face, else the single contact's
  mcNum nrm[3];
  if (dim2 == 2) {
    faceNormal(f2, h2, k2, mn, nrm);
    for (int k = 0; k < 3; k++) {
      nrm[k] = -nrm[k];
    }
  } else if (dim1 == 2) {
    faceNormal(f1, h1, k1, n, nrm);
  } else {
    memcpy(nrm, n, sizeof(nrm));
  }

  // the features seen along that normal (the hulls keep their vertices and order: the normals
  // differ by less than the flatness tilt)
  project(nrm, org, f1, n1, p1, t1, t2);
  project(nrm, org, f2, n2, p2, t1, t2);
  for (int i = 0; i < k1; i++) {
    memcpy(poly1[i], p1[h1[i]], sizeof(mcNum)*2);
  }
  for (int i = 0; i < k2; i++) {
    memcpy(poly2[i], p2[h2[i]], sizeof(mcNum)*2);
  }

  // intersection in the plane, as points on the carrier feature
  mcNum out[MAXPOLY][2];
  int nout = 0;
  int carrier = dim1 < dim2 ? 1 : 2;
  if (dim1 == 2 && dim2 == 2) {
    nout = clipPoly((const mcNum(*)[2])poly1, k1, (const mcNum(*)[2])poly2, k2, out);
    if (nout < 3) {
      return 1;
    }
    if (nout > MAXMULTI) {
      largestQuad(out, nout);
      nout = MAXMULTI;
    }
  } else if (dim1 + dim2 == 3) {
    // the edge against the face
    mcNum (*seg)[2] = dim1 == 1 ? poly1 : poly2;
    mcNum (*face)[2] = dim1 == 1 ? poly2 : poly1;
    int nf = dim1 == 1 ? k2 : k1;
    mcNum ta, tb;
    if (!clipSegment(seg[0], seg[1], (const mcNum(*)[2])face, nf, &ta, &tb)) {
      return 1;
    }
    for (int i = 0; i < 2; i++) {
      mcNum t = i ? tb : ta;
      out[i][0] = seg[0][0] + t*(seg[1][0] - seg[0][0]);
      out[i][1] = seg[0][1] + t*(seg[1][1] - seg[0][1]);
    }
    nout = 2;
  } else {
    // two edges: their overlap when parallel, on geom2's edge
    mcNum e1[2] = {poly1[1][0] - poly1[0][0], poly1[1][1] - poly1[0][1]};
    mcNum e2[2] = {poly2[1][0] - poly2[0][0], poly2[1][1] - poly2[0][1]};
    mcNum l1 = sqrt(e1[0]*e1[0] + e1[1]*e1[1]), l2 = sqrt(e2[0]*e2[0] + e2[1]*e2[1]);
    if (fabs(e1[0]*e2[1] - e1[1]*e2[0]) > FLATTOL*l1*l2) {
      return 1;
    }
    mcNum ia = ((poly1[0][0] - poly2[0][0])*e2[0] + (poly1[0][1] - poly2[0][1])*e2[1]) / (l2*l2);
    mcNum ib = ((poly1[1][0] - poly2[0][0])*e2[0] + (poly1[1][1] - poly2[0][1])*e2[1]) / (l2*l2);
    mcNum lo = fmax(0, fmin(ia, ib)), hi = fmin(1, fmax(ia, ib));
    if (hi <= lo) {
      return 1;
    }
    for (int i = 0; i < 2; i++) {
      mcNum t = i ? hi : lo;
      out[i][0] = poly2[0][0] + t*e2[0];
      out[i][1] = poly2[0][1] + t*e2[1];
    }
    nout = 2;
  }

  // drop coincident points (a degenerate overlap keeps the single contact)
  int nuniq = 0;
  mcNum tol2 = 1e-20*(1 + scale*scale);
  for (int i = 0; i < nout; i++) {
    int dup = 0;
    for (int j = 0; j < nuniq && !dup; j++) {
      mcNum dx = out[i][0] - out[j][0], dy = out[i][1] - out[j][1];
      dup = dx*dx + dy*dy <= tol2;
    }
    if (!dup) {
      out[nuniq][0] = out[i][0];
      out[nuniq++][1] = out[i][1];
    }
  }
  if (nuniq < 2) {
    return 1;
  }

  // lift onto the carrier: its face plane, or its edge
  mcNum (*cf)[3] = carrier == 1 ? f1 : f2;
  const int* ch = carrier == 1 ? h1 : h2;
  int cdim = carrier == 1 ? dim1 : dim2;
  mcNum (*cp)[2] = carrier == 1 ? p1 : p2;
  mcNum cn[3];
  if (cdim == 2) {
    faceNormal(cf, ch, carrier == 1 ? k1 : k2, carrier == 1 ? n : mn, cn);
  }
  mcNum dist = con->dist;
  for (int i = 0; i < nuniq; i++) {
    mcNum x[3];
    if (cdim == 2) {
      // point above (u, w) on the plane through cf[ch[0]] with normal cn
      mcNum base[3];
      for (int k = 0; k < 3; k++) {
        base[k] = org[k] + out[i][0]*t1[k] + out[i][1]*t2[k];
      }
      mcNum r[3] = {cf[ch[0]][0] - base[0], cf[ch[0]][1] - base[1], cf[ch[0]][2] - base[2]};
      mcNum den = dot3(cn, nrm);
      mcNum s = fabs(den) > mcMINVAL ? dot3(cn, r) / den : 0;
      for (int k = 0; k < 3; k++) {
        x[k] = base[k] + s*nrm[k];
      }
    } else {
      const mcNum* a2 = cp[ch[0]];
      const mcNum* b2 = cp[ch[1]];
      mcNum e[2] = {b2[0] - a2[0], b2[1] - a2[1]};
      mcNum t = ((out[i][0] - a2[0])*e[0] + (out[i][1] - a2[1])*e[1]) / (e[0]*e[0] + e[1]*e[1]);
      for (int k = 0; k < 3; k++) {
        x[k] = cf[ch[0]][k] + t*(cf[ch[1]][k] - cf[ch[0]][k]);
      }
    }
    mcContact* c = con + i;
    c->dist = dist;
    for (int k = 0; k < 3; k++) {
      c->pos[k] = x[k] - 0.5*dist*nrm[k];
      c->frame[k] = nrm[k];
    }
    memset(c->frame + 3, 0, sizeof(mcNum)*6);
  }
  return nuniq;
}
