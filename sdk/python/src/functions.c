// Moduco Python extension: the mj_* functions of MuJoCo's bindings over the mc_* API. Every call
// that evaluates dynamics releases the GIL, so threads stepping separate MjData run in parallel.

#include "pymoduco.h"


//---------------------------------- (m, d) stages ------------------------------------------------

// functions taking (m, d) only: one wrapper each, the GIL released around the call
#define PM_MD_FUNCTIONS(X)                                                                        \
  X(mj_forward, mc_forward)                                                                       \
  X(mj_inverse, mc_inverse)                                                                       \
  X(mj_step1, mc_step1)                                                                           \
  X(mj_step2, mc_step2)                                                                           \
  X(mj_resetData, mc_resetData)                                                                   \
  X(mj_fwdPosition, mc_fwdPosition)                                                               \
  X(mj_fwdVelocity, mc_fwdVelocity)                                                               \
  X(mj_fwdActuation, mc_fwdActuation)                                                             \
  X(mj_fwdAcceleration, mc_fwdAcceleration)                                                       \
  X(mj_fwdConstraint, mc_fwdConstraint)                                                           \
  X(mj_kinematics, mc_kinematics)                                                                 \
  X(mj_comPos, mc_comPos)                                                                         \
  X(mj_tendon, mc_tendon)                                                                         \
  X(mj_transmission, mc_transmission)                                                             \
  X(mj_crb, mc_crb)                                                                               \
  X(mj_factorM, mc_factorM)                                                                       \
  X(mj_comVel, mc_comVel)                                                                         \
  X(mj_passive, mc_passive)                                                                       \
  X(mj_energyPos, mc_energyPos)                                                                   \
  X(mj_energyVel, mc_energyVel)                                                                   \
  X(mj_checkPos, mc_checkPos)                                                                     \
  X(mj_checkVel, mc_checkVel)                                                                     \
  X(mj_checkAcc, mc_checkAcc)                                                                     \
  X(mj_rnePostConstraint, mc_rnePostConstraint)

#define X(py, c)                                                                                  \
  static PyObject* fn_##py(PyObject* self, PyObject* args) {                                      \
    PyObject *m, *d;                                                                              \
    if (!PyArg_ParseTuple(args, "OO:" #py, &m, &d) || pm_checkPair(m, d, #py) < 0) {             \
      return NULL;                                                                                \
    }                                                                                             \
    Py_BEGIN_ALLOW_THREADS                                                                        \
    c(MODEL(m), DATA(d));                                                                         \
    Py_END_ALLOW_THREADS                                                                          \
    Py_RETURN_NONE;                                                                               \
  }
PM_MD_FUNCTIONS(X)
#undef X


// mj_step(m, d, nstep=1)
static PyObject* fn_mj_step(PyObject* self, PyObject* args, PyObject* kwds) {
  static char* kw[] = {"m", "d", "nstep", NULL};
  PyObject *m, *d;
  int nstep = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|i:mj_step", kw, &m, &d, &nstep) ||
      pm_checkPair(m, d, "mj_step") < 0) {
    return NULL;
  }
  if (nstep < 1) {
    PyErr_Format(PyExc_ValueError, "mj_step: nstep must be positive, got %d", nstep);
    return NULL;
  }
  Py_BEGIN_ALLOW_THREADS
  for (int i = 0; i < nstep; i++) {
    mc_step(MODEL(m), DATA(d));
  }
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}


// mj_resetDataKeyframe(m, d, key)
static PyObject* fn_mj_resetDataKeyframe(PyObject* self, PyObject* args) {
  PyObject *m, *d;
  int key;
  if (!PyArg_ParseTuple(args, "OOi:mj_resetDataKeyframe", &m, &d, &key) ||
      pm_checkPair(m, d, "mj_resetDataKeyframe") < 0) {
    return NULL;
  }
  if (key < 0 || key >= MODEL(m)->nkey) {
    PyErr_Format(PyExc_ValueError, "mj_resetDataKeyframe: key %d out of range [0, %d)", key,
                 MODEL(m)->nkey);
    return NULL;
  }
  mc_resetDataKeyframe(MODEL(m), DATA(d), key);
  Py_RETURN_NONE;
}


