// Moduco Python extension: shared declarations of the _moduco module (sdk/python/src).
//
// The extension wraps mcModel and mcData in two Python types whose arrays are numpy views into
// the C buffers (zero copy). Field tables are expanded from the X-macro lists of mcmodel.h and
// mcdata.h (fields.c), so a field added to those lists appears in Python without edits here.
#ifndef MODUCO_PYTHON_PYMODUCO_H_
#define MODUCO_PYTHON_PYMODUCO_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#ifndef PM_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#define PY_ARRAY_UNIQUE_SYMBOL moduco_ARRAY_API
#include <numpy/arrayobject.h>

#include <moduco/moduco.h>

//---------------------------------- objects -------------------------------------------------------

typedef struct {                  // _moduco.Model
  PyObject_HEAD
  mcModel* m;
  PyObject* dict;                 // instance __dict__ (Python subclasses keep caches there)
} pmModel;

typedef struct {                  // _moduco.Data: keeps its model alive
  PyObject_HEAD
  mcData* d;
  pmModel* model;
  PyObject* dict;
} pmData;

// the core model and data behind Model / Data objects (type-checked by pm_checkPair)
#define MODEL(o) (((pmModel*)(o))->m)
#define DATA(o) (((pmData*)(o))->d)

typedef struct {                  // _moduco.Option: the mcOption of a model
  PyObject_HEAD
  pmModel* model;
} pmOption;

extern PyTypeObject pmModelType;
extern PyTypeObject pmDataType;
extern PyTypeObject pmOptionType;

//---------------------------------- field tables (fields.c) ---------------------------------------

typedef struct {                  // one array field of mcModel or mcData
  const char* name;
  const char* rows;               // name of the size field giving the number of rows
  const char* cols;               // column expression: "1" makes a 1-D array, as in MuJoCo
  int type;                       // numpy type number
  size_t offset;                  // offset of the pointer in the struct
} pmField;

extern const pmField pm_modelFields[];
extern const int pm_nmodelFields;
extern const pmField pm_dataFields[];
extern const int pm_ndataFields;
extern const char* const pm_modelSizes[];
extern const int pm_nmodelSizes;

// size field k of the model
int pm_modelSize(const mcModel* m, int k);

// rows and columns of model field i / data field i for model m
void pm_modelShape(const mcModel* m, int i, npy_intp* rows, npy_intp* cols);
void pm_dataShape(const mcModel* m, int i, npy_intp* rows, npy_intp* cols);

// number of dimensions of a field's view: 1 when its columns are the literal 1, else 2 (so
// key_act is (nkey, na) even when na is 1)
int pm_fieldDims(const pmField* f);

// 1 if a model field holds structure (int addresses, counts, ids, types, sizes): its view is
// read-only, since an inconsistent value would make the engine read out of bounds
int pm_structural(const pmField* f);

// index of a field by name in a table; -1 if none
int pm_findField(const pmField* table, int n, const char* name);

//---------------------------------- helpers (util.c) ----------------------------------------------

// numpy view of nd dims over ptr, keeping owner alive; NULL with an exception on failure
PyObject* pm_view(PyObject* owner, void* ptr, int type, int nd, const npy_intp* dims);

// copy value into the view: a scalar, or numeric values of the same size (any shape), cast at
// most 'same_kind' (TypeError for a wrong dtype, ValueError for a wrong size); return 0 or -1
// with an exception
int pm_assign(PyObject* view, PyObject* value, const char* what);

// float64 C-contiguous array of exactly n elements: input (a new reference to a converted
// copy or the object) or output (the object itself, which must already be such an array);
// NULL with TypeError/ValueError
PyArrayObject* pm_input(PyObject* obj, npy_intp n, const char* what);
PyArrayObject* pm_output(PyObject* obj, npy_intp n, const char* what);

// model and data arguments: check types, and that d was made for a model of m's sizes
int pm_checkModel(PyObject* m, const char* fn);
int pm_checkPair(PyObject* m, PyObject* d, const char* fn);

//---------------------------------- module parts --------------------------------------------------

extern PyMethodDef pm_functionMethods[];   // functions.c: mj_* functions
extern PyMethodDef pm_extraMethods[];      // extras.c: plugins, warnings, rollout
extern PyMethodDef pm_derivativeMethods[]; // derivatives.c: mjd_transitionFD, mjd_inverseFD
int pm_addEnums(PyObject* module);         // enums.c
int pm_addRollout(PyObject* module);       // rollout.c: RolloutPool
PyObject* pm_contactDtype(void);           // data.c: structured dtype of mcContact (borrowed)

#endif  // MODUCO_PYTHON_PYMODUCO_H_
