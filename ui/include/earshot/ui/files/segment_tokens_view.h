// SegmentTokensView: one segment of a transcribed file as its tokens, each on a chip coloured by
// how sure the decoder was (the same scale as the Live page's token strip), wrapped over as many
// rows as the segment needs. Hovering a token shows its probability; a file keeps only each
// token's own probability, not the alternatives the Live page shows.
#pragma once

#include <QList>
#include <QRect>
#include <QString>
#include <QWidget>

#include "earshot/ui/files/file_job.h"

namespace earshot::ui {

class SegmentTokensView : public QWidget {
    Q_OBJECT

public:
    explicit SegmentTokensView(QWidget* parent = nullptr);

    // Shows `tokens` (an empty list shows `placeholder` instead).
    void setTokens(const QList<SegmentToken>& tokens, const QString& placeholder = {});
    void clear(const QString& placeholder = {});

    int tokenCount() const { return static_cast<int>(m_tokens.size()); }
    const SegmentToken& token(int index) const { return m_tokens.at(index); }
    QRect tokenRect(int index) const { return m_rects.at(index); }
    int tokenAt(const QPoint& point) const;  // -1 when no chip is there
    const QString& placeholder() const { return m_placeholder; }
    // "“ bread” 62% (alternatives are shown only while dictating)"
    QString describe(int index) const;

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    // The chips' rectangles for `width`; returns the height they take.
    int layoutChips(int width, QList<QRect>* rects) const;
    int rowHeight() const;
    QString chipText(int index) const;

    QList<SegmentToken> m_tokens;
    QList<QRect> m_rects;
    QString m_placeholder;
};

}  // namespace earshot::ui
