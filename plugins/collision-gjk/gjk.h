// Moduco collision-gjk: the distance between two convex objects given by support functions
// (GJK, gjk.c) and their penetration when they overlap (EPA, epa.c).
#ifndef MODUCO_PLUGINS_COLLISION_GJK_GJK_H_
#define MODUCO_PLUGINS_COLLISION_GJK_GJK_H_

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <moduco/mcplugin.h>

// support point of obj in the world direction dir (any length above zero)
typedef void (*gjkSupport)(const void* obj, const mcNum dir[3], mcNum res[3]);

// one query: two objects, their support functions and interior points, the stopping rules
typedef struct {
  const void* obj1;
  const void* obj2;
  gjkSupport support1;
  gjkSupport support2;
  mcNum center1[3];               // a point inside obj1
  mcNum center2[3];               // a point inside obj2
  mcNum tolerance;                // absolute tolerance on distance and depth (length units)
  int max_iterations;             // iterations of each algorithm
  mcNum cutoff;                   // GJK stops once the distance is known to exceed it
} gjkQuery;

// a point of the Minkowski difference obj1 - obj2 with the support points it came from
typedef struct {
  mcNum w[3];                     // p1 - p2
  mcNum p1[3];                    // on obj1
  mcNum p2[3];                    // on obj2
} gjkVertex;

// GJK's simplex: 1 to 4 vertices
typedef struct {
  gjkVertex v[4];
  int n;
} gjkSimplex;

typedef enum {
  gjkSEPARATED = 0,               // distance and closest points valid
  gjkBEYOND,                      // the distance exceeds the cutoff (a lower bound is returned)
  gjkOVERLAP                      // the objects overlap (or touch): the simplex is for EPA
} gjkResult;

// the distance of obj1 and obj2 in *dist with the closest points x1 (on obj1) and x2 (on obj2);
// with gjkOVERLAP *dist is 0 and s holds the last simplex; with gjkBEYOND *dist is the lower
// bound and x1 - x2 the last simplex's closest point v (or center1 - center2 before the first
// one), the objects lying more than the cutoff apart along the direction of x2 - x1
gjkResult gjk_distance(const gjkQuery* q, mcNum* dist, mcNum x1[3], mcNum x2[3], gjkSimplex* s);

// the penetration of overlapping obj1 and obj2, starting from GJK's simplex s: depth (>= 0), the
// unit normal along which obj2 must move to separate (from obj1 toward obj2) and the deepest
// points x1 (of obj1, inside obj2) and x2 (of obj2, inside obj1), x2 - x1 = -depth normal.
// Return 0 when no polytope could be built (degenerate objects).
int epa_penetration(const gjkQuery* q, const gjkSimplex* s, mcNum* depth, mcNum normal[3],
                    mcNum x1[3], mcNum x2[3]);

// 3-vector helpers of gjk.c and epa.c
static inline mcNum dot(const mcNum a[3], const mcNum b[3]) {
  return a[0]*b[0] + a[1]*b[1] + a[2]*b[2];
}

static inline void sub(const mcNum a[3], const mcNum b[3], mcNum res[3]) {
  res[0] = a[0] - b[0];
  res[1] = a[1] - b[1];
  res[2] = a[2] - b[2];
}

static inline void cross(const mcNum a[3], const mcNum b[3], mcNum res[3]) {
  res[0] = a[1]*b[2] - a[2]*b[1];
  res[1] = a[2]*b[0] - a[0]*b[2];
  res[2] = a[0]*b[1] - a[1]*b[0];
}

// EPA's nearest face: the first slot of the least of live[0 .. n) (-1: none below infinity; no
// entry may be NaN), as a scan keeping the first strictly smaller one would pick it, in two
// passes: the least value (SSE2's minimum is x < m ? x : m per lane, two lanes at a time; -0 and
// +0 compare equal in both passes), then the first slot equal to it (four slots at a time).
static inline int epa_nearestSlot(const mcNum* live, int n) {
  mcNum least = INFINITY;
  int f = 0;
#if defined(__SSE2__)
  __m128d m0 = _mm_set1_pd(INFINITY), m1 = m0;
  for (; f + 4 <= n; f += 4) {
    m0 = _mm_min_pd(_mm_loadu_pd(live + f), m0);
    m1 = _mm_min_pd(_mm_loadu_pd(live + f + 2), m1);
  }
  m0 = _mm_min_pd(m1, m0);
  mcNum lane[2];
  _mm_storeu_pd(lane, m0);
  least = lane[0] < lane[1] ? lane[0] : lane[1];
#endif
  for (; f < n; f++) {
    least = live[f] < least ? live[f] : least;
  }
  if (!(least < INFINITY)) {
    return -1;
  }
  f = 0;
#if defined(__SSE2__)
  __m128d l = _mm_set1_pd(least);
  for (; f + 4 <= n; f += 4) {
    int hit = _mm_movemask_pd(_mm_cmpeq_pd(_mm_loadu_pd(live + f), l)) |
              _mm_movemask_pd(_mm_cmpeq_pd(_mm_loadu_pd(live + f + 2), l)) << 2;
    if (hit) {
      return f + __builtin_ctz((unsigned)hit);
    }
  }
#endif
  for (; live[f] != least; f++) {
  }
  return f;
}

// a vertex of the Minkowski difference: the support points of both objects in direction dir
void gjk_support(const gjkQuery* q, const mcNum dir[3], gjkVertex* v);

#endif  // MODUCO_PLUGINS_COLLISION_GJK_GJK_H_
