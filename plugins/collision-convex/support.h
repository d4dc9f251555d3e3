// Moduco collision plugins: support functions of the convex geom types (sphere, capsule,
// ellipsoid, cylinder, box, mesh vertices) in world coordinates, grown by half the margin.
// Header-only (static) so collision-convex and collision-hfield each compile their own copy.
#ifndef MODUCO_PLUGINS_COLLISION_CONVEX_SUPPORT_H_
#define MODUCO_PLUGINS_COLLISION_CONVEX_SUPPORT_H_

#include <math.h>

#include <moduco/mcplugin.h>

// one convex object: a geom with its pose, grown by half the margin; warm is the hull vertex
// where the last mesh support search ended (0 to start there, -1 to start from a sample; updated through a const pointer, so a
// ConvexObj must not itself be defined const)
typedef struct {
  const mcModel* m;
  const mcData* d;
  int geom;
  mcNum margin;
  int warm;
} ConvexObj;


// index (within the mesh) of the first vertex with the largest projection on dir: the full scan
static int meshSupportScan(const mcModel* m, int id, const mcNum dir[3]) {
  const float* v = m->mesh_vert + 3*m->mesh_vertadr[id];
  int n = m->mesh_vertnum[id], best = 0;
  mcNum bestp = -INFINITY;
  for (int i = 0; i < n; i++) {
    mcNum p = dir[0]*v[3*i] + dir[1]*v[3*i + 1] + dir[2]*v[3*i + 2];
    if (p > bestp) {
      bestp = p;
      best = i;
    }
  }
  return best;
}


// a mesh's compiled convex hull graph (mesh_graph at mesh_graphadr): nv hull vertices; hull
// vertex i is mesh point gid[i], its neighbours edge[edgeadr[i]], edge[edgeadr[i] + 1], ... up
// to -1; v the mesh points
typedef struct {
  int nv;
  const int* edgeadr;
  const int* gid;
  const int* edge;
  const float* v;
} MeshHull;


static inline MeshHull meshHull(const mcModel* m, int id) {
  const int* gr = m->mesh_graph + m->mesh_graphadr[id];
  MeshHull h = {gr[0], gr + 2, gr + 2 + gr[0], gr + 2 + 2*gr[0],
                m->mesh_vert + 3*m->mesh_vertadr[id]};
  return h;
}


// hull vertices sampled for the start of a climb without a warm start
#define MESH_CLIMB_SAMPLES 16

// hull vertices a support tie may gather (meshSupportTie); more: the full scan
#define MESH_TIE_MAX 64

// The full scan's vertex (the same index) where the climb of meshSupportGraph ended on hull
// vertex cur (projection curp on the unit direction dir) with a neighbour within tol: the hull
// vertices above curp - tol connected to cur in the hull graph (a flood; every hull vertex within
// a few roundings of the top is among them, as the hull vertices above any level of a linear
// function are connected), and the mesh points the compiler chained to them (mesh_tie: earlier
// copies of their points, and the points within rounding of the hull surface around them; see
// core/compiler/compiler_meshtie.c), the largest projection, the first of equal ones. tol must
// exceed a few roundings of the compiled vertices (~1e-7 of the size). The full scan for a mesh
// without chains or a tie over more than MESH_TIE_MAX hull vertices.
static int meshSupportTie(const mcModel* m, int id, const mcNum dir[3], mcNum tol, int cur,
                          mcNum curp) {
  if (!m->mesh_tied || !m->mesh_tied[id]) {
    return meshSupportScan(m, id, dir);
  }
  const MeshHull h = meshHull(m, id);
  const int *edgeadr = h.edgeadr, *gid = h.gid, *edge = h.edge;
  const float* v = h.v;
  const int* tie = m->mesh_tie + m->mesh_vertadr[id];
  int set[MESH_TIE_MAX], n = 1;
  set[0] = cur;
  for (int i = 0; i < n; i++) {
    for (int j = edgeadr[set[i]]; edge[j] >= 0; j++) {
      int e = edge[j], seen = 0;
      const float* p = v + 3*gid[e];
      if (dir[0]*p[0] + dir[1]*p[1] + dir[2]*p[2] < curp - tol) {
        continue;
      }
      for (int k = 0; k < n && !seen; k++) {
        seen = set[k] == e;
      }
      if (!seen) {
        if (n == MESH_TIE_MAX) {
          return meshSupportScan(m, id, dir);
        }
        set[n++] = e;
      }
    }
  }

  // the hull vertices and their chains (each chain at most all mesh vertices long)
  int best = -1, nvert = m->mesh_vertnum[id];
  mcNum bestp = -INFINITY;
  for (int i = 0; i < n; i++) {
    for (int j = gid[set[i]], len = 0; j >= 0 && len < nvert; j = tie[j], len++) {
      const float* p = v + 3*j;
      mcNum prj = dir[0]*p[0] + dir[1]*p[1] + dir[2]*p[2];
      if (prj > bestp || (prj == bestp && j < best)) {
        best = j;
        bestp = prj;
      }
    }
  }
  return best;
}


