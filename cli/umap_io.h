/* umap_io.h - the file readers and writers of the umap command-line program
   and the examples: .npy, .csv, MNIST IDX (optionally gzipped, with its own
   inflate: no zlib), raw .f32 / .u8, sparse rows (scipy's .npz, svmlight
   text), and a progress printer. Header-only
   C99/C++. MIT licence (see the end of this file).

   DO THIS
   -------
   In exactly one C or C++ file:

       #define UMAP_IO_IMPLEMENTATION
       #include "umap_io.h"

   The readers and the stream writers need libc only. Include umap.h BEFORE
   this file to also get the writers that take a path (umap_io_write_matrix,
   umap_io_write_i32: they write through umap.h's umap_output, so an
   existing file changes only when the new one is complete) and
   umap_io_progress, the adapter for umap_config.progress.

   COMPILE-TIME OPTIONS
   --------------------
   UMAP_IO_STATIC          every public symbol is `static`
   UMAP_IO_MALLOC(sz) / UMAP_IO_REALLOC(p,sz) / UMAP_IO_FREE(p)
                           the allocator (all three or none); the arrays the
                           readers return are freed with UMAP_IO_FREE
   UMAP_IO_MAX_BYTES       largest file or decompressed stream (default 16 GiB)
   UMAP_IO_MAX_GZ_RATIO    decompressed bytes per compressed byte (default
                           1032, deflate's own ceiling: see DECOMPRESSED SIZE)
   UMAP_IO_MAX_ROWS        default INT32_MAX (the library's indices are int32)
   UMAP_IO_MAX_COLS        default 2^24

   QUICK START
   -----------
       char err[512];
       umap_io_matrix m;
       if (umap_io_read_matrix("train-images-idx3-ubyte.gz", 0, &m, err, sizeof err)) {
           fprintf(stderr, "%s\n", err);      // "train-images-...gz: gzip: ..."
           return 1;
       }
       ... m.data is m.rows x m.cols floats, row-major ...
       umap_io_write_matrix("out.npy", m.data, m.rows, m.cols, NULL, err, sizeof err);
       umap_io_matrix_free(&m);

   FORMATS (readers pick by content first, then by extension)
   -------
   .npy    format versions 1, 2, 3; dtypes f4, f8, u1, i1, u2, i2, u4, i4, u8,
           i8 in either byte order ('<', '>', '|', '='); C order only
           (fortran_order True is an error). Shape (n,) reads as n x 1, (n, d)
           as n x d, and (n, a, b, ...) as n x (a*b*...). Labels: integer
           dtypes only, shape (n,) or (n, 1). The payload must be exactly
           prod(shape) * itemsize bytes.
   .csv    comma-separated numbers, one row per line (LF or CRLF); the first
           line is a header when any of its fields is not a number; every
           row must have as many fields as the first; blank lines at the end
           are ignored, blank lines in between are an error. Labels: one
           integer per line (header allowed).
   IDX     MNIST's format: magic 00 00 TT NN, NN big-endian u32 dimensions,
           TT = 08 u8, 09 i8, 0B i16, 0C i32, 0D f32, 0E f64. Images
           (0x00000803) read as n x (h*w); labels are 1-D integer IDX
           (0x00000801). Recognised by its magic and size.
   gzip    any of the above gzipped (magic 1f 8b, whatever the name says):
           stored, fixed and dynamic Huffman blocks, multiple members, CRC32
           and ISIZE checked.
           The decompressed size is bounded: see DECOMPRESSED SIZE.
   .f32    raw little-endian float32 rows; the caller gives the width
           (raw_dim); the size must be a multiple of 4 * raw_dim.
   .u8     raw labels, one byte each.

   SPARSE FILES (umap_io_read_sparse)
   .npz    scipy.sparse.save_npz, compressed or not: a zip (zip64 too) of
           .npy members format (b'csr', b'csc' or b'coo'), shape, data and
           indptr + indices (csr, csc) or row + col (coo). Any integer
           index dtype, any numeric data dtype; members stored or deflated,
           sizes and CRC32 checked; offsets and indices checked against the
           shape, the first bad one named. Read into CSR in canonical form.
           Columns up to UMAP_IO_MAX_COLS; a csc or coo shape past 2^24
           rows may claim at most 64 rows per stored value (their empty
           rows take no bytes in the file, 8 each in memory).
   .svm / .svmlight / .libsvm
           "label [qid:N] index:value ... [# comment]" per row, as
           scikit-learn's dump_svmlight_file writes it; blank and comment
           lines skipped; indices strictly increasing within a row, named
           by line otherwise. umap_io_read_labels reads the labels
           (integers) from the same file.
   The dense readers refuse both, naming the sparse reader.

   Writers choose by extension: .npy (<f4 or <i4, 2-D), .csv (header x,y /
   x,y,z / c0,c1,..., optional label column), .f32 (or .i32) raw.
   A write goes to a temporary beside the target, renamed over it when
   complete (umap.h's umap_output): a failed write leaves the old file.

   DECOMPRESSED SIZE
   -----------------
   A small gzip can claim, or inflate to, gigabytes. The readers hold the
   output to the smallest of these bounds, and fail with a message naming
   the one that was passed as soon as the output would pass it:
   - UMAP_IO_MAX_BYTES, and UMAP_IO_MAX_GZ_RATIO times the compressed size.
     The default ratio, 1032, is the most any deflate stream can reach (a
     258-byte match in 2 bits), so by default it refuses no valid file;
     set it lower to bound raw .f32 / .u8 streams, which have no header.
   - the payload's own header: once the first bytes are inflated, a .npy or
     IDX header states the exact size (the read fails on any other), so the
     output stops there; a header that states more than the bounds above is
     refused before its payload is inflated.
   - the name and the first bytes: a payload that cannot be what the name
     or its content says (a .npy name without the .npy magic, an IDX name
     without IDX's, CSV text holding a NUL byte, a gzip inside the gzip)
     fails after its first bytes.
   The trailer's ISIZE (the size mod 2^32) only sizes the first buffer, up
   to 16 times the compressed size; past that the buffer doubles as data
   really arrives, so memory follows the output, not the claims. Real data
   is unaffected: MNIST's IDX files, and all-zero columns at ratios of
   100-1000, read as before.
   umap_io_gunzip alone knows no format: it applies the first bound only.

   ERRORS
   ------
   Every call returns a umap_io_result (0 = ok) and writes one line into the
   caller's buffer naming the file and where: the line for CSV, 1-based as
   an editor counts it, and the data row it holds, 0-based as umap.h and
   numpy count rows ("data.csv:17 (row 15): expected 784 fields, got 783"
   when a header is line 1), the byte offset for binary files
   ("train.idx.gz: gzip: invalid Huffman code at byte 12345"; gzip offsets
   count in the compressed file). Every size is checked for overflow and
   against the caps above; nothing is read out of bounds. Values are
   returned as they are: NaN and Inf pass through (the library rejects
   them, naming the row the same 0-based way).

   VERSION HISTORY
   ---------------
   0.1  readers, writers, inflate, progress printer
   0.2  sparse rows: scipy's .npz and svmlight text
*/
#ifndef UMAP_IO_H
#define UMAP_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef UMAP_IO_DEF
#ifdef UMAP_IO_STATIC
#define UMAP_IO_DEF static
#else
#define UMAP_IO_DEF extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define UMAP_IO_RESULT_LIST(X)                                    \
    X(UMAP_IO_OK, "ok")                                           \
    X(UMAP_IO_ERR_ARGUMENT, "invalid argument")                   \
    X(UMAP_IO_ERR_OPEN, "cannot open file")                       \
    X(UMAP_IO_ERR_READ, "read error")                             \
    X(UMAP_IO_ERR_WRITE, "write error")                           \
    X(UMAP_IO_ERR_FORMAT, "malformed file")                       \
    X(UMAP_IO_ERR_UNSUPPORTED, "unsupported format or element type") \
    X(UMAP_IO_ERR_TOO_LARGE, "sizes overflow or exceed a limit")  \
    X(UMAP_IO_ERR_OUT_OF_MEMORY, "out of memory")

typedef enum umap_io_result {
#define UMAP_IO__X_ENUM(id, msg) id,
    UMAP_IO_RESULT_LIST(UMAP_IO__X_ENUM)
#undef UMAP_IO__X_ENUM
    UMAP_IO_RESULT_COUNT
} umap_io_result;

UMAP_IO_DEF const char *umap_io_result_string(umap_io_result r);

/* rows x cols floats, row-major; free with umap_io_matrix_free */
typedef struct umap_io_matrix {
    float *data;
    int64_t rows, cols;
} umap_io_matrix;

/* n labels; free with umap_io_labels_free */
typedef struct umap_io_labels {
    int32_t *data;
    int64_t n;
} umap_io_labels;

/* Reads a matrix (see FORMATS). raw_dim is the row width of a raw .f32 file
   (ignored for other formats; 0 there is an error that says so). On error
   *out is zeroed and err (may be NULL) holds "FILE: ..." . */
UMAP_IO_DEF umap_io_result umap_io_read_matrix(const char *path, int64_t raw_dim, umap_io_matrix *out, char *err,
                                               size_t err_size);
/* Reads integer labels: .npy, .csv, IDX (gzipped or not) or raw .u8. */
UMAP_IO_DEF umap_io_result umap_io_read_labels(const char *path, umap_io_labels *out, char *err, size_t err_size);
/* The same on bytes in memory; name is used for the extension and in
   messages (for fuzzing and for data that did not come from a file). */
UMAP_IO_DEF umap_io_result umap_io_read_matrix_memory(const char *name, const void *bytes, size_t size,
                                                      int64_t raw_dim, umap_io_matrix *out, char *err,
                                                      size_t err_size);
UMAP_IO_DEF umap_io_result umap_io_read_labels_memory(const char *name, const void *bytes, size_t size,
                                                      umap_io_labels *out, char *err, size_t err_size);
UMAP_IO_DEF void umap_io_matrix_free(umap_io_matrix *m);
UMAP_IO_DEF void umap_io_labels_free(umap_io_labels *l);

/* Sparse rows, CSR as scipy holds them: row i stores values[indptr[i] ..
   indptr[i+1]) at columns indices[...], increasing within the row (the
   readers sort them and sum repeated columns, as scipy's sum_duplicates).
   umap.h's umap_rows_csr describes them to the library. Free with
   umap_io_sparse_free. */
typedef struct umap_io_sparse {
    int64_t rows, cols;
    int64_t *indptr;  /* rows + 1 */
    int32_t *indices; /* indptr[rows] */
    float *values;    /* indptr[rows] */
} umap_io_sparse;

/* 1 when the name (a trailing .gz aside) says sparse rows: .npz, .svm,
   .svmlight, .libsvm */
UMAP_IO_DEF int umap_io_is_sparse(const char *path);
/* Reads sparse rows (see SPARSE FILES): scipy's save_npz (csr, csc or
   coo; compressed or not) or svmlight / libsvm text (gzipped or not).
   zero_based applies to svmlight: 1, 0 (libsvm's own one-based indices) or
   -1 (zero-based when any index is 0, scikit-learn's "auto");
   n_features > 0 fixes svmlight's width (0: its largest index). An .npz
   states its own shape. */
UMAP_IO_DEF umap_io_result umap_io_read_sparse(const char *path, int zero_based, int64_t n_features,
                                               umap_io_sparse *out, char *err, size_t err_size);
UMAP_IO_DEF umap_io_result umap_io_read_sparse_memory(const char *name, const void *bytes, size_t size,
                                                      int zero_based, int64_t n_features, umap_io_sparse *out,
                                                      char *err, size_t err_size);
UMAP_IO_DEF void umap_io_sparse_free(umap_io_sparse *s);

/* Decompresses a gzip stream (one or more members). *out (free with
   UMAP_IO_FREE) receives *out_size bytes; name appears in messages. The
   output is bounded by UMAP_IO_MAX_BYTES and UMAP_IO_MAX_GZ_RATIO (see
   DECOMPRESSED SIZE); the readers add the payload's own header. */
UMAP_IO_DEF umap_io_result umap_io_gunzip(const char *name, const void *src, size_t size, unsigned char **out,
                                          size_t *out_size, char *err, size_t err_size);
/* Reads a whole file (free *out with UMAP_IO_FREE). */
UMAP_IO_DEF umap_io_result umap_io_read_file(const char *path, unsigned char **out, size_t *out_size, char *err,
                                             size_t err_size);

/* Checks what a writer would check before writing anything: the extension
   (.npy, .csv, .f32 for floats (is_int 0), .i32 for int32) and that only
   .csv carries labels. For a program that refuses bad outputs before work. */
UMAP_IO_DEF umap_io_result umap_io_check_output(const char *path, int is_int, int with_labels, char *err,
                                                size_t err_size);
#ifdef UMAP_H
/* Writes rows x cols floats by extension: .npy (<f4), .csv (header, then
   %.9g values: exact round trip; labels (may be NULL) add a `label`
   column), .f32 (raw; labels must be NULL). Through a umap_output: the file
   at path changes only when the whole new one is written. */
UMAP_IO_DEF umap_io_result umap_io_write_matrix(const char *path, const float *data, int64_t rows, int64_t cols,
                                                const int32_t *labels, char *err, size_t err_size);
/* Writes rows x cols int32 by extension: .npy (<i4), .csv, .i32 (raw). */
UMAP_IO_DEF umap_io_result umap_io_write_i32(const char *path, const int32_t *data, int64_t rows, int64_t cols,
                                             char *err, size_t err_size);
#endif
/* The same into an open stream (a umap_output's file, to commit several
   outputs together); name picks the format and appears in messages. The
   stream is not closed: the caller finishes it. */
UMAP_IO_DEF umap_io_result umap_io_write_matrix_file(FILE *f, const char *name, const float *data, int64_t rows,
                                                     int64_t cols, const int32_t *labels, char *err,
                                                     size_t err_size);
UMAP_IO_DEF umap_io_result umap_io_write_i32_file(FILE *f, const char *name, const int32_t *data, int64_t rows,
                                                  int64_t cols, char *err, size_t err_size);

/* >>progress: a bar on a terminal, a few plain lines otherwise */
typedef enum umap_io_progress_mode {
    UMAP_IO_PROGRESS_AUTO,  /* bar when out is stderr and stderr is a terminal, else lines */
    UMAP_IO_PROGRESS_BAR,   /* \r[#####     ]  45% train epoch 9/20 loss 0.1234 12.3s */
    UMAP_IO_PROGRESS_LINES, /* one line per phase change, then about every 10% (at most one per 2 s) */
    UMAP_IO_PROGRESS_QUIET  /* nothing */
} umap_io_progress_mode;

/* Zero-initialised = auto mode on stderr. */
typedef struct umap_io_progress_state {
    umap_io_progress_mode mode;
    FILE *out;              /* NULL = stderr */
    const char *prefix;     /* lines mode: before each line; NULL = "umap: " */
    /* internal */
    char phase_[16];
    double last_s_;
    int last_decile_, open_, width_, resolved_;
} umap_io_progress_state;

UMAP_IO_DEF void umap_io_progress_update(umap_io_progress_state *s, const char *phase, int epoch, int n_epochs,
                                         float loss, double elapsed_s);
/* Ends the bar's line (call once after fit). */
UMAP_IO_DEF void umap_io_progress_end(umap_io_progress_state *s);

#ifdef UMAP_H
/* For umap_config.progress; progress_user_data = a umap_io_progress_state*.
   Never cancels (returns 0). */
UMAP_IO_DEF int umap_io_progress(const umap_progress *progress, void *state);
#endif

#ifdef __cplusplus
}
#endif
#endif /* UMAP_IO_H */

/* ========================================================================= */
/*                              IMPLEMENTATION                               */
/* ========================================================================= */
#ifdef UMAP_IO_IMPLEMENTATION
#ifndef UMAP_IO__IMPLEMENTED
#define UMAP_IO__IMPLEMENTED

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#define UMAP_IO__HAVE_ISATTY 1
#endif

#if defined(UMAP_IO_MALLOC) && defined(UMAP_IO_REALLOC) && defined(UMAP_IO_FREE)
/* all three given */
#elif !defined(UMAP_IO_MALLOC) && !defined(UMAP_IO_REALLOC) && !defined(UMAP_IO_FREE)
#define UMAP_IO_MALLOC(sz) malloc(sz)
#define UMAP_IO_REALLOC(p, sz) realloc(p, sz)
#define UMAP_IO_FREE(p) free(p)
#else
#error "umap_io.h: define all of UMAP_IO_MALLOC, UMAP_IO_REALLOC, UMAP_IO_FREE or none"
#endif

