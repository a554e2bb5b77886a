// Load: 16 concurrent openai clients x 50 requests each against the micro model, beside one
// client alone. Every request is answered 200 (with the right text) or 429 with Retry-After, and
// the server's memory stays within 10% of what it held after the first 100 requests. Prints
// requests per second and the p50 / p95 latency of both runs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import test from 'node:test';
import OpenAI, { toFile } from 'openai';

import { speak, startServer, tempDir } from './server_fixture.mjs';

const kClients = 16;
const kRequestsEach = 50;
const kSentence = 'please call me tomorrow';

function rssBytes(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// `clients` loops of `each` requests; returns the per-request outcomes and the wall time.
async function run(server, audio, clients, each, onDone = () => {}) {
  const outcomes = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      const api = new OpenAI({ baseURL: server.baseURL, apiKey: 'unused', maxRetries: 0 });
      for (let i = 0; i < each; ++i) {
        const start = performance.now();
        try {
          const file = await toFile(audio, 'call.wav', { type: 'audio/wav' });
          const result = await api.audio.transcriptions.create({ file, model: 'whisper-1' });
          outcomes.push({ status: 200, ms: performance.now() - start, text: result.text });
        } catch (error) {
          outcomes.push({
            status: error.status ?? 0,
            ms: performance.now() - start,
            retryAfter: error.headers?.['retry-after'],
            message: error.message,
          });
        }
        onDone(outcomes.length);
      }
    }),
  );
  return { outcomes, seconds: (performance.now() - started) / 1000 };
}

function summary(name, { outcomes, seconds }) {
  const ok = outcomes.filter((o) => o.status === 200);
  const latencies = ok.map((o) => o.ms).sort((a, b) => a - b);
  const line =
    `${name}: ${outcomes.length} requests in ${seconds.toFixed(1)} s: ` +
    `${(ok.length / seconds).toFixed(1)} transcriptions/s (${(outcomes.length / seconds).toFixed(1)} answers/s), ` +
    `${ok.length} x 200, ${outcomes.length - ok.length} x 429; ` +
    `p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms`;
  console.log(line);
  return line;
}

test(`load: ${kClients} clients x ${kRequestsEach} requests`, { timeout: 900000 }, async (t) => {
  const dir = tempDir(t);
  const audio = fs.readFileSync(speak(dir, 'call', kSentence));
  const server = await startServer(t, ['--workers', '2', '--queue', '8']);

  const alone = await run(server, audio, 1, kRequestsEach);
  assert.ok(alone.outcomes.every((o) => o.status === 200 && o.text === kSentence));
  summary('1 client', alone);

  let rssAfter100 = 0;
  const loaded = await run(server, audio, kClients, kRequestsEach, (done) => {
    if (done === 100) rssAfter100 = rssBytes(server.child.pid);
  });
  const rssEnd = rssBytes(server.child.pid);
  summary(`${kClients} clients`, loaded);
  console.log(`server RSS: ${(rssAfter100 / 1e6).toFixed(1)} MB after 100 requests, ` +
    `${(rssEnd / 1e6).toFixed(1)} MB after ${loaded.outcomes.length}`);

  assert.equal(loaded.outcomes.length, kClients * kRequestsEach);
  for (const o of loaded.outcomes) {
    if (o.status === 200) {
      assert.equal(o.text, kSentence);
    } else {
      assert.equal(o.status, 429, o.message);
      assert.ok(Number(o.retryAfter) >= 1, `Retry-After: ${o.retryAfter}`);
    }
  }
  assert.ok(loaded.outcomes.filter((o) => o.status === 200).length >= kRequestsEach, 'too few served');
  assert.ok(rssEnd <= rssAfter100 * 1.1, `RSS grew from ${rssAfter100} to ${rssEnd} bytes`);
});
