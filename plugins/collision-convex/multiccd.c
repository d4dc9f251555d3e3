// Moduco collision-convex: multi-contact (opt.enableflags & mcENBL_MULTICCD), two schemes as
// MuJoCo 3.3.8 uses them (found by probing it as a black box, see tests/collision/test_multiccd.c).
//
// Face scheme (box and mesh against box and mesh). Given the single contact of the pair (normal n
// from geom1 to geom2), each geom's supporting feature is the set of its vertices that are extreme
// along the normal (geom1 along +n, geom2 along -n) up to a small tilt: one vertex, an edge or a
// face. With a vertex on either side the single contact stays. Otherwise both features are
// projected on the plane orthogonal to n and intersected there (polygon clipping, segment against
// polygon, or the overlap of two parallel segments); the points of the intersection, at most 4
// (the largest-area quadrilateral of a longer polygon), are lifted back on the carrier feature:
// the lower-dimensional one, geom2's when both have the same dimension. As in 3.3.8 every contact
// keeps the single contact's distance, the normal becomes the face normal (geom2's face when both
// are faces), and the position is the carrier point moved by -dist/2 along the normal, whichever
// geom carries it. Not reproduced: which 4 vertices 3.3.8 keeps of a longer overlap (not the
// largest quadrilateral; it may repeat one), 3.3.8's flatness threshold (about 0.09 degrees for
// 2 m faces, smaller for smaller ones; FLATTOL here), and 3.3.8's GJK/EPA normal, which can hit a
// face normal where MPR's misses it (then one contact here, several there).
//
// Tilt scheme (a capsule or cylinder against a capsule, cylinder, box or mesh; pairs with a
// sphere or an ellipsoid keep their single contact, as in 3.3.8). The single contact is first
// settled on the geoms: its normal n becomes the direction along which they overlap least (of
// MPR's, libccd GJK/EPA's, the smoothed one and the faces supporting either geom near it, then a
// pattern search: curved against curved), its point the point halfway between the two supporting
// planes above the supporting feature that is a point, else above the overlap of the two
// features nearest to MPR's point. With the contact frame's tangents t1, t2 (world y made normal
// to n, world z when n is within 60 degrees of y; t2 = n x t1), for d = -t2, +t2, +t1, -t1 in
// this order, geom2 is turned by TILT = 1e-3 rad about the axis n x d through that point (which
// tips its normal n toward d) and geom1 by the same angle the other way, and the turned pair is
// collided the same way: its normal (an exact face normal when a face is in contact, e.g. geom2's
// turned face under a cylinder's rim) and point, not turned back, give an extra contact with the
// single contact's distance. An extra contact is dropped when it lies within
// DUPTOL*min(rbound1, rbound2) = 1e-3*min(rbound) (across n) of the single contact or of an extra
// kept before. So an upright cylinder on a face gets the single contact and 4 on its rim, a lying
// one the single contact and one at each end (the two turned about its axis roll by about 2*r*TILT
// and are dropped when that is below the tolerance), a capsule's hemisphere 4 around its point
// when its radius exceeds its half length (shift 2*r*TILT against 1e-3*(r + h)). The single
// contact itself takes the settled normal and point (as the face scheme gives it the face's).
// Not reproduced: 3.3.8's GJK/EPA places points on a rim or a curved side only to a few percent
// of the radius and points of a line contact anywhere on the line, so extras near the tolerance
// are kept or dropped differently in a few percent of the poses; and its normals on curved
// surfaces are good only to about 1e-3.
//
// Boxes and mesh vertex sets for the face scheme (the mesh's hull has the same extreme vertices),
// support functions (support.h) for the tilt scheme; all work is in fixed-size local buffers,
// features larger than MAXFEAT vertices keep the single contact.
#include <math.h>
#include <string.h>

#include <ccd/ccd.h>

#include <moduco/mcplugin.h>

#include "multiccd.h"
#include "support.h"

