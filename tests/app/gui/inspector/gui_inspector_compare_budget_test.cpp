// "Compare runs" under a budget and with thread counts, the micro model against its q8_0 copy:
// with a budget of one byte no value is kept and every error equals the unbounded comparison's,
// bit for bit; a click on a block then computes both values again (CompareWorker::computeBlock)
// and opens A, B and A - B equal to the kept ones; CPU at 1 thread against 2 is all zeros; the
// dialog's thread counts stop at the machine's and are CPU-only.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QThread>
#include <cmath>
#include <filesystem>
#include <memory>
#include <sstream>

#include "cli/debug/npy_file.h"
#include "cli/model_quantize.h"
#include "earshot/ui/inspector/compare_dialog.h"
#include "earshot/ui/inspector/compare_panel.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/inspector/tap_panel.h"
#include "gui/inspector/compare_runs.h"
#include "gui/inspector/compare_worker.h"
#include "gui_fixture.h"
#include "micro_model.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

class GuiInspectorCompareBudget : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        ensure_gui_application();  // never destroyed: see gui_fixture.h
        dir_ = std::make_unique<TempDir>("earshot-inspector-compare-budget");
        q8_ = dir_->path() / "micro-q8_0.bin";
        std::ostringstream out;
        std::ostringstream err;
        ASSERT_EQ(
            app::run_models_quantize({micro_model_dir().string(), q8_.string(), "q8_0"}, out, err),
            0)
            << err.str();
        std::vector<float> mel(80 * 600);
        for (size_t i = 0; i < mel.size(); ++i) {
            mel[i] = static_cast<float>(std::sin(0.013 * static_cast<double>(i)));
        }
        mel_ = dir_->path() / "wave.npy";
        const std::vector<int64_t> shape = {80, 600};
        app::write_npy(mel_, mel, shape);
        wide_ = app::compare_runs(
            job(int64_t{1} << 40), [](const QString&, int, int) {}, [] { return false; });
    }
    static void TearDownTestSuite() { dir_.reset(); }

    static app::CompareJob job(int64_t budget_bytes) {
        app::CompareJob job;
        job.model_path = micro_model_dir().string();
        job.model_b = q8_.string();
        job.mel_path = mel_.string();
        job.input_label = QStringLiteral("wave.npy");
        job.budget_bytes = budget_bytes;
        return job;
    }

    static inline std::unique_ptr<TempDir> dir_;
    static inline fs::path q8_;
    static inline fs::path mel_;
    static inline ui::RunComparison wide_;
};

TEST_F(GuiInspectorCompareBudget, NothingKeptSameErrorsAndAClickComputesTheBlockAgain) {
    ASSERT_TRUE(wide_.error.isEmpty()) << wide_.error.toStdString();
    ASSERT_GE(wide_.rows.size(), 10);
    app::CompareWorker worker;
    QSignalSpy finished(&worker, &app::CompareWorker::finished);
    QSignalSpy progress(&worker, &app::CompareWorker::progress);
    worker.start(job(1));
    ASSERT_TRUE(finished.wait(120000));
    const auto tiny = finished.at(0).at(0).value<ui::RunComparison>();
    ASSERT_TRUE(tiny.error.isEmpty()) << tiny.error.toStdString();
    ASSERT_EQ(tiny.rows.size(), wide_.rows.size());
    for (int i = 0; i < tiny.rows.size(); ++i) {
        EXPECT_EQ(tiny.rows[i].name, wide_.rows[i].name);
        EXPECT_EQ(tiny.rows[i].relativeError, wide_.rows[i].relativeError);
        EXPECT_EQ(tiny.rows[i].maxAbsError, wide_.rows[i].maxAbsError);
        EXPECT_TRUE(tiny.rows[i].valuesA.empty());
        EXPECT_FALSE(wide_.rows[i].valuesA.empty());
    }
    // One pass per block, two runs each: the last progress says so.
    const QString last = progress.last().at(0).toString();
    EXPECT_TRUE(last.contains(QStringLiteral("of %1").arg(2 * tiny.rows.size())))
        << last.toStdString();

    ui::InspectorWidget widget;
    QObject::connect(&widget, &ui::InspectorWidget::compareBlockRequested, &worker,
                     &app::CompareWorker::computeBlock);
    QObject::connect(&worker, &app::CompareWorker::blockComputed, &widget,
                     &ui::InspectorWidget::showComparedBlock);
    QSignalSpy computed(&worker, &app::CompareWorker::blockComputed);
    widget.showComparison(tiny);  // chooses the worst row: not kept, computed again
    ui::ComparePanel* panel = widget.comparePanel();
    EXPECT_EQ(panel->pendingRow(), 0);
    ASSERT_TRUE(computed.wait(60000));
    EXPECT_TRUE(computed.at(0).at(1).toString().isEmpty())
        << computed.at(0).at(1).toString().toStdString();
    const ui::CompareRow& kept = wide_.rows[0];
    EXPECT_EQ(panel->pendingRow(), -1);
    EXPECT_EQ(panel->panelA()->value().values, kept.valuesA);
    EXPECT_EQ(panel->panelB()->value().values, kept.valuesB);
    const ui::TapValue& diff = panel->panelDifference()->value();
    ASSERT_EQ(diff.values.size(), kept.valuesA.size());
    for (size_t i = 0; i < diff.values.size(); ++i) {
        ASSERT_EQ(diff.values[i], kept.valuesA[i] - kept.valuesB[i]) << i;
    }

    // Another block: computed again; the first lets its values go (one block at a time).
    computed.clear();
    panel->selectRow(3);
    ASSERT_TRUE(computed.wait(60000));
    EXPECT_EQ(panel->panelA()->value().values, wide_.rows[3].valuesA);
    EXPECT_TRUE(panel->comparison().rows[0].valuesA.empty());
    EXPECT_FALSE(panel->comparison().rows[3].valuesA.empty());
}

