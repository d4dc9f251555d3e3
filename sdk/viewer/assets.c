// Moduco viewer: the page's files, a fixed list read once at start (no client path is ever
// opened).
#include "assets.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXASSET (64L << 20)      // largest asset file accepted

static const mcvAsset kAssets[] = {
  {"/index.html", "index.html", "text/html; charset=utf-8", NULL, 0},
  {"/style.css", "style.css", "text/css; charset=utf-8", NULL, 0},
  {"/viewer.js", "viewer.js", "text/javascript; charset=utf-8", NULL, 0},
  {"/scene.js", "scene.js", "text/javascript; charset=utf-8", NULL, 0},
  {"/overlays.js", "overlays.js", "text/javascript; charset=utf-8", NULL, 0},
  {"/plots.js", "plots.js", "text/javascript; charset=utf-8", NULL, 0},
  {"/three.module.js", "three.module.js", "text/javascript; charset=utf-8", NULL, 0},
  {"/three.core.js", "three.core.js", "text/javascript; charset=utf-8", NULL, 0},
  {"/OrbitControls.js", "OrbitControls.js", "text/javascript; charset=utf-8", NULL, 0},
  {"/uPlot.esm.js", "uPlot.esm.js", "text/javascript; charset=utf-8", NULL, 0},
  {"/uPlot.min.css", "uPlot.min.css", "text/css; charset=utf-8", NULL, 0},
};
#define NASSET ((int)(sizeof(kAssets) / sizeof(kAssets[0])))


// read a whole file; NULL with a message on failure
static char* readFile(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "moduco view: cannot open page asset %s: %s (build the moduco_viewer_web "
            "target, or set MODUCO_VIEWER_DIR)\n", path, strerror(errno));
    return NULL;
  }
  char* data = NULL;
  long len = -1;
  if (!fseek(f, 0, SEEK_END) && (len = ftell(f)) >= 0 && len <= MAXASSET &&
      !fseek(f, 0, SEEK_SET) && (data = malloc((size_t)len + 1)) &&
      fread(data, 1, (size_t)len, f) != (size_t)len) {
    free(data);
    data = NULL;
  }
  if (!data) {
    fprintf(stderr, "moduco view: cannot read page asset %s (%s)\n", path,
            len > MAXASSET ? "larger than 64 MiB" : "read error or out of memory");
  } else {
    data[len] = 0;
    *size = (size_t)len;
  }
  fclose(f);
  return data;
}


mcvAsset* mcv_loadAssets(const char* dir) {
  mcvAsset* a = calloc(NASSET + 1, sizeof(mcvAsset));
  if (!a) {
    return NULL;
  }
  memcpy(a, kAssets, sizeof(kAssets));
  for (int i = 0; i < NASSET; i++) {
    char path[4096];
    if (snprintf(path, sizeof(path), "%s/%s", dir, a[i].file) >= (int)sizeof(path)) {
      fprintf(stderr, "moduco view: asset folder path too long: %s\n", dir);
      mcv_freeAssets(a);
      return NULL;
    }
    if (!(a[i].data = readFile(path, &a[i].size))) {
      mcv_freeAssets(a);
      return NULL;
    }
  }
  return a;
}


void mcv_freeAssets(mcvAsset* assets) {
  for (int i = 0; assets && assets[i].uri; i++) {
    free(assets[i].data);
  }
  free(assets);
}


const mcvAsset* mcv_findAsset(const mcvAsset* assets, const char* uri) {
  if (!uri) {
    return NULL;
  }
  if (!strcmp(uri, "/")) {
    uri = "/index.html";
  }
  for (int i = 0; assets[i].uri; i++) {
    if (!strcmp(uri, assets[i].uri)) {
      return assets + i;
    }
  }
  return NULL;
}
