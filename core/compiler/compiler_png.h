// Moduco core: PNG images decoded to grey levels (compiler_png.c, libpng).
#ifndef MODUCO_CORE_COMPILER_COMPILER_PNG_H_
#define MODUCO_CORE_COMPILER_COMPILER_PNG_H_

#include <stddef.h>

// the 8-bit grey level (0..255) of every pixel of the PNG image in buf, rows top first (caller
// frees), and its size; a colour pixel gives its red channel, as MuJoCo 3.14 reads height fields.
// NULL with the reason in err when buf is no readable PNG or has more than maxpixels pixels
float* mcc_pngGrey(const void* buf, size_t len, int maxpixels, int* width, int* height,
                   char* err, int err_sz);

#endif  // MODUCO_CORE_COMPILER_COMPILER_PNG_H_
