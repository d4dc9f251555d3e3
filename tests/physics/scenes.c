// Scenes for the whole-pipeline comparison against MuJoCo 2.2.2. Only contact pairs whose contact
// sets agree with MuJoCo are used: plane-sphere, plane-capsule, plane-box, sphere-sphere,
// sphere-capsule and capsule-capsule. Box-box and capsule-box are left out (issue 3: not yet
// contact for contact equal to MuJoCo in all poses).
#include "physics.h"

#include <stdio.h>
#include <string.h>

#define HUMANOID_DIR "/usr/share/mujoco/model/humanoid/"

// spheres with condim 1, 3, 4 and 6 on a plane
static const char kSpheres[] =
  "<mujoco model='spheres'>\n"
  " <option timestep='0.002' impratio='2'/>\n"
  " <worldbody>\n"
  "  <geom name='floor' type='plane' size='4 4 .1' friction='0.8 0.01 0.001'/>\n"
  "  <body pos='0 0 0.099'><freejoint/><geom type='sphere' size='.1' condim='1'/></body>\n"
  "  <body pos='0.5 0 0.099'><freejoint/><geom type='sphere' size='.1' condim='3'/></body>\n"
  "  <body pos='1 0 0.148'><freejoint/>\n"
  "   <geom type='sphere' size='.15' condim='4' friction='0.6 0.04 0.01'/></body>\n"
  "  <body pos='1.5 0 0.079'><freejoint/>\n"
  "   <geom type='sphere' size='.08' condim='6' friction='1.2 0.03 0.02' mass='2'/></body>\n"
  "  <body pos='0 0.6 0.3'><freejoint/><geom type='sphere' size='.1' condim='3'/></body>\n"
  " </worldbody>\n"
  "</mujoco>\n";

// capsules lying, tilted and standing on a plane
static const char kCapsules[] =
  "<mujoco model='capsules'>\n"
  " <option timestep='0.002'/>\n"
  " <worldbody>\n"
  "  <geom name='floor' type='plane' size='4 4 .1'/>\n"
  "  <body pos='0 0 0.049'><freejoint/>\n"
  "   <geom type='capsule' size='.05 .2' euler='0 90 0' condim='3' friction='1.5'/></body>\n"
  "  <body pos='0.6 0 0.2'><freejoint/>\n"
  "   <geom type='capsule' size='.05 .2' euler='0 60 20' condim='4'\n"
  "         friction='0.9 0.02 0.01'/></body>\n"
  "  <body pos='0 0.6 0.249'><freejoint/>\n"
  "   <geom type='capsule' size='.05 .2' condim='6' friction='1 0.02 0.01'/></body>\n"
  "  <body pos='0.6 0.6 0.039'><freejoint/>\n"
  "   <geom type='capsule' size='.04 .15' euler='90 0 30' condim='1'/></body>\n"
  " </worldbody>\n"
  "</mujoco>\n";

// boxes flat, on an edge and on a corner on a plane (plane-box only)
static const char kBoxes[] =
  "<mujoco model='boxes'>\n"
  " <option timestep='0.002' impratio='3'/>\n"
  " <worldbody>\n"
  "  <geom name='floor' type='plane' size='4 4 .1'/>\n"
  "  <body pos='0 0 0.099'><freejoint/>\n"
  "   <geom type='box' size='.1 .1 .1' condim='6' friction='1 0.02 0.01'/></body>\n"
  "  <body pos='0.6 0 0.139'><freejoint/>\n"
  "   <geom type='box' size='.2 .1 .05' euler='0 0 30' condim='3' friction='0.5'/></body>\n"
  "  <body pos='0 0.6 0.14'><freejoint/>\n"
  "   <geom type='box' size='.1 .1 .1' euler='45 0 0' condim='4' friction='0.8 0.03 0.01'/>\n"
  "  </body>\n"
  "  <body pos='0.6 0.6 0.2'><freejoint/>\n"
  "   <geom type='box' size='.08 .08 .08' euler='35 30 10' condim='3'/></body>\n"
  "  <body pos='-0.6 0 0.049'><freejoint/>\n"
  "   <geom type='box' size='.15 .15 .05' condim='1' mass='5'/></body>\n"
  " </worldbody>\n"
  "</mujoco>\n";

