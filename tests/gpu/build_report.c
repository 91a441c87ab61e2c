/* build_report.c: builds OpenCL C files (concatenated in order) for the first GPU with the given
 * options and prints the build log, e.g. ptxas's registers and spills with -cl-nv-verbose on
 * NVIDIA. A lab tool for the H200 (issue 11: why a kernel variant is slower).
 * Usage: build_report "OPTIONS" FILE.cl... */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_all(const char *const *files, int count) {
    size_t size = 1, used = 0;
    char *text = malloc(size);
    for (int i = 0; i < count && text; i++) {
        FILE *f = fopen(files[i], "rb");
        if (!f) return perror(files[i]), free(text), NULL;
        char buf[65536];
        for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0; used += n) {
            char *grown = realloc(text, size += n);
            if (!grown) return fclose(f), free(text), NULL;
            memcpy((text = grown) + used, buf, n);
        }
        fclose(f);
    }
    if (text) text[used] = 0;
    return text;
}

int main(int argc, char **argv) {
    if (argc < 3) return fprintf(stderr, "usage: %s OPTIONS FILE.cl...\n", argv[0]), 2;
    char *source = read_all((const char *const *)argv + 2, argc - 2);
    cl_platform_id platforms[8];
    cl_uint np = 0;
    cl_device_id dev = NULL;
    clGetPlatformIDs(8, platforms, &np);
    for (cl_uint i = 0; i < np && !dev; i++)
        if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS)
            dev = NULL;
    if (!source || !dev) return fprintf(stderr, "no source or no GPU\n"), 1;
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    const char *texts[] = {source};
    cl_program prog = clCreateProgramWithSource(ctx, 1, texts, NULL, &err);
    cl_int built = clBuildProgram(prog, 1, &dev, argv[1], NULL, NULL);
    size_t len = 0;
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
    char *log = malloc(len + 1);
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL);
    log[len] = 0;
    printf("build %s (%d)\n%s\n", built == CL_SUCCESS ? "ok" : "FAILED", built, log);
    free(log);
    free(source);
    clReleaseProgram(prog);
    clReleaseContext(ctx);
    return built == CL_SUCCESS ? 0 : 1;
}