#ifndef UMAP_IO_MAX_BYTES
#define UMAP_IO_MAX_BYTES ((uint64_t)1 << 34)
#endif
/* what is read and allocated: also at most half the address space, so on a
   32-bit machine a size past it fails as too large instead of wrapping */
#define UMAP_IO__LIMIT \
    ((uint64_t)(SIZE_MAX / 2) < (uint64_t)UMAP_IO_MAX_BYTES ? (uint64_t)(SIZE_MAX / 2) : (uint64_t)UMAP_IO_MAX_BYTES)
/* deflate's own ceiling: a 258-byte match in 2 bits of code (see DECOMPRESSED
   SIZE in the manual) */
#ifndef UMAP_IO_MAX_GZ_RATIO
#define UMAP_IO_MAX_GZ_RATIO 1032
#endif
#ifndef UMAP_IO_MAX_ROWS
#define UMAP_IO_MAX_ROWS ((int64_t)INT32_MAX)
#endif
#ifndef UMAP_IO_MAX_COLS
#define UMAP_IO_MAX_COLS ((int64_t)1 << 24)
#endif

#ifdef UMAP_IO_STATIC
#define UMAP_IO__FN static
#else
#define UMAP_IO__FN
#endif

/* >>base ------------------------------------------------------------------ */

static const char *const umap_io__result_msgs[] = {
#define UMAP_IO__X_MSG(id, msg) msg,
    UMAP_IO_RESULT_LIST(UMAP_IO__X_MSG)
#undef UMAP_IO__X_MSG
};
typedef char umap_io__msgs_match_enum[(sizeof umap_io__result_msgs / sizeof umap_io__result_msgs[0]) ==
                                              UMAP_IO_RESULT_COUNT
                                          ? 1
                                          : -1];

UMAP_IO__FN const char *umap_io_result_string(umap_io_result r) {
    if ((int)r < 0 || (int)r >= UMAP_IO_RESULT_COUNT) return "unknown result";
    return umap_io__result_msgs[r];
}

/* the error sink: "NAME: message" into err (err may be NULL) */
static umap_io_result umap_io__fail(char *err, size_t err_size, umap_io_result r, const char *name, const char *fmt,
                                   ...) {
    va_list ap;
    size_t len;
    if (!err || !err_size) return r;
    snprintf(err, err_size, "%s", name ? name : "(memory)");
    len = strlen(err);
    if (len < err_size) {
        va_start(ap, fmt);
        vsnprintf(err + len, err_size - len, fmt, ap);
        va_end(ap);
    }
    return r;
}

/* a*b into *out unless it overflows max */
static int umap_io__mul(uint64_t a, uint64_t b, uint64_t max, uint64_t *out) {
    if (a && b > max / a) return 0;
    if (a * b > max) return 0;
    *out = a * b;
    return 1;
}

/* what every reader of bytes in memory checks first; a NULL name is
   "(memory)" in the messages */
static umap_io_result umap_io__memory_args(const char **name, const void *bytes, size_t size, char *err,
                                           size_t err_size) {
    if (!*name) *name = "(memory)";
    if (!bytes && size) return umap_io__fail(err, err_size, UMAP_IO_ERR_ARGUMENT, *name, ": no data");
    if (size == 0) return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, *name, ": empty file");
    return UMAP_IO_OK;
}

static const char *umap_io__ext(const char *name) {
    const char *dot = strrchr(name, '.'), *slash = strrchr(name, '/');
    if (!dot || (slash && dot < slash)) return "";
    return dot;
}

static int umap_io__ieq(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        int ca = (unsigned char)*a, cb = (unsigned char)*b;
        if (ca >= 'A' && ca <= 'Z') ca += 32;
        if (cb >= 'A' && cb <= 'Z') cb += 32;
        if (ca != cb) return 0;
    }
    return *a == *b;
}

/* the name without a trailing .gz, in buf */
static const char *umap_io__strip_gz(const char *name, char *buf, size_t n) {
    size_t len = strlen(name);
    if (len > 3 && umap_io__ieq(name + len - 3, ".gz") && len - 3 < n) {
        memcpy(buf, name, len - 3);
        buf[len - 3] = 0;
        return buf;
    }
    return name;
}

static uint32_t umap_io__be32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static uint32_t umap_io__le32(const unsigned char *p) {
    return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | p[0];
}

UMAP_IO__FN void umap_io_matrix_free(umap_io_matrix *m) {
    if (!m) return;
    UMAP_IO_FREE(m->data);
    m->data = NULL;
    m->rows = m->cols = 0;
}
UMAP_IO__FN void umap_io_labels_free(umap_io_labels *l) {
    if (!l) return;
    UMAP_IO_FREE(l->data);
    l->data = NULL;
    l->n = 0;
}

UMAP_IO__FN umap_io_result umap_io_read_file(const char *path, unsigned char **out, size_t *out_size, char *err,
                                             size_t err_size) {
    FILE *f;
    unsigned char *buf = NULL, *nb;
    size_t cap = 0, len = 0, got;
    *out = NULL;
    *out_size = 0;
    if (!path) return umap_io__fail(err, err_size, UMAP_IO_ERR_ARGUMENT, "(null)", ": no file name");
    f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        struct stat st;
        /* Windows refuses to open a directory as "permission denied" */
#ifdef _WIN32
        if (stat(path, &st) == 0 && (st.st_mode & _S_IFMT) == _S_IFDIR)
#else
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
#endif
            return umap_io__fail(err, err_size, UMAP_IO_ERR_READ, path, ": is a directory");
        return umap_io__fail(err, err_size, UMAP_IO_ERR_OPEN, path, ": cannot open: %s", strerror(e));
    }
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? cap * 2 : (size_t)1 << 16;
            if ((uint64_t)ncap > UMAP_IO__LIMIT + 1 || ncap < cap) {
                if ((uint64_t)cap > UMAP_IO__LIMIT) {
                    UMAP_IO_FREE(buf);
                    fclose(f);
                    return umap_io__fail(err, err_size, UMAP_IO_ERR_TOO_LARGE, path,
                                         ": larger than the limit of %llu bytes",
                                         (unsigned long long)UMAP_IO__LIMIT);
                }
                ncap = (size_t)UMAP_IO__LIMIT + 1;
            }
            nb = (unsigned char *)UMAP_IO_REALLOC(buf, ncap);
            if (!nb) {
                UMAP_IO_FREE(buf);
                fclose(f);
                return umap_io__fail(err, err_size, UMAP_IO_ERR_OUT_OF_MEMORY, path, ": out of memory reading %zu bytes",
                                     ncap);
            }
            buf = nb;
            cap = ncap;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    if (ferror(f)) { /* a directory opens, then reads fail with EISDIR */
        int e = errno ? errno : EIO;
        UMAP_IO_FREE(buf);
        fclose(f);
        if (len == 0 && e == EISDIR) return umap_io__fail(err, err_size, UMAP_IO_ERR_READ, path, ": is a directory");
        return umap_io__fail(err, err_size, UMAP_IO_ERR_READ, path, ": read error after %zu bytes: %s", len,
                             strerror(e));
    }
    fclose(f);
    *out = buf;
    *out_size = len;
    return UMAP_IO_OK;
}

/* >>inflate: RFC 1951 (deflate) and RFC 1952 (gzip) ----------------------- */

#define UMAP_IO__FAST_BITS 9
#define UMAP_IO__FAST_MASK ((1 << UMAP_IO__FAST_BITS) - 1)

typedef struct umap_io__huff {
    uint16_t fast[1 << UMAP_IO__FAST_BITS]; /* (len << 9) | symbol, 0 = slow path */
    uint16_t firstcode[16];
    int maxcode[17];
    uint16_t firstsymbol[16];
    unsigned char size[288];
    uint16_t value[288];
} umap_io__huff;

typedef struct umap_io__inflater umap_io__inflater;
struct umap_io__inflater {
    const unsigned char *in;
    size_t n, pos;      /* pos counts bytes loaded into the bit buffer, including zero padding past n */
    uint64_t bitbuf;
    int nbits;
    unsigned char *out;
    size_t out_len, out_cap;
    size_t base;        /* offset of `in` inside the file, for messages */
    const char *name;
    char *err;
    size_t err_size;
    umap_io_result status;
    /* The output never grows past limit (why says where the limit comes
       from). Once out_len reaches check_at, check (when set) looks at the
       bytes so far and may lower the limit, fail, or ask again later: the
       readers learn the payload's size from its header this way, before
       the rest is inflated. */
    uint64_t limit;
    char why[160];
    size_t check_at;
    int (*check)(umap_io__inflater *z);
    void *check_ctx;
};

static int umap_io__zfail(umap_io__inflater *z, umap_io_result r, const char *what) {
    uint64_t consumed = (uint64_t)z->pos * 8 - (uint64_t)z->nbits;
    if (z->status == UMAP_IO_OK) {
        z->status = r;
        umap_io__fail(z->err, z->err_size, r, z->name, ": gzip: %s at byte %llu", what,
                      (unsigned long long)(z->base + consumed / 8));
    }
    return 0;
}

static void umap_io__refill(umap_io__inflater *z) {
    while (z->nbits <= 56) {
        uint64_t byte = z->pos < z->n ? z->in[z->pos] : 0;
        z->pos++;
        z->bitbuf |= byte << z->nbits;
        z->nbits += 8;
    }
}

/* 1 when the bits consumed so far are still inside the input */
static int umap_io__in_bounds(umap_io__inflater *z) {
    return (uint64_t)z->pos * 8 - (uint64_t)z->nbits <= (uint64_t)z->n * 8;
}

static uint32_t umap_io__bits(umap_io__inflater *z, int n) {
    uint32_t v;
    if (z->nbits < n) umap_io__refill(z);
    v = (uint32_t)(z->bitbuf & (((uint64_t)1 << n) - 1));
    z->bitbuf >>= n;
    z->nbits -= n;
    return v;
}

static int umap_io__bitrev16(int v) {
    v = ((v & 0xAAAA) >> 1) | ((v & 0x5555) << 1);
    v = ((v & 0xCCCC) >> 2) | ((v & 0x3333) << 2);
    v = ((v & 0xF0F0) >> 4) | ((v & 0x0F0F) << 4);
    v = ((v & 0xFF00) >> 8) | ((v & 0x00FF) << 8);
    return v;
}

/* canonical Huffman code from lengths; 0 (with the error set) when
   oversubscribed */
static int umap_io__build(umap_io__inflater *z, umap_io__huff *h, const unsigned char *lens, int num) {
    int i, k = 0, code = 0, next_code[16], sizes[17];
    memset(sizes, 0, sizeof sizes);
    memset(h->fast, 0, sizeof h->fast);
    memset(h->size, 0, sizeof h->size);
    for (i = 0; i < num; i++) sizes[lens[i]]++;
    sizes[0] = 0;
    for (i = 1; i < 16; i++) {
        next_code[i] = code;
        h->firstcode[i] = (uint16_t)code;
        h->firstsymbol[i] = (uint16_t)k;
        code += sizes[i];
        if (sizes[i] && code - 1 >= (1 << i)) return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "oversubscribed Huffman code");
        h->maxcode[i] = code << (16 - i);
        code <<= 1;
        k += sizes[i];
    }
    h->maxcode[16] = 0x10000;
    for (i = 0; i < num; i++) {
        int s = lens[i];
        if (s) {
            int c = next_code[s] - h->firstcode[s] + h->firstsymbol[s];
            uint16_t fastv = (uint16_t)((s << 9) | i);
            h->size[c] = (unsigned char)s;
            h->value[c] = (uint16_t)i;
            if (s <= UMAP_IO__FAST_BITS) {
                int j = umap_io__bitrev16(next_code[s]) >> (16 - s);
                while (j < (1 << UMAP_IO__FAST_BITS)) {
                    h->fast[j] = fastv;
                    j += 1 << s;
                }
            }
            next_code[s]++;
        }
    }
    return 1;
}

/* the next symbol, or -1 with the error set */
static int umap_io__decode(umap_io__inflater *z, const umap_io__huff *h) {
    int b, s, k;
    if (z->nbits < 16) umap_io__refill(z);
    b = h->fast[z->bitbuf & UMAP_IO__FAST_MASK];
    if (b) {
        s = b >> 9;
        z->bitbuf >>= s;
        z->nbits -= s;
        if (!umap_io__in_bounds(z)) return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "truncated stream") - 1;
        return b & 511;
    }
    k = umap_io__bitrev16((int)(z->bitbuf & 0xFFFF));
    for (s = UMAP_IO__FAST_BITS + 1;; s++)
        if (k < h->maxcode[s]) break;
    if (s >= 16) return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "invalid Huffman code") - 1;
    b = (k >> (16 - s)) - h->firstcode[s] + h->firstsymbol[s];
    if (b < 0 || b >= 288 || h->size[b] != s) return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "invalid Huffman code") - 1;
    z->bitbuf >>= s;
    z->nbits -= s;
    if (!umap_io__in_bounds(z)) return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "truncated stream") - 1;
    return h->value[b];
}

static int umap_io__ensure(umap_io__inflater *z, size_t extra) {
    size_t need = z->out_len + extra, ncap;
    unsigned char *nb;
    if (z->check && z->out_len >= z->check_at && !z->check(z)) return 0;
    if (need < z->out_len || (uint64_t)need > z->limit) {
        char what[256];
        snprintf(what, sizeof what, "the decompressed data passes %llu bytes, %s", (unsigned long long)z->limit,
                 z->why);
        return umap_io__zfail(z, UMAP_IO_ERR_TOO_LARGE, what);
    }
    if (need <= z->out_cap) return 1;
    /* doubling, but never past the limit: memory follows the output that
       really arrives, not what a header or the trailer claims */
    ncap = z->out_cap ? z->out_cap : 4096;
    while (ncap < need) ncap = (uint64_t)ncap > z->limit / 2 ? (size_t)z->limit : ncap * 2;
    nb = (unsigned char *)UMAP_IO_REALLOC(z->out, ncap);
    if (!nb) return umap_io__zfail(z, UMAP_IO_ERR_OUT_OF_MEMORY, "out of memory");
    z->out = nb;
    z->out_cap = ncap;
    return 1;
}

static const uint16_t umap_io__len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                               31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const unsigned char umap_io__len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                     2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t umap_io__dist_base[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,
                                                33,  49,  65,  97,  129, 193,  257,  385,  513,  769,
                                                1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const unsigned char umap_io__dist_extra[30] = {0, 0, 0, 0, 1, 1, 2,  2,  3,  3,  4,  4,  5,  5,  6,
                                                      6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static int umap_io__codes(umap_io__inflater *z, const umap_io__huff *lit, const umap_io__huff *dist) {
    for (;;) {
        int sym = umap_io__decode(z, lit);
        if (sym < 0) return 0;
        if (sym < 256) {
            if ((z->out_len == z->out_cap || z->out_len >= z->check_at) && !umap_io__ensure(z, 1)) return 0;
            z->out[z->out_len++] = (unsigned char)sym;
        } else if (sym == 256) {
            return 1;
        } else {
            int len, d;
            size_t i, from;
            sym -= 257;
            if (sym >= 29) return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "invalid length symbol");
            len = umap_io__len_base[sym] + (int)umap_io__bits(z, umap_io__len_extra[sym]);
            d = umap_io__decode(z, dist);
            if (d < 0) return 0;
            if (d >= 30) return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "invalid distance symbol");
            d = umap_io__dist_base[d] + (int)umap_io__bits(z, umap_io__dist_extra[d]);
            if (!umap_io__in_bounds(z)) return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "truncated stream");
            if ((size_t)d > z->out_len) return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "distance too far back");
            if (!umap_io__ensure(z, (size_t)len)) return 0;
            from = z->out_len - (size_t)d;
            for (i = 0; i < (size_t)len; i++) z->out[z->out_len + i] = z->out[from + i];
            z->out_len += (size_t)len;
        }
    }
}

