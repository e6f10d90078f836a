/* simdx device prelude: the scalar types, vertex view and helper functions that the CUDA C emitted by
 * #[graph_kernel] relies on. Plain C that is also CUDA C++; no #include. Helpers keep Rust semantics:
 * integers wrap, shifts mask their amount, float-to-int casts saturate (NaN gives 0). */
typedef unsigned int simdx_u32;
typedef int simdx_i32;
typedef unsigned long long simdx_u64;
typedef long long simdx_i64;
typedef float simdx_f32;
typedef double simdx_f64;

/* What init, apply and global see of a vertex (simdx_core::acc::Vertex). */
typedef struct {
    simdx_u32 id;
    simdx_u32 out_degree;
    simdx_u32 in_degree;
    simdx_u32 num_vertices;
} simdx_vertex;

/* CombineOp, CombineKind and Apply as numbers, for SIMDX_OP, SIMDX_KIND and SIMDX_APPLY. */
#define SIMDX_OP_MIN 0
#define SIMDX_OP_MAX 1
#define SIMDX_OP_SUM 2
#define SIMDX_OP_OR 3
#define SIMDX_OP_CUSTOM 4
#define SIMDX_KIND_AGGREGATE 0
#define SIMDX_KIND_VOTING 1
#define SIMDX_APPLY_IN_PLACE 0
#define SIMDX_APPLY_RECEIVED 1
#define SIMDX_APPLY_EVERY 2

/* Signed arithmetic through unsigned types, so that overflow wraps as in Rust instead of being undefined. */
#define SIMDX_SIGNED_HELPERS(TAG, S, U, BITS, MINV)                                                              \
    __device__ __forceinline__ S simdx_add_##TAG(S a, S b) { return (S)((U)a + (U)b); }                     \
    __device__ __forceinline__ S simdx_sub_##TAG(S a, S b) { return (S)((U)a - (U)b); }                     \
    __device__ __forceinline__ S simdx_mul_##TAG(S a, S b) { return (S)((U)a * (U)b); }                     \
    __device__ __forceinline__ S simdx_neg_##TAG(S a) { return (S)((U)0 - (U)a); }                           \
    __device__ __forceinline__ S simdx_div_##TAG(S a, S b) { return b == (S)-1 ? simdx_neg_##TAG(a) : a / b; } \
    __device__ __forceinline__ S simdx_rem_##TAG(S a, S b) { return b == (S)-1 ? (S)0 : a % b; }            \
    __device__ __forceinline__ S simdx_shl_##TAG(S a, simdx_u32 n) { return (S)((U)a << (n & (BITS - 1))); } \
    __device__ __forceinline__ S simdx_shr_##TAG(S a, simdx_u32 n) { return a >> (n & (BITS - 1)); }        \
    __device__ __forceinline__ S simdx_abs_##TAG(S a) { return a < 0 ? simdx_neg_##TAG(a) : a; }               \
    __device__ __forceinline__ S simdx_sat_add_##TAG(S a, S b) {                                              \
        S r = simdx_add_##TAG(a, b);                                                                          \
        if (b > 0 && r < a) return (S)~(U)MINV;                                                             \
        if (b < 0 && r > a) return MINV;                                                                    \
        return r;                                                                                           \
    }                                                                                                       \
    __device__ __forceinline__ S simdx_sat_sub_##TAG(S a, S b) {                                              \
        S r = simdx_sub_##TAG(a, b);                                                                          \
        if (b < 0 && r < a) return (S)~(U)MINV;                                                             \
        if (b > 0 && r > a) return MINV;                                                                    \
        return r;                                                                                           \
    }
SIMDX_SIGNED_HELPERS(i32, simdx_i32, simdx_u32, 32u, (-2147483647 - 1))
SIMDX_SIGNED_HELPERS(i64, simdx_i64, simdx_u64, 64u, (-9223372036854775807ll - 1ll))

#define SIMDX_UNSIGNED_HELPERS(TAG, U, BITS)                                                                     \
    __device__ __forceinline__ U simdx_shl_##TAG(U a, simdx_u32 n) { return a << (n & (BITS - 1)); }        \
    __device__ __forceinline__ U simdx_shr_##TAG(U a, simdx_u32 n) { return a >> (n & (BITS - 1)); }        \
    __device__ __forceinline__ U simdx_sat_add_##TAG(U a, U b) { return a + b < a ? (U)~(U)0 : a + b; }     \
    __device__ __forceinline__ U simdx_sat_sub_##TAG(U a, U b) { return a < b ? (U)0 : a - b; }
SIMDX_UNSIGNED_HELPERS(u32, simdx_u32, 32u)
SIMDX_UNSIGNED_HELPERS(u64, simdx_u64, 64u)

#define SIMDX_ORDER_HELPERS(TAG, T)                                                                             \
    __device__ __forceinline__ T simdx_min_##TAG(T a, T b) { return b < a ? b : a; }                         \
    __device__ __forceinline__ T simdx_max_##TAG(T a, T b) { return b > a ? b : a; }                         \
    __device__ __forceinline__ T simdx_clamp_##TAG(T x, T lo, T hi) { return x < lo ? lo : (x > hi ? hi : x); }
