// CrossAttentionView: one window's cross-attention drawn over time: the waveform, the log-mel,
// the words the map times as spans (clicking one asks for its audio), and under them the tokens x
// audio-positions map of the chosen heads with its warp path.
#pragma once

#include <QRectF>
#include <QWidget>

#include "earshot/ui/files/cross_attention_data.h"

namespace earshot::ui {

class CrossAttentionView : public QWidget {
    Q_OBJECT

public:
    explicit CrossAttentionView(QWidget* parent = nullptr);

    void setMap(const CrossAttentionMap& map);
    // Nothing drawn but `message` ("Computing...", why there is no map).
    void clear(const QString& message);
    const CrossAttentionMap& map() const { return m_map; }
    QString message() const { return m_map.message; }

    // Where things are drawn, in widget coordinates (empty when there is no map).
    QRectF waveformRect() const;
    QRectF melRect() const;
    QRectF mapRect() const;
    QRectF wordsRect() const;
    QRectF cellRect(int row, int position) const;
    QRectF wordRect(int index) const;
    // The word under `point`, -1 for none.
    int wordAt(QPointF point) const;

    // The colours the path and the map's lowest and highest values are drawn in.
    static QColor pathColor();
    static QColor heatColor(double fraction);  // 0..1

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

Q_SIGNALS:
    // A word was clicked: its span in the file, to be heard.
    void wordClicked(int index, double startS, double endS);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;  // tooltips: the token, time and value under the mouse

private:
    double xOfSeconds(double secondsInWindow) const;
    int rowHeight() const;
    void paintWaveform(QPainter& painter) const;
    void paintMel(QPainter& painter) const;
    void paintMap(QPainter& painter) const;
    void paintWords(QPainter& painter) const;

    CrossAttentionMap m_map;
};

}  // namespace earshot::ui
