// Conformance models: inline MJCF texts and generators, all contact-free.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"

#define HUMANOID_FILE "/usr/share/mujoco/model/humanoid/humanoid.xml"

// geoms never collide in these models
#define NO_CONTACT_DEFAULT "<default><geom contype=\"0\" conaffinity=\"0\"/></default>\n"

const char* const conf_model_names[] = {
  "pendulum", "double_pendulum", "hinge_chain", "ball_chain", "free_bodies", "slide_springs",
  "hinge_springs", "actuators", "mixed_joints", "humanoid",
};
const int conf_model_count = (int)(sizeof(conf_model_names) / sizeof(conf_model_names[0]));

//---------------------------------- string builder ------------------------------------------------

void conf_printf(ConfText* t, const char* fmt, ...) {
  for (;;) {
    size_t room = t->cap - t->len;
    va_list ap;
    va_start(ap, fmt);
    int n = t->buf ? vsnprintf(t->buf + t->len, room, fmt, ap) : -1;
    va_end(ap);
    if (n >= 0 && (size_t)n < room) {
      t->len += (size_t)n;
      return;
    }

    // grow and retry
    size_t cap = t->cap ? 2 * t->cap : 4096;
    while (n >= 0 && cap - t->len <= (size_t)n) {
      cap *= 2;
    }
    char* buf = realloc(t->buf, cap);
    if (!buf) {
      abort();
    }
    t->buf = buf;
    t->cap = cap;
  }
}


//---------------------------------- random numbers ------------------------------------------------

void conf_seed(ConfRng* r, unsigned long long seed) {
  r->s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
  if (!r->s) {
    r->s = 1;
  }
}


// next 64 random bits (xorshift64*)
static unsigned long long nextBits(ConfRng* r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 0x2545F4914F6CDD1Dull;
}


double conf_uniform(ConfRng* r, double lo, double hi) {
  double u = (double)(nextBits(r) >> 11) * (1.0 / 9007199254740992.0);
  return lo + (hi - lo) * u;
}


int conf_int(ConfRng* r, int lo, int hi) {
  return lo + (int)(nextBits(r) % (unsigned long long)(hi - lo + 1));
}


void conf_quat(ConfRng* r, double q[4]) {
  double n = 0;
  while (n < 1e-3) {
    n = 0;
    for (int i = 0; i < 4; i++) {
      q[i] = conf_uniform(r, -1, 1);
      n += q[i] * q[i];
    }
  }
  n = sqrt(n);
  for (int i = 0; i < 4; i++) {
    q[i] /= n;
  }
}


static const char kPendulum[] =
  "<mujoco model=\"pendulum\">\n"
  "  " NO_CONTACT_DEFAULT
  "  <worldbody>\n"
  "    <body name=\"pole\" pos=\"0 0 1\">\n"
  "      <joint name=\"swing\" type=\"hinge\" axis=\"0 1 0\"/>\n"
  "      <geom type=\"capsule\" fromto=\"0 0 0 0.1 0 -0.5\" size=\"0.04\"/>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "</mujoco>\n";

static const char kDoublePendulum[] =
  "<mujoco model=\"double_pendulum\">\n"
  "  " NO_CONTACT_DEFAULT
  "  <option timestep=\"0.001\"/>\n"
  "  <worldbody>\n"
  "    <body name=\"upper\" pos=\"0 0 2\">\n"
  "      <joint name=\"shoulder\" type=\"hinge\" axis=\"0 1 0\" damping=\"0.02\"/>\n"
  "      <geom type=\"capsule\" fromto=\"0 0 0 0 0 -0.6\" size=\"0.05\"/>\n"
  "      <body name=\"lower\" pos=\"0 0 -0.6\">\n"
  "        <joint name=\"elbow\" type=\"hinge\" axis=\"0 1 0\"/>\n"
  "        <geom type=\"capsule\" fromto=\"0 0 0 0 0 -0.5\" size=\"0.04\"/>\n"
  "        <geom type=\"sphere\" pos=\"0 0 -0.5\" size=\"0.1\"/>\n"
  "      </body>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "</mujoco>\n";

