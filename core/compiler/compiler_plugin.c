// Moduco core: plugin instances and their configuration.
//
// An instance is one use of a plugin in one model: one per actuator or sensor element bound to a
// plugin, one per <extension><plugin><instance>, and one per model for the selected integrator,
// solver, postsolver and every collision plugin that owns a geom-type pair. Each instance holds
// the values of the configuration keys its plugin declares (mcpPluginExt.config), parsed and
// checked here, stored in key order in mcModel.plugin_config with the defaults filled in.
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compiler/compiler.h"
#include "compiler/plugin_defaults.h"
#include "plugin/registry.h"

#define MCC_MAXCONFIGCOUNT 4096   // values of one key

//---------------------------------- key declarations ----------------------------------------------

// values of an instance before its keys: sum of the counts of keys [0, k)
static int mcc_keyOffset(const mcpPluginExt* ext, int k) {
  int adr = 0;
  for (int i = 0; i < k; i++) {
    adr += ext->config[i].count;
  }
  return adr;
}

#define MCC_BADTABLE INT_MAX     // mcc_badKey: the key table itself is missing or negative

// first invalid key declaration of a plugin: the key's index, MCC_BADTABLE, or -1 when all are
// valid
static int mcc_badKey(const mcpPluginExt* ext) {
  if (ext->nconfig < 0 || (ext->nconfig > 0 && !ext->config)) {
    return MCC_BADTABLE;
  }
  for (int k = 0; k < ext->nconfig; k++) {
    const mcpConfigKey* key = ext->config + k;
    if (!key->name || !key->name[0] || key->count < 1 || key->count > MCC_MAXCONFIGCOUNT ||
        key->type < mcpCONFIG_REAL || key->type > mcpCONFIG_ENUM ||
        (key->type == mcpCONFIG_ENUM && (!key->choices || !key->choices[0]))) {
      return k;
    }
  }
  return -1;
}

// describe the first invalid key declaration of h into why; 1 if there is one
static int mcc_describeBadKey(const mcpHeader* h, const mcpPluginExt* ext, char* why, size_t sz) {
  int k = mcc_badKey(ext);
  if (k < 0) {
    return 0;
  }
  if (k == MCC_BADTABLE) {
    snprintf(why, sz, "plugin '%s' declares %d configuration keys without a key table", h->name,
             ext->nconfig);
  } else {
    snprintf(why, sz, "plugin '%s' declares an invalid configuration key %d ('%s')", h->name, k,
             ext->config[k].name ? ext->config[k].name : "(null)");
  }
  return 1;
}

// check a plugin's key declarations (once per instance: cheap, and names the plugin)
static void mcc_checkKeys(mcc* c, const mcxElem* e, const mcpHeader* h, const mcpPluginExt* ext) {
  char why[512];
  if (mcc_describeBadKey(h, ext, why, sizeof(why))) {
    mcc_error(c, e, "%s", why);
  }
}

// index of the key called name, or -1
static int mcc_findKey(const mcpPluginExt* ext, const char* name) {
  for (int k = 0; ext && k < ext->nconfig; k++) {
    if (!strcmp(ext->config[k].name, name)) {
      return k;
    }
  }
  return -1;
}

// comma-separated key names of a plugin into buf
static void mcc_keyList(const mcpPluginExt* ext, char* buf, size_t sz) {
  size_t n = 0;
  buf[0] = 0;
  for (int k = 0; ext && k < ext->nconfig && n < sz; k++) {
    n += (size_t)snprintf(buf + n, sz - n, "%s%s", k ? ", " : "", ext->config[k].name);
  }
  if (!buf[0]) {
    snprintf(buf, sz, "none");
  }
}

//---------------------------------- values --------------------------------------------------------

// index of word (length n) among the '|'-separated choices, or -1
static int mcc_choice(const char* choices, const char* word, size_t n) {
  int idx = 0;
  for (const char* p = choices; *p; idx++) {
    const char* q = strchr(p, '|');
    size_t l = q ? (size_t)(q - p) : strlen(p);
    if (l == n && !strncmp(p, word, n)) {
      return idx;
    }
    if (!q) {
      break;
    }
    p = q + 1;
  }
  return -1;
}

