// Moduco viewer: `moduco view` serves a model's live simulation to a browser page.
//
// The server side is a civetweb HTTP + WebSocket server (Debian libcivetweb-dev). It serves a
// fixed list of page assets read from one folder at start (never a path from the client), the
// model description as JSON (GET /model.json), and a WebSocket (/ws) that streams body poses
// and takes control messages. The protocol is described in docs/viewer.md.
#ifndef MODUCO_SDK_VIEWER_VIEWER_H_
#define MODUCO_SDK_VIEWER_VIEWER_H_

#include <signal.h>

#include <moduco/moduco.h>

typedef struct {
  const char* model_name;         // shown in the page (the model file's name)
  const char* asset_dir;          // folder holding the page (index.html, viewer.js, ...)
  const char* bind;               // address to listen on ("127.0.0.1")
  int port;                       // TCP port; 0: any free port (printed)
  double fps;                     // pose frames per second sent to the page
  int paused;                     // start paused
  const double* replay;           // a recording to play instead of simulating: nreplay frames of
  long nreplay;                   // (1 + nq) doubles (time, qpos); NULL: simulate live
} mcvOptions;

// Serve the simulation (or with opt->replay, the recording) of m, whose data is *d (the page
// may swap the solver or integrator: m changes and *d is replaced; delete the final *d) (whose data is d) until *stop becomes non-zero (set it from a signal
// handler). Print the URL on stdout once listening. Return 0 on a clean stop, -1 with a message
// on stderr if the server could not start.
int mcv_serve(mcModel* m, mcData** d, const mcvOptions* opt, volatile sig_atomic_t* stop);

#endif  // MODUCO_SDK_VIEWER_VIEWER_H_
