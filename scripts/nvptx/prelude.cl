/* prelude.cl: the few OpenCL built-ins the offline NVIDIA compile check (check_tma_ptx.sh)
 * needs, defined on clang's NVPTX builtins: clang has no OpenCL library for nvptx, and NVIDIA's
 * own driver, which supplies them, is not on the machines that run the check. */
size_t __attribute__((overloadable)) get_local_id(uint d) {
    return d == 0   ? __nvvm_read_ptx_sreg_tid_x()
           : d == 1 ? __nvvm_read_ptx_sreg_tid_y()
                    : __nvvm_read_ptx_sreg_tid_z();
}
size_t __attribute__((overloadable)) get_group_id(uint d) {
    return d == 0   ? __nvvm_read_ptx_sreg_ctaid_x()
           : d == 1 ? __nvvm_read_ptx_sreg_ctaid_y()
                    : __nvvm_read_ptx_sreg_ctaid_z();
}
size_t __attribute__((overloadable)) get_local_size(uint d) {
    return d == 0   ? __nvvm_read_ptx_sreg_ntid_x()
           : d == 1 ? __nvvm_read_ptx_sreg_ntid_y()
                    : __nvvm_read_ptx_sreg_ntid_z();
}
size_t __attribute__((overloadable)) get_num_groups(uint d) {
    return d == 0   ? __nvvm_read_ptx_sreg_nctaid_x()
           : d == 1 ? __nvvm_read_ptx_sreg_nctaid_y()
                    : __nvvm_read_ptx_sreg_nctaid_z();
}
size_t __attribute__((overloadable)) get_global_id(uint d) {
    return get_group_id(d) * get_local_size(d) + get_local_id(d);
}
void __attribute__((overloadable)) barrier(cl_mem_fence_flags f) {
    (void)f;
    __syncthreads();
}
int __attribute__((overloadable)) min(int a, int b) {
    return a < b ? a : b;
}
long __attribute__((overloadable)) min(long a, long b) {
    return a < b ? a : b;
}
int __attribute__((overloadable)) clamp(int x, int lo, int hi) {
    return x < lo ? lo : x > hi ? hi : x;
}
/* cl/regblock.cl's vector loads (VLOAD 2) write each vector into the private array of the next
 * slice and read it back for the local stores. */
float4 __attribute__((overloadable)) vload4(size_t i, const float *p) {
    return (float4)(p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]);
}
double2 __attribute__((overloadable)) vload2(size_t i, const double *p) {
    return (double2)(p[2 * i], p[2 * i + 1]);
}
void __attribute__((overloadable)) vstore4(float4 v, size_t i, float *p) {
    p[4 * i] = v.x, p[4 * i + 1] = v.y, p[4 * i + 2] = v.z, p[4 * i + 3] = v.w;
}
void __attribute__((overloadable)) vstore2(double2 v, size_t i, double *p) {
    p[2 * i] = v.x, p[2 * i + 1] = v.y;
}
float __attribute__((overloadable)) fma(float a, float b, float c) {
    return __builtin_fmaf(a, b, c);
}
