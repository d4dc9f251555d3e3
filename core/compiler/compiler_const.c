// Moduco core: quantities of the model at qpos0 (MuJoCo's setConst), computed by the engine's
// mc_setConst on a temporary mcData, plus the compiler's defaults that depend on them.
#include <math.h>

#include "compiler/compiler.h"
#include "engine/constraint.h"


int mcc_setConst(mcModel* m) {
  mcData* d = mc_makeData(m);
  if (!d) {
    return -1;
  }

  // dof_M0, invweight0 of dofs, bodies and tendons, tendon and actuator lengths, actuator_acc0
  mc_setConst(m, d);

  // an unset spatial tendon spring length (NaN, see compiler_model.c) is the length at
  // qpos_spring, as in MuJoCo 2.2.2 and 3.3.8
  int unset = 0;
  for (int i = 0; i < 2 * m->ntendon; i++) {
    unset |= isnan(m->tendon_lengthspring[i]);
  }
  if (unset) {
    for (int i = 0; i < m->nq; i++) {
      d->qpos[i] = m->qpos_spring[i];
    }
    mc_kinematics(m, d);
    mc_comPos(m, d);
    mc_tendon(m, d);
    for (int i = 0; i < 2 * m->ntendon; i++) {
      if (isnan(m->tendon_lengthspring[i])) {
        m->tendon_lengthspring[i] = d->ten_length[i / 2];
      }
    }
  }

  mc_deleteData(d);
  return 0;
}
