// Moduco plugin "dcmotor": attribute parsing and resolution (Tables 5-16) into Table 17 storage.
// Unset sub-attributes are 0; every conflicting or incomplete combination is an error that names
// the attribute.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcmotor.h"


// format an error; return 1
static int fail(char* error, int error_sz, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(error, (size_t)error_sz, fmt, ap);
  va_end(ap);
  return 1;
}


// value of attribute key, or NULL
static const char* find(const mcpAttributes* a, const char* key) {
  for (int i = 0; i < a->n; i++) {
    if (!strcmp(a->key[i], key)) {
      return a->value[i];
    }
  }
  return NULL;
}


// read 1..max nonnegative numbers of attribute key into out (zeros first); -1 on a bad value,
// else the count read (0 when absent)
static int readVec(const mcpAttributes* a, const char* key, mcNum* out, int max, char* error,
                   int error_sz) {
  memset(out, 0, sizeof(mcNum) * (size_t)max);
  const char* s = find(a, key);
  if (!s) {
    return 0;
  }
  int n = 0;
  char* end;
  while (1) {
    while (*s == ' ' || *s == '\t' || *s == '\n') {
      s++;
    }
    if (!*s) {
      break;
    }
    double v = strtod(s, &end);
    if (end == s || !isfinite(v)) {
      fail(error, error_sz, "%s:%d: attribute '%s': '%s' is not a number", a->file, a->line, key,
           s);
      return -1;
    }
    if (n >= max) {
      fail(error, error_sz, "%s:%d: attribute '%s' has more than %d values", a->file, a->line,
           key, max);
      return -1;
    }
    out[n++] = v;
    s = end;
  }
  if (n == 0) {
    fail(error, error_sz, "%s:%d: attribute '%s' is empty", a->file, a->line, key);
    return -1;
  }
  return n;
}


#define ERR(...) return fail(error, error_sz, __VA_ARGS__)
#define AT attr->file, attr->line


// the input attribute into *mode: the seed's keywords voltage (0), position (1), velocity (2), or
// MuJoCo 3.12's signature tokens, recognised as such: one of pos, vel, ff (DCM_POS, DCM_VEL,
// DCM_FF) or voltage (0, the same law). 3.12 allows several tokens (one control each) and none (no
// control); a Moduco actuator has exactly one control, so those are refused. 0, or 1 with error
static int dcmotorInput(const mcpAttributes* attr, const char* in, int* mode, char* error,
                        int error_sz) {
  static const char* const words[] = {"voltage", "position", "velocity", "pos", "vel", "ff"};

  // the tokens: their count n and the first one
  char word[16] = "";
  int n = 0;
  for (const char* c = in + strspn(in, " \t\n"); *c; c += strspn(c, " \t\n")) {
    size_t len = strcspn(c, " \t\n");
    if (n++ == 0 && len < sizeof(word)) {
      memcpy(word, c, len);
      word[len] = 0;
    }
    c += len;
  }
  if (n == 1) {
    for (int k = 0; k < 6; k++) {
      if (!strcmp(word, words[k])) {
        *mode = k;  // DCM_POS, DCM_VEL, DCM_FF follow the seed's three
        return 0;
      }
    }
    if (!strcmp(word, "none")) {
      return fail(error, error_sz, "%s:%d: attribute 'input': 'none' (MuJoCo 3.12: an actuator "
                  "without a control) is not supported: a Moduco actuator has one control", AT);
    }
  }
  if (n > 1) {
    return fail(error, error_sz, "%s:%d: attribute 'input': '%s' (MuJoCo 3.12: one control per "
                "token) is not supported: a Moduco actuator has one control; use one of pos, vel, "
                "ff", AT, in);
  }
  return fail(error, error_sz, "%s:%d: attribute 'input': '%s' is not one of voltage, position, "
              "velocity (or MuJoCo 3.12's pos, vel, ff)", AT, in);
}


