// Shared helpers of the mesh tests: temp folders, file writers, dual loading with MuJoCo 2.2.2.
#ifndef MODUCO_TESTS_MESH_MESH_COMMON_H_
#define MODUCO_TESTS_MESH_MESH_COMMON_H_

#include <mujoco/mujoco.h>
#include <moduco/moduco.h>

// a fresh temporary folder (path written into dir, at least 64 bytes)
void mt_tempdir(char* dir);

// remove the files written with mt_write and the folder
void mt_cleanup(const char* dir);

// write bytes to dir/name
void mt_write(const char* dir, const char* name, const void* data, size_t len);

// write a binary STL of ntri triangles (9 floats each)
void mt_writeSTL(const char* dir, const char* name, const float* tri, int ntri);

// write an ASCII STL of ntri triangles
void mt_writeSTLText(const char* dir, const char* name, const float* tri, int ntri);

// the 12 triangles of an axis-aligned box [0,a]x[0,b]x[0,c], outward winding
void mt_boxTriangles(float tri[108], float a, float b, float c);

// load dir/name with Moduco; NULL and the message in err on failure
mcModel* mt_loadMC(const char* dir, const char* name, char* err, int err_sz);

// load dir/name with MuJoCo 2.2.2
mjModel* mt_loadMJ(const char* dir, const char* name, char* err, int err_sz);

// largest relative differences of mesh-derived fields between a Moduco and a MuJoCo model
typedef struct mtDiff_ {
  double mass, ipos, inertia, gpos, gquat, gsize, rbound, vert;
  int inertia_body;               // body with the largest inertia difference
  int counts;                     // mesh/vertex/face/graph counts differ
  int faces, graphs;              // meshes whose faces / hull graphs differ
} mtDiff;

void mt_compare(const mcModel* c, const mjModel* m, mtDiff* d);

#endif  // MODUCO_TESTS_MESH_MESH_COMMON_H_