// parse one token of a key; 0 on success, else writes why
static int mcc_parseToken(const mcpConfigKey* key, const char* tok, size_t n, mcNum* out,
                          char* why, size_t why_sz) {
  char buf[128];
  if (n >= sizeof(buf)) {
    snprintf(why, why_sz, "a value is too long");
    return 1;
  }
  memcpy(buf, tok, n);
  buf[n] = 0;
  if (key->type == mcpCONFIG_BOOL) {
    if (!strcmp(buf, "true") || !strcmp(buf, "1")) {
      *out = 1;
    } else if (!strcmp(buf, "false") || !strcmp(buf, "0")) {
      *out = 0;
    } else {
      snprintf(why, why_sz, "'%s' is not true or false", buf);
      return 1;
    }
    return 0;
  }
  if (key->type == mcpCONFIG_ENUM) {
    int idx = mcc_choice(key->choices, buf, n);
    if (idx < 0) {
      snprintf(why, why_sz, "'%s' is not one of %s", buf, key->choices);
      return 1;
    }
    *out = idx;
    return 0;
  }
  char* end = NULL;
  double v = strtod(buf, &end);
  if (end == buf || *end || !isfinite(v)) {
    snprintf(why, why_sz, "'%s' is not a finite number", buf);
    return 1;
  }
  if (key->type == mcpCONFIG_INT && (v != floor(v) || fabs(v) > 2147483647.0)) {
    snprintf(why, why_sz, "'%s' is not an integer", buf);
    return 1;
  }
  if (key->lo <= key->hi && (v < key->lo || v > key->hi)) {
    snprintf(why, why_sz, "%s is out of the range [%g, %g]", buf, (double)key->lo,
             (double)key->hi);
    return 1;
  }
  *out = (mcNum)v;
  return 0;
}

// parse the count values of a key from text into out; 0 on success, else writes why
static int mcc_parseValue(const mcpConfigKey* key, const char* text, mcNum* out, char* why,
                          size_t why_sz) {
  int n = 0;
  const char* p = text;
  while (1) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
      p++;
    }
    if (!*p) {
      break;
    }
    const char* q = p;
    while (*q && *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r') {
      q++;
    }
    if (n < key->count && mcc_parseToken(key, p, (size_t)(q - p), out + n, why, why_sz)) {
      return 1;
    }
    n++;
    p = q;
  }
  if (n != key->count) {
    snprintf(why, why_sz, "expected %d value%s, got %d", key->count, key->count > 1 ? "s" : "", n);
    return 1;
  }
  return 0;
}

// memory freed with the context
static void* mcc_keep(mcc* c, size_t bytes) {
  char** slot = (char**)mcc_push(c, &c->strs);
  *slot = (char*)mcc_malloc(c, bytes);
  return *slot;
}

//---------------------------------- instances -----------------------------------------------------

int mcc_addInstance(mcc* c, const mcpHeader* h, int objtype, int objid, const char* name,
                    const mcxElem* e) {
  const mcpPluginExt* ext = mcp_ext(h);
  if (ext) {
    mcc_checkKeys(c, e, h, ext);
  }
  mccInstance* in = (mccInstance*)mcc_push(c, &c->plugins);
  in->hdr = h;
  in->ext = ext;
  in->objtype = objtype;
  in->objid = objid;
  in->name = name;
  in->elem = e;
  in->configadr = c->config.n;
  in->confignum = ext ? mcc_keyOffset(ext, ext->nconfig) : 0;
  in->given = ext && ext->nconfig ? (unsigned char*)mcc_keep(c, (size_t)ext->nconfig) : NULL;
  int inst = c->plugins.n - 1;

  // defaults (NaN marks a required key not given yet: given values are always finite)
  for (int k = 0; ext && k < ext->nconfig; k++) {
    const mcpConfigKey* key = ext->config + k;
    mcNum vals[MCC_MAXCONFIGCOUNT];
    char why[256];
    if (key->def && mcc_parseValue(key, key->def, vals, why, sizeof(why))) {
      mcc_error(c, e, "plugin '%s' declares a bad default for configuration key '%s': %s",
                h->name, key->name, why);
    }
    for (int i = 0; i < key->count; i++) {
      *(mcNum*)mcc_push(c, &c->config) = key->def ? vals[i] : (mcNum)NAN;
    }
  }
  return inst;
}

