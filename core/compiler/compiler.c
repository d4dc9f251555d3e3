// Moduco core: mc_loadXML / mc_loadXMLString: read the element tree, compile, build the model.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "compiler/compiler_mesh.h"
#include "engine/io.h"

// top-level sections in the order they are compiled (a section may appear several times)
static const char* const mcc_sections[] = {
  "compiler", "size", "option", "extension", "default", "asset", "worldbody", "contact",
  "tendon", "equality", "actuator", "sensor", "custom", "keyframe", NULL
};

//---------------------------------- context -------------------------------------------------------

static void mcc_init(mcc* c, mcxTree* tree, char* error, int error_sz) {
  memset(c, 0, sizeof(*c));
  c->tree = tree;
  c->error = error;
  c->error_sz = error_sz;
  c->njmax = -1;
  c->nconmax = -1;
  mci_defaultOption(&c->opt);
  c->opt.enableflags |= mcENBL_NATIVECCD;  // on unless <flag nativeccd="disable"/>, as in MuJoCo 3.x
  c->sleep_tolerance = 1e-3;               // MuJoCo 3.14's default
  mcc_vecInit(&c->classes, sizeof(mccClass));
  mcc_vecInit(&c->bodies, sizeof(mccBody));
  mcc_vecInit(&c->joints, sizeof(mccJointObj));
  mcc_vecInit(&c->geoms, sizeof(mccGeomObj));
  mcc_vecInit(&c->sites, sizeof(mccSiteObj));
  mcc_vecInit(&c->cameras, sizeof(mccCameraObj));
  mcc_vecInit(&c->meshes, sizeof(mccNamed));
  mcc_vecInit(&c->hfields, sizeof(mccNamed));
  mcc_vecInit(&c->materials, sizeof(mccMaterial));
  mcc_vecInit(&c->actuators, sizeof(mccActObj));
  mcc_vecInit(&c->tendons, sizeof(mccTendonObj));
  mcc_vecInit(&c->wraps, sizeof(mccWrap));
  mcc_vecInit(&c->eqs, sizeof(mccEqObj));
  mcc_vecInit(&c->pairs, sizeof(mccPairObj));
  mcc_vecInit(&c->excludes, sizeof(mccPairObj));
  mcc_vecInit(&c->sensors, sizeof(mccSensorObj));
  mcc_vecInit(&c->numerics, sizeof(mccNumeric));
  mcc_vecInit(&c->keys, sizeof(mccNamed));
  mcc_vecInit(&c->plugins, sizeof(mccInstance));
  mcc_vecInit(&c->config, sizeof(mcNum));
  mcc_vecInit(&c->extconfig, sizeof(mccExtConfig));
  mcc_vecInit(&c->plugdefs, sizeof(mccPluginDefault));
  mcc_vecInit(&c->strs, sizeof(char*));
  mcc_vecInit(&c->scopes, sizeof(mccScope));
  mcc_vecInit(&c->attached, sizeof(mcxTree*));
  mcc_vecInit(&c->keymaps, sizeof(mccKeyMap));
  for (int i = 0; i < MCC_ATTACH_NKIND; i++) {
    mcc_vecInit(&c->attnames[i], sizeof(const char*));
  }
  mcc_vecInit(&c->attjoints, sizeof(void*) + 2 * sizeof(int));  // mcaJoint (compiler_attach.c)
  mcc_vecInit(&c->attacts, sizeof(const mcxElem*));
}

static void mcc_free(mcc* c) {
  mcc_freeAssets(c);
  for (int i = 0; i < c->numerics.n; i++) {
    free(MCC_AT(c->numerics, mccNumeric, i)->data);
  }
  for (int i = 0; i < c->strs.n; i++) {
    free(*MCC_AT(c->strs, char*, i));
  }
  for (int i = 0; i < c->attached.n; i++) {
    mcx_freeTree(*MCC_AT(c->attached, mcxTree*, i));
  }
  for (int i = 0; i < c->keymaps.n; i++) {
    mcc_vecFree(&MCC_AT(c->keymaps, mccKeyMap, i)->values);
  }
  mccVec* vecs[] = {&c->classes, &c->bodies, &c->joints, &c->geoms, &c->sites, &c->meshes,
                    &c->hfields, &c->materials, &c->actuators, &c->tendons, &c->wraps, &c->eqs, &c->pairs,
                    &c->excludes, &c->sensors, &c->numerics, &c->keys, &c->plugins, &c->strs,
                    &c->config, &c->extconfig, &c->plugdefs,
                    &c->cameras, &c->scopes, &c->attached, &c->keymaps};
  for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
    mcc_vecFree(vecs[i]);
  }
  for (int i = 0; i < MCC_ATTACH_NKIND; i++) {
    mcc_vecFree(&c->attnames[i]);
  }
  mcc_vecFree(&c->attjoints);
  mcc_vecFree(&c->attacts);
  free(c->scratch);
  c->scratch = NULL;
  mcc_nameIndexFree(c);
}

//---------------------------------- compile -------------------------------------------------------

