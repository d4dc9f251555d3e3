// Moduco Python extension: finite-difference derivatives, with the signatures of MuJoCo's
// mjd_transitionFD and mjd_inverseFD (outputs are preallocated float64 arrays, or None to skip).
// The GIL is released while the core evaluates.
#include "pymoduco.h"


// the data pointer of an optional output of n elements (None: NULL); -1 with an exception
static int optionalOutput(PyObject* obj, npy_intp n, const char* what, PyArrayObject** arr,
                          mcNum** ptr) {
  *arr = NULL;
  *ptr = NULL;
  if (obj == Py_None) {
    return 0;
  }
  *arr = pm_output(obj, n, what);
  if (!*arr) {
    return -1;
  }
  *ptr = PyArray_DATA(*arr);
  return 0;
}


// take outputs[k] of sizes[k] elements named names[k]; release all on failure
static int takeOutputs(int n, PyObject** outputs, const npy_intp* sizes, const char** names,
                       PyArrayObject** arrs, mcNum** ptrs) {
  for (int k = 0; k < n; k++) {
    if (optionalOutput(outputs[k], sizes[k], names[k], arrs + k, ptrs + k) < 0) {
      for (int j = 0; j < k; j++) {
        Py_XDECREF(arrs[j]);
      }
      return -1;
    }
  }
  return 0;
}


// the A, B, C, D outputs of a transition derivative (None or a float64 array of the right size)
static int takeTransitionOutputs(const mcModel* mm, PyObject** out, PyArrayObject** arrs,
                                 mcNum** p) {
  npy_intp ndx = 2 * (npy_intp)mm->nv + mm->na, nu = mm->nu, ns = mm->nsensordata;
  const npy_intp sizes[4] = {ndx * ndx, ndx * nu, ns * ndx, ns * nu};
  const char* names[4] = {"A", "B", "C", "D"};
  return takeOutputs(4, out, sizes, names, arrs, p);
}


// mjd_transitionFD(m, d, eps, flg_centered, A, B, C, D)
static PyObject* fn_mjd_transitionFD(PyObject* self, PyObject* args) {
  PyObject *m, *d, *out[4];
  double eps;
  int centered;
  if (!PyArg_ParseTuple(args, "OOdpOOOO:mjd_transitionFD", &m, &d, &eps, &centered, out,
                        out + 1, out + 2, out + 3) ||
      pm_checkPair(m, d, "mjd_transitionFD") < 0) {
    return NULL;
  }
  if (!(eps > 0)) {
    PyErr_Format(PyExc_ValueError, "mjd_transitionFD: eps must be positive, got %g", eps);
    return NULL;
  }
  const mcModel* mm = MODEL(m);
  PyArrayObject* arrs[4];
  mcNum* p[4];
  if (takeTransitionOutputs(mm, out, arrs, p) < 0) {
    return NULL;
  }
  int rc;
  Py_BEGIN_ALLOW_THREADS
  rc = mcd_transitionFD(mm, DATA(d), eps, centered, p[0], p[1], p[2], p[3]);
  Py_END_ALLOW_THREADS
  for (int k = 0; k < 4; k++) {
    Py_XDECREF(arrs[k]);
  }
  if (rc < 0) {
    PyErr_SetString(PyExc_ValueError, "mjd_transitionFD: the core refused the arguments");
    return NULL;
  }
  return PyLong_FromLong(rc);
}