// mj_forwardSkip(m, d, skipstage, skipsensor)
static PyObject* fn_mj_forwardSkip(PyObject* self, PyObject* args) {
  PyObject *m, *d;
  int stage, sensor;
  if (!PyArg_ParseTuple(args, "OOii:mj_forwardSkip", &m, &d, &stage, &sensor) ||
      pm_checkPair(m, d, "mj_forwardSkip") < 0) {
    return NULL;
  }
  if (stage < mcSTAGE_NONE || stage > mcSTAGE_VEL) {
    PyErr_Format(PyExc_ValueError, "mj_forwardSkip: skipstage %d is not a mjtStage below ACC",
                 stage);
    return NULL;
  }
  Py_BEGIN_ALLOW_THREADS
  mc_forwardSkip(MODEL(m), DATA(d), stage, sensor);
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}


//---------------------------------- names ---------------------------------------------------------

static int checkObjType(int type, const char* fn) {
  if (type < mcOBJ_UNKNOWN || type > mcOBJ_PLUGIN) {
    PyErr_Format(PyExc_ValueError, "%s: %d is not a mjtObj", fn, type);
    return -1;
  }
  return 0;
}


static PyObject* fn_mj_name2id(PyObject* self, PyObject* args) {
  PyObject* m;
  int type;
  const char* name;
  if (!PyArg_ParseTuple(args, "Ois:mj_name2id", &m, &type, &name) ||
      pm_checkModel(m, "mj_name2id") < 0 || checkObjType(type, "mj_name2id") < 0) {
    return NULL;
  }
  return PyLong_FromLong(mc_name2id(MODEL(m), type, name));
}


static PyObject* fn_mj_id2name(PyObject* self, PyObject* args) {
  PyObject* m;
  int type, id;
  if (!PyArg_ParseTuple(args, "Oii:mj_id2name", &m, &type, &id) ||
      pm_checkModel(m, "mj_id2name") < 0 || checkObjType(type, "mj_id2name") < 0) {
    return NULL;
  }
  const char* s = mc_id2name(MODEL(m), type, id);
  if (!s) {
    Py_RETURN_NONE;
  }
  return PyUnicode_FromString(s);
}


//---------------------------------- inertia -------------------------------------------------------

// mj_mulM(m, d, res, vec): res = M vec
static PyObject* fn_mj_mulM(PyObject* self, PyObject* args) {
  PyObject *m, *d, *res, *vec;
  if (!PyArg_ParseTuple(args, "OOOO:mj_mulM", &m, &d, &res, &vec) ||
      pm_checkPair(m, d, "mj_mulM") < 0) {
    return NULL;
  }
  int nv = MODEL(m)->nv;
  PyArrayObject* out = pm_output(res, nv, "mj_mulM: res");
  PyArrayObject* in = out ? pm_input(vec, nv, "mj_mulM: vec") : NULL;
  if (in) {
    mc_mulM(MODEL(m), DATA(d), PyArray_DATA(out), PyArray_DATA(in));
  }
  Py_XDECREF(out);
  Py_XDECREF(in);
  if (!in) {
    return NULL;
  }
  Py_RETURN_NONE;
}


