// OldKernelsVariable: EARSHOT_CUDA_OLD_KERNELS set for one scope (a CUDA model made inside it
// reads it then; the plan listing reads it when asked), the earlier value put back after.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace earshot::test {

class OldKernelsVariable {
public:
    explicit OldKernelsVariable(const char* value) {
        if (const char* before = std::getenv(kName)) before_ = before;
        setenv(kName, value, 1);
    }
    ~OldKernelsVariable() {
        if (before_) {
            setenv(kName, before_->c_str(), 1);
        } else {
            unsetenv(kName);
        }
    }
    OldKernelsVariable(const OldKernelsVariable&) = delete;
    OldKernelsVariable& operator=(const OldKernelsVariable&) = delete;

private:
    static constexpr const char* kName = "EARSHOT_CUDA_OLD_KERNELS";
    std::optional<std::string> before_;
};

}  // namespace earshot::test
