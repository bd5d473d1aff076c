/* libumap.c - build/libumap.so: umap.h, umap_knn.h and umap_vk.h as one
   shared library (the same code as the headers), for bindings that load it
   at run time (python/umaph through ctypes).

   Beside the headers' own API it exports the layout of the structs a
   binding fills in (name, offset, kind of every field), read from the
   compiler with offsetof, so that no binding copies a struct layout by
   hand; umap_config's scalar fields come from umap.h's one table of them
   (umap_config_fields), so that a field given a row there is bound at once,
   its name, flags and doc with it (umaph_config_row). */
#define UMAP_VK_IMPLEMENTATION /* brings UMAP_IMPLEMENTATION; without UMAP_VULKAN the device calls say "not built" */
#include "umap_vk.h"

#include <stddef.h>

/* field kinds: i int (and enums), f float, d double, q int64_t, Q uint64_t,
   p a pointer, I an int array, s a char array */
typedef struct umaph_field {
    const char *struct_name, *name;
    size_t offset, size;
    char kind;
} umaph_field;

/* every enum reported as 'i' (here, and umap_config's rows of an enum type) must be an int */
typedef char umaph__enum_is_int[sizeof(umap_metric) == sizeof(int) && sizeof(umap_init) == sizeof(int) &&
                                        sizeof(umap_knn_method) == sizeof(int) &&
                                        sizeof(umap_transform_mode) == sizeof(int) &&
                                        sizeof(umap_stop_reason) == sizeof(int) ? 1 : -1];

#define UMAPH__F(S, field, kind) {#S, #field, offsetof(S, field), sizeof(((S *)0)->field), kind},
/* The ONE list: per struct the fields a binding reads or writes, but for
   umap_config's rows (umap_config_fields: every scalar field a model file
   keeps), which umaph_field_at reports from that table right after
   umap_config's own row (the first here); its other fields are these. */
