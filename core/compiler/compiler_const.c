// Moduco core: quantities of the model at qpos0 (MuJoCo's setConst), computed by the engine's
// mc_setConst on a temporary mcData, plus the compiler's defaults that depend on them.
#include "compiler/compiler.h"
#include "engine/constraint.h"


int mcc_setConst(mcModel* m) {
  mcData* d = mc_makeData(m);
  if (!d) {
    return -1;
  }

  // dof_M0, invweight0 of dofs, bodies and tendons, tendon and actuator lengths, actuator_acc0
  mc_setConst(m, d);

  // an unset tendon spring length is the length at qpos0
  for (int i = 0; i < m->ntendon; i++) {
    for (int k = 0; k < 2; k++) {
      if (m->tendon_lengthspring[2 * i + k] < 0) {
        m->tendon_lengthspring[2 * i + k] = m->tendon_length0[i];
      }
    }
  }

  mc_deleteData(d);
  return 0;
}
