// Bad input: each refused with a clear error in OpenAI's shape, and the server still serving
// others afterwards (and during the slow ones).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import OpenAI from 'openai';

import { convert, speak, startServer, tempDir } from './server_fixture.mjs';
import { multipart, postHead, rawRequest } from './raw_http.mjs';

const kPath = '/v1/audio/transcriptions';

function errorOf(response) {
  const body = JSON.parse(response.body);
  assert.deepEqual(Object.keys(body.error), ['message', 'type', 'param', 'code']);
  return body.error;
}

async function post(server, form, options = {}) {
  return rawRequest(server.url, postHead(kPath, form.contentType, form.body.length, options.headers ?? []), form.body);
}

// After each refusal the server still transcribes.
async function stillServes(server, wav) {
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'unused', maxRetries: 0 });
  const result = await client.audio.transcriptions.create({ file: fs.createReadStream(wav), model: 'whisper-1' });
  assert.equal(result.text, 'please call me tomorrow');
}

test('bad uploads are clear 4xx errors and the server keeps serving', async (t) => {
  const dir = tempDir(t);
  const wav = speak(dir, 'call', 'please call me tomorrow');
  const audio = fs.readFileSync(wav);
  // 0.2 MB uploads at most; audio of at most 20 s.
  const server = await startServer(t, ['--max-upload-mb', '0.2', '--max-audio-s', '20', '--read-timeout-s', '3']);

  await t.test('oversized upload: 413 before the body is read', { timeout: 30000 }, async () => {
    const big = multipart({ model: 'whisper-1' }, { name: 'big.wav', content: Buffer.alloc(400000, 1) });
    const response = await post(server, big);
    assert.equal(response.status, 413);
    const error = errorOf(response);
    assert.equal(error.code, 'file_too_large');
    assert.equal(error.param, 'file');
    assert.match(error.message, /200000 bytes/);
  });

  await t.test('audio longer than --max-audio-s: 413', { timeout: 30000 }, async () => {
    const long = convert(wav, path.join(dir, 'long.mp3'), ['-af', 'apad=whole_dur=30', '-b:a', '16k']);
    const response = await post(server, multipart({}, { name: 'long.mp3', content: fs.readFileSync(long) }));
    assert.equal(response.status, 413);
    const error = errorOf(response);
    assert.equal(error.code, 'audio_too_long');
    assert.match(error.message, /lasts 30\.\d s; this server transcribes at most 20 s/);
  });

  await t.test('empty file: 400 naming it', { timeout: 30000 }, async () => {
    const response = await post(server, multipart({}, { name: 'empty.wav', content: Buffer.alloc(0) }));
    assert.equal(response.status, 400);
    const error = errorOf(response);
    assert.equal(error.code, 'empty_file');
    assert.match(error.message, /empty\.wav is empty/);
  });

  await t.test('not audio: 400 naming what the file is (libmagic)', { timeout: 30000 }, async () => {
    const text = Buffer.from('This is a shopping list, not a recording.\n'.repeat(20));
    const response = await post(server, multipart({}, { name: 'notes.wav', content: text }));
    assert.equal(response.status, 400);
    const error = errorOf(response);
    assert.equal(error.code, 'invalid_audio');
    assert.match(error.message, /^notes\.wav: a text file, not audio or video/);
  });

  await t.test('truncated audio (half a WAV) still decodes what is there, or says why', { timeout: 30000 }, async () => {
    const half = audio.subarray(0, Math.floor(audio.length / 2));
    const response = await post(server, multipart({ response_format: 'json' }, { name: 'half.wav', content: half }));
    assert.equal(response.status, 200);
    const text = JSON.parse(response.body).text;
    assert.ok('please call me tomorrow'.startsWith(text) && text.length < 20, `half gave "${text}"`);
  });

  await t.test('truncated body (fewer bytes than Content-Length): 408 after the read timeout', { timeout: 30000 }, async () => {
    const form = multipart({}, { name: 'call.wav', content: audio });
    const head = postHead(kPath, form.contentType, form.body.length);
    const started = Date.now();
    const response = await rawRequest(server.url, head, form.body.subarray(0, 1000));
    assert.equal(response.status, 408);
    assert.equal(errorOf(response).code, 'request_timeout');
    const took = Date.now() - started;
    assert.ok(took >= 2500 && took < 6000, `answered after ${took} ms`);
  });

  await t.test('truncated multipart (no closing delimiter): 400', { timeout: 30000 }, async () => {
    const form = multipart({}, { name: 'call.wav', content: audio });
    const cut = form.body.subarray(0, form.body.length - 200);
    const response = await rawRequest(server.url, postHead(kPath, form.contentType, cut.length), cut);
    assert.equal(response.status, 400);
    const error = errorOf(response);
    assert.equal(error.code, 'invalid_multipart');
    assert.match(error.message, /truncated/);
  });

  await t.test('wrong content type: 400 naming it', { timeout: 30000 }, async () => {
    const body = Buffer.from(JSON.stringify({ file: 'call.wav', model: 'whisper-1' }));
    const response = await rawRequest(server.url, postHead(kPath, 'application/json', body.length), body);
    assert.equal(response.status, 400);
    assert.match(errorOf(response).message, /must be multipart\/form-data, not application\/json/);
  });

  await t.test('garbage multipart: 400', { timeout: 30000 }, async () => {
    const body = Buffer.from('\x00\x01garbage without any delimiter\r\n\r\n\xff');
    const response = await rawRequest(server.url, postHead(kPath, 'multipart/form-data; boundary=xyz', body.length), body);
    assert.equal(response.status, 400);
    assert.match(errorOf(response).message, /no delimiter/);
  });

  await t.test('no file part: 400 with param file', { timeout: 30000 }, async () => {
    const response = await post(server, multipart({ model: 'whisper-1' }));
    assert.equal(response.status, 400);
    assert.equal(errorOf(response).param, 'file');
  });

  await t.test('unknown response_format: 400 with param response_format', { timeout: 30000 }, async () => {
    const response = await post(server, multipart({ response_format: 'docx' }, { name: 'call.wav', content: audio }));
    assert.equal(response.status, 400);
    const error = errorOf(response);
    assert.equal(error.param, 'response_format');
    assert.match(error.message, /"docx"/);
  });

  await t.test('temperature out of range: 400', { timeout: 30000 }, async () => {
    const response = await post(server, multipart({ temperature: '7' }, { name: 'call.wav', content: audio }));
    assert.equal(response.status, 400);
    assert.equal(errorOf(response).param, 'temperature');
  });

  await t.test('unknown path and wrong method', { timeout: 30000 }, async () => {
    const missing = await rawRequest(server.url, 'GET /v1/chat/completions HTTP/1.1\r\nHost: test');
    assert.equal(missing.status, 404);
    const method = await rawRequest(server.url, `GET ${kPath} HTTP/1.1\r\nHost: test`);
    assert.equal(method.status, 405);
  });

  await t.test('a client sending one byte a second gets 408, and others are served meanwhile', { timeout: 30000 }, async () => {
    const form = multipart({}, { name: 'call.wav', content: audio });
    const slow = rawRequest(server.url, postHead(kPath, form.contentType, form.body.length), form.body, {
      delayMs: 1000,
    });
    const servedAt = Date.now();
    await stillServes(server, wav);
    assert.ok(Date.now() - servedAt < 2500, 'another client waited for the slow one');
    const response = await slow;
    assert.equal(response.status, 408);
  });

  await stillServes(server, wav);
});