// The scan's support point (same coordinates; the index may be another copy of the point) from
// the convex hull graph: hill climbing from hull vertex *warm (updated; negative: from the best
// of a few sampled hull vertices), moving to the neighbour
// with the largest projection while it improves. Where the climb ends with every neighbour more
// than tol below, that vertex is the hull's unique support (the hull vertices above any level of
// a linear function are connected in the hull graph, so no other one comes within tol), and no
// mesh point, which lies inside the hull up to the rounding of the compiled vertices, comes
// first in the scan either. Otherwise (a face or edge nearly normal to dir, where mesh points
// that are no hull vertices can compete): the scan's vertex from the hull vertices near the top
// and the mesh points chained to them (meshSupportTie). Without a graph: the full scan. Left:
// a mesh point lifted above the hull by the rounding of the compiled vertices (~1e-11 of the
// size) while the hull neighbours lie far below (7 of 264,800 directions on the corpus meshes,
// tests/collision/test_convex_support.c).
static int meshSupportGraph(const mcModel* m, int id, const mcNum dir[3], mcNum tol, int* warm) {
  int adr = m->mesh_graphadr ? m->mesh_graphadr[id] : -1;
  if (adr < 0 || !m->nmeshgraph) {
    return meshSupportScan(m, id, dir);
  }
  const MeshHull h = meshHull(m, id);
  int nv = h.nv;
  if (nv <= 0) {
    return meshSupportScan(m, id, dir);
  }
  const int *edgeadr = h.edgeadr, *gid = h.gid, *edge = h.edge;
  const float* v = h.v;
  int best = -1, cur = *warm >= 0 && *warm < nv ? *warm : 0;
  const float* p0 = v + 3*gid[cur];
  mcNum curp = dir[0]*p0[0] + dir[1]*p0[1] + dir[2]*p0[2];
  if (*warm < 0) {
    // no warm start: from the best of MESH_CLIMB_SAMPLES hull vertices spread over the list
    // (the climb ends at the same vertex from anywhere; this only shortens it)
    int stride = nv / MESH_CLIMB_SAMPLES > 1 ? nv / MESH_CLIMB_SAMPLES : 1;
    for (int i = stride; i < nv; i += stride) {
      const float* p = v + 3*gid[i];
      mcNum prj = dir[0]*p[0] + dir[1]*p[1] + dir[2]*p[2];
      if (prj > curp) {
        cur = i;
        curp = prj;
      }
    }
  }
  for (int step = 0; step <= nv; step++) {
    int next = -1;
    mcNum nextp = curp, second = -INFINITY;
    for (int j = edgeadr[cur]; edge[j] >= 0; j++) {
      const float* p = v + 3*gid[edge[j]];
      mcNum prj = dir[0]*p[0] + dir[1]*p[1] + dir[2]*p[2];
      if (prj > nextp) {
        next = edge[j];
        nextp = prj;
      }
      if (prj > second) {
        second = prj;
      }
    }
    if (next < 0) {
      best = second < curp - tol ? gid[cur] : -1;
      break;
    }
    cur = next;
    curp = nextp;
  }
  *warm = cur;
  return best >= 0 ? best : meshSupportTie(m, id, dir, tol, cur, curp);
}


