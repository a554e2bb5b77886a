// Every response_format through the official openai client, against `earshot transcribe` on the
// same file: the same text, the same subtitles byte for byte, the same segments and words.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import OpenAI from 'openai';

import { convert, speak, startServer, tempDir, transcribeWithCli } from './server_fixture.mjs';
import { speakWithPauses } from './live_fixture.mjs';

const kSentence = 'please call me tomorrow';

test('each response_format matches earshot transcribe', async (t) => {
  const dir = tempDir(t);
  const wav = speak(dir, 'call', kSentence);
  const expected = transcribeWithCli(dir, wav, ['--format', 'txt,srt,vtt,json']);
  const words = transcribeWithCli(dir, wav, ['--format', 'json', '--word-timestamps']);
  // The micro model understands the sentence: the comparison is with a real transcript.
  assert.equal(expected.json.text.trim(), kSentence);

  const server = await startServer(t);
  // Headless: the serving process (earshot exec'd into earshot-server) holds no Qt library.
  const maps = fs.readFileSync(`/proc/${server.child.pid}/maps`, 'utf8');
  assert.match(maps, /earshot-server/);
  assert.doesNotMatch(maps, /libQt6/);
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'unused', maxRetries: 0 });
  const create = (extra) =>
    client.audio.transcriptions.create({ file: fs.createReadStream(wav), model: 'whisper-1', ...extra });

  const json = await create({});
  assert.deepEqual(json, { text: kSentence });

  const text = await create({ response_format: 'text' });
  assert.equal(text.trim(), expected.txt.trim());

  assert.equal(await create({ response_format: 'srt' }), expected.srt);
  assert.equal(await create({ response_format: 'vtt' }), expected.vtt);

  const verbose = await create({ response_format: 'verbose_json', language: 'en' });
  assert.equal(verbose.task, 'transcribe');
  assert.equal(verbose.language, 'english');
  assert.equal(verbose.text, kSentence);
  assert.ok(verbose.duration > 1 && verbose.duration < 5, `duration ${verbose.duration}`);
  assert.equal(verbose.words, undefined);
  assert.deepEqual(
    verbose.segments.map((s) => [s.id, s.start, s.end, s.text, s.tokens]),
    expected.json.segments.map((s) => [s.id, s.start, s.end, s.text, s.tokens]),
  );

  const timed = await create({
    response_format: 'verbose_json',
    timestamp_granularities: ['word', 'segment'],
  });
  const cliWords = words.json.segments.flatMap((s) => s.words);
  assert.deepEqual(
    timed.words.map((w) => [w.word, w.start, w.end]),
    cliWords.map((w) => [w.word.trim(), w.start, w.end]),
  );
  assert.deepEqual(timed.words.map((w) => w.word), kSentence.split(' '));
  assert.equal(timed.segments.length, words.json.segments.length);

  const onlyWords = await create({ response_format: 'verbose_json', timestamp_granularities: ['word'] });
  assert.equal(onlyWords.segments, undefined);
  assert.equal(onlyWords.words.length, 4);
});

test('any format FFmpeg reads: mp3, ogg/opus and flac, as earshot transcribe reads them', async (t) => {
  const dir = tempDir(t);
  const wav = speak(dir, 'book', 'see you tomorrow');
  const expected = transcribeWithCli(dir, wav, ['--format', 'json']).json.text.trim();
  assert.equal(expected, 'see you tomorrow');
  const server = await startServer(t);
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'unused', maxRetries: 0 });
  for (const name of ['book.mp3', 'book.ogg', 'book.flac']) {
    const file = convert(wav, path.join(dir, name), name.endsWith('.ogg') ? ['-c:a', 'libopus'] : []);
    // Lossy codecs change what the micro model hears: the answer is `earshot transcribe`'s on
    // the same file.
    const cli = transcribeWithCli(dir, file, ['--format', 'json']).json.text.trim();
    const result = await client.audio.transcriptions.create({ file: fs.createReadStream(file), model: 'micro' });
    assert.equal(result.text, cli, name);
    assert.ok(cli.split(' ').length >= 2, `${name}: "${cli}"`);
  }
});

test('GET /v1/models lists the served model; an uninstalled one is 404 with the pull to run', async (t) => {
  const dir = tempDir(t);
  const wav = speak(dir, 'call', kSentence);
  const server = await startServer(t);
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'unused', maxRetries: 0 });
  const models = [];
  for await (const model of client.models.list()) models.push(model.id);
  assert.deepEqual(models.slice(0, 1), ['micro']);

  await assert.rejects(
    client.audio.transcriptions.create({ file: fs.createReadStream(wav), model: 'whisper-large-v3' }),
    (error) => {
      assert.equal(error.status, 404);
      assert.equal(error.code, 'model_not_found');
      assert.equal(error.param, 'model');
      assert.match(error.message, /earshot models pull whisper-large-v3/);
      return true;
    },
  );
});

test('translations: the English-only micro model refuses, naming why', async (t) => {
  const dir = tempDir(t);
  const wav = speak(dir, 'call', kSentence);
  const server = await startServer(t);
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'unused', maxRetries: 0 });
  await assert.rejects(
    client.audio.translations.create({ file: fs.createReadStream(wav), model: 'whisper-1' }),
    (error) => {
      assert.equal(error.status, 400);
      assert.match(error.message, /English-only|translat/i);
      return true;
    },
  );
});

test('verbose_json segments carry their window offset as seek, in 10 ms frames', async (t) => {
  const dir = tempDir(t);
  // Three sentences with pauses: more than one of the micro model's windows.
  const { wav } = speakWithPauses(dir);
  const expected = transcribeWithCli(dir, wav, ['--format', 'json']);
  const server = await startServer(t);
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'unused', maxRetries: 0 });
  const verbose = await client.audio.transcriptions.create({
    file: fs.createReadStream(wav), model: 'whisper-1', response_format: 'verbose_json',
  });
  const seeks = verbose.segments.map((s) => s.seek);
  assert.deepEqual(seeks, expected.json.segments.map((s) => s.seek));
  assert.equal(seeks[0], 0);
  assert.ok(seeks.some((seek) => seek > 0), `one window only: ${seeks}`);
  for (const [i, s] of verbose.segments.entries()) {
    assert.ok(Number.isInteger(s.seek), `seek ${s.seek}`);
    if (i > 0) assert.ok(s.seek >= seeks[i - 1], `seek goes back at segment ${i}: ${seeks}`);
    // A segment lies in its window: from its offset, at most 30 s (Whisper's longest window).
    assert.ok(s.start >= s.seek / 100 - 1e-9, `segment ${i} starts at ${s.start} before its window ${s.seek}`);
    assert.ok(s.end <= s.seek / 100 + 30 + 1e-9, `segment ${i} ends at ${s.end}, past its window ${s.seek}`);
  }
  // A later window starts where the earlier ones' segments ended or after, never inside them.
  for (const [i, s] of verbose.segments.entries()) {
    if (i > 0 && s.seek > seeks[i - 1]) {
      assert.ok(s.seek / 100 >= verbose.segments[i - 1].start, `window ${s.seek} before segment ${i - 1}`);
    }
  }
});
