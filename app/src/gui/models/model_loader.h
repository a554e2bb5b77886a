// ModelLoader: reads a model on its own thread and reports on the UI thread with one signal, so
// the window never waits in a nested event loop and nothing re-enters the controller mid-load.
// One load at a time; destroying the loader waits for a load in progress (its result is dropped).
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <thread>

#include "earshot/core/loaded_model.h"
#include "earshot/engine/backend/backend_choice.h"

namespace earshot::app {

// What one load gave: the model, or why not.
struct ModelLoadResult {
    QString modelPath;
    QString vocabularyPath;
    std::shared_ptr<LoadedModel> model;  // null when the load failed
    QString failure;                     // the loader's reason; empty when loaded
    bool needsVocabulary = false;        // failed on the tokenizer (no vocabulary, or a wrong one)
    QString backendNote;                 // why it runs on the CPU though CUDA was chosen or auto
};

class ModelLoader : public QObject {
    Q_OBJECT

public:
    explicit ModelLoader(QObject* parent = nullptr);
    ~ModelLoader() override;
    ModelLoader(const ModelLoader&) = delete;
    ModelLoader& operator=(const ModelLoader&) = delete;

    // Starts reading `modelPath` (with `vocabularyPath`, empty: the model's own) on `choice`;
    // finished() follows on this object's thread. False (and nothing starts) while a load runs.
    bool start(const QString& modelPath, const QString& vocabularyPath,
               backend::BackendChoice choice);
    bool isLoading() const { return m_loading; }

Q_SIGNALS:
    void finished(const earshot::app::ModelLoadResult& result);

private:
    void deliver(ModelLoadResult result);

    std::thread m_thread;
    bool m_loading = false;  // UI thread only
};

// Reads the model on `choice`; a CUDA choice that cannot run falls back to the CPU and says why
// in `note`. Throws what load_model throws. Touches nothing shared: safe on any thread.
std::unique_ptr<LoadedModel> load_on_backend(const QString& modelPath,
                                             const QString& vocabularyPath,
                                             backend::BackendChoice choice, QString& note);

}  // namespace earshot::app