// The mesh support as MuJoCo 2.2.2 picks it (found by probing it as a black box: 3000 random,
// axis-aligned and diagonal directions on each of 13 meshes, after other directions within the
// same MPR call too): hill climbing on the hull graph from its first vertex at every call (no
// warm start), moving to the neighbour with the largest projection (the first of equal ones)
// while that is strictly larger. (Moving to the first larger neighbour instead agreed as well:
// the two differ only on ties among the neighbours along the way.) The point equals the full
// scan's where the support is unique; on a flat face normal to the direction (exact ties, or ties
// up to the rounding of the compiled vertices) it is the tied vertex the climb reaches first,
// which MPR's result then hangs on. Without a graph (not probed): the full scan.
static int meshSupportClimb(const mcModel* m, int id, const mcNum dir[3]) {
  int adr = m->mesh_graphadr ? m->mesh_graphadr[id] : -1;
  if (adr < 0 || !m->nmeshgraph || m->mesh_graph[adr] <= 0) {
    return meshSupportScan(m, id, dir);
  }
  const MeshHull h = meshHull(m, id);
  int nv = h.nv;
  const int *edgeadr = h.edgeadr, *gid = h.gid, *edge = h.edge;
  const float* v = h.v;
  int cur = 0;
  const float* p0 = v + 3*gid[cur];
  mcNum curp = dir[0]*p0[0] + dir[1]*p0[1] + dir[2]*p0[2];
  for (int step = 0; step <= nv; step++) {      // each step strictly improves: at most nv
    int next = -1;
    mcNum nextp = curp;
    for (int j = edgeadr[cur]; edge[j] >= 0; j++) {
      const float* p = v + 3*gid[edge[j]];
      mcNum prj = dir[0]*p[0] + dir[1]*p[1] + dir[2]*p[2];
      if (prj > nextp) {
        next = edge[j];
        nextp = prj;
      }
    }
    if (next < 0) {
      break;
    }
    cur = next;
    curp = nextp;
  }
  return gid[cur];
}


// support point in the geom frame for a unit local direction; a zero component of the direction
// picks the middle of the box face, cylinder side or capsule, as MuJoCo 2.2.2's support does; a
// mesh's vertex from the hull graph (meshSupportGraph: the full scan's, first largest) or, with
// mj222, as 2.2.2 climbs to it (meshSupportClimb)
static void localSupportAs(const ConvexObj* o, const mcNum dir[3], mcNum res[3], int mj222) {
  const mcModel* m = o->m;
  const mcNum* s = m->geom_size + 3*o->geom;
  switch (m->geom_type[o->geom]) {
  case mcGEOM_SPHERE:
    for (int k = 0; k < 3; k++) {
      res[k] = s[0]*dir[k];
    }
    break;

  case mcGEOM_CAPSULE:
    for (int k = 0; k < 3; k++) {
      res[k] = s[0]*dir[k];
    }
    res[2] += dir[2] > 0 ? s[1] : (dir[2] < 0 ? -s[1] : 0);
    break;

  case mcGEOM_ELLIPSOID: {
    mcNum su[3] = {s[0]*dir[0], s[1]*dir[1], s[2]*dir[2]};
    mcNum len = sqrt(su[0]*su[0] + su[1]*su[1] + su[2]*su[2]);
    for (int k = 0; k < 3; k++) {
      res[k] = len > mcMINVAL ? s[k]*su[k]/len : 0;
    }
    break;
  }

  case mcGEOM_CYLINDER: {
    mcNum len = sqrt(dir[0]*dir[0] + dir[1]*dir[1]);
    res[0] = len > mcMINVAL ? dir[0]/len*s[0] : 0;
    res[1] = len > mcMINVAL ? dir[1]/len*s[0] : 0;
    res[2] = dir[2] > 0 ? s[1] : (dir[2] < 0 ? -s[1] : 0);
    break;
  }

  case mcGEOM_BOX:
    for (int k = 0; k < 3; k++) {
      res[k] = dir[k] > 0 ? s[k] : (dir[k] < 0 ? -s[k] : 0);
    }
    break;

  case mcGEOM_MESH: {
    // vertex with the largest projection (the hull has the same support)
    int id = m->geom_dataid[o->geom];
    res[0] = res[1] = res[2] = 0;
    if (id < 0 || !m->nmesh || !m->mesh_vert || m->mesh_vertnum[id] <= 0) {
      break;
    }
    int* warm = (int*)&o->warm;
    int best = mj222 ? meshSupportClimb(m, id, dir) :
                       meshSupportGraph(m, id, dir, 1e-5*m->geom_rbound[o->geom], warm);
    const float* v = m->mesh_vert + 3*(m->mesh_vertadr[id] + best);
    for (int k = 0; k < 3; k++) {
      res[k] = v[k];
    }
    break;
  }

  default:
    res[0] = res[1] = res[2] = 0;
  }
}


