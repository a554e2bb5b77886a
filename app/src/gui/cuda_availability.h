// What the GUI says about CUDA: the first device's description when one can run the model, else
// the precise reason there is none, as the plain data the Settings dialog takes.
#pragma once

#include "earshot/ui/settings/cuda_availability.h"

namespace earshot::app {

// Asks the engine (loading the CUDA module on first use); never throws.
ui::CudaAvailability cuda_availability();

}  // namespace earshot::app
