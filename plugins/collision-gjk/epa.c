// Moduco collision-gjk: the Expanding Polytope Algorithm. A polytope inside the Minkowski
// difference obj1 - obj2 that contains the origin (grown from GJK's last simplex to a
// tetrahedron) is expanded face by face: the face nearest to the origin is pushed out to the
// support point along its normal, replacing every face that point sees by a fan from the point to
// the horizon (the loop of edges between seen and unseen faces, found by walking the face
// adjacency from the nearest face). It stops when the support point lies within the tolerance of
// the nearest face: that face's distance is the depth, its normal the direction, and the origin's
// projection on it, in the face's barycentric weights, gives the points on both objects. All
// storage is on the stack (EPA_MAXV vertices).
#include <math.h>
#include <string.h>

#include "gjk.h"

#define EPA_MAXV 256                // polytope vertices (iterations + 4)
#define EPA_MAXF (2*EPA_MAXV)       // live faces of a closed triangulated polytope: 2 V - 4

typedef struct {
  int v[3];                         // vertices, counter-clockwise seen from outside
  int adj[3];                       // face across edge k (from v[k] to v[(k + 1) % 3])
  int adjEdge[3];                   // that edge's index in the adjacent face
  mcNum n[3];                       // unit outward normal
  mcNum dist;                       // distance of the face's plane from the origin
  int alive;
} epaFace;

typedef struct {
  gjkVertex vert[EPA_MAXV];
  epaFace face[EPA_MAXF];
  int nvert;
  int nface;
  int horizon[EPA_MAXF][2];         // (face, edge) pairs of the horizon, in walking order
  int nhorizon;
  int freed[EPA_MAXF];              // faces removed in this step (their slots are reused)
  int nfreed;
  mcNum live[EPA_MAXF];             // each slot's distance while alive, infinity once removed
  int fanFrom[EPA_MAXV];            // the fan face starting at each vertex while fanning, or -1
} epaPolytope;


// mark face f alive (its distance in live[]) or removed
static void setAlive(epaPolytope* P, int f, int alive) {
  P->face[f].alive = alive;
  P->live[f] = alive ? P->face[f].dist : INFINITY;
}

// normal and distance of face f from its vertices; 0 when it is degenerate
static int faceGeometry(epaPolytope* P, epaFace* f) {
  const mcNum* a = P->vert[f->v[0]].w;
  const mcNum* b = P->vert[f->v[1]].w;
  const mcNum* c = P->vert[f->v[2]].w;
  mcNum ab[3], ac[3];
  sub(b, a, ab);
  sub(c, a, ac);
  cross(ab, ac, f->n);
  mcNum len = sqrt(dot(f->n, f->n));
  if (!(len > 0)) {
    f->dist = INFINITY;
    return 0;
  }
  for (int k = 0; k < 3; k++) {
    f->n[k] /= len;
  }
  f->dist = dot(f->n, a);
  if (isnan(f->dist)) {             // overflowing coordinates: no order among such faces
    f->dist = INFINITY;
    return 0;
  }
  return 1;
}


// distance of point p from the line through a and b, and from the plane through a, b, c
static mcNum lineDistance(const mcNum a[3], const mcNum b[3], const mcNum p[3]) {
  mcNum ab[3], ap[3], c[3];
  sub(b, a, ab);
  sub(p, a, ap);
  cross(ab, ap, c);
  mcNum len = sqrt(dot(ab, ab));
  return len > 0 ? sqrt(dot(c, c)) / len : sqrt(dot(ap, ap));
}


static mcNum planeDistance(const mcNum a[3], const mcNum b[3], const mcNum c[3],
                           const mcNum p[3]) {
  mcNum ab[3], ac[3], n[3], ap[3];
  sub(b, a, ab);
  sub(c, a, ac);
  cross(ab, ac, n);
  sub(p, a, ap);
  mcNum len = sqrt(dot(n, n));
  return len > 0 ? fabs(dot(n, ap)) / len : 0;
}


