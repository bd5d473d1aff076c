#version 450
// gather.comp - rows of x by index: y[m, j] = x[idx[m], j]. scatter_add
// runs as the same kernel in its other modes: each output element adds its
// own contributions in index order, so the sums are deterministic and in the
// CPU's order: mode 1 reads them from a list the host built (a CSR of the
// indices), mode 2 (indices computed on the device) scans every index.
// Indices are checked on the host where it has them; an index out of range
// is skipped here (a gather row reads 0), never read out of bounds.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Src { float x[]; };
layout(std430, binding = 1) readonly buffer Index { int ix[]; };
layout(std430, binding = 2) writeonly buffer Dst { float y[]; };

layout(push_constant) uniform Params {
    uint mode;      // 0 gather, 1 scatter_add from a list, 2 scatter_add by scanning
    uint row;       // floats per row
    uint n_out_rows;
    uint list_base; // mode 1: ix[ix_base ..] holds n_out_rows + 1 offsets, the source rows from here
    uint x_base, ix_base, y_base;
    uint n_idx;     // indices (gather: = n_out_rows)
    uint n_x_rows;  // rows of x (gather's bound)
} pc;

void main() {
    const uint e = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (e >= pc.n_out_rows * pc.row) return;
    const uint r = e / pc.row, j = e % pc.row;
    if (pc.mode == 0u) {
        const int i = ix[pc.ix_base + r];
        y[pc.y_base + e] = (i >= 0 && uint(i) < pc.n_x_rows) ? x[pc.x_base + uint(i) * pc.row + j] : 0.0;
    } else if (pc.mode == 1u) {
        float s = 0.0;
        const uint b = uint(ix[pc.ix_base + r]), t = uint(ix[pc.ix_base + r + 1u]);
        for (uint q = b; q < t; q++) s += x[pc.x_base + uint(ix[pc.list_base + q]) * pc.row + j];
        y[pc.y_base + e] = s;
    } else {
        float s = 0.0;
        for (uint m = 0u; m < pc.n_idx; m++)
            if (ix[pc.ix_base + m] == int(r)) s += x[pc.x_base + m * pc.row + j];
        y[pc.y_base + e] = s;
    }
}