static const char kFreeBodies[] =
  "<mujoco model=\"free_bodies\">\n"
  "  " NO_CONTACT_DEFAULT
  "  <worldbody>\n"
  "    <body name=\"brick\" pos=\"0 0 1\" quat=\"0.9 0.1 0.3 0.2\">\n"
  "      <joint type=\"free\"/>\n"
  "      <inertial pos=\"0.05 -0.02 0.01\" quat=\"0.8 0.2 -0.4 0.1\" mass=\"2.5\"\n"
  "                diaginertia=\"0.03 0.05 0.07\"/>\n"
  "      <geom type=\"box\" size=\"0.2 0.1 0.05\"/>\n"
  "    </body>\n"
  "    <body name=\"egg\" pos=\"1 0 1\">\n"
  "      <joint type=\"free\" damping=\"0.1\" armature=\"0.02\"/>\n"
  "      <geom type=\"ellipsoid\" size=\"0.1 0.2 0.3\" pos=\"0.02 0 0\" quat=\"0.7 0.7 0 0\"/>\n"
  "    </body>\n"
  "    <body name=\"can\" pos=\"-1 0.5 1\">\n"
  "      <freejoint/>\n"
  "      <geom type=\"cylinder\" size=\"0.1 0.25\" quat=\"0.5 0.5 0.5 0.5\"/>\n"
  "      <geom type=\"sphere\" size=\"0.05\" pos=\"0 0.3 0\"/>\n"
  "    </body>\n"
  "    <body name=\"top\" pos=\"0 -1 1\">\n"
  "      <joint type=\"free\"/>\n"
  "      <inertial pos=\"0 0 0\" mass=\"1\" fullinertia=\"0.04 0.06 0.08 0.005 -0.003 0.002\"/>\n"
  "      <geom type=\"capsule\" size=\"0.05 0.1\"/>\n"
  "      <body name=\"flap\" pos=\"0.2 0 0\">\n"
  "        <joint type=\"hinge\" axis=\"0 0 1\" stiffness=\"0.5\" damping=\"0.05\"/>\n"
  "        <geom type=\"box\" size=\"0.1 0.02 0.05\" pos=\"0.1 0 0\"/>\n"
  "      </body>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "</mujoco>\n";

static const char kSlideSprings[] =
  "<mujoco model=\"slide_springs\">\n"
  "  " NO_CONTACT_DEFAULT
  "  <option gravity=\"0.3 -0.2 -9.81\"/>\n"
  "  <worldbody>\n"
  "    <body name=\"cart\" pos=\"0 0 1\">\n"
  "      <joint name=\"x\" type=\"slide\" axis=\"1 0 0\" stiffness=\"20\" springref=\"0.1\"\n"
  "             damping=\"0.5\"/>\n"
  "      <geom type=\"box\" size=\"0.2 0.1 0.1\"/>\n"
  "      <body name=\"slider\" pos=\"0 0 -0.1\">\n"
  "        <joint name=\"y\" type=\"slide\" axis=\"0 1 0.2\" stiffness=\"5\" springref=\"-0.2\"/>\n"
  "        <geom type=\"sphere\" size=\"0.08\"/>\n"
  "        <body name=\"bob\" pos=\"0 0 -0.2\">\n"
  "          <joint name=\"z\" type=\"slide\" axis=\"0 0 1\" stiffness=\"50\" springref=\"0.05\"\n"
  "                 damping=\"1\" armature=\"0.1\"/>\n"
  "          <joint name=\"tilt\" type=\"hinge\" axis=\"1 0 0\" stiffness=\"2\" springref=\"0.3\"\n"
  "                 damping=\"0.1\"/>\n"
  "          <geom type=\"capsule\" fromto=\"0 0 0 0 0.1 -0.3\" size=\"0.03\"/>\n"
  "        </body>\n"
  "      </body>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "</mujoco>\n";

