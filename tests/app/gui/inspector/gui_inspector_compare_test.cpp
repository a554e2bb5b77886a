// The Inspector's "Compare runs" with the micro model against its own q8_0 copy (written here by
// `earshot models quantize`'s code): every block's error equals one computed here from the two
// values; the graph's error heat carries the comparison's numbers (a loop's call its worst
// iteration); the table is sorted; a click on a block opens A, B and A - B element by element;
// bad inputs (models of different shapes, a mel of the wrong shape, CUDA here) are one message;
// the worker reports progress and cancels at once.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QSignalSpy>
#include <QTest>
#include <cmath>
#include <filesystem>
#include <memory>
#include <sstream>

#include "cli/debug/npy_file.h"
#include "cli/model_quantize.h"
#include "earshot/audio/log_mel.h"
#include "earshot/core/loaded_model.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/ui/inspector/compare_panel.h"
#include "earshot/ui/inspector/compare_table.h"
#include "earshot/ui/inspector/graph_canvas.h"
#include "earshot/ui/inspector/graph_group_item.h"
#include "earshot/ui/inspector/graph_node_item.h"
#include "earshot/ui/inspector/graph_view.h"
#include "earshot/ui/inspector/heat_legend.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/inspector/tap_panel.h"
#include "earshot/ui/inspector/tap_tabs.h"
#include "gui/inspector/compare_runs.h"
#include "gui/inspector/compare_worker.h"
#include "gui/inspector/inspector_data.h"
#include "gui_fixture.h"
#include "micro_model.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;
using ui::graph_style::HeatScale;

// ||a - b|| / ||a|| in double, as the comparison defines it (block_comparison.h).
double relative_error(const std::vector<float>& a, const std::vector<float>& b) {
    double diff2 = 0.0;
    double norm2 = 0.0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double d = static_cast<double>(b[i]) - static_cast<double>(a[i]);
        diff2 += d * d;
        norm2 += static_cast<double>(a[i]) * static_cast<double>(a[i]);
    }
    return std::sqrt(diff2 / norm2);
}

class GuiInspectorCompare : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        ensure_gui_application();  // never destroyed: see gui_fixture.h
        dir_ = std::make_unique<TempDir>("earshot-inspector-compare");
        q8_ = dir_->path() / "micro-q8_0.bin";
        std::ostringstream out;
        std::ostringstream err;
        ASSERT_EQ(
            app::run_models_quantize({micro_model_dir().string(), q8_.string(), "q8_0"}, out, err),
            0)
            << err.str();
        model_ = app::load_model(micro_model_dir(), {}, backend::BackendChoice::cpu);
        // A window of tones rising in pitch, as the micro model's [80, 600] log-mel.
        std::vector<float> samples(600 * 160);
        for (size_t i = 0; i < samples.size(); ++i) {
            const double t = static_cast<double>(i) / 16000.0;
            samples[i] = static_cast<float>(0.3 * std::sin(2 * M_PI * (200 + 300 * t) * t) +
                                            0.1 * std::sin(2 * M_PI * 1500 * t));
        }
        const audio::LogMel mel = audio::log_mel_window(samples, 80, 600);
        mel_ = dir_->path() / "tones.npy";
        const std::vector<int64_t> shape = {80, 600};
        app::write_npy(mel_, mel.values, shape);
        comparison_ = app::compare_runs(
            job(), [](const QString&, int, int) {}, [] { return false; });
    }
    static void TearDownTestSuite() {
        model_.reset();
        dir_.reset();
    }

    static app::CompareJob job() {
        app::CompareJob job;
        job.model_path = micro_model_dir().string();
        job.model_b = q8_.string();
        job.mel_path = mel_.string();
        job.input_label = QStringLiteral("tones.npy");
        return job;
    }

    static const ui::CompareRow* row(const QString& name) {
        for (const ui::CompareRow& r : comparison_.rows) {
            if (r.name == name) return &r;
        }
        return nullptr;
    }

    void SetUp() override {
        widget_.resize(1400, 1000);
        widget_.setGraphProvider(app::graph_provider(model_->checkpoint.binding));
        widget_.setData(app::inspector_data(model_->checkpoint.binding));
        widget_.showEntry(QStringLiteral("encode"));
    }

    static inline std::unique_ptr<TempDir> dir_;
    static inline fs::path q8_;
    static inline fs::path mel_;
    static inline std::shared_ptr<app::LoadedModel> model_;
    static inline ui::RunComparison comparison_;
    ui::InspectorWidget widget_;
};

