// PNG height fields against MuJoCo 3.14 (tests/sensor/contact_ref.mjs): images written here with
// libpng in every colour type MuJoCo reads (8- and 16-bit grey, 2-bit grey, grey+alpha, RGB,
// RGBA, palette) give the same hfield_data; a sphere dropped on a PNG terrain makes the same
// contacts and motion; malformed files are refused naming the file.
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "contact_ref.h"

#define W 12
#define H 9

// a temporary folder for the images and models of one test
static void tempDir(char* dir, size_t sz) {
  snprintf(dir, sz, "/tmp/moduco_pngXXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

static void removeDir(const char* dir, const char* const* names, int n) {
  char path[512];
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    remove(path);
  }
  rmdir(dir);
}

// grey level of pixel (x, y) (top row y = 0): a hill with a ridge, 0..255, and a flat plateau
// of level 230 at x 4..8, y 3..5 (world x -0.28..0.44, y -0.2..0.2) for a resting sphere
static int level(int x, int y) {
  if (x >= 4 && x <= 8 && y >= 3 && y <= 5) {
    return 230;
  }
  int v = 40 + 9 * x + 3 * y * y - (x - 6) * (x - 6) * 2 + ((x * 7 + y * 13) % 5);
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

// write an image of colour type ctype and bit depth (palette: levels through a 256-entry
// palette whose red is the level and green/blue are noise)
static void writePng(const char* path, int ctype, int depth) {
  FILE* f = fopen(path, "wb");
  cr_assert_not_null(f);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png_create_info_struct(png);
  cr_assert(png && info);
  cr_assert_eq(setjmp(png_jmpbuf(png)), 0, "libpng failed writing %s", path);
  png_init_io(png, f);
  png_set_IHDR(png, info, W, H, depth, ctype, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  if (ctype == PNG_COLOR_TYPE_PALETTE) {
    png_color pal[256];
    for (int k = 0; k < 256; k++) {
      pal[k].red = (png_byte)k;
      pal[k].green = (png_byte)(255 - k);
      pal[k].blue = (png_byte)(k * 7);
    }
    png_set_PLTE(png, info, pal, 256);
  }
  png_write_info(png, info);
  int channels = ctype == PNG_COLOR_TYPE_RGB ? 3 : ctype == PNG_COLOR_TYPE_RGBA ? 4 :
                 ctype == PNG_COLOR_TYPE_GRAY_ALPHA ? 2 : 1;
  png_byte row[W * 4 * 2];
  for (int y = 0; y < H; y++) {
    memset(row, 0, sizeof(row));
    for (int x = 0; x < W; x++) {
      int v = level(x, y);
      if (depth == 16) {
        // high byte the level, low byte noise (MuJoCo keeps the high byte)
        row[2 * x] = (png_byte)v;
        row[2 * x + 1] = (png_byte)(x * 37 + y);
      } else if (depth == 2) {
        row[x / 4] |= (png_byte)((v >> 6) << (6 - 2 * (x % 4)));
      } else {
        png_byte* p = row + channels * x;
        p[0] = (png_byte)v;
        for (int k = 1; k < channels; k++) {
          p[k] = (png_byte)(255 - v + 11 * k);  // green, blue, alpha differ from the level
        }
      }
    }
    png_write_row(png, row);
  }
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  fclose(f);
}

// a model: the terrain of image png under a sphere (sphere: 0 for the terrain alone)
static void writeModel(const char* path, const char* png, int sphere) {
  FILE* f = fopen(path, "w");
  cr_assert_not_null(f);
  fprintf(f, "<mujoco>\n  <asset>\n    <hfield name=\"terrain\" file=\"%s\" size=\"1 0.8 0.3 0.1\"/>\n"
          "  </asset>\n  <worldbody>\n    <geom type=\"hfield\" hfield=\"terrain\"/>\n", png);
  if (sphere) {
    fprintf(f, "    <body pos=\"0.08 0.01 0.45\">\n      <freejoint/>\n"
            "      <geom type=\"sphere\" size=\"0.12\" mass=\"0.5\"/>\n    </body>\n");
  }
  fprintf(f, "  </worldbody>\n</mujoco>\n");
  fclose(f);
}

Test(hfield_png, grey_levels_of_every_colour_type_as_mujoco) {
  struct {
    const char* name;
    int ctype, depth;
  } img[] = {
    {"grey8.png", PNG_COLOR_TYPE_GRAY, 8},      {"grey16.png", PNG_COLOR_TYPE_GRAY, 16},
    {"grey2.png", PNG_COLOR_TYPE_GRAY, 2},      {"ga8.png", PNG_COLOR_TYPE_GRAY_ALPHA, 8},
    {"rgb8.png", PNG_COLOR_TYPE_RGB, 8},        {"rgba8.png", PNG_COLOR_TYPE_RGBA, 8},
    {"palette.png", PNG_COLOR_TYPE_PALETTE, 8},
  };
  int n = (int)(sizeof(img) / sizeof(img[0]));
  char dir[64];
  tempDir(dir, sizeof(dir));
  const char* names[32];
  char xmls[16][48];
  for (int i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, img[i].name);
    writePng(path, img[i].ctype, img[i].depth);
    snprintf(xmls[i], sizeof(xmls[i]), "m_%s.xml", img[i].name);
    snprintf(path, sizeof(path), "%s/%s", dir, xmls[i]);
    writeModel(path, img[i].name, 0);
    names[2 * i] = img[i].name;
    names[2 * i + 1] = xmls[i];
  }
  for (int i = 0; i < n; i++) {
    mrCase k;
    cr_open(&k, dir, xmls[i], 0);
    cr_assert_eq(k.m->hfield_nrow[0], H);
    cr_assert_eq(k.m->hfield_ncol[0], W);
    mcNum data[W * H];
    for (int j = 0; j < W * H; j++) {
      data[j] = k.m->hfield_data[j];
    }
    // float data: one rounding of the normalization apart at most
    cr_log_info("hfield_data of %s", img[i].name);
    double e = mr_compare(&k, NULL, "hfield_data", data, W * H, 1e-7);
    cr_assert(e <= 1e-7);
    // the field is not flat: the comparison is of something
    cr_assert(data[0] != data[W * H - 1] && data[3] != data[W * H - 4], "%s", img[i].name);
    mr_close(&k);
  }
  removeDir(dir, names, 2 * n);
}

Test(hfield_png, sphere_on_png_terrain_as_mujoco) {
  char dir[64], path[256];
  tempDir(dir, sizeof(dir));
  snprintf(path, sizeof(path), "%s/terrain.png", dir);
  writePng(path, PNG_COLOR_TYPE_GRAY, 8);
  snprintf(path, sizeof(path), "%s/drop.xml", dir);
  writeModel(path, "terrain.png", 1);
  mrCase k;
  cr_open(&k, dir, "drop.xml", 300);
  mr_step(&k, 300);
  cr_assert(k.d->ncon > 0, "the sphere does not rest on the terrain after 300 steps");
  cr_assert(k.d->qpos[2] > 0.3 && k.d->qpos[2] < 0.45, "the sphere is not on the plateau");

  // the contacts and the resting pose as MuJoCo 3.14 (so the plateau is at the same height):
  // with nativeccd (the default) both collide the prisms by GJK/EPA, the plateau's normal is +z
  // (before, Moduco's MPR normal was tilted by 3e-5 and the sphere drifted 3 mm); measured
  // within 1e-11 after 300 steps
  const cJSON* all = mr_field(&k, "stepped", "contacts");
  cr_assert_eq(cJSON_GetArraySize(all), k.d->ncon, "contact count");
  for (int i = 0; i < k.d->ncon; i++) {
    const cJSON* c = cJSON_GetArrayItem(all, i);
    const mcContact* con = k.d->contact + i;
    const double ours[7] = {con->dist, con->pos[0], con->pos[1], con->pos[2], con->frame[0],
                            con->frame[1], con->frame[2]};
    for (int j = 0; j < 7; j++) {
      double ref = cJSON_GetArrayItem(c, 2 + j)->valuedouble;
      cr_assert(fabs(ours[j] - ref) < 1e-9, "contact %d value %d (dist, pos, normal): Moduco "
                "%.12g, MuJoCo 3.14 %.12g", i, j, ours[j], ref);
    }
  }
  const cJSON* qpos = mr_field(&k, "stepped", "qpos");
  for (int j = 0; j < 7; j++) {
    double ref = cJSON_GetArrayItem(qpos, j)->valuedouble;
    cr_assert(fabs(k.d->qpos[j] - ref) < 1e-9, "qpos[%d]: Moduco %.12g, MuJoCo 3.14 %.12g", j,
              k.d->qpos[j], ref);
  }
  mr_close(&k);
  const char* names[] = {"terrain.png", "drop.xml"};
  removeDir(dir, names, 2);
}

// Moduco's error for a model whose height field is file, written with the given bytes
static void malformed(const char* file, const void* bytes, size_t len, const char* cause) {
  char dir[64], path[256], err[1024];
  tempDir(dir, sizeof(dir));
  snprintf(path, sizeof(path), "%s/%s", dir, file);
  FILE* f = fopen(path, "wb");
  cr_assert_not_null(f);
  fwrite(bytes, 1, len, f);
  fclose(f);
  snprintf(path, sizeof(path), "%s/bad.xml", dir);
  writeModel(path, file, 0);
  cr_loadError(dir, "bad.xml", err, sizeof(err));
  cr_assert(strstr(err, "bad.xml:3:"), "error does not name the model's line: %s", err);
  cr_assert(strstr(err, file), "error does not name the image: %s", err);
  cr_assert(strstr(err, cause), "error does not say '%s': %s", cause, err);
  const char* names[] = {file, "bad.xml"};
  removeDir(dir, names, 2);
}

Test(hfield_png, malformed_png_named_in_the_error) {
  static const unsigned char garbage[] = "\x89PNG\r\n\x1a\nthis is not an image at all";
  static const unsigned char text[] = "plain text, no signature";
  malformed("garbage.png", garbage, sizeof(garbage) - 1, "not a readable PNG image");
  malformed("text.png", text, sizeof(text) - 1, "no PNG signature");

  // a valid image cut short inside its data
  char dir[64], path[256];
  tempDir(dir, sizeof(dir));
  snprintf(path, sizeof(path), "%s/whole.png", dir);
  writePng(path, PNG_COLOR_TYPE_RGB, 8);
  FILE* f = fopen(path, "rb");
  cr_assert_not_null(f);
  unsigned char buf[4096];
  size_t len = fread(buf, 1, sizeof(buf), f);
  fclose(f);
  remove(path);
  rmdir(dir);
  cr_assert(len > 80);
  malformed("cut.png", buf, len - 30, "libpng");
}
