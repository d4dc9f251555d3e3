// Moduco Python extension: _moduco.Model, an mcModel whose sizes are ints and whose arrays are
// writable numpy views (from the generated field table), and _moduco.Option, its mcOption.
#include <string.h>

#include "pymoduco.h"


//---------------------------------- loading -------------------------------------------------------

static PyObject* wrapModel(PyTypeObject* type, mcModel* m) {
  pmModel* self = (pmModel*)type->tp_alloc(type, 0);
  if (!self) {
    mc_deleteModel(m);
    return NULL;
  }
  self->m = m;
  return (PyObject*)self;
}


// _from_xml_path(path): compile a file; ValueError "file:line: message" on failure
static PyObject* Model_fromPath(PyObject* cls, PyObject* args) {
  PyObject* path = NULL;
  if (!PyArg_ParseTuple(args, "O&:from_xml_path", PyUnicode_FSConverter, &path)) {
    return NULL;
  }
  char error[1024] = "";
  mcModel* m;
  Py_BEGIN_ALLOW_THREADS
  m = mc_loadXML(PyBytes_AS_STRING(path), error, sizeof(error));
  Py_END_ALLOW_THREADS
  Py_DECREF(path);
  if (!m) {
    PyErr_SetString(PyExc_ValueError, error[0] ? error : "model loading failed");
    return NULL;
  }
  return wrapModel((PyTypeObject*)cls, m);
}


// _from_xml_string(xml, dir): compile text; relative files resolve against dir (None: cwd)
static PyObject* Model_fromString(PyObject* cls, PyObject* args) {
  const char* xml;
  const char* dir = NULL;
  if (!PyArg_ParseTuple(args, "s|z:from_xml_string", &xml, &dir)) {
    return NULL;
  }
  char error[1024] = "";
  mcModel* m;
  Py_BEGIN_ALLOW_THREADS
  m = mc_loadXMLString(xml, dir, error, sizeof(error));
  Py_END_ALLOW_THREADS
  if (!m) {
    PyErr_SetString(PyExc_ValueError, error[0] ? error : "model loading failed");
    return NULL;
  }
  return wrapModel((PyTypeObject*)cls, m);
}


static PyObject* Model_new(PyTypeObject* type, PyObject* args, PyObject* kwds) {
  PyErr_SetString(PyExc_TypeError, "MjModel has no constructor: use MjModel.from_xml_path or "
                  "MjModel.from_xml_string");
  return NULL;
}


static void Model_dealloc(pmModel* self) {
  PyObject_GC_UnTrack(self);
  Py_CLEAR(self->dict);
  mc_deleteModel(self->m);
  Py_TYPE(self)->tp_free((PyObject*)self);
}


static int Model_traverse(pmModel* self, visitproc visit, void* arg) {
  Py_VISIT(self->dict);
  return 0;
}


static int Model_clear(pmModel* self) {
  Py_CLEAR(self->dict);
  return 0;
}


static PyObject* Model_copy(pmModel* self, PyObject* unused) {
  mcModel* m = mc_copyModel(NULL, self->m);
  if (!m) {
    return PyErr_NoMemory();
  }
  return wrapModel(Py_TYPE(self), m);
}


//---------------------------------- fields --------------------------------------------------------

// view of model field i (names: bytes, as MuJoCo's bindings return them)
static PyObject* modelField(pmModel* self, int i) {
  const pmField* f = pm_modelFields + i;
  npy_intp dims[2];
  pm_modelShape(self->m, i, dims, dims + 1);
  void* ptr = *(void**)((char*)self->m + f->offset);
  if (f->type == NPY_BYTE) {
    return PyBytes_FromStringAndSize(ptr, dims[0] * dims[1]);
  }
  PyObject* view = pm_view((PyObject*)self, ptr, f->type, pm_fieldDims(f), dims);
  if (view && pm_structural(f)) {
    PyArray_CLEARFLAGS((PyArrayObject*)view, NPY_ARRAY_WRITEABLE);
  }
  return view;
}


