// Moduco core: the MJCF model compiler (internal header).
//
// The compiler walks the element tree of core/xml once, collecting bodies, joints, geoms and the
// other objects into growable arrays of specs (values already resolved against the default
// classes), then sizes and fills an mcModel. Errors longjmp to mcc_compile, which frees
// everything; every message is `file:line: message`.
#ifndef MODUCO_CORE_COMPILER_COMPILER_H_
#define MODUCO_CORE_COMPILER_COMPILER_H_

#include <setjmp.h>
#include <stddef.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "xml/xml_reader.h"

//---------------------------------- specs (default-able values) ----------------------------------

// tri-state flag: limited="auto" resolves from the presence of a range
enum { MCC_FALSE = 0, MCC_TRUE = 1, MCC_AUTO = 2 };

typedef struct mccJoint_ {
  int type;                       // mctJoint
  mcNum pos[3], axis[3];
  mcNum range[2];
  int has_range;                  // range given (here or in a default)
  int limited;                    // MCC_FALSE / MCC_TRUE / MCC_AUTO
  mcNum stiffness, springref, damping, armature, frictionloss, ref, margin;
  mcNum solref_lim[mcNREF], solimp_lim[mcNIMP];
  mcNum solref_fri[mcNREF], solimp_fri[mcNIMP];
  int group;
  mcNum actfrcrange[2];           // clamp of the total actuator force on the joint
  int has_actfrcrange;            // actuatorfrcrange given (here or in a default)
  int actfrclimited;              // MCC_FALSE / MCC_TRUE / MCC_AUTO
  int actgravcomp;                // gravity compensation counted as actuator force
  mcNum springdamper[2];          // time constant, damping ratio (both > 0: set k and b)
} mccJoint;

typedef struct mccGeom_ {
  int type;                       // mctGeom
  mcNum size[3];
  int has_fromto;
  mcNum fromto[6];
  mcNum pos[3], quat[4];
  mcNum density, mass;            // mass < 0: use density
  int contype, conaffinity, condim, priority, group;
  mcNum friction[3], solmix, solref[mcNREF], solimp[mcNIMP], margin, gap;
  float rgba[4];
  int fluidshape;                 // 0 none, 1 ellipsoid
  mcNum fluidcoef[5];
  int shellinertia;               // mass on the surface (primitives; meshes use <mesh inertia>)
  const char* mesh;               // mesh name (points into the XML tree)
  mcNum fitscale;                 // scale of a primitive sized from its mesh
  const char* hfield;             // hfield name
  mcNum adhesion;                 // pull each contact may give (MuJoCo 3.14's geom adhesion)
  mcNum surfacevel[6];            // surface velocity field: linear, angular (geom frame)
  const char* material;           // material name (colour only; points into the XML tree)
} mccGeom;

typedef struct mccSite_ {
  int type;
  mcNum size[3];
  int has_fromto;
  mcNum fromto[6];
  mcNum pos[3], quat[4];
  int group;
} mccSite;

typedef struct mccActuator_ {
  int ctrllimited, forcelimited, actlimited;     // MCC_FALSE / MCC_TRUE / MCC_AUTO
  int has_ctrlrange, has_forcerange, has_actrange;
  mcNum ctrlrange[2], forcerange[2], actrange[2];
  mcNum gear[6], cranklength;
  int dyntype, gaintype, biastype;
  mcNum dynprm[mcNDYN], gainprm[mcNGAIN], biasprm[mcNBIAS];
  int actearly, group;
  mcNum inheritrange;             // position/intvelocity: ctrl/act range from the target's range
} mccActuator;

typedef struct mccTendon_ {
  int limited, has_range;
  mcNum range[2];
  mcNum solref_lim[mcNREF], solimp_lim[mcNIMP];
  mcNum solref_fri[mcNREF], solimp_fri[mcNIMP];
  mcNum margin, stiffness, damping, frictionloss;
  mcNum armature;                 // tendon_armature: inertia of the tendon's length coordinate
  mcNum springlength[2];
  int group;
  int actfrclimited, has_actfrcrange;  // clamp of the total actuator force on the tendon
  mcNum actfrcrange[2];
} mccTendon;

