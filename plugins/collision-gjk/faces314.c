// Moduco collision-gjk: the multi-contact of two polytopes (box or mesh hull against box or mesh
// hull) and of a cylinder against a polytope or a cylinder as MuJoCo 3.14 makes it for its
// multiccd flag, found by probing 3.14 as a black box (tests/collision/test_collision_gjk.c,
// multiccd tests; docs/mujoco3.md).
//
// A cylinder's features: its cap as the regular 16-gon with a vertex on the geom's x axis, or its
// side as the line nearest the normal (the two ends of the side at the single contact's normal).
// A cap meets only a face or a cap both within FACECOS (the clipped 16-gon), a side line only a
// box's or mesh's face (the clipped line, each point at its own depth, projected along the
// contacts' normal); a side under a cap or a box's edge on a cap keep the single contact.
//
// Given the single contact's normal n (geom1 toward geom2), each geom's face most turned toward
// the other is taken: geom1's whose outward normal is nearest n, geom2's nearest -n (a box's side,
// or a mesh hull's triangle with every hull vertex on its plane: the whole flat face). When both
// are within FACECOS of +-n and of each other, face meets face and the contacts take geom2's
// reversed normal. Else an edge of one face meets the other face: geom1's edge on geom2's face
// (first when geom2's face is within the angle or neither is), else (or when that edge does not
// enter: none within the angle, or geom2's edge starting beyond geom1's face) geom2's edge on
// geom1's face, the edge being the one at the
// face's vertex deepest into the other geom that lies within EDGESIN (a little below the faces'
// angle) of the other face's plane (the next vertex counter-clockwise about its face's outward
// normal first), a cylinder's being its side line at n when its axis lies within that angle of
// the face's plane; the contacts
// take that face's normal, however far it is from n (probed on 3.14: a box's edge on a mesh face
// 8.4 degrees off n, a cylinder's side on a box face 41 degrees off). Else (no such edge, a
// cylinder's cap on anything but a face within the angle) the single contact stands. The two
// features, projected along geom1's face normal (along the contacts' normal when geom1 enters by
// an edge), are intersected (convex polygons, or a segment against a polygon); each point of the
// intersection, lifted along that direction on both features' planes (p1 on geom1's, p2 on
// geom2's), is a contact when (p2 - p1).n, its distance, is within the margin, placed at p2 moved
// by half its depth along the contact normal. Of more than MAXPTS points the deepest, the farthest
// from it and the two that widen the set most are kept (3.14 keeps 4 of an octagon; which 4 is
// not reproduced). All work in fixed-size local buffers.
#include <math.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "faces314.h"

#define MAXF     64                 // vertices of one face (more: the single contact stands)
#define MAXPOLY  (2*MAXF)           // vertices of the intersection
#define MAXPTS   4                  // contacts kept
#define FACECOS  0.996              // a face counts when its normal is this near the contact's
#define NCAP     16                 // vertices of a cylinder's cap as MuJoCo 3.14 takes it
// an edge counts within this sine of its angle to a face's plane: 5.0945 degrees (probed on 3.14:
// a cube's edge on a box face, the cube rolled by 20 and 60 degrees, 5.0944 counts, 5.0946 not;
// a little below the faces' 5.126 degrees)
#define EDGESIN  0.088799

static mcNum dot3(const mcNum a[3], const mcNum b[3]) {
  return a[0]*b[0] + a[1]*b[1] + a[2]*b[2];
}


// the hull graph of mesh geom g (NULL: none)
static const int* hullGraph(const mcModel* m, int g) {
  if (m->geom_type[g] != mcGEOM_MESH || m->geom_dataid[g] < 0 || !m->nmeshgraph) {
    return NULL;
  }
  int adr = m->mesh_graphadr[m->geom_dataid[g]];
  return adr >= 0 && m->mesh_graph[adr] >= 4 && m->mesh_graph[adr + 1] >= 4 ?
         m->mesh_graph + adr : NULL;
}