static inline void localSupport(const ConvexObj* o, const mcNum dir[3], mcNum res[3]) {
  localSupportAs(o, dir, res, 0);
}



// support point in world coordinates for a world direction (normalized here unless it is a unit
// vector already). The primitives follow MuJoCo 2.2.2's rounding, which matters where MPR's
// choices hang on a component that vanishes up to rounding (a direction normal to a cylinder's
// axis picks the top or bottom rim by the sign of that rounding): the direction used as it comes
// (libccd hands over unit directions), turned into the geom frame, the support there grown by
// half the margin along the same local direction, and turned back as (mat*local) + pos (matches
// 2.2.2 bit for bit on the probed sphere-cylinder poses). A mesh: with mj222 the same, its vertex
// picked as 2.2.2 climbs to it (meshSupportClimb; so MPR against a mesh follows 2.2.2's steps
// bit for bit, tests/collision/test_collision_pairs.c); otherwise the full scan's vertex (from
// the warm-started hill climbing, meshSupportGraph) for the normalized direction, turned as
// pos + mat*vertex and grown by half the margin in the world frame.
static void geomSupportAs(const void* obj, const mcNum dir[3], mcNum res[3], int mj222) {
  const ConvexObj* o = (const ConvexObj*)obj;
  const mcNum* pos = o->d->geom_xpos + 3*o->geom;
  const mcNum* mat = o->d->geom_xmat + 9*o->geom;
  mcNum w[3] = {dir[0], dir[1], dir[2]}, loc[3], sp[3];
  mcNum len2 = w[0]*w[0] + w[1]*w[1] + w[2]*w[2];
  int mesh = o->m->geom_type[o->geom] == mcGEOM_MESH && !mj222;
  if ((mesh || fabs(len2 - 1) > 1e-12) && len2 > mcMINVAL*mcMINVAL) {
    mcNum len = sqrt(len2);
    for (int k = 0; k < 3; k++) {
      w[k] /= len;
    }
  }

  // to the geom frame and back
  for (int k = 0; k < 3; k++) {
    loc[k] = mat[k]*w[0] + mat[3 + k]*w[1] + mat[6 + k]*w[2];
  }
  localSupportAs(o, loc, sp, mj222);
  if (mesh) {
    for (int k = 0; k < 3; k++) {
      res[k] = pos[k] + mat[3*k]*sp[0] + mat[3*k + 1]*sp[1] + mat[3*k + 2]*sp[2] +
               0.5*o->margin*w[k];
    }
    return;
  }
  for (int k = 0; k < 3; k++) {
    sp[k] += 0.5*o->margin*loc[k];
  }
  for (int k = 0; k < 3; k++) {
    res[k] = (mat[3*k]*sp[0] + mat[3*k + 1]*sp[1] + mat[3*k + 2]*sp[2]) + pos[k];
  }
}


// the support: a mesh's point exactly the full scan's (multi-contact, height fields)
static inline void geomSupport(const void* obj, const mcNum dir[3], mcNum res[3]) {
  geomSupportAs(obj, dir, res, 0);
}


