/* install_demo: runs demo.xt's kernel square_add through the stub xtc_add_kernel generated (demo.h,
 * stub name = the source's base name) on the first OpenCL CPU device and checks Y = X * X + Y
 * exactly (small integers, fixed seed) at a size that is not a multiple of the 8x16 tiles. */
#include "demo.h"

#include <stdio.h>

#define M 19
#define N 37

int main(void) {
  cl_platform_id platforms[16];
  cl_uint np = 0, i;
  cl_device_id device = NULL;
  cl_context context;
  cl_command_queue q;
  cl_mem X, Y;
  cl_int rc;
  float x[M * N], y[M * N], out[M * N];
  unsigned seed = 7u;
  int k, bad = 0;
  for (k = 0; k < M * N; ++k) {
    seed = seed * 1103515245u + 12345u;
    x[k] = (float)((int)((seed >> 16) % 41u) - 20);
    seed = seed * 1103515245u + 12345u;
    y[k] = (float)((int)((seed >> 16) % 101u) - 50) + 0.5f;
  }
  if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS) np = 0;
  for (i = 0; i < np && i < 16 && !device; ++i)
    if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_CPU, 1, &device, NULL) != CL_SUCCESS) device = NULL;
  if (!device) {
    fprintf(stderr, "install_demo: no OpenCL CPU device\n");
    return 1;
  }
  context = clCreateContext(NULL, 1, &device, NULL, NULL, &rc);
  q = clCreateCommandQueueWithProperties(context, device, NULL, &rc);
  X = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, sizeof x, x, &rc);
  Y = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, sizeof y, y, &rc);
  rc = demo_square_add_cl_sync(q, X, M, N, Y, M, N);
  if (rc != CL_SUCCESS) {
    fprintf(stderr, "install_demo: demo_square_add_cl_sync: %s\n", demo_error_string(rc));
    return 1;
  }
  clEnqueueReadBuffer(q, Y, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
  for (k = 0; k < M * N; ++k)
    if (out[k] != x[k] * x[k] + y[k] && bad++ < 5)
      fprintf(stderr, "install_demo: Y[%d] = %g, expected %g\n", k, out[k], x[k] * x[k] + y[k]);
  demo_release();
  clReleaseMemObject(X);
  clReleaseMemObject(Y);
  clReleaseCommandQueue(q);
  clReleaseContext(context);
  if (bad) return 1;
  printf("install_demo: PASS (%d elements)\n", M * N);
  return 0;
}
