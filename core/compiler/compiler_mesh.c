// Moduco core: mesh assets: loading, convex hull, volume and inertia, re-centring.
//
// The numbers follow MuJoCo 2.2.2 so compiled models agree field by field: vertices are floats
// (reference offset, rotation and scale applied in that order), the centre of mass and the
// inertia come from pyramids between each face and the area-weighted centroid of the faces, the
// principal axes from a quaternion Jacobi iteration, and the mesh is moved to that frame. Geoms
// see a mesh as the box with the same inertia (mass = density x box volume). The convex hull
// (qhull, option Qt) is stored in MuJoCo's graph layout for the collision plugins.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libqhull_r/qhull_ra.h>

#include "compiler/compiler_mesh.h"

//---------------------------------- quaternion helpers (MuJoCo's rounding) ------------------------

//---------------------------------- attributes with class defaults --------------------------------

// the <default> element of class name (the top-level one is "main")
static const mcxElem* mcc_findDefault(const mcxElem* e, const char* name, int top) {
  for (int k = 0; k < e->nchild; k++) {
    const mcxElem* ch = e->child[k];
    if (strcmp(ch->name, "default")) {
      continue;
    }
    const char* cls = mcx_attr(ch, "class");
    if ((top && (!cls || !strcmp(cls, "main")) && !strcmp(name, "main")) ||
        (cls && !strcmp(cls, name))) {
      return ch;
    }
    const mcxElem* r = mcc_findDefault(ch, name, 0);
    if (r) {
      return r;
    }
  }
  return NULL;
}


const char* mcc_assetAttr(mcc* c, const mcxElem* e, const char* key, const mcxElem** owner) {
  *owner = e;
  const char* v = mcx_attr(e, key);
  if (v) {
    return v;
  }

  // walk from the element's class up to the top-level default
  const char* cls = mcx_attr(e, "class");
  const mcxElem* root = c->tree->root;
  const mcxElem* d = NULL;
  for (int k = 0; k < root->nchild && !d; k++) {
    if (!strcmp(root->child[k]->name, "default")) {
      const mcxElem* top = root->child[k];
      const char* tc = mcx_attr(top, "class");
      if (!cls || !strcmp(cls, "main") || (tc && !strcmp(tc, cls))) {
        d = top;
      } else {
        d = mcc_findDefault(top, cls, 0);
      }
    }
  }
  for (; d && !strcmp(d->name, "default"); d = d->parent) {
    for (int k = 0; k < d->nchild; k++) {
      const mcxElem* ch = d->child[k];
      if (!strcmp(ch->name, e->name) && (v = mcx_attr(ch, key))) {
        *owner = ch;
        return v;
      }
    }
  }
  return NULL;
}


// read n numbers of an asset attribute (own or inherited); return 1 if given
static int mcc_assetNums(mcc* c, const mcxElem* e, const char* key, mcNum* out, int n) {
  const mcxElem* owner;
  if (!mcc_assetAttr(c, e, key, &owner)) {
    return 0;
  }
  mcc_readNums(c, owner, key, out, n, n);
  return 1;
}


//---------------------------------- setup ---------------------------------------------------------

// attribute of the last <compiler> element that has it
static const char* mcc_compilerAttr(mcc* c, const char* key) {
  const char* v = NULL;
  const mcxElem* root = c->tree->root;
  for (int k = 0; k < root->nchild; k++) {
    if (!strcmp(root->child[k]->name, "compiler") && mcx_attr(root->child[k], key)) {
      v = mcx_attr(root->child[k], key);
    }
  }
  return v;
}


// resolve a mesh file: model folder + meshdir (or assetdir) + file
static void mcc_assetPath(mcc* c, const char* file, const char* kind, char* out, int out_sz) {
  const char* dir = c->meshdir[0] ? c->meshdir : mcc_compilerAttr(c, "assetdir");
  const char* strip = mcc_compilerAttr(c, "strippath");
  if (strip && !strcmp(strip, "true")) {
    const char* base = strrchr(file, '/');
    file = base ? base + 1 : file;
  }
  char tmp[1024];
  mcx_joinPath(dir ? dir : "", file, tmp, sizeof(tmp));
  mcx_joinPath(c->tree->dir ? c->tree->dir : "", tmp, out, out_sz);
  (void)kind;
}


