// Moduco Python extension: numpy views, checked assignment and argument checks.
#include "pymoduco.h"


PyObject* pm_view(PyObject* owner, void* ptr, int type, int nd, const npy_intp* dims) {
  PyObject* arr = PyArray_New(&PyArray_Type, nd, (npy_intp*)dims, type, NULL, ptr, 0,
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


// shape of an array as text, e.g. "(3, 4)"
static PyObject* shapeText(PyArrayObject* a) {
  PyObject* shape = PyObject_GetAttrString((PyObject*)a, "shape");
  if (!shape) {
    return NULL;
  }
  PyObject* text = PyObject_Str(shape);
  Py_DECREF(shape);
  return text;
}


int pm_assign(PyObject* view, PyObject* value, const char* what) {
  PyArrayObject* dst = (PyArrayObject*)view;
  PyArrayObject* src = (PyArrayObject*)PyArray_FROM_O(value);
  if (!src) {
    return -1;
  }
  int kind = PyArray_DESCR(src)->kind;
  if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f') {
    PyErr_Format(PyExc_TypeError, "%s: expected numbers, got an array of dtype %S", what,
                 (PyObject*)PyArray_DESCR(src));
    Py_DECREF(src);
    return -1;
  }
  if (!PyArray_CanCastArrayTo(src, PyArray_DESCR(dst), NPY_SAME_KIND_CASTING)) {
    PyErr_Format(PyExc_TypeError, "%s: cannot assign dtype %S to dtype %S", what,
                 (PyObject*)PyArray_DESCR(src), (PyObject*)PyArray_DESCR(dst));
    Py_DECREF(src);
    return -1;
  }
  if (PyArray_NDIM(src) == 0) {   // a scalar fills the array
    int rc = PyArray_CopyInto(dst, src);
    Py_DECREF(src);
    return rc;
  }
  if (PyArray_SIZE(src) != PyArray_SIZE(dst)) {
    PyObject* want = shapeText(dst);
    PyObject* got = shapeText(src);
    if (want && got) {
      PyErr_Format(PyExc_ValueError, "%s: expected shape %S, got %S", what, want, got);
    }
    Py_XDECREF(want);
    Py_XDECREF(got);
    Py_DECREF(src);
    return -1;
  }
  PyArray_Dims dims = {PyArray_DIMS(dst), PyArray_NDIM(dst)};
  PyObject* shaped = PyArray_Newshape(src, &dims, NPY_CORDER);
  Py_DECREF(src);
  if (!shaped) {
    return -1;
  }
  int rc = PyArray_CopyInto(dst, (PyArrayObject*)shaped);
  Py_DECREF(shaped);
  return rc;
}


PyArrayObject* pm_input(PyObject* obj, npy_intp n, const char* what) {
  PyArrayObject* a = (PyArrayObject*)PyArray_FROM_O(obj);
  if (!a) {
    return NULL;
  }
  int kind = PyArray_DESCR(a)->kind;
  if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f') {
    PyErr_Format(PyExc_TypeError, "%s: expected numbers, got dtype %S", what,
                 (PyObject*)PyArray_DESCR(a));
    Py_DECREF(a);
    return NULL;
  }
  if (PyArray_SIZE(a) != n) {
    PyErr_Format(PyExc_ValueError, "%s: expected %zd numbers, got %zd", what, (Py_ssize_t)n,
                 (Py_ssize_t)PyArray_SIZE(a));
    Py_DECREF(a);
    return NULL;
  }
  PyArrayObject* c = (PyArrayObject*)PyArray_FROM_OTF((PyObject*)a, NPY_FLOAT64,
                                                      NPY_ARRAY_IN_ARRAY);
  Py_DECREF(a);
  return c;
}


PyArrayObject* pm_output(PyObject* obj, npy_intp n, const char* what) {
  if (!PyArray_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a numpy float64 array, got %s", what,
                 Py_TYPE(obj)->tp_name);
    return NULL;
  }
  PyArrayObject* a = (PyArrayObject*)obj;
  if (PyArray_TYPE(a) != NPY_FLOAT64) {
    PyErr_Format(PyExc_TypeError, "%s: expected dtype float64, got %S", what,
                 (PyObject*)PyArray_DESCR(a));
    return NULL;
  }
  if (!PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISWRITEABLE(a) || !PyArray_ISALIGNED(a)) {
    PyErr_Format(PyExc_ValueError, "%s: expected a writable C-contiguous array", what);
    return NULL;
  }
  if (PyArray_SIZE(a) != n) {
    PyErr_Format(PyExc_ValueError, "%s: expected %zd numbers, got %zd", what, (Py_ssize_t)n,
                 (Py_ssize_t)PyArray_SIZE(a));
    return NULL;
  }
  Py_INCREF(a);
  return a;
}


int pm_checkModel(PyObject* m, const char* fn) {
  if (!PyObject_TypeCheck(m, &pmModelType)) {
    PyErr_Format(PyExc_TypeError, "%s: expected MjModel, got %s", fn, Py_TYPE(m)->tp_name);
    return -1;
  }
  return 0;
}


int pm_checkPair(PyObject* m, PyObject* d, const char* fn) {
  if (pm_checkModel(m, fn) < 0) {
    return -1;
  }
  if (!PyObject_TypeCheck(d, &pmDataType)) {
    PyErr_Format(PyExc_TypeError, "%s: expected MjData, got %s", fn, Py_TYPE(d)->tp_name);
    return -1;
  }
  const mcModel* mm = ((pmModel*)m)->m;
  if (!mc_dataMatches(mm, ((pmData*)d)->d)) {
    PyErr_Format(PyExc_ValueError, "%s: the MjData was made for a model of other sizes", fn);
    return -1;
  }
  return 0;
}