// mj_solveM(m, d, x, y): x = inv(M) y for the rows of y (n x nv)
static PyObject* fn_mj_solveM(PyObject* self, PyObject* args) {
  PyObject *m, *d, *x, *y;
  if (!PyArg_ParseTuple(args, "OOOO:mj_solveM", &m, &d, &x, &y) ||
      pm_checkPair(m, d, "mj_solveM") < 0) {
    return NULL;
  }
  int nv = MODEL(m)->nv;
  if (!PyArray_Check(x)) {
    return (PyObject*)pm_output(x, 0, "mj_solveM: x");   // raises TypeError
  }
  npy_intp size = PyArray_SIZE((PyArrayObject*)x);
  if (!nv || size % nv) {
    PyErr_Format(PyExc_ValueError, "mj_solveM: x must hold n rows of nv=%d numbers", nv);
    return NULL;
  }
  PyArrayObject* out = pm_output(x, size, "mj_solveM: x");
  PyArrayObject* in = out ? pm_input(y, size, "mj_solveM: y") : NULL;
  if (in) {
    Py_BEGIN_ALLOW_THREADS
    mc_solveM(MODEL(m), DATA(d), PyArray_DATA(out), PyArray_DATA(in), (int)(size / nv));
    Py_END_ALLOW_THREADS
  }
  Py_XDECREF(out);
  Py_XDECREF(in);
  if (!in) {
    return NULL;
  }
  Py_RETURN_NONE;
}


// mj_fullM(m, dst, M): dense nv x nv from the sparse qM
static PyObject* fn_mj_fullM(PyObject* self, PyObject* args) {
  PyObject *m, *dst, *M;
  if (!PyArg_ParseTuple(args, "OOO:mj_fullM", &m, &dst, &M) ||
      pm_checkModel(m, "mj_fullM") < 0) {
    return NULL;
  }
  int nv = MODEL(m)->nv;
  PyArrayObject* out = pm_output(dst, (npy_intp)nv * nv, "mj_fullM: dst");
  PyArrayObject* in = out ? pm_input(M, MODEL(m)->nM, "mj_fullM: M") : NULL;
  if (in) {
    mc_fullM(MODEL(m), PyArray_DATA(out), PyArray_DATA(in));
  }
  Py_XDECREF(out);
  Py_XDECREF(in);
  if (!in) {
    return NULL;
  }
  Py_RETURN_NONE;
}


// mj_rne(m, d, flg_acc, result)
static PyObject* fn_mj_rne(PyObject* self, PyObject* args) {
  PyObject *m, *d, *res;
  int flg;
  if (!PyArg_ParseTuple(args, "OOiO:mj_rne", &m, &d, &flg, &res) ||
      pm_checkPair(m, d, "mj_rne") < 0) {
    return NULL;
  }
  PyArrayObject* out = pm_output(res, MODEL(m)->nv, "mj_rne: result");
  if (!out) {
    return NULL;
  }
  Py_BEGIN_ALLOW_THREADS
  mc_rne(MODEL(m), DATA(d), flg, PyArray_DATA(out));
  Py_END_ALLOW_THREADS
  Py_DECREF(out);
  Py_RETURN_NONE;
}


// mj_setConst(m, d): recompute the qpos0-dependent model constants
static PyObject* fn_mj_setConst(PyObject* self, PyObject* args) {
  PyObject *m, *d;
  if (!PyArg_ParseTuple(args, "OO:mj_setConst", &m, &d) || pm_checkPair(m, d, "mj_setConst") < 0) {
    return NULL;
  }
  mc_setConst(MODEL(m), DATA(d));
  Py_RETURN_NONE;
}


//---------------------------------- state ---------------------------------------------------------

static int checkSpec(long spec, const char* fn) {
  if (spec < 0 || spec >= (1L << mcNSTATE)) {
    PyErr_Format(PyExc_ValueError, "%s: invalid mjtState spec %ld", fn, spec);
    return -1;
  }
  return 0;
}


static PyObject* fn_mj_stateSize(PyObject* self, PyObject* args) {
  PyObject* m;
  long spec;
  if (!PyArg_ParseTuple(args, "Ol:mj_stateSize", &m, &spec) ||
      pm_checkModel(m, "mj_stateSize") < 0 || checkSpec(spec, "mj_stateSize") < 0) {
    return NULL;
  }
  return PyLong_FromLong(mc_stateSize(MODEL(m), (unsigned)spec));
}