static const char kHingeSprings[] =
  "<mujoco model=\"hinge_springs\">\n"
  "  " NO_CONTACT_DEFAULT
  "  <compiler angle=\"radian\"/>\n"
  "  <worldbody>\n"
  "    <body name=\"a\" pos=\"0 0 1\" quat=\"0.95 0.1 0.2 0.2\">\n"
  "      <joint name=\"ja\" type=\"hinge\" axis=\"0 1 0\" pos=\"0 0 0.1\" stiffness=\"3\"\n"
  "             springref=\"0.4\" damping=\"0.2\" armature=\"0.05\"/>\n"
  "      <geom type=\"capsule\" fromto=\"0 0 0 0.3 0 0\" size=\"0.04\"/>\n"
  "      <body name=\"b\" pos=\"0.3 0 0\">\n"
  "        <joint name=\"jb\" type=\"hinge\" axis=\"0 0.6 0.8\" stiffness=\"1.5\"\n"
  "               springref=\"-0.7\" damping=\"0.1\" armature=\"0.02\"/>\n"
  "        <geom type=\"box\" size=\"0.15 0.03 0.03\" pos=\"0.15 0 0\"/>\n"
  "        <body name=\"c\" pos=\"0.3 0 0\">\n"
  "          <joint name=\"jc\" type=\"hinge\" axis=\"1 0 0\" pos=\"-0.05 0 0\" stiffness=\"0.5\"\n"
  "                 springref=\"1.2\" armature=\"0.01\"/>\n"
  "          <geom type=\"ellipsoid\" size=\"0.1 0.05 0.03\" pos=\"0.1 0 0\"/>\n"
  "        </body>\n"
  "      </body>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "</mujoco>\n";

static const char kActuators[] =
  "<mujoco model=\"actuators\">\n"
  "  " NO_CONTACT_DEFAULT
  "  <worldbody>\n"
  "    <body name=\"base\" pos=\"0 0 1\">\n"
  "      <joint name=\"j1\" type=\"hinge\" axis=\"0 0 1\" damping=\"0.1\"/>\n"
  "      <geom type=\"capsule\" fromto=\"0 0 0 0.3 0 0\" size=\"0.05\"/>\n"
  "      <body name=\"l2\" pos=\"0.3 0 0\">\n"
  "        <joint name=\"j2\" type=\"hinge\" axis=\"0 1 0\" armature=\"0.01\"/>\n"
  "        <geom type=\"capsule\" fromto=\"0 0 0 0.3 0 0\" size=\"0.04\"/>\n"
  "        <body name=\"l3\" pos=\"0.3 0 0\">\n"
  "          <joint name=\"j3\" type=\"hinge\" axis=\"1 0 0\"/>\n"
  "          <geom type=\"capsule\" fromto=\"0 0 0 0.25 0 0\" size=\"0.035\"/>\n"
  "          <body name=\"l4\" pos=\"0.25 0 0\">\n"
  "            <joint name=\"j4\" type=\"hinge\" axis=\"0 1 0\" stiffness=\"1\"/>\n"
  "            <geom type=\"capsule\" fromto=\"0 0 0 0.2 0 0\" size=\"0.03\"/>\n"
  "            <body name=\"l5\" pos=\"0.2 0 0\">\n"
  "              <joint name=\"j5\" type=\"hinge\" axis=\"0 0 1\" damping=\"0.05\"/>\n"
  "              <geom type=\"box\" size=\"0.08 0.02 0.02\" pos=\"0.08 0 0\"/>\n"
  "              <body name=\"l6\" pos=\"0.16 0 0\">\n"
  "                <joint name=\"j6\" type=\"slide\" axis=\"1 0 0\" damping=\"0.5\"/>\n"
  "                <geom type=\"sphere\" size=\"0.05\"/>\n"
  "              </body>\n"
  "            </body>\n"
  "          </body>\n"
  "        </body>\n"
  "      </body>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "  <actuator>\n"
  "    <motor name=\"m1\" joint=\"j1\" gear=\"2\" ctrllimited=\"true\" ctrlrange=\"-1 1\"/>\n"
  "    <position name=\"p2\" joint=\"j2\" kp=\"10\" ctrllimited=\"true\" ctrlrange=\"-0.5 0.5\"/>\n"
  "    <velocity name=\"v3\" joint=\"j3\" kv=\"2\" forcelimited=\"true\"\n"
  "              forcerange=\"-0.3 0.3\"/>\n"
  "    <general name=\"a6\" joint=\"j6\" gear=\"1.5\" gaintype=\"affine\" gainprm=\"3 -1 0.5\"\n"
  "             biastype=\"affine\" biasprm=\"0 -5 -0.5\" forcelimited=\"true\"\n"
  "             forcerange=\"-1 0.8\" ctrllimited=\"true\" ctrlrange=\"-2 2\"/>\n"
  "    <motor name=\"m7\" joint=\"j2\" gear=\"-0.7\"/>\n"
  "    <general name=\"i4\" joint=\"j4\" dyntype=\"integrator\" dynprm=\"1\" gainprm=\"2\"\n"
  "             actlimited=\"true\" actrange=\"-0.5 0.5\" ctrllimited=\"true\"\n"
  "             ctrlrange=\"-1 1\"/>\n"
  "    <general name=\"f5\" joint=\"j5\" dyntype=\"filter\" dynprm=\"0.05\" gaintype=\"affine\"\n"
  "             gainprm=\"1 0.5 -0.2\" biastype=\"affine\" biasprm=\"0.1 -2 -0.3\"/>\n"
  "    <general name=\"i8\" joint=\"j3\" dyntype=\"integrator\" dynprm=\"1\" gainprm=\"0.5\"/>\n"
  "  </actuator>\n"
  "</mujoco>\n";

