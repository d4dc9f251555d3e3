// The viewer page in Debian's headless chromium, driven by page_test.mjs (playwright-core from
// tests/viewer/node_modules, installed by scripts/setup-debian.sh): the model is drawn (one
// three.js mesh per drawable geom, canvas not blank), frames arrive, pause / step / reset / speed
// work; screenshots are saved under <build>/tests/viewer/.
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <civetweb.h>
#include <criterion/criterion.h>

#include "viewer_client.h"

#define HERE MODUCO_SOURCE_DIR "/tests/viewer"

// serve model (with extra options), run page_test.mjs on it with mode ("", "--draw-only",
// "--replay" or "--warnings"), expect a screenshot
static void runPage(const char* model, const char* extra, const char* shot, const char* mode) {
  struct stat st;
  cr_assert(!stat(HERE "/node_modules/playwright-core/package.json", &st),
            "tests/viewer/node_modules is missing: run scripts/setup-debian.sh (npm ci there)");
  cr_assert(!access("/usr/bin/chromium", X_OK) || getenv("CHROMIUM"),
            "chromium is missing: run scripts/setup-debian.sh (apt-get install chromium)");
  mg_init_library(0);
  ViewServer s;
  cr_assert_eq(vs_start(&s, model, extra, 20), 0);
  unlink(shot);
  char cmd[2048];
  snprintf(cmd, sizeof(cmd), "timeout 280 node '%s/page_test.mjs' http://127.0.0.1:%d/ '%s' %s",
           HERE, s.port, shot, mode);
  int status = system(cmd);
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
            "page test of %s failed (status %d): see its lines above", model, status);
  cr_expect(!stat(shot, &st) && st.st_size > 10000, "screenshot %s written", shot);
  cr_expect_eq(vs_stop(&s, 10), 0, "moduco view did not stop cleanly");
  mg_exit_library();
}

Test(view_page, humanoid_controls, .timeout = 300) {
  runPage(MODUCO_SOURCE_DIR "/models/humanoid.xml", NULL,
          MODUCO_BINARY_DIR "/tests/viewer/viewer-humanoid.png", "");
}

Test(view_page, every_geom_type, .timeout = 300) {
  runPage(HERE "/shapes.xml", NULL, MODUCO_BINARY_DIR "/tests/viewer/viewer-shapes.png",
          "--draw-only");
}

Test(view_page, model_warnings_shown, .timeout = 300) {
  runPage(HERE "/unstable.xml", NULL, MODUCO_BINARY_DIR "/tests/viewer/viewer-warnings.png",
          "--warnings");
}

Test(view_page, replay_scrub_and_loop, .timeout = 300) {
  char rec[] = "/tmp/moduco_page_replay_XXXXXX";
  int fd = mkstemp(rec);
  cr_assert_geq(fd, 0);
  close(fd);
  char cmd[1024];
  snprintf(cmd, sizeof(cmd), "'%s' run '%s' --steps 400 --record '%s' >/dev/null 2>&1",
           MODUCO_CLI, MODUCO_SOURCE_DIR "/models/humanoid.xml", rec);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  char extra[128];
  snprintf(extra, sizeof(extra), "--replay '%s'", rec);
  runPage(MODUCO_SOURCE_DIR "/models/humanoid.xml", extra,
          MODUCO_BINARY_DIR "/tests/viewer/viewer-replay.png", "--replay");
  unlink(rec);
}
