#version 450
// reduce.comp - sum, mean or max over any set of axes of a rank-4 (padded)
// tensor. Narrow (wide = 0): one invocation per output element walks its
// reduced elements in row-major order (the CPU's order), summing in float.
// Wide (long reductions): one workgroup per output element; thread t sums
// elements t, t + 256, ... and a fixed tree adds the 256 partial sums, so
// the result is still the same on every run, and no invocation loops over
// more than count / 256 elements (lavapipe ends loops after 65535
// iterations; GPUs get the parallelism).
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
    uint wide;
} pc;

shared float part_sum[256], part_max[256];
shared bool part_nan[256];

// the source offset of reduced element r of the output at base
uint element(uint base, uint r) {
    uint off = base, rr = r;
    for (int q = 3; q >= 0; q--) {
        if ((pc.axes & (1u << uint(q))) != 0u) {
            off += (rr % pc.dim[q]) * pc.stride[q];
            rr /= pc.dim[q];
        }
    }
    return off;
}

void main() {
    const uint o = pc.wide != 0u ? gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x
                                 : gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (o >= pc.n_out) return; // wide: uniform across the workgroup
    uint base = pc.src_base, rem = o;
    for (int q = 3; q >= 0; q--) {
        if ((pc.axes & (1u << uint(q))) == 0u) {
            base += (rem % pc.dim[q]) * pc.stride[q];
            rem /= pc.dim[q];
        }
    }
    float sum = 0.0, mx = uintBitsToFloat(0xff800000u);
    bool nan = false;
    const uint first = pc.wide != 0u ? gl_LocalInvocationID.x : 0u, step = pc.wide != 0u ? 256u : 1u;
    for (uint r = first; r < pc.count; r += step) {
        const float v = src[element(base, r)];
        sum += v;
        nan = nan || v != v;
        mx = v > mx ? v : mx;
    }
    if (pc.wide != 0u) {
        const uint t = gl_LocalInvocationID.x;
        part_sum[t] = sum;
        part_max[t] = mx;
        part_nan[t] = nan;
        barrier();
        for (uint w = 128u; w > 0u; w >>= 1) {
            if (t < w) {
                part_sum[t] += part_sum[t + w];
                part_max[t] = part_max[t + w] > part_max[t] ? part_max[t + w] : part_max[t];
                part_nan[t] = part_nan[t] || part_nan[t + w];
            }
            barrier();
        }
        if (t != 0u) return;
        sum = part_sum[0];
        mx = part_max[0];
        nan = part_nan[0];
    }
    float y = pc.op == 0u ? sum : pc.op == 1u ? sum / float(pc.count) : (nan ? uintBitsToFloat(0x7fc00000u) : mx);
    dst[pc.dst_base + o] = y;
}
