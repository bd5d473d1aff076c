#version 450
// reduce.comp - sum, mean or max over any set of axes of a rank-4 (padded)
// tensor: one invocation per output element walks its reduced elements in
// row-major order (the CPU's order), summing in float.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Src { float src[]; };
layout(std430, binding = 1) writeonly buffer Dst { float dst[]; };

layout(push_constant) uniform Params {
    uint dim[4];      // input shape, padded
    uint stride[4];   // input strides
    uint axes;        // bit q: axis q is reduced
    uint n_out, count;
    uint op;          // 0 sum, 1 mean, 2 max
    uint src_base, dst_base;
} pc;

void main() {
    const uint o = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (o >= pc.n_out) return;
    uint base = pc.src_base, rem = o;
    for (int q = 3; q >= 0; q--) {
        if ((pc.axes & (1u << uint(q))) == 0u) {
            base += (rem % pc.dim[q]) * pc.stride[q];
            rem /= pc.dim[q];
        }
    }
    float sum = 0.0, mx = uintBitsToFloat(0xff800000u);
    bool nan = false;
    for (uint r = 0u; r < pc.count; r++) {
        uint off = base, rr = r;
        for (int q = 3; q >= 0; q--) {
            if ((pc.axes & (1u << uint(q))) != 0u) {
                off += (rr % pc.dim[q]) * pc.stride[q];
                rr /= pc.dim[q];
            }
        }
        const float v = src[off];
        sum += v;
        nan = nan || v != v;
        mx = v > mx ? v : mx;
    }
    float y = pc.op == 0u ? sum : pc.op == 1u ? sum / float(pc.count) : (nan ? uintBitsToFloat(0x7fc00000u) : mx);
    dst[pc.dst_base + o] = y;
}
