"""botocore's S3 client against the fault server, path-style, with fake
credentials, retries={'mode': MODE, 'total_max_attempts': N} (N attempts in
all; botocore's 'max_attempts' counts retries only). Runs the logical
requests (head_object) in parallel threads and prints one line per request.
Usage: botocore_client.py ENDPOINT MODE MAX_ATTEMPTS REQUESTS"""
import sys
from concurrent.futures import ThreadPoolExecutor

import botocore.session
from botocore.config import Config

endpoint, mode, max_attempts, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
session = botocore.session.get_session()
client = session.create_client(
    "s3",
    region_name="us-east-1",
    endpoint_url=endpoint,
    aws_access_key_id="AKIDEXAMPLE",
    aws_secret_access_key="wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    config=Config(
        retries={"mode": mode, "total_max_attempts": max_attempts},
        s3={"addressing_style": "path"},
        user_agent_extra=f"retry-mode/{mode}",
        connect_timeout=5,
        read_timeout=5,
    ),
)


def head(i):
    try:
        client.head_object(Bucket="bucket", Key=f"key-{i}")
        return f"{i} ok"
    except Exception as error:  # the plan makes it fail on purpose
        return f"{i} {type(error).__name__}"


with ThreadPoolExecutor(max_workers=count) as pool:
    for line in pool.map(head, range(count)):
        print(line, flush=True)
