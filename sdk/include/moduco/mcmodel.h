// Moduco: the compiled model, a flat struct of arrays with MuJoCo's field names.
//
// Every array field is listed once in the X-macro lists below (MC_MODEL_POINTERS), with its
// element type and shape (rows x cols, rows being a size field). The core expands that list to
// size, allocate, copy and print the model, and the conformance tests map fields one to one onto
// MuJoCo's mjModel. The model is read-only while stepping: one model can drive many threads.
#ifndef MODUCO_MCMODEL_H_
#define MODUCO_MCMODEL_H_

#include <stddef.h>
#include <stdint.h>

#include <moduco/mctnum.h>

#ifdef __cplusplus
extern "C" {
#endif

//---------------------------------- enums ---------------------------------------------------------

typedef enum mctDisableBit_ {     // disable default feature bitflags (MJCF <flag name="disable">)
  mcDSBL_CONSTRAINT   = 1<<0,     // entire constraint solver
  mcDSBL_EQUALITY     = 1<<1,     // equality constraints
  mcDSBL_FRICTIONLOSS = 1<<2,     // joint and tendon frictionloss constraints
  mcDSBL_LIMIT        = 1<<3,     // joint and tendon limit constraints
  mcDSBL_CONTACT      = 1<<4,     // contact constraints
  mcDSBL_PASSIVE      = 1<<5,     // passive forces
  mcDSBL_GRAVITY      = 1<<6,     // gravitational forces
  mcDSBL_CLAMPCTRL    = 1<<7,     // clamp control to specified range
  mcDSBL_WARMSTART    = 1<<8,     // warmstart constraint solver
  mcDSBL_FILTERPARENT = 1<<9,     // remove collisions with parent body
  mcDSBL_ACTUATION    = 1<<10,    // apply actuation forces
  mcDSBL_REFSAFE      = 1<<11,    // integrator safety: make ref[0]>=2*timestep
  mcDSBL_SENSOR       = 1<<12,    // sensors
  mcDSBL_MIDPHASE     = 1<<13,    // mid-phase collision filtering
  mcDSBL_EULERDAMP    = 1<<14,    // implicit integration of joint damping in Euler integrator
  mcDSBL_AUTORESET    = 1<<15,    // automatic reset when numerical issues are detected
  mcNDISABLE          = 16
} mctDisableBit;

typedef enum mctEnableBit_ {      // enable optional feature bitflags
  mcENBL_OVERRIDE     = 1<<0,     // override contact parameters
  mcENBL_ENERGY       = 1<<1,     // energy computation
  mcENBL_FWDINV       = 1<<2,     // compare forward and inverse dynamics (solver_fwdinv)
  mcENBL_INVDISCRETE  = 1<<3,     // discrete-time inverse dynamics
  mcENBL_MULTICCD     = 1<<4,     // multi-point convex collision detection
  mcENBL_ISLAND       = 1<<5,     // constraint island discovery
  mcENBL_NATIVECCD    = 1<<6,     // MuJoCo 3.x convex collision: GJK/EPA, box-box by SAT, on
                                  // by default (off: libccd MPR and 2.2.2's box-box)
  mcENBL_SLEEP        = 1<<7,     // sleeping trees (MuJoCo 3.14's <flag sleep>; engine/sleep.c)
  mcNENABLE           = 8,        // the MJCF <flag> bits above
  mcENBL_LEGACYMARGIN = 1<<30     // not an MJCF flag: MuJoCo 2.2.2's margin and gap of a contact
                                  // (the larger of the geoms', detected at the margin, rows
                                  // below margin - gap) instead of 3.14's (docs/mujoco3.md);
                                  // set on a compiled model by the 2.2.2 comparison suites
} mctEnableBit;

typedef enum mctJoint_ {          // type of degree of freedom
  mcJNT_FREE = 0,                 // global position and orientation (quat)       (7)
  mcJNT_BALL,                     // orientation (quat) relative to parent        (4)
  mcJNT_SLIDE,                    // sliding distance along body-fixed axis       (1)
  mcJNT_HINGE                     // rotation angle (rad) around body-fixed axis  (1)
} mctJoint;

typedef enum mctGeom_ {           // type of geometric shape
  mcGEOM_PLANE = 0,
  mcGEOM_HFIELD,
  mcGEOM_SPHERE,
  mcGEOM_CAPSULE,
  mcGEOM_ELLIPSOID,
  mcGEOM_CYLINDER,
  mcGEOM_BOX,
  mcGEOM_MESH,
  mcNGEOMTYPES
} mctGeom;

typedef enum mctIntegrator_ {     // integrator codes of the built-in plugins (opt.integrator)
  mcINT_EULER = 0,                // semi-implicit Euler
  mcINT_RK4,                      // 4th-order Runge-Kutta
  mcINT_IMPLICIT,                 // implicit in velocity
  mcINT_IMPLICITFAST,             // implicit in velocity, no rne derivative
  mcINT_OTHER = 100               // a third-party integrator plugin
} mctIntegrator;

typedef enum mctCone_ { mcCONE_PYRAMIDAL = 0, mcCONE_ELLIPTIC } mctCone;
typedef enum mctJacobian_ { mcJAC_DENSE = 0, mcJAC_SPARSE, mcJAC_AUTO } mctJacobian;

typedef enum mctSolver_ {         // solver codes of the built-in plugins (opt.solver)
  mcSOL_PGS = 0,
  mcSOL_CG,
  mcSOL_NEWTON,
  mcSOL_OTHER = 100
} mctSolver;

typedef enum mctSleep_ {          // <body sleep>: sleep policy of a kinematic tree (body_sleep)
  mcSLEEP_AUTO = 0,               // sleeps unless an actuator moves it
  mcSLEEP_NEVER,                  // never sleeps
  mcSLEEP_ALLOWED,                // sleeps, actuated or not
  mcSLEEP_INIT                    // asleep after a reset, then as allowed
} mctSleep;

typedef enum mctCollision_ { mcCOL_ALL = 0, mcCOL_PAIR, mcCOL_DYNAMIC } mctCollision;

typedef enum mctEq_ {             // type of equality constraint
  mcEQ_CONNECT = 0,
  mcEQ_WELD,
  mcEQ_JOINT,
  mcEQ_TENDON,
  mcEQ_DISTANCE                   // accepted by old models, removed in MuJoCo 2.2.2
} mctEq;

typedef enum mctWrap_ {           // type of tendon wrap object
  mcWRAP_NONE = 0,
  mcWRAP_JOINT,
  mcWRAP_PULLEY,
  mcWRAP_SITE,
  mcWRAP_SPHERE,
  mcWRAP_CYLINDER
} mctWrap;

typedef enum mctTrn_ {            // type of actuator transmission
  mcTRN_JOINT = 0,
  mcTRN_JOINTINPARENT,
  mcTRN_SLIDERCRANK,
  mcTRN_TENDON,
  mcTRN_SITE,
  mcTRN_BODY,
  mcTRN_UNDEFINED = 1000
} mctTrn;

typedef enum mctDyn_ {            // type of actuator dynamics
  mcDYN_NONE = 0,
  mcDYN_INTEGRATOR,
  mcDYN_FILTER,
  mcDYN_FILTEREXACT,
  mcDYN_MUSCLE,
  mcDYN_USER
} mctDyn;

typedef enum mctGain_ { mcGAIN_FIXED = 0, mcGAIN_AFFINE, mcGAIN_MUSCLE, mcGAIN_USER } mctGain;
typedef enum mctBias_ { mcBIAS_NONE = 0, mcBIAS_AFFINE, mcBIAS_MUSCLE, mcBIAS_USER } mctBias;

typedef enum mctCamLight_ {       // tracking mode of a camera
  mcCAMLIGHT_FIXED = 0,           // pose fixed in the body frame
  mcCAMLIGHT_TRACK,               // position follows the body at a world offset, fixed rotation
  mcCAMLIGHT_TRACKCOM,            // the same relative to the subtree center of mass
  mcCAMLIGHT_TARGETBODY,          // position fixed in the body, looks at the target body
  mcCAMLIGHT_TARGETBODYCOM        // looks at the target's subtree center of mass
} mctCamLight;

typedef enum mctObj_ {            // type of model object
  mcOBJ_UNKNOWN = 0,
  mcOBJ_BODY,
  mcOBJ_XBODY,                    // body, used to access regular frame instead of i-frame
  mcOBJ_JOINT,
  mcOBJ_DOF,
  mcOBJ_GEOM,
  mcOBJ_SITE,
  mcOBJ_CAMERA,
  mcOBJ_LIGHT,
  mcOBJ_MESH,
  mcOBJ_SKIN,
  mcOBJ_HFIELD,
  mcOBJ_TEXTURE,
  mcOBJ_MATERIAL,
  mcOBJ_PAIR,
  mcOBJ_EXCLUDE,
  mcOBJ_EQUALITY,
  mcOBJ_TENDON,
  mcOBJ_ACTUATOR,
  mcOBJ_SENSOR,
  mcOBJ_NUMERIC,
  mcOBJ_TEXT,
  mcOBJ_TUPLE,
  mcOBJ_KEY,
  mcOBJ_PLUGIN
} mctObj;

typedef enum mctSensor_ {         // type of sensor
  mcSENS_TOUCH = 0,
  mcSENS_ACCELEROMETER,
  mcSENS_VELOCIMETER,
  mcSENS_GYRO,
  mcSENS_FORCE,
  mcSENS_TORQUE,
  mcSENS_MAGNETOMETER,
  mcSENS_RANGEFINDER,
  mcSENS_CAMPROJECTION,
  mcSENS_JOINTPOS,
  mcSENS_JOINTVEL,
  mcSENS_TENDONPOS,
  mcSENS_TENDONVEL,
  mcSENS_ACTUATORPOS,
  mcSENS_ACTUATORVEL,
  mcSENS_ACTUATORFRC,
  mcSENS_JOINTACTFRC,
  mcSENS_BALLQUAT,
  mcSENS_BALLANGVEL,
  mcSENS_JOINTLIMITPOS,
  mcSENS_JOINTLIMITVEL,
  mcSENS_JOINTLIMITFRC,
  mcSENS_TENDONLIMITPOS,
  mcSENS_TENDONLIMITVEL,
  mcSENS_TENDONLIMITFRC,
  mcSENS_FRAMEPOS,
  mcSENS_FRAMEQUAT,
  mcSENS_FRAMEXAXIS,
  mcSENS_FRAMEYAXIS,
  mcSENS_FRAMEZAXIS,
  mcSENS_FRAMELINVEL,
  mcSENS_FRAMEANGVEL,
  mcSENS_FRAMELINACC,
  mcSENS_FRAMEANGACC,
  mcSENS_SUBTREECOM,
  mcSENS_SUBTREELINVEL,
  mcSENS_SUBTREEANGMOM,
  mcSENS_CLOCK,
  mcSENS_PLUGIN,                  // sensor computed by a sensor plugin
  mcSENS_USER,
  mcSENS_CONTACT                  // matched contacts (MuJoCo 3.x <contact>); appended in ABI 1.3
} mctSensor;

typedef enum mctStage_ {          // computation stage
  mcSTAGE_NONE = 0,
  mcSTAGE_POS,
  mcSTAGE_VEL,
  mcSTAGE_ACC
} mctStage;

typedef enum mctDataType_ {       // data type of a sensor
  mcDATATYPE_REAL = 0,
  mcDATATYPE_POSITIVE,
  mcDATATYPE_AXIS,
  mcDATATYPE_QUATERNION
} mctDataType;

//---------------------------------- mcOption ------------------------------------------------------

// Physics options (MJCF <option>). The integrator and solver are plugins: the codes below are
// MuJoCo's for the built-in ones, and mcModel.integrator / mcModel.solver hold the resolved
// descriptors.
typedef struct mcOption_ {
  // timing parameters
  mcNum timestep;                 // timestep
  mcNum apirate;                  // update rate for remote API (Hz), stored only

  // solver parameters
  mcNum impratio;                 // ratio of friction-to-normal contact impedance
  mcNum tolerance;                // main solver tolerance
  mcNum ls_tolerance;             // line search tolerance
  mcNum noslip_tolerance;         // noslip solver tolerance
  mcNum mpr_tolerance;            // MPR solver tolerance

  // physical constants
  mcNum gravity[3];               // gravitational acceleration
  mcNum wind[3];                  // wind (for lift, drag and viscosity)
  mcNum magnetic[3];              // global magnetic flux
  mcNum density;                  // density of medium
  mcNum viscosity;                // viscosity of medium

  // override contact solver parameters (if enabled)
  mcNum o_margin;                 // margin
  mcNum o_solref[mcNREF];         // solref
  mcNum o_solimp[mcNIMP];         // solimp

  // discrete settings
  int integrator;                 // integration mode (mctIntegrator)
  int collision;                  // collision mode (mctCollision)
  int cone;                       // type of friction cone (mctCone)
  int jacobian;                   // type of Jacobian (mctJacobian)
  int solver;                     // solver algorithm (mctSolver)
  int iterations;                 // maximum number of main solver iterations
  int ls_iterations;              // maximum number of line search iterations
  int noslip_iterations;          // maximum number of noslip solver iterations
  int mpr_iterations;             // maximum number of MPR solver iterations
  int disableflags;               // bit flags for disabling standard features
  int enableflags;                // bit flags for enabling optional features

  // plugin names as written in the model (resolved at compile time)
  char integrator_name[64];       // e.g. "Euler", "RK4", "acme.midpoint"
  char solver_name[64];           // e.g. "Newton", "PGS"
} mcOption;

//---------------------------------- mcModel -------------------------------------------------------

// Size fields of mcModel, in declaration order.
#define MC_MODEL_SIZES(X)                                                                          \
  X(nq)            /* number of generalized coordinates = dim(qpos) */                             \
  X(nv)            /* number of degrees of freedom = dim(qvel) */                                  \
  X(nu)            /* number of actuators/controls = dim(ctrl) */                                  \
  X(na)            /* number of activation states = dim(act) */                                    \
  X(nbody)         /* number of bodies */                                                          \
  X(njnt)          /* number of joints */                                                          \
  X(ngeom)         /* number of geoms */                                                           \
  X(nsite)         /* number of sites */                                                           \
  X(ncam)          /* number of cameras */                                                         \
  X(nlight)        /* number of lights */                                                          \
  X(nmesh)         /* number of meshes */                                                          \
  X(nmeshvert)     /* number of vertices in all meshes */                                          \
  X(nmeshface)     /* number of triangular faces in all meshes */                                  \
  X(nmeshgraph)    /* number of ints in all mesh convex-hull graphs */                             \
  X(nhfield)       /* number of heightfields */                                                    \
  X(nhfielddata)   /* number of data points in all heightfields */                                 \
  X(npair)         /* number of predefined geom pairs */                                           \
  X(nexclude)      /* number of excluded geom pairs */                                             \
  X(neq)           /* number of equality constraints */                                            \
  X(ntendon)       /* number of tendons */                                                         \
  X(nwrap)         /* number of wrap objects in all tendon paths */                                \
  X(nsensor)       /* number of sensors */                                                         \
  X(nnumeric)      /* number of numeric custom fields */                                           \
  X(nnumericdata)  /* number of mcNums in all numeric fields */                                    \
  X(nkey)          /* number of keyframes */                                                       \
  X(nmocap)        /* number of mocap bodies */                                                    \
  X(nplugin)       /* number of plugin descriptors the model uses */                               \
  X(npluginstate)  /* number of plugin state values */                                             \
  X(npluginconfig) /* number of plugin configuration values (all instances) */                     \
  X(npluginwarn)   /* number of plugin-defined warnings (all instances) */                         \
  X(nuserdata)     /* number of mcNums in userdata */                                              \
  X(nsensordata)   /* number of mcNums in sensor data vector */                                    \
  X(nnames)        /* number of chars in all names */                                              \
  X(nM)            /* number of non-zeros in sparse inertia matrix */                              \
  X(nD)            /* number of non-zeros in sparse dof-dof matrix (qM plus its transpose) */      \
  X(nemax)         /* number of potential equality-constraint rows */                              \
  X(njmax)         /* number of available rows in constraint Jacobian (-1: from arena) */          \
  X(nconmax)       /* number of potential contacts in contact list (-1: from arena) */             \
  X(nstack)        /* legacy scratch-stack size in mcNums (0: automatic; raises the estimate) */  \
  X(nbuffer)       /* number of bytes in the model buffer */

// Array fields of mcModel: X(type, name, rows, cols); rows is a size field.
#define MC_MODEL_POINTERS(X)                                                                       \
  /* default generalized coordinates */                                                            \
  X(mcNum,  qpos0,                 nq,          1)  /* qpos values at default pose */              \
  X(mcNum,  qpos_spring,           nq,          1)  /* reference pose for springs */               \
  /* bodies */                                                                                     \
  X(int,    body_parentid,         nbody,       1)  /* id of body's parent */                      \
  X(int,    body_rootid,           nbody,       1)  /* id of root above body */                    \
  X(int,    body_weldid,           nbody,       1)  /* id of body that this body is welded to */   \
  X(int,    body_mocapid,          nbody,       1)  /* id of mocap data; -1: none */               \
  X(int,    body_jntnum,           nbody,       1)  /* number of joints for this body */           \
  X(int,    body_jntadr,           nbody,       1)  /* start addr of joints; -1: no joints */      \
  X(int,    body_dofnum,           nbody,       1)  /* number of motion degrees of freedom */      \
  X(int,    body_dofadr,           nbody,       1)  /* start addr of dofs; -1: no dofs */          \
  X(int,    body_geomnum,          nbody,       1)  /* number of geoms */                          \
  X(int,    body_geomadr,          nbody,       1)  /* start addr of geoms; -1: no geoms */        \
  X(mcByte, body_simple,           nbody,       1)  /* body is diagonal, no rotations */           \
  X(mcByte, body_sameframe,        nbody,       1)  /* inertial frame is same as body frame */     \
  X(mcNum,  body_pos,              nbody,       3)  /* position offset rel. to parent body */      \
  X(mcNum,  body_quat,             nbody,       4)  /* orientation offset rel. to parent body */   \
  X(mcNum,  body_ipos,             nbody,       3)  /* local position of center of mass */         \
  X(mcNum,  body_iquat,            nbody,       4)  /* local orientation of inertia ellipsoid */   \
  X(mcNum,  body_mass,             nbody,       1)  /* mass */                                     \
  X(mcNum,  body_subtreemass,      nbody,       1)  /* mass of subtree starting at this body */    \
  X(mcNum,  body_inertia,          nbody,       3)  /* diagonal inertia in ipos/iquat frame */     \
  X(mcNum,  body_invweight0,       nbody,       2)  /* mean inv inert in qpos0 (trn, rot) */       \
  X(mcNum,  body_gravcomp,         nbody,       1)  /* antigravity force, units of body weight */  \
  /* joints */                                                                                     \
  X(int,    jnt_type,              njnt,        1)  /* type of joint (mctJoint) */                 \
  X(int,    jnt_qposadr,           njnt,        1)  /* start addr in 'qpos' for joint's data */    \
  X(int,    jnt_dofadr,            njnt,        1)  /* start addr in 'qvel' for joint's data */    \
  X(int,    jnt_bodyid,            njnt,        1)  /* id of joint's body */                       \
  X(int,    jnt_group,             njnt,        1)  /* group for visibility */                     \
  X(mcByte, jnt_limited,           njnt,        1)  /* does joint have limits */                   \
  X(mcNum,  jnt_solref,            njnt,   mcNREF)  /* constraint solver reference: limit */       \
  X(mcNum,  jnt_solimp,            njnt,   mcNIMP)  /* constraint solver impedance: limit */       \
  X(mcNum,  jnt_pos,               njnt,        3)  /* local anchor position */                    \
  X(mcNum,  jnt_axis,              njnt,        3)  /* local joint axis */                         \
  X(mcNum,  jnt_stiffness,         njnt,        1)  /* stiffness coefficient */                    \
  X(mcNum,  jnt_range,             njnt,        2)  /* joint limits */                             \
  X(mcNum,  jnt_margin,            njnt,        1)  /* min distance for limit detection */         \
  X(mcByte, jnt_actfrclimited,     njnt,        1)  /* clamp the total actuator force */           \
  X(mcNum,  jnt_actfrcrange,       njnt,        2)  /* range of the total actuator force */        \
  X(mcByte, jnt_actgravcomp,       njnt,        1)  /* gravcomp through the actuators */           \
  /* dofs */                                                                                       \
  X(int,    dof_bodyid,            nv,          1)  /* id of dof's body */                         \
  X(int,    dof_jntid,             nv,          1)  /* id of dof's joint */                        \
  X(int,    dof_parentid,          nv,          1)  /* id of dof's parent; -1: none */             \
  X(int,    dof_Madr,              nv,          1)  /* dof address in M-diagonal */                \
  X(int,    dof_simplenum,         nv,          1)  /* number of consecutive simple dofs */        \
  X(mcNum,  dof_solref,            nv,     mcNREF)  /* constraint solver reference: frictionloss */\
  X(mcNum,  dof_solimp,            nv,     mcNIMP)  /* constraint solver impedance: frictionloss */\
  X(mcNum,  dof_frictionloss,      nv,          1)  /* dof friction loss */                        \
  X(mcNum,  dof_armature,          nv,          1)  /* dof armature inertia/mass */                \
  X(mcNum,  dof_damping,           nv,          1)  /* damping coefficient */                      \
  X(mcNum,  dof_invweight0,        nv,          1)  /* diag. inverse inertia in qpos0 */           \
  X(mcNum,  dof_M0,                nv,          1)  /* diag. inertia in qpos0 */                   \
  /* geoms */                                                                                      \
  X(int,    geom_type,             ngeom,       1)  /* geometric type (mctGeom) */                 \
  X(int,    geom_contype,          ngeom,       1)  /* geom contact type */                        \
  X(int,    geom_conaffinity,      ngeom,       1)  /* geom contact affinity */                    \
  X(int,    geom_condim,           ngeom,       1)  /* contact dimensionality (1, 3, 4, 6) */      \
  X(int,    geom_bodyid,           ngeom,       1)  /* id of geom's body */                        \
  X(int,    geom_dataid,           ngeom,       1)  /* id of geom's mesh/hfield; -1: none */       \
  X(int,    geom_group,            ngeom,       1)  /* group for visibility */                     \
  X(int,    geom_priority,         ngeom,       1)  /* geom contact priority */                    \
  X(mcByte, geom_sameframe,        ngeom,       1)  /* same as body frame (1) or iframe (2) */     \
  X(mcNum,  geom_solmix,           ngeom,       1)  /* mixing coef for solref/imp in geom pair */  \
  X(mcNum,  geom_solref,           ngeom,  mcNREF)  /* constraint solver reference: contact */     \
  X(mcNum,  geom_solimp,           ngeom,  mcNIMP)  /* constraint solver impedance: contact */     \
  X(mcNum,  geom_size,             ngeom,       3)  /* geom-specific size parameters */            \
  X(mcNum,  geom_rbound,           ngeom,       1)  /* radius of bounding sphere */                \
  X(mcNum,  geom_pos,              ngeom,       3)  /* local position offset rel. to body */       \
  X(mcNum,  geom_quat,             ngeom,       4)  /* local orientation offset rel. to body */    \
  X(mcNum,  geom_friction,         ngeom,       3)  /* friction for (slide, spin, roll) */         \
  X(mcNum,  geom_margin,           ngeom,       1)  /* detect contact if dist<margin */            \
  X(mcNum,  geom_gap,              ngeom,       1)  /* include in solver if dist<margin-gap */     \
  X(mcNum,  geom_fluid,            ngeom, mcNFLUID) /* fluid interaction parameters */             \
  X(float,  geom_rgba,             ngeom,       4)  /* rgba (accepted, unused by physics) */       \
  /* sites */                                                                                      \
  X(int,    site_type,             nsite,       1)  /* geom type for rendering (mctGeom) */        \
  X(int,    site_bodyid,           nsite,       1)  /* id of site's body */                        \
  X(int,    site_group,            nsite,       1)  /* group for visibility */                     \
  X(mcByte, site_sameframe,        nsite,       1)  /* same as body frame (1) or iframe (2) */     \
  X(mcNum,  site_size,             nsite,       3)  /* geom size for rendering */                  \
  X(mcNum,  site_pos,              nsite,       3)  /* local position offset rel. to body */       \
  X(mcNum,  site_quat,             nsite,       4)  /* local orientation offset rel. to body */    \
  /* cameras (rendering parameters stored for camprojection; float fields as in MuJoCo)        */ \
  X(int,    cam_mode,              ncam,        1)  /* camera tracking mode (mctCamLight) */       \
  X(int,    cam_bodyid,            ncam,        1)  /* id of camera's body */                      \
  X(int,    cam_targetbodyid,      ncam,        1)  /* id of targeted body; -1: none */            \
  X(mcNum,  cam_pos,               ncam,        3)  /* position rel. to body frame */              \
  X(mcNum,  cam_quat,              ncam,        4)  /* orientation rel. to body frame */           \
  X(mcNum,  cam_poscom0,           ncam,        3)  /* global position rel. to sub-com in qpos0 */ \
  X(mcNum,  cam_pos0,              ncam,        3)  /* global position rel. to body in qpos0 */    \
  X(mcNum,  cam_mat0,              ncam,        9)  /* global orientation in qpos0 */              \
  X(int,    cam_orthographic,      ncam,        1)  /* orthographic camera; 0: perspective */      \
  X(mcNum,  cam_fovy,              ncam,        1)  /* y field-of-view (degrees) */                \
  X(mcNum,  cam_ipd,               ncam,        1)  /* inter-pupilary distance */                  \
  X(int,    cam_resolution,        ncam,        2)  /* resolution: pixels [width, height] */       \
  X(float,  cam_sensorsize,        ncam,        2)  /* sensor size: length [width, height] */      \
  X(float,  cam_intrinsic,         ncam,        4)  /* [focal length; principal point] */          \
  /* meshes: vertices in the mesh's inertial frame; mesh_graph per mesh (MuJoCo's layout):    */ \
  /* numvert, numface, vert_edgeadr[numvert], vert_globalid[numvert],                          */ \
  /* edge_localid[numvert+3*numface] (-1 ends each vertex), face_globalid[3*numface]            */ \
  X(int,    mesh_vertadr,          nmesh,       1)  /* first vertex address */                     \
  X(int,    mesh_vertnum,          nmesh,       1)  /* number of vertices */                       \
  X(int,    mesh_faceadr,          nmesh,       1)  /* first face address */                       \
  X(int,    mesh_facenum,          nmesh,       1)  /* number of faces */                          \
  X(float,  mesh_vert,             nmeshvert,   3)  /* vertex positions for all meshes */          \
  X(int,    mesh_face,             nmeshface,   3)  /* vertex face data */                         \
  X(int,    mesh_graphadr,         nmesh,       1)  /* hull graph address; -1: no hull */          \
  X(int,    mesh_graph,            nmeshgraph,  1)  /* hull graphs: see above */                   \
  /* height fields: data normalized to [0, 1], row-major (nrow x ncol)                          */ \
  X(mcNum,  hfield_size,           nhfield,     4)  /* (x, y, z_top, z_bottom) */                  \
  X(int,    hfield_nrow,           nhfield,     1)  /* number of rows in grid */                   \
  X(int,    hfield_ncol,           nhfield,     1)  /* number of columns in grid */                \
  X(int,    hfield_adr,            nhfield,     1)  /* address in hfield_data */                   \
  X(float,  hfield_data,           nhfielddata, 1)  /* elevation data */                           \
  /* predefined geom pairs */                                                                      \
  X(int,    pair_dim,              npair,       1)  /* contact dimensionality */                   \
  X(int,    pair_geom1,            npair,       1)  /* id of geom1 */                              \
  X(int,    pair_geom2,            npair,       1)  /* id of geom2 */                              \
  X(int,    pair_signature,        npair,       1)  /* (body1+1) << 16 + body2+1 */                \
  X(mcNum,  pair_solref,           npair,  mcNREF)  /* solver reference: contact normal */         \
  X(mcNum,  pair_solimp,           npair,  mcNIMP)  /* solver impedance: contact */                \
  X(mcNum,  pair_margin,           npair,       1)  /* detect contact if dist<margin */            \
  X(mcNum,  pair_gap,              npair,       1)  /* include in solver if dist<margin-gap */     \
  X(mcNum,  pair_friction,         npair,       5)  /* tangent1, 2, spin, roll1, 2 */              \
  /* excluded body pairs */                                                                        \
  X(int,    exclude_signature,     nexclude,    1)  /* (body1+1) << 16 + body2+1 */                \
  /* equality constraints */                                                                       \
  X(int,    eq_type,               neq,         1)  /* constraint type (mctEq) */                  \
  X(int,    eq_obj1id,             neq,         1)  /* id of object 1 */                           \
  X(int,    eq_obj2id,             neq,         1)  /* id of object 2 */                           \
  X(mcByte, eq_active0,            neq,         1)  /* initial enable/disable state */             \
  X(mcNum,  eq_solref,             neq,    mcNREF)  /* constraint solver reference */              \
  X(mcNum,  eq_solimp,             neq,    mcNIMP)  /* constraint solver impedance */              \
  X(mcNum,  eq_data,               neq, mcNEQDATA)  /* numeric data for constraint */              \
  /* tendons */                                                                                    \
  X(int,    tendon_adr,            ntendon,     1)  /* address of first object in tendon's path */ \
  X(int,    tendon_num,            ntendon,     1)  /* number of objects in tendon's path */       \
  X(mcByte, tendon_limited,        ntendon,     1)  /* does tendon have length limits */           \
  X(mcNum,  tendon_solref_lim,     ntendon, mcNREF) /* constraint solver reference: limit */       \
  X(mcNum,  tendon_solimp_lim,     ntendon, mcNIMP) /* constraint solver impedance: limit */       \
  X(mcNum,  tendon_solref_fri,     ntendon, mcNREF) /* constraint solver reference: friction */    \
  X(mcNum,  tendon_solimp_fri,     ntendon, mcNIMP) /* constraint solver impedance: friction */    \
  X(mcNum,  tendon_range,          ntendon,     2)  /* tendon length limits */                     \
  X(mcNum,  tendon_margin,         ntendon,     1)  /* min distance for limit detection */         \
  X(mcNum,  tendon_stiffness,      ntendon,     1)  /* stiffness coefficient */                    \
  X(mcNum,  tendon_damping,        ntendon,     1)  /* damping coefficient */                      \
  X(mcNum,  tendon_frictionloss,   ntendon,     1)  /* loss due to friction */                     \
  X(mcNum,  tendon_armature,       ntendon,     1)  /* inertia associated with tendon velocity */  \
  X(mcNum,  tendon_lengthspring,   ntendon,     2)  /* spring resting length range */              \
  X(mcNum,  tendon_length0,        ntendon,     1)  /* tendon length in qpos0 */                   \
  X(mcNum,  tendon_invweight0,     ntendon,     1)  /* inv. weight in qpos0 */                     \
  X(int,    wrap_type,             nwrap,       1)  /* wrap object type (mctWrap) */               \
  X(int,    wrap_objid,            nwrap,       1)  /* object id: geom, site, joint */             \
  X(mcNum,  wrap_prm,              nwrap,       1)  /* divisor, joint coef, or site id */          \
  /* actuators */                                                                                  \
  X(int,    actuator_trntype,      nu,          1)  /* transmission type (mctTrn) */               \
  X(int,    actuator_dyntype,      nu,          1)  /* dynamics type (mctDyn) */                   \
  X(int,    actuator_gaintype,     nu,          1)  /* gain type (mctGain) */                      \
  X(int,    actuator_biastype,     nu,          1)  /* bias type (mctBias) */                      \
  X(int,    actuator_trnid,        nu,          2)  /* transmission id: joint, tendon, site */     \
  X(int,    actuator_actadr,       nu,          1)  /* first activation address; -1: stateless */  \
  X(int,    actuator_actnum,       nu,          1)  /* number of activation variables */           \
  X(int,    actuator_group,        nu,          1)  /* group for visibility */                     \
  X(int,    actuator_plugin,       nu,          1)  /* index in plugin[]; -1: core general */      \
  X(mcByte, actuator_ctrllimited,  nu,          1)  /* is control limited */                       \
  X(mcByte, actuator_forcelimited, nu,          1)  /* is force limited */                         \
  X(mcByte, actuator_actlimited,   nu,          1)  /* is activation limited */                    \
  X(mcByte, actuator_actearly,     nu,          1)  /* step activation before force */             \
  X(mcNum,  actuator_dynprm,       nu,     mcNDYN)  /* dynamics parameters */                      \
  X(mcNum,  actuator_gainprm,      nu,    mcNGAIN)  /* gain parameters */                          \
  X(mcNum,  actuator_biasprm,      nu,    mcNBIAS)  /* bias parameters */                          \
  X(mcNum,  actuator_ctrlrange,    nu,          2)  /* range of controls */                        \
  X(mcNum,  actuator_forcerange,   nu,          2)  /* range of forces */                          \
  X(mcNum,  actuator_actrange,     nu,          2)  /* range of activations */                     \
  X(mcNum,  actuator_gear,         nu,          6)  /* scale length and transmitted force */       \
  X(mcNum,  actuator_cranklength,  nu,          1)  /* crank length for slider-crank */            \
  X(mcNum,  actuator_acc0,         nu,          1)  /* acceleration from unit force in qpos0 */    \
  X(mcNum,  actuator_length0,      nu,          1)  /* actuator length in qpos0 */                 \
  X(mcNum,  actuator_lengthrange,  nu,          2)  /* feasible actuator length range */           \
  X(mcNum,  actuator_damping,      nu,          3)  /* post-clamp drag b(v): v, v|v|, v^3 */       \
  X(mcNum,  actuator_armature,     nu,          1)  /* rotor inertia J_r (reflected by gear^2) */  \
  /* sensors */                                                                                    \
  X(int,    sensor_type,           nsensor,     1)  /* sensor type (mctSensor) */                  \
  X(int,    sensor_datatype,       nsensor,     1)  /* numeric data type (mctDataType) */          \
  X(int,    sensor_needstage,      nsensor,     1)  /* required compute stage (mctStage) */        \
  X(int,    sensor_objtype,        nsensor,     1)  /* type of sensorized object (mctObj) */       \
  X(int,    sensor_objid,          nsensor,     1)  /* id of sensorized object */                  \
  X(int,    sensor_reftype,        nsensor,     1)  /* type of reference frame (mctObj) */         \
  X(int,    sensor_refid,          nsensor,     1)  /* id of reference frame; -1: global */        \
  X(int,    sensor_dim,            nsensor,     1)  /* number of scalar outputs */                 \
  X(int,    sensor_adr,            nsensor,     1)  /* address in sensor array */                  \
  X(int,    sensor_plugin,         nsensor,     1)  /* index in plugin[]; -1: none */              \
  X(mcNum,  sensor_cutoff,         nsensor,     1)  /* cutoff for real and positive; 0: ignore */  \
  X(mcNum,  sensor_noise,          nsensor,     1)  /* noise standard deviation */                 \
  /* custom numeric fields */                                                                      \
  X(int,    numeric_adr,           nnumeric,    1)  /* address of field in numeric_data */         \
  X(int,    numeric_size,          nnumeric,    1)  /* size of numeric field */                    \
  X(mcNum,  numeric_data,          nnumericdata, 1) /* array of all numeric fields */              \
  /* keyframes */                                                                                  \
  X(mcNum,  key_time,              nkey,        1)  /* key time */                                 \
  X(mcNum,  key_qpos,              nkey,       nq)  /* key position */                             \
  X(mcNum,  key_qvel,              nkey,       nv)  /* key velocity */                             \
  X(mcNum,  key_act,               nkey,       na)  /* key activation */                           \
  X(mcNum,  key_mpos,              nkey,  nmocap*3) /* key mocap position */                       \
  X(mcNum,  key_mquat,             nkey,  nmocap*4) /* key mocap quaternion */                     \
  X(mcNum,  key_ctrl,              nkey,       nu)  /* key control */                              \
  /* plugins used by this model */                                                                 \
  X(int,    plugin_stateadr,       nplugin,     1)  /* address in plugin_state; -1: stateless */   \
  X(int,    plugin_statenum,       nplugin,     1)  /* number of states */                         \
  X(int,    plugin_objtype,        nplugin,     1)  /* mctObj of the element; -1: model-wide */    \
  X(int,    plugin_objid,          nplugin,     1)  /* id of the element; -1: model-wide */        \
  X(int,    plugin_configadr,      nplugin,     1)  /* address in plugin_config */                 \
  X(int,    plugin_confignum,      nplugin,     1)  /* number of configuration values */           \
  X(int,    plugin_datasize,       nplugin,     1)  /* bytes of plugin_data (inside mcData) */     \
  X(int,    plugin_warnadr,        nplugin,     1)  /* address in mcData.plugin_warncount */       \
  X(int,    plugin_warnnum,        nplugin,     1)  /* number of plugin-defined warnings */        \
  X(mcNum,  plugin_config,         npluginconfig, 1) /* configuration values, in key order */      \
  /* names */                                                                                      \
  X(int,    name_bodyadr,          nbody,       1)  /* body name pointers */                       \
  X(int,    name_jntadr,           njnt,        1)  /* joint name pointers */                      \
  X(int,    name_geomadr,          ngeom,       1)  /* geom name pointers */                       \
  X(int,    name_siteadr,          nsite,       1)  /* site name pointers */                       \
  X(int,    name_camadr,           ncam,        1)  /* camera name pointers */                     \
  X(int,    name_meshadr,          nmesh,       1)  /* mesh name pointers */                       \
  X(int,    name_hfieldadr,        nhfield,     1)  /* hfield name pointers */                     \
  X(int,    name_pairadr,          npair,       1)  /* geom pair name pointers */                  \
  X(int,    name_eqadr,            neq,         1)  /* equality constraint name pointers */        \
  X(int,    name_tendonadr,        ntendon,     1)  /* tendon name pointers */                     \
  X(int,    name_actuatoradr,      nu,          1)  /* actuator name pointers */                   \
  X(int,    name_sensoradr,        nsensor,     1)  /* sensor name pointers */                     \
  X(int,    name_numericadr,       nnumeric,    1)  /* numeric name pointers */                    \
  X(int,    name_keyadr,           nkey,        1)  /* keyframe name pointers */                   \
  X(char,   names,                 nnames,      1)  /* names of all objects, 0-terminated */      \
  /* appended after ABI 1.3 */                                                                   \
  X(mcByte, tendon_actfrclimited,  ntendon,     1)  /* clamp the total actuator force */           \
  X(mcNum,  tendon_actfrcrange,    ntendon,     2)  /* range of the total actuator force */      \
  X(int,    eq_objtype,            neq,         1)  /* type of both objects (mctObj) */            \
  X(mcNum,  geom_adhesion,         ngeom,       1)  /* pull a contact may give (adhesion) */       \
  X(mcNum,  geom_surfacevel,       ngeom,       6)  /* surface velocity: linear, angular */   \
  X(float,  geom_matrgba,          ngeom,       4)  /* rgba of the geom's material; -1: none */  \
  X(int,    body_sleep,            nbody,       1)  /* sleep policy of a tree root (mctSleep) */ \
  /* mesh support ties (appended in 1.7): chains from each hull vertex g over the mesh points  */ \
  /* that can tie with it in a support scan, at mesh_vertadr: mesh_tie[g], mesh_tie[that], ... */ \
  X(mcByte, mesh_tied,             nmesh,       1)  /* 1: mesh_tie holds the support tie chains */ \
  X(int,    mesh_tie,              nmeshvert,   1)  /* next point of a support tie chain; -1 ends */

// Pointer to a resolved plugin descriptor (see mcplugin.h).
struct mcpHeader_;
struct mcpIntegrator_;
struct mcpSolver_;
struct mcpPostsolver_;

// The compiled model. Create with mc_loadXML, free with mc_deleteModel.
typedef struct mcModel_ {
  // sizes
#define X(name) int name;
  MC_MODEL_SIZES(X)
#undef X

  // arena bytes requested by <size memory="..."> (0: computed from the model)
  size_t narena;

  // options
  mcOption opt;

  // resolved plugins (names in the model file, resolved once at compile time)
  const struct mcpIntegrator_* integrator;    // integrator plugin (never NULL in a loaded model)
  const struct mcpSolver_* solver;            // constraint solver plugin; NULL: none available
  const struct mcpPostsolver_* postsolver;    // noslip postsolver; NULL: none
  const struct mcpHeader_** plugin;           // descriptor of every plugin instance (nplugin x 1)
  int plugin_integrator;                      // instance of the integrator; -1: none
  int plugin_solver;                          // instance of the solver; -1: none
  int plugin_postsolver;                      // instance of the postsolver; -1: none

  // the model buffer (one allocation holds every array below)
  void* buffer;

  // arrays
#define X(type, name, nr, nc) type* name;
  MC_MODEL_POINTERS(X)
#undef X

  // source file the model was loaded from (for messages); "" when loaded from a string
  char modelfile[1024];

  // <option sleep_tolerance>: velocity below which a tree counts down to sleep (mcENBL_SLEEP);
  // here, not in mcOption, so that the layout before it stays that of ABI 1.5
  mcNum sleep_tolerance;
} mcModel;

#ifdef __cplusplus
}
#endif

#endif  // MODUCO_MCMODEL_H_
