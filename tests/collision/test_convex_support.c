// The mesh support of the convex plugin (plugins/collision-convex/support.h): the hill climbing
// on the convex hull graph must return the same support point as the full vertex scan, bit for
// bit, on every mesh of the corpus and of the collision benchmark, for random directions, for
// directions along the axes and toward vertices, along hull face normals and across hull edges
// (ties and near-ties), and from any warm start; where the climb ends in a near-tie, the tie
// resolution over the hull vertices near the top and the compiler's chains (mesh_tie) must return
// the scan's very vertex (the same index), from wherever the climb ended.
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <moduco/moduco.h>

#include "corpus_list.h"
#include "testutil.h"
#include "../../plugins/collision-convex/support.h"

#define CORPUS_DIR "/work/shared/corpus/"

// support.h also holds the centre callback, not used here
static void (*const g_unused)(const void*, mcNum*) __attribute__((unused)) = geomCenter;

// xorshift: reproducible directions
static unsigned long long g_seed = 88172645463325252ULL;

static double uniform(double lo, double hi) {
  return tu_xorshiftUniform(&g_seed, lo, hi);
}


// unit normal of hull face f of mesh id (global vertex ids in the graph), in double
static void faceNormal(const mcModel* m, int id, int f, double n[3]) {
  const int* gr = m->mesh_graph + m->mesh_graphadr[id];
  const int* face = gr + 2 + 3*gr[0] + 3*gr[1] + 3*f;
  const float* v = m->mesh_vert + 3*m->mesh_vertadr[id];
  double e1[3], e2[3];
  for (int k = 0; k < 3; k++) {
    e1[k] = (double)v[3*face[1] + k] - v[3*face[0] + k];
    e2[k] = (double)v[3*face[2] + k] - v[3*face[0] + k];
  }
  n[0] = e1[1]*e2[2] - e1[2]*e2[1];
  n[1] = e1[2]*e2[0] - e1[0]*e2[2];
  n[2] = e1[0]*e2[1] - e1[1]*e2[0];
  double len = sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2]);
  for (int k = 0; k < 3; k++) {
    n[k] = len > 0 ? n[k] / len : 0;
  }
}


// a direction normal to a random hull face (exact: ties among its corners and the mesh points
// on it up to rounding; near: perturbed by 1e-9), or across a random hull edge (between the
// normals of its two faces: a tie of its two ends); 0 without a hull graph
static int hullDirection(const mcModel* m, int id, int kind, double dir[3]) {
  if (m->mesh_graphadr[id] < 0) {
    return 0;
  }
  const int* gr = m->mesh_graph + m->mesh_graphadr[id];
  int nf = gr[1];
  const int* face = gr + 2 + 3*gr[0] + 3*nf;
  int f = (int)uniform(0, nf);
  f = f < nf ? f : nf - 1;
  faceNormal(m, id, f, dir);
  if (kind == 6) {
    for (int k = 0; k < 3; k++) {
      dir[k] += uniform(-1e-9, 1e-9);
    }
  } else if (kind == 7) {
    // the face across edge (a, b) of f holds it as (b, a)
    int e = (int)uniform(0, 3) % 3, a = face[3*f + e], b = face[3*f + (e + 1) % 3];
    for (int g = 0; g < nf; g++) {
      for (int j = 0; j < 3 && g != f; j++) {
        if (face[3*g + j] == b && face[3*g + (j + 1) % 3] == a) {
          double n2[3], t = uniform(0, 1);
          faceNormal(m, id, g, n2);
          for (int k = 0; k < 3; k++) {
            dir[k] = (1 - t)*dir[k] + t*n2[k];
          }
        }
      }
    }
  }
  return 1;
}