// dispatch one top-level section
static void mcc_section(mcc* c, const mcxElem* e) {
  const char* n = e->name;
  if (!strcmp(n, "compiler")) {
    mcc_readCompiler(c, e);
  } else if (!strcmp(n, "size")) {
    mcc_readSize(c, e);
  } else if (!strcmp(n, "option")) {
    mcc_readOption(c, e);
  } else if (!strcmp(n, "extension")) {
    mcc_readExtension(c, e);
  } else if (!strcmp(n, "default")) {
    mcc_readDefaults(c, e, -1);
  } else if (!strcmp(n, "asset")) {
    mcc_readAsset(c, e);
  } else if (!strcmp(n, "contact")) {
    mcc_readContact(c, e);
  } else if (!strcmp(n, "tendon")) {
    mcc_readTendons(c, e);
  } else if (!strcmp(n, "equality")) {
    mcc_readEqualities(c, e);
  } else if (!strcmp(n, "actuator")) {
    mcc_readActuators(c, e);
  } else if (!strcmp(n, "sensor")) {
    mcc_readSensors(c, e);
  } else if (!strcmp(n, "custom")) {
    mcc_readCustom(c, e);
  } else if (!strcmp(n, "keyframe")) {
    mcc_readKeyframe(c, e);
  }
}

// compile c->tree into c->m; NULL on error (message in c->error)
static mcModel* mcc_compile(mcc* c) {
  if (setjmp(c->jmp)) {
    mc_deleteModel(c->m);
    c->m = NULL;
    return NULL;
  }
  const mcxElem* root = c->tree->root;
  if (strcmp(root->name, "mujoco")) {
    mcc_error(c, root, "root element must be <mujoco>, not <%s>", root->name);
  }
  mcc_checkAttrs(c, root, "model");
  const char* model = mcx_attr(root, "model");
  c->modelname = model ? model : "MuJoCo Model";

  // check the section names once
  for (int k = 0; k < root->nchild; k++) {
    const mcxElem* ch = root->child[k];
    int known = !strcmp(ch->name, "visual") || !strcmp(ch->name, "statistic");
    for (int s = 0; mcc_sections[s] && !known; s++) {
      known = !strcmp(ch->name, mcc_sections[s]);
    }
    if (!strcmp(ch->name, "deformable")) {
      mcc_error(c, ch, "%s", mcc_deformableMsg("deformable"));
    }
    if (!known) {
      mcc_unknownElem(c, ch);
    }
  }

  // the main class and the world body
  mccClass* cls0 = (mccClass*)mcc_push(c, &c->classes);
  mcc_defaultClassInit(cls0);
  mccBody* world = (mccBody*)mcc_push(c, &c->bodies);
  world->name = "world";
  world->elem = root;
  world->quat[0] = 1;
  world->iquat[0] = 1;
  mccScope* sc0 = (mccScope*)mcc_push(c, &c->scopes);
  mcc_scopeInit(sc0);
  snprintf(sc0->dir, sizeof(sc0->dir), "%s", c->tree->dir ? c->tree->dir : "");

  // sections in dependency order (all <worldbody> sections are read together)
  for (int s = 0; mcc_sections[s]; s++) {
    if (!strcmp(mcc_sections[s], "worldbody")) {
      mcc_readWorldbody(c, root);
      continue;
    }
    for (int k = 0; k < root->nchild; k++) {
      if (!strcmp(root->child[k]->name, mcc_sections[s])) {
        mcc_section(c, root->child[k]);
      }
    }
    // with the model's settings known: replicates and attached files into the tree
    if (!strcmp(mcc_sections[s], "compiler")) {
      mcc_expandAttach(c);
    }
  }

  mcModel* m = mcc_buildModel(c);
  mcc_finishActuators(c, m);
  c->m = NULL;
  return m;
}

// compile a tree and free it
static mcModel* mcc_load(mcxTree* tree, const char* file, char* error, int error_sz) {
  mcc* c = (mcc*)malloc(sizeof(mcc));
  if (!c) {
    if (error && error_sz > 0) {
      snprintf(error, (size_t)error_sz, "%s:0: out of memory", file);
    }
    mcx_freeTree(tree);
    return NULL;
  }
  mcc_init(c, tree, error, error_sz);
  mcModel* m = mcc_compile(c);
  mcc_free(c);
  free(c);
  mcx_freeTree(tree);
  if (m) {
    snprintf(m->modelfile, sizeof(m->modelfile), "%s", file);
    if (error && error_sz > 0) {
      error[0] = 0;
    }
  }
  return m;
}

//---------------------------------- public API ----------------------------------------------------

mcModel* mc_loadXML(const char* filename, char* error, int error_sz) {
  mcxTree* tree = mcx_readFile(filename, error, error_sz);
  if (!tree) {
    return NULL;
  }
  return mcc_load(tree, filename, error, error_sz);
}

mcModel* mc_loadXMLString(const char* xml, const char* dir, char* error, int error_sz) {
  mcxTree* tree = mcx_readString(xml, dir, error, error_sz);
  if (!tree) {
    return NULL;
  }
  return mcc_load(tree, "", error, error_sz);
}
