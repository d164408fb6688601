"""requests with urllib3's Retry sending logical requests that differ in one
value only, one after another: the observer must keep them apart.
Usage: distinct_requests.py BASE_URL MODE COUNT TOTAL
MODE: query   GET /fail/5?key=py-N (the fault server's own endpoint: 503 five times per key)
      header  GET /items/same with Authorization: Bearer token-N
      body    PUT /items/same with the body "item N" """
import sys

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

base, mode, count, total = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
session = requests.Session()
retry = Retry(total=total, backoff_factor=0.01, status_forcelist=[503], raise_on_status=False)
session.mount("http://", HTTPAdapter(max_retries=retry))
session.headers["User-Agent"] = f"distinct-{mode}/1.0"
for i in range(count):
    if mode == "query":
        response = session.get(f"{base}/fail/5?key=py-{i}", timeout=10)
    elif mode == "header":
        response = session.get(f"{base}/items/same", headers={"Authorization": f"Bearer token-{i}"}, timeout=10)
    else:
        response = session.put(f"{base}/items/same", data=f"item {i}", timeout=10)
    print(i, response.status_code, flush=True)