// does geom g have flat features here: a box, a mesh with a hull graph or a cylinder
static int hasFaces(const mcModel* m, int g) {
  int t = m->geom_type[g];
  return t == mcGEOM_BOX || t == mcGEOM_CYLINDER || hullGraph(m, g);
}


int faces314_applies(const mcModel* m, int g1, int g2) {
  return hasFaces(m, g1) && hasFaces(m, g2);
}


// geom g's point with local coordinates loc, in the world
static void toWorld(const mcData* d, int g, const mcNum loc[3], mcNum res[3]) {
  const mcNum* pos = d->geom_xpos + 3*g;
  const mcNum* mat = d->geom_xmat + 9*g;
  for (int k = 0; k < 3; k++) {
    res[k] = pos[k] + mat[3*k]*loc[0] + mat[3*k + 1]*loc[1] + mat[3*k + 2]*loc[2];
  }
}


// mesh geom g's vertex i (the mesh's own numbering) in the world
static void meshVertex(const mcModel* m, const mcData* d, int g, int i, mcNum res[3]) {
  const float* v = m->mesh_vert + 3*(m->mesh_vertadr[m->geom_dataid[g]] + i);
  mcNum loc[3] = {v[0], v[1], v[2]};
  toWorld(d, g, loc, res);
}


// a box's face whose outward normal is nearest dir: its 4 corners and normal; the cosine
static mcNum boxFace(const mcModel* m, const mcData* d, int g, const mcNum dir[3],
                     mcNum pts[][3], int* np, mcNum o[3]) {
  const mcNum* mat = d->geom_xmat + 9*g;
  const mcNum* s = m->geom_size + 3*g;
  int axis = 0;
  mcNum best = -INFINITY, sign = 1;
  for (int k = 0; k < 3; k++) {
    mcNum c = mat[k]*dir[0] + mat[3 + k]*dir[1] + mat[6 + k]*dir[2];
    if (fabs(c) > best) {
      best = fabs(c);
      axis = k;
      sign = c < 0 ? -1 : 1;
    }
  }
  for (int k = 0; k < 3; k++) {
    o[k] = sign*mat[3*k + axis];
  }
  *np = 0;
  for (int i = 0; i < 8; i++) {
    mcNum loc[3] = {(i & 1) ? s[0] : -s[0], (i & 2) ? s[1] : -s[1], (i & 4) ? s[2] : -s[2]};
    if (loc[axis]*sign > 0) {
      toWorld(d, g, loc, pts[(*np)++]);
    }
  }
  return best;
}


// A mesh hull's face whose outward normal is nearest dir: the hull triangle of that normal and
// every hull vertex on its plane (within 1e-6 of the geom's size); its cosine, or -2 when the
// face has more than MAXF vertices.
static mcNum meshFace(const mcModel* m, const mcData* d, int g, const int* gr, const mcNum dir[3],
                      mcNum pts[][3], int* np, mcNum o[3]) {
  int nv = gr[0], nf = gr[1];
  const int* vid = gr + 2 + nv;
  const int* face = gr + 2 + 3*nv + 3*nf;
  mcNum inner[3] = {0, 0, 0}, v[3][3], best = -INFINITY, off = 0;
  for (int j = 0; j < nv; j++) {
    meshVertex(m, d, g, vid[j], v[0]);
    for (int k = 0; k < 3; k++) {
      inner[k] += v[0][k] / nv;
    }
  }
  for (int f = 0; f < nf; f++) {
    for (int i = 0; i < 3; i++) {
      meshVertex(m, d, g, face[3*f + i], v[i]);
    }
    mcNum a[3], b[3], c[3], w[3];
    for (int k = 0; k < 3; k++) {
      a[k] = v[1][k] - v[0][k];
      b[k] = v[2][k] - v[0][k];
      w[k] = v[0][k] - inner[k];
    }
    c[0] = a[1]*b[2] - a[2]*b[1];
    c[1] = a[2]*b[0] - a[0]*b[2];
    c[2] = a[0]*b[1] - a[1]*b[0];
    mcNum len = sqrt(dot3(c, c)), sgn = dot3(c, w) < 0 ? -1 : 1;
    if (!(len > 0)) {
      continue;
    }
    mcNum cs = sgn*dot3(c, dir) / len;
    if (cs > best) {
      best = cs;
      for (int k = 0; k < 3; k++) {
        o[k] = sgn*c[k] / len;
      }
      off = dot3(o, v[0]);
    }
  }
  mcNum eps = 1e-6*m->geom_rbound[g];
  *np = 0;
  for (int j = 0; j < nv; j++) {
    meshVertex(m, d, g, vid[j], v[0]);
    if (fabs(dot3(o, v[0]) - off) <= eps) {
      if (*np == MAXF) {
        return -2;
      }
      memcpy(pts[(*np)++], v[0], sizeof(v[0]));
    }
  }
  return best;
}


