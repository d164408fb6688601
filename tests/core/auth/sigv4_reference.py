#!/usr/bin/python3
"""botocore's SigV4 signers over requests read as JSON, for tst_awssigv4.

Reads {"cases": [...]} on standard input; each case names a request by its
parts, decoded (method, scheme, host, path, params, headers, body in base64),
its credentials, region, service and a fixed timestamp ("20150830T123600Z"),
and whether to presign. Writes {name: {canonicalRequest, stringToSign,
signature, authorization, url}} as botocore computes them: SigV4Auth or
S3SigV4Auth for headers, SigV4QueryAuth or S3SigV4QueryAuth for a presigned
URL. The path is percent-encoded as botocore's serializer encodes it
(quote(path, safe='/~')); the query goes in as botocore's params.
"""
import base64
import datetime
import json
import sys
import types
from urllib.parse import quote

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


class FixedClock(datetime.datetime):
    now_value = None

    @classmethod
    def utcnow(cls):
        return cls.now_value


# botocore.auth reads the time as datetime.datetime.utcnow().
botocore.auth.datetime = types.SimpleNamespace(
    datetime=FixedClock, timedelta=datetime.timedelta, timezone=datetime.timezone)


class HeaderPairs:
    """Headers in order, a name possibly repeated: AWSRequest reads .items()."""

    def __init__(self, pairs):
        self.pairs = [(k, v) for k, v in pairs]

    def items(self):
        return self.pairs


def capturing(signer_class):
    class Capturing(signer_class):
        captured = None

        def string_to_sign(self, request, canonical_request):
            result = super().string_to_sign(request, canonical_request)
            self.captured = (canonical_request, result)
            return result

        def signature(self, string_to_sign, request):
            result = super().signature(string_to_sign, request)
            self.signature_value = result
            return result

    return Capturing


def sign(case):
    FixedClock.now_value = datetime.datetime.strptime(case["timestamp"], "%Y%m%dT%H%M%SZ")
    s3 = case["service"] == "s3"
    credentials = Credentials(case["accessKey"], case["secret"], case.get("token") or None)
    url = f'{case["scheme"]}://{case["host"]}{quote(case["path"], safe="/~")}'
    request = AWSRequest(
        method=case["method"],
        url=url,
        headers=HeaderPairs(case.get("headers", [])),
        data=base64.b64decode(case.get("body", "")),
        params=[(k, v) for k, v in case.get("params", [])],
    )
    if case.get("unsignedPayload"):
        if s3:
            request.context["client_config"] = types.SimpleNamespace(s3={"payload_signing_enabled": False})
        else:
            request.context["payload_signing_enabled"] = False
    if case.get("presign"):
        base = botocore.auth.S3SigV4QueryAuth if s3 else botocore.auth.SigV4QueryAuth
        signer = capturing(base)(credentials, case["service"], case["region"], expires=case["expires"])
    else:
        base = botocore.auth.S3SigV4Auth if s3 else botocore.auth.SigV4Auth
        signer = capturing(base)(credentials, case["service"], case["region"])
    signer.add_auth(request)
    canonical_request, string_to_sign = signer.captured
    return {
        "canonicalRequest": canonical_request,
        "stringToSign": string_to_sign,
        "signature": signer.signature_value,
        "authorization": request.headers.get("Authorization", ""),
        "contentSha256": request.headers.get("X-Amz-Content-SHA256", ""),
        "url": request.url,
    }


def main():
    cases = json.load(sys.stdin)["cases"]
    json.dump({case["name"]: sign(case) for case in cases}, sys.stdout)


if __name__ == "__main__":
    main()
