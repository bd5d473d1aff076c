/* umap.h - parametric UMAP on a small tensor compiler. Header-only C99/C++.
   MIT licence (see the end of this file).

   DO THIS
   -------
   In exactly one C or C++ file:

       #define UMAP_IMPLEMENTATION
       #include "umap.h"

   Everywhere else just #include "umap.h". Link with -lblas -lpthread -lm
   (or define UMAP_NO_BLAS and drop -lblas; define UMAP_NO_THREADS and drop
   -lpthread).

   COMPILE-TIME OPTIONS (define before the implementation include)
   ---------------------------------------------------------------
   UMAP_STATIC        every public symbol is `static` (private to one file)
   UMAP_NO_BLAS       no CBLAS: the portable cache-blocked, threaded sgemm
                      is used instead (embedded targets)
   UMAP_NO_THREADS    no pthreads: everything runs on the calling thread
   UMAP_NO_CPU_DISPATCH
                      the portable sgemm is compiled for the build's own
                      target only (by default, with GCC/Clang on x86, it is
                      compiled for SSE2, AVX2 and AVX-512 and the CPU picks)
   UMAP_MALLOC(sz,ud) / UMAP_FREE(p,ud)
                      default allocator (both or neither); runtime hooks in
                      umap_allocator override them per object
   UMAP_ASSERT(x)     internal invariant checks (default: assert.h)

   QUICK START
   -----------
       umap_graph *g;
       umap_graph_create(NULL, &g);                 // NULL desc = defaults
       umap_tensor *x = umap_input(g, "x", umap_shape2(1, 4));
       umap_tensor *w = umap_param(g, "w", umap_shape2(4, 2));
       umap_tensor *y = umap_matmul(g, x, w);       // records a node, [1,2]
       umap_program *p;
       if (umap_compile(g, 1, &y, NULL, &p) != UMAP_OK)
           puts(umap_graph_error_detail(g));
       umap_program_bind(p, "x", xs, 4);            // zero-copy pointers
       umap_program_bind(p, "w", ws, 8);
       umap_program_run(p);
       const float *out; umap_program_output(p, 0, &out, NULL);
       umap_program_free(p); umap_graph_free(g);

   THE PIECES (search for the `// >>` markers in the implementation)
   ----------------------------------------------------------------
   umap_knn.h (included first) holds the base every header shares:
                result codes, allocator and log hooks, the Philox RNG, the
                thread pool, sgemm (CBLAS or portable) and k-NN
   >>ir         nodes, the op list (one X-macro), shape inference, builders
   >>autodiff   reverse mode (a graph rewrite), forward mode (jvp), hvp
   >>passes     fold, simplify, CSE, DCE, fusion of elementwise chains
   >>plan       liveness-based memory plan over one arena
   >>cpu        CPU backend: fused-region interpreter, sgemm, reductions ...
   >>run        binding, running, reading outputs
   >>gradcheck  finite differences against autodiff
   >>optim      Adam

   Results depend on the inputs and the seed only: never on the thread count
   (work is cut into tasks by size, and every task writes its own outputs).
   The portable sgemm picks its kernel by CPU (AVX-512, AVX2+FMA or SSE2),
   so bits may differ between machines, never between runs on one machine.

   Builders never fail loudly: a builder that gets bad arguments returns NULL,
   records the first error in the graph (umap_graph_status / _error_detail,
   naming the op and the shapes), and any later builder given a NULL returns
   NULL too, so a whole model can be built and checked once.

   VERSION HISTORY
   ---------------
   0.1  tensor compiler core: IR, autodiff, passes, CPU backend
*/
#ifndef UMAP_H
#define UMAP_H

#include <stdio.h>

#include "umap_knn.h" /* the shared base (results, allocator, RNG, pool) and k-NN */

#ifndef UMAPDEF
#ifdef UMAP_STATIC
#define UMAPDEF static
#else
#define UMAPDEF extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>ir -------------------------------------------------------------------- */

#define UMAP_MAX_RANK 4
#define UMAP_MAX_SRC 8
#define UMAP_MAX_PARAMS 8
#define UMAP_NAME_MAX 64

typedef enum umap_dtype { UMAP_F32, UMAP_I32 } umap_dtype;

typedef struct umap_shape {
    int rank;                      /* 0 (scalar) .. UMAP_MAX_RANK */
    int64_t dim[UMAP_MAX_RANK];    /* each >= 1: empty tensors are a shape error */
} umap_shape;

UMAPDEF umap_shape umap_shape0(void);
UMAPDEF umap_shape umap_shape1(int64_t d0);
UMAPDEF umap_shape umap_shape2(int64_t d0, int64_t d1);
UMAPDEF umap_shape umap_shape3(int64_t d0, int64_t d1, int64_t d2);
UMAPDEF umap_shape umap_shape4(int64_t d0, int64_t d1, int64_t d2, int64_t d3);
UMAPDEF int64_t umap_shape_numel(umap_shape s);

/* The op list: id, name, number of sources (-1 = variable), class.
   Classes: L leaf, U unary elementwise, B binary elementwise (numpy
   broadcasting), E other elementwise, R reduction, S shape, M matmul,
   G gather/scatter, C custom. */
#define UMAP_OP_LIST(X)                     \
    X(INPUT, "input", 0, L)                 \
    X(PARAM, "param", 0, L)                 \
    X(CONST, "const", 0, L)                 \
    X(FILL, "fill", 0, L)                   \
    X(NEG, "neg", 1, U)                     \
    X(EXP, "exp", 1, U)                     \
    X(LOG, "log", 1, U)                     \
    X(LOG1P, "log1p", 1, U)                 \
    X(SQRT, "sqrt", 1, U)                   \
    X(RECIP, "reciprocal", 1, U)            \
    X(ABS, "abs", 1, U)                     \
    X(RELU, "relu", 1, U)                   \
    X(SIGMOID, "sigmoid", 1, U)             \
    X(TANH, "tanh", 1, U)                   \
    X(SQUARE, "square", 1, U)               \
    X(SIGN, "sign", 1, U)                   \
    X(ADD, "add", 2, B)                     \
    X(SUB, "sub", 2, B)                     \
    X(MUL, "mul", 2, B)                     \
    X(DIV, "div", 2, B)                     \
    X(POW, "pow", 2, B)                     \
    X(MAX, "max", 2, B)                     \
    X(MIN, "min", 2, B)                     \
    X(LT, "lt", 2, B)                       \
    X(LE, "le", 2, B)                       \
    X(GT, "gt", 2, B)                       \
    X(GE, "ge", 2, B)                       \
    X(EQ, "eq", 2, B)                       \
    X(NE, "ne", 2, B)                       \
    X(SELECT, "select", 3, E)               \
    X(CLAMP, "clamp", 1, E)                 \
    X(SUM, "sum", 1, R)                     \
    X(MEAN, "mean", 1, R)                   \
    X(RMAX, "reduce_max", 1, R)             \
    X(RESHAPE, "reshape", 1, S)             \
    X(PERMUTE, "permute", 1, S)             \
    X(BROADCAST, "broadcast", 1, S)         \
    X(SLICE, "slice", 1, S)                 \
    X(CONCAT, "concat", -1, S)              \
    X(MATMUL, "matmul", 2, M)               \
    X(GATHER, "gather", 2, G)               \
    X(SCATTER_ADD, "scatter_add", 2, G)     \
    X(CUSTOM, "custom", -1, C)

typedef enum umap_op {
#define UMAP__X_OP(id, name, arity, cls) UMAP_OP_##id,
    UMAP_OP_LIST(UMAP__X_OP)
#undef UMAP__X_OP
    UMAP_OP_COUNT
} umap_op;

UMAPDEF const char *umap_op_name(umap_op op);

typedef struct umap_graph umap_graph;
typedef struct umap_tensor umap_tensor;   /* a node; owned by its graph */
typedef struct umap_program umap_program;

typedef struct umap_graph_desc {
    umap_allocator allocator;
    umap_logger logger;
} umap_graph_desc;

UMAPDEF umap_result umap_graph_create(const umap_graph_desc *desc, umap_graph **out);
UMAPDEF void umap_graph_free(umap_graph *g);
UMAPDEF umap_result umap_graph_status(const umap_graph *g);        /* first builder error */
UMAPDEF const char *umap_graph_error_detail(const umap_graph *g);  /* "" when none */
UMAPDEF void umap_graph_clear_error(umap_graph *g);
UMAPDEF int umap_graph_node_count(const umap_graph *g);
/* Text dump of the nodes reachable from outs (all nodes when n_out == 0). */
UMAPDEF void umap_graph_dump(const umap_graph *g, int n_out, umap_tensor *const *outs, FILE *f);

/* tensor queries */
UMAPDEF umap_shape umap_tensor_shape(const umap_tensor *t);
UMAPDEF umap_dtype umap_tensor_dtype(const umap_tensor *t);
UMAPDEF umap_op umap_tensor_op(const umap_tensor *t);
UMAPDEF int umap_tensor_id(const umap_tensor *t);
UMAPDEF const char *umap_tensor_name(const umap_tensor *t);
UMAPDEF umap_tensor *umap_set_name(umap_tensor *t, const char *name);

/* leaves */
UMAPDEF umap_tensor *umap_input(umap_graph *g, const char *name, umap_shape shape);
UMAPDEF umap_tensor *umap_input_i32(umap_graph *g, const char *name, umap_shape shape);
UMAPDEF umap_tensor *umap_param(umap_graph *g, const char *name, umap_shape shape);
UMAPDEF umap_tensor *umap_constant(umap_graph *g, umap_shape shape, const float *data); /* copied */
UMAPDEF umap_tensor *umap_constant_i32(umap_graph *g, umap_shape shape, const int32_t *data);
UMAPDEF umap_tensor *umap_full(umap_graph *g, umap_shape shape, float value);
UMAPDEF umap_tensor *umap_scalar(umap_graph *g, float value);

/* elementwise */
UMAPDEF umap_tensor *umap_unary(umap_graph *g, umap_op op, umap_tensor *x);
UMAPDEF umap_tensor *umap_binary(umap_graph *g, umap_op op, umap_tensor *a, umap_tensor *b);
UMAPDEF umap_tensor *umap_neg(umap_graph *g, umap_tensor *x);
UMAPDEF umap_tensor *umap_exp(umap_graph *g, umap_tensor *x);
UMAPDEF umap_tensor *umap_log(umap_graph *g, umap_tensor *x);
UMAPDEF umap_tensor *umap_log1p(umap_graph *g, umap_tensor *x);
UMAPDEF umap_tensor *umap_sqrt(umap_graph *g, umap_tensor *x);
UMAPDEF umap_tensor *umap_recip(umap_graph *g, umap_tensor *x);
UMAPDEF umap_tensor *umap_abs(umap_graph *g, umap_tensor *x);
UMAPDEF umap_tensor *umap_relu(umap_graph *g, umap_tensor *x);
UMAPDEF umap_tensor *umap_sigmoid(umap_graph *g, umap_tensor *x);
UMAPDEF umap_tensor *umap_tanh(umap_graph *g, umap_tensor *x);
UMAPDEF umap_tensor *umap_square(umap_graph *g, umap_tensor *x);
UMAPDEF umap_tensor *umap_sign(umap_graph *g, umap_tensor *x);
UMAPDEF umap_tensor *umap_add(umap_graph *g, umap_tensor *a, umap_tensor *b);
UMAPDEF umap_tensor *umap_sub(umap_graph *g, umap_tensor *a, umap_tensor *b);
UMAPDEF umap_tensor *umap_mul(umap_graph *g, umap_tensor *a, umap_tensor *b);
UMAPDEF umap_tensor *umap_div(umap_graph *g, umap_tensor *a, umap_tensor *b);
UMAPDEF umap_tensor *umap_pow(umap_graph *g, umap_tensor *a, umap_tensor *b);
UMAPDEF umap_tensor *umap_max(umap_graph *g, umap_tensor *a, umap_tensor *b);
UMAPDEF umap_tensor *umap_min(umap_graph *g, umap_tensor *a, umap_tensor *b);
/* comparisons give 1.0f / 0.0f */
UMAPDEF umap_tensor *umap_lt(umap_graph *g, umap_tensor *a, umap_tensor *b);
UMAPDEF umap_tensor *umap_le(umap_graph *g, umap_tensor *a, umap_tensor *b);
UMAPDEF umap_tensor *umap_gt(umap_graph *g, umap_tensor *a, umap_tensor *b);
UMAPDEF umap_tensor *umap_ge(umap_graph *g, umap_tensor *a, umap_tensor *b);
UMAPDEF umap_tensor *umap_eq(umap_graph *g, umap_tensor *a, umap_tensor *b);
UMAPDEF umap_tensor *umap_ne(umap_graph *g, umap_tensor *a, umap_tensor *b);
/* cond != 0 ? a : b, all three broadcast together */
UMAPDEF umap_tensor *umap_select(umap_graph *g, umap_tensor *cond, umap_tensor *a, umap_tensor *b);
UMAPDEF umap_tensor *umap_clamp(umap_graph *g, umap_tensor *x, float lo, float hi);
UMAPDEF umap_tensor *umap_add_scalar(umap_graph *g, umap_tensor *x, float c);
UMAPDEF umap_tensor *umap_mul_scalar(umap_graph *g, umap_tensor *x, float c);

/* reductions: axes is a bit mask (bit i = axis i); UMAP_AXES_ALL reduces all */
#define UMAP_AXES_ALL 0xFu
UMAPDEF umap_tensor *umap_sum(umap_graph *g, umap_tensor *x, unsigned axes, int keepdims);
UMAPDEF umap_tensor *umap_mean(umap_graph *g, umap_tensor *x, unsigned axes, int keepdims);
UMAPDEF umap_tensor *umap_reduce_max(umap_graph *g, umap_tensor *x, unsigned axes, int keepdims);

/* shape ops. permute: out.dim[i] = x.dim[perm[i]]. transpose swaps the last
   two axes. slice takes [start, start+len) of one axis. */
UMAPDEF umap_tensor *umap_reshape(umap_graph *g, umap_tensor *x, umap_shape shape);
UMAPDEF umap_tensor *umap_permute(umap_graph *g, umap_tensor *x, const int *perm);
UMAPDEF umap_tensor *umap_transpose(umap_graph *g, umap_tensor *x);
UMAPDEF umap_tensor *umap_broadcast(umap_graph *g, umap_tensor *x, umap_shape shape);
UMAPDEF umap_tensor *umap_slice(umap_graph *g, umap_tensor *x, int axis, int64_t start, int64_t len);
UMAPDEF umap_tensor *umap_concat(umap_graph *g, int n, umap_tensor *const *xs, int axis);

/* matmul: [M,K]@[K,N], or batched [B,M,K]@[B,K,N] / [B,M,K]@[K,N].
   trans_a / trans_b transpose the last two axes of an operand first. */
UMAPDEF umap_tensor *umap_matmul(umap_graph *g, umap_tensor *a, umap_tensor *b);
UMAPDEF umap_tensor *umap_matmul_ex(umap_graph *g, umap_tensor *a, umap_tensor *b, int trans_a, int trans_b);

/* gather: x [N, ...], idx i32 of any rank -> [idx.shape..., x.shape[1:]...].
   scatter_add: src [idx.shape..., D...], idx -> [n_rows, D...], summing rows
   that share an index. Out-of-range indices fail the run with
   UMAP_ERR_INDEX_OUT_OF_RANGE. */
UMAPDEF umap_tensor *umap_gather(umap_graph *g, umap_tensor *x, umap_tensor *idx);
UMAPDEF umap_tensor *umap_scatter_add(umap_graph *g, umap_tensor *src, umap_tensor *idx, int64_t n_rows);

/* Custom ops: the registration hook. A custom op is a descriptor the caller
   owns (usually a static const) and keeps alive while graphs and programs
   use it; nothing is registered globally. Kernels must be pure: compile
   merges two calls with the same sources and params. */
typedef struct umap_custom_call {
    int n_src;
    const void *src[UMAP_MAX_SRC];
    umap_shape src_shape[UMAP_MAX_SRC];
    umap_dtype src_dtype[UMAP_MAX_SRC];
    void *out;
    umap_shape out_shape;
    umap_dtype out_dtype;
    const int32_t *params;  /* n_params ints given at build time */
    int n_params;
    umap_pool *pool;        /* may be used with umap_pool_for */
} umap_custom_call;

typedef struct umap_custom_op umap_custom_op;
struct umap_custom_op {
    const char *name;
    /* infer the output shape; return UMAP_OK or an error (the builder
       reports it) */
    umap_result (*shape_fn)(const umap_custom_op *op, int n_src, const umap_shape *src_shapes,
                            const umap_dtype *src_dtypes, const int32_t *params, int n_params,
                            umap_shape *out_shape, umap_dtype *out_dtype);
    /* CPU kernel; NULL means the CPU backend cannot run it (compile error) */
    umap_result (*cpu_fn)(const umap_custom_op *op, const umap_custom_call *call);
    /* optional: build d(loss)/d(src[i]) from the node and its output
       gradient with ordinary builders; return NULL when src i gets none.
       Without it, umap_grad through this op fails with
       UMAP_ERR_NOT_DIFFERENTIABLE. */
    umap_tensor *(*grad_fn)(umap_graph *g, const umap_custom_op *op, umap_tensor *node,
                            umap_tensor *grad_out, int src_index);
    void *user_data;
};

UMAPDEF umap_tensor *umap_custom(umap_graph *g, const umap_custom_op *op, int n_src,
                                 umap_tensor *const *srcs, const int32_t *params, int n_params);
UMAPDEF umap_tensor *umap_tensor_src(const umap_tensor *t, int i);
UMAPDEF const umap_custom_op *umap_tensor_custom_op(const umap_tensor *t);

/* k-NN in the graph (custom ops registered through the hook above; any
   backend that implements "umap.knn" runs them):
   umap_knn_graph: pairwise distances D [n,n] -> packed [n, 2k]: per row the
     k smallest D[i][j], j != i, ascending, ties by index; columns 0..k-1
     the indices (as floats), k..2k-1 the distances. Its gradient
     ("umap.knn_backward") scatters the distance gradients back into D.
   umap_pairwise_euclidean / _cosine: x [n,d] -> D [n,n] with the
     conventions of umap_knn (a zero row has cosine distance 1);
     differentiable, with a zero (not NaN) gradient where two rows coincide.
   umap_knn_cosine: umap_knn_graph of umap_pairwise_cosine. */
UMAPDEF const umap_custom_op *umap_knn_op(void);
UMAPDEF const umap_custom_op *umap_knn_backward_op(void);
UMAPDEF umap_tensor *umap_knn_graph(umap_graph *g, umap_tensor *pairwise, int k);
UMAPDEF umap_tensor *umap_pairwise_euclidean(umap_graph *g, umap_tensor *x);
UMAPDEF umap_tensor *umap_pairwise_cosine(umap_graph *g, umap_tensor *x);
UMAPDEF umap_tensor *umap_knn_cosine(umap_graph *g, umap_tensor *x, int k);

/* >>autodiff -------------------------------------------------------------- */

/* Reverse mode: appends to g the nodes computing d(loss)/d(wrt[i]) and
   writes them to grads[i]. loss must be a scalar (numel 1). A wrt the loss
   does not depend on gets a zero tensor. Compile [loss, grads...] together
   to run forward and backward as one program. */
UMAPDEF umap_result umap_grad(umap_graph *g, umap_tensor *loss, int n_wrt, umap_tensor *const *wrt,
                              umap_tensor **grads);
/* Forward mode: tangents of outs given tangents[i] for wrt[i] (same shape). */
UMAPDEF umap_result umap_jvp(umap_graph *g, int n_out, umap_tensor *const *outs, int n_wrt,
                             umap_tensor *const *wrt, umap_tensor *const *tangents,
                             umap_tensor **out_tangents);
/* Hessian-vector product, forward over reverse: hv[i] = sum_j H_ij v[j]. */
UMAPDEF umap_result umap_hvp(umap_graph *g, umap_tensor *loss, int n_wrt, umap_tensor *const *wrt,
                             umap_tensor *const *v, umap_tensor **hv);

/* >>passes / >>plan -------------------------------------------------------- */

typedef enum umap_pass_flags {
    UMAP_PASS_FOLD = 1 << 0,       /* constant folding */
    UMAP_PASS_SIMPLIFY = 1 << 1,   /* x*1, x+0, x-0, x/1, neg(neg x), reshape chains ... */
    UMAP_PASS_CSE = 1 << 2,        /* common subexpressions */
    UMAP_PASS_FUSE = 1 << 3,       /* elementwise chains -> one loop */
    UMAP_PASS_REUSE = 1 << 4       /* memory plan reuses dead buffers */
} umap_pass_flags;

typedef enum umap_stage {
    UMAP_STAGE_BUILT,        /* every node of the graph, as built */
    UMAP_STAGE_OPTIMIZED,    /* after fold + simplify + CSE + DCE */
    UMAP_STAGE_FUSED,        /* after fusion, with the memory plan */
    UMAP_STAGE_COUNT
} umap_stage;

typedef struct umap_backend umap_backend;

typedef struct umap_compile_desc {
    const umap_backend *backend;   /* NULL = the CPU backend */
    int n_threads;                 /* 0 = all cores */
    unsigned disable_passes;       /* umap_pass_flags to turn off */
    int profile;                   /* time every step (umap_program_profile) */
    umap_logger logger;
} umap_compile_desc;

typedef struct umap_program_stats {
    int nodes[UMAP_STAGE_COUNT];   /* node count at each stage */
    int folded;                    /* nodes replaced by constants */
    int simplified;                /* algebraic rewrites applied */
    int cse_merged;                /* nodes merged into an equal one */
    int dce_removed;               /* nodes no output needs */
    int regions;                   /* fused elementwise regions (>= 2 ops) */
    int fused_nodes;               /* nodes inside those regions */
    int steps;                     /* kernels launched per run */
    int64_t peak_bytes;            /* planned arena size */
    int64_t unplanned_bytes;       /* sum of all intermediate buffers */
} umap_program_stats;

/* Compiles the nodes outs need into a program for one backend. The program
   keeps its own copies of what it needs (leaf names, constants), so the
   graph may be changed or freed afterwards. On failure *out is NULL and
   umap_graph_error_detail(g) says why; the graph stays usable. */
UMAPDEF umap_result umap_compile(umap_graph *g, int n_out, umap_tensor *const *outs,
                                 const umap_compile_desc *desc, umap_program **out);
UMAPDEF void umap_program_free(umap_program *p);
UMAPDEF const char *umap_program_error_detail(const umap_program *p);
UMAPDEF void umap_program_stats_get(const umap_program *p, umap_program_stats *out);
UMAPDEF void umap_program_dump(const umap_program *p, umap_stage stage, FILE *f);
UMAPDEF void umap_program_dot(const umap_program *p, umap_stage stage, FILE *f);
UMAPDEF void umap_program_fusion_report(const umap_program *p, FILE *f);

/* >>run -------------------------------------------------------------------- */

/* Bind caller memory to an input or param by name (zero-copy: it must stay
   valid while runs use it). numel must match the declared shape. Names of
   leaves that optimisation removed are still accepted. */
UMAPDEF umap_result umap_program_bind(umap_program *p, const char *name, const void *data, int64_t numel);
UMAPDEF umap_result umap_program_bind_tensor(umap_program *p, const umap_tensor *t, const void *data);
/* Runs every step. Allocates only on the first call. */
UMAPDEF umap_result umap_program_run(umap_program *p);
/* Output i after a run: a pointer into the program's memory (or to the
   bound data, when an output is an input), valid until the next run or
   free. An i32 output is returned through the same pointer: cast it to
   const int32_t *. shape may be NULL. */
