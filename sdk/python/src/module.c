// Moduco Python extension: module _moduco (types, functions, enums). The Python package moduco
// (sdk/python/moduco) builds MuJoCo's API on top of it.
#define PM_IMPORT_ARRAY
#include "pymoduco.h"

static struct PyModuleDef moduleDef = {
  PyModuleDef_HEAD_INIT, "_moduco", "Moduco C extension (use the moduco package).", -1, NULL,
  NULL, NULL, NULL, NULL
};


static int addMethods(PyObject* module, PyMethodDef* defs) {
  for (PyMethodDef* d = defs; d->ml_name; d++) {
    PyObject* f = PyCFunction_NewEx(d, NULL, NULL);
    if (!f || PyModule_AddObject(module, d->ml_name, f) < 0) {
      Py_XDECREF(f);
      return -1;
    }
  }
  return 0;
}


static int addType(PyObject* module, PyTypeObject* type, const char* name) {
  if (PyType_Ready(type) < 0) {
    return -1;
  }
  Py_INCREF(type);
  return PyModule_AddObject(module, name, (PyObject*)type);
}


PyMODINIT_FUNC PyInit__moduco(void) {
  import_array();
  PyObject* module = PyModule_Create(&moduleDef);
  if (!module) {
    return NULL;
  }
  PyObject* contact = pm_contactDtype();
  if (!contact || addType(module, &pmModelType, "Model") < 0 ||
      addType(module, &pmDataType, "Data") < 0 || addType(module, &pmOptionType, "MjOption") < 0 ||
      addMethods(module, pm_functionMethods) < 0 || addMethods(module, pm_extraMethods) < 0 ||
      addMethods(module, pm_derivativeMethods) < 0 ||
      pm_addEnums(module) < 0 || pm_addRollout(module) < 0) {
    Py_DECREF(module);
    return NULL;
  }
  Py_INCREF(contact);
  PyModule_AddObject(module, "contact_dtype", contact);
  return module;
}