// A cylinder's feature most turned toward dir: its cap as the regular 16-gon with a vertex on the
// geom's x axis (NCAP points, the cap's outward normal), or, when the axis is nearer across dir,
// its side's line nearest dir (2 points, the outward normal of the side along that line); the
// cosine of that normal with dir.
static mcNum cylinderFace(const mcModel* m, const mcData* d, int g, const mcNum dir[3],
                          mcNum pts[][3], int* np, mcNum o[3]) {
  const mcNum* mat = d->geom_xmat + 9*g;
  mcNum r = m->geom_size[3*g], h = m->geom_size[3*g + 1];
  mcNum ax[3] = {mat[2], mat[5], mat[8]}, along = dot3(ax, dir), side[3];
  for (int k = 0; k < 3; k++) {
    side[k] = dir[k] - along*ax[k];
  }
  mcNum across = sqrt(dot3(side, side)), sign = along < 0 ? -1 : 1;
  if (fabs(along) >= across) {
    for (int i = 0; i < NCAP; i++) {
      mcNum a = i*(2*M_PI/NCAP);
      mcNum loc[3] = {r*cos(a), r*sin(a), sign*h};
      toWorld(d, g, loc, pts[i]);
    }
    *np = NCAP;
    for (int k = 0; k < 3; k++) {
      o[k] = sign*ax[k];
    }
    return fabs(along);
  }
  const mcNum* pos = d->geom_xpos + 3*g;
  for (int k = 0; k < 3; k++) {
    o[k] = side[k] / across;
    pts[0][k] = pos[k] + r*o[k] + h*ax[k];
    pts[1][k] = pos[k] + r*o[k] - h*ax[k];
  }
  *np = 2;
  return across;
}


static mcNum bestFace(const mcModel* m, const mcData* d, int g, const mcNum dir[3],
                      mcNum pts[][3], int* np, mcNum o[3]) {
  if (m->geom_type[g] == mcGEOM_CYLINDER) {
    return cylinderFace(m, d, g, dir, pts, np, o);
  }
  const int* gr = hullGraph(m, g);
  return gr ? meshFace(m, d, g, gr, dir, pts, np, o) : boxFace(m, d, g, dir, pts, np, o);
}


//---------------------------------- plane geometry ------------------------------------------------

static mcNum cross2(const mcNum o[2], const mcNum a[2], const mcNum b[2]) {
  return (a[0] - o[0])*(b[1] - o[1]) - (a[1] - o[1])*(b[0] - o[0]);
}


