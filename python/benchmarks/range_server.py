#!/usr/bin/env python3
"""A static HTTP/1.1 server for benchmarks on machines without nginx (standard library only).

Serves the files under ROOT with HEAD, GET and single byte ranges over keep-alive connections,
sends bodies with sendfile(2), and gives each file the ETag nginx would ("mtime-size" in hex).
Listens on 127.0.0.1 on a port the kernel chooses and writes it to PORT_FILE (atomically, so a
reader never sees half of it). The remote backend's test server (tests/remote/servers/
fault_server.py) hashes the whole object for every request, which suits fault tests, not timing.

Usage: range_server.py ROOT PORT_FILE
"""
import os
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    root = "."

    def log_message(self, fmt, *args):
        pass

    def _open(self):
        name = os.path.normpath(self.path.split("?")[0]).lstrip("/")
        if name.startswith(".."):
            name = ""
        try:
            fd = os.open(os.path.join(self.root, name), os.O_RDONLY)
        except OSError:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None, None
        return fd, os.fstat(fd)

    def _etag(self, st):
        return '"%x-%x"' % (int(st.st_mtime), st.st_size)

    def do_HEAD(self):
        fd, st = self._open()
        if fd is None:
            return
        os.close(fd)
        self.send_response(200)
        self.send_header("Content-Length", str(st.st_size))
        self.send_header("ETag", self._etag(st))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()

    def do_GET(self):
        fd, st = self._open()
        if fd is None:
            return
        try:
            first, last = 0, st.st_size - 1
            rng = re.fullmatch(r"bytes=(\d+)-(\d+)", self.headers.get("Range", ""))
            if rng is not None:
                first, last = int(rng.group(1)), min(int(rng.group(2)), st.st_size - 1)
                if first > last:
                    self.send_response(416)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
            self.send_response(206 if rng is not None else 200)
            self.send_header("Content-Length", str(last - first + 1))
            self.send_header("ETag", self._etag(st))
            if rng is not None:
                self.send_header("Content-Range", "bytes %d-%d/%d" % (first, last, st.st_size))
            self.end_headers()
            self.wfile.flush()
            at, left = first, last - first + 1
            while left > 0:
                sent = os.sendfile(self.connection.fileno(), fd, at, left)
                if sent <= 0:
                    break
                at += sent
                left -= sent
        finally:
            os.close(fd)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    Handler.root = sys.argv[1]
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[2] + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(sys.argv[2] + ".tmp", sys.argv[2])
    server.serve_forever()


if __name__ == "__main__":
    main()
