/* umap.h - parametric UMAP on a small tensor compiler. Header-only C99/C++.
   MIT licence (see the end of this file).

   DO THIS
   -------
   In exactly one C or C++ file:

       #define UMAP_IMPLEMENTATION
       #include "umap.h"

   Everywhere else just #include "umap.h". Link with -lblas -lpthread -lm
   (or define UMAP_NO_BLAS and drop -lblas; define UMAP_NO_THREADS and drop
   -lpthread; on Windows no -lpthread: the pool uses Win32's threads).
   Any C99 compiler builds it: GCC and Clang get vector kernels, others
   (MSVC, tcc) portable loops; the thread pool's counters are Windows'
   Interlocked calls on Windows, GCC/Clang's atomics elsewhere, a lock with
   any other compiler. The platforms it is tested on, and how: README.md,
   "Platforms".

   COMPILE-TIME OPTIONS (define before the implementation include)
   ---------------------------------------------------------------
   UMAP_STATIC        every public symbol is `static` (private to one file)
   UMAP_NO_BLAS       no CBLAS: the portable cache-blocked, threaded sgemm
                      is used instead (embedded targets)
   UMAP_NO_THREADS    no threads: everything runs on the calling thread
                      (WebAssembly without shared memory, microcontrollers)
   UMAP_NO_CPU_DISPATCH
                      the portable sgemm, the k-NN distance kernels and
                      the refinement are compiled for the build's own
                      target only (by default, with GCC/Clang on x86, they
                      are compiled for SSE2, AVX2 and AVX-512 and the CPU
                      picks)
   UMAP_NO_SIMD       the refinement's and Adam's scalar loops only (on
                      x86-64 the refinement runs four pairs at a time in
                      SSE2 by default, eight in AVX2 where the CPU has it
                      unless UMAP_NO_CPU_DISPATCH, and Adam four weights
                      in SSE2; all give the same bits)
   UMAP_MALLOC(sz,ud) / UMAP_FREE(p,ud)
                      default allocator (both or neither); runtime hooks in
                      umap_allocator override them per object
   UMAP_ASSERT(x)     internal invariant checks (default: assert.h)
   UMAP_COMPILER_ONLY the tensor compiler alone (with umap_knn.h's base and
                      k-NN): no UMAP, whose sections follow the compiler's

   QUICK START: UMAP
   -----------------
       umap_config cfg = umap_config_default();    // every field documented below
       umap_fit_info info; cfg.info = &info;       // optional: phase times, why it failed
       umap_target t = {0}; t.labels = y;          // optional, supervised: n labels, -1 = unknown
       cfg.target = &t;                            // (and cfg.target_weight, 0.5)
       umap_model *m;
       if (umap_fit(&cfg, data, n, d, &m) != UMAP_OK) puts(info.error_detail);
       const float *xy = umap_model_embedding(m);  // n x 2
       umap_transform(m, new_rows, n_new, d, out, 0);  // among the nearest of the training rows the
                                                   // model keeps (by default the sketch of 16,384),
                                                   // or cfg.keep_data = UMAP_KEEP_NONE: the encoder
       umap_save(m, "model.safetensors");          // or .gguf; umap_load reads both
       umap_update(m, NULL, &more);                // continued training: the model grows by the rows
                                                   // `more` (umap_rows); see umap_update_desc
       umap_model_free(m);
   Sparse rows (TF-IDF, counts: scipy's CSR) are never densified:
       umap_rows x = umap_rows_csr(n, d, indptr, indices, values);
       umap_fit_rows(&cfg, &x, &m);                // and umap_transform_rows, umap_knn_rows,
                                                   // umap_quality_eval_rows, umap_pairwise_rows
   Any distance, as a C function (umap_knn.h's umap_metric_fn):
       cfg.metric = UMAP_METRIC_CUSTOM; cfg.metric_fn = my_distance;
       cfg.metric_user_data = my_state;            // a loaded model: umap_model_set_metric_fn

   fit = k-NN (umap_knn.h) -> fuzzy simplicial set -> a warm start of the
   encoder (cfg.init: PCA, umap-learn's spectral layout, your coordinates or
   none) -> an MLP encoder trained with UMAP's cross-entropy on mini-batches
   of edges (one IR graph, differentiated and compiled once) -> classic UMAP
   epochs refining the embedding -> the encoder distilled onto it. Search
   `>>umap` below, `>>init` for the sparse eigensolver.

   QUICK START: THE TENSOR COMPILER
   --------------------------------
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

   DESCS AND THEIR DEFAULTS
   ------------------------
   A NULL desc means every default. A zero-initialised desc does too where
   zero is no legal value of a field (a k, a thread count, a step size,
   Adam's lr and eps): there 0 stands for the default, as each field's
   comment says. Where zero is legal it means zero, and the desc has a
   umap_X_desc_default() to start from: umap_adam_desc (beta1 and beta2:
   0 is no momentum), umap_train_desc (its adam), umap_gradcheck_desc
   (atol and rtol: 0 turns a term off); umap_config has
   umap_config_default(). Each desc's defaults are applied in one place: a
   resolve function (umap__adam_desc_resolve, umap__knn_resolve) or the top
   of the one call that takes it; values that depend on the data's size
   (NN-Descent's rounds, transform's epochs) are chosen where it is known.

   THE PIECES (search for the `>>` markers; in this order in both halves)
   ----------------------------------------------------------------------
   umap_knn.h (included first) holds the base every header shares:
                result codes, allocator and log hooks, the Philox RNG, the
                thread pool, sgemm (CBLAS or portable) and k-NN
   base utilities
   >>output     staged files: a temporary beside the target, renamed over it
   >>tune-cache  the kernel tuner's records in a file (UMAP_TUNE)
   the tensor compiler (knows nothing of UMAP)
   >>ir         nodes, the op list (one X-macro), shape inference, builders
   >>knn ops    k-NN as custom ops in the graph
   >>autodiff   reverse mode (a graph rewrite), forward mode (jvp), hvp
   >>vmap       vectorising over a new batch axis (a graph rewrite)
   >>passes     fold, simplify, CSE, DCE
   >>fusion     elementwise chains into regions
   >>plan       liveness-based memory plan over one arena
   >>compile    umap_compile: the passes, the plan and the backend's steps
   >>run        binding, running, reading outputs
   >>cpu        CPU backend: fused-region interpreter, sgemm, reductions ...
   >>backend    the backend table (umap_backend) and the CPU's entry in it
   >>inspect    dumps, dot graphs, SVG pictures and diffs of the stages,
                UMAP_DUMP, the fusion report, profiles
   >>gradcheck  finite differences against autodiff
   >>optim      Adam, and training a program's params
   parametric UMAP, in the order the data flows
   >>umap       the model, the config's table (defaults, limits), the fit's
                context, the curve's a and b
   >>graph      the fuzzy simplicial set, its edge sampler, a supervised
                target's intersection
   >>encoder    the MLPs (the encoder, its mirror the decoder) and the encoder's
                input: column statistics, principal axes (of dense rows, and
                of sparse ones by a randomized SVD)
   >>init       the warm start: PCA, the spectral layout (LOBPCG)
   >>train      the encoder trained by UMAP's loss on sampled edges
   >>refine     classic UMAP epochs on the embedding (on the host, or a
                device's umap_refiner)
   >>keep       what a model keeps for transform: rows or their sketch, a
                sample, the push field and the rows' curve order
   >>fit        umap_fit, umap_fit_knn, umap_fuzzy_graph: the stages in order;
                umap_update, the same stages from a model over more rows
   >>transform  new rows by the encoder or among the kept rows; inverse_transform
                by the decoder
   >>modelfile  safetensors and GGUF containers (strict parser; -json, -write,
                -parse)
   >>model files  the model <-> files
   >>quality    trustworthiness, k-NN recall, k-NN classifier accuracy
   (tests/test_manual.cc holds this list and the markers to each other)

   Results depend on the inputs and the seed only: never on the thread count
   (work is cut into tasks by size, and every task writes its own outputs).
   The portable sgemm picks its kernel by CPU (AVX-512, AVX2+FMA or SSE2),
   so bits may differ between machines, never between runs on one machine.

   Builders never fail loudly: a builder that gets bad arguments returns NULL,
   records the first error in the graph (umap_graph_status / _error_detail,
   naming the op and the shapes), and any later builder given a NULL returns
   NULL too, so a whole model can be built and checked once.

   ERRORS
   ------
   Every fallible call returns a umap_result (umap_result_string names it);
   the calls with an info struct or a detail buffer also say why. A message
   that names a row gives its 0-based index ("row 0" is the first row, as
   numpy counts), for the data, the outputs and a caller's k-NN alike;
   cli/umap_io.h's readers use the same index and add the file's own
   position (a CSV line, a byte offset). Extreme but finite data gives a
   finite result or an error, never NaN or Inf with UMAP_OK: fit, transform
   and the k-NN searches check their outputs.

   DIFFERENTIATION
   ---------------
   umap_grad (reverse), umap_jvp (forward) and umap_hvp (forward over
   reverse; umap_gradcheck and umap_fit build on them) follow the gradient
   column of the op list (UMAP_OP_LIST, >>ir), which sorts every op:
   - differentiable (D): a rule for every f32 source, both modes;
   - zero by definition (Z, Z0, Z1): sign and the comparisons w.r.t. every
     source, select w.r.t. its condition, gather / scatter_add w.r.t. the
     index. As in PyTorch and JAX, differentiating THROUGH such an op is
     not an error: those paths contribute nothing (a loss that reaches a
     param only through lt(x, p) has a zero gradient w.r.t. p), and a
     tangent there is dropped;
   - custom (CG): the op descriptor's grad_fn is the reverse rule; no
     descriptor has a forward rule.
   Anything else is an error, never a silent zero: when a gradient a wrt
   needs must flow through an op with no rule (a custom op without
   grad_fn; a custom op in forward mode; a D op whose rule is missing),
   the call fails with UMAP_ERR_NOT_DIFFERENTIABLE, recorded in the graph
   with a detail naming the op and the node. An op off the gradient's path
   needs no rule. umap_op_info_get returns the column for tools.

   DEBUGGING THE COMPILER
   ----------------------
   A program keeps three stages: built (the graph as made), optimized
   (after fold, simplify, CSE and DCE) and fused (the kernels and the
   memory plan). Each can be written as
       umap_program_dump(p, stage, f)      text, one line per node
       umap_program_dot(p, stage, f)       Graphviz DOT
       umap_program_svg(p, stage, f)       an SVG the library lays out
                                           itself (no graphviz): the fused
                                           stage colours each kernel, labels
                                           arena offsets and draws the memory
                                           plan as lanes of buffer lifetimes
   and umap_program_fusion_report(p, f) says where and why fusion stopped.
   umap_program_diff(p, from, to, f) (text) and umap_program_diff_svg
   (colours) say what became of each node of one stage in another: dead,
   replaced (CSE, an identity or a fold), folded, rewritten, fused into a
   kernel, or added. Nodes are matched by their graph node id.

   UMAP_DUMP=dir (environment) makes EVERY compile, fit's included, write
   all of it: dir/NNNN-NAME-STAGE.{txt,dot,svg} for each stage (the fused
   .txt ends with the fusion report) and dir/NNNN-NAME-FROM-TO.diff.{txt,svg}
   for built->optimized and optimized->fused, 13 files. NNNN counts the
   compiles of this process (from 0000; a new process starts again and
   overwrites), NAME is umap_compile_desc.name ("program" when NULL; any
   byte but [A-Za-z0-9_-] becomes '_'). The directory is made when missing
   (one level). A file that cannot be written is a UMAP_LOG_WARN on the
   program's logger, and that compile writes no more: a dump never fails
   a compile.

   VECTORISING (vmap)
   ------------------
   umap_vmap rewrites a graph over a new leading batch axis of B examples,
   as JAX's vmap does: the caller gives the inputs that vary per example and
   tensors [B, ...] that hold them; every node on their path gets a batched
   twin [B, its shape...] built by its op's batching rule
   (umap__vmap_rule, >>vmap), and every other node is shared by all
   examples. Composed with umap_grad it gives per-example gradients. The
   rules, by op:
   - leaves (input, param, const, fill): batched when listed, else shared;
   - elementwise (every U and B op, select, clamp): the batch is one more
     broadcast axis (a batched source is reshaped to [B, 1.., shape] so
     numpy broadcasting lines it up; a shared source broadcasts as before);
   - sum, mean, reduce_max: the same axes, one to the right;
   - reshape, permute, broadcast, slice, concat: the same op on the batched
     shape (concat broadcasts a shared part over the batch);
   - matmul: one batched product; a shared 2-D operand stays shared (the
     batch is folded into the rows), an already batched product [C, ...]
     runs as [B * C, ...];
   - gather, scatter_add: a batched index indexes as it is; batched rows
     move the batch behind the row axis; both batched go through a
     [B, ..., B, ...] intermediate and a diagonal mask (B times the work:
     the IR has no i32 arithmetic to offset each example's indices).
   Custom ops have no batching rule: a batched value reaching one fails with
   UMAP_ERR_NOT_BATCHABLE (one that reads only shared values is fine). A
   batched node needs rank + 1 <= UMAP_MAX_RANK (gather and scatter_add
   with both sources batched need one more), else UMAP_ERR_SHAPE.

   ADDING AN OP
   ------------
   1. A row in UMAP_OP_LIST: id, name, arity (checked by every builder:
      a node's source count must equal it; -1 = variable), class, and the
      gradient contract (D, Z, Z0, Z1, CG; see DIFFERENTIATION). The tables
      built from it are static-asserted to have UMAP_OP_COUNT entries.
   2. A builder that ends in umap__new_node, and its params in
      umap__node_params_str when it has any.
   3. For D (and the non-zero sources of Z0 / Z1): a case in umap__vjp and
      in umap__jvp_rule (>>autodiff), written with ordinary builders.
   3b. Its batching rule: a case in umap__vmap_rule (>>vmap; unary and
      binary elementwise ops have theirs by class), and its line in
      VECTORISING; or, if it can have none, it fails there loudly.
   4. Elementwise classes (U, B, E): a case in UMAP__EW_CASES (the scalar
      semantics that the region interpreter and constant folding share),
      and in the simplify pass if a rewrite applies; others: a case in
      umap__exec_node (>>cpu).
   5. umap_vk.h: a kernel (umap_vk__supports and the encoder; an
      elementwise op needs a code in umap_vk__ew_code and in
      shaders/ew_region.comp), or the op in UMAP_VK_CPU_ONLY_OPS there.
   6. A builder case in tests/test_op_table.cc: that test walks the whole
      list and fails for an op without a CPU kernel, without its declared
      rules (checked against finite differences) or without the Vulkan
      kernel its list promises.
      And cases in tests/test_vmap.cc, which walks the list too and fails
      for an op without one (its batched result against per-example runs).

   VERSION HISTORY
   ---------------
   0.1   the tensor compiler core: IR, autodiff, passes, CPU backend
   0.2   k-NN (umap_knn.h); parametric UMAP: fit, transform, model files, quality
   0.3   backends may run whole programs (umap_vk.h's resident modes)
   0.4   umap_program_train_*: Adam on the program's backend
   0.5   umap_output (staged, atomic files), umap_save_file
   0.6   keep_data and umap_transform_with: transform among the training rows
   0.7   supervised fit (target), init kinds, spectral layout, the metric table
   0.8   version macros; the *_desc_default functions
   0.9   umap_vmap; the kept k-NN graph (train.knn) walked by transform
   0.10  umap_knn_graph_index: the walk prepared once at fit and load
   0.11  refine_attraction, 0.5 by default
   0.12  UMAP_KEEP_SKETCH
   0.13  the sketch on the rows' own principal axes (train.sketch_axes)
   0.14  Adam flushes underflowing moments to 0
   0.15  a default fit keeps the sketch of a sample of its rows (keep_sample)
   0.16  one set of limits: umap_config_fields, umap_config_check; umap_output_open_new
   0.17  layer order; umap_refiner (umap_backend.refine gone); UMAP_COMPILER_ONLY; config rows' defaults
   0.18  any C99 compiler, Windows, 32-bit and big-endian machines, WebAssembly, a Cortex-M (make cross)
   0.19  metrics hellinger, canberra, braycurtis, dice, russellrao; disconnection_distance; unique
   0.20  the decoder (decoder_epochs) and umap_inverse_transform
   0.21  metric precomputed: distance matrices in, landmark encoders
   0.22  metrics haversine and seuclidean (V kept in the model); each metric's
         domain checked by fit and transform too
   0.23  sparse rows (umap_rows: CSR): umap_knn_rows, umap_fit_rows,
         umap_transform_rows, umap_quality_eval_rows, umap_pairwise_rows,
         unique, never densified
   0.24  densMAP (densmap, dens_lambda, dens_frac, dens_var_shift) in the
         refinement, carried to transform; output_dens and
         umap_model_local_radii
   0.25  umap_update: continued training, a model grown by new rows
   0.26  the custom metric: the caller's C function (metric_fn),
         umap_model_set_metric_fn for a loaded model
   0.27  a sparse graph of distances (metric precomputed on CSR rows)
         fits and transforms; a precomputed model keeps its training
         places and transform places new rows among them by their own
         distances (keep_data's default for precomputed)
   0.28  the Python package installs with pip and takes umap-learn's
         parameters with umap-learn's meanings
   (CHANGELOG.md says what each changed.)
*/
#ifndef UMAP_H
#define UMAP_H

/* this header's version: the last entry of VERSION HISTORY above */
#define UMAP_VERSION_MAJOR 0
#define UMAP_VERSION_MINOR 28
#define UMAP_VERSION_PATCH 0
#define UMAP_VERSION_STRING "0.28.0"

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

/* >>output: files written whole or not at all -----------------------------

   A staged output. umap_output_open creates a new temporary file beside the
   target, under an unpredictable name and exclusively (O_CREAT|O_EXCL), so a
   file or symlink planted under any name there is neither followed nor
   overwritten; the caller writes to out->file; umap_output_commit checks
   that every byte got out (ferror, fflush, fclose, then fsync) and renames
   the temporary over the target in one step. Until the commit the target is
   untouched, and every failure removes the temporary: a full disk, a file
   size limit or an error later in the same job leaves an existing file as
   it was. A job that writes several files finishes each (umap_output_finish)
   and commits them all only when every one was written.

       umap_output o;
       if (umap_output_open(&o, "emb.csv") != UMAP_OK) return fail(o.error);
       fprintf(o.file, "x,y\n"); ...
       if (umap_output_commit(&o) != UMAP_OK) return fail(o.error);

   The new file gets fopen's permissions (0666 less the umask). A target
   that is a symlink is replaced by the new file (the file it pointed to is
   not written). A target that exists and is neither a regular file nor a
   directory (/dev/null, a FIFO) is written directly: there is nothing to
   keep. A directory is refused (EISDIR).
   Errors: UMAP_ERR_IO (or UMAP_ERR_OUT_OF_MEMORY, UMAP_ERR_INVALID_ARGUMENT)
   with out->error holding "PATH: what failed: the OS's reason". After any
   failure the temporary is gone and out is closed; umap_output_discard is
   harmless on an output in any state (zeroed, open, finished, committed,
   failed), so one cleanup path can discard everything. */
typedef struct umap_output {
    FILE *file;          /* the open temporary: write here until finish/commit */
    char error[640];     /* why the last call failed; "" after success */
    /* internal */
    char *path_, *tmp_;  /* one allocation: the target, then the temporary */
    int state_;          /* 0 closed, 1 open, 2 finished */
    int direct_;         /* 1: a special file (no temporary) */
} umap_output;

UMAPDEF umap_result umap_output_open(umap_output *out, const char *path);
/* The same for a name the program chose, not its user (UMAP_DUMP's files,
   the tuning cache): whatever is there is replaced by the new file, never
   written into or followed. A FIFO or device planted under the name (or a
   symlink to one) cannot block or redirect the write; only a directory
   there is refused. */
UMAPDEF umap_result umap_output_open_new(umap_output *out, const char *path);
/* Flushes, closes and syncs the temporary; the target is still untouched. */
UMAPDEF umap_result umap_output_finish(umap_output *out);
/* Finishes (if not yet) and renames the temporary over the target. */
UMAPDEF umap_result umap_output_commit(umap_output *out);
/* Closes and removes the temporary (the target stays as it was). */
UMAPDEF void umap_output_discard(umap_output *out);

/* >>tune-cache: the tuner's records in a file -------------------------------

   umap_knn.h's tuner (kernel autotuning, off by default) keeps what it
   measured in a small text file, so the timing happens once per machine:

       umap-tune-cache 1
       library 0.8.0
       DEVICE<TAB>KEY<TAB>VALUE        one line per record
       end N                           N = the number of records

   DEVICE is the CPU (umap_tuner_cpu: model name and kernel ISA) or a
   Vulkan device (umap_vk.h: name, ids and driver version), so one file
   serves machines that share a home directory; a record of another device
   is kept and rewritten, never used. A file of another library version,
   a truncated one (no "end N" line, or N wrong) or anything malformed is
   ignored as a whole with a warning through the tuner's logger: the
   tuner starts empty and measures again. Records never change results,
   only which kernel variant computes them, and each value is checked
   against the variants this CPU may use before it is used.

   umap_tuner_load: path NULL means umap_tuner_default_path. A missing file
   is not an error (an empty tuner). Only an unusable path or no memory
   fail. The path is kept as umap_tuner_save's default.
   umap_tuner_save writes through umap_output (atomically), creating the
   default path's directory if needed.
   umap_tuner_default_path: $XDG_CACHE_HOME/umap/tune.txt, else
   $HOME/.cache/umap/tune.txt.

   The UMAP_TUNE environment variable turns tuning on for the pools the
   library creates itself (fit, umap_compile without desc.pool, transform):
   "1" with the default path, any other non-empty value but "0" names the
   cache file. The records are saved when such a pool is freed (a write
   failure is logged, never an error of the fit). A caller that owns its
   pool attaches a tuner with umap_pool_set_tuner instead. */
UMAPDEF umap_result umap_tuner_default_path(char *buf, size_t size);
UMAPDEF umap_result umap_tuner_load(umap_tuner *t, const char *path);
UMAPDEF umap_result umap_tuner_save(umap_tuner *t, const char *path, char *detail, size_t detail_size);

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
/* The element count; -1 when there is none to give: a rank outside
   0..UMAP_MAX_RANK, a negative dim, or a product past INT64_MAX. */
UMAPDEF int64_t umap_shape_numel(umap_shape s);

/* The op list: id, name, number of sources (-1 = variable), class,
   gradient contract. Every builder checks its node's sources against the
   arity (concat takes 1..UMAP_MAX_SRC, custom 0..UMAP_MAX_SRC).
   Classes: L leaf, U unary elementwise, B binary elementwise (numpy
   broadcasting), E other elementwise, R reduction, S shape, M matmul,
   G gather/scatter, C custom.
   Gradient contract (what umap_grad / umap_jvp may assume; see
   DIFFERENTIATION in the manual):
     D   every f32 source has a reverse (vjp) and a forward (jvp) rule
     Z   piecewise constant: the gradient is zero w.r.t. every source, by
         definition and without a rule (sign, comparisons)
     Z0  zero w.r.t. source 0 (select's condition), rules for the others
     Z1  zero w.r.t. source 1 (the i32 index of gather / scatter_add),
         rules for the others
     CG  the rules are the custom op descriptor's (grad_fn; no forward mode)
   A D source whose rule is missing fails loudly with
   UMAP_ERR_NOT_DIFFERENTIABLE; it is never taken as a zero gradient. */
#define UMAP_OP_LIST(X)                     \
    X(INPUT, "input", 0, L, D)              \
    X(PARAM, "param", 0, L, D)              \
    X(CONST, "const", 0, L, D)              \
    X(FILL, "fill", 0, L, D)                \
    X(NEG, "neg", 1, U, D)                  \
    X(EXP, "exp", 1, U, D)                  \
    X(LOG, "log", 1, U, D)                  \
    X(LOG1P, "log1p", 1, U, D)              \
    X(SQRT, "sqrt", 1, U, D)                \
    X(RECIP, "reciprocal", 1, U, D)         \
    X(ABS, "abs", 1, U, D)                  \
    X(RELU, "relu", 1, U, D)                \
    X(SIGMOID, "sigmoid", 1, U, D)          \
    X(TANH, "tanh", 1, U, D)                \
    X(SQUARE, "square", 1, U, D)            \
    X(SIGN, "sign", 1, U, Z)                \
    X(ADD, "add", 2, B, D)                  \
    X(SUB, "sub", 2, B, D)                  \
    X(MUL, "mul", 2, B, D)                  \
    X(DIV, "div", 2, B, D)                  \
    X(POW, "pow", 2, B, D)                  \
    X(MAX, "max", 2, B, D)                  \
    X(MIN, "min", 2, B, D)                  \
    X(LT, "lt", 2, B, Z)                    \
    X(LE, "le", 2, B, Z)                    \
    X(GT, "gt", 2, B, Z)                    \
    X(GE, "ge", 2, B, Z)                    \
    X(EQ, "eq", 2, B, Z)                    \
    X(NE, "ne", 2, B, Z)                    \
    X(SELECT, "select", 3, E, Z0)           \
    X(CLAMP, "clamp", 1, E, D)              \
    X(SUM, "sum", 1, R, D)                  \
    X(MEAN, "mean", 1, R, D)                \
    X(RMAX, "reduce_max", 1, R, D)          \
    X(RESHAPE, "reshape", 1, S, D)          \
    X(PERMUTE, "permute", 1, S, D)          \
    X(BROADCAST, "broadcast", 1, S, D)      \
    X(SLICE, "slice", 1, S, D)              \
    X(CONCAT, "concat", -1, S, D)           \
    X(MATMUL, "matmul", 2, M, D)            \
    X(GATHER, "gather", 2, G, Z1)           \
    X(SCATTER_ADD, "scatter_add", 2, G, Z1) \
    X(CUSTOM, "custom", -1, C, CG)

typedef enum umap_op {
#define UMAP__X_OP(id, name, arity, cls, grad) UMAP_OP_##id,
    UMAP_OP_LIST(UMAP__X_OP)
#undef UMAP__X_OP
    UMAP_OP_COUNT
} umap_op;

UMAPDEF const char *umap_op_name(umap_op op);

/* The op list's declared contract for one op, for tools and tests that
   hold the implementation to it (tests/test_op_table.cc). */
typedef struct umap_op_info {
    const char *name;
    int arity;              /* number of sources; -1 = variable */
    unsigned zero_grad;     /* bit i: source i gets a zero gradient by definition
                               (Z: every bit, Z0: bit 0, Z1: bit 1) */
    int custom_grad;        /* 1 (CG): the custom op descriptor holds the rules */
} umap_op_info;
/* UMAP_ERR_INVALID_ARGUMENT for an op outside the list (or out == NULL) */
UMAPDEF umap_result umap_op_info_get(umap_op op, umap_op_info *out);

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
       gradient with ordinary builders; return NULL when src i's gradient
       is zero. Without it, umap_grad through this op (a gradient some wrt
       needs flows through it) fails with UMAP_ERR_NOT_DIFFERENTIABLE.
       There is no forward-mode hook: umap_jvp and umap_hvp through a
       custom op fail the same way. */
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
   does not depend on (or only through sources whose gradient the op list
   declares zero: comparisons, sign, select's condition) gets a zero
   tensor. A gradient that must flow through an op without a rule fails
   with UMAP_ERR_NOT_DIFFERENTIABLE, the op named in the graph's detail
   (see DIFFERENTIATION at the top). Compile [loss, grads...] together to
   run forward and backward as one program. */
UMAPDEF umap_result umap_grad(umap_graph *g, umap_tensor *loss, int n_wrt, umap_tensor *const *wrt,
                              umap_tensor **grads);
/* Forward mode: tangents of outs given tangents[i] for wrt[i] (same shape).
   Same contract as umap_grad; custom ops have no forward rule. */
UMAPDEF umap_result umap_jvp(umap_graph *g, int n_out, umap_tensor *const *outs, int n_wrt,
                             umap_tensor *const *wrt, umap_tensor *const *tangents,
                             umap_tensor **out_tangents);
/* Hessian-vector product, forward over reverse: hv[i] = sum_j H_ij v[j]. */
UMAPDEF umap_result umap_hvp(umap_graph *g, umap_tensor *loss, int n_wrt, umap_tensor *const *wrt,
                             umap_tensor *const *v, umap_tensor **hv);
/* Vectorising map (>>vmap): runs the graph for B examples at once. Each
   ins[i] (any node) gets a leading batch axis: batched_ins[i], a tensor of
   g shaped [B, ins[i]'s shape...] with its dtype (one B for all), holds its
   value per example; every node that does not depend on an ins keeps its
   one value for all examples (weights, constants). Appends to g the nodes
   of batched_outs[j], shaped [B, outs[j]'s shape...]: example b of it is
   outs[j] computed with ins[i] = batched_ins[i][b] (an output that depends
   on no ins is broadcast). Compose with umap_grad for per-example
   gradients: vmap the gradient nodes over the example. A path through an
   op without a batching rule (a custom op; see VECTORISING at the top)
   fails with UMAP_ERR_NOT_BATCHABLE, the op and node named in the graph's
   detail; a node whose batched form would pass UMAP_MAX_RANK fails with
   UMAP_ERR_SHAPE. */
UMAPDEF umap_result umap_vmap(umap_graph *g, int n_in, umap_tensor *const *ins, umap_tensor *const *batched_ins,
                              int n_out, umap_tensor *const *outs, umap_tensor **batched_outs);

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
    umap_pool *pool;               /* optional caller-owned pool (then n_threads is ignored);
                                      one run at a time per pool */
    unsigned disable_passes;       /* umap_pass_flags to turn off */
    int profile;                   /* time every step (umap_program_profile) */
    int use_blas;                  /* 1: products of UMAP_BLAS_MIN_MACS multiply-adds or more go to
                                      CBLAS (faster where the inner dimension is long), and their
                                      bits then follow the BLAS's own thread count, which OpenBLAS
                                      sets from the machine's cores; 0: every product on the
                                      library's threaded kernel, the same bits for any thread count
                                      on any machine (fit and transform compile so); 0 */
    umap_logger logger;
    const char *name;              /* names the program in UMAP_DUMP's files; NULL = "program" */
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
/* The same stage as an SVG picture, laid out by the library (no graphviz):
   one box per node in layers, edges to its sources, outputs in bold. The
   fused stage colours each kernel (a fused region's ops share its colour),
   labels each buffer with its kernel and arena offset, and adds the memory
   plan as lanes: one bar per buffer from the step that writes it to the
   last that reads it, at its offset. UMAP_ERR_IO when f reports an error. */
UMAPDEF umap_result umap_program_svg(const umap_program *p, umap_stage stage, FILE *f);
/* What the passes did between two stages (any two, usually consecutive),
   matched by graph node: each node of `from` that is dead (no output needs
   it), replaced (CSE, an identity or a fold made it unneeded), folded (a
   constant now),
   rewritten (another op), fused (into a kernel of several ops, when `to`
   is the fused stage) or added, as text lines or as a coloured SVG. */
UMAPDEF umap_result umap_program_diff(const umap_program *p, umap_stage from, umap_stage to, FILE *f);
UMAPDEF umap_result umap_program_diff_svg(const umap_program *p, umap_stage from, umap_stage to, FILE *f);
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
    /* optional, for devices with memory of their own: run every step of one
       run at once (the program has resolved its host buffers; the backend
       moves what it needs and leaves the outputs in them). NULL: run_step is
       called for each step. */
    umap_result (*run_program)(const umap_backend *be, umap_program *p);
    /* optional: frees what run_program kept for p (umap_program_backend_state) */
    void (*release)(const umap_backend *be, umap_program *p);
    /* optional, with run_program: keeps the params of umap_program_train_*
       in device memory (op: UMAP_TRAIN_LOAD, _STEP or _STORE). NULL: the
       core updates the bound buffers on the host. */
    umap_result (*train)(const umap_backend *be, umap_program *p, int op, int64_t t, float lr_scale);
};
enum { UMAP_TRAIN_LOAD, UMAP_TRAIN_STEP, UMAP_TRAIN_STORE };
UMAPDEF const umap_backend *umap_cpu_backend(void);
/* A slot a backend may use for per-program state (NULL until it sets it). */
UMAPDEF void **umap_program_backend_state(umap_program *p);
/* op of a step's root node (its last op, for a fused region) */
UMAPDEF umap_op umap_step_op(const umap_step *step);

/* >>gradcheck -------------------------------------------------------------- */

/* Start from umap_gradcheck_desc_default() (or pass NULL): a zero atol or
   rtol is honoured (0 = that term is off), so a zero-initialised desc asks
   for an exact match. */
typedef struct umap_gradcheck_desc {
    float eps;          /* step, relative to max(1, |x|), > 0; 0 = 1e-2 (a zero step measures nothing) */
    float atol, rtol;   /* pass if |ad - fd| <= atol + rtol*|fd|; >= 0 (default 1e-3, 1e-2) */
    int max_checks;     /* elements per wrt checked (evenly spaced); 0 = all */
    int n_threads;      /* 0 = all cores */
} umap_gradcheck_desc;
/* eps 1e-2, atol 1e-3, rtol 1e-2, every element, all cores: what NULL means */
UMAPDEF umap_gradcheck_desc umap_gradcheck_desc_default(void);

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

/* Start from umap_adam_desc_default() (or pass NULL): beta1 = 0 (no
   momentum: an RMSProp-like step) and beta2 = 0 are legal Adam settings, so
   a zero beta is honoured and a zero-initialised desc has no momentum. lr
   and eps are never zero in a useful Adam, so there 0 still stands for the
   default. */
typedef struct umap_adam_desc {
    float lr;            /* > 0; 0 = 1e-3 */
    float beta1, beta2;  /* in [0, 1); 0 is honoured (default 0.9, 0.999) */
    float eps;           /* > 0; 0 = 1e-8 (a zero eps divides 0 by 0 on a zero gradient) */
    float weight_decay;  /* decoupled (AdamW); 0 = none */
} umap_adam_desc;
/* lr 1e-3, betas 0.9 and 0.999, eps 1e-8, no weight decay: what NULL means */
UMAPDEF umap_adam_desc umap_adam_desc_default(void);

/* One Adam update of n weights at step t (1-based), threaded on pool (may be
   NULL). m and v are the caller's moment buffers (zeroed before step 1).
   grad_scale multiplies the gradient first (for clipping: see
   umap_grad_clip_scale). A moment that falls below FLT_MIN is stored as 0
   (subnormal arithmetic is slow on x86); NaN passes through. */
UMAPDEF void umap_adam_update(const umap_adam_desc *desc, int64_t t, float *w, const float *grad, float *m,
                              float *v, int64_t n, float grad_scale, umap_pool *pool);
/* min(1, max_norm / ||grads||) over several arrays; 1 when max_norm <= 0. */
UMAPDEF float umap_grad_clip_scale(int n_arrays, const float *const *grads, const int64_t *sizes, float max_norm);

/* Training a program's params in place, on the program's backend.
   Attach names the params and the outputs that hold their gradients; then
   each umap_program_train_step after a run applies one Adam update (with
   optional global-norm clipping over all the gradients) to them.

   Where the weights live: on the CPU the step writes the params' bound
   buffers directly. A device backend (umap_vk.h's lazy and compiled modes)
   keeps the params and the Adam moments in its own memory between runs, so
   a training loop moves no weights at all; it applies a step together with
   the next run (one submission) and the bound buffers are only written by
   umap_program_train_store. umap_program_train_load re-reads the bound
   buffers and zeroes the moments (do it after writing them on the host);
   the first run after attach does the same. Both are cheap no-ops on the
   CPU apart from the zeroing, so one loop serves every backend:

       umap_program_train_attach(p, &td);
       for (t = 1; t <= steps; t++) {
           umap_program_run(p);                  // forward and backward
           umap_program_train_step(p, t, 1.0f);  // Adam, rate * lr_scale
       }
       umap_program_train_store(p);              // weights -> bound buffers */
typedef struct umap_train_desc {
    int n_params;
    const char *const *params;   /* names of the program's params (or inputs) to train */
    const int *grad_outputs;     /* per param: the output index of its gradient (same numel) */
    umap_adam_desc adam;         /* adam.lr is the base rate; a step uses lr * lr_scale */
    float grad_clip;             /* max global gradient norm over all of them; 0 = off */
} umap_train_desc;
/* no params yet, adam = umap_adam_desc_default(), no clipping */
UMAPDEF umap_train_desc umap_train_desc_default(void);
UMAPDEF umap_result umap_program_train_attach(umap_program *p, const umap_train_desc *desc);
/* t: the 1-based Adam step (bias correction); lr_scale <= 0 skips the update */
UMAPDEF umap_result umap_program_train_step(umap_program *p, int64_t t, float lr_scale);
UMAPDEF umap_result umap_program_train_store(umap_program *p);
UMAPDEF umap_result umap_program_train_load(umap_program *p);

#ifndef UMAP_COMPILER_ONLY /* the rest is UMAP on the compiler */

/* >>umap: parametric UMAP --------------------------------------------------

   fit: check the data -> k-NN (umap_knn.h, or the caller's list) -> fuzzy
   simplicial set (rho, sigma per point; fuzzy union; with a target, its
   intersection with the target's, see umap_target) -> a, b from min_dist
   and spread -> ONE training graph (gather rows, MLP encoder, squared
   distances, UMAP cross-entropy in a stable form) differentiated by
   umap_grad and compiled once -> PCA warm start -> Adam over mini-batches
   of edges sampled by weight, each head repelled from negative_sample_rate
   other rows of its batch -> embed every row ->
   refine_epochs of classic UMAP on the embedding itself (synchronous
   updates, so thread counts cannot change it; each sampled edge's pull
   weighs refine_attraction against its negatives' push) -> the encoder
   distilled onto the refined embedding (each row's output pulled to its
   refined position by UMAP's attraction, which seeks the mode of similar
   rows' positions where squared error would take their mean), so
   transform of new rows lands where fit would have put them.

   Why the refinement: a small MLP lays out the global structure quickly
   but blurs the finest neighbourhoods (its own output scores below the
   peers' on Fashion-MNIST). A few hundred cheap non-parametric epochs
   from that start recover UMAP's quality; the encoder then carries it to
   new points as well as its capacity allows (docs/BENCHMARKS.md and
   docs/NOTES.md have the numbers).

   Why refine_attraction is 0.5 (auto, without a target): umap-learn's
   SGD samples every edge from both ends and moves both rows, so in this
   refinement's terms (a slot per end, one pull and negative_sample_rate
   pushes each) it weighs the pull 2. Started from the encoder's layout, with synchronous steps,
   that balance and 1 leave the neighbourhoods coarser after 200 epochs
   than a weaker pull does: on Fashion-MNIST the training rows and the
   new rows placed among them gain trustworthiness and accuracy at 0.35
   to 0.5 (docs/NOTES.md has the table), at the cost of less white space
   between clusters. The placement of new rows uses the
   same weight, so they land by the objective that laid out the rest. A
   supervised fit's labels act through the pull (edges across labels are
   weakened, so same-label rows gather by attraction): there auto keeps
   the weight 1, under which labels separate the rows as they did.

   The encoder's first layer can be a fixed projection onto the top
   input_dims principal axes of the z-scored data (default 64 when d > 64),
   computed once; training gathers rows of the projected data, which makes
   a step several times cheaper on wide data. transform applies the same
   z-score and projection.

   One EPOCH samples as many edges (with replacement, proportional to their
   fuzzy weight) as the symmetric graph has edges; a step takes batch_size of
   them, so a step costs the same whatever n is. n_epochs = 0 picks
   UMAP_AUTO_EPOCHS(n_edges): about 250,000 sampled edges in all, clamped to
   1..30 epochs (docs/NOTES.md has what that is at each size), and
   at most UMAP_AUTO_MAX_STEPS steps. refine_epochs and distill_epochs
   default to UMAP_AUTO too: 200 (400 with densmap) and 10 up to 250,000
   rows, fewer above, so
   that fit's time grows about as fast as n (see UMAP_AUTO_REFINE_EPOCHS;
   the model's config keeps the counts that ran). The macros can be
   defined before the implementation include.

   The k-NN search runs on the data as given (the metric is the caller's);
   the column z-scoring is the encoder's input normalisation, kept in the
   model and applied again by transform. Constant columns get std 1 (they
   add nothing) and are counted in umap_fit_info; data whose columns are ALL
   constant is rejected (UMAP_ERR_INVALID_ARGUMENT).

   transform has two ways to place new rows (umap_transform_with):
   - the encoder: one forward pass, microseconds a row, a small model;
     held-out neighbourhoods below the peers' (docs/BENCHMARKS.md has
     the numbers); a model that kept no rows transforms this way;
   - among the nearest training rows, as umap-learn and uwot transform:
     each row's k-NN among the training rows (a walk along their k-NN
     graph from where the encoder puts the row, prepared once at fit and
     at load; the exact search on request), memberships, a weighted
     start, then a few epochs of the
     refinement moving only the new rows. It needs config.keep_data = 1 at
     fit, and then the model holds n_train x n_features floats of training
     rows, n_train x n_components of embedding and n_train x
     (n_neighbors - 1) int32 of their k-NN graph (docs/transform.md
     gives the sizes), in memory and in its files, and in
     memory the graph made undirected (about 2 x that graph) and, for
     cosine and correlation, a unit copy of the rows. Such a
     model transforms this way by default: keeping the data was the
     request. keep_data = UMAP_KEEP_SKETCH keeps, in place of the rows,
     their sketch: the centred rows projected onto their own
     UMAP_SKETCH_DIMS (48) leading principal axes, not z-scored, so that
     distances there follow the rows' (n_train x 48 floats; the sizes
     are in docs/transform.md), and the new
     rows' neighbours are the nearest there by euclidean distance: a
     walk of 48-float rows that fit in cache instead of 784-float ones,
     so transform is faster too, and places rows about as well as the
     rows do (docs/transform.md has the numbers). Euclidean models only: the
     sketch's distances are euclidean.
   By default (keep_data = UMAP_AUTO) a euclidean model keeps the sketch
   of a sample of its rows: keep_sample = UMAP_KEEP_AUTO_SAMPLE rows drawn
   by the seed (all of them below that), with their own k-NN graph (the
   fit's search, among the sample). New rows then land among the training
   embedding the peers' way from a model of fixed size (about 5 MB with
   784 columns, whatever n), at the fit's cost of a search among the
   sample (a fraction of a second), and transform places them about as
   fast as the whole sketch does: a better default for a user who fits
   once and embeds many rows than the encoder alone (docs/transform.md's
   Transform section has both). keep_data = UMAP_KEEP_NONE keeps the
   smallest model, the encoder alone. Other metrics keep nothing by
   default (their rows, not a sketch, would have to be kept), nor do
   models of other than 2 components: their placement samples its pushes
   by each row's place in the call, so a row's place would depend on the
   rows beside it, where the 2-component placement's expected step makes
   it the row's own. */

#define UMAP_MAX_HIDDEN 8
/* What a model keeps of its training rows (umap_config.keep_data) for
   transform's neighbours mode. */
enum { UMAP_KEEP_NONE, UMAP_KEEP_ROWS, UMAP_KEEP_SKETCH };
/* The rows a default model keeps (keep_sample's UMAP_AUTO with keep_data's
   UMAP_AUTO). On Fashion-MNIST 16,384 of 60,000 rows placed new rows at
   the peers' quality; fewer lose accuracy first (docs/transform.md). */
#ifndef UMAP_KEEP_AUTO_SAMPLE
#define UMAP_KEEP_AUTO_SAMPLE 16384
#endif
/* The sketch's width (UMAP_KEEP_SKETCH): the leading principal axes of the
   rows it keeps (all of them for narrower data). A file records its own,
   so models of any width load anywhere. On Fashion-MNIST 48 placed new
   rows as well as 64, in less time and memory; 32 lost accuracy on a
   small split (docs/transform.md). */
#ifndef UMAP_SKETCH_DIMS
#define UMAP_SKETCH_DIMS 48
#endif
#if UMAP_SKETCH_DIMS < 1
#error "UMAP_SKETCH_DIMS must be at least 1"
#endif
/* In a config field that says so: let fit choose by the data's size (the
   auto schedule, see UMAP_AUTO_EPOCHS below). Used where 0 is a legal value. */
#define UMAP_AUTO (-1)

typedef enum umap_stop_reason {
    UMAP_STOP_NONE,          /* not trained (error before training) */
    UMAP_STOP_EPOCHS,        /* ran n_epochs */
    UMAP_STOP_PATIENCE,      /* no improvement > min_delta for `patience` epochs */
    UMAP_STOP_MIN_LOSS,      /* epoch loss <= min_desired_loss */
    UMAP_STOP_TIMEOUT,       /* timeout_s elapsed */
    UMAP_STOP_CANCELLED,     /* the progress callback returned non-zero */
    UMAP_STOP_NON_FINITE     /* the loss became NaN/Inf; best weights restored */
} umap_stop_reason;

/* What the progress callback sees. phase is "knn", "graph", "pca" (the PCA
   warm start) or "init" (a spectral or the caller's warm start), "train",
   "embed", "refine", "distill" or "decoder", reported as each phase starts and, for
   the long ones, as it goes, with epoch = the units done so far out of
   n_epochs: "knn" in tiles of the exact search or NN-Descent rounds (a
   converged NN-Descent stops short of n_epochs), "pca", "init" and "distill" in
   Adam steps (loss: the last step's mean squared error, or for "distill"
   its mean attraction -log q(d) to the refined positions; "decoder" as
   "pca"), "train" in epochs
   (after each; loss: the epoch's mean loss per sampled edge), "refine" in
   epochs, about 20 reports a phase. */
typedef struct umap_progress {
    const char *phase;
    int epoch, n_epochs;
    float loss, best_loss;
    double elapsed_s;          /* since fit started */
} umap_progress;
/* Return non-zero to cancel: fit stops at the next check, keeps the best
   weights and returns UMAP_ERR_CANCELLED with a usable model. */
typedef int (*umap_progress_fn)(const umap_progress *progress, void *user_data);

/* How fit starts the encoder (umap_config.init): every kind but RANDOM
   regresses the encoder's random weights onto a target layout of the
   training rows before training (Adam on mean squared error), so that
   training starts from a global layout instead of noise. */
typedef enum umap_init {
    UMAP_INIT_PCA,      /* the rows' top n_components principal coordinates, scaled so
                           the first has std 3 (about the spread UMAP settles at) */
    UMAP_INIT_RANDOM,   /* no warm start: the encoder's random weights */
    UMAP_INIT_SPECTRAL, /* umap-learn's spectral layout: the eigenvectors of the fuzzy
                           graph's normalised Laplacian I - D^-1/2 W D^-1/2 with the
                           n_components smallest eigenvalues after the trivial one, by
                           a sparse solver (LOBPCG, see umap_spectral_layout), scaled
                           as PCA's (first std 3) plus noise of std 1e-4 from the seed.
                           A disconnected graph is laid out per component as umap-learn
                           does: each component at its rows' mean principal coordinates,
                           its own spectral layout (its centred principal coordinates
                           when it has none) within half the distance to the nearest
                           other. Falls back to PCA, with a warning through the logger
                           and info->init_used, when two components coincide or the
                           solver does not converge within UMAP_SPECTRAL_MAX_ITER
                           iterations. Its cost: docs/fit.md */
    UMAP_INIT_COORDS,   /* config.init_coords (n x n_components, the caller's, used
                           as given: their scale is the start's scale) */
    UMAP_INIT_COUNT     /* how many there are (not an init) */
} umap_init;
/* "pca", "random", "spectral", "coords" ("?" for another value) */
UMAPDEF const char *umap_init_name(umap_init init);
/* the init a name above names; 0 if none */
UMAPDEF int umap_init_from_name(const char *name, umap_init *out);

/* Filled in by fit (optional; see umap_config.info). Times in seconds. */
typedef struct umap_fit_info {
    double knn_s, graph_s;
    double pca_s;                /* the input projection's PCA and the warm start (any init) */
    double train_s, embed_s, refine_s, distill_s, total_s;
    double decoder_s;            /* the decoder's training (config.decoder_epochs) */
    float decoder_loss;          /* its mean squared error per output (a standardized column,
                                    or a principal coordinate with input_dims) on the last
                                    step's rows; 0 without a decoder */
    double keep_s;               /* what the model keeps for transform (config.keep_data): the
                                    sketch, a sample's k-NN graph, the placement's index */
    umap_init init_used;         /* the warm start that ran: config.init, or PCA after a
                                    spectral init fell back */
    int spectral_iterations;     /* the spectral solver's iterations (0 when it did not run) */
    int64_t n_edges;             /* undirected edges of the fuzzy graph */
    int64_t n_dropped_edges;     /* k-NN entries at or beyond config.disconnection_distance */
    int64_t n_disconnected;      /* rows those left without any edge (umap_model_disconnected) */
    int64_t n_constant_columns;  /* columns with zero variance, or a std below FLT_MIN */
    int epochs_run, n_epochs;    /* epochs completed and planned */
    int64_t steps;               /* optimiser steps */
    float final_loss, best_loss; /* epoch means */
    float a, b;                  /* the curve parameters used */
    umap_stop_reason stop_reason;
    umap_knn_info knn;           /* what the k-NN search did */
    int refine_device;           /* the refinement ran on config.refiner's device (not the host) */
    char error_detail[256];      /* why fit failed ("" on success) */
} umap_fit_info;

/* Supervised and semi-supervised fit (umap_config.target): a target per
   training row that reshapes the fuzzy graph as umap-learn's fit(X, y)
   does, so that rows with the same label (or near target values) are drawn
   together. Give labels or values, not both; the caller keeps the arrays
   alive during fit (the model keeps no target: transform takes none).
   - labels (n ints; a categorical target): each edge's weight is multiplied
     by exp(-1) when either end is -1 (unlabelled: semi-supervised), by
     exp(-far_dist) when the labels differ, far_dist = 2.5 / (1 - target_weight)
     (umap-learn's; at target_weight 1 such edges are dropped).
   - values (n x values_dim floats; a continuous target, regression): the
     values' own fuzzy graph (k-NN in metric, memberships as fit's with
     local_connectivity 1, not symmetrised) is intersected with the data's
     by umap-learn's general_simplicial_set_intersection: an edge present in
     either gets left * right^(w / (1 - w)) for w = target_weight < 0.5, else
     left^((1 - w) / w) * right, a side missing the edge counting as (about)
     half its graph's smallest weight.
   Then, for both, each row's weights are divided by the row's largest and
   the graph is symmetrised again by the fuzzy union (umap-learn's
   reset_local_connectivity); edges left at weight 0 are dropped. */
typedef struct umap_target {
    const int32_t *labels;       /* n labels >= 0, -1 = unknown; or NULL */
    const float *values;         /* n x values_dim finite floats; or NULL */
    int values_dim;              /* >= 1 with values */
    umap_metric metric;          /* values: their k-NN metric (a built-in umap_metric); euclidean */
    float metric_p;              /* values, minkowski: its p (>= 1); 0 = 2 */
    int n_neighbors;             /* values: k of their k-NN (counting the point itself);
                                    0 = the config's n_neighbors */
} umap_target;

/* Start from umap_config_default() (or pass NULL for all defaults); every
   field below changes the result or the behaviour as documented. */
/* umap_fit's refinement (umap_config.refine_epochs) as a job for a
   backend: classic UMAP epochs on the embedding, each epoch reading the
   previous positions and writing new ones (see >>refine).
   Every per-epoch value is precomputed, so a device needs no formula of
   the core's but the row update itself. */
typedef struct umap_refine_job {
    int64_t n;                  /* rows of y */
    int n_components;           /* its columns */
    const int64_t *offset;      /* CSR over both directions of every edge: row i's slots are
                                   offset[i] .. offset[i + 1] */
    const int32_t *nbr;         /* per slot: the edge's other row */
    const uint32_t *active;     /* per slot: 2^24 w / w_max, the chance an epoch uses it */
    int negative_sample_rate;
    float a, b, gamma;          /* the curve's a, b; repulsion_strength */
    float attraction;           /* the weight of an edge's pull against its negatives' push
                                   (umap_config.refine_attraction) */
    int n_epochs;
    const uint64_t *keys;       /* per epoch: the hash key of its draws */
    const float *rates;         /* per epoch: its step */
    float *y;                   /* in: the start; out: the refined rows */
    /* densMAP (umap_config.densmap), off when dens_r is NULL: epochs from
       dens_from on add the density term (see >>refine). A device that does
       not run it declines the job. */
    const float *dens_r;        /* per row: its standardized log radius in the data; a row
                                   without slots is ignored */
    float dens_lambda, dens_var_shift;
    int dens_from;              /* the first epoch with the term */
    umap_pool *pool;            /* the host's threads (umap_refine_host) */
    const umap_allocator *allocator; /* for scratch memory (NULL: malloc) */
    /* asked before every report_every-th epoch (from 0); nonzero stops
       there with UMAP_ERR_CANCELLED, y holding the epochs run so far */
    int report_every;           /* < 1: before epoch 0 only */
    int (*report)(void *ctx, int epoch, int n_epochs);
    void *report_ctx;
} umap_refine_job;

/* The CPU refinement's kernels, for tests: the job's epochs on the host
   (job->pool) under kernel `variant` of [0, umap_refine_variant_count()),
   named in name: 0 the scalar loop, then the SIMD rows ("sse2", "avx2")
   where the build has them. All give the same bits; fit and transform run
   the fastest (umap_refine_host). 1 when it ran, 0 when this build or CPU lacks the kernel or
   the run failed (out of memory, cancelled). */
UMAPDEF int umap_refine_variant_count(void);
UMAPDEF int umap_refine_variant(int variant, const umap_refine_job *job, char *name, size_t name_size);

/* The job on the host: job->pool's threads, the fastest kernel. */
UMAPDEF umap_result umap_refine_host(const umap_refine_job *job);

/* A device that runs the refinement (umap_config.refiner; Vulkan's is
   umap_vk_refiner). The compiler's backends know ops only; this is UMAP's
   own door to a device. refine returns UMAP_OK, UMAP_ERR_CANCELLED (the
   job's report asked), another error that ends the fit, or
   UMAP_ERR_TOO_LARGE / UMAP_ERR_UNSUPPORTED_OP to decline: the host then
   runs the job. */
typedef struct umap_refiner umap_refiner;
struct umap_refiner {
    const char *name; /* for messages: "vulkan" */
    umap_result (*refine)(const umap_refiner *self, const umap_refine_job *job);
    void *user_data;
};

typedef struct umap_config {
    int n_components;            /* embedding dimension; 2 */
    int n_neighbors;             /* k of the k-NN graph, counting the point itself as
                                    umap-learn does; 15 */
    umap_metric metric;          /* k-NN metric (umap_knn.h's UMAP_METRIC_LIST: euclidean, cosine,
                                    manhattan, chebyshev, minkowski, correlation, hamming,
                                    jaccard, hellinger, canberra, braycurtis, dice,
                                    russellrao, precomputed, haversine); euclidean. Saved by
                                    name in the model. precomputed: the data are the n x n
                                    distance matrix, transform's rows the distances to the n
                                    training rows; the encoder reads input_dims landmark columns
                                    (docs/fit.md); or, as sparse rows (umap_fit_rows), a graph
                                    of each row's nearest distances. haversine: 2 columns, latitude and longitude
                                    in radians, for fit and transform alike. seuclidean: see
                                    metric_v. custom: see metric_fn */
    float metric_p;              /* minkowski's p: finite, >= 1; 2 */
    const float *metric_v;       /* seuclidean's V: d variances, finite, >= 0 (0 leaves the
                                    column out), the caller's, read during fit and kept in
                                    the model; NULL = the data's column variances (n - 1) */
    umap_metric_fn metric_fn;    /* custom's function (umap_knn.h's umap_metric_fn), set with
                                    metric = UMAP_METRIC_CUSTOM; dense rows only. The model
                                    keeps the pointer and saves the metric's name: a loaded
                                    model gets the function from umap_model_set_metric_fn
                                    before anything measures rows (transform among kept rows,
                                    update; the encoder alone needs none) */
    void *metric_user_data;      /* handed to metric_fn; the caller's, must outlive the model */
    umap_knn_method knn_method;  /* auto (exact up to 8192 rows, else NN-Descent) */
    /* fuzzy simplicial set */
    float local_connectivity;    /* neighbours assumed fully connected; 1 */
    float bandwidth;             /* sigma makes the memberships sum to log2(n_neighbors) * bandwidth; 1 */
    float set_op_mix_ratio;      /* 1 = fuzzy union, 0 = fuzzy intersection; 1 */
    float disconnection_distance; /* k-NN edges at least this long are dropped before the
                                    graph (umap-learn's disconnection_distance); rows left
                                    with no edge are counted in umap_fit_info and listed by
                                    umap_model_disconnected. UMAP_AUTO: umap-learn's default,
                                    the metric's largest distance where umap-learn has one
                                    (UMAP_METRIC_LIST's apart column), else none; 0 = none */
    int unique;                  /* 1: identical rows are one row (umap-learn's unique): fit
                                    runs on the distinct rows (each row's first copy, its
                                    target and init_coords) and every copy gets that row's
                                    place; the model keeps n_train rows of embedding and, for
                                    transform, the distinct rows (a sample of the rows, as
                                    keep_sample's). umap_fit only (not umap_fit_knn); 0 */
    /* supervised fit (see umap_target) */
    const umap_target *target;   /* NULL = unsupervised; not kept in the model */
    float target_weight;         /* in [0, 1]: how much the target outweighs the data
                                    (umap-learn's): labels: far_dist = 2.5 / (1 - w), so 0
                                    still separates labels mildly (exp(-2.5) per edge) and 1
                                    cuts every edge between labels; values: 0 keeps about the
                                    data's weights, 1 the target's; 0.5 */
    /* low-dimensional curve 1 / (1 + a d^2b) */
    float min_dist;              /* 0.1 */
    float spread;                /* 1 */
    float a, b;                  /* both > 0: used as given (a in [1e-30, 1e30], b in [0.01, 8]);
                                    else fitted from min_dist, spread */
    /* loss */
    float repulsion_strength;    /* weight of the negative-sample term; 1 */
    int negative_sample_rate;    /* negatives per sampled edge; 5 */
    /* encoder */
    int n_hidden;                /* hidden layers (ReLU); 4, at most UMAP_MAX_HIDDEN */
    int hidden[UMAP_MAX_HIDDEN]; /* their widths; 64 each: four narrow layers cost what two
                                    of 100 do and place new rows better (docs/NOTES.md's
                                    encoder tables) */
    int standardize;             /* z-score columns before the encoder: 1 or 0; UMAP_AUTO: 1 for
                                    dense rows, 0 for sparse ones (TF-IDF's rare words would
                                    dominate once z-scored: their principal axes are then
                                    uncentred, as LSA's) */
    int input_dims;              /* the encoder's first, fixed layer projects the z-scored
                                    rows onto their top input_dims principal axes (kept in
                                    the model), which makes a step several times cheaper on wide
                                    data; 0 = feed every column; 64 (off when d <= 64) */
    umap_init init;              /* the encoder's warm start (see umap_init); pca */
    const float *init_coords;    /* UMAP_INIT_COORDS only (else must be NULL): n x n_components
                                    finite floats, the caller's, read during fit; not saved */
    /* refinement: the encoder lays out the data; then refine_epochs of
       classic UMAP on the embedding itself sharpen the local structure, and
       the encoder is distilled onto the result (distill_epochs passes of
       regression by UMAP's attraction) so that transform agrees with the
       embedding. config.refiner (umap_vk_refiner's) runs the refinement on
       its device. */
    int refine_epochs;           /* 0 = off (embedding = the encoder's output); UMAP_AUTO:
                                    200 up to 250,000 rows, fewer above (UMAP_AUTO_REFINE_EPOCHS);
                                    twice that with densmap */
    float refine_rate;           /* initial step of the refinement, decays to 0; 0.25 */
    float refine_attraction;     /* the weight of a sampled edge's pull on each of its rows
                                    against its negative samples' push, in the refinement
                                    and in transform's placement (umap-learn's SGD, which
                                    samples each edge from both ends and moves both rows,
                                    weighs it 2). UMAP_AUTO: 0.5 (finer neighbourhoods,
                                    less white space between clusters; see >>umap), 1 with
                                    a target (its labels act through the pull), 2 with
                                    densmap (umap-learn's balance for its density term) */
    int distill_epochs;          /* 0 = the encoder is left as trained; UMAP_AUTO: 10, fewer
                                    when 10 passes would take over UMAP_AUTO_MAX_STEPS steps */
    /* densMAP (umap-learn's densmap): the refinement's last dens_frac of epochs
       also raise the correlation between each row's local radius in the data
       and in the embedding, so dense regions stay dense and sparse ones
       spread; the distilled encoder carries that to transform (see >>refine) */
    int densmap;                 /* 1 = on; 0 */
    float dens_lambda;           /* the density term's weight against UMAP's; 2 */
    float dens_frac;             /* the share of the refinement's epochs, the last ones, that
                                    add it; 0.3 */
    float dens_var_shift;        /* added to the embedding radii's variance, which the term
                                    divides by; 0.1 */
    int output_dens;             /* 1: the model holds each training row's log local radius
                                    in the data and in the embedding (umap_model_local_radii,
                                    umap-learn's rad_orig_ and rad_emb_); 0 */
    int decoder_epochs;          /* > 0: after the embedding, a decoder (the encoder's mirror:
                                    n_components -> hidden widths reversed -> the encoder's
                                    input) is trained for this many passes over the training
                                    rows (and at least UMAP_DECODER_MIN_STEPS steps of
                                    batch_size rows: small data need more passes), by mean
                                    squared error from each row's final place to its
                                    standardized (and projected) columns, and is kept with
                                    the model for umap_inverse_transform. 0 = none. The
                                    embedding is the same with and without it */
    /* transform of new rows (see umap_transform_with) */
    int keep_data;               /* UMAP_KEEP_ROWS (1): the model keeps a copy of the training
                                    rows as given (n_train x n_features floats) and their final
                                    embedding (n_train x n_components), in memory and in its
                                    files, and transform places new rows among their nearest
                                    training rows as umap-learn and uwot do: better
                                    neighbourhoods than the encoder, for the memory (and the
                                    training rows' k-NN graph, n_train x (n_neighbors - 1)
                                    int32, which the search for each new row's neighbours
                                    walks). UMAP_KEEP_SKETCH (2): the same with the rows'
                                    sketch (centred, projected onto their UMAP_SKETCH_DIMS
                                    leading principal axes: n_train x 48 floats, 16x fewer for
                                    784 columns), their neighbours by euclidean distance
                                    there; euclidean models only. UMAP_KEEP_NONE (0): the
                                    encoder alone. UMAP_AUTO (the default): UMAP_KEEP_SKETCH
                                    of a sample (keep_sample) for the euclidean metric and 2
                                    components, UMAP_KEEP_ROWS for precomputed (neither
                                    with densmap: the encoder keeps the density), else
                                    UMAP_KEEP_NONE. Metric precomputed: UMAP_KEEP_ROWS keeps
                                    every training row's place alone, since a new row's
                                    distances to the training rows are its search */
    int keep_sample;             /* how many rows keep_data keeps: 0 = all (and the fit's k-NN
                                    graph); else at most this many, >= n_neighbors, drawn
                                    uniformly by the seed, with their own k-NN graph (found
                                    in the kept space). UMAP_AUTO (the default):
                                    UMAP_KEEP_AUTO_SAMPLE with keep_data's UMAP_AUTO, all
                                    with a keep_data of the caller's */
    /* optimisation */
    int batch_size;              /* sampled edges per step; 256: small steps are cheap, and
                                    the encoder learns from their number more than from
                                    their size (docs/NOTES.md has the numbers). On the CPU a
                                    step runs as shards of 128 edges, one per thread
                                    (umap__trainer) */
    int n_epochs;                /* 0 = auto (UMAP_AUTO_EPOCHS). Not umap-learn's n_epochs:
                                    one epoch samples as many edges as the fuzzy graph
                                    has, so 200 makes a fit many times longer than auto
                                    on large data; umap-learn's count is refine_epochs */
    float learning_rate;         /* Adam, decaying linearly to 0 over the planned steps; 6e-3 */
    float beta1, beta2;          /* 0.9, 0.999 */
    float adam_eps;              /* 1e-7 */
    float weight_decay;          /* decoupled (AdamW); 0 */
    float grad_clip;             /* max global gradient norm; 0 = off */
    /* stop rules (each 0 = off) */
    int patience;                /* epochs without an improvement > min_delta */
    float min_delta;             /* 1e-4 (relative to the best loss) */
    float min_desired_loss;      /* stop when an epoch's loss <= this */
    double timeout_s;            /* wall-clock budget for training */
    /* run time */
    uint64_t seed;               /* the seed alone decides the result; 0 is a seed */
    int n_threads;               /* 0 = all cores; never changes the result */
    umap_pool *pool;             /* optional caller-owned pool (n_threads ignored) */
    const umap_backend *backend; /* NULL = CPU */
    const umap_refiner *refiner; /* NULL = the refinement on the host; umap_vk_refiner(vk): on the GPU */
    umap_progress_fn progress;   /* optional; called per phase and per epoch */
    void *progress_user_data;
    umap_allocator allocator;
    umap_logger logger;
    umap_fit_info *info;         /* optional, filled by fit */
    struct umap_edge_list *graph; /* optional: receives the fuzzy graph fit trained on (umap-learn's
                                    graph_), as umap_fuzzy_graph gives one, whenever fit returns a
                                    model; over the distinct rows with unique. The caller frees it
                                    with umap_edge_list_free; zeroed when fit returns none */
} umap_config;

typedef struct umap_model umap_model;

UMAPDEF umap_config umap_config_default(void);

/* The limits of the config's fields: one table that fit's check and the
   model-file loader both read, so that every value fit accepts is one a
   model file may hold (and survives save -> load -> save bit for bit), and
   every value a file may hold is one fit accepts. A row per scalar field a
   model file keeps in umap.config; a value is compared in the field's own
   type (a float against the float nearest each bound), so 0.01 given as a
   float passes a bound written 0.01. Floats and doubles must be finite. */
typedef enum umap_field_type {
    UMAP_FIELD_INT, UMAP_FIELD_FLOAT, UMAP_FIELD_DOUBLE,
    UMAP_FIELD_METRIC,     /* umap_metric, kept by name */
    UMAP_FIELD_KNN_METHOD, /* umap_knn_method */
    UMAP_FIELD_INIT        /* umap_init, kept by name */
} umap_field_type;
enum {
    UMAP_FIELD_AUTO = 1,    /* UMAP_AUTO is also accepted */
    UMAP_FIELD_ZERO = 2,    /* 0 is also accepted (off, or fitted) */
    UMAP_FIELD_LO_OPEN = 4, /* lo itself is not */
    UMAP_FIELD_HI_OPEN = 8, /* hi itself is not */
    UMAP_FIELD_SHAPE = 16   /* a model file's shapes decide it, not umap.config */
};
typedef struct umap_config_field {
    const char *name;       /* the field's name, as umap.config, Python and messages spell it */
    umap_field_type type;
    size_t offset;          /* offsetof(umap_config, name) */
    double lo, hi;          /* the range (enums: their codes) */
    int flags;              /* UMAP_FIELD_* */
    const char *rule;       /* what else holds it ("at most n_neighbors - 1"), or "" */
    const char *doc;        /* what it is, in a line (the bindings' help) */
    double default_value;   /* umap_config_default()'s value (UMAP_AUTO where it is auto) */
} umap_config_field;
/* The rows, *count of them. */
UMAPDEF const umap_config_field *umap_config_fields(int *count);
/* 1 when the row accepts value: a float row rounds it to a float first (a
   value beyond float's range is refused), an int or enum row needs a whole
   number. The cross-field rules are umap_config_check's. */
UMAPDEF int umap_config_field_accepts(const umap_config_field *field, double value);
/* "in [2, 2147483647]", "in (0, 1000), or UMAP_AUTO": the range of a row as
   the messages say it. */
UMAPDEF void umap_config_field_range(const umap_config_field *field, char *buf, size_t size);
/* Every rule fit holds a config to before any work: each field against its
   row, and the fields against each other (local_connectivity <= n_neighbors
   - 1, min_dist <= spread, a with b, ...). n, d: the data's rows and columns
   (n_neighbors <= n, ...); 0 when not known yet (a program checking its
   options before it reads the data). NULL config: the defaults. detail (may
   be NULL) names the field: "n_neighbors = 1: must be an integer in [2,
   2147483647]". UMAP_ERR_INVALID_ARGUMENT or UMAP_ERR_TOO_LARGE on a
   refusal. The caller's arrays (init_coords, target) are fit's to check. */
UMAPDEF umap_result umap_config_check(const umap_config *config, int64_t n, int64_t d, char *detail,
                                      size_t detail_size);

/* Fits on n rows of d floats (row-major, not copied, not modified). On
   UMAP_OK, UMAP_ERR_CANCELLED and a diverged loss (UMAP_ERR_NON_FINITE with
   info->stop_reason UMAP_STOP_NON_FINITE) *out is a usable model (best
   weights) the caller frees; on other errors *out is NULL. */
UMAPDEF umap_result umap_fit(const umap_config *config, const float *data, int64_t n, int64_t d,
                             umap_model **out);
/* The same with the caller's k-NN: indices/distances are n*k, row i lists
   its k nearest other points (not i itself), nearest first; k >= 1 and
   k = n_neighbors - 1 is what fit would use. */
UMAPDEF umap_result umap_fit_knn(const umap_config *config, const float *data, int64_t n, int64_t d,
                                 const int32_t *indices, const float *distances, int k, umap_model **out);
/* umap_fit on rows in either form (umap_knn.h's umap_rows: dense, or CSR
   from umap_rows_csr). Sparse rows are never densified where the model
   projects its input (input_dims < d, the default for d > 64): their
   column statistics, principal axes (a randomized truncated SVD of the
   same sample of rows) and projection come from the stored values, the
   k-NN is umap_knn_rows', and the encoder trains on the projection, as for
   dense rows. The model is a model like any other: it places dense or
   sparse rows. Without a projection the encoder reads every column, so
   the rows are densified (up to 2^28 floats, else UMAP_ERR_TOO_LARGE).
   A sparse fit keeps no training rows (keep_data AUTO resolves to NONE,
   ROWS and SKETCH are refused): transform places by the encoder. With
   metric precomputed the CSR is a graph of distances (each row's nearest
   stored): the encoder reads each row's memberships, projected whatever
   the width, and the model keeps the training places as any precomputed
   one does (docs/fit.md, "A sparse graph of distances"). */
UMAPDEF umap_result umap_fit_rows(const umap_config *config, const umap_rows *data, umap_model **out);
/* Continued training (umap-learn's update, ParametricUMAP's continued fit
   with its earlier rows as landmarks): the model grows by new rows without
   a refit. The fit's stages run over the old rows and the new ones with
   the model's settings, from the model: the k-NN and the fuzzy graph of
   all rows; the old rows keep their places (the model's embedding, or a
   loaded model's encoder placement of them when its file kept none); the
   new rows start where transform puts them and move by refine_epochs of
   the refinement over the whole graph, attracted to their neighbours old
   and new, pushed by every row, while the old rows stay; then the
   encoder, from its weights, is distilled onto the whole layout (so it
   places the old rows near where it did: docs/BENCHMARKS.md measures how
   near),
   the decoder (if any) continues on all rows, and what the model keeps
   for transform is made again over all of them. The input normalisation
   (means, deviations, principal axes, seuclidean's V) stays the model's:
   the encoder reads through it. A model fitted without refinement
   (refine_epochs 0) continues the encoder's training on the whole graph
   instead, and every row's place is the encoder's.
   Not carried over: a supervised fit's target (the graph of all rows is
   unsupervised), unique (copies are rows like others) and precomputed
   distances (refused: an n x n matrix does not grow by rows).
   The same bits for any thread count; a second update from the same model
   gives the same bits. On any error, cancellation included, the model is
   as it was. */
typedef struct umap_update_desc {
    const umap_rows *old_rows;  /* the n_train rows the model was fitted on, in their order;
                                   NULL: the model's own (one that keeps every training row:
                                   keep_data = UMAP_KEEP_ROWS without keep_sample) */
    int refine_epochs;          /* the new rows' epochs; 0 = the model's refine_epochs */
    int distill_epochs;         /* the encoder's passes over all rows; 0 = the model's */
    int n_threads;              /* 0 = all cores; never changes the result */
    umap_progress_fn progress;  /* optional, as umap_config's (cancelling fails the update) */
    void *progress_user_data;
    umap_logger logger;         /* optional: warnings */
    umap_fit_info *info;        /* optional: phase times, why it failed */
    struct umap_edge_list *graph; /* optional: the fuzzy graph of all rows, as umap_config.graph */
} umap_update_desc;
UMAPDEF umap_result umap_update(umap_model *model, const umap_update_desc *desc, const umap_rows *new_rows);
/* The spectral layout fit's UMAP_INIT_SPECTRAL starts from, of a caller's
   weighted undirected graph on n nodes (n_edges edges head[e] -- tail[e],
   each listed once, weight[e] > 0 and finite, no self loops): the
   n_components eigenvectors of the normalised Laplacian
   L = I - D^-1/2 W D^-1/2 with the smallest eigenvalues after the trivial
   one (D^1/2 1, eigenvalue 0), smallest first, into out (n x n_components,
   unit-norm columns, each column's largest entry positive), and their
   eigenvalues into eigenvalues (optional, n_components doubles). Sparse
   (LOBPCG with a block of n_components + 4): memory about
   (9 (n_components + 4) + 4) n doubles plus the graph's 24 bytes an edge,
   no n x n matrix. A graph without such a layout (disconnected, too few
   nodes, no convergence within max_iter) gives UMAP_OK with desc->found 0
   and out untouched; detail says why. Bad arguments give an error. */
typedef struct umap_spectral_desc {
    int n_threads;            /* 0 = all cores; never changes the result */
    uint64_t seed;            /* the solver's random start */
    double tol;               /* largest residual |L x - lambda x| of a unit eigenvector;
                                 0 = UMAP_SPECTRAL_TOL (1e-4) */
    int max_iter;             /* 0 = UMAP_SPECTRAL_MAX_ITER (1000) */
    umap_allocator allocator;
    int iterations;           /* out: iterations run */
    int found;                /* out: 1 when out holds the layout */
    char detail[256];         /* out: why not, when found is 0 */
} umap_spectral_desc;
UMAPDEF umap_result umap_spectral_layout(umap_spectral_desc *desc, int64_t n, const int32_t *head,
                                         const int32_t *tail, const float *weight, int64_t n_edges,
                                         int n_components, float *out, double *eigenvalues);
/* The fuzzy graph fit trains on, from the caller's k-NN (as umap_fit_knn
   takes it; the config's local_connectivity, bandwidth, set_op_mix_ratio,
   target and target_weight apply): each undirected edge once, in an order
   that depends on the inputs alone. umap-learn's graph_, for inspecting a
   graph and for tests. The arrays come from the config's allocator and
   umap_edge_list_free frees them; config->info (optional) gets
   error_detail and n_edges. */
typedef struct umap_edge_list {
    int64_t n_edges;
    int32_t *head, *tail;        /* the two ends, 0 <= head, tail < n, head != tail */
    float *weight;               /* in (0, 1] */
    umap_allocator allocator;    /* the one that allocated them */
    int64_t n_nodes;             /* the rows the graph is over (0 <= head, tail < n_nodes) */
} umap_edge_list;
UMAPDEF umap_result umap_fuzzy_graph(const umap_config *config, const int32_t *indices, const float *distances,
                                     int64_t n, int k, umap_edge_list *out);
UMAPDEF void umap_edge_list_free(umap_edge_list *edges);
/* How transform places new rows. */
typedef enum umap_transform_mode {
    UMAP_TRANSFORM_AUTO,      /* NEIGHBORS when the model kept its training data, else ENCODER */
    UMAP_TRANSFORM_ENCODER,   /* one forward pass of the encoder: fast, needs no training data */
    UMAP_TRANSFORM_NEIGHBORS  /* among the nearest training rows, as umap-learn and uwot do;
                                 needs a model fitted with config.keep_data (rows or sketch) */
} umap_transform_mode;

/* Zero-initialised = defaults (as NULL is). */
typedef struct umap_transform_desc {
    umap_transform_mode mode;  /* auto */
    int epochs;                /* NEIGHBORS: epochs after the start; 0 = auto; else 1..100000. A
                                  2-component model: the steps of one descent (auto 30; more
                                  only make it finer); else sampled epochs (auto umap-learn's:
                                  100 for up to 10,000 rows per call, else 30) */
    int exact_neighbors;       /* NEIGHBORS: 1 = find them by the exact search even when the model
                                  keeps its training k-NN graph (see below); 0 */
    int n_threads;             /* 0 = all cores (under 256 rows: the calling thread); never
                                  changes the result */
    char *detail;              /* optional: why a call failed, naming the row at fault */
    size_t detail_size;
    int32_t *graph_indices;    /* optional, NEIGHBORS (AUTO resolving to it): each row's
                                  umap_model_transform_k nearest kept training rows, nearest first
                                  (n x k; the training rows' own indices where umap_model_n_kept
                                  is n_train), the placement's graph (umap-learn's transform
                                  graph); the ENCODER mode refuses them */
    float *graph_weights;      /* optional, beside graph_indices: their memberships (n x k) */
} umap_transform_desc;

/* Embeds n new rows of d floats (d must be the model's) into out
   (n * n_components). Thread-safe on one model.
   ENCODER: one forward pass of the trained encoder; a row's output does not
   depend on the other rows.
   NEIGHBORS: each row's n_neighbors nearest training rows in the model's
   metric (UMAP_KEEP_SKETCH: by euclidean distance between the row's and
   the training rows' sketches; k capped at n_train), found by a walk
   along the training rows' k-NN graph, which the model keeps beside
   them, starting at the
   UMAP__PLACE_SEEDS training rows whose embeddings lie nearest the
   encoder's placement of the row (a umap_knn_graph_index, which fit and
   load build once: the graph made undirected, each row's list pruned as
   HNSW prunes (a neighbour nearer to a kept one than to the row is
   dropped, at least 10 kept), the rows checked, and rows of up to 64
   floats (a sketch's) copied in the order of their embedding, where the
   walks run; so a call of a few rows costs their walks alone). The walk
   may miss a neighbour for one nearly as near; by the exact search with
   exact_neighbors set, or for a model file from before the graph was
   kept. Then fuzzy memberships to them by
   fit's sigma/rho search with local_connectivity - 1 (umap-learn's
   transform), a start at the membership-weighted mean of their embeddings,
   then `epochs` of UMAP's loss moving only the new rows: attraction to
   their neighbours' fixed embeddings, repulsion from the training points.
   A 2-component model descends by the epochs' expected step (every edge
   pulls by its chance of being drawn; the pushes come from a field of the
   training embedding, which fit and load tabulate once on a grid), one
   descent as long as 100 sampled epochs' steps in `epochs` steps; other
   widths run fit's refinement with its draws (pushes from uniformly drawn
   training points).
   Costs a forward pass of the encoder, the walk (one to a few hundred
   distances per row, each d multiply-adds; the
   exact search: n_train of them) plus the epochs (n_neighbors pulls per
   row and epoch), and about n x n_neighbors x 16 bytes. The walks run in
   the order of where the encoder puts the rows, so that walks in turn read
   the same kept rows from cache. A row's place depends on the row (and,
   for other than 2 components, its index in the call: the draws), and on
   the call through auto epochs (its row count) and through the floor of
   sigma (a thousandth of the call's mean neighbour distance, as fit floors
   it) for a row whose neighbours all lie much nearer than that.
   The same call gives the same bits for any thread count.
   Errors name the row at fault where there is one: an input row holding NaN
   or Inf, or an output row that is not finite (UMAP_ERR_NON_FINITE either
   way; rows count from 0). NEIGHBORS on a model without kept data is
   UMAP_ERR_INVALID_ARGUMENT. */
UMAPDEF umap_result umap_transform_with(const umap_model *model, const umap_transform_desc *desc, const float *data,
                                        int64_t n, int64_t d, float *out);
/* umap_transform_with on rows in either form. Sparse rows go through the
   encoder (AUTO is ENCODER for them; NEIGHBORS, which searches kept dense
   rows, is refused), their projection made from the stored values. */
UMAPDEF umap_result umap_transform_rows(const umap_model *model, const umap_transform_desc *desc,
                                        const umap_rows *data, float *out);
/* umap_transform_with in AUTO mode with auto epochs: the encoder, or the
   nearest training rows for a model fitted with config.keep_data. */
UMAPDEF umap_result umap_transform(const umap_model *model, const float *data, int64_t n, int64_t d,
                                   float *out, int n_threads);
/* The same, and detail (may be NULL) receives why it failed. */
UMAPDEF umap_result umap_transform_ex(const umap_model *model, const float *data, int64_t n, int64_t d,
                                      float *out, int n_threads, char *detail, size_t detail_size);
/* Embedding rows back to data space: n rows of d = n_components floats
   through the model's decoder (config.decoder_epochs), out n x n_features,
   in the data's own units (the decoder's standardized columns scaled
   back; with an input projection, mapped back from the principal axes, so
   what lies off those axes comes back as the column means). Costs a
   forward pass of the decoder per row; the same bits for any thread
   count. A model without a decoder is UMAP_ERR_INVALID_ARGUMENT saying so;
   a row holding NaN or Inf, or one whose output is not finite, is
   UMAP_ERR_NON_FINITE naming it. detail (may be NULL) receives why. */
UMAPDEF umap_result umap_inverse_transform(const umap_model *model, const float *embedding, int64_t n, int64_t d,
                                           float *out, int n_threads, char *detail, size_t detail_size);
/* 1 when the model holds a decoder (umap_inverse_transform can run), else 0 */
UMAPDEF int umap_model_has_decoder(const umap_model *model);
/* The training rows' embedding (n_train * n_components): always for a
   fitted model; for a loaded one only when it was fitted with
   config.keep_data (files keep the embedding only then), else NULL. */
UMAPDEF const float *umap_model_embedding(const umap_model *model);
/* The training rows config.disconnection_distance left without any edge
   of the graph, ascending (*count of them; NULL when none). The fit
   places them by the encoder alone: umap-learn gives them NaN. Not kept in
   model files: a loaded model has none. */
UMAPDEF const int64_t *umap_model_disconnected(const umap_model *model, int64_t *count);
/* config.output_dens: each training row's log local radius in the data
   (rad_orig: the weighted mean squared k-NN distance over the row's edges
   in the fuzzy graph fit trained on) and in the embedding (rad_emb: the
   same, unsquared, over the fuzzy graph of the embedding's own euclidean
   k-NN), umap-learn's rad_orig_ and rad_emb_ to the definition. Their
   correlation says how much of the data's local density the embedding
   keeps. Returns n_train with both set, else 0 and NULLs (not asked for,
   a cancelled or diverged fit, a loaded model: files do not keep them). A
   row without edges is NaN. */
UMAPDEF int64_t umap_model_local_radii(const umap_model *model, const float **rad_orig, const float **rad_emb);
UMAPDEF int64_t umap_model_n_train(const umap_model *model);
/* The training rows the model keeps for transform (n_train, a sample of
   them, or 0), and how many of them the neighbours mode links each new row
   to (its graph's k: umap_transform_desc.graph_indices; 0 without kept
   rows). */
UMAPDEF int64_t umap_model_n_kept(const umap_model *model);
UMAPDEF int umap_model_transform_k(const umap_model *model);
UMAPDEF int64_t umap_model_n_features(const umap_model *model);
UMAPDEF int umap_model_n_components(const umap_model *model);
/* the model's settings; its pointers are NULL but custom's metric_fn and
   metric_user_data */
UMAPDEF const umap_config *umap_model_config(const umap_model *model);
/* A custom metric's function for a model whose metric is custom (a file
   keeps its name, not the function, so a loaded model has none): transform
   among the kept rows and update measure rows with it. The same function
   the model was fitted with, or the neighbours mean something else. Any
   other metric: UMAP_ERR_INVALID_ARGUMENT. Not while the model is in use. */
UMAPDEF umap_result umap_model_set_metric_fn(umap_model *model, umap_metric_fn fn, void *user_data);
/* Saves by extension: .safetensors or .gguf (else UMAP_ERR_INVALID_ARGUMENT),
   through a umap_output (see >>output): a failed save leaves an existing
   file at path as it was. */
UMAPDEF umap_result umap_save(const umap_model *model, const char *path);
/* The same, and detail (may be NULL) receives why a save failed, with the
   OS's reason ("PATH: cannot create a temporary file beside it: No such
   file or directory"). */
UMAPDEF umap_result umap_save_ex(const umap_model *model, const char *path, char *detail, size_t detail_size);
/* 1 when path's extension picks a format umap_save writes (.safetensors or
   .gguf, any case), else 0: the same rule, for a program that checks its
   output names before any work. */
UMAPDEF int umap_save_supports(const char *path);
/* Writes the model to an open stream in the format name's extension picks
   (.safetensors or .gguf); for a caller that stages several files and
   commits them together (umap_output). Errors on f are left to the caller
   (umap_output_finish reports them). */
UMAPDEF umap_result umap_save_file(const umap_model *model, FILE *f, const char *name);
/* Loads either format (sniffed from the magic bytes, not the name). detail
   (may be NULL) receives why a file was rejected. */
UMAPDEF umap_result umap_load(const char *path, umap_model **out, char *detail, size_t detail_size);
UMAPDEF umap_result umap_load_memory(const void *bytes, size_t size, const umap_allocator *allocator,
                                     umap_model **out, char *detail, size_t detail_size);
UMAPDEF void umap_model_free(umap_model *model);

/* >>quality: how well an embedding keeps the data's neighbourhoods -------- */

typedef struct umap_quality_desc {
    int k;                  /* neighbourhood size for trustworthiness and recall; 15 */
    int classifier_k;       /* k of the leave-one-out k-NN classifier; 10 */
    umap_metric metric;     /* of the high-dimensional data; euclidean */
    float metric_p;         /* minkowski's p; 0 = 2 */
    const float *metric_v;  /* seuclidean's V (d variances); NULL = the data's column variances */
    umap_metric_fn metric_fn; /* custom's function (umap_knn.h); NULL for the others */
    void *metric_user_data;   /* handed to metric_fn */
    int64_t n_queries;      /* rows evaluated (an evenly spaced subset); 0 = all */
    int n_threads;          /* 0 = all cores */
} umap_quality_desc;

typedef struct umap_quality {
    double trustworthiness; /* Venna & Kaski, in [0,1] (1 = no intruders) */
    double knn_recall;      /* fraction of each row's k high-dim neighbours among its k low-dim ones */
    double knn_accuracy;    /* k-NN classifier accuracy in the embedding; -1 without labels */
} umap_quality;

/* data: n x d, embedding: n x dim, labels: n ints or NULL. Costs one exact
   k-NN per side plus one pass over all n rows per query row (trustworthiness
   ranks); use n_queries to bound it on large n. */
UMAPDEF umap_result umap_quality_eval(const umap_quality_desc *desc, const float *data, int64_t n, int64_t d,
                                      const float *embedding, int dim, const int32_t *labels,
                                      umap_quality *out);
/* The same on either form of rows (umap_rows: dense or CSR, data->n rows
   of the embedding). On sparse rows the high-dimensional side is the
   sparse exact search's, and each rank counts the rows whose shared-column
   bound falls below the target's, measuring only the rows it cannot
   place: the same scores as on the densified rows, never densified. */
UMAPDEF umap_result umap_quality_eval_rows(const umap_quality_desc *desc, const umap_rows *data,
                                           const float *embedding, int dim, const int32_t *labels,
                                           umap_quality *out);

#endif /* UMAP_COMPILER_ONLY */

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

static double umap__now_ms(void) { return umap__now_s() * 1e3; }

static void umap__shape_str(umap_shape s, char *buf, size_t n) {
    int i;
    size_t len;
    /* a caller's shape can hold any rank: name it rather than read dims
       past the array */
    if (s.rank < 0 || s.rank > UMAP_MAX_RANK) {
        snprintf(buf, n, "[rank %d]", s.rank);
        return;
    }
    snprintf(buf, n, "[");
    for (i = 0; i < s.rank; i++) {
        len = strlen(buf);
        snprintf(buf + len, n - len, i ? ",%lld" : "%lld", (long long)s.dim[i]);
    }
    len = strlen(buf);
    snprintf(buf + len, n - len, "]");
}

/* umap__fail (umap_knn.h) for a call that owns no context: its caller's buffer (may be
   NULL), a logger (may be NULL) and a log prefix (may be NULL) */
static umap_result umap__fail_to(char *detail, size_t size, const umap_logger *log, const char *prefix, umap_result r,
                                 const char *fmt, ...) UMAP__PRINTF(6, 7);
static umap_result umap__fail_to(char *detail, size_t size, const umap_logger *log, const char *prefix, umap_result r,
                                 const char *fmt, ...) {
    umap__err e;
    va_list ap;
    e.detail = detail;
    e.size = size;
    e.log = log;
    e.prefix = prefix;
    e.first = NULL;
    va_start(ap, fmt);
    r = umap__failv(&e, r, fmt, ap);
    va_end(ap);
    return r;
}

/* bytes from a file, fit for a message: printable ASCII as it is, a
   backslash as \\ and every other byte as \xNN (a control byte never
   reaches a terminal, and a message is always valid UTF-8, as Python
   decodes it), at most 48 characters then "..." */
static const char *umap__mf_show(char out[64], const void *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    size_t i, m = 0;
    for (i = 0; i < n; i++) {
        unsigned ch = p[i];
        int plain = ch >= 0x20 && ch < 0x7f && ch != '\\';
        if (m + (plain ? 1 : ch == '\\' ? 2 : 4) > 48) break;
        if (plain) out[m++] = (char)ch;
        else if (ch == '\\') out[m++] = '\\', out[m++] = '\\';
        else m += (size_t)snprintf(out + m, 5, "\\x%02x", ch);
    }
    if (i < n) { memcpy(out + m, "...", 3); m += 3; }
    out[m] = 0;
    return out;
}

/* >>output: staged files ------------------------------------------------------
   The temporary is ".BASENAME.<16 hex>.tmp" in the target's directory (the
   same file system, so the rename is atomic; on Windows MoveFileEx replaces
   the target). fopen's "x" (C11; glibc, musl, the BSDs, macOS and the UCRT
   have it; umap__fopen_new) is O_CREAT|O_EXCL: it fails on any existing
   name, a symlink included, so nothing planted is followed, and the
   file gets the permissions fopen gives (0666 less the umask), where
   mkstemp would give 0600. Strict C99 builds see no fileno or fdopen, so the
   data is synced through a second descriptor after fclose. */

#include <errno.h>
#include <sys/stat.h>
#include <time.h>
#if defined(_WIN32)
#include <windows.h>
#include <fcntl.h>
#include <io.h>
#include <process.h>
#elif defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <unistd.h>
#define UMAP__HAVE_POSIX_FILES 1
#endif
#if defined(_WIN32)
#define UMAP__PATH_BACKSLASH 1
#define UMAP__IS_DIR(m) (((m) & _S_IFMT) == _S_IFDIR)
#define UMAP__IS_REG(m) (((m) & _S_IFMT) == _S_IFREG)
#else
#define UMAP__PATH_BACKSLASH 0
#define UMAP__IS_DIR(m) S_ISDIR(m)
#define UMAP__IS_REG(m) S_ISREG(m)
#endif

static umap_result umap__out_fail_at(umap_output *o, const char *path, umap_result r, const char *what, int err) {
    /* into the output's message; the caller logs it if it wants */
    return umap__fail_to(o->error, sizeof o->error, NULL, NULL, r, "%s: %s%s%s", path, what, err ? ": " : "",
                         err ? strerror(err) : "");
}
static umap_result umap__out_fail(umap_output *o, umap_result r, const char *what, int err) {
    return umap__out_fail_at(o, o->path_ ? o->path_ : "(no file)", r, what, err);
}

/* closes and removes the temporary, keeps the message */
static void umap__out_drop(umap_output *o) {
    if (o->file) fclose(o->file);
    if (o->tmp_ && !o->direct_ && o->state_ != 0) remove(o->tmp_);
    umap__free(NULL, o->path_);
    o->file = NULL;
    o->path_ = o->tmp_ = NULL;
    o->state_ = 0;
    o->direct_ = 0;
}

static umap_result umap__out_error(umap_output *o, umap_result r, const char *what, int err) {
    umap__out_fail(o, r, what, err);
    umap__out_drop(o);
    return r;
}

/* best effort: the bytes (fsync on a fresh read-only descriptor: there is no
   fileno in strict C99), then, after the rename, the directory entry */
static int umap__out_sync(const char *path) {
#if defined(UMAP__HAVE_POSIX_FILES)
    int fd = open(path, O_RDONLY), e = 0;
    if (fd < 0) return 0; /* a directory we may not read: nothing to sync through */
    if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS) e = errno; /* EINVAL: a file system without fsync */
    close(fd);
    return e;
#else
    (void)path;
    return 0;
#endif
}

/* a file that did not exist, opened for writing: fopen's "x" where the C
   library has it; Windows' older C runtime (msvcrt, mingw-w64's default)
   does not, so there it is _open's O_EXCL, which Windows does as
   CREATE_NEW: it fails on any existing name, a link included */
static FILE *umap__fopen_new(const char *path) {
#if defined(_WIN32)
    FILE *f;
    int fd = _open(path, _O_CREAT | _O_EXCL | _O_WRONLY | _O_BINARY, _S_IREAD | _S_IWRITE);
    if (fd < 0) return NULL;
    if (!(f = _fdopen(fd, "wb"))) _close(fd);
    return f;
#else
    return fopen(path, "wbx");
#endif
}

#if defined(_WIN32)
/* the last Windows call's reason, in words: the C library's errno does not
   say why MoveFileEx failed */
static umap_result umap__out_error_win32(umap_output *o, const char *what) {
    char reason[256];
    DWORD code = GetLastError(),
          n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0, reason,
                             (DWORD)sizeof reason, NULL);
    while (n > 0 && (reason[n - 1] == '\r' || reason[n - 1] == '\n' || reason[n - 1] == '.' || reason[n - 1] == ' '))
        reason[--n] = 0;
    if (!n) snprintf(reason, sizeof reason, "Windows error %lu", (unsigned long)code);
    umap__fail_to(o->error, sizeof o->error, NULL, NULL, UMAP_ERR_IO, "%s: %s: %s", o->path_, what, reason);
    umap__out_drop(o);
    return UMAP_ERR_IO;
}
#endif

/* new_only: umap_output_open_new's */
static umap_result umap__output_open(umap_output *o, const char *path, int new_only) {
    size_t n, dir_len, i;
    const char *base;
    struct stat st;
    uint64_t seed;
    int attempt, here;
    if (!o) return UMAP_ERR_INVALID_ARGUMENT;
    memset(o, 0, sizeof *o);
    if (!path || !path[0]) return umap__out_fail_at(o, "(no file)", UMAP_ERR_INVALID_ARGUMENT, "no file name", 0);
    n = strlen(path);
    base = path;
    for (i = 0; i < n; i++)
        if (path[i] == '/' || (path[i] == '\\' && UMAP__PATH_BACKSLASH)) base = path + i + 1;
    dir_len = (size_t)(base - path);
    if (!*base) return umap__out_fail_at(o, path, UMAP_ERR_INVALID_ARGUMENT, "names a directory, not a file", 0);
    /* the target, then "DIR/.BASE.<16 hex>.tmp" */
    if (!(o->path_ = (char *)umap__alloc(NULL, 2 * n + 32))) return umap__out_fail_at(o, path, UMAP_ERR_OUT_OF_MEMORY, "out of memory", 0);
    memcpy(o->path_, path, n + 1);
    o->tmp_ = o->path_ + n + 1;
    if (stat(path, &st) == 0) {
        if (UMAP__IS_DIR(st.st_mode)) return umap__out_error(o, UMAP_ERR_IO, "cannot write over it", EISDIR);
        if (!UMAP__IS_REG(st.st_mode) && !new_only) { /* /dev/null, a FIFO: nothing to keep, no directory to stage in */
            memcpy(o->tmp_, path, n + 1);
            if (!(o->file = fopen(path, "wb"))) return umap__out_error(o, UMAP_ERR_IO, "cannot open", errno);
            o->direct_ = 1;
            o->state_ = 1;
            return UMAP_OK;
        }
    }
    /* unpredictable: the clock, the process, where this call's stack and
       the caller's struct are (ASLR), through Philox; a clash retries */
    seed = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^ (uint64_t)clock() ^ ((uint64_t)(uintptr_t)o << 16) ^
           (uint64_t)(uintptr_t)&here ^ (uint64_t)(umap__now_ms() * 1e3);
#if defined(UMAP__HAVE_POSIX_FILES)
    seed ^= (uint64_t)getpid() << 40;
#elif defined(_WIN32)
    seed ^= (uint64_t)_getpid() << 40;
#endif
    for (attempt = 0; attempt < 64; attempt++) {
        uint32_t w[4];
        umap_philox(seed, 0x6F7574707574ull /* "output" */, (uint64_t)attempt, w);
        snprintf(o->tmp_, n + 31, "%.*s.%s.%08lx%08lx.tmp", (int)dir_len, path, base, (unsigned long)w[0],
                 (unsigned long)w[1]);
        errno = 0;
        if ((o->file = umap__fopen_new(o->tmp_)) != NULL) {
            o->state_ = 1;
            return UMAP_OK;
        }
        if (errno != EEXIST) break;
    }
    return umap__out_error(o, UMAP_ERR_IO, errno == EEXIST ? "no free temporary name beside it" : "cannot create a temporary file beside it",
                           errno);
}

UMAP__FN umap_result umap_output_open(umap_output *o, const char *path) { return umap__output_open(o, path, 0); }
UMAP__FN umap_result umap_output_open_new(umap_output *o, const char *path) { return umap__output_open(o, path, 1); }

UMAP__FN umap_result umap_output_finish(umap_output *o) {
    int e = 0, bad;
    if (!o) return UMAP_ERR_INVALID_ARGUMENT;
    if (o->state_ == 2) return UMAP_OK;
    if (o->state_ != 1 || !o->file) {
        if (!o->error[0]) snprintf(o->error, sizeof o->error, "umap_output_finish: the output is not open");
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    o->error[0] = 0;
    /* a write that failed left the stream's error flag, and errno its reason */
    bad = ferror(o->file);
    if (bad) e = errno ? errno : EIO;
    if (!bad && fflush(o->file) != 0) e = errno ? errno : EIO;
    if (fclose(o->file) != 0 && !e) e = errno ? errno : EIO;
    o->file = NULL;
    if (e) return umap__out_error(o, UMAP_ERR_IO, "write failed", e);
    if (!o->direct_ && (e = umap__out_sync(o->tmp_)) != 0) return umap__out_error(o, UMAP_ERR_IO, "sync failed", e);
    o->state_ = 2;
    return UMAP_OK;
}

UMAP__FN umap_result umap_output_commit(umap_output *o) {
    umap_result r;
    int ok;
    if (!o) return UMAP_ERR_INVALID_ARGUMENT;
    if ((r = umap_output_finish(o)) != UMAP_OK) return r;
    if (!o->direct_) {
        errno = 0;
#if defined(_WIN32)
        ok = MoveFileExA(o->tmp_, o->path_, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) != 0;
        if (!ok) return umap__out_error_win32(o, "cannot rename the temporary file over it");
#else
        ok = rename(o->tmp_, o->path_) == 0;
        if (!ok) return umap__out_error(o, UMAP_ERR_IO, "cannot rename the temporary file over it", errno ? errno : EIO);
#endif
        { /* the new directory entry, best effort: the data is safe already */
            char *slash = strrchr(o->tmp_, '/');
            if (slash && slash != o->tmp_) {
                *slash = 0;
                umap__out_sync(o->tmp_);
            } else if (!slash) {
                umap__out_sync(".");
            }
        }
    }
    o->state_ = 0; /* nothing to remove any more */
    umap__out_drop(o);
    return UMAP_OK;
}

UMAP__FN void umap_output_discard(umap_output *o) {
    if (o) umap__out_drop(o);
}

/* >>tune-cache --------------------------------------------------------------- */

#define UMAP__TUNE_MAGIC "umap-tune-cache 1"

UMAP__FN umap_result umap_tuner_default_path(char *buf, size_t size) {
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (!buf || !size) return UMAP_ERR_INVALID_ARGUMENT;
    buf[0] = '\0';
    /* the XDG spec: a relative XDG_CACHE_HOME is invalid and ignored */
    if (xdg && xdg[0] == '/') n = snprintf(buf, size, "%s/umap/tune.txt", xdg);
    else if (home && home[0]) n = snprintf(buf, size, "%s/.cache/umap/tune.txt", home);
    else return UMAP_ERR_IO;
    if (n < 0 || (size_t)n >= size) { buf[0] = '\0'; return UMAP_ERR_TOO_LARGE; }
    return UMAP_OK;
}

/* the cache file's bytes, read from a cursor */
typedef struct umap__tune_text {
    const char *s;
    size_t n, at;
} umap__tune_text;

/* one line without its newline; 0 at the end of the file, -1 for a line
   longer than the buffer or holding a NUL, or the last one cut off */
static int umap__tune_line(umap__tune_text *f, char *buf, size_t size) {
    size_t len = 0;
    if (f->at >= f->n) return 0;
    while (f->at < f->n && f->s[f->at] != '\n') {
        if (f->s[f->at] == '\0' || len + 1 >= size) return -1;
        buf[len++] = f->s[f->at++];
    }
    if (f->at >= f->n) return -1;
    f->at++;
    buf[len] = '\0';
    return 1;
}

/* A cache file's bytes (at most max): 0 and *buf, or an errno. Only a
   regular file is read, and it is opened without blocking, so a FIFO
   planted at the cache's path cannot hang the program. */
static int umap__read_regular(const umap_allocator *a, const char *path, size_t max, char **buf, size_t *len) {
    size_t cap = 4096, n = 0;
    char *b;
#if defined(UMAP__HAVE_POSIX_FILES)
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK), e;
    if (fd < 0) return errno ? errno : EIO;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        e = errno && !S_ISREG(st.st_mode) ? errno : 0;
        close(fd);
        return e ? e : EINVAL;
    }
#else
    struct stat st;
    FILE *fp;
    if (stat(path, &st) != 0) return errno ? errno : EIO;
    if (!UMAP__IS_REG(st.st_mode)) return EINVAL;
    if (!(fp = fopen(path, "rb"))) return errno ? errno : EIO;
#endif
    b = (char *)umap__alloc(a, cap);
    for (;;) {
        long got;
        if (b && n == cap && cap < max + 1) {
            char *g = (char *)umap__alloc(a, cap * 2);
            if (g) memcpy(g, b, n);
            umap__free(a, b);
            b = g;
            cap *= 2;
        }
        if (!b) break;
#if defined(UMAP__HAVE_POSIX_FILES)
        got = (long)read(fd, b + n, cap - n);
#else
        got = (long)fread(b + n, 1, cap - n, fp);
#endif
        if (got <= 0) break;
        n += (size_t)got;
        if (n > max) break;
    }
#if defined(UMAP__HAVE_POSIX_FILES)
    close(fd);
#else
    fclose(fp);
#endif
    if (!b) return ENOMEM;
    if (n > max) {
        umap__free(a, b);
        return EFBIG;
    }
    *buf = b;
    *len = n;
    return 0;
}

/* reads `path` into the empty tuner t; a message in why when the file is
   not a usable cache (then t may hold part of it: the caller drops it) */
static int umap__tune_parse(umap_tuner *t, umap__tune_text *f, char *why, size_t why_size) {
    char line[1400], version[64];
    long long count = -1;
    int got;
    if (umap__tune_line(f, line, sizeof line) != 1 || strcmp(line, UMAP__TUNE_MAGIC) != 0) {
        snprintf(why, why_size, "not a tuning cache (no \"%s\" line)", UMAP__TUNE_MAGIC);
        return 0;
    }
    if (umap__tune_line(f, line, sizeof line) != 1 || sscanf(line, "library %63s", version) != 1) {
        snprintf(why, why_size, "no library line");
        return 0;
    }
    if (strcmp(version, UMAP_VERSION_STRING) != 0) {
        char shown[64];
        snprintf(why, why_size, "written by library %s, this is %s", umap__mf_show(shown, version, strlen(version)),
                 UMAP_VERSION_STRING);
        return 0;
    }
    while ((got = umap__tune_line(f, line, sizeof line)) == 1) {
        char *key, *value, tail;
        if (!strncmp(line, "end ", 4)) {
            if (sscanf(line + 4, "%lld%c", &count, &tail) != 1 || count != t->n) {
                char shown[64];
                snprintf(why, why_size, "\"%s\" but %d records: truncated or edited",
                         umap__mf_show(shown, line, strlen(line)), t->n);
                return 0;
            }
            if (umap__tune_line(f, line, sizeof line) != 0) {
                snprintf(why, why_size, "lines after the end line");
                return 0;
            }
            return 1;
        }
        key = strchr(line, '\t');
        value = key ? strchr(key + 1, '\t') : NULL;
        if (!key || !value || strchr(value + 1, '\t')) {
            snprintf(why, why_size, "record %d is not DEVICE<TAB>KEY<TAB>VALUE", t->n + 1);
            return 0;
        }
        *key++ = '\0';
        *value++ = '\0';
        if (t->n >= UMAP_TUNE_MAX_RECORDS) {
            snprintf(why, why_size, "more than %d records", UMAP_TUNE_MAX_RECORDS);
            return 0;
        }
        if (umap_tuner_set(t, line, key, value) != UMAP_OK) {
            snprintf(why, why_size, "record %d holds an empty, overlong or unprintable field", t->n + 1);
            return 0;
        }
    }
    snprintf(why, why_size, got < 0 ? "a line too long or holding a NUL" : "no end line: truncated");
    return 0;
}

UMAP__FN umap_result umap_tuner_load(umap_tuner *t, const char *path) {
    char def[1024], why[600], *bytes = NULL;
    umap_tuner *tmp = NULL;
    umap__tune_text text;
    umap_result r;
    size_t len;
    int i, e;
    if (!t) return UMAP_ERR_INVALID_ARGUMENT;
    if (!path || !path[0]) {
        if ((r = umap_tuner_default_path(def, sizeof def)) != UMAP_OK) return r;
        path = def;
    }
    len = strlen(path) + 1;
    umap__free(&t->alloc, t->path);
    if (!(t->path = (char *)umap__alloc(&t->alloc, len))) return UMAP_ERR_OUT_OF_MEMORY;
    memcpy(t->path, path, len);
    /* a full cache's lines, with room for the library and end lines */
    if ((e = umap__read_regular(&t->alloc, path, (size_t)(UMAP_TUNE_MAX_RECORDS + 8) * 1400, &bytes, &len)) != 0) {
        if (e != ENOENT)
            umap__log(&t->logger, UMAP_LOG_WARN, "tune: %s: %s; tuning starts afresh", path,
                      e == EINVAL ? "not a regular file" : strerror(e));
        return e == ENOMEM ? UMAP_ERR_OUT_OF_MEMORY : UMAP_OK;
    }
    /* parsed apart, so a bad file leaves nothing behind */
    if ((r = umap_tuner_create(&t->alloc, NULL, &tmp)) != UMAP_OK) {
        umap__free(&t->alloc, bytes);
        return r;
    }
    why[0] = '\0';
    text.s = bytes;
    text.n = len;
    text.at = 0;
    if (!umap__tune_parse(tmp, &text, why, sizeof why))
        umap__log(&t->logger, UMAP_LOG_WARN, "tune: %s ignored: %s", path, why);
    else
        for (i = 0; i < tmp->n; i++)
            if ((r = umap_tuner_set(t, tmp->rec[i].device, tmp->rec[i].key, tmp->rec[i].value)) != UMAP_OK) break;
    umap__free(&t->alloc, bytes);
    umap_tuner_free(tmp);
    umap__tuner_lock(t);
    t->dirty = 0;
    umap__tuner_unlock(t);
    return r == UMAP_OK ? UMAP_OK : r;
}

/* mkdir -p of path's directory (best effort: the open reports what fails) */
static void umap__tune_mkdirs(const char *path) {
#if defined(UMAP__HAVE_POSIX_FILES)
    char dir[1024];
    size_t i, n = strlen(path);
    if (n >= sizeof dir) return;
    memcpy(dir, path, n + 1);
    for (i = 1; i < n; i++)
        if (dir[i] == '/') {
            dir[i] = '\0';
            mkdir(dir, 0755); /* EEXIST and the rest: the open says */
            dir[i] = '/';
        }
#else
    (void)path;
#endif
}

UMAP__FN umap_result umap_tuner_save(umap_tuner *t, const char *path, char *detail, size_t detail_size) {
    umap_output o;
    umap_result r;
    int i;
    if (detail && detail_size) detail[0] = '\0';
    if (!t) return UMAP_ERR_INVALID_ARGUMENT;
    if (!path || !path[0]) path = t->path;
    if (!path || !path[0]) {
        if (detail && detail_size) snprintf(detail, detail_size, "no cache file named or loaded");
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    umap__tune_mkdirs(path);
    if ((r = umap_output_open_new(&o, path)) != UMAP_OK) {
        if (detail && detail_size) snprintf(detail, detail_size, "%s", o.error);
        return r;
    }
    umap__tuner_lock(t);
    fprintf(o.file, "%s\nlibrary %s\n", UMAP__TUNE_MAGIC, UMAP_VERSION_STRING);
    for (i = 0; i < t->n; i++) fprintf(o.file, "%s\t%s\t%s\n", t->rec[i].device, t->rec[i].key, t->rec[i].value);
    fprintf(o.file, "end %d\n", t->n);
    umap__tuner_unlock(t);
    if ((r = umap_output_commit(&o)) != UMAP_OK) {
        if (detail && detail_size) snprintf(detail, detail_size, "%s", o.error);
        return r;
    }
    umap__tuner_lock(t);
    t->dirty = 0;
    umap__tuner_unlock(t);
    return UMAP_OK;
}

/* a pool's own tuner (UMAP_TUNE) at the pool's end: saved when it learnt
   something, then freed */
static void umap__env_tuner_release(umap_tuner *t) {
    char why[700];
    if (!t) return;
    if (t->dirty && umap_tuner_save(t, NULL, why, sizeof why) != UMAP_OK)
        umap__log(&t->logger, UMAP_LOG_WARN, "tune: the cache was not saved: %s", why);
    umap_tuner_free(t);
}

/* umap_pool_create, with a tuner the pool owns when UMAP_TUNE asks for one
   (a tuner that cannot start leaves tuning off: it never changes results) */
static umap_result umap__pool_create_tuned(int n_threads, const umap_allocator *alloc, const umap_logger *logger,
                                           umap_pool **out) {
    const char *env = getenv("UMAP_TUNE");
    umap_tuner *t = NULL;
    umap_result r = umap_pool_create(n_threads, alloc, out);
    if (r != UMAP_OK || !env || !env[0] || !strcmp(env, "0")) return r;
    if (umap_tuner_create(alloc, logger, &t) != UMAP_OK) return UMAP_OK;
    if (umap_tuner_load(t, strcmp(env, "1") ? env : NULL) != UMAP_OK) {
        umap__log(logger, UMAP_LOG_WARN, "tune: UMAP_TUNE=%s: no usable cache path; tuning off", env);
        umap_tuner_free(t);
        return UMAP_OK;
    }
    umap_pool_set_tuner(*out, t);
    (*out)->tuner_release = umap__env_tuner_release;
    return UMAP_OK;
}

/* >>ir -------------------------------------------------------------------- */

enum { UMAP__CLS_L, UMAP__CLS_U, UMAP__CLS_B, UMAP__CLS_E, UMAP__CLS_R, UMAP__CLS_S, UMAP__CLS_M, UMAP__CLS_G, UMAP__CLS_C };

static const char *const umap__op_names[] = {
#define UMAP__X_NAME(id, name, arity, cls, grad) name,
    UMAP_OP_LIST(UMAP__X_NAME)
#undef UMAP__X_NAME
};
static const signed char umap__op_arity[] = {
#define UMAP__X_AR(id, name, arity, cls, grad) arity,
    UMAP_OP_LIST(UMAP__X_AR)
#undef UMAP__X_AR
};
static const unsigned char umap__op_class[] = {
#define UMAP__X_CLS(id, name, arity, cls, grad) UMAP__CLS_##cls,
    UMAP_OP_LIST(UMAP__X_CLS)
#undef UMAP__X_CLS
};
/* the gradient column as data: the sources whose gradient is zero by
   definition (a bit per source; UMAP_MAX_SRC bits), and whether the custom
   op's descriptor holds the rules */
enum { UMAP__ZG_D = 0x00, UMAP__ZG_Z = 0xFF, UMAP__ZG_Z0 = 0x01, UMAP__ZG_Z1 = 0x02, UMAP__ZG_CG = 0x00 };
enum { UMAP__XG_D = 0, UMAP__XG_Z = 0, UMAP__XG_Z0 = 0, UMAP__XG_Z1 = 0, UMAP__XG_CG = 1 };
static const unsigned char umap__op_zero_grad[] = {
#define UMAP__X_ZG(id, name, arity, cls, grad) UMAP__ZG_##grad,
    UMAP_OP_LIST(UMAP__X_ZG)
#undef UMAP__X_ZG
};
static const unsigned char umap__op_custom_grad[] = {
#define UMAP__X_XG(id, name, arity, cls, grad) UMAP__XG_##grad,
    UMAP_OP_LIST(UMAP__X_XG)
#undef UMAP__X_XG
};
typedef char umap__op_tables_match[(sizeof umap__op_names / sizeof umap__op_names[0] == UMAP_OP_COUNT &&
                                    sizeof umap__op_arity == UMAP_OP_COUNT &&
                                    sizeof umap__op_class == UMAP_OP_COUNT &&
                                    sizeof umap__op_zero_grad == UMAP_OP_COUNT &&
                                    sizeof umap__op_custom_grad == UMAP_OP_COUNT && UMAP_MAX_SRC <= 8) ? 1 : -1];

UMAP__FN const char *umap_op_name(umap_op op) {
    return (int)op >= 0 && op < UMAP_OP_COUNT ? umap__op_names[op] : "?";
}

UMAP__FN umap_result umap_op_info_get(umap_op op, umap_op_info *out) {
    if (!out) return UMAP_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if ((int)op < 0 || op >= UMAP_OP_COUNT) return UMAP_ERR_INVALID_ARGUMENT;
    out->name = umap__op_names[op];
    out->arity = umap__op_arity[op];
    out->zero_grad = umap__op_zero_grad[op] == UMAP__ZG_Z ? ~0u : umap__op_zero_grad[op];
    out->custom_grad = umap__op_custom_grad[op];
    return UMAP_OK;
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
    umap__err err;             /* a build error: the first into status and detail, every one to the logger */
    umap__err note;            /* a compile or gradcheck error: into detail, the graph stays usable */
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
    if (s.rank < 0 || s.rank > UMAP_MAX_RANK) return -1;
    for (i = 0; i < s.rank; i++)
        if (!umap__mul(n, s.dim[i], &n)) return -1;
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
    for (i = 0; i < s.rank; i++)
        if (s.dim[i] < 1 || !umap__mul_le(n, s.dim[i], (int64_t)1 << 40, &n)) return 0;
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
    g->err.detail = g->detail;
    g->err.size = sizeof g->detail;
    g->err.log = &g->logger;
    g->err.first = &g->status;
    g->note = g->err;
    g->note.first = NULL;
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
            umap__fail(&g->err, g->status != UMAP_OK ? g->status : UMAP_ERR_INVALID_ARGUMENT,
                             "%s: source %d is NULL (an earlier builder failed?)", op, i);
            return NULL;
        }
        if (srcs[i]->graph != g) {
            umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "%s: source %d belongs to another graph", op, i);
            return NULL;
        }
    }
    return g;
}

static umap_tensor *umap__new_node(umap_graph *g, umap_op op, umap_dtype dt, umap_shape shape, int n_src,
                                   umap_tensor *const *srcs) {
    umap_tensor *t;
    int i;
    /* the op list's arity is the builders' contract: a node with another
       number of sources would be read out of bounds by every pass */
    if (umap__op_arity[op] >= 0 ? n_src != umap__op_arity[op]
                                : n_src < (op == UMAP_OP_CONCAT ? 1 : 0) || n_src > UMAP_MAX_SRC) {
        umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "%s: %d sources, the op takes %d%s", umap__op_names[op], n_src,
                         umap__op_arity[op] >= 0 ? umap__op_arity[op] : UMAP_MAX_SRC,
                         umap__op_arity[op] >= 0 ? "" : " at most");
        return NULL;
    }
    if (!umap__shape_ok(shape)) {
        char s[96];
        umap__shape_str(shape, s, sizeof s);
        umap__fail(&g->err, UMAP_ERR_SHAPE, "%s: invalid shape %s (rank 0..4, dims >= 1)", umap__op_names[op], s);
        return NULL;
    }
    if (!umap__grow(&g->alloc, (void **)&g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof(umap_tensor *))) {
        umap__fail(&g->err, UMAP_ERR_OUT_OF_MEMORY, "%s: out of memory", umap__op_names[op]);
        return NULL;
    }
    t = (umap_tensor *)umap__calloc(&g->alloc, 1, sizeof *t);
    if (!t) {
        umap__fail(&g->err, UMAP_ERR_OUT_OF_MEMORY, "%s: out of memory", umap__op_names[op]);
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
            umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "%s: a name of 1..%d characters is required",
                             umap__op_names[op], UMAP_NAME_MAX - 1);
            return NULL;
        }
        for (i = 0; i < g->n_nodes; i++)
            if ((g->nodes[i]->op == UMAP_OP_INPUT || g->nodes[i]->op == UMAP_OP_PARAM) && !strcmp(g->nodes[i]->name, name)) {
                umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "%s: the name '%s' is taken by node %d",
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
    size_t bytes;
    if (!g) return NULL;
    if (!data) {
        umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "const: data is NULL");
        return NULL;
    }
    t = umap__leaf(g, UMAP_OP_CONST, NULL, dt, s);
    if (!t) return NULL;
    if (!umap__bytes(umap_shape_numel(s), 4, &bytes)) { /* 2^40 elements pass a 32-bit size_t */
        umap__fail(&g->err, UMAP_ERR_TOO_LARGE, "const: %lld elements exceed the size of memory",
                         (long long)umap_shape_numel(s));
        return NULL; /* the node stays, dataless and unreachable */
    }
    t->data = umap__alloc(&g->alloc, bytes);
    if (!t->data) {
        umap__fail(&g->err, UMAP_ERR_OUT_OF_MEMORY, "const: out of memory");
        return NULL; /* the node stays, dataless and unreachable */
    }
    memcpy(t->data, data, bytes);
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
            umap__fail(&g->err, UMAP_ERR_DTYPE, "%s: source %d (node %d) must be f32", op, i, srcs[i]->id);
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
                umap__fail(&g->err, UMAP_ERR_SHAPE, "%s: shapes %s and %s do not broadcast (axis %d: %lld vs %lld)",
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
        umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "umap_unary: op %d is not a unary op", (int)op);
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
        umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "umap_binary: op %d is not a binary op", (int)op);
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
        umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "clamp: lo %g > hi %g (or NaN)", (double)lo, (double)hi);
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
        umap__fail(&g->err, UMAP_ERR_SHAPE, "reshape: cannot reshape %s to %s", a, b);
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
        umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "permute: perm is NULL");
        return NULL;
    }
    s = x->shape;
    for (i = 0; i < x->shape.rank; i++) {
        if (perm[i] < 0 || perm[i] >= x->shape.rank || (seen & (1u << perm[i]))) {
            umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "permute: perm is not a permutation of 0..%d",
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
        umap__fail(&g->err, UMAP_ERR_SHAPE, "transpose: needs rank >= 2, got rank %d", r);
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
    umap__fail(&g->err, UMAP_ERR_SHAPE, "broadcast: cannot broadcast %s to %s", a, b);
    return NULL;
}
}

UMAP__FN umap_tensor *umap_slice(umap_graph *g, umap_tensor *x, int axis, int64_t start, int64_t len) {
    umap_shape s;
    umap_tensor *t;
    if (!umap__check_srcs(g, "slice", 1, &x)) return NULL;
    /* len > dim - start, not start + len > dim: the sum of a caller's
       start and len can pass INT64_MAX */
    if (axis < 0 || axis >= x->shape.rank || start < 0 || len < 1 || start >= x->shape.dim[axis] ||
        len > x->shape.dim[axis] - start) {
        char a[96];
        umap__shape_str(x->shape, a, sizeof a);
        umap__fail(&g->err, UMAP_ERR_SHAPE, "slice: axis %d, start %lld, length %lld is outside %s", axis,
                         (long long)start, (long long)len, a);
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
        umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "concat: needs 1..%d tensors, got %d", UMAP_MAX_SRC, n);
        return NULL;
    }
    if (!umap__check_srcs(g, "concat", n, xs)) return NULL;
    s = xs[0]->shape;
    if (axis < 0 || axis >= s.rank) {
        umap__fail(&g->err, UMAP_ERR_SHAPE, "concat: axis %d out of range for rank %d", axis, s.rank);
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
            umap__fail(&g->err, UMAP_ERR_SHAPE, "concat: %s and %s differ off axis %d (or in type)", a, b, axis);
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
    umap__fail(&g->err, UMAP_ERR_SHAPE, "matmul: cannot multiply %s%s by %s%s", x, trans_a ? "^T" : "", y,
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
        umap__fail(&g->err, UMAP_ERR_DTYPE, "gather: needs f32 rows and an i32 index tensor");
        return NULL;
    }
    if (x->shape.rank < 1 || idx->shape.rank + x->shape.rank - 1 > UMAP_MAX_RANK) {
        umap__fail(&g->err, UMAP_ERR_SHAPE, "gather: result rank %d exceeds %d", idx->shape.rank + x->shape.rank - 1,
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
        umap__fail(&g->err, UMAP_ERR_DTYPE, "scatter_add: needs f32 rows and an i32 index tensor");
        return NULL;
    }
    for (k = 0; k < idx->shape.rank; k++)
        if (k >= src->shape.rank || src->shape.dim[k] != idx->shape.dim[k]) {
            char a[96], b[96];
            umap__shape_str(src->shape, a, sizeof a);
            umap__shape_str(idx->shape, b, sizeof b);
            umap__fail(&g->err, UMAP_ERR_SHAPE, "scatter_add: source %s does not start with index shape %s", a, b);
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
        umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT,
                         "custom: needs an op with name and shape_fn, 0..%d sources, 0..%d params", UMAP_MAX_SRC,
                         UMAP_MAX_PARAMS);
        return NULL;
    }
    if (!umap__check_srcs(g, op->name, n_src, srcs)) return NULL;
    for (i = 0; i < n_src; i++) { in_shapes[i] = srcs[i]->shape; in_types[i] = srcs[i]->dtype; }
    out = umap_shape0();
    r = op->shape_fn(op, n_src, in_shapes, in_types, params, n_params, &out, &odt);
    if (r != UMAP_OK) {
        umap__fail(&g->err, r, "%s: the op's shape rule rejected its sources (%s)", op->name, umap_result_string(r));
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
        umap__fail(&g->err, UMAP_ERR_SHAPE, "pairwise_euclidean: needs a [n,d] matrix, got rank %d", x->shape.rank);
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
        umap__fail(&g->err, UMAP_ERR_SHAPE, "pairwise_cosine: needs a [n,d] matrix, got rank %d", x->shape.rank);
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

/* d(loss)/d(src[i]) of node y given dy (y's shape). NULL when the op list
   declares src i's gradient zero (or a custom grad_fn gives none), or on an
   error, which is recorded in the graph: an op without a rule here is one,
   never a silent zero. */
static umap_tensor *umap__vjp(umap_graph *g, umap_tensor *y, umap_tensor *dy, int i) {
    umap_tensor *x = y->src[0], *a = y->src[0], *b = y->n_src > 1 ? y->src[1] : NULL;
    umap_tensor *zero, *r = NULL;
    if (umap__op_zero_grad[y->op] & (1u << i)) return NULL;
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
    case UMAP_OP_SELECT: /* the condition (i == 0) is Z0 in the op list */
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
    /* the index (i == 1) is Z1 in the op list */
    case UMAP_OP_GATHER: return umap_scatter_add(g, dy, b, a->shape.dim[0]);
    case UMAP_OP_SCATTER_ADD: return umap_gather(g, dy, b);
    case UMAP_OP_CUSTOM:
        if (!y->custom->grad_fn) {
            umap__fail(&g->err, UMAP_ERR_NOT_DIFFERENTIABLE, "grad: custom op '%s' (node %d) has no grad_fn",
                             y->custom->name, y->id);
            return NULL;
        }
        return y->custom->grad_fn(g, y->custom, y, dy, i);
    default:
        umap__fail(&g->err, UMAP_ERR_NOT_DIFFERENTIABLE,
                         "grad: op '%s' (node %d) has no reverse-mode rule for source %d (and the op list does "
                         "not declare its gradient zero)", umap__op_names[y->op], y->id, i);
        return NULL;
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
        umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "grad: NULL loss, wrt or grads");
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    if (umap_shape_numel(loss->shape) != 1 || loss->dtype != UMAP_F32) {
        char s[96];
        umap__shape_str(loss->shape, s, sizeof s);
        umap__fail(&g->err, UMAP_ERR_SHAPE, "grad: the loss must be one f32 value, got shape %s", s);
        return UMAP_ERR_SHAPE;
    }
    for (i = 0; i < n_wrt; i++)
        if (!wrt[i] || wrt[i]->graph != g || wrt[i]->dtype != UMAP_F32) {
            umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "grad: wrt[%d] is NULL, foreign or not f32", i);
            return UMAP_ERR_INVALID_ARGUMENT;
        }
    n = loss->id + 1;
    adj = (umap_tensor **)umap__calloc(&g->alloc, (size_t)n, sizeof *adj);
    needs = (char *)umap__calloc(&g->alloc, (size_t)n, 1);
    if (!adj || !needs) {
        umap__free(&g->alloc, adj);
        umap__free(&g->alloc, needs);
        umap__fail(&g->err, UMAP_ERR_OUT_OF_MEMORY, "grad: out of memory");
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
            if (!d && g->status == UMAP_OK && !(umap__op_zero_grad[t->op] & (1u << j)) && t->op != UMAP_OP_CUSTOM)
                /* a rule that gave nothing where the op list promises one */
                umap__fail(&g->err, UMAP_ERR_NOT_DIFFERENTIABLE, "grad: the rule of op '%s' (node %d) gave no "
                                 "gradient for source %d", umap__op_names[t->op], t->id, j);
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

/* tangent of node y from the tangents of its sources (NULL = zero; the
   caller has already dropped those of sources the op list declares zero).
   An op without a rule here fails loudly (UMAP_ERR_NOT_DIFFERENTIABLE). */
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
    case UMAP_OP_SELECT: /* the condition's tangent is Z0: one of a's, b's is there */
        zero = umap_scalar(g, 0.0f);
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
        umap__fail(&g->err, UMAP_ERR_NOT_DIFFERENTIABLE, "jvp: custom op '%s' (node %d) has no forward-mode rule",
                         y->custom->name, y->id);
        return NULL;
    default:
        umap__fail(&g->err, UMAP_ERR_NOT_DIFFERENTIABLE,
                         "jvp: op '%s' (node %d) has no forward-mode rule (and the op list does not declare its "
                         "gradient zero)", umap__op_names[y->op], y->id);
        return NULL;
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
        umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "jvp: NULL or empty arguments");
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    for (i = 0; i < n_out; i++) {
        if (!outs[i] || outs[i]->graph != g) {
            umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "jvp: outs[%d] is NULL or foreign", i);
            return UMAP_ERR_INVALID_ARGUMENT;
        }
        if (outs[i]->id + 1 > n) n = outs[i]->id + 1;
    }
    for (i = 0; i < n_wrt; i++)
        if (!wrt[i] || !tangents[i] || wrt[i]->graph != g || tangents[i]->graph != g ||
            !umap__shape_eq(wrt[i]->shape, tangents[i]->shape)) {
            umap__fail(&g->err, UMAP_ERR_SHAPE, "jvp: wrt[%d] and tangents[%d] must be non-NULL with one shape", i, i);
            return UMAP_ERR_SHAPE;
        }
    tan = (umap_tensor **)umap__calloc(&g->alloc, (size_t)n, sizeof *tan);
    if (!tan) {
        umap__fail(&g->err, UMAP_ERR_OUT_OF_MEMORY, "jvp: out of memory");
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    for (i = 0; i < n_wrt; i++)
        if (wrt[i]->id < n) tan[wrt[i]->id] = tangents[i];
    for (i = 0; i < n && g->status == UMAP_OK; i++) {
        umap_tensor *t = g->nodes[i], *st[UMAP_MAX_SRC];
        int any = 0;
        if (umap__is_leaf(t->op)) continue;
        for (j = 0; j < t->n_src; j++) {
            /* a source whose gradient the op list declares zero carries none */
            st[j] = t->src[j]->dtype == UMAP_F32 && !(umap__op_zero_grad[t->op] & (1u << j)) ? tan[t->src[j]->id] : NULL;
            any |= st[j] != NULL;
        }
        if (any) {
            tan[i] = umap__jvp_rule(g, t, st);
            if (!tan[i] && g->status == UMAP_OK)
                umap__fail(&g->err, UMAP_ERR_NOT_DIFFERENTIABLE, "jvp: the rule of op '%s' (node %d) gave no tangent",
                                 umap__op_names[t->op], t->id);
        }
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
        umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "hvp: NULL or empty arguments");
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    grads = (umap_tensor **)umap__calloc(&g->alloc, (size_t)n_wrt, sizeof *grads);
    if (!grads) {
        umap__fail(&g->err, UMAP_ERR_OUT_OF_MEMORY, "hvp: out of memory");
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    r = umap_grad(g, loss, n_wrt, wrt, grads);
    if (r == UMAP_OK) r = umap_jvp(g, n_wrt, grads, n_wrt, wrt, v, hv);
    umap__free(&g->alloc, grads);
    return r;
}

/* >>vmap: vectorising over a new leading batch axis ------------------------ */

/* [B, s...]; the caller has checked s.rank < UMAP_MAX_RANK */
static umap_shape umap__batched_shape(umap_shape s, int64_t B) {
    umap_shape r = umap_shape0();
    int k;
    r.rank = s.rank + 1;
    r.dim[0] = B;
    for (k = 0; k < s.rank; k++) r.dim[k + 1] = s.dim[k];
    return r;
}

/* A batched source [B, s...] of an op whose result has rank `rank`, as
   [B, 1.., s...] of rank rank + 1: numpy broadcasting aligns shapes on the
   right, so the batch axis must sit left of every axis of the result. An
   unbatched source (bx NULL) stays as it is: aligned on the right, it
   broadcasts over the batch as it broadcast before. */
static umap_tensor *umap__vmap_lift(umap_graph *g, umap_tensor *x, umap_tensor *bx, int rank) {
    umap_shape s = umap_shape0();
    int k, pad;
    if (!bx) return x;
    pad = rank - x->shape.rank;
    if (pad == 0) return bx;
    s.rank = rank + 1;
    s.dim[0] = bx->shape.dim[0];
    for (k = 0; k < pad; k++) s.dim[1 + k] = 1;
    for (k = 0; k < x->shape.rank; k++) s.dim[1 + pad + k] = x->shape.dim[k];
    return umap_reshape(g, bx, s);
}

/* x the same for every example, as [B, x.shape...] */
static umap_tensor *umap__vmap_repeat(umap_graph *g, umap_tensor *x, int64_t B) {
    return umap_broadcast(g, x, umap__batched_shape(x->shape, B));
}

/* The identity over the batch as a mask of shape [B, 1 x before, B, 1 x
   after]: picks, from a tensor that holds every example's value for every
   example, the diagonal (gather and scatter_add with a batched index, which
   have no per-example offset to add: the IR has no i32 arithmetic). */
static umap_tensor *umap__vmap_eye(umap_graph *g, int64_t B, int before, int after) {
    umap_shape s = umap_shape0();
    umap_tensor *t;
    float *d;
    int64_t i, n;
    size_t bytes;
    int k;
    /* B x B past any tensor the IR holds, or past a 32-bit size_t */
    if (!umap__mul_le(B, B, (int64_t)1 << 40, &n) || !umap__bytes(n, 4, &bytes)) {
        umap__fail(&g->err, UMAP_ERR_TOO_LARGE, "vmap: a batch of %lld is too large for the diagonal mask",
                         (long long)B);
        return NULL;
    }
    s.dim[s.rank++] = B;
    for (k = 0; k < before; k++) s.dim[s.rank++] = 1;
    s.dim[s.rank++] = B;
    for (k = 0; k < after; k++) s.dim[s.rank++] = 1;
    d = (float *)umap__calloc(&g->alloc, bytes, 1);
    if (!d) {
        umap__fail(&g->err, UMAP_ERR_OUT_OF_MEMORY, "vmap: out of memory");
        return NULL;
    }
    for (i = 0; i < B; i++) d[i * B + i] = 1.0f;
    t = umap_constant(g, s, d);
    umap__free(&g->alloc, d);
    return t;
}

/* One matmul operand in the form the batched product takes: a shared
   (unbatched) matrix stays 2-D, everything else becomes [L, r, c] with L = B,
   or B * C when the product was already batched over C (y rank 3). */
static umap_tensor *umap__vmap_mm_operand(umap_graph *g, umap_tensor *x, umap_tensor *bx, int64_t B, int64_t C) {
    umap_shape s;
    int r = x->shape.rank;
    if (!bx && r == 2) return x;
    if (!bx) bx = umap__vmap_repeat(g, x, B);                               /* [B, C, r, c] */
    else if (r == 2 && C) bx = umap_broadcast(g, umap__vmap_lift(g, x, bx, 3), /* [B, C, r, c] */
                                              umap_shape4(B, C, x->shape.dim[0], x->shape.dim[1]));
    if (!bx || bx->shape.rank == 3) return bx;
    s = umap_shape3(B * C, x->shape.dim[r - 2], x->shape.dim[r - 1]);
    return umap_reshape(g, bx, s);
}

static umap_tensor *umap__vmap_too_deep(umap_graph *g, const umap_tensor *y, int rank) {
    umap__fail(&g->err, UMAP_ERR_SHAPE, "vmap: the batching rule of op '%s' (node %d) needs a rank-%d tensor "
                     "(UMAP_MAX_RANK is %d)", umap__op_names[y->op], y->id, rank, UMAP_MAX_RANK);
    return NULL;
}

/* The batched value of node y, [B, y.shape...], from its sources' batched
   values: bs[j] is [B, src j's shape...], or NULL where source j is the same
   for every example. An op without a rule here fails loudly
   (UMAP_ERR_NOT_BATCHABLE); the list of ops with one is in the manual
   (VECTORISING). */
static umap_tensor *umap__vmap_rule(umap_graph *g, umap_tensor *y, umap_tensor **bs, int64_t B) {
    umap_tensor *a = y->src[0], *b = y->n_src > 1 ? y->src[1] : NULL, *ba = bs[0], *bb = y->n_src > 1 ? bs[1] : NULL;
    umap_shape ys = umap__batched_shape(y->shape, B);
    int perm[UMAP_MAX_RANK], k, rank = y->shape.rank;
    /* elementwise: the batch is one more broadcast axis */
    if (umap__op_class[y->op] == UMAP__CLS_U) return umap_unary(g, y->op, ba);
    if (umap__op_class[y->op] == UMAP__CLS_B)
        return umap_binary(g, y->op, umap__vmap_lift(g, a, ba, rank), umap__vmap_lift(g, b, bb, rank));
    switch (y->op) {
    case UMAP_OP_SELECT:
        return umap_select(g, umap__vmap_lift(g, a, ba, rank), umap__vmap_lift(g, b, bb, rank),
                           umap__vmap_lift(g, y->src[2], bs[2], rank));
    case UMAP_OP_CLAMP: return umap_clamp(g, ba, y->fp[0], y->fp[1]);
    /* reductions: the same axes, one further right */
    case UMAP_OP_SUM: case UMAP_OP_MEAN: case UMAP_OP_RMAX:
        return umap__reduce(g, y->op, ba, (unsigned)y->ip[0] << 1, y->ip[1]);
    case UMAP_OP_RESHAPE: return umap_reshape(g, ba, ys);
    case UMAP_OP_PERMUTE:
        perm[0] = 0;
        for (k = 0; k < rank; k++) perm[k + 1] = y->ip[k] + 1;
        return umap_permute(g, ba, perm);
    case UMAP_OP_BROADCAST: return umap_broadcast(g, umap__vmap_lift(g, a, ba, rank), ys);
    case UMAP_OP_SLICE: return umap_slice(g, ba, y->ip[0] + 1, y->lp[0], y->lp[1]);
    case UMAP_OP_CONCAT: {
        umap_tensor *parts[UMAP_MAX_SRC];
        for (k = 0; k < y->n_src; k++) parts[k] = bs[k] ? bs[k] : umap__vmap_repeat(g, y->src[k], B);
        return umap_concat(g, y->n_src, parts, y->ip[0] + 1);
    }
    case UMAP_OP_MATMUL: {
        /* one product: [L,M,K]@[L,K,N], [L*M,K]@[K,N] or [M,K]@[L,K,N] */
        int64_t C = rank == 3 ? y->shape.dim[0] : 0;
        umap_tensor *xa = umap__vmap_mm_operand(g, a, ba, B, C), *xb = umap__vmap_mm_operand(g, b, bb, B, C), *r;
        if (xa && xb && xa->shape.rank == 3 && xb->shape.rank == 2 && !y->ip[0]) /* a shared weight: the batch */
            xa = umap_reshape(g, xa, umap_shape2(xa->shape.dim[0] * xa->shape.dim[1], xa->shape.dim[2])); /* as rows */
        r = umap_matmul_ex(g, xa, xb, y->ip[0], y->ip[1]);
        return r && !umap__shape_eq(r->shape, ys) ? umap_reshape(g, r, ys) : r;
    }
    case UMAP_OP_GATHER: {
        /* x [N, R...], idx [I...] -> [I..., R...] */
        int ri = b->shape.rank, rx = a->shape.rank;
        umap_tensor *xt, *r, *eye;
        if (!ba) return umap_gather(g, a, bb); /* only the index: [B, I...] indexes as it is */
        for (k = 0; k < rx + 1; k++) perm[k] = k;
        perm[0] = 1; perm[1] = 0;
        xt = umap_permute(g, ba, perm); /* [N, B, R...]: the rows stay axis 0 */
        if (!bb) {
            /* [I..., B, R...] -> [B, I..., R...] */
            r = umap_gather(g, xt, b);
            perm[0] = ri;
            for (k = 0; k < ri; k++) perm[k + 1] = k;
            for (k = ri + 1; k < ri + rx; k++) perm[k] = k;
            return umap_permute(g, r, perm);
        }
        /* both: [B, I..., B', R...], then the diagonal b == b' */
        if (ri + rx + 1 > UMAP_MAX_RANK) return umap__vmap_too_deep(g, y, ri + rx + 1);
        if (!(eye = umap__vmap_eye(g, B, ri, rx - 1))) return NULL; /* first: it says why a B is too large */
        r = umap_select(g, eye, umap_gather(g, xt, bb), umap_scalar(g, 0.0f));
        return umap_sum(g, r, 1u << (1 + ri), 0);
    }
    case UMAP_OP_SCATTER_ADD: {
        /* src [I..., D...], idx [I...] -> [n, D...] */
        int ri = b->shape.rank, rs = a->shape.rank;
        umap_tensor *src, *r, *eye;
        umap_shape s;
        if (!bb) {
            /* [B, I..., D...] -> [I..., B, D...] -> [n, B, D...] -> [B, n, D...] */
            for (k = 0; k < ri; k++) perm[k] = k + 1;
            perm[ri] = 0;
            for (k = ri + 1; k < rs + 1; k++) perm[k] = k;
            r = umap_scatter_add(g, umap_permute(g, ba, perm), b, y->lp[0]);
        } else {
            /* a batched index: each example's rows go to its own column b' of
               [n, B', D...], through a source [B, I..., B', D...] that is zero
               off the diagonal b == b' */
            if (rs + 2 > UMAP_MAX_RANK) return umap__vmap_too_deep(g, y, rs + 2);
            if (!(eye = umap__vmap_eye(g, B, ri, rs - ri))) return NULL;
            src = ba ? ba : umap__vmap_repeat(g, a, B);
            if (!src) return NULL;
            s = src->shape;
            for (k = s.rank; k > ri + 1; k--) s.dim[k] = s.dim[k - 1];
            s.dim[ri + 1] = 1;
            s.rank++;
            src = umap_select(g, eye, umap_reshape(g, src, s), umap_scalar(g, 0.0f));
            r = umap_scatter_add(g, src, bb, y->lp[0]);
        }
        for (k = 0; k < rank + 1; k++) perm[k] = k;
        perm[0] = 1; perm[1] = 0;
        return umap_permute(g, r, perm);
    }
    case UMAP_OP_CUSTOM:
        umap__fail(&g->err, UMAP_ERR_NOT_BATCHABLE, "vmap: custom op '%s' (node %d) has no batching rule",
                         y->custom->name, y->id);
        return NULL;
    default:
        umap__fail(&g->err, UMAP_ERR_NOT_BATCHABLE, "vmap: op '%s' (node %d) has no batching rule",
                         umap__op_names[y->op], y->id);
        return NULL;
    }
}

UMAP__FN umap_result umap_vmap(umap_graph *g, int n_in, umap_tensor *const *ins, umap_tensor *const *batched_ins,
                               int n_out, umap_tensor *const *outs, umap_tensor **batched_outs) {
    umap_tensor **bat;
    int64_t B;
    int n = 0, i, j;
    if (!g) return UMAP_ERR_INVALID_ARGUMENT;
    if (g->status != UMAP_OK) return UMAP_ERR_GRAPH;
    if (n_in < 1 || !ins || !batched_ins || n_out < 1 || !outs || !batched_outs) {
        umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "vmap: NULL or empty arguments (at least one batched input)");
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    for (i = 0; i < n_out; i++) {
        if (!outs[i] || outs[i]->graph != g) {
            umap__fail(&g->err, UMAP_ERR_INVALID_ARGUMENT, "vmap: outs[%d] is NULL or foreign", i);
            return UMAP_ERR_INVALID_ARGUMENT;
        }
        if (outs[i]->id + 1 > n) n = outs[i]->id + 1;
    }
    B = batched_ins[0] ? batched_ins[0]->shape.dim[0] : 0;
    for (i = 0; i < n_in; i++) {
        umap_tensor *x = ins[i], *bx = batched_ins[i];
        int ok = x && bx && x->graph == g && bx->graph == g && x->dtype == bx->dtype &&
                 bx->shape.rank == x->shape.rank + 1 && bx->shape.dim[0] == B;
        for (j = 0; ok && j < x->shape.rank; j++) ok = bx->shape.dim[j + 1] == x->shape.dim[j];
        for (j = 0; ok && j < i; j++) ok = ins[j] != x;
        if (!ok) {
            char s[96] = "?", t[96] = "?";
            if (x) umap__shape_str(x->shape, s, sizeof s);
            if (bx) umap__shape_str(bx->shape, t, sizeof t);
            umap__fail(&g->err, UMAP_ERR_SHAPE, "vmap: batched_ins[%d] %s must be [B=%lld, ins[%d] %s], of its dtype, "
                             "in this graph, each input listed once", i, t, (long long)B, i, s);
            return UMAP_ERR_SHAPE;
        }
    }
    bat = (umap_tensor **)umap__calloc(&g->alloc, (size_t)n, sizeof *bat);
    if (!bat) {
        umap__fail(&g->err, UMAP_ERR_OUT_OF_MEMORY, "vmap: out of memory");
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    for (i = 0; i < n_in; i++)
        if (ins[i]->id < n) bat[ins[i]->id] = batched_ins[i];
    /* forward over the nodes that existed before we started; a node none of
       whose sources is batched keeps its one value for every example */
    for (i = 0; i < n && g->status == UMAP_OK; i++) {
        umap_tensor *t = g->nodes[i], *bs[UMAP_MAX_SRC];
        int any = 0;
        if (bat[i] || umap__is_leaf(t->op)) continue;
        for (j = 0; j < t->n_src; j++) any |= (bs[j] = bat[t->src[j]->id]) != NULL;
        if (!any) continue;
        if (t->shape.rank + 1 > UMAP_MAX_RANK) {
            umap__fail(&g->err, UMAP_ERR_SHAPE, "vmap: op '%s' (node %d) has rank %d, its batched form rank %d "
                             "(UMAP_MAX_RANK is %d)", umap__op_names[t->op], t->id, t->shape.rank, t->shape.rank + 1,
                             UMAP_MAX_RANK);
            break;
        }
        bat[i] = umap__vmap_rule(g, t, bs, B);
        if (g->status != UMAP_OK) break;
        if (!bat[i] || bat[i]->dtype != t->dtype || !umap__shape_eq(bat[i]->shape, umap__batched_shape(t->shape, B))) {
            /* a rule that gave another shape would be a silent wrong answer */
            umap__fail(&g->err, UMAP_ERR_NOT_BATCHABLE, "vmap: the batching rule of op '%s' (node %d) gave no "
                             "[B, shape] tensor of its dtype", umap__op_names[t->op], t->id);
            break;
        }
    }
    for (i = 0; i < n_out && g->status == UMAP_OK; i++) {
        umap_tensor *o = outs[i];
        if (bat[o->id]) batched_outs[i] = bat[o->id];
        else if (o->shape.rank + 1 > UMAP_MAX_RANK)
            umap__fail(&g->err, UMAP_ERR_SHAPE, "vmap: outs[%d] has rank %d, its batched form rank %d (UMAP_MAX_RANK "
                             "is %d)", i, o->shape.rank, o->shape.rank + 1, UMAP_MAX_RANK);
        else batched_outs[i] = umap__vmap_repeat(g, o, B); /* the same for every example */
    }
    umap__free(&g->alloc, bat);
    return g->status;
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

/* umap_program_train_attach's state. Backends with a train hook read the
   per-param arrays; the host moments exist only without such a hook. */
typedef struct umap__train_state {
    int n;
    int *leaf;            /* per param: its leaf */
    int *node;            /* per param: its program node, -1 when optimised away */
    int *grad_node;       /* per param: the node of its gradient output */
    int64_t *size, total; /* elements per param, and all of them */
    const float **grads;  /* scratch for the clip norm */
    umap_adam_desc adam;
    float grad_clip;
    float *m, *v;         /* host moments (total each), NULL with a train hook */
    int have_grads;       /* a run has completed since attach */
} umap__train_state;

static umap_result umap__pool_create_tuned(int n_threads, const umap_allocator *alloc, const umap_logger *logger,
                                           umap_pool **out); /* >>tune-cache */

struct umap_program {
    umap_allocator alloc;
    umap_logger logger;
    const umap_backend *backend;
    umap_pool *pool;
    int pool_borrowed;           /* desc.pool: not ours to free */
    unsigned passes;
    int use_blas;               /* umap_compile_desc.use_blas */
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
    void *backend_state;        /* the backend's own, freed by its release hook */
    struct umap__train_state *train;  /* umap_program_train_attach's state, or NULL */
    float *arena;
    int64_t arena_bytes;
    float *workspace;           /* packing space of the portable sgemm */
    int64_t workspace_floats;
    void **owned;               /* folded constants */
    int n_owned, cap_owned;
    umap_program_stats stats;
    umap_profile prof;
    char detail[512];
    umap__err err; /* into detail and the logger */
};

static void umap__train_free(const umap_allocator *a, umap__train_state *t) {
    if (!t) return;
    umap__free(a, t->leaf);
    umap__free(a, t->node);
    umap__free(a, t->grad_node);
    umap__free(a, t->size);
    umap__free(a, (void *)t->grads);
    umap__free(a, t->m);
    umap__free(a, t->v);
    umap__free(a, t);
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

/* >>plan ------------------------------------------------------------------ */

/* does this product of the program take the library's kernel (reproducible
   on any machine), or CBLAS (see umap_compile_desc.use_blas)? */
static int umap__prog_gemm_portable(const umap_program *p, int64_t M, int64_t N, int64_t K) {
    return !p->use_blas || umap__gemm_portable(M, N, K);
}

static int umap__alias_root(const umap_program *p, int i) {
    while (p->storage[i] == UMAP__ST_ALIAS) i = p->nodes[i].src[0];
    return i;
}

/* last[root] = the last step that reads each arena buffer (a caller sets
   last[i] to the step that writes it first); an output stays alive past
   the last step, as the run returns it. The memory plan packs by these
   lifetimes, and the planned stage's picture draws them. */
static void umap__arena_last_use(const umap_program *p, int *last) {
    int s, j, i;
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
    umap__arena_last_use(p, last);
    for (j = 0; j < n_buf; j++) {
        size[j] = (p->nodes[bufs[j]].numel * 4 + 63) / 64 * 64; /* numel <= 2^40: no overflow */
        /* every offset the plan gives is at most this sum: checked once
           here, the arena's size is a size of memory */
        if (size[j] > INT64_MAX - unplanned || (uint64_t)(unplanned + size[j]) > (uint64_t)SIZE_MAX) {
            r = umap__fail(&p->err, UMAP_ERR_TOO_LARGE, "plan: the buffers of %d nodes pass %lld bytes in all",
                                n_buf, (long long)unplanned);
            goto done;
        }
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
            if (umap__prog_gemm_portable(p, M, N, K) && umap__gemm_workspace(N, K) > p->workspace_floats)
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

/* >>compile --------------------------------------------------------------- */

UMAP__FN void **umap_program_backend_state(umap_program *p) { return p ? &p->backend_state : NULL; }

UMAP__FN void umap_program_free(umap_program *p) {
    int i;
    umap_allocator a;
    if (!p) return;
    if (p->backend_state && p->backend && p->backend->release) p->backend->release(p->backend, p);
    a = p->alloc;
    umap__train_free(&a, p->train);
    if (!p->pool_borrowed) umap_pool_free(p->pool);
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

static void umap__dump_env(const umap_program *p, const char *name); /* >>inspect: UMAP_DUMP */

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
        umap__fail(&g->note, UMAP_ERR_INVALID_ARGUMENT, "compile: needs at least one output");
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    for (i = 0; i < n_out; i++)
        if (!outs[i] || outs[i]->graph != g) {
            umap__fail(&g->note, UMAP_ERR_INVALID_ARGUMENT, "compile: output %d is NULL or from another graph", i);
            return UMAP_ERR_INVALID_ARGUMENT;
        }
    n = g->n_nodes; /* the graph as built; DCE drops what the outputs do not need */
    p = (umap_program *)umap__calloc(&g->alloc, 1, sizeof *p);
    if (!p) return UMAP_ERR_OUT_OF_MEMORY;
    p->alloc = g->alloc;
    p->logger = desc && desc->logger.log_fn ? desc->logger : g->logger;
    p->err.detail = p->detail;
    p->err.size = sizeof p->detail;
    p->err.log = &p->logger;
    p->backend = desc && desc->backend ? desc->backend : umap_cpu_backend();
    p->passes = (UMAP_PASS_FOLD | UMAP_PASS_SIMPLIFY | UMAP_PASS_CSE | UMAP_PASS_FUSE | UMAP_PASS_REUSE) &
                ~(desc ? desc->disable_passes : 0u);
    p->profile = desc ? desc->profile : 0;
    p->use_blas = desc ? desc->use_blas : 0;
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
            umap__fail(&g->note, UMAP_ERR_UNSUPPORTED_OP, "compile: backend '%s' has no kernel for op '%s' (node %d)",
                       p->backend->name, nd->op == UMAP_OP_CUSTOM ? nd->custom->name : umap__op_names[nd->op],
                             nd->gid);
            umap_program_free(p);
            return UMAP_ERR_UNSUPPORTED_OP;
        }
    if (desc && desc->pool)
        p->pool = desc->pool, p->pool_borrowed = 1;
    else if ((r = umap__pool_create_tuned(desc ? desc->n_threads : 0, &p->alloc, &p->logger, &p->pool)) != UMAP_OK)
        goto fail;
    umap__log(&p->logger, UMAP_LOG_INFO, "compiled: %d -> %d nodes, %d steps, %d fused regions, arena %lld bytes",
              p->stats.nodes[UMAP_STAGE_BUILT], p->n_nodes, p->n_steps, p->stats.regions, (long long)p->arena_bytes);
    umap__dump_env(p, desc ? desc->name : NULL);
    *out = p;
    return UMAP_OK;
fail:
    umap__fail(&g->note, r, "compile: %s", umap_result_string(r));
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
    return umap__fail(&p->err, UMAP_ERR_UNKNOWN_INPUT, "bind: node %d is not an input or param of this program's graph",
                           t->id);
}

UMAP__FN umap_result umap_program_bind(umap_program *p, const char *name, const void *data, int64_t numel) {
    int s;
    if (!p) return UMAP_ERR_INVALID_ARGUMENT;
    if (!name || !data) return umap__fail(&p->err, UMAP_ERR_INVALID_ARGUMENT, "bind: NULL name or data");
    for (s = 0; s < p->n_leaves; s++)
        if (!strcmp(p->leaves[s].name, name)) {
            int64_t want = p->leaves[s].numel;
            if (numel != want)
                return umap__fail(&p->err, UMAP_ERR_SHAPE, "bind: '%s' holds %lld elements, got %lld", name,
                                       (long long)want, (long long)numel);
            p->leaves[s].data = data;
            return UMAP_OK;
        }
    return umap__fail(&p->err, UMAP_ERR_UNKNOWN_INPUT, "bind: no input or param named '%s'", name);
}

UMAP__FN umap_result umap_program_run(umap_program *p) {
    int i, s;
    if (!p) return UMAP_ERR_INVALID_ARGUMENT;
    for (i = 0; i < p->n_nodes; i++)
        if (p->leaf_of[i] >= 0 && !p->leaves[p->leaf_of[i]].data) {
            const umap__leaf_binding *L = &p->leaves[p->leaf_of[i]];
            return umap__fail(&p->err, L->is_param ? UMAP_ERR_MISSING_PARAM : UMAP_ERR_MISSING_INPUT,
                                   "run: %s '%s' was not bound", L->is_param ? "param" : "input", L->name);
        }
    if (!p->ptr) {
        /* first run: the only allocations a program makes after compile */
        p->ptr = (void **)umap__calloc(&p->alloc, (size_t)p->n_nodes + 1, sizeof(void *));
        if (!p->ptr) return umap__fail(&p->err, UMAP_ERR_OUT_OF_MEMORY, "run: out of memory");
        if (p->arena_bytes && !(p->arena = (float *)umap__alloc(&p->alloc, (size_t)p->arena_bytes))) {
            umap__free(&p->alloc, p->ptr);
            p->ptr = NULL;
            return umap__fail(&p->err, UMAP_ERR_OUT_OF_MEMORY, "run: cannot allocate the %lld-byte arena",
                                   (long long)p->arena_bytes);
        }
        if (p->workspace_floats &&
            !(p->workspace = (float *)umap__alloc(&p->alloc, (size_t)p->workspace_floats * 4))) {
            umap__free(&p->alloc, p->ptr);
            p->ptr = NULL;
            return umap__fail(&p->err, UMAP_ERR_OUT_OF_MEMORY, "run: cannot allocate the sgemm workspace");
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
    if (p->backend->run_program) {
        umap_result r = p->backend->run_program(p->backend, p);
        if (r != UMAP_OK) {
            if (!p->detail[0]) umap__fail(&p->err, r, "run: the %s backend failed: %s", p->backend->name, umap_result_string(r));
            return r;
        }
        p->prof.runs++;
        if (p->train) p->train->have_grads = 1;
        return UMAP_OK;
    }
    for (s = 0; s < p->n_steps; s++) {
        const umap_step *st = &p->steps[s];
        double t0 = p->profile ? umap__now_ms() : 0.0;
        umap_result r = p->backend->run_step(p->backend, p, st);
        if (r != UMAP_OK) {
            if (!p->detail[0]) umap__fail(&p->err, r, "run: step %d failed: %s", s, umap_result_string(r));
            return r;
        }
        if (p->profile) {
            double dt = umap__now_ms() - t0;
            if (st->kind == UMAP__STEP_REGION) { p->prof.region_ms += dt; p->prof.region_calls++; }
            else { p->prof.ms[p->nodes[st->node].op] += dt; p->prof.calls[p->nodes[st->node].op]++; }
        }
    }
    p->prof.runs++;
    if (p->train) p->train->have_grads = 1;
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

/* >>cpu ------------------------------------------------------------------- */

/* --- fused elementwise regions: a block interpreter --- */
typedef struct umap__region_ctx {
    const umap__region *R;
    const float *in[UMAP__REGION_MAX_LOADS];
    float *out;
} umap__region_ctx;

/* The loads that are one value for every element (an immediate, a scalar
   input): their registers filled once for all the blocks of a range. */
static void umap__region_consts(const umap__region_ctx *c, float *scratch) {
    const umap__region *R = c->R;
    int l, j;
    for (l = 0; l < R->n_loads; l++) {
        const umap__load *L = &R->loads[l];
        float *buf = scratch + (size_t)L->reg * UMAP__BLOCK, v;
        if (L->kind != UMAP__LOAD_IMM && L->kind != UMAP__LOAD_SCALAR) continue;
        v = L->kind == UMAP__LOAD_IMM ? L->imm : c->in[l][0];
        for (j = 0; j < UMAP__BLOCK; j++) buf[j] = v;
    }
}

/* elements [e0, e0 + n) of the region, n <= UMAP__BLOCK, in registers of
   scratch (its constant registers filled by umap__region_consts) */
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
        case UMAP__LOAD_IMM:
        case UMAP__LOAD_SCALAR: reg[L->reg] = buf; break; /* umap__region_consts filled it */
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
                if (L->stride[3]) { /* the last axis is contiguous (stride 1) or broadcast (0) */
                    memcpy(buf + j, src + off, (size_t)run * sizeof(float));
                } else {
                    float v = src[off];
                    for (k = 0; k < run; k++) buf[j + k] = v;
                }
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
    umap__region_consts((const umap__region_ctx *)ctx, scratch);
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
    int64_t outer, inner;         /* the contiguous fast paths: reduced rows, row width */
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

/* reduced axes form one contiguous block, not at the end: the input is
   blocks x `outer` rows x `inner` columns, and each output sums a column of
   its block, in row order (the general case's order, so the same bits).
   Outputs [o0, o1), at most UMAP__REDUCE_COLUMNS of them (the task size),
   may span blocks. */
#define UMAP__REDUCE_COLUMNS 256
static void umap__reduce_columns(void *ctx, int64_t o0, int64_t o1) {
    const umap__reduce_ctx *c = (const umap__reduce_ctx *)ctx;
    double acc[UMAP__REDUCE_COLUMNS];
    float mx[UMAP__REDUCE_COLUMNS];
    unsigned char nan[UMAP__REDUCE_COLUMNS];
    int64_t o, r, j, w;
    for (o = o0; o < o1; o += w) {
        int64_t block = o / c->inner, j0 = o % c->inner;
        const float *x = c->x + block * c->outer * c->inner + j0;
        w = o1 - o < c->inner - j0 ? o1 - o : c->inner - j0;
        for (j = 0; j < w; j++) { acc[j] = 0.0; mx[j] = -INFINITY; nan[j] = 0; }
        for (r = 0; r < c->outer; r++) {
            const float *row = x + r * c->inner;
            if (c->op == UMAP_OP_RMAX) {
                for (j = 0; j < w; j++) {
                    if (row[j] != row[j]) nan[j] = 1;
                    else if (row[j] > mx[j]) mx[j] = row[j];
                }
            } else
                for (j = 0; j < w; j++) acc[j] += row[j];
        }
        for (j = 0; j < w; j++)
            c->y[o + j] = c->op == UMAP_OP_RMAX ? (nan[j] ? NAN : mx[j])
                          : c->op == UMAP_OP_MEAN ? (float)(acc[j] / (double)c->outer) : (float)acc[j];
    }
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
    /* one contiguous block of reduced axes (size-1 axes aside): at the back,
       each output sums a contiguous run; elsewhere, columns of rows */
    {
        int contiguous = 1;
        int64_t inner = 1;
        for (q = lo; q <= hi; q++)
            if (!(c.axes & (1u << q)) && c.dim[q] != 1) contiguous = 0;
        for (q = hi + 1; q < UMAP_MAX_RANK; q++) inner *= c.dim[q];
        if (contiguous && inner == 1) {
            c.inner = c.count;
            umap__parallel_range(pool, n_out, 1 + 16384 / c.count, umap__reduce_suffix, &c);
            return;
        }
        if (contiguous) {
            c.outer = c.count;
            c.inner = inner;
            umap__parallel_range(pool, n_out, UMAP__REDUCE_COLUMNS, umap__reduce_columns, &c);
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
            return umap__fail(&p->err, UMAP_ERR_INDEX_OUT_OF_RANGE, "%s: index %lld at position %lld is outside [0, %lld)",
                                   op, (long long)idx[m], (long long)m, (long long)limit);
    return UMAP_OK;
}

/* One elementwise node as a region of one instruction whose sources load
   with broadcasting strides (constant folding, and backends that run a lone
   elementwise node through their region kernel). */
static void umap__single_op_region(const umap__pnode *nodes, const umap__pnode *n, umap__region *R) {
    int s, q;
    memset(R, 0, sizeof *R);
    R->numel = n->numel;
    for (q = 0; q < UMAP_MAX_RANK; q++) R->dim[q] = 1;
    for (q = 0; q < n->shape.rank; q++) R->dim[UMAP_MAX_RANK - n->shape.rank + q] = n->shape.dim[q];
    for (s = 0; s < n->n_src; s++) {
        const umap__pnode *sn = &nodes[n->src[s]];
        umap__load *L = &R->loads[s];
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
    }
    R->n_loads = n->n_src;
    R->n_ins = R->n_nodes = 1;
    R->ins[0].op = n->op;
    R->ins[0].dst = 0;
    R->ins[0].a = UMAP__REGION_MAX_NODES;
    R->ins[0].b = UMAP__REGION_MAX_NODES + (n->n_src > 1 ? 1 : 0);
    R->ins[0].c = UMAP__REGION_MAX_NODES + (n->n_src > 2 ? 2 : 0);
    R->ins[0].f0 = n->fp[0];
    R->ins[0].f1 = n->fp[1];
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
        int s;
        umap__single_op_region(nodes, n, &R);
        for (s = 0; s < n->n_src; s++) c.in[s] = (const float *)src[s];
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
        int portable = umap__prog_gemm_portable(p, M, N, K);
        if (!ws && portable) { /* constant folding runs before the workspace exists */
            tmp = ws = (float *)umap__alloc(&p->alloc, (size_t)umap__gemm_workspace(N, K) * 4);
            if (!ws) return UMAP_ERR_OUT_OF_MEMORY;
        }
        for (bi = 0; bi < batch; bi++) {
            const float *ab = (const float *)src[0] + bi * a_step, *bb = (const float *)src[1] + bi * b_step;
            if (portable) umap__sgemm_pool(pool, ta, tb, M, N, K, ab, bb, (float *)out + bi * M * N, ws);
            else umap__sgemm(pool, ta, tb, M, N, K, ab, bb, (float *)out + bi * M * N, ws);
        }
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
            return umap__fail(&p->err, r, "custom op '%s' failed: %s", n->custom->name,
                                   umap_result_string(r));
        return UMAP_OK;
    }
    default:
        return umap__fail(&p->err, UMAP_ERR_UNSUPPORTED_OP, "cpu: no kernel for op '%s'", umap__op_names[n->op]);
    }
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

/* The CPU's table, filled by member name: C99's designators; C++ before
   C++20 has none, so there the same names are assigned by a function that
   runs while the program starts, before any thread of the caller's. */
#ifdef __cplusplus
static umap_backend umap__cpu_backend_fill(void) {
    umap_backend be = umap_backend();
    be.name = "cpu";
    be.supports = umap__cpu_supports;
    be.run_step = umap__cpu_run_step;
    return be;
}
static const umap_backend umap__cpu_backend_table = umap__cpu_backend_fill();
#else
static const umap_backend umap__cpu_backend_table = {.name = "cpu", .supports = umap__cpu_supports,
                                                     .run_step = umap__cpu_run_step};
#endif
UMAP__FN const umap_backend *umap_cpu_backend(void) { return &umap__cpu_backend_table; }
UMAP__FN umap_op umap_step_op(const umap_step *st) { return st ? st->op : UMAP_OP_COUNT; }

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

static const char *const umap__stage_names[UMAP_STAGE_COUNT] = {"built", "optimized", "fused"};

UMAP__FN void umap_program_dump(const umap_program *p, umap_stage stage, FILE *f) {
    int i, s;
    if (!p || !f || (int)stage < 0 || stage >= UMAP_STAGE_COUNT || !p->stage[stage]) return;
    fprintf(f, "stage %s: %d nodes, outputs", umap__stage_names[stage], p->stage_n[stage]);
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

/* >>inspect pictures: SVG of a stage and of the diff between two stages.
   Every picture is one view (boxes with two label lines, a fill, and edges
   to their sources) drawn by one layered layout, so stages and diffs look
   alike. The layout is Sugiyama's in miniature: a node sits one layer below
   its deepest source (a leaf just above its first consumer), then sweeps
   down and up order each layer by the mean position of its neighbours,
   which untangles most of an MLP's crossings. No graphviz needed. */

#define UMAP__SVG_BOX_W 200
#define UMAP__SVG_BOX_H 38
#define UMAP__SVG_GAP_X 24
#define UMAP__SVG_GAP_Y 46
#define UMAP__SVG_MARGIN 20
#define UMAP__SVG_HEAD 60        /* the title and the legend above the graph */
#define UMAP__SVG_LINE_CHARS 30  /* a label line is cut there in the box; its <title> keeps it whole */
#define UMAP__SVG_LANE_H 200     /* the memory chart's height */

typedef struct umap__svg_box {
    char line[2][128];
    const char *fill;
    int dashed, bold;
    int n_src;
    int src[UMAP_MAX_SRC];       /* view indices of its sources */
    int layer, slot;
    double key, x, y;
} umap__svg_box;

typedef struct umap__svg_legend {
    const char *fill, *text;
} umap__svg_legend;

/* pastel colours, one per kernel (cycled), so a fused kernel's ops share one */
static const char *const umap__svg_palette[] = {"#a5d8ff", "#b2f2bb", "#ffd8a8", "#d0bfff", "#fcc2d7", "#99e9f2",
                                                "#ffec99", "#c0eb75", "#eebefa", "#ffc9c9", "#96f2d7", "#bac8ff"};
#define UMAP__SVG_PALETTE_N ((int)(sizeof umap__svg_palette / sizeof umap__svg_palette[0]))
#define UMAP__SVG_INPUT "#dbe4ff"
#define UMAP__SVG_PARAM "#fff3bf"
#define UMAP__SVG_CONST "#e9ecef"
#define UMAP__SVG_COMPUTE "#d3f9d8"
#define UMAP__SVG_PLAIN "#ffffff"

static int umap__stage_ok(const umap_program *p, umap_stage stage) {
    return p && (int)stage >= 0 && stage < UMAP_STAGE_COUNT && p->stage[stage];
}

/* the length of the well-formed UTF-8 sequence at s (RFC 3629: no
   overlong forms, no surrogates, nothing past U+10FFFF), or 0 */
static int umap__utf8_len(const unsigned char *s) {
    int n, k;
    unsigned char lo = 0x80, hi = 0xBF;
    if (s[0] < 0x80) return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF) n = 2;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF) n = 3, lo = s[0] == 0xE0 ? 0xA0 : 0x80, hi = s[0] == 0xED ? 0x9F : 0xBF;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4) n = 4, lo = s[0] == 0xF0 ? 0x90 : 0x80, hi = s[0] == 0xF4 ? 0x8F : 0xBF;
    else return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (k = 2; k < n; k++)
        if (s[k] < 0x80 || s[k] > 0xBF) return 0;
    return n;
}

/* XML text from any bytes (a leaf's name is the caller's): the five
   characters XML reserves become entities, control bytes (not allowed in
   XML 1.0) and bytes that are not UTF-8 a '?'; past max bytes "..." marks
   a cut, which never splits a character */
static void umap__xml_text(FILE *f, const char *s, size_t max) {
    const unsigned char *c = (const unsigned char *)s;
    size_t i = 0;
    while (c[i]) {
        int len = umap__utf8_len(c + i);
        if (i + (len ? (size_t)len : 1) > max) { fputs("...", f); return; }
        switch (c[i]) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if (c[i] < 0x20 || len == 0) fputc('?', f);
            else fwrite(c + i, 1, (size_t)len, f);
        }
        i += len ? (size_t)len : 1;
    }
}

/* "%3 matmul [32,24]" (i32 named, f32 the default) */
static void umap__pnode_title(const umap__pnode *n, int i, char *buf, size_t size) {
    char s[96];
    umap__shape_str(n->shape, s, sizeof s);
    snprintf(buf, size, "%%%d %s %s%s", i, umap__pnode_opname(n), n->dtype == UMAP_I32 ? "i32" : "", s);
}

/* the op's parameters as the text dump prints them, or the leaf's name */
static void umap__pnode_detail(const umap_program *p, const umap__pnode *n, char *buf, size_t size) {
    umap_tensor t;
    memset(&t, 0, sizeof t);
    t.op = n->op; t.shape = n->shape; t.fp[0] = n->fp[0]; t.fp[1] = n->fp[1]; t.lp[0] = n->lp[0]; t.lp[1] = n->lp[1];
    memcpy(t.ip, n->ip, sizeof t.ip);
    if (n->leaf >= 0) snprintf(buf, size, "%s \"%s\"", n->op == UMAP_OP_PARAM ? "param" : "input", umap__pnode_label(p, n));
    else umap__node_params_str(&t, buf, size);
}

static const char *umap__pnode_fill(const umap__pnode *n) {
    if (n->op == UMAP_OP_INPUT) return UMAP__SVG_INPUT;
    if (n->op == UMAP_OP_PARAM) return UMAP__SVG_PARAM;
    if (umap__is_leaf(n->op)) return UMAP__SVG_CONST;
    return umap__is_elementwise(n->op) ? UMAP__SVG_PLAIN : UMAP__SVG_COMPUTE;
}

/* mean key of i's drawn neighbours (sources going down, consumers going up); -1e300 when none */
static double umap__svg_mean(const umap__svg_box *b, int i, const int *cfirst, const int *cons, int down) {
    double sum = 0;
    int j, k = 0;
    if (down)
        for (j = 0; j < b[i].n_src; j++) { sum += b[b[i].src[j]].key; k++; }
    else
        for (j = cfirst[i]; j < cfirst[i + 1]; j++) { sum += b[cons[j]].key; k++; }
    return k ? sum / k : -1e300;
}

/* orders one layer by its neighbours (a stable insertion sort); a node
   without neighbours on that side keeps its key; keys become centred slots */
static void umap__svg_order_layer(umap__svg_box *b, int *members, int m, const int *cfirst, const int *cons, int down) {
    int a, c;
    for (a = 0; a < m; a++) {
        double k = umap__svg_mean(b, members[a], cfirst, cons, down);
        if (k > -1e299) b[members[a]].key = k;
    }
    for (a = 1; a < m; a++) {
        int v = members[a];
        for (c = a; c > 0 && b[members[c - 1]].key > b[v].key; c--) members[c] = members[c - 1];
        members[c] = v;
    }
    for (a = 0; a < m; a++) {
        b[members[a]].slot = a;
        b[members[a]].key = a - (m - 1) / 2.0;
    }
}

/* Places every box (x, y) and returns the drawing's width and height (the
   graph only, from y = 0). Sources must come before their consumers. */
static umap_result umap__svg_layout(const umap_allocator *al, umap__svg_box *b, int n, double *width, double *height) {
    int i, j, L, n_layers = 0, widest = 1, sweep, total = 0;
    int *cfirst = (int *)umap__calloc(al, (size_t)n + 2, sizeof(int));
    int *lfirst = (int *)umap__calloc(al, (size_t)n + 2, sizeof(int));
    int *members = (int *)umap__calloc(al, (size_t)n + 1, sizeof(int));
    int *cons = NULL, *fill = (int *)umap__calloc(al, (size_t)n + 1, sizeof(int));
    umap_result r = UMAP_OK;
    if (!cfirst || !lfirst || !members || !fill) { r = UMAP_ERR_OUT_OF_MEMORY; goto done; }
    for (i = 0; i < n; i++) total += b[i].n_src;
    cons = (int *)umap__calloc(al, (size_t)total + 1, sizeof(int));
    if (!cons) { r = UMAP_ERR_OUT_OF_MEMORY; goto done; }
    for (i = 0; i < n; i++)
        for (j = 0; j < b[i].n_src; j++) cfirst[b[i].src[j] + 1]++;
    for (i = 0; i < n; i++) cfirst[i + 1] += cfirst[i];
    for (i = 0; i < n; i++)
        for (j = 0; j < b[i].n_src; j++) { int s = b[i].src[j]; cons[cfirst[s] + fill[s]++] = i; }
    for (i = 0; i < n; i++) {
        b[i].layer = 0;
        for (j = 0; j < b[i].n_src; j++)
            if (b[b[i].src[j]].layer + 1 > b[i].layer) b[i].layer = b[b[i].src[j]].layer + 1;
    }
    /* a leaf waits just above its first consumer rather than in the top row */
    for (i = 0; i < n; i++)
        if (b[i].n_src == 0 && cfirst[i + 1] > cfirst[i]) {
            int lowest = 1 << 30;
            for (j = cfirst[i]; j < cfirst[i + 1]; j++)
                if (b[cons[j]].layer < lowest) lowest = b[cons[j]].layer;
            b[i].layer = lowest - 1;
        }
    for (i = 0; i < n; i++) {
        if (b[i].layer + 1 > n_layers) n_layers = b[i].layer + 1;
        lfirst[b[i].layer + 1]++;
    }
    for (L = 0; L < n_layers; L++) lfirst[L + 1] += lfirst[L];
    memset(fill, 0, ((size_t)n + 1) * sizeof(int));
    for (i = 0; i < n; i++) members[lfirst[b[i].layer] + fill[b[i].layer]++] = i;
    for (L = 0; L < n_layers; L++) {
        int m = lfirst[L + 1] - lfirst[L];
        if (m > widest) widest = m;
        for (j = 0; j < m; j++) b[members[lfirst[L] + j]].key = j - (m - 1) / 2.0, b[members[lfirst[L] + j]].slot = j;
    }
    for (sweep = 0; sweep < 2; sweep++) {
        for (L = 1; L < n_layers; L++)
            umap__svg_order_layer(b, members + lfirst[L], lfirst[L + 1] - lfirst[L], cfirst, cons, 1);
        for (L = n_layers - 2; L >= 0; L--)
            umap__svg_order_layer(b, members + lfirst[L], lfirst[L + 1] - lfirst[L], cfirst, cons, 0);
    }
    for (i = 0; i < n; i++) {
        int m = lfirst[b[i].layer + 1] - lfirst[b[i].layer];
        b[i].x = UMAP__SVG_MARGIN + (b[i].slot + (widest - m) / 2.0) * (UMAP__SVG_BOX_W + UMAP__SVG_GAP_X);
        b[i].y = UMAP__SVG_HEAD + b[i].layer * (UMAP__SVG_BOX_H + UMAP__SVG_GAP_Y);
    }
    *width = 2 * UMAP__SVG_MARGIN + widest * (UMAP__SVG_BOX_W + UMAP__SVG_GAP_X) - UMAP__SVG_GAP_X;
    *height = UMAP__SVG_HEAD + n_layers * (UMAP__SVG_BOX_H + UMAP__SVG_GAP_Y);
done:
    umap__free(al, cfirst);
    umap__free(al, lfirst);
    umap__free(al, members);
    umap__free(al, cons);
    umap__free(al, fill);
    return r;
}

static void umap__svg_begin(FILE *f, double width, double height, const char *title, const umap__svg_legend *legend,
                            int n_legend) {
    int i;
    double x = UMAP__SVG_MARGIN;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
               "font-family=\"monospace\" font-size=\"11\">\n",
            width, height, width, height);
    fprintf(f, "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" "
               "markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#495057\"/></marker></defs>\n");
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%d\" y=\"22\" font-size=\"14\" "
               "font-weight=\"bold\">",
            UMAP__SVG_MARGIN);
    umap__xml_text(f, title, 200);
    fprintf(f, "</text>\n");
    for (i = 0; i < n_legend; i++) {
        fprintf(f, "<rect x=\"%.0f\" y=\"32\" width=\"14\" height=\"12\" fill=\"%s\" stroke=\"#495057\"/>", x,
                legend[i].fill);
        fprintf(f, "<text x=\"%.0f\" y=\"42\">", x + 18);
        umap__xml_text(f, legend[i].text, 80);
        fprintf(f, "</text>\n");
        x += 26 + 7.0 * (double)strlen(legend[i].text);
    }
}

static void umap__svg_graph(FILE *f, const umap__svg_box *b, int n) {
    int i, j;
    fprintf(f, "<g fill=\"none\" stroke=\"#868e96\" stroke-width=\"1\">\n");
    for (i = 0; i < n; i++)
        for (j = 0; j < b[i].n_src; j++) {
            const umap__svg_box *s = &b[b[i].src[j]];
            double x1 = s->x + UMAP__SVG_BOX_W / 2.0, y1 = s->y + UMAP__SVG_BOX_H;
            double x2 = b[i].x + UMAP__SVG_BOX_W / 2.0, y2 = b[i].y, mid = (y2 - y1) / 2;
            fprintf(f, "<path d=\"M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f\" marker-end=\"url(#arrow)\"/>\n", x1, y1,
                    x1, y1 + mid, x2, y2 - mid, x2, y2);
        }
    fprintf(f, "</g>\n");
    for (i = 0; i < n; i++) {
        fprintf(f, "<g><title>");
        umap__xml_text(f, b[i].line[0], sizeof b[i].line[0]);
        fputc('\n', f);
        umap__xml_text(f, b[i].line[1], sizeof b[i].line[1]);
        fprintf(f, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" rx=\"4\" fill=\"%s\" stroke=\"%s\" "
                   "stroke-width=\"%d\"%s/>",
                b[i].x, b[i].y, UMAP__SVG_BOX_W, UMAP__SVG_BOX_H, b[i].fill, b[i].bold ? "#000000" : "#495057",
                b[i].bold ? 3 : 1, b[i].dashed ? " stroke-dasharray=\"4,3\"" : "");
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", b[i].x + 6, b[i].y + 15);
        umap__xml_text(f, b[i].line[0], UMAP__SVG_LINE_CHARS);
        fprintf(f, "</text><text x=\"%.1f\" y=\"%.1f\" fill=\"#495057\">", b[i].x + 6, b[i].y + 30);
        umap__xml_text(f, b[i].line[1], UMAP__SVG_LINE_CHARS);
        fprintf(f, "</text></g>\n");
    }
}

/* the step that computes each node (-1: none, it is bound, inlined or an alias) */
static void umap__step_of_nodes(const umap_program *p, int *step_of) {
    int i, s;
    for (i = 0; i < p->n_nodes; i++) step_of[i] = -1;
    for (s = 0; s < p->n_steps; s++) step_of[p->steps[s].node] = s;
}

/* The planned stage's memory lanes: x is the step, y the arena offset, one
   bar per buffer from the step that writes it to the last that reads it (the
   plan's liveness, recomputed here: the plan keeps only the offsets). */
static umap_result umap__svg_lanes(FILE *f, const umap_program *p, const int *step_of, double top, double width) {
    int i, n = p->n_nodes;
    int *last = (int *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof(int));
    double cw, scale, left = UMAP__SVG_MARGIN + 60;
    if (!last) return UMAP_ERR_OUT_OF_MEMORY;
    for (i = 0; i < n; i++) last[i] = step_of[i];
    umap__arena_last_use(p, last);
    cw = (width - left - UMAP__SVG_MARGIN) / (p->n_steps + 1);
    scale = p->arena_bytes > 0 ? UMAP__SVG_LANE_H / (double)p->arena_bytes : 0;
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"13\" font-weight=\"bold\">memory plan: arena %lld bytes "
               "(%lld without reuse)</text>\n<text x=\"%d\" y=\"%.1f\">a bar is a buffer: x from the kernel that "
               "writes it to the last that reads it, y its offset</text>\n",
            UMAP__SVG_MARGIN, top - 26, (long long)p->arena_bytes, (long long)p->stats.unplanned_bytes,
            UMAP__SVG_MARGIN, top - 10);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"#f8f9fa\" stroke=\"#adb5bd\"/>\n", left,
            top, cw * (p->n_steps + 1), UMAP__SVG_LANE_H);
    fprintf(f, "<text x=\"%d\" y=\"%.1f\">+0</text><text x=\"%d\" y=\"%.1f\">+%lld</text>\n", UMAP__SVG_MARGIN, top + 10,
            UMAP__SVG_MARGIN, top + UMAP__SVG_LANE_H, (long long)p->arena_bytes);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">kernel 0</text><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">returned</text>\n",
            left, top + UMAP__SVG_LANE_H + 14, left + cw * (p->n_steps + 1), top + UMAP__SVG_LANE_H + 14);
    for (i = 0; i < n; i++) {
        double x, y, w, h;
        char title[160];
        if (p->storage[i] != UMAP__ST_ARENA) continue;
        x = left + step_of[i] * cw;
        w = (last[i] - step_of[i] + 1) * cw;
        y = top + p->offset[i] * scale;
        h = ((p->nodes[i].numel * 4 + 63) / 64 * 64) * scale;
        if (h < 1) h = 1;
        umap__pnode_title(&p->nodes[i], i, title, sizeof title);
        fprintf(f, "<g><title>");
        umap__xml_text(f, title, sizeof title);
        fprintf(f, ": steps %d..%d, %lld bytes at arena+%lld</title>", step_of[i], last[i],
                (long long)p->nodes[i].numel * 4, (long long)p->offset[i]);
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"#495057\" "
                   "stroke-width=\"0.5\"/>",
                x, y, w, h, umap__svg_palette[step_of[i] % UMAP__SVG_PALETTE_N]);
        if (w > 34 && h > 12) fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%%%d</text>", x + 3, y + h / 2 + 4, i);
        fprintf(f, "</g>\n");
    }
    umap__free(&p->alloc, last);
    return UMAP_OK;
}

/* the view of one stage; the fused stage adds kernels and memory */
static void umap__svg_stage_view(const umap_program *p, umap_stage stage, const int *step_of, umap__svg_box *b) {
    const umap__pnode *nodes = p->stage[stage];
    int i, j;
    for (i = 0; i < p->stage_n[stage]; i++) {
        const umap__pnode *n = &nodes[i];
        umap__svg_box *x = &b[i];
        memset(x, 0, sizeof *x);
        umap__pnode_title(n, i, x->line[0], sizeof x->line[0]);
        x->n_src = n->n_src;
        for (j = 0; j < n->n_src; j++) x->src[j] = n->src[j];
        for (j = 0; j < p->n_outputs; j++) x->bold |= p->stage_outputs[stage][j] == i;
        x->fill = umap__pnode_fill(n);
        if (stage != UMAP_STAGE_FUSED) {
            umap__pnode_detail(p, n, x->line[1], sizeof x->line[1]);
            continue;
        }
        switch (p->storage[i]) {
        case UMAP__ST_ARENA:
            snprintf(x->line[1], sizeof x->line[1], "kernel %d @%lld", step_of[i], (long long)p->offset[i]);
            x->fill = umap__svg_palette[step_of[i] % UMAP__SVG_PALETTE_N];
            break;
        case UMAP__ST_BOUND: umap__pnode_detail(p, n, x->line[1], sizeof x->line[1]); break;
        case UMAP__ST_DATA: snprintf(x->line[1], sizeof x->line[1], "const, the program's copy"); break;
        case UMAP__ST_ALIAS:
            snprintf(x->line[1], sizeof x->line[1], "alias of %%%d", umap__alias_root(p, i));
            x->dashed = 1;
            break;
        default:
            if (umap__is_elementwise(n->op) && p->region_of[i] >= 0) {
                int root = p->regions[p->region_of[i]].root;
                snprintf(x->line[1], sizeof x->line[1], "in kernel %d (fused)", step_of[root]);
                x->fill = umap__svg_palette[step_of[root] % UMAP__SVG_PALETTE_N];
            } else {
                snprintf(x->line[1], sizeof x->line[1], n->op == UMAP_OP_FILL ? "fill %g, inlined" : "no memory",
                         (double)n->fp[0]);
            }
            x->dashed = 1;
        }
    }
}

UMAP__FN umap_result umap_program_svg(const umap_program *p, umap_stage stage, FILE *f) {
    static const umap__svg_legend kinds[] = {{UMAP__SVG_INPUT, "input"}, {UMAP__SVG_PARAM, "param"},
                                             {UMAP__SVG_CONST, "constant"}, {UMAP__SVG_PLAIN, "elementwise"},
                                             {UMAP__SVG_COMPUTE, "other op"}};
    static const umap__svg_legend fused[] = {{UMAP__SVG_INPUT, "input"}, {UMAP__SVG_PARAM, "param"},
                                             {UMAP__SVG_CONST, "constant"},
                                             {"#a5d8ff", "one colour per kernel; dashed: no memory of its own"}};
    umap__svg_box *b;
    int *step_of = NULL, n;
    double w, h;
    char title[160];
    umap_result r;
    if (!umap__stage_ok(p, stage) || !f) return UMAP_ERR_INVALID_ARGUMENT;
    n = p->stage_n[stage];
    b = (umap__svg_box *)umap__calloc(&p->alloc, (size_t)n + 1, sizeof *b);
    step_of = (int *)umap__calloc(&p->alloc, (size_t)p->n_nodes + 1, sizeof(int));
    if (!b || !step_of) { r = UMAP_ERR_OUT_OF_MEMORY; goto done; }
    umap__step_of_nodes(p, step_of);
    umap__svg_stage_view(p, stage, step_of, b);
    if ((r = umap__svg_layout(&p->alloc, b, n, &w, &h)) != UMAP_OK) goto done;
    if (stage == UMAP_STAGE_FUSED) {
        snprintf(title, sizeof title, "stage fused: %d nodes, %d kernels (%d fused regions), arena %lld bytes", n,
                 p->n_steps, p->stats.regions, (long long)p->arena_bytes);
        if (w < 900) w = 900;
        umap__svg_begin(f, w, h + 50 + UMAP__SVG_LANE_H + 30, title, fused, 4);
    } else {
        snprintf(title, sizeof title, "stage %s: %d nodes", umap__stage_names[stage], n);
        umap__svg_begin(f, w, h, title, kinds, 5);
    }
    umap__svg_graph(f, b, n);
    if (stage == UMAP_STAGE_FUSED && (r = umap__svg_lanes(f, p, step_of, h + 50, w)) != UMAP_OK) goto done;
    fprintf(f, "</svg>\n");
    r = ferror(f) ? UMAP_ERR_IO : UMAP_OK;
done:
    umap__free(&p->alloc, b);
    umap__free(&p->alloc, step_of);
    return r;
}

/* >>inspect diff: what happened to each node of one stage in another. A
   node keeps its graph id (gid) through every pass, so the two stages are
   matched by it; a node gone from the later stage is "dead" when the
   outputs never needed it (DCE) and "replaced" when they did: an equal
   node (CSE), an algebraic identity or a fold took its place, or only
   nodes so replaced read it. The passes keep no log, so the two are told
   apart by what the earlier stage's outputs need. */

enum { UMAP__FATE_KEPT, UMAP__FATE_DEAD, UMAP__FATE_REPLACED, UMAP__FATE_FOLDED, UMAP__FATE_REWRITTEN,
       UMAP__FATE_FUSED, UMAP__FATE_ADDED, UMAP__FATE_COUNT };
static const umap__svg_legend umap__fates[UMAP__FATE_COUNT] = {
    {UMAP__SVG_PLAIN, "kept"},     {"#ffc9c9", "dead"},  {"#ffd8a8", "replaced"}, {UMAP__SVG_CONST, "folded"},
    {"#ffec99", "rewritten"},      {"#a5d8ff", "fused"}, {"#b2f2bb", "added"}};

typedef struct umap__diff {
    int n_a, n_b, n_view;
    int *fate;       /* per view node: UMAP__FATE_* (stage a's nodes, then the nodes only b has) */
    int *other;      /* per view node: its index in the other stage (a's node: in b; an added one: in b) */
    int *kernel;     /* per view node: its fused kernel (a step), or -1 */
    int count[UMAP__FATE_COUNT];
} umap__diff;

static void umap__diff_free(const umap_program *p, umap__diff *d) {
    umap__free(&p->alloc, d->fate);
    umap__free(&p->alloc, d->other);
    umap__free(&p->alloc, d->kernel);
}

static umap_result umap__diff_build(const umap_program *p, umap_stage sa, umap_stage sb, umap__diff *d) {
    const umap__pnode *A = p->stage[sa], *B = p->stage[sb];
    int i, j, max_gid = 0;
    int *b_of_gid = NULL, *needed = NULL, *step_of = NULL;
    umap_result r = UMAP_OK;
    memset(d, 0, sizeof *d);
    d->n_a = p->stage_n[sa];
    d->n_b = p->stage_n[sb];
    for (i = 0; i < d->n_a; i++) if (A[i].gid > max_gid) max_gid = A[i].gid;
    for (i = 0; i < d->n_b; i++) if (B[i].gid > max_gid) max_gid = B[i].gid;
    d->fate = (int *)umap__calloc(&p->alloc, (size_t)(d->n_a + d->n_b) + 1, sizeof(int));
    d->other = (int *)umap__calloc(&p->alloc, (size_t)(d->n_a + d->n_b) + 1, sizeof(int));
    d->kernel = (int *)umap__calloc(&p->alloc, (size_t)(d->n_a + d->n_b) + 1, sizeof(int));
    b_of_gid = (int *)umap__calloc(&p->alloc, (size_t)max_gid + 2, sizeof(int));
    needed = (int *)umap__calloc(&p->alloc, (size_t)d->n_a + 1, sizeof(int));
    step_of = (int *)umap__calloc(&p->alloc, (size_t)p->n_nodes + 1, sizeof(int));
    if (!d->fate || !d->other || !d->kernel || !b_of_gid || !needed || !step_of) {
        r = UMAP_ERR_OUT_OF_MEMORY;
        goto done;
    }
    umap__step_of_nodes(p, step_of);
    for (i = 0; i <= max_gid; i++) b_of_gid[i] = -1;
    for (i = 0; i < d->n_b; i++) b_of_gid[B[i].gid] = i;
    for (i = 0; i < p->n_outputs; i++) needed[p->stage_outputs[sa][i]] = 1;
    for (i = d->n_a - 1; i >= 0; i--)
        if (needed[i])
            for (j = 0; j < A[i].n_src; j++) needed[A[i].src[j]] = 1;
    for (i = 0; i < d->n_a; i++) {
        int k = b_of_gid[A[i].gid], f = UMAP__FATE_KEPT;
        d->other[i] = k;
        d->kernel[i] = -1;
        if (k < 0) f = needed[i] ? UMAP__FATE_REPLACED : UMAP__FATE_DEAD;
        else if (B[k].op != A[i].op) f = B[k].op == UMAP_OP_CONST || B[k].op == UMAP_OP_FILL ? UMAP__FATE_FOLDED
                                                                                            : UMAP__FATE_REWRITTEN;
        else if (sb == UMAP_STAGE_FUSED && sa != UMAP_STAGE_FUSED && p->region_of[k] >= 0 &&
                 p->regions[p->region_of[k]].n_nodes >= 2) {
            f = UMAP__FATE_FUSED;
            d->kernel[i] = step_of[p->regions[p->region_of[k]].root];
        }
        d->fate[i] = f;
        d->count[f]++;
    }
    /* the later stage's nodes the earlier lacks (no pass makes one today, but a diff may run backwards) */
    {
        int *a_of_gid = b_of_gid;
        for (i = 0; i <= max_gid; i++) a_of_gid[i] = -1;
        for (i = 0; i < d->n_a; i++) a_of_gid[A[i].gid] = i;
        d->n_view = d->n_a;
        for (i = 0; i < d->n_b; i++)
            if (a_of_gid[B[i].gid] < 0) {
                d->fate[d->n_view] = UMAP__FATE_ADDED;
                d->other[d->n_view] = i;
                d->kernel[d->n_view] = -1;
                d->n_view++;
                d->count[UMAP__FATE_ADDED]++;
            }
    }
done:
    umap__free(&p->alloc, b_of_gid);
    umap__free(&p->alloc, needed);
    umap__free(&p->alloc, step_of);
    if (r != UMAP_OK) umap__diff_free(p, d);
    return r;
}

/* what became of view node v, after its fate's name */
static void umap__diff_note(const umap__diff *d, int v, const umap__pnode *B, char *buf, size_t size) {
    const umap__pnode *to = d->other[v] >= 0 ? &B[d->other[v]] : NULL;
    switch (d->fate[v]) {
    case UMAP__FATE_DEAD: snprintf(buf, size, "no output needs it"); break;
    case UMAP__FATE_REPLACED: snprintf(buf, size, "CSE, an identity or a fold"); break;
    case UMAP__FATE_FOLDED:
    case UMAP__FATE_REWRITTEN: snprintf(buf, size, "-> %%%d %s", d->other[v], umap__pnode_opname(to)); break;
    case UMAP__FATE_FUSED: snprintf(buf, size, "-> %%%d in kernel %d", d->other[v], d->kernel[v]); break;
    case UMAP__FATE_ADDED: snprintf(buf, size, "only in the later stage"); break;
    default: snprintf(buf, size, "-> %%%d", d->other[v]);
    }
}

UMAP__FN umap_result umap_program_diff(const umap_program *p, umap_stage from, umap_stage to, FILE *f) {
    static const char marks[UMAP__FATE_COUNT] = {'=', '-', '-', '~', '~', '>', '+'};
    umap__diff d;
    umap_result r;
    int v, k;
    if (!umap__stage_ok(p, from) || !umap__stage_ok(p, to) || !f) return UMAP_ERR_INVALID_ARGUMENT;
    if ((r = umap__diff_build(p, from, to, &d)) != UMAP_OK) return r;
    fprintf(f, "diff %s -> %s: %d -> %d nodes;", umap__stage_names[from], umap__stage_names[to], d.n_a, d.n_b);
    for (k = 0; k < UMAP__FATE_COUNT; k++) fprintf(f, " %d %s%s", d.count[k], umap__fates[k].text, k + 1 < UMAP__FATE_COUNT ? "," : "\n");
    for (v = 0; v < d.n_view; v++) {
        char title[160], note[160];
        const umap__pnode *n = v < d.n_a ? &p->stage[from][v] : &p->stage[to][d.other[v]];
        if (d.fate[v] == UMAP__FATE_KEPT) continue;
        umap__pnode_title(n, v < d.n_a ? v : d.other[v], title, sizeof title);
        umap__diff_note(&d, v, p->stage[to], note, sizeof note);
        fprintf(f, "  %c %-9s %s  %s\n", marks[d.fate[v]], umap__fates[d.fate[v]].text, title, note);
    }
    umap__diff_free(p, &d);
    return ferror(f) ? UMAP_ERR_IO : UMAP_OK;
}

UMAP__FN umap_result umap_program_diff_svg(const umap_program *p, umap_stage from, umap_stage to, FILE *f) {
    umap__diff d;
    umap__svg_box *b = NULL;
    umap_result r;
    int v, j, *view_of_b = NULL;
    double w, h;
    char title[200], note[100];
    if (!umap__stage_ok(p, from) || !umap__stage_ok(p, to) || !f) return UMAP_ERR_INVALID_ARGUMENT;
    if ((r = umap__diff_build(p, from, to, &d)) != UMAP_OK) return r;
    b = (umap__svg_box *)umap__calloc(&p->alloc, (size_t)d.n_view + 1, sizeof *b);
    view_of_b = (int *)umap__calloc(&p->alloc, (size_t)d.n_b + 1, sizeof(int));
    if (!b || !view_of_b) { r = UMAP_ERR_OUT_OF_MEMORY; goto done; }
    for (j = 0; j < d.n_b; j++) view_of_b[j] = -1;
    for (v = 0; v < d.n_view; v++)
        if (d.other[v] >= 0 && view_of_b[d.other[v]] < 0) view_of_b[d.other[v]] = v;
    for (v = 0; v < d.n_view; v++) {
        umap__svg_box *x = &b[v];
        const umap__pnode *n = v < d.n_a ? &p->stage[from][v] : &p->stage[to][d.other[v]];
        umap__pnode_title(n, v < d.n_a ? v : d.other[v], x->line[0], sizeof x->line[0]);
        umap__diff_note(&d, v, p->stage[to], note, sizeof note);
        snprintf(x->line[1], sizeof x->line[1], "%s: %s", umap__fates[d.fate[v]].text, note);
        x->fill = d.fate[v] == UMAP__FATE_FUSED ? umap__svg_palette[d.kernel[v] % UMAP__SVG_PALETTE_N]
                                                : umap__fates[d.fate[v]].fill;
        x->dashed = d.fate[v] == UMAP__FATE_DEAD || d.fate[v] == UMAP__FATE_REPLACED;
        for (j = 0; j < p->n_outputs; j++) x->bold |= p->stage_outputs[from][j] == v;
        /* an added node's sources are b's nodes: drawn where a has them, else at their own box */
        for (j = 0; j < n->n_src; j++) {
            int s = v < d.n_a ? n->src[j] : view_of_b[n->src[j]];
            if (s >= 0 && s < v) x->src[x->n_src++] = s;
        }
    }
    if ((r = umap__svg_layout(&p->alloc, b, d.n_view, &w, &h)) != UMAP_OK) goto done;
    snprintf(title, sizeof title, "diff %s -> %s: %d -> %d nodes (%d dead, %d replaced, %d folded, %d fused)",
             umap__stage_names[from], umap__stage_names[to], d.n_a, d.n_b, d.count[UMAP__FATE_DEAD],
             d.count[UMAP__FATE_REPLACED], d.count[UMAP__FATE_FOLDED], d.count[UMAP__FATE_FUSED]);
    if (w < 760) w = 760;
    umap__svg_begin(f, w, h, title, umap__fates, UMAP__FATE_COUNT);
    umap__svg_graph(f, b, d.n_view);
    fprintf(f, "</svg>\n");
    r = ferror(f) ? UMAP_ERR_IO : UMAP_OK;
done:
    umap__free(&p->alloc, b);
    umap__free(&p->alloc, view_of_b);
    umap__diff_free(p, &d);
    return r;
}

/* >>inspect UMAP_DUMP: every compile writes its stages and their diffs. */

#include <errno.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/stat.h>
#define UMAP__MKDIR(dir) mkdir(dir, 0777)
#elif defined(_WIN32)
#include <direct.h>
#define UMAP__MKDIR(dir) _mkdir(dir)
#else
#define UMAP__MKDIR(dir) (-1)
#endif

/* a process-wide counter: the one value the library shares between
   programs, and it only keeps their dump files apart */
static unsigned umap__dump_next(void) {
    static unsigned counter;
#if defined(__GNUC__) || defined(__clang__)
    return __atomic_fetch_add(&counter, 1u, __ATOMIC_RELAXED);
#else
    return counter++; /* elsewhere two compiles at the same instant may share a number */
#endif
}

/* the files of one compile: each stage as text (with the fusion report),
   DOT and SVG, and each pass's diff (stage s to s + 1) as text and SVG */
typedef umap_result (*umap__dump_fn)(const umap_program *, umap_stage, umap_stage, FILE *);
static umap_result umap__dump_txt(const umap_program *p, umap_stage s, umap_stage unused, FILE *f) {
    (void)unused;
    umap_program_dump(p, s, f);
    if (s == UMAP_STAGE_FUSED) umap_program_fusion_report(p, f);
    return ferror(f) ? UMAP_ERR_IO : UMAP_OK;
}
static umap_result umap__dump_dot(const umap_program *p, umap_stage s, umap_stage unused, FILE *f) {
    (void)unused;
    umap_program_dot(p, s, f);
    return ferror(f) ? UMAP_ERR_IO : UMAP_OK;
}
static umap_result umap__dump_svg(const umap_program *p, umap_stage s, umap_stage unused, FILE *f) {
    (void)unused;
    return umap_program_svg(p, s, f);
}
static const struct {
    umap__dump_fn write;
    const char *ext;
    int diff; /* 1: one file per pair of consecutive stages */
} umap__dump_files[] = {{umap__dump_txt, "txt", 0},
                        {umap__dump_dot, "dot", 0},
                        {umap__dump_svg, "svg", 0},
                        {umap_program_diff, "diff.txt", 1},
                        {umap_program_diff_svg, "diff.svg", 1}};

/* one file, staged as the model files are (umap_output_open_new: a name
   the library chose, so a link or FIFO planted under it is replaced, never
   followed or written into, and a failed write leaves nothing); a failure
   is a warning (the compile goes on) and says whether to go on */
static int umap__dump_file(const umap_program *p, const char *path, umap__dump_fn write, umap_stage a, umap_stage b) {
    umap_output o;
    umap_result r;
    if ((r = umap_output_open_new(&o, path)) == UMAP_OK) {
        umap_result w = write(p, a, b, o.file);
        /* finish first: a write that failed (a full disk) says why there */
        if ((r = umap_output_finish(&o)) == UMAP_OK) r = w;
        if (r == UMAP_OK) r = umap_output_commit(&o);
        umap_output_discard(&o);
    }
    if (r != UMAP_OK) {
        if (o.error[0]) umap__log(&p->logger, UMAP_LOG_WARN, "UMAP_DUMP: %s", o.error);
        else umap__log(&p->logger, UMAP_LOG_WARN, "UMAP_DUMP: %s: %s", path, umap_result_string(r));
    }
    return r == UMAP_OK;
}

/* With UMAP_DUMP=dir in the environment, every compile writes
   dir/NNNN-NAME-STAGE.{txt,dot,svg} and dir/NNNN-NAME-FROM-TO.diff.{txt,svg}
   (NNNN counts compiles in this process, NAME is umap_compile_desc.name).
   Debugging only: nothing it fails to write fails the compile. */
static void umap__dump_env(const umap_program *p, const char *name) {
    const char *dir = getenv("UMAP_DUMP");
    char safe[48], path[1024];
    unsigned id;
    int k, s, n_written = 0;
    size_t i;
    if (!dir || !dir[0]) return;
    id = umap__dump_next();
    /* a name is a file name here: anything but [A-Za-z0-9_-] becomes '_' */
    if (!name || !name[0]) name = "program";
    for (i = 0; name[i] && i + 1 < sizeof safe; i++) {
        char c = name[i];
        safe[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ? c : '_';
    }
    safe[i] = 0;
    (void)UMAP__MKDIR(dir); /* may exist already; when it cannot be made, the first file says so */
    for (k = 0; k < (int)(sizeof umap__dump_files / sizeof umap__dump_files[0]); k++)
        for (s = 0; s + umap__dump_files[k].diff < UMAP_STAGE_COUNT; s++) {
            int to = s + umap__dump_files[k].diff;
            int len = umap__dump_files[k].diff
                          ? snprintf(path, sizeof path, "%s/%04u-%s-%s-%s.%s", dir, id, safe, umap__stage_names[s],
                                     umap__stage_names[to], umap__dump_files[k].ext)
                          : snprintf(path, sizeof path, "%s/%04u-%s-%s.%s", dir, id, safe, umap__stage_names[s],
                                     umap__dump_files[k].ext);
            if (len < 0 || (size_t)len >= sizeof path) {
                umap__log(&p->logger, UMAP_LOG_WARN, "UMAP_DUMP: the directory name is too long");
                return;
            }
            if (!umap__dump_file(p, path, umap__dump_files[k].write, (umap_stage)s, (umap_stage)to)) return;
            n_written++;
        }
    umap__log(&p->logger, UMAP_LOG_INFO, "UMAP_DUMP: %d files in %s as %04u-%s-*", n_written, dir, id, safe);
}

/* >>gradcheck ------------------------------------------------------------- */

UMAP__FN umap_gradcheck_desc umap_gradcheck_desc_default(void) {
    umap_gradcheck_desc d;
    d.eps = 1e-2f;
    d.atol = 1e-3f;
    d.rtol = 1e-2f;
    d.max_checks = 0;
    d.n_threads = 0;
    return d;
}

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
    /* the one place its defaults are applied: NULL is the default desc, a
       zero step stands for the default step, zero tolerances are honoured */
    d = desc ? *desc : umap_gradcheck_desc_default();
    if (!(d.eps > 0)) d.eps = umap_gradcheck_desc_default().eps;
    if (!(d.atol >= 0) || !(d.rtol >= 0)) {
        umap__fail(&g->note, UMAP_ERR_INVALID_ARGUMENT, "gradcheck: atol %g, rtol %g: tolerances must be >= 0", (double)d.atol, (double)d.rtol);
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    for (i = 0; i < n_wrt; i++) {
        for (j = 0; j < n_leaves; j++)
            if (leaves[j] == wrt[i]) break;
        if (j == n_leaves || !wrt[i] || wrt[i]->dtype != UMAP_F32) {
            umap__fail(&g->note, UMAP_ERR_INVALID_ARGUMENT, "gradcheck: wrt[%d] must be one of the f32 leaves given values", i);
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
        umap__fail(&g->note, r, "gradcheck: wrt[%d][%lld]: autodiff %g vs finite differences %g", rep.worst_wrt,
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

#if defined(__SSE2__) && !defined(UMAP_NO_SIMD)
#include <emmintrin.h>
#define UMAP__ADAM_SSE2 1
#endif

/* Adam over elements [b, e). A training step's update takes as long as its
   smaller products when scalar (a division and a square root per weight),
   so x86 takes four at a time: the same operations in the same order on
   each lane (IEEE division and square root), the same bits as the scalar
   loop, which does the rest.
   A moment that falls below FLT_MIN is stored as 0. A weight whose
   gradient is exactly 0 (a ReLU that stays off) has its first moment
   decay by beta1 each step, through a long run of subnormals, and on x86
   each arithmetic step on a subnormal is a microcode assist: two orders of
   magnitude slower, enough to make the update a large part of a training
   step. A flushed moment moves its weight by less than FLT_MIN / eps. */
static void umap__adam_range(void *ctx, int64_t b, int64_t e) {
    const umap__adam_ctx *c = (const umap__adam_ctx *)ctx;
    int64_t i = b;
#ifdef UMAP__ADAM_SSE2
    const __m128 scale = _mm_set1_ps(c->scale), b1 = _mm_set1_ps(c->b1), b2 = _mm_set1_ps(c->b2);
    const __m128 one_b1 = _mm_set1_ps(1.0f - c->b1), one_b2 = _mm_set1_ps(1.0f - c->b2);
    const __m128 c1 = _mm_set1_ps(c->c1), c2 = _mm_set1_ps(c->c2), eps = _mm_set1_ps(c->eps);
    const __m128 lr = _mm_set1_ps(c->lr), wd = _mm_set1_ps(c->wd);
    const __m128 tiny = _mm_set1_ps(FLT_MIN), sign = _mm_set1_ps(-0.0f);
    for (; i + 4 <= e; i += 4) {
        __m128 g = _mm_mul_ps(_mm_loadu_ps(c->g + i), scale), w = _mm_loadu_ps(c->w + i);
        __m128 m = _mm_add_ps(_mm_mul_ps(b1, _mm_loadu_ps(c->m + i)), _mm_mul_ps(one_b1, g));
        __m128 v = _mm_add_ps(_mm_mul_ps(b2, _mm_loadu_ps(c->v + i)), _mm_mul_ps(_mm_mul_ps(one_b2, g), g));
        __m128 u;
        m = _mm_andnot_ps(_mm_cmplt_ps(_mm_andnot_ps(sign, m), tiny), m); /* |m| < FLT_MIN -> 0; NaN stays */
        v = _mm_andnot_ps(_mm_cmplt_ps(v, tiny), v);
        u = _mm_add_ps(_mm_div_ps(_mm_div_ps(m, c1), _mm_add_ps(_mm_sqrt_ps(_mm_div_ps(v, c2)), eps)), _mm_mul_ps(wd, w));
        _mm_storeu_ps(c->m + i, m);
        _mm_storeu_ps(c->v + i, v);
        _mm_storeu_ps(c->w + i, _mm_sub_ps(w, _mm_mul_ps(lr, u)));
    }
#endif
    for (; i < e; i++) {
        float g = c->g[i] * c->scale;
        float m = c->b1 * c->m[i] + (1.0f - c->b1) * g;
        float v = c->b2 * c->v[i] + (1.0f - c->b2) * g * g;
        if (fabsf(m) < FLT_MIN) m = 0.0f;
        if (v < FLT_MIN) v = 0.0f;
        c->m[i] = m;
        c->v[i] = v;
        c->w[i] -= c->lr * ((m / c->c1) / (sqrtf(v / c->c2) + c->eps) + c->wd * c->w[i]);
    }
}

UMAP__FN umap_adam_desc umap_adam_desc_default(void) {
    umap_adam_desc d;
    d.lr = 1e-3f;
    d.beta1 = 0.9f;
    d.beta2 = 0.999f;
    d.eps = 1e-8f;
    d.weight_decay = 0.0f;
    return d;
}

UMAP__FN umap_train_desc umap_train_desc_default(void) {
    umap_train_desc d;
    memset(&d, 0, sizeof d);
    d.adam = umap_adam_desc_default();
    return d;
}

/* The one place an Adam desc's defaults are applied: NULL is the default
   desc; a zero lr or eps (never useful) stands for its default; a zero beta
   is honoured. */
static umap_adam_desc umap__adam_desc_resolve(const umap_adam_desc *desc) {
    umap_adam_desc def = umap_adam_desc_default(), d = desc ? *desc : def;
    if (!(d.lr > 0)) d.lr = def.lr;
    if (!(d.eps > 0)) d.eps = def.eps;
    return d;
}

/* the desc with its defaults applied, and step t's bias corrections (device
   backends use it too, so every Adam reads a desc the same way) */
static void umap__adam_resolve(const umap_adam_desc *desc, int64_t t, umap__adam_ctx *c) {
    umap_adam_desc d = umap__adam_desc_resolve(desc);
    if (t < 1) t = 1;
    c->lr = d.lr;
    c->b1 = d.beta1;
    c->b2 = d.beta2;
    c->eps = d.eps;
    c->wd = d.weight_decay;
    c->c1 = (float)(1.0 - pow((double)c->b1, (double)t));
    c->c2 = (float)(1.0 - pow((double)c->b2, (double)t));
}

UMAP__FN void umap_adam_update(const umap_adam_desc *desc, int64_t t, float *w, const float *grad, float *m, float *v,
                               int64_t n, float grad_scale, umap_pool *pool) {
    umap__adam_ctx c;
    if (!w || !grad || !m || !v || n <= 0) return;
    umap__adam_resolve(desc, t, &c);
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

/* --- training a program's params (umap_program_train_*) --- */

/* the base rate a step scales: umap_adam_desc reads lr 0 as 1e-3 */
static float umap__train_lr(const umap__train_state *t, float lr_scale) {
    return umap__adam_desc_resolve(&t->adam).lr * lr_scale;
}

UMAP__FN umap_result umap_program_train_attach(umap_program *p, const umap_train_desc *d) {
    umap__train_state *t;
    const umap_adam_desc *ad;
    int i, j, s;
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    if (!p) return UMAP_ERR_INVALID_ARGUMENT;
    if (!d || d->n_params < 1 || !d->params || !d->grad_outputs)
        return umap__fail(&p->err, UMAP_ERR_INVALID_ARGUMENT, "train: need n_params >= 1, params and grad_outputs");
    ad = &d->adam;
    if (!(ad->lr >= 0 && ad->lr < 1e30f) || !(ad->beta1 >= 0 && ad->beta1 < 1) || !(ad->beta2 >= 0 && ad->beta2 < 1) ||
        !(ad->eps >= 0 && ad->eps < 1e30f) || !(ad->weight_decay >= 0 && ad->weight_decay < 1e30f) ||
        !(d->grad_clip >= 0 && d->grad_clip < 1e30f))
        return umap__fail(&p->err, UMAP_ERR_INVALID_ARGUMENT,
                               "train: lr %g, beta1 %g, beta2 %g, eps %g, weight_decay %g, grad_clip %g: need betas in "
                               "[0, 1) and the rest finite and >= 0", ad->lr, ad->beta1, ad->beta2, ad->eps,
                               ad->weight_decay, d->grad_clip);
    /* the backend lays its memory out around the trainer: start again */
    if (p->backend_state && p->backend->release) p->backend->release(p->backend, p);
    umap__train_free(&p->alloc, p->train);
    p->train = t = (umap__train_state *)umap__calloc(&p->alloc, 1, sizeof *t);
    if (!t) return umap__fail(&p->err, UMAP_ERR_OUT_OF_MEMORY, "train: out of memory");
    t->n = d->n_params;
    t->leaf = (int *)umap__calloc(&p->alloc, (size_t)t->n, sizeof(int));
    t->node = (int *)umap__calloc(&p->alloc, (size_t)t->n, sizeof(int));
    t->grad_node = (int *)umap__calloc(&p->alloc, (size_t)t->n, sizeof(int));
    t->size = (int64_t *)umap__calloc(&p->alloc, (size_t)t->n, sizeof(int64_t));
    t->grads = (const float **)umap__calloc(&p->alloc, (size_t)t->n, sizeof(float *));
    if (!t->leaf || !t->node || !t->grad_node || !t->size || !t->grads) goto oom;
    t->adam = *ad;
    t->grad_clip = d->grad_clip;
    for (i = 0; i < t->n; i++) {
        const char *name = d->params[i];
        int o = d->grad_outputs[i];
        const umap__pnode *g;
        t->leaf[i] = -1;
        for (s = 0; name && s < p->n_leaves; s++)
            if (!strcmp(p->leaves[s].name, name)) t->leaf[i] = s;
        if (t->leaf[i] < 0) {
            r = umap__fail(&p->err, UMAP_ERR_UNKNOWN_INPUT, "train: no input or param named '%s'", name ? name : "(null)");
            goto bad;
        }
        for (j = 0; j < i; j++)
            if (t->leaf[j] == t->leaf[i]) {
                r = umap__fail(&p->err, UMAP_ERR_INVALID_ARGUMENT, "train: '%s' is named twice", name);
                goto bad;
            }
        if (o < 0 || o >= p->n_outputs) {
            r = umap__fail(&p->err, UMAP_ERR_INVALID_ARGUMENT, "train: gradient output %d of '%s': the program has %d outputs",
                            o, name, p->n_outputs);
            goto bad;
        }
        g = &p->nodes[p->outputs[o]];
        t->size[i] = p->leaves[t->leaf[i]].numel;
        if (g->dtype != UMAP_F32 || g->numel != t->size[i]) {
            r = umap__fail(&p->err, UMAP_ERR_SHAPE, "train: output %d (%lld elements%s) cannot be the gradient of '%s' (%lld)",
                            o, (long long)g->numel, g->dtype != UMAP_F32 ? ", i32" : "", name,
                            (long long)t->size[i]);
            goto bad;
        }
        t->grad_node[i] = p->outputs[o];
        t->node[i] = -1;
        for (j = 0; j < p->n_nodes; j++)
            if (p->leaf_of[j] == t->leaf[i]) t->node[i] = j;
        t->total += t->size[i];
    }
    if (!p->backend->train) {
        t->m = (float *)umap__calloc(&p->alloc, (size_t)t->total, sizeof(float));
        t->v = (float *)umap__calloc(&p->alloc, (size_t)t->total, sizeof(float));
        if (!t->m || !t->v) goto oom;
    }
    return UMAP_OK;
oom:
    r = umap__fail(&p->err, UMAP_ERR_OUT_OF_MEMORY, "train: out of memory");
bad:
    umap__train_free(&p->alloc, p->train);
    p->train = NULL;
    return r;
}

static umap_result umap__train_ready(umap_program *p, const char *what) {
    int i;
    if (!p) return UMAP_ERR_INVALID_ARGUMENT;
    if (!p->train) return umap__fail(&p->err, UMAP_ERR_INVALID_ARGUMENT, "train %s: nothing attached", what);
    for (i = 0; i < p->train->n; i++)
        if (!p->leaves[p->train->leaf[i]].data)
            return umap__fail(&p->err, UMAP_ERR_MISSING_PARAM, "train %s: '%s' was not bound", what,
                                   p->leaves[p->train->leaf[i]].name);
    return UMAP_OK;
}

UMAP__FN umap_result umap_program_train_step(umap_program *p, int64_t step, float lr_scale) {
    umap__train_state *t;
    umap_adam_desc ad;
    float scale;
    int64_t off = 0;
    int i;
    umap_result r;
    if ((r = umap__train_ready(p, "step")) != UMAP_OK) return r;
    t = p->train;
    if (!t->have_grads) return umap__fail(&p->err, UMAP_ERR_INVALID_ARGUMENT, "train step: no run has made gradients yet");
    if (step < 1) return umap__fail(&p->err, UMAP_ERR_INVALID_ARGUMENT, "train step: t = %lld, steps count from 1", (long long)step);
    if (!(umap__train_lr(t, lr_scale) > 0)) return UMAP_OK;
    if (p->backend->train) return p->backend->train(p->backend, p, UMAP_TRAIN_STEP, step, lr_scale);
    for (i = 0; i < t->n; i++) t->grads[i] = (const float *)p->ptr[t->grad_node[i]];
    scale = umap_grad_clip_scale(t->n, t->grads, t->size, t->grad_clip);
    ad = t->adam;
    ad.lr = umap__train_lr(t, lr_scale);
    for (i = 0; i < t->n; i++) {
        /* the bound buffer is the caller's writable weights (documented at attach) */
        float *w = (float *)(void *)(uintptr_t)p->leaves[t->leaf[i]].data;
        umap_adam_update(&ad, step, w, t->grads[i], t->m + off, t->v + off, t->size[i], scale, p->pool);
        off += t->size[i];
    }
    return UMAP_OK;
}

UMAP__FN umap_result umap_program_train_store(umap_program *p) {
    umap_result r;
    if ((r = umap__train_ready(p, "store")) != UMAP_OK) return r;
    return p->backend->train ? p->backend->train(p->backend, p, UMAP_TRAIN_STORE, 0, 0.0f) : UMAP_OK;
}

UMAP__FN umap_result umap_program_train_load(umap_program *p) {
    umap_result r;
    if ((r = umap__train_ready(p, "load")) != UMAP_OK) return r;
    if (p->backend->train) return p->backend->train(p->backend, p, UMAP_TRAIN_LOAD, 0, 0.0f);
    memset(p->train->m, 0, (size_t)p->train->total * sizeof(float));
    memset(p->train->v, 0, (size_t)p->train->total * sizeof(float));
    return UMAP_OK;
}

#ifndef UMAP_COMPILER_ONLY

/* >>umap: parametric UMAP ------------------------------------------------- */

/* transform's push field (see umap__push_field_build) */
typedef struct umap__push_field umap__push_field;
static void umap__push_field_destroy(const umap_allocator *a, umap__push_field *f);

struct umap_model {
    umap_allocator alloc;
    umap_config config;          /* as fitted; pointer fields cleared */
    int64_t n_train, n_features;
    int n_components;
    int n_layers;                /* hidden layers + the output layer */
    int width[UMAP_MAX_HIDDEN + 2]; /* width[0] = proj_dims or n_features ... width[n_layers] = n_components */
    float *params;               /* per layer: W [in,out] then b [out], contiguous */
    int64_t n_params;
    int dec_width[UMAP_MAX_HIDDEN + 2]; /* the decoder: width reversed (config.decoder_epochs) */
    float *dec_params;           /* laid out as params; NULL without a decoder */
    int64_t n_dec_params;
    float *mean, *std;           /* column normalisation (0 and 1 when standardize = 0) */
    float *inv_std;              /* 1 / std, computed once so fit and transform agree */
    int proj_dims;               /* input projection: 0 = none */
    int graph_input;             /* the rows are a sparse graph of distances (metric precomputed):
                                    the encoder reads their memberships (umap__graph_input) */
    float *proj;                 /* n_features x proj_dims principal axes, or NULL */
    float *metric_v;             /* seuclidean: n_features variances V (0: column left out), else NULL */
    float a, b;
    int64_t *disconnected, n_disconnected; /* rows the disconnection distance left without edges */
    float *rad_orig, *rad_emb; /* densMAP or output_dens: per training row, umap__log_radii's; not in files */
    float *embedding;            /* n_train * n_components; a loaded model's only when it kept
                                    every training row */
    int64_t n_kept;              /* the training rows kept for transform (config.keep_data):
                                    n_train, or a sample of them (config.keep_sample); 0 = none */
    float *kept_embedding;       /* n_kept * n_components: their places, `embedding` itself when
                                    every row is kept; NULL when none is */
    float *train_data;           /* n_kept * n_features, the rows fit was given, when
                                    config.keep_data (fit) or the file held them (load); else NULL */
    int32_t *train_knn;          /* n_kept * train_knn_k: their k-NN graph, kept with them
                                    (the transform's search walks it); NULL in older files */
    int train_knn_k;
    float *train_sketch;         /* n_kept * sketch_dims: the rows' sketch (umap__sketch), when
                                    config.keep_data is UMAP_KEEP_SKETCH; else NULL (never
                                    with train_data) */
    float *sketch_axes;          /* n_features x sketch_dims: the sketch's principal axes (the
                                    identity when sketch_dims = n_features); NULL in files
                                    from before them, whose sketch is the encoder's input */
    int sketch_dims;             /* the sketch's width (width[0] in files from before the axes) */
    float *sketch_to_input;      /* sketch_dims x width[0]: a sketch's map to the encoder's input
                                    (umap__encoder_input_of_sketch), made once with sketch_axes
                                    by umap__model_index */
    umap_knn_graph_index *train_index; /* train_knn made ready for the walk (umap__model_index) */
    umap__push_field *place_field; /* the training embedding's push on new rows (2 components,
                                    with kept rows; umap__model_index) */
};

#define UMAP__TRANSFORM_CHUNK 4096

/* one table of the init names: the config JSON, the CLI and messages */
static const char *const umap__init_names[UMAP_INIT_COUNT] = {"pca", "random", "spectral", "coords"};

UMAP__FN const char *umap_init_name(umap_init init) {
    return (int)init >= 0 && (int)init < UMAP_INIT_COUNT ? umap__init_names[init] : "?";
}

UMAP__FN int umap_init_from_name(const char *name, umap_init *out) {
    int i;
    for (i = 0; name && i < UMAP_INIT_COUNT; i++)
        if (!strcmp(name, umap__init_names[i])) {
            *out = (umap_init)i;
            return 1;
        }
    return 0;
}

/* The curve 1 / (1 + a d^2b) is usable for a and b in these ranges: fit_ab
   gives b in about [0.8, 2] and a over many decades as spread moves, and a
   larger b makes d^2b overflow float at ordinary embedding distances. The
   config check, fit and the model loader all hold a and b to them. */
#define UMAP__A_MIN 1e-30
#define UMAP__A_MAX 1e30
#define UMAP__B_MIN 0.01
#define UMAP__B_MAX 8.0
static int umap__ab_sane(float a, float b) { /* as floats: a bound written 0.01 admits 0.01f */
    return a >= (float)UMAP__A_MIN && a <= (float)UMAP__A_MAX && b >= (float)UMAP__B_MIN && b <= (float)UMAP__B_MAX;
}

/* x rounded to a float, as a double; 0 when x is not finite or rounds
   past float's range (a file's 1e39 is refused, not read as inf; the 9
   digits 3.40282347e+38 of FLT_MAX lie above it and round to it) */
static int umap__float_of(double x, double *out) {
    const double past = (double)FLT_MAX + ldexp(1.0, 103); /* half an ulp above: rounds to inf */
    if (!(x > -past && x < past)) return 0;
    *out = (double)(float)x;
    return 1;
}

/* the first of n rows of c floats holding NaN or Inf, or -1. v - v is 0
   for a finite v and NaN else, and a sum stays NaN; eight sums a row,
   which the compiler can keep in one vector, and one test a row. */
static int64_t umap__nonfinite_row(const float *x, int64_t n, int64_t c) {
    int64_t i, j, whole = c / 8 * 8;
    int t;
    for (i = 0; i < n; i++) {
        const float *r = x + i * c;
        float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0}, sum = 0.0f;
        for (j = 0; j < whole; j += 8)
            for (t = 0; t < 8; t++) acc[t] += r[j + t] - r[j + t];
        for (j = whole; j < c; j++) sum += r[j] - r[j];
        for (t = 0; t < 8; t++) sum += acc[t];
        if (!(sum == 0.0f)) return i;
    }
    return -1;
}

/* --- a, b: least squares fit of 1/(1 + a x^2b) to the min_dist/spread curve,
   by Levenberg-Marquardt over 300 points of [0, 3 spread] (as umap-learn's
   curve_fit does). Gives a = 1.577, b = 0.895 for min_dist 0.1, spread 1.
   The target depends on x / spread alone, so the fit runs at spread 1 (where
   Gauss-Newton is well conditioned: at tiny or huge spreads its Jacobian
   under- or overflows and it would stop at its starting point) and a is
   rescaled exactly: 1 + a1 (x/s)^2b = 1 + (a1 s^-2b) x^2b. */
static void umap__fit_ab(float min_dist, float spread, float *out_a, float *out_b) {
    enum { NPT = 300 };
    double xs[NPT], ys[NPT], a = 1.0, b = 1.0, lambda = 1e-3, md = (double)min_dist / spread;
    double err = 0.0;
    int i, it;
    for (i = 0; i < NPT; i++) {
        xs[i] = 3.0 * i / (NPT - 1);
        ys[i] = xs[i] < md ? 1.0 : exp(-(xs[i] - md));
    }
    for (i = 0; i < NPT; i++) {
        double f = 1.0 / (1.0 + a * pow(xs[i], 2 * b));
        err += (f - ys[i]) * (f - ys[i]);
    }
    for (it = 0; it < 200; it++) {
        /* normal equations of the 2-parameter Gauss-Newton step */
        double jtj[3] = {0, 0, 0}, jtr[2] = {0, 0}, det, da, db, na, nb, nerr = 0.0;
        for (i = 0; i < NPT; i++) {
            double x = xs[i], p = x > 0 ? pow(x, 2 * b) : 0.0, f = 1.0 / (1.0 + a * p);
            double ja = -f * f * p, jb = x > 0 ? -f * f * a * p * 2.0 * log(x) : 0.0, r = f - ys[i];
            jtj[0] += ja * ja; jtj[1] += ja * jb; jtj[2] += jb * jb;
            jtr[0] += ja * r; jtr[1] += jb * r;
        }
        jtj[0] *= 1.0 + lambda; jtj[2] *= 1.0 + lambda;
        det = jtj[0] * jtj[2] - jtj[1] * jtj[1];
        if (!(fabs(det) > 1e-300)) break;
        da = (jtj[2] * jtr[0] - jtj[1] * jtr[1]) / det;
        db = (jtj[0] * jtr[1] - jtj[1] * jtr[0]) / det;
        na = a - da; nb = b - db;
        if (na > 0 && nb > 0) {
            for (i = 0; i < NPT; i++) {
                double f = 1.0 / (1.0 + na * pow(xs[i], 2 * nb));
                nerr += (f - ys[i]) * (f - ys[i]);
            }
        } else {
            nerr = HUGE_VAL;
        }
        if (nerr < err) {
            int done = err - nerr < 1e-12 * (1.0 + err);
            a = na; b = nb; err = nerr; lambda *= 0.3;
            if (done) break;
        } else {
            lambda *= 10.0;
            if (lambda > 1e12) break;
        }
    }
    *out_a = (float)(a * pow((double)spread, -2.0 * b));
    *out_b = (float)b;
}

/* --- the fit's context: the auto schedule, the fitter (the config, threads, times, errors) --- */

/* Auto epochs: the encoder shares its weights across all points, the
   refinement sharpens the local structure afterwards and distillation
   fits the encoder to the result, so the encoder needs few passes over the
   graph: about 250,000 sampled edges in all, 1 to 30 epochs (more
   epochs hardly changed the final embedding's quality: docs/NOTES.md). */
#ifndef UMAP_AUTO_EPOCHS
#define UMAP_AUTO_EPOCHS(n_edges) \
    ((n_edges) >= 250000 ? 1 : (n_edges) <= 250000 / 30 ? 30 : (int)((250000 + (n_edges) / 2) / (n_edges)))
#endif
/* The rest of the auto schedule keeps fit's cost from growing faster than
   n (the k-NN search aside). The encoder's weights are shared by every row,
   so past a point more rows need no more Adam steps: auto training and
   auto distillation stop at UMAP_AUTO_MAX_STEPS steps (part of one epoch,
   or fewer than 10 distillation passes, on large data). The cap is
   counted in steps of the default batch: at a million rows half of it
   left the refinement a worse start (docs/BENCHMARKS.md, scale). The refinement
   costs its epochs times the graph's edges, and past a few hundred
   thousand rows its random reads leave the caches: above 250,000 rows its
   epochs fall as 1/sqrt(n), never below 50. docs/BENCHMARKS.md's scale table gives
   what this costs and buys. */
#ifndef UMAP_AUTO_MAX_STEPS
#define UMAP_AUTO_MAX_STEPS 6000
#endif
#ifndef UMAP_AUTO_REFINE_EPOCHS
#define UMAP_AUTO_REFINE_EPOCHS(n) \
    ((n) <= 250000 ? 200 : (int)fmax(50.0, 200.0 * sqrt(250000.0 / (double)(n))))
#endif

/* the config's UMAP_AUTO fields as this fit of n rows runs them (the model
   keeps the resolved values, so its config says what ran) */
/* umap-learn's default disconnection distance for the metric (0: none; a
   model file records 0, a number every strtod reads without a heap) */
static float umap__default_apart(umap_metric m) {
    return (int)m >= 0 && (int)m < (int)UMAP_METRIC_COUNT ? umap__metrics[m].apart : 0.0f;
}

static void umap__resolve_auto(umap_config *c, int64_t n) {
    if (c->keep_data == UMAP_AUTO) { /* where the placement is a row's own: see umap_config.keep_data */
        c->keep_data = c->metric == UMAP_METRIC_PRECOMPUTED && !c->densmap ? UMAP_KEEP_ROWS /* the places alone */
                       : c->metric == UMAP_METRIC_EUCLIDEAN && c->n_components == 2 && !c->densmap ? UMAP_KEEP_SKETCH
                                                                                                 : UMAP_KEEP_NONE;
        /* never fewer than a row's neighbours: a model keeps at least n_neighbors rows */
        if (c->keep_sample == UMAP_AUTO) c->keep_sample = c->n_neighbors > UMAP_KEEP_AUTO_SAMPLE ? c->n_neighbors : UMAP_KEEP_AUTO_SAMPLE;
    }
    if (c->keep_sample == UMAP_AUTO || c->keep_sample >= n || !c->keep_data || c->metric == UMAP_METRIC_PRECOMPUTED)
        c->keep_sample = 0; /* 0: every row */
    /* densMAP: twice the epochs (umap-learn's densMAP adds as many again) and
       umap-learn's pull, the balance its density term is weighed against
       (docs/fit.md, "Local density", has what the two buy) */
    if (c->refine_epochs == UMAP_AUTO) c->refine_epochs = UMAP_AUTO_REFINE_EPOCHS(n) * (c->densmap ? 2 : 1);
    if (c->refine_attraction == UMAP_AUTO) c->refine_attraction = c->densmap ? 2.0f : c->target ? 1.0f : 0.5f;
    if (c->disconnection_distance == UMAP_AUTO) c->disconnection_distance = umap__default_apart(c->metric);
    if (c->distill_epochs == UMAP_AUTO) {
        double passes = (double)UMAP_AUTO_MAX_STEPS * c->batch_size / (double)n;
        c->distill_epochs = passes >= 10.0 ? 10 : passes <= 1.0 ? 1 : (int)passes;
    }
}

#define UMAP__STREAM_INIT 0x1000000000000000ull
#define UMAP__STREAM_PCA 0x2000000000000000ull
#define UMAP__STREAM_TRAIN 0x3000000000000000ull
#define UMAP__STREAM_DISTILL 0x4000000000000000ull
#define UMAP__STREAM_KEEP 0x6000000000000000ull
#define UMAP__STREAM_DECODER 0x8000000000000000ull
#define UMAP__STREAM_LANDMARKS 0x9000000000000000ull
#define UMAP__PCA_STEPS 300

typedef struct umap__fitter {
    umap_config c;
    const umap_allocator *a;
    umap_pool *pool;
    umap_fit_info *info;
    double t0;
    umap_model *m;
    const float *x;          /* the caller's rows (NULL for sparse ones) */
    const umap_rows *sp;     /* the caller's sparse rows, or NULL */
    int64_t n;
    const float *train_x;    /* what the training graph gathers: x, or its projection */
    int64_t train_d;
    const char *phase;       /* the phase running, for a failure's detail */
    int keep_auto;           /* keep_data was UMAP_AUTO: what to keep was fit's choice */
    int64_t n_fixed;         /* umap_update: rows [0, n_fixed) keep their places in the refinement */
    umap__err err;           /* into info->error_detail and the config's logger */
} umap__fitter;

/* a fit's state before any work: the config (or the defaults), its info
   (the caller's, or local_info) cleared, the clock started */
static void umap__fitter_begin(umap__fitter *f, const umap_config *config, umap_fit_info *local_info, const float *x,
                               int64_t n, const char *phase) {
    memset(f, 0, sizeof *f);
    f->c = config ? *config : umap_config_default();
    f->a = &f->c.allocator;
    f->info = f->c.info ? f->c.info : local_info;
    memset(f->info, 0, sizeof *f->info);
    f->err.detail = f->info->error_detail;
    f->err.size = sizeof f->info->error_detail;
    f->err.log = &f->c.logger;
    f->err.prefix = "fit: ";
    f->t0 = umap__now_ms();
    f->x = x;
    f->n = n;
    f->phase = phase;
}

static double umap__elapsed_s(const umap__fitter *f) { return (umap__now_ms() - f->t0) * 1e-3; }

static int umap__report(umap__fitter *f, const char *phase, int epoch, int n_epochs, float loss, float best) {
    umap_progress p;
    f->phase = phase;
    if (!f->c.progress) return 0;
    p.phase = phase;
    p.epoch = epoch;
    p.n_epochs = n_epochs;
    p.loss = loss;
    p.best_loss = best;
    p.elapsed_s = umap__elapsed_s(f);
    return f->c.progress(&p, f->c.progress_user_data);
}

/* the k-NN's progress as fit's "knn" phase: tiles or NN-Descent rounds */
static int umap__knn_report(int64_t done, int64_t total, void *fitter) {
    return umap__report((umap__fitter *)fitter, "knn", (int)done, (int)total, 0, 0);
}

/* the config's pool, or one of n_threads the caller frees (*own = 1) */
static umap_result umap__fitter_pool(umap__fitter *f, int *own) {
    umap_result r;
    if (f->c.pool) {
        f->pool = f->c.pool;
        return UMAP_OK;
    }
    if ((r = umap__pool_create_tuned(f->c.n_threads, f->a, &f->c.logger, &f->pool)) != UMAP_OK)
        return umap__fail(&f->err, r, "could not start %d threads", f->c.n_threads);
    *own = 1;
    return UMAP_OK;
}

/* --- the config's fields: one table for the defaults, the limits and the files
   A row per scalar field a model file keeps in umap.config:
   X(field, type, default, lo, hi, flags, doc, rule) with type and flags as
   umap_config_field's (UMAP_FIELD_ left off). umap_config_default() sets
   each field to its default; the range is what fit accepts and what the
   loader lets a file hold; doc is the line the bindings show; rule names
   what the cross-field checks in umap_config_check add. The model files
   write and read umap.config by this list, python/libumap.c reports it to
   the Python binding (its struct layout and the estimator's parameters),
   and the umap program's options that set a field take their range and
   default from it: a field added to umap_config and given a row here is
   defaulted, checked, saved, loaded, bound and walked by the tests at once
   (docs/fit.md, "Adding a config field"). n_threads, the seed, the hidden
   widths and the pointers are not rows: the threads never change a result
   (a file does not keep them), the seed is any u64 (kept as a string), the
   widths are umap.hidden's. */
#define UMAP__CONFIG_FIELDS(X)                                                                                   \
    X(n_components, INT, 2, 1, 64, UMAP_FIELD_SHAPE, "embedding dimension", "")                                 \
    X(n_neighbors, INT, 15, 2, 2147483647, 0, "k of the k-NN graph, counting the point itself",                  \
      "it counts the point itself; at most the rows")                                                            \
    X(metric, METRIC, UMAP_METRIC_EUCLIDEAN, 0, UMAP_METRIC_COUNT - 1, 0, "the data's metric", "")               \
    X(metric_p, FLOAT, 2, 1, FLT_MAX, 0, "minkowski's p", "")                                                    \
    X(knn_method, KNN_METHOD, UMAP_KNN_AUTO, 0, 2, 0, "the k-NN search: auto, exact or NN-Descent", "")          \
    X(local_connectivity, FLOAT, 1, 0, FLT_MAX, 0, "neighbours assumed fully connected",                         \
      "at most n_neighbors - 1")                                                                                 \
    X(bandwidth, FLOAT, 1, 0, 1e6, UMAP_FIELD_LO_OPEN | UMAP_FIELD_HI_OPEN,                                      \
      "the memberships sum to log2(n_neighbors) x bandwidth", "")                                                \
    X(set_op_mix_ratio, FLOAT, 1, 0, 1, 0, "1 = fuzzy union, 0 = fuzzy intersection", "")                        \
    X(disconnection_distance, FLOAT, UMAP_AUTO, 0, FLT_MAX, UMAP_FIELD_LO_OPEN | UMAP_FIELD_ZERO | UMAP_FIELD_AUTO, \
      "k-NN edges at least this long are dropped", "0 = none; UMAP_AUTO: the metric's largest distance, or none")  \
    X(unique, INT, 0, 0, 1, 0, "identical rows get one place: fit runs on the distinct rows", "")                \
    X(target_weight, FLOAT, 0.5, 0, 1, 0, "how much a supervised fit's target outweighs the data", "")           \
    X(min_dist, FLOAT, 0.1, 0, 1e6, UMAP_FIELD_HI_OPEN, "how close the embedding packs neighbours",              \
      "at most spread")                                                                                          \
    X(spread, FLOAT, 1, 0, 1e6, UMAP_FIELD_LO_OPEN | UMAP_FIELD_HI_OPEN, "the embedding's scale", "")            \
    X(a, FLOAT, 0, UMAP__A_MIN, UMAP__A_MAX, UMAP_FIELD_ZERO | UMAP_FIELD_SHAPE,                                 \
      "the curve 1 / (1 + a d^2b)'s a; 0: fitted", "0 with b 0: fitted from min_dist and spread")                \
    X(b, FLOAT, 0, UMAP__B_MIN, UMAP__B_MAX, UMAP_FIELD_ZERO | UMAP_FIELD_SHAPE, "the curve's b; 0: fitted",     \
      "0 with a 0: fitted from min_dist and spread")                                                             \
    X(repulsion_strength, FLOAT, 1, 0, 1e6, UMAP_FIELD_HI_OPEN, "weight of the negative samples", "")            \
    X(negative_sample_rate, INT, 5, 1, 1000, 0, "negatives per sampled edge", "")                                \
    X(n_hidden, INT, 4, 0, UMAP_MAX_HIDDEN, UMAP_FIELD_SHAPE, "the encoder's hidden layers", "")                 \
    X(standardize, INT, UMAP_AUTO, 0, 1, UMAP_FIELD_AUTO, "z-score the columns before the encoder",            \
      "UMAP_AUTO: yes for dense rows, no for sparse ones")                                                       \
    X(input_dims, INT, 64, 0, 2147483647, UMAP_FIELD_SHAPE,                                                      \
      "the encoder's fixed first layer: the top principal axes", "0 = no projection")                            \
    X(init, INIT, UMAP_INIT_PCA, 0, UMAP_INIT_COUNT - 1, 0, "the encoder's warm start", "")                      \
    X(refine_epochs, INT, UMAP_AUTO, 0, 100000, UMAP_FIELD_AUTO, "classic UMAP epochs on the embedding",         \
      "0 = off")                                                                                                 \
    X(refine_rate, FLOAT, 0.25, 0, 1e3, UMAP_FIELD_LO_OPEN | UMAP_FIELD_HI_OPEN, "the refinement's first step",  \
      "")                                                                                                        \
    X(refine_attraction, FLOAT, UMAP_AUTO, 0, 1e3, UMAP_FIELD_HI_OPEN | UMAP_FIELD_AUTO,                         \
      "an edge's pull against its negative samples' push", "")                                                   \
    X(distill_epochs, INT, UMAP_AUTO, 0, 100000, UMAP_FIELD_AUTO,                                                \
      "passes fitting the encoder to the refined embedding", "0 = off")                                          \
    X(densmap, INT, 0, 0, 1, 0, "densMAP: the refinement keeps the data's local radii", "needs refine_epochs")   \
    X(dens_lambda, FLOAT, 2, 0, 1e6, UMAP_FIELD_HI_OPEN, "densMAP's weight against UMAP's objective", "")       \
    X(dens_frac, FLOAT, 0.3, 0, 1, 0, "the share of refinement epochs, the last, with densMAP's term", "")     \
    X(dens_var_shift, FLOAT, 0.1, 0, 1e6, UMAP_FIELD_HI_OPEN, "added to the embedding radii's variance", "")     \
    X(output_dens, INT, 0, 0, 1, 0, "keep the rows' local radii in the data and the embedding", "")             \
    X(decoder_epochs, INT, 0, 0, 100000, UMAP_FIELD_SHAPE,                                                     \
      "passes training the decoder that umap_inverse_transform runs", "0 = no decoder")                          \
    X(keep_data, INT, UMAP_AUTO, UMAP_KEEP_NONE, UMAP_KEEP_SKETCH, UMAP_FIELD_AUTO | UMAP_FIELD_SHAPE,           \
      "what the model keeps of the training rows for transform",                                                 \
      "UMAP_KEEP_NONE, UMAP_KEEP_ROWS or UMAP_KEEP_SKETCH")                                                      \
    X(keep_sample, INT, UMAP_AUTO, 0, 2147483647, UMAP_FIELD_AUTO | UMAP_FIELD_SHAPE,                            \
      "how many rows keep_data keeps", "0 = every row, else at least n_neighbors")                               \
    X(batch_size, INT, 256, 1, 1 << 20, 0, "sampled edges per step", "")                                         \
    X(n_epochs, INT, 0, 0, 2147483647, 0, "the encoder's training epochs", "0 = auto")                           \
    X(learning_rate, FLOAT, 6e-3, 0, 1e3, UMAP_FIELD_LO_OPEN | UMAP_FIELD_HI_OPEN,                               \
      "Adam's learning rate, decaying to 0", "")                                                                 \
    X(beta1, FLOAT, 0.9, 0, 1, UMAP_FIELD_HI_OPEN, "Adam's beta1", "")                                           \
    X(beta2, FLOAT, 0.999, 0, 1, UMAP_FIELD_HI_OPEN, "Adam's beta2", "")                                         \
    X(adam_eps, FLOAT, 1e-7, 0, 1e30, UMAP_FIELD_LO_OPEN | UMAP_FIELD_HI_OPEN, "Adam's epsilon", "")             \
    X(weight_decay, FLOAT, 0, 0, 1e3, UMAP_FIELD_HI_OPEN, "decoupled weight decay (AdamW)", "")                  \
    X(grad_clip, FLOAT, 0, 0, 1e30, UMAP_FIELD_HI_OPEN, "the largest global gradient norm", "0 = off")           \
    X(patience, INT, 0, 0, 2147483647, 0, "epochs without an improvement before stopping", "0 = off")            \
    X(min_delta, FLOAT, 1e-4, 0, 1, UMAP_FIELD_HI_OPEN, "an improvement, relative to the best loss", "")         \
    X(min_desired_loss, FLOAT, 0, -FLT_MAX, FLT_MAX, 0, "stop when an epoch's loss is at most this", "0 = off")  \
    X(timeout_s, DOUBLE, 0, 0, DBL_MAX, 0, "seconds of training before stopping", "0 = off")

#define UMAP__FIELD_ROW(name, type, def, lo, hi, flags, doc, rule) \
    {#name, UMAP_FIELD_##type, offsetof(umap_config, name), (double)(lo), (double)(hi), flags, rule, doc, (double)(def)},
static const umap_config_field umap__config_fields[] = {UMAP__CONFIG_FIELDS(UMAP__FIELD_ROW)};
#undef UMAP__FIELD_ROW
#define UMAP__N_CONFIG_FIELDS ((int)(sizeof umap__config_fields / sizeof umap__config_fields[0]))

UMAP__FN const umap_config_field *umap_config_fields(int *count) {
    if (count) *count = UMAP__N_CONFIG_FIELDS;
    return umap__config_fields;
}

/* a field's value, exactly, as a double (every int, float and enum is one) */
static double umap__field_get(const umap_config_field *f, const umap_config *c) {
    const char *p = (const char *)c + f->offset;
    switch (f->type) {
    case UMAP_FIELD_FLOAT: return (double)*(const float *)(const void *)p;
    case UMAP_FIELD_DOUBLE: return *(const double *)(const void *)p;
    case UMAP_FIELD_METRIC: return (double)*(const umap_metric *)(const void *)p;
    case UMAP_FIELD_KNN_METHOD: return (double)*(const umap_knn_method *)(const void *)p;
    case UMAP_FIELD_INIT: return (double)*(const umap_init *)(const void *)p;
    default: return (double)*(const int *)(const void *)p;
    }
}

/* stores v (umap__field_ok's) into the field */
static void umap__field_set(const umap_config_field *f, umap_config *c, double v) {
    char *p = (char *)c + f->offset;
    switch (f->type) {
    case UMAP_FIELD_FLOAT: *(float *)(void *)p = (float)v; break;
    case UMAP_FIELD_DOUBLE: *(double *)(void *)p = v; break;
    case UMAP_FIELD_METRIC: *(umap_metric *)(void *)p = (umap_metric)(int)v; break;
    case UMAP_FIELD_KNN_METHOD: *(umap_knn_method *)(void *)p = (umap_knn_method)(int)v; break;
    case UMAP_FIELD_INIT: *(umap_init *)(void *)p = (umap_init)(int)v; break;
    default: *(int *)(void *)p = (int)v; break;
    }
}

/* Every row at its default; the fields that are no row by hand. */
UMAP__FN umap_config umap_config_default(void) {
    umap_config c;
    int i;
    memset(&c, 0, sizeof c);
    for (i = 0; i < UMAP__N_CONFIG_FIELDS; i++)
        umap__field_set(&umap__config_fields[i], &c, umap__config_fields[i].default_value);
    for (i = 0; i < c.n_hidden; i++) c.hidden[i] = 64;
    return c;
}

/* 1 when v is a value of the field's type within its row: a float field's
   v must be a float (the loader rounds a file's number to one first, and
   refuses what overflows it), compared with the floats nearest the
   bounds; an integer field's must be whole */
static int umap__field_ok(const umap_config_field *f, double v) {
    double lo = f->lo, hi = f->hi;
    if (f->type == UMAP_FIELD_FLOAT) {
        if (!(v >= -FLT_MAX && v <= FLT_MAX) || (double)(float)v != v) return 0;
        lo = (double)(float)lo;
        hi = (double)(float)hi;
    } else if (f->type != UMAP_FIELD_DOUBLE && v != floor(v)) {
        return 0;
    }
    if (v != v) return 0;
    if (((f->flags & UMAP_FIELD_AUTO) && v == UMAP_AUTO) || ((f->flags & UMAP_FIELD_ZERO) && v == 0)) return 1;
    if ((f->flags & UMAP_FIELD_LO_OPEN) ? !(v > lo) : !(v >= lo)) return 0;
    if ((f->flags & UMAP_FIELD_HI_OPEN) ? !(v < hi) : !(v <= hi)) return 0;
    return 1;
}

UMAP__FN int umap_config_field_accepts(const umap_config_field *f, double v) {
    if (!f || (f->type == UMAP_FIELD_FLOAT && !umap__float_of(v, &v))) return 0;
    return umap__field_ok(f, v);
}

UMAP__FN void umap_config_field_range(const umap_config_field *f, char *buf, size_t size) {
    size_t at;
    int i;
    if (!buf || !size) return;
    buf[0] = 0;
    if (!f) return;
    if (f->type == UMAP_FIELD_METRIC || f->type == UMAP_FIELD_INIT) {
        snprintf(buf, size, "one of");
        for (i = (int)f->lo; i <= (int)f->hi; i++) {
            at = strlen(buf);
            snprintf(buf + at, size - at, "%s %s", i > (int)f->lo ? "," : "",
                     f->type == UMAP_FIELD_METRIC ? umap_metric_name((umap_metric)i) : umap_init_name((umap_init)i));
        }
        return;
    }
    if (f->type == UMAP_FIELD_KNN_METHOD) {
        snprintf(buf, size, "0 (auto), 1 (exact) or 2 (nndescent)");
        return;
    }
    snprintf(buf, size, f->type == UMAP_FIELD_INT ? "an integer in %c%.0f, %.0f%c" : "in %c%.9g, %.9g%c",
             (f->flags & UMAP_FIELD_LO_OPEN) ? '(' : '[', f->lo, f->hi, (f->flags & UMAP_FIELD_HI_OPEN) ? ')' : ']');
    at = strlen(buf);
    if (f->flags & UMAP_FIELD_ZERO) snprintf(buf + at, size - at, " or 0");
    at = strlen(buf);
    if (f->flags & UMAP_FIELD_AUTO) snprintf(buf + at, size - at, " or UMAP_AUTO (%d)", UMAP_AUTO);
}

/* "NAME = VALUE: must be RANGE (RULE)" for a value outside its row; v as
   the field holds it (or a file's number, which may not fit the type) */
static void umap__field_refusal(const umap_config_field *f, double v, char *why, size_t why_size) {
    char range[200], val[48];
    if (f->type == UMAP_FIELD_INT || f->type == UMAP_FIELD_METRIC || f->type == UMAP_FIELD_KNN_METHOD ||
        f->type == UMAP_FIELD_INIT)
        snprintf(val, sizeof val, v == floor(v) && fabs(v) < 1e18 ? "%.0f" : "%.9g", v);
    else
        snprintf(val, sizeof val, "%.9g", v);
    umap_config_field_range(f, range, sizeof range);
    snprintf(why, why_size, "%s = %s: must be %s%s%s%s", f->name, val, range, f->rule[0] ? " (" : "", f->rule,
             f->rule[0] ? ")" : "");
}

/* umap_config_check's rules, into why (0 and why on the first broken) */
static umap_result umap__config_rules(const umap_config *c, int64_t n, int64_t d, int dense_rows, char *why,
                                      size_t why_size) {
    int i, l;
#define UMAP__REQ(cond, ...)                          \
    if (!(cond)) {                                    \
        snprintf(why, why_size, __VA_ARGS__);         \
        return UMAP_ERR_INVALID_ARGUMENT;             \
    }
    if (n > 0 || d > 0) {
        /* the sizes every phase allocates from, checked before the first
           allocation: n * d (the k-NN's limit, 2^40 floats), d doubles of
           column statistics, d as the encoder's first int width, and the
           projection's d x d covariance (which bounds its d x input_dims
           axes too); rows that are not dense (sparse ones, a model file's)
           have neither n x d floats nor that covariance */
        int64_t nd;
        size_t bytes;
        if (n > 2147483647 / 2) {
            snprintf(why, why_size, "%lld rows: more than the int32 indices allow", (long long)n);
            return UMAP_ERR_TOO_LARGE;
        }
        if (d > 2147483647 || !umap__bytes(d, sizeof(double), &bytes) ||
            (dense_rows && (!umap__mul_le(n, d, (int64_t)1 << 40, &nd) || !umap__bytes(nd, sizeof(float), &bytes)))) {
            snprintf(why, why_size, "data is %lld x %lld: too large (columns < 2^31, rows * columns <= 2^40)",
                     (long long)n, (long long)d);
            return UMAP_ERR_TOO_LARGE;
        }
        if (dense_rows && c->input_dims > 0 && c->input_dims < d &&
            (!umap__mul_le(d, d, (int64_t)1 << 40, &nd) || !umap__bytes(nd, sizeof(float), &bytes))) {
            snprintf(why, why_size, "input_dims = %d: the projection's %lld x %lld covariance is too large (2^40 elements)",
                     c->input_dims, (long long)d, (long long)d);
            return UMAP_ERR_TOO_LARGE;
        }
    }
    for (i = 0; i < UMAP__N_CONFIG_FIELDS; i++) {
        const umap_config_field *f = &umap__config_fields[i];
        double v = umap__field_get(f, c);
        if (!umap__field_ok(f, v)) {
            umap__field_refusal(f, v, why, why_size);
            return UMAP_ERR_INVALID_ARGUMENT;
        }
    }
    UMAP__REQ(n <= 0 || c->n_neighbors <= n, "n_neighbors = %d but only %lld rows: need n_neighbors <= n",
              c->n_neighbors, (long long)n);
    UMAP__REQ(c->local_connectivity <= c->n_neighbors - 1,
              "local_connectivity = %.9g: must be at most n_neighbors - 1 = %d", (double)c->local_connectivity,
              c->n_neighbors - 1);
    UMAP__REQ(c->min_dist <= c->spread, "min_dist = %.9g: must be at most spread = %.9g", (double)c->min_dist,
              (double)c->spread);
    UMAP__REQ((c->a == 0) == (c->b == 0), "a = %.9g, b = %.9g: give neither (0: fitted from min_dist and spread) or both",
              (double)c->a, (double)c->b);
    for (l = 0; l < c->n_hidden; l++)
        UMAP__REQ(c->hidden[l] >= 1 && c->hidden[l] <= 65536,
                  "hidden[%d] = %d: each of the n_hidden = %d widths must be in 1..65536", l, c->hidden[l], c->n_hidden);
    UMAP__REQ(c->keep_sample == UMAP_AUTO || c->keep_sample == 0 || c->keep_sample >= c->n_neighbors,
              "keep_sample = %d: must be 0 (every row), UMAP_AUTO or at least n_neighbors (%d)", c->keep_sample,
              c->n_neighbors);
    UMAP__REQ(!c->metric_v || c->metric == UMAP_METRIC_SEUCLIDEAN,
              "metric_v is seuclidean's variances, and the metric is %s", umap_metric_name(c->metric));
    UMAP__REQ(!c->metric_fn || c->metric == UMAP_METRIC_CUSTOM,
              "metric_fn is the custom metric's function, and the metric is %s", umap_metric_name(c->metric));
    UMAP__REQ(c->keep_data != UMAP_KEEP_SKETCH || c->metric == UMAP_METRIC_EUCLIDEAN,
              "keep_data = UMAP_KEEP_SKETCH finds neighbours by euclidean distance in the encoder's input, and "
              "the metric is %s: keep the rows (UMAP_KEEP_ROWS) instead", umap_metric_name(c->metric));
    UMAP__REQ(c->keep_data != UMAP_AUTO || c->keep_sample <= 0 ||
                  (c->metric == UMAP_METRIC_EUCLIDEAN && c->n_components == 2 && !c->densmap),
              "keep_sample = %d asks for kept rows, but keep_data is UMAP_AUTO, which keeps none with metric %s, "
              "%d components%s: set keep_data (UMAP_KEEP_ROWS) to keep a sample", c->keep_sample,
              umap_metric_name(c->metric), c->n_components, c->densmap ? " and densmap" : "");
    UMAP__REQ(!c->densmap || c->refine_epochs != 0,
              "densmap with refine_epochs = 0: densMAP's term acts in the refinement's last dens_frac of epochs; "
              "give refine_epochs (UMAP_AUTO or a count)");
    if (c->metric == UMAP_METRIC_PRECOMPUTED) {
        UMAP__REQ(n <= 0 || d == n,
                  "metric precomputed: the data must be the n x n distance matrix, not %lld rows of %lld columns",
                  (long long)n, (long long)d);
        UMAP__REQ(!c->unique, "unique with metric precomputed: merging rows of a distance matrix would merge its "
                              "columns too; merge the duplicates before computing the distances");
        UMAP__REQ(c->keep_sample == UMAP_AUTO || c->keep_sample == 0,
                  "keep_sample = %d with metric precomputed: a new row's distances reach every training row, so "
                  "the model keeps every row's place (keep_sample 0 or UMAP_AUTO)", c->keep_sample);
    }
#undef UMAP__REQ
    return UMAP_OK;
}

UMAP__FN umap_result umap_config_check(const umap_config *config, int64_t n, int64_t d, char *detail,
                                       size_t detail_size) {
    umap_config c = config ? *config : umap_config_default();
    char why[400];
    umap_result r;
    if (detail && detail_size) detail[0] = 0;
    if (n < 0 || d < 0) {
        if (detail && detail_size) snprintf(detail, detail_size, "data is %lld x %lld", (long long)n, (long long)d);
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    if ((r = umap__config_rules(&c, n, d, 1, why, sizeof why)) != UMAP_OK && detail && detail_size)
        snprintf(detail, detail_size, "%s", why);
    return r;
}

static umap_result umap__check_config(umap__fitter *f, int64_t n, int64_t d) {
    const umap_config *c = &f->c;
    char why[400];
    umap_result r;
    if (!(n > 0 && d > 0))
        return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "data is %lld x %lld: need at least one row and one column",
                          (long long)n, (long long)d);
    if ((r = umap__config_rules(c, n, d, !f->sp, why, sizeof why)) != UMAP_OK) return umap__fail(&f->err, r, "%s", why);
    if (c->metric == UMAP_METRIC_CUSTOM && !c->metric_fn)
        return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT,
                          "the custom metric needs its function: metric_fn is NULL (a model loaded from a file gets "
                          "it from umap_model_set_metric_fn)");
    if ((c->init == UMAP_INIT_COORDS) != (c->init_coords != NULL))
        return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT,
                          c->init_coords ? "init_coords is set but init is %s: set init to UMAP_INIT_COORDS to use them"
                                         : "init is %s but init_coords is NULL: give n x n_components coordinates",
                          umap_init_name(c->init));
    if (c->init_coords) {
        int64_t bad = umap__nonfinite_row(c->init_coords, n, c->n_components);
        if (bad >= 0)
            return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "init_coords: row %lld holds NaN or Inf", (long long)bad);
    }
    return UMAP_OK;
}

static umap_result umap__model_alloc(const umap_allocator *a, const umap_config *c, int64_t n_train, int64_t d,
                                     umap_model **out) {
    umap_model *m = (umap_model *)umap__calloc(a, 1, sizeof(umap_model));
    int l;
    *out = NULL;
    if (!m) return UMAP_ERR_OUT_OF_MEMORY;
    m->alloc = *a;
    m->config = *c;
    m->config.pool = NULL;
    m->config.backend = NULL;
    m->config.progress = NULL;
    m->config.progress_user_data = NULL;
    m->config.info = NULL;
    m->config.graph = NULL;
    m->config.init_coords = NULL; /* the caller's, read during fit only */
    m->config.metric_v = NULL;    /* the caller's; the model keeps its own copy, metric_v */
    m->config.target = NULL;
    memset(&m->config.allocator, 0, sizeof m->config.allocator);
    memset(&m->config.logger, 0, sizeof m->config.logger);
    m->n_train = n_train;
    m->n_features = d;
    m->n_components = c->n_components;
    m->n_layers = c->n_hidden + 1;
    m->proj_dims = c->input_dims > 0 && c->input_dims < d ? c->input_dims : 0;
    m->config.input_dims = m->proj_dims; /* what ran: a width at or above d projects nothing */
    m->width[0] = m->proj_dims ? m->proj_dims : (int)d;
    for (l = 0; l < c->n_hidden; l++) m->width[l + 1] = c->hidden[l];
    m->width[m->n_layers] = c->n_components;
    for (l = 0; l < m->n_layers; l++) m->n_params += (int64_t)m->width[l] * m->width[l + 1] + m->width[l + 1];
    m->params = (float *)umap__calloc(a, (size_t)m->n_params, sizeof(float));
    if (c->decoder_epochs > 0) {
        for (l = 0; l <= m->n_layers; l++) m->dec_width[l] = m->width[m->n_layers - l];
        for (l = 0; l < m->n_layers; l++)
            m->n_dec_params += (int64_t)m->dec_width[l] * m->dec_width[l + 1] + m->dec_width[l + 1];
        if (!(m->dec_params = (float *)umap__calloc(a, (size_t)m->n_dec_params, sizeof(float)))) {
            umap_model_free(m);
            return UMAP_ERR_OUT_OF_MEMORY;
        }
    }
    m->mean = (float *)umap__calloc(a, (size_t)d, sizeof(float));
    m->std = (float *)umap__calloc(a, (size_t)d, sizeof(float));
    m->inv_std = (float *)umap__calloc(a, (size_t)d, sizeof(float));
    if (m->proj_dims) m->proj = (float *)umap__calloc(a, (size_t)(d * m->proj_dims), sizeof(float));
    if (c->metric == UMAP_METRIC_SEUCLIDEAN) m->metric_v = (float *)umap__calloc(a, (size_t)d, sizeof(float));
    if (!m->params || !m->mean || !m->std || !m->inv_std || (m->proj_dims && !m->proj) ||
        (c->metric == UMAP_METRIC_SEUCLIDEAN && !m->metric_v)) {
        umap_model_free(m);
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    *out = m;
    return UMAP_OK;
}

UMAP__FN void umap_model_free(umap_model *m) {
    umap_allocator a;
    if (!m) return;
    a = m->alloc;
    umap__free(&a, m->params);
    umap__free(&a, m->dec_params);
    umap__free(&a, m->mean);
    umap__free(&a, m->std);
    umap__free(&a, m->inv_std);
    umap__free(&a, m->proj);
    umap__free(&a, m->metric_v);
    if (m->kept_embedding != m->embedding) umap__free(&a, m->kept_embedding);
    umap__free(&a, m->embedding);
    umap__free(&a, m->disconnected);
    umap__free(&a, m->rad_orig);
    umap__free(&a, m->rad_emb);
    umap__free(&a, m->train_data);
    umap__free(&a, m->train_sketch);
    umap__free(&a, m->sketch_axes);
    umap__free(&a, m->sketch_to_input);
    umap__free(&a, m->train_knn);
    umap_knn_graph_index_free(m->train_index);
    umap__push_field_destroy(&a, m->place_field);
    umap__free(&a, m);
}

/* >>graph: the fuzzy simplicial set ---------------------------------------- */

typedef struct umap__smooth_ctx {
    const int32_t *idx;
    const float *dist;
    int k;                      /* neighbours per row (self excluded) */
    float local_connectivity, target;
    double mean_all;            /* mean of all distances: the sigma floor when rho = 0; < 0:
                                   each row's own mean (transform: a row's memberships then
                                   depend on the row alone, never on the rows beside it) */
    float *w;                   /* n*k directed membership strengths */
} umap__smooth_ctx;

/* One row's rho = distance to the local_connectivity-th nearest non-zero
   neighbour (interpolated) and sigma, so that sum_j exp(-max(0, d_j - rho)
   / sigma) = target to within umap-learn's 1e-5, over its kk distances d,
   ascending. mean_all: the sigma floor's mean when rho = 0 (< 0: the row's
   own). */
static void umap__smooth_row(const float *d, int kk, float local_connectivity, float target, double mean_all,
                             double *rho_out, double *sigma_out) {
    double rho = 0.0, lo = 0.0, hi = HUGE_VAL, mid = 1.0, mean = 0.0;
    int j, it, nz = 0, li = (int)floor(local_connectivity);
    double frac = local_connectivity - li;
    for (j = 0; j < kk; j++) {
        mean += d[j];
        if (d[j] > 0) nz++;
    }
    mean = kk ? mean / kk : 0.0;
    if (nz >= local_connectivity) {
        /* the li-th and (li+1)-th non-zero distances */
        double dl = 0.0, du = 0.0;
        int seen = 0;
        for (j = 0; j < kk; j++) {
            if (d[j] <= 0) continue;
            seen++;
            if (seen == li) dl = d[j];
            if (seen == li + 1) { du = d[j]; break; }
        }
        rho = li > 0 ? dl + frac * (du - dl) : frac * du;
    } else if (nz > 0) {
        for (j = kk - 1; j >= 0; j--)
            if (d[j] > 0) { rho = d[j]; break; }
    }
    { /* from the mean distance beyond rho, where psum is far from flat */
        double beyond = 0.0;
        int n_beyond = 0;
        for (j = 0; j < kk; j++)
            if (d[j] > rho) beyond += d[j] - rho, n_beyond++;
        if (n_beyond) mid = beyond / n_beyond;
    }
    /* Newton's steps on psum(sigma), which rises with sigma, inside the
       bracket [lo, hi] its values give; a step that would leave it, or a
       flat psum, halves the bracket instead, or doubles sigma while it
       has no upper end (the bisection umap-learn runs, in a few steps) */
    for (it = 0; it < 64; it++) {
        double psum = 0.0, slope = 0.0, next;
        for (j = 0; j < kk; j++) {
            double r = d[j] - rho, e;
            if (r > 0) {
                e = exp(-r / mid);
                psum += e;
                slope += e * r;
            } else {
                psum += 1.0;
            }
        }
        if (fabs(psum - target) < 1e-5) break;
        if (psum > target) hi = mid;
        else lo = mid;
        slope /= mid * mid; /* d psum / d sigma */
        next = slope > 0 ? mid - (psum - target) / slope : -1.0;
        if (!(next > lo && next < hi)) next = hi == HUGE_VAL ? mid * 2.0 : (lo + hi) / 2.0;
        mid = next;
    }
    /* floor sigma as umap-learn does, so that rows of near-duplicates
       don't get infinitely sharp memberships */
    if (rho > 0) {
        if (mid < 1e-3 * mean) mid = 1e-3 * mean;
    } else if (mid < 1e-3 * (mean_all < 0 ? mean : mean_all)) {
        mid = 1e-3 * (mean_all < 0 ? mean : mean_all);
    }
    *rho_out = rho;
    *sigma_out = mid;
}

/* a distance's membership under a row's rho and sigma */
static float umap__membership(double d, double rho, double sigma) {
    double r = d - rho;
    return r > 0 && sigma > 0 ? (float)exp(-r / sigma) : 1.0f;
}

static void umap__smooth_rows(void *vctx, int64_t begin, int64_t end) {
    const umap__smooth_ctx *c = (const umap__smooth_ctx *)vctx;
    int64_t i;
    int j;
    for (i = begin; i < end; i++) {
        const float *d = c->dist + i * c->k;
        float *w = c->w + i * c->k;
        double rho, sigma;
        int kk = c->k;
        /* entries dropped by the disconnection distance (index -1) are the
           list's last: the row's statistics are its first kk alone */
        while (kk > 0 && c->idx[i * c->k + kk - 1] < 0) kk--;
        umap__smooth_row(d, kk, c->local_connectivity, c->target, c->mean_all, &rho, &sigma);
        for (j = 0; j < c->k; j++) w[j] = c->idx[i * c->k + j] < 0 ? 0.0f : umap__membership(d[j], rho, sigma);
    }
}

typedef struct umap__edges {
    int64_t n;
    int32_t *head, *tail;
    float *weight;
} umap__edges;

/* The directed membership of j in i's list, or 0: rows are sorted by
   neighbour index in `sorted`/`sorted_w` for a binary search. */
static float umap__directed_w(const int32_t *sorted, const float *sorted_w, int k, int64_t i, int32_t j) {
    const int32_t *row = sorted + i * k;
    int lo = 0, hi = k;
    while (lo < hi) {
        int m = (lo + hi) / 2;
        if (row[m] < j) lo = m + 1; else hi = m;
    }
    return lo < k && row[lo] == j ? sorted_w[i * k + lo] : 0.0f;
}

typedef struct umap__sym_ctx {
    const int32_t *idx;     /* n*k */
    const float *w;
    const int32_t *sorted;  /* idx rows sorted ascending (with their w) */
    const float *sorted_w;
    int k;
    float mix;
    int64_t *count;         /* per row: undirected edges this row emits (pass 1) */
    const int64_t *offset;  /* pass 2: where they go */
    umap__edges *out;
} umap__sym_ctx;

/* Row i emits the undirected edge {i, j} when i < j, or when i > j and j
   does not list i (then j never sees the pair). Weight: fuzzy union
   mix * (u + v - u v) + (1 - mix) * u v. */
static void umap__sym_rows(void *vctx, int64_t begin, int64_t end) {
    const umap__sym_ctx *c = (const umap__sym_ctx *)vctx;
    int64_t i;
    int j;
    for (i = begin; i < end; i++) {
        int64_t at = c->offset ? c->offset[i] : 0, cnt = 0;
        const int32_t *row = c->sorted + i * c->k;
        for (j = 0; j < c->k; j++) {
            int32_t t = row[j];
            float u, v, w;
            if (t < 0 || t == i || (j > 0 && row[j - 1] == t)) continue;
            v = umap__directed_w(c->sorted, c->sorted_w, c->k, t, (int32_t)i);
            if (t < i && v > 0) continue;
            u = c->sorted_w[i * c->k + j];
            w = c->mix * (u + v - u * v) + (1.0f - c->mix) * u * v;
            if (!(w > 0)) continue;
            if (c->offset) {
                c->out->head[at + cnt] = (int32_t)i;
                c->out->tail[at + cnt] = t;
                c->out->weight[at + cnt] = w;
            }
            cnt++;
        }
        if (!c->offset) c->count[i] = cnt;
    }
}

typedef struct umap__sortrow_ctx {
    const int32_t *idx;
    const float *w;
    int32_t *sorted;
    float *sorted_w;
    int k;
} umap__sortrow_ctx;

static void umap__sort_rows(void *vctx, int64_t begin, int64_t end) {
    const umap__sortrow_ctx *c = (const umap__sortrow_ctx *)vctx;
    int64_t i;
    int j, m;
    for (i = begin; i < end; i++) {
        int32_t *s = c->sorted + i * c->k;
        float *sw = c->sorted_w + i * c->k;
        for (j = 0; j < c->k; j++) { /* insertion sort: k is small */
            int32_t t = c->idx[i * c->k + j];
            float tw = c->w[i * c->k + j];
            for (m = j; m > 0 && s[m - 1] > t; m--) { s[m] = s[m - 1]; sw[m] = sw[m - 1]; }
            s[m] = t;
            sw[m] = tw;
        }
    }
}

/* k-NN lists -> the symmetric fuzzy graph as an undirected edge list in a
   fixed order (rows ascending), whatever the thread count. */
static umap_result umap__fuzzy_graph(const umap_allocator *a, umap_pool *pool, const umap_config *cfg,
                                     const int32_t *idx, const float *dist, int64_t n, int k,
                                     umap__edges *out) {
    umap__smooth_ctx sc;
    umap__sortrow_ctx so;
    umap__sym_ctx sy;
    float *w = NULL, *sorted_w = NULL;
    int32_t *sorted = NULL;
    int64_t *count = NULL, i, total = 0, present = 0;
    double sum = 0.0;
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    memset(out, 0, sizeof *out);
    w = (float *)umap__alloc(a, (size_t)n * k * sizeof(float));
    sorted_w = (float *)umap__alloc(a, (size_t)n * k * sizeof(float));
    sorted = (int32_t *)umap__alloc(a, (size_t)n * k * sizeof(int32_t));
    count = (int64_t *)umap__alloc(a, ((size_t)n + 1) * sizeof(int64_t));
    if (!w || !sorted_w || !sorted || !count) goto done;
    for (i = 0; i < n * k; i++)
        if (idx[i] >= 0) sum += dist[i], present++;
    sc.idx = idx; sc.dist = dist; sc.k = k; sc.w = w;
    sc.local_connectivity = cfg->local_connectivity;
    sc.target = (float)(log2((double)k + 1.0) * cfg->bandwidth);
    sc.mean_all = present ? sum / (double)present : 0.0;
    umap__parallel_range(pool, n, 256, umap__smooth_rows, &sc);
    so.idx = idx; so.w = w; so.sorted = sorted; so.sorted_w = sorted_w; so.k = k;
    umap__parallel_range(pool, n, 1024, umap__sort_rows, &so);
    sy.idx = idx; sy.w = w; sy.sorted = sorted; sy.sorted_w = sorted_w; sy.k = k;
    sy.mix = cfg->set_op_mix_ratio; sy.count = count; sy.offset = NULL; sy.out = out;
    umap__parallel_range(pool, n, 1024, umap__sym_rows, &sy);
    for (i = 0; i < n; i++) { int64_t c = count[i]; count[i] = total; total += c; }
    count[n] = total;
    out->n = total;
    out->head = (int32_t *)umap__alloc(a, (size_t)(total ? total : 1) * sizeof(int32_t));
    out->tail = (int32_t *)umap__alloc(a, (size_t)(total ? total : 1) * sizeof(int32_t));
    out->weight = (float *)umap__alloc(a, (size_t)(total ? total : 1) * sizeof(float));
    if (!out->head || !out->tail || !out->weight) goto done;
    sy.offset = count;
    umap__parallel_range(pool, n, 1024, umap__sym_rows, &sy);
    r = UMAP_OK;
done:
    umap__free(a, w);
    umap__free(a, sorted_w);
    umap__free(a, sorted);
    umap__free(a, count);
    if (r != UMAP_OK) {
        umap__free(a, out->head);
        umap__free(a, out->tail);
        umap__free(a, out->weight);
        memset(out, 0, sizeof *out);
    }
    return r;
}

/* --- Walker's alias table: O(1) sampling of edges by weight -------------- */

typedef struct umap__alias {
    int64_t n;
    float *prob;       /* acceptance probability of slot i */
    int32_t *alias;    /* the other edge of slot i */
} umap__alias;

static umap_result umap__alias_build(const umap_allocator *a, const float *w, int64_t n, umap__alias *t) {
    int32_t *small = NULL, *large = NULL;
    double *p = NULL, total = 0.0;
    int64_t i, ns = 0, nl = 0;
    t->n = n;
    t->prob = (float *)umap__alloc(a, (size_t)n * sizeof(float));
    t->alias = (int32_t *)umap__alloc(a, (size_t)n * sizeof(int32_t));
    p = (double *)umap__alloc(a, (size_t)n * sizeof(double));
    small = (int32_t *)umap__alloc(a, (size_t)n * sizeof(int32_t));
    large = (int32_t *)umap__alloc(a, (size_t)n * sizeof(int32_t));
    if (!t->prob || !t->alias || !p || !small || !large) {
        umap__free(a, t->prob);
        umap__free(a, t->alias);
        t->prob = NULL;
        t->alias = NULL;
        umap__free(a, p);
        umap__free(a, small);
        umap__free(a, large);
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    for (i = 0; i < n; i++) total += w[i];
    for (i = 0; i < n; i++) {
        p[i] = w[i] * (double)n / total;
        t->alias[i] = (int32_t)i;
        if (p[i] < 1.0) small[ns++] = (int32_t)i; else large[nl++] = (int32_t)i;
    }
    while (ns > 0 && nl > 0) {
        int32_t s = small[--ns], l = large[nl - 1];
        t->prob[s] = (float)p[s];
        t->alias[s] = l;
        p[l] -= 1.0 - p[s];
        if (p[l] < 1.0) { nl--; small[ns++] = l; }
    }
    while (nl > 0) t->prob[large[--nl]] = 1.0f;
    while (ns > 0) t->prob[small[--ns]] = 1.0f;
    umap__free(a, p);
    umap__free(a, small);
    umap__free(a, large);
    return UMAP_OK;
}

static int64_t umap__alias_draw(const umap__alias *t, umap_rng *rng) {
    uint32_t slot = umap_rng_below(rng, (uint32_t)t->n);
    return umap_rng_uniform(rng) < t->prob[slot] ? (int64_t)slot : (int64_t)t->alias[slot];
}

/* --- supervised fit: the target's intersection with the fuzzy graph ------
   umap-learn's fit(X, y) (see umap_target): the data's symmetric graph is
   intersected with the target's, which may leave it asymmetric (a row's
   weight to j and j's to it differ), so an edge carries both directions
   (fwd: head -> tail, back: tail -> head) until reset_local_connectivity
   symmetrises it again. Every pass is linear in the edges, and their order
   stays the data graph's (the target's own edges after it): the result
   depends on the inputs alone. */

/* What fit checks of a target before any work: labels >= -1, finite values
   (naming the row), a k its values can have. */
static umap_result umap__check_target(umap__fitter *f, int64_t n) {
    const umap_target *t = f->c.target;
    int64_t i, bad;
    if (!(f->c.target_weight >= 0 && f->c.target_weight <= 1))
        return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "target_weight = %g: must be in [0, 1]", f->c.target_weight);
    if (!t) return UMAP_OK;
    if (!t->labels == !t->values)
        return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "target: %s", t->labels ? "give labels or values, not both"
                                                                      : "neither labels nor values (NULL target = unsupervised)");
    if (t->labels) {
        for (i = 0; i < n; i++)
            if (t->labels[i] < -1)
                return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT,
                                  "target: row %lld has label %d: labels are >= 0, or -1 for unknown", (long long)i,
                                  (int)t->labels[i]);
        return UMAP_OK;
    }
    if (t->values_dim < 1)
        return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "target: values_dim = %d: must be >= 1", t->values_dim);
    if ((int64_t)t->values_dim * n > ((int64_t)1 << 40))
        return umap__fail(&f->err, UMAP_ERR_TOO_LARGE, "target: %lld x %d values: more than 2^40", (long long)n, t->values_dim);
    if ((int)t->metric < 0 || (int)t->metric >= (int)UMAP_METRIC_COUNT)
        return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "target: unknown metric %d", (int)t->metric);
    if (t->metric == UMAP_METRIC_PRECOMPUTED)
        return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT,
                          "target: metric precomputed: the target's values are rows to measure, not distances");
    if (t->metric == UMAP_METRIC_CUSTOM)
        return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT,
                          "target: metric custom: a target's values take a built-in metric (the target has no metric_fn)");
    if (t->metric_p != 0 && !(t->metric_p >= 1 && t->metric_p <= FLT_MAX))
        return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "target: metric_p = %g: must be >= 1 and finite (0 = 2)",
                          (double)t->metric_p);
    if (t->n_neighbors != 0 && (t->n_neighbors < 2 || t->n_neighbors > n))
        return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT,
                          "target: n_neighbors = %d with %lld rows: need 2 <= n_neighbors <= n (0 = the config's)",
                          t->n_neighbors, (long long)n);
    if ((bad = umap__nonfinite_row(t->values, n, t->values_dim)) >= 0)
        return umap__fail(&f->err, UMAP_ERR_NON_FINITE, "target: row %lld of the values holds NaN or Inf", (long long)bad);
    return UMAP_OK;
}

/* reset_local_connectivity: each row's weights divided by the row's largest
   (a row holds both directions of its edges), then the fuzzy union
   a + b - a b of the two directions; edges at 0 are dropped (umap-learn's
   eliminate_zeros), keeping the order. fwd and back are n_edges long. */
static umap_result umap__reset_connectivity(const umap_allocator *a, int64_t n, umap__edges *e, const float *fwd,
                                            const float *back) {
    float *row_max = (float *)umap__calloc(a, (size_t)n, sizeof(float));
    int64_t i, kept = 0;
    if (!row_max) return UMAP_ERR_OUT_OF_MEMORY;
    for (i = 0; i < e->n; i++) {
        if (fwd[i] > row_max[e->head[i]]) row_max[e->head[i]] = fwd[i];
        if (back[i] > row_max[e->tail[i]]) row_max[e->tail[i]] = back[i];
    }
    for (i = 0; i < e->n; i++) {
        double u = fwd[i] > 0 ? (double)fwd[i] / row_max[e->head[i]] : 0.0;
        double v = back[i] > 0 ? (double)back[i] / row_max[e->tail[i]] : 0.0;
        float w = (float)(u + v - u * v);
        if (!(w > 0)) continue;
        e->head[kept] = e->head[i];
        e->tail[kept] = e->tail[i];
        e->weight[kept] = w;
        kept++;
    }
    e->n = kept;
    umap__free(a, row_max);
    return UMAP_OK;
}

/* umap-learn's general_sset_intersection for one directed entry: left is
   the data's weight (or left_min where it has none), right the target's */
static float umap__mix_sets(double left, double right, double weight) {
    return (float)(weight < 0.5 ? left * pow(right, weight / (1.0 - weight))
                                : pow(left, (1.0 - weight) / weight) * right);
}

/* The data graph's adjacency: node i's neighbours ascending in nbr[offset[i]
   .. offset[i + 1]), for "is {i, j} an edge already" */
typedef struct umap__adjacency {
    int64_t *offset;
    int32_t *nbr;
} umap__adjacency;

static int umap__cmp_i32(const void *x, const void *y) {
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

static umap_result umap__adjacency_build(const umap_allocator *a, int64_t n, const umap__edges *e, umap__adjacency *adj) {
    int64_t i, *fill;
    adj->offset = (int64_t *)umap__calloc(a, (size_t)n + 1, sizeof(int64_t));
    adj->nbr = (int32_t *)umap__alloc(a, (size_t)(2 * e->n + 1) * sizeof(int32_t));
    fill = (int64_t *)umap__alloc(a, ((size_t)n + 1) * sizeof(int64_t));
    if (!adj->offset || !adj->nbr || !fill) {
        umap__free(a, fill);
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    for (i = 0; i < e->n; i++) { adj->offset[e->head[i] + 1]++; adj->offset[e->tail[i] + 1]++; }
    for (i = 0; i < n; i++) adj->offset[i + 1] += adj->offset[i];
    memcpy(fill, adj->offset, ((size_t)n + 1) * sizeof(int64_t));
    for (i = 0; i < e->n; i++) {
        adj->nbr[fill[e->head[i]]++] = e->tail[i];
        adj->nbr[fill[e->tail[i]]++] = e->head[i];
    }
    for (i = 0; i < n; i++)
        qsort(adj->nbr + adj->offset[i], (size_t)(adj->offset[i + 1] - adj->offset[i]), sizeof(int32_t), umap__cmp_i32);
    umap__free(a, fill);
    return UMAP_OK;
}

static int umap__adjacent(const umap__adjacency *adj, int64_t i, int32_t j) {
    int64_t lo = adj->offset[i], hi = adj->offset[i + 1];
    while (lo < hi) {
        int64_t m = lo + (hi - lo) / 2;
        if (adj->nbr[m] < j) lo = m + 1; else hi = m;
    }
    return lo < adj->offset[i + 1] && adj->nbr[lo] == j;
}

/* 1 when slot j of row i's sorted target list starts a pair the data graph
   lacks, counted once: from its lower row, or from the row that alone lists
   it. *back (may be NULL) gets the other direction's weight. */
static int umap__target_only(const int32_t *sorted, const float *sorted_w, int k, const umap__adjacency *adj, int64_t i,
                             int j, float *back) {
    int32_t nb = sorted[i * k + j];
    float vb;
    if (nb < 0 || nb == i || !(sorted_w[i * k + j] > 0) || (j > 0 && sorted[i * k + j - 1] == nb)) return 0;
    vb = umap__directed_w(sorted, sorted_w, k, nb, (int32_t)i);
    if ((nb < i && vb > 0) || umap__adjacent(adj, i, nb)) return 0;
    if (back) *back = vb;
    return 1;
}

/* Values: the target's own directed fuzzy graph (k-NN of the values), then
   umap-learn's general_simplicial_set_intersection over the union of both
   graphs' entries. Fills fwd/back (reallocated with e's arrays, which grow
   by the target's edges that the data lacks). */
static umap_result umap__values_intersection(umap__fitter *f, umap__edges *e, float **fwd, float **back) {
    const umap_allocator *a = f->a;
    const umap_target *t = f->c.target;
    int64_t n = f->n, i, n_new = 0, at;
    int k = (t->n_neighbors ? t->n_neighbors : f->c.n_neighbors) - 1, j, scale_e = 0;
    int32_t *idx = NULL, *sorted = NULL;
    float *dist = NULL, *w = NULL, *sorted_w = NULL;
    double sum = 0.0, left_min = HUGE_VAL, right_min = HUGE_VAL, weight = f->c.target_weight;
    umap__adjacency adj;
    umap__smooth_ctx sc;
    umap__sortrow_ctx so;
    umap_knn_desc kd;
    umap_knn_info ki;
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    memset(&adj, 0, sizeof adj);
    if (k < 1) k = 1;
    if (k >= n) k = (int)n - 1;
    if (k < 1) return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "target: values need at least 2 rows");
    idx = (int32_t *)umap__alloc(a, (size_t)(n * k) * sizeof(int32_t));
    sorted = (int32_t *)umap__alloc(a, (size_t)(n * k) * sizeof(int32_t));
    dist = (float *)umap__alloc(a, (size_t)(n * k) * sizeof(float));
    w = (float *)umap__alloc(a, (size_t)(n * k) * sizeof(float));
    sorted_w = (float *)umap__alloc(a, (size_t)(n * k) * sizeof(float));
    if (!idx || !sorted || !dist || !w || !sorted_w) goto done;
    memset(&kd, 0, sizeof kd);
    kd.k = k;
    kd.metric = t->metric;
    kd.metric_p = t->metric_p;
    kd.method = f->c.knn_method;
    kd.seed = f->c.seed + 1; /* its own draws, not the data search's */
    kd.allocator = f->c.allocator;
    kd.logger = f->c.logger;
    kd.pool = f->pool;
    kd.info = &ki;
    if ((r = umap__knn_self(&kd, t->values, n, t->values_dim, idx, dist, &scale_e)) != UMAP_OK) {
        r = umap__fail(&f->err, r, "target: the values' k-NN: %s", ki.error_detail);
        goto done;
    }
    /* memberships as fit's, local_connectivity 1 and bandwidth 1, as
       umap-learn builds the target's graph */
    for (i = 0; i < n * k; i++) sum += dist[i];
    sc.idx = idx; sc.dist = dist; sc.k = k; sc.w = w;
    sc.local_connectivity = 1.0f;
    sc.target = (float)log2((double)k + 1.0);
    sc.mean_all = sum / ((double)n * k);
    umap__parallel_range(f->pool, n, 256, umap__smooth_rows, &sc);
    so.idx = idx; so.w = w; so.sorted = sorted; so.sorted_w = sorted_w; so.k = k;
    umap__parallel_range(f->pool, n, 1024, umap__sort_rows, &so);
    /* the missing side's stand-in: half the smallest weight, floored at
       1e-8 (and the target's capped at 1e-4), as umap-learn's */
    for (i = 0; i < e->n; i++) if (e->weight[i] < left_min) left_min = e->weight[i];
    for (i = 0; i < n * k; i++) if (w[i] > 0 && w[i] < right_min) right_min = w[i];
    left_min = left_min == HUGE_VAL ? 1e-8 : fmax(left_min / 2.0, 1e-8);
    right_min = right_min == HUGE_VAL ? 1e-4 : fmin(fmax(right_min / 2.0, 1e-8), 1e-4);
    if ((r = umap__adjacency_build(a, n, e, &adj)) != UMAP_OK) goto done;
    /* the target's pairs the data lacks, each once (from its lower row, or
       from the row that alone lists it) */
    for (i = 0; i < n; i++)
        for (j = 0; j < k; j++) n_new += umap__target_only(sorted, sorted_w, k, &adj, i, j, NULL);
    {
        int32_t *head = (int32_t *)umap__alloc(a, (size_t)(e->n + n_new + 1) * sizeof(int32_t));
        int32_t *tail = (int32_t *)umap__alloc(a, (size_t)(e->n + n_new + 1) * sizeof(int32_t));
        float *weight_out = (float *)umap__alloc(a, (size_t)(e->n + n_new + 1) * sizeof(float));
        *fwd = (float *)umap__alloc(a, (size_t)(e->n + n_new + 1) * sizeof(float));
        *back = (float *)umap__alloc(a, (size_t)(e->n + n_new + 1) * sizeof(float));
        if (!head || !tail || !weight_out || !*fwd || !*back) {
            umap__free(a, head); umap__free(a, tail); umap__free(a, weight_out);
            r = UMAP_ERR_OUT_OF_MEMORY;
            goto done;
        }
        memcpy(head, e->head, (size_t)e->n * sizeof(int32_t));
        memcpy(tail, e->tail, (size_t)e->n * sizeof(int32_t));
        memcpy(weight_out, e->weight, (size_t)e->n * sizeof(float));
        umap__free(a, e->head); umap__free(a, e->tail); umap__free(a, e->weight);
        e->head = head; e->tail = tail; e->weight = weight_out;
    }
    /* the data's edges: both directions, the target's entry or its stand-in;
       an entry neither side holds above its stand-in keeps the sum, as
       umap-learn leaves it */
    for (i = 0; i < e->n; i++) {
        double left = e->weight[i];
        float rf = umap__directed_w(sorted, sorted_w, k, e->head[i], e->tail[i]);
        float rb = umap__directed_w(sorted, sorted_w, k, e->tail[i], e->head[i]);
        double rfv = rf > 0 ? rf : right_min, rbv = rb > 0 ? rb : right_min;
        (*fwd)[i] = left > left_min || rfv > right_min ? umap__mix_sets(left, rfv, weight) : (float)(left + rf);
        (*back)[i] = left > left_min || rbv > right_min ? umap__mix_sets(left, rbv, weight) : (float)(left + rb);
    }
    /* the target's own: only the directions it holds */
    at = e->n;
    for (i = 0; i < n; i++)
        for (j = 0; j < k; j++) {
            float wf = sorted_w[i * k + j], wb;
            if (!umap__target_only(sorted, sorted_w, k, &adj, i, j, &wb)) continue;
            e->head[at] = (int32_t)i;
            e->tail[at] = sorted[i * k + j];
            e->weight[at] = 0.0f;
            (*fwd)[at] = wf > right_min ? umap__mix_sets(left_min, wf, weight) : wf;
            (*back)[at] = wb > right_min ? umap__mix_sets(left_min, wb, weight) : wb;
            at++;
        }
    e->n = at;
    r = UMAP_OK;
done:
    umap__free(a, idx); umap__free(a, sorted); umap__free(a, dist); umap__free(a, w); umap__free(a, sorted_w);
    umap__free(a, adj.offset); umap__free(a, adj.nbr);
    return r;
}

/* The data's fuzzy graph e intersected with the target, in place (see
   umap_target). */
static umap_result umap__supervise(umap__fitter *f, umap__edges *e) {
    const umap_target *t = f->c.target;
    float *fwd = NULL, *back = NULL;
    int64_t i;
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    if (t->labels) {
        /* umap-learn's fast_intersection, unknown_dist 1; far_dist 1e12 at
           weight 1 makes exp(-far_dist) exactly 0 (the edge is dropped) */
        double w = f->c.target_weight, far_dist = w < 1.0 ? 2.5 / (1.0 - w) : 1e12;
        float unknown = (float)exp(-1.0), differ = (float)exp(-far_dist);
        fwd = (float *)umap__alloc(f->a, (size_t)(e->n + 1) * sizeof(float));
        if (!fwd) goto done;
        back = fwd; /* the labels keep the graph symmetric */
        for (i = 0; i < e->n; i++) {
            int32_t lh = t->labels[e->head[i]], lt = t->labels[e->tail[i]];
            fwd[i] = e->weight[i] * (lh == -1 || lt == -1 ? unknown : lh != lt ? differ : 1.0f);
        }
    } else if ((r = umap__values_intersection(f, e, &fwd, &back)) != UMAP_OK) {
        goto done;
    }
    r = umap__reset_connectivity(f->a, f->n, e, fwd, back);
done:
    if (back != fwd) umap__free(f->a, back);
    umap__free(f->a, fwd);
    return r;
}

/* >>encoder: the MLP, its input (column statistics, the projection) --------- */

/* One MLP's layers, as the model stores them: width[0] inputs through
   width[n_layers] outputs, ReLU between layers and a linear last one; per
   layer W [in, out] then b [out], contiguous in params. The encoder and
   the decoder (its mirror) are two of them; `prefix` keeps their
   parameters' names apart in one graph. */
typedef struct umap__mlp {
    int n_layers;
    const int *width;
    float *params;
    const char *prefix;
} umap__mlp;

static umap__mlp umap__encoder_mlp(const umap_model *m) {
    umap__mlp e;
    e.n_layers = m->n_layers;
    e.width = m->width;
    e.params = m->params;
    e.prefix = "";
    return e;
}

static umap__mlp umap__decoder_mlp(const umap_model *m) {
    umap__mlp e;
    e.n_layers = m->n_layers;
    e.width = m->dec_width;
    e.params = m->dec_params;
    e.prefix = "dec_";
    return e;
}

static float *umap__mlp_layer(const umap__mlp *e, int l) {
    int64_t off = 0;
    int i;
    for (i = 0; i < l; i++) off += (int64_t)e->width[i] * e->width[i + 1] + e->width[i + 1];
    return e->params + off;
}

static void umap__mlp_param_name(const umap__mlp *e, int i, char *name, size_t size) {
    snprintf(name, size, "%s%c%d", e->prefix, i % 2 ? 'b' : 'W', i / 2);
}

static void umap__mlp_declare(umap_graph *g, const umap__mlp *e, umap_tensor **param) {
    int l;
    char name[16];
    for (l = 0; l < e->n_layers; l++) {
        umap__mlp_param_name(e, 2 * l, name, sizeof name);
        param[2 * l] = umap_param(g, name, umap_shape2(e->width[l], e->width[l + 1]));
        umap__mlp_param_name(e, 2 * l + 1, name, sizeof name);
        param[2 * l + 1] = umap_param(g, name, umap_shape1(e->width[l + 1]));
    }
}

static umap_tensor *umap__mlp_apply(umap_graph *g, const umap__mlp *e, umap_tensor *const *param, umap_tensor *x) {
    int l;
    for (l = 0; l < e->n_layers; l++) {
        x = umap_add(g, umap_matmul(g, x, param[2 * l]), param[2 * l + 1]);
        if (l + 1 < e->n_layers) x = umap_relu(g, x);
    }
    return x;
}

static umap_result umap__mlp_bind(umap_program *p, const umap__mlp *e) {
    int l;
    char name[16];
    umap_result r = UMAP_OK;
    for (l = 0; l < e->n_layers && r == UMAP_OK; l++) {
        float *w = umap__mlp_layer(e, l);
        int64_t nw = (int64_t)e->width[l] * e->width[l + 1];
        umap__mlp_param_name(e, 2 * l, name, sizeof name);
        r = umap_program_bind(p, name, w, nw);
        umap__mlp_param_name(e, 2 * l + 1, name, sizeof name);
        if (r == UMAP_OK) r = umap_program_bind(p, name, w + nw, e->width[l + 1]);
    }
    return r;
}

/* Kaiming-uniform weights (ReLU gain), zero biases, from rng */
static void umap__mlp_init(const umap__mlp *e, umap_rng *rng) {
    int l;
    int64_t i;
    for (l = 0; l < e->n_layers; l++) {
        float *w = umap__mlp_layer(e, l), bound = (float)sqrt(6.0 / e->width[l]);
        int64_t nw = (int64_t)e->width[l] * e->width[l + 1];
        for (i = 0; i < nw; i++) w[i] = (2.0f * umap_rng_uniform(rng) - 1.0f) * bound;
        for (i = 0; i < e->width[l + 1]; i++) w[nw + i] = 0.0f;
    }
}

/* the encoder in a graph: its parameters and its input's normalisation */
typedef struct umap__net {
    umap_tensor *param[2 * (UMAP_MAX_HIDDEN + 1)]; /* W0, b0, W1, b1, ... */
    umap_tensor *mean, *inv_std, *proj;
} umap__net;

static umap_result umap__net_declare(umap_graph *g, const umap_model *m, umap__net *net) {
    umap__mlp e = umap__encoder_mlp(m);
    umap__mlp_declare(g, &e, net->param);
    net->mean = umap_input(g, "norm_mean", umap_shape1(m->n_features));
    net->inv_std = umap_input(g, "norm_inv_std", umap_shape1(m->n_features));
    net->proj = m->proj ? umap_input(g, "input_proj", umap_shape2(m->n_features, m->proj_dims)) : NULL;
    return umap_graph_status(g);
}

/* rows as given -> the encoder's input: z-score (see umap__zscore), project */
static umap_tensor *umap__net_input(umap_graph *g, const umap_model *m, const umap__net *net, umap_tensor *x) {
    if (m->config.standardize)
        x = umap_mul(g, umap_sub(g, umap_mul_scalar(g, x, 0.5f), umap_mul_scalar(g, net->mean, 0.5f)),
                     umap_mul_scalar(g, net->inv_std, 2.0f));
    return m->proj ? umap_matmul(g, x, net->proj) : x;
}

/* x [rows, d] -> z [rows, n_components]: z-score, project, then ReLU layers
   and a linear output. raw = 0: x is already normalised and projected
   (training gathers from a projected copy). */
static umap_tensor *umap__net_apply(umap_graph *g, const umap_model *m, const umap__net *net, umap_tensor *x,
                                    int raw) {
    umap__mlp e = umap__encoder_mlp(m);
    return umap__mlp_apply(g, &e, net->param, raw ? umap__net_input(g, m, net, x) : x);
}

static float *umap__layer_w(const umap_model *m, int l) {
    umap__mlp e = umap__encoder_mlp(m);
    return umap__mlp_layer(&e, l);
}

static umap_result umap__net_bind(umap_program *p, const umap_model *m) {
    umap__mlp e = umap__encoder_mlp(m);
    umap_result r = umap__mlp_bind(p, &e);
    if (r == UMAP_OK) r = umap_program_bind(p, "norm_mean", m->mean, m->n_features);
    if (r == UMAP_OK) r = umap_program_bind(p, "norm_inv_std", m->inv_std, m->n_features);
    if (r == UMAP_OK && m->proj) r = umap_program_bind(p, "input_proj", m->proj, m->n_features * m->proj_dims);
    return r;
}

/* Embeds n rows through the encoder, UMAP__TRANSFORM_CHUNK rows per run (the
   last chunk padded), so memory stays bounded for any n; backend NULL = the CPU.
   prepared: x holds umap__encoder_input's rows (m->width[0] columns), which
   the encoder's layers take as they are; else the rows as given.
   An output row that is not finite (an input far outside the training data's
   range can overflow the network) is an error naming that row, unless
   any_output is set (the caller copes with such rows). */
static umap_result umap__embed(const umap_model *m, umap_pool *pool, const umap_backend *backend, const float *x,
                               int64_t n, int prepared, int any_output, float *out, char *detail, size_t detail_size) {
    umap_graph *g = NULL;
    umap_program *p = NULL;
    umap__net net;
    umap_graph_desc gd;
    umap_compile_desc cd;
    umap_tensor *in, *z;
    int64_t chunk = n < UMAP__TRANSFORM_CHUNK ? n : UMAP__TRANSFORM_CHUNK, at, bad;
    int64_t d = prepared ? m->width[0] : m->n_features;
    int c = m->n_components;
    float *pad = NULL;
    umap_result r;
    memset(&gd, 0, sizeof gd);
    gd.allocator = m->alloc;
    if ((r = umap_graph_create(&gd, &g)) != UMAP_OK) return r;
    umap__net_declare(g, m, &net);
    in = umap_input(g, "x", umap_shape2(chunk, d));
    z = umap__net_apply(g, m, &net, in, !prepared);
    memset(&cd, 0, sizeof cd);
    cd.pool = pool;
    cd.backend = backend;
    if ((r = umap_graph_status(g)) != UMAP_OK || (r = umap_compile(g, 1, &z, &cd, &p)) != UMAP_OK) {
        if (detail) snprintf(detail, detail_size, "transform: %.200s", umap_graph_error_detail(g));
        goto done;
    }
    if ((r = umap__net_bind(p, m)) != UMAP_OK) goto done;
    for (at = 0; at < n; at += chunk) {
        int64_t rows = n - at < chunk ? n - at : chunk;
        const float *src = x + at * d, *zo = NULL;
        if (rows < chunk) {
            if (!pad && !(pad = (float *)umap__calloc(&m->alloc, (size_t)(chunk * d), sizeof(float)))) {
                r = UMAP_ERR_OUT_OF_MEMORY;
                goto done;
            }
            memcpy(pad, src, (size_t)(rows * d) * sizeof(float));
            src = pad;
        }
        if ((r = umap_program_bind(p, "x", src, chunk * d)) != UMAP_OK || (r = umap_program_run(p)) != UMAP_OK)
            goto done;
        umap_program_output(p, 0, &zo, NULL);
        memcpy(out + at * c, zo, (size_t)(rows * c) * sizeof(float));
        if (!any_output && (bad = umap__nonfinite_row(zo, rows, c)) >= 0) {
            if (detail)
                snprintf(detail, detail_size, "row %lld: the encoder's output is not finite (the row lies too far "
                         "outside the training data's range, or the weights are too large, for float)",
                         (long long)(at + bad));
            r = UMAP_ERR_NON_FINITE;
            goto done;
        }
    }
done:
    umap__free(&m->alloc, pad);
    umap_program_free(p);
    umap_graph_free(g);
    return r;
}

/* --- column statistics ------------------------------------------------------ */

/* A column is standardised when its std is a normal float: below FLT_MIN
   (a subnormal or zero std) 1/std would overflow, and such a column varies
   by less than float can resolve next to any other column anyway, so it
   counts as constant. Model files are held to the same rule. */
static int umap__std_usable(double std) { return std >= FLT_MIN && std <= FLT_MAX; }

/* (x - mean) / std without overflow: x - mean can exceed FLT_MAX when both
   are near it with opposite signs, half of it cannot, and halving and
   doubling are exact, so for all other data the bits are those of
   (x - mean) * inv_std. The encoder's graph computes the same expression. */
static float umap__zscore(float x, float mean, float inv_std) {
    return (x * 0.5f - mean * 0.5f) * (inv_std * 2.0f);
}

typedef struct umap__colstat_ctx {
    const float *x;
    int64_t n, d, block;
    double *part;        /* per row block: d sums (pass 1) or d squared deviations (pass 2) */
    const double *mean;  /* pass 2 */
    int64_t *bad_row;    /* per block: first row with NaN/Inf, else -1 */
} umap__colstat_ctx;

static void umap__colstat_task(void *vctx, int64_t t) {
    const umap__colstat_ctx *c = (const umap__colstat_ctx *)vctx;
    int64_t i, j, end = (t + 1) * c->block < c->n ? (t + 1) * c->block : c->n;
    double *acc = c->part + t * c->d;
    for (j = 0; j < c->d; j++) acc[j] = 0.0;
    if (!c->mean) c->bad_row[t] = -1;
    for (i = t * c->block; i < end; i++) {
        const float *row = c->x + i * c->d;
        if (c->mean) {
            for (j = 0; j < c->d; j++) {
                double e = row[j] - c->mean[j];
                acc[j] += e * e;
            }
        } else {
            for (j = 0; j < c->d; j++) acc[j] += row[j];
            if (c->bad_row[t] < 0)
                for (j = 0; j < c->d; j++)
                    if (!(row[j] - row[j] == 0.0f)) { c->bad_row[t] = i; break; }
        }
    }
}

/* mean and std per column in double, in a fixed block order; the first row
   holding NaN/Inf goes to *bad_row (-1 when none). */
static umap_result umap__column_stats(const umap_allocator *a, umap_pool *pool, const float *x, int64_t n,
                                      int64_t d, double *mean, double *std, int64_t *bad_row) {
    umap__colstat_ctx c;
    int64_t t, j, n_blocks;
    c.x = x; c.n = n; c.d = d;
    c.block = 256;
    n_blocks = (n + c.block - 1) / c.block;
    c.part = (double *)umap__alloc(a, (size_t)(n_blocks * d) * sizeof(double));
    c.bad_row = (int64_t *)umap__alloc(a, (size_t)n_blocks * sizeof(int64_t));
    if (!c.part || !c.bad_row) {
        umap__free(a, c.part);
        umap__free(a, c.bad_row);
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    c.mean = NULL;
    umap_pool_for(pool, n_blocks, umap__colstat_task, &c);
    *bad_row = -1;
    for (t = 0; t < n_blocks && *bad_row < 0; t++) *bad_row = c.bad_row[t];
    if (*bad_row < 0) {
        for (j = 0; j < d; j++) mean[j] = 0.0;
        for (t = 0; t < n_blocks; t++)
            for (j = 0; j < d; j++) mean[j] += c.part[t * d + j];
        for (j = 0; j < d; j++) mean[j] /= (double)n;
        c.mean = mean;
        umap_pool_for(pool, n_blocks, umap__colstat_task, &c);
        for (j = 0; j < d; j++) std[j] = 0.0;
        for (t = 0; t < n_blocks; t++)
            for (j = 0; j < d; j++) std[j] += c.part[t * d + j];
        for (j = 0; j < d; j++) std[j] = sqrt(std[j] / (double)n);
    }
    umap__free(a, c.part);
    umap__free(a, c.bad_row);
    return UMAP_OK;
}

/* --- principal axes: the input projection and the PCA warm start ------------ */

/* each axis (column of d x p) turned so its largest entry is positive: the
   sign a solver leaves is arbitrary, the axes' must depend on the data */
static void umap__axes_sign(float *axes, int64_t d, int p) {
    int64_t j;
    int c;
    for (c = 0; c < p; c++) {
        int64_t arg = 0;
        for (j = 1; j < d; j++)
            if (fabs(axes[j * p + c]) > fabs(axes[arg * p + c])) arg = j;
        if (axes[arg * p + c] < 0)
            for (j = 0; j < d; j++) axes[j * p + c] = -axes[j * p + c];
    }
}

/* the w columns of t, each contiguous (t is w x rows), made orthonormal
   in place, in order, by Gram-Schmidt run `passes` times over each column
   (twice where power iterations square the spread); a zero column stays
   zero */
static void umap__gram_schmidt(double *t, int64_t rows, int64_t w, int passes) {
    int64_t q, p, i;
    int pass;
    for (q = 0; q < w; q++) {
        double norm = 0.0, *tq = t + q * rows;
        for (pass = 0; pass < passes; pass++)
            for (p = 0; p < q; p++) {
                const double *tp = t + p * rows;
                double dot = 0.0;
                for (i = 0; i < rows; i++) dot += tq[i] * tp[i];
                for (i = 0; i < rows; i++) tq[i] -= dot * tp[i];
            }
        for (i = 0; i < rows; i++) norm += tq[i] * tq[i];
        norm = norm > 0.0 ? 1.0 / sqrt(norm) : 0.0;
        for (i = 0; i < rows; i++) tq[i] *= norm;
    }
}

/* Top p principal axes (d x p, orthonormal, ordered by variance, signs fixed
   by the data) of the normalised rows, from an evenly spaced sample of at
   most 8192 rows: covariance by sgemm, then orthogonal iteration (C V by
   sgemm, Gram-Schmidt in double, in order, so the leading axes converge
   first and come out sorted). */
static umap_result umap__principal_axes_of(const umap_allocator *a, int64_t d, const float *mean, const float *inv_std,
                                           umap_pool *pool, const float *x, int64_t n, int p, uint64_t seed,
                                           float *axes) {
    int64_t ns = n < 8192 ? n : 8192, i, j, w1, w2;
    int it, c;
    float *s = (float *)umap__alloc(a, (size_t)(ns * d) * sizeof(float));
    float *cov = (float *)umap__alloc(a, (size_t)(d * d) * sizeof(float));
    float *cv = (float *)umap__alloc(a, (size_t)(d * p) * sizeof(float));
    double *v = (double *)umap__alloc(a, (size_t)(d * p) * sizeof(double));
    float *ws = NULL;
    umap_rng rng;
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    if (!s || !cov || !cv || !v) goto done;
    /* the portable kernel throughout fit: a threaded BLAS's workers would
       keep spinning into the training steps that follow */
    w1 = umap__gemm_workspace(d, ns);
    w2 = umap__gemm_workspace(p, d);
    if (!(ws = (float *)umap__alloc(a, (size_t)(w1 > w2 ? w1 : w2) * sizeof(float)))) goto done;
    for (i = 0; i < ns; i++) {
        const float *row = x + (i * n / ns) * d;
        for (j = 0; j < d; j++) s[i * d + j] = umap__zscore(row[j], mean ? mean[j] : 0.0f, inv_std ? inv_std[j] : 1.0f);
    }
    umap__sgemm_pool(pool, 1, 0, d, d, ns, s, s, cov, ws); /* ns * covariance (centred data) */
    umap_rng_init(&rng, seed, 0x9ca0000000000001ull);
    for (i = 0; i < d * p; i++) axes[i] = umap_rng_normal(&rng);
    for (it = 0; it < 40; it++) {
        umap__sgemm_pool(pool, 0, 0, d, p, d, cov, axes, cv, ws);
        for (j = 0; j < d; j++) /* each column contiguous: v is p x d */
            for (c = 0; c < p; c++) v[c * d + j] = cv[j * p + c];
        umap__gram_schmidt(v, d, p, 1);
        for (j = 0; j < d; j++)
            for (c = 0; c < p; c++) axes[j * p + c] = (float)v[c * d + j];
    }
    umap__axes_sign(axes, d, p);
    r = UMAP_OK;
done:
    umap__free(a, s);
    umap__free(a, cov);
    umap__free(a, cv);
    umap__free(a, v);
    umap__free(a, ws);
    return r;
}

/* the model's input columns' axes, centred on its means */
static umap_result umap__principal_axes(const umap_model *m, const float *inv_std, umap_pool *pool, const float *x,
                                        int64_t n, int p, uint64_t seed, float *axes) {
    return umap__principal_axes_of(&m->alloc, m->n_features, m->mean, inv_std, pool, x, n, p, seed, axes);
}

/* A precomputed metric's rows are distances to every training row: too
   wide for principal axes (an n x n covariance), and each is already a
   view of the data. Its projection instead picks p landmark columns, the
   rows' distances to p training rows spread by farthest-point sampling
   (the first drawn from the seed, each next the row farthest from those
   chosen, ties to the smaller index): axes is the n x p selection. */
static umap_result umap__landmark_axes(const umap_model *m, const float *x, int64_t n, int p, uint64_t seed,
                                       float *axes) {
    int64_t d = m->n_features, i, pick;
    int c;
    umap_rng rng;
    float *nearest = (float *)umap__alloc(&m->alloc, (size_t)n * sizeof(float));
    if (!nearest) return UMAP_ERR_OUT_OF_MEMORY;
    umap_rng_init(&rng, seed, UMAP__STREAM_LANDMARKS);
    pick = (int64_t)umap_rng_below(&rng, (uint32_t)n);
    for (i = 0; i < n; i++) nearest[i] = FLT_MAX;
    for (c = 0; c < p; c++) {
        int64_t next = 0;
        axes[pick * p + c] = 1.0f;
        for (i = 0; i < n; i++) { /* the matrix is symmetric: row pick holds the distances to it */
            float v = x[pick * d + i];
            nearest[i] = v < nearest[i] ? v : nearest[i];
            if (nearest[i] > nearest[next]) next = i;
        }
        pick = next;
    }
    umap__free(&m->alloc, nearest);
    return UMAP_OK;
}

/* out (n x p) = ((x - mean) * inv_std) axes = x (inv_std axes) - mean (inv_std axes):
   one sgemm over the caller's rows, no normalised copy of the data
   (inv_std NULL: centred, not scaled). */
static umap_result umap__project_of(const umap_allocator *a, int64_t d, const float *mean, const float *inv_std,
                                    umap_pool *pool, const float *x, int64_t n, const float *axes, int p, float *out) {
    int64_t i, j;
    int c;
    float *scaled = (float *)umap__alloc(a, (size_t)(d * p) * sizeof(float));
    double *offset = (double *)umap__calloc(a, (size_t)p, sizeof(double));
    float *ws = NULL;
    if (!scaled || !offset || !(ws = (float *)umap__alloc(a, (size_t)umap__gemm_workspace(p, d) * sizeof(float)))) {
        umap__free(a, scaled);
        umap__free(a, offset);
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    for (j = 0; j < d; j++)
        for (c = 0; c < p; c++) {
            scaled[j * p + c] = inv_std ? axes[j * p + c] * inv_std[j] : axes[j * p + c];
            offset[c] += (double)mean[j] * scaled[j * p + c];
        }
    umap__sgemm_pool(pool, 0, 0, n, p, d, x, scaled, out, ws); /* see umap__principal_axes */
    for (i = 0; i < n; i++)
        for (c = 0; c < p; c++) out[i * p + c] -= (float)offset[c];
    umap__free(a, scaled);
    umap__free(a, offset);
    umap__free(a, ws);
    return UMAP_OK;
}

/* the model's input columns on axes, centred on its means */
static umap_result umap__project(const umap_model *m, const float *inv_std, umap_pool *pool, const float *x, int64_t n,
                                 const float *axes, int p, float *out) {
    return umap__project_of(&m->alloc, m->n_features, m->mean, inv_std, pool, x, n, axes, p, out);
}

/* out (n x m->width[0]) = the rows as the encoder's first layer sees them:
   z-scored, and projected when the model projects its input, the scaling
   folded into the projection (umap__project), cheaper than the encoder's
   own z-scoring of every column before its product */
static umap_result umap__encoder_input(const umap_model *m, umap_pool *pool, const float *x, int64_t n, float *out) {
    int64_t i, j, d = m->n_features;
    if (m->proj) return umap__project(m, m->inv_std, pool, x, n, m->proj, m->proj_dims, out);
    for (i = 0; i < n; i++)
        for (j = 0; j < d; j++) out[i * d + j] = umap__zscore(x[i * d + j], m->mean[j], m->inv_std[j]);
    return UMAP_OK;
}

/* --- sparse rows (CSR) as the encoder's input, never densified -------------
   The z-scored rows' principal axes and their projection on them, from
   products with the stored values alone: (x - mean) D V = x (D V) - mean D V
   (D the inverse stds), the second term one row for all. */

/* column means and stds over all n rows, the unstored zeros counted, in
   double and in row order */
static umap_result umap__column_stats_csr(const umap_allocator *a, const umap_rows *x, double *mean, double *std) {
    int64_t t, j, d = x->dim, nnz = x->indptr[x->n];
    double *count = (double *)umap__calloc(a, (size_t)d, sizeof(double));
    if (!count) return UMAP_ERR_OUT_OF_MEMORY;
    for (j = 0; j < d; j++) mean[j] = std[j] = 0.0;
    for (t = 0; t < nnz; t++) {
        mean[x->indices[t]] += x->values[t];
        count[x->indices[t]] += 1.0;
    }
    for (j = 0; j < d; j++) mean[j] /= (double)x->n;
    for (t = 0; t < nnz; t++) {
        double e = x->values[t] - mean[x->indices[t]];
        std[x->indices[t]] += e * e;
    }
    for (j = 0; j < d; j++) std[j] = sqrt((std[j] + ((double)x->n - count[j]) * mean[j] * mean[j]) / (double)x->n);
    umap__free(a, count);
    return UMAP_OK;
}

/* out (rows of x listed in `rows`, or all when NULL; each width w) =
   z-scored rows times v (d x w, double): x (D v) - mean D v, a row per
   task in double, rounded once */
/* out = rows of the z-scored CSR times v: (x - mean) D v, D = diag(inv_std)
   (NULL: the identity), with offset = mean D v. D v is formed per stored
   value, never as a d x w copy. v: doubles (vd) or floats (vf). */
typedef struct umap__csr_times_ctx {
    const umap_rows *x;
    const int64_t *rows;      /* the rows to take (NULL: all, in order) */
    const double *vd, *offset;
    const float *vf, *inv_std;
    int64_t w;
    double *out_d; /* one of the two */
    float *out_f;
} umap__csr_times_ctx;

static void umap__csr_times_range(void *ctx, int64_t r0, int64_t r1) {
    const umap__csr_times_ctx *c = (const umap__csr_times_ctx *)ctx;
    int64_t r, t, q, q0, qn, w = c->w;
    double acc[128];
    for (r = r0; r < r1; r++) {
        int64_t i = c->rows ? c->rows[r] : r;
        for (q0 = 0; q0 < w; q0 += qn) { /* 128 columns at a time */
            qn = w - q0 < 128 ? w - q0 : 128;
            for (q = 0; q < qn; q++) acc[q] = -c->offset[q0 + q];
            for (t = c->x->indptr[i]; t < c->x->indptr[i + 1]; t++) {
                int64_t col = c->x->indices[t];
                double v = c->x->values[t], s = c->inv_std ? (double)c->inv_std[col] : 1.0;
                if (c->vd) {
                    const double *vd = c->vd + col * w + q0;
                    for (q = 0; q < qn; q++) acc[q] += v * (vd[q] * s);
                } else {
                    const float *vf = c->vf + col * w + q0;
                    for (q = 0; q < qn; q++) acc[q] += v * ((double)vf[q] * s);
                }
            }
            for (q = 0; q < qn; q++) {
                if (c->out_d) c->out_d[r * w + q0 + q] = acc[q];
                else c->out_f[r * w + q0 + q] = (float)acc[q];
            }
        }
    }
}

/* offset = mean D v (w), in column order, for umap__csr_times_range */
static void umap__csr_offset(int64_t d, int64_t w, const float *mean, const float *inv_std, const double *vd,
                             const float *vf, double *offset) {
    int64_t j, q;
    for (q = 0; q < w; q++) offset[q] = 0.0;
    for (j = 0; j < d; j++) {
        double s = inv_std ? (double)inv_std[j] : 1.0;
        for (q = 0; q < w; q++) offset[q] += (double)mean[j] * ((vd ? vd[j * w + q] : (double)vf[j * w + q]) * s);
    }
}

static void umap__sym_eig(int m, double *a, double *w, double *v);

#define UMAP__CSR_PCA_POWER 6
#define UMAP__CSR_PCA_SAMPLE 8192
#define UMAP__GRAPH_PCA_POWER 2 /* a graph's memberships: fewer steps embedded as well (docs/NOTES.md) */
/* Top p principal axes (d x p, as umap__principal_axes_of gives them:
   orthonormal, by variance, largest entry positive) of the z-scored CSR
   rows, from the same evenly spaced sample of at most `sample` rows, by a
   randomized truncated SVD (Halko, Martinsson and Tropp): a block of
   p + p/2 + 8 Gaussian directions (the oversampling keeps the last of
   the p axes as good as the first on text's slowly falling spectrum), `power` iterations through the
   sample's products (orthonormalised on the sample's side, in double),
   then the small l x l eigenproblem. Never a d x d matrix: memory is the
   sample's products, 3 d l doubles and its l x l. */
static umap_result umap__principal_axes_csr(const umap_allocator *a, umap_pool *pool, const umap_rows *x,
                                            const float *mean, const float *inv_std, int p, int64_t sample,
                                            int power, uint64_t seed, float *axes) {
    int64_t d = x->dim, n = x->n, ns = n < sample ? n : sample, l = p + p / 2 + 8, i, j, q, t, it;
    int64_t *rows = (int64_t *)umap__alloc(a, (size_t)ns * sizeof(int64_t));
    double *v = (double *)umap__alloc(a, (size_t)(d * l) * sizeof(double));
    double *offset = (double *)umap__alloc(a, (size_t)l * sizeof(double));
    double *y = (double *)umap__alloc(a, (size_t)(ns * l) * sizeof(double));
    double *yt = (double *)umap__alloc(a, (size_t)(ns * l) * sizeof(double));
    double *g = (double *)umap__alloc(a, (size_t)(l * l) * sizeof(double));
    double *ev = (double *)umap__alloc(a, (size_t)(l * l) * sizeof(double));
    double *lam = (double *)umap__alloc(a, (size_t)l * sizeof(double));
    umap__csr_times_ctx c;
    umap_rng rng;
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    if (l > d) l = d;
    if (!rows || !v || !offset || !y || !yt || !g || !ev || !lam) goto done;
    for (i = 0; i < ns; i++) rows[i] = i * n / ns;
    umap_rng_init(&rng, seed, 0x9ca0000000000002ull);
    for (i = 0; i < d * l; i++) v[i] = umap_rng_normal(&rng);
    memset(&c, 0, sizeof c);
    c.x = x; c.rows = rows; c.vd = v; c.inv_std = inv_std; c.offset = offset; c.w = l; c.out_d = y;
    for (it = 0;; it++) {
        /* y = Z v (ns x l), orthonormal columns */
        umap__csr_offset(d, l, mean, inv_std, v, NULL, offset);
        umap__parallel_range(pool, ns, 64, umap__csr_times_range, &c);
        for (i = 0; i < ns; i++) /* orthonormal columns, each contiguous in yt (l x ns) */
            for (q = 0; q < l; q++) yt[q * ns + i] = y[i * l + q];
        umap__gram_schmidt(yt, ns, l, 2);
        for (i = 0; i < ns; i++)
            for (q = 0; q < l; q++) y[i * l + q] = yt[q * ns + i];
        /* v = Z' y (d x l): rows in order, so the sums never depend on threads */
        for (i = 0; i < d * l; i++) v[i] = 0.0;
        for (q = 0; q < l; q++) offset[q] = 0.0;
        for (i = 0; i < ns; i++) {
            const double *yi = y + i * l;
            for (t = x->indptr[rows[i]]; t < x->indptr[rows[i] + 1]; t++) {
                double *vj = v + (int64_t)x->indices[t] * l, xv = x->values[t];
                for (q = 0; q < l; q++) vj[q] += xv * yi[q];
            }
            for (q = 0; q < l; q++) offset[q] += yi[q];
        }
        for (j = 0; j < d; j++) {
            double s = inv_std ? (double)inv_std[j] : 1.0;
            for (q = 0; q < l; q++) v[j * l + q] = s * (v[j * l + q] - (double)mean[j] * offset[q]);
        }
        if (it == power) break;
    }
    /* v = Z' Q: its columns' Gram matrix v'v = Q' Z Z' Q has Z's top
       singular values squared; v times its eigenvectors over sqrt(lambda)
       are the right singular vectors, the principal axes */
    for (i = 0; i < l * l; i++) g[i] = 0.0;
    for (t = 0; t < d; t++) { /* row by row: reads in memory order */
        const double *vt = v + t * l;
        for (i = 0; i < l; i++)
            for (j = 0; j < l; j++) g[i * l + j] += vt[i] * vt[j];
    }
    umap__sym_eig((int)l, g, lam, ev);
    for (q = 0; q < p; q++) {
        double scale = lam[q] > 0.0 ? 1.0 / sqrt(lam[q]) : 0.0;
        for (j = 0; j < d; j++) {
            double s = 0.0;
            for (t = 0; t < l; t++) s += v[j * l + t] * ev[t * l + q];
            axes[j * p + q] = (float)(s * scale);
        }
    }
    umap__axes_sign(axes, d, p);
    r = UMAP_OK;
done:
    umap__free(a, rows); umap__free(a, v); umap__free(a, offset); umap__free(a, y); umap__free(a, yt);
    umap__free(a, g); umap__free(a, ev); umap__free(a, lam);
    return r;
}

/* out (n x p) = the CSR rows z-scored and projected on axes (d x p): the
   encoder's input, as umap__encoder_input gives it for dense rows */
static umap_result umap__project_csr(const umap_allocator *a, umap_pool *pool, const umap_rows *x, const float *mean,
                                     const float *inv_std, const float *axes, int p, float *out) {
    int64_t d = x->dim;
    double *offset = (double *)umap__alloc(a, (size_t)p * sizeof(double));
    umap__csr_times_ctx c;
    if (!offset) return UMAP_ERR_OUT_OF_MEMORY;
    umap__csr_offset(d, p, mean, inv_std, NULL, axes, offset);
    memset(&c, 0, sizeof c);
    c.x = x; c.vf = axes; c.inv_std = inv_std; c.offset = offset; c.w = p; c.out_f = out;
    umap__parallel_range(pool, x->n, 64, umap__csr_times_range, &c);
    umap__free(a, offset);
    return UMAP_OK;
}

/* --- a sparse graph of distances as the encoder's input -------------------
   With metric precomputed on CSR rows (each row's distances to some of the
   training rows: a k-NN graph from elsewhere), an unstored entry is an
   unknown distance, not a distance 0, so the encoder cannot read the
   distances as columns. It reads each row's memberships instead,
   exp(-(d - rho) / sigma) on every stored distance, with rho and sigma
   from the row's n_neighbors - 1 nearest as the fuzzy graph takes them
   (the row's own sigma floor: a new row's input never depends on the rows
   beside it); an unstored entry is then membership 0, as a far row's is.
   A training row also holds itself at membership 1, as a new row that
   repeats it holds it at distance 0. The memberships go through the
   sparse rows' projection (umap__principal_axes_csr over every row) in
   fit and in transform alike. */
typedef struct umap__csr_buf {
    int64_t *indptr;
    int32_t *indices;
    float *values;
    umap_rows rows;
} umap__csr_buf;

static void umap__csr_buf_free(const umap_allocator *a, umap__csr_buf *b) {
    umap__free(a, b->indptr);
    umap__free(a, b->indices);
    umap__free(a, b->values);
    memset(b, 0, sizeof *b);
}

/* each row's k nearest in a graph of distances (metric precomputed; the
   rows checked and selected as umap_knn_rows does, whatever their width:
   new rows' distances to the training rows too) */
static umap_result umap__sp_select_rows(const umap_knn_desc *desc, const umap_rows *x, int self, int32_t *indices,
                                        float *distances) {
    umap__knn_opts o;
    umap_knn_info scratch;
    umap_pool *pool = NULL;
    float maxabs = 0.0f;
    umap_result r;
    umap__knn_resolve(desc, &scratch, &o);
    o.metric = UMAP_METRIC_PRECOMPUTED;
    if ((r = umap__knn_begin(&o, &pool)) != UMAP_OK) return r;
    if ((r = umap__csr_check(&o, "data", x, &maxabs)) == UMAP_OK) r = umap__sp_select(&o, pool, x, self, indices, distances);
    if (pool != o.pool) umap_pool_free(pool);
    return r;
}

typedef struct umap__graph_input_ctx {
    const umap_rows *g;
    int self, k;
    const float *dist;           /* each row's k nearest (self excluded), ascending */
    float local_connectivity, target;
    umap__csr_buf *out;          /* its indptr made; indices and values filled here */
} umap__graph_input_ctx;

static void umap__graph_input_range(void *vctx, int64_t r0, int64_t r1) {
    const umap__graph_input_ctx *c = (const umap__graph_input_ctx *)vctx;
    const umap_rows *g = c->g;
    int64_t i, t, o;
    for (i = r0; i < r1; i++) {
        double rho, sigma;
        int own = !c->self; /* the row itself placed: the non-self rows have none to place */
        umap__smooth_row(c->dist + i * c->k, c->k, c->local_connectivity, c->target, -1.0, &rho, &sigma);
        for (o = c->out->indptr[i], t = g->indptr[i]; t < g->indptr[i + 1]; t++) {
            if (!own && g->indices[t] >= i) { /* columns ascend: the row's own goes before the first at or past it */
                own = 1;
                c->out->indices[o] = (int32_t)i;
                c->out->values[o++] = 1.0f;
                if (g->indices[t] == i) continue;
            }
            c->out->indices[o] = g->indices[t];
            c->out->values[o++] = umap__membership(g->values[t], rho, sigma);
        }
        if (!own) {
            c->out->indices[o] = (int32_t)i;
            c->out->values[o] = 1.0f;
        }
    }
}

/* out = the graph's rows as the encoder reads them (self: the training
   rows, each holding itself); the selection's errors (a negative distance,
   fewer stored than n_neighbors - 1, a training graph not n x n) named
   into err by row */
static umap_result umap__graph_input(const umap_config *cfg, umap_pool *pool, const umap__err *err,
                                     const umap_rows *g, int self, umap__csr_buf *out) {
    const umap_allocator *a = &cfg->allocator;
    int k = cfg->n_neighbors - 1;
    int64_t n = g->n, i, nnz;
    float *dist = NULL;
    umap__graph_input_ctx c;
    umap_knn_desc kd;
    umap_knn_info ki;
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    memset(out, 0, sizeof *out);
    memset(&kd, 0, sizeof kd);
    ki.error_detail[0] = 0;
    kd.k = k;
    kd.metric = UMAP_METRIC_PRECOMPUTED;
    kd.allocator = *a;
    kd.logger = cfg->logger;
    kd.pool = pool;
    kd.n_threads = 1; /* without a pool: the calling thread */
    kd.info = &ki;
    if (!(dist = (float *)umap__alloc(a, (size_t)(n * k) * sizeof(float))) ||
        !(out->indptr = (int64_t *)umap__alloc(a, (size_t)(n + 1) * sizeof(int64_t))))
        goto done;
    if ((r = umap__sp_select_rows(&kd, g, self, NULL, dist)) != UMAP_OK) {
        r = umap__fail(err, r, "%s", ki.error_detail);
        goto done;
    }
    for (out->indptr[0] = 0, i = 0; i < n; i++) { /* each row's stored entries, and a training row's own */
        int64_t t, add_own = self;
        for (t = g->indptr[i]; add_own && t < g->indptr[i + 1]; t++)
            if (g->indices[t] == i) add_own = 0; /* stored already */
        out->indptr[i + 1] = out->indptr[i] + (g->indptr[i + 1] - g->indptr[i]) + add_own;
    }
    nnz = out->indptr[n];
    r = UMAP_ERR_OUT_OF_MEMORY;
    if (!(out->indices = (int32_t *)umap__alloc(a, (size_t)(nnz ? nnz : 1) * sizeof(int32_t))) ||
        !(out->values = (float *)umap__alloc(a, (size_t)(nnz ? nnz : 1) * sizeof(float))))
        goto done;
    memset(&c, 0, sizeof c);
    c.g = g; c.self = self; c.k = k; c.dist = dist; c.out = out;
    c.local_connectivity = cfg->local_connectivity;
    c.target = (float)(log2((double)k + 1.0) * cfg->bandwidth);
    umap__parallel_range(pool, n, 256, umap__graph_input_range, &c);
    out->rows = umap_rows_csr(n, g->dim, out->indptr, out->indices, out->values);
    r = UMAP_OK;
done:
    if (r == UMAP_ERR_OUT_OF_MEMORY && !ki.error_detail[0])
        r = umap__fail(err, r, "out of memory for the memberships of %lld rows of a graph of distances", (long long)n);
    if (r != UMAP_OK) umap__csr_buf_free(a, out);
    umap__free(a, dist);
    return r;
}

/* out (n x m->sketch_dims) = the sketch a UMAP_KEEP_SKETCH model keeps of its
   training rows and searches new rows by: the rows on their own leading
   principal axes (sketch_axes), centred as the encoder centres them but
   not scaled, so that distances between sketches approximate the euclidean
   distances fit's k-NN graph measured. (Z-scores would give a nearly
   constant column, an image's border pixel, the weight of the busiest,
   and the sketch's neighbours would be fewer of the rows'.) A file from
   before the axes keeps the rows as the encoder's first layer sees them:
   z-scored, and projected when the model projects its input. Data too
   large for float gives a sketch that is not finite: the callers check. */
static umap_result umap__sketch(const umap_model *m, umap_pool *pool, const float *x, int64_t n, float *out) {
    if (m->sketch_axes) return umap__project(m, NULL, pool, x, n, m->sketch_axes, m->sketch_dims, out);
    return umap__encoder_input(m, pool, x, n, out);
}

/* the map (sketch_dims x width[0]) from a row's sketch to the encoder's
   input of the sketch's reconstruction mean + sketch axes^T: axes^T
   diag(inv_std) proj (proj the identity when the model does not project) */
static float *umap__sketch_to_input_map(const umap_model *m) {
    int64_t d = m->n_features, s = m->sketch_dims, w = m->width[0], j, q, c;
    float *map = (float *)umap__calloc(&m->alloc, (size_t)(s * w), sizeof(float));
    for (q = 0; map && q < s; q++)
        for (j = 0; j < d; j++) {
            float t = m->sketch_axes[j * s + q] * m->inv_std[j];
            if (!m->proj) map[q * w + j] = t;
            else
                for (c = 0; c < w; c++) map[q * w + c] += t * m->proj[j * w + c];
        }
    return map;
}

/* out (n x m->width[0]) = the encoder's input of the rows whose sketches
   are sk (n x sketch_dims), as if each row were its sketch's
   reconstruction: sk sketch_to_input, a product of sketch_dims columns
   instead of the rows' n_features. The walks' seeds need no more: they
   only start the search. */
static umap_result umap__encoder_input_of_sketch(const umap_model *m, umap_pool *pool, const float *sk, int64_t n,
                                                 float *out) {
    int64_t s = m->sketch_dims, w = m->width[0];
    float *ws = (float *)umap__alloc(&m->alloc, (size_t)umap__gemm_workspace(w, s) * sizeof(float));
    if (!ws) return UMAP_ERR_OUT_OF_MEMORY;
    umap__sgemm_pool(pool, 0, 0, n, w, s, sk, m->sketch_to_input, out, ws);
    umap__free(&m->alloc, ws);
    return UMAP_OK;
}

/* >>init: the encoder's warm start: PCA, the spectral layout, the caller's ------- */

/* --- the spectral layout: the fuzzy graph's Laplacian eigenvectors (UMAP_INIT_SPECTRAL)

   LOBPCG (Knyazev) for the largest eigenvalues of M = I + D^-1/2 W D^-1/2,
   which are the smallest of the normalised Laplacian L = I - D^-1/2 W D^-1/2
   (lambda_L = 2 - theta_M): M is positive semi-definite with its spectrum in
   [0, 2], so no shift is needed, and the trivial eigenvector D^1/2 1
   (theta 2) is projected out of every vector, as a known one. The basis
   [X, residuals, previous directions] is kept orthonormal by two rounds of
   projection and SVQB (eigen-decomposed Gram matrices that drop dependent
   columns), the stable form of LOBPCG. Vectors are double, column after
   column; the sparse products run over row ranges and every reduction sums
   fixed 4096-row chunks in order, so the result is the same for any thread
   count. */
#ifndef UMAP_SPECTRAL_TOL
#define UMAP_SPECTRAL_TOL 1e-4 /* residual norm of a unit eigenvector */
#endif
#ifndef UMAP_SPECTRAL_MAX_ITER
#define UMAP_SPECTRAL_MAX_ITER 1000
#endif
#define UMAP__SPECTRAL_EXTRA 4 /* block size n_components + this: better gaps, fewer iterations */
#define UMAP__SPECTRAL_CHUNK 4096
#define UMAP__STREAM_SPECTRAL 0x5000000000000000ull

/* Eigen-decomposition of a symmetric m x m matrix a (destroyed) by cyclic
   Jacobi rotations: w descending, v's column j (row-major m x m) its unit
   eigenvector. Small m (the LOBPCG basis), double throughout. */
static void umap__sym_eig(int m, double *a, double *w, double *v) {
    int i, j, k, sweep;
    for (i = 0; i < m * m; i++) v[i] = 0.0;
    for (i = 0; i < m; i++) v[i * m + i] = 1.0;
    for (sweep = 0; sweep < 100; sweep++) {
        double off = 0.0, total = 0.0;
        for (i = 0; i < m; i++)
            for (j = 0; j < m; j++) {
                total += a[i * m + j] * a[i * m + j];
                if (i != j) off += a[i * m + j] * a[i * m + j];
            }
        if (off <= 1e-30 * total || off == 0.0) break;
        for (i = 0; i < m; i++)
            for (j = i + 1; j < m; j++) {
                double apq = a[i * m + j], theta, t, c, s;
                if (fabs(apq) < 1e-300) continue;
                theta = (a[j * m + j] - a[i * m + i]) / (2.0 * apq);
                t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                c = 1.0 / sqrt(t * t + 1.0);
                s = t * c;
                for (k = 0; k < m; k++) { /* columns i, j */
                    double aki = a[k * m + i], akj = a[k * m + j];
                    a[k * m + i] = c * aki - s * akj;
                    a[k * m + j] = s * aki + c * akj;
                }
                for (k = 0; k < m; k++) { /* rows i, j */
                    double aik = a[i * m + k], ajk = a[j * m + k];
                    a[i * m + k] = c * aik - s * ajk;
                    a[j * m + k] = s * aik + c * ajk;
                }
                for (k = 0; k < m; k++) {
                    double vki = v[k * m + i], vkj = v[k * m + j];
                    v[k * m + i] = c * vki - s * vkj;
                    v[k * m + j] = s * vki + c * vkj;
                }
            }
    }
    for (i = 0; i < m; i++) w[i] = a[i * m + i];
    for (i = 0; i < m; i++) { /* selection sort, descending, columns with their values */
        int best = i;
        for (j = i + 1; j < m; j++)
            if (w[j] > w[best]) best = j;
        if (best != i) {
            double t = w[i];
            w[i] = w[best];
            w[best] = t;
            for (k = 0; k < m; k++) {
                t = v[k * m + i];
                v[k * m + i] = v[k * m + best];
                v[k * m + best] = t;
            }
        }
    }
}

typedef struct umap__lobpcg {
    umap_pool *pool;
    int64_t n, n_chunks;
    /* M's off-diagonal part, both directions of every edge: row i's entries
       start[i] .. start[i + 1] */
    int64_t *start;
    int32_t *col;
    double *val;
    /* one kernel's arguments */
    const double *const *u;
    const double *const *v;
    double **out;
    const double *coef;
    int p, q;
    double *partial;  /* n_chunks x p x q */
} umap__lobpcg;

/* out[j] = M u[j] for j < p, over rows [b, e) */
static void umap__lobpcg_spmv(void *ctx, int64_t b, int64_t e) {
    const umap__lobpcg *s = (const umap__lobpcg *)ctx;
    int j;
    int64_t i, t;
    for (j = 0; j < s->p; j++) {
        const double *x = s->u[j];
        double *y = s->out[j];
        for (i = b; i < e; i++) {
            double acc = x[i];
            for (t = s->start[i]; t < s->start[i + 1]; t++) acc += s->val[t] * x[s->col[t]];
            y[i] = acc;
        }
    }
}

/* one chunk's u^T v into its slot of partial */
static void umap__lobpcg_gram_chunk(void *ctx, int64_t chunk) {
    const umap__lobpcg *s = (const umap__lobpcg *)ctx;
    int64_t b = chunk * UMAP__SPECTRAL_CHUNK, e = b + UMAP__SPECTRAL_CHUNK < s->n ? b + UMAP__SPECTRAL_CHUNK : s->n, i;
    double *g = s->partial + chunk * s->p * s->q;
    int a, c, same = s->u == s->v && s->p == s->q; /* a Gram matrix: its upper half, mirrored */
    for (a = 0; a < s->p; a++)
        for (c = same ? a : 0; c < s->q; c++) {
            const double *x = s->u[a], *y = s->v[c];
            double acc[4] = {0.0, 0.0, 0.0, 0.0}; /* four lanes: the sum's order is fixed by the chunk alone */
            for (i = b; i + 4 <= e; i += 4) {
                acc[0] += x[i] * y[i];
                acc[1] += x[i + 1] * y[i + 1];
                acc[2] += x[i + 2] * y[i + 2];
                acc[3] += x[i + 3] * y[i + 3];
            }
            for (; i < e; i++) acc[0] += x[i] * y[i];
            g[a * s->q + c] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
            if (same) g[c * s->q + a] = g[a * s->q + c];
        }
}

/* out[c] = sum_a u[a] coef[a * q + c], over rows [b, e) */
static void umap__lobpcg_combine(void *ctx, int64_t b, int64_t e) {
    const umap__lobpcg *s = (const umap__lobpcg *)ctx;
    int a, c;
    int64_t i;
    for (c = 0; c < s->q; c++) {
        double *y = s->out[c];
        for (i = b; i < e; i++) y[i] = 0.0;
        for (a = 0; a < s->p; a++) {
            const double *x = s->u[a];
            double k = s->coef[a * s->q + c];
            if (k == 0.0) continue;
            for (i = b; i < e; i++) y[i] += k * x[i];
        }
    }
}

static void umap__lobpcg_mul(umap__lobpcg *s, double *const *u, double *const *out, int p) {
    s->u = (const double *const *)u;
    s->out = (double **)out;
    s->p = p;
    umap__parallel_range(s->pool, s->n, 1024, umap__lobpcg_spmv, s);
}

/* g (p x q) = u^T v: chunks in parallel, summed in chunk order */
static void umap__lobpcg_gram(umap__lobpcg *s, double *const *u, int p, double *const *v, int q, double *g) {
    int64_t ch;
    int k;
    s->u = (const double *const *)u;
    s->v = (const double *const *)v;
    s->p = p;
    s->q = q;
    umap_pool_for(s->pool, s->n_chunks, umap__lobpcg_gram_chunk, s);
    for (k = 0; k < p * q; k++) {
        double acc = 0.0;
        for (ch = 0; ch < s->n_chunks; ch++) acc += s->partial[ch * p * q + k];
        g[k] = acc;
    }
}

/* out[c] = sum_a u[a] coef[a][c] (out must not alias u) */
static void umap__lobpcg_lin(umap__lobpcg *s, double *const *u, int p, const double *coef, double *const *out, int q) {
    s->u = (const double *const *)u;
    s->out = (double **)out;
    s->coef = coef;
    s->p = p;
    s->q = q;
    umap__parallel_range(s->pool, s->n, 2048, umap__lobpcg_combine, s);
}

/* z[0..nz) minus their components along the orthonormal q[0..nq): z -= q (q^T z) */
static void umap__lobpcg_project(umap__lobpcg *s, double *const *q, int nq, double *const *z, int nz, double *g,
                                 double *const *tmp) {
    int c;
    int64_t i;
    if (!nq || !nz) return;
    umap__lobpcg_gram(s, q, nq, z, nz, g);
    umap__lobpcg_lin(s, q, nq, g, tmp, nz);
    for (c = 0; c < nz; c++)
        for (i = 0; i < s->n; i++) z[c][i] -= tmp[c][i];
}

/* SVQB: z[0..nz) -> an orthonormal basis of their span (the columns moved to
   the front, their count returned); directions whose scaled Gram
   eigenvalue is below 1e-10 of the largest are dropped as dependent */
static int umap__lobpcg_svqb(umap__lobpcg *s, double **z, int nz, double *g, double *w, double *v, double *coef,
                             double **tmp) {
    double scale[3 * (64 + UMAP__SPECTRAL_EXTRA)];
    int a, c, kept = 0;
    if (!nz) return 0;
    umap__lobpcg_gram(s, z, nz, z, nz, g);
    for (a = 0; a < nz; a++) scale[a] = g[a * nz + a] > 1e-300 ? 1.0 / sqrt(g[a * nz + a]) : 0.0;
    for (a = 0; a < nz; a++)
        for (c = 0; c < nz; c++) g[a * nz + c] *= scale[a] * scale[c];
    umap__sym_eig(nz, g, w, v);
    for (c = 0; c < nz; c++)
        if (w[c] > 1e-10 * w[0] && w[c] > 0) kept++;
    for (a = 0; a < nz; a++)
        for (c = 0; c < kept; c++) coef[a * kept + c] = scale[a] * v[a * nz + c] / sqrt(w[c]);
    umap__lobpcg_lin(s, z, nz, coef, tmp, kept);
    for (c = 0; c < kept; c++) { /* swap the new columns in */
        double *t = z[c];
        z[c] = tmp[c];
        tmp[c] = t;
    }
    return kept;
}

static int32_t umap__uf_find(int32_t *parent, int32_t i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/* The spectral layout of a weighted undirected graph (edges listed once,
   weights > 0): *found 0 with a reason in detail, and out untouched, when
   it has none (disconnected, too few nodes, no convergence). */
static umap_result umap__spectral_solve(umap_pool *pool, const umap_allocator *alloc, int64_t n, const int32_t *head,
                                        const int32_t *tail, const float *weight, int64_t n_edges, int c,
                                        uint64_t seed, double tol, int max_iter, float *out, double *eigenvalues,
                                        int *iterations, int *found, char *detail, size_t detail_size) {
    umap__lobpcg s;
    int bs = c + UMAP__SPECTRAL_EXTRA, m_max, nz, np = 0, it, a, j, n_comp = 0, converged = 0;
    int64_t i, e;
    double *deg = NULL, *v0buf = NULL, *block = NULL, *g = NULL, *w = NULL, *y = NULL, *coef = NULL, *theta = NULL;
    double *X[64 + UMAP__SPECTRAL_EXTRA], *MX[64 + UMAP__SPECTRAL_EXTRA], *Z[2 * (64 + UMAP__SPECTRAL_EXTRA)];
    double *MZ[2 * (64 + UMAP__SPECTRAL_EXTRA)], *T[3 * (64 + UMAP__SPECTRAL_EXTRA)];
    double *S[3 * (64 + UMAP__SPECTRAL_EXTRA)], *MS[3 * (64 + UMAP__SPECTRAL_EXTRA)];
    double *v0[1];
    int32_t *parent = NULL;
    int64_t *fill = NULL;
    double rmax = 0.0;
    umap_rng rng;
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    memset(&s, 0, sizeof s);
    *found = 0;
    *iterations = 0;
    if (detail && detail_size) detail[0] = 0;
    if (c < 1 || c > 64) return UMAP_ERR_INVALID_ARGUMENT;
    for (e = 0; e < n_edges; e++)
        if (head[e] < 0 || head[e] >= n || tail[e] < 0 || tail[e] >= n || head[e] == tail[e] || !(weight[e] > 0) ||
            weight[e] > 3e38f) {
            if (detail) snprintf(detail, detail_size, "edge %lld: %d -- %d, weight %g (need distinct nodes in [0, %lld), weight > 0 and finite)",
                                 (long long)e, (int)head[e], (int)tail[e], weight[e], (long long)n);
            return UMAP_ERR_INVALID_ARGUMENT;
        }
    if (n - 1 < bs) { /* the block must fit beside the trivial vector */
        bs = (int)(n - 1);
        if (bs < c) {
            if (detail) snprintf(detail, detail_size, "%lld nodes: too few for %d eigenvectors after the trivial one", (long long)n, c);
            return UMAP_OK;
        }
    }
    m_max = 3 * bs;
    deg = (double *)umap__calloc(alloc, (size_t)n, sizeof(double));
    parent = (int32_t *)umap__alloc(alloc, (size_t)n * sizeof(int32_t));
    s.start = (int64_t *)umap__calloc(alloc, (size_t)n + 1, sizeof(int64_t));
    fill = (int64_t *)umap__alloc(alloc, (size_t)n * sizeof(int64_t));
    s.col = (int32_t *)umap__alloc(alloc, (size_t)(2 * n_edges + 1) * sizeof(int32_t));
    s.val = (double *)umap__alloc(alloc, (size_t)(2 * n_edges + 1) * sizeof(double));
    if (!deg || !parent || !s.start || !fill || !s.col || !s.val) goto done;
    /* connected components: the trivial eigenvalue repeats once per component,
       and the next eigenvectors would only tell the components apart */
    for (i = 0; i < n; i++) parent[i] = (int32_t)i;
    for (e = 0; e < n_edges; e++) {
        int32_t ra = umap__uf_find(parent, head[e]), rb = umap__uf_find(parent, tail[e]);
        if (ra != rb) parent[ra > rb ? ra : rb] = ra < rb ? ra : rb;
    }
    for (i = 0; i < n; i++) n_comp += umap__uf_find(parent, (int32_t)i) == i;
    if (n_comp > 1) {
        if (detail) snprintf(detail, detail_size, "the graph has %d connected components", n_comp);
        r = UMAP_OK;
        goto done;
    }
    /* M's off-diagonal part: w_ij / sqrt(d_i d_j), rows in edge order */
    for (e = 0; e < n_edges; e++) {
        deg[head[e]] += weight[e];
        deg[tail[e]] += weight[e];
        s.start[head[e] + 1]++;
        s.start[tail[e] + 1]++;
    }
    for (i = 0; i < n; i++) s.start[i + 1] += s.start[i];
    for (i = 0; i < n; i++) fill[i] = s.start[i];
    for (e = 0; e < n_edges; e++) {
        double v = weight[e] / sqrt(deg[head[e]] * deg[tail[e]]);
        s.col[fill[head[e]]] = tail[e];
        s.val[fill[head[e]]++] = v;
        s.col[fill[tail[e]]] = head[e];
        s.val[fill[tail[e]]++] = v;
    }
    s.pool = pool;
    s.n = n;
    s.n_chunks = (n + UMAP__SPECTRAL_CHUNK - 1) / UMAP__SPECTRAL_CHUNK;
    s.partial = (double *)umap__alloc(alloc, (size_t)s.n_chunks * m_max * m_max * sizeof(double));
    /* vectors: v0, X, MX, Z (2 bs), MZ (2 bs), T (3 bs) */
    block = (double *)umap__alloc(alloc, (size_t)n * (size_t)(1 + 9 * bs) * sizeof(double));
    g = (double *)umap__alloc(alloc, (size_t)m_max * m_max * sizeof(double));
    y = (double *)umap__alloc(alloc, (size_t)m_max * m_max * sizeof(double));
    coef = (double *)umap__alloc(alloc, (size_t)m_max * m_max * sizeof(double));
    w = (double *)umap__alloc(alloc, (size_t)m_max * sizeof(double));
    theta = (double *)umap__alloc(alloc, (size_t)m_max * sizeof(double));
    if (!s.partial || !block || !g || !y || !coef || !w || !theta) goto done;
    v0buf = block;
    for (j = 0; j < bs; j++) {
        X[j] = block + (size_t)n * (1 + j);
        MX[j] = block + (size_t)n * (1 + bs + j);
    }
    for (j = 0; j < 2 * bs; j++) {
        Z[j] = block + (size_t)n * (1 + 2 * bs + j);
        MZ[j] = block + (size_t)n * (1 + 4 * bs + j);
    }
    for (j = 0; j < 3 * bs; j++) T[j] = block + (size_t)n * (1 + 6 * bs + j);
    {   /* the trivial eigenvector D^1/2 1, unit length */
        double total = 0.0;
        for (i = 0; i < n; i++) total += deg[i];
        for (i = 0; i < n; i++) v0buf[i] = sqrt(deg[i] / total);
        v0[0] = v0buf;
    }
    /* a random start from the seed, off the trivial vector, orthonormal */
    umap_rng_init(&rng, seed, UMAP__STREAM_SPECTRAL);
    for (j = 0; j < bs; j++)
        for (i = 0; i < n; i++) X[j][i] = umap_rng_normal(&rng);
    for (a = 0, nz = bs; a < 2; a++) {
        umap__lobpcg_project(&s, v0, 1, X, nz, g, T);
        nz = umap__lobpcg_svqb(&s, X, nz, g, w, y, coef, T);
    }
    if (nz < bs) {
        if (detail) snprintf(detail, detail_size, "the random start spans only %d of %d directions", nz, bs);
        r = UMAP_OK;
        goto done;
    }
    umap__lobpcg_mul(&s, X, MX, bs);
    umap__lobpcg_gram(&s, X, bs, MX, bs, g);
    for (a = 0; a < bs; a++)
        for (j = 0; j < a; j++) g[a * bs + j] = g[j * bs + a] = 0.5 * (g[a * bs + j] + g[j * bs + a]);
    umap__sym_eig(bs, g, theta, y);
    umap__lobpcg_lin(&s, X, bs, y, T, bs);
    umap__lobpcg_lin(&s, MX, bs, y, T + bs, bs);
    for (j = 0; j < bs; j++) {
        double *t = X[j]; X[j] = T[j]; T[j] = t;
        t = MX[j]; MX[j] = T[bs + j]; T[bs + j] = t;
    }
    for (it = 1; it <= max_iter; it++) {
        int m;
        /* residuals R = M X - X diag(theta) in Z[0 .. bs), the previous directions after them */
        for (j = 0; j < bs; j++)
            for (i = 0; i < n; i++) Z[j][i] = MX[j][i] - theta[j] * X[j][i];
        umap__lobpcg_gram(&s, Z, bs, Z, bs, g);
        rmax = 0.0;
        for (j = 0; j < c; j++) rmax = fmax(rmax, sqrt(fmax(g[j * bs + j], 0.0)));
        *iterations = it;
        if (rmax <= tol) {
            converged = 1;
            break;
        }
        nz = bs + np;
        for (a = 0; a < 2; a++) {
            umap__lobpcg_project(&s, v0, 1, Z, nz, g, T);
            umap__lobpcg_project(&s, X, bs, Z, nz, g, T);
            nz = umap__lobpcg_svqb(&s, Z, nz, g, w, y, coef, T);
        }
        umap__lobpcg_mul(&s, Z, MZ, nz);
        m = bs + nz;
        for (j = 0; j < bs; j++) { S[j] = X[j]; MS[j] = MX[j]; }
        for (j = 0; j < nz; j++) { S[bs + j] = Z[j]; MS[bs + j] = MZ[j]; }
        /* Rayleigh-Ritz on the orthonormal basis S */
        umap__lobpcg_gram(&s, S, m, MS, m, g);
        for (a = 0; a < m; a++)
            for (j = 0; j < a; j++) g[a * m + j] = g[j * m + a] = 0.5 * (g[a * m + j] + g[j * m + a]);
        umap__sym_eig(m, g, w, y);
        for (a = 0; a < m; a++)
            for (j = 0; j < bs; j++) coef[a * bs + j] = y[a * m + j];
        umap__lobpcg_lin(&s, S, m, coef, T, bs);
        umap__lobpcg_lin(&s, MS, m, coef, T + bs, bs);
        /* the new directions: the part of the new X outside the old one */
        if (nz) umap__lobpcg_lin(&s, Z, nz, coef + bs * bs, T + 2 * bs, bs);
        for (j = 0; j < bs; j++) {
            double *t = X[j]; X[j] = T[j]; T[j] = t;
            t = MX[j]; MX[j] = T[bs + j]; T[bs + j] = t;
            if (nz) { t = Z[bs + j]; Z[bs + j] = T[2 * bs + j]; T[2 * bs + j] = t; }
            theta[j] = w[j];
        }
        np = nz ? bs : 0;
    }
    if (!converged) {
        if (detail) snprintf(detail, detail_size, "the eigensolver did not converge in %d iterations (residual %.3g > %.3g)",
                             max_iter, rmax, tol);
        r = UMAP_OK;
        goto done;
    }
    for (j = 0; j < c; j++) { /* sign: the largest entry positive */
        int64_t arg = 0;
        double sign;
        for (i = 1; i < n; i++)
            if (fabs(X[j][i]) > fabs(X[j][arg])) arg = i;
        sign = X[j][arg] < 0 ? -1.0 : 1.0;
        for (i = 0; i < n; i++) out[i * c + j] = (float)(sign * X[j][i]);
        if (eigenvalues) eigenvalues[j] = 2.0 - theta[j];
    }
    *found = 1;
    r = UMAP_OK;
done:
    umap__free(alloc, deg);
    umap__free(alloc, parent);
    umap__free(alloc, s.start);
    umap__free(alloc, fill);
    umap__free(alloc, s.col);
    umap__free(alloc, s.val);
    umap__free(alloc, s.partial);
    umap__free(alloc, block);
    umap__free(alloc, g);
    umap__free(alloc, y);
    umap__free(alloc, coef);
    umap__free(alloc, w);
    umap__free(alloc, theta);
    return r;
}

UMAP__FN umap_result umap_spectral_layout(umap_spectral_desc *desc, int64_t n, const int32_t *head,
                                          const int32_t *tail, const float *weight, int64_t n_edges,
                                          int n_components, float *out, double *eigenvalues) {
    umap_spectral_desc def;
    umap_pool *pool = NULL;
    umap_result r;
    if (!desc) {
        memset(&def, 0, sizeof def);
        desc = &def;
    }
    desc->iterations = 0;
    desc->found = 0;
    desc->detail[0] = 0;
    if (n < 2 || n > 2147483647 / 2 || n_edges < 0 || (n_edges && (!head || !tail || !weight)) || !out ||
        n_components < 1 || n_components > 64 || desc->tol < 0 || desc->max_iter < 0) {
        snprintf(desc->detail, sizeof desc->detail, "n = %lld, n_edges = %lld, n_components = %d, tol = %g, max_iter = %d: need "
                 "2 <= n < 2^30, 1 <= n_components <= 64, tol, max_iter >= 0, the arrays",
                 (long long)n, (long long)n_edges, n_components, desc->tol, desc->max_iter);
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    if ((r = umap_pool_create(desc->n_threads, &desc->allocator, &pool)) != UMAP_OK) return r;
    r = umap__spectral_solve(pool, &desc->allocator, n, head, tail, weight, n_edges, n_components, desc->seed,
                             desc->tol > 0 ? desc->tol : UMAP_SPECTRAL_TOL,
                             desc->max_iter > 0 ? desc->max_iter : UMAP_SPECTRAL_MAX_ITER, out, eigenvalues,
                             &desc->iterations, &desc->found, desc->detail, sizeof desc->detail);
    umap_pool_free(pool);
    return r;
}

/* the rows' top c principal coordinates (unscaled) into target (n x c) */
static umap_result umap__pca_coords(umap__fitter *f, float *target) {
    umap_model *m = f->m;
    int64_t n = f->n, i, c = m->n_components;
    float *axes = NULL;
    umap_result r = UMAP_OK;
    if (m->proj && f->c.metric == UMAP_METRIC_PRECOMPUTED) {
        /* the landmark distances' own axes, about their means (which are 0
           when the columns were z-scored, not without standardize) */
        int64_t w = f->train_d, j;
        float *mean = (float *)umap__alloc(f->a, (size_t)w * sizeof(float));
        if (!mean || !(axes = (float *)umap__alloc(f->a, (size_t)(w * c) * sizeof(float)))) {
            r = UMAP_ERR_OUT_OF_MEMORY;
        } else {
            for (j = 0; j < w; j++) {
                double s = 0.0;
                for (i = 0; i < n; i++) s += f->train_x[i * w + j];
                mean[j] = (float)(s / (double)n);
            }
            if ((r = umap__principal_axes_of(f->a, w, mean, NULL, f->pool, f->train_x, n, (int)c, f->c.seed, axes)) ==
                UMAP_OK)
                r = umap__project_of(f->a, w, mean, NULL, f->pool, f->train_x, n, axes, (int)c, target);
        }
        umap__free(f->a, mean);
        umap__free(f->a, axes);
        return r;
    }
    if (m->proj && m->proj_dims >= c) { /* the projection's leading columns already are these */
        for (i = 0; i < n; i++) memcpy(target + i * c, f->train_x + i * f->train_d, (size_t)c * sizeof(float));
        return UMAP_OK;
    }
    if (!(axes = (float *)umap__alloc(f->a, (size_t)(m->n_features * c) * sizeof(float)))) return UMAP_ERR_OUT_OF_MEMORY;
    if ((r = umap__principal_axes(m, m->inv_std, f->pool, f->x, n, (int)c, f->c.seed, axes)) == UMAP_OK)
        r = umap__project(m, m->inv_std, f->pool, f->x, n, axes, (int)c, target);
    umap__free(f->a, axes);
    return r;
}

/* The spectral layout of the fuzzy graph into target, or *found 0 with why.
   A disconnected graph is laid out as umap-learn's multi-component layout
   does it, with PCA for its meta layout: each component sits at the mean
   of its rows' principal coordinates, its own spectral layout (its rows'
   centred principal coordinates where it has none: too few nodes, no
   convergence) scaled to half the distance to the nearest other
   component's place. */
static umap_result umap__spectral_target(umap__fitter *f, const umap__edges *e, float *target, int *found, char *why,
                                         size_t why_size) {
    const umap_allocator *a = f->a;
    int64_t n = f->n, c = f->m->n_components, i, j, ed, n_comp = 0, k;
    int32_t *parent = NULL, *comp = NULL, *local = NULL, *sub_head = NULL, *sub_tail = NULL;
    int64_t *size = NULL, *first = NULL, *edge_start = NULL, *edge_fill = NULL, *node_start = NULL;
    int32_t *nodes = NULL, *edge_order = NULL;
    float *sub_weight = NULL, *sub_out = NULL;
    double *meta = NULL, *radius = NULL;
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    int iters = 0;
    *found = 0;
    if (!(parent = (int32_t *)umap__alloc(a, (size_t)n * sizeof(int32_t))) ||
        !(comp = (int32_t *)umap__alloc(a, (size_t)n * sizeof(int32_t))))
        goto done;
    for (i = 0; i < n; i++) parent[i] = (int32_t)i;
    for (ed = 0; ed < e->n; ed++) {
        int32_t ra = umap__uf_find(parent, e->head[ed]), rb = umap__uf_find(parent, e->tail[ed]);
        if (ra != rb) parent[ra > rb ? ra : rb] = ra < rb ? ra : rb;
    }
    for (i = 0; i < n; i++) { /* components numbered by their first row */
        int32_t root = umap__uf_find(parent, (int32_t)i);
        comp[i] = root == i ? (int32_t)n_comp++ : comp[root];
    }
    if (n_comp == 1) {
        r = umap__spectral_solve(f->pool, a, n, e->head, e->tail, e->weight, e->n, (int)c, f->c.seed,
                                 UMAP_SPECTRAL_TOL, UMAP_SPECTRAL_MAX_ITER, target, NULL, &f->info->spectral_iterations,
                                 found, why, why_size);
        goto done;
    }
    /* the meta layout: each component's mean principal coordinates */
    if ((r = umap__pca_coords(f, target)) != UMAP_OK) goto done;
    r = UMAP_ERR_OUT_OF_MEMORY;
    size = (int64_t *)umap__calloc(a, (size_t)n_comp, sizeof(int64_t));
    meta = (double *)umap__calloc(a, (size_t)(n_comp * c), sizeof(double));
    radius = (double *)umap__alloc(a, (size_t)n_comp * sizeof(double));
    node_start = (int64_t *)umap__calloc(a, (size_t)n_comp + 1, sizeof(int64_t));
    edge_start = (int64_t *)umap__calloc(a, (size_t)n_comp + 1, sizeof(int64_t));
    edge_fill = (int64_t *)umap__alloc(a, (size_t)n_comp * sizeof(int64_t));
    first = (int64_t *)umap__alloc(a, (size_t)n_comp * sizeof(int64_t));
    nodes = (int32_t *)umap__alloc(a, (size_t)n * sizeof(int32_t));
    local = (int32_t *)umap__alloc(a, (size_t)n * sizeof(int32_t));
    edge_order = (int32_t *)umap__alloc(a, (size_t)(e->n ? e->n : 1) * sizeof(int32_t));
    sub_head = (int32_t *)umap__alloc(a, (size_t)(e->n ? e->n : 1) * sizeof(int32_t));
    sub_tail = (int32_t *)umap__alloc(a, (size_t)(e->n ? e->n : 1) * sizeof(int32_t));
    sub_weight = (float *)umap__alloc(a, (size_t)(e->n ? e->n : 1) * sizeof(float));
    sub_out = (float *)umap__alloc(a, (size_t)(n * c) * sizeof(float));
    if (!size || !meta || !radius || !node_start || !edge_start || !edge_fill || !first || !nodes || !local ||
        !edge_order || !sub_head || !sub_tail || !sub_weight || !sub_out)
        goto done;
    for (i = 0; i < n; i++) {
        size[comp[i]]++;
        for (j = 0; j < c; j++) meta[comp[i] * c + j] += target[i * c + j];
    }
    for (k = 0; k < n_comp; k++)
        for (j = 0; j < c; j++) meta[k * c + j] /= (double)size[k];
    for (k = 0; k < n_comp; k++) {
        double best = HUGE_VAL;
        int64_t o;
        for (o = 0; o < n_comp; o++) {
            double d2 = 0.0;
            if (o == k) continue;
            for (j = 0; j < c; j++) d2 += (meta[k * c + j] - meta[o * c + j]) * (meta[k * c + j] - meta[o * c + j]);
            best = d2 < best ? d2 : best;
        }
        radius[k] = 0.5 * sqrt(best);
        if (!(radius[k] > 0)) {
            snprintf(why, why_size, "the graph has %lld connected components, two of them at the same principal coordinates",
                     (long long)n_comp);
            r = UMAP_OK;
            goto done;
        }
    }
    /* rows and edges grouped by component, rows renumbered within theirs */
    for (k = 0; k < n_comp; k++) node_start[k + 1] = node_start[k] + size[k];
    for (k = 0; k < n_comp; k++) first[k] = node_start[k];
    for (i = 0; i < n; i++) {
        local[i] = (int32_t)(first[comp[i]] - node_start[comp[i]]);
        nodes[first[comp[i]]++] = (int32_t)i;
    }
    for (ed = 0; ed < e->n; ed++) edge_start[comp[e->head[ed]] + 1]++;
    for (k = 0; k < n_comp; k++) edge_start[k + 1] += edge_start[k];
    for (k = 0; k < n_comp; k++) edge_fill[k] = edge_start[k];
    for (ed = 0; ed < e->n; ed++) edge_order[edge_fill[comp[e->head[ed]]]++] = (int32_t)ed;
    for (k = 0; k < n_comp; k++) {
        int64_t sk = size[k], ne = edge_start[k + 1] - edge_start[k], t;
        double amax = 0.0;
        int got = 0, it = 0;
        char sub_why[160];
        if (sk >= c + 2) { /* its own spectral layout */
            for (t = 0; t < ne; t++) {
                int32_t eid = edge_order[edge_start[k] + t];
                sub_head[t] = local[e->head[eid]];
                sub_tail[t] = local[e->tail[eid]];
                sub_weight[t] = e->weight[eid];
            }
            r = umap__spectral_solve(f->pool, a, sk, sub_head, sub_tail, sub_weight, ne, (int)c, f->c.seed,
                                     UMAP_SPECTRAL_TOL, UMAP_SPECTRAL_MAX_ITER, sub_out, NULL, &it, &got, sub_why,
                                     sizeof sub_why);
            if (r != UMAP_OK) goto done;
            iters += it;
        }
        for (t = 0; t < sk; t++) { /* else its centred principal coordinates */
            int64_t row = nodes[node_start[k] + t];
            for (j = 0; j < c; j++)
                if (!got) sub_out[t * c + j] = (float)(target[row * c + j] - meta[k * c + j]);
        }
        for (t = 0; t < sk * c; t++) amax = fmax(amax, fabs(sub_out[t]));
        for (t = 0; t < sk; t++) {
            int64_t row = nodes[node_start[k] + t];
            for (j = 0; j < c; j++)
                target[row * c + j] = (float)(meta[k * c + j] + (amax > 0 ? sub_out[t * c + j] * radius[k] / amax : 0.0));
        }
    }
    f->info->spectral_iterations = iters;
    umap__log(&f->c.logger, UMAP_LOG_INFO, "fit: spectral init: %lld connected components, each laid out on its own",
              (long long)n_comp);
    *found = 1;
    r = UMAP_OK;
done:
    umap__free(a, parent);
    umap__free(a, comp);
    umap__free(a, local);
    umap__free(a, sub_head);
    umap__free(a, sub_tail);
    umap__free(a, size);
    umap__free(a, first);
    umap__free(a, edge_start);
    umap__free(a, edge_fill);
    umap__free(a, node_start);
    umap__free(a, nodes);
    umap__free(a, edge_order);
    umap__free(a, sub_weight);
    umap__free(a, sub_out);
    umap__free(a, meta);
    umap__free(a, radius);
    return r;
}

/* The warm start's target (n x c) for the config's init, into target;
   *used says which ran (a spectral init falls back to PCA, with a warning,
   where the graph has no spectral layout). */
static umap_result umap__init_target(umap__fitter *f, const umap__edges *e, float *target, umap_init *used) {
    int64_t n = f->n, i, c = f->m->n_components;
    double mean0 = 0.0, var0 = 0.0, scale;
    umap_result r = UMAP_OK;
    *used = f->c.init;
    if (f->c.init == UMAP_INIT_COORDS) { /* the caller's, checked finite, used as given */
        memcpy(target, f->c.init_coords, (size_t)(n * c) * sizeof(float));
        return UMAP_OK;
    }
    if (f->c.init == UMAP_INIT_SPECTRAL) {
        char why[200];
        int found = 0;
        why[0] = 0;
        if ((r = umap__spectral_target(f, e, target, &found, why, sizeof why)) != UMAP_OK)
            return r == UMAP_ERR_OUT_OF_MEMORY ? r : umap__fail(&f->err, r, "spectral init: %s", why);
        if (!found) {
            umap__log(&f->c.logger, UMAP_LOG_WARN, "fit: spectral init: %s; PCA instead", why);
            *used = UMAP_INIT_PCA;
        }
    }
    if (*used == UMAP_INIT_PCA && (r = umap__pca_coords(f, target)) != UMAP_OK) return r;
    /* PCA's and the spectral layout's scale: the first coordinate's std 3,
       about the spread UMAP settles at; the others keep their ratio to it */
    for (i = 0; i < n; i++) mean0 += target[i * c];
    mean0 /= (double)n;
    for (i = 0; i < n; i++) var0 += (target[i * c] - mean0) * (target[i * c] - mean0);
    scale = var0 > 0 ? 3.0 / sqrt(var0 / (double)n) : 1.0;
    for (i = 0; i < n * c; i++) target[i] = (float)(target[i] * scale);
    if (*used == UMAP_INIT_SPECTRAL) { /* umap-learn's tiny noise: ties apart, from the seed */
        umap_rng rng;
        umap_rng_init(&rng, f->c.seed, UMAP__STREAM_SPECTRAL + 1);
        for (i = 0; i < n * c; i++) target[i] += 1e-4f * umap_rng_normal(&rng);
    }
    return UMAP_OK;
}

/* >>train: the encoder trained by UMAP's loss on sampled edges ------------------- */

/* The training program: one step = forward and backward of the loss over a
   batch of B sampled edges (a shard of Bs of them, below). Rows gathered
   from the caller's data: [Bs heads | Bs tails]; each head meets
   negative_sample_rate rows of the shard itself (indices `negs`), drawn
   uniformly, as ParametricUMAP does within its batch:
   a separate pool of uniformly drawn rows costs a third more encoder work
   per step and did not place rows better.

   On the CPU a step runs as shards: its batch is cut into shards of about
   UMAP__SHARD_EDGES edges, each a copy of the program on one thread, side
   by side on the pool, whose loss and gradients are then averaged in
   shard order. A step's products are too small to split across cores
   (each op's hand-off and the data moving between the cores' caches cost
   more than its arithmetic: two threads ran a 256-edge step no faster
   than one), and a shard's working set stays in its core's cache. The
   number of shards follows the batch size alone, never the thread count,
   so the bits do not depend on the threads. Each head meets negatives
   among its own shard's rows. A device backend runs the batch as one. */
#define UMAP__SHARD_EDGES 128
#define UMAP__MAX_SHARDS 16

/* One training program as n copies, one per shard (n = 1: the whole batch). */
typedef struct umap__sharded {
    umap_program *p[UMAP__MAX_SHARDS];
    int n;
} umap__sharded;

typedef struct umap__trainer {
    umap_graph *g;
    umap__sharded step;       /* the UMAP loss */
    umap__sharded warm;       /* regression onto the init's layout (the warm start) */
    umap__sharded distill;    /* regression onto the refined embedding (see below) */
    int B, neg;
    int shards, Bs;           /* the batch as shards of Bs = B / shards edges or regression rows */
    umap_pool *shard_pool[UMAP__MAX_SHARDS]; /* one thread each, the fit pool's tuner (shards > 1) */
    int32_t *rows, *negs, *warm_rows; /* shard s's part at s times its size */
    float *warm_target;      /* B x c per regression step, for both regressions */
} umap__trainer;

/* The shards of a batch of B: the most, up to one per UMAP__SHARD_EDGES,
   that divide it evenly (1 for a device backend). */
static int umap__shard_count(int B, int on_cpu) {
    int n = on_cpu ? B / UMAP__SHARD_EDGES : 1;
    if (n > UMAP__MAX_SHARDS) n = UMAP__MAX_SHARDS;
    while (n > 1 && B % n) n--;
    return n < 1 ? 1 : n;
}

/* May a sharded run average into p's outputs? Each must own a distinct
   buffer of the arena (no constant, no bound input, no output twice). */
static int umap__outputs_owned(const umap_program *p) {
    int i, j;
    for (i = 0; i < p->n_outputs; i++) {
        int root = umap__alias_root(p, p->outputs[i]);
        if (p->storage[root] != UMAP__ST_ARENA) return 0;
        for (j = 0; j < i; j++)
            if (umap__alias_root(p, p->outputs[j]) == root) return 0;
    }
    return 1;
}

typedef struct umap__shard_job {
    umap__sharded *sp;
    umap_result r[UMAP__MAX_SHARDS];
} umap__shard_job;

static void umap__shard_task(void *ctx, int64_t s) {
    umap__shard_job *job = (umap__shard_job *)ctx;
    job->r[s] = umap_program_run(job->sp->p[s]);
}

/* Runs every shard, then leaves the batch's mean of each output (the
   loss, the gradients) in shard 0's, where Adam reads them. */
static umap_result umap__sharded_run(umap_pool *pool, umap__sharded *sp) {
    umap__shard_job job;
    umap_program *p0 = sp->p[0];
    int s, o;
    if (sp->n == 1) return umap_program_run(p0);
    job.sp = sp;
    umap_pool_for(pool, sp->n, umap__shard_task, &job);
    for (s = 0; s < sp->n; s++)
        if (job.r[s] != UMAP_OK)
            return s == 0 ? job.r[0] : umap__fail(&p0->err, job.r[s], "shard %d: %s", s, sp->p[s]->detail);
    for (o = 0; o < p0->n_outputs; o++) {
        float *acc = (float *)p0->ptr[p0->outputs[o]], scale = 1.0f / (float)sp->n;
        int64_t i, numel = umap_shape_numel(p0->nodes[p0->outputs[o]].shape);
        for (s = 1; s < sp->n; s++) {
            const float *x = (const float *)sp->p[s]->ptr[sp->p[s]->outputs[o]];
            for (i = 0; i < numel; i++) acc[i] += x[i];
        }
        for (i = 0; i < numel; i++) acc[i] *= scale;
    }
    return UMAP_OK;
}

static void umap__sharded_free(umap__sharded *sp) {
    int s;
    for (s = 0; s < sp->n; s++) umap_program_free(sp->p[s]);
    memset(sp, 0, sizeof *sp);
}

/* each row's sum of squares (n x c -> n) */
static umap_tensor *umap__row_sumsq(umap_graph *g, umap_tensor *d) {
    return umap_sum(g, umap_square(g, d), 1u << 1, 0);
}

/* squared distances between matching rows of a and b (n x c -> n) */
static umap_tensor *umap__sq_dist(umap_graph *g, umap_tensor *a, umap_tensor *b) {
    return umap__row_sumsq(g, umap_sub(g, a, b));
}

/* UMAP's attraction -log q(d) = log1p(a d^2b) of squared distances d2 (the
   training's pull along an edge, the distillation's pull to a target) */
static umap_tensor *umap__attraction(umap_graph *g, const umap_model *m, umap_tensor *d2) {
    return umap_log1p(g, umap_mul_scalar(g, umap_pow(g, umap_add_scalar(g, d2, 1e-6f), umap_scalar(g, m->b)), m->a));
}

/* Adam with the fit's settings on an MLP's parameters, their gradients
   the program's outputs 1, 2, ... in the MLP's order */
static umap_result umap__mlp_train_attach(const umap__fitter *f, const umap__mlp *e, umap_program *p) {
    char names[2 * (UMAP_MAX_HIDDEN + 1)][16];
    const char *name_ptr[2 * (UMAP_MAX_HIDDEN + 1)];
    int grad_out[2 * (UMAP_MAX_HIDDEN + 1)], i;
    umap_train_desc td;
    memset(&td, 0, sizeof td);
    for (i = 0; i < 2 * e->n_layers; i++) {
        umap__mlp_param_name(e, i, names[i], sizeof names[i]);
        name_ptr[i] = names[i];
        grad_out[i] = 1 + i;
    }
    td.n_params = 2 * e->n_layers;
    td.params = name_ptr;
    td.grad_outputs = grad_out;
    td.adam.lr = f->c.learning_rate;
    td.adam.beta1 = f->c.beta1; /* 0 is honoured: no momentum */
    td.adam.beta2 = f->c.beta2;
    td.adam.eps = f->c.adam_eps;
    td.adam.weight_decay = f->c.weight_decay;
    td.grad_clip = f->c.grad_clip;
    return umap_program_train_attach(p, &td);
}

static umap_result umap__build_programs(umap__fitter *f, umap__trainer *t) {
    const umap_model *m = f->m;
    umap_graph_desc gd;
    umap_compile_desc cd;
    umap__net net;
    umap_tensor *data, *rows, *negs, *z, *zh, *zt, *zn, *zr, *d2p, *d2n, *attr, *rep, *loss, *outs[1 + 2 * (UMAP_MAX_HIDDEN + 1)];
    umap_tensor *wrows, *wtarget, *wdiff, *wloss, *wouts[1 + 2 * (UMAP_MAX_HIDDEN + 1)], *douts[1 + 2 * (UMAP_MAX_HIDDEN + 1)];
    umap__sharded *progs[3];
    int c = m->n_components, np = 2 * m->n_layers, B = t->Bs, i, s;
    float eps_rep = 1e-3f;
    umap_result r;
    memset(&gd, 0, sizeof gd);
    gd.allocator = *f->a;
    gd.logger = f->c.logger;
    if ((r = umap_graph_create(&gd, &t->g)) != UMAP_OK) return r;
    umap__net_declare(t->g, m, &net);
    data = umap_input(t->g, "data", umap_shape2(f->n, f->train_d));
    rows = umap_input_i32(t->g, "rows", umap_shape1(2 * B));
    negs = umap_input_i32(t->g, "negs", umap_shape1((int64_t)B * t->neg));
    z = umap__net_apply(t->g, m, &net, umap_gather(t->g, data, rows), !m->proj);
    zh = umap_slice(t->g, z, 0, 0, B);
    zt = umap_slice(t->g, z, 0, B, B);
    /* attraction: -log q(d) = log1p(a d^2b) */
    d2p = umap__sq_dist(t->g, zh, zt);
    attr = umap__attraction(t->g, m, d2p);
    /* repulsion: -log(1 - q(d)) = log1p(1 / (a d^2b)), d^2 floored as umap-learn does */
    zn = umap_gather(t->g, z, negs);
    zr = umap_reshape(t->g, umap_broadcast(t->g, umap_reshape(t->g, zh, umap_shape3(B, 1, c)), umap_shape3(B, t->neg, c)),
                      umap_shape2((int64_t)B * t->neg, c));
    d2n = umap__sq_dist(t->g, zr, zn);
    rep = umap_log1p(t->g, umap_recip(t->g, umap_mul_scalar(t->g, umap_pow(t->g, umap_add_scalar(t->g, d2n, eps_rep), umap_scalar(t->g, m->b)), m->a)));
    loss = umap_add(t->g, umap_mul_scalar(t->g, umap_sum(t->g, attr, 1u, 0), 1.0f / B),
                    umap_mul_scalar(t->g, umap_sum(t->g, rep, 1u, 0), f->c.repulsion_strength / B));
    outs[0] = loss;
    if ((r = umap_graph_status(t->g)) != UMAP_OK || (r = umap_grad(t->g, loss, np, net.param, outs + 1)) != UMAP_OK)
        return umap__fail(&f->err, r, "building the training graph: %s", umap_graph_error_detail(t->g));
    /* The regressions onto a target layout. The warm start's is the mean
       squared error: its target is smooth (PCA, spectral) and the encoder
       should take all of it. The distillation's is UMAP's attraction
       between the encoder's output and the row's refined position: its
       pull fades with distance as 1/d, so where rows with nearly the same
       inputs were refined into different clusters the encoder puts such
       rows into the cluster most of them went to (the mode of the targets),
       where the squared error would put them between clusters (the mean),
       among rows they have nothing in common with. */
    wrows = umap_input_i32(t->g, "warm_rows", umap_shape1(B));
    wtarget = umap_input(t->g, "warm_target", umap_shape2(B, c));
    wdiff = umap_sub(t->g, umap__net_apply(t->g, m, &net, umap_gather(t->g, data, wrows), !m->proj), wtarget);
    wloss = umap_mean(t->g, umap_square(t->g, wdiff), 3u, 0);
    wouts[0] = wloss;
    if ((r = umap_graph_status(t->g)) != UMAP_OK || (r = umap_grad(t->g, wloss, np, net.param, wouts + 1)) != UMAP_OK)
        return umap__fail(&f->err, r, "building the warm-up graph: %s", umap_graph_error_detail(t->g));
    douts[0] = umap_mean(t->g, umap__attraction(t->g, m, umap__row_sumsq(t->g, wdiff)), 1u, 0);
    if ((r = umap_graph_status(t->g)) != UMAP_OK || (r = umap_grad(t->g, douts[0], np, net.param, douts + 1)) != UMAP_OK)
        return umap__fail(&f->err, r, "building the distillation graph: %s", umap_graph_error_detail(t->g));
    memset(&cd, 0, sizeof cd);
    for (s = 0; t->shards > 1 && s < t->shards; s++) { /* a shard runs on one thread, the shards on the pool */
        if ((r = umap_pool_create(1, f->a, &t->shard_pool[s])) != UMAP_OK) return r;
        umap_pool_set_tuner(t->shard_pool[s], f->pool->tuner);
    }
    cd.logger = f->c.logger;
    cd.backend = f->c.backend;
    progs[0] = &t->step; /* the order the loops below rely on: the step, then the regressions */
    progs[1] = &t->warm;
    progs[2] = &t->distill;
    for (i = 0; i < 3; i++) {
        umap_tensor **o = i == 0 ? outs : i == 1 ? wouts : douts;
        if ((i == 1 && f->c.init == UMAP_INIT_RANDOM) || (i == 2 && !(f->c.refine_epochs > 0 && f->c.distill_epochs > 0)))
            continue;
        for (s = 0; s < t->shards; s++) {
            umap_program *p;
            cd.pool = t->shards > 1 ? t->shard_pool[s] : f->pool;
            if ((r = umap_compile(t->g, 1 + np, o, &cd, &progs[i]->p[s])) != UMAP_OK)
                return umap__fail(&f->err, r, "compiling: %s", umap_graph_error_detail(t->g));
            progs[i]->n = s + 1;
            p = progs[i]->p[s];
            if ((r = umap__net_bind(p, m)) != UMAP_OK || (r = umap_program_bind(p, "data", f->train_x, f->n * f->train_d)) != UMAP_OK ||
                (i == 0 && ((r = umap_program_bind(p, "rows", t->rows + (int64_t)s * 2 * B, 2 * B)) != UMAP_OK ||
                            (r = umap_program_bind(p, "negs", t->negs + (int64_t)s * B * t->neg, (int64_t)B * t->neg)) != UMAP_OK)) ||
                (i > 0 && ((r = umap_program_bind(p, "warm_rows", t->warm_rows + (int64_t)s * B, B)) != UMAP_OK ||
                           (r = umap_program_bind(p, "warm_target", t->warm_target + (int64_t)s * B * c, (int64_t)B * c)) != UMAP_OK)))
                return umap__fail(&f->err, r, "binding: %s", umap_program_error_detail(p));
            if (t->shards > 1 && !umap__outputs_owned(p))
                return umap__fail(&f->err, UMAP_ERR_GRAPH, "compiling: a sharded program's outputs must be buffers of its own");
        }
    }
    for (i = 0; i < 3; i++) { /* Adam on the backend (on a device the weights stay there between
                                 steps); shard 0 holds the batch's gradients after a run */
        umap__mlp enc = umap__encoder_mlp(m);
        umap_program *p = progs[i]->p[0];
        if (p && (r = umap__mlp_train_attach(f, &enc, p)) != UMAP_OK)
            return umap__fail(&f->err, r, "training: %s", umap_program_error_detail(p));
    }
    return UMAP_OK;
}

static void umap__trainer_free(const umap_allocator *a, umap__trainer *t) {
    int s;
    umap__sharded_free(&t->step);
    umap__sharded_free(&t->warm);
    umap__sharded_free(&t->distill);
    for (s = 0; s < UMAP__MAX_SHARDS; s++) umap_pool_free(t->shard_pool[s]);
    umap_graph_free(t->g);
    umap__free(a, t->rows);
    umap__free(a, t->negs);
    umap__free(a, t->warm_rows);
    umap__free(a, t->warm_target);
    memset(t, 0, sizeof *t);
}

/* the encoder's first weights, from the seed */
static void umap__init_params(umap_model *m, uint64_t seed) {
    umap__mlp e = umap__encoder_mlp(m);
    umap_rng rng;
    umap_rng_init(&rng, seed, UMAP__STREAM_INIT);
    umap__mlp_init(&e, &rng);
}

/* Adam steps of p, t's warm start or distillation program, regressing the
   encoder onto target (n x c) on uniformly drawn rows, with fresh moments
   before and after, and the rate decaying linearly to 0 when decay is set. */
static umap_result umap__regress(umap__fitter *f, umap__trainer *t, umap__sharded *sp, const float *target,
                                 int64_t steps, uint64_t stream, int decay, const char *phase) {
    umap_program *p = sp->p[0];
    int64_t s, i, n = f->n, c = f->m->n_components, every = steps / 20 + 1;
    umap_rng rng;
    umap_result r = UMAP_OK;
    int diverged = 0;
    float *before = (float *)umap__alloc(f->a, (size_t)f->m->n_params * sizeof(float));
    if (!before) return UMAP_ERR_OUT_OF_MEMORY;
    memcpy(before, f->m->params, (size_t)f->m->n_params * sizeof(float));
    r = umap_program_train_load(p); /* fresh moments; on a device, the weights go up */
    if (r == UMAP_OK && umap__report(f, phase, 0, (int)steps, 0, 0)) r = UMAP_ERR_CANCELLED;
    for (s = 1; s <= steps && r == UMAP_OK; s++) {
        const float *loss = NULL;
        umap_rng_init(&rng, f->c.seed, stream + (uint64_t)s);
        for (i = 0; i < t->B; i++) {
            int32_t row = (int32_t)umap_rng_below(&rng, (uint32_t)n);
            t->warm_rows[i] = row;
            memcpy(t->warm_target + i * c, target + row * c, (size_t)c * sizeof(float));
        }
        if ((r = umap__sharded_run(f->pool, sp)) != UMAP_OK) break;
        umap_program_output(p, 0, &loss, NULL);
        if (!(loss[0] - loss[0] == 0.0f)) { /* diverged: keep the weights from before */
            umap__log(&f->c.logger, UMAP_LOG_WARN, "fit: regression loss became %g at step %lld; skipped",
                      loss[0], (long long)s);
            memcpy(f->m->params, before, (size_t)f->m->n_params * sizeof(float));
            diverged = 1;
            break;
        }
        r = umap_program_train_step(p, s, decay ? (float)(1.0 - (double)(s - 1) / (double)steps) : 1.0f);
        if (r == UMAP_OK && (s % every == 0 || s == steps) && umap__report(f, phase, (int)s, (int)steps, loss[0], 0))
            r = UMAP_ERR_CANCELLED;
    }
    if (r == UMAP_OK && !diverged) r = umap_program_train_store(p);
    if (r == UMAP_ERR_CANCELLED) { /* the encoder as it was before this phase */
        memcpy(f->m->params, before, (size_t)f->m->n_params * sizeof(float));
        umap__fail(&f->err, r, "cancelled by the progress callback during the %s phase", phase);
    } else if (r != UMAP_OK) {
        umap__fail(&f->err, r, "regression: %s", umap_program_error_detail(p));
    }
    umap__free(f->a, before);
    return r;
}

/* The warm start: Adam steps (30 to UMAP__PCA_STEPS) of mean squared
   error between the encoder and the init's target layout, on uniformly
   drawn rows: 2 passes over the rows for PCA, whose layout the training
   reshapes anyway (more passes placed new rows no better), 5 for a
   spectral or the caller's layout, which the encoder should reproduce. */
static umap_result umap__warm_start(umap__fitter *f, umap__trainer *t, const umap__edges *e) {
    int64_t n = f->n, c = f->m->n_components;
    float *target = (float *)umap__alloc(f->a, (size_t)(n * c) * sizeof(float));
    umap_result r;
    if (!target) return UMAP_ERR_OUT_OF_MEMORY;
    if ((r = umap__init_target(f, e, target, &f->info->init_used)) == UMAP_OK) {
        int64_t steps = ((f->info->init_used == UMAP_INIT_PCA ? 2 : 5) * n + t->B - 1) / t->B;
        steps = steps < 30 ? 30 : steps > UMAP__PCA_STEPS ? UMAP__PCA_STEPS : steps;
        r = umap__regress(f, t, &t->warm, target, steps, UMAP__STREAM_PCA, 0, f->c.init == UMAP_INIT_PCA ? "pca" : "init");
    }
    umap__free(f->a, target);
    return r;
}

/* Draws one step's edges (by weight, random orientation) and each head's
   negatives among its shard's rows, from the step's own Philox stream: the
   batch depends on (seed, step) only. */
static void umap__draw_batch(umap__fitter *f, umap__trainer *t, const umap__alias *alias, const umap__edges *e,
                             int64_t step) {
    umap_rng rng;
    int i;
    umap_rng_init(&rng, f->c.seed, UMAP__STREAM_TRAIN + (uint64_t)step);
    for (i = 0; i < t->B; i++) { /* edge i is edge i % Bs of shard i / Bs: [heads | tails] per shard */
        int64_t ed = umap__alias_draw(alias, &rng);
        int flip = (int)(umap_rng_u32(&rng) & 1u);
        int32_t *rows = t->rows + (int64_t)(i / t->Bs) * 2 * t->Bs + i % t->Bs;
        rows[0] = flip ? e->tail[ed] : e->head[ed];
        rows[t->Bs] = flip ? e->head[ed] : e->tail[ed];
    }
    for (i = 0; i < t->B * t->neg; i++) t->negs[i] = (int32_t)umap_rng_below(&rng, (uint32_t)(2 * t->Bs));
}

static umap_result umap__train(umap__fitter *f, umap__trainer *t, const umap__edges *e) {
    umap_model *m = f->m;
    umap_fit_info *info = f->info;
    umap__alias alias;
    float *best = NULL;
    int64_t steps_per_epoch = (e->n + t->B - 1) / t->B, step = 0, s;
    int epoch, since_best = 0, n_epochs = f->c.n_epochs ? f->c.n_epochs : UMAP_AUTO_EPOCHS(e->n);
    double t_train = umap__now_ms();
    float best_loss = HUGE_VALF;
    umap_result r;
    if (!f->c.n_epochs && steps_per_epoch > UMAP_AUTO_MAX_STEPS) steps_per_epoch = UMAP_AUTO_MAX_STEPS;
    info->n_epochs = n_epochs;
    if ((r = umap__alias_build(f->a, e->weight, e->n, &alias)) != UMAP_OK) return r;
    best = (float *)umap__alloc(f->a, (size_t)m->n_params * sizeof(float));
    if (!best) { r = UMAP_ERR_OUT_OF_MEMORY; goto done; }
    memcpy(best, m->params, (size_t)m->n_params * sizeof(float));
    info->stop_reason = UMAP_STOP_EPOCHS;
    if ((r = umap_program_train_load(t->step.p[0])) != UMAP_OK) goto done;
    for (epoch = 1; epoch <= n_epochs; epoch++) {
        double sum = 0.0;
        float loss;
        for (s = 0; s < steps_per_epoch; s++) {
            const float *lp = NULL;
            step++;
            umap__draw_batch(f, t, &alias, e, step);
            if ((r = umap__sharded_run(f->pool, &t->step)) != UMAP_OK) goto done;
            umap_program_output(t->step.p[0], 0, &lp, NULL);
            if (!(lp[0] - lp[0] == 0.0f)) {
                memcpy(m->params, best, (size_t)m->n_params * sizeof(float));
                info->stop_reason = UMAP_STOP_NON_FINITE;
                r = umap__fail(&f->err, UMAP_ERR_NON_FINITE, "the loss became %g at epoch %d, step %lld; kept the weights of epoch %d (loss %g)",
                               lp[0], epoch, (long long)step, info->epochs_run, best_loss);
                goto done;
            }
            sum += lp[0];
            r = umap_program_train_step(t->step.p[0], step, (float)(1.0 - (double)(step - 1) / ((double)n_epochs * steps_per_epoch)));
            if (r != UMAP_OK) goto done;
            if (f->c.timeout_s > 0 && (umap__now_ms() - t_train) * 1e-3 >= f->c.timeout_s) {
                info->stop_reason = UMAP_STOP_TIMEOUT;
                s++;
                break;
            }
        }
        /* the epoch's weights back on the host (a copy on a device backend; nothing on the CPU) */
        if ((r = umap_program_train_store(t->step.p[0])) != UMAP_OK) goto done;
        loss = (float)(sum / (double)s);
        info->steps = step;
        info->final_loss = loss;
        if (info->stop_reason == UMAP_STOP_TIMEOUT) {
            if (s == steps_per_epoch) info->epochs_run = epoch;
            break;
        }
        info->epochs_run = epoch;
        if (loss < best_loss * (1.0f - f->c.min_delta) || epoch == 1) {
            best_loss = loss;
            since_best = 0;
            memcpy(best, m->params, (size_t)m->n_params * sizeof(float));
        } else {
            since_best++;
        }
        info->best_loss = best_loss;
        if (umap__report(f, "train", epoch, n_epochs, loss, best_loss)) {
            memcpy(m->params, best, (size_t)m->n_params * sizeof(float));
            info->stop_reason = UMAP_STOP_CANCELLED;
            r = umap__fail(&f->err, UMAP_ERR_CANCELLED, "cancelled by the progress callback after epoch %d", epoch);
            goto done;
        }
        if (f->c.min_desired_loss > 0 && loss <= f->c.min_desired_loss) { info->stop_reason = UMAP_STOP_MIN_LOSS; break; }
        if (f->c.patience > 0 && since_best >= f->c.patience) { info->stop_reason = UMAP_STOP_PATIENCE; break; }
    }
    r = UMAP_OK;
done:
    if (r != UMAP_OK && r != UMAP_ERR_CANCELLED && r != UMAP_ERR_NON_FINITE && !info->error_detail[0])
        umap__fail(&f->err, r, "training: %s", umap_program_error_detail(t->step.p[0]));
    if (info->best_loss == 0 && best_loss < HUGE_VALF) info->best_loss = best_loss;
    info->train_s = (umap__now_ms() - t_train) * 1e-3;
    umap__free(f->a, best);
    umap__free(f->a, alias.prob);
    umap__free(f->a, alias.alias);
    return r;
}


/* >>refine: classic (non-parametric) UMAP epochs on the embedding ------------
   Synchronous ("batch") updates: every epoch reads the previous positions
   and each task writes only its own rows, so the result is the same for any
   thread count. A directed edge i->j is active in an epoch with probability
   w / w_max (UMAP's epochs_per_sample, drawn from a hash of seed, epoch and
   edge); an active edge pulls i towards j and pushes i away from
   negative_sample_rate uniformly drawn points; each term is clipped to 4 as
   in umap-learn, the pull then weighted by refine_attraction, and the
   rate decays linearly to 0.
   The same epochs place new rows in transform's neighbours mode for a model
   of other than 2 components (2 take the expected step, umap__push_field):
   there the rows that move are the new ones, and their edges and negatives point into
   the training embedding, which stays where fit left it (umap-learn's
   move_other = False). One update serves both: it reads the rows an edge
   points at from a reference array, which for fit's refinement is the
   moving rows' own previous positions.
   densMAP (config.densmap) adds umap-learn's density term to fit's last
   dens_frac epochs: each starts with the rows' radii in the embedding and
   their statistics (umap__dens_epoch), then an active edge adds the term
   (umap__dens_coef) beside its pull. Those epochs run the scalar row loop
   in every kernel, so the kernels still give the same bits. */

static uint64_t umap__mix64(uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct umap__refine_ctx {
    const int64_t *offset;   /* CSR over the moving rows: row i's edges are slots offset[i] .. offset[i + 1] */
    const int32_t *nbr;      /* per slot: the row of ref the edge points at */
    const uint32_t *active;  /* per slot: 2^24 w / w_max, the chance an epoch uses it */
    const float *y_old;      /* the moving rows before this epoch */
    const float *ref;        /* the rows edges and negatives point at: y_old itself
                                (fit's refinement), or a fixed embedding (transform) */
    float *y_new;
    int64_t n_ref;           /* rows of ref; negatives are drawn uniformly among them */
    int c, neg;
    int kernel;              /* UMAP__RK_SCALAR, _SSE2 or _AVX2 (umap__refine_kernel_runs) */
    float a, b, gamma, attraction, lr;
    uint64_t key;            /* seed and epoch */
    /* a densMAP epoch (umap__dens_epoch), else dens_r NULL */
    const float *dens_r;     /* per row: the data's standardized log radius */
    const float *dens_re;    /* per row: its log radius in the embedding this epoch */
    const float *dens_rad;   /* exp of it: the phi-weighted mean squared distance */
    const float *dens_phi;   /* per row: the sum of phi over its slots */
    float dens_mean, dens_cov_var; /* the radii's mean; their covariance with dens_r over their variance */
    float dens_scale;        /* lambda * sum(active) / (std * rows), per slot over its active */
} umap__refine_ctx;

/* the hash keys of the epochs: one stream for fit's refinement, another for
   transform's, so the two never share draws */
#define UMAP__STREAM_REFINE 0x7e6100000000ull
#define UMAP__STREAM_PLACE 0x7e7200000000ull
static uint64_t umap__epoch_key(uint64_t seed, uint64_t stream, int ep) {
    return umap__mix64(seed ^ umap__mix64(stream + (uint64_t)ep));
}

#if defined(__GNUC__) || defined(__clang__)
#define UMAP__FORCE_INLINE inline __attribute__((always_inline))
#else
#define UMAP__FORCE_INLINE inline
#endif

static UMAP__FORCE_INLINE float umap__clip4(float v) {
    v = v < 4.0f ? v : 4.0f;
    return v > -4.0f ? v : -4.0f;
}

/* x^b for x > 0 as 2^(b log2 x), both by short polynomials without a
   division (relative error < 2e-5 over the floats): the refinement
   evaluates it ~10^9 times on large n, where libm's powf was most of its
   time. Plain arithmetic, so every thread count and every machine with
   IEEE floats gives the same bits. */
static UMAP__FORCE_INLINE float umap__pow_pos(float x, float b) {
    union { float f; uint32_t i; } u;
    float e, m, y, f, p;
    int32_t k;
    int hi;
    u.f = x;
    e = (float)((int32_t)(u.i >> 23) - 127);
    u.i = (u.i & 0x7fffffu) | 0x3f800000u; /* mantissa in [1, 2) */
    hi = u.f > 1.41421356f;                /* fold to [0.707, 1.414) */
    m = (hi ? 0.5f * u.f : u.f) - 1.0f;
    e += (float)hi;
    y = b * (e + m * (1.44270712f + m * (-0.72109287f + m * (0.47974061f + m * (-0.36821882f +
                                                         m * (0.31795653f + m * -0.19860788f))))));
    y = y > 126.0f ? 126.0f : y < -126.0f ? -126.0f : y;
    k = (int32_t)y;
    k -= (float)k > y; /* floor */
    f = y - (float)k;  /* [0, 1) */
    p = 0.99999977f + f * (0.69315678f + f * (0.24013169f + f * (0.05587656f + f * (0.00894058f + f * 0.00189438f))));
    u.i = (uint32_t)(k + 127) << 23;
    return p * u.f;
}

/* UMAP's two forces on a pair at squared distance d2 > 0, as coefficients
   of the offset between them (before the clip): the pull d/dy log(1 + a
   d^2b) and a negative's push, two_gb / ((0.001 + d2)(1 + a d^2b)). One
   place for the scalar loops of the refinement, the placement and its
   push field; the vector kernels write the same operations lane by lane. */
static UMAP__FORCE_INLINE float umap__pull_coef(float d2, float a, float b, float two_ab) {
    float pb = umap__pow_pos(d2, b);
    return -two_ab * pb / (d2 * (a * pb + 1.0f));
}
static UMAP__FORCE_INLINE float umap__push_coef(float d2, float a, float b, float two_gb) {
    return two_gb / ((0.001f + d2) * (a * umap__pow_pos(d2, b) + 1.0f));
}

/* densMAP's gradient coefficient for the edge i - j (slot s, squared
   distance d2 > 0), umap-learn's (layouts.py): the derivative of
   lambda x Corr(the embedding's log radii, the data's) through both ends'
   radii, divided by the edge's weight since it comes with the edges
   drawn by weight. umap-learn's sums of phi count each edge from both
   ends, hence the 2. */
static float umap__dens_coef(const umap__refine_ctx *r, int64_t i, int64_t j, int64_t s, float d2) {
    const float pb = umap__pow_pos(d2, r->b), phi = 1.0f / (1.0f + r->a * pb);
    const float dphi = r->a * r->b * pb / (d2 * (1.0f + r->a * pb));
    const float shape = 1.0f - r->b * (1.0f - phi);
    /* phi sums to 0 only where a^(-1) d^2b overflows: no gradient there */
    const float dr_i = r->dens_phi[i] > 0 ? phi / (2.0f * r->dens_phi[i]) * (shape / r->dens_rad[i] + dphi) : 0.0f;
    const float dr_j = r->dens_phi[j] > 0 ? phi / (2.0f * r->dens_phi[j]) * (shape / r->dens_rad[j] + dphi) : 0.0f;
    const float w_i = r->dens_r[i] - r->dens_cov_var * (r->dens_re[i] - r->dens_mean);
    const float w_j = r->dens_r[j] - r->dens_cov_var * (r->dens_re[j] - r->dens_mean);
    return r->dens_scale / (float)r->active[s] * (w_i * dr_i + w_j * dr_j);
}

/* One row's update from the old positions; C is the embedding width (a
   constant 2 in the common call, so the compiler unrolls the loops). */
static UMAP__FORCE_INLINE void umap__refine_row(const umap__refine_ctx *r, int64_t i, int C) {
    const float two_ab = 2.0f * r->a * r->b, two_gb = 2.0f * r->gamma * r->b;
    const float *yi = r->y_old + i * C;
    /* a row that is itself in ref is not its own negative */
    const int64_t self = r->ref == r->y_old ? i : -1;
    float step[64];
    int64_t s;
    int c, q;
    for (c = 0; c < C; c++) step[c] = 0.0f;
    for (s = r->offset[i]; s < r->offset[i + 1]; s++) {
        uint64_t h = umap__mix64(r->key ^ (uint64_t)s);
        const float *yj;
        float d2 = 0.0f, coef;
        if ((uint32_t)(h >> 40) >= r->active[s]) continue; /* this epoch skips the edge */
        yj = r->ref + (int64_t)r->nbr[s] * C;
        for (c = 0; c < C; c++) d2 += (yi[c] - yj[c]) * (yi[c] - yj[c]);
        if (d2 > 0) { /* attraction */
            coef = umap__pull_coef(d2, r->a, r->b, two_ab);
            for (c = 0; c < C; c++) step[c] += r->attraction * umap__clip4(coef * (yi[c] - yj[c]));
            if (r->dens_r) {
                /* umap-learn's densMAP term for the edge, which it applies to
                   both ends of every sampled entry: twice, from each row's own
                   slot here */
                coef = 2.0f * umap__dens_coef(r, i, r->nbr[s], s, d2);
                for (c = 0; c < C; c++) step[c] += 2.0f * umap__clip4(coef * (yi[c] - yj[c]));
            }
        }
        for (q = 0; q < r->neg; q++) { /* repulsion from uniformly drawn points */
            const float *yk;
            /* each draw hashes the edge's own hash, so the draws do not wait on each other */
            int64_t k = (int64_t)((umap__mix64(h + (uint64_t)q + 1u) >> 32) * (uint64_t)r->n_ref >> 32);
            if (k == self) continue;
            yk = r->ref + k * C;
            d2 = 0.0f;
            for (c = 0; c < C; c++) d2 += (yi[c] - yk[c]) * (yi[c] - yk[c]);
            if (d2 > 0) {
                coef = umap__push_coef(d2, r->a, r->b, two_gb);
                for (c = 0; c < C; c++) step[c] += umap__clip4(coef * (yi[c] - yk[c]));
            } else { /* coincident points: push apart by the clip */
                for (c = 0; c < C; c++) step[c] += 4.0f;
            }
        }
    }
    for (c = 0; c < C; c++) r->y_new[i * C + c] = yi[c] + r->lr * step[c];
}

#if defined(__SSE2__) && !defined(UMAP_NO_SIMD)
/* The refinement's arithmetic a vector of pairs at a time: four in SSE2,
   which every x86-64 has, and eight in AVX2 where the CPU has it (picked
   at run time). umap__pow_pos, the coefficient and the clip are the same
   operations in the same order on each lane, and the terms are added to
   the step one by one in the scalar loop's order, so the bits equal the
   scalar path's (UMAP_NO_SIMD builds it alone; the tests compare the
   two). */
#include <emmintrin.h>
#define UMAP__REFINE_SIMD 1

static UMAP__FORCE_INLINE __m128 umap__pow_pos4(__m128 x, __m128 b) {
    const __m128i xi = _mm_castps_si128(x);
    const __m128 one = _mm_set1_ps(1.0f);
    __m128 e = _mm_cvtepi32_ps(_mm_sub_epi32(_mm_srli_epi32(xi, 23), _mm_set1_epi32(127)));
    __m128 u = _mm_castsi128_ps(_mm_or_si128(_mm_and_si128(xi, _mm_set1_epi32(0x7fffff)), _mm_set1_epi32(0x3f800000)));
    __m128 hi = _mm_cmpgt_ps(u, _mm_set1_ps(1.41421356f));
    __m128 m = _mm_sub_ps(_mm_or_ps(_mm_and_ps(hi, _mm_mul_ps(_mm_set1_ps(0.5f), u)), _mm_andnot_ps(hi, u)), one);
    __m128 y, f, p, kf;
    __m128i k;
    e = _mm_add_ps(e, _mm_and_ps(hi, one));
    y = _mm_add_ps(_mm_mul_ps(m, _mm_set1_ps(-0.19860788f)), _mm_set1_ps(0.31795653f));
    y = _mm_add_ps(_mm_mul_ps(m, y), _mm_set1_ps(-0.36821882f));
    y = _mm_add_ps(_mm_mul_ps(m, y), _mm_set1_ps(0.47974061f));
    y = _mm_add_ps(_mm_mul_ps(m, y), _mm_set1_ps(-0.72109287f));
    y = _mm_add_ps(_mm_mul_ps(m, y), _mm_set1_ps(1.44270712f));
    y = _mm_mul_ps(b, _mm_add_ps(e, _mm_mul_ps(m, y)));
    /* min_ps(a, v) is (a < v ? a : v) and max_ps(a, v) is (a > v ? a : v): the scalar clamp's order */
    y = _mm_max_ps(_mm_set1_ps(-126.0f), _mm_min_ps(_mm_set1_ps(126.0f), y));
    k = _mm_cvttps_epi32(y);
    kf = _mm_cvtepi32_ps(k);
    k = _mm_add_epi32(k, _mm_castps_si128(_mm_cmpgt_ps(kf, y))); /* floor: -1 where (float)k > y */
    f = _mm_sub_ps(y, _mm_cvtepi32_ps(k));
    p = _mm_add_ps(_mm_mul_ps(f, _mm_set1_ps(0.00189438f)), _mm_set1_ps(0.00894058f));
    p = _mm_add_ps(_mm_mul_ps(f, p), _mm_set1_ps(0.05587656f));
    p = _mm_add_ps(_mm_mul_ps(f, p), _mm_set1_ps(0.24013169f));
    p = _mm_add_ps(_mm_mul_ps(f, p), _mm_set1_ps(0.69315678f));
    p = _mm_add_ps(_mm_mul_ps(f, p), _mm_set1_ps(0.99999977f));
    return _mm_mul_ps(p, _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(k, _mm_set1_epi32(127)), 23)));
}

/* umap__refine_row for 2 components in four passes over a batch of the
   row's edges: find the next active ones, gather every pair they touch
   (the edge's own point to attract, then its negatives), compute the
   pairs' terms a vector at a time, and add them to the step in the
   scalar loop's order. */
#define UMAP__BATCH 96 /* pairs per batch: a multiple of every vector's lanes */
typedef void (*umap__refine_terms_fn)(const umap__refine_ctx *r, const float *yi, const float *ox, const float *oy,
                                      const int32_t *attract, int np, float *tx, float *ty, int32_t *use);

/* the terms of pairs [0, np): (ox, oy) is the other point, attract[p] says
   which of the two forces; pairs past np are padding */
static void umap__refine_terms4(const umap__refine_ctx *r, const float *yi, const float *ox, const float *oy,
                                const int32_t *attract, int np, float *tx, float *ty, int32_t *use) {
    const float two_ab = 2.0f * r->a * r->b, two_gb = 2.0f * r->gamma * r->b;
    const __m128 vb = _mm_set1_ps(r->b), va = _mm_set1_ps(r->a), one = _mm_set1_ps(1.0f);
    const __m128 four = _mm_set1_ps(4.0f), mfour = _mm_set1_ps(-4.0f), zero = _mm_setzero_ps();
    const __m128 yi0 = _mm_set1_ps(yi[0]), yi1 = _mm_set1_ps(yi[1]);
    const __m128 num_a = _mm_set1_ps(-two_ab), num_r = _mm_set1_ps(two_gb), eps = _mm_set1_ps(0.001f);
    const __m128 pull = _mm_set1_ps(r->attraction);
    int p, l;
    for (p = 0; p < np; p += 4) {
        __m128i ia = _mm_setr_epi32(attract[p], attract[p + 1], attract[p + 2], attract[p + 3]);
        __m128 att = _mm_castsi128_ps(_mm_cmpgt_epi32(ia, _mm_setzero_si128()));
        __m128 dx = _mm_sub_ps(yi0, _mm_loadu_ps(ox + p)), dy = _mm_sub_ps(yi1, _mm_loadu_ps(oy + p));
        __m128 d2 = _mm_add_ps(_mm_add_ps(zero, _mm_mul_ps(dx, dx)), _mm_mul_ps(dy, dy));
        __m128 pos = _mm_cmpgt_ps(d2, zero);
        __m128 pw = umap__pow_pos4(_mm_or_ps(_mm_and_ps(pos, d2), _mm_andnot_ps(pos, one)), vb);
        __m128 t = _mm_add_ps(_mm_mul_ps(va, pw), one);
        /* attraction -2ab d^2(b-1) / (1 + a d^2b) as the scalar loop writes it: (-2ab pw) / (d2 t);
           repulsion 2 gamma b / ((0.001 + d2) t) */
        __m128 num = _mm_or_ps(_mm_and_ps(att, _mm_mul_ps(num_a, pw)), _mm_andnot_ps(att, num_r));
        __m128 den = _mm_mul_ps(_mm_or_ps(_mm_and_ps(att, d2), _mm_andnot_ps(att, _mm_add_ps(eps, d2))), t);
        __m128 c = _mm_div_ps(num, den);
        /* min_ps(v, 4) is (v < 4 ? v : 4) and max_ps(v, -4) (v > -4 ? v : -4): umap__clip4's order */
        __m128 vx = _mm_max_ps(_mm_min_ps(_mm_mul_ps(c, dx), four), mfour);
        __m128 vy = _mm_max_ps(_mm_min_ps(_mm_mul_ps(c, dy), four), mfour);
        int pmask = _mm_movemask_ps(pos);
        /* an attraction weighs refine_attraction after its clip, as the scalar loop */
        vx = _mm_or_ps(_mm_and_ps(att, _mm_mul_ps(pull, vx)), _mm_andnot_ps(att, vx));
        vy = _mm_or_ps(_mm_and_ps(att, _mm_mul_ps(pull, vy)), _mm_andnot_ps(att, vy));
        /* coincident points: a repulsion pushes apart by the clip, an attraction does nothing */
        _mm_storeu_ps(tx + p, _mm_or_ps(_mm_and_ps(pos, vx), _mm_andnot_ps(pos, four)));
        _mm_storeu_ps(ty + p, _mm_or_ps(_mm_and_ps(pos, vy), _mm_andnot_ps(pos, four)));
        for (l = 0; l < 4; l++) use[p + l] = !attract[p + l] || ((pmask >> l) & 1);
    }
}

#if defined(UMAP__CPU_DISPATCH) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 9))
/* In the compiler's vector extensions, under a target of AVX2 without FMA,
   so that no compiler can fuse a multiply and an add and change the bits.
   The helpers take vectors by pointer: by value, a vector's calling
   convention would differ between the targets. */
#define UMAP__REFINE_AVX2 1
#define UMAP__RL 8 /* lanes */
typedef float umap__rvf __attribute__((vector_size(4 * UMAP__RL)));
typedef int32_t umap__rvi __attribute__((vector_size(4 * UMAP__RL)));
typedef uint32_t umap__rvu __attribute__((vector_size(4 * UMAP__RL)));
/* lane by lane m ? a : b, m all ones or all zeros */
#define UMAP__SEL(m, a, b) ((umap__rvf)(((umap__rvi)(a) & (m)) | ((umap__rvi)(b) & ~(m))))

static UMAP__FORCE_INLINE void umap__pow_pos_v(umap__rvf *out, const umap__rvf *xp, float b) {
    const umap__rvf zero = {0.0f}, one = zero + 1.0f;
    const umap__rvu xi = (umap__rvu)*xp;
    umap__rvf e = __builtin_convertvector((umap__rvi)(xi >> 23) - 127, umap__rvf);
    const umap__rvf u = (umap__rvf)((xi & 0x7fffffu) | 0x3f800000u);
    const umap__rvi hi = u > 1.41421356f;
    umap__rvf m = UMAP__SEL(hi, 0.5f * u, u) - 1.0f, y, f, p;
    umap__rvi k;
    e = e + UMAP__SEL(hi, one, zero);
    y = m * -0.19860788f + 0.31795653f;
    y = m * y + -0.36821882f;
    y = m * y + 0.47974061f;
    y = m * y + -0.72109287f;
    y = m * y + 1.44270712f;
    y = b * (e + m * y);
    y = UMAP__SEL(y > 126.0f, zero + 126.0f, UMAP__SEL(y < -126.0f, zero - 126.0f, y));
    k = __builtin_convertvector(y, umap__rvi);
    k = k + (__builtin_convertvector(k, umap__rvf) > y); /* floor: -1 where (float)k > y */
    f = y - __builtin_convertvector(k, umap__rvf);
    p = f * 0.00189438f + 0.00894058f;
    p = f * p + 0.05587656f;
    p = f * p + 0.24013169f;
    p = f * p + 0.69315678f;
    p = f * p + 0.99999977f;
    *out = p * (umap__rvf)((k + 127) << 23);
}

/* umap__clip4 lane by lane: (v < 4 ? v : 4), then (v > -4 ? v : -4) */
static UMAP__FORCE_INLINE void umap__clip4_v(umap__rvf *v) {
    const umap__rvf zero = {0.0f};
    *v = UMAP__SEL(*v < 4.0f, *v, zero + 4.0f);
    *v = UMAP__SEL(*v > -4.0f, *v, zero - 4.0f);
}

/* umap__refine_terms4 in AVX2, eight pairs at a time */
__attribute__((target("avx2"))) static void umap__refine_terms8(const umap__refine_ctx *r, const float *yi,
                                                                const float *ox, const float *oy,
                                                                const int32_t *attract, int np, float *tx,
                                                                float *ty, int32_t *use) {
    const float two_ab = 2.0f * r->a * r->b, two_gb = 2.0f * r->gamma * r->b;
    const umap__rvf zero = {0.0f}, one = zero + 1.0f, four = zero + 4.0f;
    const umap__rvf num_r = zero + two_gb;
    int p;
    for (p = 0; p < np; p += UMAP__RL) {
        umap__rvf vox, voy, dx, dy, d2, base, pw, t, num, den, c, vx, vy;
        umap__rvi att, pos, u;
        memcpy(&vox, ox + p, sizeof vox);
        memcpy(&voy, oy + p, sizeof voy);
        memcpy(&att, attract + p, sizeof att);
        att = att > 0;
        dx = yi[0] - vox;
        dy = yi[1] - voy;
        d2 = (zero + dx * dx) + dy * dy;
        pos = d2 > zero;
        base = UMAP__SEL(pos, d2, one);
        umap__pow_pos_v(&pw, &base, r->b);
        t = r->a * pw + 1.0f;
        /* attraction -2ab d^2(b-1) / (1 + a d^2b) as the scalar loop writes it: (-2ab pw) / (d2 t);
           repulsion 2 gamma b / ((0.001 + d2) t) */
        num = UMAP__SEL(att, -two_ab * pw, num_r);
        den = UMAP__SEL(att, d2, 0.001f + d2) * t;
        c = num / den;
        vx = c * dx;
        vy = c * dy;
        umap__clip4_v(&vx);
        umap__clip4_v(&vy);
        /* an attraction weighs refine_attraction after its clip, as the scalar loop */
        vx = UMAP__SEL(att, r->attraction * vx, vx);
        vy = UMAP__SEL(att, r->attraction * vy, vy);
        /* coincident points: a repulsion pushes apart by the clip, an attraction does nothing */
        vx = UMAP__SEL(pos, vx, four);
        vy = UMAP__SEL(pos, vy, four);
        u = ~att | pos;
        memcpy(tx + p, &vx, sizeof vx);
        memcpy(ty + p, &vy, sizeof vy);
        memcpy(use + p, &u, sizeof u);
    }
}
#endif

/* the row loop, shared by the vector widths: terms and lanes are constants
   where it is inlined */
static UMAP__FORCE_INLINE void umap__refine_row2(const umap__refine_ctx *r, int64_t i, umap__refine_terms_fn terms,
                                                 int lanes) {
    const float *yi = r->y_old + i * 2;
    const int64_t self = r->ref == r->y_old ? i : -1;
    const int edges_per_batch = UMAP__BATCH / (1 + r->neg);
    float ox[UMAP__BATCH], oy[UMAP__BATCH], tx[UMAP__BATCH], ty[UMAP__BATCH], step0 = 0.0f, step1 = 0.0f;
    int32_t attract[UMAP__BATCH], use[UMAP__BATCH];
    int np, q, p, e, n_live;
    int64_t s = r->offset[i], end = r->offset[i + 1], live[UMAP__BATCH];
    uint64_t hash[UMAP__BATCH];
    while (s < end) {
        /* the next active edges: an edge is active at random, so the scan
           counts them without a branch, which would be mispredicted often */
        for (n_live = 0; s < end && n_live < edges_per_batch; s++) {
            uint64_t h = umap__mix64(r->key ^ (uint64_t)s);
            live[n_live] = s;
            hash[n_live] = h;
            n_live += (uint32_t)(h >> 40) < r->active[s];
        }
        /* gather: each edge's own point to attract, then its negatives */
        for (np = 0, e = 0; e < n_live; e++) {
            const float *yj = r->ref + (int64_t)r->nbr[live[e]] * 2;
            ox[np] = yj[0], oy[np] = yj[1], attract[np++] = 1;
            for (q = 0; q < r->neg; q++) {
                int64_t k = (int64_t)((umap__mix64(hash[e] + (uint64_t)q + 1u) >> 32) * (uint64_t)r->n_ref >> 32);
                if (k == self) continue;
                ox[np] = r->ref[k * 2], oy[np] = r->ref[k * 2 + 1], attract[np++] = 0;
            }
        }
        if (np == 0) continue;
        for (p = np; p % lanes; p++) ox[p] = yi[0], oy[p] = yi[1], attract[p] = 1; /* padding: no effect */
        terms(r, yi, ox, oy, attract, np, tx, ty, use);
        for (p = 0; p < np; p++)
            if (use[p]) {
                step0 += tx[p];
                step1 += ty[p];
            }
    }
    r->y_new[i * 2] = yi[0] + r->lr * step0;
    r->y_new[i * 2 + 1] = yi[1] + r->lr * step1;
}

static void umap__refine_rows2(const umap__refine_ctx *r, int64_t begin, int64_t end) {
    int64_t i;
    for (i = begin; i < end; i++) umap__refine_row2(r, i, umap__refine_terms4, 4);
}
#ifdef UMAP__REFINE_AVX2
__attribute__((target("avx2"))) static void umap__refine_rows2_avx2(const umap__refine_ctx *r, int64_t begin,
                                                                    int64_t end) {
    int64_t i;
    for (i = begin; i < end; i++) umap__refine_row2(r, i, umap__refine_terms8, UMAP__RL);
}
#endif
#endif

/* The refinement's kernels, in umap_refine_variant's order; every one gives
   the same bits, so the fastest this build and CPU run is the default. */
enum { UMAP__RK_SCALAR, UMAP__RK_SSE2, UMAP__RK_AVX2, UMAP__RK_COUNT };
static const char *const umap__refine_kernel_names[UMAP__RK_COUNT] = {"scalar", "sse2", "avx2"};

static int umap__refine_kernel_runs(int kernel) {
    switch (kernel) {
    case UMAP__RK_SCALAR: return 1;
#ifdef UMAP__REFINE_SIMD
    case UMAP__RK_SSE2: return 1;
#endif
#ifdef UMAP__REFINE_AVX2
    case UMAP__RK_AVX2: return umap__cpu_has(UMAP__CPU_AVX2);
#endif
    default: return 0;
    }
}

static int umap__refine_kernel_best(void) {
    int k = UMAP__RK_COUNT - 1;
    while (k > UMAP__RK_SCALAR && !umap__refine_kernel_runs(k)) k--;
    return k;
}

static void umap__refine_rows(void *vctx, int64_t begin, int64_t end) {
    const umap__refine_ctx *r = (const umap__refine_ctx *)vctx;
    int64_t i;
#ifdef UMAP__REFINE_SIMD
    /* the SIMD rows: two components, an edge and its negatives in one batch */
    if (r->kernel != UMAP__RK_SCALAR && r->c == 2 && 1 + r->neg <= UMAP__BATCH && !r->dens_r) {
#ifdef UMAP__REFINE_AVX2
        if (r->kernel == UMAP__RK_AVX2) umap__refine_rows2_avx2(r, begin, end);
        else
#endif
            umap__refine_rows2(r, begin, end);
    } else
#endif
    if (r->c == 2)
        for (i = begin; i < end; i++) umap__refine_row(r, i, 2);
    else
        for (i = begin; i < end; i++) umap__refine_row(r, i, r->c);
}

/* densMAP's statistics for an epoch (umap-learn's densmap_epoch_init):
   each row's phi-weighted mean squared distance over all its slots, its
   log, and the sum of phi; a row without slots gets phi 0 */
typedef struct umap__dens_stats {
    const int64_t *offset;
    const int32_t *nbr;
    const float *y;
    int c;
    float a, b;
    float *re, *rad, *phi;
} umap__dens_stats;

static void umap__dens_rows(void *vctx, int64_t begin, int64_t end) {
    const umap__dens_stats *d = (const umap__dens_stats *)vctx;
    int64_t i, s;
    int c;
    for (i = begin; i < end; i++) {
        const float *yi = d->y + i * d->c;
        double phi_sum = 0.0, sum = 0.0;
        for (s = d->offset[i]; s < d->offset[i + 1]; s++) {
            const float *yj = d->y + (int64_t)d->nbr[s] * d->c;
            float d2 = 0.0f, phi;
            for (c = 0; c < d->c; c++) d2 += (yi[c] - yj[c]) * (yi[c] - yj[c]);
            phi = d2 > 0 ? 1.0f / (1.0f + d->a * umap__pow_pos(d2, d->b)) : 1.0f;
            phi_sum += phi;
            sum += (double)phi * d2;
        }
        d->phi[i] = (float)phi_sum;
        d->rad[i] = phi_sum > 0 ? (float)(1e-8 + sum / phi_sum) : 1.0f;
        d->re[i] = logf(d->rad[i]);
    }
}

/* an epoch's densMAP terms into rc (0 when there is nothing to correlate):
   the radii's mean, variance (plus var_shift) and covariance with the
   data's, over the rows that have slots, in a fixed order */
static int umap__dens_epoch(const umap_refine_job *job, umap__refine_ctx *rc, umap__dens_stats *ds,
                            double active_sum) {
    int64_t i, rows = 0;
    double mean = 0.0, var = 0.0, cov = 0.0, sd;
    ds->y = rc->y_old;
    umap__parallel_range(job->pool, job->n, 512, umap__dens_rows, ds);
    for (i = 0; i < job->n; i++)
        if (ds->phi[i] > 0) mean += ds->re[i], rows++;
    if (rows < 2) return 0;
    mean /= (double)rows;
    for (i = 0; i < job->n; i++)
        if (ds->phi[i] > 0) {
            var += (ds->re[i] - mean) * (ds->re[i] - mean);
            cov += (double)ds->re[i] * job->dens_r[i];
        }
    var = var / (double)rows + job->dens_var_shift;
    cov /= (double)(rows - 1);
    sd = sqrt(var);
    rc->dens_r = job->dens_r;
    rc->dens_re = ds->re;
    rc->dens_rad = ds->rad;
    rc->dens_phi = ds->phi;
    rc->dens_mean = (float)mean;
    rc->dens_cov_var = (float)(cov / var);
    rc->dens_scale = (float)(job->dens_lambda * active_sum / (sd * (double)rows));
    return 1;
}

/* The job's epochs on the host's pool. ref NULL: the job's rows move
   against each other (fit's refinement); else against the n_ref fixed rows
   of ref, which the job's nbr index (transform's neighbours mode). */
static umap_result umap__refine_epochs(const umap_refine_job *job, const float *ref, int64_t n_ref, int kernel) {
    int64_t n = job->n;
    int c = job->n_components, ep, every = job->report_every > 0 ? job->report_every : job->n_epochs + 1;
    float *y = job->y, *y2 = (float *)umap__alloc(job->allocator, (size_t)(n * c) * sizeof(float));
    const int densmap = job->dens_r && !ref && job->dens_from < job->n_epochs && job->dens_lambda > 0;
    double active_sum = 0.0;
    umap__dens_stats ds;
    umap__refine_ctx rc;
    umap_result r = UMAP_OK;
    memset(&ds, 0, sizeof ds);
    memset(&rc, 0, sizeof rc);
    if (densmap) {
        int64_t s;
        ds.offset = job->offset; ds.nbr = job->nbr; ds.c = c; ds.a = job->a; ds.b = job->b;
        ds.re = (float *)umap__alloc(job->allocator, (size_t)n * sizeof(float));
        ds.rad = (float *)umap__alloc(job->allocator, (size_t)n * sizeof(float));
        ds.phi = (float *)umap__alloc(job->allocator, (size_t)n * sizeof(float));
        for (s = 0; s < job->offset[n]; s++) active_sum += job->active[s];
    }
    if (!y2 || (densmap && (!ds.re || !ds.rad || !ds.phi))) {
        r = UMAP_ERR_OUT_OF_MEMORY;
        goto done;
    }
    rc.offset = job->offset; rc.nbr = job->nbr; rc.active = job->active; rc.n_ref = ref ? n_ref : n; rc.c = c;
    rc.neg = job->negative_sample_rate; rc.a = job->a; rc.b = job->b; rc.gamma = job->gamma;
    rc.attraction = job->attraction;
    rc.kernel = kernel;
    for (ep = 0; ep < job->n_epochs; ep++) {
        float *t;
        if (ep % every == 0 && job->report && job->report(job->report_ctx, ep, job->n_epochs)) {
            r = UMAP_ERR_CANCELLED; /* keep what is refined so far */
            break;
        }
        rc.y_old = y;
        rc.ref = ref ? ref : y;
        rc.y_new = y2;
        rc.lr = job->rates[ep];
        rc.key = job->keys[ep];
        rc.dens_r = NULL;
        if (densmap && ep >= job->dens_from) umap__dens_epoch(job, &rc, &ds, active_sum);
        umap__parallel_range(job->pool, n, 512, umap__refine_rows, &rc);
        t = y; y = y2; y2 = t; /* the latest positions alternate between the buffers */
    }
    if (y != job->y) { /* an odd count: the latest are in the scratch buffer */
        memcpy(job->y, y, (size_t)(n * c) * sizeof(float));
        y2 = y;
    }
done:
    umap__free(job->allocator, y2);
    umap__free(job->allocator, ds.re);
    umap__free(job->allocator, ds.rad);
    umap__free(job->allocator, ds.phi);
    return r;
}

UMAP__FN umap_result umap_refine_host(const umap_refine_job *job) {
    if (!job) return UMAP_ERR_INVALID_ARGUMENT;
    return umap__refine_epochs(job, NULL, 0, umap__refine_kernel_best());
}

UMAP__FN int umap_refine_variant_count(void) { return UMAP__RK_COUNT; }

UMAP__FN int umap_refine_variant(int variant, const umap_refine_job *job, char *name, size_t name_size) {
    if (name && name_size) name[0] = '\0';
    if (variant < 0 || variant >= UMAP__RK_COUNT || !job) return 0;
    if (name && name_size) snprintf(name, name_size, "%s", umap__refine_kernel_names[variant]);
    return umap__refine_kernel_runs(variant) && umap__refine_epochs(job, NULL, 0, variant) == UMAP_OK;
}

static int umap__refine_report(void *fitter, int epoch, int n_epochs) {
    return umap__report((umap__fitter *)fitter, "refine", epoch, n_epochs, 0, 0);
}

/* densMAP's target: the data's log radii standardized over the rows that
   have them (umap-learn's R), 0 for a row without edges */
static void umap__dens_target(const float *rad_orig, int64_t n, float *out) {
    double mean = 0.0, var = 0.0;
    int64_t i, rows = 0;
    for (i = 0; i < n; i++)
        if (rad_orig[i] == rad_orig[i]) mean += rad_orig[i], rows++;
    mean = rows ? mean / (double)rows : 0.0;
    for (i = 0; i < n; i++)
        if (rad_orig[i] == rad_orig[i]) var += (rad_orig[i] - mean) * (rad_orig[i] - mean);
    var = rows ? var / (double)rows : 0.0;
    for (i = 0; i < n; i++)
        out[i] = rad_orig[i] == rad_orig[i] && var > 0 ? (float)((rad_orig[i] - mean) / sqrt(var)) : 0.0f;
}

/* the refinement's job from the graph's edges (with densMAP's target from
   the data's radii, when asked), run by the config's refiner when it names
   one, else (or when that one declines) on the host */
static umap_result umap__refine(umap__fitter *f, const umap__edges *e, float *y, int n_epochs, const float *rad_orig) {
    const umap_allocator *a = f->a;
    const umap_refiner *device = f->c.refiner;
    int64_t n = f->n, i, E = e->n;
    int ep;
    int64_t *offset = (int64_t *)umap__calloc(a, (size_t)n + 1, sizeof(int64_t)), *fill = NULL;
    int32_t *nbr = (int32_t *)umap__alloc(a, (size_t)(2 * E) * sizeof(int32_t));
    uint32_t *prob = (uint32_t *)umap__alloc(a, (size_t)(2 * E) * sizeof(uint32_t));
    uint64_t *keys = (uint64_t *)umap__alloc(a, (size_t)n_epochs * sizeof(uint64_t));
    float *rates = (float *)umap__alloc(a, (size_t)n_epochs * sizeof(float)), wmax = 0.0f, *dens_r = NULL;
    umap_refine_job job;
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    if (!offset || !nbr || !prob || !keys || !rates || !(fill = (int64_t *)umap__alloc(a, (size_t)n * sizeof(int64_t))))
        goto done;
    if (f->c.densmap && rad_orig) {
        if (!(dens_r = (float *)umap__alloc(a, (size_t)n * sizeof(float)))) goto done;
        umap__dens_target(rad_orig, n, dens_r);
    }
    /* a row moves by its slots alone: a fixed row (umap_update's old rows)
       gets none, and still pushes the rows that draw it as a negative */
    for (i = 0; i < E; i++) {
        offset[e->head[i] + 1] += e->head[i] >= f->n_fixed;
        offset[e->tail[i] + 1] += e->tail[i] >= f->n_fixed;
        if (e->weight[i] > wmax) wmax = e->weight[i];
    }
    for (i = 0; i < n; i++) offset[i + 1] += offset[i];
    memcpy(fill, offset, (size_t)n * sizeof(int64_t));
    for (i = 0; i < E; i++) {
        uint32_t pr = (uint32_t)((double)e->weight[i] / wmax * 16777216.0);
        if (e->head[i] >= f->n_fixed) {
            nbr[fill[e->head[i]]] = e->tail[i];
            prob[fill[e->head[i]]++] = pr;
        }
        if (e->tail[i] >= f->n_fixed) {
            nbr[fill[e->tail[i]]] = e->head[i];
            prob[fill[e->tail[i]]++] = pr;
        }
    }
    for (ep = 0; ep < n_epochs; ep++) { /* the step decays linearly to 0 */
        keys[ep] = umap__epoch_key(f->c.seed, UMAP__STREAM_REFINE, ep);
        rates[ep] = f->c.refine_rate * (1.0f - (float)ep / (float)n_epochs);
    }
    memset(&job, 0, sizeof job);
    job.n = n; job.n_components = f->m->n_components;
    job.offset = offset; job.nbr = nbr; job.active = prob;
    job.negative_sample_rate = f->c.negative_sample_rate;
    job.a = f->m->a; job.b = f->m->b; job.gamma = f->c.repulsion_strength;
    job.attraction = f->c.refine_attraction;
    job.n_epochs = n_epochs; job.keys = keys; job.rates = rates;
    job.y = y;
    if (dens_r) { /* umap-learn's: epoch ep adds the term once (ep + 1) / n_epochs > 1 - dens_frac */
        job.dens_r = dens_r;
        job.dens_lambda = f->c.dens_lambda;
        job.dens_var_shift = f->c.dens_var_shift;
        for (job.dens_from = 0; job.dens_from < n_epochs &&
                                !((float)(job.dens_from + 1) / (float)n_epochs > 1.0f - f->c.dens_frac);
             job.dens_from++) {
        }
    }
    job.pool = f->pool;
    job.allocator = a;
    job.report_every = n_epochs / 20 + 1; /* about 20 reports */
    job.report = umap__refine_report;
    job.report_ctx = f;
    r = device ? device->refine(device, &job) : UMAP_ERR_UNSUPPORTED_OP;
    if (device && (r == UMAP_ERR_TOO_LARGE || r == UMAP_ERR_UNSUPPORTED_OP)) {
        umap__log(&f->c.logger, UMAP_LOG_INFO, "fit: the %s refiner declined the refinement (%s); the host runs it",
                  device->name, umap_result_string(r));
        device = NULL;
    }
    if (!device) r = umap_refine_host(&job);
    f->info->refine_device = device != NULL;
done:
    umap__free(a, dens_r);
    umap__free(a, offset);
    umap__free(a, fill);
    umap__free(a, nbr);
    umap__free(a, prob);
    umap__free(a, keys);
    umap__free(a, rates);
    return r;
}

/* >>keep: what a model keeps for transform: rows, their index, a sample ---------- */

/* What the model keeps of its training rows (UMAP_KEEP_*, from what it
   holds) and how transform searches them: the kept rows and their width
   into rows and dim, the metric into kd (zeroed first): the model's for
   the rows, euclidean for the sketch. kd, rows and dim may be NULL. */
static int umap__kept_rows(const umap_model *m, umap_knn_desc *kd, const float **rows, int64_t *dim) {
    int kept = !m->kept_embedding ? UMAP_KEEP_NONE
               : m->train_data ? UMAP_KEEP_ROWS
               : m->train_sketch ? UMAP_KEEP_SKETCH
               : m->config.metric == UMAP_METRIC_PRECOMPUTED ? UMAP_KEEP_ROWS /* the new rows bring the distances */
                                                            : UMAP_KEEP_NONE;
    if (kd) {
        memset(kd, 0, sizeof *kd);
        kd->metric = kept == UMAP_KEEP_SKETCH ? UMAP_METRIC_EUCLIDEAN : m->config.metric;
        kd->metric_p = kept == UMAP_KEEP_SKETCH ? 2.0f : m->config.metric_p;
        kd->metric_v = kept == UMAP_KEEP_SKETCH ? NULL : m->metric_v;
        kd->metric_fn = kept == UMAP_KEEP_SKETCH ? NULL : m->config.metric_fn;
        kd->metric_user_data = m->config.metric_user_data;
    }
    if (rows) *rows = kept == UMAP_KEEP_SKETCH ? m->train_sketch : m->train_data;
    if (dim) *dim = kept == UMAP_KEEP_SKETCH ? m->sketch_dims : m->n_features;
    return kept;
}

/* --- transform's placement in two dimensions: the expected step -----------
   An epoch of the refinement moves a new row by the pulls of its active
   edges (each active with chance p = w / w_max) and, per active edge,
   negative_sample_rate pushes from uniformly drawn training rows. For a
   2-D model the placement takes that step's expectation instead: every
   edge pulls, weighed by p, and the pushes add up to (their expected count,
   negative_sample_rate x the sum of p) x the mean push from all training
   rows. That mean is a field of the training embedding alone, built once
   per model (umap__model_index): the rows are binned onto a grid's nodes,
   convolved with the push between nodes (by FFT), and read between the
   nodes bilinearly; beyond the grid (which reaches a tenth of the
   embedding's span past it on every side) the rows act from their
   centroid. With no draws left, each row runs all its epochs alone, and
   its place depends on the row alone. On Fashion-MNIST
   the expected step placed the test rows as the sampled one did, on grids
   from 16 to 128 nodes a side: the push only matters in aggregate. */
#ifndef UMAP__FIELD_NODES
#define UMAP__FIELD_NODES 128 /* per side; a power of 2 */
#endif

struct umap__push_field {
    int g;                 /* nodes per side */
    float lo[2], cell[2];  /* node (x, y) lies at lo + (x, y) * cell */
    float centroid[2];
    float a, b, gamma;
    float *push;           /* g * g * 2: the mean push at each node */
};

/* the push of one training row at offset v from the moving row (the
   refinement's repulsion, clipped; none for coincident points) */
static void umap__push(const umap__push_field *f, float vx, float vy, float *out) {
    float d2 = vx * vx + vy * vy, coef;
    if (!(d2 > 0)) {
        out[0] = out[1] = 0.0f;
        return;
    }
    coef = umap__push_coef(d2, f->a, f->b, 2.0f * f->gamma * f->b);
    out[0] = umap__clip4(coef * vx);
    out[1] = umap__clip4(coef * vy);
}

/* in-place FFT of n complex doubles (re, im pairs), n a power of 2; tw:
   exp(-2 pi i k / n) for k < n / 2; inverse: the conjugate transform,
   unscaled */
static void umap__fft(double *z, int n, const double *tw, int inverse) {
    int i, j, len;
    for (i = 1, j = 0; i < n; i++) { /* bit reversal */
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            double *p = z + 2 * i, *q = z + 2 * j, t0 = p[0], t1 = p[1];
            p[0] = q[0], p[1] = q[1], q[0] = t0, q[1] = t1;
        }
    }
    for (len = 2; len <= n; len <<= 1) {
        for (j = 0; j < len / 2; j++) {
            double wr = tw[2 * (j * (n / len))], wi = inverse ? -tw[2 * (j * (n / len)) + 1] : tw[2 * (j * (n / len)) + 1];
            for (i = j; i < n; i += len) {
                double *p = z + 2 * i, *q = z + 2 * (i + len / 2);
                double tr = q[0] * wr - q[1] * wi, ti = q[0] * wi + q[1] * wr;
                q[0] = p[0] - tr, q[1] = p[1] - ti;
                p[0] += tr, p[1] += ti;
            }
        }
    }
}

/* swaps an n x n complex grid's rows and columns */
static void umap__transpose2(double *z, int n) {
    int i, j;
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            double *p = z + 2 * ((int64_t)i * n + j), *q = z + 2 * ((int64_t)j * n + i), t0 = p[0], t1 = p[1];
            p[0] = q[0], p[1] = q[1], q[0] = t0, q[1] = t1;
        }
}

/* the 2-D FFT of an n x n complex grid: its rows, then (transposed, so
   that each transform reads contiguous memory) its columns */
static void umap__fft2(double *z, int n, const double *tw, int inverse) {
    int i;
    for (i = 0; i < n; i++) umap__fft(z + 2 * (int64_t)i * n, n, tw, inverse);
    umap__transpose2(z, n);
    for (i = 0; i < n; i++) umap__fft(z + 2 * (int64_t)i * n, n, tw, inverse);
    umap__transpose2(z, n);
}

static void umap__push_field_free(const umap_allocator *a, umap__push_field *f) { umap__free(a, f->push); }
static void umap__push_field_destroy(const umap_allocator *a, umap__push_field *f) {
    if (!f) return;
    umap__push_field_free(a, f);
    umap__free(a, f);
}

/* The field of the n_ref rows emb (2 columns) for the curve a, b and
   repulsion gamma: each row's share binned onto the 4 nodes around it,
   then convolved with the push between nodes (a circular convolution on a
   grid of twice the side, which no offset wraps around in); 0 when out of
   memory. Plain double arithmetic in a fixed order: the same bits for any
   thread count. */
static umap_result umap__push_field_build(umap__push_field *f, const umap_allocator *alloc, const float *emb,
                                          int64_t n_ref, float a, float b, float gamma, char *detail,
                                          size_t detail_size) {
    int g = UMAP__FIELD_NODES, p = 2 * g, axis, x, y;
    int64_t i, cells = (int64_t)p * p;
    double *mass, *kernel, *tw, sum[2] = {0.0, 0.0}, scale = 1.0 / ((double)cells * (double)n_ref);
    float lo[2], hi[2];
    memset(f, 0, sizeof *f);
    f->g = g; f->a = a; f->b = b; f->gamma = gamma;
    for (axis = 0; axis < 2; axis++) {
        lo[axis] = hi[axis] = emb[axis];
        for (i = 0; i < n_ref; i++) {
            float v = emb[2 * i + axis];
            lo[axis] = v < lo[axis] ? v : lo[axis];
            hi[axis] = v > hi[axis] ? v : hi[axis];
            sum[axis] += v;
        }
        if (!((double)hi[axis] - lo[axis] <= FLT_MAX / 4.0)) { /* the grid reaches a tenth past it on each side */
            if (detail)
                snprintf(detail, detail_size, "the training embedding's component %d spans %g to %g: too wide for "
                         "float (at most FLT_MAX / 4)", axis, (double)lo[axis], (double)hi[axis]);
            return UMAP_ERR_NON_FINITE;
        }
        {   /* the rows' span and a tenth of it on each side; beyond, the centroid */
            float w = hi[axis] - lo[axis];
            if (!(w > FLT_MIN * 1024.0f)) w = 1.0f; /* all on a line, or so nearly that a cell would be 0 */
            f->lo[axis] = lo[axis] - 0.1f * w;
            f->cell[axis] = 1.2f * w / (float)(g - 1);
        }
        f->centroid[axis] = (float)(sum[axis] / (double)n_ref);
    }
    f->push = (float *)umap__alloc(alloc, (size_t)g * g * 2 * sizeof(float));
    mass = (double *)umap__calloc(alloc, (size_t)cells * 2, sizeof(double));
    kernel = (double *)umap__calloc(alloc, (size_t)cells * 2, sizeof(double));
    tw = (double *)umap__alloc(alloc, (size_t)p * sizeof(double));
    if (!f->push || !mass || !kernel || !tw) {
        umap__free(alloc, mass);
        umap__free(alloc, kernel);
        umap__free(alloc, tw);
        umap__push_field_free(alloc, f);
        if (detail) snprintf(detail, detail_size, "out of memory for the placement's push field");
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    for (i = 0; i < n_ref; i++) { /* each row's share to the 4 nodes around it (real parts) */
        double ux = (emb[2 * i] - f->lo[0]) / f->cell[0], uy = (emb[2 * i + 1] - f->lo[1]) / f->cell[1], fx, fy;
        int x0 = ux >= 1.0 ? (ux < g - 2 ? (int)ux : g - 2) : 0, y0 = uy >= 1.0 ? (uy < g - 2 ? (int)uy : g - 2) : 0;
        fx = ux - x0;
        fy = uy - y0;
        mass[2 * ((int64_t)y0 * p + x0)] += (1.0 - fx) * (1.0 - fy);
        mass[2 * ((int64_t)y0 * p + x0 + 1)] += fx * (1.0 - fy);
        mass[2 * ((int64_t)(y0 + 1) * p + x0)] += (1.0 - fx) * fy;
        mass[2 * ((int64_t)(y0 + 1) * p + x0 + 1)] += fx * fy;
    }
    for (y = -(g - 1); y <= g - 1; y++) /* the push at each node offset: x in the real part, y in the imaginary */
        for (x = -(g - 1); x <= g - 1; x++) {
            float v[2];
            int64_t at = 2 * ((int64_t)((y + p) % p) * p + (x + p) % p);
            umap__push(f, (float)x * f->cell[0], (float)y * f->cell[1], v);
            kernel[at] = v[0];
            kernel[at + 1] = v[1];
        }
    for (x = 0; x < p / 2; x++) {
        tw[2 * x] = cos(-2.0 * 3.14159265358979323846 * x / p);
        tw[2 * x + 1] = sin(-2.0 * 3.14159265358979323846 * x / p);
    }
    umap__fft2(mass, p, tw, 0);
    umap__fft2(kernel, p, tw, 0);
    for (i = 0; i < cells; i++) {
        double re = mass[2 * i] * kernel[2 * i] - mass[2 * i + 1] * kernel[2 * i + 1];
        double im = mass[2 * i] * kernel[2 * i + 1] + mass[2 * i + 1] * kernel[2 * i];
        mass[2 * i] = re, mass[2 * i + 1] = im;
    }
    umap__fft2(mass, p, tw, 1);
    for (y = 0; y < g; y++)
        for (x = 0; x < g; x++) {
            f->push[2 * ((int64_t)y * g + x)] = (float)(mass[2 * ((int64_t)y * p + x)] * scale);
            f->push[2 * ((int64_t)y * g + x) + 1] = (float)(mass[2 * ((int64_t)y * p + x) + 1] * scale);
        }
    umap__free(alloc, mass);
    umap__free(alloc, kernel);
    umap__free(alloc, tw);
    return UMAP_OK;
}

/* the mean push at y */
static void umap__push_field_at(const umap__push_field *f, float y0, float y1, float *out) {
    float ux = (y0 - f->lo[0]) / f->cell[0], uy = (y1 - f->lo[1]) / f->cell[1], fx, fy;
    const float *p;
    int x, y, g = f->g;
    if (!(ux >= 0.0f && ux < (float)(g - 1) && uy >= 0.0f && uy < (float)(g - 1))) { /* far: from the centroid */
        umap__push(f, y0 - f->centroid[0], y1 - f->centroid[1], out);
        return;
    }
    x = (int)ux;
    y = (int)uy;
    fx = ux - (float)x;
    fy = uy - (float)y;
    p = f->push + 2 * ((int64_t)y * g + x);
    out[0] = (1.0f - fy) * ((1.0f - fx) * p[0] + fx * p[2]) + fy * ((1.0f - fx) * p[2 * g] + fx * p[2 * g + 2]);
    out[1] = (1.0f - fy) * ((1.0f - fx) * p[1] + fx * p[3]) + fy * ((1.0f - fx) * p[2 * g + 1] + fx * p[2 * g + 3]);
}

/* 2 x 16 bits interleaved: nearby cells get nearby codes */
static uint64_t umap__morton2(uint32_t x, uint32_t y) {
    uint64_t code = 0;
    int b;
    for (b = 0; b < 16; b++) code |= (uint64_t)((x >> b) & 1u) << (2 * b) | (uint64_t)((y >> b) & 1u) << (2 * b + 1);
    return code;
}
static int umap__u64_cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* order (n): 0 .. n-1 sorted by where training row rows[i * stride] (rows
   NULL: row i) lies in the embedding, along a Morton curve over its first
   two components (ties: i), so that nearby places come one after another */
static void umap__curve_order(const umap_model *m, const int32_t *rows, int64_t stride, int64_t n, uint64_t *order) {
    int64_t i;
    int nc = m->n_components, axis;
    float lo[2] = {0.0f, 0.0f}, hi[2] = {0.0f, 0.0f};
    for (i = 0; i < n; i++)
        for (axis = 0; axis < 2 && axis < nc; axis++) {
            float v = m->kept_embedding[(rows ? (int64_t)rows[i * stride] : i) * nc + axis];
            lo[axis] = i == 0 || v < lo[axis] ? v : lo[axis];
            hi[axis] = i == 0 || v > hi[axis] ? v : hi[axis];
        }
    for (i = 0; i < n; i++) {
        uint32_t cell[2] = {0u, 0u};
        for (axis = 0; axis < 2 && axis < nc; axis++) {
            float v = m->kept_embedding[(rows ? (int64_t)rows[i * stride] : i) * nc + axis], span = hi[axis] - lo[axis];
            /* a span past float's range (a loaded file's) is measured in double */
            double u = span <= FLT_MAX ? (double)((v - lo[axis]) / span * 65535.0f)
                                       : ((double)v - lo[axis]) / ((double)hi[axis] - lo[axis]) * 65535.0;
            cell[axis] = hi[axis] > lo[axis] && u > 0.0 ? (uint32_t)(u < 65535.0 ? u : 65535.0) : 0u;
        }
        order[i] = umap__morton2(cell[0], cell[1]) << 32 | (uint64_t)i;
    }
    qsort(order, (size_t)n, sizeof *order, umap__u64_cmp);
    for (i = 0; i < n; i++) order[i] &= 0xffffffffu; /* i alone (n < 2^31) */
}

/* What transform's neighbours mode needs ready, made once the model holds
   its kept rows (at the end of fit, after load): for a 2-component model
   the push field of its training embedding, and the kept k-NN graph made
   ready for the walk (umap_knn_graph_index: the rows checked, the graph
   undirected). */
static umap_result umap__model_index(umap_model *m, umap_pool *pool, char *detail, size_t detail_size) {
    umap_knn_desc kd;
    umap_knn_info ki;
    const float *rows;
    int64_t dim;
    umap_result r;
    if (!umap__kept_rows(m, &kd, &rows, &dim)) return UMAP_OK;
    if (m->n_components == 2 && !m->place_field) {
        umap__push_field *f = (umap__push_field *)umap__alloc(&m->alloc, sizeof *f);
        if (!f) {
            if (detail) snprintf(detail, detail_size, "out of memory for the placement's push field");
            return UMAP_ERR_OUT_OF_MEMORY;
        }
        if ((r = umap__push_field_build(f, &m->alloc, m->kept_embedding, m->n_kept, m->a, m->b,
                                        m->config.repulsion_strength, detail, detail_size)) != UMAP_OK) {
            umap__free(&m->alloc, f);
            return r;
        }
        m->place_field = f;
    }
    if (m->sketch_axes && !m->sketch_to_input && !(m->sketch_to_input = umap__sketch_to_input_map(m))) {
        if (detail) snprintf(detail, detail_size, "out of memory for the sketch's map to the encoder's input");
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    /* a loaded custom model's index waits for its function (umap_model_set_metric_fn) */
    if (!m->train_knn || m->train_index || (m->config.metric == UMAP_METRIC_CUSTOM && !m->config.metric_fn))
        return UMAP_OK;
    kd.pool = pool; /* NULL: all cores */
    kd.allocator = m->alloc;
    kd.info = &ki;
    /* narrow rows are laid out along the embedding, where transform's walks
       run in turn; the lists are pruned (umap__gq_prune): a walk measures
       fewer rows and finds nearly the same neighbours */
    {
        uint64_t *order = (uint64_t *)umap__alloc(&m->alloc, (size_t)m->n_kept * sizeof(uint64_t));
        int32_t *layout = (int32_t *)umap__alloc(&m->alloc, (size_t)m->n_kept * sizeof(int32_t));
        int64_t i;
        if (!order || !layout) {
            umap__free(&m->alloc, order);
            umap__free(&m->alloc, layout);
            if (detail) snprintf(detail, detail_size, "out of memory for the kept rows' search index");
            return UMAP_ERR_OUT_OF_MEMORY;
        }
        umap__curve_order(m, NULL, 1, m->n_kept, order);
        for (i = 0; i < m->n_kept; i++) layout[i] = (int32_t)order[i];
        r = umap__knn_graph_index_build(&kd, rows, m->n_kept, dim, m->train_knn, m->train_knn_k, layout, 1,
                                        &m->train_index);
        umap__free(&m->alloc, order);
        umap__free(&m->alloc, layout);
    }
    if (r != UMAP_OK && detail) snprintf(detail, detail_size, "the kept rows' search index: %.200s", ki.error_detail);
    return r;
}

/* nk of the rows 0..n-1, each as likely as any other, in increasing order
   (selection sampling: row i is taken with chance (nk - taken) / (n - i)) */
static void umap__draw_sample(uint64_t seed, int64_t n, int64_t nk, int32_t *out) {
    umap_rng rng;
    int64_t i, taken = 0;
    umap_rng_init(&rng, seed, UMAP__STREAM_KEEP);
    for (i = 0; i < n && taken < nk; i++)
        if ((double)umap_rng_uniform(&rng) * (double)(n - i) < (double)(nk - taken)) out[taken++] = (int32_t)i;
}

/* The kept rows' k-NN graph when they are a sample (every row's is the
   fit's, kept by umap__fit_graph), in the space transform searches them in
   (the sketch's euclidean, or the rows' metric), by the fit's own choice
   of search (the walk needs no exact graph). */
static umap_result umap__kept_sample_graph(umap__fitter *f, umap_model *m, char *why, size_t why_size) {
    umap_knn_desc kd;
    umap_knn_info ki;
    const float *rows;
    int64_t dim;
    int k = f->c.n_neighbors - 1 < m->n_kept - 1 ? f->c.n_neighbors - 1 : (int)m->n_kept - 1, scale_e = 0;
    float *dist = (float *)umap__alloc(f->a, (size_t)(m->n_kept * k) * sizeof(float));
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    umap__kept_rows(m, &kd, &rows, &dim);
    kd.k = k;
    kd.method = UMAP_KNN_AUTO; /* as the fit's own search: exact for a small sample */
    kd.seed = f->c.seed;
    kd.allocator = f->c.allocator;
    kd.logger = f->c.logger;
    kd.pool = f->pool;
    kd.info = &ki;
    ki.error_detail[0] = 0;
    if (dist && (m->train_knn = (int32_t *)umap__alloc(f->a, (size_t)(m->n_kept * k) * sizeof(int32_t))))
        r = umap__knn_self(&kd, rows, m->n_kept, dim, m->train_knn, dist, &scale_e);
    if (r == UMAP_OK) m->train_knn_k = k;
    snprintf(why, why_size, "%s", r == UMAP_ERR_OUT_OF_MEMORY && !ki.error_detail[0] ? "out of memory" : ki.error_detail);
    umap__free(f->a, dist);
    return r;
}

/* >>fit: umap_fit and umap_fit_knn, stage by stage ------------------------------ */

/* A caller's k-NN lists, entry by entry, before any use */
static umap_result umap__check_user_knn(umap__fitter *f, const int32_t *idx, const float *dist, int64_t n, int k) {
    int64_t i;
    for (i = 0; i < n * k; i++) {
        if (idx[i] < 0 || idx[i] >= n || idx[i] == i / k || !(dist[i] >= 0) || dist[i] > 3e38f)
            return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "caller's k-NN: row %lld, entry %lld: index %d, distance %g (need 0 <= index < n, not the row itself, finite distance >= 0)",
                              (long long)(i / k), (long long)(i % k), (int)idx[i], dist[i]);
        /* the fuzzy graph reads each row's first distance as its nearest (rho) */
        if (i % k && dist[i] < dist[i - 1])
            return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "caller's k-NN: row %lld is not nearest first: entry %lld "
                              "(distance %.9g) after %.9g", (long long)(i / k), (long long)(i % k), (double)dist[i],
                              (double)dist[i - 1]);
    }
    return UMAP_OK;
}

/* --- fit, stage by stage ----------------------------------------------------
   umap__fit_impl runs the stages below in order; each reads and writes the
   one umap__fit_run, returns UMAP_OK or the error that ends the fit, and
   leaves what it allocated in the run, where umap__fit_end frees it on
   every path. Training and the refinement can also stop early without an
   error (cancelled, a non-finite loss): their stages record that in
   run.stop, and the later stages see it. */
typedef struct umap__fit_run {
    umap__fitter f;
    umap_fit_info local_info;
    umap__trainer t;
    umap__edges e;
    umap_model *m;
    const float *x;
    const umap_rows *sp;     /* sparse rows (x NULL), or NULL: the encoder's input */
    const umap_rows *graph;  /* a graph of distances (metric precomputed on sparse rows): the
                                k-NN's input, sp its memberships (umap__graph_input), or NULL */
    umap__csr_buf graph_in;  /* those memberships */
    int64_t n, d;
    const int32_t *user_idx; /* the caller's k-NN (umap_fit_knn), or NULL */
    const float *user_dist;
    int k, own_pool, scale_e;
    int32_t *idx;            /* the k-NN lists, until the graph is built */
    float *dist;
    float *projected;        /* the rows on the input projection's axes */
    umap_result stop;        /* an early stop that still returns a model */
    const umap_model *base;  /* umap_update: the model it starts from (its n_train rows first), or NULL */
} umap__fit_run;

/* the arguments, the config, the pool */
static umap_result umap__fit_checks(umap__fit_run *s) {
    umap__fitter *f = &s->f;
    umap_result r;
    if (!s->x && !s->sp) return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "data is NULL");
    if ((r = umap__check_config(f, s->n, s->d)) != UMAP_OK || (r = umap__check_target(f, s->n)) != UMAP_OK) return r;
    f->keep_auto = f->c.keep_data == UMAP_AUTO;
    if (f->c.standardize == UMAP_AUTO) f->c.standardize = !s->sp; /* see umap_config.standardize */
    if (s->sp && f->keep_auto && f->c.metric != UMAP_METRIC_PRECOMPUTED) /* sparse rows: the encoder places new rows */
        f->c.keep_data = UMAP_KEEP_NONE;
    if (s->sp && f->c.keep_data != UMAP_KEEP_NONE && f->c.metric != UMAP_METRIC_PRECOMPUTED)
        return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "keep_data = %s with sparse rows: a model keeps dense rows "
                          "or their sketch; fit sparse rows with keep_data = UMAP_AUTO or UMAP_KEEP_NONE (transform "
                          "then places rows by the encoder)", f->c.keep_data == UMAP_KEEP_ROWS ? "rows" : "sketch");
    if (s->sp && f->c.metric == UMAP_METRIC_PRECOMPUTED && !s->base) { /* a graph of distances: see umap__graph_input */
        if (f->c.input_dims == 0)
            return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "input_dims = 0 with a sparse graph of distances: the "
                              "encoder reads its memberships through the input projection; give input_dims >= 1");
        if (f->c.decoder_epochs > 0)
            return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "decoder_epochs = %d with a sparse graph of distances: "
                              "a place has no row of distances to give back (inverse_transform needs the rows)",
                              f->c.decoder_epochs);
        if (f->c.input_dims >= s->n) f->c.input_dims = (int)(s->n - 1); /* projected whatever n: never densified */
        s->graph = s->sp;
    }
    umap__resolve_auto(&f->c, s->n);
    s->k = s->user_idx ? s->k : f->c.n_neighbors - 1;
    if (s->user_idx && (s->k < 1 || s->k >= s->n || !s->user_dist))
        return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "caller's k-NN: k = %d with %lld rows (need 1 <= k < n) and distances",
                          s->k, (long long)s->n);
    if ((int64_t)s->n * s->k >= 2147483647)
        return umap__fail(&f->err, UMAP_ERR_TOO_LARGE, "n * k = %lld edges: more than int32 indices allow", (long long)s->n * s->k);
    return umap__fitter_pool(f, &s->own_pool);
}

/* 1. finite data, the column statistics, the model and its input
   normalisation, and the projection onto the principal axes */
static umap_result umap__fit_columns(umap__fit_run *s) {
    umap__fitter *f = &s->f;
    int64_t n = s->n, d = s->d, j, bad_row;
    double *mean = (double *)umap__alloc(f->a, (size_t)d * sizeof(double));
    double *std = (double *)umap__alloc(f->a, (size_t)d * sizeof(double));
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    umap_model *m;
    if (!mean || !std) goto done;
    /* umap_update checked its rows (umap__update_rows_check) and keeps the
       model's statistics: none to take here */
    if (!s->base) {
        if (s->sp) { /* the CSR's structure, values and domain (a graph's memberships), then its columns */
            float maxabs = 0.0f;
            if ((r = umap__csr_valid(&f->err, f->c.metric, "data", s->sp, &bad_row, &maxabs)) != UMAP_OK ||
                (s->graph && (r = umap__graph_input(&f->c, f->pool, &f->err, s->graph, 1, &s->graph_in)) != UMAP_OK))
                goto done;
            if (s->graph) s->sp = f->sp = &s->graph_in.rows;
            if ((r = umap__column_stats_csr(f->a, s->sp, mean, std)) != UMAP_OK) goto done;
        } else {
            if ((r = umap__column_stats(f->a, f->pool, s->x, n, d, mean, std, &bad_row)) != UMAP_OK) goto done;
            if (bad_row >= 0) {
                r = umap__fail(&f->err, UMAP_ERR_NON_FINITE, "row %lld of the data holds NaN or Inf", (long long)bad_row);
                goto done;
            }
            /* the metric's domain (haversine's latitudes and longitudes), here too
               for k-NN lists the caller gave: transform holds new rows to it */
            if ((r = umap__metric_domain_check(&f->err, f->c.metric, "data", s->x, n, d, &bad_row)) != UMAP_OK) goto done;
        }
        for (j = 0; j < d; j++) f->info->n_constant_columns += !umap__std_usable(std[j]);
        if (f->info->n_constant_columns == d) {
            r = umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "all %lld columns are constant (or vary by less than FLT_MIN): there is nothing to embed", (long long)d);
            goto done;
        }
        if (f->info->n_constant_columns)
            umap__log(&f->c.logger, UMAP_LOG_WARN, "fit: %lld of %lld columns are constant; they are ignored by the encoder",
                      (long long)f->info->n_constant_columns, (long long)d);
    }
    if ((r = umap__model_alloc(f->a, &f->c, n, d, &s->m)) != UMAP_OK) goto done;
    m = f->m = s->m;
    m->graph_input = s->graph != NULL;
    if (s->base) { /* the encoder reads through the base's normalisation: it stays */
        memcpy(m->mean, s->base->mean, (size_t)d * sizeof(float));
        memcpy(m->std, s->base->std, (size_t)d * sizeof(float));
        memcpy(m->inv_std, s->base->inv_std, (size_t)d * sizeof(float));
        if (m->metric_v) memcpy(m->metric_v, s->base->metric_v, (size_t)d * sizeof(float));
        if (m->proj) memcpy(m->proj, s->base->proj, (size_t)(d * m->proj_dims) * sizeof(float));
    }
    for (j = 0; j < d && !s->base; j++) {
        int use = f->c.standardize && umap__std_usable(std[j]);
        m->mean[j] = f->c.standardize ? (float)mean[j] : 0.0f;
        m->std[j] = use ? (float)std[j] : 1.0f;
        m->inv_std[j] = 1.0f / m->std[j];
    }
    if (m->metric_v && !s->base) { /* seuclidean's V: the caller's, else the columns' sample variances; checked */
        for (j = 0; j < d; j++)
            m->metric_v[j] = f->c.metric_v ? f->c.metric_v[j]
                                           : n > 1 ? (float)(std[j] * std[j] * (double)n / (double)(n - 1)) : 0.0f;
        if ((r = umap__metric_v_check(&f->err, m->metric_v, d)) != UMAP_OK) goto done;
    }
    f->train_x = s->x;
    f->train_d = d;
    if (m->proj) {
        double t_phase = umap__now_ms();
        r = UMAP_ERR_OUT_OF_MEMORY;
        if (!(s->projected = (float *)umap__alloc(f->a, (size_t)(n * m->proj_dims) * sizeof(float)))) goto done;
        if (s->base)
            r = UMAP_OK;
        else if (s->sp) /* a graph's memberships from every row: a sample's would leave columns out */
            r = umap__principal_axes_csr(f->a, f->pool, s->sp, m->mean, m->inv_std, m->proj_dims,
                                         s->graph ? s->n : UMAP__CSR_PCA_SAMPLE,
                                         s->graph ? UMAP__GRAPH_PCA_POWER : UMAP__CSR_PCA_POWER, f->c.seed, m->proj);
        else
            r = f->c.metric == UMAP_METRIC_PRECOMPUTED
                    ? umap__landmark_axes(m, s->x, n, m->proj_dims, f->c.seed, m->proj)
                    : umap__principal_axes(m, m->inv_std, f->pool, s->x, n, m->proj_dims, f->c.seed, m->proj);
        if (r == UMAP_OK)
            r = s->sp ? umap__project_csr(f->a, f->pool, s->sp, m->mean, m->inv_std, m->proj, m->proj_dims, s->projected)
                      : umap__project(m, m->inv_std, f->pool, s->x, n, m->proj, m->proj_dims, s->projected);
        if (r != UMAP_OK) goto done;
        f->train_x = s->projected;
        f->train_d = m->proj_dims;
        f->info->pca_s += (umap__now_ms() - t_phase) * 1e-3;
    }
    r = UMAP_OK;
done:
    umap__free(f->a, mean);
    umap__free(f->a, std);
    return r;
}

/* 2. the k-NN lists: the caller's, checked, or the search's */
static umap_result umap__fit_knn(umap__fit_run *s) {
    umap__fitter *f = &s->f;
    int64_t nk = s->n * s->k;
    double t_phase = umap__now_ms();
    umap_result r;
    if (umap__report(f, "knn", 0, 0, 0, 0)) return umap__fail(&f->err, UMAP_ERR_CANCELLED, "cancelled before k-NN");
    s->idx = (int32_t *)umap__alloc(f->a, (size_t)nk * sizeof(int32_t));
    s->dist = (float *)umap__alloc(f->a, (size_t)nk * sizeof(float));
    if (!s->idx || !s->dist) return UMAP_ERR_OUT_OF_MEMORY;
    if (s->user_idx) {
        if ((r = umap__check_user_knn(f, s->user_idx, s->user_dist, s->n, s->k)) != UMAP_OK) return r;
        memcpy(s->idx, s->user_idx, (size_t)nk * sizeof(int32_t));
        memcpy(s->dist, s->user_dist, (size_t)nk * sizeof(float));
    } else {
        umap_knn_desc kd;
        memset(&kd, 0, sizeof kd);
        kd.k = s->k;
        kd.metric = f->c.metric;
        kd.metric_p = f->c.metric_p;
        kd.metric_v = f->m->metric_v;
        kd.metric_fn = f->c.metric_fn;
        kd.metric_user_data = f->c.metric_user_data;
        kd.method = f->c.knn_method;
        kd.seed = f->c.seed;
        kd.allocator = f->c.allocator;
        kd.logger = f->c.logger;
        kd.pool = f->pool;
        kd.info = &f->info->knn;
        kd.progress = umap__knn_report;
        kd.progress_user_data = f;
        /* distances at the search's working scale: the fuzzy graph does not
           depend on the scale, and data near FLT_MAX has distances beyond it */
        r = s->sp ? umap__sp_knn(&kd, NULL, s->graph ? s->graph : s->sp, s->idx, s->dist, &s->scale_e)
                  : umap__knn_self(&kd, s->x, s->n, s->d, s->idx, s->dist, &s->scale_e);
        if (r != UMAP_OK) return umap__fail(&f->err, r, "k-NN: %s", f->info->knn.error_detail);
    }
    f->info->knn_s = (umap__now_ms() - t_phase) * 1e-3;
    return UMAP_OK;
}

/* k-NN entries at or beyond the disconnection distance become "none"
   (index -1; each list is nearest first, so they are its last): the
   distances are at the search's working scale 2^-scale_e */
static void umap__drop_far_edges(umap__fit_run *s) {
    umap__fitter *f = &s->f;
    int64_t i, nk = s->n * s->k, dropped = 0;
    double apart = f->c.disconnection_distance;
    if (!(apart > 0.0)) return; /* 0: none */
    for (i = 0; i < nk; i++)
        if (s->idx[i] >= 0 && ldexp((double)s->dist[i], s->scale_e) >= apart) s->idx[i] = -1, dropped++;
    f->info->n_dropped_edges = dropped;
}

/* umap-learn's warning: what the disconnection distance dropped, and the
   first rows it left without an edge (a unique fit's once they are
   numbered as the caller's rows) */
static void umap__warn_disconnected(const umap_config *c, const umap_fit_info *info, const umap_model *m,
                                    int64_t n_entries) {
    char rows[160] = "";
    size_t at = 0;
    int64_t i;
    if (!info->n_dropped_edges) return;
    for (i = 0; i < m->n_disconnected && i < 8 && at < sizeof rows; i++)
        at += (size_t)snprintf(rows + at, sizeof rows - at, "%s%lld", i ? ", " : ": rows ", (long long)m->disconnected[i]);
    if (m->n_disconnected > 8 && at < sizeof rows) snprintf(rows + at, sizeof rows - at, ", ...");
    umap__log(&c->logger, m->n_disconnected ? UMAP_LOG_WARN : UMAP_LOG_INFO,
              "fit: disconnection_distance %g dropped %lld of %lld k-NN edges; %lld rows are left without any%s "
              "(umap_model_disconnected lists them; the encoder alone places them)",
              (double)c->disconnection_distance, (long long)info->n_dropped_edges, (long long)n_entries,
              (long long)m->n_disconnected, rows);
}

/* the rows the graph left without an edge (after dropped k-NN entries),
   into the model, and the warning */
static umap_result umap__find_disconnected(umap__fit_run *s) {
    umap__fitter *f = &s->f;
    int64_t i, count = 0;
    unsigned char *linked = (unsigned char *)umap__calloc(f->a, (size_t)s->n, 1);
    if (!linked) return umap__fail(&f->err, UMAP_ERR_OUT_OF_MEMORY, "the fuzzy graph: out of memory");
    for (i = 0; i < s->e.n; i++) linked[s->e.head[i]] = linked[s->e.tail[i]] = 1;
    for (i = 0; i < s->n; i++) count += !linked[i];
    if (count) {
        int64_t at = 0;
        if (!(s->m->disconnected = (int64_t *)umap__alloc(f->a, (size_t)count * sizeof(int64_t)))) {
            umap__free(f->a, linked);
            return umap__fail(&f->err, UMAP_ERR_OUT_OF_MEMORY, "the fuzzy graph: out of memory");
        }
        for (i = 0; i < s->n; i++)
            if (!linked[i]) s->m->disconnected[at++] = i;
        s->m->n_disconnected = count;
    }
    umap__free(f->a, linked);
    f->info->n_disconnected = count;
    if (!f->c.unique) umap__warn_disconnected(&f->c, f->info, s->m, s->n * s->k);
    return UMAP_OK;
}

/* umap-learn's log local radius of each row (densMAP's rad_orig and
   rad_emb): log(1e-8 + sum_j mu_ij D_ij / sum_j mu_ij) over the row's
   edges in the graph, D_ij the k-NN distance between the two ends (from
   either end's list, at the search's scale 2^scale_e), squared when
   `squared` (umap-learn squares the data's, not the embedding's). An edge
   neither list holds (a target's) is left out; a row without edges gets
   NaN. */
static umap_result umap__log_radii(const umap_allocator *a, const umap__edges *e, const int32_t *idx,
                                   const float *dist, int64_t n, int k, int scale_e, int squared, float *out) {
    double *sum = (double *)umap__calloc(a, (size_t)n, sizeof(double));
    double *mu_sum = (double *)umap__calloc(a, (size_t)n, sizeof(double));
    int64_t i;
    if (!sum || !mu_sum) {
        umap__free(a, sum);
        umap__free(a, mu_sum);
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    for (i = 0; i < e->n; i++) {
        const int32_t h = e->head[i], t = e->tail[i];
        double dd = -1.0;
        int j;
        for (j = 0; j < k && dd < 0; j++)
            if (idx[(int64_t)h * k + j] == t) dd = dist[(int64_t)h * k + j];
        for (j = 0; j < k && dd < 0; j++)
            if (idx[(int64_t)t * k + j] == h) dd = dist[(int64_t)t * k + j];
        if (dd < 0) continue;
        dd = ldexp(dd, scale_e);
        if (squared) dd *= dd;
        sum[h] += e->weight[i] * dd, mu_sum[h] += e->weight[i];
        sum[t] += e->weight[i] * dd, mu_sum[t] += e->weight[i];
    }
    for (i = 0; i < n; i++) out[i] = mu_sum[i] > 0 ? (float)log(1e-8 + sum[i] / mu_sum[i]) : NAN;
    umap__free(a, sum);
    umap__free(a, mu_sum);
    return UMAP_OK;
}

/* 3. the fuzzy simplicial set (with the target's, when supervised) and
   4. the curve 1 / (1 + a d^2b) */
static umap_result umap__fit_graph(umap__fit_run *s) {
    umap__fitter *f = &s->f;
    umap_model *m = s->m;
    double t_phase = umap__now_ms();
    umap_result r;
    if (umap__report(f, "graph", 0, 0, 0, 0)) return umap__fail(&f->err, UMAP_ERR_CANCELLED, "cancelled before the fuzzy graph");
    umap__drop_far_edges(s);
    if ((r = umap__fuzzy_graph(f->a, f->pool, &f->c, s->idx, s->dist, s->n, s->k, &s->e)) != UMAP_OK) return r;
    if (f->info->n_dropped_edges && (r = umap__find_disconnected(s)) != UMAP_OK) return r;
    if (f->c.target && (r = umap__supervise(f, &s->e)) != UMAP_OK) return r;
    if ((f->c.densmap || f->c.output_dens) && s->e.n) { /* the data's radii, over the graph fit trains on */
        if (!(m->rad_orig = (float *)umap__alloc(f->a, (size_t)s->n * sizeof(float))) ||
            umap__log_radii(f->a, &s->e, s->idx, s->dist, s->n, s->k, s->scale_e, 1, m->rad_orig) != UMAP_OK)
            return umap__fail(&f->err, UMAP_ERR_OUT_OF_MEMORY, "densMAP: out of memory for the rows' radii");
    }
    if (f->c.keep_data && !f->c.keep_sample && f->c.metric != UMAP_METRIC_PRECOMPUTED) {
        /* the transform's neighbour search walks this graph (a precomputed
           model's new rows bring their own distances) */
        m->train_knn = s->idx;
        m->train_knn_k = s->k;
        s->idx = NULL;
    }
    umap__free(f->a, s->idx);
    umap__free(f->a, s->dist);
    s->idx = NULL;
    s->dist = NULL;
    f->info->n_edges = s->e.n;
    if (s->e.n == 0)
        return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "the fuzzy graph has no edges%s",
                          f->info->n_dropped_edges ? ": disconnection_distance dropped every k-NN edge" : "");
    if (f->c.a > 0 && f->c.b > 0) {
        m->a = f->c.a;
        m->b = f->c.b;
    } else {
        umap__fit_ab(f->c.min_dist, f->c.spread, &m->a, &m->b);
        if (!umap__ab_sane(m->a, m->b))
            return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "min_dist = %g and spread = %g give the curve a = %g, b = %g, "
                              "outside a in [%g, %g], b in [%g, %g]: choose a spread nearer 1", f->c.min_dist,
                              f->c.spread, m->a, m->b, UMAP__A_MIN, UMAP__A_MAX, UMAP__B_MIN, UMAP__B_MAX);
    }
    m->config.a = f->info->a = m->a; /* the model's config says what ran */
    m->config.b = f->info->b = m->b;
    f->info->graph_s = (umap__now_ms() - t_phase) * 1e-3;
    return UMAP_OK;
}

/* 5. the training programs and 6. the warm start */
static umap_result umap__fit_programs(umap__fit_run *s) {
    umap__fitter *f = &s->f;
    umap__trainer *t = &s->t;
    double t_phase = umap__now_ms();
    umap_result r;
    f->phase = "programs";
    if (s->base) { /* continued: the base's weights, no warm start (update's config has init RANDOM) */
        if (s->base->n_params != s->m->n_params || memcmp(s->base->width, s->m->width, sizeof s->m->width))
            return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "the model's encoder (%lld weights) is not the one its "
                              "config describes (%lld)", (long long)s->base->n_params, (long long)s->m->n_params);
        memcpy(s->m->params, s->base->params, (size_t)s->m->n_params * sizeof(float));
    } else
        umap__init_params(s->m, f->c.seed);
    t->B = f->c.batch_size;
    t->neg = f->c.negative_sample_rate;
    t->shards = umap__shard_count(t->B, !f->c.backend || f->c.backend == umap_cpu_backend());
    t->Bs = t->B / t->shards;
    t->rows = (int32_t *)umap__alloc(f->a, (size_t)(2 * t->B) * sizeof(int32_t));
    t->negs = (int32_t *)umap__alloc(f->a, (size_t)t->B * t->neg * sizeof(int32_t));
    t->warm_rows = (int32_t *)umap__calloc(f->a, (size_t)t->B, sizeof(int32_t));
    t->warm_target = (float *)umap__calloc(f->a, (size_t)t->B * s->m->n_components, sizeof(float));
    if (!t->rows || !t->negs || !t->warm_rows || !t->warm_target) return UMAP_ERR_OUT_OF_MEMORY;
    if ((r = umap__build_programs(f, t)) != UMAP_OK) return r;
    f->info->init_used = UMAP_INIT_RANDOM;
    if (f->c.init != UMAP_INIT_RANDOM) {
        if (umap__report(f, f->c.init == UMAP_INIT_PCA ? "pca" : "init", 0, 0, 0, 0))
            return umap__fail(&f->err, UMAP_ERR_CANCELLED, "cancelled before the %s warm start", umap_init_name(f->c.init));
        if ((r = umap__warm_start(f, t, &s->e)) != UMAP_OK) return r;
    }
    f->info->pca_s += (umap__now_ms() - t_phase) * 1e-3;
    return UMAP_OK;
}

/* 7. Adam over the sampled edges; cancelled or a non-finite loss keep the
   best weights (run.stop) */
static umap_result umap__fit_train(umap__fit_run *s) {
    umap_result r;
    if (s->base && s->f.c.refine_epochs > 0) return UMAP_OK; /* update: refined, then distilled */
    r = umap__train(&s->f, &s->t, &s->e);
    if (r != UMAP_OK && r != UMAP_ERR_CANCELLED && r != UMAP_ERR_NON_FINITE) return r;
    s->stop = r;
    return UMAP_OK;
}

/* 8. every training row through the encoder */
/* update's start: the old rows where the base has them (else where its
   encoder, the model's weights so far, put them), the new rows where the
   base's transform puts them (among its kept rows, when it keeps dense
   ones; else the encoder's, already there) */
static umap_result umap__update_start(umap__fit_run *s) {
    umap__fitter *f = &s->f;
    const umap_model *b = s->base;
    const int64_t c = b->n_components, n_old = b->n_train;
    umap_transform_desc td;
    char why[256];
    umap_result r;
    if (b->embedding) memcpy(s->m->embedding, b->embedding, (size_t)(n_old * c) * sizeof(float));
    if (!s->x || !b->kept_embedding) return UMAP_OK;
    memset(&td, 0, sizeof td);
    td.n_threads = f->c.n_threads;
    td.detail = why;
    td.detail_size = sizeof why;
    r = umap_transform_with(b, &td, s->x + n_old * s->d, s->n - n_old, s->d, s->m->embedding + n_old * c);
    return r == UMAP_OK ? UMAP_OK : umap__fail(&f->err, r, "placing the new rows: %s", why);
}

static umap_result umap__fit_embed(umap__fit_run *s) {
    umap__fitter *f = &s->f;
    umap_model *m = s->m;
    double t_phase = umap__now_ms();
    umap_result r;
    umap__report(f, "embed", f->info->epochs_run, f->info->n_epochs, f->info->final_loss, f->info->best_loss);
    if (!(m->embedding = (float *)umap__alloc(f->a, (size_t)(s->n * m->n_components) * sizeof(float))))
        return UMAP_ERR_OUT_OF_MEMORY;
    /* sparse rows: the encoder's input made in columns (umap__project_csr) */
    r = s->sp ? umap__embed(m, f->pool, NULL, s->projected, s->n, 1, 0, m->embedding, f->info->error_detail,
                            sizeof f->info->error_detail)
              : umap__embed(m, f->pool, NULL, s->x, s->n, 0, 0, m->embedding, f->info->error_detail,
                            sizeof f->info->error_detail);
    if (r == UMAP_OK && s->base && f->c.refine_epochs > 0) r = umap__update_start(s);
    f->info->embed_s = (umap__now_ms() - t_phase) * 1e-3;
    return r;
}

/* config.output_dens: the embedding's log radii as umap-learn measures
   them, over the fuzzy graph (umap-learn's defaults) of the embedding's own
   euclidean k-NN, distances unsquared */
static umap_result umap__embedding_radii(umap__fit_run *s) {
    umap__fitter *f = &s->f;
    umap_model *m = s->m;
    const int k = f->c.n_neighbors - 1;
    int32_t *idx = (int32_t *)umap__alloc(f->a, (size_t)(s->n * k) * sizeof(int32_t));
    float *dist = (float *)umap__alloc(f->a, (size_t)(s->n * k) * sizeof(float));
    umap_config gc = umap_config_default();
    umap__edges e;
    umap_knn_desc kd;
    umap_knn_info info;
    int scale_e = 0;
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    memset(&e, 0, sizeof e);
    memset(&kd, 0, sizeof kd);
    if (!idx || !dist || !(m->rad_emb = (float *)umap__alloc(f->a, (size_t)s->n * sizeof(float)))) goto done;
    kd.k = k;
    kd.metric = UMAP_METRIC_EUCLIDEAN;
    kd.method = f->c.knn_method;
    kd.seed = f->c.seed;
    kd.allocator = f->c.allocator;
    kd.logger = f->c.logger;
    kd.pool = f->pool;
    kd.info = &info;
    if ((r = umap__knn_self(&kd, m->embedding, s->n, m->n_components, idx, dist, &scale_e)) != UMAP_OK) {
        r = umap__fail(&f->err, r, "output_dens: the embedding's k-NN: %s", info.error_detail);
        goto done;
    }
    if ((r = umap__fuzzy_graph(f->a, f->pool, &gc, idx, dist, s->n, k, &e)) == UMAP_OK)
        r = umap__log_radii(f->a, &e, idx, dist, s->n, k, scale_e, 0, m->rad_emb);
done:
    if (r == UMAP_ERR_OUT_OF_MEMORY) r = umap__fail(&f->err, r, "output_dens: out of memory for the embedding's radii");
    umap__free(f->a, idx);
    umap__free(f->a, dist);
    umap__free(f->a, e.head);
    umap__free(f->a, e.tail);
    umap__free(f->a, e.weight);
    return r;
}

/* 9. refine the embedding, then distil the encoder onto it (after a
   training that ran to its end); cancelled keeps what is done (run.stop) */
static umap_result umap__fit_refine(umap__fit_run *s) {
    umap__fitter *f = &s->f;
    umap_model *m = s->m;
    double t_phase;
    int64_t bad_row;
    umap_result r;
    if (s->stop != UMAP_OK || f->c.refine_epochs <= 0) return UMAP_OK;
    t_phase = umap__now_ms();
    r = umap__refine(f, &s->e, m->embedding, f->c.refine_epochs, m->rad_orig);
    f->info->refine_s = (umap__now_ms() - t_phase) * 1e-3;
    t_phase = umap__now_ms();
    if (r == UMAP_ERR_CANCELLED) {
        f->info->stop_reason = UMAP_STOP_CANCELLED;
        s->stop = umap__fail(&f->err, UMAP_ERR_CANCELLED, "cancelled by the progress callback during the refinement");
    } else if (r != UMAP_OK) {
        return r;
    } else if (s->t.distill.n && (r = umap__regress(f, &s->t, &s->t.distill, m->embedding,
                                  ((int64_t)f->c.distill_epochs * s->n + s->t.B - 1) / s->t.B, UMAP__STREAM_DISTILL, 1,
                                  "distill")) == UMAP_ERR_CANCELLED) {
        f->info->stop_reason = UMAP_STOP_CANCELLED; /* the refined embedding, the encoder as trained */
        s->stop = r;
    } else if (r != UMAP_OK) {
        return r;
    }
    f->info->distill_s = (umap__now_ms() - t_phase) * 1e-3;
    if ((bad_row = umap__nonfinite_row(m->embedding, s->n, m->n_components)) >= 0)
        return umap__fail(&f->err, UMAP_ERR_NON_FINITE, "row %lld: the refined embedding is not finite", (long long)bad_row);
    return UMAP_OK;
}

/* 9b. config.output_dens: the embedding's radii beside the data's (not
   after a cancelled or diverged fit); without it, densMAP's data radii
   are no longer needed */
static umap_result umap__fit_radii(umap__fit_run *s) {
    umap__fitter *f = &s->f;
    if (f->c.output_dens && s->m->rad_orig && s->stop == UMAP_OK) return umap__embedding_radii(s);
    umap__free(f->a, s->m->rad_orig);
    s->m->rad_orig = NULL;
    return UMAP_OK;
}

/* 10. the decoder (config.decoder_epochs): from each training row's final
   place back to its encoder input (the standardized columns, on the
   principal axes when the model projects), by mean squared error on
   uniformly drawn rows, Adam with the fit's settings and the rate decaying
   linearly to 0. Trained after the embedding is final and apart from it,
   so the embedding and the encoder are the same bits with and without it.
   A cancelled fit, or a loss that stops being finite, leaves the model
   without a decoder (a warning says which); never with a broken one. */
/* the decoder's fewest steps, whatever the passes: a few hundred rows need many */
#ifndef UMAP_DECODER_MIN_STEPS
#define UMAP_DECODER_MIN_STEPS 2000
#endif

static void umap__drop_decoder(umap_model *m) {
    umap__free(&m->alloc, m->dec_params);
    m->dec_params = NULL;
    m->n_dec_params = 0;
    m->config.decoder_epochs = 0;
}

static umap_result umap__fit_decoder(umap__fit_run *s) {
    umap__fitter *f = &s->f;
    umap_model *m = s->m;
    umap__mlp dec;
    umap__net net;
    umap_graph_desc gd;
    umap_compile_desc cd;
    umap_graph *g = NULL;
    umap_program *p = NULL;
    umap_tensor *rows, *target, *param[2 * (UMAP_MAX_HIDDEN + 1)], *outs[1 + 2 * (UMAP_MAX_HIDDEN + 1)];
    int np = 2 * m->n_layers, B = f->c.batch_size, i, dropped = 0, shown;
    int64_t n = s->n, c = m->n_components, steps, st, every;
    int32_t *batch = NULL;
    double t_phase = umap__now_ms();
    umap_rng rng;
    umap_result r;
    if (!m->dec_params) return UMAP_OK;
    f->phase = "decoder";
    if (s->stop != UMAP_OK) {
        umap__log(&f->c.logger, UMAP_LOG_WARN, "fit: stopped early; the model has no decoder");
        umap__drop_decoder(m);
        return UMAP_OK;
    }
    dec = umap__decoder_mlp(m);
    umap_rng_init(&rng, f->c.seed, UMAP__STREAM_DECODER);
    if (s->base && s->base->dec_params && s->base->n_dec_params == m->n_dec_params) /* update: continued */
        memcpy(m->dec_params, s->base->dec_params, (size_t)m->n_dec_params * sizeof(float));
    else
        umap__mlp_init(&dec, &rng);
    memset(&gd, 0, sizeof gd);
    gd.allocator = *f->a;
    gd.logger = f->c.logger;
    if ((r = umap_graph_create(&gd, &g)) != UMAP_OK) return r;
    umap__mlp_declare(g, &dec, param);
    rows = umap_input_i32(g, "rows", umap_shape1(B));
    target = umap_gather(g, umap_input(g, "data", umap_shape2(n, f->train_d)), rows);
    if (!m->proj) { /* fit trains from the rows as given: z-score them as the encoder does */
        net.mean = umap_input(g, "norm_mean", umap_shape1(m->n_features));
        net.inv_std = umap_input(g, "norm_inv_std", umap_shape1(m->n_features));
        net.proj = NULL;
        target = umap__net_input(g, m, &net, target);
    }
    target = umap_sub(g, umap__mlp_apply(g, &dec, param, umap_gather(g, umap_input(g, "embedding", umap_shape2(n, c)), rows)),
                      target);
    outs[0] = umap_mean(g, umap_square(g, target), 3u, 0);
    if ((r = umap_graph_status(g)) != UMAP_OK || (r = umap_grad(g, outs[0], np, param, outs + 1)) != UMAP_OK) {
        r = umap__fail(&f->err, r, "building the decoder's graph: %s", umap_graph_error_detail(g));
        goto done;
    }
    memset(&cd, 0, sizeof cd);
    cd.pool = f->pool; /* on the CPU with any backend: its steps are too small to gain from a device */
    cd.logger = f->c.logger;
    r = UMAP_ERR_OUT_OF_MEMORY;
    if (!(batch = (int32_t *)umap__calloc(f->a, (size_t)B, sizeof(int32_t)))) goto done;
    if ((r = umap_compile(g, 1 + np, outs, &cd, &p)) != UMAP_OK) {
        r = umap__fail(&f->err, r, "compiling the decoder: %s", umap_graph_error_detail(g));
        goto done;
    }
    if ((r = umap__mlp_bind(p, &dec)) != UMAP_OK || (r = umap_program_bind(p, "rows", batch, B)) != UMAP_OK ||
        (r = umap_program_bind(p, "data", f->train_x, n * f->train_d)) != UMAP_OK ||
        (r = umap_program_bind(p, "embedding", m->embedding, n * c)) != UMAP_OK ||
        (!m->proj && ((r = umap_program_bind(p, "norm_mean", m->mean, m->n_features)) != UMAP_OK ||
                      (r = umap_program_bind(p, "norm_inv_std", m->inv_std, m->n_features)) != UMAP_OK)) ||
        (r = umap__mlp_train_attach(f, &dec, p)) != UMAP_OK || (r = umap_program_train_load(p)) != UMAP_OK) {
        r = umap__fail(&f->err, r, "the decoder: %s", umap_program_error_detail(p));
        goto done;
    }
    steps = ((int64_t)f->c.decoder_epochs * n + B - 1) / B;
    if (steps < UMAP_DECODER_MIN_STEPS) steps = UMAP_DECODER_MIN_STEPS;
    every = steps / 20 + 1;
    shown = steps < 2147483647 ? (int)steps : 2147483647;
    for (st = 1; st <= steps && !dropped; st++) {
        const float *loss = NULL;
        umap_rng_init(&rng, f->c.seed, UMAP__STREAM_DECODER + (uint64_t)st);
        for (i = 0; i < B; i++) batch[i] = (int32_t)umap_rng_below(&rng, (uint32_t)n);
        if ((r = umap_program_run(p)) != UMAP_OK) {
            r = umap__fail(&f->err, r, "the decoder: %s", umap_program_error_detail(p));
            goto done;
        }
        umap_program_output(p, 0, &loss, NULL);
        if (!(loss[0] - loss[0] == 0.0f)) {
            umap__log(&f->c.logger, UMAP_LOG_WARN, "fit: the decoder's loss became %g at step %lld (a smaller "
                      "learning_rate may train it); the model has no decoder", loss[0], (long long)st);
            dropped = 1;
            break;
        }
        f->info->decoder_loss = loss[0];
        if ((r = umap_program_train_step(p, st, (float)(1.0 - (double)(st - 1) / (double)steps))) != UMAP_OK) {
            r = umap__fail(&f->err, r, "the decoder: %s", umap_program_error_detail(p));
            goto done;
        }
        if ((st == 1 || st % every == 0 || st == steps) &&
            umap__report(f, "decoder", st < shown ? (int)st : shown, shown, loss[0], 0)) {
            umap__log(&f->c.logger, UMAP_LOG_WARN, "fit: cancelled while training the decoder; the model has no decoder");
            f->info->stop_reason = UMAP_STOP_CANCELLED;
            s->stop = UMAP_ERR_CANCELLED;
            dropped = 1;
        }
    }
    r = dropped ? UMAP_OK : umap_program_train_store(p);
done:
    if (dropped || r != UMAP_OK) {
        umap__drop_decoder(m);
        f->info->decoder_loss = 0.0f;
    }
    f->info->decoder_s = (umap__now_ms() - t_phase) * 1e-3;
    umap__free(f->a, batch);
    umap_program_free(p);
    umap_graph_free(g);
    return r;
}

/* 11. what transform's neighbours mode needs: the rows as given (the
   k-NN's space) or their sketch, beside their final embedding and their
   k-NN graph (the fit's, kept by umap__fit_graph, or for a sample its
   own); made last, so the fit's own peak memory does not grow by them */
static umap_result umap__fit_keep(umap__fit_run *s) {
    umap__fitter *f = &s->f;
    umap_model *m = s->m;
    int64_t nk = f->c.keep_sample ? f->c.keep_sample : s->n, d = s->d, c = m->n_components, i;
    const float *x = s->x;
    float *gathered = NULL;
    umap_result r = UMAP_OK;
    double t_phase = umap__now_ms();
    if (!f->c.keep_data) return UMAP_OK;
    f->phase = "keep_data";
    if (f->c.metric == UMAP_METRIC_PRECOMPUTED) { /* the places alone: a new row's distances are its search */
        char why[256];
        m->kept_embedding = m->embedding;
        m->n_kept = s->n;
        if ((r = umap__model_index(m, f->pool, why, sizeof why)) != UMAP_OK)
            return umap__fail(&f->err, r, "keep_data: %s", why);
        f->info->keep_s = (umap__now_ms() - t_phase) * 1e-3;
        return UMAP_OK;
    }
    if (nk < s->n) { /* a sample: its rows and places gathered, in the rows' order */
        int32_t *pick = (int32_t *)umap__alloc(f->a, (size_t)nk * sizeof(int32_t));
        gathered = (float *)umap__alloc(f->a, (size_t)(nk * d) * sizeof(float));
        m->kept_embedding = (float *)umap__alloc(f->a, (size_t)(nk * c) * sizeof(float));
        if (!pick || !gathered || !m->kept_embedding) {
            umap__free(f->a, pick);
            umap__free(f->a, gathered);
            return umap__fail(&f->err, UMAP_ERR_OUT_OF_MEMORY, "keep_data: out of memory for a sample of %lld rows", (long long)nk);
        }
        umap__draw_sample(f->c.seed, s->n, nk, pick);
        for (i = 0; i < nk; i++) {
            memcpy(gathered + i * d, s->x + (int64_t)pick[i] * d, (size_t)d * sizeof(float));
            memcpy(m->kept_embedding + i * c, m->embedding + (int64_t)pick[i] * c, (size_t)c * sizeof(float));
        }
        umap__free(f->a, pick);
        x = gathered;
    } else {
        m->kept_embedding = m->embedding;
    }
    m->n_kept = nk;
    if (f->c.keep_data == UMAP_KEEP_SKETCH) {
        int64_t w = d < UMAP_SKETCH_DIMS ? d : UMAP_SKETCH_DIMS, j, bad;
        r = UMAP_ERR_OUT_OF_MEMORY;
        m->sketch_dims = (int)w;
        if ((m->sketch_axes = (float *)umap__calloc(f->a, (size_t)(d * w), sizeof(float))) &&
            (m->train_sketch = (float *)umap__alloc(f->a, (size_t)(nk * w) * sizeof(float)))) {
            if (w == d) /* every dimension kept: the rows themselves, centred */
                for (j = 0; j < d; j++) m->sketch_axes[j * w + j] = 1.0f;
            /* the axes of all the rows (from a sample of its own, as any principal axes) */
            r = w == d ? UMAP_OK : umap__principal_axes(m, NULL, f->pool, s->x, s->n, (int)w, f->c.seed, m->sketch_axes);
            if (r == UMAP_OK) r = umap__sketch(m, f->pool, x, nk, m->train_sketch);
        }
        umap__free(f->a, gathered);
        if (r != UMAP_OK)
            return umap__fail(&f->err, r, "keep_data: out of memory for the sketch of the %lld training rows", (long long)nk);
        if ((bad = umap__nonfinite_row(m->train_sketch, nk, w)) >= 0 && f->keep_auto) {
            /* the default's keep, not the caller's request: the model keeps none */
            umap__log(&f->c.logger, UMAP_LOG_WARN, "fit: kept row %lld is too large for float in the sketch; the model "
                      "keeps no rows, and transform runs the encoder alone", (long long)bad);
            if (m->kept_embedding != m->embedding) umap__free(f->a, m->kept_embedding);
            umap__free(f->a, m->train_sketch);
            umap__free(f->a, m->sketch_axes);
            umap__free(f->a, m->train_knn);
            m->kept_embedding = m->train_sketch = m->sketch_axes = NULL;
            m->train_knn = NULL;
            m->n_kept = 0;
            m->sketch_dims = m->train_knn_k = 0;
            f->c.keep_data = m->config.keep_data = UMAP_KEEP_NONE;
            f->c.keep_sample = m->config.keep_sample = 0;
            f->info->keep_s = (umap__now_ms() - t_phase) * 1e-3;
            return UMAP_OK;
        }
        if (bad >= 0)
            return umap__fail(&f->err, UMAP_ERR_NON_FINITE, "keep_data: row %lld of the data is too large for float: its "
                              "sketch is not finite", (long long)bad);
    } else if (gathered) {
        m->train_data = gathered;
    } else if ((m->train_data = (float *)umap__alloc(f->a, (size_t)(nk * d) * sizeof(float)))) {
        memcpy(m->train_data, s->x, (size_t)(nk * d) * sizeof(float));
    } else {
        return umap__fail(&f->err, UMAP_ERR_OUT_OF_MEMORY, "keep_data: out of memory for a copy of the %lld x %lld training rows",
                          (long long)nk, (long long)d);
    }
    {
        char why[256];
        if (nk < s->n && (r = umap__kept_sample_graph(f, m, why, sizeof why)) != UMAP_OK)
            return umap__fail(&f->err, r, "keep_data: the k-NN graph of the %lld kept rows: %s", (long long)nk, why);
        if ((r = umap__model_index(s->m, f->pool, why, sizeof why)) != UMAP_OK)
            return umap__fail(&f->err, r, "keep_data: %s", why);
    }
    f->info->keep_s = (umap__now_ms() - t_phase) * 1e-3;
    return UMAP_OK;
}

/* the one way out: everything the stages left is freed; on success (r OK,
   or the early stop's code) the model goes to the caller */
static umap_result umap__fit_end(umap__fit_run *s, umap_result r, umap_model **out) {
    umap__fitter *f = &s->f;
    f->info->total_s = umap__elapsed_s(f);
    if (r != UMAP_OK && f->info->error_detail[0] == 0) /* a failure without its own words: say where */
        snprintf(f->info->error_detail, sizeof f->info->error_detail, "%s in the %s phase of fit (%lld rows x %lld columns)",
                 umap_result_string(r), f->phase, (long long)s->n, (long long)s->d);
    umap__trainer_free(f->a, &s->t);
    if (f->c.graph) { /* the graph goes to the caller with a model (no stage after the graph's changes it) */
        umap_edge_list *g = f->c.graph;
        memset(g, 0, sizeof *g);
        if (r == UMAP_OK) {
            g->n_edges = s->e.n;
            g->n_nodes = s->n;
            g->head = s->e.head, g->tail = s->e.tail, g->weight = s->e.weight;
            g->allocator = f->c.allocator;
            memset(&s->e, 0, sizeof s->e);
        }
    }
    umap__free(f->a, s->e.head);
    umap__free(f->a, s->e.tail);
    umap__free(f->a, s->e.weight);
    umap__free(f->a, s->idx);
    umap__free(f->a, s->dist);
    umap__free(f->a, s->projected);
    umap__csr_buf_free(f->a, &s->graph_in);
    if (s->own_pool) umap_pool_free(f->pool);
    if (r != UMAP_OK) {
        umap_model_free(s->m);
        return r;
    }
    *out = s->m;
    return s->stop;
}

static umap_result umap__fit_impl(const umap_config *config, const float *x, const umap_rows *sp, int64_t n,
                                  int64_t d, const int32_t *user_idx, const float *user_dist, int user_k,
                                  umap_model **out) {
    static umap_result (*const stages[])(umap__fit_run *) = {
        umap__fit_checks, umap__fit_columns, umap__fit_knn,   umap__fit_graph, umap__fit_programs,
        umap__fit_train,  umap__fit_embed,   umap__fit_refine, umap__fit_radii, umap__fit_decoder, umap__fit_keep};
    umap__fit_run s;
    umap_result r = UMAP_OK;
    size_t i;
    memset(&s, 0, sizeof s);
    umap__fitter_begin(&s.f, config, &s.local_info, x, n, "checks");
    if (s.f.c.graph) memset(s.f.c.graph, 0, sizeof *s.f.c.graph); /* none, unless a model comes */
    s.f.sp = sp;
    if (!out) return umap__fail(&s.f.err, UMAP_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    s.x = x;
    s.sp = sp;
    s.n = n;
    s.d = d;
    s.user_idx = user_idx;
    s.user_dist = user_dist;
    s.k = user_k;
    for (i = 0; i < sizeof stages / sizeof stages[0] && r == UMAP_OK; i++) r = stages[i](&s);
    return umap__fit_end(&s, r, out);
}

/* --- config.unique: fit on the distinct rows, then give every copy its place */

/* a row's hash by value: -0 and 0 hash alike, as they compare equal; a
   sparse row hashes its nonzero entries (column, value), so a stored zero
   is the zero it stands for */
static uint64_t umap__row_hash(const umap_rows *x, int64_t i) {
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a over the 32-bit words */
    int64_t j, t;
    if (x->dense) {
        const float *row = x->dense + i * x->dim;
        for (j = 0; j < x->dim; j++) {
            float v = row[j] == 0.0f ? 0.0f : row[j];
            uint32_t w;
            memcpy(&w, &v, sizeof w);
            h = (h ^ w) * 0x100000001b3ull;
        }
    } else {
        for (t = x->indptr[i]; t < x->indptr[i + 1]; t++) {
            uint32_t w;
            if (x->values[t] == 0.0f) continue;
            memcpy(&w, &x->values[t], sizeof w);
            h = (h ^ (uint32_t)x->indices[t]) * 0x100000001b3ull;
            h = (h ^ w) * 0x100000001b3ull;
        }
    }
    return h ^ (h >> 31);
}

/* rows a and b of x equal as dense rows */
static int umap__rows_equal(const umap_rows *x, int64_t a, int64_t b) {
    int64_t j, s, t, se, te;
    if (x->dense) {
        const float *ra = x->dense + a * x->dim, *rb = x->dense + b * x->dim;
        for (j = 0; j < x->dim; j++)
            if (ra[j] != rb[j]) return 0;
        return 1;
    }
    s = x->indptr[a], se = x->indptr[a + 1], t = x->indptr[b], te = x->indptr[b + 1];
    for (;;) { /* their nonzero entries, in column order */
        while (s < se && x->values[s] == 0.0f) s++;
        while (t < te && x->values[t] == 0.0f) t++;
        if (s == se || t == te) return s == se && t == te;
        if (x->indices[s] != x->indices[t] || x->values[s] != x->values[t]) return 0;
        s++, t++;
    }
}

/* of[i]: row i's distinct row, numbered in the order of first copies;
   first[u]: that row's first copy. Sequential, so the numbering never
   depends on the threads. Returns the count of distinct rows, -1 when out
   of memory. */
static int64_t umap__distinct_rows(const umap_allocator *a, const umap_rows *x, int32_t *of, int64_t *first) {
    int64_t i, u = 0, size = 2, n = x->n;
    int32_t *slot;
    while (size < 2 * n) size *= 2;
    if (!(slot = (int32_t *)umap__calloc(a, (size_t)size, sizeof(int32_t)))) return -1;
    for (i = 0; i < n; i++) {
        int64_t at = (int64_t)(umap__row_hash(x, i) & (uint64_t)(size - 1));
        for (;; at = (at + 1) & (size - 1)) {
            if (slot[at] == 0) { /* a row not seen before */
                first[u] = i;
                of[i] = (int32_t)u;
                slot[at] = (int32_t)++u;
                break;
            }
            if (umap__rows_equal(x, i, first[slot[at] - 1])) {
                of[i] = slot[at] - 1;
                break;
            }
        }
    }
    umap__free(a, slot);
    return u;
}

/* The distinct rows' fitted model -> the model of all n rows: every row's
   place is its distinct row's, the disconnected rows are every copy of
   one, and the kept rows (the distinct ones, or a sample of them) are a
   sample of the n, as keep_sample's */
static umap_result umap__unique_expand(umap__fitter *f, umap_model *m, const int32_t *of, int64_t n) {
    const int c = m->n_components;
    int64_t i, count = 0;
    float *emb = (float *)umap__alloc(f->a, (size_t)n * (size_t)c * sizeof(float));
    if (!emb) return umap__fail(&f->err, UMAP_ERR_OUT_OF_MEMORY, "unique: out of memory for the %lld rows' embedding", (long long)n);
    for (i = 0; i < n; i++) memcpy(emb + i * c, m->embedding + (int64_t)of[i] * c, (size_t)c * sizeof(float));
    if (m->rad_orig && m->rad_emb) { /* every copy has its distinct row's radii */
        float *ro = (float *)umap__alloc(f->a, (size_t)n * sizeof(float));
        float *re = (float *)umap__alloc(f->a, (size_t)n * sizeof(float));
        if (!ro || !re) {
            umap__free(f->a, ro);
            umap__free(f->a, re);
            umap__free(f->a, emb);
            return umap__fail(&f->err, UMAP_ERR_OUT_OF_MEMORY, "unique: out of memory for the %lld rows' radii", (long long)n);
        }
        for (i = 0; i < n; i++) ro[i] = m->rad_orig[of[i]], re[i] = m->rad_emb[of[i]];
        umap__free(f->a, m->rad_orig);
        umap__free(f->a, m->rad_emb);
        m->rad_orig = ro;
        m->rad_emb = re;
    }
    if (m->n_disconnected) {
        unsigned char *cut = (unsigned char *)umap__calloc(f->a, (size_t)m->n_train, 1);
        int64_t *rows = NULL;
        if (cut) {
            for (i = 0; i < m->n_disconnected; i++) cut[m->disconnected[i]] = 1;
            for (i = 0; i < n; i++) count += cut[of[i]];
            rows = (int64_t *)umap__alloc(f->a, (size_t)count * sizeof(int64_t));
        }
        if (!rows) {
            umap__free(f->a, cut);
            umap__free(f->a, emb);
            return umap__fail(&f->err, UMAP_ERR_OUT_OF_MEMORY, "unique: out of memory");
        }
        for (i = 0, count = 0; i < n; i++)
            if (cut[of[i]]) rows[count++] = i;
        umap__free(f->a, cut);
        umap__free(f->a, m->disconnected);
        m->disconnected = rows;
        m->n_disconnected = f->info->n_disconnected = count;
    }
    if (m->kept_embedding != m->embedding) umap__free(f->a, m->embedding); /* else it stays, as the kept rows' */
    m->embedding = emb;
    if (m->n_kept && m->n_kept < n) m->config.keep_sample = (int)m->n_kept;
    m->n_train = n;
    return UMAP_OK;
}

/* A failed fit of the distinct rows names them by their own numbers: each
   "row N" in its words becomes the caller's row (the first copy), after a
   prefix that says what ran */
static void umap__unique_detail(char *detail, size_t size, const int64_t *first, int64_t u, int64_t n) {
    char was[sizeof(((umap_fit_info *)0)->error_detail)], *o = detail, *end = detail + size - 1;
    const char *p = was;
    snprintf(was, sizeof was, "%s", detail);
    o += snprintf(detail, size, "unique (%lld distinct rows of %lld): ", (long long)u, (long long)n);
    while (*p && o < end) {
        if (!strncmp(p, "row ", 4) && p[4] >= '0' && p[4] <= '9' && (p == was || !((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z')))) {
            char *stop;
            long long r = strtoll(p + 4, &stop, 10);
            int w = snprintf(o, (size_t)(end - o) + 1, "row %lld", r >= 0 && r < u ? (long long)first[r] : r);
            o += w < end - o ? w : end - o;
            p = stop;
        } else {
            *o++ = *p++;
        }
    }
    *o = 0;
}

static umap_result umap__fit_sparse(const umap_config *config, const umap_rows *data, umap_model **out);

/* the fit of rows given dense or sparse, as they are (unique's distinct
   rows, or all of them when none repeats) */
static umap_result umap__fit_rows_once(const umap_config *config, const umap_rows *x, umap_model **out) {
    if (x->dense) return umap__fit_impl(config, x->dense, NULL, x->n, x->dim, NULL, NULL, 0, out);
    return umap__fit_sparse(config, x, out);
}

static umap_result umap__fit_unique(const umap_config *config, const umap_rows *x, umap_model **out) {
    umap__fitter f;
    umap_fit_info local;
    umap_config c2;
    umap_target t2;
    umap_model *m = NULL;
    umap_rows distinct;
    int32_t *of = NULL, *labels = NULL, *sp_idx = NULL;
    int64_t *first = NULL, *sp_ptr = NULL, i, j, u, n = x->n, d = x->dim;
    float *rows = NULL, *values = NULL, *coords = NULL, *sp_val = NULL;
    umap_result r;
    umap__fitter_begin(&f, config, &local, x->dense, n, "unique");
    if (f.c.graph) memset(f.c.graph, 0, sizeof *f.c.graph); /* none, unless a model comes */
    /* what fit itself refuses (no data, sizes), it refuses in its own words */
    if (x->dense && (!out || n < 2 || d < 1 || n > 2147483647 || d > ((int64_t)1 << 40) / n))
        return umap__fit_impl(config, x->dense, NULL, n, d, NULL, NULL, 0, out);
    if (!out) return umap__fail(&f.err, UMAP_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!x->dense) { /* a CSR's structure and values (NaN equals nothing), before rows are compared */
        int64_t bad_row = -1;
        float maxabs = 0.0f;
        if ((r = umap__csr_valid(&f.err, f.c.metric, "data", x, &bad_row, &maxabs)) != UMAP_OK) return r;
        if (n < 2 || n > 2147483647) return umap__fail(&f.err, UMAP_ERR_INVALID_ARGUMENT, "%lld rows: need 2 <= n < 2^31",
                                                       (long long)n);
    } else if ((i = umap__nonfinite_row(x->dense, n, d)) >= 0) {
        return umap__fail(&f.err, UMAP_ERR_NON_FINITE, "row %lld of the data holds NaN or Inf", (long long)i);
    }
    of = (int32_t *)umap__alloc(f.a, (size_t)n * sizeof(int32_t));
    first = (int64_t *)umap__alloc(f.a, (size_t)n * sizeof(int64_t));
    if (!of || !first || (u = umap__distinct_rows(f.a, x, of, first)) < 0) {
        r = umap__fail(&f.err, UMAP_ERR_OUT_OF_MEMORY, "unique: out of memory for the rows' table");
        goto done;
    }
    umap__log(&f.c.logger, UMAP_LOG_INFO, "fit: unique: %lld distinct rows of %lld", (long long)u, (long long)n);
    if (u == n) { /* nothing to merge: the fit as it is */
        r = umap__fit_rows_once(config, x, out);
        if (*out) umap__warn_disconnected(&f.c, f.info, *out, n * (f.c.n_neighbors - 1));
        goto done;
    }
    c2 = f.c;
    c2.info = f.info;
    if (x->dense) {
        rows = (float *)umap__alloc(f.a, (size_t)(u * d) * sizeof(float));
        if (!rows) {
            r = umap__fail(&f.err, UMAP_ERR_OUT_OF_MEMORY, "unique: out of memory for the %lld distinct rows",
                           (long long)u);
            goto done;
        }
        for (i = 0; i < u; i++) memcpy(rows + i * d, x->dense + first[i] * d, (size_t)d * sizeof(float));
        distinct = umap_rows_dense(rows, u, d);
    } else { /* the first copies' stored entries, as a CSR of their own */
        int64_t nnz = 0;
        if (!(sp_ptr = (int64_t *)umap__alloc(f.a, (size_t)(u + 1) * sizeof(int64_t)))) {
            r = umap__fail(&f.err, UMAP_ERR_OUT_OF_MEMORY, "unique: out of memory for the %lld distinct rows",
                           (long long)u);
            goto done;
        }
        sp_ptr[0] = 0;
        for (i = 0; i < u; i++) sp_ptr[i + 1] = nnz += x->indptr[first[i] + 1] - x->indptr[first[i]];
        sp_idx = (int32_t *)umap__alloc(f.a, (size_t)(nnz > 0 ? nnz : 1) * sizeof(int32_t));
        sp_val = (float *)umap__alloc(f.a, (size_t)(nnz > 0 ? nnz : 1) * sizeof(float));
        if (!sp_idx || !sp_val) {
            r = umap__fail(&f.err, UMAP_ERR_OUT_OF_MEMORY, "unique: out of memory for the %lld distinct rows",
                           (long long)u);
            goto done;
        }
        for (i = 0; i < u; i++) {
            int64_t b = x->indptr[first[i]], len = sp_ptr[i + 1] - sp_ptr[i];
            memcpy(sp_idx + sp_ptr[i], x->indices + b, (size_t)len * sizeof(int32_t));
            memcpy(sp_val + sp_ptr[i], x->values + b, (size_t)len * sizeof(float));
        }
        distinct = umap_rows_csr(u, d, sp_ptr, sp_idx, sp_val);
    }
    if (f.c.target) { /* each distinct row takes its first copy's target, as umap-learn's y[index] */
        const umap_target *t = f.c.target;
        t2 = *t;
        if (t->labels && (labels = (int32_t *)umap__alloc(f.a, (size_t)u * sizeof(int32_t))))
            for (i = 0; i < u; i++) labels[i] = t->labels[first[i]];
        if (t->values && t->values_dim >= 1 &&
            (values = (float *)umap__alloc(f.a, (size_t)(u * t->values_dim) * sizeof(float))))
            for (i = 0; i < u; i++)
                for (j = 0; j < t->values_dim; j++) values[i * t->values_dim + j] = t->values[first[i] * t->values_dim + j];
        if ((t->labels && !labels) || (t->values && t->values_dim >= 1 && !values)) {
            r = umap__fail(&f.err, UMAP_ERR_OUT_OF_MEMORY, "unique: out of memory for the distinct rows' target");
            goto done;
        }
        t2.labels = t->labels ? labels : NULL;
        t2.values = t->values && t->values_dim >= 1 ? values : t->values;
        c2.target = &t2;
    }
    if (f.c.init_coords && f.c.n_components >= 1 && f.c.n_components <= 64) {
        const int c = f.c.n_components;
        if (!(coords = (float *)umap__alloc(f.a, (size_t)(u * c) * sizeof(float)))) {
            r = umap__fail(&f.err, UMAP_ERR_OUT_OF_MEMORY, "unique: out of memory for the distinct rows' init_coords");
            goto done;
        }
        for (i = 0; i < u; i++) memcpy(coords + i * c, f.c.init_coords + first[i] * c, (size_t)c * sizeof(float));
        c2.init_coords = coords;
    }
    r = umap__fit_rows_once(&c2, &distinct, &m);
    if (!m) { /* fit's words, about the distinct rows */
        umap__unique_detail(f.info->error_detail, sizeof f.info->error_detail, first, u, n);
        goto done;
    }
    {
        umap_result e = umap__unique_expand(&f, m, of, n);
        if (e != UMAP_OK) {
            umap_model_free(m);
            umap_edge_list_free(f.c.graph); /* no model: no graph either */
            r = e;
            goto done;
        }
        umap__warn_disconnected(&f.c, f.info, m, u * (f.c.n_neighbors - 1));
    }
    *out = m;
done:
    umap__free(f.a, of);
    umap__free(f.a, first);
    umap__free(f.a, rows);
    umap__free(f.a, labels);
    umap__free(f.a, values);
    umap__free(f.a, coords);
    umap__free(f.a, sp_ptr);
    umap__free(f.a, sp_idx);
    umap__free(f.a, sp_val);
    return r;
}

UMAP__FN umap_result umap_fit(const umap_config *config, const float *data, int64_t n, int64_t d, umap_model **out) {
    if (config && config->unique) {
        umap_rows x = umap_rows_dense(data, n, d);
        return umap__fit_unique(config, &x, out);
    }
    return umap__fit_impl(config, data, NULL, n, d, NULL, NULL, 0, out);
}

UMAP__FN umap_result umap_fit_knn(const umap_config *config, const float *data, int64_t n, int64_t d,
                                  const int32_t *indices, const float *distances, int k, umap_model **out) {
    if (!indices) {
        if (out) *out = NULL;
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    if (config && config->unique) { /* the lists name the rows as given: merging rows would break them */
        umap__fitter f;
        umap_fit_info local;
        umap__fitter_begin(&f, config, &local, data, n, "checks");
        if (out) *out = NULL;
        return umap__fail(&f.err, UMAP_ERR_INVALID_ARGUMENT, "unique = 1 needs fit's own k-NN: the caller's lists "
                          "name the rows as given (merge identical rows before the search, or fit without unique)");
    }
    return umap__fit_impl(config, data, NULL, n, d, indices, distances, k, out);
}

/* Sparse rows are densified only where the encoder would read every
   column anyway (no input projection: d <= input_dims, or input_dims 0),
   and at most this many floats */
#define UMAP__SPARSE_DENSIFY_MAX ((int64_t)1 << 28)

UMAP__FN umap_result umap_fit_rows(const umap_config *config, const umap_rows *data, umap_model **out) {
    umap_config c = config ? *config : umap_config_default();
    if (!data || data->dense) return umap_fit(config, data ? data->dense : NULL, data ? data->n : 0, data ? data->dim : 0, out);
    if (c.unique) return umap__fit_unique(&c, data, out);
    return umap__fit_sparse(&c, data, out);
}

/* sparse rows through the input projection, or densified where the
   encoder reads every column (never a graph of distances: its memberships
   are projected, see umap__graph_input) */
static umap_result umap__fit_sparse(const umap_config *config, const umap_rows *data, umap_model **out) {
    umap__fitter f;
    umap_fit_info local;
    const umap_config c = *config;
    float *dense = NULL, maxabs = 0.0f;
    int64_t i, t, bad_row = -1;
    umap_result r;
    if ((c.input_dims > 0 && c.input_dims < data->dim) || c.metric == UMAP_METRIC_PRECOMPUTED) /* a graph: projected */
        return umap__fit_impl(config, NULL, data, data->n, data->dim, NULL, NULL, 0, out);
    umap__fitter_begin(&f, config, &local, NULL, data->n, "checks");
    if (out) *out = NULL;
    if (!out) return umap__fail(&f.err, UMAP_ERR_INVALID_ARGUMENT, "out is NULL");
    if ((r = umap__csr_valid(&f.err, c.metric, "data", data, &bad_row, &maxabs)) != UMAP_OK) return r;
    /* the rows as the encoder reads them: dense, where that is small */
    if ((double)data->n * (double)data->dim > (double)UMAP__SPARSE_DENSIFY_MAX)
        return umap__fail(&f.err, UMAP_ERR_TOO_LARGE,
                          "sparse rows of %lld columns: without the input projection (input_dims = %d) the encoder "
                          "reads every column, and %lld x %lld floats are too many; set input_dims below the width",
                          (long long)data->dim, c.input_dims, (long long)data->n, (long long)data->dim);
    if (!(dense = (float *)umap__calloc(f.a, (size_t)(data->n * data->dim), sizeof(float))))
        return umap__fail(&f.err, UMAP_ERR_OUT_OF_MEMORY, "out of memory for %lld x %lld dense rows",
                          (long long)data->n, (long long)data->dim);
    for (i = 0; i < data->n; i++)
        for (t = data->indptr[i]; t < data->indptr[i + 1]; t++) dense[i * data->dim + data->indices[t]] = data->values[t];
    r = umap__fit_impl(config, dense, NULL, data->n, data->dim, NULL, NULL, 0, out);
    umap__free(f.a, dense);
    return r;
}

/* --- umap_update: the fit's stages over the old rows and the new, from a model */

/* one side of an update's rows checked, before any work: the model's
   width, finite values (the row named, counting in that side), the
   metric's domain */
static umap_result umap__update_rows_check(umap__fitter *f, const umap_model *m, const umap_rows *x, const char *what) {
    int64_t bad = -1;
    float maxabs = 0.0f;
    if (x->n < 1 || x->dim != m->n_features || (x->dense == NULL && x->indptr == NULL))
        return umap__fail(&f->err, UMAP_ERR_INVALID_ARGUMENT, "%s: %lld rows of %lld columns (need at least 1 row, "
                          "the model's %lld columns)", what, (long long)x->n, (long long)x->dim, (long long)m->n_features);
    if (!x->dense) return umap__csr_valid(&f->err, m->config.metric, what, x, &bad, &maxabs);
    if ((bad = umap__nonfinite_row(x->dense, x->n, x->dim)) >= 0)
        return umap__fail(&f->err, UMAP_ERR_NON_FINITE, "%s: row %lld holds NaN or Inf", what, (long long)bad);
    return umap__metric_domain_check(&f->err, m->config.metric, what, x->dense, x->n, x->dim, &bad);
}

/* a then b as one set of rows in their (shared) form, into memory the
   update owns (own[0..2]); sparse rows are made dense where the model
   reads every column (no input projection), as umap_fit_rows does */
static umap_result umap__update_concat(umap__fitter *f, const umap_model *m, const umap_rows *a, const umap_rows *b,
                                       umap_rows *out, void **own) {
    const int64_t n = a->n + b->n, d = a->dim;
    int64_t i, t, nnz;
    memset(out, 0, sizeof *out);
    out->n = n;
    out->dim = d;
    if (a->dense || !m->proj_dims) {
        float *x;
        if ((double)n * (double)d > (double)UMAP__SPARSE_DENSIFY_MAX && !a->dense)
            return umap__fail(&f->err, UMAP_ERR_TOO_LARGE, "%lld sparse rows of %lld columns: a model without an input "
                              "projection reads every column, and that many floats are too many", (long long)n, (long long)d);
        if (!(x = (float *)(a->dense ? umap__alloc(f->a, (size_t)(n * d) * sizeof(float))
                                     : umap__calloc(f->a, (size_t)(n * d), sizeof(float)))))
            return umap__fail(&f->err, UMAP_ERR_OUT_OF_MEMORY, "out of memory for %lld x %lld rows", (long long)n, (long long)d);
        own[0] = x;
        if (a->dense) {
            memcpy(x, a->dense, (size_t)(a->n * d) * sizeof(float));
            memcpy(x + a->n * d, b->dense, (size_t)(b->n * d) * sizeof(float));
        } else {
            for (i = 0; i < a->n; i++)
                for (t = a->indptr[i]; t < a->indptr[i + 1]; t++) x[i * d + a->indices[t]] = a->values[t];
            for (i = 0; i < b->n; i++)
                for (t = b->indptr[i]; t < b->indptr[i + 1]; t++) x[(a->n + i) * d + b->indices[t]] = b->values[t];
        }
        out->dense = x;
        return UMAP_OK;
    }
    nnz = a->indptr[a->n] + b->indptr[b->n];
    own[0] = umap__alloc(f->a, (size_t)(n + 1) * sizeof(int64_t));
    own[1] = umap__alloc(f->a, (size_t)(nnz ? nnz : 1) * sizeof(int32_t));
    own[2] = umap__alloc(f->a, (size_t)(nnz ? nnz : 1) * sizeof(float));
    if (!own[0] || !own[1] || !own[2])
        return umap__fail(&f->err, UMAP_ERR_OUT_OF_MEMORY, "out of memory for %lld sparse rows", (long long)n);
    {
        int64_t *indptr = (int64_t *)own[0], na = a->indptr[a->n];
        for (i = 0; i <= a->n; i++) indptr[i] = a->indptr[i];
        for (i = 1; i <= b->n; i++) indptr[a->n + i] = na + b->indptr[i];
        memcpy(own[1], a->indices, (size_t)na * sizeof(int32_t));
        memcpy((int32_t *)own[1] + na, b->indices, (size_t)b->indptr[b->n] * sizeof(int32_t));
        memcpy(own[2], a->values, (size_t)na * sizeof(float));
        memcpy((float *)own[2] + na, b->values, (size_t)b->indptr[b->n] * sizeof(float));
        *out = umap_rows_csr(n, d, indptr, (const int32_t *)own[1], (const float *)own[2]);
    }
    return UMAP_OK;
}

UMAP__FN umap_result umap_update(umap_model *m, const umap_update_desc *desc, const umap_rows *new_rows) {
    static umap_result (*const stages[])(umap__fit_run *) = {
        umap__fit_checks, umap__fit_columns, umap__fit_knn,   umap__fit_graph, umap__fit_programs,
        umap__fit_train,  umap__fit_embed,   umap__fit_refine, umap__fit_radii, umap__fit_decoder, umap__fit_keep};
    umap_update_desc dd;
    umap_config c;
    umap__fit_run s;
    umap_rows kept, all;
    const umap_rows *old;
    void *own[3] = {NULL, NULL, NULL};
    umap_model *grown = NULL;
    umap_result r = UMAP_OK;
    size_t i;
    if (desc) dd = *desc;
    else memset(&dd, 0, sizeof dd);
    c = m ? m->config : umap_config_default();
    if (m) c.allocator = m->alloc;
    c.n_threads = dd.n_threads;
    c.progress = dd.progress;
    c.progress_user_data = dd.progress_user_data;
    c.logger = dd.logger;
    c.info = dd.info;
    c.graph = dd.graph;
    c.init = UMAP_INIT_RANDOM; /* the encoder starts from the model's weights */
    c.unique = 0;
    if (dd.refine_epochs > 0) c.refine_epochs = dd.refine_epochs;
    if (dd.distill_epochs > 0) c.distill_epochs = dd.distill_epochs;
    /* the update's own draws, from the seed and what the model has grown to */
    c.seed ^= 0x9e3779b97f4a7c15ull * (uint64_t)(m ? m->n_train : 0);
    memset(&s, 0, sizeof s);
    umap__fitter_begin(&s.f, &c, &s.local_info, NULL, 0, "checks");
    if (c.graph) memset(c.graph, 0, sizeof *c.graph); /* none, unless the update succeeds */
    s.f.err.prefix = "update: ";
    if (!m || !new_rows) return umap__fail(&s.f.err, UMAP_ERR_INVALID_ARGUMENT, "the model or the new rows are NULL");
    if (dd.refine_epochs < 0 || dd.distill_epochs < 0 || dd.n_threads < 0)
        return umap__fail(&s.f.err, UMAP_ERR_INVALID_ARGUMENT, "refine_epochs = %d, distill_epochs = %d, n_threads = %d "
                          "(need >= 0; 0 = the model's, all cores)", dd.refine_epochs, dd.distill_epochs, dd.n_threads);
    if (m->config.metric == UMAP_METRIC_PRECOMPUTED)
        return umap__fail(&s.f.err, UMAP_ERR_INVALID_ARGUMENT, "metric = precomputed: the model's rows are distances to its "
                          "%lld training rows, and new rows would need distances among all of them; fit again on the "
                          "grown matrix", (long long)m->n_train);
    if (!(old = dd.old_rows)) {
        if (!m->train_data || m->n_kept != m->n_train)
            return umap__fail(&s.f.err, UMAP_ERR_INVALID_ARGUMENT, "the model keeps %s of its %lld training rows: pass "
                              "them as desc.old_rows (or fit with keep_data = rows to keep them all)",
                              m->train_data ? "a sample" : m->train_sketch ? "a sketch" : "none",
                              (long long)m->n_train);
        kept = umap_rows_dense(m->train_data, m->n_train, m->n_features);
        old = &kept;
    } else if (old->n != m->n_train) {
        return umap__fail(&s.f.err, UMAP_ERR_INVALID_ARGUMENT, "old_rows: %lld rows; the model was fitted on %lld",
                          (long long)old->n, (long long)m->n_train);
    }
    if ((dd.old_rows && (r = umap__update_rows_check(&s.f, m, old, "old rows")) != UMAP_OK) ||
        (r = umap__update_rows_check(&s.f, m, new_rows, "new rows")) != UMAP_OK)
        return r;
    if (!old->dense != !new_rows->dense)
        return umap__fail(&s.f.err, UMAP_ERR_INVALID_ARGUMENT, "the old rows are %s and the new rows %s: give both in one form",
                          old->dense ? "dense" : "sparse", new_rows->dense ? "dense" : "sparse");
    if ((int64_t)old->n + new_rows->n > 2147483647 / 2)
        return umap__fail(&s.f.err, UMAP_ERR_TOO_LARGE, "%lld rows in all: more than int32 indices allow",
                          (long long)(old->n + new_rows->n));
    if ((r = umap__update_concat(&s.f, m, old, new_rows, &all, own)) == UMAP_OK) {
        s.base = m;
        s.f.n_fixed = m->n_train;
        s.x = s.f.x = all.dense;
        s.sp = s.f.sp = all.dense ? NULL : &all;
        s.n = s.f.n = all.n;
        s.d = all.dim;
        for (i = 0; i < sizeof stages / sizeof stages[0] && r == UMAP_OK; i++) r = stages[i](&s);
        if (r == UMAP_OK && s.stop != UMAP_OK) r = s.stop; /* a cancelled or diverged update changes nothing */
        r = umap__fit_end(&s, r, &grown);
    }
    for (i = 0; i < 3; i++) umap__free(&m->alloc, own[i]);
    if (r != UMAP_OK) {
        umap_model_free(grown);
        return r;
    }
    {   /* the grown model takes the place of the old, whose memory goes */
        umap_model old_model = *m;
        grown->config.seed = m->config.seed;
        grown->config.init = m->config.init;
        grown->config.unique = m->config.unique;
        grown->config.refine_epochs = m->config.refine_epochs;
        grown->config.distill_epochs = m->config.distill_epochs;
        *m = *grown;
        *grown = old_model;
        umap_model_free(grown);
    }
    return UMAP_OK;
}

UMAP__FN umap_result umap_fuzzy_graph(const umap_config *config, const int32_t *indices, const float *distances,
                                      int64_t n, int k, umap_edge_list *out) {
    umap__fitter f;
    umap_fit_info local_info;
    umap__edges e;
    int own_pool = 0;
    umap_result r;
    umap__fitter_begin(&f, config, &local_info, NULL, n, "graph");
    memset(&e, 0, sizeof e);
    if (!out) return umap__fail(&f.err, UMAP_ERR_INVALID_ARGUMENT, "out is NULL");
    memset(out, 0, sizeof *out);
    if (!indices || !distances || n < 2 || n > 2147483647 / 2 || k < 1 || k >= n || n * k >= 2147483647)
        return umap__fail(&f.err, UMAP_ERR_INVALID_ARGUMENT,
                          "caller's k-NN: %lld rows, k = %d (need indices, distances, 2 <= n < 2^30, 1 <= k < n)",
                          (long long)n, k);
    {   /* fit's rules for the config (the rows are the lists', so n_neighbors is not held to them) */
        char why[400];
        if ((r = umap__config_rules(&f.c, 0, 0, 1, why, sizeof why)) != UMAP_OK) return umap__fail(&f.err, r, "%s", why);
    }
    if ((r = umap__check_target(&f, n)) != UMAP_OK || (r = umap__check_user_knn(&f, indices, distances, n, k)) != UMAP_OK)
        return r;
    if ((r = umap__fitter_pool(&f, &own_pool)) != UMAP_OK) return r;
    if ((r = umap__fuzzy_graph(f.a, f.pool, &f.c, indices, distances, n, k, &e)) == UMAP_OK && f.c.target)
        r = umap__supervise(&f, &e);
    if (own_pool) umap_pool_free(f.pool);
    if (r != UMAP_OK) {
        umap__free(f.a, e.head); umap__free(f.a, e.tail); umap__free(f.a, e.weight);
        return f.info->error_detail[0] ? r : umap__fail(&f.err, r, "the fuzzy graph: %s", umap_result_string(r));
    }
    out->n_edges = f.info->n_edges = e.n;
    out->n_nodes = n;
    out->head = e.head;
    out->tail = e.tail;
    out->weight = e.weight;
    out->allocator = f.c.allocator;
    return UMAP_OK;
}

UMAP__FN void umap_edge_list_free(umap_edge_list *edges) {
    if (!edges) return;
    umap__free(&edges->allocator, edges->head);
    umap__free(&edges->allocator, edges->tail);
    umap__free(&edges->allocator, edges->weight);
    memset(edges, 0, sizeof *edges);
}

/* >>transform: new rows by the encoder or among the kept rows -------------------- */

/* transform's argument checks (UMAP_OK: go on; *empty: nothing to do);
   detail (may be NULL) says why not */
static umap_result umap__transform_check(const umap_model *m, const float *data, int64_t n, int64_t d, const float *out,
                                         int *empty, char *detail, size_t detail_size) {
    int64_t bad, nd, nk;
    size_t bytes;
    *empty = 0;
    if (detail && detail_size) detail[0] = 0;
    if (!m || !data || !out || n < 0) {
        if (detail) snprintf(detail, detail_size, "transform: %s", !m ? "model is NULL" : !data ? "data is NULL" : !out ? "out is NULL" : "n < 0");
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    if (d != m->n_features) {
        if (detail) snprintf(detail, detail_size, "transform: rows of %lld features, the model was fitted on %lld", (long long)d, (long long)m->n_features);
        return UMAP_ERR_SHAPE;
    }
    if (m->graph_input) {
        if (detail)
            snprintf(detail, detail_size, "transform: the model was fitted on a sparse graph of distances: give each new "
                     "row's distances to its nearest training rows as a sparse row (umap_transform_rows), at least "
                     "n_neighbors - 1 (%d) of them", m->config.n_neighbors - 1);
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    /* n * d (the input read below) and n * n_components (the output) must be
       sizes of memory before either is touched */
    if (!umap__mul(n, d, &nd) || !umap__bytes(nd, sizeof(float), &bytes) || !umap__mul(n, m->n_components, &nk) ||
        !umap__bytes(nk, sizeof(float), &bytes)) {
        if (detail) snprintf(detail, detail_size, "transform: %lld rows of %lld features (and %d components) are more than memory can address",
                             (long long)n, (long long)d, m->n_components);
        return UMAP_ERR_TOO_LARGE;
    }
    *empty = n == 0;
    if ((bad = umap__nonfinite_row(data, n, d)) >= 0) {
        if (detail) snprintf(detail, detail_size, "row %lld of the data holds NaN or Inf", (long long)bad);
        return UMAP_ERR_NON_FINITE;
    }
    { /* new rows in the metric's domain, as the training rows were */
        umap__err e;
        memset(&e, 0, sizeof e);
        e.detail = detail;
        e.size = detail ? detail_size : 0;
        return umap__metric_domain_check(&e, m->config.metric, "transform", data, n, d, &bad);
    }
}

/* --- transform's neighbours mode: new rows among the training rows ---------- */

/* Epochs when the caller asks for auto: umap-learn's choice, more for a
   small batch, where they are cheap. */
#ifndef UMAP_TRANSFORM_AUTO_EPOCHS
#define UMAP_TRANSFORM_AUTO_EPOCHS(n_rows) ((n_rows) <= 10000 ? 100 : 30)
#endif
/* The expected step (2 components) has no draws to average over: its
   epochs cut one descent, as long as UMAP__EXPECTED_PATH sampled epochs'
   steps add up to, into that many steps, and more only make it finer.
   Auto: 30, which placed Fashion-MNIST's test rows as 100 did. */
#define UMAP__EXPECTED_PATH 100
#ifndef UMAP_TRANSFORM_AUTO_EXPECTED_EPOCHS
#define UMAP_TRANSFORM_AUTO_EXPECTED_EPOCHS 30
#endif

typedef struct umap__place_ctx {
    const umap_model *m;
    const int32_t *idx;   /* n x k training rows */
    const float *w;       /* their memberships */
    int k;
    float *out;           /* n x n_components */
} umap__place_ctx;

/* Each row starts at the membership-weighted mean of its neighbours'
   embeddings (umap-learn's init_graph_transform). */
static void umap__place_start(void *vctx, int64_t begin, int64_t end) {
    const umap__place_ctx *p = (const umap__place_ctx *)vctx;
    int c = p->m->n_components, q, j;
    int64_t i;
    for (i = begin; i < end; i++) {
        double acc[64], total = 0.0;
        const int32_t *nb = p->idx + i * p->k;
        const float *w = p->w + i * p->k;
        for (q = 0; q < c; q++) acc[q] = 0.0;
        for (j = 0; j < p->k; j++) total += w[j];
        for (j = 0; j < p->k; j++) {
            /* memberships all zero cannot come out of the sigma search, but
               would mean an equal say for each */
            double wj = total > 0 ? w[j] / total : 1.0 / p->k;
            const float *e = p->m->kept_embedding + (int64_t)nb[j] * c;
            for (q = 0; q < c; q++) acc[q] += wj * e[q];
        }
        for (q = 0; q < c; q++) p->out[i * c + q] = (float)acc[q];
    }
}

/* Where the neighbour search of a kept-data transform starts: for each new
   row, the UMAP__PLACE_SEEDS training rows whose embeddings lie nearest the
   encoder's placement of it (first two components; a grid of the training
   embedding, searched ring by ring). The encoder puts a row near its
   neighbours' embeddings, so the walk along the training k-NN graph
   (umap_knn_query_graph) starts among them. */
#ifndef UMAP__PLACE_SEEDS
#define UMAP__PLACE_SEEDS 8
#endif

typedef struct umap__seed_grid {
    const float *emb, *at;  /* training embedding; the new rows' encoder placements */
    int nc, g;              /* components; cells per side */
    float lo[2], cell[2];
    const int64_t *start;   /* g*g + 1: cell c's rows are rows[start[c] .. start[c + 1]) */
    const int32_t *rows;
    int32_t *seeds;         /* n x UMAP__PLACE_SEEDS */
} umap__seed_grid;

static int umap__seed_cell(const umap__seed_grid *s, float v, int axis) {
    float c = (v - s->lo[axis]) / s->cell[axis];
    return c >= (float)(s->g - 1) ? s->g - 1 : c > 0.0f ? (int)c : 0; /* NaN: 0 */
}
static float umap__seed_coord(const float *e, int nc, int axis) { return axis < nc ? e[axis] : 0.0f; }

static void umap__seed_rows(void *vctx, int64_t begin, int64_t end) {
    const umap__seed_grid *s = (const umap__seed_grid *)vctx;
    int64_t i;
    for (i = begin; i < end; i++) {
        const float *p = s->at + i * s->nc;
        float px = umap__seed_coord(p, s->nc, 0), py = umap__seed_coord(p, s->nc, 1);
        int cx = umap__seed_cell(s, px, 0), cy = umap__seed_cell(s, py, 1), r, have = 0, j;
        float best_d[UMAP__PLACE_SEEDS];
        int32_t *best = s->seeds + i * UMAP__PLACE_SEEDS;
        float step = s->cell[0] < s->cell[1] ? s->cell[0] : s->cell[1];
        for (r = 0; r < s->g; r++) {
            int x, y;
            /* every cell of ring r lies at least (r - 1) cells from the row */
            if (have == UMAP__PLACE_SEEDS && r >= 1 && (float)(r - 1) * step * ((float)(r - 1) * step) > best_d[have - 1])
                break;
            for (y = cy - r; y <= cy + r; y++) {
                if (y < 0 || y >= s->g) continue;
                for (x = cx - r; x <= cx + r; x += (y == cy - r || y == cy + r) ? 1 : 2 * r) {
                    int64_t c = (int64_t)y * s->g + x, t;
                    if (x < 0 || x >= s->g) { if (r == 0) break; continue; }
                    for (t = s->start[c]; t < s->start[c + 1]; t++) {
                        int32_t row = s->rows[t];
                        const float *e = s->emb + (int64_t)row * s->nc;
                        float dx = umap__seed_coord(e, s->nc, 0) - px, dy = umap__seed_coord(e, s->nc, 1) - py;
                        float d = dx * dx + dy * dy;
                        if (have == UMAP__PLACE_SEEDS && !(d < best_d[have - 1] || (d == best_d[have - 1] && row < best[have - 1])))
                            continue;
                        j = have < UMAP__PLACE_SEEDS ? have++ : have - 1;
                        while (j > 0 && (best_d[j - 1] > d || (best_d[j - 1] == d && best[j - 1] > row))) {
                            best_d[j] = best_d[j - 1];
                            best[j] = best[j - 1];
                            j--;
                        }
                        best_d[j] = d;
                        best[j] = row;
                    }
                    if (r == 0) break;
                }
            }
        }
        for (j = have; j < UMAP__PLACE_SEEDS; j++) best[j] = -1;
    }
}

/* seeds (n x UMAP__PLACE_SEEDS) for the rows x (prepared: umap__encoder_input's):
   the encoder's placements, then the grid */
static umap_result umap__place_seeds(const umap_model *m, umap_pool *pool, const float *x, int prepared, int64_t n,
                                     int32_t *seeds, char *detail, size_t detail_size) {
    const umap_allocator *a = &m->alloc;
    int64_t nt = m->n_kept, i, cells;
    int nc = m->n_components, axis, g;
    float hi[2];
    umap__seed_grid s;
    int64_t *start = NULL;
    int32_t *rows = NULL;
    float *at = (float *)umap__alloc(a, (size_t)(n * nc) * sizeof(float));
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    if (!at) return r;
    /* a row the encoder cannot place (not finite) gets seeds all the same */
    if ((r = umap__embed(m, pool, NULL, x, n, prepared, 1, at, detail, detail_size)) != UMAP_OK) goto done;
    r = UMAP_ERR_OUT_OF_MEMORY;
    g = (int)sqrt((double)nt / 2.0); /* about two rows a cell */
    g = g < 1 ? 1 : g > 4096 ? 4096 : g;
    cells = (int64_t)g * g;
    for (axis = 0; axis < 2; axis++) {
        s.lo[axis] = hi[axis] = umap__seed_coord(m->kept_embedding, nc, axis);
        for (i = 1; i < nt; i++) {
            float v = umap__seed_coord(m->kept_embedding + i * nc, nc, axis);
            s.lo[axis] = v < s.lo[axis] ? v : s.lo[axis];
            hi[axis] = v > hi[axis] ? v : hi[axis];
        }
        s.cell[axis] = (hi[axis] - s.lo[axis]) / (float)g;
        if (!(s.cell[axis] > 0.0f)) s.cell[axis] = 1.0f; /* all on one line */
    }
    s.g = g;
    s.nc = nc;
    s.emb = m->kept_embedding;
    s.at = at;
    s.seeds = seeds;
    start = (int64_t *)umap__calloc(a, (size_t)(cells + 2), sizeof(int64_t));
    rows = (int32_t *)umap__alloc(a, (size_t)nt * sizeof(int32_t));
    if (!start || !rows) goto done;
    for (i = 0; i < nt; i++) { /* counting sort by cell, rows in order within a cell */
        const float *e = m->kept_embedding + i * nc;
        start[(int64_t)umap__seed_cell(&s, umap__seed_coord(e, nc, 1), 1) * g + umap__seed_cell(&s, umap__seed_coord(e, nc, 0), 0) + 2]++;
    }
    for (i = 0; i < cells; i++) start[i + 2] += start[i + 1];
    for (i = 0; i < nt; i++) {
        const float *e = m->kept_embedding + i * nc;
        rows[start[(int64_t)umap__seed_cell(&s, umap__seed_coord(e, nc, 1), 1) * g + umap__seed_cell(&s, umap__seed_coord(e, nc, 0), 0) + 1]++] = (int32_t)i;
    }
    s.start = start;
    s.rows = rows;
    umap__parallel_range(pool, n, 256, umap__seed_rows, &s);
    r = UMAP_OK;
done:
    umap__free(a, at);
    umap__free(a, start);
    umap__free(a, rows);
    return r;
}

/* The walks of the new rows x (umap_knn_graph_index_search from their
   seeds), run in the order of where their first seeds lie in the training
   embedding (a Morton curve over it): walks one after another then read
   the same kept rows, from cache. A walk's result does not depend on the
   order, so nothing else does. */
static umap_result umap__place_walks(const umap_model *m, const umap_knn_desc *kd, const float *x, int64_t n,
                                     const int32_t *seeds, int32_t *idx, float *dist, int *scale_e) {
    uint64_t *order = (uint64_t *)umap__alloc(&m->alloc, (size_t)n * sizeof(uint64_t));
    umap_result r;
    if (!order) return UMAP_ERR_OUT_OF_MEMORY;
    /* by the first seed: the training row nearest the encoder's placement */
    umap__curve_order(m, seeds, UMAP__PLACE_SEEDS, n, order);
    r = umap__knn_index_search(kd, m->train_index, x, n, seeds, UMAP__PLACE_SEEDS, (const int64_t *)order, idx, dist,
                               scale_e);
    umap__free(&m->alloc, order);
    return r;
}

typedef struct umap__expect_ctx {
    const umap_model *m;
    const umap__push_field *field;
    const int32_t *idx;  /* n x k training rows */
    const float *w;      /* their memberships */
    int k, epochs, neg;
    const float *rates;  /* per epoch: the descent's steps */
    float *out;          /* in: the start; out: the place (n x 2) */
    int kernel;          /* umap__refine_kernel_best() */
} umap__expect_ctx;

/* a row's chances: its strongest membership, the weakest edge the epochs
   keep, and negative_sample_rate x the sum of the kept edges' chances;
   0 when no edge pulls (the row stays at its start, as in sampled epochs) */
static int umap__expect_weights(const umap__expect_ctx *c, const float *w, float *wmax, float *floor_w, float *push_sum) {
    float top = 0.0f, sum = 0.0f, least;
    int j;
    for (j = 0; j < c->k; j++) top = w[j] > top ? w[j] : top;
    if (!(top > 0)) return 0;
    /* as the sampled epochs: edges too weak to be drawn once in the
       descent's UMAP__EXPECTED_PATH epochs are dropped */
    least = top / (float)UMAP__EXPECTED_PATH;
    for (j = 0; j < c->k; j++) sum += w[j] < least ? 0.0f : w[j] / top;
    *wmax = top;
    *floor_w = least;
    *push_sum = sum * (float)c->neg;
    return 1;
}

static void umap__expect_row(const umap__expect_ctx *c, int64_t i) {
    const float a = c->m->a, b = c->m->b, two_ab = 2.0f * a * b, pull = c->m->config.refine_attraction;
    const int32_t *nb = c->idx + i * c->k;
    const float *w = c->w + i * c->k;
    float wmax, floor_w, push_sum, y0 = c->out[2 * i], y1 = c->out[2 * i + 1], push[2];
    int j, ep;
    if (!umap__expect_weights(c, w, &wmax, &floor_w, &push_sum)) return;
    for (ep = 0; ep < c->epochs; ep++) {
        float s0 = 0.0f, s1 = 0.0f;
        for (j = 0; j < c->k; j++) {
            const float *e = c->m->kept_embedding + 2 * (int64_t)nb[j]; /* from L1 after the first epoch */
            float dx = y0 - e[0], dy = y1 - e[1], d2 = dx * dx + dy * dy;
            if (w[j] >= floor_w && d2 > 0) { /* attraction, weighed by its chance */
                float coef = umap__pull_coef(d2, a, b, two_ab), p = w[j] / wmax;
                s0 += p * (pull * umap__clip4(coef * dx));
                s1 += p * (pull * umap__clip4(coef * dy));
            }
        }
        umap__push_field_at(c->field, y0, y1, push);
        y0 += c->rates[ep] * (s0 + push_sum * push[0]);
        y1 += c->rates[ep] * (s1 + push_sum * push[1]);
    }
    c->out[2 * i] = y0;
    c->out[2 * i + 1] = y1;
}

#ifdef UMAP__REFINE_AVX2
/* umap__push_field_at for UMAP__RL places at once: the same operations in
   the same order on each lane (the nodes' values read lane by lane), and a
   lane off the grid takes the scalar call's far branch */
__attribute__((target("avx2"))) static UMAP__FORCE_INLINE void umap__push_field_at_v(const umap__push_field *f,
                                                                                    const umap__rvf *y0,
                                                                                    const umap__rvf *y1, umap__rvf *out0,
                                                                                    umap__rvf *out1) {
    const int g = f->g, L = UMAP__RL;
    const umap__rvf zero = {0.0f}, last = zero + (float)(g - 1);
    const umap__rvf ux = (*y0 - f->lo[0]) / f->cell[0], uy = (*y1 - f->lo[1]) / f->cell[1];
    const umap__rvi on = (ux >= zero) & (ux < last) & (uy >= zero) & (uy < last); /* NaN: off */
    const umap__rvi x = __builtin_convertvector(UMAP__SEL(on, ux, zero), umap__rvi);
    const umap__rvi y = __builtin_convertvector(UMAP__SEL(on, uy, zero), umap__rvi);
    const umap__rvf fx = ux - __builtin_convertvector(x, umap__rvf), fy = uy - __builtin_convertvector(y, umap__rvf);
    float node[8][UMAP__RL], o0[UMAP__RL], o1[UMAP__RL];
    umap__rvf v[8];
    int l, t, off = 0;
    for (l = 0; l < L; l++) { /* the four nodes around the place: (x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1) */
        const float *p = f->push + 2 * ((int64_t)y[l] * g + x[l]);
        for (t = 0; t < 4; t++) node[t][l] = p[t], node[4 + t][l] = p[2 * g + t];
        off |= !on[l];
    }
    for (t = 0; t < 8; t++) memcpy(&v[t], node[t], sizeof v[t]);
    *out0 = (1.0f - fy) * ((1.0f - fx) * v[0] + fx * v[2]) + fy * ((1.0f - fx) * v[4] + fx * v[6]);
    *out1 = (1.0f - fy) * ((1.0f - fx) * v[1] + fx * v[3]) + fy * ((1.0f - fx) * v[5] + fx * v[7]);
    if (!off) return;
    memcpy(o0, out0, sizeof o0);
    memcpy(o1, out1, sizeof o1);
    for (l = 0; l < L; l++)
        if (!on[l]) { /* far: from the centroid */
            float push[2];
            umap__push(f, (*y0)[l] - f->centroid[0], (*y1)[l] - f->centroid[1], push);
            o0[l] = push[0];
            o1[l] = push[1];
        }
    memcpy(out0, o0, sizeof o0);
    memcpy(out1, o1, sizeof o1);
}

/* umap__expect_row for UMAP__RL rows at once, a row a lane: the scalar
   loop's operations in its order on every lane (a skipped term is a lane
   left as it was), so the bits are the scalar loop's. scratch: 4 x k x
   UMAP__RL floats. */
__attribute__((target("avx2"))) static void umap__expect_rows_avx2(const umap__expect_ctx *c, int64_t begin,
                                                                   int64_t end, float *scratch) {
    const float a = c->m->a, b = c->m->b, two_ab = 2.0f * a * b, pull = c->m->config.refine_attraction;
    const umap__rvf zero = {0.0f}, one = zero + 1.0f;
    const int k = c->k, L = UMAP__RL;
    float *ex = scratch, *ey = ex + k * L, *pj = ey + k * L;
    int32_t *keep = (int32_t *)(pj + k * L);
    int64_t i0;
    for (i0 = begin; i0 < end; i0 += L) {
        float y0s[UMAP__RL], y1s[UMAP__RL], sums[UMAP__RL];
        int live[UMAP__RL], l, j, ep;
        umap__rvf y0, y1, push_sum, px, py;
        for (l = 0; l < L; l++) {
            int64_t i = i0 + l < end ? i0 + l : end - 1; /* lanes past the end repeat the last row, unstored */
            const int32_t *nb = c->idx + i * k;
            const float *w = c->w + i * k;
            float wmax = 1.0f, floor_w = HUGE_VALF, push_sum1 = 0.0f;
            live[l] = i0 + l < end && umap__expect_weights(c, w, &wmax, &floor_w, &push_sum1);
            y0s[l] = c->out[2 * i];
            y1s[l] = c->out[2 * i + 1];
            sums[l] = push_sum1;
            for (j = 0; j < k; j++) {
                const float *e = c->m->kept_embedding + 2 * (int64_t)nb[j];
                ex[j * L + l] = e[0];
                ey[j * L + l] = e[1];
                pj[j * L + l] = live[l] ? w[j] / wmax : 0.0f;
                keep[j * L + l] = live[l] && w[j] >= floor_w ? -1 : 0;
            }
        }
        memcpy(&y0, y0s, sizeof y0);
        memcpy(&y1, y1s, sizeof y1);
        memcpy(&push_sum, sums, sizeof push_sum);
        for (ep = 0; ep < c->epochs; ep++) {
            umap__rvf s0 = zero, s1 = zero, rate = zero + c->rates[ep];
            for (j = 0; j < k; j++) {
                umap__rvf vex, vey, p, dx, dy, d2, base, pb, coef, vx, vy;
                umap__rvi use;
                memcpy(&vex, ex + j * L, sizeof vex);
                memcpy(&vey, ey + j * L, sizeof vey);
                memcpy(&p, pj + j * L, sizeof p);
                memcpy(&use, keep + j * L, sizeof use);
                dx = y0 - vex;
                dy = y1 - vey;
                d2 = dx * dx + dy * dy;
                use = use & (d2 > zero);
                base = UMAP__SEL(use, d2, one);
                umap__pow_pos_v(&pb, &base, b);
                coef = -two_ab * pb / (base * (a * pb + 1.0f));
                vx = coef * dx;
                vy = coef * dy;
                umap__clip4_v(&vx);
                umap__clip4_v(&vy);
                s0 = UMAP__SEL(use, s0 + p * (pull * vx), s0);
                s1 = UMAP__SEL(use, s1 + p * (pull * vy), s1);
            }
            umap__push_field_at_v(c->field, &y0, &y1, &px, &py);
            y0 = y0 + rate * (s0 + push_sum * px);
            y1 = y1 + rate * (s1 + push_sum * py);
        }
        memcpy(y0s, &y0, sizeof y0);
        memcpy(y1s, &y1, sizeof y1);
        for (l = 0; l < L; l++)
            if (live[l]) {
                c->out[2 * (i0 + l)] = y0s[l];
                c->out[2 * (i0 + l) + 1] = y1s[l];
            }
    }
}
#endif

static void umap__expect_rows(void *vctx, int64_t begin, int64_t end) {
    const umap__expect_ctx *c = (const umap__expect_ctx *)vctx;
    int64_t i;
#ifdef UMAP__REFINE_AVX2
    if (c->kernel == UMAP__RK_AVX2) {
        float *scratch = (float *)umap__alloc(&c->m->alloc, (size_t)c->k * 4 * UMAP__RL * sizeof(float));
        if (scratch) { /* else the scalar loop: the same bits */
            umap__expect_rows_avx2(c, begin, end, scratch);
            umap__free(&c->m->alloc, scratch);
            return;
        }
    }
#endif
    for (i = begin; i < end; i++) umap__expect_row(c, i);
}

/* The placement's epochs for a model of other than 2 components: fit's
   refinement moving only the new rows, its draws (see umap__refine_row). */
static umap_result umap__place_sampled(const umap_model *m, umap_pool *pool, const int32_t *idx, const float *w,
                                       int64_t n, int k, int epochs, const float *rates, float *out) {
    const umap_allocator *a = &m->alloc;
    const umap_config *cfg = &m->config;
    uint32_t *active = (uint32_t *)umap__alloc(a, (size_t)(n * k) * sizeof(uint32_t));
    int64_t *offset = (int64_t *)umap__alloc(a, (size_t)(n + 1) * sizeof(int64_t)), i;
    uint64_t *keys = (uint64_t *)umap__alloc(a, (size_t)epochs * sizeof(uint64_t));
    umap_refine_job job;
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    int ep;
    if (!active || !offset || !keys) goto done;
    /* the epochs' graph: each row's k edges, an edge active in an epoch with
       chance w / w_max, and edges too weak to be sampled once in all the
       epochs (w < w_max / epochs) dropped, as umap-learn does. w_max is the
       row's own strongest membership, where umap-learn takes the call's: in
       fit every row's nearest neighbour has membership 1 (rho is its
       distance), but with rho = 0 here the strongest membership varies from
       row to row, and a call-wide maximum would give the rows far from the
       training data fewer updates. It measured better on Fashion-MNIST, and
       a row's draws then do not depend on the other rows in the call. */
    for (i = 0; i < n; i++) {
        const float *wi = w + i * k;
        float wmax = 0.0f;
        int j;
        for (j = 0; j < k; j++)
            if (wi[j] > wmax) wmax = wi[j];
        for (j = 0; j < k; j++)
            active[i * k + j] = !(wmax > 0) || wi[j] < wmax / (float)epochs
                                    ? 0u
                                    : (uint32_t)((double)wi[j] / wmax * 16777216.0);
    }
    for (i = 0; i <= n; i++) offset[i] = i * k;
    for (ep = 0; ep < epochs; ep++) keys[ep] = umap__epoch_key(cfg->seed, UMAP__STREAM_PLACE, ep);
    memset(&job, 0, sizeof job);
    job.n = n; job.n_components = m->n_components;
    job.offset = offset; job.nbr = idx; job.active = active;
    job.negative_sample_rate = cfg->negative_sample_rate;
    job.a = m->a; job.b = m->b; job.gamma = cfg->repulsion_strength;
    job.attraction = cfg->refine_attraction;
    job.n_epochs = epochs; job.keys = keys; job.rates = rates;
    job.y = out;
    job.pool = pool;
    job.allocator = a;
    r = umap__refine_epochs(&job, m->kept_embedding, m->n_kept, umap__refine_kernel_best());
done:
    umap__free(a, active);
    umap__free(a, offset);
    umap__free(a, keys);
    return r;
}

/* the placement's epochs: the caller's, else by how it runs */
static int umap__place_epochs(const umap_model *m, int asked, int64_t n) {
    return asked ? asked : m->place_field ? UMAP_TRANSFORM_AUTO_EXPECTED_EPOCHS : UMAP_TRANSFORM_AUTO_EPOCHS(n);
}

/* The new rows' fixed-degree graph to the training rows, its start and its
   epochs (see umap_transform_with): the rows x dense, or graph (x NULL), a
   precomputed model's sparse rows, whose nearest stored distances are the
   neighbours. */
/* the placement's neighbours per row: n_neighbors (the loader holds it to
   the kept rows), and no more than a kept row had in the kept graph, whose
   size bounds a call's work */
static int umap__place_k(const umap_model *m) {
    const umap_config *cfg = &m->config;
    if (!umap__kept_rows(m, NULL, NULL, NULL)) return 0;
    return m->train_knn && cfg->n_neighbors > m->train_knn_k + 1 ? m->train_knn_k + 1 : cfg->n_neighbors;
}

/* graph_indices / graph_weights come from the neighbours mode */
static umap_result umap__transform_graph_check(const umap_transform_desc *td) {
    if (td->mode == UMAP_TRANSFORM_NEIGHBORS || (!td->graph_indices && !td->graph_weights)) return UMAP_OK;
    if (td->detail)
        snprintf(td->detail, td->detail_size, "transform: graph_indices and graph_weights are the neighbours mode's "
                 "graph; the encoder places rows without one (a model without kept rows has none)");
    return UMAP_ERR_INVALID_ARGUMENT;
}

static umap_result umap__place(const umap_model *m, umap_pool *pool, const float *x, const umap_rows *graph, int64_t n,
                               int epochs, int exact, float *out, const umap_transform_desc *td) {
    const umap_allocator *a = &m->alloc;
    const umap_config *cfg = &m->config;
    char *detail = td->detail;
    size_t detail_size = td->detail_size;
    int k = umap__place_k(m), scale_e = 0, ep;
    int64_t nk;
    size_t bytes;
    int32_t *idx = NULL;
    float *dist = NULL, *w = NULL, *rates = NULL, *sketch = NULL;
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    umap__smooth_ctx sc;
    umap__place_ctx pc;
    if (!umap__mul(n, k, &nk) || !umap__bytes(nk, sizeof(int64_t), &bytes) ||
        !umap__bytes(n + 1, sizeof(int64_t), &bytes)) {
        if (detail)
            snprintf(detail, detail_size, "transform: %lld rows x %d neighbours are more than memory can address",
                     (long long)n, k);
        return UMAP_ERR_TOO_LARGE;
    }
    idx = (int32_t *)umap__alloc(a, (size_t)nk * sizeof(int32_t));
    dist = (float *)umap__alloc(a, (size_t)nk * sizeof(float));
    w = (float *)umap__alloc(a, (size_t)nk * sizeof(float));
    rates = (float *)umap__alloc(a, (size_t)epochs * sizeof(float));
    if (!idx || !dist || !w || !rates) goto done;
    {   /* exact k-NN among the kept rows (as fit was given them, or their
           sketch), at the search's working scale: the memberships do not
           depend on the scale, and data near FLT_MAX has distances beyond it */
        umap_knn_desc kd;
        umap_knn_info ki;
        const float *base, *q = x;
        int64_t dim, bad;
        int kept = umap__kept_rows(m, &kd, &base, &dim);
        kd.k = k;
        kd.n_threads = 1; /* without a pool: the calling thread, as the caller chose */
        kd.pool = pool;
        kd.allocator = m->alloc;
        kd.info = &ki;
        if (kept == UMAP_KEEP_SKETCH) { /* the new rows' sketch among the kept one */
            if (!(sketch = (float *)umap__alloc(a, (size_t)(n * dim) * sizeof(float))) ||
                umap__sketch(m, pool, x, n, sketch) != UMAP_OK) {
                r = UMAP_ERR_OUT_OF_MEMORY;
                goto done;
            }
            if ((bad = umap__nonfinite_row(sketch, n, dim)) >= 0) {
                if (detail)
                    snprintf(detail, detail_size, "row %lld: too large for float (its sketch is not finite)",
                             (long long)bad);
                r = UMAP_ERR_NON_FINITE;
                goto done;
            }
            q = sketch;
        }
        if (graph) {
            r = umap__sp_select_rows(&kd, graph, 0, idx, dist);
        } else if (exact || !m->train_index) {
            r = umap__knn_query(&kd, base, m->n_kept, q, n, dim, idx, dist, &scale_e);
        } else { /* along the training rows' k-NN graph, from where the encoder puts each row */
            int32_t *seeds = (int32_t *)umap__alloc(a, (size_t)(n * UMAP__PLACE_SEEDS) * sizeof(int32_t));
            /* The encoder's input: in a file from before the sketch's own
               axes the sketch is it; else made from the sketch, or for
               kept rows by a projecting model's product with the z-scores
               folded in, cheaper than the encoder's own z-scoring of every
               column of the rows. */
            const float *seed_in = x;
            float *enc_in = NULL;
            r = seeds ? UMAP_OK : UMAP_ERR_OUT_OF_MEMORY;
            if (q == sketch && !m->sketch_axes) {
                seed_in = q;
            } else if (r == UMAP_OK && (q == sketch || m->proj)) {
                if (!(enc_in = (float *)umap__alloc(a, (size_t)(n * m->width[0]) * sizeof(float))) ||
                    (q == sketch ? umap__encoder_input_of_sketch(m, pool, q, n, enc_in)
                                 : umap__encoder_input(m, pool, x, n, enc_in)) != UMAP_OK)
                    r = UMAP_ERR_OUT_OF_MEMORY;
                seed_in = enc_in;
            }
            if (r == UMAP_OK) r = umap__place_seeds(m, pool, seed_in, seed_in != x, n, seeds, detail, detail_size);
            umap__free(a, enc_in);
            /* a walk keeping just the k it returns: wider walks measured
               the same quality for more distances (docs/NOTES.md) */
            kd.search_width = k;
            if (r == UMAP_OK) r = umap__place_walks(m, &kd, q, n, seeds, idx, dist, &scale_e);
            else snprintf(ki.error_detail, sizeof ki.error_detail, "%s", detail && detail[0] ? detail : "out of memory");
            umap__free(a, seeds);
        }
        if (r != UMAP_OK) {
            if (detail) snprintf(detail, detail_size, "transform: the nearest training rows: %.200s", ki.error_detail);
            goto done;
        }
    }
    /* memberships by fit's own search, with local_connectivity - 1 as
       umap-learn's transform has it. All k are real neighbours here (no row
       is itself), so all count towards log2(k) * bandwidth, as in uwot. */
    sc.idx = idx; sc.dist = dist; sc.k = k; sc.w = w;
    sc.local_connectivity = cfg->local_connectivity > 1.0f ? cfg->local_connectivity - 1.0f : 0.0f;
    sc.target = (float)(log2((double)k) * cfg->bandwidth);
    sc.mean_all = -1.0; /* each row's own floor: a row's place depends on the row alone */
    umap__parallel_range(pool, n, 256, umap__smooth_rows, &sc);
    if (td->graph_indices) memcpy(td->graph_indices, idx, (size_t)nk * sizeof(int32_t));
    if (td->graph_weights) memcpy(td->graph_weights, w, (size_t)nk * sizeof(float));
    pc.m = m; pc.idx = idx; pc.w = w; pc.k = k; pc.out = out;
    umap__parallel_range(pool, n, 256, umap__place_start, &pc);
    /* umap-learn's transform starts at a quarter of its fit's rate; the
       refinement's refine_rate is this library's counterpart of that fit
       rate (synchronous updates, each row summing all its terms, take a
       smaller step than umap-learn's one-edge-at-a-time updates), so
       transform starts at refine_rate / 4 and decays linearly to 0 */
    for (ep = 0; ep < epochs; ep++) rates[ep] = cfg->refine_rate * 0.25f * (1.0f - (float)ep / (float)epochs);
    if (m->place_field) { /* the expected step (umap__push_field), made with the index for 2 components: one
                             descent as long as UMAP__EXPECTED_PATH epochs', in `epochs` steps */
        umap__expect_ctx ec;
        for (ep = 0; ep < epochs; ep++) rates[ep] *= (float)UMAP__EXPECTED_PATH / (float)epochs;
        ec.m = m; ec.field = m->place_field; ec.idx = idx; ec.w = w; ec.k = k; ec.epochs = epochs;
        ec.neg = cfg->negative_sample_rate; ec.rates = rates; ec.out = out; ec.kernel = umap__refine_kernel_best();
        umap__parallel_range(pool, n, 64, umap__expect_rows, &ec);
    } else if ((r = umap__place_sampled(m, pool, idx, w, n, k, epochs, rates, out)) != UMAP_OK) {
        goto done;
    }
    {
        int64_t bad = umap__nonfinite_row(out, n, m->n_components);
        if (bad >= 0) {
            if (detail)
                snprintf(detail, detail_size, "row %lld: its place among the training rows is not finite",
                         (long long)bad);
            r = UMAP_ERR_NON_FINITE;
        }
    }
done:
    if (r == UMAP_ERR_OUT_OF_MEMORY && detail && !detail[0])
        snprintf(detail, detail_size, "transform: out of memory for the neighbour lists of %lld rows", (long long)n);
    umap__free(a, idx);
    umap__free(a, dist);
    umap__free(a, w);
    umap__free(a, rates);
    umap__free(a, sketch);
    return r;
}

/* the desc's mode and epochs in range */
static umap_result umap__transform_desc_check(const umap_transform_desc *td) {
    if ((int)td->mode < (int)UMAP_TRANSFORM_AUTO || (int)td->mode > (int)UMAP_TRANSFORM_NEIGHBORS || td->epochs < 0 ||
        td->epochs > 100000) {
        if (td->detail)
            snprintf(td->detail, td->detail_size, "transform: %s",
                     td->epochs < 0 || td->epochs > 100000 ? "epochs must be in 0..100000 (0 = auto)" : "unknown mode");
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    return UMAP_OK;
}

UMAP__FN umap_result umap_transform_with(const umap_model *m, const umap_transform_desc *desc, const float *data,
                                         int64_t n, int64_t d, float *out) {
    umap_transform_desc td;
    umap_pool *pool = NULL;
    umap_result r;
    int empty, epochs, kept;
    if (desc) td = *desc;
    else memset(&td, 0, sizeof td);
    if (!td.detail) td.detail_size = 0;
    if (td.detail && td.detail_size) td.detail[0] = 0;
    if ((r = umap__transform_desc_check(&td)) != UMAP_OK) return r;
    if ((r = umap__transform_check(m, data, n, d, out, &empty, td.detail, td.detail_size)) != UMAP_OK) return r;
    kept = umap__kept_rows(m, NULL, NULL, NULL);
    if (td.mode == UMAP_TRANSFORM_AUTO) td.mode = kept ? UMAP_TRANSFORM_NEIGHBORS : UMAP_TRANSFORM_ENCODER;
    if (td.mode == UMAP_TRANSFORM_NEIGHBORS && !kept) {
        if (td.detail)
            snprintf(td.detail, td.detail_size, "transform: UMAP_TRANSFORM_NEIGHBORS needs the training rows, and this "
                     "model kept none: fit it with config.keep_data = UMAP_AUTO (the default's sample), "
                     "UMAP_KEEP_ROWS or UMAP_KEEP_SKETCH (umap fit without --keep-none, or --keep-data or --keep-sketch)");
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    if ((r = umap__transform_graph_check(&td)) != UMAP_OK) return r;
    if (empty) return UMAP_OK;
    /* a few rows (a game's frame, a request) run on the calling thread:
       starting threads would cost more than the rows */
    if (n >= 256 && td.n_threads != 1 && (r = umap_pool_create(td.n_threads, &m->alloc, &pool)) != UMAP_OK) {
        if (td.detail) snprintf(td.detail, td.detail_size, "transform: could not start %d threads", td.n_threads);
        return r;
    }
    if (td.mode == UMAP_TRANSFORM_NEIGHBORS) {
        epochs = umap__place_epochs(m, td.epochs, n);
        r = umap__place(m, pool, data, NULL, n, epochs, td.exact_neighbors, out, &td);
    } else {
        r = umap__embed(m, pool, NULL, data, n, 0, 0, out, td.detail, td.detail_size);
        if (r == UMAP_ERR_OUT_OF_MEMORY && td.detail && !td.detail[0])
            snprintf(td.detail, td.detail_size, "transform: out of memory for the encoder's program");
    }
    umap_pool_free(pool);
    return r;
}

UMAP__FN umap_result umap_transform_rows(const umap_model *m, const umap_transform_desc *desc, const umap_rows *data,
                                         float *out) {
    umap_transform_desc td;
    umap_pool *pool = NULL;
    umap__err e;
    umap__csr_buf graph_in;
    float *in = NULL, maxabs = 0.0f;
    int64_t bad_row = -1, i, t;
    umap_result r;
    memset(&graph_in, 0, sizeof graph_in);
    if (!data || data->dense)
        return umap_transform_with(m, desc, data ? data->dense : NULL, data ? data->n : 0, data ? data->dim : 0, out);
    if (desc) td = *desc;
    else memset(&td, 0, sizeof td);
    if (!td.detail) td.detail_size = 0;
    if (td.detail && td.detail_size) td.detail[0] = 0;
    memset(&e, 0, sizeof e);
    e.detail = td.detail;
    e.size = td.detail_size;
    e.prefix = "transform: ";
    if (!m || !out) return umap__fail(&e, UMAP_ERR_INVALID_ARGUMENT, "transform: %s is NULL", !m ? "model" : "out");
    if ((r = umap__transform_desc_check(&td)) != UMAP_OK) return r;
    if (td.mode == UMAP_TRANSFORM_AUTO) td.mode = m->graph_input && m->kept_embedding ? UMAP_TRANSFORM_NEIGHBORS
                                                                                     : UMAP_TRANSFORM_ENCODER;
    if (td.mode == UMAP_TRANSFORM_NEIGHBORS && !(m->graph_input && m->kept_embedding))
        return umap__fail(&e, UMAP_ERR_INVALID_ARGUMENT, "transform: %s", m->graph_input
                          ? "UMAP_TRANSFORM_NEIGHBORS needs the training rows' places, and this model kept none: fit "
                            "it with keep_data = UMAP_AUTO or UMAP_KEEP_ROWS"
                          : "sparse rows are placed by the encoder: the neighbours mode searches a model's kept dense "
                            "rows (give those rows dense)");
    if ((r = umap__transform_graph_check(&td)) != UMAP_OK) return r;
    if (data->dim != m->n_features) {
        if (td.detail)
            snprintf(td.detail, td.detail_size, "transform: rows of %lld features, the model was fitted on %lld",
                     (long long)data->dim, (long long)m->n_features);
        return UMAP_ERR_SHAPE;
    }
    if (data->n == 0 && data->indptr) return UMAP_OK;
    if (m->config.metric == UMAP_METRIC_PRECOMPUTED && !m->graph_input)
        return umap__fail(&e, UMAP_ERR_INVALID_ARGUMENT, "transform: the model was fitted on the dense distance matrix: "
                          "give each new row's distances to all %lld training rows, dense", (long long)m->n_train);
    if ((r = umap__csr_valid(&e, m->config.metric, "data", data, &bad_row, &maxabs)) != UMAP_OK) return r;
    if (data->n >= 256 && td.n_threads != 1 && (r = umap_pool_create(td.n_threads, &m->alloc, &pool)) != UMAP_OK)
        return umap__fail(&e, r, "transform: could not start %d threads", td.n_threads);
    if (td.mode == UMAP_TRANSFORM_NEIGHBORS) { /* among the training places, by each row's nearest stored distances */
        r = umap__place(m, pool, NULL, data, data->n, umap__place_epochs(m, td.epochs, data->n), 1, out, &td);
        umap_pool_free(pool);
        return r;
    }
    if (!(in = (float *)umap__alloc(&m->alloc, (size_t)(data->n * m->width[0]) * sizeof(float)))) {
        umap_pool_free(pool);
        return umap__fail(&e, UMAP_ERR_OUT_OF_MEMORY, "transform: out of memory for the encoder's input");
    }
    if (m->graph_input) { /* the rows' memberships, as fit read its own (umap__graph_input) */
        umap_config cfg = m->config;
        cfg.allocator = m->alloc;
        r = umap__graph_input(&cfg, pool, &e, data, 0, &graph_in);
        data = &graph_in.rows;
    }
    if (r == UMAP_OK && m->proj) {
        r = umap__project_csr(&m->alloc, pool, data, m->mean, m->inv_std, m->proj, m->proj_dims, in);
    } else if (r == UMAP_OK) { /* every column: the rows z-scored, as umap__encoder_input */
        int64_t d = m->n_features, j;
        for (i = 0; i < data->n; i++) {
            for (j = 0; j < d; j++) in[i * d + j] = umap__zscore(0.0f, m->mean[j], m->inv_std[j]);
            for (t = data->indptr[i]; t < data->indptr[i + 1]; t++)
                in[i * d + data->indices[t]] = umap__zscore(data->values[t], m->mean[data->indices[t]],
                                                            m->inv_std[data->indices[t]]);
        }
        r = UMAP_OK;
    }
    if (r == UMAP_OK) r = umap__embed(m, pool, NULL, in, data->n, 1, 0, out, td.detail, td.detail_size);
    if (r == UMAP_ERR_OUT_OF_MEMORY && td.detail && !td.detail[0])
        snprintf(td.detail, td.detail_size, "transform: out of memory for the encoder's program");
    umap__csr_buf_free(&m->alloc, &graph_in);
    umap__free(&m->alloc, in);
    umap_pool_free(pool);
    return r;
}

UMAP__FN umap_result umap_transform_ex(const umap_model *m, const float *data, int64_t n, int64_t d, float *out,
                                       int n_threads, char *detail, size_t detail_size) {
    umap_transform_desc td;
    memset(&td, 0, sizeof td);
    td.n_threads = n_threads;
    td.detail = detail;
    td.detail_size = detail_size;
    return umap_transform_with(m, &td, data, n, d, out);
}

UMAP__FN umap_result umap_transform(const umap_model *m, const float *data, int64_t n, int64_t d, float *out,
                                    int n_threads) {
    return umap_transform_ex(m, data, n, d, out, n_threads, NULL, 0);
}

/* --- inverse_transform: the decoder, from places back to rows ------------- */

UMAP__FN int umap_model_has_decoder(const umap_model *m) { return m && m->dec_params; }

/* the decoder's program for chunk rows: place -> its layers -> off the
   principal axes -> the data's units */
static umap_result umap__decoder_program(const umap_model *m, umap_pool *pool, int64_t chunk, umap_program **out,
                                         char *detail, size_t detail_size) {
    umap__mlp dec = umap__decoder_mlp(m);
    umap_graph_desc gd;
    umap_compile_desc cd;
    umap_graph *g = NULL;
    umap_tensor *param[2 * (UMAP_MAX_HIDDEN + 1)], *x;
    umap_result r;
    *out = NULL;
    memset(&gd, 0, sizeof gd);
    gd.allocator = m->alloc;
    if ((r = umap_graph_create(&gd, &g)) != UMAP_OK) return r;
    umap__mlp_declare(g, &dec, param);
    x = umap__mlp_apply(g, &dec, param, umap_input(g, "y", umap_shape2(chunk, m->n_components)));
    if (m->proj)
        x = umap_matmul_ex(g, x, umap_input(g, "input_proj", umap_shape2(m->n_features, m->proj_dims)), 0, 1);
    x = umap_add(g, umap_mul(g, x, umap_input(g, "norm_std", umap_shape1(m->n_features))),
                 umap_input(g, "norm_mean", umap_shape1(m->n_features)));
    memset(&cd, 0, sizeof cd);
    cd.pool = pool;
    if ((r = umap_graph_status(g)) != UMAP_OK || (r = umap_compile(g, 1, &x, &cd, out)) != UMAP_OK) {
        if (detail) snprintf(detail, detail_size, "inverse_transform: %.200s", umap_graph_error_detail(g));
    } else if ((r = umap__mlp_bind(*out, &dec)) != UMAP_OK ||
               (r = umap_program_bind(*out, "norm_std", m->std, m->n_features)) != UMAP_OK ||
               (r = umap_program_bind(*out, "norm_mean", m->mean, m->n_features)) != UMAP_OK ||
               (m->proj && (r = umap_program_bind(*out, "input_proj", m->proj, m->n_features * m->proj_dims)) != UMAP_OK)) {
        if (detail) snprintf(detail, detail_size, "inverse_transform: %.200s", umap_program_error_detail(*out));
    }
    umap_graph_free(g);
    return r;
}

UMAP__FN umap_result umap_inverse_transform(const umap_model *m, const float *y, int64_t n, int64_t d, float *out,
                                            int n_threads, char *detail, size_t detail_size) {
    umap_pool *pool = NULL;
    umap_program *p = NULL;
    float *pad = NULL;
    int64_t chunk, at, bad, nd, nf;
    size_t bytes;
    umap_result r;
    if (!detail) detail_size = 0;
    if (detail_size) detail[0] = 0;
    if (!m || !y || !out || n < 0) {
        if (detail) snprintf(detail, detail_size, "inverse_transform: %s", !m ? "model is NULL" : !y ? "embedding is NULL" : !out ? "out is NULL" : "n < 0");
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    if (!m->dec_params) {
        if (detail) snprintf(detail, detail_size, "inverse_transform: the model has no decoder: fit it with "
                             "config.decoder_epochs > 0 (umap fit --decoder-epochs N)");
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    if (d != m->n_components) {
        if (detail) snprintf(detail, detail_size, "inverse_transform: rows of %lld columns, the model embeds in %d",
                             (long long)d, m->n_components);
        return UMAP_ERR_SHAPE;
    }
    if (!umap__mul(n, d, &nd) || !umap__bytes(nd, sizeof(float), &bytes) || !umap__mul(n, m->n_features, &nf) ||
        !umap__bytes(nf, sizeof(float), &bytes)) {
        if (detail) snprintf(detail, detail_size, "inverse_transform: %lld rows of %lld features are more than memory "
                             "can address", (long long)n, (long long)m->n_features);
        return UMAP_ERR_TOO_LARGE;
    }
    if ((bad = umap__nonfinite_row(y, n, d)) >= 0) {
        if (detail) snprintf(detail, detail_size, "row %lld of the embedding holds NaN or Inf", (long long)bad);
        return UMAP_ERR_NON_FINITE;
    }
    if (n == 0) return UMAP_OK;
    chunk = n < UMAP__TRANSFORM_CHUNK ? n : UMAP__TRANSFORM_CHUNK;
    if (n >= 256 && n_threads != 1 && (r = umap_pool_create(n_threads, &m->alloc, &pool)) != UMAP_OK) {
        if (detail) snprintf(detail, detail_size, "inverse_transform: could not start %d threads", n_threads);
        return r;
    }
    if ((r = umap__decoder_program(m, pool, chunk, &p, detail, detail_size)) != UMAP_OK) goto done;
    for (at = 0; at < n; at += chunk) {
        int64_t rows = n - at < chunk ? n - at : chunk;
        const float *src = y + at * d, *xo = NULL;
        if (rows < chunk) { /* the last chunk, padded */
            if (!(pad = (float *)umap__calloc(&m->alloc, (size_t)(chunk * d), sizeof(float)))) {
                r = UMAP_ERR_OUT_OF_MEMORY;
                goto done;
            }
            memcpy(pad, src, (size_t)(rows * d) * sizeof(float));
            src = pad;
        }
        if ((r = umap_program_bind(p, "y", src, chunk * d)) != UMAP_OK || (r = umap_program_run(p)) != UMAP_OK) {
            if (detail) snprintf(detail, detail_size, "inverse_transform: %.200s", umap_program_error_detail(p));
            goto done;
        }
        umap_program_output(p, 0, &xo, NULL);
        if ((bad = umap__nonfinite_row(xo, rows, m->n_features)) >= 0) {
            if (detail)
                snprintf(detail, detail_size, "row %lld: the decoder's output is not finite (the place lies too far "
                         "outside the training embedding for float)", (long long)(at + bad));
            r = UMAP_ERR_NON_FINITE;
            goto done;
        }
        memcpy(out + at * m->n_features, xo, (size_t)(rows * m->n_features) * sizeof(float));
    }
done:
    if (r == UMAP_ERR_OUT_OF_MEMORY && detail && !detail[0])
        snprintf(detail, detail_size, "inverse_transform: out of memory");
    umap__free(&m->alloc, pad);
    umap_program_free(p);
    umap_pool_free(pool);
    return r;
}

UMAP__FN const float *umap_model_embedding(const umap_model *m) { return m ? m->embedding : NULL; }
UMAP__FN int64_t umap_model_n_train(const umap_model *m) { return m ? m->n_train : 0; }
UMAP__FN int64_t umap_model_n_kept(const umap_model *m) {
    return m && umap__kept_rows(m, NULL, NULL, NULL) ? m->n_kept : 0;
}
UMAP__FN int umap_model_transform_k(const umap_model *m) { return m ? umap__place_k(m) : 0; }
UMAP__FN int64_t umap_model_local_radii(const umap_model *m, const float **rad_orig, const float **rad_emb) {
    const int held = m && m->rad_orig && m->rad_emb;
    if (rad_orig) *rad_orig = held ? m->rad_orig : NULL;
    if (rad_emb) *rad_emb = held ? m->rad_emb : NULL;
    return held ? m->n_train : 0;
}

UMAP__FN const int64_t *umap_model_disconnected(const umap_model *m, int64_t *count) {
    if (count) *count = m ? m->n_disconnected : 0;
    return m && m->n_disconnected ? m->disconnected : NULL;
}
UMAP__FN int64_t umap_model_n_features(const umap_model *m) { return m ? m->n_features : 0; }
UMAP__FN int umap_model_n_components(const umap_model *m) { return m ? m->n_components : 0; }
UMAP__FN const umap_config *umap_model_config(const umap_model *m) { return m ? &m->config : NULL; }

UMAP__FN umap_result umap_model_set_metric_fn(umap_model *m, umap_metric_fn fn, void *user_data) {
    umap_result r;
    if (!m || !fn || m->config.metric != UMAP_METRIC_CUSTOM) return UMAP_ERR_INVALID_ARGUMENT;
    m->config.metric_fn = fn;
    m->config.metric_user_data = user_data;
    /* the kept rows' search index, which load left for now */
    if ((r = umap__model_index(m, NULL, NULL, 0)) != UMAP_OK) {
        m->config.metric_fn = NULL;
        m->config.metric_user_data = NULL;
    }
    return r;
}

/* >>modelfile: safetensors and GGUF v3 containers -------------------------

   A FRAGMENT of umap.h's implementation (it needs umap__alloc, umap__free,
   umap_result and <stdio.h> <string.h> <stdint.h> <stdlib.h> <stdarg.h>).

   umap__mf is a flat list of float32 tensors (rank 1..4, row-major, dim[0]
   slowest) and of metadata (key, type, canonical text). The writer streams
   one to a FILE (no allocation); the parser checks a whole file held in
   memory and copies what it keeps into one block (out->owned): the floats
   64-byte aligned whatever the file's alignment, the metadata values as
   NUL-terminated strings.

   safetensors: u64 LE header length N, N bytes of JSON (padded with spaces
     so that 8 + N is a multiple of 8), the data. The writer stores every
     metadata value as a JSON string, so the parser returns them all as
     UMAP__MF_STR with the same text. The parser follows the reference
     implementation's rules: the header starts with '{', only whitespace
     after the object, "__metadata__" maps strings to strings, the tensors
     tile the data section exactly (no gap, no overlap, nothing after).
     Unlike it, unknown fields inside a tensor entry are refused, and dtypes
     other than F32 are refused (by name).
   GGUF v3 (v2 has the same layout and is read too): the writer puts
     general.architecture = "umap" and general.alignment = 32 first, then
     the metadata with its types; each tensor starts and ends on the
     alignment, as ggml's reader requires. The parser skips every value
     type (arrays nested up to UMAP__MF_GGUF_DEPTH), keeps the scalars as
     canonical text (general.* included), honours general.alignment (a u32
     power of two <= 65536), accepts F32 tensors only, and needs their data
     inside the file, aligned, each padded to the alignment (as ggml's
     reader needs: a file cut in the last padding is refused) and not
     overlapping (gaps are allowed; bytes after the data are ignored).

   Canonical text: integers in decimal, F32 as "%.9g", F64 as "%.17g", bools
   "true"/"false", always with '.' as the decimal point whatever the locale.

   The parser never reads outside [buf, buf + len): every length is checked
   against what is left before it is used, every size is computed with
   overflow checks. Errors: UMAP_ERR_FORMAT (malformed, truncated,
   unsupported), UMAP_ERR_TOO_LARGE (more tensors or metadata than the
   limits, a header over 64 MiB), UMAP_ERR_OUT_OF_MEMORY; detail says what
   and where. */

#include <locale.h>

#define UMAP__MF_MAX_TENSORS 64
#define UMAP__MF_MAX_META 64
#define UMAP__MF_NAME_MAX 64                 /* names and keys: < 64 bytes */
#define UMAP__MF_MAX_HEADER ((uint64_t)64 << 20)
#define UMAP__MF_GGUF_ALIGN 32               /* the writer's alignment */
#define UMAP__MF_GGUF_DEPTH 3                /* nested arrays the parser skips */

typedef enum {
    UMAP__MF_STR, UMAP__MF_U32, UMAP__MF_U64, UMAP__MF_F32,
    UMAP__MF_I64, UMAP__MF_F64, UMAP__MF_BOOL /* read from GGUF; writable too */
} umap__mf_type;

typedef struct umap__mf_tensor {
    char name[UMAP__MF_NAME_MAX];
    int rank;                 /* 1..4 */
    int64_t dim[4];           /* row-major, dim[0] slowest */
    int i32;                  /* the elements are int32 (I32), not float32 (F32): both are
                                 4 little-endian bytes, so data points at either */
    float *data;
} umap__mf_tensor;

typedef struct umap__mf_meta {
    char key[UMAP__MF_NAME_MAX];
    umap__mf_type type;
    char *value;              /* canonical text */
} umap__mf_meta;

typedef struct umap__mf {
    int n_tensors;
    umap__mf_tensor tensors[UMAP__MF_MAX_TENSORS];
    int n_meta;
    umap__mf_meta meta[UMAP__MF_MAX_META];
    void *owned;              /* the parser's storage; NULL for a writer's */
} umap__mf;

enum { UMAP__MF_SAFETENSORS = 0, UMAP__MF_GGUF = 1 };

/* a parse's failure (r, then the message's format and arguments) into the
   caller's detail buffer; a model file's reader logs nothing */
#define umap__mf_fail(detail, detail_size, ...) umap__fail_to(detail, detail_size, NULL, NULL, __VA_ARGS__)

static void umap__mf_shape_str(int rank, const int64_t *dim, char *buf, size_t n) {
    size_t len = 0;
    int i;
    buf[0] = 0;
    for (i = 0; i < rank && len + 1 < n; i++) {
        snprintf(buf + len, n - len, "%s%lld", i ? "," : "[", (long long)dim[i]);
        len += strlen(buf + len);
    }
    if (len + 1 < n) snprintf(buf + len, n - len, "]");
}

/* elements of a shape; 0 if a dim is < 1 or the byte size (4 per element)
   would pass INT64_MAX or SIZE_MAX */
static uint64_t umap__mf_numel(int rank, const int64_t *dim) {
    uint64_t n = 1, lim = (uint64_t)INT64_MAX / 4;
    int i;
    if ((uint64_t)(SIZE_MAX / 4) < lim) lim = (uint64_t)(SIZE_MAX / 4);
    for (i = 0; i < rank; i++) {
        if (dim[i] < 1 || n > lim / (uint64_t)dim[i]) return 0;
        n *= (uint64_t)dim[i];
    }
    return n;
}

static uint32_t umap__mf_le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t umap__mf_le64(const unsigned char *p) {
    return (uint64_t)umap__mf_le32(p) | (uint64_t)umap__mf_le32(p + 4) << 32;
}

/* locale-proof number text: '.' whatever LC_NUMERIC says */
static void umap__mf_fmt_g(char *buf, size_t n, double v, int prec) {
    const struct lconv *lc = localeconv();
    const char *dp = lc ? lc->decimal_point : NULL;
    char *at;
    snprintf(buf, n, "%.*g", prec, v);
    if (dp && dp[0] && strcmp(dp, ".") != 0 && (at = strstr(buf, dp)) != NULL) {
        size_t dl = strlen(dp);
        *at = '.';
        memmove(at + 1, at + dl, strlen(at + dl) + 1);
    }
}

/* parses all of s[0..len) as a double (strtod syntax, '.' as the decimal
   point); 0 if it is not one */
static int umap__mf_strtod(const char *s, size_t len, double *out) {
    char buf[80], *end;
    const struct lconv *lc;
    size_t dl;
    const char *dot;
    if (len == 0 || len >= 64 || s[0] == ' ' || (s[0] >= '\t' && s[0] <= '\r')) return 0;
    memcpy(buf, s, len);
    buf[len] = 0;
    *out = strtod(buf, &end);
    if (end == buf + len) return 1;
    lc = localeconv();
    dot = (const char *)memchr(buf, '.', len);
    if (!dot || !lc || !lc->decimal_point || !lc->decimal_point[0]) return 0;
    dl = strlen(lc->decimal_point);
    if (dl > 8 || strcmp(lc->decimal_point, ".") == 0) return 0;
    {   /* the same text with the locale's decimal point */
        size_t at = (size_t)(dot - buf);
        memmove(buf + at + dl, buf + at + 1, len - at); /* with the NUL */
        memcpy(buf + at, lc->decimal_point, dl);
        *out = strtod(buf, &end);
        return end == buf + len - 1 + dl;
    }
}

/* strict decimal: digits only, no sign, <= max */
static int umap__mf_parse_u64(const char *s, uint64_t max, uint64_t *out) {
    uint64_t v = 0;
    if (!*s) return 0;
    for (; *s; s++) {
        unsigned d;
        if (*s < '0' || *s > '9') return 0;
        d = (unsigned)(*s - '0');
        if (v > (max - d) / 10) return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

static int umap__mf_parse_i64(const char *s, int64_t *out) {
    uint64_t u;
    if (*s == '-') {
        if (!umap__mf_parse_u64(s + 1, (uint64_t)INT64_MAX + 1, &u)) return 0;
        *out = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
        return 1;
    }
    if (!umap__mf_parse_u64(s, (uint64_t)INT64_MAX, &u)) return 0;
    *out = (int64_t)u;
    return 1;
}

/* length of a valid UTF-8 sequence at p (n bytes left), 0 if invalid */
static size_t umap__mf_utf8_len(const unsigned char *p, size_t n) {
    unsigned c = p[0];
    size_t k, i;
    unsigned lo = 0x80, hi = 0xbf;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) k = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        k = 3;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        k = 4;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else return 0;
    if (n < k) return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (i = 2; i < k; i++)
        if (p[i] < 0x80 || p[i] > 0xbf) return 0;
    return k;
}

static int umap__mf_utf8_ok(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), i = 0, k;
    while (i < n) {
        if (!(k = umap__mf_utf8_len(p + i, n - i))) return 0;
        i += k;
    }
    return 1;
}

/* >>modelfile-json: a strict JSON reader over s[0..n) ----------------------- */

typedef struct umap__json_cur {
    const unsigned char *s;
    size_t n, i;
    const char *err;          /* why it stopped (at i) */
} umap__json_cur;

static int umap__json_bad(umap__json_cur *c, const char *why) {
    if (!c->err) c->err = why;
    return 0;
}

static void umap__json_ws(umap__json_cur *c) {
    while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\n' || c->s[c->i] == '\r'))
        c->i++;
}

/* consumes ch after whitespace */
static int umap__json_expect(umap__json_cur *c, unsigned char ch, const char *why) {
    umap__json_ws(c);
    if (c->i >= c->n || c->s[c->i] != ch) return umap__json_bad(c, why);
    c->i++;
    return 1;
}

static int umap__json_hex4(const unsigned char *p, unsigned *out) {
    unsigned v = 0;
    int i;
    for (i = 0; i < 4; i++) {
        unsigned ch = p[i], d;
        if (ch >= '0' && ch <= '9') d = ch - '0';
        else if (ch >= 'a' && ch <= 'f') d = ch - 'a' + 10;
        else if (ch >= 'A' && ch <= 'F') d = ch - 'A' + 10;
        else return 0;
        v = v * 16 + d;
    }
    *out = v;
    return 1;
}

/* the escape \u at p (n bytes from the backslash on): its code point and the
   bytes it takes (6 or 12 with a surrogate pair); 0 if invalid */
static size_t umap__json_uesc(const unsigned char *p, size_t n, unsigned *cp) {
    unsigned hi, lo;
    if (n < 6 || !umap__json_hex4(p + 2, &hi)) return 0;
    if (hi >= 0xdc00 && hi <= 0xdfff) return 0;
    if (hi < 0xd800 || hi > 0xdbff) { *cp = hi; return 6; }
    if (n < 12 || p[6] != '\\' || p[7] != 'u' || !umap__json_hex4(p + 8, &lo) || lo < 0xdc00 || lo > 0xdfff)
        return 0;
    *cp = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
    return 12;
}

/* a string at the cursor (after whitespace): its raw body [*raw, *raw +
   *rawlen), its decoded length, whether it decodes to a NUL byte */
static int umap__json_str(umap__json_cur *c, const unsigned char **raw, size_t *rawlen, size_t *declen, int *has_nul) {
    size_t dl = 0, k;
    umap__json_ws(c);
    if (c->i >= c->n || c->s[c->i] != '"') return umap__json_bad(c, "expected a string");
    c->i++;
    *raw = c->s + c->i;
    *has_nul = 0;
    for (;;) {
        unsigned ch;
        if (c->i >= c->n) return umap__json_bad(c, "unterminated string");
        ch = c->s[c->i];
        if (ch == '"') break;
        if (ch < 0x20) return umap__json_bad(c, "control character in a string");
        if (ch == '\\') {
            unsigned cp;
            if (c->i + 1 >= c->n) return umap__json_bad(c, "unterminated string");
            switch (c->s[c->i + 1]) {
            case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                c->i += 2;
                dl += 1;
                continue;
            case 'u':
                k = umap__json_uesc(c->s + c->i, c->n - c->i, &cp);
                if (!k) return umap__json_bad(c, "bad \\u escape (or a lone surrogate)");
                c->i += k;
                if (cp == 0) *has_nul = 1;
                dl += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
                continue;
            default:
                return umap__json_bad(c, "bad escape in a string");
            }
        }
        k = umap__mf_utf8_len(c->s + c->i, c->n - c->i);
        if (!k) return umap__json_bad(c, "invalid UTF-8 in a string");
        c->i += k;
        dl += k;
    }
    *rawlen = (size_t)(c->s + c->i - *raw);
    *declen = dl;
    c->i++;
    return 1;
}

/* decodes a body umap__json_str accepted into out (declen bytes, no NUL) */
static void umap__json_decode(const unsigned char *raw, size_t rawlen, char *out) {
    size_t i = 0, o = 0;
    while (i < rawlen) {
        unsigned cp;
        size_t k;
        if (raw[i] != '\\') { out[o++] = (char)raw[i++]; continue; }
        switch (raw[i + 1]) {
        case 'b': out[o++] = '\b'; i += 2; continue;
        case 'f': out[o++] = '\f'; i += 2; continue;
        case 'n': out[o++] = '\n'; i += 2; continue;
        case 'r': out[o++] = '\r'; i += 2; continue;
        case 't': out[o++] = '\t'; i += 2; continue;
        case 'u': break;
        default: out[o++] = (char)raw[i + 1]; i += 2; continue;
        }
        k = umap__json_uesc(raw + i, rawlen - i, &cp);
        i += k;
        if (cp < 0x80) out[o++] = (char)cp;
        else if (cp < 0x800) {
            out[o++] = (char)(0xc0 | cp >> 6);
            out[o++] = (char)(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            out[o++] = (char)(0xe0 | cp >> 12);
            out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
            out[o++] = (char)(0x80 | (cp & 0x3f));
        } else {
            out[o++] = (char)(0xf0 | cp >> 18);
            out[o++] = (char)(0x80 | ((cp >> 12) & 0x3f));
            out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
            out[o++] = (char)(0x80 | (cp & 0x3f));
        }
    }
}

/* a string that must decode to < UMAP__MF_NAME_MAX bytes without NUL, into
   out (NUL-terminated) */
static int umap__json_name(umap__json_cur *c, char out[UMAP__MF_NAME_MAX], const char *too_long) {
    const unsigned char *raw;
    size_t rawlen, dl;
    int nul;
    if (!umap__json_str(c, &raw, &rawlen, &dl, &nul)) return 0;
    if (dl >= UMAP__MF_NAME_MAX) return umap__json_bad(c, too_long);
    if (nul) return umap__json_bad(c, "a name holds a NUL character");
    umap__json_decode(raw, rawlen, out);
    out[dl] = 0;
    return 1;
}

/* a JSON number (RFC 8259 grammar) at the cursor */
static int umap__json_num(umap__json_cur *c, const unsigned char **start, size_t *len) {
    size_t i;
    umap__json_ws(c);
    i = c->i;
    *start = c->s + i;
    if (i < c->n && c->s[i] == '-') i++;
    if (i >= c->n || c->s[i] < '0' || c->s[i] > '9') return umap__json_bad(c, "expected a number");
    if (c->s[i] == '0') i++;
    else while (i < c->n && c->s[i] >= '0' && c->s[i] <= '9') i++;
    if (i < c->n && c->s[i] == '.') {
        i++;
        if (i >= c->n || c->s[i] < '0' || c->s[i] > '9') return umap__json_bad(c, "bad number");
        while (i < c->n && c->s[i] >= '0' && c->s[i] <= '9') i++;
    }
    if (i < c->n && (c->s[i] == 'e' || c->s[i] == 'E')) {
        i++;
        if (i < c->n && (c->s[i] == '+' || c->s[i] == '-')) i++;
        if (i >= c->n || c->s[i] < '0' || c->s[i] > '9') return umap__json_bad(c, "bad number");
        while (i < c->n && c->s[i] >= '0' && c->s[i] <= '9') i++;
    }
    *len = i - c->i;
    c->i = i;
    return 1;
}

/* a non-negative JSON integer <= max */
static int umap__json_uint(umap__json_cur *c, uint64_t max, uint64_t *out) {
    const unsigned char *p;
    size_t len, i;
    uint64_t v = 0;
    if (!umap__json_num(c, &p, &len)) return 0;
    for (i = 0; i < len; i++) {
        unsigned d;
        if (p[i] < '0' || p[i] > '9') {
            c->i -= len;
            return umap__json_bad(c, "expected a non-negative integer");
        }
        d = (unsigned)(p[i] - '0');
        if (v > (max - d) / 10) {
            c->i -= len;
            return umap__json_bad(c, "integer too large");
        }
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

static int umap__json_lit(umap__json_cur *c, const char *w) {
    size_t k = strlen(w);
    if (c->n - c->i < k || memcmp(c->s + c->i, w, k) != 0) return umap__json_bad(c, "unexpected character");
    c->i += k;
    return 1;
}

/* skips any value, nesting at most depth levels */
static int umap__json_skip(umap__json_cur *c, int depth) {
    const unsigned char *p;
    size_t a, b;
    int nul;
    umap__json_ws(c);
    if (c->i >= c->n) return umap__json_bad(c, "unexpected end");
    switch (c->s[c->i]) {
    case '"': return umap__json_str(c, &p, &a, &b, &nul);
    case 't': return umap__json_lit(c, "true");
    case 'f': return umap__json_lit(c, "false");
    case 'n': return umap__json_lit(c, "null");
    case '{': case '[': {
        unsigned char close = c->s[c->i] == '{' ? '}' : ']';
        int obj = close == '}';
        if (depth <= 0) return umap__json_bad(c, "nested too deeply");
        c->i++;
        umap__json_ws(c);
        if (c->i < c->n && c->s[c->i] == close) { c->i++; return 1; }
        for (;;) {
            if (obj && (!umap__json_str(c, &p, &a, &b, &nul) || !umap__json_expect(c, ':', "expected ':'")))
                return 0;
            if (!umap__json_skip(c, depth - 1)) return 0;
            umap__json_ws(c);
            if (c->i < c->n && c->s[c->i] == ',') { c->i++; continue; }
            return umap__json_expect(c, close, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }
    default: return umap__json_num(c, &p, &a);
    }
}

/* the value of key in the flat JSON object json (the whole text must be
   one valid object); 1 found */
static int umap__json_find(const char *json, const char *key, umap__json_cur *val) {
    umap__json_cur c;
    size_t klen = strlen(key);
    int found = 0;
    if (!json) return 0;
    c.s = (const unsigned char *)json;
    c.n = strlen(json);
    c.i = 0;
    c.err = NULL;
    if (!umap__json_expect(&c, '{', "expected '{'")) return 0;
    umap__json_ws(&c);
    if (c.i < c.n && c.s[c.i] == '}') c.i++;
    else
        for (;;) {
            const unsigned char *raw;
            size_t rawlen, dl, at;
            int nul;
            if (!umap__json_str(&c, &raw, &rawlen, &dl, &nul) || !umap__json_expect(&c, ':', "expected ':'"))
                return 0;
            umap__json_ws(&c);
            at = c.i;
            if (!umap__json_skip(&c, 16)) return 0;
            if (!found && dl == klen && !nul) {
                char buf[256];
                if (klen < sizeof buf) {
                    umap__json_decode(raw, rawlen, buf);
                    if (memcmp(buf, key, klen) == 0) {
                        found = 1;
                        val->s = c.s + at;
                        val->n = c.i - at;
                        val->i = 0;
                        val->err = NULL;
                    }
                }
            }
            umap__json_ws(&c);
            if (c.i < c.n && c.s[c.i] == ',') { c.i++; continue; }
            if (!umap__json_expect(&c, '}', "expected ',' or '}'")) return 0;
            break;
        }
    umap__json_ws(&c);
    return c.i == c.n && found;
}

/* the number under key in a flat JSON object; 1 found (and a number) */
static int umap__json_number(const char *json, const char *key, double *out) {
    umap__json_cur v;
    const unsigned char *p;
    size_t len;
    if (!umap__json_find(json, key, &v) || !umap__json_num(&v, &p, &len) || len != v.n) return 0;
    return umap__mf_strtod((const char *)p, len, out);
}

/* the string under key, decoded into out (n bytes with the NUL); 1 found,
   a string, no NUL inside, and it fits */
static int umap__json_string(const char *json, const char *key, char *out, size_t n) {
    umap__json_cur v;
    const unsigned char *raw;
    size_t rawlen, dl;
    int nul;
    if (!umap__json_find(json, key, &v) || v.n == 0 || v.s[0] != '"') return 0;
    if (!umap__json_str(&v, &raw, &rawlen, &dl, &nul) || nul || dl >= n) return 0;
    umap__json_decode(raw, rawlen, out);
    out[dl] = 0;
    return 1;
}

/* >>modelfile-write ---------------------------------------------------------- */

typedef struct umap__mf_sink {
    FILE *f;                  /* NULL: only count */
    uint64_t n;               /* bytes so far */
    int err;
} umap__mf_sink;

static void umap__mf_put(umap__mf_sink *s, const void *p, size_t n) {
    if (s->f && !s->err && n && fwrite(p, 1, n, s->f) != n) s->err = 1;
    s->n += n;
}
static void umap__mf_put_u32(umap__mf_sink *s, uint32_t v) {
    unsigned char b[4];
    int i;
    for (i = 0; i < 4; i++) b[i] = (unsigned char)(v >> (8 * i));
    umap__mf_put(s, b, 4);
}
static void umap__mf_put_u64(umap__mf_sink *s, uint64_t v) {
    unsigned char b[8];
    int i;
    for (i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
    umap__mf_put(s, b, 8);
}
static void umap__mf_put_zeros(umap__mf_sink *s, size_t n) {
    static const unsigned char z[64] = {0};
    while (n) {
        size_t k = n < sizeof z ? n : sizeof z;
        umap__mf_put(s, z, k);
        n -= k;
    }
}
/* n floats as little-endian bytes */
static void umap__mf_put_floats(umap__mf_sink *s, const float *x, uint64_t n) {
    unsigned char b[1024];
    while (n) {
        size_t k = n < sizeof b / 4 ? (size_t)n : sizeof b / 4, i;
        if (!s->f) { s->n += (uint64_t)k * 4; n -= k; x += k; continue; }
        for (i = 0; i < k; i++) {
            uint32_t u;
            memcpy(&u, x + i, 4);
            b[4 * i] = (unsigned char)u;
            b[4 * i + 1] = (unsigned char)(u >> 8);
            b[4 * i + 2] = (unsigned char)(u >> 16);
            b[4 * i + 3] = (unsigned char)(u >> 24);
        }
        umap__mf_put(s, b, k * 4);
        n -= k;
        x += k;
    }
}
static void umap__mf_put_json_str(umap__mf_sink *s, const char *str) {
    const unsigned char *p = (const unsigned char *)str;
    umap__mf_put(s, "\"", 1);
    for (; *p; p++) {
        char e[8];
        if (*p == '"' || *p == '\\') {
            e[0] = '\\';
            e[1] = (char)*p;
            umap__mf_put(s, e, 2);
        } else if (*p < 0x20 || *p == 0x7f) {
            snprintf(e, sizeof e, "\\u%04x", (unsigned)*p);
            umap__mf_put(s, e, 6);
        } else umap__mf_put(s, p, 1);
    }
    umap__mf_put(s, "\"", 1);
}
static void umap__mf_put_gguf_str(umap__mf_sink *s, const char *str) {
    size_t n = strlen(str);
    umap__mf_put_u64(s, (uint64_t)n);
    umap__mf_put(s, str, n);
}

static int umap__mf_name_ok(const char *name) {
    const char *z = (const char *)memchr(name, 0, UMAP__MF_NAME_MAX);
    return z && z != name && umap__mf_utf8_ok(name);
}

/* one metadata value as the GGUF writer will store it; 0 if the text does
   not parse as its type */
typedef union umap__mf_val { uint64_t u; int64_t i; double d; float f; } umap__mf_val;
static int umap__mf_meta_value(const umap__mf_meta *m, umap__mf_val *v) {
    switch (m->type) {
    case UMAP__MF_STR: return 1;
    case UMAP__MF_U32: return umap__mf_parse_u64(m->value, 0xffffffffu, &v->u);
    case UMAP__MF_U64: return umap__mf_parse_u64(m->value, UINT64_MAX, &v->u);
    case UMAP__MF_I64: return umap__mf_parse_i64(m->value, &v->i);
    case UMAP__MF_F32:
        if (!umap__mf_strtod(m->value, strlen(m->value), &v->d)) return 0;
        v->f = (float)v->d;
        return 1;
    case UMAP__MF_F64: return umap__mf_strtod(m->value, strlen(m->value), &v->d);
    case UMAP__MF_BOOL:
        v->u = strcmp(m->value, "true") == 0;
        return v->u || strcmp(m->value, "false") == 0;
    }
    return 0;
}

static umap_result umap__mf_check_write(const umap__mf *mf, char *detail, size_t dn) {
    char show[64], show2[64];
    int i, j;
    if (mf->n_tensors < 0 || mf->n_tensors > UMAP__MF_MAX_TENSORS || mf->n_meta < 0 || mf->n_meta > UMAP__MF_MAX_META)
        return umap__mf_fail(detail, dn, UMAP_ERR_TOO_LARGE, "model file: %d tensors and %d metadata (at most %d and %d)",
                             mf->n_tensors, mf->n_meta, UMAP__MF_MAX_TENSORS, UMAP__MF_MAX_META);
    for (i = 0; i < mf->n_tensors; i++) {
        const umap__mf_tensor *t = &mf->tensors[i];
        if (!umap__mf_name_ok(t->name) || strcmp(t->name, "__metadata__") == 0)
            return umap__mf_fail(detail, dn, UMAP_ERR_INVALID_ARGUMENT,
                                 "model file: tensor %d: the name must be 1..63 bytes of UTF-8, not __metadata__", i);
        for (j = 0; j < i; j++)
            if (strcmp(t->name, mf->tensors[j].name) == 0)
                return umap__mf_fail(detail, dn, UMAP_ERR_INVALID_ARGUMENT, "model file: two tensors named '%s'",
                                     umap__mf_show(show, t->name, strlen(t->name)));
        if (t->rank < 1 || t->rank > 4)
            return umap__mf_fail(detail, dn, UMAP_ERR_INVALID_ARGUMENT, "model file: tensor '%s' has rank %d (1..4)",
                                 umap__mf_show(show, t->name, strlen(t->name)), t->rank);
        if (!umap__mf_numel(t->rank, t->dim))
            return umap__mf_fail(detail, dn, UMAP_ERR_INVALID_ARGUMENT,
                                 "model file: tensor '%s': dims must be >= 1 and the size must fit",
                                 umap__mf_show(show, t->name, strlen(t->name)));
        if (!t->data)
            return umap__mf_fail(detail, dn, UMAP_ERR_INVALID_ARGUMENT, "model file: tensor '%s' has no data",
                                 umap__mf_show(show, t->name, strlen(t->name)));
    }
    for (i = 0; i < mf->n_meta; i++) {
        const umap__mf_meta *m = &mf->meta[i];
        umap__mf_val v;
        if (!umap__mf_name_ok(m->key))
            return umap__mf_fail(detail, dn, UMAP_ERR_INVALID_ARGUMENT,
                                 "model file: metadata %d: the key must be 1..63 bytes of UTF-8", i);
        for (j = 0; j < i; j++)
            if (strcmp(m->key, mf->meta[j].key) == 0)
                return umap__mf_fail(detail, dn, UMAP_ERR_INVALID_ARGUMENT, "model file: two metadata keys '%s'",
                                     umap__mf_show(show, m->key, strlen(m->key)));
        if (!m->value || !umap__mf_utf8_ok(m->value))
            return umap__mf_fail(detail, dn, UMAP_ERR_INVALID_ARGUMENT,
                                 "model file: metadata '%s': the value must be a UTF-8 string",
                                 umap__mf_show(show, m->key, strlen(m->key)));
        if ((int)m->type < (int)UMAP__MF_STR || (int)m->type > (int)UMAP__MF_BOOL || !umap__mf_meta_value(m, &v))
            return umap__mf_fail(detail, dn, UMAP_ERR_INVALID_ARGUMENT,
                                 "model file: metadata '%s': '%s' is not a value of its type %d",
                                 umap__mf_show(show, m->key, strlen(m->key)),
                                 umap__mf_show(show2, m->value, strlen(m->value)), (int)m->type);
    }
    return UMAP_OK;
}

static void umap__mf_emit_safetensors(umap__mf_sink *s, const umap__mf *mf, uint64_t header_len) {
    uint64_t off = 0;
    int i, j;
    umap__mf_put_u64(s, header_len);
    umap__mf_put(s, "{", 1);
    if (mf->n_meta) {
        umap__mf_put(s, "\"__metadata__\":{", 16);
        for (i = 0; i < mf->n_meta; i++) {
            if (i) umap__mf_put(s, ",", 1);
            umap__mf_put_json_str(s, mf->meta[i].key);
            umap__mf_put(s, ":", 1);
            umap__mf_put_json_str(s, mf->meta[i].value);
        }
        umap__mf_put(s, "}", 1);
    }
    for (i = 0; i < mf->n_tensors; i++) {
        const umap__mf_tensor *t = &mf->tensors[i];
        uint64_t nb = umap__mf_numel(t->rank, t->dim) * 4;
        char buf[96];
        if (i || mf->n_meta) umap__mf_put(s, ",", 1);
        umap__mf_put_json_str(s, t->name);
        umap__mf_put(s, t->i32 ? ":{\"dtype\":\"I32\",\"shape\":[" : ":{\"dtype\":\"F32\",\"shape\":[", 25);
        for (j = 0; j < t->rank; j++) {
            snprintf(buf, sizeof buf, "%s%lld", j ? "," : "", (long long)t->dim[j]);
            umap__mf_put(s, buf, strlen(buf));
        }
        snprintf(buf, sizeof buf, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)off,
                 (unsigned long long)(off + nb));
        umap__mf_put(s, buf, strlen(buf));
        off += nb;
    }
    umap__mf_put(s, "}", 1);
    if (s->f) {   /* pad the header with spaces to header_len */
        uint64_t pad = 8 + header_len - s->n;
        while (pad) {
            static const char sp[8] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
            size_t k = pad < 8 ? (size_t)pad : 8;
            umap__mf_put(s, sp, k);
            pad -= k;
        }
        for (i = 0; i < mf->n_tensors; i++)
            umap__mf_put_floats(s, mf->tensors[i].data, umap__mf_numel(mf->tensors[i].rank, mf->tensors[i].dim));
    }
}

static int umap__mf_gguf_skipped_key(const char *key) {
    return strcmp(key, "general.architecture") == 0 || strcmp(key, "general.alignment") == 0;
}

static void umap__mf_emit_gguf(umap__mf_sink *s, const umap__mf *mf) {
    static const uint32_t gtype[] = {8, 4, 10, 6, 11, 12, 7}; /* by umap__mf_type */
    uint64_t off = 0, n_kv = 2;
    int i, j;
    for (i = 0; i < mf->n_meta; i++) n_kv += !umap__mf_gguf_skipped_key(mf->meta[i].key);
    umap__mf_put(s, "GGUF", 4);
    umap__mf_put_u32(s, 3);
    umap__mf_put_u64(s, (uint64_t)mf->n_tensors);
    umap__mf_put_u64(s, n_kv);
    umap__mf_put_gguf_str(s, "general.architecture");
    umap__mf_put_u32(s, 8);
    umap__mf_put_gguf_str(s, "umap");
    umap__mf_put_gguf_str(s, "general.alignment");
    umap__mf_put_u32(s, 4);
    umap__mf_put_u32(s, UMAP__MF_GGUF_ALIGN);
    for (i = 0; i < mf->n_meta; i++) {
        const umap__mf_meta *m = &mf->meta[i];
        umap__mf_val v;
        if (umap__mf_gguf_skipped_key(m->key)) continue;
        v.u = 0;
        umap__mf_meta_value(m, &v); /* checked before */
        umap__mf_put_gguf_str(s, m->key);
        umap__mf_put_u32(s, gtype[m->type]);
        switch (m->type) {
        case UMAP__MF_STR: umap__mf_put_gguf_str(s, m->value); break;
        case UMAP__MF_U32: umap__mf_put_u32(s, (uint32_t)v.u); break;
        case UMAP__MF_U64: umap__mf_put_u64(s, v.u); break;
        case UMAP__MF_I64: umap__mf_put_u64(s, (uint64_t)v.i); break;
        case UMAP__MF_F32: umap__mf_put_floats(s, &v.f, 1); break;
        case UMAP__MF_F64: {
            uint64_t u;
            memcpy(&u, &v.d, 8);
            umap__mf_put_u64(s, u);
            break;
        }
        case UMAP__MF_BOOL: {
            unsigned char b = (unsigned char)v.u;
            umap__mf_put(s, &b, 1);
            break;
        }
        }
    }
    for (i = 0; i < mf->n_tensors; i++) {
        const umap__mf_tensor *t = &mf->tensors[i];
        uint64_t nb = umap__mf_numel(t->rank, t->dim) * 4;
        umap__mf_put_gguf_str(s, t->name);
        umap__mf_put_u32(s, (uint32_t)t->rank);
        for (j = t->rank - 1; j >= 0; j--) umap__mf_put_u64(s, (uint64_t)t->dim[j]); /* ne[0] fastest */
        umap__mf_put_u32(s, t->i32 ? 26 : 0); /* GGML_TYPE_I32, GGML_TYPE_F32 */
        umap__mf_put_u64(s, off);
        off += (nb + UMAP__MF_GGUF_ALIGN - 1) / UMAP__MF_GGUF_ALIGN * UMAP__MF_GGUF_ALIGN;
    }
    umap__mf_put_zeros(s, (size_t)((UMAP__MF_GGUF_ALIGN - s->n % UMAP__MF_GGUF_ALIGN) % UMAP__MF_GGUF_ALIGN));
    for (i = 0; i < mf->n_tensors; i++) {
        const umap__mf_tensor *t = &mf->tensors[i];
        uint64_t ne = umap__mf_numel(t->rank, t->dim);
        umap__mf_put_floats(s, t->data, ne);
        umap__mf_put_zeros(s, (size_t)((UMAP__MF_GGUF_ALIGN - ne * 4 % UMAP__MF_GGUF_ALIGN) % UMAP__MF_GGUF_ALIGN));
    }
}

/* writes mf (tensors and meta point at the caller's memory) to f */
static umap_result umap__mf_write(FILE *f, int format, const umap__mf *mf, char *detail, size_t detail_size) {
    umap__mf_sink s;
    umap_result r;
    if (!f || !mf || (format != UMAP__MF_SAFETENSORS && format != UMAP__MF_GGUF))
        return umap__mf_fail(detail, detail_size, UMAP_ERR_INVALID_ARGUMENT, "model file: no file, model or format");
    if ((r = umap__mf_check_write(mf, detail, detail_size)) != UMAP_OK) return r;
    s.f = NULL;
    s.n = 0;
    s.err = 0;
    if (format == UMAP__MF_SAFETENSORS) {
        uint64_t hl;
        umap__mf_emit_safetensors(&s, mf, 0);  /* measure the header */
        hl = (s.n - 8 + 7) / 8 * 8;
        if (hl > UMAP__MF_MAX_HEADER)
            return umap__mf_fail(detail, detail_size, UMAP_ERR_TOO_LARGE,
                                 "safetensors: the header would take %llu bytes (at most 64 MiB)",
                                 (unsigned long long)hl);
        s.f = f;
        s.n = 0;
        umap__mf_emit_safetensors(&s, mf, hl);
    } else {
        s.f = f;
        umap__mf_emit_gguf(&s, mf);
    }
    if (s.err || fflush(f) != 0)
        return umap__mf_fail(detail, detail_size, UMAP_ERR_IO, "model file: write failed after %llu bytes",
                             (unsigned long long)s.n);
    return UMAP_OK;
}

/* >>modelfile-parse ---------------------------------------------------------- */

/* what the first pass found: where each value lies in the file */
typedef struct umap__mf_src {
    const unsigned char *p;   /* tensor data (4 * numel bytes), or a meta value's bytes */
    size_t len;               /* meta: raw bytes */
    size_t outlen;            /* meta: bytes of the value text */
    int json;                 /* meta: p is a JSON string body to decode */
    char num[40];             /* meta: canonical text of a number (p NULL) */
} umap__mf_src;

typedef struct umap__mf_pass {
    umap__mf_src t[UMAP__MF_MAX_TENSORS];
    umap__mf_src m[UMAP__MF_MAX_META];
} umap__mf_pass;

static void umap__mf_free(const umap_allocator *a, umap__mf *mf) {
    if (!mf) return;
    umap__free(a, mf->owned);
    memset(mf, 0, sizeof *mf);
}

/* copies what pass found into one block owned by out */
static umap_result umap__mf_finish(const umap_allocator *a, umap__mf *out, const umap__mf_pass *ps, char *detail,
                                   size_t dn) {
    size_t total = 64, at;
    unsigned char *base;
    int i;
    const uint32_t one = 1;
    int little = *(const unsigned char *)&one == 1;
    for (i = 0; i < out->n_tensors; i++) {
        size_t nb = (size_t)umap__mf_numel(out->tensors[i].rank, out->tensors[i].dim) * 4;
        size_t padded = nb + (64 - nb % 64) % 64;
        if (padded < nb || total > SIZE_MAX - padded) goto too_large;
        total += padded;
    }
    for (i = 0; i < out->n_meta; i++) {
        if (total > SIZE_MAX - 1 - ps->m[i].outlen) goto too_large;
        total += ps->m[i].outlen + 1;
    }
    out->owned = umap__alloc(a, total);
    if (!out->owned)
        return umap__mf_fail(detail, dn, UMAP_ERR_OUT_OF_MEMORY, "model file: out of memory for %llu bytes",
                             (unsigned long long)total);
    base = (unsigned char *)out->owned;
    at = (size_t)((64 - (uintptr_t)base % 64) % 64);
    for (i = 0; i < out->n_tensors; i++) {
        size_t ne = (size_t)umap__mf_numel(out->tensors[i].rank, out->tensors[i].dim), k;
        float *d = (float *)(void *)(base + at);
        const unsigned char *p = ps->t[i].p;
        if (little) memcpy(d, p, ne * 4);
        else
            for (k = 0; k < ne; k++) {
                uint32_t u = umap__mf_le32(p + 4 * k);
                memcpy(d + k, &u, 4);
            }
        out->tensors[i].data = d;
        at += ne * 4 + (64 - ne * 4 % 64) % 64;
    }
    for (i = 0; i < out->n_meta; i++) {
        const umap__mf_src *m = &ps->m[i];
        char *v = (char *)base + at;
        if (!m->p) memcpy(v, m->num, m->outlen);
        else if (m->json) umap__json_decode(m->p, m->len, v);
        else memcpy(v, m->p, m->outlen);
        v[m->outlen] = 0;
        out->meta[i].value = v;
        at += m->outlen + 1;
    }
    return UMAP_OK;
too_large:
    return umap__mf_fail(detail, dn, UMAP_ERR_TOO_LARGE, "model file: sizes overflow");
}

/* --- what both containers' parsers do with the tensors they list --- */

/* 1 when one of the first n tensors of out is named name */
static int umap__mf_tensor_named(const umap__mf *out, int n, const char *name) {
    int j;
    for (j = 0; j < n; j++)
        if (strcmp(out->tensors[j].name, name) == 0) return 1;
    return 0;
}

/* The tensors' bytes, [begin[i], end[i]) of the data section (each
   already inside it): where each starts (into ps), and that no two
   overlap; tile: they also cover the section, with no byte between or
   after them (safetensors), where GGUF pads each to its alignment. */
static umap_result umap__mf_place_tensors(const char *format, const umap__mf *out, umap__mf_pass *ps,
                                          const unsigned char *data, uint64_t dlen, const uint64_t *begin,
                                          const uint64_t *end, int tile, char *detail, size_t dn) {
    int order[UMAP__MF_MAX_TENSORS], i, j;
    uint64_t at = 0;
    char show[64], show2[64];
    for (i = 0; i < out->n_tensors; i++) { /* by offset, stable */
        ps->t[i].p = data + begin[i];
        for (j = i; j > 0 && begin[order[j - 1]] > begin[i]; j--) order[j] = order[j - 1];
        order[j] = i;
    }
    for (i = 0; i < out->n_tensors; i++) {
        int k = order[i];
        if (i > 0 && begin[k] < at)
            return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "%s: tensors '%s' and '%s' overlap in the data section",
                                 format,
                                 umap__mf_show(show, out->tensors[order[i - 1]].name,
                                               strlen(out->tensors[order[i - 1]].name)),
                                 umap__mf_show(show2, out->tensors[k].name, strlen(out->tensors[k].name)));
        if (tile && begin[k] > at)
            return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "%s: data bytes [%llu,%llu) belong to no tensor", format,
                                 (unsigned long long)at, (unsigned long long)begin[k]);
        at = end[k];
    }
    if (tile && at != dlen)
        return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                             "%s: %llu bytes after the last tensor's data (the data section is %llu bytes)", format,
                             (unsigned long long)(dlen - at), (unsigned long long)dlen);
    return UMAP_OK;
}

/* --- safetensors --- */

static const char *umap__mf_st_dtype_known(const char *d) {
    static const char *const known[] = {"BOOL", "U8", "I8", "U16", "I16", "F16", "BF16", "U32", "I32", "F64",
                                        "U64", "I64", "F8_E4M3", "F8_E5M2", "F8_E8M0", "F4", "F6_E2M3", "F6_E3M2",
                                        "C64"};
    size_t i;
    for (i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(d, known[i]) == 0) return known[i];
    return NULL;
}

static umap_result umap__mf_parse_safetensors(const unsigned char *buf, size_t len, umap__mf *out, umap__mf_pass *ps,
                                              char *detail, size_t dn) {
    uint64_t hl = umap__mf_le64(buf), dlen;
    umap__json_cur c;
    const unsigned char *data;
    uint64_t begin[UMAP__MF_MAX_TENSORS], end[UMAP__MF_MAX_TENSORS];
    int seen_meta = 0, i, j;
    char name[UMAP__MF_NAME_MAX], show[64], show2[64], sh[128];
    if (hl > UMAP__MF_MAX_HEADER)
        return umap__mf_fail(detail, dn, UMAP_ERR_TOO_LARGE, "safetensors: header length %llu is over the 64 MiB limit",
                             (unsigned long long)hl);
    if (hl > len - 8)
        return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                             "safetensors: header length %llu runs past the end of the %llu-byte file (truncated?)",
                             (unsigned long long)hl, (unsigned long long)len);
    if (hl < 2 || buf[8] != '{')
        return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                             "safetensors: the header (%llu bytes) is not a JSON object starting with '{'",
                             (unsigned long long)hl);
    c.s = buf + 8;
    c.n = (size_t)hl;
    c.i = 1;
    c.err = NULL;
    data = buf + 8 + hl;
    dlen = len - 8 - hl;
    umap__json_ws(&c);
    if (c.i < c.n && c.s[c.i] == '}') c.i++;
    else
        for (;;) {
            if (!umap__json_name(&c, name, "a key is 64 bytes or longer")) goto bad_json;
            if (!umap__json_expect(&c, ':', "expected ':'")) goto bad_json;
            if (strcmp(name, "__metadata__") == 0) {
                if (seen_meta++)
                    return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "safetensors: two __metadata__ entries");
                if (!umap__json_expect(&c, '{', "__metadata__ must be an object")) goto bad_json;
                umap__json_ws(&c);
                if (c.i < c.n && c.s[c.i] == '}') c.i++;
                else
                    for (;;) {
                        umap__mf_meta *m;
                        umap__mf_src *src;
                        int nul;
                        if (out->n_meta >= UMAP__MF_MAX_META)
                            return umap__mf_fail(detail, dn, UMAP_ERR_TOO_LARGE,
                                                 "safetensors: more than %d metadata entries", UMAP__MF_MAX_META);
                        m = &out->meta[out->n_meta];
                        src = &ps->m[out->n_meta];
                        if (!umap__json_name(&c, m->key, "a metadata key is 64 bytes or longer")) goto bad_json;
                        for (j = 0; j < out->n_meta; j++)
                            if (strcmp(out->meta[j].key, m->key) == 0)
                                return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                                     "safetensors: metadata key '%s' appears twice",
                                                     umap__mf_show(show, m->key, strlen(m->key)));
                        if (!umap__json_expect(&c, ':', "expected ':'")) goto bad_json;
                        umap__json_ws(&c);
                        if (c.i < c.n && c.s[c.i] != '"') {
                            c.err = "metadata values must be strings";
                            goto bad_json;
                        }
                        if (!umap__json_str(&c, &src->p, &src->len, &src->outlen, &nul)) goto bad_json;
                        if (nul)
                            return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                                 "safetensors: metadata '%s' holds a NUL character",
                                                 umap__mf_show(show, m->key, strlen(m->key)));
                        src->json = 1;
                        m->type = UMAP__MF_STR;
                        out->n_meta++;
                        umap__json_ws(&c);
                        if (c.i < c.n && c.s[c.i] == ',') { c.i++; continue; }
                        if (!umap__json_expect(&c, '}', "expected ',' or '}'")) goto bad_json;
                        break;
                    }
            } else {
                umap__mf_tensor *t;
                int have_dtype = 0, have_shape = 0, have_off = 0;
                char field[UMAP__MF_NAME_MAX];
                if (umap__mf_tensor_named(out, out->n_tensors, name))
                    return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "safetensors: tensor '%s' appears twice",
                                         umap__mf_show(show, name, strlen(name)));
                if (out->n_tensors >= UMAP__MF_MAX_TENSORS)
                    return umap__mf_fail(detail, dn, UMAP_ERR_TOO_LARGE, "safetensors: more than %d tensors",
                                         UMAP__MF_MAX_TENSORS);
                t = &out->tensors[out->n_tensors];
                memcpy(t->name, name, sizeof name);
                umap__mf_show(show, name, strlen(name));
                if (!umap__json_expect(&c, '{', "a tensor entry must be an object")) goto bad_json;
                umap__json_ws(&c);
                if (c.i < c.n && c.s[c.i] == '}') c.i++;
                else
                    for (;;) {
                        if (!umap__json_name(&c, field, "unknown field in a tensor entry")) goto bad_json;
                        if (!umap__json_expect(&c, ':', "expected ':'")) goto bad_json;
                        if (strcmp(field, "dtype") == 0 && !have_dtype++) {
                            char dt[UMAP__MF_NAME_MAX];
                            if (!umap__json_name(&c, dt, "unknown dtype")) goto bad_json;
                            t->i32 = strcmp(dt, "I32") == 0;
                            if (strcmp(dt, "F32") != 0 && !t->i32) {
                                if (umap__mf_st_dtype_known(dt))
                                    return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                                         "safetensors: tensor '%s' has dtype %s; only F32 and I32 are supported",
                                                         show, dt);
                                return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                                     "safetensors: tensor '%s' has an unknown dtype '%s'", show,
                                                     umap__mf_show(show2, dt, strlen(dt)));
                            }
                        } else if (strcmp(field, "shape") == 0 && !have_shape++) {
                            if (!umap__json_expect(&c, '[', "shape must be an array")) goto bad_json;
                            umap__json_ws(&c);
                            if (c.i < c.n && c.s[c.i] == ']') c.i++;
                            else
                                for (;;) {
                                    uint64_t d;
                                    if (t->rank >= 4)
                                        return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                                             "safetensors: tensor '%s' has more than 4 dims", show);
                                    if (!umap__json_uint(&c, (uint64_t)INT64_MAX, &d)) goto bad_json;
                                    t->dim[t->rank++] = (int64_t)d;
                                    umap__json_ws(&c);
                                    if (c.i < c.n && c.s[c.i] == ',') { c.i++; continue; }
                                    if (!umap__json_expect(&c, ']', "expected ',' or ']'")) goto bad_json;
                                    break;
                                }
                        } else if (strcmp(field, "data_offsets") == 0 && !have_off++) {
                            int k = out->n_tensors;
                            if (!umap__json_expect(&c, '[', "data_offsets must be an array")) goto bad_json;
                            if (!umap__json_uint(&c, UINT64_MAX, &begin[k]) ||
                                !umap__json_expect(&c, ',', "data_offsets must hold two integers") ||
                                !umap__json_uint(&c, UINT64_MAX, &end[k]) ||
                                !umap__json_expect(&c, ']', "data_offsets must hold two integers"))
                                goto bad_json;
                        } else {
                            return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                                 "safetensors: tensor '%s': unknown or repeated field '%s'", show,
                                                 umap__mf_show(show2, field, strlen(field)));
                        }
                        umap__json_ws(&c);
                        if (c.i < c.n && c.s[c.i] == ',') { c.i++; continue; }
                        if (!umap__json_expect(&c, '}', "expected ',' or '}'")) goto bad_json;
                        break;
                    }
                if (!have_dtype || !have_shape || !have_off)
                    return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "safetensors: tensor '%s' lacks %s", show,
                                         !have_dtype ? "dtype" : !have_shape ? "shape" : "data_offsets");
                if (t->rank < 1)
                    return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                         "safetensors: tensor '%s' has rank 0 (ranks 1..4 are supported)", show);
                umap__mf_shape_str(t->rank, t->dim, sh, sizeof sh);
                if (!umap__mf_numel(t->rank, t->dim))
                    return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                         "safetensors: tensor '%s': shape %s has a zero dim or is too large", show, sh);
                out->n_tensors++;
            }
            umap__json_ws(&c);
            if (c.i < c.n && c.s[c.i] == ',') { c.i++; continue; }
            if (!umap__json_expect(&c, '}', "expected ',' or '}'")) goto bad_json;
            break;
        }
    umap__json_ws(&c);
    if (c.i != c.n)
        return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "safetensors: trailing garbage at header byte %llu",
                             (unsigned long long)c.i);
    /* the tensors must tile the data section */
    for (i = 0; i < out->n_tensors; i++) {
        const umap__mf_tensor *t = &out->tensors[i];
        uint64_t need = umap__mf_numel(t->rank, t->dim);
        umap__mf_show(show, t->name, strlen(t->name));
        umap__mf_shape_str(t->rank, t->dim, sh, sizeof sh);
        if (begin[i] > end[i] || end[i] > dlen)
            return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                 "safetensors: tensor '%s': data_offsets [%llu,%llu] are not inside the %llu-byte data "
                                 "section",
                                 show, (unsigned long long)begin[i], (unsigned long long)end[i],
                                 (unsigned long long)dlen);
        if (end[i] - begin[i] != need * 4) {
            if ((end[i] - begin[i]) % 4)
                return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                     "safetensors: tensor '%s': data_offsets [%llu,%llu] hold %llu bytes but shape %s "
                                     "needs %llu floats",
                                     show, (unsigned long long)begin[i], (unsigned long long)end[i],
                                     (unsigned long long)(end[i] - begin[i]), sh, (unsigned long long)need);
            return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                 "safetensors: tensor '%s': data_offsets [%llu,%llu] hold %llu floats but shape %s "
                                 "needs %llu",
                                 show, (unsigned long long)begin[i], (unsigned long long)end[i],
                                 (unsigned long long)((end[i] - begin[i]) / 4), sh, (unsigned long long)need);
        }
    }
    return umap__mf_place_tensors("safetensors", out, ps, data, dlen, begin, end, 1, detail, dn);
bad_json:
    return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "safetensors: bad header JSON at header byte %llu: %s",
                         (unsigned long long)c.i, c.err ? c.err : "syntax error");
}

/* GGUF ------------------------------------------------------------------------ */

typedef struct umap__mf_rd {
    const unsigned char *p;
    size_t n, i;
} umap__mf_rd;

static int umap__mf_rd_bytes(umap__mf_rd *r, size_t k, const unsigned char **out) {
    if (r->n - r->i < k) return 0;
    if (out) *out = r->p + r->i;
    r->i += k;
    return 1;
}
static int umap__mf_rd_u32(umap__mf_rd *r, uint32_t *v) {
    const unsigned char *p;
    if (!umap__mf_rd_bytes(r, 4, &p)) return 0;
    *v = umap__mf_le32(p);
    return 1;
}
static int umap__mf_rd_u64(umap__mf_rd *r, uint64_t *v) {
    const unsigned char *p;
    if (!umap__mf_rd_bytes(r, 8, &p)) return 0;
    *v = umap__mf_le64(p);
    return 1;
}
/* a gguf_string: u64 length then the bytes */
static int umap__mf_rd_str(umap__mf_rd *r, const unsigned char **s, size_t *len) {
    uint64_t n;
    size_t at = r->i;
    if (!umap__mf_rd_u64(r, &n)) return 0;
    if (n > (uint64_t)(r->n - r->i)) { r->i = at; return 0; }
    *len = (size_t)n;
    return umap__mf_rd_bytes(r, (size_t)n, s);
}

/* bytes of a GGUF scalar type; 0 for string/array/unknown */
static size_t umap__mf_gguf_size(uint32_t type) {
    static const unsigned char sz[13] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    return type < 13 ? sz[type] : 0;
}

static const char *umap__mf_gguf_type_name(uint32_t type) {
    static const char *const names[13] = {"uint8",  "int8",   "uint16", "int16", "uint32", "int32", "float32",
                                          "bool",   "string", "array",  "uint64", "int64", "float64"};
    return type < 13 ? names[type] : "unknown";
}

/* skips one value of type; -1 truncated, -2 bad type, -3 nested too deep */
static int umap__mf_gguf_skip(umap__mf_rd *r, uint32_t type, int depth) {
    size_t sz = umap__mf_gguf_size(type);
    if (sz) return umap__mf_rd_bytes(r, sz, NULL) ? 0 : -1;
    if (type == 8) {
        const unsigned char *s;
        size_t n;
        return umap__mf_rd_str(r, &s, &n) ? 0 : -1;
    }
    if (type == 9) {
        uint32_t et;
        uint64_t count, k;
        size_t esz;
        if (depth >= UMAP__MF_GGUF_DEPTH) return -3;
        if (!umap__mf_rd_u32(r, &et) || !umap__mf_rd_u64(r, &count)) return -1;
        if (et > 12) return -2;
        esz = umap__mf_gguf_size(et);
        if (esz) {
            if (count > (uint64_t)(r->n - r->i) / esz) return -1;
            r->i += (size_t)count * esz;
            return 0;
        }
        /* a string takes >= 8 bytes, an array >= 12: bounds the loop */
        if (count > (uint64_t)(r->n - r->i) / (et == 8 ? 8 : 12)) return -1;
        for (k = 0; k < count; k++) {
            int e = umap__mf_gguf_skip(r, et, depth + 1);
            if (e) return e;
        }
        return 0;
    }
    return -2;
}

static const char *umap__mf_ggml_type_name(uint32_t t) {
    switch (t) {
    case 0: return "F32";
    case 1: return "F16";
    case 2: return "Q4_0";
    case 3: return "Q4_1";
    case 6: return "Q5_0";
    case 7: return "Q5_1";
    case 8: return "Q8_0";
    case 9: return "Q8_1";
    case 10: return "Q2_K";
    case 11: return "Q3_K";
    case 12: return "Q4_K";
    case 13: return "Q5_K";
    case 14: return "Q6_K";
    case 15: return "Q8_K";
    case 24: return "I8";
    case 25: return "I16";
    case 26: return "I32";
    case 27: return "I64";
    case 28: return "F64";
    case 30: return "BF16";
    default: return NULL;
    }
}

static umap_result umap__mf_parse_gguf(const unsigned char *buf, size_t len, umap__mf *out, umap__mf_pass *ps,
                                       char *detail, size_t dn) {
    umap__mf_rd r;
    uint32_t version, align = 32;
    uint64_t n_tensors, n_kv, k, off[UMAP__MF_MAX_TENSORS], nbytes[UMAP__MF_MAX_TENSORS], end[UMAP__MF_MAX_TENSORS];
    int i, j;
    size_t data_at, dlen;
    char show[64], what[64];
    r.p = buf;
    r.n = len;
    r.i = 4;
    if (!umap__mf_rd_u32(&r, &version)) {
        snprintf(what, sizeof what, "the version");
        goto truncated;
    }
    if (version != 3 && version != 2)
        return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "gguf: version %lu is not supported (2 or 3)%s",
                             (unsigned long)version, version > 0xffff ? " (a big-endian file?)" : "");
    if (!umap__mf_rd_u64(&r, &n_tensors) || !umap__mf_rd_u64(&r, &n_kv)) {
        snprintf(what, sizeof what, "the counts");
        goto truncated;
    }
    if (n_tensors > UMAP__MF_MAX_TENSORS)
        return umap__mf_fail(detail, dn, UMAP_ERR_TOO_LARGE, "gguf: %llu tensors (at most %d)",
                             (unsigned long long)n_tensors, UMAP__MF_MAX_TENSORS);
    if (n_kv > (uint64_t)(len - r.i) / 13) /* a key-value takes >= 13 bytes */
        return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "gguf: %llu key-value pairs cannot fit in %llu bytes",
                             (unsigned long long)n_kv, (unsigned long long)len);
    for (k = 0; k < n_kv; k++) {
        const unsigned char *key;
        size_t klen, at;
        uint32_t type;
        snprintf(what, sizeof what, "key-value %llu", (unsigned long long)k);
        if (!umap__mf_rd_str(&r, &key, &klen) || !umap__mf_rd_u32(&r, &type)) goto truncated;
        umap__mf_show(show, key, klen);
        if (klen == 0 || memchr(key, 0, klen))
            return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "gguf: key-value %llu has an empty key or a NUL in it",
                                 (unsigned long long)k);
        at = r.i;
        if (type == 9) {
            int e = umap__mf_gguf_skip(&r, type, 0);
            if (e == -1) goto truncated;
            if (e)
                return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "gguf: key '%s': %s", show,
                                     e == -2 ? "array of an unknown type" : "arrays nested too deeply");
            continue;
        }
        if (type > 12)
            return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "gguf: key '%s' has unknown value type %lu", show,
                                 (unsigned long)type);
        if (klen >= UMAP__MF_NAME_MAX)
            return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "gguf: key '%s' is %llu bytes (at most 63)", show,
                                 (unsigned long long)klen);
        for (j = 0; j < out->n_meta; j++)
            if (strlen(out->meta[j].key) == klen && memcmp(out->meta[j].key, key, klen) == 0)
                return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "gguf: key '%s' appears twice", show);
        if (out->n_meta >= UMAP__MF_MAX_META)
            return umap__mf_fail(detail, dn, UMAP_ERR_TOO_LARGE, "gguf: more than %d metadata values",
                                 UMAP__MF_MAX_META);
        if (umap__mf_gguf_skip(&r, type, 0)) goto truncated;
        {
            umap__mf_meta *m = &out->meta[out->n_meta];
            umap__mf_src *src = &ps->m[out->n_meta];
            const unsigned char *p = buf + at;
            memcpy(m->key, key, klen);
            m->key[klen] = 0;
            src->p = NULL;
            src->json = 0;
            switch (type) {
            case 0: case 2: case 4: {
                uint32_t v = type == 0 ? p[0] : type == 2 ? (uint32_t)(p[0] | p[1] << 8) : umap__mf_le32(p);
                m->type = UMAP__MF_U32;
                snprintf(src->num, sizeof src->num, "%lu", (unsigned long)v);
                break;
            }
            case 1: case 3: case 5: case 11: {
                int64_t v = type == 1 ? (int64_t)(int8_t)p[0]
                          : type == 3 ? (int64_t)(int16_t)(uint16_t)(p[0] | p[1] << 8)
                          : type == 5 ? (int64_t)(int32_t)umap__mf_le32(p)
                                      : (int64_t)umap__mf_le64(p);
                m->type = UMAP__MF_I64;
                snprintf(src->num, sizeof src->num, "%lld", (long long)v);
                break;
            }
            case 10:
                m->type = UMAP__MF_U64;
                snprintf(src->num, sizeof src->num, "%llu", (unsigned long long)umap__mf_le64(p));
                break;
            case 6: {
                uint32_t u = umap__mf_le32(p);
                float f;
                memcpy(&f, &u, 4);
                m->type = UMAP__MF_F32;
                umap__mf_fmt_g(src->num, sizeof src->num, (double)f, 9);
                break;
            }
            case 12: {
                uint64_t u = umap__mf_le64(p);
                double d;
                memcpy(&d, &u, 8);
                m->type = UMAP__MF_F64;
                umap__mf_fmt_g(src->num, sizeof src->num, d, 17);
                break;
            }
            case 7:
                if (p[0] > 1)
                    return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "gguf: key '%s': bool value %u is not 0 or 1",
                                         show, (unsigned)p[0]);
                m->type = UMAP__MF_BOOL;
                snprintf(src->num, sizeof src->num, "%s", p[0] ? "true" : "false");
                break;
            default: /* 8: string */
                m->type = UMAP__MF_STR;
                src->p = p + 8;
                src->len = src->outlen = r.i - at - 8;
                if (memchr(src->p, 0, src->len))
                    return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "gguf: key '%s': the string holds a NUL byte",
                                         show);
                break;
            }
            if (!src->p) src->outlen = strlen(src->num);
            if (klen == 17 && memcmp(key, "general.alignment", 17) == 0) {
                uint32_t v;
                if (type != 4)
                    return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                         "gguf: general.alignment is a %s, not a uint32", umap__mf_gguf_type_name(type));
                v = umap__mf_le32(p);
                if (v == 0 || (v & (v - 1)) || v > 65536)
                    return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                         "gguf: general.alignment %lu is not a power of two <= 65536", (unsigned long)v);
                align = v;
            }
            out->n_meta++;
        }
    }
    for (i = 0; i < (int)n_tensors; i++) {
        umap__mf_tensor *t = &out->tensors[i];
        const unsigned char *name;
        size_t nlen;
        uint32_t nd, type;
        uint64_t ne;
        snprintf(what, sizeof what, "tensor info %d", i);
        if (!umap__mf_rd_str(&r, &name, &nlen)) goto truncated;
        umap__mf_show(show, name, nlen);
        if (nlen == 0 || nlen >= UMAP__MF_NAME_MAX || memchr(name, 0, nlen))
            return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                 "gguf: tensor %d: name '%s' of %llu bytes (1..63 bytes, no NUL)", i, show,
                                 (unsigned long long)nlen);
        memcpy(t->name, name, nlen);
        t->name[nlen] = 0;
        if (umap__mf_tensor_named(out, i, t->name))
            return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "gguf: tensor '%s' appears twice", show);
        if (!umap__mf_rd_u32(&r, &nd)) goto truncated;
        if (nd < 1 || nd > 4)
            return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "gguf: tensor '%s' has %lu dims (1..4 are supported)",
                                 show, (unsigned long)nd);
        t->rank = (int)nd;
        for (j = 0; j < (int)nd; j++) {
            if (!umap__mf_rd_u64(&r, &ne)) goto truncated;
            if (ne < 1 || ne > (uint64_t)INT64_MAX)
                return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "gguf: tensor '%s': ne[%d] = %llu", show, j,
                                     (unsigned long long)ne);
            t->dim[nd - 1 - (unsigned)j] = (int64_t)ne;
        }
        if (!umap__mf_numel(t->rank, t->dim))
            return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "gguf: tensor '%s': the size overflows", show);
        if (!umap__mf_rd_u32(&r, &type)) goto truncated;
        t->i32 = type == 26;
        if (type != 0 && !t->i32) {
            const char *tn = umap__mf_ggml_type_name(type);
            if (tn)
                return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                     "gguf: tensor '%s' has type %s; only F32 and I32 are supported", show, tn);
            return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "gguf: tensor '%s' has unknown type %lu", show,
                                 (unsigned long)type);
        }
        if (!umap__mf_rd_u64(&r, &off[i])) goto truncated;
        if (off[i] % align)
            return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                 "gguf: tensor '%s': offset %llu is not a multiple of the alignment %lu", show,
                                 (unsigned long long)off[i], (unsigned long)align);
        nbytes[i] = umap__mf_numel(t->rank, t->dim) * 4;
        out->n_tensors++;
    }
    data_at = r.i + (align - r.i % align) % align;
    if (out->n_tensors == 0 && data_at > len) data_at = len; /* no data: the padding may be missing */
    if (data_at > len || data_at < r.i) {
        snprintf(what, sizeof what, "the padding before the data");
        goto truncated;
    }
    dlen = len - data_at;
    for (i = 0; i < out->n_tensors; i++) {
        char sh[128];
        umap__mf_show(show, out->tensors[i].name, strlen(out->tensors[i].name));
        umap__mf_shape_str(out->tensors[i].rank, out->tensors[i].dim, sh, sizeof sh);
        /* like ggml's reader, the data section holds each tensor padded to the alignment */
        if (off[i] > dlen || nbytes[i] + (align - nbytes[i] % align) % align > dlen - off[i])
            return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT,
                                 "gguf: tensor '%s': %llu bytes at offset %llu (shape %s, padded to %lu) run past the "
                                 "%llu-byte data section (truncated?)",
                                 show, (unsigned long long)nbytes[i], (unsigned long long)off[i], sh,
                                 (unsigned long)align, (unsigned long long)dlen);
        end[i] = off[i] + nbytes[i];
    }
    return umap__mf_place_tensors("gguf", out, ps, buf + data_at, dlen, off, end, 0, detail, dn);
truncated:
    return umap__mf_fail(detail, dn, UMAP_ERR_FORMAT, "gguf: truncated at byte %llu reading %s (the file is %llu bytes)",
                         (unsigned long long)r.i, what, (unsigned long long)len);
}

/* sniffs and parses buf strictly; on success out owns copies of everything
   (free with umap__mf_free), on error out is empty */
static umap_result umap__mf_parse(const umap_allocator *a, const unsigned char *buf, size_t len, umap__mf *out,
                                  char *detail, size_t detail_size) {
    umap__mf_pass *ps;
    umap_result r;
    if (detail && detail_size) detail[0] = 0;
    if (!out) return umap__mf_fail(detail, detail_size, UMAP_ERR_INVALID_ARGUMENT, "model file: out is NULL");
    memset(out, 0, sizeof *out);
    if (!buf && len) return umap__mf_fail(detail, detail_size, UMAP_ERR_INVALID_ARGUMENT, "model file: no bytes");
    if (len >= 4 && memcmp(buf, "GGUF", 4) == 0) {
    } else if (len >= 9 && buf[8] == '{') {
    } else if (len < 9)
        return umap__mf_fail(detail, detail_size, UMAP_ERR_FORMAT,
                             "model file: %llu bytes are too few for a safetensors or GGUF file",
                             (unsigned long long)len);
    else
        return umap__mf_fail(detail, detail_size, UMAP_ERR_FORMAT,
                             "model file: neither GGUF (magic \"GGUF\") nor safetensors (8-byte length, then '{')");
    ps = (umap__mf_pass *)umap__alloc(a, sizeof *ps);
    if (!ps) return umap__mf_fail(detail, detail_size, UMAP_ERR_OUT_OF_MEMORY, "model file: out of memory");
    if (buf[0] == 'G' && memcmp(buf, "GGUF", 4) == 0)
        r = umap__mf_parse_gguf(buf, len, out, ps, detail, detail_size);
    else
        r = umap__mf_parse_safetensors(buf, len, out, ps, detail, detail_size);
    if (r == UMAP_OK) r = umap__mf_finish(a, out, ps, detail, detail_size);
    umap__free(a, ps);
    if (r != UMAP_OK) umap__mf_free(a, out);
    return r;
}

static const char *umap__mf_meta_get(const umap__mf *mf, const char *key) {
    int i;
    for (i = 0; i < mf->n_meta; i++)
        if (strcmp(mf->meta[i].key, key) == 0) return mf->meta[i].value;
    return NULL;
}

static const umap__mf_tensor *umap__mf_tensor_get(const umap__mf *mf, const char *name) {
    int i;
    for (i = 0; i < mf->n_tensors; i++)
        if (strcmp(mf->tensors[i].name, name) == 0) return &mf->tensors[i];
    return NULL;
}


/* >>model files: the model <-> safetensors / GGUF ------------------------------
   Tensors: layers.{l}.weight [in, out], layers.{l}.bias [out], norm.mean [d],
   norm.std [d], input.projection [d, p] when the model projects its input,
   and train.data [n_train, d] (or train.sketch [n_train, w], w the
   encoder's input width: input_dims, or d without a projection) with
   train.embedding [n_train, n_components] when it kept its training data
   (config.keep_data; both or neither),
   then train.knn [n_train, n_neighbors - 1], their k-NN graph, the one
   I32 tensor (files from before 0.9 lack it: transform then searches
   exactly).
   Last, with a decoder (config.decoder_epochs > 0 in umap.config):
   decoder.{l}.weight [in, out] and decoder.{l}.bias [out], the encoder's
   layers mirrored (n_components in, the encoder's input width out).
   The kept tensors have a row per kept row: n_train, or for a sample
   (config.keep_sample) umap.n_kept rows, whose places then stand in
   train.embedding and whose own graph (indexing the sample) in train.knn.
   Metadata: umap.format_version (1), umap.n_train, umap.n_features,
   umap.n_components, umap.input_dims, umap.hidden ("64,64,64,64"), umap.a,
   umap.b, umap.config (the config as flat JSON) and, with a sample,
   umap.n_kept (a reader from before it refuses such a file: its kept
   tensors are not [n_train, ...]) and, for a sparse graph of distances,
   umap.input = "graph" (its projection is input.graph_axes, which a reader
   from before it does not find: it refuses the file). A reader that predates
   the kept data refuses such a file (its tensor count), never misreads it.
   The config names its metric ("metric":"manhattan", with "metric_p");
   files written before names hold 0 (euclidean) or 1 (cosine) there, and
   still load. A metric name this library does not know is UMAP_ERR_FORMAT
   naming it: a model is never used with another metric than its own. */

#define UMAP__FORMAT_VERSION 1

static void umap__json_put(char *buf, size_t size, size_t *at, const char *key, const char *val, int quote) {
    if (*at >= size) return;
    *at += (size_t)snprintf(buf + *at, size - *at, "%s\"%s\":%s%s%s", *at > 1 ? "," : "", key, quote ? "\"" : "",
                            val, quote ? "\"" : "");
}

/* umap.config: every row of the config's table (umap__config_fields), the
   seed and the hidden widths, as flat JSON. A float is written with the 9
   digits that read back as the same float, a double with 17: a value
   saved loads as the same bits. */
static void umap__config_json(const umap_model *m, char *buf, size_t size) {
    const umap_config *c = &m->config;
    char v[64];
    size_t at = 1;
    int i, l;
    buf[0] = '{';
    buf[1] = 0;
    for (i = 0; i < UMAP__N_CONFIG_FIELDS; i++) {
        const umap_config_field *f = &umap__config_fields[i];
        double x = umap__field_get(f, c);
        switch (f->type) {
        case UMAP_FIELD_METRIC: umap__json_put(buf, size, &at, f->name, umap_metric_name(c->metric), 1); continue;
        case UMAP_FIELD_INIT: umap__json_put(buf, size, &at, f->name, umap_init_name(c->init), 1); continue;
        case UMAP_FIELD_FLOAT: umap__mf_fmt_g(v, sizeof v, x, 9); break;
        case UMAP_FIELD_DOUBLE: umap__mf_fmt_g(v, sizeof v, x, 17); break;
        default: snprintf(v, sizeof v, "%d", (int)x); break;
        }
        umap__json_put(buf, size, &at, f->name, v, 0);
    }
    snprintf(v, sizeof v, "%llu", (unsigned long long)c->seed); /* a string: JSON numbers lose u64 precision */
    umap__json_put(buf, size, &at, "seed", v, 1);
    v[0] = 0;
    for (l = 0; l < c->n_hidden; l++) snprintf(v + strlen(v), sizeof v - strlen(v), l ? ",%d" : "%d", c->hidden[l]);
    umap__json_put(buf, size, &at, "hidden", v, 1);
    if (at + 2 < size) { buf[at] = '}'; buf[at + 1] = 0; }
}

/* "100,100" -> widths; 0 on anything else */
static int umap__parse_hidden(const char *s, int *n_out, int *w) {
    int n = 0;
    if (!s) return 0;
    if (!*s) { *n_out = 0; return 1; }
    for (;;) {
        long v = 0;
        int digits = 0;
        while (*s >= '0' && *s <= '9' && digits < 7) v = v * 10 + (*s++ - '0'), digits++;
        if (!digits || v < 1 || v > 65536 || n >= UMAP_MAX_HIDDEN) return 0;
        w[n++] = (int)v;
        if (*s == 0) break;
        if (*s++ != ',') return 0;
    }
    *n_out = n;
    return 1;
}

static int umap__has_suffix(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix), i;
    if (n < k) return 0;
    for (i = 0; i < k; i++) {
        char a = s[n - k + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

/* A model's tensors in file order, named and shaped from its layout
   (width[0..n_layers] as umap_model.width, proj_dims 0 = no projection):
   the saver writes them, the loader checks a file against them before it
   allocates (m NULL: no data yet) and copies into them after. Returns how
   many (at most UMAP__MODEL_MAX_TENSORS). n_train: the kept rows (n_kept,
   the model's n_train or a sample of it). kept: UMAP_KEEP_*; knn_k: the
   kept k-NN graph's width (0: none, as in files from before it was kept);
   sketch_dims: a kept sketch's width, its axes in the file (0: a file from
   before them, the sketch as wide as the encoder's input). metric_v: the
   seuclidean metric's variances are there (the metric is seuclidean). */
#define UMAP__MODEL_MAX_TENSORS (4 * (UMAP_MAX_HIDDEN + 1) + 8)
/* a precomputed model's keep in its files: the places alone (train.embedding
   without train.data, which a reader from before it refuses) */
#define UMAP__KEEP_PLACES 3

static int umap__model_tensors(const int64_t *width, int n_layers, int64_t n_features, int64_t proj_dims,
                               int graph_input, int64_t n_train, int kept, int knn_k, int64_t sketch_dims, int decoder,
                               int metric_v, const umap_model *m, umap__mf_tensor *t) {
    int l, i, nt = 0;
    memset(t, 0, (size_t)UMAP__MODEL_MAX_TENSORS * sizeof *t);
    for (l = 0; l < n_layers; l++)
        for (i = 0; i < 2; i++, nt++) {
            snprintf(t[nt].name, UMAP__MF_NAME_MAX, "layers.%d.%s", l, i ? "bias" : "weight");
            t[nt].rank = i ? 1 : 2;
            t[nt].dim[0] = i ? width[l + 1] : width[l];
            t[nt].dim[1] = i ? 0 : width[l + 1];
            t[nt].data = m ? umap__layer_w(m, l) + (i ? width[l] * width[l + 1] : 0) : NULL;
        }
    for (i = 0; i < 2; i++, nt++) {
        snprintf(t[nt].name, UMAP__MF_NAME_MAX, "%s", i ? "norm.std" : "norm.mean");
        t[nt].rank = 1;
        t[nt].dim[0] = n_features;
        t[nt].data = m ? (i ? m->std : m->mean) : NULL;
    }
    if (metric_v) {
        snprintf(t[nt].name, UMAP__MF_NAME_MAX, "metric.v");
        t[nt].rank = 1; t[nt].dim[0] = n_features;
        t[nt++].data = m ? m->metric_v : NULL;
    }
    if (proj_dims) { /* a graph's axes are its memberships': a reader from before them finds no input.projection */
        snprintf(t[nt].name, UMAP__MF_NAME_MAX, graph_input ? "input.graph_axes" : "input.projection");
        t[nt].rank = 2; t[nt].dim[0] = n_features; t[nt].dim[1] = proj_dims;
        t[nt++].data = m ? m->proj : NULL;
    }
    if (kept) { /* kept for transform's neighbours mode: the rows (or their sketch), then their embedding */
        int sk = kept == UMAP_KEEP_SKETCH;
        if (kept != UMAP__KEEP_PLACES) {
            snprintf(t[nt].name, UMAP__MF_NAME_MAX, sk ? "train.sketch" : "train.data");
            t[nt].rank = 2; t[nt].dim[0] = n_train; t[nt].dim[1] = !sk ? n_features : sketch_dims ? sketch_dims : width[0];
            t[nt++].data = m ? (sk ? m->train_sketch : m->train_data) : NULL;
        }
        snprintf(t[nt].name, UMAP__MF_NAME_MAX, "train.embedding");
        t[nt].rank = 2; t[nt].dim[0] = n_train; t[nt].dim[1] = width[n_layers];
        t[nt++].data = m ? m->kept_embedding : NULL;
        if (knn_k) { /* int32 row indices */
            snprintf(t[nt].name, UMAP__MF_NAME_MAX, "train.knn");
            t[nt].rank = 2; t[nt].dim[0] = n_train; t[nt].dim[1] = knn_k; t[nt].i32 = 1;
            t[nt++].data = m ? (float *)(void *)m->train_knn : NULL;
        }
        if (sk && sketch_dims) { /* last: files from before the axes end before it */
            snprintf(t[nt].name, UMAP__MF_NAME_MAX, "train.sketch_axes");
            t[nt].rank = 2; t[nt].dim[0] = n_features; t[nt].dim[1] = sketch_dims;
            t[nt++].data = m ? m->sketch_axes : NULL;
        }
    }
    if (decoder) { /* the encoder's mirror: layer l maps width[n_layers - l] to width[n_layers - l - 1] */
        umap__mlp dec;
        if (m) dec = umap__decoder_mlp(m);
        for (l = 0; l < n_layers; l++)
            for (i = 0; i < 2; i++, nt++) {
                int64_t in = width[n_layers - l], o = width[n_layers - l - 1];
                snprintf(t[nt].name, UMAP__MF_NAME_MAX, "decoder.%d.%s", l, i ? "bias" : "weight");
                t[nt].rank = i ? 1 : 2;
                t[nt].dim[0] = i ? o : in;
                t[nt].dim[1] = i ? 0 : o;
                t[nt].data = m ? umap__mlp_layer(&dec, l) + (i ? in * o : 0) : NULL;
            }
    }
    return nt;
}

/* The model's metadata: one row per key, in the order the saver writes
   them (umap.n_kept only with a sample); the loader reads each key once,
   into an array indexed by the same names. */
#define UMAP__MODEL_META(X)                                                                                 \
    X(VERSION, "umap.format_version", U32) X(N_TRAIN, "umap.n_train", U64)                                \
    X(N_FEATURES, "umap.n_features", U64) X(N_COMPONENTS, "umap.n_components", U32)                       \
    X(INPUT_DIMS, "umap.input_dims", U32) X(A, "umap.a", F32) X(B, "umap.b", F32)                         \
    X(HIDDEN, "umap.hidden", STR) X(CONFIG, "umap.config", STR) X(N_KEPT, "umap.n_kept", U64)            \
    X(INPUT, "umap.input", STR)
#define UMAP__MK_ENUM(id, key, type) UMAP__MK_##id,
enum { UMAP__MODEL_META(UMAP__MK_ENUM) UMAP__MK_COUNT };
#undef UMAP__MK_ENUM
#define UMAP__MK_KEY(id, key, type) key,
static const char *const umap__model_meta_key[UMAP__MK_COUNT] = {UMAP__MODEL_META(UMAP__MK_KEY)};
#undef UMAP__MK_KEY
#define UMAP__MK_TYPE(id, key, type) UMAP__MF_##type,
static const umap__mf_type umap__model_meta_type[UMAP__MK_COUNT] = {UMAP__MODEL_META(UMAP__MK_TYPE)};
#undef UMAP__MK_TYPE

UMAP__FN umap_result umap_save_file(const umap_model *m, FILE *f, const char *name) {
    umap__mf mf;
    char json[4096], sv[UMAP__MK_COUNT][32], hidden[128], detail[256];
    char *value[UMAP__MK_COUNT];
    int64_t widths[UMAP_MAX_HIDDEN + 2];
    int format, l, nt, i, kept;
    if (!m || !f || !name) return UMAP_ERR_INVALID_ARGUMENT;
    kept = umap__kept_rows(m, NULL, NULL, NULL);
    if (kept == UMAP_KEEP_ROWS && !m->train_data) kept = UMAP__KEEP_PLACES;
    if (umap__has_suffix(name, ".safetensors")) format = UMAP__MF_SAFETENSORS;
    else if (umap__has_suffix(name, ".gguf")) format = UMAP__MF_GGUF;
    else return UMAP_ERR_INVALID_ARGUMENT;
    memset(&mf, 0, sizeof mf);
    for (l = 0; l <= m->n_layers; l++) widths[l] = m->width[l];
    nt = umap__model_tensors(widths, m->n_layers, m->n_features, m->proj ? m->proj_dims : 0, m->graph_input, m->n_kept,
                             kept, kept && m->train_knn ? m->train_knn_k : 0, m->sketch_axes ? m->sketch_dims : 0,
                             m->dec_params != NULL, m->metric_v != NULL, m, mf.tensors);
    mf.n_tensors = nt;
    umap__config_json(m, json, sizeof json);
    hidden[0] = 0;
    for (l = 0; l + 1 < m->n_layers; l++) snprintf(hidden + strlen(hidden), sizeof hidden - strlen(hidden), l ? ",%d" : "%d", m->width[l + 1]);
    snprintf(sv[UMAP__MK_VERSION], 32, "%d", UMAP__FORMAT_VERSION);
    snprintf(sv[UMAP__MK_N_TRAIN], 32, "%lld", (long long)m->n_train);
    snprintf(sv[UMAP__MK_N_FEATURES], 32, "%lld", (long long)m->n_features);
    snprintf(sv[UMAP__MK_N_COMPONENTS], 32, "%d", m->n_components);
    snprintf(sv[UMAP__MK_INPUT_DIMS], 32, "%d", m->proj_dims);
    umap__mf_fmt_g(sv[UMAP__MK_A], 32, m->a, 9);
    umap__mf_fmt_g(sv[UMAP__MK_B], 32, m->b, 9);
    snprintf(sv[UMAP__MK_N_KEPT], 32, "%lld", (long long)m->n_kept);
    snprintf(sv[UMAP__MK_INPUT], 32, "graph");
    for (i = 0; i < UMAP__MK_COUNT; i++) value[i] = sv[i];
    value[UMAP__MK_HIDDEN] = hidden;
    value[UMAP__MK_CONFIG] = json;
    if (!(kept && m->n_kept < m->n_train)) value[UMAP__MK_N_KEPT] = NULL; /* every row kept, or none */
    if (!m->graph_input) value[UMAP__MK_INPUT] = NULL; /* rows, as every file before it */
    for (i = 0; i < UMAP__MK_COUNT; i++) {
        if (!value[i]) continue;
        snprintf(mf.meta[mf.n_meta].key, UMAP__MF_NAME_MAX, "%s", umap__model_meta_key[i]);
        mf.meta[mf.n_meta].type = umap__model_meta_type[i];
        mf.meta[mf.n_meta++].value = value[i];
    }
    return umap__mf_write(f, format, &mf, detail, sizeof detail);
}

UMAP__FN int umap_save_supports(const char *path) {
    return path && (umap__has_suffix(path, ".safetensors") || umap__has_suffix(path, ".gguf"));
}

UMAP__FN umap_result umap_save_ex(const umap_model *m, const char *path, char *detail, size_t detail_size) {
    umap_output o;
    umap_result r;
    if (detail && detail_size) detail[0] = 0;
    if (!m || !path) return umap__mf_fail(detail, detail_size, UMAP_ERR_INVALID_ARGUMENT, "no model or no path");
    if (!umap_save_supports(path)) /* before a temporary is made */
        return umap__mf_fail(detail, detail_size, UMAP_ERR_INVALID_ARGUMENT,
                             "%s: a model file's name ends in .safetensors or .gguf", path);
    /* a temporary beside the target, renamed over it only when complete:
       a failed save never destroys an existing model */
    if ((r = umap_output_open(&o, path)) != UMAP_OK) return umap__mf_fail(detail, detail_size, r, "%s", o.error);
    if ((r = umap_save_file(m, o.file, path)) != UMAP_OK) {
        umap_output_discard(&o);
        return umap__mf_fail(detail, detail_size, r, "%s: %s", path, umap_result_string(r));
    }
    if ((r = umap_output_commit(&o)) != UMAP_OK) return umap__mf_fail(detail, detail_size, r, "%s", o.error);
    return UMAP_OK;
}

UMAP__FN umap_result umap_save(const umap_model *m, const char *path) { return umap_save_ex(m, path, NULL, 0); }

/* a metric in the config JSON: its name ("manhattan"), or the integer form
   of files written before names (0 euclidean, 1 cosine); absent: the
   default stays. 0 (with the detail) on anything else: a model must not be
   read with a metric other than its own. */
static int umap__json_metric(const char *json, const char *key, umap_metric *out, char *detail, size_t ds) {
    char name[64];
    double num;
    umap__json_cur v;
    if (umap__json_string(json, key, name, sizeof name)) {
        if (umap_metric_from_name(name, out)) return 1;
        char shown[64];
        umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: the config's %s '%s' is not a metric this library knows",
                      key, umap__mf_show(shown, name, strlen(name)));
        return 0;
    }
    if (umap__json_number(json, key, &num)) {
        if (num == 0.0 || num == 1.0) { *out = num == 0.0 ? UMAP_METRIC_EUCLIDEAN : UMAP_METRIC_COSINE; return 1; }
        umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: the config's %s %g is not 0 (euclidean) or 1 (cosine)", key,
                      num);
        return 0;
    }
    if (umap__json_find(json, key, &v)) { /* present but neither */
        umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: the config's %s is not a metric name", key);
        return 0;
    }
    return 1;
}

/* the model in a parsed file: every tensor and key checked against the others */
static umap_result umap__model_from_mf(const umap_allocator *a, const umap__mf *mf, umap_model **out, char *detail,
                                       size_t ds) {
    const char *meta[UMAP__MK_COUNT]; /* each key's value, read once; NULL when absent */
    const char *ver, *json, *hid;
    uint64_t n_train = 0, n_features = 0, n_comp = 0, in_dims = 0, n_kept = 0;
    double av = 0, bv = 0, num;
    umap_config c = umap_config_default();
    umap_model *m = NULL;
    /* a model's kept training data: the rows (or their sketch) and their embedding, both or neither */
    const umap__mf_tensor *kept_x = umap__mf_tensor_get(mf, "train.data");
    const umap__mf_tensor *kept_s = umap__mf_tensor_get(mf, "train.sketch");
    const umap__mf_tensor *kept_y = umap__mf_tensor_get(mf, "train.embedding");
    const umap__mf_tensor *kept_g = umap__mf_tensor_get(mf, "train.knn"); /* optional beside them */
    int n_hidden = 0, widths[UMAP_MAX_HIDDEN], l, i, expected, knn_k = 0, sketch_dims = 0, graph_input = 0;
    int kept = kept_x ? UMAP_KEEP_ROWS : kept_s ? UMAP_KEEP_SKETCH : UMAP_KEEP_NONE;
    const umap__mf_tensor *kept_a = umap__mf_tensor_get(mf, "train.sketch_axes"); /* beside a sketch, in newer files */
    umap__mf_tensor want[UMAP__MODEL_MAX_TENSORS]; /* the tensors the metadata calls for */
    int64_t j, k;
    char key[64];
    umap_result r;
    char shown[64];
    for (i = 0; i < UMAP__MK_COUNT; i++) meta[i] = umap__mf_meta_get(mf, umap__model_meta_key[i]);
    ver = meta[UMAP__MK_VERSION];
    json = meta[UMAP__MK_CONFIG];
    hid = meta[UMAP__MK_HIDDEN];
    if (!ver || strcmp(ver, "1") != 0)
        return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: umap.format_version is %s%s%s, this library reads 1",
                             ver ? "'" : "", ver ? umap__mf_show(shown, ver, strlen(ver)) : "missing", ver ? "'" : "");
    if (!umap__mf_parse_u64(meta[UMAP__MK_N_TRAIN] ? meta[UMAP__MK_N_TRAIN] : "", (uint64_t)1 << 40, &n_train) ||
        !umap__mf_parse_u64(meta[UMAP__MK_N_FEATURES] ? meta[UMAP__MK_N_FEATURES] : "", (uint64_t)1 << 30, &n_features) ||
        !umap__mf_parse_u64(meta[UMAP__MK_N_COMPONENTS] ? meta[UMAP__MK_N_COMPONENTS] : "", 64, &n_comp) ||
        !umap__mf_parse_u64(meta[UMAP__MK_INPUT_DIMS] ? meta[UMAP__MK_INPUT_DIMS] : "", (uint64_t)1 << 30, &in_dims) ||
        n_features < 1 || n_comp < 1 || in_dims >= n_features)
        return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT,
                               "model: umap.n_train, umap.n_features, umap.n_components or umap.input_dims is missing or out of range");
    if (!umap__parse_hidden(hid, &n_hidden, widths))
        return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: umap.hidden '%s' is not a list of 0..%d widths",
                             hid ? umap__mf_show(shown, hid, strlen(hid)) : "(missing)", UMAP_MAX_HIDDEN);
    {   /* the curve fit used, as floats (the file's numbers rounded as fit rounded them) */
        const char *as = meta[UMAP__MK_A], *bs = meta[UMAP__MK_B];
        char shown_a[64], shown_b[64];
        if (!as || !bs || !umap__mf_strtod(as, strlen(as), &av) || !umap__mf_strtod(bs, strlen(bs), &bv) ||
            !umap__float_of(av, &av) || !umap__float_of(bv, &bv) || !umap__ab_sane((float)av, (float)bv))
            return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: umap.a = %s, umap.b = %s: need a in [%g, %g], b in [%g, %g]",
                                 as ? umap__mf_show(shown_a, as, strlen(as)) : "(missing)",
                                 bs ? umap__mf_show(shown_b, bs, strlen(bs)) : "(missing)", UMAP__A_MIN, UMAP__A_MAX,
                                 UMAP__B_MIN, UMAP__B_MAX);
    }
    if (!json || !umap__json_number(json, "n_neighbors", &num))
        return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: umap.config is %s",
                               json ? "not a JSON object with the config's fields" : "missing");
    { /* the config as fitted: each row of the config's table that the file's
         shapes do not decide, held to the range fit holds it to; a row the
         file lacks keeps its default (a file from before the field) */
        if (!umap__json_string(json, "init", key, sizeof key) && umap__json_number(json, "pca_init", &num))
            c.init = num != 0 ? UMAP_INIT_PCA : UMAP_INIT_RANDOM; /* a file from before umap_init */
        for (i = 0; i < UMAP__N_CONFIG_FIELDS; i++) {
            const umap_config_field *f = &umap__config_fields[i];
            umap__json_cur v;
            char why[400];
            if ((f->flags & UMAP_FIELD_SHAPE) || !umap__json_find(json, f->name, &v)) continue;
            if (f->type == UMAP_FIELD_METRIC) {
                if (!umap__json_metric(json, f->name, &c.metric, detail, ds)) return UMAP_ERR_FORMAT;
                continue;
            }
            if (f->type == UMAP_FIELD_INIT) {
                if (!umap__json_string(json, f->name, key, sizeof key))
                    return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: umap.config: %s is not a string",
                                         f->name);
                if (!umap_init_from_name(key, &c.init))
                    return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: umap.config: %s '%s' is not one of pca, "
                                         "random, spectral, coords", f->name, umap__mf_show(shown, key, strlen(key)));
                continue;
            }
            if (!umap__json_number(json, f->name, &num))
                return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: umap.config: %s is not a number", f->name);
            if (!umap_config_field_accepts(f, num)) {
                umap__field_refusal(f, num, why, sizeof why);
                return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: umap.config: %s", why);
            }
            if ((f->flags & UMAP_FIELD_AUTO) && num == UMAP_AUTO) /* fit resolves it, and saves what ran */
                return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: umap.config: %s = %d: a model holds the "
                                     "value its fit ran with, never UMAP_AUTO", f->name, UMAP_AUTO);
            umap__field_set(f, &c, num); /* a float row's number rounds to the float it accepted */
        }
        /* a file from before refine_attraction (0.11): its fit and placement pulled with weight 1 */
        if (c.refine_attraction == UMAP_AUTO) c.refine_attraction = 1.0f;
        /* a file from before disconnection_distance (0.19): no edge was dropped */
        if (c.disconnection_distance == UMAP_AUTO) c.disconnection_distance = 0.0f;
        if (umap__json_string(json, "seed", key, sizeof key)) {
            uint64_t sd;
            if (!umap__mf_parse_u64(key, ~(uint64_t)0, &sd))
                return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: umap.config: seed is not a u64");
            c.seed = sd;
        }
    }
    if (meta[UMAP__MK_INPUT]) { /* "graph": the rows are a sparse graph of distances (umap__graph_input) */
        const char *in = meta[UMAP__MK_INPUT];
        if (strcmp(in, "graph") != 0 && strcmp(in, "rows") != 0)
            return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: umap.input is '%s', not 'rows' or 'graph'",
                                 umap__mf_show(shown, in, strlen(in)));
        graph_input = !strcmp(in, "graph");
        if (graph_input && (c.metric != UMAP_METRIC_PRECOMPUTED || in_dims < 1 || kept_x || kept_s ||
                            umap__mf_tensor_get(mf, "decoder.0.weight")))
            return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: umap.input 'graph' needs metric precomputed, "
                                 "an input projection (umap.input_dims >= 1), no kept rows and no decoder");
    }
    if (kept_x && kept_s)
        return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT,
                             "model: tensors 'train.data' and 'train.sketch': a model keeps its rows or their sketch");
    if (!kept && kept_y && c.metric == UMAP_METRIC_PRECOMPUTED) { /* the places alone: new rows bring the distances */
        if (meta[UMAP__MK_N_KEPT] || kept_g)
            return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: a precomputed model keeps every training row's "
                                 "place and nothing else: no umap.n_kept, no 'train.knn'");
        kept = UMAP__KEEP_PLACES;
    }
    if (!kept != !kept_y)
        return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT,
                             "model: tensor '%s' without '%s': a model that keeps its training data keeps both the "
                             "rows (or their sketch) and their embedding",
                             kept_x ? "train.data" : kept_s ? "train.sketch" : "train.embedding",
                             kept ? "train.embedding" : "train.data");
    if (kept_a && kept != UMAP_KEEP_SKETCH)
        return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT,
                             "model: tensor 'train.sketch_axes' without 'train.sketch': the axes are the sketch's");
    if (kept_a) {
        if (kept_a->rank != 2 || kept_a->dim[1] < 1 || kept_a->dim[1] > (int64_t)n_features)
            return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT,
                                 "model: tensor 'train.sketch_axes' must be [umap.n_features, w] with 1 <= w <= "
                                 "umap.n_features");
        sketch_dims = (int)kept_a->dim[1];
    }
    if (kept == UMAP_KEEP_SKETCH && c.metric != UMAP_METRIC_EUCLIDEAN)
        return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT,
                             "model: tensor 'train.sketch' with metric %s: a sketch is searched by euclidean distance",
                             umap_metric_name(c.metric));
    n_kept = n_train; /* every row, unless the file says it kept a sample */
    if (meta[UMAP__MK_N_KEPT] &&
        (!umap__mf_parse_u64(meta[UMAP__MK_N_KEPT], (uint64_t)1 << 40, &n_kept) || !kept ||
         n_kept < 1 || n_kept > n_train))
        return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT,
                             "model: umap.n_kept = %s: need kept training data and 1 .. umap.n_train (%llu) rows",
                             umap__mf_show(shown, meta[UMAP__MK_N_KEPT], strlen(meta[UMAP__MK_N_KEPT])),
                             (unsigned long long)n_train);
    if (kept) {
        if (n_kept < 1 || n_kept > 2147483647 / 2)
            return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT,
                                 "model: %llu kept training rows: need 1 .. 2^30 rows (as fit)",
                                 (unsigned long long)n_kept);
        if (kept_g) { /* as wide as fit makes it: fewer columns than kept rows */
            if (kept_g->rank != 2 || kept_g->dim[1] < 1 || kept_g->dim[1] >= (int64_t)n_kept)
                return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT,
                                     "model: tensor 'train.knn' must be [kept rows, k] with 1 <= k < kept rows");
            knn_k = (int)kept_g->dim[1];
        }
        /* a new row's neighbours are among the kept rows: a file cannot ask
           transform for more of them than it holds */
        if ((uint64_t)c.n_neighbors > n_kept)
            return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT,
                                 "model: umap.config: n_neighbors = %d but the model keeps %llu rows: need "
                                 "n_neighbors <= kept rows", c.n_neighbors, (unsigned long long)n_kept);
    }
    /* a decoder is there when its tensors are; then, and only then, the
       config says how many passes trained it */
    c.decoder_epochs = 0;
    if (umap__mf_tensor_get(mf, "decoder.0.weight")) {
        if (!umap__json_number(json, "decoder_epochs", &num) || !(num >= 1 && num <= 100000 && num == floor(num)))
            return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: tensor 'decoder.0.weight' but umap.config's "
                                 "decoder_epochs is %s: a model with a decoder says how many passes (1..100000) "
                                 "trained it", umap__json_number(json, "decoder_epochs", &num) ? "out of range" : "missing");
        c.decoder_epochs = (int)num;
    }
    /* the shapes in the file decide the network */
    c.n_components = (int)n_comp;
    c.keep_data = kept == UMAP__KEEP_PLACES ? UMAP_KEEP_ROWS : kept;
    c.keep_sample = kept && n_kept < n_train ? (int)n_kept : 0;
    c.n_hidden = n_hidden;
    for (l = 0; l < n_hidden; l++) c.hidden[l] = widths[l];
    c.input_dims = (int)in_dims;
    c.a = (float)av;
    c.b = (float)bv;
    {   /* and every rule fit holds its config to, on the rows it had: what
           loads is what fit accepts */
        char why[400];
        if (umap__config_rules(&c, (int64_t)n_train, (int64_t)n_features, 0, why, sizeof why) != UMAP_OK)
            return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: umap.config: %s", why);
    }
    { /* every tensor's shape before any allocation: sizes are then bounded by the file's */
        int64_t w[UMAP_MAX_HIDDEN + 2];
        int n_layers = n_hidden + 1;
        w[0] = in_dims ? (int64_t)in_dims : (int64_t)n_features;
        for (l = 0; l < n_hidden; l++) w[l + 1] = widths[l];
        w[n_layers] = (int64_t)n_comp;
        expected = umap__model_tensors(w, n_layers, (int64_t)n_features, (int64_t)in_dims, graph_input, (int64_t)n_kept, kept,
                                       knn_k, sketch_dims, c.decoder_epochs > 0, c.metric == UMAP_METRIC_SEUCLIDEAN,
                                       NULL, want);
        if (mf->n_tensors != expected)
            return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT,
                                   "model: %d tensors, but umap.hidden, umap.input_dims, the kept training data, "
                                   "the decoder (decoder_epochs) and the metric call for %d", mf->n_tensors, expected);
        for (i = 0; i < expected; i++) {
            const umap__mf_tensor *t = umap__mf_tensor_get(mf, want[i].name);
            int rank = want[i].rank;
            if (!t || t->rank != rank || t->dim[0] != want[i].dim[0] || (rank == 2 && t->dim[1] != want[i].dim[1]))
                return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: tensor '%s' is %s; expected shape [%lld%s%lld]",
                                       want[i].name, t ? "of another shape" : "missing", (long long)want[i].dim[0],
                                       rank == 2 ? "," : "", rank == 2 ? (long long)want[i].dim[1] : 0LL);
            if (t->i32 != want[i].i32)
                return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: tensor '%s' is %s; expected %s", want[i].name,
                                     t->i32 ? "I32" : "F32", want[i].i32 ? "I32" : "F32");
        }
    }
    if ((r = umap__model_alloc(a, &c, (int64_t)n_train, (int64_t)n_features, &m)) != UMAP_OK)
        return umap__mf_fail(detail, ds, r, "model: out of memory");
    m->a = (float)av;
    m->b = (float)bv;
    m->graph_input = graph_input;
    if (kept) { /* sizes bounded by the file's own (the shapes are checked above) */
        size_t bx, by;
        float **rows = kept == UMAP_KEEP_SKETCH ? &m->train_sketch : &m->train_data;
        m->sketch_dims = sketch_dims ? sketch_dims : m->width[0];
        m->n_kept = (int64_t)n_kept;
        if (!umap__bytes2(m->n_kept, kept == UMAP_KEEP_SKETCH ? m->sketch_dims : m->n_features, sizeof(float), &bx) ||
            !umap__bytes2(m->n_kept, m->n_components, sizeof(float), &by) ||
            (kept != UMAP__KEEP_PLACES && !(*rows = (float *)umap__alloc(a, bx))) ||
            !(m->kept_embedding = (float *)umap__alloc(a, by)) ||
            (sketch_dims && !(m->sketch_axes = (float *)umap__alloc(a, (size_t)m->n_features * (size_t)sketch_dims *
                                                                       sizeof(float)))) ||
            (knn_k && !(m->train_knn = (int32_t *)umap__alloc(a, (size_t)m->n_kept * (size_t)knn_k * sizeof(int32_t))))) {
            umap_model_free(m);
            return umap__mf_fail(detail, ds, UMAP_ERR_OUT_OF_MEMORY, "model: out of memory for the kept training data");
        }
        m->train_knn_k = knn_k;
        if (m->n_kept == m->n_train) m->embedding = m->kept_embedding; /* every row's place: the training embedding */
    }
    {   /* the same list, now pointing into the model */
        int64_t w[UMAP_MAX_HIDDEN + 2];
        for (l = 0; l <= m->n_layers; l++) w[l] = m->width[l];
        umap__model_tensors(w, m->n_layers, m->n_features, m->proj ? m->proj_dims : 0, m->graph_input, m->n_kept, kept, knn_k,
                            sketch_dims, m->dec_params != NULL, m->metric_v != NULL, m, want);
    }
    for (i = 0; i < expected; i++) {
        const umap__mf_tensor *t = umap__mf_tensor_get(mf, want[i].name); /* checked above */
        float *dst = want[i].data;
        k = want[i].rank == 2 ? want[i].dim[0] * want[i].dim[1] : want[i].dim[0];
        for (j = 0; want[i].i32 && j < k; j++) { /* the k-NN graph: other training rows, or -1 for none
                                                     (an entry the disconnection distance dropped) */
            int32_t v;
            memcpy(&v, t->data + j, sizeof v);
            if (v < -1 || (int64_t)v >= m->n_kept || (int64_t)v == j / want[i].dim[1]) {
                int64_t rows = m->n_kept;
                umap_model_free(m);
                return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT,
                                     "model: tensor 'train.knn' row %lld lists %ld (need another row in 0..%lld, or -1 for none)",
                                     (long long)(j / want[i].dim[1]), (long)v, (long long)rows - 1);
            }
        }
        for (j = 0; !want[i].i32 && j < k; j++) {
            float v = t->data[j];
            int is_std = dst == m->std;
            if (!(v - v == 0.0f) || (is_std && !umap__std_usable(v))) {
                umap_model_free(m);
                return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: tensor '%s' element %lld is %g%s", want[i].name,
                                       (long long)j, v, is_std ? " (a std must be a finite normal float > 0)" : " (must be finite)");
            }
        }
        memcpy(dst, t->data, (size_t)k * sizeof(float));
    }
    if (m->metric_v) { /* as fit holds them */
        char why[256] = "";
        umap__err e;
        memset(&e, 0, sizeof e);
        e.detail = why;
        e.size = sizeof why;
        if (umap__metric_v_check(&e, m->metric_v, m->n_features) != UMAP_OK) {
            umap_model_free(m);
            return umap__mf_fail(detail, ds, UMAP_ERR_FORMAT, "model: tensor 'metric.v': %s", why);
        }
    }
    for (j = 0; j < m->n_features; j++) m->inv_std[j] = 1.0f / m->std[j];
    if ((r = umap__model_index(m, NULL, detail, ds)) != UMAP_OK) {
        umap_model_free(m);
        return r;
    }
    *out = m;
    return UMAP_OK;
}

UMAP__FN umap_result umap_load_memory(const void *bytes, size_t size, const umap_allocator *allocator,
                                      umap_model **out, char *detail, size_t detail_size) {
    umap_allocator a;
    umap__mf mf;
    umap_result r;
    if (detail && detail_size) detail[0] = 0;
    if (!out) return UMAP_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!bytes && size) return UMAP_ERR_INVALID_ARGUMENT;
    memset(&a, 0, sizeof a);
    if (allocator) a = *allocator;
    if ((r = umap__mf_parse(&a, (const unsigned char *)bytes, size, &mf, detail, detail_size)) != UMAP_OK) return r;
    r = umap__model_from_mf(&a, &mf, out, detail, detail_size);
    umap__mf_free(&a, &mf);
    return r;
}

/* an open file's size in bytes, or -1 (errno says why); Windows' ftell
   stops at 2 GiB, its long being 32 bits */
static int64_t umap__file_size(FILE *f) {
    int64_t n;
#if defined(_WIN32)
    if (_fseeki64(f, 0, SEEK_END) != 0 || (n = _ftelli64(f)) < 0 || _fseeki64(f, 0, SEEK_SET) != 0) return -1;
#else
    long end;
    if (fseek(f, 0, SEEK_END) != 0 || (end = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) return -1;
    n = end;
#endif
    return n;
}

UMAP__FN umap_result umap_load(const char *path, umap_model **out, char *detail, size_t detail_size) {
    FILE *f;
    int64_t size;
    unsigned char *buf;
    umap_allocator a;
    umap_result r;
    if (detail && detail_size) detail[0] = 0;
    if (!out) return UMAP_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!path) return UMAP_ERR_INVALID_ARGUMENT;
    { /* fopen opens a directory for reading, and its size means nothing */
        struct stat st;
        if (stat(path, &st) == 0 && UMAP__IS_DIR(st.st_mode))
            return umap__mf_fail(detail, detail_size, UMAP_ERR_IO, "%s: %s", path, strerror(EISDIR));
    }
    if (!(f = fopen(path, "rb")))
        return umap__mf_fail(detail, detail_size, UMAP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if ((size = umap__file_size(f)) < 0) {
        int e = errno;
        fclose(f);
        return umap__mf_fail(detail, detail_size, UMAP_ERR_IO, "%s: cannot seek: %s", path, strerror(e));
    }
    if ((uint64_t)size >= SIZE_MAX / 2) { /* a 32-bit machine */
        fclose(f);
        return umap__mf_fail(detail, detail_size, UMAP_ERR_TOO_LARGE, "%s: %lld bytes: more than this machine can address",
                             path, (long long)size);
    }
    memset(&a, 0, sizeof a);
    if (!(buf = (unsigned char *)umap__alloc(&a, (size_t)size + 1))) {
        fclose(f);
        return umap__mf_fail(detail, detail_size, UMAP_ERR_OUT_OF_MEMORY, "%s: %lld bytes: out of memory", path,
                             (long long)size);
    }
    if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
        int e = ferror(f) ? errno : 0;
        fclose(f);
        umap__free(&a, buf);
        return umap__mf_fail(detail, detail_size, UMAP_ERR_IO, "%s: %s", path,
                             e ? strerror(e) : "shorter than its size said (changed while read?)");
    }
    fclose(f);
    r = umap_load_memory(buf, (size_t)size, NULL, out, detail, detail_size);
    umap__free(&a, buf);
    return r;
}

/* >>quality ----------------------------------------------------------------- */

/* k nearest of each query among all rows, the query itself left out: asks
   for k + 1 and drops the query's own index (or the last one, when
   duplicates pushed it out). */
static umap_result umap__knn_without_self(const umap_knn_desc *kd, const float *base, int64_t n, int64_t dim,
                                          const float *queries, const int64_t *qrow, int64_t m, int k,
                                          int32_t *out, const umap_allocator *a) {
    int32_t *tmp = (int32_t *)umap__alloc(a, (size_t)(m * (k + 1)) * sizeof(int32_t));
    umap_knn_desc d = *kd;
    int64_t i;
    int j, o;
    umap_result r;
    if (!tmp) return UMAP_ERR_OUT_OF_MEMORY;
    d.k = k + 1;
    r = umap_knn_query(&d, base, n, queries, m, dim, tmp, NULL);
    for (i = 0; r == UMAP_OK && i < m; i++)
        for (j = 0, o = 0; j <= k && o < k; j++)
            if (tmp[i * (k + 1) + j] != qrow[i]) out[i * k + o++] = tmp[i * (k + 1) + j];
    umap__free(a, tmp);
    return r;
}

typedef struct umap__trust_ctx {
    const float *dots;       /* rows x n block of query . row products */
    const float *norm2;      /* |x_l|^2 (euclidean) or |x_l| (cosine) for every row */
    const float *qnorm2;
    const int64_t *qrow;
    const int32_t *high, *low;
    int64_t n, q0;
    int k, cosine;
    double *penalty;         /* per query: sum over intruders of (rank - k) */
    /* metrics other than euclidean and cosine: distances by the metric's
       own kernel on its working copy (screen values rank as distances do) */
    int direct;
    umap__mcall m;
    const float *work, *wq;  /* all rows, the queries (working copies) */
    int64_t d;
    const float *given;      /* precomputed: the queries' rows are their distances */
} umap__trust_ctx;

static void umap__trust_rows(void *vctx, int64_t begin, int64_t end) {
    const umap__trust_ctx *c = (const umap__trust_ctx *)vctx;
    int64_t r, l;
    int j, h;
    for (r = begin; r < end; r++) {
        int64_t q = c->q0 + r, self = c->qrow[q];
        float *dist = (float *)c->dots + r * c->n; /* this task's row: dot products become distances */
        double pen = 0.0;
        if (c->given) {
            memcpy(dist, c->given + q * c->n, (size_t)c->n * sizeof(float));
        } else if (c->direct) {
            for (l = 0; l < c->n; l++) dist[l] = umap__mcall_screen(&c->m, c->wq + q * c->d, c->work + l * c->d, c->d);
        } else if (c->cosine) {
            for (l = 0; l < c->n; l++) {
                float nn = c->norm2[l] * c->qnorm2[q];
                dist[l] = 1.0f - dist[l] / (nn > 0 ? nn : 1.0f);
            }
        } else {
            for (l = 0; l < c->n; l++) dist[l] = c->norm2[l] + c->qnorm2[q] - 2.0f * dist[l];
        }
        for (j = 0; j < c->k; j++) {
            int32_t t = c->low[q * c->k + j];
            int in_high = 0;
            float dt = dist[t];
            int64_t rank = 1;
            for (h = 0; h < c->k && !in_high; h++) in_high = c->high[q * c->k + h] == t;
            if (in_high) continue;
            /* rank = 1 + #{l != self: d_l < d_t, or d_l == d_t and l < t} */
            for (l = 0; l < c->n; l++) rank += dist[l] < dt;
            for (l = 0; l < t; l++) rank += dist[l] == dt;
            if (dist[self] < dt || (dist[self] == dt && self < t)) rank--;
            pen += (double)(rank - c->k);
        }
        c->penalty[q] = pen;
    }
}

/* The ranks of given rows by distance, for trustworthiness on sparse rows
   (umap_quality_eval_rows, on umap_knn.h's sparse search): for query row
   qrow[t] of x and each of its k targets, 1 + the number of rows (the
   query aside) strictly nearer, or as near with a smaller index. The shared-column sums bound every row;
   only the rows whose bounds overlap a target's are measured, in double
   (umap__sp_md, the exact search's measure). */
typedef struct umap__sp_rank_ctx {
    umap__sp_search *s;
    const int64_t *qrow;
    const int32_t *targets;
    int64_t m, *ranks;
    double *meas; /* per slot: n measured distances (NaN: not yet), n lower and n upper bounds */
} umap__sp_rank_ctx;

static void umap__sp_rank_task(void *ctx, int64_t slot) {
    umap__sp_rank_ctx *c = (umap__sp_rank_ctx *)ctx;
    umap__sp_search *s = c->s;
    const umap__sp_rows *x = s->b;
    double *acc = s->acc + slot * 2 * x->n, *acc2 = acc + x->n;
    double *meas = c->meas + slot * 3 * x->n, *lo = meas + x->n, *hi = lo + x->n;
    int64_t t0 = s->row0 + slot * s->rows_per_task, t1 = t0 + s->rows_per_task, t, l;
    int j, k = s->k;
    umap_metric metric = s->o->metric;
    if (t1 > c->m) t1 = c->m;
    for (t = t0; t < t1; t++) {
        int64_t qi = c->qrow[t];
        umap__sp_accumulate(s, slot, qi);
        for (l = 0; l < x->n; l++) {
            umap__sp_bound(s, qi, l, acc, &lo[l], &hi[l]);
            meas[l] = NAN;
        }
        for (j = 0; j < k; j++) {
            int64_t tj = c->targets[t * k + j], rank = 1;
            double d_t = meas[tj] = umap__sp_md(metric, s->p, x, qi, x, tj);
            for (l = 0; l < x->n; l++) {
                if (l == qi) continue;
                if (hi[l] < lo[tj]) { rank++; continue; } /* certainly nearer */
                if (lo[l] > hi[tj]) continue;             /* certainly farther */
                if (meas[l] != meas[l]) meas[l] = umap__sp_md(metric, s->p, x, qi, x, l);
                rank += meas[l] < d_t || (meas[l] == d_t && l < tj);
            }
            c->ranks[t * k + j] = rank;
        }
        for (l = 0; l < x->n; l++) acc[l] = acc2[l] = 0.0;
    }
}

static umap_result umap__sp_target_ranks(const umap_knn_desc *desc, const umap_rows *x, const int64_t *qrow,
                                         int64_t m, const int32_t *targets, int k, int64_t *ranks) {
    umap__knn_opts o;
    umap_knn_info scratch;
    umap_pool *pool = NULL;
    umap__sp_rows w;
    umap__sp_search s;
    umap__sp_rank_ctx c;
    double *col_w = NULL;
    float maxabs = 0.0f;
    int64_t wave;
    size_t bytes;
    umap_result r;
    memset(&w, 0, sizeof w);
    memset(&s, 0, sizeof s);
    memset(&c, 0, sizeof c);
    umap__knn_resolve(desc, &scratch, &o);
    if ((r = umap__knn_check_common(&o)) != UMAP_OK) return r;
    if ((r = umap__knn_begin(&o, &pool)) != UMAP_OK) return r;
    if ((r = umap__csr_check(&o, "data", x, &maxabs)) != UMAP_OK || (r = umap__sp_columns(&o, x, &col_w)) != UMAP_OK ||
        (r = umap__sp_prepare(&o, pool, x, umap__knn_scale_exponent(&o, maxabs), &w)) != UMAP_OK ||
        (r = umap__sp_search_begin(&s, &o, pool, &w, &w, 1, k)) != UMAP_OK)
        goto done;
    if (!umap__bytes2(s.slots, 3 * x->n, sizeof(double), &bytes)) {
        r = umap__fail(&o.err, UMAP_ERR_TOO_LARGE, "quality: %lld rows overflow the address space", (long long)x->n);
        goto done;
    }
    if (!(c.meas = (double *)umap__alloc(&o.alloc, bytes))) {
        r = umap__fail(&o.err, UMAP_ERR_OUT_OF_MEMORY, "quality: out of memory for the sparse rows' distances");
        goto done;
    }
    c.s = &s; c.qrow = qrow; c.targets = targets; c.m = m; c.ranks = ranks;
    wave = s.slots * s.rows_per_task;
    for (s.row0 = 0; s.row0 < m; s.row0 += wave) {
        int64_t tasks = (m - s.row0 + s.rows_per_task - 1) / s.rows_per_task;
        umap_pool_for(pool, tasks < s.slots ? tasks : s.slots, umap__sp_rank_task, &c);
    }
done:
    if (s.o) umap__sp_search_end(&s);
    umap__free(&o.alloc, c.meas);
    umap__sp_rows_free(&o.alloc, &w);
    umap__free(&o.alloc, col_w);
    if (pool != o.pool) umap_pool_free(pool);
    return r;
}

/* the scores from the two sides' k-NN of the m query rows (qrow) and each
   query's trustworthiness penalty (the sum over its low-dimensional
   neighbours missing from its high-dimensional ones of rank - k):
   recall, trustworthiness, and the leave-one-out k-NN classifier
   (majority vote, ties to the nearest) */
static void umap__quality_scores(int64_t n, int64_t m, int k, int ck, const int64_t *qrow, const int32_t *high,
                                 const int32_t *low, const int32_t *cls, const int32_t *labels, const double *pen,
                                 umap_quality *out) {
    double sum = 0.0;
    int64_t i, j, h;
    for (i = 0; i < m; i++)
        for (j = 0; j < k; j++)
            for (h = 0; h < k; h++) sum += low[i * k + j] == high[i * k + h];
    out->knn_recall = sum / ((double)m * k);
    sum = 0.0;
    for (i = 0; i < m; i++) sum += pen[i];
    out->trustworthiness = 1.0 - 2.0 / ((double)m * k * (2.0 * n - 3.0 * k - 1.0)) * sum;
    if (labels) {
        int64_t correct = 0;
        for (i = 0; i < m; i++) {
            int best = 0, best_count = 0, l;
            for (l = 0; l < ck; l++) {
                int cnt = 0;
                for (h = 0; h < ck; h++) cnt += labels[cls[i * ck + h]] == labels[cls[i * ck + l]];
                if (cnt > best_count) { best_count = cnt; best = l; }
            }
            correct += labels[cls[i * ck + best]] == labels[qrow[i]];
        }
        out->knn_accuracy = (double)correct / (double)m;
    }
}

UMAP__FN umap_result umap_quality_eval(const umap_quality_desc *desc, const float *data, int64_t n, int64_t d,
                                       const float *emb, int dim, const int32_t *labels, umap_quality *out) {
    umap_quality_desc qd;
    umap_allocator a;
    umap_pool *pool = NULL;
    umap_knn_desc kd;
    int64_t m, i, q0, blk = 128, j;
    int k, ck;
    int64_t *qrow = NULL;
    float *xq = NULL, *yq = NULL, *dots = NULL, *norm = NULL, *qnorm = NULL, *ws = NULL, *work = NULL, *wq = NULL;
    double *col_w = NULL;
    int direct;
    int32_t *high = NULL, *low = NULL, *cls = NULL;
    double *pen = NULL;
    umap_result r = UMAP_ERR_OUT_OF_MEMORY;
    if (!data || !emb || !out || n <= 0 || d <= 0 || dim <= 0) return UMAP_ERR_INVALID_ARGUMENT;
    memset(&qd, 0, sizeof qd);
    if (desc) qd = *desc;
    k = qd.k ? qd.k : 15;
    ck = qd.classifier_k ? qd.classifier_k : 10;
    if (n > 2147483647) return UMAP_ERR_TOO_LARGE; /* rows are int32 indices; 2 * n below stays an int64 */
    if (k < 1 || ck < 1 || k >= n || ck >= n || qd.n_queries < 0 || 2 * n - 3 * (int64_t)k - 1 <= 0)
        return UMAP_ERR_INVALID_ARGUMENT;
    m = qd.n_queries && qd.n_queries < n ? qd.n_queries : n;
    {   /* every product below sizes a buffer or bounds a row: checked
           before the first allocation, with the k-NN's limit of 2^40
           elements for each side's data */
        size_t bytes;
        int64_t kk = (k > ck ? k : ck) + 1, nd, ndim;
        if (!umap__mul_le(n, d, (int64_t)1 << 40, &nd) || !umap__bytes(nd, sizeof(float), &bytes) ||
            !umap__mul_le(n, dim, (int64_t)1 << 40, &ndim) || !umap__bytes(ndim, sizeof(float), &bytes) ||
            !umap__bytes2(m, kk, sizeof(int32_t), &bytes) || !umap__bytes2(blk, n, sizeof(float), &bytes))
            return UMAP_ERR_TOO_LARGE;
    }
    memset(&a, 0, sizeof a);
    out->trustworthiness = out->knn_recall = 0.0;
    out->knn_accuracy = -1.0;
    if ((r = umap_pool_create(qd.n_threads, &a, &pool)) != UMAP_OK) return r;
    r = UMAP_ERR_OUT_OF_MEMORY;
    qrow = (int64_t *)umap__alloc(&a, (size_t)m * sizeof(int64_t));
    xq = (float *)umap__alloc(&a, (size_t)(m * d) * sizeof(float));
    yq = (float *)umap__alloc(&a, (size_t)(m * dim) * sizeof(float));
    high = (int32_t *)umap__alloc(&a, (size_t)(m * k) * sizeof(int32_t));
    low = (int32_t *)umap__alloc(&a, (size_t)(m * k) * sizeof(int32_t));
    cls = (int32_t *)umap__alloc(&a, (size_t)(m * ck) * sizeof(int32_t));
    pen = (double *)umap__alloc(&a, (size_t)m * sizeof(double));
    dots = (float *)umap__alloc(&a, (size_t)(blk * n) * sizeof(float));
    norm = (float *)umap__alloc(&a, (size_t)n * sizeof(float));
    qnorm = (float *)umap__alloc(&a, (size_t)m * sizeof(float));
    if (!qrow || !xq || !yq || !high || !low || !cls || !pen || !dots || !norm || !qnorm) goto done;
    if (umap__gemm_portable(blk, n, d) && !(ws = (float *)umap__alloc(&a, (size_t)umap__gemm_workspace(n, d) * sizeof(float))))
        goto done;
    for (i = 0; i < m; i++) {
        qrow[i] = i * n / m;
        memcpy(xq + i * d, data + qrow[i] * d, (size_t)d * sizeof(float));
        memcpy(yq + i * dim, emb + qrow[i] * dim, (size_t)dim * sizeof(float));
    }
    memset(&kd, 0, sizeof kd);
    kd.pool = pool;
    kd.metric = qd.metric;
    kd.metric_p = qd.metric_p;
    kd.metric_v = qd.metric_v;
    kd.metric_fn = qd.metric_fn;
    kd.metric_user_data = qd.metric_user_data;
    if ((r = umap__knn_without_self(&kd, data, n, d, xq, qrow, m, k, high, &a)) != UMAP_OK) goto done;
    /* the metric and p passed the search's checks above */
    direct = qd.metric != UMAP_METRIC_EUCLIDEAN && qd.metric != UMAP_METRIC_COSINE && qd.metric != UMAP_METRIC_PRECOMPUTED;
    if (direct) { /* the search's working copy (centred, scaled, ...) */
        umap__knn_opts o;
        umap_knn_info scratch;
        float maxabs = 0.0f;
        umap__knn_resolve(&kd, &scratch, &o);
        for (i = 0; i < n * d; i++) maxabs = fabsf(data[i]) > maxabs ? fabsf(data[i]) : maxabs;
        if ((r = umap__knn_columns(&o, data, n, d, &col_w)) != UMAP_OK ||
            (r = umap__knn_prepare(&o, pool, data, n, d, umap__knn_scale_exponent(&o, maxabs), &work)) != UMAP_OK)
            goto done;
        r = UMAP_ERR_OUT_OF_MEMORY;
        if (!(wq = (float *)umap__alloc(&a, (size_t)(m * d) * sizeof(float)))) goto done;
        for (i = 0; i < m; i++) memcpy(wq + i * d, (work ? work : data) + qrow[i] * d, (size_t)d * sizeof(float));
    }
    kd.metric = UMAP_METRIC_EUCLIDEAN;
    kd.metric_p = 0.0f;
    kd.metric_v = NULL;
    kd.metric_fn = NULL;
    if ((r = umap__knn_without_self(&kd, emb, n, dim, yq, qrow, m, k, low, &a)) != UMAP_OK) goto done;
    if (labels && (r = umap__knn_without_self(&kd, emb, n, dim, yq, qrow, m, ck, cls, &a)) != UMAP_OK) goto done;
    /* trustworthiness: ranks of the low-dimensional intruders in the data */
    for (i = 0; i < n; i++) {
        double s2 = 0.0;
        for (j = 0; j < d; j++) s2 += (double)data[i * d + j] * data[i * d + j];
        norm[i] = (float)(qd.metric == UMAP_METRIC_COSINE ? sqrt(s2) : s2);
    }
    for (i = 0; i < m; i++) qnorm[i] = norm[qrow[i]];
    for (q0 = 0; q0 < m; q0 += blk) {
        umap__trust_ctx rc;
        int64_t rows = m - q0 < blk ? m - q0 : blk;
        memset(&rc, 0, sizeof rc);
        if (qd.metric == UMAP_METRIC_PRECOMPUTED) {
            rc.given = xq; /* the search above checked it is n x n */
        } else if (direct) {
            rc.direct = 1;
            rc.m = umap__mcall_make(qd.metric, qd.metric_p != 0.0f ? qd.metric_p : 2.0f, qd.metric_fn, qd.metric_user_data);
            rc.work = work ? work : data; rc.wq = wq; rc.d = d;
        } else
            umap__sgemm(pool, 0, 1, rows, n, d, xq + q0 * d, data, dots, ws);
        rc.dots = dots; rc.norm2 = norm; rc.qnorm2 = qnorm; rc.qrow = qrow; rc.high = high; rc.low = low;
        rc.n = n; rc.q0 = q0; rc.k = k; rc.cosine = qd.metric == UMAP_METRIC_COSINE; rc.penalty = pen;
        umap__parallel_range(pool, rows, 1, umap__trust_rows, &rc);
    }
    umap__quality_scores(n, m, k, ck, qrow, high, low, cls, labels, pen, out);
    r = UMAP_OK;
done:
    umap__free(&a, qrow); umap__free(&a, xq); umap__free(&a, yq); umap__free(&a, high); umap__free(&a, low);
    umap__free(&a, cls); umap__free(&a, pen); umap__free(&a, dots); umap__free(&a, norm); umap__free(&a, qnorm);
    umap__free(&a, ws); umap__free(&a, work); umap__free(&a, wq); umap__free(&a, col_w);
    umap_pool_free(pool);
    return r;
}

UMAP__FN umap_result umap_quality_eval_rows(const umap_quality_desc *desc, const umap_rows *data,
                                            const float *emb, int dim, const int32_t *labels, umap_quality *out) {
    umap_quality_desc qd;
    umap_allocator a;
    umap_pool *pool = NULL;
    umap_knn_desc kd;
    umap_rows qr;
    int64_t m, n, i, j, nnz = 0, *qrow = NULL, *qptr = NULL, *ranks = NULL;
    int k, ck, h;
    int32_t *high = NULL, *low = NULL, *cls = NULL, *tmp = NULL, *qidx = NULL;
    float *yq = NULL, *qval = NULL;
    double *pen = NULL;
    umap_result r;
    if (!data || !umap__rows_sparse(data))
        return data ? umap_quality_eval(desc, data->dense, data->n, data->dim, emb, dim, labels, out)
                    : UMAP_ERR_INVALID_ARGUMENT;
    n = data->n;
    if (!emb || !out || n <= 0 || data->dim <= 0 || dim <= 0 || !data->indptr) return UMAP_ERR_INVALID_ARGUMENT;
    memset(&qd, 0, sizeof qd);
    if (desc) qd = *desc;
    k = qd.k ? qd.k : 15;
    ck = qd.classifier_k ? qd.classifier_k : 10;
    if (n > 2147483647) return UMAP_ERR_TOO_LARGE;
    if (qd.metric == UMAP_METRIC_PRECOMPUTED) return UMAP_ERR_INVALID_ARGUMENT; /* ranks need every distance */
    if (k < 1 || ck < 1 || k >= n || ck >= n || qd.n_queries < 0 || 2 * n - 3 * (int64_t)k - 1 <= 0)
        return UMAP_ERR_INVALID_ARGUMENT;
    if (data->indptr[0] != 0 || data->indptr[n] < 0 || (data->indptr[n] > 0 && (!data->indices || !data->values)))
        return UMAP_ERR_INVALID_ARGUMENT; /* the k-NN below names any other defect */
    m = qd.n_queries && qd.n_queries < n ? qd.n_queries : n;
    {
        size_t bytes;
        int64_t ndim;
        if (!umap__mul_le(n, dim, (int64_t)1 << 40, &ndim) || !umap__bytes(ndim, sizeof(float), &bytes) ||
            !umap__bytes2(m, (k > ck ? k : ck) + 1, sizeof(int64_t), &bytes))
            return UMAP_ERR_TOO_LARGE;
    }
    memset(&a, 0, sizeof a);
    out->trustworthiness = out->knn_recall = 0.0;
    out->knn_accuracy = -1.0;
    if ((r = umap_pool_create(qd.n_threads, &a, &pool)) != UMAP_OK) return r;
    r = UMAP_ERR_OUT_OF_MEMORY;
    qrow = (int64_t *)umap__alloc(&a, (size_t)m * sizeof(int64_t));
    qptr = (int64_t *)umap__alloc(&a, (size_t)(m + 1) * sizeof(int64_t));
    yq = (float *)umap__alloc(&a, (size_t)(m * dim) * sizeof(float));
    high = (int32_t *)umap__alloc(&a, (size_t)(m * k) * sizeof(int32_t));
    low = (int32_t *)umap__alloc(&a, (size_t)(m * k) * sizeof(int32_t));
    cls = (int32_t *)umap__alloc(&a, (size_t)(m * ck) * sizeof(int32_t));
    tmp = (int32_t *)umap__alloc(&a, (size_t)(m * (k + 1)) * sizeof(int32_t));
    ranks = (int64_t *)umap__alloc(&a, (size_t)(m * k) * sizeof(int64_t));
    pen = (double *)umap__alloc(&a, (size_t)m * sizeof(double));
    if (!qrow || !qptr || !yq || !high || !low || !cls || !tmp || !ranks || !pen) goto done;
    /* the query rows: an evenly spaced subset, copied as a CSR of their own */
    qptr[0] = 0;
    for (i = 0; i < m; i++) {
        int64_t len;
        qrow[i] = i * n / m;
        len = data->indptr[qrow[i] + 1] - data->indptr[qrow[i]];
        if (len < 0 || len > data->dim) { r = UMAP_ERR_INVALID_ARGUMENT; goto done; }
        nnz += len;
        qptr[i + 1] = nnz;
        memcpy(yq + i * dim, emb + qrow[i] * dim, (size_t)dim * sizeof(float));
    }
    qidx = (int32_t *)umap__alloc(&a, (size_t)(nnz > 0 ? nnz : 1) * sizeof(int32_t));
    qval = (float *)umap__alloc(&a, (size_t)(nnz > 0 ? nnz : 1) * sizeof(float));
    if (!qidx || !qval) goto done;
    for (i = 0; i < m; i++) {
        int64_t b = data->indptr[qrow[i]], len = qptr[i + 1] - qptr[i];
        memcpy(qidx + qptr[i], data->indices + b, (size_t)len * sizeof(int32_t));
        memcpy(qval + qptr[i], data->values + b, (size_t)len * sizeof(float));
    }
    qr = umap_rows_csr(m, data->dim, qptr, qidx, qval);
    memset(&kd, 0, sizeof kd);
    kd.pool = pool;
    kd.metric = qd.metric;
    kd.metric_p = qd.metric_p;
    kd.metric_v = qd.metric_v;
    kd.metric_fn = qd.metric_fn;
    kd.metric_user_data = qd.metric_user_data;
    kd.k = k + 1;
    if ((r = umap_knn_query_rows(&kd, data, &qr, tmp, NULL)) != UMAP_OK) goto done;
    for (i = 0; i < m; i++) /* the query itself left out, as umap__knn_without_self does */
        for (j = 0, h = 0; j <= k && h < k; j++)
            if (tmp[i * (k + 1) + j] != qrow[i]) high[i * k + h++] = tmp[i * (k + 1) + j];
    kd.metric = UMAP_METRIC_EUCLIDEAN;
    kd.metric_p = 0.0f;
    kd.metric_v = NULL;
    kd.metric_fn = NULL;
    if ((r = umap__knn_without_self(&kd, emb, n, dim, yq, qrow, m, k, low, &a)) != UMAP_OK) goto done;
    if (labels && (r = umap__knn_without_self(&kd, emb, n, dim, yq, qrow, m, ck, cls, &a)) != UMAP_OK) goto done;
    kd.metric = qd.metric;
    kd.metric_p = qd.metric_p;
    kd.metric_v = qd.metric_v;
    kd.metric_fn = qd.metric_fn;
    kd.metric_user_data = qd.metric_user_data;
    if ((r = umap__sp_target_ranks(&kd, data, qrow, m, low, k, ranks)) != UMAP_OK) goto done;
    for (i = 0; i < m; i++) {
        double p = 0.0;
        for (j = 0; j < k; j++) {
            int in_high = 0;
            for (h = 0; h < k && !in_high; h++) in_high = high[i * k + h] == low[i * k + j];
            if (!in_high) p += (double)(ranks[i * k + j] - k);
        }
        pen[i] = p;
    }
    umap__quality_scores(n, m, k, ck, qrow, high, low, cls, labels, pen, out);
    r = UMAP_OK;
done:
    umap__free(&a, qrow); umap__free(&a, qptr); umap__free(&a, yq); umap__free(&a, high); umap__free(&a, low);
    umap__free(&a, cls); umap__free(&a, tmp); umap__free(&a, ranks); umap__free(&a, pen); umap__free(&a, qidx);
    umap__free(&a, qval);
    umap_pool_free(pool);
    return r;
}

#endif /* UMAP_COMPILER_ONLY */

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
