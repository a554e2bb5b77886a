// FilesPlayer: decode_file into OutputPlayer; errors come back as the page's one message.
#include "gui_files_player.h"

#include <QCursor>
#include <QGuiApplication>
#include <exception>
#include <filesystem>

#include "earshot/audio/audio_device_error.h"
#include "earshot/audio/audio_file_error.h"
#include "earshot/audio/file_decoder.h"
#include "earshot/audio/output_player.h"

namespace earshot::app {

FilesPlayer::FilesPlayer() : m_player(std::make_unique<audio::OutputPlayer>()) {}
FilesPlayer::~FilesPlayer() = default;

QString FilesPlayer::play(const QString& path, double startS) {
    if (path != m_path) {
        m_path.clear();
        try {
            QGuiApplication::setOverrideCursor(Qt::WaitCursor);
            audio::DecodedAudio decoded =
                audio::decode_file(std::filesystem::path(path.toStdString()));
            QGuiApplication::restoreOverrideCursor();
            m_player->set_audio(std::move(decoded.samples), audio::FileDecoder::kSampleRateHz);
        } catch (const std::exception& error) {
            QGuiApplication::restoreOverrideCursor();
            return QString::fromStdString(error.what());
        }
        m_path = path;
    }
    try {
        m_player->play(startS);
    } catch (const audio::AudioDeviceError& error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

void FilesPlayer::pause() { m_player->pause(); }
bool FilesPlayer::isPlaying() const { return m_player->playing(); }
double FilesPlayer::positionS() const { return m_player->position_s(); }
double FilesPlayer::durationS() const { return m_path.isEmpty() ? 0.0 : m_player->duration_s(); }

}  // namespace earshot::app
