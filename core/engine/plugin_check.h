// Moduco core: the plugin check mode (private to libmoduco).
//
// With d->plugin_check set (mc_setPluginCheck, or MODUCO_PLUGIN_CHECK=1 in the environment when
// the data is made), the core verifies the output of every plugin call it makes and raises
// mcWARN_PLUGINCHECK for each failure. The info of the warning is the plugin's timer slot
// (mctTimerPlugin: integrator, solver, postsolver, collision + k, element + instance; the name is
// mc_timerPluginName); the first few failures of a data are also printed through the message
// handler, naming the plugin, the check and the offending index and value (docs/plugins.md,
// "Check mode"). The callers test d->plugin_check first, so the mode costs one branch when off.
#ifndef MODUCO_CORE_ENGINE_PLUGIN_CHECK_H_
#define MODUCO_CORE_ENGINE_PLUGIN_CHECK_H_

#include <moduco/mcdata.h>
#include <moduco/mcmodel.h>
#include <moduco/mcplugin.h>

// a solver (slot mcTIMERPLUGIN_SOLVER) or postsolver (mcTIMERPLUGIN_POSTSOLVER) has just run:
// finite qacc and efc_force, qfrc_constraint == J' efc_force, forces in their cones and bounds,
// efc_state consistent with the forces
void mci_checkSolver(const mcModel* m, mcData* d, int slot);

// the integrator has just stepped from time0: finite qpos, qvel, act; time == time0 + timestep
void mci_checkIntegrator(const mcModel* m, mcData* d, mcNum time0);

// a collide function for geom types t1 <= t2 returned num contacts in con (before the core
// completes the frames): 0 <= num <= mcMAXCONPAIR, finite dist and pos, unit normal, tangent
// axes either zero or orthonormal (and the third one the right-handed cross product)
void mci_checkCollision(const mcModel* m, mcData* d, int t1, int t2, const mcContact* con,
                        int num);

// actuator i's plugin has just written act_dot: finite act_dot[actadr .. actadr+actnum-1]
void mci_checkActDot(const mcModel* m, mcData* d, int i);

// actuator i's plugin returned force f: finite
void mci_checkActForce(const mcModel* m, mcData* d, int i, mcNum f);

// compute sensor i with its plugin into a guarded scratch copy of its slice, check that the
// outputs are finite and that nothing was written outside the slice, then copy the slice to out
void mci_computeSensorChecked(const mcpHost* host, const mcModel* m, mcData* d,
                              const mcpSensor* ps, int i, mcNum* out);

#endif  // MODUCO_CORE_ENGINE_PLUGIN_CHECK_H_
