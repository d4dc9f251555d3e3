// Moduco core: sensor stages and the post-constraint recursive Newton-Euler pass (sensor.c).
#ifndef MODUCO_CORE_ENGINE_SENSOR_H_
#define MODUCO_CORE_ENGINE_SENSOR_H_

#include <moduco/moduco.h>

// com-based acceleration cacc, external force cfrc_ext (applied, contact, connect and weld) and
// interaction force cfrc_int of every body, from qacc and the constraint forces
void mc_rnePostConstraint(const mcModel* m, mcData* d);

// contact force and torque (6 numbers) of contact id in the contact frame
void mc_contactForce(const mcModel* m, const mcData* d, int id, mcNum result[6]);

// compute the sensors of one stage (mcSTAGE_POS, VEL or ACC) and apply their cutoff; nothing when
// sensors are disabled
void mc_sensorStage(const mcModel* m, mcData* d, int stage);

#endif  // MODUCO_CORE_ENGINE_SENSOR_H_
