// Moduco core: helpers shared by the derivative files (derivative_fd.c, derivative_implicit.c).
#ifndef MODUCO_CORE_ENGINE_DERIVATIVE_H_
#define MODUCO_CORE_ENGINE_DERIVATIVE_H_

#include <moduco/moduco.h>

typedef struct {                  // sizes and offsets shared by the transition functions
  int nq, nv, na, nu, ns;
  int ndx;                        // 2*nv + na
  int nfull;                      // numbers in a full (FULL spec) state
  int oqpos;                      // offset of qpos in a full state; qvel and act follow it
  int octrl;                      // offset of ctrl in a full state
  int nphys;                      // nq + nv + na
} Layout;

typedef struct {                  // how one column is differenced
  int plus, minus;                // 1: evaluate that side; 0: use the nominal output
  mcNum scale;                    // 1 / distance between the two sides
} Column;

// sizes and offsets of m's transition problem
void mci_derivLayout(const mcModel* m, Layout* L);

// plan column col: centered needs both sides; a limited control only moves inside its range
Column mci_derivPlan(const mcModel* m, const Layout* L, const mcNum* state, int col, mcNum eps,
                     int centered);

// move column col of a full state by h (dq: nv scratch)
void mci_derivPerturb(const mcModel* m, const Layout* L, mcNum* state, int col, mcNum h,
                      mcNum* dq);

// write column col of A/B (and C/D) from the outputs hi and lo; a failed column is zeroed
void mci_derivStore(const mcModel* m, const Layout* L, int col, mcNum scale, int failed,
                    const mcNum* xhi, const mcNum* shi, const mcNum* xlo, const mcNum* slo,
                    mcNum* A, mcNum* B, mcNum* C, mcNum* D, mcNum* tmp);

// 1 if any of the n numbers is NaN or infinite
int mci_derivNotFinite(const mcNum* x, int n);

// check the common arguments; 0, or -1 with a message naming fn
int mci_derivCheck(const char* fn, const mcModel* m, const mcData* d, mcNum eps);

// 1 if the integrator leaves the position and velocity stages of the step's start in d
int mci_derivReuses(const mcModel* m);

// total warnings counted in d
int mci_derivWarnings(const mcData* d);

// 1 (and the warning counted in d) if x (n numbers) has a NaN or a number beyond mcMAXVAL
int mci_derivBadState(mcData* d, const mcNum* x, int n, int warning);

// report failed columns once per call
void mci_derivReport(const char* fn, int nfailed);

#endif  // MODUCO_CORE_ENGINE_DERIVATIVE_H_