// a column of spheres, a pyramid of spheres and a sphere on a capsule
static const char kSphereStack[] =
  "<mujoco model='sphere_stack'>\n"
  " <option timestep='0.002'/>\n"
  " <default><geom condim='3' friction='0.9'/></default>\n"
  " <worldbody>\n"
  "  <geom name='floor' type='plane' size='4 4 .1'/>\n"
  "  <body pos='0 0 0.099'><freejoint/><geom type='sphere' size='.1'/></body>\n"
  "  <body pos='0.003 0 0.298'><freejoint/><geom type='sphere' size='.1'/></body>\n"
  "  <body pos='0.005 0.002 0.497'><freejoint/><geom type='sphere' size='.1'/></body>\n"
  "  <body pos='0.6 0 0.099'><freejoint/><geom type='sphere' size='.1' condim='4'\n"
  "   friction='0.9 0.02 0.01'/></body>\n"
  "  <body pos='0.8 0 0.099'><freejoint/><geom type='sphere' size='.1'/></body>\n"
  "  <body pos='0.7 0 0.27'><freejoint/><geom type='sphere' size='.1' condim='6'\n"
  "   friction='0.9 0.02 0.01'/></body>\n"
  "  <body pos='0 0.7 0.049'><freejoint/><geom type='capsule' size='.05 .3' euler='0 90 0'/>\n"
  "  </body>\n"
  "  <body pos='0.02 0.7 0.178'><freejoint/><geom type='sphere' size='.08'/></body>\n"
  " </worldbody>\n"
  "</mujoco>\n";

// a log pile of crossed capsules with a sphere on top
static const char kCapsuleStack[] =
  "<mujoco model='capsule_stack'>\n"
  " <option timestep='0.002'/>\n"
  " <default><geom type='capsule' size='.05 .3' condim='3' friction='1'/></default>\n"
  " <worldbody>\n"
  "  <geom name='floor' type='plane' size='4 4 .1'/>\n"
  "  <body pos='0 -0.2 0.049'><freejoint/><geom euler='0 90 0'/></body>\n"
  "  <body pos='0 0.2 0.049'><freejoint/><geom euler='0 90 0'/></body>\n"
  "  <body pos='-0.2 0 0.148'><freejoint/><geom euler='90 0 0' condim='4'\n"
  "   friction='1 0.02 0.01'/></body>\n"
  "  <body pos='0.2 0 0.148'><freejoint/><geom euler='90 0 0'/></body>\n"
  "  <body pos='0 0.01 0.247'><freejoint/><geom euler='0 90 10' condim='6'\n"
  "   friction='1 0.02 0.01'/></body>\n"
  "  <body pos='0.1 0 0.35'><freejoint/><geom type='sphere' size='.06'/></body>\n"
  " </worldbody>\n"
  "</mujoco>\n";

// connect (closed loop), weld (to the world, and with relpose), joint (quartic) and tendon
// equalities
static const char kEquality[] =
  "<mujoco model='equality'>\n"
  " <option timestep='0.002'><flag contact='disable'/></option>\n"
  " <worldbody>\n"
  "  <body name='l1' pos='0 0 1'><joint name='q1' type='hinge' axis='0 1 0' damping='0.02'/>\n"
  "   <geom type='capsule' fromto='0 0 0 0.4 0 0' size='0.04'/>\n"
  "   <body name='l2' pos='0.4 0 0'><joint name='q2' type='hinge' axis='0 1 0'/>\n"
  "    <geom type='capsule' fromto='0 0 0 0.4 0 0.1' size='0.04'/></body></body>\n"
  "  <body name='l3' pos='0.8 0 1.1'><joint name='q3' type='hinge' axis='0 1 0'/>\n"
  "   <geom type='capsule' fromto='0 0 0 0 0 -0.5' size='0.03'/></body>\n"
  "  <body name='p1' pos='0 0.6 1'><joint name='x1' type='slide' axis='1 0 0'/>\n"
  "   <geom type='box' size='0.05 0.05 0.05'/></body>\n"
  "  <body name='p2' pos='0 0.9 1'><joint name='x2' type='slide' axis='1 0.2 0'/>\n"
  "   <geom type='sphere' size='0.06'/></body>\n"
  "  <body name='p3' pos='0 1.2 1'><joint name='x3' type='slide' axis='0 0 1'/>\n"
  "   <geom type='sphere' size='0.05'/></body>\n"
  "  <body name='f' pos='0.5 -0.6 0.5'><freejoint/>\n"
  "   <geom type='box' size='0.12 0.06 0.04'/></body>\n"
  "  <body name='g' pos='-0.5 -0.6 0.8'><freejoint/>\n"
  "   <geom type='capsule' fromto='0 0 0 0.2 0 0' size='0.03'/></body>\n"
  "  <body name='s' pos='-0.5 0.3 1'><joint name='b' type='ball'/>\n"
  "   <geom type='capsule' fromto='0 0 0 0 0.1 -0.3' size='0.03'/></body>\n"
  " </worldbody>\n"
  " <tendon>\n"
  "  <fixed name='t'><joint joint='x1' coef='1'/><joint joint='x3' coef='0.5'/></fixed>\n"
  " </tendon>\n"
  " <equality>\n"
  "  <connect body1='l2' body2='l3' anchor='0.4 0 0.1'/>\n"
  "  <joint joint1='x2' joint2='q1' polycoef='0.01 0.4 0.2 -0.1 0.05'/>\n"
  "  <joint joint1='x1' polycoef='0.02 0 0 0 0'/>\n"
  "  <tendon tendon1='t' polycoef='-0.03 0 0 0 0' solref='0.03 0.7'/>\n"
  "  <weld body1='f' solref='0.05 1'/>\n"
  "  <weld body1='g' body2='f' relpose='0.3 0.1 0 0.9 0 0.3 0.1' solimp='0.8 0.95 0.01 0.4 3'/>\n"
  "  <connect body1='s' body2='g' anchor='0 0.1 -0.3'/>\n"
  " </equality>\n"
  "</mujoco>\n";

