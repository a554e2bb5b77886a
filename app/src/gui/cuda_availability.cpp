// cuda_availability(): backend::cuda_devices() turned into the Settings dialog's plain text.
#include "gui/cuda_availability.h"

#include <QObject>
#include <exception>
#include <vector>

#include "earshot/engine/backend/cuda_devices.h"

namespace earshot::app {

ui::CudaAvailability cuda_availability() {
    ui::CudaAvailability cuda;
    try {
        const std::vector<backend::CudaDevice> devices = backend::cuda_devices();
        const backend::CudaDevice& device = devices.front();  // the one the backend runs on
        cuda.available = true;
        cuda.detail =
            QObject::tr("%1, %2 GiB free")
                .arg(QString::fromStdString(backend::describe_cuda_device(device)))
                .arg(static_cast<double>(device.free_memory_bytes) / (1024.0 * 1024.0 * 1024.0), 0,
                     'f', 1);
    } catch (const std::exception& error) {  // a backend::CudaError naming what is missing
        cuda.detail = QString::fromStdString(error.what());
    }
    return cuda;
}

}  // namespace earshot::app
