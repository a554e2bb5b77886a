// TranscriptWordsView: the words are anchors ("w<index>") in a read-only document; the highlight
// is an extra selection, so the document itself never changes while audio plays.
#include "earshot/ui/files/transcript_words_view.h"

#include <QMouseEvent>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCharFormat>
#include <QTextCursor>
#include <algorithm>

namespace earshot::ui {

namespace {
const QString kWordAnchor = QStringLiteral("w");
}  // namespace

int wordAt(const QList<TimedWord>& words, double seconds) {
    // The last word starting at or before `seconds`; it holds it when it has not ended yet.
    const auto after =
        std::upper_bound(words.begin(), words.end(), seconds,
                         [](double s, const TimedWord& word) { return s < word.startS; });
    if (after == words.begin()) {
        return -1;
    }
    const auto index = static_cast<int>(std::distance(words.begin(), after)) - 1;
    return seconds < words[index].endS ? index : -1;
}

TranscriptWordsView::TranscriptWordsView(QWidget* parent) : QTextEdit(parent) {
    setObjectName(QStringLiteral("transcriptWords"));
    setReadOnly(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    viewport()->setMouseTracking(true);
    QFont larger = font();
    larger.setPointSizeF(larger.pointSizeF() * 1.15);  // the text people read along with
    setFont(larger);
}

void TranscriptWordsView::clear(const QString& placeholder) {
    m_words.clear();
    m_spans.clear();
    m_highlighted = -1;
    m_pressed = -1;
    m_placeholder = placeholder;
    setExtraSelections({});
    QTextEdit::clear();
    setPlaceholderText(placeholder);
}

void TranscriptWordsView::setSegments(const QList<SegmentRow>& segments,
                                      const QString& placeholder) {
    clear(placeholder);
    QTextCursor cursor(document());
    QTextCharFormat plain;
    bool firstBlock = true;
    for (const SegmentRow& segment : segments) {
        if (segment.words.isEmpty()) {
            continue;
        }
        if (!firstBlock) {
            cursor.insertBlock();
        }
        firstBlock = false;
        for (qsizetype i = 0; i < segment.words.size(); ++i) {
            const TimedWord& word = segment.words[i];
            if (i > 0) {
                cursor.insertText(QStringLiteral(" "), plain);
            }
            QTextCharFormat anchor;
            anchor.setAnchor(true);
            anchor.setAnchorHref(kWordAnchor + QString::number(m_words.size()));
            anchor.setToolTip(tr("%1 – %2 s: click to play from here")
                                  .arg(word.startS, 0, 'f', 2)
                                  .arg(word.endS, 0, 'f', 2));
            m_spans.append({cursor.position(), static_cast<int>(word.text.size())});
            cursor.insertText(word.text, anchor);
            m_words.append(word);
        }
    }
    verticalScrollBar()->setValue(0);
}

QRect TranscriptWordsView::wordRect(int index) const {
    if (index < 0 || index >= m_spans.size()) {
        return {};
    }
    QTextCursor cursor(document());
    cursor.setPosition(m_spans[index].first);
    const QRect start = cursorRect(cursor);
    cursor.setPosition(m_spans[index].first + m_spans[index].second);
    const QRect end = cursorRect(cursor);
    if (end.top() != start.top() || end.left() <= start.left()) {
        return QRect(start.left(), start.top(), fontMetrics().averageCharWidth(), start.height());
    }
    return QRect(QPoint(start.left(), start.top()), QPoint(end.left() - 1, start.bottom()));
}

int TranscriptWordsView::wordAtPoint(const QPoint& point) const {
    const QString anchor = anchorAt(point);
    if (!anchor.startsWith(kWordAnchor)) {
        return -1;
    }
    bool ok = false;
    const int index = anchor.mid(kWordAnchor.size()).toInt(&ok);
    return ok && index >= 0 && index < m_words.size() ? index : -1;
}

void TranscriptWordsView::highlightAt(double seconds) {
    setHighlightedWord(wordAt(m_words, seconds));
}

void TranscriptWordsView::setHighlightedWord(int index) {
    if (index < -1 || index >= m_words.size()) {
        index = -1;
    }
    if (index == m_highlighted) {
        return;
    }
    m_highlighted = index;
    if (index < 0) {
        setExtraSelections({});
        return;
    }
    QTextEdit::ExtraSelection selection;
    selection.cursor = QTextCursor(document());
    selection.cursor.setPosition(m_spans[index].first);
    selection.cursor.setPosition(m_spans[index].first + m_spans[index].second,
                                 QTextCursor::KeepAnchor);
    selection.format.setBackground(palette().brush(QPalette::Highlight));
    selection.format.setForeground(palette().brush(QPalette::HighlightedText));
    setExtraSelections({selection});
    // Into view: centred when it is outside, left alone while it is visible.
    const QRect rect = wordRect(index);
    if (!viewport()->rect().contains(rect)) {
        QScrollBar* bar = verticalScrollBar();
        bar->setValue(bar->value() + rect.center().y() - viewport()->height() / 2);
    }
}

QString TranscriptWordsView::highlightedText() const {
    const QList<QTextEdit::ExtraSelection> selections = extraSelections();
    return selections.isEmpty() ? QString() : selections.first().cursor.selectedText();
}

void TranscriptWordsView::mousePressEvent(QMouseEvent* event) {
    m_pressed = event->button() == Qt::LeftButton ? wordAtPoint(event->position().toPoint()) : -1;
    QTextEdit::mousePressEvent(event);
}

void TranscriptWordsView::mouseReleaseEvent(QMouseEvent* event) {
    QTextEdit::mouseReleaseEvent(event);
    const int index = wordAtPoint(event->position().toPoint());
    // A click, not the end of a selection dragged across words.
    if (event->button() == Qt::LeftButton && index >= 0 && index == m_pressed &&
        !textCursor().hasSelection()) {
        Q_EMIT wordClicked(index);
    }
    m_pressed = -1;
}

void TranscriptWordsView::mouseMoveEvent(QMouseEvent* event) {
    viewport()->setCursor(wordAtPoint(event->position().toPoint()) >= 0 ? Qt::PointingHandCursor
                                                                        : Qt::IBeamCursor);
    QTextEdit::mouseMoveEvent(event);
}

}  // namespace earshot::ui
