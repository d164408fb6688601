"""tenacity's documented full-jitter wait: wait_random_exponential(multiplier=M, max=X)
with stop_after_attempt(N), around urllib.request. Sends the logical requests one
after another. Usage: tenacity_client.py BASE_URL REQUESTS ATTEMPTS MULTIPLIER"""
import sys
import urllib.error
import urllib.request

from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_random_exponential

base, count, attempts, multiplier = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])


@retry(
    wait=wait_random_exponential(multiplier=multiplier, max=10),
    stop=stop_after_attempt(attempts),
    retry=retry_if_exception_type(urllib.error.HTTPError),
    reraise=True,
)
def fetch(i):
    request = urllib.request.Request(f"{base}/items/{i}", headers={"User-Agent": "tenacity-client/1.0"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status


for i in range(count):
    try:
        print(i, fetch(i), flush=True)
    except urllib.error.HTTPError as error:
        print(i, error.code, flush=True)
