// Moduco viewer: the page's files, read once at start from the asset folder.
#ifndef MODUCO_SDK_VIEWER_ASSETS_H_
#define MODUCO_SDK_VIEWER_ASSETS_H_

#include <stddef.h>

typedef struct {
  const char* uri;                // request path ("/viewer.js")
  const char* file;               // file name in the asset folder
  const char* mime;               // Content-Type
  char* data;                     // contents (malloc'ed by mcv_loadAssets)
  size_t size;
} mcvAsset;

// Read every asset of the fixed list from dir. On failure print an error naming the file and
// return NULL. Free with mcv_freeAssets.
mcvAsset* mcv_loadAssets(const char* dir);
void mcv_freeAssets(mcvAsset* assets);

// The asset served at uri ("/" is index.html), or NULL: nothing else is ever served.
const mcvAsset* mcv_findAsset(const mcvAsset* assets, const char* uri);

#endif  // MODUCO_SDK_VIEWER_ASSETS_H_