// Grow GJK's simplex (the origin on it or inside) to a tetrahedron of support points: a second
// point along the axes, a third across the segment, a fourth along the triangle's normal. The
// new points are accepted when they stand out by more than eps. Return 0 if the objects are
// too flat for that.
static int initialTetrahedron(const gjkQuery* q, const gjkSimplex* s, gjkVertex out[4],
                              mcNum eps) {
  int n = s->n;
  memcpy(out, s->v, sizeof(gjkVertex)*(size_t)n);
  static const mcNum axis[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1},
                                   {0, 0, -1}};
  for (int i = 0; n == 1 && i < 6; i++) {
    gjk_support(q, axis[i], out + 1);
    mcNum d[3];
    sub(out[1].w, out[0].w, d);
    if (sqrt(dot(d, d)) > eps) {
      n = 2;
    }
  }
  if (n == 2) {
    mcNum e[3], base[3], u[3];
    sub(out[1].w, out[0].w, e);
    int k = 0;                      // the axis least aligned with e
    for (int j = 1; j < 3; j++) {
      k = fabs(e[j]) < fabs(e[k]) ? j : k;
    }
    memcpy(base, axis[2*k], sizeof(base));
    cross(e, base, u);
    for (int i = 0; i < 6 && n == 2; i++) {
      // u turned about e by 60-degree steps
      mcNum r[3], v[3];
      cross(e, u, v);
      mcNum le = sqrt(dot(e, e)), ang = M_PI/3*i;
      for (int j = 0; j < 3; j++) {
        r[j] = cos(ang)*u[j] + sin(ang)*v[j]/le;
      }
      gjk_support(q, r, out + 2);
      if (lineDistance(out[0].w, out[1].w, out[2].w) > eps) {
        n = 3;
      }
    }
  }
  if (n == 3) {
    mcNum ab[3], ac[3], nrm[3], neg[3];
    sub(out[1].w, out[0].w, ab);
    sub(out[2].w, out[0].w, ac);
    cross(ab, ac, nrm);
    neg[0] = -nrm[0];
    neg[1] = -nrm[1];
    neg[2] = -nrm[2];
    gjk_support(q, nrm, out + 3);
    if (planeDistance(out[0].w, out[1].w, out[2].w, out[3].w) > eps) {
      n = 4;
    } else {
      gjk_support(q, neg, out + 3);
      n = planeDistance(out[0].w, out[1].w, out[2].w, out[3].w) > eps ? 4 : 3;
    }
  }
  return n == 4;
}


// link face a's edge ea with face b's edge eb
static void link(epaPolytope* P, int a, int ea, int b, int eb) {
  P->face[a].adj[ea] = b;
  P->face[a].adjEdge[ea] = eb;
  P->face[b].adj[eb] = a;
  P->face[b].adjEdge[eb] = ea;
}


// the tetrahedron as four faces, wound so that each normal points away from the fourth vertex
static int buildTetrahedron(epaPolytope* P, const gjkVertex t[4]) {
  memcpy(P->vert, t, sizeof(gjkVertex)*4);
  mcNum ab[3], ac[3], ad[3], n[3];
  sub(t[1].w, t[0].w, ab);
  sub(t[2].w, t[0].w, ac);
  sub(t[3].w, t[0].w, ad);
  cross(ab, ac, n);
  if (dot(n, ad) > 0) {            // vertex 3 above face (0, 1, 2): swap 1 and 2
    P->vert[1] = t[2];
    P->vert[2] = t[1];
  }
  // faces (0 1 2), (0 3 1), (1 3 2), (2 3 0): outward for a positively wound base
  static const int fv[4][3] = {{0, 1, 2}, {0, 3, 1}, {1, 3, 2}, {2, 3, 0}};
  P->nvert = 4;
  P->nface = 4;
  for (int i = 0; i < EPA_MAXV; i++) {
    P->fanFrom[i] = -1;
  }
  for (int f = 0; f < 4; f++) {
    memcpy(P->face[f].v, fv[f], sizeof(fv[f]));
    if (!faceGeometry(P, P->face + f)) {
      return 0;
    }
    setAlive(P, f, 1);
  }
  // adjacency by matching reversed edges
  for (int f = 0; f < 4; f++) {
    for (int e = 0; e < 3; e++) {
      int a = P->face[f].v[e], b = P->face[f].v[(e + 1) % 3];
      for (int g = 0; g < 4; g++) {
        for (int h = 0; h < 3 && g != f; h++) {
          if (P->face[g].v[h] == b && P->face[g].v[(h + 1) % 3] == a) {
            P->face[f].adj[e] = g;
            P->face[f].adjEdge[e] = h;
          }
        }
      }
    }
  }
  return 1;
}


