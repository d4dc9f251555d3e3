// Moduco Python extension: the mjt* enums. Values come from the C enums of the public headers
// (a member named mcFOO_BAR in C is mjFOO_BAR in Python, as in MuJoCo's bindings); the Python
// package turns each list into an IntEnum.
#include "pymoduco.h"

typedef struct { const char* name; long value; } Member;

#define E(c) {#c, (long)(c)}
static const Member disableBit[] = {
  E(mcDSBL_CONSTRAINT), E(mcDSBL_EQUALITY), E(mcDSBL_FRICTIONLOSS), E(mcDSBL_LIMIT),
  E(mcDSBL_CONTACT), E(mcDSBL_PASSIVE), E(mcDSBL_GRAVITY), E(mcDSBL_CLAMPCTRL),
  E(mcDSBL_WARMSTART), E(mcDSBL_FILTERPARENT), E(mcDSBL_ACTUATION), E(mcDSBL_REFSAFE),
  E(mcDSBL_SENSOR), E(mcDSBL_MIDPHASE), E(mcDSBL_EULERDAMP), E(mcDSBL_AUTORESET), E(mcNDISABLE),
  {NULL, 0}};
static const Member enableBit[] = {
  E(mcENBL_OVERRIDE), E(mcENBL_ENERGY), E(mcENBL_FWDINV), E(mcENBL_INVDISCRETE),
  E(mcENBL_MULTICCD), E(mcENBL_ISLAND), E(mcENBL_NATIVECCD), E(mcENBL_SLEEP), E(mcNENABLE),
  {NULL, 0}};
static const Member joint[] = {
  E(mcJNT_FREE), E(mcJNT_BALL), E(mcJNT_SLIDE), E(mcJNT_HINGE), {NULL, 0}};
static const Member geom[] = {
  E(mcGEOM_PLANE), E(mcGEOM_HFIELD), E(mcGEOM_SPHERE), E(mcGEOM_CAPSULE), E(mcGEOM_ELLIPSOID),
  E(mcGEOM_CYLINDER), E(mcGEOM_BOX), E(mcGEOM_MESH), E(mcNGEOMTYPES), {NULL, 0}};
static const Member integrator[] = {
  E(mcINT_EULER), E(mcINT_RK4), E(mcINT_IMPLICIT), E(mcINT_IMPLICITFAST), E(mcINT_OTHER),
  {NULL, 0}};
static const Member cone[] = {E(mcCONE_PYRAMIDAL), E(mcCONE_ELLIPTIC), {NULL, 0}};
static const Member jacobian[] = {E(mcJAC_DENSE), E(mcJAC_SPARSE), E(mcJAC_AUTO), {NULL, 0}};
static const Member solver[] = {
  E(mcSOL_PGS), E(mcSOL_CG), E(mcSOL_NEWTON), E(mcSOL_OTHER), {NULL, 0}};
static const Member collision[] = {E(mcCOL_ALL), E(mcCOL_PAIR), E(mcCOL_DYNAMIC), {NULL, 0}};
static const Member eq[] = {
  E(mcEQ_CONNECT), E(mcEQ_WELD), E(mcEQ_JOINT), E(mcEQ_TENDON), E(mcEQ_DISTANCE), {NULL, 0}};
static const Member wrap[] = {
  E(mcWRAP_NONE), E(mcWRAP_JOINT), E(mcWRAP_PULLEY), E(mcWRAP_SITE), E(mcWRAP_SPHERE),
  E(mcWRAP_CYLINDER), {NULL, 0}};
static const Member trn[] = {
  E(mcTRN_JOINT), E(mcTRN_JOINTINPARENT), E(mcTRN_SLIDERCRANK), E(mcTRN_TENDON), E(mcTRN_SITE),
  E(mcTRN_BODY), E(mcTRN_UNDEFINED), {NULL, 0}};
static const Member dyn[] = {
  E(mcDYN_NONE), E(mcDYN_INTEGRATOR), E(mcDYN_FILTER), E(mcDYN_FILTEREXACT), E(mcDYN_MUSCLE),
  E(mcDYN_USER), {NULL, 0}};
static const Member gain[] = {
  E(mcGAIN_FIXED), E(mcGAIN_AFFINE), E(mcGAIN_MUSCLE), E(mcGAIN_USER), {NULL, 0}};
static const Member bias[] = {
  E(mcBIAS_NONE), E(mcBIAS_AFFINE), E(mcBIAS_MUSCLE), E(mcBIAS_USER), {NULL, 0}};
