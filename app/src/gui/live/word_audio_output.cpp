// WordAudioOutput: the word's samples become the output player's audio, played from the start.
#include "gui/live/word_audio_output.h"

#include <utility>

#include "earshot/audio/audio_device_error.h"
#include "earshot/audio/output_player.h"

namespace earshot::app {

WordAudioOutput::WordAudioOutput() : m_player(std::make_unique<audio::OutputPlayer>()) {}

WordAudioOutput::~WordAudioOutput() = default;

QString WordAudioOutput::play(std::vector<float> samples, int sampleRateHz) {
    m_player->set_audio(std::move(samples), sampleRateHz);
    try {
        m_player->play(0.0);
    } catch (const audio::AudioDeviceError& error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

bool WordAudioOutput::isPlaying() const { return m_player->playing(); }

}  // namespace earshot::app
