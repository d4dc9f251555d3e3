// Collision tests: MuJoCo 2.2.2 as the oracle. Models are loaded by MuJoCo and copied field by
// field into an mcModel (geoms, bodies, pairs, excludes, meshes, options), so the collision
// stage is compared independently of the MJCF compiler and of kinematics: both sides see the
// same geom poses.
#ifndef MODUCO_TESTS_COLLISION_ORACLE_H_
#define MODUCO_TESTS_COLLISION_ORACLE_H_

#include <mujoco/mujoco.h>
#include <moduco/moduco.h>

// Load MJCF text with MuJoCo (through a temporary file); NULL and a message on failure.
mjModel* orc_loadMj(const char* xml);

// An mcModel with the collision-relevant fields of a MuJoCo model.
mcModel* orc_convert(const mjModel* mm);

// Copy the height-field arrays (size, nrow, ncol, adr, data) from MuJoCo's model; call again
// after editing mm->hfield_data by hand.
void orc_copyHfield(const mjModel* mm, mcModel* m);

// A MuJoCo model, its Moduco copy (orc_convert) and both data.
typedef struct {
  mjModel* mm;
  mjData* md;
  mcModel* m;
  mcData* d;
} OrcScene;

// Load MJCF text into an OrcScene; 0 (nothing left allocated) if MuJoCo refuses it or a copy
// fails.
int orc_sceneLoad(OrcScene* s, const char* xml);
void orc_sceneFree(OrcScene* s);

// Copy geom poses (and body poses) from MuJoCo data into Moduco data.
void orc_copyPoses(const mjModel* mm, const mjData* md, const mcModel* m, mcData* d);

// Statistics of a comparison.
typedef struct {
  int ncompared;                  // contacts compared
  int nmismatch;                  // contacts (or counts) that differ
  int ncases;                     // poses / scenes compared
  int ncasefail;                  // poses / scenes with any difference
  double maxerr;                  // largest error over dist, pos, normal of matched contacts
} OrcStats;

// Compare Moduco contacts with MuJoCo contacts (geom1, geom2, dist, pos, normal; params when
// params is nonzero). Return 1 if they agree to tol; print the first few differences with label.
int orc_compare(const mjContact* ref, int nref, const mcContact* con, int ncon, double tol,
                int params, const char* label, OrcStats* st);

// Like orc_compare, but as sets: each MuJoCo contact is paired with the closest unused Moduco
// contact (the order of the contacts within a geom pair does not matter).
int orc_compareSet(const mjContact* ref, int nref, const mcContact* con, int ncon, double tol,
                   const char* label, OrcStats* st);

// Does the line through p along n pass through box geom g (within tol)?
int orc_lineHitsBox(const mjModel* mm, const mjData* md, int g, const double p[3],
                    const double n[3], double tol);

// Keep the MuJoCo contacts of box geoms 0 and 1 whose line along the normal crosses both boxes,
// once each: drops 2.2.2's "phantom" corner, which lies outside the overlap or repeats a contact
// already reported. Returns the new count.
int orc_dropOffOverlap(const mjModel* mm, const mjData* md, mjContact* rc, int nr);

// Keep the MuJoCo 2.2.2 contacts of box geoms 0 and 1 that MuJoCo 3.3.8 also reports: those
// whose position x, in a box's frame, satisfies 1.01 |x_k| <= s_k + margin for every k in either
// box, or |x_k| <= 1.01 (s_k + margin) for every k in both (the rule probed on 7,300 scenes; see
// mcc_boxBox). Returns the new count.
int orc_keepLikeMujoco3(const mjModel* mm, const mjData* md, mjContact* rc, int nr,
                        double margin);

// Random numbers (xorshift64*).
typedef struct {
  unsigned long long s;
} OrcRng;
double orc_uniform(OrcRng* r, double lo, double hi);
void orc_quat(OrcRng* r, double q[4]);

#endif  // MODUCO_TESTS_COLLISION_ORACLE_H_