// case-insensitive file extension test
static int mcc_hasExt(const char* path, const char* ext) {
  size_t n = strlen(path), k = strlen(ext);
  if (n < k) {
    return 0;
  }
  for (size_t i = 0; i < k; i++) {
    char a = path[n - k + i];
    if (a >= 'A' && a <= 'Z') {
      a = (char)(a - 'A' + 'a');
    }
    if (a != ext[i]) {
      return 0;
    }
  }
  return 1;
}


// read the attributes and the raw vertices/faces of mesh i
static void mcc_meshLoad(mcc* c, int i) {
  mccMeshData* md = c->meshdata + i;
  const mcxElem* e = MCC_AT(c->meshes, mccNamed, i)->elem;
  const char* name = MCC_AT(c->meshes, mccNamed, i)->name;
  md->elem = e;
  mcc_checkAttrs(c, e, "name class file vertex normal texcoord face scale refpos refquat "
                 "smoothnormal content_type maxhullvert inertia");
  md->scale[0] = md->scale[1] = md->scale[2] = 1;
  md->refquat[0] = 1;
  mcc_assetNums(c, e, "scale", md->scale, 3);
  mcc_assetNums(c, e, "refpos", md->refpos, 3);
  mcc_assetNums(c, e, "refquat", md->refquat, 4);
  const mcxElem* owner;
  if (mcc_assetAttr(c, e, "inertia", &owner)) {
    mcc_readEnum(c, owner, "inertia", "legacy convex exact shell");
  }

  // density of the mesh's default class (MuJoCo weights the inertia sums with it)
  int cls = mcc_elemClass(c, e, 0);
  md->density = MCC_AT(c->classes, mccClass, cls)->geom.density;

  // file data
  const char* file = mcx_attr(e, "file");
  if (file) {
    mcc_assetPath(c, file, "mesh", md->path, sizeof(md->path));
    if (mcc_hasExt(md->path, ".stl")) {
      mcc_loadSTL(c, md);
    } else if (mcc_hasExt(md->path, ".obj")) {
      mcc_loadOBJ(c, md);
    } else if (mcc_hasExt(md->path, ".msh")) {
      mcc_loadMSH(c, md);
    } else {
      mcc_error(c, e, "mesh '%s': unknown mesh file type '%s' (supported: .stl, .obj, .msh)",
                name, file);
    }
  }

  // inline vertices and faces
  int nv = mcc_countNums(c, e, "vertex");
  if (nv >= 0) {
    if (file) {
      mcc_error(c, e, "mesh '%s' has both a file and inline vertices", name);
    }
    if (nv < 12) {
      mcc_error(c, e, "mesh '%s' needs at least 4 vertices (12 numbers), got %d numbers", name,
                nv);
    }
    if (nv % 3) {
      mcc_error(c, e, "mesh '%s': vertex data must be a multiple of 3 numbers, got %d", name,
                nv);
    }
    md->vert = (float*)malloc(sizeof(float) * (size_t)nv);
    if (!md->vert) {
      mcc_error(c, e, "out of memory");
    }
    md->nvert = md->cvert = nv / 3;
    mcc_readFloats(c, e, "vertex", md->vert, nv, nv);
  }
  int nf = mcc_countNums(c, e, "face");
  if (nf >= 0) {
    if (md->nface) {
      mcc_error(c, e, "mesh '%s' has both file faces and inline faces", name);
    }
    if (nf % 3) {
      mcc_error(c, e, "mesh '%s': face data must be a multiple of 3 numbers, got %d", name, nf);
    }
    md->face = (int*)malloc(sizeof(int) * (size_t)(nf ? nf : 1));
    if (!md->face) {
      mcc_error(c, e, "out of memory");
    }
    md->nface = md->cface = nf / 3;
    mcNum* tmp = (mcNum*)malloc(sizeof(mcNum) * (size_t)(nf ? nf : 1));
    md->scratch = tmp;
    if (!tmp) {
      mcc_error(c, e, "out of memory");
    }
    mcc_readNums(c, e, "face", tmp, nf, nf);
    for (int k = 0; k < nf; k++) {
      if (tmp[k] != floor(tmp[k])) {
        mcc_error(c, e, "mesh '%s': face index %g is not an integer", name, tmp[k]);
      }
      md->face[k] = tmp[k] < -1e9 ? -1 : tmp[k] > 1e9 ? -1 : (int)tmp[k];
    }
    free(md->scratch);
    md->scratch = NULL;
  }
  if (!md->nvert) {
    mcc_error(c, e, "mesh '%s' has no vertices: give it a file or a 'vertex' attribute", name);
  }
  for (int k = 0; k < 3 * md->nface; k++) {
    if (md->face[k] < 0 || md->face[k] >= md->nvert) {
      mcc_error(c, e, "mesh '%s': face %d uses vertex index %d, out of range (%d vertices)",
                name, k / 3, md->face[k], md->nvert);
    }
  }
}


