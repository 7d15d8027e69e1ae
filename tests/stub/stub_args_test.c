/* ctest stub-args: the generated OpenCL launchers (tests/stub fixture: axpy, widen) reject bad
 * arguments with the documented codes before anything runs, and accept the edge cases that are
 * valid (an empty grid, buffers larger than needed). */
#include "stub_test_util.h"

int main(void) {
  cl_device_id device;
  cl_context context;
  cl_command_queue q;
  int64_t g[3] = {0, 0, 0};
  float y_host[100], y_after[100];
  uint64_t seed = 11;
  int i;
  cl_mem X, Y, S, D, S3;
  open_cpu_device(&device, &context, &q);
  for (i = 0; i < 100; ++i) y_host[i] = test_small(&seed);
  X = make_buffer(context, 100 * sizeof(float), y_host);
  Y = make_buffer(context, 100 * sizeof(float), y_host);
  S = make_buffer(context, 4 * 64 * 2, NULL);
  D = make_buffer(context, 4 * 64 * 4, NULL);
  S3 = make_buffer(context, 3 * 64 * 2, NULL); /* one row short of memref<4x64xbf16> */

  /* Null handles and buffers. */
  EXPECT_RC(fx_axpy_cl(NULL, X, 100, Y, 100, 1.0f, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
  EXPECT_RC(fx_axpy_cl(q, NULL, 100, Y, 100, 1.0f, 0, NULL, NULL), XTC_STUB_ERROR_NULL_BUFFER);
  EXPECT_RC(fx_axpy_cl_sync(q, X, 100, NULL, 100, 1.0f), XTC_STUB_ERROR_NULL_BUFFER);
  /* Sizes. */
  EXPECT_RC(fx_axpy_cl(q, X, -1, Y, 100, 1.0f, 0, NULL, NULL), XTC_STUB_ERROR_NEGATIVE_SIZE);
  EXPECT_RC(fx_axpy_cl_sync(q, X, 100, Y, -5, 1.0f), XTC_STUB_ERROR_NEGATIVE_SIZE);
  EXPECT_RC(fx_axpy_cl_sync(q, X, INT64_MAX / 2, Y, 100, 1.0f), XTC_STUB_ERROR_SIZE_OVERFLOW);
  EXPECT_RC(fx_axpy_cl_sync(q, X, 101, Y, 100, 1.0f), XTC_STUB_ERROR_BUFFER_TOO_SMALL);
  EXPECT_RC(fx_axpy_cl_sync(q, X, 100, Y, 101, 1.0f), XTC_STUB_ERROR_BUFFER_TOO_SMALL);
  /* The static dimension (4 rows) counts: 3 rows of storage are too few. */
  EXPECT_RC(fx_widen_cl_sync(q, S3, 64, D, 64, 16), XTC_STUB_ERROR_BUFFER_TOO_SMALL);
  /* widen is a pvc kernel: rows must be multiples of 16 bytes (bf16: 8 elements, f32: 4). */
  EXPECT_RC(fx_widen_cl_sync(q, S, 12, D, 16, 16), XTC_STUB_ERROR_BAD_PITCH);
  EXPECT_RC(fx_widen_cl_sync(q, S, 64, D, 6, 16), XTC_STUB_ERROR_BAD_PITCH);
  /* ... and 64 bytes to 2^24 long: S of 16 bf16 (32 bytes), D of 8 f32 (32 bytes), S of 2^23 + 8
   * bf16 (2^24 + 16 bytes; refused before the buffer size is looked at); 32 bf16 and 16 f32 (64
   * bytes) are the shortest rows taken. */
  EXPECT_RC(fx_widen_cl_sync(q, S, 16, D, 16, 16), XTC_STUB_ERROR_BAD_WIDTH);
  EXPECT_RC(fx_widen_cl_sync(q, S, 64, D, 8, 16), XTC_STUB_ERROR_BAD_WIDTH);
  EXPECT_RC(fx_widen_cl_sync(q, S, (INT64_C(1) << 23) + 8, D, 64, 16), XTC_STUB_ERROR_BAD_WIDTH);
  EXPECT_RC(fx_widen_grid(32, 16, 16, g), 0);
  /* The launch rule ceildiv(S_dim1, bs): bs = 0 divides by zero, bs < 0 gives a negative grid. */
  EXPECT_RC(fx_widen_cl_sync(q, S, 64, D, 64, 0), XTC_STUB_ERROR_LAUNCH_RULE);
  EXPECT_RC(fx_widen_cl_sync(q, S, 64, D, 64, -1), XTC_STUB_ERROR_NEGATIVE_GRID);
  EXPECT_RC(fx_widen_grid(64, 64, 0, g), XTC_STUB_ERROR_LAUNCH_RULE);
  EXPECT_RC(fx_widen_grid(64, 64, 16, NULL), XTC_STUB_ERROR_NULL_BUFFER);
  /* Nothing above touched Y. */
  read_buffer(q, Y, sizeof y_after, y_after);
  CHECK(memcmp(y_host, y_after, sizeof y_host) == 0, "a rejected launch wrote Y");

  /* Valid edge cases: the grid function, an empty grid (a marker, event still valid), larger buffers. */
  EXPECT_RC(fx_widen_grid(64, 64, 16, g), 0);
  CHECK(g[0] == 4 && g[1] == 4 && g[2] == 1, "widen grid (64, bs 16) = (%lld, %lld, %lld), expected (4, 4, 1)",
        (long long)g[0], (long long)g[1], (long long)g[2]);
  EXPECT_RC(fx_axpy_grid(129, 0, 2.0f, g), 0);
  CHECK(g[0] == 3 && g[1] == 1 && g[2] == 1, "axpy grid (129) = (%lld, %lld, %lld), expected (3, 1, 1)",
        (long long)g[0], (long long)g[1], (long long)g[2]);
  {
    cl_event ev = NULL;
    cl_int status = -1;
    EXPECT_RC(fx_axpy_cl(q, X, 0, Y, 0, 2.0f, 0, NULL, &ev), CL_SUCCESS);
    CHECK(ev != NULL, "no event for an empty launch");
    EXPECT_RC(clWaitForEvents(1, &ev), CL_SUCCESS);
    EXPECT_RC(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL), CL_SUCCESS);
    CHECK(status == CL_COMPLETE, "empty launch event status %d", status);
    clReleaseEvent(ev);
  }
  read_buffer(q, Y, sizeof y_after, y_after);
  CHECK(memcmp(y_host, y_after, sizeof y_host) == 0, "an empty launch wrote Y");
  EXPECT_RC(fx_axpy_cl_sync(q, X, 50, Y, 50, 0.0f), CL_SUCCESS); /* buffers of 100 hold 50 */
  /* 2D block IO needs 64-byte aligned bases: a sub-buffer adds its offset. The runtime only creates
   * sub-buffers at multiples of CL_DEVICE_MEM_BASE_ADDR_ALIGN (>= 64 bytes here), so the aligned case
   * runs; the misaligned one is checked through Level Zero pointers (stub-level-zero). */
  {
    cl_uint align_bits = 0;
    cl_buffer_region region;
    cl_mem big, sub;
    cl_int rc;
    EXPECT_RC(clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL), CL_SUCCESS);
    CHECK(align_bits >= 512 && align_bits % 512 == 0, "CL_DEVICE_MEM_BASE_ADDR_ALIGN %u bits", align_bits);
    region.origin = align_bits / 8;
    region.size = 4 * 64 * 2;
    big = make_buffer(context, region.origin + region.size, NULL);
    sub = clCreateSubBuffer(big, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &rc);
    EXPECT_RC(rc, CL_SUCCESS);
    EXPECT_RC(fx_widen_cl_sync(q, sub, 64, D, 64, 16), CL_SUCCESS);
    clReleaseMemObject(sub);
    clReleaseMemObject(big);
  }

  /* Every code has a name. */
  CHECK(strncmp(fx_error_string(XTC_STUB_ERROR_BAD_PITCH), "XTC_STUB_ERROR_BAD_PITCH: ", 26) == 0, "%s",
        fx_error_string(XTC_STUB_ERROR_BAD_PITCH));
  CHECK(strncmp(fx_error_string(XTC_STUB_ERROR_BAD_WIDTH), "XTC_STUB_ERROR_BAD_WIDTH: ", 26) == 0, "%s",
        fx_error_string(XTC_STUB_ERROR_BAD_WIDTH));
  CHECK(strcmp(fx_error_string(CL_INVALID_KERNEL_ARGS), "CL_INVALID_KERNEL_ARGS") == 0, "%s",
        fx_error_string(CL_INVALID_KERNEL_ARGS));
  CHECK(strcmp(fx_error_string(-9999), "unknown error code") == 0, "%s", fx_error_string(-9999));

  fx_release();
  clReleaseMemObject(X);
  clReleaseMemObject(Y);
  clReleaseMemObject(S);
  clReleaseMemObject(D);
  clReleaseMemObject(S3);
  clReleaseCommandQueue(q);
  clReleaseContext(context);
  printf("stub-args: PASS\n");
  return 0;
}