TEST_F(GuiInspectorCompareBudget, CpuThreadCountsGiveTheSameValues) {
    app::CompareJob threads = job(int64_t{1} << 40);
    threads.model_b.clear();  // the same model, at 1 thread and at 2
    threads.threads_a = 1;
    threads.threads_b = 2;
    const ui::RunComparison same = app::compare_runs(
        threads, [](const QString&, int, int) {}, [] { return false; });
    ASSERT_TRUE(same.error.isEmpty()) << same.error.toStdString();
    EXPECT_EQ(same.labelA.toStdString(), "cpu x1");
    EXPECT_EQ(same.labelB.toStdString(), "cpu x2");
    ASSERT_GE(same.rows.size(), 10);
    for (const ui::CompareRow& row : same.rows) {
        EXPECT_EQ(row.relativeError, 0.0) << row.name.toStdString();
        EXPECT_EQ(row.valuesA, row.valuesB) << row.name.toStdString();
    }
}

TEST_F(GuiInspectorCompareBudget, TheDialogsThreadCountsStopAtTheMachinesAndAreCpuOnly) {
    ui::CompareOffer offer;
    offer.modelA = QString::fromStdString(micro_model_dir().string());
    offer.cudaAvailable = true;  // to switch run B to CUDA
    ui::CompareChoice last;
    last.threadsA = 1;
    last.threadsB = 999;  // a count this machine lacks: clamped to its own
    last.budgetMib = 64;
    last.inputPath = QString::fromStdString(mel_.string());
    last.input = ui::CompareChoice::Input::melFile;
    ui::CompareDialog dialog(offer, last);
    const int cores = std::max(1, QThread::idealThreadCount());
    EXPECT_EQ(ui::CompareDialog::maxThreads(), cores);
    EXPECT_EQ(dialog.threadsB()->maximum(), cores);
    EXPECT_EQ(dialog.threadsB()->value(), cores);
    EXPECT_EQ(dialog.threadsA()->value(), 1);
    // Typed past the limit: the box keeps a valid count.
    dialog.show();
    dialog.threadsA()->setFocus();
    dialog.threadsA()->selectAll();
    QTest::keyClicks(dialog.threadsA(), QString::number(cores + 1) + QStringLiteral("0"));
    EXPECT_LE(dialog.threadsA()->value(), cores);
    dialog.threadsA()->setValue(1);
    ui::CompareChoice choice = dialog.choice();
    EXPECT_EQ(choice.threadsA, 1);
    EXPECT_EQ(choice.threadsB, cores);
    EXPECT_EQ(choice.budgetMib, 64);
    EXPECT_TRUE(dialog.problem().isEmpty()) << dialog.problem().toStdString();
    // CUDA has no CPU thread count.
    dialog.backendB()->setCurrentIndex(dialog.backendB()->findData(QStringLiteral("cuda")));
    EXPECT_FALSE(dialog.threadsB()->isEnabled());
    EXPECT_EQ(dialog.choice().threadsB, 0);
    EXPECT_TRUE(dialog.threadsA()->isEnabled());
}

}  // namespace
}  // namespace earshot::test
