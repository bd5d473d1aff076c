/* umap.c - the `umap` command-line program: fit, transform, knn, eval.

   Build:  make build/umap
           (cc -O2 -I. cli/umap.c -o umap -lblas -lpthread -lm)

   Usage:  umap fit --input train.idx.gz --labels labels.idx.gz \
                    --save model.safetensors --embedding emb.npy --svg plot.svg
           umap fit --input train.npy --target y.npy --target-weight 0.5 --save model.gguf
                    (supervised: -1 in y marks an unlabelled row)
           umap transform --model model.safetensors --input test.npy --output out.csv
           umap knn --input data.npy --k 15 --output idx.npy --distances dist.npy
           umap eval --input data.npy --embedding emb.npy --labels y.npy
           umap fit --synthetic 3000 --svg digits.svg   (drawn digits: no data needed)
           umap --help, umap <command> --help, umap --version

   Inputs are read by cli/umap_io.h (.npy, .csv, MNIST IDX, any of them
   gzipped, raw .f32 with --dim); outputs are chosen by extension
   (.npy, .csv, .f32). Exit status: 0 ok, 1 an error while running (a file
   or the library), 2 a usage error.

   Outputs are checked before any input is read (extension, directory, no
   clash with an input or another output), written to temporaries beside
   their targets while the job runs, and renamed into place only after
   every one was written (umap.h's umap_output): a run that fails, at any
   point, leaves every existing file as it was.

   Progress goes to stderr (a bar on a terminal, a few lines otherwise);
   the summary goes to stdout. --quiet silences both. */
#define _POSIX_C_SOURCE 200809L

#define UMAP_VK_IMPLEMENTATION /* brings UMAP_IMPLEMENTATION; without UMAP_VULKAN the device calls say "not built" */
#include "umap_vk.h"
#define UMAP_IO_IMPLEMENTATION
#include "cli/umap_io.h"
#define UMAP_SVG_IMPLEMENTATION
#define UMAP_SVG_STATIC
#include "cli/umap_svg.h"
#define UMAP_DIGITS_IMPLEMENTATION
#include "cli/umap_digits.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#ifdef _WIN32
#include <windows.h>
#endif

/* >>cli: usage texts ------------------------------------------------------- */

static const char umap_cli__usage[] =
    "usage: umap <command> [options]\n"
    "\n"
    "commands:\n"
    "  fit        train a parametric UMAP encoder; write the model, the embedding, a plot\n"
    "  transform  embed new rows with a saved model\n"
    "  inverse    map places in the embedding back to rows (a model with a decoder)\n"
    "  update     grow a saved model by new rows (continued training), without a refit\n"
    "  knn        k nearest neighbours of every row\n"
    "  eval       trustworthiness, neighbour recall and k-NN accuracy of an embedding\n"
    "  devices    the Vulkan devices (and, with --calibrate, how fast the chosen one is)\n"
    "  tune       time the kernels' variants once and keep the fastest (UMAP_TUNE=1 uses them)\n"
    "\n"
    "`umap <command> --help` lists the options of one command; `umap --version` the\n"
    "version and the build (BLAS or portable sgemm, threads, Vulkan).\n"
    "No data at hand? `umap fit --synthetic 3000 --svg digits.svg` draws digit images to fit.\n"
    "Inputs: .npy, .csv, MNIST IDX (*-ubyte, .idx), any of them gzipped; raw .f32 with\n"
    "--dim D; sparse rows (fit, transform, knn) as scipy's save_npz .npz or svmlight\n"
    "text (.svm, .svmlight, .libsvm). Outputs by extension: .npy, .csv, .f32.\n";

/* the metric names for the help texts, from umap_knn.h's one list */
#define UMAP_CLI__METRIC_NAME(id, name, prep, screen, binary, apart, domain) " " #name

/* >>cli: option parsing ---------------------------------------------------- */

/* One option of a command: its name, whether it takes a value, and where the
   value goes (a string; flags get "1"). */
typedef struct umap_cli__opt {
    const char *name;
    int has_value;
    const char *value;
} umap_cli__opt;

static int umap_cli__usage_error(const char *cmd, const char *usage, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "umap%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n\n%s", usage);
    return 2;
}

/* Parses argv into opts (NULL-name terminated). Returns 0, 1 for --help, or
   2 after printing a usage error. */
static int umap_cli__parse(const char *cmd, const char *usage, int argc, char **argv, umap_cli__opt *opts) {
    int i;
    for (i = 0; i < argc; i++) {
        const char *a = argv[i], *eq, *val = NULL;
        size_t len;
        umap_cli__opt *o;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return 1;
        if (strncmp(a, "--", 2) != 0) return umap_cli__usage_error(cmd, usage, "unexpected argument '%s'", a);
        eq = strchr(a, '=');
        len = eq ? (size_t)(eq - a) : strlen(a);
        for (o = opts; o->name; o++)
            if (strlen(o->name) == len && !strncmp(o->name, a, len)) break;
        if (!o->name) return umap_cli__usage_error(cmd, usage, "unknown option '%.*s'", (int)len, a);
        if (o->has_value) {
            if (eq) val = eq + 1;
            else if (i + 1 < argc) val = argv[++i];
            else return umap_cli__usage_error(cmd, usage, "%s needs a value", o->name);
            o->value = val;
        } else {
            if (eq) return umap_cli__usage_error(cmd, usage, "%s takes no value", o->name);
            o->value = "1";
        }
    }
    return 0;
}

/* An option's value, NULL when not given. A name the command does not
   have is the program's own error (a typo would read as "not given"): it
   stops here, loudly; tests/test_cli.cc also walks every name looked up. */
static const char *umap_cli__get(const umap_cli__opt *opts, const char *name) {
    for (; opts->name; opts++)
        if (!strcmp(opts->name, name)) return opts->value;
    fprintf(stderr, "umap: internal error: the command has no option %s\n", name);
    abort();
}

/* >>cli: option tables ------------------------------------------------------ */

/* How an option's value is read and stored. */
typedef enum umap_cli__value_kind {
    UMAP_CLI__FLAG,   /* no value; stores lo (an int) where it has a field */
    UMAP_CLI__INT,    /* an integer in [lo, hi], stored as int */
    UMAP_CLI__INT64,  /* ... as int64_t */
    UMAP_CLI__UINT64, /* ... as uint64_t */
    UMAP_CLI__FLOAT,  /* a number in [lo, hi], stored as float */
    UMAP_CLI__DOUBLE, /* ... as double */
    UMAP_CLI__STRING, /* text the command reads itself (a file, a name checked later) */
    UMAP_CLI__CHOICE, /* one of a few names, turned into the field by set */
    UMAP_CLI__LIST    /* a comma-separated list, turned into the field by set */
} umap_cli__value_kind;

/* Turns an option's text into its field (dest: the command's struct); 0 ok,
   else why holds what is wrong with the value. */
typedef int (*umap_cli__setter)(const char *value, void *dest, size_t offset, char *why, size_t why_size);

#define UMAP_CLI__OWN ((size_t)-1) /* no field: the command reads the value with umap_cli__get */

/* One option of a command: the table drives the parsing, the range checks,
   the stores into the command's struct and the --help text. */
typedef struct umap_cli__option {
    const char *name;     /* "--k" */
    const char *arg;      /* the value's name in the help ("K"); NULL: a flag */
    umap_cli__value_kind kind;
    double lo, hi;        /* numbers: the range accepted (0, 0 for a umap_config field of a config
                             command: the library's row); FLAG: lo is the value stored */
    size_t offset;        /* the field in the command's struct, or UMAP_CLI__OWN */
    umap_cli__setter set; /* CHOICE and LIST: text to field */
    const char *dflt;     /* the default the help shows; NULL: the field's value in the command's defaults, or none */
    const char *help;     /* '\n' starts an indented line */
} umap_cli__option;

typedef struct umap_cli__command {
    const char *name;     /* "fit", as errors name the command */
    const char *synopsis; /* the usage lines above the options */
    const umap_cli__option *options;
    int n_options;
    int config;           /* 1: the fields are umap_config's, and a number option with lo = hi = 0 is
                             held to the library's row for its field (umap_config_fields): one set
                             of limits for the CLI, fit and the model files */
} umap_cli__command;

#define UMAP_CLI__MAX_OPTIONS 64
#define UMAP_CLI__HELP_SIZE 16384
#define UMAP_CLI__COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

#define UMAP_CLI__NO_CUSTOM                                                                                           \
    "is a C function's name here: the umap program has no function to call (the C API's metric_fn, Python's "   \
    "metric=<function>)"

static int umap_cli__set_metric(const char *value, void *dest, size_t offset, char *why, size_t why_size) {
    char names[256];
    umap_metric *m = (umap_metric *)((char *)dest + offset);
    if (umap_metric_from_name(value, m) && *m == UMAP_METRIC_CUSTOM) return snprintf(why, why_size, UMAP_CLI__NO_CUSTOM), 1;
    if (umap_metric_from_name(value, m)) return 0;
    snprintf(why, why_size, "is not one of %s", umap_metric_names(names, sizeof names, ", "));
    return 1;
}

static int umap_cli__set_method(const char *value, void *dest, size_t offset, char *why, size_t why_size) {
    umap_knn_method *m = (umap_knn_method *)((char *)dest + offset);
    if (!strcmp(value, "auto")) *m = UMAP_KNN_AUTO;
    else if (!strcmp(value, "exact")) *m = UMAP_KNN_EXACT;
    else if (!strcmp(value, "nndescent")) *m = UMAP_KNN_NNDESCENT;
    else return snprintf(why, why_size, "is not auto, exact or nndescent"), 1;
    return 0;
}

/* --hidden W,W,...: the encoder's widths into umap_config's hidden and
   n_hidden (offset: of umap_config itself); `none` or nothing: linear */
static int umap_cli__set_hidden(const char *value, void *dest, size_t offset, char *why, size_t why_size) {
    umap_config *cfg = (umap_config *)((char *)dest + offset);
    const char *p = value;
    cfg->n_hidden = 0;
    if (!strcmp(value, "none") || !*value) return 0;
    for (;;) {
        char *end;
        long w;
        errno = 0;
        w = strtol(p, &end, 10);
        if (errno || end == p || w < 1 || w > 65536 || (*end && *end != ','))
            return snprintf(why, why_size, "is not a list of widths like 64,64,64,64"), 1;
        if (cfg->n_hidden == UMAP_MAX_HIDDEN)
            return snprintf(why, why_size, "has more than %d layers", UMAP_MAX_HIDDEN), 1;
        cfg->hidden[cfg->n_hidden++] = (int)w;
        if (!*end) return 0;
        p = end + 1;
    }
}


/* The library's row for a config command's number option without numbers
   of its own (umap_cli__command.config); NULL for any other option. */
static const umap_config_field *umap_cli__config_row(const umap_cli__command *c, const umap_cli__option *o) {
    const umap_config_field *rows;
    int i, n;
    if (!c->config || o->offset == UMAP_CLI__OWN || o->lo != 0 || o->hi != 0 || o->kind < UMAP_CLI__INT ||
        o->kind > UMAP_CLI__DOUBLE)
        return NULL;
    rows = umap_config_fields(&n);
    for (i = 0; i < n; i++)
        if (rows[i].offset == o->offset) {
            /* the option stores the row's own type: an int row through INT,
               a float through FLOAT, a double through DOUBLE; a mismatch
               would write the wrong bytes, so it is the program's error */
            umap_cli__value_kind want = rows[i].type == UMAP_FIELD_FLOAT    ? UMAP_CLI__FLOAT
                       : rows[i].type == UMAP_FIELD_DOUBLE ? UMAP_CLI__DOUBLE
                                                           : UMAP_CLI__INT;
            if (o->kind != want) {
                fprintf(stderr, "umap: internal error: %s stores %s in the wrong type\n", o->name, rows[i].name);
                abort();
            }
            return &rows[i];
        }
    return NULL;
}

/* "--k: '1' is not an integer in [2, 2147483647] (it counts ...)" */
static int umap_cli__row_error(const char *cmd, const char *usage, const umap_cli__option *o,
                               const umap_config_field *row, const char *value) {
    char range[200];
    umap_config_field_range(row, range, sizeof range);
    return umap_cli__usage_error(cmd, usage, "%s: '%s' is not %s%s%s%s", o->name, value, range, row->rule[0] ? " (" : "",
                                 row->rule, row->rule[0] ? ")" : "");
}

/* A refusal of umap_config_check ("NAME = ...: must be ..."), led by the
   option that set the field it names. */
static int umap_cli__config_error(const umap_cli__command *c, const char *usage, const char *why) {
    const umap_config_field *rows = umap_config_fields(NULL);
    int i, j, n;
    umap_config_fields(&n);
    for (i = 0; i < n; i++) {
        size_t len = strlen(rows[i].name);
        if (strncmp(why, rows[i].name, len) != 0 || why[len] != ' ') continue;
        for (j = 0; j < c->n_options; j++)
            if (c->options[j].offset == rows[i].offset && c->options[j].kind != UMAP_CLI__FLAG)
                return umap_cli__usage_error(c->name, usage, "%s: %s", c->options[j].name, why);
    }
    return umap_cli__usage_error(c->name, usage, "%s", why);
}

/* The help of a table command into buf: its synopsis, then a line per
   option, "  --name ARG" padded to the help's column, the help text and
   its default. defaults: the command's struct as zero options leave it,
   whose fields give the defaults the table does not spell out (NULL:
   none). */
