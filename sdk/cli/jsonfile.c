// Moduco command-line tool: strict reading of a JSON input file (a state file).
//
// A state file is exactly one JSON object: text (no NUL byte), optional white space around the
// object, nothing after it. Only regular files up to CLI_MAXJSONBYTES are read, so a device such
// as /dev/zero or a FIFO is refused before anything is read.
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"


// read a whole regular file into a 0-terminated buffer (caller frees); NULL after an error
static char* readRegularFile(const char* file, size_t* len) {
  int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    cli_error("%s: cannot open state file: %s", file, strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
    cli_error("%s: not a regular file (a state file must be a JSON file)", file);
    close(fd);
    return NULL;
  }
  if (st.st_size > CLI_MAXJSONBYTES) {
    cli_error("%s: %lld bytes, more than the %ld a state file may have", file,
              (long long)st.st_size, (long)CLI_MAXJSONBYTES);
    close(fd);
    return NULL;
  }

  // the size known from fstat; a file that grows meanwhile is cut there
  size_t size = (size_t)st.st_size;
  char* buf = malloc(size + 1);
  size_t got = 0;
  while (buf && got < size) {
    ssize_t n = read(fd, buf + got, size - got);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      cli_error("%s: cannot read state file: %s", file, strerror(errno));
      free(buf);
      buf = NULL;
    } else if (n == 0) {
      break;
    }
    got += n > 0 ? (size_t)n : 0;
  }
  close(fd);
  if (!buf) {
    if (got == 0 && size > 0) {
      cli_error("%s: out of memory reading %zu bytes", file, size);
    }
    return NULL;
  }
  buf[got] = 0;
  *len = got;
  return buf;
}


// line number (1-based) of a byte offset
static int lineOf(const char* text, size_t pos) {
  int line = 1;
  for (size_t i = 0; i < pos; i++) {
    line += text[i] == '\n';
  }
  return line;
}


// order of two key strings
static int compareKeys(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}


struct cJSON* cli_readJsonObject(const char* file) {
  size_t len = 0;
  char* text = readRegularFile(file, &len);
  if (!text) {
    return NULL;
  }

  // text only
  const char* nul = memchr(text, 0, len);
  if (nul) {
    size_t pos = (size_t)(nul - text);
    cli_error("%s:%d: NUL byte at byte %zu (a state file is one JSON object in text)", file,
              lineOf(text, pos), pos);
    free(text);
    return NULL;
  }

  // one value, then nothing but white space
  const char* end = NULL;
  cJSON* root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
  if (!root) {
    const char* at = cJSON_GetErrorPtr();
    size_t pos = at && at >= text && at <= text + len ? (size_t)(at - text) : 0;
    cli_error("%s:%d: invalid JSON at byte %zu", file, lineOf(text, pos), pos);
    free(text);
    return NULL;
  }
  const char* rest = end ? end : text + len;
  while (rest < text + len && strchr(" \t\r\n", *rest)) {
    rest++;
  }
  if (rest < text + len) {
    size_t pos = (size_t)(rest - text);
    cli_error("%s:%d: unexpected data at byte %zu after the JSON object (a state file is exactly "
              "one JSON object)", file, lineOf(text, pos), pos);
    cJSON_Delete(root);
    free(text);
    return NULL;
  }
  if (!cJSON_IsObject(root)) {
    cli_error("%s: the state must be a JSON object", file);
    cJSON_Delete(root);
    free(text);
    return NULL;
  }
  free(text);

  // each key once (which of two values would count is not obvious): sorted, neighbours compared
  int n = cJSON_GetArraySize(root);
  const char** keys = malloc(sizeof(char*) * (size_t)(n > 0 ? n : 1));
  if (!keys) {
    cli_error("%s: out of memory checking the keys of the state object", file);
    cJSON_Delete(root);
    return NULL;
  }
  int k = 0;
  for (const cJSON* item = root->child; item && k < n; item = item->next) {
    keys[k++] = item->string ? item->string : "";
  }
  qsort(keys, (size_t)k, sizeof(char*), compareKeys);
  for (int i = 1; i < k; i++) {
    if (!strcmp(keys[i - 1], keys[i])) {
      cli_error("%s: duplicate key '%.64s' in the state object", file, keys[i]);
      free(keys);
      cJSON_Delete(root);
      return NULL;
    }
  }
  free(keys);
  return root;
}
