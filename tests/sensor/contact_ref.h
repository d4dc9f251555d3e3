// MuJoCo 3.14 reference runs for the contact-sensor, PNG height-field and MuJoCo 3.x attribute
// suites: tests/sensor/contact_ref.mjs under Node, through mr_openScript (tests/compiler/
// model_ref.h: the model in both engines, reset to its first keyframe, mc_forward).
#ifndef MODUCO_TESTS_SENSOR_CONTACT_REF_H_
#define MODUCO_TESTS_SENSOR_CONTACT_REF_H_

#include "model_ref.h"

// load file of folder dir in both engines (the reference also steps nstep times); fails the test
// with the setup instruction when MuJoCo 3.14 cannot run, or when either engine does not load it
void cr_open(mrCase* k, const char* dir, const char* file, int nstep);

// the same contacts in both engines (count, geom pair, distance and position within tol)
void cr_compareContacts(const mrCase* k, const char* group, double tol);

// Moduco's error for file of dir, which must not load
void cr_loadError(const char* dir, const char* file, char* err, int err_sz);

#endif  // MODUCO_TESTS_SENSOR_CONTACT_REF_H_
