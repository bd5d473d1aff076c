/* A second, private copy of the implementation with the scalar loops only
   (the refinement's and Adam's): UMAP_STATIC keeps every symbol inside this
   file and UMAP_NO_SIMD turns the SIMD loops off, so test_umap.cc can check
   that the main copy's SIMD loops give the scalar loops' bits (fit's
   training and refinement and transform's placement run them). */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function" /* a private copy: most of its API goes unused here */
#endif
#define UMAP_STATIC
#define UMAP_NO_SIMD
#define UMAP_IMPLEMENTATION
#include "umap.h"

#include <stdlib.h>
#include <string.h>

int umap_test_scalar_fit_place(const umap_config *config, const float *data, int64_t n, int64_t d,
                               const float *new_rows, int64_t n_new, float *embedding, float *placed);

/* fit (config.keep_data set by the caller), then place new_rows among the
   training rows; embedding gets n x n_components, placed n_new x n_components */
int umap_test_scalar_fit_place(const umap_config *config, const float *data, int64_t n, int64_t d,
                               const float *new_rows, int64_t n_new, float *embedding, float *placed) {
    umap_model *m = NULL;
    umap_transform_desc td;
    umap_result r = umap_fit(config, data, n, d, &m);
    if (r == UMAP_OK) {
        memcpy(embedding, umap_model_embedding(m), (size_t)(n * umap_model_n_components(m)) * sizeof(float));
        memset(&td, 0, sizeof td);
        td.mode = UMAP_TRANSFORM_NEIGHBORS;
        r = umap_transform_with(m, &td, new_rows, n_new, d, placed);
    }
    umap_model_free(m);
    return (int)r;
}

int umap_test_push_field(const float *embedding, int64_t n, float a, float b, float gamma, const float *at,
                         int64_t n_at, float *push);

/* transform's push field (umap__push_field) of the n rows embedding (2
   columns), read at the n_at points at into push (n_at x 2); 0 when it
   could not be built (out of memory, a span too wide) */
int umap_test_push_field(const float *embedding, int64_t n, float a, float b, float gamma, const float *at,
                         int64_t n_at, float *push) {
    umap__push_field f;
    umap_allocator alloc;
    int64_t i;
    memset(&alloc, 0, sizeof alloc);
    if (umap__push_field_build(&f, &alloc, embedding, n, a, b, gamma, NULL, 0) != UMAP_OK) return 0;
    for (i = 0; i < n_at; i++) umap__push_field_at(&f, at[2 * i], at[2 * i + 1], push + 2 * i);
    umap__push_field_free(&alloc, &f);
    return 1;
}

int umap_test_graph_layout_search(umap_metric metric, const float *base, int64_t n, int64_t dim, const int32_t *graph,
                                  int graph_k, const int32_t *layout, int prune, int n_threads, const float *queries,
                                  int64_t n_queries, int k, int32_t *indices, float *distances, double *evals);

/* umap_knn_graph_index_build with the rows laid out as layout says (NULL:
   the index's own order) and its lists pruned or not, then its search of
   the queries (unseeded, the width k); evals: the rows the search measured */
int umap_test_graph_layout_search(umap_metric metric, const float *base, int64_t n, int64_t dim, const int32_t *graph,
                                  int graph_k, const int32_t *layout, int prune, int n_threads, const float *queries,
                                  int64_t n_queries, int k, int32_t *indices, float *distances, double *evals) {
    umap_knn_desc d;
    umap_knn_info info;
    umap_knn_graph_index *g = NULL;
    umap_result r;
    memset(&d, 0, sizeof d);
    d.k = k;
    d.n_threads = n_threads;
    d.metric = metric;
    d.info = &info;
    if ((r = umap__knn_graph_index_build(&d, base, n, dim, graph, graph_k, layout, prune, &g)) != UMAP_OK)
        return (int)r;
    r = umap_knn_graph_index_search(&d, g, queries, n_queries, NULL, 0, indices, distances);
    if (evals) *evals = info.distance_evals;
    umap_knn_graph_index_free(g);
    return (int)r;
}

int umap_test_smooth(const float *dist, int64_t n, int k, float local_connectivity, float target, float *w);

/* fit's and transform's memberships (umap__smooth_rows) of n rows of k
   ascending distances: w gets n x k */
int umap_test_smooth(const float *dist, int64_t n, int k, float local_connectivity, float target, float *w) {
    umap__smooth_ctx sc;
    int32_t *idx = (int32_t *)malloc((size_t)(n * k) * sizeof(int32_t));
    double sum = 0.0;
    int64_t i;
    if (!idx) return 0;
    for (i = 0; i < n * k; i++) {
        idx[i] = (int32_t)(i % k);
        sum += dist[i];
    }
    memset(&sc, 0, sizeof sc);
    sc.idx = idx;
    sc.dist = dist;
    sc.k = k;
    sc.local_connectivity = local_connectivity;
    sc.target = target;
    sc.mean_all = sum / (double)(n * k);
    sc.w = w;
    umap__smooth_rows(&sc, 0, n);
    free(idx);
    return 1;
}
