// Moduco core: the contact surface properties of MuJoCo 3.14 (private to libmoduco and white-box
// tests): moving surfaces (geom surfacevel) and adhesion (geom adhesion).
//
// Moving surface: each geom's surface moves with the velocity field lin + ang x (p - geom_xpos)
// (lin, ang: geom_surfacevel in the geom frame) on top of the geom's own motion. A contact sees
// the field of geom2 minus that of geom1: its linear part projected onto the tangent plane and
// the normal component of its angular part (spin); the rolling directions see none. It enters
// the constraint reference: the contact rows' efc_vel are the velocities relative to the moving
// surfaces and efc_aref follows them.
//
// Adhesion: the cone of a contact is shifted so it may pull with up to its adhesion a and the
// friction budget becomes mu (f_N + a). MuJoCo 3.14 solves that exactly as a standard cone on
// the shifted force: every row of the contact takes a share s of a (the normal row of an
// elliptic or frictionless contact all of it, each of the 2 (dim - 1) pyramid edges a / (2 (dim
// - 1))), efc_aref grows by s R, and the constant pull -s J' enters qfrc_passive (whatever the
// passive flag). The solvers then see a standard cone; efc_force reports the shifted force (f_N
// + a on the normal) and mc_contactForce the net one.
#ifndef MODUCO_CORE_ENGINE_CONTACT_SURFACE_H_
#define MODUCO_CORE_ENGINE_CONTACT_SURFACE_H_

#include <moduco/moduco.h>

// adhesion of a contact: the geom of higher priority gives its own, equal priorities the sum;
// contacts of explicit <pair>s have none (as in MuJoCo 3.14)
mcNum mc_contactAdhesion(const mcModel* m, const mcContact* con);

// the velocity of the moving surfaces seen by a contact, in its frame: (0, tangent 1, tangent
// 2, spin, 0, 0); 0 when neither geom has a surface velocity (v then zero), else 1
int mc_contactSurfaceVel(const mcModel* m, const mcData* d, const mcContact* con, mcNum v[6]);

// the moving surfaces and the adhesion of the contacts in efc_vel and efc_aref (after
// mc_referenceConstraint's J qvel)
void mc_surfaceReference(const mcModel* m, mcData* d);

// mc_surfaceReference for the contacts [c0, c1) alone: it writes only their rows, so the
// assembly's pool tasks run it on their chunks of contacts (mci_makeConstraint)
void mci_surfaceReferenceRange(const mcModel* m, mcData* d, int c0, int c1);

// the adhesive pull of every contact with rows added to qfrc_passive (after mc_passive)
void mc_adhesionPassive(const mcModel* m, mcData* d);

#endif  // MODUCO_CORE_ENGINE_CONTACT_SURFACE_H_
