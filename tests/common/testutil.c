// Moduco tests: small reference routines shared by several suites.
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include <moduco/moduco.h>

#include "engine/constraint.h"
#include "compiler/compiler.h"

void tu_denseSolve(int n, double* A, double* b, double* x) {
  // forward elimination, swapping in the largest pivot of each column
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++) {
      if (fabs(A[r*n + c]) > fabs(A[p*n + c])) {
        p = r;
      }
    }
    for (int k = 0; k < n; k++) {
      double t = A[c*n + k];
      A[c*n + k] = A[p*n + k];
      A[p*n + k] = t;
    }
    double t = b[c];
    b[c] = b[p];
    b[p] = t;
    for (int r = c + 1; r < n; r++) {
      double f = A[r*n + c] / A[c*n + c];
      for (int k = c; k < n; k++) {
        A[r*n + k] -= f * A[c*n + k];
      }
      b[r] -= f * b[c];
    }
  }

  // back substitution (x may be b: row r reads only x[k > r], already final)
  for (int r = n - 1; r >= 0; r--) {
    double s = b[r];
    for (int k = r + 1; k < n; k++) {
      s -= A[r*n + k] * x[k];
    }
    x[r] = s / A[r*n + r];
  }
}


char* tu_readFile(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* text = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (text) {
    size_t got = fread(text, 1, (size_t)n, f);
    text[got] = 0;
  }
  fclose(f);
  return text;
}


FILE* tu_tempFile(char* path, int path_sz) {
  snprintf(path, (size_t)path_sz, "/tmp/moduco-XXXXXX");
  int fd = mkstemp(path);
  FILE* f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (fd >= 0 && !f) {
    close(fd);
    remove(path);
  }
  return f;
}


double tu_uniform(TuRng* r, double lo, double hi) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  unsigned long long x = r->s * 2685821657736338717ULL;
  return lo + (hi - lo) * ((double)(x >> 11) * (1.0 / 9007199254740992.0));
}


//---------------------------------- MuJoCo 3.3.8 under Node ---------------------------------------

#define MJS3_DIR MODUCO_SOURCE_DIR "/tests/mjs3"

// full path of node in PATH into out; 0, or -1 if it is not there
static int findNode(char* out, size_t sz) {
  const char* p = getenv("PATH");
  while (p && *p) {
    const char* e = strchr(p, ':');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    snprintf(out, sz, "%.*s/node", (int)n, p);
    if (n && access(out, X_OK) == 0) {
      return 0;
    }
    p = e ? e + 1 : NULL;
  }
  return -1;
}


const char* tu_mjs3Missing(void) {
  char node[4096];
  if (findNode(node, sizeof(node)) != 0) {
    return "node (Node.js >= 18) is not in PATH: run scripts/setup-debian.sh (it installs nodejs "
           "npm and runs npm ci in tests/mjs3)";
  }
  if (access(MJS3_DIR "/node_modules/mujoco-js/package.json", R_OK) != 0) {
    return MJS3_DIR "/node_modules/mujoco-js is missing: run scripts/setup-debian.sh (npm ci in "
           "tests/mjs3) to install MuJoCo 3.3.8 (mujoco-js 0.0.7)";
  }
  return NULL;
}


const char* tu_mjs314Missing(void) {
  const char* why = tu_mjs3Missing();
  if (!why && access(MJS3_DIR "/node_modules/@mujoco/mujoco/package.json", R_OK) != 0) {
    why = MJS3_DIR "/node_modules/@mujoco/mujoco is missing: run scripts/setup-debian.sh (npm ci "
          "in tests/mjs3) to install MuJoCo 3.14.0 (@mujoco/mujoco 3.14.0)";
  }
  return why;
}


// append s to the growing string *buf (length *len, capacity *cap), single-quoted for sh if quote
static void append(char** buf, size_t* len, size_t* cap, const char* s, int quote) {
  size_t need = *len + 4 * strlen(s) + 4;
  if (need > *cap) {
    *cap = 2 * need;
    *buf = realloc(*buf, *cap);
  }
  char* o = *buf + *len;
  if (quote) {
    *o++ = '\'';
  }
  for (; *s; s++) {
    if (quote && *s == '\'') {
      memcpy(o, "'\\''", 4);
      o += 4;
    } else {
      *o++ = *s;
    }
  }
  if (quote) {
    *o++ = '\'';
  }
  *o = 0;
  *len = (size_t)(o - *buf);
}


