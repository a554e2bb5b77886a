// The window as a person first sees it, driven with mouse clicks on the offscreen platform: the
// model loaded at start (while its pages are hidden), then the tabs clicked open.
#include <gtest/gtest.h>

#include <QGraphicsScene>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>
#include <filesystem>

#include "earshot/ui/inspector/graph_canvas.h"
#include "earshot/ui/inspector/graph_node_item.h"
#include "earshot/ui/inspector/graph_view.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/main_window.h"
#include "gui_controller.h"
#include "gui_fixture.h"
#include "gui_model.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

app::GuiPaths temp_paths(const TempDir& dir) {
    app::GuiPaths paths;
    paths.settingsFile = QString::fromStdString((dir.path() / "settings.ini").string());
    paths.journal = false;
    paths.listDevices = false;
    return paths;
}

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
    app::GuiController controller(window, temp_paths(dir));
    controller.openInitialModel(model, QString());  // as `earshot --model` does, before show()
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

}  // namespace
}  // namespace earshot::test
