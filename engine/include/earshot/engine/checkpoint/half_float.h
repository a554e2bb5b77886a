// Transitional: the half-float conversions live in the base library (earshot/base/half_float.h,
// namespace earshot::base). This header only keeps backend/cpu/cpu_whisper.cpp and
// tests/cuda_emulator/include/cuda_fp16.h building until they include the base header; then it
// goes.
#pragma once

#include "earshot/base/half_float.h"

namespace earshot::checkpoint {

using base::bf16_to_f32;
using base::f16_to_f32;
using base::f32_to_bf16;
using base::f32_to_f16;
using base::narrow_to_f16;

}  // namespace earshot::checkpoint
