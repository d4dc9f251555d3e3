// Moduco core: expat-based XML reader with include expansion.
#include "xml/xml_reader.h"

#include <errno.h>
#include <expat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// maximum element nesting depth of a whole model (includes spliced, <mujoco> counts as 1): the
// reader, the include expansion and the compiler's walks recurse once per level, so the depth is
// bounded well above real models (the deepest in the corpus nests about 30 bodies) and far below
// what an 8 MB stack holds (see docs/status.md, Limits)
#define MCX_MAXNEST 1000

// most bytes read for one model (the top-level file and every include together): bounds include
// amplification (one file included thousands of times per level); the largest corpus model has
// under 200 KB of XML
#define MCX_MAXBYTES ((size_t)64 << 20)

// maximum include nesting depth (also bounds cycles that evade the name check)
#define MCX_MAXDEPTH 64

// maximum number of include elements expanded in one tree (bounds include fan-out bombs)
#define MCX_MAXINCLUDE 4096

// optional file-system replacement (mcx_setReadHook)
static mcxReadHook g_read_hook = NULL;
static void* g_read_user = NULL;

// parser state while reading one document
typedef struct mcxParse_ {
  XML_Parser parser;
  mcxTree* tree;
  const char* file;               // file name (owned by the tree)
  mcxElem* root;                  // root of this document
  mcxElem* cur;                   // element being filled
  int depth;                      // nesting depth of cur in the whole model (includes spliced)
  int failed;                     // 1: out of memory in a handler; 2: nested too deep
} mcxParse;

//---------------------------------- small helpers -------------------------------------------------

// write an error message `file:line: message`
static void mcx_error(char* error, int error_sz, const char* file, int line, const char* fmt, ...) {
  if (!error || error_sz <= 0) {
    return;
  }
  int n = line > 0 ? snprintf(error, (size_t)error_sz, "%s:%d: ", file, line)
                   : snprintf(error, (size_t)error_sz, "%s: ", file);  // no line: the whole file
  if (n < 0 || n >= error_sz) {
    return;
  }
  va_list args;
  va_start(args, fmt);
  vsnprintf(error + n, (size_t)(error_sz - n), fmt, args);
  va_end(args);
}

// duplicate a string; NULL on failure
char* mcx_strdup(const char* s) {
  size_t n = strlen(s) + 1;
  char* r = (char*)malloc(n);
  if (r) {
    memcpy(r, s, n);
  }
  return r;
}

// add a file name to the tree's pool; return the pooled copy or NULL
static const char* mcx_addFile(mcxTree* tree, const char* file) {
  char** files = (char**)realloc(tree->files, sizeof(char*) * (size_t)(tree->nfile + 1));
  if (!files) {
    return NULL;
  }
  tree->files = files;
  char* copy = mcx_strdup(file);
  if (!copy) {
    return NULL;
  }
  tree->files[tree->nfile++] = copy;
  return copy;
}

// free one element and its subtree
void mcx_freeElem(mcxElem* e) {
  if (!e) {
    return;
  }
  for (int i = 0; i < e->nchild; i++) {
    mcx_freeElem(e->child[i]);
  }
  for (int i = 0; i < 2 * e->nattr; i++) {
    free(e->attr[i]);
  }
  free(e->attr);
  free(e->child);
  free(e->name);
  free(e);
}

// append a child; return 0 on success
static int mcx_addChild(mcxElem* parent, mcxElem* child) {
  if (parent->nchild == parent->cchild) {
    int cap = parent->cchild ? 2 * parent->cchild : 4;
    mcxElem** c = (mcxElem**)realloc(parent->child, sizeof(mcxElem*) * (size_t)cap);
    if (!c) {
      return -1;
    }
    parent->child = c;
    parent->cchild = cap;
  }
  parent->child[parent->nchild++] = child;
  child->parent = parent;
  return 0;
}

