// MuJoCo 3.14.0 reference values for the sensor tests: tests/sensor/mjs3_sensors.mjs run by Node
// (@mujoco/mujoco 3.14.0 from tests/mjs3/node_modules) through popen.
#ifndef MODUCO_TESTS_SENSOR_MJS3_REF_H_
#define MODUCO_TESTS_SENSOR_MJS3_REF_H_

#include <cjson/cJSON.h>

// fail the test with setup instructions unless node and tests/mjs3/node_modules/@mujoco/mujoco
// exist
void mjs3_require(void);

// load xmlpath in MuJoCo 3.14.0 (with the .bin files of its folder), run mj_forward at each of
// the nstate qpos vectors (nq each), return the parsed output (cJSON_Delete it); fails the test
// on any error
cJSON* mjs3_run(const char* xmlpath, const double* qpos, int nstate, int nq);

// the numbers of array key of o into out; the array must have n entries
void mjs3_nums(const cJSON* o, const char* key, double* out, int n);

#endif  // MODUCO_TESTS_SENSOR_MJS3_REF_H_
