// TokenStrip: the live hypothesis as tokens, each on a chip coloured by how sure the decoder was
// (red unsure .. green sure), committed ones framed solid, tentative ones dashed and grey; the
// latest committed tokens stay in view before the tentative ones. Hovering a token shows its
// probability and top alternatives; clicking it selects it (tokenSelected) for a details line.
#pragma once

#include <QList>
#include <QRect>
#include <QString>
#include <QWidget>

#include "earshot/ui/live/live_types.h"

namespace earshot::ui {

class TokenStrip : public QWidget {
    Q_OBJECT

public:
    static constexpr int kRows = 2;  // the strip's height in rows of chips

    explicit TokenStrip(QWidget* parent = nullptr);

    // Appends the update's committed tokens and replaces the tentative ones with its tentative
    // tokens; the oldest committed tokens leave when the rows are full.
    void applyUpdate(const LiveTextUpdate& update);
    void clear();

    int tokenCount() const { return static_cast<int>(m_tokens.size()); }
    const LiveToken& token(int index) const { return m_tokens.at(index); }
    QRect tokenRect(int index) const { return m_rects.at(index); }
    int tokenAt(const QPoint& point) const;  // -1 when no chip is there
    int selectedToken() const { return m_selected; }
    // "“ bread” 62%, tentative · alternatives: “ bed” 20%, “ red” 9%"
    QString describe(int index) const;
    // The chip colour for a probability (negative: not measured, neutral grey).
    static QColor colorFor(double probability);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void tokenSelected(int index);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    // Lays the chips out in rows; returns the rows used.
    int layoutChips();
    void relayout();
    int rowHeight() const;
    QString chipText(int index) const;

    QList<LiveToken> m_tokens;  // committed first (m_committed of them), then tentative
    int m_committed = 0;
    QList<QRect> m_rects;
    int m_selected = -1;
};

}  // namespace earshot::ui