void mcx_dirname(const char* path, char* dir, int dir_sz) {
  const char* slash = strrchr(path, '/');
  int n = slash ? (int)(slash - path) + 1 : 0;
  if (n >= dir_sz) {
    n = dir_sz - 1;
  }
  memcpy(dir, path, (size_t)n);
  dir[n] = 0;
}

void mcx_joinPath(const char* dir, const char* path, char* out, int out_sz) {
  // absolute path or no directory: copy as is
  if (path[0] == '/' || !dir || !dir[0]) {
    snprintf(out, (size_t)out_sz, "%s", path);
    return;
  }
  size_t n = strlen(dir);
  const char* sep = (dir[n - 1] == '/') ? "" : "/";
  snprintf(out, (size_t)out_sz, "%s%s%s", dir, sep, path);
}

//---------------------------------- expat callbacks -----------------------------------------------

// start of an element: create it and attach to the current element
static void XMLCALL mcx_start(void* user, const XML_Char* name, const XML_Char** atts) {
  mcxParse* p = (mcxParse*)user;
  if (p->failed) {
    return;
  }
  if (p->depth >= MCX_MAXNEST) {
    p->failed = 2;
    XML_StopParser(p->parser, XML_FALSE);
    return;
  }
  mcxElem* e = (mcxElem*)calloc(1, sizeof(mcxElem));
  if (!e) {
    p->failed = 1;
    XML_StopParser(p->parser, XML_FALSE);
    return;
  }
  e->line = (int)XML_GetCurrentLineNumber(p->parser);
  e->file = p->file;

  // copy the attributes
  int n = 0;
  while (atts[2 * n]) {
    n++;
  }
  e->name = mcx_strdup(name);
  e->attr = (char**)calloc((size_t)(2 * n + 1), sizeof(char*));
  int ok = e->name && e->attr;
  for (int i = 0; ok && i < 2 * n; i++) {
    e->attr[i] = mcx_strdup(atts[i]);
    ok = e->attr[i] != NULL;
  }
  e->nattr = n;

  // attach
  if (ok) {
    if (p->cur) {
      ok = mcx_addChild(p->cur, e) == 0;
    } else {
      p->root = e;
    }
  }
  if (!ok) {
    mcx_freeElem(e);
    p->failed = 1;
    XML_StopParser(p->parser, XML_FALSE);
    return;
  }
  p->cur = e;
  p->depth++;
}

// end of an element: move back to the parent
static void XMLCALL mcx_end(void* user, const XML_Char* name) {
  mcxParse* p = (mcxParse*)user;
  if (p->failed || !p->cur) {
    return;
  }
  p->cur = p->cur->parent;
  p->depth--;
}

//---------------------------------- parsing ------------------------------------------------------

// parse a buffer into an element tree; file must be pooled in the tree; base: nesting depth of
// the document's root element minus one
static mcxElem* mcx_parseBuffer(mcxTree* tree, const char* buf, size_t len, const char* file,
                                int base, char* error, int error_sz) {
  mcxParse p;
  memset(&p, 0, sizeof(p));
  p.tree = tree;
  p.file = file;
  p.depth = base;
  p.parser = XML_ParserCreate(NULL);
  if (!p.parser) {
    mcx_error(error, error_sz, file, 0, "could not create XML parser");
    return NULL;
  }
  XML_SetUserData(p.parser, &p);
  XML_SetElementHandler(p.parser, mcx_start, mcx_end);

  // parse in chunks so that sizes beyond int range are safe
  int ok = 1;
  size_t off = 0;
  do {
    size_t chunk = len - off > (1u << 30) ? (1u << 30) : len - off;
    int last = off + chunk == len;
    if (XML_Parse(p.parser, buf + off, (int)chunk, last) == XML_STATUS_ERROR) {
      ok = 0;
      break;
    }
    off += chunk;
  } while (off < len);

  if (p.failed == 2) {
    mcx_error(error, error_sz, file, (int)XML_GetCurrentLineNumber(p.parser),
              "elements nested deeper than %d levels (the limit of the reader)", MCX_MAXNEST);
  } else if (p.failed) {
    mcx_error(error, error_sz, file, (int)XML_GetCurrentLineNumber(p.parser), "out of memory");
  } else if (!ok) {
    mcx_error(error, error_sz, file, (int)XML_GetCurrentLineNumber(p.parser),
              "XML parse error: %s", XML_ErrorString(XML_GetErrorCode(p.parser)));
  } else if (!p.root) {
    mcx_error(error, error_sz, file, 1, "empty XML document");
    ok = 0;
  }
  XML_ParserFree(p.parser);
  if (!ok || p.failed) {
    mcx_freeElem(p.root);
    return NULL;
  }
  return p.root;
}

