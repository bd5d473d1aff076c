#version 450
// gather.comp - rows of x by index: y[m, j] = x[idx[m], j] (indices are
// checked on the host before the dispatch). scatter_add runs as the same
// kernel in its other mode: each output element adds its own contributions,
// listed by the host in index order (a CSR of the indices), so the sums are
// deterministic and in the CPU's order.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Src { float x[]; };
layout(std430, binding = 1) readonly buffer Index { int ix[]; };
layout(std430, binding = 2) writeonly buffer Dst { float y[]; };

layout(push_constant) uniform Params {
    uint mode;      // 0 gather, 1 scatter_add
    uint row;       // floats per row
    uint n_out_rows;
    uint list_base; // scatter: ix[0 .. n_out_rows] are offsets, then the source rows
} pc;

void main() {
    const uint e = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (e >= pc.n_out_rows * pc.row) return;
    const uint r = e / pc.row, j = e % pc.row;
    if (pc.mode == 0u) {
        y[e] = x[uint(ix[r]) * pc.row + j];
    } else {
        float s = 0.0;
        const uint b = uint(ix[r]), t = uint(ix[r + 1u]);
        for (uint q = b; q < t; q++) s += x[uint(ix[pc.list_base + q]) * pc.row + j];
        y[e] = s;
    }
}