static void umap_cli__help(const umap_cli__command *c, const void *defaults, char *buf, size_t size) {
    size_t at = 0;
    int i;
#define UMAP_CLI__PUT(...) (at += (size_t)snprintf(buf + at, at < size ? size - at : 0, __VA_ARGS__))
    UMAP_CLI__PUT("%s\n", c->synopsis);
    for (i = 0; i < c->n_options; i++) {
        const umap_cli__option *o = &c->options[i];
        const char *h, *field = defaults && o->offset != UMAP_CLI__OWN ? (const char *)defaults + o->offset : NULL;
        const umap_config_field *row = umap_cli__config_row(c, o);
        char head[64];
        int len = snprintf(head, sizeof head, "%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        UMAP_CLI__PUT("  %-19s%s", head, len < 19 ? " " : "  ");
        for (h = o->help; *h; h++) {
            if (*h == '\n') UMAP_CLI__PUT("\n%22s", "");
            else UMAP_CLI__PUT("%c", *h);
        }
        if (o->dflt) UMAP_CLI__PUT(*o->dflt ? " (%s)" : "%s", o->dflt); /* "": no default to show */
        else if (field && row && (row->flags & UMAP_FIELD_AUTO) && *(const int *)field == UMAP_AUTO)
            UMAP_CLI__PUT(" (auto)");
        else if (field && o->kind == UMAP_CLI__INT) UMAP_CLI__PUT(" (%d)", *(const int *)field);
        else if (field && o->kind == UMAP_CLI__INT64) UMAP_CLI__PUT(" (%lld)", (long long)*(const int64_t *)field);
        else if (field && o->kind == UMAP_CLI__UINT64)
            UMAP_CLI__PUT(" (%llu)", (unsigned long long)*(const uint64_t *)field);
        else if (field && o->kind == UMAP_CLI__FLOAT) UMAP_CLI__PUT(" (%g)", (double)*(const float *)field);
        else if (field && o->kind == UMAP_CLI__DOUBLE) UMAP_CLI__PUT(" (%g)", *(const double *)field);
        UMAP_CLI__PUT("\n");
    }
#undef UMAP_CLI__PUT
    if (at >= size && size) buf[size - 1] = 0; /* UMAP_CLI__HELP_SIZE holds every table; a cut help still ends */
}

/* Stores a checked number into the field its kind names. */
static void umap_cli__store(const umap_cli__option *o, void *dest, double x, long long i) {
    char *field = (char *)dest + o->offset;
    switch (o->kind) {
    case UMAP_CLI__FLAG: case UMAP_CLI__INT: *(int *)field = (int)i; break;
    case UMAP_CLI__INT64: *(int64_t *)field = (int64_t)i; break;
    case UMAP_CLI__UINT64: *(uint64_t *)field = (uint64_t)i; break;
    case UMAP_CLI__FLOAT: *(float *)field = (float)x; break;
    case UMAP_CLI__DOUBLE: *(double *)field = x; break;
    default: break;
    }
}

/* Parses argv by the command's table: opts gets every value (for
   umap_cli__get), each number is checked against its range and every
   option with a field is stored into dest, in table order. usage gets the
   help. Returns 0, 1 for --help, or 2 after printing a usage error that
   names the option. */
static int umap_cli__parse_table(const umap_cli__command *c, const void *defaults, int argc, char **argv,
                                 umap_cli__opt *opts, void *dest, char *usage, size_t usage_size) {
    int i, rc;
    umap_cli__help(c, defaults, usage, usage_size);
    for (i = 0; i < c->n_options; i++) { /* each table's size is checked against the array at compile time */
        opts[i].name = c->options[i].name;
        opts[i].has_value = c->options[i].arg != NULL;
        opts[i].value = NULL;
    }
    opts[i].name = NULL;
    if ((rc = umap_cli__parse(c->name, usage, argc, argv, opts)) != 0) return rc;
    for (i = 0; i < c->n_options; i++) {
        const umap_cli__option *o = &c->options[i];
        const umap_config_field *row = umap_cli__config_row(c, o);
        const char *v = opts[i].value;
        char *end, why[256];
        long long n = 0;
        double x = 0;
        if (!v) continue;
        errno = 0;
        switch (o->kind) {
        case UMAP_CLI__FLAG:
            n = (long long)o->lo;
            break;
        case UMAP_CLI__INT: case UMAP_CLI__INT64: case UMAP_CLI__UINT64:
            n = strtoll(v, &end, 10);
            if (row && (errno || end == v || *end || !umap_config_field_accepts(row, (double)n)))
                return umap_cli__row_error(c->name, usage, o, row, v);
            if (!row && (errno || end == v || *end || n < (long long)o->lo || (double)n > o->hi))
                return umap_cli__usage_error(c->name, usage, "%s: '%s' is not an integer in [%lld, %lld]", o->name, v,
                                             (long long)o->lo, o->hi >= (double)LLONG_MAX ? LLONG_MAX : (long long)o->hi);
            break;
        case UMAP_CLI__FLOAT: case UMAP_CLI__DOUBLE:
            x = strtod(v, &end);
            if (row && (errno || end == v || *end || !umap_config_field_accepts(row, x)))
                return umap_cli__row_error(c->name, usage, o, row, v);
            if (!row && (errno || end == v || *end || !(x >= o->lo && x <= o->hi)))
                return umap_cli__usage_error(c->name, usage, "%s: '%s' is not a number in [%g, %g]", o->name, v, o->lo,
                                             o->hi);
            break;
        case UMAP_CLI__CHOICE: case UMAP_CLI__LIST:
            if (o->set(v, dest, o->offset, why, sizeof why))
                return umap_cli__usage_error(c->name, usage, "%s: '%s' %s", o->name, v, why);
            continue;
        case UMAP_CLI__STRING:
            continue;
        }
        if (o->offset != UMAP_CLI__OWN) umap_cli__store(o, dest, x, n);
    }
    return 0;
}

/* the value of a table's integer option, checked by umap_cli__parse_table; dflt when absent */
static long long umap_cli__get_int(const umap_cli__opt *opts, const char *name, long long dflt) {
    const char *v = umap_cli__get(opts, name);
    return v ? strtoll(v, NULL, 10) : dflt;
}

#define UMAP_CLI__CFG(field) offsetof(umap_config, field)
#define UMAP_CLI__METRIC_DOC                                                                                   \
    "the data's metric, one of\n" UMAP_METRIC_LIST(UMAP_CLI__METRIC_NAME) "\n"                                  \
    "(hamming: the fraction of coordinates that differ; jaccard, dice,\n"                                      \
    "russellrao: any nonzero coordinate counts as 1; hellinger: non-negative\n"                                \
    "data only; precomputed: --input is the n x n distance matrix, and\n"                                    \
    "transform's input the distances to the n training rows, dense, or a\n"                                 \
    "sparse graph of each row's nearest distances (.npz); haversine:\n"                                     \
    "2 columns, latitude and longitude in radians; seuclidean: each column\n"                                \
    "divided by its standard deviation in the data; custom: a C function,\n"                                 \
    "for the C API and Python: refused here)"
#define UMAP_CLI__METRIC_P_HELP "minkowski's p: >= 1 (1 is manhattan, 2 euclidean)"
#define UMAP_CLI__METRIC_V_HELP                                                                                \
    "seuclidean's V: one variance per column (.npy, .csv, raw .f32; any\n"                                   \
    "shape holding that many), finite and >= 0, 0 leaving the column out\n"                                  \
    "(the data's sample variances)"

/* the rows of --input for the commands that take sparse rows too */
#define UMAP_CLI__SPARSE_DIM_OPTION                                                                 \
    {"--dim", "D", UMAP_CLI__INT, 1, 1 << 24, UMAP_CLI__OWN, NULL, NULL,                            \
     "row width of a raw .f32 input, or of svmlight text (default: its\n"                          \
     "largest index; transform: the model's)"}
#define UMAP_CLI__SVMLIGHT_BASE_OPTION                                                              \
    {"--svmlight-base", "0|1", UMAP_CLI__INT, 0, 1, UMAP_CLI__OWN, NULL, "auto",                    \
     "svmlight's first column index (auto: 0 when some row holds index 0,\n"                       \
     "else 1, as scikit-learn's load_svmlight_file)"}

static const umap_cli__option umap_cli__fit_options[] = {
    {"--input", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "the data, n rows x d features (required, or --synthetic); sparse\n"
     "rows as .npz (scipy.sparse.save_npz) or svmlight text"},
    {"--synthetic", "N", UMAP_CLI__INT64, 1, 10000000, UMAP_CLI__OWN, NULL, NULL,
     "instead of --input: N drawn 16x16 images of the digits 0-9 (256\n"
     "features; row i is digit i % 10, the labels --svg and the summary\n"
     "use), the same images as `make demo` draws for the same N"},
    {"--rows", "N", UMAP_CLI__INT64, 1, (double)LLONG_MAX, UMAP_CLI__OWN, NULL, NULL,
     "only the first N rows of --input (and of --labels, --target, --init)"},
    UMAP_CLI__SPARSE_DIM_OPTION,
    UMAP_CLI__SVMLIGHT_BASE_OPTION,
    {"--labels", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "n integer labels: colours the plot, adds k-NN accuracy to the summary\n"
     "(they do not steer the fit: that is --target)"},
    {"--target", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "supervised fit (umap-learn's fit(X, y)): a target per row that pulls\n"
     "rows with the same label together. With --target-metric categorical:\n"
     "n integer labels (.npy, .csv, IDX, .u8, as --labels), -1 = unknown\n"
     "(semi-supervised); else n rows of floats (.npy, .csv; raw .f32: one\n"
     "value a row), a regression target. transform takes no target"},
    {"--target-metric", "M", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, "categorical",
     "categorical (labels), or a --metric name for values"},
    {"--target-metric-p", "P", UMAP_CLI__DOUBLE, 1, FLT_MAX, UMAP_CLI__OWN, NULL, "2", "minkowski's p for the values"},
    {"--target-weight", "W", UMAP_CLI__FLOAT, 0, 0, UMAP_CLI__CFG(target_weight), NULL, NULL,
     "in [0, 1]: 0 mostly the data, 1 mostly the target; labels: edges\n"
     "between different labels are weighted exp(-2.5 / (1 - W))"},
    {"--save", "MODEL", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL, "write the model (.safetensors or .gguf)"},
    {"--embedding", "OUT", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "write the training embedding (.npy, .csv, .f32)"},
    {"--radii", "OUT", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "write each row's log local radius in the data and in the embedding\n"
     "(n x 2 floats, umap-learn's rad_orig and rad_emb: with --densmap\n"
     "they correlate; .npy, .csv, .f32)"},
    {"--svg", "PLOT", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "write a scatter plot of the embedding (first two components)"},
    {"--class-names", "A,B,...", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL, "legend names for labels 0, 1, ..."},
    {"--title", "TEXT", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL, "the plot's title"},
    {"--k", "K", UMAP_CLI__INT, 0, 0, UMAP_CLI__CFG(n_neighbors), NULL, NULL,
     "neighbours, counting the point itself"},
    {"--min-dist", "X", UMAP_CLI__FLOAT, 0, 0, UMAP_CLI__CFG(min_dist), NULL, NULL,
     "how close the embedding packs neighbours"},
    {"--spread", "X", UMAP_CLI__FLOAT, 0, 0, UMAP_CLI__CFG(spread), NULL, NULL, "the embedding's scale"},
    {"--epochs", "N", UMAP_CLI__INT, 0, 0, UMAP_CLI__CFG(n_epochs), NULL, "0 = auto",
     "the encoder's training epochs. NOT umap-learn's n_epochs:\n"
     "one epoch here samples as many edges as the fuzzy graph has (about\n"
     "n x k); auto: about 250,000 sampled edges, 1 to 30 epochs, so one\n"
     "epoch from about 20,000 rows at k 15, where 200 takes 200x as long;\n"
     "auto stops at 6,000 steps (part of one epoch on large data).\n"
     "umap-learn's n_epochs (its SGD passes) is --refine-epochs here"},
    {"--batch-size", "N", UMAP_CLI__INT, 0, 0, UMAP_CLI__CFG(batch_size), NULL, NULL, "sampled edges per step"},
    {"--lr", "X", UMAP_CLI__FLOAT, 0, 0, UMAP_CLI__CFG(learning_rate), NULL, NULL,
     "Adam learning rate, decaying to 0"},
    {"--hidden", "W,W,...", UMAP_CLI__LIST, 0, 0, 0, umap_cli__set_hidden, "64,64,64,64",
     "hidden layer widths; `none` for a linear encoder"},
    {"--n-components", "C", UMAP_CLI__INT, 0, 0, UMAP_CLI__CFG(n_components), NULL, NULL, "embedding dimension"},
    {"--seed", "S", UMAP_CLI__UINT64, 0, (double)LLONG_MAX, UMAP_CLI__CFG(seed), NULL, NULL, "the seed of every draw"},
    {"--threads", "T", UMAP_CLI__INT, 0, 4096, UMAP_CLI__CFG(n_threads), NULL, "0 = all cores",
     "worker threads; never change the result"},
    {"--knn", "auto|exact|nndescent", UMAP_CLI__CHOICE, 0, 0, UMAP_CLI__CFG(knn_method), umap_cli__set_method, "auto",
     "the k-NN search"},
    {"--metric", "NAME", UMAP_CLI__CHOICE, 0, 0, UMAP_CLI__CFG(metric), umap_cli__set_metric, "euclidean",
     UMAP_CLI__METRIC_DOC},
    {"--metric-p", "P", UMAP_CLI__FLOAT, 0, 0, UMAP_CLI__CFG(metric_p), NULL, NULL, UMAP_CLI__METRIC_P_HELP},
    {"--metric-v", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL, UMAP_CLI__METRIC_V_HELP},
    {"--init", "pca|random|spectral|FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, "pca",
     "the encoder's warm start before training:\n"
     "pca: the rows' top principal coordinates; random: none (the\n"
     "random weights); spectral: the fuzzy graph's Laplacian\n"
     "eigenvectors, as umap-learn starts (each component of a\n"
     "disconnected graph on its own; PCA, with a warning, where the\n"
     "solver does not converge);\n"
     "FILE: n x n-components coordinates in the data's formats (raw\n"
     ".f32 rows of n-components floats), e.g. another run's\n"
     "--embedding; a file named like a kind: ./pca"},
    {"--no-pca", NULL, UMAP_CLI__FLAG, 0, 0, UMAP_CLI__OWN, NULL, NULL, "the same as --init random"},
    {"--knn-indices", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "with --knn-distances: the k-NN as `umap knn` writes it (n x k,\n"
     "the row itself excluded; indices .npy, .csv or raw .i32,\n"
     "distances .npy, .csv or raw .f32): fit skips its own search;\n"
     "--k defaults to k + 1 and, if given, must be k + 1"},
    {"--knn-distances", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "the distances beside --knn-indices"},
    {"--local-connectivity", "X", UMAP_CLI__FLOAT, 0, 0, UMAP_CLI__CFG(local_connectivity), NULL, NULL,
     "neighbours assumed fully connected, in [0, k - 1]"},
    {"--bandwidth", "X", UMAP_CLI__FLOAT, 0, 0, UMAP_CLI__CFG(bandwidth), NULL, NULL,
     "the memberships sum to log2(k) x bandwidth, in (0, 1e6)"},
    {"--set-op-mix-ratio", "X", UMAP_CLI__FLOAT, 0, 0, UMAP_CLI__CFG(set_op_mix_ratio), NULL, NULL,
     "1 = fuzzy union, 0 = fuzzy intersection, in [0, 1]"},
    {"--disconnection-distance", "X", UMAP_CLI__FLOAT, 0, 0, UMAP_CLI__CFG(disconnection_distance), NULL, "auto",
     "k-NN edges at least this long are dropped (> 0; 0 = none); rows left without any\n"
     "are named in a warning and placed by the encoder alone (auto:\n"
     "umap-learn's, the metric's largest distance: cosine and correlation 2,\n"
     "jaccard, dice and hellinger 1; none for the others)"},
    {"--repulsion-strength", "X", UMAP_CLI__FLOAT, 0, 0, UMAP_CLI__CFG(repulsion_strength), NULL, NULL,
     "weight of the negative samples, in [0, 1e6)"},
    {"--negative-sample-rate", "N", UMAP_CLI__INT, 0, 0, UMAP_CLI__CFG(negative_sample_rate), NULL, NULL,
     "negatives per sampled edge, 1..1000"},
    {"--a", "X", UMAP_CLI__FLOAT, 0, 0, UMAP_CLI__CFG(a), NULL, "fitted from --min-dist, --spread",
     "with --b: the curve 1 / (1 + a d^2b) as given, a in\n[1e-30, 1e30]"},
    {"--b", "X", UMAP_CLI__FLOAT, 0, 0, UMAP_CLI__CFG(b), NULL, "fitted from --min-dist, --spread",
     "with --a: the curve's b, in [0.01, 8]"},
    {"--refine-epochs", "N", UMAP_CLI__INT, 0, 0, UMAP_CLI__CFG(refine_epochs), NULL, "auto",
     "classic UMAP epochs on the embedding after training, as umap-learn's\n"
     "n_epochs counts them (auto: 200 up to 250,000 rows, then falling as\n"
     "1/sqrt(rows), at least 50; twice that with --densmap; 0 = off)"},
    {"--refine-attraction", "X", UMAP_CLI__FLOAT, 0, 0, UMAP_CLI__CFG(refine_attraction), NULL, "auto",
     "the weight of an edge's pull against its negative samples' push in the\n"
     "refinement and in transform's placement, in [0, 1000); umap-learn's SGD\n"
     "weighs it 2 (each edge sampled from both ends, moving both rows); auto:\n"
     "0.5, finer neighbourhoods with less space between clusters; 1 with --target;\n"
     "2 with --densmap"},
    {"--densmap", NULL, UMAP_CLI__FLAG, 1, 0, UMAP_CLI__CFG(densmap), NULL, NULL,
     "densMAP: the refinement's last --dens-frac of epochs keep each row's\n"
     "local radius (dense regions dense, sparse ones spread); the encoder\n"
     "learns that layout, so `umap transform` places new rows by it"},
    {"--dens-lambda", "X", UMAP_CLI__FLOAT, 0, 0, UMAP_CLI__CFG(dens_lambda), NULL, NULL,
     "densMAP's weight against UMAP's objective, in [0, 1e6)"},
    {"--dens-frac", "X", UMAP_CLI__FLOAT, 0, 0, UMAP_CLI__CFG(dens_frac), NULL, NULL,
     "the share of refinement epochs, the last ones, with densMAP's term,\nin [0, 1]"},
    {"--dens-var-shift", "X", UMAP_CLI__FLOAT, 0, 0, UMAP_CLI__CFG(dens_var_shift), NULL, NULL,
     "added to the embedding radii's variance, in [0, 1e6)"},
    {"--distill-epochs", "N", UMAP_CLI__INT, 0, 0, UMAP_CLI__CFG(distill_epochs), NULL, "auto",
     "passes fitting the encoder to the refined embedding (auto: 10, fewer\n"
     "where 10 would take more than 6,000 steps)"},
    {"--decoder-epochs", "N", UMAP_CLI__INT, 0, 0, UMAP_CLI__CFG(decoder_epochs), NULL, "0 = none",
     "train a decoder for this many passes after the embedding, kept in\n"
     "--save's model, so that `umap inverse` maps places back to rows"},
    {"--input-dims", "P", UMAP_CLI__INT, 0, 0, UMAP_CLI__CFG(input_dims), NULL, NULL,
     "the encoder's fixed first layer: the top P principal axes of the\n"
     "z-scored rows, when the data have more columns (precomputed: the\n"
     "distances to P landmark rows, or a sparse graph's memberships on their\n"
     "top P axes); 0 = none"},
    {"--keep-data", NULL, UMAP_CLI__FLAG, 1, 0, UMAP_CLI__CFG(keep_data), NULL, NULL,
     "the model keeps the training rows and their embedding (n x d floats\n"
     "more, in memory and in --save's file), and `umap transform` places\n"
     "new rows among their nearest training rows as umap-learn and uwot\n"
     "do: better neighbourhoods than the encoder, for the kept rows and a\n"
     "search of them (a walk along their k-NN graph) per transform"},
    {"--keep-sketch", NULL, UMAP_CLI__FLAG, 2, 0, UMAP_CLI__CFG(keep_data), NULL, NULL,
     "as --keep-data, with the rows' sketch (the centred rows on their 48\n"
     "leading principal axes: n x 48 floats instead of n x d) in place of\n"
     "the rows, their neighbours by euclidean distance there; a smaller\n"
     "model and a faster transform, at about --keep-data's quality;\n"
     "--metric euclidean only"},
    {"--keep-sample", "N", UMAP_CLI__INT, 0, 0, UMAP_CLI__CFG(keep_sample), NULL, NULL,
     "keep at most N rows (drawn by --seed, with their own k-NN graph);\n"
     "0 = all. Without --keep-data or --keep-sketch the model keeps the\n"
     "sketch of 16,384 rows by default (euclidean, 2 components): a fixed-size\n"
     "model (about 5 MB for 784 columns) that places new rows among them"},
    {"--keep-none", NULL, UMAP_CLI__FLAG, 0, 0, UMAP_CLI__CFG(keep_data), NULL, NULL,
     "keep no training rows: the smallest model, whose transform is the\n"
     "encoder alone"},
    {"--no-standardize", NULL, UMAP_CLI__FLAG, 0, 0, UMAP_CLI__CFG(standardize), NULL, NULL,
     "feed the encoder the raw features"},
    {"--unique", NULL, UMAP_CLI__FLAG, 1, 0, UMAP_CLI__CFG(unique), NULL, NULL,
     "identical rows are one row: fit runs on the distinct rows and every\n"
     "copy gets its row's place (umap-learn's unique=True)"},
    {"--patience", "N", UMAP_CLI__INT, 0, 0, UMAP_CLI__CFG(patience), NULL, "0 = off",
     "stop after N epochs without improvement"},
    {"--timeout", "S", UMAP_CLI__DOUBLE, 0, 0, UMAP_CLI__CFG(timeout_s), NULL, "0 = off",
     "stop training after S seconds"},
    {"--device", "cpu|vulkan|auto", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, "cpu",
     "vulkan: exact k-NN and the training steps on the GPU\n"
     "(the refinement and the final embedding stay on the CPU);\n"
     "auto: vulkan when a calibration says the GPU is faster"},
    {"--quiet", NULL, UMAP_CLI__FLAG, 1, 0, UMAP_CLI__OWN, NULL, NULL, "no progress, no summary"},
};

/* umap_cli__parse_table's opts array holds UMAP_CLI__MAX_OPTIONS */
typedef char umap_cli__fit_options_fit[UMAP_CLI__COUNT(umap_cli__fit_options) <= UMAP_CLI__MAX_OPTIONS ? 1 : -1];
static const umap_cli__command umap_cli__fit_command = {
    "fit", "usage: umap fit --input FILE [options]\n       umap fit --synthetic N [options]\n",
    umap_cli__fit_options, UMAP_CLI__COUNT(umap_cli__fit_options), 1};

static const umap_cli__option umap_cli__transform_options[] = {
    {"--model", "MODEL", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "a model written by `umap fit --save` (required)"},
    {"--input", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "rows to embed, d features as in training (required); sparse rows\n"
     "as .npz or svmlight text"},
    UMAP_CLI__SPARSE_DIM_OPTION,
    UMAP_CLI__SVMLIGHT_BASE_OPTION,
    {"--rows", "N", UMAP_CLI__INT64, 1, (double)LLONG_MAX, UMAP_CLI__OWN, NULL, NULL,
     "only the first N rows of --input (and of --labels)"},
    {"--output", "OUT", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL, "the embedding (.npy, .csv, .f32) (required)"},
    {"--labels", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL, "labels for the plot"},
    {"--svg", "PLOT", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL, "write a scatter plot of the embedding"},
    {"--class-names", "A,B,...", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL, "legend names for labels 0, 1, ..."},
    {"--title", "TEXT", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL, "the plot's title"},
    {"--encoder-only", NULL, UMAP_CLI__FLAG, 1, 0, UMAP_CLI__OWN, NULL, NULL,
     "embed by the encoder alone, also with a model that keeps rows (the\n"
     "default's sample, --keep-data or --keep-sketch; such a model\n"
     "otherwise places rows among their nearest kept rows)"},
    {"--transform-epochs", "N", UMAP_CLI__INT, 0, 100000, offsetof(umap_transform_desc, epochs), NULL, "0 = auto",
     "the placement's epochs, for a model that keeps rows (not fitted\n"
     "with --keep-none): for 2 components the steps of one descent (auto 30;\n"
     "more only make it finer), else SGD epochs (auto: 100 for up to\n"
     "10,000 rows, else 30)"},
    {"--exact-neighbors", NULL, UMAP_CLI__FLAG, 1, 0, offsetof(umap_transform_desc, exact_neighbors), NULL, NULL,
     "for a model that keeps rows (not fitted with --keep-none): find the\n"
     "nearest kept rows by the exact search (every kept row for\n"
     "each new row) instead\n"
     "of the walk along the kept k-NN graph from where the encoder puts\n"
     "the row"},
    {"--threads", "T", UMAP_CLI__INT, 0, 4096, offsetof(umap_transform_desc, n_threads), NULL, "0 = all cores",
     "worker threads; never change the result"},
    {"--quiet", NULL, UMAP_CLI__FLAG, 1, 0, UMAP_CLI__OWN, NULL, NULL, "no progress, no summary"},
};

/* umap_cli__parse_table's opts array holds UMAP_CLI__MAX_OPTIONS */
typedef char umap_cli__transform_options_fit[UMAP_CLI__COUNT(umap_cli__transform_options) <= UMAP_CLI__MAX_OPTIONS ? 1 : -1];
static const umap_cli__command umap_cli__transform_command = {
    "transform", "usage: umap transform --model MODEL --input FILE --output OUT [options]\n",
    umap_cli__transform_options, UMAP_CLI__COUNT(umap_cli__transform_options), 0};

/* inverse's own settings (umap_cli__parse_table fills a struct) */
typedef struct umap_cli__inverse_args {
    int n_threads;
} umap_cli__inverse_args;

static const umap_cli__option umap_cli__inverse_options[] = {
    {"--model", "MODEL", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "a model fitted with --decoder-epochs and written by --save (required)"},
    {"--input", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "places in the embedding, n_components columns (required)"},
    {"--dim", "D", UMAP_CLI__INT, 1, 1 << 24, UMAP_CLI__OWN, NULL, NULL, "row width of a raw .f32 input"},
    {"--rows", "N", UMAP_CLI__INT64, 1, (double)LLONG_MAX, UMAP_CLI__OWN, NULL, NULL, "only the first N rows of --input"},
    {"--output", "OUT", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "the rows in data space, n_features columns (.npy, .csv, .f32) (required)"},
    {"--threads", "T", UMAP_CLI__INT, 0, 4096, offsetof(umap_cli__inverse_args, n_threads), NULL, "0 = all cores",
     "worker threads; never change the result"},
    {"--quiet", NULL, UMAP_CLI__FLAG, 1, 0, UMAP_CLI__OWN, NULL, NULL, "no summary"},
};

typedef char umap_cli__inverse_options_fit[UMAP_CLI__COUNT(umap_cli__inverse_options) <= UMAP_CLI__MAX_OPTIONS ? 1 : -1];
static const umap_cli__command umap_cli__inverse_command = {
    "inverse", "usage: umap inverse --model MODEL --input EMBEDDING --output OUT [options]\n",
    umap_cli__inverse_options, UMAP_CLI__COUNT(umap_cli__inverse_options), 0};

static const umap_cli__option umap_cli__update_options[] = {
    {"--model", "MODEL", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "a model written by `umap fit --save` (required)"},
    {"--input", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "the new rows, d features as in training (required); sparse rows as\n"
     ".npz or svmlight text"},
    {"--old", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "the rows the model was fitted on, in their order, in the form of\n"
     "--input; needed unless it was fitted with --keep-data (all rows)"},
    UMAP_CLI__SPARSE_DIM_OPTION,
    UMAP_CLI__SVMLIGHT_BASE_OPTION,
    {"--save", "MODEL", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "write the grown model (.safetensors or .gguf) (required); it may be\n"
     "--model itself, replaced only once the update has succeeded"},
    {"--embedding", "OUT", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "every row's place, the old rows' first (.npy, .csv, .f32)"},
    {"--refine-epochs", "N", UMAP_CLI__INT, 1, 100000, offsetof(umap_update_desc, refine_epochs), NULL,
     "the model's", "epochs that place the new rows among the old, which stay"},
    {"--distill-epochs", "N", UMAP_CLI__INT, 1, 100000, offsetof(umap_update_desc, distill_epochs), NULL,
     "the model's", "passes of the encoder over all rows onto their places"},
    {"--threads", "T", UMAP_CLI__INT, 0, 4096, offsetof(umap_update_desc, n_threads), NULL, "0 = all cores",
     "worker threads; never change the result"},
    {"--quiet", NULL, UMAP_CLI__FLAG, 1, 0, UMAP_CLI__OWN, NULL, NULL, "no summary"},
};

typedef char umap_cli__update_options_fit[UMAP_CLI__COUNT(umap_cli__update_options) <= UMAP_CLI__MAX_OPTIONS ? 1 : -1];
static const umap_cli__command umap_cli__update_command = {
    "update", "usage: umap update --model MODEL --input NEW --save MODEL [--old ROWS] [options]\n",
    umap_cli__update_options, UMAP_CLI__COUNT(umap_cli__update_options), 0};

static const umap_cli__option umap_cli__knn_options[] = {
    {"--input", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "the data (required); sparse rows as .npz or svmlight text"},
    UMAP_CLI__SPARSE_DIM_OPTION,
    UMAP_CLI__SVMLIGHT_BASE_OPTION,
    {"--rows", "N", UMAP_CLI__INT64, 1, (double)LLONG_MAX, UMAP_CLI__OWN, NULL, NULL, "only the first N rows of --input"},
    {"--k", "K", UMAP_CLI__INT, 1, 100000, offsetof(umap_knn_desc, k), NULL, "",
     "neighbours per row, the row itself excluded (required)"},
    {"--output", "OUT", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "n x k int32 indices (.npy, .csv, .i32) (required)"},
    {"--distances", "OUT", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL, "n x k distances (.npy, .csv, .f32)"},
    {"--metric", "NAME", UMAP_CLI__CHOICE, 0, 0, offsetof(umap_knn_desc, metric), umap_cli__set_metric, "euclidean",
     UMAP_CLI__METRIC_DOC},
    {"--metric-p", "P", UMAP_CLI__FLOAT, 1, FLT_MAX, offsetof(umap_knn_desc, metric_p), NULL, "2",
     UMAP_CLI__METRIC_P_HELP},
    {"--metric-v", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL, UMAP_CLI__METRIC_V_HELP},
    {"--method", "auto|exact|nndescent", UMAP_CLI__CHOICE, 0, 0, offsetof(umap_knn_desc, method), umap_cli__set_method,
     "auto", "the search"},
    {"--device", "cpu|vulkan|auto", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, "cpu",
     "vulkan: exact search on the GPU; auto: when calibrated faster"},
    {"--seed", "S", UMAP_CLI__UINT64, 0, (double)LLONG_MAX, offsetof(umap_knn_desc, seed), NULL, NULL,
     "NN-Descent's seed"},
    {"--threads", "T", UMAP_CLI__INT, 0, 4096, offsetof(umap_knn_desc, n_threads), NULL, "0 = all cores",
     "worker threads"},
    {"--quiet", NULL, UMAP_CLI__FLAG, 1, 0, UMAP_CLI__OWN, NULL, NULL, "no progress, no summary"},
};

/* umap_cli__parse_table's opts array holds UMAP_CLI__MAX_OPTIONS */
typedef char umap_cli__knn_options_fit[UMAP_CLI__COUNT(umap_cli__knn_options) <= UMAP_CLI__MAX_OPTIONS ? 1 : -1];
static const umap_cli__command umap_cli__knn_command = {"knn",
                                                        "usage: umap knn --input FILE --k K --output OUT [options]\n",
                                                        umap_cli__knn_options, UMAP_CLI__COUNT(umap_cli__knn_options), 0};

static const umap_cli__option umap_cli__eval_options[] = {
    {"--input", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "the high-dimensional data (required); sparse rows as .npz or svmlight\n"
     "text"},
    UMAP_CLI__SPARSE_DIM_OPTION,
    UMAP_CLI__SVMLIGHT_BASE_OPTION,
    {"--embedding", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "its embedding, same number of rows (required)"},
    {"--embedding-dim", "D", UMAP_CLI__INT, 1, 1024, UMAP_CLI__OWN, NULL, "2", "row width of a raw .f32 embedding"},
    {"--rows", "N", UMAP_CLI__INT64, 1, (double)LLONG_MAX, UMAP_CLI__OWN, NULL, NULL,
     "only the first N rows of --input (and of --embedding, --labels); the embedding may\n"
     "also be of those N rows alone"},
    {"--labels", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "integer labels: adds the 10-NN classifier accuracy"},
    {"--k", "K", UMAP_CLI__INT, 1, 100000, offsetof(umap_quality_desc, k), NULL, NULL, "neighbourhood size"},
    {"--metric", "NAME", UMAP_CLI__CHOICE, 0, 0, offsetof(umap_quality_desc, metric), umap_cli__set_metric,
     "euclidean", UMAP_CLI__METRIC_DOC},
    {"--metric-p", "P", UMAP_CLI__FLOAT, 1, FLT_MAX, offsetof(umap_quality_desc, metric_p), NULL, "2",
     UMAP_CLI__METRIC_P_HELP},
    {"--metric-v", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL, UMAP_CLI__METRIC_V_HELP},
    {"--queries", "N", UMAP_CLI__INT64, 0, (double)LLONG_MAX, offsetof(umap_quality_desc, n_queries), NULL, NULL,
     "rows evaluated, evenly spaced; 0 = all"},
    {"--threads", "T", UMAP_CLI__INT, 0, 4096, offsetof(umap_quality_desc, n_threads), NULL, "0 = all cores",
     "worker threads"},
};

/* umap_cli__parse_table's opts array holds UMAP_CLI__MAX_OPTIONS */
typedef char umap_cli__eval_options_fit[UMAP_CLI__COUNT(umap_cli__eval_options) <= UMAP_CLI__MAX_OPTIONS ? 1 : -1];
static const umap_cli__command umap_cli__eval_command = {
    "eval", "usage: umap eval --input FILE --embedding FILE [options]\n", umap_cli__eval_options,
    UMAP_CLI__COUNT(umap_cli__eval_options), 0};

static const char *umap_cli__method_name(umap_knn_method m) {
    return m == UMAP_KNN_EXACT ? "exact" : m == UMAP_KNN_NNDESCENT ? "nndescent" : "auto";
}

static const char *umap_cli__stop_name(umap_stop_reason r) {
    switch (r) {
    case UMAP_STOP_NONE: return "not trained";
    case UMAP_STOP_EPOCHS: return "all epochs run";
    case UMAP_STOP_PATIENCE: return "patience (no improvement)";
    case UMAP_STOP_MIN_LOSS: return "reached the desired loss";
    case UMAP_STOP_TIMEOUT: return "timeout";
    case UMAP_STOP_CANCELLED: return "cancelled";
    case UMAP_STOP_NON_FINITE: return "loss became NaN/Inf (best weights kept)";
    }
    return "?";
}

/* >>cli: helpers ----------------------------------------------------------- */

/* monotonic seconds (Windows has no clock_gettime without winpthreads) */
static double umap_cli__now(void) {
#ifdef _WIN32
    LARGE_INTEGER freq, now;
    QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&now);
    return (double)now.QuadPart / (double)freq.QuadPart;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
}