static const char kMixedJoints[] =
  "<mujoco model=\"mixed_joints\">\n"
  "  " NO_CONTACT_DEFAULT
  "  <worldbody>\n"
  "    <body name=\"root\" pos=\"0 0 1\">\n"
  "      <joint type=\"slide\" axis=\"1 0 0\" damping=\"0.2\"/>\n"
  "      <joint type=\"slide\" axis=\"0 1 0\" stiffness=\"3\"/>\n"
  "      <joint type=\"hinge\" axis=\"0 0 1\" pos=\"0.05 0 0\" armature=\"0.01\"/>\n"
  "      <geom type=\"box\" size=\"0.1 0.1 0.05\"/>\n"
  "      <body name=\"arm\" pos=\"0.1 0 0\" quat=\"0.9 0 0.3 0.2\">\n"
  "        <joint type=\"hinge\" axis=\"0 1 0\" pos=\"0.1 0 0\"/>\n"
  "        <joint type=\"ball\" damping=\"0.05\" stiffness=\"0.4\" armature=\"0.01\"/>\n"
  "        <geom type=\"capsule\" fromto=\"0 0 0 0.3 0 0\" size=\"0.03\"/>\n"
  "        <body name=\"weld\" pos=\"0.3 0 0\">\n"
  "          <geom type=\"sphere\" size=\"0.06\" pos=\"0.02 0 0\"/>\n"
  "          <body name=\"tip\" pos=\"0.05 0 0\">\n"
  "            <joint type=\"slide\" axis=\"0.6 0 0.8\" damping=\"0.3\"/>\n"
  "            <geom type=\"cylinder\" size=\"0.02 0.05\"/>\n"
  "          </body>\n"
  "        </body>\n"
  "      </body>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "</mujoco>\n";


// a chain of n hinge links with alternating axes, damping and armature
static char* hingeChain(int n) {
  ConfText t = {0};
  static const char* axes[] = {"0 1 0", "1 0 0", "0 0 1", "0 0.6 0.8"};
  conf_printf(&t, "<mujoco model=\"hinge_chain\">\n  " NO_CONTACT_DEFAULT "  <worldbody>\n");
  for (int i = 0; i < n; i++) {
    conf_printf(&t, "%*s<body name=\"link%d\" pos=\"%s\">\n", 4 + 2 * i, "", i,
                i ? "0 0 -0.15" : "0 0 3");
    conf_printf(&t, "%*s<joint type=\"hinge\" axis=\"%s\" damping=\"%g\" armature=\"%g\"/>\n",
                6 + 2 * i, "", axes[i % 4], 0.01 * (i % 3), 0.002 * (i % 4));
    conf_printf(&t, "%*s<geom type=\"capsule\" fromto=\"0 0 0 0.02 0 -0.15\" size=\"%g\"/>\n",
                6 + 2 * i, "", 0.03 - 0.0005 * i);
  }
  for (int i = n - 1; i >= 0; i--) {
    conf_printf(&t, "%*s</body>\n", 4 + 2 * i, "");
  }
  conf_printf(&t, "  </worldbody>\n</mujoco>\n");
  return t.buf;
}