// a unit direction: random, along an axis (exact ties on flat faces), nearly along an axis,
// toward a vertex, a random direction rounded to a few digits (exact components), or normal to a
// hull face or edge (hullDirection)
static void direction(const mcModel* m, int id, int kind, double dir[3]) {
  const float* v = m->mesh_vert + 3*m->mesh_vertadr[id];
  int nv = m->mesh_vertnum[id];
  if (kind % 8 >= 5 && hullDirection(m, id, kind % 8, dir)) {
    kind = -1;
  }
  switch (kind < 0 ? -1 : kind % 8) {
  case -1:
    break;
  case 0:
    for (int k = 0; k < 3; k++) {
      dir[k] = uniform(-1, 1);
    }
    break;
  case 1:
  case 2: {
    int a = (int)uniform(0, 3);
    dir[0] = dir[1] = dir[2] = 0;
    dir[a < 3 ? a : 2] = uniform(0, 1) < 0.5 ? -1 : 1;
    if (kind % 8 == 2) {
      for (int k = 0; k < 3; k++) {
        dir[k] += uniform(-1e-7, 1e-7);
      }
    }
    break;
  }
  case 3: {
    int i = (int)uniform(0, nv);
    i = i < nv ? i : nv - 1;
    for (int k = 0; k < 3; k++) {
      dir[k] = v[3*i + k] + uniform(-1e-9, 1e-9);
    }
    break;
  }
  default:
    for (int k = 0; k < 3; k++) {
      dir[k] = round(4*uniform(-1, 1)) / 4;
    }
  }
  double len = sqrt(dir[0]*dir[0] + dir[1]*dir[1] + dir[2]*dir[2]);
  if (!(len > 0)) {
    dir[0] = 1;
    dir[1] = dir[2] = 0;
    len = 1;
  }
  for (int k = 0; k < 3; k++) {
    dir[k] /= len;
  }
}


// directions tested, those where the scan's vertex is a mesh point off the hull's vertices
// that rounding puts above the hull vertex the climb returns (a near-tie, see checkModel), and
// those where the climb ended in a near-tie (resolved by meshSupportTie)
static long g_ncase = 0, g_nnear = 0, g_ntie = 0;


// whether the climb's end, hull vertex cur, has a neighbour within tol (meshSupportGraph then
// resolves the tie with meshSupportTie)
static int climbTied(const mcModel* m, int id, const double dir[3], double tol, int cur,
                     double* curp) {
  const int* gr = m->mesh_graph + m->mesh_graphadr[id];
  int nv = gr[0];
  const int* gid = gr + 2 + nv;
  const int* edge = gr + 2 + 2*nv;
  const float* v = m->mesh_vert + 3*m->mesh_vertadr[id];
  const float* p = v + 3*gid[cur];
  *curp = dir[0]*p[0] + dir[1]*p[1] + dir[2]*p[2];
  int tied = 0;
  for (int j = gr[2 + cur]; edge[j] >= 0; j++) {
    p = v + 3*gid[edge[j]];
    tied |= dir[0]*p[0] + dir[1]*p[1] + dir[2]*p[2] >= *curp - tol;
  }
  return tied;
}


// the tie resolution from the climb's end cur equals the scan's vertex a (the same index),
// whether or not the climb ended in a tie
static void checkTie(const mcModel* m, int id, const char* name, const double dir[3], double tol,
                     int cur, int a) {
  double curp;
  int tied = climbTied(m, id, dir, tol, cur, &curp);
  g_ntie += tied;
  int t = meshSupportTie(m, id, dir, tol, cur, curp);
  cr_assert_eq(t, a, "%s mesh %d dir (%.17g %.17g %.17g)%s from hull vertex %d: tie resolution "
               "%d, scan %d", name, id, dir[0], dir[1], dir[2], tied ? " (a tie)" : "", cur, t,
               a);
}


