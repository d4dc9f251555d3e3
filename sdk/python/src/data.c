// Moduco Python extension: _moduco.Data, an mcData whose arrays are writable zero-copy numpy
// views (generated field table), with the contact list and the diagnostics (warnings, timers,
// solver statistics) as structured views, and the arena-allocated constraint rows.
#include <string.h>

#include "pymoduco.h"


//---------------------------------- structured dtypes ---------------------------------------------

static PyObject* recarrayType;    // numpy.recarray: element access by attribute (d.contact.dist)
static PyArray_Descr* contactDtype;
static PyArray_Descr* warningDtype;
static PyArray_Descr* timerDtype;
static PyArray_Descr* solverDtype;

#define SFIELD(T, f, fmt) {#f, fmt, offsetof(T, f)}
typedef struct { const char* name; const char* format; size_t offset; } StructField;

static const StructField contactFields[] = {
  SFIELD(mcContact, dist, "f8"), SFIELD(mcContact, pos, "(3,)f8"),
  SFIELD(mcContact, frame, "(9,)f8"), SFIELD(mcContact, includemargin, "f8"),
  SFIELD(mcContact, friction, "(5,)f8"), SFIELD(mcContact, solref, "(2,)f8"),
  SFIELD(mcContact, solreffriction, "(2,)f8"), SFIELD(mcContact, solimp, "(5,)f8"),
  SFIELD(mcContact, mu, "f8"), SFIELD(mcContact, H, "(36,)f8"), SFIELD(mcContact, dim, "i4"),
  SFIELD(mcContact, geom1, "i4"), SFIELD(mcContact, geom2, "i4"),
  SFIELD(mcContact, exclude, "i4"), SFIELD(mcContact, efc_address, "i4"),
};
static const StructField warningFields[] = {
  SFIELD(mcWarningStat, lastinfo, "i4"), SFIELD(mcWarningStat, number, "i4"),
};
static const StructField timerFields[] = {
  SFIELD(mcTimerStat, duration, "f8"), SFIELD(mcTimerStat, number, "i4"),
};
static const StructField solverFields[] = {
  SFIELD(mcSolverStat, improvement, "f8"), SFIELD(mcSolverStat, gradient, "f8"),
  SFIELD(mcSolverStat, lineslope, "f8"), SFIELD(mcSolverStat, nactive, "i4"),
  SFIELD(mcSolverStat, nchange, "i4"), SFIELD(mcSolverStat, neval, "i4"),
  SFIELD(mcSolverStat, nupdate, "i4"),
};
#undef SFIELD
#define NFIELDS(a) ((int)(sizeof(a) / sizeof((a)[0])))


// numpy dtype of a C struct from its field list
static PyArray_Descr* makeDtype(const StructField* f, int n, size_t itemsize) {
  PyObject* names = PyList_New(n);
  PyObject* formats = PyList_New(n);
  PyObject* offsets = PyList_New(n);
  PyArray_Descr* descr = NULL;
  if (names && formats && offsets) {
    for (int i = 0; i < n; i++) {
      PyList_SET_ITEM(names, i, PyUnicode_FromString(f[i].name));
      PyList_SET_ITEM(formats, i, PyUnicode_FromString(f[i].format));
      PyList_SET_ITEM(offsets, i, PyLong_FromSize_t(f[i].offset));
    }
    PyObject* spec = Py_BuildValue("{sOsOsOsn}", "names", names, "formats", formats, "offsets",
                                   offsets, "itemsize", (Py_ssize_t)itemsize);
    if (spec) {
      PyArray_DescrConverter(spec, &descr);
      Py_DECREF(spec);
    }
  }
  Py_XDECREF(names);
  Py_XDECREF(formats);
  Py_XDECREF(offsets);
  return descr;
}


static int initDtypes(void) {
  if (contactDtype) {
    return 0;
  }
  PyObject* np = PyImport_ImportModule("numpy");
  if (!np) {
    return -1;
  }
  recarrayType = PyObject_GetAttrString(np, "recarray");
  Py_DECREF(np);
  contactDtype = makeDtype(contactFields, NFIELDS(contactFields), sizeof(mcContact));
  warningDtype = makeDtype(warningFields, NFIELDS(warningFields), sizeof(mcWarningStat));
  timerDtype = makeDtype(timerFields, NFIELDS(timerFields), sizeof(mcTimerStat));
  solverDtype = makeDtype(solverFields, NFIELDS(solverFields), sizeof(mcSolverStat));
  return recarrayType && contactDtype && warningDtype && timerDtype && solverDtype ? 0 : -1;
}


