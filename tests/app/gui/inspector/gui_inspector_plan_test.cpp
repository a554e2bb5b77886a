// The Inspector's plan table on the built-in micro model, in the window a person sees: the Graph
// tab lists the entry's kernels beside the graph, row for row and with the same TOTAL line as
// `earshot debug plan` on the same model (the real executable), on CPU and CUDA, and follows the
// entry picker.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "earshot/engine/backend/plan_listing.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/ui/inspector/graph_view.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/inspector/plan_table.h"
#include "earshot/ui/main_window.h"
#include "gui/gui_controller.h"
#include "gui/inspector/plan_data.h"
#include "gui/models/default_model.h"
#include "gui_fixture.h"
#include "run_process.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

// One kernel line of `earshot debug plan`: its cells split where the padding is (two spaces or
// more; no cell holds two spaces in a row).
std::vector<std::string> cells(const std::string& line) {
    static const std::regex padding(R"( {2,})");
    std::vector<std::string> out;
    std::string trimmed = line.substr(line.find_first_not_of(' '));
    for (std::sregex_token_iterator it(trimmed.begin(), trimmed.end(), padding, -1), end; it != end;
         ++it) {
        out.push_back(*it);
    }
    return out;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

std::string s(const QString& text) { return text.toStdString(); }

class GuiInspectorPlan : public ::testing::Test {
protected:
    void SetUp() override {
        ensure_gui_application();
        const auto model = app::default_model_path();
        ASSERT_TRUE(model.has_value()) << "the micro model is missing from resources/models/micro";
        model_ = *model;
        window_ = std::make_unique<ui::MainWindow>();
        controller_ = std::make_unique<app::GuiController>(*window_, settings_only_gui_paths(dir_));
        controller_->overrideBackend(QStringLiteral("cpu"));
        ASSERT_TRUE(open_model_and_wait(*controller_, QString::fromStdString(model_.string()),
                                        QString(), app::GuiController::Remember::no));
        window_->resize(1400, 900);
        window_->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(window_.get()));
        window_->showPage(ui::MainWindow::Page::inspector);
        inspector_ = qobject_cast<ui::InspectorWidget*>(window_->inspectorWidget());
        ASSERT_NE(inspector_, nullptr);
    }

    // `earshot debug plan` on the same model, checked against the table row by row.
    void expectTheCommandLinesPlan(const std::string& entry, const std::string& backend) {
        const ProcessResult r = run_earshot("debug plan --model " + shell_quote(model_.string()) +
                                            " --entry " + entry + " --backend " + backend);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const std::vector<std::string> printed = lines(r.out);
        ui::PlanTable* plan = inspector_->planTable();
        const QTableWidget* table = plan->table();
        // The header line, the column names, one line per kernel, TOTAL.
        ASSERT_EQ(printed.size(), static_cast<size_t>(table->rowCount()) + 3) << r.out;
        EXPECT_EQ("# " + s(plan->headerLabel()->text()), printed.front());
        EXPECT_EQ(s(plan->totalLabel()->text()), printed.back());
        for (int row = 0; row < table->rowCount(); ++row) {
            const std::vector<std::string> c = cells(printed[static_cast<size_t>(row) + 2]);
            ASSERT_EQ(c.size(), 7U) << printed[static_cast<size_t>(row) + 2];
            const auto at = [&](int column) { return s(table->item(row, column)->text()); };
            EXPECT_EQ(at(ui::PlanTable::IndexColumn), c[0]);
            EXPECT_EQ(at(ui::PlanTable::KernelColumn), c[1]);
            EXPECT_EQ(at(ui::PlanTable::ScopeColumn), c[2]);
            EXPECT_EQ(at(ui::PlanTable::ReadColumn), c[3]);
            EXPECT_EQ(at(ui::PlanTable::WrittenColumn), c[4]);
            EXPECT_EQ(at(ui::PlanTable::WorkColumn), c[5]) << "row " << row;
            // A kernel without inputs (iota) prints "-> i32[448]".
            const std::string inputs = at(ui::PlanTable::InputsColumn);
            EXPECT_EQ(
                (inputs.empty() ? "" : inputs + " ") + "-> " + at(ui::PlanTable::OutputsColumn),
                c[6]);
        }
    }

    TempDir dir_{"earshot-gui-inspector-plan"};
    fs::path model_;
    std::unique_ptr<ui::MainWindow> window_;  // made once the QApplication is
    std::unique_ptr<app::GuiController> controller_;
    ui::InspectorWidget* inspector_ = nullptr;
};