// every mesh of model m: hill climbing against the scan; returns the number of meshes tested
static int checkModel(const mcModel* m, const char* name, int ndir, int* ngraph) {
  int nmesh = 0;
  for (int id = 0; id < m->nmesh; id++) {
    if (m->mesh_vertnum[id] <= 0) {
      continue;
    }
    nmesh++;
    const float* v = m->mesh_vert + 3*m->mesh_vertadr[id];
    int hasgraph = m->mesh_graphadr[id] >= 0;
    *ngraph += hasgraph;
    int nhull = hasgraph ? m->mesh_graph[m->mesh_graphadr[id]] : 0;
    double rbound = 0;
    for (int i = 0; i < m->mesh_vertnum[id]; i++) {
      double r = sqrt((double)v[3*i]*v[3*i] + (double)v[3*i + 1]*v[3*i + 1] +
                      (double)v[3*i + 2]*v[3*i + 2]);
      rbound = r > rbound ? r : rbound;
    }
    int warm = 0, nbad = 0;
    for (int t = 0; t < (hasgraph ? ndir : 20); t++) {
      double dir[3];
      direction(m, id, t, dir);

      // a random warm start every few directions, else the previous end (as MPR uses it)
      if (t % 7 == 0 && nhull > 0) {
        warm = (int)uniform(0, nhull);
      }
      int a = meshSupportScan(m, id, dir);
      int b = meshSupportGraph(m, id, dir, 1e-5*rbound, &warm);
      cr_assert(b >= 0 && b < m->mesh_vertnum[id], "%s mesh %d: vertex %d out of range", name,
                id, b);

      // without a warm start (from the best sampled hull vertex): the same point
      int cold = -1;
      int c = meshSupportGraph(m, id, dir, 1e-5*rbound, &cold);
      cr_assert(c >= 0 && c < m->mesh_vertnum[id] && v[3*c] == v[3*b] &&
                v[3*c + 1] == v[3*b + 1] && v[3*c + 2] == v[3*b + 2],
                "%s mesh %d: the climb from a sample ends at vertex %d, from warm %d", name, id,
                c, b);
      cr_assert(nhull <= 0 || (cold >= 0 && cold < nhull), "%s mesh %d: end vertex %d", name,
                id, cold);
      if (hasgraph) {
        cr_assert(m->mesh_tied[id], "%s mesh %d: no tie chains", name, id);
        checkTie(m, id, name, dir, 1e-5*rbound, warm, a);
        checkTie(m, id, name, dir, 1e-5*rbound, cold, a);
      }
      g_ncase++;
      int same = v[3*a] == v[3*b] && v[3*a + 1] == v[3*b + 1] && v[3*a + 2] == v[3*b + 2];
      if (same) {
        continue;
      }

      // else only a mesh point that is not a hull vertex (on a hull edge or face, which the
      // float rounding of the compiled vertices lifts above the hull), beating the hull's
      // support vertex by rounding only
      double pa = dir[0]*v[3*a] + dir[1]*v[3*a + 1] + dir[2]*v[3*a + 2];
      double pb = dir[0]*v[3*b] + dir[1]*v[3*b + 1] + dir[2]*v[3*b + 2];
      int onhull = 0;
      const int* gid = hasgraph ? m->mesh_graph + m->mesh_graphadr[id] + 2 + nhull : NULL;
      for (int i = 0; i < nhull; i++) {
        const float* h = v + 3*gid[i];
        onhull |= h[0] == v[3*a] && h[1] == v[3*a + 1] && h[2] == v[3*a + 2];
      }
      int ok = hasgraph && !onhull && pa - pb <= 1e-9*rbound;
      g_nnear += ok;
      if (!ok && nbad++ < 3) {
        cr_log_error("%s mesh %d dir (%.17g %.17g %.17g): scan vertex %d (%.17g, hull vertex "
                     "%d), hill climbing %d (%.17g), rbound %g", name, id, dir[0], dir[1],
                     dir[2], a, pa, onhull, b, pb, rbound);
      }
      cr_expect(ok, "%s mesh %d: hill climbing differs from the scan", name, id);
    }
  }
  return nmesh;
}


