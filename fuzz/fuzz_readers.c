/* libFuzzer target for the umap CLI's readers (cli/umap_io.h): .npy, CSV,
   IDX, gzip with its own inflate, raw .f32 and .u8, for matrices and for
   labels; and the sparse reader: scipy's .npz (zip, stored or deflated)
   and svmlight text.

     make build/fuzz_readers && build/fuzz_readers fuzz/corpus-readers

   The first byte of an input picks the name the bytes are read under (the
   readers look at the extension where the content does not decide), the
   second the row width of a raw .f32 file; the rest is the file. Seeds:
   fuzz/corpus-readers (fuzz/corpus-readers.sh writes them).

   Besides "no crash, no leak, no huge allocation" (libFuzzer's
   -malloc_limit_mb), it checks the contract: success gives a non-empty
   array, failure a zeroed result and a message that names the file. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define UMAP_IO_IMPLEMENTATION
#include "cli/umap_io.h"

static const char *const fz_names[] = {
    "f.npy", "f.csv", "f.idx", "f.gz", "f.f32", "f.u8", "f.npy.gz", "f.csv.gz", "train-images-idx3-ubyte.gz",
    "f.f32.gz", "f.u8.gz", "f", "f.npz", "f.svm", "f.svm.gz",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *name;
    int64_t raw_dim;
    char err[512];
    umap_io_matrix m;
    umap_io_labels l;
    umap_io_result r;
    if (size < 2) return 0;
    name = fz_names[data[0] % (sizeof fz_names / sizeof fz_names[0])];
    raw_dim = 1 + data[1] % 8;
    data += 2;
    size -= 2;

    err[0] = 0;
    r = umap_io_read_matrix_memory(name, data, size, raw_dim, &m, err, sizeof err);
    if (r == UMAP_IO_OK) {
        int64_t i;
        volatile float sink = 0.0f;
        if (!m.data || m.rows < 1 || m.cols < 1) abort();
        for (i = 0; i < m.rows * m.cols; i++) sink += m.data[i]; /* every element is there */
        (void)sink;
    } else {
        if (m.data || m.rows || m.cols || strncmp(err, name, strlen(name)) != 0) abort();
    }
    umap_io_matrix_free(&m);

    err[0] = 0;
    r = umap_io_read_labels_memory(name, data, size, &l, err, sizeof err);
    if (r == UMAP_IO_OK) {
        int64_t i;
        volatile uint32_t sink = 0;
        if (!l.data || l.n < 1) abort();
        for (i = 0; i < l.n; i++) sink += (uint32_t)l.data[i];
        (void)sink;
    } else {
        if (l.data || l.n || strncmp(err, name, strlen(name)) != 0) abort();
    }
    umap_io_labels_free(&l);

    /* sparse rows: canonical CSR on success (offsets from 0, never
       decreasing; columns increasing within a row and below cols) */
    err[0] = 0;
    {
        umap_io_sparse s;
        int64_t width = (raw_dim & 4) ? raw_dim : 0;
        r = umap_io_read_sparse_memory(name, data, size, (int)(raw_dim % 3) - 1, width, &s, err, sizeof err);
        if (r == UMAP_IO_OK) {
            int64_t i, t;
            volatile float sink = 0.0f;
            if (!s.indptr || !s.indices || !s.values || s.rows < 1 || s.cols < 1 || s.indptr[0] != 0) abort();
            for (i = 0; i < s.rows; i++) {
                if (s.indptr[i + 1] < s.indptr[i]) abort();
                for (t = s.indptr[i]; t < s.indptr[i + 1]; t++) {
                    if (s.indices[t] < 0 || s.indices[t] >= s.cols || (t > s.indptr[i] && s.indices[t] <= s.indices[t - 1]))
                        abort();
                    sink += s.values[t];
                }
            }
            (void)sink;
        } else if (s.indptr || s.rows || strncmp(err, name, strlen(name)) != 0) {
            abort();
        }
        umap_io_sparse_free(&s);
    }
    return 0;
}