typedef struct mccEquality_ {
  int active;
  mcNum solref[mcNREF], solimp[mcNIMP];
} mccEquality;

typedef struct mccPair_ {
  int condim, has_condim;
  mcNum friction[5];
  int has_friction;
  mcNum solref[mcNREF], solimp[mcNIMP];
  int has_solref, has_solimp;
  mcNum margin, gap;
  int has_margin, has_gap;
} mccPair;

// camera (compiler_camera.c)
typedef struct mccCamera_ {
  int mode;                       // mctCamLight
  const char* target;             // target body name (points into the XML tree); NULL: none
  mcNum pos[3], quat[4];
  mcNum fovy, ipd;
  int has_fovy;
  int resolution[2];
  int has_resolution;
  mcNum sensorsize[2], focal[2], focalpixel[2], principal[2], principalpixel[2];
  int has_sensorsize, has_focal, has_focalpixel, has_principal, has_principalpixel;
  int orthographic;
} mccCamera;

// a default class: the specs every element of that class starts from
typedef struct mccClass_ {
  const char* name;
  int parent;                     // index of the parent class; -1 for "main"
  int scope;                      // the model file it belongs to (mccScope)
  mccJoint joint;
  mccGeom geom;
  mccSite site;
  mccActuator act;
  mccTendon tendon;
  mccEquality eq;
  mccPair pair;
  mccCamera camera;
  float matrgba[4];               // <material rgba> of the class (compiler_material.c)
} mccClass;

//---------------------------------- compiled objects ----------------------------------------------

typedef struct mccBody_ {
  const char* name;
  const mcxElem* elem;
  int parent;
  mcNum pos[3], quat[4];
  int mocap;
  mcNum gravcomp;
  int sleep;                      // <body sleep> (mctSleep), on the root of a kinematic tree
  int has_inertial;               // explicit <inertial>
  mcNum ipos[3], iquat[4], mass, inertia[3];
  int has_full;                   // fullinertia given (inertia stored diagonalized)
  int jntadr, jntnum, dofadr, dofnum, geomadr, geomnum, siteadr, sitenum;
  int weldid, rootid;
} mccBody;

typedef struct mccJointObj_ {
  const char* name;
  const mcxElem* elem;
  int body;
  mccJoint s;
  int align;                      // a free joint whose body moves to its inertial frame
} mccJointObj;

typedef struct mccGeomObj_ {
  const char* name;
  const mcxElem* elem;
  int body;
  mccGeom s;
  int meshid;
  int fitmesh;                    // a primitive sized from its mesh (meshid: that mesh)
  int matid;                      // material (c->materials), -1: none
} mccGeomObj;

typedef struct mccSiteObj_ {
  const char* name;
  const mcxElem* elem;
  int body;
  mccSite s;
} mccSiteObj;

typedef struct mccCameraObj_ {
  const char* name;
  const mcxElem* elem;
  int body;
  mccCamera s;
} mccCameraObj;

typedef struct mccNamed_ {        // an object known only by name and element (mesh, key, ...)
  const char* name;
  const mcxElem* elem;
} mccNamed;

typedef struct mccMaterial_ {     // a <material>: only its colour reaches the model
  const char* name;
  const mcxElem* elem;
  float rgba[4];
} mccMaterial;

typedef struct mccActObj_ {
  const char* name;
  const mcxElem* elem;
  mccActuator s;
  int trntype, trnid[2];
  int plugin;                     // index in plugin list; -1 for built-ins
  int actnum;
  mcNum damping[3], armature;     // actuator_damping, actuator_armature (plugin spec)
} mccActObj;

typedef struct mccTendonObj_ {
  const char* name;
  const mcxElem* elem;
  mccTendon s;
  int wrapadr, wrapnum;
  int spatial;
} mccTendonObj;

typedef struct mccWrap_ {
  int type, objid;
  mcNum prm;
} mccWrap;

typedef struct mccEqObj_ {
  const char* name;
  const mcxElem* elem;
  mccEquality s;
  int type, obj1, obj2;
  int objtype;                    // mcOBJ_BODY, _SITE (a weld between sites), _JOINT, _TENDON
  mcNum data[mcNEQDATA];
} mccEqObj;