// read a whole file into a malloc'ed buffer; NULL if it cannot be read, with *why (if not NULL)
// saying why. Only regular files are read (a folder, a device such as /dev/zero or a FIFO is
// refused before reading), and at most limit bytes.
static char* mcx_readAll(const char* path, size_t* len, size_t limit, const char** why) {
  const char* dummy;
  why = why ? why : &dummy;
  *why = "no such file or not readable";
  if (g_read_hook) {
    char* b = g_read_hook(g_read_user, path, len);
    if (b && *len > limit) {
      free(b);
      *why = "larger than the size limit";
      return NULL;
    }
    return b;
  }
  // stat before opening too: opening a FIFO for reading would block
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    *why = "not a regular file (a folder, a device or a pipe)";
    return NULL;
  }
  FILE* f = fopen(path, "rb");
  if (!f) {
    *why = strerror(errno);
    return NULL;
  }
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    *why = "not a regular file (a folder, a device or a pipe)";
    return NULL;
  }
  if ((unsigned long long)st.st_size > limit) {
    fclose(f);
    *why = "larger than the size limit";
    return NULL;
  }
  char* buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n + 65536 > cap) {
      cap = cap ? 2 * cap : 65536;
      char* b = (char*)realloc(buf, cap);
      if (!b) {
        free(buf);
        fclose(f);
        *why = "out of memory";
        return NULL;
      }
      buf = b;
    }
    size_t r = fread(buf + n, 1, cap - n, f);
    n += r;
    if (r == 0 || n > limit) {
      break;
    }
  }
  int err = ferror(f);
  fclose(f);
  if (err || n > limit) {
    free(buf);
    *why = err ? "read error" : "larger than the size limit";
    return NULL;
  }
  *len = n;
  return buf;
}

// include chain used for cycle detection
typedef struct mcxChain_ {
  const char* file;
  const struct mcxChain_* up;
} mcxChain;

static int mcx_expand(mcxTree* tree, mcxElem* e, int edepth, const mcxChain* chain, int depth,
                      char* error, int error_sz);

// parse a file (already known to be absent from the chain) and expand its includes; base: nesting
// depth of its root element minus one
static mcxElem* mcx_parseFile(mcxTree* tree, const char* path, const mcxChain* chain, int depth,
                              int base, const char* from_file, int from_line, char* error,
                              int error_sz) {
  size_t len = 0;
  const char* why = NULL;
  char* buf = mcx_readAll(path, &len, MCX_MAXBYTES - tree->nbytes, &why);
  if (!buf) {
    const char* limit = strstr(why, "size limit") ? " (at most 64 MiB of XML per model, all "
                                                    "included files together)" : "";
    if (from_file) {
      mcx_error(error, error_sz, from_file, from_line, "could not open included file '%s': %s%s",
                path, why, limit);
    } else {
      mcx_error(error, error_sz, path, 0, "could not open file: %s%s", why, limit);
    }
    return NULL;
  }
  tree->nbytes += len;
  const char* file = mcx_addFile(tree, path);
  if (!file) {
    free(buf);
    mcx_error(error, error_sz, path, 0, "out of memory");
    return NULL;
  }
  mcxElem* root = mcx_parseBuffer(tree, buf, len, file, base, error, error_sz);
  free(buf);
  if (!root) {
    return NULL;
  }
  char real[4096];
  if (g_read_hook || !realpath(path, real)) {
    snprintf(real, sizeof(real), "%s", path);
  }
  mcxChain link = {real, chain};
  if (mcx_expand(tree, root, base + 1, &link, depth, error, error_sz)) {
    mcx_freeElem(root);
    return NULL;
  }
  return root;
}

