// Moduco viewer: control messages in, pose frames out (docs/viewer.md).
#include "protocol.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

static const char* kCmdNames[] = {"pause", "play", "step", "reset", "speed", "ctrl", "seek",
                                  "loop", "contacts", "perturb", "solver", "integrator", "ab"};
#define NCMD ((int)(sizeof(kCmdNames) / sizeof(kCmdNames[0])))


const char* mcv_cmdName(mcvCmdType type) {
  return (int)type >= 0 && (int)type < NCMD ? kCmdNames[type] : "?";
}


// parse the "cmd" member into cmd->type; -1 with a reason if absent or unknown
static int parseType(const cJSON* root, mcvCommand* cmd, char* err, size_t errsz) {
  const cJSON* name = cJSON_GetObjectItemCaseSensitive(root, "cmd");
  if (!cJSON_IsString(name)) {
    snprintf(err, errsz, "a control message needs a string member \"cmd\" (one of pause, play, "
             "step, reset, speed, ctrl, seek, loop, contacts, perturb, solver, integrator, ab)");
    return -1;
  }
  for (int i = 0; i < NCMD; i++) {
    if (!strcmp(name->valuestring, kCmdNames[i])) {
      cmd->type = (mcvCmdType)i;
      return 0;
    }
  }
  snprintf(err, errsz, "unknown command \"%.64s\" (expected one of pause, play, step, reset, "
           "speed, ctrl, seek, loop, contacts, perturb, solver, integrator, ab)", name->valuestring);
  return -1;
}


// a whole number member in [lo, hi]; absent: *out unchanged, 0; else -1 if not such a number
static int wholeMember(const cJSON* root, const char* key, double lo, double hi, int* out) {
  const cJSON* n = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!n) {
    return 0;
  }
  double v = cJSON_IsNumber(n) ? n->valuedouble : -1e300;
  if (!(v >= lo && v <= hi && v == floor(v))) {
    return -1;
  }
  *out = (int)v;
  return 0;
}


// an array member of exactly 3 finite numbers of magnitude at most MCV_MAXCOORD; -1 if not
static int vec3Member(const cJSON* root, const char* key, double out[3]) {
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3) {
    return -1;
  }
  for (int i = 0; i < 3; i++) {
    const cJSON* x = cJSON_GetArrayItem(a, i);
    out[i] = cJSON_IsNumber(x) ? x->valuedouble : NAN;
    if (!(fabs(out[i]) <= MCV_MAXCOORD)) {
      return -1;
    }
  }
  return 0;
}


// perturb: {"body":B} with B = 0 lets go; else "anchor" and "target" (3 numbers each) and
// "mode" ("move" or "rotate")
static int parsePerturb(const cJSON* root, const mcModel* m, mcvPerturb* p, char* err,
                        size_t errsz) {
  p->body = -1;
  if (wholeMember(root, "body", 0, m->nbody - 1, &p->body) || p->body < 0) {
    snprintf(err, errsz, "perturb: \"body\" must be a body index from 1 to %d (0 lets go)",
             m->nbody - 1);
    return -1;
  }
  if (p->body == 0) {
    return 0;
  }
  const cJSON* mode = cJSON_GetObjectItemCaseSensitive(root, "mode");
  if (!cJSON_IsString(mode) ||
      (strcmp(mode->valuestring, "move") && strcmp(mode->valuestring, "rotate"))) {
    snprintf(err, errsz, "perturb: \"mode\" must be \"move\" or \"rotate\"");
    return -1;
  }
  p->rotate = !strcmp(mode->valuestring, "rotate");
  if (vec3Member(root, "anchor", p->anchor) || vec3Member(root, "target", p->target)) {
    snprintf(err, errsz, "perturb: \"anchor\" and \"target\" must be arrays of 3 finite "
             "numbers of magnitude at most %g", MCV_MAXCOORD);
    return -1;
  }
  return 0;
}


