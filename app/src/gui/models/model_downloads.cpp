// ModelDownloads: catalog rows for the view, one worker thread per download, and the results.
#include "gui/models/model_downloads.h"

#include <QMetaObject>
#include <algorithm>

#include "core/models/model_store.h"

namespace earshot::app {

namespace {

QString text(const std::string& s) { return QString::fromStdString(s); }

QString sized(int64_t bytes, bool approximate) {
    if (bytes <= 0) return QStringLiteral("?");
    return (approximate ? QStringLiteral("~") : QString()) + text(format_bytes(bytes));
}

QString progress_text(const DownloadProgress& p) {
    if (p.verifying) return QObject::tr("%1: checking its hash").arg(text(p.file));
    QString line = text(p.file);
    if (p.file_count > 1)
        line += QStringLiteral(" [%1/%2]").arg(p.file_index + 1).arg(p.file_count);
    line += QStringLiteral(": ") + text(format_bytes(p.received_bytes));
    if (p.total_bytes > 0) line += QObject::tr(" of %1").arg(text(format_bytes(p.total_bytes)));
    if (p.rate_bytes_per_second > 0.0) {
        line += QStringLiteral(", %1/s").arg(
            text(format_bytes(static_cast<int64_t>(p.rate_bytes_per_second))));
    }
    if (p.seconds_left >= 0.0) {
        line += QObject::tr(", %1 s left").arg(static_cast<qint64>(p.seconds_left + 0.5));
    }
    return line;
}

}  // namespace

ModelDownloads::ModelDownloads(ui::ModelCatalogView& view, const QString& hub, QObject* parent)
    : QObject(parent), m_view(view), m_hub(hub) {
    connect(&m_view, &ui::ModelCatalogView::downloadRequested, this, &ModelDownloads::download);
    connect(&m_view, &ui::ModelCatalogView::cancelRequested, this, &ModelDownloads::cancel);
    connect(&m_view, &ui::ModelCatalogView::removeRequested, this, &ModelDownloads::remove);
    refresh();
}

ModelDownloads::~ModelDownloads() {
    for (auto& [name, job] : m_jobs) job->cancel.store(true);
    m_jobs.clear();  // joins every thread; their queued reports die with this object
}

ui::CatalogRow ModelDownloads::rowFor(const CatalogEntry& entry) const {
    ui::CatalogRow row;
    row.name = text(entry.name);
    row.form = text(std::string(model_form_name(entry.form)));
    row.download = sized(entry.download_bytes(), entry.sizes_approximate);
    row.memory = sized(entry.memory_bytes, true);
    row.languages = text(entry.languages);
    switch (install_state(m_models, entry)) {
        case InstallState::installed:
            row.state = ui::CatalogRow::State::installed;
            row.location = text(model_location(m_models, entry).string());
            row.progressText =
                text(format_bytes(bytes_on_disk(model_folder(m_models, entry)))) + tr(" on disk");
            break;
        case InstallState::partial:
            row.state = ui::CatalogRow::State::partial;
            row.receivedBytes = bytes_on_disk(model_folder(m_models, entry));
            row.totalBytes = entry.download_bytes() > 0 ? entry.download_bytes() : -1;
            row.progressText = text(format_bytes(row.receivedBytes)) +
                               tr(" kept; Download continues where it stopped");
            break;
        case InstallState::absent:
            break;
    }
    if (const auto failure = m_failures.find(row.name); failure != m_failures.end()) {
        row.state = ui::CatalogRow::State::failed;
        row.error = failure->second;
    }
    return row;
}

void ModelDownloads::refresh() {
    m_models = models_dir();
    QList<ui::CatalogRow> rows;
    try {
        m_catalog = model_catalog();
    } catch (const CatalogError& e) {
        m_catalog = builtin_catalog();
        m_failures[QStringLiteral("catalog")] = text(e.what());
    }
    for (const CatalogEntry& entry : m_catalog) {
        const QString name = text(entry.name);
        if (isDownloading(name)) {
            if (const ui::CatalogRow* shown = m_view.row(name)) {
                rows.append(*shown);
                continue;
            }
        }
        rows.append(rowFor(entry));
    }
    // Folders put into the models folder by hand: usable, not downloadable.
    for (const std::string& folder : model_folders(m_models)) {
        if (find_catalog_entry(m_catalog, folder) != nullptr) continue;
        ui::CatalogRow row;
        row.name = text(folder);
        row.download = text(format_bytes(bytes_on_disk(m_models / folder)));
        row.state = ui::CatalogRow::State::installed;
        row.location = text((m_models / folder).string());
        rows.append(row);
    }
    // What is on disk first (installed, partly downloaded, downloading), then the catalog.
    std::stable_partition(rows.begin(), rows.end(), [](const ui::CatalogRow& row) {
        return row.state != ui::CatalogRow::State::available &&
               row.state != ui::CatalogRow::State::failed;
    });
    m_view.setRows(rows);
}

void ModelDownloads::download(const QString& name) {
    const CatalogEntry* entry = find_catalog_entry(m_catalog, name.toStdString());
    if (entry == nullptr || isDownloading(name)) return;
    m_failures.erase(name);
    ui::CatalogRow row = rowFor(*entry);
    row.state = ui::CatalogRow::State::downloading;
    row.totalBytes = -1;
    row.progressText = tr("connecting…");
    m_view.updateRow(row);

    auto job = std::make_unique<Job>();
    DownloadOptions options;
    options.hub = hub_url(m_hub.toStdString());
    options.cancel = &job->cancel;
    // On the worker thread: hand each report to this object's thread as a value.
    options.on_progress = [this, name](const DownloadProgress& progress) {
        QMetaObject::invokeMethod(
            this, [this, name, progress] { onProgress(name, progress); }, Qt::QueuedConnection);
    };
    const CatalogEntry copy = *entry;
    const std::filesystem::path models = m_models;
    job->thread = std::jthread([this, name, copy, models, options] {
        const DownloadResult result = download_model(copy, models, options);
        QMetaObject::invokeMethod(
            this, [this, name, result] { onFinished(name, result); }, Qt::QueuedConnection);
    });
    m_jobs[name] = std::move(job);
}

void ModelDownloads::cancel(const QString& name) {
    if (const auto job = m_jobs.find(name); job != m_jobs.end()) job->second->cancel.store(true);
}

void ModelDownloads::remove(const QString& name) {
    if (isDownloading(name)) return;
    m_failures.erase(name);
    remove_model(m_models, name.toStdString());
    refresh();
}

void ModelDownloads::onProgress(const QString& name, const DownloadProgress& progress) {
    if (!isDownloading(name)) return;
    const ui::CatalogRow* shown = m_view.row(name);
    if (shown == nullptr) return;
    ui::CatalogRow row = *shown;
    row.state =
        progress.verifying ? ui::CatalogRow::State::verifying : ui::CatalogRow::State::downloading;
    row.receivedBytes = progress.received_bytes;
    row.totalBytes = progress.total_bytes;
    row.progressText = progress_text(progress);
    m_view.updateRow(row);
}

void ModelDownloads::onFinished(const QString& name, const DownloadResult& result) {
    m_jobs.erase(name);  // the thread has returned: this joins at once
    if (!result.ok()) m_failures[name] = text(result.message);
    if (result.failure == DownloadFailure::cancelled) m_failures.erase(name);
    refresh();
    Q_EMIT finished(name, result.ok(), text(result.message));
}

}  // namespace earshot::app