static PyObject* fn_mj_getState(PyObject* self, PyObject* args) {
  PyObject *m, *d, *state;
  long spec;
  if (!PyArg_ParseTuple(args, "OOOl:mj_getState", &m, &d, &state, &spec) ||
      pm_checkPair(m, d, "mj_getState") < 0 || checkSpec(spec, "mj_getState") < 0) {
    return NULL;
  }
  PyArrayObject* out = pm_output(state, mc_stateSize(MODEL(m), (unsigned)spec),
                                 "mj_getState: state");
  if (!out) {
    return NULL;
  }
  mc_getState(MODEL(m), DATA(d), PyArray_DATA(out), (unsigned)spec);
  Py_DECREF(out);
  Py_RETURN_NONE;
}


static PyObject* fn_mj_setState(PyObject* self, PyObject* args) {
  PyObject *m, *d, *state;
  long spec;
  if (!PyArg_ParseTuple(args, "OOOl:mj_setState", &m, &d, &state, &spec) ||
      pm_checkPair(m, d, "mj_setState") < 0 || checkSpec(spec, "mj_setState") < 0) {
    return NULL;
  }
  PyArrayObject* in = pm_input(state, mc_stateSize(MODEL(m), (unsigned)spec),
                               "mj_setState: state");
  if (!in) {
    return NULL;
  }
  mc_setState(MODEL(m), DATA(d), PyArray_DATA(in), (unsigned)spec);
  Py_DECREF(in);
  Py_RETURN_NONE;
}


//---------------------------------- contacts and Jacobians ----------------------------------------

// mj_contactForce(m, d, id, result): 6 numbers in the contact frame
static PyObject* fn_mj_contactForce(PyObject* self, PyObject* args) {
  PyObject *m, *d, *res;
  int id;
  if (!PyArg_ParseTuple(args, "OOiO:mj_contactForce", &m, &d, &id, &res) ||
      pm_checkPair(m, d, "mj_contactForce") < 0) {
    return NULL;
  }
  if (id < 0 || id >= DATA(d)->ncon) {
    PyErr_Format(PyExc_ValueError, "mj_contactForce: contact %d out of range [0, %d)", id,
                 DATA(d)->ncon);
    return NULL;
  }
  PyArrayObject* out = pm_output(res, 6, "mj_contactForce: result");
  if (!out) {
    return NULL;
  }
  mc_contactForce(MODEL(m), DATA(d), id, PyArray_DATA(out));
  Py_DECREF(out);
  Py_RETURN_NONE;
}


// the point and body of a Jacobian request
typedef enum { JAC_POINT, JAC_DOT, JAC_BODY, JAC_BODYCOM, JAC_GEOM, JAC_SITE } JacKind;

static PyObject* jacobian(PyObject* args, JacKind kind, const char* fn) {
  PyObject *m, *d, *jacp, *jacr, *point = NULL;
  int id;
  int withpoint = kind == JAC_POINT || kind == JAC_DOT;
  int ok = withpoint ? PyArg_ParseTuple(args, "OOOOOi", &m, &d, &jacp, &jacr, &point, &id)
                     : PyArg_ParseTuple(args, "OOOOi", &m, &d, &jacp, &jacr, &id);
  if (!ok || pm_checkPair(m, d, fn) < 0) {
    return NULL;
  }
  const mcModel* mm = MODEL(m);
  const mcData* dd = DATA(d);
  int count = kind == JAC_GEOM ? mm->ngeom : kind == JAC_SITE ? mm->nsite : mm->nbody;
  if (id < 0 || id >= count) {
    PyErr_Format(PyExc_ValueError, "%s: id %d out of range [0, %d)", fn, id, count);
    return NULL;
  }
  PyArrayObject *p = NULL, *r = NULL, *pt = NULL;
  npy_intp n = 3 * (npy_intp)mm->nv;
  if ((jacp != Py_None && !(p = pm_output(jacp, n, "jacp"))) ||
      (jacr != Py_None && !(r = pm_output(jacr, n, "jacr"))) ||
      (point && !(pt = pm_input(point, 3, "point")))) {
    Py_XDECREF(p);
    Py_XDECREF(r);
    return NULL;
  }
  mcNum* jp = p ? PyArray_DATA(p) : NULL;
  mcNum* jr = r ? PyArray_DATA(r) : NULL;
  switch (kind) {
    case JAC_POINT: mc_jacPoint(mm, dd, jp, jr, PyArray_DATA(pt), id); break;
    case JAC_DOT: mc_jacDot(mm, dd, jp, jr, PyArray_DATA(pt), id); break;
    case JAC_BODY: mc_jacBody(mm, dd, jp, jr, id); break;
    case JAC_BODYCOM: mc_jacBodyCom(mm, dd, jp, jr, id); break;
    case JAC_GEOM: mc_jacGeom(mm, dd, jp, jr, id); break;
    default: mc_jacSite(mm, dd, jp, jr, id); break;
  }
  Py_XDECREF(p);
  Py_XDECREF(r);
  Py_XDECREF(pt);
  Py_RETURN_NONE;
}