// parse the arguments of step ("n"), reset ("key") and speed ("value")
static int parseArgs(const cJSON* root, const mcModel* m, mcvCommand* cmd, char* err,
                     size_t errsz) {
  cmd->nstep = 1;
  cmd->key = -1;
  if (cmd->type == MCV_CMD_STEP) {
    if (wholeMember(root, "n", 1, MCV_MAXSTEPS, &cmd->nstep)) {
      snprintf(err, errsz, "step: \"n\" must be a whole number from 1 to %d", MCV_MAXSTEPS);
      return -1;
    }
  } else if (cmd->type == MCV_CMD_RESET) {
    if (wholeMember(root, "key", 0, m->nkey - 1, &cmd->key)) {
      snprintf(err, errsz, "reset: \"key\" must be a keyframe index from 0 to %d (the model has "
               "%d keyframes)", m->nkey - 1, m->nkey);
      return -1;
    }
  } else if (cmd->type == MCV_CMD_CTRL) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(root, "value");
    cmd->index = -1;
    cmd->value = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (wholeMember(root, "index", 0, m->nu - 1, &cmd->index) || cmd->index < 0) {
      snprintf(err, errsz, "ctrl: \"index\" must be an actuator index from 0 to %d (the model has "
               "%d actuators)", m->nu - 1, m->nu);
      return -1;
    }
    if (!(fabs(cmd->value) <= MCV_MAXCTRL)) {
      snprintf(err, errsz, "ctrl: \"value\" must be a finite number of magnitude at most %g",
               MCV_MAXCTRL);
      return -1;
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
  } else if (cmd->type == MCV_CMD_SEEK) {
    const cJSON* f = cJSON_GetObjectItemCaseSensitive(root, "frame");
    double x = cJSON_IsNumber(f) ? f->valuedouble : -1;
    if (!(x >= 0 && x <= 1e15 && x == floor(x))) {
      snprintf(err, errsz, "seek: \"frame\" must be a whole number, a recorded frame index");
      return -1;
    }
    cmd->frame = (long)x;
  } else if (cmd->type == MCV_CMD_SOLVER || cmd->type == MCV_CMD_INTEGRATOR) {
    const cJSON* n = cJSON_GetObjectItemCaseSensitive(root, "name");
    if (!cJSON_IsString(n) || !n->valuestring[0] || strlen(n->valuestring) >= sizeof(cmd->name)) {
      snprintf(err, errsz, "%s: \"name\" must be a plugin name (a string of 1 to %zu bytes)",
               mcv_cmdName(cmd->type), sizeof(cmd->name) - 1);
      return -1;
    }
    snprintf(cmd->name, sizeof(cmd->name), "%s", n->valuestring);
    const cJSON* c = cJSON_GetObjectItemCaseSensitive(root, "copy");
    if (c && !(cJSON_IsString(c) && (!strcmp(c->valuestring, "a") ||
                                     !strcmp(c->valuestring, "b")))) {
      snprintf(err, errsz, "%s: \"copy\" must be \"a\" or \"b\" (the A/B copies)",
               mcv_cmdName(cmd->type));
      return -1;
    }
    cmd->copy = c && !strcmp(c->valuestring, "b");
  } else if (cmd->type == MCV_CMD_PERTURB) {
    return parsePerturb(root, m, &cmd->perturb, err, errsz);
  } else if (cmd->type == MCV_CMD_LOOP || cmd->type == MCV_CMD_CONTACTS ||
             cmd->type == MCV_CMD_AB) {
    const cJSON* b = cJSON_GetObjectItemCaseSensitive(root, "value");
    if (!cJSON_IsBool(b)) {
      snprintf(err, errsz, "%s: \"value\" must be true or false", mcv_cmdName(cmd->type));
      return -1;
    }
    cmd->loop = cJSON_IsTrue(b);
  }
  return 0;
}


int mcv_parseCommand(const char* msg, size_t len, const mcModel* m, mcvCommand* cmd, char* err,
                     size_t errsz) {
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
  } else if (!parseType(root, cmd, err, errsz) && !parseArgs(root, m, cmd, err, errsz)) {
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


// a pose frame with the given magic
static void encodeFrame(uint32_t magic, const mcModel* m, const mcData* d, double rtf, int paused,
                        uint8_t* buf) {
  putU32(buf, magic);
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


void mcv_encodeFrame(const mcModel* m, const mcData* d, double rtf, int paused, uint8_t* buf) {
  encodeFrame(MCV_FRAME_MAGIC, m, d, rtf, paused, buf);
}


void mcv_encodeFrameB(const mcModel* m, const mcData* d, double rtf, int paused, uint8_t* buf) {
  encodeFrame(MCV_FRAME_MAGIC_B, m, d, rtf, paused, buf);
}


size_t mcv_contactsCapacity(void) {
  return 8 + (size_t)MCV_MAXCONTACTS * 6 * sizeof(float);
}


size_t mcv_encodeContacts(const mcModel* m, const mcData* d, uint8_t* buf) {
  int n = d->ncon < MCV_MAXCONTACTS ? d->ncon : MCV_MAXCONTACTS;
  putU32(buf, MCV_CONTACT_MAGIC);
  putU32(buf + 4, (uint32_t)n);
  uint8_t* p = buf + 8;
  for (int i = 0; i < n; i++) {
    const mcContact* c = d->contact + i;
    mcNum f[6];
    mc_contactForce(m, d, i, f);   // in the contact frame: rotate to the world
    for (int k = 0; k < 3; k++, p += 4) {
      putF32(p, (float)c->pos[k]);
    }
    for (int k = 0; k < 3; k++, p += 4) {
      double w = 0;
      for (int r = 0; r < 3; r++) {
        w += f[r] * c->frame[3 * r + k];
      }
      putF32(p, (float)w);
    }
  }
  return (size_t)(p - buf);
}


void mcv_jsonEscape(const char* s, char* out, size_t outsz) {
  size_t k = 0;
  for (; *s && k + 7 < outsz; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      out[k++] = '\\';
      out[k++] = (char)c;
    } else if (c < 0x20) {
      k += (size_t)snprintf(out + k, outsz - k, "\\u%04x", c);
    } else {
      out[k++] = (char)c;
    }
  }
  out[k] = 0;
}


int mcv_warningMessage(int warning, int count, int info, char* buf, size_t bufsz) {
  char text[512];
  mcv_jsonEscape(mc_warningText(warning, info), text, sizeof(text));
  int n = snprintf(buf, bufsz, "{\"type\":\"warning\",\"warning\":%d,\"count\":%d,\"text\":\"%s\"}",
                   warning, count, text);
  return n < 0 ? 0 : (size_t)n < bufsz ? n : (int)bufsz - 1;
}