void mcc_configSet(mcc* c, int inst, const char* key, const char* value, const mcxElem* e) {
  mccInstance* in = MCC_AT(c->plugins, mccInstance, inst);
  int k = mcc_findKey(in->ext, key);
  if (k < 0) {
    char keys[512];
    mcc_keyList(in->ext, keys, sizeof(keys));
    mcc_error(c, e, "plugin '%s' has no configuration key '%s' (keys: %s)", in->hdr->name, key,
              keys);
  }
  if (in->given[k]) {
    mcc_error(c, e, "plugin '%s': configuration key '%s' is given twice", in->hdr->name, key);
  }
  in->given[k] = 1;
  char why[256];
  mcNum* out = MCC_AT(c->config, mcNum, in->configadr + mcc_keyOffset(in->ext, k));
  if (mcc_parseValue(in->ext->config + k, value ? value : "", out, why, sizeof(why))) {
    mcc_error(c, e, "plugin '%s', configuration key '%s': %s", in->hdr->name, key, why);
  }
}

void mcc_configChildren(mcc* c, int inst, const mcxElem* e) {
  for (int i = 0; i < e->nchild; i++) {
    const mcxElem* ch = e->child[i];
    if (strcmp(ch->name, "config")) {
      mcc_unknownElem(c, ch);
    }
    mcc_checkAttrs(c, ch, "key value");
    mcc_configSet(c, inst, mcc_require(c, ch, "key"), mcc_require(c, ch, "value"), ch);
  }
}

void mcc_configDone(mcc* c, int inst, const mcxElem* e) {
  const mccInstance* in = MCC_AT(c->plugins, mccInstance, inst);
  for (int k = 0; in->ext && k < in->ext->nconfig; k++) {
    if (isnan(*MCC_AT(c->config, mcNum, in->configadr + mcc_keyOffset(in->ext, k)))) {
      mcc_error(c, e, "plugin '%s' requires configuration key '%s'%s%s", in->hdr->name,
                in->ext->config[k].name, in->ext->config[k].doc ? ": " : "",
                in->ext->config[k].doc ? in->ext->config[k].doc : "");
    }
  }
}

int mcc_defaultConfig(const mcpHeader* h, mcNum* out, int max, char* error, int error_sz) {
  const mcpPluginExt* ext = mcp_ext(h);
  if (!ext) {
    return 0;
  }
  char why[512];
  if (mcc_describeBadKey(h, ext, why, sizeof(why))) {
    snprintf(error, (size_t)error_sz, "%s", why);
    return -1;
  }
  int n = mcc_keyOffset(ext, ext->nconfig);
  if (out && n > max) {
    snprintf(error, (size_t)error_sz, "plugin '%s' declares %d configuration values (at most %d)",
             h->name, n, max);
    return -1;
  }
  for (int k = 0; k < ext->nconfig; k++) {
    const mcpConfigKey* key = ext->config + k;
    if (!key->def) {
      snprintf(error, (size_t)error_sz, "plugin '%s' requires configuration key '%s', which only "
               "a model file can give: select the plugin in <option> and configure it in "
               "<extension>", h->name, key->name);
      return -1;
    }
    mcNum vals[MCC_MAXCONFIGCOUNT];
    if (mcc_parseValue(key, key->def, vals, why, sizeof(why))) {
      snprintf(error, (size_t)error_sz, "plugin '%s' declares a bad default for configuration "
               "key '%s': %s", h->name, key->name, why);
      return -1;
    }
    if (out) {
      memcpy(out + mcc_keyOffset(ext, k), vals, sizeof(mcNum) * (size_t)key->count);
    }
  }
  return n;
}