static const Member camLight[] = {
  E(mcCAMLIGHT_FIXED), E(mcCAMLIGHT_TRACK), E(mcCAMLIGHT_TRACKCOM), E(mcCAMLIGHT_TARGETBODY),
  E(mcCAMLIGHT_TARGETBODYCOM), {NULL, 0}};
static const Member obj[] = {
  E(mcOBJ_UNKNOWN), E(mcOBJ_BODY), E(mcOBJ_XBODY), E(mcOBJ_JOINT), E(mcOBJ_DOF), E(mcOBJ_GEOM),
  E(mcOBJ_SITE), E(mcOBJ_CAMERA), E(mcOBJ_LIGHT), E(mcOBJ_MESH), E(mcOBJ_SKIN), E(mcOBJ_HFIELD),
  E(mcOBJ_TEXTURE), E(mcOBJ_MATERIAL), E(mcOBJ_PAIR), E(mcOBJ_EXCLUDE), E(mcOBJ_EQUALITY),
  E(mcOBJ_TENDON), E(mcOBJ_ACTUATOR), E(mcOBJ_SENSOR), E(mcOBJ_NUMERIC), E(mcOBJ_TEXT),
  E(mcOBJ_TUPLE), E(mcOBJ_KEY), E(mcOBJ_PLUGIN), {NULL, 0}};
static const Member sensor[] = {
  E(mcSENS_TOUCH), E(mcSENS_ACCELEROMETER), E(mcSENS_VELOCIMETER), E(mcSENS_GYRO),
  E(mcSENS_FORCE), E(mcSENS_TORQUE), E(mcSENS_MAGNETOMETER), E(mcSENS_RANGEFINDER),
  E(mcSENS_CAMPROJECTION), E(mcSENS_JOINTPOS), E(mcSENS_JOINTVEL), E(mcSENS_TENDONPOS),
  E(mcSENS_TENDONVEL), E(mcSENS_ACTUATORPOS), E(mcSENS_ACTUATORVEL), E(mcSENS_ACTUATORFRC),
  E(mcSENS_JOINTACTFRC), E(mcSENS_BALLQUAT), E(mcSENS_BALLANGVEL), E(mcSENS_JOINTLIMITPOS),
  E(mcSENS_JOINTLIMITVEL), E(mcSENS_JOINTLIMITFRC), E(mcSENS_TENDONLIMITPOS),
  E(mcSENS_TENDONLIMITVEL), E(mcSENS_TENDONLIMITFRC), E(mcSENS_FRAMEPOS), E(mcSENS_FRAMEQUAT),
  E(mcSENS_FRAMEXAXIS), E(mcSENS_FRAMEYAXIS), E(mcSENS_FRAMEZAXIS), E(mcSENS_FRAMELINVEL),
  E(mcSENS_FRAMEANGVEL), E(mcSENS_FRAMELINACC), E(mcSENS_FRAMEANGACC), E(mcSENS_SUBTREECOM),
  E(mcSENS_SUBTREELINVEL), E(mcSENS_SUBTREEANGMOM), E(mcSENS_CLOCK), E(mcSENS_PLUGIN),
  E(mcSENS_USER), E(mcSENS_CONTACT), {NULL, 0}};
static const Member stage[] = {
  E(mcSTAGE_NONE), E(mcSTAGE_POS), E(mcSTAGE_VEL), E(mcSTAGE_ACC), {NULL, 0}};
static const Member dataType[] = {
  E(mcDATATYPE_REAL), E(mcDATATYPE_POSITIVE), E(mcDATATYPE_AXIS), E(mcDATATYPE_QUATERNION),
  {NULL, 0}};
static const Member state[] = {
  E(mcSTATE_TIME), E(mcSTATE_QPOS), E(mcSTATE_QVEL), E(mcSTATE_ACT), E(mcSTATE_WARMSTART),
  E(mcSTATE_CTRL), E(mcSTATE_QFRC_APPLIED), E(mcSTATE_XFRC_APPLIED), E(mcSTATE_EQ_ACTIVE),
  E(mcSTATE_MOCAP_POS), E(mcSTATE_MOCAP_QUAT), E(mcSTATE_USERDATA), E(mcSTATE_PLUGIN),
  E(mcNSTATE), E(mcSTATE_PHYSICS), E(mcSTATE_FULLPHYSICS), E(mcSTATE_USER),
  E(mcSTATE_INTEGRATION), {NULL, 0}};