// a weld with torquescale between two free bodies, and one to the world
static const char kWeldTorquescale[] =
  "<mujoco model='weld_torquescale'>\n"
  " <option timestep='0.002'><flag contact='disable'/></option>\n"
  " <worldbody>\n"
  "  <body name='a' pos='0 0 1'><freejoint/><geom type='box' size='0.1 0.05 0.03'/></body>\n"
  "  <body name='b' pos='0.3 0 1'><freejoint/><geom type='capsule' size='0.03 0.1'/></body>\n"
  " </worldbody>\n"
  " <equality>\n"
  "  <weld body1='a' torquescale='3'/>\n"
  "  <weld body1='b' body2='a' relpose='0.3 0 0 1 0 0 0' torquescale='2'/>\n"
  " </equality>\n"
  "</mujoco>\n";

// the same welds with torquescale 1: Moduco (torquescale scales the angular residual, as in
// MuJoCo 3.x) and MuJoCo 2.2.2 (it scales only the Jacobian rows) must then agree fully
static const char kWeldTorquescale1[] =
  "<mujoco model='weld_torquescale_1'>\n"
  " <option timestep='0.002'><flag contact='disable'/></option>\n"
  " <worldbody>\n"
  "  <body name='a' pos='0 0 1'><freejoint/><geom type='box' size='0.1 0.05 0.03'/></body>\n"
  "  <body name='b' pos='0.3 0 1'><freejoint/><geom type='capsule' size='0.03 0.1'/></body>\n"
  " </worldbody>\n"
  " <equality>\n"
  "  <weld body1='a' torquescale='1'/>\n"
  "  <weld body1='b' body2='a' relpose='0.3 0 0 1 0 0 0' torquescale='1'/>\n"
  " </equality>\n"
  "</mujoco>\n";

