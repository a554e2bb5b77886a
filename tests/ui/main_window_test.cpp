// Tests for MainWindow: the four pages, the no-model and model states, the menus and shortcuts,
// the status bar (backend, latency, losses), the inspector slot, and that the window really paints
// text and its icon.
#include "earshot/ui/main_window.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QDockWidget>
#include <QImage>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPixmap>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cstdlib>

#include "earshot/ui/app_icon.h"
#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/live/transcript_view.h"
#include "earshot/ui/model/model_panel.h"
#include "ink_pixels.h"

namespace earshot::ui {
namespace {

using test::countInkPixels;

ModelSummary tinySummary() {
    ModelSummary summary;
    summary.path = QStringLiteral("/models/whisper-tiny");
    summary.format = QStringLiteral("hf_directory");
    summary.dtypeSource = QStringLiteral("config.json torch_dtype");
    summary.generics = {{QStringLiteral("Mels"), QStringLiteral("80")},
                        {QStringLiteral("D"), QStringLiteral("384")},
                        {QStringLiteral("Heads"), QStringLiteral("6")}};
    summary.languages = {QStringLiteral("en"), QStringLiteral("de")};
    return summary;
}

QMenu* menuTitled(QMainWindow& window, const QString& title) {
    for (QAction* action : window.menuBar()->actions()) {
        if (action->menu() != nullptr && action->menu()->title() == title) {
            return action->menu();
        }
    }
    return nullptr;
}

TEST(MainWindow, HasLiveFilesModelAndInspectorPages) {
    MainWindow window;
    QTabWidget* tabs = window.tabs();
    ASSERT_EQ(tabs->count(), 4);
    EXPECT_EQ(tabs->tabText(0), QStringLiteral("&Live"));
    EXPECT_EQ(tabs->tabText(1), QStringLiteral("&Files"));
    EXPECT_EQ(tabs->tabText(2), QStringLiteral("&Model"));
    EXPECT_EQ(tabs->tabText(3), QStringLiteral("&Inspector"));
    EXPECT_EQ(tabs->widget(0), window.livePanel());
    window.showPage(MainWindow::Page::files);
    EXPECT_EQ(window.currentPage(), MainWindow::Page::files);
    EXPECT_EQ(tabs->currentIndex(), 1);
    window.showPage(MainWindow::Page::inspector);
    EXPECT_EQ(window.currentPage(), MainWindow::Page::inspector);
}

TEST(MainWindow, TitleAndBackend) {
    MainWindow window;
    EXPECT_EQ(window.windowTitle(), QStringLiteral("Earshot"));
    auto* backend = window.findChild<QLabel*>(QStringLiteral("backendLabel"));
    ASSERT_NE(backend, nullptr);
    EXPECT_EQ(backend->text(), QStringLiteral("Backend: CPU"));
    window.setBackendName(QStringLiteral("CUDA (NVIDIA H200)"));
    EXPECT_EQ(backend->text(), QStringLiteral("Backend: CUDA (NVIDIA H200)"));
    EXPECT_TRUE(backend->toolTip().isEmpty());
    // A fallback names its reason in the tooltip.
    window.setBackendName(QStringLiteral("CPU"), QStringLiteral("CUDA is not available"));
    EXPECT_EQ(backend->text(), QStringLiteral("Backend: CPU"));
    EXPECT_EQ(backend->toolTip(), QStringLiteral("CUDA is not available"));
}

TEST(MainWindow, StartsWithoutModelAndDictationCannotStart) {
    MainWindow window;
    auto* label = window.findChild<QLabel*>(QStringLiteral("noModelMessage"));
    ASSERT_NE(label, nullptr);
    EXPECT_EQ(label->text(), MainWindow::defaultNoModelMessage());
    EXPECT_TRUE(label->text().contains(QStringLiteral("earshot inspect --model PATH")));
    EXPECT_FALSE(window.modelPanel()->hasModel());
    EXPECT_FALSE(window.livePanel()->startAllowed());
    EXPECT_FALSE(window.livePanel()->startStopButton()->isEnabled());
    // Start requests are not sent without a model, by button or shortcut.
    QSignalSpy starts(window.livePanel(), &LivePanel::startRequested);
    window.toggleDictationAction()->trigger();
    EXPECT_EQ(starts.count(), 0);
}

TEST(MainWindow, ShowModelEnablesDictationAndNamesTheModel) {
    MainWindow window;
    window.showModel(tinySummary());
    EXPECT_EQ(window.windowTitle(), QStringLiteral("whisper-tiny — Earshot"));
    EXPECT_TRUE(window.livePanel()->startStopButton()->isEnabled());
    QTableWidget* generics = window.modelPanel()->genericsTable();
    ASSERT_EQ(generics->rowCount(), 3);
    EXPECT_EQ(generics->item(1, 0)->text(), QStringLiteral("D"));
    EXPECT_EQ(generics->item(1, 1)->text(), QStringLiteral("384"));

    QSignalSpy starts(window.livePanel(), &LivePanel::startRequested);
    window.toggleDictationAction()->trigger();
    ASSERT_EQ(starts.count(), 1);
    EXPECT_EQ(starts.at(0).at(0).toString(), QString());  // the default input
    EXPECT_EQ(window.currentPage(), MainWindow::Page::live);

    window.showNoModel(QStringLiteral("Could not read model.bin"));
    EXPECT_FALSE(window.livePanel()->startStopButton()->isEnabled());
    EXPECT_EQ(window.windowTitle(), QStringLiteral("Earshot"));
}

TEST(MainWindow, LoadErrorShowsTheReasonAndKeepsTheModel) {
    MainWindow window;
    window.showModel(tinySummary());
    const QString reason = QStringLiteral(
        "encoder_layers.0.fc1.weight: Tensor[Inner, D; T] expects [1536, 384], found [4, 4]");
    window.showModelLoadError(QStringLiteral("/models/broken"), reason);
    auto* error = window.findChild<QLabel*>(QStringLiteral("modelError"));
    ASSERT_NE(error, nullptr);
    EXPECT_FALSE(error->isHidden());
    EXPECT_TRUE(error->text().contains(reason)) << error->text().toStdString();
    EXPECT_TRUE(error->text().contains(QStringLiteral("/models/broken")));
    EXPECT_TRUE(window.modelPanel()->hasModel());
    EXPECT_TRUE(window.livePanel()->startStopButton()->isEnabled());
    // A model that loads clears the error.
    window.showModel(tinySummary());
    EXPECT_TRUE(error->isHidden());
}

TEST(MainWindow, MenusHaveTheActionsAndShortcuts) {
    MainWindow window;
    QMenu* file = menuTitled(window, QStringLiteral("&File"));
    ASSERT_NE(file, nullptr);
    EXPECT_TRUE(file->actions().contains(window.transcribeFilesAction()));
    EXPECT_TRUE(file->actions().contains(window.openModelAction()));
    EXPECT_TRUE(file->actions().contains(window.openModelFolderAction()));
    EXPECT_TRUE(file->actions().contains(window.quitAction()));
    EXPECT_EQ(window.transcribeFilesAction()->shortcut(), QKeySequence(QKeySequence::Open));
    EXPECT_EQ(window.quitAction()->shortcut(), QKeySequence(QStringLiteral("Ctrl+Q")));

    QMenu* dictation = menuTitled(window, QStringLiteral("&Dictation"));
    ASSERT_NE(dictation, nullptr);
    EXPECT_TRUE(dictation->actions().contains(window.toggleDictationAction()));
    const QList<QKeySequence> keys = window.toggleDictationAction()->shortcuts();
    EXPECT_TRUE(keys.contains(QKeySequence(QStringLiteral("Ctrl+Space"))));
    EXPECT_TRUE(keys.contains(QKeySequence(QStringLiteral("F5"))));

    QMenu* edit = menuTitled(window, QStringLiteral("&Edit"));
    ASSERT_NE(edit, nullptr);
    EXPECT_TRUE(edit->actions().contains(window.settingsAction()));
    ASSERT_NE(menuTitled(window, QStringLiteral("&View")), nullptr);
}

TEST(MainWindow, F5TogglesDictationWhileRunning) {
    MainWindow window;
    window.showModel(tinySummary());
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    QSignalSpy starts(window.livePanel(), &LivePanel::startRequested);
    QSignalSpy stops(window.livePanel(), &LivePanel::stopRequested);
    QTest::keyClick(&window, Qt::Key_F5);
    EXPECT_EQ(starts.count(), 1);
    window.setLiveRunning(true);
    EXPECT_EQ(window.toggleDictationAction()->text(), QStringLiteral("&Stop dictation"));
    EXPECT_EQ(window.livePanel()->startStopButton()->text(), QStringLiteral("■ Stop"));
    QTest::keyClick(&window, Qt::Key_Space, Qt::ControlModifier);
    EXPECT_EQ(stops.count(), 1);
    EXPECT_EQ(starts.count(), 1);
}

TEST(MainWindow, StatusBarShowsLatencyAndLosses) {
    MainWindow window;
    LiveTextUpdate update;
    update.committedText = QStringLiteral(" And so my fellow Americans");
    update.tentativeText = QStringLiteral(" ask not");
    update.engineMs = 123.4;
    update.delayMs = 456.7;
    update.decoded = true;
    window.applyLiveUpdate(update);
    EXPECT_EQ(window.latencyLabel()->text(), QStringLiteral("Engine 123 ms · delay 457 ms"));
    EXPECT_TRUE(window.lossLabel()->isHidden());
    EXPECT_EQ(window.livePanel()->transcript()->committedText(),
              QStringLiteral(" And so my fellow Americans"));
    EXPECT_EQ(window.livePanel()->transcript()->tentativeText(), QStringLiteral(" ask not"));

    // A silent update keeps the last decoded latency; losses show once there are any.
    LiveTextUpdate silent;
    silent.overrunSamples = 1600;
    silent.droppedFrames = 3;
    window.applyLiveUpdate(silent);
    EXPECT_EQ(window.latencyLabel()->text(), QStringLiteral("Engine 123 ms · delay 457 ms"));
    EXPECT_FALSE(window.lossLabel()->isHidden());
    EXPECT_EQ(window.lossLabel()->text(),
              QStringLiteral("overruns: 1600 samples · dropped: 3 frames"));
    // A new session starts clean.
    window.setLiveRunning(true);
    EXPECT_TRUE(window.lossLabel()->isHidden());
    EXPECT_TRUE(window.latencyLabel()->text().isEmpty());
}

TEST(MainWindow, InspectorPlaceholderIsReplaced) {
    MainWindow window;
    auto* placeholder = window.findChild<QLabel*>(QStringLiteral("inspectorPlaceholder"));
    ASSERT_NE(placeholder, nullptr);
    EXPECT_EQ(window.inspectorWidget(), placeholder);
    window.showPage(MainWindow::Page::inspector);
    auto* inspector = new QLabel(QStringLiteral("graph"));
    window.setInspectorWidget(inspector);
    EXPECT_EQ(window.inspectorWidget(), inspector);
    EXPECT_EQ(window.tabs()->indexOf(inspector), 3);
    EXPECT_EQ(window.tabs()->tabText(3), QStringLiteral("&Inspector"));
    EXPECT_EQ(window.currentPage(), MainWindow::Page::inspector);
}

TEST(MainWindow, QuitClosesTheWindow) {
    MainWindow window;
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    window.quitAction()->trigger();
    EXPECT_FALSE(window.isVisible());
}

// Ctrl+Q with files queued or running (or dictation running) asks first; "no" keeps the window
// and the work, "yes" quits. Without such work it quits without asking.
TEST(MainWindow, QuitAsksFirstWhileWorkIsUnfinished) {
    MainWindow window;
    QStringList questions;
    bool answer = false;
    window.setQuitConfirmation([&](const QString& question) {
        questions << question;
        return answer;
    });
    window.show();
    window.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
    const QList<int> ids = window.filesPanel()->queue()->addFiles(
        {QStringLiteral("/audio/lecture.flac"), QStringLiteral("/audio/talk.mp3")});
    window.filesPanel()->queue()->setJobRunning(ids[0]);

    QTest::keyClick(&window, Qt::Key_Q, Qt::ControlModifier);
    ASSERT_EQ(questions.size(), 1);
    EXPECT_TRUE(
        questions[0].contains(QStringLiteral("2 files are still queued or being transcribed")))
        << questions[0].toStdString();
    EXPECT_TRUE(questions[0].endsWith(QStringLiteral("Quit anyway?")));
    EXPECT_TRUE(window.isVisible());

    window.filesPanel()->queue()->setJobFinished(ids[0], {}, QStringLiteral("en"));
    window.setLiveRunning(true);
    window.quitAction()->trigger();
    ASSERT_EQ(questions.size(), 2);
    EXPECT_TRUE(questions[1].startsWith(QStringLiteral("Dictation is running")))
        << questions[1].toStdString();
    EXPECT_TRUE(questions[1].contains(QStringLiteral("1 file is still queued")))
        << questions[1].toStdString();
    EXPECT_TRUE(window.isVisible());

    answer = true;
    window.quitAction()->trigger();
    EXPECT_EQ(questions.size(), 3);
    EXPECT_FALSE(window.isVisible());

    // Nothing unfinished: no question.
    MainWindow idle;
    int asked = 0;
    idle.setQuitConfirmation([&](const QString&) { return ++asked, false; });
    idle.filesPanel()->queue()->addFinishedJob(QStringLiteral("/audio/done.wav"), {},
                                               QStringLiteral("en"), FileJobState::done);
    idle.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&idle));
    EXPECT_EQ(idle.unfinishedWork(), QString());
    idle.quitAction()->trigger();
    EXPECT_EQ(asked, 0);
    EXPECT_FALSE(idle.isVisible());
}

