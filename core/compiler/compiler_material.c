// Moduco compiler: materials. A <material> has no physics; of its attributes only the colour
// reaches the model, per geom (geom_matrgba: the rgba of the geom's material, MuJoCo's
// mat_rgba[geom_matid]), so a viewer can colour geoms as MuJoCo's renderer does: a geom's own
// rgba when it differs from the default 0.5 0.5 0.5 1, else its material's. The other attributes
// are read for their syntax only (textures are not drawn). Moduco keeps no material table: a
// new size field would move every array of mcModel (ABI 1.x is append-only), docs/status.md.
#include <string.h>

#include "compiler/compiler.h"

#define MCC_MATERIAL_ATTR                                                                        \
  "class texture texrepeat texuniform emission specular shininess reflectance metallic "         \
  "roughness rgba"

// the attributes whose syntax is checked (numbers, counts, booleans)
static void mcc_checkMaterialAttrs(mcc* c, const mcxElem* e, float rgba[4]) {
  mcNum v[4];
  mcc_readNums(c, e, "texrepeat", v, 2, 2);
  mcc_readBool(c, e, "texuniform");
  const char* keys[] = {"emission", "specular", "shininess", "reflectance", "metallic",
                        "roughness"};
  for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
    mcc_readNums(c, e, keys[k], v, 1, 1);
  }
  mcc_readFloats(c, e, "rgba", rgba, 4, 4);
}

void mcc_readMaterialDefault(mcc* c, const mcxElem* e, mccClass* cls) {
  mcc_checkAttrs(c, e, MCC_MATERIAL_ATTR);
  if (mcx_attr(e, "class")) {
    mcc_error(c, e, "attribute 'class' is not allowed in a default class");
  }
  mcc_checkMaterialAttrs(c, e, cls->matrgba);
}

void mcc_readMaterial(mcc* c, const mcxElem* e) {
  mcc_checkAttrs(c, e, "name " MCC_MATERIAL_ATTR);
  const char* name = mcc_require(c, e, "name");
  if (!name[0]) {
    mcc_error(c, e, "<material> requires a non-empty 'name'");
  }
  if (mcc_findName(c, mcOBJ_MATERIAL, name) >= 0) {
    mcc_error(c, e, "duplicate material name '%s'", name);
  }
  // an asset starts from its file's main class (assets inherit no childclass)
  int ci = mcc_elemClass(c, e, mcc_scope(c, e)->mainclass);
  mccMaterial* mat = (mccMaterial*)mcc_push(c, &c->materials);
  mat->elem = e;
  mat->name = name;
  memcpy(mat->rgba, MCC_AT(c->classes, mccClass, ci)->matrgba, sizeof(mat->rgba));
  mcc_checkMaterialAttrs(c, e, mat->rgba);
}

int mcc_geomMaterial(mcc* c, const mcxElem* e, const char* name) {
  if (!name || !name[0]) {
    return -1;
  }
  int id = mcc_findName(c, mcOBJ_MATERIAL, name);
  if (id < 0) {
    mcc_error(c, e, "unknown material '%s' in attribute 'material' of <%s>", name, e->name);
  }
  return id;
}

void mcc_geomMaterialRgba(const mcc* c, int matid, float rgba[4]) {
  if (matid < 0) {
    rgba[0] = rgba[1] = rgba[2] = rgba[3] = -1;
  } else {
    memcpy(rgba, MCC_AT(c->materials, mccMaterial, matid)->rgba, 4 * sizeof(float));
  }
}
