// SegmentTokensView: chips laid out left to right in rows (a wider gap before a token that starts
// a word), as tall as the segment needs; the colours and percentages come from token_confidence.
#include "earshot/ui/files/segment_tokens_view.h"

#include <QEvent>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include "earshot/ui/tokens/token_confidence.h"

namespace earshot::ui {

namespace {
constexpr int kMargin = 4;    // around the chips
constexpr int kPadding = 4;   // inside a chip, left and right
constexpr int kWordGap = 7;   // before a token that starts a word
constexpr int kPieceGap = 2;  // before a piece of the same word
constexpr int kRowGap = 4;
}  // namespace

SegmentTokensView::SegmentTokensView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("segmentTokens"));
    setMouseTracking(true);
    QSizePolicy policy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
    setToolTip(tokenConfidenceHint() +
               tr(" (a file keeps each token's probability; alternatives are shown only while "
                  "dictating)"));
}

void SegmentTokensView::setTokens(const QList<SegmentToken>& tokens, const QString& placeholder) {
    m_tokens = tokens;
    m_placeholder = placeholder;
    layoutChips(width(), &m_rects);
    updateGeometry();
    update();
}

void SegmentTokensView::clear(const QString& placeholder) { setTokens({}, placeholder); }

int SegmentTokensView::rowHeight() const { return fontMetrics().height() + 6; }

QString SegmentTokensView::chipText(int index) const {
    QString text = m_tokens.at(index).text;
    if (text.startsWith(QLatin1Char(' '))) text.remove(0, 1);
    return text.isEmpty() ? QStringLiteral("␣") : text;
}

int SegmentTokensView::layoutChips(int width, QList<QRect>* rects) const {
    rects->clear();
    const QFontMetrics metrics = fontMetrics();
    const int right = width - kMargin;
    int x = kMargin;
    int y = kMargin;
    for (int i = 0; i < m_tokens.size(); ++i) {
        const int chipWidth = metrics.horizontalAdvance(chipText(i)) + 2 * kPadding;
        const int gap = i == 0                                             ? 0
                        : m_tokens.at(i).text.startsWith(QLatin1Char(' ')) ? kWordGap
                                                                           : kPieceGap;
        if (i > 0 && x + gap + chipWidth > right) {
            x = kMargin;
            y += rowHeight() + kRowGap;
        } else {
            x += gap;
        }
        rects->append(QRect(x, y, chipWidth, rowHeight()));
        x += chipWidth;
    }
    return y + rowHeight() + kMargin;  // one row for the placeholder when there are no tokens
}

int SegmentTokensView::heightForWidth(int width) const {
    QList<QRect> rects;
    return layoutChips(width, &rects);
}

QSize SegmentTokensView::sizeHint() const { return {480, heightForWidth(480)}; }

QSize SegmentTokensView::minimumSizeHint() const { return {160, rowHeight() + 2 * kMargin}; }

int SegmentTokensView::tokenAt(const QPoint& point) const {
    for (int i = 0; i < m_rects.size(); ++i) {
        if (m_rects.at(i).contains(point)) return i;
    }
    return -1;
}

QString SegmentTokensView::describe(int index) const {
    const SegmentToken& token = m_tokens.at(index);
    return tr("“%1” %2 (alternatives are shown only while dictating)")
        .arg(token.text, tokenConfidencePercent(token.probability));
}

bool SegmentTokensView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int index = tokenAt(help->pos());
        if (index >= 0) {
            QToolTip::showText(help->globalPos(), describe(index), this, m_rects.at(index));
        } else {
            QToolTip::showText(help->globalPos(), toolTip(), this);
        }
        return true;
    }
    return QWidget::event(event);
}

void SegmentTokensView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    layoutChips(width(), &m_rects);
}

void SegmentTokensView::paintEvent(QPaintEvent* /*event*/) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing, false);
    if (m_tokens.isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(kMargin, kMargin, -kMargin, -kMargin),
                         Qt::AlignLeft | Qt::AlignTop, m_placeholder);
        return;
    }
    const QColor text(0x20, 0x20, 0x20);  // dark on the pale chips, in light and dark themes
    const QPen frame(QColor(0x55, 0x55, 0x55));
    for (int i = 0; i < m_tokens.size(); ++i) {
        const QRect chip = m_rects.at(i);
        painter.fillRect(chip, tokenConfidenceColor(m_tokens.at(i).probability));
        painter.setPen(frame);
        painter.drawRect(chip.adjusted(0, 0, -1, -1));
        painter.setPen(text);
        painter.drawText(chip, Qt::AlignCenter, chipText(i));
    }
}

}  // namespace earshot::ui