SIMDX_ORDER_HELPERS(u32, simdx_u32)
SIMDX_ORDER_HELPERS(i32, simdx_i32)
SIMDX_ORDER_HELPERS(u64, simdx_u64)
SIMDX_ORDER_HELPERS(i64, simdx_i64)

/* Bit counts, as Rust's count_ones / leading_zeros / trailing_zeros (0 gives the bit width). */
__device__ __forceinline__ simdx_u32 simdx_popc_u32(simdx_u32 x) { return (simdx_u32)__popc(x); }
__device__ __forceinline__ simdx_u32 simdx_popc_u64(simdx_u64 x) { return (simdx_u32)__popcll(x); }
__device__ __forceinline__ simdx_u32 simdx_clz_u32(simdx_u32 x) { return (simdx_u32)__clz((int)x); }
__device__ __forceinline__ simdx_u32 simdx_clz_u64(simdx_u64 x) { return (simdx_u32)__clzll((long long)x); }
__device__ __forceinline__ simdx_u32 simdx_ctz_u32(simdx_u32 x) { return x == 0u ? 32u : (simdx_u32)(__ffs((int)x) - 1); }
__device__ __forceinline__ simdx_u32 simdx_ctz_u64(simdx_u64 x) { return x == 0ull ? 64u : (simdx_u32)(__ffsll((long long)x) - 1); }

/* Float-to-integer casts that saturate like Rust's `as`: NaN gives 0, out-of-range values clamp. */
#define SIMDX_FLOAT_TO_INT(F, FS, T, TS, LO, HI, LOV, HIV)                                                     \
    __device__ __forceinline__ T simdx_##FS##_to_##TS(F x) {                                                \
        if (x != x) return (T)0;                                                                           \
        if (x <= LO) return LOV;                                                                           \
        if (x >= HI) return HIV;                                                                           \
        return (T)x;                                                                                       \
    }
SIMDX_FLOAT_TO_INT(simdx_f32, f32, simdx_u32, u32, -1.0f, 4294967296.0f, 0u, 4294967295u)
SIMDX_FLOAT_TO_INT(simdx_f32, f32, simdx_i32, i32, -2147483904.0f, 2147483648.0f, (-2147483647 - 1), 2147483647)
SIMDX_FLOAT_TO_INT(simdx_f32, f32, simdx_u64, u64, -1.0f, 18446744073709551616.0f, 0ull, 18446744073709551615ull)
SIMDX_FLOAT_TO_INT(simdx_f32, f32, simdx_i64, i64, -9223373136366403584.0f, 9223372036854775808.0f,
                   (-9223372036854775807ll - 1ll), 9223372036854775807ll)
SIMDX_FLOAT_TO_INT(simdx_f64, f64, simdx_u32, u32, -1.0, 4294967296.0, 0u, 4294967295u)
SIMDX_FLOAT_TO_INT(simdx_f64, f64, simdx_i32, i32, -2147483649.0, 2147483648.0, (-2147483647 - 1), 2147483647)
SIMDX_FLOAT_TO_INT(simdx_f64, f64, simdx_u64, u64, -1.0, 18446744073709551616.0, 0ull, 18446744073709551615ull)
SIMDX_FLOAT_TO_INT(simdx_f64, f64, simdx_i64, i64, -9223372036854777856.0, 9223372036854775808.0,
                   (-9223372036854775807ll - 1ll), 9223372036854775807ll)

/* Float classification and bit-exact constants. */
__device__ __forceinline__ bool simdx_is_finite_f32(simdx_f32 x) { return x - x == x - x; }
__device__ __forceinline__ bool simdx_is_finite_f64(simdx_f64 x) { return x - x == x - x; }
__device__ __forceinline__ bool simdx_is_infinite_f32(simdx_f32 x) { return x == x && !(x - x == x - x); }
__device__ __forceinline__ bool simdx_is_infinite_f64(simdx_f64 x) { return x == x && !(x - x == x - x); }
__device__ __forceinline__ simdx_f32 simdx_f32_from_bits(simdx_u32 b) { return __int_as_float((int)b); }
__device__ __forceinline__ simdx_f64 simdx_f64_from_bits(simdx_u64 b) { return __longlong_as_double((long long)b); }
__device__ __forceinline__ simdx_f32 simdx_signum_f32(simdx_f32 x) { return x != x ? x : copysignf(1.0f, x); }
__device__ __forceinline__ simdx_f64 simdx_signum_f64(simdx_f64 x) { return x != x ? x : copysign(1.0, x); }

/* Float clamp as Rust's f32::clamp / f64::clamp (whose bounds Rust asserts are ordered and not NaN):
 * a NaN `x` stays NaN, and a bound is returned as it is (so `(-0.0).clamp(0.0, 1.0)` is -0.0). */
#define SIMDX_FLOAT_CLAMP(TAG, T)                                                                               \
    __device__ __forceinline__ T simdx_clamp_##TAG(T x, T lo, T hi) {                                         \
        if (x < lo) x = lo;                                                                                 \
        if (x > hi) x = hi;                                                                                 \
        return x;                                                                                           \
    }
SIMDX_FLOAT_CLAMP(f32, simdx_f32)
SIMDX_FLOAT_CLAMP(f64, simdx_f64)