typedef struct mccPairObj_ {
  const char* name;
  const mcxElem* elem;
  int geom1, geom2, dim, signature;
  mcNum solref[mcNREF], solimp[mcNIMP], margin, gap, friction[5];
} mccPairObj;

typedef struct mccSensorObj_ {
  const char* name;
  const mcxElem* elem;
  int type, datatype, needstage, objtype, objid, reftype, refid, dim, plugin;
  mcNum cutoff, noise;
} mccSensorObj;

typedef struct mccNumeric_ {
  const char* name;
  const mcxElem* elem;
  int size;
  mcNum* data;                    // owned (freed with the context)
} mccNumeric;

// a plugin instance (compiler_plugin.c)
typedef struct mccInstance_ {
  const mcpHeader* hdr;
  const mcpPluginExt* ext;        // NULL: no ABI 1.3 declarations
  int objtype, objid;             // element (mcOBJ_ACTUATOR, mcOBJ_SENSOR); -1: model-wide
  const char* name;               // <extension><plugin><instance name>; NULL otherwise
  const mcxElem* elem;            // where it was declared (messages)
  int configadr, confignum;       // values in mcc.config
  unsigned char* given;           // per key: written in the model (a second time is an error)
} mccInstance;

// a plugin element inside a <default> class
typedef struct mccPluginDefault_ {
  int cls;                        // class index
  const mcxElem* elem;            // the element (its attributes are the defaults)
} mccPluginDefault;

// <config> directly under <extension><plugin> of a model-wide plugin
typedef struct mccExtConfig_ {
  const mcpHeader* hdr;
  const mcxElem* elem;
  int used;                       // an instance read it
} mccExtConfig;

// a growable array
typedef struct mccVec_ {
  void* data;
  int n, cap;
  size_t elsz;
} mccVec;

#define MCC_AT(vec, type, i) (((type*)(vec).data) + (i))

// kinds of objects an attached element may name (compiler_attach.c)
#define MCC_ATTACH_NKIND 7

// the <compiler> settings of one model file: scope 0 is the model's, each <attach> adds one for
// the attached file (compiler_attach.c); an element reads those of its scope (mcc_scope)
typedef struct mccScope_ {
  int degree;                     // angles in degrees
  char eulerseq[4];
  int inertiafromgeom;            // MCC_FALSE / MCC_TRUE / MCC_AUTO
  int autolimits;
  mcNum boundmass, boundinertia, settotalmass;
  int balanceinertia;
  int inertiagroup[2];            // inertiagrouprange: geom groups that contribute to inertia
  int fitaabb;                    // mesh-sized primitives fit the mesh's bounding box
  int alignfree;                  // default of <freejoint align>
  int strippath;
  char meshdir[1024], assetdir[1024];
  char dir[1024];                 // folder of the model file (relative asset paths start there)
  int mainclass;                  // the file's "main" default class
} mccScope;

// hash index of the names in one object vector (compiler_names.c): positions [0, nindexed) are
// in the table, the rest (at least the newest object, whose name is set after its duplicate
// check) are compared one by one
typedef struct mccNameIndex_ {
  int* slot;                      // cap entries: -1 empty, else a position in the vector
  int cap, count, nindexed;
} mccNameIndex;

//---------------------------------- the compiler context ------------------------------------------

