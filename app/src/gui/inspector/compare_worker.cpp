// CompareWorker: one std::thread per comparison; its progress and result are posted back to this
// object's thread, where a result of a cancelled run is dropped.
#include "gui/inspector/compare_worker.h"

#include <QMetaObject>

namespace earshot::app {

CompareWorker::CompareWorker(QObject* parent) : QObject(parent) {}

CompareWorker::~CompareWorker() {
    m_next.reset();
    if (m_current) {
        m_current->cancelled = true;
        if (m_current->thread.joinable()) m_current->thread.join();
    }
    for (std::thread& thread : m_blocks) {
        if (thread.joinable()) thread.join();
    }
}

void CompareWorker::computeBlock(const QString& entry, const QString& name) {
    if (!m_lastJob) {
        ui::CompareRow row;
        row.entry = entry;
        row.name = name;
        Q_EMIT blockComputed(row, tr("no comparison was run"));
        return;
    }
    const uint64_t request = ++m_blockRequest;
    m_blocks.emplace_back([this, request, entry, name, job = *m_lastJob] {
        QString error;
        ui::CompareRow row = compare_one_block(job, entry, name, error);
        const std::thread::id id = std::this_thread::get_id();
        QMetaObject::invokeMethod(
            this,
            [this, request, id, row = std::move(row), error] {
                for (auto it = m_blocks.begin(); it != m_blocks.end(); ++it) {
                    if (it->get_id() != id) continue;
                    it->join();  // it has posted its last call
                    m_blocks.erase(it);
                    break;
                }
                if (request == m_blockRequest) Q_EMIT blockComputed(row, error);
            },
            Qt::QueuedConnection);
    });
}

void CompareWorker::start(CompareJob job) {
    if (m_current) {
        m_current->cancelled = true;  // it reports nothing more; this one follows it
        m_next = std::move(job);
        return;
    }
    launch(std::move(job));
}

void CompareWorker::cancel() {
    m_next.reset();
    if (!m_current || m_current->cancelled) return;
    m_current->cancelled = true;
    ui::RunComparison cancelled;
    cancelled.cancelled = true;
    Q_EMIT finished(cancelled);
}

void CompareWorker::launch(CompareJob job) {
    m_lastJob = job;
    ++m_blockRequest;  // a block of an earlier comparison is not this one's
    m_current = std::make_unique<Running>();
    Running* running = m_current.get();
    running->thread = std::thread([this, running, job = std::move(job)] {
        const auto report = [this, running](const QString& what, int step, int steps) {
            QMetaObject::invokeMethod(
                this,
                [this, running, what, step, steps] {
                    if (m_current.get() == running && !running->cancelled) {
                        Q_EMIT progress(what, step, steps);
                    }
                },
                Qt::QueuedConnection);
        };
        ui::RunComparison result =
            compare_runs(job, report, [running] { return running->cancelled.load(); });
        QMetaObject::invokeMethod(
            this, [this, running, result = std::move(result)] { ended(running, result); },
            Qt::QueuedConnection);
    });
}

void CompareWorker::ended(Running* running, const ui::RunComparison& comparison) {
    if (m_current.get() != running) return;
    running->thread.join();  // it has posted its last call
    const bool cancelled = running->cancelled;
    m_current.reset();
    if (!cancelled) Q_EMIT finished(comparison);
    if (m_next) {
        CompareJob next = std::move(*m_next);
        m_next.reset();
        launch(std::move(next));
    }
}

}  // namespace earshot::app