char* tu_mjs3Run(const char* script, const char* const* args, int* status, char* err,
                 int err_sz) {
  const char* why = tu_mjs3Missing();
  if (why) {
    snprintf(err, (size_t)err_sz, "%s", why);
    return NULL;
  }
  char node[4096];
  findNode(node, sizeof(node));
  size_t len = 0, cap = 0;
  char* cmd = NULL;
  append(&cmd, &len, &cap, node, 1);
  append(&cmd, &len, &cap, " ", 0);
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", MODUCO_SOURCE_DIR, script);
  append(&cmd, &len, &cap, path, 1);
  for (int i = 0; args && args[i]; i++) {
    append(&cmd, &len, &cap, " ", 0);
    append(&cmd, &len, &cap, args[i], 1);
  }
  FILE* p = popen(cmd, "r");
  if (!p) {
    snprintf(err, (size_t)err_sz, "cannot run %s", cmd);
    free(cmd);
    return NULL;
  }
  free(cmd);
  size_t n = 0, got;
  cap = 1 << 16;
  char* text = malloc(cap);
  while (text && (got = fread(text + n, 1, cap - n - 1, p)) > 0) {
    n += got;
    if (cap - n < 4096) {
      cap *= 2;
      text = realloc(text, cap);
    }
  }
  int rc = pclose(p);
  *status = rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  if (!text) {
    snprintf(err, (size_t)err_sz, "out of memory reading the output of %s", script);
    return NULL;
  }
  text[n] = 0;
  return text;
}


cJSON* tu_mjs3Json(const char* script, const char* const* args, int* status, char* err,
                   int err_sz) {
  int rc;
  char* text = tu_mjs3Run(script, args, &rc, err, err_sz);
  if (!text) {
    return NULL;
  }
  if (status) {
    *status = rc;
  } else if (rc != 0) {
    snprintf(err, (size_t)err_sz, "%s failed (status %d): see its message above", script, rc);
    free(text);
    return NULL;
  }
  cJSON* out = cJSON_Parse(text);
  free(text);
  if (!out) {
    snprintf(err, (size_t)err_sz, "unparsable output of %s (status %d)", script, rc);
    return NULL;
  }
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(out, "version");
  if (!cJSON_IsString(v) || (strcmp(v->valuestring, "3.3.8") != 0 &&
                             strcmp(v->valuestring, "3.14.0") != 0)) {
    snprintf(err, (size_t)err_sz, "%s ran MuJoCo %s, expected 3.3.8 (mujoco-js 0.0.7) or 3.14.0 "
             "(@mujoco/mujoco; run npm ci in tests/mjs3)", script,
             cJSON_IsString(v) ? v->valuestring : "?");
    cJSON_Delete(out);
    return NULL;
  }
  return out;
}


cJSON* tu_mjs3Contacts(const char* const* xmls, int n, char* err, int err_sz) {
  return tu_mjs3Models("tests/collision/contacts_ref.mjs", xmls, n, err, err_sz);
}


cJSON* tu_mjs3Models(const char* script, const char* const* xmls, int n, char* err,
                     int err_sz) {
  char dir[] = "/tmp/moduco-models-XXXXXX";
  if (!mkdtemp(dir)) {
    snprintf(err, (size_t)err_sz, "cannot create a folder in /tmp");
    return NULL;
  }
  char (*names)[16] = calloc((size_t)n + 1, sizeof(*names));
  const char** args = calloc((size_t)n + 2, sizeof(*args));
  cJSON* out = NULL;
  int written = 0;
  if (!names || !args) {
    snprintf(err, (size_t)err_sz, "out of memory");
    goto done;
  }
  args[0] = dir;
  for (; written < n; written++) {
    snprintf(names[written], sizeof(names[written]), "s%05d.xml", written);
    char path[64];
    snprintf(path, sizeof(path), "%s/%s", dir, names[written]);
    FILE* f = fopen(path, "w");
    if (!f || fputs(xmls[written], f) < 0) {
      snprintf(err, (size_t)err_sz, "cannot write %s", path);
      if (f) {
        fclose(f);
        remove(path);
      }
      goto done;
    }
    fclose(f);
    args[written + 1] = names[written];
  }
  out = tu_mjs3Json(script, args, NULL, err, err_sz);
  if (out) {
    const cJSON* models = cJSON_GetObjectItemCaseSensitive(out, "models");
    if (!cJSON_IsArray(models) || cJSON_GetArraySize(models) != n) {
      snprintf(err, (size_t)err_sz, "%s returned %d models, expected %d", script,
               cJSON_IsArray(models) ? cJSON_GetArraySize(models) : -1, n);
      cJSON_Delete(out);
      out = NULL;
    }
  }
done:
  for (int i = 0; i < written; i++) {
    char path[64];
    snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    remove(path);
  }
  rmdir(dir);
  free(names);
  free(args);
  return out;
}


