// Raw HTTP for the bad-input tests: requests written byte by byte as a test needs them
// (truncated, slow, garbage), and multipart bodies built by hand.
import net from 'node:net';

// Sends `head` (the request line and headers, without the blank line) and `body` over a new
// connection; resolves with {status, headers, body} once the server has answered and closed, or
// sent a whole response. `delayMs` > 0 sends the body one byte at a time with that gap;
// The connection stays open after the body, as HTTP clients keep it (the server takes a client
// that shuts its side down for one that has gone, and cancels its job).
export function rawRequest(url, head, body = Buffer.alloc(0), options = {}) {
  const { delayMs = 0 } = options;
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks = [];
    let done = false;
    let timer = null;
    const finish = (result) => {
      if (done) return;
      done = true;
      clearInterval(timer);
      socket.destroy();
      resolve(result);
    };
    const tryParse = () => {
      const data = Buffer.concat(chunks);
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return null;
      const lines = data.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(lines[0].split(' ')[1]);
      const headers = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? NaN);
      const rest = data.subarray(end + 4);
      if (Number.isFinite(length) && rest.length < length) return null;
      return { status, headers, body: rest.subarray(0, length).toString('utf8') };
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      const parsed = tryParse();
      if (parsed && parsed.status !== 100) finish(parsed);
      else if (parsed && parsed.status === 100) chunks.length = 0;
    });
    socket.on('error', (error) => {
      const parsed = tryParse();
      if (parsed) finish(parsed);
      else if (!done) {
        done = true;
        clearInterval(timer);
        reject(error);
      }
    });
    socket.on('end', () => {
      const parsed = tryParse();
      if (parsed) finish(parsed);
      else finish({ status: 0, headers: {}, body: '', closed: true });
    });
    socket.on('connect', () => {
      socket.write(`${head}\r\n\r\n`);
      if (delayMs <= 0) {
        socket.write(body);
        return;
      }
      let sent = 0;
      timer = setInterval(() => {
        if (sent >= body.length || done) {
          clearInterval(timer);
          return;
        }
        socket.write(body.subarray(sent, sent + 1));
        sent += 1;
      }, delayMs);
    });
  });
}

// A multipart/form-data body: `fields` {name: value}, and a file part when `file` is given
// ({name, content, type}).
export function multipart(fields, file) {
  const boundary = `----earshot${Math.random().toString(16).slice(2)}`;
  const parts = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\n` +
          `Content-Type: ${file.type ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      file.content,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

// The request head of a POST of `body` to `path`.
export function postHead(path, contentType, length, extra = []) {
  return [`POST ${path} HTTP/1.1`, 'Host: test', `Content-Type: ${contentType}`, `Content-Length: ${length}`, ...extra].join('\r\n');
}