typedef struct mcc_ {
  // error handling
  jmp_buf jmp;
  char* error;
  int error_sz;

  // input
  mcxTree* tree;
  const char* modelname;

  // <compiler> settings per model file (mccScope), the attached files' trees (mcxTree*, freed
  // with the context) and their keyframes in the model's layout (mccKeyMap, compiler_attach.c)
  mccVec scopes;
  mccVec attached;
  mccVec keymaps;
  size_t attached_bytes;          // XML read for attached files (bounded as includes are)
  mccVec attnames[MCC_ATTACH_NKIND];  // scratch of one attach: names of the attached objects
  mccVec attjoints, attacts;      // scratch: the attached file's joints and actuators in order

  // <option>, <size>
  mcOption opt;
  mcNum sleep_tolerance;          // <option sleep_tolerance> (mcModel.sleep_tolerance)
  const mcxElem* option_elem;     // for messages about the integrator/solver
  int multiccd_set;               // <flag multiccd> given (else on exactly with nativeccd)
  size_t narena;
  const mcxElem* memory_elem;     // the <size> element that set narena (error messages)
  int nstack;                     // legacy <size nstack> in mcNums (0: not given)
  int njmax, nconmax, nuserdata, nkey_size;

  // default classes
  mccVec classes;                 // mccClass

  // objects
  mccVec bodies;                  // mccBody
  mccVec joints;                  // mccJointObj (in body order after mcc_sortBodyObjects)
  mccVec geoms;                   // mccGeomObj
  mccVec sites;                   // mccSiteObj
  mccVec cameras;                 // mccCameraObj
  mccVec meshes;                  // mccNamed
  mccVec hfields;                 // mccNamed
  mccVec materials;               // mccMaterial
  mccVec actuators;               // mccActObj
  mccVec tendons;                 // mccTendonObj
  mccVec wraps;                   // mccWrap
  mccVec eqs;                     // mccEqObj
  mccVec pairs;                   // mccPairObj
  mccVec excludes;                // mccPairObj (signature only)
  mccVec sensors;                 // mccSensorObj
  mccVec numerics;                // mccNumeric
  mccVec keys;                    // mccNamed (parsed when sizes are known)
  mccVec plugins;                 // mccInstance
  mccVec config;                  // mcNum: configuration values of all instances
  mccVec extconfig;               // mccExtConfig
  mccVec plugdefs;                // mccPluginDefault
  const mcpIntegrator* integrator;  // the selected model-wide plugins (mcc_resolvePlugins)
  const mcpSolver* solver;
  const mcpPostsolver* postsolver;
  int plugin_integrator, plugin_solver, plugin_postsolver;  // their instances
  mccVec strs;                    // char*: strings owned by the context
  mccNameIndex nameindex[mcOBJ_PLUGIN + 1];  // by object type (mcc_findName)

  // compiled mesh and height-field assets (compiler_mesh.c, compiler_hfield.c)
  struct mccMeshData_* meshdata;          // c->meshes.n entries
  struct mccHfieldData_* hfielddata;      // c->hfields.n entries

  // the model being filled (freed on error) and scratch memory (freed at the end)
  mcModel* m;
  void* scratch;
} mcc;

//---------------------------------- helpers (compiler_util.c) -------------------------------------

// largest size of one model array (elements): totals are summed in 64 bits and checked against
// it (compiler_model.c), so no sum of user-given sizes (sensor dims, numeric sizes, names, mesh
// and height-field data) wraps around in int; <size> counts are bounded by it too
#define MCC_MAXSIZE (1 << 28)


