#!/usr/bin/env python3
"""A Hugging Face hub stand-in for the model download tests, on 127.0.0.1 only.

Serves <root>/<repo>/<file> as /<repo>/resolve/main/<file>, the way the hub does: LFS files
(LFS_SUFFIXES, as the hub repositories' .gitattributes track them) answer with a 302 to
/cdn/<repo>/<file> that carries X-Linked-Etag (their SHA-256) and X-Linked-Size; every file has an ETag, a Content-Length and honours `Range: bytes=N-`
(206, or 416 past the end). A first path segment picks a failure mode for that request:

  /404/...       every file is missing
  /corrupt/...   one byte in the middle is flipped; the headers still name the right hash
  /stall/...     LFS files (the CDN's answers) send the headers and half the body, then nothing
                 for STALL_SECONDS; small files come whole
  /cut-N/...     sends the headers for the whole body but closes after N body bytes

A request in proxy form (GET http://host/...) is answered 407, as a proxy that refuses it.
Prints the port on its first line of stdout; logs "METHOD PATH RANGE STATUS" lines to --log.
"""
import argparse
import hashlib
import http.server
import os
import re
import sys
import threading
import time

LFS_SUFFIXES = (".safetensors", ".bin")
STALL_SECONDS = 60

log_lock = threading.Lock()


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class HubHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    root = "."
    log_path = None

    def log_message(self, format, *args):  # quiet on stderr
        pass

    def note(self, status):
        if self.log_path:
            with log_lock, open(self.log_path, "a") as log:
                log.write("%s %s %s %d\n" % (self.command, self.path,
                                             self.headers.get("Range", "-"), status))

    def answer(self, status, headers=(), body=b""):
        self.note(status)
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        if self.path.startswith("http://") or self.path.startswith("https://"):
            self.answer(407, [("Proxy-Authenticate", 'Basic realm="test"')])
            return
        mode, path = "", self.path
        first = path.split("/")[1] if path.count("/") >= 2 else ""
        if first in ("404", "corrupt", "stall") or re.fullmatch(r"cut-\d+", first):
            mode, path = first, path[len(first) + 1:]
        prefix = "/" + mode if mode else ""
        match = re.fullmatch(r"/(cdn/)?(.+?)(/resolve/main)?/([^/]+)", path)
        if mode == "404" or not match or (not match.group(1) and not match.group(3)):
            self.answer(404, [("X-Error-Code", "EntryNotFound")], b"Entry not found")
            return
        cdn, repo, name = match.group(1), match.group(2), match.group(4)
        file = os.path.join(self.root, repo, name)
        if not os.path.isfile(file):
            self.answer(404, [("X-Error-Code", "EntryNotFound")], b"Entry not found")
            return
        size = os.path.getsize(file)
        sha = sha256_of(file)
        if not cdn and name.endswith(LFS_SUFFIXES):
            self.answer(302, [("Location", "%s/cdn/%s/%s" % (prefix, repo, name)),
                              ("ETag", '"%s"' % sha), ("X-Linked-Etag", '"%s"' % sha),
                              ("X-Linked-Size", str(size))])
            return
        with open(file, "rb") as f:
            data = f.read()
        if mode == "corrupt":
            middle = len(data) // 2
            data = data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:]
        start = 0
        status = 200
        headers = [("ETag", '"%s"' % sha), ("Accept-Ranges", "bytes")]
        range_header = self.headers.get("Range")
        if range_header:
            m = re.fullmatch(r"bytes=(\d+)-", range_header.strip())
            if m:
                start = int(m.group(1))
                if start >= size:
                    self.answer(416, headers + [("Content-Range", "bytes */%d" % size)])
                    return
                status = 206
                headers.append(("Content-Range", "bytes %d-%d/%d" % (start, size - 1, size)))
        body = data[start:]
        self.note(status)
        self.send_response(status)
        for header, value in headers:
            self.send_header(header, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command == "HEAD":
            return
        if mode.startswith("cut-"):
            self.wfile.write(body[:int(mode[4:])])
            self.wfile.flush()
            self.close_connection = True
            return
        if mode == "stall" and cdn:
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            time.sleep(STALL_SECONDS)
            self.close_connection = True
            return
        self.wfile.write(body)


class HubServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that gives up (a cancelled or timed-out download) is part of the tests.
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="folder holding <repo>/<file>")
    parser.add_argument("--log", help="append one line per request here")
    args = parser.parse_args()
    HubHandler.root = args.root
    HubHandler.log_path = args.log
    server = HubServer(("127.0.0.1", 0), HubHandler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
