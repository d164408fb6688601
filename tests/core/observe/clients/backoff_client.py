"""python3-backoff's documented decorator: on_exception(expo, ..., factor=F,
max_tries=N, jitter=full_jitter), around urllib.request. Sends the logical
requests one after another. Usage: backoff_client.py BASE_URL REQUESTS TRIES FACTOR"""
import sys
import urllib.error
import urllib.request

import backoff

base, count, tries, factor = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])


@backoff.on_exception(backoff.expo, urllib.error.HTTPError, factor=factor, max_tries=tries, jitter=backoff.full_jitter)
def fetch(i):
    request = urllib.request.Request(f"{base}/items/{i}", headers={"User-Agent": "backoff-client/1.0"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status


for i in range(count):
    try:
        print(i, fetch(i), flush=True)
    except urllib.error.HTTPError as error:
        print(i, error.code, flush=True)
