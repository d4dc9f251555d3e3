// Moduco core: mesh file readers (binary and ASCII STL, OBJ, MuJoCo MSH).
//
// The readers reproduce what MuJoCo 2.2.2 stores: binary STL triangles are read as floats and
// bit-identical vertices merged; OBJ faces are expanded to three fresh vertices each (only the
// first group, as MuJoCo's OBJ loader keeps only its first shape); a left-handed scale flips the
// winding. One exception: an OBJ quad is split along its shorter diagonal as MuJoCo 3.14 does
// (2.2.2 and 3.3.8 fan it from its first corner: the legacy switch mcc_setLegacyEig). Every
// malformed file gives `file:line: message` naming the mesh file, never a crash.
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compiler/compiler_mesh.h"

// largest mesh or height-field file read (the largest corpus mesh is a few MB)
#define MCC_ASSET_MAXBYTES ((size_t)1 << 30)

// most triangles MuJoCo 2.2.2 accepts in one STL file
#define MCC_STL_MAXFACE 200000

//---------------------------------- growable arrays -----------------------------------------------

void mcc_meshAddVert(mcc* c, mccMeshData* md, const float v[3]) {
  // a NaN or infinite coordinate would crash qhull (found by fuzz_mesh)
  if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2])) {
    mcc_error(c, md->elem, "mesh file '%s': vertex %d has a NaN or infinite coordinate",
              md->path, md->nvert);
  }
  if (md->nvert == md->cvert) {
    int cap = md->cvert ? 2 * md->cvert : 256;
    if (cap > (1 << 26)) {
      mcc_error(c, md->elem, "mesh file '%s' has too many vertices", md->path);
    }
    float* p = (float*)realloc(md->vert, sizeof(float) * 3 * (size_t)cap);
    if (!p) {
      mcc_error(c, md->elem, "out of memory reading mesh file '%s'", md->path);
    }
    md->vert = p;
    md->cvert = cap;
  }
  memcpy(md->vert + 3 * md->nvert, v, sizeof(float) * 3);
  md->nvert++;
}


void mcc_meshAddFace(mcc* c, mccMeshData* md, int a, int b, int cc) {
  if (md->nface == md->cface) {
    int cap = md->cface ? 2 * md->cface : 256;
    if (cap > (1 << 26)) {
      mcc_error(c, md->elem, "mesh file '%s' has too many faces", md->path);
    }
    int* p = (int*)realloc(md->face, sizeof(int) * 3 * (size_t)cap);
    if (!p) {
      mcc_error(c, md->elem, "out of memory reading mesh file '%s'", md->path);
    }
    md->face = p;
    md->cface = cap;
  }
  int* f = md->face + 3 * md->nface;
  f[0] = a;
  f[1] = b;
  f[2] = cc;
  md->nface++;
}


//---------------------------------- files ---------------------------------------------------------

// does a path name anything (stat only: opening a FIFO would block)
static int mcc_fileExists(const char* path) {
  struct stat st;
  return stat(path, &st) == 0;
}

void mcc_assetFile(const mcc* c, const mcxElem* e, const char* rel, char* out, int out_sz) {
  mcx_joinPath(mcc_scope(c, e)->dir, rel, out, out_sz);
  if (mcc_fileExists(out) || !e->file || rel[0] == '/') {
    return;
  }
  // the folder of the element's own file
  char dir[1024], cand[2048];
  snprintf(dir, sizeof(dir), "%s", e->file);
  char* slash = strrchr(dir, '/');
  if (!slash) {
    return;
  }
  slash[1] = 0;
  mcx_joinPath(dir, rel, cand, sizeof(cand));
  if (mcc_fileExists(cand) && (int)strlen(cand) < out_sz) {
    snprintf(out, (size_t)out_sz, "%s", cand);
  }
}


size_t mcc_assetReadFile(mcc* c, const mcxElem* e, const char* kind, const char* path,
                         char** buf) {
  // only regular files: a folder named x.stl, /dev/zero or a FIFO is refused before reading
  // (stat before opening too: opening a FIFO for reading would block)
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    mcc_error(c, e, "%s file '%s' is not a regular file (a folder, a device or a pipe)", kind,
              path);
  }
  FILE* f = fopen(path, "rb");
  if (!f) {
    mcc_error(c, e, "could not open %s file '%s': %s", kind, path, strerror(errno));
  }
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    mcc_error(c, e, "%s file '%s' is not a regular file (a folder, a device or a pipe)", kind,
              path);
  }
  if (st.st_size < 0 || (unsigned long long)st.st_size > MCC_ASSET_MAXBYTES) {
    fclose(f);
    mcc_error(c, e, "%s file '%s' has %lld bytes; at most %llu are read", kind, path,
              (long long)st.st_size, (unsigned long long)MCC_ASSET_MAXBYTES);
  }
  size_t len = (size_t)st.st_size;

  // one spare byte keeps text parsers inside the buffer
  *buf = (char*)malloc(len + 1);
  if (!*buf) {
    fclose(f);
    mcc_error(c, e, "out of memory reading %s file '%s' (%zu bytes)", kind, path, len);
  }
  size_t got = fread(*buf, 1, len, f);
  fclose(f);
  if (got != len) {
    mcc_error(c, e, "could not read %s file '%s'", kind, path);
  }
  (*buf)[len] = 0;
  return len;
}


