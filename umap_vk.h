/* umap_vk.h - the Vulkan side of umap.h: device, memory windows, compute
   kernels as embedded SPIR-V. Header-only C99/C++. MIT licence (see the end
   of this file).

   STATUS (read this first)
   ------------------------
   Done: the runtime (loader, device choice, the validation layer,
   pipelines from embedded SPIR-V); exact k-NN on the GPU (umap_vk_knn, data
   bound in windows); and the tensor compiler's backend (umap_vk_backend)
   in all three modes, with kernels for every op the UMAP training step
   uses, so umap_fit trains on the device with config.backend =
   umap_vk_backend(vk) (umap_vk_fit adds the GPU k-NN), and
   umap_vk_transform runs the encoder there.
   Resident programs and the k-NN's data live in device-local memory; on a
   discrete GPU they travel through a staging copy in cached host memory,
   elsewhere the host maps them directly when it can (desc.staging).
   Training keeps the weights on the device: umap_program_train_* (umap.h)
   runs Adam there (shaders/adam.comp), so a fit step moves only its batch
   indices in and its loss out. umap_vk_refiner(vk) runs fit's
   refinement there too (shaders/refine.comp: an invocation per row, the
   host's draws and arithmetic; embeddings of more than 8 components, or
   graphs larger than one binding, are refined on the host).
   umap_vk_calibrate measures a device against the CPU for `device auto`
   decisions; umap_vk_calibrate_cached keeps that in the tuning cache
   (umap.h's umap_tuner_load/save), so a device is measured once. A program larger than one binding runs in windows (see THE
   LIMIT ON ONE BINDING). docs/vulkan.md has what it measured on an H100;
   the k-NN's kernels are the part still short of their target.

   On Mesa's lavapipe (a CPU driver): it silently ends the loops of any one
   invocation after 65535 iterations in all. The k-NN therefore cuts its
   dispatches into short chunks there, and long reductions take a
   workgroup per output everywhere; a kernel loop that could still pass
   the limit on lavapipe: the clip norm of adam.comp past about 16 million
   weights, scatter-add whose indices come from the device (it scans all
   of them) past about 60,000 indices, and refine.comp on a row with more
   than about 3,000 edges.

   DO THIS
   -------
   In exactly one C or C++ file:

       #define UMAP_VULKAN
       #define UMAP_VK_IMPLEMENTATION      // brings UMAP_IMPLEMENTATION along
       #include "umap_vk.h"

   Everywhere else #define UMAP_VULKAN and #include "umap_vk.h". Build with
   the Vulkan headers (Debian: libvulkan-dev) and link as for umap.h; there is
   no -lvulkan: the loader (libvulkan.so.1, vulkan-1.dll, libvulkan.1.dylib)
   is opened at run time, so the program starts on a machine without Vulkan
   and umap_vk_create answers UMAP_ERR_NO_DEVICE there. On glibc older than
   2.34 add -ldl.

   Without UMAP_VULKAN nothing Vulkan is compiled: the functions below exist
   and return UMAP_ERR_NO_DEVICE ("built without UMAP_VULKAN"), so callers
   need no #ifdef of their own.

   QUICK START
   -----------
       umap_vk *vk;
       char why[256];
       if (umap_vk_create(NULL, &vk, why, sizeof why) != UMAP_OK) {
           printf("no GPU: %s\n", why);               // fall back to the CPU
       } else {
           umap_knn_desc d = {0};
           d.k = 15;
           umap_vk_knn(vk, &d, data, n, dim, indices, distances);
           umap_vk_free(vk);
       }

   CHOOSING THE DEVICE
   -------------------
   desc.pick = UMAP_VK_PICK_INDEX uses desc.index (the order of
   umap_vk_devices). Otherwise (auto) the environment variable UMAP_VK_DEVICE
   (an index) decides if set, else the first discrete GPU, then integrated,
   then virtual. CPU implementations (Mesa's lavapipe) are taken only when
   desc.allow_cpu is set or UMAP_VK_ALLOW_CPU=1, as the tests do.

   THE LIMIT ON ONE BINDING
   ------------------------
   Many devices bind at most maxStorageBufferRange bytes (often 128 MiB) of
   a buffer to one shader. Every tensor here is split into row windows that
   fit, and kernels run once per pair of windows, so the n x n distance
   matrix is never one buffer (it is never stored at all: each window pair
   is reduced to the running top-k lists). The compiler's programs keep
   their tensors in one buffer, and each step binds only the span its
   operands occupy; a step whose operands lie further apart than one
   binding copies them into a scratch area first and its result back
   after. Only a step whose own operands exceed one binding is refused
   (UMAP_ERR_TOO_LARGE). desc.max_binding_bytes lowers the limit to force
   many windows (the tests do).

   EXACT k-NN ON THE GPU
   ---------------------
   The GPU keeps, for every row, the L = min(n - 1, k + 16) nearest rows by
   squared distances summed in float; the host then re-ranks those L in
   double with the CPU's own distance (umap_knn.h) and proves the result:
   every non-listed row's float distance is at least the L-th one, and the
   float sum of non-negative terms is within a relative (d + 8) 2^-23 (plus
   a tiny absolute term for flushed denormals) of the true value, so when
   that lower bound exceeds the k-th re-ranked distance no other row can
   enter the top k. A row where it does not (large groups of duplicates)
   is searched again on the CPU against every row. So umap_vk_knn gives
   exactly umap_knn's exact result, bit for bit, ties by index. The host
   computes exact distances in the list's float order and stops at the
   first candidate whose lower bound exceeds the k-th exact distance so
   far, so it rarely needs the 16 spares.

   Between searches the context keeps its k-NN buffers while they total at
   most 64 MiB (UMAP_VK__KNN_KEEP_BYTES), and the proof's thread pool when
   desc.pool is not given, so repeated small searches skip their setup;
   umap_vk_free releases them.

   Results depend on the inputs only; a context is used by one thread at a
   time (two contexts in two threads are independent).

   THE COMPILER BACKEND
   --------------------
       umap_compile_desc cd = {0};
       cd.backend = umap_vk_backend(vk);          // or umap_config.backend
       umap_compile(g, n_out, outs, &cd, &prog);  // ops without a kernel fail here

   Modes (desc.mode, UMAP_VK_MODE=eager|lazy|compiled, or per compile with
   umap_vk_backend_mode):
     eager     every step uploads its inputs, runs, waits, reads its output
               back: for debugging.
     lazy      (the default) one device buffer holds the program's arena
               (the same liveness plan as on the CPU), a slot per bound input
               and constant, and the steps' kernel programs; a run copies the
               bound inputs in, records every step into ONE command buffer,
               submits once and copies the outputs out. With staging the
               copies are transfers recorded in that same command buffer.
     compiled  as lazy, but the command buffer is recorded once and
               re-submitted; per-run values (inputs, scatter lists, the Adam
               step's rate and bias corrections) live in the mapped buffer.
               Other work on the same context invalidates the recording,
               which is then made again.
   Training (umap_program_train_attach, lazy and compiled modes): the
   trained params, Adam's two moments and a small header live in the
   program's device buffer. A train step only writes the header; the next
   run's submission applies it first (a global-norm clip in one workgroup,
   then one thread per weight), so a training loop is one submission per
   step. umap_program_train_store copies the weights back into the bound
   buffers (fit does that once per epoch, to keep the best ones); eager
   mode trains the bound buffers on the host.
   Free programs before the context they were compiled for.

   A fused elementwise region is ONE dispatch of an interpreter kernel
   (shaders/ew_region.comp) that reads the region's loads and instruction
   list from a buffer, so fusion works with precompiled SPIR-V. matmul is
   register-blocked: 64 x 64 output tiles, 4 x 4 per thread, K through
   shared memory 16 at a time; products with fewer than 64 such tiles use
   16 x 16 tiles instead (more workgroups). sum/mean/max, the data movement ops
   (one strided-copy kernel) and gather / scatter-add have one kernel each.
   scatter-add sums each output row's sources in index order (the host lists
   them when the indices are a bound input or constant, else the kernel scans
   them), as the CPU does. Indices the host has are checked before the
   device runs, with the CPU's error. Outputs match the CPU's by normalised
   mean squared error (tests/test_vk.cc: every op, forward and backward, an
   MLP step, in every mode, twice with new inputs).

   KERNELS
   -------
   GLSL sources live in shaders/; `make shaders` compiles them with glslc,
   checks them with spirv-val and writes, at the end of this file between
   the generated markers (>>spirv, scripts/spirv_embed.c), each module's words
   and what the module itself says about its interface: its bindings and
   its push-constant block's size and member offsets. One table,
   UMAP_VK__KERNELS (>>context), names every kernel with its bindings; it
   generates the context's kernel fields, their creation, teardown and
   descriptor-set layouts. Each shader's push constants are a C struct,
   umap_vk__pc_SHADER, and >>layouts static-asserts the table and every
   struct against the modules, so a struct that disagrees with its shader
   (a member moved, resized, retyped or missing) fails the build. The op
   codes of the region interpreter (ew_region.comp) are umap_op's own
   values, written from UMAP_OP_LIST into a GLSL include by `make shaders`.
   `make check-shaders` (CI) fails when the committed arrays differ from
   what the sources and the op list give, and proves that a drifted struct
   fails the build (scripts/check_pc_layout.sh).

   ADDING A KERNEL
   ---------------
   An elementwise op needs no kernel of its own: its case in the apply()
   of shaders/ew_region.comp (the region interpreter), named OP_<ID> after
   its row in UMAP_OP_LIST. Any other kernel takes three things:
   1. shaders/NAME.comp with a `Params` push-constant block. The Makefile
      takes every .comp file of shaders/: `make shaders` embeds it as
      umap_vk__spv_NAME with its layout macros (UMAP_VK__BINDINGS_NAME,
      UMAP_VK__PC_SIZE_NAME, UMAP_VK__PC_MEMBERS_NAME).
   2. The C struct umap_vk__pc_NAME (>>context), member for member the
      GLSL block; the build fails until they agree.
   3. One row of UMAP_VK__KERNELS: its field in struct umap_vk, NAME, its
      storage buffers, plain (one pipeline) or not (specialised variants),
      and set (1: the resident modes bind it in every step's sets). The
      context then makes it with umap_vk__kernel_make(vk,
      UMAP_VK__KERNEL_NAME) (umap_vk__kernels makes every set = 1 row) and
      frees it; a dispatch fills d.push.NAME.
   For an op: its op in umap_vk__supports, and a case in umap_vk__encode
   that fills the dispatch (kernel, push constants, group counts; host-side
   lists through umap_vk__aux_words). Or, for an op that stays on the host,
   a row in UMAP_VK_CPU_ONLY_OPS.
   tests/test_op_table.cc runs every op of UMAP_OP_LIST on the device (and
   tests/test_vk.cc compares the ops with the CPU's): it fails for an op
   with neither a kernel nor a row.

   THE PIECES (search for the `>>` markers; in this order)
   ----------------------------------------------------------------
   >>novulkan     the entry points of a build without UMAP_VULKAN
   >>loader       the Vulkan functions, loaded at run time
   >>context      the kernel table, the push-constant structs, struct umap_vk
   >>validation   the validation layer's messages
   >>instance     loader, instance, physical devices
   >>device       choice, logical device, queue, command buffer
   >>memory       buffers, mapped or device-only
   >>kernels      modules, layouts, pipelines
   >>commands     the one command buffer of a context
   >>pipelines    the k-NN kernel's variants
   >>knn          exact k-NN: GPU screening, host proof
   >>backend      the tensor compiler's steps on the device
   >>eager        one step at a time
   >>resident     the lazy and compiled modes, training on the device
   >>refine       umap_fit's refinement on the device
   >>calibration  what --device auto measures
   >>spirv        the generated SPIR-V arrays and layout macros (do not edit)
   >>layouts      the kernel table's modules; its structs asserted against them
   (tests/test_manual.cc holds this list and the markers to each other)
*/
#ifndef UMAP_VK_H
#define UMAP_VK_H

#include "umap.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct umap_vk umap_vk;

typedef enum umap_vk_pick {
    UMAP_VK_PICK_AUTO,  /* UMAP_VK_DEVICE, else discrete > integrated > virtual (> CPU if allowed) */
    UMAP_VK_PICK_INDEX  /* desc.index */
} umap_vk_pick;

typedef enum umap_vk_device_type {
    UMAP_VK_DEVICE_OTHER,
    UMAP_VK_DEVICE_INTEGRATED,
    UMAP_VK_DEVICE_DISCRETE,
    UMAP_VK_DEVICE_VIRTUAL,
    UMAP_VK_DEVICE_CPU
} umap_vk_device_type;

/* How the compiler backend runs a program (see THE COMPILER BACKEND). */
typedef enum umap_vk_mode {
    UMAP_VK_MODE_DEFAULT,  /* UMAP_VK_MODE=eager|lazy|compiled if set, else lazy */
    UMAP_VK_EAGER,         /* each step: inputs up, one dispatch, wait, output down (debugging) */
    UMAP_VK_LAZY,          /* each run: inputs up, every step in one command buffer, outputs down */
    UMAP_VK_COMPILED       /* as lazy, the command buffer recorded once and re-submitted */
} umap_vk_mode;

/* Zero-initialised = defaults. */
typedef struct umap_vk_desc {
    umap_vk_pick pick;
    int index;                  /* with UMAP_VK_PICK_INDEX */
    int allow_cpu;              /* auto may take a CPU implementation (lavapipe) */
    int validation;             /* VK_LAYER_KHRONOS_validation on, synchronisation checks included
                                   (or UMAP_VK_VALIDATION=1); its errors are logged and counted
                                   (umap_vk_validation_errors) */
    int64_t max_binding_bytes;  /* 0 = the device's maxStorageBufferRange; smaller forces windows */
    umap_vk_mode mode;          /* of umap_vk_backend(vk) */
    int staging;                /* resident programs and k-NN: 0 = auto (device-local memory
                                   plus a staging copy in cached host memory on discrete GPUs
                                   and where no device-local memory is mapped; mapped in place
                                   elsewhere), 1 = always (tests), -1 = never */
    umap_allocator allocator;
    umap_logger logger;
} umap_vk_desc;

typedef struct umap_vk_device_info {
    char name[256];
    int index;                  /* in umap_vk_devices order */
    umap_vk_device_type type;
    uint32_t vendor_id, device_id, api_version;
    uint32_t driver_version;    /* VkPhysicalDeviceProperties.driverVersion (vendor-encoded) */
    int64_t max_binding_bytes;  /* maxStorageBufferRange */
    int64_t device_local_bytes; /* the largest device-local heap */
} umap_vk_device_info;

/* Opens the loader, an instance and the chosen device. detail (may be NULL)
   says why when it fails: UMAP_ERR_NO_DEVICE for no loader, no driver or no
   device that fits (the caller falls back to the CPU), UMAP_ERR_DEVICE for a
   device that failed to start. */
UMAPDEF umap_result umap_vk_create(const umap_vk_desc *desc, umap_vk **out, char *detail, size_t detail_size);
UMAPDEF void umap_vk_free(umap_vk *vk);
UMAPDEF umap_result umap_vk_device(const umap_vk *vk, umap_vk_device_info *out);
/* "discrete GPU", "integrated GPU", "CPU", ... */
UMAPDEF const char *umap_vk_device_type_name(umap_vk_device_type type);
/* Lists the devices with compute queues (CPU ones included) into out[0 ..
   max); *count gets how many there are. */
UMAPDEF umap_result umap_vk_devices(umap_vk_device_info *out, int max, int *count, char *detail, size_t detail_size);
/* Messages of severity error from the validation layer so far. */
UMAPDEF int64_t umap_vk_validation_errors(const umap_vk *vk);

/* Exact self k-NN on the GPU: the same contract and the same bits as
   umap_knn with desc->method = UMAP_KNN_EXACT (desc->method is ignored; k
   up to 240; desc->info is filled, rechecked_rows counting the rows searched
   again on the CPU). The device screens euclidean, cosine, correlation and hellinger;
   every other metric runs umap_knn's exact search on the CPU (logged at
   INFO), with no limit on k. */
UMAPDEF umap_result umap_vk_knn(umap_vk *vk, const umap_knn_desc *desc, const float *data, int64_t n, int64_t dim,
                                int32_t *indices, float *distances);

/* umap_transform's encoder (UMAP_TRANSFORM_ENCODER) compiled for
   umap_vk_backend(vk): the same checks and contract, outputs equal to the
   CPU's up to float rounding. The encoder whatever the model kept: the
   placement among kept training rows runs on the CPU (umap_transform_with). */
UMAPDEF umap_result umap_vk_transform(umap_vk *vk, const umap_model *model, const float *data, int64_t n, int64_t d,
                                      float *out);

/* What a short calibration measured on one device (plain data: a caller may
   keep it, in a file say, and skip the next calibration on that device). */
typedef struct umap_vk_calibration {
    char device_name[256];
    uint32_t vendor_id, device_id;
    double gpu_gflops;     /* a 512 x 512 x 512 matmul run as a lazy program, inputs and outputs included */
    double transfer_gbps;  /* bytes in and out per second of an elementwise program on 4 Mi floats */
    double dispatch_us;    /* one run of a one-element program: submit to done */
    double cpu_gflops;     /* the same matmul on the CPU backend (this machine's CPU side) */
} umap_vk_calibration;

/* Measures the device (and the CPU once, for comparison): a few runs of
   three small programs (seconds on lavapipe; docs/vulkan.md has what it
   measured). */
UMAPDEF umap_result umap_vk_calibrate(umap_vk *vk, umap_vk_calibration *out);
/* Whether the device should take a job of `flops` multiply-adds x 2 moving
   `bytes` between host and device in `dispatches` submissions, by the
   calibration's simple cost model (time = flops / gflops + bytes / gbps +
   dispatches x latency, against flops / cpu_gflops on the CPU). */
UMAPDEF int umap_vk_prefer(const umap_vk_calibration *c, double flops, double bytes, double dispatches);
/* umap_vk_calibrate through a tuner's records (umap_tuner_load reads them
   from the cache file), keyed by the device's name, ids and driver version
   and this CPU (the file carries the library version): a device measured
   before is not measured again. refresh = 1 measures anyway. *measured
   (may be NULL) says whether it measured; then the record is new and the
   caller saves the tuner (umap_tuner_save) to keep it. A record that does
   not read back as four positive finite numbers is logged and measured
   afresh. tuner NULL: umap_vk_calibrate. */
UMAPDEF umap_result umap_vk_calibrate_cached(umap_vk *vk, umap_tuner *tuner, int refresh, umap_vk_calibration *out,
                                             int *measured);

/* umap_fit on the device: exact k-NN by umap_vk_knn (k = n_neighbors - 1,
   config's metric), then umap_fit_knn with the training steps compiled for
   umap_vk_backend(vk) and the refinement run by umap_vk_refiner(vk),
   unless config->backend names another backend (then config->refiner is
   the caller's too). config->info (if set) gets the
   GPU search's time as knn_s and its details as knn. Same contract as
   umap_fit otherwise. */
UMAPDEF umap_result umap_vk_fit(umap_vk *vk, const umap_config *config, const float *data, int64_t n, int64_t d,
                                umap_model **out);

/* The tensor compiler's backend on this device, for umap_compile_desc.backend
   (and umap_config.backend), in the context's mode (desc.mode); the _mode
   variant picks one per compile. Kernels: fused elementwise regions (ONE
   dispatch of an interpreter per region), matmul, sum/mean/max,
   permute/broadcast/slice/reshape/concat, gather and scatter-add. Custom ops
   (umap.knn) have none: compiling a graph with one fails with
   UMAP_ERR_UNSUPPORTED_OP naming it. The pointer lives as long as vk; one
   program runs on a context at a time. NULL without UMAP_VULKAN. */
UMAPDEF const umap_backend *umap_vk_backend(umap_vk *vk);
UMAPDEF const umap_backend *umap_vk_backend_mode(umap_vk *vk, umap_vk_mode mode);
/* fit's refinement on this device, for umap_config.refiner (umap_vk_fit
   sets it with the backend): shaders/refine.comp, an invocation per row,
   the host's draws and arithmetic; it declines more components than the
   shader holds or a graph larger than one binding, which the host then
   refines. The pointer
   lives as long as vk. NULL without UMAP_VULKAN. */
UMAPDEF const umap_refiner *umap_vk_refiner(umap_vk *vk);

/* The backend's contract, as data: the ops of UMAP_OP_LIST (umap.h) with no
   Vulkan kernel, which a program must run on the CPU backend. Every other
   op has a kernel (leaves need none: they are buffers);
   tests/test_op_table.cc compiles and runs every op on the device to hold
   the backend to this list, so a new op either gets a kernel or a row
   here. umap_vk_op_cpu_only answers from it, with or without
   UMAP_VULKAN. */
#define UMAP_VK_CPU_ONLY_OPS(X) \
    X(CUSTOM) /* umap.knn and the caller's: host callbacks (cpu_fn) */
UMAPDEF int umap_vk_op_cpu_only(umap_op op);

#ifdef __cplusplus
}
#endif
#endif /* UMAP_VK_H */

/* ========================================================================= */
/*                              IMPLEMENTATION                               */
/* ========================================================================= */
#ifdef UMAP_VK_IMPLEMENTATION
#ifndef UMAP_VK__IMPLEMENTED
#define UMAP_VK__IMPLEMENTED
#ifndef UMAP_IMPLEMENTATION
#define UMAP_IMPLEMENTATION
#endif
#include "umap.h"

UMAP__FN const char *umap_vk_device_type_name(umap_vk_device_type t) {
    static const char *const names[] = {"other", "integrated GPU", "discrete GPU", "virtual GPU", "CPU"};
    return (int)t >= 0 && (int)t < 5 ? names[(int)t] : "unknown";
}

UMAP__FN int umap_vk_op_cpu_only(umap_op op) {
    switch (op) {
#define UMAP_VK__X_CPU_ONLY(id) case UMAP_OP_##id:
        UMAP_VK_CPU_ONLY_OPS(UMAP_VK__X_CPU_ONLY)
#undef UMAP_VK__X_CPU_ONLY
        return 1;
    default: return 0;
    }
}

#ifndef UMAP_VULKAN
/* >>novulkan: built without UMAP_VULKAN: every entry point says so */
static umap_result umap_vk__not_built(char *detail, size_t detail_size) {
    if (detail && detail_size) snprintf(detail, detail_size, "built without UMAP_VULKAN");
    return UMAP_ERR_NO_DEVICE;
}
UMAP__FN umap_result umap_vk_create(const umap_vk_desc *desc, umap_vk **out, char *detail, size_t detail_size) {
    (void)desc;
    if (out) *out = NULL;
    return umap_vk__not_built(detail, detail_size);
}
UMAP__FN void umap_vk_free(umap_vk *vk) { (void)vk; }
UMAP__FN umap_result umap_vk_device(const umap_vk *vk, umap_vk_device_info *out) {
    (void)vk;
    (void)out;
    return UMAP_ERR_NO_DEVICE;
}
UMAP__FN umap_result umap_vk_devices(umap_vk_device_info *out, int max, int *count, char *detail, size_t detail_size) {
    (void)out;
    (void)max;
    if (count) *count = 0;
    return umap_vk__not_built(detail, detail_size);
}
UMAP__FN int64_t umap_vk_validation_errors(const umap_vk *vk) {
    (void)vk;
    return 0;
}
UMAP__FN const umap_backend *umap_vk_backend(umap_vk *vk) {
    (void)vk;
    return NULL;
}
UMAP__FN const umap_backend *umap_vk_backend_mode(umap_vk *vk, umap_vk_mode mode) {
    (void)vk;
    (void)mode;
    return NULL;
}
UMAP__FN const umap_refiner *umap_vk_refiner(umap_vk *vk) {
    (void)vk;
    return NULL;
}
UMAP__FN umap_result umap_vk_fit(umap_vk *vk, const umap_config *config, const float *data, int64_t n, int64_t d,
                                 umap_model **out) {
    (void)vk; (void)config; (void)data; (void)n; (void)d;
    if (out) *out = NULL;
    return UMAP_ERR_NO_DEVICE;
}
UMAP__FN umap_result umap_vk_transform(umap_vk *vk, const umap_model *model, const float *data, int64_t n, int64_t d,
                                       float *out) {
    (void)vk; (void)model; (void)data; (void)n; (void)d; (void)out;
    return UMAP_ERR_NO_DEVICE;
}
UMAP__FN umap_result umap_vk_calibrate(umap_vk *vk, umap_vk_calibration *out) {
    (void)vk;
    if (out) memset(out, 0, sizeof *out);
    return UMAP_ERR_NO_DEVICE;
}
UMAP__FN int umap_vk_prefer(const umap_vk_calibration *c, double flops, double bytes, double dispatches) {
    (void)c; (void)flops; (void)bytes; (void)dispatches;
    return 0;
}
UMAP__FN umap_result umap_vk_calibrate_cached(umap_vk *vk, umap_tuner *tuner, int refresh, umap_vk_calibration *out,
                                             int *measured) {
    (void)vk; (void)tuner; (void)refresh;
    if (measured) *measured = 0;
    if (out) memset(out, 0, sizeof *out);
    return UMAP_ERR_NO_DEVICE;
}
UMAP__FN umap_result umap_vk_knn(umap_vk *vk, const umap_knn_desc *desc, const float *data, int64_t n, int64_t dim,
                                 int32_t *indices, float *distances) {
    (void)vk; (void)desc; (void)data; (void)n; (void)dim; (void)indices; (void)distances;
    return UMAP_ERR_NO_DEVICE;
}
#else /* UMAP_VULKAN */

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
#include <stdlib.h>
#include <string.h>
#if defined(_WIN32)
#include <windows.h>
#else
#include <dlfcn.h>
#endif

/* >>loader: the Vulkan functions this file calls, loaded at run time -------- */

#define UMAP_VK__GLOBAL_FNS(X)                                                  \
    X(vkCreateInstance) X(vkEnumerateInstanceLayerProperties)
#define UMAP_VK__INSTANCE_FNS(X)                                                \
    X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties)              \
    X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkGetPhysicalDeviceMemoryProperties) X(vkCreateDevice) \
    X(vkGetDeviceProcAddr)
#define UMAP_VK__DEVICE_FNS(X)                                                  \
    X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkCreateBuffer) X(vkDestroyBuffer)                      \
    X(vkGetBufferMemoryRequirements) X(vkAllocateMemory) X(vkFreeMemory) X(vkBindBufferMemory)        \
    X(vkMapMemory) X(vkUnmapMemory) X(vkCreateShaderModule) X(vkDestroyShaderModule)                  \
    X(vkCreateDescriptorSetLayout) X(vkDestroyDescriptorSetLayout) X(vkCreatePipelineLayout)          \
    X(vkDestroyPipelineLayout) X(vkCreateComputePipelines) X(vkDestroyPipeline)                       \
    X(vkCreateDescriptorPool) X(vkDestroyDescriptorPool) X(vkAllocateDescriptorSets)                  \
    X(vkUpdateDescriptorSets) X(vkCreateCommandPool) X(vkDestroyCommandPool)                          \
    X(vkAllocateCommandBuffers) X(vkResetCommandPool) X(vkBeginCommandBuffer) X(vkEndCommandBuffer)   \
    X(vkCmdBindPipeline) X(vkCmdBindDescriptorSets) X(vkCmdPushConstants) X(vkCmdDispatch)            \
    X(vkCmdPipelineBarrier) X(vkQueueSubmit) X(vkCreateFence) X(vkDestroyFence) X(vkWaitForFences)    \
    X(vkResetFences) X(vkResetDescriptorPool) X(vkCmdCopyBuffer) X(vkCmdFillBuffer)                   \
    X(vkCreateQueryPool) X(vkDestroyQueryPool) X(vkCmdResetQueryPool) X(vkCmdWriteTimestamp)          \
    X(vkGetQueryPoolResults)

typedef struct umap_vk__fns {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
#define UMAP_VK__DECL(f) PFN_##f f;
    UMAP_VK__GLOBAL_FNS(UMAP_VK__DECL)
    UMAP_VK__INSTANCE_FNS(UMAP_VK__DECL)
    UMAP_VK__DEVICE_FNS(UMAP_VK__DECL)
#undef UMAP_VK__DECL
    PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT;
    PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT;
} umap_vk__fns;

/* >>context: the kernel table, the push-constant structs, struct umap_vk --- */

/* THE KERNEL TABLE: one row per shader of shaders/. It generates the
   context's kernel fields, their creation (umap_vk__kernel_make), their
   teardown (umap_vk_free), the push-constant union of a dispatch
   (umap_vk__push) and the kernels the resident modes bind
   (umap_vk__set_kernels); the end of the file checks every row against its
   SPIR-V module (>>layouts).
     field     its umap_vk__kernel in struct umap_vk
     shader    shaders/SHADER.comp, embedded as umap_vk__spv_SHADER; its
               push constants are the C struct umap_vk__pc_SHADER
     bindings  storage buffers at bindings 0 .. bindings - 1
     plain     1: one pipeline, made with the kernel; 0: a pipeline per
               specialisation constant, made where it is used
     set       1: the resident modes keep a descriptor set of it per step */
#define UMAP_VK__KERNELS(X)                    \
    X(knn, knn_tile, 4, 0, 0)                  \
    X(k_region, ew_region, 3, 1, 1)            \
    X(k_matmul, matmul, 2, 1, 1)               \
    X(k_reduce, reduce, 2, 1, 1)               \
    X(k_copy, copy, 2, 1, 1)                   \
    X(k_gather, gather, 3, 1, 1)               \
    X(k_adam, adam, 1, 1, 1)                   \
    X(k_refine, refine, 5, 1, 0)

typedef enum umap_vk__kernel_id {
#define UMAP_VK__X_ID(field, shader, bindings, plain, set) UMAP_VK__KERNEL_##shader,
    UMAP_VK__KERNELS(UMAP_VK__X_ID)
#undef UMAP_VK__X_ID
    UMAP_VK__N_KERNELS
} umap_vk__kernel_id;

/* the kernels with set = 1, in the table's order: a step's descriptor sets */
enum {
#define UMAP_VK__X_SET(field, shader, bindings, plain, set) +(set)
    UMAP_VK__N_SETS = 0 UMAP_VK__KERNELS(UMAP_VK__X_SET)
#undef UMAP_VK__X_SET
};

/* The push constants of each shader, member for member its GLSL `Params`
   block (std430: 4-byte scalars, arrays of stride 4); >>layouts asserts
   every size and offset against the module, so a mismatch fails the build. */
typedef struct umap_vk__pc_knn_tile {
    int32_t q_rows, x_rows, dim;  /* query rows in the window, data rows in the dispatch, floats per row */
    int32_t q_first, x_first;     /* global index of the first query row, of the first data row */
    int32_t self_skip;            /* 1: a query row never lists itself */
    int32_t x_skip;               /* rows of the data binding before the dispatch's first */
    int32_t n_lists, slice_rows;  /* lists per query row, data rows per list */
} umap_vk__pc_knn_tile;
typedef struct umap_vk__pc_ew_region {
    uint32_t prog_base, dst_base; /* the region's program in Prog, its output in Dst */
} umap_vk__pc_ew_region;
typedef struct umap_vk__pc_matmul {
    uint32_t M, N, K;
    uint32_t ta, tb;              /* 1: the operand is stored transposed */
    uint32_t a_base, b_base;      /* element offsets of A and B in src */
    uint32_t a_step, b_step;      /* per batch (0: shared by every batch) */
    uint32_t c_base;              /* element offset of C in dst */
} umap_vk__pc_matmul;
typedef struct umap_vk__pc_reduce {
    uint32_t dim[4], stride[4];   /* input shape (padded) and strides */
    uint32_t axes;                /* bit q: axis q is reduced */
    uint32_t n_out, count;
    uint32_t op;                  /* 0 sum, 1 mean, 2 max */
    uint32_t src_base, dst_base;
    uint32_t wide;                /* 1: a workgroup per output */
} umap_vk__pc_reduce;
typedef struct umap_vk__pc_copy {
    uint32_t dim[4], src_stride[4], dst_stride[4];
    uint32_t src_base, dst_base, count;
} umap_vk__pc_copy;
typedef struct umap_vk__pc_gather {
    uint32_t mode;                /* 0 gather, 1 scatter-add from a list, 2 scatter-add by scanning */
    uint32_t row, n_out_rows;     /* floats per row, output rows */
    uint32_t list_base;           /* mode 1: where the source rows of the list start in ix */
    uint32_t x_base, ix_base, y_base;
    uint32_t n_idx, n_x_rows;     /* indices; rows of x (gather's bound) */
} umap_vk__pc_gather;
typedef struct umap_vk__pc_adam {
    uint32_t mode, hdr;           /* 0 the clip scale, 1 the update; the train header's word */
} umap_vk__pc_adam;
typedef struct umap_vk__pc_refine {
    uint32_t key[2];              /* the epoch's hash key (low, high words) */
    uint32_t n, c, neg;           /* rows, components, negatives per edge */
    float a, b, gamma, attraction, lr;
} umap_vk__pc_refine;

/* one dispatch's push constants, as the kernel it runs reads them */
typedef union umap_vk__push {
#define UMAP_VK__X_PUSH(field, shader, bindings, plain, set) umap_vk__pc_##shader shader;
    UMAP_VK__KERNELS(UMAP_VK__X_PUSH)
#undef UMAP_VK__X_PUSH
} umap_vk__push;

/* a kernel's module and push-constant bytes, from the table and the
   generated arrays at the end of the file (>>layouts) */
typedef struct umap_vk__kernel_spec {
    const char *shader;
    const uint32_t *spv;
    size_t spv_bytes;
    int n_bindings;
    uint32_t push_bytes;
    int plain;
} umap_vk__kernel_spec;
static const umap_vk__kernel_spec *umap_vk__kernel_spec_of(umap_vk__kernel_id id);

/* the list-length variants of the k-NN kernel, built on first use */
#define UMAP_VK__MAX_LIST 256
#define UMAP_VK__KNN_VARIANTS 8
#ifndef UMAP_VK__KNN_MIN_SLICE /* data rows per k-NN list on a GPU, at least (a tuning knob) */
#define UMAP_VK__KNN_MIN_SLICE 8192
#endif
#ifndef UMAP_VK__KNN_KEEP_BYTES /* the k-NN memory a context keeps between searches, at most */
#define UMAP_VK__KNN_KEEP_BYTES (64 << 20)
#endif

typedef struct umap_vk__buffer {
    VkBuffer buf;
    VkDeviceMemory mem;
    void *map;
    int64_t bytes;
} umap_vk__buffer;

/* The k-NN's device buffers and descriptor sets. The context keeps them
   between searches while they total at most UMAP_VK__KNN_KEEP_BYTES, so
   that repeated small searches (batches) skip their setup; larger ones are
   freed when the search ends. */
typedef struct umap_vk__knn_space {
    int64_t n_win;                    /* row windows the buffers are for (0: none) */
    int staged;                       /* made with staging */
    umap_vk__buffer *rows, *ld, *li;  /* per window: its rows, its lists' distances and indices */
    umap_vk__buffer stage;            /* with staging: every window's rows, distances, indices */
    VkDescriptorPool dpool;
    VkDescriptorSet *sets;            /* per (query window, data window) */
    int64_t bytes;                    /* device and staging memory in all */
} umap_vk__knn_space;

/* one compute kernel: its module, the layout of its storage buffers and push
   constants, and its pipeline (kernels with a specialisation constant keep
   their pipelines elsewhere) */
typedef struct umap_vk__kernel {
    VkShaderModule module;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipe;
    int n_bindings;
    uint32_t push_bytes;
} umap_vk__kernel;

struct umap_vk {
    umap_allocator alloc;
    umap_logger logger;
    void *lib;                  /* the loader's handle */
    umap_vk__fns f;
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice phys;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    VkPhysicalDeviceMemoryProperties mem;
    umap_vk_device_info info;
    int64_t binding_limit;      /* bytes one binding may span */
    int64_t binding_align;      /* bytes a binding's offset is a multiple of (at least 16) */
    uint32_t max_groups_x;
    uint32_t timestamp_bits;    /* of the queue family (0: it has no timestamps) */
    float timestamp_ns;         /* per timestamp tick; 0: the queue has no timestamps */
    int64_t validation_errors;
    VkCommandPool cmd_pool;
    VkCommandBuffer cmd;
    VkFence fence;
    /* the kernels of the table (knn, k_region, k_matmul, ...) */
#define UMAP_VK__X_FIELD(field, shader, bindings, plain, set) umap_vk__kernel field;
    UMAP_VK__KERNELS(UMAP_VK__X_FIELD)
#undef UMAP_VK__X_FIELD
    /* k-NN kernel: pipelines per list length */
    int knn_len[UMAP_VK__KNN_VARIANTS];
    VkPipeline knn_pipe[UMAP_VK__KNN_VARIANTS];
    umap_vk__knn_space knn_space;          /* the last search's buffers, while small */
    umap_pool *knn_pool;                   /* the proof's threads, kept between searches */
    int knn_pool_asked;                    /* the n_threads it was made for */
    VkQueryPool knn_stamps;                /* two timestamps around the kernels */
    /* the compiler backend: a table per mode (EAGER, LAZY, COMPILED) */
    umap_vk_mode mode;
    int staging;                           /* resident programs live in device-local memory */
    umap_backend backends[4];
    umap_refiner refiner;                  /* fit's refinement on the device (umap_vk_refiner) */
    const void *recorded_for;              /* compiled mode: whose steps vk->cmd holds */
    VkPipeline matmul_small;               /* k_matmul with R = 1: 16 x 16 tiles (k_matmul.pipe: R = 4, 64 x 64) */
    umap_vk__buffer b_src, b_dst;          /* eager mode: a step's inputs (and aux words), its output */
    VkDescriptorPool step_pool;            /* eager mode: the kernels' sets, made again for each step */
    int64_t *step_off;                     /* eager mode: element offsets of the packed inputs, by node */
    int64_t step_off_cap;
};

/* a Vulkan call's failure (r, then the message's format and arguments)
   into the caller's detail buffer and the context's logger */
#define umap_vk__fail(detail, detail_size, logger, ...) \
    umap__fail_to(detail, detail_size, logger, "vulkan: ", __VA_ARGS__)

static void *umap_vk__open_loader(void) {
#if defined(_WIN32)
    return (void *)LoadLibraryA("vulkan-1.dll");
#elif defined(__APPLE__)
    void *h = dlopen("libvulkan.1.dylib", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libvulkan.dylib", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libMoltenVK.dylib", RTLD_NOW | RTLD_LOCAL);
    return h;
#else
    void *h = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libvulkan.so", RTLD_NOW | RTLD_LOCAL);
    return h;
#endif
}

static void umap_vk__close_loader(void *h) {
    if (!h) return;
#if defined(_WIN32)
    FreeLibrary((HMODULE)h);
#else
    dlclose(h);
#endif
}

static PFN_vkGetInstanceProcAddr umap_vk__entry(void *h) {
    PFN_vkGetInstanceProcAddr f;
#if defined(_WIN32)
    FARPROC p = GetProcAddress((HMODULE)h, "vkGetInstanceProcAddr");
    memcpy(&f, &p, sizeof f);
#else
    void *p = dlsym(h, "vkGetInstanceProcAddr");
    memcpy(&f, &p, sizeof f); /* object pointer -> function pointer, as POSIX allows */
#endif
    return f;
}

static int umap_vk__env_int(const char *name, int *out) {
    const char *v = getenv(name);
    char *end;
    long x;
    if (!v || !*v) return 0;
    x = strtol(v, &end, 10);
    if (*end || x < 0 || x > 1000000) return 0;
    *out = (int)x;
    return 1;
}

/* >>validation: the layer's messages go to the logger and are counted ---- */

static VKAPI_ATTR VkBool32 VKAPI_CALL umap_vk__on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                          VkDebugUtilsMessageTypeFlagsEXT types,
                                                          const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                          void *user) {
    umap_vk *vk = (umap_vk *)user;
    (void)types;
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        vk->validation_errors++;
        umap__log(&vk->logger, UMAP_LOG_ERROR, "vulkan validation: %s", data && data->pMessage ? data->pMessage : "?");
    } else {
        umap__log(&vk->logger, UMAP_LOG_WARN, "vulkan validation: %s", data && data->pMessage ? data->pMessage : "?");
    }
    return VK_FALSE;
}

/* 1 if the loader offers the layer, 0 if not, -1 when out of memory */
static int umap_vk__has_layer(umap_vk *vk, const char *name) {
    uint32_t n = 0, i;
    VkLayerProperties *props;
    int found = 0;
    if (vk->f.vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0) return 0;
    props = (VkLayerProperties *)umap__calloc(&vk->alloc, n, sizeof *props);
    if (!props) return -1;
    if (vk->f.vkEnumerateInstanceLayerProperties(&n, props) == VK_SUCCESS)
        for (i = 0; i < n; i++) found |= strcmp(props[i].layerName, name) == 0;
    umap__free(&vk->alloc, props);
    return found;
}

/* >>instance: loader, instance, physical devices ---------------------------- */

static umap_vk_device_type umap_vk__type(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return UMAP_VK_DEVICE_INTEGRATED;
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return UMAP_VK_DEVICE_DISCRETE;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return UMAP_VK_DEVICE_VIRTUAL;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return UMAP_VK_DEVICE_CPU;
    default: return UMAP_VK_DEVICE_OTHER;
    }
}

/* the first queue family with compute (-1: none; *timestamp_bits: its
   timestamps' valid bits, 0 for none); -2 when out of memory */
static int umap_vk__compute_family(umap_vk *vk, VkPhysicalDevice pd, uint32_t *timestamp_bits) {
    uint32_t n = 0, i;
    VkQueueFamilyProperties *q;
    int found = -1;
    vk->f.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
    if (n == 0) return -1;
    if (!(q = (VkQueueFamilyProperties *)umap__calloc(&vk->alloc, n, sizeof *q))) return -2;
    vk->f.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, q);
    for (i = 0; i < n && found < 0; i++)
        if (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) found = (int)i, *timestamp_bits = q[i].timestampValidBits;
    umap__free(&vk->alloc, q);
    return found;
}

static void umap_vk__describe(umap_vk *vk, VkPhysicalDevice pd, int index, umap_vk_device_info *out) {
    VkPhysicalDeviceProperties p;
    VkPhysicalDeviceMemoryProperties m;
    uint32_t h;
    vk->f.vkGetPhysicalDeviceProperties(pd, &p);
    vk->f.vkGetPhysicalDeviceMemoryProperties(pd, &m);
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", p.deviceName);
    out->index = index;
    out->type = umap_vk__type(p.deviceType);
    out->vendor_id = p.vendorID;
    out->device_id = p.deviceID;
    out->api_version = p.apiVersion;
    out->driver_version = p.driverVersion;
    out->max_binding_bytes = (int64_t)p.limits.maxStorageBufferRange;
    for (h = 0; h < m.memoryHeapCount; h++)
        if ((m.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
            (int64_t)m.memoryHeaps[h].size > out->device_local_bytes)
            out->device_local_bytes = (int64_t)m.memoryHeaps[h].size;
}

/* NVIDIA's driver takes static TLS (libnvidia-tls) each time the loader
   loads it, and the loader unloads it with the last instance: after about
   30 contexts created and freed in one process, dlopen fails ("cannot
   allocate memory in static TLS block") and the loader finds no driver
   (seen on an H100, driver 580). So the first instance of a process brings
   a second, empty one, with its own reference on the loader, that stays
   open for the life of the process (reachable from here, so no leak): the
   drivers stay loaded and later contexts reuse them. */
static void *umap_vk__pinned_loader;
static VkInstance umap_vk__pinned_instance;

static void umap_vk__pin_drivers(const VkInstanceCreateInfo *ci) {
    static int tried;
    PFN_vkGetInstanceProcAddr gipa;
    PFN_vkCreateInstance create;
    void *h;
#if defined(__GNUC__) || defined(__clang__)
    if (__atomic_exchange_n(&tried, 1, __ATOMIC_ACQ_REL)) return;
#else
    if (tried) return; /* a race here at worst pins twice */
    tried = 1;
#endif
    if (!(h = umap_vk__open_loader())) return;
    gipa = umap_vk__entry(h);
    create = gipa ? (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance") : NULL;
    if (!create || create(ci, NULL, &umap_vk__pinned_instance) != VK_SUCCESS) {
        umap_vk__pinned_instance = VK_NULL_HANDLE;
        umap_vk__close_loader(h);
        return;
    }
    umap_vk__pinned_loader = h;
}

/* loader + instance (+ the validation layer when asked) */
static umap_result umap_vk__open_instance(umap_vk *vk, int validation, char *detail, size_t ds) {
    VkApplicationInfo app;
    VkInstanceCreateInfo ci;
    const char *layer = "VK_LAYER_KHRONOS_validation";
    const char *exts[2] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
    /* synchronisation validation too: a missing barrier is an error like any other */
    VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT features;
    VkResult vr;
    int has_layer = 0;
    if (!(vk->lib = umap_vk__open_loader()))
        return umap_vk__fail(detail, ds, &vk->logger, UMAP_ERR_NO_DEVICE,
                             "no Vulkan loader (libvulkan.so.1); install one and a driver, or use the CPU");
    if (!(vk->f.vkGetInstanceProcAddr = umap_vk__entry(vk->lib)))
        return umap_vk__fail(detail, ds, &vk->logger, UMAP_ERR_NO_DEVICE, "the Vulkan loader has no vkGetInstanceProcAddr");
#define UMAP_VK__LOAD_GLOBAL(fn)                                                                    \
    if (!(vk->f.fn = (PFN_##fn)vk->f.vkGetInstanceProcAddr(NULL, #fn)))                             \
        return umap_vk__fail(detail, ds, &vk->logger, UMAP_ERR_NO_DEVICE, "the Vulkan loader lacks " #fn);
    UMAP_VK__GLOBAL_FNS(UMAP_VK__LOAD_GLOBAL)
#undef UMAP_VK__LOAD_GLOBAL
    if (validation && (has_layer = umap_vk__has_layer(vk, layer)) < 0) return UMAP_ERR_OUT_OF_MEMORY;
    if (validation && !has_layer)
        return umap_vk__fail(detail, ds, &vk->logger, UMAP_ERR_INVALID_ARGUMENT,
                             "validation asked for, but %s is not installed (Debian: vulkan-validationlayers)", layer);
    memset(&app, 0, sizeof app);
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "umap.h";
    app.pEngineName = "umap.h";
    app.apiVersion = VK_MAKE_VERSION(1, 1, 0);
    memset(&ci, 0, sizeof ci);
    ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ci.pApplicationInfo = &app;
    if (validation) {
        memset(&features, 0, sizeof features);
        features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
        features.enabledValidationFeatureCount = 1;
        features.pEnabledValidationFeatures = &sync;
        ci.pNext = &features;
        ci.enabledLayerCount = 1;
        ci.ppEnabledLayerNames = &layer;
        ci.enabledExtensionCount = 2;
        ci.ppEnabledExtensionNames = exts;
    }
    vr = vk->f.vkCreateInstance(&ci, NULL, &vk->instance);
    if (vr == VK_SUCCESS) { /* the same application, no layers */
        VkInstanceCreateInfo pin = ci;
        pin.pNext = NULL;
        pin.enabledLayerCount = pin.enabledExtensionCount = 0;
        umap_vk__pin_drivers(&pin);
    }
    if (vr != VK_SUCCESS) {
        vk->instance = VK_NULL_HANDLE;
        return umap_vk__fail(detail, ds, &vk->logger,
                             vr == VK_ERROR_INCOMPATIBLE_DRIVER ? UMAP_ERR_NO_DEVICE : UMAP_ERR_DEVICE,
                             "vkCreateInstance failed (VkResult %d)%s", (int)vr,
                             vr == VK_ERROR_INCOMPATIBLE_DRIVER ? ": no Vulkan driver" : "");
    }
#define UMAP_VK__LOAD_INSTANCE(fn)                                                                  \
    if (!(vk->f.fn = (PFN_##fn)vk->f.vkGetInstanceProcAddr(vk->instance, #fn)))                     \
        return umap_vk__fail(detail, ds, &vk->logger, UMAP_ERR_NO_DEVICE, "the Vulkan loader lacks " #fn);
    UMAP_VK__INSTANCE_FNS(UMAP_VK__LOAD_INSTANCE)
#undef UMAP_VK__LOAD_INSTANCE
    if (validation) {
        VkDebugUtilsMessengerCreateInfoEXT mi;
        vk->f.vkCreateDebugUtilsMessengerEXT =
            (PFN_vkCreateDebugUtilsMessengerEXT)vk->f.vkGetInstanceProcAddr(vk->instance, "vkCreateDebugUtilsMessengerEXT");
        vk->f.vkDestroyDebugUtilsMessengerEXT = (PFN_vkDestroyDebugUtilsMessengerEXT)vk->f.vkGetInstanceProcAddr(
            vk->instance, "vkDestroyDebugUtilsMessengerEXT");
        memset(&mi, 0, sizeof mi);
        mi.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
        mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
        mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
        mi.pfnUserCallback = umap_vk__on_message;
        mi.pUserData = vk;
        if (!vk->f.vkCreateDebugUtilsMessengerEXT || !vk->f.vkDestroyDebugUtilsMessengerEXT ||
            vk->f.vkCreateDebugUtilsMessengerEXT(vk->instance, &mi, NULL, &vk->messenger) != VK_SUCCESS)
            return umap_vk__fail(detail, ds, &vk->logger, UMAP_ERR_DEVICE, "could not install the validation messenger");
    }
    return UMAP_OK;
}

/* the physical devices (caller frees *out) */
static umap_result umap_vk__physical(umap_vk *vk, VkPhysicalDevice **out, uint32_t *count, char *detail, size_t ds) {
    VkResult vr;
    *out = NULL;
    *count = 0;
    vr = vk->f.vkEnumeratePhysicalDevices(vk->instance, count, NULL);
    if (vr != VK_SUCCESS || *count == 0)
        return umap_vk__fail(detail, ds, &vk->logger, UMAP_ERR_NO_DEVICE, "no Vulkan device (no driver installed?)");
    if (!(*out = (VkPhysicalDevice *)umap__calloc(&vk->alloc, *count, sizeof **out)))
        return UMAP_ERR_OUT_OF_MEMORY;
    vr = vk->f.vkEnumeratePhysicalDevices(vk->instance, count, *out);
    if (vr != VK_SUCCESS && vr != VK_INCOMPLETE)
        return umap_vk__fail(detail, ds, &vk->logger, UMAP_ERR_DEVICE, "vkEnumeratePhysicalDevices failed (%d)", (int)vr);
    return UMAP_OK;
}

/* >>device: choice, logical device, queue, command buffer ------------------ */

static int umap_vk__rank(umap_vk_device_type t, int allow_cpu) {
    switch (t) {
    case UMAP_VK_DEVICE_DISCRETE: return 0;
    case UMAP_VK_DEVICE_INTEGRATED: return 1;
    case UMAP_VK_DEVICE_VIRTUAL: return 2;
    case UMAP_VK_DEVICE_OTHER: return 3;
    default: return allow_cpu ? 4 : -1;
    }
}

static umap_result umap_vk__open_device(umap_vk *vk, const umap_vk_desc *d, char *detail, size_t ds) {
    VkPhysicalDevice *pds = NULL;
    uint32_t n = 0, i;
    int want = -1, best = -1, best_rank = 99, best_family = -1, allow_cpu = d->allow_cpu, env_cpu = 0, family;
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qi;
    VkDeviceCreateInfo ci;
    VkCommandPoolCreateInfo pi;
    VkCommandBufferAllocateInfo ai;
    VkFenceCreateInfo fi;
    VkPhysicalDeviceProperties props;
    VkResult vr;
    umap_result r;
    char seen[256] = "";
    if ((r = umap_vk__physical(vk, &pds, &n, detail, ds)) != UMAP_OK) goto done;
    if (umap_vk__env_int("UMAP_VK_ALLOW_CPU", &env_cpu) && env_cpu) allow_cpu = 1;
    if (d->pick == UMAP_VK_PICK_INDEX) want = d->index;
    else if (!umap_vk__env_int("UMAP_VK_DEVICE", &want)) want = -1;
    if (want >= (int)n || (d->pick == UMAP_VK_PICK_INDEX && want < 0)) {
        r = umap_vk__fail(detail, ds, &vk->logger, UMAP_ERR_NO_DEVICE, "device index %d asked for, %u device(s) found",
                          want, n);
        goto done;
    }
    for (i = 0; i < n; i++) {
        umap_vk_device_info info;
        uint32_t bits = 0;
        int rank;
        umap_vk__describe(vk, pds[i], (int)i, &info);
        if (strlen(seen) + strlen(info.name) + 40 < sizeof seen)
            snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s%.100s (%s)", i ? ", " : "", info.name,
                     umap_vk_device_type_name(info.type));
        if ((family = umap_vk__compute_family(vk, pds[i], &bits)) == -2) {
            r = UMAP_ERR_OUT_OF_MEMORY;
            goto done;
        }
        if (family < 0) continue;
        if (want >= 0) {
            if ((int)i == want) best = (int)i, best_family = family, vk->timestamp_bits = bits;
            continue;
        }
        rank = umap_vk__rank(info.type, allow_cpu);
        if (rank >= 0 && rank < best_rank) best_rank = rank, best = (int)i, best_family = family, vk->timestamp_bits = bits;
    }
    if (best < 0) {
        r = umap_vk__fail(detail, ds, &vk->logger, UMAP_ERR_NO_DEVICE, "no device fits (found: %s)%s",
                          n ? seen : "none", allow_cpu ? "" : "; CPU implementations need allow_cpu or UMAP_VK_ALLOW_CPU=1");
        goto done;
    }
    vk->phys = pds[best];
    umap_vk__describe(vk, vk->phys, best, &vk->info);
    vk->f.vkGetPhysicalDeviceMemoryProperties(vk->phys, &vk->mem);
    vk->f.vkGetPhysicalDeviceProperties(vk->phys, &props);
    vk->max_groups_x = props.limits.maxComputeWorkGroupCount[0];
    vk->timestamp_ns = vk->timestamp_bits ? props.limits.timestampPeriod : 0.0f;
    vk->binding_limit = (int64_t)props.limits.maxStorageBufferRange;
    if (d->max_binding_bytes > 0 && d->max_binding_bytes < vk->binding_limit) vk->binding_limit = d->max_binding_bytes;
    vk->binding_align = (int64_t)props.limits.minStorageBufferOffsetAlignment;
    if (vk->binding_align < 16) vk->binding_align = 16;
    vk->queue_family = (uint32_t)best_family;
    memset(&qi, 0, sizeof qi);
    qi.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qi.queueFamilyIndex = vk->queue_family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &prio;
    memset(&ci, 0, sizeof ci);
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    ci.queueCreateInfoCount = 1;
    ci.pQueueCreateInfos = &qi;
    if ((vr = vk->f.vkCreateDevice(vk->phys, &ci, NULL, &vk->device)) != VK_SUCCESS) {
        vk->device = VK_NULL_HANDLE;
        r = umap_vk__fail(detail, ds, &vk->logger, UMAP_ERR_DEVICE, "vkCreateDevice on %s failed (%d)", vk->info.name,
                          (int)vr);
        goto done;
    }
#define UMAP_VK__LOAD_DEVICE(fn)                                                                    \
    if (!(vk->f.fn = (PFN_##fn)vk->f.vkGetDeviceProcAddr(vk->device, #fn))) {                       \
        r = umap_vk__fail(detail, ds, &vk->logger, UMAP_ERR_DEVICE, "the device lacks " #fn);       \
        goto done;                                                                                  \
    }
    UMAP_VK__DEVICE_FNS(UMAP_VK__LOAD_DEVICE)
#undef UMAP_VK__LOAD_DEVICE
    vk->f.vkGetDeviceQueue(vk->device, vk->queue_family, 0, &vk->queue);
    memset(&pi, 0, sizeof pi);
    pi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pi.queueFamilyIndex = vk->queue_family;
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    memset(&fi, 0, sizeof fi);
    fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    if (vk->f.vkCreateCommandPool(vk->device, &pi, NULL, &vk->cmd_pool) != VK_SUCCESS ||
        (ai.commandPool = vk->cmd_pool, vk->f.vkAllocateCommandBuffers(vk->device, &ai, &vk->cmd) != VK_SUCCESS) ||
        vk->f.vkCreateFence(vk->device, &fi, NULL, &vk->fence) != VK_SUCCESS) {
        r = umap_vk__fail(detail, ds, &vk->logger, UMAP_ERR_DEVICE, "could not create a command pool and fence");
        goto done;
    }
    if (d->staging == 0) {
        /* auto: kernels work in mapped memory only on devices that share the
           host's memory (integrated GPUs, CPU implementations) and offer it
           device-local. A discrete GPU with resizable BAR also offers
           device-local mapped memory, but host reads of it cross the bus
           uncached (0.06 GB/s measured on an H100): staging there. */
        uint32_t t;
        vk->staging = 1;
        if (vk->info.type != UMAP_VK_DEVICE_DISCRETE)
            for (t = 0; t < vk->mem.memoryTypeCount; t++)
                if ((vk->mem.memoryTypes[t].propertyFlags &
                     (VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) ==
                    (VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
                    vk->staging = 0;
    } else {
        vk->staging = d->staging > 0;
    }
    umap__log(&vk->logger, UMAP_LOG_INFO, "vulkan: %s (%s), bindings up to %lld bytes", vk->info.name,
              umap_vk_device_type_name(vk->info.type), (long long)vk->binding_limit);
    r = UMAP_OK;
done:
    umap__free(&vk->alloc, pds);
    return r;
}

/* >>memory: buffers, mapped or device-only ----------------------------------- */

/* a memory type with all of `need`, preferring also `want` and then none of `avoid` */
static int umap_vk__memory_type(const umap_vk *vk, uint32_t bits, VkMemoryPropertyFlags need, VkMemoryPropertyFlags want,
                                VkMemoryPropertyFlags avoid) {
    int pass;
    uint32_t i;
    for (pass = 0; pass < 4; pass++) {
        VkMemoryPropertyFlags all = need | (pass < 2 ? want : 0), none = pass % 2 == 0 ? avoid : 0;
        for (i = 0; i < vk->mem.memoryTypeCount; i++) {
            VkMemoryPropertyFlags f = vk->mem.memoryTypes[i].propertyFlags;
            if ((bits >> i & 1u) && (f & all) == all && !(f & none)) return (int)i;
        }
    }
    return -1;
}

static void umap_vk__buffer_free(umap_vk *vk, umap_vk__buffer *b) {
    if (b->map) vk->f.vkUnmapMemory(vk->device, b->mem);
    if (b->buf) vk->f.vkDestroyBuffer(vk->device, b->buf, NULL);
    if (b->mem) vk->f.vkFreeMemory(vk->device, b->mem, NULL);
    memset(b, 0, sizeof *b);
}

/* where a buffer lives */
typedef enum umap_vk__place {
    UMAP_VK__SHARED,  /* mapped; kernels use it in place: device-local when the device offers that mapped */
    UMAP_VK__DEVICE,  /* device-local, not mapped: kernels' data when staging */
    UMAP_VK__STAGING  /* mapped; the host's end of copies: cached host memory, not device-local (host
                         reads of device-local memory through a BAR are uncached) */
} umap_vk__place;

/* A storage buffer that transfers can also read and write, placed as asked. */
static umap_result umap_vk__buffer_make(umap_vk *vk, int64_t bytes, umap_vk__place place, umap_vk__buffer *b) {
    const VkMemoryPropertyFlags mapped = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    VkBufferCreateInfo bi;
    VkMemoryRequirements req;
    VkMemoryAllocateInfo ai;
    int type;
    memset(b, 0, sizeof *b);
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bi.size = (VkDeviceSize)(bytes > 0 ? bytes : 4);
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if (vk->f.vkCreateBuffer(vk->device, &bi, NULL, &b->buf) != VK_SUCCESS) return UMAP_ERR_OUT_OF_MEMORY;
    vk->f.vkGetBufferMemoryRequirements(vk->device, b->buf, &req);
    switch (place) {
    case UMAP_VK__DEVICE:
        type = umap_vk__memory_type(vk, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0,
                                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
        break;
    case UMAP_VK__STAGING:
        type = umap_vk__memory_type(vk, req.memoryTypeBits, mapped, VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                                    VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        break;
    default:
        type = umap_vk__memory_type(vk, req.memoryTypeBits, mapped, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
        break;
    }
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = (uint32_t)type;
    if (type < 0 || vk->f.vkAllocateMemory(vk->device, &ai, NULL, &b->mem) != VK_SUCCESS ||
        vk->f.vkBindBufferMemory(vk->device, b->buf, b->mem, 0) != VK_SUCCESS ||
        (place != UMAP_VK__DEVICE && vk->f.vkMapMemory(vk->device, b->mem, 0, VK_WHOLE_SIZE, 0, &b->map) != VK_SUCCESS)) {
        umap_vk__buffer_free(vk, b);
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    b->bytes = bytes;
    return UMAP_OK;
}

/* >>kernels: modules, layouts, pipelines ----------------------------------- */

static void umap_vk__kernel_free(umap_vk *vk, umap_vk__kernel *k) {
    if (k->pipe) vk->f.vkDestroyPipeline(vk->device, k->pipe, NULL);
    if (k->layout) vk->f.vkDestroyPipelineLayout(vk->device, k->layout, NULL);
    if (k->set_layout) vk->f.vkDestroyDescriptorSetLayout(vk->device, k->set_layout, NULL);
    if (k->module) vk->f.vkDestroyShaderModule(vk->device, k->module, NULL);
    memset(k, 0, sizeof *k);
}

/* a pipeline of the kernel's module; spec (may be NULL) sets constant 0 */
static umap_result umap_vk__kernel_pipeline(umap_vk *vk, const umap_vk__kernel *k, const int32_t *spec, VkPipeline *out) {
    VkSpecializationMapEntry entry;
    VkSpecializationInfo si;
    VkComputePipelineCreateInfo pci;
    entry.constantID = 0;
    entry.offset = 0;
    entry.size = sizeof(int32_t);
    si.mapEntryCount = 1;
    si.pMapEntries = &entry;
    si.dataSize = sizeof(int32_t);
    si.pData = spec;
    memset(&pci, 0, sizeof pci);
    pci.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    pci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pci.stage.module = k->module;
    pci.stage.pName = "main";
    pci.stage.pSpecializationInfo = spec ? &si : NULL;
    pci.layout = k->layout;
    if (vk->f.vkCreateComputePipelines(vk->device, VK_NULL_HANDLE, 1, &pci, NULL, out) != VK_SUCCESS) {
        *out = VK_NULL_HANDLE;
        return UMAP_ERR_DEVICE;
    }
    return UMAP_OK;
}

/* the context's kernel of a table row */
static umap_vk__kernel *umap_vk__kernel_at(umap_vk *vk, umap_vk__kernel_id id) {
    switch (id) {
#define UMAP_VK__X_AT(field, shader, bindings, plain, set) case UMAP_VK__KERNEL_##shader: return &vk->field;
    UMAP_VK__KERNELS(UMAP_VK__X_AT)
#undef UMAP_VK__X_AT
    default: return NULL;
    }
}

/* a table row's kernel: module, a layout of its storage buffers and push
   constants, and (plain rows) its one pipeline. One already made is left
   alone. */
static umap_result umap_vk__kernel_make(umap_vk *vk, umap_vk__kernel_id id) {
    const umap_vk__kernel_spec *spec = umap_vk__kernel_spec_of(id);
    umap_vk__kernel *k = umap_vk__kernel_at(vk, id);
    const int n_bindings = spec->n_bindings;
    const uint32_t push_bytes = spec->push_bytes;
    VkShaderModuleCreateInfo mi;
    VkDescriptorSetLayoutBinding b[8];
    VkDescriptorSetLayoutCreateInfo li;
    VkPushConstantRange pc;
    VkPipelineLayoutCreateInfo pli;
    int i;
    if (k->module) return UMAP_OK;
    memset(&mi, 0, sizeof mi);
    mi.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    mi.codeSize = spec->spv_bytes;
    mi.pCode = spec->spv;
    memset(b, 0, sizeof b);
    for (i = 0; i < n_bindings; i++) {
        b[i].binding = (uint32_t)i;
        b[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        b[i].descriptorCount = 1;
        b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    memset(&li, 0, sizeof li);
    li.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    li.bindingCount = (uint32_t)n_bindings;
    li.pBindings = b;
    memset(&pc, 0, sizeof pc);
    pc.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    pc.size = push_bytes;
    memset(&pli, 0, sizeof pli);
    pli.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    pli.setLayoutCount = 1;
    pli.pushConstantRangeCount = push_bytes ? 1 : 0;
    pli.pPushConstantRanges = &pc;
    k->n_bindings = n_bindings;
    k->push_bytes = push_bytes;
    if (vk->f.vkCreateShaderModule(vk->device, &mi, NULL, &k->module) != VK_SUCCESS ||
        vk->f.vkCreateDescriptorSetLayout(vk->device, &li, NULL, &k->set_layout) != VK_SUCCESS ||
        (pli.pSetLayouts = &k->set_layout, vk->f.vkCreatePipelineLayout(vk->device, &pli, NULL, &k->layout)) != VK_SUCCESS ||
        (spec->plain && umap_vk__kernel_pipeline(vk, k, NULL, &k->pipe) != UMAP_OK)) {
        umap_vk__kernel_free(vk, k);
        return UMAP_ERR_DEVICE;
    }
    return UMAP_OK;
}

/* >>commands: the one command buffer of a context ------------------------ */

static void umap_vk__barrier(umap_vk *vk, VkPipelineStageFlags src_stage, VkAccessFlags src, VkPipelineStageFlags dst_stage,
                             VkAccessFlags dst) {
    VkMemoryBarrier mb;
    memset(&mb, 0, sizeof mb);
    mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    mb.srcAccessMask = src;
    mb.dstAccessMask = dst;
    vk->f.vkCmdPipelineBarrier(vk->cmd, src_stage, dst_stage, 0, 1, &mb, 0, NULL, 0, NULL);
}

static umap_result umap_vk__submit_wait(umap_vk *vk) {
    VkSubmitInfo si;
    VkResult vr;
    memset(&si, 0, sizeof si);
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &vk->cmd;
    vk->f.vkResetFences(vk->device, 1, &vk->fence);
    vr = vk->f.vkQueueSubmit(vk->queue, 1, &si, vk->fence);
    if (vr == VK_SUCCESS) vr = vk->f.vkWaitForFences(vk->device, 1, &vk->fence, VK_TRUE, 600ull * 1000000000ull);
    return vr == VK_SUCCESS ? UMAP_OK : UMAP_ERR_DEVICE;
}

static void umap_vk__begin(umap_vk *vk, int once) {
    VkCommandBufferBeginInfo cbi;
    vk->recorded_for = NULL; /* whatever a compiled program left in vk->cmd is gone */
    memset(&cbi, 0, sizeof cbi);
    cbi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    cbi.flags = once ? VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT : 0;
    vk->f.vkBeginCommandBuffer(vk->cmd, &cbi);
}

static void umap_vk__knn_space_free(umap_vk *vk) {
    umap_vk__knn_space *ks = &vk->knn_space;
    int64_t w;
    if (ks->dpool) vk->f.vkDestroyDescriptorPool(vk->device, ks->dpool, NULL);
    umap_vk__buffer_free(vk, &ks->stage);
    for (w = 0; w < ks->n_win; w++) { /* each array may be missing after an allocation failure */
        if (ks->rows) umap_vk__buffer_free(vk, &ks->rows[w]);
        if (ks->ld) umap_vk__buffer_free(vk, &ks->ld[w]);
        if (ks->li) umap_vk__buffer_free(vk, &ks->li[w]);
    }
    umap__free(&vk->alloc, ks->rows);
    umap__free(&vk->alloc, ks->ld);
    umap__free(&vk->alloc, ks->li);
    umap__free(&vk->alloc, ks->sets);
    memset(ks, 0, sizeof *ks);
}

UMAP__FN void umap_vk_free(umap_vk *vk) {
    int i;
    umap_allocator a;
    if (!vk) return;
    if (vk->device) {
        for (i = 0; i < UMAP_VK__KNN_VARIANTS; i++)
            if (vk->knn_pipe[i]) vk->f.vkDestroyPipeline(vk->device, vk->knn_pipe[i], NULL);
        umap_vk__knn_space_free(vk);
        if (vk->knn_stamps) vk->f.vkDestroyQueryPool(vk->device, vk->knn_stamps, NULL);
        if (vk->matmul_small) vk->f.vkDestroyPipeline(vk->device, vk->matmul_small, NULL);
#define UMAP_VK__X_FREE(field, shader, bindings, plain, set) umap_vk__kernel_free(vk, &vk->field);
        UMAP_VK__KERNELS(UMAP_VK__X_FREE)
#undef UMAP_VK__X_FREE
        umap_vk__buffer_free(vk, &vk->b_src);
        umap_vk__buffer_free(vk, &vk->b_dst);
        umap__free(&vk->alloc, vk->step_off);
        if (vk->step_pool) vk->f.vkDestroyDescriptorPool(vk->device, vk->step_pool, NULL);
        if (vk->fence) vk->f.vkDestroyFence(vk->device, vk->fence, NULL);
        if (vk->cmd_pool) vk->f.vkDestroyCommandPool(vk->device, vk->cmd_pool, NULL);
        vk->f.vkDestroyDevice(vk->device, NULL);
    }
    if (vk->messenger && vk->f.vkDestroyDebugUtilsMessengerEXT)
        vk->f.vkDestroyDebugUtilsMessengerEXT(vk->instance, vk->messenger, NULL);
    if (vk->instance) vk->f.vkDestroyInstance(vk->instance, NULL);
    umap_vk__close_loader(vk->lib);
    umap_pool_free(vk->knn_pool);
    a = vk->alloc;
    umap__free(&a, vk);
}

UMAP__FN umap_result umap_vk_create(const umap_vk_desc *desc, umap_vk **out, char *detail, size_t detail_size) {
    umap_vk_desc d;
    umap_vk *vk;
    umap_result r;
    int env_val = 0;
    if (detail && detail_size) detail[0] = 0;
    if (!out) return UMAP_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    if ((d.allocator.alloc_fn == NULL) != (d.allocator.free_fn == NULL))
        return umap_vk__fail(detail, detail_size, &d.logger, UMAP_ERR_INVALID_ARGUMENT,
                             "allocator: set both alloc_fn and free_fn, or neither");
    if (d.pick != UMAP_VK_PICK_AUTO && d.pick != UMAP_VK_PICK_INDEX)
        return umap_vk__fail(detail, detail_size, &d.logger, UMAP_ERR_INVALID_ARGUMENT, "unknown pick %d", (int)d.pick);
    if (d.max_binding_bytes < 0)
        return umap_vk__fail(detail, detail_size, &d.logger, UMAP_ERR_INVALID_ARGUMENT, "max_binding_bytes < 0");
    if ((int)d.mode < (int)UMAP_VK_MODE_DEFAULT || (int)d.mode > (int)UMAP_VK_COMPILED)
        return umap_vk__fail(detail, detail_size, &d.logger, UMAP_ERR_INVALID_ARGUMENT, "unknown mode %d", (int)d.mode);
    if (!(vk = (umap_vk *)umap__calloc(&d.allocator, 1, sizeof *vk))) return UMAP_ERR_OUT_OF_MEMORY;
    vk->alloc = d.allocator;
    vk->logger = d.logger;
    if (umap_vk__env_int("UMAP_VK_VALIDATION", &env_val) && env_val) d.validation = 1;
    if (d.mode == UMAP_VK_MODE_DEFAULT) {
        const char *m = getenv("UMAP_VK_MODE");
        d.mode = !m ? UMAP_VK_LAZY : !strcmp(m, "eager") ? UMAP_VK_EAGER : !strcmp(m, "compiled") ? UMAP_VK_COMPILED : UMAP_VK_LAZY;
    }
    vk->mode = d.mode;
    if ((r = umap_vk__open_instance(vk, d.validation, detail, detail_size)) != UMAP_OK ||
        (r = umap_vk__open_device(vk, &d, detail, detail_size)) != UMAP_OK) {
        umap_vk_free(vk);
        return r;
    }
    *out = vk;
    return UMAP_OK;
}

UMAP__FN umap_result umap_vk_device(const umap_vk *vk, umap_vk_device_info *out) {
    if (!vk || !out) return UMAP_ERR_INVALID_ARGUMENT;
    *out = vk->info;
    return UMAP_OK;
}

UMAP__FN int64_t umap_vk_validation_errors(const umap_vk *vk) { return vk ? vk->validation_errors : 0; }

UMAP__FN umap_result umap_vk_devices(umap_vk_device_info *out, int max, int *count, char *detail, size_t detail_size) {
    umap_vk *vk;
    VkPhysicalDevice *pds = NULL;
    uint32_t n = 0, i, m = 0;
    umap_result r;
    if (detail && detail_size) detail[0] = 0;
    if (count) *count = 0;
    if (!count || max < 0 || (max > 0 && !out)) return UMAP_ERR_INVALID_ARGUMENT;
    if (!(vk = (umap_vk *)umap__calloc(NULL, 1, sizeof *vk))) return UMAP_ERR_OUT_OF_MEMORY;
    if ((r = umap_vk__open_instance(vk, 0, detail, detail_size)) == UMAP_OK &&
        (r = umap_vk__physical(vk, &pds, &n, detail, detail_size)) == UMAP_OK) {
        for (i = 0; i < n; i++) {
            uint32_t bits;
            int family = umap_vk__compute_family(vk, pds[i], &bits);
            if (family == -2) {
                r = UMAP_ERR_OUT_OF_MEMORY;
                break;
            }
            if (family < 0) continue;
            if ((int)m < max) umap_vk__describe(vk, pds[i], (int)i, &out[m]);
            m++;
        }
        *count = (int)m;
    }
    umap__free(NULL, pds);
    umap_vk_free(vk);
    return r;
}

/* >>pipelines: the k-NN kernel, one pipeline per list length --------------- */

static umap_result umap_vk__knn_pipeline(umap_vk *vk, int list_len, VkPipeline *out) {
    int slot;
    umap_result r;
    if ((r = umap_vk__kernel_make(vk, UMAP_VK__KERNEL_knn_tile)) != UMAP_OK) return r;
    for (slot = 0; slot < UMAP_VK__KNN_VARIANTS; slot++)
        if (vk->knn_pipe[slot] && vk->knn_len[slot] == list_len) {
            *out = vk->knn_pipe[slot];
            return UMAP_OK;
        }
    for (slot = 0; slot < UMAP_VK__KNN_VARIANTS && vk->knn_pipe[slot]; slot++) {}
    if (slot == UMAP_VK__KNN_VARIANTS) { /* full: drop the oldest */
        vk->f.vkDestroyPipeline(vk->device, vk->knn_pipe[0], NULL);
        memmove(vk->knn_pipe, vk->knn_pipe + 1, (UMAP_VK__KNN_VARIANTS - 1) * sizeof vk->knn_pipe[0]);
        memmove(vk->knn_len, vk->knn_len + 1, (UMAP_VK__KNN_VARIANTS - 1) * sizeof vk->knn_len[0]);
        slot = UMAP_VK__KNN_VARIANTS - 1;
        vk->knn_pipe[slot] = VK_NULL_HANDLE;
    }
    if ((r = umap_vk__kernel_pipeline(vk, &vk->knn, &list_len, &vk->knn_pipe[slot])) != UMAP_OK) return r;
    vk->knn_len[slot] = list_len;
    *out = vk->knn_pipe[slot];
    return UMAP_OK;
}

/* >>knn: exact k-NN, GPU screening + host proof ----------------------------- */

typedef struct umap_vk__knn_proof {
    const float *x;                 /* the prepared rows (scaled or normalised, as umap_knn searches) */
    int64_t n, dim;
    int k, list_len;
    umap_metric metric;
    const float *list_d;            /* n x n_lists x list_len float screening values, each list
                                       ascending (one per data slice of the kernel) */
    const int32_t *list_i;
    int64_t n_lists;
    double rel, abs_slack, norm2_max; /* the error model; norm2_max: cosine only */
    int32_t *indices;
    float *distances;
    unsigned char *recheck;         /* rows whose proof failed */
    double *scratch_d;              /* per task: list_len doubles */
    int32_t *scratch_i;
    float *merged_d;                /* per task: list_len floats, ints, and n_lists cursors */
    int32_t *merged_i, *cursor;
    int64_t rows_per_task;
} umap_vk__knn_proof;

/* the least exact distance a row can have whose float screening value
   (a squared distance summed in float) is fl; ni: the query row's squared
   norm (cosine) */
static double umap_vk__lower_bound(const umap_vk__knn_proof *c, double fl, double ni) {
    double lb_sq = fl / (1.0 + c->rel) - c->abs_slack;
    if (lb_sq < 0) lb_sq = 0;
    /* cosine: 1 - x.y = (|x - y|^2 - |x|^2 - |y|^2) / 2 + 1, with |y|^2 <= norm2_max */
    if (umap__metrics[c->metric].screen == UMAP__SCREEN_GRAM_DOT) return (lb_sq - ni - c->norm2_max) / 2.0 + 1.0 - 1e-12;
    return umap__metrics[c->metric].finish(lb_sq, c->dim, 2.0) * (1.0 - 1e-12); /* euclidean's root, hellinger's */
}

static void umap_vk__proof_task(void *ctx, int64_t t) {
    umap_vk__knn_proof *c = (umap_vk__knn_proof *)ctx;
    int64_t i0 = t * c->rows_per_task, i1 = i0 + c->rows_per_task < c->n ? i0 + c->rows_per_task : c->n, i;
    double *dd = c->scratch_d + t * (int64_t)c->list_len;
    int32_t *ii = c->scratch_i + t * (int64_t)c->list_len;
    float *md = c->merged_d + t * (int64_t)c->list_len;
    int32_t *mi = c->merged_i + t * (int64_t)c->list_len, *cur = c->cursor + t * c->n_lists;
    int j;
    for (i = i0; i < i1; i++) {
        const float *xi = c->x + i * c->dim;
        const float *ld = c->list_d + i * c->n_lists * c->list_len;
        const int32_t *li = c->list_i + i * c->n_lists * c->list_len;
        double ni = 0.0;
        int ok = 1, m;
        if (c->n_lists > 1) { /* the first list_len of the slices' lists: every unlisted row is still
                                 no closer than the merged last entry, which no slice's last exceeds */
            int64_t sl;
            for (sl = 0; sl < c->n_lists; sl++) cur[sl] = 0;
            for (j = 0; j < c->list_len; j++) {
                int64_t best = -1;
                for (sl = 0; sl < c->n_lists; sl++) {
                    int64_t at = sl * c->list_len + cur[sl];
                    if (cur[sl] < c->list_len &&
                        (best < 0 || ld[at] < ld[best] || (ld[at] == ld[best] && li[at] < li[best])))
                        best = at;
                }
                md[j] = ld[best];
                mi[j] = li[best];
                cur[best / c->list_len]++;
            }
            ld = md;
            li = mi;
        }
        for (j = 0; j < c->list_len && ok; j++) ok = li[j] >= 0 && li[j] < c->n && li[j] != i;
        if (umap__metrics[c->metric].screen == UMAP__SCREEN_GRAM_DOT) {
            int64_t q;
            for (q = 0; q < c->dim; q++) ni += (double)xi[q] * xi[q];
        }
        /* Exact distances in the list's float order: the first k, then each
           next one only while its lower bound does not exceed the k-th exact
           distance so far (the float order is almost the exact one, so few
           of the 16 spares are needed); dd[0..m) stays sorted. */
        for (j = 0, m = 0; j < c->list_len && ok; j++) {
            double v;
            int b;
            if (m >= c->k && umap_vk__lower_bound(c, ld[j], ni) > dd[c->k - 1]) break; /* and every later one */
            v = umap__metrics[c->metric].ref(xi, c->x + (int64_t)li[j] * c->dim, c->dim, 2.0); /* Gram metrics: no p */
            for (b = m++; b > 0 && (dd[b - 1] > v || (dd[b - 1] == v && ii[b - 1] > li[j])); b--) {
                dd[b] = dd[b - 1];
                ii[b] = ii[b - 1];
            }
            dd[b] = v;
            ii[b] = li[j];
        }
        /* every unlisted row has a float value >= the last listed one */
        if (ok && c->list_len < c->n - 1) ok = umap_vk__lower_bound(c, ld[c->list_len - 1], ni) > dd[c->k - 1];
        if (!ok) {
            c->recheck[i] = 1;
            continue;
        }
        for (j = 0; j < c->k; j++) {
            if (c->indices) c->indices[i * c->k + j] = ii[j];
            if (c->distances) c->distances[i * c->k + j] = (float)dd[j];
        }
    }
}

/* a row the proof could not settle: every other row, in double */
static umap_result umap_vk__knn_row_direct(const umap_allocator *a, const float *x, int64_t n, int64_t dim,
                                           umap_metric metric, int k, int64_t i, int32_t *indices, float *distances) {
    double *d = (double *)umap__alloc(a, (size_t)k * sizeof(double));
    int32_t *ix = (int32_t *)umap__alloc(a, (size_t)k * sizeof(int32_t));
    int64_t j;
    int m = 0;
    if (!d || !ix) {
        umap__free(a, d);
        umap__free(a, ix);
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    for (j = 0; j < n; j++) {
        double v;
        int p;
        if (j == i) continue;
        v = umap__metrics[metric].ref(x + i * dim, x + j * dim, dim, 2.0);
        if (m == k && !(v < d[k - 1])) continue; /* j only grows: a tie loses to the smaller index */
        p = m < k ? m++ : k - 1;
        while (p > 0 && d[p - 1] > v) {
            d[p] = d[p - 1];
            ix[p] = ix[p - 1];
            p--;
        }
        d[p] = v;
        ix[p] = (int32_t)j;
    }
    for (j = 0; j < k; j++) {
        if (indices) indices[i * k + j] = ix[j];
        if (distances) distances[i * k + j] = (float)d[j];
    }
    umap__free(a, d);
    umap__free(a, ix);
    return UMAP_OK;
}

/* points set's bindings 0 .. n - 1 at bufs[] (whole buffers, or bytes
   [offset, offset + range) of each when range > 0) */
static void umap_vk__write_set(umap_vk *vk, VkDescriptorSet set, const umap_vk__buffer *const *bufs, int n, int64_t offset,
                               int64_t range) {
    VkDescriptorBufferInfo bi[8];
    VkWriteDescriptorSet ws;
    int q;
    for (q = 0; q < n; q++) {
        bi[q].buffer = bufs[q]->buf;
        bi[q].offset = (VkDeviceSize)offset;
        bi[q].range = range > 0 ? (VkDeviceSize)range : VK_WHOLE_SIZE;
    }
    memset(&ws, 0, sizeof ws);
    ws.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    ws.dstSet = set;
    ws.descriptorCount = (uint32_t)n;
    ws.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    ws.pBufferInfo = bi;
    vk->f.vkUpdateDescriptorSets(vk->device, 1, &ws, 0, NULL);
}

/* makes the context's k-NN space fit n rows of dim floats in windows of
   rows_per_win rows with lw list entries a row: the kept one when its
   buffers are large enough, else a new one */
static umap_result umap_vk__knn_space_fit(umap_vk *vk, int64_t n, int64_t dim, int64_t rows_per_win, int64_t n_win,
                                          int64_t lw, const char **what) {
    umap_vk__knn_space *ks = &vk->knn_space;
    const umap_vk__place place = vk->staging ? UMAP_VK__DEVICE : UMAP_VK__SHARED;
    int64_t w, v, stage_bytes = n * (dim + 2 * lw) * 4;
    int fits = ks->n_win == n_win && ks->staged == vk->staging && (!vk->staging || ks->stage.bytes >= stage_bytes);
    for (w = 0; w < n_win && fits; w++) {
        int64_t nr = (w + 1) * rows_per_win < n ? rows_per_win : n - w * rows_per_win;
        fits = ks->rows[w].bytes >= nr * dim * 4 && ks->ld[w].bytes >= nr * lw * 4 && ks->li[w].bytes >= nr * lw * 4;
    }
    if (fits) return UMAP_OK;
    umap_vk__knn_space_free(vk);
    ks->n_win = n_win;
    ks->staged = vk->staging;
    ks->rows = (umap_vk__buffer *)umap__calloc(&vk->alloc, (size_t)n_win, sizeof *ks->rows);
    ks->ld = (umap_vk__buffer *)umap__calloc(&vk->alloc, (size_t)n_win, sizeof *ks->ld);
    ks->li = (umap_vk__buffer *)umap__calloc(&vk->alloc, (size_t)n_win, sizeof *ks->li);
    ks->sets = (VkDescriptorSet *)umap__calloc(&vk->alloc, (size_t)(n_win * n_win), sizeof *ks->sets);
    *what = "out of memory";
    if (!ks->rows || !ks->ld || !ks->li || !ks->sets) return UMAP_ERR_OUT_OF_MEMORY;
    *what = "device memory";
    for (w = 0; w < n_win; w++) {
        int64_t nr = (w + 1) * rows_per_win < n ? rows_per_win : n - w * rows_per_win;
        if (umap_vk__buffer_make(vk, nr * dim * 4, place, &ks->rows[w]) != UMAP_OK ||
            umap_vk__buffer_make(vk, nr * lw * 4, place, &ks->ld[w]) != UMAP_OK ||
            umap_vk__buffer_make(vk, nr * lw * 4, place, &ks->li[w]) != UMAP_OK)
            return UMAP_ERR_OUT_OF_MEMORY;
        ks->bytes += nr * (dim + 2 * lw) * 4;
    }
    if (vk->staging) {
        *what = "staging memory";
        if (umap_vk__buffer_make(vk, stage_bytes, UMAP_VK__STAGING, &ks->stage) != UMAP_OK) return UMAP_ERR_OUT_OF_MEMORY;
        ks->bytes += stage_bytes;
    }
    { /* descriptor sets: one per (query window, data window) */
        VkDescriptorPoolSize ps;
        VkDescriptorPoolCreateInfo pci;
        VkDescriptorSetAllocateInfo sai;
        *what = "descriptor sets";
        ps.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        ps.descriptorCount = (uint32_t)(4 * n_win * n_win);
        memset(&pci, 0, sizeof pci);
        pci.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
        pci.maxSets = (uint32_t)(n_win * n_win);
        pci.poolSizeCount = 1;
        pci.pPoolSizes = &ps;
        if (vk->f.vkCreateDescriptorPool(vk->device, &pci, NULL, &ks->dpool) != VK_SUCCESS) {
            ks->dpool = VK_NULL_HANDLE;
            return UMAP_ERR_DEVICE;
        }
        memset(&sai, 0, sizeof sai);
        sai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
        sai.descriptorPool = ks->dpool;
        sai.descriptorSetCount = 1;
        sai.pSetLayouts = &vk->knn.set_layout;
        for (w = 0; w < n_win * n_win; w++)
            if (vk->f.vkAllocateDescriptorSets(vk->device, &sai, &ks->sets[w]) != VK_SUCCESS) return UMAP_ERR_DEVICE;
    }
    for (w = 0; w < n_win; w++)
        for (v = 0; v < n_win; v++) {
            const umap_vk__buffer *bufs[4];
            bufs[0] = &ks->rows[w]; bufs[1] = &ks->rows[v]; bufs[2] = &ks->ld[w]; bufs[3] = &ks->li[w];
            umap_vk__write_set(vk, ks->sets[w * n_win + v], bufs, 4, 0, 0);
        }
    return UMAP_OK;
}

/* the proof's thread pool: the caller's, else the context's (kept between
   searches, made again when n_threads changes) */
static umap_result umap_vk__knn_threads(umap_vk *vk, const umap__knn_opts *o, umap_pool **pool) {
    umap_result r;
    if (o->pool) {
        *pool = o->pool;
        return UMAP_OK;
    }
    if (!vk->knn_pool || vk->knn_pool_asked != o->n_threads) {
        umap_pool_free(vk->knn_pool);
        vk->knn_pool = NULL;
        if ((r = umap_pool_create(o->n_threads, &vk->alloc, &vk->knn_pool)) != UMAP_OK)
            return umap__fail(&o->err, r, "k-NN: cannot start %d threads", o->n_threads);
        vk->knn_pool_asked = o->n_threads;
    }
    *pool = vk->knn_pool;
    return UMAP_OK;
}

/* The shape of one search: windows of rows whose data and lists each fit
   one binding, the data rows a dispatch walks, and the lists per query
   row; staging_d and staging_i: where the lists' distances and indices sit
   in the staging buffer, in words. */
typedef struct umap_vk__knn_plan {
    int64_t n, dim;
    int list_len;          /* entries a list keeps: k + 16, at most n - 1 */
    int64_t rows_per_win;  /* rows per window (a multiple of 64 above 64) */
    int64_t n_win;
    int64_t chunk;         /* data rows per dispatch */
    int64_t n_lists;       /* lists per query row, one per data slice */
    int64_t slice_rows;    /* data rows per slice (a multiple of 64) */
    int64_t lw;            /* list entries per query row: n_lists x list_len */
    int64_t staging_d, staging_i;
} umap_vk__knn_plan;

/* rows of window w */
static int64_t umap_vk__knn_win_rows(const umap_vk__knn_plan *p, int64_t w) {
    int64_t r0 = w * p->rows_per_win;
    return r0 + p->rows_per_win < p->n ? p->rows_per_win : p->n - r0;
}

static umap_result umap_vk__knn_plan_make(const umap_vk *vk, const umap__knn_opts *o, int64_t n, int64_t dim,
                                          umap_vk__knn_plan *p) {
    int64_t win_rows, q_blocks, most;
    memset(p, 0, sizeof *p);
    p->n = n;
    p->dim = dim;
    p->list_len = o->k + 16 < n - 1 ? o->k + 16 : (int)(n - 1);
    p->rows_per_win = vk->binding_limit / (dim * (int64_t)sizeof(float));
    if (vk->binding_limit / (p->list_len * (int64_t)sizeof(float)) < p->rows_per_win)
        p->rows_per_win = vk->binding_limit / (p->list_len * (int64_t)sizeof(float));
    if (p->rows_per_win > (int64_t)vk->max_groups_x * 64) p->rows_per_win = (int64_t)vk->max_groups_x * 64;
    if (p->rows_per_win > 64) p->rows_per_win -= p->rows_per_win % 64;
    if (p->rows_per_win < 1)
        return umap__fail(&o->err, UMAP_ERR_TOO_LARGE, "one row of %lld floats exceeds the device's binding limit (%lld bytes)",
                              (long long)dim, (long long)vk->binding_limit);
    /* Data rows per dispatch. Mesa's lavapipe ends every invocation's loops
       after 65535 iterations in all (gallivm's loop limiter), silently, so
       on a CPU implementation a dispatch walks only as many 64-row blocks as
       stay far below that; GPUs take a whole window at once. */
    p->chunk = p->rows_per_win < n ? p->rows_per_win : n;
    if (vk->info.type == UMAP_VK_DEVICE_CPU) { /* about 2500 iterations per 64-row block and 16 columns */
        int64_t blocks = 8 / ((dim + 15) / 16);
        p->chunk = 64 * (blocks < 1 ? 1 : blocks);
        if (p->chunk > n) p->chunk = n;
    }
    /* Lists per query row: the kernel cuts each dispatch's data rows into
       n_lists slices, a workgroup per (64 query rows, slice), so that about
       4096 workgroups fill a large GPU even when n is small; on a GPU a
       slice keeps at least UMAP_VK__KNN_MIN_SLICE rows: every list pays
       its first insertions in full (on an H100 fewer, longer lists were
       faster: docs/vulkan.md). A CPU device has a few threads
       and short chunks, where a list sees few candidates and inserts
       often: at most 2 lists there. The lists of a window stay within one
       binding. */
    win_rows = p->rows_per_win < n ? p->rows_per_win : n;
    q_blocks = (win_rows + 63) / 64;
    most = vk->info.type == UMAP_VK_DEVICE_CPU ? (p->chunk >= 128 ? 2 : 1) : p->chunk / UMAP_VK__KNN_MIN_SLICE;
    p->n_lists = (4096 + q_blocks - 1) / q_blocks;
    if (p->n_lists > most) p->n_lists = most;
    if (p->n_lists > 64) p->n_lists = 64;
    if (p->n_lists > vk->binding_limit / (win_rows * p->list_len * (int64_t)sizeof(float)))
        p->n_lists = vk->binding_limit / (win_rows * p->list_len * (int64_t)sizeof(float));
    if (p->n_lists < 1) p->n_lists = 1;
    p->slice_rows = (p->chunk + p->n_lists - 1) / p->n_lists;
    p->slice_rows = (p->slice_rows + 63) / 64 * 64;
    p->n_lists = (p->chunk + p->slice_rows - 1) / p->slice_rows;
    p->n_win = (n + p->rows_per_win - 1) / p->rows_per_win;
    p->lw = p->n_lists * p->list_len;
    p->staging_d = n * dim; /* staging layout, in words: the rows, the lists' distances, their indices */
    p->staging_i = n * (dim + p->lw);
    return UMAP_OK;
}

/* the timestamp pool that times the kernels for the debug line, or
   VK_NULL_HANDLE (no timestamps, no logger, or no pool) */
static VkQueryPool umap_vk__knn_stamps(umap_vk *vk, const umap__knn_opts *o) {
    if (!(vk->timestamp_ns > 0.0f && o->logger.log_fn)) return VK_NULL_HANDLE;
    if (!vk->knn_stamps) {
        VkQueryPoolCreateInfo qi;
        memset(&qi, 0, sizeof qi);
        qi.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = 2;
        if (vk->f.vkCreateQueryPool(vk->device, &qi, NULL, &vk->knn_stamps) != VK_SUCCESS) vk->knn_stamps = VK_NULL_HANDLE;
    }
    return vk->knn_stamps;
}

/* Puts the rows x where the device reads them (the mapped windows, or the
   staging buffer) and records one command buffer: the rows up (staging),
   the lists' start (+inf, INT_MAX), every window pair with a barrier
   between passes over the same lists, the lists down (staging). With
   stamps, timestamps 0 and 1 bracket the kernels. The space is fitted to
   the plan. */
static void umap_vk__knn_record(umap_vk *vk, const umap_vk__knn_plan *p, const float *x, VkPipeline pipe,
                                VkQueryPool stamps) {
    umap_vk__knn_space *ks = &vk->knn_space;
    int64_t n = p->n, dim = p->dim, rows_per_win = p->rows_per_win, n_win = p->n_win, lw = p->lw, w, v, c0;
    if (vk->staging) memcpy(ks->stage.map, x, (size_t)(n * dim) * sizeof(float));
    else
        for (w = 0; w < n_win; w++)
            memcpy(ks->rows[w].map, x + w * rows_per_win * dim, (size_t)(umap_vk__knn_win_rows(p, w) * dim) * sizeof(float));
    vk->f.vkResetCommandPool(vk->device, vk->cmd_pool, 0);
    umap_vk__begin(vk, 1);
    if (vk->staging)
        umap_vk__barrier(vk, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_ACCESS_TRANSFER_READ_BIT);
    for (w = 0; w < n_win; w++) {
        int64_t r0 = w * rows_per_win, nr = umap_vk__knn_win_rows(p, w);
        if (vk->staging) {
            VkBufferCopy c;
            c.srcOffset = (VkDeviceSize)(r0 * dim) * 4;
            c.dstOffset = 0;
            c.size = (VkDeviceSize)(nr * dim) * 4;
            vk->f.vkCmdCopyBuffer(vk->cmd, ks->stage.buf, ks->rows[w].buf, 1, &c);
        }
        vk->f.vkCmdFillBuffer(vk->cmd, ks->ld[w].buf, 0, (VkDeviceSize)(nr * lw) * 4, 0x7f800000u); /* +inf */
        vk->f.vkCmdFillBuffer(vk->cmd, ks->li[w].buf, 0, (VkDeviceSize)(nr * lw) * 4, 0x7fffffffu);
    }
    umap_vk__barrier(vk, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    if (stamps) {
        vk->f.vkCmdResetQueryPool(vk->cmd, stamps, 0, 2);
        vk->f.vkCmdWriteTimestamp(vk->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, stamps, 0); /* after the uploads */
    }
    vk->f.vkCmdBindPipeline(vk->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    for (v = 0; v < n_win; v++) {
        int64_t x0 = v * rows_per_win, x_rows = umap_vk__knn_win_rows(p, v);
        for (c0 = 0; c0 < x_rows; c0 += p->chunk) {
            for (w = 0; w < n_win; w++) {
                umap_vk__pc_knn_tile pc;
                int64_t here = c0 + p->chunk < x_rows ? p->chunk : x_rows - c0;
                pc.q_rows = (int32_t)umap_vk__knn_win_rows(p, w);
                pc.x_rows = (int32_t)here;
                pc.dim = (int32_t)dim;
                pc.q_first = (int32_t)(w * rows_per_win);
                pc.x_first = (int32_t)(x0 + c0);
                pc.self_skip = 1;
                pc.x_skip = (int32_t)c0;
                pc.n_lists = (int32_t)p->n_lists;
                pc.slice_rows = (int32_t)p->slice_rows;
                vk->f.vkCmdBindDescriptorSets(vk->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->knn.layout, 0, 1,
                                              &ks->sets[w * n_win + v], 0, NULL);
                vk->f.vkCmdPushConstants(vk->cmd, vk->knn.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
                vk->f.vkCmdDispatch(vk->cmd, (uint32_t)((pc.q_rows + 63) / 64),
                                    (uint32_t)((here + p->slice_rows - 1) / p->slice_rows), 1);
            }
            /* the next chunk updates the same lists */
            umap_vk__barrier(vk, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        }
    }
    if (stamps) vk->f.vkCmdWriteTimestamp(vk->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, stamps, 1); /* after the kernels */
    if (vk->staging) {
        umap_vk__barrier(vk, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_ACCESS_TRANSFER_READ_BIT);
        for (w = 0; w < n_win; w++) {
            int64_t r0 = w * rows_per_win, nr = umap_vk__knn_win_rows(p, w);
            VkBufferCopy c;
            c.srcOffset = 0;
            c.size = (VkDeviceSize)(nr * lw) * 4;
            c.dstOffset = (VkDeviceSize)(p->staging_d + r0 * lw) * 4;
            vk->f.vkCmdCopyBuffer(vk->cmd, ks->ld[w].buf, ks->stage.buf, 1, &c);
            c.dstOffset = (VkDeviceSize)(p->staging_i + r0 * lw) * 4;
            vk->f.vkCmdCopyBuffer(vk->cmd, ks->li[w].buf, ks->stage.buf, 1, &c);
        }
        umap_vk__barrier(vk, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                         VK_ACCESS_HOST_READ_BIT);
    } else {
        umap_vk__barrier(vk, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                         VK_ACCESS_HOST_READ_BIT);
    }
    vk->f.vkEndCommandBuffer(vk->cmd);
}

/* the kernels' time from the two timestamps, in ms; -1 when unknown */
static double umap_vk__knn_kernel_ms(umap_vk *vk, VkQueryPool stamps) {
    uint64_t ticks[2], mask;
    if (!stamps || vk->f.vkGetQueryPoolResults(vk->device, stamps, 0, 2, sizeof ticks, ticks, sizeof ticks[0],
                                               VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS)
        return -1.0;
    mask = vk->timestamp_bits >= 64 ? ~0ull : (1ull << vk->timestamp_bits) - 1ull;
    return (double)((ticks[1] - ticks[0]) & mask) * vk->timestamp_ns * 1e-6;
}

/* The lists in row order after the submission: in the staging buffer, in
   the one window, or gathered from the windows into *gathered_d and
   *gathered_i (the caller frees them). */
static umap_result umap_vk__knn_lists(umap_vk *vk, const umap__knn_opts *o, const umap_vk__knn_plan *p,
                                      float **gathered_d, int32_t **gathered_i, const float **list_d,
                                      const int32_t **list_i) {
    umap_vk__knn_space *ks = &vk->knn_space;
    int64_t w;
    if (vk->staging) {
        *list_d = (const float *)ks->stage.map + p->staging_d;
        *list_i = (const int32_t *)ks->stage.map + p->staging_i;
        return UMAP_OK;
    }
    if (p->n_win == 1) {
        *list_d = (const float *)ks->ld[0].map;
        *list_i = (const int32_t *)ks->li[0].map;
        return UMAP_OK;
    }
    *gathered_d = (float *)umap__alloc(&o->alloc, (size_t)(p->n * p->lw) * sizeof(float));
    *gathered_i = (int32_t *)umap__alloc(&o->alloc, (size_t)(p->n * p->lw) * sizeof(int32_t));
    if (!*gathered_d || !*gathered_i) return umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "vulkan k-NN: out of memory");
    for (w = 0; w < p->n_win; w++) {
        int64_t r0 = w * p->rows_per_win, nr = umap_vk__knn_win_rows(p, w);
        memcpy(*gathered_d + r0 * p->lw, ks->ld[w].map, (size_t)(nr * p->lw) * sizeof(float));
        memcpy(*gathered_i + r0 * p->lw, ks->li[w].map, (size_t)(nr * p->lw) * sizeof(int32_t));
    }
    *list_d = *gathered_d;
    *list_i = *gathered_i;
    return UMAP_OK;
}

/* The proof on the host's pool: each row's k nearest from its screened
   lists where the error bound settles them, the rest searched directly
   against every row; indices and distances at the working scale.
   *proof_ms: the pool's part. */
static umap_result umap_vk__knn_prove(const umap__knn_opts *o, umap_pool *pool, const umap_vk__knn_plan *p,
                                      const float *x, const float *list_d, const int32_t *list_i, int32_t *indices,
                                      float *distances, double *proof_ms) {
    const umap_allocator *a = &o->alloc;
    umap_vk__knn_proof pf;
    int64_t n = p->n, dim = p->dim, n_tasks, i;
    umap_result r = UMAP_OK;
    memset(&pf, 0, sizeof pf);
    pf.list_d = list_d;
    pf.list_i = list_i;
    pf.x = x; pf.n = n; pf.dim = dim; pf.k = o->k; pf.list_len = p->list_len; pf.metric = o->metric;
    pf.n_lists = p->n_lists; pf.indices = indices; pf.distances = distances;
    pf.rel = (double)(dim + 8) * ldexp(1.0, -23);
    pf.abs_slack = (double)(dim + 1) * ldexp(1.0, -100);
    if (umap__metrics[o->metric].screen == UMAP__SCREEN_GRAM_DOT) {
        for (i = 0; i < n; i++) {
            double s = 0.0;
            int64_t q;
            for (q = 0; q < dim; q++) s += (double)x[i * dim + q] * x[i * dim + q];
            if (s > pf.norm2_max) pf.norm2_max = s;
        }
    }
    pf.rows_per_task = 256;
    n_tasks = (n + pf.rows_per_task - 1) / pf.rows_per_task;
    pf.recheck = (unsigned char *)umap__calloc(a, (size_t)n, 1);
    pf.scratch_d = (double *)umap__alloc(a, (size_t)(n_tasks * p->list_len) * sizeof(double));
    pf.scratch_i = (int32_t *)umap__alloc(a, (size_t)(n_tasks * p->list_len) * sizeof(int32_t));
    pf.merged_d = (float *)umap__alloc(a, (size_t)(n_tasks * p->list_len) * sizeof(float));
    pf.merged_i = (int32_t *)umap__alloc(a, (size_t)(n_tasks * p->list_len) * sizeof(int32_t));
    pf.cursor = (int32_t *)umap__alloc(a, (size_t)(n_tasks * p->n_lists) * sizeof(int32_t));
    if (!pf.recheck || !pf.scratch_d || !pf.scratch_i || !pf.merged_d || !pf.merged_i || !pf.cursor) {
        r = umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "vulkan k-NN: out of memory");
        goto done;
    }
    *proof_ms = umap__now_ms();
    umap_pool_for(pool, n_tasks, umap_vk__proof_task, &pf);
    *proof_ms = umap__now_ms() - *proof_ms;
    o->info->distance_evals = (double)n * (double)n + (double)n * p->list_len;
    for (i = 0; i < n && r == UMAP_OK; i++)
        if (pf.recheck[i]) {
            o->info->rechecked_rows++;
            o->info->distance_evals += (double)n;
            r = umap_vk__knn_row_direct(a, x, n, dim, o->metric, o->k, i, indices, distances);
        }
done:
    umap__free(a, pf.recheck);
    umap__free(a, pf.scratch_d);
    umap__free(a, pf.scratch_i);
    umap__free(a, pf.merged_d);
    umap__free(a, pf.merged_i);
    umap__free(a, pf.cursor);
    return r;
}

/* umap_vk_knn; with scale_e, the distances stay at the working scale
   2^-*scale_e, as umap__knn_self leaves them for umap_fit (umap_vk_fit reads
   them so: data near FLT_MAX has distances beyond float). Plan the windows,
   record and submit the screening, prove the lists on the host. */
static umap_result umap_vk__knn(umap_vk *vk, const umap_knn_desc *desc, const float *data, int64_t n, int64_t dim,
                                int32_t *indices, float *distances, int *scale_e) {
    umap__knn_opts o;
    umap_knn_info scratch;
    umap_pool *pool = NULL;
    float *prepared = NULL, maxabs = 0.0f, *gathered_d = NULL;
    double *col_w = NULL;
    int32_t *gathered_i = NULL;
    const float *x, *list_d = NULL;
    const int32_t *list_i = NULL;
    umap_vk__knn_plan plan;
    VkPipeline pipe;
    VkQueryPool stamps;
    const char *what = "";
    double t_all = umap__now_ms(), t_gpu = 0.0, t_setup = 0.0, t_proof = 0.0, t_kernels;
    int e;
    umap_result r;
    umap__knn_resolve(desc, &scratch, &o);
    o.method = UMAP_KNN_EXACT;
    if (!vk) return umap__fail(&o.err, UMAP_ERR_INVALID_ARGUMENT, "vk is NULL");
    if ((r = umap__knn_check_common(&o)) != UMAP_OK) return r;
    if (umap__metrics[o.metric].screen != UMAP__SCREEN_GRAM_L2 && umap__metrics[o.metric].screen != UMAP__SCREEN_GRAM_DOT) {
        /* the device screens by squared distances on the working copy, which
           serves the Gram metrics only: the others take the CPU's exact
           search (precomputed its selection), with the same contract and bits */
        umap_knn_desc cpu;
        memset(&cpu, 0, sizeof cpu);
        if (desc) cpu = *desc;
        cpu.method = UMAP_KNN_EXACT;
        if (!cpu.pool && (r = umap_vk__knn_threads(vk, &o, &cpu.pool)) != UMAP_OK) return r;
        umap__log(&o.logger, UMAP_LOG_INFO, "vulkan k-NN: metric %s runs on the CPU (the device screens euclidean, "
                  "cosine, correlation, hellinger and seuclidean)", umap_metric_name(o.metric));
        return umap__knn_self(&cpu, data, n, dim, indices, distances, scale_e);
    }
    if (o.k < 1 || (n >= 1 && o.k >= n))
        return umap__fail(&o.err, UMAP_ERR_INVALID_ARGUMENT, "k = %d with %lld rows: need 1 <= k < n", o.k, (long long)n);
    if (o.k > UMAP_VK__MAX_LIST - 16)
        return umap__fail(&o.err, UMAP_ERR_INVALID_ARGUMENT, "k = %d: the Vulkan k-NN takes k <= %d", o.k,
                              UMAP_VK__MAX_LIST - 16);
    if ((r = umap_vk__knn_threads(vk, &o, &pool)) != UMAP_OK) return r;
    if ((r = umap__knn_check_data(&o, pool, "data", data, n, dim, &maxabs)) != UMAP_OK) goto done;
    o.info->method = UMAP_KNN_EXACT;
    if ((r = umap__knn_columns(&o, data, n, dim, &col_w)) != UMAP_OK) goto done; /* seuclidean's weighted copy */
    e = umap__knn_scale_exponent(&o, maxabs);
    if ((r = umap__knn_prepare(&o, pool, data, n, dim, e, &prepared)) != UMAP_OK) goto done;
    x = prepared ? prepared : data;
    if (umap__knn_progress(&o, 0, 2, "stages")) { r = UMAP_ERR_CANCELLED; goto done; }

    /* plan */
    if ((r = umap_vk__knn_plan_make(vk, &o, n, dim, &plan)) != UMAP_OK) goto done;
    if ((r = umap_vk__knn_pipeline(vk, plan.list_len, &pipe)) != UMAP_OK) {
        r = umap__fail(&o.err, r, "vulkan k-NN: could not build the kernel");
        goto done;
    }
    /* With staging the windows are device-only and one staging buffer holds
       every window's rows, then every list's distances, then indices, in
       row order; without, the windows are mapped and the host uses them. */
    if ((r = umap_vk__knn_space_fit(vk, n, dim, plan.rows_per_win, plan.n_win, plan.lw, &what)) != UMAP_OK) {
        umap_vk__knn_space_free(vk); /* a part made is no space at all */
        r = umap__fail(&o.err, r, "vulkan k-NN: %s for %lld rows", what, (long long)n);
        goto done;
    }

    /* record and submit */
    stamps = umap_vk__knn_stamps(vk, &o);
    umap_vk__knn_record(vk, &plan, x, pipe, stamps);
    t_gpu = umap__now_ms();
    t_setup = t_gpu - t_all;
    if ((r = umap_vk__submit_wait(vk)) != UMAP_OK) {
        r = umap__fail(&o.err, r, "vulkan k-NN: the device failed or timed out");
        goto done;
    }
    t_gpu = umap__now_ms() - t_gpu;
    if (umap__knn_progress(&o, 1, 2, "stages")) { r = UMAP_ERR_CANCELLED; goto done; }
    t_kernels = umap_vk__knn_kernel_ms(vk, stamps);

    /* prove */
    if ((r = umap_vk__knn_lists(vk, &o, &plan, &gathered_d, &gathered_i, &list_d, &list_i)) != UMAP_OK) goto done;
    r = umap_vk__knn_prove(&o, pool, &plan, x, list_d, list_i, indices, distances, &t_proof);
    if (r == UMAP_OK && scale_e) *scale_e = e;
    else if (r == UMAP_OK) r = umap__knn_unscale(&o, distances, n, o.k, e);
    if (r == UMAP_OK && umap__knn_progress(&o, 2, 2, "stages")) r = UMAP_ERR_CANCELLED;
    umap__log(&o.logger, UMAP_LOG_DEBUG,
              "vulkan k-NN: %lld rows, %lld window%s, %lld lists a row, %s; setup %.1f ms, submission %.1f ms "
              "(kernels %.2f ms), proof %.1f ms, all %.1f ms, %lld rows rechecked",
              (long long)n, (long long)plan.n_win, plan.n_win == 1 ? "" : "s", (long long)plan.n_lists,
              vk->staging ? "staging" : "mapped", t_setup, t_gpu, t_kernels, t_proof,
              umap__now_ms() - t_all, (long long)o.info->rechecked_rows);
done:
    if (vk->knn_space.bytes > UMAP_VK__KNN_KEEP_BYTES) umap_vk__knn_space_free(vk); /* large: not kept */
    umap__free(&o.alloc, gathered_d);
    umap__free(&o.alloc, gathered_i);
    umap__free(&o.alloc, prepared);
    umap__free(&o.alloc, col_w);
    return r; /* the pool is the caller's or the context's */
}

UMAP__FN umap_result umap_vk_knn(umap_vk *vk, const umap_knn_desc *desc, const float *data, int64_t n, int64_t dim,
                                 int32_t *indices, float *distances) {
    return umap_vk__knn(vk, desc, data, n, dim, indices, distances, NULL);
}


/* >>backend: the tensor compiler's steps on the device (eager mode) -------- */

/* FILL runs as a region whose one instruction copies an immediate */
#define UMAP_VK__OP_COPY UMAP_OP_COUNT

/* region op codes of ew_region.comp: umap_op's own value, which the shader
   knows from the include generated from UMAP_OP_LIST (scripts/spirv_embed.c
   --ew-ops); -1: not elementwise */
static int umap_vk__ew_code(umap_op op) {
    if (op == UMAP_VK__OP_COPY) return (int)UMAP_VK__OP_COPY;
    return umap__is_elementwise(op) ? (int)op : -1;
}

/* makes b hold at least bytes (contents are not kept) */
static umap_result umap_vk__ensure(umap_vk *vk, umap_vk__buffer *b, int64_t bytes) {
    int64_t want;
    if (bytes < 16) bytes = 16;
    if (b->buf && b->bytes >= bytes) return UMAP_OK;
    umap_vk__buffer_free(vk, b);
    want = bytes + bytes / 2 > vk->binding_limit ? bytes : bytes + bytes / 2;
    return umap_vk__buffer_make(vk, want, UMAP_VK__SHARED, b);
}

/* One dispatch as the encoder describes it: which kernel, its push
   constants and its group counts. Its buffers are the run's: kernels with
   three bindings get (src, src, dst), with two (src, dst). */
typedef struct umap_vk__disp {
    const umap_vk__kernel *k;
    VkPipeline pipe;            /* a variant of k's (VK_NULL_HANDLE: k->pipe) */
    umap_vk__push push;         /* the kernel's member; k->push_bytes of it are pushed */
    uint32_t g[3];
} umap_vk__disp;

#define UMAP_VK__MAX_DISP UMAP_MAX_SRC
/* 64 x 64 matmul tiles from this many on (about a workgroup per compute
   unit of a large GPU); fewer run as 16 x 16 tiles */
#define UMAP_VK__BIG_TILES 64
/* reductions over this many elements per output take a workgroup each */
#define UMAP_VK__WIDE_REDUCE 2048

static void umap_vk__groups1(const umap_vk *vk, int64_t count, uint32_t g[3]) {
    int64_t groups = (count + 255) / 256, gx = groups < (int64_t)vk->max_groups_x ? groups : vk->max_groups_x;
    if (gx < 1) gx = 1;
    g[0] = (uint32_t)gx;
    g[1] = (uint32_t)((groups + gx - 1) / gx);
    g[2] = 1;
}

static umap_result umap_vk__kernels(umap_vk *vk) {
    umap_result r;
    /* the kernels the resident modes bind (the table's set = 1) */
#define UMAP_VK__X_MAKE(field, shader, bindings, plain, set) \
    if (set && (r = umap_vk__kernel_make(vk, UMAP_VK__KERNEL_##shader)) != UMAP_OK) return r;
    UMAP_VK__KERNELS(UMAP_VK__X_MAKE)
#undef UMAP_VK__X_MAKE
    if (!vk->matmul_small) {
        const int32_t one = 1;
        if ((r = umap_vk__kernel_pipeline(vk, &vk->k_matmul, &one, &vk->matmul_small)) != UMAP_OK) return r;
    }
    return UMAP_OK;
}

static int umap_vk__supports(const umap_backend *be, const umap_program *p, const umap_step *st) {
    const umap__pnode *n = &p->nodes[st->node];
    (void)be;
    if (st->kind == UMAP__STEP_REGION) return 1;
    if (umap_vk_op_cpu_only(n->op)) return 0; /* the declared contract wins over a stray case below */
    switch (n->op) {
    case UMAP_OP_FILL: case UMAP_OP_SUM: case UMAP_OP_MEAN: case UMAP_OP_RMAX: case UMAP_OP_RESHAPE:
    case UMAP_OP_PERMUTE: case UMAP_OP_BROADCAST: case UMAP_OP_SLICE: case UMAP_OP_CONCAT: case UMAP_OP_MATMUL:
    case UMAP_OP_GATHER: case UMAP_OP_SCATTER_ADD:
        return 1;
    default:
        return umap__is_elementwise(n->op);
    }
}

/* the region a step runs through the interpreter, or NULL: its own, a lone
   elementwise node's or FILL's (one immediate copied), the last two built
   in *scratch */
static const umap__region *umap_vk__step_region(const umap_program *p, const umap_step *st, umap__region *scratch) {
    const umap__pnode *n = &p->nodes[st->node];
    int q;
    if (st->kind == UMAP__STEP_REGION) return &p->regions[st->region];
    if (umap__is_elementwise(n->op)) {
        umap__single_op_region(p->nodes, n, scratch);
        return scratch;
    }
    if (n->op != UMAP_OP_FILL) return NULL;
    memset(scratch, 0, sizeof *scratch);
    scratch->numel = n->numel;
    for (q = 0; q < 4; q++) scratch->dim[q] = 1;
    scratch->dim[3] = n->numel;
    scratch->n_loads = 1;
    scratch->loads[0].kind = UMAP__LOAD_IMM;
    scratch->loads[0].reg = UMAP__REGION_MAX_NODES;
    scratch->loads[0].imm = n->fp[0];
    scratch->n_ins = 1;
    scratch->ins[0].op = UMAP_VK__OP_COPY;
    scratch->ins[0].a = scratch->ins[0].b = scratch->ins[0].c = UMAP__REGION_MAX_NODES;
    return scratch;
}

/* 32-bit words a step keeps beside its data: a region's program, a
   scatter-add's list of sources per output row */
static int64_t umap_vk__aux_words(const umap_program *p, const umap_step *st) {
    const umap__pnode *n = &p->nodes[st->node];
    umap__region scratch;
    const umap__region *R = umap_vk__step_region(p, st, &scratch);
    if (R) return 7 + 8 * (int64_t)R->n_loads + 7 * (int64_t)R->n_ins;
    if (n->op == UMAP_OP_SCATTER_ADD) return n->shape.dim[0] + 1 + p->nodes[n->src[1]].numel;
    return 0;
}

/* a region's program words (see ew_region.comp); load bases from off[] */
static void umap_vk__write_region(const umap__region *R, const int64_t *off, uint32_t *w) {
    int64_t at = 7;
    int l, i, q;
    w[0] = (uint32_t)R->numel;
    for (q = 0; q < 4; q++) w[1 + q] = (uint32_t)R->dim[q];
    w[5] = (uint32_t)R->n_loads;
    w[6] = (uint32_t)R->n_ins;
    for (l = 0; l < R->n_loads; l++, at += 8) {
        const umap__load *L = &R->loads[l];
        w[at] = (uint32_t)(L->kind == UMAP__LOAD_CONTIG ? 0 : L->kind == UMAP__LOAD_SCALAR ? 1 : L->kind == UMAP__LOAD_IMM ? 3 : 2);
        w[at + 1] = (uint32_t)L->reg;
        memcpy(&w[at + 2], &L->imm, 4);
        w[at + 3] = L->kind == UMAP__LOAD_IMM ? 0u : (uint32_t)off[L->node];
        for (q = 0; q < 4; q++) w[at + 4 + q] = (uint32_t)L->stride[q];
    }
    for (i = 0; i < R->n_ins; i++, at += 7) {
        const umap__ins *in = &R->ins[i];
        w[at] = (uint32_t)umap_vk__ew_code(in->op);
        w[at + 1] = (uint32_t)in->dst;
        w[at + 2] = (uint32_t)in->a;
        w[at + 3] = (uint32_t)in->b;
        w[at + 4] = (uint32_t)in->c;
        memcpy(&w[at + 5], &in->f0, 4);
        memcpy(&w[at + 6], &in->f1, 4);
    }
}

/* scatter-add's sources per output row, in index order (CSR): list[r] ..
   list[r + 1] index list[out_rows + 1 + ..]. Counting sort in place: the
   placing pass turns each row's start into its end, and a shift restores
   the starts. */
static void umap_vk__write_csr(const int32_t *idx, int64_t n_idx, int64_t out_rows, int32_t *list) {
    int64_t m, r;
    memset(list, 0, (size_t)(out_rows + 1) * 4);
    for (m = 0; m < n_idx; m++) list[idx[m] + 1]++;
    for (r = 0; r < out_rows; r++) list[r + 1] += list[r];
    for (m = 0; m < n_idx; m++) list[out_rows + 1 + list[idx[m]]++] = (int32_t)m;
    for (r = out_rows; r > 0; r--) list[r] = list[r - 1];
    list[0] = 0;
}

/* The dispatches of one step. off[node]: element offsets of the step's
   sources in the source buffer; dst: of its output in the destination
   buffer; aux_base: where its aux words start in the source buffer (they
   are written by the caller: umap_vk__write_region / umap_vk__write_csr);
   csr: the scatter list is there (else the kernel scans every index). */
static int umap_vk__encode(const umap_vk *vk, const umap_program *p, const umap_step *st, const int64_t *off, int64_t dst,
                           int64_t aux_base, int csr, umap_vk__disp *d) {
    const umap__pnode *n = &p->nodes[st->node];
    const umap__pnode *x = n->n_src > 0 ? &p->nodes[n->src[0]] : NULL;
    umap__region scratch;
    const umap__region *R = umap_vk__step_region(p, st, &scratch);
    int64_t q;
    int nd = 0, s;
    memset(d, 0, sizeof *d);
    if (R) {
        d->k = &vk->k_region;
        d->push.ew_region.prog_base = (uint32_t)aux_base;
        d->push.ew_region.dst_base = (uint32_t)dst;
        umap_vk__groups1(vk, R->numel, d->g);
        return 1;
    }
    switch (n->op) {
    case UMAP_OP_SUM: case UMAP_OP_MEAN: case UMAP_OP_RMAX: {
        int64_t dim[4], stride[4], count = 1;
        int o = UMAP_MAX_RANK - x->shape.rank;
        unsigned axes = ((unsigned)n->ip[0] << o) & 0xFu;
        umap_vk__pc_reduce *pc = &d->push.reduce;
        umap__pad_dims(x->shape, dim, stride);
        for (q = 0; q < 4; q++) {
            pc->dim[q] = (uint32_t)dim[q];
            pc->stride[q] = (uint32_t)stride[q];
            if (axes & (1u << q)) count *= dim[q];
        }
        pc->axes = axes;
        pc->n_out = (uint32_t)n->numel;
        pc->count = (uint32_t)count;
        pc->op = n->op == UMAP_OP_SUM ? 0u : n->op == UMAP_OP_MEAN ? 1u : 2u;
        pc->src_base = (uint32_t)off[n->src[0]];
        pc->dst_base = (uint32_t)dst;
        pc->wide = count >= UMAP_VK__WIDE_REDUCE; /* a workgroup per output */
        d->k = &vk->k_reduce;
        umap_vk__groups1(vk, pc->wide ? n->numel * 256 : n->numel, d->g);
        return 1;
    }
    case UMAP_OP_RESHAPE: case UMAP_OP_PERMUTE: case UMAP_OP_BROADCAST: case UMAP_OP_SLICE: {
        /* the strides of umap__copy_shape_op; reshape is a flat copy */
        int64_t in_dim[4], in_stride[4], out_dim[4], out_stride[4], src_stride[4], base = 0;
        umap_vk__pc_copy *pc = &d->push.copy;
        int o = UMAP_MAX_RANK - n->shape.rank, xo = UMAP_MAX_RANK - x->shape.rank;
        umap__pad_dims(x->shape, in_dim, in_stride);
        umap__pad_dims(n->shape, out_dim, out_stride);
        for (q = 0; q < 4; q++) {
            if (n->op == UMAP_OP_PERMUTE) src_stride[q] = q >= o ? in_stride[o + n->ip[q - o]] : 0;
            else if (n->op == UMAP_OP_BROADCAST) src_stride[q] = (q >= xo && in_dim[q] != 1) ? in_stride[q] : 0;
            else src_stride[q] = out_stride[q]; /* reshape: the same flat order */
        }
        if (n->op == UMAP_OP_SLICE) {
            for (q = 0; q < 4; q++) src_stride[q] = in_stride[q];
            base = n->lp[0] * in_stride[o + n->ip[0]];
        }
        for (q = 0; q < 4; q++) {
            pc->dim[q] = (uint32_t)out_dim[q];
            pc->src_stride[q] = (uint32_t)src_stride[q];
            pc->dst_stride[q] = (uint32_t)out_stride[q];
        }
        pc->src_base = (uint32_t)(off[n->src[0]] + base);
        pc->dst_base = (uint32_t)dst;
        pc->count = (uint32_t)n->numel;
        d->k = &vk->k_copy;
        umap_vk__groups1(vk, n->numel, d->g);
        return 1;
    }
    case UMAP_OP_CONCAT: {
        int axis = n->ip[0];
        int64_t outer = 1, inner = 1, out_axis = n->shape.dim[axis], at = 0;
        for (q = 0; q < axis; q++) outer *= n->shape.dim[q];
        for (q = axis + 1; q < n->shape.rank; q++) inner *= n->shape.dim[q];
        for (s = 0; s < n->n_src; s++, nd++) {
            int64_t len = p->nodes[n->src[s]].shape.dim[axis];
            umap_vk__disp *e = &d[nd];
            umap_vk__pc_copy *pc = &e->push.copy;
            memset(e, 0, sizeof *e);
            pc->dim[0] = 1; pc->dim[1] = (uint32_t)outer; pc->dim[2] = (uint32_t)len; pc->dim[3] = (uint32_t)inner;
            pc->src_stride[0] = 0; pc->src_stride[1] = (uint32_t)(len * inner);
            pc->src_stride[2] = (uint32_t)inner; pc->src_stride[3] = 1;
            pc->dst_stride[0] = 0; pc->dst_stride[1] = (uint32_t)(out_axis * inner);
            pc->dst_stride[2] = (uint32_t)inner; pc->dst_stride[3] = 1;
            pc->src_base = (uint32_t)off[n->src[s]];
            pc->dst_base = (uint32_t)(dst + at * inner);
            pc->count = (uint32_t)(outer * len * inner);
            e->k = &vk->k_copy;
            umap_vk__groups1(vk, outer * len * inner, e->g);
            at += len;
        }
        return nd;
    }
    case UMAP_OP_MATMUL: {
        const umap__pnode *a = &p->nodes[n->src[0]], *b = &p->nodes[n->src[1]];
        int ta = n->ip[0], tb = n->ip[1];
        int64_t batch = n->shape.rank == 3 ? n->shape.dim[0] : 1, M = n->shape.dim[n->shape.rank - 2],
                N = n->shape.dim[n->shape.rank - 1], K = a->shape.dim[a->shape.rank - (ta ? 2 : 1)];
        umap_vk__pc_matmul *pc = &d->push.matmul;
        pc->M = (uint32_t)M; pc->N = (uint32_t)N; pc->K = (uint32_t)K;
        pc->ta = (uint32_t)ta; pc->tb = (uint32_t)tb;
        pc->a_base = (uint32_t)off[n->src[0]]; pc->b_base = (uint32_t)off[n->src[1]];
        pc->a_step = (uint32_t)(a->shape.rank == 3 ? M * K : 0);
        pc->b_step = (uint32_t)(b->shape.rank == 3 ? K * N : 0);
        pc->c_base = (uint32_t)dst;
        d->k = &vk->k_matmul;
        {   /* 64 x 64 register-blocked tiles when there are enough of them to
               fill a GPU, else 16 x 16 tiles (16 times the workgroups) */
            int64_t tiles = ((M + 63) / 64) * ((N + 63) / 64) * batch, tile = tiles >= UMAP_VK__BIG_TILES ? 64 : 16;
            if (tile == 16) d->pipe = vk->matmul_small;
            d->g[0] = (uint32_t)((N + tile - 1) / tile);
            d->g[1] = (uint32_t)((M + tile - 1) / tile);
        }
        d->g[2] = (uint32_t)batch;
        return 1;
    }
    case UMAP_OP_GATHER: case UMAP_OP_SCATTER_ADD: {
        const umap__pnode *ix = &p->nodes[n->src[1]];
        int64_t out_rows = n->shape.dim[0];
        umap_vk__pc_gather *pc = &d->push.gather;
        pc->mode = n->op == UMAP_OP_GATHER ? 0u : csr ? 1u : 2u;
        pc->row = (uint32_t)(n->numel / out_rows);
        pc->n_out_rows = (uint32_t)out_rows;
        pc->list_base = (uint32_t)(aux_base + out_rows + 1);
        pc->x_base = (uint32_t)off[n->src[0]];
        pc->ix_base = (uint32_t)(n->op == UMAP_OP_SCATTER_ADD && csr ? aux_base : off[n->src[1]]);
        pc->y_base = (uint32_t)dst;
        pc->n_idx = (uint32_t)ix->numel;
        pc->n_x_rows = (uint32_t)x->shape.dim[0];
        d->k = &vk->k_gather;
        umap_vk__groups1(vk, n->numel, d->g);
        return 1;
    }
    default:
        return 0;
    }
}

/* records one dispatch on vk->cmd, with a barrier after it */
static void umap_vk__record(umap_vk *vk, const umap_vk__disp *d, VkDescriptorSet set) {
    vk->f.vkCmdBindPipeline(vk->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipe ? d->pipe : d->k->pipe);
    vk->f.vkCmdBindDescriptorSets(vk->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->k->layout, 0, 1, &set, 0, NULL);
    if (d->k->push_bytes)
        vk->f.vkCmdPushConstants(vk->cmd, d->k->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, d->k->push_bytes, &d->push);
    vk->f.vkCmdDispatch(vk->cmd, d->g[0], d->g[1], d->g[2]);
    umap_vk__barrier(vk, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);
}

/* the compiler's kernels (the table's set = 1), in the order of their descriptor sets */
static void umap_vk__set_kernels(const umap_vk *vk, const umap_vk__kernel *ks[UMAP_VK__N_SETS]) {
    int i = 0;
#define UMAP_VK__X_SETK(field, shader, bindings, plain, set) \
    if (set) ks[i++] = &vk->field;
    UMAP_VK__KERNELS(UMAP_VK__X_SETK)
#undef UMAP_VK__X_SETK
}

/* a descriptor pool for max_sets sets of at most per_set storage buffers */
static umap_result umap_vk__pool_make(umap_vk *vk, uint32_t max_sets, uint32_t per_set, VkDescriptorPool *pool) {
    VkDescriptorPoolSize ps;
    VkDescriptorPoolCreateInfo pci;
    ps.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    ps.descriptorCount = per_set * max_sets;
    memset(&pci, 0, sizeof pci);
    pci.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    pci.maxSets = max_sets;
    pci.poolSizeCount = 1;
    pci.pPoolSizes = &ps;
    if (vk->f.vkCreateDescriptorPool(vk->device, &pci, NULL, pool) != VK_SUCCESS) {
        *pool = VK_NULL_HANDLE;
        return UMAP_ERR_DEVICE;
    }
    return UMAP_OK;
}

/* descriptor sets from pool binding (src, dst), (src, src, dst) or (dst)
   for the kernels in `kernels` (bit i: the i-th of umap_vk__set_kernels),
   each binding bytes [offset, offset + range) of its buffer (range 0: to
   the end) */
static umap_result umap_vk__sets(umap_vk *vk, VkDescriptorPool pool, const umap_vk__buffer *src, const umap_vk__buffer *dst,
                                 int64_t offset, int64_t range, unsigned kernels, VkDescriptorSet sets[UMAP_VK__N_SETS]) {
    const umap_vk__kernel *ks[UMAP_VK__N_SETS];
    int i, j;
    umap_vk__set_kernels(vk, ks);
    for (i = 0; i < UMAP_VK__N_SETS; i++) {
        VkDescriptorSetAllocateInfo sai;
        const umap_vk__buffer *bufs[3];
        if (!(kernels >> i & 1u)) continue;
        memset(&sai, 0, sizeof sai);
        sai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
        sai.descriptorPool = pool;
        sai.descriptorSetCount = 1;
        sai.pSetLayouts = &ks[i]->set_layout;
        if (vk->f.vkAllocateDescriptorSets(vk->device, &sai, &sets[i]) != VK_SUCCESS) return UMAP_ERR_DEVICE;
        for (j = 0; j < ks[i]->n_bindings; j++) bufs[j] = j == ks[i]->n_bindings - 1 ? dst : src;
        umap_vk__write_set(vk, sets[i], bufs, ks[i]->n_bindings, offset, range);
    }
    return UMAP_OK;
}

#define UMAP_VK__ALL_SETS ((1u << UMAP_VK__N_SETS) - 1u)

/* kernel k's place in umap_vk__set_kernels' order: its bit in
   umap_vk__sets' mask, its set in their array */
static int umap_vk__kernel_index(const umap_vk *vk, const umap_vk__kernel *k) {
    const umap_vk__kernel *ks[UMAP_VK__N_SETS];
    int i;
    umap_vk__set_kernels(vk, ks);
    for (i = 0; i + 1 < UMAP_VK__N_SETS && ks[i] != k; i++) {}
    return i;
}

static VkDescriptorSet umap_vk__set_of(const umap_vk *vk, const umap_vk__kernel *k, const VkDescriptorSet sets[UMAP_VK__N_SETS]) {
    return sets[umap_vk__kernel_index(vk, k)];
}

/* checks a gather / scatter-add step's indices when they live on the host */
static umap_result umap_vk__check_step_indices(umap_program *p, const umap__pnode *n) {
    const umap__pnode *x = &p->nodes[n->src[0]], *ix = &p->nodes[n->src[1]];
    return umap__check_indices(p, (const int32_t *)p->ptr[n->src[1]], ix->numel,
                               n->op == UMAP_OP_GATHER ? x->shape.dim[0] : n->lp[0], umap__op_names[n->op]);
}

/* the nodes a step's kernels read through umap_vk__encode's off[] (and
   umap_vk__write_region's), each once */
#define UMAP_VK__MAX_SOURCES (UMAP__REGION_MAX_LOADS > UMAP_MAX_SRC ? UMAP__REGION_MAX_LOADS : UMAP_MAX_SRC)
static int umap_vk__step_sources(const umap_program *p, const umap_step *st, int srcs[UMAP_VK__MAX_SOURCES]) {
    const umap__pnode *n = &p->nodes[st->node];
    umap__region scratch;
    const umap__region *R = umap_vk__step_region(p, st, &scratch);
    int i, j, m = 0, count = R ? R->n_loads : n->n_src;
    for (i = 0; i < count; i++) {
        int node = R ? R->loads[i].node : n->src[i];
        if (R && R->loads[i].kind == UMAP__LOAD_IMM) continue;
        for (j = 0; j < m && srcs[j] != node; j++) {}
        if (j == m) srcs[m++] = node;
    }
    return m;
}

/* >>eager: one step at a time, inputs packed into b_src, output from b_dst */
static umap_result umap_vk__run_step(const umap_backend *be, umap_program *p, const umap_step *st) {
    umap_vk *vk = (umap_vk *)be->user_data;
    const umap__pnode *n = &p->nodes[st->node];
    umap_vk__disp d[UMAP_VK__MAX_DISP];
    umap__region scratch;
    const umap__region *R = umap_vk__step_region(p, st, &scratch);
    int64_t *off, packed = 0, aux_words = umap_vk__aux_words(p, st);
    int srcs[UMAP_VK__MAX_SOURCES], n_srcs, i, nd;
    VkDescriptorSet sets[UMAP_VK__N_SETS];
    umap_result r;
    if ((r = umap_vk__kernels(vk)) != UMAP_OK) return umap__fail(&p->err, r, "vulkan: could not build the kernels");
    /* off[] is indexed by node id, kept by the context across steps */
    if (vk->step_off_cap < p->n_nodes) {
        umap__free(&vk->alloc, vk->step_off);
        vk->step_off_cap = 0;
        if (!(vk->step_off = (int64_t *)umap__alloc(&vk->alloc, (size_t)p->n_nodes * sizeof(int64_t))))
            return umap__fail(&p->err, UMAP_ERR_OUT_OF_MEMORY, "vulkan: out of memory");
        vk->step_off_cap = p->n_nodes;
    }
    off = vk->step_off;
    n_srcs = umap_vk__step_sources(p, st, srcs); /* each packed once */
    for (i = 0; i < n_srcs; i++) {
        off[srcs[i]] = packed;
        packed += p->nodes[srcs[i]].numel;
    }
    if ((packed + aux_words) * 4 > vk->binding_limit || n->numel * 4 > vk->binding_limit)
        return umap__fail(&p->err, UMAP_ERR_TOO_LARGE, "vulkan (eager): step '%s' moves more than one binding holds",
                               umap__op_names[n->op]);
    if ((r = umap_vk__ensure(vk, &vk->b_src, (packed + aux_words) * 4)) ||
        (r = umap_vk__ensure(vk, &vk->b_dst, n->numel * 4)))
        return umap__fail(&p->err, r, "vulkan: device memory for step '%s'", umap__op_names[n->op]);
    for (i = 0; i < n_srcs; i++)
        memcpy((float *)vk->b_src.map + off[srcs[i]], p->ptr[srcs[i]], (size_t)p->nodes[srcs[i]].numel * 4);
    /* the aux words go after the inputs */
    if (R) {
        umap_vk__write_region(R, off, (uint32_t *)vk->b_src.map + packed);
    } else if (n->op == UMAP_OP_GATHER || n->op == UMAP_OP_SCATTER_ADD) {
        if ((r = umap_vk__check_step_indices(p, n)) != UMAP_OK) return r;
        if (n->op == UMAP_OP_SCATTER_ADD)
            umap_vk__write_csr((const int32_t *)p->ptr[n->src[1]], p->nodes[n->src[1]].numel, n->shape.dim[0],
                               (int32_t *)vk->b_src.map + packed);
    }
    if ((nd = umap_vk__encode(vk, p, st, off, 0, packed, 1, d)) == 0)
        return umap__fail(&p->err, UMAP_ERR_UNSUPPORTED_OP, "vulkan: no kernel for op '%s'", umap__op_names[n->op]);
    if (vk->step_pool) vk->f.vkResetDescriptorPool(vk->device, vk->step_pool, 0);
    if ((!vk->step_pool && (r = umap_vk__pool_make(vk, UMAP_VK__N_SETS, 3, &vk->step_pool)) != UMAP_OK) ||
        (r = umap_vk__sets(vk, vk->step_pool, &vk->b_src, &vk->b_dst, 0, 0, UMAP_VK__ALL_SETS, sets)) != UMAP_OK)
        return umap__fail(&p->err, r, "vulkan: descriptor sets");
    vk->f.vkResetCommandPool(vk->device, vk->cmd_pool, 0);
    umap_vk__begin(vk, 1);
    for (i = 0; i < nd; i++) umap_vk__record(vk, &d[i], umap_vk__set_of(vk, d[i].k, sets));
    vk->f.vkEndCommandBuffer(vk->cmd);
    if ((r = umap_vk__submit_wait(vk)) != UMAP_OK)
        return umap__fail(&p->err, r, "vulkan: step '%s' failed on the device", umap__op_names[n->op]);
    memcpy(p->ptr[st->node], vk->b_dst.map, (size_t)n->numel * 4);
    return UMAP_OK;
}

/* where a node's data really lives: through aliases (reshapes) to their source */
static int umap_vk__storage_root(const umap_program *p, int node) {
    while (p->storage[node] == UMAP__ST_ALIAS) node = p->nodes[node].src[0];
    return p->storage[node];
}

/* >>resident: the lazy and compiled modes. One device buffer holds the
   arena, a slot per bound input and constant, and the steps' aux words;
   a run copies the bound inputs in, runs every step from one command
   buffer (recorded per run: lazy; once: compiled) and copies the outputs
   out.

   A program larger than one binding runs in windows: each step's kernels
   bind only the span of the buffer its operands occupy (from a base
   aligned as the device asks; the offsets they get are relative to it).
   A step whose operands lie further apart than one binding first copies
   them into a scratch area at the end of the buffer, runs there and copies
   what it wrote back home. So a program is refused only when one step's
   own operands exceed a binding, as in eager mode. */

/* a range of the buffer a step's kernels read or write */
typedef struct umap_vk__operand {
    int node;            /* whose data (-1: aux words, Adam's moments or header) */
    int64_t word, words; /* where it lives */
    int64_t rel;         /* where the kernels find it: from the window's base */
    int reads, writes;
} umap_vk__operand;

typedef struct umap_vk__window {
    int64_t base, words;  /* the binding: words [base, base + words) of the buffer */
    int first, n;         /* its operands in the resident's ops[] */
    int scratch;          /* base is the scratch area: operands copied in, results out */
    int64_t dst, aux;     /* the step's output and aux words, relative to base (Adam: its header as aux) */
    VkDescriptorSet sets[UMAP_VK__N_SETS]; /* of the kernels the step uses */
} umap_vk__window;

typedef struct umap_vk__resident {
    umap_vk__buffer mem;
    umap_vk__buffer stage;   /* with staging: the host's copy of mem (mem is then device-only) */
    float *host;             /* where the host reads and writes: stage's or mem's mapping */
    VkBufferCopy *ups, *downs; /* with staging: per run, inputs and scatter lists up, outputs down */
    int n_ups, n_downs;
    VkDescriptorPool pool;
    VkDescriptorSet sets[UMAP_VK__N_SETS];
    int64_t *off;        /* element offset of every node in mem */
    int64_t *aux;        /* per step: aux word offset (-1: none) */
    int *csr;            /* per step: scatter list built on the host */
    /* umap_program_train_*: the trained params live here between runs, with
       Adam's moments and the header adam.comp reads (train_hdr < 0: none) */
    int64_t *train_w;    /* per trained param: its weights' offset */
    int64_t train_m, train_v, train_hdr;
    unsigned char *trained; /* per node: a trained param (never uploaded by a run) */
    int pending;         /* a step waits for the next submission */
    /* windows (NULL when one binding spans the buffer): one per step, Adam's at [n_steps] */
    umap_vk__window *win;
    umap_vk__operand *ops;
    int64_t *win_off;    /* while recording a step: its sources' offsets from its window's base, by node */
    VkBufferCopy *moves; /* while recording a step: its scratch copies */
} umap_vk__resident;

/* adam.comp's header: 14 words, then 4 per param */
#define UMAP_VK__TRAIN_HDR 14

static void umap_vk__release(const umap_backend *be, umap_program *p) {
    umap_vk *vk = (umap_vk *)be->user_data;
    void **slot = umap_program_backend_state(p);
    umap_vk__resident *rs = (umap_vk__resident *)*slot;
    if (!rs) return;
    umap_vk__buffer_free(vk, &rs->mem);
    umap_vk__buffer_free(vk, &rs->stage);
    umap__free(&p->alloc, rs->ups);
    umap__free(&p->alloc, rs->downs);
    if (rs->pool) vk->f.vkDestroyDescriptorPool(vk->device, rs->pool, NULL);
    if (vk->recorded_for == rs) vk->recorded_for = NULL;
    umap__free(&p->alloc, rs->off);
    umap__free(&p->alloc, rs->aux);
    umap__free(&p->alloc, rs->csr);
    umap__free(&p->alloc, rs->train_w);
    umap__free(&p->alloc, rs->trained);
    umap__free(&p->alloc, rs->win);
    umap__free(&p->alloc, rs->ops);
    umap__free(&p->alloc, rs->win_off);
    umap__free(&p->alloc, rs->moves);
    umap__free(&p->alloc, rs);
    *slot = NULL;
}

/* --- windows (a program larger than one binding) --- */

static umap_vk__operand umap_vk__operand_of(int node, int64_t word, int64_t words, int reads, int writes) {
    umap_vk__operand o;
    o.node = node;
    o.word = word;
    o.words = words;
    o.rel = 0;
    o.reads = reads;
    o.writes = writes;
    return o;
}

/* step s's operands: its sources, its aux words, then its output */
static int umap_vk__step_operands(const umap_program *p, const umap_vk__resident *rs, int s, umap_vk__operand *o) {
    const umap_step *st = &p->steps[s];
    int srcs[UMAP_VK__MAX_SOURCES], n_srcs = umap_vk__step_sources(p, st, srcs), i, m = 0;
    for (i = 0; i < n_srcs; i++) o[m++] = umap_vk__operand_of(srcs[i], rs->off[srcs[i]], p->nodes[srcs[i]].numel, 1, 0);
    if (rs->aux[s] >= 0) o[m++] = umap_vk__operand_of(-1, rs->aux[s], umap_vk__aux_words(p, st), 1, 0);
    o[m++] = umap_vk__operand_of(st->node, rs->off[st->node], p->nodes[st->node].numel, 0, 1);
    return m;
}

/* Adam's operands: every param's weights, then every gradient, the two
   moments, the header */
static int umap_vk__adam_operands(const umap_program *p, const umap_vk__resident *rs, umap_vk__operand *o) {
    const umap__train_state *t = p->train;
    int i, m = 0;
    for (i = 0; i < t->n; i++) o[m++] = umap_vk__operand_of(-1, rs->train_w[i], t->size[i], 1, 1);
    for (i = 0; i < t->n; i++) o[m++] = umap_vk__operand_of(-1, rs->off[t->grad_node[i]], t->size[i], 1, 0);
    o[m++] = umap_vk__operand_of(-1, rs->train_m, t->total, 1, 1);
    o[m++] = umap_vk__operand_of(-1, rs->train_v, t->total, 1, 1);
    o[m++] = umap_vk__operand_of(-1, rs->train_hdr, UMAP_VK__TRAIN_HDR + 4 * (int64_t)t->n, 1, 0);
    return m;
}

/* Places window w's operands: in place when their span fits one binding,
   else packed into the scratch area (whose base is set later). Returns the
   scratch words it needs, or -1 when its operands alone exceed a binding. */
static int64_t umap_vk__place_window(const umap_vk *vk, umap_vk__window *w, umap_vk__operand *o) {
    const int64_t align = vk->binding_align / 4, limit = vk->binding_limit / 4;
    int64_t lo = o[0].word, hi = o[0].word + o[0].words, at = 0;
    int i, j;
    for (i = 1; i < w->n; i++) {
        if (o[i].word < lo) lo = o[i].word;
        if (o[i].word + o[i].words > hi) hi = o[i].word + o[i].words;
    }
    w->base = lo / align * align;
    if (hi - w->base <= limit) {
        w->words = hi - w->base;
        for (i = 0; i < w->n; i++) o[i].rel = o[i].word - w->base;
        return 0;
    }
    w->scratch = 1;
    for (i = 0; i < w->n; i++) {
        for (j = 0; j < i && !(o[j].word == o[i].word && o[j].words == o[i].words && !o[j].writes && !o[i].writes); j++) {}
        if (j < i) { /* a source read twice is copied once */
            o[i].rel = o[j].rel;
            continue;
        }
        o[i].rel = at;
        at += (o[i].words + 3) / 4 * 4; /* 16-byte aligned, as everything in the buffer */
    }
    w->words = at;
    return at <= limit ? at : -1;
}

/* window planning for a program of *words words: every step's window and
   Adam's, their descriptor sets, the scratch area appended to *words */
static umap_result umap_vk__plan_windows(umap_vk *vk, umap_program *p, umap_vk__resident *rs, int64_t *words) {
    const int64_t align = vk->binding_align / 4;
    int n_win = p->n_steps + (p->train ? 1 : 0), total = 0, max_ops = 0, s;
    int64_t scratch = 0, scratch_base;
    for (s = 0; s < p->n_steps; s++) {
        int srcs[UMAP_VK__MAX_SOURCES];
        total += umap_vk__step_sources(p, &p->steps[s], srcs) + 2;
    }
    if (p->train) total += 2 * p->train->n + 3;
    rs->win = (umap_vk__window *)umap__calloc(&p->alloc, (size_t)n_win + 1, sizeof *rs->win);
    rs->ops = (umap_vk__operand *)umap__calloc(&p->alloc, (size_t)total + 1, sizeof *rs->ops);
    rs->win_off = (int64_t *)umap__calloc(&p->alloc, (size_t)p->n_nodes + 1, sizeof(int64_t));
    if (!rs->win || !rs->ops || !rs->win_off) return umap__fail(&p->err, UMAP_ERR_OUT_OF_MEMORY, "vulkan: out of memory");
    for (s = 0, total = 0; s < n_win; s++) {
        umap_vk__window *w = &rs->win[s];
        umap_vk__operand *o = rs->ops + total;
        int adam = s == p->n_steps;
        w->first = total;
        w->n = adam ? umap_vk__adam_operands(p, rs, o) : umap_vk__step_operands(p, rs, s, o);
        total += w->n;
        if (w->n > max_ops) max_ops = w->n;
        {
            int64_t need = umap_vk__place_window(vk, w, o);
            if (need < 0)
                return umap__fail(&p->err, UMAP_ERR_TOO_LARGE,
                                       "vulkan: %s '%s' reads and writes %lld bytes, one binding holds %lld",
                                       adam ? "the Adam step" : "step", adam ? "adam" : umap__op_names[p->nodes[p->steps[s].node].op],
                                       (long long)(w->words * 4), (long long)vk->binding_limit);
            if (need > scratch) scratch = need;
        }
        w->dst = adam ? 0 : o[w->n - 1].rel;
        w->aux = adam ? o[w->n - 1].rel : rs->aux[s] >= 0 ? o[w->n - 2].rel : 0;
    }
    /* the scratch area after everything else */
    scratch_base = (*words + align - 1) / align * align;
    if (scratch) *words = scratch_base + scratch;
    for (s = 0, total = 0; s < n_win; s++)
        if (rs->win[s].scratch) rs->win[s].base = scratch_base, total++;
    umap__log(&vk->logger, UMAP_LOG_DEBUG,
              "vulkan: a program of %lld bytes runs in windows of at most %lld bytes, %d of its %d through "
              "%lld bytes of scratch",
              (long long)(*words * 4), (long long)vk->binding_limit, total, n_win, (long long)(scratch * 4));
    if (!(rs->moves = (VkBufferCopy *)umap__calloc(&p->alloc, (size_t)max_ops + 1, sizeof(VkBufferCopy))))
        return umap__fail(&p->err, UMAP_ERR_OUT_OF_MEMORY, "vulkan: out of memory");
    return UMAP_OK;
}

/* every window's descriptor sets, for the kernels its step uses (found by
   encoding it once; the offsets do not matter) */
static umap_result umap_vk__window_sets(umap_vk *vk, umap_program *p, umap_vk__resident *rs) {
    int n_win = p->n_steps + (p->train ? 1 : 0), s, i;
    unsigned *masks = (unsigned *)umap__calloc(&p->alloc, (size_t)n_win + 1, sizeof(unsigned));
    uint32_t n_sets = 0;
    umap_result r = UMAP_OK;
    if (!masks) return UMAP_ERR_OUT_OF_MEMORY;
    for (s = 0; s < n_win; s++) {
        if (s == p->n_steps) {
            masks[s] = 1u << umap_vk__kernel_index(vk, &vk->k_adam);
        } else {
            umap_vk__disp d[UMAP_VK__MAX_DISP];
            int nd = umap_vk__encode(vk, p, &p->steps[s], rs->off, 0, 0, 1, d), q;
            for (q = 0; q < nd; q++) masks[s] |= 1u << umap_vk__kernel_index(vk, d[q].k);
        }
        for (i = 0; i < UMAP_VK__N_SETS; i++) n_sets += masks[s] >> i & 1u;
    }
    r = umap_vk__pool_make(vk, n_sets ? n_sets : 1, 3, &rs->pool);
    for (s = 0; s < n_win && r == UMAP_OK; s++)
        r = umap_vk__sets(vk, rs->pool, &rs->mem, &rs->mem, rs->win[s].base * 4, rs->win[s].words * 4, masks[s],
                          rs->win[s].sets);
    umap__free(&p->alloc, masks);
    return r;
}

/* the offsets window w's kernels get for its source nodes, by node */
static const int64_t *umap_vk__window_offsets(umap_vk__resident *rs, const umap_vk__window *w) {
    int i;
    for (i = 0; i < w->n; i++)
        if (rs->ops[w->first + i].node >= 0) rs->win_off[rs->ops[w->first + i].node] = rs->ops[w->first + i].rel;
    return rs->win_off;
}

/* a scratch window's copies: its operands in from their homes (out = 0),
   or what it wrote back home (out = 1), between barriers */
static void umap_vk__record_moves(umap_vk *vk, umap_vk__resident *rs, const umap_vk__window *w, int out) {
    uint32_t n = 0;
    int i, j;
    if (!w->scratch) return;
    for (i = 0; i < w->n; i++) {
        const umap_vk__operand *o = &rs->ops[w->first + i];
        VkBufferCopy *c = &rs->moves[n];
        if (out ? !o->writes : !o->reads) continue;
        for (j = 0; j < i && rs->ops[w->first + j].rel != o->rel; j++) {}
        if (!out && j < i) continue; /* shared with an earlier source */
        c->srcOffset = (VkDeviceSize)(out ? w->base + o->rel : o->word) * 4;
        c->dstOffset = (VkDeviceSize)(out ? o->word : w->base + o->rel) * 4;
        c->size = (VkDeviceSize)o->words * 4;
        n++;
    }
    if (!n) return;
    umap_vk__barrier(vk, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                     VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                     VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    vk->f.vkCmdCopyBuffer(vk->cmd, rs->mem.buf, rs->mem.buf, n, rs->moves);
    umap_vk__barrier(vk, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                         VK_ACCESS_TRANSFER_WRITE_BIT);
}

/* --- the trained params of umap_program_train_* in resident memory --- */

/* header constants, then a load: weights from the bound buffers, moments 0 */
static void umap_vk__train_init(umap_program *p, umap_vk__resident *rs) {
    const umap__train_state *t = p->train;
    uint32_t *h = (uint32_t *)rs->host + rs->train_hdr;
    const umap_vk__window *w = rs->win ? &rs->win[p->n_steps] : NULL; /* the offsets are its */
    const umap_vk__operand *o = w ? rs->ops + w->first : NULL;
    int64_t start = 0;
    int i;
    memset(h, 0, (size_t)(UMAP_VK__TRAIN_HDR + 4 * t->n) * 4);
    h[10] = (uint32_t)t->n;
    h[11] = (uint32_t)t->total;
    h[12] = (uint32_t)(w ? o[2 * t->n].rel : rs->train_m);
    h[13] = (uint32_t)(w ? o[2 * t->n + 1].rel : rs->train_v);
    for (i = 0; i < t->n; i++) {
        uint32_t *e = h + UMAP_VK__TRAIN_HDR + 4 * i;
        e[0] = (uint32_t)(w ? o[i].rel : rs->train_w[i]);
        e[1] = (uint32_t)(w ? o[t->n + i].rel : rs->off[t->grad_node[i]]);
        e[2] = (uint32_t)start;
        e[3] = (uint32_t)t->size[i];
        start += t->size[i];
        memcpy(rs->host + rs->train_w[i], p->leaves[t->leaf[i]].data, (size_t)t->size[i] * 4);
    }
    memset(rs->host + rs->train_m, 0, (size_t)t->total * 4);
    memset(rs->host + rs->train_v, 0, (size_t)t->total * 4);
    rs->pending = 0;
}

static VkBufferCopy umap_vk__region_copy(int64_t word, int64_t words) {
    VkBufferCopy c;
    c.srcOffset = c.dstOffset = (VkDeviceSize)word * 4;
    c.size = (VkDeviceSize)words * 4;
    return c;
}

static VkBufferCopy umap_vk__train_hdr_copy(const umap_program *p, const umap_vk__resident *rs) {
    return umap_vk__region_copy(rs->train_hdr, UMAP_VK__TRAIN_HDR + 4 * p->train->n);
}

/* staging: copies of regions from the host's copy into mem, made visible
   to the kernels (without staging the kernels see the host's writes) */
static void umap_vk__record_up(umap_vk *vk, const umap_vk__resident *rs, const VkBufferCopy *c, int n) {
    if (!vk->staging || n == 0) return;
    umap_vk__barrier(vk, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                     VK_ACCESS_TRANSFER_READ_BIT);
    vk->f.vkCmdCopyBuffer(vk->cmd, rs->stage.buf, rs->mem.buf, (uint32_t)n, c);
    umap_vk__barrier(vk, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

/* staging: copies of regions from mem back to the host's copy, after the kernels and copies before them */
static void umap_vk__record_down(umap_vk *vk, const umap_vk__resident *rs, const VkBufferCopy *c, int n) {
    if (!vk->staging || n == 0) return;
    umap_vk__barrier(vk, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                     VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                     VK_ACCESS_TRANSFER_READ_BIT);
    vk->f.vkCmdCopyBuffer(vk->cmd, rs->mem.buf, rs->stage.buf, (uint32_t)n, c);
    umap_vk__barrier(vk, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                     VK_ACCESS_HOST_READ_BIT);
}

/* after a submission that held the pending step: the header says none again */
static void umap_vk__train_applied(umap_vk__resident *rs) {
    if (!rs->pending) return;
    ((uint32_t *)rs->host)[rs->train_hdr] = 0;
    rs->pending = 0;
}

/* the pending step's dispatches (they do nothing when the header says none) */
static void umap_vk__record_adam(umap_vk *vk, const umap_program *p, umap_vk__resident *rs) {
    const umap_vk__window *w = rs->win ? &rs->win[p->n_steps] : NULL;
    VkDescriptorSet set = umap_vk__set_of(vk, &vk->k_adam, w ? w->sets : rs->sets);
    umap_vk__disp d;
    memset(&d, 0, sizeof d);
    d.k = &vk->k_adam;
    d.push.adam.hdr = (uint32_t)(w ? w->aux : rs->train_hdr);
    d.g[0] = d.g[1] = d.g[2] = 1;
    if (w) umap_vk__record_moves(vk, rs, w, 0);
    if (p->train->grad_clip > 0) umap_vk__record(vk, &d, set); /* the clip scale */
    d.push.adam.mode = 1;
    umap_vk__groups1(vk, p->train->total, d.g);
    umap_vk__record(vk, &d, set);
    if (w) umap_vk__record_moves(vk, rs, w, 1);
}

/* One submission outside a run: regions up (staging), the pending step,
   regions down (staging). Without staging the host sees mem directly. */
static umap_result umap_vk__train_submit(umap_vk *vk, umap_program *p, umap_vk__resident *rs, const VkBufferCopy *ups,
                                         int n_ups, const VkBufferCopy *downs, int n_downs) {
    umap_result r;
    vk->f.vkResetCommandPool(vk->device, vk->cmd_pool, 0);
    umap_vk__begin(vk, 1);
    umap_vk__record_up(vk, rs, ups, n_ups);
    if (rs->pending) umap_vk__record_adam(vk, p, rs);
    umap_vk__record_down(vk, rs, downs, n_downs);
    vk->f.vkEndCommandBuffer(vk->cmd);
    if ((r = umap_vk__submit_wait(vk)) != UMAP_OK) return umap__fail(&p->err, r, "vulkan: the Adam step failed on the device");
    umap_vk__train_applied(rs);
    return UMAP_OK;
}

/* the backend's train hook: a step is written into the header and runs at
   the start of the next submission (the next run, or a store); a store
   copies the weights into the bound buffers; a load sends them up again */
static umap_result umap_vk__train(const umap_backend *be, umap_program *p, int op, int64_t step, float lr_scale) {
    umap_vk *vk = (umap_vk *)be->user_data;
    umap_vk__resident *rs = (umap_vk__resident *)*umap_program_backend_state(p);
    const umap__train_state *t = p->train;
    VkBufferCopy one;
    int i;
    umap_result r;
    if (!rs) {
        /* no run yet: the first run loads, and the bound buffers are the weights */
        return op == UMAP_TRAIN_STEP ? umap__fail(&p->err, UMAP_ERR_INVALID_ARGUMENT, "vulkan: a train step before any run")
                                     : UMAP_OK;
    }
    if (op == UMAP_TRAIN_LOAD || op == UMAP_TRAIN_STORE) {
        int load = op == UMAP_TRAIN_LOAD;
        VkBufferCopy *cp = NULL; /* per param its weights, then the moments and the header */
        if (load) umap_vk__train_init(p, rs);
        if (vk->staging || rs->pending) {
            if (!(cp = (VkBufferCopy *)umap__calloc(&p->alloc, (size_t)t->n + 1, sizeof(VkBufferCopy))))
                return umap__fail(&p->err, UMAP_ERR_OUT_OF_MEMORY, "vulkan: out of memory");
            for (i = 0; i < t->n; i++) cp[i] = umap_vk__region_copy(rs->train_w[i], t->size[i]);
            cp[t->n] = umap_vk__region_copy(rs->train_m, rs->train_hdr + UMAP_VK__TRAIN_HDR + 4 * t->n - rs->train_m);
            /* a load sends everything up; a store sends only the header (the
               pending step: the moments up there are newer than the host's)
               and takes the weights */
            if (!load) cp[t->n] = umap_vk__train_hdr_copy(p, rs);
            r = load ? umap_vk__train_submit(vk, p, rs, cp, t->n + 1, NULL, 0)
                     : umap_vk__train_submit(vk, p, rs, cp + t->n, 1, cp, t->n);
            umap__free(&p->alloc, cp);
            if (r != UMAP_OK) return r;
        }
        if (!load)
            for (i = 0; i < t->n; i++) /* the bound buffer is the caller's writable weights (see umap.h) */
                memcpy((void *)(uintptr_t)p->leaves[t->leaf[i]].data, rs->host + rs->train_w[i], (size_t)t->size[i] * 4);
        return UMAP_OK;
    }
    /* a step: two in a row without a run between apply the first one now */
    if (rs->pending) {
        one = umap_vk__train_hdr_copy(p, rs);
        if ((r = umap_vk__train_submit(vk, p, rs, &one, 1, NULL, 0)) != UMAP_OK) return r;
    }
    {
        umap_adam_desc ad = t->adam;
        umap__adam_ctx c;
        float v[9];
        uint32_t *h = (uint32_t *)rs->host + rs->train_hdr;
        ad.lr = umap__train_lr(t, lr_scale);
        umap__adam_resolve(&ad, step, &c);
        v[0] = c.lr;
        v[1] = c.b1;
        v[2] = c.b2;
        v[3] = c.eps;
        v[4] = c.wd;
        v[5] = c.c1;
        v[6] = c.c2;
        v[7] = t->grad_clip;
        v[8] = 1.0f; /* the clip scale, until mode 0 writes it */
        memcpy(h + 1, v, sizeof v);
        h[0] = 1;
        rs->pending = 1;
    }
    return UMAP_OK;
}

static umap_result umap_vk__prepare(umap_vk *vk, umap_program *p, umap_vk__resident **out) {
    umap_vk__resident *rs = (umap_vk__resident *)umap__calloc(&p->alloc, 1, sizeof *rs);
    int64_t words, i;
    int s;
    umap_result r;
    *out = NULL;
    if (!rs) return umap__fail(&p->err, UMAP_ERR_OUT_OF_MEMORY, "vulkan: out of memory");
    *umap_program_backend_state(p) = rs;
    rs->off = (int64_t *)umap__calloc(&p->alloc, (size_t)p->n_nodes + 1, sizeof(int64_t));
    rs->aux = (int64_t *)umap__calloc(&p->alloc, (size_t)p->n_steps + 1, sizeof(int64_t));
    rs->csr = (int *)umap__calloc(&p->alloc, (size_t)p->n_steps + 1, sizeof(int));
    if (!rs->off || !rs->aux || !rs->csr) return umap__fail(&p->err, UMAP_ERR_OUT_OF_MEMORY, "vulkan: out of memory");
    /* layout: the arena as planned, then a slot per bound or constant node, then aux words */
    words = (p->arena_bytes + 15) / 16 * 4;
    for (i = 0; i < p->n_nodes; i++) {
        switch (p->storage[i]) {
        case UMAP__ST_ARENA: rs->off[i] = p->offset[i] / 4; break;
        case UMAP__ST_BOUND: case UMAP__ST_DATA:
            rs->off[i] = words;
            words += (p->nodes[i].numel + 3) / 4 * 4;
            break;
        case UMAP__ST_ALIAS: rs->off[i] = rs->off[p->nodes[i].src[0]]; break;
        default: rs->off[i] = 0;
        }
    }
    for (s = 0; s < p->n_steps; s++) {
        int64_t w = umap_vk__aux_words(p, &p->steps[s]);
        const umap__pnode *n = &p->nodes[p->steps[s].node];
        rs->aux[s] = w ? words : -1;
        words += (w + 3) / 4 * 4;
        /* scatter lists can be built on the host when its indices are there */
        rs->csr[s] = n->op == UMAP_OP_SCATTER_ADD && p->steps[s].kind == UMAP__STEP_OP &&
                     (p->storage[n->src[1]] == UMAP__ST_BOUND || p->storage[n->src[1]] == UMAP__ST_DATA);
    }
    rs->train_hdr = -1;
    if (p->train) { /* weights (a slot of their own when the program dropped the param), moments, header */
        const umap__train_state *t = p->train;
        rs->train_w = (int64_t *)umap__calloc(&p->alloc, (size_t)t->n, sizeof(int64_t));
        rs->trained = (unsigned char *)umap__calloc(&p->alloc, (size_t)p->n_nodes + 1, 1);
        if (!rs->train_w || !rs->trained) return umap__fail(&p->err, UMAP_ERR_OUT_OF_MEMORY, "vulkan: out of memory");
        for (s = 0; s < t->n; s++) {
            if (t->node[s] >= 0) {
                rs->train_w[s] = rs->off[t->node[s]];
                rs->trained[t->node[s]] = 1;
            } else {
                rs->train_w[s] = words;
                words += (t->size[s] + 3) / 4 * 4;
            }
        }
        rs->train_m = words;
        words += (t->total + 3) / 4 * 4;
        rs->train_v = words;
        words += (t->total + 3) / 4 * 4;
        rs->train_hdr = words;
        words += (UMAP_VK__TRAIN_HDR + 4 * t->n + 3) / 4 * 4;
    }
    if (words * 4 > vk->binding_limit && (r = umap_vk__plan_windows(vk, p, rs, &words)) != UMAP_OK) return r;
    if ((r = umap_vk__buffer_make(vk, words * 4, vk->staging ? UMAP_VK__DEVICE : UMAP_VK__SHARED, &rs->mem)) != UMAP_OK ||
        (vk->staging && (r = umap_vk__buffer_make(vk, words * 4, UMAP_VK__STAGING, &rs->stage)) != UMAP_OK))
        return umap__fail(&p->err, r, "vulkan: %lld bytes of device memory", (long long)(words * 4));
    rs->host = (float *)(vk->staging ? rs->stage.map : rs->mem.map);
    /* constants and the regions' programs are written once */
    for (i = 0; i < p->n_nodes; i++)
        if (p->storage[i] == UMAP__ST_DATA)
            memcpy(rs->host + rs->off[i], p->nodes[i].data, (size_t)p->nodes[i].numel * 4);
    for (s = 0; s < p->n_steps; s++) {
        umap__region scratch;
        const umap__region *R = umap_vk__step_region(p, &p->steps[s], &scratch);
        if (R) umap_vk__write_region(R, rs->win ? umap_vk__window_offsets(rs, &rs->win[s]) : rs->off,
                                     (uint32_t *)rs->host + rs->aux[s]);
    }
    if (p->train) umap_vk__train_init(p, rs); /* the first load, uploaded below with the rest */
    if (vk->staging) { /* the copies every run makes, and the constants' upload now */
        VkBufferCopy all;
        rs->ups = (VkBufferCopy *)umap__calloc(&p->alloc, (size_t)(p->n_nodes + p->n_steps) + 2, sizeof(VkBufferCopy));
        rs->downs = (VkBufferCopy *)umap__calloc(&p->alloc, (size_t)p->n_outputs + 1, sizeof(VkBufferCopy));
        if (!rs->ups || !rs->downs) return umap__fail(&p->err, UMAP_ERR_OUT_OF_MEMORY, "vulkan: out of memory");
        for (i = 0; i < p->n_nodes; i++)
            if (p->storage[i] == UMAP__ST_BOUND && !(rs->trained && rs->trained[i]))
                rs->ups[rs->n_ups++] = umap_vk__region_copy(rs->off[i], p->nodes[i].numel);
        for (s = 0; s < p->n_steps; s++)
            if (rs->csr[s]) rs->ups[rs->n_ups++] = umap_vk__region_copy(rs->aux[s], umap_vk__aux_words(p, &p->steps[s]));
        if (p->train) rs->ups[rs->n_ups++] = umap_vk__train_hdr_copy(p, rs);
        for (s = 0; s < p->n_outputs; s++) {
            int node = p->outputs[s];
            if (umap_vk__storage_root(p, node) == UMAP__ST_ARENA)
                rs->downs[rs->n_downs++] = umap_vk__region_copy(rs->off[node], p->nodes[node].numel);
        }
        all = umap_vk__region_copy(0, words);
        vk->f.vkResetCommandPool(vk->device, vk->cmd_pool, 0);
        umap_vk__begin(vk, 1);
        umap_vk__record_up(vk, rs, &all, 1);
        vk->f.vkEndCommandBuffer(vk->cmd);
        if ((r = umap_vk__submit_wait(vk)) != UMAP_OK) return umap__fail(&p->err, r, "vulkan: uploading the program");
    }
    r = rs->win ? umap_vk__window_sets(vk, p, rs)
                : (r = umap_vk__pool_make(vk, UMAP_VK__N_SETS, 3, &rs->pool)) != UMAP_OK
                      ? r
                      : umap_vk__sets(vk, rs->pool, &rs->mem, &rs->mem, 0, 0, UMAP_VK__ALL_SETS, rs->sets);
    if (r != UMAP_OK) return umap__fail(&p->err, r, "vulkan: descriptor sets");
    *out = rs;
    return UMAP_OK;
}

static umap_result umap_vk__run_resident(const umap_backend *be, umap_program *p) {
    umap_vk *vk = (umap_vk *)be->user_data;
    umap_vk__resident *rs = (umap_vk__resident *)*umap_program_backend_state(p);
    int compiled = be == &vk->backends[UMAP_VK_COMPILED];
    int64_t i;
    int s, o;
    umap_result r;
    if ((r = umap_vk__kernels(vk)) != UMAP_OK) return umap__fail(&p->err, r, "vulkan: could not build the kernels");
    if (!rs && (r = umap_vk__prepare(vk, p, &rs)) != UMAP_OK) return r;
    /* inputs in (not the trained params: they live here); host-side index checks and scatter lists */
    for (i = 0; i < p->n_nodes; i++)
        if (p->storage[i] == UMAP__ST_BOUND && !(rs->trained && rs->trained[i]))
            memcpy(rs->host + rs->off[i], p->ptr[i], (size_t)p->nodes[i].numel * 4);
    for (s = 0; s < p->n_steps; s++) {
        const umap__pnode *n = &p->nodes[p->steps[s].node];
        if (p->steps[s].kind != UMAP__STEP_OP || (n->op != UMAP_OP_GATHER && n->op != UMAP_OP_SCATTER_ADD)) continue;
        if (p->storage[n->src[1]] != UMAP__ST_BOUND && p->storage[n->src[1]] != UMAP__ST_DATA) continue;
        if ((r = umap_vk__check_step_indices(p, n)) != UMAP_OK) return r;
        if (rs->csr[s])
            umap_vk__write_csr((const int32_t *)p->ptr[n->src[1]], p->nodes[n->src[1]].numel, n->shape.dim[0],
                               (int32_t *)rs->host + rs->aux[s]);
    }
    if (!compiled || vk->recorded_for != rs) {
        vk->f.vkResetCommandPool(vk->device, vk->cmd_pool, 0);
        umap_vk__begin(vk, !compiled);
        umap_vk__record_up(vk, rs, rs->ups, rs->n_ups);
        /* the previous train step, if the header holds one: recorded always, so a replay applies new ones */
        if (p->train && (compiled || rs->pending)) umap_vk__record_adam(vk, p, rs);
        for (s = 0; s < p->n_steps; s++) {
            umap_vk__disp d[UMAP_VK__MAX_DISP];
            const umap_step *st = &p->steps[s];
            const umap_vk__window *w = rs->win ? &rs->win[s] : NULL;
            int nd = w ? umap_vk__encode(vk, p, st, umap_vk__window_offsets(rs, w), w->dst, w->aux, rs->csr[s], d)
                       : umap_vk__encode(vk, p, st, rs->off, rs->off[st->node], rs->aux[s], rs->csr[s], d),
                q;
            if (nd == 0) {
                vk->f.vkEndCommandBuffer(vk->cmd);
                return umap__fail(&p->err, UMAP_ERR_UNSUPPORTED_OP, "vulkan: no kernel for op '%s'",
                                       umap__op_names[p->nodes[st->node].op]);
            }
            if (w) umap_vk__record_moves(vk, rs, w, 0);
            for (q = 0; q < nd; q++) umap_vk__record(vk, &d[q], umap_vk__set_of(vk, d[q].k, w ? w->sets : rs->sets));
            if (w) umap_vk__record_moves(vk, rs, w, 1);
        }
        umap_vk__record_down(vk, rs, rs->downs, rs->n_downs);
        vk->f.vkEndCommandBuffer(vk->cmd);
        if (compiled) vk->recorded_for = rs;
    }
    if ((r = umap_vk__submit_wait(vk)) != UMAP_OK) {
        vk->recorded_for = NULL;
        return umap__fail(&p->err, r, "vulkan: the program failed on the device");
    }
    umap_vk__train_applied(rs);
    /* outputs out (those in the arena; bound and constant ones are there already) */
    for (o = 0; o < p->n_outputs; o++) {
        int node = p->outputs[o];
        if (umap_vk__storage_root(p, node) != UMAP__ST_ARENA || !p->ptr[node]) continue;
        memcpy(p->ptr[node], rs->host + rs->off[node], (size_t)p->nodes[node].numel * 4);
    }
    return UMAP_OK;
}

/* >>refine: umap_fit's refinement on the device ---------------------------- */

#define UMAP_VK__REFINE_MAX_C 8 /* refine.comp's MAX_C */

/* The refiner's job: every epoch is one dispatch of refine.comp
   (an invocation per row, reading one position buffer and writing the
   other), submitted in chunks between the job's progress reports. The
   graph and the rows are uploaded once and the rows read back once. */
static umap_result umap_vk__refine(const umap_refiner *self, const umap_refine_job *job) {
    umap_vk *vk = (umap_vk *)self->user_data;
    const int64_t n = job->n, c = job->n_components, slots = n > 0 ? job->offset[n] : 0;
    const int64_t bytes[5] = {n * c * 4, n * c * 4, (n + 1) * 4, slots * 4, slots * 4}; /* y, y', offset, nbr, chance */
    const umap_vk__place place = vk->staging ? UMAP_VK__DEVICE : UMAP_VK__SHARED;
    umap_vk__buffer buf[5], stage;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkDescriptorSet sets[2];
    int64_t at[5], total = 0, i;
    int ep = 0, b, every = job->report_every > 0 ? job->report_every : job->n_epochs + 1;
    uint32_t *host[5];
    umap_result r = UMAP_OK;
    if (c < 1 || c > UMAP_VK__REFINE_MAX_C) return UMAP_ERR_UNSUPPORTED_OP;
    if (job->dens_r && job->dens_from < job->n_epochs) return UMAP_ERR_UNSUPPORTED_OP; /* densMAP: the host's */
    for (b = 0; b < 5; b++)
        if (bytes[b] > vk->binding_limit) return UMAP_ERR_TOO_LARGE;
    if (n <= 0 || job->n_epochs <= 0) return UMAP_OK;
    if (n >= INT32_MAX || slots >= (int64_t)UINT32_MAX) return UMAP_ERR_TOO_LARGE;
    memset(buf, 0, sizeof buf);
    memset(&stage, 0, sizeof stage);
    if ((r = umap_vk__kernel_make(vk, UMAP_VK__KERNEL_refine)) != UMAP_OK) return r;
    for (b = 0; b < 5; b++) {
        at[b] = total;
        total += (bytes[b] + 15) / 16 * 16;
        if ((r = umap_vk__buffer_make(vk, bytes[b], place, &buf[b])) != UMAP_OK) goto done;
    }
    if (vk->staging && (r = umap_vk__buffer_make(vk, total, UMAP_VK__STAGING, &stage)) != UMAP_OK) goto done;
    for (b = 0; b < 5; b++) host[b] = vk->staging ? (uint32_t *)((char *)stage.map + at[b]) : (uint32_t *)buf[b].map;
    memcpy(host[0], job->y, (size_t)bytes[0]);
    for (i = 0; i <= n; i++) host[2][i] = (uint32_t)job->offset[i];
    memcpy(host[3], job->nbr, (size_t)bytes[3]);
    memcpy(host[4], job->active, (size_t)bytes[4]);
    { /* two sets: epochs alternate which position buffer they read */
        VkDescriptorSetLayout layouts[2];
        VkDescriptorSetAllocateInfo sai;
        int q;
        layouts[0] = layouts[1] = vk->k_refine.set_layout;
        if ((r = umap_vk__pool_make(vk, 2, 5, &pool)) != UMAP_OK) goto done;
        memset(&sai, 0, sizeof sai);
        sai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
        sai.descriptorPool = pool;
        sai.descriptorSetCount = 2;
        sai.pSetLayouts = layouts;
        if (vk->f.vkAllocateDescriptorSets(vk->device, &sai, sets) != VK_SUCCESS) {
            r = UMAP_ERR_DEVICE;
            goto done;
        }
        for (q = 0; q < 2; q++) {
            const umap_vk__buffer *bufs[5];
            for (b = 0; b < 5; b++) bufs[b] = &buf[b < 2 ? (b + q) % 2 : b];
            umap_vk__write_set(vk, sets[q], bufs, 5, 0, 0);
        }
    }
    /* the epochs, a chunk per progress report (the first chunk brings the upload) */
    while (ep < job->n_epochs) {
        int end = job->n_epochs - ep > every ? ep + every : job->n_epochs;
        if (job->report && job->report(job->report_ctx, ep, job->n_epochs)) {
            r = UMAP_ERR_CANCELLED; /* keep what is refined so far */
            break;
        }
        vk->f.vkResetCommandPool(vk->device, vk->cmd_pool, 0);
        umap_vk__begin(vk, 1);
        if (ep == 0 && vk->staging) {
            VkBufferCopy cp;
            umap_vk__barrier(vk, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                             VK_ACCESS_TRANSFER_READ_BIT);
            for (b = 0; b < 5; b++) {
                if (b == 1) continue; /* y' is written before it is read */
                cp.srcOffset = (VkDeviceSize)at[b];
                cp.dstOffset = 0;
                cp.size = (VkDeviceSize)bytes[b];
                vk->f.vkCmdCopyBuffer(vk->cmd, stage.buf, buf[b].buf, 1, &cp);
            }
            umap_vk__barrier(vk, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
        }
        for (; ep < end; ep++) {
            umap_vk__disp d;
            memset(&d, 0, sizeof d);
            d.k = &vk->k_refine;
            d.push.refine.key[0] = (uint32_t)job->keys[ep];
            d.push.refine.key[1] = (uint32_t)(job->keys[ep] >> 32);
            d.push.refine.n = (uint32_t)n;
            d.push.refine.c = (uint32_t)c;
            d.push.refine.neg = (uint32_t)(job->negative_sample_rate > 0 ? job->negative_sample_rate : 0);
            d.push.refine.a = job->a;
            d.push.refine.b = job->b;
            d.push.refine.gamma = job->gamma;
            d.push.refine.attraction = job->attraction;
            d.push.refine.lr = job->rates[ep];
            umap_vk__groups1(vk, n, d.g);
            umap_vk__record(vk, &d, sets[ep % 2]);
        }
        vk->f.vkEndCommandBuffer(vk->cmd);
        if ((r = umap_vk__submit_wait(vk)) != UMAP_OK) goto done;
    }
    { /* the latest positions: in y after an even count of epochs, else y' */
        const umap_vk__buffer *last = &buf[ep % 2];
        if (vk->staging) {
            VkBufferCopy cp;
            cp.srcOffset = 0;
            cp.dstOffset = (VkDeviceSize)at[0];
            cp.size = (VkDeviceSize)bytes[0];
            vk->f.vkResetCommandPool(vk->device, vk->cmd_pool, 0);
            umap_vk__begin(vk, 1);
            umap_vk__barrier(vk, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                             VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
            vk->f.vkCmdCopyBuffer(vk->cmd, last->buf, stage.buf, 1, &cp);
            umap_vk__barrier(vk, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                             VK_ACCESS_HOST_READ_BIT);
            vk->f.vkEndCommandBuffer(vk->cmd);
            {
                umap_result rd = umap_vk__submit_wait(vk);
                if (rd != UMAP_OK) {
                    r = rd;
                    goto done;
                }
            }
            memcpy(job->y, host[0], (size_t)bytes[0]);
        } else {
            memcpy(job->y, last->map, (size_t)bytes[0]);
        }
    }
done:
    if (pool) vk->f.vkDestroyDescriptorPool(vk->device, pool, NULL);
    for (b = 0; b < 5; b++) umap_vk__buffer_free(vk, &buf[b]);
    umap_vk__buffer_free(vk, &stage);
    return r;
}

UMAP__FN const umap_backend *umap_vk_backend_mode(umap_vk *vk, umap_vk_mode mode) {
    umap_backend *b;
    if (!vk || (int)mode < (int)UMAP_VK_MODE_DEFAULT || (int)mode > (int)UMAP_VK_COMPILED) return NULL;
    if (mode == UMAP_VK_MODE_DEFAULT) mode = vk->mode;
    b = &vk->backends[mode];
    b->name = mode == UMAP_VK_EAGER ? "vulkan (eager)" : mode == UMAP_VK_LAZY ? "vulkan (lazy)" : "vulkan (compiled)";
    b->supports = umap_vk__supports;
    b->run_step = umap_vk__run_step;
    b->user_data = vk;
    b->run_program = mode == UMAP_VK_EAGER ? NULL : umap_vk__run_resident;
    b->release = mode == UMAP_VK_EAGER ? NULL : umap_vk__release;
    b->train = mode == UMAP_VK_EAGER ? NULL : umap_vk__train; /* eager: Adam on the host's bound buffers */
    return b;
}

UMAP__FN const umap_backend *umap_vk_backend(umap_vk *vk) { return umap_vk_backend_mode(vk, UMAP_VK_MODE_DEFAULT); }

UMAP__FN const umap_refiner *umap_vk_refiner(umap_vk *vk) {
    if (!vk) return NULL;
    vk->refiner.name = "vulkan";
    vk->refiner.refine = umap_vk__refine;
    vk->refiner.user_data = vk;
    return &vk->refiner;
}

/* fit's progress callback for the search on the device: its "knn" phase */
typedef struct umap_vk__fit_knn_progress {
    const umap_config *cfg;
    double t0;
} umap_vk__fit_knn_progress;
static int umap_vk__fit_knn_report(int64_t done, int64_t total, void *ud) {
    const umap_vk__fit_knn_progress *f = (const umap_vk__fit_knn_progress *)ud;
    umap_progress p;
    memset(&p, 0, sizeof p);
    p.phase = "knn";
    p.epoch = (int)done;
    p.n_epochs = (int)total;
    p.elapsed_s = (umap__now_ms() - f->t0) * 1e-3;
    return f->cfg->progress(&p, f->cfg->progress_user_data);
}

UMAP__FN umap_result umap_vk_fit(umap_vk *vk, const umap_config *config, const float *data, int64_t n, int64_t d,
                                 umap_model **out) {
    umap_config cfg = config ? *config : umap_config_default();
    umap_vk__fit_knn_progress report;
    umap_fit_info scratch, *info = cfg.info ? cfg.info : &scratch;
    umap_knn_desc kd;
    umap_knn_info kinfo;
    int32_t *idx = NULL;
    float *dist = NULL;
    int k = cfg.n_neighbors - 1, scale_e = 0;
    size_t bytes;
    double t0, knn_s;
    umap_result r;
    if (out) *out = NULL;
    if (cfg.graph) memset(cfg.graph, 0, sizeof *cfg.graph); /* none, unless a model comes (umap_fit_knn's) */
    if (!vk || !out) return UMAP_ERR_INVALID_ARGUMENT;
    memset(info, 0, sizeof *info);
    if (k < 1 || n <= k) {
        snprintf(info->error_detail, sizeof info->error_detail, "n_neighbors = %d with %lld rows: need 2 <= n_neighbors <= n",
                 cfg.n_neighbors, (long long)n);
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    /* the lists below are n * k entries: n within umap_fit's row limit keeps
       the product a size of memory */
    if (n > 2147483647 / 2 || !umap__bytes2(n, k, sizeof(float), &bytes)) {
        snprintf(info->error_detail, sizeof info->error_detail, "%lld rows x %d neighbours: too large (rows < 2^30)",
                 (long long)n, k);
        return UMAP_ERR_TOO_LARGE;
    }
    idx = (int32_t *)umap__alloc(&cfg.allocator, (size_t)n * (size_t)k * sizeof(int32_t));
    dist = (float *)umap__alloc(&cfg.allocator, (size_t)n * (size_t)k * sizeof(float));
    if (!idx || !dist) {
        umap__free(&cfg.allocator, idx);
        umap__free(&cfg.allocator, dist);
        snprintf(info->error_detail, sizeof info->error_detail, "out of memory for the neighbour lists");
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    memset(&kd, 0, sizeof kd);
    kd.k = k;
    kd.metric = cfg.metric;
    kd.metric_p = cfg.metric_p;
    kd.n_threads = cfg.n_threads;
    kd.pool = cfg.pool;
    kd.allocator = cfg.allocator;
    kd.logger = cfg.logger;
    kd.info = &kinfo;
    t0 = umap__now_ms();
    if (cfg.progress) {
        report.cfg = &cfg;
        report.t0 = t0;
        kd.progress = umap_vk__fit_knn_report;
        kd.progress_user_data = &report;
    }
    /* distances at the working scale, as umap_fit's own search gives them */
    r = umap_vk__knn(vk, &kd, data, n, d, idx, dist, &scale_e);
    knn_s = (umap__now_ms() - t0) * 1e-3;
    if (r == UMAP_OK) {
        if (!cfg.backend) {
            cfg.backend = umap_vk_backend(vk);
            if (!cfg.refiner) cfg.refiner = umap_vk_refiner(vk);
        }
        cfg.info = info;
        r = umap_fit_knn(&cfg, data, n, d, idx, dist, k, out);
        info->knn = kinfo;
        info->knn_s = knn_s;
        info->total_s += knn_s;
    } else {
        info->knn = kinfo;
        snprintf(info->error_detail, sizeof info->error_detail, "k-NN on the GPU: %.200s", kinfo.error_detail);
    }
    umap__free(&cfg.allocator, idx);
    umap__free(&cfg.allocator, dist);
    return r;
}

UMAP__FN umap_result umap_vk_transform(umap_vk *vk, const umap_model *model, const float *data, int64_t n, int64_t d,
                                       float *out) {
    umap_result r;
    int empty;
    if (!vk) return UMAP_ERR_INVALID_ARGUMENT;
    if ((r = umap__transform_check(model, data, n, d, out, &empty, NULL, 0)) != UMAP_OK || empty) return r;
    return umap__embed(model, NULL, umap_vk_backend(vk), data, n, 0, 0, out, NULL, 0);
}

/* >>calibration: a matmul, a copy-bound program, a tiny one -------------- */

/* median seconds of `runs` runs of p (after one warm-up) */
static umap_result umap_vk__time_runs(umap_program *p, int runs, double *out) {
    double t[8], tmp;
    int i, j;
    umap_result r;
    if (runs > 8) runs = 8;
    if ((r = umap_program_run(p)) != UMAP_OK) return r;
    for (i = 0; i < runs; i++) {
        double t0 = umap__now_ms();
        if ((r = umap_program_run(p)) != UMAP_OK) return r;
        t[i] = (umap__now_ms() - t0) * 1e-3;
    }
    for (i = 1; i < runs; i++)
        for (j = i; j > 0 && t[j - 1] > t[j]; j--) tmp = t[j], t[j] = t[j - 1], t[j - 1] = tmp;
    *out = t[runs / 2];
    return UMAP_OK;
}

/* median seconds of y = x @ x (n x n, matmul) or y = x + x (n floats) on a
   backend (NULL: the CPU), after one warm-up run */
static umap_result umap_vk__time_graph(const umap_backend *be, int matmul, int64_t n, const float *buf, int runs,
                                       double *seconds) {
    umap_graph *g = NULL;
    umap_program *p = NULL;
    umap_compile_desc cd;
    umap_tensor *x, *y;
    umap_result r;
    int64_t numel = matmul ? n * n : n;
    memset(&cd, 0, sizeof cd);
    cd.backend = be;
    if ((r = umap_graph_create(NULL, &g)) != UMAP_OK) return r;
    x = umap_input(g, "x", matmul ? umap_shape2(n, n) : umap_shape1(n));
    y = matmul ? umap_matmul(g, x, x) : umap_add(g, x, x);
    if ((r = umap_compile(g, 1, &y, &cd, &p)) == UMAP_OK && (r = umap_program_bind(p, "x", buf, numel)) == UMAP_OK)
        r = umap_vk__time_runs(p, runs, seconds);
    umap_program_free(p);
    umap_graph_free(g);
    return r;
}

UMAP__FN umap_result umap_vk_calibrate(umap_vk *vk, umap_vk_calibration *out) {
    const int64_t mm = 512, big = (int64_t)1 << 22;
    const umap_backend *lazy;
    float *buf;
    double t_mm = 0, t_cpu = 0, t_copy = 0, t_tiny = 0;
    int64_t i;
    umap_result r;
    if (!vk || !out) return UMAP_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (!(buf = (float *)umap__alloc(&vk->alloc, (size_t)big * 4))) return UMAP_ERR_OUT_OF_MEMORY;
    for (i = 0; i < big; i++) buf[i] = (float)(i % 17) * 0.01f;
    lazy = umap_vk_backend_mode(vk, UMAP_VK_LAZY);
    if ((r = umap_vk__time_graph(lazy, 0, 1, buf, 7, &t_tiny)) == UMAP_OK &&
        (r = umap_vk__time_graph(lazy, 1, mm, buf, 3, &t_mm)) == UMAP_OK &&
        (r = umap_vk__time_graph(lazy, 0, big, buf, 3, &t_copy)) == UMAP_OK)
        r = umap_vk__time_graph(NULL, 1, mm, buf, 3, &t_cpu);
    umap__free(&vk->alloc, buf);
    if (r != UMAP_OK) return r;
    snprintf(out->device_name, sizeof out->device_name, "%s", vk->info.name);
    out->vendor_id = vk->info.vendor_id;
    out->device_id = vk->info.device_id;
    out->dispatch_us = t_tiny * 1e6;
    out->gpu_gflops = 2.0 * mm * mm * mm / (t_mm > t_tiny ? t_mm - t_tiny : t_mm) * 1e-9;
    out->transfer_gbps = 2.0 * 4.0 * (double)big / (t_copy > t_tiny ? t_copy - t_tiny : t_copy) * 1e-9; /* in and out */
    out->cpu_gflops = 2.0 * mm * mm * mm / (t_cpu > 0 ? t_cpu : 1e-9) * 1e-9;
    umap__log(&vk->logger, UMAP_LOG_INFO, "vulkan: calibration of %s: %.1f GFLOP/s, %.2f GB/s, %.0f us per run; CPU %.1f GFLOP/s",
              out->device_name, out->gpu_gflops, out->transfer_gbps, out->dispatch_us, out->cpu_gflops);
    return UMAP_OK;
}

/* the calibration's record: device "vulkan NAME vendor=V device=D
   driver=R", key "calibration on CPU" (the CPU side is measured too) */
static void umap_vk__calibration_key(umap_vk *vk, umap_tuner *t, char *device, size_t dn, char *key, size_t kn) {
    char name[256];
    size_t i;
    snprintf(name, sizeof name, "%s", vk->info.name);
    for (i = 0; name[i]; i++)
        if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f) name[i] = ' '; /* a record holds no tabs */
    snprintf(device, dn, "vulkan %s vendor=0x%04x device=0x%04x driver=0x%08x", name, (unsigned)vk->info.vendor_id,
             (unsigned)vk->info.device_id, (unsigned)vk->info.driver_version);
    snprintf(key, kn, "calibration on %s", umap_tuner_cpu(t));
}

UMAP__FN umap_result umap_vk_calibrate_cached(umap_vk *vk, umap_tuner *tuner, int refresh, umap_vk_calibration *out,
                                             int *measured) {
    char device[400], key[400], value[400];
    umap_result r;
    if (measured) *measured = 0;
    if (!vk || !out) return UMAP_ERR_INVALID_ARGUMENT;
    if (!tuner) {
        if (measured) *measured = 1;
        return umap_vk_calibrate(vk, out);
    }
    umap_vk__calibration_key(vk, tuner, device, sizeof device, key, sizeof key);
    if (!refresh && umap_tuner_get(tuner, device, key, value, sizeof value)) {
        double g, tr, d, c;
        char tail;
        if (sscanf(value, "gpu_gflops=%lf transfer_gbps=%lf dispatch_us=%lf cpu_gflops=%lf%c", &g, &tr, &d, &c,
                   &tail) == 4 &&
            g > 0 && g < 1e12 && tr > 0 && tr < 1e12 && d > 0 && d < 1e12 && c > 0 && c < 1e12) {
            memset(out, 0, sizeof *out);
            snprintf(out->device_name, sizeof out->device_name, "%s", vk->info.name);
            out->vendor_id = vk->info.vendor_id;
            out->device_id = vk->info.device_id;
            out->gpu_gflops = g;
            out->transfer_gbps = tr;
            out->dispatch_us = d;
            out->cpu_gflops = c;
            return UMAP_OK;
        }
        umap__log(&vk->logger, UMAP_LOG_WARN, "vulkan: the cached calibration of %s does not read (\"%s\"); measuring",
                  vk->info.name, value);
    }
    if ((r = umap_vk_calibrate(vk, out)) != UMAP_OK) return r;
    if (measured) *measured = 1;
    /* %.17g: read back to the same doubles, so a cached decision is the measured one */
    snprintf(value, sizeof value, "gpu_gflops=%.17g transfer_gbps=%.17g dispatch_us=%.17g cpu_gflops=%.17g",
             out->gpu_gflops, out->transfer_gbps, out->dispatch_us, out->cpu_gflops);
    return umap_tuner_set(tuner, device, key, value) == UMAP_OK ? UMAP_OK : UMAP_ERR_OUT_OF_MEMORY;
}

UMAP__FN int umap_vk_prefer(const umap_vk_calibration *c, double flops, double bytes, double dispatches) {
    double gpu, cpu;
    if (!c || c->gpu_gflops <= 0 || c->transfer_gbps <= 0 || c->cpu_gflops <= 0) return 0;
    gpu = flops / (c->gpu_gflops * 1e9) + bytes / (c->transfer_gbps * 1e9) + dispatches * c->dispatch_us * 1e-6;
    cpu = flops / (c->cpu_gflops * 1e9);
    return gpu < cpu;
}

/* Per module: its bindings, its push-constant block's size and members
   (X(shader, member, offset, size)), both read from the SPIR-V, and its words. */
/* >>spirv generated by scripts/spirv_embed.c from shaders/ (make shaders); do not edit */
#define UMAP_VK__BINDINGS_adam 1
#define UMAP_VK__PC_SIZE_adam 8
#define UMAP_VK__PC_MEMBERS_adam(X) \
    X(adam, mode, 0, 4, U32, ) \
    X(adam, hdr, 4, 4, U32, )
static const uint32_t umap_vk__spv_adam[1421] = {
    0x07230203u, 0x00010300u, 0x000d000bu, 0x000001f5u, 0x00000000u, 0x00020011u, 0x00000001u, 0x0006000bu,
    0x00000001u, 0x4c534c47u, 0x6474732eu, 0x3035342eu, 0x00000000u, 0x0003000eu, 0x00000000u, 0x00000001u,
    0x0008000fu, 0x00000005u, 0x00000004u, 0x6e69616du, 0x00000000u, 0x00000039u, 0x000000c1u, 0x000000c7u,
    0x00060010u, 0x00000004u, 0x00000011u, 0x00000100u, 0x00000001u, 0x00000001u, 0x00040047u, 0x0000000du,
    0x00000006u, 0x00000004u, 0x00050048u, 0x0000000eu, 0x00000000u, 0x00000023u, 0x00000000u, 0x00030047u,
    0x0000000eu, 0x00000002u, 0x00040047u, 0x00000010u, 0x00000022u, 0x00000000u, 0x00040047u, 0x00000010u,
    0x00000021u, 0x00000000u, 0x00050048u, 0x0000001bu, 0x00000000u, 0x00000023u, 0x00000000u, 0x00050048u,
    0x0000001bu, 0x00000001u, 0x00000023u, 0x00000004u, 0x00030047u, 0x0000001bu, 0x00000002u, 0x00040047u,
    0x00000039u, 0x0000000bu, 0x0000001bu, 0x00040047u, 0x000000c1u, 0x0000000bu, 0x0000001cu, 0x00040047u,
    0x000000c7u, 0x0000000bu, 0x00000018u, 0x00040047u, 0x00000197u, 0x0000000bu, 0x00000019u, 0x00020013u,
    0x00000002u, 0x00030021u, 0x00000003u, 0x00000002u, 0x00040015u, 0x00000006u, 0x00000020u, 0x00000000u,
    0x00030016u, 0x0000000cu, 0x00000020u, 0x0003001du, 0x0000000du, 0x0000000cu, 0x0003001eu, 0x0000000eu,
    0x0000000du, 0x00040020u, 0x0000000fu, 0x0000000cu, 0x0000000eu, 0x0004003bu, 0x0000000fu, 0x00000010u,
    0x0000000cu, 0x00040015u, 0x00000011u, 0x00000020u, 0x00000001u, 0x0004002bu, 0x00000011u, 0x00000012u,
    0x00000000u, 0x00040020u, 0x00000014u, 0x0000000cu, 0x0000000cu, 0x0004001eu, 0x0000001bu, 0x00000006u,
    0x00000006u, 0x00040020u, 0x0000001cu, 0x00000009u, 0x0000001bu, 0x0004003bu, 0x0000001cu, 0x0000001du,
    0x00000009u, 0x0004002bu, 0x00000011u, 0x0000001eu, 0x00000001u, 0x00040020u, 0x0000001fu, 0x00000009u,
    0x00000006u, 0x0004002bu, 0x00000006u, 0x00000025u, 0x00000000u, 0x00020014u, 0x00000026u, 0x0004002bu,
    0x00000006u, 0x0000002du, 0x0000000au, 0x00040017u, 0x00000037u, 0x00000006u, 0x00000003u, 0x00040020u,
    0x00000038u, 0x00000001u, 0x00000037u, 0x0004003bu, 0x00000038u, 0x00000039u, 0x00000001u, 0x00040020u,
    0x0000003au, 0x00000001u, 0x00000006u, 0x0004002bu, 0x0000000cu, 0x0000003fu, 0x00000000u, 0x0004002bu,
    0x00000006u, 0x0000004bu, 0x0000000fu, 0x0004002bu, 0x00000006u, 0x0000004du, 0x00000004u, 0x0004002bu,
    0x00000006u, 0x00000055u, 0x00000011u, 0x0004002bu, 0x00000006u, 0x00000071u, 0x00000100u, 0x0004001cu,
    0x00000076u, 0x0000000cu, 0x00000071u, 0x00040020u, 0x00000077u, 0x00000004u, 0x00000076u, 0x0004003bu,
    0x00000077u, 0x00000078u, 0x00000004u, 0x00040020u, 0x0000007bu, 0x00000004u, 0x0000000cu, 0x0004002bu,
    0x00000006u, 0x0000007du, 0x00000002u, 0x0004002bu, 0x00000006u, 0x0000007eu, 0x00000108u, 0x0004002bu,
    0x00000006u, 0x00000080u, 0x00000080u, 0x0004002bu, 0x00000006u, 0x000000a3u, 0x00000008u, 0x0004002bu,
    0x00000006u, 0x000000a8u, 0x00000009u, 0x0004002bu, 0x0000000cu, 0x000000bbu, 0x3f800000u, 0x0004003bu,
    0x00000038u, 0x000000c1u, 0x00000001u, 0x0004002bu, 0x00000006u, 0x000000c4u, 0x00000001u, 0x0004003bu,
    0x00000038u, 0x000000c7u, 0x00000001u, 0x0004002bu, 0x00000006u, 0x000000cfu, 0x0000000bu, 0x0004002bu,
    0x00000006u, 0x000000e5u, 0x00000010u, 0x0004002bu, 0x00000006u, 0x000000f3u, 0x0000000eu, 0x0004002bu,
    0x00000006u, 0x00000122u, 0x00000003u, 0x0004002bu, 0x00000006u, 0x0000012du, 0x00000005u, 0x0004002bu,
    0x00000006u, 0x00000133u, 0x00000006u, 0x0004002bu, 0x00000006u, 0x00000139u, 0x00000007u, 0x0004002bu,
    0x00000006u, 0x00000154u, 0x0000000cu, 0x0004002bu, 0x00000006u, 0x0000015cu, 0x0000000du, 0x0006002cu,
    0x00000037u, 0x00000197u, 0x00000071u, 0x000000c4u, 0x000000c4u, 0x00050036u, 0x00000002u, 0x00000004u,
    0x00000000u, 0x00000003u, 0x000200f8u, 0x00000005u, 0x000300f7u, 0x00000198u, 0x00000000u, 0x000300fbu,
    0x00000025u, 0x00000199u, 0x000200f8u, 0x00000199u, 0x00050041u, 0x0000001fu, 0x00000020u, 0x0000001du,
    0x0000001eu, 0x0004003du, 0x00000006u, 0x00000021u, 0x00000020u, 0x00060041u, 0x00000014u, 0x000001a1u,
    0x00000010u, 0x00000012u, 0x00000021u, 0x0004003du, 0x0000000cu, 0x000001a2u, 0x000001a1u, 0x0004007cu,
    0x00000006u, 0x000001a3u, 0x000001a2u, 0x000500aau, 0x00000026u, 0x00000027u, 0x000001a3u, 0x00000025u,
    0x000300f7u, 0x00000029u, 0x00000000u, 0x000400fau, 0x00000027u, 0x00000028u, 0x00000029u, 0x000200f8u,
    0x00000028u, 0x000200f9u, 0x00000198u, 0x000200f8u, 0x00000029u, 0x00050080u, 0x00000006u, 0x0000002eu,
    0x00000021u, 0x0000002du, 0x00060041u, 0x00000014u, 0x000001a7u, 0x00000010u, 0x00000012u, 0x0000002eu,
    0x0004003du, 0x0000000cu, 0x000001a8u, 0x000001a7u, 0x0004007cu, 0x00000006u, 0x000001a9u, 0x000001a8u,
    0x00050041u, 0x0000001fu, 0x00000031u, 0x0000001du, 0x00000012u, 0x0004003du, 0x00000006u, 0x00000032u,
    0x00000031u, 0x000500aau, 0x00000026u, 0x00000033u, 0x00000032u, 0x00000025u, 0x000300f7u, 0x00000035u,
    0x00000000u, 0x000400fau, 0x00000033u, 0x00000034u, 0x00000035u, 0x000200f8u, 0x00000034u, 0x00050041u,
    0x0000003au, 0x0000003bu, 0x00000039u, 0x00000025u, 0x0004003du, 0x00000006u, 0x0000003cu, 0x0000003bu,
    0x000200f9u, 0x00000041u, 0x000200f8u, 0x00000041u, 0x000700f5u, 0x0000000cu, 0x000001eau, 0x0000003fu,
    0x00000034u, 0x000001f1u, 0x00000044u, 0x000700f5u, 0x00000006u, 0x000001e9u, 0x00000025u, 0x00000034u,
    0x00000075u, 0x00000044u, 0x000500b0u, 0x00000026u, 0x00000048u, 0x000001e9u, 0x000001a9u, 0x000400f6u,
    0x00000043u, 0x00000044u, 0x00000000u, 0x000400fau, 0x00000048u, 0x00000042u, 0x00000043u, 0x000200f8u,
    0x00000042u, 0x00050080u, 0x00000006u, 0x0000004cu, 0x00000021u, 0x0000004bu, 0x00050084u, 0x00000006u,
    0x0000004fu, 0x0000004du, 0x000001e9u, 0x00050080u, 0x00000006u, 0x00000050u, 0x0000004cu, 0x0000004fu,
    0x00060041u, 0x00000014u, 0x000001adu, 0x00000010u, 0x00000012u, 0x00000050u, 0x0004003du, 0x0000000cu,
    0x000001aeu, 0x000001adu, 0x0004007cu, 0x00000006u, 0x000001afu, 0x000001aeu, 0x00050080u, 0x00000006u,
    0x00000056u, 0x00000021u, 0x00000055u, 0x00050080u, 0x00000006u, 0x00000059u, 0x00000056u, 0x0000004fu,
    0x00060041u, 0x00000014u, 0x000001b3u, 0x00000010u, 0x00000012u, 0x00000059u, 0x0004003du, 0x0000000cu,
    0x000001b4u, 0x000001b3u, 0x0004007cu, 0x00000006u, 0x000001b5u, 0x000001b4u, 0x000200f9u, 0x0000005eu,
    0x000200f8u, 0x0000005eu, 0x000700f5u, 0x0000000cu, 0x000001f1u, 0x000001eau, 0x00000042u, 0x00000070u,
    0x0000005fu, 0x000700f5u, 0x00000006u, 0x000001efu, 0x0000003cu, 0x00000042u, 0x00000073u, 0x0000005fu,
    0x000500b0u, 0x00000026u, 0x00000065u, 0x000001efu, 0x000001b5u, 0x000400f6u, 0x00000060u, 0x0000005fu,
    0x00000000u, 0x000400fau, 0x00000065u, 0x0000005fu, 0x00000060u, 0x000200f8u, 0x0000005fu, 0x00050080u,
    0x00000006u, 0x00000069u, 0x000001afu, 0x000001efu, 0x00060041u, 0x00000014u, 0x0000006au, 0x00000010u,
    0x00000012u, 0x00000069u, 0x0004003du, 0x0000000cu, 0x0000006bu, 0x0000006au, 0x0008000cu, 0x0000000cu,
    0x00000070u, 0x00000001u, 0x00000032u, 0x0000006bu, 0x0000006bu, 0x000001f1u, 0x00050080u, 0x00000006u,
    0x00000073u, 0x000001efu, 0x00000071u, 0x000200f9u, 0x0000005eu, 0x000200f8u, 0x00000060u, 0x000200f9u,
    0x00000044u, 0x000200f8u, 0x00000044u, 0x00050080u, 0x00000006u, 0x00000075u, 0x000001e9u, 0x0000001eu,
    0x000200f9u, 0x00000041u, 0x000200f8u, 0x00000043u, 0x00050041u, 0x0000007bu, 0x0000007cu, 0x00000078u,
    0x0000003cu, 0x0003003eu, 0x0000007cu, 0x000001eau, 0x000400e0u, 0x0000007du, 0x0000007du, 0x0000007eu,
    0x000200f9u, 0x00000081u, 0x000200f8u, 0x00000081u, 0x000700f5u, 0x00000006u, 0x000001ebu, 0x00000080u,
    0x00000043u, 0x00000098u, 0x00000084u, 0x000500acu, 0x00000026u, 0x00000087u, 0x000001ebu, 0x00000025u,
    0x000400f6u, 0x00000083u, 0x00000084u, 0x00000000u, 0x000400fau, 0x00000087u, 0x00000082u, 0x00000083u,
    0x000200f8u, 0x00000082u, 0x000500b0u, 0x00000026u, 0x0000008au, 0x0000003cu, 0x000001ebu, 0x000300f7u,
    0x0000008cu, 0x00000000u, 0x000400fau, 0x0000008au, 0x0000008bu, 0x0000008cu, 0x000200f8u, 0x0000008bu,
    0x00050080u, 0x00000006u, 0x00000090u, 0x0000003cu, 0x000001ebu, 0x00050041u, 0x0000007bu, 0x00000091u,
    0x00000078u, 0x00000090u, 0x0004003du, 0x0000000cu, 0x00000092u, 0x00000091u, 0x0004003du, 0x0000000cu,
    0x00000094u, 0x0000007cu, 0x00050081u, 0x0000000cu, 0x00000095u, 0x00000094u, 0x00000092u, 0x0003003eu,
    0x0000007cu, 0x00000095u, 0x000200f9u, 0x0000008cu, 0x000200f8u, 0x0000008cu, 0x000400e0u, 0x0000007du,
    0x0000007du, 0x0000007eu, 0x000200f9u, 0x00000084u, 0x000200f8u, 0x00000084u, 0x000500c2u, 0x00000006u,
    0x00000098u, 0x000001ebu, 0x0000001eu, 0x000200f9u, 0x00000081u, 0x000200f8u, 0x00000083u, 0x000500aau,
    0x00000026u, 0x0000009au, 0x0000003cu, 0x00000025u, 0x000300f7u, 0x0000009cu, 0x00000000u, 0x000400fau,
    0x0000009au, 0x0000009bu, 0x0000009cu, 0x000200f8u, 0x0000009bu, 0x00050041u, 0x0000007bu, 0x0000009eu,
    0x00000078u, 0x00000012u, 0x0004003du, 0x0000000cu, 0x0000009fu, 0x0000009eu, 0x0006000cu, 0x0000000cu,
    0x000000a0u, 0x00000001u, 0x0000001fu, 0x0000009fu, 0x00050080u, 0x00000006u, 0x000000a4u, 0x00000021u,
    0x000000a3u, 0x00060041u, 0x00000014u, 0x000000a5u, 0x00000010u, 0x00000012u, 0x000000a4u, 0x0004003du,
    0x0000000cu, 0x000000a6u, 0x000000a5u, 0x00050080u, 0x00000006u, 0x000000a9u, 0x00000021u, 0x000000a8u,
    0x000500b7u, 0x00000026u, 0x000000acu, 0x000000a0u, 0x000000a0u, 0x000300f7u, 0x000000afu, 0x00000000u,
    0x000400fau, 0x000000acu, 0x000000aeu, 0x000000b0u, 0x000200f8u, 0x000000aeu, 0x000200f9u, 0x000000afu,
    0x000200f8u, 0x000000b0u, 0x000500bau, 0x00000026u, 0x000000b3u, 0x000000a0u, 0x000000a6u, 0x000300f7u,
    0x000000b6u, 0x00000000u, 0x000400fau, 0x000000b3u, 0x000000b5u, 0x000000bau, 0x000200f8u, 0x000000b5u,
    0x00050088u, 0x0000000cu, 0x000000b9u, 0x000000a6u, 0x000000a0u, 0x000200f9u, 0x000000b6u, 0x000200f8u,
    0x000000bau, 0x000200f9u, 0x000000b6u, 0x000200f8u, 0x000000b6u, 0x000700f5u, 0x0000000cu, 0x000001ecu,
    0x000000b9u, 0x000000b5u, 0x000000bbu, 0x000000bau, 0x000200f9u, 0x000000afu, 0x000200f8u, 0x000000afu,
    0x000700f5u, 0x0000000cu, 0x000001edu, 0x0000003fu, 0x000000aeu, 0x000001ecu, 0x000000b6u, 0x00060041u,
    0x00000014u, 0x000000beu, 0x00000010u, 0x00000012u, 0x000000a9u, 0x0003003eu, 0x000000beu, 0x000001edu,
    0x000200f9u, 0x0000009cu, 0x000200f8u, 0x0000009cu, 0x000200f9u, 0x00000198u, 0x000200f8u, 0x00000035u,
    0x00050041u, 0x0000003au, 0x000000c2u, 0x000000c1u, 0x00000025u, 0x0004003du, 0x00000006u, 0x000000c3u,
    0x000000c2u, 0x00050041u, 0x0000003au, 0x000000c5u, 0x000000c1u, 0x000000c4u, 0x0004003du, 0x00000006u,
    0x000000c6u, 0x000000c5u, 0x00050041u, 0x0000003au, 0x000000c8u, 0x000000c7u, 0x00000025u, 0x0004003du,
    0x00000006u, 0x000000c9u, 0x000000c8u, 0x00050084u, 0x00000006u, 0x000000cau, 0x000000c6u, 0x000000c9u,
    0x00050084u, 0x00000006u, 0x000000cbu, 0x000000cau, 0x00000071u, 0x00050080u, 0x00000006u, 0x000000ccu,
    0x000000c3u, 0x000000cbu, 0x00050080u, 0x00000006u, 0x000000d0u, 0x00000021u, 0x000000cfu, 0x00060041u,
    0x00000014u, 0x000001b9u, 0x00000010u, 0x00000012u, 0x000000d0u, 0x0004003du, 0x0000000cu, 0x000001bau,
    0x000001b9u, 0x0004007cu, 0x00000006u, 0x000001bbu, 0x000001bau, 0x000500aeu, 0x00000026u, 0x000000d3u,
    0x000000ccu, 0x000001bbu, 0x000300f7u, 0x000000d5u, 0x00000000u, 0x000400fau, 0x000000d3u, 0x000000d4u,
    0x000000d5u, 0x000200f8u, 0x000000d4u, 0x000200f9u, 0x00000198u, 0x000200f8u, 0x000000d5u, 0x000200f9u,
    0x000000d8u, 0x000200f8u, 0x000000d8u, 0x000700f5u, 0x00000006u, 0x000001e6u, 0x00000025u, 0x000000d5u,
    0x000000f0u, 0x000000d9u, 0x000400f6u, 0x000000dau, 0x000000d9u, 0x00000000u, 0x000200f9u, 0x000000dcu,
    0x000200f8u, 0x000000dcu, 0x00050080u, 0x00000006u, 0x000000deu, 0x000001e6u, 0x000000c4u, 0x000500b0u,
    0x00000026u, 0x000000e0u, 0x000000deu, 0x000001a9u, 0x000300f7u, 0x000000e2u, 0x00000000u, 0x000400fau,
    0x000000e0u, 0x000000e1u, 0x000000e2u, 0x000200f8u, 0x000000e1u, 0x00050080u, 0x00000006u, 0x000000e6u,
    0x00000021u, 0x000000e5u, 0x00050084u, 0x00000006u, 0x000000e9u, 0x0000004du, 0x000000deu, 0x00050080u,
    0x00000006u, 0x000000eau, 0x000000e6u, 0x000000e9u, 0x00060041u, 0x00000014u, 0x000001bfu, 0x00000010u,
    0x00000012u, 0x000000eau, 0x0004003du, 0x0000000cu, 0x000001c0u, 0x000001bfu, 0x0004007cu, 0x00000006u,
    0x000001c1u, 0x000001c0u, 0x000500aeu, 0x00000026u, 0x000000edu, 0x000000ccu, 0x000001c1u, 0x000200f9u,
    0x000000e2u, 0x000200f8u, 0x000000e2u, 0x000700f5u, 0x00000026u, 0x000000eeu, 0x000000e0u, 0x000000dcu,
    0x000000edu, 0x000000e1u, 0x000400fau, 0x000000eeu, 0x000000d9u, 0x000000dau, 0x000200f8u, 0x000000d9u,
    0x00050080u, 0x00000006u, 0x000000f0u, 0x000001e6u, 0x0000001eu, 0x000200f9u, 0x000000d8u, 0x000200f8u,
    0x000000dau, 0x00050080u, 0x00000006u, 0x000000f4u, 0x00000021u, 0x000000f3u, 0x00050084u, 0x00000006u,
    0x000000f6u, 0x0000004du, 0x000001e6u, 0x00050080u, 0x00000006u, 0x000000f7u, 0x000000f4u, 0x000000f6u,
    0x00060041u, 0x00000014u, 0x000001c5u, 0x00000010u, 0x00000012u, 0x000000f7u, 0x0004003du, 0x0000000cu,
    0x000001c6u, 0x000001c5u, 0x0004007cu, 0x00000006u, 0x000001c7u, 0x000001c6u, 0x00050080u, 0x00000006u,
    0x000000fcu, 0x00000021u, 0x000000e5u, 0x00050080u, 0x00000006u, 0x000000ffu, 0x000000fcu, 0x000000f6u,
    0x00060041u, 0x00000014u, 0x000001cbu, 0x00000010u, 0x00000012u, 0x000000ffu, 0x0004003du, 0x0000000cu,
    0x000001ccu, 0x000001cbu, 0x0004007cu, 0x00000006u, 0x000001cdu, 0x000001ccu, 0x00050082u, 0x00000006u,
    0x00000102u, 0x000000ccu, 0x000001cdu, 0x00050080u, 0x00000006u, 0x00000103u, 0x000001c7u, 0x00000102u,
    0x00050080u, 0x00000006u, 0x00000106u, 0x00000021u, 0x0000004bu, 0x00050080u, 0x00000006u, 0x00000109u,
    0x00000106u, 0x000000f6u, 0x00060041u, 0x00000014u, 0x000001d1u, 0x00000010u, 0x00000012u, 0x00000109u,
    0x0004003du, 0x0000000cu, 0x000001d2u, 0x000001d1u, 0x0004007cu, 0x00000006u, 0x000001d3u, 0x000001d2u,
    0x0004003du, 0x0000000cu, 0x000001d8u, 0x000001cbu, 0x0004007cu, 0x00000006u, 0x000001d9u, 0x000001d8u,
    0x00050082u, 0x00000006u, 0x00000114u, 0x000000ccu, 0x000001d9u, 0x00050080u, 0x00000006u, 0x00000115u,
    0x000001d3u, 0x00000114u, 0x00050080u, 0x00000006u, 0x00000118u, 0x00000021u, 0x000000c4u, 0x00060041u,
    0x00000014u, 0x00000119u, 0x00000010u, 0x00000012u, 0x00000118u, 0x0004003du, 0x0000000cu, 0x0000011au,
    0x00000119u, 0x00050080u, 0x00000006u, 0x0000011du, 0x00000021u, 0x0000007du, 0x00060041u, 0x00000014u,
    0x0000011eu, 0x00000010u, 0x00000012u, 0x0000011du, 0x0004003du, 0x0000000cu, 0x0000011fu, 0x0000011eu,
    0x00050080u, 0x00000006u, 0x00000123u, 0x00000021u, 0x00000122u, 0x00060041u, 0x00000014u, 0x00000124u,
    0x00000010u, 0x00000012u, 0x00000123u, 0x0004003du, 0x0000000cu, 0x00000125u, 0x00000124u, 0x00050080u,
    0x00000006u, 0x00000128u, 0x00000021u, 0x0000004du, 0x00060041u, 0x00000014u, 0x00000129u, 0x00000010u,
    0x00000012u, 0x00000128u, 0x0004003du, 0x0000000cu, 0x0000012au, 0x00000129u, 0x00050080u, 0x00000006u,
    0x0000012eu, 0x00000021u, 0x0000012du, 0x00060041u, 0x00000014u, 0x0000012fu, 0x00000010u, 0x00000012u,
    0x0000012eu, 0x0004003du, 0x0000000cu, 0x00000130u, 0x0000012fu, 0x00050080u, 0x00000006u, 0x00000134u,
    0x00000021u, 0x00000133u, 0x00060041u, 0x00000014u, 0x00000135u, 0x00000010u, 0x00000012u, 0x00000134u,
    0x0004003du, 0x0000000cu, 0x00000136u, 0x00000135u, 0x00050080u, 0x00000006u, 0x0000013au, 0x00000021u,
    0x00000139u, 0x00060041u, 0x00000014u, 0x0000013bu, 0x00000010u, 0x00000012u, 0x0000013au, 0x0004003du,
    0x0000000cu, 0x0000013cu, 0x0000013bu, 0x00050080u, 0x00000006u, 0x0000013fu, 0x00000021u, 0x000000a3u,
    0x00060041u, 0x00000014u, 0x00000140u, 0x00000010u, 0x00000012u, 0x0000013fu, 0x0004003du, 0x0000000cu,
    0x00000141u, 0x00000140u, 0x000500bau, 0x00000026u, 0x00000142u, 0x00000141u, 0x0000003fu, 0x000300f7u,
    0x00000145u, 0x00000000u, 0x000400fau, 0x00000142u, 0x00000144u, 0x0000014au, 0x000200f8u, 0x00000144u,
    0x00050080u, 0x00000006u, 0x00000147u, 0x00000021u, 0x000000a8u, 0x00060041u, 0x00000014u, 0x00000148u,
    0x00000010u, 0x00000012u, 0x00000147u, 0x0004003du, 0x0000000cu, 0x00000149u, 0x00000148u, 0x000200f9u,
    0x00000145u, 0x000200f8u, 0x0000014au, 0x000200f9u, 0x00000145u, 0x000200f8u, 0x00000145u, 0x000700f5u,
    0x0000000cu, 0x000001e8u, 0x00000149u, 0x00000144u, 0x000000bbu, 0x0000014au, 0x00060041u, 0x00000014u,
    0x0000014eu, 0x00000010u, 0x00000012u, 0x00000115u, 0x0004003du, 0x0000000cu, 0x0000014fu, 0x0000014eu,
    0x00050085u, 0x0000000cu, 0x00000151u, 0x0000014fu, 0x000001e8u, 0x00050080u, 0x00000006u, 0x00000155u,
    0x00000021u, 0x00000154u, 0x00060041u, 0x00000014u, 0x000001ddu, 0x00000010u, 0x00000012u, 0x00000155u,
    0x0004003du, 0x0000000cu, 0x000001deu, 0x000001ddu, 0x0004007cu, 0x00000006u, 0x000001dfu, 0x000001deu,
    0x00050080u, 0x00000006u, 0x00000159u, 0x000001dfu, 0x000000ccu, 0x00050080u, 0x00000006u, 0x0000015du,
    0x00000021u, 0x0000015cu, 0x00060041u, 0x00000014u, 0x000001e3u, 0x00000010u, 0x00000012u, 0x0000015du,
    0x0004003du, 0x0000000cu, 0x000001e4u, 0x000001e3u, 0x0004007cu, 0x00000006u, 0x000001e5u, 0x000001e4u,
    0x00050080u, 0x00000006u, 0x00000161u, 0x000001e5u, 0x000000ccu, 0x00060041u, 0x00000014u, 0x00000165u,
    0x00000010u, 0x00000012u, 0x00000159u, 0x0004003du, 0x0000000cu, 0x00000166u, 0x00000165u, 0x00050083u,
    0x0000000cu, 0x00000169u, 0x000000bbu, 0x0000011fu, 0x00050085u, 0x0000000cu, 0x0000016bu, 0x00000169u,
    0x00000151u, 0x0008000cu, 0x0000000cu, 0x0000016cu, 0x00000001u, 0x00000032u, 0x0000011fu, 0x00000166u,
    0x0000016bu, 0x00060041u, 0x00000014u, 0x00000170u, 0x00000010u, 0x00000012u, 0x00000161u, 0x0004003du,
    0x0000000cu, 0x00000171u, 0x00000170u, 0x00050083u, 0x0000000cu, 0x00000174u, 0x000000bbu, 0x00000125u,
    0x00050085u, 0x0000000cu, 0x00000176u, 0x00000174u, 0x00000151u, 0x00050085u, 0x0000000cu, 0x00000178u,
    0x00000176u, 0x00000151u, 0x0008000cu, 0x0000000cu, 0x00000179u, 0x00000001u, 0x00000032u, 0x00000125u,
    0x00000171u, 0x00000178u, 0x0003003eu, 0x00000165u, 0x0000016cu, 0x0003003eu, 0x00000170u, 0x00000179u,
    0x00050088u, 0x0000000cu, 0x00000184u, 0x0000016cu, 0x00000136u, 0x00050088u, 0x0000000cu, 0x00000187u,
    0x00000179u, 0x0000013cu, 0x0006000cu, 0x0000000cu, 0x00000188u, 0x00000001u, 0x0000001fu, 0x00000187u,
    0x00050081u, 0x0000000cu, 0x0000018au, 0x00000188u, 0x0000012au, 0x00050088u, 0x0000000cu, 0x0000018bu,
    0x00000184u, 0x0000018au, 0x00060041u, 0x00000014u, 0x0000018eu, 0x00000010u, 0x00000012u, 0x00000103u,
    0x0004003du, 0x0000000cu, 0x0000018fu, 0x0000018eu, 0x0008000cu, 0x0000000cu, 0x00000191u, 0x00000001u,
    0x00000032u, 0x00000130u, 0x0000018fu, 0x0000018bu, 0x0004003du, 0x0000000cu, 0x00000194u, 0x0000018eu,
    0x0004007fu, 0x0000000cu, 0x000001f4u, 0x0000011au, 0x0008000cu, 0x0000000cu, 0x00000195u, 0x00000001u,
    0x00000032u, 0x000001f4u, 0x00000191u, 0x00000194u, 0x0003003eu, 0x0000018eu, 0x00000195u, 0x000200f9u,
    0x00000198u, 0x000200f8u, 0x00000198u, 0x000100fdu, 0x00010038u,
};
#define UMAP_VK__BINDINGS_copy 2
#define UMAP_VK__PC_SIZE_copy 60
#define UMAP_VK__PC_MEMBERS_copy(X) \
    X(copy, dim, 0, 16, U32, [0]) \
    X(copy, src_stride, 16, 16, U32, [0]) \
    X(copy, dst_stride, 32, 16, U32, [0]) \
    X(copy, src_base, 48, 4, U32, ) \
    X(copy, dst_base, 52, 4, U32, ) \
    X(copy, count, 56, 4, U32, )
static const uint32_t umap_vk__spv_copy[518] = {
    0x07230203u, 0x00010300u, 0x000d000bu, 0x00000076u, 0x00000000u, 0x00020011u, 0x00000001u, 0x0006000bu,
    0x00000001u, 0x4c534c47u, 0x6474732eu, 0x3035342eu, 0x00000000u, 0x0003000eu, 0x00000000u, 0x00000001u,
    0x0007000fu, 0x00000005u, 0x00000004u, 0x6e69616du, 0x00000000u, 0x0000000bu, 0x00000013u, 0x00060010u,
    0x00000004u, 0x00000011u, 0x00000100u, 0x00000001u, 0x00000001u, 0x00040047u, 0x0000000bu, 0x0000000bu,
    0x0000001cu, 0x00040047u, 0x00000013u, 0x0000000bu, 0x00000018u, 0x00040047u, 0x0000001cu, 0x00000006u,
    0x00000004u, 0x00040047u, 0x0000001du, 0x00000006u, 0x00000004u, 0x00040047u, 0x0000001eu, 0x00000006u,
    0x00000004u, 0x00050048u, 0x0000001fu, 0x00000000u, 0x00000023u, 0x00000000u, 0x00050048u, 0x0000001fu,
    0x00000001u, 0x00000023u, 0x00000010u, 0x00050048u, 0x0000001fu, 0x00000002u, 0x00000023u, 0x00000020u,
    0x00050048u, 0x0000001fu, 0x00000003u, 0x00000023u, 0x00000030u, 0x00050048u, 0x0000001fu, 0x00000004u,
    0x00000023u, 0x00000034u, 0x00050048u, 0x0000001fu, 0x00000005u, 0x00000023u, 0x00000038u, 0x00030047u,
    0x0000001fu, 0x00000002u, 0x00040047u, 0x0000005du, 0x00000006u, 0x00000004u, 0x00050048u, 0x0000005eu,
    0x00000000u, 0x00000023u, 0x00000000u, 0x00030047u, 0x0000005eu, 0x00000002u, 0x00040047u, 0x00000060u,
    0x00000022u, 0x00000000u, 0x00040047u, 0x00000060u, 0x00000021u, 0x00000001u, 0x00040047u, 0x00000062u,
    0x00000006u, 0x00000004u, 0x00040048u, 0x00000063u, 0x00000000u, 0x00000018u, 0x00050048u, 0x00000063u,
    0x00000000u, 0x00000023u, 0x00000000u, 0x00030047u, 0x00000063u, 0x00000002u, 0x00040047u, 0x00000065u,
    0x00000022u, 0x00000000u, 0x00040047u, 0x00000065u, 0x00000021u, 0x00000000u, 0x00040047u, 0x0000006bu,
    0x0000000bu, 0x00000019u, 0x00020013u, 0x00000002u, 0x00030021u, 0x00000003u, 0x00000002u, 0x00040015u,
    0x00000006u, 0x00000020u, 0x00000000u, 0x00040017u, 0x00000009u, 0x00000006u, 0x00000003u, 0x00040020u,
    0x0000000au, 0x00000001u, 0x00000009u, 0x0004003bu, 0x0000000au, 0x0000000bu, 0x00000001u, 0x0004002bu,
    0x00000006u, 0x0000000cu, 0x00000000u, 0x00040020u, 0x0000000du, 0x00000001u, 0x00000006u, 0x0004002bu,
    0x00000006u, 0x00000010u, 0x00000001u, 0x0004003bu, 0x0000000au, 0x00000013u, 0x00000001u, 0x0004002bu,
    0x00000006u, 0x00000017u, 0x00000100u, 0x0004002bu, 0x00000006u, 0x0000001bu, 0x00000004u, 0x0004001cu,
    0x0000001cu, 0x00000006u, 0x0000001bu, 0x0004001cu, 0x0000001du, 0x00000006u, 0x0000001bu, 0x0004001cu,
    0x0000001eu, 0x00000006u, 0x0000001bu, 0x0008001eu, 0x0000001fu, 0x0000001cu, 0x0000001du, 0x0000001eu,
    0x00000006u, 0x00000006u, 0x00000006u, 0x00040020u, 0x00000020u, 0x00000009u, 0x0000001fu, 0x0004003bu,
    0x00000020u, 0x00000021u, 0x00000009u, 0x00040015u, 0x00000022u, 0x00000020u, 0x00000001u, 0x0004002bu,
    0x00000022u, 0x00000023u, 0x00000005u, 0x00040020u, 0x00000024u, 0x00000009u, 0x00000006u, 0x00020014u,
    0x00000027u, 0x0004002bu, 0x00000022u, 0x0000002du, 0x00000003u, 0x0004002bu, 0x00000022u, 0x00000031u,
    0x00000004u, 0x0004002bu, 0x00000022u, 0x0000003eu, 0x00000000u, 0x0004002bu, 0x00000022u, 0x0000004cu,
    0x00000001u, 0x0004002bu, 0x00000022u, 0x00000054u, 0x00000002u, 0x0003001du, 0x0000005du, 0x00000006u,
    0x0003001eu, 0x0000005eu, 0x0000005du, 0x00040020u, 0x0000005fu, 0x0000000cu, 0x0000005eu, 0x0004003bu,
    0x0000005fu, 0x00000060u, 0x0000000cu, 0x0003001du, 0x00000062u, 0x00000006u, 0x0003001eu, 0x00000063u,
    0x00000062u, 0x00040020u, 0x00000064u, 0x0000000cu, 0x00000063u, 0x0004003bu, 0x00000064u, 0x00000065u,
    0x0000000cu, 0x00040020u, 0x00000067u, 0x0000000cu, 0x00000006u, 0x0006002cu, 0x00000009u, 0x0000006bu,
    0x00000017u, 0x00000010u, 0x00000010u, 0x00050036u, 0x00000002u, 0x00000004u, 0x00000000u, 0x00000003u,
    0x000200f8u, 0x00000005u, 0x000300f7u, 0x0000006cu, 0x00000000u, 0x000300fbu, 0x0000000cu, 0x0000006du,
    0x000200f8u, 0x0000006du, 0x00050041u, 0x0000000du, 0x0000000eu, 0x0000000bu, 0x0000000cu, 0x0004003du,
    0x00000006u, 0x0000000fu, 0x0000000eu, 0x00050041u, 0x0000000du, 0x00000011u, 0x0000000bu, 0x00000010u,
    0x0004003du, 0x00000006u, 0x00000012u, 0x00000011u, 0x00050041u, 0x0000000du, 0x00000014u, 0x00000013u,
    0x0000000cu, 0x0004003du, 0x00000006u, 0x00000015u, 0x00000014u, 0x00050084u, 0x00000006u, 0x00000016u,
    0x00000012u, 0x00000015u, 0x00050084u, 0x00000006u, 0x00000018u, 0x00000016u, 0x00000017u, 0x00050080u,
    0x00000006u, 0x00000019u, 0x0000000fu, 0x00000018u, 0x00050041u, 0x00000024u, 0x00000025u, 0x00000021u,
    0x00000023u, 0x0004003du, 0x00000006u, 0x00000026u, 0x00000025u, 0x000500aeu, 0x00000027u, 0x00000028u,
    0x00000019u, 0x00000026u, 0x000300f7u, 0x0000002au, 0x00000000u, 0x000400fau, 0x00000028u, 0x00000029u,
    0x0000002au, 0x000200f8u, 0x00000029u, 0x000200f9u, 0x0000006cu, 0x000200f8u, 0x0000002au, 0x00050041u,
    0x00000024u, 0x0000002eu, 0x00000021u, 0x0000002du, 0x0004003du, 0x00000006u, 0x0000002fu, 0x0000002eu,
    0x00050041u, 0x00000024u, 0x00000032u, 0x00000021u, 0x00000031u, 0x0004003du, 0x00000006u, 0x00000033u,
    0x00000032u, 0x000200f9u, 0x00000038u, 0x000200f8u, 0x00000038u, 0x000700f5u, 0x00000006u, 0x00000075u,
    0x00000019u, 0x0000002au, 0x0000004au, 0x00000039u, 0x000700f5u, 0x00000006u, 0x00000074u, 0x0000002fu,
    0x0000002au, 0x00000052u, 0x00000039u, 0x000700f5u, 0x00000006u, 0x00000073u, 0x00000033u, 0x0000002au,
    0x0000005au, 0x00000039u, 0x000700f5u, 0x00000022u, 0x00000072u, 0x0000002du, 0x0000002au, 0x0000005cu,
    0x00000039u, 0x000500afu, 0x00000027u, 0x0000003fu, 0x00000072u, 0x0000003eu, 0x000400f6u, 0x0000003au,
    0x00000039u, 0x00000000u, 0x000400fau, 0x0000003fu, 0x00000039u, 0x0000003au, 0x000200f8u, 0x00000039u,
    0x00060041u, 0x00000024u, 0x00000043u, 0x00000021u, 0x0000003eu, 0x00000072u, 0x0004003du, 0x00000006u,
    0x00000044u, 0x00000043u, 0x00050089u, 0x00000006u, 0x00000045u, 0x00000075u, 0x00000044u, 0x00050086u,
    0x00000006u, 0x0000004au, 0x00000075u, 0x00000044u, 0x00060041u, 0x00000024u, 0x0000004eu, 0x00000021u,
    0x0000004cu, 0x00000072u, 0x0004003du, 0x00000006u, 0x0000004fu, 0x0000004eu, 0x00050084u, 0x00000006u,
    0x00000050u, 0x00000045u, 0x0000004fu, 0x00050080u, 0x00000006u, 0x00000052u, 0x00000074u, 0x00000050u,
    0x00060041u, 0x00000024u, 0x00000056u, 0x00000021u, 0x00000054u, 0x00000072u, 0x0004003du, 0x00000006u,
    0x00000057u, 0x00000056u, 0x00050084u, 0x00000006u, 0x00000058u, 0x00000045u, 0x00000057u, 0x00050080u,
    0x00000006u, 0x0000005au, 0x00000073u, 0x00000058u, 0x00050082u, 0x00000022u, 0x0000005cu, 0x00000072u,
    0x0000004cu, 0x000200f9u, 0x00000038u, 0x000200f8u, 0x0000003au, 0x00060041u, 0x00000067u, 0x00000068u,
    0x00000065u, 0x0000003eu, 0x00000074u, 0x0004003du, 0x00000006u, 0x00000069u, 0x00000068u, 0x00060041u,
    0x00000067u, 0x0000006au, 0x00000060u, 0x0000003eu, 0x00000073u, 0x0003003eu, 0x0000006au, 0x00000069u,
    0x000200f9u, 0x0000006cu, 0x000200f8u, 0x0000006cu, 0x000100fdu, 0x00010038u,
};
#define UMAP_VK__BINDINGS_ew_region 3
#define UMAP_VK__PC_SIZE_ew_region 8
#define UMAP_VK__PC_MEMBERS_ew_region(X) \
    X(ew_region, prog_base, 0, 4, U32, ) \
    X(ew_region, dst_base, 4, 4, U32, )
static const uint32_t umap_vk__spv_ew_region[2125] = {
    0x07230203u, 0x00010300u, 0x000d000bu, 0x0000040bu, 0x00000000u, 0x00020011u, 0x00000001u, 0x0006000bu,
    0x00000001u, 0x4c534c47u, 0x6474732eu, 0x3035342eu, 0x00000000u, 0x0003000eu, 0x00000000u, 0x00000001u,
    0x0007000fu, 0x00000005u, 0x00000004u, 0x6e69616du, 0x00000000u, 0x00000176u, 0x0000017eu, 0x00060010u,
    0x00000004u, 0x00000011u, 0x00000100u, 0x00000001u, 0x00000001u, 0x00050048u, 0x00000162u, 0x00000000u,
    0x00000023u, 0x00000000u, 0x00050048u, 0x00000162u, 0x00000001u, 0x00000023u, 0x00000004u, 0x00030047u,
    0x00000162u, 0x00000002u, 0x00040047u, 0x0000016bu, 0x00000006u, 0x00000004u, 0x00040048u, 0x0000016cu,
    0x00000000u, 0x00000018u, 0x00050048u, 0x0000016cu, 0x00000000u, 0x00000023u, 0x00000000u, 0x00030047u,
    0x0000016cu, 0x00000002u, 0x00040047u, 0x0000016eu, 0x00000022u, 0x00000000u, 0x00040047u, 0x0000016eu,
    0x00000021u, 0x00000000u, 0x00040047u, 0x00000176u, 0x0000000bu, 0x0000001cu, 0x00040047u, 0x0000017eu,
    0x0000000bu, 0x00000018u, 0x00040047u, 0x000001dbu, 0x00000006u, 0x00000004u, 0x00040048u, 0x000001dcu,
    0x00000000u, 0x00000018u, 0x00050048u, 0x000001dcu, 0x00000000u, 0x00000023u, 0x00000000u, 0x00030047u,
    0x000001dcu, 0x00000002u, 0x00040047u, 0x000001deu, 0x00000022u, 0x00000000u, 0x00040047u, 0x000001deu,
    0x00000021u, 0x00000001u, 0x00040047u, 0x0000025cu, 0x00000006u, 0x00000004u, 0x00040048u, 0x0000025du,
    0x00000000u, 0x00000019u, 0x00050048u, 0x0000025du, 0x00000000u, 0x00000023u, 0x00000000u, 0x00030047u,
    0x0000025du, 0x00000002u, 0x00040047u, 0x0000025fu, 0x00000022u, 0x00000000u, 0x00040047u, 0x0000025fu,
    0x00000021u, 0x00000002u, 0x00040047u, 0x00000266u, 0x0000000bu, 0x00000019u, 0x00020013u, 0x00000002u,
    0x00030021u, 0x00000003u, 0x00000002u, 0x00030016u, 0x00000006u, 0x00000020u, 0x00040020u, 0x00000007u,
    0x00000007u, 0x00000006u, 0x00020014u, 0x00000008u, 0x00040015u, 0x00000019u, 0x00000020u, 0x00000000u,
    0x00040020u, 0x0000001au, 0x00000007u, 0x00000019u, 0x0004002bu, 0x00000006u, 0x0000002au, 0x3f800000u,
    0x0004002bu, 0x00000006u, 0x0000003fu, 0xc0000000u, 0x0004002bu, 0x00000006u, 0x0000004bu, 0x00000000u,
    0x0004002bu, 0x00000006u, 0x0000007du, 0x40000000u, 0x0004002bu, 0x00000006u, 0x00000085u, 0xbf800000u,
    0x0004001eu, 0x00000162u, 0x00000019u, 0x00000019u, 0x00040020u, 0x00000163u, 0x00000009u, 0x00000162u,
    0x0004003bu, 0x00000163u, 0x00000164u, 0x00000009u, 0x00040015u, 0x00000165u, 0x00000020u, 0x00000001u,
    0x0004002bu, 0x00000165u, 0x00000166u, 0x00000000u, 0x00040020u, 0x00000167u, 0x00000009u, 0x00000019u,
    0x0003001du, 0x0000016bu, 0x00000019u, 0x0003001eu, 0x0000016cu, 0x0000016bu, 0x00040020u, 0x0000016du,
    0x0000000cu, 0x0000016cu, 0x0004003bu, 0x0000016du, 0x0000016eu, 0x0000000cu, 0x00040020u, 0x00000170u,
    0x0000000cu, 0x00000019u, 0x00040017u, 0x00000174u, 0x00000019u, 0x00000003u, 0x00040020u, 0x00000175u,
    0x00000001u, 0x00000174u, 0x0004003bu, 0x00000175u, 0x00000176u, 0x00000001u, 0x0004002bu, 0x00000019u,
    0x00000177u, 0x00000000u, 0x00040020u, 0x00000178u, 0x00000001u, 0x00000019u, 0x0004002bu, 0x00000019u,
    0x0000017bu, 0x00000001u, 0x0004003bu, 0x00000175u, 0x0000017eu, 0x00000001u, 0x0004002bu, 0x00000019u,
    0x00000182u, 0x00000100u, 0x0004002bu, 0x00000165u, 0x0000018fu, 0x00000003u, 0x0004002bu, 0x00000019u,
    0x0000019fu, 0x00000004u, 0x0004001cu, 0x000001a0u, 0x00000019u, 0x0000019fu, 0x00040020u, 0x000001a1u,
    0x00000007u, 0x000001a0u, 0x0004002bu, 0x00000165u, 0x000001acu, 0x00000001u, 0x0004002bu, 0x00000019u,
    0x000001b0u, 0x00000005u, 0x0004002bu, 0x00000019u, 0x000001b6u, 0x00000006u, 0x0004002bu, 0x00000019u,
    0x000001bcu, 0x00000007u, 0x0004002bu, 0x00000019u, 0x000001d2u, 0x00000003u, 0x0003001du, 0x000001dbu,
    0x00000006u, 0x0003001eu, 0x000001dcu, 0x000001dbu, 0x00040020u, 0x000001ddu, 0x0000000cu, 0x000001dcu,
    0x0004003bu, 0x000001ddu, 0x000001deu, 0x0000000cu, 0x00040020u, 0x000001e2u, 0x0000000cu, 0x00000006u,
    0x0004002bu, 0x00000019u, 0x000001f3u, 0x00000002u, 0x0004002bu, 0x00000165u, 0x00000202u, 0x00000004u,
    0x0004002bu, 0x00000019u, 0x00000216u, 0x00000040u, 0x0004001cu, 0x00000217u, 0x00000006u, 0x00000216u,
    0x00040020u, 0x00000218u, 0x00000007u, 0x00000217u, 0x0004002bu, 0x00000019u, 0x0000021fu, 0x00000008u,
    0x0003001du, 0x0000025cu, 0x00000006u, 0x0003001eu, 0x0000025du, 0x0000025cu, 0x00040020u, 0x0000025eu,
    0x0000000cu, 0x0000025du, 0x0004003bu, 0x0000025eu, 0x0000025fu, 0x0000000cu, 0x0006002cu, 0x00000174u,
    0x00000266u, 0x00000182u, 0x0000017bu, 0x0000017bu, 0x0003002au, 0x00000008u, 0x0000028cu, 0x00030029u,
    0x00000008u, 0x0000028fu, 0x00030001u, 0x00000006u, 0x000003deu, 0x0004002bu, 0x00000006u, 0x00000408u,
    0x7fc00000u, 0x0004002bu, 0x00000006u, 0x00000409u, 0x7f800000u, 0x00050036u, 0x00000002u, 0x00000004u,
    0x00000000u, 0x00000003u, 0x000200f8u, 0x00000005u, 0x0004003bu, 0x000001a1u, 0x000001a2u, 0x00000007u,
    0x0004003bu, 0x00000218u, 0x00000219u, 0x00000007u, 0x000300f7u, 0x0000028au, 0x00000000u, 0x000300fbu,
    0x00000177u, 0x0000028bu, 0x000200f8u, 0x0000028bu, 0x00050041u, 0x00000167u, 0x00000168u, 0x00000164u,
    0x00000166u, 0x0004003du, 0x00000019u, 0x00000169u, 0x00000168u, 0x00060041u, 0x00000170u, 0x00000171u,
    0x0000016eu, 0x00000166u, 0x00000169u, 0x0004003du, 0x00000019u, 0x00000172u, 0x00000171u, 0x00050041u,
    0x00000178u, 0x00000179u, 0x00000176u, 0x00000177u, 0x0004003du, 0x00000019u, 0x0000017au, 0x00000179u,
    0x00050041u, 0x00000178u, 0x0000017cu, 0x00000176u, 0x0000017bu, 0x0004003du, 0x00000019u, 0x0000017du,
    0x0000017cu, 0x00050041u, 0x00000178u, 0x0000017fu, 0x0000017eu, 0x00000177u, 0x0004003du, 0x00000019u,
    0x00000180u, 0x0000017fu, 0x00050084u, 0x00000019u, 0x00000181u, 0x0000017du, 0x00000180u, 0x00050084u,
    0x00000019u, 0x00000183u, 0x00000181u, 0x00000182u, 0x00050080u, 0x00000019u, 0x00000184u, 0x0000017au,
    0x00000183u, 0x000500aeu, 0x00000008u, 0x00000187u, 0x00000184u, 0x00000172u, 0x000300f7u, 0x00000189u,
    0x00000000u, 0x000400fau, 0x00000187u, 0x00000188u, 0x00000189u, 0x000200f8u, 0x00000188u, 0x000200f9u,
    0x0000028au, 0x000200f8u, 0x00000189u, 0x000200f9u, 0x00000190u, 0x000200f8u, 0x00000190u, 0x000700f5u,
    0x00000019u, 0x00000402u, 0x00000184u, 0x00000189u, 0x000001aau, 0x00000191u, 0x000700f5u, 0x00000165u,
    0x000003ccu, 0x0000018fu, 0x00000189u, 0x000001adu, 0x00000191u, 0x000500afu, 0x00000008u, 0x00000196u,
    0x000003ccu, 0x00000166u, 0x000400f6u, 0x00000192u, 0x00000191u, 0x00000000u, 0x000400fau, 0x00000196u,
    0x00000191u, 0x00000192u, 0x000200f8u, 0x00000191u, 0x00050080u, 0x00000019u, 0x00000199u, 0x00000169u,
    0x0000017bu, 0x0004007cu, 0x00000019u, 0x0000019bu, 0x000003ccu, 0x00050080u, 0x00000019u, 0x0000019cu,
    0x00000199u, 0x0000019bu, 0x00060041u, 0x00000170u, 0x0000019du, 0x0000016eu, 0x00000166u, 0x0000019cu,
    0x0004003du, 0x00000019u, 0x0000019eu, 0x0000019du, 0x00050089u, 0x00000019u, 0x000001a6u, 0x00000402u,
    0x0000019eu, 0x00050041u, 0x0000001au, 0x000001a7u, 0x000001a2u, 0x000003ccu, 0x0003003eu, 0x000001a7u,
    0x000001a6u, 0x00050086u, 0x00000019u, 0x000001aau, 0x00000402u, 0x0000019eu, 0x00050082u, 0x00000165u,
    0x000001adu, 0x000003ccu, 0x000001acu, 0x000200f9u, 0x00000190u, 0x000200f8u, 0x00000192u, 0x00050080u,
    0x00000019u, 0x000001b1u, 0x00000169u, 0x000001b0u, 0x00060041u, 0x00000170u, 0x000001b2u, 0x0000016eu,
    0x00000166u, 0x000001b1u, 0x0004003du, 0x00000019u, 0x000001b3u, 0x000001b2u, 0x00050080u, 0x00000019u,
    0x000001b7u, 0x00000169u, 0x000001b6u, 0x00060041u, 0x00000170u, 0x000001b8u, 0x0000016eu, 0x00000166u,
    0x000001b7u, 0x0004003du, 0x00000019u, 0x000001b9u, 0x000001b8u, 0x00050080u, 0x00000019u, 0x000001bdu,
    0x00000169u, 0x000001bcu, 0x000200f9u, 0x000001bfu, 0x000200f8u, 0x000001bfu, 0x000700f5u, 0x00000019u,
    0x000003d1u, 0x000001bdu, 0x00000192u, 0x00000221u, 0x000001c2u, 0x000700f5u, 0x00000019u, 0x000003cdu,
    0x00000177u, 0x00000192u, 0x0000021eu, 0x000001c2u, 0x000500b0u, 0x00000008u, 0x000001c6u, 0x000003cdu,
    0x000001b3u, 0x000400f6u, 0x000001c1u, 0x000001c2u, 0x00000000u, 0x000400fau, 0x000001c6u, 0x000001c0u,
    0x000001c1u, 0x000200f8u, 0x000001c0u, 0x00060041u, 0x00000170u, 0x000001c9u, 0x0000016eu, 0x00000166u,
    0x000003d1u, 0x0004003du, 0x00000019u, 0x000001cau, 0x000001c9u, 0x00050080u, 0x00000019u, 0x000001cdu,
    0x000003d1u, 0x0000017bu, 0x00060041u, 0x00000170u, 0x000001ceu, 0x0000016eu, 0x00000166u, 0x000001cdu,
    0x0004003du, 0x00000019u, 0x000001cfu, 0x000001ceu, 0x00050080u, 0x00000019u, 0x000001d3u, 0x000003d1u,
    0x000001d2u, 0x00060041u, 0x00000170u, 0x000001d4u, 0x0000016eu, 0x00000166u, 0x000001d3u, 0x0004003du,
    0x00000019u, 0x000001d5u, 0x000001d4u, 0x000500aau, 0x00000008u, 0x000001d7u, 0x000001cau, 0x00000177u,
    0x000300f7u, 0x000001d9u, 0x00000000u, 0x000400fau, 0x000001d7u, 0x000001d8u, 0x000001e5u, 0x000200f8u,
    0x000001d8u, 0x00050080u, 0x00000019u, 0x000001e1u, 0x000001d5u, 0x00000184u, 0x00060041u, 0x000001e2u,
    0x000001e3u, 0x000001deu, 0x00000166u, 0x000001e1u, 0x0004003du, 0x00000006u, 0x000001e4u, 0x000001e3u,
    0x000200f9u, 0x000001d9u, 0x000200f8u, 0x000001e5u, 0x000500aau, 0x00000008u, 0x000001e7u, 0x000001cau,
    0x0000017bu, 0x000300f7u, 0x000001e9u, 0x00000000u, 0x000400fau, 0x000001e7u, 0x000001e8u, 0x000001edu,
    0x000200f8u, 0x000001e8u, 0x00060041u, 0x000001e2u, 0x000001ebu, 0x000001deu, 0x00000166u, 0x000001d5u,
    0x0004003du, 0x00000006u, 0x000001ecu, 0x000001ebu, 0x000200f9u, 0x000001e9u, 0x000200f8u, 0x000001edu,
    0x000500aau, 0x00000008u, 0x000001efu, 0x000001cau, 0x000001d2u, 0x000300f7u, 0x000001f1u, 0x00000000u,
    0x000400fau, 0x000001efu, 0x000001f0u, 0x000001f8u, 0x000200f8u, 0x000001f0u, 0x00050080u, 0x00000019u,
    0x000001f4u, 0x000003d1u, 0x000001f3u, 0x00060041u, 0x00000170u, 0x000001f5u, 0x0000016eu, 0x00000166u,
    0x000001f4u, 0x0004003du, 0x00000019u, 0x000001f6u, 0x000001f5u, 0x0004007cu, 0x00000006u, 0x000001f7u,
    0x000001f6u, 0x000200f9u, 0x000001f1u, 0x000200f8u, 0x000001f8u, 0x000200f9u, 0x000001fcu, 0x000200f8u,
    0x000001fcu, 0x000700f5u, 0x00000019u, 0x000003f6u, 0x000001d5u, 0x000001f8u, 0x00000210u, 0x000001fdu,
    0x000700f5u, 0x00000165u, 0x000003f5u, 0x00000166u, 0x000001f8u, 0x00000212u, 0x000001fdu, 0x000500b1u,
    0x00000008u, 0x00000203u, 0x000003f5u, 0x00000202u, 0x000400f6u, 0x000001feu, 0x000001fdu, 0x00000000u,
    0x000400fau, 0x00000203u, 0x000001fdu, 0x000001feu, 0x000200f8u, 0x000001fdu, 0x00050041u, 0x0000001au,
    0x00000205u, 0x000001a2u, 0x000003f5u, 0x0004003du, 0x00000019u, 0x00000206u, 0x00000205u, 0x00050080u,
    0x00000019u, 0x00000208u, 0x000003d1u, 0x0000019fu, 0x0004007cu, 0x00000019u, 0x0000020au, 0x000003f5u,
    0x00050080u, 0x00000019u, 0x0000020bu, 0x00000208u, 0x0000020au, 0x00060041u, 0x00000170u, 0x0000020cu,
    0x0000016eu, 0x00000166u, 0x0000020bu, 0x0004003du, 0x00000019u, 0x0000020du, 0x0000020cu, 0x00050084u,
    0x00000019u, 0x0000020eu, 0x00000206u, 0x0000020du, 0x00050080u, 0x00000019u, 0x00000210u, 0x000003f6u,
    0x0000020eu, 0x00050080u, 0x00000165u, 0x00000212u, 0x000003f5u, 0x000001acu, 0x000200f9u, 0x000001fcu,
    0x000200f8u, 0x000001feu, 0x00060041u, 0x000001e2u, 0x00000214u, 0x000001deu, 0x00000166u, 0x000003f6u,
    0x0004003du, 0x00000006u, 0x00000215u, 0x00000214u, 0x000200f9u, 0x000001f1u, 0x000200f8u, 0x000001f1u,
    0x000700f5u, 0x00000006u, 0x000003fau, 0x000001f7u, 0x000001f0u, 0x00000215u, 0x000001feu, 0x000200f9u,
    0x000001e9u, 0x000200f8u, 0x000001e9u, 0x000700f5u, 0x00000006u, 0x000003f9u, 0x000001ecu, 0x000001e8u,
    0x000003fau, 0x000001f1u, 0x000200f9u, 0x000001d9u, 0x000200f8u, 0x000001d9u, 0x000700f5u, 0x00000006u,
    0x000003f8u, 0x000001e4u, 0x000001d8u, 0x000003f9u, 0x000001e9u, 0x00050041u, 0x00000007u, 0x0000021cu,
    0x00000219u, 0x000001cfu, 0x0003003eu, 0x0000021cu, 0x000003f8u, 0x000200f9u, 0x000001c2u, 0x000200f8u,
    0x000001c2u, 0x00050080u, 0x00000019u, 0x0000021eu, 0x000003cdu, 0x000001acu, 0x00050080u, 0x00000019u,
    0x00000221u, 0x000003d1u, 0x0000021fu, 0x000200f9u, 0x000001bfu, 0x000200f8u, 0x000001c1u, 0x000200f9u,
    0x00000224u, 0x000200f8u, 0x00000224u, 0x000700f5u, 0x00000006u, 0x000003dbu, 0x000003deu, 0x000001c1u,
    0x000003d9u, 0x00000227u, 0x000700f5u, 0x00000019u, 0x000003d0u, 0x000003d1u, 0x000001c1u, 0x0000025bu,
    0x00000227u, 0x000700f5u, 0x00000006u, 0x000003cfu, 0x0000004bu, 0x000001c1u, 0x000003d9u, 0x00000227u,
    0x000700f5u, 0x00000019u, 0x000003ceu, 0x00000177u, 0x000001c1u, 0x00000259u, 0x00000227u, 0x000500b0u,
    0x00000008u, 0x0000022bu, 0x000003ceu, 0x000001b9u, 0x000400f6u, 0x00000226u, 0x00000227u, 0x00000000u,
    0x000400fau, 0x0000022bu, 0x00000225u, 0x00000226u, 0x000200f8u, 0x00000225u, 0x00050080u, 0x00000019u,
    0x0000022eu, 0x000003d0u, 0x000001f3u, 0x00060041u, 0x00000170u, 0x0000022fu, 0x0000016eu, 0x00000166u,
    0x0000022eu, 0x0004003du, 0x00000019u, 0x00000230u, 0x0000022fu, 0x00050080u, 0x00000019u, 0x00000232u,
    0x000003d0u, 0x000001d2u, 0x00060041u, 0x00000170u, 0x00000233u, 0x0000016eu, 0x00000166u, 0x00000232u,
    0x0004003du, 0x00000019u, 0x00000234u, 0x00000233u, 0x00050080u, 0x00000019u, 0x00000236u, 0x000003d0u,
    0x0000019fu, 0x00060041u, 0x00000170u, 0x00000237u, 0x0000016eu, 0x00000166u, 0x00000236u, 0x0004003du,
    0x00000019u, 0x00000238u, 0x00000237u, 0x00050080u, 0x00000019u, 0x0000023au, 0x000003d0u, 0x000001b0u,
    0x00060041u, 0x00000170u, 0x0000023bu, 0x0000016eu, 0x00000166u, 0x0000023au, 0x0004003du, 0x00000019u,
    0x0000023cu, 0x0000023bu, 0x0004007cu, 0x00000006u, 0x0000023du, 0x0000023cu, 0x00050080u, 0x00000019u,
    0x0000023fu, 0x000003d0u, 0x000001b6u, 0x00060041u, 0x00000170u, 0x00000240u, 0x0000016eu, 0x00000166u,
    0x0000023fu, 0x0004003du, 0x00000019u, 0x00000241u, 0x00000240u, 0x0004007cu, 0x00000006u, 0x00000242u,
    0x00000241u, 0x00060041u, 0x00000170u, 0x00000244u, 0x0000016eu, 0x00000166u, 0x000003d0u, 0x0004003du,
    0x00000019u, 0x00000245u, 0x00000244u, 0x00050041u, 0x00000007u, 0x00000247u, 0x00000219u, 0x00000230u,
    0x0004003du, 0x00000006u, 0x00000248u, 0x00000247u, 0x00050041u, 0x00000007u, 0x0000024au, 0x00000219u,
    0x00000234u, 0x0004003du, 0x00000006u, 0x0000024bu, 0x0000024au, 0x00050041u, 0x00000007u, 0x0000024du,
    0x00000219u, 0x00000238u, 0x0004003du, 0x00000006u, 0x0000024eu, 0x0000024du, 0x000300f7u, 0x0000034fu,
    0x00000000u, 0x000300fbu, 0x00000177u, 0x000002abu, 0x000200f8u, 0x000002abu, 0x000300f7u, 0x0000034cu,
    0x00000000u, 0x003b00fbu, 0x00000245u, 0x0000034cu, 0x0000002bu, 0x000002adu, 0x00000004u, 0x000002afu,
    0x00000005u, 0x000002b2u, 0x00000006u, 0x000002b5u, 0x00000007u, 0x000002b8u, 0x00000008u, 0x000002bbu,
    0x00000009u, 0x000002beu, 0x0000000au, 0x000002c1u, 0x0000000bu, 0x000002c4u, 0x0000000cu, 0x000002cfu,
    0x0000000du, 0x000002dbu, 0x0000000eu, 0x000002deu, 0x0000000fu, 0x000002e2u, 0x00000010u, 0x000002f3u,
    0x00000011u, 0x000002f7u, 0x00000012u, 0x000002fbu, 0x00000013u, 0x000002ffu, 0x00000014u, 0x00000303u,
    0x00000015u, 0x00000307u, 0x00000016u, 0x00000311u, 0x00000017u, 0x0000031bu, 0x00000018u, 0x00000320u,
    0x00000019u, 0x00000325u, 0x0000001au, 0x0000032au, 0x0000001bu, 0x0000032fu, 0x0000001cu, 0x00000334u,
    0x0000001du, 0x00000339u, 0x0000001eu, 0x0000033fu, 0x000200f8u, 0x000002adu, 0x000200f9u, 0x0000034cu,
    0x000200f8u, 0x000002afu, 0x0004007fu, 0x00000006u, 0x000002b1u, 0x00000248u, 0x000200f9u, 0x0000034cu,
    0x000200f8u, 0x000002b2u, 0x0006000cu, 0x00000006u, 0x000002b4u, 0x00000001u, 0x0000001bu, 0x00000248u,
    0x000200f9u, 0x0000034cu, 0x000200f8u, 0x000002b5u, 0x0006000cu, 0x00000006u, 0x000002b7u, 0x00000001u,
    0x0000001cu, 0x00000248u, 0x000200f9u, 0x0000034cu, 0x000200f8u, 0x000002b8u, 0x00050081u, 0x00000006u,
    0x00000356u, 0x0000002au, 0x00000248u, 0x000500b4u, 0x00000008u, 0x00000358u, 0x00000356u, 0x0000002au,
    0x000300f7u, 0x00000363u, 0x00000000u, 0x000400fau, 0x00000358u, 0x00000359u, 0x0000035bu, 0x000200f8u,
    0x00000359u, 0x000200f9u, 0x00000363u, 0x000200f8u, 0x0000035bu, 0x0006000cu, 0x00000006u, 0x0000035du,
    0x00000001u, 0x0000001cu, 0x00000356u, 0x00050088u, 0x00000006u, 0x00000361u, 0x00000248u, 0x00000248u,
    0x00050085u, 0x00000006u, 0x00000362u, 0x0000035du, 0x00000361u, 0x000200f9u, 0x00000363u, 0x000200f8u,
    0x00000363u, 0x000700f5u, 0x00000006u, 0x000003d7u, 0x00000248u, 0x00000359u, 0x00000362u, 0x0000035bu,
    0x000200f9u, 0x0000034cu, 0x000200f8u, 0x000002bbu, 0x0006000cu, 0x00000006u, 0x000002bdu, 0x00000001u,
    0x0000001fu, 0x00000248u, 0x000200f9u, 0x0000034cu, 0x000200f8u, 0x000002beu, 0x00050088u, 0x00000006u,
    0x000002c0u, 0x0000002au, 0x00000248u, 0x000200f9u, 0x0000034cu, 0x000200f8u, 0x000002c1u, 0x0006000cu,
    0x00000006u, 0x000002c3u, 0x00000001u, 0x00000004u, 0x00000248u, 0x000200f9u, 0x0000034cu, 0x000200f8u,
    0x000002c4u, 0x000500bau, 0x00000008u, 0x000002c6u, 0x00000248u, 0x0000004bu, 0x000400a8u, 0x00000008u,
    0x000002c7u, 0x000002c6u, 0x000300f7u, 0x000002cbu, 0x00000000u, 0x000400fau, 0x000002c7u, 0x000002c8u,
    0x000002cbu, 0x000200f8u, 0x000002c8u, 0x000500b7u, 0x00000008u, 0x00000369u, 0x00000248u, 0x00000248u,
    0x000200f9u, 0x000002cbu, 0x000200f8u, 0x000002cbu, 0x000700f5u, 0x00000008u, 0x000002ccu, 0x000002c6u,
    0x000002c4u, 0x00000369u, 0x000002c8u, 0x000600a9u, 0x00000006u, 0x000002ceu, 0x000002ccu, 0x00000248u,
    0x0000004bu, 0x000200f9u, 0x0000034cu, 0x000200f8u, 0x000002cfu, 0x0006000cu, 0x00000006u, 0x000002d1u,
    0x00000001u, 0x00000004u, 0x00000248u, 0x0004007fu, 0x00000006u, 0x000002d2u, 0x000002d1u, 0x0006000cu,
    0x00000006u, 0x000002d3u, 0x00000001u, 0x0000001bu, 0x000002d2u, 0x000500beu, 0x00000008u, 0x000002d5u,
    0x00000248u, 0x0000004bu, 0x000600a9u, 0x00000006u, 0x000002d7u, 0x000002d5u, 0x0000002au, 0x000002d3u,
    0x00050081u, 0x00000006u, 0x000002d9u, 0x0000002au, 0x000002d3u, 0x00050088u, 0x00000006u, 0x000002dau,
    0x000002d7u, 0x000002d9u, 0x000200f9u, 0x0000034cu, 0x000200f8u, 0x000002dbu, 0x0006000cu, 0x00000006u,
    0x00000370u, 0x00000001u, 0x00000004u, 0x00000248u, 0x00050085u, 0x00000006u, 0x00000371u, 0x0000003fu,
    0x00000370u, 0x0006000cu, 0x00000006u, 0x00000372u, 0x00000001u, 0x0000001bu, 0x00000371u, 0x00050083u,
    0x00000006u, 0x00000374u, 0x0000002au, 0x00000372u, 0x00050081u, 0x00000006u, 0x00000376u, 0x0000002au,
    0x00000372u, 0x00050088u, 0x00000006u, 0x00000377u, 0x00000374u, 0x00000376u, 0x000500b8u, 0x00000008u,
    0x00000379u, 0x00000248u, 0x0000004bu, 0x000300f7u, 0x0000037fu, 0x00000000u, 0x000400fau, 0x00000379u,
    0x0000037au, 0x0000037du, 0x000200f8u, 0x0000037au, 0x0004007fu, 0x00000006u, 0x0000037cu, 0x00000377u,
    0x000200f9u, 0x0000037fu, 0x000200f8u, 0x0000037du, 0x000200f9u, 0x0000037fu, 0x000200f8u, 0x0000037fu,
    0x000700f5u, 0x00000006u, 0x000003d6u, 0x0000037cu, 0x0000037au, 0x00000377u, 0x0000037du, 0x000200f9u,
    0x0000034cu, 0x000200f8u, 0x000002deu, 0x00050085u, 0x00000006u, 0x000002e1u, 0x00000248u, 0x00000248u,
    0x000200f9u, 0x0000034cu, 0x000200f8u, 0x000002e2u, 0x000500b4u, 0x00000008u, 0x000002e4u, 0x00000248u,
    0x0000004bu, 0x000400a8u, 0x00000008u, 0x000002e5u, 0x000002e4u, 0x000300f7u, 0x000002e9u, 0x00000000u,
    0x000400fau, 0x000002e5u, 0x000002e6u, 0x000002e9u, 0x000200f8u, 0x000002e6u, 0x000500b7u, 0x00000008u,
    0x00000385u, 0x00000248u, 0x00000248u, 0x000200f9u, 0x000002e9u, 0x000200f8u, 0x000002e9u, 0x000700f5u,
    0x00000008u, 0x000002eau, 0x000002e4u, 0x000002e2u, 0x00000385u, 0x000002e6u, 0x000300f7u, 0x000002f1u,
    0x00000000u, 0x000400fau, 0x000002eau, 0x000002ebu, 0x000002edu, 0x000200f8u, 0x000002ebu, 0x000200f9u,
    0x000002f1u, 0x000200f8u, 0x000002edu, 0x000500bau, 0x00000008u, 0x000002efu, 0x00000248u, 0x0000004bu,
    0x000600a9u, 0x00000006u, 0x000002f0u, 0x000002efu, 0x0000002au, 0x00000085u, 0x000200f9u, 0x000002f1u,
    0x000200f8u, 0x000002f1u, 0x000700f5u, 0x00000006u, 0x000003d5u, 0x00000248u, 0x000002ebu, 0x000002f0u,
    0x000002edu, 0x000200f9u, 0x0000034cu, 0x000200f8u, 0x000002f3u, 0x00050081u, 0x00000006u, 0x000002f6u,
    0x00000248u, 0x0000024bu, 0x000200f9u, 0x0000034cu, 0x000200f8u, 0x000002f7u, 0x00050083u, 0x00000006u,
    0x000002fau, 0x00000248u, 0x0000024bu, 0x000200f9u, 0x0000034cu, 0x000200f8u, 0x000002fbu, 0x00050085u,
    0x00000006u, 0x000002feu, 0x00000248u, 0x0000024bu, 0x000200f9u, 0x0000034cu, 0x000200f8u, 0x000002ffu,
    0x00050088u, 0x00000006u, 0x00000302u, 0x00000248u, 0x0000024bu, 0x000200f9u, 0x0000034cu, 0x000200f8u,
    0x00000303u, 0x000300f7u, 0x000003c0u, 0x00000000u, 0x000300fbu, 0x00000177u, 0x0000038du, 0x000200f8u,
    0x0000038du, 0x000500b4u, 0x00000008u, 0x0000038fu, 0x0000024bu, 0x0000004bu, 0x000300f7u, 0x00000391u,
    0x00000000u, 0x000400fau, 0x0000038fu, 0x00000390u, 0x00000391u, 0x000200f8u, 0x00000390u, 0x000200f9u,
    0x000003c0u, 0x000200f8u, 0x00000391u, 0x000500b4u, 0x00000008u, 0x00000393u, 0x00000248u, 0x0000004bu,
    0x000300f7u, 0x0000039cu, 0x00000000u, 0x000400fau, 0x00000393u, 0x00000394u, 0x0000039cu, 0x000200f8u,
    0x00000394u, 0x000500bau, 0x00000008u, 0x00000396u, 0x0000024bu, 0x0000004bu, 0x000600a9u, 0x00000006u,
    0x0000040au, 0x00000396u, 0x0000004bu, 0x00000409u, 0x000200f9u, 0x000003c0u, 0x000200f8u, 0x0000039cu,
    0x000500b8u, 0x00000008u, 0x0000039eu, 0x00000248u, 0x0000004bu, 0x000300f7u, 0x000003bcu, 0x00000000u,
    0x000400fau, 0x0000039eu, 0x0000039fu, 0x000003bcu, 0x000200f8u, 0x0000039fu, 0x0006000cu, 0x00000006u,
    0x000003a1u, 0x00000001u, 0x00000008u, 0x0000024bu, 0x000500b7u, 0x00000008u, 0x000003a3u, 0x000003a1u,
    0x0000024bu, 0x000300f7u, 0x000003a6u, 0x00000000u, 0x000400fau, 0x000003a3u, 0x000003a4u, 0x000003a6u,
    0x000200f8u, 0x000003a4u, 0x000200f9u, 0x000003c0u, 0x000200f8u, 0x000003a6u, 0x0004007fu, 0x00000006u,
    0x000003a8u, 0x00000248u, 0x0007000cu, 0x00000006u, 0x000003aau, 0x00000001u, 0x0000001au, 0x000003a8u,
    0x0000024bu, 0x0005008du, 0x00000006u, 0x000003acu, 0x0000024bu, 0x0000007du, 0x000500b4u, 0x00000008u,
    0x000003adu, 0x000003acu, 0x0000002au, 0x000400a8u, 0x00000008u, 0x000003aeu, 0x000003adu, 0x000300f7u,
    0x000003b3u, 0x00000000u, 0x000400fau, 0x000003aeu, 0x000003afu, 0x000003b3u, 0x000200f8u, 0x000003afu,
    0x000500b4u, 0x00000008u, 0x000003b2u, 0x000003acu, 0x00000085u, 0x000200f9u, 0x000003b3u, 0x000200f8u,
    0x000003b3u, 0x000700f5u, 0x00000008u, 0x000003b4u, 0x000003adu, 0x000003a6u, 0x000003b2u, 0x000003afu,
    0x000300f7u, 0x000003bau, 0x00000000u, 0x000400fau, 0x000003b4u, 0x000003b5u, 0x000003b8u, 0x000200f8u,
    0x000003b5u, 0x0004007fu, 0x00000006u, 0x000003b7u, 0x000003aau, 0x000200f9u, 0x000003bau, 0x000200f8u,
    0x000003b8u, 0x000200f9u, 0x000003bau, 0x000200f8u, 0x000003bau, 0x000700f5u, 0x00000006u, 0x000003d2u,
    0x000003b7u, 0x000003b5u, 0x000003aau, 0x000003b8u, 0x000200f9u, 0x000003c0u, 0x000200f8u, 0x000003bcu,
    0x0007000cu, 0x00000006u, 0x000003bfu, 0x00000001u, 0x0000001au, 0x00000248u, 0x0000024bu, 0x000200f9u,
    0x000003c0u, 0x000200f8u, 0x000003c0u, 0x000d00f5u, 0x00000006u, 0x000003d4u, 0x0000002au, 0x00000390u,
    0x0000040au, 0x00000394u, 0x00000408u, 0x000003a4u, 0x000003d2u, 0x000003bau, 0x000003bfu, 0x000003bcu,
    0x000200f9u, 0x0000034cu, 0x000200f8u, 0x00000307u, 0x000500b7u, 0x00000008u, 0x000003c6u, 0x00000248u,
    0x00000248u, 0x000500beu, 0x00000008u, 0x0000030cu, 0x00000248u, 0x0000024bu, 0x000500a6u, 0x00000008u,
    0x0000030du, 0x000003c6u, 0x0000030cu, 0x000600a9u, 0x00000006u, 0x00000310u, 0x0000030du, 0x00000248u,
    0x0000024bu, 0x000200f9u, 0x0000034cu, 0x000200f8u, 0x00000311u, 0x000500b7u, 0x00000008u, 0x000003cbu,
    0x00000248u, 0x00000248u, 0x000500bcu, 0x00000008u, 0x00000316u, 0x00000248u, 0x0000024bu, 0x000500a6u,
    0x00000008u, 0x00000317u, 0x000003cbu, 0x00000316u, 0x000600a9u, 0x00000006u, 0x0000031au, 0x00000317u,
    0x00000248u, 0x0000024bu, 0x000200f9u, 0x0000034cu, 0x000200f8u, 0x0000031bu, 0x000500b8u, 0x00000008u,
    0x0000031eu, 0x00000248u, 0x0000024bu, 0x000600a9u, 0x00000006u, 0x0000031fu, 0x0000031eu, 0x0000002au,
    0x0000004bu, 0x000200f9u, 0x0000034cu, 0x000200f8u, 0x00000320u, 0x000500bcu, 0x00000008u, 0x00000323u,
    0x00000248u, 0x0000024bu, 0x000600a9u, 0x00000006u, 0x00000324u, 0x00000323u, 0x0000002au, 0x0000004bu,
    0x000200f9u, 0x0000034cu, 0x000200f8u, 0x00000325u, 0x000500bau, 0x00000008u, 0x00000328u, 0x00000248u,
    0x0000024bu, 0x000600a9u, 0x00000006u, 0x00000329u, 0x00000328u, 0x0000002au, 0x0000004bu, 0x000200f9u,
    0x0000034cu, 0x000200f8u, 0x0000032au, 0x000500beu, 0x00000008u, 0x0000032du, 0x00000248u, 0x0000024bu,
    0x000600a9u, 0x00000006u, 0x0000032eu, 0x0000032du, 0x0000002au, 0x0000004bu, 0x000200f9u, 0x0000034cu,
    0x000200f8u, 0x0000032fu, 0x000500b4u, 0x00000008u, 0x00000332u, 0x00000248u, 0x0000024bu, 0x000600a9u,
    0x00000006u, 0x00000333u, 0x00000332u, 0x0000002au, 0x0000004bu, 0x000200f9u, 0x0000034cu, 0x000200f8u,
    0x00000334u, 0x000500b7u, 0x00000008u, 0x00000337u, 0x00000248u, 0x0000024bu, 0x000600a9u, 0x00000006u,
    0x00000338u, 0x00000337u, 0x0000002au, 0x0000004bu, 0x000200f9u, 0x0000034cu, 0x000200f8u, 0x00000339u,
    0x000500b7u, 0x00000008u, 0x0000033bu, 0x00000248u, 0x0000004bu, 0x000600a9u, 0x00000006u, 0x0000033eu,
    0x0000033bu, 0x0000024bu, 0x0000024eu, 0x000200f9u, 0x0000034cu, 0x000200f8u, 0x0000033fu, 0x000500b8u,
    0x00000008u, 0x00000342u, 0x00000248u, 0x0000023du, 0x000600a9u, 0x00000006u, 0x00000345u, 0x00000342u,
    0x0000023du, 0x00000248u, 0x000500bau, 0x00000008u, 0x00000348u, 0x00000345u, 0x00000242u, 0x000600a9u,
    0x00000006u, 0x0000034bu, 0x00000348u, 0x00000242u, 0x00000345u, 0x000200f9u, 0x0000034cu, 0x000200f8u,
    0x0000034cu, 0x003d00f5u, 0x00000006u, 0x000003dau, 0x000003dbu, 0x000002abu, 0x00000248u, 0x000002adu,
    0x000002b1u, 0x000002afu, 0x000002b4u, 0x000002b2u, 0x000002b7u, 0x000002b5u, 0x000003d7u, 0x00000363u,
    0x000002bdu, 0x000002bbu, 0x000002c0u, 0x000002beu, 0x000002c3u, 0x000002c1u, 0x000002ceu, 0x000002cbu,
    0x000002dau, 0x000002cfu, 0x000003d6u, 0x0000037fu, 0x000002e1u, 0x000002deu, 0x000003d5u, 0x000002f1u,
    0x000002f6u, 0x000002f3u, 0x000002fau, 0x000002f7u, 0x000002feu, 0x000002fbu, 0x00000302u, 0x000002ffu,
    0x000003d4u, 0x000003c0u, 0x00000310u, 0x00000307u, 0x0000031au, 0x00000311u, 0x0000031fu, 0x0000031bu,
    0x00000324u, 0x00000320u, 0x00000329u, 0x00000325u, 0x0000032eu, 0x0000032au, 0x00000333u, 0x0000032fu,
    0x00000338u, 0x00000334u, 0x0000033eu, 0x00000339u, 0x0000034bu, 0x0000033fu, 0x003d00f5u, 0x00000008u,
    0x000003d8u, 0x0000028cu, 0x000002abu, 0x0000028fu, 0x000002adu, 0x0000028fu, 0x000002afu, 0x0000028fu,
    0x000002b2u, 0x0000028fu, 0x000002b5u, 0x0000028fu, 0x00000363u, 0x0000028fu, 0x000002bbu, 0x0000028fu,
    0x000002beu, 0x0000028fu, 0x000002c1u, 0x0000028fu, 0x000002cbu, 0x0000028fu, 0x000002cfu, 0x0000028fu,
    0x0000037fu, 0x0000028fu, 0x000002deu, 0x0000028fu, 0x000002f1u, 0x0000028fu, 0x000002f3u, 0x0000028fu,
    0x000002f7u, 0x0000028fu, 0x000002fbu, 0x0000028fu, 0x000002ffu, 0x0000028fu, 0x000003c0u, 0x0000028fu,
    0x00000307u, 0x0000028fu, 0x00000311u, 0x0000028fu, 0x0000031bu, 0x0000028fu, 0x00000320u, 0x0000028fu,
    0x00000325u, 0x0000028fu, 0x0000032au, 0x0000028fu, 0x0000032fu, 0x0000028fu, 0x00000334u, 0x0000028fu,
    0x00000339u, 0x0000028fu, 0x0000033fu, 0x000300f7u, 0x0000034eu, 0x00000000u, 0x000400fau, 0x000003d8u,
    0x0000034fu, 0x0000034eu, 0x000200f8u, 0x0000034eu, 0x000200f9u, 0x0000034fu, 0x000200f8u, 0x0000034fu,
    0x000700f5u, 0x00000006u, 0x000003d9u, 0x000003dau, 0x0000034cu, 0x0000004bu, 0x0000034eu, 0x00050080u,
    0x00000019u, 0x00000253u, 0x000003d0u, 0x0000017bu, 0x00060041u, 0x00000170u, 0x00000254u, 0x0000016eu,
    0x00000166u, 0x00000253u, 0x0004003du, 0x00000019u, 0x00000255u, 0x00000254u, 0x00050041u, 0x00000007u,
    0x00000257u, 0x00000219u, 0x00000255u, 0x0003003eu, 0x00000257u, 0x000003d9u, 0x000200f9u, 0x00000227u,
    0x000200f8u, 0x00000227u, 0x00050080u, 0x00000019u, 0x00000259u, 0x000003ceu, 0x000001acu, 0x00050080u,
    0x00000019u, 0x0000025bu, 0x000003d0u, 0x000001bcu, 0x000200f9u, 0x00000224u, 0x000200f8u, 0x00000226u,
    0x00050041u, 0x00000167u, 0x00000260u, 0x00000164u, 0x000001acu, 0x0004003du, 0x00000019u, 0x00000261u,
    0x00000260u, 0x00050080u, 0x00000019u, 0x00000263u, 0x00000261u, 0x00000184u, 0x00060041u, 0x000001e2u,
    0x00000265u, 0x0000025fu, 0x00000166u, 0x00000263u, 0x0003003eu, 0x00000265u, 0x000003cfu, 0x000200f9u,
    0x0000028au, 0x000200f8u, 0x0000028au, 0x000100fdu, 0x00010038u,
};
#define UMAP_VK__BINDINGS_gather 3
#define UMAP_VK__PC_SIZE_gather 36
#define UMAP_VK__PC_MEMBERS_gather(X) \
    X(gather, mode, 0, 4, U32, ) \
    X(gather, row, 4, 4, U32, ) \
    X(gather, n_out_rows, 8, 4, U32, ) \
    X(gather, list_base, 12, 4, U32, ) \
    X(gather, x_base, 16, 4, U32, ) \
    X(gather, ix_base, 20, 4, U32, ) \
    X(gather, y_base, 24, 4, U32, ) \
    X(gather, n_idx, 28, 4, U32, ) \
    X(gather, n_x_rows, 32, 4, U32, )
static const uint32_t umap_vk__spv_gather[998] = {
    0x07230203u, 0x00010300u, 0x000d000bu, 0x000000f2u, 0x00000000u, 0x00020011u, 0x00000001u, 0x0006000bu,
    0x00000001u, 0x4c534c47u, 0x6474732eu, 0x3035342eu, 0x00000000u, 0x0003000eu, 0x00000000u, 0x00000001u,
    0x0007000fu, 0x00000005u, 0x00000004u, 0x6e69616du, 0x00000000u, 0x0000000bu, 0x00000013u, 0x00060010u,
    0x00000004u, 0x00000011u, 0x00000100u, 0x00000001u, 0x00000001u, 0x00040047u, 0x0000000bu, 0x0000000bu,
    0x0000001cu, 0x00040047u, 0x00000013u, 0x0000000bu, 0x00000018u, 0x00050048u, 0x0000001bu, 0x00000000u,
    0x00000023u, 0x00000000u, 0x00050048u, 0x0000001bu, 0x00000001u, 0x00000023u, 0x00000004u, 0x00050048u,
    0x0000001bu, 0x00000002u, 0x00000023u, 0x00000008u, 0x00050048u, 0x0000001bu, 0x00000003u, 0x00000023u,
    0x0000000cu, 0x00050048u, 0x0000001bu, 0x00000004u, 0x00000023u, 0x00000010u, 0x00050048u, 0x0000001bu,
    0x00000005u, 0x00000023u, 0x00000014u, 0x00050048u, 0x0000001bu, 0x00000006u, 0x00000023u, 0x00000018u,
    0x00050048u, 0x0000001bu, 0x00000007u, 0x00000023u, 0x0000001cu, 0x00050048u, 0x0000001bu, 0x00000008u,
    0x00000023u, 0x00000020u, 0x00030047u, 0x0000001bu, 0x00000002u, 0x00040047u, 0x0000003eu, 0x00000006u,
    0x00000004u, 0x00040048u, 0x0000003fu, 0x00000000u, 0x00000018u, 0x00050048u, 0x0000003fu, 0x00000000u,
    0x00000023u, 0x00000000u, 0x00030047u, 0x0000003fu, 0x00000002u, 0x00040047u, 0x00000041u, 0x00000022u,
    0x00000000u, 0x00040047u, 0x00000041u, 0x00000021u, 0x00000001u, 0x00040047u, 0x0000004bu, 0x00000006u,
    0x00000004u, 0x00040048u, 0x0000004cu, 0x00000000u, 0x00000019u, 0x00050048u, 0x0000004cu, 0x00000000u,
    0x00000023u, 0x00000000u, 0x00030047u, 0x0000004cu, 0x00000002u, 0x00040047u, 0x0000004eu, 0x00000022u,
    0x00000000u, 0x00040047u, 0x0000004eu, 0x00000021u, 0x00000002u, 0x00040047u, 0x00000063u, 0x00000006u,
    0x00000004u, 0x00040048u, 0x00000064u, 0x00000000u, 0x00000018u, 0x00050048u, 0x00000064u, 0x00000000u,
    0x00000023u, 0x00000000u, 0x00030047u, 0x00000064u, 0x00000002u, 0x00040047u, 0x00000066u, 0x00000022u,
    0x00000000u, 0x00040047u, 0x00000066u, 0x00000021u, 0x00000000u, 0x00040047u, 0x000000e4u, 0x0000000bu,
    0x00000019u, 0x00020013u, 0x00000002u, 0x00030021u, 0x00000003u, 0x00000002u, 0x00040015u, 0x00000006u,
    0x00000020u, 0x00000000u, 0x00040017u, 0x00000009u, 0x00000006u, 0x00000003u, 0x00040020u, 0x0000000au,
    0x00000001u, 0x00000009u, 0x0004003bu, 0x0000000au, 0x0000000bu, 0x00000001u, 0x0004002bu, 0x00000006u,
    0x0000000cu, 0x00000000u, 0x00040020u, 0x0000000du, 0x00000001u, 0x00000006u, 0x0004002bu, 0x00000006u,
    0x00000010u, 0x00000001u, 0x0004003bu, 0x0000000au, 0x00000013u, 0x00000001u, 0x0004002bu, 0x00000006u,
    0x00000017u, 0x00000100u, 0x000b001eu, 0x0000001bu, 0x00000006u, 0x00000006u, 0x00000006u, 0x00000006u,
    0x00000006u, 0x00000006u, 0x00000006u, 0x00000006u, 0x00000006u, 0x00040020u, 0x0000001cu, 0x00000009u,
    0x0000001bu, 0x0004003bu, 0x0000001cu, 0x0000001du, 0x00000009u, 0x00040015u, 0x0000001eu, 0x00000020u,
    0x00000001u, 0x0004002bu, 0x0000001eu, 0x0000001fu, 0x00000002u, 0x00040020u, 0x00000020u, 0x00000009u,
    0x00000006u, 0x0004002bu, 0x0000001eu, 0x00000023u, 0x00000001u, 0x00020014u, 0x00000027u, 0x0004002bu,
    0x0000001eu, 0x00000036u, 0x00000000u, 0x0003001du, 0x0000003eu, 0x0000001eu, 0x0003001eu, 0x0000003fu,
    0x0000003eu, 0x00040020u, 0x00000040u, 0x0000000cu, 0x0000003fu, 0x0004003bu, 0x00000040u, 0x00000041u,
    0x0000000cu, 0x0004002bu, 0x0000001eu, 0x00000042u, 0x00000005u, 0x00040020u, 0x00000047u, 0x0000000cu,
    0x0000001eu, 0x00030016u, 0x0000004au, 0x00000020u, 0x0003001du, 0x0000004bu, 0x0000004au, 0x0003001eu,
    0x0000004cu, 0x0000004bu, 0x00040020u, 0x0000004du, 0x0000000cu, 0x0000004cu, 0x0004003bu, 0x0000004du,
    0x0000004eu, 0x0000000cu, 0x0004002bu, 0x0000001eu, 0x0000004fu, 0x00000006u, 0x0004002bu, 0x0000001eu,
    0x0000005au, 0x00000008u, 0x0003001du, 0x00000063u, 0x0000004au, 0x0003001eu, 0x00000064u, 0x00000063u,
    0x00040020u, 0x00000065u, 0x0000000cu, 0x00000064u, 0x0004003bu, 0x00000065u, 0x00000066u, 0x0000000cu,
    0x0004002bu, 0x0000001eu, 0x00000067u, 0x00000004u, 0x00040020u, 0x00000072u, 0x0000000cu, 0x0000004au,
    0x0004002bu, 0x0000004au, 0x00000076u, 0x00000000u, 0x0004002bu, 0x0000001eu, 0x0000009du, 0x00000003u,
    0x0004002bu, 0x0000001eu, 0x000000c0u, 0x00000007u, 0x0006002cu, 0x00000009u, 0x000000e4u, 0x00000017u,
    0x00000010u, 0x00000010u, 0x00050036u, 0x00000002u, 0x00000004u, 0x00000000u, 0x00000003u, 0x000200f8u,
    0x00000005u, 0x000300f7u, 0x000000e5u, 0x00000000u, 0x000300fbu, 0x0000000cu, 0x000000e6u, 0x000200f8u,
    0x000000e6u, 0x00050041u, 0x0000000du, 0x0000000eu, 0x0000000bu, 0x0000000cu, 0x0004003du, 0x00000006u,
    0x0000000fu, 0x0000000eu, 0x00050041u, 0x0000000du, 0x00000011u, 0x0000000bu, 0x00000010u, 0x0004003du,
    0x00000006u, 0x00000012u, 0x00000011u, 0x00050041u, 0x0000000du, 0x00000014u, 0x00000013u, 0x0000000cu,
    0x0004003du, 0x00000006u, 0x00000015u, 0x00000014u, 0x00050084u, 0x00000006u, 0x00000016u, 0x00000012u,
    0x00000015u, 0x00050084u, 0x00000006u, 0x00000018u, 0x00000016u, 0x00000017u, 0x00050080u, 0x00000006u,
    0x00000019u, 0x0000000fu, 0x00000018u, 0x00050041u, 0x00000020u, 0x00000021u, 0x0000001du, 0x0000001fu,
    0x0004003du, 0x00000006u, 0x00000022u, 0x00000021u, 0x00050041u, 0x00000020u, 0x00000024u, 0x0000001du,
    0x00000023u, 0x0004003du, 0x00000006u, 0x00000025u, 0x00000024u, 0x00050084u, 0x00000006u, 0x00000026u,
    0x00000022u, 0x00000025u, 0x000500aeu, 0x00000027u, 0x00000028u, 0x00000019u, 0x00000026u, 0x000300f7u,
    0x0000002au, 0x00000000u, 0x000400fau, 0x00000028u, 0x00000029u, 0x0000002au, 0x000200f8u, 0x00000029u,
    0x000200f9u, 0x000000e5u, 0x000200f8u, 0x0000002au, 0x00050086u, 0x00000006u, 0x00000030u, 0x00000019u,
    0x00000025u, 0x00050089u, 0x00000006u, 0x00000035u, 0x00000019u, 0x00000025u, 0x00050041u, 0x00000020u,
    0x00000037u, 0x0000001du, 0x00000036u, 0x0004003du, 0x00000006u, 0x00000038u, 0x00000037u, 0x000500aau,
    0x00000027u, 0x00000039u, 0x00000038u, 0x0000000cu, 0x000300f7u, 0x0000003bu, 0x00000000u, 0x000400fau,
    0x00000039u, 0x0000003au, 0x00000079u, 0x000200f8u, 0x0000003au, 0x00050041u, 0x00000020u, 0x00000043u,
    0x0000001du, 0x00000042u, 0x0004003du, 0x00000006u, 0x00000044u, 0x00000043u, 0x00050080u, 0x00000006u,
    0x00000046u, 0x00000044u, 0x00000030u, 0x00060041u, 0x00000047u, 0x00000048u, 0x00000041u, 0x00000036u,
    0x00000046u, 0x0004003du, 0x0000001eu, 0x00000049u, 0x00000048u, 0x00050041u, 0x00000020u, 0x00000050u,
    0x0000001du, 0x0000004fu, 0x0004003du, 0x00000006u, 0x00000051u, 0x00000050u, 0x00050080u, 0x00000006u,
    0x00000053u, 0x00000051u, 0x00000019u, 0x000500afu, 0x00000027u, 0x00000055u, 0x00000049u, 0x00000036u,
    0x000300f7u, 0x00000057u, 0x00000000u, 0x000400fau, 0x00000055u, 0x00000056u, 0x00000057u, 0x000200f8u,
    0x00000056u, 0x0004007cu, 0x00000006u, 0x00000059u, 0x00000049u, 0x00050041u, 0x00000020u, 0x0000005bu,
    0x0000001du, 0x0000005au, 0x0004003du, 0x00000006u, 0x0000005cu, 0x0000005bu, 0x000500b0u, 0x00000027u,
    0x0000005du, 0x00000059u, 0x0000005cu, 0x000200f9u, 0x00000057u, 0x000200f8u, 0x00000057u, 0x000700f5u,
    0x00000027u, 0x0000005eu, 0x00000055u, 0x0000003au, 0x0000005du, 0x00000056u, 0x000300f7u, 0x00000062u,
    0x00000000u, 0x000400fau, 0x0000005eu, 0x00000061u, 0x00000075u, 0x000200f8u, 0x00000061u, 0x00050041u,
    0x00000020u, 0x00000068u, 0x0000001du, 0x00000067u, 0x0004003du, 0x00000006u, 0x00000069u, 0x00000068u,
    0x0004007cu, 0x00000006u, 0x0000006bu, 0x00000049u, 0x00050084u, 0x00000006u, 0x0000006eu, 0x0000006bu,
    0x00000025u, 0x00050080u, 0x00000006u, 0x0000006fu, 0x00000069u, 0x0000006eu, 0x00050080u, 0x00000006u,
    0x00000071u, 0x0000006fu, 0x00000035u, 0x00060041u, 0x00000072u, 0x00000073u, 0x00000066u, 0x00000036u,
    0x00000071u, 0x0004003du, 0x0000004au, 0x00000074u, 0x00000073u, 0x000200f9u, 0x00000062u, 0x000200f8u,
    0x00000075u, 0x000200f9u, 0x00000062u, 0x000200f8u, 0x00000062u, 0x000700f5u, 0x0000004au, 0x000000f0u,
    0x00000074u, 0x00000061u, 0x00000076u, 0x00000075u, 0x00060041u, 0x00000072u, 0x00000078u, 0x0000004eu,
    0x00000036u, 0x00000053u, 0x0003003eu, 0x00000078u, 0x000000f0u, 0x000200f9u, 0x0000003bu, 0x000200f8u,
    0x00000079u, 0x000500aau, 0x00000027u, 0x0000007cu, 0x00000038u, 0x00000010u, 0x000300f7u, 0x0000007eu,
    0x00000000u, 0x000400fau, 0x0000007cu, 0x0000007du, 0x000000b7u, 0x000200f8u, 0x0000007du, 0x00050041u,
    0x00000020u, 0x00000081u, 0x0000001du, 0x00000042u, 0x0004003du, 0x00000006u, 0x00000082u, 0x00000081u,
    0x00050080u, 0x00000006u, 0x00000084u, 0x00000082u, 0x00000030u, 0x00060041u, 0x00000047u, 0x00000085u,
    0x00000041u, 0x00000036u, 0x00000084u, 0x0004003du, 0x0000001eu, 0x00000086u, 0x00000085u, 0x0004007cu,
    0x00000006u, 0x00000087u, 0x00000086u, 0x00050080u, 0x00000006u, 0x0000008du, 0x00000084u, 0x00000010u,
    0x00060041u, 0x00000047u, 0x0000008eu, 0x00000041u, 0x00000036u, 0x0000008du, 0x0004003du, 0x0000001eu,
    0x0000008fu, 0x0000008eu, 0x0004007cu, 0x00000006u, 0x00000090u, 0x0000008fu, 0x000200f9u, 0x00000093u,
    0x000200f8u, 0x00000093u, 0x000700f5u, 0x0000004au, 0x000000efu, 0x00000076u, 0x0000007du, 0x000000aeu,
    0x00000094u, 0x000700f5u, 0x00000006u, 0x000000eeu, 0x00000087u, 0x0000007du, 0x000000b0u, 0x00000094u,
    0x000500b0u, 0x00000027u, 0x0000009au, 0x000000eeu, 0x00000090u, 0x000400f6u, 0x00000095u, 0x00000094u,
    0x00000000u, 0x000400fau, 0x0000009au, 0x00000094u, 0x00000095u, 0x000200f8u, 0x00000094u, 0x00050041u,
    0x00000020u, 0x0000009bu, 0x0000001du, 0x00000067u, 0x0004003du, 0x00000006u, 0x0000009cu, 0x0000009bu,
    0x00050041u, 0x00000020u, 0x0000009eu, 0x0000001du, 0x0000009du, 0x0004003du, 0x00000006u, 0x0000009fu,
    0x0000009eu, 0x00050080u, 0x00000006u, 0x000000a1u, 0x0000009fu, 0x000000eeu, 0x00060041u, 0x00000047u,
    0x000000a2u, 0x00000041u, 0x00000036u, 0x000000a1u, 0x0004003du, 0x0000001eu, 0x000000a3u, 0x000000a2u,
    0x0004007cu, 0x00000006u, 0x000000a4u, 0x000000a3u, 0x00050084u, 0x00000006u, 0x000000a7u, 0x000000a4u,
    0x00000025u, 0x00050080u, 0x00000006u, 0x000000a8u, 0x0000009cu, 0x000000a7u, 0x00050080u, 0x00000006u,
    0x000000aau, 0x000000a8u, 0x00000035u, 0x00060041u, 0x00000072u, 0x000000abu, 0x00000066u, 0x00000036u,
    0x000000aau, 0x0004003du, 0x0000004au, 0x000000acu, 0x000000abu, 0x00050081u, 0x0000004au, 0x000000aeu,
    0x000000efu, 0x000000acu, 0x00050080u, 0x00000006u, 0x000000b0u, 0x000000eeu, 0x00000023u, 0x000200f9u,
    0x00000093u, 0x000200f8u, 0x00000095u, 0x00050041u, 0x00000020u, 0x000000b1u, 0x0000001du, 0x0000004fu,
    0x0004003du, 0x00000006u, 0x000000b2u, 0x000000b1u, 0x00050080u, 0x00000006u, 0x000000b4u, 0x000000b2u,
    0x00000019u, 0x00060041u, 0x00000072u, 0x000000b6u, 0x0000004eu, 0x00000036u, 0x000000b4u, 0x0003003eu,
    0x000000b6u, 0x000000efu, 0x000200f9u, 0x0000007eu, 0x000200f8u, 0x000000b7u, 0x000200f9u, 0x000000bau,
    0x000200f8u, 0x000000bau, 0x000700f5u, 0x0000004au, 0x000000ecu, 0x00000076u, 0x000000b7u, 0x000000f1u,
    0x000000bdu, 0x000700f5u, 0x00000006u, 0x000000ebu, 0x0000000cu, 0x000000b7u, 0x000000ddu, 0x000000bdu,
    0x00050041u, 0x00000020u, 0x000000c1u, 0x0000001du, 0x000000c0u, 0x0004003du, 0x00000006u, 0x000000c2u,
    0x000000c1u, 0x000500b0u, 0x00000027u, 0x000000c3u, 0x000000ebu, 0x000000c2u, 0x000400f6u, 0x000000bcu,
    0x000000bdu, 0x00000000u, 0x000400fau, 0x000000c3u, 0x000000bbu, 0x000000bcu, 0x000200f8u, 0x000000bbu,
    0x00050041u, 0x00000020u, 0x000000c4u, 0x0000001du, 0x00000042u, 0x0004003du, 0x00000006u, 0x000000c5u,
    0x000000c4u, 0x00050080u, 0x00000006u, 0x000000c7u, 0x000000c5u, 0x000000ebu, 0x00060041u, 0x00000047u,
    0x000000c8u, 0x00000041u, 0x00000036u, 0x000000c7u, 0x0004003du, 0x0000001eu, 0x000000c9u, 0x000000c8u,
    0x0004007cu, 0x0000001eu, 0x000000cbu, 0x00000030u, 0x000500aau, 0x00000027u, 0x000000ccu, 0x000000c9u,
    0x000000cbu, 0x000300f7u, 0x000000ceu, 0x00000000u, 0x000400fau, 0x000000ccu, 0x000000cdu, 0x000000ceu,
    0x000200f8u, 0x000000cdu, 0x00050041u, 0x00000020u, 0x000000cfu, 0x0000001du, 0x00000067u, 0x0004003du,
    0x00000006u, 0x000000d0u, 0x000000cfu, 0x00050084u, 0x00000006u, 0x000000d4u, 0x000000ebu, 0x00000025u,
    0x00050080u, 0x00000006u, 0x000000d5u, 0x000000d0u, 0x000000d4u, 0x00050080u, 0x00000006u, 0x000000d7u,
    0x000000d5u, 0x00000035u, 0x00060041u, 0x00000072u, 0x000000d8u, 0x00000066u, 0x00000036u, 0x000000d7u,
    0x0004003du, 0x0000004au, 0x000000d9u, 0x000000d8u, 0x00050081u, 0x0000004au, 0x000000dbu, 0x000000ecu,
    0x000000d9u, 0x000200f9u, 0x000000ceu, 0x000200f8u, 0x000000ceu, 0x000700f5u, 0x0000004au, 0x000000f1u,
    0x000000ecu, 0x000000bbu, 0x000000dbu, 0x000000cdu, 0x000200f9u, 0x000000bdu, 0x000200f8u, 0x000000bdu,
    0x00050080u, 0x00000006u, 0x000000ddu, 0x000000ebu, 0x00000023u, 0x000200f9u, 0x000000bau, 0x000200f8u,
    0x000000bcu, 0x00050041u, 0x00000020u, 0x000000deu, 0x0000001du, 0x0000004fu, 0x0004003du, 0x00000006u,
    0x000000dfu, 0x000000deu, 0x00050080u, 0x00000006u, 0x000000e1u, 0x000000dfu, 0x00000019u, 0x00060041u,
    0x00000072u, 0x000000e3u, 0x0000004eu, 0x00000036u, 0x000000e1u, 0x0003003eu, 0x000000e3u, 0x000000ecu,
    0x000200f9u, 0x0000007eu, 0x000200f8u, 0x0000007eu, 0x000200f9u, 0x0000003bu, 0x000200f8u, 0x0000003bu,
    0x000200f9u, 0x000000e5u, 0x000200f8u, 0x000000e5u, 0x000100fdu, 0x00010038u,
};
#define UMAP_VK__BINDINGS_knn_tile 4
#define UMAP_VK__PC_SIZE_knn_tile 36
#define UMAP_VK__PC_MEMBERS_knn_tile(X) \
    X(knn_tile, q_rows, 0, 4, I32, ) \
    X(knn_tile, x_rows, 4, 4, I32, ) \
    X(knn_tile, dim, 8, 4, I32, ) \
    X(knn_tile, q_first, 12, 4, I32, ) \
    X(knn_tile, x_first, 16, 4, I32, ) \
    X(knn_tile, self_skip, 20, 4, I32, ) \
    X(knn_tile, x_skip, 24, 4, I32, ) \
    X(knn_tile, n_lists, 28, 4, I32, ) \
    X(knn_tile, slice_rows, 32, 4, I32, )
static const uint32_t umap_vk__spv_knn_tile[2892] = {
    0x07230203u, 0x00010300u, 0x000d000bu, 0x000003cau, 0x00000000u, 0x00020011u, 0x00000001u, 0x0006000bu,
    0x00000001u, 0x4c534c47u, 0x6474732eu, 0x3035342eu, 0x00000000u, 0x0003000eu, 0x00000000u, 0x00000001u,
    0x0007000fu, 0x00000005u, 0x00000004u, 0x6e69616du, 0x00000000u, 0x0000000cu, 0x0000001eu, 0x00060010u,
    0x00000004u, 0x00000011u, 0x00000010u, 0x00000010u, 0x00000001u, 0x00040047u, 0x0000000cu, 0x0000000bu,
    0x0000001bu, 0x00040047u, 0x0000001eu, 0x0000000bu, 0x0000001au, 0x00050048u, 0x0000002au, 0x00000000u,
    0x00000023u, 0x00000000u, 0x00050048u, 0x0000002au, 0x00000001u, 0x00000023u, 0x00000004u, 0x00050048u,
    0x0000002au, 0x00000002u, 0x00000023u, 0x00000008u, 0x00050048u, 0x0000002au, 0x00000003u, 0x00000023u,
    0x0000000cu, 0x00050048u, 0x0000002au, 0x00000004u, 0x00000023u, 0x00000010u, 0x00050048u, 0x0000002au,
    0x00000005u, 0x00000023u, 0x00000014u, 0x00050048u, 0x0000002au, 0x00000006u, 0x00000023u, 0x00000018u,
    0x00050048u, 0x0000002au, 0x00000007u, 0x00000023u, 0x0000001cu, 0x00050048u, 0x0000002au, 0x00000008u,
    0x00000023u, 0x00000020u, 0x00030047u, 0x0000002au, 0x00000002u, 0x00040047u, 0x00000054u, 0x00000001u,
    0x00000000u, 0x00040047u, 0x00000065u, 0x00000006u, 0x00000004u, 0x00050048u, 0x00000066u, 0x00000000u,
    0x00000023u, 0x00000000u, 0x00030047u, 0x00000066u, 0x00000002u, 0x00040047u, 0x00000068u, 0x00000022u,
    0x00000000u, 0x00040047u, 0x00000068u, 0x00000021u, 0x00000002u, 0x00040047u, 0x00000079u, 0x00000006u,
    0x00000004u, 0x00050048u, 0x0000007au, 0x00000000u, 0x00000023u, 0x00000000u, 0x00030047u, 0x0000007au,
    0x00000002u, 0x00040047u, 0x0000007cu, 0x00000022u, 0x00000000u, 0x00040047u, 0x0000007cu, 0x00000021u,
    0x00000003u, 0x00040047u, 0x000000e8u, 0x00000006u, 0x00000004u, 0x00040048u, 0x000000e9u, 0x00000000u,
    0x00000018u, 0x00050048u, 0x000000e9u, 0x00000000u, 0x00000023u, 0x00000000u, 0x00030047u, 0x000000e9u,
    0x00000002u, 0x00040047u, 0x000000ebu, 0x00000022u, 0x00000000u, 0x00040047u, 0x000000ebu, 0x00000021u,
    0x00000000u, 0x00040047u, 0x0000010au, 0x00000006u, 0x00000004u, 0x00040048u, 0x0000010bu, 0x00000000u,
    0x00000018u, 0x00050048u, 0x0000010bu, 0x00000000u, 0x00000023u, 0x00000000u, 0x00030047u, 0x0000010bu,
    0x00000002u, 0x00040047u, 0x0000010du, 0x00000022u, 0x00000000u, 0x00040047u, 0x0000010du, 0x00000021u,
    0x00000001u, 0x00040047u, 0x00000330u, 0x0000000bu, 0x00000019u, 0x00020013u, 0x00000002u, 0x00030021u,
    0x00000003u, 0x00000002u, 0x00040015u, 0x00000006u, 0x00000020u, 0x00000001u, 0x00040015u, 0x00000009u,
    0x00000020u, 0x00000000u, 0x00040017u, 0x0000000au, 0x00000009u, 0x00000003u, 0x00040020u, 0x0000000bu,
    0x00000001u, 0x0000000au, 0x0004003bu, 0x0000000bu, 0x0000000cu, 0x00000001u, 0x0004002bu, 0x00000009u,
    0x0000000du, 0x00000000u, 0x00040020u, 0x0000000eu, 0x00000001u, 0x00000009u, 0x0004002bu, 0x00000009u,
    0x00000013u, 0x00000001u, 0x0004002bu, 0x00000006u, 0x00000019u, 0x00000010u, 0x0004003bu, 0x0000000bu,
    0x0000001eu, 0x00000001u, 0x0004002bu, 0x00000006u, 0x00000022u, 0x00000040u, 0x000b001eu, 0x0000002au,
    0x00000006u, 0x00000006u, 0x00000006u, 0x00000006u, 0x00000006u, 0x00000006u, 0x00000006u, 0x00000006u,
    0x00000006u, 0x00040020u, 0x0000002bu, 0x00000009u, 0x0000002au, 0x0004003bu, 0x0000002bu, 0x0000002cu,
    0x00000009u, 0x0004002bu, 0x00000006u, 0x0000002du, 0x00000008u, 0x00040020u, 0x0000002eu, 0x00000009u,
    0x00000006u, 0x0004002bu, 0x00000006u, 0x00000033u, 0x00000001u, 0x00020014u, 0x0000003bu, 0x0004002bu,
    0x00000006u, 0x00000045u, 0x00000000u, 0x0004002bu, 0x00000006u, 0x0000004eu, 0x00000007u, 0x00040032u,
    0x00000006u, 0x00000054u, 0x00000020u, 0x0004002bu, 0x00000006u, 0x00000057u, 0x00000003u, 0x00030016u,
    0x0000005eu, 0x00000020u, 0x00040020u, 0x0000005fu, 0x00000007u, 0x0000005eu, 0x0003001du, 0x00000065u,
    0x0000005eu, 0x0003001eu, 0x00000066u, 0x00000065u, 0x00040020u, 0x00000067u, 0x0000000cu, 0x00000066u,
    0x0004003bu, 0x00000067u, 0x00000068u, 0x0000000cu, 0x00040020u, 0x0000006cu, 0x0000000cu, 0x0000005eu,
    0x0003001du, 0x00000079u, 0x00000006u, 0x0003001eu, 0x0000007au, 0x00000079u, 0x00040020u, 0x0000007bu,
    0x0000000cu, 0x0000007au, 0x0004003bu, 0x0000007bu, 0x0000007cu, 0x0000000cu, 0x00040020u, 0x00000080u,
    0x0000000cu, 0x00000006u, 0x0004002bu, 0x00000009u, 0x00000089u, 0x00000040u, 0x0004001cu, 0x0000008au,
    0x0000005eu, 0x00000089u, 0x00040020u, 0x0000008bu, 0x00000004u, 0x0000008au, 0x0004003bu, 0x0000008bu,
    0x0000008cu, 0x00000004u, 0x00040020u, 0x0000008fu, 0x00000004u, 0x0000005eu, 0x0004001cu, 0x00000091u,
    0x00000006u, 0x00000089u, 0x00040020u, 0x00000092u, 0x00000004u, 0x00000091u, 0x0004003bu, 0x00000092u,
    0x00000093u, 0x00000004u, 0x00040020u, 0x00000096u, 0x00000004u, 0x00000006u, 0x0004002bu, 0x00000009u,
    0x00000098u, 0x00000002u, 0x0004001cu, 0x00000099u, 0x00000009u, 0x00000098u, 0x0004001cu, 0x0000009au,
    0x00000099u, 0x00000089u, 0x00040020u, 0x0000009bu, 0x00000004u, 0x0000009au, 0x0004003bu, 0x0000009bu,
    0x0000009cu, 0x00000004u, 0x00040020u, 0x0000009eu, 0x00000004u, 0x00000009u, 0x0004002bu, 0x00000006u,
    0x000000a3u, 0x00000002u, 0x0004002bu, 0x00000006u, 0x000000a6u, 0x0000000fu, 0x0004002bu, 0x00000006u,
    0x000000adu, 0x0000003fu, 0x0004002bu, 0x00000006u, 0x000000bau, 0x00000004u, 0x0004002bu, 0x00000006u,
    0x000000beu, 0x00000100u, 0x0004002bu, 0x00000009u, 0x000000d0u, 0x00000004u, 0x0004001cu, 0x000000d1u,
    0x0000005eu, 0x000000d0u, 0x00040020u, 0x000000d2u, 0x00000007u, 0x000000d1u, 0x0003001du, 0x000000e8u,
    0x0000005eu, 0x0003001eu, 0x000000e9u, 0x000000e8u, 0x00040020u, 0x000000eau, 0x0000000cu, 0x000000e9u,
    0x0004003bu, 0x000000eau, 0x000000ebu, 0x0000000cu, 0x0004002bu, 0x0000005eu, 0x000000f5u, 0x00000000u,
    0x0003001du, 0x0000010au, 0x0000005eu, 0x0003001eu, 0x0000010bu, 0x0000010au, 0x00040020u, 0x0000010cu,
    0x0000000cu, 0x0000010bu, 0x0004003bu, 0x0000010cu, 0x0000010du, 0x0000000cu, 0x0004002bu, 0x00000006u,
    0x0000010eu, 0x00000006u, 0x0004001cu, 0x00000147u, 0x000000d1u, 0x000000d0u, 0x00040020u, 0x00000148u,
    0x00000007u, 0x00000147u, 0x0004002bu, 0x00000009u, 0x00000151u, 0x00000108u, 0x00040017u, 0x00000165u,
    0x0000005eu, 0x00000004u, 0x0004002bu, 0x00000009u, 0x00000166u, 0x00000011u, 0x0004001cu, 0x00000167u,
    0x00000165u, 0x00000166u, 0x0004002bu, 0x00000009u, 0x00000168u, 0x00000010u, 0x0004001cu, 0x00000169u,
    0x00000167u, 0x00000168u, 0x00040020u, 0x0000016au, 0x00000004u, 0x00000169u, 0x0004003bu, 0x0000016au,
    0x0000016bu, 0x00000004u, 0x0004003bu, 0x0000016au, 0x00000175u, 0x00000004u, 0x00040020u, 0x000001f4u,
    0x00000007u, 0x00000165u, 0x00040020u, 0x000001f8u, 0x00000004u, 0x00000165u, 0x0004002bu, 0x00000009u,
    0x00000259u, 0x00000041u, 0x0004001cu, 0x0000025au, 0x0000005eu, 0x00000259u, 0x0004001cu, 0x0000025bu,
    0x0000025au, 0x00000089u, 0x00040020u, 0x0000025cu, 0x00000004u, 0x0000025bu, 0x0004003bu, 0x0000025cu,
    0x0000025du, 0x00000004u, 0x0004002bu, 0x00000006u, 0x00000282u, 0x00000005u, 0x0004002bu, 0x00000006u,
    0x00000286u, 0x0000001fu, 0x0004002bu, 0x00000006u, 0x000002a9u, 0x00000020u, 0x00060034u, 0x00000006u,
    0x000002dau, 0x00000082u, 0x00000054u, 0x00000033u, 0x0006002cu, 0x0000000au, 0x00000330u, 0x00000168u,
    0x00000168u, 0x00000013u, 0x0004002bu, 0x0000005eu, 0x000003c9u, 0xff800000u, 0x00050036u, 0x00000002u,
    0x00000004u, 0x00000000u, 0x00000003u, 0x000200f8u, 0x00000005u, 0x0004003bu, 0x000000d2u, 0x000000d3u,
    0x00000007u, 0x0004003bu, 0x000000d2u, 0x000000f8u, 0x00000007u, 0x0004003bu, 0x00000148u, 0x00000149u,
    0x00000007u, 0x0004003bu, 0x000001f4u, 0x000001f5u, 0x00000007u, 0x0004003bu, 0x000001f4u, 0x000001fbu,
    0x00000007u, 0x00050041u, 0x0000000eu, 0x0000000fu, 0x0000000cu, 0x0000000du, 0x0004003du, 0x00000009u,
    0x00000010u, 0x0000000fu, 0x0004007cu, 0x00000006u, 0x00000011u, 0x00000010u, 0x00050041u, 0x0000000eu,
    0x00000014u, 0x0000000cu, 0x00000013u, 0x0004003du, 0x00000009u, 0x00000015u, 0x00000014u, 0x0004007cu,
    0x00000006u, 0x00000016u, 0x00000015u, 0x00050084u, 0x00000006u, 0x0000001au, 0x00000016u, 0x00000019u,
    0x00050080u, 0x00000006u, 0x0000001cu, 0x0000001au, 0x00000011u, 0x00050041u, 0x0000000eu, 0x0000001fu,
    0x0000001eu, 0x0000000du, 0x0004003du, 0x00000009u, 0x00000020u, 0x0000001fu, 0x0004007cu, 0x00000006u,
    0x00000021u, 0x00000020u, 0x00050084u, 0x00000006u, 0x00000023u, 0x00000021u, 0x00000022u, 0x00050041u,
    0x0000000eu, 0x00000025u, 0x0000001eu, 0x00000013u, 0x0004003du, 0x00000009u, 0x00000026u, 0x00000025u,
    0x0004007cu, 0x00000006u, 0x00000027u, 0x00000026u, 0x00050041u, 0x0000002eu, 0x0000002fu, 0x0000002cu,
    0x0000002du, 0x0004003du, 0x00000006u, 0x00000030u, 0x0000002fu, 0x00050084u, 0x00000006u, 0x00000031u,
    0x00000027u, 0x00000030u, 0x00050041u, 0x0000002eu, 0x00000034u, 0x0000002cu, 0x00000033u, 0x0004003du,
    0x00000006u, 0x00000035u, 0x00000034u, 0x00050080u, 0x00000006u, 0x00000039u, 0x00000031u, 0x00000030u,
    0x0007000cu, 0x00000006u, 0x0000003au, 0x00000001u, 0x00000027u, 0x00000035u, 0x00000039u, 0x000500b1u,
    0x0000003bu, 0x0000003fu, 0x0000001cu, 0x00000022u, 0x000300f7u, 0x00000041u, 0x00000000u, 0x000400fau,
    0x0000003fu, 0x00000040u, 0x00000041u, 0x000200f8u, 0x00000040u, 0x00050080u, 0x00000006u, 0x00000044u,
    0x00000023u, 0x0000001cu, 0x00050041u, 0x0000002eu, 0x00000046u, 0x0000002cu, 0x00000045u, 0x0004003du,
    0x00000006u, 0x00000047u, 0x00000046u, 0x000500b1u, 0x0000003bu, 0x00000048u, 0x00000044u, 0x00000047u,
    0x000200f9u, 0x00000041u, 0x000200f8u, 0x00000041u, 0x000700f5u, 0x0000003bu, 0x00000049u, 0x0000003fu,
    0x00000005u, 0x00000048u, 0x00000040u, 0x00050080u, 0x00000006u, 0x0000004du, 0x00000023u, 0x0000001cu,
    0x00050041u, 0x0000002eu, 0x0000004fu, 0x0000002cu, 0x0000004eu, 0x0004003du, 0x00000006u, 0x00000050u,
    0x0000004fu, 0x00050084u, 0x00000006u, 0x00000051u, 0x0000004du, 0x00000050u, 0x00050080u, 0x00000006u,
    0x00000053u, 0x00000051u, 0x00000027u, 0x00050084u, 0x00000006u, 0x00000055u, 0x00000053u, 0x00000054u,
    0x00050041u, 0x0000002eu, 0x00000058u, 0x0000002cu, 0x00000057u, 0x0004003du, 0x00000006u, 0x00000059u,
    0x00000058u, 0x00050080u, 0x00000006u, 0x0000005bu, 0x00000059u, 0x00000023u, 0x00050080u, 0x00000006u,
    0x0000005du, 0x0000005bu, 0x0000001cu, 0x000300f7u, 0x00000064u, 0x00000000u, 0x000400fau, 0x00000049u,
    0x00000063u, 0x0000006fu, 0x000200f8u, 0x00000063u, 0x00050080u, 0x00000006u, 0x0000006au, 0x00000055u,
    0x00000054u, 0x00050082u, 0x00000006u, 0x0000006bu, 0x0000006au, 0x00000033u, 0x00060041u, 0x0000006cu,
    0x0000006du, 0x00000068u, 0x00000045u, 0x0000006bu, 0x0004003du, 0x0000005eu, 0x0000006eu, 0x0000006du,
    0x000200f9u, 0x00000064u, 0x000200f8u, 0x0000006fu, 0x000200f9u, 0x00000064u, 0x000200f8u, 0x00000064u,
    0x000700f5u, 0x0000005eu, 0x00000331u, 0x0000006eu, 0x00000063u, 0x000003c9u, 0x0000006fu, 0x000300f7u,
    0x00000078u, 0x00000000u, 0x000400fau, 0x00000049u, 0x00000077u, 0x00000083u, 0x000200f8u, 0x00000077u,
    0x00050080u, 0x00000006u, 0x0000007eu, 0x00000055u, 0x00000054u, 0x00050082u, 0x00000006u, 0x0000007fu,
    0x0000007eu, 0x00000033u, 0x00060041u, 0x00000080u, 0x00000081u, 0x0000007cu, 0x00000045u, 0x0000007fu,
    0x0004003du, 0x00000006u, 0x00000082u, 0x00000081u, 0x000200f9u, 0x00000078u, 0x000200f8u, 0x00000083u,
    0x000200f9u, 0x00000078u, 0x000200f8u, 0x00000078u, 0x000700f5u, 0x00000006u, 0x00000332u, 0x00000082u,
    0x00000077u, 0x00000045u, 0x00000083u, 0x000300f7u, 0x00000088u, 0x00000000u, 0x000400fau, 0x0000003fu,
    0x00000087u, 0x00000088u, 0x000200f8u, 0x00000087u, 0x00050041u, 0x0000008fu, 0x00000090u, 0x0000008cu,
    0x0000001cu, 0x0003003eu, 0x00000090u, 0x00000331u, 0x00050041u, 0x00000096u, 0x00000097u, 0x00000093u,
    0x0000001cu, 0x0003003eu, 0x00000097u, 0x00000332u, 0x00060041u, 0x0000009eu, 0x0000009fu, 0x0000009cu,
    0x0000001cu, 0x00000045u, 0x0003003eu, 0x0000009fu, 0x0000000du, 0x00060041u, 0x0000009eu, 0x000000a1u,
    0x0000009cu, 0x0000001cu, 0x00000033u, 0x0003003eu, 0x000000a1u, 0x0000000du, 0x000200f9u, 0x00000088u,
    0x000200f8u, 0x00000088u, 0x00050041u, 0x0000002eu, 0x000000a4u, 0x0000002cu, 0x000000a3u, 0x0004003du,
    0x00000006u, 0x000000a5u, 0x000000a4u, 0x00050080u, 0x00000006u, 0x000000a7u, 0x000000a5u, 0x000000a6u,
    0x00050087u, 0x00000006u, 0x000000a8u, 0x000000a7u, 0x00000019u, 0x00050082u, 0x00000006u, 0x000000acu,
    0x0000003au, 0x00000031u, 0x00050080u, 0x00000006u, 0x000000aeu, 0x000000acu, 0x000000adu, 0x00050087u,
    0x00000006u, 0x000000afu, 0x000000aeu, 0x00000022u, 0x0007000cu, 0x00000006u, 0x000000b0u, 0x00000001u,
    0x0000002au, 0x00000045u, 0x000000afu, 0x00050084u, 0x00000006u, 0x000000b2u, 0x000000b0u, 0x000000a8u,
    0x000200f9u, 0x000000b4u, 0x000200f8u, 0x000000b4u, 0x000700f5u, 0x00000006u, 0x00000334u, 0x00000045u,
    0x00000088u, 0x0000011eu, 0x000000b7u, 0x000500b1u, 0x0000003bu, 0x000000bbu, 0x00000334u, 0x000000bau,
    0x000400f6u, 0x000000b6u, 0x000000b7u, 0x00000000u, 0x000400fau, 0x000000bbu, 0x000000b5u, 0x000000b6u,
    0x000200f8u, 0x000000b5u, 0x00050084u, 0x00000006u, 0x000000c0u, 0x000000beu, 0x00000334u, 0x00050080u,
    0x00000006u, 0x000000c1u, 0x0000001cu, 0x000000c0u, 0x0005008bu, 0x00000006u, 0x000000c4u, 0x000000c1u,
    0x00000019u, 0x00050087u, 0x00000006u, 0x000000c7u, 0x000000c1u, 0x00000019u, 0x00050080u, 0x00000006u,
    0x000000cbu, 0x00000023u, 0x000000c7u, 0x00050080u, 0x00000006u, 0x000000cfu, 0x00000031u, 0x000000c7u,
    0x000500adu, 0x0000003bu, 0x000000d6u, 0x000000b2u, 0x00000045u, 0x000300f7u, 0x000000d8u, 0x00000000u,
    0x000400fau, 0x000000d6u, 0x000000d7u, 0x000000d8u, 0x000200f8u, 0x000000d7u, 0x00050041u, 0x0000002eu,
    0x000000dau, 0x0000002cu, 0x00000045u, 0x0004003du, 0x00000006u, 0x000000dbu, 0x000000dau, 0x000500b1u,
    0x0000003bu, 0x000000dcu, 0x000000cbu, 0x000000dbu, 0x000200f9u, 0x000000d8u, 0x000200f8u, 0x000000d8u,
    0x000700f5u, 0x0000003bu, 0x000000ddu, 0x000000d6u, 0x000000b5u, 0x000000dcu, 0x000000d7u, 0x000300f7u,
    0x000000dfu, 0x00000000u, 0x000400fau, 0x000000ddu, 0x000000deu, 0x000000dfu, 0x000200f8u, 0x000000deu,
    0x000500b1u, 0x0000003bu, 0x000000e3u, 0x000000c4u, 0x000000a5u, 0x000200f9u, 0x000000dfu, 0x000200f8u,
    0x000000dfu, 0x000700f5u, 0x0000003bu, 0x000000e4u, 0x000000ddu, 0x000000d8u, 0x000000e3u, 0x000000deu,
    0x000300f7u, 0x000000e7u, 0x00000000u, 0x000400fau, 0x000000e4u, 0x000000e6u, 0x000000f4u, 0x000200f8u,
    0x000000e6u, 0x00050084u, 0x00000006u, 0x000000efu, 0x000000cbu, 0x000000a5u, 0x00050080u, 0x00000006u,
    0x000000f1u, 0x000000efu, 0x000000c4u, 0x00060041u, 0x0000006cu, 0x000000f2u, 0x000000ebu, 0x00000045u,
    0x000000f1u, 0x0004003du, 0x0000005eu, 0x000000f3u, 0x000000f2u, 0x000200f9u, 0x000000e7u, 0x000200f8u,
    0x000000f4u, 0x000200f9u, 0x000000e7u, 0x000200f8u, 0x000000e7u, 0x000700f5u, 0x0000005eu, 0x00000380u,
    0x000000f3u, 0x000000e6u, 0x000000f5u, 0x000000f4u, 0x00050041u, 0x0000005fu, 0x000000f7u, 0x000000d3u,
    0x00000334u, 0x0003003eu, 0x000000f7u, 0x00000380u, 0x000500b1u, 0x0000003bu, 0x000000feu, 0x000000cfu,
    0x0000003au, 0x000500a7u, 0x0000003bu, 0x000000ffu, 0x000000d6u, 0x000000feu, 0x000300f7u, 0x00000101u,
    0x00000000u, 0x000400fau, 0x000000ffu, 0x00000100u, 0x00000101u, 0x000200f8u, 0x00000100u, 0x000500b1u,
    0x0000003bu, 0x00000105u, 0x000000c4u, 0x000000a5u, 0x000200f9u, 0x00000101u, 0x000200f8u, 0x00000101u,
    0x000700f5u, 0x0000003bu, 0x00000106u, 0x000000ffu, 0x000000e7u, 0x00000105u, 0x00000100u, 0x000300f7u,
    0x00000109u, 0x00000000u, 0x000400fau, 0x00000106u, 0x00000108u, 0x0000011au, 0x000200f8u, 0x00000108u,
    0x00050041u, 0x0000002eu, 0x0000010fu, 0x0000002cu, 0x0000010eu, 0x0004003du, 0x00000006u, 0x00000110u,
    0x0000010fu, 0x00050080u, 0x00000006u, 0x00000112u, 0x00000110u, 0x000000cfu, 0x00050084u, 0x00000006u,
    0x00000115u, 0x00000112u, 0x000000a5u, 0x00050080u, 0x00000006u, 0x00000117u, 0x00000115u, 0x000000c4u,
    0x00060041u, 0x0000006cu, 0x00000118u, 0x0000010du, 0x00000045u, 0x00000117u, 0x0004003du, 0x0000005eu,
    0x00000119u, 0x00000118u, 0x000200f9u, 0x00000109u, 0x000200f8u, 0x0000011au, 0x000200f9u, 0x00000109u,
    0x000200f8u, 0x00000109u, 0x000700f5u, 0x0000005eu, 0x00000384u, 0x00000119u, 0x00000108u, 0x000000f5u,
    0x0000011au, 0x00050041u, 0x0000005fu, 0x0000011cu, 0x000000f8u, 0x00000334u, 0x0003003eu, 0x0000011cu,
    0x00000384u, 0x000200f9u, 0x000000b7u, 0x000200f8u, 0x000000b7u, 0x00050080u, 0x00000006u, 0x0000011eu,
    0x00000334u, 0x00000033u, 0x000200f9u, 0x000000b4u, 0x000200f8u, 0x000000b6u, 0x000200f9u, 0x00000120u,
    0x000200f8u, 0x00000120u, 0x000700f5u, 0x00000006u, 0x00000350u, 0x00000332u, 0x000000b6u, 0x000003a0u,
    0x00000123u, 0x000700f5u, 0x0000005eu, 0x00000345u, 0x00000331u, 0x000000b6u, 0x0000038du, 0x00000123u,
    0x000700f5u, 0x00000006u, 0x00000335u, 0x00000045u, 0x000000b6u, 0x00000182u, 0x00000123u, 0x000500b1u,
    0x0000003bu, 0x00000127u, 0x00000335u, 0x000000b2u, 0x000400f6u, 0x00000122u, 0x00000123u, 0x00000000u,
    0x000400fau, 0x00000127u, 0x00000121u, 0x00000122u, 0x000200f8u, 0x00000121u, 0x00050087u, 0x00000006u,
    0x0000012cu, 0x00000335u, 0x000000a8u, 0x00050084u, 0x00000006u, 0x0000012du, 0x0000012cu, 0x00000022u,
    0x00050080u, 0x00000006u, 0x0000012eu, 0x00000031u, 0x0000012du, 0x0005008bu, 0x00000006u, 0x00000132u,
    0x00000335u, 0x000000a8u, 0x000500aau, 0x0000003bu, 0x00000134u, 0x00000132u, 0x00000045u, 0x000300f7u,
    0x00000136u, 0x00000000u, 0x000400fau, 0x00000134u, 0x00000135u, 0x00000136u, 0x000200f8u, 0x00000135u,
    0x000200f9u, 0x00000138u, 0x000200f8u, 0x00000138u, 0x000700f5u, 0x00000006u, 0x00000336u, 0x00000045u,
    0x00000135u, 0x00000150u, 0x0000013bu, 0x000500b1u, 0x0000003bu, 0x0000013eu, 0x00000336u, 0x000000bau,
    0x000400f6u, 0x0000013au, 0x0000013bu, 0x00000000u, 0x000400fau, 0x0000013eu, 0x00000139u, 0x0000013au,
    0x000200f8u, 0x00000139u, 0x000200f9u, 0x00000140u, 0x000200f8u, 0x00000140u, 0x000700f5u, 0x00000006u,
    0x0000037eu, 0x00000045u, 0x00000139u, 0x0000014eu, 0x00000141u, 0x000500b1u, 0x0000003bu, 0x00000146u,
    0x0000037eu, 0x000000bau, 0x000400f6u, 0x00000142u, 0x00000141u, 0x00000000u, 0x000400fau, 0x00000146u,
    0x00000141u, 0x00000142u, 0x000200f8u, 0x00000141u, 0x00060041u, 0x0000005fu, 0x0000014cu, 0x00000149u,
    0x00000336u, 0x0000037eu, 0x0003003eu, 0x0000014cu, 0x000000f5u, 0x00050080u, 0x00000006u, 0x0000014eu,
    0x0000037eu, 0x00000033u, 0x000200f9u, 0x00000140u, 0x000200f8u, 0x00000142u, 0x000200f9u, 0x0000013bu,
    0x000200f8u, 0x0000013bu, 0x00050080u, 0x00000006u, 0x00000150u, 0x00000336u, 0x00000033u, 0x000200f9u,
    0x00000138u, 0x000200f8u, 0x0000013au, 0x000200f9u, 0x00000136u, 0x000200f8u, 0x00000136u, 0x000400e0u,
    0x00000098u, 0x00000098u, 0x00000151u, 0x000200f9u, 0x00000153u, 0x000200f8u, 0x00000153u, 0x000700f5u,
    0x00000006u, 0x00000337u, 0x00000045u, 0x00000136u, 0x00000180u, 0x00000154u, 0x000500b1u, 0x0000003bu,
    0x00000159u, 0x00000337u, 0x000000bau, 0x000400f6u, 0x00000155u, 0x00000154u, 0x00000000u, 0x000400fau,
    0x00000159u, 0x00000154u, 0x00000155u, 0x000200f8u, 0x00000154u, 0x00050084u, 0x00000006u, 0x0000015du,
    0x000000beu, 0x00000337u, 0x00050080u, 0x00000006u, 0x0000015eu, 0x0000001cu, 0x0000015du, 0x0005008bu,
    0x00000006u, 0x00000161u, 0x0000015eu, 0x00000019u, 0x00050087u, 0x00000006u, 0x00000164u, 0x0000015eu,
    0x00000019u, 0x000500c3u, 0x00000006u, 0x0000016eu, 0x00000164u, 0x000000a3u, 0x000500c7u, 0x00000006u,
    0x00000170u, 0x00000164u, 0x00000057u, 0x00050041u, 0x0000005fu, 0x00000172u, 0x000000d3u, 0x00000337u,
    0x0004003du, 0x0000005eu, 0x00000173u, 0x00000172u, 0x00070041u, 0x0000008fu, 0x00000174u, 0x0000016bu,
    0x00000161u, 0x0000016eu, 0x00000170u, 0x0003003eu, 0x00000174u, 0x00000173u, 0x00050041u, 0x0000005fu,
    0x0000017cu, 0x000000f8u, 0x00000337u, 0x0004003du, 0x0000005eu, 0x0000017du, 0x0000017cu, 0x00070041u,
    0x0000008fu, 0x0000017eu, 0x00000175u, 0x00000161u, 0x0000016eu, 0x00000170u, 0x0003003eu, 0x0000017eu,
    0x0000017du, 0x00050080u, 0x00000006u, 0x00000180u, 0x00000337u, 0x00000033u, 0x000200f9u, 0x00000153u,
    0x000200f8u, 0x00000155u, 0x000400e0u, 0x00000098u, 0x00000098u, 0x00000151u, 0x00050080u, 0x00000006u,
    0x00000182u, 0x00000335u, 0x00000033u, 0x000500b1u, 0x0000003bu, 0x00000184u, 0x00000182u, 0x000000b2u,
    0x000300f7u, 0x00000186u, 0x00000000u, 0x000400fau, 0x00000184u, 0x00000185u, 0x00000186u, 0x000200f8u,
    0x00000185u, 0x00050087u, 0x00000006u, 0x0000018cu, 0x00000182u, 0x000000a8u, 0x00050084u, 0x00000006u,
    0x0000018du, 0x0000018cu, 0x00000022u, 0x00050080u, 0x00000006u, 0x0000018eu, 0x00000031u, 0x0000018du,
    0x0005008bu, 0x00000006u, 0x00000193u, 0x00000182u, 0x000000a8u, 0x00050084u, 0x00000006u, 0x00000194u,
    0x00000193u, 0x00000019u, 0x000200f9u, 0x00000196u, 0x000200f8u, 0x00000196u, 0x000700f5u, 0x00000006u,
    0x0000033bu, 0x00000045u, 0x00000185u, 0x000001ebu, 0x00000199u, 0x000500b1u, 0x0000003bu, 0x0000019cu,
    0x0000033bu, 0x000000bau, 0x000400f6u, 0x00000198u, 0x00000199u, 0x00000000u, 0x000400fau, 0x0000019cu,
    0x00000197u, 0x00000198u, 0x000200f8u, 0x00000197u, 0x00050084u, 0x00000006u, 0x000001a0u, 0x000000beu,
    0x0000033bu, 0x00050080u, 0x00000006u, 0x000001a1u, 0x0000001cu, 0x000001a0u, 0x0005008bu, 0x00000006u,
    0x000001a4u, 0x000001a1u, 0x00000019u, 0x00050087u, 0x00000006u, 0x000001a7u, 0x000001a1u, 0x00000019u,
    0x00050080u, 0x00000006u, 0x000001abu, 0x00000194u, 0x000001a4u, 0x00050080u, 0x00000006u, 0x000001afu,
    0x00000023u, 0x000001a7u, 0x00050080u, 0x00000006u, 0x000001b3u, 0x0000018eu, 0x000001a7u, 0x00050041u,
    0x0000002eu, 0x000001b6u, 0x0000002cu, 0x00000045u, 0x0004003du, 0x00000006u, 0x000001b7u, 0x000001b6u,
    0x000500b1u, 0x0000003bu, 0x000001b8u, 0x000001afu, 0x000001b7u, 0x000300f7u, 0x000001bau, 0x00000000u,
    0x000400fau, 0x000001b8u, 0x000001b9u, 0x000001bau, 0x000200f8u, 0x000001b9u, 0x000500b1u, 0x0000003bu,
    0x000001beu, 0x000001abu, 0x000000a5u, 0x000200f9u, 0x000001bau, 0x000200f8u, 0x000001bau, 0x000700f5u,
    0x0000003bu, 0x000001bfu, 0x000001b8u, 0x00000197u, 0x000001beu, 0x000001b9u, 0x000300f7u, 0x000001c2u,
    0x00000000u, 0x000400fau, 0x000001bfu, 0x000001c1u, 0x000001cbu, 0x000200f8u, 0x000001c1u, 0x00050084u,
    0x00000006u, 0x000001c6u, 0x000001afu, 0x000000a5u, 0x00050080u, 0x00000006u, 0x000001c8u, 0x000001c6u,
    0x000001abu, 0x00060041u, 0x0000006cu, 0x000001c9u, 0x000000ebu, 0x00000045u, 0x000001c8u, 0x0004003du,
    0x0000005eu, 0x000001cau, 0x000001c9u, 0x000200f9u, 0x000001c2u, 0x000200f8u, 0x000001cbu, 0x000200f9u,
    0x000001c2u, 0x000200f8u, 0x000001c2u, 0x000700f5u, 0x0000005eu, 0x00000378u, 0x000001cau, 0x000001c1u,
    0x000000f5u, 0x000001cbu, 0x00050041u, 0x0000005fu, 0x000001cdu, 0x000000d3u, 0x0000033bu, 0x0003003eu,
    0x000001cdu, 0x00000378u, 0x000500b1u, 0x0000003bu, 0x000001d1u, 0x000001b3u, 0x0000003au, 0x000300f7u,
    0x000001d3u, 0x00000000u, 0x000400fau, 0x000001d1u, 0x000001d2u, 0x000001d3u, 0x000200f8u, 0x000001d2u,
    0x000500b1u, 0x0000003bu, 0x000001d7u, 0x000001abu, 0x000000a5u, 0x000200f9u, 0x000001d3u, 0x000200f8u,
    0x000001d3u, 0x000700f5u, 0x0000003bu, 0x000001d8u, 0x000001d1u, 0x000001c2u, 0x000001d7u, 0x000001d2u,
    0x000300f7u, 0x000001dbu, 0x00000000u, 0x000400fau, 0x000001d8u, 0x000001dau, 0x000001e7u, 0x000200f8u,
    0x000001dau, 0x00050041u, 0x0000002eu, 0x000001dcu, 0x0000002cu, 0x0000010eu, 0x0004003du, 0x00000006u,
    0x000001ddu, 0x000001dcu, 0x00050080u, 0x00000006u, 0x000001dfu, 0x000001ddu, 0x000001b3u, 0x00050084u,
    0x00000006u, 0x000001e2u, 0x000001dfu, 0x000000a5u, 0x00050080u, 0x00000006u, 0x000001e4u, 0x000001e2u,
    0x000001abu, 0x00060041u, 0x0000006cu, 0x000001e5u, 0x0000010du, 0x00000045u, 0x000001e4u, 0x0004003du,
    0x0000005eu, 0x000001e6u, 0x000001e5u, 0x000200f9u, 0x000001dbu, 0x000200f8u, 0x000001e7u, 0x000200f9u,
    0x000001dbu, 0x000200f8u, 0x000001dbu, 0x000700f5u, 0x0000005eu, 0x0000037bu, 0x000001e6u, 0x000001dau,
    0x000000f5u, 0x000001e7u, 0x00050041u, 0x0000005fu, 0x000001e9u, 0x000000f8u, 0x0000033bu, 0x0003003eu,
    0x000001e9u, 0x0000037bu, 0x000200f9u, 0x00000199u, 0x000200f8u, 0x00000199u, 0x00050080u, 0x00000006u,
    0x000001ebu, 0x0000033bu, 0x00000033u, 0x000200f9u, 0x00000196u, 0x000200f8u, 0x00000198u, 0x000200f9u,
    0x00000186u, 0x000200f8u, 0x00000186u, 0x000200f9u, 0x000001edu, 0x000200f8u, 0x000001edu, 0x000700f5u,
    0x00000006u, 0x0000033cu, 0x00000045u, 0x00000186u, 0x00000226u, 0x000001f0u, 0x000500b1u, 0x0000003bu,
    0x000001f3u, 0x0000033cu, 0x00000019u, 0x000400f6u, 0x000001efu, 0x000001f0u, 0x00000000u, 0x000400fau,
    0x000001f3u, 0x000001eeu, 0x000001efu, 0x000200f8u, 0x000001eeu, 0x00060041u, 0x000001f8u, 0x000001f9u,
    0x0000016bu, 0x0000033cu, 0x00000016u, 0x0004003du, 0x00000165u, 0x000001fau, 0x000001f9u, 0x0003003eu,
    0x000001f5u, 0x000001fau, 0x00060041u, 0x000001f8u, 0x000001feu, 0x00000175u, 0x0000033cu, 0x00000011u,
    0x0004003du, 0x00000165u, 0x000001ffu, 0x000001feu, 0x0003003eu, 0x000001fbu, 0x000001ffu, 0x000200f9u,
    0x00000201u, 0x000200f8u, 0x00000201u, 0x000700f5u, 0x00000006u, 0x00000374u, 0x00000045u, 0x000001eeu,
    0x00000224u, 0x00000204u, 0x000500b1u, 0x0000003bu, 0x00000207u, 0x00000374u, 0x000000bau, 0x000400f6u,
    0x00000203u, 0x00000204u, 0x00000000u, 0x000400fau, 0x00000207u, 0x00000202u, 0x00000203u, 0x000200f8u,
    0x00000202u, 0x000200f9u, 0x00000209u, 0x000200f8u, 0x00000209u, 0x000700f5u, 0x00000006u, 0x00000376u,
    0x00000045u, 0x00000202u, 0x00000222u, 0x0000020au, 0x000500b1u, 0x0000003bu, 0x0000020fu, 0x00000376u,
    0x000000bau, 0x000400f6u, 0x0000020bu, 0x0000020au, 0x00000000u, 0x000400fau, 0x0000020fu, 0x0000020au,
    0x0000020bu, 0x000200f8u, 0x0000020au, 0x00050041u, 0x0000005fu, 0x00000212u, 0x000001f5u, 0x00000374u,
    0x0004003du, 0x0000005eu, 0x00000213u, 0x00000212u, 0x00050041u, 0x0000005fu, 0x00000215u, 0x000001fbu,
    0x00000376u, 0x0004003du, 0x0000005eu, 0x00000216u, 0x00000215u, 0x00050083u, 0x0000005eu, 0x00000217u,
    0x00000213u, 0x00000216u, 0x00060041u, 0x0000005fu, 0x0000021du, 0x00000149u, 0x00000374u, 0x00000376u,
    0x0004003du, 0x0000005eu, 0x0000021eu, 0x0000021du, 0x0008000cu, 0x0000005eu, 0x0000021fu, 0x00000001u,
    0x00000032u, 0x00000217u, 0x00000217u, 0x0000021eu, 0x0003003eu, 0x0000021du, 0x0000021fu, 0x00050080u,
    0x00000006u, 0x00000222u, 0x00000376u, 0x00000033u, 0x000200f9u, 0x00000209u, 0x000200f8u, 0x0000020bu,
    0x000200f9u, 0x00000204u, 0x000200f8u, 0x00000204u, 0x00050080u, 0x00000006u, 0x00000224u, 0x00000374u,
    0x00000033u, 0x000200f9u, 0x00000201u, 0x000200f8u, 0x00000203u, 0x000200f9u, 0x000001f0u, 0x000200f8u,
    0x000001f0u, 0x00050080u, 0x00000006u, 0x00000226u, 0x0000033cu, 0x00000033u, 0x000200f9u, 0x000001edu,
    0x000200f8u, 0x000001efu, 0x00050082u, 0x00000006u, 0x00000229u, 0x000000a8u, 0x00000033u, 0x000500abu,
    0x0000003bu, 0x0000022au, 0x00000132u, 0x00000229u, 0x000300f7u, 0x0000022cu, 0x00000000u, 0x000400fau,
    0x0000022au, 0x0000022bu, 0x0000022cu, 0x000200f8u, 0x0000022bu, 0x000200f9u, 0x00000123u, 0x000200f8u,
    0x0000022cu, 0x00050082u, 0x00000006u, 0x00000231u, 0x0000003au, 0x0000012eu, 0x0007000cu, 0x00000006u,
    0x00000232u, 0x00000001u, 0x00000027u, 0x00000022u, 0x00000231u, 0x000200f9u, 0x00000234u, 0x000200f8u,
    0x00000234u, 0x000700f5u, 0x00000006u, 0x0000033du, 0x00000045u, 0x0000022cu, 0x0000028eu, 0x00000237u,
    0x000500b1u, 0x0000003bu, 0x0000023au, 0x0000033du, 0x000000bau, 0x000400f6u, 0x00000236u, 0x00000237u,
    0x00000000u, 0x000400fau, 0x0000023au, 0x00000235u, 0x00000236u, 0x000200f8u, 0x00000235u, 0x000200f9u,
    0x0000023cu, 0x000200f8u, 0x0000023cu, 0x000700f5u, 0x00000006u, 0x0000035cu, 0x00000045u, 0x00000235u,
    0x0000028cu, 0x0000023fu, 0x000500b1u, 0x0000003bu, 0x00000242u, 0x0000035cu, 0x000000bau, 0x000400f6u,
    0x0000023eu, 0x0000023fu, 0x00000000u, 0x000400fau, 0x00000242u, 0x0000023du, 0x0000023eu, 0x000200f8u,
    0x0000023du, 0x00050084u, 0x00000006u, 0x00000245u, 0x000000bau, 0x00000016u, 0x00050080u, 0x00000006u,
    0x00000247u, 0x00000245u, 0x0000033du, 0x00050084u, 0x00000006u, 0x0000024au, 0x000000bau, 0x00000011u,
    0x00050080u, 0x00000006u, 0x0000024cu, 0x0000024au, 0x0000035cu, 0x00050041u, 0x0000002eu, 0x0000024eu,
    0x0000002cu, 0x000000bau, 0x0004003du, 0x00000006u, 0x0000024fu, 0x0000024eu, 0x00050080u, 0x00000006u,
    0x00000251u, 0x0000024fu, 0x0000012eu, 0x00050080u, 0x00000006u, 0x00000253u, 0x00000251u, 0x0000024cu,
    0x00060041u, 0x0000005fu, 0x00000257u, 0x00000149u, 0x0000033du, 0x0000035cu, 0x0004003du, 0x0000005eu,
    0x00000258u, 0x00000257u, 0x00060041u, 0x0000008fu, 0x00000261u, 0x0000025du, 0x00000247u, 0x0000024cu,
    0x0003003eu, 0x00000261u, 0x00000258u, 0x000500b1u, 0x0000003bu, 0x00000264u, 0x0000024cu, 0x00000232u,
    0x000300f7u, 0x00000266u, 0x00000000u, 0x000400fau, 0x00000264u, 0x00000265u, 0x00000266u, 0x000200f8u,
    0x00000265u, 0x00050041u, 0x0000008fu, 0x00000269u, 0x0000008cu, 0x00000247u, 0x0004003du, 0x0000005eu,
    0x0000026au, 0x00000269u, 0x000500b8u, 0x0000003bu, 0x0000026bu, 0x00000258u, 0x0000026au, 0x000400a8u,
    0x0000003bu, 0x0000026cu, 0x0000026bu, 0x000300f7u, 0x0000026eu, 0x00000000u, 0x000400fau, 0x0000026cu,
    0x0000026du, 0x0000026eu, 0x000200f8u, 0x0000026du, 0x0004003du, 0x0000005eu, 0x00000272u, 0x00000269u,
    0x000500b4u, 0x0000003bu, 0x00000273u, 0x00000258u, 0x00000272u, 0x000300f7u, 0x00000275u, 0x00000000u,
    0x000400fau, 0x00000273u, 0x00000274u, 0x00000275u, 0x000200f8u, 0x00000274u, 0x00050041u, 0x00000096u,
    0x00000278u, 0x00000093u, 0x00000247u, 0x0004003du, 0x00000006u, 0x00000279u, 0x00000278u, 0x000500b1u,
    0x0000003bu, 0x0000027au, 0x00000253u, 0x00000279u, 0x000200f9u, 0x00000275u, 0x000200f8u, 0x00000275u,
    0x000700f5u, 0x0000003bu, 0x0000027bu, 0x00000273u, 0x0000026du, 0x0000027au, 0x00000274u, 0x000200f9u,
    0x0000026eu, 0x000200f8u, 0x0000026eu, 0x000700f5u, 0x0000003bu, 0x0000027cu, 0x0000026bu, 0x00000265u,
    0x0000027bu, 0x00000275u, 0x000200f9u, 0x00000266u, 0x000200f8u, 0x00000266u, 0x000700f5u, 0x0000003bu,
    0x0000027du, 0x00000264u, 0x0000023du, 0x0000027cu, 0x0000026eu, 0x000300f7u, 0x0000027fu, 0x00000000u,
    0x000400fau, 0x0000027du, 0x0000027eu, 0x0000027fu, 0x000200f8u, 0x0000027eu, 0x000500c3u, 0x00000006u,
    0x00000283u, 0x0000024cu, 0x00000282u, 0x00060041u, 0x0000009eu, 0x00000284u, 0x0000009cu, 0x00000247u,
    0x00000283u, 0x000500c7u, 0x00000006u, 0x00000287u, 0x0000024cu, 0x00000286u, 0x0004007cu, 0x00000009u,
    0x00000288u, 0x00000287u, 0x000500c4u, 0x00000009u, 0x00000289u, 0x00000013u, 0x00000288u, 0x000700f1u,
    0x00000009u, 0x0000028au, 0x00000284u, 0x00000013u, 0x0000000du, 0x00000289u, 0x000200f9u, 0x0000027fu,
    0x000200f8u, 0x0000027fu, 0x000200f9u, 0x0000023fu, 0x000200f8u, 0x0000023fu, 0x00050080u, 0x00000006u,
    0x0000028cu, 0x0000035cu, 0x00000033u, 0x000200f9u, 0x0000023cu, 0x000200f8u, 0x0000023eu, 0x000200f9u,
    0x00000237u, 0x000200f8u, 0x00000237u, 0x00050080u, 0x00000006u, 0x0000028eu, 0x0000033du, 0x00000033u,
    0x000200f9u, 0x00000234u, 0x000200f8u, 0x00000236u, 0x000400e0u, 0x00000098u, 0x00000098u, 0x00000151u,
    0x000300f7u, 0x00000291u, 0x00000000u, 0x000400fau, 0x00000049u, 0x00000290u, 0x00000291u, 0x000200f8u,
    0x00000290u, 0x000200f9u, 0x00000293u, 0x000200f8u, 0x00000293u, 0x000700f5u, 0x00000006u, 0x0000034au,
    0x00000350u, 0x00000290u, 0x00000358u, 0x00000296u, 0x000700f5u, 0x0000005eu, 0x0000033fu, 0x00000345u,
    0x00000290u, 0x00000357u, 0x00000296u, 0x000700f5u, 0x00000006u, 0x0000033eu, 0x00000045u, 0x00000290u,
    0x00000323u, 0x00000296u, 0x000500b1u, 0x0000003bu, 0x00000299u, 0x0000033eu, 0x000000a3u, 0x000400f6u,
    0x00000295u, 0x00000296u, 0x00000000u, 0x000400fau, 0x00000299u, 0x00000294u, 0x00000295u, 0x000200f8u,
    0x00000294u, 0x00060041u, 0x0000009eu, 0x0000029eu, 0x0000009cu, 0x0000001cu, 0x0000033eu, 0x0004003du,
    0x00000009u, 0x0000029fu, 0x0000029eu, 0x000200f9u, 0x000002a0u, 0x000200f8u, 0x000002a0u, 0x000700f5u,
    0x00000006u, 0x00000358u, 0x0000034au, 0x00000294u, 0x000003bau, 0x000002a3u, 0x000700f5u, 0x0000005eu,
    0x00000357u, 0x0000033fu, 0x00000294u, 0x000003b8u, 0x000002a3u, 0x000700f5u, 0x00000009u, 0x00000355u,
    0x0000029fu, 0x00000294u, 0x000002b1u, 0x000002a3u, 0x000500abu, 0x0000003bu, 0x000002a6u, 0x00000355u,
    0x0000000du, 0x000400f6u, 0x000002a2u, 0x000002a3u, 0x00000000u, 0x000400fau, 0x000002a6u, 0x000002a1u,
    0x000002a2u, 0x000200f8u, 0x000002a1u, 0x00050084u, 0x00000006u, 0x000002aau, 0x0000033eu, 0x000002a9u,
    0x0006000cu, 0x00000006u, 0x000002acu, 0x00000001u, 0x00000049u, 0x00000355u, 0x00050080u, 0x00000006u,
    0x000002adu, 0x000002aau, 0x000002acu, 0x00050082u, 0x00000009u, 0x000002afu, 0x00000355u, 0x00000013u,
    0x000500c7u, 0x00000009u, 0x000002b1u, 0x00000355u, 0x000002afu, 0x00060041u, 0x0000008fu, 0x000002b5u,
    0x0000025du, 0x0000001cu, 0x000002adu, 0x0004003du, 0x0000005eu, 0x000002b6u, 0x000002b5u, 0x00050041u,
    0x0000002eu, 0x000002b8u, 0x0000002cu, 0x000000bau, 0x0004003du, 0x00000006u, 0x000002b9u, 0x000002b8u,
    0x00050080u, 0x00000006u, 0x000002bbu, 0x000002b9u, 0x0000012eu, 0x00050080u, 0x00000006u, 0x000002bdu,
    0x000002bbu, 0x000002adu, 0x000500bau, 0x0000003bu, 0x000002c0u, 0x000002b6u, 0x00000357u, 0x000400a8u,
    0x0000003bu, 0x000002c1u, 0x000002c0u, 0x000300f7u, 0x000002c3u, 0x00000000u, 0x000400fau, 0x000002c1u,
    0x000002c2u, 0x000002c3u, 0x000200f8u, 0x000002c2u, 0x000500b4u, 0x0000003bu, 0x000002c6u, 0x000002b6u,
    0x00000357u, 0x000500afu, 0x0000003bu, 0x000002c9u, 0x000002bdu, 0x00000358u, 0x000500a7u, 0x0000003bu,
    0x000002cau, 0x000002c6u, 0x000002c9u, 0x000200f9u, 0x000002c3u, 0x000200f8u, 0x000002c3u, 0x000700f5u,
    0x0000003bu, 0x000002cbu, 0x000002c0u, 0x000002a1u, 0x000002cau, 0x000002c2u, 0x000300f7u, 0x000002cdu,
    0x00000000u, 0x000400fau, 0x000002cbu, 0x000002ccu, 0x000002cdu, 0x000200f8u, 0x000002ccu, 0x000200f9u,
    0x000002a3u, 0x000200f8u, 0x000002cdu, 0x00050041u, 0x0000002eu, 0x000002cfu, 0x0000002cu, 0x00000282u,
    0x0004003du, 0x00000006u, 0x000002d0u, 0x000002cfu, 0x000500abu, 0x0000003bu, 0x000002d1u, 0x000002d0u,
    0x00000045u, 0x000500aau, 0x0000003bu, 0x000002d4u, 0x000002bdu, 0x0000005du, 0x000500a7u, 0x0000003bu,
    0x000002d5u, 0x000002d1u, 0x000002d4u, 0x000300f7u, 0x000002d7u, 0x00000000u, 0x000400fau, 0x000002d5u,
    0x000002d6u, 0x000002d7u, 0x000200f8u, 0x000002d6u, 0x000200f9u, 0x000002a3u, 0x000200f8u, 0x000002d7u,
    0x000200f9u, 0x000002dbu, 0x000200f8u, 0x000002dbu, 0x000700f5u, 0x00000006u, 0x00000359u, 0x000002dau,
    0x000002d7u, 0x0000030du, 0x000002deu, 0x000500adu, 0x0000003bu, 0x000002e1u, 0x00000359u, 0x00000045u,
    0x000400f6u, 0x000002ddu, 0x000002deu, 0x00000000u, 0x000400fau, 0x000002e1u, 0x000002dcu, 0x000002ddu,
    0x000200f8u, 0x000002dcu, 0x00050080u, 0x00000006u, 0x000002e5u, 0x00000055u, 0x00000359u, 0x00050082u,
    0x00000006u, 0x000002e6u, 0x000002e5u, 0x00000033u, 0x00060041u, 0x0000006cu, 0x000002e7u, 0x00000068u,
    0x00000045u, 0x000002e6u, 0x0004003du, 0x0000005eu, 0x000002e8u, 0x000002e7u, 0x00060041u, 0x00000080u,
    0x000002eeu, 0x0000007cu, 0x00000045u, 0x000002e6u, 0x0004003du, 0x00000006u, 0x000002efu, 0x000002eeu,
    0x000500bau, 0x0000003bu, 0x000002f2u, 0x000002e8u, 0x000002b6u, 0x000400a8u, 0x0000003bu, 0x000002f3u,
    0x000002f2u, 0x000300f7u, 0x000002f5u, 0x00000000u, 0x000400fau, 0x000002f3u, 0x000002f4u, 0x000002f5u,
    0x000200f8u, 0x000002f4u, 0x000500b4u, 0x0000003bu, 0x000002f8u, 0x000002e8u, 0x000002b6u, 0x000500adu,
    0x0000003bu, 0x000002fbu, 0x000002efu, 0x000002bdu, 0x000500a7u, 0x0000003bu, 0x000002fcu, 0x000002f8u,
    0x000002fbu, 0x000200f9u, 0x000002f5u, 0x000200f8u, 0x000002f5u, 0x000700f5u, 0x0000003bu, 0x000002fdu,
    0x000002f2u, 0x000002dcu, 0x000002fcu, 0x000002f4u, 0x000400a8u, 0x0000003bu, 0x000002feu, 0x000002fdu,
    0x000300f7u, 0x00000300u, 0x00000000u, 0x000400fau, 0x000002feu, 0x000002ffu, 0x00000300u, 0x000200f8u,
    0x000002ffu, 0x000200f9u, 0x000002ddu, 0x000200f8u, 0x00000300u, 0x00060041u, 0x0000006cu, 0x00000306u,
    0x00000068u, 0x00000045u, 0x000002e5u, 0x0003003eu, 0x00000306u, 0x000002e8u, 0x00060041u, 0x00000080u,
    0x0000030bu, 0x0000007cu, 0x00000045u, 0x000002e5u, 0x0003003eu, 0x0000030bu, 0x000002efu, 0x00050082u,
    0x00000006u, 0x0000030du, 0x00000359u, 0x00000033u, 0x000200f9u, 0x000002deu, 0x000200f8u, 0x000002deu,
    0x000200f9u, 0x000002dbu, 0x000200f8u, 0x000002ddu, 0x00050080u, 0x00000006u, 0x00000310u, 0x00000055u,
    0x00000359u, 0x00060041u, 0x0000006cu, 0x00000312u, 0x00000068u, 0x00000045u, 0x00000310u, 0x0003003eu,
    0x00000312u, 0x000002b6u, 0x00060041u, 0x00000080u, 0x00000317u, 0x0000007cu, 0x00000045u, 0x00000310u,
    0x0003003eu, 0x00000317u, 0x000002bdu, 0x00050080u, 0x00000006u, 0x00000319u, 0x00000055u, 0x00000054u,
    0x00050082u, 0x00000006u, 0x0000031au, 0x00000319u, 0x00000033u, 0x00060041u, 0x0000006cu, 0x0000031bu,
    0x00000068u, 0x00000045u, 0x0000031au, 0x0004003du, 0x0000005eu, 0x0000031cu, 0x0000031bu, 0x00060041u,
    0x00000080u, 0x00000320u, 0x0000007cu, 0x00000045u, 0x0000031au, 0x0004003du, 0x00000006u, 0x00000321u,
    0x00000320u, 0x000200f9u, 0x000002a3u, 0x000200f8u, 0x000002a3u, 0x000900f5u, 0x00000006u, 0x000003bau,
    0x00000358u, 0x000002ccu, 0x00000358u, 0x000002d6u, 0x00000321u, 0x000002ddu, 0x000900f5u, 0x0000005eu,
    0x000003b8u, 0x00000357u, 0x000002ccu, 0x00000357u, 0x000002d6u, 0x0000031cu, 0x000002ddu, 0x000200f9u,
    0x000002a0u, 0x000200f8u, 0x000002a2u, 0x000200f9u, 0x00000296u, 0x000200f8u, 0x00000296u, 0x00050080u,
    0x00000006u, 0x00000323u, 0x0000033eu, 0x00000033u, 0x000200f9u, 0x00000293u, 0x000200f8u, 0x00000295u,
    0x00050041u, 0x0000008fu, 0x00000326u, 0x0000008cu, 0x0000001cu, 0x0003003eu, 0x00000326u, 0x0000033fu,
    0x00050041u, 0x00000096u, 0x00000329u, 0x00000093u, 0x0000001cu, 0x0003003eu, 0x00000329u, 0x0000034au,
    0x00060041u, 0x0000009eu, 0x0000032bu, 0x0000009cu, 0x0000001cu, 0x00000045u, 0x0003003eu, 0x0000032bu,
    0x0000000du, 0x00060041u, 0x0000009eu, 0x0000032du, 0x0000009cu, 0x0000001cu, 0x00000033u, 0x0003003eu,
    0x0000032du, 0x0000000du, 0x000200f9u, 0x00000291u, 0x000200f8u, 0x00000291u, 0x000700f5u, 0x00000006u,
    0x000003a1u, 0x00000350u, 0x00000236u, 0x0000034au, 0x00000295u, 0x000700f5u, 0x0000005eu, 0x0000038eu,
    0x00000345u, 0x00000236u, 0x0000033fu, 0x00000295u, 0x000200f9u, 0x00000123u, 0x000200f8u, 0x00000123u,
    0x000700f5u, 0x00000006u, 0x000003a0u, 0x00000350u, 0x0000022bu, 0x000003a1u, 0x00000291u, 0x000700f5u,
    0x0000005eu, 0x0000038du, 0x00000345u, 0x0000022bu, 0x0000038eu, 0x00000291u, 0x000200f9u, 0x00000120u,
    0x000200f8u, 0x00000122u, 0x000100fdu, 0x00010038u,
};
#define UMAP_VK__BINDINGS_matmul 2
#define UMAP_VK__PC_SIZE_matmul 40
#define UMAP_VK__PC_MEMBERS_matmul(X) \
    X(matmul, M, 0, 4, U32, ) \
    X(matmul, N, 4, 4, U32, ) \
    X(matmul, K, 8, 4, U32, ) \
    X(matmul, ta, 12, 4, U32, ) \
    X(matmul, tb, 16, 4, U32, ) \
    X(matmul, a_base, 20, 4, U32, ) \
    X(matmul, b_base, 24, 4, U32, ) \
    X(matmul, a_step, 28, 4, U32, ) \
    X(matmul, b_step, 32, 4, U32, ) \
    X(matmul, c_base, 36, 4, U32, )
static const uint32_t umap_vk__spv_matmul[1869] = {
    0x07230203u, 0x00010300u, 0x000d000bu, 0x0000022cu, 0x00000000u, 0x00020011u, 0x00000001u, 0x0006000bu,
    0x00000001u, 0x4c534c47u, 0x6474732eu, 0x3035342eu, 0x00000000u, 0x0003000eu, 0x00000000u, 0x00000001u,
    0x0007000fu, 0x00000005u, 0x00000004u, 0x6e69616du, 0x00000000u, 0x0000000bu, 0x00000011u, 0x00060010u,
    0x00000004u, 0x00000011u, 0x00000010u, 0x00000010u, 0x00000001u, 0x00040047u, 0x0000000bu, 0x0000000bu,
    0x0000001au, 0x00040047u, 0x00000011u, 0x0000000bu, 0x0000001bu, 0x00040047u, 0x00000022u, 0x00000001u,
    0x00000000u, 0x00050048u, 0x0000002au, 0x00000000u, 0x00000023u, 0x00000000u, 0x00050048u, 0x0000002au,
    0x00000001u, 0x00000023u, 0x00000004u, 0x00050048u, 0x0000002au, 0x00000002u, 0x00000023u, 0x00000008u,
    0x00050048u, 0x0000002au, 0x00000003u, 0x00000023u, 0x0000000cu, 0x00050048u, 0x0000002au, 0x00000004u,
    0x00000023u, 0x00000010u, 0x00050048u, 0x0000002au, 0x00000005u, 0x00000023u, 0x00000014u, 0x00050048u,
    0x0000002au, 0x00000006u, 0x00000023u, 0x00000018u, 0x00050048u, 0x0000002au, 0x00000007u, 0x00000023u,
    0x0000001cu, 0x00050048u, 0x0000002au, 0x00000008u, 0x00000023u, 0x00000020u, 0x00050048u, 0x0000002au,
    0x00000009u, 0x00000023u, 0x00000024u, 0x00030047u, 0x0000002au, 0x00000002u, 0x00040047u, 0x000000b1u,
    0x00000006u, 0x00000004u, 0x00040048u, 0x000000b2u, 0x00000000u, 0x00000018u, 0x00050048u, 0x000000b2u,
    0x00000000u, 0x00000023u, 0x00000000u, 0x00030047u, 0x000000b2u, 0x00000002u, 0x00040047u, 0x000000b4u,
    0x00000022u, 0x00000000u, 0x00040047u, 0x000000b4u, 0x00000021u, 0x00000000u, 0x00040047u, 0x000001e9u,
    0x00000006u, 0x00000004u, 0x00040048u, 0x000001eau, 0x00000000u, 0x00000019u, 0x00050048u, 0x000001eau,
    0x00000000u, 0x00000023u, 0x00000000u, 0x00030047u, 0x000001eau, 0x00000002u, 0x00040047u, 0x000001ecu,
    0x00000022u, 0x00000000u, 0x00040047u, 0x000001ecu, 0x00000021u, 0x00000001u, 0x00040047u, 0x000001feu,
    0x0000000bu, 0x00000019u, 0x00020013u, 0x00000002u, 0x00030021u, 0x00000003u, 0x00000002u, 0x00040015u,
    0x00000006u, 0x00000020u, 0x00000000u, 0x00040017u, 0x00000009u, 0x00000006u, 0x00000003u, 0x00040020u,
    0x0000000au, 0x00000001u, 0x00000009u, 0x0004003bu, 0x0000000au, 0x0000000bu, 0x00000001u, 0x0004002bu,
    0x00000006u, 0x0000000cu, 0x00000002u, 0x00040020u, 0x0000000du, 0x00000001u, 0x00000006u, 0x0004003bu,
    0x0000000au, 0x00000011u, 0x00000001u, 0x0004002bu, 0x00000006u, 0x00000012u, 0x00000000u, 0x0004002bu,
    0x00000006u, 0x00000016u, 0x00000001u, 0x0004002bu, 0x00000006u, 0x0000001bu, 0x00000010u, 0x00040032u,
    0x00000006u, 0x00000022u, 0x00000004u, 0x00060034u, 0x00000006u, 0x00000023u, 0x00000084u, 0x0000001bu,
    0x00000022u, 0x000c001eu, 0x0000002au, 0x00000006u, 0x00000006u, 0x00000006u, 0x00000006u, 0x00000006u,
    0x00000006u, 0x00000006u, 0x00000006u, 0x00000006u, 0x00000006u, 0x00040020u, 0x0000002bu, 0x00000009u,
    0x0000002au, 0x0004003bu, 0x0000002bu, 0x0000002cu, 0x00000009u, 0x00040015u, 0x0000002du, 0x00000020u,
    0x00000001u, 0x0004002bu, 0x0000002du, 0x0000002eu, 0x00000005u, 0x00040020u, 0x0000002fu, 0x00000009u,
    0x00000006u, 0x0004002bu, 0x0000002du, 0x00000033u, 0x00000007u, 0x0004002bu, 0x0000002du, 0x00000039u,
    0x00000006u, 0x0004002bu, 0x0000002du, 0x0000003du, 0x00000008u, 0x00020014u, 0x00000049u, 0x00030016u,
    0x00000053u, 0x00000020u, 0x0004001cu, 0x00000054u, 0x00000053u, 0x00000022u, 0x0004001cu, 0x00000055u,
    0x00000054u, 0x00000022u, 0x00040020u, 0x00000056u, 0x00000007u, 0x00000055u, 0x0004002bu, 0x00000053u,
    0x0000005au, 0x00000000u, 0x00040020u, 0x0000005bu, 0x00000007u, 0x00000053u, 0x0004002bu, 0x0000002du,
    0x0000005eu, 0x00000001u, 0x0004002bu, 0x0000002du, 0x00000069u, 0x00000002u, 0x0004002bu, 0x00000006u,
    0x00000077u, 0x00000100u, 0x0004002bu, 0x0000002du, 0x0000007bu, 0x00000003u, 0x00040017u, 0x00000094u,
    0x00000053u, 0x00000004u, 0x0004002bu, 0x00000006u, 0x00000095u, 0x00000004u, 0x00060034u, 0x00000006u,
    0x00000096u, 0x00000086u, 0x00000023u, 0x00000095u, 0x00060034u, 0x00000006u, 0x00000097u, 0x00000080u,
    0x00000096u, 0x00000016u, 0x0004001cu, 0x00000098u, 0x00000094u, 0x00000097u, 0x0004001cu, 0x00000099u,
    0x00000098u, 0x0000001bu, 0x00040020u, 0x0000009au, 0x00000004u, 0x00000099u, 0x0004003bu, 0x0000009au,
    0x0000009bu, 0x00000004u, 0x0004002bu, 0x00000006u, 0x000000a0u, 0x00000003u, 0x0004002bu, 0x0000002du,
    0x000000a3u, 0x00000000u, 0x0003001du, 0x000000b1u, 0x00000053u, 0x0003001eu, 0x000000b2u, 0x000000b1u,
    0x00040020u, 0x000000b3u, 0x0000000cu, 0x000000b2u, 0x0004003bu, 0x000000b3u, 0x000000b4u, 0x0000000cu,
    0x00040020u, 0x000000cbu, 0x0000000cu, 0x00000053u, 0x00040020u, 0x000000d0u, 0x00000004u, 0x00000053u,
    0x0004002bu, 0x0000002du, 0x000000d2u, 0x00000004u, 0x00060034u, 0x00000006u, 0x000000ebu, 0x00000086u,
    0x00000023u, 0x00000095u, 0x00060034u, 0x00000006u, 0x000000ecu, 0x00000080u, 0x000000ebu, 0x00000016u,
    0x0004001cu, 0x000000edu, 0x00000094u, 0x000000ecu, 0x0004001cu, 0x000000eeu, 0x000000edu, 0x0000001bu,
    0x00040020u, 0x000000efu, 0x00000004u, 0x000000eeu, 0x0004003bu, 0x000000efu, 0x000000f0u, 0x00000004u,
    0x0004002bu, 0x00000006u, 0x00000121u, 0x00000108u, 0x00060034u, 0x00000049u, 0x0000012au, 0x000000aau,
    0x00000022u, 0x00000095u, 0x00040020u, 0x0000012du, 0x00000007u, 0x00000094u, 0x00040020u, 0x00000131u,
    0x00000004u, 0x00000094u, 0x00040020u, 0x00000141u, 0x00000007u, 0x00000054u, 0x0004002bu, 0x0000002du,
    0x000001b3u, 0x00000009u, 0x0003001du, 0x000001e9u, 0x00000053u, 0x0003001eu, 0x000001eau, 0x000001e9u,
    0x00040020u, 0x000001ebu, 0x0000000cu, 0x000001eau, 0x0004003bu, 0x000001ebu, 0x000001ecu, 0x0000000cu,
    0x0006002cu, 0x00000009u, 0x000001feu, 0x0000001bu, 0x0000001bu, 0x00000016u, 0x00050036u, 0x00000002u,
    0x00000004u, 0x00000000u, 0x00000003u, 0x000200f8u, 0x00000005u, 0x0004003bu, 0x00000056u, 0x00000057u,
    0x00000007u, 0x0004003bu, 0x0000012du, 0x0000012eu, 0x00000007u, 0x0004003bu, 0x0000012du, 0x00000134u,
    0x00000007u, 0x0004003bu, 0x00000141u, 0x00000142u, 0x00000007u, 0x0004003bu, 0x00000141u, 0x00000152u,
    0x00000007u, 0x00050041u, 0x0000000du, 0x0000000eu, 0x0000000bu, 0x0000000cu, 0x0004003du, 0x00000006u,
    0x0000000fu, 0x0000000eu, 0x00050041u, 0x0000000du, 0x00000013u, 0x00000011u, 0x00000012u, 0x0004003du,
    0x00000006u, 0x00000014u, 0x00000013u, 0x00050041u, 0x0000000du, 0x00000017u, 0x00000011u, 0x00000016u,
    0x0004003du, 0x00000006u, 0x00000018u, 0x00000017u, 0x00050084u, 0x00000006u, 0x0000001cu, 0x00000018u,
    0x0000001bu, 0x00050080u, 0x00000006u, 0x0000001eu, 0x0000001cu, 0x00000014u, 0x00050041u, 0x0000000du,
    0x00000020u, 0x0000000bu, 0x00000016u, 0x0004003du, 0x00000006u, 0x00000021u, 0x00000020u, 0x00050084u,
    0x00000006u, 0x00000024u, 0x00000021u, 0x00000023u, 0x00050041u, 0x0000000du, 0x00000026u, 0x0000000bu,
    0x00000012u, 0x0004003du, 0x00000006u, 0x00000027u, 0x00000026u, 0x00050084u, 0x00000006u, 0x00000028u,
    0x00000027u, 0x00000023u, 0x00050041u, 0x0000002fu, 0x00000030u, 0x0000002cu, 0x0000002eu, 0x0004003du,
    0x00000006u, 0x00000031u, 0x00000030u, 0x00050041u, 0x0000002fu, 0x00000034u, 0x0000002cu, 0x00000033u,
    0x0004003du, 0x00000006u, 0x00000035u, 0x00000034u, 0x00050084u, 0x00000006u, 0x00000036u, 0x0000000fu,
    0x00000035u, 0x00050080u, 0x00000006u, 0x00000037u, 0x00000031u, 0x00000036u, 0x00050041u, 0x0000002fu,
    0x0000003au, 0x0000002cu, 0x00000039u, 0x0004003du, 0x00000006u, 0x0000003bu, 0x0000003au, 0x00050041u,
    0x0000002fu, 0x0000003eu, 0x0000002cu, 0x0000003du, 0x0004003du, 0x00000006u, 0x0000003fu, 0x0000003eu,
    0x00050084u, 0x00000006u, 0x00000040u, 0x0000000fu, 0x0000003fu, 0x00050080u, 0x00000006u, 0x00000041u,
    0x0000003bu, 0x00000040u, 0x000200f9u, 0x00000043u, 0x000200f8u, 0x00000043u, 0x000700f5u, 0x00000006u,
    0x000001ffu, 0x00000012u, 0x00000005u, 0x00000061u, 0x00000046u, 0x000500b0u, 0x00000049u, 0x0000004au,
    0x000001ffu, 0x00000022u, 0x000400f6u, 0x00000045u, 0x00000046u, 0x00000000u, 0x000400fau, 0x0000004au,
    0x00000044u, 0x00000045u, 0x000200f8u, 0x00000044u, 0x000200f9u, 0x0000004cu, 0x000200f8u, 0x0000004cu,
    0x000700f5u, 0x00000006u, 0x0000022bu, 0x00000012u, 0x00000044u, 0x0000005fu, 0x0000004du, 0x000500b0u,
    0x00000049u, 0x00000052u, 0x0000022bu, 0x00000022u, 0x000400f6u, 0x0000004eu, 0x0000004du, 0x00000000u,
    0x000400fau, 0x00000052u, 0x0000004du, 0x0000004eu, 0x000200f8u, 0x0000004du, 0x00060041u, 0x0000005bu,
    0x0000005cu, 0x00000057u, 0x000001ffu, 0x0000022bu, 0x0003003eu, 0x0000005cu, 0x0000005au, 0x00050080u,
    0x00000006u, 0x0000005fu, 0x0000022bu, 0x0000005eu, 0x000200f9u, 0x0000004cu, 0x000200f8u, 0x0000004eu,
    0x000200f9u, 0x00000046u, 0x000200f8u, 0x00000046u, 0x00050080u, 0x00000006u, 0x00000061u, 0x000001ffu,
    0x0000005eu, 0x000200f9u, 0x00000043u, 0x000200f8u, 0x00000045u, 0x000200f9u, 0x00000063u, 0x000200f8u,
    0x00000063u, 0x000700f5u, 0x00000006u, 0x00000200u, 0x00000012u, 0x00000045u, 0x000001b1u, 0x00000066u,
    0x00050041u, 0x0000002fu, 0x0000006au, 0x0000002cu, 0x00000069u, 0x0004003du, 0x00000006u, 0x0000006bu,
    0x0000006au, 0x000500b0u, 0x00000049u, 0x0000006cu, 0x00000200u, 0x0000006bu, 0x000400f6u, 0x00000065u,
    0x00000066u, 0x00000000u, 0x000400fau, 0x0000006cu, 0x00000064u, 0x00000065u, 0x000200f8u, 0x00000064u,
    0x000200f9u, 0x0000006eu, 0x000200f8u, 0x0000006eu, 0x000700f5u, 0x00000006u, 0x00000205u, 0x00000012u,
    0x00000064u, 0x00000120u, 0x00000071u, 0x000500b0u, 0x00000049u, 0x00000074u, 0x00000205u, 0x00000022u,
    0x000400f6u, 0x00000070u, 0x00000071u, 0x00000000u, 0x000400fau, 0x00000074u, 0x0000006fu, 0x00000070u,
    0x000200f8u, 0x0000006fu, 0x00050084u, 0x00000006u, 0x00000079u, 0x00000077u, 0x00000205u, 0x00050080u,
    0x00000006u, 0x0000007au, 0x0000001eu, 0x00000079u, 0x00050041u, 0x0000002fu, 0x0000007cu, 0x0000002cu,
    0x0000007bu, 0x0004003du, 0x00000006u, 0x0000007du, 0x0000007cu, 0x000500abu, 0x00000049u, 0x0000007eu,
    0x0000007du, 0x00000012u, 0x000300f7u, 0x00000080u, 0x00000000u, 0x000400fau, 0x0000007eu, 0x0000007fu,
    0x00000087u, 0x000200f8u, 0x0000007fu, 0x00050089u, 0x00000006u, 0x00000083u, 0x0000007au, 0x00000023u,
    0x00050086u, 0x00000006u, 0x00000086u, 0x0000007au, 0x00000023u, 0x000200f9u, 0x00000080u, 0x000200f8u,
    0x00000087u, 0x00050089u, 0x00000006u, 0x00000089u, 0x0000007au, 0x0000001bu, 0x00050086u, 0x00000006u,
    0x0000008bu, 0x0000007au, 0x0000001bu, 0x000200f9u, 0x00000080u, 0x000200f8u, 0x00000080u, 0x000700f5u,
    0x00000006u, 0x00000218u, 0x00000086u, 0x0000007fu, 0x00000089u, 0x00000087u, 0x000700f5u, 0x00000006u,
    0x00000216u, 0x00000083u, 0x0000007fu, 0x0000008bu, 0x00000087u, 0x00050080u, 0x00000006u, 0x0000008fu,
    0x00000024u, 0x00000216u, 0x00050080u, 0x00000006u, 0x00000093u, 0x00000200u, 0x00000218u, 0x000500c2u,
    0x00000006u, 0x0000009eu, 0x00000216u, 0x0000000cu, 0x000500c7u, 0x00000006u, 0x000000a1u, 0x00000216u,
    0x000000a0u, 0x00050041u, 0x0000002fu, 0x000000a4u, 0x0000002cu, 0x000000a3u, 0x0004003du, 0x00000006u,
    0x000000a5u, 0x000000a4u, 0x000500b0u, 0x00000049u, 0x000000a6u, 0x0000008fu, 0x000000a5u, 0x000300f7u,
    0x000000a8u, 0x00000000u, 0x000400fau, 0x000000a6u, 0x000000a7u, 0x000000a8u, 0x000200f8u, 0x000000a7u,
    0x000500b0u, 0x00000049u, 0x000000acu, 0x00000093u, 0x0000006bu, 0x000200f9u, 0x000000a8u, 0x000200f8u,
    0x000000a8u, 0x000700f5u, 0x00000049u, 0x000000adu, 0x000000a6u, 0x00000080u, 0x000000acu, 0x000000a7u,
    0x000300f7u, 0x000000b0u, 0x00000000u, 0x000400fau, 0x000000adu, 0x000000afu, 0x000000ceu, 0x000200f8u,
    0x000000afu, 0x000300f7u, 0x000000bbu, 0x00000000u, 0x000400fau, 0x0000007eu, 0x000000bau, 0x000000c2u,
    0x000200f8u, 0x000000bau, 0x00050084u, 0x00000006u, 0x000000bfu, 0x00000093u, 0x000000a5u, 0x00050080u,
    0x00000006u, 0x000000c1u, 0x000000bfu, 0x0000008fu, 0x000200f9u, 0x000000bbu, 0x000200f8u, 0x000000c2u,
    0x00050084u, 0x00000006u, 0x000000c6u, 0x0000008fu, 0x0000006bu, 0x00050080u, 0x00000006u, 0x000000c8u,
    0x000000c6u, 0x00000093u, 0x000200f9u, 0x000000bbu, 0x000200f8u, 0x000000bbu, 0x000700f5u, 0x00000006u,
    0x00000219u, 0x000000c1u, 0x000000bau, 0x000000c8u, 0x000000c2u, 0x00050080u, 0x00000006u, 0x000000cau,
    0x00000037u, 0x00000219u, 0x00060041u, 0x000000cbu, 0x000000ccu, 0x000000b4u, 0x000000a3u, 0x000000cau,
    0x0004003du, 0x00000053u, 0x000000cdu, 0x000000ccu, 0x000200f9u, 0x000000b0u, 0x000200f8u, 0x000000ceu,
    0x000200f9u, 0x000000b0u, 0x000200f8u, 0x000000b0u, 0x000700f5u, 0x00000053u, 0x0000021au, 0x000000cdu,
    0x000000bbu, 0x0000005au, 0x000000ceu, 0x00070041u, 0x000000d0u, 0x000000d1u, 0x0000009bu, 0x00000218u,
    0x0000009eu, 0x000000a1u, 0x0003003eu, 0x000000d1u, 0x0000021au, 0x00050041u, 0x0000002fu, 0x000000d3u,
    0x0000002cu, 0x000000d2u, 0x0004003du, 0x00000006u, 0x000000d4u, 0x000000d3u, 0x000500abu, 0x00000049u,
    0x000000d5u, 0x000000d4u, 0x00000012u, 0x000300f7u, 0x000000d7u, 0x00000000u, 0x000400fau, 0x000000d5u,
    0x000000d6u, 0x000000deu, 0x000200f8u, 0x000000d6u, 0x00050089u, 0x00000006u, 0x000000dau, 0x0000007au,
    0x0000001bu, 0x00050086u, 0x00000006u, 0x000000ddu, 0x0000007au, 0x0000001bu, 0x000200f9u, 0x000000d7u,
    0x000200f8u, 0x000000deu, 0x00050089u, 0x00000006u, 0x000000e0u, 0x0000007au, 0x00000023u, 0x00050086u,
    0x00000006u, 0x000000e2u, 0x0000007au, 0x00000023u, 0x000200f9u, 0x000000d7u, 0x000200f8u, 0x000000d7u,
    0x000700f5u, 0x00000006u, 0x00000220u, 0x000000dau, 0x000000d6u, 0x000000e2u, 0x000000deu, 0x000700f5u,
    0x00000006u, 0x0000021bu, 0x000000ddu, 0x000000d6u, 0x000000e0u, 0x000000deu, 0x00050080u, 0x00000006u,
    0x000000e6u, 0x00000028u, 0x0000021bu, 0x00050080u, 0x00000006u, 0x000000eau, 0x00000200u, 0x00000220u,
    0x000500c2u, 0x00000006u, 0x000000f3u, 0x0000021bu, 0x0000000cu, 0x000500c7u, 0x00000006u, 0x000000f5u,
    0x0000021bu, 0x000000a0u, 0x00050041u, 0x0000002fu, 0x000000f7u, 0x0000002cu, 0x0000005eu, 0x0004003du,
    0x00000006u, 0x000000f8u, 0x000000f7u, 0x000500b0u, 0x00000049u, 0x000000f9u, 0x000000e6u, 0x000000f8u,
    0x000300f7u, 0x000000fbu, 0x00000000u, 0x000400fau, 0x000000f9u, 0x000000fau, 0x000000fbu, 0x000200f8u,
    0x000000fau, 0x000500b0u, 0x00000049u, 0x000000ffu, 0x000000eau, 0x0000006bu, 0x000200f9u, 0x000000fbu,
    0x000200f8u, 0x000000fbu, 0x000700f5u, 0x00000049u, 0x00000100u, 0x000000f9u, 0x000000d7u, 0x000000ffu,
    0x000000fau, 0x000300f7u, 0x00000103u, 0x00000000u, 0x000400fau, 0x00000100u, 0x00000102u, 0x0000011cu,
    0x000200f8u, 0x00000102u, 0x000300f7u, 0x0000010au, 0x00000000u, 0x000400fau, 0x000000d5u, 0x00000109u,
    0x00000111u, 0x000200f8u, 0x00000109u, 0x00050084u, 0x00000006u, 0x0000010eu, 0x000000e6u, 0x0000006bu,
    0x00050080u, 0x00000006u, 0x00000110u, 0x0000010eu, 0x000000eau, 0x000200f9u, 0x0000010au, 0x000200f8u,
    0x00000111u, 0x00050084u, 0x00000006u, 0x00000115u, 0x000000eau, 0x000000f8u, 0x00050080u, 0x00000006u,
    0x00000117u, 0x00000115u, 0x000000e6u, 0x000200f9u, 0x0000010au, 0x000200f8u, 0x0000010au, 0x000700f5u,
    0x00000006u, 0x00000221u, 0x00000110u, 0x00000109u, 0x00000117u, 0x00000111u, 0x00050080u, 0x00000006u,
    0x00000119u, 0x00000041u, 0x00000221u, 0x00060041u, 0x000000cbu, 0x0000011au, 0x000000b4u, 0x000000a3u,
    0x00000119u, 0x0004003du, 0x00000053u, 0x0000011bu, 0x0000011au, 0x000200f9u, 0x00000103u, 0x000200f8u,
    0x0000011cu, 0x000200f9u, 0x00000103u, 0x000200f8u, 0x00000103u, 0x000700f5u, 0x00000053u, 0x00000222u,
    0x0000011bu, 0x0000010au, 0x0000005au, 0x0000011cu, 0x00070041u, 0x000000d0u, 0x0000011eu, 0x000000f0u,
    0x00000220u, 0x000000f3u, 0x000000f5u, 0x0003003eu, 0x0000011eu, 0x00000222u, 0x000200f9u, 0x00000071u,
    0x000200f8u, 0x00000071u, 0x00050080u, 0x00000006u, 0x00000120u, 0x00000205u, 0x0000005eu, 0x000200f9u,
    0x0000006eu, 0x000200f8u, 0x00000070u, 0x000400e0u, 0x0000000cu, 0x0000000cu, 0x00000121u, 0x000200f9u,
    0x00000123u, 0x000200f8u, 0x00000123u, 0x000700f5u, 0x00000006u, 0x00000206u, 0x00000012u, 0x00000070u,
    0x000001afu, 0x00000126u, 0x000500b0u, 0x00000049u, 0x00000129u, 0x00000206u, 0x0000001bu, 0x000400f6u,
    0x00000125u, 0x00000126u, 0x00000000u, 0x000400fau, 0x00000129u, 0x00000124u, 0x00000125u, 0x000200f8u,
    0x00000124u, 0x000300f7u, 0x0000012cu, 0x00000000u, 0x000400fau, 0x0000012au, 0x0000012bu, 0x0000015au,
    0x000200f8u, 0x0000012bu, 0x00060041u, 0x00000131u, 0x00000132u, 0x0000009bu, 0x00000206u, 0x00000018u,
    0x0004003du, 0x00000094u, 0x00000133u, 0x00000132u, 0x0003003eu, 0x0000012eu, 0x00000133u, 0x00060041u,
    0x00000131u, 0x00000137u, 0x000000f0u, 0x00000206u, 0x00000014u, 0x0004003du, 0x00000094u, 0x00000138u,
    0x00000137u, 0x0003003eu, 0x00000134u, 0x00000138u, 0x000200f9u, 0x0000013au, 0x000200f8u, 0x0000013au,
    0x000700f5u, 0x00000006u, 0x0000020du, 0x00000012u, 0x0000012bu, 0x00000149u, 0x0000013bu, 0x000500b0u,
    0x00000049u, 0x00000140u, 0x0000020du, 0x00000022u, 0x000400f6u, 0x0000013cu, 0x0000013bu, 0x00000000u,
    0x000400fau, 0x00000140u, 0x0000013bu, 0x0000013cu, 0x000200f8u, 0x0000013bu, 0x00050041u, 0x0000005bu,
    0x00000145u, 0x0000012eu, 0x0000020du, 0x0004003du, 0x00000053u, 0x00000146u, 0x00000145u, 0x00050041u,
    0x0000005bu, 0x00000147u, 0x00000142u, 0x0000020du, 0x0003003eu, 0x00000147u, 0x00000146u, 0x00050080u,
    0x00000006u, 0x00000149u, 0x0000020du, 0x0000005eu, 0x000200f9u, 0x0000013au, 0x000200f8u, 0x0000013cu,
    0x000200f9u, 0x0000014bu, 0x000200f8u, 0x0000014bu, 0x000700f5u, 0x00000006u, 0x0000020eu, 0x00000012u,
    0x0000013cu, 0x00000159u, 0x0000014cu, 0x000500b0u, 0x00000049u, 0x00000151u, 0x0000020eu, 0x00000022u,
    0x000400f6u, 0x0000014du, 0x0000014cu, 0x00000000u, 0x000400fau, 0x00000151u, 0x0000014cu, 0x0000014du,
    0x000200f8u, 0x0000014cu, 0x00050041u, 0x0000005bu, 0x00000155u, 0x00000134u, 0x0000020eu, 0x0004003du,
    0x00000053u, 0x00000156u, 0x00000155u, 0x00050041u, 0x0000005bu, 0x00000157u, 0x00000152u, 0x0000020eu,
    0x0003003eu, 0x00000157u, 0x00000156u, 0x00050080u, 0x00000006u, 0x00000159u, 0x0000020eu, 0x0000005eu,
    0x000200f9u, 0x0000014bu, 0x000200f8u, 0x0000014du, 0x000200f9u, 0x0000012cu, 0x000200f8u, 0x0000015au,
    0x000200f9u, 0x0000015cu, 0x000200f8u, 0x0000015cu, 0x000700f5u, 0x00000006u, 0x00000209u, 0x00000012u,
    0x0000015au, 0x00000173u, 0x0000015du, 0x000500b0u, 0x00000049u, 0x00000162u, 0x00000209u, 0x00000022u,
    0x000400f6u, 0x0000015eu, 0x0000015du, 0x00000000u, 0x000400fau, 0x00000162u, 0x0000015du, 0x0000015eu,
    0x000200f8u, 0x0000015du, 0x00050084u, 0x00000006u, 0x00000166u, 0x00000022u, 0x00000018u, 0x00050080u,
    0x00000006u, 0x00000168u, 0x00000166u, 0x00000209u, 0x000500c2u, 0x00000006u, 0x00000169u, 0x00000168u,
    0x0000000cu, 0x000500c7u, 0x00000006u, 0x0000016eu, 0x00000168u, 0x000000a0u, 0x00070041u, 0x000000d0u,
    0x0000016fu, 0x0000009bu, 0x00000206u, 0x00000169u, 0x0000016eu, 0x0004003du, 0x00000053u, 0x00000170u,
    0x0000016fu, 0x00050041u, 0x0000005bu, 0x00000171u, 0x00000142u, 0x00000209u, 0x0003003eu, 0x00000171u,
    0x00000170u, 0x00050080u, 0x00000006u, 0x00000173u, 0x00000209u, 0x0000005eu, 0x000200f9u, 0x0000015cu,
    0x000200f8u, 0x0000015eu, 0x000200f9u, 0x00000175u, 0x000200f8u, 0x00000175u, 0x000700f5u, 0x00000006u,
    0x0000020au, 0x00000012u, 0x0000015eu, 0x0000018cu, 0x00000176u, 0x000500b0u, 0x00000049u, 0x0000017bu,
    0x0000020au, 0x00000022u, 0x000400f6u, 0x00000177u, 0x00000176u, 0x00000000u, 0x000400fau, 0x0000017bu,
    0x00000176u, 0x00000177u, 0x000200f8u, 0x00000176u, 0x00050084u, 0x00000006u, 0x0000017fu, 0x00000022u,
    0x00000014u, 0x00050080u, 0x00000006u, 0x00000181u, 0x0000017fu, 0x0000020au, 0x000500c2u, 0x00000006u,
    0x00000182u, 0x00000181u, 0x0000000cu, 0x000500c7u, 0x00000006u, 0x00000187u, 0x00000181u, 0x000000a0u,
    0x00070041u, 0x000000d0u, 0x00000188u, 0x000000f0u, 0x00000206u, 0x00000182u, 0x00000187u, 0x0004003du,
    0x00000053u, 0x00000189u, 0x00000188u, 0x00050041u, 0x0000005bu, 0x0000018au, 0x00000152u, 0x0000020au,
    0x0003003eu, 0x0000018au, 0x00000189u, 0x00050080u, 0x00000006u, 0x0000018cu, 0x0000020au, 0x0000005eu,
    0x000200f9u, 0x00000175u, 0x000200f8u, 0x00000177u, 0x000200f9u, 0x0000012cu, 0x000200f8u, 0x0000012cu,
    0x000200f9u, 0x0000018eu, 0x000200f8u, 0x0000018eu, 0x000700f5u, 0x00000006u, 0x0000020fu, 0x00000012u,
    0x0000012cu, 0x000001adu, 0x00000191u, 0x000500b0u, 0x00000049u, 0x00000194u, 0x0000020fu, 0x00000022u,
    0x000400f6u, 0x00000190u, 0x00000191u, 0x00000000u, 0x000400fau, 0x00000194u, 0x0000018fu, 0x00000190u,
    0x000200f8u, 0x0000018fu, 0x000200f9u, 0x00000196u, 0x000200f8u, 0x00000196u, 0x000700f5u, 0x00000006u,
    0x00000214u, 0x00000012u, 0x0000018fu, 0x000001abu, 0x00000197u, 0x000500b0u, 0x00000049u, 0x0000019cu,
    0x00000214u, 0x00000022u, 0x000400f6u, 0x00000198u, 0x00000197u, 0x00000000u, 0x000400fau, 0x0000019cu,
    0x00000197u, 0x00000198u, 0x000200f8u, 0x00000197u, 0x00050041u, 0x0000005bu, 0x000001a0u, 0x00000142u,
    0x0000020fu, 0x0004003du, 0x00000053u, 0x000001a1u, 0x000001a0u, 0x00050041u, 0x0000005bu, 0x000001a3u,
    0x00000152u, 0x00000214u, 0x0004003du, 0x00000053u, 0x000001a4u, 0x000001a3u, 0x00060041u, 0x0000005bu,
    0x000001a6u, 0x00000057u, 0x0000020fu, 0x00000214u, 0x0004003du, 0x00000053u, 0x000001a7u, 0x000001a6u,
    0x0008000cu, 0x00000053u, 0x000001a8u, 0x00000001u, 0x00000032u, 0x000001a1u, 0x000001a4u, 0x000001a7u,
    0x0003003eu, 0x000001a6u, 0x000001a8u, 0x00050080u, 0x00000006u, 0x000001abu, 0x00000214u, 0x0000005eu,
    0x000200f9u, 0x00000196u, 0x000200f8u, 0x00000198u, 0x000200f9u, 0x00000191u, 0x000200f8u, 0x00000191u,
    0x00050080u, 0x00000006u, 0x000001adu, 0x0000020fu, 0x0000005eu, 0x000200f9u, 0x0000018eu, 0x000200f8u,
    0x00000190u, 0x000200f9u, 0x00000126u, 0x000200f8u, 0x00000126u, 0x00050080u, 0x00000006u, 0x000001afu,
    0x00000206u, 0x0000005eu, 0x000200f9u, 0x00000123u, 0x000200f8u, 0x00000125u, 0x000400e0u, 0x0000000cu,
    0x0000000cu, 0x00000121u, 0x000200f9u, 0x00000066u, 0x000200f8u, 0x00000066u, 0x00050080u, 0x00000006u,
    0x000001b1u, 0x00000200u, 0x0000001bu, 0x000200f9u, 0x00000063u, 0x000200f8u, 0x00000065u, 0x00050041u,
    0x0000002fu, 0x000001b4u, 0x0000002cu, 0x000001b3u, 0x0004003du, 0x00000006u, 0x000001b5u, 0x000001b4u,
    0x00050041u, 0x0000002fu, 0x000001b7u, 0x0000002cu, 0x000000a3u, 0x0004003du, 0x00000006u, 0x000001b8u,
    0x000001b7u, 0x00050084u, 0x00000006u, 0x000001b9u, 0x0000000fu, 0x000001b8u, 0x00050041u, 0x0000002fu,
    0x000001bau, 0x0000002cu, 0x0000005eu, 0x0004003du, 0x00000006u, 0x000001bbu, 0x000001bau, 0x00050084u,
    0x00000006u, 0x000001bcu, 0x000001b9u, 0x000001bbu, 0x00050080u, 0x00000006u, 0x000001bdu, 0x000001b5u,
    0x000001bcu, 0x000200f9u, 0x000001bfu, 0x000200f8u, 0x000001bfu, 0x000700f5u, 0x00000006u, 0x00000201u,
    0x00000012u, 0x00000065u, 0x000001fdu, 0x000001c2u, 0x000500b0u, 0x00000049u, 0x000001c5u, 0x00000201u,
    0x00000022u, 0x000400f6u, 0x000001c1u, 0x000001c2u, 0x00000000u, 0x000400fau, 0x000001c5u, 0x000001c0u,
    0x000001c1u, 0x000200f8u, 0x000001c0u, 0x00050084u, 0x00000006u, 0x000001c9u, 0x00000022u, 0x00000018u,
    0x00050080u, 0x00000006u, 0x000001cau, 0x00000024u, 0x000001c9u, 0x00050080u, 0x00000006u, 0x000001ccu,
    0x000001cau, 0x00000201u, 0x000500aeu, 0x00000049u, 0x000001d0u, 0x000001ccu, 0x000001b8u, 0x000300f7u,
    0x000001d2u, 0x00000000u, 0x000400fau, 0x000001d0u, 0x000001d1u, 0x000001d2u, 0x000200f8u, 0x000001d1u,
    0x000200f9u, 0x000001c1u, 0x000200f8u, 0x000001d2u, 0x000200f9u, 0x000001d5u, 0x000200f8u, 0x000001d5u,
    0x000700f5u, 0x00000006u, 0x00000202u, 0x00000012u, 0x000001d2u, 0x000001fbu, 0x000001d8u, 0x000500b0u,
    0x00000049u, 0x000001dbu, 0x00000202u, 0x00000022u, 0x000400f6u, 0x000001d7u, 0x000001d8u, 0x00000000u,
    0x000400fau, 0x000001dbu, 0x000001d6u, 0x000001d7u, 0x000200f8u, 0x000001d6u, 0x00050084u, 0x00000006u,
    0x000001dfu, 0x00000022u, 0x00000014u, 0x00050080u, 0x00000006u, 0x000001e0u, 0x00000028u, 0x000001dfu,
    0x00050080u, 0x00000006u, 0x000001e2u, 0x000001e0u, 0x00000202u, 0x000500b0u, 0x00000049u, 0x000001e6u,
    0x000001e2u, 0x000001bbu, 0x000300f7u, 0x000001e8u, 0x00000000u, 0x000400fau, 0x000001e6u, 0x000001e7u,
    0x000001e8u, 0x000200f8u, 0x000001e7u, 0x00050084u, 0x00000006u, 0x000001f1u, 0x000001ccu, 0x000001bbu,
    0x00050080u, 0x00000006u, 0x000001f2u, 0x000001bdu, 0x000001f1u, 0x00050080u, 0x00000006u, 0x000001f4u,
    0x000001f2u, 0x000001e2u, 0x00060041u, 0x0000005bu, 0x000001f7u, 0x00000057u, 0x00000201u, 0x00000202u,
    0x0004003du, 0x00000053u, 0x000001f8u, 0x000001f7u, 0x00060041u, 0x000000cbu, 0x000001f9u, 0x000001ecu,
    0x000000a3u, 0x000001f4u, 0x0003003eu, 0x000001f9u, 0x000001f8u, 0x000200f9u, 0x000001e8u, 0x000200f8u,
    0x000001e8u, 0x000200f9u, 0x000001d8u, 0x000200f8u, 0x000001d8u, 0x00050080u, 0x00000006u, 0x000001fbu,
    0x00000202u, 0x0000005eu, 0x000200f9u, 0x000001d5u, 0x000200f8u, 0x000001d7u, 0x000200f9u, 0x000001c2u,
    0x000200f8u, 0x000001c2u, 0x00050080u, 0x00000006u, 0x000001fdu, 0x00000201u, 0x0000005eu, 0x000200f9u,
    0x000001bfu, 0x000200f8u, 0x000001c1u, 0x000100fdu, 0x00010038u,
};
#define UMAP_VK__BINDINGS_reduce 2
#define UMAP_VK__PC_SIZE_reduce 60
#define UMAP_VK__PC_MEMBERS_reduce(X) \
    X(reduce, dim, 0, 16, U32, [0]) \
    X(reduce, stride, 16, 16, U32, [0]) \
    X(reduce, axes, 32, 4, U32, ) \
    X(reduce, n_out, 36, 4, U32, ) \
    X(reduce, count, 40, 4, U32, ) \
    X(reduce, op, 44, 4, U32, ) \
    X(reduce, src_base, 48, 4, U32, ) \
    X(reduce, dst_base, 52, 4, U32, ) \
    X(reduce, wide, 56, 4, U32, )
static const uint32_t umap_vk__spv_reduce[1400] = {
    0x07230203u, 0x00010300u, 0x000d000bu, 0x000001d1u, 0x00000000u, 0x00020011u, 0x00000001u, 0x0006000bu,
    0x00000001u, 0x4c534c47u, 0x6474732eu, 0x3035342eu, 0x00000000u, 0x0003000eu, 0x00000000u, 0x00000001u,
    0x0009000fu, 0x00000005u, 0x00000004u, 0x6e69616du, 0x00000000u, 0x00000051u, 0x00000057u, 0x0000005du,
    0x000000aau, 0x00060010u, 0x00000004u, 0x00000011u, 0x00000100u, 0x00000001u, 0x00000001u, 0x00040047u,
    0x0000001fu, 0x00000006u, 0x00000004u, 0x00040047u, 0x00000020u, 0x00000006u, 0x00000004u, 0x00050048u,
    0x00000021u, 0x00000000u, 0x00000023u, 0x00000000u, 0x00050048u, 0x00000021u, 0x00000001u, 0x00000023u,
    0x00000010u, 0x00050048u, 0x00000021u, 0x00000002u, 0x00000023u, 0x00000020u, 0x00050048u, 0x00000021u,
    0x00000003u, 0x00000023u, 0x00000024u, 0x00050048u, 0x00000021u, 0x00000004u, 0x00000023u, 0x00000028u,
    0x00050048u, 0x00000021u, 0x00000005u, 0x00000023u, 0x0000002cu, 0x00050048u, 0x00000021u, 0x00000006u,
    0x00000023u, 0x00000030u, 0x00050048u, 0x00000021u, 0x00000007u, 0x00000023u, 0x00000034u, 0x00050048u,
    0x00000021u, 0x00000008u, 0x00000023u, 0x00000038u, 0x00030047u, 0x00000021u, 0x00000002u, 0x00040047u,
    0x00000051u, 0x0000000bu, 0x0000001au, 0x00040047u, 0x00000057u, 0x0000000bu, 0x00000018u, 0x00040047u,
    0x0000005du, 0x0000000bu, 0x0000001cu, 0x00040047u, 0x000000aau, 0x0000000bu, 0x0000001bu, 0x00040047u,
    0x000000c1u, 0x00000006u, 0x00000004u, 0x00040048u, 0x000000c2u, 0x00000000u, 0x00000018u, 0x00050048u,
    0x000000c2u, 0x00000000u, 0x00000023u, 0x00000000u, 0x00030047u, 0x000000c2u, 0x00000002u, 0x00040047u,
    0x000000c4u, 0x00000022u, 0x00000000u, 0x00040047u, 0x000000c4u, 0x00000021u, 0x00000000u, 0x00040047u,
    0x00000166u, 0x00000006u, 0x00000004u, 0x00040048u, 0x00000167u, 0x00000000u, 0x00000019u, 0x00050048u,
    0x00000167u, 0x00000000u, 0x00000023u, 0x00000000u, 0x00030047u, 0x00000167u, 0x00000002u, 0x00040047u,
    0x00000169u, 0x00000022u, 0x00000000u, 0x00040047u, 0x00000169u, 0x00000021u, 0x00000001u, 0x00040047u,
    0x00000171u, 0x0000000bu, 0x00000019u, 0x00020013u, 0x00000002u, 0x00030021u, 0x00000003u, 0x00000002u,
    0x00040015u, 0x00000006u, 0x00000020u, 0x00000000u, 0x00040015u, 0x00000011u, 0x00000020u, 0x00000001u,
    0x0004002bu, 0x00000011u, 0x00000014u, 0x00000003u, 0x0004002bu, 0x00000011u, 0x0000001bu, 0x00000000u,
    0x00020014u, 0x0000001cu, 0x0004002bu, 0x00000006u, 0x0000001eu, 0x00000004u, 0x0004001cu, 0x0000001fu,
    0x00000006u, 0x0000001eu, 0x0004001cu, 0x00000020u, 0x00000006u, 0x0000001eu, 0x000b001eu, 0x00000021u,
    0x0000001fu, 0x00000020u, 0x00000006u, 0x00000006u, 0x00000006u, 0x00000006u, 0x00000006u, 0x00000006u,
    0x00000006u, 0x00040020u, 0x00000022u, 0x00000009u, 0x00000021u, 0x0004003bu, 0x00000022u, 0x00000023u,
    0x00000009u, 0x0004002bu, 0x00000011u, 0x00000024u, 0x00000002u, 0x00040020u, 0x00000025u, 0x00000009u,
    0x00000006u, 0x0004002bu, 0x00000006u, 0x00000028u, 0x00000001u, 0x0004002bu, 0x00000006u, 0x0000002du,
    0x00000000u, 0x0004002bu, 0x00000011u, 0x00000036u, 0x00000001u, 0x0004002bu, 0x00000011u, 0x00000048u,
    0x00000008u, 0x00040017u, 0x0000004fu, 0x00000006u, 0x00000003u, 0x00040020u, 0x00000050u, 0x00000001u,
    0x0000004fu, 0x0004003bu, 0x00000050u, 0x00000051u, 0x00000001u, 0x00040020u, 0x00000052u, 0x00000001u,
    0x00000006u, 0x0004003bu, 0x00000050u, 0x00000057u, 0x00000001u, 0x0004003bu, 0x00000050u, 0x0000005du,
    0x00000001u, 0x0004002bu, 0x00000006u, 0x00000065u, 0x00000100u, 0x0004002bu, 0x00000011u, 0x00000071u,
    0x00000006u, 0x00030016u, 0x00000099u, 0x00000020u, 0x0004002bu, 0x00000099u, 0x0000009cu, 0x00000000u,
    0x0003002au, 0x0000001cu, 0x000000a2u, 0x0004003bu, 0x00000050u, 0x000000aau, 0x00000001u, 0x0004002bu,
    0x00000011u, 0x000000bcu, 0x00000004u, 0x0003001du, 0x000000c1u, 0x00000099u, 0x0003001eu, 0x000000c2u,
    0x000000c1u, 0x00040020u, 0x000000c3u, 0x0000000cu, 0x000000c2u, 0x0004003bu, 0x000000c3u, 0x000000c4u,
    0x0000000cu, 0x00040020u, 0x000000cau, 0x0000000cu, 0x00000099u, 0x0004001cu, 0x000000e6u, 0x00000099u,
    0x00000065u, 0x00040020u, 0x000000e7u, 0x00000004u, 0x000000e6u, 0x0004003bu, 0x000000e7u, 0x000000e8u,
    0x00000004u, 0x00040020u, 0x000000ebu, 0x00000004u, 0x00000099u, 0x0004003bu, 0x000000e7u, 0x000000edu,
    0x00000004u, 0x0004001cu, 0x000000f1u, 0x0000001cu, 0x00000065u, 0x00040020u, 0x000000f2u, 0x00000004u,
    0x000000f1u, 0x0004003bu, 0x000000f2u, 0x000000f3u, 0x00000004u, 0x00040020u, 0x000000f6u, 0x00000004u,
    0x0000001cu, 0x0004002bu, 0x00000006u, 0x000000f8u, 0x00000002u, 0x0004002bu, 0x00000006u, 0x000000f9u,
    0x00000108u, 0x0004002bu, 0x00000006u, 0x000000fbu, 0x00000080u, 0x0004002bu, 0x00000011u, 0x00000146u,
    0x00000005u, 0x0003001du, 0x00000166u, 0x00000099u, 0x0003001eu, 0x00000167u, 0x00000166u, 0x00040020u,
    0x00000168u, 0x0000000cu, 0x00000167u, 0x0004003bu, 0x00000168u, 0x00000169u, 0x0000000cu, 0x0004002bu,
    0x00000011u, 0x0000016au, 0x00000007u, 0x0006002cu, 0x0000004fu, 0x00000171u, 0x00000065u, 0x00000028u,
    0x00000028u, 0x0004002bu, 0x00000099u, 0x000001ceu, 0xff800000u, 0x0004002bu, 0x00000099u, 0x000001cfu,
    0x7fc00000u, 0x00050036u, 0x00000002u, 0x00000004u, 0x00000000u, 0x00000003u, 0x000200f8u, 0x00000005u,
    0x000300f7u, 0x00000172u, 0x00000000u, 0x000300fbu, 0x0000002du, 0x00000173u, 0x000200f8u, 0x00000173u,
    0x00050041u, 0x00000025u, 0x00000049u, 0x00000023u, 0x00000048u, 0x0004003du, 0x00000006u, 0x0000004au,
    0x00000049u, 0x000500abu, 0x0000001cu, 0x0000004bu, 0x0000004au, 0x0000002du, 0x000300f7u, 0x0000004eu,
    0x00000000u, 0x000400fau, 0x0000004bu, 0x0000004du, 0x0000005cu, 0x000200f8u, 0x0000004du, 0x00050041u,
    0x00000052u, 0x00000053u, 0x00000051u, 0x0000002du, 0x0004003du, 0x00000006u, 0x00000054u, 0x00000053u,
    0x00050041u, 0x00000052u, 0x00000055u, 0x00000051u, 0x00000028u, 0x0004003du, 0x00000006u, 0x00000056u,
    0x00000055u, 0x00050041u, 0x00000052u, 0x00000058u, 0x00000057u, 0x0000002du, 0x0004003du, 0x00000006u,
    0x00000059u, 0x00000058u, 0x00050084u, 0x00000006u, 0x0000005au, 0x00000056u, 0x00000059u, 0x00050080u,
    0x00000006u, 0x0000005bu, 0x00000054u, 0x0000005au, 0x000200f9u, 0x0000004eu, 0x000200f8u, 0x0000005cu,
    0x00050041u, 0x00000052u, 0x0000005eu, 0x0000005du, 0x0000002du, 0x0004003du, 0x00000006u, 0x0000005fu,
    0x0000005eu, 0x00050041u, 0x00000052u, 0x00000060u, 0x0000005du, 0x00000028u, 0x0004003du, 0x00000006u,
    0x00000061u, 0x00000060u, 0x00050041u, 0x00000052u, 0x00000062u, 0x00000057u, 0x0000002du, 0x0004003du,
    0x00000006u, 0x00000063u, 0x00000062u, 0x00050084u, 0x00000006u, 0x00000064u, 0x00000061u, 0x00000063u,
    0x00050084u, 0x00000006u, 0x00000066u, 0x00000064u, 0x00000065u, 0x00050080u, 0x00000006u, 0x00000067u,
    0x0000005fu, 0x00000066u, 0x000200f9u, 0x0000004eu, 0x000200f8u, 0x0000004eu, 0x000700f5u, 0x00000006u,
    0x000001a0u, 0x0000005bu, 0x0000004du, 0x00000067u, 0x0000005cu, 0x00050041u, 0x00000025u, 0x0000006au,
    0x00000023u, 0x00000014u, 0x0004003du, 0x00000006u, 0x0000006bu, 0x0000006au, 0x000500aeu, 0x0000001cu,
    0x0000006cu, 0x000001a0u, 0x0000006bu, 0x000300f7u, 0x0000006eu, 0x00000000u, 0x000400fau, 0x0000006cu,
    0x0000006du, 0x0000006eu, 0x000200f8u, 0x0000006du, 0x000200f9u, 0x00000172u, 0x000200f8u, 0x0000006eu,
    0x00050041u, 0x00000025u, 0x00000072u, 0x00000023u, 0x00000071u, 0x0004003du, 0x00000006u, 0x00000073u,
    0x00000072u, 0x000200f9u, 0x00000077u, 0x000200f8u, 0x00000077u, 0x000700f5u, 0x00000006u, 0x000001c0u,
    0x000001a0u, 0x0000006eu, 0x000001cbu, 0x0000007au, 0x000700f5u, 0x00000006u, 0x000001b7u, 0x00000073u,
    0x0000006eu, 0x000001c2u, 0x0000007au, 0x000700f5u, 0x00000011u, 0x000001a1u, 0x00000014u, 0x0000006eu,
    0x00000098u, 0x0000007au, 0x000500afu, 0x0000001cu, 0x0000007du, 0x000001a1u, 0x0000001bu, 0x000400f6u,
    0x00000079u, 0x0000007au, 0x00000000u, 0x000400fau, 0x0000007du, 0x00000078u, 0x00000079u, 0x000200f8u,
    0x00000078u, 0x00050041u, 0x00000025u, 0x0000007eu, 0x00000023u, 0x00000024u, 0x0004003du, 0x00000006u,
    0x0000007fu, 0x0000007eu, 0x0004007cu, 0x00000006u, 0x00000081u, 0x000001a1u, 0x000500c4u, 0x00000006u,
    0x00000082u, 0x00000028u, 0x00000081u, 0x000500c7u, 0x00000006u, 0x00000083u, 0x0000007fu, 0x00000082u,
    0x000500aau, 0x0000001cu, 0x00000084u, 0x00000083u, 0x0000002du, 0x000300f7u, 0x00000086u, 0x00000000u,
    0x000400fau, 0x00000084u, 0x00000085u, 0x00000086u, 0x000200f8u, 0x00000085u, 0x00060041u, 0x00000025u,
    0x00000089u, 0x00000023u, 0x0000001bu, 0x000001a1u, 0x0004003du, 0x00000006u, 0x0000008au, 0x00000089u,
    0x00050089u, 0x00000006u, 0x0000008bu, 0x000001c0u, 0x0000008au, 0x00060041u, 0x00000025u, 0x0000008du,
    0x00000023u, 0x00000036u, 0x000001a1u, 0x0004003du, 0x00000006u, 0x0000008eu, 0x0000008du, 0x00050084u,
    0x00000006u, 0x0000008fu, 0x0000008bu, 0x0000008eu, 0x00050080u, 0x00000006u, 0x00000091u, 0x000001b7u,
    0x0000008fu, 0x00050086u, 0x00000006u, 0x00000096u, 0x000001c0u, 0x0000008au, 0x000200f9u, 0x00000086u,
    0x000200f8u, 0x00000086u, 0x000700f5u, 0x00000006u, 0x000001cbu, 0x000001c0u, 0x00000078u, 0x00000096u,
    0x00000085u, 0x000700f5u, 0x00000006u, 0x000001c2u, 0x000001b7u, 0x00000078u, 0x00000091u, 0x00000085u,
    0x000200f9u, 0x0000007au, 0x000200f8u, 0x0000007au, 0x00050082u, 0x00000011u, 0x00000098u, 0x000001a1u,
    0x00000036u, 0x000200f9u, 0x00000077u, 0x000200f8u, 0x00000079u, 0x000300f7u, 0x000000a9u, 0x00000000u,
    0x000400fau, 0x0000004bu, 0x000000a8u, 0x000000adu, 0x000200f8u, 0x000000a8u, 0x00050041u, 0x00000052u,
    0x000000abu, 0x000000aau, 0x0000002du, 0x0004003du, 0x00000006u, 0x000000acu, 0x000000abu, 0x000200f9u,
    0x000000a9u, 0x000200f8u, 0x000000adu, 0x000200f9u, 0x000000a9u, 0x000200f8u, 0x000000a9u, 0x000700f5u,
    0x00000006u, 0x000001a2u, 0x000000acu, 0x000000a8u, 0x0000002du, 0x000000adu, 0x000600a9u, 0x00000006u,
    0x000000b3u, 0x0000004bu, 0x00000065u, 0x00000028u, 0x000200f9u, 0x000000b6u, 0x000200f8u, 0x000000b6u,
    0x000700f5u, 0x0000001cu, 0x000001a8u, 0x000000a2u, 0x000000a9u, 0x000000d4u, 0x000000b9u, 0x000700f5u,
    0x00000099u, 0x000001a6u, 0x000001ceu, 0x000000a9u, 0x000000dau, 0x000000b9u, 0x000700f5u, 0x00000099u,
    0x000001a4u, 0x0000009cu, 0x000000a9u, 0x000000cfu, 0x000000b9u, 0x000700f5u, 0x00000006u, 0x000001a3u,
    0x000001a2u, 0x000000a9u, 0x000000ddu, 0x000000b9u, 0x00050041u, 0x00000025u, 0x000000bdu, 0x00000023u,
    0x000000bcu, 0x0004003du, 0x00000006u, 0x000000beu, 0x000000bdu, 0x000500b0u, 0x0000001cu, 0x000000bfu,
    0x000001a3u, 0x000000beu, 0x000400f6u, 0x000000b8u, 0x000000b9u, 0x00000000u, 0x000400fau, 0x000000bfu,
    0x000000b7u, 0x000000b8u, 0x000200f8u, 0x000000b7u, 0x000200f9u, 0x0000017du, 0x000200f8u, 0x0000017du,
    0x000700f5u, 0x00000006u, 0x000001beu, 0x000001a3u, 0x000000b7u, 0x000001cau, 0x0000019bu, 0x000700f5u,
    0x00000006u, 0x000001b9u, 0x000001b7u, 0x000000b7u, 0x000001c5u, 0x0000019bu, 0x000700f5u, 0x00000011u,
    0x000001b8u, 0x00000014u, 0x000000b7u, 0x0000019du, 0x0000019bu, 0x000500afu, 0x0000001cu, 0x00000180u,
    0x000001b8u, 0x0000001bu, 0x000400f6u, 0x0000019eu, 0x0000019bu, 0x00000000u, 0x000400fau, 0x00000180u,
    0x00000181u, 0x0000019eu, 0x000200f8u, 0x00000181u, 0x00050041u, 0x00000025u, 0x00000182u, 0x00000023u,
    0x00000024u, 0x0004003du, 0x00000006u, 0x00000183u, 0x00000182u, 0x0004007cu, 0x00000006u, 0x00000185u,
    0x000001b8u, 0x000500c4u, 0x00000006u, 0x00000186u, 0x00000028u, 0x00000185u, 0x000500c7u, 0x00000006u,
    0x00000187u, 0x00000183u, 0x00000186u, 0x000500abu, 0x0000001cu, 0x00000188u, 0x00000187u, 0x0000002du,
    0x000300f7u, 0x0000019au, 0x00000000u, 0x000400fau, 0x00000188u, 0x00000189u, 0x0000019au, 0x000200f8u,
    0x00000189u, 0x00060041u, 0x00000025u, 0x0000018cu, 0x00000023u, 0x0000001bu, 0x000001b8u, 0x0004003du,
    0x00000006u, 0x0000018du, 0x0000018cu, 0x00050089u, 0x00000006u, 0x0000018eu, 0x000001beu, 0x0000018du,
    0x00060041u, 0x00000025u, 0x00000190u, 0x00000023u, 0x00000036u, 0x000001b8u, 0x0004003du, 0x00000006u,
    0x00000191u, 0x00000190u, 0x00050084u, 0x00000006u, 0x00000192u, 0x0000018eu, 0x00000191u, 0x00050080u,
    0x00000006u, 0x00000194u, 0x000001b9u, 0x00000192u, 0x00050086u, 0x00000006u, 0x00000199u, 0x000001beu,
    0x0000018du, 0x000200f9u, 0x0000019au, 0x000200f8u, 0x0000019au, 0x000700f5u, 0x00000006u, 0x000001cau,
    0x000001beu, 0x00000181u, 0x00000199u, 0x00000189u, 0x000700f5u, 0x00000006u, 0x000001c5u, 0x000001b9u,
    0x00000181u, 0x00000194u, 0x00000189u, 0x000200f9u, 0x0000019bu, 0x000200f8u, 0x0000019bu, 0x00050082u,
    0x00000011u, 0x0000019du, 0x000001b8u, 0x00000036u, 0x000200f9u, 0x0000017du, 0x000200f8u, 0x0000019eu,
    0x00060041u, 0x000000cau, 0x000000cbu, 0x000000c4u, 0x0000001bu, 0x000001b9u, 0x0004003du, 0x00000099u,
    0x000000ccu, 0x000000cbu, 0x00050081u, 0x00000099u, 0x000000cfu, 0x000001a4u, 0x000000ccu, 0x000500b7u,
    0x0000001cu, 0x000000d3u, 0x000000ccu, 0x000000ccu, 0x000500a6u, 0x0000001cu, 0x000000d4u, 0x000001a8u,
    0x000000d3u, 0x000500bau, 0x0000001cu, 0x000000d7u, 0x000000ccu, 0x000001a6u, 0x000600a9u, 0x00000099u,
    0x000000dau, 0x000000d7u, 0x000000ccu, 0x000001a6u, 0x000200f9u, 0x000000b9u, 0x000200f8u, 0x000000b9u,
    0x00050080u, 0x00000006u, 0x000000ddu, 0x000001a3u, 0x000000b3u, 0x000200f9u, 0x000000b6u, 0x000200f8u,
    0x000000b8u, 0x000300f7u, 0x000000e2u, 0x00000000u, 0x000400fau, 0x0000004bu, 0x000000e1u, 0x000000e2u,
    0x000200f8u, 0x000000e1u, 0x00050041u, 0x00000052u, 0x000000e4u, 0x000000aau, 0x0000002du, 0x0004003du,
    0x00000006u, 0x000000e5u, 0x000000e4u, 0x00050041u, 0x000000ebu, 0x000000ecu, 0x000000e8u, 0x000000e5u,
    0x0003003eu, 0x000000ecu, 0x000001a4u, 0x00050041u, 0x000000ebu, 0x000000f0u, 0x000000edu, 0x000000e5u,
    0x0003003eu, 0x000000f0u, 0x000001a6u, 0x00050041u, 0x000000f6u, 0x000000f7u, 0x000000f3u, 0x000000e5u,
    0x0003003eu, 0x000000f7u, 0x000001a8u, 0x000400e0u, 0x000000f8u, 0x000000f8u, 0x000000f9u, 0x000200f9u,
    0x000000fcu, 0x000200f8u, 0x000000fcu, 0x000700f5u, 0x00000006u, 0x000001aau, 0x000000fbu, 0x000000e1u,
    0x00000139u, 0x000000ffu, 0x000500acu, 0x0000001cu, 0x00000102u, 0x000001aau, 0x0000002du, 0x000400f6u,
    0x000000feu, 0x000000ffu, 0x00000000u, 0x000400fau, 0x00000102u, 0x000000fdu, 0x000000feu, 0x000200f8u,
    0x000000fdu, 0x000500b0u, 0x0000001cu, 0x00000105u, 0x000000e5u, 0x000001aau, 0x000300f7u, 0x00000107u,
    0x00000000u, 0x000400fau, 0x00000105u, 0x00000106u, 0x00000107u, 0x000200f8u, 0x00000106u, 0x00050080u,
    0x00000006u, 0x0000010bu, 0x000000e5u, 0x000001aau, 0x00050041u, 0x000000ebu, 0x0000010cu, 0x000000e8u,
    0x0000010bu, 0x0004003du, 0x00000099u, 0x0000010du, 0x0000010cu, 0x0004003du, 0x00000099u, 0x0000010fu,
    0x000000ecu, 0x00050081u, 0x00000099u, 0x00000110u, 0x0000010fu, 0x0000010du, 0x0003003eu, 0x000000ecu,
    0x00000110u, 0x00050041u, 0x000000ebu, 0x00000116u, 0x000000edu, 0x0000010bu, 0x0004003du, 0x00000099u,
    0x00000117u, 0x00000116u, 0x0004003du, 0x00000099u, 0x0000011au, 0x000000f0u, 0x000500bau, 0x0000001cu,
    0x0000011bu, 0x00000117u, 0x0000011au, 0x000300f7u, 0x0000011eu, 0x00000000u, 0x000400fau, 0x0000011bu,
    0x0000011du, 0x00000124u, 0x000200f8u, 0x0000011du, 0x0004003du, 0x00000099u, 0x00000123u, 0x00000116u,
    0x000200f9u, 0x0000011eu, 0x000200f8u, 0x00000124u, 0x0004003du, 0x00000099u, 0x00000127u, 0x000000f0u,
    0x000200f9u, 0x0000011eu, 0x000200f8u, 0x0000011eu, 0x000700f5u, 0x00000099u, 0x000001b1u, 0x00000123u,
    0x0000011du, 0x00000127u, 0x00000124u, 0x0003003eu, 0x000000f0u, 0x000001b1u, 0x0004003du, 0x0000001cu,
    0x0000012du, 0x000000f7u, 0x000400a8u, 0x0000001cu, 0x0000012eu, 0x0000012du, 0x000300f7u, 0x00000130u,
    0x00000000u, 0x000400fau, 0x0000012eu, 0x0000012fu, 0x00000130u, 0x000200f8u, 0x0000012fu, 0x00050041u,
    0x000000f6u, 0x00000134u, 0x000000f3u, 0x0000010bu, 0x0004003du, 0x0000001cu, 0x00000135u, 0x00000134u,
    0x000200f9u, 0x00000130u, 0x000200f8u, 0x00000130u, 0x000700f5u, 0x0000001cu, 0x00000136u, 0x0000012du,
    0x0000011eu, 0x00000135u, 0x0000012fu, 0x0003003eu, 0x000000f7u, 0x00000136u, 0x000200f9u, 0x00000107u,
    0x000200f8u, 0x00000107u, 0x000400e0u, 0x000000f8u, 0x000000f8u, 0x000000f9u, 0x000200f9u, 0x000000ffu,
    0x000200f8u, 0x000000ffu, 0x000500c2u, 0x00000006u, 0x00000139u, 0x000001aau, 0x00000036u, 0x000200f9u,
    0x000000fcu, 0x000200f8u, 0x000000feu, 0x000500abu, 0x0000001cu, 0x0000013bu, 0x000000e5u, 0x0000002du,
    0x000300f7u, 0x0000013du, 0x00000000u, 0x000400fau, 0x0000013bu, 0x0000013cu, 0x0000013du, 0x000200f8u,
    0x0000013cu, 0x000200f9u, 0x00000172u, 0x000200f8u, 0x0000013du, 0x00050041u, 0x000000ebu, 0x0000013fu,
    0x000000e8u, 0x0000001bu, 0x0004003du, 0x00000099u, 0x00000140u, 0x0000013fu, 0x00050041u, 0x000000ebu,
    0x00000141u, 0x000000edu, 0x0000001bu, 0x0004003du, 0x00000099u, 0x00000142u, 0x00000141u, 0x00050041u,
    0x000000f6u, 0x00000143u, 0x000000f3u, 0x0000001bu, 0x0004003du, 0x0000001cu, 0x00000144u, 0x00000143u,
    0x000200f9u, 0x000000e2u, 0x000200f8u, 0x000000e2u, 0x000700f5u, 0x00000099u, 0x000001aeu, 0x000001a4u,
    0x000000b8u, 0x00000140u, 0x0000013du, 0x000700f5u, 0x00000099u, 0x000001acu, 0x000001a6u, 0x000000b8u,
    0x00000142u, 0x0000013du, 0x000700f5u, 0x0000001cu, 0x000001abu, 0x000001a8u, 0x000000b8u, 0x00000144u,
    0x0000013du, 0x00050041u, 0x00000025u, 0x00000147u, 0x00000023u, 0x00000146u, 0x0004003du, 0x00000006u,
    0x00000148u, 0x00000147u, 0x000500aau, 0x0000001cu, 0x00000149u, 0x00000148u, 0x0000002du, 0x000300f7u,
    0x0000014cu, 0x00000000u, 0x000400fau, 0x00000149u, 0x0000014bu, 0x0000014eu, 0x000200f8u, 0x0000014bu,
    0x000200f9u, 0x0000014cu, 0x000200f8u, 0x0000014eu, 0x000500aau, 0x0000001cu, 0x00000151u, 0x00000148u,
    0x00000028u, 0x000300f7u, 0x00000154u, 0x00000000u, 0x000400fau, 0x00000151u, 0x00000153u, 0x0000015au,
    0x000200f8u, 0x00000153u, 0x00040070u, 0x00000099u, 0x00000158u, 0x000000beu, 0x00050088u, 0x00000099u,
    0x00000159u, 0x000001aeu, 0x00000158u, 0x000200f9u, 0x00000154u, 0x000200f8u, 0x0000015au, 0x000600a9u,
    0x00000099u, 0x000001d0u, 0x000001abu, 0x000001cfu, 0x000001acu, 0x000200f9u, 0x00000154u, 0x000200f8u,
    0x00000154u, 0x000700f5u, 0x00000099u, 0x000001afu, 0x00000159u, 0x00000153u, 0x000001d0u, 0x0000015au,
    0x000200f9u, 0x0000014cu, 0x000200f8u, 0x0000014cu, 0x000700f5u, 0x00000099u, 0x000001b0u, 0x000001aeu,
    0x0000014bu, 0x000001afu, 0x00000154u, 0x00050041u, 0x00000025u, 0x0000016bu, 0x00000023u, 0x0000016au,
    0x0004003du, 0x00000006u, 0x0000016cu, 0x0000016bu, 0x00050080u, 0x00000006u, 0x0000016eu, 0x0000016cu,
    0x000001a0u, 0x00060041u, 0x000000cau, 0x00000170u, 0x00000169u, 0x0000001bu, 0x0000016eu, 0x0003003eu,
    0x00000170u, 0x000001b0u, 0x000200f9u, 0x00000172u, 0x000200f8u, 0x00000172u, 0x000100fdu, 0x00010038u,
};
#define UMAP_VK__BINDINGS_refine 5
#define UMAP_VK__PC_SIZE_refine 40
#define UMAP_VK__PC_MEMBERS_refine(X) \
    X(refine, key, 0, 8, U32, [0]) \
    X(refine, n, 8, 4, U32, ) \
    X(refine, c, 12, 4, U32, ) \
    X(refine, neg, 16, 4, U32, ) \
    X(refine, a, 20, 4, F32, ) \
    X(refine, b, 24, 4, F32, ) \
    X(refine, gamma, 28, 4, F32, ) \
    X(refine, attraction, 32, 4, F32, ) \
    X(refine, lr, 36, 4, F32, )
static const uint32_t umap_vk__spv_refine[2686] = {
    0x07230203u, 0x00010300u, 0x000d000bu, 0x00000538u, 0x00000000u, 0x00020011u, 0x00000001u, 0x0006000bu,
    0x00000001u, 0x4c534c47u, 0x6474732eu, 0x3035342eu, 0x00000000u, 0x0003000eu, 0x00000000u, 0x00000001u,
    0x0007000fu, 0x00000005u, 0x00000004u, 0x6e69616du, 0x00000000u, 0x00000124u, 0x0000012au, 0x00060010u,
    0x00000004u, 0x00000011u, 0x00000100u, 0x00000001u, 0x00000001u, 0x00040047u, 0x00000124u, 0x0000000bu,
    0x0000001cu, 0x00040047u, 0x0000012au, 0x0000000bu, 0x00000018u, 0x00050048u, 0x00000132u, 0x00000000u,
    0x00000023u, 0x00000000u, 0x00050048u, 0x00000132u, 0x00000001u, 0x00000023u, 0x00000008u, 0x00050048u,
    0x00000132u, 0x00000002u, 0x00000023u, 0x0000000cu, 0x00050048u, 0x00000132u, 0x00000003u, 0x00000023u,
    0x00000010u, 0x00050048u, 0x00000132u, 0x00000004u, 0x00000023u, 0x00000014u, 0x00050048u, 0x00000132u,
    0x00000005u, 0x00000023u, 0x00000018u, 0x00050048u, 0x00000132u, 0x00000006u, 0x00000023u, 0x0000001cu,
    0x00050048u, 0x00000132u, 0x00000007u, 0x00000023u, 0x00000020u, 0x00050048u, 0x00000132u, 0x00000008u,
    0x00000023u, 0x00000024u, 0x00030047u, 0x00000132u, 0x00000002u, 0x00040047u, 0x00000161u, 0x00000006u,
    0x00000004u, 0x00040048u, 0x00000162u, 0x00000000u, 0x00000018u, 0x00050048u, 0x00000162u, 0x00000000u,
    0x00000023u, 0x00000000u, 0x00030047u, 0x00000162u, 0x00000002u, 0x00040047u, 0x00000164u, 0x00000022u,
    0x00000000u, 0x00040047u, 0x00000164u, 0x00000021u, 0x00000000u, 0x00040047u, 0x00000174u, 0x00000006u,
    0x00000004u, 0x00040048u, 0x00000175u, 0x00000000u, 0x00000018u, 0x00050048u, 0x00000175u, 0x00000000u,
    0x00000023u, 0x00000000u, 0x00030047u, 0x00000175u, 0x00000002u, 0x00040047u, 0x00000177u, 0x00000022u,
    0x00000000u, 0x00040047u, 0x00000177u, 0x00000021u, 0x00000002u, 0x00040047u, 0x00000194u, 0x00000006u,
    0x00000004u, 0x00040048u, 0x00000195u, 0x00000000u, 0x00000018u, 0x00050048u, 0x00000195u, 0x00000000u,
    0x00000023u, 0x00000000u, 0x00030047u, 0x00000195u, 0x00000002u, 0x00040047u, 0x00000197u, 0x00000022u,
    0x00000000u, 0x00040047u, 0x00000197u, 0x00000021u, 0x00000004u, 0x00040047u, 0x000001a0u, 0x00000006u,
    0x00000004u, 0x00040048u, 0x000001a1u, 0x00000000u, 0x00000018u, 0x00050048u, 0x000001a1u, 0x00000000u,
    0x00000023u, 0x00000000u, 0x00030047u, 0x000001a1u, 0x00000002u, 0x00040047u, 0x000001a3u, 0x00000022u,
    0x00000000u, 0x00040047u, 0x000001a3u, 0x00000021u, 0x00000003u, 0x00040047u, 0x0000028fu, 0x00000006u,
    0x00000004u, 0x00040048u, 0x00000290u, 0x00000000u, 0x00000019u, 0x00050048u, 0x00000290u, 0x00000000u,
    0x00000023u, 0x00000000u, 0x00030047u, 0x00000290u, 0x00000002u, 0x00040047u, 0x00000292u, 0x00000022u,
    0x00000000u, 0x00040047u, 0x00000292u, 0x00000021u, 0x00000001u, 0x00040047u, 0x000002a5u, 0x0000000bu,
    0x00000019u, 0x00020013u, 0x00000002u, 0x00030021u, 0x00000003u, 0x00000002u, 0x00040015u, 0x00000006u,
    0x00000020u, 0x00000000u, 0x00040017u, 0x00000007u, 0x00000006u, 0x00000002u, 0x00030016u, 0x0000001cu,
    0x00000020u, 0x00040020u, 0x0000001du, 0x00000007u, 0x0000001cu, 0x0004002bu, 0x00000006u, 0x00000028u,
    0x00000000u, 0x0004001eu, 0x0000002eu, 0x00000006u, 0x00000006u, 0x0004002bu, 0x00000006u, 0x00000033u,
    0x00000001u, 0x0004002bu, 0x00000006u, 0x0000006cu, 0x7f4a7c15u, 0x0004002bu, 0x00000006u, 0x0000006du,
    0x9e3779b9u, 0x0004002bu, 0x00000006u, 0x00000073u, 0x0000001eu, 0x0004002bu, 0x00000006u, 0x00000078u,
    0x1ce4e5b9u, 0x0004002bu, 0x00000006u, 0x00000079u, 0xbf58476du, 0x0004002bu, 0x00000006u, 0x0000007eu,
    0x0000001bu, 0x0004002bu, 0x00000006u, 0x00000083u, 0x133111ebu, 0x0004002bu, 0x00000006u, 0x00000084u,
    0x94d049bbu, 0x0004002bu, 0x00000006u, 0x00000089u, 0x0000001fu, 0x00040015u, 0x00000095u, 0x00000020u,
    0x00000001u, 0x0004002bu, 0x00000095u, 0x00000096u, 0x00000017u, 0x0004002bu, 0x00000095u, 0x00000099u,
    0x0000007fu, 0x0004002bu, 0x00000006u, 0x0000009eu, 0x007fffffu, 0x0004002bu, 0x00000006u, 0x000000a0u,
    0x3f800000u, 0x00020014u, 0x000000a3u, 0x0004002bu, 0x0000001cu, 0x000000a7u, 0x3fb504f3u, 0x0004002bu,
    0x0000001cu, 0x000000aeu, 0x3f000000u, 0x0004002bu, 0x0000001cu, 0x000000b4u, 0x3f800000u, 0x0004002bu,
    0x0000001cu, 0x000000b7u, 0x00000000u, 0x0004002bu, 0x0000001cu, 0x000000bfu, 0x3fb8aaa0u, 0x0004002bu,
    0x0000001cu, 0x000000c1u, 0xbf38998bu, 0x0004002bu, 0x0000001cu, 0x000000c3u, 0x3ef5a090u, 0x0004002bu,
    0x0000001cu, 0x000000c5u, 0xbebc872du, 0x0004002bu, 0x0000001cu, 0x000000c7u, 0x3ea2cb33u, 0x0004002bu,
    0x0000001cu, 0x000000c9u, 0xbe4b5fddu, 0x0004002bu, 0x0000001cu, 0x000000d8u, 0x42fc0000u, 0x0004002bu,
    0x0000001cu, 0x000000dfu, 0xc2fc0000u, 0x0004002bu, 0x00000095u, 0x000000ecu, 0x00000001u, 0x0004002bu,
    0x00000095u, 0x000000edu, 0x00000000u, 0x0004002bu, 0x0000001cu, 0x000000f7u, 0x3f7ffffcu, 0x0004002bu,
    0x0000001cu, 0x000000f9u, 0x3f3172b9u, 0x0004002bu, 0x0000001cu, 0x000000fbu, 0x3e75e515u, 0x0004002bu,
    0x0000001cu, 0x000000fdu, 0x3d64ded2u, 0x0004002bu, 0x0000001cu, 0x000000ffu, 0x3c127b83u, 0x0004002bu,
    0x0000001cu, 0x00000101u, 0x3af84cd8u, 0x0004002bu, 0x0000001cu, 0x00000116u, 0x40800000u, 0x0004002bu,
    0x0000001cu, 0x0000011bu, 0xc0800000u, 0x00040017u, 0x00000122u, 0x00000006u, 0x00000003u, 0x00040020u,
    0x00000123u, 0x00000001u, 0x00000122u, 0x0004003bu, 0x00000123u, 0x00000124u, 0x00000001u, 0x00040020u,
    0x00000125u, 0x00000001u, 0x00000006u, 0x0004003bu, 0x00000123u, 0x0000012au, 0x00000001u, 0x0004002bu,
    0x00000006u, 0x0000012eu, 0x00000100u, 0x000b001eu, 0x00000132u, 0x00000007u, 0x00000006u, 0x00000006u,
    0x00000006u, 0x0000001cu, 0x0000001cu, 0x0000001cu, 0x0000001cu, 0x0000001cu, 0x00040020u, 0x00000133u,
    0x00000009u, 0x00000132u, 0x0004003bu, 0x00000133u, 0x00000134u, 0x00000009u, 0x00040020u, 0x00000135u,
    0x00000009u, 0x00000006u, 0x0004002bu, 0x00000095u, 0x0000013du, 0x00000002u, 0x0004002bu, 0x0000001cu,
    0x00000141u, 0x40000000u, 0x0004002bu, 0x00000095u, 0x00000142u, 0x00000004u, 0x00040020u, 0x00000143u,
    0x00000009u, 0x0000001cu, 0x0004002bu, 0x00000095u, 0x00000147u, 0x00000005u, 0x0004002bu, 0x00000095u,
    0x0000014cu, 0x00000006u, 0x0004002bu, 0x00000006u, 0x0000015cu, 0x00000008u, 0x0004001cu, 0x0000015du,
    0x0000001cu, 0x0000015cu, 0x00040020u, 0x0000015eu, 0x00000007u, 0x0000015du, 0x0003001du, 0x00000161u,
    0x0000001cu, 0x0003001eu, 0x00000162u, 0x00000161u, 0x00040020u, 0x00000163u, 0x0000000cu, 0x00000162u,
    0x0004003bu, 0x00000163u, 0x00000164u, 0x0000000cu, 0x00040020u, 0x0000016au, 0x0000000cu, 0x0000001cu,
    0x0003001du, 0x00000174u, 0x00000006u, 0x0003001eu, 0x00000175u, 0x00000174u, 0x00040020u, 0x00000176u,
    0x0000000cu, 0x00000175u, 0x0004003bu, 0x00000176u, 0x00000177u, 0x0000000cu, 0x00040020u, 0x00000179u,
    0x0000000cu, 0x00000006u, 0x00040020u, 0x00000188u, 0x00000009u, 0x00000007u, 0x0004002bu, 0x00000095u,
    0x00000192u, 0x00000008u, 0x0003001du, 0x00000194u, 0x00000006u, 0x0003001eu, 0x00000195u, 0x00000194u,
    0x00040020u, 0x00000196u, 0x0000000cu, 0x00000195u, 0x0004003bu, 0x00000196u, 0x00000197u, 0x0000000cu,
    0x0003001du, 0x000001a0u, 0x00000006u, 0x0003001eu, 0x000001a1u, 0x000001a0u, 0x00040020u, 0x000001a2u,
    0x0000000cu, 0x000001a1u, 0x0004003bu, 0x000001a2u, 0x000001a3u, 0x0000000cu, 0x0004002bu, 0x00000095u,
    0x000001e6u, 0x00000007u, 0x0004002bu, 0x00000095u, 0x00000206u, 0x00000003u, 0x0004002bu, 0x0000001cu,
    0x00000243u, 0x3a83126fu, 0x0003001du, 0x0000028fu, 0x0000001cu, 0x0003001eu, 0x00000290u, 0x0000028fu,
    0x00040020u, 0x00000291u, 0x0000000cu, 0x00000290u, 0x0004003bu, 0x00000291u, 0x00000292u, 0x0000000cu,
    0x0006002cu, 0x00000122u, 0x000002a5u, 0x0000012eu, 0x00000033u, 0x00000033u, 0x0004002bu, 0x00000006u,
    0x00000536u, 0x00000002u, 0x0004002bu, 0x00000006u, 0x00000537u, 0x00000005u, 0x00050036u, 0x00000002u,
    0x00000004u, 0x00000000u, 0x00000003u, 0x000200f8u, 0x00000005u, 0x0004003bu, 0x0000015eu, 0x0000015fu,
    0x00000007u, 0x0004003bu, 0x0000015eu, 0x0000016eu, 0x00000007u, 0x000300f7u, 0x000002a6u, 0x00000000u,
    0x000300fbu, 0x00000028u, 0x000002a7u, 0x000200f8u, 0x000002a7u, 0x00050041u, 0x00000125u, 0x00000126u,
    0x00000124u, 0x00000028u, 0x0004003du, 0x00000006u, 0x00000127u, 0x00000126u, 0x00050041u, 0x00000125u,
    0x00000128u, 0x00000124u, 0x00000033u, 0x0004003du, 0x00000006u, 0x00000129u, 0x00000128u, 0x00050041u,
    0x00000125u, 0x0000012bu, 0x0000012au, 0x00000028u, 0x0004003du, 0x00000006u, 0x0000012cu, 0x0000012bu,
    0x00050084u, 0x00000006u, 0x0000012du, 0x00000129u, 0x0000012cu, 0x00050084u, 0x00000006u, 0x0000012fu,
    0x0000012du, 0x0000012eu, 0x00050080u, 0x00000006u, 0x00000130u, 0x00000127u, 0x0000012fu, 0x00050041u,
    0x00000135u, 0x00000136u, 0x00000134u, 0x000000ecu, 0x0004003du, 0x00000006u, 0x00000137u, 0x00000136u,
    0x000500aeu, 0x000000a3u, 0x00000138u, 0x00000130u, 0x00000137u, 0x000300f7u, 0x0000013au, 0x00000000u,
    0x000400fau, 0x00000138u, 0x00000139u, 0x0000013au, 0x000200f8u, 0x00000139u, 0x000200f9u, 0x000002a6u,
    0x000200f8u, 0x0000013au, 0x00050041u, 0x00000135u, 0x0000013eu, 0x00000134u, 0x0000013du, 0x0004003du,
    0x00000006u, 0x0000013fu, 0x0000013eu, 0x00050041u, 0x00000143u, 0x00000144u, 0x00000134u, 0x00000142u,
    0x0004003du, 0x0000001cu, 0x00000145u, 0x00000144u, 0x00050085u, 0x0000001cu, 0x00000146u, 0x00000141u,
    0x00000145u, 0x00050041u, 0x00000143u, 0x00000148u, 0x00000134u, 0x00000147u, 0x0004003du, 0x0000001cu,
    0x00000149u, 0x00000148u, 0x00050085u, 0x0000001cu, 0x0000014au, 0x00000146u, 0x00000149u, 0x00050041u,
    0x00000143u, 0x0000014du, 0x00000134u, 0x0000014cu, 0x0004003du, 0x0000001cu, 0x0000014eu, 0x0000014du,
    0x00050085u, 0x0000001cu, 0x0000014fu, 0x00000141u, 0x0000014eu, 0x00050085u, 0x0000001cu, 0x00000152u,
    0x0000014fu, 0x00000149u, 0x000200f9u, 0x00000154u, 0x000200f8u, 0x00000154u, 0x000700f5u, 0x00000006u,
    0x0000050eu, 0x00000028u, 0x0000013au, 0x00000172u, 0x00000155u, 0x000500b0u, 0x000000a3u, 0x0000015bu,
    0x0000050eu, 0x0000013fu, 0x000400f6u, 0x00000156u, 0x00000155u, 0x00000000u, 0x000400fau, 0x0000015bu,
    0x00000155u, 0x00000156u, 0x000200f8u, 0x00000155u, 0x00050084u, 0x00000006u, 0x00000167u, 0x00000130u,
    0x0000013fu, 0x00050080u, 0x00000006u, 0x00000169u, 0x00000167u, 0x0000050eu, 0x00060041u, 0x0000016au,
    0x0000016bu, 0x00000164u, 0x000000edu, 0x00000169u, 0x0004003du, 0x0000001cu, 0x0000016cu, 0x0000016bu,
    0x00050041u, 0x0000001du, 0x0000016du, 0x0000015fu, 0x0000050eu, 0x0003003eu, 0x0000016du, 0x0000016cu,
    0x00050041u, 0x0000001du, 0x00000170u, 0x0000016eu, 0x0000050eu, 0x0003003eu, 0x00000170u, 0x000000b7u,
    0x00050080u, 0x00000006u, 0x00000172u, 0x0000050eu, 0x000000ecu, 0x000200f9u, 0x00000154u, 0x000200f8u,
    0x00000156u, 0x00060041u, 0x00000179u, 0x0000017au, 0x00000177u, 0x000000edu, 0x00000130u, 0x0004003du,
    0x00000006u, 0x0000017bu, 0x0000017au, 0x000200f9u, 0x0000017cu, 0x000200f8u, 0x0000017cu, 0x000700f5u,
    0x00000006u, 0x0000050fu, 0x0000017bu, 0x00000156u, 0x00000285u, 0x0000017fu, 0x00050080u, 0x00000006u,
    0x00000183u, 0x00000130u, 0x00000033u, 0x00060041u, 0x00000179u, 0x00000184u, 0x00000177u, 0x000000edu,
    0x00000183u, 0x0004003du, 0x00000006u, 0x00000185u, 0x00000184u, 0x000500b0u, 0x000000a3u, 0x00000186u,
    0x0000050fu, 0x00000185u, 0x000400f6u, 0x0000017eu, 0x0000017fu, 0x00000000u, 0x000400fau, 0x00000186u,
    0x0000017du, 0x0000017eu, 0x000200f8u, 0x0000017du, 0x00050041u, 0x00000188u, 0x00000189u, 0x00000134u,
    0x000000edu, 0x0004003du, 0x00000007u, 0x0000018au, 0x00000189u, 0x00050050u, 0x00000007u, 0x0000018cu,
    0x0000050fu, 0x00000028u, 0x000500c6u, 0x00000007u, 0x0000018du, 0x0000018au, 0x0000018cu, 0x00050051u,
    0x00000006u, 0x000002c8u, 0x0000018du, 0x00000000u, 0x00050095u, 0x0000002eu, 0x000002cbu, 0x000002c8u,
    0x0000006cu, 0x00050051u, 0x00000006u, 0x000002ccu, 0x000002cbu, 0x00000001u, 0x00050051u, 0x00000006u,
    0x000002cdu, 0x000002cbu, 0x00000000u, 0x00050051u, 0x00000006u, 0x000002d0u, 0x0000018du, 0x00000001u,
    0x00050080u, 0x00000006u, 0x000002d3u, 0x000002d0u, 0x0000006du, 0x00050080u, 0x00000006u, 0x000002d5u,
    0x000002d3u, 0x000002ccu, 0x00050050u, 0x00000007u, 0x000002d6u, 0x000002cdu, 0x000002d5u, 0x000500c2u,
    0x00000006u, 0x000002ddu, 0x000002cdu, 0x00000073u, 0x000500c4u, 0x00000006u, 0x000002e2u, 0x000002d5u,
    0x00000536u, 0x000500c5u, 0x00000006u, 0x000002e3u, 0x000002ddu, 0x000002e2u, 0x000500c2u, 0x00000006u,
    0x000002e7u, 0x000002d5u, 0x00000073u, 0x00050050u, 0x00000007u, 0x000002e8u, 0x000002e3u, 0x000002e7u,
    0x000500c6u, 0x00000007u, 0x000002e9u, 0x000002d6u, 0x000002e8u, 0x00050051u, 0x00000006u, 0x000002efu,
    0x000002e9u, 0x00000000u, 0x00050097u, 0x0000002eu, 0x000002f2u, 0x000002efu, 0x00000078u, 0x00050051u,
    0x00000006u, 0x000002f3u, 0x000002f2u, 0x00000000u, 0x00050051u, 0x00000006u, 0x000002f4u, 0x000002f2u,
    0x00000001u, 0x00050084u, 0x00000006u, 0x000002fbu, 0x000002efu, 0x00000079u, 0x00050080u, 0x00000006u,
    0x000002fcu, 0x000002f4u, 0x000002fbu, 0x00050051u, 0x00000006u, 0x000002feu, 0x000002e9u, 0x00000001u,
    0x00050084u, 0x00000006u, 0x00000301u, 0x000002feu, 0x00000078u, 0x00050080u, 0x00000006u, 0x00000302u,
    0x000002fcu, 0x00000301u, 0x00050050u, 0x00000007u, 0x00000303u, 0x000002f3u, 0x00000302u, 0x000500c2u,
    0x00000006u, 0x0000030au, 0x000002f3u, 0x0000007eu, 0x000500c4u, 0x00000006u, 0x0000030fu, 0x00000302u,
    0x00000537u, 0x000500c5u, 0x00000006u, 0x00000310u, 0x0000030au, 0x0000030fu, 0x000500c2u, 0x00000006u,
    0x00000314u, 0x00000302u, 0x0000007eu, 0x00050050u, 0x00000007u, 0x00000315u, 0x00000310u, 0x00000314u,
    0x000500c6u, 0x00000007u, 0x00000316u, 0x00000303u, 0x00000315u, 0x00050051u, 0x00000006u, 0x0000031cu,
    0x00000316u, 0x00000000u, 0x00050097u, 0x0000002eu, 0x0000031fu, 0x0000031cu, 0x00000083u, 0x00050051u,
    0x00000006u, 0x00000320u, 0x0000031fu, 0x00000000u, 0x00050051u, 0x00000006u, 0x00000321u, 0x0000031fu,
    0x00000001u, 0x00050084u, 0x00000006u, 0x00000328u, 0x0000031cu, 0x00000084u, 0x00050080u, 0x00000006u,
    0x00000329u, 0x00000321u, 0x00000328u, 0x00050051u, 0x00000006u, 0x0000032bu, 0x00000316u, 0x00000001u,
    0x00050084u, 0x00000006u, 0x0000032eu, 0x0000032bu, 0x00000083u, 0x00050080u, 0x00000006u, 0x0000032fu,
    0x00000329u, 0x0000032eu, 0x00050050u, 0x00000007u, 0x00000330u, 0x00000320u, 0x0000032fu, 0x000500c2u,
    0x00000006u, 0x00000337u, 0x00000320u, 0x00000089u, 0x000500c4u, 0x00000006u, 0x0000033cu, 0x0000032fu,
    0x00000033u, 0x000500c5u, 0x00000006u, 0x0000033du, 0x00000337u, 0x0000033cu, 0x000500c2u, 0x00000006u,
    0x00000341u, 0x0000032fu, 0x00000089u, 0x00050050u, 0x00000007u, 0x00000342u, 0x0000033du, 0x00000341u,
    0x000500c6u, 0x00000007u, 0x00000343u, 0x00000330u, 0x00000342u, 0x00050051u, 0x00000006u, 0x00000191u,
    0x00000343u, 0x00000001u, 0x000500c2u, 0x00000006u, 0x00000193u, 0x00000191u, 0x00000192u, 0x00060041u,
    0x00000179u, 0x00000199u, 0x00000197u, 0x000000edu, 0x0000050fu, 0x0004003du, 0x00000006u, 0x0000019au,
    0x00000199u, 0x000500aeu, 0x000000a3u, 0x0000019bu, 0x00000193u, 0x0000019au, 0x000300f7u, 0x0000019du,
    0x00000000u, 0x000400fau, 0x0000019bu, 0x0000019cu, 0x0000019du, 0x000200f8u, 0x0000019cu, 0x000200f9u,
    0x0000017fu, 0x000200f8u, 0x0000019du, 0x00060041u, 0x00000179u, 0x000001a5u, 0x000001a3u, 0x000000edu,
    0x0000050fu, 0x0004003du, 0x00000006u, 0x000001a6u, 0x000001a5u, 0x000200f9u, 0x000001a9u, 0x000200f8u,
    0x000001a9u, 0x000700f5u, 0x0000001cu, 0x00000512u, 0x000000b7u, 0x0000019du, 0x000001c1u, 0x000001aau,
    0x000700f5u, 0x00000006u, 0x00000511u, 0x00000028u, 0x0000019du, 0x000001c3u, 0x000001aau, 0x000500b0u,
    0x000000a3u, 0x000001b0u, 0x00000511u, 0x0000013fu, 0x000400f6u, 0x000001abu, 0x000001aau, 0x00000000u,
    0x000400fau, 0x000001b0u, 0x000001aau, 0x000001abu, 0x000200f8u, 0x000001aau, 0x00050041u, 0x0000001du,
    0x000001b3u, 0x0000015fu, 0x00000511u, 0x0004003du, 0x0000001cu, 0x000001b4u, 0x000001b3u, 0x00050084u,
    0x00000006u, 0x000001b7u, 0x000001a6u, 0x0000013fu, 0x00050080u, 0x00000006u, 0x000001b9u, 0x000001b7u,
    0x00000511u, 0x00060041u, 0x0000016au, 0x000001bau, 0x00000164u, 0x000000edu, 0x000001b9u, 0x0004003du,
    0x0000001cu, 0x000001bbu, 0x000001bau, 0x00050083u, 0x0000001cu, 0x000001bcu, 0x000001b4u, 0x000001bbu,
    0x0008000cu, 0x0000001cu, 0x000001c1u, 0x00000001u, 0x00000032u, 0x000001bcu, 0x000001bcu, 0x00000512u,
    0x00050080u, 0x00000006u, 0x000001c3u, 0x00000511u, 0x000000ecu, 0x000200f9u, 0x000001a9u, 0x000200f8u,
    0x000001abu, 0x000500bau, 0x000000a3u, 0x000001c5u, 0x00000512u, 0x000000b7u, 0x000300f7u, 0x000001c7u,
    0x00000000u, 0x000400fau, 0x000001c5u, 0x000001c6u, 0x000001c7u, 0x000200f8u, 0x000001c6u, 0x0004007cu,
    0x00000006u, 0x00000352u, 0x00000512u, 0x000500c2u, 0x00000006u, 0x00000354u, 0x00000352u, 0x00000096u,
    0x0004007cu, 0x00000095u, 0x00000355u, 0x00000354u, 0x00050082u, 0x00000095u, 0x00000356u, 0x00000355u,
    0x00000099u, 0x0004006fu, 0x0000001cu, 0x00000357u, 0x00000356u, 0x000500c7u, 0x00000006u, 0x00000359u,
    0x00000352u, 0x0000009eu, 0x000500c5u, 0x00000006u, 0x0000035au, 0x00000359u, 0x000000a0u, 0x0004007cu,
    0x0000001cu, 0x0000035bu, 0x0000035au, 0x000500bau, 0x000000a3u, 0x0000035du, 0x0000035bu, 0x000000a7u,
    0x000300f7u, 0x00000364u, 0x00000000u, 0x000400fau, 0x0000035du, 0x0000035fu, 0x00000362u, 0x000200f8u,
    0x0000035fu, 0x00050085u, 0x0000001cu, 0x00000361u, 0x000000aeu, 0x0000035bu, 0x000200f9u, 0x00000364u,
    0x000200f8u, 0x00000362u, 0x000200f9u, 0x00000364u, 0x000200f8u, 0x00000364u, 0x000700f5u, 0x0000001cu,
    0x00000513u, 0x00000361u, 0x0000035fu, 0x0000035bu, 0x00000362u, 0x00050083u, 0x0000001cu, 0x00000366u,
    0x00000513u, 0x000000b4u, 0x000600a9u, 0x0000001cu, 0x00000368u, 0x0000035du, 0x000000b4u, 0x000000b7u,
    0x00050081u, 0x0000001cu, 0x0000036au, 0x00000357u, 0x00000368u, 0x0008000cu, 0x0000001cu, 0x00000374u,
    0x00000001u, 0x00000032u, 0x00000366u, 0x000000c9u, 0x000000c7u, 0x0008000cu, 0x0000001cu, 0x00000376u,
    0x00000001u, 0x00000032u, 0x00000366u, 0x00000374u, 0x000000c5u, 0x0008000cu, 0x0000001cu, 0x00000378u,
    0x00000001u, 0x00000032u, 0x00000366u, 0x00000376u, 0x000000c3u, 0x0008000cu, 0x0000001cu, 0x0000037au,
    0x00000001u, 0x00000032u, 0x00000366u, 0x00000378u, 0x000000c1u, 0x0008000cu, 0x0000001cu, 0x0000037cu,
    0x00000001u, 0x00000032u, 0x00000366u, 0x0000037au, 0x000000bfu, 0x0008000cu, 0x0000001cu, 0x0000037eu,
    0x00000001u, 0x00000032u, 0x00000366u, 0x0000037cu, 0x0000036au, 0x00050085u, 0x0000001cu, 0x0000037fu,
    0x00000149u, 0x0000037eu, 0x000500bau, 0x000000a3u, 0x00000381u, 0x0000037fu, 0x000000d8u, 0x000300f7u,
    0x00000388u, 0x00000000u, 0x000400fau, 0x00000381u, 0x00000382u, 0x00000383u, 0x000200f8u, 0x00000382u,
    0x000200f9u, 0x00000388u, 0x000200f8u, 0x00000383u, 0x000500b8u, 0x000000a3u, 0x00000385u, 0x0000037fu,
    0x000000dfu, 0x000600a9u, 0x0000001cu, 0x00000387u, 0x00000385u, 0x000000dfu, 0x0000037fu, 0x000200f9u,
    0x00000388u, 0x000200f8u, 0x00000388u, 0x000700f5u, 0x0000001cu, 0x00000515u, 0x000000d8u, 0x00000382u,
    0x00000387u, 0x00000383u, 0x0004006eu, 0x00000095u, 0x0000038bu, 0x00000515u, 0x0004006fu, 0x0000001cu,
    0x0000038du, 0x0000038bu, 0x000500bau, 0x000000a3u, 0x0000038fu, 0x0000038du, 0x00000515u, 0x000600a9u,
    0x00000095u, 0x00000390u, 0x0000038fu, 0x000000ecu, 0x000000edu, 0x00050082u, 0x00000095u, 0x00000392u,
    0x0000038bu, 0x00000390u, 0x0004006fu, 0x0000001cu, 0x00000395u, 0x00000392u, 0x00050083u, 0x0000001cu,
    0x00000396u, 0x00000515u, 0x00000395u, 0x0008000cu, 0x0000001cu, 0x0000039du, 0x00000001u, 0x00000032u,
    0x00000396u, 0x00000101u, 0x000000ffu, 0x0008000cu, 0x0000001cu, 0x0000039fu, 0x00000001u, 0x00000032u,
    0x00000396u, 0x0000039du, 0x000000fdu, 0x0008000cu, 0x0000001cu, 0x000003a1u, 0x00000001u, 0x00000032u,
    0x00000396u, 0x0000039fu, 0x000000fbu, 0x0008000cu, 0x0000001cu, 0x000003a3u, 0x00000001u, 0x00000032u,
    0x00000396u, 0x000003a1u, 0x000000f9u, 0x0008000cu, 0x0000001cu, 0x000003a5u, 0x00000001u, 0x00000032u,
    0x00000396u, 0x000003a3u, 0x000000f7u, 0x00050080u, 0x00000095u, 0x000003a8u, 0x00000392u, 0x00000099u,
    0x0004007cu, 0x00000006u, 0x000003a9u, 0x000003a8u, 0x000500c4u, 0x00000006u, 0x000003aau, 0x000003a9u,
    0x00000096u, 0x0004007cu, 0x0000001cu, 0x000003abu, 0x000003aau, 0x00050085u, 0x0000001cu, 0x000003acu,
    0x000003a5u, 0x000003abu, 0x0004007fu, 0x0000001cu, 0x000001d1u, 0x0000014au, 0x00050085u, 0x0000001cu,
    0x000001d3u, 0x000001d1u, 0x000003acu, 0x0008000cu, 0x0000001cu, 0x000001d9u, 0x00000001u, 0x00000032u,
    0x00000145u, 0x000003acu, 0x000000b4u, 0x00050085u, 0x0000001cu, 0x000001dau, 0x00000512u, 0x000001d9u,
    0x00050088u, 0x0000001cu, 0x000001dbu, 0x000001d3u, 0x000001dau, 0x000200f9u, 0x000001ddu, 0x000200f8u,
    0x000001ddu, 0x000700f5u, 0x00000006u, 0x00000518u, 0x00000028u, 0x00000388u, 0x000001feu, 0x000001deu,
    0x000500b0u, 0x000000a3u, 0x000001e4u, 0x00000518u, 0x0000013fu, 0x000400f6u, 0x000001dfu, 0x000001deu,
    0x00000000u, 0x000400fau, 0x000001e4u, 0x000001deu, 0x000001dfu, 0x000200f8u, 0x000001deu, 0x00050041u,
    0x00000143u, 0x000001e7u, 0x00000134u, 0x000001e6u, 0x0004003du, 0x0000001cu, 0x000001e8u, 0x000001e7u,
    0x00050041u, 0x0000001du, 0x000001ebu, 0x0000015fu, 0x00000518u, 0x0004003du, 0x0000001cu, 0x000001ecu,
    0x000001ebu, 0x00050084u, 0x00000006u, 0x000001efu, 0x000001a6u, 0x0000013fu, 0x00050080u, 0x00000006u,
    0x000001f1u, 0x000001efu, 0x00000518u, 0x00060041u, 0x0000016au, 0x000001f2u, 0x00000164u, 0x000000edu,
    0x000001f1u, 0x0004003du, 0x0000001cu, 0x000001f3u, 0x000001f2u, 0x00050083u, 0x0000001cu, 0x000001f4u,
    0x000001ecu, 0x000001f3u, 0x00050085u, 0x0000001cu, 0x000001f5u, 0x000001dbu, 0x000001f4u, 0x000500b8u,
    0x000000a3u, 0x000003b0u, 0x000001f5u, 0x00000116u, 0x000600a9u, 0x0000001cu, 0x000003b2u, 0x000003b0u,
    0x000001f5u, 0x00000116u, 0x000500bau, 0x000000a3u, 0x000003b4u, 0x000003b2u, 0x0000011bu, 0x000600a9u,
    0x0000001cu, 0x000003b6u, 0x000003b4u, 0x000003b2u, 0x0000011bu, 0x00050041u, 0x0000001du, 0x000001f9u,
    0x0000016eu, 0x00000518u, 0x0004003du, 0x0000001cu, 0x000001fau, 0x000001f9u, 0x0008000cu, 0x0000001cu,
    0x000001fbu, 0x00000001u, 0x00000032u, 0x000001e8u, 0x000003b6u, 0x000001fau, 0x0003003eu, 0x000001f9u,
    0x000001fbu, 0x00050080u, 0x00000006u, 0x000001feu, 0x00000518u, 0x000000ecu, 0x000200f9u, 0x000001ddu,
    0x000200f8u, 0x000001dfu, 0x000200f9u, 0x000001c7u, 0x000200f8u, 0x000001c7u, 0x000200f9u, 0x00000200u,
    0x000200f8u, 0x00000200u, 0x000700f5u, 0x00000006u, 0x00000519u, 0x00000028u, 0x000001c7u, 0x00000283u,
    0x00000203u, 0x00050041u, 0x00000135u, 0x00000207u, 0x00000134u, 0x00000206u, 0x0004003du, 0x00000006u,
    0x00000208u, 0x00000207u, 0x000500b0u, 0x000000a3u, 0x00000209u, 0x00000519u, 0x00000208u, 0x000400f6u,
    0x00000202u, 0x00000203u, 0x00000000u, 0x000400fau, 0x00000209u, 0x00000201u, 0x00000202u, 0x000200f8u,
    0x00000201u, 0x00050080u, 0x00000006u, 0x0000020bu, 0x00000519u, 0x00000033u, 0x00050051u, 0x00000006u,
    0x000003bcu, 0x00000343u, 0x00000000u, 0x00050095u, 0x0000002eu, 0x000003bfu, 0x000003bcu, 0x0000020bu,
    0x00050051u, 0x00000006u, 0x000003c0u, 0x000003bfu, 0x00000001u, 0x00050051u, 0x00000006u, 0x000003c1u,
    0x000003bfu, 0x00000000u, 0x00050080u, 0x00000006u, 0x000003c9u, 0x00000191u, 0x000003c0u, 0x00050095u,
    0x0000002eu, 0x000003ebu, 0x000003c1u, 0x0000006cu, 0x00050051u, 0x00000006u, 0x000003ecu, 0x000003ebu,
    0x00000001u, 0x00050051u, 0x00000006u, 0x000003edu, 0x000003ebu, 0x00000000u, 0x00050080u, 0x00000006u,
    0x000003f3u, 0x000003c9u, 0x0000006du, 0x00050080u, 0x00000006u, 0x000003f5u, 0x000003f3u, 0x000003ecu,
    0x00050050u, 0x00000007u, 0x000003f6u, 0x000003edu, 0x000003f5u, 0x000500c2u, 0x00000006u, 0x000003fdu,
    0x000003edu, 0x00000073u, 0x000500c4u, 0x00000006u, 0x00000402u, 0x000003f5u, 0x00000536u, 0x000500c5u,
    0x00000006u, 0x00000403u, 0x000003fdu, 0x00000402u, 0x000500c2u, 0x00000006u, 0x00000407u, 0x000003f5u,
    0x00000073u, 0x00050050u, 0x00000007u, 0x00000408u, 0x00000403u, 0x00000407u, 0x000500c6u, 0x00000007u,
    0x00000409u, 0x000003f6u, 0x00000408u, 0x00050051u, 0x00000006u, 0x0000040fu, 0x00000409u, 0x00000000u,
    0x00050097u, 0x0000002eu, 0x00000412u, 0x0000040fu, 0x00000078u, 0x00050051u, 0x00000006u, 0x00000413u,
    0x00000412u, 0x00000000u, 0x00050051u, 0x00000006u, 0x00000414u, 0x00000412u, 0x00000001u, 0x00050084u,
    0x00000006u, 0x0000041bu, 0x0000040fu, 0x00000079u, 0x00050080u, 0x00000006u, 0x0000041cu, 0x00000414u,
    0x0000041bu, 0x00050051u, 0x00000006u, 0x0000041eu, 0x00000409u, 0x00000001u, 0x00050084u, 0x00000006u,
    0x00000421u, 0x0000041eu, 0x00000078u, 0x00050080u, 0x00000006u, 0x00000422u, 0x0000041cu, 0x00000421u,
    0x00050050u, 0x00000007u, 0x00000423u, 0x00000413u, 0x00000422u, 0x000500c2u, 0x00000006u, 0x0000042au,
    0x00000413u, 0x0000007eu, 0x000500c4u, 0x00000006u, 0x0000042fu, 0x00000422u, 0x00000537u, 0x000500c5u,
    0x00000006u, 0x00000430u, 0x0000042au, 0x0000042fu, 0x000500c2u, 0x00000006u, 0x00000434u, 0x00000422u,
    0x0000007eu, 0x00050050u, 0x00000007u, 0x00000435u, 0x00000430u, 0x00000434u, 0x000500c6u, 0x00000007u,
    0x00000436u, 0x00000423u, 0x00000435u, 0x00050051u, 0x00000006u, 0x0000043cu, 0x00000436u, 0x00000000u,
    0x00050097u, 0x0000002eu, 0x0000043fu, 0x0000043cu, 0x00000083u, 0x00050051u, 0x00000006u, 0x00000440u,
    0x0000043fu, 0x00000000u, 0x00050051u, 0x00000006u, 0x00000441u, 0x0000043fu, 0x00000001u, 0x00050084u,
    0x00000006u, 0x00000448u, 0x0000043cu, 0x00000084u, 0x00050080u, 0x00000006u, 0x00000449u, 0x00000441u,
    0x00000448u, 0x00050051u, 0x00000006u, 0x0000044bu, 0x00000436u, 0x00000001u, 0x00050084u, 0x00000006u,
    0x0000044eu, 0x0000044bu, 0x00000083u, 0x00050080u, 0x00000006u, 0x0000044fu, 0x00000449u, 0x0000044eu,
    0x00050050u, 0x00000007u, 0x00000450u, 0x00000440u, 0x0000044fu, 0x000500c2u, 0x00000006u, 0x00000457u,
    0x00000440u, 0x00000089u, 0x000500c4u, 0x00000006u, 0x0000045cu, 0x0000044fu, 0x00000033u, 0x000500c5u,
    0x00000006u, 0x0000045du, 0x00000457u, 0x0000045cu, 0x000500c2u, 0x00000006u, 0x00000461u, 0x0000044fu,
    0x00000089u, 0x00050050u, 0x00000007u, 0x00000462u, 0x0000045du, 0x00000461u, 0x000500c6u, 0x00000007u,
    0x00000463u, 0x00000450u, 0x00000462u, 0x00050051u, 0x00000006u, 0x00000213u, 0x00000463u, 0x00000001u,
    0x00050097u, 0x0000002eu, 0x00000218u, 0x00000213u, 0x00000137u, 0x00050051u, 0x00000006u, 0x0000021au,
    0x00000218u, 0x00000001u, 0x000500aau, 0x000000a3u, 0x0000021du, 0x0000021au, 0x00000130u, 0x000300f7u,
    0x0000021fu, 0x00000000u, 0x000400fau, 0x0000021du, 0x0000021eu, 0x0000021fu, 0x000200f8u, 0x0000021eu,
    0x000200f9u, 0x00000203u, 0x000200f8u, 0x0000021fu, 0x000200f9u, 0x00000222u, 0x000200f8u, 0x00000222u,
    0x000700f5u, 0x0000001cu, 0x0000051bu, 0x000000b7u, 0x0000021fu, 0x0000023au, 0x00000223u, 0x000700f5u,
    0x00000006u, 0x0000051au, 0x00000028u, 0x0000021fu, 0x0000023cu, 0x00000223u, 0x000500b0u, 0x000000a3u,
    0x00000229u, 0x0000051au, 0x0000013fu, 0x000400f6u, 0x00000224u, 0x00000223u, 0x00000000u, 0x000400fau,
    0x00000229u, 0x00000223u, 0x00000224u, 0x000200f8u, 0x00000223u, 0x00050041u, 0x0000001du, 0x0000022cu,
    0x0000015fu, 0x0000051au, 0x0004003du, 0x0000001cu, 0x0000022du, 0x0000022cu, 0x00050084u, 0x00000006u,
    0x00000230u, 0x0000021au, 0x0000013fu, 0x00050080u, 0x00000006u, 0x00000232u, 0x00000230u, 0x0000051au,
    0x00060041u, 0x0000016au, 0x00000233u, 0x00000164u, 0x000000edu, 0x00000232u, 0x0004003du, 0x0000001cu,
    0x00000234u, 0x00000233u, 0x00050083u, 0x0000001cu, 0x00000235u, 0x0000022du, 0x00000234u, 0x0008000cu,
    0x0000001cu, 0x0000023au, 0x00000001u, 0x00000032u, 0x00000235u, 0x00000235u, 0x0000051bu, 0x00050080u,
    0x00000006u, 0x0000023cu, 0x0000051au, 0x000000ecu, 0x000200f9u, 0x00000222u, 0x000200f8u, 0x00000224u,
    0x000500bau, 0x000000a3u, 0x0000023eu, 0x0000051bu, 0x000000b7u, 0x000300f7u, 0x00000240u, 0x00000000u,
    0x000400fau, 0x0000023eu, 0x0000023fu, 0x00000271u, 0x000200f8u, 0x0000023fu, 0x00050081u, 0x0000001cu,
    0x00000245u, 0x00000243u, 0x0000051bu, 0x0004007cu, 0x00000006u, 0x00000472u, 0x0000051bu, 0x000500c2u,
    0x00000006u, 0x00000474u, 0x00000472u, 0x00000096u, 0x0004007cu, 0x00000095u, 0x00000475u, 0x00000474u,
    0x00050082u, 0x00000095u, 0x00000476u, 0x00000475u, 0x00000099u, 0x0004006fu, 0x0000001cu, 0x00000477u,
    0x00000476u, 0x000500c7u, 0x00000006u, 0x00000479u, 0x00000472u, 0x0000009eu, 0x000500c5u, 0x00000006u,
    0x0000047au, 0x00000479u, 0x000000a0u, 0x0004007cu, 0x0000001cu, 0x0000047bu, 0x0000047au, 0x000500bau,
    0x000000a3u, 0x0000047du, 0x0000047bu, 0x000000a7u, 0x000300f7u, 0x00000484u, 0x00000000u, 0x000400fau,
    0x0000047du, 0x0000047fu, 0x00000482u, 0x000200f8u, 0x0000047fu, 0x00050085u, 0x0000001cu, 0x00000481u,
    0x000000aeu, 0x0000047bu, 0x000200f9u, 0x00000484u, 0x000200f8u, 0x00000482u, 0x000200f9u, 0x00000484u,
    0x000200f8u, 0x00000484u, 0x000700f5u, 0x0000001cu, 0x0000051du, 0x00000481u, 0x0000047fu, 0x0000047bu,
    0x00000482u, 0x00050083u, 0x0000001cu, 0x00000486u, 0x0000051du, 0x000000b4u, 0x000600a9u, 0x0000001cu,
    0x00000488u, 0x0000047du, 0x000000b4u, 0x000000b7u, 0x00050081u, 0x0000001cu, 0x0000048au, 0x00000477u,
    0x00000488u, 0x0008000cu, 0x0000001cu, 0x00000494u, 0x00000001u, 0x00000032u, 0x00000486u, 0x000000c9u,
    0x000000c7u, 0x0008000cu, 0x0000001cu, 0x00000496u, 0x00000001u, 0x00000032u, 0x00000486u, 0x00000494u,
    0x000000c5u, 0x0008000cu, 0x0000001cu, 0x00000498u, 0x00000001u, 0x00000032u, 0x00000486u, 0x00000496u,
    0x000000c3u, 0x0008000cu, 0x0000001cu, 0x0000049au, 0x00000001u, 0x00000032u, 0x00000486u, 0x00000498u,
    0x000000c1u, 0x0008000cu, 0x0000001cu, 0x0000049cu, 0x00000001u, 0x00000032u, 0x00000486u, 0x0000049au,
    0x000000bfu, 0x0008000cu, 0x0000001cu, 0x0000049eu, 0x00000001u, 0x00000032u, 0x00000486u, 0x0000049cu,
    0x0000048au, 0x00050085u, 0x0000001cu, 0x0000049fu, 0x00000149u, 0x0000049eu, 0x000500bau, 0x000000a3u,
    0x000004a1u, 0x0000049fu, 0x000000d8u, 0x000300f7u, 0x000004a8u, 0x00000000u, 0x000400fau, 0x000004a1u,
    0x000004a2u, 0x000004a3u, 0x000200f8u, 0x000004a2u, 0x000200f9u, 0x000004a8u, 0x000200f8u, 0x000004a3u,
    0x000500b8u, 0x000000a3u, 0x000004a5u, 0x0000049fu, 0x000000dfu, 0x000600a9u, 0x0000001cu, 0x000004a7u,
    0x000004a5u, 0x000000dfu, 0x0000049fu, 0x000200f9u, 0x000004a8u, 0x000200f8u, 0x000004a8u, 0x000700f5u,
    0x0000001cu, 0x0000051fu, 0x000000d8u, 0x000004a2u, 0x000004a7u, 0x000004a3u, 0x0004006eu, 0x00000095u,
    0x000004abu, 0x0000051fu, 0x0004006fu, 0x0000001cu, 0x000004adu, 0x000004abu, 0x000500bau, 0x000000a3u,
    0x000004afu, 0x000004adu, 0x0000051fu, 0x000600a9u, 0x00000095u, 0x000004b0u, 0x000004afu, 0x000000ecu,
    0x000000edu, 0x00050082u, 0x00000095u, 0x000004b2u, 0x000004abu, 0x000004b0u, 0x0004006fu, 0x0000001cu,
    0x000004b5u, 0x000004b2u, 0x00050083u, 0x0000001cu, 0x000004b6u, 0x0000051fu, 0x000004b5u, 0x0008000cu,
    0x0000001cu, 0x000004bdu, 0x00000001u, 0x00000032u, 0x000004b6u, 0x00000101u, 0x000000ffu, 0x0008000cu,
    0x0000001cu, 0x000004bfu, 0x00000001u, 0x00000032u, 0x000004b6u, 0x000004bdu, 0x000000fdu, 0x0008000cu,
    0x0000001cu, 0x000004c1u, 0x00000001u, 0x00000032u, 0x000004b6u, 0x000004bfu, 0x000000fbu, 0x0008000cu,
    0x0000001cu, 0x000004c3u, 0x00000001u, 0x00000032u, 0x000004b6u, 0x000004c1u, 0x000000f9u, 0x0008000cu,
    0x0000001cu, 0x000004c5u, 0x00000001u, 0x00000032u, 0x000004b6u, 0x000004c3u, 0x000000f7u, 0x00050080u,
    0x00000095u, 0x000004c8u, 0x000004b2u, 0x00000099u, 0x0004007cu, 0x00000006u, 0x000004c9u, 0x000004c8u,
    0x000500c4u, 0x00000006u, 0x000004cau, 0x000004c9u, 0x00000096u, 0x0004007cu, 0x0000001cu, 0x000004cbu,
    0x000004cau, 0x00050085u, 0x0000001cu, 0x000004ccu, 0x000004c5u, 0x000004cbu, 0x0008000cu, 0x0000001cu,
    0x0000024fu, 0x00000001u, 0x00000032u, 0x00000145u, 0x000004ccu, 0x000000b4u, 0x00050085u, 0x0000001cu,
    0x00000250u, 0x00000245u, 0x0000024fu, 0x00050088u, 0x0000001cu, 0x00000251u, 0x00000152u, 0x00000250u,
    0x000200f9u, 0x00000253u, 0x000200f8u, 0x00000253u, 0x000700f5u, 0x00000006u, 0x00000520u, 0x00000028u,
    0x000004a8u, 0x00000270u, 0x00000254u, 0x000500b0u, 0x000000a3u, 0x0000025au, 0x00000520u, 0x0000013fu,
    0x000400f6u, 0x00000255u, 0x00000254u, 0x00000000u, 0x000400fau, 0x0000025au, 0x00000254u, 0x00000255u,
    0x000200f8u, 0x00000254u, 0x00050041u, 0x0000001du, 0x0000025eu, 0x0000015fu, 0x00000520u, 0x0004003du,
    0x0000001cu, 0x0000025fu, 0x0000025eu, 0x00050084u, 0x00000006u, 0x00000262u, 0x0000021au, 0x0000013fu,
    0x00050080u, 0x00000006u, 0x00000264u, 0x00000262u, 0x00000520u, 0x00060041u, 0x0000016au, 0x00000265u,
    0x00000164u, 0x000000edu, 0x00000264u, 0x0004003du, 0x0000001cu, 0x00000266u, 0x00000265u, 0x00050083u,
    0x0000001cu, 0x00000267u, 0x0000025fu, 0x00000266u, 0x00050085u, 0x0000001cu, 0x00000268u, 0x00000251u,
    0x00000267u, 0x000500b8u, 0x000000a3u, 0x000004d0u, 0x00000268u, 0x00000116u, 0x000600a9u, 0x0000001cu,
    0x000004d2u, 0x000004d0u, 0x00000268u, 0x00000116u, 0x000500bau, 0x000000a3u, 0x000004d4u, 0x000004d2u,
    0x0000011bu, 0x000600a9u, 0x0000001cu, 0x000004d6u, 0x000004d4u, 0x000004d2u, 0x0000011bu, 0x00050041u,
    0x0000001du, 0x0000026bu, 0x0000016eu, 0x00000520u, 0x0004003du, 0x0000001cu, 0x0000026cu, 0x0000026bu,
    0x00050081u, 0x0000001cu, 0x0000026du, 0x0000026cu, 0x000004d6u, 0x0003003eu, 0x0000026bu, 0x0000026du,
    0x00050080u, 0x00000006u, 0x00000270u, 0x00000520u, 0x000000ecu, 0x000200f9u, 0x00000253u, 0x000200f8u,
    0x00000255u, 0x000200f9u, 0x00000240u, 0x000200f8u, 0x00000271u, 0x000200f9u, 0x00000273u, 0x000200f8u,
    0x00000273u, 0x000700f5u, 0x00000006u, 0x0000051cu, 0x00000028u, 0x00000271u, 0x00000281u, 0x00000274u,
    0x000500b0u, 0x000000a3u, 0x0000027au, 0x0000051cu, 0x0000013fu, 0x000400f6u, 0x00000275u, 0x00000274u,
    0x00000000u, 0x000400fau, 0x0000027au, 0x00000274u, 0x00000275u, 0x000200f8u, 0x00000274u, 0x00050041u,
    0x0000001du, 0x0000027cu, 0x0000016eu, 0x0000051cu, 0x0004003du, 0x0000001cu, 0x0000027du, 0x0000027cu,
    0x00050081u, 0x0000001cu, 0x0000027eu, 0x0000027du, 0x00000116u, 0x0003003eu, 0x0000027cu, 0x0000027eu,
    0x00050080u, 0x00000006u, 0x00000281u, 0x0000051cu, 0x000000ecu, 0x000200f9u, 0x00000273u, 0x000200f8u,
    0x00000275u, 0x000200f9u, 0x00000240u, 0x000200f8u, 0x00000240u, 0x000200f9u, 0x00000203u, 0x000200f8u,
    0x00000203u, 0x00050080u, 0x00000006u, 0x00000283u, 0x00000519u, 0x000000ecu, 0x000200f9u, 0x00000200u,
    0x000200f8u, 0x00000202u, 0x000200f9u, 0x0000017fu, 0x000200f8u, 0x0000017fu, 0x00050080u, 0x00000006u,
    0x00000285u, 0x0000050fu, 0x000000ecu, 0x000200f9u, 0x0000017cu, 0x000200f8u, 0x0000017eu, 0x000200f9u,
    0x00000287u, 0x000200f8u, 0x00000287u, 0x000700f5u, 0x00000006u, 0x00000510u, 0x00000028u, 0x0000017eu,
    0x000002a4u, 0x00000288u, 0x000500b0u, 0x000000a3u, 0x0000028eu, 0x00000510u, 0x0000013fu, 0x000400f6u,
    0x00000289u, 0x00000288u, 0x00000000u, 0x000400fau, 0x0000028eu, 0x00000288u, 0x00000289u, 0x000200f8u,
    0x00000288u, 0x00050084u, 0x00000006u, 0x00000295u, 0x00000130u, 0x0000013fu, 0x00050080u, 0x00000006u,
    0x00000297u, 0x00000295u, 0x00000510u, 0x00050041u, 0x0000001du, 0x00000299u, 0x0000015fu, 0x00000510u,
    0x0004003du, 0x0000001cu, 0x0000029au, 0x00000299u, 0x00050041u, 0x00000143u, 0x0000029bu, 0x00000134u,
    0x00000192u, 0x0004003du, 0x0000001cu, 0x0000029cu, 0x0000029bu, 0x00050041u, 0x0000001du, 0x0000029eu,
    0x0000016eu, 0x00000510u, 0x0004003du, 0x0000001cu, 0x0000029fu, 0x0000029eu, 0x0008000cu, 0x0000001cu,
    0x000002a1u, 0x00000001u, 0x00000032u, 0x0000029cu, 0x0000029fu, 0x0000029au, 0x00060041u, 0x0000016au,
    0x000002a2u, 0x00000292u, 0x000000edu, 0x00000297u, 0x0003003eu, 0x000002a2u, 0x000002a1u, 0x00050080u,
    0x00000006u, 0x000002a4u, 0x00000510u, 0x000000ecu, 0x000200f9u, 0x00000287u, 0x000200f8u, 0x00000289u,
    0x000200f9u, 0x000002a6u, 0x000200f8u, 0x000002a6u, 0x000100fdu, 0x00010038u,
};
/* <<spirv generated */

/* >>layouts: the kernel table's modules, and its C structs checked against them */

#if defined(__cplusplus)
#define UMAP_VK__ASSERT(cond, name, msg) static_assert(cond, msg);
#else /* C99 has no static_assert: an array of negative size is the error */
#define UMAP_VK__ASSERT(cond, name, msg) typedef char name[(cond) ? 1 : -1];
#endif

/* whether expression e (an lvalue) has type T: C++, and GNU C (gcc,
   clang); elsewhere only sizes and offsets are checked */
#define UMAP_VK__TYPE_F32 float
#define UMAP_VK__TYPE_U32 uint32_t
#define UMAP_VK__TYPE_I32 int32_t
#if defined(__cplusplus)
template <typename A, typename B> struct umap_vk__same { enum { value = 0 }; };
template <typename A> struct umap_vk__same<A, A> { enum { value = 1 }; };
#define UMAP_VK__IS_TYPE(e, T) (umap_vk__same<decltype((e)), T &>::value == 1)
#elif defined(__GNUC__)
#define UMAP_VK__IS_TYPE(e, T) __builtin_types_compatible_p(__typeof__(e), T)
#else
#define UMAP_VK__IS_TYPE(e, T) 1
#endif

/* a push-constant member where the shader has it, of the shader's size and
   scalar type (elem: [0] for a vector or an array, whose element is checked) */
#define UMAP_VK__X_CHECK_MEMBER(shader, member, offset, size, type, elem)                                   \
    UMAP_VK__ASSERT(offsetof(umap_vk__pc_##shader, member) == (offset) &&                                   \
                        sizeof(((umap_vk__pc_##shader *)0)->member) == (size) &&                            \
                        UMAP_VK__IS_TYPE(((umap_vk__pc_##shader *)0)->member elem, UMAP_VK__TYPE_##type),   \
                    umap_vk__check_pc_##shader##_##member,                                                   \
                    "umap_vk__pc_" #shader "." #member ": not where, or not the type, shaders/" #shader      \
                    ".comp's Params has it")
/* per table row: its struct's size and every member, and its bindings */
#define UMAP_VK__X_CHECK(field, shader, bindings, plain, set)                                                \
    UMAP_VK__ASSERT(sizeof(umap_vk__pc_##shader) == UMAP_VK__PC_SIZE_##shader, umap_vk__check_pc_##shader,  \
                    "umap_vk__pc_" #shader ": not the size of shaders/" #shader ".comp's Params")            \
    UMAP_VK__ASSERT((bindings) == UMAP_VK__BINDINGS_##shader, umap_vk__check_bindings_##shader,              \
                    "the kernel table's bindings of " #shader ": not those of shaders/" #shader ".comp")     \
    UMAP_VK__PC_MEMBERS_##shader(UMAP_VK__X_CHECK_MEMBER)
UMAP_VK__KERNELS(UMAP_VK__X_CHECK)
#undef UMAP_VK__X_CHECK
#undef UMAP_VK__X_CHECK_MEMBER

static const umap_vk__kernel_spec umap_vk__kernel_specs[UMAP_VK__N_KERNELS] = {
#define UMAP_VK__X_SPEC(field, shader, bindings, plain, set) \
    {#shader, umap_vk__spv_##shader, sizeof umap_vk__spv_##shader, bindings, (uint32_t)sizeof(umap_vk__pc_##shader), plain},
    UMAP_VK__KERNELS(UMAP_VK__X_SPEC)
#undef UMAP_VK__X_SPEC
};

static const umap_vk__kernel_spec *umap_vk__kernel_spec_of(umap_vk__kernel_id id) { return &umap_vk__kernel_specs[id]; }

#endif /* UMAP_VULKAN */
#endif /* UMAP_VK__IMPLEMENTED */
#endif /* UMAP_VK_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
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
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY,
WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------
*/
