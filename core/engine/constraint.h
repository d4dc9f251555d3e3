// Moduco core: constraint assembly (private to libmoduco and white-box tests).
//
// mc_makeConstraint turns the model's equality, friction-loss, limit and contact elements into
// efc rows (ordered by type: equality, friction loss, limit, contact; then by element), with the
// dense Jacobian, residual, margin, diagonal approximation of A, and the soft-constraint
// parameters (KBIP, R, D). mc_referenceConstraint adds the velocity-dependent part (efc_vel,
// efc_aref). The solver plugins take it from there.
#ifndef MODUCO_CORE_ENGINE_CONSTRAINT_H_
#define MODUCO_CORE_ENGINE_CONSTRAINT_H_

#include <moduco/moduco.h>

// MuJoCo 2.2.2's rules where MuJoCo 3.14 (which Moduco follows) changed them, for the suites that
// compare with MuJoCo 2.2.2 (white-box tests only; not part of the ABI, no MJCF name): a bit of
// opt.disableflags above the public ones. With it set, connect and weld rows leave dJ/dt qvel out
// of efc_aref, and mc_setConst gives bodies moved by sliders alone the mean inverse weights
// instead of 1/mass (docs/mujoco3.md, "MuJoCo 3.14 against Moduco").
#define mcDSBL_LEGACY222 (1 << 30)

// Assemble all efc rows from the current positions (needs kinematics, comPos, tendon, crb,
// factorM and the contact list from mc_collision). Allocates the efc arrays in the arena; rows
// that do not fit are dropped with mcWARN_CNSTRFULL. efc_vel and efc_aref are left to
// mc_referenceConstraint (mc_fwdVelocity calls it; a caller running a solver on rows it made
// itself calls it after this).
void mc_makeConstraint(const mcModel* m, mcData* d);

// mc_makeConstraint; with reference, when the contacts' rows are filled on d's pool, also every
// row's efc_vel = J * qvel and efc_aref = -B * vel - K * imp * (pos - margin), and the contacts'
// moving surfaces and adhesion in both (mc_surfaceReference), in the same tasks (the rows still
// in cache; no job of its own in the velocity stage, no serial pass over the contacts). Returns
// MCI_REFERENCE_ROWS when those were made (mci_referenceConstraint then skips them), with
// MCI_REFERENCE_NOADHESION when no contact with rows has adhesion (mc_adhesionPassive would add
// nothing), else 0. Only for a caller whose qvel stays as it is until the velocity stage and which
// nothing between reads efc_vel or efc_aref by (mc_forward's early velocity stage,
// mci_velocityEarlyOk).
#define MCI_REFERENCE_ROWS 1
#define MCI_REFERENCE_NOADHESION 2
int mci_makeConstraint(const mcModel* m, mcData* d, int reference);

// efc_vel = J * qvel and efc_aref = -B * vel - K * imp * (pos - margin), less dJ/dt qvel on the
// rows of connect and weld constraints (MuJoCo 3.x; needs cdof_dot, mc_comVel).
void mc_referenceConstraint(const mcModel* m, mcData* d);

// mc_referenceConstraint; made: mci_makeConstraint's result (with MCI_REFERENCE_ROWS efc_vel,
// efc_aref's position part and the contacts' surface terms are made, only the equality rows'
// dJ/dt qvel is left)
void mci_referenceConstraint(const mcModel* m, mcData* d, int made);

// Cut the contacts of d that have rows (mc_makeConstraint) into at most want (<= 64) chunks of
// 1 when some x[i] > 0 (i < n), else 0 (NaN and -0 are not positive): the count pass's test of a
// block of dofs for friction loss, without a branch per dof
int mci_anyPositive(const mcNum* x, int n);

// contiguous contacts by row count, as mc_makeConstraint fills them on the thread pool: chunk k is
// contacts con[k] .. con[k+1]-1 (con[0] 0, con[n] ncon) with the rows row[k] .. row[k+1]-1;
// returns the number of chunks n (0 when no contact has rows). taper <= 1: chunks balanced by
// rows; taper T (threads): T blocks of C = want / T chunks (rounded up), one a thread, each of
// about a T-th of the rows and shrinking within the block, its last a C-th of its first, so a
// thread works through contiguous contacts largest first and a job ends with small chunks.
int mci_cutContacts(const mcModel* m, const mcData* d, int want, int taper, int* con, int* row);

// The same chunks in one pass, given conrow, the first row of the contacts (theirs are the last
// rows: a contact takes all its rows or none), and each chunk's first non-zero in nnz[k] (nnz[n]
// past the last), counted from nnz0: the contacts' rows times their column counts (ccols[i], or
// found from the bodies when ccols is NULL) when sparse, else nnz0 for all
int mci_cutContactsFrom(const mcModel* m, const mcData* d, int want, int taper, int conrow,
                        int sparse, const int* ccols, int nnz0, int* con, int* row, int* nnz);

// Impedance of the solimp curve at constraint violation x = pos - margin: writes imp (clamped to
// [mcMINIMP, mcMAXIMP]) and its derivative with respect to x.
void mc_impedance(const mcNum solimp[mcNIMP], mcNum x, mcNum* imp, mcNum* impP);

// Analytic constraint force of the soft model at the acceleration qacc (core/engine/inverse.c):
// efc_force = -grad s(J qacc - aref), efc_state, qfrc_constraint = J' efc_force. Needs the efc
// rows with efc_aref (mc_makeConstraint).
void mc_invConstraint(const mcModel* m, mcData* d, const mcNum* qacc);

// Forward/inverse comparison after a forward computation (enable flag fwdinv): runs the inverse
// on the same positions and velocities and sets solver_fwdinv[0] = |qfrc_constraint(forward) -
// qfrc_constraint(inverse)| and solver_fwdinv[1] = |qfrc_applied + qfrc_actuator + J' xfrc -
// qfrc_inverse|; the forward efc_force, efc_state and qfrc_constraint are kept.
void mc_compareFwdInv(const mcModel* m, mcData* d);

#endif  // MODUCO_CORE_ENGINE_CONSTRAINT_H_