size_t mcc_meshReadFile(mcc* c, const mcxElem* e, const char* path, char** buf) {
  return mcc_assetReadFile(c, e, "mesh", path, buf);
}


// is the scale right-handed (a mirror flips the winding of every face)
static int mcc_righthand(const mccMeshData* md) {
  return md->scale[0] * md->scale[1] * md->scale[2] > 0;
}


// add a triangle of three fresh vertices, winding flipped for a mirroring scale
static void mcc_addTriangle(mcc* c, mccMeshData* md, const float v[9]) {
  int first = md->nvert;
  for (int k = 0; k < 3; k++) {
    mcc_meshAddVert(c, md, v + 3 * k);
  }
  if (mcc_righthand(md)) {
    mcc_meshAddFace(c, md, first, first + 1, first + 2);
  } else {
    mcc_meshAddFace(c, md, first, first + 2, first + 1);
  }
}


//---------------------------------- STL -----------------------------------------------------------

// little-endian 32-bit reads (STL is little-endian on every platform)
static uint32_t mcc_u32(const unsigned char* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}


static float mcc_f32(const unsigned char* p) {
  uint32_t u = mcc_u32(p);
  float f;
  memcpy(&f, &u, sizeof(f));
  return f;
}


// skip blanks; return the next word and advance (words end at whitespace)
static const char* mcc_word(const char** s, size_t* n) {
  const char* p = *s;
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
    p++;
  }
  const char* w = p;
  while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
    p++;
  }
  *n = (size_t)(p - w);
  *s = p;
  return w;
}


// line number of position p in buf
static int mcc_lineOf(const char* buf, const char* p) {
  int line = 1;
  for (const char* q = buf; q < p; q++) {
    line += *q == '\n';
  }
  return line;
}


// ASCII STL: "facet normal ... outer loop vertex x y z (x3) endloop endfacet"
static void mcc_loadSTLText(mcc* c, mccMeshData* md, const char* buf) {
  const char* s = buf;
  float tri[9];
  int nv = -1;                    // vertices in the current facet; -1 outside a facet
  int nfacet = 0;
  for (;;) {
    size_t n;
    const char* w = mcc_word(&s, &n);
    if (!n) {
      break;
    }
    if (n == 5 && !strncmp(w, "facet", 5)) {
      if (nv >= 0) {
        mcc_error(c, md->elem, "ASCII STL file '%s' line %d: 'facet' inside a facet", md->path,
                  mcc_lineOf(buf, w));
      }
      nv = 0;
    } else if (n == 6 && !strncmp(w, "vertex", 6)) {
      if (nv < 0 || nv >= 3) {
        mcc_error(c, md->elem, "ASCII STL file '%s' line %d: %s", md->path, mcc_lineOf(buf, w),
                  nv < 0 ? "'vertex' outside a facet" : "facet has more than 3 vertices");
      }
      for (int k = 0; k < 3; k++) {
        char* end;
        double x = strtod(s, &end);
        if (end == s) {
          mcc_error(c, md->elem, "ASCII STL file '%s' line %d: bad vertex coordinate", md->path,
                    mcc_lineOf(buf, s));
        }
        tri[3 * nv + k] = (float)x;
        s = end;
      }
      nv++;
    } else if (n == 8 && !strncmp(w, "endfacet", 8)) {
      if (nv != 3) {
        mcc_error(c, md->elem, "ASCII STL file '%s' line %d: facet has %d vertices, not 3",
                  md->path, mcc_lineOf(buf, w), nv < 0 ? 0 : nv);
      }
      mcc_addTriangle(c, md, tri);
      nfacet++;
      nv = -1;
    } else if (n == 5 && !strncmp(w, "solid", 5)) {
      // the solid's name runs to the end of the line
      while (*s && *s != '\n') {
        s++;
      }
    }
    // normal components, "outer", "loop", "endloop", "endsolid": nothing to do
  }
  if (nv >= 0) {
    mcc_error(c, md->elem, "ASCII STL file '%s' ends inside a facet (truncated file?)", md->path);
  }
  if (!nfacet) {
    mcc_error(c, md->elem, "ASCII STL file '%s' has no facets", md->path);
  }
}


