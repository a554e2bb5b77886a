// The live endpoint refuses what it cannot take, each with a clear reason, and goes on serving:
// text that is not a JSON control message, an odd-length binary message, an oversized one, an
// unknown message type, audio after the end, a plain GET, bad query parameters, a session over the
// limit (429 with Retry-After), an idle client, a missing API key; a client that goes away frees
// its session at once.
import assert from 'node:assert/strict';
import http from 'node:http';
import test from 'node:test';

import { health, startServer, tempDir, waitFor } from './server_fixture.mjs';
import { liveURL, openLive, speakWithPauses } from './live_fixture.mjs';

async function refusedWith(url, options = {}) {
  try {
    const { ws } = await openLive(url, options);
    ws.terminate();
  } catch (error) {
    if (error.status) return error;
    throw error;
  }
  throw new Error(`${url} was accepted`);
}

// Opens a session, sends `send(ws)`, and returns the error message and the close.
async function closedAfter(server, send) {
  const { ws, record } = await openLive(liveURL(server));
  send(ws);
  const closed = await record.closed;
  const last = record.messages.at(-1);
  return { ...closed, message: last && last.json ? last.json : null };
}

test('bad messages close the session with the reason; the server serves on', async (t) => {
  const server = await startServer(t, ['--live-sessions', '2']);

  const notJson = await closedAfter(server, (ws) => ws.send('hello'));
  assert.equal(notJson.code, 1007);
  assert.equal(notJson.reason, 'text must be JSON control messages');
  assert.equal(notJson.message.type, 'error');
  assert.match(notJson.message.message, /JSON control messages such as \{"type":"end"\}/);

  const odd = await closedAfter(server, (ws) => ws.send(Buffer.alloc(3)));
  assert.equal(odd.code, 1007);
  assert.equal(odd.reason, 'odd-length PCM');
  assert.match(odd.message.message, /3 bytes is not a whole number of 2-byte samples/);

  // Refused from the frame's header: the server sends close 1009 and closes while the client is
  // still sending the rest, so the client's TCP sees a reset, which on a loaded machine can land
  // before it reads the close frame (1006; once in a clean-clone run). Either way the session is
  // over, and the checks after this show the server serving on.
  const big = await closedAfter(server, (ws) => ws.send(Buffer.alloc(600 * 1024)));
  assert.ok(big.code === 1009 || big.code === 1006, `closed with ${big.code}`);

  const unknown = await closedAfter(server, (ws) => ws.send(JSON.stringify({ type: 'pause' })));
  assert.equal(unknown.code, 1008);
  assert.match(unknown.message.message, /unknown message type "pause"/);

  const after = await closedAfter(server, (ws) => {
    ws.send(JSON.stringify({ type: 'end' }));
    ws.send(Buffer.alloc(3200));
  });
  // Either the audio came before the (quick) final update and is refused, or the session had
  // already ended normally: never silently taken.
  if (after.code !== 1000) {
    assert.equal(after.code, 1008);
    assert.match(after.message.message, /audio arrived after/);
  }

  // Refusals before the upgrade: OpenAI's error shape.
  const plain = await new Promise((resolve, reject) => {
    http.get(`${server.url}/v1/realtime/transcription`, { agent: false }, (response) => {
      let body = '';
      response.on('data', (c) => (body += c));
      response.on('end', () => resolve({ status: response.statusCode, body: JSON.parse(body) }));
    }).on('error', reject);
  });
  assert.equal(plain.status, 426);
  assert.equal(plain.body.error.code, 'upgrade_required');

  const rate = await refusedWith(liveURL(server, '?sample_rate=7'));
  assert.equal(rate.status, 400);
  assert.equal(JSON.parse(rate.body).error.param, 'sample_rate');
  const unknownParam = await refusedWith(liveURL(server, '?speed=2'));
  assert.equal(unknownParam.status, 400);
  assert.match(JSON.parse(unknownParam.body).error.message, /unknown parameter speed/);
  const language = await refusedWith(liveURL(server, '?language=xx'));
  assert.equal(language.status, 400);

  // Every session above ended and gave its model back; the server still serves.
  await waitFor(async () => (await health(server)).live_sessions === 0, 5000, 'sessions freed');
  const h = await health(server);
  assert.equal(h.status, 'ok');
  assert.equal(h.live_sessions_max, 2);
});

test('limits: sessions over the maximum get 429, an idle one is closed, a gone one is freed', async (t) => {
  const dir = tempDir(t);
  const { pcm } = speakWithPauses(dir, ['see you tomorrow'], 0.5);
  const server = await startServer(t, ['--live-sessions', '1', '--live-idle-s', '2']);

  const first = await openLive(liveURL(server));
  const busy = await refusedWith(liveURL(server));
  assert.equal(busy.status, 429);
  assert.ok(Number(busy.headers['retry-after']) >= 1);
  assert.equal(JSON.parse(busy.body).error.code, 'live_sessions_full');

  // The first session's client goes away mid-stream: its session stops and frees its place.
  first.ws.send(pcm.subarray(0, 16000));
  first.ws.terminate();
  const freedMs = await waitFor(async () => (await health(server)).live_sessions === 0, 5000, 'the session freed');
  console.log(`a client that went away: its session freed within ${freedMs} ms (polled every 100 ms)`);

  // An idle client: closed after --live-idle-s with the reason.
  const idle = await openLive(liveURL(server));
  const startedAt = Date.now();
  const closed = await idle.record.closed;
  assert.equal(closed.code, 1008);
  assert.equal(closed.reason, 'idle timeout');
  assert.ok(Date.now() - startedAt >= 1900, `closed after ${Date.now() - startedAt} ms`);
  assert.match(idle.record.messages.at(-1).json.message, /no message for 2 s/);
});

test('with an API key: a session without it is 401, with it accepted', async (t) => {
  const server = await startServer(t, ['--api-key', 'sesame']);
  const refused = await refusedWith(liveURL(server));
  assert.equal(refused.status, 401);
  assert.equal(JSON.parse(refused.body).error.code, 'invalid_api_key');
  const { ws, record } = await openLive(liveURL(server), { headers: { Authorization: 'Bearer sesame' } });
  ws.send(JSON.stringify({ type: 'end' }));
  const closed = await record.closed;
  assert.equal(closed.code, 1000);
  assert.equal(record.messages.at(-1).json.type, 'done');
});