UMAPDEF umap_result umap_program_output(const umap_program *p, int i, const float **data, umap_shape *shape);

/* Per-op wall time accumulated over runs when compiled with profile = 1.
   Fused elementwise regions count under region_ms, not under their ops. */
typedef struct umap_profile {
    double ms[UMAP_OP_COUNT];
    int64_t calls[UMAP_OP_COUNT];
    double region_ms;
    int64_t region_calls;
    int64_t runs;
} umap_profile;
UMAPDEF void umap_program_profile(const umap_program *p, umap_profile *out);
UMAPDEF void umap_program_profile_reset(umap_program *p);

/* >>backend table ---------------------------------------------------------- */

/* A compiled step as a backend sees it. Steps are the program's kernels:
   one per non-elementwise node and one per fused elementwise region. */
typedef struct umap_step umap_step;
struct umap_backend {
    const char *name;
    /* may this backend run this step? (called at compile time for each) */
    int (*supports)(const umap_backend *be, const umap_program *p, const umap_step *step);
    /* run one step; buffers are resolved by the program */
    umap_result (*run_step)(const umap_backend *be, umap_program *p, const umap_step *step);
    void *user_data;
};
UMAPDEF const umap_backend *umap_cpu_backend(void);
/* op of a step's root node (its last op, for a fused region) */
UMAPDEF umap_op umap_step_op(const umap_step *step);

/* >>gradcheck -------------------------------------------------------------- */

typedef struct umap_gradcheck_desc {
    float eps;          /* step, relative to max(1, |x|); 0 = 1e-2 */
    float atol, rtol;   /* pass if |ad - fd| <= atol + rtol*|fd|; 0 = 1e-3, 1e-2 */
    int max_checks;     /* elements per wrt checked (evenly spaced); 0 = all */
    int n_threads;
} umap_gradcheck_desc;

typedef struct umap_gradcheck_report {
    double max_abs_err, max_rel_err;
    int worst_wrt;
    int64_t worst_index;
    double worst_autodiff, worst_numeric;
    int64_t checked;
} umap_gradcheck_report;

/* Checks d(loss)/d(wrt[i]) by 4-point central differences. values[j] is the
   data of leaves[j] (every input and param the loss needs); each wrt must be
   one of the leaves (F32), and its data is perturbed in place and restored.
   Returns UMAP_OK, UMAP_ERR_GRADCHECK when a tolerance is exceeded, or the
   error that stopped it. report may be NULL. It appends the gradient nodes
   to g (as umap_grad does) and compiles two programs of its own. */
UMAPDEF umap_result umap_gradcheck(umap_graph *g, umap_tensor *loss, int n_leaves,
                                   umap_tensor *const *leaves, void *const *values, int n_wrt,
                                   umap_tensor *const *wrt, const umap_gradcheck_desc *desc,
                                   umap_gradcheck_report *report);

/* >>optim ------------------------------------------------------------------ */

typedef struct umap_adam_desc {
    float lr;            /* 0 = 1e-3 */
    float beta1, beta2;  /* 0 = 0.9, 0.999 */
    float eps;           /* 0 = 1e-8 */
    float weight_decay;  /* decoupled (AdamW); 0 = none */
} umap_adam_desc;

/* One Adam update of n weights at step t (1-based), threaded on pool (may be
   NULL). m and v are the caller's moment buffers (zeroed before step 1).
   grad_scale multiplies the gradient first (for clipping: see
   umap_grad_clip_scale). */
UMAPDEF void umap_adam_update(const umap_adam_desc *desc, int64_t t, float *w, const float *grad, float *m,
                              float *v, int64_t n, float grad_scale, umap_pool *pool);
/* min(1, max_norm / ||grads||) over several arrays; 1 when max_norm <= 0. */
UMAPDEF float umap_grad_clip_scale(int n_arrays, const float *const *grads, const int64_t *sizes, float max_norm);

#ifdef __cplusplus
}
#endif
#endif /* UMAP_H */

/* ========================================================================= */
/*                              IMPLEMENTATION                               */
/* ========================================================================= */
#ifdef UMAP_IMPLEMENTATION
/* the base and k-NN implementation (again here: umap.h's declarations may
   have been included before UMAP_IMPLEMENTATION was defined) */
#include "umap_knn.h"
#ifndef UMAP__IMPLEMENTED
#define UMAP__IMPLEMENTED

/* grows *arr (elements of elem bytes) to hold at least need; 0 on OOM */
static int umap__grow(const umap_allocator *a, void **arr, int *cap, int need, size_t elem) {
    int ncap;
    void *n;
    if (need <= *cap) return 1;
    ncap = *cap ? *cap * 2 : 16;
    while (ncap < need) ncap *= 2;
    n = umap__alloc(a, (size_t)ncap * elem);
    if (!n) return 0;
    if (*arr) memcpy(n, *arr, (size_t)*cap * elem);
    umap__free(a, *arr);
    *arr = n;
    *cap = ncap;
    return 1;
}

static double umap__now_ms(void) {
#ifdef UMAP__HAVE_GETTIMEOFDAY
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec * 1e-3;
#else
    return (double)clock() * 1e3 / CLOCKS_PER_SEC;
#endif
}

static void umap__shape_str(umap_shape s, char *buf, size_t n) {
    int i;
    size_t len;
    snprintf(buf, n, "[");
    for (i = 0; i < s.rank; i++) {
        len = strlen(buf);
        snprintf(buf + len, n - len, i ? ",%lld" : "%lld", (long long)s.dim[i]);
    }
    len = strlen(buf);
    snprintf(buf + len, n - len, "]");
}

/* >>ir -------------------------------------------------------------------- */

enum { UMAP__CLS_L, UMAP__CLS_U, UMAP__CLS_B, UMAP__CLS_E, UMAP__CLS_R, UMAP__CLS_S, UMAP__CLS_M, UMAP__CLS_G, UMAP__CLS_C };

static const char *const umap__op_names[] = {
#define UMAP__X_NAME(id, name, arity, cls) name,
    UMAP_OP_LIST(UMAP__X_NAME)
#undef UMAP__X_NAME
};
static const signed char umap__op_arity[] = {
#define UMAP__X_AR(id, name, arity, cls) arity,
    UMAP_OP_LIST(UMAP__X_AR)
#undef UMAP__X_AR
};
static const unsigned char umap__op_class[] = {
#define UMAP__X_CLS(id, name, arity, cls) UMAP__CLS_##cls,
    UMAP_OP_LIST(UMAP__X_CLS)
#undef UMAP__X_CLS
};
typedef char umap__op_tables_match[(sizeof umap__op_names / sizeof umap__op_names[0] == UMAP_OP_COUNT &&
                                    sizeof umap__op_class == UMAP_OP_COUNT) ? 1 : -1];

UMAP__FN const char *umap_op_name(umap_op op) {
    return (int)op >= 0 && op < UMAP_OP_COUNT ? umap__op_names[op] : "?";
}

/* elementwise ops run inside fused regions */
static int umap__is_elementwise(umap_op op) {
    int c = umap__op_class[op];
    return c == UMAP__CLS_U || c == UMAP__CLS_B || c == UMAP__CLS_E;
}
static int umap__is_leaf(umap_op op) { return umap__op_class[op] == UMAP__CLS_L; }

struct umap_tensor {
    umap_graph *graph;
    int id;
    umap_op op;
    umap_dtype dtype;
    umap_shape shape;
    int n_src;
    umap_tensor *src[UMAP_MAX_SRC];
    /* op parameters: ip = ints (axes mask, keepdims, perm, trans flags,
       custom params), lp = int64 (slice start/len, row counts), fp = floats
       (fill value, clamp bounds) */
    int32_t ip[UMAP_MAX_PARAMS];
    int n_ip;
    int64_t lp[2];
    float fp[2];
    const umap_custom_op *custom;
    void *data;                 /* CONST payload, owned by the graph */
    char name[UMAP_NAME_MAX];
};

struct umap_graph {
    umap_allocator alloc;
    umap_logger logger;
    umap_tensor **nodes;
    int n_nodes, cap_nodes;
    umap_result status;
    char detail[512];
};

UMAP__FN umap_shape umap_shape0(void) { umap_shape s; memset(&s, 0, sizeof s); return s; }
UMAP__FN umap_shape umap_shape1(int64_t d0) { umap_shape s = umap_shape0(); s.rank = 1; s.dim[0] = d0; return s; }
UMAP__FN umap_shape umap_shape2(int64_t d0, int64_t d1) {
    umap_shape s = umap_shape0(); s.rank = 2; s.dim[0] = d0; s.dim[1] = d1; return s;
}
UMAP__FN umap_shape umap_shape3(int64_t d0, int64_t d1, int64_t d2) {
    umap_shape s = umap_shape0(); s.rank = 3; s.dim[0] = d0; s.dim[1] = d1; s.dim[2] = d2; return s;
}
UMAP__FN umap_shape umap_shape4(int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
    umap_shape s = umap_shape0(); s.rank = 4; s.dim[0] = d0; s.dim[1] = d1; s.dim[2] = d2; s.dim[3] = d3; return s;
}
UMAP__FN int64_t umap_shape_numel(umap_shape s) {
    int64_t n = 1;
    int i;
    for (i = 0; i < s.rank && i < UMAP_MAX_RANK; i++) n *= s.dim[i];
    return n;
}
static int umap__shape_eq(umap_shape a, umap_shape b) {
    int i;
    if (a.rank != b.rank) return 0;
    for (i = 0; i < a.rank; i++)
        if (a.dim[i] != b.dim[i]) return 0;
    return 1;
}
/* valid: rank in range, dims >= 1, numel fits comfortably in int64 */
static int umap__shape_ok(umap_shape s) {
    int i;
    int64_t n = 1;
    if (s.rank < 0 || s.rank > UMAP_MAX_RANK) return 0;
    for (i = 0; i < s.rank; i++) {
        if (s.dim[i] < 1 || s.dim[i] > ((int64_t)1 << 40)) return 0;
        n *= s.dim[i];
        if (n > ((int64_t)1 << 40)) return 0;
    }
    return 1;
}

UMAP__FN umap_result umap_graph_create(const umap_graph_desc *desc, umap_graph **out) {
    umap_graph *g;
    umap_allocator a;
    if (!out) return UMAP_ERR_INVALID_ARGUMENT;
    *out = NULL;
    memset(&a, 0, sizeof a);
    if (desc) a = desc->allocator;
    if ((a.alloc_fn == NULL) != (a.free_fn == NULL)) return UMAP_ERR_INVALID_ARGUMENT;
    g = (umap_graph *)umap__calloc(&a, 1, sizeof *g);
    if (!g) return UMAP_ERR_OUT_OF_MEMORY;
    g->alloc = a;
    if (desc) g->logger = desc->logger;
    *out = g;
    return UMAP_OK;
}

UMAP__FN void umap_graph_free(umap_graph *g) {
    int i;
    if (!g) return;
    for (i = 0; i < g->n_nodes; i++) {
        umap__free(&g->alloc, g->nodes[i]->data);
        umap__free(&g->alloc, g->nodes[i]);
    }
    umap__free(&g->alloc, g->nodes);
    umap__free(&g->alloc, g);
}

UMAP__FN umap_result umap_graph_status(const umap_graph *g) { return g ? g->status : UMAP_ERR_INVALID_ARGUMENT; }
UMAP__FN const char *umap_graph_error_detail(const umap_graph *g) { return g ? g->detail : "no graph"; }
UMAP__FN void umap_graph_clear_error(umap_graph *g) {
    if (!g) return;
    g->status = UMAP_OK;
    g->detail[0] = 0;
}
UMAP__FN int umap_graph_node_count(const umap_graph *g) { return g ? g->n_nodes : 0; }

/* records the first error; later ones only go to the log */
static void umap__graph_fail(umap_graph *g, umap_result r, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (g->status == UMAP_OK) {
        g->status = r;
        snprintf(g->detail, sizeof g->detail, "%s", buf);
    }
    umap__log(&g->logger, UMAP_LOG_ERROR, "%s", buf);
}

/* a compile error: explained in the graph's detail, but the graph stays
   usable (its status is unchanged) */
static void umap__graph_note(umap_graph *g, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->detail, sizeof g->detail, fmt, ap);
    va_end(ap);
    umap__log(&g->logger, UMAP_LOG_ERROR, "%s", g->detail);
}

UMAP__FN umap_shape umap_tensor_shape(const umap_tensor *t) { return t ? t->shape : umap_shape0(); }
UMAP__FN umap_dtype umap_tensor_dtype(const umap_tensor *t) { return t ? t->dtype : UMAP_F32; }
UMAP__FN umap_op umap_tensor_op(const umap_tensor *t) { return t ? t->op : UMAP_OP_COUNT; }
UMAP__FN int umap_tensor_id(const umap_tensor *t) { return t ? t->id : -1; }
UMAP__FN const char *umap_tensor_name(const umap_tensor *t) { return t ? t->name : ""; }
UMAP__FN umap_tensor *umap_tensor_src(const umap_tensor *t, int i) {
    return t && i >= 0 && i < t->n_src ? t->src[i] : NULL;
}
UMAP__FN const umap_custom_op *umap_tensor_custom_op(const umap_tensor *t) { return t ? t->custom : NULL; }
UMAP__FN umap_tensor *umap_set_name(umap_tensor *t, const char *name) {
    if (t && name) snprintf(t->name, sizeof t->name, "%s", name);
    return t;
}

/* Checks the sources of a builder call: non-NULL, same graph. Returns the
   graph or NULL (and records why when it can). */
static umap_graph *umap__check_srcs(umap_graph *g, const char *op, int n, umap_tensor *const *srcs) {
    int i;
    if (!g) return NULL;
    for (i = 0; i < n; i++) {
        if (!srcs[i]) {
            umap__graph_fail(g, g->status != UMAP_OK ? g->status : UMAP_ERR_INVALID_ARGUMENT,
                             "%s: source %d is NULL (an earlier builder failed?)", op, i);
            return NULL;
        }
        if (srcs[i]->graph != g) {
            umap__graph_fail(g, UMAP_ERR_INVALID_ARGUMENT, "%s: source %d belongs to another graph", op, i);
            return NULL;
        }
    }
    return g;
}

static umap_tensor *umap__new_node(umap_graph *g, umap_op op, umap_dtype dt, umap_shape shape, int n_src,
                                   umap_tensor *const *srcs) {
    umap_tensor *t;
    int i;
    if (!umap__shape_ok(shape)) {
        char s[96];
        umap__shape_str(shape, s, sizeof s);
        umap__graph_fail(g, UMAP_ERR_SHAPE, "%s: invalid shape %s (rank 0..4, dims >= 1)", umap__op_names[op], s);
        return NULL;
    }
    if (!umap__grow(&g->alloc, (void **)&g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof(umap_tensor *))) {
        umap__graph_fail(g, UMAP_ERR_OUT_OF_MEMORY, "%s: out of memory", umap__op_names[op]);
        return NULL;
    }
    t = (umap_tensor *)umap__calloc(&g->alloc, 1, sizeof *t);
    if (!t) {
        umap__graph_fail(g, UMAP_ERR_OUT_OF_MEMORY, "%s: out of memory", umap__op_names[op]);
        return NULL;
    }
    t->graph = g;
    t->id = g->n_nodes;
    t->op = op;
    t->dtype = dt;
    t->shape = shape;
    t->n_src = n_src;
    for (i = 0; i < n_src; i++) t->src[i] = srcs[i];
    g->nodes[g->n_nodes++] = t;
    return t;
}

static umap_tensor *umap__leaf(umap_graph *g, umap_op op, const char *name, umap_dtype dt, umap_shape shape) {
    umap_tensor *t;
    int i;
    if (!g) return NULL;
    if (op == UMAP_OP_INPUT || op == UMAP_OP_PARAM) {
        if (!name || !name[0] || strlen(name) >= UMAP_NAME_MAX) {
            umap__graph_fail(g, UMAP_ERR_INVALID_ARGUMENT, "%s: a name of 1..%d characters is required",
                             umap__op_names[op], UMAP_NAME_MAX - 1);
            return NULL;
        }
        for (i = 0; i < g->n_nodes; i++)
            if ((g->nodes[i]->op == UMAP_OP_INPUT || g->nodes[i]->op == UMAP_OP_PARAM) && !strcmp(g->nodes[i]->name, name)) {
                umap__graph_fail(g, UMAP_ERR_INVALID_ARGUMENT, "%s: the name '%s' is taken by node %d",
                                 umap__op_names[op], name, i);
                return NULL;
            }
    }
    t = umap__new_node(g, op, dt, shape, 0, NULL);
    if (t && name) umap_set_name(t, name);
    return t;
}

UMAP__FN umap_tensor *umap_input(umap_graph *g, const char *name, umap_shape s) {
    return umap__leaf(g, UMAP_OP_INPUT, name, UMAP_F32, s);
}
UMAP__FN umap_tensor *umap_input_i32(umap_graph *g, const char *name, umap_shape s) {
    return umap__leaf(g, UMAP_OP_INPUT, name, UMAP_I32, s);
}
UMAP__FN umap_tensor *umap_param(umap_graph *g, const char *name, umap_shape s) {
    return umap__leaf(g, UMAP_OP_PARAM, name, UMAP_F32, s);
}

static umap_tensor *umap__constant(umap_graph *g, umap_shape s, const void *data, umap_dtype dt) {
    umap_tensor *t;
    if (!g) return NULL;
    if (!data) {
        umap__graph_fail(g, UMAP_ERR_INVALID_ARGUMENT, "const: data is NULL");
        return NULL;
    }
    t = umap__leaf(g, UMAP_OP_CONST, NULL, dt, s);
    if (!t) return NULL;
    t->data = umap__alloc(&g->alloc, (size_t)umap_shape_numel(s) * 4);
    if (!t->data) {
        umap__graph_fail(g, UMAP_ERR_OUT_OF_MEMORY, "const: out of memory");
        return NULL; /* the node stays, dataless and unreachable */
    }
    memcpy(t->data, data, (size_t)umap_shape_numel(s) * 4);
    return t;
}
UMAP__FN umap_tensor *umap_constant(umap_graph *g, umap_shape s, const float *data) {
    return umap__constant(g, s, data, UMAP_F32);
}
UMAP__FN umap_tensor *umap_constant_i32(umap_graph *g, umap_shape s, const int32_t *data) {
    return umap__constant(g, s, data, UMAP_I32);
}
UMAP__FN umap_tensor *umap_full(umap_graph *g, umap_shape s, float value) {
    umap_tensor *t = umap__leaf(g, UMAP_OP_FILL, NULL, UMAP_F32, s);
    if (t) t->fp[0] = value;
    return t;
}
UMAP__FN umap_tensor *umap_scalar(umap_graph *g, float value) { return umap_full(g, umap_shape0(), value); }

static int umap__require_f32(umap_graph *g, const char *op, int n, umap_tensor *const *srcs) {
    int i;
    for (i = 0; i < n; i++)
        if (srcs[i]->dtype != UMAP_F32) {
            umap__graph_fail(g, UMAP_ERR_DTYPE, "%s: source %d (node %d) must be f32", op, i, srcs[i]->id);
            return 0;
        }
    return 1;
}

/* numpy broadcasting of n shapes; 0 and an error when incompatible */
static int umap__broadcast_shapes(umap_graph *g, const char *op, int n, umap_tensor *const *srcs, umap_shape *out) {
    int i, k, rank = 0;
    umap_shape r = umap_shape0();
    for (i = 0; i < n; i++)
        if (srcs[i]->shape.rank > rank) rank = srcs[i]->shape.rank;
    r.rank = rank;
    for (k = 0; k < rank; k++) r.dim[k] = 1;
    for (i = 0; i < n; i++) {
        umap_shape s = srcs[i]->shape;
        int off = rank - s.rank;
        for (k = 0; k < s.rank; k++) {
            int64_t d = s.dim[k];
            if (r.dim[off + k] == 1) r.dim[off + k] = d;
            else if (d != 1 && d != r.dim[off + k]) {
                char a[96], b[96];
                umap__shape_str(srcs[0]->shape, a, sizeof a);
                umap__shape_str(srcs[i]->shape, b, sizeof b);
                umap__graph_fail(g, UMAP_ERR_SHAPE, "%s: shapes %s and %s do not broadcast (axis %d: %lld vs %lld)",
                                 op, a, b, off + k, (long long)r.dim[off + k], (long long)d);
                return 0;
            }
        }
    }
    *out = r;
    return 1;
}

UMAP__FN umap_tensor *umap_unary(umap_graph *g, umap_op op, umap_tensor *x) {
    if (!umap__check_srcs(g, (int)op >= 0 && op < UMAP_OP_COUNT ? umap__op_names[op] : "unary", 1, &x)) return NULL;
    if ((int)op < 0 || op >= UMAP_OP_COUNT || umap__op_class[op] != UMAP__CLS_U) {
        umap__graph_fail(g, UMAP_ERR_INVALID_ARGUMENT, "umap_unary: op %d is not a unary op", (int)op);
        return NULL;
    }
    if (!umap__require_f32(g, umap__op_names[op], 1, &x)) return NULL;
    return umap__new_node(g, op, UMAP_F32, x->shape, 1, &x);
}

UMAP__FN umap_tensor *umap_binary(umap_graph *g, umap_op op, umap_tensor *a, umap_tensor *b) {
    umap_tensor *s[2];
    umap_shape out;
    s[0] = a; s[1] = b;
    if (!umap__check_srcs(g, (int)op >= 0 && op < UMAP_OP_COUNT ? umap__op_names[op] : "binary", 2, s)) return NULL;
    if ((int)op < 0 || op >= UMAP_OP_COUNT || umap__op_class[op] != UMAP__CLS_B) {
        umap__graph_fail(g, UMAP_ERR_INVALID_ARGUMENT, "umap_binary: op %d is not a binary op", (int)op);
        return NULL;
    }
    if (!umap__require_f32(g, umap__op_names[op], 2, s)) return NULL;
    if (!umap__broadcast_shapes(g, umap__op_names[op], 2, s, &out)) return NULL;
    return umap__new_node(g, op, UMAP_F32, out, 2, s);
}

#define UMAP__UNARY_FN(fname, OP) \
    UMAP__FN umap_tensor *umap_##fname(umap_graph *g, umap_tensor *x) { return umap_unary(g, UMAP_OP_##OP, x); }
#define UMAP__BINARY_FN(fname, OP) \
    UMAP__FN umap_tensor *umap_##fname(umap_graph *g, umap_tensor *a, umap_tensor *b) { return umap_binary(g, UMAP_OP_##OP, a, b); }