static PyObject* fn_mj_jac(PyObject* s, PyObject* a) { return jacobian(a, JAC_POINT, "mj_jac"); }

// mj_jacPointAxis(m, d, jacPoint, jacAxis, point, axis, body)
static PyObject* fn_mj_jacPointAxis(PyObject* s, PyObject* args) {
  PyObject *m, *d, *jp, *ja, *point, *axis;
  int body;
  if (!PyArg_ParseTuple(args, "OOOOOOi:mj_jacPointAxis", &m, &d, &jp, &ja, &point, &axis, &body) ||
      pm_checkPair(m, d, "mj_jacPointAxis") < 0) {
    return NULL;
  }
  const mcModel* mm = MODEL(m);
  if (body < 0 || body >= mm->nbody) {
    PyErr_Format(PyExc_ValueError, "mj_jacPointAxis: id %d out of range [0, %d)", body, mm->nbody);
    return NULL;
  }
  npy_intp n = 3 * (npy_intp)mm->nv;
  PyArrayObject *p = NULL, *a = NULL, *pt = NULL, *ax = NULL;
  PyObject* ret = NULL;
  if ((jp == Py_None || (p = pm_output(jp, n, "jacPoint"))) &&
      (ja == Py_None || (a = pm_output(ja, n, "jacAxis"))) &&
      (pt = pm_input(point, 3, "point")) && (ax = pm_input(axis, 3, "axis"))) {
    mc_jacPointAxis(mm, DATA(d), p ? PyArray_DATA(p) : NULL, a ? PyArray_DATA(a) : NULL,
                    PyArray_DATA(pt), PyArray_DATA(ax), body);
    ret = Py_None;
    Py_INCREF(ret);
  }
  Py_XDECREF(p);
  Py_XDECREF(a);
  Py_XDECREF(pt);
  Py_XDECREF(ax);
  return ret;
}
static PyObject* fn_mj_jacDot(PyObject* s, PyObject* a) {
  return jacobian(a, JAC_DOT, "mj_jacDot");
}
static PyObject* fn_mj_jacBody(PyObject* s, PyObject* a) {
  return jacobian(a, JAC_BODY, "mj_jacBody");
}
static PyObject* fn_mj_jacBodyCom(PyObject* s, PyObject* a) {
  return jacobian(a, JAC_BODYCOM, "mj_jacBodyCom");
}
static PyObject* fn_mj_jacGeom(PyObject* s, PyObject* a) {
  return jacobian(a, JAC_GEOM, "mj_jacGeom");
}
static PyObject* fn_mj_jacSite(PyObject* s, PyObject* a) {
  return jacobian(a, JAC_SITE, "mj_jacSite");
}


