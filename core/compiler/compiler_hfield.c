// Moduco core: height-field assets (inline nrow/ncol/elevation or MuJoCo's binary file).
//
// The binary file is int32 nrow, int32 ncol, then nrow*ncol float32 elevations, row-major, with
// nothing after them; its rows are stored as read (row 0 at -y). An inline elevation list is
// written top row first, as an image is: MuJoCo 3.3.8 stores its rows in reverse order, so the
// first row written is the last row of hfield_data (at +y); Moduco does the same (MuJoCo 2.2.2
// has no inline elevation). Elevations are then normalized as MuJoCo 2.2.2 and 3.3.8 do (measured
// on both): subtract the minimum, then divide by the range if it exceeds mcMINVAL (a constant
// field becomes all zeros, one of a smaller range is only shifted), where the minimum is taken
// over the data and +1e10 and the maximum over the data and -1e10 (so a field wholly above 1e10
// does not reach 0, one wholly below -1e10 does not reach 1). Collision scales the result by
// size[2]; size is stored as given. A PNG file gives grey levels 0..255 (compiler_png.c), its
// top row last (+y), then normalized the same way: as MuJoCo 3.14 reads it.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compiler/compiler_mesh.h"
#include "compiler/compiler_png.h"

// the normalization's starting minimum (and, negated, maximum), as measured in MuJoCo
#define HFIELD_BOUND 1e10f

// resolve a height-field file against the model folder (and assetdir, as in MuJoCo 3)
static void mcc_hfieldPath(mcc* c, const mcxElem* e, const char* file, char* out, int out_sz) {
  const char* dir = NULL;
  const mcxElem* root = c->tree->root;
  for (int k = 0; k < root->nchild; k++) {
    const mcxElem* ch = root->child[k];
    if (!strcmp(ch->name, "compiler") && mcx_attr(ch, "assetdir")) {
      dir = mcx_attr(ch, "assetdir");
    }
  }
  char tmp[1024];
  mcx_joinPath(dir ? dir : "", file, tmp, sizeof(tmp));
  mcc_assetFile(c, e, tmp, out, out_sz);
}


// reverse the order of the rows of a grid (written top row first, stored +y last)
static void mcc_flipRows(float* data, int nrow, int ncol) {
  for (int r = 0; r < nrow / 2; r++) {
    float* a = data + (size_t)r * (size_t)ncol;
    float* b = data + (size_t)(nrow - 1 - r) * (size_t)ncol;
    for (int k = 0; k < ncol; k++) {
      float t = a[k];
      a[k] = b[k];
      b[k] = t;
    }
  }
}


// a PNG image into hd: grey levels 0..255 (compiler_png.c), the image's top row last (+y)
static void mcc_hfieldPng(mcc* c, const mcxElem* e, const char* name, mccHfieldData* hd,
                          const char* path, size_t len) {
  char why[256];
  int w = 0, h = 0;
  float* grey = mcc_pngGrey(hd->buf, len, 1 << 28, &w, &h, why, sizeof(why));
  free(hd->buf);
  hd->buf = NULL;
  if (!grey) {
    mcc_error(c, e, "hfield '%s': file '%s' is not a readable PNG image (libpng: %s)", name, path,
              why);
  }
  hd->nrow = h;
  hd->ncol = w;
  hd->data = grey;
  mcc_flipRows(grey, h, w);
}


// read the custom binary format, or a PNG image (png: by name or content type, or by its
// signature), into hd
static void mcc_hfieldFile(mcc* c, const mcxElem* e, const char* name, mccHfieldData* hd,
                           const char* path, int png) {
  size_t len = mcc_assetReadFile(c, e, "height-field", path, &hd->buf);
  const unsigned char* b = (const unsigned char*)hd->buf;
  if (png || (len >= 8 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8))) {
    mcc_hfieldPng(c, e, name, hd, path, len);
    return;
  }
  if (len < 8) {
    mcc_error(c, e, "hfield '%s': file '%s' is too short for its 8-byte header (int32 nrow, "
              "int32 ncol)", name, path);
  }
  int32_t dims[2];
  memcpy(dims, b, sizeof(dims));
  if (dims[0] < 1 || dims[1] < 1 || dims[0] > (1 << 15) || dims[1] > (1 << 15)) {
    mcc_error(c, e, "hfield '%s': file '%s' has invalid size %d x %d", name, path, dims[0],
              dims[1]);
  }
  uint64_t want = 8 + 4 * (uint64_t)dims[0] * (uint64_t)dims[1];
  if (want != len) {
    mcc_error(c, e, "hfield '%s': file '%s' has %zu bytes, but %d x %d floats need %llu",
              name, path, len, dims[0], dims[1], (unsigned long long)want);
  }
  hd->nrow = dims[0];
  hd->ncol = dims[1];
  hd->data = (float*)malloc(sizeof(float) * (size_t)dims[0] * (size_t)dims[1]);
  if (!hd->data) {
    mcc_error(c, e, "out of memory");
  }
  memcpy(hd->data, b + 8, sizeof(float) * (size_t)dims[0] * (size_t)dims[1]);
  for (size_t k = 0; k < (size_t)dims[0] * (size_t)dims[1]; k++) {
    if (!isfinite(hd->data[k])) {
      mcc_error(c, e, "hfield '%s': file '%s' has a non-finite elevation (%g) at row %d, column "
                "%d", name, path, (double)hd->data[k], (int)(k / (size_t)dims[1]),
                (int)(k % (size_t)dims[1]));
    }
  }
  free(hd->buf);
  hd->buf = NULL;
}


