// Pins the plugin ABI: constants, enum values, and offsetof/sizeof of every struct of mcplugin.h
// (LP64). A failure here means a change that breaks compiled plugins: append fields at the end
// and bump MCP_ABI_MINOR, or bump MCP_ABI_MAJOR, then update these numbers.
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "plugin/loader.h"


Test(plugin_abi, constants) {
  cr_expect_eq(MCP_ABI_MAJOR, 1);
  cr_expect_eq(MCP_ABI_MINOR, 10);
  cr_expect_str_eq(MCP_ENTRY_SYMBOL, "mcp_library");
  cr_expect_eq(MCP_PRECISION, 8);
  cr_expect_eq(MCP_MAXNAME, 64);
  cr_expect_eq(mcpKIND_SOLVER, 1);
  cr_expect_eq(mcpKIND_POSTSOLVER, 2);
  cr_expect_eq(mcpKIND_INTEGRATOR, 3);
  cr_expect_eq(mcpKIND_COLLISION, 4);
  cr_expect_eq(mcpKIND_ACTUATOR, 5);
  cr_expect_eq(mcpKIND_SENSOR, 6);
  cr_expect_eq(mcpNKIND, 7);
}


Test(plugin_abi, kind_sizes_of_abi_1_0) {
  // the minimal struct_size the loader accepts for each kind (frozen at ABI 1.0)
  cr_expect_eq(mcp_kindSize(mcpKIND_SOLVER), 88);
  cr_expect_eq(mcp_kindSize(mcpKIND_POSTSOLVER), 88);
  cr_expect_eq(mcp_kindSize(mcpKIND_INTEGRATOR), 88);
  cr_expect_eq(mcp_kindSize(mcpKIND_COLLISION), 96);
  cr_expect_eq(mcp_kindSize(mcpKIND_ACTUATOR), 136);
  cr_expect_eq(mcp_kindSize(mcpKIND_SENSOR), 112);
  cr_expect_eq(mcp_kindSize(0), 0);
  cr_expect_eq(mcp_kindSize(mcpNKIND), 0);
}


#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu

Test(plugin_abi, layout_mcpHeader) {
  cr_expect_eq(sizeof(mcpHeader), 80);
  cr_expect_eq(offsetof(mcpHeader, abi_major), 0);
  cr_expect_eq(offsetof(mcpHeader, abi_minor), 4);
  cr_expect_eq(offsetof(mcpHeader, struct_size), 8);
  cr_expect_eq(offsetof(mcpHeader, precision), 12);
  cr_expect_eq(offsetof(mcpHeader, kind), 16);
  cr_expect_eq(offsetof(mcpHeader, flags), 20);
  cr_expect_eq(offsetof(mcpHeader, name), 24);
  cr_expect_eq(offsetof(mcpHeader, version), 32);
  cr_expect_eq(offsetof(mcpHeader, description), 40);
  cr_expect_eq(offsetof(mcpHeader, code), 48);
  cr_expect_eq(offsetof(mcpHeader, init), 56);
  cr_expect_eq(offsetof(mcpHeader, destroy), 64);
  cr_expect_eq(offsetof(mcpHeader, reset), 72);
}


Test(plugin_abi, layout_mcpIntegrator) {
  cr_expect_eq(sizeof(mcpIntegrator), 96);
  cr_expect_eq(offsetof(mcpIntegrator, ext), 88);
  cr_expect_eq(offsetof(mcpIntegrator, hdr), 0);
  cr_expect_eq(offsetof(mcpIntegrator, step), 80);
}


Test(plugin_abi, layout_mcpSolver) {
  cr_expect_eq(sizeof(mcpSolver), 112);
  cr_expect_eq(offsetof(mcpSolver, ext), 88);
  cr_expect_eq(offsetof(mcpSolver, hdr), 0);
  cr_expect_eq(offsetof(mcpSolver, solve), 80);
  cr_expect_eq(offsetof(mcpSolver, islands), 96);   // ABI 1.4
  cr_expect_eq(offsetof(mcpSolver, derivative), 104);   // ABI 1.5
}


Test(plugin_abi, island_fields_of_abi_1_4_appended) {
  // mcData ends with the ABI 1.4 island and thread-pool fields, after every field of 1.3
  cr_expect_gt(offsetof(mcData, nisland), offsetof(mcData, timer_plugin));
  cr_expect_lt(offsetof(mcData, nisland), offsetof(mcData, efc_island));
  cr_expect_lt(offsetof(mcData, efc_island), offsetof(mcData, island_view));
  cr_expect_lt(offsetof(mcData, island_model), offsetof(mcData, island_M0trace));
  cr_expect_lt(offsetof(mcData, island_view), offsetof(mcData, threadpool));
  cr_expect_eq(offsetof(mcData, threadwork) + sizeof(void*), sizeof(mcData));
}