// the convex hull of the n points p, counter-clockwise (monotone chain), in place; its size
static int hull2(mcNum p[][2], int n) {
  for (int i = 1; i < n; i++) {      // sort by x, then y (insertion sort: n <= MAXF)
    mcNum t[2] = {p[i][0], p[i][1]};
    int j = i - 1;
    while (j >= 0 && (p[j][0] > t[0] || (p[j][0] == t[0] && p[j][1] > t[1]))) {
      p[j + 1][0] = p[j][0];
      p[j + 1][1] = p[j][1];
      j--;
    }
    p[j + 1][0] = t[0];
    p[j + 1][1] = t[1];
  }
  if (n < 3) {
    return n;
  }
  mcNum h[2*MAXF + 2][2];
  int k = 0;
  for (int i = 0; i < n; i++) {     // lower chain
    while (k >= 2 && cross2(h[k - 2], h[k - 1], p[i]) <= 0) {
      k--;
    }
    h[k][0] = p[i][0];
    h[k][1] = p[i][1];
    k++;
  }
  for (int i = n - 2, t = k + 1; i >= 0; i--) {  // upper chain
    while (k >= t && cross2(h[k - 2], h[k - 1], p[i]) <= 0) {
      k--;
    }
    h[k][0] = p[i][0];
    h[k][1] = p[i][1];
    k++;
  }
  k--;                              // the first point closes the chain
  memcpy(p, h, sizeof(mcNum)*2*(size_t)k);
  return k;
}


// the convex polygon a (na points, counter-clockwise) clipped by each edge of convex polygon b
// (counter-clockwise): the intersection in out, its size
static int clip(const mcNum a[][2], int na, const mcNum b[][2], int nb, mcNum out[][2]) {
  mcNum buf[2][MAXPOLY][2];
  int n = na;
  memcpy(buf[0], a, sizeof(mcNum)*2*(size_t)na);
  int cur = 0;
  for (int e = 0; e < nb && n > 0; e++) {
    const mcNum* s = b[e];
    const mcNum* t = b[(e + 1) % nb];
    int m = 0;
    for (int i = 0; i < n && m < MAXPOLY - 1; i++) {
      const mcNum* p = buf[cur][i];
      const mcNum* q = buf[cur][(i + 1) % n];
      mcNum sp = cross2(s, t, p), sq = cross2(s, t, q);
      if (sp >= 0) {
        buf[1 - cur][m][0] = p[0];
        buf[1 - cur][m][1] = p[1];
        m++;
      }
      if ((sp >= 0) != (sq >= 0)) {
        mcNum r = sp / (sp - sq);
        buf[1 - cur][m][0] = p[0] + r*(q[0] - p[0]);
        buf[1 - cur][m][1] = p[1] + r*(q[1] - p[1]);
        m++;
      }
    }
    n = m;
    cur = 1 - cur;
  }
  memcpy(out, buf[cur], sizeof(mcNum)*2*(size_t)n);
  return n;
}


// The segment s[0], s[1] clipped by each edge of convex polygon b (counter-clockwise): its ends
// in out, an end that was cut off twice (MuJoCo 3.14 clips the segment as a polygon of two
// vertices, which puts each border point in once for each of the segment's two sides; probed: a
// lying cylinder across a box's edge whose inner end is not deep enough gets the edge point
// twice); their number (0 to 4).
static int clipSegment(const mcNum s[][2], const mcNum b[][2], int nb, mcNum out[][2]) {
  mcNum t0 = 0, t1 = 1;
  for (int e = 0; e < nb && t0 <= t1; e++) {
    mcNum a0 = cross2(b[e], b[(e + 1) % nb], s[0]), a1 = cross2(b[e], b[(e + 1) % nb], s[1]);
    if (a0 < 0 && a1 < 0) {
      return 0;
    }
    if ((a0 < 0) != (a1 < 0)) {
      mcNum r = a0 / (a0 - a1);
      if (a0 < 0) {
        t0 = fmax(t0, r);
      } else {
        t1 = fmin(t1, r);
      }
    }
  }
  if (t0 > t1) {
    return 0;
  }
  int n = 0;
  for (int end = 0; end < 2; end++) {
    mcNum t = end ? t1 : t0;
    int times = t == end ? 1 : 2;
    for (int i = 0; i < times; i++, n++) {
      for (int k = 0; k < 2; k++) {
        out[n][k] = s[0][k] + t*(s[1][k] - s[0][k]);
      }
    }
  }
  return n;
}