// the support of a sphere's or capsule's core (its centre, its segment) in the world direction
// dir; an exact tie across the segment takes the centre
static inline void geomCoreSupport(const ConvexObj* o, const mcNum dir[3], mcNum res[3]) {
  int g = o->geom;
  const mcNum* pos = o->d->geom_xpos + 3*g;
  const mcNum* mat = o->d->geom_xmat + 9*g;
  mcNum h = o->m->geom_type[g] == mcGEOM_CAPSULE ? o->m->geom_size[3*g + 1] : 0;
  mcNum along = dir[0]*mat[2] + dir[1]*mat[5] + dir[2]*mat[8];
  mcNum side = along > 0 ? h : (along < 0 ? -h : 0);
  for (int k = 0; k < 3; k++) {
    res[k] = pos[k] + side*mat[3*k + 2];
  }
}


// the support as MuJoCo 2.2.2's MPR sees it (a mesh's tied vertex picked as 2.2.2 does)
static inline void geomSupport222(const void* obj, const mcNum dir[3], mcNum res[3]) {
  geomSupportAs(obj, dir, res, 1);
}


// the geom centre as the interior point
static inline void geomCenter(const void* obj, mcNum res[3]) {
  const ConvexObj* o = (const ConvexObj*)obj;
  const mcNum* pos = o->d->geom_xpos + 3*o->geom;
  res[0] = pos[0];
  res[1] = pos[1];
  res[2] = pos[2];
}


// Outward normal (not normalized) at the surface point of an ellipsoid with semi-axes s nearest
// to the local point l, approximated as MuJoCo 2.2.2 does (found by probing it as a black box):
// - l inside (sum (l_k/s_k)^2 < 1): starting from the unit direction v (the contact normal MPR
//   found, oriented out of this geom), cast the ray from l along v to the surface, take the
//   unit surface normal there as the next v, and repeat until v moves less than 1e-6 (Euclidean)
//   or 30 times. The fixed points are the surface points whose normal line passes through l, so
//   the result depends on the start: near a symmetry plane it may settle on the mirror image of
//   the nearest point, and where the distance barely changes along the surface (near the axis of
//   a spheroid) it stops far from it.
// - l outside (or on the surface): the nearest point is s_k^2 l_k / (s_k^2 + t) with
//   f(t) = sum (s_k l_k / (s_k^2 + t))^2 - 1 = 0; Newton steps on f from t = 0 (monotone from
//   below), stopping before a step shorter than 1e-6; the normal is l_k / (s_k^2 + t).
static inline void ellipsoidNormal(const mcNum s[3], const mcNum l[3], const mcNum start[3],
                                   mcNum gr[3]) {
  mcNum s2[3] = {s[0]*s[0], s[1]*s[1], s[2]*s[2]};
  mcNum c = l[0]*l[0]/s2[0] + l[1]*l[1]/s2[1] + l[2]*l[2]/s2[2] - 1;
  if (c < 0) {
    mcNum v[3] = {start[0], start[1], start[2]};
    mcNum len = sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]);
    if (!(len > mcMINVAL) || !isfinite(len)) {
      // no start direction (MPR found none): the surface normal where the ray from the centre
      // through l leaves
      for (int k = 0; k < 3; k++) {
        v[k] = l[k] / s2[k];
      }
      len = sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]);
    }
    if (len > mcMINVAL && isfinite(len)) {
      for (int k = 0; k < 3; k++) {
        v[k] /= len;
      }
      for (int it = 0; it < 30; it++) {
        // l + d v on the surface: a d^2 + 2 b d + c = 0, c < 0, so one positive root
        mcNum a = 0, b = 0, y[3], g[3];
        for (int k = 0; k < 3; k++) {
          a += v[k]*v[k] / s2[k];
          b += l[k]*v[k] / s2[k];
        }
        mcNum d = (-b + sqrt(b*b - a*c)) / a;
        for (int k = 0; k < 3; k++) {
          y[k] = l[k] + d*v[k];
          g[k] = y[k] / s2[k];
        }
        mcNum gl = sqrt(g[0]*g[0] + g[1]*g[1] + g[2]*g[2]);
        if (!(gl > mcMINVAL) || !isfinite(gl)) {
          break;
        }
        mcNum change = 0;
        for (int k = 0; k < 3; k++) {
          g[k] /= gl;
          change += (g[k] - v[k])*(g[k] - v[k]);
          v[k] = g[k];
        }
        if (sqrt(change) < 1e-6) {
          break;
        }
      }
      gr[0] = v[0];
      gr[1] = v[1];
      gr[2] = v[2];
      return;
    }
  }

  // outside (or at the centre): Newton on t from 0
  mcNum t = 0;
  for (int it = 0; it < 100; it++) {
    mcNum f = -1, df = 0;
    for (int k = 0; k < 3; k++) {
      mcNum q = s[k]*l[k] / (s2[k] + t);
      f += q*q;
      df -= 2*q*q / (s2[k] + t);
    }
    if (!(df < 0)) {
      break;
    }
    mcNum step = -f / df;
    if (!(fabs(step) >= 1e-6)) {
      break;
    }
    t += step;
  }
  for (int k = 0; k < 3; k++) {
    gr[k] = l[k] / (s2[k] + t);
  }
}