//---------------------------------- degenerate meshes ---------------------------------------------

// describe why a point set spans no volume; NULL if it does
static const char* mcc_flatness(const float* v, int n) {
  if (n < 4) {
    return "it has fewer than 4 vertices";
  }
  mcNum p0[3] = {v[0], v[1], v[2]}, best = 0;
  int i1 = 0;
  for (int i = 1; i < n; i++) {
    mcNum d[3] = {v[3 * i] - p0[0], v[3 * i + 1] - p0[1], v[3 * i + 2] - p0[2]};
    mcNum dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (dd > best) {
      best = dd, i1 = i;
    }
  }
  mcNum len = sqrt(best);
  if (len == 0) {
    return "all its vertices coincide";
  }
  mcNum u[3] = {(v[3 * i1] - p0[0]) / len, (v[3 * i1 + 1] - p0[1]) / len,
                (v[3 * i1 + 2] - p0[2]) / len};

  // farthest point from the line, then from the plane
  mcNum nrm[3] = {0, 0, 0};
  best = 0;
  for (int i = 0; i < n; i++) {
    mcNum d[3] = {v[3 * i] - p0[0], v[3 * i + 1] - p0[1], v[3 * i + 2] - p0[2]};
    mcNum x[3] = {d[1] * u[2] - d[2] * u[1], d[2] * u[0] - d[0] * u[2], d[0] * u[1] - d[1] * u[0]};
    mcNum xx = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    if (xx > best) {
      best = xx;
      memcpy(nrm, x, sizeof(x));
    }
  }
  if (sqrt(best) <= 1e-9 * len) {
    return "all its vertices lie on one line";
  }
  mcNum nl = sqrt(best);
  for (int k = 0; k < 3; k++) {
    nrm[k] /= nl;
  }
  best = 0;
  for (int i = 0; i < n; i++) {
    mcNum d = (v[3 * i] - p0[0]) * nrm[0] + (v[3 * i + 1] - p0[1]) * nrm[1] +
              (v[3 * i + 2] - p0[2]) * nrm[2];
    best = fmax(best, fabs(d));
  }
  if (best <= 1e-9 * len) {
    return "all its vertices lie in one plane (a flat mesh has no volume or convex hull)";
  }
  return NULL;
}


// error for a mesh without volume
static _Noreturn void mcc_meshDegenerate(mcc* c, int i, const char* why) {
  const mccMeshData* md = c->meshdata + i;
  mcc_error(c, md->elem, "mesh '%s'%s%s%s is degenerate: %s; a mesh needs a closed volume (use a "
            "box or plane geom for a flat shape, or give the mesh thickness)",
            MCC_AT(c->meshes, mccNamed, i)->name, md->path[0] ? " (file '" : "", md->path,
            md->path[0] ? "')" : "", why);
}


//---------------------------------- convex hull ---------------------------------------------------

