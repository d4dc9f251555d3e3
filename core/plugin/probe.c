// Moduco core: the plugin probe. Before a library is loaded into the host, a child process opens
// it, calls its entry symbol and checks its descriptors, and reports a verdict through a pipe. A
// library that crashes, aborts, exits or hangs while loading takes down only the child.
//
// The child is a fork of a possibly multi-threaded process: it uses no lock the parent may hold
// except the dynamic loader's (dlopen in the child is acceptable for a probe: if it ever blocks,
// the time limit kills the child), writes with write() only and leaves with _exit().
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plugin/loader.h"

#define PROBE_TIMEOUT 5.0         // seconds, unless MODUCO_PLUGIN_PROBE_TIMEOUT says otherwise
#define PROBE_MAXTIMEOUT 3600.0
#define PROBE_MAXLINES 16         // reasons the child sends at most (each under 600 bytes), so
                                  // the whole report fits the parent's buffer


// the time limit in seconds
static double probeTimeout(void) {
  const char* env = getenv("MODUCO_PLUGIN_PROBE_TIMEOUT");
  if (env && env[0]) {
    char* end = NULL;
    double t = strtod(env, &end);
    if (!*end && t > 0 && t <= PROBE_MAXTIMEOUT) {
      return t;
    }
  }
  return PROBE_TIMEOUT;
}


static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


// nonzero if this process runs more than one thread (a hang in the child may then be a lock
// held by another thread at fork time, not the library's fault)
static int multiThreaded(void) {
  DIR* dir = opendir("/proc/self/task");
  if (!dir) {
    return 1;
  }
  int n = 0;
  struct dirent* e;
  while ((e = readdir(dir))) {
    n += e->d_name[0] != '.';
  }
  closedir(dir);
  return n > 1;
}


//---------------------------------- child -------------------------------------------------------

// write a whole buffer (the parent reads concurrently)
static void sendAll(int fd, const char* buf, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return;
    }
    buf += n;
    len -= (size_t)n;
  }
}


// one line "<tag> <text>\n" (newlines in text become spaces)
static void sendLine(int fd, char tag, const char* text) {
  char line[600];
  int len = snprintf(line, sizeof(line) - 1, "%c %s", tag, text);
  if (len < 0) {
    return;
  }
  if (len > (int)sizeof(line) - 2) {
    len = (int)sizeof(line) - 2;
  }
  for (int i = 2; i < len; i++) {
    if (line[i] == '\n' || line[i] == '\r') {
      line[i] = ' ';
    }
  }
  line[len++] = '\n';
  sendAll(fd, line, (size_t)len);
}


// the child: default actions for the fatal signals (so a crash is seen as the signal, not as
// whatever the host's crash handler or a sanitizer does), silent standard streams; inspect the
// library, report, leave without cleanup
static void child(const char* real, int fd) {
  static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP};
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
    signal(fatal[i], SIG_DFL);
    sigaddset(&set, fatal[i]);
  }
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  int null = open("/dev/null", O_RDWR);
  if (null >= 0) {
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
  }

  void* handle;
  const mcpLibrary* lib;
  char why[512];
  if (mcp_openLibrary(real, &handle, &lib, why, sizeof(why))) {
    sendLine(fd, 'R', why);
    sendLine(fd, 'V', "0");
    _exit(0);
  }
  int good = 0, bad = 0;
  for (int i = 0; i < lib->nplugin; i++) {
    if (!mcp_checkEntry(lib->plugin[i], i, why, sizeof(why))) {
      good++;
    } else if (++bad <= PROBE_MAXLINES) {
      sendLine(fd, 'R', why);
    }
  }
  if (bad > PROBE_MAXLINES) {
    snprintf(why, sizeof(why), "and %d more invalid descriptors", bad - PROBE_MAXLINES);
    sendLine(fd, 'R', why);
  }
  sendLine(fd, 'V', good ? "1" : "0");
  _exit(0);
}


//---------------------------------- parent ------------------------------------------------------