TEST(MainWindow, ModelPanelChoiceIsForwarded) {
    MainWindow window;
    QSignalSpy spy(&window, &MainWindow::modelChosen);
    ASSERT_TRUE(spy.isValid());
    Q_EMIT window.modelPanel()->modelChosen(QStringLiteral("/models/ggml-tiny.bin"), QString());
    ASSERT_EQ(spy.count(), 1);
    EXPECT_EQ(spy.at(0).at(0).toString(), QStringLiteral("/models/ggml-tiny.bin"));
    EXPECT_EQ(spy.at(0).at(1).toString(), QString());
}

TEST(MainWindow, RendersTextPixels) {
    MainWindow window;
    window.resize(800, 600);
    window.showPage(MainWindow::Page::model);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));

    const QImage whole = window.grab().toImage();
    ASSERT_FALSE(whole.isNull());
    EXPECT_GE(whole.width(), 800);
    EXPECT_GE(whole.height(), 600);

    // The message label alone: its background is uniform, so ink pixels are glyphs.
    auto* label = window.findChild<QLabel*>(QStringLiteral("noModelMessage"));
    ASSERT_NE(label, nullptr);
    const int messageInk = countInkPixels(label->grab().toImage());
    EXPECT_GT(messageInk, 500) << "the no-model message painted no visible text";
    // Emptying the label removes the ink: the pixels above came from the text.
    window.showNoModel(QString());
    EXPECT_EQ(countInkPixels(label->grab().toImage()), 0);

    window.showModel(tinySummary());
    QTableWidget* generics = window.modelPanel()->genericsTable();
    EXPECT_GT(countInkPixels(generics->viewport()->grab().toImage()), 100);

    // For looking at by eye: EARSHOT_SCREENSHOT_DIR=/some/dir keeps the renderings.
    const QString shots = qEnvironmentVariable("EARSHOT_SCREENSHOT_DIR");
    if (!shots.isEmpty()) {
        EXPECT_TRUE(whole.save(shots + QStringLiteral("/main_window_no_model.png")));
        EXPECT_TRUE(window.grab().toImage().save(shots + QStringLiteral("/main_window_model.png")));
    }
}

