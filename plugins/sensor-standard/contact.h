// Moduco plugin "sensor-standard": the contact sensor (contact.c).
#ifndef MODUCO_PLUGINS_SENSOR_STANDARD_CONTACT_H_
#define MODUCO_PLUGINS_SENSOR_STANDARD_CONTACT_H_

#include <moduco/mcplugin.h>

// sensor i of type mcSENS_CONTACT into out (sensor_dim[i] numbers); its instance configuration
// holds the data mask (dataspec), the reduction (reduce) and the slot count (num)
void ss_contactSensor(const mcpHost* host, const mcModel* m, mcData* d, int i, mcNum* out);

#endif  // MODUCO_PLUGINS_SENSOR_STANDARD_CONTACT_H_