// expand the include element e->child[i] (at nesting depth edepth) in place: its file's root's
// children replace it; return how many, or -1 on error. Kept apart from mcx_expand (and not
// inlined) so the path buffers are not in every frame of that recursion.
__attribute__((noinline)) static int mcx_include(mcxTree* tree, mcxElem* e, int i, int edepth,
                                                 const mcxChain* chain, int depth, char* error,
                                                 int error_sz) {
  mcxElem* c = e->child[i];

  // check the include element itself
  const char* rel = mcx_attr(c, "file");
  if (!rel) {
    mcx_error(error, error_sz, c->file, c->line, "<include> requires attribute 'file'");
    return -1;
  }
  for (int k = 0; k < c->nattr; k++) {
    if (strcmp(c->attr[2 * k], "file")) {
      mcx_error(error, error_sz, c->file, c->line, "unknown attribute '%s' in element <include>",
                c->attr[2 * k]);
      return -1;
    }
  }
  if (c->nchild) {
    mcx_error(error, error_sz, c->file, c->line, "<include> cannot have child elements");
    return -1;
  }
  if (depth >= MCX_MAXDEPTH) {
    mcx_error(error, error_sz, c->file, c->line, "include nesting deeper than %d", MCX_MAXDEPTH);
    return -1;
  }
  if (++tree->ninclude > MCX_MAXINCLUDE) {
    mcx_error(error, error_sz, c->file, c->line, "more than %d <include> elements",
              MCX_MAXINCLUDE);
    return -1;
  }

  // resolve the path relative to the including file's directory
  char dir[1024], path[2048];
  if (!strcmp(c->file, "string")) {
    snprintf(dir, sizeof(dir), "%s", tree->dir);
  } else {
    mcx_dirname(c->file, dir, sizeof(dir));
  }
  mcx_joinPath(dir, rel, path, sizeof(path));

  // cycle check (on resolved paths)
  char real[4096];
  if (g_read_hook || !realpath(path, real)) {
    snprintf(real, sizeof(real), "%s", path);
  }
  for (const mcxChain* k = chain; k; k = k->up) {
    if (!strcmp(k->file, real)) {
      mcx_error(error, error_sz, c->file, c->line, "include cycle: '%s' is already being included",
                path);
      return -1;
    }
  }

  // parse (the included root takes the place of e, so its children sit at the include's depth)
  // and splice the included root's children in place of the include element
  mcxElem* inc = mcx_parseFile(tree, path, chain, depth + 1, edepth - 2, c->file, c->line, error,
                               error_sz);
  if (!inc) {
    return -1;
  }
  int n = inc->nchild;
  if (n != 1) {
    int cap = e->nchild - 1 + n;
    if (cap > e->cchild) {
      mcxElem** ch = (mcxElem**)realloc(e->child, sizeof(mcxElem*) * (size_t)cap);
      if (!ch) {
        mcx_freeElem(inc);
        mcx_error(error, error_sz, c->file, c->line, "out of memory");
        return -1;
      }
      e->child = ch;
      e->cchild = cap;
    }
    memmove(e->child + i + n, e->child + i + 1, sizeof(mcxElem*) * (size_t)(e->nchild - i - 1));
  }
  for (int k = 0; k < n; k++) {
    e->child[i + k] = inc->child[k];
    inc->child[k]->parent = e;
  }
  e->nchild += n - 1;
  inc->nchild = 0;
  mcx_freeElem(inc);
  mcx_freeElem(c);
  return n;
}