#define MAXFEAT    64               // vertices in one supporting feature
#define MAXPOLY    (2*MAXFEAT + 8)  // vertices of a clipped polygon
#define FLATTOL    1.6e-3           // sine of the largest tilt of a face or edge still flat
#define MAXMULTI   4                // contacts kept (MuJoCo 3.3.8 keeps at most 4)
#define TILT       1e-3             // tilt scheme: each geom turned by this angle (radians)
#define DUPTOL     1e-3             // tilt scheme: duplicates within DUPTOL*min(rbound)
#define SHARPTOL   1e-4             // tilt scheme: a feature within SHARPTOL*rbound is a point
#define REFINESTEP 1e-4             // tilt scheme: first step of the normal's pattern search
#define REFINEMIN  1e-11            // tilt scheme: its last step
#define FACETILT   1e-2             // tilt scheme: directions sampling a face near a normal


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


// completes a right-handed frame about unit n: t1 (normal to n) scaled to unit length, t2 = n x t1
static void completeFrame(const mcNum n[3], mcNum t1[3], mcNum t2[3]) {
  mcNum tl = sqrt(dot3(t1, t1));
  for (int k = 0; k < 3; k++) {
    t1[k] /= tl;
  }
  t2[0] = n[1]*t1[2] - n[2]*t1[1];
  t2[1] = n[2]*t1[0] - n[0]*t1[2];
  t2[2] = n[0]*t1[1] - n[1]*t1[0];
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
  completeFrame(n, t1, t2);
  for (int i = 0; i < nf; i++) {
    mcNum r[3] = {f[i][0] - org[0], f[i][1] - org[1], f[i][2] - org[2]};
    p[i][0] = dot3(r, t1);
    p[i][1] = dot3(r, t2);
  }
}


//---------------------------------- face scheme (boxes, meshes) -----------------------------------

