#!/usr/bin/env python3
"""An HTTP server with faults on demand, for the remote plugin's tests (standard library only).

Serves the files under --root with HEAD, GET, Range and strong ETags, like a static web server,
and writes the port it listens on (127.0.0.1, chosen by the kernel) to --port-file. The query
string of a request asks for a fault; faults counted per path and query, so a test can ask for a
number of failures followed by success:

  fail=CODE&times=N   the first N GETs answer CODE (with an x-request-id), later ones succeed
  slow_ms=MS          GETs send their headers, then wait MS before the body
  truncate=1          GETs announce the whole length but send half of the body and close
  kill=1              the first GET sends half of its body, then the server process exits
  ignore_range=1      GETs answer 200 with the whole object whatever Range asks
  wrong_range=1       GETs answer 206 with a Content-Range one byte off
  no_length=1         HEAD answers without Content-Length
  fail_head=CODE      HEAD answers CODE (403 stands for wrong credentials)
  etag_changes=1      GETs carry a different ETag than HEAD gave
  redirect=1          HEAD and GET answer 302 with a Location (the backend does not follow it)
  big_header=BYTES    HEAD answers carry one header line of BYTES bytes (GETs with on_get=1)
  many_headers=N      HEAD answers carry N header lines of 1 KiB each (GETs with on_get=1)

It also takes just enough of S3's multipart upload for the write tests (path-style, signatures
not checked): POST ?uploads starts one, PUT ?partNumber=N&uploadId=ID stores a part (part
number --fail-part always answers 500), POST ?uploadId=ID completes it into the object, DELETE
?uploadId=ID aborts it and leaves a file "aborted-ID" in the root, and a PUT without a query
stores the object. HEAD on a bucket ("/bucket/") answers 200.
"""
import argparse
import hashlib
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

COUNTS = {}
COUNTS_LOCK = threading.Lock()


def count(key):
    with COUNTS_LOCK:
        COUNTS[key] = COUNTS.get(key, 0) + 1
        return COUNTS[key]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    root = "."

    def log_message(self, fmt, *args):
        pass

    def _object(self):
        parts = urlsplit(self.path)
        name = os.path.normpath(parts.path).lstrip("/")
        if name.startswith(".."):
            return None, None, {}
        path = os.path.join(self.root, name)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return path, None, query
        return path, data, query

    def _etag(self, data):
        return '"%s"' % hashlib.md5(data).hexdigest()

    def _plain(self, code, text):
        body = text.encode()
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("x-request-id", "fault-%d" % count("request-id"))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _padding(self, query):
        """The header lines big_header and many_headers ask for, on this request's method."""
        if ("on_get" in query) != (self.command == "GET"):
            return
        if "big_header" in query:
            self.send_header("X-Padding", "p" * int(query["big_header"]))
        for i in range(int(query.get("many_headers", "0"))):
            self.send_header("X-Padding-%d" % i, "p" * 1024)

    def _redirect(self, query):
        if "redirect" not in query:
            return False
        self.send_response(302)
        self.send_header("Location", urlsplit(self.path).path + "?moved=1")
        self.send_header("Content-Length", "0")
        self.end_headers()
        return True

    def do_HEAD(self):
        _, data, query = self._object()
        if data is None:
            self._plain(404, "no such object\n")
            return
        if self._redirect(query):
            return
        if "fail_head" in query:
            self._plain(int(query["fail_head"]), "injected failure\n")
            return
        self.send_response(200)
        if "no_length" not in query:
            self.send_header("Content-Length", str(len(data)))
        else:
            self.close_connection = True
        self.send_header("ETag", self._etag(data))
        self.send_header("Accept-Ranges", "bytes")
        self._padding(query)
        self.end_headers()

    def do_GET(self):
        _, data, query = self._object()
        if data is None:
            self._plain(404, "no such object\n")
            return
        if self._redirect(query):
            return
        n = count(self.path)
        if "fail" in query and n <= int(query.get("times", "1")):
            self._plain(int(query["fail"]), "injected failure %d\n" % n)
            return
        etag = self._etag(data)
        if "etag_changes" in query:
            etag = '"changed-%d"' % n
        match = self.headers.get("If-Match")
        if match is not None and match != etag and "etag_changes" not in query:
            self._plain(412, "precondition failed\n")
            return
        first, last = 0, len(data) - 1
        rng = re.fullmatch(r"bytes=(\d+)-(\d+)", self.headers.get("Range", ""))
        partial = rng is not None and "ignore_range" not in query
        if partial:
            first, last = int(rng.group(1)), min(int(rng.group(2)), len(data) - 1)
            if first >= len(data):
                # As S3 answers: the object's size after the slash.
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % len(data))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        body = data[first:last + 1]
        self.send_response(206 if partial else 200)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.send_header("x-request-id", "fault-%d" % count("request-id"))
        if partial:
            shift = 1 if "wrong_range" in query else 0
            self.send_header("Content-Range", "bytes %d-%d/%d" % (first + shift, last + shift,
                                                                  len(data)))
        self._padding(query)
        self.end_headers()
        if "slow_ms" in query:
            self.wfile.flush()
            time.sleep(int(query["slow_ms"]) / 1000.0)
        if "truncate" in query or "kill" in query:
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            if "kill" in query:
                os._exit(0)
            self.close_connection = True
            return
        self.wfile.write(body)