// Outward unit normal of a smooth geom (sphere, capsule, ellipsoid; cylinder: its side) at its
// surface point nearest to the world point x, as MuJoCo 2.2.2 takes it (probed as a black box):
// for the cylinder the radial direction from the axis, except near a cap, where 2.2.2 treats it
// as flat (no normal): h - |z| < max(0.05 h, 0.25 |r - rho|) at x (local height z, distance rho
// from the axis; x may lie outside the cylinder); for the ellipsoid 2.2.2's approximation,
// ellipsoidNormal, started from the world direction start. 0 for the other types, near a
// cylinder's cap or for a degenerate point.
static inline int geomSmoothNormal(const mcModel* m, const mcData* d, int g, const mcNum x[3],
                                   const mcNum start[3], mcNum n[3]) {
  const mcNum* pos = d->geom_xpos + 3*g;
  const mcNum* mat = d->geom_xmat + 9*g;
  const mcNum* s = m->geom_size + 3*g;
  mcNum rel[3] = {x[0] - pos[0], x[1] - pos[1], x[2] - pos[2]}, l[3], gr[3];
  for (int k = 0; k < 3; k++) {
    l[k] = mat[k]*rel[0] + mat[3 + k]*rel[1] + mat[6 + k]*rel[2];
  }
  switch (m->geom_type[g]) {
  case mcGEOM_SPHERE:
    gr[0] = l[0];
    gr[1] = l[1];
    gr[2] = l[2];
    break;

  case mcGEOM_CAPSULE:
    gr[0] = l[0];
    gr[1] = l[1];
    gr[2] = l[2] > s[1] ? l[2] - s[1] : (l[2] < -s[1] ? l[2] + s[1] : 0);
    break;

  case mcGEOM_CYLINDER: {
    // near a cap (closer to its plane than a twentieth of the half height, or than a quarter of
    // the distance to the side surface; beyond the plane too) the cylinder counts as flat
    mcNum rho = sqrt(l[0]*l[0] + l[1]*l[1]);
    if (s[1] - fabs(l[2]) < fmax(0.05*s[1], 0.25*fabs(s[0] - rho))) {
      return 0;
    }
    gr[0] = l[0];
    gr[1] = l[1];
    gr[2] = 0;
    break;
  }

  case mcGEOM_ELLIPSOID: {
    mcNum ls[3];
    for (int k = 0; k < 3; k++) {
      ls[k] = mat[k]*start[0] + mat[3 + k]*start[1] + mat[6 + k]*start[2];
    }
    ellipsoidNormal(s, l, ls, gr);
    break;
  }

  default:
    return 0;
  }
  mcNum len = sqrt(gr[0]*gr[0] + gr[1]*gr[1] + gr[2]*gr[2]);
  if (!(len > mcMINVAL) || !isfinite(len)) {
    return 0;
  }
  for (int k = 0; k < 3; k++) {
    n[k] = (mat[3*k]*gr[0] + mat[3*k + 1]*gr[1] + mat[3*k + 2]*gr[2]) / len;
  }
  return 1;
}


