// Moduco collision-gjk: the Gilbert-Johnson-Keerthi distance between two convex objects. The
// simplex of Minkowski-difference vertices closest to the origin is kept with the barycentric
// weights of its closest point v; each step adds the support point in direction -v and reduces
// the simplex to the face carrying the new closest point (Voronoi-region tests, Ericson's
// "Real-Time Collision Detection", 5.1). The gap between |v| (an upper bound of the distance)
// and the support plane's distance (a lower bound) decides convergence and the cutoff.
#include <math.h>
#include <string.h>

#include "gjk.h"

void gjk_support(const gjkQuery* q, const mcNum dir[3], gjkVertex* v) {
  mcNum neg[3] = {-dir[0], -dir[1], -dir[2]};
  q->support1(q->obj1, dir, v->p1);
  q->support2(q->obj2, neg, v->p2);
  sub(v->p1, v->p2, v->w);
}


// closest point to the origin on segment (a, b): weights of a and b (one may be 0)
static void closestSegment(const mcNum a[3], const mcNum b[3], mcNum lam[2]) {
  mcNum ab[3];
  sub(b, a, ab);
  mcNum den = dot(ab, ab), t = den > 0 ? -dot(a, ab) / den : 0;
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  lam[0] = 1 - t;
  lam[1] = t;
}


// closest point to the origin on triangle (a, b, c): its weights (zeros outside the carrying
// feature), by the Voronoi regions of vertices, edges and the face
static void closestTriangle(const mcNum a[3], const mcNum b[3], const mcNum c[3], mcNum lam[3]) {
  mcNum ab[3], ac[3];
  sub(b, a, ab);
  sub(c, a, ac);
  mcNum d1 = -dot(ab, a), d2 = -dot(ac, a);
  lam[0] = lam[1] = lam[2] = 0;
  if (d1 <= 0 && d2 <= 0) {
    lam[0] = 1;
    return;
  }
  mcNum d3 = -dot(ab, b), d4 = -dot(ac, b);
  if (d3 >= 0 && d4 <= d3) {
    lam[1] = 1;
    return;
  }
  mcNum vc = d1*d4 - d3*d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    mcNum t = d1 / (d1 - d3);
    lam[0] = 1 - t;
    lam[1] = t;
    return;
  }
  mcNum d5 = -dot(ab, c), d6 = -dot(ac, c);
  if (d6 >= 0 && d5 <= d6) {
    lam[2] = 1;
    return;
  }
  mcNum vb = d5*d2 - d1*d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    mcNum t = d2 / (d2 - d6);
    lam[0] = 1 - t;
    lam[2] = t;
    return;
  }
  mcNum va = d3*d6 - d5*d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    mcNum t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    lam[1] = 1 - t;
    lam[2] = t;
    return;
  }
  mcNum den = va + vb + vc;
  if (!(den > 0)) {               // degenerate (collinear): the best of the edges
    lam[0] = 1;
    return;
  }
  lam[1] = vb / den;
  lam[2] = vc / den;
  lam[0] = 1 - lam[1] - lam[2];
}


// the point with weights lam of the simplex's w
static void combine(const gjkSimplex* s, const mcNum* lam, mcNum v[3]) {
  v[0] = v[1] = v[2] = 0;
  for (int i = 0; i < s->n; i++) {
    for (int k = 0; k < 3; k++) {
      v[k] += lam[i]*s->v[i].w[k];
    }
  }
}


// Closest point of the simplex to the origin: v, the weights in lam (s->n entries, zero for the
// vertices not needed). Return 1 when the origin lies inside a full tetrahedron.
static int closestSimplex(const gjkSimplex* s, mcNum lam[4], mcNum v[3]) {
  const gjkVertex* p = s->v;
  memset(lam, 0, sizeof(mcNum)*4);
  if (s->n == 1) {
    lam[0] = 1;
  } else if (s->n == 2) {
    closestSegment(p[0].w, p[1].w, lam);
  } else if (s->n == 3) {
    closestTriangle(p[0].w, p[1].w, p[2].w, lam);
  } else {
    // the faces that the origin lies beyond (opposite their fourth vertex); none: inside
    static const int face[4][4] = {{1, 2, 3, 0}, {0, 3, 2, 1}, {0, 1, 3, 2}, {0, 2, 1, 3}};
    mcNum best = INFINITY;
    int outside = 0;
    for (int f = 0; f < 4; f++) {
      const mcNum* a = p[face[f][0]].w;
      const mcNum* b = p[face[f][1]].w;
      const mcNum* c = p[face[f][2]].w;
      const mcNum* o = p[face[f][3]].w;
      mcNum ab[3], ac[3], n[3], ao[3];
      sub(b, a, ab);
      sub(c, a, ac);
      cross(ab, ac, n);
      sub(o, a, ao);
      mcNum sideO = dot(n, ao), sideZ = -dot(n, a);
      if (sideO != 0 && sideO*sideZ > 0) {
        continue;                   // origin on the fourth vertex's side of this face
      }
      outside = 1;
      mcNum l3[3], w[3] = {0, 0, 0};
      closestTriangle(a, b, c, l3);
      for (int k = 0; k < 3; k++) {
        w[k] = l3[0]*a[k] + l3[1]*b[k] + l3[2]*c[k];
      }
      mcNum dd = dot(w, w);
      if (dd < best) {
        best = dd;
        memset(lam, 0, sizeof(mcNum)*4);
        lam[face[f][0]] = l3[0];
        lam[face[f][1]] = l3[1];
        lam[face[f][2]] = l3[2];
      }
    }
    if (!outside) {
      lam[0] = lam[1] = lam[2] = lam[3] = 0.25;
      v[0] = v[1] = v[2] = 0;
      return 1;
    }
  }
  combine(s, lam, v);
  return 0;
}