//---------------------------------- plugin elements -----------------------------------------------

int mcc_wordIn(const char* list, const char* key) {
  size_t kl = strlen(key);
  for (const char* p = list; p && *p;) {
    const char* q = strchr(p, ' ');
    size_t l = q ? (size_t)(q - p) : strlen(p);
    if (l == kl && !strncmp(p, key, l)) {
      return 1;
    }
    p += l + (q ? 1 : 0);
  }
  return 0;
}

// is key in a NULL-terminated list
static int mcc_listed(const char* const* list, const char* key) {
  for (int i = 0; list && list[i]; i++) {
    if (!strcmp(list[i], key)) {
      return 1;
    }
  }
  return 0;
}

void mcc_pluginAllowed(mcc* c, const mcxElem* e, const mcpHeader* h, const char* core,
                       const char* const* own, int config, char* out, size_t sz) {
  size_t n = (size_t)snprintf(out, sz, "%s%s", core,
                              strcmp(e->name, "plugin") ? "" : " plugin instance");
  const mcpPluginExt* ext = config ? mcp_ext(h) : NULL;
  for (int i = 0; own && own[i] && n < sz; i++) {
    n += (size_t)snprintf(out + n, sz - n, " %s", own[i]);
  }
  for (int k = 0; ext && k < ext->nconfig && n < sz; k++) {
    n += (size_t)snprintf(out + n, sz - n, " %s", ext->config[k].name);
  }
  if (n >= sz) {
    mcc_error(c, e, "too many attributes declared by plugin '%s'", h->name);
  }
}

int mcc_pluginAttrs(mcc* c, const mcxElem* e, int inst, const char* core, const char* const* own,
                    int store, const char** keys, const char** vals, int max) {
  const mccInstance* in = MCC_AT(c->plugins, mccInstance, inst);
  int n = 0;
  for (int i = 0; i < e->nattr; i++) {
    const char* key = e->attr[2 * i];
    int config = mcc_findKey(in->ext, key) >= 0;
    if (config && store) {
      mcc_configSet(c, inst, key, e->attr[2 * i + 1], e);
    }
    if (mcc_wordIn(core, key) || (config && !mcc_listed(own, key)) ||
        (!strcmp(e->name, "plugin") && (!strcmp(key, "plugin") || !strcmp(key, "instance")))) {
      continue;
    }
    if (n >= max) {
      mcc_error(c, e, "too many attributes in <%s>", e->name);
    }
    keys[n] = key;
    vals[n] = e->attr[2 * i + 1];
    n++;
  }
  return n;
}

_Noreturn void mcc_pluginFail(mcc* c, const mcxElem* e, const char* perr) {
  // the core names file and line: drop the same prefix if the plugin wrote it too
  char prefix[1100];
  snprintf(prefix, sizeof(prefix), "%s:%d:", e->file ? e->file : "", e->line);
  size_t pl = strlen(prefix);
  if (perr && !strncmp(perr, prefix, pl)) {
    perr += pl;
    while (*perr == ' ') {
      perr++;
    }
  }
  mcc_error(c, e, "<%s>: %s", e->name, perr && perr[0] ? perr : "plugin compile failed");
}

//---------------------------------- defaults of plugin elements -----------------------------------

void mcc_pluginDefault(mcc* c, const mcxElem* e, int cls) {
  if (e->nchild) {
    mcc_error(c, e->child[0], "<%s> in a default class takes its configuration keys as "
              "attributes, not as <%s> children", e->name, e->child[0]->name);
  }
  mccPluginDefault* pd = (mccPluginDefault*)mcc_push(c, &c->plugdefs);
  pd->cls = cls;
  pd->elem = e;
}

