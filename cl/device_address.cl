/* device_address.cl: a buffer's device address, as the kernels see it (src/exec/device_address.c):
 * the tensor maps of Hopper's bulk copies name operands by it. */
__kernel void clgemm_device_address(__global ulong *out, __global const uchar *buffer) {
    out[0] = (ulong)buffer;
}
