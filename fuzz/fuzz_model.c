/* libFuzzer target for umap_load_memory (the whole public load path: the
   container parser, the metadata and config checks, the model rebuild).

     clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         -I. -DUMAP_IMPLEMENTATION fuzz/fuzz_model.c -o build/fuzz_model -lblas -lpthread -lm
     build/fuzz_model -max_len=65536 -timeout=10 -max_total_time=300 fuzz/corpus

   A refusal's message must be printable ASCII: the loader quotes what it
   read from the file escaped, so no byte of a hostile file reaches a
   terminal or fails a UTF-8 decoder.

   A file that loads must also transform a few rows without trouble, in
   every mode it offers (auto, which places rows among the kept ones when
   the file kept any; the encoder; the exact search of the kept rows):
   that catches a loader that accepts shapes the encoder cannot run, or
   kept data and config values that the placement cannot use. The rows are
   zeros, the input's own bytes and a large row, so mutations steer them
   too. Finite but extreme weights may overflow the network: transform
   then says so (UMAP_ERR_NON_FINITE), and whatever it returns with UMAP_OK
   is finite. A model with a decoder decodes zeros, the input's bytes and
   a large place under the same contract. A precomputed model's rows are
   distances (their magnitudes), and a graph's model takes them as sparse
   rows (every entry stored) where it refuses them dense. The run's -timeout and -rss_limit_mb (the Makefile's) make a
   file that loads and then asks transform for unbounded work a finding. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "umap.h"

enum { ROWS = 3 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    umap_model *model = NULL;
    char detail[256];
    umap_result r;
    size_t i;
    detail[0] = 0;
    r = umap_load_memory(data, size, NULL, &model, detail, sizeof detail);
    if (r != UMAP_OK) {
        if (model || !detail[0]) abort();
        for (i = 0; detail[i]; i++)
            if ((unsigned char)detail[i] < 0x20 || (unsigned char)detail[i] > 0x7e) abort();
        return 0;
    }
    if (!model) abort();
    {
        int64_t d = umap_model_n_features(model), j;
        int k = umap_model_n_components(model);
        int distances = umap_model_config(model)->metric == UMAP_METRIC_PRECOMPUTED;
        if (d >= 1 && d <= 1 << 16 && k >= 1 && k <= 1024) {
            float *x = (float *)calloc((size_t)(ROWS * d), sizeof(float));
            float *y = (float *)calloc((size_t)(ROWS * k), sizeof(float));
            int64_t *ptr = (int64_t *)calloc(ROWS + 1, sizeof(int64_t));
            int32_t *ind = (int32_t *)calloc((size_t)(ROWS * d), sizeof(int32_t));
            if (x && y && ptr && ind) {
                int mode;
                for (j = 0; j < d; j++) { /* row 0 zeros; row 1 the input's bytes; row 2 large */
                    x[d + j] = (float)data[(size_t)j % size] / 16.0f - 8.0f;
                    x[2 * d + j] = (j & 1 ? -1.0f : 1.0f) * 1e6f;
                }
                for (j = 0; j < ROWS * d; j++) {
                    if (distances && x[j] < 0.0f) x[j] = -x[j];
                    ind[j] = (int32_t)(j % d);
                }
                for (j = 0; j <= ROWS; j++) ptr[j] = j * d;
                for (mode = 0; mode < 3; mode++) {
                    umap_transform_desc td;
                    memset(&td, 0, sizeof td);
                    td.mode = mode == 1 ? UMAP_TRANSFORM_ENCODER : UMAP_TRANSFORM_AUTO;
                    td.exact_neighbors = mode == 2;
                    td.n_threads = 1;
                    r = umap_transform_with(model, &td, x, ROWS, d, y);
                    if (distances && r == UMAP_ERR_INVALID_ARGUMENT) { /* a graph's model */
                        umap_rows rows = umap_rows_csr(ROWS, d, ptr, ind, x);
                        r = umap_transform_rows(model, &td, &rows, y);
                    }
                    if (r != UMAP_OK && r != UMAP_ERR_NON_FINITE) abort();
                    for (j = 0; r == UMAP_OK && j < ROWS * k; j++)
                        if (!(y[j] - y[j] == 0.0f)) abort();
                }
                if (umap_model_has_decoder(model)) { /* places back to rows: the same contract */
                    for (j = 0; j < ROWS * k; j++) y[j] = j < k ? 0.0f : j < 2 * k ? x[d + j % d] : (j & 1 ? -1e6f : 1e6f);
                    r = umap_inverse_transform(model, y, ROWS, k, x, 1, detail, sizeof detail);
                    if (r != UMAP_OK && r != UMAP_ERR_NON_FINITE) abort();
                    for (j = 0; r == UMAP_OK && j < ROWS * d; j++)
                        if (!(x[j] - x[j] == 0.0f)) abort();
                }
            }
            free(x);
            free(y);
            free(ptr);
            free(ind);
        }
    }
    umap_model_free(model);
    return 0;
}