const mcxElem* mcc_pluginElem(mcc* c, const mcxElem* e, int cls) {
  // attributes of the element, then those of the defaults along the class chain (nearest first)
  int total = e->nattr;
  for (int ci = cls; ci >= 0; ci = MCC_AT(c->classes, mccClass, ci)->parent) {
    for (int i = 0; i < c->plugdefs.n; i++) {
      const mccPluginDefault* pd = MCC_AT(c->plugdefs, mccPluginDefault, i);
      if (pd->cls == ci && !strcmp(pd->elem->name, e->name)) {
        total += pd->elem->nattr;
      }
    }
  }
  if (total == e->nattr) {
    return e;
  }
  mcxElem* m = (mcxElem*)mcc_keep(c, sizeof(mcxElem));
  *m = *e;
  m->attr = (char**)mcc_keep(c, sizeof(char*) * 2 * (size_t)total);
  memcpy(m->attr, e->attr, sizeof(char*) * 2 * (size_t)e->nattr);
  m->nattr = e->nattr;
  for (int ci = cls; ci >= 0; ci = MCC_AT(c->classes, mccClass, ci)->parent) {
    for (int i = c->plugdefs.n - 1; i >= 0; i--) {
      const mccPluginDefault* pd = MCC_AT(c->plugdefs, mccPluginDefault, i);
      if (pd->cls != ci || strcmp(pd->elem->name, e->name)) {
        continue;
      }
      for (int a = 0; a < pd->elem->nattr; a++) {
        const char* key = pd->elem->attr[2 * a];
        if (!strcmp(key, "class") || mcx_attr(m, key)) {
          continue;
        }
        m->attr[2 * m->nattr] = pd->elem->attr[2 * a];
        m->attr[2 * m->nattr + 1] = pd->elem->attr[2 * a + 1];
        m->nattr++;
      }
    }
  }
  return m;
}

//---------------------------------- <extension> ---------------------------------------------------

// any registered plugin called name, or an error listing them
static const mcpHeader* mcc_anyPlugin(mcc* c, const mcxElem* e, const char* name) {
  const mcpHeader* h = NULL;
  for (int kind = 1; kind < mcpNKIND && !h; kind++) {
    h = mcp_find(kind, name);
  }
  if (!h) {
    char all[2048] = "";
    for (int kind = 1; kind < mcpNKIND; kind++) {
      char list[512];
      mcp_listNames(kind, list, sizeof(list));
      if (list[0]) {
        size_t n = strlen(all);
        snprintf(all + n, sizeof(all) - n, "%s%s", n ? ", " : "", list);
      }
    }
    char why[600];
    mcc_rejection(name, why, sizeof(why));
    mcc_error(c, e, "unknown plugin '%s'%s (available: %s)", name, why, all[0] ? all : "none");
  }
  return h;
}

static int mcc_elementKind(const mcpHeader* h) {
  return h->kind == mcpKIND_ACTUATOR || h->kind == mcpKIND_SENSOR;
}

int mcc_findInstance(mcc* c, const char* name) {
  for (int i = 0; i < c->plugins.n; i++) {
    const mccInstance* in = MCC_AT(c->plugins, mccInstance, i);
    if (in->name && !strcmp(in->name, name)) {
      return i;
    }
  }
  return -1;
}

void mcc_readExtension(mcc* c, const mcxElem* e) {
  mcc_checkAttrs(c, e, "");
  for (int k = 0; k < e->nchild; k++) {
    const mcxElem* ch = e->child[k];
    if (strcmp(ch->name, "plugin")) {
      mcc_unknownElem(c, ch);
    }
    mcc_checkAttrs(c, ch, "plugin");
    const mcpHeader* h = mcc_anyPlugin(c, ch, mcc_require(c, ch, "plugin"));
    for (int i = 0; i < ch->nchild; i++) {
      const mcxElem* sub = ch->child[i];
      if (!strcmp(sub->name, "instance")) {
        if (!mcc_elementKind(h)) {
          mcc_error(c, sub, "plugin '%s' is a %s plugin, used once per model: write its <config> "
                    "directly under <plugin>", h->name, mcp_kindName((int)h->kind));
        }
        mcc_checkAttrs(c, sub, "name");
        const char* name = mcc_require(c, sub, "name");
        if (mcc_findInstance(c, name) >= 0) {
          mcc_error(c, sub, "duplicate plugin instance name '%s'", name);
        }
        int inst = mcc_addInstance(c, h, -1, -1, name, sub);
        mcc_configChildren(c, inst, sub);
        mcc_configDone(c, inst, sub);
      } else if (!strcmp(sub->name, "config")) {
        if (mcc_elementKind(h)) {
          mcc_error(c, sub, "configuration of %s plugin '%s' belongs in an <instance> or on its "
                    "elements", mcp_kindName((int)h->kind), h->name);
        }
        mcc_checkAttrs(c, sub, "key value");
        mcc_require(c, sub, "key");
        mcc_require(c, sub, "value");
        mccExtConfig* x = (mccExtConfig*)mcc_push(c, &c->extconfig);
        x->hdr = h;
        x->elem = sub;
      } else {
        mcc_unknownElem(c, sub);
      }
    }
  }
}