void mcc_loadSTL(mcc* c, mccMeshData* md) {
  size_t len = mcc_meshReadFile(c, md->elem, md->path, &md->buf);
  const unsigned char* b = (const unsigned char*)md->buf;

  // binary layout: 80-byte header, uint32 count, 50 bytes per triangle
  int text = len >= 5 && !strncmp(md->buf, "solid", 5);
  uint32_t nface = len >= 84 ? mcc_u32(b + 80) : 0;
  int binary_ok = len >= 84 && (uint64_t)nface * 50 + 84 == (uint64_t)len;
  if (text && !binary_ok) {
    mcc_loadSTLText(c, md, md->buf);
  } else {
    if (len < 84) {
      mcc_error(c, md->elem, "STL file '%s' is too short (%zu bytes) for the 84-byte binary "
                "header", md->path, len);
    }
    if (nface < 1) {
      mcc_error(c, md->elem, "binary STL file '%s' declares no triangles", md->path);
    }
    if (!binary_ok) {
      mcc_error(c, md->elem, "binary STL file '%s' declares %u triangles (%llu bytes) but has "
                "%zu bytes: truncated or corrupt file", md->path, nface,
                (unsigned long long)nface * 50 + 84, len);
    }
    if (nface > MCC_STL_MAXFACE) {
      mcc_error(c, md->elem, "STL file '%s' has %u triangles; at most %d are supported per mesh "
                "(as in MuJoCo): decimate the mesh or split it into several meshes",
                md->path, nface, MCC_STL_MAXFACE);
    }
    for (uint32_t i = 0; i < nface; i++) {
      float tri[9];
      for (int k = 0; k < 9; k++) {
        tri[k] = mcc_f32(b + 84 + 50 * (size_t)i + 12 + 4 * k);
      }
      mcc_addTriangle(c, md, tri);
    }
  }
  free(md->buf);
  md->buf = NULL;
  mcc_meshRemoveRepeated(c, md);
}


//---------------------------------- repeated vertices ---------------------------------------------

// sort record: MuJoCo's float sort key, ties by index (a stable order)
typedef struct mccVertKey_ {
  float key;
  int index;
} mccVertKey;


static int mcc_vertKeyCmp(const void* a, const void* b) {
  const mccVertKey* x = (const mccVertKey*)a;
  const mccVertKey* y = (const mccVertKey*)b;
  if (x->key != y->key) {
    return x->key < y->key ? -1 : 1;
  }
  return (x->index > y->index) - (x->index < y->index);
}


void mcc_meshRemoveRepeated(mcc* c, mccMeshData* md) {
  int n = md->nvert;
  if (n < 2) {
    return;
  }

  // keep the work arrays in md->buf so an error frees them
  size_t bytes = sizeof(mccVertKey) * (size_t)n + 2 * sizeof(int) * (size_t)n;
  md->buf = (char*)malloc(bytes);
  if (!md->buf) {
    mcc_error(c, md->elem, "out of memory merging vertices of mesh file '%s'", md->path);
  }
  mccVertKey* keys = (mccVertKey*)md->buf;
  int* redirect = (int*)(keys + n);
  int* newid = redirect + n;
  const float* v = md->vert;
  for (int i = 0; i < n; i++) {
    keys[i].key = (float)(v[3 * i] + 1e-2 * v[3 * i + 1] + 1e-4 * v[3 * i + 2]);
    keys[i].index = i;
    redirect[i] = i;
  }
  qsort(keys, (size_t)n, sizeof(mccVertKey), mcc_vertKeyCmp);

  // only neighbours in sorted order are compared (as in MuJoCo: equal keys may interleave)
  int repeated = 0;
  for (int i = 1; i < n; i++) {
    const float* a = v + 3 * keys[i].index;
    const float* p = v + 3 * keys[i - 1].index;
    if (a[0] == p[0] && a[1] == p[1] && a[2] == p[2]) {
      redirect[keys[i].index] = keys[i - 1].index;
      repeated++;
    }
  }
  if (repeated) {
    for (int i = 0; i < n; i++) {
      int j = i;
      while (redirect[j] != j) {
        j = redirect[j];
      }
      redirect[i] = j;
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
      if (redirect[i] == i) {
        newid[i] = k;
        memmove(md->vert + 3 * k, md->vert + 3 * i, sizeof(float) * 3);
        k++;
      } else {
        newid[i] = -1;
      }
    }
    for (int i = 0; i < 3 * md->nface; i++) {
      md->face[i] = newid[redirect[md->face[i]]];
    }
    md->nvert = k;
  }
  free(md->buf);
  md->buf = NULL;
}


