// Moduco viewer: control messages in, pose frames out (docs/viewer.md).
#include "protocol.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

static const char* kCmdNames[] = {"pause", "play", "step", "reset", "speed"};
#define NCMD ((int)(sizeof(kCmdNames) / sizeof(kCmdNames[0])))


const char* mcv_cmdName(mcvCmdType type) {
  return (int)type >= 0 && (int)type < NCMD ? kCmdNames[type] : "?";
}


// parse the "cmd" member into cmd->type; -1 with a reason if absent or unknown
static int parseType(const cJSON* root, mcvCommand* cmd, char* err, size_t errsz) {
  const cJSON* name = cJSON_GetObjectItemCaseSensitive(root, "cmd");
  if (!cJSON_IsString(name)) {
    snprintf(err, errsz, "a control message needs a string member \"cmd\" (one of pause, play, "
             "step, reset, speed)");
    return -1;
  }
  for (int i = 0; i < NCMD; i++) {
    if (!strcmp(name->valuestring, kCmdNames[i])) {
      cmd->type = (mcvCmdType)i;
      return 0;
    }
  }
  snprintf(err, errsz, "unknown command \"%.64s\" (expected one of pause, play, step, reset, "
           "speed)", name->valuestring);
  return -1;
}


// parse the arguments of step ("n") and speed ("value")
static int parseArgs(const cJSON* root, mcvCommand* cmd, char* err, size_t errsz) {
  if (cmd->type == MCV_CMD_STEP) {
    const cJSON* n = cJSON_GetObjectItemCaseSensitive(root, "n");
    cmd->nstep = 1;
    if (n) {
      double v = cJSON_IsNumber(n) ? n->valuedouble : -1;
      if (!(v >= 1 && v <= MCV_MAXSTEPS && v == floor(v))) {
        snprintf(err, errsz, "step: \"n\" must be a whole number from 1 to %d", MCV_MAXSTEPS);
        return -1;
      }
      cmd->nstep = (int)v;
    }
  } else if (cmd->type == MCV_CMD_SPEED) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(root, "value");
    double s = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!(s >= MCV_MINSPEED && s <= MCV_MAXSPEED)) {
      snprintf(err, errsz, "speed: \"value\" must be a number from %g to %g (real-time factor)",
               MCV_MINSPEED, MCV_MAXSPEED);
      return -1;
    }
    cmd->speed = s;
  }
  return 0;
}


int mcv_parseCommand(const char* msg, size_t len, mcvCommand* cmd, char* err, size_t errsz) {
  memset(cmd, 0, sizeof(*cmd));
  if (len > MCV_MAXMESSAGE) {
    snprintf(err, errsz, "message of %zu bytes is too long (at most %d)", len, MCV_MAXMESSAGE);
    return -1;
  }
  const char* end = NULL;
  cJSON* root = cJSON_ParseWithLengthOpts(msg, len, &end, 0);
  if (!root) {
    size_t at = end && end >= msg ? (size_t)(end - msg) : 0;
    snprintf(err, errsz, "message is not valid JSON (near byte %zu)", at);
    return -1;
  }
  size_t used = end ? (size_t)(end - msg) : len;
  while (used < len && (msg[used] == ' ' || msg[used] == '\t' || msg[used] == '\n' ||
                        msg[used] == '\r')) {
    used++;
  }
  int rc = -1;
  if (used < len) {
    snprintf(err, errsz, "unexpected data after the JSON object (at byte %zu)", used);
  } else if (!cJSON_IsObject(root)) {
    snprintf(err, errsz, "a control message must be a JSON object like {\"cmd\":\"pause\"}");
  } else if (!parseType(root, cmd, err, errsz) && !parseArgs(root, cmd, err, errsz)) {
    rc = 0;
  }
  cJSON_Delete(root);
  return rc;
}


size_t mcv_frameSize(int nbody) {
  return MCV_FRAME_HEADER + (size_t)nbody * 7 * sizeof(float);
}


// little-endian stores (the page reads the frame with a DataView)
static void putU32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; i++) {
    p[i] = (uint8_t)(v >> (8 * i));
  }
}

static void putF64(uint8_t* p, double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  for (int i = 0; i < 8; i++) {
    p[i] = (uint8_t)(u >> (8 * i));
  }
}

static void putF32(uint8_t* p, float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  putU32(p, u);
}


void mcv_encodeFrame(const mcModel* m, const mcData* d, double rtf, int paused, uint8_t* buf) {
  putU32(buf, MCV_FRAME_MAGIC);
  putU32(buf + 4, (uint32_t)m->nbody);
  putF64(buf + 8, d->time);
  putF64(buf + 16, rtf);
  putU32(buf + 24, paused ? 1u : 0u);
  putU32(buf + 28, (uint32_t)d->ncon);
  uint8_t* p = buf + MCV_FRAME_HEADER;
  for (int b = 0; b < m->nbody; b++) {
    for (int k = 0; k < 3; k++, p += 4) {
      putF32(p, (float)d->xpos[3 * b + k]);
    }
    for (int k = 0; k < 4; k++, p += 4) {
      putF32(p, (float)d->xquat[4 * b + k]);
    }
  }
}
