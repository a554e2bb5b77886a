// The window as a person first sees it, driven with mouse clicks on the offscreen platform: the
// model loaded at start (while its pages are hidden), then the tabs clicked open.
#include <gtest/gtest.h>

#include <QGraphicsScene>
#include <QLabel>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>
#include <filesystem>

#include "earshot/ui/inspector/graph_canvas.h"
#include "earshot/ui/inspector/graph_node_item.h"
#include "earshot/ui/inspector/graph_view.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/live/transcript_view.h"
#include "earshot/ui/main_window.h"
#include "earshot/ui/model/model_panel.h"
#include "gui/gui_controller.h"
#include "gui/models/default_model.h"
#include "gui_fixture.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

QString q(const fs::path& path) { return QString::fromStdString(path.string()); }

QString micro_model() {
    const auto path = app::default_model_path();
    return path ? QString::fromStdString(path->string()) : QString();
}

void click_tab(QTabWidget* tabs, int index) {
    QTabBar* bar = tabs->tabBar();
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(index).center());
    QApplication::processEvents();
    ASSERT_EQ(tabs->currentIndex(), index);
}

TEST(GuiFirstLook, TheGraphTabOpensReadableWithTheEntryInView) {
    ensure_gui_application();
    const QString model = micro_model();
    ASSERT_FALSE(model.isEmpty()) << "the micro model is missing from resources/models/micro";
    const TempDir dir("earshot-gui-first-look");
    ui::MainWindow window;
    app::GuiController controller(window, settings_only_gui_paths(dir));
    open_initial_model_and_wait(controller, model,
                                QString());  // as `earshot --model` does, before show()
    ASSERT_TRUE(controller.hasModel());
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));

    click_tab(window.tabs(), 3);  // Inspector
    auto* inspector = qobject_cast<ui::InspectorWidget*>(window.inspectorWidget());
    ASSERT_NE(inspector, nullptr);
    click_tab(inspector->tabs(), inspector->tabs()->count() - 1);  // Graph

    ui::GraphView* view = inspector->graphView();
    ASSERT_EQ(view->entry(), QStringLiteral("encode"));
    ui::GraphCanvas* canvas = view->canvas();
    // Text at a readable size (the edge labels are 10 px at scale 1)...
    EXPECT_GE(canvas->zoom(), ui::GraphCanvas::kReadableZoom);
    EXPECT_LE(canvas->zoom(), 1.0);
    // ... and the graph's start, the mel input, inside the viewport.
    const ui::GraphNodeItem* input = nullptr;
    for (const ui::GraphNodeItem* node : view->nodeItems()) {
        if (node->node().kind == QStringLiteral("input")) input = node;
    }
    ASSERT_NE(input, nullptr);
    const QRect shown = canvas->mapFromScene(input->rect()).boundingRect();
    EXPECT_TRUE(canvas->viewport()->rect().contains(shown))
        << shown.x() << "," << shown.y() << " " << shown.width() << "x" << shown.height() << " in "
        << canvas->viewport()->width() << "x" << canvas->viewport()->height();
    // The graph takes more than a corner of the view: at least half its width.
    const QRect graph = canvas->mapFromScene(view->scene()->itemsBoundingRect()).boundingRect();
    EXPECT_GT(graph.width(), canvas->viewport()->width() / 2);
}

TEST(GuiFirstLook, TheMicroModelSaysWhatItIsWherePeopleLook) {
    ensure_gui_application();
    ASSERT_FALSE(micro_model().isEmpty());
    const TempDir dir("earshot-gui-first-look-micro");
    ui::MainWindow window;
    app::GuiController controller(window, settings_only_gui_paths(dir));
    open_initial_model_and_wait(controller, QString(),
                                QString());  // first start: nothing chosen yet
    ASSERT_TRUE(controller.hasModel());
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));

    // The window title and the first page shown (Live) say it is the micro demo model.
    EXPECT_EQ(window.windowTitle(), QStringLiteral("Micro demo model (built in) — Earshot"));
    EXPECT_EQ(window.currentPage(), ui::MainWindow::Page::live);
    const QString hint = window.livePanel()->transcript()->placeholderText();
    EXPECT_TRUE(hint.contains(QStringLiteral("espeak-ng"))) << hint.toStdString();
    EXPECT_TRUE(hint.contains(QStringLiteral("~200 words"))) << hint.toStdString();
    EXPECT_TRUE(hint.contains(QStringLiteral("not human speech"))) << hint.toStdString();
    EXPECT_TRUE(window.statusBar()->currentMessage().contains(QStringLiteral("espeak-ng")));

    click_tab(window.tabs(), 2);  // Model
    ui::ModelPanel* page = window.modelPanel();
    EXPECT_EQ(page->titleLabel()->text(), QStringLiteral("Micro demo model (built in)"));
    EXPECT_TRUE(page->noteLabel()->isVisible());
    EXPECT_TRUE(page->noteLabel()->text().contains(QStringLiteral("espeak-ng")));
    EXPECT_TRUE(page->noteLabel()->text().contains(QStringLiteral("words.txt")));
    // On the Model page it points at what is on that page, not at the Model page.
    EXPECT_FALSE(page->noteLabel()->text().contains(QStringLiteral("Model page")))
        << page->noteLabel()->text().toStdString();
    EXPECT_TRUE(page->noteLabel()->text().contains(QStringLiteral("list of models below")));
}

TEST(GuiFirstLook, OtherModelsAreNamedByWhatTheyAre) {
    if (!gui_assets_present()) GTEST_SKIP() << "multilingual.tiktoken not found";
    ensure_gui_application();
    const TempDir dir("earshot-gui-first-look-other");
    ui::MainWindow window;
    app::GuiController controller(window, settings_only_gui_paths(dir));
    ASSERT_TRUE(open_model_and_wait(controller, q(gui_random_checkpoint()), q(gui_vocab()),
                                    app::GuiController::Remember::no))
        << window.modelPanel()->loadError().toStdString();
    // D 64, 2 + 2 layers, 51865 tokens: no released size.
    const QString name = QStringLiteral("ck (Whisper-shaped: D 64, 2 + 2 layers, multilingual)");
    EXPECT_EQ(window.modelPanel()->titleLabel()->text(), name);
    EXPECT_EQ(window.windowTitle(), name + QStringLiteral(" — Earshot"));
    EXPECT_TRUE(window.modelPanel()->noteLabel()->isHidden());
    EXPECT_FALSE(
        window.livePanel()->transcript()->placeholderText().contains(QStringLiteral("espeak-ng")));

    checkpoint::WhisperConfig base;
    base.n_audio_state = 512;
    base.n_audio_layer = 6;
    base.n_text_layer = 6;
    base.n_mels = 80;
    base.n_vocab = 51864;
    EXPECT_EQ(app::whisper_kind(base), QStringLiteral("Whisper base.en"));
    base.n_audio_state = 1280;
    base.n_audio_layer = 32;
    base.n_text_layer = 4;
    base.n_mels = 128;
    base.n_vocab = 51866;
    EXPECT_EQ(app::whisper_kind(base), QStringLiteral("Whisper large-v3-turbo"));
}

}  // namespace
}  // namespace earshot::test