static const Member warning[] = {
  E(mcWARN_INERTIA), E(mcWARN_CONTACTFULL), E(mcWARN_CNSTRFULL), E(mcWARN_VGEOMFULL),
  E(mcWARN_BADQPOS), E(mcWARN_BADQVEL), E(mcWARN_BADQACC), E(mcWARN_BADCTRL),
  E(mcWARN_PLUGINCHECK), E(mcNWARNING), {NULL, 0}};
static const Member constraint[] = {
  E(mcCNSTR_EQUALITY), E(mcCNSTR_FRICTION_DOF), E(mcCNSTR_FRICTION_TENDON),
  E(mcCNSTR_LIMIT_JOINT), E(mcCNSTR_LIMIT_TENDON), E(mcCNSTR_CONTACT_FRICTIONLESS),
  E(mcCNSTR_CONTACT_PYRAMIDAL), E(mcCNSTR_CONTACT_ELLIPTIC), {NULL, 0}};
static const Member constraintState[] = {
  E(mcCNSTRSTATE_SATISFIED), E(mcCNSTRSTATE_QUADRATIC), E(mcCNSTRSTATE_LINEARNEG),
  E(mcCNSTRSTATE_LINEARPOS), E(mcCNSTRSTATE_CONE), {NULL, 0}};
static const Member timer[] = {
  E(mcTIMER_STEP), E(mcTIMER_FORWARD), E(mcTIMER_INVERSE), E(mcTIMER_POSITION),
  E(mcTIMER_VELOCITY), E(mcTIMER_ACTUATION), E(mcTIMER_ACCELERATION), E(mcTIMER_CONSTRAINT),
  E(mcTIMER_POS_KINEMATICS), E(mcTIMER_POS_INERTIA), E(mcTIMER_POS_COLLISION),
  E(mcTIMER_POS_MAKE), E(mcTIMER_POS_PROJECT), E(mcTIMER_INTEGRATOR), E(mcTIMER_SENSOR),
  E(mcTIMER_POSTSOLVER), E(mcNTIMER), {NULL, 0}};
static const Member timerPlugin[] = {
  E(mcTIMERPLUGIN_INTEGRATOR), E(mcTIMERPLUGIN_SOLVER), E(mcTIMERPLUGIN_POSTSOLVER),
  E(mcTIMERPLUGIN_COLLISION), E(mcTIMERPLUGIN_ELEMENT), {NULL, 0}};
#undef E

static const struct { const char* name; const Member* members; } enums[] = {
  {"mjtDisableBit", disableBit}, {"mjtEnableBit", enableBit}, {"mjtJoint", joint},
  {"mjtGeom", geom}, {"mjtIntegrator", integrator}, {"mjtCone", cone},
  {"mjtJacobian", jacobian}, {"mjtSolver", solver}, {"mjtCollision", collision}, {"mjtEq", eq},
  {"mjtWrap", wrap}, {"mjtTrn", trn}, {"mjtDyn", dyn}, {"mjtGain", gain}, {"mjtBias", bias},
  {"mjtCamLight", camLight}, {"mjtObj", obj}, {"mjtSensor", sensor}, {"mjtStage", stage},
  {"mjtDataType", dataType}, {"mjtState", state}, {"mjtWarning", warning},
  {"mjtConstraint", constraint}, {"mjtConstraintState", constraintState}, {"mjtTimer", timer},
  {"mjtTimerPlugin", timerPlugin},
};


// module._enums = {"mjtObj": [("mjOBJ_BODY", 1), ...], ...}
int pm_addEnums(PyObject* module) {
  PyObject* dict = PyDict_New();
  if (!dict) {
    return -1;
  }
  for (size_t i = 0; i < sizeof(enums) / sizeof(enums[0]); i++) {
    PyObject* list = PyList_New(0);
    for (const Member* m = enums[i].members; list && m->name; m++) {
      // mcFOO -> mjFOO
      PyObject* item = Py_BuildValue("(Nl)", PyUnicode_FromFormat("mj%s", m->name + 2),
                                     m->value);
      if (!item || PyList_Append(list, item) < 0) {
        Py_XDECREF(item);
        Py_CLEAR(list);
        break;
      }
      Py_DECREF(item);
    }
    if (!list || PyDict_SetItemString(dict, enums[i].name, list) < 0) {
      Py_XDECREF(list);
      Py_DECREF(dict);
      return -1;
    }
    Py_DECREF(list);
  }
  return PyModule_AddObject(module, "_enums", dict);
}
