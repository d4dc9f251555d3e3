// Test helpers for `moduco view`: start the server process, HTTP GET, a WebSocket client that
// queues what it receives.
#ifndef MODUCO_TESTS_VIEWER_VIEWER_CLIENT_H_
#define MODUCO_TESTS_VIEWER_VIEWER_CLIENT_H_

#include <stddef.h>
#include <sys/types.h>

// a started `moduco view` process
typedef struct {
  pid_t pid;
  int port;
  int out;                        // read end of its stdout
} ViewServer;

// Start `moduco view MODEL --port 0 [extra args]` and read the port from its first line within
// timeout seconds; 0 on success, -1 (server killed) on failure.
int vs_start(ViewServer* s, const char* model, const char* extra, double timeout);

// SIGINT, then wait up to timeout s; return the exit status (or -1 if it had to be killed).
int vs_stop(ViewServer* s, double timeout);

// GET (or another method) path; return the status code (-1 if no answer) and the body in *body
// (malloc'ed, NUL-terminated; may be NULL).
int vs_http(int port, const char* method, const char* path, char** body, size_t* len);

// a received WebSocket message
typedef struct {
  int opcode;                     // 1 text, 2 binary
  char* data;                     // NUL-terminated copy
  size_t len;
} WsMessage;

typedef struct WsClient WsClient;

WsClient* ws_open(int port);
void ws_close(WsClient* c);
int ws_send(WsClient* c, int opcode, const char* data, size_t len);
// next message within timeout seconds (1 on success, 0 on timeout); free msg->data
int ws_next(WsClient* c, WsMessage* msg, double timeout);
// next text message (skipping binary frames) within timeout; 1 or 0
int ws_nextText(WsClient* c, WsMessage* msg, double timeout);
// next binary frame (skipping text) within timeout; 1 or 0
int ws_nextBinary(WsClient* c, WsMessage* msg, double timeout);
// drop everything queued
void ws_drain(WsClient* c);

// the next text message whose "type" is type (or, if not NULL, other) within timeout seconds,
// parsed (free with cJSON_Delete); the others are skipped. NULL on timeout.
struct cJSON* ws_nextOfType(WsClient* c, const char* type, const char* other, double timeout);

// A raw TCP connection to 127.0.0.1:port that has done the WebSocket handshake on /ws, with a
// receive buffer of rcvbuf bytes (0: the system's); -1 on failure.
int ws_rawOpen(int port, int rcvbuf);

#endif  // MODUCO_TESTS_VIEWER_VIEWER_CLIENT_H_
