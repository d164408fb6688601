#!/usr/bin/python3
"""A server that accepts presigned AWS SigV4 URLs as botocore would sign them.

Usage: sigv4_verifier.py ACCESS_KEY SECRET NOW
Listens on 127.0.0.1 on a free port and prints "PORT <n>" once it does. For
every GET it takes the X-Amz-* parameters of the query, signs the same request
again with botocore's SigV4QueryAuth (S3SigV4QueryAuth for service s3) with
its own secret at the X-Amz-Date of the URL, and answers 200 when the
signatures match and the URL has not expired at NOW ("20150830T123600Z", or
"now" for the clock's time), 403 with the reason otherwise. A GET or POST
signed in its Authorization header instead is signed again the same way with
botocore's SigV4Auth, over the headers it names and the body. Each verdict is
printed too ("OK ..." or "REFUSED ..."). tst_awssigv4 and tst_executorauth start it.
"""
import datetime
import hmac
import sys
import types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

ACCESS_KEY, SECRET, NOW = sys.argv[1], sys.argv[2], sys.argv[3]
TIME_FORMAT = "%Y%m%dT%H%M%SZ"
AUTH_PARAMETERS = {
    "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires",
    "X-Amz-SignedHeaders", "X-Amz-Security-Token", "X-Amz-Signature",
}


class FixedClock(datetime.datetime):
    now_value = None

    @classmethod
    def utcnow(cls):
        return cls.now_value


botocore.auth.datetime = types.SimpleNamespace(
    datetime=FixedClock, timedelta=datetime.timedelta, timezone=datetime.timezone)


def verify_header(handler, body):
    """The reason a request signed in its Authorization header is refused, or None."""
    field = handler.headers.get("Authorization", "")
    scheme, _, rest = field.partition(" ")
    if scheme != "AWS4-HMAC-SHA256":
        return "no AWS4-HMAC-SHA256 authorization"
    params = dict(p.strip().split("=", 1) for p in rest.split(",") if "=" in p)
    try:
        access_key, date, region, service, terminal = params["Credential"].split("/")
        signed_names = params["SignedHeaders"].split(";")
        signature = params["Signature"]
        timestamp = handler.headers["X-Amz-Date"]
    except (KeyError, ValueError, TypeError):
        return "incomplete authorization"
    if access_key != ACCESS_KEY or terminal != "aws4_request" or timestamp[:8] != date:
        return "unknown access key or malformed credential scope"
    # botocore adds these itself when it signs.
    own = {"x-amz-date", "x-amz-security-token", "x-amz-content-sha256"}
    headers = {}
    for name in signed_names:
        if name not in own and name != "host" and handler.headers.get(name) is not None:
            headers[name] = handler.headers.get(name)
    url = f"http://{handler.headers['Host']}{handler.path}"
    request = AWSRequest(method=handler.command, url=url, headers=headers, data=body)
    FixedClock.now_value = datetime.datetime.strptime(timestamp, TIME_FORMAT)
    credentials = Credentials(ACCESS_KEY, SECRET, handler.headers.get("X-Amz-Security-Token"))
    signer_class = botocore.auth.S3SigV4Auth if service == "s3" else botocore.auth.SigV4Auth
    signer_class(credentials, service, region).add_auth(request)
    expected = request.headers["Authorization"].rpartition("Signature=")[2]
    if not hmac.compare_digest(expected, signature):
        return "the signature does not match"
    return None


def verify(handler):
    """The reason the request is refused, or None."""
    parts = urlsplit(handler.path)
    raw_pairs = [p for p in parts.query.split("&") if p]
    given = dict(parse_qsl(parts.query, keep_blank_values=True))
    if given.get("X-Amz-Algorithm") != "AWS4-HMAC-SHA256":
        return "no X-Amz-Algorithm=AWS4-HMAC-SHA256"
    try:
        access_key, date, region, service, terminal = given["X-Amz-Credential"].split("/")
        timestamp = given["X-Amz-Date"]
        expires = int(given["X-Amz-Expires"])
        signature = given["X-Amz-Signature"]
    except (KeyError, ValueError):
        return "incomplete X-Amz-* parameters"
    if access_key != ACCESS_KEY or terminal != "aws4_request" or timestamp[:8] != date:
        return "unknown access key or malformed credential scope"
    signed_at = datetime.datetime.strptime(timestamp, TIME_FORMAT)
    now = datetime.datetime.utcnow() if NOW == "now" else datetime.datetime.strptime(NOW, TIME_FORMAT)
    if now > signed_at + datetime.timedelta(seconds=expires):
        return "the URL expired"
    # The request as it was before signing: its own parameters, in their order.
    operation = "&".join(p for p in raw_pairs if p.partition("=")[0] not in AUTH_PARAMETERS)
    url = f"http://{handler.headers['Host']}{parts.path}" + (f"?{operation}" if operation else "")
    headers = {}
    for name in given.get("X-Amz-SignedHeaders", "host").split(";"):
        if name != "host" and handler.headers.get(name) is not None:
            headers[name] = handler.headers.get(name)
    request = AWSRequest(method=handler.command, url=url, headers=headers)
    FixedClock.now_value = signed_at
    signer_class = botocore.auth.S3SigV4QueryAuth if service == "s3" else botocore.auth.SigV4QueryAuth
    credentials = Credentials(ACCESS_KEY, SECRET, given.get("X-Amz-Security-Token"))
    signer_class(credentials, service, region, expires=expires).add_auth(request)
    expected = dict(parse_qsl(urlsplit(request.url).query, keep_blank_values=True))["X-Amz-Signature"]
    if not hmac.compare_digest(expected, signature):
        return "the signature does not match"
    return None


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.answer(b"")

    def do_POST(self):
        self.answer(self.rfile.read(int(self.headers.get("Content-Length", "0"))))

    def answer(self, request_body):
        if "X-Amz-Signature=" in self.path:
            reason = verify(self)
        else:
            reason = verify_header(self, request_body)
        print(f"REFUSED {reason}" if reason else f"OK {self.command} {self.path}", flush=True)
        body = (reason or "ok").encode()
        self.send_response(403 if reason else 200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