static int umap_io__dynamic(umap_io__inflater *z, umap_io__huff *lit, umap_io__huff *dist) {
    static const unsigned char order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    unsigned char lens[286 + 32], cl[19];
    umap_io__huff *clh = dist; /* reused: the code-length code is done before dist is built */
    int hlit = (int)umap_io__bits(z, 5) + 257, hdist = (int)umap_io__bits(z, 5) + 1,
        hclen = (int)umap_io__bits(z, 4) + 4, i, n = 0;
    if (hlit > 286) return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "too many length codes");
    if (hdist > 30) return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "too many distance codes");
    memset(cl, 0, sizeof cl);
    for (i = 0; i < hclen; i++) cl[order[i]] = (unsigned char)umap_io__bits(z, 3);
    if (!umap_io__in_bounds(z)) return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "truncated stream");
    if (!umap_io__build(z, clh, cl, 19)) return 0;
    while (n < hlit + hdist) {
        int c = umap_io__decode(z, clh), rep, val = 0;
        if (c < 0) return 0;
        if (c < 16) {
            lens[n++] = (unsigned char)c;
            continue;
        }
        if (c == 16) {
            if (n == 0) return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "repeat with no previous length");
            val = lens[n - 1];
            rep = 3 + (int)umap_io__bits(z, 2);
        } else if (c == 17) {
            rep = 3 + (int)umap_io__bits(z, 3);
        } else if (c == 18) {
            rep = 11 + (int)umap_io__bits(z, 7);
        } else {
            return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "invalid code-length symbol");
        }
        if (n + rep > hlit + hdist) return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "code lengths overflow");
        memset(lens + n, val, (size_t)rep);
        n += rep;
    }
    if (!umap_io__in_bounds(z)) return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "truncated stream");
    if (lens[256] == 0) return umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "no end-of-block code");
    if (!umap_io__build(z, lit, lens, hlit)) return 0;
    if (!umap_io__build(z, dist, lens + hlit, hdist)) return 0;
    return 1;
}

/* one raw deflate stream from z->in; leaves the bit reader after it */
static int umap_io__inflate(umap_io__inflater *z) {
    umap_io__huff *h = (umap_io__huff *)UMAP_IO_MALLOC(2 * sizeof(umap_io__huff));
    int final = 0, ok = 1;
    if (!h) return umap_io__zfail(z, UMAP_IO_ERR_OUT_OF_MEMORY, "out of memory");
    while (ok && !final) {
        int type;
        final = (int)umap_io__bits(z, 1);
        type = (int)umap_io__bits(z, 2);
        if (!umap_io__in_bounds(z)) {
            ok = umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "truncated stream");
        } else if (type == 0) {
            unsigned char hdr[4];
            uint32_t len, nlen;
            int i;
            umap_io__bits(z, z->nbits & 7); /* to a byte boundary */
            for (i = 0; i < 4; i++) hdr[i] = (unsigned char)umap_io__bits(z, 8);
            if (!umap_io__in_bounds(z)) {
                ok = umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "truncated stream");
                break;
            }
            len = hdr[0] | ((uint32_t)hdr[1] << 8);
            nlen = hdr[2] | ((uint32_t)hdr[3] << 8);
            if (len != (~nlen & 0xFFFF)) {
                ok = umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "stored block length check failed");
                break;
            }
            /* drain the whole bytes still in the bit buffer, then copy */
            while (len && z->nbits >= 8) {
                if (!umap_io__ensure(z, 1)) { ok = 0; break; }
                z->out[z->out_len++] = (unsigned char)umap_io__bits(z, 8);
                len--;
            }
            if (!ok) break;
            if (!umap_io__in_bounds(z)) {
                ok = umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "truncated stream");
                break;
            }
            if (len) {
                /* bit buffer is empty here: pos is the next input byte */
                if (z->pos > z->n || z->n - z->pos < len) {
                    ok = umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "truncated stored block");
                    break;
                }
                if (!umap_io__ensure(z, len)) { ok = 0; break; }
                memcpy(z->out + z->out_len, z->in + z->pos, len);
                z->out_len += len;
                z->pos += len;
            }
        } else if (type == 1) {
            unsigned char lens[288 + 32];
            int i;
            for (i = 0; i < 144; i++) lens[i] = 8;
            for (; i < 256; i++) lens[i] = 9;
            for (; i < 280; i++) lens[i] = 7;
            for (; i < 288; i++) lens[i] = 8;
            for (i = 0; i < 32; i++) lens[288 + i] = 5;
            ok = umap_io__build(z, &h[0], lens, 288) && umap_io__build(z, &h[1], lens + 288, 32) &&
                 umap_io__codes(z, &h[0], &h[1]);
        } else if (type == 2) {
            ok = umap_io__dynamic(z, &h[0], &h[1]) && umap_io__codes(z, &h[0], &h[1]);
        } else {
            ok = umap_io__zfail(z, UMAP_IO_ERR_FORMAT, "invalid block type 3");
        }
    }
    UMAP_IO_FREE(h);
    return ok;
}

static void umap_io__crc_table(uint32_t t[256]) {
    uint32_t i, c;
    int k;
    for (i = 0; i < 256; i++) {
        c = i;
        for (k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        t[i] = c;
    }
}

static uint32_t umap_io__crc32(const uint32_t t[256], const unsigned char *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    size_t i;
    for (i = 0; i < n; i++) c = t[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

/* gunzip with a check on the output as it grows (NULL: none; see the
   inflater's check) */
static umap_io_result umap_io__gunzip(const char *name, const void *src, size_t size, unsigned char **out,
                                      size_t *out_size, char *err, size_t err_size, int (*check)(umap_io__inflater *),
                                      void *check_ctx) {
    const unsigned char *in = (const unsigned char *)src;
    umap_io__inflater z;
    uint32_t crc_table[256];
    size_t at = 0;
    int members = 0;
    uint64_t ratio_limit;
    if (!name) name = "(memory)";
    *out = NULL;
    *out_size = 0;
    if (!src && size) return umap_io__fail(err, err_size, UMAP_IO_ERR_ARGUMENT, name, ": no data");
    memset(&z, 0, sizeof z);
    z.name = name;
    z.err = err;
    z.err_size = err_size;
    z.check = check;
    z.check_ctx = check_ctx;
    z.check_at = check ? 0 : (size_t)-1;
    ratio_limit = size; /* a 64-bit copy: on a 32-bit machine the test below is always true */
    ratio_limit = ratio_limit <= UINT64_MAX / UMAP_IO_MAX_GZ_RATIO ? ratio_limit * UMAP_IO_MAX_GZ_RATIO : UINT64_MAX;
    if (ratio_limit < UMAP_IO__LIMIT) {
        z.limit = ratio_limit;
        snprintf(z.why, sizeof z.why, "%d times the %zu compressed bytes (UMAP_IO_MAX_GZ_RATIO)",
                 (int)UMAP_IO_MAX_GZ_RATIO, size);
    } else {
        z.limit = UMAP_IO__LIMIT;
        snprintf(z.why, sizeof z.why, "the limit UMAP_IO_MAX_BYTES (or half the address space)");
    }
    if ((uint64_t)(size_t)-1 < z.limit) z.limit = (size_t)-1;
    umap_io__crc_table(crc_table);
    /* a first guess at the size: ISIZE of the last member (mod 2^32), trusted
       only up to a typical ratio; past it the buffer grows as data arrives */
    if (size >= 18) {
        uint64_t isize = umap_io__le32(in + size - 4);
        if (isize <= (uint64_t)size * 16 + 65536 && isize <= z.limit) {
            z.out = (unsigned char *)UMAP_IO_MALLOC(isize ? (size_t)isize : 1);
            if (z.out) z.out_cap = isize ? (size_t)isize : 1;
        }
    }
    while (at < size) {
        size_t p = at, start_len = z.out_len;
        int flg;
        uint32_t crc, isize;
        if (members > 0) { /* after a member: more members, or zero padding */
            size_t q = at;
            while (q < size && in[q] == 0) q++;
            if (q == size) break;
        }
        if (members > 0 && (in[p] != 0x1f || (size - p >= 2 && in[p + 1] != 0x8b))) {
            umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": gzip: trailing garbage at byte %zu", p);
            z.status = UMAP_IO_ERR_FORMAT;
            break;
        }
        if (size - p < 18) {
            umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": gzip: truncated header at byte %zu", p);
            z.status = UMAP_IO_ERR_FORMAT;
            break;
        }
        if (in[p] != 0x1f || in[p + 1] != 0x8b) {
            umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                          members ? ": gzip: trailing garbage at byte %zu" : ": gzip: bad magic at byte %zu", p);
            z.status = UMAP_IO_ERR_FORMAT;
            break;
        }
        if (in[p + 2] != 8) {
            umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name,
                          ": gzip: compression method %d is not deflate at byte %zu", in[p + 2], p + 2);
            z.status = UMAP_IO_ERR_UNSUPPORTED;
            break;
        }
        flg = in[p + 3];
        if (flg & 0xE0) {
            umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": gzip: reserved flag bits set at byte %zu", p + 3);
            z.status = UMAP_IO_ERR_FORMAT;
            break;
        }
        p += 10;
        if (flg & 4) { /* FEXTRA */
            size_t xlen;
            if (size - p < 2) goto truncated;
            xlen = in[p] | ((size_t)in[p + 1] << 8);
            p += 2;
            if (size - p < xlen) goto truncated;
            p += xlen;
        }
        if (flg & 8) { /* FNAME */
            while (p < size && in[p]) p++;
            if (p >= size) goto truncated;
            p++;
        }
        if (flg & 16) { /* FCOMMENT */
            while (p < size && in[p]) p++;
            if (p >= size) goto truncated;
            p++;
        }
        if (flg & 2) { /* FHCRC */
            if (size - p < 2) goto truncated;
            p += 2;
        }
        if (p >= size) goto truncated;
        z.in = in + p;
        z.n = size - p;
        z.pos = 0;
        z.nbits = 0;
        z.bitbuf = 0;
        z.base = p;
        if (!umap_io__inflate(&z)) break;
        /* to the byte boundary, then the trailer */
        umap_io__bits(&z, z.nbits & 7);
        p += z.pos - (size_t)(z.nbits / 8);
        if (p > size || size - p < 8) {
            umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": gzip: truncated trailer at byte %zu",
                          p > size ? size : p);
            z.status = UMAP_IO_ERR_FORMAT;
            break;
        }
        crc = umap_io__le32(in + p);
        isize = umap_io__le32(in + p + 4);
        /* an empty member may leave out NULL: its CRC32 is 0 */
        if (crc != (z.out_len > start_len ? umap_io__crc32(crc_table, z.out + start_len, z.out_len - start_len) : 0)) {
            umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": gzip: CRC32 mismatch at byte %zu", p);
            z.status = UMAP_IO_ERR_FORMAT;
            break;
        }
        if (isize != (uint32_t)(z.out_len - start_len)) {
            umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": gzip: ISIZE mismatch at byte %zu", p + 4);
            z.status = UMAP_IO_ERR_FORMAT;
            break;
        }
        at = p + 8;
        members++;
        continue;
    truncated:
        umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": gzip: truncated header at byte %zu", p);
        z.status = UMAP_IO_ERR_FORMAT;
        break;
    }
    if (z.status == UMAP_IO_OK && members == 0) {
        umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": gzip: empty file");
        z.status = UMAP_IO_ERR_FORMAT;
    }
    if (z.status != UMAP_IO_OK) {
        UMAP_IO_FREE(z.out);
        return z.status;
    }
    if (!z.out) z.out = (unsigned char *)UMAP_IO_MALLOC(1); /* a valid pointer for an empty result */
    if (!z.out) return umap_io__fail(err, err_size, UMAP_IO_ERR_OUT_OF_MEMORY, name, ": out of memory");
    *out = z.out;
    *out_size = z.out_len;
    return UMAP_IO_OK;
}

UMAP_IO__FN umap_io_result umap_io_gunzip(const char *name, const void *src, size_t size, unsigned char **out,
                                          size_t *out_size, char *err, size_t err_size) {
    return umap_io__gunzip(name, src, size, out, out_size, err, err_size, NULL, NULL);
}

/* >>elements: typed arrays (npy, idx) into float or int32 ------------------ */

typedef enum {
    UMAP_IO__U8, UMAP_IO__I8, UMAP_IO__U16, UMAP_IO__I16, UMAP_IO__U32, UMAP_IO__I32, UMAP_IO__U64,
    UMAP_IO__I64, UMAP_IO__F32, UMAP_IO__F64
} umap_io__etype;

static const int umap_io__esize[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
static const char *const umap_io__ename[] = {"u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64"};

/* element i of a typed array as raw bits (little- or big-endian) */
static uint64_t umap_io__raw(const unsigned char *p, int size, int big) {
    uint64_t v = 0;
    int i;
    if (big)
        for (i = 0; i < size; i++) v = (v << 8) | p[i];
    else
        for (i = size - 1; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static double umap_io__as_double(const unsigned char *p, umap_io__etype t, int big) {
    uint64_t v = umap_io__raw(p, umap_io__esize[t], big);
    switch (t) {
    case UMAP_IO__U8: case UMAP_IO__U16: case UMAP_IO__U32: case UMAP_IO__U64: return (double)v;
    case UMAP_IO__I8: return (double)(int8_t)(uint8_t)v;
    case UMAP_IO__I16: return (double)(int16_t)(uint16_t)v;
    case UMAP_IO__I32: return (double)(int32_t)(uint32_t)v;
    case UMAP_IO__I64: return (double)(int64_t)v;
    case UMAP_IO__F32: {
        uint32_t u = (uint32_t)v;
        float f;
        memcpy(&f, &u, 4);
        return (double)f;
    }
    case UMAP_IO__F64: {
        double d;
        memcpy(&d, &v, 8);
        return d;
    }
    }
    return 0;
}

/* 1 on a big-endian machine (s390x, PowerPC) */
static int umap_io__host_big(void) {
    const uint32_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first != 1;
}

/* converts count elements at p into a new float array */
static umap_io_result umap_io__to_floats(const char *name, const unsigned char *p, uint64_t count, umap_io__etype t,
                                         int big, float **out, char *err, size_t err_size) {
    uint64_t i, bytes;
    float *f;
    if (!umap_io__mul(count, 4, UMAP_IO__LIMIT, &bytes))
        return umap_io__fail(err, err_size, UMAP_IO_ERR_TOO_LARGE, name, ": %llu elements exceed the limit",
                             (unsigned long long)count);
    f = (float *)UMAP_IO_MALLOC(bytes ? (size_t)bytes : 1);
    if (!f) return umap_io__fail(err, err_size, UMAP_IO_ERR_OUT_OF_MEMORY, name, ": out of memory");
    if (t == UMAP_IO__F32 && big == umap_io__host_big()) { /* the file's byte order is the machine's */
        memcpy(f, p, (size_t)bytes);
    } else if (t == UMAP_IO__U8) {
        for (i = 0; i < count; i++) f[i] = (float)p[i];
    } else {
        int es = umap_io__esize[t];
        for (i = 0; i < count; i++) f[i] = (float)umap_io__as_double(p + i * (uint64_t)es, t, big);
    }
    *out = f;
    return UMAP_IO_OK;
}

static umap_io_result umap_io__to_labels(const char *name, const unsigned char *p, uint64_t count, umap_io__etype t,
                                         int big, size_t data_offset, int32_t **out, char *err, size_t err_size) {
    uint64_t i, bytes;
    int32_t *l;
    int es = umap_io__esize[t];
    if (t == UMAP_IO__F32 || t == UMAP_IO__F64)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name,
                             ": labels must be integers, the file holds %s", umap_io__ename[t]);
    if (!umap_io__mul(count, 4, UMAP_IO__LIMIT, &bytes))
        return umap_io__fail(err, err_size, UMAP_IO_ERR_TOO_LARGE, name, ": %llu labels exceed the limit",
                             (unsigned long long)count);
    l = (int32_t *)UMAP_IO_MALLOC(bytes ? (size_t)bytes : 1);
    if (!l) return umap_io__fail(err, err_size, UMAP_IO_ERR_OUT_OF_MEMORY, name, ": out of memory");
    for (i = 0; i < count; i++) {
        const unsigned char *e = p + i * (uint64_t)es;
        uint64_t v = umap_io__raw(e, es, big);
        int64_t s;
        int ok;
        switch (t) {
        case UMAP_IO__I8: s = (int8_t)(uint8_t)v; ok = 1; break;
        case UMAP_IO__I16: s = (int16_t)(uint16_t)v; ok = 1; break;
        case UMAP_IO__I32: s = (int32_t)(uint32_t)v; ok = 1; break;
        case UMAP_IO__I64: s = (int64_t)v; ok = s >= INT32_MIN && s <= INT32_MAX; break;
        default: s = (int64_t)(v & 0x7fffffffffffffffull); ok = v <= (uint64_t)INT32_MAX; break;
        }
        if (!ok) {
            UMAP_IO_FREE(l);
            return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                                 ": the label of row %llu does not fit in int32 at byte %llu", (unsigned long long)i,
                                 (unsigned long long)(data_offset + i * (uint64_t)es));
        }
        l[i] = (int32_t)s;
    }
    *out = l;
    return UMAP_IO_OK;
}

/* A parsed binary array: where the payload is, its type and shape. */
typedef struct umap_io__array {
    umap_io__etype type;
    int big;
    int ndim;
    uint64_t shape[8];
    size_t offset; /* payload start in the buffer */
    uint64_t str_bytes; /* a string dtype ('|Sk', '<Uk': npz's format member): bytes per element; else 0 */
} umap_io__array;

/* checks the shape against the payload size and the caps; rows, cols out */
static umap_io_result umap_io__shape_check(const char *name, const umap_io__array *a, size_t size, int for_labels,
                                           int64_t *rows, int64_t *cols, char *err, size_t err_size) {
    uint64_t r, c = 1, elems, bytes;
    int i;
    if (a->ndim < 1)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": a 0-d (scalar) array holds no rows");
    r = a->shape[0];
    for (i = 1; i < a->ndim; i++)
        if (!umap_io__mul(c, a->shape[i], (uint64_t)UMAP_IO_MAX_COLS, &c))
            return umap_io__fail(err, err_size, UMAP_IO_ERR_TOO_LARGE, name,
                                 ": more than %lld columns per row", (long long)UMAP_IO_MAX_COLS);
    if (for_labels && c != 1)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                             ": labels must be 1-D (n,) or (n, 1), got %llu columns", (unsigned long long)c);
    if (r == 0 || c == 0) return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": empty array (no data)");
    if (r > (uint64_t)UMAP_IO_MAX_ROWS)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_TOO_LARGE, name, ": %llu rows exceed the limit of %lld",
                             (unsigned long long)r, (long long)UMAP_IO_MAX_ROWS);
    if (!umap_io__mul(r, c, UINT64_MAX, &elems) ||
        !umap_io__mul(elems, (uint64_t)umap_io__esize[a->type], UMAP_IO__LIMIT, &bytes))
        return umap_io__fail(err, err_size, UMAP_IO_ERR_TOO_LARGE, name, ": %llu x %llu elements exceed the limit",
                             (unsigned long long)r, (unsigned long long)c);
    if (a->offset > size || size - a->offset != bytes)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                             ": the shape says %llu bytes of data at byte %zu, the file has %zu",
                             (unsigned long long)bytes, a->offset, a->offset > size ? (size_t)0 : size - a->offset);
    *rows = (int64_t)r;
    *cols = (int64_t)c;
    return UMAP_IO_OK;
}