PyObject* pm_contactDtype(void) {
  return initDtypes() ? NULL : (PyObject*)contactDtype;
}


// recarray view of n structs at ptr (an empty array when n is 0)
static PyObject* structView(PyObject* owner, void* ptr, PyArray_Descr* descr, npy_intp n) {
  Py_INCREF(descr);
  if (!n || !ptr) {
    n = 0;
    return PyArray_NewFromDescr((PyTypeObject*)recarrayType, descr, 1, &n, NULL, NULL, 0, NULL);
  }
  PyObject* arr = PyArray_NewFromDescr((PyTypeObject*)recarrayType, descr, 1, &n, NULL, ptr,
                                       NPY_ARRAY_CARRAY, NULL);
  if (!arr) {
    return NULL;
  }
  Py_INCREF(owner);
  if (PyArray_SetBaseObject((PyArrayObject*)arr, owner) < 0) {
    Py_DECREF(arr);
    return NULL;
  }
  return arr;
}


//---------------------------------- lifetime ------------------------------------------------------

static PyObject* wrapData(PyTypeObject* type, pmModel* model, mcData* d) {
  if (!d) {
    return PyErr_NoMemory();
  }
  pmData* self = (pmData*)type->tp_alloc(type, 0);
  if (!self) {
    mc_deleteData(d);
    return NULL;
  }
  self->d = d;
  Py_INCREF(model);
  self->model = model;
  return (PyObject*)self;
}


static PyObject* Data_new(PyTypeObject* type, PyObject* args, PyObject* kwds) {
  PyObject* model;
  if (!PyArg_ParseTuple(args, "O:MjData", &model) || pm_checkModel(model, "MjData") < 0 ||
      initDtypes() < 0) {
    return NULL;
  }
  return wrapData(type, (pmModel*)model, mc_makeData(((pmModel*)model)->m));
}


static int Data_init(PyObject* self, PyObject* args, PyObject* kwds) {
  return 0;
}


static void Data_dealloc(pmData* self) {
  PyObject_GC_UnTrack(self);
  Py_CLEAR(self->dict);
  mc_deleteData(self->d);
  Py_CLEAR(self->model);
  Py_TYPE(self)->tp_free((PyObject*)self);
}


static int Data_traverse(pmData* self, visitproc visit, void* arg) {
  Py_VISIT(self->dict);
  Py_VISIT(self->model);
  return 0;
}


static int Data_clear(pmData* self) {
  Py_CLEAR(self->dict);
  return 0;
}


static PyObject* Data_copy(pmData* self, PyObject* unused) {
  return wrapData(Py_TYPE(self), self->model, mc_copyData(NULL, self->model->m, self->d));
}


//---------------------------------- fields --------------------------------------------------------

static PyObject* dataField(pmData* self, int i) {
  npy_intp dims[2];
  pm_dataShape(self->model->m, i, dims, dims + 1);
  void* ptr = *(void**)((char*)self->d + pm_dataFields[i].offset);
  const pmField* f = pm_dataFields + i;
  return pm_view((PyObject*)self, ptr, f->type, pm_fieldDims(f), dims);
}

typedef enum { SC_NUM, SC_INT, SC_SIZE, SC_VEC } ScalarKind;

typedef struct {                  // scalar fields of mcData
  const char* name;
  ScalarKind kind;
  size_t offset;
  int settable;
  int n;                          // SC_VEC: length
} Scalar;

