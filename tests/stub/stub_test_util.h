/* Helpers shared by the stub test programs (C99): the first OpenCL CPU device (the Intel CPU runtime,
 * found through OCL_ICD_VENDORS that ctest sets), buffers, a fixed-seed generator and checks that
 * print the failing line and exit 1. */
#ifndef XTC_STUB_TEST_UTIL_H
#define XTC_STUB_TEST_UTIL_H

#include "fx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                        \
  do {                                                          \
    if (!(cond)) {                                              \
      fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__);     \
      fprintf(stderr, __VA_ARGS__);                             \
      fprintf(stderr, "\n");                                    \
      exit(1);                                                  \
    }                                                           \
  } while (0)

/* rc must be `want`; prints both codes' names otherwise. */
#define EXPECT_RC(call, want)                                                                        \
  do {                                                                                               \
    int got_ = (int)(call);                                                                          \
    CHECK(got_ == (int)(want), "%s returned %d (%s), expected %d (%s)", #call, got_,                \
          fx_error_string(got_), (int)(want), fx_error_string((int)(want)));                         \
  } while (0)

static inline void open_cpu_device(cl_device_id* device, cl_context* context, cl_command_queue* queue) {
  cl_platform_id platforms[16];
  cl_uint n = 0, i;
  cl_int rc = clGetPlatformIDs(16, platforms, &n);
  CHECK(rc == CL_SUCCESS && n > 0, "no OpenCL platform (rc %d): is OCL_ICD_VENDORS set? run scripts/setup", rc);
  *device = NULL;
  for (i = 0; i < n && i < 16 && !*device; ++i)
    if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_CPU, 1, device, NULL) != CL_SUCCESS) *device = NULL;
  CHECK(*device != NULL, "no OpenCL CPU device among %u platforms (the Intel CPU runtime: scripts/setup)", n);
  *context = clCreateContext(NULL, 1, device, NULL, NULL, &rc);
  CHECK(rc == CL_SUCCESS, "clCreateContext: %d", rc);
  *queue = clCreateCommandQueueWithProperties(*context, *device, NULL, &rc);
  CHECK(rc == CL_SUCCESS, "clCreateCommandQueueWithProperties: %d", rc);
}

static inline cl_mem make_buffer(cl_context context, size_t bytes, const void* init) {
  cl_int rc;
  cl_mem m = clCreateBuffer(context, init ? (CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR) : CL_MEM_READ_WRITE, bytes,
                            (void*)init, &rc);
  CHECK(rc == CL_SUCCESS, "clCreateBuffer(%lu bytes): %d", (unsigned long)bytes, rc);
  return m;
}

static inline void read_buffer(cl_command_queue queue, cl_mem m, size_t bytes, void* out) {
  cl_int rc = clEnqueueReadBuffer(queue, m, CL_TRUE, 0, bytes, out, 0, NULL, NULL);
  CHECK(rc == CL_SUCCESS, "clEnqueueReadBuffer: %d", rc);
}

/* xorshift64*: deterministic, seeded per test. */
static inline uint64_t test_rng(uint64_t* s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * UINT64_C(2685821657736338717);
}
/* A non-zero integer in [-1000, 1000], as a float: sums and halves of these are exact in f32. */
static inline float test_small(uint64_t* s) {
  int v = (int)(test_rng(s) % 2000u) - 1000;
  return (float)(v >= 0 ? v + 1 : v);
}
/* bf16 bits of a finite value (exponent field not all ones). */
static inline uint16_t test_bf16(uint64_t* s) {
  uint16_t b = (uint16_t)test_rng(s);
  if ((b & 0x7F80u) == 0x7F80u) b = (uint16_t)(b & ~0x4000u);
  return b;
}

#endif
