// Moduco plugin "dcmotor": shared declarations (dcmotor.c: equations, compile.c: attributes).
#ifndef MODUCO_PLUGINS_ACTUATOR_DCMOTOR_DCMOTOR_H_
#define MODUCO_PLUGINS_ACTUATOR_DCMOTOR_DCMOTOR_H_

#include <moduco/mcplugin.h>

// input modes (gainprm[8]): the seed's 0 voltage, 1 position, 2 velocity (voltage-space gains);
// MuJoCo 3.12's signatures pos, vel, ff (torque-space gains, back-EMF compensated)
enum { DCM_POS = 3, DCM_VEL = 4, DCM_FF = 5 };

// activation addresses of the optional states (-1: absent) and their count
typedef struct {
  int uprev, xi, temp, z, cur, n;
} dcmLayout;

void dcm_layout(const mcNum* gainprm, const mcNum* dynprm, int adr, dcmLayout* L);
mcNum dcm_resistance(const mcNum* gainprm, const mcNum* dynprm, const mcNum* act,
                     const dcmLayout* L);
mcNum dcm_setpoint(const mcNum* dynprm, mcNum u, const mcNum* act, const dcmLayout* L, mcNum h);
mcNum dcm_voltage(const mcNum* gainprm, mcNum u, mcNum th, mcNum w, const mcNum* act,
                  const dcmLayout* L);

// exact zero-order-hold bristle update (11) over h at constant velocity w
mcNum dcm_zoh(const mcNum* dynprm, const mcNum* biasprm, mcNum z, mcNum w, mcNum h);

// compile callback: attributes to gainprm/dynprm/biasprm/forcerange (Table 17)
int dcm_compile(const mcpHost* host, const mcpAttributes* attr, mcpActuatorSpec* spec,
                char* error, int error_sz);

#endif  // MODUCO_PLUGINS_ACTUATOR_DCMOTOR_DCMOTOR_H_