#define SC(f, kind, set) {#f, kind, offsetof(mcData, f), set, 1}
static const Scalar scalars[] = {
  SC(time, SC_NUM, 1), SC(profile, SC_INT, 1), SC(plugin_check, SC_INT, 1),
  SC(ne, SC_INT, 0), SC(nf, SC_INT, 0), SC(nefc, SC_INT, 0), SC(ncon, SC_INT, 0),
  SC(solver_iter, SC_INT, 0), {"solver_niter", SC_INT, offsetof(mcData, solver_iter), 0, 1},
  SC(solver_nnz, SC_INT, 0), SC(maxuse_con, SC_INT, 0), SC(maxuse_efc, SC_INT, 0),
  SC(nplugin, SC_INT, 0), SC(narena, SC_SIZE, 0), SC(nbuffer, SC_SIZE, 0),
  SC(pstack, SC_SIZE, 0), SC(parena, SC_SIZE, 0), SC(maxuse_stack, SC_SIZE, 0),
  SC(maxuse_arena, SC_SIZE, 0),
  {"energy", SC_VEC, offsetof(mcData, energy), 0, 2},
  {"solver_fwdinv", SC_VEC, offsetof(mcData, solver_fwdinv), 0, 2},
};
#undef SC

typedef struct {                  // arena-allocated constraint rows (nefc x cols)
  const char* name;
  int type;
  size_t offset;
  int cols;                       // 0: nv
} EfcField;

#define EFC(f, type, cols) {#f, type, offsetof(mcData, f), cols}
static const EfcField efcFields[] = {
  EFC(efc_type, NPY_INT32, 1), EFC(efc_id, NPY_INT32, 1), EFC(efc_state, NPY_INT32, 1),
  EFC(efc_J, NPY_FLOAT64, 0), EFC(efc_pos, NPY_FLOAT64, 1), EFC(efc_margin, NPY_FLOAT64, 1),
  EFC(efc_frictionloss, NPY_FLOAT64, 1), EFC(efc_diagApprox, NPY_FLOAT64, 1),
  EFC(efc_KBIP, NPY_FLOAT64, 4), EFC(efc_D, NPY_FLOAT64, 1), EFC(efc_R, NPY_FLOAT64, 1),
  EFC(efc_vel, NPY_FLOAT64, 1), EFC(efc_aref, NPY_FLOAT64, 1), EFC(efc_b, NPY_FLOAT64, 1),
  EFC(efc_force, NPY_FLOAT64, 1),
};
#undef EFC


static PyObject* efcField(pmData* self, const EfcField* f) {
  npy_intp dims[2] = {self->d->nefc, f->cols ? f->cols : self->model->m->nv};
  void* ptr = *(void**)((char*)self->d + f->offset);
  int nd = f->cols == 1 ? 1 : 2;
  if (!dims[0] || !ptr) {
    dims[0] = 0;
    return PyArray_ZEROS(nd, dims, f->type, 0);
  }
  return pm_view((PyObject*)self, ptr, f->type, nd, dims);
}


static PyObject* scalarGet(pmData* self, const Scalar* s) {
  char* p = (char*)self->d + s->offset;
  npy_intp n = s->n;
  switch (s->kind) {
    case SC_NUM: return PyFloat_FromDouble(*(mcNum*)p);
    case SC_INT: return PyLong_FromLong(*(int*)p);
    case SC_SIZE: return PyLong_FromSize_t(*(size_t*)p);
    default: return pm_view((PyObject*)self, p, NPY_FLOAT64, 1, &n);
  }
}


static const Scalar* findScalar(const char* s) {
  for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
    if (!strcmp(scalars[i].name, s)) {
      return scalars + i;
    }
  }
  return NULL;
}


static PyObject* Data_getattro(pmData* self, PyObject* name) {
  PyObject* r = PyObject_GenericGetAttr((PyObject*)self, name);
  if (r || !PyErr_ExceptionMatches(PyExc_AttributeError)) {
    return r;
  }
  const char* s = PyUnicode_AsUTF8(name);
  if (!s) {
    return NULL;
  }
  mcData* d = self->d;
  int i = pm_findField(pm_dataFields, pm_ndataFields, s);
  const Scalar* sc = findScalar(s);
  if (i >= 0 || sc) {
    PyErr_Clear();
    return i >= 0 ? dataField(self, i) : scalarGet(self, sc);
  }
  for (size_t k = 0; k < sizeof(efcFields) / sizeof(efcFields[0]); k++) {
    if (!strcmp(efcFields[k].name, s)) {
      PyErr_Clear();
      return efcField(self, efcFields + k);
    }
  }
  PyObject* o = (PyObject*)self;
  if (!strcmp(s, "contact")) {
    PyErr_Clear();
    return structView(o, d->contact, contactDtype, d->ncon);
  }
  if (!strcmp(s, "warning")) {
    PyErr_Clear();
    return structView(o, d->warning, warningDtype, mcNWARNING);
  }
  if (!strcmp(s, "timer")) {
    PyErr_Clear();
    return structView(o, d->timer, timerDtype, mcNTIMER);
  }
  if (!strcmp(s, "timer_plugin")) {
    PyErr_Clear();
    return structView(o, d->timer_plugin, timerDtype, mcNTIMERPLUGIN);
  }
  if (!strcmp(s, "solver")) {
    PyErr_Clear();
    return structView(o, d->solver, solverDtype, mcNSOLVER);
  }
  if (!strcmp(s, "model")) {
    PyErr_Clear();
    Py_INCREF(self->model);
    return (PyObject*)self->model;
  }
  return NULL;
}