UMAP__UNARY_FN(neg, NEG) UMAP__UNARY_FN(exp, EXP) UMAP__UNARY_FN(log, LOG) UMAP__UNARY_FN(log1p, LOG1P)
UMAP__UNARY_FN(sqrt, SQRT) UMAP__UNARY_FN(recip, RECIP) UMAP__UNARY_FN(abs, ABS) UMAP__UNARY_FN(relu, RELU)
UMAP__UNARY_FN(sigmoid, SIGMOID) UMAP__UNARY_FN(tanh, TANH) UMAP__UNARY_FN(square, SQUARE) UMAP__UNARY_FN(sign, SIGN)
UMAP__BINARY_FN(add, ADD) UMAP__BINARY_FN(sub, SUB) UMAP__BINARY_FN(mul, MUL) UMAP__BINARY_FN(div, DIV)
UMAP__BINARY_FN(pow, POW) UMAP__BINARY_FN(max, MAX) UMAP__BINARY_FN(min, MIN)
UMAP__BINARY_FN(lt, LT) UMAP__BINARY_FN(le, LE) UMAP__BINARY_FN(gt, GT) UMAP__BINARY_FN(ge, GE)
UMAP__BINARY_FN(eq, EQ) UMAP__BINARY_FN(ne, NE)

UMAP__FN umap_tensor *umap_select(umap_graph *g, umap_tensor *cond, umap_tensor *a, umap_tensor *b) {
    umap_tensor *s[3];
    umap_shape out;
    s[0] = cond; s[1] = a; s[2] = b;
    if (!umap__check_srcs(g, "select", 3, s)) return NULL;
    if (!umap__require_f32(g, "select", 3, s)) return NULL;
    if (!umap__broadcast_shapes(g, "select", 3, s, &out)) return NULL;
    return umap__new_node(g, UMAP_OP_SELECT, UMAP_F32, out, 3, s);
}

UMAP__FN umap_tensor *umap_clamp(umap_graph *g, umap_tensor *x, float lo, float hi) {
    umap_tensor *t;
    if (!umap__check_srcs(g, "clamp", 1, &x)) return NULL;
    if (!umap__require_f32(g, "clamp", 1, &x)) return NULL;
    if (!(lo <= hi)) {
        umap__graph_fail(g, UMAP_ERR_INVALID_ARGUMENT, "clamp: lo %g > hi %g (or NaN)", (double)lo, (double)hi);
        return NULL;
    }
    t = umap__new_node(g, UMAP_OP_CLAMP, UMAP_F32, x->shape, 1, &x);
    if (t) { t->fp[0] = lo; t->fp[1] = hi; }
    return t;
}

UMAP__FN umap_tensor *umap_add_scalar(umap_graph *g, umap_tensor *x, float c) {
    return umap_add(g, x, umap_scalar(g, c));
}
UMAP__FN umap_tensor *umap_mul_scalar(umap_graph *g, umap_tensor *x, float c) {
    return umap_mul(g, x, umap_scalar(g, c));
}

static umap_shape umap__reduced_shape(umap_shape s, unsigned axes, int keepdims) {
    umap_shape r = umap_shape0();
    int i;
    for (i = 0; i < s.rank; i++) {
        if (axes & (1u << i)) {
            if (keepdims) r.dim[r.rank++] = 1;
        } else
            r.dim[r.rank++] = s.dim[i];
    }
    return r;
}

static umap_tensor *umap__reduce(umap_graph *g, umap_op op, umap_tensor *x, unsigned axes, int keepdims) {
    umap_tensor *t;
    if (!umap__check_srcs(g, umap__op_names[op], 1, &x)) return NULL;
    if (!umap__require_f32(g, umap__op_names[op], 1, &x)) return NULL;
    axes &= (1u << x->shape.rank) - 1u;
    if (axes == UMAP_AXES_ALL) axes = (1u << x->shape.rank) - 1u;
    t = umap__new_node(g, op, UMAP_F32, umap__reduced_shape(x->shape, axes, keepdims), 1, &x);
    if (t) { t->ip[0] = (int32_t)axes; t->ip[1] = keepdims ? 1 : 0; t->n_ip = 2; }
    return t;
}
UMAP__FN umap_tensor *umap_sum(umap_graph *g, umap_tensor *x, unsigned axes, int keepdims) {
    return umap__reduce(g, UMAP_OP_SUM, x, axes, keepdims);
}
UMAP__FN umap_tensor *umap_mean(umap_graph *g, umap_tensor *x, unsigned axes, int keepdims) {
    return umap__reduce(g, UMAP_OP_MEAN, x, axes, keepdims);
}
UMAP__FN umap_tensor *umap_reduce_max(umap_graph *g, umap_tensor *x, unsigned axes, int keepdims) {
    return umap__reduce(g, UMAP_OP_RMAX, x, axes, keepdims);
}

UMAP__FN umap_tensor *umap_reshape(umap_graph *g, umap_tensor *x, umap_shape s) {
    if (!umap__check_srcs(g, "reshape", 1, &x)) return NULL;
    if (!umap__shape_ok(s) || umap_shape_numel(s) != umap_shape_numel(x->shape)) {
        char a[96], b[96];
        umap__shape_str(x->shape, a, sizeof a);
        umap__shape_str(s, b, sizeof b);
        umap__graph_fail(g, UMAP_ERR_SHAPE, "reshape: cannot reshape %s to %s", a, b);
        return NULL;
    }
    return umap__new_node(g, UMAP_OP_RESHAPE, x->dtype, s, 1, &x);
}

UMAP__FN umap_tensor *umap_permute(umap_graph *g, umap_tensor *x, const int *perm) {
    umap_shape s;
    unsigned seen = 0;
    int i;
    umap_tensor *t;
    if (!umap__check_srcs(g, "permute", 1, &x)) return NULL;
    if (!perm) {
        umap__graph_fail(g, UMAP_ERR_INVALID_ARGUMENT, "permute: perm is NULL");
        return NULL;
    }
    s = x->shape;
    for (i = 0; i < x->shape.rank; i++) {
        if (perm[i] < 0 || perm[i] >= x->shape.rank || (seen & (1u << perm[i]))) {
            umap__graph_fail(g, UMAP_ERR_INVALID_ARGUMENT, "permute: perm is not a permutation of 0..%d",
                             x->shape.rank - 1);
            return NULL;
        }
        seen |= 1u << perm[i];
        s.dim[i] = x->shape.dim[perm[i]];
    }
    t = umap__new_node(g, UMAP_OP_PERMUTE, x->dtype, s, 1, &x);
    if (t) {
        for (i = 0; i < x->shape.rank; i++) t->ip[i] = perm[i];
        t->n_ip = x->shape.rank;
    }
    return t;
}

UMAP__FN umap_tensor *umap_transpose(umap_graph *g, umap_tensor *x) {
    int perm[UMAP_MAX_RANK], i, r;
    if (!umap__check_srcs(g, "transpose", 1, &x)) return NULL;
    r = x->shape.rank;
    if (r < 2) {
        umap__graph_fail(g, UMAP_ERR_SHAPE, "transpose: needs rank >= 2, got rank %d", r);
        return NULL;
    }
    for (i = 0; i < r; i++) perm[i] = i;
    perm[r - 1] = r - 2;
    perm[r - 2] = r - 1;
    return umap_permute(g, x, perm);
}

UMAP__FN umap_tensor *umap_broadcast(umap_graph *g, umap_tensor *x, umap_shape s) {
    int k, off;
    if (!umap__check_srcs(g, "broadcast", 1, &x)) return NULL;
    off = s.rank - x->shape.rank;
    if (off < 0 || !umap__shape_ok(s)) goto bad;
    for (k = 0; k < x->shape.rank; k++)
        if (x->shape.dim[k] != 1 && x->shape.dim[k] != s.dim[off + k]) goto bad;
    return umap__new_node(g, UMAP_OP_BROADCAST, x->dtype, s, 1, &x);
bad: {
    char a[96], b[96];
    umap__shape_str(x->shape, a, sizeof a);
    umap__shape_str(s, b, sizeof b);
    umap__graph_fail(g, UMAP_ERR_SHAPE, "broadcast: cannot broadcast %s to %s", a, b);
    return NULL;
}
}

UMAP__FN umap_tensor *umap_slice(umap_graph *g, umap_tensor *x, int axis, int64_t start, int64_t len) {
    umap_shape s;
    umap_tensor *t;
    if (!umap__check_srcs(g, "slice", 1, &x)) return NULL;
    if (axis < 0 || axis >= x->shape.rank || start < 0 || len < 1 || start + len > x->shape.dim[axis]) {
        char a[96];
        umap__shape_str(x->shape, a, sizeof a);
        umap__graph_fail(g, UMAP_ERR_SHAPE, "slice: axis %d [%lld, %lld) is outside %s", axis, (long long)start,
                         (long long)(start + len), a);
        return NULL;
    }
    s = x->shape;
    s.dim[axis] = len;
    t = umap__new_node(g, UMAP_OP_SLICE, x->dtype, s, 1, &x);
    if (t) { t->ip[0] = axis; t->n_ip = 1; t->lp[0] = start; t->lp[1] = len; }
    return t;
}

UMAP__FN umap_tensor *umap_concat(umap_graph *g, int n, umap_tensor *const *xs, int axis) {
    umap_shape s;
    int i, k;
    umap_tensor *t;
    if (!g) return NULL;
    if (n < 1 || n > UMAP_MAX_SRC || !xs) {
        umap__graph_fail(g, UMAP_ERR_INVALID_ARGUMENT, "concat: needs 1..%d tensors, got %d", UMAP_MAX_SRC, n);
        return NULL;
    }
    if (!umap__check_srcs(g, "concat", n, xs)) return NULL;
    s = xs[0]->shape;
    if (axis < 0 || axis >= s.rank) {
        umap__graph_fail(g, UMAP_ERR_SHAPE, "concat: axis %d out of range for rank %d", axis, s.rank);
        return NULL;
    }
    for (i = 1; i < n; i++) {
        int ok = xs[i]->shape.rank == s.rank && xs[i]->dtype == xs[0]->dtype;
        for (k = 0; ok && k < s.rank; k++)
            if (k != axis && xs[i]->shape.dim[k] != s.dim[k]) ok = 0;
        if (!ok) {
            char a[96], b[96];
            umap__shape_str(xs[0]->shape, a, sizeof a);
            umap__shape_str(xs[i]->shape, b, sizeof b);
            umap__graph_fail(g, UMAP_ERR_SHAPE, "concat: %s and %s differ off axis %d (or in type)", a, b, axis);
            return NULL;
        }
        s.dim[axis] += xs[i]->shape.dim[axis];
    }
    t = umap__new_node(g, UMAP_OP_CONCAT, xs[0]->dtype, s, n, xs);
    if (t) { t->ip[0] = axis; t->n_ip = 1; }
    return t;
}

UMAP__FN umap_tensor *umap_matmul_ex(umap_graph *g, umap_tensor *a, umap_tensor *b, int trans_a, int trans_b) {
    umap_tensor *s[2], *t;
    int64_t m, ka, kb, n, batch = 1;
    umap_shape out;
    s[0] = a; s[1] = b;
    if (!umap__check_srcs(g, "matmul", 2, s)) return NULL;
    if (!umap__require_f32(g, "matmul", 2, s)) return NULL;
    if (a->shape.rank < 2 || a->shape.rank > 3 || b->shape.rank < 2 || b->shape.rank > 3) goto bad;
    m = a->shape.dim[a->shape.rank - (trans_a ? 1 : 2)];
    ka = a->shape.dim[a->shape.rank - (trans_a ? 2 : 1)];
    kb = b->shape.dim[b->shape.rank - (trans_b ? 1 : 2)];
    n = b->shape.dim[b->shape.rank - (trans_b ? 2 : 1)];
    if (ka != kb) goto bad;
    if (a->shape.rank == 3 && b->shape.rank == 3 && a->shape.dim[0] != b->shape.dim[0]) goto bad;
    if (a->shape.rank == 3) batch = a->shape.dim[0];
    else if (b->shape.rank == 3) batch = b->shape.dim[0];
    out = (a->shape.rank == 3 || b->shape.rank == 3) ? umap_shape3(batch, m, n) : umap_shape2(m, n);
    t = umap__new_node(g, UMAP_OP_MATMUL, UMAP_F32, out, 2, s);
    if (t) { t->ip[0] = trans_a ? 1 : 0; t->ip[1] = trans_b ? 1 : 0; t->n_ip = 2; }
    return t;
bad: {
    char x[96], y[96];
    umap__shape_str(a->shape, x, sizeof x);
    umap__shape_str(b->shape, y, sizeof y);
    umap__graph_fail(g, UMAP_ERR_SHAPE, "matmul: cannot multiply %s%s by %s%s", x, trans_a ? "^T" : "", y,
                     trans_b ? "^T" : "");
    return NULL;
}
}
UMAP__FN umap_tensor *umap_matmul(umap_graph *g, umap_tensor *a, umap_tensor *b) {
    return umap_matmul_ex(g, a, b, 0, 0);
}

UMAP__FN umap_tensor *umap_gather(umap_graph *g, umap_tensor *x, umap_tensor *idx) {
    umap_tensor *s[2];
    umap_shape out;
    int k;
    s[0] = x; s[1] = idx;
    if (!umap__check_srcs(g, "gather", 2, s)) return NULL;
    if (idx->dtype != UMAP_I32 || x->dtype != UMAP_F32) {
        umap__graph_fail(g, UMAP_ERR_DTYPE, "gather: needs f32 rows and an i32 index tensor");
        return NULL;
    }
    if (x->shape.rank < 1 || idx->shape.rank + x->shape.rank - 1 > UMAP_MAX_RANK) {
        umap__graph_fail(g, UMAP_ERR_SHAPE, "gather: result rank %d exceeds %d", idx->shape.rank + x->shape.rank - 1,
                         UMAP_MAX_RANK);
        return NULL;
    }
    out = idx->shape;
    for (k = 1; k < x->shape.rank; k++) out.dim[out.rank++] = x->shape.dim[k];
    return umap__new_node(g, UMAP_OP_GATHER, UMAP_F32, out, 2, s);
}

UMAP__FN umap_tensor *umap_scatter_add(umap_graph *g, umap_tensor *src, umap_tensor *idx, int64_t n_rows) {
    umap_tensor *s[2], *t;
    umap_shape out = umap_shape0();
    int k;
    s[0] = src; s[1] = idx;
    if (!umap__check_srcs(g, "scatter_add", 2, s)) return NULL;
    if (idx->dtype != UMAP_I32 || src->dtype != UMAP_F32) {
        umap__graph_fail(g, UMAP_ERR_DTYPE, "scatter_add: needs f32 rows and an i32 index tensor");
        return NULL;
    }
    for (k = 0; k < idx->shape.rank; k++)
        if (k >= src->shape.rank || src->shape.dim[k] != idx->shape.dim[k]) {
            char a[96], b[96];
            umap__shape_str(src->shape, a, sizeof a);
            umap__shape_str(idx->shape, b, sizeof b);
            umap__graph_fail(g, UMAP_ERR_SHAPE, "scatter_add: source %s does not start with index shape %s", a, b);
            return NULL;
        }
    out.rank = 1 + src->shape.rank - idx->shape.rank;
    out.dim[0] = n_rows;
    for (k = idx->shape.rank; k < src->shape.rank; k++) out.dim[1 + k - idx->shape.rank] = src->shape.dim[k];
    t = umap__new_node(g, UMAP_OP_SCATTER_ADD, UMAP_F32, out, 2, s);
    if (t) t->lp[0] = n_rows;
    return t;
}

UMAP__FN umap_tensor *umap_custom(umap_graph *g, const umap_custom_op *op, int n_src, umap_tensor *const *srcs,
                                  const int32_t *params, int n_params) {
    umap_shape in_shapes[UMAP_MAX_SRC], out;
    umap_dtype in_types[UMAP_MAX_SRC], odt = UMAP_F32;
    umap_tensor *t;
    umap_result r;
    int i;
    if (!g) return NULL;
    if (!op || !op->name || !op->shape_fn || n_src < 0 || n_src > UMAP_MAX_SRC || n_params < 0 ||
        n_params > UMAP_MAX_PARAMS || (n_params > 0 && !params) || (n_src > 0 && !srcs)) {
        umap__graph_fail(g, UMAP_ERR_INVALID_ARGUMENT,
                         "custom: needs an op with name and shape_fn, 0..%d sources, 0..%d params", UMAP_MAX_SRC,
                         UMAP_MAX_PARAMS);
        return NULL;
    }
    if (!umap__check_srcs(g, op->name, n_src, srcs)) return NULL;
    for (i = 0; i < n_src; i++) { in_shapes[i] = srcs[i]->shape; in_types[i] = srcs[i]->dtype; }
    out = umap_shape0();
    r = op->shape_fn(op, n_src, in_shapes, in_types, params, n_params, &out, &odt);
    if (r != UMAP_OK) {
        umap__graph_fail(g, r, "%s: the op's shape rule rejected its sources (%s)", op->name, umap_result_string(r));
        return NULL;
    }
    t = umap__new_node(g, UMAP_OP_CUSTOM, odt, out, n_src, srcs);
    if (t) {
        t->custom = op;
        for (i = 0; i < n_params; i++) t->ip[i] = params[i];
        t->n_ip = n_params;
    }
    return t;
}

static void umap__node_params_str(const umap_tensor *t, char *buf, size_t n);

UMAP__FN void umap_graph_dump(const umap_graph *g, int n_out, umap_tensor *const *outs, FILE *f) {
    int i, j;
    char *keep = NULL;
    if (!g || !f) return;
    if (n_out > 0 && outs) {
        keep = (char *)umap__calloc(&g->alloc, (size_t)g->n_nodes + 1, 1);
        if (keep) {
            for (i = 0; i < n_out; i++)
                if (outs[i] && outs[i]->graph == g) keep[outs[i]->id] = 1;
            for (i = g->n_nodes - 1; i >= 0; i--)
                if (keep[i])
                    for (j = 0; j < g->nodes[i]->n_src; j++) keep[g->nodes[i]->src[j]->id] = 1;
        }
    }
    fprintf(f, "graph: %d nodes\n", g->n_nodes);
    for (i = 0; i < g->n_nodes; i++) {
        const umap_tensor *t = g->nodes[i];
        char s[96], p[128];
        if (keep && !keep[i]) continue;
        umap__shape_str(t->shape, s, sizeof s);
        umap__node_params_str(t, p, sizeof p);
        fprintf(f, "  %%%d = %s", i, t->op == UMAP_OP_CUSTOM ? t->custom->name : umap__op_names[t->op]);
        for (j = 0; j < t->n_src; j++) fprintf(f, "%s%%%d", j ? ", " : " ", t->src[j]->id);
        fprintf(f, "%s : %s%s%s%s%s\n", p, t->dtype == UMAP_I32 ? "i32" : "f32", s, t->name[0] ? "  \"" : "",
                t->name, t->name[0] ? "\"" : "");
    }
    umap__free(&g->alloc, keep);
}

static void umap__node_params_str(const umap_tensor *t, char *buf, size_t n) {
    buf[0] = 0;
    switch (t->op) {
    case UMAP_OP_FILL: snprintf(buf, n, " value=%g", (double)t->fp[0]); break;
    case UMAP_OP_CLAMP: snprintf(buf, n, " lo=%g hi=%g", (double)t->fp[0], (double)t->fp[1]); break;
    case UMAP_OP_SUM: case UMAP_OP_MEAN: case UMAP_OP_RMAX:
        snprintf(buf, n, " axes=0x%x keepdims=%d", (unsigned)t->ip[0], (int)t->ip[1]); break;
    case UMAP_OP_PERMUTE:
        snprintf(buf, n, " perm=%d%d%d%d", (int)t->ip[0], (int)t->ip[1], (int)t->ip[2], (int)t->ip[3]);
        buf[6 + t->shape.rank] = 0;
        break;
    case UMAP_OP_SLICE:
        snprintf(buf, n, " axis=%d start=%lld len=%lld", (int)t->ip[0], (long long)t->lp[0], (long long)t->lp[1]);
        break;
    case UMAP_OP_CONCAT: snprintf(buf, n, " axis=%d", (int)t->ip[0]); break;
    case UMAP_OP_MATMUL:
        if (t->ip[0] || t->ip[1]) snprintf(buf, n, " trans_a=%d trans_b=%d", (int)t->ip[0], (int)t->ip[1]);
        break;
    case UMAP_OP_SCATTER_ADD: snprintf(buf, n, " rows=%lld", (long long)t->lp[0]); break;
    default: break;
    }
}

/* >>knn ops: k-NN as custom ops in the graph ------------------------------- */

static umap_result umap__knn_op_shape(const umap_custom_op *op, int n_src, const umap_shape *s, const umap_dtype *t,
                                      const int32_t *params, int n_params, umap_shape *out, umap_dtype *odt) {
    (void)op;
    if (n_src != 1 || n_params != 1 || t[0] != UMAP_F32 || s[0].rank != 2 || s[0].dim[0] != s[0].dim[1])
        return UMAP_ERR_SHAPE;
    if (params[0] < 1 || params[0] >= s[0].dim[0] || s[0].dim[0] > 16777216) return UMAP_ERR_INVALID_ARGUMENT;
    *out = umap_shape2(s[0].dim[0], 2 * (int64_t)params[0]);
    *odt = UMAP_F32;
    return UMAP_OK;
}

typedef struct umap__knn_op_ctx {
    const float *D;
    float *out;
    int64_t n;
    int k;
} umap__knn_op_ctx;

/* each row's k smallest D[i][j], j != i, by insertion straight into its
   output row (indices in the first k columns, distances in the next k) */
static void umap__knn_op_rows(void *ctx, int64_t r0, int64_t r1) {
    const umap__knn_op_ctx *c = (const umap__knn_op_ctx *)ctx;
    int64_t i, j;
    int k = c->k;
    for (i = r0; i < r1; i++) {
        float *o = c->out + i * 2 * k;
        int n = 0;
        for (j = 0; j < c->n; j++) {
            float v = c->D[i * c->n + j];
            int p;
            if (j == i) continue;
            /* (distance, index) order; indices < 2^24 are exact as floats */
            if (n == k && !(v < o[2 * k - 1] || (v == o[2 * k - 1] && (float)j < o[k - 1]))) continue;
            p = n < k ? n++ : k - 1;
            while (p > 0 && (v < o[k + p - 1] || (v == o[k + p - 1] && (float)j < o[p - 1]))) {
                o[p] = o[p - 1];
                o[k + p] = o[k + p - 1];
                p--;
            }
            o[p] = (float)j;
            o[k + p] = v;
        }
    }
}

static umap_result umap__knn_op_cpu(const umap_custom_op *op, const umap_custom_call *call) {
    umap__knn_op_ctx c;
    (void)op;
    c.D = (const float *)call->src[0];
    c.out = (float *)call->out;
    c.n = call->src_shape[0].dim[0];
    c.k = call->params[0];
    umap__parallel_range(call->pool, c.n, 1 + 65536 / c.n, umap__knn_op_rows, &c);
    return UMAP_OK;
}

static umap_tensor *umap__knn_op_grad(umap_graph *g, const umap_custom_op *op, umap_tensor *node, umap_tensor *dy,
                                      int i) {
    umap_tensor *srcs[2];
    (void)op;
    if (i != 0) return NULL;
    srcs[0] = node;
    srcs[1] = dy;
    return umap_custom(g, umap_knn_backward_op(), 2, srcs, NULL, 0);
}

static umap_result umap__knn_bwd_shape(const umap_custom_op *op, int n_src, const umap_shape *s, const umap_dtype *t,
                                       const int32_t *params, int n_params, umap_shape *out, umap_dtype *odt) {
    (void)op; (void)params; (void)n_params;
    if (n_src != 2 || t[0] != UMAP_F32 || t[1] != UMAP_F32 || s[0].rank != 2 || !umap__shape_eq(s[0], s[1]) ||
        s[0].dim[1] % 2)
        return UMAP_ERR_SHAPE;
    *out = umap_shape2(s[0].dim[0], s[0].dim[0]);
    *odt = UMAP_F32;
    return UMAP_OK;
}

