/* Host shim for the simdx device prelude: maps the CUDA qualifiers and intrinsics that generated code
 * uses to standard C (C11 with GNU builtins), so that the emitted device functions can be compiled and
 * tested with the system C compiler. Not used on the GPU. */
#include <math.h>
#include <stdbool.h>
#include <string.h>
#define __device__
#define __forceinline__ static inline __attribute__((unused))
static inline float __int_as_float(int x) { float f; memcpy(&f, &x, sizeof f); return f; }
static inline double __longlong_as_double(long long x) { double d; memcpy(&d, &x, sizeof d); return d; }
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
/* CUDA's fminf/fmaxf/fmin/fmax, like Rust's f32::min/max, return the other operand when one is a NaN,
 * signaling NaNs included (LLVM's minnum/maxnum); glibc's follow IEEE 754-2008 minNum/maxNum and return
 * a NaN when either operand is a signaling NaN. These give the generated code CUDA's meaning on the host.
 * Which zero `min(0.0, -0.0)` returns is unspecified by Rust and CUDA alike. */
static inline float simdx_host_fminf(float a, float b) { return a != a ? b : (b != b ? a : (b < a ? b : a)); }
static inline float simdx_host_fmaxf(float a, float b) { return a != a ? b : (b != b ? a : (b > a ? b : a)); }
static inline double simdx_host_fmin(double a, double b) { return a != a ? b : (b != b ? a : (b < a ? b : a)); }
static inline double simdx_host_fmax(double a, double b) { return a != a ? b : (b != b ? a : (b > a ? b : a)); }
#define fminf simdx_host_fminf
#define fmaxf simdx_host_fmaxf
#define fmin simdx_host_fmin
#define fmax simdx_host_fmax
