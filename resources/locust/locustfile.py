# @HEADER@
#
# Each Locust user class below performs the logical requests of one request entry
# of the scenario under the retry policy, as RetryLab's executor would: the
# policy's backoff (every algorithm of RetryLab's core library), its retryable
# statuses and network faults, Retry-After and its bound, the attempt limit, the
# deadline, the per-attempt timeout and the idempotency rule, and the headers
# X-Retry-Request-Id and X-Retry-Attempt on every attempt.
#
# Every attempt is written as one JSON line to a file in the folder named by
# RETRYLAB_ATTEMPT_LOG (default: retrylab-attempts), one file per process:
#     retrylab import-locust retrylab-attempts -o report.json
# reads them back into a RetryLab report.
#
# Users: each request entry's `concurrency` is its user class's fixed_count, and
# each user performs ceil(count / concurrency) logical requests, then stops; give
# Locust at least the sum of the concurrencies as --users. Locust's --host is the
# "{server}" of the scenario's URLs; "{id}" in a URL, a header value or the body is the logical
# request's id, and "{server}" in a header value or the body the host Locust was given, as in
# RetryLab itself.
# Fallback endpoints are tried in order once the policy gives up, one attempt each.
#
#     python3 locustfile.py --retrylab-delays N SAMPLES SEED
# prints SAMPLES delays for each retry index below N, as JSON, without Locust.

import json
import math
import os
import random
import socket
import sys
import time
import urllib.parse
import uuid
from email.utils import parsedate_to_datetime