Test(plugin_abi, model_fields_appended_after_abi_1_4) {
  // geom_adhesion and geom_surfacevel (MuJoCo 3.14's contact adhesion and moving surfaces) end
  // mcModel's array list, after eq_objtype, the last array of 1.4
  cr_expect_eq(offsetof(mcModel, geom_adhesion), offsetof(mcModel, eq_objtype) + sizeof(void*));
  cr_expect_eq(offsetof(mcModel, geom_surfacevel),
               offsetof(mcModel, geom_adhesion) + sizeof(void*));
  // geom_matrgba (the colour of a geom's material, for viewers)
  cr_expect_eq(offsetof(mcModel, geom_matrgba), offsetof(mcModel, geom_surfacevel) + sizeof(void*));
  // body_sleep (MuJoCo 3.14's <body sleep>, for sleeping trees), then modelfile and
  // sleep_tolerance last (ABI 1.6)
  cr_expect_eq(offsetof(mcModel, body_sleep), offsetof(mcModel, geom_matrgba) + sizeof(void*));
  // mesh_tied and mesh_tie (the mesh support's tie chains, appended in 1.7)
  cr_expect_eq(offsetof(mcModel, mesh_tied), offsetof(mcModel, body_sleep) + sizeof(void*));
  cr_expect_eq(offsetof(mcModel, mesh_tie), offsetof(mcModel, mesh_tied) + sizeof(void*));
  cr_expect_eq(offsetof(mcModel, modelfile), offsetof(mcModel, mesh_tie) + sizeof(void*));
  cr_expect_eq(offsetof(mcModel, sleep_tolerance), offsetof(mcModel, modelfile) + 1024);
  cr_expect_eq(sizeof(mcModel), offsetof(mcModel, sleep_tolerance) + sizeof(mcNum));
}


Test(plugin_abi, sleep_fields_appended_after_abi_1_5) {
  // the sleep flag follows nativeccd; tree_asleep and body_awake end mcData's array list
  cr_expect_eq(mcENBL_SLEEP, 1 << 7);
  cr_expect_eq(mcNENABLE, 8);
  cr_expect_eq(offsetof(mcData, tree_asleep),
               offsetof(mcData, actuator_moment_span) + sizeof(void*));
  cr_expect_eq(offsetof(mcData, body_awake), offsetof(mcData, tree_asleep) + sizeof(void*));
  cr_expect_lt(offsetof(mcData, body_awake), offsetof(mcData, contact));
}


Test(plugin_abi, collision_sepdir_appended_after_body_awake) {
  // the collision plugins' separating-direction cache ends mcData's array list (appended in 1.8)
  cr_expect_eq(offsetof(mcData, collision_sepdir), offsetof(mcData, body_awake) + sizeof(void*));
  cr_expect_lt(offsetof(mcData, collision_sepdir), offsetof(mcData, contact));
}


Test(plugin_abi, layout_mcpPostsolver) {
  cr_expect_eq(sizeof(mcpPostsolver), 96);
  cr_expect_eq(offsetof(mcpPostsolver, ext), 88);
  cr_expect_eq(offsetof(mcpPostsolver, hdr), 0);
  cr_expect_eq(offsetof(mcpPostsolver, solve), 80);
}


Test(plugin_abi, layout_mcpCollisionPair) {
  cr_expect_eq(sizeof(mcpCollisionPair), 16);
  cr_expect_eq(offsetof(mcpCollisionPair, type1), 0);
  cr_expect_eq(offsetof(mcpCollisionPair, type2), 4);
  cr_expect_eq(offsetof(mcpCollisionPair, collide), 8);
}


Test(plugin_abi, layout_mcpCollision) {
  cr_expect_eq(sizeof(mcpCollision), 104);
  cr_expect_eq(offsetof(mcpCollision, ext), 96);
  cr_expect_eq(offsetof(mcpCollision, hdr), 0);
  cr_expect_eq(offsetof(mcpCollision, priority), 80);
  cr_expect_eq(offsetof(mcpCollision, npair), 84);
  cr_expect_eq(offsetof(mcpCollision, pair), 88);
}


Test(plugin_abi, layout_mcpAttributes) {
  cr_expect_eq(sizeof(mcpAttributes), 40);
  cr_expect_eq(offsetof(mcpAttributes, n), 0);
  cr_expect_eq(offsetof(mcpAttributes, key), 8);
  cr_expect_eq(offsetof(mcpAttributes, value), 16);
  cr_expect_eq(offsetof(mcpAttributes, file), 24);
  cr_expect_eq(offsetof(mcpAttributes, line), 32);
}


