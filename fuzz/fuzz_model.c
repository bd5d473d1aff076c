/* libFuzzer target for umap_load_memory (the whole public load path: the
   container parser, the metadata and config checks, the model rebuild).

     clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         -I. -DUMAP_IMPLEMENTATION fuzz/fuzz_model.c -o build/fuzz_model -lblas -lpthread -lm
     build/fuzz_model -max_len=65536 -max_total_time=300 fuzz/corpus

   A file that loads must also transform a row without trouble, in every
   mode it offers: that catches a loader that accepts shapes the encoder
   cannot run, or kept training data (train.data, train.embedding) and
   config values that the placement among the training rows cannot use.
   Finite but extreme weights may overflow the network: transform then says
   so (UMAP_ERR_NON_FINITE), and whatever it returns with UMAP_OK is
   finite. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "umap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    umap_model *model = NULL;
    char detail[256];
    umap_result r;
    detail[0] = 0;
    r = umap_load_memory(data, size, NULL, &model, detail, sizeof detail);
    if (r != UMAP_OK) {
        if (model || !detail[0]) abort();
        return 0;
    }
    if (!model) abort();
    {
        int64_t d = umap_model_n_features(model);
        int k = umap_model_n_components(model);
        if (d >= 1 && d <= 1 << 16 && k >= 1 && k <= 1024) {
            float *x = (float *)calloc((size_t)d, sizeof(float));
            float *y = (float *)calloc((size_t)k, sizeof(float));
            if (x && y) {
                int i, mode;
                /* auto (the placement when the file kept its training data), then the encoder */
                for (mode = UMAP_TRANSFORM_AUTO; mode <= UMAP_TRANSFORM_ENCODER; mode++) {
                    umap_transform_desc td;
                    memset(&td, 0, sizeof td);
                    td.mode = (umap_transform_mode)mode;
                    td.n_threads = 1;
                    r = umap_transform_with(model, &td, x, 1, d, y);
                    if (r != UMAP_OK && r != UMAP_ERR_NON_FINITE) abort();
                    for (i = 0; r == UMAP_OK && i < k; i++)
                        if (!(y[i] - y[i] == 0.0f)) abort();
                }
            }
            free(x);
            free(y);
        }
    }
    umap_model_free(model);
    return 0;
}
