// Moduco viewer: mouse perturbation, as a spring pulling a point of a body towards a target
// (docs/viewer.md, "Mouse perturbation").
#ifndef MODUCO_SDK_VIEWER_PERTURB_H_
#define MODUCO_SDK_VIEWER_PERTURB_H_

#include <moduco/moduco.h>

#define MCV_PERTURB_STIFFNESS 400.0   // 1/s^2: a 20 rad/s spring ...
#define MCV_PERTURB_DAMPING 40.0      // 1/s: ... critically damped
#define MCV_MAXCOORD 1e6              // largest |coordinate| accepted in a perturb message

typedef struct {
  int body;                       // perturbed body; 0: none
  int rotate;                     // 0: move (force at the anchor), 1: rotate (torque only)
  double anchor[3];               // the grabbed point, in the body's frame
  double target[3];               // where the mouse pulls it, world frame
} mcvPerturb;

// Set d->xfrc_applied of p->body from the spring (scaled by the body's subtree mass) and clear
// it on the body perturbed before (*last, updated). Uses xpos, xmat, xipos, cvel of d.
void mcv_applyPerturb(const mcModel* m, mcData* d, const mcvPerturb* p, int* last);

#endif  // MODUCO_SDK_VIEWER_PERTURB_H_
