// CudaAvailability: whether the CUDA backend can run here, as plain text the app hands the
// Settings dialog (the UI never asks the engine itself).
#pragma once

#include <QString>

namespace earshot::ui {

struct CudaAvailability {
    bool available = false;
    // available: the device ("NVIDIA H200, 139.8 GiB, compute 9.0, 139.1 GiB free");
    // otherwise the precise reason CUDA cannot run ("no driver: libcuda.so.1 was not found ...").
    QString detail;
};

}  // namespace earshot::ui
