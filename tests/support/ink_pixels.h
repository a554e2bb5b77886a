// Counting "ink" in a rendered widget: pixels clearly different from the background, so a test
// can tell painted text from an empty (or boxes-only) rendering.
#pragma once

#include <QColor>
#include <QImage>
#include <cstdlib>

namespace earshot::ui::test {

// Pixels whose colour differs clearly from the image's top-left (background) pixel.
inline int countInkPixels(const QImage& image) {
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

}  // namespace earshot::ui::test