static PyObject* Model_getattro(pmModel* self, PyObject* name) {
  PyObject* r = PyObject_GenericGetAttr((PyObject*)self, name);
  if (r || !PyErr_ExceptionMatches(PyExc_AttributeError)) {
    return r;
  }
  const char* s = PyUnicode_AsUTF8(name);
  if (!s) {
    return NULL;
  }
  int i = pm_findField(pm_modelFields, pm_nmodelFields, s);
  if (i >= 0) {
    PyErr_Clear();
    return modelField(self, i);
  }
  for (int k = 0; k < pm_nmodelSizes; k++) {
    if (!strcmp(pm_modelSizes[k], s)) {
      PyErr_Clear();
      return PyLong_FromLong(pm_modelSize(self->m, k));
    }
  }
  if (!strcmp(s, "opt")) {
    PyErr_Clear();
    pmOption* o = PyObject_New(pmOption, &pmOptionType);
    if (o) {
      Py_INCREF(self);
      o->model = self;
    }
    return (PyObject*)o;
  }
  return NULL;
}


static int Model_setattro(pmModel* self, PyObject* name, PyObject* value) {
  const char* s = PyUnicode_AsUTF8(name);
  if (!s) {
    return -1;
  }
  int i = pm_findField(pm_modelFields, pm_nmodelFields, s);
  if (i >= 0 && value) {
    if (pm_modelFields[i].type == NPY_BYTE || pm_structural(pm_modelFields + i)) {
      PyErr_Format(PyExc_AttributeError, "MjModel.%s is read-only (model structure: change "
                   "the MJCF and recompile)", s);
      return -1;
    }
    PyObject* view = modelField(self, i);
    if (!view) {
      return -1;
    }
    int rc = pm_assign(view, value, s);
    Py_DECREF(view);
    return rc;
  }
  for (int k = 0; k < pm_nmodelSizes; k++) {
    if (!strcmp(pm_modelSizes[k], s)) {
      PyErr_Format(PyExc_AttributeError, "MjModel.%s is a size and read-only", s);
      return -1;
    }
  }
  if (i >= 0 || !strcmp(s, "opt")) {
    PyErr_Format(PyExc_AttributeError, "MjModel.%s cannot be deleted or replaced", s);
    return -1;
  }
  return PyObject_GenericSetAttr((PyObject*)self, name, value);
}


// _fields(): (name, rows-size-name, ncols, ndim) of every array, for named access and dir()
static PyObject* Model_fields(pmModel* self, PyObject* unused) {
  PyObject* list = PyList_New(pm_nmodelFields);
  for (int i = 0; list && i < pm_nmodelFields; i++) {
    npy_intp r, c;
    pm_modelShape(self->m, i, &r, &c);
    const pmField* f = pm_modelFields + i;
    PyObject* t = Py_BuildValue("(ssni)", f->name, f->rows, (Py_ssize_t)c, pm_fieldDims(f));
    if (!t) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SET_ITEM(list, i, t);
  }
  return list;
}


// _sizes(): list of the size field names
static PyObject* Model_sizes(PyObject* self, PyObject* unused) {
  PyObject* list = PyList_New(pm_nmodelSizes);
  for (int k = 0; list && k < pm_nmodelSizes; k++) {
    PyList_SET_ITEM(list, k, PyUnicode_FromString(pm_modelSizes[k]));
  }
  return list;
}


// set_integrator(name) / set_solver(name): a registered plugin by name; ValueError if unknown
static PyObject* selectPlugin(pmModel* self, PyObject* args, int solver) {
  const char* name;
  if (!PyArg_ParseTuple(args, solver ? "s:set_solver" : "s:set_integrator", &name)) {
    return NULL;
  }
  char error[1024] = "";
  int rc = solver ? mc_setSolver(self->m, name, error, sizeof(error))
                  : mc_setIntegrator(self->m, name, error, sizeof(error));
  if (rc) {
    PyErr_SetString(PyExc_ValueError, error);
    return NULL;
  }
  Py_RETURN_NONE;
}


static PyObject* Model_setIntegrator(pmModel* self, PyObject* args) {
  return selectPlugin(self, args, 0);
}


static PyObject* Model_setSolver(pmModel* self, PyObject* args) {
  return selectPlugin(self, args, 1);
}


// timer_plugin_name(slot): plugin whose calls a slot of MjData.timer_plugin times (None: unused)
static PyObject* Model_timerPluginName(pmModel* self, PyObject* args) {
  int slot;
  if (!PyArg_ParseTuple(args, "i:timer_plugin_name", &slot)) {
    return NULL;
  }
  if (slot < 0 || slot >= mcNTIMERPLUGIN) {
    PyErr_Format(PyExc_ValueError, "timer_plugin_name: slot %d out of range [0, %d)", slot,
                 mcNTIMERPLUGIN);
    return NULL;
  }
  const char* s = mc_timerPluginName(self->m, slot);
  if (!s) {
    Py_RETURN_NONE;
  }
  return PyUnicode_FromString(s);
}


