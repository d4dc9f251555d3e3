// Moduco core: mesh and height-field assets in the compiler (internal header).
//
// compiler_mesh_io.c reads STL (binary and ASCII), OBJ and MSH files into raw vertex and face
// arrays; compiler_mesh.c scales, builds the convex hull with qhull, computes volume, centre of
// mass and principal axes as MuJoCo 3.3.8 does, and moves the mesh into its inertial frame;
// compiler_hfield.c reads height fields. All buffers hang off the compiler context, so an error
// (longjmp) anywhere frees them with the context.
#ifndef MODUCO_CORE_COMPILER_COMPILER_MESH_H_
#define MODUCO_CORE_COMPILER_COMPILER_MESH_H_

#include "compiler/compiler.h"

// <mesh inertia=...>: how volume and inertia are computed, as MuJoCo 3.3.8's modes (double
// arithmetic; geoms get the mesh's own volume and inertia). No attribute: legacy, as in 3.3.8
enum {
  MCC_MESH_LEGACY = 0,            // pyramids to a reference point with |height| (the default)
  MCC_MESH_CONVEX,                // the convex hull of all vertices, as a solid
  MCC_MESH_EXACT,                 // signed volume; needs consistently wound faces
  MCC_MESH_SHELL                  // mass on the surface (volume field: the area)
};

// one mesh asset after compilation
typedef struct mccMeshData_ {
  const mcxElem* elem;            // the <mesh> element
  char path[1024];                // resolved file path ("" for inline data)
  mcNum scale[3], refpos[3], refquat[4];
  float* vert;                    // nvert x 3 (in the inertial frame once processed)
  int nvert, cvert;               // count and capacity (in vertices)
  int* face;                      // nface x 3
  int nface, cface;
  int* graph;                     // convex hull graph in MuJoCo's layout; NULL: none
  int ngraph;
  int* tie;                       // support tie chains (compiler_meshtie.c); NULL: none
  int needhull;                   // a colliding geom uses the mesh
  mcNum pos[3], quat[4];          // inertial frame of the mesh in the file frame
  mcNum aabb[3];                  // max |coordinate| along each inertial axis
  mcNum volume;                   // volume from the faces (inertia="shell": surface area)
  int inertia;                    // <mesh inertia>: MCC_MESH_LEGACY (default), ...
  mcNum inertia1[3];              // principal inertia at unit density
  int maxhullvert;                // <mesh maxhullvert> (-1: unlimited; read, not applied)
  int hullfaces;                  // the faces are the hull's (no faces given)
  char* buf;                      // file contents while loading
  void* scratch;                  // a plain temporary array while loading
  double* vd;                     // vertices in double while processing
  int* hullface;                  // outward triangles of the hull (inertia="convex")
  int nhullface;
  struct mccHull_* hull;          // qhull state while building the hull
} mccMeshData;

// one height field after compilation
typedef struct mccHfieldData_ {
  int nrow, ncol;
  mcNum size[4];
  float* data;                    // nrow x ncol, normalized to [0, 1]
  char* buf;                      // file contents while loading
} mccHfieldData;

//---------------------------------- readers (compiler_mesh_io.c) ----------------------------------

// read a whole asset file (kind: "mesh", "height-field", for messages) into a malloc'ed buffer
// with a terminating 0 byte; only regular files of at most 1 GiB
size_t mcc_assetReadFile(mcc* c, const mcxElem* e, const char* kind, const char* path,
                         char** buf);

// the same for a mesh file (error naming the mesh if it cannot be read)
size_t mcc_meshReadFile(mcc* c, const mcxElem* e, const char* path, char** buf);

// the file of asset element e: rel (the asset's file under meshdir/assetdir) from the model's
// folder; when that does not exist and e comes from an included file in another folder, rel from
// that file's folder if it exists there (MuJoCo 3 after 3.3.8 resolves an included file's assets
// next to it; 3.3.8 only from the model's folder, which is tried first)
void mcc_assetFile(const mcc* c, const mcxElem* e, const char* rel, char* out, int out_sz);

// append a vertex / face (arrays grow inside md, so an error never leaks them)
void mcc_meshAddVert(mcc* c, mccMeshData* md, const float v[3]);
void mcc_meshAddFace(mcc* c, mccMeshData* md, int a, int b, int cc);

// loaders: fill md->vert and md->face from md->path
void mcc_loadSTL(mcc* c, mccMeshData* md);
void mcc_loadOBJ(mcc* c, mccMeshData* md);
void mcc_loadMSH(mcc* c, mccMeshData* md);

// merge bit-identical vertices as MuJoCo 2.2.2 does for STL files
void mcc_meshRemoveRepeated(mcc* c, mccMeshData* md);

//---------------------------------- meshes (compiler_mesh.c) --------------------------------------

// load and process every mesh; move mesh geoms to the mesh inertial frame; set their sizes
void mcc_compileMeshes(mcc* c);

// mesh geom volume (area for inertia="shell") and unit-density principal inertia in the mesh
// frame (MuJoCo 3.3.8)
void mcc_meshGeomInertia(const mcc* c, int meshid, mcNum* vol, mcNum inertia[3]);

// support tie chains of a mesh with hull graph graph (MuJoCo's layout) over its nvert compiled
// vertices v, into tie (nvert ints; compiler_meshtie.c); 0: none (a tie takes the full scan)
int mcc_meshTieChains(const float* v, int nvert, const int* graph, int* tie);

// totals for sizing the model, then fill the mesh arrays
void mcc_meshTotals(const mcc* c, int* nvert, int* nface, int* ngraph);
void mcc_fillMeshes(const mcc* c, mcModel* m);


// attribute of an asset element, falling back to the <mesh>/<hfield> of its default classes
const char* mcc_assetAttr(mcc* c, const mcxElem* e, const char* key, const mcxElem** owner);

//---------------------------------- height fields (compiler_hfield.c) -----------------------------

void mcc_compileHfields(mcc* c);
void mcc_hfieldTotals(const mcc* c, int* ndata);
void mcc_fillHfields(const mcc* c, mcModel* m);

// free all mesh and height-field data (called by the context cleanup)
void mcc_freeAssets(mcc* c);

#endif  // MODUCO_CORE_COMPILER_COMPILER_MESH_H_
