// Moduco viewer: the WebSocket protocol (docs/viewer.md), without any networking.
#ifndef MODUCO_SDK_VIEWER_PROTOCOL_H_
#define MODUCO_SDK_VIEWER_PROTOCOL_H_

#include <stddef.h>
#include <stdint.h>

#include <moduco/moduco.h>

#include "perturb.h"

#define MCV_MAXMESSAGE 4096       // longest control message accepted (bytes)
#define MCV_MAXSTEPS 10000        // most steps one "step" message may ask for
#define MCV_MINSPEED 1.0 / 64     // real-time speed range of "speed"
#define MCV_MAXSPEED 64.0
#define MCV_MAXCTRL 1e10          // largest |ctrl| accepted

// pose frame (binary, little-endian): a 32-byte header, then nbody x 7 float32 (xpos, xquat)
#define MCV_FRAME_MAGIC 0x4656434Du   // "MCVF"
#define MCV_FRAME_MAGIC_B 0x4256434Du // "MCVB": the same frame of the A/B mode's copy B
#define MCV_FRAME_HEADER 32

typedef enum {
  MCV_CMD_PAUSE = 0,
  MCV_CMD_PLAY,
  MCV_CMD_STEP,
  MCV_CMD_RESET,
  MCV_CMD_SPEED,
  MCV_CMD_CTRL,
  MCV_CMD_SEEK,                   // replay only: go to a recorded frame
  MCV_CMD_LOOP,                   // replay only: loop at the end or stop there
  MCV_CMD_CONTACTS,               // live only: send the contacts after each pose frame or not
  MCV_CMD_PERTURB,                // live only: pull a body with the mouse, or let go
  MCV_CMD_SOLVER,                 // live only: choose the constraint solver plugin
  MCV_CMD_INTEGRATOR,             // live only: choose the integrator plugin
  MCV_CMD_AB,                     // live only: run a second copy of the model (A/B) or stop it
} mcvCmdType;

typedef struct {
  mcvCmdType type;
  int nstep;                      // STEP: number of steps (1..MCV_MAXSTEPS)
  double speed;                   // SPEED: real-time factor asked for
  int key;                        // RESET: keyframe index, -1: the model's default state
  int index;                      // CTRL: actuator index
  double value;                   // CTRL: control value
  long frame;                     // SEEK: recorded frame index (checked by the server)
  int loop;                       // LOOP, CONTACTS, AB: the boolean "value"
  mcvPerturb perturb;             // PERTURB
  char name[64];                  // SOLVER, INTEGRATOR: the plugin's name
  int copy;                       // SOLVER, INTEGRATOR: 0 for copy A (the default), 1 for B
} mcvCommand;

// Name of a command type ("pause", ...).
const char* mcv_cmdName(mcvCmdType type);

// Parse one text control message of len bytes (not NUL-terminated) for model m (keyframe and
// actuator indices are checked against it). On success fill cmd and return 0; else write a
// one-line reason to err and return -1.
int mcv_parseCommand(const char* msg, size_t len, const mcModel* m, mcvCommand* cmd, char* err,
                     size_t errsz);

// contact message (binary, little-endian): magic, ncon sent, then per contact 6 float32: the
// position and the contact force in the world frame; at most MCV_MAXCONTACTS contacts
#define MCV_CONTACT_MAGIC 0x4B56434Du  // "MCVK"
#define MCV_MAXCONTACTS 2000

// Bytes of a contact message with room for MCV_MAXCONTACTS contacts.
size_t mcv_contactsCapacity(void);

// Encode the contacts of d (after mc_forward or mc_step) into buf; return the bytes used.
size_t mcv_encodeContacts(const mcModel* m, const mcData* d, uint8_t* buf);

// Bytes of a pose frame for a model with nbody bodies.
size_t mcv_frameSize(int nbody);

// Encode the pose frame of d (xpos, xquat must be current) into buf (mcv_frameSize bytes).
void mcv_encodeFrame(const mcModel* m, const mcData* d, double rtf, int paused, uint8_t* buf);

// The same for the A/B mode's copy B: the magic MCV_FRAME_MAGIC_B.
void mcv_encodeFrameB(const mcModel* m, const mcData* d, double rtf, int paused, uint8_t* buf);

// A warning message for the page: {"type":"warning","warning":i,"count":n,"text":"..."} into
// buf; returns the length (truncated to bufsz - 1).
int mcv_warningMessage(int warning, int count, int info, char* buf, size_t bufsz);

// Escape s for the inside of a JSON string literal into out (truncated to outsz - 1).
void mcv_jsonEscape(const char* s, char* out, size_t outsz);

// The model description sent as GET /model.json: a malloc'ed JSON string (free it), or NULL if
// out of memory.
char* mcv_describeModel(const mcModel* m, const char* name);

#endif  // MODUCO_SDK_VIEWER_PROTOCOL_H_