class S3Handler(Handler):
    """The multipart subset of S3 described above, on top of the fault-injecting handler."""

    fail_part = 0
    uploads = {}

    def _body(self):
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def _xml(self, code, text):
        body = text.encode()
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("x-amz-request-id", "fault-%d" % count("request-id"))
        self.end_headers()
        self.wfile.write(body)

    def do_HEAD(self):
        if urlsplit(self.path).path.endswith("/"):
            self._plain(200, "")
            return
        Handler.do_HEAD(self)

    def do_POST(self):
        self._body()
        path, _, query = self._object()
        if "uploads" in parse_qs(urlsplit(self.path).query, keep_blank_values=True):
            upload = "up%d" % count("uploads")
            self.uploads[upload] = (path, {})
            self._xml(200, "<InitiateMultipartUploadResult><UploadId>%s</UploadId>"
                           "</InitiateMultipartUploadResult>" % upload)
            return
        upload = query.get("uploadId")
        if upload not in self.uploads:
            self._plain(404, "no such upload\n")
            return
        target, parts = self.uploads.pop(upload)
        with open(target, "wb") as f:
            for number in sorted(parts):
                f.write(parts[number])
        self._xml(200, "<CompleteMultipartUploadResult><ETag>\"x\"</ETag>"
                       "</CompleteMultipartUploadResult>")

    def do_PUT(self):
        body = self._body()
        path, _, query = self._object()
        if "uploadId" not in query:
            with open(path, "wb") as f:
                f.write(body)
            self._plain(200, "")
            return
        number = int(query.get("partNumber", "0"))
        if number == self.fail_part or query["uploadId"] not in self.uploads:
            self._plain(500, "injected part failure\n")
            return
        self.uploads[query["uploadId"]][1][number] = body
        self.send_response(200)
        self.send_header("ETag", '"part-%d"' % number)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_DELETE(self):
        _, _, query = self._object()
        upload = query.get("uploadId", "")
        if self.uploads.pop(upload, None) is None:
            self._plain(404, "no such upload\n")
            return
        open(os.path.join(self.root, "aborted-" + upload), "w").close()
        self.send_response(204)
        self.end_headers()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--fail-part", type=int, default=0)
    args = parser.parse_args()
    Handler.root = args.root
    S3Handler.fail_part = args.fail_part
    server = ThreadingHTTPServer(("127.0.0.1", 0), S3Handler)
    server.daemon_threads = True
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(tmp, args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