// the support through geomSupport (world frame, margin, warm start kept in the ConvexObj) equal
// to one computed from the scan, for every mesh geom of m in its compiled pose
static void checkGeomSupport(const mcModel* m, const char* name, int ndir) {
  mcData* d = mc_makeData(m);
  cr_assert_not_null(d);
  mc_forward(m, d);
  for (int g = 0; g < m->ngeom; g++) {
    if (m->geom_type[g] != mcGEOM_MESH || m->geom_dataid[g] < 0) {
      continue;
    }
    int id = m->geom_dataid[g];
    ConvexObj o = {m, d, g, 0.01};
    const mcNum* pos = d->geom_xpos + 3*g;
    const mcNum* mat = d->geom_xmat + 9*g;
    for (int t = 0; t < ndir; t++) {
      double dir[3], loc[3], res[3];
      direction(m, id, t, dir);
      for (int k = 0; k < 3; k++) {
        dir[k] *= 2.5;                            // geomSupport normalizes
      }
      geomSupport(&o, dir, res);

      // reference: the unit direction in the mesh frame, the scan, back to the world
      double len = sqrt(dir[0]*dir[0] + dir[1]*dir[1] + dir[2]*dir[2]), w[3];
      for (int k = 0; k < 3; k++) {
        w[k] = dir[k] / len;
      }
      for (int k = 0; k < 3; k++) {
        loc[k] = mat[k]*w[0] + mat[3 + k]*w[1] + mat[6 + k]*w[2];
      }
      const float* sp = m->mesh_vert + 3*(m->mesh_vertadr[id] + meshSupportScan(m, id, loc));
      for (int k = 0; k < 3; k++) {
        double ref = pos[k] + mat[3*k]*sp[0] + mat[3*k + 1]*sp[1] + mat[3*k + 2]*sp[2] +
                     0.5*0.01*w[k];
        cr_expect(res[k] == ref, "%s geom %d: geomSupport %.17g, scan %.17g", name, g, res[k],
                  ref);
      }
    }
  }
  mc_deleteData(d);
}


#define CORPUS_MESH_MODEL(folder, file)                                                           \
  {                                                                                              \
    char path[512], err[1000];                                                                   \
    snprintf(path, sizeof(path), CORPUS_DIR "%s/%s", folder, file);                              \
    mcModel* m = mc_loadXML(path, err, sizeof(err));                                             \
    cr_assert_not_null(m, "%s: %s", folder, err);                                                \
    if (m->nmesh) {                                                                              \
      int ng = 0;                                                                                \
      int nm = checkModel(m, folder, m->nmesh > 100 ? 300 : 2000, &ng);                          \
      checkGeomSupport(m, folder, 50);                                                           \
      printf("%-32s meshes %4d (hull graphs %4d)\n", folder, nm, ng);                            \
      nmodel++;                                                                                  \
      nmeshes += nm;                                                                             \
      ngraphs += ng;                                                                             \
    }                                                                                            \
    mc_deleteModel(m);                                                                           \
  }

// every corpus model with meshes
Test(convex_support, corpus_meshes, .timeout = 600) {
  int nmodel = 0, nmeshes = 0, ngraphs = 0;
  MC_CORPUS_MODELS(CORPUS_MESH_MODEL)
  printf("corpus: %d models, %d meshes, %d with hull graphs\n", nmodel, nmeshes, ngraphs);
  fflush(stdout);
  cr_expect(nmodel >= 7, "only %d corpus models with meshes", nmodel);
  cr_expect(ngraphs >= 20, "only %d meshes with hull graphs", ngraphs);
}


// every mesh file of the corpus as a colliding geom of its own (the compiler builds hull graphs
// only for meshes that collide, and most corpus meshes are visual)
static char g_files[1024][512];
static int g_nfile = 0;

static int collectMesh(const char* path, const struct stat* sb, int flag, struct FTW* ftw) {
  size_t n = strlen(path);
  if (flag == FTW_F && n > 4 && g_nfile < 1024 &&
      (!strcmp(path + n - 4, ".stl") || !strcmp(path + n - 4, ".STL") ||
       !strcmp(path + n - 4, ".obj"))) {
    snprintf(g_files[g_nfile++], sizeof(g_files[0]), "%s", path);
  }
  return 0;
}