/* a library error: "umap: <what failed>: <result string>: <why>", exit
   status 1; a detail that only repeats the result string is left out */
static int umap_cli__lib_error(umap_result r, const char *what, const char *detail) {
    const char *rs = umap_result_string(r);
    if (detail && detail[0] && strcmp(detail, rs) != 0)
        fprintf(stderr, "umap: %s: %s: %s\n", what, rs, detail);
    else
        fprintf(stderr, "umap: %s: %s\n", what, rs);
    return 1;
}

/* why umap_quality_eval refuses n rows (it says only "invalid argument"):
   trustworthiness needs 2n - 3k - 1 > 0 and k < n, the classifier ck < n */
static void umap_cli__quality_why(int64_t n, int k, int ck, umap_result r, char *buf, size_t size) {
    int64_t need = (3 * (int64_t)k + 1) / 2 + 1; /* the least n with 2n - 3k - 1 > 0 */
    if (need < (int64_t)k + 1) need = (int64_t)k + 1;
    if (need < (int64_t)ck + 1) need = (int64_t)ck + 1;
    if (r == UMAP_ERR_INVALID_ARGUMENT && n < need)
        snprintf(buf, size, "%lld rows are too few: trustworthiness@%d and the %d-NN classifier need at least %lld",
                 (long long)n, k, ck, (long long)need);
    else
        snprintf(buf, size, "%lld rows, k %d", (long long)n, k);
}

static int umap_cli__io_error(const char *msg) {
    fprintf(stderr, "umap: %s\n", msg);
    return 1;
}

/* --rows N: the first N rows of a file of *rows (0 keeps all); 1 after a
   message that names both counts */
static int umap_cli__keep_rows(const char *option, const char *path, int64_t *rows, long long keep) {
    if (keep == 0) return 0;
    if (keep > *rows) {
        fprintf(stderr, "umap: --rows %lld: %s %s has only %lld rows\n", keep, option, path, (long long)*rows);
        return 1;
    }
    *rows = keep;
    return 0;
}

/* the data of --input; *file_rows gets the file's row count, m->rows the
   first `keep` of them (--rows; 0 = all). The per-row files given with it
   (labels, target, init, embedding) are checked against the file's count
   and cut the same way. A command that takes sparse rows passes sp: a
   sparse file goes there (m->rows and m->cols give its shape, m->data
   stays NULL); width is svmlight's (0: its largest index). */
static int umap_cli__read_input(const char *path, const umap_cli__opt *opts, int64_t width, long long keep,
                                umap_io_matrix *m, umap_io_sparse *sp, int64_t *file_rows) {
    char err[1024];
    const char *dim_opt = umap_cli__get(opts, "--dim"), *base_opt = sp ? umap_cli__get(opts, "--svmlight-base") : NULL;
    long long dim = dim_opt ? strtoll(dim_opt, NULL, 10) : 0;
    memset(m, 0, sizeof *m);
    if (sp) memset(sp, 0, sizeof *sp);
    if (umap_io_is_sparse(path)) {
        if (!sp) {
            fprintf(stderr, "umap: %s: sparse rows; this command reads dense ones (.npy, .csv, IDX, .f32)\n", path);
            return 1;
        }
        if (umap_io_read_sparse(path, base_opt ? atoi(base_opt) : -1, dim ? (int64_t)dim : width, sp, err,
                                sizeof err))
            return umap_cli__io_error(err);
        m->rows = *file_rows = sp->rows;
        m->cols = sp->cols;
        if (umap_cli__keep_rows("--input", path, &m->rows, keep)) {
            umap_io_sparse_free(sp);
            return 1;
        }
        sp->rows = m->rows; /* the first rows of a CSR are its prefix */
        return 0;
    }
    if (base_opt) {
        fprintf(stderr, "umap: --svmlight-base: %s is not svmlight text (.svm, .svmlight, .libsvm)\n", path);
        return 1;
    }
    if (umap_io_read_matrix(path, (int64_t)dim, m, err, sizeof err)) return umap_cli__io_error(err);
    *file_rows = m->rows;
    if (umap_cli__keep_rows("--input", path, &m->rows, keep)) {
        umap_io_matrix_free(m);
        return 1;
    }
    return 0;
}

