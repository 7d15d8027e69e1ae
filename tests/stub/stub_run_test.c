/* ctest stub-run: the generated OpenCL launchers run the fixture kernels on the CPU device and the
 * results equal a plain C loop exactly (inputs are small integers / finite bf16 bits, so every
 * result is exact); the non-blocking variant with events, the blocking variant, several block sizes
 * of the launch rule, rebuild after fx_release, and a program whose build fails (fxbad: the error
 * code and the build log). */
#include "stub_test_util.h"
#include "fxbad.h"

#define N 1000
#define PAD 16
#define COLS 40

static void check_axpy(cl_command_queue q, cl_context context, uint64_t* seed, int blocking) {
  float x[N], y[N + PAD], out[N + PAD], a = 0.5f;
  int i;
  cl_mem X, Y;
  for (i = 0; i < N; ++i) x[i] = test_small(seed);
  for (i = 0; i < N + PAD; ++i) y[i] = test_small(seed);
  X = make_buffer(context, sizeof x, x);
  Y = make_buffer(context, sizeof y, y);
  if (blocking) {
    EXPECT_RC(fx_axpy_cl_sync(q, X, N, Y, N, a), CL_SUCCESS);
  } else {
    cl_event ev = NULL;
    EXPECT_RC(fx_axpy_cl(q, X, N, Y, N, a, 0, NULL, &ev), CL_SUCCESS);
    EXPECT_RC(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);
  }
  read_buffer(q, Y, sizeof out, out);
  for (i = 0; i < N; ++i) CHECK(out[i] == a * x[i] + y[i], "axpy Y[%d] = %g, expected %g", i, out[i], a * x[i] + y[i]);
  /* The grid covers N = 1000 with 16 workgroups of 64; the kernel guards i < X_dim0. */
  for (i = N; i < N + PAD; ++i) CHECK(out[i] == y[i], "axpy wrote Y[%d] beyond X_dim0", i);
  clReleaseMemObject(X);
  clReleaseMemObject(Y);
}

static void check_widen(cl_command_queue q, cl_context context, uint64_t* seed, int64_t bs) {
  uint16_t s[4 * COLS];
  uint32_t out[4 * COLS];
  int i;
  cl_mem S, D;
  for (i = 0; i < 4 * COLS; ++i) s[i] = test_bf16(seed);
  S = make_buffer(context, sizeof s, s);
  D = make_buffer(context, sizeof out, NULL);
  EXPECT_RC(fx_widen_cl_sync(q, S, COLS, D, COLS, bs), CL_SUCCESS);
  read_buffer(q, D, sizeof out, out);
  for (i = 0; i < 4 * COLS; ++i)
    CHECK(out[i] == (uint32_t)s[i] << 16, "widen (bs %lld) D[%d][%d] bits %08x, expected %08x", (long long)bs, i / COLS,
          i % COLS, (unsigned)out[i], (unsigned)s[i] << 16);
  clReleaseMemObject(S);
  clReleaseMemObject(D);
}

int main(void) {
  cl_device_id device;
  cl_context context;
  cl_command_queue q;
  uint64_t seed = 20240607;
  open_cpu_device(&device, &context, &q);

  check_axpy(q, context, &seed, 0);
  check_axpy(q, context, &seed, 1);
  check_widen(q, context, &seed, 16);
  check_widen(q, context, &seed, 5);  /* 8 workgroups per row, partly idle lanes */
  check_widen(q, context, &seed, 1);
  check_widen(q, context, &seed, 64); /* one workgroup per row covering all 40 columns */
  CHECK(fx_build_log(NULL, 0) == 0, "a build log exists although every build succeeded");

  /* Release drops the cache; the next launch builds again. */
  fx_release();
  check_axpy(q, context, &seed, 1);

  /* A program that fails to build: the launch returns the runtime's build error, the log is kept. */
  {
    float v[64] = {1.0f};
    char log[4096];
    size_t len;
    int rc;
    cl_mem X = make_buffer(context, sizeof v, v), Y = make_buffer(context, sizeof v, v);
    rc = fxbad_axpy_cl_sync(q, X, 64, Y, 64, 1.0f);
    CHECK(rc == CL_BUILD_PROGRAM_FAILURE, "fxbad launch returned %d (%s), expected CL_BUILD_PROGRAM_FAILURE", rc,
          fxbad_error_string(rc));
    len = fxbad_build_log(log, sizeof log);
    CHECK(len > 0 && strlen(log) == (len < sizeof log ? len : sizeof log - 1), "build log length %lu", (unsigned long)len);
    CHECK(strstr(log, "xtc_stub_test_undefined_function") != NULL, "the build log does not name the undefined function:\n%s",
          log);
    /* Not cached: a second launch fails the same way. */
    EXPECT_RC(fxbad_axpy_cl_sync(q, X, 64, Y, 64, 1.0f), CL_BUILD_PROGRAM_FAILURE);
    fxbad_release();
    CHECK(fxbad_build_log(NULL, 0) == 0, "fxbad_release kept the build log");
    clReleaseMemObject(X);
    clReleaseMemObject(Y);
  }

  fx_release();
  clReleaseCommandQueue(q);
  clReleaseContext(context);
  printf("stub-run: PASS\n");
  return 0;
}