// keep the simplex vertices with a positive weight
static void reduce(gjkSimplex* s, mcNum lam[4]) {
  int n = 0;
  for (int i = 0; i < s->n; i++) {
    if (lam[i] > 0) {
      s->v[n] = s->v[i];
      lam[n] = lam[i];
      n++;
    }
  }
  if (n == 0) {                     // cannot happen for a valid weight vector; keep one vertex
    n = 1;
    lam[0] = 1;
  }
  s->n = n;
}


// the closest points of both objects from the simplex weights
static void witness(const gjkSimplex* s, const mcNum lam[4], mcNum x1[3], mcNum x2[3]) {
  for (int k = 0; k < 3; k++) {
    x1[k] = x2[k] = 0;
    for (int i = 0; i < s->n; i++) {
      x1[k] += lam[i]*s->v[i].p1[k];
      x2[k] += lam[i]*s->v[i].p2[k];
    }
  }
}


gjkResult gjk_distance(const gjkQuery* q, mcNum* dist, mcNum x1[3], mcNum x2[3], gjkSimplex* s) {
  mcNum v[3], lam[4] = {1, 0, 0, 0};
  sub(q->center1, q->center2, v);
  if (!(dot(v, v) > 0)) {
    v[0] = 1;
    v[1] = v[2] = 0;
  }
  s->n = 0;
  mcNum tol = q->tolerance > 0 ? q->tolerance : 1e-12;
  int maxit = q->max_iterations > 0 ? q->max_iterations : 100;
  for (int it = 0; it < maxit; it++) {
    mcNum dir[3] = {-v[0], -v[1], -v[2]};
    gjkVertex w;
    gjk_support(q, dir, &w);
    mcNum vv = dot(v, v), vw = dot(v, w.w), len = sqrt(vv);

    // w.v / |v| bounds the distance from below (every point x of obj1 - obj2 has x.v >= w.v)
    if (vw > q->cutoff*len) {
      *dist = vw / len;
      if (s->n > 0) {
        witness(s, lam, x1, x2);
      } else {
        memcpy(x1, q->center1, sizeof(mcNum)*3);
        memcpy(x2, q->center2, sizeof(mcNum)*3);
      }
      return gjkBEYOND;
    }
    if (s->n > 0 && len - vw/len <= tol) {
      break;                        // |v| is within tol of the distance
    }
    int repeat = 0;
    for (int i = 0; i < s->n; i++) {
      repeat |= !memcmp(s->v[i].w, w.w, sizeof(w.w));
    }
    if (repeat) {
      break;
    }
    gjkSimplex prev = *s;
    mcNum prevLam[4];
    memcpy(prevLam, lam, sizeof(prevLam));
    s->v[s->n++] = w;
    mcNum nv[3];
    if (closestSimplex(s, lam, nv)) {
      *dist = 0;
      return gjkOVERLAP;
    }
    reduce(s, lam);
    mcNum nvv = dot(nv, nv);
    if (s->n > 1 && nvv >= vv) {
      // no progress (rounding, or a near-degenerate simplex whose fallback point is farther):
      // converged, on the simplex that gave v
      *s = prev;
      memcpy(lam, prevLam, sizeof(prevLam));
      break;
    }
    v[0] = nv[0];
    v[1] = nv[1];
    v[2] = nv[2];
    mcNum size2 = 0;
    for (int i = 0; i < s->n; i++) {
      size2 = fmax(size2, dot(s->v[i].w, s->v[i].w));
    }
    if (nvv <= 1e-20*size2) {
      *dist = 0;
      return gjkOVERLAP;            // touching to 1e-10 of the size: left to EPA for the normal
    }
  }
  witness(s, lam, x1, x2);
  mcNum d[3];
  sub(x1, x2, d);
  *dist = sqrt(dot(d, d));
  return gjkSEPARATED;
}