// Drop the contacts at the same point as an earlier one (3.14 keeps a border point twice only
// when it is all of a segment's contacts); the number left.
static int uniqueContacts(mcContact* con, int n) {
  int m = 0;
  for (int i = 0; i < n; i++) {
    int dup = 0;
    for (int j = 0; j < m && !dup; j++) {
      dup = !memcmp(con[i].pos, con[j].pos, sizeof(con[i].pos));
    }
    if (!dup) {
      con[m++] = con[i];
    }
  }
  return m;
}


//---------------------------------- contacts ------------------------------------------------------

// a face's points projected on the plane of basis u, v (a convex polygon, counter-clockwise)
static int project(mcNum pts[][3], int np, const mcNum u[3], const mcNum v[3], mcNum p2[][2]) {
  for (int i = 0; i < np; i++) {
    p2[i][0] = dot3(pts[i], u);
    p2[i][1] = dot3(pts[i], v);
  }
  return hull2(p2, np);
}


// q (coordinates in u, v) moved along n onto the plane o.x = off
static void lift(const mcNum q[2], const mcNum u[3], const mcNum v[3], const mcNum n[3],
                 const mcNum o[3], mcNum off, mcNum res[3]) {
  mcNum x[3];
  for (int k = 0; k < 3; k++) {
    x[k] = q[0]*u[k] + q[1]*v[k];
  }
  mcNum t = (off - dot3(o, x)) / dot3(o, n);
  for (int k = 0; k < 3; k++) {
    res[k] = x[k] + t*n[k];
  }
}


// Replace face polygon p (counter-clockwise about n, on the plane o.x = off) by its edge that
// enters the other geom across that geom's face of outward normal other: at the vertex farthest
// toward it (along n times side: +1 for geom1, -1 for geom2) the edge to the vertex after it
// counter-clockwise about the face's outward normal, else the one before, whichever first lies
// within the faces' angle of the other face's plane (probed on 3.14: of a prism's face tilted by
// 5.5 degrees only the first edge enters; an edge tilted by 17 degrees does not, one tilted by
// 4.6 degrees across a face 8.4 degrees off the single contact's normal does); 0 when neither.
static int faceEdge(mcNum p[][2], int np, const mcNum u[3], const mcNum v[3], const mcNum n[3],
                    const mcNum o[3], mcNum off, int side, const mcNum other[3]) {
  int best = 0;
  mcNum far = -INFINITY, x[MAXF][3];
  for (int i = 0; i < np; i++) {
    lift(p[i], u, v, n, o, off, x[i]);
    mcNum h = side*dot3(x[i], n);
    if (h > far) {
      far = h;
      best = i;
    }
  }
  for (int k = 0; k < 2; k++) {
    int next = (side > 0) == (k == 0) ? (best + 1) % np : (best + np - 1) % np;
    mcNum e[3] = {x[next][0] - x[best][0], x[next][1] - x[best][1], x[next][2] - x[best][2]};
    if (fabs(dot3(e, other)) <= EDGESIN*sqrt(dot3(e, e))) {
      mcNum seg[2][2] = {{p[best][0], p[best][1]}, {p[next][0], p[next][1]}};
      memcpy(p, seg, sizeof(seg));
      return 1;
    }
  }
  return 0;
}


static mcNum dist2(const mcNum a[3], const mcNum b[3]) {
  mcNum d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return dot3(d, d);
}


