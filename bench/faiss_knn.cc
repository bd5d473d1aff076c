// faiss_knn.cc - exact self k-NN with FAISS, the reference side of
// `bench_knn --compare` (bench/bench_knn.c runs it as a subprocess).
//
// euclidean: IndexFlatL2 on the rows as given; cosine: IndexFlatIP on
// L2-normalised rows (a zero row stays zero). Each run times everything from
// the raw rows to the k neighbour indices: (cosine: copy and normalise),
// build the index, add the rows, search all rows with k+1, drop self. Self is
// dropped by the rule of knn_data_drop_self (bench/knn_data.h): the first
// occurrence of the row itself, else the last candidate; equal distances are
// then ordered by index, as umap_knn orders them.
//
// Build (needs Debian libfaiss-dev 1.7.3, static libfaiss.a):
//   g++ -O2 -fopenmp -I. bench/faiss_knn.cc -o build/faiss_knn -lfaiss -lblas -llapack -lpthread -lm
// (or `make build/faiss_knn`). Run:
//   OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 build/faiss_knn --data X.f32 --n N --d D
//       [--k 15] [--metric euclidean|cosine] [--runs 5] [--warmup 1] [--threads 2] [--out idx.i32]
//       [--serve]
// Prints `median_ms=`, `min_ms=` and `runs=` lines; --out writes n*k int32.
// --serve (how bench_knn runs it): load the data, print `ready`, then answer
// each `run` line on stdin with one timed run (`ms=T`); on `quit` (or end of
// input) write --out from the last run and print `done`. No runs of its own.
#include <faiss/IndexFlat.h>
#include <cmath>
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define UMAP_IMPLEMENTATION /* knn_data.h writes through umap.h's umap_output */
#include "bench/knn_data.h"

namespace {

void usage() {
    std::fprintf(stderr,
                 "usage: faiss_knn --data X.f32 --n N --d D [--k 15] [--metric euclidean|cosine]\n"
                 "                 [--runs 5] [--warmup 1] [--threads 2] [--out idx.i32]\n");
    std::exit(2);
}

// one timed search: raw rows -> k indices per row (self dropped)
void search(const float *x, int64_t n, int64_t d, int k, bool cosine, int32_t *out) {
    std::vector<float> normed;
    const float *rows = x;
    if (cosine) {
        normed.assign(x, x + n * d);
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            float *r = normed.data() + i * d;
            double s = 0.0;
            for (int64_t j = 0; j < d; j++) s += (double)r[j] * r[j];
            if (s > 0.0) {
                float inv = (float)(1.0 / std::sqrt(s));
                for (int64_t j = 0; j < d; j++) r[j] *= inv;
            }
        }
        rows = normed.data();
    }
    std::vector<faiss::Index::idx_t> labels((size_t)(n * (k + 1)));
    std::vector<float> dist((size_t)(n * (k + 1)));
    if (cosine) {
        faiss::IndexFlatIP index(d);
        index.add(n, rows);
        index.search(n, rows, k + 1, dist.data(), labels.data());
        // similarities descend; negate so that ties are ordered like distances
        for (auto &v : dist) v = -v;
    } else {
        faiss::IndexFlatL2 index(d);
        index.add(n, rows);
        index.search(n, rows, k + 1, dist.data(), labels.data());
    }
    std::vector<int64_t> lab(labels.begin(), labels.end());
    knn_data_drop_self(lab.data(), dist.data(), n, k, out);
}

}  // namespace

int main(int argc, char **argv) {
    const char *data = nullptr, *outp = nullptr, *metric = "euclidean";
    int64_t n = 0, d = 0;
    int k = 15, runs = 5, warmup = 1, threads = 2;
    bool serve = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!std::strcmp(a, "--serve")) {
            serve = true;
            continue;
        }
        if (i + 1 >= argc) usage();
        if (!std::strcmp(a, "--data")) data = argv[++i];
        else if (!std::strcmp(a, "--n")) n = std::atoll(argv[++i]);
        else if (!std::strcmp(a, "--d")) d = std::atoll(argv[++i]);
        else if (!std::strcmp(a, "--k")) k = std::atoi(argv[++i]);
        else if (!std::strcmp(a, "--metric")) metric = argv[++i];
        else if (!std::strcmp(a, "--runs")) runs = std::atoi(argv[++i]);
        else if (!std::strcmp(a, "--warmup")) warmup = std::atoi(argv[++i]);
        else if (!std::strcmp(a, "--threads")) threads = std::atoi(argv[++i]);
        else if (!std::strcmp(a, "--out")) outp = argv[++i];
        else usage();
    }
    bool cosine = !std::strcmp(metric, "cosine");
    if (!data || n < 2 || d < 1 || k < 1 || k >= n || k > 1000 || runs < 1 || warmup < 0 || threads < 1 ||
        (!cosine && std::strcmp(metric, "euclidean")))
        usage();
    omp_set_num_threads(threads);

    std::vector<float> x((size_t)(n * d));
    if (knn_data_read(data, x.data(), x.size() * sizeof(float)) != 0) {
        std::fprintf(stderr, "faiss_knn: cannot read %lld x %lld floats from %s\n", (long long)n, (long long)d, data);
        return 1;
    }
    const char *ct = std::getenv("OPENBLAS_CORETYPE"), *ot = std::getenv("OPENBLAS_NUM_THREADS");
    std::printf("FAISS %d.%d.%d, %s, omp threads %d, OPENBLAS_CORETYPE=%s OPENBLAS_NUM_THREADS=%s\n",
                FAISS_VERSION_MAJOR, FAISS_VERSION_MINOR, FAISS_VERSION_PATCH,
                cosine ? "IndexFlatIP on normalised rows" : "IndexFlatL2", omp_get_max_threads(), ct ? ct : "(unset)",
                ot ? ot : "(unset)");
    std::fflush(stdout);

    std::vector<int32_t> idx((size_t)(n * k));
    std::vector<double> ms;
    if (serve) {
        char line[256];
        std::printf("ready\n");
        std::fflush(stdout);
        while (std::fgets(line, sizeof line, stdin) && std::strncmp(line, "quit", 4)) {
            if (std::strncmp(line, "run", 3)) continue;
            double t0 = knn_data_now_ms();
            search(x.data(), n, d, k, cosine, idx.data());
            std::printf("ms=%.3f\n", knn_data_now_ms() - t0);
            std::fflush(stdout);
        }
    } else {
        for (int r = 0; r < warmup + runs; r++) {
            double t0 = knn_data_now_ms();
            search(x.data(), n, d, k, cosine, idx.data());
            double t1 = knn_data_now_ms();
            if (r >= warmup) ms.push_back(t1 - t0);
        }
    }
    if (outp && knn_data_write(outp, idx.data(), idx.size() * sizeof(int32_t)) != 0) {
        std::fprintf(stderr, "faiss_knn: cannot write %s\n", outp);
        return 1;
    }
    if (serve) {
        std::printf("done\n");
        return 0;
    }
    double mn = knn_data_min(ms.data(), (int)ms.size());
    std::printf("median_ms=%.3f\nmin_ms=%.3f\nruns=%d\n", knn_data_median(ms.data(), (int)ms.size()), mn, runs);
    return 0;
}