/* >>npy ------------------------------------------------------------------- */

static const unsigned char umap_io__npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

typedef struct umap_io__cursor {
    const char *p, *end, *start;
    size_t base; /* byte offset of start in the file */
} umap_io__cursor;

static void umap_io__skip_ws(umap_io__cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}
static int umap_io__accept(umap_io__cursor *c, char ch) {
    umap_io__skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}
/* a quoted string into buf (truncated to n-1 chars) */
static int umap_io__pystr(umap_io__cursor *c, char *buf, size_t n) {
    char q;
    size_t len = 0;
    umap_io__skip_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return 0;
    q = *c->p++;
    while (c->p < c->end && *c->p != q) {
        if (len + 1 < n) buf[len++] = *c->p;
        c->p++;
    }
    if (c->p >= c->end) return 0;
    c->p++;
    buf[len] = 0;
    return 1;
}
static int umap_io__pyuint(umap_io__cursor *c, uint64_t *v) {
    uint64_t x = 0;
    int any = 0;
    umap_io__skip_ws(c);
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        unsigned d = (unsigned)(*c->p - '0');
        if (x > (UINT64_MAX - d) / 10) return 0;
        x = x * 10 + d;
        any = 1;
        c->p++;
    }
    if (c->p < c->end && *c->p == 'L') c->p++; /* Python 2 longs */
    *v = x;
    return any;
}

/* a dtype's code after its byte order ("f4", "u1", ...; with allow_str
   also "S3", "U3") into a->type; 0 when it is none of them */
static int umap_io__npy_dtype(const char *t, int allow_str, umap_io__array *a) {
    static const char codes[][3] = {"u1", "i1", "u2", "i2", "u4", "i4", "u8", "i8", "f4", "f8"};
    int i;
    if (allow_str && (t[0] == 'S' || t[0] == 'U') && t[1] >= '1' && t[1] <= '9' && strlen(t) <= 4) {
        a->type = UMAP_IO__U8;
        a->str_bytes = (uint64_t)strtoul(t + 1, NULL, 10) * (t[0] == 'U' ? 4 : 1);
        return 1;
    }
    if (!strcmp(t, "b1")) t = "u1"; /* numpy's bool */
    for (i = 0; i < 10; i++)
        if (!strcmp(t, codes[i])) {
            a->type = (umap_io__etype)i; /* the codes follow umap_io__etype's order */
            return 1;
        }
    return 0;
}

/* allow_str: also the string dtypes (type u8, str_bytes per element) */
static umap_io_result umap_io__npy_parse(const char *name, const unsigned char *b, size_t size, umap_io__array *a,
                                         int allow_str, char *err, size_t err_size) {
    uint64_t hlen;
    size_t hstart;
    int major, have_descr = 0, have_fortran = 0, have_shape = 0;
    umap_io__cursor c;
    memset(a, 0, sizeof *a);
    if (size < 10 || memcmp(b, umap_io__npy_magic, 6) != 0)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": not a .npy file (bad magic at byte 0)");
    major = b[6];
    if (major == 1) {
        hlen = (uint64_t)b[8] | ((uint64_t)b[9] << 8);
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (size < 12) return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": truncated header at byte %zu", size);
        hlen = umap_io__le32(b + 8);
        hstart = 12;
    } else {
        return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name, ": .npy format version %d.%d at byte 6",
                             major, b[7]);
    }
    if (hlen > size - hstart)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                             ": truncated header: %llu bytes announced at byte 8, %zu present", (unsigned long long)hlen,
                             size - hstart);
    c.start = c.p = (const char *)b + hstart;
    c.end = c.p + hlen;
    c.base = hstart;
#define UMAP_IO__NPY_BAD(what)                                                                                \
    return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": bad header: %s at byte %zu", what, \
                         c.base + (size_t)(c.p - c.start))
    if (!umap_io__accept(&c, '{')) UMAP_IO__NPY_BAD("expected '{'");
    for (;;) {
        char key[32], val[32];
        if (umap_io__accept(&c, '}')) break;
        if (!umap_io__pystr(&c, key, sizeof key)) UMAP_IO__NPY_BAD("expected a quoted key");
        if (!umap_io__accept(&c, ':')) UMAP_IO__NPY_BAD("expected ':'");
        if (!strcmp(key, "descr")) {
            const char *t;
            char order;
            size_t at = c.base + (size_t)(c.p - c.start);
            if (!umap_io__pystr(&c, val, sizeof val)) UMAP_IO__NPY_BAD("descr is not a simple type string");
            order = val[0];
            t = val + 1;
            if (order != '<' && order != '>' && order != '|' && order != '=')
                return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name,
                                     ": unsupported dtype '%s' at byte %zu", val, at);
            a->big = order == '>';
            if (!umap_io__npy_dtype(t, allow_str, a))
                return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name,
                                     ": unsupported dtype '%s' at byte %zu (f4, f8, u1, i1, u2, i2, u4, i4, u8, i8)",
                                     val, at);
            have_descr = 1;
        } else if (!strcmp(key, "fortran_order")) {
            umap_io__skip_ws(&c);
            if (c.end - c.p >= 5 && !memcmp(c.p, "False", 5)) {
                c.p += 5;
            } else if (c.end - c.p >= 4 && !memcmp(c.p, "True", 4)) {
                return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name,
                                     ": fortran_order is True at byte %zu; only C order is read "
                                     "(save with np.ascontiguousarray)",
                                     c.base + (size_t)(c.p - c.start));
            } else {
                UMAP_IO__NPY_BAD("fortran_order is not True or False");
            }
            have_fortran = 1;
        } else if (!strcmp(key, "shape")) {
            if (!umap_io__accept(&c, '(')) UMAP_IO__NPY_BAD("shape is not a tuple");
            a->ndim = 0;
            while (!umap_io__accept(&c, ')')) {
                uint64_t v;
                if (a->ndim >= 8) UMAP_IO__NPY_BAD("more than 8 dimensions");
                if (!umap_io__pyuint(&c, &v)) UMAP_IO__NPY_BAD("shape holds a non-integer");
                a->shape[a->ndim++] = v;
                if (!umap_io__accept(&c, ',')) {
                    if (!umap_io__accept(&c, ')')) UMAP_IO__NPY_BAD("expected ',' or ')' in shape");
                    break;
                }
            }
            have_shape = 1;
        } else {
            UMAP_IO__NPY_BAD("unknown key");
        }
        if (!umap_io__accept(&c, ',')) {
            if (!umap_io__accept(&c, '}')) UMAP_IO__NPY_BAD("expected ',' or '}'");
            break;
        }
    }
#undef UMAP_IO__NPY_BAD
    if (!have_descr || !have_fortran || !have_shape)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": bad header: missing %s at byte %zu",
                             !have_descr ? "'descr'" : !have_fortran ? "'fortran_order'" : "'shape'", hstart);
    a->offset = hstart + (size_t)hlen;
    return UMAP_IO_OK;
}

/* >>idx ------------------------------------------------------------------- */

static int umap_io__idx_type(int code, umap_io__etype *t) {
    switch (code) {
    case 0x08: *t = UMAP_IO__U8; return 1;
    case 0x09: *t = UMAP_IO__I8; return 1;
    case 0x0B: *t = UMAP_IO__I16; return 1;
    case 0x0C: *t = UMAP_IO__I32; return 1;
    case 0x0D: *t = UMAP_IO__F32; return 1;
    case 0x0E: *t = UMAP_IO__F64; return 1;
    }
    return 0;
}

/* 1 when the bytes look like IDX (magic, and the sizes add up exactly) */
static int umap_io__idx_sniff(const unsigned char *b, size_t size) {
    umap_io__etype t;
    int nd, i;
    uint64_t elems = 1;
    if (size < 4 || b[0] || b[1] || !umap_io__idx_type(b[2], &t)) return 0;
    nd = b[3];
    if (nd < 1 || nd > 8 || size < 4 + 4 * (size_t)nd) return 0;
    for (i = 0; i < nd; i++)
        if (!umap_io__mul(elems, umap_io__be32(b + 4 + 4 * i), UINT64_MAX / 8, &elems)) return 0;
    return size - 4 - 4 * (size_t)nd == elems * (uint64_t)umap_io__esize[t];
}

static umap_io_result umap_io__idx_parse(const char *name, const unsigned char *b, size_t size, umap_io__array *a,
                                         char *err, size_t err_size) {
    int i;
    memset(a, 0, sizeof *a);
    if (size < 4) return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": IDX: truncated magic at byte 0");
    if (b[0] || b[1])
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": IDX: bad magic %02x%02x%02x%02x at byte 0",
                             b[0], b[1], b[2], b[3]);
    if (!umap_io__idx_type(b[2], &a->type))
        return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name, ": IDX: unknown element type 0x%02x at byte 2",
                             b[2]);
    a->ndim = b[3];
    a->big = 1;
    if (a->ndim < 1 || a->ndim > 8)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name, ": IDX: %d dimensions at byte 3 (1..8)",
                             a->ndim);
    if (size < 4 + 4 * (size_t)a->ndim)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": IDX: truncated header at byte %zu", size);
    for (i = 0; i < a->ndim; i++) a->shape[i] = umap_io__be32(b + 4 + 4 * i);
    a->offset = 4 + 4 * (size_t)a->ndim;
    return UMAP_IO_OK;
}

/* >>csv ------------------------------------------------------------------- */

/* one field [s, e) trimmed of blanks and one pair of double quotes */
static void umap_io__trim(const char **s, const char **e) {
    while (*s < *e && (**s == ' ' || **s == '\t')) (*s)++;
    while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r')) (*e)--;
    if (*e - *s >= 2 && **s == '"' && (*e)[-1] == '"') {
        (*s)++;
        (*e)--;
    }
}

/* parses a number; 1 when the whole field is one */
static int umap_io__num(const char *s, const char *e, double *v) {
    char buf[128], *end;
    size_t n = (size_t)(e - s);
    if (n == 0 || n >= sizeof buf) return 0;
    memcpy(buf, s, n);
    buf[n] = 0;
    /* strtod accepts hex and leading blanks; both are fine, but nothing after */
    *v = strtod(buf, &end);
    return end == buf + n && end != buf;
}

static void umap_io__field_str(const char *s, const char *e, char *out, size_t n) {
    size_t len = (size_t)(e - s), i;
    if (len > 24) len = 24;
    if (len + 1 > n) len = n - 1;
    for (i = 0; i < len; i++) out[i] = (s[i] >= 32 && s[i] < 127) ? s[i] : '?';
    out[len] = 0;
    if ((size_t)(e - s) > len && len >= 3) memcpy(out + len - 3, "...", 3);
}

/* the line at [p, end): its end (exclusive of \n) */
static const char *umap_io__eol(const char *p, const char *end) {
    const char *q = (const char *)memchr(p, '\n', (size_t)(end - p));
    return q ? q : end;
}

static int umap_io__blank(const char *s, const char *e) {
    for (; s < e; s++)
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') return 0;
    return 1;
}

/* 1 when every field of the line is a number */
static int umap_io__numeric_line(const char *s, const char *e) {
    for (;;) {
        const char *c = (const char *)memchr(s, ',', (size_t)(e - s)), *fe = c ? c : e, *fs = s;
        double v;
        umap_io__trim(&fs, &fe);
        if (!umap_io__num(fs, fe, &v)) return 0;
        if (!c) return 1;
        s = c + 1;
    }
}

