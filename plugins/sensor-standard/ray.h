// Moduco plugin "sensor-standard": ray casting (ray.c).
#ifndef MODUCO_PLUGINS_SENSOR_STANDARD_RAY_H_
#define MODUCO_PLUGINS_SENSOR_STANDARD_RAY_H_

#include <moduco/mcmodel.h>
#include <moduco/mcdata.h>

// distance along vec from pnt to a primitive shape of the given geom type at pos/mat, or -1
mcNum ss_rayShape(int type, const mcNum pos[3], const mcNum mat[9], const mcNum* size,
                  const mcNum pnt[3], const mcNum vec[3]);

// distance to the nearest visible geom not on body bodyexclude, or -1
mcNum ss_rayModel(const mcModel* m, const mcData* d, const mcNum pnt[3], const mcNum vec[3],
                  int bodyexclude);

#endif  // MODUCO_PLUGINS_SENSOR_STANDARD_RAY_H_
