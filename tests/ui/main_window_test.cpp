// Tests for MainWindow: the no-model and model pages, the menu actions, the status bar, and that
// the window really paints text and its icon.
#include "earshot/ui/main_window.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QFontInfo>
#include <QImage>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTest>
#include <cstdlib>

#include "earshot/ui/app_icon.h"

namespace earshot::ui {
namespace {

// Pixels whose colour differs clearly from the image's top-left (background) pixel.
int countInkPixels(const QImage& image) {
    const QColor background = image.pixelColor(0, 0);
    int ink = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            const int distance = std::abs(c.red() - background.red()) +
                                 std::abs(c.green() - background.green()) +
                                 std::abs(c.blue() - background.blue());
            if (distance > 96) {
                ++ink;
            }
        }
    }
    return ink;
}

TEST(MainWindow, TitleAndBackend) {
    MainWindow window;
    EXPECT_EQ(window.windowTitle(), QStringLiteral("Earshot"));
    auto* backend = window.findChild<QLabel*>(QStringLiteral("backendLabel"));
    ASSERT_NE(backend, nullptr);
    EXPECT_TRUE(backend->text().contains(QStringLiteral("CPU"))) << backend->text().toStdString();
    window.setBackendName(QStringLiteral("CUDA"));
    EXPECT_TRUE(backend->text().contains(QStringLiteral("CUDA")));
}

TEST(MainWindow, StartsWithDefaultNoModelMessage) {
    MainWindow window;
    auto* label = window.findChild<QLabel*>(QStringLiteral("noModelMessage"));
    ASSERT_NE(label, nullptr);
    auto* stack = qobject_cast<QStackedWidget*>(window.centralWidget());
    ASSERT_NE(stack, nullptr);
    EXPECT_EQ(stack->currentWidget(), label);
    EXPECT_EQ(label->text(), MainWindow::defaultNoModelMessage());
    EXPECT_TRUE(label->text().contains(QStringLiteral("earshot inspect --model PATH")));
}

TEST(MainWindow, ShowNoModelShowsTheMessage) {
    MainWindow window;
    window.showModel(QStringLiteral("tiny"), QStringLiteral("Entries\n"));
    window.showNoModel(QStringLiteral("Could not read model.bin"));
    auto* label = window.findChild<QLabel*>(QStringLiteral("noModelMessage"));
    ASSERT_NE(label, nullptr);
    EXPECT_EQ(label->text(), QStringLiteral("Could not read model.bin"));
    auto* stack = qobject_cast<QStackedWidget*>(window.centralWidget());
    ASSERT_NE(stack, nullptr);
    EXPECT_EQ(stack->currentWidget(), label);
}

TEST(MainWindow, ShowModelPutsTextInReadOnlyMonospaceView) {
    MainWindow window;
    const QString text =
        QStringLiteral("Entries\n  pub entry encode<B>(mel: Tensor[B, Mels, Frames; T])\n");
    window.showModel(QStringLiteral("whisper-large-v3"), text);

    auto* view = window.findChild<QPlainTextEdit*>(QStringLiteral("inspectView"));
    ASSERT_NE(view, nullptr);
    EXPECT_EQ(view->toPlainText(), text);
    EXPECT_TRUE(view->isReadOnly());
    EXPECT_TRUE(QFontInfo(view->font()).fixedPitch());

    auto* title = window.findChild<QLabel*>(QStringLiteral("modelTitle"));
    ASSERT_NE(title, nullptr);
    EXPECT_EQ(title->text(), QStringLiteral("whisper-large-v3"));

    auto* stack = qobject_cast<QStackedWidget*>(window.centralWidget());
    ASSERT_NE(stack, nullptr);
    EXPECT_TRUE(stack->currentWidget()->isAncestorOf(view));
}

TEST(MainWindow, FileMenuHasOpenAndQuitWithShortcuts) {
    MainWindow window;
    QAction* open = window.openModelAction();
    ASSERT_NE(open, nullptr);
    EXPECT_EQ(open->objectName(), QStringLiteral("actionOpenModel"));
    EXPECT_TRUE(open->text().contains(QStringLiteral("Open model")));
    EXPECT_EQ(open->shortcut(), QKeySequence(QKeySequence::Open));

    QAction* quit = window.quitAction();
    ASSERT_NE(quit, nullptr);
    EXPECT_EQ(quit->shortcut(), QKeySequence(QStringLiteral("Ctrl+Q")));

    const QList<QAction*> menus = window.menuBar()->actions();
    ASSERT_FALSE(menus.isEmpty());
    QMenu* fileMenu = menus.first()->menu();
    ASSERT_NE(fileMenu, nullptr);
    EXPECT_EQ(fileMenu->title(), QStringLiteral("&File"));
    EXPECT_TRUE(fileMenu->actions().contains(open));
    EXPECT_TRUE(fileMenu->actions().contains(window.openModelFolderAction()));
    EXPECT_TRUE(fileMenu->actions().contains(quit));
}

TEST(MainWindow, QuitClosesTheWindow) {
    MainWindow window;
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    window.quitAction()->trigger();
    EXPECT_FALSE(window.isVisible());
}

TEST(MainWindow, ModelChosenSignalCarriesThePath) {
    MainWindow window;
    QSignalSpy spy(&window, &MainWindow::modelChosen);
    ASSERT_TRUE(spy.isValid());
    emit window.modelChosen(QStringLiteral("/models/ggml-tiny.bin"));
    ASSERT_EQ(spy.count(), 1);
    EXPECT_EQ(spy.at(0).at(0).toString(), QStringLiteral("/models/ggml-tiny.bin"));
}

TEST(MainWindow, RendersTextPixels) {
    MainWindow window;
    window.resize(640, 480);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));

    const QImage whole = window.grab().toImage();
    ASSERT_FALSE(whole.isNull());
    EXPECT_GE(whole.width(), 640);
    EXPECT_GE(whole.height(), 480);

    // The message label alone: its background is uniform, so ink pixels are glyphs.
    auto* label = window.findChild<QLabel*>(QStringLiteral("noModelMessage"));
    ASSERT_NE(label, nullptr);
    const int messageInk = countInkPixels(label->grab().toImage());
    EXPECT_GT(messageInk, 500) << "the no-model message painted no visible text";

    // Emptying the label removes the ink: the pixels above came from the text.
    window.showNoModel(QString());
    EXPECT_EQ(countInkPixels(label->grab().toImage()), 0);

    window.showModel(QStringLiteral("tiny"), QStringLiteral("Entries\nGenerics\nBlocks\n"));
    auto* view = window.findChild<QPlainTextEdit*>(QStringLiteral("inspectView"));
    ASSERT_NE(view, nullptr);
    EXPECT_GT(countInkPixels(view->viewport()->grab().toImage()), 100);

    // For looking at by eye: EARSHOT_SCREENSHOT_DIR=/some/dir keeps the two renderings.
    const QString shots = qEnvironmentVariable("EARSHOT_SCREENSHOT_DIR");
    if (!shots.isEmpty()) {
        EXPECT_TRUE(whole.save(shots + QStringLiteral("/main_window_no_model.png")));
        EXPECT_TRUE(window.grab().toImage().save(shots + QStringLiteral("/main_window_model.png")));
    }
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