// The contact normal as MuJoCo 2.2.2 reports it for an MPR contact at pos (found by probing it
// as a black box): the smooth geoms' outward normals at pos (geomSmoothNormal; the second one's
// reversed) averaged, in place of the direction MPR returns (normal on entry, from g1 toward
// g2), which is kept when neither geom is smooth (box, mesh) or the average vanishes. An
// ellipsoid's normal is searched from the MPR direction (reversed for g2).
static inline void smoothContactNormal(const mcModel* m, const mcData* d, int g1, int g2,
                                       const mcNum pos[3], mcNum normal[3]) {
  mcNum n1[3], n2[3], sum[3] = {0, 0, 0}, rev[3] = {-normal[0], -normal[1], -normal[2]};
  int has1 = geomSmoothNormal(m, d, g1, pos, normal, n1);
  int has2 = geomSmoothNormal(m, d, g2, pos, rev, n2);
  if (!has1 && !has2) {
    return;
  }
  for (int k = 0; k < 3; k++) {
    sum[k] = (has1 ? n1[k] : 0) - (has2 ? n2[k] : 0);
  }
  mcNum len = sqrt(sum[0]*sum[0] + sum[1]*sum[1] + sum[2]*sum[2]);
  if (len > mcMINVAL) {
    for (int k = 0; k < 3; k++) {
      normal[k] = sum[k] / len;
    }
  }
}


// Half extents, in the geom frame, of a box holding geom g: sphere, capsule (radius added),
// ellipsoid, cylinder, box, and a mesh whose size is the compiler's (the largest |coordinate| of
// its vertices per axis, whose norm is its rbound); 0 for the other types and other meshes.
static inline int geomLocalBox(const mcModel* m, int g, mcNum h[3]) {
  const mcNum* s = m->geom_size + 3*g;
  switch (m->geom_type[g]) {
  case mcGEOM_SPHERE:
    h[0] = h[1] = h[2] = s[0];
    return 1;
  case mcGEOM_CAPSULE:
    h[0] = h[1] = s[0];
    h[2] = s[0] + s[1];
    return 1;
  case mcGEOM_CYLINDER:
    h[0] = h[1] = s[0];
    h[2] = s[1];
    return 1;
  case mcGEOM_ELLIPSOID:
  case mcGEOM_BOX:
    h[0] = s[0];
    h[1] = s[1];
    h[2] = s[2];
    return 1;
  case mcGEOM_MESH: {
    mcNum r = m->geom_rbound[g], n = sqrt(s[0]*s[0] + s[1]*s[1] + s[2]*s[2]);
    h[0] = s[0];
    h[1] = s[1];
    h[2] = s[2];
    return fabs(n - r) <= 1e-12*r;
  }
  default:
    return 0;
  }
}


// Whether the boxes h1, h2 of geoms g1 and g2 (geomLocalBox, posed by geom_xpos and geom_xmat)
// are farther apart than margin along axis k of one of them (k 0-2: the local axes of g1, 3-5:
// those of g2; t the centres' offset, g2's minus g1's); then *axis is that axis in the world (unit) and *gap the boxes' gap along it.
// A slack of 1e-9 of the coordinates' scale keeps the rounding of the frames (orthonormal to
// ~1e-16) on the safe side.
static inline int geomBoxAxisApart(const mcData* d, int g1, int g2, mcNum margin,
                                   const mcNum h1[3], const mcNum h2[3], const mcNum t[3], int k,
                                   mcNum axis[3], mcNum* gap) {
  int side = k >= 3, i = side ? k - 3 : k;
  const mcNum* ma = d->geom_xmat + 9*(side ? g2 : g1);
  const mcNum* mb = d->geom_xmat + 9*(side ? g1 : g2);
  const mcNum* ha = side ? h2 : h1;
  const mcNum* hb = side ? h1 : h2;
  // the local axis i of box a in the world (column i of its frame)
  mcNum a[3] = {ma[i], ma[3 + i], ma[6 + i]};
  mcNum rb = 0;
  for (int j = 0; j < 3; j++) {
    rb += hb[j]*fabs(a[0]*mb[j] + a[1]*mb[3 + j] + a[2]*mb[6 + j]);
  }
  mcNum dist = fabs(a[0]*t[0] + a[1]*t[1] + a[2]*t[2]);
  mcNum scale = ha[i] + rb + fabs(t[0]) + fabs(t[1]) + fabs(t[2]) + fabs(margin);
  if (dist - ha[i] - rb > margin + 1e-9*scale) {
    *gap = dist - ha[i] - rb;
    axis[0] = a[0];
    axis[1] = a[1];
    axis[2] = a[2];
    return 1;
  }
  return 0;
}


