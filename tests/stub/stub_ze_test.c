/* ctest stub-level-zero: the generated Level Zero launchers compile and link against the loader
 * (-lze_loader) and fail cleanly where no Level Zero driver exists (this machine, CI): zeInit
 * reports it (a named code), and null handles and bad arguments give the documented codes without
 * any runtime call. (Without a driver there is no context, so no launch can go further.) */
#include "stub_test_util.h"

int main(void) {
  /* Stand-ins for handles: never dereferenced by the checks that run before the runtime is called. */
  static int dummy[3];
  ze_context_handle_t ctx = (ze_context_handle_t)(void*)&dummy[0];
  ze_device_handle_t dev = (ze_device_handle_t)(void*)&dummy[1];
  ze_command_list_handle_t list = (ze_command_list_handle_t)(void*)&dummy[2];
  static float X[64], Y[64];
  static uint16_t S[4 * 64];
  static float D[4 * 64];
  uint32_t drivers = 0;
  ze_result_t init = ZE_RESULT_ERROR_UNINITIALIZED;
  if (getenv("XTC_STUB_TEST_SKIP_ZEINIT")) {
    printf("zeInit skipped (sanitizer build: the loader dlopens drivers with RTLD_DEEPBIND, which ASan rejects)\n");
  } else {
    init = zeInit(0);
    if (init == ZE_RESULT_SUCCESS) zeDriverGet(&drivers, NULL);
    printf("zeInit: %s; %u driver(s)\n", fx_error_string((int)init), drivers);
  }

  EXPECT_RC(fx_axpy_ze(NULL, dev, list, X, 64, Y, 64, 1.0f, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_RC(fx_axpy_ze(ctx, NULL, list, X, 64, Y, 64, 1.0f, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_RC(fx_axpy_ze(ctx, dev, NULL, X, 64, Y, 64, 1.0f, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_RC(fx_axpy_ze_sync(NULL, NULL, X, 64, Y, 64, 1.0f), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_RC(fx_axpy_ze(ctx, dev, list, NULL, 64, Y, 64, 1.0f, NULL, 0, NULL), XTC_STUB_ERROR_NULL_BUFFER);
  EXPECT_RC(fx_axpy_ze_sync(ctx, dev, X, -3, Y, 64, 1.0f), XTC_STUB_ERROR_NEGATIVE_SIZE);
  EXPECT_RC(fx_widen_ze_sync(ctx, dev, S, 12, D, 16, 16), XTC_STUB_ERROR_BAD_PITCH);
  EXPECT_RC(fx_widen_ze_sync(ctx, dev, S, 64, D, 64, 0), XTC_STUB_ERROR_LAUNCH_RULE);
  EXPECT_RC(fx_widen_ze_sync(ctx, dev, S, 64, D, 64, -2), XTC_STUB_ERROR_NEGATIVE_GRID);
  /* widen's memrefs are 2D block IO surfaces on pvc: their bases must be 64-byte aligned. */
  {
    static uint16_t Sbig[4 * 64 + 64];
    uint16_t* Sa = (uint16_t*)(((uintptr_t)Sbig + 63u) & ~(uintptr_t)63u);
    EXPECT_RC(fx_widen_ze_sync(ctx, dev, Sa + 1, 64, D, 64, 16), XTC_STUB_ERROR_BAD_ALIGNMENT);
    EXPECT_RC(fx_widen_ze_sync(ctx, dev, Sa + 8, 64, D, 64, 16), XTC_STUB_ERROR_BAD_ALIGNMENT); /* 16 B: not 64 */
  }
  /* 2^32 workgroups (axpy: 64 elements each) do not fit Level Zero's 32-bit group counts. (widen's
   * rows can no longer be that long: at most 2^24 bytes, XTC_STUB_ERROR_BAD_WIDTH.) */
  EXPECT_RC(fx_axpy_ze_sync(ctx, dev, X, INT64_C(1) << 38, Y, INT64_C(1) << 38, 1.0f), XTC_STUB_ERROR_GRID_TOO_LARGE);
  EXPECT_RC(fx_widen_ze_sync(ctx, dev, S, INT64_C(1) << 33, D, INT64_C(1) << 33, 1), XTC_STUB_ERROR_BAD_WIDTH);

  /* Nothing above called the runtime (the handles are stand-ins the loader would dereference): the
   * checks come before any Level Zero call, in the documented order. */
  CHECK(init == ZE_RESULT_SUCCESS || strncmp(fx_error_string((int)init), "ZE_RESULT_", 10) == 0,
        "zeInit returned an unnamed code %d", (int)init);
  fx_release();
  printf("stub-level-zero: PASS\n");
  return 0;
}
