// Moduco core: an expat-based XML reader producing an in-memory element tree.
//
// Every element keeps its name, attributes (in file order), the line it starts on and the file it
// comes from, so the compiler can report `file:line: message`. `<include file="..."/>` elements
// are expanded in place: the children of the included file's root element replace the include
// element. Included paths are relative to the directory of the including file. The tree owns all
// strings it points to; free it with mcx_freeTree.
#ifndef MODUCO_CORE_XML_XML_READER_H_
#define MODUCO_CORE_XML_XML_READER_H_

#include <stddef.h>

// One XML element.
typedef struct mcxElem_ {
  char* name;                     // element name
  int nattr;                      // number of attributes
  char** attr;                    // 2*nattr strings: key0, value0, key1, value1, ...
  int line;                       // line where the element starts (1-based)
  const char* file;               // file the element comes from (owned by the tree)
  struct mcxElem_* parent;        // parent element; NULL for the root
  struct mcxElem_** child;        // children in document order
  int nchild;                     // number of children
  int cchild;                     // capacity of child
  int scope;                      // compiler scope: 0 for the model, one per <attach> (set by
                                  // the compiler; the reader leaves 0)
} mcxElem;

// A parsed document.
typedef struct mcxTree_ {
  mcxElem* root;                  // root element
  char** files;                   // every file name elements point to
  int nfile;                      // number of file names
  char* dir;                      // directory of the top-level file ("" for none)
  int ninclude;                   // include elements expanded so far (bounded by the reader)
  size_t nbytes;                  // bytes of XML read so far (bounded by the reader)
} mcxTree;

// Read a file (with includes expanded). On failure return NULL and write `file:line: message`.
mcxTree* mcx_readFile(const char* filename, char* error, int error_sz);

// Read a string (file name "string"); includes resolve against dir (NULL: current directory).
mcxTree* mcx_readString(const char* xml, const char* dir, char* error, int error_sz);

// Free a tree. Nullable: tree.
void mcx_freeTree(mcxTree* tree);

// Value of an attribute; NULL if the element does not have it.
const char* mcx_attr(const mcxElem* e, const char* key);

// Write the directory part of path (with a trailing '/', or "" if none) into dir.
void mcx_dirname(const char* path, char* dir, int dir_sz);

// Join dir and a relative path into out (absolute paths are copied as is).
void mcx_joinPath(const char* dir, const char* path, char* out, int out_sz);

// A file-system replacement for the reader (fuzzing, tests, embedding): return the bytes of path
// in a malloc'ed buffer (the reader frees it) and set *len, or return NULL if there is no such
// file. user is passed back unchanged.
typedef char* (*mcxReadHook)(void* user, const char* path, size_t* len);

// Install a read hook used for every file the reader opens (top-level and included); NULL restores
// the real file system. Process-wide and not thread-safe: install it before loading.
void mcx_setReadHook(mcxReadHook hook, void* user);

// Read a whole file into a malloc'ed buffer (through the read hook when one is installed); set
// *len. Return NULL if it cannot be read or is not a regular file. Asset readers use this so fuzzers and tests can serve
// files from memory.
char* mcx_readBytes(const char* path, size_t* len);

// Helpers for code that edits a tree (compiler_replicate.c): a malloc'd copy of s (NULL when out
// of memory), and freeing an element with its attributes and subtree (NULL is ignored).
char* mcx_strdup(const char* s);
void mcx_freeElem(mcxElem* e);

#endif  // MODUCO_CORE_XML_XML_READER_H_
