// The main window after transcribing jfk.wav with a random checkpoint, and the Inspector on the
// graph of `encode` expanded one level, rendered to PNG on the offscreen platform: the Files page
// lists the segments with their times, the graph scene holds the seed picture's nodes, groups and
// edge types, and the renderings hold painted text (EARSHOT_SCREENSHOT_DIR=/some/dir keeps the
// PNGs for looking at).
#include <gtest/gtest.h>

#include <QImage>
#include <QLabel>
#include <QProgressBar>
#include <QSet>
#include <QTableWidget>
#include <filesystem>

#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/inspector/graph_canvas.h"
#include "earshot/ui/inspector/graph_edge_item.h"
#include "earshot/ui/inspector/graph_group_item.h"
#include "earshot/ui/inspector/graph_node_item.h"
#include "earshot/ui/inspector/graph_view.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/main_window.h"
#include "gui/files/files_worker.h"
#include "gui/gui_controller.h"
#include "gui/run_gui.h"
#include "gui_fixture.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

constexpr int kTranscribeTimeoutMs = 120'000;
constexpr double kJfkSeconds = 11.0;

QString keep_dir_or(const fs::path& fallback) {
    const QString keep = qEnvironmentVariable("EARSHOT_SCREENSHOT_DIR");
    return keep.isEmpty() ? QString::fromStdString(fallback.string()) : keep;
}

TEST(GuiScreenshot, FilesPageAfterTranscribingJfk) {
    if (!gui_assets_present()) GTEST_SKIP() << "jfk.wav or multilingual.tiktoken not found";
    ensure_gui_application();
    const TempDir dir("earshot-gui-shot");
    ui::MainWindow window;
    app::GuiPaths paths;
    paths.settingsFile = QString::fromStdString((dir.path() / "settings.ini").string());
    paths.journalFile = QString::fromStdString((dir.path() / "journal.txt").string());
    paths.listDevices = false;
    app::GuiController controller(window, paths);
    ASSERT_TRUE(open_model_and_wait(
        controller, QString::fromStdString(gui_random_checkpoint().string()),
        QString::fromStdString(gui_vocab().string()), app::GuiController::Remember::no));
    controller.files().setOptions(fast_file_options());

    ui::FilesPanel* files = window.filesPanel();
    const int id = files->queue()->addFiles({QString::fromStdString(gui_jfk().string())}).first();
    ASSERT_TRUE(app::wait_for_files(controller, kTranscribeTimeoutMs));
    ASSERT_EQ(files->queue()->jobState(id), ui::FileJobState::done);
    EXPECT_EQ(files->progressBar(id)->value(), files->progressBar(id)->maximum());

    // The table lists exactly the transcript's segments, in order, inside the audio.
    const decoding::Transcript* transcript = controller.files().transcript(id);
    ASSERT_NE(transcript, nullptr);
    EXPECT_EQ(transcript->language, "en");
    ASSERT_FALSE(transcript->segments.empty());
    QTableWidget* table = files->segmentTable();
    ASSERT_EQ(table->rowCount(), static_cast<int>(transcript->segments.size()));
    for (int row = 0; row < table->rowCount(); ++row) {
        const decoding::Segment& segment = transcript->segments[static_cast<size_t>(row)];
        EXPECT_EQ(table->item(row, 0)->text(), ui::formatSegmentTime(segment.start_s));
        EXPECT_EQ(table->item(row, 1)->text(), ui::formatSegmentTime(segment.end_s));
        EXPECT_EQ(table->item(row, 2)->text(), QString::fromStdString(segment.text).simplified());
        EXPECT_LE(segment.end_s, kJfkSeconds + 0.01);
    }

    ASSERT_TRUE(app::show_view(window, "files"));
    files->selectJob(id);
    files->selectSegment(0);
    const decoding::Segment& first = transcript->segments.front();
    EXPECT_TRUE(files->segmentTimeLabel()->text().startsWith(
        QStringLiteral("Segment 1: %1 → %2")
            .arg(ui::formatSegmentTime(first.start_s), ui::formatSegmentTime(first.end_s))))
        << files->segmentTimeLabel()->text().toStdString();

    const QImage image = app::render_window(window);
    ASSERT_FALSE(image.isNull());
    EXPECT_GE(image.width(), 900);
    EXPECT_GE(image.height(), 600);
    // Text really painted: the segment table's rows and the time line are glyphs, not boxes.
    EXPECT_GT(count_ink_pixels(table->viewport()->grab().toImage()), 400);
    EXPECT_GT(count_ink_pixels(files->segmentTimeLabel()->grab().toImage()), 150);
    const QString png = keep_dir_or(dir.path()) + QStringLiteral("/gui_files_jfk.png");
    ASSERT_TRUE(image.save(png, "PNG"));
    const QImage reread(png);
    EXPECT_EQ(reread.size(), image.size());
    EXPECT_GT(fs::file_size(png.toStdString()), 10'000u);

    // The same window on the Inspector: encode with one level of calls open.
    ASSERT_TRUE(app::show_view(window, "graph:encode"));
    EXPECT_EQ(window.currentPage(), ui::MainWindow::Page::inspector);
    ui::GraphView* graph = controller.inspector().graphView();
    ASSERT_EQ(graph->error(), QString());
    EXPECT_EQ(graph->entry(), QStringLiteral("encode"));
    QSet<QString> nodes;
    for (const ui::GraphNodeItem* item : graph->nodeItems()) nodes.insert(item->node().label);
    for (const char* label : {"permute", "conv1d", "gelu_erf", "+", "self_attn.forward",
                              "mlp.forward", "layer_norm", "mel : Tensor[B, Mels, Frames; T]"}) {
        EXPECT_TRUE(nodes.contains(QString::fromLatin1(label))) << label;
    }
    EXPECT_NE(graph->groupItem(QStringLiteral("for layer in encoder_layers")), nullptr);
    EXPECT_NE(graph->groupItem(QStringLiteral("encoder_norm.forward")), nullptr);
    QSet<QString> edges;
    for (const ui::GraphEdgeItem* item : graph->edgeItems()) edges.insert(item->label());
    EXPECT_TRUE(edges.contains(QStringLiteral("T[B, Mels, Frames]")));
    EXPECT_TRUE(edges.contains(QStringLiteral("T[B, Frames, Mels]")));
    EXPECT_TRUE(edges.contains(QStringLiteral("T[B, 1 + (-1 + Frames) / 2, D]")));

    const QImage graphImage = app::render_window(window);
    ASSERT_FALSE(graphImage.isNull());
    EXPECT_GT(count_ink_pixels(graph->canvas()->viewport()->grab().toImage()), 2000);
    const QString graphPng = keep_dir_or(dir.path()) + QStringLiteral("/gui_graph_encode.png");
    ASSERT_TRUE(graphImage.save(graphPng, "PNG"));
    EXPECT_GT(fs::file_size(graphPng.toStdString()), 10'000u);
}

}  // namespace
}  // namespace earshot::test