// report an error at element e (or "file:0" if e is NULL) and unwind
_Noreturn void mcc_error(mcc* c, const mcxElem* e, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

// growable arrays: push returns a zeroed new element
void mcc_vecInit(mccVec* v, size_t elsz);
void* mcc_push(mcc* c, mccVec* v);
void mcc_vecFree(mccVec* v);
void* mcc_malloc(mcc* c, size_t bytes);
char* mcc_strndup(mcc* c, const char* s, size_t n);      // freed with the context

// reject attributes not in the space-separated list
void mcc_checkAttrs(mcc* c, const mcxElem* e, const char* allowed);

// raise "unknown element" for child of e
_Noreturn void mcc_unknownElem(mcc* c, const mcxElem* child);

// read numbers: return how many were read (0 if absent); error unless nmin <= count <= nmax
int mcc_readNums(mcc* c, const mcxElem* e, const char* key, mcNum* out, int nmin, int nmax);
int mcc_readFloats(mcc* c, const mcxElem* e, const char* key, float* out, int nmin, int nmax);
int mcc_readInt(mcc* c, const mcxElem* e, const char* key, int* out);
int mcc_readNum(mcc* c, const mcxElem* e, const char* key, mcNum* out);

// if attribute key is given: error naming it and its value as written unless v[0..n) are all
// positive (strict) or nonnegative
void mcc_checkSign(mcc* c, const mcxElem* e, const char* key, const mcNum* v, int n, int strict);

// count the numbers in an attribute (error if malformed); -1 if absent
int mcc_countNums(mcc* c, const mcxElem* e, const char* key);

// read a keyword: return its index in the space-separated list (-1 if absent); error if unknown
int mcc_readEnum(mcc* c, const mcxElem* e, const char* key, const char* words);

// read true/false (-1 if absent)
int mcc_readBool(mcc* c, const mcxElem* e, const char* key);
// the refusal of a deformable element (<flexcomp>, <flex>, <composite>, <deformable>): out of
// scope, the same words everywhere (a static string)
const char* mcc_deformableMsg(const char* elem);
// refuse a MuJoCo attribute that changes the physics and is not implemented, whatever its value
void mcc_refuseAttr(mcc* c, const mcxElem* e, const char* key, const char* what);
// refuse key="true" (a physics option not implemented: never accepted and ignored); false passes
void mcc_refuseTrue(mcc* c, const mcxElem* e, const char* key, const char* what);

// read false/true/auto (-1 if absent)
int mcc_readTri(mcc* c, const mcxElem* e, const char* key);

// read an orientation (quat/axisangle/euler/xyaxes/zaxis); return 1 if one was given
int mcc_readOrient(mcc* c, const mcxElem* e, mcNum quat[4]);

// convert an angle of element e from its model file's unit to radians
mcNum mcc_angle(mcc* c, const mcxElem* e, mcNum a);

// the compiler settings of element e's model file (NULL: the model's)
mccScope* mcc_scope(const mcc* c, const mcxElem* e);
void mcc_scopeInit(mccScope* s);

// required attribute: its value or an error
const char* mcc_require(mcc* c, const mcxElem* e, const char* key);

//---------------------------------- math (compiler_math.c) ----------------------------------------

void mcc_quatMul(mcNum res[4], const mcNum a[4], const mcNum b[4]);
void mcc_rotVecQuat(mcNum res[3], const mcNum v[3], const mcNum q[4]);
void mcc_quat2Mat(mcNum mat[9], const mcNum q[4]);
void mcc_mat2Quat(mcNum q[4], const mcNum mat[9]);
int mcc_normalize4(mcNum q[4]);
int mcc_normalize3(mcNum v[3]);
void mcc_quatZ2Vec(mcNum q[4], const mcNum vec[3]);
void mcc_axisAngle2Quat(mcNum q[4], const mcNum axis[3], mcNum angle);
// eigenvalues (decreasing) and the frame quaternion of a symmetric 3x3 matrix, as MuJoCo 3.14
// solves and orders them for a body's inertia (MCC_EIG_BODY) or a mesh's (MCC_EIG_MESH); under
// the legacy rule (mcc_setLegacyEig) as 2.2.2 and 3.3.8 do
enum { MCC_EIG_BODY = 0, MCC_EIG_MESH = 1 };
void mcc_eig3(mcNum eigval[3], mcNum quat[4], const mcNum mat[9], int kind);
// the legacy compile rules for the compilations of the calling thread: 2.2.2's and 3.3.8's
// principal axes (bodies and meshes), OBJ quads split from their first corner, exact meshes with
// a mirroring scale refused (internal, not ABI: the 2.2.2-comparing tests set it through
// tu_legacy222Compile before loading a model)
void mcc_setLegacyEig(int on);
int mcc_getLegacyEig(void);
// quaternion helpers with MuJoCo's exact rounding (identity shortcut, unit tolerance)
void mcc_mjNormalize4(mcNum q[4]);
void mcc_mjQuat2Mat(mcNum r[9], const mcNum q[4]);
void mcc_mjMulQuat(mcNum res[4], const mcNum a[4], const mcNum b[4]);
void mcc_mjAccumQuat(mcNum q[4], const mcNum rot[4]);
void mcc_frameMul(mcNum pos[3], mcNum quat[4], const mcNum fpos[3], const mcNum fquat[4],
                  const mcNum lpos[3], const mcNum lquat[4]);

//---------------------------------- defaults (compiler_defaults.c) --------------------------------

void mcc_defaultClassInit(mccClass* cls);
void mcc_readDefaults(mcc* c, const mcxElem* e, int parent);
// <material> in <asset> and in a default class; a geom's material by name (compiler_material.c)
void mcc_readMaterial(mcc* c, const mcxElem* e);
void mcc_readMaterialDefault(mcc* c, const mcxElem* e, mccClass* cls);
int mcc_geomMaterial(mcc* c, const mcxElem* e, const char* name);
void mcc_geomMaterialRgba(const mcc* c, int matid, float rgba[4]);

int mcc_findClass(mcc* c, const mcxElem* e, const char* name);
int mcc_elemClass(mcc* c, const mcxElem* e, int inherited);

void mcc_readJoint(mcc* c, const mcxElem* e, mccJoint* s, int in_default);
void mcc_readGeom(mcc* c, const mcxElem* e, mccGeom* s, int in_default);
void mcc_readSite(mcc* c, const mcxElem* e, mccSite* s, int in_default);
void mcc_readActuator(mcc* c, const mcxElem* e, mccActuator* s, int in_default);
void mcc_readTendon(mcc* c, const mcxElem* e, mccTendon* s, int in_default);
void mcc_readEquality(mcc* c, const mcxElem* e, mccEquality* s, int in_default);
void mcc_readPair(mcc* c, const mcxElem* e, mccPair* s, int in_default);

// is name one of the built-in actuator elements (general, motor, ...)
int mcc_isActuatorElem(const char* name);

//---------------------------------- sections ------------------------------------------------------

void mcc_readCompiler(mcc* c, const mcxElem* e);              // compiler_option.c
void mcc_readOption(mcc* c, const mcxElem* e);
void mcc_readSize(mcc* c, const mcxElem* e);
void mcc_resolvePlugins(mcc* c);
// the loader's message about a rejected plugin called name, or ""
void mcc_rejection(const char* name, char* out, int out_sz);

// plugin instances and configuration (compiler_plugin.c)
void mcc_readExtension(mcc* c, const mcxElem* e);
int mcc_addInstance(mcc* c, const mcpHeader* h, int objtype, int objid, const char* name,
                    const mcxElem* e);
int mcc_findInstance(mcc* c, const char* name);              // by <instance name>; -1 if none
void mcc_configSet(mcc* c, int inst, const char* key, const char* value, const mcxElem* e);
void mcc_configChildren(mcc* c, int inst, const mcxElem* e);  // <config key value> children
void mcc_configDone(mcc* c, int inst, const mcxElem* e);      // every required key given
// allowed attributes of a plugin element: core list, the plugin's own, its configuration keys
// (if config), and 'plugin instance' for a <plugin> element
void mcc_pluginAllowed(mcc* c, const mcxElem* e, const mcpHeader* h, const char* core,
                       const char* const* own, int config, char* out, size_t sz);
// a <plugin> element under <actuator>/<sensor> (MuJoCo's form): plugin="name" (returns -1: make
// a new instance) or instance="name" (binds that <extension> instance to the element: returned)
int mcc_pluginRef(mcc* c, const mcxElem* e, int kind, int objtype, int objid,
                  const mcpHeader** hdr);
// store (if store) configuration-key attributes of e in instance inst; return the attributes the
// plugin's compile callback sees (neither core nor configuration-only) in keys/vals
int mcc_pluginAttrs(mcc* c, const mcxElem* e, int inst, const char* core, const char* const* own,
                    int store, const char** keys, const char** vals, int max);
// a plugin's compile error at e (one file:line prefix)
_Noreturn void mcc_pluginFail(mcc* c, const mcxElem* e, const char* perr);
int mcc_wordIn(const char* list, const char* key);           // key in a space-separated list
void mcc_pluginDefault(mcc* c, const mcxElem* e, int cls);   // plugin element in a <default>
// e with the attributes of the plugin-element defaults of class cls (and its parents) merged in
const mcxElem* mcc_pluginElem(mcc* c, const mcxElem* e, int cls);
void mcc_pluginSingletons(mcc* c);                           // integrator, solver, ... instances
int mcc_warningCount(const mcc* c);
int mcc_warningNames(const mcc* c, mcModel* m, int start);   // bytes; fills m->names if m
void mcc_fillPlugins(mcc* c, mcModel* m);
void mcc_pluginStorage(mcc* c, mcModel* m);                  // nstate, ndata with the model

void mcc_readAsset(mcc* c, const mcxElem* e);                 // compiler_body.c
void mcc_readWorldbody(mcc* c, const mcxElem* root);
// <replicate> -> frames in the worldbody of root (compiler_replicate.c); a replicated <attach>
// gets the replica's suffix for the names it brings in this attribute (a name no XML can write)
#define MCC_REPLICATE_SUFFIX "replicate suffix"
void mcc_expandReplicate(mcc* c, mcxElem* root);
// <attach>: replicates and attached model files expanded in the tree (compiler_attach.c)
void mcc_expandAttach(mcc* c);
// the keyframes of attached files in the model's layout (compiler_attach.c)
typedef struct mccKeyMap_ {
  const mcxElem* key;             // the <key> element (its own attributes hold name and time)
  mccVec values;                  // mccKeyValue
  const mcNum* act;               // the key's act values in the file's layout (NULL: none)
  int nact;
} mccKeyMap;
typedef struct mccKeyValue_ {
  const mcxElem* obj;             // a <joint>/<freejoint> (qpos, qvel), an actuator (ctrl, act;
                                  // one left behind is kept, uncompiled, with the file's tree)
                                  // or a mocap body (mpos, mquat)
  int field;                      // 0 qpos, 1 qvel, 2 ctrl, 3 act (the file's actuators in
                                  // order, values in the map's act), 4 mpos, 5 mquat
  int n;
  mcNum v[7];
} mccKeyValue;
// write the values of keymap into key k of m
void mcc_keyMapFill(mcc* c, mcModel* m, const mccKeyMap* map, int k);
int mcc_findName(mcc* c, int objtype, const char* name);

// position of the first object of vector v named name (-1 if none), through index ix, which is
// brought up to date with the objects added since the last call; freed by mcc_nameIndexFree
int mcc_nameIndexFind(mcc* c, mccNameIndex* ix, const mccVec* v, const char* name);
void mcc_nameIndexFree(mcc* c);
int mcc_lookup(mcc* c, const mcxElem* e, const char* key, int objtype, int required);

void mcc_geomInertia(mcc* c, const mccGeomObj* g, mcNum* mass, mcNum inertia[3]);  // inertia
void mcc_bodyInertia(mcc* c);
void mcc_alignFree(mcc* c);                                   // after mcc_bodyInertia
mcNum mcc_geomRbound(const mccGeomObj* g);

void mcc_readActuators(mcc* c, const mcxElem* e);             // compiler_actuator.c
// plugin sensors' compile callbacks, once, with the model filled up to the sensors
void mcc_finishSensors(mcc* c, mcModel* m);                   // compiler_sensor.c
void mcc_finishActuators(mcc* c, mcModel* m);                 // compiler_actuator.c

void mcc_readSensors(mcc* c, const mcxElem* e);               // compiler_sensor.c
int mcc_isBuiltinSensor(const char* name);

void mcc_readTendons(mcc* c, const mcxElem* e);               // compiler_misc.c
void mcc_readEqualities(mcc* c, const mcxElem* e);
void mcc_readContact(mcc* c, const mcxElem* e);
void mcc_readCustom(mcc* c, const mcxElem* e);
void mcc_readKeyframe(mcc* c, const mcxElem* e);
void mcc_fillKeys(mcc* c, mcModel* m);

void mcc_cameraDefault(mccCamera* s);                         // compiler_camera.c
void mcc_readCamera(mcc* c, const mcxElem* e, mccCamera* s, int in_default);
void mcc_readCameraElem(mcc* c, const mcxElem* e, int body, int cls, const mcNum fpos[3],
                        const mcNum fquat[4]);
void mcc_fillCameras(mcc* c, mcModel* m);                     // after the bodies are filled
int mcc_cameraConst(mcc* c, mcModel* m);                      // cam_pos0 ... at qpos0

mcModel* mcc_buildModel(mcc* c);                              // compiler_model.c
int mcc_setConst(mcModel* m);                                 // compiler_const.c

#endif  // MODUCO_CORE_COMPILER_COMPILER_H_
