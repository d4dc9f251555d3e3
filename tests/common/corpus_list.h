// Moduco tests and benchmarks: the real-model corpus (../shared/corpus/<folder>/<file>), one
// list for the corpus conformance suite and the forward benchmark.
//   #define X(folder, file) ...
//   MC_CORPUS_MODELS(X)
#ifndef MODUCO_TESTS_CORPUS_LIST_H_
#define MODUCO_TESTS_CORPUS_LIST_H_

#define MC_CORPUS_MODELS(X)                                 \
  X("dm_cartpole", "cartpole.xml")                          \
  X("dm_ball_in_cup", "ball_in_cup.xml")                    \
  X("dm_finger", "finger.xml")                              \
  X("dm_fish", "fish.xml")                                  \
  X("dm_hopper", "hopper.xml")                              \
  X("dm_humanoid", "humanoid.xml")                          \
  X("dm_humanoid_CMU", "humanoid_CMU.xml")                  \
  X("dm_quadruped", "quadruped.xml")                        \
  X("dm_stacker", "stacker.xml")                            \
  X("dm_dog", "dog.xml")                                    \
  X("dm_swimmer50", "swimmer50.xml")                        \
  X("dm_lqr_6_2", "lqr_6_2.xml")                            \
  X("dm_jumping_ball", "jumping_ball_with_head.xml")        \
  X("gym_ant", "ant.xml")                                   \
  X("gym_humanoid", "humanoid.xml")                         \
  X("menagerie_agility_cassie", "scene.xml")                \
  X("menagerie_anybotics_anymal_c", "scene.xml")            \
  X("menagerie_unitree_h1", "scene.xml")                    \
  X("menagerie_shadow_hand_right", "scene_right.xml")       \
  X("menagerie_robotiq_2f85", "scene.xml")                  \
  X("menagerie_franka_panda_2023", "scene.xml")             \
  X("mj_arm26", "arm26.xml")                                \
  X("mj_humanoid100", "humanoid100.xml")

#endif  // MODUCO_TESTS_CORPUS_LIST_H_