void mcc_compileHfields(mcc* c) {
  int n = c->hfields.n;
  if (!n) {
    return;
  }
  c->hfielddata = (mccHfieldData*)calloc((size_t)n, sizeof(mccHfieldData));
  if (!c->hfielddata) {
    mcc_error(c, NULL, "out of memory");
  }
  for (int i = 0; i < n; i++) {
    mccHfieldData* hd = c->hfielddata + i;
    const mcxElem* e = MCC_AT(c->hfields, mccNamed, i)->elem;
    const char* name = MCC_AT(c->hfields, mccNamed, i)->name;
    mcc_checkAttrs(c, e, "name class file content_type nrow ncol elevation size");

    // size: (x, y, z_top, z_bottom)
    const mcxElem* owner;
    if (!mcc_assetAttr(c, e, "size", &owner)) {
      mcc_error(c, e, "hfield '%s' requires attribute 'size' (x y z_top z_bottom)", name);
    }
    mcc_readNums(c, owner, "size", hd->size, 4, 4);
    // all four positive, as both MuJoCo 2.2.2 and 3.3.8 require (z_bottom 0 would leave the
    // prisms under the surface without a base: no depth below the lowest sample)
    if (!(hd->size[0] > 0 && hd->size[1] > 0 && hd->size[2] > 0 && hd->size[3] > 0)) {
      mcc_error(c, e, "hfield '%s': size %g %g %g %g must be positive (x, y, z_top, z_bottom)",
                name, hd->size[0], hd->size[1], hd->size[2], hd->size[3]);
    }

    // grid from the file or from nrow/ncol
    const char* file = mcx_attr(e, "file");
    int nrow = 0, ncol = 0;
    int has_nrow = mcc_readInt(c, e, "nrow", &nrow);
    int has_ncol = mcc_readInt(c, e, "ncol", &ncol);
    if (file) {
      if (has_nrow || has_ncol || mcx_attr(e, "elevation")) {
        mcc_error(c, e, "hfield '%s': give either a file or nrow/ncol/elevation, not both",
                  name);
      }
      char path[1024];
      mcc_hfieldPath(c, e, file, path, sizeof(path));
      const char* ct = mcx_attr(e, "content_type");
      int png = (strlen(file) >= 4 && !strcasecmp(file + strlen(file) - 4, ".png")) ||
                (ct && !strcmp(ct, "image/png"));
      mcc_hfieldFile(c, e, name, hd, path, png);
    } else {
      if (nrow < 1 || ncol < 1) {
        mcc_error(c, e, "hfield '%s' needs a file, or positive nrow and ncol (got %d x %d)",
                  name, nrow, ncol);
      }
      if ((int64_t)nrow * ncol > (1 << 28)) {
        mcc_error(c, e, "hfield '%s': %d x %d is too large", name, nrow, ncol);
      }
      hd->nrow = nrow;
      hd->ncol = ncol;
      int cnt = nrow * ncol;
      hd->data = (float*)calloc((size_t)cnt, sizeof(float));
      if (!hd->data) {
        mcc_error(c, e, "out of memory");
      }
      int ne = mcc_countNums(c, e, "elevation");
      if (ne >= 0 && ne != cnt) {
        mcc_error(c, e, "hfield '%s': elevation has %d numbers, nrow x ncol = %d", name, ne,
                  cnt);
      }
      if (ne > 0) {
        mcc_readFloats(c, e, "elevation", hd->data, cnt, cnt);
        // the first row written is the last row of the grid (+y)
        mcc_flipRows(hd->data, nrow, ncol);
      }
    }

    // normalize to [0, 1]; the bounds start at +-1e10 (see the top of the file)
    int cnt = hd->nrow * hd->ncol;
    float lo = HFIELD_BOUND, hi = -HFIELD_BOUND;
    for (int k = 0; k < cnt; k++) {
      if (!isfinite(hd->data[k])) {
        mcc_error(c, e, "hfield '%s': elevation %d is not finite", name, k);
      }
      lo = fminf(lo, hd->data[k]);
      hi = fmaxf(hi, hd->data[k]);
    }
    float range = hi - lo;
    for (int k = 0; k < cnt; k++) {
      hd->data[k] -= lo;
      if (range > mcMINVAL) {
        hd->data[k] /= range;
      }
    }
  }
}


void mcc_hfieldTotals(const mcc* c, int* ndata) {
  *ndata = 0;
  for (int i = 0; i < c->hfields.n && c->hfielddata; i++) {
    *ndata += c->hfielddata[i].nrow * c->hfielddata[i].ncol;
  }
}


void mcc_fillHfields(const mcc* c, mcModel* m) {
  int adr = 0;
  for (int i = 0; i < m->nhfield; i++) {
    const mccHfieldData* hd = c->hfielddata + i;
    m->hfield_nrow[i] = hd->nrow;
    m->hfield_ncol[i] = hd->ncol;
    memcpy(m->hfield_size + 4 * i, hd->size, sizeof(hd->size));
    m->hfield_adr[i] = adr;
    int cnt = hd->nrow * hd->ncol;
    memcpy(m->hfield_data + adr, hd->data, sizeof(float) * (size_t)cnt);
    adr += cnt;
  }
}
