// Moduco core: PNG images decoded to grey levels with libpng (height fields).
//
// Grey levels as MuJoCo 3.14 reads a height-field PNG (measured with 8- and 16-bit grey,
// grey+alpha, RGB, RGBA and palette images): palette entries are expanded to their colour, bit
// depths below 8 expanded to 8 bits, 16-bit samples cut to their high byte, alpha dropped, and a
// colour pixel gives its red channel; the value is the 8-bit level 0..255. Image row 0 (the top)
// comes first.
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler_png.h"

// a memory source, the first libpng error message and the buffers of the decode (owned by
// mcc_pngGrey, so a libpng error jumping out of the decode leaks none)
typedef struct {
  const unsigned char* buf;
  size_t len, pos;
  char* err;
  int err_sz;
  unsigned char* pixels;
  png_bytep* rows;
  float* grey;
} mccPngRead;

static void mcc_pngError(png_structp png, png_const_charp msg) {
  mccPngRead* r = (mccPngRead*)png_get_error_ptr(png);
  snprintf(r->err, (size_t)r->err_sz, "%s", msg);
  png_longjmp(png, 1);
}

static void mcc_pngWarning(png_structp png, png_const_charp msg) {
  (void)png;
  (void)msg;
}

static void mcc_pngData(png_structp png, png_bytep out, png_size_t n) {
  mccPngRead* r = (mccPngRead*)png_get_io_ptr(png);
  if (n > r->len - r->pos) {
    png_error(png, "the file ends inside the image data");
  }
  memcpy(out, r->buf + r->pos, n);
  r->pos += n;
}


// decode with the longjmp target of libpng; 0 on success
static int mcc_pngDecode(png_structp png, png_infop info, mccPngRead* r, int maxpixels,
                         int* width, int* height) {
  if (setjmp(png_jmpbuf(png))) {
    return 1;
  }
  png_set_read_fn(png, r, mcc_pngData);
  png_read_info(png, info);
  png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
  if ((unsigned long long)w * h > (unsigned long long)maxpixels) {
    snprintf(r->err, (size_t)r->err_sz, "%u x %u pixels is too large", (unsigned)w, (unsigned)h);
    return 1;
  }

  // to 8-bit grey, grey+alpha, RGB or RGBA, one pass per row (no interlacing left)
  png_set_expand(png);
  png_set_strip_16(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  int channels = png_get_channels(png, info);
  size_t rowbytes = png_get_rowbytes(png, info);
  if (png_get_bit_depth(png, info) != 8 || channels < 1 || channels > 4 ||
      rowbytes != (size_t)w * (size_t)channels) {
    snprintf(r->err, (size_t)r->err_sz, "unexpected pixel layout after conversion");
    return 1;
  }
  r->pixels = (unsigned char*)malloc(rowbytes * h);
  r->grey = (float*)malloc(sizeof(float) * (size_t)w * h);
  r->rows = (png_bytep*)malloc(sizeof(png_bytep) * h);
  if (!r->pixels || !r->grey || !r->rows) {
    snprintf(r->err, (size_t)r->err_sz, "out of memory");
    return 1;
  }
  for (png_uint_32 y = 0; y < h; y++) {
    r->rows[y] = r->pixels + rowbytes * y;
  }
  png_read_image(png, r->rows);

  // the first channel: grey, or red
  for (size_t k = 0; k < (size_t)w * h; k++) {
    r->grey[k] = (float)r->pixels[k * (size_t)channels];
  }
  *width = (int)w;
  *height = (int)h;
  return 0;
}


float* mcc_pngGrey(const void* buf, size_t len, int maxpixels, int* width, int* height,
                   char* err, int err_sz) {
  err[0] = 0;
  if (len < 8 || png_sig_cmp((png_const_bytep)buf, 0, 8)) {
    snprintf(err, (size_t)err_sz, "no PNG signature");
    return NULL;
  }
  mccPngRead r = {(const unsigned char*)buf, len, 0, err, err_sz, NULL, NULL, NULL};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r, mcc_pngError,
                                           mcc_pngWarning);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  if (!info) {
    png_destroy_read_struct(&png, NULL, NULL);
    snprintf(err, (size_t)err_sz, "libpng could not start");
    return NULL;
  }
  int fail = mcc_pngDecode(png, info, &r, maxpixels, width, height);
  png_destroy_read_struct(&png, &info, NULL);
  free(r.pixels);
  free(r.rows);
  if (fail) {
    free(r.grey);
    if (!err[0]) {
      snprintf(err, (size_t)err_sz, "unreadable image");
    }
    return NULL;
  }
  return r.grey;
}
