// TokenStrip: chips laid out in rows (a gap before a token that starts a word), painted with the
// probability colour; the oldest committed chips are dropped until everything fits in kRows.
#include "earshot/ui/live/token_strip.h"

#include <QEvent>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

#include "earshot/ui/tokens/token_confidence.h"

namespace earshot::ui {

namespace {
constexpr int kMargin = 4;    // around the chips
constexpr int kPadding = 4;   // inside a chip, left and right
constexpr int kWordGap = 7;   // before a token that starts a word
constexpr int kPieceGap = 2;  // before a piece of the same word
constexpr int kRowGap = 4;

QString quoted(const QString& text) { return QStringLiteral("“%1”").arg(text); }
}  // namespace

TokenStrip::TokenStrip(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("tokenStrip"));
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setToolTip(tokenConfidenceHint());
}

QColor TokenStrip::colorFor(double probability) { return tokenConfidenceColor(probability); }

void TokenStrip::applyUpdate(const LiveTextUpdate& live) {
    m_tokens.erase(m_tokens.begin() + m_committed, m_tokens.end());
    for (const LiveToken& token : live.tokens) {
        if (token.committed) {
            m_tokens.insert(m_committed++, token);
        } else {
            m_tokens.append(token);
        }
    }
    m_selected = -1;
    relayout();
    update();
}

void TokenStrip::clear() {
    m_tokens.clear();
    m_committed = 0;
    m_selected = -1;
    relayout();
    update();
}

int TokenStrip::rowHeight() const { return fontMetrics().height() + 6; }

QSize TokenStrip::sizeHint() const {
    return {480, 2 * kMargin + kRows * rowHeight() + (kRows - 1) * kRowGap};
}

QSize TokenStrip::minimumSizeHint() const { return {160, sizeHint().height()}; }

QString TokenStrip::chipText(int index) const {
    QString text = m_tokens.at(index).text;
    const bool startsWord = text.startsWith(QLatin1Char(' '));
    if (startsWord) text.remove(0, 1);
    return text.isEmpty() ? QStringLiteral("␣") : text;
}

int TokenStrip::layoutChips() {
    m_rects.clear();
    const QFontMetrics metrics = fontMetrics();
    const int right = width() - kMargin;
    int x = kMargin;
    int y = kMargin;
    int rows = m_tokens.isEmpty() ? 0 : 1;
    for (int i = 0; i < m_tokens.size(); ++i) {
        const int chipWidth = metrics.horizontalAdvance(chipText(i)) + 2 * kPadding;
        const int gap = i == 0                                             ? 0
                        : m_tokens.at(i).text.startsWith(QLatin1Char(' ')) ? kWordGap
                                                                           : kPieceGap;
        if (i > 0 && x + gap + chipWidth > right) {
            ++rows;
            x = kMargin;
            y += rowHeight() + kRowGap;
        } else {
            x += gap;
        }
        m_rects.append(QRect(x, y, chipWidth, rowHeight()));
        x += chipWidth;
    }
    return rows;
}

void TokenStrip::relayout() {
    // The newest tokens matter: drop the oldest committed ones until the rest fits.
    while (layoutChips() > kRows && m_committed > 0) {
        m_tokens.removeFirst();
        --m_committed;
    }
}

int TokenStrip::tokenAt(const QPoint& point) const {
    for (int i = 0; i < m_rects.size(); ++i) {
        if (m_rects.at(i).contains(point)) return i;
    }
    return -1;
}

QString TokenStrip::describe(int index) const {
    const LiveToken& token = m_tokens.at(index);
    QString text = tr("%1 %2, %3")
                       .arg(quoted(token.text), tokenConfidencePercent(token.probability),
                            token.committed ? tr("committed") : tr("tentative"));
    QStringList alternatives;
    for (const auto& [other, probability] : token.alternatives) {
        alternatives << QStringLiteral("%1 %2").arg(quoted(other),
                                                    tokenConfidencePercent(probability));
    }
    if (!alternatives.isEmpty()) {
        text += tr(" · alternatives: %1").arg(alternatives.join(QStringLiteral(", ")));
    }
    return text;
}

bool TokenStrip::event(QEvent* event) {
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

void TokenStrip::mousePressEvent(QMouseEvent* event) {
    const int index = tokenAt(event->position().toPoint());
    if (index >= 0) {
        m_selected = index;
        update();
        Q_EMIT tokenSelected(index);
    }
    QWidget::mousePressEvent(event);
}

void TokenStrip::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    relayout();
}

void TokenStrip::paintEvent(QPaintEvent* /*event*/) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing, false);
    const QColor text = palette().color(QPalette::Text);
    const QColor grey(0x70, 0x70, 0x70);
    QFont italic = font();
    italic.setItalic(true);
    for (int i = 0; i < m_tokens.size(); ++i) {
        const LiveToken& token = m_tokens.at(i);
        const QRect rect = m_rects.at(i);
        painter.fillRect(rect, colorFor(token.probability));
        QPen frame(token.committed ? QColor(0x55, 0x55, 0x55) : QColor(0x99, 0x99, 0x99));
        frame.setStyle(token.committed ? Qt::SolidLine : Qt::DashLine);
        if (i == m_selected) {
            frame = QPen(QColor(0x1a, 0x5f, 0xb4), 2);
        }
        painter.setPen(frame);
        painter.drawRect(rect.adjusted(0, 0, -1, -1));
        painter.setPen(token.committed ? text : grey);
        painter.setFont(token.committed ? font() : italic);
        painter.drawText(rect, Qt::AlignCenter, chipText(i));
    }
}

}  // namespace earshot::ui
