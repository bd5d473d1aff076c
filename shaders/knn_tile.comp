#version 450
// knn_tile.comp - exact k-NN screening, one dispatch per (query window, data
// window) pair: squared euclidean distances from every query row to every
// data row of the windows, merged into running lists of the LIST_LEN nearest
// (distance, global index), ascending, ties by index.
//
// Workgroup (b, s) takes query rows 64 b .. 64 b + 63 and data slice s: the
// dispatch's data rows s * slice_rows .. (s + 1) * slice_rows - 1. Each query
// row keeps one list per slice (n_lists of them; the host merges them), so
// small problems still fill the device with workgroups.
//
// A 64 x 64 block of distances is register-blocked: 16 x 16 threads, thread
// (tx, ty) computing query rows 4 ty .. 4 ty + 3 against data rows 4 tx ..
// 4 tx + 3, the query and data columns staged through shared memory 16 at a
// time. Every thread then tests its 16 distances against their rows' bars
// (each list's last entry, kept in shared memory) and marks those that pass;
// threads 0..63 each merge one query row's marked candidates into its list,
// in place in memory. Once the lists fill, few pass. Each step's global
// loads are issued before the previous step's arithmetic, to hide their
// latency.
// Distances are summed directly as (q - x)^2 (not the Gram form): every term
// is non-negative, so the host can bound the rounding error of the sum
// relatively, whatever the order of summation (see umap_vk.h).
//
// The host fills the lists with (+inf, INT_MAX) before the first window.
// It may also cut a data window into chunks of rows, a dispatch each (on
// lavapipe, which ends any invocation's loops after 65535 iterations).

layout(local_size_x = 16, local_size_y = 16) in;

// the list length: the host builds one pipeline per length it needs
layout(constant_id = 0) const int LIST_LEN = 32;

layout(std430, binding = 0) readonly buffer QueryRows { float q[]; };
layout(std430, binding = 1) readonly buffer DataRows { float x[]; };
layout(std430, binding = 2) buffer ListDist { float list_d[]; };
layout(std430, binding = 3) buffer ListIndex { int list_i[]; };

layout(push_constant) uniform Params {
    int q_rows;     // query rows in this window
    int x_rows;     // data rows in this dispatch
    int dim;        // floats per row
    int q_first;    // global index of the query window's first row
    int x_first;    // global index of the dispatch's first data row
    int self_skip;  // 1: a query row never lists itself (self k-NN)
    int x_skip;     // rows of the data binding before the dispatch's first
    int n_lists;    // lists per query row (slices per dispatch)
    int slice_rows; // data rows per slice, a multiple of 64
} pc;

// Qs[c][r / 4][r % 4]: column c of query row r; Xs likewise for data rows.
// A thread reads its 4 rows of each side as one vec4 (2 shared loads per
// 32 arithmetic instructions, not 8).
// (one vec4 of padding per c: the loads' stores land on distinct banks)
shared vec4 Qs[16][17];
shared vec4 Xs[16][17];
shared float D[64][65];  // the block's distances, D[query row][data row]
shared float bar_d_s[64]; // each row's bar (its list's last entry), for the filter
shared int bar_i_s[64];
shared uint survivors[64][2]; // per row, the block's candidates that pass the bar

