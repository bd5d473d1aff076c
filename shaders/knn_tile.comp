#version 450
// knn_tile.comp - exact k-NN screening, one dispatch per (query window, data
// window) pair: squared euclidean distances from every query row to every
// data row of the windows, merged into each query row's running list of its
// LIST_LEN nearest (distance, global index), ascending, ties by index.
//
// A workgroup takes 64 query rows; it walks the data window 64 rows at a
// time, staging each 64 x 16 slice in shared memory, so each data value is
// read from memory once per workgroup. Distances are summed directly as
// (q - x)^2 (not the Gram form): every term is non-negative, so the host can
// bound the rounding error of the sum relatively (see umap_vk.h).
//
// The host fills the lists with (+inf, INT_MAX) before the first window.
// It may also cut a data window into chunks of rows, a dispatch each (on
// lavapipe, which ends any invocation's loops after 65535 iterations).

layout(local_size_x = 64) in;

// the list length: the host builds one pipeline per length it needs
layout(constant_id = 0) const int LIST_LEN = 32;

layout(std430, binding = 0) readonly buffer QueryRows { float q[]; };
layout(std430, binding = 1) readonly buffer DataRows { float x[]; };
layout(std430, binding = 2) buffer ListDist { float list_d[]; };
layout(std430, binding = 3) buffer ListIndex { int list_i[]; };

layout(push_constant) uniform Params {
    int q_rows;    // query rows in this window
    int x_rows;    // data rows in this window
    int dim;       // floats per row
    int q_first;   // global index of the query window's first row
    int x_first;   // global index of the data window's first row
    int self_skip; // 1: a query row never lists itself (self k-NN)
    int x_skip;    // rows of the data binding before this dispatch's first
} pc;

shared float tile[64][17]; // 64 data rows x 16 columns (+1 against bank conflicts)

void main() {
    const int lane = int(gl_LocalInvocationID.x);
    const int row = int(gl_WorkGroupID.x) * 64 + lane;
    const bool live = row < pc.q_rows;
    float best_d[LIST_LEN];
    int best_i[LIST_LEN];
    for (int t = 0; t < LIST_LEN; t++) {
        best_d[t] = live ? list_d[row * LIST_LEN + t] : 0.0;
        best_i[t] = live ? list_i[row * LIST_LEN + t] : 0;
    }
    const int me = pc.q_first + row;

    for (int x0 = 0; x0 < pc.x_rows; x0 += 64) {
        float acc[64];
        for (int j = 0; j < 64; j++) acc[j] = 0.0;
        for (int c0 = 0; c0 < pc.dim; c0 += 16) {
            barrier();
            const int xr = x0 + lane;
            for (int c = 0; c < 16; c++) {
                const int cc = c0 + c;
                tile[lane][c] = (xr < pc.x_rows && cc < pc.dim) ? x[(pc.x_skip + xr) * pc.dim + cc] : 0.0;
            }
            barrier();
            if (live) {
                float qv[16];
                for (int c = 0; c < 16; c++) {
                    const int cc = c0 + c;
                    qv[c] = cc < pc.dim ? q[row * pc.dim + cc] : 0.0;
                }
                for (int j = 0; j < 64; j++) {
                    float s = acc[j];
                    for (int c = 0; c < 16; c++) {
                        const float t = qv[c] - tile[j][c];
                        s += t * t;
                    }
                    acc[j] = s;
                }
            }
        }
        if (!live) continue;
        const int n_here = min(64, pc.x_rows - x0);
        for (int j = 0; j < n_here; j++) {
            const int g = pc.x_first + x0 + j;
            const float dd = acc[j];
            if (pc.self_skip != 0 && g == me) continue;
            if (dd > best_d[LIST_LEN - 1] || (dd == best_d[LIST_LEN - 1] && g >= best_i[LIST_LEN - 1])) continue;
            int p = LIST_LEN - 1; // insertion: shift larger entries up
            while (p > 0 && (best_d[p - 1] > dd || (best_d[p - 1] == dd && best_i[p - 1] > g))) {
                best_d[p] = best_d[p - 1];
                best_i[p] = best_i[p - 1];
                p--;
            }
            best_d[p] = dd;
            best_i[p] = g;
        }
    }
    if (live) {
        for (int t = 0; t < LIST_LEN; t++) {
            list_d[row * LIST_LEN + t] = best_d[t];
            list_i[row * LIST_LEN + t] = best_i[t];
        }
    }
}
