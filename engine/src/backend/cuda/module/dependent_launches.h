// Whether this thread's kernel launches may be programmatic dependent launches (compute
// capability 9.0; issue 30): set by the module around a decoder step's launches, read by
// EARSHOT_LAUNCH_DEPENDENT (launch.cuh). Plain C++, so the module's host code sets it.
#pragma once

namespace earshot::backend::cuda::kernels {

inline bool& dependent_launches_allowed() {
    thread_local bool allowed = false;
    return allowed;
}

// Allows dependent launches on this thread (when `allow`) for its lifetime.
class DependentLaunches {
public:
    explicit DependentLaunches(bool allow) : before_(dependent_launches_allowed()) {
        dependent_launches_allowed() = allow;
    }
    ~DependentLaunches() { dependent_launches_allowed() = before_; }
    DependentLaunches(const DependentLaunches&) = delete;
    DependentLaunches& operator=(const DependentLaunches&) = delete;

private:
    bool before_;
};

}  // namespace earshot::backend::cuda::kernels
