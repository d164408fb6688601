#!/usr/bin/python3
"""A loopback HTTP/1.1 server for the executor's body and connection suite.

Every request is answered with JSON describing what arrived: the method, the
headers, the body's length and SHA-256, and for multipart/form-data each part
(name, filename, content type, length, SHA-256). Paths:

  /echo            the description, 200
  /fail-once/KEY   503 the first time for KEY (the body read), then as /echo
  /expect-observe  with "Expect: 100-continue", waits up to a second before
                   sending "100 Continue" and says in its answer whether body
                   bytes came in that second ("bodyBeforeContinue")
  /expect-refused  with "Expect: 100-continue", answers 417 before the body
                   is read (no 100 Continue), then closes the connection
  anything else    as /echo

"Expect: 100-continue" on /echo gets "100 Continue" first (Python's own
handling), then the final answer once the body arrived. The port is printed
on the first line of standard output.
"""

import email.parser
import email.policy
import hashlib
import http.server
import json
import sys
import threading


def describe_parts(content_type, body):
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body)
    parts = []
    for part in message.iter_parts():
        payload = part.get_payload(decode=True) or b""
        parts.append({
            "name": part.get_param("name", header="content-disposition"),
            "filename": part.get_filename(),
            "contentType": part.get_content_type() if part.get("Content-Type") else None,
            "length": len(payload),
            "sha256": hashlib.sha256(payload).hexdigest(),
            "text": payload.decode("utf-8", "replace") if len(payload) <= 256 else None,
        })
    return parts


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    failed_keys = set()
    lock = threading.Lock()

    def log_message(self, format, *args):
        pass

    def handle_expect_100(self):
        if self.path.startswith("/expect-observe"):
            # Does the client wait for the 100 before sending its body?
            self.connection.settimeout(1.0)
            try:
                self.body_before_continue = len(self.rfile.peek(1)) > 0
            except (TimeoutError, OSError):
                self.body_before_continue = False
            self.connection.settimeout(None)
            return super().handle_expect_100()
        if self.path.startswith("/expect-refused"):
            self.send_response(417, "Expectation Failed")
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            return False
        return super().handle_expect_100()

    def read_body(self):
        length = self.headers.get("Content-Length")
        if length is not None:
            return self.rfile.read(int(length))
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            body = b""
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
        return b""

    def answer(self):
        body = self.read_body()
        if self.path.startswith("/fail-once/"):
            with Handler.lock:
                first = self.path not in Handler.failed_keys
                Handler.failed_keys.add(self.path)
            if first:
                self.send_response(503)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        content_type = self.headers.get("Content-Type", "")
        description = {
            "method": self.command,
            "path": self.path,
            "headers": {name.lower(): value for name, value in self.headers.items()},
            "length": len(body),
            "sha256": hashlib.sha256(body).hexdigest(),
            "text": body.decode("utf-8", "replace") if len(body) <= 4096 else None,
        }
        if hasattr(self, "body_before_continue"):
            description["bodyBeforeContinue"] = self.body_before_continue
        if content_type.lower().startswith("multipart/form-data"):
            description["parts"] = describe_parts(content_type, body)
        out = json.dumps(description).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = answer


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