/* the library's description of what umap_cli__read_input read */
static umap_rows umap_cli__rows(const umap_io_matrix *m, const umap_io_sparse *sp) {
    if (sp && sp->indptr) return umap_rows_csr(sp->rows, sp->cols, sp->indptr, sp->indices, sp->values);
    return umap_rows_dense(m->data, m->rows, m->cols);
}

static int umap_cli__read_labels(const char *path, int64_t n, umap_io_labels *l) {
    char err[1024];
    if (umap_io_read_labels(path, l, err, sizeof err)) return umap_cli__io_error(err);
    if (l->n != n) {
        fprintf(stderr, "umap: %s: %lld labels for %lld rows\n", path, (long long)l->n, (long long)n);
        umap_io_labels_free(l);
        return 1;
    }
    return 0;
}

/* --target: integer labels (categorical) or n rows of values; a short or
   long file is an error that names both counts */
static int umap_cli__read_target(const char *path, const char *metric, int64_t n, umap_io_labels *labels,
                                 umap_io_matrix *values) {
    char err[1024];
    if (!strcmp(metric, "categorical")) {
        if (umap_io_read_labels(path, labels, err, sizeof err)) {
            fprintf(stderr, "umap: --target %s (a categorical target is integer labels; --target-metric euclidean "
                            "reads values)\n", err);
            return 1;
        }
        if (labels->n == n) return 0;
        fprintf(stderr, "umap: --target %s: %lld labels for %lld rows\n", path, (long long)labels->n, (long long)n);
        umap_io_labels_free(labels);
        return 1;
    }
    if (umap_io_read_matrix(path, 1, values, err, sizeof err)) {
        fprintf(stderr, "umap: --target %s\n", err);
        return 1;
    }
    if (values->rows == n) return 0;
    fprintf(stderr, "umap: --target %s: %lld rows of values for %lld rows of data\n", path, (long long)values->rows,
            (long long)n);
    umap_io_matrix_free(values);
    return 1;
}

