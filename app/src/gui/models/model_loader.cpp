#include "gui/models/model_loader.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <exception>
#include <filesystem>
#include <string_view>
#include <utility>

#include "earshot/engine/backend/cuda_devices.h"
#include "earshot/engine/tokenizer/tokenizer_error.h"

namespace earshot::app {

ModelLoader::ModelLoader(QObject* parent) : QObject(parent) {}

ModelLoader::~ModelLoader() {
    // The queued delivery dies with this object; only the thread needs waiting for.
    if (m_thread.joinable()) m_thread.join();
}

bool ModelLoader::start(const QString& modelPath, const QString& vocabularyPath,
                        backend::BackendChoice choice) {
    if (m_loading) return false;
    if (m_thread.joinable()) m_thread.join();  // the last load's thread has already delivered
    m_loading = true;
    m_thread = std::thread([this, modelPath, vocabularyPath, choice] {
        ModelLoadResult result;
        result.modelPath = modelPath;
        result.vocabularyPath = vocabularyPath;
        try {
            result.model = load_on_backend(modelPath, vocabularyPath, choice, result.backendNote);
        } catch (const tokenizer::TokenizerError& error) {
            // The checkpoint has no tokenizer files, or the vocabulary does not fit it.
            result.failure = QString::fromStdString(error.what());
            result.needsVocabulary = true;
        } catch (const std::exception& error) {
            result.failure = QString::fromStdString(error.what());
        }
        if (!result.model && result.failure.isEmpty()) {
            result.failure = QCoreApplication::translate("ModelLoader", "the loader gave no model");
        }
        QMetaObject::invokeMethod(
            this, [this, result = std::move(result)]() mutable { deliver(std::move(result)); },
            Qt::QueuedConnection);
    });
    return true;
}

void ModelLoader::deliver(ModelLoadResult result) {
    m_loading = false;
    Q_EMIT finished(result);
}

std::unique_ptr<LoadedModel> load_on_backend(const QString& modelPath,
                                             const QString& vocabularyPath,
                                             backend::BackendChoice choice, QString& note) {
    const std::filesystem::path model(modelPath.toStdString());
    const std::filesystem::path vocabulary(vocabularyPath.toStdString());
    std::unique_ptr<LoadedModel> loaded;
    try {
        loaded = load_model(model, vocabulary, choice);
        note = QString::fromStdString(loaded->backend_fallback);
    } catch (const backend::CudaError& error) {
        // CUDA was chosen and cannot run this model: the app keeps working, on the CPU.
        loaded = load_model(model, vocabulary, backend::BackendChoice::cpu);
        const std::string_view kind = backend::cuda_error_kind_name(error.kind());
        note = QCoreApplication::translate("GuiController",
                                           "CUDA was chosen but cannot run (%1: %2); running on "
                                           "the CPU")
                   .arg(QString::fromUtf8(kind.data(), static_cast<qsizetype>(kind.size())),
                        QString::fromStdString(error.what()));
    }
    return loaded;
}

}  // namespace earshot::app