// Pixels whose grey level (the mean of R, G and B) lies in [low, high].
int countGreyLevel(const QImage& image, int low, int high) {
    int count = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            const int level = (c.red() + c.green() + c.blue()) / 3;
            count += level >= low && level <= high ? 1 : 0;
        }
    }
    return count;
}

TEST(MainWindow, LiveTranscriptPaintsCommittedDarkAndTentativeGrey) {
    MainWindow window;
    window.resize(800, 600);
    window.showModel(tinySummary());
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    TranscriptView* view = window.livePanel()->transcript();
    ASSERT_LT(view->palette().color(QPalette::Text).lightness(), 60);  // dark text on light
    // Glyph cores: committed text near black, tentative text near its grey (0x8a = 138).
    const auto dark = [](const QImage& image) { return countGreyLevel(image, 0, 70); };
    const auto grey = [](const QImage& image) { return countGreyLevel(image, 118, 158); };

    LiveTextUpdate committedOnly;
    committedOnly.committedText = QStringLiteral("And so, my fellow Americans,");
    window.applyLiveUpdate(committedOnly);
    const QImage before = view->viewport()->grab().toImage();
    EXPECT_GT(dark(before), 150);

    LiveTextUpdate withTail;
    withTail.tentativeText = QStringLiteral(" ask not what your country can do for you");
    window.applyLiveUpdate(withTail);
    const QImage after = view->viewport()->grab().toImage();
    // The tail adds grey glyphs, about as many as its characters need, and almost no dark ones.
    EXPECT_GT(grey(after) - grey(before), 200);
    EXPECT_LT(dark(after) - dark(before), dark(before) / 5);

    const QString shots = qEnvironmentVariable("EARSHOT_SCREENSHOT_DIR");
    if (!shots.isEmpty()) {
        EXPECT_TRUE(window.grab().toImage().save(shots + QStringLiteral("/main_window_live.png")));
    }
}