static const char *umap_cli__basename(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* plots the first two columns of an n x dim embedding (dim >= 2, checked
   before any work) into an open staged output */
static int umap_cli__svg(FILE *f, const char *path, const float *emb, int64_t n, int dim, const int32_t *labels,
                         const char *title, const char *class_names) {
    char err[1024], *names_buf = NULL;
    const char *names[256];
    int n_names = 0;
    float *xy = NULL;
    const float *pts = emb;
    int rc;
    if (class_names && class_names[0]) { /* split a copy at the commas */
        char *p;
        names_buf = (char *)malloc(strlen(class_names) + 1);
        if (!names_buf) return umap_cli__io_error("--class-names: out of memory for a copy of the names");
        strcpy(names_buf, class_names);
        for (p = names_buf; n_names < 256;) {
            char *c = strchr(p, ',');
            names[n_names++] = p;
            if (!c) break;
            *c = 0;
            p = c + 1;
        }
    }
    if (dim > 2) {
        int64_t i;
        xy = (float *)malloc((size_t)n * 2 * sizeof *xy);
        if (!xy) {
            free(names_buf);
            fprintf(stderr, "umap: %s: out of memory for the plot's %lld points\n", path, (long long)n);
            return 1;
        }
        for (i = 0; i < n; i++) {
            xy[2 * i] = emb[i * dim];
            xy[2 * i + 1] = emb[i * dim + 1];
        }
        pts = xy;
    }
    rc = umap_svg_write_file(f, path, pts, n, labels, n_names ? names : NULL, n_names, title, err, sizeof err);
    free(xy);
    free(names_buf);
    if (rc != 0) return umap_cli__io_error(err);
    return 0;
}

/* >>cli: outputs ----------------------------------------------------------- */

/* What a command writes. Every output is checked before any work (its
   extension, its directory, no clash with an input or another output), then
   staged (umap_output) while the job runs, and renamed into place only
   after every one was written: a failure at any point leaves every existing
   file as it was. */
typedef enum umap_cli__kind { UMAP_CLI_MODEL, UMAP_CLI_F32, UMAP_CLI_I32, UMAP_CLI_SVG, UMAP_CLI_INPUT } umap_cli__kind;

typedef struct umap_cli__file {
    const char *option; /* "--save", ... */
    const char *path;   /* NULL: not given */
    umap_cli__kind kind;
} umap_cli__file;

#define UMAP_CLI__MAX_OUTPUTS 4

typedef struct umap_cli__outputs {
    umap_output o[UMAP_CLI__MAX_OUTPUTS];
    int n;
} umap_cli__outputs;

/* path ends in ext (lower case), any case: the plot's name, which no
   writer checks for the CLI (a model's is umap_save_supports) */
static int umap_cli__has_ext(const char *path, const char *ext) {
    size_t n = strlen(path), k = strlen(ext), i;
    if (n <= k || path[n - k - 1] == '/') return 0;
    for (i = 0; i < k; i++) {
        char a = path[n - k + i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (a != ext[i]) return 0;
    }
    return 1;
}

/* the file a path names: its device and inode when it exists, else its
   directory's and its name (so "out.npy" and "./sub/../out.npy" match) */
typedef struct umap_cli__id {
    int exists, known;
    unsigned long long dev, ino;
    const char *name;
} umap_cli__id;

/* the device and inode of what path names; 0 when it cannot be read.
   Windows' stat has no inode (st_ino is 0 for every file): there the
   volume's serial number and the file's index name a file. */
static int umap_cli__file_id(const char *path, unsigned long long *dev, unsigned long long *ino) {
#ifdef _WIN32
    BY_HANDLE_FILE_INFORMATION fi;
    int ok;
    HANDLE h = CreateFileA(path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                           FILE_FLAG_BACKUP_SEMANTICS /* a directory too */, NULL);
    if (h == INVALID_HANDLE_VALUE) return 0;
    ok = GetFileInformationByHandle(h, &fi) != 0;
    CloseHandle(h);
    if (!ok) return 0;
    *dev = fi.dwVolumeSerialNumber;
    *ino = (unsigned long long)fi.nFileIndexHigh << 32 | fi.nFileIndexLow;
    return 1;
#else
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    *dev = (unsigned long long)st.st_dev;
    *ino = (unsigned long long)st.st_ino;
    return 1;
#endif
}

static void umap_cli__identify(const char *path, umap_cli__id *id) {
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    memset(id, 0, sizeof *id);
    if (umap_cli__file_id(path, &id->dev, &id->ino)) {
        id->exists = id->known = 1;
    } else {
        if (!slash) snprintf(dir, sizeof dir, ".");
        else if (slash == path) snprintf(dir, sizeof dir, "/");
        else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
        if (!umap_cli__file_id(dir, &id->dev, &id->ino)) return;
        id->known = 1;
        id->name = slash ? slash + 1 : path;
    }
}

static int umap_cli__same(const umap_cli__id *a, const umap_cli__id *b) {
    if (!a->known || !b->known || a->exists != b->exists || a->dev != b->dev || a->ino != b->ino) return 0;
    return a->exists || !strcmp(a->name, b->name);
}

/* a command line that cannot work, found before any work: one line, status 2 */
static int umap_cli__refuse(const char *cmd, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "umap %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    return 2;
}

/* Checks inputs and outputs before the data is read. Returns an exit
   status: 0 go on, 2 a command line that cannot work (a clash, a wrong
   extension), 1 a file system that will not take the outputs. */
#define UMAP_CLI__MAX_FILES 12
static int umap_cli__check_files(const char *cmd, const umap_cli__file *files, int n_files) {
    umap_cli__id ids[UMAP_CLI__MAX_FILES];
    int i, j;
    char err[1024];
    if (n_files > UMAP_CLI__MAX_FILES) {
        fprintf(stderr, "umap %s: internal error: %d files to check, at most %d\n", cmd, n_files, UMAP_CLI__MAX_FILES);
        return 1;
    }
    for (i = 0; i < n_files; i++) {
        const umap_cli__file *f = &files[i];
        struct stat st;
        int is_dir;
        if (!f->path) continue;
        is_dir = stat(f->path, &st) == 0 && S_ISDIR(st.st_mode);
        if (f->kind == UMAP_CLI_INPUT) {
            if (is_dir) {
                fprintf(stderr, "umap: %s %s: is a directory\n", f->option, f->path);
                return 1;
            }
            continue;
        }
        if (is_dir) {
            fprintf(stderr, "umap: %s %s: is a directory, not a file to write\n", f->option, f->path);
            return 1;
        }
        switch (f->kind) {
        case UMAP_CLI_MODEL:
            if (!umap_save_supports(f->path))
                return umap_cli__refuse(cmd, "%s %s: a model is saved as .safetensors or .gguf", f->option,
                                             f->path);
            break;
        case UMAP_CLI_SVG:
            if (!umap_cli__has_ext(f->path, ".svg"))
                return umap_cli__refuse(cmd, "%s %s: the plot is an SVG file, name it .svg", f->option,
                                             f->path);
            break;
        default:
            if (umap_io_check_output(f->path, f->kind == UMAP_CLI_I32, 0, err, sizeof err))
                return umap_cli__refuse(cmd, "%s %s", f->option, err);
        }
        { /* the directory: there, a directory, and one we can create files in */
            const char *slash = strrchr(f->path, '/');
            char dir[PATH_MAX];
            umap_output probe;
            if (!slash) snprintf(dir, sizeof dir, ".");
            else if (slash == f->path) snprintf(dir, sizeof dir, "/");
            else snprintf(dir, sizeof dir, "%.*s", (int)(slash - f->path), f->path);
            if (stat(dir, &st) != 0) {
                fprintf(stderr, "umap: %s %s: the directory %s: %s\n", f->option, f->path, dir, strerror(errno));
                return 1;
            }
            if (!S_ISDIR(st.st_mode)) {
                fprintf(stderr, "umap: %s %s: %s is not a directory\n", f->option, f->path, dir);
                return 1;
            }
            if (stat(f->path, &st) == 0 && !S_ISREG(st.st_mode)) continue; /* a device or FIFO: written directly */
            if (umap_output_open(&probe, f->path) != UMAP_OK) {
                fprintf(stderr, "umap: %s %s\n", f->option, probe.error);
                return 1;
            }
            umap_output_discard(&probe);
        }
    }
    for (i = 0; i < n_files; i++)
        if (files[i].path) umap_cli__identify(files[i].path, &ids[i]);
    for (i = 0; i < n_files; i++)
        for (j = i + 1; j < n_files; j++) {
            if (!files[i].path || !files[j].path) continue;
            if (files[i].kind == UMAP_CLI_INPUT && files[j].kind == UMAP_CLI_INPUT) continue; /* reading twice is fine */
            if (umap_cli__same(&ids[i], &ids[j]))
                return umap_cli__refuse(cmd, "%s %s and %s %s are the same file: %s", files[i].option,
                                             files[i].path, files[j].option, files[j].path,
                                             files[i].kind == UMAP_CLI_INPUT || files[j].kind == UMAP_CLI_INPUT
                                                 ? "an output would overwrite an input"
                                                 : "one output would overwrite the other");
        }
    return 0;
}

/* a staged output for path, or NULL after a message */
static umap_output *umap_cli__stage(umap_cli__outputs *outs, const char *option, const char *path) {
    umap_output *o;
    if (outs->n == UMAP_CLI__MAX_OUTPUTS) {
        fprintf(stderr, "umap: %s %s: internal error: more than %d outputs\n", option, path, UMAP_CLI__MAX_OUTPUTS);
        return NULL;
    }
    o = &outs->o[outs->n];
    if (umap_output_open(o, path) != UMAP_OK) {
        fprintf(stderr, "umap: %s %s\n", option, o->error);
        return NULL;
    }
    outs->n++;
    return o;
}

/* the output's bytes all out (the target still untouched); 1 after a message */
static int umap_cli__finish(umap_output *o, const char *option) {
    if (umap_output_finish(o) == UMAP_OK) return 0;
    fprintf(stderr, "umap: %s %s\n", option, o->error);
    return 1;
}

static void umap_cli__discard_all(umap_cli__outputs *outs) {
    int i;
    for (i = 0; i < outs->n; i++) umap_output_discard(&outs->o[i]);
    outs->n = 0;
}

/* an n x cols matrix (int32 when is_int) staged as path's format; an exit status */
static int umap_cli__stage_matrix(umap_cli__outputs *outs, const char *option, const char *path, const void *data,
                                  int64_t rows, int64_t cols, int is_int) {
    char err[1024];
    umap_output *o = umap_cli__stage(outs, option, path);
    if (!o) return 1;
    if (is_int ? umap_io_write_i32_file(o->file, path, (const int32_t *)data, rows, cols, err, sizeof err)
               : umap_io_write_matrix_file(o->file, path, (const float *)data, rows, cols, NULL, err, sizeof err))
        return umap_cli__io_error(err);
    return umap_cli__finish(o, option);
}

/* the model staged at path (--save), in the format its extension names; an exit status */
static int umap_cli__stage_model(umap_cli__outputs *outs, const char *path, const umap_model *model) {
    umap_result r;
    umap_output *o = umap_cli__stage(outs, "--save", path);
    if (!o) return 1;
    if ((r = umap_save_file(model, o->file, path)) == UMAP_OK || ferror(o->file))
        return umap_cli__finish(o, "--save") || r != UMAP_OK; /* after a write error it names the OS's reason */
    {
        char what[1200];
        snprintf(what, sizeof what, "saving the model to %s", path);
        return umap_cli__lib_error(r, what, "");
    }
}

/* the plot of an embedding staged at path (--svg); an exit status */
static int umap_cli__stage_svg(umap_cli__outputs *outs, const char *path, const float *emb, int64_t n, int dim,
                               const int32_t *labels, const char *title, const char *class_names) {
    int rc;
    umap_output *o = umap_cli__stage(outs, "--svg", path);
    if (!o) return 1;
    if ((rc = umap_cli__svg(o->file, path, emb, n, dim, labels, title, class_names)) != 0) return rc;
    return umap_cli__finish(o, "--svg");
}

/* the end of a job's outputs: all renamed into place when rc is 0, else
   all discarded; the job's exit status */
static int umap_cli__end_outputs(umap_cli__outputs *outs, int rc) {
    int i, pass;
    /* every one finished first, then every one renamed */
    for (pass = 0; pass < 2 && !rc; pass++)
        for (i = 0; i < outs->n && !rc; i++)
            if ((pass ? umap_output_commit(&outs->o[i]) : umap_output_finish(&outs->o[i])) != UMAP_OK) {
                fprintf(stderr, "umap: %s\n", outs->o[i].error);
                rc = 1;
            }
    umap_cli__discard_all(outs); /* harmless on committed outputs */
    return rc;
}

/* >>cli: --device ---------------------------------------------------------- */

/* Checks --device before any input is read: cpu, vulkan or auto. The GPU
   searches exactly, so NN-Descent with vulkan is a usage error, and with
   auto it means the CPU. Returns an exit status (0: go on); *device gets
   the device to open. */
static int umap_cli__device_arg(const char *cmd, const char *usage, const char **device, umap_knn_method method) {
    const char *dv = *device;
    if (!dv || !strcmp(dv, "cpu")) {
        *device = "cpu";
        return 0;
    }
    if (strcmp(dv, "vulkan") != 0 && strcmp(dv, "auto") != 0)
        return umap_cli__usage_error(cmd, usage, "--device: '%s' is not cpu, vulkan or auto", dv);
    if (method == UMAP_KNN_NNDESCENT) {
        if (!strcmp(dv, "vulkan"))
            return umap_cli__usage_error(cmd, usage, "NN-Descent runs on the CPU; --device vulkan searches exactly");
        *device = "cpu";
    }
    return 0;
}

/* umap_vk_calibrate through the tuning cache (umap tune writes it too): a
   device measured once is not measured on every run; the cache's problems
   are warnings, never a reason to stop */
static void umap_cli__tune_log(umap_log_level level, const char *message, void *user_data) {
    const int *quiet = (const int *)user_data;
    if (level <= UMAP_LOG_WARN) fprintf(stderr, "umap: warning: %s\n", message);
    else if (level == UMAP_LOG_INFO && quiet && !*quiet && !strncmp(message, "tune:", 5))
        fprintf(stderr, "umap %s\n", message);
}

static umap_result umap_cli__calibrate(umap_vk *vk, int quiet, umap_vk_calibration *c) {
    umap_logger logger;
    umap_tuner *t = NULL;
    char why[700];
    int measured = 0, silent = 1;
    umap_result r;
    memset(&logger, 0, sizeof logger);
    logger.log_fn = quiet ? NULL : umap_cli__tune_log;
    logger.user_data = &silent;
    if (umap_tuner_create(NULL, &logger, &t) != UMAP_OK || umap_tuner_load(t, NULL) != UMAP_OK) {
        umap_tuner_free(t);
        return umap_vk_calibrate(vk, c);
    }
    r = umap_vk_calibrate_cached(vk, t, 0, c, &measured);
    if (r == UMAP_OK && measured && umap_tuner_save(t, NULL, why, sizeof why) != UMAP_OK && !quiet)
        fprintf(stderr, "umap: warning: the calibration was not cached: %s\n", why);
    umap_tuner_free(t);
    return r;
}

/* Opens the device a checked --device names. cpu: *vk = NULL. vulkan: a
   GPU or an error (exit 1). auto: a GPU if there is one and a short
   calibration says it does an exact search of n rows x d faster than this
   CPU (the CPU's side is modelled as exact search too), else the CPU with a
   note. Returns an exit status, 0 to go on. UMAP_VK_ALLOW_CPU=1 lets a CPU
   driver (lavapipe) count. */
static int umap_cli__device(const char *device, int quiet, int64_t n, int64_t d, umap_vk **vk) {
    char why[512];
    umap_result r;
    umap_vk_device_info info;
    *vk = NULL;
    if (!strcmp(device, "cpu")) return 0;
    r = umap_vk_create(NULL, vk, why, sizeof why);
    if (r != UMAP_OK) {
        if (!strcmp(device, "vulkan")) {
            fprintf(stderr, "umap: --device vulkan: %s: %s\n", umap_result_string(r), why);
            return 1;
        }
        if (!quiet) fprintf(stderr, "umap: --device auto: no GPU (%s); the CPU it is\n", why);
        return 0;
    }
    umap_vk_device(*vk, &info);
    if (!strcmp(device, "auto")) {
        umap_vk_calibration c;
        int use_gpu;
        r = umap_cli__calibrate(*vk, quiet, &c);
        use_gpu = r == UMAP_OK && umap_vk_prefer(&c, 2.0 * (double)n * (double)n * (double)d, 4.0 * (double)n * (double)d, 4);
        if (r != UMAP_OK && !quiet)
            fprintf(stderr, "umap: --device auto: calibrating %s failed (%s); the CPU it is\n", info.name,
                    umap_result_string(r));
        else if (!use_gpu && !quiet)
            fprintf(stderr, "umap: --device auto: %s measures %.1f GFLOP/s against the CPU's %.1f; the CPU it is\n",
                    info.name, c.gpu_gflops, c.cpu_gflops);
        if (!use_gpu) {
            umap_vk_free(*vk);
            *vk = NULL;
            return 0;
        }
    }
    if (!quiet) fprintf(stderr, "umap: device: %s (Vulkan)\n", info.name);
    return 0;
}

/* >>cli: devices ------------------------------------------------------------ */

static const char umap_cli__usage_devices[] =
    "usage: umap devices [--calibrate]\n"
    "\n"
    "  lists the Vulkan devices (index, type, name, binding limit, device-local memory);\n"
    "  --calibrate also measures the one --device vulkan would use\n";

static int umap_cli__devices(int argc, char **argv) {
    static const char *cmd = "devices";
    umap_cli__opt opts[] = {{"--calibrate", 0, NULL}, {NULL, 0, NULL}};
    umap_vk_device_info list[16];
    char why[512];
    int rc = umap_cli__parse(cmd, umap_cli__usage_devices, argc, argv, opts), count = 0, i;
    umap_result r;
    if (rc == 1) {
        fputs(umap_cli__usage_devices, stdout);
        return 0;
    }
    if (rc) return rc;
    if ((r = umap_vk_devices(list, 16, &count, why, sizeof why)) != UMAP_OK) {
        fprintf(stderr, "umap: devices: %s: %s\n", umap_result_string(r), why);
        return 1;
    }
    for (i = 0; i < count && i < 16; i++)
        printf("%d  %-14s  %s  (bindings up to %lld MiB, %lld MiB device-local)\n", list[i].index,
               umap_vk_device_type_name(list[i].type), list[i].name, (long long)(list[i].max_binding_bytes >> 20),
               (long long)(list[i].device_local_bytes >> 20));
    if (umap_cli__get(opts, "--calibrate")) {
        umap_vk *vk = NULL;
        umap_vk_calibration c;
        if ((r = umap_vk_create(NULL, &vk, why, sizeof why)) != UMAP_OK) {
            fprintf(stderr, "umap: devices --calibrate: %s: %s\n", umap_result_string(r), why);
            return 1;
        }
        memset(&c, 0, sizeof c);
        r = umap_vk_calibrate(vk, &c);
        umap_vk_free(vk);
        if (r != UMAP_OK) return umap_cli__lib_error(r, "devices --calibrate: measuring the device", c.device_name);
        printf("calibration of %s: matmul %.1f GFLOP/s (CPU %.1f), transfers %.2f GB/s, %.0f us per run\n",
               c.device_name, c.gpu_gflops, c.cpu_gflops, c.transfer_gbps, c.dispatch_us);
    }
    return 0;
}

/* >>cli: tune ---------------------------------------------------------------- */

static const umap_cli__option umap_cli__tune_options[] = {
    {"--cache", "FILE", UMAP_CLI__STRING, 0, 0, UMAP_CLI__OWN, NULL, NULL,
     "the cache ($XDG_CACHE_HOME/umap/tune.txt, else\n~/.cache/umap/tune.txt)"},
    {"--dim", "D", UMAP_CLI__INT, 1, 1 << 24, UMAP_CLI__OWN, NULL, "784", "the data's columns"},
    {"--threads", "N", UMAP_CLI__INT, 0, 4096, UMAP_CLI__OWN, NULL, "all cores",
     "threads; tune with the count you run with"},
    {"--no-vulkan", NULL, UMAP_CLI__FLAG, 1, 0, UMAP_CLI__OWN, NULL, NULL, "leave the Vulkan calibration out"},
    {"--quiet", NULL, UMAP_CLI__FLAG, 1, 0, UMAP_CLI__OWN, NULL, NULL, "no per-shape lines"},
};
typedef char umap_cli__tune_options_fit[UMAP_CLI__COUNT(umap_cli__tune_options) <= UMAP_CLI__MAX_OPTIONS ? 1 : -1];
static const umap_cli__command umap_cli__tune_command = {
    "tune",
    "usage: umap tune [--cache FILE] [--dim D] [--threads N] [--no-vulkan] [--quiet]\n"
    "\n"
    "  times the portable sgemm's variants on the products of a fit and a transform\n"
    "  with the default encoder on D input columns, keeps the fastest per shape, and,\n"
    "  when a Vulkan device exists, calibrates it for --device auto; writes all of it\n"
    "  to the tuning cache. The variants give the same bits: tuning changes speed only.\n"
    "  UMAP_TUNE=1 (or UMAP_TUNE=FILE) makes fit, transform and knn use the cache\n"
    "  (tuning at first use what it lacks); --device auto always reads and fills it.\n",
    umap_cli__tune_options, UMAP_CLI__COUNT(umap_cli__tune_options), 0};

static int umap_cli__tune(int argc, char **argv) {
    char usage[UMAP_CLI__HELP_SIZE];
    umap_cli__opt opts[UMAP_CLI__MAX_OPTIONS + 1];
    umap_config cfg = umap_config_default();
    umap_logger logger;
    umap_tuner *t = NULL;
    umap_pool *pool = NULL;
    char path[1024], why[700];
    const char *cache;
    long long dim = 784, threads = 0;
    int64_t rows[3], widths[UMAP_MAX_HIDDEN + 3];
    int rc = umap_cli__parse_table(&umap_cli__tune_command, NULL, argc, argv, opts, NULL, usage, sizeof usage);
    int quiet, n_widths = 0, l, ri, shapes = 0;
    umap_result r;
    if (rc == 1) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc) return rc;
    dim = umap_cli__get_int(opts, "--dim", 784);
    threads = umap_cli__get_int(opts, "--threads", 0);
    quiet = umap_cli__get(opts, "--quiet") != NULL;
    cache = umap_cli__get(opts, "--cache");
    if (!cache) {
        if ((r = umap_tuner_default_path(path, sizeof path)) != UMAP_OK)
            return umap_cli__lib_error(r, "tune: no cache path (set HOME or XDG_CACHE_HOME, or give --cache)", NULL);
        cache = path;
    }
    memset(&logger, 0, sizeof logger);
    logger.log_fn = umap_cli__tune_log;
    logger.user_data = &quiet;
    if ((r = umap_tuner_create(NULL, &logger, &t)) != UMAP_OK ||
        (r = umap_pool_create((int)threads, NULL, &pool)) != UMAP_OK) {
        umap_tuner_free(t);
        return umap_cli__lib_error(r, "tune: starting", NULL);
    }
    if ((r = umap_tuner_load(t, cache)) != UMAP_OK) {
        umap_pool_free(pool);
        umap_tuner_free(t);
        return umap_cli__lib_error(r, "tune: reading the cache", cache);
    }
    /* the encoder's layer widths: D, the input projection, the hidden layers, the output */
    widths[n_widths++] = dim;
    if (cfg.input_dims > 0 && cfg.input_dims < dim) widths[n_widths++] = cfg.input_dims;
    for (l = 0; l < cfg.n_hidden && l < UMAP_MAX_HIDDEN; l++) widths[n_widths++] = cfg.hidden[l];
    widths[n_widths++] = cfg.n_components;
    /* rows: a warm-start or distillation batch, a training step's heads and
       tails (its negatives are drawn among them, not encoded again), and
       transform's blocks */
    rows[0] = (int64_t)cfg.batch_size;
    rows[1] = 2 * (int64_t)cfg.batch_size;
    rows[2] = 4096;
    if (!quiet) fprintf(stderr, "umap tune: %s, %d threads\n", umap_tuner_cpu(t), umap_pool_threads(pool));
    for (ri = 0; ri < 3 && r == UMAP_OK; ri++)
        for (l = 0; l + 1 < n_widths && r == UMAP_OK; l++) {
            /* forward x W, and backward's x^T dY and dY W^T */
            int64_t in = widths[l], out = widths[l + 1], R = rows[ri];
            const int64_t shape[3][5] = {{0, 0, R, out, in}, {1, 0, in, out, R}, {0, 1, R, in, out}};
            int s;
            for (s = 0; s < 3 && r == UMAP_OK; s++) {
                if ((double)shape[s][2] * (double)shape[s][3] * (double)shape[s][4] < (double)UMAP_TUNE_MIN_MACS) continue;
                r = umap_tuner_tune_sgemm(t, pool, (int)shape[s][0], (int)shape[s][1], shape[s][2], shape[s][3],
                                          shape[s][4]);
                shapes++;
            }
        }
    umap_pool_free(pool);
    if (r != UMAP_OK) {
        umap_tuner_free(t);
        return umap_cli__lib_error(r, "tune: timing the sgemm variants", NULL);
    }
    if (!umap_cli__get(opts, "--no-vulkan")) {
        umap_vk *vk = NULL;
        umap_vk_calibration c;
        if (umap_vk_create(NULL, &vk, why, sizeof why) != UMAP_OK) {
            if (!quiet) fprintf(stderr, "umap tune: no Vulkan device (%s)\n", why);
        } else {
            r = umap_vk_calibrate_cached(vk, t, 1, &c, NULL);
            umap_vk_free(vk);
            if (r != UMAP_OK) {
                umap_tuner_free(t);
                return umap_cli__lib_error(r, "tune: calibrating the Vulkan device", NULL);
            }
            if (!quiet)
                fprintf(stderr, "umap tune: %s: matmul %.1f GFLOP/s (CPU %.1f), transfers %.2f GB/s, %.0f us per run\n",
                        c.device_name, c.gpu_gflops, c.cpu_gflops, c.transfer_gbps, c.dispatch_us);
        }
    }
    r = umap_tuner_save(t, cache, why, sizeof why);
    umap_tuner_free(t);
    if (r != UMAP_OK) return umap_cli__lib_error(r, "tune: writing the cache", why);
    if (!quiet) fprintf(stderr, "umap tune: %d shapes timed; wrote %s\n", shapes, cache);
    return 0;
}

/* >>cli: fit's caller-given start and k-NN ------------------------------------ */

/* the row width of a raw file of n rows (.f32, .i32: no header says it),
   from its size; 0 when the size is not a whole number of rows */
static int64_t umap_cli__raw_width(const char *path, int64_t n) {
    struct stat st;
    if (stat(path, &st) != 0 || n < 1 || st.st_size <= 0 || st.st_size % (4 * n) != 0) return 0;
    return (int64_t)(st.st_size / (4 * n));
}

/* a float matrix in the data's formats (raw .f32: its width from its size);
   1 after a message */
static int umap_cli__read_floats(const char *option, const char *path, int64_t n, umap_io_matrix *m) {
    char err[1024];
    int64_t raw = umap_cli__has_ext(path, ".f32") ? umap_cli__raw_width(path, n) : 0;
    if (umap_cli__has_ext(path, ".f32") && !raw) {
        fprintf(stderr, "umap: %s %s: a raw .f32 file here holds %lld rows of 4-byte floats; its size is not a "
                        "whole number of such rows\n", option, path, (long long)n);
        return 1;
    }
    if (umap_io_read_matrix(path, raw, m, err, sizeof err)) {
        fprintf(stderr, "umap: %s %s\n", option, err);
        return 1;
    }
    return 0;
}

/* the first non-finite entry of an n x c matrix, or -1 */
static int64_t umap_cli__nonfinite(const float *x, int64_t count) {
    int64_t i;
    for (i = 0; i < count; i++)
        if (!(x[i] - x[i] == 0.0f)) return i;
    return -1;
}

/* --metric-v FILE: d values in any shape (the library checks them and
   names a bad one); nothing read without the option, and the option only
   with metric seuclidean; 1 after a message */
static int umap_cli__read_metric_v(const char *path, umap_metric metric, int64_t d, umap_io_matrix *m) {
    memset(m, 0, sizeof *m);
    if (!path) return 0;
    if (metric != UMAP_METRIC_SEUCLIDEAN) {
        fprintf(stderr, "umap: --metric-v is seuclidean's variances, and --metric is %s\n", umap_metric_name(metric));
        return 1;
    }
    if (umap_cli__read_floats("--metric-v", path, 1, m)) return 1;
    if (m->rows * m->cols != d) {
        fprintf(stderr, "umap: --metric-v %s: %lld values; the data has %lld columns, one variance each\n", path,
                (long long)(m->rows * m->cols), (long long)d);
        umap_io_matrix_free(m);
        return 1;
    }
    return 0;
}

/* --init FILE: n x n_components finite coordinates; 1 after a message */
static int umap_cli__read_init(const char *path, int64_t n, int c, umap_io_matrix *m) {
    int64_t bad;
    if (umap_cli__read_floats("--init", path, n, m)) return 1;
    if (m->rows != n || m->cols != c) {
        fprintf(stderr, "umap: --init %s: %lld x %lld coordinates; the data has %lld rows and --n-components is %d, "
                        "so %lld x %d are needed\n", path, (long long)m->rows, (long long)m->cols, (long long)n, c,
                (long long)n, c);
        umap_io_matrix_free(m);
        return 1;
    }
    if ((bad = umap_cli__nonfinite(m->data, n * c)) >= 0) {
        fprintf(stderr, "umap: --init %s: row %lld, column %lld is %g: the coordinates must be finite\n", path,
                (long long)(bad / c), (long long)(bad % c), (double)m->data[bad]);
        umap_io_matrix_free(m);
        return 1;
    }
    return 0;
}

/* --knn-indices and --knn-distances as `umap knn` writes them: n x k each
   (the row itself excluded), indices integers in [0, n) (.npy, .csv, raw
   .i32), distances finite and >= 0. *idx is malloc'd; 1 after a message. */
#define UMAP_CLI__FLOAT_EXACT_INT 16777216 /* 2^24: the float reader's indices are exact below it */
static int umap_cli__read_knn(const char *idx_path, const char *dist_path, int64_t n, int32_t **idx,
                              umap_io_matrix *dist, int *k) {
    char err[1024];
    int64_t i, bad, cols;
    *idx = NULL;
    if (umap_cli__read_floats("--knn-distances", dist_path, n, dist)) return 1;
    cols = dist->cols;
    if (dist->rows != n || cols < 1 || cols >= n) {
        fprintf(stderr, "umap: --knn-distances %s: %lld x %lld distances for %lld rows: need %lld rows of k "
                        "neighbours, 1 <= k < %lld\n", dist_path, (long long)dist->rows, (long long)cols, (long long)n,
                (long long)n, (long long)n);
        goto fail;
    }
    if ((bad = umap_cli__nonfinite(dist->data, n * cols)) >= 0) {
        fprintf(stderr, "umap: --knn-distances %s: row %lld, column %lld is %g: distances must be finite\n", dist_path,
                (long long)(bad / cols), (long long)(bad % cols), (double)dist->data[bad]);
        goto fail;
    }
    for (i = 0; i < n * cols; i++)
        if (dist->data[i] < 0) {
            fprintf(stderr, "umap: --knn-distances %s: row %lld, column %lld is %g: distances must be >= 0\n",
                    dist_path, (long long)(i / cols), (long long)(i % cols), (double)dist->data[i]);
            goto fail;
        }
    if (!(*idx = (int32_t *)malloc((size_t)(n * cols) * sizeof(int32_t)))) {
        fprintf(stderr, "umap: --knn-indices %s: out of memory for %lld x %lld indices\n", idx_path, (long long)n,
                (long long)cols);
        goto fail;
    }
    if (umap_cli__has_ext(idx_path, ".i32")) { /* raw little-endian int32, exact at any size */
        unsigned char *b = NULL;
        size_t size = 0;
        if (umap_io_read_file(idx_path, &b, &size, err, sizeof err)) {
            fprintf(stderr, "umap: --knn-indices %s\n", err);
            goto fail;
        }
        if (size != (size_t)(n * cols) * 4) {
            fprintf(stderr, "umap: --knn-indices %s: %zu bytes; %lld x %lld int32 indices (the distances' shape) "
                            "are %lld\n", idx_path, size, (long long)n, (long long)cols, (long long)(n * cols * 4));
            UMAP_IO_FREE(b);
            goto fail;
        }
        for (i = 0; i < n * cols; i++)
            (*idx)[i] = (int32_t)((uint32_t)b[4 * i] | ((uint32_t)b[4 * i + 1] << 8) | ((uint32_t)b[4 * i + 2] << 16) |
                                  ((uint32_t)b[4 * i + 3] << 24));
        UMAP_IO_FREE(b);
    } else {
        umap_io_matrix m;
        if (n > UMAP_CLI__FLOAT_EXACT_INT) {
            fprintf(stderr, "umap: --knn-indices %s: with more than %d rows give the indices as raw .i32 (this "
                            "format's reader goes through floats)\n", idx_path, UMAP_CLI__FLOAT_EXACT_INT);
            goto fail;
        }
        if (umap_io_read_matrix(idx_path, 0, &m, err, sizeof err)) {
            fprintf(stderr, "umap: --knn-indices %s\n", err);
            goto fail;
        }
        if (m.rows != n || m.cols != cols) {
            fprintf(stderr, "umap: --knn-indices %s: %lld x %lld indices, but the data has %lld rows and "
                            "--knn-distances %lld columns\n", idx_path, (long long)m.rows, (long long)m.cols,
                    (long long)n, (long long)cols);
            umap_io_matrix_free(&m);
            goto fail;
        }
        for (i = 0; i < n * cols; i++) {
            float v = m.data[i];
            if (!(v >= 0 && v < (float)n && v == floorf(v))) {
                fprintf(stderr, "umap: --knn-indices %s: row %lld, column %lld is %g: indices must be integers in "
                                "[0, %lld)\n", idx_path, (long long)(i / cols), (long long)(i % cols), (double)v,
                        (long long)n);
                umap_io_matrix_free(&m);
                goto fail;
            }
            (*idx)[i] = (int32_t)v;
        }
        umap_io_matrix_free(&m);
    }
    for (i = 0; i < n * cols; i++)
        if ((*idx)[i] < 0 || (*idx)[i] >= n || (*idx)[i] == i / cols) {
            fprintf(stderr, "umap: --knn-indices %s: row %lld, column %lld is %d: indices must be in [0, %lld) and "
                            "not the row itself (as `umap knn` writes them)\n", idx_path, (long long)(i / cols),
                    (long long)(i % cols), (int)(*idx)[i], (long long)n);
            goto fail;
        }
    *k = (int)cols;
    return 0;
fail:
    free(*idx);
    *idx = NULL;
    umap_io_matrix_free(dist);
    return 1;
}

/* the library's warnings (a spectral init that fell back to PCA, ...) on
   stderr; the debug chatter stays out */
static void umap_cli__log(umap_log_level level, const char *message, void *user_data) {
    (void)user_data;
    if (level <= UMAP_LOG_WARN) fprintf(stderr, "umap: warning: %s\n", message);
}

/* >>cli: fit --------------------------------------------------------------- */

static int umap_cli__fit(int argc, char **argv) {
    static const char *cmd = "fit";
    char usage[UMAP_CLI__HELP_SIZE];
    umap_cli__opt opts[UMAP_CLI__MAX_OPTIONS + 1];
    umap_config cfg = umap_config_default(), defaults = umap_config_default();
    umap_fit_info info;
    umap_io_matrix x, target_values;
    umap_io_sparse sp;
    umap_io_labels labels, target_labels;
    umap_target target;
    const char *target_path, *target_metric;
    umap_io_matrix init_coords, knn_dist, metric_v;
    int32_t *knn_idx = NULL;
    int knn_k = 0;
    const char *init_file = NULL, *knn_idx_path, *knn_dist_path;
    umap_io_progress_state prog;
    umap_model *model = NULL;
    umap_vk *vk = NULL;
    umap_result r;
    int gpu = 0;
    const char *input, *device, *out;
    long long keep_rows, synthetic;
    int64_t file_rows;
    int rc, quiet;

    /* every option with a config field is in cfg after this; the rest are read below */
    rc = umap_cli__parse_table(&umap_cli__fit_command, &defaults, argc, argv, opts, &cfg, usage, sizeof usage);
    if (rc == 1) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc) return rc;
    input = umap_cli__get(opts, "--input");
    synthetic = umap_cli__get_int(opts, "--synthetic", 0);
    if (synthetic && (input || umap_cli__get(opts, "--dim") || umap_cli__get(opts, "--labels") ||
                      umap_cli__get(opts, "--rows")))
        return umap_cli__usage_error(cmd, usage, "--synthetic N draws the data and its labels: it takes no --input, "
                                                 "--dim, --labels or --rows");
    if (synthetic) input = "synthetic-digits"; /* a name for the messages and the plot's title */
    if (!input) return umap_cli__usage_error(cmd, usage, "--input (or --synthetic N) is required");
    keep_rows = umap_cli__get_int(opts, "--rows", 0);
    quiet = umap_cli__get(opts, "--quiet") != NULL;
    if (umap_cli__get(opts, "--init")) {
        const char *iv = umap_cli__get(opts, "--init");
        if (!umap_init_from_name(iv, &cfg.init) || cfg.init == UMAP_INIT_COORDS) { /* "coords" is a file's kind */
            if (!*iv) return umap_cli__usage_error(cmd, usage, "--init: give pca, random, spectral or a file");
            cfg.init = UMAP_INIT_COORDS;
            init_file = iv;
        }
        if (umap_cli__get(opts, "--no-pca") && cfg.init != UMAP_INIT_RANDOM)
            return umap_cli__usage_error(cmd, usage, "--no-pca (= --init random) and --init %s disagree", iv);
    }
    if (umap_cli__get(opts, "--no-pca")) cfg.init = UMAP_INIT_RANDOM;
    knn_idx_path = umap_cli__get(opts, "--knn-indices");
    knn_dist_path = umap_cli__get(opts, "--knn-distances");
    if (!knn_idx_path != !knn_dist_path)
        return umap_cli__usage_error(cmd, usage, "--knn-indices and --knn-distances come together (both or neither)");
    if (knn_idx_path && umap_cli__get(opts, "--knn"))
        return umap_cli__usage_error(cmd, usage, "--knn chooses fit's own search; --knn-indices gives the k-NN");
    if (knn_idx_path && keep_rows)
        return umap_cli__usage_error(cmd, usage, "--rows cannot cut --knn-indices: its neighbours index every row "
                                                 "of the file");
    if (!umap_cli__get(opts, "--a") != !umap_cli__get(opts, "--b"))
        return umap_cli__usage_error(cmd, usage, "--a and --b come together (both or neither)");
    if (!!umap_cli__get(opts, "--keep-data") + !!umap_cli__get(opts, "--keep-sketch") + !!umap_cli__get(opts, "--keep-none") > 1)
        return umap_cli__usage_error(cmd, usage, "--keep-data, --keep-sketch and --keep-none: choose one");
    if (umap_cli__get(opts, "--keep-none") && umap_cli__get(opts, "--keep-sample"))
        return umap_cli__usage_error(cmd, usage, "--keep-sample with --keep-none: the model keeps no rows");
    if (!knn_idx_path || umap_cli__get(opts, "--k")) { /* every rule of fit's before the data (--knn-indices sets --k) */
        char why[400];
        if (umap_config_check(&cfg, 0, 0, why, sizeof why) != UMAP_OK)
            return umap_cli__config_error(&umap_cli__fit_command, usage, why);
    }
    memset(&target, 0, sizeof target);
    target_path = umap_cli__get(opts, "--target");
    target_metric = umap_cli__get(opts, "--target-metric");
    if (!target_metric || !strcmp(target_metric, "categorical")) {
        target_metric = "categorical";
    } else if (!umap_metric_from_name(target_metric, &target.metric)) {
        char names[256];
        return umap_cli__usage_error(cmd, usage, "--target-metric: '%s' is not categorical or one of %s", target_metric,
                                     umap_metric_names(names, sizeof names, ", "));
    } else if (target.metric == UMAP_METRIC_CUSTOM) {
        return umap_cli__usage_error(cmd, usage, "--target-metric: custom " UMAP_CLI__NO_CUSTOM);
    }
    target.metric_p = umap_cli__get(opts, "--target-metric-p") ? (float)strtod(umap_cli__get(opts, "--target-metric-p"), NULL)
                                                                : 2.0f;
    if (umap_cli__get(opts, "--target-metric-p") && target.metric != UMAP_METRIC_MINKOWSKI)
        return umap_cli__usage_error(cmd, usage, "--target-metric-p is minkowski's p: give --target-metric minkowski");
    if (!target_path && (umap_cli__get(opts, "--target-metric") || umap_cli__get(opts, "--target-weight")))
        return umap_cli__usage_error(cmd, usage, "--target-metric and --target-weight need --target FILE");
    if (umap_cli__get(opts, "--radii")) cfg.output_dens = 1;
    device = umap_cli__get(opts, "--device");
    if ((rc = umap_cli__device_arg(cmd, usage, &device, cfg.knn_method)) != 0) return rc;
    { /* the outputs before any work: a bad one found after the fit would cost the fit */
        umap_cli__file files[11];
        files[0].option = "--input", files[0].path = synthetic ? NULL : input, files[0].kind = UMAP_CLI_INPUT;
        files[1].option = "--labels", files[1].path = umap_cli__get(opts, "--labels"), files[1].kind = UMAP_CLI_INPUT;
        files[2].option = "--save", files[2].path = umap_cli__get(opts, "--save"), files[2].kind = UMAP_CLI_MODEL;
        files[3].option = "--embedding", files[3].path = umap_cli__get(opts, "--embedding"), files[3].kind = UMAP_CLI_F32;
        files[4].option = "--svg", files[4].path = umap_cli__get(opts, "--svg"), files[4].kind = UMAP_CLI_SVG;
        if (files[4].path && cfg.n_components < 2)
            return umap_cli__refuse(cmd, "--svg plots two components; --n-components is %d", cfg.n_components);
        files[5].option = "--target", files[5].path = target_path, files[5].kind = UMAP_CLI_INPUT;
        files[6].option = "--init", files[6].path = init_file, files[6].kind = UMAP_CLI_INPUT;
        files[7].option = "--knn-indices", files[7].path = knn_idx_path, files[7].kind = UMAP_CLI_INPUT;
        files[8].option = "--knn-distances", files[8].path = knn_dist_path, files[8].kind = UMAP_CLI_INPUT;
        files[9].option = "--metric-v", files[9].path = umap_cli__get(opts, "--metric-v"), files[9].kind = UMAP_CLI_INPUT;
        files[10].option = "--radii", files[10].path = umap_cli__get(opts, "--radii"), files[10].kind = UMAP_CLI_F32;
        if ((rc = umap_cli__check_files(cmd, files, 11)) != 0) return rc;
    }
    memset(&labels, 0, sizeof labels);
    memset(&sp, 0, sizeof sp);
    memset(&target_labels, 0, sizeof target_labels);
    memset(&target_values, 0, sizeof target_values);
    memset(&init_coords, 0, sizeof init_coords);
    memset(&knn_dist, 0, sizeof knn_dist);
    memset(&metric_v, 0, sizeof metric_v);
    if (synthetic) { /* the drawn digits and their labels (cli/umap_digits.h, as `make demo` draws them) */
        x.rows = labels.n = file_rows = synthetic;
        x.cols = UMAP_DIGITS_DIM;
        x.data = (float *)UMAP_IO_MALLOC((size_t)synthetic * UMAP_DIGITS_DIM * sizeof *x.data);
        labels.data = (int32_t *)UMAP_IO_MALLOC((size_t)synthetic * sizeof *labels.data);
        if (!x.data || !labels.data) { /* freed as the io header's own */
            umap_io_matrix_free(&x);
            umap_io_sparse_free(&sp);
            umap_io_labels_free(&labels);
            fprintf(stderr, "umap: --synthetic %lld: out of memory for %lld x %d floats\n", synthetic, synthetic,
                    UMAP_DIGITS_DIM);
            return 1;
        }
        umap_digits_draw(synthetic, x.data, labels.data);
    } else if (umap_cli__read_input(input, opts, 0, keep_rows, &x, &sp, &file_rows)) {
        return 1;
    }
    /* the per-row files match the input file's rows, then keep --rows of them */
    if ((umap_cli__get(opts, "--labels") && umap_cli__read_labels(umap_cli__get(opts, "--labels"), file_rows, &labels)) ||
        (target_path && umap_cli__read_target(target_path, target_metric, file_rows, &target_labels, &target_values)) ||
        (init_file && umap_cli__read_init(init_file, file_rows, cfg.n_components, &init_coords)) ||
        (knn_idx_path && umap_cli__read_knn(knn_idx_path, knn_dist_path, x.rows, &knn_idx, &knn_dist, &knn_k)) ||
        umap_cli__read_metric_v(umap_cli__get(opts, "--metric-v"), cfg.metric, x.cols, &metric_v)) {
        umap_io_matrix_free(&x);
        umap_io_sparse_free(&sp);
        umap_io_matrix_free(&knn_dist);
        free(knn_idx);
        umap_io_labels_free(&labels);
        umap_io_labels_free(&target_labels);
        umap_io_matrix_free(&target_values);
        umap_io_matrix_free(&init_coords);
        return 1;
    }
    if (sp.indptr && (knn_idx || !strcmp(device, "vulkan"))) {
        fprintf(stderr, "umap: %s: sparse rows: %s\n", input,
                knn_idx ? "--knn-indices is for dense rows; a sparse fit searches its own neighbours"
                        : "the Vulkan backend takes dense rows; a sparse fit runs on the CPU (--device cpu)");
        rc = 2;
    }
    if (sp.indptr) device = "cpu"; /* auto, too */
    if (labels.data) labels.n = x.rows;
    if (target_labels.data) target_labels.n = x.rows;
    if (target_values.data) target_values.rows = x.rows;
    if (init_coords.data) init_coords.rows = x.rows;
    if (target_path) {
        target.labels = target_labels.data;
        target.values = target_values.data;
        target.values_dim = (int)target_values.cols;
        cfg.target = &target;
    }
    cfg.init_coords = init_file ? init_coords.data : NULL;
    cfg.metric_v = metric_v.data;
    if (knn_idx) {
        if (umap_cli__get(opts, "--k") && cfg.n_neighbors != knn_k + 1) {
            fprintf(stderr, "umap: --k %d but --knn-indices %s holds %d neighbours a row: --k counts the row itself, "
                            "so it must be %d (or left out)\n", cfg.n_neighbors, knn_idx_path, knn_k, knn_k + 1);
            rc = 2;
        }
        cfg.n_neighbors = knn_k + 1;
        if (cfg.local_connectivity > (float)knn_k) {
            fprintf(stderr, "umap: --local-connectivity %g: the k-NN files give k %d, so at most %d\n",
                    (double)cfg.local_connectivity, knn_k + 1, knn_k);
            rc = 2;
        }
    }
    if (rc || (rc = umap_cli__device(device, quiet, x.rows, x.cols, &vk)) != 0) {
        umap_io_matrix_free(&x);
        umap_io_sparse_free(&sp);
        umap_io_labels_free(&labels);
        umap_io_labels_free(&target_labels);
        umap_io_matrix_free(&target_values);
        umap_io_matrix_free(&init_coords);
        umap_io_matrix_free(&knn_dist);
        umap_io_matrix_free(&metric_v);
        free(knn_idx);
        return rc;
    }

    memset(&prog, 0, sizeof prog);
    prog.mode = quiet ? UMAP_IO_PROGRESS_QUIET : UMAP_IO_PROGRESS_AUTO;
    memset(&info, 0, sizeof info);
    cfg.info = &info;
    cfg.progress = umap_io_progress;
    cfg.progress_user_data = &prog;
    if (!quiet) cfg.logger.log_fn = umap_cli__log;
    if (!quiet)
        fprintf(stderr, "umap: fit %s: %lld x %lld%s -> %d, k %d, %s\n", umap_cli__basename(input), (long long)x.rows,
                (long long)x.cols, sp.indptr ? " (sparse)" : "", cfg.n_components, cfg.n_neighbors,
                umap_metric_name(cfg.metric));
    if (!quiet && target_path)
        fprintf(stderr, "umap: supervised by %s (%s, target weight %g)\n", umap_cli__basename(target_path),
                target_metric, (double)cfg.target_weight);

    if (knn_idx) { /* the caller's k-NN; a GPU runs the training steps */
        if (vk) {
            cfg.backend = umap_vk_backend(vk);
            cfg.refiner = umap_vk_refiner(vk);
        }
        r = umap_fit_knn(&cfg, x.data, x.rows, x.cols, knn_idx, knn_dist.data, knn_k, &model);
        gpu = vk != NULL;
    } else if (sp.indptr) {
        umap_rows rows = umap_cli__rows(&x, &sp);
        r = umap_fit_rows(&cfg, &rows, &model);
    } else if (vk) { /* exact k-NN on the GPU, the training steps there too */
        r = umap_vk_fit(vk, &cfg, x.data, x.rows, x.cols, &model);
        gpu = 1;
    } else {
        r = umap_fit(&cfg, x.data, x.rows, x.cols, &model);
    }
    umap_vk_free(vk);
    vk = NULL;
    cfg.init_coords = NULL;
    cfg.metric_v = NULL;
    umap_io_matrix_free(&init_coords);
    umap_io_matrix_free(&knn_dist);
    umap_io_matrix_free(&metric_v);
    free(knn_idx);
    knn_idx = NULL;
    umap_io_progress_end(&prog);
    umap_io_labels_free(&target_labels); /* fit is done with them: the model keeps no target */
    umap_io_matrix_free(&target_values);
    if (!model) {
        char what[1200];
        snprintf(what, sizeof what, "fit of %s (%lld x %lld)", input, (long long)x.rows, (long long)x.cols);
        umap_io_matrix_free(&x);
        umap_io_sparse_free(&sp);
        umap_io_labels_free(&labels);
        return umap_cli__lib_error(r, what, info.error_detail);
    }
    if (r != UMAP_OK)
        fprintf(stderr, "umap: warning: %s%s%s; the model keeps the best weights\n", umap_result_string(r),
                info.error_detail[0] ? ": " : "", info.error_detail);
    rc = 0;

    {
        const float *emb = umap_model_embedding(model);
        int dim = umap_model_n_components(model);
        umap_cli__outputs outs;
        outs.n = 0;
        /* every output staged and finished first, then all renamed: a
           failure in any leaves every earlier target as it was */
        if ((out = umap_cli__get(opts, "--embedding")) != NULL)
            rc = umap_cli__stage_matrix(&outs, "--embedding", out, emb, x.rows, dim, 0);
        if (!rc && (out = umap_cli__get(opts, "--radii")) != NULL) {
            const float *ro, *re;
            float *both = (float *)UMAP_IO_MALLOC((size_t)x.rows * 2 * sizeof(float));
            int64_t i;
            if (!both || umap_model_local_radii(model, &ro, &re) != x.rows) {
                fprintf(stderr, "umap fit: --radii: %s\n", both ? "the fit kept no radii" : "out of memory");
                rc = 1;
            } else {
                for (i = 0; i < x.rows; i++) both[2 * i] = ro[i], both[2 * i + 1] = re[i];
                rc = umap_cli__stage_matrix(&outs, "--radii", out, both, x.rows, 2, 0);
            }
            UMAP_IO_FREE(both);
        }
        if (!rc && (out = umap_cli__get(opts, "--save")) != NULL) rc = umap_cli__stage_model(&outs, out, model);
        if (!rc && (out = umap_cli__get(opts, "--svg")) != NULL) {
            char title[300];
            snprintf(title, sizeof title, "%s: UMAP of %lld rows", umap_cli__basename(input), (long long)x.rows);
            rc = umap_cli__stage_svg(&outs, out, emb, x.rows, dim, labels.data,
                                     umap_cli__get(opts, "--title") ? umap_cli__get(opts, "--title") : title,
                                     umap_cli__get(opts, "--class-names"));
        }
        rc = umap_cli__end_outputs(&outs, rc);
        if (!rc && !quiet) {
            printf("fit: %lld rows x %lld features -> %d dimensions\n", (long long)x.rows, (long long)x.cols, dim);
            if (knn_idx_path)
                printf("  knn     %8.2f s  (given: %s, k %d)\n", info.knn_s, umap_cli__basename(knn_idx_path),
                       cfg.n_neighbors);
            else
                printf("  knn     %8.2f s  (%s%s, k %d)\n", info.knn_s, umap_cli__method_name(info.knn.method),
                       gpu ? " on the GPU" : "", cfg.n_neighbors);
            printf("  graph   %8.2f s  (%lld edges", info.graph_s, (long long)info.n_edges);
            if (info.n_dropped_edges)
                printf("; %lld k-NN edges dropped, %lld rows disconnected", (long long)info.n_dropped_edges,
                       (long long)info.n_disconnected);
            printf(")\n");
            if (info.init_used == UMAP_INIT_SPECTRAL)
                printf("  init    %8.2f s  (spectral, %d solver iterations)\n", info.pca_s, info.spectral_iterations);
            else
                printf("  init    %8.2f s  (%s%s)\n", info.pca_s, umap_init_name(info.init_used),
                       info.init_used != cfg.init ? ", in place of spectral: see the warning above" : "");
            printf("  train   %8.2f s  (%d/%d epochs, %lld steps, loss %.4f, best %.4f%s)\n", info.train_s,
                   info.epochs_run, info.n_epochs, (long long)info.steps, (double)info.final_loss,
                   (double)info.best_loss, gpu ? ", on the GPU" : "");
            printf("  embed   %8.2f s\n", info.embed_s);
            printf("  refine  %8.2f s  (%d epochs)\n", info.refine_s, umap_model_config(model)->refine_epochs);
            printf("  distill %8.2f s  (%d passes)\n", info.distill_s, umap_model_config(model)->distill_epochs);
            if (umap_model_has_decoder(model))
                printf("  decoder %8.2f s  (%d passes, mean squared error %.4g per standardized column)\n",
                       info.decoder_s, umap_model_config(model)->decoder_epochs, (double)info.decoder_loss);
            {
                const umap_config *mc = umap_model_config(model);
                if (!mc->keep_data)
                    printf("  keep    %8.2f s  (no rows: transform by the encoder)\n", info.keep_s);
                else if (mc->metric == UMAP_METRIC_PRECOMPUTED)
                    printf("  keep    %8.2f s  (the places of the %lld rows: transform reads each new row's own "
                           "distances)\n", info.keep_s, (long long)x.rows);
                else
                    printf("  keep    %8.2f s  (%s of %lld of the %lld rows)\n", info.keep_s,
                           mc->keep_data == UMAP_KEEP_SKETCH ? "the sketch" : "a copy",
                           (long long)(mc->keep_sample ? mc->keep_sample : x.rows), (long long)x.rows);
            }
            printf("  total   %8.2f s\n", info.total_s);
            printf("  stop: %s; a %.4f, b %.4f", umap_cli__stop_name(info.stop_reason), (double)info.a,
                   (double)info.b);
            if (info.n_constant_columns) printf("; %lld constant columns", (long long)info.n_constant_columns);
            printf("\n");
            if (labels.data) { /* a summary only: the fit and its files stand without it */
                umap_quality_desc qd;
                umap_quality q;
                umap_result qr;
                double t0 = umap_cli__now();
                memset(&qd, 0, sizeof qd);
                qd.metric = cfg.metric;
                qd.metric_p = cfg.metric_p;
                qd.n_threads = cfg.n_threads;
                qd.n_queries = x.rows < 10000 ? 0 : 10000;
                {
                    umap_rows rows = umap_cli__rows(&x, &sp);
                    qr = umap_quality_eval_rows(&qd, &rows, emb, dim, labels.data, &q);
                }
                if (qr != UMAP_OK) {
                    char why[256];
                    fflush(stdout);
                    umap_cli__quality_why(x.rows, 15, 10, qr, why, sizeof why);
                    fprintf(stderr, "umap: note: no quality summary (%s: %s); the fit and its outputs are fine\n",
                            umap_result_string(qr), why);
                } else {
                    printf("quality (%lld rows, %.1f s): trustworthiness@15 %.4f, recall@15 %.4f, 10-NN accuracy %.4f\n",
                           (long long)(qd.n_queries ? qd.n_queries : x.rows), umap_cli__now() - t0,
                           q.trustworthiness, q.knn_recall, q.knn_accuracy);
                }
            }
        }
    }
    umap_model_free(model);
    umap_io_matrix_free(&x);
    umap_io_sparse_free(&sp);
    umap_io_labels_free(&labels);
    return rc;
}

