// Moduco core: mesh assets: loading, convex hull, volume and inertia, re-centring.
//
// Volume, centre of mass and inertia follow MuJoCo 3.3.8 (mcc_meshProcess): vertices are parsed
// as floats, then offset by refpos, rotated by refquat and scaled in double; the principal axes
// come from a quaternion Jacobi iteration and the mesh is moved to that frame. Mesh geoms get the
// mesh's own volume and inertia. <mesh inertia=...> chooses how they are measured; without it
// (also through <default><mesh>) it is legacy, MuJoCo 3.3.8's default. legacy: pyramids between
// each face and the area-weighted centroid of the faces with |height| (winding plays no part);
// exact: signed pyramids, refused when the faces are wound inconsistently or inward; convex: the
// solid convex hull of all vertices; shell: the mass spread over the surface (the volume field
// holds the area). (MuJoCo 2.2.2 measured legacy in float and weighed a mesh geom as its
// equivalent inertia box: Moduco does not reproduce that.) The convex hull (qhull, option Qt) is
// stored in MuJoCo's graph layout for the collision plugins.
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

// attribute of the model's last <compiler> element that has it
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


// resolve a mesh file: model folder + meshdir (or assetdir) + file, with the settings of the
// element's model file
static void mcc_assetPath(mcc* c, const mcxElem* e, const char* file, char* out, int out_sz) {
  const mccScope* sc = mcc_scope(c, e);
  const char* dir = sc->meshdir[0] ? sc->meshdir : sc->assetdir;
  if (sc->strippath) {
    const char* base = strrchr(file, '/');
    file = base ? base + 1 : file;
  }
  char tmp[1024];
  mcx_joinPath(dir, file, tmp, sizeof(tmp));
  mcc_assetFile(c, e, tmp, out, out_sz);
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


// size primitive geom go from its mesh md (go's pose already in the mesh's inertial frame), as
// MuJoCo 3: from the mesh's equivalent inertia box, or with compiler fitaabb from the bounding box
// of the vertices in the inertial frame (the geom then moves to the box centre), then times
// fitscale
static void mcc_fitPrimitive(mcc* c, mccGeomObj* go, const mccMeshData* md) {
  int fitaabb = mcc_scope(c, go->elem)->fitaabb;
  mcNum half[3];
  if (!fitaabb) {
    // half sides of the box of the same volume and principal inertia (unit density)
    const mcNum* I = md->inertia1;
    for (int k = 0; k < 3; k++) {
      mcNum s = I[(k + 1) % 3] + I[(k + 2) % 3] - I[k];
      half[k] = md->volume > 0 && s > 0 ? sqrt(3 * s / (2 * md->volume)) : 0;
    }
  } else {
    mcNum lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int v = 0; v < md->nvert; v++) {
      for (int k = 0; k < 3; k++) {
        lo[k] = fmin(lo[k], md->vert[3 * v + k]);
        hi[k] = fmax(hi[k], md->vert[3 * v + k]);
      }
    }
    mcNum ctr[3];
    for (int k = 0; k < 3; k++) {
      half[k] = md->nvert ? (hi[k] - lo[k]) / 2 : 0;
      ctr[k] = md->nvert ? (hi[k] + lo[k]) / 2 : 0;
    }
    mcNum rot[9];
    mcc_mjQuat2Mat(rot, go->s.quat);
    for (int j = 0; j < 3; j++) {
      go->s.pos[j] += rot[3 * j] * ctr[0] + rot[3 * j + 1] * ctr[1] + rot[3 * j + 2] * ctr[2];
    }
  }
  mcNum* size = go->s.size;
  mcNum radial = fitaabb ? fmax(half[0], half[1]) : (half[0] + half[1]) / 2;
  switch (go->s.type) {
  case mcGEOM_SPHERE:
    size[0] = fitaabb ? fmax(radial, half[2]) : (half[0] + half[1] + half[2]) / 3;
    break;
  case mcGEOM_CAPSULE:
    size[0] = radial;
    size[1] = fmax(0, half[2] - (fitaabb ? radial : radial / 2));
    break;
  case mcGEOM_CYLINDER:
    size[0] = radial;
    size[1] = half[2];
    break;
  default:  // ellipsoid, box
    memcpy(size, half, sizeof(half));
  }
  for (int k = 0; k < 3; k++) {
    size[k] *= go->s.fitscale;
  }
  int need = go->s.type == mcGEOM_SPHERE ? 1 : go->s.type == mcGEOM_CAPSULE ||
             go->s.type == mcGEOM_CYLINDER ? 2 : 3;
  for (int k = 0; k < need; k++) {
    if (!(size[k] > 0)) {
      mcc_error(c, go->elem, "the %s fitted to mesh '%s' has size %d of %g (a degenerate mesh)",
                go->elem->name, MCC_AT(c->meshes, mccNamed, go->meshid)->name, k, size[k]);
    }
  }
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
  md->inertia = MCC_MESH_LEGACY;           // MuJoCo 3.3.8's default
  if (mcc_assetAttr(c, e, "inertia", &owner)) {
    md->inertia = mcc_readEnum(c, owner, "inertia", "legacy convex exact shell");
  }
  md->maxhullvert = -1;
  if (mcc_assetAttr(c, e, "maxhullvert", &owner)) {
    mcc_readInt(c, owner, "maxhullvert", &md->maxhullvert);
  }

  // file data
  const char* file = mcx_attr(e, "file");
  if (file) {
    mcc_assetPath(c, e, file, md->path, sizeof(md->path));
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


// run qhull (option Qt) on the n double points pts of mesh i and hand the triangulated hull to
// fill (0: malformed); refuse the mesh with qhull's message on failure
static void mcc_runQhull(mcc* c, int i, const double* pts, int n,
                         int (*fill)(mccMeshData* md, qhT* qh)) {
  mccMeshData* md = c->meshdata + i;
  mccHull* h = (mccHull*)calloc(1, sizeof(mccHull));
  if (!h) {
    mcc_error(c, md->elem, "out of memory");
  }
  md->hull = h;
  h->pts = (double*)malloc(sizeof(double) * 3 * (size_t)n);
  if (!h->pts) {
    mcc_error(c, md->elem, "out of memory");
  }
  memcpy(h->pts, pts, sizeof(double) * 3 * (size_t)n);
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
    qh_init_B(qh, h->pts, n, 3, False);
    qh_qhull(qh);
    qh_triangulate(qh);
    ok = fill(md, qh) ? 1 : 2;
  }
  qh->NOerrexit = True;
  if (h->ferr) {
    fflush(h->ferr);
  }
  if (ok != 1) {
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


// mcc_hullGraph after the vertex neighbours; the graph is dropped if it fails
static int mcc_hullGraphFill(mccMeshData* md, qhT* qh) {
  qh_vertexneighbors(qh);
  if (mcc_hullGraph(md, qh)) {
    return 1;
  }
  free(md->graph);
  md->graph = NULL;
  md->ngraph = 0;
  return 0;
}


// build the convex hull graph of mesh i with qhull (raw file vertices, as MuJoCo)
static void mcc_meshHull(mcc* c, int i) {
  mccMeshData* md = c->meshdata + i;
  const char* why = mcc_flatness(md->vert, md->nvert);
  if (why) {
    mcc_meshDegenerate(c, i, why);
  }
  double* pts = (double*)malloc(sizeof(double) * 3 * (size_t)md->nvert);
  if (!pts) {
    mcc_error(c, md->elem, "out of memory");
  }
  for (int k = 0; k < 3 * md->nvert; k++) {
    pts[k] = md->vert[k];
  }
  md->vd = pts;                   // freed with the mesh if qhull fails
  mcc_runQhull(c, i, pts, md->nvert, mcc_hullGraphFill);
  free(md->vd);
  md->vd = NULL;
}


// the hull's triangles, wound outward (along qhull's facet normals), over md->vd
static int mcc_hullTriangles(mccMeshData* md, qhT* qh) {
  facetT* facet;
  vertexT* vertex1;
  vertexT** vertex1p;
  int n = qh->num_facets;
  md->hullface = (int*)malloc(sizeof(int) * 3 * (size_t)(n > 0 ? n : 1));
  if (!md->hullface) {
    return 0;
  }
  md->nhullface = 0;
  FORALLfacets {
    if (md->nhullface >= n) {
      return 0;
    }
    int* t = md->hullface + 3 * md->nhullface;
    int k = 0;
    FOREACHsetelement_(vertexT, facet->vertices, vertex1) {
      int id = qh_pointid(qh, vertex1->point);
      if (k >= 3 || id < 0 || id >= md->nvert) {
        return 0;
      }
      t[k++] = id;
    }
    if (k != 3) {
      return 0;
    }
    const double* a = md->vd + 3 * t[0];
    const double* b = md->vd + 3 * t[1];
    const double* d = md->vd + 3 * t[2];
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double e2[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    double nrm[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                     e1[0] * e2[1] - e1[1] * e2[0]};
    if (nrm[0] * facet->normal[0] + nrm[1] * facet->normal[1] + nrm[2] * facet->normal[2] < 0) {
      int tmp = t[1];
      t[1] = t[2];
      t[2] = tmp;
    }
    md->nhullface++;
  }
  return 1;
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


//---------------------------------- face winding --------------------------------------------------

static int mcc_cmpEdge(const void* a, const void* b) {
  long long x = *(const long long*)a, y = *(const long long*)b;
  return (x > y) - (x < y);
}


// OBJ files: the file's vertex number behind each loaded vertex. The reader gives every
// triangle corner its own vertex, three per triangle in file order (a fan over each polygon,
// faces of the first object only), so the faces are read again for their indices. 0 if the
// counts do not line up (then loaded vertices are compared as they are)
static int mcc_objFileIds(mcc* c, mccMeshData* md, int* id) {
  free(md->buf);
  md->buf = NULL;
  mcc_meshReadFile(c, md->elem, md->path, &md->buf);
  int npts = 0, n = 0, nfacepts = 0, ok = 1;
  const char* s = md->buf;
  while (*s && ok) {
    const char* eol = s;
    while (*eol && *eol != '\n') {
      eol++;
    }
    const char* p = s;
    while (p < eol && (*p == ' ' || *p == '\t')) {
      p++;
    }
    if (p + 1 < eol && p[0] == 'v' && (p[1] == ' ' || p[1] == '\t')) {
      npts++;
    } else if (p + 1 < eol && p[0] == 'f' && (p[1] == ' ' || p[1] == '\t')) {
      int corner[3], ncorner = 0;
      const char* q = p + 1;
      for (;;) {
        while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r')) {
          q++;
        }
        if (q >= eol) {
          break;
        }
        const char* w = q;
        while (q < eol && *q != ' ' && *q != '\t' && *q != '\r') {
          q++;
        }
        long idx = strtol(w, NULL, 10);
        int v = (int)(idx > 0 ? idx - 1 : npts + idx);
        if (ncorner < 3) {
          corner[ncorner++] = v;
        } else {
          corner[1] = corner[2];
          corner[2] = v;
        }
        if (ncorner == 3) {
          if (n + 3 > md->nvert) {
            ok = 0;
            break;
          }
          memcpy(id + n, corner, sizeof(corner));
          n += 3;
          nfacepts++;
        }
      }
    } else if (p + 1 < eol && (p[0] == 'o' || p[0] == 'g') && (p[1] == ' ' || p[1] == '\t') &&
               nfacepts) {
      break;
    }
    s = *eol ? eol + 1 : eol;
  }
  free(md->buf);
  md->buf = NULL;
  return ok && n == md->nvert && n == 3 * md->nface;
}


// the smallest directed edge (a -> b) that two faces of mesh i traverse in the same direction:
// their windings disagree (one of them is flipped). Vertices are numbered as the mesh gives them
// (STL files: after merging repeated vertices; OBJ files: the file's vertex lines), as MuJoCo
// does; their coordinates go to pa, pb. 0 if there is none
static int mcc_windingEdge(mcc* c, int i, int* ea, int* eb, float pa[3], float pb[3]) {
  mccMeshData* md = c->meshdata + i;
  int nf = md->nface, nv = md->nvert;
  size_t nkey = 3 * (size_t)(nf > 0 ? nf : 1);
  char* block = (char*)malloc(sizeof(long long) * nkey + sizeof(int) * (size_t)(nv + 1));
  if (!block) {
    mcc_error(c, md->elem, "out of memory");
  }
  md->scratch = block;
  long long* key = (long long*)block;
  int* id = (int*)(key + nkey);
  int fileids = md->path[0] && mcc_hasExt(md->path, ".obj") && !md->hullfaces &&
                mcc_objFileIds(c, md, id);
  int maxid = nv;
  if (!fileids) {
    for (int k = 0; k < nv; k++) {
      id[k] = k;
    }
  }
  for (int k = 0; k < nv; k++) {
    maxid = id[k] + 1 > maxid ? id[k] + 1 : maxid;
  }

  // directed edges, sorted; a repeated one is traversed twice the same way
  int n = 0;
  long long base = (long long)maxid + 1;
  for (int f = 0; f < nf; f++) {
    const int* t = md->face + 3 * f;
    for (int k = 0; k < 3; k++) {
      int a = id[t[k]], b = id[t[(k + 1) % 3]];
      if (a != b) {
        key[n++] = (long long)a * base + b;
      }
    }
  }
  qsort(key, (size_t)n, sizeof(long long), mcc_cmpEdge);
  int found = 0;
  for (int k = 1; k < n && !found; k++) {
    if (key[k] == key[k - 1]) {
      *ea = (int)(key[k] / base);
      *eb = (int)(key[k] % base);
      found = 1;
    }
  }
  for (int k = 0; k < nv && found; k++) {
    if (id[k] == *ea) {
      memcpy(pa, md->vert + 3 * k, sizeof(float) * 3);
    }
    if (id[k] == *eb) {
      memcpy(pb, md->vert + 3 * k, sizeof(float) * 3);
    }
  }
  free(block);
  md->scratch = NULL;
  return found;
}


// " (file 'path')" for messages, or ""
static void mcc_meshFileNote(const mccMeshData* md, char* out, size_t sz) {
  if (md->path[0]) {
    snprintf(out, sz, " (file '%s')", md->path);
  } else {
    out[0] = 0;
  }
}


//---------------------------------- MuJoCo 3.3.8 inertia modes ------------------------------------

// area (|n|/2), unit normal and centroid of a double triangle; area 0 if degenerate
static double mcc_triangle3(double nrm[3], double cen[3], const double* a, const double* b,
                            const double* d) {
  for (int k = 0; k < 3; k++) {
    cen[k] = (a[k] + b[k] + d[k]) / 3;
  }
  double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  double e2[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
  nrm[0] = e1[1] * e2[2] - e1[2] * e2[1];
  nrm[1] = e1[2] * e2[0] - e1[0] * e2[2];
  nrm[2] = e1[0] * e2[1] - e1[1] * e2[0];
  double len = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
  if (len < mcMINVAL) {
    nrm[0] = nrm[1] = nrm[2] = 0;
    return 0;
  }
  for (int k = 0; k < 3; k++) {
    nrm[k] /= len;
  }
  return len / 2;
}


// second moment integrand of a tetrahedron (origin, d, e, f) for axes i, j, in double
static double mcc_tetMoment3(const double* d, const double* e, const double* f, int i, int j) {
  double sq = d[i] * d[j] + e[i] * e[j] + f[i] * f[j];
  return 2 * sq + d[i] * e[j] + d[j] * e[i] + d[i] * f[j] + d[j] * f[i] + e[i] * f[j] +
         e[j] * f[i];
}


// volume (area for a shell), centre and unit-density inertia of mesh i as MuJoCo 3.3.8 computes
// them with <mesh inertia="legacy|convex|exact|shell"> (legacy without it); the mesh is moved to
// that frame
static void mcc_meshProcess(mcc* c, int i) {
  mccMeshData* md = c->meshdata + i;
  const char* name = MCC_AT(c->meshes, mccNamed, i)->name;
  int nv = md->nvert, mode = md->inertia;
  char file[1100];
  mcc_meshFileNote(md, file, sizeof(file));

  // float vertices, reference offset, reference rotation and scale in double
  double* v = (double*)malloc(sizeof(double) * 3 * (size_t)nv);
  if (!v) {
    mcc_error(c, md->elem, "out of memory");
  }
  md->vd = v;
  for (int k = 0; k < 3 * nv; k++) {
    v[k] = md->vert[k];
  }
  const mcNum* rp = md->refpos;
  const mcNum* rq = md->refquat;
  for (int k = 0; k < nv; k++) {
    for (int j = 0; j < 3; j++) {
      v[3 * k + j] -= rp[j];
    }
  }
  if (rq[0] != 1 || rq[1] != 0 || rq[2] != 0 || rq[3] != 0) {
    mcNum q[4] = {rq[0], rq[1], rq[2], rq[3]}, r[9];
    mcc_mjNormalize4(q);
    mcc_mjQuat2Mat(r, q);
    for (int k = 0; k < nv; k++) {
      double p[3] = {v[3 * k], v[3 * k + 1], v[3 * k + 2]};
      for (int j = 0; j < 3; j++) {
        v[3 * k + j] = r[j] * p[0] + r[3 + j] * p[1] + r[6 + j] * p[2];
      }
    }
  }
  for (int k = 0; k < nv; k++) {
    for (int j = 0; j < 3; j++) {
      v[3 * k + j] *= md->scale[j];
    }
  }

  // MuJoCo 3.3.8 measures a hull limited to maxhullvert vertices; Moduco's hulls are complete
  if (md->maxhullvert != -1 && (mode == MCC_MESH_CONVEX || md->hullfaces)) {
    mcc_error(c, md->elem, "mesh '%s'%s: maxhullvert=\"%d\" with inertia=\"%s\" is not "
              "supported yet (MuJoCo 3.3.8 would measure the reduced hull)", name, file,
              md->maxhullvert, mode == MCC_MESH_LEGACY ? "legacy" : mode == MCC_MESH_CONVEX
              ? "convex" : mode == MCC_MESH_EXACT ? "exact" : "shell");
  }

  // the triangles measured: the faces, or the hull of all vertices
  const int* face = md->face;
  int nf = md->nface;
  if (mode == MCC_MESH_CONVEX) {
    const char* why = mcc_flatness(md->vert, nv);
    if (why) {
      mcc_meshDegenerate(c, i, why);
    }
    mcc_runQhull(c, i, v, nv, mcc_hullTriangles);
    face = md->hullface;
    nf = md->nhullface;
  }

  // exact needs every edge traversed once each way (an edge twice the same way: a flipped face)
  int ea, eb;
  float pa[3], pb[3];
  if (mode == MCC_MESH_EXACT && mcc_windingEdge(c, i, &ea, &eb, pa, pb)) {
    mcc_error(c, md->elem, "mesh '%s'%s: faces are wound inconsistently: two faces traverse the "
              "edge from vertex %d (%g %g %g) to vertex %d (%g %g %g) in the same direction "
              "(vertices counted from 0); inertia=\"exact\" needs consistently oriented faces "
              "(fix the winding, or use inertia=\"legacy\", \"convex\" or \"shell\")", name,
              file, ea, pa[0], pa[1], pa[2], eb, pb[0], pb[1], pb[2]);
  }

  // MuJoCo 3.14 measures an exact mesh mirrored by its scale with the winding mirrored too, where
  // 3.3.8 (the legacy switch) turns it inside out and refuses it; faces read from a file are
  // flipped at load already (mcc_addTriangle), inline faces and the hull's are not
  const double det = md->scale[0] * md->scale[1] * md->scale[2];
  const double sgn = mode == MCC_MESH_EXACT && det < 0 && !mcc_getLegacyEig() &&
                     (md->hullfaces || !md->path[0]) ? -1 : 1;

  // area-weighted centroid of the faces: the shell's centre, the first pyramids' apex
  double nrm[3], cen[3], fc[3] = {0, 0, 0}, area = 0;
  for (int f = 0; f < nf; f++) {
    const int* t = face + 3 * f;
    double a = mcc_triangle3(nrm, cen, v + 3 * t[0], v + 3 * t[1], v + 3 * t[2]);
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

  // centre: of the surface (shell) or of the pyramids from fc (signed unless legacy)
  double com[3] = {fc[0], fc[1], fc[2]};
  if (mode != MCC_MESH_SHELL) {
    double vol = 0, sum[3] = {0, 0, 0};
    for (int f = 0; f < nf; f++) {
      const int* t = face + 3 * f;
      double a = mcc_triangle3(nrm, cen, v + 3 * t[0], v + 3 * t[1], v + 3 * t[2]);
      double h = (cen[0] - fc[0]) * nrm[0] + (cen[1] - fc[1]) * nrm[1] +
                 (cen[2] - fc[2]) * nrm[2];
      double pv = (mode == MCC_MESH_LEGACY ? fabs(h) : sgn * h) * a / 3;
      vol += pv;
      for (int j = 0; j < 3; j++) {
        sum[j] += pv * (cen[j] * 3.0 / 4.0 + fc[j] / 4.0);
      }
    }
    if (fabs(vol) < mcMINVAL) {
      const char* why = mcc_flatness(md->vert, nv);
      mcc_meshDegenerate(c, i, why ? why : "its volume is zero");
    }
    for (int j = 0; j < 3; j++) {
      com[j] = sum[j] / vol;
    }
  }
  memcpy(md->pos, com, sizeof(com));
  for (int k = 0; k < nv; k++) {
    for (int j = 0; j < 3; j++) {
      v[3 * k + j] -= com[j];
    }
  }

  // volume and products of inertia about the centre: pyramids with apex at the centre, or
  // triangles of the surface
  static const int pair[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
  double P[6] = {0, 0, 0, 0, 0, 0}, vol = 0;
  for (int f = 0; f < nf; f++) {
    const int* t = face + 3 * f;
    const double* d = v + 3 * t[0];
    const double* e = v + 3 * t[1];
    const double* g = v + 3 * t[2];
    double a = mcc_triangle3(nrm, cen, d, e, g);
    if (mode == MCC_MESH_SHELL) {
      vol += a;
      double sm[3] = {d[0] + e[0] + g[0], d[1] + e[1] + g[1], d[2] + e[2] + g[2]};
      for (int j = 0; j < 6; j++) {
        int p = pair[j][0], q = pair[j][1];
        P[j] += a / 12 * (d[p] * d[q] + e[p] * e[q] + g[p] * g[q] + sm[p] * sm[q]);
      }
    } else {
      double h = cen[0] * nrm[0] + cen[1] * nrm[1] + cen[2] * nrm[2];
      double pv = (mode == MCC_MESH_LEGACY ? fabs(h) : sgn * h) * a / 3;
      vol += pv;
      for (int j = 0; j < 6; j++) {
        P[j] += pv / 20 * mcc_tetMoment3(d, e, g, pair[j][0], pair[j][1]);
      }
    }
  }
  // MuJoCo (3.3.8 and 3.14) takes the hull of the file's vertices and mirrors it with a scale of
  // negative determinant, faces and all: the volume comes out negative, and it refuses the mesh
  if (mode == MCC_MESH_CONVEX && det < 0) {
    mcc_error(c, md->elem, "mesh '%s'%s: inertia=\"convex\" with a mirroring scale (%g %g %g): "
              "MuJoCo refuses it (its hull, wound for the unscaled vertices, turns inside out: "
              "negative volume); mirror the vertices in the file, or use inertia=\"legacy\", "
              "\"exact\" or \"shell\"", name, file, md->scale[0], md->scale[1], md->scale[2]);
  }
  if (mode == MCC_MESH_EXACT && vol < 0) {
    mcc_error(c, md->elem, "mesh '%s'%s: its volume is negative (%g): the faces are wound "
              "inward (clockwise seen from outside)%s; inertia=\"exact\" needs them counter-"
              "clockwise (reverse every face), as in MuJoCo", name, file, vol,
              det < 0 && sgn > 0 ? ", or turned inward by the mirroring scale" : "");
  }
  if (vol < mcMINVAL) {
    const char* why = mcc_flatness(md->vert, nv);
    mcc_meshDegenerate(c, i, why ? why : "its volume is zero");
  }
  md->volume = vol;
  mcNum full[9] = {
    P[1] + P[2], -P[3], -P[4],
    -P[3], P[0] + P[2], -P[5],
    -P[4], -P[5], P[0] + P[1],
  };
  mcNum eig[3];
  // MuJoCo 3.14 orders a mesh's principal axes at any scale (a swap when the second inertia
  // exceeds the first by more than 1e-12 of the largest); 3.3.8 (the legacy rule) by an absolute
  // 1e-12, so that a small mesh, whose unit-density inertia is below that scale, could keep an
  // unsorted frame (dm_dog's bones)
  mcc_eig3(eig, md->quat, full, MCC_EIG_MESH);
  mcNum emin = fmin(fmin(eig[0], eig[1]), eig[2]);
  if (!(emin > 0)) {
    mcc_error(c, md->elem, "mesh '%s'%s: smallest principal inertia %g is not positive: the "
              "mesh is (nearly) flat or tiny; check its scale and units, or merge tiny pieces",
              name, file, emin);
  }
  memcpy(md->inertia1, eig, sizeof(eig));

  // vertices into the principal frame: v' = R' v (double, then float)
  mcNum r[9];
  mcc_mjQuat2Mat(r, md->quat);
  md->aabb[0] = md->aabb[1] = md->aabb[2] = 0;
  for (int k = 0; k < nv; k++) {
    double p[3] = {v[3 * k], v[3 * k + 1], v[3 * k + 2]};
    for (int j = 0; j < 3; j++) {
      double x = p[0] * r[j] + p[1] * r[3 + j] + p[2] * r[6 + j];
      md->vert[3 * k + j] = (float)x;
      md->aabb[j] = fmax(md->aabb[j], fabs(x));
    }
  }
  free(md->vd);
  md->vd = NULL;
  free(md->hullface);
  md->hullface = NULL;
  md->nhullface = 0;
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
      md->hullfaces = 1;
    }
    mcc_meshProcess(c, i);
    if (md->graph) {
      md->tie = (int*)malloc(sizeof(int) * (size_t)md->nvert);
      if (md->tie && !mcc_meshTieChains(md->vert, md->nvert, md->graph, md->tie)) {
        free(md->tie);
        md->tie = NULL;
      }
    }
  }

  // mesh geoms and primitives sized from a mesh: offset by the mesh frame, size from the mesh
  for (int g = 0; g < c->geoms.n; g++) {
    mccGeomObj* go = MCC_AT(c->geoms, mccGeomObj, g);
    if ((go->s.type != mcGEOM_MESH && !go->fitmesh) || go->meshid < 0) {
      continue;
    }
    const mccMeshData* md = c->meshdata + go->meshid;
    if (go->s.shellinertia) {
      mcc_error(c, go->elem, "geom%s%s%s: shellinertia=\"true\" is for primitive geoms; a mesh "
                "geom's mass distribution is chosen on its mesh: <mesh name=\"%s\" "
                "inertia=\"shell\"> (as MuJoCo 3.3.8 requires)", go->name ? " '" : "",
                go->name ? go->name : "", go->name ? "'" : "",
                MCC_AT(c->meshes, mccNamed, go->meshid)->name);
    }
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
    if (go->fitmesh) {
      mcc_fitPrimitive(c, go, md);
    } else {
      memcpy(go->s.size, md->aabb, sizeof(md->aabb));
    }
  }
}


void mcc_meshGeomInertia(const mcc* c, int meshid, mcNum* vol, mcNum inertia[3]) {
  const mccMeshData* md = c->meshdata + meshid;
  *vol = md->volume;
  memcpy(inertia, md->inertia1, sizeof(md->inertia1));
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
    m->mesh_tied[i] = md->tie != NULL;
    for (int k = 0; k < md->nvert; k++) {
      m->mesh_tie[vadr + k] = md->tie ? md->tie[k] : -1;
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
    free(md->tie);
    free(md->buf);
    free(md->scratch);
    free(md->vd);
    free(md->hullface);
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