//---------------------------------- OBJ -----------------------------------------------------------

// parse one OBJ face corner "v", "v/vt", "v//vn" or "v/vt/vn"; return the 0-based vertex index
static int mcc_objIndex(mcc* c, mccMeshData* md, const char* w, size_t n, int nv, int line) {
  char* end;
  long idx = strtol(w, &end, 10);
  if (end == w || (end < w + n && *end != '/')) {
    mcc_error(c, md->elem, "OBJ file '%s' line %d: bad face index '%.*s'", md->path, line,
              (int)n, w);
  }
  long id = idx > 0 ? idx - 1 : nv + idx;
  if (idx == 0 || id < 0 || id >= nv) {
    mcc_error(c, md->elem, "OBJ file '%s' line %d: face index %ld out of range (%d vertices so "
              "far)", md->path, line, idx, nv);
  }
  return (int)id;
}


// An OBJ face of exactly four corners (text from after the 'f' to eol) as MuJoCo 3.14 splits it
// (probed on 54 random non-planar quads and a square: the two triangles share the shorter
// diagonal, corners 0-2 if strictly shorter than 1-3, else 1-3), added to md; 0 (nothing added)
// when the face does not have four corners, which then go through the fan of 2.2.2
static int mcc_objQuad(mcc* c, mccMeshData* md, const char* q, const char* eol, const float* pts,
                       int npts, int line) {
  const char* tok[5];
  size_t len[5];
  int n = 0;
  for (;;) {
    while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r')) {
      q++;
    }
    if (q >= eol) {
      break;
    }
    if (n == 5) {
      return 0;
    }
    tok[n] = q;
    while (q < eol && *q != ' ' && *q != '\t' && *q != '\r') {
      q++;
    }
    len[n] = (size_t)(q - tok[n]);
    n++;
  }
  if (n != 4) {
    return 0;
  }
  int id[4];
  for (int k = 0; k < 4; k++) {
    id[k] = mcc_objIndex(c, md, tok[k], len[k], npts, line);
  }
  double d02 = 0, d13 = 0;
  for (int k = 0; k < 3; k++) {
    double a = (double)pts[3 * id[2] + k] - pts[3 * id[0] + k];
    double b = (double)pts[3 * id[3] + k] - pts[3 * id[1] + k];
    d02 += a * a;
    d13 += b * b;
  }
  static const int split02[6] = {0, 1, 2, 0, 2, 3}, split13[6] = {0, 1, 3, 1, 2, 3};
  const int* corner = d02 < d13 ? split02 : split13;
  for (int t = 0; t < 2; t++) {
    float tri[9];
    for (int k = 0; k < 3; k++) {
      memcpy(tri + 3 * k, pts + 3 * id[corner[3 * t + k]], sizeof(float) * 3);
    }
    mcc_addTriangle(c, md, tri);
  }
  return 1;
}


