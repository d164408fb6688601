#!/usr/bin/python3
"""httpbin with a request log: Debian's python3-httpbin served by Werkzeug on
127.0.0.1, writing one JSON line per request to LOG before httpbin answers it.

Usage: httpbin-logged.py LOG

Each line holds the method, the request target as sent (path and query), the
headers as sent (names in their case, in their order, repeated ones kept) and
the body (UTF-8 text, or base64 when it is not UTF-8). The newman parity suite
(tests/app/tst_newmanparity) runs newman and retrylab run against it and
compares their logs. LOG is opened for each request, so a test that removes it
between two runs gets a fresh log from the same server.

Once listening, prints "listening on PORT" (a free port) on stdout. Without
python3-httpbin it exits with status 3, naming the Debian package.
"""

import base64
import io
import json
import sys
import threading

try:
    from httpbin.core import app as httpbin_app
    from werkzeug.serving import WSGIRequestHandler, make_server
    from werkzeug.wsgi import get_input_stream
except ImportError as error:
    print(f"httpbin is missing ({error}): install the Debian package python3-httpbin", file=sys.stderr)
    sys.exit(3)


class RawHeadersHandler(WSGIRequestHandler):
    """Keeps the headers as the client sent them: the WSGI environ upper-cases
    their names and joins repeated ones, which would hide differences."""

    def make_environ(self):
        environ = super().make_environ()
        environ["retrylab.raw_headers"] = [[name, value] for name, value in self.headers.items()]
        return environ

    def log_request(self, code="-", size="-"):
        # The JSON log is the record; Werkzeug's access line would only be noise on stderr.
        pass


class RequestLog:
    """The WSGI middleware: logs the request, then hands httpbin the body it read."""

    def __init__(self, app, path):
        self.app = app
        self.path = path
        # Werkzeug's server is threaded (a client may keep a connection open);
        # the lock keeps each line whole.
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        body = get_input_stream(environ).read()
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        # A chunked body is read whole: httpbin now sees a body of known length
        # (Werkzeug would refuse a chunked one the middleware has consumed).
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        environ["wsgi.input_terminated"] = False
        entry = {
            "method": environ["REQUEST_METHOD"],
            "target": environ.get("REQUEST_URI") or environ.get("RAW_URI") or environ.get("PATH_INFO", ""),
            "headers": environ["retrylab.raw_headers"],
        }
        try:
            entry["body"] = body.decode("utf-8")
        except UnicodeDecodeError:
            entry["bodyBase64"] = base64.b64encode(body).decode("ascii")
        with self.lock, open(self.path, "a", encoding="utf-8") as log:
            log.write(json.dumps(entry) + "\n")
        return self.app(environ, start_response)


def main():
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    server = make_server(
        "127.0.0.1", 0, RequestLog(httpbin_app, sys.argv[1]), threaded=True, request_handler=RawHeadersHandler
    )
    print(f"listening on {server.server_port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