// mj_jacSubtreeCom(m, d, jacp, body): translational Jacobian of the subtree's center of mass,
// the mass-weighted sum of the body-com Jacobians of the subtree (needs d.subtree_com/xipos)
static PyObject* fn_mj_jacSubtreeCom(PyObject* self, PyObject* args) {
  PyObject *m, *d, *jacp;
  int body;
  if (!PyArg_ParseTuple(args, "OOOi:mj_jacSubtreeCom", &m, &d, &jacp, &body) ||
      pm_checkPair(m, d, "mj_jacSubtreeCom") < 0) {
    return NULL;
  }
  const mcModel* mm = MODEL(m);
  mcData* dd = DATA(d);
  if (body < 0 || body >= mm->nbody) {
    PyErr_Format(PyExc_ValueError, "mj_jacSubtreeCom: id %d out of range [0, %d)", body,
                 mm->nbody);
    return NULL;
  }
  PyArrayObject* out = pm_output(jacp, 3 * (npy_intp)mm->nv, "jacp");
  if (!out) {
    return NULL;
  }
  mc_jacSubtreeCom(mm, dd, PyArray_DATA(out), body);
  Py_DECREF(out);
  Py_RETURN_NONE;
}


//---------------------------------- integration helpers -------------------------------------------

// mj_integratePos(m, qpos, qvel, dt): in place on qpos
static PyObject* fn_mj_integratePos(PyObject* self, PyObject* args) {
  PyObject *m, *qpos, *qvel;
  double dt;
  if (!PyArg_ParseTuple(args, "OOOd:mj_integratePos", &m, &qpos, &qvel, &dt) ||
      pm_checkModel(m, "mj_integratePos") < 0) {
    return NULL;
  }
  PyArrayObject* out = pm_output(qpos, MODEL(m)->nq, "mj_integratePos: qpos");
  PyArrayObject* in = out ? pm_input(qvel, MODEL(m)->nv, "mj_integratePos: qvel") : NULL;
  if (in) {
    mc_integratePos(MODEL(m), PyArray_DATA(out), PyArray_DATA(in), dt);
  }
  Py_XDECREF(out);
  Py_XDECREF(in);
  if (!in) {
    return NULL;
  }
  Py_RETURN_NONE;
}


// mj_differentiatePos(m, qvel, dt, qpos1, qpos2): qvel written
static PyObject* fn_mj_differentiatePos(PyObject* self, PyObject* args) {
  PyObject *m, *qvel, *qpos1, *qpos2;
  double dt;
  if (!PyArg_ParseTuple(args, "OOdOO:mj_differentiatePos", &m, &qvel, &dt, &qpos1, &qpos2) ||
      pm_checkModel(m, "mj_differentiatePos") < 0) {
    return NULL;
  }
  const mcModel* mm = MODEL(m);
  PyArrayObject* out = pm_output(qvel, mm->nv, "mj_differentiatePos: qvel");
  PyArrayObject* a = out ? pm_input(qpos1, mm->nq, "mj_differentiatePos: qpos1") : NULL;
  PyArrayObject* b = a ? pm_input(qpos2, mm->nq, "mj_differentiatePos: qpos2") : NULL;
  if (b) {
    mc_differentiatePos(mm, PyArray_DATA(out), dt, PyArray_DATA(a), PyArray_DATA(b));
  }
  Py_XDECREF(out);
  Py_XDECREF(a);
  Py_XDECREF(b);
  if (!b) {
    return NULL;
  }
  Py_RETURN_NONE;
}


// mj_normalizeQuat(m, qpos): in place
static PyObject* fn_mj_normalizeQuat(PyObject* self, PyObject* args) {
  PyObject *m, *qpos;
  if (!PyArg_ParseTuple(args, "OO:mj_normalizeQuat", &m, &qpos) ||
      pm_checkModel(m, "mj_normalizeQuat") < 0) {
    return NULL;
  }
  PyArrayObject* out = pm_output(qpos, MODEL(m)->nq, "mj_normalizeQuat: qpos");
  if (!out) {
    return NULL;
  }
  mc_normalizeQuat(MODEL(m), PyArray_DATA(out));
  Py_DECREF(out);
  Py_RETURN_NONE;
}


