// FilesPlayer: decode_file on a thread of its own into OutputPlayer; errors come back as the
// page's one message.
#include "gui/files/files_player.h"

#include <exception>
#include <filesystem>
#include <utility>

#include "earshot/audio/audio_device_error.h"
#include "earshot/audio/audio_file_error.h"
#include "earshot/audio/output_player.h"

namespace earshot::app {

FilesPlayer::FilesPlayer() : m_player(std::make_unique<audio::OutputPlayer>()) {}

FilesPlayer::~FilesPlayer() { cancelRead(); }

void FilesPlayer::cancelRead() {
    if (!m_read) return;
    m_read->cancel.store(true);
    m_read->thread.join();
    m_read.reset();
}

QString FilesPlayer::play(const QString& path, double startS) {
    if (path == m_path) {
        cancelRead();  // another file asked for before this one: it must not replace this one
        try {
            m_player->play(startS);
        } catch (const audio::AudioDeviceError& error) {
            return QString::fromStdString(error.what());
        }
        return {};
    }
    m_startS = startS;
    m_playWhenRead = true;
    if (m_read && m_read->path == path) return {};  // already reading it: plays from here
    cancelRead();
    m_player->pause();  // what played before stops while the next file is read
    auto read = std::make_unique<Read>();
    read->path = path;
    Read* state = read.get();
    read->thread = std::thread([state, file = std::filesystem::path(path.toStdString())] {
        audio::DecodeOptions options;
        options.cancel = &state->cancel;
        options.on_progress = [state](double fraction) { state->fraction.store(fraction); };
        try {
            state->audio = audio::decode_file(file, options);
        } catch (const std::exception& error) {
            state->error = error.what();
        }
        state->done.store(true, std::memory_order_release);
    });
    m_read = std::move(read);
    return {};
}

std::optional<double> FilesPlayer::reading() const {
    if (!m_read) return std::nullopt;
    return m_read->fraction.load();
}

bool FilesPlayer::playsWhenRead() const { return m_read && m_playWhenRead; }

QString FilesPlayer::poll() {
    if (!m_read || !m_read->done.load(std::memory_order_acquire)) return {};
    m_read->thread.join();
    const std::unique_ptr<Read> read = std::move(m_read);
    if (!read->error.empty()) return QString::fromStdString(read->error);
    m_player->set_audio(std::move(read->audio.samples), audio::FileDecoder::kSampleRateHz);
    m_path = read->path;
    if (!m_playWhenRead) return {};
    try {
        m_player->play(m_startS);
    } catch (const audio::AudioDeviceError& error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

void FilesPlayer::pause() {
    m_playWhenRead = false;
    m_player->pause();
}

bool FilesPlayer::isPlaying() const { return !m_read && m_player->playing(); }

double FilesPlayer::positionS() const { return m_read ? m_startS : m_player->position_s(); }

double FilesPlayer::durationS() const { return m_path.isEmpty() ? 0.0 : m_player->duration_s(); }

}  // namespace earshot::app
