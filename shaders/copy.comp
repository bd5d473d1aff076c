#version 450
// copy.comp - data movement of 32-bit words: dst[dst_base + sum idx_q *
// dst_stride_q] = src[src_base + sum idx_q * src_stride_q] over a rank-4
// iteration shape. Permute, broadcast, slice, reshape and each part of a
// concat are this one kernel with other strides.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, binding = 1) buffer Dst { uint dst[]; };

layout(push_constant) uniform Params {
    uint dim[4];
    uint src_stride[4];
    uint dst_stride[4];
    uint src_base, dst_base, count;
} pc;

void main() {
    const uint e = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (e >= pc.count) return;
    uint s = pc.src_base, d = pc.dst_base, rem = e;
    for (int q = 3; q >= 0; q--) {
        const uint i = rem % pc.dim[q];
        rem /= pc.dim[q];
        s += i * pc.src_stride[q];
        d += i * pc.dst_stride[q];
    }
    dst[d] = src[s];
}