void main() {
    const int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y), tid = ty * 16 + tx;
    const int q0 = int(gl_WorkGroupID.x) * 64, s = int(gl_WorkGroupID.y);
    const int x_begin = s * pc.slice_rows, x_end = min(pc.x_rows, x_begin + pc.slice_rows);
    // the merging thread's list, for query row q0 + tid, stays in memory:
    // only its last entry (the bar a candidate must pass) lives in registers
    const bool owner = tid < 64 && q0 + tid < pc.q_rows;
    const int list0 = ((q0 + tid) * pc.n_lists + s) * LIST_LEN;
    const int me = pc.q_first + q0 + tid;
    float bar_d = owner ? list_d[list0 + LIST_LEN - 1] : -uintBitsToFloat(0x7f800000u); // -inf: nothing passes
    int bar_i = owner ? list_i[list0 + LIST_LEN - 1] : 0;
    if (tid < 64) { // read after the first step's barriers
        bar_d_s[tid] = bar_d;
        bar_i_s[tid] = bar_i;
        survivors[tid][0] = 0u;
        survivors[tid][1] = 0u;
    }

    // steps: (64-row data block, 16 columns), the next step's values loaded
    // into registers while this one computes
    const int n_c = (pc.dim + 15) / 16, n_steps = max(0, (x_end - x_begin + 63) / 64) * n_c;
    float pq[4], px[4];
    for (int l = 0; l < 4; l++) {
        const int e = tid + 256 * l, c = e % 16, r = e / 16, qr = q0 + r, xr = x_begin + r;
        pq[l] = (n_steps > 0 && qr < pc.q_rows && c < pc.dim) ? q[qr * pc.dim + c] : 0.0;
        px[l] = (n_steps > 0 && xr < x_end && c < pc.dim) ? x[(pc.x_skip + xr) * pc.dim + c] : 0.0;
    }
    float acc[4][4];
    for (int st = 0; st < n_steps; st++) {
        const int xb = x_begin + (st / n_c) * 64, cs = st % n_c;
        if (cs == 0)
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) acc[i][j] = 0.0;
        barrier(); // the last step is done reading Qs and Xs
        for (int l = 0; l < 4; l++) {
            const int e = tid + 256 * l, c = e % 16, r = e / 16;
            Qs[c][r >> 2][r & 3] = pq[l];
            Xs[c][r >> 2][r & 3] = px[l];
        }
        barrier();
        if (st + 1 < n_steps) {
            const int nxb = x_begin + ((st + 1) / n_c) * 64, nc0 = ((st + 1) % n_c) * 16;
            for (int l = 0; l < 4; l++) {
                const int e = tid + 256 * l, c = e % 16, r = e / 16, cc = nc0 + c, qr = q0 + r, xr = nxb + r;
                pq[l] = (qr < pc.q_rows && cc < pc.dim) ? q[qr * pc.dim + cc] : 0.0;
                px[l] = (xr < x_end && cc < pc.dim) ? x[(pc.x_skip + xr) * pc.dim + cc] : 0.0;
            }
        }
        for (int c = 0; c < 16; c++) {
            const vec4 a = Qs[c][ty], b = Xs[c][tx];
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) {
                    const float t = a[i] - b[j];
                    acc[i][j] += t * t;
                }
        }
        if (cs != n_c - 1) continue;
        // the block is done: every thread writes its distances to shared
        // memory and marks those that pass their row's bar; then each owner
        // merges its row's marked candidates (few, once the list is full).
        // D, the bars and the marks are next touched a whole block later,
        // after the barriers of its steps.
        const int n_here = min(64, x_end - xb);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                const int r = 4 * ty + i, col = 4 * tx + j, g = pc.x_first + xb + col;
                const float dd = acc[i][j];
                D[r][col] = dd;
                if (col < n_here && (dd < bar_d_s[r] || (dd == bar_d_s[r] && g < bar_i_s[r])))
                    atomicOr(survivors[r][col >> 5], 1u << uint(col & 31));
            }
        barrier();
        if (owner) {
            for (int h = 0; h < 2; h++) {
                uint bits = survivors[tid][h];
                while (bits != 0u) {
                    const int j = h * 32 + findLSB(bits);
                    bits &= bits - 1u;
                    const float dd = D[tid][j];
                    const int g = pc.x_first + xb + j;
                    if (dd > bar_d || (dd == bar_d && g >= bar_i)) continue;
                    if (pc.self_skip != 0 && g == me) continue;
                    int p = LIST_LEN - 1; // insertion: shift larger entries up
                    while (p > 0) {
                        const float pd = list_d[list0 + p - 1];
                        const int pi = list_i[list0 + p - 1];
                        if (!(pd > dd || (pd == dd && pi > g))) break;
                        list_d[list0 + p] = pd;
                        list_i[list0 + p] = pi;
                        p--;
                    }
                    list_d[list0 + p] = dd;
                    list_i[list0 + p] = g;
                    bar_d = list_d[list0 + LIST_LEN - 1];
                    bar_i = list_i[list0 + LIST_LEN - 1];
                }
            }
            bar_d_s[tid] = bar_d;
            bar_i_s[tid] = bar_i;
            survivors[tid][0] = 0u;
            survivors[tid][1] = 0u;
        }
    }
}