// does point p lie strictly above face f's plane
static int sees(const epaPolytope* P, const epaFace* f, const mcNum p[3]) {
  mcNum d[3];
  sub(p, P->vert[f->v[0]].w, d);
  return dot(f->n, d) > 0;
}


// the edge after edge k of a face, and the one after that
static const int g_next[3] = {1, 2, 0};
static const int g_prev[3] = {2, 0, 1};


// Remove the faces p sees, walking the face adjacency from the (removed) face f in depth-first
// order, and record the horizon edges in walking order: a face p does not see, entered across its
// edge e, gives the horizon edge (face, e); a face it sees is removed and left across its two
// other edges in turn. An explicit stack (the faces to enter next, the next on top) keeps the
// order of the recursive walk: removing faces changes no adjacency, so the neighbours can be
// pushed when their face is removed.
static void removeVisible(epaPolytope* P, int f, const mcNum p[3]) {
  int stack[EPA_MAXF + 3][2], top = 0;   // at most 3 + one per face removed
  const epaFace* F = P->face + f;
  for (int e = 2; e >= 0; e--) {
    stack[top][0] = F->adj[e];
    stack[top][1] = F->adjEdge[e];
    top++;
  }
  while (top > 0) {
    top--;
    int g = stack[top][0], e = stack[top][1];
    const epaFace* G = P->face + g;
    if (!G->alive) {
      continue;
    }
    if (!sees(P, G, p)) {
      P->horizon[P->nhorizon][0] = g;
      P->horizon[P->nhorizon][1] = e;
      P->nhorizon++;
      continue;
    }
    setAlive(P, g, 0);
    P->freed[P->nfreed++] = g;
    // edge e + 1 first, then e + 2: pushed in reverse
    int k2 = g_prev[e], k1 = g_next[e];
    stack[top][0] = G->adj[k2];
    stack[top][1] = G->adjEdge[k2];
    stack[top + 1][0] = G->adj[k1];
    stack[top + 1][1] = G->adjEdge[k1];
    top += 2;
  }
}


// Push out face f to the new vertex iv: remove what it sees, fan the horizon to iv. Return 0 if
// the horizon is no closed loop, a new face comes nearer to the origin than f by more than tol
// (the polytope only grows, so that is rounding on near-flat faces making it non-convex) or the
// polytope is full.
static int expand(epaPolytope* P, int f, int iv, mcNum tol) {
  mcNum floor = P->face[f].dist - tol;
  const mcNum* p = P->vert[iv].w;
  P->nhorizon = 0;
  P->nfreed = 0;
  setAlive(P, f, 0);
  P->freed[P->nfreed++] = f;
  removeVisible(P, f, p);
  int h = P->nhorizon;
  if (h < 3) {
    return 0;
  }
  int made[EPA_MAXF];
  for (int i = 0; i < h; i++) {
    int slot = i < P->nfreed ? P->freed[i] : P->nface++;
    if (slot >= EPA_MAXF) {
      return 0;
    }
    int g = P->horizon[i][0], eg = P->horizon[i][1];
    epaFace* N = P->face + slot;
    N->v[0] = P->face[g].v[g_next[eg]];
    N->v[1] = P->face[g].v[eg];
    N->v[2] = iv;
    if (!faceGeometry(P, N) || N->dist < floor) {
      return 0;
    }
    setAlive(P, slot, 1);
    link(P, slot, 0, g, eg);
    made[i] = slot;
  }
  // neighbouring fan faces share the edge from a horizon vertex to iv: fan face i ends at the
  // horizon vertex where its partner starts (the first fan face starting there; never i itself,
  // whose edge has two ends)
  for (int j = h - 1; j >= 0; j--) {
    P->fanFrom[P->face[made[j]].v[0]] = j;
  }
  for (int i = 0; i < h; i++) {
    int partner = P->fanFrom[P->face[made[i]].v[1]];
    if (partner < 0) {
      return 0;
    }
    link(P, made[i], 1, made[partner], 2);
  }
  for (int j = 0; j < h; j++) {
    P->fanFrom[P->face[made[j]].v[0]] = -1;
  }
  return 1;
}


