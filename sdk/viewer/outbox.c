// Moduco viewer: per-client message queues (see outbox.h).
//
// A ring of MCV_OUTBOX_SLOTS slots: the producers (the simulation and the WebSocket handlers)
// copy a message into the slot after the last one under the queue's lock; the writer thread
// writes the first slot without the lock (the slot stays counted, so no producer reuses it
// meanwhile), then frees it. Only the writer thread writes to the connection.
#include "outbox.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <civetweb.h>

typedef struct {
  char* data;
  size_t len, cap;
  int opcode;
} Slot;

struct mcvOutbox_ {
  struct mg_connection* conn;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  Slot slot[MCV_OUTBOX_SLOTS];
  int head, count;                // the first queued slot and the number queued
  int closing;
  long dropped;
};


static void* writer(void* arg) {
  mcvOutbox* o = arg;
  pthread_mutex_lock(&o->lock);
  for (;;) {
    while (!o->count && !o->closing) {
      pthread_cond_wait(&o->wake, &o->lock);
    }
    if (o->closing) {
      break;
    }
    Slot* s = &o->slot[o->head];
    pthread_mutex_unlock(&o->lock);
    int rc = mg_websocket_write(o->conn, s->opcode, s->data, s->len);
    pthread_mutex_lock(&o->lock);
    o->head = (o->head + 1) % MCV_OUTBOX_SLOTS;
    o->count--;
    if (rc <= 0 && s->len > 0) {
      break;                      // the connection is gone: wait for the close, write nothing
    }
  }
  pthread_mutex_unlock(&o->lock);
  return NULL;
}


mcvOutbox* mcv_outboxOpen(struct mg_connection* conn) {
  mcvOutbox* o = calloc(1, sizeof(mcvOutbox));
  if (!o) {
    fprintf(stderr, "moduco view: out of memory for a client's queue\n");
    return NULL;
  }
  o->conn = conn;
  pthread_mutex_init(&o->lock, NULL);
  pthread_cond_init(&o->wake, NULL);
  if (pthread_create(&o->thread, NULL, writer, o)) {
    fprintf(stderr, "moduco view: cannot start a client's writer thread\n");
    pthread_cond_destroy(&o->wake);
    pthread_mutex_destroy(&o->lock);
    free(o);
    return NULL;
  }
  return o;
}


int mcv_outboxAccepts(mcvOutbox* o) {
  pthread_mutex_lock(&o->lock);
  int ok = o->count < MCV_OUTBOX_FRAMES;
  if (!ok) {
    o->dropped++;
  }
  pthread_mutex_unlock(&o->lock);
  return ok;
}


int mcv_outboxPush(mcvOutbox* o, int opcode, const void* data, size_t len) {
  pthread_mutex_lock(&o->lock);
  int rc = -1;
  if (o->count < MCV_OUTBOX_SLOTS && !o->closing) {
    Slot* s = &o->slot[(o->head + o->count) % MCV_OUTBOX_SLOTS];
    if (s->cap < len) {
      char* grown = realloc(s->data, len);
      if (grown) {
        s->data = grown;
        s->cap = len;
      }
    }
    if (s->cap >= len) {
      memcpy(s->data, data, len);
      s->len = len;
      s->opcode = opcode;
      o->count++;
      rc = 0;
      pthread_cond_signal(&o->wake);
    }
  }
  if (rc) {
    o->dropped++;
  }
  pthread_mutex_unlock(&o->lock);
  return rc;
}


long mcv_outboxDropped(mcvOutbox* o) {
  pthread_mutex_lock(&o->lock);
  long n = o->dropped;
  pthread_mutex_unlock(&o->lock);
  return n;
}


void mcv_outboxClose(mcvOutbox* o) {
  if (!o) {
    return;
  }
  pthread_mutex_lock(&o->lock);
  o->closing = 1;
  pthread_cond_signal(&o->wake);
  pthread_mutex_unlock(&o->lock);
  pthread_join(o->thread, NULL);
  for (int i = 0; i < MCV_OUTBOX_SLOTS; i++) {
    free(o->slot[i].data);
  }
  pthread_cond_destroy(&o->wake);
  pthread_mutex_destroy(&o->lock);
  free(o);
}


struct mg_connection* mcv_outboxConnection(const mcvOutbox* o) {
  return o->conn;
}