// append one reason line to a verdict
static void addReason(mcpVerdict* v, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void addReason(mcpVerdict* v, const char* fmt, ...) {
  size_t len = strlen(v->reasons);
  if (len + 2 >= sizeof(v->reasons)) {
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->reasons + len, sizeof(v->reasons) - len - 1, fmt, ap);
  va_end(ap);
  len = strlen(v->reasons);
  v->reasons[len] = '\n';
  v->reasons[len + 1] = 0;
}


// parse the lines the child sent
static void parseReport(char* buf, mcpVerdict* v, int* decided) {
  for (char* line = buf; *line;) {
    char* eol = strchr(line, '\n');
    if (!eol) {
      break;                      // an incomplete last line: the child died while writing
    }
    *eol = 0;
    if (line[0] == 'R' && line[1] == ' ') {
      addReason(v, "%s", line + 2);
    } else if (line[0] == 'V' && line[1] == ' ') {
      v->ok = line[2] == '1';
      *decided = 1;
    }
    line = eol + 1;
  }
}


// name of a signal a library may die of
static const char* signalName(int sig) {
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV, a segmentation fault";
  case SIGBUS:
    return "SIGBUS, a bus error";
  case SIGABRT:
    return "SIGABRT, abort()";
  case SIGFPE:
    return "SIGFPE, an arithmetic fault";
  case SIGILL:
    return "SIGILL, an illegal instruction";
  case SIGTRAP:
    return "SIGTRAP, a trap";
  case SIGKILL:
    return "SIGKILL";
  case SIGTERM:
    return "SIGTERM";
  default:
    return "a signal";
  }
}


void mcp_probe(const char* real, mcpVerdict* v) {
  memset(v, 0, sizeof(*v));
  v->cacheable = 1;
  double limit = probeTimeout();
  int threads = multiThreaded();

  // the child and its pipe
  int fds[2];
  if (pipe2(fds, O_CLOEXEC)) {
    addReason(v, "cannot probe the library (pipe: %s); skipped", strerror(errno));
    v->cacheable = 0;
    return;
  }
  pid_t pid = fork();
  if (pid < 0) {
    addReason(v, "cannot probe the library (fork: %s); skipped", strerror(errno));
    v->cacheable = 0;
    close(fds[0]);
    close(fds[1]);
    return;
  }
  if (pid == 0) {
    close(fds[0]);
    child(real, fds[1]);
  }
  close(fds[1]);

  // read the report until the child ends or the time limit
  char buf[(PROBE_MAXLINES + 2) * 600 + 64];
  size_t len = 0;
  int open_pipe = 1, status = 0, ended = 0, reaped = 1;
  double deadline = now() + limit;
  while (!ended) {
    double left = deadline - now();
    if (left <= 0) {
      break;
    }
    if (open_pipe) {
      struct pollfd p = {fds[0], POLLIN, 0};
      int wait_ms = left > 0.05 ? 50 : (int)(left * 1000) + 1;
      if (poll(&p, 1, wait_ms) > 0) {
        ssize_t n = read(fds[0], buf + len, sizeof(buf) - 1 - len);
        if (n > 0) {
          len += (size_t)n;
        } else if (n == 0 || errno != EINTR) {
          open_pipe = 0;
        }
        if (len >= sizeof(buf) - 1) {
          open_pipe = 0;
        }
      }
    } else {
      struct timespec pause = {0, 2000000};
      nanosleep(&pause, NULL);
    }
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      ended = 1;
    } else if (r < 0 && errno == ECHILD) {
      ended = 1;                  // reaped by someone else (SIGCHLD ignored): no status
      reaped = 0;
    }
  }

  // a hang: kill the child
  int timed_out = !ended;
  if (timed_out) {
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }

  // what the child sent before it ended
  while (!timed_out && len < sizeof(buf) - 1) {
    ssize_t n = read(fds[0], buf + len, sizeof(buf) - 1 - len);
    if (n <= 0) {
      break;
    }
    len += (size_t)n;
  }
  close(fds[0]);
  buf[len] = 0;
  int decided = 0;
  parseReport(buf, v, &decided);
  if (decided) {
    return;
  }

  // no verdict: the library took the child down
  v->ok = 0;
  v->reasons[0] = 0;
  if (timed_out) {
    addReason(v, "did not finish loading within %g s (a constructor or the entry point '%s' "
              "hangs; to allow more, set MODUCO_PLUGIN_PROBE_TIMEOUT and clear the cache, see docs/plugins.md); the probe was killed and "
              "the library skipped", limit, MCP_ENTRY_SYMBOL);
    v->cacheable = !threads;
  } else if (!reaped) {
    addReason(v, "the probe process ended without a verdict (its exit status was collected "
              "elsewhere); library skipped");
    v->cacheable = 0;
  } else if (WIFSIGNALED(status)) {
    addReason(v, "crashed while loading (signal %d, %s, in a constructor or the entry point "
              "'%s'); library skipped", WTERMSIG(status), signalName(WTERMSIG(status)),
              MCP_ENTRY_SYMBOL);
  } else {
    addReason(v, "ended the process while loading (exit status %d: exit() called in a "
              "constructor or the entry point '%s', or a sanitizer stopped it); library skipped",
              WIFEXITED(status) ? WEXITSTATUS(status) : -1, MCP_ENTRY_SYMBOL);
  }
}