// qhull state and the graph being built (freed by mcc_freeAssets if we unwind)
typedef struct mccHull_ {
  qhT qh;
  int active;                     // qh needs qh_freeqhull
  double* pts;
  char* msg;                      // qhull's error text
  size_t msglen;
  FILE* ferr;
} mccHull;


static void mcc_hullFree(mccHull* h) {
  if (!h) {
    return;
  }
  if (h->active) {
    int curlong, totlong;
    h->qh.NOerrexit = True;
    qh_freeqhull(&h->qh, !qh_ALL);
    qh_memfreeshort(&h->qh, &curlong, &totlong);
    h->active = 0;
  }
  if (h->ferr) {
    fclose(h->ferr);
    h->ferr = NULL;
  }
  free(h->msg);
  free(h->pts);
  free(h);
}


// fill the graph from a finished hull; 0 on a malformed hull
static int mcc_hullGraph(mccMeshData* md, qhT* qh) {
  facetT* facet;
  vertexT* vertex;
  vertexT* vertex1;
  vertexT** vertex1p;
  facetT** facetp;
  int numvert = qh->num_vertices, numface = qh->num_facets;
  md->ngraph = 2 + 3 * numvert + 6 * numface;
  md->graph = (int*)malloc(sizeof(int) * (size_t)md->ngraph);
  if (!md->graph) {
    return 0;
  }
  int* g = md->graph;
  g[0] = numvert;
  g[1] = numface;
  int* edgeadr = g + 2;
  int* globalid = g + 2 + numvert;
  int* edge = g + 2 + 2 * numvert;
  int* faces = g + 2 + 3 * numvert + 3 * numface;

  // per vertex: its neighbours over the adjacent triangles, then -1
  int i = 0, adr = 0;
  FORALLvertices {
    int pid = qh_pointid(qh, vertex->point);
    if (pid < 0 || pid >= md->nvert) {
      return 0;
    }
    edgeadr[i] = adr;
    globalid[i] = pid;
    int start = adr;
    FOREACHfacet_(vertex->neighbors) {
      int cnt = 0;
      FOREACHsetelement_(vertexT, facet->vertices, vertex1) {
        cnt++;
        int pid1 = qh_pointid(qh, vertex1->point);
        if (pid1 < 0 || pid1 >= md->nvert) {
          return 0;
        }
        int seen = pid1 == pid;
        for (int j = start; j < adr && !seen; j++) {
          seen = edge[j] == pid1;
        }
        if (!seen) {
          if (adr >= numvert + 3 * numface) {
            return 0;
          }
          edge[adr++] = pid1;
        }
      }
      if (cnt != 3) {
        return 0;
      }
    }
    if (adr >= numvert + 3 * numface) {
      return 0;
    }
    edge[adr++] = -1;
    i++;
  }
  if (adr != numvert + 3 * numface) {
    return 0;
  }

  // triangles, with qhull's top orientation flipped to outward winding
  adr = 0;
  FORALLfacets {
    int order[3] = {0, 1, 2}, k = 0;
    if (facet->toporient) {
      order[0] = 1;
      order[1] = 0;
    }
    FOREACHsetelement_(vertexT, facet->vertices, vertex1) {
      if (k >= 3) {
        return 0;
      }
      faces[adr + order[k++]] = qh_pointid(qh, vertex1->point);
    }
    adr += 3;
  }

  // neighbour ids from global (mesh vertex) to local (hull vertex) numbering
  for (int j = 0; j < numvert + 3 * numface; j++) {
    if (edge[j] < 0) {
      continue;
    }
    int local = -1;
    for (int k2 = 0; k2 < numvert && local < 0; k2++) {
      if (globalid[k2] == edge[j]) {
        local = k2;
      }
    }
    if (local < 0) {
      return 0;
    }
    edge[j] = local;
  }
  return 1;
}