/* CSV rows into floats (labels: exactly one integer per row into int32) */
static umap_io_result umap_io__csv(const char *name, const char *text, size_t size, int labels, umap_io_matrix *m,
                                   umap_io_labels *l, char *err, size_t err_size) {
    const char *p = text, *end = text + size;
    int64_t line = 0, cols = -1, rows = 0;
    size_t cap = 0, len = 0;
    float *vals = NULL;
    int32_t *ints = NULL;
    int header_checked = 0;
    if (size >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p += 3; /* UTF-8 BOM */
    {
        const char *nul = (const char *)memchr(text, 0, size);
        if (nul)
            return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                                 ": not .npy, IDX, gzip or CSV text (a NUL byte at byte %zu)", (size_t)(nul - text));
    }
    while (p < end) {
        const char *e = umap_io__eol(p, end), *s = p;
        int64_t nf = 0;
        line++;
        p = e < end ? e + 1 : end;
        if (umap_io__blank(s, e)) {
            if (!umap_io__blank(p, end)) {
                UMAP_IO_FREE(vals);
                UMAP_IO_FREE(ints);
                return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ":%lld: empty line in the data",
                                     (long long)line);
            }
            break;
        }
        if (!header_checked) {
            header_checked = 1;
            if (!umap_io__numeric_line(s, e)) continue; /* a header */
        }
        for (;;) {
            const char *c = (const char *)memchr(s, ',', (size_t)(e - s)), *fe = c ? c : e, *fs = s;
            double v;
            umap_io__trim(&fs, &fe);
            nf++;
            if (!umap_io__num(fs, fe, &v)) {
                char f[32];
                umap_io__field_str(fs, fe, f, sizeof f);
                UMAP_IO_FREE(vals);
                UMAP_IO_FREE(ints);
                if (fs == fe)
                    return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ":%lld (row %lld): field %lld is empty",
                                         (long long)line, (long long)rows, (long long)nf);
                return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                                     ":%lld (row %lld): field %lld is not a number: '%s'", (long long)line,
                                     (long long)rows, (long long)nf, f);
            }
            if (labels) {
                if (nf > 1) {
                    UMAP_IO_FREE(ints);
                    return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                                         ":%lld (row %lld): expected one label per line, got more fields",
                                         (long long)line, (long long)rows);
                }
                if (!(v >= (double)INT32_MIN && v <= (double)INT32_MAX) || (double)(int32_t)v != v) {
                    char f[32];
                    umap_io__field_str(fs, fe, f, sizeof f);
                    UMAP_IO_FREE(ints);
                    return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                                         ":%lld (row %lld): label '%s' is not an int32 integer", (long long)line,
                                         (long long)rows, f);
                }
            }
            if (len == cap) {
                size_t ncap = cap ? cap * 2 : 1024, es = labels ? sizeof(int32_t) : sizeof(float);
                void *nb;
                if ((uint64_t)ncap * es > UMAP_IO__LIMIT || ncap < cap) {
                    UMAP_IO_FREE(vals);
                    UMAP_IO_FREE(ints);
                    return umap_io__fail(err, err_size, UMAP_IO_ERR_TOO_LARGE, name, ":%lld: too many values",
                                         (long long)line);
                }
                nb = labels ? UMAP_IO_REALLOC(ints, ncap * es) : UMAP_IO_REALLOC(vals, ncap * es);
                if (!nb) {
                    UMAP_IO_FREE(vals);
                    UMAP_IO_FREE(ints);
                    return umap_io__fail(err, err_size, UMAP_IO_ERR_OUT_OF_MEMORY, name, ":%lld: out of memory",
                                         (long long)line);
                }
                if (labels) ints = (int32_t *)nb;
                else vals = (float *)nb;
                cap = ncap;
            }
            if (labels) ints[len++] = (int32_t)v;
            else vals[len++] = (float)v;
            if (!c) break;
            s = c + 1;
        }
        if (cols < 0) {
            cols = nf;
            if (cols > UMAP_IO_MAX_COLS) {
                UMAP_IO_FREE(vals);
                return umap_io__fail(err, err_size, UMAP_IO_ERR_TOO_LARGE, name, ":%lld: %lld fields exceed the limit",
                                     (long long)line, (long long)nf);
            }
        } else if (nf != cols) {
            UMAP_IO_FREE(vals);
            UMAP_IO_FREE(ints);
            return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ":%lld (row %lld): expected %lld fields, got %lld",
                                 (long long)line, (long long)rows, (long long)cols, (long long)nf);
        }
        rows++;
        if (rows > UMAP_IO_MAX_ROWS) {
            UMAP_IO_FREE(vals);
            UMAP_IO_FREE(ints);
            return umap_io__fail(err, err_size, UMAP_IO_ERR_TOO_LARGE, name, ":%lld: more rows than the limit",
                                 (long long)line);
        }
    }
    if (rows == 0) {
        UMAP_IO_FREE(vals);
        UMAP_IO_FREE(ints);
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": no data rows");
    }
    if (labels) {
        l->data = ints;
        l->n = rows;
    } else {
        m->data = vals;
        m->rows = rows;
        m->cols = cols;
    }
    return UMAP_IO_OK;
}

/* >>sparse: scipy's save_npz (a zip of .npy members) and svmlight text ---- */

static uint16_t umap_io__le16(const unsigned char *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint64_t umap_io__le64(const unsigned char *p) {
    return ((uint64_t)umap_io__le32(p + 4) << 32) | umap_io__le32(p);
}

static const char *umap_io__sparse_exts[] = {".npz", ".svm", ".svmlight", ".libsvm"};

UMAP_IO__FN int umap_io_is_sparse(const char *path) {
    char buf[1024];
    const char *ext;
    size_t i;
    if (!path) return 0;
    ext = umap_io__ext(umap_io__strip_gz(path, buf, sizeof buf));
    for (i = 0; i < sizeof umap_io__sparse_exts / sizeof *umap_io__sparse_exts; i++)
        if (umap_io__ieq(ext, umap_io__sparse_exts[i])) return 1;
    return 0;
}

UMAP_IO__FN void umap_io_sparse_free(umap_io_sparse *s) {
    if (!s) return;
    UMAP_IO_FREE(s->indptr);
    UMAP_IO_FREE(s->indices);
    UMAP_IO_FREE(s->values);
    memset(s, 0, sizeof *s);
}

/* One member of a zip archive, as its central directory describes it */
typedef struct umap_io__zip_entry {
    char name[64]; /* longer names are kept cut (no npz member has one) */
    unsigned method, flags;
    uint32_t crc;
    uint64_t csize, usize, local;
} umap_io__zip_entry;

#define UMAP_IO__ZIP_MAX_ENTRIES 16
#define UMAP_IO__SPARSE_EMPTY_ROWS 64

/* The central directory (zip64 too): every member's name, sizes and offset */
static umap_io_result umap_io__zip_dir(const char *name, const unsigned char *b, size_t size,
                                       umap_io__zip_entry *e, int *count, char *err, size_t err_size) {
    size_t eocd = 0, p, stop;
    uint64_t entries, cd_size, cd_off, i;
    int found = 0;
    *count = 0;
    if (size < 22) return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": zip: truncated (%zu bytes)", size);
    /* the end record: its signature in the last 64 KiB + 22 bytes (a comment may follow it) */
    stop = size - 22 > 65535 ? size - 22 - 65535 : 0;
    for (p = size - 22 + 1; p-- > stop;)
        if (umap_io__le32(b + p) == 0x06054b50u) {
            eocd = p;
            found = 1;
            break;
        }
    if (!found)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                             ": zip: no end of central directory record (truncated?)");
    entries = umap_io__le16(b + eocd + 10);
    cd_size = umap_io__le32(b + eocd + 12);
    cd_off = umap_io__le32(b + eocd + 16);
    if (entries == 0xFFFF || cd_size == 0xFFFFFFFFu || cd_off == 0xFFFFFFFFu) { /* zip64 */
        uint64_t z64;
        if (eocd < 20 || umap_io__le32(b + eocd - 20) != 0x07064b50u)
            return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                                 ": zip: the end record points to a zip64 record that is not there (byte %zu)", eocd);
        z64 = umap_io__le64(b + eocd - 20 + 8);
        if (z64 > size || size - z64 < 56 || umap_io__le32(b + z64) != 0x06064b50u)
            return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": zip: bad zip64 end record at byte %llu",
                                 (unsigned long long)z64);
        entries = umap_io__le64(b + z64 + 32);
        cd_size = umap_io__le64(b + z64 + 40);
        cd_off = umap_io__le64(b + z64 + 48);
    }
    if (cd_off > size || cd_size > size - cd_off)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                             ": zip: the central directory (%llu bytes at byte %llu) lies outside the file",
                             (unsigned long long)cd_size, (unsigned long long)cd_off);
    if (entries > UMAP_IO__ZIP_MAX_ENTRIES)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name,
                             ": zip: %llu members; scipy's save_npz writes at most 6", (unsigned long long)entries);
    p = (size_t)cd_off;
    for (i = 0; i < entries; i++) {
        umap_io__zip_entry *z = &e[i];
        size_t nlen, xlen, clen, x, xend, nl;
        if (cd_off + cd_size - p < 46 || umap_io__le32(b + p) != 0x02014b50u)
            return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                                 ": zip: bad central directory entry %llu at byte %zu", (unsigned long long)i, p);
        z->flags = umap_io__le16(b + p + 8);
        z->method = umap_io__le16(b + p + 10);
        z->crc = umap_io__le32(b + p + 16);
        z->csize = umap_io__le32(b + p + 20);
        z->usize = umap_io__le32(b + p + 24);
        nlen = umap_io__le16(b + p + 28);
        xlen = umap_io__le16(b + p + 30);
        clen = umap_io__le16(b + p + 32);
        z->local = umap_io__le32(b + p + 42);
        if (cd_off + cd_size - p - 46 < (uint64_t)nlen + xlen + clen)
            return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                                 ": zip: central directory entry %llu at byte %zu runs past the directory",
                                 (unsigned long long)i, p);
        nl = nlen < sizeof z->name ? nlen : sizeof z->name - 1;
        memcpy(z->name, b + p + 46, nl);
        z->name[nl] = 0;
        /* zip64's extra field: the 8-byte sizes and offset that the fixed fields mark 0xFFFFFFFF, in this order */
        x = p + 46 + nlen;
        xend = x + xlen;
        while (xend - x >= 4) {
            unsigned id = umap_io__le16(b + x), len = umap_io__le16(b + x + 2);
            size_t q = x + 4;
            if (xend - q < len) break;
            if (id == 1) {
                uint64_t *fields[3];
                int nf = 0, f;
                if (z->usize == 0xFFFFFFFFu) fields[nf++] = &z->usize;
                if (z->csize == 0xFFFFFFFFu) fields[nf++] = &z->csize;
                if (z->local == 0xFFFFFFFFu) fields[nf++] = &z->local;
                for (f = 0; f < nf && q + 8 <= x + 4 + len; f++, q += 8) *fields[f] = umap_io__le64(b + q);
            }
            x += 4 + (size_t)len;
        }
        p += 46 + nlen + xlen + clen;
    }
    *count = (int)entries;
    return UMAP_IO_OK;
}

/* A member's bytes: in place when stored, inflated into *owned (free it)
   when deflated; either way the size and CRC32 are checked */
static umap_io_result umap_io__zip_member(const char *name, const unsigned char *b, size_t size,
                                          const umap_io__zip_entry *e, const unsigned char **data, size_t *len,
                                          unsigned char **owned, char *err, size_t err_size) {
    uint64_t at, start;
    uint32_t crc_table[256];
    *owned = NULL;
    if (e->flags & 1)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name, ": zip: %s is encrypted", e->name);
    if (e->method != 0 && e->method != 8)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name,
                             ": zip: %s uses compression method %u (save_npz stores or deflates)", e->name, e->method);
    at = e->local;
    if (at > size || size - at < 30 || umap_io__le32(b + at) != 0x04034b50u)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": zip: no local header for %s at byte %llu",
                             e->name, (unsigned long long)at);
    start = at + 30 + umap_io__le16(b + at + 26) + umap_io__le16(b + at + 28);
    if (start > size || e->csize > size - start)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                             ": zip: %s: %llu compressed bytes at byte %llu run past the end of the file", e->name,
                             (unsigned long long)e->csize, (unsigned long long)start);
    if (e->usize > UMAP_IO__LIMIT)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_TOO_LARGE, name,
                             ": zip: %s claims %llu bytes, past the limit UMAP_IO_MAX_BYTES", e->name,
                             (unsigned long long)e->usize);
    if (e->method == 0) {
        if (e->usize != e->csize)
            return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                                 ": zip: %s is stored, yet its sizes differ (%llu, %llu)", e->name,
                                 (unsigned long long)e->csize, (unsigned long long)e->usize);
        *data = b + start;
        *len = (size_t)e->usize;
    } else {
        umap_io__inflater z;
        if (e->usize / UMAP_IO_MAX_GZ_RATIO > e->csize + 1)
            return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                                 ": zip: %s claims %llu bytes from %llu compressed: more than deflate can reach", e->name,
                                 (unsigned long long)e->usize, (unsigned long long)e->csize);
        memset(&z, 0, sizeof z);
        z.name = name;
        z.err = err;
        z.err_size = err_size;
        z.in = b + start;
        z.n = (size_t)e->csize;
        z.base = (size_t)start;
        z.limit = e->usize; /* the directory's size is the most the member may inflate to */
        snprintf(z.why, sizeof z.why, "the size the zip directory gives %s", e->name);
        z.check_at = (size_t)-1;
        z.out = (unsigned char *)UMAP_IO_MALLOC(e->usize ? (size_t)e->usize : 1);
        if (!z.out) return umap_io__fail(err, err_size, UMAP_IO_ERR_OUT_OF_MEMORY, name, ": out of memory");
        z.out_cap = e->usize ? (size_t)e->usize : 1;
        if (!umap_io__inflate(&z)) {
            UMAP_IO_FREE(z.out);
            return z.status;
        }
        if (z.out_len != e->usize) {
            UMAP_IO_FREE(z.out);
            return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                                 ": zip: %s inflates to %zu bytes, its directory says %llu", e->name, z.out_len,
                                 (unsigned long long)e->usize);
        }
        *owned = z.out;
        *data = z.out;
        *len = z.out_len;
    }
    umap_io__crc_table(crc_table);
    if ((*len ? umap_io__crc32(crc_table, *data, *len) : 0) != e->crc) {
        UMAP_IO_FREE(*owned);
        *owned = NULL;
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": zip: %s: CRC32 mismatch", e->name);
    }
    return UMAP_IO_OK;
}

/* One 1-D (or 0-d) .npy member of an npz, its payload checked against its shape */
typedef struct umap_io__npz_array {
    umap_io__array a;
    const unsigned char *p; /* payload */
    uint64_t count;
    unsigned char *owned;
    char name[96];          /* "FILE:member" for messages */
} umap_io__npz_array;

static umap_io_result umap_io__npz_array_load(const char *name, const unsigned char *b, size_t size,
                                              const umap_io__zip_entry *e, int n, const char *member, int allow_str,
                                              umap_io__npz_array *out, char *err, size_t err_size) {
    const unsigned char *data;
    size_t len;
    uint64_t bytes;
    umap_io_result r;
    int i;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s: %s.npy", name, member);
    for (i = 0; i < n; i++)
        if (!strncmp(e[i].name, member, strlen(member)) && !strcmp(e[i].name + strlen(member), ".npy")) break;
    if (i == n)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                             ": no %s.npy in the archive: not a sparse matrix from scipy.sparse.save_npz", member);
    if ((r = umap_io__zip_member(name, b, size, &e[i], &data, &len, &out->owned, err, err_size)) != UMAP_IO_OK) return r;
    if ((r = umap_io__npy_parse(out->name, data, len, &out->a, allow_str, err, err_size)) != UMAP_IO_OK) goto fail;
    if (out->a.ndim > 1) {
        r = umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, out->name, ": %d dimensions where save_npz writes one",
                          out->a.ndim);
        goto fail;
    }
    out->count = out->a.ndim ? out->a.shape[0] : 1;
    if (!umap_io__mul(out->count, out->a.str_bytes ? out->a.str_bytes : (uint64_t)umap_io__esize[out->a.type],
                      UMAP_IO__LIMIT, &bytes) ||
        out->a.offset > len || len - out->a.offset != bytes) {
        r = umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, out->name, ": the shape says %llu elements, the payload "
                          "holds %zu bytes", (unsigned long long)out->count,
                          out->a.offset > len ? (size_t)0 : len - out->a.offset);
        goto fail;
    }
    out->p = data + out->a.offset;
    return UMAP_IO_OK;
fail:
    UMAP_IO_FREE(out->owned);
    out->owned = NULL;
    return r;
}

/* element i of an integer array; 0 for a float array or a value past int64 */
static int umap_io__int_at(const umap_io__npz_array *x, uint64_t i, int64_t *v) {
    umap_io__etype t = x->a.type;
    int es = umap_io__esize[t];
    uint64_t raw;
    if (t == UMAP_IO__F32 || t == UMAP_IO__F64 || x->a.str_bytes) return 0;
    raw = umap_io__raw(x->p + i * (uint64_t)es, es, x->a.big);
    switch (t) {
    case UMAP_IO__I8: *v = (int8_t)(uint8_t)raw; return 1;
    case UMAP_IO__I16: *v = (int16_t)(uint16_t)raw; return 1;
    case UMAP_IO__I32: *v = (int32_t)(uint32_t)raw; return 1;
    case UMAP_IO__I64: *v = (int64_t)raw; return 1;
    default: *v = (int64_t)(raw & 0x7fffffffffffffffull); return raw <= (uint64_t)INT64_MAX;
    }
}

/* the member format.npy: "csr", "csc" or "coo", as bytes or unicode */
static void umap_io__npz_string(const umap_io__npz_array *x, char *out, size_t n) {
    uint64_t i, step = 1, len = x->a.str_bytes;
    size_t w = 0;
    if (len % 4 == 0 && len >= 4 && (x->p[1] == 0 || x->p[0] == 0)) step = 4; /* UTF-32, either byte order */
    for (i = 0; i < len && w + 1 < n; i += step) {
        unsigned char ch = step == 4 ? x->p[i + (x->p[i] ? 0 : 3)] : x->p[i];
        if (!ch) break;
        out[w++] = (char)ch;
    }
    out[w] = 0;
}

/* Sorts each row's entries by column and sums repeated columns, as scipy's
   sum_duplicates does: the library takes rows in that canonical form */
typedef struct umap_io__entry {
    int32_t col;
    uint32_t order;
    float v;
} umap_io__entry;