static int Data_setattro(pmData* self, PyObject* name, PyObject* value) {
  const char* s = PyUnicode_AsUTF8(name);
  if (!s) {
    return -1;
  }
  int i = pm_findField(pm_dataFields, pm_ndataFields, s);
  if (i >= 0 && value) {
    PyObject* view = dataField(self, i);
    if (!view) {
      return -1;
    }
    int rc = pm_assign(view, value, s);
    Py_DECREF(view);
    return rc;
  }
  const Scalar* sc = findScalar(s);
  if (sc && sc->settable && value) {
    char* p = (char*)self->d + sc->offset;
    if (sc->kind == SC_NUM) {
      double v = PyFloat_AsDouble(value);
      if (v == -1.0 && PyErr_Occurred()) {
        return -1;
      }
      *(mcNum*)p = v;
      return 0;
    }
    if (!PyLong_Check(value)) {
      PyErr_Format(PyExc_TypeError, "MjData.%s: expected an int, got %s", s,
                   Py_TYPE(value)->tp_name);
      return -1;
    }
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(value, &overflow);
    if (overflow || v < INT_MIN || v > INT_MAX) {
      PyErr_Format(PyExc_ValueError, "MjData.%s: out of int range", s);
      return -1;
    }
    *(int*)p = (int)v;
    return 0;
  }
  if (i >= 0 || sc) {
    PyErr_Format(PyExc_AttributeError, "MjData.%s is read-only", s);
    return -1;
  }
  return PyObject_GenericSetAttr((PyObject*)self, name, value);
}


// _fields(): (name, rows-size-name, ncols, ndim) of every array of the generated table
static PyObject* Data_fields(pmData* self, PyObject* unused) {
  PyObject* list = PyList_New(pm_ndataFields);
  for (int i = 0; list && i < pm_ndataFields; i++) {
    npy_intp r, c;
    pm_dataShape(self->model->m, i, &r, &c);
    const pmField* f = pm_dataFields + i;
    PyObject* t = Py_BuildValue("(ssni)", f->name, f->rows, (Py_ssize_t)c, pm_fieldDims(f));
    if (!t) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SET_ITEM(list, i, t);
  }
  return list;
}


static PyMethodDef Data_methods[] = {
  {"__copy__", (PyCFunction)Data_copy, METH_NOARGS, "copy of the data (same model)"},
  {"__deepcopy__", (PyCFunction)Data_copy, METH_O, "copy of the data (same model)"},
  {"_fields", (PyCFunction)Data_fields, METH_NOARGS, "array fields: (name, rows, cols)"},
  {NULL, NULL, 0, NULL}
};


static PyGetSetDef Data_getset[] = {
  {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, "instance dictionary", NULL},
  {NULL, NULL, NULL, NULL, NULL}
};


PyTypeObject pmDataType = {
  PyVarObject_HEAD_INIT(NULL, 0)
  .tp_name = "moduco._moduco.Data",
  .tp_basicsize = sizeof(pmData),
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
  .tp_doc = "Simulation data of a model (mcData): MjData(model).",
  .tp_new = Data_new,
  .tp_init = Data_init,
  .tp_dealloc = (destructor)Data_dealloc,
  .tp_traverse = (traverseproc)Data_traverse,
  .tp_clear = (inquiry)Data_clear,
  .tp_getattro = (getattrofunc)Data_getattro,
  .tp_setattro = (setattrofunc)Data_setattro,
  .tp_methods = Data_methods,
  .tp_getset = Data_getset,
  .tp_dictoffset = offsetof(pmData, dict),
};