// a chain of ball joints, some with springs
static char* ballChain(int n) {
  ConfText t = {0};
  conf_printf(&t, "<mujoco model=\"ball_chain\">\n  " NO_CONTACT_DEFAULT "  <worldbody>\n");
  for (int i = 0; i < n; i++) {
    conf_printf(&t, "%*s<body name=\"b%d\" pos=\"%s\">\n", 4 + 2 * i, "", i,
                i ? "0.25 0 0" : "0 0 2");
    conf_printf(&t, "%*s<joint type=\"ball\" damping=\"%g\" stiffness=\"%g\" armature=\"%g\"/>\n",
                6 + 2 * i, "", 0.02 * (i % 2), 0.3 * (i % 3), 0.005);
    conf_printf(&t, "%*s<geom type=\"capsule\" fromto=\"0 0 0 0.25 0 0\" size=\"0.04\"/>\n",
                6 + 2 * i, "");
  }
  for (int i = n - 1; i >= 0; i--) {
    conf_printf(&t, "%*s</body>\n", 4 + 2 * i, "");
  }
  conf_printf(&t, "  </worldbody>\n</mujoco>\n");
  return t.buf;
}


// copy a string (caller frees)
static char* duplicate(const char* s) {
  size_t n = strlen(s) + 1;
  char* c = malloc(n);
  if (c) {
    memcpy(c, s, n);
  }
  return c;
}


char* conf_modelXml(const char* name) {
  if (!strncmp(name, "tree:", 5)) {
    return conf_randomTree(strtoull(name + 5, NULL, 10));
  }
  if (!strcmp(name, "pendulum")) {
    return duplicate(kPendulum);
  }
  if (!strcmp(name, "double_pendulum")) {
    return duplicate(kDoublePendulum);
  }
  if (!strcmp(name, "hinge_chain")) {
    return hingeChain(25);
  }
  if (!strcmp(name, "ball_chain")) {
    return ballChain(6);
  }
  if (!strcmp(name, "free_bodies")) {
    return duplicate(kFreeBodies);
  }
  if (!strcmp(name, "slide_springs")) {
    return duplicate(kSlideSprings);
  }
  if (!strcmp(name, "hinge_springs")) {
    return duplicate(kHingeSprings);
  }
  if (!strcmp(name, "actuators")) {
    return duplicate(kActuators);
  }
  if (!strcmp(name, "mixed_joints")) {
    return duplicate(kMixedJoints);
  }
  if (!strcmp(name, "humanoid")) {
    return conf_readWithoutContacts(HUMANOID_FILE);
  }
  return NULL;
}


//---------------------------------- random tree ---------------------------------------------------

// write a random unit quaternion attribute
static void quatAttr(ConfText* t, ConfRng* r, const char* attr) {
  double q[4];
  conf_quat(r, q);
  conf_printf(t, " %s=\"%.6f %.6f %.6f %.6f\"", attr, q[0], q[1], q[2], q[3]);
}


// write a random vector attribute with components in [lo, hi]
static void vecAttr(ConfText* t, ConfRng* r, const char* attr, double lo, double hi) {
  conf_printf(t, " %s=\"%.4f %.4f %.4f\"", attr, conf_uniform(r, lo, hi),
              conf_uniform(r, lo, hi), conf_uniform(r, lo, hi));
}


// write a random unit axis attribute
static void axisAttr(ConfText* t, ConfRng* r) {
  double q[4];
  conf_quat(r, q);
  conf_printf(t, " axis=\"%.4f %.4f %.4f\"", q[1], q[2], q[3]);
}