// Keep MAXPTS of the n contacts: the deepest, the farthest from it, then twice the one whose
// smallest distance to those kept is largest. Return MAXPTS.
static int reduce(mcContact* con, int n) {
  int keep[MAXPTS] = {0};
  for (int i = 1; i < n; i++) {
    keep[0] = con[i].dist < con[keep[0]].dist ? i : keep[0];
  }
  for (int j = 1; j < MAXPTS; j++) {
    mcNum best = -1;
    for (int i = 0; i < n; i++) {
      mcNum near = INFINITY;
      for (int k = 0; k < j; k++) {
        near = fmin(near, dist2(con[i].pos, con[keep[k]].pos));
      }
      if (near > best) {
        best = near;
        keep[j] = i;
      }
    }
  }
  mcContact tmp[MAXPTS];
  for (int j = 0; j < MAXPTS; j++) {
    tmp[j] = con[keep[j]];
  }
  memcpy(con, tmp, sizeof(tmp));
  return MAXPTS;
}


// The contacts of geom1's feature f1 (n1 points, outward normal o1) and geom2's f2 (o2, its cosine
// c2 with the single contact's reversed normal) meeting as mode says (0 face on face,
// 1 geom1's edge on geom2's face, 2 the reverse) in con (con[0] the single contact): their number
// (0: the single contact stands), or -1 when the mode's edge does not enter (no edge within the
// angle, or its deepest vertex beyond the other face: the other mode is tried).
static int featureContacts(mcContact* con, int mode, mcNum f1[][3], int n1, const mcNum o1[3],
                           mcNum f2[][3], int n2, const mcNum o2[3], mcNum c2, mcNum margin) {
  mcNum n[3], N[3];
  // the contacts' normal: geom2's face reversed unless geom2 enters by an edge; the faces are
  // projected along geom1's face normal unless geom1 enters by an edge (then along the contacts')
  for (int k = 0; k < 3; k++) {
    N[k] = mode == 2 || (mode == 0 && c2 < FACECOS) ? o1[k] : -o2[k];
    n[k] = mode == 1 ? N[k] : o1[k];
  }
  // a basis u, v of the plane across n
  mcNum a[3] = {0, 0, 0}, u[3], v[3];
  a[fabs(n[0]) < 0.6 ? 0 : 1] = 1;
  mcNum an = dot3(a, n);
  for (int k = 0; k < 3; k++) {
    u[k] = a[k] - an*n[k];
  }
  mcNum ul = sqrt(dot3(u, u));
  for (int k = 0; k < 3; k++) {
    u[k] /= ul;
  }
  v[0] = n[1]*u[2] - n[2]*u[1];
  v[1] = n[2]*u[0] - n[0]*u[2];
  v[2] = n[0]*u[1] - n[1]*u[0];
  mcNum p1[MAXF][2], p2[MAXF][2], q[MAXPOLY][2];
  n1 = project(f1, n1, u, v, p1);
  n2 = project(f2, n2, u, v, p2);
  mcNum off1 = dot3(o1, f1[0]), off2 = dot3(o2, f2[0]);
  if (n1 < 2 || n2 < 3) {
    return 0;
  }
  int nq, segment = 1;
  if (n1 == 2) {                    // a cylinder's side line on geom2's face
    nq = clipSegment(p1, p2, n2, q);
  } else if (mode == 0) {
    nq = clip(p1, n1, p2, n2, q);
    segment = 0;
  } else {                          // one geom enters by an edge of its face, the other by its face
    int e1 = mode == 1;
    if (!faceEdge(e1 ? p1 : p2, e1 ? n1 : n2, u, v, n, e1 ? o1 : o2, e1 ? off1 : off2,
                  e1 ? 1 : -1, e1 ? o2 : o1)) {
      return -1;
    }
    nq = e1 ? clipSegment(p1, p2, n2, q) : clipSegment(p2, p1, n1, q);
    if (!e1 && nq > 1 && !memcmp(q[0], q[1], sizeof(q[0]))) {
      // geom2's edge's deepest vertex lies beyond geom1's face (its start cut off, in twice)
      // (probed on 3.14: a cube's edge across a box's or a slab mesh's border, with the far end
      // inside deep enough or not: the single contact; the slab's border edge then on the cube's
      // face, where it lies within the angle: that edge)
      return -1;
    }
  }
  mcContact single = con[0];
  int nc = 0;
  for (int i = 0; i < nq && nc < mcMAXCONPAIR; i++) {
    mcNum x1[3], x2[3];
    lift(q[i], u, v, n, o1, off1, x1);
    lift(q[i], u, v, n, o2, off2, x2);
    mcNum depth = dot3(x1, n) - dot3(x2, n);
    if (-depth > margin) {
      continue;
    }
    mcContact* c = con + nc++;
    *c = single;
    c->dist = -depth;
    for (int k = 0; k < 3; k++) {
      c->pos[k] = x2[k] + 0.5*depth*N[k];
      c->frame[k] = N[k];
    }
    memset(c->frame + 3, 0, sizeof(mcNum)*6);
  }
  if (nc == 0) {
    con[0] = single;
    return 0;
  }
  if (segment && nc > 2) {
    nc = uniqueContacts(con, nc);
  }
  return nc > MAXPTS ? reduce(con, nc) : nc;
}


