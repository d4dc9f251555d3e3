// Shared helpers of the mesh tests: temp folders, file writers, dual loading with MuJoCo 2.2.2,
// mesh-derived fields of MuJoCo 3.14 (tests/mesh/inertia_ref.mjs).
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

// load dir/name with Moduco (its default rules are MuJoCo 3.14's, which the mesh suites compare
// with); NULL and the message in err on failure
mcModel* mt_loadMC(const char* dir, const char* name, char* err, int err_sz);

// load dir/name with MuJoCo 2.2.2
mjModel* mt_loadMJ(const char* dir, const char* name, char* err, int err_sz);

// largest relative differences of mesh-derived fields between a Moduco and a MuJoCo model
// (mt_compareFields), and structural differences (mt_compareStructure)
typedef struct mtDiff_ {
  double mass, ipos, inertia, gpos, gquat, gsize, rbound, vert;
  int inertia_body;               // body with the largest inertia difference
  int counts;                     // mesh/vertex/face/graph counts differ
  int faces, graphs;              // meshes whose faces / hull graphs differ
  int vertsets;                   // meshes whose vertex counts differ, compared as sets
} mtDiff;

// the mesh-derived fields of a compiled model (either engine), flattened as in mjModel
typedef struct mtFields_ {
  int nbody, ngeom, nmesh;
  const double *body_mass, *body_ipos, *body_iquat, *body_inertia;
  const double *geom_pos, *geom_quat, *geom_size, *geom_rbound;
  const int *mesh_vertadr, *mesh_vertnum;
  const float* mesh_vert;
} mtFields;

// Moduco against MuJoCo 2.2.2, structure only (its mesh inertia is not Moduco's): counts (nbody,
// ngeom, nmesh, vertices, faces, graph), faces and hull graphs exactly
void mt_compareStructure(const mcModel* c, const mjModel* m, mtDiff* d);

// Moduco against the fields of another engine: body mass, ipos and inertia; pose, size and rbound
// of mesh geoms; vertices, one to one, or as sets (each Moduco vertex is one of the other's, to
// d->vert) where that is closer: meshes whose counts or order differ (Moduco keeps MuJoCo 2.2.2's
// OBJ vertices, three per triangle corner, and drops vertices no face uses; 3.14 keeps the file's
// and orders them otherwise). Counts: nbody, ngeom, nmesh; faces and graphs are not compared
void mt_compareFields(const mcModel* c, const mtFields* r, mtDiff* d);

// MuJoCo 3.14's compiled fields: run tests/mesh/inertia_ref.mjs on the models (paths relative to
// dir, NULL-terminated; dir is copied with its subfolders). The result (caller cJSON_Deletes)
// holds "models": one object per model, as the script prints it; the test fails (never skips)
// when the reference cannot run
typedef struct cJSON cJSON;
cJSON* mt_reference3(const char* dir, const char* const* models);

// the same from MuJoCo "3.3.8" or "3.14.0" (tests/mesh/test_eig314.c)
cJSON* mt_referenceVersion(const char* dir, const char* const* models, const char* version);

// model k of a reference: its error message (NULL if it compiled)
const char* mt_refError(const cJSON* out, int k);

// the fields of model k of a reference (arrays owned by f->buf: free with mt_freeFields)
typedef struct mtRefFields_ {
  mtFields f;
  void* buf;
} mtRefFields;

void mt_refFields(const cJSON* out, int k, mtRefFields* r);
void mt_freeFields(mtRefFields* r);
// model name of dir compiled by Moduco (asserted to load) and its differences in d from entry k
// of a reference output; the caller deletes the model
mcModel* mt_loadCompared(const char* dir, const char* name, const cJSON* out, int k, mtDiff* d);

#endif  // MODUCO_TESTS_MESH_MESH_COMMON_H_
