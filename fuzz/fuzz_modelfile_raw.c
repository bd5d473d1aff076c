/* libFuzzer target for the model-file container layer alone (umap.h's
   >>modelfile section: umap__mf_parse and umap__mf_write, below the model
   checks that fuzz_model.c goes through):

     make build/fuzz_modelfile_raw && build/fuzz_modelfile_raw -max_len=4096 fuzz/corpus

   `make fuzz` runs it on fuzz/corpus, the same seeds as fuzz_model.c.

   Besides "no crash, no leak", it checks a property: whatever parses writes
   again in both formats and parses back to the same tensors (bit for bit)
   and the same metadata text. It also runs the JSON helpers on the input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UMAP_IMPLEMENTATION
#include "umap.h"

/* writes mf in format into a malloc'ed buffer; UMAP_OK or the writer's error */
static umap_result fz_write(const umap__mf *mf, int format, unsigned char **out, size_t *len) {
    char detail[256];
    umap_result r;
    FILE *f = tmpfile();
    long n;
    *out = NULL;
    *len = 0;
    if (!f) abort();
    r = umap__mf_write(f, format, mf, detail, sizeof detail);
    if (r == UMAP_OK) {
        n = ftell(f);
        *out = (unsigned char *)malloc((size_t)n + 1);
        rewind(f);
        *len = fread(*out, 1, (size_t)n, f);
        if (*len != (size_t)n) abort();
    }
    fclose(f);
    return r;
}

static void fz_same(const umap__mf *a, const umap__mf *b) {
    int i;
    if (a->n_tensors != b->n_tensors) abort();
    for (i = 0; i < a->n_tensors; i++) {
        const umap__mf_tensor *t = umap__mf_tensor_get(b, a->tensors[i].name);
        if (!t || t->rank != a->tensors[i].rank ||
            memcmp(t->dim, a->tensors[i].dim, sizeof(int64_t) * (size_t)t->rank) != 0 ||
            ((uintptr_t)t->data & 63) != 0 ||
            memcmp(t->data, a->tensors[i].data, (size_t)umap__mf_numel(t->rank, t->dim) * 4) != 0)
            abort();
    }
    for (i = 0; i < a->n_meta; i++) {
        const char *v = umap__mf_meta_get(b, a->meta[i].key);
        if (umap__mf_gguf_skipped_key(a->meta[i].key)) continue; /* the GGUF writer puts its own */
        if (!v || strcmp(v, a->meta[i].value) != 0) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    umap__mf mf;
    char detail[256];
    umap_result r;
    detail[0] = 0;
    r = umap__mf_parse(NULL, data, size, &mf, detail, sizeof detail);
    if (r != UMAP_OK) {
        if (!detail[0] || mf.owned || mf.n_tensors || mf.n_meta) abort();
        if (r != UMAP_ERR_FORMAT && r != UMAP_ERR_TOO_LARGE) abort();
    } else {
        int format;
        for (format = 0; format < 2; format++) {
            unsigned char *buf;
            size_t len;
            umap__mf back;
            if (fz_write(&mf, format, &buf, &len) != UMAP_OK) continue; /* e.g. a name that is not UTF-8 */
            r = umap__mf_parse(NULL, buf, len, &back, detail, sizeof detail);
            if (r != UMAP_OK) {
                fprintf(stderr, "rewritten file (format %d) does not parse: %s\n", format, detail);
                abort();
            }
            fz_same(&mf, &back);
            umap__mf_free(NULL, &back);
            free(buf);
        }
        {   /* the JSON helpers on every string value */
            int i;
            for (i = 0; i < mf.n_meta; i++) {
                double v;
                char s[64];
                umap__json_number(mf.meta[i].value, "n_neighbors", &v);
                umap__json_string(mf.meta[i].value, "metric", s, sizeof s);
            }
        }
        umap__mf_free(NULL, &mf);
    }
    if (size < 4096) {   /* and on the raw input as text */
        char *z = (char *)malloc(size + 1);
        double v;
        char s[16];
        memcpy(z, data, size);
        z[size] = 0;
        umap__json_number(z, "a", &v);
        umap__json_string(z, "a", s, sizeof s);
        free(z);
    }
    return 0;
}