// build the convex hull graph of mesh i with qhull (raw file vertices, as MuJoCo)
static void mcc_meshHull(mcc* c, int i) {
  mccMeshData* md = c->meshdata + i;
  const char* why = mcc_flatness(md->vert, md->nvert);
  if (why) {
    mcc_meshDegenerate(c, i, why);
  }
  mccHull* h = (mccHull*)calloc(1, sizeof(mccHull));
  if (!h) {
    mcc_error(c, md->elem, "out of memory");
  }
  md->hull = h;
  h->pts = (double*)malloc(sizeof(double) * 3 * (size_t)md->nvert);
  if (!h->pts) {
    mcc_error(c, md->elem, "out of memory");
  }
  for (int k = 0; k < 3 * md->nvert; k++) {
    h->pts[k] = md->vert[k];
  }
  h->ferr = open_memstream(&h->msg, &h->msglen);

  // qhull reports errors by longjmp to qh.errexit; nothing of ours is touched in between
  qhT* qh = &h->qh;
  qh_zero(qh, h->ferr);
  qh_init_A(qh, NULL, NULL, h->ferr, 0, NULL);
  h->active = 1;
  volatile int ok = 0;
  if (!setjmp(qh->errexit)) {
    char opt[] = "qhull Qt";
    qh->NOerrexit = False;
    qh_initflags(qh, opt);
    qh_init_B(qh, h->pts, md->nvert, 3, False);
    qh_qhull(qh);
    qh_triangulate(qh);
    qh_vertexneighbors(qh);
    ok = mcc_hullGraph(md, qh) ? 1 : 2;
  }
  qh->NOerrexit = True;
  if (h->ferr) {
    fflush(h->ferr);
  }
  if (ok != 1) {
    free(md->graph);
    md->graph = NULL;
    md->ngraph = 0;
    char msg[512] = "";
    if (h->msg) {
      const char* p = strstr(h->msg, "QH");
      snprintf(msg, sizeof(msg), "%.300s", p ? p : h->msg);
      for (char* q = msg; *q; q++) {
        if (*q == '\n') {
          *q = *(q + 1) ? ' ' : 0;
        }
      }
    }
    mcc_error(c, md->elem, "mesh '%s': could not build its convex hull%s%s",
              MCC_AT(c->meshes, mccNamed, i)->name, msg[0] ? ": qhull says: " : "", msg);
  }
  mcc_hullFree(h);
  md->hull = NULL;
}


// faces of a mesh given as vertices only: the triangles of its hull
static void mcc_meshFacesFromHull(mcc* c, mccMeshData* md) {
  int numvert = md->graph[0], numface = md->graph[1];
  md->face = (int*)malloc(sizeof(int) * 3 * (size_t)numface);
  if (!md->face) {
    mcc_error(c, md->elem, "out of memory");
  }
  memcpy(md->face, md->graph + 2 + 3 * numvert + 3 * numface, sizeof(int) * 3 * (size_t)numface);
  md->nface = md->cface = numface;
}


//---------------------------------- volume, inertia, frame ----------------------------------------

// area of a float triangle; its unit normal and its centroid (float sums, as MuJoCo)
static mcNum mcc_triangle(mcNum nrm[3], mcNum cen[3], const float* a, const float* b,
                          const float* d) {
  for (int k = 0; k < 3; k++) {
    cen[k] = (float)(a[k] + b[k] + d[k]) / 3.0f;
  }
  mcNum e1[3] = {(float)(b[0] - a[0]), (float)(b[1] - a[1]), (float)(b[2] - a[2])};
  mcNum e2[3] = {(float)(d[0] - a[0]), (float)(d[1] - a[1]), (float)(d[2] - a[2])};
  nrm[0] = e1[1] * e2[2] - e1[2] * e2[1];
  nrm[1] = e1[2] * e2[0] - e1[0] * e2[2];
  nrm[2] = e1[0] * e2[1] - e1[1] * e2[0];
  mcNum len = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
  if (len < mcMINVAL) {
    return 0;
  }
  for (int k = 0; k < 3; k++) {
    nrm[k] /= len;
  }
  return len / 2;
}


