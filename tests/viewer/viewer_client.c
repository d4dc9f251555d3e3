// Test helpers for `moduco view` (see viewer_client.h).
#include "viewer_client.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cjson/cJSON.h>
#include <civetweb.h>

#define QUEUE 4096

struct WsClient {
  struct mg_connection* conn;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  WsMessage q[QUEUE];
  int head, count;
};


static double wallNow(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}


int vs_start(ViewServer* s, const char* model, const char* extra, double timeout) {
  int fd[2];
  if (pipe(fd)) {
    return -1;
  }
  char cmd[2048];
  snprintf(cmd, sizeof(cmd), "exec '%s' view '%s' --port 0 %s", MODUCO_CLI, model,
           extra ? extra : "");
  s->pid = fork();
  if (s->pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    execl("/bin/sh", "sh", "-c", cmd, (char*)NULL);
    _exit(127);
  }
  close(fd[1]);
  s->out = fd[0];
  s->port = -1;
  char line[512];
  size_t n = 0;
  double end = wallNow() + timeout;
  while (n + 1 < sizeof(line) && wallNow() < end) {
    struct pollfd p = {s->out, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) {
      continue;
    }
    ssize_t r = read(s->out, line + n, 1);
    if (r <= 0) {
      break;
    }
    if (line[n++] == '\n') {
      line[n] = 0;
      const char* at = strstr(line, "http://127.0.0.1:");
      if (at) {
        s->port = atoi(at + strlen("http://127.0.0.1:"));
      }
      break;
    }
  }
  if (s->port <= 0) {
    vs_stop(s, 0);
    return -1;
  }
  return 0;
}


int vs_stop(ViewServer* s, double timeout) {
  kill(s->pid, SIGINT);
  double end = wallNow() + timeout;
  int status = 0;
  while (wallNow() < end) {
    if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
      close(s->out);
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    usleep(10000);
  }
  kill(s->pid, SIGKILL);
  waitpid(s->pid, &status, 0);
  close(s->out);
  return -1;
}


int vs_http(int port, const char* method, const char* path, char** body, size_t* len) {
  char err[256];
  struct mg_connection* c = mg_download("127.0.0.1", port, 0, err, sizeof(err),
                                        "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", method, path);
  if (body) {
    *body = NULL;
  }
  if (!c) {
    return -1;
  }
  int status = mg_get_response_info(c)->status_code;
  size_t cap = 1 << 16, n = 0;
  char* buf = malloc(cap + 1);
  int r;
  while (buf && (r = mg_read(c, buf + n, cap - n)) > 0) {
    n += (size_t)r;
    if (n == cap) {
      char* more = realloc(buf, 2 * cap + 1);
      if (!more) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = more;
      cap *= 2;
    }
  }
  mg_close_connection(c);
  if (buf) {
    buf[n] = 0;
  }
  if (body) {
    *body = buf;
  } else {
    free(buf);
  }
  if (len) {
    *len = n;
  }
  return status;
}


static int onData(struct mg_connection* conn, int bits, char* data, size_t len, void* user) {
  WsClient* c = user;
  int opcode = bits & 0xf;
  if (opcode != 1 && opcode != 2) {
    return opcode != 8;
  }
  pthread_mutex_lock(&c->lock);
  if (c->count < QUEUE) {
    WsMessage* m = &c->q[(c->head + c->count) % QUEUE];
    m->opcode = opcode;
    m->data = malloc(len + 1);
    if (m->data) {
      memcpy(m->data, data, len);
      m->data[len] = 0;
      m->len = len;
      c->count++;
      pthread_cond_broadcast(&c->cond);
    }
  }
  pthread_mutex_unlock(&c->lock);
  return 1;
}


WsClient* ws_open(int port) {
  WsClient* c = calloc(1, sizeof(WsClient));
  if (!c) {
    return NULL;
  }
  pthread_mutex_init(&c->lock, NULL);
  pthread_cond_init(&c->cond, NULL);
  char err[256];
  c->conn = mg_connect_websocket_client("127.0.0.1", port, 0, err, sizeof(err), "/ws", NULL,
                                        onData, NULL, c);
  if (!c->conn) {
    fprintf(stderr, "ws_open: %s\n", err);
    free(c);
    return NULL;
  }
  return c;
}


void ws_drain(WsClient* c) {
  pthread_mutex_lock(&c->lock);
  while (c->count > 0) {
    free(c->q[c->head].data);
    c->head = (c->head + 1) % QUEUE;
    c->count--;
  }
  pthread_mutex_unlock(&c->lock);
}


void ws_close(WsClient* c) {
  if (!c) {
    return;
  }
  mg_close_connection(c->conn);
  ws_drain(c);
  pthread_mutex_destroy(&c->lock);
  pthread_cond_destroy(&c->cond);
  free(c);
}


int ws_send(WsClient* c, int opcode, const char* data, size_t len) {
  return mg_websocket_client_write(c->conn, opcode, data, len);
}


int ws_next(WsClient* c, WsMessage* msg, double timeout) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  double t = (double)until.tv_sec + 1e-9 * (double)until.tv_nsec + timeout;
  until.tv_sec = (time_t)t;
  until.tv_nsec = (long)((t - (double)until.tv_sec) * 1e9);
  pthread_mutex_lock(&c->lock);
  while (c->count == 0) {
    if (pthread_cond_timedwait(&c->cond, &c->lock, &until) == ETIMEDOUT) {
      break;
    }
  }
  int got = c->count > 0;
  if (got) {
    *msg = c->q[c->head];
    c->head = (c->head + 1) % QUEUE;
    c->count--;
  }
  pthread_mutex_unlock(&c->lock);
  return got;
}


// next message of one opcode, dropping others
static int nextOf(WsClient* c, int opcode, WsMessage* msg, double timeout) {
  double end = wallNow() + timeout;
  double left;
  while ((left = end - wallNow()) > 0) {
    if (!ws_next(c, msg, left)) {
      return 0;
    }
    if (msg->opcode == opcode) {
      return 1;
    }
    free(msg->data);
  }
  return 0;
}

int ws_nextText(WsClient* c, WsMessage* msg, double timeout) {
  return nextOf(c, 1, msg, timeout);
}

int ws_nextBinary(WsClient* c, WsMessage* msg, double timeout) {
  return nextOf(c, 2, msg, timeout);
}


struct cJSON* ws_nextOfType(WsClient* c, const char* type, const char* other, double timeout) {
  double end = wallNow() + timeout;
  WsMessage m;
  while (ws_nextText(c, &m, end - wallNow())) {
    cJSON* j = cJSON_Parse(m.data);
    free(m.data);
    const cJSON* t = j ? cJSON_GetObjectItem(j, "type") : NULL;
    if (cJSON_IsString(t) &&
        (!strcmp(t->valuestring, type) || (other && !strcmp(t->valuestring, other)))) {
      return j;
    }
    cJSON_Delete(j);
  }
  return NULL;
}


int ws_rawOpen(int port, int rcvbuf) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    return -1;
  }
  if (rcvbuf > 0) {
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
  }
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const char hs[] = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                    "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    "Sec-WebSocket-Version: 13\r\n\r\n";
  char reply[128] = "";
  if (connect(fd, (struct sockaddr*)&a, sizeof(a)) ||
      write(fd, hs, sizeof(hs) - 1) != (ssize_t)(sizeof(hs) - 1) ||
      read(fd, reply, sizeof(reply) - 1) <= 0 || !strstr(reply, " 101 ")) {
    close(fd);
    return -1;
  }
  return fd;
}
