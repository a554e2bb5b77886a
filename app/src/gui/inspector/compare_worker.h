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
#include <vector>

#include "gui/inspector/compare_runs.h"

namespace earshot::app {

class CompareWorker : public QObject {
    Q_OBJECT

public:
    explicit CompareWorker(QObject* parent = nullptr);
    ~CompareWorker() override;  // cancels, then waits for the computation in progress

    void start(CompareJob job);
    void cancel();
    // Block `name` of `entry` of the last started comparison computed again (its values were
    // not kept), on a thread of its own; a newer request makes an older one's answer dropped.
    // Answered by blockComputed.
    void computeBlock(const QString& entry, const QString& name);
    bool isRunning() const { return m_current != nullptr; }

Q_SIGNALS:
    void progress(const QString& what, int step, int steps);
    void finished(const earshot::ui::RunComparison& comparison);
    // The row with both values, or `error` (one line) and the row's entry and name only.
    void blockComputed(const earshot::ui::CompareRow& row, const QString& error);

private:
    struct Running {
        std::atomic<bool> cancelled{false};
        std::thread thread;
    };
    void launch(CompareJob job);
    void ended(Running* running, const ui::RunComparison& comparison);

    std::unique_ptr<Running> m_current;
    std::optional<CompareJob> m_next;
    std::optional<CompareJob> m_lastJob;  // what computeBlock computes again
    std::vector<std::thread> m_blocks;    // computeBlock's threads, joined when they answer
    uint64_t m_blockRequest = 0;          // the latest computeBlock; older answers are dropped
};

}  // namespace earshot::app
