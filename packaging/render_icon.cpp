// Build tool: renders the SVG application icon to the PNG sizes installed into the hicolor theme
// (usage: earshot_render_icon ICON.svg OUT_DIR SIZE...; writes OUT_DIR/SIZExSIZE.png).
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QString>
#include <QSvgRenderer>
#include <cstdio>

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    if (argc < 4) {
        std::fprintf(stderr, "usage: earshot_render_icon ICON.svg OUT_DIR SIZE...\n");
        return 2;
    }
    QSvgRenderer svg(QString::fromLocal8Bit(argv[1]));
    if (!svg.isValid()) {
        std::fprintf(stderr, "earshot_render_icon: cannot read %s\n", argv[1]);
        return 1;
    }
    for (int i = 3; i < argc; ++i) {
        const int size_px = QString::fromLocal8Bit(argv[i]).toInt();
        if (size_px <= 0) {
            std::fprintf(stderr, "earshot_render_icon: bad size %s\n", argv[i]);
            return 2;
        }
        QImage image(size_px, size_px, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        svg.render(&painter);
        painter.end();
        const QString path =
            QStringLiteral("%1/%2x%2.png").arg(QString::fromLocal8Bit(argv[2])).arg(size_px);
        if (!image.save(path, "PNG")) {
            std::fprintf(stderr, "earshot_render_icon: cannot write %s\n", qPrintable(path));
            return 1;
        }
    }
    return 0;
}