// write one random geom
static void randomGeom(ConfText* t, ConfRng* r) {
  static const char* types[] = {"sphere", "capsule", "box", "ellipsoid", "cylinder"};
  int type = conf_int(r, 0, 4);
  conf_printf(t, "<geom type=\"%s\"", types[type]);
  if (type == 1 && conf_int(r, 0, 1)) {
    conf_printf(t, " fromto=\"0 0 0 %.4f %.4f %.4f\" size=\"%.4f\"", conf_uniform(r, -0.2, 0.2),
                conf_uniform(r, -0.2, 0.2), conf_uniform(r, 0.05, 0.3),
                conf_uniform(r, 0.03, 0.06));
  } else {
    vecAttr(t, r, "pos", -0.1, 0.1);
    quatAttr(t, r, "quat");
    conf_printf(t, " size=\"%.4f %.4f %.4f\"", conf_uniform(r, 0.05, 0.15),
                conf_uniform(r, 0.05, 0.15), conf_uniform(r, 0.05, 0.15));
  }
  if (conf_int(r, 0, 2) == 0) {
    conf_printf(t, " density=\"%.1f\"", conf_uniform(r, 200, 2000));
  }
  conf_printf(t, "/>\n");
}


// joints are numbered from 0 in each tree
static int g_joint_counter = 0;


// write one random joint of a body that is not a free root
static void randomJoint(ConfText* t, ConfRng* r, int type, int* nmotor, ConfText* act) {
  static const char* names[] = {"hinge", "slide", "ball"};
  int id = g_joint_counter++;
  conf_printf(t, "<joint name=\"j%d\" type=\"%s\"", id, names[type]);
  vecAttr(t, r, "pos", -0.05, 0.05);
  if (type != 2) {
    axisAttr(t, r);
  }
  if (conf_int(r, 0, 1)) {
    conf_printf(t, " stiffness=\"%.4f\"", conf_uniform(r, 0, 2));
    if (type != 2) {
      conf_printf(t, " springref=\"%.4f\"", conf_uniform(r, -0.5, 0.5));
    }
  }
  if (conf_int(r, 0, 1)) {
    conf_printf(t, " damping=\"%.4f\"", conf_uniform(r, 0, 0.05));
  }
  conf_printf(t, " armature=\"%.4f\"/>\n", conf_uniform(r, 0.005, 0.05));

  // sometimes a motor on a hinge or slide
  if (type != 2 && conf_int(r, 0, 2) == 0) {
    conf_printf(act, "    <motor joint=\"j%d\" gear=\"%.3f\"", id, conf_uniform(r, -2, 2));
    if (conf_int(r, 0, 1)) {
      conf_printf(act, " ctrllimited=\"true\" ctrlrange=\"-0.5 0.7\"");
    }
    conf_printf(act, "/>\n");
    (*nmotor)++;
  }
}