static const umaph_field umaph__fields[] = {
    {"umap_config", "", 0, sizeof(umap_config), 0},
    UMAPH__F(umap_config, target, 'p') UMAPH__F(umap_config, hidden, 'I')
    UMAPH__F(umap_config, init_coords, 'p') UMAPH__F(umap_config, seed, 'Q')
    UMAPH__F(umap_config, n_threads, 'i') UMAPH__F(umap_config, backend, 'p')
    UMAPH__F(umap_config, refiner, 'p')
    UMAPH__F(umap_config, metric_v, 'p') UMAPH__F(umap_config, metric_fn, 'p')
    UMAPH__F(umap_config, metric_user_data, 'p')
    UMAPH__F(umap_config, progress, 'p') UMAPH__F(umap_config, progress_user_data, 'p')
    UMAPH__F(umap_config, info, 'p') UMAPH__F(umap_config, logger.log_fn, 'p')
    UMAPH__F(umap_config, graph, 'p')

    {"umap_edge_list", "", 0, sizeof(umap_edge_list), 0},
    UMAPH__F(umap_edge_list, n_edges, 'q') UMAPH__F(umap_edge_list, head, 'p')
    UMAPH__F(umap_edge_list, tail, 'p') UMAPH__F(umap_edge_list, weight, 'p')
    UMAPH__F(umap_edge_list, n_nodes, 'q')

    {"umap_fit_info", "", 0, sizeof(umap_fit_info), 0},
    UMAPH__F(umap_fit_info, knn_s, 'd') UMAPH__F(umap_fit_info, graph_s, 'd')
    UMAPH__F(umap_fit_info, pca_s, 'd') UMAPH__F(umap_fit_info, train_s, 'd')
    UMAPH__F(umap_fit_info, embed_s, 'd') UMAPH__F(umap_fit_info, refine_s, 'd')
    UMAPH__F(umap_fit_info, distill_s, 'd') UMAPH__F(umap_fit_info, total_s, 'd')
    UMAPH__F(umap_fit_info, keep_s, 'd') UMAPH__F(umap_fit_info, decoder_s, 'd')
    UMAPH__F(umap_fit_info, decoder_loss, 'f')
    UMAPH__F(umap_fit_info, init_used, 'i') UMAPH__F(umap_fit_info, n_edges, 'q')
    UMAPH__F(umap_fit_info, n_dropped_edges, 'q') UMAPH__F(umap_fit_info, n_disconnected, 'q')
    UMAPH__F(umap_fit_info, epochs_run, 'i') UMAPH__F(umap_fit_info, n_epochs, 'i')
    UMAPH__F(umap_fit_info, final_loss, 'f') UMAPH__F(umap_fit_info, best_loss, 'f')
    UMAPH__F(umap_fit_info, a, 'f') UMAPH__F(umap_fit_info, b, 'f')
    UMAPH__F(umap_fit_info, stop_reason, 'i') UMAPH__F(umap_fit_info, error_detail, 's')

    {"umap_target", "", 0, sizeof(umap_target), 0},
    UMAPH__F(umap_target, labels, 'p') UMAPH__F(umap_target, values, 'p')
    UMAPH__F(umap_target, values_dim, 'i') UMAPH__F(umap_target, metric, 'i')
    UMAPH__F(umap_target, metric_p, 'f') UMAPH__F(umap_target, n_neighbors, 'i')

    {"umap_progress", "", 0, sizeof(umap_progress), 0},
    UMAPH__F(umap_progress, phase, 'p') UMAPH__F(umap_progress, epoch, 'i')
    UMAPH__F(umap_progress, n_epochs, 'i') UMAPH__F(umap_progress, loss, 'f')
    UMAPH__F(umap_progress, best_loss, 'f') UMAPH__F(umap_progress, elapsed_s, 'd')

    {"umap_transform_desc", "", 0, sizeof(umap_transform_desc), 0},
    UMAPH__F(umap_transform_desc, mode, 'i') UMAPH__F(umap_transform_desc, epochs, 'i')
    UMAPH__F(umap_transform_desc, exact_neighbors, 'i')
    UMAPH__F(umap_transform_desc, n_threads, 'i') UMAPH__F(umap_transform_desc, detail, 'p')
    UMAPH__F(umap_transform_desc, detail_size, 'q')
    UMAPH__F(umap_transform_desc, graph_indices, 'p') UMAPH__F(umap_transform_desc, graph_weights, 'p')

    {"umap_update_desc", "", 0, sizeof(umap_update_desc), 0},
    UMAPH__F(umap_update_desc, old_rows, 'p') UMAPH__F(umap_update_desc, refine_epochs, 'i')
    UMAPH__F(umap_update_desc, distill_epochs, 'i') UMAPH__F(umap_update_desc, n_threads, 'i')
    UMAPH__F(umap_update_desc, progress, 'p') UMAPH__F(umap_update_desc, progress_user_data, 'p')
    UMAPH__F(umap_update_desc, logger.log_fn, 'p') UMAPH__F(umap_update_desc, info, 'p')
    UMAPH__F(umap_update_desc, graph, 'p')

    {"umap_knn_desc", "", 0, sizeof(umap_knn_desc), 0},
    UMAPH__F(umap_knn_desc, k, 'i') UMAPH__F(umap_knn_desc, metric, 'i')
    UMAPH__F(umap_knn_desc, metric_p, 'f') UMAPH__F(umap_knn_desc, metric_v, 'p')
    UMAPH__F(umap_knn_desc, metric_fn, 'p')
    UMAPH__F(umap_knn_desc, method, 'i')
    UMAPH__F(umap_knn_desc, n_threads, 'i') UMAPH__F(umap_knn_desc, seed, 'Q')
    UMAPH__F(umap_knn_desc, info, 'p')
    {"umap_rows", "", 0, sizeof(umap_rows), 0},
    UMAPH__F(umap_rows, n, 'q') UMAPH__F(umap_rows, dim, 'q') UMAPH__F(umap_rows, dense, 'p')
    UMAPH__F(umap_rows, indptr, 'p') UMAPH__F(umap_rows, indices, 'p') UMAPH__F(umap_rows, values, 'p')
    {"umap_quality_desc", "", 0, sizeof(umap_quality_desc), 0},
    UMAPH__F(umap_quality_desc, k, 'i') UMAPH__F(umap_quality_desc, classifier_k, 'i')
    UMAPH__F(umap_quality_desc, metric, 'i') UMAPH__F(umap_quality_desc, metric_p, 'f')
    UMAPH__F(umap_quality_desc, metric_v, 'p') UMAPH__F(umap_quality_desc, metric_fn, 'p')
    UMAPH__F(umap_quality_desc, n_queries, 'q')
    UMAPH__F(umap_quality_desc, n_threads, 'i')
    {"umap_quality", "", 0, sizeof(umap_quality), 0},
    UMAPH__F(umap_quality, trustworthiness, 'd') UMAPH__F(umap_quality, knn_recall, 'd')
    UMAPH__F(umap_quality, knn_accuracy, 'd')
    {"umap_knn_info", "", 0, sizeof(umap_knn_info), 0},
    UMAPH__F(umap_knn_info, bad_row, 'q') UMAPH__F(umap_knn_info, error_detail, 's')
};
#undef UMAPH__F
typedef char umaph__size_t_is_8[sizeof(size_t) == 8 && sizeof(void *) == 8 ? 1 : -1];

