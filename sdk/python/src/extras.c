// Moduco Python extension: Moduco's own functions (plugins, warning texts and policy) and the
// batch-rollout pool (_moduco.RolloutPool over mc_rollout / mc_forwardBatch).
#include "pymoduco.h"

//---------------------------------- plugins -------------------------------------------------------

// plugins(): one (name, kind, version, file, description) tuple per registered plugin
static PyObject* ex_plugins(PyObject* self, PyObject* unused) {
  int n;
  Py_BEGIN_ALLOW_THREADS
  n = mc_pluginCount();
  Py_END_ALLOW_THREADS
  PyObject* list = PyList_New(0);
  for (int i = 0; list && i < n; i++) {
    mcPluginInfo info;
    if (mc_pluginInfo(i, &info)) {
      continue;
    }
    PyObject* t = Py_BuildValue("(sssss)", info.name, info.kind, info.version, info.file,
                                info.description ? info.description : "");
    if (!t || PyList_Append(list, t) < 0) {
      Py_XDECREF(t);
      Py_CLEAR(list);
      break;
    }
    Py_DECREF(t);
  }
  return list;
}


static PyObject* ex_pluginMessages(PyObject* self, PyObject* unused) {
  return PyUnicode_FromString(mc_pluginMessages());
}


//---------------------------------- warnings ------------------------------------------------------

static PyObject* ex_warningText(PyObject* self, PyObject* args) {
  int warning, info = 0;
  if (!PyArg_ParseTuple(args, "i|i:warning_text", &warning, &info)) {
    return NULL;
  }
  if (warning < 0 || warning >= mcNWARNING) {
    PyErr_Format(PyExc_ValueError, "warning_text: %d is not a mjtWarning", warning);
    return NULL;
  }
  return PyUnicode_FromString(mc_warningText(warning, info));
}


static pmData* dataArg(PyObject* d, const char* fn) {
  if (!PyObject_TypeCheck(d, &pmDataType)) {
    PyErr_Format(PyExc_TypeError, "%s: expected MjData, got %s", fn, Py_TYPE(d)->tp_name);
    return NULL;
  }
  return (pmData*)d;
}


// set_warning_policy(d, mask): escalate warnings to errors; return the previous mask
static PyObject* ex_setWarningPolicy(PyObject* self, PyObject* args) {
  PyObject* d;
  unsigned long mask;
  if (!PyArg_ParseTuple(args, "Ok:set_warning_policy", &d, &mask) ||
      !dataArg(d, "set_warning_policy")) {
    return NULL;
  }
  if (mask & ~(unsigned long)mcWARNING_ALL) {
    PyErr_Format(PyExc_ValueError, "set_warning_policy: mask 0x%lx has bits beyond mjNWARNING",
                 mask);
    return NULL;
  }
  return PyLong_FromUnsignedLong(mc_setWarningPolicy(((pmData*)d)->d, (unsigned)mask));
}


static PyObject* ex_warningError(PyObject* self, PyObject* d) {
  if (!dataArg(d, "warning_error")) {
    return NULL;
  }
  return PyLong_FromLong(mc_warningError(((pmData*)d)->d));
}


static PyObject* ex_clearWarningError(PyObject* self, PyObject* d) {
  if (!dataArg(d, "clear_warning_error")) {
    return NULL;
  }
  mc_clearWarningError(((pmData*)d)->d);
  Py_RETURN_NONE;
}


// _assign(view, value, what): the checked copy behind every array assignment
static PyObject* ex_assign(PyObject* self, PyObject* args) {
  PyObject *view, *value;
  const char* what;
  if (!PyArg_ParseTuple(args, "O!Os:_assign", &PyArray_Type, &view, &value, &what) ||
      pm_assign(view, value, what) < 0) {
    return NULL;
  }
  Py_RETURN_NONE;
}


//---------------------------------- message handler -----------------------------------------------

static PyObject* messageCallback;   // Python callable receiving library messages; NULL: stderr


// the C handler: may run on any thread (rollout workers), so it takes the GIL itself
static void forwardMessage(void* user, const char* message) {
  if (!Py_IsInitialized()) {
    return;
  }
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* fn = messageCallback;
  if (fn) {
    Py_INCREF(fn);
    PyObject* r = PyObject_CallFunction(fn, "s", message);
    if (!r) {
      PyErr_WriteUnraisable(fn);   // an exception cannot cross the C library
    }
    Py_XDECREF(r);
    Py_DECREF(fn);
  }
  PyGILState_Release(gil);
}


