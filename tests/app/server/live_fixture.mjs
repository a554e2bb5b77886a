// What the live-endpoint tests share: a recording of espeak-ng sentences with pauses between them
// (words the micro model knows), its raw PCM, `earshot live --input` on it for the expected
// updates, and a WebSocket client that streams PCM to /v1/realtime/transcription and records
// every message with its arrival time.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';

import { earshot, microModel, speak } from './server_fixture.mjs';

export const kSentences = ['please call me tomorrow', 'see you tomorrow', 'call the doctor today'];

// The sentences spoken with `gapS` seconds of silence after each: {wav, pcm (s16le 16 kHz mono)}.
export function speakWithPauses(dir, sentences = kSentences, gapS = 1.5) {
  const inputs = sentences.map((s, i) => speak(dir, `sentence${i}`, s));
  const wav = path.join(dir, 'speech.wav');
  const pads = inputs.map((_, i) => `[${i}]apad=pad_dur=${gapS}[p${i}]`).join(';');
  const chain = inputs.map((_, i) => `[p${i}]`).join('');
  execFileSync('ffmpeg', [
    '-loglevel', 'error', '-y', ...inputs.flatMap((f) => ['-i', f]),
    '-filter_complex', `${pads};${chain}concat=n=${inputs.length}:v=0:a=1`,
    '-ar', '16000', '-ac', '1', '-c:a', 'pcm_s16le', wav,
  ]);
  return { wav, pcm: rawPcm(wav, 16000) };
}

// `file` as s16le mono PCM at `rateHz`.
export function rawPcm(file, rateHz) {
  return execFileSync('ffmpeg', ['-loglevel', 'error', '-i', file, '-f', 's16le', '-ac', '1',
    '-ar', String(rateHz), '-'], { maxBuffer: 1 << 28 });
}

// `earshot live --input wav --exact-steps --updates-json`: its updates, parsed.
export function liveWithCli(dir, wav, extra = []) {
  const json = path.join(dir, `cli-updates-${Date.now()}.jsonl`);
  execFileSync(earshot, ['live', '--model', microModel, '--input', wav, '--speed', '8',
    '--exact-steps', '--updates-json', json, ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
  return fs.readFileSync(json, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
}

export function liveURL(server, query = '') {
  return `${server.url.replace('http:', 'ws:')}/v1/realtime/transcription${query}`;
}

// Opens a session; resolves with the socket and its record once open, rejects with the HTTP
// status (err.status, err.body, err.headers) when the upgrade is refused.
export function openLive(url, options = {}) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options);
    const record = { messages: [], closed: null };
    record.closed = new Promise((done) => ws.on('close', (code, reason) => done({ code, reason: reason.toString() })));
    ws.on('message', (data, isBinary) => {
      record.messages.push({ at: performance.now(), binary: isBinary, json: isBinary ? null : JSON.parse(data.toString()) });
    });
    ws.on('unexpected-response', (request, response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => {
        const error = new Error(`upgrade refused: ${response.statusCode}`);
        Object.assign(error, { status: response.statusCode, body, headers: response.headers });
        reject(error);
      });
    });
    ws.on('error', (error) => reject(error));
    ws.on('open', () => resolve({ ws, record }));
  });
}

// Sends `pcm` in `chunkMs` chunks, `speed` times real time (Infinity: at once), then the end
// message; returns the time each chunk left, by chunk index.
export async function streamPcm(ws, pcm, { rateHz = 16000, chunkMs = 100, speed = 1 } = {}) {
  const chunkBytes = Math.round((rateHz * chunkMs) / 1000) * 2;
  const sentAt = [];
  const start = performance.now();
  for (let at = 0, i = 0; at < pcm.length; at += chunkBytes, ++i) {
    if (Number.isFinite(speed)) {
      const due = start + (i * chunkMs) / speed;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    ws.send(pcm.subarray(at, Math.min(at + chunkBytes, pcm.length)));
    sentAt.push(performance.now());
  }
  ws.send(JSON.stringify({ type: 'end' }));
  return { sentAt, chunkMs, endSentAt: performance.now() };
}

// What two update lists agree on when the same audio was heard the same way: everything but
// the clocks (wall_s, engine_ms) and the queue and level readings.
export function comparable(update) {
  const { wall_s, engine_ms, level_dbfs, queued_frames, ...rest } = update;
  return rest;
}

export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.round(p * (sorted.length - 1)))];
}