META = json.loads(r'''@META@''')
POLICY = json.loads(r'''@POLICY@''')
ENTRIES = json.loads(r'''@ENTRIES@''')
CLASSIFICATION = POLICY.get("classification", {})
IDEMPOTENT_METHODS = {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"}


# ---- the delays: RetryLab's core library, ported line by line ---------------

def _clamp(value, cap):
    if not (value > 0.0):
        return 0.0
    return min(value, cap)


def _cap():
    cap = POLICY.get("maxBackoffMs", 0.0)
    return cap if cap > 0.0 and math.isfinite(cap) else 0.0


def _base():
    base = POLICY.get("baseDelayMs", 0.0)
    return base if base > 0.0 and math.isfinite(base) else 0.0


def _growth(base, multiplier, n, cap):
    if base <= 0.0:
        return 0.0
    if n <= 0 or not (multiplier > 1.0) or not math.isfinite(multiplier):
        return min(base, cap)
    if cap <= 0.0 or math.log(base) + n * math.log(multiplier) >= math.log(cap):
        return cap
    return min(cap, base * multiplier ** n)


def _interval(value, cap, rng):
    kind = POLICY.get("intervalJitter", "none")
    if kind == "full":
        return _clamp(rng.uniform(0.0, value), cap)
    if kind == "equal":
        return _clamp(value / 2.0 + rng.uniform(0.0, value / 2.0), cap)
    if kind == "proportional":
        f = min(max(POLICY.get("jitterFraction", 0.0), 0.0), 1.0)
        return _clamp(value * rng.uniform(1.0 - f, 1.0 + f), cap)
    return _clamp(value, cap)


def delay_ms(n, previous_ms, rng):
    """The delay before retry n (0 = the first retry), in milliseconds."""
    n = max(0, n)
    cap = _cap()
    base = _base()
    multiplier = POLICY.get("multiplier", 2.0)
    algorithm = POLICY.get("algorithm")
    if algorithm in ("google-truncated-exponential", "iam-truncated-exponential"):
        jitter = POLICY.get("jitterMs", 0.0)
        jitter = jitter if jitter > 0.0 and math.isfinite(jitter) else 0.0
        return _clamp(_growth(base, multiplier, n, cap) + rng.uniform(0.0, jitter), cap)
    if algorithm == "exponential":
        return _clamp(_growth(base, multiplier, n, cap), cap)
    if algorithm == "full-jitter":
        return _clamp(rng.uniform(0.0, _growth(base, multiplier, n, cap)), cap)
    if algorithm == "equal-jitter":
        v = _growth(base, multiplier, n, cap)
        return _clamp(v / 2.0 + rng.uniform(0.0, v / 2.0), cap)
    if algorithm == "decorrelated-jitter":
        previous = previous_ms if previous_ms is not None and previous_ms >= base else base
        upper = min(previous * 3.0, max(cap, base) * 3.0)
        return _clamp(rng.uniform(base, upper), cap)
    if algorithm == "proportional-jitter":
        f = min(max(POLICY.get("jitterFraction", 0.0), 0.0), 1.0)
        return _clamp(_growth(base, multiplier, n, cap) * rng.uniform(1.0 - f, 1.0 + f), cap)
    if algorithm == "constant":
        return _interval(_clamp(base, cap), cap, rng)
    if algorithm == "linear":
        return _interval(_clamp((n + 1.0) * base, cap), cap, rng)
    return 0.0  # immediate


# ---- what is retried ---------------------------------------------------------

def network_action(fault):
    actions = CLASSIFICATION.get("networkActions", {})
    default = "retry-after-delay" if fault in ("broken-stream", "timeout") else "give-up"
    return actions.get(fault, default)


def retry_after_ms(value):
    """Retry-After as delta seconds or an HTTP date; None when it cannot be read."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return int(value) * 1000.0
    try:
        return max(0.0, (parsedate_to_datetime(value).timestamp() - time.time()) * 1000.0)
    except (TypeError, ValueError, OverflowError):
        return None


def repeatable(entry):
    """Whether a failed attempt of the entry may be sent again (RetryLab's idempotency rule)."""
    if CLASSIFICATION.get("retryNonIdempotent") or entry.get("idempotent"):
        return True
    # Cloud Storage's rule: PUT and DELETE count as idempotent only with a precondition.
    only_conditionally = CLASSIFICATION.get("putDeleteNeedPrecondition") and entry["method"] in ("PUT", "DELETE")
    if entry["method"] in IDEMPOTENT_METHODS and not only_conditionally:
        return True
    # A precondition makes a write conditional: a repeat cannot apply twice (If-Match, and Cloud
    # Storage's generation preconditions as query parameters or headers); so does an Idempotency-Key.
    names = {name.lower() for name in entry.get("headers", {})}
    if names & {"idempotency-key", "if-match", "if-unmodified-since", "x-goog-if-generation-match",
                "x-goog-if-metageneration-match"}:
        return True
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(entry["url"]).query, keep_blank_values=True)
    return "ifGenerationMatch" in query or "ifMetagenerationMatch" in query


def classify(entry, status, fault, not_sent):
    """(decision, cause, reason): decision is "success", "retry", "retry-immediately" or "give-up"."""
    if status is not None and fault is None:
        cause = "http-%d" % status
        if 200 <= status < 400:
            return "success", cause, "HTTP %d: success" % status
        if status in CLASSIFICATION.get("retryableStatuses", []):
            decision, reason = "retry", "HTTP %d: transient, retry after a delay" % status
        else:
            return "give-up", cause, "HTTP %d: not in the policy's retryable statuses" % status
    else:
        cause = fault
        action = network_action(fault)
        if action == "give-up":
            return "give-up", cause, "%s: the policy gives up" % fault
        decision = "retry-immediately" if action == "retry-immediately" else "retry"
        reason = "%s: %s" % (fault, action)
    if not repeatable(entry) and not not_sent:
        return "give-up", cause + "/not-idempotent", reason + ", but %s is not idempotent" % entry["method"]
    return decision, cause, reason


def fault_of(error):
    """RetryLab's network fault class of a requests exception, and whether the request was never sent."""
    import requests  # Locust's HttpSession is a requests session
    text = repr(error).lower()
    if isinstance(error, requests.exceptions.SSLError):
        return "tls-failure", True
    if isinstance(error, requests.exceptions.ConnectTimeout):
        return "timeout", True
    if isinstance(error, requests.exceptions.Timeout):
        return "timeout", False
    if isinstance(error, requests.exceptions.ChunkedEncodingError) or "incompleteread" in text:
        return "broken-stream", False
    if "name or service not known" in text or "nodename nor servname" in text or "getaddrinfo" in text:
        return "host-not-found", True
    if "refused" in text:
        return "connection-refused", True
    if isinstance(error, requests.exceptions.ConnectionError):
        return "connection-reset", False
    return "other", False


# ---- the attempt log ---------------------------------------------------------

class AttemptLog:
    """One JSON line per attempt, in a file of this process's own."""

    def __init__(self):
        folder = os.environ.get("RETRYLAB_ATTEMPT_LOG", "retrylab-attempts")
        os.makedirs(folder, exist_ok=True)
        self.worker = "%s-%d" % (socket.gethostname(), os.getpid())
        self.path = os.path.join(folder, "attempts-%s.jsonl" % self.worker)
        self.file = open(self.path, "a", encoding="utf-8")
        # The worker's clock: its wall time at a monotonic instant, so that the
        # import can place every worker's attempts on one time axis.
        self.mono_origin = time.monotonic_ns()
        self.write({"format": "retrylab-locust-attempts", "version": 1, "run": META["run"], "worker": self.worker,
                    "startUnixMs": time.time() * 1000.0, "startMonoNs": self.mono_origin,
                    "retrylab": META["retrylab"], "policy": POLICY.get("name", ""), "seed": META["seed"]})

    def write(self, line):
        self.file.write(json.dumps(line, separators=(",", ":")) + "\n")
        self.file.flush()


_LOG = None


def attempt_log():
    global _LOG
    if _LOG is None:
        _LOG = AttemptLog()
    return _LOG


def pointer_tokens(pointer):
    """The reference tokens of a JSON pointer (RFC 6901)."""
    if not pointer:
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def pointer_get(document, pointer):
    node = document
    for token in pointer_tokens(pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def pointer_set(document, pointer, value):
    tokens = pointer_tokens(pointer)
    if not tokens:
        return value
    node = document
    for token in tokens[:-1]:
        node = node[int(token)] if isinstance(node, list) else node[token]
    if isinstance(node, list):
        node[int(tokens[-1])] = value
    else:
        node[tokens[-1]] = value
    return document


def transport_of(entry, url):
    """requests' keyword arguments for the entry's TLS and proxy (RetryLab's TransportOptions)."""
    t = entry.get("transport", {})
    host = urllib.parse.urlsplit(url).hostname or ""
    kwargs = {"verify": t.get("verify", True)}
    if host.lower() in (h.lower() for h in t.get("insecureHosts", [])):
        kwargs["verify"] = False
    if t.get("cert"):
        kwargs["cert"] = tuple(t["cert"])
    if t.get("proxy"):
        kwargs["proxies"] = {"http": t["proxy"], "https": t["proxy"]}
    return kwargs


def expand(text, session, request_id):
    """{server} and {id} in a header value or a body, as RetryLab expands them."""
    if "{" not in text:
        return text
    return text.replace("{server}", (session.base_url or "").rstrip("/")).replace("{id}", request_id)


def perform(session, entry, request_id, rng):
    """One logical request: attempts, backoff and giving up. Returns its outcome.

    A read-modify-write reads the resource, writes its value plus the increment
    under the version read, and on 409 ABORTED (or 412 on a stale If-Match) starts
    the whole sequence again after the backoff, as RetryLab's executor does."""
    log = attempt_log()
    max_attempts = POLICY.get("maxAttempts", 0)
    deadline_ms = POLICY.get("deadlineMs", 0.0)
    timeout_ms = entry.get("attemptTimeoutMs") or POLICY.get("attemptTimeoutMs", 0.0)
    shape = entry.get("readModifyWrite")
    step = "read" if shape else ""
    read_document = etag = None
    first = time.monotonic()
    attempt = failures = retry_index = 0
    previous_delay = None
    planned = actual = 0.0
    used_immediate = False
    fallbacks = entry.get("fallbacks", [])
    fallback = 0  # 0: the URL; n: the n-th fallback
    primary_outcome = primary_reason = None
    failed_fallbacks = []
    while True:
        url = (fallbacks[fallback - 1] if fallback > 0 else entry["url"]).replace("{id}", request_id)
        method = entry["method"]
        body = expand(entry.get("body", ""), session, request_id).encode("utf-8") or None
        headers = {name: expand(value, session, request_id) for name, value in entry.get("headers", {}).items()}
        if step == "read":
            method = shape["readMethod"]
            body = None if method in ("GET", "HEAD") else body
        elif step == "write":
            method = shape["writeMethod"]
            url = (shape.get("writeUrl") or url).replace("{id}", request_id)
            document = pointer_set(json.loads(json.dumps(read_document)), shape["valuePointer"],
                                   pointer_get(read_document, shape["valuePointer"]) + entry["increment"])
            if shape.get("writeEnvelope"):
                document = {shape["writeEnvelope"]: document}
            body = json.dumps(document, separators=(",", ":")).encode("utf-8")
            headers["Content-Type"] = "application/json"
            if not shape.get("etagPointer"):
                headers["If-Match"] = etag
        headers["X-Retry-Request-Id"] = request_id
        headers["X-Retry-Attempt"] = str(attempt + 1)
        start_mono = time.monotonic_ns()
        status = fault = response = None
        not_sent = False
        retry_after = None
        try:
            response = session.request(method, url, headers=headers, data=body,
                                       timeout=timeout_ms / 1000.0 if timeout_ms > 0 else None,
                                       name=entry["name"], allow_redirects=True, **transport_of(entry, url))
            if response.status_code == 0 and getattr(response, "error", None) is not None:
                # Locust's session turns a transport failure into a response without a status.
                fault, not_sent = fault_of(response.error)
            elif len(response.content or b"") < int(response.headers.get("Content-Length", "0") or 0):
                # A body cut short of its Content-Length: urllib3 1.26 (Debian 12's) does not
                # say so itself, and RetryLab counts it a network fault whatever the status.
                status, fault = response.status_code, "broken-stream"
            else:
                status = response.status_code
                if CLASSIFICATION.get("honourRetryAfter", True):
                    retry_after = retry_after_ms(response.headers.get("Retry-After"))
        except Exception as error:  # a transport failure is an outcome like any other
            fault, not_sent = fault_of(error)
        end_mono = time.monotonic_ns()
        decision, cause, reason = classify(dict(entry, method=method), status, fault, not_sent)
        restart = False
        if shape and status in (409, 412):
            aborted = status == 409 and '"ABORTED"' in (response.text if response is not None else "")
            if aborted or (status == 412 and step == "write" and not shape.get("etagPointer")):
                # Another writer got there first: only a new read can give a usable version.
                restart = True
                cause = "http-409-aborted" if aborted else cause
                if CLASSIFICATION.get("retryConflictAborted", True):
                    decision, reason = "retry", "HTTP %d: the version is stale; the whole sequence starts again" % status
                else:
                    decision, reason = "give-up", "HTTP %d: the policy does not retry conflicts" % status
        next_step = step
        if decision == "success" and step == "read":
            try:
                read_document = response.json()
            except ValueError:
                read_document = None
            value = pointer_get(read_document, shape["valuePointer"]) if read_document is not None else None
            etag = (response.headers.get("ETag") if not shape.get("etagPointer")
                    else pointer_get(read_document, shape["etagPointer"]))
            if not isinstance(value, int) or isinstance(value, bool) or not isinstance(etag, str):
                decision, reason = "give-up", "the read did not return an integer at %s and its version" % shape[
                    "valuePointer"]
            else:
                next_step = "write"
                reason = "read value %d with etag %s; writing %d" % (value, etag, value + entry["increment"])
        failures += decision != "success"
        elapsed_ms = (time.monotonic() - first) * 1000.0
        outcome = None
        next_delay = -1.0
        if decision == "success" and next_step == "write" and step == "read":
            next_delay = 0.0  # the write goes out at once
        elif decision == "success":
            outcome = "succeeded"
        elif decision == "give-up":
            outcome = "gave-up"
        elif max_attempts > 0 and failures >= max_attempts:
            outcome, reason = "attempts-exhausted", reason + "; gave up: attempt limit reached"
        elif POLICY.get("algorithm") == "immediate" and failures >= 2:
            outcome, reason = "attempts-exhausted", reason + "; the Immediate algorithm retries only once"
        else:
            if decision == "retry-immediately" and not used_immediate:
                used_immediate, next_delay = True, 0.0
            else:
                next_delay = delay_ms(retry_index, previous_delay, rng)
                previous_delay = next_delay
                retry_index += 1
            remaining = deadline_ms - elapsed_ms if deadline_ms > 0 else None
            if retry_after is not None:
                if remaining is not None and retry_after > remaining:
                    outcome, next_delay = "deadline-exceeded", -1.0
                else:
                    bound = CLASSIFICATION.get("maxRetryAfterMs", -1)
                    next_delay = min(retry_after, bound) if bound is not None and bound >= 0 else retry_after
            if outcome is None and remaining is not None and next_delay >= remaining:
                outcome, next_delay = "deadline-exceeded", -1.0
            if restart:
                next_step = "read"
        if fallback > 0:
            # A fallback endpoint gets one attempt, without backoff.
            next_delay = -1.0
            if decision == "success":
                outcome = "succeeded"
                reason = "fallback %d of %d answered: %s" % (fallback, len(fallbacks), reason)
            else:
                outcome = "gave-up"
                reason += "; a fallback endpoint gets one attempt"
                failed_fallbacks.append("fallback %d of %d failed: %s" % (fallback, len(fallbacks), reason))
        moves_on = outcome not in (None, "succeeded") and fallback < len(fallbacks)
        if moves_on:
            # The policy gave up on the URL (or a fallback failed): the next fallback, at once.
            if fallback == 0:
                primary_outcome, primary_reason = outcome, reason
            outcome, next_delay = None, 0.0
        elif outcome not in (None, "succeeded") and fallback > 0:
            # Every fallback failed too: the request ends as the policy ended it.
            outcome, reason = primary_outcome, "%s; then %s" % (primary_reason, "; ".join(failed_fallbacks))
        log.write({"run": META["run"], "request": request_id, "entry": entry["name"], "attempt": attempt,
                   "step": step, "fallback": fallback, "method": method, "url": url,
                   "startNs": start_mono - log.mono_origin, "endNs": end_mono - log.mono_origin,
                   "plannedDelayMs": planned, "actualDelayMs": actual, "status": status, "fault": fault,
                   "decision": decision, "cause": cause, "reason": reason, "nextDelayMs": next_delay,
                   "outcome": outcome})
        if outcome is not None:
            return outcome
        if moves_on:
            fallback += 1
            step = ""
            planned = actual = 0.0
            attempt += 1
            continue
        step = next_step
        before = time.monotonic()
        time.sleep(next_delay / 1000.0)
        planned, actual = next_delay, (time.monotonic() - before) * 1000.0
        attempt += 1


# ---- self-test: the delays, without Locust -----------------------------------

if __name__ == "__main__" and len(sys.argv) >= 2 and sys.argv[1] == "--retrylab-delays":
    count, samples, seed = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rng = random.Random(seed)
    out = []
    for n in range(count):
        out.append([delay_ms(n, None, rng) for _ in range(samples)])
    print(json.dumps(out))
    sys.exit(0)

# ---- the Locust users ----------------------------------------------------------

from locust import HttpUser, constant, task  # noqa: E402
from locust.exception import StopUser  # noqa: E402
import locust.runners  # noqa: E402

if not getattr(locust.runners, "__version__", ""):
    # Debian's python3-locust reports an empty version, and a master then refuses
    # its workers as "pre 2.0": say the version this file was tested with.
    locust.runners.__version__ = META["locust"]
elif locust.runners.__version__.split(".")[:2] != META["locust"].split(".")[:2]:
    print("retrylab: this file was tested with Locust %s, not %s" % (META["locust"], locust.runners.__version__),
          file=sys.stderr)


def _user_class(index, entry):
    per_user = max(1, math.ceil(entry["count"] / max(1, entry["concurrency"])))

    class EntryUser(HttpUser):
        fixed_count = entry["concurrency"]
        wait_time = constant(0)

        def on_start(self):
            # RetryLab goes straight to the server unless the request asks for the system's proxy.
            self.client.trust_env = bool(entry.get("transport", {}).get("trustEnv", False))
            self.done = 0
            self.rng = random.Random(int(META["seed"]) * 1000003 + index * 7919 + id(self) % 1000003)

        @task
        def logical_request(self):
            if self.done >= per_user:
                raise StopUser()
            self.done += 1
            request_id = "%s-%s" % (entry["name"], uuid.uuid4().hex[:16])
            perform(self.client, entry, request_id, self.rng)

    EntryUser.__name__ = "Entry%dUser" % index
    return EntryUser


for _index, _entry in enumerate(ENTRIES):
    globals()["Entry%dUser" % _index] = _user_class(_index, _entry)