static PyMethodDef Model_methods[] = {
  {"_from_xml_path", Model_fromPath, METH_VARARGS | METH_CLASS, "compile an MJCF file"},
  {"_from_xml_string", Model_fromString, METH_VARARGS | METH_CLASS, "compile MJCF text"},
  {"__copy__", (PyCFunction)Model_copy, METH_NOARGS, "copy of the model"},
  {"__deepcopy__", (PyCFunction)Model_copy, METH_O, "copy of the model"},
  {"_fields", (PyCFunction)Model_fields, METH_NOARGS, "array fields: (name, rows, cols)"},
  {"_sizes", Model_sizes, METH_NOARGS | METH_CLASS, "size field names"},
  {"set_integrator", (PyCFunction)Model_setIntegrator, METH_VARARGS,
   "use the registered integrator plugin called name"},
  {"set_solver", (PyCFunction)Model_setSolver, METH_VARARGS,
   "use the registered solver plugin called name"},
  {"timer_plugin_name", (PyCFunction)Model_timerPluginName, METH_VARARGS,
   "plugin timed by a slot of MjData.timer_plugin"},
  {NULL, NULL, 0, NULL}
};


static PyGetSetDef Model_getset[] = {
  {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, "instance dictionary", NULL},
  {NULL, NULL, NULL, NULL, NULL}
};


PyTypeObject pmModelType = {
  PyVarObject_HEAD_INIT(NULL, 0)
  .tp_name = "moduco._moduco.Model",
  .tp_basicsize = sizeof(pmModel),
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
  .tp_doc = "A compiled Moduco model (mcModel).",
  .tp_new = Model_new,
  .tp_dealloc = (destructor)Model_dealloc,
  .tp_traverse = (traverseproc)Model_traverse,
  .tp_clear = (inquiry)Model_clear,
  .tp_getattro = (getattrofunc)Model_getattro,
  .tp_setattro = (setattrofunc)Model_setattro,
  .tp_methods = Model_methods,
  .tp_getset = Model_getset,
  .tp_dictoffset = offsetof(pmModel, dict),
};


//---------------------------------- options -------------------------------------------------------

typedef enum { OPT_NUM, OPT_INT, OPT_VEC, OPT_STR } OptKind;

typedef struct {
  const char* name;
  OptKind kind;
  size_t offset;
  int n;                          // OPT_VEC: length
} OptField;

#define NUM(f) {#f, OPT_NUM, offsetof(mcOption, f), 1}
#define INT(f) {#f, OPT_INT, offsetof(mcOption, f), 1}
#define VEC(f) {#f, OPT_VEC, offsetof(mcOption, f), sizeof(((mcOption*)0)->f) / sizeof(mcNum)}
#define STR(f) {#f, OPT_STR, offsetof(mcOption, f), 1}
static const OptField optFields[] = {
  NUM(timestep), NUM(apirate), NUM(impratio), NUM(tolerance), NUM(ls_tolerance),
  NUM(noslip_tolerance), NUM(mpr_tolerance), VEC(gravity), VEC(wind), VEC(magnetic),
  NUM(density), NUM(viscosity), NUM(o_margin), VEC(o_solref), VEC(o_solimp), INT(integrator),
  INT(collision), INT(cone), INT(jacobian), INT(solver), INT(iterations), INT(ls_iterations),
  INT(noslip_iterations), INT(mpr_iterations), INT(disableflags), INT(enableflags),
  STR(integrator_name), STR(solver_name),
};
#undef NUM
#undef INT
#undef VEC
#undef STR
static const int noptFields = sizeof(optFields) / sizeof(optFields[0]);

// MJCF names of the built-in integrator and solver codes (opt.integrator = code selects them)
static const char* const integratorNames[] = {"Euler", "RK4", "implicit", "implicitfast"};
static const char* const solverNames[] = {"PGS", "CG", "Newton"};


static const OptField* findOpt(PyObject* name) {
  const char* s = PyUnicode_AsUTF8(name);
  for (int i = 0; s && i < noptFields; i++) {
    if (!strcmp(optFields[i].name, s)) {
      return optFields + i;
    }
  }
  return NULL;
}


static PyObject* Option_getattro(pmOption* self, PyObject* name) {
  const OptField* f = findOpt(name);
  if (!f) {
    return PyObject_GenericGetAttr((PyObject*)self, name);
  }
  char* p = (char*)&self->model->m->opt + f->offset;
  npy_intp n = f->n;
  switch (f->kind) {
    case OPT_NUM: return PyFloat_FromDouble(*(mcNum*)p);
    case OPT_INT: return PyLong_FromLong(*(int*)p);
    case OPT_VEC: return pm_view((PyObject*)self->model, p, NPY_FLOAT64, 1, &n);
    default: return PyUnicode_FromString(p);
  }
}