/* >>cli: transform --------------------------------------------------------- */

/* umap_load, or the exit status of its error, said with the file's name */
static int umap_cli__load_model(const char *path, umap_model **model) {
    char detail[1024], what[1200];
    umap_result r;
    detail[0] = 0;
    if ((r = umap_load(path, model, detail, sizeof detail)) == UMAP_OK) return 0;
    snprintf(what, sizeof what, "loading the model %s", path);
    return umap_cli__lib_error(r, what, detail);
}

static int umap_cli__transform(int argc, char **argv) {
    static const char *cmd = "transform";
    char usage[UMAP_CLI__HELP_SIZE];
    umap_cli__opt opts[UMAP_CLI__MAX_OPTIONS + 1];
    const char *model_path, *input, *output;
    umap_model *model = NULL;
    umap_io_matrix x;
    umap_io_sparse sp;
    umap_io_labels labels;
    umap_transform_desc td;
    umap_result r;
    float *emb;
    long long keep_rows;
    int64_t file_rows;
    int rc, dim;
    char detail[1024];
    double t0;

    memset(&td, 0, sizeof td);
    rc = umap_cli__parse_table(&umap_cli__transform_command, &td, argc, argv, opts, &td, usage, sizeof usage);
    if (rc == 1) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc) return rc;
    model_path = umap_cli__get(opts, "--model");
    input = umap_cli__get(opts, "--input");
    output = umap_cli__get(opts, "--output");
    if (!model_path || !input || !output)
        return umap_cli__usage_error(cmd, usage, "--model, --input and --output are required");
    keep_rows = umap_cli__get_int(opts, "--rows", 0);
    if (umap_cli__get(opts, "--encoder-only") && (umap_cli__get(opts, "--transform-epochs") || umap_cli__get(opts, "--exact-neighbors")))
        return umap_cli__usage_error(cmd, usage, "--%s sets the placement among the training rows, "
                                                 "which --encoder-only turns off",
                                     umap_cli__get(opts, "--transform-epochs") ? "transform-epochs" : "exact-neighbors");
    td.mode = umap_cli__get(opts, "--encoder-only") ? UMAP_TRANSFORM_ENCODER : UMAP_TRANSFORM_AUTO;
    {
        umap_cli__file files[8];
        files[0].option = "--model", files[0].path = model_path, files[0].kind = UMAP_CLI_INPUT;
        files[1].option = "--input", files[1].path = input, files[1].kind = UMAP_CLI_INPUT;
        files[2].option = "--labels", files[2].path = umap_cli__get(opts, "--labels"), files[2].kind = UMAP_CLI_INPUT;
        files[3].option = "--output", files[3].path = output, files[3].kind = UMAP_CLI_F32;
        files[4].option = "--svg", files[4].path = umap_cli__get(opts, "--svg"), files[4].kind = UMAP_CLI_SVG;
        if ((rc = umap_cli__check_files(cmd, files, 5)) != 0) return rc;
    }

    if ((rc = umap_cli__load_model(model_path, &model)) != 0) return rc;
    if (umap_cli__get(opts, "--svg") && umap_model_n_components(model) < 2) {
        int nc = umap_model_n_components(model);
        umap_model_free(model);
        return umap_cli__refuse(cmd, "--svg plots two components; the model %s has %d", model_path, nc);
    }
    if ((umap_cli__get(opts, "--transform-epochs") || umap_cli__get(opts, "--exact-neighbors")) &&
        !umap_model_config(model)->keep_data) {
        umap_model_free(model);
        return umap_cli__refuse(cmd, "--%s: the model %s kept no training data (fit it without --keep-none, "
                                     "or with --keep-data or --keep-sketch); its "
                                     "encoder embeds the rows without a neighbour search",
                                umap_cli__get(opts, "--transform-epochs") ? "transform-epochs" : "exact-neighbors",
                                model_path);
    }
    if (umap_cli__read_input(input, opts, umap_model_n_features(model), keep_rows, &x, &sp, &file_rows)) {
        umap_model_free(model);
        return 1;
    }
    if (x.cols != umap_model_n_features(model)) {
        fprintf(stderr, "umap: %s: %lld features per row, the model was trained on %lld\n", input, (long long)x.cols,
                (long long)umap_model_n_features(model));
        umap_io_matrix_free(&x);
        umap_io_sparse_free(&sp);
        umap_model_free(model);
        return 1;
    }
    memset(&labels, 0, sizeof labels);
    if (umap_cli__get(opts, "--labels") &&
        umap_cli__read_labels(umap_cli__get(opts, "--labels"), file_rows, &labels)) {
        umap_io_matrix_free(&x);
        umap_io_sparse_free(&sp);
        umap_model_free(model);
        return 1;
    }
    if (labels.data) labels.n = x.rows; /* --rows cuts them with the data */
    dim = umap_model_n_components(model);
    emb = (float *)malloc((size_t)x.rows * (size_t)dim * sizeof *emb);
    rc = 0;
    if (!emb) {
        rc = umap_cli__io_error("out of memory for the embedding");
    } else {
        t0 = umap_cli__now();
        td.detail = detail;
        td.detail_size = sizeof detail;
        if (sp.indptr) {
            umap_rows rows = umap_cli__rows(&x, &sp);
            r = umap_transform_rows(model, &td, &rows, emb);
        } else {
            r = umap_transform_with(model, &td, x.data, x.rows, x.cols, emb);
        }
        if (r != UMAP_OK) {
            char what[1200];
            snprintf(what, sizeof what, "transform of %s (%lld x %lld) with %s", input, (long long)x.rows,
                     (long long)x.cols, model_path);
            rc = umap_cli__lib_error(r, what, detail);
        } else {
            umap_cli__outputs outs;
            const char *svg = umap_cli__get(opts, "--svg");
            outs.n = 0;
            rc = umap_cli__stage_matrix(&outs, "--output", output, emb, x.rows, dim, 0);
            if (!rc && svg)
                rc = umap_cli__stage_svg(&outs, svg, emb, x.rows, dim, labels.data,
                                         umap_cli__get(opts, "--title") ? umap_cli__get(opts, "--title")
                                                                        : umap_cli__basename(input),
                                         umap_cli__get(opts, "--class-names"));
            rc = umap_cli__end_outputs(&outs, rc);
            if (!rc && !umap_cli__get(opts, "--quiet")) {
                const umap_config *mc = umap_model_config(model);
                int by_encoder = td.mode == UMAP_TRANSFORM_ENCODER || !mc->keep_data;
                printf("transform: %lld rows -> %d dimensions in %.2f s (%s%s%s), written to %s\n", (long long)x.rows,
                       dim, umap_cli__now() - t0, by_encoder ? "the encoder" : "among the nearest training rows",
                       !by_encoder && mc->keep_data == UMAP_KEEP_SKETCH ? ", by their sketch" : "",
                       !by_encoder && mc->keep_sample ? ", of a sample" : "", output);
            }
        }
    }
    free(emb);
    umap_io_matrix_free(&x);
    umap_io_sparse_free(&sp);
    umap_io_labels_free(&labels);
    umap_model_free(model);
    return rc;
}

