// Moduco Python extension: Moduco's own functions: plugins, warning texts and policy, the
// message handler, and the checked array copy behind every assignment.
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
