// Moduco command-line tool: recordings of a simulation (`moduco run --record FILE`, played by
// `moduco view --replay FILE`). The format is documented in docs/viewer.md ("Recordings"):
//
//   offset  type        content
//   0       char[8]     magic "MCREC001"
//   8       uint32      nq
//   12      float64     timestep of the model
//   20      uint32      L, bytes of the model's path
//   24      char[L]     the model's path (absolute when it could be resolved; no NUL)
//   24 + L  frames      each: float64 time, then float64 x nq qpos
//
// Everything is little-endian. The number of frames follows from the file's size.
#ifndef MODUCO_SDK_CLI_RECORD_H_
#define MODUCO_SDK_CLI_RECORD_H_

#include <stdio.h>

#include <moduco/moduco.h>

#define REC_MAGIC "MCREC001"
#define REC_MAXPATH 4096          // longest model path stored
#define REC_MAXBYTES (4L << 30)   // largest recording read (4 GiB)

// a recording being written
typedef struct {
  FILE* f;
  const char* path;               // for messages
  int nq;
  int reported;                   // a write error was already printed (with its errno)
} RecWriter;

// Create path and write the header for model m loaded from model_file. On failure print
// "moduco: cannot write <path>: <reason>" and return -1.
int rec_open(RecWriter* w, const char* path, const char* model_file, const mcModel* m);

// Append the frame of d (time, qpos). No allocation. Return -1 once a write has failed (then
// stop and call rec_close, which prints the reason).
int rec_frame(RecWriter* w, const mcData* d);

// Flush and close; on any write error print a message naming the file and return -1.
int rec_close(RecWriter* w);

// a recording read in full
typedef struct {
  char* model;                    // model path (NUL-terminated, malloc'ed)
  int nq;
  double timestep;
  long nframe;
  double* frames;                 // nframe x (1 + nq): time then qpos
} Recording;

// Read a recording; on failure print an error naming the file and what is wrong, return -1.
int rec_read(const char* path, Recording* r);

void rec_free(Recording* r);

#endif  // MODUCO_SDK_CLI_RECORD_H_
