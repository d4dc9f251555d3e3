// Moduco bench: the report files. mcb_writeJson and mcb_writePlot open the file, write the report
// (json.c, plot.c) and check that every byte reached it: the stream's error flag, the final
// flush and the close (a full disk or /dev/full is an error, not a silent truncated file).
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"


// flush and, unless it is stdout, close f; err: a failure already known (0: none); return 0, or
// -1 with "cannot write FILE: reason" in error
static int finish(FILE* f, const char* file, int err, char* error, int error_sz) {
  int failed = err != 0 || ferror(f) != 0;
  errno = 0;
  if (fflush(f)) {
    failed = 1;
    err = err ? err : errno;
  }
  if (f != stdout && fclose(f) && !failed) {
    failed = 1;
    err = errno;
  }
  if (failed) {
    snprintf(error, (size_t)error_sz, "cannot write %s: %s", file,
             err ? strerror(err) : "write error");
    return -1;
  }
  return 0;
}


// "-" is stdout
static FILE* openReport(const char* file, char* error, int error_sz) {
  FILE* f = !strcmp(file, "-") ? stdout : fopen(file, "w");
  if (!f) {
    snprintf(error, (size_t)error_sz, "cannot write %s: %s", file, strerror(errno));
  }
  return f;
}


int mcb_writeJson(const mcbBench* b, const char* file, const char* command, char* error,
                  int error_sz) {
  FILE* f = openReport(file, error, error_sz);
  if (!f) {
    return -1;
  }
  return finish(f, file, mcb_printJson(b, f, command) ? ENOMEM : 0, error, error_sz);
}


int mcb_writePlot(const mcbBench* b, const char* file, char* error, int error_sz) {
  FILE* f = openReport(file, error, error_sz);
  if (!f) {
    return -1;
  }
  mcb_printPlot(b, f);
  return finish(f, file, 0, error, error_sz);
}