/* The i-th row of the layout table (a struct's own row has name "" and its
   size, and comes before the struct's fields); 0 past the end. Rows 1 to
   n of umap_config_fields(&n) are umap_config's rows, kind and size by
   their type. */
extern int umaph_field_at(int i, umaph_field *out);
int umaph_field_at(int i, umaph_field *out) {
    int n_rows;
    const umap_config_field *rows = umap_config_fields(&n_rows);
    if (i >= 1 && i <= n_rows) {
        const umap_config_field *row = &rows[i - 1];
        out->struct_name = "umap_config";
        out->name = row->name;
        out->offset = row->offset;
        out->kind = '?', out->size = 0; /* a type this file does not know yet: the binding refuses to load */
        switch (row->type) {            /* no default: -Wswitch names a new type here */
        case UMAP_FIELD_INT: case UMAP_FIELD_METRIC: case UMAP_FIELD_KNN_METHOD: case UMAP_FIELD_INIT:
            out->kind = 'i', out->size = sizeof(int); break;
        case UMAP_FIELD_FLOAT: out->kind = 'f', out->size = sizeof(float); break;
        case UMAP_FIELD_DOUBLE: out->kind = 'd', out->size = sizeof(double); break;
        }
        return 1;
    }
    if (i > n_rows) i -= n_rows;
    if (i < 0 || i >= (int)(sizeof umaph__fields / sizeof umaph__fields[0])) return 0;
    *out = umaph__fields[i];
    return 1;
}

/* Row i of umap_config's table (umap_config_fields(), in its order), for a
   binding's parameters: the field's name, its UMAP_FIELD_* flags (values by
   umaph_field_flag), its range [lo, hi] (the flags say which ends are open
   and what else it takes) and its one-line doc; an out pointer may be NULL;
   0 past the end. Its default is umaph_config_default()'s, its kind
   umaph_field_at's, its range as the messages say it umaph_field_range's. */
extern int umaph_config_row(int i, const char **name, int *flags, double *lo, double *hi, const char **doc);
int umaph_config_row(int i, const char **name, int *flags, double *lo, double *hi, const char **doc) {
    int n_rows;
    const umap_config_field *rows = umap_config_fields(&n_rows);
    if (i < 0 || i >= n_rows) return 0;
    if (name) *name = rows[i].name;
    if (flags) *flags = rows[i].flags;
    if (lo) *lo = rows[i].lo;
    if (hi) *hi = rows[i].hi;
    if (doc) *doc = rows[i].doc;
    return 1;
}

/* The value of UMAP_FIELD_<name> ("AUTO", "ZERO", "LO_OPEN", "HI_OPEN",
   "SHAPE"), for reading umaph_config_row's flags; 0 for another name. */
extern int umaph_field_flag(const char *name);
int umaph_field_flag(const char *name) {
#define UMAPH__FLAG(f) if (!strcmp(name, #f)) return UMAP_FIELD_##f;
    UMAPH__FLAG(AUTO) UMAPH__FLAG(ZERO) UMAPH__FLAG(LO_OPEN) UMAPH__FLAG(HI_OPEN) UMAPH__FLAG(SHAPE)
#undef UMAPH__FLAG
    return 0;
}

/* umap_config_default() into caller memory (a binding cannot receive a
   struct by value portably). */
extern void umaph_config_default(umap_config *out);
void umaph_config_default(umap_config *out) { *out = umap_config_default(); }

/* The model's config as fitted (pointers NULL) into caller memory. */
extern void umaph_model_config(const umap_model *model, umap_config *out);
void umaph_model_config(const umap_model *model, umap_config *out) { *out = *umap_model_config(model); }

/* Opens the device "cpu", "vulkan" or "auto" names, as `umap fit --device`
   does: cpu -> *vk NULL; vulkan -> a GPU or an error with why in detail;
   auto -> a GPU when one is there and a short calibration says it searches
   n rows x d faster than this CPU, else NULL (detail says why). */
extern umap_result umaph_device_open(const char *device, int64_t n, int64_t d, umap_vk **vk, char *detail,
                                     size_t detail_size);
