// The response body of a finished transcription in the format the request chose: json, text,
// srt, vtt (the core's writers) and verbose_json (OpenAI's shape over the core's JSON writer).
#pragma once

#include "earshot/engine/decoding/transcript.h"
#include "server/http_reply.h"
#include "server/transcription_request.h"

namespace earshot::server {

// `audio_s`: the upload's duration (verbose_json's "duration").
HttpReply render_response(const decoding::Transcript& transcript,
                          const TranscriptionRequest& request, double audio_s);

}  // namespace earshot::server