void mcc_loadOBJ(mcc* c, mccMeshData* md) {
  mcc_meshReadFile(c, md->elem, md->path, &md->buf);

  // vertices of the file go to md->scratch (a float array); faces expand into md->vert
  float* pts = NULL;
  int npts = 0, cpts = 0;
  int nfacepts = 0, shape_done = 0, line = 0;
  const char* s = md->buf;
  while (*s) {
    line++;
    const char* eol = s;
    while (*eol && *eol != '\n') {
      eol++;
    }
    const char* p = s;
    while (p < eol && (*p == ' ' || *p == '\t')) {
      p++;
    }
    if (p + 1 < eol && p[0] == 'v' && (p[1] == ' ' || p[1] == '\t')) {
      // vertex: x y z [w]
      if (npts == cpts) {
        int cap = cpts ? 2 * cpts : 1024;
        float* q = (float*)realloc(md->scratch, sizeof(float) * 3 * (size_t)cap);
        if (!q || cap > (1 << 26)) {
          mcc_error(c, md->elem, "out of memory reading OBJ file '%s'", md->path);
        }
        md->scratch = pts = q;
        cpts = cap;
      }
      const char* q = p + 1;
      for (int k = 0; k < 3; k++) {
        char* end;
        double x = strtod(q, &end);
        if (end == q || end > eol) {
          mcc_error(c, md->elem, "OBJ file '%s' line %d: vertex needs 3 coordinates", md->path,
                    line);
        }
        pts[3 * npts + k] = (float)x;
        q = end;
      }
      npts++;
    } else if (p + 1 < eol && p[0] == 'f' && (p[1] == ' ' || p[1] == '\t') && !shape_done &&
               !mcc_getLegacyEig() && mcc_objQuad(c, md, p + 1, eol, pts, npts, line)) {
      nfacepts += 2;
    } else if (p + 1 < eol && p[0] == 'f' && (p[1] == ' ' || p[1] == '\t') && !shape_done) {
      // face: a fan of triangles over the polygon's corners
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
        int id = mcc_objIndex(c, md, w, (size_t)(q - w), npts, line);
        if (ncorner < 3) {
          corner[ncorner++] = id;
        } else {
          corner[1] = corner[2];
          corner[2] = id;
        }
        if (ncorner == 3) {
          float tri[9];
          for (int k = 0; k < 3; k++) {
            memcpy(tri + 3 * k, pts + 3 * corner[k], sizeof(float) * 3);
          }
          mcc_addTriangle(c, md, tri);
          nfacepts++;
          if (q < eol) {
            // later corners fan around the first one
            continue;
          }
        }
      }
      if (ncorner < 3) {
        mcc_error(c, md->elem, "OBJ file '%s' line %d: face needs at least 3 vertices",
                  md->path, line);
      }
    } else if (p + 1 < eol && (p[0] == 'o' || p[0] == 'g') && (p[1] == ' ' || p[1] == '\t') &&
               nfacepts) {
      // a new object or group after faces: MuJoCo keeps only the first one
      shape_done = 1;
    }
    s = *eol ? eol + 1 : eol;
  }

  // no faces: the vertices alone (the convex hull supplies the faces)
  if (!nfacepts) {
    for (int i = 0; i < npts; i++) {
      mcc_meshAddVert(c, md, pts + 3 * i);
    }
  }
  free(md->scratch);
  md->scratch = NULL;
  free(md->buf);
  md->buf = NULL;
  if (!md->nvert) {
    mcc_error(c, md->elem, "OBJ file '%s' has no vertices", md->path);
  }
}


//---------------------------------- MSH -----------------------------------------------------------

// MuJoCo's binary mesh: int32 nvert, nnormal, ntexcoord, nface, then the arrays
void mcc_loadMSH(mcc* c, mccMeshData* md) {
  size_t len = mcc_meshReadFile(c, md->elem, md->path, &md->buf);
  const unsigned char* b = (const unsigned char*)md->buf;
  if (len < 16) {
    mcc_error(c, md->elem, "MSH file '%s' is too short for its 16-byte header", md->path);
  }
  int32_t hdr[4];
  for (int k = 0; k < 4; k++) {
    hdr[k] = (int32_t)mcc_u32(b + 4 * k);
  }
  int nv = hdr[0], nn = hdr[1], nt = hdr[2], nf = hdr[3];
  if (nv < 4 || nf < 0 || nn < 0 || nt < 0 || (nn && nn != nv) || (nt && nt != nv) ||
      nv > (1 << 26) || nf > (1 << 26)) {
    mcc_error(c, md->elem, "invalid sizes in MSH file '%s' (nvert %d, nnormal %d, ntexcoord %d, "
              "nface %d)", md->path, nv, nn, nt, nf);
  }
  uint64_t want = 16 + 12 * (uint64_t)nv + 12 * (uint64_t)nn + 8 * (uint64_t)nt +
                  12 * (uint64_t)nf;
  if (want != len) {
    mcc_error(c, md->elem, "MSH file '%s' has %zu bytes, its header implies %llu", md->path, len,
              (unsigned long long)want);
  }
  for (int i = 0; i < nv; i++) {
    float v[3] = {mcc_f32(b + 16 + 12 * (size_t)i), mcc_f32(b + 20 + 12 * (size_t)i),
                  mcc_f32(b + 24 + 12 * (size_t)i)};
    mcc_meshAddVert(c, md, v);
  }
  size_t fadr = 16 + 12 * (size_t)nv + 12 * (size_t)nn + 8 * (size_t)nt;
  for (int i = 0; i < nf; i++) {
    int f[3];
    for (int k = 0; k < 3; k++) {
      f[k] = (int32_t)mcc_u32(b + fadr + 12 * (size_t)i + 4 * k);
    }
    if (mcc_righthand(md)) {
      mcc_meshAddFace(c, md, f[0], f[1], f[2]);
    } else {
      mcc_meshAddFace(c, md, f[0], f[2], f[1]);
    }
  }
  free(md->buf);
  md->buf = NULL;
}
