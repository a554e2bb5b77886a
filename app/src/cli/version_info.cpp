// `earshot --version`: the release, the backends this build carries and where the embedded model
// is.
#include "cli/version_info.h"

#include <sstream>

#include "gui/models/default_model.h"

#ifndef EARSHOT_VERSION
#error "app/CMakeLists.txt defines EARSHOT_VERSION"
#endif

namespace earshot::app {

std::string version_text() {
    std::ostringstream text;
    text << "earshot " << EARSHOT_VERSION << "\n";
#ifdef EARSHOT_BUILT_CUDA_ARCHITECTURES
    text << "backends: CPU, CUDA (architectures " << EARSHOT_BUILT_CUDA_ARCHITECTURES
         << "; module libearshot_cuda.so, loaded when a GPU is asked for)\n";
#else
    text << "backends: CPU (built without CUDA)\n";
#endif
    if (const auto model = default_model_path()) {
        text << "embedded model: " << model->string();
    } else {
        text << "embedded model: not found (looked in";
        for (const auto& candidate : default_model_candidates()) text << " " << candidate.string();
        text << ")";
    }
    return text.str();
}

}  // namespace earshot::app
