// The job queue and the server's lifetime: a full queue is 429 with Retry-After, a client that
// goes away cancels its job, SIGTERM finishes the jobs in flight and refuses new ones, and any
// address beyond loopback needs an API key.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import test from 'node:test';
import OpenAI from 'openai';

import { earshot, health, microModel, speak, startServer, tempDir, waitFor } from './server_fixture.mjs';
import { multipart, postHead, rawRequest } from './raw_http.mjs';

// The sentence said `times` times in one file: a job of many 30 s windows.
function longSpeech(dir, times) {
  const wav = speak(dir, 'call', 'please call me tomorrow');
  const long = path.join(dir, `long-${times}.wav`);
  execFileSync('sox', [wav, long, 'repeat', String(times - 1)]);
  return long;
}

function client(server, apiKey = 'unused') {
  return new OpenAI({ baseURL: server.baseURL, apiKey, maxRetries: 0 });
}

test('a full queue is 429 with Retry-After; a client that disconnects cancels its job', async (t) => {
  const dir = tempDir(t);
  const long = longSpeech(dir, 60);  // about 100 s of speech: seconds of decoding
  const server = await startServer(t, ['--queue', '0']);
  const api = client(server);

  // How long the whole job takes, for the cancellation's bound below.
  const started = Date.now();
  const full = await api.audio.transcriptions.create({ file: fs.createReadStream(long), model: 'whisper-1' });
  const fullMs = Date.now() - started;
  assert.match(full.text, /^please call me tomorrow/);
  assert.ok(fullMs > 1500, `the long job took only ${fullMs} ms`);

  // A client that sends the request and then goes away: a raw connection, closed mid-job.
  const form = multipart({}, { name: 'long.wav', content: fs.readFileSync(long) });
  const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
  socket.on('error', () => {});
  socket.write(`${postHead('/v1/audio/transcriptions', form.contentType, form.body.length)}\r\n\r\n`);
  socket.write(form.body);
  await waitFor(async () => (await health(server)).jobs_in_flight === 1, 10000, 'the job to start');

  // No room for a second job while the first runs.
  const busy = await rawRequest(server.url, postHead('/v1/audio/transcriptions', form.contentType, form.body.length), form.body);
  assert.equal(busy.status, 429);
  assert.ok(Number(busy.headers['retry-after']) >= 1, `Retry-After: ${busy.headers['retry-after']}`);
  assert.equal(JSON.parse(busy.body).error.code, 'queue_full');

  // The client goes away: the job ends well before it would have finished.
  const abortedAt = Date.now();
  socket.destroy();
  const cancelMs = await waitFor(async () => (await health(server)).jobs_in_flight === 0, fullMs, 'the job to stop');
  assert.ok(cancelMs < fullMs / 2, `cancelled after ${cancelMs} ms of a ${fullMs} ms job`);
  await waitFor(async () => server.log.some((line) => / 499 .*the client went away/.test(line)), 2000, 'the 499 in the log');
  assert.ok(Date.now() - abortedAt < fullMs);

  // And the server takes the next job.
  const after = await api.audio.transcriptions.create({ file: fs.createReadStream(long), model: 'whisper-1' });
  assert.equal(after.text, full.text);
});

test('SIGTERM: the job in flight finishes and is answered, new requests are refused, exit 0', async (t) => {
  const dir = tempDir(t);
  const long = longSpeech(dir, 20);
  const server = await startServer(t);
  const api = client(server);
  const expected = 'please call me tomorrow';

  const inFlight = api.audio.transcriptions.create({ file: fs.createReadStream(long), model: 'whisper-1' });
  await waitFor(async () => (await health(server)).jobs_in_flight === 1, 10000, 'the job to start');
  server.child.kill('SIGTERM');
  await waitFor(async () => server.log.some((line) => /stopping/.test(line)), 2000, 'the stop');

  await assert.rejects(
    api.audio.transcriptions.create({ file: fs.createReadStream(long), model: 'whisper-1' }),
    (error) => /Connection error|ECONNREFUSED/.test(`${error.message} ${error.cause?.code}`) || error.status === 503,
  );
  const result = await inFlight;
  assert.ok(result.text.startsWith(expected), result.text.slice(0, 60));
  assert.ok(result.text.length > expected.length * 15, `the whole file: ${result.text.length} characters`);
  assert.deepEqual(await server.exited, { code: 0, signal: null });
});

test('an API key: required beyond loopback, checked as a Bearer token', async (t) => {
  const refused = spawnSync(earshot, ['serve', '--host', '0.0.0.0', '--port', '0', '--model', microModel], {
    encoding: 'utf8',
    timeout: 30000,
  });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /--host 0\.0\.0\.0 .*--api-key/);

  const dir = tempDir(t);
  const wav = speak(dir, 'call', 'please call me tomorrow');
  const keyFile = path.join(dir, 'key');
  fs.writeFileSync(keyFile, 's3cret-key\n');
  const server = await startServer(t, ['--api-key-file', keyFile]);

  for (const key of ['wrong', 's3cret-ke', 's3cret-key2']) {
    await assert.rejects(client(server, key).models.list(), (error) => {
      assert.equal(error.status, 401);
      assert.equal(error.code, 'invalid_api_key');
      return true;
    });
  }
  const open = await health(server);
  assert.equal(open.status, 'ok');  // /health needs no key
  const result = await client(server, 's3cret-key').audio.transcriptions.create({
    file: fs.createReadStream(wav),
    model: 'whisper-1',
  });
  assert.equal(result.text, 'please call me tomorrow');
});
