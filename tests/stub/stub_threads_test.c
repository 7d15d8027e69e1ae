/* ctest stub-threads: four threads launch through one generated stub at the same time, on one shared
 * context with a queue each. They start together at a barrier, so the first launches race to build
 * the program (the cache must build it once and hand the same entry to all), and then interleave
 * argument setting on the same cl_kernel (the stub's per-entry lock must keep each thread's
 * arguments together: a mix-up shows as wrong results in another thread's buffers). POSIX threads. */
#include "stub_test_util.h"

#include <pthread.h>

#define THREADS 4
#define ROUNDS 25
#define N 700
#define COLS 32 /* widen is a pvc kernel: rows of at least 64 bytes (bf16: 32 columns) */

typedef struct {
  int id;
  cl_context context;
  cl_device_id device;
  pthread_barrier_t* start;
  int failures;
  char message[256];
} Worker;

static void* work(void* p) {
  Worker* w = (Worker*)p;
  uint64_t seed = 1000 + (uint64_t)w->id;
  float x[N], y[N], out[N];
  uint16_t s[4 * COLS];
  uint32_t d[4 * COLS];
  int i, r;
  cl_int rc;
  cl_command_queue q = clCreateCommandQueueWithProperties(w->context, w->device, NULL, &rc);
  cl_mem X, Y, S, D;
  if (rc != CL_SUCCESS) {
    snprintf(w->message, sizeof w->message, "thread %d: clCreateCommandQueueWithProperties %d", w->id, rc);
    w->failures = 1;
    pthread_barrier_wait(w->start);
    return NULL;
  }
  for (i = 0; i < N; ++i) {
    x[i] = test_small(&seed);
    y[i] = test_small(&seed);
  }
  for (i = 0; i < 4 * COLS; ++i) s[i] = test_bf16(&seed);
  X = make_buffer(w->context, sizeof x, x);
  Y = make_buffer(w->context, sizeof y, y);
  S = make_buffer(w->context, sizeof s, s);
  D = make_buffer(w->context, sizeof d, NULL);
  pthread_barrier_wait(w->start);
  /* Y += X, ROUNDS times (in order on this thread's queue), with a widen in between. */
  for (r = 0; r < ROUNDS && !w->failures; ++r) {
    rc = fx_axpy_cl(q, X, N, Y, N, 1.0f, 0, NULL, NULL);
    if (rc == CL_SUCCESS) rc = fx_widen_cl(q, S, COLS, D, COLS, 8, 0, NULL, NULL);
    if (rc != CL_SUCCESS) {
      snprintf(w->message, sizeof w->message, "thread %d round %d: %s", w->id, r, fx_error_string(rc));
      w->failures = 1;
    }
  }
  clFinish(q);
  read_buffer(q, Y, sizeof out, out);
  for (i = 0; i < N && !w->failures; ++i)
    if (out[i] != y[i] + (float)ROUNDS * x[i]) {
      snprintf(w->message, sizeof w->message, "thread %d: Y[%d] = %g, expected %g", w->id, i, out[i],
               y[i] + (float)ROUNDS * x[i]);
      w->failures = 1;
    }
  read_buffer(q, D, sizeof d, d);
  for (i = 0; i < 4 * COLS && !w->failures; ++i)
    if (d[i] != (uint32_t)s[i] << 16) {
      snprintf(w->message, sizeof w->message, "thread %d: D[%d] = %08x, expected %08x", w->id, i, (unsigned)d[i],
               (unsigned)s[i] << 16);
      w->failures = 1;
    }
  clReleaseMemObject(X);
  clReleaseMemObject(Y);
  clReleaseMemObject(S);
  clReleaseMemObject(D);
  clReleaseCommandQueue(q);
  return NULL;
}

int main(void) {
  cl_device_id device;
  cl_context context;
  cl_command_queue q0;
  pthread_t threads[THREADS];
  Worker workers[THREADS];
  pthread_barrier_t start;
  int i, failed = 0;
  open_cpu_device(&device, &context, &q0);
  CHECK(pthread_barrier_init(&start, NULL, THREADS) == 0, "pthread_barrier_init");
  for (i = 0; i < THREADS; ++i) {
    memset(&workers[i], 0, sizeof workers[i]);
    workers[i].id = i;
    workers[i].context = context;
    workers[i].device = device;
    workers[i].start = &start;
    CHECK(pthread_create(&threads[i], NULL, work, &workers[i]) == 0, "pthread_create");
  }
  for (i = 0; i < THREADS; ++i) {
    pthread_join(threads[i], NULL);
    if (workers[i].failures) {
      fprintf(stderr, "stub-threads: FAIL: %s\n", workers[i].message);
      failed = 1;
    }
  }
  pthread_barrier_destroy(&start);
  fx_release();
  clReleaseCommandQueue(q0);
  clReleaseContext(context);
  if (failed) return 1;
  printf("stub-threads: PASS (%d threads x %d rounds, one shared program)\n", THREADS, ROUNDS);
  return 0;
}