// View > Inspector beside the pages: the graph in a dock beside the Live page, both on screen at
// once; the choice and the dock's place come back with the next window; and back into its tab.
TEST(MainWindow, InspectorBesideTheLivePageIsRememberedAndUndone) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    QSettings store(dir.filePath(QStringLiteral("layout.ini")), QSettings::IniFormat);
    {
        MainWindow window;
        auto* graph = new QLabel(QStringLiteral("graph"));
        window.setInspectorWidget(graph);
        window.setLayoutStore(&store);  // nothing stored yet: the default layout
        EXPECT_FALSE(window.inspectorBeside());
        window.resize(1200, 700);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
        QMenu* view = menuTitled(window, QStringLiteral("&View"));
        ASSERT_NE(view, nullptr);
        ASSERT_TRUE(view->actions().contains(window.inspectorBesideAction()));
        EXPECT_EQ(window.inspectorBesideAction()->shortcut(),
                  QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I));
        window.showPage(MainWindow::Page::inspector);
        window.inspectorBesideAction()->trigger();
        EXPECT_TRUE(window.inspectorBeside());
        EXPECT_EQ(window.tabs()->count(), 3);
        EXPECT_EQ(window.currentPage(), MainWindow::Page::live);
        EXPECT_EQ(window.dockWidgetArea(window.inspectorDock()), Qt::RightDockWidgetArea);
        QTest::qWait(50);
        // Both seen at once, side by side, each with a usable width.
        EXPECT_TRUE(window.livePanel()->isVisible());
        EXPECT_TRUE(graph->isVisible());
        const QRect live(window.livePanel()->mapTo(&window, QPoint(0, 0)),
                         window.livePanel()->size());
        const QRect inspector(graph->mapTo(&window, QPoint(0, 0)), graph->size());
        EXPECT_FALSE(live.intersects(inspector));
        EXPECT_GE(graph->width(), 200);
        EXPECT_GE(window.livePanel()->width(), 300);
        // An inspector wider than its place scrolls; it does not widen the window.
        graph->setMinimumWidth(900);
        QTest::qWait(50);
        EXPECT_LE(window.width(), 1200);
        graph->setMinimumWidth(0);
        // The Inspector page is the dock now.
        window.showPage(MainWindow::Page::inspector);
        EXPECT_EQ(window.currentPage(), MainWindow::Page::live);
        EXPECT_TRUE(graph->isVisible());
        window.close();  // keeps the layout
    }
    {
        MainWindow window;
        auto* graph = new QLabel(QStringLiteral("graph"));
        window.setInspectorWidget(graph);
        window.setLayoutStore(&store);
        EXPECT_TRUE(window.inspectorBeside());
        EXPECT_TRUE(window.inspectorBesideAction()->isChecked());
        EXPECT_EQ(window.tabs()->count(), 3);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
        EXPECT_TRUE(graph->isVisible());
        // A new inspector widget (another model) goes where the inspector is.
        auto* next = new QLabel(QStringLiteral("next graph"));
        window.setInspectorWidget(next);
        EXPECT_EQ(window.inspectorWidget(), next);
        QTest::qWait(50);
        EXPECT_TRUE(next->isVisible());

        window.inspectorBesideAction()->trigger();  // back into its tab
        EXPECT_FALSE(window.inspectorBeside());
        ASSERT_EQ(window.tabs()->count(), 4);
        EXPECT_EQ(window.tabs()->widget(3), next);
        EXPECT_EQ(window.tabs()->tabText(3), QStringLiteral("&Inspector"));
        EXPECT_EQ(window.currentPage(), MainWindow::Page::inspector);
        EXPECT_FALSE(window.inspectorDock()->isVisible());
        window.close();
    }
    MainWindow third;
    third.setLayoutStore(&store);
    EXPECT_FALSE(third.inspectorBeside());
}