/* >>cli: inverse ------------------------------------------------------------ */

static int umap_cli__inverse(int argc, char **argv) {
    static const char *cmd = "inverse";
    char usage[UMAP_CLI__HELP_SIZE], detail[1024];
    umap_cli__opt opts[UMAP_CLI__MAX_OPTIONS + 1];
    umap_cli__inverse_args args;
    const char *model_path, *input, *output;
    umap_model *model = NULL;
    umap_io_matrix y;
    umap_result r;
    float *rows;
    int64_t file_rows, d;
    int rc;
    double t0;

    memset(&args, 0, sizeof args);
    rc = umap_cli__parse_table(&umap_cli__inverse_command, &args, argc, argv, opts, &args, usage, sizeof usage);
    if (rc == 1) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc) return rc;
    model_path = umap_cli__get(opts, "--model");
    input = umap_cli__get(opts, "--input");
    output = umap_cli__get(opts, "--output");
    if (!model_path || !input || !output)
        return umap_cli__usage_error(cmd, usage, "--model, --input and --output are required");
    {
        umap_cli__file files[3];
        files[0].option = "--model", files[0].path = model_path, files[0].kind = UMAP_CLI_INPUT;
        files[1].option = "--input", files[1].path = input, files[1].kind = UMAP_CLI_INPUT;
        files[2].option = "--output", files[2].path = output, files[2].kind = UMAP_CLI_F32;
        if ((rc = umap_cli__check_files(cmd, files, 3)) != 0) return rc;
    }
    if ((rc = umap_cli__load_model(model_path, &model)) != 0) return rc;
    if (!umap_model_has_decoder(model)) { /* before reading the input */
        umap_model_free(model);
        return umap_cli__refuse(cmd, "the model %s has no decoder: fit it with --decoder-epochs N", model_path);
    }
    if (umap_cli__read_input(input, opts, 0, umap_cli__get_int(opts, "--rows", 0), &y, NULL,
                             &file_rows)) {
        umap_model_free(model);
        return 1;
    }
    if (y.cols != umap_model_n_components(model)) {
        fprintf(stderr, "umap: %s: %lld columns per row, the model embeds in %d\n", input, (long long)y.cols,
                umap_model_n_components(model));
        umap_io_matrix_free(&y);
        umap_model_free(model);
        return 1;
    }
    d = umap_model_n_features(model);
    rows = (float *)malloc((size_t)y.rows * (size_t)d * sizeof *rows + 1);
    rc = 0;
    if (!rows) {
        rc = umap_cli__io_error("out of memory for the rows");
    } else {
        t0 = umap_cli__now();
        r = umap_inverse_transform(model, y.data, y.rows, y.cols, rows, args.n_threads, detail, sizeof detail);
        if (r != UMAP_OK) {
            char what[1200];
            snprintf(what, sizeof what, "inverse of %s (%lld x %lld) with %s", input, (long long)y.rows,
                     (long long)y.cols, model_path);
            rc = umap_cli__lib_error(r, what, detail);
        } else {
            umap_cli__outputs outs;
            outs.n = 0;
            rc = umap_cli__stage_matrix(&outs, "--output", output, rows, y.rows, d, 0);
            rc = umap_cli__end_outputs(&outs, rc);
            if (!rc && !umap_cli__get(opts, "--quiet"))
                printf("inverse: %lld places -> %lld features in %.2f s, written to %s\n", (long long)y.rows,
                       (long long)d, umap_cli__now() - t0, output);
        }
    }
    free(rows);
    umap_io_matrix_free(&y);
    umap_model_free(model);
    return rc;
}

/* >>cli: update ------------------------------------------------------------- */