static int umap_io__entry_cmp(const void *a, const void *b) {
    const umap_io__entry *x = (const umap_io__entry *)a, *y = (const umap_io__entry *)b;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static umap_io_result umap_io__csr_canonical(const char *name, umap_io_sparse *s, char *err, size_t err_size) {
    int64_t i, t, w = 0, longest = 0;
    umap_io__entry *tmp = NULL;
    for (i = 0; i < s->rows; i++)
        if (s->indptr[i + 1] - s->indptr[i] > longest) longest = s->indptr[i + 1] - s->indptr[i];
    for (i = 0; i < s->rows; i++) {
        int64_t lo = s->indptr[i], hi = s->indptr[i + 1], len = hi - lo, sorted = 1;
        s->indptr[i] = w;
        for (t = lo + 1; t < hi && sorted; t++) sorted = s->indices[t] > s->indices[t - 1];
        if (!sorted) {
            if (!tmp && !(tmp = (umap_io__entry *)UMAP_IO_MALLOC((size_t)longest * sizeof *tmp)))
                return umap_io__fail(err, err_size, UMAP_IO_ERR_OUT_OF_MEMORY, name, ": out of memory");
            for (t = 0; t < len; t++) {
                tmp[t].col = s->indices[lo + t];
                tmp[t].order = (uint32_t)t;
                tmp[t].v = s->values[lo + t];
            }
            qsort(tmp, (size_t)len, sizeof *tmp, umap_io__entry_cmp);
            for (t = 0; t < len; t++) {
                if (t > 0 && tmp[t].col == tmp[t - 1].col) {
                    s->values[w - 1] += tmp[t].v;
                    continue;
                }
                s->indices[w] = tmp[t].col;
                s->values[w++] = tmp[t].v;
            }
        } else {
            for (t = lo; t < hi; t++, w++) {
                s->indices[w] = s->indices[t];
                s->values[w] = s->values[t];
            }
        }
    }
    s->indptr[s->rows] = w;
    UMAP_IO_FREE(tmp);
    return UMAP_IO_OK;
}

static umap_io_result umap_io__sparse_alloc(const char *name, umap_io_sparse *s, int64_t rows, int64_t cols,
                                            uint64_t nnz, char *err, size_t err_size) {
    uint64_t b1, b2;
    if (rows < 1 || cols < 1)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": %lld x %lld: no data", (long long)rows,
                             (long long)cols);
    if (rows > UMAP_IO_MAX_ROWS || cols > UMAP_IO_MAX_COLS)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_TOO_LARGE, name,
                             ": %lld x %lld exceeds the limits (UMAP_IO_MAX_ROWS %lld, UMAP_IO_MAX_COLS %lld)",
                             (long long)rows, (long long)cols, (long long)UMAP_IO_MAX_ROWS,
                             (long long)UMAP_IO_MAX_COLS);
    if (!umap_io__mul(nnz, 4, UMAP_IO__LIMIT, &b2) || !umap_io__mul((uint64_t)rows + 1, 8, UMAP_IO__LIMIT, &b1))
        return umap_io__fail(err, err_size, UMAP_IO_ERR_TOO_LARGE, name, ": %llu stored values exceed the limit",
                             (unsigned long long)nnz);
    s->rows = rows;
    s->cols = cols;
    s->indptr = (int64_t *)UMAP_IO_MALLOC((size_t)b1);
    s->indices = (int32_t *)UMAP_IO_MALLOC(b2 ? (size_t)b2 : 1);
    s->values = (float *)UMAP_IO_MALLOC(b2 ? (size_t)b2 : 1);
    if (!s->indptr || !s->indices || !s->values) {
        umap_io_sparse_free(s);
        return umap_io__fail(err, err_size, UMAP_IO_ERR_OUT_OF_MEMORY, name, ": out of memory for %llu stored values",
                             (unsigned long long)nnz);
    }
    return UMAP_IO_OK;
}

/* scipy.sparse.save_npz: csr, csc or coo, into canonical CSR */
static umap_io_result umap_io__npz(const char *name, const unsigned char *b, size_t size, umap_io_sparse *s,
                                   char *err, size_t err_size) {
    umap_io__zip_entry e[UMAP_IO__ZIP_MAX_ENTRIES];
    umap_io__npz_array fmt, shape, data, a1, a2; /* csr/csc: indptr, indices; coo: row, col */
    char format[8];
    int n, coo, csc;
    int64_t rows, cols, n_major, n_minor;
    uint64_t t, nnz;
    umap_io_result r;
    memset(&fmt, 0, sizeof fmt), memset(&shape, 0, sizeof shape), memset(&data, 0, sizeof data);
    memset(&a1, 0, sizeof a1), memset(&a2, 0, sizeof a2);
    if ((r = umap_io__zip_dir(name, b, size, e, &n, err, err_size)) != UMAP_IO_OK) return r;
    if ((r = umap_io__npz_array_load(name, b, size, e, n, "format", 1, &fmt, err, err_size)) != UMAP_IO_OK) return r;
    if (!fmt.a.str_bytes || fmt.a.ndim != 0) {
        r = umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, fmt.name, ": not the format's name (a 0-d string)");
        goto done;
    }
    umap_io__npz_string(&fmt, format, sizeof format);
    coo = !strcmp(format, "coo");
    csc = !strcmp(format, "csc");
    if (!coo && !csc && strcmp(format, "csr")) {
        r = umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name,
                          ": a '%s' matrix; the reader takes csr, csc and coo (scipy: X.tocsr())", format);
        goto done;
    }
    if ((r = umap_io__npz_array_load(name, b, size, e, n, "shape", 0, &shape, err, err_size)) != UMAP_IO_OK ||
        (r = umap_io__npz_array_load(name, b, size, e, n, "data", 0, &data, err, err_size)) != UMAP_IO_OK ||
        (r = umap_io__npz_array_load(name, b, size, e, n, coo ? "row" : "indptr", 0, &a1, err, err_size)) != UMAP_IO_OK ||
        (r = umap_io__npz_array_load(name, b, size, e, n, coo ? "col" : "indices", 0, &a2, err, err_size)) != UMAP_IO_OK)
        goto done;
    if (shape.count != 2 || !umap_io__int_at(&shape, 0, &rows) || !umap_io__int_at(&shape, 1, &cols) || rows < 0 ||
        cols < 0) {
        r = umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, shape.name, ": not two non-negative integers");
        goto done;
    }
    nnz = data.count;
    if (data.a.str_bytes || a2.count != nnz || (coo && a1.count != nnz)) {
        r = umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": %llu values, %llu %s, %llu %s: they must agree",
                          (unsigned long long)nnz, (unsigned long long)a1.count, coo ? "rows" : "offsets",
                          (unsigned long long)a2.count, coo ? "columns" : "indices");
        goto done;
    }
    n_major = csc ? cols : rows;
    n_minor = csc ? rows : cols;
    if (!coo && a1.count != (uint64_t)n_major + 1) {
        r = umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, a1.name, ": %llu offsets for %lld %s (needs %lld)",
                          (unsigned long long)a1.count, (long long)n_major, csc ? "columns" : "rows",
                          (long long)n_major + 1);
        goto done;
    }
    /* a CSR's rows cost 8 bytes each; csr holds an offset per row, csc and
       coo hold none for an empty row: their shape may not claim more than
       UMAP_IO__SPARSE_EMPTY_ROWS rows per stored value past 2^24 */
    if (rows > ((int64_t)1 << 24) && (uint64_t)rows / UMAP_IO__SPARSE_EMPTY_ROWS > nnz + (coo || csc ? 0 : rows)) {
        r = umap_io__fail(err, err_size, UMAP_IO_ERR_TOO_LARGE, name,
                          ": a shape of %lld rows for %llu stored values (at most %d rows a value past 2^24)",
                          (long long)rows, (unsigned long long)nnz, UMAP_IO__SPARSE_EMPTY_ROWS);
        goto done;
    }
    if ((r = umap_io__sparse_alloc(name, s, rows, cols, nnz, err, err_size)) != UMAP_IO_OK) goto done;
    if (!coo) { /* the compressed axis: offsets that start at 0, never decrease, end at nnz */
        int64_t prev = 0, v = 0;
        for (t = 0; t <= (uint64_t)n_major; t++) {
            if (!umap_io__int_at(&a1, t, &v) || v < prev || (t == 0 && v != 0) || (uint64_t)v > nnz) {
                r = umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, a1.name,
                                  ": offset %llu is %lld after %lld (offsets start at 0, never decrease, end at %llu)",
                                  (unsigned long long)t, (long long)v, (long long)prev, (unsigned long long)nnz);
                goto done;
            }
            prev = v;
        }
        if ((uint64_t)prev != nnz) {
            r = umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, a1.name, ": the offsets end at %lld, not at %llu",
                              (long long)prev, (unsigned long long)nnz);
            goto done;
        }
    }
    /* every entry's position on both axes, checked, into CSR by a counting sort over rows */
    memset(s->indptr, 0, ((size_t)rows + 1) * sizeof *s->indptr);
    {
        int64_t major = 0, minor, row, col, pass;
        for (pass = 0; pass < 2; pass++) {
            major = 0;
            for (t = 0; t < nnz; t++) {
                row = col = -1;
                if (!coo) {
                    int64_t end;
                    while (umap_io__int_at(&a1, (uint64_t)major + 1, &end) && (uint64_t)end <= t) major++;
                    if (!umap_io__int_at(&a2, t, &minor) || minor < 0 || minor >= n_minor) {
                        r = umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, a2.name,
                                          ": entry %llu (%s %lld) is %lld, outside [0, %lld)", (unsigned long long)t,
                                          csc ? "column" : "row", (long long)major, (long long)minor,
                                          (long long)n_minor);
                        goto done;
                    }
                    row = csc ? minor : major;
                    col = csc ? major : minor;
                } else if (!umap_io__int_at(&a1, t, &row) || !umap_io__int_at(&a2, t, &col) || row < 0 ||
                           row >= rows || col < 0 || col >= cols) {
                    r = umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                                      ": entry %llu is at (%lld, %lld), outside %lld x %lld", (unsigned long long)t,
                                      (long long)row, (long long)col, (long long)rows, (long long)cols);
                    goto done;
                }
                if (pass == 0) {
                    s->indptr[row + 1]++;
                } else {
                    int64_t at = s->indptr[row]++; /* indptr[row] is the next free slot of row during the fill */
                    s->indices[at] = (int32_t)col;
                    s->values[at] = (float)umap_io__as_double(data.p + t * (uint64_t)umap_io__esize[data.a.type],
                                                              data.a.type, data.a.big);
                }
            }
            if (pass == 0) { /* the counts into each row's start: the fill advances them to the row's end */
                int64_t i;
                for (i = 0; i < rows; i++) s->indptr[i + 1] += s->indptr[i];
            }
        }
        for (t = (uint64_t)rows; t > 0; t--) s->indptr[t] = s->indptr[t - 1]; /* each end, one row on: the starts */
        s->indptr[0] = 0;
    }
    r = umap_io__csr_canonical(name, s, err, err_size);
done:
    UMAP_IO_FREE(fmt.owned), UMAP_IO_FREE(shape.owned), UMAP_IO_FREE(data.owned);
    UMAP_IO_FREE(a1.owned), UMAP_IO_FREE(a2.owned);
    if (r) umap_io_sparse_free(s);
    return r;
}

/* grows *p (elem bytes each) to hold at least need; 0 when out of memory or past the limit */
static int umap_io__grow(void **p, size_t *cap, size_t need, size_t elem) {
    size_t ncap;
    void *np;
    if (need <= *cap) return 1;
    ncap = *cap ? *cap : 4096;
    while (ncap < need) {
        if ((uint64_t)ncap > UMAP_IO__LIMIT / elem / 2) return 0;
        ncap *= 2;
    }
    np = UMAP_IO_REALLOC(*p, ncap * elem);
    if (!np) return 0;
    *p = np;
    *cap = ncap;
    return 1;
}

/* svmlight / libsvm text into CSR, or (l) its labels. One row per line:
   "label [qid:N] index:value ... [# comment]"; blank and comment lines are
   skipped; indices increase within a row. zero_based: 1, 0 (libsvm's
   one-based), or -1: zero-based when any index is 0 (scikit-learn's
   "auto"). n_features > 0 is the width (an index past it is an error);
   0 takes the largest index. */
static umap_io_result umap_io__svmlight(const char *name, const char *text, size_t size, int zero_based,
                                        int64_t n_features, umap_io_sparse *s, umap_io_labels *l, char *err,
                                        size_t err_size) {
    const char *p = text, *end = text + size, *nul = (const char *)memchr(text, 0, size);
    int64_t line = 0, rows = 0, max_idx = -1, min_idx = INT64_MAX;
    size_t ptr_cap = 0, nnz = 0, nnz_cap = 0, val_cap = 0, lab_cap = 0;
    int64_t *indptr = NULL;
    int32_t *indices = NULL, *labels = NULL;
    float *values = NULL;
    umap_io_result r = UMAP_IO_OK;
    char f[32];
    if (nul)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": not svmlight text (a NUL byte at byte %zu)",
                             (size_t)(nul - text));
#define UMAP_IO__SVM_FAIL(code, ...)                                                      \
    do {                                                                                  \
        r = umap_io__fail(err, err_size, code, name, __VA_ARGS__);                        \
        goto done;                                                                        \
    } while (0)
    while (p < end) {
        const char *e = umap_io__eol(p, end), *s0 = p, *hash, *tok, *te;
        double v;
        int64_t prev = -1;
        line++;
        p = e < end ? e + 1 : end;
        if ((hash = (const char *)memchr(s0, '#', (size_t)(e - s0))) != NULL) e = hash;
        umap_io__trim(&s0, &e);
        if (s0 == e) continue;
        if ((uint64_t)rows >= (uint64_t)UMAP_IO_MAX_ROWS)
            UMAP_IO__SVM_FAIL(UMAP_IO_ERR_TOO_LARGE, ": more than %lld rows", (long long)UMAP_IO_MAX_ROWS);
        /* the label */
        for (te = s0; te < e && *te != ' ' && *te != '\t'; te++) {}
        if (!umap_io__num(s0, te, &v)) {
            umap_io__field_str(s0, te, f, sizeof f);
            UMAP_IO__SVM_FAIL(UMAP_IO_ERR_FORMAT, ":%lld (row %lld): the label '%s' is not a number", (long long)line,
                              (long long)rows, f);
        }
        if (l) {
            if (!(v >= INT32_MIN && v <= INT32_MAX) || v != (double)(int32_t)v) {
                umap_io__field_str(s0, te, f, sizeof f);
                UMAP_IO__SVM_FAIL(UMAP_IO_ERR_FORMAT, ":%lld (row %lld): the label '%s' is not an int32 integer",
                                  (long long)line, (long long)rows, f);
            }
            if (!umap_io__grow((void **)&labels, &lab_cap, (size_t)rows + 1, sizeof *labels))
                UMAP_IO__SVM_FAIL(UMAP_IO_ERR_OUT_OF_MEMORY, ": out of memory at line %lld", (long long)line);
            labels[rows++] = (int32_t)v;
            continue;
        }
        if (!umap_io__grow((void **)&indptr, &ptr_cap, (size_t)rows + 2, sizeof *indptr))
            UMAP_IO__SVM_FAIL(UMAP_IO_ERR_OUT_OF_MEMORY, ": out of memory at line %lld", (long long)line);
        indptr[rows] = (int64_t)nnz;
        /* index:value pairs (a qid:N right after the label is skipped) */
        for (tok = te; tok < e; tok = te) {
            const char *colon;
            char *iend;
            char ibuf[24];
            int64_t idx;
            while (tok < e && (*tok == ' ' || *tok == '\t')) tok++;
            if (tok == e) break;
            for (te = tok; te < e && *te != ' ' && *te != '\t'; te++) {}
            colon = (const char *)memchr(tok, ':', (size_t)(te - tok));
            umap_io__field_str(tok, te, f, sizeof f);
            if (!colon || colon == tok || (size_t)(colon - tok) >= sizeof ibuf)
                UMAP_IO__SVM_FAIL(UMAP_IO_ERR_FORMAT, ":%lld (row %lld): '%s' is not index:value", (long long)line,
                                  (long long)rows, f);
            if (prev == -1 && nnz == (size_t)indptr[rows] && colon - tok == 3 && !memcmp(tok, "qid", 3)) continue;
            memcpy(ibuf, tok, (size_t)(colon - tok));
            ibuf[colon - tok] = 0;
            idx = (int64_t)strtoll(ibuf, &iend, 10);
            if (*iend || ibuf[0] < '0' || ibuf[0] > '9' || idx > (int64_t)INT32_MAX)
                UMAP_IO__SVM_FAIL(UMAP_IO_ERR_FORMAT,
                                  ":%lld (row %lld): '%s': the index is not an integer in [0, 2^31)", (long long)line,
                                  (long long)rows, f);
            if (!umap_io__num(colon + 1, te, &v))
                UMAP_IO__SVM_FAIL(UMAP_IO_ERR_FORMAT, ":%lld (row %lld): '%s': the value is not a number",
                                  (long long)line, (long long)rows, f);
            if (idx <= prev)
                UMAP_IO__SVM_FAIL(UMAP_IO_ERR_FORMAT,
                                  ":%lld (row %lld): index %lld after %lld: indices must increase within a row",
                                  (long long)line, (long long)rows, (long long)idx, (long long)prev);
            prev = idx;
            if (!umap_io__grow((void **)&indices, &nnz_cap, nnz + 1, sizeof *indices) ||
                !umap_io__grow((void **)&values, &val_cap, nnz + 1, sizeof *values))
                UMAP_IO__SVM_FAIL(UMAP_IO_ERR_OUT_OF_MEMORY, ": out of memory at line %lld", (long long)line);
            indices[nnz] = (int32_t)idx;
            values[nnz++] = (float)v;
            if (idx > max_idx) max_idx = idx;
            if (idx < min_idx) min_idx = idx;
        }
        rows++;
        indptr[rows] = (int64_t)nnz;
    }
    if (rows == 0) UMAP_IO__SVM_FAIL(UMAP_IO_ERR_FORMAT, ": no rows");
    if (l) {
        l->data = labels;
        l->n = rows;
        labels = NULL;
        goto done;
    }
    if (zero_based < 0) zero_based = min_idx == 0 || nnz == 0;
    if (!zero_based) {
        size_t t;
        if (min_idx == 0)
            UMAP_IO__SVM_FAIL(UMAP_IO_ERR_FORMAT, ": index 0 in a one-based file (libsvm's indices start at 1)");
        for (t = 0; t < nnz; t++) indices[t]--;
        max_idx--;
    }
    if (n_features > 0 && max_idx >= n_features)
        UMAP_IO__SVM_FAIL(UMAP_IO_ERR_FORMAT, ": index %lld (%s-based) is past the %lld features",
                          (long long)(max_idx + !zero_based), zero_based ? "zero" : "one", (long long)n_features);
    s->rows = rows;
    s->cols = n_features > 0 ? n_features : max_idx + 1;
    if (s->cols < 1) UMAP_IO__SVM_FAIL(UMAP_IO_ERR_FORMAT, ": no features (every row is empty)");
    if (s->cols > UMAP_IO_MAX_COLS)
        UMAP_IO__SVM_FAIL(UMAP_IO_ERR_TOO_LARGE, ": %lld columns exceed the limit UMAP_IO_MAX_COLS (%lld)",
                          (long long)s->cols, (long long)UMAP_IO_MAX_COLS);
    s->indptr = indptr;
    s->indices = indices ? indices : (int32_t *)UMAP_IO_MALLOC(1);
    s->values = values ? values : (float *)UMAP_IO_MALLOC(1);
    indptr = NULL, indices = NULL, values = NULL;
    if (!s->indices || !s->values) {
        umap_io_sparse_free(s);
        UMAP_IO__SVM_FAIL(UMAP_IO_ERR_OUT_OF_MEMORY, ": out of memory");
    }