Test(convex_support, corpus_mesh_files, .timeout = 900) {
  cr_assert_eq(nftw(CORPUS_DIR, collectMesh, 16, FTW_PHYS), 0);
  int ngraph = 0, nload = 0;
  for (int i = 0; i < g_nfile; i++) {
    char xml[2048], err[1000];
    snprintf(xml, sizeof(xml),
             "<mujoco><asset><mesh name='m' file='%.1000s'/></asset>"
             "<worldbody><geom type='mesh' mesh='m'/></worldbody></mujoco>", g_files[i]);
    mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
    if (!m) {
      // a file the compiler refuses (MuJoCo 2.2.2 refuses the same ones): not a support case
      cr_log_warn("%s: %s", g_files[i], err);
      continue;
    }
    nload++;
    int ng = 0;
    checkModel(m, g_files[i], m->mesh_vertnum[0] > 5000 ? 200 : 1000, &ng);
    ngraph += ng;
    mc_deleteModel(m);
  }
  printf("corpus mesh files: %d, loaded %d, with hull graphs %d; directions %ld, off-hull "
         "near-ties %ld, climbs ending in a near-tie %ld\n", g_nfile, nload, ngraph, g_ncase,
         g_nnear, g_ntie);
  fflush(stdout);
  cr_expect(g_ntie * 20 > g_ncase, "only %ld near-tie climbs in %ld directions", g_ntie, g_ncase);
  cr_expect(g_nfile >= 300 && ngraph >= 250, "too few mesh files (%d) or hull graphs (%d)",
            g_nfile, ngraph);
  cr_expect(g_nnear * 10000 < g_ncase, "%ld off-hull near-ties in %ld directions", g_nnear,
            g_ncase);
}


// the eight polytopes of the collision benchmark, and a subdivided box (vertices on the faces
// and edges that are not hull vertices: exact ties with hull vertices along the axes)
Test(convex_support, bench_polytopes_and_box) {
  char xml[8192];
  int len = snprintf(xml, sizeof(xml),
                     "<mujoco><compiler meshdir='%s/benchmarks/collision-models'/><asset>",
                     MODUCO_SOURCE_DIR);
  for (int k = 0; k < 8; k++) {
    len += snprintf(xml + len, sizeof(xml) - (size_t)len,
                    "<mesh name='p%d' file='polytope-%d.%s'/>", k, k, k < 4 ? "obj" : "stl");
  }
  len += snprintf(xml + len, sizeof(xml) - (size_t)len, "<mesh name='grid' vertex='");
  for (int i = 0; i < 27; i++) {
    len += snprintf(xml + len, sizeof(xml) - (size_t)len, "%d %d %d ", i % 3 - 1,
                    (i / 3) % 3 - 1, i / 9 - 1);
  }
  len += snprintf(xml + len, sizeof(xml) - (size_t)len, "'/></asset><worldbody>");
  for (int k = 0; k < 8; k++) {
    len += snprintf(xml + len, sizeof(xml) - (size_t)len,
                    "<body pos='%d 0 0' euler='%d 20 10'><freejoint/><geom type='mesh' mesh='p%d'/>"
                    "</body>", k, 30*k, k);
  }
  snprintf(xml + len, sizeof(xml) - (size_t)len,
           "<geom type='mesh' mesh='grid' pos='0 3 0'/></worldbody></mujoco>");
  char err[1000];
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(m->nmesh, 9);
  int ng = 0;
  checkModel(m, "bench", 20000, &ng);
  cr_expect_eq(ng, 9, "every mesh has a hull graph");
  int gid = m->mesh_graphadr[8];
  cr_expect(m->mesh_graph[gid] < 27, "the grid's hull leaves out the face points");
  checkGeomSupport(m, "bench", 2000);

  // without graphs: the scan
  for (int id = 0; id < m->nmesh; id++) {
    m->mesh_graphadr[id] = -1;
  }
  ng = 0;
  checkModel(m, "bench (no graph)", 2000, &ng);
  cr_expect_eq(ng, 0);
  mc_deleteModel(m);
}