static int umap_cli__update(int argc, char **argv) {
    static const char *cmd = "update";
    char usage[UMAP_CLI__HELP_SIZE];
    umap_cli__opt opts[UMAP_CLI__MAX_OPTIONS + 1];
    umap_update_desc ud;
    umap_fit_info info;
    const char *model_path, *input, *old_path, *save, *emb_out;
    umap_model *model = NULL;
    umap_io_matrix x, ox;
    umap_io_sparse sp, osp;
    umap_rows rows, old_rows;
    umap_result r;
    int64_t file_rows, old_n, width;
    int rc;
    double t0;

    memset(&ud, 0, sizeof ud);
    rc = umap_cli__parse_table(&umap_cli__update_command, &ud, argc, argv, opts, &ud, usage, sizeof usage);
    if (rc == 1) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc) return rc;
    model_path = umap_cli__get(opts, "--model");
    input = umap_cli__get(opts, "--input");
    old_path = umap_cli__get(opts, "--old");
    save = umap_cli__get(opts, "--save");
    emb_out = umap_cli__get(opts, "--embedding");
    if (!model_path || !input || !save)
        return umap_cli__usage_error(cmd, usage, "--model, --input and --save are required");
    {   /* --save may be --model: the model is read whole before the new one replaces it */
        umap_cli__file files[4];
        files[0].option = "--input", files[0].path = input, files[0].kind = UMAP_CLI_INPUT;
        files[1].option = "--old", files[1].path = old_path, files[1].kind = UMAP_CLI_INPUT;
        files[2].option = "--save", files[2].path = save, files[2].kind = UMAP_CLI_MODEL;
        files[3].option = "--embedding", files[3].path = emb_out, files[3].kind = UMAP_CLI_F32;
        if ((rc = umap_cli__check_files(cmd, files, 4)) != 0) return rc;
        files[0].option = "--model", files[0].path = model_path;
        files[2].path = NULL;
        if ((rc = umap_cli__check_files(cmd, files, 4)) != 0) return rc;
    }
    if ((rc = umap_cli__load_model(model_path, &model)) != 0) return rc;
    width = umap_model_n_features(model);
    old_n = umap_model_n_train(model);
    if (!old_path && !(umap_model_config(model)->keep_data == UMAP_KEEP_ROWS && !umap_model_config(model)->keep_sample)) {
        const int kept = umap_model_config(model)->keep_data;
        umap_model_free(model);
        return umap_cli__refuse(cmd, "the model %s keeps %s of its %lld training rows: give them with --old FILE "
                                     "(a model fitted with --keep-data keeps them all)", model_path,
                                kept == UMAP_KEEP_ROWS ? "a sample" : kept == UMAP_KEEP_SKETCH ? "a sketch" : "none",
                                (long long)old_n);
    }
    memset(&ox, 0, sizeof ox);
    memset(&osp, 0, sizeof osp);
    if (umap_cli__read_input(input, opts, width, 0, &x, &sp, &file_rows)) {
        umap_model_free(model);
        return 1;
    }
    rc = 0;
    if (old_path && umap_cli__read_input(old_path, opts, width, 0, &ox, &osp, &file_rows)) rc = 1;
    if (!rc && (x.cols != width || (old_path && ox.cols != width))) {
        fprintf(stderr, "umap: %s: %lld features per row, the model was trained on %lld\n",
                x.cols != width ? input : old_path, (long long)(x.cols != width ? x.cols : ox.cols), (long long)width);
        rc = 1;
    }
    if (!rc && old_path && ox.rows != old_n) {
        fprintf(stderr, "umap: --old %s: %lld rows; the model %s was fitted on %lld\n", old_path, (long long)ox.rows,
                model_path, (long long)old_n);
        rc = 1;
    }
    if (!rc) {
        rows = umap_cli__rows(&x, &sp);
        old_rows = umap_cli__rows(&ox, &osp);
        ud.old_rows = old_path ? &old_rows : NULL;
        ud.info = &info;
        t0 = umap_cli__now();
        if ((r = umap_update(model, &ud, &rows)) != UMAP_OK) {
            char what[1200];
            snprintf(what, sizeof what, "update of %s by %s (%lld x %lld)", model_path, input, (long long)x.rows,
                     (long long)x.cols);
            rc = umap_cli__lib_error(r, what, info.error_detail);
        } else {
            umap_cli__outputs outs;
            const int64_t n = umap_model_n_train(model);
            outs.n = 0;
            if (emb_out) rc = umap_cli__stage_matrix(&outs, "--embedding", emb_out, umap_model_embedding(model), n,
                                                     umap_model_n_components(model), 0);
            if (!rc) rc = umap_cli__stage_model(&outs, save, model);
            rc = umap_cli__end_outputs(&outs, rc);
            if (!rc && !umap_cli__get(opts, "--quiet"))
                printf("update: %lld rows + %lld new -> %lld in %.2f s (knn %.2f s, refine %.2f s, distill %.2f s), "
                       "written to %s\n", (long long)old_n, (long long)x.rows, (long long)n, umap_cli__now() - t0,
                       info.knn_s, info.refine_s, info.distill_s, save);
        }
    }
    umap_io_matrix_free(&x);
    umap_io_sparse_free(&sp);
    umap_io_matrix_free(&ox);
    umap_io_sparse_free(&osp);
    umap_model_free(model);
    return rc;
}

/* >>cli: knn ---------------------------------------------------------------- */

static int umap_cli__knn(int argc, char **argv) {
    static const char *cmd = "knn";
    char usage[UMAP_CLI__HELP_SIZE];
    umap_cli__opt opts[UMAP_CLI__MAX_OPTIONS + 1];
    umap_vk *vk = NULL;
    const char *input, *output, *dist_out, *device;
    umap_knn_desc d;
    umap_knn_info info;
    umap_io_matrix x, metric_v;
    umap_io_sparse sp;
    int32_t *idx = NULL;
    float *dist = NULL;
    long long k, keep_rows;
    int64_t file_rows;
    int rc;
    umap_result r;
    double t0;

    memset(&d, 0, sizeof d);
    rc = umap_cli__parse_table(&umap_cli__knn_command, &d, argc, argv, opts, &d, usage, sizeof usage);
    if (rc == 1) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc) return rc;
    input = umap_cli__get(opts, "--input");
    output = umap_cli__get(opts, "--output");
    dist_out = umap_cli__get(opts, "--distances");
    if (!input || !output || !umap_cli__get(opts, "--k"))
        return umap_cli__usage_error(cmd, usage, "--input, --k and --output are required");
    k = d.k;
    keep_rows = umap_cli__get_int(opts, "--rows", 0);
    memset(&info, 0, sizeof info);
    d.info = &info;

    device = umap_cli__get(opts, "--device");
    if ((rc = umap_cli__device_arg(cmd, usage, &device, d.method)) != 0) return rc;
    {
        umap_cli__file files[4];
        files[0].option = "--input", files[0].path = input, files[0].kind = UMAP_CLI_INPUT;
        files[1].option = "--output", files[1].path = output, files[1].kind = UMAP_CLI_I32;
        files[2].option = "--distances", files[2].path = dist_out, files[2].kind = UMAP_CLI_F32;
        files[3].option = "--metric-v", files[3].path = umap_cli__get(opts, "--metric-v"), files[3].kind = UMAP_CLI_INPUT;
        if ((rc = umap_cli__check_files(cmd, files, 4)) != 0) return rc;
    }
    if (umap_cli__read_input(input, opts, 0, keep_rows, &x, &sp, &file_rows)) return 1;
    if (k >= x.rows) {
        fprintf(stderr, "umap: %s: --k %lld needs more than %lld rows\n", input, k, (long long)x.rows);
        umap_io_matrix_free(&x);
        umap_io_sparse_free(&sp);
        return 1;
    }
    if (umap_cli__read_metric_v(umap_cli__get(opts, "--metric-v"), d.metric, x.cols, &metric_v)) {
        umap_io_matrix_free(&x);
        umap_io_sparse_free(&sp);
        return 1;
    }
    d.metric_v = metric_v.data;
    if (sp.indptr && !strcmp(device, "vulkan")) {
        fprintf(stderr, "umap: %s: sparse rows: the Vulkan search takes dense rows (--device cpu)\n", input);
        umap_io_matrix_free(&x);
        umap_io_sparse_free(&sp);
        umap_io_matrix_free(&metric_v);
        return 2;
    }
    if (sp.indptr) device = "cpu"; /* auto, too */
    if ((rc = umap_cli__device(device, umap_cli__get(opts, "--quiet") != NULL, x.rows, x.cols, &vk)) != 0) {
        umap_io_matrix_free(&x);
        umap_io_sparse_free(&sp);
        umap_io_matrix_free(&metric_v);
        return rc;
    }
    idx = (int32_t *)malloc((size_t)x.rows * (size_t)k * sizeof *idx);
    dist = (float *)malloc((size_t)x.rows * (size_t)k * sizeof *dist);
    rc = 0;
    if (!idx || !dist) {
        rc = umap_cli__io_error("out of memory for the neighbour lists");
    } else {
        t0 = umap_cli__now();
        if (sp.indptr) {
            umap_rows rows = umap_cli__rows(&x, &sp);
            r = umap_knn_rows(&d, &rows, idx, dist);
        } else {
            r = vk ? umap_vk_knn(vk, &d, x.data, x.rows, x.cols, idx, dist)
                   : umap_knn(&d, x.data, x.rows, x.cols, idx, dist);
        }
        if (r != UMAP_OK) {
            char what[1200];
            snprintf(what, sizeof what, "k-NN of %s (%lld x %lld, k %lld)", input, (long long)x.rows,
                     (long long)x.cols, k);
            rc = umap_cli__lib_error(r, what, info.error_detail);
        } else {
            double dt = umap_cli__now() - t0;
            umap_cli__outputs outs;
            outs.n = 0;
            rc = umap_cli__stage_matrix(&outs, "--output", output, idx, x.rows, k, 1);
            if (!rc && dist_out) rc = umap_cli__stage_matrix(&outs, "--distances", dist_out, dist, x.rows, k, 0);
            rc = umap_cli__end_outputs(&outs, rc);
            if (!rc && !umap_cli__get(opts, "--quiet"))
                printf("knn: %lld rows x %lld, k %lld, %s%s (%s%s) in %.2f s\n", (long long)x.rows, (long long)x.cols,
                       k, umap_cli__method_name(info.method), vk ? " on the GPU" : "",
                       umap_metric_name(d.metric),
                       info.method == UMAP_KNN_NNDESCENT ? ", approximate" : "", dt);
        }
    }
    free(idx);
    free(dist);
    umap_vk_free(vk);
    umap_io_matrix_free(&x);
    umap_io_sparse_free(&sp);
    umap_io_matrix_free(&metric_v);
    return rc;
}

/* >>cli: eval --------------------------------------------------------------- */

static int umap_cli__eval(int argc, char **argv) {
    static const char *cmd = "eval";
    char usage[UMAP_CLI__HELP_SIZE];
    umap_cli__opt opts[UMAP_CLI__MAX_OPTIONS + 1];
    const char *input, *embedding;
    umap_io_matrix x, e, metric_v;
    umap_io_sparse sp;
    umap_io_labels labels;
    umap_quality_desc qd;
    umap_quality q;
    umap_result r;
    long long k, queries, edim, keep_rows;
    int64_t file_rows;
    int rc;
    char err[1024];
    double t0;

    memset(&qd, 0, sizeof qd); /* the CLI's defaults: umap_quality_eval's k, a sample of 10,000 rows */
    qd.k = 15;
    qd.n_queries = 10000;
    rc = umap_cli__parse_table(&umap_cli__eval_command, &qd, argc, argv, opts, &qd, usage, sizeof usage);
    if (rc == 1) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc) return rc;
    input = umap_cli__get(opts, "--input");
    embedding = umap_cli__get(opts, "--embedding");
    if (!input || !embedding) return umap_cli__usage_error(cmd, usage, "--input and --embedding are required");
    k = qd.k;
    queries = qd.n_queries;
    edim = umap_cli__get_int(opts, "--embedding-dim", 2);
    keep_rows = umap_cli__get_int(opts, "--rows", 0);
    {
        umap_cli__file files[4];
        files[0].option = "--input", files[0].path = input, files[0].kind = UMAP_CLI_INPUT;
        files[1].option = "--embedding", files[1].path = embedding, files[1].kind = UMAP_CLI_INPUT;
        files[2].option = "--labels", files[2].path = umap_cli__get(opts, "--labels"), files[2].kind = UMAP_CLI_INPUT;
        files[3].option = "--metric-v", files[3].path = umap_cli__get(opts, "--metric-v"), files[3].kind = UMAP_CLI_INPUT;
        if ((rc = umap_cli__check_files(cmd, files, 4)) != 0) return rc;
    }

    if (umap_cli__read_input(input, opts, 0, keep_rows, &x, &sp, &file_rows)) return 1;
    if (umap_io_read_matrix(embedding, (int64_t)edim, &e, err, sizeof err)) {
        umap_io_matrix_free(&x);
        umap_io_sparse_free(&sp);
        return umap_cli__io_error(err);
    }
    memset(&labels, 0, sizeof labels);
    memset(&metric_v, 0, sizeof metric_v);
    rc = 0;
    if (e.rows != file_rows && e.rows != x.rows) { /* the whole file's embedding, or that of the rows kept */
        char kept[64] = "";
        if (x.rows < file_rows) snprintf(kept, sizeof kept, " (--rows keeps %lld)", (long long)x.rows);
        fprintf(stderr, "umap: %s: %lld rows, but %s has %lld%s\n", embedding, (long long)e.rows, input,
                (long long)file_rows, kept);
        rc = 1;
    } else if (e.cols > 1024) {
        fprintf(stderr, "umap: %s: %lld columns is not an embedding\n", embedding, (long long)e.cols);
        rc = 1;
    } else if (umap_cli__get(opts, "--labels") &&
               umap_cli__read_labels(umap_cli__get(opts, "--labels"), file_rows, &labels)) {
        rc = 1;
    } else if (umap_cli__read_metric_v(umap_cli__get(opts, "--metric-v"), qd.metric, x.cols, &metric_v)) {
        rc = 1;
    }
    qd.metric_v = metric_v.data;
    e.rows = x.rows; /* --rows cuts the embedding and the labels with the data */
    if (labels.data) labels.n = x.rows;
    if (!rc) { /* a row that is not finite, named here: the evaluation would only say NaN or Inf */
        const umap_io_matrix *mats[2];
        const char *names[2];
        int w;
        mats[0] = &x, mats[1] = &e, names[0] = input, names[1] = embedding;
        if (sp.indptr) { /* sparse rows: their stored values */
            int64_t i, t;
            for (i = 0; i < x.rows && !rc; i++)
                for (t = sp.indptr[i]; t < sp.indptr[i + 1]; t++)
                    if (!(sp.values[t] - sp.values[t] == 0.0f)) {
                        fprintf(stderr, "umap: %s: row %lld holds %g: the quality of an embedding needs finite rows\n",
                                input, (long long)i, (double)sp.values[t]);
                        rc = 1;
                        break;
                    }
        }
        for (w = sp.indptr ? 1 : 0; w < 2 && !rc; w++) {
            int64_t i, n = mats[w]->rows * mats[w]->cols;
            for (i = 0; i < n; i++)
                if (!(mats[w]->data[i] - mats[w]->data[i] == 0.0f)) {
                    fprintf(stderr, "umap: %s: row %lld holds %g: the quality of an embedding needs finite rows\n",
                            names[w], (long long)(i / mats[w]->cols), (double)mats[w]->data[i]);
                    rc = 1;
                    break;
                }
        }
    }
    if (!rc) {
        qd.n_queries = queries >= x.rows ? 0 : queries;
        t0 = umap_cli__now();
        {
            umap_rows rows = umap_cli__rows(&x, &sp);
            r = umap_quality_eval_rows(&qd, &rows, e.data, (int)e.cols, labels.data, &q);
        }
        if (r != UMAP_OK) {
            char what[1200], why[256];
            snprintf(what, sizeof what, "quality evaluation of %s against %s", embedding, input);
            umap_cli__quality_why(x.rows, (int)k, 10, r, why, sizeof why);
            rc = umap_cli__lib_error(r, what, why);
        } else {
            printf("rows              %lld (%lld evaluated, %.2f s)\n", (long long)x.rows,
                   (long long)(qd.n_queries ? qd.n_queries : x.rows), umap_cli__now() - t0);
            printf("trustworthiness   %.4f  (k %lld)\n", q.trustworthiness, k);
            printf("knn recall        %.4f  (k %lld)\n", q.knn_recall, k);
            if (labels.data) printf("10-NN accuracy    %.4f\n", q.knn_accuracy);
        }
    }
    umap_io_matrix_free(&x);
    umap_io_sparse_free(&sp);
    umap_io_matrix_free(&e);
    umap_io_matrix_free(&metric_v);
    umap_io_labels_free(&labels);
    return rc;
}

/* >>cli: main --------------------------------------------------------------- */

/* umap --version: the library's version and the compile options that change
   what runs (not what it computes: every build gives the same results up to
   the matrix products' rounding) */
static int umap_cli__version(void) {
    printf("umap %s (umap.h %d.%d.%d)\n", UMAP_VERSION_STRING, UMAP_VERSION_MAJOR, UMAP_VERSION_MINOR,
           UMAP_VERSION_PATCH);
#ifdef UMAP_NO_BLAS
    printf("sgemm    portable (UMAP_NO_BLAS)\n");
#else
    printf("sgemm    CBLAS (-lblas)\n");
#endif
#ifdef UMAP_NO_THREADS
    printf("threads  none (UMAP_NO_THREADS)\n");
#else
    printf("threads  pthreads\n");
#endif
#ifdef UMAP_VULKAN
    printf("vulkan   built in (UMAP_VULKAN; `umap devices` lists the devices)\n");
#else
    printf("vulkan   not built (no UMAP_VULKAN: --device vulkan is refused)\n");
#endif
    return 0;
}

int main(int argc, char **argv) {
    const char *cmd;
    if (argc < 2) {
        fputs(umap_cli__usage, stderr);
        return 2;
    }
    cmd = argv[1];
#ifdef SIGXFSZ
    /* past a file size limit (ulimit -f) the write fails with EFBIG, and
       the staged outputs are removed, instead of the signal killing the
       program with its temporaries left behind */
    signal(SIGXFSZ, SIG_IGN);
#endif
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(umap_cli__usage, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) return umap_cli__version();
    if (!strcmp(cmd, "fit")) return umap_cli__fit(argc - 2, argv + 2);
    if (!strcmp(cmd, "transform")) return umap_cli__transform(argc - 2, argv + 2);
    if (!strcmp(cmd, "inverse")) return umap_cli__inverse(argc - 2, argv + 2);
    if (!strcmp(cmd, "update")) return umap_cli__update(argc - 2, argv + 2);
    if (!strcmp(cmd, "knn")) return umap_cli__knn(argc - 2, argv + 2);
    if (!strcmp(cmd, "eval")) return umap_cli__eval(argc - 2, argv + 2);
    if (!strcmp(cmd, "devices")) return umap_cli__devices(argc - 2, argv + 2);
    if (!strcmp(cmd, "tune")) return umap_cli__tune(argc - 2, argv + 2);
    fprintf(stderr, "umap: unknown command '%s'\n\n%s", cmd, umap_cli__usage);
    return 2;
}