TEST_F(GuiInspectorPlan, TheStepTableIsTheListingOfDebugPlan) {
    inspector_->entryPicker()->setCurrentText(QStringLiteral("step"));
    inspector_->tabs()->setCurrentIndex(inspector_->tabs()->count() - 1);
    QApplication::processEvents();
    ui::PlanTable* plan = inspector_->planTable();
    ASSERT_TRUE(plan->isVisible());
    EXPECT_TRUE(inspector_->graphView()->isVisible());
    EXPECT_EQ(plan->backend(), QStringLiteral("cpu"));  // the backend the model runs on

    // The engine's listing for the same binding: as many rows, the same TOTAL line.
    const model::WhisperCheckpoint checkpoint = model::load_whisper_checkpoint(model_);
    backend::PlanListingRequest request;
    request.entry = "step";
    const backend::PlanListing listing = backend::list_plan(checkpoint.binding, request);
    ASSERT_GT(listing.kernels.size(), 10U);
    EXPECT_EQ(plan->table()->rowCount(), static_cast<int>(listing.kernels.size()));
    EXPECT_EQ(s(plan->totalLabel()->text()), backend::plan_total_line(listing));
    EXPECT_TRUE(plan->totalLabel()->isVisible());
    expectTheCommandLinesPlan("step", "cpu");

    // The CUDA plan, read on any machine.
    plan->backendPicker()->setCurrentIndex(plan->backendPicker()->findData(QStringLiteral("cuda")));
    request.backend = backend::PlanBackend::cuda;
    EXPECT_EQ(s(plan->totalLabel()->text()),
              backend::plan_total_line(backend::list_plan(checkpoint.binding, request)));
    expectTheCommandLinesPlan("step", "cuda");
}

TEST_F(GuiInspectorPlan, TheTableFollowsTheEntryPicker) {
    ui::PlanTable* plan = inspector_->planTable();
    EXPECT_EQ(inspector_->graphView()->entry(), QStringLiteral("encode"));
    EXPECT_EQ(plan->plan().entry, QStringLiteral("encode"));
    expectTheCommandLinesPlan("encode", "cpu");

    for (const char* entry : {"prefill", "listen", "step"}) {
        inspector_->entryPicker()->setCurrentText(QString::fromLatin1(entry));
        EXPECT_EQ(inspector_->graphView()->entry(), QString::fromLatin1(entry));
        EXPECT_EQ(plan->plan().entry, QString::fromLatin1(entry));
        expectTheCommandLinesPlan(entry, "cpu");
    }

    // decode is an entry of the model the listing does not cover.
    inspector_->entryPicker()->setCurrentText(QStringLiteral("decode"));
    EXPECT_EQ(plan->table()->rowCount(), 0);
    EXPECT_EQ(s(plan->headerLabel()->text()),
              "No plan is listed for decode: `earshot debug plan` lists step, prefill, listen, "
              "encode.");
    EXPECT_FALSE(plan->totalLabel()->isVisible());
}

TEST(GuiPlanBackend, TheLoadedModelsBackendNamesThePlan) {
    const auto model = app::default_model_path();
    ASSERT_TRUE(model.has_value());
    const auto loaded = app::load_model(*model, {}, backend::BackendChoice::cpu);
    ASSERT_EQ(loaded->model->backend_name(), "CPU");
    EXPECT_EQ(app::plan_backend(*loaded), QStringLiteral("cpu"));
    loaded->model.reset();  // no decoder: the CPU's plan
    EXPECT_EQ(app::plan_backend(*loaded), QStringLiteral("cpu"));
}

}  // namespace
}  // namespace earshot::test
