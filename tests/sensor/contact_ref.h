// MuJoCo 3.14 reference runs for the contact-sensor and height-field suites of tests/sensor:
// tests/sensor/contact_ref.mjs under Node (through tu_mjs3Json), beside the same model loaded in
// Moduco, reset to its first keyframe and run through mc_forward.
#ifndef MODUCO_TESTS_SENSOR_CONTACT_REF_H_
#define MODUCO_TESTS_SENSOR_CONTACT_REF_H_

#include <cjson/cJSON.h>

#include <moduco/moduco.h>

typedef struct {
  cJSON* out;               // the whole reference output
  const cJSON* ref;         // the model's record
  mcModel* m;
  mcData* d;
} crCase;

// load file of folder dir in both engines (the reference also steps nstep times); fails the test
// when either engine does not load it
void cr_open(crCase* k, const char* dir, const char* file, int nstep);
void cr_close(crCase* k);

// step Moduco nstep times, then mc_forward (as the reference did for "stepped")
void cr_step(crCase* k, int nstep);

// the reference field (group: NULL for the model record, "forward" or "stepped")
const cJSON* cr_field(const crCase* k, const char* group, const char* field);

// the largest error |a - b| / max(1, |b|) of n values against a reference field; fails when the
// lengths differ or an error exceeds tol, naming the field, the index and what (for messages)
double cr_compare(const crCase* k, const char* group, const char* field, const mcNum* ours, int n,
                  double tol, const char* what);

// the same contacts in both engines (count, geom pair, distance and position)
void cr_compareContacts(const crCase* k, const char* group, double tol);

// the first line of Moduco's error for file of dir, which must not load
void cr_loadError(const char* dir, const char* file, char* err, int err_sz);

#endif  // MODUCO_TESTS_SENSOR_CONTACT_REF_H_
