// Moduco collision-primitive plugin: functions shared between its source files.
#ifndef MODUCO_PLUGINS_COLLISION_PRIMITIVE_PRIMITIVE_H_
#define MODUCO_PLUGINS_COLLISION_PRIMITIVE_PRIMITIVE_H_

#include <moduco/mcplugin.h>

// geom pose and size
#define MCC_POS(d, g) ((d)->geom_xpos + 3*(g))
#define MCC_MAT(d, g) ((d)->geom_xmat + 9*(g))
#define MCC_SIZE(m, g) ((m)->geom_size + 3*(g))

// two spheres (centre, radius): at most one contact, normal from the first to the second
int mcc_sphereSphere(mcContact* con, mcNum margin, const mcNum p1[3], mcNum r1,
                     const mcNum p2[3], mcNum r2);

// box pairs (box.c)
int mcc_sphereBox(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                  int g1, int g2, mcNum margin);
int mcc_capsuleBox(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                   int g1, int g2, mcNum margin);
int mcc_boxBox(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
               int g1, int g2, mcNum margin);

// box-box by the separating-axis test as MuJoCo 3.12+ (box_sat.c; mcc_boxBox calls it for
// models with mcENBL_NATIVECCD)
int mcc_boxBoxSat(const mcModel* m, const mcData* d, mcContact* con, int g1, int g2,
                  mcNum margin);

#endif  // MODUCO_PLUGINS_COLLISION_PRIMITIVE_PRIMITIVE_H_
