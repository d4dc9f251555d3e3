// Moduco plugin "sensor-standard": the contact sensor (contact.c).
#ifndef MODUCO_PLUGINS_SENSOR_STANDARD_CONTACT_H_
#define MODUCO_PLUGINS_SENSOR_STANDARD_CONTACT_H_

#include <moduco/mcplugin.h>

// sensor i of type mcSENS_CONTACT into out (sensor_dim[i] numbers); its instance configuration
// holds the data mask (dataspec), the reduction (reduce) and the slot count (num)
void ss_contactSensor(const mcpHost* host, const mcModel* m, mcData* d, int i, mcNum* out);

// force and torque of contact id in its frame (zeros past its dimension, and without a row): the
// net force, the adhesion taken off the normal (MuJoCo 3.14's mj_contactForce)
void ss_contactForce(const mcModel* m, const mcData* d, int id, mcNum f[6]);

#endif  // MODUCO_PLUGINS_SENSOR_STANDARD_CONTACT_H_