char* conf_randomTree(unsigned long long seed) {
  ConfRng r;
  conf_seed(&r, seed);
  g_joint_counter = 0;
  int nbody = conf_int(&r, 2, 14);
  int parent[16];
  int freeroot[16];

  // topology: body 1 hangs from the world, later bodies from any earlier one (or the world)
  for (int i = 1; i <= nbody; i++) {
    parent[i] = i == 1 || conf_int(&r, 0, 5) == 0 ? 0 : conf_int(&r, 1, i - 1);
    freeroot[i] = parent[i] == 0 && conf_int(&r, 0, 1);
  }

  // bodies in depth-first order, with actuators collected separately
  ConfText t = {0};
  ConfText act = {0};
  int nmotor = 0;
  conf_printf(&act, "  <actuator>\n");
  conf_printf(&t, "<mujoco model=\"tree%llu\">\n  " NO_CONTACT_DEFAULT "  <worldbody>\n", seed);
  int stack[16], depth = 0, next[16];
  stack[depth] = 0;
  next[0] = 1;
  while (depth >= 0) {
    int b = stack[depth];

    // next child of b not yet emitted
    int c = next[depth];
    while (c <= nbody && parent[c] != b) {
      c++;
    }
    if (c > nbody) {
      if (b) {
        conf_printf(&t, "%*s</body>\n", 2 + 2 * depth, "");
      }
      depth--;
      continue;
    }
    next[depth] = c + 1;

    // open the child
    int ind = 4 + 2 * depth;
    conf_printf(&t, "%*s<body name=\"b%d\"", ind, "", c);
    if (parent[c] == 0) {
      conf_printf(&t, " pos=\"%.3f %.3f 1\"", conf_uniform(&r, -1, 1), conf_uniform(&r, -1, 1));
    } else {
      vecAttr(&t, &r, "pos", -0.3, 0.3);
    }
    quatAttr(&t, &r, "quat");
    conf_printf(&t, ">\n");

    // joints: a free root, or up to three hinge/slide/ball joints (at most one ball)
    if (freeroot[c]) {
      conf_printf(&t, "%*s<joint type=\"free\"", ind + 2, "");
      if (conf_int(&r, 0, 1)) {
        conf_printf(&t, " damping=\"%.4f\"", conf_uniform(&r, 0, 0.05));
      }
      conf_printf(&t, " armature=\"%.4f\"/>\n", conf_uniform(&r, 0, 0.02));
    } else {
      int njnt = conf_int(&r, 0, 3);
      int types[3];
      int ball = 0;
      for (int j = 0; j < njnt; j++) {
        types[j] = conf_int(&r, 0, 2);
        if (types[j] == 2 && ball) {
          types[j] = 0;
        }
        ball |= types[j] == 2;
      }

      // MuJoCo wants the ball joint after the other joints of a body
      for (int j = 0; j + 1 < njnt; j++) {
        if (types[j] == 2) {
          types[j] = types[j + 1];
          types[j + 1] = 2;
        }
      }
      for (int j = 0; j < njnt; j++) {
        conf_printf(&t, "%*s", ind + 2, "");
        randomJoint(&t, &r, types[j], &nmotor, &act);
      }
    }

    // mass: an explicit inertial and/or geoms
    int inertial = conf_int(&r, 0, 3) == 0;
    if (inertial) {
      conf_printf(&t, "%*s<inertial", ind + 2, "");
      vecAttr(&t, &r, "pos", -0.1, 0.1);
      quatAttr(&t, &r, "quat");
      conf_printf(&t, " mass=\"%.4f\" diaginertia=\"%.5f %.5f %.5f\"/>\n",
                  conf_uniform(&r, 0.2, 3), conf_uniform(&r, 0.005, 0.01),
                  conf_uniform(&r, 0.005, 0.01), conf_uniform(&r, 0.005, 0.01));
    }
    int ngeom = conf_int(&r, inertial ? 0 : 1, 2);
    for (int g = 0; g < ngeom; g++) {
      conf_printf(&t, "%*s", ind + 2, "");
      randomGeom(&t, &r);
    }

    // descend
    depth++;
    stack[depth] = c;
    next[depth] = 1;
  }
  conf_printf(&t, "  </worldbody>\n");
  conf_printf(&act, "  </actuator>\n");
  if (nmotor) {
    conf_printf(&t, "%s", act.buf);
  }
  conf_printf(&t, "</mujoco>\n");
  free(act.buf);
  return t.buf;
}


//---------------------------------- contact-disabled files ----------------------------------------

#define FLAGS "<flag contact=\"disable\" constraint=\"disable\"/>"


char* conf_disableContacts(const char* xml) {
  ConfText t = {0};
  const char* opt = strstr(xml, "<option");
  while (opt && !strchr(" \t\r\n/>", opt[7])) {
    opt = strstr(opt + 7, "<option");
  }

  // no option element: add one after the root element's start tag
  if (!opt) {
    const char* root = strstr(xml, "<mujoco");
    const char* end = root ? strchr(root, '>') : NULL;
    if (!end) {
      return NULL;
    }
    conf_printf(&t, "%.*s<option>" FLAGS "</option>%s", (int)(end + 1 - xml), xml, end + 1);
    return t.buf;
  }

  // an option element: open it up if self-closing, then add the flag child
  const char* end = strchr(opt, '>');
  if (!end) {
    return NULL;
  }
  if (end[-1] == '/') {
    conf_printf(&t, "%.*s>" FLAGS "</option>%s", (int)(end - 1 - xml), xml, end + 1);
  } else {
    conf_printf(&t, "%.*s" FLAGS "%s", (int)(end + 1 - xml), xml, end + 1);
  }
  return t.buf;
}


char* conf_readWithoutContacts(const char* file) {
  FILE* f = fopen(file, "rb");
  if (!f) {
    return NULL;
  }
  ConfText t = {0};
  char chunk[4096];
  size_t n;
  conf_printf(&t, "%s", "");
  while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
    conf_printf(&t, "%.*s", (int)n, chunk);
  }
  fclose(f);
  char* out = conf_disableContacts(t.buf);
  free(t.buf);
  return out;
}
