// ModelDownloads: the Model page's catalog on the app side. Fills the catalog view from the
// catalog and the models folder, runs each download on its own worker thread (std::jthread) and
// brings its progress and outcome back to the view through queued calls.
#pragma once

#include <QObject>
#include <QString>
#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "core/models/model_catalog.h"
#include "core/models/model_download.h"
#include "earshot/ui/model/model_catalog_view.h"

namespace earshot::app {

class ModelDownloads : public QObject {
    Q_OBJECT

public:
    // Fills `view` at once and answers its requests. `hub` empty: hub_url()'s default.
    explicit ModelDownloads(ui::ModelCatalogView& view, const QString& hub = {},
                            QObject* parent = nullptr);
    // Cancels the downloads still running (their .part files stay) and waits for their threads.
    ~ModelDownloads() override;

    // Reads the catalog and the models folder again.
    void refresh();
    void download(const QString& name);
    void cancel(const QString& name);
    void remove(const QString& name);
    bool isDownloading(const QString& name) const { return m_jobs.count(name) > 0; }

Q_SIGNALS:
    // A download ended: `ok`, or the failure's message (cancelled included).
    void finished(const QString& name, bool ok, const QString& message);

private:
    struct Job {
        std::atomic<bool> cancel{false};
        std::jthread thread;
    };

    ui::CatalogRow rowFor(const CatalogEntry& entry) const;
    void onProgress(const QString& name, const DownloadProgress& progress);
    void onFinished(const QString& name, const DownloadResult& result);

    ui::ModelCatalogView& m_view;
    QString m_hub;
    std::vector<CatalogEntry> m_catalog;
    std::filesystem::path m_models;
    std::map<QString, std::unique_ptr<Job>> m_jobs;
    std::map<QString, QString> m_failures;  // the last failure of each model, until it succeeds
};

}  // namespace earshot::app
