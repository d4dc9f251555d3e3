// Moduco: numeric type, export macro and small shared constants.
#ifndef MODUCO_MCTNUM_H_
#define MODUCO_MCTNUM_H_

// Floating-point type of every real-valued quantity (double; part of the plugin ABI).
typedef double mcNum;

// Byte type used for boolean flags stored in arrays.
typedef unsigned char mcByte;

#if defined(_WIN32)
  #define MCAPI __declspec(dllexport)
#else
  #define MCAPI __attribute__((visibility("default")))
#endif

#define mcMINVAL    1e-15         // minimum value used to avoid division by zero
#define mcPI        3.14159265358979323846
#define mcMAXVAL    1e10          // maximum value in qpos, qvel, qacc before divergence
#define mcMINMU     1e-5          // minimum friction coefficient
#define mcMINIMP    0.0001        // minimum constraint impedance
#define mcMAXIMP    0.9999        // maximum constraint impedance
#define mcMAXCONPAIR 50           // maximum number of contacts per geom pair
#define mcNREF      2             // number of solver reference parameters
#define mcNIMP      5             // number of solver impedance parameters
#define mcNDYN      10            // number of actuator dynamics parameters
#define mcNGAIN     10            // number of actuator gain parameters
#define mcNBIAS     10            // number of actuator bias parameters
#define mcNEQDATA   11            // number of equality constraint data parameters
#define mcNFLUID    12            // number of fluid interaction parameters per geom

#endif  // MODUCO_MCTNUM_H_