int dcm_compile(const mcpHost* host, const mcpAttributes* attr, mcpActuatorSpec* spec,
                char* error, int error_sz) {
  (void)host;
  mcNum res[1], kc[2], nom[3], ind[2], th[6], sat[3], cog[3], lg[5], damp[3], arm[1], ctl[6];
  struct {
    const char* key;
    mcNum* v;
    int max;
    int n;
  } vec[] = {
    {"resistance", res, 1, 0}, {"motorconst", kc, 2, 0}, {"nominal", nom, 3, 0},
    {"inductance", ind, 2, 0}, {"thermal", th, 6, 0}, {"saturation", sat, 3, 0},
    {"cogging", cog, 3, 0}, {"lugre", lg, 5, 0}, {"damping", damp, 3, 0},
    {"armature", arm, 1, 0}, {"controller", ctl, 6, 0},
  };
  int nvec = (int)(sizeof(vec) / sizeof(vec[0]));
  for (int k = 0; k < nvec; k++) {
    vec[k].n = readVec(attr, vec[k].key, vec[k].v, vec[k].max, error, error_sz);
    if (vec[k].n < 0) {
      return 1;
    }
    // every value is a magnitude except the cogging phase and the temperatures
    for (int j = 0; j < vec[k].max; j++) {
      int signed_ok = (!strcmp(vec[k].key, "cogging") && j == 2) ||
                      (!strcmp(vec[k].key, "thermal") && j >= 4);
      if (!signed_ok && vec[k].v[j] < 0) {
        ERR("%s:%d: attribute '%s': value %d (%g) must be nonnegative", AT, vec[k].key, j + 1,
            vec[k].v[j]);
      }
    }
  }
  int has_thermal = vec[4].n > 0;

  // input mode: the seed's keyword (voltage, position, velocity: voltage-space gains) or MuJoCo
  // 3.12's signature (pos, vel, ff: torque-space gains, back-EMF compensated; dcmotorInput)
  int mode = 0;
  const char* in = find(attr, "input");
  if (in && dcmotorInput(attr, in, &mode, error, error_sz)) {
    return 1;
  }

  // motor constant: motorconst Kt and/or Ke, or nominal voltage and no-load speed
  mcNum K;
  int from_kc = kc[0] > 0 || kc[1] > 0, from_nom = nom[2] > 0;
  if (from_kc && from_nom) {
    ERR("%s:%d: attributes 'motorconst' and 'nominal' (no_load_speed) both set the motor "
        "constant", AT);
  } else if (from_kc) {
    K = kc[0] > 0 && kc[1] > 0 ? sqrt(kc[0] * kc[1]) : fmax(kc[0], kc[1]);
  } else if (from_nom) {
    if (!(nom[0] > 0)) {
      ERR("%s:%d: attribute 'nominal': no_load_speed needs a positive voltage", AT);
    }
    K = nom[0] / nom[2];
  } else {
    ERR("%s:%d: motor constant undefined: set 'motorconst' or 'nominal' (voltage and "
        "no_load_speed)", AT);
  }

  // resistance: resistance, or nominal voltage and stall torque
  mcNum R;
  if (res[0] > 0 && nom[1] > 0) {
    ERR("%s:%d: attributes 'resistance' and 'nominal' (stall_torque) both set the resistance", AT);
  } else if (res[0] > 0) {
    R = res[0];
  } else if (nom[1] > 0) {
    if (!(nom[0] > 0)) {
      ERR("%s:%d: attribute 'nominal': stall_torque needs a positive voltage", AT);
    }
    R = K * nom[0] / nom[1];
  } else {
    ERR("%s:%d: resistance undefined: set 'resistance' or 'nominal' (voltage and stall_torque)",
        AT);
  }

  // maximum torque: saturation torque or current (or a symmetric forcerange)
  mcNum tmax = 0;
  if (sat[0] > 0 && sat[1] > 0) {
    ERR("%s:%d: attribute 'saturation': torque and current both set the maximum torque", AT);
  }
  tmax = sat[0] > 0 ? sat[0] : K * sat[1];
  int has_fr = spec->forcerange[0] != 0 || spec->forcerange[1] != 0;
  if (has_fr && tmax > 0) {
    ERR("%s:%d: attributes 'forcerange' and 'saturation' both set the maximum torque", AT);
  }
  if (has_fr) {
    if (!(spec->forcerange[1] > 0) || spec->forcerange[0] != -spec->forcerange[1]) {
      ERR("%s:%d: attribute 'forcerange' of a dcmotor must be symmetric, -tau_max tau_max", AT);
    }
    tmax = spec->forcerange[1];
  }

  // damping and armature live in ABI 1.1 fields of the spec
  if ((vec[8].n > 0 || vec[9].n > 0) && (!host || host->abi_minor < 1)) {
    ERR("%s:%d: attributes 'damping' and 'armature' need a core of plugin ABI 1.1", AT);
  }

  // electrical time constant: inductance L (te = L/R) or timeconst
  if (ind[0] > 0 && ind[1] > 0) {
    ERR("%s:%d: attribute 'inductance': L and timeconst both set the electrical time constant",
        AT);
  }
  mcNum te = ind[1] > 0 ? ind[1] : ind[0] / R;

  // thermal: two of resistance, capacitance, timeconst
  mcNum RT = th[0], C = th[1], tT = th[2];
  if (has_thermal && (RT > 0 || C > 0 || tT > 0)) {
    int given = (RT > 0) + (C > 0) + (tT > 0);
    if (given < 2) {
      ERR("%s:%d: attribute 'thermal': needs two of resistance, capacitance and timeconst", AT);
    }
    if (given == 3 && fabs(RT * C - tT) > 1e-9 * tT) {
      ERR("%s:%d: attribute 'thermal': timeconst %g differs from resistance*capacitance %g", AT,
          tT, RT * C);
    }
    if (!(RT > 0)) {
      RT = tT / C;
    }
    if (!(C > 0)) {
      C = tT / RT;
    }
  }
  mcNum T0 = vec[4].n >= 5 ? th[4] : 25, Ta = vec[4].n >= 6 ? th[5] : 25;

  // LuGre: static friction not below Coulomb, Stribeck velocity needed when they differ
  if (lg[0] > 0) {
    if (lg[3] < lg[2]) {
      ERR("%s:%d: attribute 'lugre': static friction %g is below the Coulomb friction %g", AT,
          lg[3], lg[2]);
    }
    if (!(lg[2] > 0 || lg[3] > 0)) {
      ERR("%s:%d: attribute 'lugre': stiffness needs a positive coulomb or static friction", AT);
    }
    if (lg[3] > lg[2] && !(lg[4] > 0)) {
      ERR("%s:%d: attribute 'lugre': static above coulomb friction needs a positive stribeck "
          "velocity", AT);
    }
  }

  // controller: gains by mode (MuJoCo 3.12's signatures: as MuJoCo 3.14 checks them)
  if (mode >= DCM_POS) {
    if (ctl[1] > 0 && mode != DCM_POS) {
      ERR("%s:%d: attribute 'controller': ki needs the pos input (MuJoCo 3.12 signature)", AT);
    }
  } else {
    if (mode == 0 && (ctl[0] > 0 || ctl[1] > 0 || ctl[2] > 0 || ctl[4] > 0)) {
      ERR("%s:%d: attribute 'controller': kp, ki, kd and Imax need input=\"position\" or "
          "\"velocity\"", AT);
    }
    if (mode == 1 && !(ctl[0] > 0)) {
      ERR("%s:%d: input=\"position\" needs a positive controller kp", AT);
    }
    if (mode == 2 && !(ctl[0] > 0 || ctl[1] > 0)) {
      ERR("%s:%d: input=\"velocity\" needs a positive controller kp or ki", AT);
    }
    if (mode == 2 && ctl[2] > 0) {
      ERR("%s:%d: attribute 'controller': kd is not used with input=\"velocity\"", AT);
    }
    if (ctl[4] > 0 && !(ctl[1] > 0)) {
      ERR("%s:%d: attribute 'controller': Imax needs a positive ki", AT);
    }
  }

  // Table 17 storage
  memset(spec->gainprm, 0, sizeof(spec->gainprm));
  memset(spec->dynprm, 0, sizeof(spec->dynprm));
  memset(spec->biasprm, 0, sizeof(spec->biasprm));
  mcNum g[9] = {R, K, th[3], T0, ctl[0], ctl[1], ctl[2], ctl[5], mode};
  mcNum dd[9] = {te, sat[2], RT, C, Ta, lg[0], lg[1], ctl[3], ctl[4]};
  mcNum b[6] = {cog[0], cog[1], cog[2], lg[2], lg[3], lg[4]};
  memcpy(spec->gainprm, g, sizeof(g));
  memcpy(spec->dynprm, dd, sizeof(dd));
  memcpy(spec->biasprm, b, sizeof(b));
  spec->dyntype = mcDYN_USER;
  spec->gaintype = mcGAIN_USER;
  spec->biastype = mcBIAS_USER;
  spec->forcelimited = 0;
  if (host && host->abi_minor >= 1) {
    memcpy(spec->damping, damp, sizeof(spec->damping));
    spec->armature = arm[0];
  }
  spec->forcerange[0] = tmax > 0 ? -tmax : 0;
  spec->forcerange[1] = tmax > 0 ? tmax : 0;
  dcmLayout L;
  dcm_layout(spec->gainprm, spec->dynprm, 0, &L);
  spec->actnum = L.n;
  return 0;
}