// a box listing the centres of its faces and the middles of its edges (no hull vertices) before
// its corners: along the axes the scan's vertex is a face centre, which only the compiler's
// chains bring into the tie resolution; cut the chains and it returns a corner instead, while a
// mesh without chains (mesh_tied 0) takes the full scan
Test(convex_support, tie_chains_hold_face_points) {
  char xml[4096];
  int len = snprintf(xml, sizeof(xml), "<mujoco><asset><mesh name='box' vertex='");
  for (int pass = 0; pass < 3; pass++) {
    // pass 0: face centres (one nonzero coordinate), 1: edge middles (two), 2: corners (three)
    for (int i = 0; i < 27; i++) {
      int x[3] = {i % 3 - 1, (i / 3) % 3 - 1, i / 9 - 1};
      int nz = (x[0] != 0) + (x[1] != 0) + (x[2] != 0);
      if (nz == pass + 1) {
        len += snprintf(xml + len, sizeof(xml) - (size_t)len, "%d %d %d ", x[0], x[1], x[2]);
      }
    }
  }
  snprintf(xml + len, sizeof(xml) - (size_t)len, "'/></asset><worldbody><geom type='mesh' "
           "mesh='box'/></worldbody></mujoco>");
  char err[1000];
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(m->mesh_vertnum[0], 26);
  cr_assert_eq(m->mesh_graph[m->mesh_graphadr[0]], 8, "the hull is the 8 corners");
  int ng = 0;
  checkModel(m, "face-first box", 2000, &ng);

  // the six axis directions: the scan's vertex is the face centre (listed first)
  int nface = 0, ncut = 0, nuntied = 0;
  for (int a = 0; a < 6; a++) {
    double dir[3] = {0, 0, 0};
    dir[a % 3] = a < 3 ? 1 : -1;
    int scan = meshSupportScan(m, 0, dir);
    const float* p = m->mesh_vert + 3*(m->mesh_vertadr[0] + scan);
    nface += fabs(p[0]) + fabs(p[1]) + fabs(p[2]) == 1;
    int warm = 0;
    int b = meshSupportGraph(m, 0, dir, 1e-5*m->geom_rbound[0], &warm);
    cr_expect_eq(b, scan, "axis %d: %d, scan %d", a, b, scan);

    // chains cut: a corner
    int* tie = m->mesh_tie + m->mesh_vertadr[0];
    int save[26];
    memcpy(save, tie, sizeof(save));
    for (int i = 0; i < 26; i++) {
      tie[i] = -1;
    }
    warm = 0;
    ncut += meshSupportGraph(m, 0, dir, 1e-5*m->geom_rbound[0], &warm) != scan;
    memcpy(tie, save, sizeof(save));

    // no chains: the full scan
    m->mesh_tied[0] = 0;
    warm = 0;
    nuntied += meshSupportGraph(m, 0, dir, 1e-5*m->geom_rbound[0], &warm) == scan;
    m->mesh_tied[0] = 1;
  }
  cr_expect_eq(nface, 6, "the scan returns face centres along the axes");
  cr_expect_eq(ncut, 6, "without the chains the tie resolution misses the face centres");
  cr_expect_eq(nuntied, 6, "without chains the full scan");
  mc_deleteModel(m);
}