TEST_F(GuiInspectorCompare, EachBlocksErrorIsTheErrorOfItsTwoValues) {
    ASSERT_TRUE(comparison_.error.isEmpty()) << comparison_.error.toStdString();
    // conv1d, both gelus, the positions' +, two layers' blocks, the final norm: many outputs.
    ASSERT_GE(comparison_.rows.size(), 10);
    EXPECT_EQ(comparison_.labelA.toStdString(), "cpu model");
    EXPECT_EQ(comparison_.labelB.toStdString(), "cpu micro-q8_0.bin");
    for (const ui::CompareRow& r : comparison_.rows) {
        ASSERT_EQ(r.valuesA.size(), r.valuesB.size()) << r.name.toStdString();
        qint64 numel = 1;
        for (qint64 d : r.shape) numel *= d;
        ASSERT_EQ(static_cast<qint64>(r.valuesA.size()), numel) << r.name.toStdString();
        EXPECT_NEAR(r.relativeError, relative_error(r.valuesA, r.valuesB),
                    1e-9 * (1 + r.relativeError))
            << r.name.toStdString();
        EXPECT_EQ(r.entry, QStringLiteral("encode"));
    }
    // q8_0 weights move every block a little, never by much.
    EXPECT_GT(comparison_.rows.front().relativeError, 1e-4);
    EXPECT_LT(comparison_.rows.front().relativeError, 0.2);
    const ui::CompareRow* norm = row(QStringLiteral("encoder_norm.forward"));
    ASSERT_NE(norm, nullptr);
    EXPECT_FALSE(norm->callIds.isEmpty());
    EXPECT_EQ(norm->symbolicType.toStdString(), "T[B, 1 + (-1 + Frames) / 2, D]");
}

// A comparison opens in half the page under the graph, whatever else the splitter holds (the
// taps, the live cross-attention map) and in a window of ordinary height: the graph is never
// squeezed to a strip above the table.
TEST_F(GuiInspectorCompare, TheComparisonTakesHalfThePageUnderTheGraph) {
    ASSERT_TRUE(comparison_.error.isEmpty()) << comparison_.error.toStdString();
    widget_.resize(940, 600);  // the Inspector's page in the default 960 x 780 window
    widget_.show();
    QApplication::processEvents();
    widget_.showCompareRunning(QStringLiteral("running"), 1, 2);
    widget_.showComparison(comparison_);
    QApplication::processEvents();
    auto* graph = widget_.findChild<ui::GraphView*>();
    auto* panel = widget_.findChild<ui::ComparePanel*>();
    ASSERT_NE(graph, nullptr);
    ASSERT_NE(panel, nullptr);
    ASSERT_TRUE(panel->isVisible());
    const int both = graph->height() + panel->height();
    EXPECT_GE(graph->height(), both * 2 / 5) << graph->height() << " of " << both;
    EXPECT_GE(panel->height(), both * 2 / 5) << panel->height() << " of " << both;
}

TEST_F(GuiInspectorCompare, TheGraphsHeatIsTheComparisonsNumber) {
    widget_.setHeat({{QStringLiteral("999"), 0.5}});  // a time heat, kept for the switch back
    widget_.showComparison(comparison_);
    EXPECT_EQ(widget_.heatScale(), HeatScale::relativeError);
    EXPECT_EQ(widget_.heatLegend()->scale(), HeatScale::relativeError);
    EXPECT_EQ(widget_.heatPicker()->currentIndex(), 1);
    ui::GraphView& view = *widget_.graphView();

    // The encoder's final norm is drawn open, as a group: its tint and badge are its output's.
    ui::GraphGroupItem* norm = view.groupItem(QStringLiteral("encoder_norm.forward"));
    ASSERT_NE(norm, nullptr);
    ASSERT_TRUE(norm->heat().has_value());
    EXPECT_EQ(*norm->heat(), row(QStringLiteral("encoder_norm.forward"))->relativeError);
    EXPECT_EQ(norm->heatScale(), HeatScale::relativeError);

    // A call inside the loop is drawn once for both layers: its heat is the worse of the two.
    const auto worst = [](const QString& inner) {
        const ui::CompareRow* first = row(QStringLiteral("encoder_layers[0].") + inner);
        const ui::CompareRow* second = row(QStringLiteral("encoder_layers[1].") + inner);
        EXPECT_NE(first, nullptr);
        EXPECT_NE(second, nullptr);
        EXPECT_NE(first->relativeError, second->relativeError);
        return std::max(first->relativeError, second->relativeError);
    };
    ui::GraphNodeItem* attention = view.nodeItem(QStringLiteral("self_attn.forward"));
    ASSERT_NE(attention, nullptr);
    ASSERT_TRUE(attention->heat().has_value());
    EXPECT_EQ(*attention->heat(), worst(QStringLiteral("self_attn.forward")));
    EXPECT_EQ(attention->heatScale(), HeatScale::relativeError);
    ui::GraphGroupItem* layer = view.groupItem(QStringLiteral("encoder_layers[layer].forward"));
    ASSERT_NE(layer, nullptr);
    ASSERT_TRUE(layer->heat().has_value());
    EXPECT_EQ(*layer->heat(),
              std::max(row(QStringLiteral("encoder_layers[0].forward"))->relativeError,
                       row(QStringLiteral("encoder_layers[1].forward"))->relativeError));

    // Back to the engine time: the time heat, its own scale.
    widget_.heatPicker()->setCurrentIndex(0);
    EXPECT_EQ(widget_.heatScale(), HeatScale::engineTime);
    EXPECT_EQ(widget_.heatLegend()->scale(), HeatScale::engineTime);
    EXPECT_FALSE(view.groupItem(QStringLiteral("encoder_norm.forward"))->heat().has_value());
    widget_.heatPicker()->setCurrentIndex(1);
    EXPECT_EQ(*view.groupItem(QStringLiteral("encoder_norm.forward"))->heat(),
              row(QStringLiteral("encoder_norm.forward"))->relativeError);
}

