// Typed FFI handlers the e2e tests build with the host's C++ compiler against jaxlib's own FFI headers
// (jax.ffi.include_dir()) and register from Python for the platform under test.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

// y = x / sqrt(mean(x^2 over the last axis) + eps), row by row.
static ffi::Error RmsNormImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  auto dims = x.dimensions();
  if (dims.size() == 0) return ffi::Error::InvalidArgument("rms_norm: x must have rank >= 1");
  const int64_t n = dims.back();
  const int64_t rows = n == 0 ? 0 : static_cast<int64_t>(x.element_count()) / n;
  const float* in = x.typed_data();
  float* out = y->typed_data();
  for (int64_t r = 0; r < rows; ++r) {
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) sum += in[r * n + i] * in[r * n + i];
    const float k = 1.0f / std::sqrt(sum / static_cast<float>(n) + eps);
    for (int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * k;
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(ApuTestRmsNorm, RmsNormImpl,
                              ffi::Ffi::Bind()
                                  .Attr<float>("eps")
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

// Reports its attributes as numbers: [n, scale, len(name), sum(offsets), flag, small].
static ffi::Error AttrsImpl(int32_t n, double scale, std::string_view name, ffi::Span<const int64_t> offsets,
                            bool flag, int16_t small, ffi::ResultBuffer<ffi::F32> out) {
  float* o = out->typed_data();
  if (out->element_count() != 6) return ffi::Error::InvalidArgument("attrs: the result must have 6 elements");
  int64_t total = 0;
  for (int64_t v : offsets) total += v;
  o[0] = static_cast<float>(n);
  o[1] = static_cast<float>(scale);
  o[2] = static_cast<float>(name.size());
  o[3] = static_cast<float>(total);
  o[4] = flag ? 1.0f : 0.0f;
  o[5] = static_cast<float>(small);
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(ApuTestAttrs, AttrsImpl,
                              ffi::Ffi::Bind()
                                  .Attr<int32_t>("n")
                                  .Attr<double>("scale")
                                  .Attr<std::string_view>("name")
                                  .Attr<ffi::Span<const int64_t>>("offsets")
                                  .Attr<bool>("flag")
                                  .Attr<int16_t>("small")
                                  .Ret<ffi::Buffer<ffi::F32>>());

// Two results of any element type: x + x (same dtype as x) and the element count as an s32 scalar.
static ffi::Error DoubleAndCountImpl(ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> doubled,
                                     ffi::ResultBuffer<ffi::S32> count) {
  const size_t n = x.element_count();
  switch (x.element_type()) {
    case ffi::DataType::F32: {
      const float* in = x.typed_data<float>();
      float* out = doubled->typed_data<float>();
      for (size_t i = 0; i < n; ++i) out[i] = in[i] + in[i];
      break;
    }
    case ffi::DataType::S32: {
      const int32_t* in = x.typed_data<int32_t>();
      int32_t* out = doubled->typed_data<int32_t>();
      for (size_t i = 0; i < n; ++i) out[i] = in[i] + in[i];
      break;
    }
    default:
      return ffi::Error::InvalidArgument("double_and_count: only f32 and s32 inputs");
  }
  count->typed_data()[0] = static_cast<int32_t>(n);
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(ApuTestDoubleAndCount, DoubleAndCountImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::Buffer<ffi::S32>>());

// Fails when any input element is negative, with a message naming the first one.
static ffi::Error CheckedSqrtImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  const float* in = x.typed_data();
  float* out = y->typed_data();
  for (size_t i = 0; i < x.element_count(); ++i) {
    if (in[i] < 0.0f) {
      return ffi::Error::InvalidArgument("checked_sqrt: negative input at index " + std::to_string(i));
    }
    out[i] = std::sqrt(in[i]);
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(ApuTestCheckedSqrt, CheckedSqrtImpl,
                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

// Adds `x` into `acc` in place: the result aliases operand 0 (input_output_aliases={0: 0}), so it starts
// holding acc; the handler reads the running sum from its result buffer, not from operand 0.
static ffi::Error AccumulateImpl(ffi::Buffer<ffi::F32> acc, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> out) {
  if (acc.element_count() != x.element_count()) return ffi::Error::InvalidArgument("accumulate: sizes differ");
  const float* in = x.typed_data();
  float* o = out->typed_data();
  for (size_t i = 0; i < x.element_count(); ++i) o[i] += in[i];
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(ApuTestAccumulate, AccumulateImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());