Test(plugin_abi, layout_mcpActuatorSpec) {
  cr_expect_eq(sizeof(mcpActuatorSpec), 352);
  cr_expect_eq(offsetof(mcpActuatorSpec, dyntype), 0);
  cr_expect_eq(offsetof(mcpActuatorSpec, gaintype), 4);
  cr_expect_eq(offsetof(mcpActuatorSpec, biastype), 8);
  cr_expect_eq(offsetof(mcpActuatorSpec, actnum), 12);
  cr_expect_eq(offsetof(mcpActuatorSpec, ctrllimited), 16);
  cr_expect_eq(offsetof(mcpActuatorSpec, forcelimited), 20);
  cr_expect_eq(offsetof(mcpActuatorSpec, actlimited), 24);
  cr_expect_eq(offsetof(mcpActuatorSpec, actearly), 28);
  cr_expect_eq(offsetof(mcpActuatorSpec, dynprm), 32);
  cr_expect_eq(offsetof(mcpActuatorSpec, gainprm), 112);
  cr_expect_eq(offsetof(mcpActuatorSpec, biasprm), 192);
  cr_expect_eq(offsetof(mcpActuatorSpec, ctrlrange), 272);
  cr_expect_eq(offsetof(mcpActuatorSpec, forcerange), 288);
  cr_expect_eq(offsetof(mcpActuatorSpec, actrange), 304);
  cr_expect_eq(offsetof(mcpActuatorSpec, damping), 320);
  cr_expect_eq(offsetof(mcpActuatorSpec, armature), 344);
}


Test(plugin_abi, layout_mcpActuator) {
  cr_expect_eq(sizeof(mcpActuator), 144);
  cr_expect_eq(offsetof(mcpActuator, ext), 136);
  cr_expect_eq(offsetof(mcpActuator, hdr), 0);
  cr_expect_eq(offsetof(mcpActuator, element), 80);
  cr_expect_eq(offsetof(mcpActuator, attributes), 88);
  cr_expect_eq(offsetof(mcpActuator, compile), 96);
  cr_expect_eq(offsetof(mcpActuator, act_dot), 104);
  cr_expect_eq(offsetof(mcpActuator, force), 112);
  cr_expect_eq(offsetof(mcpActuator, integrate_act), 120);
  cr_expect_eq(offsetof(mcpActuator, dforce_dvel), 128);
}


Test(plugin_abi, layout_mcpSensorSpec) {
  cr_expect_eq(sizeof(mcpSensorSpec), 28);
  cr_expect_eq(offsetof(mcpSensorSpec, dim), 0);
  cr_expect_eq(offsetof(mcpSensorSpec, needstage), 4);
  cr_expect_eq(offsetof(mcpSensorSpec, datatype), 8);
  cr_expect_eq(offsetof(mcpSensorSpec, objtype), 12);
  cr_expect_eq(offsetof(mcpSensorSpec, objid), 16);
  cr_expect_eq(offsetof(mcpSensorSpec, reftype), 20);
  cr_expect_eq(offsetof(mcpSensorSpec, refid), 24);
}


Test(plugin_abi, layout_mcpSensor) {
  cr_expect_eq(sizeof(mcpSensor), 120);
  cr_expect_eq(offsetof(mcpSensor, ext), 112);
  cr_expect_eq(offsetof(mcpSensor, hdr), 0);
  cr_expect_eq(offsetof(mcpSensor, element), 80);
  cr_expect_eq(offsetof(mcpSensor, attributes), 88);
  cr_expect_eq(offsetof(mcpSensor, compile), 96);
  cr_expect_eq(offsetof(mcpSensor, compute), 104);
}