TEST_F(GuiInspectorCompare, TheTableIsSortedWorstFirst) {
    widget_.showComparison(comparison_);
    ui::CompareTable* table = widget_.comparePanel()->table();
    ASSERT_EQ(table->rowCount(), comparison_.rows.size());
    double previous = INFINITY;
    for (int r = 0; r < table->rowCount(); ++r) {
        const double shown = table->item(r, ui::CompareTable::relativeError)->text().toDouble();
        EXPECT_LE(shown, previous) << "row " << r;
        previous = shown;
        const ui::CompareRow& data = comparison_.rows[table->comparisonRow(r)];
        EXPECT_EQ(table->item(r, ui::CompareTable::block)->text(), data.name);
        EXPECT_NEAR(shown, data.relativeError, 0.006 * data.relativeError);  // 3 digits shown
        EXPECT_NEAR(table->item(r, ui::CompareTable::maxAbsError)->text().toDouble(),
                    data.maxAbsError, 0.006 * data.maxAbsError);
    }
}

TEST_F(GuiInspectorCompare, ClickingABlockOpensBothValuesAndTheirDifference) {
    widget_.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&widget_));
    widget_.showComparison(comparison_);
    QTest::qWait(50);  // the panel under the graph laid out
    ui::GraphView& view = *widget_.graphView();
    ui::GraphNodeItem* attention = view.nodeItem(QStringLiteral("self_attn.forward"));
    ASSERT_NE(attention, nullptr);
    ui::GraphCanvas* canvas = view.canvas();
    canvas->centerOn(attention->rect().center());
    QTest::mouseClick(canvas->viewport(), Qt::LeftButton, {},
                      canvas->mapFromScene(attention->rect().center() +
                                           QPointF(attention->rect().width() / 4, 0)));
    ui::ComparePanel* panel = widget_.comparePanel();
    ASSERT_GE(panel->selectedRow(), 0);
    const ui::CompareRow& chosen = comparison_.rows[panel->selectedRow()];
    // The loop's call opens its worse layer.
    const double first = row(QStringLiteral("encoder_layers[0].self_attn.forward"))->relativeError;
    const double second = row(QStringLiteral("encoder_layers[1].self_attn.forward"))->relativeError;
    EXPECT_EQ(chosen.name.toStdString(), first > second ? "encoder_layers[0].self_attn.forward"
                                                        : "encoder_layers[1].self_attn.forward");
    EXPECT_EQ(widget_.tapTabs()->count(), 0);  // a compared block, not a tap
    const ui::TapValue& a = panel->panelA()->value();
    const ui::TapValue& b = panel->panelB()->value();
    const ui::TapValue& diff = panel->panelDifference()->value();
    EXPECT_EQ(a.values, chosen.valuesA);
    EXPECT_EQ(b.values, chosen.valuesB);
    ASSERT_EQ(diff.values.size(), chosen.valuesA.size());
    EXPECT_EQ(diff.shape, chosen.shape);
    for (size_t i = 0; i < diff.values.size(); ++i) {
        ASSERT_EQ(diff.values[i], chosen.valuesA[i] - chosen.valuesB[i]) << i;
    }
    // The difference panel's summary is of A - B: its largest magnitude is the max abs error.
    const ui::TapSummary& s = panel->panelDifference()->summary();
    EXPECT_NEAR(std::max(-s.min, s.max), chosen.maxAbsError, 1e-6 * chosen.maxAbsError);

    // The table's third row opens that block.
    ui::CompareTable* table = panel->table();
    table->setCurrentCell(2, ui::CompareTable::block);
    EXPECT_EQ(panel->selectedRow(), table->comparisonRow(2));
    EXPECT_EQ(panel->panelA()->value().values, comparison_.rows[table->comparisonRow(2)].valuesA);
}

