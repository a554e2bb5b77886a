// CompareWorker: runs the Inspector's comparisons (compare_runs.h) off the UI thread, one at a
// time. Progress and the result come back as queued signals carrying value types. Cancel answers
// at once (a cancelled result), and the runs stop at the next point compare_blocks asks (between
// the two runs); what they still compute is thrown away. A new comparison while one runs cancels
// it and starts when it has stopped.
#pragma once

#include <QObject>
#include <atomic>
#include <memory>
#include <optional>
#include <thread>

#include "gui/inspector/compare_runs.h"

namespace earshot::app {

class CompareWorker : public QObject {
    Q_OBJECT

public:
    explicit CompareWorker(QObject* parent = nullptr);
    ~CompareWorker() override;  // cancels, then waits for the computation in progress

    void start(CompareJob job);
    void cancel();
    bool isRunning() const { return m_current != nullptr; }

Q_SIGNALS:
    void progress(const QString& what, int step, int steps);
    void finished(const earshot::ui::RunComparison& comparison);

private:
    struct Running {
        std::atomic<bool> cancelled{false};
        std::thread thread;
    };
    void launch(CompareJob job);
    void ended(Running* running, const ui::RunComparison& comparison);

    std::unique_ptr<Running> m_current;
    std::optional<CompareJob> m_next;
};

}  // namespace earshot::app
