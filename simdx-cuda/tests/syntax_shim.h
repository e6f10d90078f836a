/* Declarations of the CUDA built-ins that the kernel templates use, so that the whole NVRTC unit
 * (prelude, program, kernels) can be checked by the host C++ compiler with -fsyntax-only: a type or
 * syntax error in a kernel then fails CI instead of the first run on a GPU. Never executed. */
#include <math.h>
#define __device__
#define __forceinline__ inline
#define __global__
#define __shared__ static
#define __launch_bounds__(x)
#define asm(...) ((void)0)
struct sx_check_dim3 { unsigned int x, y, z; };
extern sx_check_dim3 threadIdx, blockIdx, blockDim, gridDim;
void __syncthreads();
int __syncthreads_or(int predicate);
void __syncwarp(unsigned int mask = 0xffffffffu);
void __threadfence();
void __trap();
void __nanosleep(unsigned int ns);
unsigned int __activemask();
unsigned int __ballot_sync(unsigned int mask, int predicate);
int __any_sync(unsigned int mask, int predicate);
int __all_sync(unsigned int mask, int predicate);
unsigned int __reduce_or_sync(unsigned int mask, unsigned int v);
template <class T> T __shfl_sync(unsigned int mask, T v, int lane);
template <class T> T __shfl_up_sync(unsigned int mask, T v, unsigned int delta);
template <class T> T __shfl_down_sync(unsigned int mask, T v, unsigned int delta, int width = 32);
template <class T> T __shfl_xor_sync(unsigned int mask, T v, int lane_mask);
template <class T> T atomicAdd(T* a, T v);
template <class T> T atomicMin(T* a, T v);
template <class T> T atomicMax(T* a, T v);
template <class T> T atomicOr(T* a, T v);
template <class T> T atomicExch(T* a, T v);
template <class T> T atomicCAS(T* a, T compare, T v);
template <class T> T max(T a, T b);
template <class T> T min(T a, T b);
int __popc(unsigned int x);
int __popcll(unsigned long long x);
int __clz(int x);
int __clzll(long long x);
int __ffs(int x);
int __ffsll(long long x);
float __int_as_float(int x);
double __longlong_as_double(long long x);
long long __double_as_longlong(double x);
