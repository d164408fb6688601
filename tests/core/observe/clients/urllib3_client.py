"""requests with urllib3's Retry, as its documentation shows it:
HTTPAdapter(max_retries=Retry(total=N, backoff_factor=F, status_forcelist=[503])).
Sends the logical requests one after another and prints one line per request.
Usage: urllib3_client.py BASE_URL REQUESTS TOTAL BACKOFF_FACTOR"""
import sys

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

base, count, total, factor = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
session = requests.Session()
retry = Retry(total=total, backoff_factor=factor, status_forcelist=[503], raise_on_status=False)
session.mount("http://", HTTPAdapter(max_retries=retry))
session.headers["User-Agent"] = "urllib3-retry-client/1.0"
for i in range(count):
    response = session.get(f"{base}/items/{i}", timeout=10)
    print(i, response.status_code, flush=True)
