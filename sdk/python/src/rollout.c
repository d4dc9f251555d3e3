// Moduco Python extension: _moduco.RolloutPool, the batch-rollout thread pool of
// core/engine/rollout.c (mc_rolloutEx), with the GIL released while it runs.
#include <string.h>

#include "pymoduco.h"

//---------------------------------- rollout pool --------------------------------------------------

typedef struct {
  PyObject_HEAD
  mcRolloutPool* pool;
  pmModel* model;
  int nbatch;
} pmPool;


static PyObject* Pool_new(PyTypeObject* type, PyObject* args, PyObject* kwds) {
  PyObject* model;
  int nthread, nbatch;
  if (!PyArg_ParseTuple(args, "Oii:RolloutPool", &model, &nthread, &nbatch) ||
      pm_checkModel(model, "RolloutPool") < 0) {
    return NULL;
  }
  if (nthread < 1 || nbatch < 1) {
    PyErr_SetString(PyExc_ValueError, "RolloutPool: nthread and nbatch must be positive");
    return NULL;
  }
  pmPool* self = (pmPool*)type->tp_alloc(type, 0);
  if (!self) {
    return NULL;
  }
  Py_INCREF(model);
  self->model = (pmModel*)model;
  self->nbatch = nbatch;
  Py_BEGIN_ALLOW_THREADS
  self->pool = mc_rolloutCreate(self->model->m, nthread, nbatch);
  Py_END_ALLOW_THREADS
  if (!self->pool) {
    Py_DECREF(self);
    PyErr_SetString(PyExc_RuntimeError, "RolloutPool: mc_rolloutCreate failed");
    return NULL;
  }
  return (PyObject*)self;
}


static void Pool_dealloc(pmPool* self) {
  PyObject_GC_UnTrack(self);
  if (self->pool) {
    Py_BEGIN_ALLOW_THREADS
    mc_rolloutDelete(self->pool);
    Py_END_ALLOW_THREADS
  }
  Py_CLEAR(self->model);
  Py_TYPE(self)->tp_free((PyObject*)self);
}


static int Pool_traverse(pmPool* self, visitproc visit, void* arg) {
  Py_VISIT(self->model);
  return 0;
}


// rollout(nroll, nstep, spec, state0, control|None, states_out|None, sensor_out|None
//         [, control_spec=mjSTATE_CTRL, warmstart|None]) (mc_rolloutEx)
static PyObject* Pool_rollout(pmPool* self, PyObject* args) {
  int nroll, nstep;
  unsigned int spec, cspec = mcSTATE_CTRL;
  PyObject *state0, *ctrl, *states, *sensor, *warm = Py_None;
  if (!PyArg_ParseTuple(args, "iiIOOOO|IO:rollout", &nroll, &nstep, &spec, &state0, &ctrl,
                        &states, &sensor, &cspec, &warm)) {
    return NULL;
  }
  const mcModel* m = self->model->m;
  if (nroll < 0 || nroll > self->nbatch || nstep < 0 || spec >= (1u << mcNSTATE) ||
      (cspec & ~(unsigned)mcSTATE_USER)) {
    PyErr_Format(PyExc_ValueError, "rollout: nroll %d (at most %d), nstep %d, spec %u or "
                 "control_spec %u (bits of mjSTATE_USER only) invalid", nroll, self->nbatch,
                 nstep, spec, cspec);
    return NULL;
  }
  npy_intp ns = mc_stateSize(m, spec);
  npy_intp nsteps = (npy_intp)nroll * nstep;
  PyArrayObject *s0 = pm_input(state0, nroll * ns, "initial_state"), *c = NULL, *so = NULL,
                *se = NULL, *w = NULL;
  int ok = s0 &&
           (ctrl == Py_None || (c = pm_input(ctrl, nsteps * mc_stateSize(m, cspec), "control"))) &&
           (warm == Py_None ||
            (w = pm_input(warm, (npy_intp)nroll * m->nv, "initial_warmstart"))) &&
           (states == Py_None || (so = pm_output(states, nsteps * ns, "state"))) &&
           (sensor == Py_None || (se = pm_output(sensor, nsteps * m->nsensordata, "sensordata")));
  int rc = -1;
  if (ok) {
    Py_BEGIN_ALLOW_THREADS
    rc = mc_rolloutEx(self->pool, nroll, nstep, spec, PyArray_DATA(s0), w ? PyArray_DATA(w) : NULL,
                      cspec, c ? PyArray_DATA(c) : NULL, so ? PyArray_DATA(so) : NULL,
                      se ? PyArray_DATA(se) : NULL);
    Py_END_ALLOW_THREADS
    if (rc) {
      PyErr_SetString(PyExc_ValueError, "rollout: mc_rolloutEx rejected the arguments");
    }
  }
  Py_XDECREF(w);
  Py_XDECREF(s0);
  Py_XDECREF(c);
  Py_XDECREF(so);
  Py_XDECREF(se);
  if (rc) {
    return NULL;
  }
  Py_RETURN_NONE;
}


// warnings(n): warnings raised by each of the first n items of the last call
static PyObject* Pool_warnings(pmPool* self, PyObject* args) {
  int n;
  if (!PyArg_ParseTuple(args, "i:warnings", &n)) {
    return NULL;
  }
  if (n < 0 || n > self->nbatch) {
    PyErr_Format(PyExc_ValueError, "warnings: n %d out of range [0, %d]", n, self->nbatch);
    return NULL;
  }
  npy_intp dims = n;
  PyObject* arr = PyArray_SimpleNew(1, &dims, NPY_INT32);
  if (arr && n) {
    memcpy(PyArray_DATA((PyArrayObject*)arr), mc_rolloutWarnings(self->pool),
           sizeof(int) * (size_t)n);
  }
  return arr;
}


static PyObject* Pool_get_nthread(pmPool* self, void* closure) {
  return PyLong_FromLong(mc_rolloutThreads(self->pool));
}


static PyObject* Pool_get_nbatch(pmPool* self, void* closure) {
  return PyLong_FromLong(self->nbatch);
}


static PyMethodDef Pool_methods[] = {
  {"rollout", (PyCFunction)Pool_rollout, METH_VARARGS, "run rollouts (mc_rolloutEx)"},
  {"warnings", (PyCFunction)Pool_warnings, METH_VARARGS, "per-item warnings of the last call"},
  {NULL, NULL, 0, NULL}
};

static PyGetSetDef Pool_getset[] = {
  {"nthread", (getter)Pool_get_nthread, NULL, "threads, the caller included", NULL},
  {"nbatch", (getter)Pool_get_nbatch, NULL, "most rollouts per call", NULL},
  {NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject pmPoolType = {
  PyVarObject_HEAD_INIT(NULL, 0)
  .tp_name = "moduco._moduco.RolloutPool",
  .tp_basicsize = sizeof(pmPool),
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
  .tp_doc = "RolloutPool(model, nthread, nbatch): a thread pool of mc_rollout.",
  .tp_new = Pool_new,
  .tp_dealloc = (destructor)Pool_dealloc,
  .tp_traverse = (traverseproc)Pool_traverse,
  .tp_methods = Pool_methods,
  .tp_getset = Pool_getset,
};


int pm_addRollout(PyObject* module) {
  if (PyType_Ready(&pmPoolType) < 0) {
    return -1;
  }
  Py_INCREF(&pmPoolType);
  return PyModule_AddObject(module, "RolloutPool", (PyObject*)&pmPoolType);
}