// expand the include elements below e (at nesting depth edepth, recursively; the depth is bounded
// by MCX_MAXNEST); return 0 on success
static int mcx_expand(mcxTree* tree, mcxElem* e, int edepth, const mcxChain* chain, int depth,
                      char* error, int error_sz) {
  for (int i = 0; i < e->nchild; i++) {
    if (strcmp(e->child[i]->name, "include")) {
      if (mcx_expand(tree, e->child[i], edepth + 1, chain, depth, error, error_sz)) {
        return -1;
      }
      continue;
    }
    int n = mcx_include(tree, e, i, edepth + 1, chain, depth, error, error_sz);
    if (n < 0) {
      return -1;
    }
    // the spliced children are already expanded
    i += n - 1;
  }
  return 0;
}

//---------------------------------- public API ----------------------------------------------------

char* mcx_readBytes(const char* path, size_t* len) {
  size_t n = 0;
  char* buf = path ? mcx_readAll(path, &n, (size_t)-1, NULL) : NULL;
  if (len) {
    *len = buf ? n : 0;
  }
  return buf;
}


void mcx_setReadHook(mcxReadHook hook, void* user) {
  g_read_hook = hook;
  g_read_user = user;
}


// allocate an empty tree with the given include directory
static mcxTree* mcx_newTree(const char* dir) {
  mcxTree* tree = (mcxTree*)calloc(1, sizeof(mcxTree));
  if (!tree) {
    return NULL;
  }
  tree->dir = mcx_strdup(dir ? dir : "");
  if (!tree->dir) {
    free(tree);
    return NULL;
  }
  return tree;
}

mcxTree* mcx_readFile(const char* filename, char* error, int error_sz) {
  if (error && error_sz > 0) {
    error[0] = 0;
  }
  if (!filename) {
    mcx_error(error, error_sz, "(null)", 0, "no file name given");
    return NULL;
  }
  char dir[1024];
  mcx_dirname(filename, dir, sizeof(dir));
  mcxTree* tree = mcx_newTree(dir);
  if (!tree) {
    mcx_error(error, error_sz, filename, 0, "out of memory");
    return NULL;
  }
  tree->root = mcx_parseFile(tree, filename, NULL, 0, 0, NULL, 0, error, error_sz);
  if (!tree->root) {
    mcx_freeTree(tree);
    return NULL;
  }
  return tree;
}

mcxTree* mcx_readString(const char* xml, const char* dir, char* error, int error_sz) {
  if (error && error_sz > 0) {
    error[0] = 0;
  }
  mcxTree* tree = mcx_newTree(dir);
  const char* file = tree ? mcx_addFile(tree, "string") : NULL;
  if (!file) {
    mcx_freeTree(tree);
    mcx_error(error, error_sz, "string", 0, "out of memory");
    return NULL;
  }
  if (!xml) {
    mcx_freeTree(tree);
    mcx_error(error, error_sz, "string", 0, "no XML string given");
    return NULL;
  }
  tree->root = mcx_parseBuffer(tree, xml, strlen(xml), file, 0, error, error_sz);
  if (!tree->root || mcx_expand(tree, tree->root, 1, NULL, 0, error, error_sz)) {
    mcx_freeTree(tree);
    return NULL;
  }
  return tree;
}

void mcx_freeTree(mcxTree* tree) {
  if (!tree) {
    return;
  }
  mcx_freeElem(tree->root);
  for (int i = 0; i < tree->nfile; i++) {
    free(tree->files[i]);
  }
  free(tree->files);
  free(tree->dir);
  free(tree);
}

const char* mcx_attr(const mcxElem* e, const char* key) {
  for (int i = 0; i < e->nattr; i++) {
    if (!strcmp(e->attr[2 * i], key)) {
      return e->attr[2 * i + 1];
    }
  }
  return NULL;
}