typedef struct umap__knn_bwd_ctx {
    const float *packed, *dpacked;
    float *dD;
    int64_t n, k;
} umap__knn_bwd_ctx;

static void umap__knn_bwd_rows(void *ctx, int64_t r0, int64_t r1) {
    const umap__knn_bwd_ctx *c = (const umap__knn_bwd_ctx *)ctx;
    int64_t i, q;
    for (i = r0; i < r1; i++) {
        float *row = c->dD + i * c->n;
        memset(row, 0, (size_t)c->n * sizeof(float));
        for (q = 0; q < c->k; q++) {
            float fj = c->packed[i * 2 * c->k + q];
            int64_t j = (int64_t)fj;
            if (fj >= 0.0f && j < c->n) row[j] += c->dpacked[i * 2 * c->k + c->k + q];
        }
    }
}

static umap_result umap__knn_bwd_cpu(const umap_custom_op *op, const umap_custom_call *call) {
    umap__knn_bwd_ctx c;
    (void)op;
    c.packed = (const float *)call->src[0];
    c.dpacked = (const float *)call->src[1];
    c.dD = (float *)call->out;
    c.n = call->out_shape.dim[0];
    c.k = call->src_shape[0].dim[1] / 2;
    umap__parallel_range(call->pool, c.n, 1 + 65536 / c.n, umap__knn_bwd_rows, &c);
    return UMAP_OK;
}

static const umap_custom_op umap__knn_op_desc = {"umap.knn", umap__knn_op_shape, umap__knn_op_cpu, umap__knn_op_grad,
                                                 NULL};
static const umap_custom_op umap__knn_bwd_desc = {"umap.knn_backward", umap__knn_bwd_shape, umap__knn_bwd_cpu, NULL,
                                                  NULL};
UMAP__FN const umap_custom_op *umap_knn_op(void) { return &umap__knn_op_desc; }
UMAP__FN const umap_custom_op *umap_knn_backward_op(void) { return &umap__knn_bwd_desc; }

UMAP__FN umap_tensor *umap_knn_graph(umap_graph *g, umap_tensor *pairwise, int k) {
    int32_t p = k;
    return umap_custom(g, umap_knn_op(), 1, &pairwise, &p, 1);
}

/* squared norms of the rows, [n,1] */
static umap_tensor *umap__row_sq(umap_graph *g, umap_tensor *x) { return umap_sum(g, umap_square(g, x), 2u, 1); }

UMAP__FN umap_tensor *umap_pairwise_euclidean(umap_graph *g, umap_tensor *x) {
    umap_tensor *sq, *d2, *pos, *zero;
    if (!g) return NULL;
    if (x && x->shape.rank != 2) {
        umap__graph_fail(g, UMAP_ERR_SHAPE, "pairwise_euclidean: needs a [n,d] matrix, got rank %d", x->shape.rank);
        return NULL;
    }
    sq = umap__row_sq(g, x);
    d2 = umap_sub(g, umap_add(g, sq, umap_transpose(g, sq)), umap_mul_scalar(g, umap_matmul_ex(g, x, x, 0, 1), 2.0f));
    /* sqrt is taken of max(d2, tiny) and discarded where d2 <= 0: the value
       is exactly 0 there and the gradient 0, not NaN */
    zero = umap_scalar(g, 0.0f);
    pos = umap_gt(g, d2, zero);
    return umap_select(g, pos, umap_sqrt(g, umap_max(g, d2, umap_scalar(g, 1e-30f))), zero);
}

UMAP__FN umap_tensor *umap_pairwise_cosine(umap_graph *g, umap_tensor *x) {
    umap_tensor *norm, *xn;
    if (!g) return NULL;
    if (x && x->shape.rank != 2) {
        umap__graph_fail(g, UMAP_ERR_SHAPE, "pairwise_cosine: needs a [n,d] matrix, got rank %d", x->shape.rank);
        return NULL;
    }
    /* zero rows stay zero after the division, so their similarity is 0 */
    norm = umap_max(g, umap_sqrt(g, umap__row_sq(g, x)), umap_scalar(g, 1e-30f));
    xn = umap_div(g, x, norm);
    return umap_sub(g, umap_scalar(g, 1.0f), umap_matmul_ex(g, xn, xn, 0, 1));
}

UMAP__FN umap_tensor *umap_knn_cosine(umap_graph *g, umap_tensor *x, int k) {
    return umap_knn_graph(g, umap_pairwise_cosine(g, x), k);
}

/* >>autodiff -------------------------------------------------------------- */

/* Sums a gradient down to the shape of the tensor it flowed from (the
   reverse of numpy broadcasting). */
static umap_tensor *umap__unbroadcast(umap_graph *g, umap_tensor *dy, umap_shape target) {
    unsigned axes = 0;
    int k, off;
    if (!dy) return NULL;
    if (umap__shape_eq(dy->shape, target)) return dy;
    off = dy->shape.rank - target.rank;
    for (k = 0; k < dy->shape.rank; k++)
        if (k < off || (target.dim[k - off] == 1 && dy->shape.dim[k] != 1)) axes |= 1u << k;
    if (axes) dy = umap_sum(g, dy, axes, 1);
    return umap_reshape(g, dy, target);
}

/* tangents and cotangents live at the shape of their node */
static umap_tensor *umap__expand(umap_graph *g, umap_tensor *t, umap_shape s) {
    if (!t || umap__shape_eq(t->shape, s)) return t;
    return umap_broadcast(g, t, s);
}

static umap_tensor *umap__zeros_like(umap_graph *g, const umap_tensor *t) { return umap_full(g, t->shape, 0.0f); }

static umap_tensor *umap__clamp_mask(umap_graph *g, umap_tensor *node) {
    umap_tensor *x = node->src[0];
    return umap_mul(g, umap_ge(g, x, umap_scalar(g, node->fp[0])), umap_le(g, x, umap_scalar(g, node->fp[1])));
}

/* sum of a batched product over the batch axis when the operand was 2-D */
static umap_tensor *umap__fit_batch(umap_graph *g, umap_tensor *d, const umap_tensor *operand) {
    if (d && d->shape.rank == 3 && operand->shape.rank == 2) return umap_sum(g, d, 1u, 0);
    return d;
}

/* d(loss)/d(src[i]) of node y given dy (y's shape), or NULL when src i gets
   no gradient. Errors are recorded in the graph. */
static umap_tensor *umap__vjp(umap_graph *g, umap_tensor *y, umap_tensor *dy, int i) {
    umap_tensor *x = y->src[0], *a = y->src[0], *b = y->n_src > 1 ? y->src[1] : NULL;
    umap_tensor *zero, *r = NULL;
    switch (y->op) {
    case UMAP_OP_NEG: return umap_neg(g, dy);
    case UMAP_OP_EXP: return umap_mul(g, dy, y);
    case UMAP_OP_LOG: return umap_div(g, dy, x);
    case UMAP_OP_LOG1P: return umap_div(g, dy, umap_add_scalar(g, x, 1.0f));
    case UMAP_OP_SQRT: return umap_div(g, dy, umap_mul_scalar(g, y, 2.0f));
    case UMAP_OP_RECIP: return umap_neg(g, umap_mul(g, dy, umap_square(g, y)));
    case UMAP_OP_ABS: return umap_mul(g, dy, umap_sign(g, x));
    case UMAP_OP_RELU: /* y > 0 iff x > 0; reading y lets add+relu fuse in the forward pass */
        return umap_select(g, umap_gt(g, y, umap_scalar(g, 0.0f)), dy, umap_scalar(g, 0.0f));
    case UMAP_OP_SIGMOID:
        return umap_mul(g, dy, umap_mul(g, y, umap_sub(g, umap_scalar(g, 1.0f), y)));
    case UMAP_OP_TANH: return umap_mul(g, dy, umap_sub(g, umap_scalar(g, 1.0f), umap_square(g, y)));
    case UMAP_OP_SQUARE: return umap_mul(g, dy, umap_mul_scalar(g, x, 2.0f));
    case UMAP_OP_SIGN: case UMAP_OP_LT: case UMAP_OP_LE: case UMAP_OP_GT: case UMAP_OP_GE: case UMAP_OP_EQ:
    case UMAP_OP_NE:
        return NULL;
    case UMAP_OP_ADD: r = dy; break;
    case UMAP_OP_SUB: r = i == 0 ? dy : umap_neg(g, dy); break;
    case UMAP_OP_MUL: r = umap_mul(g, dy, i == 0 ? b : a); break;
    case UMAP_OP_DIV: r = i == 0 ? umap_div(g, dy, b) : umap_neg(g, umap_div(g, umap_mul(g, dy, y), b)); break;
    case UMAP_OP_POW:
        r = i == 0 ? umap_mul(g, dy, umap_mul(g, b, umap_pow(g, a, umap_add_scalar(g, b, -1.0f))))
                   : umap_mul(g, dy, umap_mul(g, y, umap_log(g, a)));
        break;
    case UMAP_OP_MAX: case UMAP_OP_MIN: {
        /* ties go to the first operand */
        umap_tensor *first = y->op == UMAP_OP_MAX ? umap_ge(g, a, b) : umap_le(g, a, b);
        zero = umap_scalar(g, 0.0f);
        r = i == 0 ? umap_select(g, first, dy, zero) : umap_select(g, first, zero, dy);
        break;
    }
    case UMAP_OP_SELECT:
        if (i == 0) return NULL;
        zero = umap_scalar(g, 0.0f);
        r = i == 1 ? umap_select(g, y->src[0], dy, zero) : umap_select(g, y->src[0], zero, dy);
        break;
    case UMAP_OP_CLAMP: return umap_select(g, umap__clamp_mask(g, y), dy, umap_scalar(g, 0.0f));
    case UMAP_OP_SUM: case UMAP_OP_MEAN: {
        umap_tensor *d = umap_reshape(g, dy, umap__reduced_shape(x->shape, (unsigned)y->ip[0], 1));
        if (y->op == UMAP_OP_MEAN)
            d = umap_mul_scalar(g, d, (float)((double)umap_shape_numel(y->shape) / (double)umap_shape_numel(x->shape)));
        return umap_broadcast(g, d, x->shape);
    }
    case UMAP_OP_RMAX: {
        umap_shape ks = umap__reduced_shape(x->shape, (unsigned)y->ip[0], 1);
        umap_tensor *hit = umap_eq(g, x, umap_reshape(g, y, ks));
        return umap_mul(g, hit, umap_reshape(g, dy, ks));
    }
    case UMAP_OP_RESHAPE: return umap_reshape(g, dy, x->shape);
    case UMAP_OP_PERMUTE: {
        int inv[UMAP_MAX_RANK], k;
        for (k = 0; k < x->shape.rank; k++) inv[y->ip[k]] = k;
        return umap_permute(g, dy, inv);
    }
    case UMAP_OP_BROADCAST: return umap__unbroadcast(g, dy, x->shape);
    case UMAP_OP_SLICE: {
        /* pad back with zeros on both sides of the sliced axis */
        umap_tensor *parts[3];
        int n = 0, axis = y->ip[0];
        umap_shape s = x->shape;
        if (y->lp[0] > 0) { s.dim[axis] = y->lp[0]; parts[n++] = umap_full(g, s, 0.0f); }
        parts[n++] = dy;
        if (y->lp[0] + y->lp[1] < x->shape.dim[axis]) {
            s.dim[axis] = x->shape.dim[axis] - y->lp[0] - y->lp[1];
            parts[n++] = umap_full(g, s, 0.0f);
        }
        return n == 1 ? dy : umap_concat(g, n, parts, axis);
    }
    case UMAP_OP_CONCAT: {
        int64_t off = 0;
        int k, axis = y->ip[0];
        for (k = 0; k < i; k++) off += y->src[k]->shape.dim[axis];
        return umap_slice(g, dy, axis, off, y->src[i]->shape.dim[axis]);
    }
    case UMAP_OP_MATMUL: {
        int ta = y->ip[0], tb = y->ip[1];
        if (i == 0) {
            r = ta ? (tb ? umap_matmul_ex(g, b, dy, 1, 1) : umap_matmul_ex(g, b, dy, 0, 1))
                   : (tb ? umap_matmul_ex(g, dy, b, 0, 0) : umap_matmul_ex(g, dy, b, 0, 1));
            return umap__fit_batch(g, r, a);
        }
        if (!ta && a->shape.rank == 3 && b->shape.rank == 2) {
            /* shared weight: fold the batch into rows, one big product */
            umap_tensor *a2 = umap_reshape(g, a, umap_shape2(a->shape.dim[0] * a->shape.dim[1], a->shape.dim[2]));
            umap_tensor *d2 = umap_reshape(g, dy, umap_shape2(dy->shape.dim[0] * dy->shape.dim[1], dy->shape.dim[2]));
            return tb ? umap_matmul_ex(g, d2, a2, 1, 0) : umap_matmul_ex(g, a2, d2, 1, 0);
        }
        r = tb ? (ta ? umap_matmul_ex(g, dy, a, 1, 1) : umap_matmul_ex(g, dy, a, 1, 0))
               : (ta ? umap_matmul_ex(g, a, dy, 0, 0) : umap_matmul_ex(g, a, dy, 1, 0));
        return umap__fit_batch(g, r, b);
    }
    case UMAP_OP_GATHER: return i == 0 ? umap_scatter_add(g, dy, b, a->shape.dim[0]) : NULL;
    case UMAP_OP_SCATTER_ADD: return i == 0 ? umap_gather(g, dy, b) : NULL;
    case UMAP_OP_CUSTOM:
        if (!y->custom->grad_fn) {
            umap__graph_fail(g, UMAP_ERR_NOT_DIFFERENTIABLE, "grad: custom op '%s' has no grad_fn", y->custom->name);
            return NULL;
        }
        return y->custom->grad_fn(g, y->custom, y, dy, i);
    default: return NULL;
    }
    return umap__unbroadcast(g, r, y->src[i]->shape);
}

static int umap__grad_needed(umap_tensor *s, const char *needs) {
    return s->dtype == UMAP_F32 && needs[s->id];
}