// set_message_handler(fn): fn(message) receives warnings and plugin-loader messages (process
// wide); None restores printing to stderr. Returns the previous handler (None if the default).
static PyObject* ex_setMessageHandler(PyObject* self, PyObject* fn) {
  if (fn != Py_None && !PyCallable_Check(fn)) {
    PyErr_Format(PyExc_TypeError, "set_message_handler: expected a callable or None, got %s",
                 Py_TYPE(fn)->tp_name);
    return NULL;
  }
  PyObject* previous = messageCallback ? messageCallback : Py_None;
  Py_INCREF(previous);
  Py_XDECREF(messageCallback);
  messageCallback = NULL;
  if (fn != Py_None) {
    Py_INCREF(fn);
    messageCallback = fn;
  }
  mc_setMessageHandler(messageCallback ? forwardMessage : NULL, NULL);
  return previous;
}


PyMethodDef pm_extraMethods[] = {
  {"set_message_handler", ex_setMessageHandler, METH_O,
   "fn(message) receives the library's warnings and messages; None: print to stderr"},
  {"_assign", ex_assign, METH_VARARGS, "checked copy of value into an array view"},
  {"plugins", ex_plugins, METH_NOARGS,
   "registered plugins: (name, kind, version, file, description) tuples"},
  {"plugin_messages", ex_pluginMessages, METH_NOARGS, "messages of the plugin scan"},
  {"warning_text", ex_warningText, METH_VARARGS, "text of a mjtWarning"},
  {"set_warning_policy", ex_setWarningPolicy, METH_VARARGS,
   "escalate warnings (bit mask of mjtWarning) to errors; returns the previous mask"},
  {"warning_error", ex_warningError, METH_O, "first escalated warning since reset; -1 if none"},
  {"clear_warning_error", ex_clearWarningError, METH_O, "clear the pending escalated warning"},
  {NULL, NULL, 0, NULL}
};


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


// rollout(nroll, nstep, spec, state0, ctrl|None, states_out|None, sensor_out|None)
static PyObject* Pool_rollout(pmPool* self, PyObject* args) {
  int nroll, nstep;
  unsigned int spec;
  PyObject *state0, *ctrl, *states, *sensor;
  if (!PyArg_ParseTuple(args, "iiIOOOO:rollout", &nroll, &nstep, &spec, &state0, &ctrl, &states,
                        &sensor)) {
    return NULL;
  }
  const mcModel* m = self->model->m;
  if (nroll < 0 || nroll > self->nbatch || nstep < 0 || spec >= (1u << mcNSTATE)) {
    PyErr_Format(PyExc_ValueError, "rollout: nroll %d (at most %d), nstep %d or spec %u invalid",
                 nroll, self->nbatch, nstep, spec);
    return NULL;
  }
  npy_intp ns = mc_stateSize(m, spec);
  npy_intp nsteps = (npy_intp)nroll * nstep;
  PyArrayObject *s0 = pm_input(state0, nroll * ns, "initial_state"), *c = NULL, *so = NULL,
                *se = NULL;
  int ok = s0 && (ctrl == Py_None || (c = pm_input(ctrl, nsteps * m->nu, "control"))) &&
           (states == Py_None || (so = pm_output(states, nsteps * ns, "state"))) &&
           (sensor == Py_None || (se = pm_output(sensor, nsteps * m->nsensordata, "sensordata")));
  int rc = -1;
  if (ok) {
    Py_BEGIN_ALLOW_THREADS
    rc = mc_rollout(self->pool, nroll, nstep, spec, PyArray_DATA(s0), c ? PyArray_DATA(c) : NULL,
                    so ? PyArray_DATA(so) : NULL, se ? PyArray_DATA(se) : NULL);
    Py_END_ALLOW_THREADS
    if (rc) {
      PyErr_SetString(PyExc_ValueError, "rollout: mc_rollout rejected the arguments");
    }
  }
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
  {"rollout", (PyCFunction)Pool_rollout, METH_VARARGS, "run rollouts (mc_rollout)"},
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