TEST(MainWindow, HelpAboutNamesTheVersionBackendAndModel) {
    MainWindow window;
    QMenu* help = menuTitled(window, QStringLiteral("&Help"));
    ASSERT_NE(help, nullptr);
    ASSERT_TRUE(help->actions().contains(window.aboutAction()));
    window.setBackendName(QStringLiteral("CPU"));
    ModelSummary summary = tinySummary();
    summary.name = QStringLiteral("whisper-tiny (Whisper tiny)");
    window.showModel(summary);
    window.show();
    window.aboutAction()->trigger();
    auto* box = window.findChild<QMessageBox*>(QStringLiteral("aboutBox"));
    ASSERT_NE(box, nullptr);
    EXPECT_TRUE(box->isVisible());
    EXPECT_TRUE(box->text().contains(QStringLiteral("Earshot 0.")));
    EXPECT_TRUE(box->text().contains(QStringLiteral("Backend: CPU")));
    EXPECT_TRUE(box->text().contains(QStringLiteral("whisper-tiny (Whisper tiny)")));
    // Not modal: the window keeps working while it is open.
    EXPECT_FALSE(window.tabs()->isHidden());
    box->close();
}

TEST(AppIcon, HasNonBlankPixmaps) {
    const QIcon icon = appIcon();
    ASSERT_FALSE(icon.isNull());
    const QImage image = icon.pixmap(64, 64).toImage().convertToFormat(QImage::Format_ARGB32);
    ASSERT_EQ(image.width(), 64);
    int opaque = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            if (qAlpha(image.pixel(x, y)) > 200) {
                ++opaque;
            }
        }
    }
    // The rounded tile covers most of the square; corners stay transparent.
    EXPECT_GT(opaque, 64 * 64 / 2);
    EXPECT_LT(opaque, 64 * 64);
    MainWindow window;
    EXPECT_FALSE(window.windowIcon().isNull());
}

}  // namespace
}  // namespace earshot::ui
