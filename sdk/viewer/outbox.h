// Moduco viewer: a bounded queue of messages to one WebSocket client, written by the client's
// own thread, so a client that stops reading stalls neither the simulation nor other clients.
#ifndef MODUCO_SDK_VIEWER_OUTBOX_H_
#define MODUCO_SDK_VIEWER_OUTBOX_H_

#include <stddef.h>

struct mg_connection;

#define MCV_OUTBOX_SLOTS 32       // messages queued per client at most
#define MCV_OUTBOX_FRAMES 16      // frame groups (poses, stats, contacts) are queued only while
                                  // fewer messages than this wait

typedef struct mcvOutbox_ mcvOutbox;

// Open the queue of conn and start its writer thread. NULL if out of memory (with a message).
mcvOutbox* mcv_outboxOpen(struct mg_connection* conn);

// 1 if a frame group may be queued now (fewer than MCV_OUTBOX_FRAMES messages wait), else 0:
// the caller drops the whole group for this client, which then sees fewer frames.
int mcv_outboxAccepts(mcvOutbox* o);

// Queue a copy of a message (opcode: civetweb's MG_WEBSOCKET_OPCODE_*). Never blocks on the
// network. A full queue drops the message and counts it. The slot buffers grow to the largest
// message seen, so a steady stream allocates nothing. Return 0 if queued, -1 if dropped.
int mcv_outboxPush(mcvOutbox* o, int opcode, const void* data, size_t len);

// Frame groups skipped by mcv_outboxAccepts plus messages dropped by a full queue.
long mcv_outboxDropped(mcvOutbox* o);

// Stop the writer thread (after the write in progress, if any), drop what is queued and free.
// Call it once the connection is closing (civetweb's close handler). Nullable: o.
void mcv_outboxClose(mcvOutbox* o);

// The connection the queue writes to.
struct mg_connection* mcv_outboxConnection(const mcvOutbox* o);

#endif  // MODUCO_SDK_VIEWER_OUTBOX_H_