static PyObject* fn_mj_version(PyObject* self, PyObject* unused) {
  return PyLong_FromLong(mc_version());
}


static PyObject* fn_mj_versionString(PyObject* self, PyObject* unused) {
  return PyUnicode_FromString(mc_versionString());
}


#define X(py, c) {#py, fn_##py, METH_VARARGS, #py "(m, d): " #c},
PyMethodDef pm_functionMethods[] = {
  PM_MD_FUNCTIONS(X)
  {"mj_step", (PyCFunction)(void (*)(void))fn_mj_step, METH_VARARGS | METH_KEYWORDS,
   "mj_step(m, d, nstep=1): advance nstep timesteps"},
  {"mj_resetDataKeyframe", fn_mj_resetDataKeyframe, METH_VARARGS, "reset to keyframe key"},
  {"mj_forwardSkip", fn_mj_forwardSkip, METH_VARARGS, "forward skipping stages"},
  {"mj_name2id", fn_mj_name2id, METH_VARARGS, "id of a named object; -1 if none"},
  {"mj_id2name", fn_mj_id2name, METH_VARARGS, "name of an object; None if none"},
  {"mj_mulM", fn_mj_mulM, METH_VARARGS, "res = M vec"},
  {"mj_solveM", fn_mj_solveM, METH_VARARGS, "x = inv(M) y, row by row"},
  {"mj_fullM", fn_mj_fullM, METH_VARARGS, "dense M from qM"},
  {"mj_rne", fn_mj_rne, METH_VARARGS, "recursive Newton-Euler"},
  {"mj_setConst", fn_mj_setConst, METH_VARARGS, "recompute qpos0-dependent constants"},
  {"mj_stateSize", fn_mj_stateSize, METH_VARARGS, "size of a state spec"},
  {"mj_getState", fn_mj_getState, METH_VARARGS, "copy the state into an array"},
  {"mj_setState", fn_mj_setState, METH_VARARGS, "set the state from an array"},
  {"mj_contactForce", fn_mj_contactForce, METH_VARARGS, "contact force in the contact frame"},
  {"mj_jac", fn_mj_jac, METH_VARARGS, "Jacobian of a global point on a body"},
  {"mj_jacBody", fn_mj_jacBody, METH_VARARGS, "Jacobian of a body frame"},
  {"mj_jacBodyCom", fn_mj_jacBodyCom, METH_VARARGS, "Jacobian of a body com"},
  {"mj_jacGeom", fn_mj_jacGeom, METH_VARARGS, "Jacobian of a geom"},
  {"mj_jacSite", fn_mj_jacSite, METH_VARARGS, "Jacobian of a site"},
  {"mj_jacDot", fn_mj_jacDot, METH_VARARGS, "time derivative of the Jacobian of a point"},
  {"mj_jacPointAxis", fn_mj_jacPointAxis, METH_VARARGS, "Jacobians of a point and of an axis"},
  {"mj_jacSubtreeCom", fn_mj_jacSubtreeCom, METH_VARARGS, "Jacobian of a subtree com"},
  {"mj_integratePos", fn_mj_integratePos, METH_VARARGS, "integrate qpos by qvel*dt"},
  {"mj_differentiatePos", fn_mj_differentiatePos, METH_VARARGS,
   "qvel = (qpos2 - qpos1) / dt, the inverse of mj_integratePos"},
  {"mj_normalizeQuat", fn_mj_normalizeQuat, METH_VARARGS, "normalize the quaternions in qpos"},
  {"mj_version", fn_mj_version, METH_NOARGS, "library version"},
  {"mj_versionString", fn_mj_versionString, METH_NOARGS, "library version string"},
  {NULL, NULL, 0, NULL}
};
#undef X