int mcc_pluginRef(mcc* c, const mcxElem* e, int kind, int objtype, int objid,
                  const mcpHeader** hdr) {
  const char* iname = mcx_attr(e, "instance");
  const char* pname = mcx_attr(e, "plugin");
  if (!iname == !pname) {
    mcc_error(c, e, "<plugin> needs exactly one of 'plugin' (a new instance) and 'instance' (one "
              "declared in <extension>)");
  }
  if (pname) {
    *hdr = mcc_anyPlugin(c, e, pname);
    if ((int)(*hdr)->kind != kind) {
      mcc_error(c, e, "plugin '%s' is a %s plugin, not a%s %s plugin", pname,
                mcp_kindName((int)(*hdr)->kind), kind == mcpKIND_ACTUATOR ? "n" : "",
                mcp_kindName(kind));
    }
    return -1;
  }
  int inst = mcc_findInstance(c, iname);
  if (inst < 0) {
    mcc_error(c, e, "unknown plugin instance '%s' (declare it in <extension><plugin><instance>)",
              iname);
  }
  mccInstance* in = MCC_AT(c->plugins, mccInstance, inst);
  if ((int)in->hdr->kind != kind) {
    mcc_error(c, e, "plugin instance '%s' is of %s plugin '%s', not of a%s %s plugin", iname,
              mcp_kindName((int)in->hdr->kind), in->hdr->name, kind == mcpKIND_ACTUATOR ? "n" : "",
              mcp_kindName(kind));
  }
  if (in->objtype >= 0) {
    mcc_error(c, e, "plugin instance '%s' is already used by another element", iname);
  }
  if (e->nchild) {
    mcc_error(c, e->child[0], "the configuration of plugin instance '%s' is written in its "
              "<instance>", iname);
  }
  in->objtype = objtype;
  in->objid = objid;
  *hdr = in->hdr;
  return inst;
}

//---------------------------------- model-wide instances ------------------------------------------

// a model-wide instance of h with the <extension> configuration written for it
static int mcc_singleton(mcc* c, const mcpHeader* h) {
  const mcxElem* where = c->option_elem ? c->option_elem : c->tree->root;
  int inst = mcc_addInstance(c, h, -1, -1, NULL, where);
  for (int i = 0; i < c->extconfig.n; i++) {
    mccExtConfig* x = MCC_AT(c->extconfig, mccExtConfig, i);
    if (x->hdr == h) {
      mcc_configSet(c, inst, mcx_attr(x->elem, "key"), mcx_attr(x->elem, "value"), x->elem);
      x->used = 1;
      where = x->elem;
    }
  }
  mcc_configDone(c, inst, where);
  return inst;
}