// joint limits (hinge, slide, ball), tendon limits, friction loss on joints and tendons
static const char kLimits[] =
  "<mujoco model='limits'>\n"
  " <compiler angle='radian'/>\n"
  " <option timestep='0.002'><flag contact='disable'/></option>\n"
  " <default><joint damping='0.05'/></default>\n"
  " <worldbody>\n"
  "  <body pos='0 0 1'>\n"
  "   <joint name='h1' type='hinge' axis='0 1 0' limited='true' range='-0.4 0.3' margin='0.03'\n"
  "          frictionloss='0.15'/>\n"
  "   <geom type='capsule' fromto='0 0 0 0.35 0 0' size='0.04'/>\n"
  "   <body pos='0.35 0 0'>\n"
  "    <joint name='h2' type='hinge' axis='0 1 1' limited='true' range='-0.25 0.2'\n"
  "           solreflimit='0.04 0.6' solimplimit='0.85 0.98 0.02 0.4 2'/>\n"
  "    <geom type='capsule' fromto='0 0 0 0.35 0 0' size='0.04'/>\n"
  "    <body pos='0.35 0 0'>\n"
  "     <joint name='s1' type='slide' axis='1 0 0' limited='true' range='-0.06 0.04'\n"
  "            frictionloss='0.4' solreffriction='-400 -15'/>\n"
  "     <geom type='box' size='0.05 0.04 0.03'/></body></body></body>\n"
  "  <body pos='1 0 1'>\n"
  "   <joint name='b1' type='ball' limited='true' range='0 0.3' margin='0.02'\n"
  "          frictionloss='0.03'/>\n"
  "   <geom type='capsule' fromto='0 0 0 0.05 0 -0.35' size='0.04'/>\n"
  "   <body pos='0.05 0 -0.35'>\n"
  "    <joint name='h3' type='hinge' axis='1 0 0' limited='true' range='-0.8 0.9'\n"
  "           solreflimit='-2000 -30'/>\n"
  "    <geom type='sphere' size='0.07' pos='0 0.1 0'/></body></body>\n"
  "  <body pos='0 1 1'><freejoint/><geom type='box' size='0.1 0.15 0.05'/></body>\n"
  " </worldbody>\n"
  " <tendon>\n"
  "  <fixed name='t1' limited='true' range='-0.12 0.1' frictionloss='0.08' margin='0.01'>\n"
  "   <joint joint='h1' coef='1'/><joint joint='h2' coef='-0.6'/></fixed>\n"
  "  <fixed name='t2' limited='true' range='-0.05 0.25'>\n"
  "   <joint joint='h3' coef='0.4'/><joint joint='s1' coef='1.5'/></fixed>\n"
  " </tendon>\n"
  "</mujoco>\n";

const PhysScene phys_scenes[] = {
  {"spheres", kSpheres, NULL, 1},
  {"capsules", kCapsules, NULL, 1},
  {"boxes", kBoxes, NULL, 1},
  {"sphere_stack", kSphereStack, NULL, 1},
  {"capsule_stack", kCapsuleStack, NULL, 1},
  {"equality", kEquality, NULL, 0},
  {"weld_torquescale", kWeldTorquescale, NULL, 0},
  {"weld_torquescale_1", kWeldTorquescale1, NULL, 0},
  {"limits", kLimits, NULL, 0},
  {"humanoid", NULL, HUMANOID_DIR "humanoid.xml", 1},
  {"22_humanoids", NULL, HUMANOID_DIR "22_humanoids.xml", 1},
};
const int phys_nscene = (int)(sizeof(phys_scenes) / sizeof(phys_scenes[0]));


const PhysScene* phys_scene(const char* name) {
  for (int i = 0; i < phys_nscene; i++) {
    if (!strcmp(phys_scenes[i].name, name)) {
      return phys_scenes + i;
    }
  }
  return NULL;
}


int phys_loadScene(PhysPair* p, const PhysScene* s, char* error, int error_sz) {
  if (s->file) {
    return phys_loadFile(p, s->name, s->file, error, error_sz);
  }
  return phys_loadText(p, s->name, s->xml, error, error_sz);
}


// uniform in [-1, 1] from a xorshift64* state
static double uniform(unsigned long long* s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  unsigned long long x = *s * 2685821657736338717ULL;
  return (double)(x >> 11) / 4503599627370496.0 - 1;
}


void phys_sceneState(PhysPair* p, const PhysScene* s, int k) {
  const mjModel* m = p->mj;
  mjData* d = p->dj;
  unsigned long long rng = 0x9E3779B97F4A7C15ULL ^ (k + 1ULL) * 0xD1B54A32D192ED03ULL;
  mj_resetData(m, d);

  // contact-free scenes: positions spread widely so limits and equalities are violated
  if (!s->contact) {
    for (int i = 0; i < m->nq; i++) {
      d->qpos[i] += 0.4 * uniform(&rng);
    }
    mj_normalizeQuat(m, d->qpos);
  }

  // velocities and applied forces
  double vscale = s->contact ? 0.3 : 1.5;
  for (int i = 0; i < m->nv; i++) {
    d->qvel[i] = vscale * uniform(&rng);
    d->qfrc_applied[i] = 0.2 * uniform(&rng);
  }
  for (int i = 0; i < m->nu; i++) {
    d->ctrl[i] = 0.5 * uniform(&rng);
  }

  // let MuJoCo run into the contacts (and fill qacc_warmstart)
  int nstep = s->contact ? 15 + 40 * k : 3 * k;
  for (int i = 0; i < nstep; i++) {
    mj_step(m, d);
  }
}