// second moment integrand of a tetrahedron (origin, d, e, f) for axes i, j, in float
static float mcc_tetMoment(const float* d, const float* e, const float* f, int i, int j) {
  float sq = d[i] * d[j] + e[i] * e[j] + f[i] * f[j];
  return 2 * sq + d[i] * e[j] + d[j] * e[i] + d[i] * f[j] + d[j] * f[i] + e[i] * f[j] +
         e[j] * f[i];
}


// transform, measure and re-centre mesh i
static void mcc_meshProcess(mcc* c, int i) {
  mccMeshData* md = c->meshdata + i;
  const char* name = MCC_AT(c->meshes, mccNamed, i)->name;
  float* v = md->vert;
  int nv = md->nvert, nf = md->nface;

  // reference offset, reference rotation, scale (each rounded to float, as MuJoCo)
  const mcNum* rp = md->refpos;
  const mcNum* rq = md->refquat;
  if (rp[0] != 0 || rp[1] != 0 || rp[2] != 0) {
    for (int k = 0; k < nv; k++) {
      for (int j = 0; j < 3; j++) {
        v[3 * k + j] = (float)(v[3 * k + j] - rp[j]);
      }
    }
  }
  if (rq[0] != 1 || rq[1] != 0 || rq[2] != 0 || rq[3] != 0) {
    mcNum q[4] = {rq[0], rq[1], rq[2], rq[3]}, r[9];
    mcc_mjNormalize4(q);
    mcc_mjQuat2Mat(r, q);
    for (int k = 0; k < nv; k++) {
      mcNum p[3] = {v[3 * k], v[3 * k + 1], v[3 * k + 2]};
      for (int j = 0; j < 3; j++) {
        v[3 * k + j] = (float)(r[j] * p[0] + r[3 + j] * p[1] + r[6 + j] * p[2]);
      }
    }
  }
  if (md->scale[0] != 1 || md->scale[1] != 1 || md->scale[2] != 1) {
    for (int k = 0; k < nv; k++) {
      for (int j = 0; j < 3; j++) {
        v[3 * k + j] = (float)(v[3 * k + j] * md->scale[j]);
      }
    }
  }

  // area-weighted centroid of the faces: the apex of every pyramid
  mcNum nrm[3], cen[3], fc[3] = {0, 0, 0}, area = 0;
  for (int f = 0; f < nf; f++) {
    const int* t = md->face + 3 * f;
    mcNum a = mcc_triangle(nrm, cen, v + 3 * t[0], v + 3 * t[1], v + 3 * t[2]);
    for (int j = 0; j < 3; j++) {
      fc[j] += a * cen[j];
    }
    area += a;
  }
  if (area < mcMINVAL) {
    mcc_meshDegenerate(c, i, "its surface area is zero");
  }
  for (int j = 0; j < 3; j++) {
    fc[j] /= area;
  }

  // volume and centre of mass from the pyramids
  mcNum vol = 0, com[3] = {0, 0, 0};
  for (int f = 0; f < nf; f++) {
    const int* t = md->face + 3 * f;
    mcNum a = mcc_triangle(nrm, cen, v + 3 * t[0], v + 3 * t[1], v + 3 * t[2]);
    mcNum h = (cen[0] - fc[0]) * nrm[0] + (cen[1] - fc[1]) * nrm[1] + (cen[2] - fc[2]) * nrm[2];
    mcNum pv = fabs(h) * a / 3;
    vol += pv;
    for (int j = 0; j < 3; j++) {
      com[j] += pv * (cen[j] * 3.0 / 4.0 + fc[j] / 4.0);
    }
  }
  if (vol < mcMINVAL) {
    const char* why = mcc_flatness(v, nv);
    mcc_meshDegenerate(c, i, why ? why : "its volume is zero");
  }
  for (int j = 0; j < 3; j++) {
    com[j] /= vol;
  }
  memcpy(md->pos, com, sizeof(com));
  for (int k = 0; k < nv; k++) {
    for (int j = 0; j < 3; j++) {
      v[3 * k + j] = (float)(v[3 * k + j] - com[j]);
    }
  }

  // products of inertia about the centre (pyramids with apex at the centre)
  static const int pair[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
  mcNum P[6] = {0, 0, 0, 0, 0, 0};
  vol = 0;
  for (int f = 0; f < nf; f++) {
    const int* t = md->face + 3 * f;
    const float* d = v + 3 * t[0];
    const float* e = v + 3 * t[1];
    const float* g = v + 3 * t[2];
    mcNum a = mcc_triangle(nrm, cen, d, e, g);
    mcNum pv = fabs(cen[0] * nrm[0] + cen[1] * nrm[1] + cen[2] * nrm[2]) * a / 3;
    vol += pv;
    for (int j = 0; j < 6; j++) {
      P[j] += md->density * pv / 20 * mcc_tetMoment(d, e, g, pair[j][0], pair[j][1]);
    }
  }
  md->volume = vol;
  mcNum full[9] = {
    P[1] + P[2], -P[3], -P[4],
    -P[3], P[0] + P[2], -P[5],
    -P[4], -P[5], P[0] + P[1],
  };
  mcNum eig[3];
  mcc_eig3(eig, md->quat, full);
  if (!(eig[2] > 0)) {
    mcc_error(c, md->elem, "mesh '%s'%s%s%s: smallest principal inertia %g is not positive: the "
              "mesh is (nearly) flat or tiny; check its scale and units, or merge tiny pieces",
              name, md->path[0] ? " (file '" : "", md->path, md->path[0] ? "')" : "", eig[2]);
  }
  if (eig[0] + eig[1] < eig[2] || eig[0] + eig[2] < eig[1] || eig[1] + eig[2] < eig[0]) {
    mcc_error(c, md->elem, "mesh '%s': principal inertias %g %g %g violate A + B >= C (faces "
              "inconsistently oriented or the mesh is not closed?)", name, eig[0], eig[1],
              eig[2]);
  }
  mcNum mass = vol * md->density;
  md->boxsz[0] = sqrt(6 * (eig[1] + eig[2] - eig[0]) / mass) / 2;
  md->boxsz[1] = sqrt(6 * (eig[0] + eig[2] - eig[1]) / mass) / 2;
  md->boxsz[2] = sqrt(6 * (eig[0] + eig[1] - eig[2]) / mass) / 2;

  // vertices into the principal frame: v' = R' v
  mcNum r[9];
  mcc_mjQuat2Mat(r, md->quat);
  for (int k = 0; k < nv; k++) {
    mcNum p[3] = {v[3 * k], v[3 * k + 1], v[3 * k + 2]};
    for (int j = 0; j < 3; j++) {
      v[3 * k + j] = (float)(p[0] * r[j] + p[1] * r[3 + j] + p[2] * r[6 + j]);
    }
  }
  md->aabb[0] = md->aabb[1] = md->aabb[2] = 0;
  for (int k = 0; k < nv; k++) {
    for (int j = 0; j < 3; j++) {
      md->aabb[j] = fmax(md->aabb[j], fabs((mcNum)v[3 * k + j]));
    }
  }
}


//---------------------------------- driver --------------------------------------------------------

void mcc_compileMeshes(mcc* c) {
  int n = c->meshes.n;
  if (!n) {
    return;
  }
  c->meshdata = (mccMeshData*)calloc((size_t)n, sizeof(mccMeshData));
  if (!c->meshdata) {
    mcc_error(c, NULL, "out of memory");
  }

  // a mesh needs its hull when a colliding geom uses it
  for (int g = 0; g < c->geoms.n; g++) {
    const mccGeomObj* go = MCC_AT(c->geoms, mccGeomObj, g);
    if (go->s.type == mcGEOM_MESH && go->meshid >= 0 && (go->s.contype || go->s.conaffinity)) {
      c->meshdata[go->meshid].needhull = 1;
    }
  }
  const char* ch = mcc_compilerAttr(c, "convexhull");
  int convexhull = !ch || strcmp(ch, "false");

  for (int i = 0; i < n; i++) {
    mccMeshData* md = c->meshdata + i;
    mcc_meshLoad(c, i);
    if ((convexhull && md->needhull) || !md->nface) {
      mcc_meshHull(c, i);
    }
    if (!md->nface) {
      mcc_meshFacesFromHull(c, md);
    }
    mcc_meshProcess(c, i);
  }

  // mesh geoms: offset by the mesh frame, size from the mesh box
  for (int g = 0; g < c->geoms.n; g++) {
    mccGeomObj* go = MCC_AT(c->geoms, mccGeomObj, g);
    if (go->s.type != mcGEOM_MESH || go->meshid < 0) {
      continue;
    }
    const mccMeshData* md = c->meshdata + go->meshid;
    mcNum* q = go->s.quat;
    mcNum nq = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (nq > mcMINVAL) {
      for (int k = 0; k < 4; k++) {
        q[k] /= nq;
      }
    }
    mcNum r[9], qq[4];
    mcc_mjQuat2Mat(r, q);
    for (int j = 0; j < 3; j++) {
      go->s.pos[j] += r[3 * j] * md->pos[0] + r[3 * j + 1] * md->pos[1] + r[3 * j + 2] * md->pos[2];
    }
    mcc_mjMulQuat(qq, q, md->quat);
    mcNum nn = sqrt(qq[0] * qq[0] + qq[1] * qq[1] + qq[2] * qq[2] + qq[3] * qq[3]);
    for (int k = 0; k < 4; k++) {
      q[k] = qq[k] / nn;
    }
    memcpy(go->s.size, md->aabb, sizeof(md->aabb));
  }
}


void mcc_meshGeomInertia(const mcc* c, int meshid, mcNum* vol, mcNum boxsz[3]) {
  const mccMeshData* md = c->meshdata + meshid;
  memcpy(boxsz, md->boxsz, sizeof(md->boxsz));
  *vol = md->boxsz[0] * md->boxsz[1] * md->boxsz[2] * 8;
}


void mcc_meshTotals(const mcc* c, int* nvert, int* nface, int* ngraph) {
  *nvert = *nface = *ngraph = 0;
  for (int i = 0; i < c->meshes.n && c->meshdata; i++) {
    *nvert += c->meshdata[i].nvert;
    *nface += c->meshdata[i].nface;
    *ngraph += c->meshdata[i].ngraph;
  }
}


void mcc_fillMeshes(const mcc* c, mcModel* m) {
  int vadr = 0, fadr = 0, gadr = 0;
  for (int i = 0; i < m->nmesh; i++) {
    const mccMeshData* md = c->meshdata + i;
    m->mesh_vertadr[i] = vadr;
    m->mesh_vertnum[i] = md->nvert;
    m->mesh_faceadr[i] = fadr;
    m->mesh_facenum[i] = md->nface;
    m->mesh_graphadr[i] = md->graph ? gadr : -1;
    memcpy(m->mesh_vert + 3 * vadr, md->vert, sizeof(float) * 3 * (size_t)md->nvert);
    memcpy(m->mesh_face + 3 * fadr, md->face, sizeof(int) * 3 * (size_t)md->nface);
    if (md->graph) {
      memcpy(m->mesh_graph + gadr, md->graph, sizeof(int) * (size_t)md->ngraph);
    }
    vadr += md->nvert;
    fadr += md->nface;
    gadr += md->ngraph;
  }
}


void mcc_freeAssets(mcc* c) {
  for (int i = 0; c->meshdata && i < c->meshes.n; i++) {
    mccMeshData* md = c->meshdata + i;
    free(md->vert);
    free(md->face);
    free(md->graph);
    free(md->buf);
    free(md->scratch);
    mcc_hullFree(md->hull);
  }
  free(c->meshdata);
  c->meshdata = NULL;
  for (int i = 0; c->hfielddata && i < c->hfields.n; i++) {
    free(c->hfielddata[i].data);
    free(c->hfielddata[i].buf);
  }
  free(c->hfielddata);
  c->hfielddata = NULL;
}