#undef UMAP_IO__SVM_FAIL
done:
    UMAP_IO_FREE(indptr);
    UMAP_IO_FREE(indices);
    UMAP_IO_FREE(values);
    UMAP_IO_FREE(labels);
    return r;
}

static umap_io_result umap_io__sparse_read(const char *name, const unsigned char *b, size_t size, int zero_based,
                                           int64_t n_features, umap_io_sparse *s, char *err, size_t err_size) {
    if (size >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
        unsigned char *raw;
        size_t raw_size;
        umap_io_result r = umap_io__gunzip(name, b, size, &raw, &raw_size, err, err_size, NULL, NULL);
        if (r) return r;
        if (raw_size >= 2 && raw[0] == 0x1f && raw[1] == 0x8b)
            r = umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name, ": gzip inside gzip");
        else
            r = umap_io__sparse_read(name, raw, raw_size, zero_based, n_features, s, err, err_size);
        UMAP_IO_FREE(raw);
        return r;
    }
    if (size >= 4 && !memcmp(b, "PK\003\004", 4)) return umap_io__npz(name, b, size, s, err, err_size);
    {
        char buf[1024];
        if (umap_io__ieq(umap_io__ext(umap_io__strip_gz(name, buf, sizeof buf)), ".npz"))
            return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": not a zip archive (bad magic at byte 0)");
    }
    return umap_io__svmlight(name, (const char *)b, size, zero_based, n_features, s, NULL, err, err_size);
}

UMAP_IO__FN umap_io_result umap_io_read_sparse_memory(const char *name, const void *bytes, size_t size, int zero_based,
                                                      int64_t n_features, umap_io_sparse *out, char *err,
                                                      size_t err_size) {
    umap_io_result r;
    if (!out) return umap_io__fail(err, err_size, UMAP_IO_ERR_ARGUMENT, name, ": no output");
    memset(out, 0, sizeof *out);
    if ((r = umap_io__memory_args(&name, bytes, size, err, err_size)) != UMAP_IO_OK) return r;
    if (zero_based < -1 || zero_based > 1 || n_features < 0)
        return umap_io__fail(err, err_size, UMAP_IO_ERR_ARGUMENT, name, ": zero_based is -1, 0 or 1, n_features >= 0");
    r = umap_io__sparse_read(name, (const unsigned char *)bytes, size, zero_based, n_features, out, err, err_size);
    if (r) memset(out, 0, sizeof *out);
    return r;
}

UMAP_IO__FN umap_io_result umap_io_read_sparse(const char *path, int zero_based, int64_t n_features,
                                               umap_io_sparse *out, char *err, size_t err_size) {
    unsigned char *b;
    size_t n;
    umap_io_result r;
    if (out) memset(out, 0, sizeof *out);
    r = umap_io_read_file(path, &b, &n, err, err_size);
    if (r) return r;
    r = umap_io_read_sparse_memory(path, b, n, zero_based, n_features, out, err, err_size);
    UMAP_IO_FREE(b);
    return r;
}

/* >>read: format detection --------------------------------------------------- */

/* What a file's name promises, by its extension with any .gz stripped: the
   one decision the reader and the gzip bound (below) both follow */
typedef struct umap_io__name_kind {
    const char *ext, *base; /* ext points into the caller's buffer */
    int npy, idx, raw, svm;
} umap_io__name_kind;

static void umap_io__classify(const char *name, char *buf, size_t buf_size, umap_io__name_kind *k) {
    k->ext = umap_io__ext(umap_io__strip_gz(name, buf, buf_size));
    k->base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    k->npy = umap_io__ieq(k->ext, ".npy");
    k->idx = umap_io__ieq(k->ext, ".idx") || strstr(k->base, "-ubyte") || strstr(k->base, "idx1") ||
             strstr(k->base, "idx3");
    k->svm = umap_io__ieq(k->ext, ".svm") || umap_io__ieq(k->ext, ".svmlight") || umap_io__ieq(k->ext, ".libsvm");
    k->raw = umap_io__ieq(k->ext, ".f32") || umap_io__ieq(k->ext, ".u8") || umap_io__ieq(k->ext, ".bin") ||
             umap_io__ieq(k->ext, ".raw");
}

/* What a gzipped payload may grow to, decided from its first bytes the way
   umap_io__read will decide its format: a .npy or IDX header states the
   exact size (the read fails on any other), a name that promises .npy or
   IDX over other bytes fails at once, CSV text holds no NUL byte, and raw
   .f32 / .u8 streams keep the general limit. So a small gzip of zeros (or
   of a header that lies) fails after the first bytes, not gigabytes later. */
typedef struct umap_io__gz_rule {
    const char *name;
    int is_npy_name, is_idx_name, is_raw_name, csv;
    size_t scanned; /* CSV: bytes already searched for NUL */
} umap_io__gz_rule;

static int umap_io__gz_rule_fail(umap_io__inflater *z, umap_io_result r) {
    z->status = r;
    return 0;
}

/* the payload's exact size, stated by its header: lowers the limit */
static int umap_io__gz_expect(umap_io__inflater *z, size_t offset, const umap_io__array *a, const char *what) {
    uint64_t elems = 1, bytes = 0;
    int i, over = 0;
    for (i = 0; i < a->ndim; i++)
        if (!umap_io__mul(elems, a->shape[i], UINT64_MAX, &elems)) over = 1;
    if (!over && !umap_io__mul(elems, (uint64_t)umap_io__esize[a->type], UINT64_MAX - offset, &bytes)) over = 1;
    if (over || bytes + offset > z->limit) {
        char msg[320];
        snprintf(msg, sizeof msg, ": gzip: the %s header states %s%llu bytes; the limit is %llu (%s)", what,
                 over ? "more than " : "", (unsigned long long)(over ? UINT64_MAX : bytes),
                 (unsigned long long)z->limit, z->why);
        return umap_io__gz_rule_fail(z, umap_io__fail(z->err, z->err_size, UMAP_IO_ERR_TOO_LARGE, z->name, "%s", msg));
    }
    z->limit = bytes + offset;
    snprintf(z->why, sizeof z->why, "the size its %s header states", what);
    z->check = NULL;
    z->check_at = (size_t)z->limit;
    return 1;
}

static int umap_io__gz_check(umap_io__inflater *z) {
    umap_io__gz_rule *g = (umap_io__gz_rule *)z->check_ctx;
    const unsigned char *b = z->out;
    size_t len = z->out_len;
    umap_io__array a;
    umap_io_result r;
    if (g->csv) {
        const void *nul = len > g->scanned ? memchr(b + g->scanned, 0, len - g->scanned) : NULL;
        if (nul)
            return umap_io__gz_rule_fail(
                z, umap_io__fail(z->err, z->err_size, UMAP_IO_ERR_FORMAT, z->name,
                                 ": gzip: a NUL byte at byte %zu of the decompressed data: not CSV text (nor .npy, "
                                 "IDX, or a raw .f32 / .u8 name)",
                                 (size_t)((const unsigned char *)nul - b)));
        g->scanned = len;
        z->check_at = len + 65536;
        return 1;
    }
    if (len < 12) { /* magic, version and header length of either format */
        z->check_at = 12;
        return 1;
    }
    if (b[0] == 0x1f && b[1] == 0x8b)
        return umap_io__gz_rule_fail(z, umap_io__fail(z->err, z->err_size, UMAP_IO_ERR_UNSUPPORTED, z->name,
                                                      ": gzip inside gzip"));
    if (!memcmp(b, umap_io__npy_magic, 6)) {
        uint64_t hend = b[6] == 1 ? 10 + ((uint64_t)b[8] | ((uint64_t)b[9] << 8))
                                  : (b[6] == 2 || b[6] == 3) ? 12 + (uint64_t)umap_io__le32(b + 8) : 0;
        if (hend > len) {
            if (hend > z->limit) {
                return umap_io__gz_rule_fail(z, umap_io__fail(z->err, z->err_size, UMAP_IO_ERR_TOO_LARGE, z->name,
                                                              ": gzip: a .npy header of %llu bytes passes the limit "
                                                              "of %llu (%s)",
                                                              (unsigned long long)hend, (unsigned long long)z->limit,
                                                              z->why));
            }
            z->check_at = (size_t)hend;
            return 1;
        }
        if ((r = umap_io__npy_parse(z->name, b, len, &a, 0, z->err, z->err_size)) != UMAP_IO_OK)
            return umap_io__gz_rule_fail(z, r);
        return umap_io__gz_expect(z, a.offset, &a, ".npy");
    }
    if (g->is_npy_name)
        return umap_io__gz_rule_fail(z, umap_io__fail(z->err, z->err_size, UMAP_IO_ERR_FORMAT, z->name,
                                                      ": not a .npy file (bad magic at byte 0)"));
    if (!b[0] && !b[1] && umap_io__idx_type(b[2], &a.type) && b[3] >= 1 && b[3] <= 8 && (g->is_idx_name || !g->is_raw_name)) {
        size_t hend = 4 + 4 * (size_t)b[3];
        if (hend > len) {
            z->check_at = hend;
            return 1;
        }
        if ((r = umap_io__idx_parse(z->name, b, len, &a, z->err, z->err_size)) != UMAP_IO_OK)
            return umap_io__gz_rule_fail(z, r);
        return umap_io__gz_expect(z, a.offset, &a, "IDX");
    }
    if (g->is_idx_name) { /* not IDX: idx_parse says why */
        r = umap_io__idx_parse(z->name, b, len, &a, z->err, z->err_size);
        return umap_io__gz_rule_fail(z, r ? r : UMAP_IO_ERR_FORMAT);
    }
    if (g->is_raw_name) { /* any bytes are raw data: the general limit stays */
        z->check = NULL;
        z->check_at = (size_t)z->limit;
        return 1;
    }
    g->csv = 1;
    return umap_io__gz_check(z);
}

static umap_io_result umap_io__read(const char *name, const unsigned char *b, size_t size, int labels, int64_t raw_dim,
                                    umap_io_matrix *m, umap_io_labels *l, char *err, size_t err_size) {
    const char *ext;
    char stripped[1024];
    umap_io__name_kind kind;
    umap_io_result r;
    umap_io__array a;
    umap_io__classify(name, stripped, sizeof stripped, &kind);
    ext = kind.ext;
    if (size >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
        unsigned char *raw;
        size_t raw_size;
        umap_io__gz_rule g;
        memset(&g, 0, sizeof g);
        g.name = name;
        g.is_npy_name = kind.npy;
        g.is_idx_name = kind.idx;
        g.is_raw_name = kind.raw;
        r = umap_io__gunzip(name, b, size, &raw, &raw_size, err, err_size, umap_io__gz_check, &g);
        if (r) return r;
        if (raw_size >= 2 && raw[0] == 0x1f && raw[1] == 0x8b) {
            UMAP_IO_FREE(raw);
            return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name, ": gzip inside gzip");
        }
        r = umap_io__read(name, raw, raw_size, labels, raw_dim, m, l, err, err_size);
        UMAP_IO_FREE(raw);
        return r;
    }
    if ((size >= 4 && !memcmp(b, "PK\003\004", 4)) || umap_io__ieq(ext, ".npz"))
        return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name,
                             labels ? ": an .npz archive: labels are .npy, .csv, IDX, .u8 or svmlight"
                                    : ": an .npz archive holds sparse rows (scipy's save_npz): umap_io_read_sparse "
                                      "reads them, and a dense matrix is .npy");
    if (kind.svm) {
        if (labels) return umap_io__svmlight(name, (const char *)b, size, -1, 0, NULL, l, err, err_size);
        return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name,
                             ": svmlight text holds sparse rows: umap_io_read_sparse reads them");
    }
    if (size >= 6 && !memcmp(b, umap_io__npy_magic, 6)) {
        r = umap_io__npy_parse(name, b, size, &a, 0, err, err_size);
    } else if (kind.npy) {
        return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": not a .npy file (bad magic at byte 0)");
    } else if (umap_io__idx_sniff(b, size) || kind.idx) {
        r = umap_io__idx_parse(name, b, size, &a, err, err_size);
    } else if (kind.raw) {
        if (labels) {
            uint64_t i;
            if (!umap_io__ieq(ext, ".u8"))
                return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name,
                                     ": raw labels must be .u8 (one byte each)");
            if (size == 0) return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name, ": empty file");
            if ((uint64_t)size > (uint64_t)UMAP_IO_MAX_ROWS)
                return umap_io__fail(err, err_size, UMAP_IO_ERR_TOO_LARGE, name, ": more labels than the limit");
            l->data = (int32_t *)UMAP_IO_MALLOC(size * sizeof(int32_t));
            if (!l->data) return umap_io__fail(err, err_size, UMAP_IO_ERR_OUT_OF_MEMORY, name, ": out of memory");
            for (i = 0; i < size; i++) l->data[i] = b[i];
            l->n = (int64_t)size;
            return UMAP_IO_OK;
        }
        if (!umap_io__ieq(ext, ".f32"))
            return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, name,
                                 ": raw data must be .f32 (little-endian float32)");
        if (raw_dim <= 0)
            return umap_io__fail(err, err_size, UMAP_IO_ERR_ARGUMENT, name,
                                 ": a raw .f32 file needs its row width (--dim)");
        if (raw_dim > UMAP_IO_MAX_COLS)
            return umap_io__fail(err, err_size, UMAP_IO_ERR_TOO_LARGE, name, ": width %lld exceeds the limit",
                                 (long long)raw_dim);
        if (size == 0 || size % ((size_t)raw_dim * 4) != 0)
            return umap_io__fail(err, err_size, UMAP_IO_ERR_FORMAT, name,
                                 ": size %zu bytes is not a non-zero multiple of 4 * %lld (the row width)", size,
                                 (long long)raw_dim);
        memset(&a, 0, sizeof a);
        a.type = UMAP_IO__F32;
        a.ndim = 2;
        a.shape[0] = size / ((size_t)raw_dim * 4);
        a.shape[1] = (uint64_t)raw_dim;
        r = UMAP_IO_OK;
    } else {
        /* CSV: by extension, or text without NUL bytes */
        return umap_io__csv(name, (const char *)b, size, labels, m, l, err, err_size);
    }
    if (r) return r;
    {
        int64_t rows = 0, cols = 0;
        r = umap_io__shape_check(name, &a, size, labels, &rows, &cols, err, err_size);
        if (r) return r;
        if (labels) {
            r = umap_io__to_labels(name, b + a.offset, (uint64_t)rows, a.type, a.big, a.offset, &l->data, err,
                                   err_size);
            if (!r) l->n = rows;
        } else {
            r = umap_io__to_floats(name, b + a.offset, (uint64_t)rows * (uint64_t)cols, a.type, a.big, &m->data, err,
                                   err_size);
            if (!r) {
                m->rows = rows;
                m->cols = cols;
            }
        }
    }
    return r;
}

