// What the server tests share: `earshot serve` started on a free port with the embedded micro
// model, speech files spoken by espeak-ng in the micro model's words, and `earshot transcribe`
// run on the same files for the expected answers.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

export const earshot = process.env.EARSHOT_EXE;
export const microModel = process.env.EARSHOT_MICRO_MODEL_DIR;
if (!earshot || !microModel) {
  throw new Error('EARSHOT_EXE and EARSHOT_MICRO_MODEL_DIR must name the executable and the model');
}

export function tempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-serve-test-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// Starts `earshot serve --port 0 --model <micro> ...args`; resolves once it listens. The server
// is stopped (SIGTERM) when the test ends. `log` collects its stderr lines.
export async function startServer(t, args = []) {
  const child = spawn(earshot, ['serve', '--port', '0', '--model', microModel, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server = { child, log: [], url: null, exited: null };
  server.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  readline.createInterface({ input: child.stderr }).on('line', (line) => server.log.push(line));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await server.exited;
  });
  const lines = readline.createInterface({ input: child.stdout });
  server.url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not listen within 30 s')), 30000);
    lines.on('line', (line) => {
      const match = /listening on (http:\/\/[^ ]+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    server.exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}, ${signal}): ${server.log.join('\n')}`));
    });
  });
  server.baseURL = `${server.url}/v1`;
  return server;
}

// A WAV of espeak-ng saying `sentence` (words the micro model knows), 16 kHz mono.
export function speak(dir, name, sentence) {
  const raw = path.join(dir, `${name}.raw.wav`);
  const wav = path.join(dir, `${name}.wav`);
  execFileSync('espeak-ng', ['-v', 'en-us', '-s', '160', '-w', raw, sentence]);
  execFileSync('ffmpeg', ['-loglevel', 'error', '-y', '-i', raw, '-ar', '16000', '-ac', '1', wav]);
  return wav;
}

// `input` converted by ffmpeg into `name` (its extension picks the format).
export function convert(input, output, extra = []) {
  execFileSync('ffmpeg', ['-loglevel', 'error', '-y', '-i', input, ...extra, output]);
  return output;
}

// What `earshot transcribe` writes for `file`: {txt, srt, vtt, json} as strings.
export function transcribeWithCli(dir, file, extra = []) {
  const out = fs.mkdtempSync(path.join(dir, 'cli-'));
  execFileSync(earshot, ['transcribe', file, '--model', microModel, '--output-dir', out, ...extra], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const base = path.join(out, path.parse(file).name);
  const read = (ext) => (fs.existsSync(`${base}.${ext}`) ? fs.readFileSync(`${base}.${ext}`, 'utf8') : null);
  const json = read('json');
  return { txt: read('txt'), srt: read('srt'), vtt: read('vtt'), json: json && JSON.parse(json) };
}

// GET /health on a connection of its own (node:http, no pool), so that polling it never shares a
// connection with the request under test.
export function health(server) {
  return new Promise((resolve, reject) => {
    const request = http.get(`${server.url}/health`, { agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve(JSON.parse(body)));
    });
    request.on('error', reject);
  });
}

// Polls `predicate` every 100 ms until it holds; throws after `timeoutMs`.
export async function waitFor(predicate, timeoutMs, what) {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    if (await predicate()) return Date.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
