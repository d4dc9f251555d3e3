// Moduco Python extension: the field tables of mcModel and mcData, expanded from the X-macro
// lists MC_MODEL_SIZES, MC_MODEL_POINTERS and MC_DATA_POINTERS. Nothing here names a field: a
// field added to a list appears in Python with its shape after a rebuild.
#include <string.h>

#include "pymoduco.h"

// numpy type of a C element type (the types the lists use)
#define PM_NPYTYPE(type) _Generic(*(type*)0,                                                     \
    double: NPY_FLOAT64, float: NPY_FLOAT32, int: NPY_INT32, unsigned char: NPY_UINT8,            \
    char: NPY_BYTE)

#define X(type, name, nr, nc) {#name, #nr, #nc, PM_NPYTYPE(type), offsetof(mcModel, name)},
const pmField pm_modelFields[] = {MC_MODEL_POINTERS(X)};
#undef X
const int pm_nmodelFields = sizeof(pm_modelFields) / sizeof(pm_modelFields[0]);

#define X(type, name, nr, nc) {#name, #nr, #nc, PM_NPYTYPE(type), offsetof(mcData, name)},
const pmField pm_dataFields[] = {MC_DATA_POINTERS(X)};
#undef X
const int pm_ndataFields = sizeof(pm_dataFields) / sizeof(pm_dataFields[0]);

#define X(name) #name,
const char* const pm_modelSizes[] = {MC_MODEL_SIZES(X)};
#undef X
const int pm_nmodelSizes = sizeof(pm_modelSizes) / sizeof(pm_modelSizes[0]);


int pm_modelSize(const mcModel* m, int k) {
  int i = 0;
#define X(name) if (i++ == k) return m->name;
  MC_MODEL_SIZES(X)
#undef X
  return 0;
}


// the shape expressions of the lists refer to size fields by name: bind them as locals
#define PM_BIND_SIZES(m)                                                                          \
  MC_MODEL_SIZES(PM_BIND_ONE)
#define PM_BIND_ONE(name) const int name = m->name; (void)name;

void pm_modelShape(const mcModel* m, int i, npy_intp* rows, npy_intp* cols) {
  PM_BIND_SIZES(m)
  int k = 0;
#define X(type, fname, nr, nc) if (k++ == i) { *rows = (nr); *cols = (nc); return; }
  MC_MODEL_POINTERS(X)
#undef X
  *rows = *cols = 0;
}


void pm_dataShape(const mcModel* m, int i, npy_intp* rows, npy_intp* cols) {
  PM_BIND_SIZES(m)
  int k = 0;
#define X(type, fname, nr, nc) if (k++ == i) { *rows = (nr); *cols = (nc); return; }
  MC_DATA_POINTERS(X)
#undef X
  *rows = *cols = 0;
}


int pm_structural(const pmField* f) {
  static const char* const suffixes[] = {
    "adr", "num", "id", "type", "dim", "size", "face", "graph", "signature", "nrow", "ncol",
    "plugin", "geom1", "geom2",
  };
  size_t len = strlen(f->name);
  if (f->type != NPY_INT32 || (len >= 7 && !strcmp(f->name + len - 7, "contype"))) {
    return 0;                       // contact bitmasks stay writable
  }
  for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
    size_t n = strlen(suffixes[i]);
    if (len >= n && !strcmp(f->name + len - n, suffixes[i])) {
      return 1;
    }
  }
  return 0;
}


int pm_fieldDims(const pmField* f) {
  return strcmp(f->cols, "1") ? 2 : 1;
}


int pm_findField(const pmField* table, int n, const char* name) {
  for (int i = 0; i < n; i++) {
    if (!strcmp(table[i].name, name)) {
      return i;
    }
  }
  return -1;
}
