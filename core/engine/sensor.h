// Moduco core: sensor stages and the post-constraint recursive Newton-Euler pass (sensor.c).
#ifndef MODUCO_CORE_ENGINE_SENSOR_H_
#define MODUCO_CORE_ENGINE_SENSOR_H_

#include <moduco/moduco.h>

// compute the sensors of one stage (mcSTAGE_POS, VEL or ACC) and apply their cutoff; nothing when
// sensors are disabled
void mc_sensorStage(const mcModel* m, mcData* d, int stage);

#endif  // MODUCO_CORE_ENGINE_SENSOR_H_