// Whether the boxes of geoms g1 and g2 (geomLocalBox) are farther apart than margin along an axis
// of one of them (1: apart, the geoms farther than margin, so no contact; 0: maybe not, or a type
// without box), trying axis *first first (0-5 as geomBoxAxisApart; out of range: none) and then
// all six in order. *axis: the world axis found (unit), *gap the boxes' gap along it, *first
// (when not NULL) that axis's number.
static inline int geomBoxesApartFrom(const mcModel* m, const mcData* d, int g1, int g2,
                                     mcNum margin, mcNum axis[3], mcNum* gap, int* first) {
  mcNum h1[3], h2[3];
  if (!geomLocalBox(m, g1, h1) || !geomLocalBox(m, g2, h2)) {
    return 0;
  }
  const mcNum* p1 = d->geom_xpos + 3*g1;
  const mcNum* p2 = d->geom_xpos + 3*g2;
  mcNum t[3] = {p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]};
  int k0 = first && *first >= 0 && *first < 6 ? *first : -1;
  if (k0 >= 0 && geomBoxAxisApart(d, g1, g2, margin, h1, h2, t, k0, axis, gap)) {
    return 1;
  }
  for (int k = 0; k < 6; k++) {
    if (k != k0 && geomBoxAxisApart(d, g1, g2, margin, h1, h2, t, k, axis, gap)) {
      if (first) {
        *first = k;
      }
      return 1;
    }
  }
  return 0;
}


// geomBoxesApartFrom trying the axes in order
static inline int geomBoxesApart(const mcModel* m, const mcData* d, int g1, int g2, mcNum margin,
                                 mcNum axis[3], mcNum* gap) {
  return geomBoxesApartFrom(m, d, g1, g2, margin, axis, gap, NULL);
}

// Whether the own supports (exact: a mesh's first largest vertex) of the geoms of o1 and o2 (their
// margin fields are ignored) leave a gap above margin along the world unit direction u (from o1
// toward o2): then the geoms lie farther apart than margin and have no contact, which GJK would
// find too (1); 0: maybe not. The slack is that of geomBoxesApart. Two support calls, which leave
// the mesh climbs' ends in o1->warm and o2->warm for a following query (where a climb starts
// does not change its result).
static inline int geomSupportsApart(ConvexObj* o1, ConvexObj* o2, mcNum margin,
                                    const mcNum u[3]) {
  ConvexObj a1 = *o1, a2 = *o2;
  mcNum down[3] = {-u[0], -u[1], -u[2]}, x1[3], x2[3], scale = fabs(margin);
  a1.margin = a2.margin = 0;
  geomSupport(&a1, u, x1);
  geomSupport(&a2, down, x2);
  o1->warm = a1.warm;
  o2->warm = a2.warm;
  for (int k = 0; k < 3; k++) {
    scale += fabs(x1[k]) + fabs(x2[k]);
  }
  mcNum gap = (u[0]*x2[0] + u[1]*x2[1] + u[2]*x2[2]) - (u[0]*x1[0] + u[1]*x1[1] + u[2]*x1[2]);
  return gap > margin + 1e-9*scale;
}

#endif  // MODUCO_PLUGINS_COLLISION_CONVEX_SUPPORT_H_