TEST_F(GuiInspectorCompare, BadInputsAreOneMessage) {
    // Models of different shapes.
    const fs::path other = dir_->path() / "narrow";
    model::RandomCheckpointOptions options;
    options.d = 32;
    options.heads = 4;
    options.enc_layers = 2;
    options.dec_layers = 2;
    options.frames = 600;
    options.vocab = 51864;
    model::write_random_checkpoint(other, options);
    app::CompareJob shapes = job();
    shapes.model_b = other.string();
    const ui::RunComparison differ = app::compare_runs(
        shapes, [](const QString&, int, int) {}, [] { return false; });
    EXPECT_TRUE(differ.rows.isEmpty());
    EXPECT_TRUE(differ.error.contains(QStringLiteral("differ in D"))) << differ.error.toStdString();
    EXPECT_TRUE(differ.error.contains(QStringLiteral("64"))) << differ.error.toStdString();
    EXPECT_TRUE(differ.error.contains(QStringLiteral("32"))) << differ.error.toStdString();
    EXPECT_FALSE(differ.error.contains(u'\n'));

    // A mel of the wrong shape names both shapes.
    const fs::path small = dir_->path() / "small.npy";
    const std::vector<float> values(80 * 10, 0.0F);
    const std::vector<int64_t> shape = {80, 10};
    app::write_npy(small, values, shape);
    app::CompareJob wrong = job();
    wrong.mel_path = small.string();
    const ui::RunComparison mel = app::compare_runs(
        wrong, [](const QString&, int, int) {}, [] { return false; });
    EXPECT_TRUE(mel.error.contains(QStringLiteral("[80, 10]"))) << mel.error.toStdString();
    EXPECT_TRUE(mel.error.contains(QStringLiteral("[80, 600]"))) << mel.error.toStdString();

    // Shown in the panel as one line, and no heat.
    widget_.showComparison(differ);
    EXPECT_EQ(widget_.comparePanel()->statusLabel()->text(),
              QStringLiteral("Could not compare: ") + differ.error);
    EXPECT_FALSE(widget_.heatPicker()->isEnabled());
    EXPECT_EQ(widget_.heatScale(), HeatScale::engineTime);
    // A line under the graph, not half of the 1000 px page; a comparison with rows gets room.
    EXPECT_LT(widget_.comparePanel()->maximumHeight(), 100);
    widget_.showComparison(comparison_);
    EXPECT_GT(widget_.comparePanel()->maximumHeight(), 1000);

    // CUDA, where it cannot run (the device tests run this binary with a GPU: skip there).
    app::CompareJob cuda = job();
    cuda.backend_b = "cuda";
    const ui::RunComparison gpu = app::compare_runs(
        cuda, [](const QString&, int, int) {}, [] { return false; });
    if (gpu.error.isEmpty()) GTEST_SKIP() << "CUDA runs here";
    EXPECT_TRUE(gpu.error.startsWith(QStringLiteral("CUDA cannot run here: ")))
        << gpu.error.toStdString();
}

TEST_F(GuiInspectorCompare, TheWorkerReportsProgressAndCancelsAtOnce) {
    app::CompareWorker worker;
    QSignalSpy progress(&worker, &app::CompareWorker::progress);
    QSignalSpy finished(&worker, &app::CompareWorker::finished);
    worker.start(job());
    ASSERT_TRUE(finished.wait(60000));
    ASSERT_EQ(finished.count(), 1);
    const auto done = finished.at(0).at(0).value<ui::RunComparison>();
    EXPECT_EQ(done.rows.size(), comparison_.rows.size());
    EXPECT_EQ(done.rows.front().relativeError, comparison_.rows.front().relativeError);
    ASSERT_GE(progress.count(), 3);  // reading, run A, run B
    EXPECT_TRUE(progress.at(1).at(0).toString().startsWith(QStringLiteral("Running cpu model")))
        << progress.at(1).at(0).toString().toStdString();
    EXPECT_EQ(progress.at(2).at(1).toInt(), 2);

    // Cancel: the cancelled result at once, nothing after it.
    finished.clear();
    worker.start(job());
    EXPECT_TRUE(worker.isRunning());
    worker.cancel();
    ASSERT_EQ(finished.count(), 1);
    EXPECT_TRUE(finished.at(0).at(0).value<ui::RunComparison>().cancelled);
    QTest::qWait(200);
    for (int i = 0; i < 100 && worker.isRunning(); ++i) QTest::qWait(50);
    EXPECT_FALSE(worker.isRunning());
    EXPECT_EQ(finished.count(), 1);
}

}  // namespace
}  // namespace earshot::test