void mcc_pluginSingletons(mcc* c) {
  c->plugin_integrator = c->integrator ? mcc_singleton(c, &c->integrator->hdr) : -1;
  c->plugin_solver = c->solver ? mcc_singleton(c, &c->solver->hdr) : -1;
  c->plugin_postsolver = c->postsolver ? mcc_singleton(c, &c->postsolver->hdr) : -1;
  for (int k = 0; k < mcp_collisionCount(); k++) {
    if (mcp_collisionOwnsPair(k)) {
      mcc_singleton(c, &mcp_collision(k)->hdr);
    }
  }

  // configuration nobody reads is an error, never dropped
  for (int i = 0; i < c->extconfig.n; i++) {
    const mccExtConfig* x = MCC_AT(c->extconfig, mccExtConfig, i);
    if (!x->used) {
      mcc_error(c, x->elem, "configuration for %s plugin '%s', which this model does not use%s",
                mcp_kindName((int)x->hdr->kind), x->hdr->name,
                x->hdr->kind == mcpKIND_COLLISION ? " (it collides no geom-type pair)" :
                " (select it in <option>)");
    }
  }
}

//---------------------------------- the model -----------------------------------------------------

// bytes of "plugin: warning\0" strings of all instances (stored at the end of m->names)
int mcc_warningNames(const mcc* c, mcModel* m, int start) {
  int n = 0;
  for (int i = 0; i < c->plugins.n; i++) {
    const mccInstance* in = MCC_AT(c->plugins, mccInstance, i);
    for (int k = 0; in->ext && in->ext->warnings && in->ext->warnings[k]; k++) {
      int len = (int)(strlen(in->hdr->name) + 2 + strlen(in->ext->warnings[k]));
      if (m) {
        snprintf(m->names + start + n, (size_t)len + 1, "%s: %s", in->hdr->name,
                 in->ext->warnings[k]);
      }
      n += len + 1;
    }
  }
  return n;
}

int mcc_warningCount(const mcc* c) {
  int w = 0;
  for (int i = 0; i < c->plugins.n; i++) {
    const mccInstance* in = MCC_AT(c->plugins, mccInstance, i);
    for (int k = 0; in->ext && in->ext->warnings && in->ext->warnings[k]; k++) {
      w++;
    }
  }
  return w;
}

void mcc_fillPlugins(mcc* c, mcModel* m) {
  int warnadr = 0;
  for (int i = 0; i < m->nplugin; i++) {
    const mccInstance* in = MCC_AT(c->plugins, mccInstance, i);
    m->plugin[i] = in->hdr;
    m->plugin_objtype[i] = in->objtype;
    m->plugin_objid[i] = in->objid;
    m->plugin_configadr[i] = in->configadr;
    m->plugin_confignum[i] = in->confignum;
    m->plugin_stateadr[i] = -1;
    m->plugin_statenum[i] = 0;
    m->plugin_datasize[i] = 0;
    int nw = 0;
    while (in->ext && in->ext->warnings && in->ext->warnings[nw]) {
      nw++;
    }
    m->plugin_warnadr[i] = warnadr;
    m->plugin_warnnum[i] = nw;
    warnadr += nw;
  }
  if (m->npluginconfig) {
    memcpy(m->plugin_config, c->config.data, sizeof(mcNum) * (size_t)m->npluginconfig);
  }
  m->integrator = c->integrator;
  m->solver = c->solver;
  m->postsolver = c->postsolver;
  m->plugin_integrator = c->plugin_integrator;
  m->plugin_solver = c->plugin_solver;
  m->plugin_postsolver = c->plugin_postsolver;
}

void mcc_pluginStorage(mcc* c, mcModel* m) {
  int adr = 0;
  for (int i = 0; i < m->nplugin; i++) {
    const mccInstance* in = MCC_AT(c->plugins, mccInstance, i);
    int n = in->ext && in->ext->nstate ? in->ext->nstate(mcp_host(), m, i) : 0;
    size_t bytes = in->ext && in->ext->ndata ? in->ext->ndata(mcp_host(), m, i) : 0;
    if (n < 0 || n > (1 << 24) || bytes > ((size_t)1 << 30)) {
      mcc_error(c, in->elem, "plugin '%s' asks for %d state numbers and %zu bytes of data "
                "(instance %d)", in->hdr->name, n, bytes, i);
    }
    m->plugin_stateadr[i] = n ? adr : -1;
    m->plugin_statenum[i] = n;
    m->plugin_datasize[i] = (int)bytes;
    adr += n;
  }
  m->npluginstate = adr;
}
