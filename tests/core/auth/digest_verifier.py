#!/usr/bin/python3
"""An HTTP Digest (RFC 7616) server for the algorithms Apache does not offer.

Usage: digest_verifier.py USER PASSWORD ALGORITHMS QOP
ALGORITHMS is a comma-separated list (SHA-256,MD5, SHA-256-sess, MD5-sess),
offered in that order, one WWW-Authenticate field each, after a Basic
challenge in the first field; QOP is "auth", "auth-int", "auth,auth-int" or
"none". Listens on 127.0.0.1 on a free port and prints "PORT <n>"; then, for
each request, "OK <algorithm> nc=<nc>" or "REFUSED <reason>". Answers 200 to
a correct Authorization, 401 with the challenges otherwise; a nonce count
that does not grow for a client nonce is refused as a replay. Written from
RFC 7616 section 3.4 with hashlib, apart from RetryLab's code: tst_digestauth
checks RetryLab's answers and curl's against it.
"""
import hashlib
import hmac
import re
import secrets
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

USER, PASSWORD, ALGORITHMS, QOP = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4]
REALM = "verifier@retrylab.test"
NONCE = secrets.token_urlsafe(24)
OPAQUE = secrets.token_hex(8)
SEEN_NC = {}
HASHES = {"MD5": hashlib.md5, "SHA-256": hashlib.sha256}
PARAM = re.compile(r'\s*([A-Za-z0-9_*-]+)\s*=\s*("((?:[^"\\]|\\.)*)"|[^,\s]*)\s*,?')


def parse(field):
    scheme, _, rest = field.partition(" ")
    if scheme.lower() != "digest":
        return None
    params = {}
    position = 0
    while position < len(rest):
        match = PARAM.match(rest, position)
        if not match or match.end() == position:
            return None
        value = match.group(3) if match.group(3) is not None else match.group(2)
        params[match.group(1).lower()] = re.sub(r"\\(.)", r"\1", value)
        position = match.end()
    return params


def verify(method, path, field, body):
    params = parse(field or "")
    if params is None:
        return "no Digest authorization"
    algorithm = params.get("algorithm", "MD5")
    if algorithm not in ALGORITHMS:
        return f"algorithm {algorithm} not offered"
    base = algorithm[:-5] if algorithm.endswith("-sess") else algorithm

    def H(text):
        return HASHES[base](text.encode()).hexdigest()

    if params.get("username") != USER or params.get("realm") != REALM:
        return "unknown user or realm"
    if params.get("nonce") != NONCE or params.get("opaque") != OPAQUE:
        return "wrong nonce or opaque"
    if params.get("uri") != path:
        return "uri is not the request target"
    qop = params.get("qop")
    cnonce = params.get("cnonce", "")
    nc = params.get("nc", "")
    a1 = f"{USER}:{REALM}:{PASSWORD}"
    if algorithm.endswith("-sess"):
        a1 = f"{H(a1)}:{NONCE}:{cnonce}"
    a2 = f"{method}:{path}"
    if qop == "auth-int":
        a2 += ":" + HASHES[base](body).hexdigest()
    if QOP == "none":
        if qop is not None:
            return "qop sent though none was offered"
        expected = H(f"{H(a1)}:{NONCE}:{H(a2)}")
    else:
        if qop not in QOP.split(","):
            return f"qop {qop} not offered"
        if not re.fullmatch(r"[0-9a-f]{8}", nc) or not cnonce:
            return "bad nc or cnonce"
        if int(nc, 16) <= SEEN_NC.get(cnonce, 0):
            return "nonce count replayed"
        expected = H(f"{H(a1)}:{NONCE}:{nc}:{cnonce}:{qop}:{H(a2)}")
    if not hmac.compare_digest(expected, params.get("response", "")):
        return "wrong response"
    if QOP != "none":
        SEEN_NC[cnonce] = int(nc, 16)
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        field = self.headers.get("Authorization")
        reason = verify(self.command, self.path, field, body)
        if reason is None:
            params = parse(field)
            print(f"OK {params.get('algorithm', 'MD5')} nc={params.get('nc', '')}", flush=True)
            self.send_response(200)
            payload = b"ok"
        else:
            if field:
                print(f"REFUSED {reason}", flush=True)
            self.send_response(401)
            qop = "" if QOP == "none" else f', qop="{QOP}"'
            for index, algorithm in enumerate(ALGORITHMS):
                challenge = (f'Digest realm="{REALM}", nonce="{NONCE}", algorithm={algorithm}'
                             f'{qop}, opaque="{OPAQUE}"')
                if index == 0:
                    challenge = f'Basic realm="{REALM}", ' + challenge
                self.send_header("WWW-Authenticate", challenge)
            payload = (reason or "").encode()
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = handle_any
    do_POST = handle_any

    def log_message(self, format, *args):
        pass


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