int faces314_contacts(const mcModel* m, const mcData* d, mcContact* con, int g1, int g2,
                      mcNum margin) {
  mcNum n[3] = {con[0].frame[0], con[0].frame[1], con[0].frame[2]}, neg[3] = {-n[0], -n[1], -n[2]};
  mcNum f1[MAXF][3], f2[MAXF][3], o1[3], o2[3];
  int n1, n2;
  mcNum c1 = bestFace(m, d, g1, n, f1, &n1, o1);
  mcNum c2 = bestFace(m, d, g2, neg, f2, &n2, o2);
  if (!(c1 > 0) || !(c2 > 0) || n2 < 2) {
    return 0;
  }
  // both faces within the angle: face on face; else an edge of one (a cylinder's side line) on the
  // other's face when within the angle of its plane, that face's normal for the contacts (probed
  // on 3.14: a box's edge on a mesh face 8.4 degrees off the single contact's normal, a lying
  // cylinder's side on a box face 41 degrees off), the other way round when that edge does not
  // enter. A cylinder's cap takes no edge and gets none (a cap tilted beyond the angle, a box's
  // edge on a cap, a side line under a cap: 1 contact).
  int cyl1 = m->geom_type[g1] == mcGEOM_CYLINDER, cyl2 = m->geom_type[g2] == mcGEOM_CYLINDER;
  // face on face also needs the two faces within the angle of each other (probed on 3.14: a box's
  // face 4.3 degrees off n and a cube mesh's 1.5 degrees off it the other way, 5.7 degrees apart,
  // give the box's edge on the cube's face)
  if (c1 >= FACECOS && c2 >= FACECOS && n1 >= 3 && n2 >= 3 && -dot3(o1, o2) >= FACECOS) {
    return featureContacts(con, 0, f1, n1, o1, f2, n2, o2, c2, margin);
  }
  int first = c1 >= FACECOS && c2 < FACECOS ? 2 : 1;
  for (int k = 0; k < 2; k++) {
    int try = k ? 3 - first : first, mode = -1;
    if (try == 1 && !cyl2 && n2 >= 3 && cyl1) {
      // the side line at the single contact's normal, its axis within the angle of the face
      const mcNum* mat = d->geom_xmat + 9*g1;
      mcNum ax[3] = {mat[2], mat[5], mat[8]};
      mode = n1 == 2 && fabs(dot3(ax, o2)) <= EDGESIN ? 1 : -1;
    } else if (try == 1 && !cyl2 && n2 >= 3 && n1 >= 3) {
      mode = 1;                     // the edge is picked by featureContacts
    } else if (try == 2 && !cyl1 && !cyl2 && n1 >= 3 && n2 >= 3) {
      mode = 2;
    }
    if (mode < 0) {
      continue;
    }
    int nc = featureContacts(con, mode, f1, n1, o1, f2, n2, o2, c2, margin);
    if (nc >= 0) {
      return nc;
    }
  }
  return 0;
}