// the origin's projection on face f as weights of its vertices; the points on both objects
static void faceWitness(const epaPolytope* P, const epaFace* f, mcNum x1[3], mcNum x2[3]) {
  const gjkVertex* a = P->vert + f->v[0];
  const gjkVertex* b = P->vert + f->v[1];
  const gjkVertex* c = P->vert + f->v[2];
  mcNum p[3] = {f->n[0]*f->dist, f->n[1]*f->dist, f->n[2]*f->dist};
  mcNum v0[3], v1[3], v2[3];
  sub(b->w, a->w, v0);
  sub(c->w, a->w, v1);
  sub(p, a->w, v2);
  mcNum d00 = dot(v0, v0), d01 = dot(v0, v1), d11 = dot(v1, v1);
  mcNum d20 = dot(v2, v0), d21 = dot(v2, v1);
  mcNum den = d00*d11 - d01*d01;
  mcNum lb = den > 0 ? (d11*d20 - d01*d21) / den : 1.0/3;
  mcNum lc = den > 0 ? (d00*d21 - d01*d20) / den : 1.0/3;
  mcNum la = 1 - lb - lc;
  for (int k = 0; k < 3; k++) {
    x1[k] = la*a->p1[k] + lb*b->p1[k] + lc*c->p1[k];
    x2[k] = la*a->p2[k] + lb*b->p2[k] + lc*c->p2[k];
  }
}


int epa_penetration(const gjkQuery* q, const gjkSimplex* s, mcNum* depth, mcNum normal[3],
                    mcNum x1[3], mcNum x2[3]) {
  epaPolytope P;
  gjkVertex t[4];
  mcNum tol = q->tolerance > 0 ? q->tolerance : 1e-12;
  if (!initialTetrahedron(q, s, t, 1e3*tol) || !buildTetrahedron(&P, t)) {
    return 0;
  }
  int maxit = q->max_iterations > 0 ? q->max_iterations : 100;
  for (int it = 0;; it++) {
    // the first slot of the least distance: removed slots (infinity) never win, as no live
    // face is infinitely far (faceGeometry)
    int best = epa_nearestSlot(P.live, P.nface);
    if (best < 0) {
      return 0;
    }
    // the nearest face is the answer unless the polytope grows past it (a copy: expanding
    // reuses its slot); its witness points are made only for the answer
    epaFace F = P.face[best];
    *depth = F.dist;
    normal[0] = F.n[0];
    normal[1] = F.n[1];
    normal[2] = F.n[2];
    gjkVertex w;
    if (it < maxit && P.nvert < EPA_MAXV) {
      gjk_support(q, F.n, &w);
    }
    if (it >= maxit || P.nvert == EPA_MAXV || dot(w.w, F.n) - F.dist <= tol) {
      faceWitness(&P, &F, x1, x2);
      return 1;
    }
    P.vert[P.nvert] = w;
    if (!expand(&P, best, P.nvert++, tol)) {
      faceWitness(&P, &F, x1, x2);
      return 1;                     // a broken horizon (rounding): the last face stands
    }
  }
}