umap_result umaph_device_open(const char *device, int64_t n, int64_t d, umap_vk **vk, char *detail,
                              size_t detail_size) {
    umap_result r;
    *vk = NULL;
    if (detail_size) detail[0] = 0;
    if (!strcmp(device, "cpu")) return UMAP_OK;
    if (strcmp(device, "vulkan") != 0 && strcmp(device, "auto") != 0) {
        snprintf(detail, detail_size, "device '%s' is not cpu, vulkan or auto", device);
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    r = umap_vk_create(NULL, vk, detail, detail_size);
    if (r != UMAP_OK) return !strcmp(device, "vulkan") ? r : UMAP_OK;
    if (!strcmp(device, "auto")) {
        umap_vk_calibration c;
        r = umap_vk_calibrate(*vk, &c);
        if (r != UMAP_OK || !umap_vk_prefer(&c, 2.0 * (double)n * (double)n * (double)d, 4.0 * (double)n * (double)d, 4)) {
            snprintf(detail, detail_size, "the GPU is not faster here (%s)", umap_result_string(r));
            umap_vk_free(*vk);
            *vk = NULL;
        }
    }
    return UMAP_OK;
}

/* The enum name of a result ("UMAP_ERR_FORMAT"), for bindings that map
   results to their own exception types; NULL out of range. */
extern const char *umaph_result_name(int r);
const char *umaph_result_name(int r) {
    static const char *const names[] = {
#define UMAPH__X_NAME(id, msg) #id,
        UMAP_RESULT_LIST(UMAPH__X_NAME)
#undef UMAPH__X_NAME
    };
    return r >= 0 && r < UMAP_RESULT_COUNT ? names[r] : NULL;
}

/* UMAP_AUTO, the value of an "auto" int field (refine_epochs, distill_epochs) */
extern int umaph_auto(void);
int umaph_auto(void) { return UMAP_AUTO; }

/* The range the library holds the umap_config field `name` to, as its
   messages say it ("an integer in [2, 2147483647] (it counts ...)"), for a
   binding that must refuse a value before it reaches the struct (one that
   does not fit an int). 0 when the field has no row (umap_config_fields). */
extern int umaph_field_range(const char *name, char *buf, size_t size);
int umaph_field_range(const char *name, char *buf, size_t size) {
    int i, n;
    const umap_config_field *rows = umap_config_fields(&n);
    for (i = 0; i < n; i++)
        if (!strcmp(rows[i].name, name)) {
            size_t at;
            umap_config_field_range(&rows[i], buf, size);
            at = strlen(buf);
            if (rows[i].rule[0]) snprintf(buf + at, size - at, " (%s)", rows[i].rule);
            return 1;
        }
    return 0;
}

/* A 64-bit fingerprint of each row's values (out: rows->n of them), dense
   or CSR alike: the sum of splitmix64's finalizer over the row's nonzero
   entries in the columns that are multiples of stride (1: every column),
   each as its column and its value's bits (-0 as 0, a stored zero as no
   entry), finalized once more. Equal rows get equal fingerprints whatever
   their form; rows that differ in those columns collide with a chance of
   about 2^-64 a pair. A sum keeps the entries independent, so the loop
   runs at memory speed. The estimator keeps its training rows'
   fingerprints, so that transform gives a row it was fitted on its fitted
   place (umap-learn's transform of the training data), one row at a
   time: a coarse one (a stride's columns) rules most new rows out
   cheaply, the whole one decides. */
static uint64_t umaph__mix(uint64_t h) {
    h ^= h >> 30, h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27, h *= 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}
static uint64_t umaph__entry(int64_t column, float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return umaph__mix((uint64_t)column << 32 | bits);
}
extern void umaph_row_fingerprints(const umap_rows *rows, int64_t stride, uint64_t *out);
void umaph_row_fingerprints(const umap_rows *rows, int64_t stride, uint64_t *out) {
    int64_t i, j;
    if (stride < 1) stride = 1;
    for (i = 0; i < rows->n; i++) {
        uint64_t h = 0;
        if (rows->dense) {
            const float *x = rows->dense + i * rows->dim;
            for (j = 0; j < rows->dim; j += stride)
                if (x[j] != 0) h += umaph__entry(j, x[j]);
        } else {
            for (j = rows->indptr[i]; j < rows->indptr[i + 1]; j++)
                if (rows->values[j] != 0 && rows->indices[j] % stride == 0)
                    h += umaph__entry(rows->indices[j], rows->values[j]);
        }
        out[i] = umaph__mix(h ^ 0x243f6a8885a308d3ull);
    }
}

/* umap.h's version (UMAP_VERSION_STRING): the Python package's __version__,
   so that the package and the library it loads cannot disagree. */
extern const char *umaph_version(void);
const char *umaph_version(void) { return UMAP_VERSION_STRING; }