// geomBoxesApart (the box test before GJK) claims geoms farther apart than the margin only when
// they are: along the axis it returns, the two geoms' supports (support.h, margin 0) leave a gap
// above the margin. Random poses of every convex type, a mesh among them, close enough that both
// answers come up often, hundreds within 1e-2 of the bound.
Test(convex_support, box_test_only_separates_what_is_apart) {
  const char* xml =
      "<mujoco><asset><mesh name='m' vertex='0 0 0.3  0.2 -0.1 0  -0.15 0.12 0.05  0.05 0.2 -0.1"
      "  -0.1 -0.2 -0.08  0.12 0.1 0.2'/></asset><worldbody>"
      "<body><freejoint/><geom type='sphere' size='0.1'/></body>"
      "<body><freejoint/><geom type='capsule' size='0.05 0.2'/></body>"
      "<body><freejoint/><geom type='ellipsoid' size='0.1 0.2 0.05'/></body>"
      "<body><freejoint/><geom type='cylinder' size='0.08 0.15'/></body>"
      "<body><freejoint/><geom type='box' size='0.1 0.05 0.2'/></body>"
      "<body><freejoint/><geom type='mesh' mesh='m'/></body>"
      "</worldbody></mujoco>";
  char err[1000];
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  mcData* d = mc_makeData(m);
  cr_assert_not_null(d);
  long napart = 0, nclose = 0, nnear = 0;
  for (int t = 0; t < 4000; t++) {
    tu_randomFreePoses(&g_seed, d->qpos, 6, 0.4);
    mc_forward(m, d);
    for (int g1 = 0; g1 < 6; g1++) {
      for (int g2 = g1 + 1; g2 < 6; g2++) {
        mcNum margin = uniform(0, 0.05), axis[3] = {0, 0, 0}, gap = 0;
        int apart = geomBoxesApart(m, d, g1, g2, margin, axis, &gap);
        // from any first axis (-1: none) the same answer; apart, the axis it names shows the gap
        for (int first = -1; first < 6; first++) {
          mcNum axis2[3], gap2, axis3[3], gap3;
          int k = first;
          cr_assert_eq(geomBoxesApartFrom(m, d, g1, g2, margin, axis2, &gap2, &k), apart);
          if (apart) {
            cr_assert(k >= 0 && k < 6);
            mcNum h1[3], h2[3];
            cr_assert(geomLocalBox(m, g1, h1) && geomLocalBox(m, g2, h2));
            const mcNum* c1 = d->geom_xpos + 3*g1;
            const mcNum* c2 = d->geom_xpos + 3*g2;
            mcNum t[3] = {c2[0] - c1[0], c2[1] - c1[1], c2[2] - c1[2]};
            cr_assert(geomBoxAxisApart(d, g1, g2, margin, h1, h2, t, k, axis3, &gap3));
            cr_assert(gap3 == gap2 && !memcmp(axis2, axis3, sizeof(axis3)));
          } else {
            cr_assert_eq(k, first, "the first axis is left as it was");
          }
        }
        if (!apart) {
          nclose++;
          continue;
        }
        napart++;
        nnear += gap - margin < 1e-2;
        cr_assert(fabs(axis[0]*axis[0] + axis[1]*axis[1] + axis[2]*axis[2] - 1) < 1e-12);
        const mcNum* p1 = d->geom_xpos + 3*g1;
        const mcNum* p2 = d->geom_xpos + 3*g2;
        mcNum s = axis[0]*(p2[0] - p1[0]) + axis[1]*(p2[1] - p1[1]) + axis[2]*(p2[2] - p1[2]);
        mcNum up[3], down[3], x1[3], x2[3];
        for (int k = 0; k < 3; k++) {
          up[k] = s >= 0 ? axis[k] : -axis[k];
          down[k] = -up[k];
        }
        ConvexObj o1 = {m, d, g1, 0, -1}, o2 = {m, d, g2, 0, -1};
        geomSupport(&o1, up, x1);
        geomSupport(&o2, down, x2);
        mcNum sep = (up[0]*x2[0] + up[1]*x2[1] + up[2]*x2[2]) -
                    (up[0]*x1[0] + up[1]*x1[1] + up[2]*x1[2]);
        cr_assert(sep > margin, "geoms %d, %d: apart by the boxes (gap %.17g) but the supports "
                  "leave %.17g, margin %.17g", g1, g2, gap, sep, margin);
      }
    }
  }
  cr_expect(napart > 10000 && nclose > 10000 && nnear > 200, "apart %ld, not %ld, near %ld",
            napart, nclose, nnear);

  // a mesh geom whose size is not its compiler's (norm other than rbound): no box
  mcNum h[3];
  cr_expect(geomLocalBox(m, 5, h));
  m->geom_rbound[5] *= 0.9;
  cr_expect(!geomLocalBox(m, 5, h));
  mc_deleteData(d);
  mc_deleteModel(m);
}
