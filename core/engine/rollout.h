// Moduco core (internal): run a function over items on a rollout pool's threads.
#ifndef MODUCO_CORE_ENGINE_ROLLOUT_H_
#define MODUCO_CORE_ENGINE_ROLLOUT_H_

#include <moduco/moduco.h>

// one item of a task: d is the pool's data of the thread running it (thread 0 is the caller).
// Items are handed out in increasing order through a shared counter, so the items one thread
// runs in a call come in increasing order; which thread runs which item is not fixed. Unlike
// mc_rollout, nothing resets d between items: the task decides what it keeps.
typedef void (*mciRolloutTask)(void* arg, mcData* d, int thread, int item);

// run task(arg, d, thread, item) for item = 0 .. n-1 (n <= the pool's nbatch); 0 or -1 (message
// printed)
int mci_rolloutTasks(mcRolloutPool* pool, int n, mciRolloutTask task, void* arg);

#endif  // MODUCO_CORE_ENGINE_ROLLOUT_H_