Test(plugin_abi, layout_mcpHost) {
  cr_expect_eq(sizeof(mcpHost), 248);
  cr_expect_eq(offsetof(mcpHost, mulJ), 136);
  cr_expect_eq(offsetof(mcpHost, mulJT), 144);
  cr_expect_eq(offsetof(mcpHost, rowJ), 152);
  cr_expect_eq(offsetof(mcpHost, makeAR), 160);
  cr_expect_eq(offsetof(mcpHost, instance), 168);
  cr_expect_eq(offsetof(mcpHost, config), 176);
  cr_expect_eq(offsetof(mcpHost, pluginWarning), 184);
  cr_expect_eq(offsetof(mcpHost, fwdPosition), 192);  // ABI 1.5
  cr_expect_eq(offsetof(mcpHost, factorIPool), 200);  // ABI 1.7
  cr_expect_eq(offsetof(mcpHost, solveLDPool), 208);
  cr_expect_eq(offsetof(mcpHost, solveMDamped), 216);  // appended in 1.9
  cr_expect_eq(offsetof(mcpHost, runTrees), 224);  // ABI 1.10
  cr_expect_eq(offsetof(mcpHost, solveMDampedRange), 232);
  cr_expect_eq(offsetof(mcpHost, integratePosRange), 240);
  cr_expect_eq(offsetof(mcpHost, abi_major), 0);
  cr_expect_eq(offsetof(mcpHost, abi_minor), 4);
  cr_expect_eq(offsetof(mcpHost, struct_size), 8);
  cr_expect_eq(offsetof(mcpHost, precision), 12);
  cr_expect_eq(offsetof(mcpHost, warning), 16);
  cr_expect_eq(offsetof(mcpHost, message), 24);
  cr_expect_eq(offsetof(mcpHost, markStack), 32);
  cr_expect_eq(offsetof(mcpHost, freeStack), 40);
  cr_expect_eq(offsetof(mcpHost, stackAlloc), 48);
  cr_expect_eq(offsetof(mcpHost, forward), 56);
  cr_expect_eq(offsetof(mcpHost, forwardSkip), 64);
  cr_expect_eq(offsetof(mcpHost, integratePos), 72);
  cr_expect_eq(offsetof(mcpHost, normalizeQuat), 80);
  cr_expect_eq(offsetof(mcpHost, advanceAct), 88);
  cr_expect_eq(offsetof(mcpHost, mulM), 96);
  cr_expect_eq(offsetof(mcpHost, solveM), 104);
  cr_expect_eq(offsetof(mcpHost, factorI), 112);
  cr_expect_eq(offsetof(mcpHost, solveLD), 120);
  cr_expect_eq(offsetof(mcpHost, name2id), 128);
}


Test(plugin_abi, layout_mcpConfigKey) {
  cr_expect_eq(sizeof(mcpConfigKey), 56);
  cr_expect_eq(offsetof(mcpConfigKey, name), 0);
  cr_expect_eq(offsetof(mcpConfigKey, type), 8);
  cr_expect_eq(offsetof(mcpConfigKey, count), 12);
  cr_expect_eq(offsetof(mcpConfigKey, def), 16);
  cr_expect_eq(offsetof(mcpConfigKey, lo), 24);
  cr_expect_eq(offsetof(mcpConfigKey, hi), 32);
  cr_expect_eq(offsetof(mcpConfigKey, choices), 40);
  cr_expect_eq(offsetof(mcpConfigKey, doc), 48);
  cr_expect_eq(mcpCONFIG_REAL, 0);
  cr_expect_eq(mcpCONFIG_INT, 1);
  cr_expect_eq(mcpCONFIG_BOOL, 2);
  cr_expect_eq(mcpCONFIG_ENUM, 3);
}


Test(plugin_abi, layout_mcpPluginExt) {
  cr_expect_eq(sizeof(mcpPluginExt), 40);
  cr_expect_eq(offsetof(mcpPluginExt, nconfig), 0);
  cr_expect_eq(offsetof(mcpPluginExt, config), 8);
  cr_expect_eq(offsetof(mcpPluginExt, nstate), 16);
  cr_expect_eq(offsetof(mcpPluginExt, ndata), 24);
  cr_expect_eq(offsetof(mcpPluginExt, warnings), 32);
}


Test(plugin_abi, layout_mcpLibrary) {
  cr_expect_eq(sizeof(mcpLibrary), 64);
  cr_expect_eq(offsetof(mcpLibrary, layout), 40);
  cr_expect_eq(offsetof(mcpLibrary, layout_sizes), 48);
  cr_expect_eq(offsetof(mcpLibrary, abi_major), 0);
  cr_expect_eq(offsetof(mcpLibrary, abi_minor), 4);
  cr_expect_eq(offsetof(mcpLibrary, struct_size), 8);
  cr_expect_eq(offsetof(mcpLibrary, precision), 12);
  cr_expect_eq(offsetof(mcpLibrary, name), 16);
  cr_expect_eq(offsetof(mcpLibrary, nplugin), 24);
  cr_expect_eq(offsetof(mcpLibrary, plugin), 32);
}

#endif  // LP64


Test(plugin_abi, layout_mcpTreeRange) {
  // ABI 1.10: the range a tree task of host->runTrees gets
  cr_expect_eq(sizeof(mcpTreeRange), 40);
  cr_expect_eq(offsetof(mcpTreeRange, index), 0);
  cr_expect_eq(offsetof(mcpTreeRange, count), 4);
  cr_expect_eq(offsetof(mcpTreeRange, body0), 8);
  cr_expect_eq(offsetof(mcpTreeRange, body1), 12);
  cr_expect_eq(offsetof(mcpTreeRange, jnt0), 16);
  cr_expect_eq(offsetof(mcpTreeRange, jnt1), 20);
  cr_expect_eq(offsetof(mcpTreeRange, dof0), 24);
  cr_expect_eq(offsetof(mcpTreeRange, dof1), 28);
  cr_expect_eq(offsetof(mcpTreeRange, qpos0), 32);
  cr_expect_eq(offsetof(mcpTreeRange, qpos1), 36);
}