static int faceContacts(const mcModel* m, const mcData* d, mcContact* con, int g1, int g2) {
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


//---------------------------------- tilt scheme (capsules, cylinders) -----------------------------

// a geom turned by the rotation R about the pivot piv (world frame)
typedef struct {
  ConvexObj o;
  mcNum R[9];
  mcNum piv[3];
} Tilted;


// world direction dir: support point of the turned geom, piv + R*(s(R^T dir) - piv)
static void tiltedSupportV(const Tilted* t, const mcNum dir[3], mcNum res[3]) {
  const mcNum* R = t->R;
  mcNum loc[3], s[3];
  for (int k = 0; k < 3; k++) {
    loc[k] = R[k]*dir[0] + R[3 + k]*dir[1] + R[6 + k]*dir[2];
  }
  geomSupport(&t->o, loc, s);
  for (int k = 0; k < 3; k++) {
    s[k] -= t->piv[k];
  }
  for (int k = 0; k < 3; k++) {
    res[k] = t->piv[k] + R[3*k]*s[0] + R[3*k + 1]*s[1] + R[3*k + 2]*s[2];
  }
}


static void tiltedSupport(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* vec) {
  tiltedSupportV((const Tilted*)obj, dir->v, vec->v);
}


static void tiltedCenter(const void* obj, ccd_vec3_t* c) {
  const Tilted* t = (const Tilted*)obj;
  mcNum g[3];
  geomCenter(&t->o, g);
  for (int k = 0; k < 3; k++) {
    g[k] -= t->piv[k];
  }
  for (int k = 0; k < 3; k++) {
    c->v[k] = t->piv[k] + t->R[3*k]*g[0] + t->R[3*k + 1]*g[1] + t->R[3*k + 2]*g[2];
  }
}


void mccd_axisRotation(const mcNum a[3], mcNum angle, mcNum R[9]) {
  mcNum c = cos(angle), s = sin(angle), v = 1 - c;
  R[0] = c + a[0]*a[0]*v;        R[1] = a[0]*a[1]*v - a[2]*s;   R[2] = a[0]*a[2]*v + a[1]*s;
  R[3] = a[1]*a[0]*v + a[2]*s;   R[4] = c + a[1]*a[1]*v;        R[5] = a[1]*a[2]*v - a[0]*s;
  R[6] = a[2]*a[0]*v - a[1]*s;   R[7] = a[2]*a[1]*v + a[0]*s;   R[8] = c + a[2]*a[2]*v;
}


static void matVec(const mcNum R[9], const mcNum v[3], mcNum res[3]) {
  for (int k = 0; k < 3; k++) {
    res[k] = R[3*k]*v[0] + R[3*k + 1]*v[1] + R[3*k + 2]*v[2];
  }
}


// overlap of the turned geoms along the unit direction u (from t1 toward t2): how far t1's
// support along u lies beyond t2's support along -u
static mcNum overlapAlong(const Tilted* t1, const Tilted* t2, const mcNum u[3]) {
  mcNum s1[3], s2[3], mu[3] = {-u[0], -u[1], -u[2]};
  tiltedSupportV(t1, u, s1);
  tiltedSupportV(t2, mu, s2);
  return (s1[0] - s2[0])*u[0] + (s1[1] - s2[1])*u[1] + (s1[2] - s2[2])*u[2];
}


// the supporting feature of a turned geom along the unit direction u, sampled: the support
// point there and at TILTSAMP directions tilted by TILTEPS around it (in the basis e1, e2 of
// the plane normal to u); the number of points (TILTSAMP + 1, pts[0] the support along u) and
// their largest distance from pts[0] in *spread
#define TILTSAMP 16
#define TILTEPS  1e-7
static int sampleFeature(const Tilted* t, const mcNum u[3], const mcNum e1[3], const mcNum e2[3],
                         mcNum pts[][3], mcNum* spread) {
  tiltedSupportV(t, u, pts[0]);
  *spread = 0;
  for (int j = 0; j < TILTSAMP; j++) {
    mcNum phi = 2*3.14159265358979323846*j / TILTSAMP;
    mcNum c = TILTEPS*cos(phi), s = TILTEPS*sin(phi), dir[3];
    for (int k = 0; k < 3; k++) {
      dir[k] = u[k] + c*e1[k] + s*e2[k];
    }
    mcNum len = sqrt(dot3(dir, dir));
    for (int k = 0; k < 3; k++) {
      dir[k] /= len;
    }
    tiltedSupportV(t, dir, pts[j + 1]);
    mcNum dv[3] = {pts[j + 1][0] - pts[0][0], pts[j + 1][1] - pts[0][1],
                   pts[j + 1][2] - pts[0][2]};
    *spread = fmax(*spread, sqrt(dot3(dv, dv)));
  }
  return TILTSAMP + 1;
}


// point of segment a-b nearest to the origin (2D)
static void nearestOnSegment(const mcNum a[2], const mcNum b[2], mcNum res[2]) {
  mcNum e[2] = {b[0] - a[0], b[1] - a[1]};
  mcNum l2 = e[0]*e[0] + e[1]*e[1];
  mcNum t = l2 > 0 ? -(a[0]*e[0] + a[1]*e[1]) / l2 : 0;
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  res[0] = a[0] + t*e[0];
  res[1] = a[1] + t*e[1];
}


// point of the counter-clockwise convex polygon p (n >= 3) nearest to the origin (2D)
static void nearestInPolygon(mcNum p[][2], int n, mcNum res[2]) {
  int inside = 1;
  mcNum o[2] = {0, 0};
  for (int i = 0; i < n && inside; i++) {
    inside = cross2(p[i], p[(i + 1) % n], o) >= 0;
  }
  if (inside) {
    res[0] = res[1] = 0;
    return;
  }
  mcNum best = INFINITY;
  for (int i = 0; i < n; i++) {
    mcNum q[2];
    nearestOnSegment(p[i], p[(i + 1) % n], q);
    mcNum d2 = q[0]*q[0] + q[1]*q[1];
    if (d2 < best) {
      best = d2;
      res[0] = q[0];
      res[1] = q[1];
    }
  }
}


// Where the two extended features (sampled, projected on the plane normal to the contact
// normal, relative to the pivot) overlap, the point of the overlap nearest to the pivot (2D);
// 0 when they do not overlap
static int overlapNearest(mcNum p1[][2], int n1, mcNum p2[][2], int n2, mcNum eps,
                          mcNum res[2], mcNum tol) {
  int h1[2*MAXFEAT + 2], h2[2*MAXFEAT + 2];
  int k1 = hull2(p1, n1, eps, h1), k2 = hull2(p2, n2, eps, h2);
  mcNum a[MAXPOLY][2], b[MAXPOLY][2];
  for (int i = 0; i < k1; i++) {
    memcpy(a[i], p1[h1[i]], sizeof(mcNum)*2);
  }
  for (int i = 0; i < k2; i++) {
    memcpy(b[i], p2[h2[i]], sizeof(mcNum)*2);
  }
  if (k1 == 1) {
    // a point: itself, if it lies within tol of the other feature
    mcNum rel[MAXPOLY][2], q[2];
    for (int i = 0; i < k2; i++) {
      rel[i][0] = b[i][0] - a[0][0];
      rel[i][1] = b[i][1] - a[0][1];
    }
    if (k2 >= 3) {
      nearestInPolygon(rel, k2, q);
    } else if (k2 == 2) {
      nearestOnSegment(rel[0], rel[1], q);
    } else {
      q[0] = rel[0][0];
      q[1] = rel[0][1];
    }
    res[0] = a[0][0];
    res[1] = a[0][1];
    return q[0]*q[0] + q[1]*q[1] <= tol*tol;
  }
  if (k1 >= 3 && k2 >= 3) {
    mcNum out[MAXPOLY][2];
    int n = clipPoly((const mcNum(*)[2])a, k1, (const mcNum(*)[2])b, k2, out);
    if (n < 1) {
      return 0;
    }
    if (n < 3) {
      res[0] = out[0][0];
      res[1] = out[0][1];
      return 1;
    }
    nearestInPolygon(out, n, res);
    return 1;
  }
  if (k1 == 2 && k2 == 2) {
    // two segments: their crossing, or the overlap of parallel ones
    mcNum e1[2] = {a[1][0] - a[0][0], a[1][1] - a[0][1]};
    mcNum e2[2] = {b[1][0] - b[0][0], b[1][1] - b[0][1]};
    mcNum den = e1[0]*e2[1] - e1[1]*e2[0];
    mcNum l1 = sqrt(e1[0]*e1[0] + e1[1]*e1[1]), l2 = sqrt(e2[0]*e2[0] + e2[1]*e2[1]);
    if (fabs(den) > FLATTOL*l1*l2) {
      mcNum w[2] = {b[0][0] - a[0][0], b[0][1] - a[0][1]};
      mcNum t = (w[0]*e2[1] - w[1]*e2[0]) / den;
      t = t < 0 ? 0 : (t > 1 ? 1 : t);
      res[0] = a[0][0] + t*e1[0];
      res[1] = a[0][1] + t*e1[1];
      return 1;
    }
    mcNum ia = ((a[0][0] - b[0][0])*e2[0] + (a[0][1] - b[0][1])*e2[1]) / (l2*l2);
    mcNum ib = ((a[1][0] - b[0][0])*e2[0] + (a[1][1] - b[0][1])*e2[1]) / (l2*l2);
    mcNum lo = fmax(0, fmin(ia, ib)), hi = fmin(1, fmax(ia, ib));
    if (hi < lo) {
      return 0;
    }
    mcNum s0[2] = {b[0][0] + lo*e2[0], b[0][1] + lo*e2[1]};
    mcNum s1[2] = {b[0][0] + hi*e2[0], b[0][1] + hi*e2[1]};
    nearestOnSegment(s0, s1, res);
    return 1;
  }
  if (k1 >= 2 && k2 >= 2) {
    // a segment against a polygon
    mcNum (*seg)[2] = k1 == 2 ? a : b;
    mcNum (*poly)[2] = k1 == 2 ? b : a;
    int np = k1 == 2 ? k2 : k1;
    mcNum ta, tb;
    if (!clipSegment(seg[0], seg[1], (const mcNum(*)[2])poly, np, &ta, &tb)) {
      return 0;
    }
    mcNum e[2] = {seg[1][0] - seg[0][0], seg[1][1] - seg[0][1]};
    mcNum s0[2] = {seg[0][0] + ta*e[0], seg[0][1] + ta*e[1]};
    mcNum s1[2] = {seg[0][0] + tb*e[0], seg[0][1] + tb*e[1]};
    nearestOnSegment(s0, s1, res);
    return 1;
  }
  return 0;
}


// does the tilt scheme apply: a capsule or cylinder against a capsule, cylinder, box or mesh
// (spheres and ellipsoids keep their single contact in MuJoCo 3.3.8)
static int tiltApplies(const mcModel* m, int g1, int g2) {
  int t1 = m->geom_type[g1], t2 = m->geom_type[g2];
  int ok1 = t1 == mcGEOM_CAPSULE || t1 == mcGEOM_CYLINDER || t1 == mcGEOM_BOX ||
            t1 == mcGEOM_MESH;
  int ok2 = t2 == mcGEOM_CAPSULE || t2 == mcGEOM_CYLINDER || t2 == mcGEOM_BOX ||
            t2 == mcGEOM_MESH;
  int round = t1 == mcGEOM_CAPSULE || t1 == mcGEOM_CYLINDER || t2 == mcGEOM_CAPSULE ||
              t2 == mcGEOM_CYLINDER;
  return ok1 && ok2 && round;
}


// face normal (oriented along u) of the supporting feature of a turned geom along the unit
// direction u, sampled at directions tilted by 'tilt' around u; 0 when that feature is no face
static int sampledFaceNormal(const Tilted* t, const mcNum u[3], mcNum tilt, mcNum res[3]) {
  mcNum e1[3], e2[3], pts[TILTSAMP][3];
  project(u, u, NULL, 0, NULL, e1, e2);  // the basis only
  for (int j = 0; j < TILTSAMP; j++) {
    mcNum phi = 2*3.14159265358979323846*j / TILTSAMP;
    mcNum c = tilt*cos(phi), s = tilt*sin(phi), dir[3];
    for (int k = 0; k < 3; k++) {
      dir[k] = u[k] + c*e1[k] + s*e2[k];
    }
    mcNum len = sqrt(dot3(dir, dir));
    for (int k = 0; k < 3; k++) {
      dir[k] /= len;
    }
    tiltedSupportV(t, dir, pts[j]);
  }
  // Newell's normal of the ring of points, and their largest distance from its plane
  mcNum nw[3] = {0, 0, 0}, c[3] = {0, 0, 0};
  for (int j = 0; j < TILTSAMP; j++) {
    const mcNum* a = pts[j];
    const mcNum* b = pts[(j + 1) % TILTSAMP];
    nw[0] += (a[1] - b[1])*(a[2] + b[2]);
    nw[1] += (a[2] - b[2])*(a[0] + b[0]);
    nw[2] += (a[0] - b[0])*(a[1] + b[1]);
    for (int k = 0; k < 3; k++) {
      c[k] += a[k] / TILTSAMP;
    }
  }
  // a face spans two dimensions: its width (area over diameter) well above the spread the
  // tilted directions give a line or a curved surface (about tilt*rbound)
  mcNum len = sqrt(dot3(nw, nw)), diam = 0;
  for (int j = 0; j < TILTSAMP; j++) {
    for (int i = 0; i < j; i++) {
      mcNum dv[3] = {pts[j][0] - pts[i][0], pts[j][1] - pts[i][1], pts[j][2] - pts[i][2]};
      diam = fmax(diam, dot3(dv, dv));
    }
  }
  diam = sqrt(diam);
  mcNum rb = t->o.m->geom_rbound[t->o.geom];
  if (!(0.5*len > 10*tilt*rb*diam) || !isfinite(len)) {
    return 0;
  }
  mcNum sg = dot3(nw, u) < 0 ? -1/len : 1/len;
  for (int k = 0; k < 3; k++) {
    res[k] = nw[k]*sg;
  }
  for (int j = 0; j < TILTSAMP; j++) {
    mcNum dv[3] = {pts[j][0] - c[0], pts[j][1] - c[1], pts[j][2] - c[2]};
    if (fabs(dot3(dv, res)) > 1e-9*(1 + rb)) {
      return 0;  // not flat: a curved surface or an edge
    }
  }
  return 1;
}


// the normal of the (turned) pair: of the candidate directions cand (ncand, not necessarily
// unit), the one along which the geoms overlap least (the penetration direction, which EPA
// finds); also tried: the faces (if any) supporting either geom along the best of them. 2 if a
// face wins (exact), else 1 after a pattern search around the best (if refine), 0 if none is
// usable
static int bestNormal(const Tilted* o1, const Tilted* o2, mcNum cand[][3], int ncand, int refine,
                      mcNum res[3]) {
  mcNum bestov = INFINITY;
  int face = 0;
  for (int c = 0; c < ncand + 2; c++) {
    mcNum u[3];
    if (c < ncand) {
      memcpy(u, cand[c], sizeof(u));
    } else if (!isfinite(bestov)) {
      break;
    } else if (c == ncand) {
      if (!sampledFaceNormal(o1, res, FACETILT, u)) {
        continue;
      }
    } else {
      mcNum mr[3] = {-res[0], -res[1], -res[2]};
      if (!sampledFaceNormal(o2, mr, FACETILT, u)) {
        continue;
      }
      for (int k = 0; k < 3; k++) {
        u[k] = -u[k];
      }
    }
    mcNum ul = sqrt(dot3(u, u));
    if (!(ul > mcMINVAL) || !isfinite(ul)) {
      continue;
    }
    for (int k = 0; k < 3; k++) {
      u[k] /= ul;
    }
    mcNum ov = overlapAlong(o1, o2, u);
    if (ov < bestov || (c >= ncand && ov <= bestov)) {
      bestov = ov;
      face = c >= ncand;
      memcpy(res, u, sizeof(u));
    }
  }
  if (!isfinite(bestov)) {
    return 0;
  }
  if (face || !refine) {
    return face ? 2 : 1;
  }

  // pattern search around it (curved against curved: the candidates are only approximate;
  // at a face normal or a crossing of edges every step overlaps more, so it stays)
  mcNum e1[3], e2[3], step = REFINESTEP;
  project(res, res, NULL, 0, NULL, e1, e2);  // the basis only
  for (int it = 0; it < 400 && step > REFINEMIN; it++) {
    int moved = 0;
    for (int j = 0; j < 8 && !moved; j++) {
      mcNum phi = 2*3.14159265358979323846*j / 8, u[3];
      for (int k = 0; k < 3; k++) {
        u[k] = res[k] + step*(cos(phi)*e1[k] + sin(phi)*e2[k]);
      }
      mcNum ul = sqrt(dot3(u, u));
      for (int k = 0; k < 3; k++) {
        u[k] /= ul;
      }
      mcNum ov = overlapAlong(o1, o2, u);
      if (ov < bestov) {
        bestov = ov;
        memcpy(res, u, sizeof(u));
        project(res, res, NULL, 0, NULL, e1, e2);
        moved = 1;
      }
    }
    if (!moved) {
      step *= 0.5;
    }
  }
  return 1;
}


// contact position of the (turned) pair along the unit normal ns: halfway between the two
// supporting planes, above the supporting feature that is a point (geom1's first) if it lies
// over the other feature, else above the point of the overlap of both features nearest to the
// pivot; fallback (the features do not overlap: ns is no exact face normal) at the point given
static void contactPoint(const Tilted* o1, const Tilted* o2, const mcNum ns[3], const mcNum piv[3],
                         const mcNum fallback[3], mcNum scale, mcNum pos[3]) {
  const mcModel* m = o1->o.m;
  mcNum e1[3], e2[3], f1[TILTSAMP + 1][3], f2[TILTSAMP + 1][3], sp1, sp2;
  mcNum mns[3] = {-ns[0], -ns[1], -ns[2]};
  project(ns, piv, NULL, 0, NULL, e1, e2);  // the basis only
  int nf1 = sampleFeature(o1, ns, e1, e2, f1, &sp1);
  int nf2 = sampleFeature(o2, mns, e1, e2, f2, &sp2);
  mcNum h1 = dot3(f1[0], ns), h2 = dot3(f2[0], ns);
  mcNum p1[TILTSAMP + 1][2], p2[TILTSAMP + 1][2], uv[2] = {0, 0};
  project(ns, piv, f1, nf1, p1, e1, e2);
  project(ns, piv, f2, nf2, p2, e1, e2);
  int sharp1 = sp1 <= SHARPTOL*m->geom_rbound[o1->o.geom];
  int sharp2 = sp2 <= SHARPTOL*m->geom_rbound[o2->o.geom];
  mcNum q[3];
  int found = 0;
  if (sharp1 || sharp2) {
    // the point, unless it misses the other feature (then ns is off)
    mcNum one[1][2];
    memcpy(one[0], sharp1 ? p1[0] : p2[0], sizeof(one[0]));
    mcNum tol = 1e-3*scale;
    if (overlapNearest(one, 1, sharp1 ? p2 : p1, sharp1 ? nf2 : nf1, 1e-18*(1 + scale*scale),
                       uv, tol)) {
      memcpy(q, sharp1 ? f1[0] : f2[0], sizeof(q));
      found = 1;
    }
  } else if (overlapNearest(p1, nf1, p2, nf2, 1e-18*(1 + scale*scale), uv, 0)) {
    for (int k = 0; k < 3; k++) {
      q[k] = piv[k] + uv[0]*e1[k] + uv[1]*e2[k];
    }
    found = 1;
  }
  if (!found && sharp1 && sharp2) {
    // two points off each other's feature (curved against curved, ns only as exact as the
    // refinement): halfway between them
    for (int k = 0; k < 3; k++) {
      q[k] = 0.5*(f1[0][k] + f2[0][k]);
    }
  } else if (!found) {
    memcpy(pos, fallback, sizeof(mcNum)*3);
    return;
  }
  mcNum lift = 0.5*(h1 + h2) - dot3(q, ns);
  for (int k = 0; k < 3; k++) {
    pos[k] = q[k] + lift*ns[k];
  }
}


// distance of a and b across the unit normal n
static mcNum tangentialDistance(const mcNum a[3], const mcNum b[3], const mcNum n[3]) {
  mcNum dv[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  mcNum h = dot3(dv, n);
  mcNum d2 = dot3(dv, dv) - h*h;
  return d2 > 0 ? sqrt(d2) : 0;
}


// MPR, or else (epa) libccd's GJK/EPA, on the turned pair: its direction appended to cand and
// its point in pos; 0 if it finds no penetration
static int penetration(const Tilted* o1, const Tilted* o2, const mcModel* m, int epa,
                       mcNum cand[3], mcNum pos[3]) {
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = tiltedSupport;
  ccd.support2 = tiltedSupport;
  ccd.center1 = tiltedCenter;
  ccd.center2 = tiltedCenter;
  ccd.max_iterations = (unsigned long)(m->opt.mpr_iterations > 0 ? m->opt.mpr_iterations : 50);
  ccd.mpr_tolerance = m->opt.mpr_tolerance > 0 ? m->opt.mpr_tolerance : 1e-6;
  ccd.epa_tolerance = 1e-9;
  ccd_real_t depth;
  ccd_vec3_t cdir, cpos;
  int res;
  if (epa) {
    ccd.max_iterations = 200;
    res = ccdGJKPenetration(o1, o2, &ccd, &depth, &cdir, &cpos);
  } else {
    res = ccdMPRPenetration(o1, o2, &ccd, &depth, &cdir, &cpos);
  }
  if (res != 0) {
    return 0;
  }
  memcpy(cand, cdir.v, sizeof(mcNum)*3);
  memcpy(pos, cpos.v, sizeof(mcNum)*3);
  return 1;
}


// normal of the turned pair (see bestNormal) from the candidates cand (ncand, room for 2 more),
// MPR's and, unless a face wins, GJK/EPA's, then refined; MPR's point in pos. 0 if none
static int pairNormal(const Tilted* o1, const Tilted* o2, const mcModel* m, mcNum cand[][3],
                      int ncand, mcNum ns[3], mcNum pos[3]) {
  mcNum epos[3];
  int havepos = penetration(o1, o2, m, 0, cand[ncand], pos);
  ncand += havepos;
  int r = bestNormal(o1, o2, cand, ncand, 0, ns);
  if (r == 2) {
    return havepos;
  }
  if (penetration(o1, o2, m, 1, cand[ncand], epos)) {
    ncand++;
    if (!havepos) {
      memcpy(pos, epos, sizeof(epos));
      havepos = 1;
    }
  }
  return havepos && bestNormal(o1, o2, cand, ncand, 1, ns);
}


// the perturbed contacts of the tilt scheme (see the top); count (con[0] unchanged)
static int tiltContacts(const mcModel* m, const mcData* d, mcContact* con, int g1, int g2,
                        mcNum margin) {
  mcNum scale = m->geom_rbound[g1] + m->geom_rbound[g2];
  mcNum dupTol = DUPTOL*fmin(m->geom_rbound[g1], m->geom_rbound[g2]);

  // the single contact's normal and point as the supporting features give them (MPR's normal
  // is smoothed, its point may lie off the features): the reference of the turns
  static const mcNum eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  Tilted u1 = {.o = {.m = m, .d = d, .geom = g1, .margin = margin},
               .piv = {con->pos[0], con->pos[1], con->pos[2]}};
  Tilted u2 = {.o = {.m = m, .d = d, .geom = g2, .margin = margin},
               .piv = {con->pos[0], con->pos[1], con->pos[2]}};
  memcpy(u1.R, eye, sizeof(eye));
  memcpy(u2.R, eye, sizeof(eye));
  mcNum cand[8][3], n[3], piv[3], fb[3];
  memcpy(cand[0], con->frame, sizeof(mcNum)*3);
  if (!pairNormal(&u1, &u2, m, cand, 1, n, fb)) {
    return 1;
  }
  contactPoint(&u1, &u2, n, con->pos, con->pos, scale, piv);
  if (!isfinite(dot3(piv, piv))) {
    return 1;
  }

  mcNum axes[4][3];
  mccd_turnAxes(n, axes);

  // the single contact takes that normal and point (as the face scheme gives it the face's)
  for (int k = 0; k < 3; k++) {
    con->pos[k] = piv[k];
    con->frame[k] = n[k];
  }
  memset(con->frame + 3, 0, sizeof(mcNum)*6);

  mcNum kept[5][3];
  memcpy(kept[0], piv, sizeof(piv));
  int ncon = 1;
  for (int dir = 0; dir < 4; dir++) {
    // geom2 turned about axes[dir] through the pivot, geom1 the other way
    const mcNum* ax = axes[dir];
    Tilted o1 = {.o = {.m = m, .d = d, .geom = g1, .margin = margin},
                 .piv = {piv[0], piv[1], piv[2]}};
    Tilted o2 = {.o = {.m = m, .d = d, .geom = g2, .margin = margin},
                 .piv = {piv[0], piv[1], piv[2]}};
    mccd_axisRotation(ax, -TILT, o1.R);
    mccd_axisRotation(ax, TILT, o2.R);

    // normal and point of the turned pair
    mcNum ns[3], pos[3], pfb[3];
    matVec(o1.R, n, cand[0]);
    matVec(o2.R, n, cand[1]);
    memcpy(cand[2], n, sizeof(n));
    if (!pairNormal(&o1, &o2, m, cand, 3, ns, pfb)) {
      continue;
    }
    contactPoint(&o1, &o2, ns, piv, pfb, scale, pos);
    if (!isfinite(dot3(pos, pos))) {
      continue;
    }

    // keep it unless it lies within dupTol (across the normal) of a point kept before
    int dup = 0;
    for (int i = 0; i < ncon && !dup; i++) {
      dup = tangentialDistance(pos, kept[i], n) <= dupTol;
    }
    if (dup) {
      continue;
    }
    memcpy(kept[ncon], pos, sizeof(pos));
    mcContact* c = con + ncon++;
    *c = con[0];
    for (int k = 0; k < 3; k++) {
      c->pos[k] = pos[k];
      c->frame[k] = ns[k];
    }
    memset(c->frame + 3, 0, sizeof(mcNum)*6);
  }
  return ncon;
}


//---------------------------------- entry -------------------------------------------------------

void mccd_turnAxes(const mcNum n[3], mcNum axes[4][3]) {
  // tangent frame of the contact as MuJoCo builds it: world y made normal to n, or world z when
  // n is within 60 degrees of y; t2 = n x t1
  mcNum t1[3] = {0, 0, 0}, t2[3];
  if (n[1] < 0.5 && n[1] > -0.5) {
    t1[1] = 1;
  } else {
    t1[2] = 1;
  }
  mcNum dt = dot3(t1, n);
  for (int k = 0; k < 3; k++) {
    t1[k] -= dt*n[k];
  }
  completeFrame(n, t1, t2);
  for (int dir = 0; dir < 4; dir++) {
    mcNum dk[3];
    for (int k = 0; k < 3; k++) {
      dk[k] = dir < 2 ? (dir == 0 ? -t2[k] : t2[k]) : (dir == 2 ? t1[k] : -t1[k]);
    }
    axes[dir][0] = n[1]*dk[2] - n[2]*dk[1];
    axes[dir][1] = n[2]*dk[0] - n[0]*dk[2];
    axes[dir][2] = n[0]*dk[1] - n[1]*dk[0];
  }
}



int mccd_multiContact(const mcModel* m, const mcData* d, mcContact* con, int g1, int g2,
                      mcNum margin) {
  if (vertexCount(m, g1) && vertexCount(m, g2)) {
    return faceContacts(m, d, con, g1, g2);
  }
  if (tiltApplies(m, g1, g2)) {
    return tiltContacts(m, d, con, g1, g2, margin);
  }
  return 1;
}
