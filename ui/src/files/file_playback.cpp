// FilePlayback: a timer polls the player while it reads or plays; each tick moves the highlight
// and the time line, and notices the end or an error.
#include "earshot/ui/files/file_playback.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <optional>

#include "earshot/ui/files/file_job.h"
#include "earshot/ui/files/transcript_words_view.h"

namespace earshot::ui {

FilePlayback::FilePlayback(TranscriptWordsView* words, QWidget* parent)
    : QWidget(parent), m_words(words) {
    m_play = new QPushButton(tr("&Play"), this);
    m_play->setObjectName(QStringLiteral("playButton"));
    m_play->setToolTip(
        tr("Plays the file; the word being heard is highlighted. Click a word to "
           "play from it."));
    connect(m_play, &QPushButton::clicked, this, &FilePlayback::togglePlayback);
    m_label = new QLabel(this);
    m_label->setObjectName(QStringLiteral("playbackTime"));
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_timer = new QTimer(this);
    m_timer->setInterval(kTickMs);
    connect(m_timer, &QTimer::timeout, this, &FilePlayback::updatePlayback);
    connect(m_words, &TranscriptWordsView::wordClicked, this,
            [this](int index) { playFrom(m_words->word(index).startS); });

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_play);
    layout->addWidget(m_label, 1);
}

FilePlayback::~FilePlayback() {
    if (m_player) {
        m_player->pause();
    }
}

void FilePlayback::setPlayer(std::unique_ptr<TranscriptPlayer> player) {
    stop();
    m_player = std::move(player);
    showState();
}

void FilePlayback::setSource(int job, const QString& path, bool playable) {
    if (job != m_playedJob) {
        stop();  // another file: what played stops
    }
    m_shown = job;
    m_shownPath = path;
    m_playable = job >= 0 && playable;
}

void FilePlayback::stop() {
    m_stopAtS = -1.0;
    m_timer->stop();
    if (m_player && m_playedJob >= 0) {
        m_player->pause();
    }
    m_playedJob = -1;
    m_words->setHighlightedWord(-1);
}

void FilePlayback::showState() {
    m_play->setEnabled(m_playable);
    const bool playing = m_player && m_playedJob >= 0 && m_player->isPlaying();
    const std::optional<double> reading =
        m_player && m_playedJob >= 0 ? m_player->reading() : std::nullopt;
    // Reading and set to play once read: Pause keeps it from starting; after that, Play.
    const bool starting = reading && m_player->playsWhenRead();
    m_play->setText(playing || starting ? tr("&Pause") : tr("&Play"));
    if (!m_playable) {
        m_label->clear();
    } else if (reading) {
        m_label->setText(tr("Reading the audio… %1%").arg(std::lround(*reading * 100.0)));
    } else if (m_playedJob < 0 || !m_player) {
        m_label->setText(m_words->wordCount() > 0 ? tr("Click a word to play from it.")
                                                  : QString());
    } else {
        const double duration = m_player->durationS();
        m_label->setText(duration > 0.0
                             ? tr("%1 / %2").arg(formatSegmentTime(m_player->positionS()),
                                                 formatSegmentTime(duration))
                             : formatSegmentTime(m_player->positionS()));
    }
}

void FilePlayback::playRange(double startS, double endS) {
    playFrom(startS);
    if (m_playedJob == m_shown && m_shown >= 0) m_stopAtS = endS;
}

void FilePlayback::playFrom(double seconds) {
    m_stopAtS = -1.0;
    if (m_shown < 0) {
        return;
    }
    if (!m_player) {
        m_label->setText(tr("Playing is not available here."));
        return;
    }
    const QString error = m_player->play(m_shownPath, std::max(0.0, seconds));
    if (!error.isEmpty()) {
        cannotPlay(error);
        return;
    }
    // Playing, or reading the file first (the timer's ticks advance the read and say how far).
    m_playedJob = m_shown;
    m_timer->start();
    updatePlayback();
}

void FilePlayback::cannotPlay(const QString& reason) {
    stop();
    showState();
    m_label->setText(tr("Cannot play: %1").arg(reason));
}

void FilePlayback::togglePlayback() {
    if (m_player && m_playedJob >= 0 && m_player->reading() && m_player->playsWhenRead()) {
        m_player->pause();  // the read goes on (the timer advances it); it will not play
        showState();
        return;
    }
    if (m_player && m_playedJob >= 0 && m_player->isPlaying()) {
        m_timer->stop();
        m_player->pause();
        updatePlayback();
        return;
    }
    double from = 0.0;
    if (m_player && m_playedJob == m_shown) {
        from = m_player->positionS();
        const double duration = m_player->durationS();
        if (duration > 0.0 && from >= duration - 0.01) {
            from = 0.0;  // it ended: again from the start
        }
    }
    playFrom(from);
}

void FilePlayback::updatePlayback() {
    if (!m_player || m_playedJob < 0) {
        m_timer->stop();
        return;
    }
    const QString error = m_player->poll();
    if (!error.isEmpty()) {
        cannotPlay(error);
        return;
    }
    if (m_stopAtS >= 0.0 && m_player->isPlaying() && m_player->positionS() >= m_stopAtS) {
        m_player->pause();  // a word played on its own ends with the word
        m_stopAtS = -1.0;
    }
    m_words->highlightAt(m_player->positionS());
    if (!m_player->isPlaying() && !m_player->reading()) {
        m_timer->stop();
    }
    showState();
}

}  // namespace earshot::ui