// mjd_transitionImplicit(m, d, eps, kappa, A, B, C, D, nthread=1): Moduco's
// mcd_transitionImplicitEx, or mcd_transitionImplicitPool on a pool of nthread threads made for the
// call (bitwise the same result)
static PyObject* fn_mjd_transitionImplicit(PyObject* self, PyObject* args) {
  PyObject *m, *d, *out[4];
  double eps, kappa;
  int nthread = 1;
  if (!PyArg_ParseTuple(args, "OOddOOOO|i:mjd_transitionImplicit", &m, &d, &eps, &kappa, out,
                        out + 1, out + 2, out + 3, &nthread) ||
      pm_checkPair(m, d, "mjd_transitionImplicit") < 0) {
    return NULL;
  }
  if (!(eps > 0) || !(kappa >= 0) || nthread < 1) {
    PyErr_Format(PyExc_ValueError, "mjd_transitionImplicit: eps must be positive, kappa zero or "
                 "positive and nthread at least 1 (got %g, %g, %d)", eps, kappa, nthread);
    return NULL;
  }
  const mcModel* mm = MODEL(m);
  PyArrayObject* arrs[4];
  mcNum* p[4];
  if (takeTransitionOutputs(mm, out, arrs, p) < 0) {
    return NULL;
  }
  int rc = -1, nopool = 0;
  Py_BEGIN_ALLOW_THREADS
  if (nthread == 1) {
    rc = mcd_transitionImplicitEx(mm, DATA(d), eps, kappa, p[0], p[1], p[2], p[3]);
  } else {
    mcRolloutPool* pool = mc_rolloutCreate(mm, nthread, mcd_transitionFDItems(mm, 0));
    nopool = !pool;
    if (pool) {
      rc = mcd_transitionImplicitPool(pool, mm, DATA(d), eps, kappa, p[0], p[1], p[2], p[3]);
      mc_rolloutDelete(pool);
    }
  }
  Py_END_ALLOW_THREADS
  for (int k = 0; k < 4; k++) {
    Py_XDECREF(arrs[k]);
  }
  if (nopool) {
    PyErr_SetString(PyExc_MemoryError, "mjd_transitionImplicit: cannot make the thread pool");
    return NULL;
  }
  if (rc < 0) {
    PyErr_SetString(PyExc_ValueError, "mjd_transitionImplicit: the core refused the arguments "
                    "(an RK4 model, a solver without a derivative with constraint rows, or a "
                    "state whose forward dynamics are not finite; see the message printed)");
    return NULL;
  }
  return PyLong_FromLong(rc);
}


// mjd_inverseFD(m, d, eps, flg_actuation, DfDq, DfDv, DfDa, DsDq, DsDv, DsDa, DmDq)
static PyObject* fn_mjd_inverseFD(PyObject* self, PyObject* args) {
  PyObject *m, *d, *out[7];
  double eps;
  int actuation;
  if (!PyArg_ParseTuple(args, "OOdpOOOOOOO:mjd_inverseFD", &m, &d, &eps, &actuation, out,
                        out + 1, out + 2, out + 3, out + 4, out + 5, out + 6) ||
      pm_checkPair(m, d, "mjd_inverseFD") < 0) {
    return NULL;
  }
  if (!(eps > 0)) {
    PyErr_Format(PyExc_ValueError, "mjd_inverseFD: eps must be positive, got %g", eps);
    return NULL;
  }
  const mcModel* mm = MODEL(m);
  npy_intp nv = mm->nv, ns = mm->nsensordata, nM = mm->nM;
  const npy_intp sizes[7] = {nv * nv, nv * nv, nv * nv, nv * ns, nv * ns, nv * ns, nv * nM};
  const char* names[7] = {"DfDq", "DfDv", "DfDa", "DsDq", "DsDv", "DsDa", "DmDq"};
  PyArrayObject* arrs[7];
  mcNum* p[7];
  if (takeOutputs(7, out, sizes, names, arrs, p) < 0) {
    return NULL;
  }
  int rc;
  Py_BEGIN_ALLOW_THREADS
  rc = mcd_inverseFD(mm, DATA(d), eps, actuation, p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
  Py_END_ALLOW_THREADS
  for (int k = 0; k < 7; k++) {
    Py_XDECREF(arrs[k]);
  }
  if (rc < 0) {
    PyErr_SetString(PyExc_ValueError, "mjd_inverseFD: the core refused the arguments");
    return NULL;
  }
  return PyLong_FromLong(rc);
}


PyMethodDef pm_derivativeMethods[] = {
  {"mjd_transitionFD", fn_mjd_transitionFD, METH_VARARGS,
   "mjd_transitionFD(m, d, eps, flg_centered, A, B, C, D): finite-difference transition "
   "Jacobians (outputs may be None)"},
  {"mjd_transitionImplicit", fn_mjd_transitionImplicit, METH_VARARGS,
   "mjd_transitionImplicit(m, d, eps, kappa, A, B, C, D, nthread=1): Moduco's transition "
   "Jacobians with the constraint solver differentiated implicitly at kappa (ipm; outputs may "
   "be None)"},
  {"mjd_inverseFD", fn_mjd_inverseFD, METH_VARARGS,
   "mjd_inverseFD(m, d, eps, flg_actuation, DfDq, DfDv, DfDa, DsDq, DsDv, DsDa, DmDq): "
   "finite-difference inverse-dynamics Jacobians (outputs may be None)"},
  {NULL, NULL, 0, NULL}
};
