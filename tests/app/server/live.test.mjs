// The live endpoint (/v1/realtime/transcription) driven by a WebSocket client from npm (ws):
// espeak-ng sentences streamed as 16 kHz s16le PCM at real-time pace give exactly the updates
// `earshot live --input` writes for the same recording (both with exact steps, so that the
// updates do not depend on the machine's load), then a done message and a normal close; the
// latency from each word's end in the audio sent to the update committing it, and from the end
// message to the done message, is printed. Another rate is resampled by the server; SIGTERM ends
// a session with its last updates.
import assert from 'node:assert/strict';
import test from 'node:test';

import { startServer, tempDir } from './server_fixture.mjs';
import {
  comparable, kSentences, liveURL, liveWithCli, openLive, percentile, rawPcm, speakWithPauses,
  streamPcm,
} from './live_fixture.mjs';

const committedWords = (updates) => updates.flatMap((u) => u.committed_words.map((w) => w.text)).join('');

test('streamed at real-time pace: the same updates as earshot live --input', async (t) => {
  const dir = tempDir(t);
  const { wav, pcm } = speakWithPauses(dir);
  const expected = liveWithCli(dir, wav);
  // The micro model heard the sentences: the comparison is with a real transcript.
  assert.equal(committedWords(expected).trim(), kSentences.join(' '));

  const server = await startServer(t);
  const { ws, record } = await openLive(liveURL(server, '?exact_steps=1'));
  const sent = await streamPcm(ws, pcm, { speed: 1 });
  const closed = await record.closed;
  assert.equal(closed.code, 1000);
  assert.equal(closed.reason, 'done');

  const messages = record.messages.map((m) => m.json);
  const done = messages.at(-1);
  assert.equal(done.type, 'done');
  assert.equal(done.audio_s, pcm.length / 2 / 16000);
  const updates = messages.slice(0, -1);
  assert.ok(updates.every((u) => u.type === undefined), 'every other message is an update');
  assert.equal(done.updates, updates.length);
  assert.deepEqual(updates.map(comparable), expected.map(comparable));
  assert.equal(updates.at(-1).final, true);

  // Latency, measured: a committed word's end in the audio -> the update that committed it; the
  // end message -> the done message.
  const wordLatencyMs = [];
  for (const [i, u] of updates.entries()) {
    for (const w of u.committed_words) {
      const chunk = Math.min(sent.sentAt.length - 1, Math.floor((w.end_s * 1000) / sent.chunkMs));
      wordLatencyMs.push(record.messages[i].at - sent.sentAt[chunk]);
    }
  }
  const flushMs = record.messages.at(-1).at - sent.endSentAt;
  console.log(`live endpoint, micro model, real-time pace, ${wordLatencyMs.length} words: ` +
    `word end -> committed p50 ${percentile(wordLatencyMs, 0.5).toFixed(0)} ms, ` +
    `p95 ${percentile(wordLatencyMs, 0.95).toFixed(0)} ms; ` +
    `end message -> done ${flushMs.toFixed(0)} ms (server's flush ${done.flush_ms.toFixed(0)} ms)`);
  assert.equal(wordLatencyMs.length, kSentences.join(' ').split(' ').length);
});

test('as fast as the client sends: the same updates, and another rate resampled', async (t) => {
  const dir = tempDir(t);
  const { wav, pcm } = speakWithPauses(dir);
  const expected = liveWithCli(dir, wav);
  const server = await startServer(t);

  const fast = await openLive(liveURL(server, '?exact_steps=1'));
  await streamPcm(fast.ws, pcm, { speed: Infinity, chunkMs: 20 });
  assert.equal((await fast.record.closed).code, 1000);
  const updates = fast.record.messages.map((m) => m.json).slice(0, -1);
  assert.deepEqual(updates.map(comparable), expected.map(comparable));

  // 44.1 kHz PCM: resampled to 16 kHz by the server; the same words (the samples differ slightly).
  const pcm44 = rawPcm(wav, 44100);
  const resampled = await openLive(liveURL(server, '?exact_steps=1&sample_rate=44100'));
  await streamPcm(resampled.ws, pcm44, { rateHz: 44100, speed: Infinity });
  assert.equal((await resampled.record.closed).code, 1000);
  const messages = resampled.record.messages.map((m) => m.json);
  assert.ok(Math.abs(messages.at(-1).audio_s - pcm.length / 2 / 16000) < 0.01, `${messages.at(-1).audio_s}`);
  assert.equal(committedWords(messages.slice(0, -1)).trim(), kSentences.join(' '));
});

test('SIGTERM ends a session with its last updates and a done message', async (t) => {
  const dir = tempDir(t);
  const { pcm } = speakWithPauses(dir, kSentences.slice(0, 1), 0.5);
  const server = await startServer(t);
  const { ws, record } = await openLive(liveURL(server));
  // Half the sentence, then the server is told to stop while the client still streams.
  ws.send(pcm.subarray(0, Math.floor(pcm.length / 4) * 2));
  await new Promise((r) => setTimeout(r, 300));
  server.child.kill('SIGTERM');
  const closed = await record.closed;
  assert.equal(closed.code, 1000);
  assert.equal(closed.reason, 'the server is stopping');
  const messages = record.messages.map((m) => m.json);
  assert.equal(messages.at(-1).type, 'done');
  assert.equal(messages.at(-2).final, true);
  assert.deepEqual(await server.exited, { code: 0, signal: null });
});