void tu_legacyWeldWeights(mcModel* m) {
  for (int i = 0; i < m->neq; i++) {
    if (m->eq_type[i] == mcEQ_WELD) {
      int b[2] = {m->eq_obj1id[i], m->eq_obj2id[i]};
      for (int k = 0; k < 2; k++) {
        m->body_invweight0[2 * b[k] + 1] = m->body_invweight0[2 * b[k]];
      }
    }
  }
}


void tu_legacyCollision(mcModel* m) {
  m->opt.enableflags &= ~(mcENBL_NATIVECCD | mcENBL_MULTICCD);
  m->opt.enableflags |= mcENBL_LEGACYMARGIN;
}


mcModel* tu_loadLegacyCollision(const char* xml, char* err, int err_sz) {
  mcModel* m = mc_loadXMLString(xml, NULL, err, err_sz);
  if (m) {
    // as if the model said nativeccd="disable": multiccd stays only where the model enables it
    int multi = strstr(xml, "multiccd='enable'") || strstr(xml, "multiccd=\"enable\"");
    tu_legacyCollision(m);
    m->opt.enableflags |= multi ? mcENBL_MULTICCD : 0;
  }
  return m;
}


void tu_randomUnit(TuRng* r, double u[3]) {
  double len;
  do {
    for (int k = 0; k < 3; k++) {
      u[k] = tu_uniform(r, -1, 1);
    }
    len = sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2]);
  } while (len < 0.1 || len > 1);
  for (int k = 0; k < 3; k++) {
    u[k] /= len;
  }
}


double tu_xorshiftUniform(unsigned long long* s, double lo, double hi) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return lo + (hi - lo) * (double)(*s >> 11) / 9007199254740992.0;
}


void tu_randomFreePoses(unsigned long long* s, double* qpos, int n, double spread) {
  for (int b = 0; b < n; b++) {
    double* q = qpos + 7*b;
    for (int k = 0; k < 3; k++) {
      q[k] = tu_xorshiftUniform(s, -spread, spread);
    }
    double len = 0;
    for (int k = 3; k < 7; k++) {
      q[k] = tu_xorshiftUniform(s, -1, 1);
      len += q[k]*q[k];
    }
    for (int k = 3; k < 7; k++) {
      q[k] /= sqrt(len);
    }
  }
}


// a random quaternion; with axis set, a multiple of 90 degrees about a coordinate axis
void tu_randomQuat(TuRng* r, double q[4], int axis) {
  if (axis) {
    int k = (int)tu_uniform(r, 0, 3), turns = (int)tu_uniform(r, 0, 4);
    double h = 0.25*M_PI*turns;
    q[0] = cos(h);
    q[1] = q[2] = q[3] = 0;
    q[1 + k] = sin(h);
    return;
  }
  double u[3];
  tu_randomUnit(r, u);
  double h = tu_uniform(r, 0, M_PI);
  q[0] = cos(h);
  for (int k = 0; k < 3; k++) {
    q[1 + k] = sin(h)*u[k];
  }
}


// "name" mesh of n random points in a box of half sizes s (appended to buf)
void tu_cloudMesh(char* buf, size_t sz, TuRng* r, const char* name, int n, const double s[3]) {
  size_t len = strlen(buf);
  len += (size_t)snprintf(buf + len, sz - len, "<mesh name='%s' vertex='", name);
  for (int i = 0; i < n; i++) {
    len += (size_t)snprintf(buf + len, sz - len, "%.6f %.6f %.6f ", tu_uniform(r, -s[0], s[0]),
                            tu_uniform(r, -s[1], s[1]), tu_uniform(r, -s[2], s[2]));
  }
  snprintf(buf + len, sz - len, "'/>");
}


//---------------------------------- MuJoCo 2.2.2's rules (dyn314) --------------------------------

void tu_legacy222Compile(int on) {
  mcc_setLegacyEig(on);
}


void tu_legacy222(mcModel* m) {
  m->opt.disableflags |= mcDSBL_LEGACY222;
  mcData* d = mc_makeData(m);
  if (d) {
    mc_setConst(m, d);  // the inverse weights by 2.2.2's rule
    mc_deleteData(d);
  }
}


double tu_minContactDist(const mcModel* m, mcData* d) {
  mc_fwdPosition(m, d);
  double md = INFINITY;
  for (int i = 0; i < d->ncon; i++) {
    md = fmin(md, d->contact[i].dist);
  }
  return md;
}