UMAP_IO__FN umap_io_result umap_io_read_matrix_memory(const char *name, const void *bytes, size_t size,
                                                      int64_t raw_dim, umap_io_matrix *out, char *err,
                                                      size_t err_size) {
    umap_io_result r;
    if (!out) return umap_io__fail(err, err_size, UMAP_IO_ERR_ARGUMENT, name, ": no output");
    memset(out, 0, sizeof *out);
    if ((r = umap_io__memory_args(&name, bytes, size, err, err_size)) != UMAP_IO_OK) return r;
    r = umap_io__read(name, (const unsigned char *)bytes, size, 0, raw_dim, out, NULL, err, err_size);
    if (r) memset(out, 0, sizeof *out);
    return r;
}

UMAP_IO__FN umap_io_result umap_io_read_labels_memory(const char *name, const void *bytes, size_t size,
                                                      umap_io_labels *out, char *err, size_t err_size) {
    umap_io_result r;
    if (!out) return umap_io__fail(err, err_size, UMAP_IO_ERR_ARGUMENT, name, ": no output");
    memset(out, 0, sizeof *out);
    if ((r = umap_io__memory_args(&name, bytes, size, err, err_size)) != UMAP_IO_OK) return r;
    r = umap_io__read(name, (const unsigned char *)bytes, size, 1, 0, NULL, out, err, err_size);
    if (r) memset(out, 0, sizeof *out);
    return r;
}

UMAP_IO__FN umap_io_result umap_io_read_matrix(const char *path, int64_t raw_dim, umap_io_matrix *out, char *err,
                                               size_t err_size) {
    unsigned char *b;
    size_t n;
    umap_io_result r;
    if (out) memset(out, 0, sizeof *out);
    r = umap_io_read_file(path, &b, &n, err, err_size);
    if (r) return r;
    r = umap_io_read_matrix_memory(path, b, n, raw_dim, out, err, err_size);
    UMAP_IO_FREE(b);
    return r;
}

UMAP_IO__FN umap_io_result umap_io_read_labels(const char *path, umap_io_labels *out, char *err, size_t err_size) {
    unsigned char *b;
    size_t n;
    umap_io_result r;
    if (out) memset(out, 0, sizeof *out);
    r = umap_io_read_file(path, &b, &n, err, err_size);
    if (r) return r;
    r = umap_io_read_labels_memory(path, b, n, out, err, err_size);
    UMAP_IO_FREE(b);
    return r;
}

/* >>write ------------------------------------------------------------------- */

static int umap_io__put_le32(FILE *f, const void *data, uint64_t count) {
    /* the files are little-endian on every machine */
    const unsigned char *p = (const unsigned char *)data;
    uint64_t i;
    if (!umap_io__host_big()) return fwrite(p, 4, (size_t)count, f) == (size_t)count;
    for (i = 0; i < count; i++) {
        unsigned char b[4];
        b[0] = p[4 * i + 3];
        b[1] = p[4 * i + 2];
        b[2] = p[4 * i + 1];
        b[3] = p[4 * i];
        if (fwrite(b, 1, 4, f) != 4) return 0;
    }
    return 1;
}

/* the checks a writer makes before it touches any file */
static umap_io_result umap_io__check_output(const char *path, int is_int, int with_labels, char *err,
                                            size_t err_size) {
    const char *ext;
    if (!path) return umap_io__fail(err, err_size, UMAP_IO_ERR_ARGUMENT, "(null)", ": no file name");
    ext = umap_io__ext(path);
    if (!umap_io__ieq(ext, ".npy") && !umap_io__ieq(ext, ".csv") && !umap_io__ieq(ext, ".f32") &&
        !umap_io__ieq(ext, ".i32"))
        return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, path,
                             ": unknown output extension '%s' (.npy, .csv, %s)", ext, is_int ? ".i32" : ".f32");
    if ((umap_io__ieq(ext, ".f32") && is_int) || (umap_io__ieq(ext, ".i32") && !is_int))
        return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, path, ": %s data cannot be written as %s",
                             is_int ? "int32" : "float", ext);
    if (with_labels && !umap_io__ieq(ext, ".csv"))
        return umap_io__fail(err, err_size, UMAP_IO_ERR_UNSUPPORTED, path, ": only .csv output carries labels");
    return UMAP_IO_OK;
}

UMAP_IO__FN umap_io_result umap_io_check_output(const char *path, int is_int, int with_labels, char *err,
                                                size_t err_size) {
    if (err && err_size) err[0] = 0;
    return umap_io__check_output(path, is_int, with_labels, err, err_size);
}

/* the array into an open stream, by name's extension; a write error names
   the OS's reason */
static umap_io_result umap_io__write_file(FILE *f, const char *name, const void *data, int64_t rows, int64_t cols,
                                          int is_int, const int32_t *labels, char *err, size_t err_size) {
    const char *ext;
    uint64_t count;
    umap_io_result r;
    if (err && err_size) err[0] = 0;
    if ((r = umap_io__check_output(name, is_int, labels != NULL, err, err_size)) != UMAP_IO_OK) return r;
    if (!f || !data || rows <= 0 || cols <= 0 || cols > UMAP_IO_MAX_COLS || rows > UMAP_IO_MAX_ROWS ||
        !umap_io__mul((uint64_t)rows, (uint64_t)cols, UMAP_IO__LIMIT / 4, &count))
        return umap_io__fail(err, err_size, UMAP_IO_ERR_ARGUMENT, name, ": bad array (%lld x %lld)%s", (long long)rows,
                             (long long)cols, f ? "" : " or no stream");
    ext = umap_io__ext(name);
    errno = 0;
    if (umap_io__ieq(ext, ".npy")) {
        char hdr[256];
        int len = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld, %lld), }",
                           is_int ? "<i4" : "<f4", (long long)rows, (long long)cols);
        int total = 10 + len + 1, pad = (64 - total % 64) % 64;
        unsigned char pre[10];
        memcpy(pre, umap_io__npy_magic, 6);
        pre[6] = 1;
        pre[7] = 0;
        pre[8] = (unsigned char)((len + 1 + pad) & 0xFF);
        pre[9] = (unsigned char)((len + 1 + pad) >> 8);
        memset(hdr + len, ' ', (size_t)pad);
        hdr[len + pad] = '\n';
        if (fwrite(pre, 1, 10, f) == 10 && fwrite(hdr, 1, (size_t)(len + pad + 1), f) == (size_t)(len + pad + 1))
            umap_io__put_le32(f, data, count);
    } else if (umap_io__ieq(ext, ".csv")) {
        int64_t i, j;
        for (j = 0; j < cols; j++) {
            if (!is_int && cols <= 3)
                fprintf(f, "%s%c", j ? "," : "", "xyz"[j]);
            else
                fprintf(f, "%s%c%lld", j ? "," : "", is_int ? 'n' : 'c', (long long)j);
        }
        fputs(labels ? ",label\n" : "\n", f);
        for (i = 0; i < rows && !ferror(f); i++) {
            for (j = 0; j < cols; j++) {
                if (is_int)
                    fprintf(f, "%s%ld", j ? "," : "", (long)((const int32_t *)data)[i * cols + j]);
                else
                    fprintf(f, "%s%.9g", j ? "," : "", (double)((const float *)data)[i * cols + j]);
            }
            if (labels) fprintf(f, ",%ld", (long)labels[i]);
            fputc('\n', f);
        }
    } else {
        umap_io__put_le32(f, data, count);
    }
    if (ferror(f))
        return umap_io__fail(err, err_size, UMAP_IO_ERR_WRITE, name, ": write failed: %s",
                             strerror(errno ? errno : EIO));
    return UMAP_IO_OK;
}

UMAP_IO__FN umap_io_result umap_io_write_matrix_file(FILE *f, const char *name, const float *data, int64_t rows,
                                                     int64_t cols, const int32_t *labels, char *err,
                                                     size_t err_size) {
    return umap_io__write_file(f, name, data, rows, cols, 0, labels, err, err_size);
}

UMAP_IO__FN umap_io_result umap_io_write_i32_file(FILE *f, const char *name, const int32_t *data, int64_t rows,
                                                  int64_t cols, char *err, size_t err_size) {
    return umap_io__write_file(f, name, data, rows, cols, 1, NULL, err, err_size);
}

#ifdef UMAP_H
/* through a umap_output: the target changes only when the whole file is written */
static umap_io_result umap_io__write(const char *path, const void *data, int64_t rows, int64_t cols, int is_int,
                                     const int32_t *labels, char *err, size_t err_size) {
    umap_output o;
    umap_io_result r;
    if (err && err_size) err[0] = 0;
    if ((r = umap_io__check_output(path, is_int, labels != NULL, err, err_size)) != UMAP_IO_OK) return r;
    if (umap_output_open(&o, path) != UMAP_OK) return umap_io__fail(err, err_size, UMAP_IO_ERR_OPEN, o.error, "");
    r = umap_io__write_file(o.file, path, data, rows, cols, is_int, labels, err, err_size);
    if (r != UMAP_IO_OK) {
        umap_output_discard(&o);
        return r;
    }
    if (umap_output_commit(&o) != UMAP_OK) return umap_io__fail(err, err_size, UMAP_IO_ERR_WRITE, o.error, "");
    return UMAP_IO_OK;
}

UMAP_IO__FN umap_io_result umap_io_write_matrix(const char *path, const float *data, int64_t rows, int64_t cols,
                                                const int32_t *labels, char *err, size_t err_size) {
    return umap_io__write(path, data, rows, cols, 0, labels, err, err_size);
}

UMAP_IO__FN umap_io_result umap_io_write_i32(const char *path, const int32_t *data, int64_t rows, int64_t cols,
                                             char *err, size_t err_size) {
    return umap_io__write(path, data, rows, cols, 1, NULL, err, err_size);
}
#endif

/* >>progress ---------------------------------------------------------------- */

static void umap_io__progress_resolve(umap_io_progress_state *s) {
    if (s->resolved_) return;
    s->resolved_ = 1;
    if (!s->out) s->out = stderr;
    if (s->mode == UMAP_IO_PROGRESS_AUTO) {
        s->mode = UMAP_IO_PROGRESS_LINES;
#ifdef UMAP_IO__HAVE_ISATTY
        if (s->out == stderr && isatty(2)) s->mode = UMAP_IO_PROGRESS_BAR;
#endif
    }
    s->last_decile_ = -1;
    s->last_s_ = -1e30;
}

/* "train epoch 3/10", "distill step 40/700", "knn 12/60": what a phase
   counts (fit's progress documents the units) */
static const char *umap_io__unit(const char *phase) {
    if (!strcmp(phase, "train") || !strcmp(phase, "refine")) return " epoch";
    if (!strcmp(phase, "pca") || !strcmp(phase, "init") || !strcmp(phase, "distill")) return " step";
    return "";
}

UMAP_IO__FN void umap_io_progress_update(umap_io_progress_state *s, const char *phase, int epoch, int n_epochs,
                                         float loss, double elapsed_s) {
    int counted, changed, decile, pct, show_loss;
    char what[96];
    if (!s) return;
    umap_io__progress_resolve(s);
    if (s->mode == UMAP_IO_PROGRESS_QUIET) return;
    if (!phase) phase = "";
    counted = n_epochs > 0 && epoch >= 0;
    show_loss = counted && epoch > 0 && (!strcmp(phase, "train") || !strcmp(phase, "distill") || !strcmp(phase, "pca") || !strcmp(phase, "init"));
    changed = strncmp(s->phase_, phase, sizeof s->phase_ - 1) != 0;
    if (changed) {
        strncpy(s->phase_, phase, sizeof s->phase_ - 1);
        s->phase_[sizeof s->phase_ - 1] = 0;
        s->last_decile_ = -1;
    }
    pct = counted ? (int)(100.0 * epoch / n_epochs) : !strcmp(phase, "embed") ? 100 : 0;
    if (pct < 0) pct = 0;
    if (pct > 100) pct = 100;
    decile = pct / 10;
    if (counted)
        snprintf(what, sizeof what, "%.16s%s %d/%d", phase, umap_io__unit(phase), epoch, n_epochs);
    else
        snprintf(what, sizeof what, "%.16s", phase);
    if (s->mode == UMAP_IO_PROGRESS_BAR) {
        char line[200], bar[21], lossbuf[32] = "";
        int fill = pct / 5, len, i;
        for (i = 0; i < 20; i++) bar[i] = i < fill ? '#' : ' ';
        bar[20] = 0;
        if (show_loss) snprintf(lossbuf, sizeof lossbuf, " loss %.4f", (double)loss);
        len = snprintf(line, sizeof line, "[%s] %3d%% %s%s, %.1f s elapsed", bar, pct, what, lossbuf, elapsed_s);
        if (len < 0) len = 0;
        if (len >= (int)sizeof line) len = (int)sizeof line - 1;
        fprintf(s->out, "\r%s", line);
        for (i = len; i < s->width_; i++) fputc(' ', s->out); /* clear a longer previous line */
        s->width_ = len;
        s->open_ = 1;
        fflush(s->out);
        return;
    }
    /* lines: on a phase change; in a counted phase when a new tenth is
       reached (at most one line per 2 s), and for its last unit */
    if (!changed && !(counted && ((decile > s->last_decile_ && elapsed_s - s->last_s_ >= 2.0) || epoch == n_epochs)))
        return;
    if (!changed && counted && epoch == n_epochs && s->last_decile_ == 10) return;
    s->last_decile_ = decile;
    s->last_s_ = elapsed_s;
    if (counted && show_loss)
        fprintf(s->out, "%s%s (%d%%) loss %.4f, %.1f s elapsed\n", s->prefix ? s->prefix : "umap: ", what, pct,
                (double)loss, elapsed_s);
    else if (counted)
        fprintf(s->out, "%s%s (%d%%), %.1f s elapsed\n", s->prefix ? s->prefix : "umap: ", what, pct, elapsed_s);
    else
        fprintf(s->out, "%s%s, %.1f s elapsed\n", s->prefix ? s->prefix : "umap: ", what, elapsed_s);
    fflush(s->out);
}

UMAP_IO__FN void umap_io_progress_end(umap_io_progress_state *s) {
    if (!s) return;
    if (s->open_ && s->out) {
        fputc('\n', s->out);
        fflush(s->out);
    }
    s->open_ = 0;
    s->width_ = 0;
}

#ifdef UMAP_H
UMAP_IO__FN int umap_io_progress(const umap_progress *p, void *state) {
    if (p)
        umap_io_progress_update((umap_io_progress_state *)state, p->phase, p->epoch, p->n_epochs, p->loss,
                                p->elapsed_s);
    return 0;
}
#endif

#endif /* UMAP_IO__IMPLEMENTED */
#endif /* UMAP_IO_IMPLEMENTATION */

/*
MIT License

Copyright (c) 2025 the umap.h authors

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