UMAP__FN umap_result umap_grad(umap_graph *g, umap_tensor *loss, int n_wrt, umap_tensor *const *wrt,
                               umap_tensor **grads) {
    umap_tensor **adj;
    char *needs;
    int n, i, j;
    if (!g) return UMAP_ERR_INVALID_ARGUMENT;
    if (g->status != UMAP_OK) return UMAP_ERR_GRAPH;
    if (!loss || n_wrt < 0 || (n_wrt > 0 && (!wrt || !grads)) || loss->graph != g) {
        umap__graph_fail(g, UMAP_ERR_INVALID_ARGUMENT, "grad: NULL loss, wrt or grads");
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    if (umap_shape_numel(loss->shape) != 1 || loss->dtype != UMAP_F32) {
        char s[96];
        umap__shape_str(loss->shape, s, sizeof s);
        umap__graph_fail(g, UMAP_ERR_SHAPE, "grad: the loss must be one f32 value, got shape %s", s);
        return UMAP_ERR_SHAPE;
    }
    for (i = 0; i < n_wrt; i++)
        if (!wrt[i] || wrt[i]->graph != g || wrt[i]->dtype != UMAP_F32) {
            umap__graph_fail(g, UMAP_ERR_INVALID_ARGUMENT, "grad: wrt[%d] is NULL, foreign or not f32", i);
            return UMAP_ERR_INVALID_ARGUMENT;
        }
    n = loss->id + 1;
    adj = (umap_tensor **)umap__calloc(&g->alloc, (size_t)n, sizeof *adj);
    needs = (char *)umap__calloc(&g->alloc, (size_t)n, 1);
    if (!adj || !needs) {
        umap__free(&g->alloc, adj);
        umap__free(&g->alloc, needs);
        umap__graph_fail(g, UMAP_ERR_OUT_OF_MEMORY, "grad: out of memory");
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    /* forward: which nodes depend on a wrt */
    for (i = 0; i < n_wrt; i++)
        if (wrt[i]->id < n) needs[wrt[i]->id] = 1;
    for (i = 0; i < n; i++) {
        umap_tensor *t = g->nodes[i];
        for (j = 0; j < t->n_src && !needs[i]; j++) needs[i] = needs[t->src[j]->id];
    }
    adj[loss->id] = umap_full(g, loss->shape, 1.0f);
    /* reverse: walk the nodes that existed before we started */
    for (i = n - 1; i >= 0 && g->status == UMAP_OK; i--) {
        umap_tensor *t = g->nodes[i];
        if (!adj[i] || umap__is_leaf(t->op)) continue;
        for (j = 0; j < t->n_src; j++) {
            umap_tensor *d, *s = t->src[j];
            if (!umap__grad_needed(s, needs)) continue;
            d = umap__vjp(g, t, adj[i], j);
            if (!d) continue;
            adj[s->id] = adj[s->id] ? umap_add(g, adj[s->id], d) : d;
        }
    }
    for (i = 0; i < n_wrt; i++) {
        umap_tensor *d = wrt[i]->id < n ? adj[wrt[i]->id] : NULL;
        grads[i] = d ? d : umap__zeros_like(g, wrt[i]);
    }
    umap__free(&g->alloc, adj);
    umap__free(&g->alloc, needs);
    return g->status == UMAP_OK ? UMAP_OK : g->status;
}

/* tangent of node y from the tangents of its sources (NULL = zero) */
static umap_tensor *umap__jvp_rule(umap_graph *g, umap_tensor *y, umap_tensor **tan) {
    umap_tensor *a = y->src[0], *b = y->n_src > 1 ? y->src[1] : NULL, *ta = tan[0], *tb = y->n_src > 1 ? tan[1] : NULL;
    umap_tensor *r = NULL, *zero;
    int k;
    switch (y->op) {
    case UMAP_OP_NEG: return umap_neg(g, ta);
    case UMAP_OP_EXP: return umap_mul(g, ta, y);
    case UMAP_OP_LOG: return umap_div(g, ta, a);
    case UMAP_OP_LOG1P: return umap_div(g, ta, umap_add_scalar(g, a, 1.0f));
    case UMAP_OP_SQRT: return umap_div(g, ta, umap_mul_scalar(g, y, 2.0f));
    case UMAP_OP_RECIP: return umap_neg(g, umap_mul(g, ta, umap_square(g, y)));
    case UMAP_OP_ABS: return umap_mul(g, ta, umap_sign(g, a));
    case UMAP_OP_RELU: return umap_select(g, umap_gt(g, y, umap_scalar(g, 0.0f)), ta, umap_scalar(g, 0.0f));
    case UMAP_OP_SIGMOID: return umap_mul(g, ta, umap_mul(g, y, umap_sub(g, umap_scalar(g, 1.0f), y)));
    case UMAP_OP_TANH: return umap_mul(g, ta, umap_sub(g, umap_scalar(g, 1.0f), umap_square(g, y)));
    case UMAP_OP_SQUARE: return umap_mul(g, ta, umap_mul_scalar(g, a, 2.0f));
    case UMAP_OP_SIGN: case UMAP_OP_LT: case UMAP_OP_LE: case UMAP_OP_GT: case UMAP_OP_GE: case UMAP_OP_EQ:
    case UMAP_OP_NE:
        return NULL;
    case UMAP_OP_ADD:
        r = ta && tb ? umap_add(g, ta, tb) : ta ? ta : tb;
        break;
    case UMAP_OP_SUB:
        r = ta && tb ? umap_sub(g, ta, tb) : ta ? ta : umap_neg(g, tb);
        break;
    case UMAP_OP_MUL: {
        umap_tensor *p = ta ? umap_mul(g, ta, b) : NULL, *q = tb ? umap_mul(g, a, tb) : NULL;
        r = p && q ? umap_add(g, p, q) : p ? p : q;
        break;
    }
    case UMAP_OP_DIV: {
        umap_tensor *p = ta ? umap_div(g, ta, b) : NULL, *q = tb ? umap_div(g, umap_mul(g, tb, y), b) : NULL;
        r = p && q ? umap_sub(g, p, q) : p ? p : umap_neg(g, q);
        break;
    }
    case UMAP_OP_POW: {
        umap_tensor *p = ta ? umap_mul(g, ta, umap_mul(g, b, umap_pow(g, a, umap_add_scalar(g, b, -1.0f)))) : NULL;
        umap_tensor *q = tb ? umap_mul(g, tb, umap_mul(g, y, umap_log(g, a))) : NULL;
        r = p && q ? umap_add(g, p, q) : p ? p : q;
        break;
    }
    case UMAP_OP_MAX: case UMAP_OP_MIN: {
        umap_tensor *first = y->op == UMAP_OP_MAX ? umap_ge(g, a, b) : umap_le(g, a, b);
        zero = umap_scalar(g, 0.0f);
        r = umap_select(g, first, ta ? ta : zero, tb ? tb : zero);
        break;
    }
    case UMAP_OP_SELECT:
        zero = umap_scalar(g, 0.0f);
        if (!tan[1] && !tan[2]) return NULL;
        r = umap_select(g, y->src[0], tan[1] ? tan[1] : zero, tan[2] ? tan[2] : zero);
        break;
    case UMAP_OP_CLAMP: return umap_select(g, umap__clamp_mask(g, y), ta, umap_scalar(g, 0.0f));
    case UMAP_OP_SUM: return umap_sum(g, ta, (unsigned)y->ip[0], y->ip[1]);
    case UMAP_OP_MEAN: return umap_mean(g, ta, (unsigned)y->ip[0], y->ip[1]);
    case UMAP_OP_RMAX: {
        umap_shape ks = umap__reduced_shape(a->shape, (unsigned)y->ip[0], 1);
        umap_tensor *hit = umap_eq(g, a, umap_reshape(g, y, ks));
        return umap_sum(g, umap_mul(g, hit, ta), (unsigned)y->ip[0], y->ip[1]);
    }
    case UMAP_OP_RESHAPE: return umap_reshape(g, ta, y->shape);
    case UMAP_OP_PERMUTE: {
        int perm[UMAP_MAX_RANK];
        for (k = 0; k < y->shape.rank; k++) perm[k] = y->ip[k];
        return umap_permute(g, ta, perm);
    }
    case UMAP_OP_BROADCAST: return umap_broadcast(g, ta, y->shape);
    case UMAP_OP_SLICE: return umap_slice(g, ta, y->ip[0], y->lp[0], y->lp[1]);
    case UMAP_OP_CONCAT: {
        umap_tensor *parts[UMAP_MAX_SRC];
        for (k = 0; k < y->n_src; k++) parts[k] = tan[k] ? tan[k] : umap__zeros_like(g, y->src[k]);
        return umap_concat(g, y->n_src, parts, y->ip[0]);
    }
    case UMAP_OP_MATMUL: {
        umap_tensor *p = ta ? umap_matmul_ex(g, ta, b, y->ip[0], y->ip[1]) : NULL;
        umap_tensor *q = tb ? umap_matmul_ex(g, a, tb, y->ip[0], y->ip[1]) : NULL;
        return p && q ? umap_add(g, p, q) : p ? p : q;
    }
    case UMAP_OP_GATHER: return umap_gather(g, ta, b);
    case UMAP_OP_SCATTER_ADD: return umap_scatter_add(g, ta, b, y->lp[0]);
    case UMAP_OP_CUSTOM:
        umap__graph_fail(g, UMAP_ERR_NOT_DIFFERENTIABLE, "jvp: custom op '%s' has no forward-mode rule",
                         y->custom->name);
        return NULL;
    default: return NULL;
    }
    return umap__expand(g, r, y->shape);
}

UMAP__FN umap_result umap_jvp(umap_graph *g, int n_out, umap_tensor *const *outs, int n_wrt,
                              umap_tensor *const *wrt, umap_tensor *const *tangents, umap_tensor **out_tangents) {
    umap_tensor **tan;
    int n = 0, i, j;
    if (!g) return UMAP_ERR_INVALID_ARGUMENT;
    if (g->status != UMAP_OK) return UMAP_ERR_GRAPH;
    if (n_out < 1 || !outs || !out_tangents || n_wrt < 0 || (n_wrt > 0 && (!wrt || !tangents))) {
        umap__graph_fail(g, UMAP_ERR_INVALID_ARGUMENT, "jvp: NULL or empty arguments");
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    for (i = 0; i < n_out; i++) {
        if (!outs[i] || outs[i]->graph != g) {
            umap__graph_fail(g, UMAP_ERR_INVALID_ARGUMENT, "jvp: outs[%d] is NULL or foreign", i);
            return UMAP_ERR_INVALID_ARGUMENT;
        }
        if (outs[i]->id + 1 > n) n = outs[i]->id + 1;
    }
    for (i = 0; i < n_wrt; i++)
        if (!wrt[i] || !tangents[i] || wrt[i]->graph != g || tangents[i]->graph != g ||
            !umap__shape_eq(wrt[i]->shape, tangents[i]->shape)) {
            umap__graph_fail(g, UMAP_ERR_SHAPE, "jvp: wrt[%d] and tangents[%d] must be non-NULL with one shape", i, i);
            return UMAP_ERR_SHAPE;
        }
    tan = (umap_tensor **)umap__calloc(&g->alloc, (size_t)n, sizeof *tan);
    if (!tan) {
        umap__graph_fail(g, UMAP_ERR_OUT_OF_MEMORY, "jvp: out of memory");
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    for (i = 0; i < n_wrt; i++)
        if (wrt[i]->id < n) tan[wrt[i]->id] = tangents[i];
    for (i = 0; i < n && g->status == UMAP_OK; i++) {
        umap_tensor *t = g->nodes[i], *st[UMAP_MAX_SRC];
        int any = 0;
        if (umap__is_leaf(t->op)) continue;
        for (j = 0; j < t->n_src; j++) {
            st[j] = t->src[j]->dtype == UMAP_F32 ? tan[t->src[j]->id] : NULL;
            any |= st[j] != NULL;
        }
        if (any) tan[i] = umap__jvp_rule(g, t, st);
    }
    for (i = 0; i < n_out; i++)
        out_tangents[i] = tan[outs[i]->id] ? tan[outs[i]->id] : umap__zeros_like(g, outs[i]);
    umap__free(&g->alloc, tan);
    return g->status;
}

UMAP__FN umap_result umap_hvp(umap_graph *g, umap_tensor *loss, int n_wrt, umap_tensor *const *wrt,
                              umap_tensor *const *v, umap_tensor **hv) {
    umap_tensor **grads;
    umap_result r;
    if (!g) return UMAP_ERR_INVALID_ARGUMENT;
    if (n_wrt < 1 || !wrt || !v || !hv) {
        umap__graph_fail(g, UMAP_ERR_INVALID_ARGUMENT, "hvp: NULL or empty arguments");
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    grads = (umap_tensor **)umap__calloc(&g->alloc, (size_t)n_wrt, sizeof *grads);
    if (!grads) {
        umap__graph_fail(g, UMAP_ERR_OUT_OF_MEMORY, "hvp: out of memory");
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    r = umap_grad(g, loss, n_wrt, wrt, grads);
    if (r == UMAP_OK) r = umap_jvp(g, n_wrt, grads, n_wrt, wrt, v, hv);
    umap__free(&g->alloc, grads);
    return r;
}

/* >>passes ---------------------------------------------------------------- */

/* A program holds its own copy of the nodes (pnodes), so compiling never
   changes the user's graph and one graph can give many programs. */
typedef struct umap__pnode {
    umap_op op;
    umap_dtype dtype;
    umap_shape shape;
    int64_t numel;
    int n_src;
    int src[UMAP_MAX_SRC];
    int32_t ip[UMAP_MAX_PARAMS];
    int n_ip;
    int64_t lp[2];
    float fp[2];
    const umap_custom_op *custom;
    const void *data;          /* CONST payload (a copy the program owns) */
    int gid;                   /* id of the graph node it came from */
    int leaf;                  /* INPUT/PARAM: index into the program's leaves, else -1 */
} umap__pnode;

#define UMAP__REGION_MAX_NODES 32
#define UMAP__REGION_MAX_LOADS 32
#define UMAP__REGION_REGS (UMAP__REGION_MAX_NODES + UMAP__REGION_MAX_LOADS)
#define UMAP__BLOCK 128

enum { UMAP__LOAD_CONTIG, UMAP__LOAD_SCALAR, UMAP__LOAD_STRIDED, UMAP__LOAD_IMM };

typedef struct umap__load {
    int node, reg, kind;
    float imm;
    int64_t stride[UMAP_MAX_RANK]; /* element strides over the region's (padded) shape */
} umap__load;

typedef struct umap__ins {
    umap_op op;
    int dst, a, b, c;
    float f0, f1;
} umap__ins;

typedef struct umap__region {
    int root, n_nodes, n_loads, n_ins;
    int64_t numel;
    int64_t dim[UMAP_MAX_RANK]; /* region shape padded on the left to rank 4 */
    umap__load loads[UMAP__REGION_MAX_LOADS];
    umap__ins ins[UMAP__REGION_MAX_NODES];
} umap__region;

enum { UMAP__STEP_OP, UMAP__STEP_REGION };
struct umap_step {
    int kind, node, region;
    umap_op op; /* the node's op (a region's last op) */
};

enum { UMAP__ST_NONE, UMAP__ST_BOUND, UMAP__ST_DATA, UMAP__ST_ARENA, UMAP__ST_ALIAS };

/* A program keeps copies of what it needs from its graph, so the graph may
   be freed first; t only identifies the leaf for umap_program_bind_tensor. */
typedef struct umap__leaf_binding {
    const umap_tensor *t;
    char name[UMAP_NAME_MAX];
    int64_t numel;
    int is_param;
    const void *data;
} umap__leaf_binding;

struct umap_program {
    umap_allocator alloc;
    umap_logger logger;
    const umap_backend *backend;
    umap_pool *pool;
    unsigned passes;
    int profile;
    umap__pnode *stage[UMAP_STAGE_COUNT];
    int stage_n[UMAP_STAGE_COUNT];
    umap__pnode *nodes; /* = stage[FUSED] */
    int n_nodes;
    int *outputs, n_outputs;
    int *stage_outputs[UMAP_STAGE_COUNT];
    umap__leaf_binding *leaves; /* every INPUT/PARAM of the graph */
    int n_leaves;
    int *leaf_of;               /* pnode -> leaf index (or -1) */
    int *region_of;             /* pnode -> region (or -1) */
    const char **not_fused;     /* pnode -> why an elementwise node starts its own kernel */
    umap__region *regions;
    int n_regions;
    umap_step *steps;
    int n_steps;
    int *storage;               /* UMAP__ST_* */
    int64_t *offset;            /* arena byte offset */
    void **ptr;                 /* resolved per run */
    float *arena;
    int64_t arena_bytes;
    float *workspace;           /* packing space of the portable sgemm */
    int64_t workspace_floats;
    void **owned;               /* folded constants */
    int n_owned, cap_owned;
    umap_program_stats stats;
    umap_profile prof;
    char detail[512];
};

static umap_result umap__prog_fail(umap_program *p, umap_result r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->detail, sizeof p->detail, fmt, ap);
    va_end(ap);
    umap__log(&p->logger, UMAP_LOG_ERROR, "%s", p->detail);
    return r;
}

static void *umap__prog_own(umap_program *p, size_t bytes) {
    void *d;
    if (!umap__grow(&p->alloc, (void **)&p->owned, &p->cap_owned, p->n_owned + 1, sizeof(void *))) return NULL;
    d = umap__alloc(&p->alloc, bytes);
    if (d) p->owned[p->n_owned++] = d;
    return d;
}

/* --- scalar semantics of every elementwise op (used by the interpreter and
       by constant folding, so both give the same bits). One list of cases,
       instantiated for a variable length and for the full block length: a
       fixed trip count and restrict pointers let gcc -O2 vectorise. --- */
#ifdef __cplusplus
#define UMAP__RESTRICT __restrict
#else
#define UMAP__RESTRICT restrict
#endif
#define UMAP__EW_CASES(N)                                                          \
    case UMAP_OP_NEG: for (i = 0; i < (N); i++) o[i] = -a[i]; break; \
    case UMAP_OP_EXP: for (i = 0; i < (N); i++) o[i] = expf(a[i]); break; \
    case UMAP_OP_LOG: for (i = 0; i < (N); i++) o[i] = logf(a[i]); break; \
    case UMAP_OP_LOG1P: for (i = 0; i < (N); i++) o[i] = log1pf(a[i]); break; \
    case UMAP_OP_SQRT: for (i = 0; i < (N); i++) o[i] = sqrtf(a[i]); break; \
    case UMAP_OP_RECIP: for (i = 0; i < (N); i++) o[i] = 1.0f / a[i]; break; \
    case UMAP_OP_ABS: for (i = 0; i < (N); i++) o[i] = fabsf(a[i]); break; \
    case UMAP_OP_RELU: for (i = 0; i < (N); i++) o[i] = ((a[i] > 0.0f) | (a[i] != a[i])) ? a[i] : 0.0f; break; \
    case UMAP_OP_SIGMOID: /* exp of -|x| never overflows; exact on both sides */ \
        for (i = 0; i < (N); i++) { \
            float e = expf(-fabsf(a[i])); \
            o[i] = (a[i] >= 0.0f ? 1.0f : e) / (1.0f + e); \
        } \
        break; \
    case UMAP_OP_TANH: for (i = 0; i < (N); i++) o[i] = tanhf(a[i]); break; \
    case UMAP_OP_SQUARE: for (i = 0; i < (N); i++) o[i] = a[i] * a[i]; break; \
    case UMAP_OP_SIGN: for (i = 0; i < (N); i++) o[i] = ((a[i] == 0.0f) | (a[i] != a[i])) ? a[i] : (float)(a[i] > 0.0f) - (float)(a[i] < 0.0f); break; \
    case UMAP_OP_ADD: for (i = 0; i < (N); i++) o[i] = a[i] + b[i]; break; \
    case UMAP_OP_SUB: for (i = 0; i < (N); i++) o[i] = a[i] - b[i]; break; \
    case UMAP_OP_MUL: for (i = 0; i < (N); i++) o[i] = a[i] * b[i]; break; \
    case UMAP_OP_DIV: for (i = 0; i < (N); i++) o[i] = a[i] / b[i]; break; \
    case UMAP_OP_POW: for (i = 0; i < (N); i++) o[i] = powf(a[i], b[i]); break; \
    case UMAP_OP_MAX: for (i = 0; i < (N); i++) o[i] = ((a[i] != a[i]) | (a[i] >= b[i])) ? a[i] : b[i]; break; \
    case UMAP_OP_MIN: for (i = 0; i < (N); i++) o[i] = ((a[i] != a[i]) | (a[i] <= b[i])) ? a[i] : b[i]; break; \
    case UMAP_OP_LT: for (i = 0; i < (N); i++) o[i] = a[i] < b[i] ? 1.0f : 0.0f; break; \
    case UMAP_OP_LE: for (i = 0; i < (N); i++) o[i] = a[i] <= b[i] ? 1.0f : 0.0f; break; \
    case UMAP_OP_GT: for (i = 0; i < (N); i++) o[i] = a[i] > b[i] ? 1.0f : 0.0f; break; \
    case UMAP_OP_GE: for (i = 0; i < (N); i++) o[i] = a[i] >= b[i] ? 1.0f : 0.0f; break; \
    case UMAP_OP_EQ: for (i = 0; i < (N); i++) o[i] = a[i] == b[i] ? 1.0f : 0.0f; break; \
    case UMAP_OP_NE: for (i = 0; i < (N); i++) o[i] = a[i] != b[i] ? 1.0f : 0.0f; break; \
    case UMAP_OP_SELECT: /* both loads first: a conditional load blocks vectorisation */ \
        for (i = 0; i < (N); i++) { float x = b[i], y = c[i]; o[i] = a[i] != 0.0f ? x : y; } \
        break; \
    case UMAP_OP_CLAMP: for (i = 0; i < (N); i++) { float t = a[i] < f0 ? f0 : a[i]; o[i] = t > f1 ? f1 : t; } break; \
    default: UMAP_ASSERT(0 && "not an elementwise op"); break;

static void umap__ew_apply(umap_op op, float f0, float f1, int64_t n, const float *UMAP__RESTRICT a,
                           const float *UMAP__RESTRICT b, const float *UMAP__RESTRICT c, float *UMAP__RESTRICT o) {
    int64_t i;
    switch (op) {
    UMAP__EW_CASES(n)
    }
}

static void umap__ew_apply_block(umap_op op, float f0, float f1, const float *UMAP__RESTRICT a,
                                 const float *UMAP__RESTRICT b, const float *UMAP__RESTRICT c,
                                 float *UMAP__RESTRICT o) {
    int64_t i;
    switch (op) {
    UMAP__EW_CASES(UMAP__BLOCK)
    }
}

static int umap__is_fill(const umap__pnode *n, float v) {
    return n->op == UMAP_OP_FILL && n->fp[0] == v;
}

static void umap__pnode_from(umap__pnode *pn, const umap_tensor *t) {
    int j;
    memset(pn, 0, sizeof *pn);
    pn->op = t->op;
    pn->dtype = t->dtype;
    pn->shape = t->shape;
    pn->numel = umap_shape_numel(t->shape);
    pn->n_src = t->n_src;
    for (j = 0; j < t->n_src; j++) pn->src[j] = t->src[j]->id;
    memcpy(pn->ip, t->ip, sizeof pn->ip);
    pn->n_ip = t->n_ip;
    pn->lp[0] = t->lp[0]; pn->lp[1] = t->lp[1];
    pn->fp[0] = t->fp[0]; pn->fp[1] = t->fp[1];
    pn->custom = t->custom;
    pn->data = t->data;
    pn->gid = t->id;
    pn->leaf = -1;
}

/* Algebraic simplification of n (sources already final). Returns the index
   of an existing node that equals n, or -1 (n may have been rewritten in
   place: *rewrote is set then). */
static int umap__simplify(umap__pnode *n, const umap__pnode *b, int *rewrote) {
    int s0 = n->src[0], s1 = n->n_src > 1 ? n->src[1] : -1;
    const umap__pnode *x = n->n_src > 0 ? &b[s0] : NULL, *y = s1 >= 0 ? &b[s1] : NULL;
    int k;
#define UMAP__SAME_SHAPE(i) (umap__shape_eq(b[i].shape, n->shape))
    switch (n->op) {
    case UMAP_OP_ADD:
        if (umap__is_fill(y, 0.0f) && UMAP__SAME_SHAPE(s0)) return s0;
        if (umap__is_fill(x, 0.0f) && UMAP__SAME_SHAPE(s1)) return s1;
        break;
    case UMAP_OP_SUB:
        if (umap__is_fill(y, 0.0f) && UMAP__SAME_SHAPE(s0)) return s0;
        break;
    case UMAP_OP_MUL:
        if (umap__is_fill(y, 1.0f) && UMAP__SAME_SHAPE(s0)) return s0;
        if (umap__is_fill(x, 1.0f) && UMAP__SAME_SHAPE(s1)) return s1;
        break;
    case UMAP_OP_DIV:
        if (umap__is_fill(y, 1.0f) && UMAP__SAME_SHAPE(s0)) return s0;
        break;
    case UMAP_OP_POW:
        if (umap__is_fill(y, 1.0f) && UMAP__SAME_SHAPE(s0)) return s0;
        if (umap__is_fill(y, 2.0f) && UMAP__SAME_SHAPE(s0)) {
            n->op = UMAP_OP_SQUARE;
            n->n_src = 1;
            *rewrote = 1;
        }
        break;
    case UMAP_OP_NEG:
        if (x->op == UMAP_OP_NEG) return x->src[0];
        break;
    case UMAP_OP_SELECT:
        if (x->op == UMAP_OP_FILL) {
            int pick = x->fp[0] != 0.0f ? n->src[1] : n->src[2];
            if (UMAP__SAME_SHAPE(pick)) return pick;
        }
        break;
    case UMAP_OP_RESHAPE:
        if (UMAP__SAME_SHAPE(s0)) return s0;
        if (x->op == UMAP_OP_RESHAPE) { n->src[0] = x->src[0]; *rewrote = 1; }
        if (umap__shape_eq(b[n->src[0]].shape, n->shape)) return n->src[0];
        break;
    case UMAP_OP_PERMUTE:
        for (k = 0; k < n->shape.rank; k++)
            if (n->ip[k] != k) break;
        if (k == n->shape.rank) return s0;
        break;
    case UMAP_OP_BROADCAST:
        if (UMAP__SAME_SHAPE(s0)) return s0;
        break;
    case UMAP_OP_SLICE:
        if (UMAP__SAME_SHAPE(s0)) return s0;
        break;
    case UMAP_OP_CONCAT:
        if (n->n_src == 1) return s0;
        break;
    default: break;
    }
#undef UMAP__SAME_SHAPE
    return -1;
}

static umap_result umap__exec_node(umap_program *p, const umap__pnode *n, const void *const *src, void *out);

/* Constant folding: evaluates n when its sources are all constants. FILL
   sources that stay scalar-valued give a FILL (no memory); otherwise the
   result is a CONST the program owns, unless it would be much larger than
   its sources (broadcasting a scalar into a big buffer saves nothing). */
static umap_result umap__fold(umap_program *p, umap__pnode *n, const umap__pnode *b, int *folded) {
    const void *src[UMAP_MAX_SRC];
    void *tmp[UMAP_MAX_SRC];
    int j, all_fill = 1;
    int64_t largest = 0;
    umap_result r = UMAP_OK;
    umap_op op = n->op;
    *folded = 0;
    if (umap__is_leaf(op) || op == UMAP_OP_CUSTOM || op == UMAP_OP_GATHER || op == UMAP_OP_SCATTER_ADD ||
        n->n_src == 0)
        return UMAP_OK;
    for (j = 0; j < n->n_src; j++) {
        const umap__pnode *s = &b[n->src[j]];
        if (s->op != UMAP_OP_CONST && s->op != UMAP_OP_FILL) return UMAP_OK;
        if (s->op == UMAP_OP_CONST) all_fill = 0;
        if (s->numel > largest) largest = s->numel;
    }
    if (all_fill && (umap__is_elementwise(op) || op == UMAP_OP_RESHAPE || op == UMAP_OP_BROADCAST ||
                     op == UMAP_OP_PERMUTE || op == UMAP_OP_SLICE || op == UMAP_OP_RMAX || op == UMAP_OP_MEAN)) {
        float v[3] = {0, 0, 0}, o;
        for (j = 0; j < n->n_src && j < 3; j++) v[j] = b[n->src[j]].fp[0];
        if (umap__is_elementwise(op)) umap__ew_apply(op, n->fp[0], n->fp[1], 1, &v[0], &v[1], &v[2], &o);
        else o = v[0];
        n->op = UMAP_OP_FILL;
        n->fp[0] = o;
        n->n_src = 0;
        n->data = NULL;
        *folded = 1;
        return UMAP_OK;
    }
    if (n->numel > largest && n->numel > 4096) return UMAP_OK;
    memset(tmp, 0, sizeof tmp);
    for (j = 0; j < n->n_src && r == UMAP_OK; j++) {
        const umap__pnode *s = &b[n->src[j]];
        if (s->op == UMAP_OP_CONST) src[j] = s->data;
        else {
            int64_t e;
            float *f = (float *)umap__alloc(&p->alloc, (size_t)s->numel * 4);
            if (!f) r = UMAP_ERR_OUT_OF_MEMORY;
            else for (e = 0; e < s->numel; e++) f[e] = s->fp[0];
            tmp[j] = f;
            src[j] = f;
        }
    }
    if (r == UMAP_OK) {
        void *out = umap__prog_own(p, (size_t)n->numel * 4);
        if (!out) r = UMAP_ERR_OUT_OF_MEMORY;
        else r = umap__exec_node(p, n, src, out);
        if (r == UMAP_OK) {
            n->op = UMAP_OP_CONST;
            n->n_src = 0;
            n->data = out;
            *folded = 1;
        }
    }
    for (j = 0; j < UMAP_MAX_SRC; j++) umap__free(&p->alloc, tmp[j]);
    return r;
}

static uint64_t umap__hash_bytes(uint64_t h, const void *d, size_t n) {
    const unsigned char *c = (const unsigned char *)d;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

static uint64_t umap__pnode_hash(const umap__pnode *n) {
    uint64_t h = 1469598103934665603ull;
    h = umap__hash_bytes(h, &n->op, sizeof n->op);
    h = umap__hash_bytes(h, &n->shape, sizeof n->shape);
    h = umap__hash_bytes(h, n->src, sizeof(int) * (size_t)n->n_src);
    h = umap__hash_bytes(h, n->ip, sizeof n->ip);
    h = umap__hash_bytes(h, n->fp, sizeof n->fp);
    h = umap__hash_bytes(h, &n->data, sizeof n->data);
    return h;
}

static int umap__pnode_equal(const umap__pnode *a, const umap__pnode *b) {
    if (a->op == UMAP_OP_INPUT || a->op == UMAP_OP_PARAM) return a->gid == b->gid;
    return a->op == b->op && a->dtype == b->dtype && umap__shape_eq(a->shape, b->shape) && a->n_src == b->n_src &&
           !memcmp(a->src, b->src, sizeof(int) * (size_t)a->n_src) && !memcmp(a->ip, b->ip, sizeof a->ip) &&
           a->lp[0] == b->lp[0] && a->lp[1] == b->lp[1] && !memcmp(a->fp, b->fp, sizeof a->fp) &&
           a->custom == b->custom && a->data == b->data;
}

/* Keeps the nodes the outputs need, in order; remaps sources and outputs. */
static umap_result umap__dce(umap_program *p, umap__pnode *nodes, int *n_nodes, int *outs, int n_out) {
    int n = *n_nodes, i, j, k = 0;
    int *map = (int *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(int));
    if (!map) return UMAP_ERR_OUT_OF_MEMORY;
    for (i = 0; i < n; i++) map[i] = 0;
    for (i = 0; i < n_out; i++) map[outs[i]] = 1;
    for (i = n - 1; i >= 0; i--)
        if (map[i])
            for (j = 0; j < nodes[i].n_src; j++) map[nodes[i].src[j]] = 1;
    for (i = 0; i < n; i++) {
        if (!map[i]) { map[i] = -1; continue; }
        nodes[k] = nodes[i];
        for (j = 0; j < nodes[k].n_src; j++) nodes[k].src[j] = map[nodes[k].src[j]];
        map[i] = k++;
    }
    for (i = 0; i < n_out; i++) outs[i] = map[outs[i]];
    p->stats.dce_removed += n - k;
    *n_nodes = k;
    umap__free(&p->alloc, map);
    return UMAP_OK;
}

/* One forward walk: simplify, fold, then merge with an equal earlier node. */
static umap_result umap__optimize(umap_program *p, umap__pnode *nodes, int *n_nodes, int *outs, int n_out) {
    int n = *n_nodes, i, j, k = 0, cap = 16;
    int *map = (int *)umap__alloc(&p->alloc, ((size_t)n + 1) * sizeof(int));
    int *table;
    umap_result r = UMAP_OK;
    while (cap < 2 * n) cap *= 2;
    table = (int *)umap__alloc(&p->alloc, (size_t)cap * sizeof(int));
    if (!map || !table) r = UMAP_ERR_OUT_OF_MEMORY;
    if (table) for (i = 0; i < cap; i++) table[i] = -1;
    for (i = 0; i < n && r == UMAP_OK; i++) {
        umap__pnode nd = nodes[i];
        int rewrote = 0, folded = 0, same;
        for (j = 0; j < nd.n_src; j++) nd.src[j] = map[nd.src[j]];
        if (p->passes & UMAP_PASS_SIMPLIFY) {
            same = umap__simplify(&nd, nodes, &rewrote);
            if (same >= 0) { map[i] = same; p->stats.simplified++; continue; }
            p->stats.simplified += rewrote;
        }
        if (p->passes & UMAP_PASS_FOLD) {
            r = umap__fold(p, &nd, nodes, &folded);
            p->stats.folded += folded;
        }
        if (p->passes & UMAP_PASS_CSE) {
            uint64_t h = umap__pnode_hash(&nd);
            size_t slot = (size_t)(h & (uint64_t)(cap - 1));
            while (table[slot] >= 0 && !umap__pnode_equal(&nodes[table[slot]], &nd)) slot = (slot + 1) & (size_t)(cap - 1);
            if (table[slot] >= 0) { map[i] = table[slot]; p->stats.cse_merged++; continue; }
            table[slot] = k;
        }
        nodes[k] = nd; /* k <= i: writing behind the walk is safe */
        map[i] = k++;
    }
    if (r == UMAP_OK) {
        for (i = 0; i < n_out; i++) outs[i] = map[outs[i]];
        *n_nodes = k;
    }
    umap__free(&p->alloc, map);
    umap__free(&p->alloc, table);
    return r;
}

/* >>fusion ---------------------------------------------------------------- */

static umap_result umap__fuse(umap_program *p) {
    int n = p->n_nodes, i, j, r;
    int *n_cons = (int *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(int));
    int *first = (int *)umap__calloc(&p->alloc, (size_t)n + 2, sizeof(int));
    int *cons = NULL, *fill = NULL, *is_out = (int *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(int));
    int *region_nodes = NULL, *region_loads_bound = NULL;
    int total = 0;
    umap_result res = UMAP_OK;
    p->region_of = (int *)umap__alloc(&p->alloc, ((size_t)n + 1) * sizeof(int));
    p->not_fused = (const char **)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(char *));
    p->regions = (umap__region *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(umap__region));
    region_nodes = (int *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(int));
    region_loads_bound = (int *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(int));
    if (!n_cons || !first || !is_out || !p->region_of || !p->not_fused || !p->regions || !region_nodes ||
        !region_loads_bound) {
        res = UMAP_ERR_OUT_OF_MEMORY;
        goto done;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < p->nodes[i].n_src; j++) { n_cons[p->nodes[i].src[j]]++; total++; }
    for (i = 0; i < p->n_outputs; i++) is_out[p->outputs[i]] = 1;
    for (i = 0; i < n; i++) first[i + 1] = first[i] + n_cons[i];
    cons = (int *)umap__alloc(&p->alloc, ((size_t)total + 1) * sizeof(int));
    fill = (int *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(int));
    if (!cons || !fill) { res = UMAP_ERR_OUT_OF_MEMORY; goto done; }
    for (i = 0; i < n; i++)
        for (j = 0; j < p->nodes[i].n_src; j++) {
            int s = p->nodes[i].src[j];
            cons[first[s] + fill[s]++] = i;
        }
    p->n_regions = 0;
    for (i = n - 1; i >= 0; i--) {
        const umap__pnode *nd = &p->nodes[i];
        int join = -1;
        const char *why = NULL;
        p->region_of[i] = -1;
        if (!umap__is_elementwise(nd->op)) continue;
        if (!(p->passes & UMAP_PASS_FUSE)) why = "fusion is disabled";
        else if (is_out[i]) why = "it is a program output";
        else if (n_cons[i] == 0) why = "nothing consumes it";
        else {
            for (j = first[i]; j < first[i + 1] && !why; j++) {
                int c = cons[j];
                const umap__pnode *cn = &p->nodes[c];
                if (!umap__is_elementwise(cn->op)) why = umap__op_class[cn->op] == UMAP__CLS_R ? "a reduction consumes it"
                                                         : cn->op == UMAP_OP_MATMUL ? "a matmul consumes it"
                                                                                  : "a non-elementwise op consumes it";
                else if (join >= 0 && p->region_of[c] != join) why = "its consumers are in different kernels";
                else join = p->region_of[c];
            }
            if (!why && !umap__shape_eq(nd->shape, p->nodes[p->regions[join].root].shape))
                why = "its consumer broadcasts it to a larger shape";
            if (!why && (region_nodes[join] >= UMAP__REGION_MAX_NODES ||
                         region_loads_bound[join] + nd->n_src > UMAP__REGION_MAX_LOADS))
                why = "the consumer's kernel is full";
        }
        if (!why) {
            p->region_of[i] = join;
            region_nodes[join]++;
            region_loads_bound[join] += nd->n_src;
        } else {
            r = p->n_regions++;
            p->regions[r].root = i;
            p->region_of[i] = r;
            region_nodes[r] = 1;
            region_loads_bound[r] = nd->n_src;
            p->not_fused[i] = why;
        }
    }
    /* build each region's loads and instructions */
    {
        int *reg_of = (int *)umap__alloc(&p->alloc, ((size_t)n + 1) * sizeof(int));
        if (!reg_of) { res = UMAP_ERR_OUT_OF_MEMORY; goto done; }
        for (r = 0; r < p->n_regions; r++) {
            umap__region *R = &p->regions[r];
            const umap__pnode *root = &p->nodes[R->root];
            int k;
            R->numel = root->numel;
            for (k = 0; k < UMAP_MAX_RANK; k++) R->dim[k] = 1;
            for (k = 0; k < root->shape.rank; k++) R->dim[UMAP_MAX_RANK - root->shape.rank + k] = root->shape.dim[k];
            for (i = 0; i <= R->root; i++) {
                const umap__pnode *nd = &p->nodes[i];
                umap__ins *in;
                int s;
                if (p->region_of[i] != r) continue;
                for (s = 0; s < nd->n_src; s++) {
                    int src = nd->src[s], l;
                    if (src < i && p->region_of[src] == r) continue;
                    for (l = 0; l < R->n_loads; l++)
                        if (R->loads[l].node == src) break;
                    if (l == R->n_loads) {
                        umap__load *L = &R->loads[R->n_loads++];
                        const umap__pnode *sn = &p->nodes[src];
                        UMAP_ASSERT(R->n_loads <= UMAP__REGION_MAX_LOADS);
                        L->node = src;
                        L->reg = UMAP__REGION_MAX_NODES + l;
                        if (sn->op == UMAP_OP_FILL) { L->kind = UMAP__LOAD_IMM; L->imm = sn->fp[0]; }
                        else if (sn->numel == 1) L->kind = UMAP__LOAD_SCALAR;
                        else if (sn->numel == R->numel) L->kind = UMAP__LOAD_CONTIG;
                        else {
                            /* right-aligned numpy broadcast: stride 0 on expanded axes */
                            int64_t st = 1;
                            int q, off = UMAP_MAX_RANK - sn->shape.rank;
                            L->kind = UMAP__LOAD_STRIDED;
                            for (q = UMAP_MAX_RANK - 1; q >= 0; q--) {
                                int64_t d = q >= off ? sn->shape.dim[q - off] : 1;
                                L->stride[q] = d == 1 ? 0 : st;
                                st *= d;
                            }
                        }
                    }
                }
                reg_of[i] = R->n_ins;
                in = &R->ins[R->n_ins++];
                in->op = nd->op;
                in->dst = reg_of[i];
                in->f0 = nd->fp[0];
                in->f1 = nd->fp[1];
                in->a = in->b = in->c = -1;
                for (s = 0; s < nd->n_src; s++) {
                    int src = nd->src[s], reg, l;
                    if (p->region_of[src] == r && src < i) reg = reg_of[src];
                    else {
                        for (l = 0; R->loads[l].node != src; l++) {}
                        reg = R->loads[l].reg;
                    }
                    if (s == 0) in->a = reg; else if (s == 1) in->b = reg; else in->c = reg;
                }
                /* operands an op does not use alias the first: never a stale register */
                if (in->b < 0) in->b = in->a;
                if (in->c < 0) in->c = in->a;
            }
            R->n_nodes = R->n_ins;
            if (R->n_nodes >= 2) { p->stats.regions++; p->stats.fused_nodes += R->n_nodes; }
        }
        umap__free(&p->alloc, reg_of);
    }
done:
    umap__free(&p->alloc, n_cons);
    umap__free(&p->alloc, first);
    umap__free(&p->alloc, cons);
    umap__free(&p->alloc, fill);
    umap__free(&p->alloc, is_out);
    umap__free(&p->alloc, region_nodes);
    umap__free(&p->alloc, region_loads_bound);
    return res;
}

/* >>cpu ------------------------------------------------------------------- */

/* --- fused elementwise regions: a block interpreter --- */
typedef struct umap__region_ctx {
    const umap__region *R;
    const float *in[UMAP__REGION_MAX_LOADS];
    float *out;
} umap__region_ctx;

static void umap__region_block(const umap__region_ctx *c, int64_t e0, int64_t n, float *scratch) {
    const umap__region *R = c->R;
    const float *reg[UMAP__REGION_REGS];
    int l, i;
    for (l = 0; l < R->n_loads; l++) {
        const umap__load *L = &R->loads[l];
        float *buf = scratch + (size_t)L->reg * UMAP__BLOCK;
        int64_t j;
        switch (L->kind) {
        case UMAP__LOAD_CONTIG: reg[L->reg] = c->in[l] + e0; break;
        case UMAP__LOAD_IMM: for (j = 0; j < n; j++) buf[j] = L->imm; reg[L->reg] = buf; break;
        case UMAP__LOAD_SCALAR: { float v = c->in[l][0]; for (j = 0; j < n; j++) buf[j] = v; reg[L->reg] = buf; break; }
        default: {
            /* walk the padded multi-index of e0 with carries, a run at a time */
            int64_t idx[UMAP_MAX_RANK], rem = e0, off = 0;
            int q;
            const float *src = c->in[l];
            for (q = UMAP_MAX_RANK - 1; q >= 0; q--) { idx[q] = rem % R->dim[q]; rem /= R->dim[q]; }
            for (q = 0; q < UMAP_MAX_RANK; q++) off += idx[q] * L->stride[q];
            j = 0;
            while (j < n) {
                int64_t run = R->dim[3] - idx[3], k;
                if (run > n - j) run = n - j;
                if (L->stride[3]) for (k = 0; k < run; k++) buf[j + k] = src[off + k];
                else for (k = 0; k < run; k++) buf[j + k] = src[off];
                j += run;
                off += run * L->stride[3];
                idx[3] += run;
                for (q = 3; q > 0 && idx[q] == R->dim[q]; q--) {
                    off -= idx[q] * L->stride[q];
                    idx[q] = 0;
                    idx[q - 1]++;
                    off += L->stride[q - 1];
                }
            }
            reg[L->reg] = buf;
        }
        }
    }
    for (i = 0; i < R->n_ins; i++) {
        const umap__ins *in = &R->ins[i];
        float *dst = i == R->n_ins - 1 ? c->out + e0 : scratch + (size_t)in->dst * UMAP__BLOCK;
        if (n == UMAP__BLOCK) umap__ew_apply_block(in->op, in->f0, in->f1, reg[in->a], reg[in->b], reg[in->c], dst);
        else umap__ew_apply(in->op, in->f0, in->f1, n, reg[in->a], reg[in->b], reg[in->c], dst);
        reg[in->dst] = dst;
    }
}

static void umap__region_range(void *ctx, int64_t b, int64_t e) {
    float scratch[UMAP__REGION_REGS * UMAP__BLOCK];
    int64_t s;
    for (s = b; s < e; s += UMAP__BLOCK)
        umap__region_block((const umap__region_ctx *)ctx, s, e - s < UMAP__BLOCK ? e - s : UMAP__BLOCK, scratch);
}

/* --- reductions --- */
typedef struct umap__reduce_ctx {
    umap_op op;
    const float *x;
    float *y;
    int64_t dim[UMAP_MAX_RANK];   /* input, padded to rank 4 */
    unsigned axes;                /* over the padded axes */
    int64_t out_dim[UMAP_MAX_RANK], out_stride[UMAP_MAX_RANK], in_stride[UMAP_MAX_RANK];
    int64_t count;                /* elements per output */
    int64_t outer, inner;         /* prefix/suffix fast paths */
} umap__reduce_ctx;

/* general case: each output walks its reduced sub-block in a fixed order */
static void umap__reduce_general(void *ctx, int64_t o0, int64_t o1) {
    const umap__reduce_ctx *c = (const umap__reduce_ctx *)ctx;
    int64_t o;
    for (o = o0; o < o1; o++) {
        int64_t base = 0, rem = o, r, q;
        double sum = 0.0;
        float mx = -INFINITY;
        int nan = 0;
        for (q = UMAP_MAX_RANK - 1; q >= 0; q--) {
            if (!(c->axes & (1u << q))) { base += (rem % c->dim[q]) * c->in_stride[q]; rem /= c->dim[q]; }
        }
        for (r = 0; r < c->count; r++) {
            int64_t off = base, rr = r;
            float v;
            for (q = UMAP_MAX_RANK - 1; q >= 0; q--)
                if (c->axes & (1u << q)) { off += (rr % c->dim[q]) * c->in_stride[q]; rr /= c->dim[q]; }
            v = c->x[off];
            sum += v;
            if (v != v) nan = 1;
            else if (v > mx) mx = v;
        }
        c->y[o] = c->op == UMAP_OP_RMAX ? (nan ? NAN : mx)
                  : c->op == UMAP_OP_MEAN ? (float)(sum / (double)c->count) : (float)sum;
    }
}

/* reduced axes form a prefix: column sums over `outer` rows of `inner` */
static void umap__reduce_prefix(void *ctx, int64_t c0, int64_t c1) {
    const umap__reduce_ctx *c = (const umap__reduce_ctx *)ctx;
    double acc[256];
    float mx[256];
    unsigned char nan[256];
    int64_t r, j, w = c1 - c0;
    for (j = 0; j < w; j++) { acc[j] = 0.0; mx[j] = -INFINITY; nan[j] = 0; }
    for (r = 0; r < c->outer; r++) {
        const float *row = c->x + r * c->inner + c0;
        if (c->op == UMAP_OP_RMAX) {
            for (j = 0; j < w; j++) {
                if (row[j] != row[j]) nan[j] = 1;
                else if (row[j] > mx[j]) mx[j] = row[j];
            }
        } else
            for (j = 0; j < w; j++) acc[j] += row[j];
    }
    for (j = 0; j < w; j++)
        c->y[c0 + j] = c->op == UMAP_OP_RMAX ? (nan[j] ? NAN : mx[j])
                       : c->op == UMAP_OP_MEAN ? (float)(acc[j] / (double)c->outer) : (float)acc[j];
}

/* reduced axes form a suffix: each output sums a contiguous run */
static void umap__reduce_suffix(void *ctx, int64_t o0, int64_t o1) {
    const umap__reduce_ctx *c = (const umap__reduce_ctx *)ctx;
    int64_t o, j;
    for (o = o0; o < o1; o++) {
        const float *row = c->x + o * c->inner;
        if (c->op == UMAP_OP_RMAX) {
            float mx = -INFINITY;
            int nan = 0;
            for (j = 0; j < c->inner; j++) {
                if (row[j] != row[j]) nan = 1;
                else if (row[j] > mx) mx = row[j];
            }
            c->y[o] = nan ? NAN : mx;
        } else {
            double s = 0.0;
            for (j = 0; j < c->inner; j++) s += row[j];
            c->y[o] = c->op == UMAP_OP_MEAN ? (float)(s / (double)c->inner) : (float)s;
        }
    }
}

/* one output, many inputs: fixed chunks of partial sums, combined in order */
#define UMAP__FULL_CHUNKS 64
typedef struct umap__full_ctx {
    const float *x;
    int64_t n, chunk;
    double part[UMAP__FULL_CHUNKS];
    float pmax[UMAP__FULL_CHUNKS];
    int pnan[UMAP__FULL_CHUNKS];
    int is_max;
} umap__full_ctx;

static void umap__reduce_full_task(void *ctx, int64_t t) {
    umap__full_ctx *c = (umap__full_ctx *)ctx;
    int64_t b = t * c->chunk, e = b + c->chunk < c->n ? b + c->chunk : c->n, i;
    double s = 0.0;
    float mx = -INFINITY;
    int nan = 0;
    for (i = b; i < e; i++) {
        float v = c->x[i];
        if (c->is_max) {
            if (v != v) nan = 1;
            else if (v > mx) mx = v;
        } else
            s += v;
    }
    c->part[t] = s;
    c->pmax[t] = mx;
    c->pnan[t] = nan;
}

static void umap__reduce_kernel(umap_pool *pool, const umap__pnode *n, const umap__pnode *x, const float *in, float *out) {
    umap__reduce_ctx c;
    int off = UMAP_MAX_RANK - x->shape.rank, q, lo = UMAP_MAX_RANK, hi = -1;
    int64_t st = 1, n_out = n->numel;
    memset(&c, 0, sizeof c);
    c.op = n->op; c.x = in; c.y = out;
    for (q = 0; q < UMAP_MAX_RANK; q++) c.dim[q] = q >= off ? x->shape.dim[q - off] : 1;
    c.axes = ((unsigned)n->ip[0] << off) & 0xFu;
    for (q = UMAP_MAX_RANK - 1; q >= 0; q--) { c.in_stride[q] = st; st *= c.dim[q]; }
    c.count = 1;
    for (q = 0; q < UMAP_MAX_RANK; q++)
        if (c.axes & (1u << q)) { c.count *= c.dim[q]; if (q < lo) lo = q; if (q > hi) hi = q; }
    if (c.count == 1 || c.axes == 0) {
        /* nothing to reduce: a copy (mean/max of one element is itself) */
        memcpy(out, in, (size_t)n_out * 4);
        return;
    }
    if (n_out == 1) {
        umap__full_ctx f;
        int64_t t, tasks;
        double s = 0.0;
        float mx = -INFINITY;
        int nan = 0;
        memset(&f, 0, sizeof f);
        f.x = in; f.n = x->numel; f.is_max = n->op == UMAP_OP_RMAX;
        f.chunk = (x->numel + UMAP__FULL_CHUNKS - 1) / UMAP__FULL_CHUNKS;
        if (f.chunk < 4096) f.chunk = 4096;
        tasks = (x->numel + f.chunk - 1) / f.chunk;
        umap_pool_for(pool, tasks, umap__reduce_full_task, &f);
        for (t = 0; t < tasks; t++) {
            s += f.part[t];
            if (f.pnan[t]) nan = 1;
            else if (f.pmax[t] > mx) mx = f.pmax[t];
        }
        out[0] = f.is_max ? (nan ? NAN : mx) : n->op == UMAP_OP_MEAN ? (float)(s / (double)x->numel) : (float)s;
        return;
    }
    /* contiguous block of reduced axes at the front (after size-1 axes) or at the back */
    {
        int contiguous = 1, prefix = 1, suffix = 1;
        for (q = lo; q <= hi; q++)
            if (!(c.axes & (1u << q)) && c.dim[q] != 1) contiguous = 0;
        for (q = 0; q < lo; q++)
            if (c.dim[q] != 1) prefix = 0;
        for (q = hi + 1; q < UMAP_MAX_RANK; q++)
            if (c.dim[q] != 1) suffix = 0;
        if (contiguous && prefix) {
            c.outer = c.count;
            c.inner = n_out;
            umap__parallel_range(pool, n_out, 256, umap__reduce_prefix, &c);
            return;
        }
        if (contiguous && suffix) {
            c.inner = c.count;
            umap__parallel_range(pool, n_out, 1 + 16384 / c.count, umap__reduce_suffix, &c);
            return;
        }
    }
    umap__parallel_range(pool, n_out, 1 + 16384 / c.count, umap__reduce_general, &c);
}

/* --- data movement (4-byte elements of either type) --- */
typedef struct umap__copy_ctx {
    const uint32_t *src;
    uint32_t *dst;
    int64_t out_dim[UMAP_MAX_RANK];
    int64_t src_stride[UMAP_MAX_RANK]; /* per output axis */
    int64_t src_base;
} umap__copy_ctx;

/* dst[o] = src[base + sum idx_q * stride_q] over the padded output index */
static void umap__strided_copy(void *ctx, int64_t o0, int64_t o1) {
    const umap__copy_ctx *c = (const umap__copy_ctx *)ctx;
    int64_t idx[UMAP_MAX_RANK], rem = o0, off = c->src_base, o;
    int q;
    for (q = UMAP_MAX_RANK - 1; q >= 0; q--) { idx[q] = rem % c->out_dim[q]; rem /= c->out_dim[q]; }
    for (q = 0; q < UMAP_MAX_RANK; q++) off += idx[q] * c->src_stride[q];
    for (o = o0; o < o1; o++) {
        c->dst[o] = c->src[off];
        idx[3]++;
        off += c->src_stride[3];
        for (q = 3; q > 0 && idx[q] == c->out_dim[q]; q--) {
            off -= idx[q] * c->src_stride[q];
            idx[q] = 0;
            idx[q - 1]++;
            off += c->src_stride[q - 1];
        }
    }
}

static void umap__pad_dims(umap_shape s, int64_t dim[UMAP_MAX_RANK], int64_t stride[UMAP_MAX_RANK]) {
    int off = UMAP_MAX_RANK - s.rank, q;
    int64_t st = 1;
    for (q = UMAP_MAX_RANK - 1; q >= 0; q--) {
        dim[q] = q >= off ? s.dim[q - off] : 1;
        stride[q] = st;
        st *= dim[q];
    }
}

static void umap__copy_shape_op(umap_pool *pool, const umap__pnode *n, const umap__pnode *x, const void *src,
                                void *dst) {
    umap__copy_ctx c;
    int64_t in_dim[UMAP_MAX_RANK], in_stride[UMAP_MAX_RANK], out_stride[UMAP_MAX_RANK];
    int q, off = UMAP_MAX_RANK - n->shape.rank;
    memset(&c, 0, sizeof c);
    c.src = (const uint32_t *)src;
    c.dst = (uint32_t *)dst;
    umap__pad_dims(x->shape, in_dim, in_stride);
    umap__pad_dims(n->shape, c.out_dim, out_stride);
    switch (n->op) {
    case UMAP_OP_PERMUTE:
        for (q = 0; q < UMAP_MAX_RANK; q++) c.src_stride[q] = q >= off ? in_stride[off + n->ip[q - off]] : 0;
        break;
    case UMAP_OP_BROADCAST: {
        int xo = UMAP_MAX_RANK - x->shape.rank;
        for (q = 0; q < UMAP_MAX_RANK; q++) c.src_stride[q] = (q >= xo && in_dim[q] != 1) ? in_stride[q] : 0;
        break;
    }
    case UMAP_OP_SLICE:
        for (q = 0; q < UMAP_MAX_RANK; q++) c.src_stride[q] = in_stride[q];
        c.src_base = n->lp[0] * in_stride[off + n->ip[0]];
        break;
    default: UMAP_ASSERT(0); break;
    }
    umap__parallel_range(pool, n->numel, 16384, umap__strided_copy, &c);
}

/* concat: each source is a strided write into the output */
static void umap__concat(const umap__pnode *n, const umap__pnode *nodes, const void *const *src, void *dst) {
    int axis = n->ip[0], j, q;
    int64_t outer = 1, inner = 1, out_axis = n->shape.dim[axis], off = 0;
    for (q = 0; q < axis; q++) outer *= n->shape.dim[q];
    for (q = axis + 1; q < n->shape.rank; q++) inner *= n->shape.dim[q];
    for (j = 0; j < n->n_src; j++) {
        int64_t len = nodes[n->src[j]].shape.dim[axis], o;
        for (o = 0; o < outer; o++)
            memcpy((uint32_t *)dst + (o * out_axis + off) * inner, (const uint32_t *)src[j] + o * len * inner,
                   (size_t)(len * inner) * 4);
        off += len;
    }
}

typedef struct umap__gather_ctx {
    const float *x;
    const int32_t *idx;
    float *y;
    int64_t row, n_idx, n_rows, rows_per_task;
} umap__gather_ctx;

static void umap__gather_range(void *ctx, int64_t m0, int64_t m1) {
    const umap__gather_ctx *c = (const umap__gather_ctx *)ctx;
    int64_t m;
    for (m = m0; m < m1; m++) memcpy(c->y + m * c->row, c->x + (int64_t)c->idx[m] * c->row, (size_t)c->row * 4);
}

/* each task owns a range of output rows and adds its contributions in
   index order: deterministic without atomics */
static void umap__scatter_task(void *ctx, int64_t t) {
    const umap__gather_ctx *c = (const umap__gather_ctx *)ctx;
    int64_t r0 = t * c->rows_per_task, r1 = r0 + c->rows_per_task < c->n_rows ? r0 + c->rows_per_task : c->n_rows;
    int64_t m, j;
    for (m = 0; m < c->n_idx; m++) {
        int64_t r = c->idx[m];
        if (r >= r0 && r < r1) {
            float *dst = c->y + r * c->row;
            const float *s = c->x + m * c->row;
            for (j = 0; j < c->row; j++) dst[j] += s[j];
        }
    }
}

static umap_result umap__check_indices(umap_program *p, const int32_t *idx, int64_t n, int64_t limit, const char *op) {
    int64_t m;
    for (m = 0; m < n; m++)
        if (idx[m] < 0 || idx[m] >= limit)
            return umap__prog_fail(p, UMAP_ERR_INDEX_OUT_OF_RANGE, "%s: index %lld at position %lld is outside [0, %lld)",
                                   op, (long long)idx[m], (long long)m, (long long)limit);
    return UMAP_OK;
}

/* Runs one non-elementwise node, or an elementwise one on full-size
   sources (constant folding). */
static umap_result umap__exec_node(umap_program *p, const umap__pnode *n, const void *const *src, void *out) {
    const umap__pnode *nodes = p->nodes;
    umap_pool *pool = p->pool;
    int64_t i;
    if (umap__is_elementwise(n->op)) {
        /* folding path: sources may broadcast; expand through a region */
        umap__region R;
        umap__region_ctx c;
        int s, q;
        memset(&R, 0, sizeof R);
        R.numel = n->numel;
        for (q = 0; q < UMAP_MAX_RANK; q++) R.dim[q] = 1;
        for (q = 0; q < n->shape.rank; q++) R.dim[UMAP_MAX_RANK - n->shape.rank + q] = n->shape.dim[q];
        for (s = 0; s < n->n_src; s++) {
            const umap__pnode *sn = &nodes[n->src[s]];
            umap__load *L = &R.loads[s];
            int64_t st = 1;
            int off = UMAP_MAX_RANK - sn->shape.rank;
            L->node = n->src[s];
            L->reg = UMAP__REGION_MAX_NODES + s;
            L->kind = sn->numel == n->numel ? UMAP__LOAD_CONTIG : UMAP__LOAD_STRIDED;
            for (q = UMAP_MAX_RANK - 1; q >= 0; q--) {
                int64_t d = q >= off ? sn->shape.dim[q - off] : 1;
                L->stride[q] = d == 1 ? 0 : st;
                st *= d;
            }
            c.in[s] = (const float *)src[s];
        }
        R.n_loads = n->n_src;
        R.n_ins = R.n_nodes = 1;
        R.ins[0].op = n->op;
        R.ins[0].dst = 0;
        R.ins[0].a = UMAP__REGION_MAX_NODES;
        R.ins[0].b = UMAP__REGION_MAX_NODES + (n->n_src > 1 ? 1 : 0);
        R.ins[0].c = UMAP__REGION_MAX_NODES + (n->n_src > 2 ? 2 : 0);
        R.ins[0].f0 = n->fp[0];
        R.ins[0].f1 = n->fp[1];
        c.R = &R;
        c.out = (float *)out;
        umap__region_range(&c, 0, n->numel);
        return UMAP_OK;
    }
    switch (n->op) {
    case UMAP_OP_FILL:
        for (i = 0; i < n->numel; i++) ((float *)out)[i] = n->fp[0];
        return UMAP_OK;
    case UMAP_OP_SUM: case UMAP_OP_MEAN: case UMAP_OP_RMAX:
        umap__reduce_kernel(pool, n, &nodes[n->src[0]], (const float *)src[0], (float *)out);
        return UMAP_OK;
    case UMAP_OP_RESHAPE:
        memcpy(out, src[0], (size_t)n->numel * 4);
        return UMAP_OK;
    case UMAP_OP_PERMUTE: case UMAP_OP_BROADCAST: case UMAP_OP_SLICE:
        umap__copy_shape_op(pool, n, &nodes[n->src[0]], src[0], out);
        return UMAP_OK;
    case UMAP_OP_CONCAT:
        umap__concat(n, nodes, src, out);
        return UMAP_OK;
    case UMAP_OP_MATMUL: {
        const umap__pnode *a = &nodes[n->src[0]], *b = &nodes[n->src[1]];
        int ta = n->ip[0], tb = n->ip[1];
        int64_t batch = n->shape.rank == 3 ? n->shape.dim[0] : 1, M = n->shape.dim[n->shape.rank - 2],
                N = n->shape.dim[n->shape.rank - 1];
        int64_t K = a->shape.dim[a->shape.rank - (ta ? 2 : 1)], bi;
        int64_t a_step = a->shape.rank == 3 ? M * K : 0, b_step = b->shape.rank == 3 ? K * N : 0;
        float *ws = p->workspace, *tmp = NULL;
        if (!ws && umap__gemm_portable(M, N, K)) { /* constant folding runs before the workspace exists */
            tmp = ws = (float *)umap__alloc(&p->alloc, (size_t)umap__gemm_workspace(N, K) * 4);
            if (!ws) return UMAP_ERR_OUT_OF_MEMORY;
        }
        for (bi = 0; bi < batch; bi++)
            umap__sgemm(pool, ta, tb, M, N, K, (const float *)src[0] + bi * a_step, (const float *)src[1] + bi * b_step,
                        (float *)out + bi * M * N, ws);
        umap__free(&p->alloc, tmp);
        return UMAP_OK;
    }
    case UMAP_OP_GATHER: {
        const umap__pnode *x = &nodes[n->src[0]], *ix = &nodes[n->src[1]];
        umap__gather_ctx c;
        umap_result r = umap__check_indices(p, (const int32_t *)src[1], ix->numel, x->shape.dim[0], "gather");
        if (r != UMAP_OK) return r;
        c.x = (const float *)src[0]; c.idx = (const int32_t *)src[1]; c.y = (float *)out;
        c.row = x->numel / x->shape.dim[0];
        c.n_idx = ix->numel;
        umap__parallel_range(pool, c.n_idx, 1 + 16384 / c.row, umap__gather_range, &c);
        return UMAP_OK;
    }
    case UMAP_OP_SCATTER_ADD: {
        const umap__pnode *ix = &nodes[n->src[1]];
        umap__gather_ctx c;
        int64_t tasks;
        umap_result r = umap__check_indices(p, (const int32_t *)src[1], ix->numel, n->lp[0], "scatter_add");
        if (r != UMAP_OK) return r;
        c.x = (const float *)src[0]; c.idx = (const int32_t *)src[1]; c.y = (float *)out;
        c.row = n->numel / n->shape.dim[0];
        c.n_idx = ix->numel;
        c.n_rows = n->lp[0];
        memset(out, 0, (size_t)n->numel * 4);
        tasks = c.n_rows / 64 < 1 ? 1 : c.n_rows / 64 > 16 ? 16 : c.n_rows / 64;
        c.rows_per_task = (c.n_rows + tasks - 1) / tasks;
        umap_pool_for(pool, tasks, umap__scatter_task, &c);
        return UMAP_OK;
    }
    case UMAP_OP_CUSTOM: {
        umap_custom_call call;
        umap_result r;
        int s;
        memset(&call, 0, sizeof call);
        call.n_src = n->n_src;
        for (s = 0; s < n->n_src; s++) {
            call.src[s] = src[s];
            call.src_shape[s] = nodes[n->src[s]].shape;
            call.src_dtype[s] = nodes[n->src[s]].dtype;
        }
        call.out = out;
        call.out_shape = n->shape;
        call.out_dtype = n->dtype;
        call.params = n->ip;
        call.n_params = n->n_ip;
        call.pool = pool;
        r = n->custom->cpu_fn(n->custom, &call);
        if (r != UMAP_OK)
            return umap__prog_fail(p, r, "custom op '%s' failed: %s", n->custom->name,
                                   umap_result_string(r));
        return UMAP_OK;
    }
    default:
        return umap__prog_fail(p, UMAP_ERR_UNSUPPORTED_OP, "cpu: no kernel for op '%s'", umap__op_names[n->op]);
    }
}

/* >>plan ------------------------------------------------------------------ */

static int umap__alias_root(const umap_program *p, int i) {
    while (p->storage[i] == UMAP__ST_ALIAS) i = p->nodes[i].src[0];
    return i;
}

/* Storage of every node, the step list, and a liveness-based arena plan:
   buffers whose lifetimes do not overlap share memory (greedy by size, each
   placed at the lowest offset that fits beside the buffers it overlaps). */
static umap_result umap__plan(umap_program *p) {
    int n = p->n_nodes, i, j, s, n_buf = 0;
    int *step_of = NULL, *last = NULL, *bufs = NULL, *placed = NULL;
    int64_t *size = NULL, arena = 0, unplanned = 0;
    umap_result r = UMAP_OK;
    p->storage = (int *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(int));
    p->offset = (int64_t *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(int64_t));
    p->steps = (umap_step *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(umap_step));
    step_of = (int *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(int));
    last = (int *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(int));
    bufs = (int *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(int));
    placed = (int *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(int));
    size = (int64_t *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(int64_t));
    if (!p->storage || !p->offset || !p->steps || !step_of || !last || !bufs || !placed || !size) {
        r = UMAP_ERR_OUT_OF_MEMORY;
        goto done;
    }
    for (i = 0; i < n; i++) {
        const umap__pnode *nd = &p->nodes[i];
        switch (nd->op) {
        case UMAP_OP_INPUT: case UMAP_OP_PARAM: p->storage[i] = UMAP__ST_BOUND; break;
        case UMAP_OP_CONST: p->storage[i] = UMAP__ST_DATA; break;
        case UMAP_OP_RESHAPE: p->storage[i] = UMAP__ST_ALIAS; break;
        case UMAP_OP_FILL: p->storage[i] = UMAP__ST_NONE; break; /* inlined into kernels unless needed below */
        default:
            p->storage[i] = umap__is_elementwise(nd->op) && p->regions[p->region_of[i]].root != i ? UMAP__ST_NONE
                                                                                                 : UMAP__ST_ARENA;
        }
    }
    /* a FILL read by anything but a fused kernel, or returned, gets memory */
    for (i = 0; i < n; i++)
        if (!umap__is_elementwise(p->nodes[i].op))
            for (j = 0; j < p->nodes[i].n_src; j++)
                if (p->nodes[p->nodes[i].src[j]].op == UMAP_OP_FILL) p->storage[p->nodes[i].src[j]] = UMAP__ST_ARENA;
    for (i = 0; i < p->n_outputs; i++)
        if (p->nodes[p->outputs[i]].op == UMAP_OP_FILL) p->storage[p->outputs[i]] = UMAP__ST_ARENA;
    p->n_steps = 0;
    for (i = 0; i < n; i++) {
        if (p->storage[i] != UMAP__ST_ARENA) continue;
        s = p->n_steps++;
        p->steps[s].node = i;
        p->steps[s].kind = umap__is_elementwise(p->nodes[i].op) ? UMAP__STEP_REGION : UMAP__STEP_OP;
        p->steps[s].region = p->steps[s].kind == UMAP__STEP_REGION ? p->region_of[i] : -1;
        p->steps[s].op = p->nodes[i].op;
        step_of[i] = s;
        last[i] = s;
        bufs[n_buf++] = i;
    }
    for (s = 0; s < p->n_steps; s++) {
        const umap_step *st = &p->steps[s];
        int n_reads = st->kind == UMAP__STEP_REGION ? p->regions[st->region].n_loads : p->nodes[st->node].n_src;
        for (j = 0; j < n_reads; j++) {
            int src = st->kind == UMAP__STEP_REGION ? p->regions[st->region].loads[j].node : p->nodes[st->node].src[j];
            int root = umap__alias_root(p, src);
            if (p->storage[root] == UMAP__ST_ARENA && last[root] < s) last[root] = s;
        }
    }
    for (i = 0; i < p->n_outputs; i++) {
        int root = umap__alias_root(p, p->outputs[i]);
        if (p->storage[root] == UMAP__ST_ARENA) last[root] = p->n_steps;
    }
    for (j = 0; j < n_buf; j++) {
        size[j] = (p->nodes[bufs[j]].numel * 4 + 63) / 64 * 64;
        unplanned += size[j];
    }
    if (!(p->passes & UMAP_PASS_REUSE)) {
        for (j = 0; j < n_buf; j++) { p->offset[bufs[j]] = arena; arena += size[j]; }
    } else {
        /* order by size (desc), ties by node: insertion sort on indices */
        int *order = placed, n_placed = 0, a, b;
        for (j = 0; j < n_buf; j++) order[j] = j;
        for (a = 1; a < n_buf; a++) {
            int v = order[a];
            for (b = a; b > 0 && (size[order[b - 1]] < size[v] || (size[order[b - 1]] == size[v] && order[b - 1] > v)); b--)
                order[b] = order[b - 1];
            order[b] = v;
        }
        for (a = 0; a < n_buf; a++) {
            int bi = order[a], node = bufs[bi];
            int64_t off = 0;
            int moved = 1;
            /* first offset that clears every placed buffer alive at the same time */
            while (moved) {
                moved = 0;
                for (b = 0; b < n_placed; b++) {
                    int oj = order[b], on = bufs[oj];
                    int overlap_t = !(last[node] < step_of[on] || last[on] < step_of[node]);
                    if (overlap_t && off < p->offset[on] + size[oj] && p->offset[on] < off + size[bi]) {
                        off = p->offset[on] + size[oj];
                        moved = 1;
                    }
                }
            }
            p->offset[node] = off;
            if (off + size[bi] > arena) arena = off + size[bi];
            n_placed++;
        }
    }
    p->arena_bytes = arena;
    p->stats.peak_bytes = arena;
    p->stats.unplanned_bytes = unplanned;
    p->stats.steps = p->n_steps;
    /* workspace of the portable sgemm */
    p->workspace_floats = 0;
    for (s = 0; s < p->n_steps; s++) {
        const umap__pnode *nd = &p->nodes[p->steps[s].node];
        if (nd->op == UMAP_OP_MATMUL) {
            const umap__pnode *a = &p->nodes[nd->src[0]];
            int64_t N = nd->shape.dim[nd->shape.rank - 1], K = a->shape.dim[a->shape.rank - (nd->ip[0] ? 2 : 1)];
            int64_t M = nd->shape.dim[nd->shape.rank - 2];
            if (umap__gemm_portable(M, N, K) && umap__gemm_workspace(N, K) > p->workspace_floats)
                p->workspace_floats = umap__gemm_workspace(N, K);
        }
    }
done:
    umap__free(&p->alloc, step_of);
    umap__free(&p->alloc, last);
    umap__free(&p->alloc, bufs);
    umap__free(&p->alloc, placed);
    umap__free(&p->alloc, size);
    return r;
}

/* >>backend: cpu ---------------------------------------------------------- */

static int umap__cpu_supports(const umap_backend *be, const umap_program *p, const umap_step *st) {
    const umap__pnode *n = &p->nodes[st->node];
    (void)be;
    if (n->op == UMAP_OP_CUSTOM) return n->custom->cpu_fn != NULL;
    return 1;
}

static umap_result umap__cpu_run_step(const umap_backend *be, umap_program *p, const umap_step *st) {
    const umap__pnode *n = &p->nodes[st->node];
    (void)be;
    if (st->kind == UMAP__STEP_REGION) {
        umap__region_ctx c;
        const umap__region *R = &p->regions[st->region];
        int l;
        c.R = R;
        for (l = 0; l < R->n_loads; l++) c.in[l] = (const float *)p->ptr[R->loads[l].node];
        c.out = (float *)p->ptr[st->node];
        umap__parallel_range(p->pool, R->numel, 8192, umap__region_range, &c);
        return UMAP_OK;
    } else {
        const void *src[UMAP_MAX_SRC];
        int j;
        for (j = 0; j < n->n_src; j++) src[j] = p->ptr[n->src[j]];
        return umap__exec_node(p, n, src, p->ptr[st->node]);
    }
}

static const umap_backend umap__cpu_backend_table = {"cpu", umap__cpu_supports, umap__cpu_run_step, NULL};
UMAP__FN const umap_backend *umap_cpu_backend(void) { return &umap__cpu_backend_table; }
UMAP__FN umap_op umap_step_op(const umap_step *st) { return st ? st->op : UMAP_OP_COUNT; }

/* >>compile --------------------------------------------------------------- */

UMAP__FN void umap_program_free(umap_program *p) {
    int i;
    umap_allocator a;
    if (!p) return;
    a = p->alloc;
    umap_pool_free(p->pool);
    /* the last stage is the working arrays themselves (p->nodes, p->outputs) */
    for (i = 0; i < UMAP_STAGE_FUSED; i++) {
        umap__free(&a, p->stage[i]);
        umap__free(&a, p->stage_outputs[i]);
    }
    umap__free(&a, p->nodes);
    umap__free(&a, p->outputs);
    umap__free(&a, p->leaves);
    umap__free(&a, p->leaf_of);
    umap__free(&a, p->region_of);
    umap__free(&a, p->not_fused);
    umap__free(&a, p->regions);
    umap__free(&a, p->steps);
    umap__free(&a, p->storage);
    umap__free(&a, p->offset);
    umap__free(&a, p->ptr);
    umap__free(&a, p->arena);
    umap__free(&a, p->workspace);
    for (i = 0; i < p->n_owned; i++) umap__free(&a, p->owned[i]);
    umap__free(&a, p->owned);
    umap__free(&a, p);
}

static umap_result umap__snapshot(umap_program *p, umap_stage st) {
    p->stage[st] = (umap__pnode *)umap__alloc(&p->alloc, ((size_t)p->n_nodes + 1) * sizeof(umap__pnode));
    p->stage_outputs[st] = (int *)umap__alloc(&p->alloc, ((size_t)p->n_outputs + 1) * sizeof(int));
    if (!p->stage[st] || !p->stage_outputs[st]) return UMAP_ERR_OUT_OF_MEMORY;
    memcpy(p->stage[st], p->nodes, (size_t)p->n_nodes * sizeof(umap__pnode));
    memcpy(p->stage_outputs[st], p->outputs, (size_t)p->n_outputs * sizeof(int));
    p->stage_n[st] = p->n_nodes;
    p->stats.nodes[st] = p->n_nodes;
    return UMAP_OK;
}

UMAP__FN umap_result umap_compile(umap_graph *g, int n_out, umap_tensor *const *outs, const umap_compile_desc *desc,
                                  umap_program **out) {
    umap_program *p;
    umap_result r;
    int i, n = 0, s;
    if (!out) return UMAP_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!g) return UMAP_ERR_INVALID_ARGUMENT;
    if (g->status != UMAP_OK) return UMAP_ERR_GRAPH;
    if (n_out < 1 || !outs) {
        umap__graph_note(g, "compile: needs at least one output");
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    for (i = 0; i < n_out; i++)
        if (!outs[i] || outs[i]->graph != g) {
            umap__graph_note(g, "compile: output %d is NULL or from another graph", i);
            return UMAP_ERR_INVALID_ARGUMENT;
        }
    n = g->n_nodes; /* the graph as built; DCE drops what the outputs do not need */
    p = (umap_program *)umap__calloc(&g->alloc, 1, sizeof *p);
    if (!p) return UMAP_ERR_OUT_OF_MEMORY;
    p->alloc = g->alloc;
    p->logger = desc && desc->logger.log_fn ? desc->logger : g->logger;
    p->backend = desc && desc->backend ? desc->backend : umap_cpu_backend();
    p->passes = (UMAP_PASS_FOLD | UMAP_PASS_SIMPLIFY | UMAP_PASS_CSE | UMAP_PASS_FUSE | UMAP_PASS_REUSE) &
                ~(desc ? desc->disable_passes : 0u);
    p->profile = desc ? desc->profile : 0;
    /* every input and param of the graph can be bound by name */
    for (i = 0; i < g->n_nodes; i++)
        if (g->nodes[i]->op == UMAP_OP_INPUT || g->nodes[i]->op == UMAP_OP_PARAM) p->n_leaves++;
    p->leaves = (umap__leaf_binding *)umap__calloc(&p->alloc, (size_t)p->n_leaves + 1, sizeof *p->leaves);
    p->nodes = (umap__pnode *)umap__alloc(&p->alloc, (size_t)n * sizeof(umap__pnode));
    p->outputs = (int *)umap__alloc(&p->alloc, (size_t)n_out * sizeof(int));
    if (!p->leaves || !p->nodes || !p->outputs) { r = UMAP_ERR_OUT_OF_MEMORY; goto fail; }
    for (i = 0; i < n; i++) umap__pnode_from(&p->nodes[i], g->nodes[i]);
    for (i = 0, s = 0; i < g->n_nodes; i++)
        if (g->nodes[i]->op == UMAP_OP_INPUT || g->nodes[i]->op == UMAP_OP_PARAM) {
            umap__leaf_binding *L = &p->leaves[s];
            L->t = g->nodes[i];
            memcpy(L->name, g->nodes[i]->name, sizeof L->name);
            L->numel = umap_shape_numel(g->nodes[i]->shape);
            L->is_param = g->nodes[i]->op == UMAP_OP_PARAM;
            p->nodes[i].leaf = s++;
        }
    for (i = 0; i < n_out; i++) p->outputs[i] = outs[i]->id;
    p->n_nodes = n;
    p->n_outputs = n_out;
    if ((r = umap__snapshot(p, UMAP_STAGE_BUILT)) != UMAP_OK) goto fail;
    if ((r = umap__dce(p, p->nodes, &p->n_nodes, p->outputs, n_out)) != UMAP_OK) goto fail;
    /* constants the program needs become its own copies */
    for (i = 0; i < p->n_nodes; i++)
        if (p->nodes[i].op == UMAP_OP_CONST) {
            void *copy = umap__prog_own(p, (size_t)p->nodes[i].numel * 4);
            if (!copy) { r = UMAP_ERR_OUT_OF_MEMORY; goto fail; }
            memcpy(copy, p->nodes[i].data, (size_t)p->nodes[i].numel * 4);
            p->nodes[i].data = copy;
        }
    if ((r = umap__optimize(p, p->nodes, &p->n_nodes, p->outputs, n_out)) != UMAP_OK) goto fail;
    if ((r = umap__dce(p, p->nodes, &p->n_nodes, p->outputs, n_out)) != UMAP_OK) goto fail;
    if ((r = umap__snapshot(p, UMAP_STAGE_OPTIMIZED)) != UMAP_OK) goto fail;
    /* the final stage is the working array itself */
    p->stage[UMAP_STAGE_FUSED] = p->nodes;
    p->stage_outputs[UMAP_STAGE_FUSED] = p->outputs;
    p->stage_n[UMAP_STAGE_FUSED] = p->n_nodes;
    p->stats.nodes[UMAP_STAGE_FUSED] = p->n_nodes;
    if ((r = umap__fuse(p)) != UMAP_OK) goto fail;
    if ((r = umap__plan(p)) != UMAP_OK) goto fail;
    p->leaf_of = (int *)umap__alloc(&p->alloc, ((size_t)p->n_nodes + 1) * sizeof(int));
    if (!p->leaf_of) { r = UMAP_ERR_OUT_OF_MEMORY; goto fail; }
    for (i = 0; i < p->n_nodes; i++) p->leaf_of[i] = p->storage[i] == UMAP__ST_BOUND ? p->nodes[i].leaf : -1;
    for (s = 0; s < p->n_steps; s++)
        if (!p->backend->supports(p->backend, p, &p->steps[s])) {
            const umap__pnode *nd = &p->nodes[p->steps[s].node];
            umap__graph_note(g, "compile: backend '%s' has no kernel for op '%s' (node %d)", p->backend->name,
                             nd->op == UMAP_OP_CUSTOM ? nd->custom->name : umap__op_names[nd->op],
                             nd->gid);
            umap_program_free(p);
            return UMAP_ERR_UNSUPPORTED_OP;
        }
    if ((r = umap_pool_create(desc ? desc->n_threads : 0, &p->alloc, &p->pool)) != UMAP_OK) goto fail;
    umap__log(&p->logger, UMAP_LOG_INFO, "compiled: %d -> %d nodes, %d steps, %d fused regions, arena %lld bytes",
              p->stats.nodes[UMAP_STAGE_BUILT], p->n_nodes, p->n_steps, p->stats.regions, (long long)p->arena_bytes);
    *out = p;
    return UMAP_OK;
fail:
    umap__graph_note(g, "compile: %s", umap_result_string(r));
    umap_program_free(p);
    return r;
}

/* >>run ------------------------------------------------------------------- */

UMAP__FN const char *umap_program_error_detail(const umap_program *p) { return p ? p->detail : "no program"; }

UMAP__FN void umap_program_stats_get(const umap_program *p, umap_program_stats *out) {
    if (!out) return;
    if (!p) { memset(out, 0, sizeof *out); return; }
    *out = p->stats;
}

UMAP__FN umap_result umap_program_bind_tensor(umap_program *p, const umap_tensor *t, const void *data) {
    int s;
    if (!p || !t || !data) return UMAP_ERR_INVALID_ARGUMENT;
    for (s = 0; s < p->n_leaves; s++)
        if (p->leaves[s].t == t) { p->leaves[s].data = data; return UMAP_OK; }
    return umap__prog_fail(p, UMAP_ERR_UNKNOWN_INPUT, "bind: node %d is not an input or param of this program's graph",
                           t->id);
}

UMAP__FN umap_result umap_program_bind(umap_program *p, const char *name, const void *data, int64_t numel) {
    int s;
    if (!p) return UMAP_ERR_INVALID_ARGUMENT;
    if (!name || !data) return umap__prog_fail(p, UMAP_ERR_INVALID_ARGUMENT, "bind: NULL name or data");
    for (s = 0; s < p->n_leaves; s++)
        if (!strcmp(p->leaves[s].name, name)) {
            int64_t want = p->leaves[s].numel;
            if (numel != want)
                return umap__prog_fail(p, UMAP_ERR_SHAPE, "bind: '%s' holds %lld elements, got %lld", name,
                                       (long long)want, (long long)numel);
            p->leaves[s].data = data;
            return UMAP_OK;
        }
    return umap__prog_fail(p, UMAP_ERR_UNKNOWN_INPUT, "bind: no input or param named '%s'", name);
}

UMAP__FN umap_result umap_program_run(umap_program *p) {
    int i, s;
    if (!p) return UMAP_ERR_INVALID_ARGUMENT;
    for (i = 0; i < p->n_nodes; i++)
        if (p->leaf_of[i] >= 0 && !p->leaves[p->leaf_of[i]].data) {
            const umap__leaf_binding *L = &p->leaves[p->leaf_of[i]];
            return umap__prog_fail(p, L->is_param ? UMAP_ERR_MISSING_PARAM : UMAP_ERR_MISSING_INPUT,
                                   "run: %s '%s' was not bound", L->is_param ? "param" : "input", L->name);
        }
    if (!p->ptr) {
        /* first run: the only allocations a program makes after compile */
        p->ptr = (void **)umap__calloc(&p->alloc, (size_t)p->n_nodes + 1, sizeof(void *));
        if (!p->ptr) return umap__prog_fail(p, UMAP_ERR_OUT_OF_MEMORY, "run: out of memory");
        if (p->arena_bytes && !(p->arena = (float *)umap__alloc(&p->alloc, (size_t)p->arena_bytes))) {
            umap__free(&p->alloc, p->ptr);
            p->ptr = NULL;
            return umap__prog_fail(p, UMAP_ERR_OUT_OF_MEMORY, "run: cannot allocate the %lld-byte arena",
                                   (long long)p->arena_bytes);
        }
        if (p->workspace_floats &&
            !(p->workspace = (float *)umap__alloc(&p->alloc, (size_t)p->workspace_floats * 4))) {
            umap__free(&p->alloc, p->ptr);
            p->ptr = NULL;
            return umap__prog_fail(p, UMAP_ERR_OUT_OF_MEMORY, "run: cannot allocate the sgemm workspace");
        }
    }
    for (i = 0; i < p->n_nodes; i++) {
        switch (p->storage[i]) {
        case UMAP__ST_BOUND: p->ptr[i] = (void *)p->leaves[p->leaf_of[i]].data; break;
        case UMAP__ST_DATA: p->ptr[i] = (void *)p->nodes[i].data; break;
        case UMAP__ST_ARENA: p->ptr[i] = (char *)p->arena + p->offset[i]; break;
        case UMAP__ST_ALIAS: p->ptr[i] = p->ptr[p->nodes[i].src[0]]; break;
        default: p->ptr[i] = NULL;
        }
    }
    for (s = 0; s < p->n_steps; s++) {
        const umap_step *st = &p->steps[s];
        double t0 = p->profile ? umap__now_ms() : 0.0;
        umap_result r = p->backend->run_step(p->backend, p, st);
        if (r != UMAP_OK) {
            if (!p->detail[0]) umap__prog_fail(p, r, "run: step %d failed: %s", s, umap_result_string(r));
            return r;
        }
        if (p->profile) {
            double dt = umap__now_ms() - t0;
            if (st->kind == UMAP__STEP_REGION) { p->prof.region_ms += dt; p->prof.region_calls++; }
            else { p->prof.ms[p->nodes[st->node].op] += dt; p->prof.calls[p->nodes[st->node].op]++; }
        }
    }
    p->prof.runs++;
    return UMAP_OK;
}

UMAP__FN umap_result umap_program_output(const umap_program *p, int i, const float **data, umap_shape *shape) {
    if (!p || i < 0 || i >= p->n_outputs || !data) return UMAP_ERR_INVALID_ARGUMENT;
    if (!p->ptr) return UMAP_ERR_INVALID_ARGUMENT; /* not run yet */
    *data = (const float *)p->ptr[p->outputs[i]];
    if (shape) *shape = p->nodes[p->outputs[i]].shape;
    return UMAP_OK;
}

UMAP__FN void umap_program_profile(const umap_program *p, umap_profile *out) {
    if (!out) return;
    if (!p) { memset(out, 0, sizeof *out); return; }
    *out = p->prof;
}
UMAP__FN void umap_program_profile_reset(umap_program *p) {
    if (p) memset(&p->prof, 0, sizeof p->prof);
}

/* >>inspect --------------------------------------------------------------- */

static const char *umap__pnode_opname(const umap__pnode *n) {
    return n->op == UMAP_OP_CUSTOM ? n->custom->name : umap__op_names[n->op];
}

static const char *umap__pnode_label(const umap_program *p, const umap__pnode *n) {
    return n->leaf >= 0 ? p->leaves[n->leaf].name : "";
}

static void umap__pnode_line(const umap_program *p, const umap__pnode *n, int i, FILE *f) {
    char s[96], prm[128];
    umap_tensor t;
    int j;
    memset(&t, 0, sizeof t);
    t.op = n->op; t.shape = n->shape; t.fp[0] = n->fp[0]; t.fp[1] = n->fp[1]; t.lp[0] = n->lp[0]; t.lp[1] = n->lp[1];
    memcpy(t.ip, n->ip, sizeof t.ip);
    umap__shape_str(n->shape, s, sizeof s);
    umap__node_params_str(&t, prm, sizeof prm);
    fprintf(f, "  %%%d = %s", i, umap__pnode_opname(n));
    for (j = 0; j < n->n_src; j++) fprintf(f, "%s%%%d", j ? ", " : " ", n->src[j]);
    fprintf(f, "%s : %s%s", prm, n->dtype == UMAP_I32 ? "i32" : "f32", s);
    if (n->leaf >= 0) fprintf(f, "  \"%s\"", umap__pnode_label(p, n));
}

UMAP__FN void umap_program_dump(const umap_program *p, umap_stage stage, FILE *f) {
    static const char *const names[] = {"built", "optimized", "fused"};
    int i, s;
    if (!p || !f || (int)stage < 0 || stage >= UMAP_STAGE_COUNT || !p->stage[stage]) return;
    fprintf(f, "stage %s: %d nodes, outputs", names[stage], p->stage_n[stage]);
    for (i = 0; i < p->n_outputs; i++) fprintf(f, " %%%d", p->stage_outputs[stage][i]);
    fputc('\n', f);
    if (stage != UMAP_STAGE_FUSED) {
        for (i = 0; i < p->stage_n[stage]; i++) {
            umap__pnode_line(p, &p->stage[stage][i], i, f);
            fputc('\n', f);
        }
        return;
    }
    fprintf(f, "  %d kernels, arena %lld bytes (%lld without reuse)\n", p->n_steps, (long long)p->arena_bytes,
            (long long)p->stats.unplanned_bytes);
    for (s = 0; s < p->n_steps; s++) {
        const umap_step *st = &p->steps[s];
        fprintf(f, "  step %d: ", s);
        if (st->kind == UMAP__STEP_REGION) {
            const umap__region *R = &p->regions[st->region];
            fprintf(f, "fused {");
            for (i = 0; i < p->n_nodes; i++)
                if (p->region_of[i] == st->region) fprintf(f, " %%%d %s", i, umap__pnode_opname(&p->nodes[i]));
            fprintf(f, " } reads");
            for (i = 0; i < R->n_loads; i++)
                fprintf(f, " %%%d%s", R->loads[i].node, R->loads[i].kind == UMAP__LOAD_IMM ? "(imm)" : "");
            fputc('\n', f);
        } else {
            umap__pnode_line(p, &p->nodes[st->node], st->node, f);
            fputc('\n', f);
        }
        fprintf(f, "          -> %%%d at arena+%lld (%lld bytes)\n", st->node, (long long)p->offset[st->node],
                (long long)p->nodes[st->node].numel * 4);
    }
}

UMAP__FN void umap_program_dot(const umap_program *p, umap_stage stage, FILE *f) {
    int i, j, r;
    const umap__pnode *nodes;
    if (!p || !f || (int)stage < 0 || stage >= UMAP_STAGE_COUNT || !p->stage[stage]) return;
    nodes = p->stage[stage];
    fprintf(f, "digraph umap {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    if (stage == UMAP_STAGE_FUSED)
        for (r = 0; r < p->n_regions; r++) {
            if (p->regions[r].n_nodes < 2) continue;
            fprintf(f, "  subgraph cluster_%d {\n    label=\"fused %d\"; style=dashed;\n", r, r);
            for (i = 0; i < p->n_nodes; i++)
                if (p->region_of[i] == r) fprintf(f, "    n%d;\n", i);
            fprintf(f, "  }\n");
        }
    for (i = 0; i < p->stage_n[stage]; i++) {
        char s[96];
        const umap__pnode *n = &nodes[i];
        int is_out = 0;
        for (j = 0; j < p->n_outputs; j++) is_out |= p->stage_outputs[stage][j] == i;
        umap__shape_str(n->shape, s, sizeof s);
        fprintf(f, "  n%d [label=\"%%%d %s\\n%s%s%s\"%s];\n", i, i, umap__pnode_opname(n), s,
                n->leaf >= 0 ? " " : "", umap__pnode_label(p, n),
                is_out ? ", style=bold" : umap__is_leaf(n->op) ? ", shape=ellipse" : "");
        for (j = 0; j < n->n_src; j++) fprintf(f, "  n%d -> n%d;\n", n->src[j], i);
    }
    fprintf(f, "}\n");
}

UMAP__FN void umap_program_fusion_report(const umap_program *p, FILE *f) {
    int r, i;
    if (!p || !f || !p->region_of) return;
    fprintf(f, "fusion: %d elementwise kernels, %d of them fused (%d ops inside)\n", p->n_regions, p->stats.regions,
            p->stats.fused_nodes);
    for (r = 0; r < p->n_regions; r++) {
        const umap__region *R = &p->regions[r];
        fprintf(f, "  kernel %d -> %%%d (%d op%s, %d input%s):", r, R->root, R->n_nodes, R->n_nodes == 1 ? "" : "s",
                R->n_loads, R->n_loads == 1 ? "" : "s");
        for (i = 0; i < p->n_nodes; i++)
            if (p->region_of[i] == r) fprintf(f, " %s", umap__pnode_opname(&p->nodes[i]));
        fprintf(f, "\n    ends here because %s\n", p->not_fused[R->root] ? p->not_fused[R->root] : "?");
    }
}

/* >>gradcheck ------------------------------------------------------------- */

UMAP__FN umap_result umap_gradcheck(umap_graph *g, umap_tensor *loss, int n_leaves, umap_tensor *const *leaves,
                                    void *const *values, int n_wrt, umap_tensor *const *wrt,
                                    const umap_gradcheck_desc *desc, umap_gradcheck_report *report) {
    umap_gradcheck_desc d;
    umap_gradcheck_report rep;
    umap_tensor **grads = NULL, **outs = NULL;
    umap_program *fwd = NULL, *both = NULL;
    umap_compile_desc cd;
    umap_result r;
    int i, j, failed = 0;
    float **analytic = NULL;
    memset(&rep, 0, sizeof rep);
    rep.worst_wrt = -1;
    if (!g || !loss || n_leaves < 0 || n_wrt < 1 || (n_leaves > 0 && (!leaves || !values)) || !wrt)
        return UMAP_ERR_INVALID_ARGUMENT;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (d.eps <= 0) d.eps = 1e-2f;
    if (d.atol <= 0) d.atol = 1e-3f;
    if (d.rtol <= 0) d.rtol = 1e-2f;
    for (i = 0; i < n_wrt; i++) {
        for (j = 0; j < n_leaves; j++)
            if (leaves[j] == wrt[i]) break;
        if (j == n_leaves || !wrt[i] || wrt[i]->dtype != UMAP_F32) {
            umap__graph_note(g, "gradcheck: wrt[%d] must be one of the f32 leaves given values", i);
            return UMAP_ERR_INVALID_ARGUMENT;
        }
    }
    grads = (umap_tensor **)umap__calloc(&g->alloc, (size_t)n_wrt, sizeof *grads);
    outs = (umap_tensor **)umap__calloc(&g->alloc, (size_t)n_wrt + 1, sizeof *outs);
    analytic = (float **)umap__calloc(&g->alloc, (size_t)n_wrt, sizeof *analytic);
    if (!grads || !outs || !analytic) { r = UMAP_ERR_OUT_OF_MEMORY; goto done; }
    if ((r = umap_grad(g, loss, n_wrt, wrt, grads)) != UMAP_OK) goto done;
    outs[0] = loss;
    for (i = 0; i < n_wrt; i++) outs[i + 1] = grads[i];
    memset(&cd, 0, sizeof cd);
    cd.n_threads = d.n_threads;
    if ((r = umap_compile(g, 1, &loss, &cd, &fwd)) != UMAP_OK) goto done;
    if ((r = umap_compile(g, n_wrt + 1, outs, &cd, &both)) != UMAP_OK) goto done;
    for (j = 0; j < n_leaves; j++) {
        if ((r = umap_program_bind_tensor(fwd, leaves[j], values[j])) != UMAP_OK) goto done;
        if ((r = umap_program_bind_tensor(both, leaves[j], values[j])) != UMAP_OK) goto done;
    }
    if ((r = umap_program_run(both)) != UMAP_OK) goto done;
    for (i = 0; i < n_wrt; i++) {
        const float *gd = NULL;
        int64_t n = umap_shape_numel(wrt[i]->shape);
        analytic[i] = (float *)umap__alloc(&g->alloc, (size_t)n * 4);
        if (!analytic[i]) { r = UMAP_ERR_OUT_OF_MEMORY; goto done; }
        if ((r = umap_program_output(both, i + 1, &gd, NULL)) != UMAP_OK) goto done;
        memcpy(analytic[i], gd, (size_t)n * 4);
    }
    for (i = 0; i < n_wrt; i++) {
        float *x = NULL;
        int64_t n = umap_shape_numel(wrt[i]->shape), step, e;
        for (j = 0; j < n_leaves; j++)
            if (leaves[j] == wrt[i]) x = (float *)values[j];
        step = d.max_checks > 0 && n > d.max_checks ? (n + d.max_checks - 1) / d.max_checks : 1;
        for (e = 0; e < n; e += step) {
            float x0 = x[e], h = d.eps * (fabsf(x0) > 1.0f ? fabsf(x0) : 1.0f);
            double f[4], fd, ad = analytic[i][e], err, rel;
            static const float offs[4] = {2.0f, 1.0f, -1.0f, -2.0f};
            const float *lv = NULL;
            int q;
            for (q = 0; q < 4; q++) {
                x[e] = x0 + offs[q] * h;
                if ((r = umap_program_run(fwd)) != UMAP_OK || (r = umap_program_output(fwd, 0, &lv, NULL)) != UMAP_OK) {
                    x[e] = x0;
                    goto done;
                }
                f[q] = lv[0];
            }
            x[e] = x0;
            fd = (-f[0] + 8.0 * f[1] - 8.0 * f[2] + f[3]) / (12.0 * (double)h);
            err = fabs(ad - fd);
            rel = err / (fabs(fd) > 1e-12 ? fabs(fd) : 1e-12);
            rep.checked++;
            if (err > rep.max_abs_err || err != err) {
                rep.max_abs_err = err;
                rep.worst_wrt = i;
                rep.worst_index = e;
                rep.worst_autodiff = ad;
                rep.worst_numeric = fd;
            }
            if (rel > rep.max_rel_err) rep.max_rel_err = rel;
            if (!(err <= d.atol + d.rtol * fabs(fd))) failed = 1;
        }
    }
    if (failed) {
        r = UMAP_ERR_GRADCHECK;
        umap__graph_note(g, "gradcheck: wrt[%d][%lld]: autodiff %g vs finite differences %g", rep.worst_wrt,
                         (long long)rep.worst_index, rep.worst_autodiff, rep.worst_numeric);
    }
done:
    if (report) *report = rep;
    umap_program_free(fwd);
    umap_program_free(both);
    if (analytic)
        for (i = 0; i < n_wrt; i++) umap__free(&g->alloc, analytic[i]);
    umap__free(&g->alloc, analytic);
    umap__free(&g->alloc, grads);
    umap__free(&g->alloc, outs);
    return r;
}

/* >>optim ----------------------------------------------------------------- */

typedef struct umap__adam_ctx {
    float lr, b1, b2, eps, wd, c1, c2, scale;
    float *w, *m, *v;
    const float *g;
} umap__adam_ctx;

static void umap__adam_range(void *ctx, int64_t b, int64_t e) {
    const umap__adam_ctx *c = (const umap__adam_ctx *)ctx;
    int64_t i;
    for (i = b; i < e; i++) {
        float g = c->g[i] * c->scale;
        float m = c->b1 * c->m[i] + (1.0f - c->b1) * g;
        float v = c->b2 * c->v[i] + (1.0f - c->b2) * g * g;
        c->m[i] = m;
        c->v[i] = v;
        c->w[i] -= c->lr * ((m / c->c1) / (sqrtf(v / c->c2) + c->eps) + c->wd * c->w[i]);
    }
}

UMAP__FN void umap_adam_update(const umap_adam_desc *desc, int64_t t, float *w, const float *grad, float *m, float *v,
                               int64_t n, float grad_scale, umap_pool *pool) {
    umap__adam_ctx c;
    if (!w || !grad || !m || !v || n <= 0) return;
    if (t < 1) t = 1;
    c.lr = desc && desc->lr > 0 ? desc->lr : 1e-3f;
    c.b1 = desc && desc->beta1 > 0 ? desc->beta1 : 0.9f;
    c.b2 = desc && desc->beta2 > 0 ? desc->beta2 : 0.999f;
    c.eps = desc && desc->eps > 0 ? desc->eps : 1e-8f;
    c.wd = desc ? desc->weight_decay : 0.0f;
    c.c1 = (float)(1.0 - pow((double)c.b1, (double)t));
    c.c2 = (float)(1.0 - pow((double)c.b2, (double)t));
    c.scale = grad_scale;
    c.w = w; c.m = m; c.v = v; c.g = grad;
    umap__parallel_range(pool, n, 65536, umap__adam_range, &c);
}

UMAP__FN float umap_grad_clip_scale(int n_arrays, const float *const *grads, const int64_t *sizes, float max_norm) {
    double ss = 0.0, norm;
    int a;
    int64_t i;
    if (max_norm <= 0 || !grads || !sizes) return 1.0f;
    for (a = 0; a < n_arrays; a++)
        for (i = 0; i < sizes[a]; i++) ss += (double)grads[a][i] * grads[a][i];
    norm = sqrt(ss);
    if (!(norm > max_norm)) return norm != norm ? 0.0f : 1.0f;
    return (float)(max_norm / norm);
}

#endif /* UMAP__IMPLEMENTED */
#endif /* UMAP_IMPLEMENTATION */

/*
MIT License

Copyright (c) 2026 the umap.h authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
*/
