// TranscriptWordsView: a transcribed file's text as its timed words, one paragraph per segment.
// The word being heard is highlighted (and scrolled into view); clicking a word says which.
#pragma once

#include <QList>
#include <QPair>
#include <QRect>
#include <QString>
#include <QTextEdit>

#include "earshot/ui/files/file_job.h"

namespace earshot::ui {

// The index of the word whose [startS, endS) holds `seconds` among `words` (in time order), or -1:
// between words, before the first and from the end of the last on.
int wordAt(const QList<TimedWord>& words, double seconds);

class TranscriptWordsView : public QTextEdit {
    Q_OBJECT

public:
    explicit TranscriptWordsView(QWidget* parent = nullptr);

    // Shows the words of `segments` (a segment without words is left out); when none has words,
    // shows `placeholder` instead. Clears the highlight.
    void setSegments(const QList<SegmentRow>& segments, const QString& placeholder = {});
    void clear(const QString& placeholder = {});

    int wordCount() const { return static_cast<int>(m_words.size()); }
    const TimedWord& word(int index) const { return m_words.at(index); }
    const QList<TimedWord>& words() const { return m_words; }
    // Where word `index` is drawn, in viewport coordinates (its first line when it wraps).
    QRect wordRect(int index) const;
    // The word drawn at `point` (viewport coordinates), or -1.
    int wordAtPoint(const QPoint& point) const;
    const QString& placeholder() const { return m_placeholder; }

    // Highlights the word heard at `seconds` (none between words) and scrolls it into view.
    void highlightAt(double seconds);
    // Highlights word `index` (-1: none) and scrolls it into view.
    void setHighlightedWord(int index);
    int highlightedWord() const { return m_highlighted; }
    // The highlighted word's text as the highlight covers it; empty without a highlight.
    QString highlightedText() const;

Q_SIGNALS:
    void wordClicked(int index);

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    QList<TimedWord> m_words;
    QList<QPair<int, int>> m_spans;  // each word's [position, length] in the document
    QString m_placeholder;
    int m_highlighted = -1;
    int m_pressed = -1;  // the word a press landed on
};

}  // namespace earshot::ui