// opt.integrator / opt.solver: select the built-in plugin of that code
static int setCode(pmOption* self, const OptField* f, long code) {
  int solver = !strcmp(f->name, "solver");
  int ncode = solver ? 3 : 4;
  if (code < 0 || code >= ncode) {
    PyErr_Format(PyExc_ValueError, "opt.%s: code %ld is not a built-in %s (0..%d); use "
                 "MjModel.set_%s(name) for plugins", f->name, code, f->name, ncode - 1, f->name);
    return -1;
  }
  char error[1024] = "";
  int rc = solver ? mc_setSolver(self->model->m, solverNames[code], error, sizeof(error))
                  : mc_setIntegrator(self->model->m, integratorNames[code], error, sizeof(error));
  if (rc) {
    PyErr_SetString(PyExc_ValueError, error);
    return -1;
  }
  return 0;
}


static int Option_setattro(pmOption* self, PyObject* name, PyObject* value) {
  const OptField* f = findOpt(name);
  if (!f || !value) {
    PyErr_Format(PyExc_AttributeError, "MjOption has no settable field '%U'", name);
    return -1;
  }
  char* p = (char*)&self->model->m->opt + f->offset;
  if (f->kind == OPT_STR) {
    PyErr_Format(PyExc_AttributeError, "opt.%s is read-only: use MjModel.set_%s(name)", f->name,
                 strncmp(f->name, "solver", 6) ? "integrator" : "solver");
    return -1;
  }
  if (f->kind == OPT_VEC) {
    npy_intp n = f->n;
    PyObject* view = pm_view((PyObject*)self->model, p, NPY_FLOAT64, 1, &n);
    if (!view) {
      return -1;
    }
    int rc = pm_assign(view, value, f->name);
    Py_DECREF(view);
    return rc;
  }
  if (f->kind == OPT_NUM) {
    if (!PyNumber_Check(value)) {
      PyErr_Format(PyExc_TypeError, "opt.%s: expected a number, got %s", f->name,
                   Py_TYPE(value)->tp_name);
      return -1;
    }
    double v = PyFloat_AsDouble(value);
    if (v == -1.0 && PyErr_Occurred()) {
      return -1;
    }
    *(mcNum*)p = v;
    return 0;
  }
  if (!PyLong_Check(value) && !PyIndex_Check(value)) {
    PyErr_Format(PyExc_TypeError, "opt.%s: expected an int, got %s", f->name,
                 Py_TYPE(value)->tp_name);
    return -1;
  }
  long v = PyLong_AsLong(value);
  if (v == -1 && PyErr_Occurred()) {
    return -1;
  }
  if (!strcmp(f->name, "integrator") || !strcmp(f->name, "solver")) {
    return setCode(self, f, v);
  }
  if (v < INT_MIN || v > INT_MAX) {
    PyErr_Format(PyExc_ValueError, "opt.%s: %ld out of int range", f->name, v);
    return -1;
  }
  *(int*)p = (int)v;
  return 0;
}


static void Option_dealloc(pmOption* self) {
  Py_XDECREF(self->model);
  PyObject_Free(self);
}


static PyObject* Option_dir(pmOption* self, PyObject* unused) {
  PyObject* list = PyList_New(noptFields);
  for (int i = 0; list && i < noptFields; i++) {
    PyList_SET_ITEM(list, i, PyUnicode_FromString(optFields[i].name));
  }
  return list;
}


static PyMethodDef Option_methods[] = {
  {"__dir__", (PyCFunction)Option_dir, METH_NOARGS, "option fields"},
  {NULL, NULL, 0, NULL}
};


PyTypeObject pmOptionType = {
  PyVarObject_HEAD_INIT(NULL, 0)
  .tp_name = "moduco._moduco.MjOption",
  .tp_basicsize = sizeof(pmOption),
  .tp_flags = Py_TPFLAGS_DEFAULT,
  .tp_doc = "Physics options of a model (a view: changes apply to the model).",
  .tp_dealloc = (destructor)Option_dealloc,
  .tp_getattro = (getattrofunc)Option_getattro,
  .tp_setattro = (setattrofunc)Option_setattro,
  .tp_methods = Option_methods,
};
