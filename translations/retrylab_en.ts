<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>QObject</name>
    <message>
        <source>proxy %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::App</name>
    <message>
        <source>the embedded server does not run, so no client can be observed for clients.png</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the observed clients did not finish within 30 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>could not write the demo HAR: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>could not read the demo HAR back: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>could not read the demo collection: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>could not read the demo environment: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>could not write the demo report: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>could not open the demo report: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the embedded server does not run, so the proxy has no upstream for proxy.png</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the proxy&apos;s rules for proxy.png do not read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the proxy for proxy.png did not start: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client behind the proxy did not finish within 30 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Screenshot demo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Google&apos;s truncated exponential backoff, scaled down to milliseconds.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opens the window, runs a short demo against the embedded fault server (requests that retry, some that fail for good, a batch, a scripted scenario, a small herd simulation), and saves each tab and the policy dock as PNG files. Uses settings of its own, not yours.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show this help.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder for the PNG files (created if missing).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>DIR</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use a dark palette, as a desktop in dark mode would.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>WxH</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep the window open this many seconds after saving (to capture the screen).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab screenshot: %1; see retrylab screenshot --help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: retrylab screenshot --out DIR [options]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab screenshot: --out DIR is required</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab screenshot: --size must be WxH from 640x480 to 8000x8000 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab screenshot: --hold must be 0 to 3600 seconds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab screenshot: cannot create a temporary folder: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab screenshot: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab screenshot: the embedded server did not start: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot create the folder %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot write into %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>could not write %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the demo did not finish within a minute; saving what there is</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no failed attempt with a JSON body to inspect</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the embedded server has no HTTPS port for connection.png</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the window runs monitors already; the monitors&apos; pictures need a history of their own</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the screenshots&apos; monitors do not read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the monitors&apos; history %1 did not open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>only %1 of %2 monitors were checked live</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the monitors&apos; figures of the last day did not arrive</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the monitor &quot;%1&quot; is not in the table</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the history of &quot;%1&quot; was not read in time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no incidents were read for incidents.png</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot write the monitors&apos; history %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the Conformance tab has no Cloud Storage cases</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the Cloud Storage cases did not finish within two minutes; saving what there is</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the window at the request, its URL ready to type.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the window and ask for a run (a JSON report) to open.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the window at the Monitors tab.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File not opened</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 was not opened: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Window size in pixels, as the screen it plays (default 1280x800; under QT_SCALE_FACTOR the window fits this many pixels).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>could not write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no attempts to inspect for inspector-window.png</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the batch of batch-live.png did not finish within a minute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot write %1 for body.png</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Cli</name>
    <message>
        <source>Runs one scripted fault scenario under 2 to 4 policies at once, each against its own copy of the
scenario&apos;s scripts and with the same seed, so that only the policy differs. Prints the runs as
timelines on one time axis and a summary row per policy: attempts (the load on the server), the
busiest second, time to success, failures.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show this help.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A policy: a preset id or name, or a policy file. Give 2 to 4.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ID|FILE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The scenario file (its scripts and requests; its policy is replaced).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FILE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed of the jitter and random faults (default: a fresh one, printed).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Characters of the time axis (default 60).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>N</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print the comparison as JSON.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: retrylab compare --policy A --policy B [--policy C ...] --scenario FILE [options]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unexpected argument &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>give 2 to 4 --policy options (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--scenario FILE is required</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--policy %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--width must be a whole number from 20 to 400 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--seed must be a whole number (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab compare: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>request %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>busiest second</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>to success p50</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2/%3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pass</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FAIL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fault sequence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs the conformance matrix for a retry policy against the embedded fault server: fault sequences (503s, resets, 429 with Retry-After, a broken stream, 400 and 401 mixed in, a 503 that never ends) x idempotency (GET; POST with If-Match; plain POST). Each cell&apos;s expected outcome follows from the policy&apos;s rules; the matrix shows which cells behave as expected. The policy&apos;s waits are compressed so that the matrix takes seconds.
Exit status: 0 when every cell passes, 1 when one fails, 2 for a usage or file error.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy: a preset id or name, a policy JSON file, or &quot;all&quot; for every preset. May be given several times. Default: google-cloud-storage.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>P|FILE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Derive the expected outcomes from this policy instead, to see in which cells two policies differ.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print only the verdict line and the failing cells, not the matrix.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: retrylab conformance [options]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>preset %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab conformance: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Conformance of &quot;%1&quot; (%2), %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expected outcomes follow the rules of &quot;%1&quot; (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Waits compressed x%1: base %2, cap %3, %4; %n cell(s), each its own client</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>deadline %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no deadline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab conformance: interrupted; cancelling the cells still running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab conformance: %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FAIL  %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>retrylab conformance: %1: the time limit of %2 ran out; %n cell(s) still running were cancelled and fail</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2 of %3 cells pass (%4)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>conformance: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab demo: why retries need jitter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Two groups of %1 clients each reach one overloaded endpoint at the same moment; it serves %2 requests per second in bursts of %3 and answers 429 beyond that (the embedded fault server&apos;s /ratelimit, on %4).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Both back off exponentially: %1 first, doubling up to %2, at most %3 attempts, Retry-After ignored so that the backoff alone decides.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; waits exactly that long; &quot;%2&quot; draws each wait at random up to it (%3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A short demonstration in the terminal: two groups of clients retry against an overloaded endpoint on the embedded fault server, one backing off without jitter and one with full jitter, drawn as text timelines on one time axis. Takes a few seconds; needs no display.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print only the comparison, not the timelines.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Characters of the time axis, 20-400 (default 64).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: retrylab demo [options]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no jitter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>full jitter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab demo: the built-in scenario is damaged: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab demo: the embedded fault server cannot listen: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Jitter drawn with %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running both groups at once...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab demo: %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>group</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>through</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>median done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>last done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With full jitter the last client was through %1 sooner, with %2 calls instead of %3: the retries no longer arrive in waves, so the endpoint&apos;s capacity is used as it refills.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In this run full jitter did not finish sooner (%1 later, %2 calls instead of %3); run the demo again, or with another --seed, to see how much the outcome varies.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The layer calculator: 2 to 4 retry policies stacked, outermost first (for example app, SDK,
service mesh). Every attempt of a layer runs the whole retry sequence of the layer below, so
the attempts that reach the server multiply. Prints, per user action, the worst-case and the
expected number of attempts at the server and the longest wait before the action gives up,
computed exactly, then checked by playing the stack many times on a virtual clock.
Exit status 1 when the worst case exceeds --threshold.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A layer: a preset id or name, or a policy file. Give 2 to 4, outermost first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Probability that one attempt at the server fails, for the expected figures (default 0.5).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>P</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How long a failing attempt at the server takes (default 0: it fails at once).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warn when one user action may send more attempts than this (default 10).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>User actions played for the check (default 10000; 0: no check).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed of the check (default: a fresh one, printed).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print the figures as JSON.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: retrylab layers --policy A --policy B [--policy C ...] [options]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>give 2 to 4 --policy options, outermost first (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-p must be a probability from 0 to 1 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--failure-ms must be from 0 to 3600000 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--threshold must be from 1 to 10^12 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--runs must be a whole number from 0 to 10000000 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>check: %1 user actions played (seed %2): %3 +- %4 attempts at the server on average, at most %5; %6 % failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Writes a self-contained Locust file that performs the scenario&apos;s requests under its retry policy
(or --policy), on as many Locust workers as you start: every backoff algorithm, the retryable
statuses and network faults, Retry-After, the attempt limit, the deadline and the per-attempt
timeout, as RetryLab&apos;s own executor. Each worker logs every attempt; retrylab import-locust reads
the logs back into a report.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The retry policy: a preset id or name, or a policy file (default: the scenario&apos;s).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed of the jitter (default: a fresh one, printed).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The Locust file to write.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: retrylab export-locust SCENARIO.json [--policy ID|FILE] -o FILE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>give one scenario file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-o FILE is required</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>note: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>wrote %1: %2 request entries under the policy &quot;%3&quot;, run %4, seed %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>run it on one machine:  locust -f %1 --headless --users %2 --spawn-rate %2 --host URL --run-time 1m
or on several: one locust -f %1 --master --headless --users %2 --spawn-rate %2 --host URL --expect-workers N, and N times locust -f %1 --worker --master-host HOST
then: retrylab import-locust retrylab-attempts -o report.json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reads the attempt logs that the workers of a Locust file made by retrylab export-locust wrote (a
folder of *.jsonl files, or the files) and writes them as one RetryLab JSON report, which the window
opens like any run. The workers&apos; clocks are placed on one time axis by each one&apos;s own start.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The JSON report to write.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Also write the run as HAR 1.2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Also write the attempts as CSV.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The scenario the Locust file was made from: its expectations are judged, written into the report, and make the exit status 1 when one does not hold.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With --scenario: the verdicts as JUnit XML.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep credentials in the report (it then says so).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: retrylab import-locust FOLDER|FILE... -o report.json [--har F] [--csv F] [--scenario F [--junit F]]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>give the folder of attempt logs, or the files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--junit needs --scenario (the expectations it reports)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the logs name a request &quot;%1&quot; that %2 does not have</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>note: %n logical request(s) had not finished when the logs ended</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>expectation failed: %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>wrote %1: run %2, %3 attempts of %4 logical requests from %n worker(s), %5 succeeded</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>expectations: %1 passed, %2 failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Observation plans (--plan NAME, or a JSON file):
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A plan file: {&quot;name&quot;: &quot;...&quot;, &quot;steps&quot;: [&quot;return-503*2&quot;, &quot;reset&quot;], &quot;then&quot;: &quot;return-200&quot;}
or {&quot;probability&quot;: 0.3, &quot;randomStep&quot;: &quot;return-503&quot;, &quot;then&quot;: &quot;return-200&quot;}; steps as in retrylab serve --help.
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs the fault server on loopback and watches the clients you point at it: groups their attempts into
logical requests, serves each logical request the observation plan, infers each client&apos;s retry policy
and judges it against the rules of the source documents. Runs until Ctrl+C, --duration or --requests;
exit 0 when every verdict passes, 1 when one fails, 2 for usage errors.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Port to listen on; 0 (the default) lets the system choose.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What each logical request is served: a plan name (default 503x3; --list-plans) or a JSON file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NAME|FILE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>List the observation plans.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop after this many seconds.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop once this many logical requests have finished.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the observation (format retrylab-observation, version 1) to this JSON file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the verdicts as JUnit XML (one test case per rule).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Longest pause in ms between an answer and a retry of the same request (default %1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed of the random plans (default: a fresh one, printed).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Logical requests kept in memory; older ones are dropped and counted (default 20000).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print no line per attempt, only the verdicts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: retrylab observe [options]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1 must be %2 from %3 to %4 (got &quot;%5&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a whole number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--duration and --requests cannot be used together</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--plan: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab observe: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab observing on %1 with plan %2 (%3), seed %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Point a client at any path but the endpoints, e.g. curl --retry 3 %1/items/1; Ctrl+C stops.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 older logical requests were dropped to keep memory bounded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab observe: --report: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab observe: --junit: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FORMAT</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export a built-in preset (a wrong id lists them).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ID</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write to this file instead of standard output.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC: the service the config applies to, e.g. pkg.Orders (default: every service).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NAME</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC: the method within --service (default: every method).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>check: clients that may fail and retry together (default 1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>check: a person waits for the answer, so long waits are warned about.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The action: export or check.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A policy JSON file (instead of --preset).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>say what to do: export or check</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown action &quot;%1&quot; (known: export, check)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--clients and --interactive go with check</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--clients must be a whole number from 1 to 100000000 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>give either --preset ID or a policy file, not both and not neither</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--service and --method go with --format grpc</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--method needs --service</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no preset &quot;%1&quot; (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Policy &quot;%1&quot; for %n client(s)%2</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>, interactive</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no warnings</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n warning(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>retrylab policy: --out: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Address and port to listen on (default 127.0.0.1:0, a free port).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ADDR:PORT</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The service to forward to: http:// or https:// URL.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send the client&apos;s Host header on instead of the upstream&apos;s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PEM file of CA certificates trusted for an https upstream, besides the system&apos;s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allow --listen to name an address other machines can reach.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write what the observer saw (format retrylab-observation, version 1) to this JSON file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print no line per exchange.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A fault rule (repeatable), e.g. &apos;status=503 p=0.3 path=/api/*&apos;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RULE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fault rules from a JSON file (format retrylab-faults, version 1); --fault rules come after them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed of the fault probabilities and latencies (default: the file&apos;s, or a fresh one, printed).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Port of the control endpoint on 127.0.0.1 (default: a free one, printed).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PORT</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--upstream must be an http or https URL with a host (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--cacert: %1 holds no PEM certificate (or cannot be read)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--listen needs ADDRESS:PORT, e.g. 127.0.0.1:8080 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--duration must be a number of seconds (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--seed must be a whole number 0 or more (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--control needs a port number (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab proxy: control port: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab proxy: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: listening on %1, which other machines may reach; anyone who does can reach %2 through it and meet its faults</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab proxy on %1 -&gt; %2; Ctrl+C stops.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fault %1%2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (off)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seed %1; control: %2 (GET, or POST ?enabled=false)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab proxy: --report: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab request: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot read standard input: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n byte(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1 KiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--policy %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--policy &quot;%1&quot; is neither a policy file nor a preset (presets: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1 takes a number of %2, not &quot;%3&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>milliseconds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
Request options, read as curl reads them (clusters such as -sSL, values attached as in -XPUT):
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Other curl options are refused when given here, and listed when they come with --from-curl;
-s, -S, -v, --compressed and other options that only change curl&apos;s own output are accepted
and have no effect.
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The retry policy: a preset id or name, or a policy JSON file (default: %1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts in all, the first included (0: the deadline ends it).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy&apos;s base delay.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy&apos;s longest delay.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy&apos;s total deadline (0: none).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print the response&apos;s status line and headers before the body, on standard output.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the body, byte for byte, to FILE instead of standard output.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A whole curl command line, as one argument (quote it); it replaces the request options.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&apos;curl ...&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ignore certificate errors for the URL&apos;s host. Needed, spelt out, for a -k or --insecure in the curl options or in --from-curl.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The most of a response body kept, in bytes, from %1 to %2 (default: %3, with -o %2). A longer body is cut: shown with a warning, and not written by -o.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>BYTES</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The request is safe to repeat: retry a POST or PATCH too (curl retries every method).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An alternative service, tried once the policy gives up on the URL: one attempt, without backoff. Give it again for more (at most %1), tried in order.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print only the response and errors, not each retry, notes and the files written.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1 is given more than once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--from-curl takes the whole request: put the URL and the curl options inside it (the other options here are retrylab&apos;s own)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--from-curl: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown option %1 (retrylab request takes the curl options its --help lists); see retrylab request --help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: the curl command&apos;s %1 is not supported and has no effect</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the curl command turns certificate checks off for %1 (-k/--insecure); give --insecure to retrylab request as well to allow that: without the checks nothing proves that the server is %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-k would turn certificate checks off for %1; retrylab request takes only the long --insecure for that, so that the checks that prove the server is %1 are never switched off by one letter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the policy (%1) cannot be used: %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the policy cannot be used: %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-o needs a file name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-o %1: cannot write there: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-o names a file that another option writes too: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--max-body takes a number of bytes from %1 to %2, not &quot;%3&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: --insecure: certificate errors of %1 are ignored; nothing proves that the server is %1, and every export says so</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>note: %1 is understood and has no effect here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request succeeds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2 under the policy &quot;%3&quot; (%4), %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab request: interrupted; cancelling (press Ctrl+C again to quit at once)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>retrylab request: %1 after %n attempt(s): %2</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>retrylab request: -o: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrote the body to %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab request: the body is binary (%1) and is not shown on a terminal; save it with -o FILE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>note: credentials in the body are masked; --no-redact or -o FILE give it as it came</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: the body has %1; only the first %2 are shown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab run: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>request &quot;%1&quot;: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the scenario ignores certificate errors for %1; give --insecure to allow that: without the checks nothing proves who the server is</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: --insecure: certificate errors are ignored for %1, and every export says so</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: %1 attempts in flight need about %2 file descriptors, but the limit is %3 (at most %4, raise it with ulimit -n): running %5 at once instead</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Scenario &quot;%1&quot; (%2): %n request(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Policy &quot;%1&quot; (%2), %3, %n attempt(s) in flight at most</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Embedded fault server on %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab run: interrupted; cancelling what still runs (press Ctrl+C again to quit at once)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab run: %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab run: %1: the scenario&apos;s time limit of %2 ms ran out before every request finished; the run fails</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab run: interrupted; the run fails</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Address to listen on (default 127.0.0.1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ADDR</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allow --bind to name an address other machines can reach. Anyone who reaches it can make the server misbehave on purpose.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed for random failures and latency (default: a fresh one, printed).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connections served at once (default 2048).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close idle connections after this many ms (default 30000).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print only the URL, not a line per request.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print request targets as they arrived, credentials included (?token=, ?api_key=, user:password@); by default they are masked.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Serve HTTPS too, on this port (0: one the system chooses), with a certificate made at start and signed by a CA made with it (GET /_control/ca.pem), and one more port per TLS fault (listed below).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With --https-port: present this certificate (PEM, then its chain) instead of a generated one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The private key (PEM) of --tls-cert.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The passphrase of an encrypted --tls-key: the first line of FILE (a file, so that it shows in no process list).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: retrylab serve [options]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab serve: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: listening on %1, which other machines may reach; anyone who does can trigger faults</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab fault server listening on %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTPS on %1 (trust %2/_control/ca.pem); TLS faults:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Random faults and latency drawn with seed %1 (--seed %1 repeats them).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>At most %1 connections at once (file descriptors: %2 allowed, %3 at most).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GET %1/ lists the endpoints. Press Ctrl+C to stop.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab simulate: %1
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>clients</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1: %n run(s) per cell, seed %2

</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Calls (mean per run)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Completion time, ms (mean)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts per client (99th percentile)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Succeeded, % of clients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Peak server load, calls/s (mean)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recovery after the outage, ms (mean)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Peak load during recovery, calls/s (mean)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shows this help.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client counts: first:last:step, a number, or a comma-separated list. Default 10:190:10.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Comma-separated strategies, or &quot;all&quot;. Known: %1. Default: %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Random seed. Default: a fresh one, printed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Writes one row per (clients, strategy) to this file (&quot;-&quot;: standard output, no table).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Writes the mean server load per bin to this file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>herd (all at once) or poisson (a stream at --arrival-rate).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clients ignore Retry-After and use their backoff.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Prints the wall time and simulated events per second to stderr.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No progress on stderr.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: retrylab simulate [options]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unexpected argument &quot;%1&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--seed: &quot;%1&quot; is not a whole number from 0 to 2^64 - 1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--arrivals: unknown mode &quot;%1&quot;; use herd or poisson.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1: &quot;%2&quot; is not a number.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1: &quot;%2&quot; is not a whole number.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: cannot write &quot;%2&quot;: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>simulated %1 events in %2 s (%3 million events/s)
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab: see and test how clients retry failed network requests.

Without a command, opens the window. Commands:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab without a window: see and test how clients retry failed network requests.

Commands:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>

Run &apos;%1 COMMAND --help&apos; for a command&apos;s options.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>run a scenario file and check its expectations (exit 0, 1, 2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>show in the terminal why retries need jitter (a few seconds)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>run the retry conformance matrix for a policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>run the fault-injection server on loopback until interrupted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>herd simulator: compare backoff strategies on a virtual clock</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>send one request, as curl would, under a retry policy (exit 0, 1, 2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>watch clients retry against the fault server, infer their policies and judge them (exit 0, 1, 2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a reverse proxy on loopback in front of a real service, watching the clients that use it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>export a retry policy as a gRPC service config, curl flags or JSON (policy export), or check it for aggressive settings (policy check)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stack 2 to 4 retry policies and see how the attempts at the server multiply (exit 0, 1, 2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>run one fault scenario under 2 to 4 policies at once and compare them side by side</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>write a Locust file that runs a scenario under its retry policy on Locust&apos;s distributed workers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read the attempt logs of Locust workers back into a RetryLab report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: unknown command &quot;%2&quot;; see %1 --help
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed for jitter and for the embedded server&apos;s random faults, so that a run can be repeated.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print and export credentials (Authorization, cookies, API keys, tokens, passwords) as they are. Redacted by default.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the JSON report (policy, requests, attempts, verdicts).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>F.json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write every attempt as HAR 1.2, for a browser&apos;s network panel.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>F.har</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write one CSV row per attempt (RFC 4180).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>F.csv</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the verdicts as JUnit XML, one test case each.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>F.xml</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seed %1 (drawn; --seed %1 repeats it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seed %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--seed must be a whole number from 0 to 18446744073709551615 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1 needs a file name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1 names a file that another option writes too: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1 %2: cannot write there: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrote the %1 to %2 (%3 bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot write the %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HAR</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CSV</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JUnit XML</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: --no-redact: credentials (Authorization, cookies, API keys, tokens, passwords) are printed and exported as they are; do not share the output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is neither a policy file nor a preset (presets: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>run a short demo in the window and save each tab as a PNG file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1 takes a whole number from %2 to %3, not &quot;%4&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: retrylab request [options] [curl options] URL
       retrylab request [options] --from-curl &apos;curl ...&apos;
       retrylab request [options] --collection FILE --request NAME [--env FILE]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sends one request, as curl would, under a retry policy: prints each retry as it happens, then the response (the status line, the headers with -i, and the body on standard output). The attempts and messages go to standard error, so that the body can be piped. The request may also be one saved in a collection (--collection).
Exit status: 0 when the request succeeded, 1 when it failed for good, 2 for a usage error or a file that cannot be read or written.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send a request saved in a RetryLab collection file instead of a URL and curl options: the one --request names (see below).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With --collection: the saved request&apos;s name, or its &quot;Folder/Name&quot; path. Without --collection, --request is curl&apos;s -X.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With --collection: the environments file (the window&apos;s environments.json) whose variables fill in the request&apos;s {{name}}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With --env: the environment to use (default: the one selected last in the window, or the file&apos;s only one).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--env and --env-name fill in a saved request&apos;s variables: give --collection FILE and --request NAME too</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--collection takes the request from the file: give no URL, curl options or --from-curl with it (the other options here are retrylab&apos;s own)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab request: the embedded fault server cannot listen: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sending %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Scenario &quot;%1&quot; (%2) under %n policies, %3</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>--policy: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--expect-policy: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--report, --har and --csv hold one policy&apos;s run; give one --policy (--junit takes several)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1 must be a whole number from %2 to %3 (got &quot;%4&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--bind needs an IP address (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--tls-cert and --tls-key need --https-port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--tls-key-pass-file needs --tls-key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--tls-key-pass-file %1: cannot read: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; see retrylab %2 --help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab compare: interrupted; cancelling what still runs (press Ctrl+C again to quit at once)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>retrylab compare: interrupted; %n request(s) were cancelled before they ended, so the comparison is incomplete</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>n/a</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The history: a SQLite file or postgresql://USER@HOST:PORT/DB (default: %1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FILE|URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only this monitor.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only what this agent saw.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From this time: ISO 8601 with its zone, a date, or a span back from now (15m, 24h, 30d; default 24h).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>T</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Up to this time, as --since takes it (default: now).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replay the window through this policy too: a preset, &quot;none&quot; (one attempt per check) or a policy file. The result is an estimate.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>POLICY</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed of the what-if&apos;s jitter (default 1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An availability objective of checks, such as 0.999: its error budget left and burn rates.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TARGET</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>text (default), json or csv.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reads back what retrylab monitor kept: per monitor and agent, the availability of checks (what a
client with the monitor&apos;s policy saw) beside that of single attempts (what the server gave),
attempts per check, latency, incidents and the ones the retries hid, MTBF and MTTR.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--db needs a file or a postgresql:// URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--since: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--until: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--until must come after --since</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--what-if: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--objective is a fraction between 0 and 1, such as 0.999 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--format is text, json or csv (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>History in %1, %2 to %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No check in this window.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>monitor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>checks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>checks ok</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>attempts ok</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>attempts/check</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>p50</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>p99</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>incidents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>hidden</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MTBF</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MTTR</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2): counts before %3 come from the roll-ups; latency and incidents start there</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2): %3 %4 to %5 (%6), %7 checks, %8 attempts; first error: %9</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>hidden incident</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>incident</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: objective %2 over 30 days: %3 available, %4 of the error budget left; burn rate %5 over 1 h, %6 over 5 min (alert above %7)%8</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>: ALERTING</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: what-if %2 (an estimate): %3 instead of %4, %5 attempts per check instead of %6; %7 incidents (%8 hidden) instead of %9 (%10)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>  %1 checks left out: no recorded attempt within %2 of a replayed one</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; reaches back more than a century</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a time: give ISO 8601 with its zone (2026-11-29T02:00:00Z), a date (2026-11-29), &quot;now&quot;, or a span back from now (15m, 24h, 30d)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: retrylab history [options]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab history: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--monitor &quot;%1&quot;: %2 has no such monitor (it has %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep the history in this SQLite file, or in PostgreSQL at postgresql://USER@HOST:PORT/DB (shared by several agents). Default: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep raw checks and attempts this many days (default %1), then only per-minute and per-hour figures, which are kept a year.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Serve Prometheus metrics at http://HOST:PORT/metrics (loopback only, unless --allow-non-loopback; port 0: one the system chooses, printed).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HOST:PORT</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allow --metrics-listen on an address other machines can reach.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The name this agent&apos;s checks are kept under (default: this machine&apos;s name).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fill {{variables}} from this environment of the file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop after this many seconds (default: until interrupted).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print only changes of state and incidents, no banner and no summary.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs the monitors of a monitors file until --duration ends or it is interrupted (Ctrl+C, SIGTERM),
keeping every check and attempt in the history (read it back with retrylab history), and prints
changes of state and incidents as they happen. Interrupted, it lets the checks in flight end,
writes what is left and exits 0.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The monitors file (format retrylab-monitors).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>name a monitors file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--retention-days must be a whole number from 1 to %1 (got &quot;%2&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--metrics-listen: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--agent needs a name of 1 to 100 characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--duration must be a number of seconds above 0 and at most a year (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 to %2 (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>since %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1  %2  hidden incident %3: %4 checks succeeded after %5 failed attempts; first error: %6</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1  %2  incident ended, %3: %4 failed checks, %5 attempts; last error: %6</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: retrylab monitor [options] FILE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--db: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the history is written again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: %1; the checks wait in memory and are written when it works again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab monitor: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1  %2  %3 -&gt; %4: %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1  %2  incident started: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>History in %1 (%2 MiB; raw checks kept %3 days)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>History in %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Prometheus metrics at %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: the alert &quot;%1&quot; of %2 did not reach %3: %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>notification: %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: %1 checks and changes of state could not be written to the history: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: %1 checks were dropped while the history could not be written</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 checks, %3 of checks and %4 of attempts succeeded, %5 attempts per check</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>  after %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 clients seen first were forgotten to keep the table within %2 clients.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--faults: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--faults and --fault: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
A saved request (--collection FILE --request NAME): FILE is a collection as the window writes it,
one of the JSON files of its collections folder; NAME is a request&apos;s name, or its path with its
folders (&quot;Orders/Create&quot;) when the name is not unique. {{name}} takes its value from --env FILE,
the environments file the window writes (environments.json): from the environment selected last
in the window, the file&apos;s only one, or the one --env-name names. {server} stands for a fault
server started for the request and {id} for a new key, as in the window. The policy, seed and
connection saved with the request apply; --policy, --retry-*, --seed, --idempotent, --fallback,
--fallback-on and --insecure given here go over them. No URL or curl option goes with
--collection; without it, --request is curl&apos;s -X.
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Which faults send the request to its fallbacks, in place of those the policy retries: HTTP statuses (503), classes of them (5xx), or network faults (%1), separated by commas. A request that may not be repeated (a POST whose outcome is unknown) still never goes to a fallback.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LIST</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--fallback-on: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--fallback-on names the faults that lead to a fallback; give --fallback too</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: %1 attempts in flight may take %2 MiB, more than half of the %3 MiB the address-space limit leaves (ulimit -v %4): running %5 at once instead</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab run: out of memory (ulimit -v); cancelling what still runs, and writing what was recorded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab run: requests still waited 5 s after the cancel; writing what was recorded without them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab run: ran out of memory; the run fails</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs a scenario file: its requests under its retry policy, against the embedded fault server where the URLs say {server}. Prints each retry as it happens, then a summary and the expectation verdicts.
Or runs a collection, request after request, as newman and bru run do, but with retries: a RetryLab collection, a Postman collection (v2.0, v2.1), a Bruno collection folder or a HAR file, with their pre-request and test scripts, assertions and variables. Each request is sent under its own policy, its folder&apos;s, its collection&apos;s, else --policy (default: one attempt); a request that passed only after retries is said so.
Exit status: 0 when every expectation (every assertion and test) holds, 1 when one does not (or the run could not start), 2 for a usage error or a file that cannot be read or written.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The scenario file (JSON, format retrylab-scenario), or the collection file or Bruno folder.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SCENARIO.json|COLLECTION</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print only the expectation verdicts (a collection: only the requests that failed), not each retry and the summary.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allow the requests whose transport ignores certificate errors (&quot;insecureHosts&quot;); without it such a scenario is refused. A collection: ignore certificate errors for every host it sends to.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collections: a RetryLab environments file, a Postman environment, or the name of a Bruno collection&apos;s environment.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FILE|NAME</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collections: which environment of a RetryLab environments file (default: the one selected last).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collections: a Postman globals file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collections: a variable, over the environment&apos;s (repeatable).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NAME=VALUE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collections: run only the requests of this folder, by name or path (repeatable).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collections: run it N times (default: once, or once per row of --data).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collections: a CSV or JSON file of rows, one iteration per row; its columns are variables.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collections: wait MS between two requests.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collections: stop at the first request that fails.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collections: the policy of requests that have none of their own (a preset or a policy file; default: none, one attempt).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PRESET|FILE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collections: each attempt&apos;s timeout, where a request sets none.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collections: the longest one script may run (default: 5000).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: retrylab run [options] SCENARIO.json|COLLECTION</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>name a scenario file or a collection; see retrylab run --help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unexpected argument &quot;%1&quot;; give one scenario file or collection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: only a collection takes %2; this is a scenario file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1: &quot;%2&quot; is not a whole number from %3 to %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the collection has no environment &quot;%1&quot;, and no environments folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the collection has no environment &quot;%1&quot; (it has: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>neither a Postman environment nor a RetryLab environments file: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it has several environments; name one with --env-name (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it has no environment &quot;%1&quot; (it has: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not NAME=VALUE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>  (iteration %1/%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>  passed after retries: %n attempt(s) under %1</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>executed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>iterations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>assertions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>errors</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n request(s) passed after retries</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Took %1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped early: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--folder: the collection has no folder %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--data %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--data %1: the file has no rows</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab run: the embedded fault server cannot listen: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1 &quot;%2&quot; (%3): %n request(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Default policy %1, %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>note: not used: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab run: interrupted; stopping after the request in flight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>watch endpoints for days under retry policies, keeping every check and attempt (exit 0, 2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>what the monitors kept: availability of checks and of attempts, incidents, what-if (exit 0, 2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: an allocation failed (ulimit -v?): the command ended early and fails; what it recorded was written
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab request: -o %1: the body is longer than %2, the most RetryLab keeps of one (--max-body); the transfer was ended there and nothing was written</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab request: -o %1: the body has %2, more than RetryLab keeps of one (%3, --max-body); nothing was written</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: the body is longer than %1; the transfer was ended there and only the first %2 are shown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--format, --out, --runnable, --service and --method go with export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--format must be one of %1 (got &quot;%2&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--runnable goes with --format %1; %2 cannot be a program</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--runnable needs an http:// or https:// URL (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (default json).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: a complete program that sends one GET to URL (or its first argument) under the policy, exit status 0 on success, 1 on failure.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>export: writes a retry policy (a preset, or a policy JSON file as File &gt; Export policy writes it)
for another client: a gRPC service config (methodConfig.retryPolicy, gRFC A6), curl&apos;s retry flags
(or a shell script running curl), Python code for tenacity, urllib3 (with requests) or botocore,
Polly 8 C# or Microsoft.Extensions.Http.Resilience options, Resilience4j or Envoy YAML, Go with
cenkalti/backoff, Java with google-http-java-client, or RetryLab&apos;s own policy JSON.
What the other client cannot express is said on standard error.
check: warns, with the reason, about a policy that is aggressive for its use: no jitter with more
than a few clients, immediate retries above one, minutes of waiting for an interactive request, no
retry budget with many clients, more than 10 attempts. Exit status 1 when it warns.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: retrylab policy export --format FORMAT [--preset ID | FILE] [--runnable URL] [options]
       retrylab policy check [--preset ID | FILE] [--clients N] [--interactive]
Formats: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The request starts or reads a long-running operation: poll its URL with GET until the answer says done, under this polling policy (a preset: %1; or a polling policy JSON file), each poll retried under the retry policy. One line per poll; -i, -o and the report files do not apply.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--poll prints a line per poll and the last answer&apos;s body: -i, -o, --report, --har, --csv and --junit do not go with it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2 under the policy &quot;%3&quot; (%4), polled under %5, %6</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>first request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>poll %1 after %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>(%n attempt(s))</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1: done=false %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: done=true %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: failed %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: not an operation %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n attempt(s) in all</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>operation %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>operation failed (%1): %2 (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--poll %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--poll &quot;%1&quot; is neither a polling policy file nor a preset (presets: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>  attempt %1 failed: %2; retry in %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>note: credentials in the body are masked; --no-redact gives it as it came</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time to an answer, median, ms (mean over runs)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time to an answer, 99th percentile, ms (mean over runs)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>occ, capacity, outage or latency. Default occ.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Simulates many clients contending for one server on a virtual clock and compares backoff strategies by calls and completion time. Models: occ (conditional writes to one row, as in the AWS study), capacity (a server with a rate and a bounded queue), outage (the same server, down for a while), latency (slow answers of a lognormal time, where the hedging strategy trades load for a shorter tail).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--model: unknown model &quot;%1&quot;; use occ, capacity, outage or latency.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none, or aws-adaptive: each client limits its own rate after 429 answers, as the AWS SDKs&apos; adaptive mode does. Default none.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--rate-limiter: unknown kind &quot;%1&quot;; use none or aws-adaptive.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A TCP proxy for any protocol (Redis, PostgreSQL, ...): --upstream is HOST:PORT, faults are --toxic.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With --tcp, a toxic (repeatable), e.g. &apos;latency latency=1000 jitter=100 stream=downstream&apos;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TOXIC</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Serve toxiproxy&apos;s HTTP API on this loopback address (e.g. 127.0.0.1:8474): alone it starts with no proxy, as toxiproxy-server does; with --tcp its proxy is named &quot;tcp&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs an HTTP/1.1 reverse proxy on loopback in front of a real service: every request to the listen
address goes to the upstream and its answer streams back. Prints one line per exchange; at the end
(Ctrl+C or --duration) the clients seen through it, grouped into logical requests, their inferred
retry policies and the verdicts, as retrylab observe does.

Faults, one rule per --fault (or a retrylab-faults file): a fault, optional matches and a schedule:
  status=CODE [retry-after=S]   answer without calling the upstream
  latency=MS | MIN-MAX | lognormal:MEDIAN:SIGMA [at=request|response]
  bandwidth=BYTES[k|m]          bytes per second of the answer
  reset[=before|after|unsent]   reset instead of the answer, after its headers, or unforwarded
  empty | stall | cut=N | corrupt[=N]
  method=M path=GLOB header=NAME[:GLOB]   p=P every=N first=N from=S to=S   name=NAME off
e.g. --fault &apos;status=503 p=0.3 path=/api/*&apos;. While it runs, the control port switches rules:
  curl -X POST -H &apos;Content-Type: application/json&apos; \
    &apos;http://127.0.0.1:PORT/_control/faults?enabled=false&apos;   (or ?rule=NAME&amp;enabled=true)

With --tcp it passes bytes between its clients and --upstream HOST:PORT, whatever the protocol,
through toxiproxy&apos;s toxics, one per --toxic: the type, then its attributes and where it applies:
  latency latency=MS jitter=MS      bandwidth rate=KB/S        slow_close delay=MS
  timeout timeout=MS (0: never)     reset_peer timeout=MS      limit_data bytes=N
  slicer average_size=N size_variation=N delay=US
  stream=upstream|downstream (default downstream)   toxicity=P (default 1)   name=NAME
e.g. retrylab proxy --tcp --listen 127.0.0.1:26379 --upstream 127.0.0.1:6379 --toxic &apos;limit_data bytes=100&apos;
--api 127.0.0.1:8474 serves toxiproxy&apos;s HTTP API (/proxies, /populate, /reset, /version), so that
toxiproxy&apos;s clients create and change proxies and toxics.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1 is an HTTP fault option; --tcp and --api take --toxic</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--api needs ADDRESS:PORT, e.g. 127.0.0.1:8474 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--api listens on loopback only (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1 needs --tcp; with --api alone, proxies are made through the API</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--upstream HOST:PORT is required with --tcp</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--toxic %1 (&quot;%2&quot;): %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--toxic %1: the name %2 is taken; give one with name=NAME</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--toxic needs --tcp (or --api); HTTP faults are --fault</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 connections, %2 bytes up, %3 bytes down; ended: %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>toxic %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab proxy: --api: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>proxy %1 on %2 -&gt; %3 made through the API</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>proxy %1 toxics now: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>proxy %1 deleted through the API</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab TCP proxy on %1 -&gt; %2; Ctrl+C stops.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: listening on %1, which other machines may reach; anyone who does can reach %2 through it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>toxiproxy API on %1 (version %2 of its API); Ctrl+C stops.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A forward proxy (HTTP_PROXY, HTTPS_PROXY) instead of a reverse one: no --upstream; each request names its own, CONNECT opens tunnels.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With --forward, the ports CONNECT may reach besides any port on loopback (default 443,8443; &quot;any&quot; for all).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--forward takes no --upstream: each request names its own</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--keep-host has no meaning with --forward: the Host names the request&apos;s own server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--connect-ports takes ports 1-65535 separated by commas, or &quot;any&quot; (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--connect-ports names no port (&quot;any&quot; allows all)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--upstream is required (or --forward for a forward proxy)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab forward proxy on %1; Ctrl+C stops. Point clients at it: HTTP_PROXY=%1 HTTPS_PROXY=%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--forward is an HTTP proxy; --tcp and --api are TCP proxies: choose one</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: retrylab proxy --upstream URL [options]
       retrylab proxy --forward [options]
       retrylab proxy --tcp --upstream HOST:PORT [--toxic TOXIC ...] [options]
       retrylab proxy --api 127.0.0.1:8474</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>anything this machine reaches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With --forward, decrypt CONNECT tunnels so that --fault rules apply to the HTTPS requests inside: clients must trust a CA made for this run (--intercept-ca).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With --intercept, write the CA&apos;s certificate (PEM) here for clients to trust (default: a file in the temporary folder, printed).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1 needs --forward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--intercept-ca needs --intercept</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--intercept: no CA: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--intercept-ca: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: --intercept decrypts HTTPS between clients and their servers: clients must trust the CA in %1 (curl --cacert, REQUESTS_CA_BUNDLE, SSL_CERT_FILE), and what they send, credentials included, passes through this proxy in the clear (its log masks credentials)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Record every answer the upstream gives (status, headers, body, timing; credentials masked) into this folder, for retrylab serve --replay.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>DIR</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--record needs a folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrylab proxy: --record: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>recording the upstream&apos;s answers into %1 (%2 there already)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>answers recorded into %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (and %1 too large to record, over %2 MiB)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Serve a recording made by retrylab proxy --record instead of the fault endpoints, offline: each request gets the answer recorded for its method, path, query and body.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With --replay, a fault rule on top of the recording (repeatable), as retrylab proxy takes them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With --replay, fault rules from a JSON file (format retrylab-faults).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With --replay, answer at once instead of after the time the service took.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs RetryLab&apos;s fault-injection HTTP server on loopback until interrupted (Ctrl+C, SIGTERM or SIGHUP),
printing its URL and one line per request it handles.
With --replay DIR it serves a recording made by retrylab proxy --record instead, offline, with the
proxy&apos;s --fault rules on top; a request nothing was recorded for gets 404 naming what was asked.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1 needs --replay; the fault server&apos;s own faults are its endpoints and scripted tests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--replay serves HTTP only; --https-port is the fault server&apos;s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--replay: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab replay of %1 (%2 recorded answers) listening on %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fault %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Random faults drawn with seed %1 (--seed %1 repeats them).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Press Ctrl+C to stop.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stopped after %1 replayed and %2 not recorded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The request&apos;s auth from a JSON file, for the kinds curl has no option for: {&quot;type&quot;: &quot;oauth2-client-credentials&quot;, &quot;tokenUrl&quot;: ..., &quot;clientId&quot;: ..., &quot;clientSecret&quot;: ...}, &quot;oauth2-refresh-token&quot;, &quot;google-service-account&quot; with &quot;keyFile&quot;, or any other (basic, bearer, apikey, digest, aws-sigv4). It goes over -u, --digest and --aws-sigv4.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--auth %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--auth: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A file to open in the window: a run report, a scenario, a collection, a monitors file or a policy (told apart by content). With a window already open, it opens there.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Cli::RunPrinter</name>
    <message>
        <source>no answer within the per-attempt timeout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the total deadline ran out during the attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1, but the body broke off after %2 of %3 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1 %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>[%1 s]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>attempt %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2, %3 failed: %4 [%5] - %6</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n attempt(s) left</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>no attempt limit (the deadline ends it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2, %3 failed: %4 [%5] - %6; retrying in %7 ms, %8</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GET+PUT</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1 %2 (%3) succeeded after %n attempt(s) in %4, HTTP %5 from %6</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 %2 (%3) succeeded after %n attempt(s) in %4, HTTP %5</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 %2 (%3) %4 after %n attempt(s) in %5: %6</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>outcomes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>amplification</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>p50</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>p90</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>p99</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1-%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Summary (latency of whole requests, first attempt to end)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Success rate %1, retry amplification %2: </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> for %n request(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source> (%1 retried, %2 failed for good</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>, %n request(s) cancelled</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>, %n never sent</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>The scenario&apos;s time limit of %1 ran out; requests still running were cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The scenario states no expectations.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expectations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>  PASS  %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>  FAIL  %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>        %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n expectation(s) holds</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n expectation(s) hold</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>; an access token from %1 first (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; the server&apos;s Digest challenge answered (%1)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Core</name>
    <message>
        <source>per-attempt timeout of %1 ms expired</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>total deadline of %1 ms reached</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cancelled by the user</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Qt&apos;s transfer timeout ended the attempt (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body ended after %1 of %2 announced bytes (Qt reported no error)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2 does not exist</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2 is a folder, not a file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client certificate %1 is a PKCS#12 file, which holds its own key: leave the client key (%2) empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client certificate %1 is neither PEM (&quot;-----BEGIN CERTIFICATE-----&quot;) nor PKCS#12</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the PKCS#12 file %1 cannot be opened without a passphrase: give its passphrase</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the PKCS#12 file %1 cannot be opened with the passphrase given: the passphrase is wrong, or the file is damaged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the PKCS#12 file %1 holds no certificate with its private key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client certificate %1 holds no certificate (expected a PEM block &quot;-----BEGIN CERTIFICATE-----&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client certificate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client certificate %1 holds no private key: name the key file, or use a file with both</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client key %1 holds no private key (expected a PEM block &quot;-----BEGIN PRIVATE KEY-----&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2 holds an encrypted private key: give its passphrase</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the private key in %1 cannot be decrypted with the passphrase given: the passphrase is wrong</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the private key in %1 cannot be read (RSA, EC and DSA keys in PEM are supported)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the CA bundle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the CA bundle %1 holds no certificate (expected PEM blocks &quot;-----BEGIN CERTIFICATE-----&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client key %1 is given without a client certificate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the system proxy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the HTTP proxy %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the SOCKS5 proxy %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the Location &quot;%1&quot; is not a valid URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>only http and https redirects are followed (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it leads from https to plain http</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>more than %n redirect(s) in one attempt</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>; followed %n redirect(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>; the %1 redirect to %2 was not followed: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; %1 not sent to %2 (another origin)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the URL &quot;%1&quot; is not valid: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>only http and https URLs can be sent (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: only http and https URLs can be sent (got &quot;%2&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the read&apos;s method &quot;%1&quot; is not an HTTP method</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the write&apos;s method &quot;%1&quot; is not an HTTP method</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the write&apos;s URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the value&apos;s JSON pointer &quot;%1&quot; is not one (it starts with /, as /value or /spec/replicas)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the etag&apos;s JSON pointer &quot;%1&quot; is not one (it starts with /, as /etag)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the write&apos;s envelope is a member name (as policy), not &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fallback endpoints are for single requests, not read-modify-write</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>at most %1 fallback endpoints (got %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fallback %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an HTTP method</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SOCKS5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the %1 proxy needs a host name or address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the %1 proxy&apos;s host must be a bare host name or address, without scheme, credentials or path</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the %1 proxy needs a port (1-65535)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a host whose certificate errors are to be ignored is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an ETag header</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a string at %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the read did not return an integer at %1 and %2; cannot modify and write</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the top</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read value %1 with ETag %2; writing %3 with If-Match</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read value %1 with etag %2 (%3); writing %4 with the etag as read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; gave up: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>gave up after %n attempt(s): %1</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>attempt limit reached: %1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>gave up after %n attempt(s): %1; the Immediate algorithm retries only once</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>the Immediate algorithm retries only once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrying immediately once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 backoff</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 × %2 for %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; the next retry in %2 ms would start after the deadline (%3 ms left): giving up now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>deadline: the next retry in %1 ms would start after it (%2 ms left)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; the retry budget is exhausted (%2 of %3 tokens left)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retry budget empty (%1 of %2 tokens left)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fallback %1 of %2 (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 answered: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; a fallback endpoint gets one attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 failed: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A read-modify-write request is a GET, a change and a PUT with If-Match; this command sends only the request as composed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Credentials are redacted: the command will not authenticate until they are put back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Line breaks in header %1 were replaced by spaces: a header value cannot hold them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Header %1 is not UTF-8; it was read as Latin-1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy is bounded only by its deadline; --retry %1 is the most retries that fit, and --retry-max-time stops them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy makes a single attempt, so no --retry is given.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl&apos;s --retry-delay takes whole seconds: %1 ms became %2 s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl cannot retry at once (--retry-delay 0 means its default backoff); 1 s is the shortest wait it takes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl cannot grow the wait linearly; every wait is %1 s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl cannot grow the wait from %1 ms by %2 per retry (its own backoff is 1 s, doubled); with --retry-delay every wait is %3 s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl has no jitter: every client waits exactly the same time, so clients that failed together retry together.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl always honours Retry-After; the policy ignores it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--retry-max-time takes whole seconds: the deadline of %1 ms became %2 s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--retry-max-time only stops new retries: a transfer already running may go past it, and curl does not give up early when the next wait would cross it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--retry-all-errors (curl 7.71.0) makes curl retry every transport error, as the policy does; with piped output it may write data twice.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl treats %1 as permanent and will not retry them; --retry-all-errors would, but it would also retry the faults the policy gives up on.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl always retries timeouts; the policy gives up on them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl retries only HTTP 408, 429, 500, 502, 503 and 504; it cannot retry %1 alone (--fail with --retry-all-errors would retry every HTTP error).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl also retries HTTP %1, which the policy does not.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl retries every method, POST and PATCH included; the policy retries those only when marked idempotent or sent with an Idempotency-Key.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl has no circuit breaker.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl has no retry budget; each curl process retries on its own.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This export was made without redaction: it contains credentials (Authorization, cookies, API keys, tokens, passwords). Do not share it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Certificate errors were ignored for %n attempt(s) (%1), as asked: those TLS connections were not verified, and whoever was on the path could have read or changed them.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>maxAttempts %1 is above %2: gRPC clients treat it as %2 unless the channel raises the limit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC always waits a random time in [0, backoff]; it cannot wait the exact exponential delay without jitter.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC cannot add the policy&apos;s random 0-%1 ms to the exponential delay; it waits a random time in [0, backoff] instead.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC has no equal jitter (half fixed, half random); it waits a random time in [0, backoff] instead.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC has no decorrelated jitter; the export uses gRPC&apos;s random(0, backoff) with the policy&apos;s base, multiplier and cap.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC&apos;s retries do not use proportional jitter (+/-%1%); they wait a random time in [0, backoff].</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC cannot wait a constant %1 ms; with multiplier 1 it waits a random time in [0, %1 ms].</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC cannot grow the wait linearly; the export uses multiplier 1, so every wait is a random time in [0, %1 ms].</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC cannot retry at once; the shortest backoff it accepts was written.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC requires initialBackoff &gt; 0; %1 was written.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1 has no gRPC status code of its own and is not retried by the export.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>UNAVAILABLE was added because the policy retries connection failures, which gRPC reports as UNAVAILABLE; gRPC will retry every UNAVAILABLE status too.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC reports failed and broken connections as UNAVAILABLE, so it will retry them, although the policy gives up on them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy retries timed-out attempts; gRPC has no per-attempt timeout in retryPolicy, and a call whose deadline expired is not retried.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>409 ABORTED restarts a whole read-modify-write sequence in RetryLab; gRPC can only retry the single call, so the application must restart the sequence itself.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC cannot mark methods idempotent: it retries every call of the methods named here, so name only idempotent methods.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A method name needs a service name; gRPC rejects a name with only a method.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy makes a single attempt; gRPC requires maxAttempts &gt;= 2, so no retryPolicy was written.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No retryable status maps to a gRPC code; gRPC requires a non-empty retryableStatusCodes, so no retryPolicy was written.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The deadline became the method&apos;s timeout, which bounds the whole call as in RetryLab, but gRPC does not give up early when the next backoff would cross it: the call fails only when the deadline has passed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The per-attempt timeout of %1 ms cannot be expressed in a gRPC retryPolicy.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC ignores Retry-After; a gRPC server asks for a delay with the grpc-retry-pushback-ms trailer instead.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC has no circuit breaker in its service config; the breaker was not exported.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retryThrottling.maxTokens must be a whole number &gt; 0; %1 became %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retryThrottling.tokenRatio keeps three decimals and must be &gt; 0; %1 became %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC cannot express the AWS retry quota; its retryThrottling works differently, so the budget was not exported.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a whole number, got &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is out of range (%2 to %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a request id (a whole number of 0 or more)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>invalid base64</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a string or {&quot;base64&quot;: &quot;...&quot;}, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a valid URL: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected an ISO 8601 date and time, got &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected milliseconds or null</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected milliseconds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected an array of {&quot;name&quot;, &quot;value&quot;} objects</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected an object with &quot;name&quot; and &quot;value&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a string</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a valid URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown network error &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected &quot;%1&quot;, got &quot;%2&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>version %1 is not supported (this build reads up to %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>request %1 appears twice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not an index into &quot;policies&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a report must hold a JSON object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot read %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n attempt(s), %1</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n attempt(s), %1 after %2</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n attempt(s) so far</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>no reason given by OpenSSL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a certificate needs a common name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a certificate needs a validity window that ends after it begins</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a certificate cannot name a null address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>could not make a P-256 key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>could not fill in the certificate for %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>could not add the extensions of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>could not sign the certificate for %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Qt could not read the certificate made for %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the issuer of %1 has no usable certificate and key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it holds no PEM private key (&quot;-----BEGIN ... PRIVATE KEY-----&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the private key is encrypted and no passphrase was given</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the passphrase does not decrypt the private key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the PEM private key is damaged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the private key is of a type Qt cannot use (%1); use an RSA or EC key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Qt could not read the private key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server holds %1 MiB of requests not yet answered, its limit; try again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request&apos;s header section was not complete %1 ms after its first byte</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body arrived at %1 bytes/s, below the minimum of %2 bytes/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server is at its limit of connections</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client closed the connection after the TLS handshake without sending a request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; the client closed the connection before the 408 went out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client closed the connection after %1 ms, before the server finished (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no complete request within %1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server is at its limit of %1 connections; try again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>waiting %1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dripping %1 bytes, one every %2 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this control endpoint takes %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no test &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>forgot keys, tests, resources and the log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no control endpoint at /%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>listed %n test(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>the body must be a JSON object like {&quot;instructions&quot;: [&quot;return-503&quot;]}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;instructions&quot; must be an array of strings</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>created test %1 with %n step(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>deleted test %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>test %1: %2 of %n step(s) used</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>listed %1 log entries</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this server does not serve HTTPS; start it with an HTTPS port (retrylab serve --https-port N)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>served the CA certificate to trust</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>described the HTTPS ports</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body must be a JSON object like {&quot;steps&quot;: [&quot;tls-cut&quot;, &quot;expired&quot;]}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;steps&quot; must be an array of strings</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>the next %n TLS handshake(s) on the HTTPS port follow the script</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>this list</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>answer with status {code} (200-599); optionally with Retry-After in seconds or as an HTTP-date, and X-RateLimit-Reset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>answer 200 after {ms} (0-%1); uniform in [M, ms], or lognormal with median ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the first n requests with key K get C (default 503), then 200; with p each fails with probability P (seeded), at most n times</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reset the TCP connection (RST) before the response, or after its headers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>close the connection without a response</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read the request and never answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>announce M body bytes (default 1024), send N (default M/2), close; chunked=1 sends N bytes as one chunk and closes before the last chunk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>send bytes that are not HTTP, close</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>answer 200 with N bytes (default 16) sent one every T ms (default 100)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>answer C (301, 302, 303, 307 or 308; default 302) with Location: URL, a path or an http(s) URL on a loopback address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>eventually consistent resource: PUT creates it (201), GET answers 404 for T ms (default 1000)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>store a scripted test and get its id; send X-Retry-Test-Id: &lt;id&gt; to use its steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a test&apos;s steps and how many were used</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>forgets a test (its place counts towards the test limit until then)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>what the server received and did</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>forget keys, tests, resources, the handshake script and the log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>with HTTPS on: the CA certificate (PEM) that signs the HTTPS port&apos;s certificate, to trust on purpose (curl --cacert)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>with HTTPS on: the HTTPS port, the port of each TLS fault and the handshake script left</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>with HTTPS on: the next TLS connections to the HTTPS port take these handshake steps in order (shared by every client), then pass again; DELETE clears them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab fault server

Endpoints:
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
Scripted steps (POST /_control/tests, then send X-Retry-Test-Id):
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
TLS faults (with HTTPS on; TLS comes before HTTP, so each is chosen per connection: by its own port, listed by GET /_control/tls,
or as a step of the HTTPS port&apos;s handshake script, POST /_control/tls/handshakes; &quot;step*K&quot; repeats a step):
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a resource name has 1 to 128 of the characters A-Z a-z 0-9 . _ ~ -</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>status %1 as asked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the list of endpoints</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no endpoint at %1; GET / lists them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the status in /status/{code}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retry_after_date must be an HTTP-date (&quot;Sun, 06 Nov 1994 08:49:37 GMT&quot;) or seconds from now (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the delay in /delay/{ms}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fixed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>uniform in [%1, %2] ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lognormal, median %1 ms, sigma %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dist must be &quot;uniform&quot; or &quot;lognormal&quot; (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>answered after %1 ms (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the failure count in /fail/{n}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>key must have 1 to %1 characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>too many /fail keys; reset the server (POST /_control/reset)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>request %1 for key &quot;%2&quot; passed (p=%3, %4 of at most %5 failures so far)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>request %1 for key &quot;%2&quot; passed after %n failure(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>failure %1 (at most %2, p=%3) for key &quot;%4&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failure %1 of %2 for key &quot;%3&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reset before any response</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reset after the headers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>when must be &quot;before-headers&quot; or &quot;after-headers&quot; (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>closed without a response</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>holding the connection without answering</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sent %1 bytes that are not HTTP</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>chunked: sent %1 bytes, closed before the last chunk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>announced %1 bytes, sent %2, closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 bytes at one every %2 ms would take longer than %3 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sent %1 bytes, one every %2 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no fault &quot;%1&quot;; known: reset, empty, stall, broken, garbage, drip</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>too many rate-limit keys; reset the server (POST /_control/reset)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>allowed; key &quot;%1&quot; has %2 of %3 tokens left</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rate limited: key &quot;%1&quot; has %2 of %3 tokens at %4/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>code must be 301, 302, 303, 307 or 308 (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>to is missing: /redirect?to=URL&amp;code=302</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>to is not a valid URL (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>to must be a path starting with / or an http(s) URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>to must be an http or https URL (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>to must point to a loopback address (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>redirect %1 to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body must be a JSON object with an integer &quot;value&quot; and the &quot;etag&quot; it was read with</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body must be {&quot;%1&quot;: {...}} with an integer &quot;value&quot; and the &quot;etag&quot; it was read with</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the resource changed: etag %1 was read, it is now %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>conflict on &quot;%1&quot;: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>wrote &quot;%1&quot;: %2 -&gt; %3, etag now %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>etag must be header or body, not &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>envelope is a member name of at most 64 characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>/occ/{name} takes GET, HEAD, PUT and POST</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>too many /occ resources; reset the server (POST /_control/reset)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read &quot;%1&quot;: value %2, ETag %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a PUT to /occ/%1 needs If-Match with the ETag of a previous GET</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the resource changed: If-Match %1, current ETag %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>conflict on &quot;%1&quot;: If-Match %2 is stale (now %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body must be a JSON object with an integer &quot;value&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>wrote &quot;%1&quot;: %2 -&gt; %3, ETag now %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>/eventual already stores %1 bytes, at most %2 in all; reset the server (POST /_control/reset)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>updated &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>too many /eventual resources; reset the server (POST /_control/reset)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>created &quot;%1&quot;, invisible for %2 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>/eventual/{name} takes GET, HEAD and PUT</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no resource &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; exists but stays invisible for another %2 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is visible</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot;: the status must be from 200 to 599</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot;: Retry-After must be from 0 to %2 seconds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot;: the delay must be from 0 to %2 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot;: the drip interval must be from 0 to %2 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an instruction is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown instruction &quot;%1&quot;; known forms: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>instruction %1 (&quot;%2&quot;): the repeat count must be from 1 to %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>instruction %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a script can hold at most %1 instructions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>answer with HTTP status &lt;code&gt; (200-599)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>answer with &lt;code&gt; and &quot;Retry-After: N&quot; (0-%1 s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>answer 409 with {&quot;error&quot;: {&quot;status&quot;: &quot;ABORTED&quot;}}, as Cloud IAM refuses a write whose etag is stale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>wait N ms (0-%1), then answer as the path would</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>answer as the path would (a step without a fault)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read the request, then reset the TCP connection (RST) without an answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>send a 200 status and headers announcing a body, then reset the connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>close the connection without sending anything</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read the request and never answer; the connection stays open until the client gives up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>announce %1 body bytes, send %2, then close</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>send bytes that are not HTTP, then close</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>answer 200 with a %1-byte body sent one byte every N ms (default %2, 0-%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>repeat a step K times (1-%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>at the connection limit, this connection&apos;s request was still incomplete after %1 ms: it made room for a new connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>at the connection limit, this connection had been idle for %1 ms: it made room for a new connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTPS needs Qt&apos;s TLS support, which is not available here (Qt&apos;s TLS backend: &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot make the TLS certificates: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot listen for HTTPS on %1 port %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot open a port for the TLS fault %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this server does not serve HTTPS, so it has no handshakes to script</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>observation plan: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the fault server is already listening on port %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no address to listen on</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the connection limit must be from 1 to 100000 (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the idle timeout must be from 100 ms to 1 h (got %1 ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the header timeout must be from 100 ms to 1 h (got %1 ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the minimum body rate must be from 0 to 1000000000 bytes/s (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the limit of request bytes held must be from 64 KiB to 64 GiB (got %1 bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the log capacity must be from 1 to 1000000 entries (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body limit must be from 0 to 1 GiB (got %1 bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the scripted test limit must be from 1 to 1000000 (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>refusing to listen on %1: it is not a loopback address, and the fault server would execute faults for anyone who reaches it; allow non-loopback addresses explicitly (--allow-non-loopback) to do so</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot listen on %1 port %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 must be a whole number from %2 to %3 (got &quot;%4&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 must be a number above %2 and at most %3 (got &quot;%4&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 must be a number from %2 to %3 (got &quot;%4&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step %1 of %2 (%3) of test %4%5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, again for a resent attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a test needs at least one instruction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server already holds %1 tests with %2 steps (at most %3 tests, %4 steps); reset it first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown X-Retry-Test-Id &quot;%1&quot; (never created, or forgotten by a reset)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab fault server CA</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab unknown CA (trusted by nobody)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab expired certificate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TLS certificate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TLS private key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a TLS certificate and its private key go together: give both files or neither</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the TLS certificate file holds no PEM certificate (&quot;-----BEGIN CERTIFICATE-----&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot use the TLS private key file: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the private key does not belong to the certificate in %1, or it is damaged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a normal handshake with the server&apos;s certificate, signed by its CA (GET /_control/ca.pem)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a certificate for 127.0.0.1 and localhost signed by a CA that nobody trusts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a self-signed certificate for 127.0.0.1 and localhost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a certificate signed by the server&apos;s CA for the right names that expired a day ago</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a valid certificate signed by the server&apos;s CA for another host name (wrong-host.invalid)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read the ClientHello, send part of a ServerHello, then reset the connection (RST)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read the ClientHello and answer with a fatal handshake_failure alert, then close</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>answer the ClientHello in plain HTTP (400 Bad Request), then close: an http server on an https URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>handshake step %1 (&quot;%2&quot;): the repeat count must be from 1 to %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>handshake step %1: unknown step &quot;%2&quot;; known steps: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a handshake script can hold at most %1 steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no TLS handshake within %1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client ended the TLS handshake: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client ended the TLS handshake with the alert &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it closed the connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no ClientHello within %1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read the ClientHello (%1 bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read %1 bytes that are not a ClientHello</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, sent %2 bytes of a 127-byte ServerHello record, then reset the connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, answered with a fatal handshake_failure alert and closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, answered in plain HTTP (400 Bad Request) and closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client closed the connection before its ClientHello was complete (%1 bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a number.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be finite.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 must be greater than %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is below the minimum of %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is beyond the sensible limit of %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimistic concurrency (conditional writes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Capacity-limited server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Outage and recovery</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No backoff</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no client count given.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 client counts is beyond the sensible limit of %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no strategy chosen.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is listed twice.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 simulated clients in total (client counts x runs x strategies) is beyond the limit of %2; use fewer runs, client counts or strategies.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>zero network delay with a zero wait before the retry (%1) and no attempt limit would retry for ever at one instant; give the network a delay, the strategies a base delay, or maxAttempts a limit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be 503 or 429 (got %1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ms bins over a %2 ms horizon make more than %3 bins; use wider bins.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the outage ends at %1 ms, not after it starts at %2 ms.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the outage ends at %1 ms, at or after the %2 ms horizon: nothing could recover.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs per (clients, strategy) cell. Default 100.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts per client (0: no limit).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Server queue capacity (capacity, outage).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overload answer: 503 or 429.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry-After seconds sent with overload answers.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Worker threads (0: one per core).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backoff base delay.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backoff cap (maximum backoff).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Growth factor per retry.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Additive random part of the Google and IAM algorithms, U[0, jitter].</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proportional jitter fraction.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Per-client deadline (0: none).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mean network delay per message.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Standard deviation of the network delay.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Poisson arrivals per second.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests the server serves per second (capacity, outage).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Outage start (outage model).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Outage end (outage model).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Width of a server-load bin.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Virtual time after which a run stops; busy clients count as unfinished.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty; expected first:last:step, a number or a comma-separated list.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a whole number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is outside 1..%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not first:last:step.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 in &quot;%2&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the last count %1 is below the first %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; makes more than %2 client counts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>more than %1 client counts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none given.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown strategy &quot;%1&quot;; known: %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is listed twice.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a whole number from 0 to 18446744073709551615</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; %1 made the fewest calls (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; under %1 only %2 % of the clients got through</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 with %2 clients made no progress: the virtual clock stood still at %3 ms while clients kept retrying. Zero network delay with zero backoff retries for ever at one instant; give the network a delay, the strategy a base delay, or set maxAttempts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>run: %1 is below the minimum of 0.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The simulation was cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request line is longer than %1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>too many empty lines before the request line</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request header section is larger than %1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a chunk-size line is longer than %1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a chunk size has more than %1 hex digits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>invalid chunk size &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>invalid character in a chunk extension</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request body is larger than %1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>chunk data is not followed by CRLF</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>chunk data is longer than its announced size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the trailer section is larger than %1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>malformed request line &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>invalid method &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>invalid character in the request target &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a request target cannot contain a fragment (&quot;#&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>invalid HTTP version &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP version %1 is not supported; use HTTP/1.1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the target &quot;*&quot; is only allowed with OPTIONS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request target &quot;%1&quot; is neither a path nor an http URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>obsolete line folding in a header field is not accepted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>header line without a colon: &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>invalid header field name &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>invalid character in the value of header &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>more than %1 header fields</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty Content-Length</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>invalid Content-Length &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>conflicting Content-Length values</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an HTTP/1.1 request needs a Host header</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>more than one Host header</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Transfer-Encoding in an HTTP/1.0 request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>both Content-Length and Transfer-Encoding: the body length is ambiguous</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty Transfer-Encoding</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>transfer coding &quot;%1&quot; is not supported (only chunked)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>chunked is applied more than once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request body of %1 bytes is larger than %2 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream closed the connection after %1 of the body&apos;s bytes, before the response ended</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream closed the connection in the middle of the response&apos;s headers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream&apos;s status line is not HTTP/1.x: &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream answered HTTP/1.%1, which is not read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream&apos;s status code is not three digits: &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream&apos;s status %1 is below 100</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream folded a header line, which HTTP/1.1 no longer allows</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream sent a header line without a name: &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream sent white space before a header&apos;s colon</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream sent more than %1 header fields</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream sent an empty response head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream&apos;s Content-Length is not a number: &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream sent two different Content-Length values</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream sent both Content-Length and Transfer-Encoding</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream&apos;s response head is longer than %1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream&apos;s chunk-size line is longer than %1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream sent a bad chunk size: &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream&apos;s chunk did not end where its size said</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream&apos;s trailers are longer than %1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot;: the range ends before it starts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a status code, a range like 500-599 or a class like 5xx.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot;: HTTP status codes lie between %2 and %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry-After is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry-After %1 is negative; ignored</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry-After asks for %1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry-After &quot;%1&quot; is neither delta-seconds nor an HTTP date; ignored</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry-After date %1 is already past; retry now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, beyond the %2 ms left before the deadline: giving up now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, bounded to %2 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 needs a value, %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 needs a value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 takes no value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is ambiguous: it could be --%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>printf needs a format</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>printf&apos;s %%%1 is not supported here; only %%s, %%b and %%%% are</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>there is no curl command: the line is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a line break without a backslash</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the line holds more than one command (%1 starts another); paste only the curl command</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>there is no curl command in this pipeline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>only one command may feed curl&apos;s standard input (printf, echo or cat)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the pipe into curl has nothing before it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; cannot be imported: only printf, echo or cat (one file) can feed curl&apos;s standard input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; cannot be imported here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; needs a file name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a here-document cannot be imported; put the data in a file and use -d @file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The environment settings before curl (%1) are not used.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The line refers to the shell (%1); a shell would have replaced that, the import keeps it as written.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>argument %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>at most %n attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>no per-attempt timeout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>every network fault is retried after a delay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a refused connection is retried after a delay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a second URL, &quot;%1&quot; (the first is &quot;%2&quot;); RetryLab imports one request per command</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--location-trusted would send credentials to every host a redirect leads to; RetryLab never sends Authorization or cookies to another origin.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--http1.0: RetryLab sends HTTP/1.1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--noproxy is not used: the proxy, if any, is used for this request&apos;s host.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 &quot;%2&quot; is not a method name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2: reading headers from a file is not supported; give each header with its own %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: a header cannot hold a line break</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2 is not a header (it has no colon); curl does not send it either.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: &quot;%2&quot; is not a header name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 reads standard input, which this command line does not feed; save the data to a file and use @FILE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 gives no password; curl would ask for one, the import sends an empty one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 reads cookies from a file, which the import does not do; give them as NAME=VALUE.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>socks5://: Qt lets the SOCKS5 proxy resolve host names, as curl&apos;s socks5h:// does.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2: RetryLab uses http:// and socks5:// proxies, not %3://</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2: not a proxy address (HOST[:PORT])</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 takes a whole number of retries from 0 to %2, not &quot;%3&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 takes seconds, a number from 0 to %2, not &quot;%3&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no URL: give the address to send the request to</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 and -I/--head cannot be used together: a HEAD request has no body (use -G to put the data in the URL)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 and -T/--upload-file cannot be used together: the request has one body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a URL: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a URL: it names no host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot;: RetryLab sends http and https requests only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Without -g curl would read [] and {} in the URL as a pattern of several URLs; the import sends the URL as written.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-u is sent as Basic authentication; RetryLab does not do %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: there is no file %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 is a folder, not a file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 is larger than %3 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a header needs a name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not valid base64, although %1 says base64</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown encoding &quot;%1&quot; (HAR knows base64)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>file field &quot;%1&quot; (%2): the HAR does not hold the file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP/3 (Qt does not speak it: HTTP/2 is asked for instead)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty; a request needs a URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an absolute URL (no scheme)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: URLs are not HTTP requests RetryLab can send; entry left out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a valid URL: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown kind &quot;%1&quot; (single, read-modify-write)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown HTTP version &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the increment of a read-modify-write request is not in a run&apos;s HAR: 1 is assumed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no response</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1 %2 → %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HAR files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a HAR file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing: this is a Postman collection, not a HAR file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing: a HAR file holds {&quot;log&quot;: {...}}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HAR version &quot;%1&quot; is not supported (RetryLab reads 1.1 and 1.2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the run&apos;s policy could not be read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 entries; HAR files with more than %2 entries are refused</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>entry %1 is not in the HAR file (it has %n request(s))</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>line %1, column %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the file is empty; %1 holds one JSON object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: not valid JSON: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 holds one JSON object, not an array</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the file is %1 bytes; %2 over %3 are refused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a string, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected true or false, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: no attempt logs (*.jsonl) in this folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: no such file or folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no attempt logs given</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1:%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the line is cut short (the log ends inside it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: not a JSON object: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: not an attempt log of a RetryLab Locust file (format &quot;%2&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: version %2 is not supported (this build reads 1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the log of run %2, not of run %3 as the others</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: an attempt of run %2 in a log of run %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: outcome: unknown outcome &quot;%2&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the attempt ends before it starts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the collection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>folder &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pre-request script of %1 (not run)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>test script of %1 (not run)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 script of %2 (not run)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the request sets %2 itself</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>basic authorization of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bearer authorization of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API key authorization of %1 names no key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API key authorization of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing; a request needs a URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>neither &quot;raw&quot; nor &quot;host&quot; and &quot;path&quot;: a request needs a URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GraphQL variables that are not a JSON object: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown body mode &quot;%1&quot; (raw, urlencoded, formdata, file, graphql)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>neither a request (no &quot;request&quot;) nor a folder (no &quot;item&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request&apos;s proxy (set one in the request&apos;s connection options)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request&apos;s client certificate (choose it in the TLS options)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>export it again from Postman as Collection v2.1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this is a Postman collection v1, an old format: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this is a Postman environment, not a collection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this is a HAR file, not a Postman collection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing: a Postman collection v2.1 starts with &quot;info&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; a Postman collection v2.1 names its schema, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this is a Postman collection v2.0: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not the schema of a Postman collection v2.1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a Postman environment file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this is a Postman collection, not an environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Postman environment files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Postman collections</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a Postman collection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the single quote opened here is never closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the double quote opened here is never closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the &quot;%1&quot; opened here is never closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the backquote opened here is never closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the $&apos; quote opened here is never closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>column %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>different request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a new identifier %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>grpc-previous-rpc-attempts: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the same request while another was still unanswered</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a request not seen before from this client</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>one retry index only (delay %1): growth cannot be told</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>levels %1 to %2 over %3 retry indexes: constant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>levels grow by the same step (%1 each; fit error %2 %, exponential %3 %)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>two retry indexes (%1, %2): x%3 each; with two points linear growth looks the same</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>levels grow by x%1 per retry (fit error %2 %, linear %3 %)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no retry was seen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>all %1 retries came within %2 of the previous answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>one delay per retry index only: a spread needs several logical requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the delays of each retry index agree within a few milliseconds across %1 samples</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>each of %1 delays stayed within three times the one before, and none below %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the band keeps a width of about %1 while its level grows x%2: a random amount added</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>delays of each retry index spread from near 0 to the top of the band (low/high %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>delays of each retry index spread over the upper half of the band (low/high %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>delays spread by about ±%1 % around the level, in proportion to it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the delays spread (low/high %1), but like no known kind of jitter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the smallest delay seen, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>decorrelated jitter draws up to three times the previous delay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the largest delay seen, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; the first retry came at once, the growth starts at the second</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the delays stop growing at about %1 from retry %2 on</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no cap was reached within %1 retries</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a plan needs &quot;steps&quot;, a &quot;probability&quot; with a &quot;randomStep&quot;, or at least &quot;then&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>custom plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is neither an observation plan (%2) nor a file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not JSON: %1 at byte %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a plan file holds one JSON object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>503 three times, then 200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every logical request fails three times with 503 Service Unavailable, then succeeds: shows the delays between retries and their growth.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>503 every time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every attempt gets 503: shows where the client stops (its attempt limit or deadline).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>429 with Retry-After: 2, then 200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The first attempt is throttled with Retry-After: 2: does the client wait two seconds?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>503 with Retry-After: 1 twice, then 200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Two 503s asking for one second each: does the client wait at least that long?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>connection reset, then 200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The first attempt&apos;s connection is reset (RST) before any answer: does the client retry?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty reply, then 200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The first attempt&apos;s connection closes without an answer: does the client retry?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stall once, then 200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The first attempt is never answered: how long does the client wait, and does it retry?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>404 once, then 200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A permanent error first: a careful client does not retry it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no faults</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every attempt gets 200.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>30 % 503</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each attempt independently gets 503 with probability 0.3, else 200.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an observation report (&quot;%2&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>version %1 is newer than this RetryLab reads (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No client sent a request.
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client %1: %2 logical requests, %3 attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (%1 older ones dropped)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, %1 malformed requests refused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>  closest preset: %1
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>same amz-sdk-invocation-id (AWS SDK)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>same gccl-invocation-id in x-goog-api-client (Google Cloud client)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>same X-Retry-Request-Id</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>same Idempotency-Key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>grpc-previous-rpc-attempts says it is a retry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>same method, target and body from the same client within the gap window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the first attempt of a logical request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pending</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (Retry-After %2 s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(no User-Agent)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>announced by the client: max=%1 in %2 attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>never seen giving up; it made up to %1 attempts and then succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>never seen giving up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gave up after %1 attempts in %2 of %3 logical requests that never succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gave up after different numbers of attempts but after %1 to %2 each: a deadline, not a count</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gave up after different numbers of attempts (most often %1, at most %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retried %1 after Retry-After: %2 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2 was retried after %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no retry followed a Retry-After</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %1 retries after a Retry-After waited at least as long (shortest: %2 of the value)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 retries after a Retry-After came sooner: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no POST or PATCH without an Idempotency-Key failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 failed POST/PATCH attempts without an Idempotency-Key were retried</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 permanent errors were retried; %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none of %1 permanent errors was retried</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no connection was reset or closed without an answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retried after %1 of %2 resets or empty replies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no answer was stalled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retried after %1 of %2 stalls, the next attempt %3 after the stalled one (its timeout and its delay)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>did not retry after %1 stalls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no logical requests started together, so no wave could form</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in %1 of %2 retry rounds of requests that started together the retries arrived together: a herd</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retries of requests that started together spread out (%1 of %2 rounds, widest %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>every retry seen followed a Retry-After or a stall, so its wait was the server&apos;s or the client&apos;s timeout, not its backoff</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Like %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>inferred from %1 logical requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No logical request seen yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Never retried in %1 logical requests.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retries, but too few delays to tell how they grow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retries at once, without waiting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Constant delay of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Linear backoff: %1, %2, %3, ...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exponential backoff from %1, x%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, capped at %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, %1 jitter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, no jitter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stops after %1 attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stops after about %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; honours Retry-After</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; ignores Retry-After</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; capped at %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; no cap was reached in the retries seen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>too few retries to see the growth</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retries come at once: there is no delay to randomise</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 jitter: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Random jitter in the delays</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stops after about %1 whatever the attempts: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 attempts of one logical request without success, and it has not given up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A bounded number of attempts or a deadline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No retry of non-idempotent requests (POST, PATCH) without an idempotency key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry-After honoured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every retry logged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not observable: the client&apos;s log cannot be seen from the server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not reached</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>deadline %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gave up after %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Google truncated exponential</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>IAM truncated exponential</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exponential, no jitter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Full jitter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Equal jitter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decorrelated jitter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proportional jitter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Constant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Linear (incremental)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Immediate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot be negative (got %1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be greater than zero.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the multiplier must be a finite number.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a multiplier of %1 is beyond the sensible limit of %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>multiplier 1 makes the delay constant; the Constant algorithm says so more plainly.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>maximum backoff (%1 ms) is below the base delay (%2 ms): every delay would be truncated to the cap.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a base delay of 0 ms retries without waiting; use Immediate if that is meant.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the Immediate algorithm retries once at once, for rare faults: at most 2 attempts are made, whatever the attempt limit allows.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the number of attempts cannot be negative (got %1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 attempts are beyond the sensible limit of %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a policy needs a maximum number of attempts or a total deadline; with neither it would retry forever.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the per-attempt timeout (%1 ms) is longer than the total deadline (%2 ms); the deadline will cut the attempt first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not an HTTP status code.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>status %1 is not an error and cannot be retried.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>POST and PATCH will be retried even without an idempotency key: a request whose response was lost may be applied twice.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an enabled circuit breaker needs a consecutive-failure or a ratio threshold.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error in %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warning for %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None: the same interval for every client</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Full: U[0, interval]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Equal: interval/2 + U[0, interval/2]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proportional: interval × U[1 - f, 1 + f]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>connection refused (nothing listens, or the service is restarting)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>connection reset or closed by the server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>timed out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>host name not found (DNS)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TLS handshake or certificate failure</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the response body broke off before its announced length</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server sent bytes that are not valid HTTP</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>network error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the proxy refused the connection (nothing listens on the proxy&apos;s port)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the proxy closed the connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the proxy&apos;s host name was not found (DNS)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the proxy timed out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the proxy refused the credentials (407 Proxy Authentication Required)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the proxy failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>transient: retry after a delay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rare fault: retry immediately</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not transient: cancel and report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is idempotent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 marked idempotent by the user</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 carries an Idempotency-Key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is conditional (%2): a repeat cannot apply twice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not idempotent, but the policy retries it anyway</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not idempotent: it may have been applied although the response was lost; mark it idempotent or add an Idempotency-Key to retry it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1: success</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the total deadline was reached during the attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the per-attempt timeout expired; %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; the request was not sent; %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>completed without an HTTP status (not an HTTP URL)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1: stale version; retrying the same write cannot succeed, re-read first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP 409 ABORTED: a concurrent writer changed the resource; the whole read-modify-write sequence starts again after a delay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP 409 ABORTED: the policy does not retry conflicts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP 412: the ETag is stale; read, modify and write again after a delay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP 412: precondition failed; the policy does not retry conflicts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP 429: rate limited; transient, retry after a delay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP 404: the policy treats it as eventual consistency; retry after a delay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1: server error; transient, retry after a delay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1: authentication or permission failure; not transient, cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1: client error; repeating the same request will not help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1: not in the policy&apos;s retryable statuses</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 never reached the server, so it cannot have been applied and is safe to repeat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request was sent and its outcome is unknown; </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, but %2%3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>any request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>path %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>host %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>host %1, path %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>without end</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no jitter with %1 clients: clients that fail together retry in step, in synchronised waves that hit the service again all at once. Pick a jittered algorithm%2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> or an interval jitter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>every retry goes out at once (a base delay of 0 ms): retrying immediately more than once turns a busy service&apos;s trouble into a retry storm. Retry at once only once, for a rare fault.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a person may wait %1 before this policy gives up (%2). For an interactive request, a few attempts and a short deadline: failing fast and saying so beats a long spinner.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the deadline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>delays of up to %1 each</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no retry budget with %1 clients: when the service fails for everyone, every client retries and the load multiplies by up to the attempt limit. A budget (the AWS retry quota, gRPC throttling) stops retrying when most attempts fail.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 attempts: past 10, retries rarely help a fault that is transient and add load to one that is not. Bound attempts low and let a deadline end the rest.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not used by %1: every retry goes out at once.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not used by %1: it grows by a fixed factor of 3 from the previous delay.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not used by %1: its delay does not grow exponentially.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not used by %1: only the Google and IAM formulas add a random part U[0, jitter].</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not used by %1: only proportional jitter multiplies by U[1 - f, 1 + f].</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not used by %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not used by %1: its interval jitter is not proportional.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not used by %1: only the constant and linear intervals take this jitter; the others have their own.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry-After is not honoured, so it needs no bound.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The circuit breaker is off.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown network fault class; did you mean &quot;%1&quot;?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown network fault class (known: %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown action &quot;%1&quot; (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown kind of retry budget &quot;%1&quot; (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected &quot;retrylab-policy&quot;, got &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown algorithm &quot;%1&quot; (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown interval jitter &quot;%1&quot; (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a policy file must hold a JSON object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>When the server fails, one user action sends up to %1 attempts, %2 times what the busiest layer alone would send: the layers multiply. Retry in one layer (usually the one closest to the user) and let the others fail fast.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>layer %1 %2: up to %3 attempts%4, gives up after %5 to %6</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (its deadline)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>attempts at the server per user action: at most %1; expected %2 when each attempt fails with probability %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the user action still fails with probability %1; the longest wait before it gives up: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>needs a value (%1=...)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>is longer than 80 characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>has a space in it (&quot;%1&quot;); use - or _</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>takes no value (write &quot;off&quot; alone)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must start with / or * (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>has a space in it; a path has none (%20 is a space as sent)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a header name (write Name or Name:glob)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the value has a space in it; write ? for it (&quot;Bearer?*&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a probability between 0 and 1 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a whole number from 1 to 1000000 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be seconds from 0 to 10000000 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a status from 100 to 599 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be seconds from 0 to 86400 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>write MS, MIN-MAX or lognormal:MEDIAN:SIGMA, in milliseconds up to 600000 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; the median above 0, sigma from 0 to 5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be &quot;request&quot; (before forwarding) or &quot;response&quot; (before responding), not &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be bytes per second, at least 1 (k and m for KiB and MiB), not &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be &quot;before&quot;, &quot;after&quot; or &quot;unsent&quot; (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>takes no value (write &quot;%1&quot; alone)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a number of body bytes, 0 or more (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be 1 or more: every Nth byte is inverted (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown key; did you mean &quot;%1&quot;?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown key (known: %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>given twice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a rule has one fault and this one has %1 already; write a second rule</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no fault: give one of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>goes with status=, which sends it; this rule has %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>goes with latency=, which it places; this rule has %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be after from (%1 s), got %2 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>answer %1 with Retry-After %2 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>answer %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>wait %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>wait %1 to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>wait a lognormal time (median %1, sigma %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> before responding</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> before forwarding</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>limit the answer to %1 bytes/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reset the connection without forwarding</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>forward, then reset the connection instead of answering</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reset the connection after the answer&apos;s headers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>close the connection with an empty reply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>never answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cut the body after %1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>invert every %1th byte of the body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 % of</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>every %1th of</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the first %1 attempts of each logical request among</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> with %1%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> to </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, from %1 s to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the end</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty rule</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be true or false, not %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a string, a number or true, not %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a JSON object with &quot;format&quot;: &quot;retrylab-faults&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected &quot;retrylab-faults&quot;, got &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>version %1 is newer than this RetryLab reads (1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a whole number 0 or more, not %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be an object, not %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 with Retry-After %2 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 without calling the upstream</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reset, not forwarded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reset instead of the upstream&apos;s answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty reply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stalled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>body cut after %1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>every %1th body byte inverted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 bytes/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fault %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream did not accept a connection within %1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 from a fault rule of the proxy; the upstream was not called</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the connection was closed without a reply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the connection was reset; the request was not forwarded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream %1 cannot be reached: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream&apos;s certificate was refused: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream&apos;s answer is not HTTP: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream answered %1; the client got a reset instead</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream answered %1; the client got its headers, then a reset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream answered %1; the connection was closed after %2 bytes of the body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream answered %1 %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream answered %1 and closed the connection to end the body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream closed the connection without an answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no answer for %1 ms, until the client left</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client left before the answer was complete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no rule named &quot;%1&quot; (rules: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the proxy is gone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot listen on %1:%2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the control port answers /_control/faults only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>use GET to read the rules and POST to change them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>enabled must be true or false</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>say what to change: ?enabled=false, ?rule=NAME&amp;enabled=true, or a JSON body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body is not a JSON object: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown field &quot;%1&quot;: send &quot;enabled&quot; and perhaps &quot;rule&quot;, or a retrylab-faults document</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;enabled&quot; must be true or false</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;rule&quot; must be a rule&apos;s name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream &quot;%1&quot; is not a URL with a host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream must be an http or https URL, not &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not a loopback address: anyone who reaches it could use the proxy; allow it on purpose (--allow-non-loopback)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the CA bundle %1 holds no PEM certificate (or cannot be read)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Success</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed, retried</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Final failure</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In flight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gave up: not retryable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gave up: attempt limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gave up: deadline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gave up: breaker open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gave up: budget empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not sent: invalid</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>status %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no HTTP status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP 409 ABORTED</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1 with Retry-After: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no answer within the per-attempt timeout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>connection reset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>body broken off after the headers of a 200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no answer (stall)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>after at least %n attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>after %n attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>after %1-%2 attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> or </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>503, then OK</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>500, 502, 503, 504, then OK</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>connection reset twice, then OK</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>429 with Retry-After: 1, then OK</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>broken stream, then OK</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>400 Bad Request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>503, then 401 Unauthorized</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>409 ABORTED (a concurrent writer), then OK</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>412 Precondition Failed, then OK</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>503 on every attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>connection refused on every attempt (never sent)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>always idempotent (GET)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>conditional (POST + If-Match)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>conditional (POST ?ifGenerationMatch=)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>never idempotent (POST)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GET is idempotent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>POST with If-Match is conditional, so a repeat cannot apply twice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>POST with ifGenerationMatch is conditional (Cloud Storage), so a repeat cannot apply twice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>POST is not idempotent, but the policy retries it anyway</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>POST is not idempotent and carries no Idempotency-Key or precondition</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>attempt %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the deadline has passed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the circuit is open, failing fast</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>connection refused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>success</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>409 ABORTED: a concurrent writer won; the same request cannot succeed, only a new read-modify-write can</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stale version: retrying the same write cannot succeed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a retryable status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a retryable status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 for %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; POST was never sent, so it is safe to repeat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, but %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 - %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 - %3: give up</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1: %2 - %3, but that was the last of %n attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2 - Retry-After is beyond the deadline: give up at once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 - %3, but the wait would cross the deadline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 - the retry budget is exhausted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 - retries are throttled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 - %3: retry after %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it ended %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>it made %n attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>it ended with %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>the server played %1 of its scripted steps for %n attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 after %n attempt(s), %2</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source> (last cause %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>as expected: %1
%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected %1, but %2
observed: %3
%4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: HTTP/2 is not carried: Locust&apos;s HttpUser speaks HTTP/1.1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: a key passphrase is never written to a file; give the workers a key without one</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: a PKCS#12 client certificate is not carried; give a PEM certificate and key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: a proxy password is never written to a file; set HTTPS_PROXY on the workers and use the system&apos;s proxy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 trusts only its CA file %2, not the system&apos;s CAs as well (requests replaces them)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ignores certificate errors of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the TLS floor is not carried (the workers&apos; OpenSSL defaults apply)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: its files must be at the same paths on every worker</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: a SOCKS5 proxy needs PySocks on the workers (python3-socks)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>requests[%1] (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the embedded server&apos;s scripted steps (&quot;script&quot;) cannot be played by Locust&apos;s workers against another server; give the faults to the service or to retrylab serve instead</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the scenario has no requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the policy&apos;s circuit breaker is not carried: every user retries on its own</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the policy&apos;s retry budget is not carried: no user runs out of retries</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the delay factors per network fault are not carried: faults wait the backoff</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the Locust template is missing from this build</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A Locust file made by RetryLab %1 from the scenario &quot;%2&quot; and the policy &quot;%3&quot; (run %4, seed %5), tested with Locust %6.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1-%2 attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>at least %n attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>success rate at least %1 %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>last cause %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 #%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 did not finish</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ended %2 (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1 made %n attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1 ended with status %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(no attempt)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ended on cause %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no request named &quot;%1&quot; ran</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n request(s) never sent</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>success rate %1 % (%2 of %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n request(s): %1</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>expected %1; but %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source> (and %n more)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>missing; name a preset (%1) or give a policy object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown preset &quot;%1&quot; (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>preset %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a preset name or a policy object, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>inline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected an object of policy fields, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot be overridden</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (modified)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>preset %1 with overrides: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty; give an http or https URL, or &quot;%1/...&quot; for the embedded server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; has spaces around it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an http or https URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; has no host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected an object of header names and values, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a valid header name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected an array of steps, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected an array of steps or {&quot;steps&quot;: [...], &quot;shared&quot;: false}, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty; give at least one step such as &quot;return-503&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a step such as &quot;return-503&quot;, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot;: the repeat count must be from 1 to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>more than %1 steps in all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a read-modify-write request writes {&quot;value&quot;: n} itself; leave the body out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a string or a JSON object or array, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected an array of URLs, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a URL, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected an object, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a name has 1 to 100 characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a name cannot hold control characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is already the name of requests[%2]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown kind &quot;%1&quot; (known: single, read-modify-write)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a read-modify-write request sends GET, then PUT; leave the method out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>only a read-modify-write request has an increment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>only a read-modify-write request has this shape</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a script is played by the embedded server, so the URL must start with %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>give &quot;min&quot;, &quot;max&quot; or both</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>min (%1) is larger than max (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a whole number or {&quot;min&quot;: a, &quot;max&quot;: b}, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown outcome &quot;%1&quot; (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty; give one outcome or several (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no request is named &quot;%1&quot; (requests: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is larger than maxTotalMs (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>checks nothing; give outcome, attempts, finalStatus, minTotalMs, maxTotalMs, minSuccessRate or lastCause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a scenario file holds one JSON object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing; a scenario file says &quot;format&quot;: &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a scenario (expected &quot;%2&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing; a scenario sends at least one request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected an array of requests, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty; a scenario sends at least one request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 entries; at most %2 are allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the scenario would send %1 requests; at most %2 are allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no file name given</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot write %1: it is a directory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is a directory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the file is not writable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the directory %1 does not exist</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the directory %1 is not writable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a whole number, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a number, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a finite number, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown value &quot;%1&quot; (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected an array, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown field; did you mean &quot;%1&quot;?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown field (known: %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>null</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>true or false</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a string</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an array</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nothing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (%1 characters in all)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must not be empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be &quot;folder&quot; or &quot;request&quot;, not &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>folders nested more than 32 deep</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a collection: the file must hold a JSON object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>written by a newer RetryLab (format %1; this one reads format %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a list, not %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>and %1 more</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot be read: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is larger than %2 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is still damaged (%2). What could be read is kept; the original file is kept at %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is damaged (%2). What could be read is kept; the original file was copied to %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is damaged (%2) and could not be copied aside. What could be read is kept.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The collection %1 was not opened.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The collection %1 was not opened: %2. The file is left as it is.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>left out: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The folder %1 cannot be created.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot be deleted: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The environments were not read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The environments in %1 were %2; they are not used here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>more than %1 variables</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a variable name (letters, digits, _ - and ., starting with a letter or _)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is defined twice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>longer than %1 characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a JSON object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>written by a newer RetryLab (format %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be an object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is used twice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not valid JSON (%1 at byte %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter a URL, for example {server}/status/200.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The URL is longer than %1 characters.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not a placeholder; the URL may use {server} (the embedded server) and {id} (a new key for every request).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{server} stands for the embedded server, which is not running.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{server} stands for the embedded server, which is not running: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The URL must start with http:// or https:// (or {server}).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The URL is not valid: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only http and https URLs can be sent, not %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The URL has no host.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a method (GET, POST, ...).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an HTTP method: letters, digits and !#$%&amp;&apos;*+-.^_`|~ only.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Header %1 has a value but no name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Header %1: &quot;%2&quot; is not a valid header name (no spaces or colons).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Header %1: %2 is set from the body; remove this row.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{server} is used in a header or the body, but the embedded server is not running.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The body is longer than %1 characters.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fallback %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The write&apos;s URL: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read-modify-write: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fallback URLs are for single requests, not a read-modify-write.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>At most %1 fallback URLs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 needs an environment: choose one in the toolbar, or define the variable.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 has no value in the environment &quot;%2&quot; (Environment: Edit…; a secret is typed again after a restart unless it is kept on disk).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be above %1 and at most %2 (got %3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must lie between %1 and %2 (got %3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a multiplier of %1 is below %2: the delays would shrink instead of growing.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the delay factor for %1 must lie between %2 and %3 (got %4).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be more than 0 and at most %1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a whole number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a list of at most %1 URLs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a whole number from 0 to 18446744073709551615, written as a string</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>more than %1 entries</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Header %1 (%2): %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (TLS: %1; not ignored)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>through %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the QNetworkAccessManager given to the executor was destroyed during the attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a header name is not a token: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the header &quot;%1&quot;: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the method is not an HTTP method: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read-modify-write resource: GET gives {&quot;value&quot;: n} and an ETag; PUT (or POST) with If-Match writes, a stale ETag gets 409 {&quot;status&quot;:&quot;ABORTED&quot;}. With etag=body the version is the document&apos;s &quot;etag&quot; field, as an IAM policy&apos;s: GET gives {&quot;value&quot;: n, &quot;etag&quot;: e}, a write sends the document back with its etag (inside {&quot;NAME&quot;: ...} with envelope=NAME), a stale one gets 409 ABORTED. In IAM&apos;s own shape, POST /occ/{name}:getIamPolicy reads and POST /occ/{name}:setIamPolicy writes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>/occ/{name}:VERB knows getIamPolicy and setIamPolicy, not &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>/occ/{name}:getIamPolicy and :setIamPolicy take POST, as IAM&apos;s do</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the control API answers requests for a loopback host (localhost, 127.0.0.1, [::1]) only, not for &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the control API does not take requests from web pages (Origin %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the control API does not take requests from web pages (Origin null)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a POST to the control API says its body is JSON: send Content-Type: application/json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a carriage return (CR)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a line feed (LF)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a NUL byte</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a space</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a tab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the byte 0x%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 at byte %2 cannot stand in a header value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 at byte %2 cannot stand in a method or header name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not STATUS=FACTOR, like 429=2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot;: status %2 is given twice.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not a method name: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is refused: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>; 404 was retried %n time(s), which IAM allows for eventually consistent reads</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>no permanent error (400, 401, 403, ...) was served</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delays grow: exponentially up to a cap, or incrementally</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Permanent errors (400, 401, 403, ...) not retried; 404 may be, as IAM allows</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: incremental delays, as the Retry pattern allows (Google&apos;s pages ask for exponential ones)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the delays do not grow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the delay factor for HTTP %1 must lie between %2 and %3 (got %4).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is the read of a read-modify-write: it changes nothing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is conditional (the etag it read, in its body): a repeat cannot apply twice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is only conditionally idempotent (the Cloud Storage rule): without a precondition (ifGenerationMatch, If-Match) a repeat may overwrite or delete what another writer made in between; add one, or mark the request safe to repeat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1: a redirect that was not followed is not the answer asked for</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP 308 Resume Incomplete: the upload is not finished (the Range header says how much arrived); the client must send the rest, not repeat the request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is beyond the sensible limit of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not an HTTP status code (100-599)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the delay factors per status are not carried: every status waits the backoff</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a path pattern starts with /, or has no / at all to match the last segment (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not a placeholder; a URL may use %2 (the embedded server) and %3 (a key of its own for every request)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 did not finish within %2 and was killed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 was ended by a signal%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 exited with status %2%3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>could not start %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>down</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>paused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (agent %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retries hid an incident of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 burns its error budget at %2× (threshold %3×)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n alert(s) suppressed</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>at %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the same alert went to &quot;%1&quot; %2 ago (at most one in %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>&quot;%1&quot; takes at most %n alert(s) a minute</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n alert(s) to &quot;%1&quot; were held back by its rate limit</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>monitors: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected an http:// or https:// URL with a host, got &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty; give the program&apos;s absolute path, then its arguments</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected the program&apos;s absolute path, got &quot;%1&quot;: the monitor may run with another PATH and working directory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty; give the target a name that monitors refer to</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown alert target kind &quot;%1&quot; (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a second alert target named &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the whole body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>status in %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>response time under %1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>header %1 present</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>header %1 equals &quot;%2&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>header %1 matches %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>body contains &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 equals %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 exists</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 matches %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>body valid against the schema</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a %1 assertion has one of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a %1 assertion has one of %2, not several (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a regular expression: %1 at %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>is true or left out; for an absence write &quot;not&quot;: true</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a status class (1xx to 5xx)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>names no status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a header name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an empty text is in every body; give the text to look for</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a JSON pointer (RFC 6901: &quot;&quot; or &quot;/a/0/b&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown kind &quot;%1&quot;; did you mean &quot;%2&quot;?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown kind &quot;%1&quot; (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (only its first %1 bytes were kept)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no HTTP status (expected %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1 is not in %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no %1 header</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the answer has no %1 header</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the %1 header does not match %2: it is %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body is not JSON (%1), so %2 cannot be read%3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a body that is not JSON</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body has nothing at %1 (expected %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body has nothing at %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nothing at %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is %2, not %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is %2, not a string to match %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is %2, which does not match %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body is not JSON (%1)%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a valid body</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>a body with %n failure(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>the body is not valid against the schema: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the response took %1 ms, not under %2 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the first %1 bytes of the body do not contain &quot;%2&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body does not contain &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a body that contains it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a body without it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 expected, %2 came</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (not checked: %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a schema is an object or a boolean, not %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>takes one schema in draft 2020-12 (a list of schemas is prefixItems)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a regular expression: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown type &quot;%1&quot; (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not supported: only references to &quot;#/$defs/...&quot; are</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; names no schema of $defs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; refers to itself</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the schema false allows nothing here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>references nest more than %1 deep</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&apos;enum&apos; %1: %2 is none of them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&apos;const&apos; %1: %2 differs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&apos;type&apos; %1: %2 is %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&apos;%1&apos; %2: %3 %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>is less</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>is more</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>is not more</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>is not less</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&apos;minLength&apos; %1: %2 has %3 characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&apos;maxLength&apos; %1: %2 has %3 characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&apos;pattern&apos; %1: %2 does not match</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&apos;minItems&apos; %1: %2 items</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&apos;maxItems&apos; %1: %2 items</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&apos;required&apos; %1: missing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&apos;additionalProperties&apos; false: %1 is not one of the properties</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>line %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a quote inside a quoted field must be doubled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a quote inside a field that does not start with one (quote the whole field and double the quote)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>text after the closing quote of a field (a comma must follow it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the quoted field that starts here never ends</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the data file is empty; its first line must name the variables</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>column %1 of the header has no name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; names two columns</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 fields, but the header names %2 variables</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the data file is empty; it must hold a JSON array of objects</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a data file must hold a JSON array of objects, one per iteration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a data file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fallback on: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body is not JSON (%1: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (only the first %1 bytes of the body were kept)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the pointer &quot;&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, so %2 is not in it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not in the body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the response has no %1 header</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 does not match the body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 matches the body, but its first group takes no part</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no response came, so there is no status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a variable name (letters, digits, &apos;_&apos;, &apos;-&apos; and &apos;.&apos;, starting with a letter or &apos;_&apos;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown source &quot;%1&quot; (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a JSON pointer (&quot;&quot; or &quot;/a/0/b&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a valid regular expression: %1 at character %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1 (and %n more problem(s))</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> and %n more</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1 %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2 holds no request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 needs %2 NAME, one of the requests of %3: %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 &quot;%2&quot;: %3 has no request of that name or path; it has %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 &quot;%2&quot; names %3 requests of %4 (%5): give its path</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 &quot;%2&quot;: %3 has no environment of that name; it has %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2 holds no environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2 holds %3 environments and none is selected: choose one with %4 (%5)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 needs %2 FILE, the file that holds the environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the value of %2 was not saved and reads REDACTED; in the window, put a {{variable}} there instead and give its value with %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the saved request &quot;%1&quot; of %2 uses %3; give %4 FILE with an environment that defines a value for each</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 has no value in the environment &quot;%2&quot; of %3 (the saved request &quot;%4&quot; of %5 uses it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; {{%1}} is a secret, and the file keeps its value only when the environment keeps its secrets on disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the saved request &quot;%1&quot; of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the saved request &quot;%1&quot; of %2 with the environment &quot;%3&quot; of %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 uses the preset &quot;%2&quot;, which this RetryLab does not have; give --policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>preset %1, saved with the request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>saved with the request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not a dynamic variable (known: %2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1 is a status the conditions expect</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a condition failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a condition failed: %1; not retried: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a certificate or key file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the fallback list: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the per-attempt timeout must lie between 0 and %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a fallback is another attempt, and this fault or this request is not one to repeat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not in the request&apos;s fallback list (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is in the request&apos;s fallback list, but a fallback is another attempt, and this request is not one to repeat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl&apos;s own backoff (1 s, doubled) matches the policy, but grows to 10 minutes; curl cannot cap it at %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl honours Retry-After (since 7.66.0) but has no option to cap it; the policy caps it at %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy is bounded only by its deadline; gRPC needs maxAttempts, so %1 was written (the most attempts that fit into %2 at the shortest waits).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a PEM file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the %1 file: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 after the previous answer, beyond the gap window of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the same request %1 after a failed answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>At %1 clients %2 was done first, after %3 and %4 calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; %1 took %2 and %3 calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is damaged (%2); it was left as it is: move it aside, or name another file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the Qt SQL driver %1 is not installed (Debian: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the folder %1 does not exist</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>there is no history at %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is a folder, not a history file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not a SQLite database; it was left as it is: name another file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the system user</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot connect to PostgreSQL at %1 (database %2, user %3): %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot be opened: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot be switched to WAL mode: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 failed: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no history database was named</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the PostgreSQL URL is not valid (postgresql://USER@HOST:PORT/DATABASE): %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the PostgreSQL URL names no host (postgresql://USER@HOST:PORT/DATABASE)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the PostgreSQL URL names no database (postgresql://USER@HOST:PORT/DATABASE)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the PostgreSQL URL&apos;s host= must be an absolute socket folder, not %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the socket in %1 (port %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PostgreSQL database %1 at %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the history cannot be read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an availability objective lies between 0 and 1 (0.999 is 99.9 %), not %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the history has no monitor named %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the policy %1 cannot be replayed: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the history has no monitor named %1 checked by agent %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the retention could not be applied: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 was written by a newer RetryLab: schema version %2, this one reads up to %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the schema of %1 cannot be prepared: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is a SQLite database but not a RetryLab history; it was left as it is</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not a RetryLab history: its format is &quot;%2&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is damaged: its schema version is not a number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 holds no RetryLab history</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 has schema version %2, older than this RetryLab&apos;s %3: a monitor writing to it upgrades it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is being written by another RetryLab (process %2 on %3; lock file %4): one store writes a SQLite history at a time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the lock file %1 cannot be created</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>the history %1 cannot be written (%2); %n check(s) and event(s) are kept to try again</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>unknown database error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the history %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream&apos;s reason phrase: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream sent a header name that is no token: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream&apos;s %1 header: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry-After date %1 is %2 away</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a constant wait of %1 before every retry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a total deadline of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a per-attempt timeout of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: standard input is larger than %2, the most a file given to it may be</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a file given to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is larger than %2, the most an attempt log may be</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: its clock started %2 after the run&apos;s; its attempts are placed by its monotonic clock from there</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a valid metric name: use letters, digits, &apos;_&apos; and &apos;:&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a valid label name: use letters, digits and &apos;_&apos;, not starting with &quot;__&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the label &quot;%1&quot; is named twice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a histogram cannot have a label named &quot;le&quot;: its buckets use it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bucket bounds must be finite and strictly increasing (the +Inf bucket is implied)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this metric is declared already</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no address to listen on for the metrics</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>refusing to serve metrics on %1: it is not a loopback address, and anyone who reaches it could read the monitors&apos; names and health; allow non-loopback addresses explicitly (--allow-non-loopback) to do so</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot listen for metrics on %1 port %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>too many connections to the metrics server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not found: the metrics are at /metrics</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the metrics are read with GET (or HEAD)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected HOST:PORT, e.g. 127.0.0.1:9464, [::1]:9464 or localhost:9464; %1 (got &quot;%2&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the address is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the IPv6 address has no closing bracket</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an IPv6 address goes in brackets, as in [::1]:9464</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the port is missing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the port must be a number from 0 (any free port) to 65535</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the port must be at most 65535</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the host is missing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an IPv6 address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an IPv4 address or localhost (no host name is looked up)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>daily %1-%2 UTC</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a condition has one of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a condition has one of %1, not several (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing; the value the pointer must find</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>certificate valid for more than %1 days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no server certificate to check (the answer did not come over TLS)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the certificate&apos;s expiry &quot;%1&quot; cannot be read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the certificate expired on %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the certificate expires in %1 days (%2), not more than %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the error budget of the objective %1 burns %2 times too fast over the last %3 (and %4 times over the last %5)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{server}: the embedded fault server is not running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 checks succeeded only after %2 failed attempts; first error: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{{%1}} is not defined: the file chooses no environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{{%1}} is not defined in the environment &quot;%2&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a date and time with its zone (2026-11-29T02:00:00Z)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a window is either daily or from-to, not both</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a daily window of UTC times (&quot;02:00-02:30&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the window ends before it starts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing; name a preset, give a policy object, or &quot;none&quot; for one attempt per check</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a monitor sends one request per check; &quot;%1&quot; belongs to scenarios</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{server} is the window&apos;s embedded fault server, which `retrylab monitor` does not have; start one with `retrylab serve` and use its URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a monitor expands {server} in its url only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: a monitor expands {server} in its url only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fallback %1: a monitor expands {server} in its url only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is already the name of another monitor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an objective is a fraction between 0 and 1, such as 0.999 (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an alert target: the file&apos;s &quot;alerts&quot; names none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an alert target (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a monitors file holds one JSON object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a monitors file (expected &quot;%2&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>written by a newer RetryLab (version %1; this one reads up to %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is already the name of another environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an environment: the file has none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an environment of the file (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 monitors; one file holds at most %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty; a monitors file has at least one monitor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a monitors file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: cannot make it private: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the check succeeded again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the check succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 checks in a row succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the check failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 checks in a row failed, the last: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the check failed (%1 of %2 before down): %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>resumed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the saved request &quot;%1&quot; uses {server}; a monitor has no embedded server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the saved request &quot;%1&quot; uses {server} outside its URL; a monitor expands {server} in the URL only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a plan file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a fault that can lead to a fallback: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a status, a class of them or a fault&apos;s name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>give an HTTP status from 400 to 599 (&quot;503&quot;), a class of them (&quot;4xx&quot;, &quot;5xx&quot;), or a network fault: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a policy file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 rules are too many: a proxy takes at most %2, as it checks every request against each</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a fault rules file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>+%1 before forwarding</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>+%1 before responding</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the proxy holds %1 MiB of requests not yet sent upstream, its limit; try again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the proxy is at its connection limit, and this connection waited longest</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the header deadline must be from 100 ms to 1 h (got %1 ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the proxy is at its limit of %1 connections, each with an exchange in progress
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a line outside any block: &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown block &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>block %1 opens with &quot;%2&quot;; it takes &quot;%3&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unclosed block %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected &quot;name: value&quot; in block %1, not &quot;%2&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unclosed &apos;&apos;&apos; value of %1 in block %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unclosed list value of %1 in block %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>between needs two values, as &quot;between 1, 10&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no such folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a Bruno collection: the folder has no bruno.json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a Bruno file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not valid JSON: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1:%2: %3 is left as written: process.env is not read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>docs are not used</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>secret variable &quot;%1&quot;: Bruno keeps its value outside the file; give it with --var %1=VALUE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a second request block (%1); the first is %2 at line %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a %1 request is not run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no request block (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>body mode %1 is not sent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>file field &quot;%1&quot; (%2) is not sent: files are not read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GraphQL variables that are not a JSON object are not sent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the run reached its limit of %1 requests (a pm.setNextRequest loop?)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the authorization uses variables without a value: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no fault server runs in this run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>its policy &quot;%1&quot; is not a preset of this RetryLab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no attempt was made: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>no answer after %n attempt(s): %1</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>extract %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--bail: &quot;%1&quot; failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pm.setNextRequest(null) in &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>: the body (%1 bytes) is not text; sent without it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Postman collection v1 is not supported: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing: a Postman collection v2.0 or v2.1 starts with &quot;info&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not the schema of a Postman collection v2.0 or v2.1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>: a &quot;%1&quot; script is not run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>folders nested more than %1 deep</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>: variables of an item are not used</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>: not a JSON object, so not sent: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a built-in preset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab collections</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a RetryLab collection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>collections</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a collection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a collection retrylab run knows: no &quot;info.schema&quot; or &quot;info._postman_id&quot; (a Postman collection), no &quot;formatVersion&quot; and &quot;items&quot; (a RetryLab collection), no &quot;log.entries&quot; (a HAR file)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>attempt %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>write</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 - the version read; write it back</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 - the write landed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a stale version: read, modify and write again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a stale version, and the policy does not retry conflicts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a retryable status; the write carries the version it read, so it is conditional</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 - %3: start again from the read after %4-%5 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 as Retry-After asks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, waiting %1 as Retry-After asks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not played: a read-modify-write&apos;s write carries the version it read, so it is conditional; only the conditional column plays it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>IAM read-modify-write: write 409 ABORTED</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read-modify-write: If-Match write gets 412</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it waited %1 before the second attempt instead of the %2 Retry-After asks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: its list of the faults that lead to a fallback (&quot;fallbackOn&quot;) is not carried: the Locust file moves on to a fallback whenever the policy gives up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>at least %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>within %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 took only %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 took %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>names the faults that lead to the fallbacks; give &quot;fallbacks&quot; too</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a scenario file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>script</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, line %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the script sandbox did not start: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stopped after the time limit of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the sandbox failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a FIFO (named pipe)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a socket</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a regular file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 KiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 byte</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot read %1: no such file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot read %1: it is %2, not a regular file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot read %1: it is a folder, not a file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is larger than %2, the most %3 may be</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 days %2 h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 years</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot write %1: no process reads this FIFO (start the reader first)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no process reads this FIFO (start the reader first)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is a symbolic link to %1, which does not exist</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 more unknown fields</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy is bounded only by its deadline; botocore needs a count, so total_max_attempts=%1 was written (the most attempts that fit at the shortest waits).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>botocore has no deadline; the policy gives up after %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>botocore&apos;s delays are fixed by its mode: standard waits U[0, 1 s * 2^n] capped at 20 s (full jitter); the policy&apos;s %1 from %2 ms, x%3, capped at %4 ms cannot be set.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>botocore&apos;s delays are fixed by its mode: legacy waits U[0, 1 s * 2^n] without a cap (full jitter); the policy&apos;s %1 from %2 ms, x%3, capped at %4 ms cannot be set.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>botocore&apos;s retry quota is fixed (500, a retry costs 5, a timeout 10, a success refunds 1); the policy&apos;s numbers cannot be set.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>botocore has no gRPC-style retry throttling; legacy mode was written, without a quota.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>botocore retries HTTP 500, 502, 503 and 504 and throttling error codes; it cannot retry %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>botocore also retries HTTP %1, which the policy does not.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>botocore retries a 429 only when its error code says throttling (Throttling, TooManyRequestsException, SlowDown, ...).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>botocore retries every connection error and timeout; the policy gives up on %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>botocore ignores Retry-After; the policy waits as long as it asks.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>botocore retries every operation, writes included; the policy retries POST and PATCH only when marked idempotent.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 waits its backoff after every fault; the policy retries %2 at once.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 waits the same backoff whatever the fault; the policy&apos;s per-fault delay factors were not exported.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>409 ABORTED restarts a whole read-modify-write sequence in RetryLab; %1 cannot, so the application must restart the sequence itself.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 has no circuit breaker; the breaker was not exported.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tenacity has no decorrelated jitter; the export waits U[0, min(cap, base * multiplier^n)] (wait_random_exponential) with the policy&apos;s base and cap.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tenacity waits v * (1 - %1) + U[0, v * %2] for the policy&apos;s v * U[1 - %1, 1 + %1]; it does not cap the sum, so a wait near the cap may pass it by up to %3 %.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tenacity cannot randomise a growing linear wait; the export waits exactly (n + 1) * %1 ms without the policy&apos;s %2 jitter.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy caps the jittered wait at %1 ms, which makes that wait more likely; tenacity draws evenly up to the cap instead.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>requests raises ConnectionError for %2 as for %1, so tenacity retries %2 too, which the policy gives up on.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy retries other network faults; the export retries only the requests exceptions named in retry_if_exception_type.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stop_after_delay is checked after each attempt: tenacity does not give up early when the next wait would cross the deadline of %1, and an attempt may run past it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tenacity ignores Retry-After; the policy waits as long as it asks (up to %1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tenacity retries whatever the decorated function does; the policy retries POST and PATCH only when marked idempotent, so decorate only idempotent calls.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy retries PUT and DELETE only with a precondition; tenacity cannot tell, so decorate them only when they carry one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tenacity has no retry budget; each decorated call retries on its own.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>urllib3 cannot wait a constant time; with backoff_factor %1 s it waits 0, then doubles from %2 ms.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>urllib3 cannot grow the wait linearly; with backoff_factor %1 s it waits 0, then doubles from %2 ms.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>urllib3 always doubles the wait; the policy multiplies it by %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>urllib3 retries the first time at once (backoff_factor * 2^(n-1), 0 for the first retry); the policy waits %1 ms first. Every later wait is the policy&apos;s base * 2^n.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>urllib3 1.26 has no jitter; the policy&apos;s %1 jitter was not exported.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>urllib3 1.26 (Debian 12) has no jitter: every client waits the same time, so clients that failed together retry together (urllib3 2 adds backoff_jitter, U[0, jitter] added); the policy&apos;s %1 was not exported.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy is bounded only by its deadline; urllib3 needs a count, so total=%1 was written (the most retries that fit at the shortest waits).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>urllib3 has no deadline; the policy gives up after %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>urllib3 counts a reset and a read timeout alike (read); the policy retries only %1, urllib3 retries both.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>urllib3 retries a host it cannot resolve as a connection error, which the policy gives up on.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy retries PUT and DELETE with a precondition; urllib3 cannot look for one, so they are not retried at all.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>urllib3 never retries POST or PATCH here; the policy retries them when marked idempotent or sent with an Idempotency-Key.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>urllib3 honours Retry-After only on 413, 429 and 503 and without a cap; the policy caps it at %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>urllib3 also retries HTTP %1 when it carries Retry-After, which the policy does not.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>urllib3 has no retry budget; each request retries on its own.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>long-running operation: the first request starts it; polls answer &quot;done&quot;: false for T ms (default 1000), then &quot;done&quot;: true with a response, or with error CODE (1-16)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>/operation/{name} takes GET, HEAD and POST</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>too many operations; reset the server (POST /_control/reset)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>operation &quot;%1&quot; runs for another %2 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>operation &quot;%1&quot; is done with error %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>operation &quot;%1&quot; is done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: &quot;%2&quot; is not a whole number of 0 or more</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: &quot;%2&quot; is not a number of seconds or a Unix time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seconds from now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a Unix time in milliseconds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a Unix time in seconds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: a reset %2 away (read as %3) is not a rate limit a client waits for</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RateLimit: empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no rate-limit fields</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 left</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 left</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a quota of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>resets in %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>window %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nothing usable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One attempt, never retried.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>skipped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not sent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no attempt: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no answer: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 after %2 attempts: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no answer after %1 attempts: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>request runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the rate limit of %1 is spent (%2), bounded to %3 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the rate limit of %1 is spent (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>waiting for the rate limit reset: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 conditions are more than the %2 a policy may have.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the quota resets in %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1, but %2 (the policy retries on it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 conditions are more than the %2 a policy may have</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a condition needs one of jsonPointer, header or bodyContains</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a condition has one kind, not %1 (%2): write an object for each</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a bodyContains condition compares nothing: leave equals out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a JSON pointer: it is empty (the whole body) or starts with /, and ~ is followed by 0 or 1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the value the pointer must equal is missing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the header&apos;s name is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a header name (letters, digits and !#$%&amp;&apos;*+-.^_`|~ only)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the text is empty: every body contains it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it carries %1 (&quot;%2&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is &quot;%2&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body contains &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>write json POINTER = VALUE, e.g. json /status = &quot;PENDING&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a JSON value: write a &quot;string&quot; in quotes, a number, true, false or null</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>write header NAME, or header NAME = VALUE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>write body TEXT, e.g. body try again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a kind of condition (json, header or body)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Envoy&apos;s backoff always grows as U[0, base * 2^n]; the policy&apos;s %1 wait was exported with max_interval equal to base_interval, a random wait in [0, %2 ms].</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Envoy cannot retry at once; the shortest base_interval, 1 ms, was written.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Envoy&apos;s backoff is full jitter, U[0, base * 2^n]; the policy&apos;s %1 was exported as that.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Envoy&apos;s backoff always doubles; the policy&apos;s multiplier %1 was not exported.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Envoy&apos;s reset condition covers resets, broken answers and per-try timeouts alike; the policy retries only some of them, but Envoy retries all.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Envoy resolves hosts, makes TLS and reads HTTP itself: %1, which the policy retries, are not retry conditions of a route.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy is bounded only by its deadline; num_retries %1 is the most retries that fit, and the route timeout stops them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The route timeout bounds the request, retries included, as the deadline does, but Envoy does not give up early when the next wait would cross it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy retries no status and no network fault; retry_on needs a condition, so num_retries is 0.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Envoy reads Retry-After only as seconds; an HTTP date in it is ignored and the backoff applies.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Envoy&apos;s retry budget is a cluster setting (circuit_breakers.thresholds.retry_budget: a share of the active requests), not the policy&apos;s %1 budget; it was not exported.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Envoy&apos;s circuit breakers limit connections and requests; ejecting a failing host is the cluster&apos;s outlier_detection (consecutive_5xx, base_ejection_time). The breaker was not exported.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Envoy retries every method the route serves; the policy retries POST and PATCH only when marked idempotent, so put the retry policy on routes of idempotent requests.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Go&apos;s net/http has no error of its own for an answer that is not HTTP; the export treats protocol-failure as the other faults.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy makes a single attempt: WithMaxRetries(b, 0) never retries.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cenkalti/backoff v4 ignores Retry-After; the policy waits as long as it asks (up to %1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HttpBackOffIOExceptionHandler retries every IOException; the policy gives up on %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>setMaxElapsedTimeMillis stops the retries once the deadline of %1 has passed; the library does not give up early when the next wait would cross it, and an attempt may run past it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ExponentialBackOff always has a maximum elapsed time; the policy has no deadline, so Integer.MAX_VALUE ms (about 24 days) was written.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The attempt timeout of %1 bounds each connect and each read, not a whole attempt.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy is bounded only by its deadline; setNumberOfRetries(Integer.MAX_VALUE) lets the maximum elapsed time stop the retries.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>google-http-java-client ignores Retry-After; the policy waits as long as it asks (up to %1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC service config</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl retry flags</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab policy JSON</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tenacity (Python)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>urllib3 Retry (Python)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>botocore Config (Python)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Polly 8 pipeline (C#)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Microsoft.Extensions.Http.Resilience options (JSON)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resilience4j (Spring Boot YAML)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Envoy route retry_policy (YAML)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cenkalti/backoff v4 (Go)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Google HTTP Client for Java</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Polly moves a constant or linear delay by up to ±25 % (UseJitter); the policy&apos;s %1 jitter was not exported as such.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy makes a single attempt; Polly&apos;s retry needs at least one retry, so no retry strategy was written.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Polly&apos;s exponential backoff always doubles; the policy&apos;s multiplier %1 was not exported.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Polly&apos;s exponential jitter is its decorrelated jitter v2 around Delay * 2^n; the policy&apos;s %1 was exported as that.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Polly&apos;s circuit breaker counts the failures within a sampling duration (%1 was written), not within the last %2 outcomes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Polly&apos;s circuit breaker cannot count failures in a row; it opens when all of at least %1 calls within %2 failed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Polly keeps a circuit open at least 0.5 s; the policy&apos;s %1 became 0.5 s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Polly lets one trial call through a half-open circuit; the policy lets %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HttpClient throws HttpRequestException for %2 as for %1, so Polly retries %2 too, which the policy gives up on.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy retries other network faults; Polly retries only the exceptions named in ShouldHandle.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The total timeout cancels the call at the deadline of %1, but Polly does not give up early when the next wait would cross it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Polly ignores Retry-After unless a DelayGenerator reads it; none was written, as the policy ignores it too.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ShouldRetryAfterHeader waits as long as Retry-After asks, without the policy&apos;s cap of %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy makes a single attempt, but the standard resilience handler always retries (3 times unless told otherwise); use a pipeline without a retry instead.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The standard resilience handler retries every HttpRequestException and timeout; the policy gives up on %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The standard resilience handler needs the attempt timeout within the total timeout: %1 became %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy has no deadline, but the standard resilience handler always has a total timeout (30 s unless TotalRequestTimeout says otherwise).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy has no attempt timeout, but the standard resilience handler always has one (10 s unless AttemptTimeout says otherwise).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy has no circuit breaker, but the standard resilience handler always has one; its defaults were left as they are.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 does not cap the jittered wait at %2 ms as the policy does.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 has no decorrelated jitter; the export waits U[0, min(cap, base * multiplier^n)] with the policy&apos;s base and cap.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 caps the wait before it draws the jitter, so a wait near the cap may pass it by up to %2 %.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot add the policy&apos;s random 0-%2 ms to the exponential wait; it waits the exponential term alone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot grow the wait linearly; every wait is %2 ms.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 needs a randomization factor below 1: %2 became %3, so the shortest wait is a little above zero.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 needs an initial interval of at least %2 ms; it was written.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 needs a multiplier of at least %2: %3 became %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resilience4j draws a wait from wait * [1 - f, 1 + f]; it has no %1, so each wait is drawn with randomizedWaitFactor %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>randomizedWaitFactor must be below 1: %1 became %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resilience4j caps the wait before it draws the jitter, so a wait near the cap may pass it by up to %1 %.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resilience4j cannot add the policy&apos;s random 0-%1 ms to the wait; it waits the exponential term alone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resilience4j cannot grow the wait linearly from its properties; every wait is %1 ms.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 jitter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>java.io.IOException stands for %2 as for %1, so Resilience4j retries %2 too, which the policy gives up on; list narrower exception classes to tell them apart.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy retries other network faults; Resilience4j retries only the classes in retryExceptions.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resilience4j has no deadline across retries and needs maxAttempts, so %1 was written (the most attempts that fit into %2 at the shortest waits).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resilience4j has no deadline across retries; the policy&apos;s %1 was not exported.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resilience4j cannot list HTTP statuses in YAML: a retryOnResultPredicate is needed, a Predicate class such as %1 that is true for HTTP %2, named in resultPredicate.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The attempt timeout is a TimeLimiter, which bounds only calls that return a CompletableFuture (or a reactive type).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resilience4j cannot count failures in a row; its breaker opens when all of the last %1 calls failed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resilience4j ignores Retry-After; the policy waits as long as it asks (up to %1). An intervalBiFunction written in code could read it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 retries every call it wraps; the policy retries POST and PATCH only when marked idempotent, so wrap only idempotent calls.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy retries PUT and DELETE only with a precondition; %1 cannot tell, so wrap them only when they carry one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 has no retry budget; each client retries on its own.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Envoy reads X-RateLimit-Reset only as a Unix time, before a retry: not the IETF RateLimit field, a reset in seconds from now, nor a spent quota before the first attempt, which the policy holds requests back for.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy retries answers that succeed by status but say otherwise (%1); %2 decides by status and faults only, so the application must check those answers itself.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy waits for a spent rate limit&apos;s reset (RateLimit, X-RateLimit-Reset) and holds back requests to a host whose quota is spent; %1 reads neither field and waits its backoff instead.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>beta must be a finite number.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>beta must lie strictly between %1 and %2 (got %3): it is the share of the rate kept after a throttling answer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown kind of rate limiter &quot;%1&quot; (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must name a member of the answer, such as &quot;/done&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a JSON pointer: it starts with &quot;/&quot;, and &quot;~&quot; is written &quot;~0&quot;, &quot;/&quot; in a name &quot;~1&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must lie between 1 and %1 (got %2): below 1 the polls would come ever faster.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the longest wait (%1) is shorter than the first (%2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must lie between 0 and %1 (got %2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a polling policy without an end: set totalTimeoutMs, maxPolls or both, or an operation that never finishes is polled forever.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a polling policy file must hold a JSON object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a polling policy file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>botocore&apos;s adaptive mode comes with standard mode&apos;s retry quota (500, a retry costs 5), which the policy does not have.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>botocore&apos;s rate limiter is fixed (beta 0.7, scale 0.4, at least 0.5 requests/s); the policy&apos;s beta %1, scale %2 and minimum %3 cannot be set.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy slows the whole client down after throttling answers (%1: a token bucket whose rate follows a CUBIC curve); %2 has no such limiter, so it sends as fast as it retries.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Envoy hedges only when a per-try timeout passes: the hedging delay of %1 became per_try_timeout with hedge_on_per_try_timeout, and Envoy waits its shortest backoff (1 ms) before each hedge.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy&apos;s attempt timeout of %1 cannot be expressed beside the hedge: Envoy&apos;s per-try timeout now starts the hedges, and the route timeout bounds the attempts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>hedgingPolicy.maxAttempts is %1; gRPC clients treat anything above %2 as %2 unless the channel raises the limit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A timed-out attempt sends the next hedge at once in RetryLab; gRPC has no per-attempt timeout, so a slow call keeps running until an answer or the deadline.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Polly&apos;s hedging does not wait for Retry-After, and neither does the policy while it hedges.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>These are the options of the standard hedging handler (AddStandardHedgingHandler); its attempt timeout and circuit breaker sit under &quot;Endpoint&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The standard resilience handler retries HTTP 408, 429 and 5xx and options cannot list statuses; the policy retries %1, so set %2.ShouldHandle in code.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy hedges (up to %1 attempts, a further one every %2 while the earlier ones are in flight, the first acceptable answer kept); %3 cannot, so the export retries one attempt at a time after a failure, with the policy&apos;s backoff, which the policy itself does not use while it hedges.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slow answers (hedging)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hedging</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>hedging is played by the latency model only, where answers are slow rather than refused; choose --model latency or another strategy.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Median time the server takes to answer (latency model).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sigma of the lognormal answer time: 0 for none, 1 for a long tail (latency model).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Share of answers that fail with 503 (latency model).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts in all of the hedging strategy, the first included.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time from one attempt of the hedging strategy to the next, unless one answered.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>At %1 clients %2 answered 99 % of them within %3 (median %4) for %5 calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; %1 within %2 (median %3) for %4 calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>: %1 % more load for a %2 % shorter tail</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>: %1 % less load and a %2 % shorter tail</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the hedging delay must be a finite number of milliseconds.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the hedging delay must be above 0 ms (got %1): with no delay every attempt goes out at once, multiplying the load instead of hedging the slow answers.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not used while hedging: the attempts go out on the hedging delay.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hedging is off.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 - %3: it wins</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 - %3: fatal, the request ends</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1: %2 - %3, and the last of %n hedged attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2 - the retry budget refuses a further hedged attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 - %3: not fatal, the next hedged attempt goes out at once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>token bucket per key: R tokens per second (0.001 to 100000), B at most; over the limit 429 with Retry-After; the limit told as X-RateLimit-* (the default), as the IETF draft&apos;s RateLimit and RateLimit-Policy, or by Retry-After alone; s3: over the limit 503 SlowDown, as Amazon S3 throttles</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>headers must be x-ratelimit, ietf, retry-after or s3 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>slowed down (S3): key &quot;%1&quot; has %2 of %3 tokens at %4/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the circuit breaker may open on the failures and refuse a further attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an answer may take longer here than the hedging delay of %1: attempts may overlap and answer in any order</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>o succeeded   x failed, retried   ! failed for good   c cancelled   - waiting   = hedged: attempts in flight side by side   2-9 retried attempts in one column</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 needs HOST:PORT, e.g. 127.0.0.1:6379 (got &quot;%2&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the listen address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the listen address must be an IP address or localhost (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 B</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 KB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>#%1 %2 %3 s, %4 up, %5 down, %6</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, %1 dropped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no upstream: give HOST:PORT of the service to forward to</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not a loopback address; other machines could reach the proxy (allow it explicitly)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot listen on %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>toxic already exists: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a proxy takes at most 100 toxics</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>toxic not found: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 connections open already</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a number (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a whole number 0 or more (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be at most %1 (got %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be &quot;upstream&quot; or &quot;downstream&quot; (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a probability from 0 to 1 (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be 1-100 letters, digits, &apos;_&apos;, &apos;.&apos; or &apos;-&apos; (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>is not an attribute of %1 (it has %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be 1 or more</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be 1 KB/s or more</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 +- %2 latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bandwidth %1 KB/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>close delayed %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no data, closed after %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no data, never closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reset after %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reset at once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sliced into %1 +- %2 byte writes %3 us apart</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>closed after %1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, to %1 % of connections</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>is not a field of a toxic (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>is required (one of %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a toxic (one of %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot change; remove the toxic and add another</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>is not a field of a toxic</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>is empty; start with a type (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not key=value (e.g. latency=1000, stream=upstream)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bad request body: %1 at offset %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bad request body: expected a JSON object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a string HOST:PORT</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a loopback address (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the Host header must name loopback (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>requests from the origin %1 are not allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>requests from web pages are not allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>method not allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not found: %1 (the toxiproxy API has /proxies, /populate, /reset, /version)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>is not a field of a proxy (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing required field: name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be 1-100 letters, digits, &apos;_&apos;, &apos;.&apos;, &apos;:&apos; or &apos;-&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>proxy already exists</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>at most %1 proxies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing required field: upstream</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be true or false</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bad request body: expected a JSON array of proxies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>proxies[%1]%2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>proxy not found</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not found</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>name: cannot change; delete the proxy and create another</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>enabled: must be true or false</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: is not a field of a proxy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>toxic already exists</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>toxic not found</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CONNECT needs host:port as its target (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>is a host name or address without port or path, * and ? as wildcards (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> on %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a forward proxy has no upstream: each request names its own</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CONNECT to port %1 is not allowed: this proxy tunnels to ports %2 and to any port on loopback</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this is a forward proxy: send absolute-form requests (GET http://host/path) or CONNECT host:port, as clients do with HTTP_PROXY</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request target &quot;%1&quot; has no host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>corrupt does not apply inside a tunnel (its bytes are TLS): passed unchanged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the tunnel&apos;s upstream cannot be reached: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 bytes up, %2 down, %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pausing %1 ms after %2 body bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cloud Storage, in memory: the bucket (every valid bucket name exists; storage.buckets.get)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cloud Storage: the bucket&apos;s objects (storage.objects.list)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cloud Storage: an object&apos;s metadata, its bytes with alt=media (Range too; also under /download/storage/v1), or its deletion; a failed precondition gets 412</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cloud Storage: a media upload, or a resumable one (Location, then PUT chunks with Content-Range; 308 with Range until the last); objects and uploads share a bounded memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cloud Storage&apos;s retry test API (as the storage-testbench&apos;s): store a retry test; a request with x-retry-test-id: &lt;id&gt; meets the next instruction of its operation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a retry test&apos;s instructions left and whether it is completed; DELETE forgets it (GET /retry_tests lists them all)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the Cloud Storage object limit must be from 1 MiB to 64 GiB (got %1 bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this Cloud Storage resource takes %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>object gs://%1/%2 generation %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the answer has no body to break: closed without an answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 body bytes sent, then closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retry test %1, %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no Cloud Storage resource at %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a valid bucket name (3-63 of a-z 0-9 - _ ., starting and ending with a letter or digit)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an object name is 1-1024 bytes of UTF-8 without CR or LF</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>uploads go to /upload/storage/v1/b/{bucket}/o</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>downloads come from /download/storage/v1/b/{bucket}/o/{object}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry Test: Caused a %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bucket %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 objects in %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>deleted gs://%1/%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>alt must be json or media (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 bytes of gs://%2/%3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Range must be &quot;bytes=FIRST-&quot; or &quot;bytes=FIRST-LAST&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the object has %1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>uploadType is required (media or resumable)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body of a resumable upload&apos;s start is the object&apos;s JSON metadata: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not an object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a resumable upload needs the object&apos;s name (?name= or &quot;name&quot; in the body)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>resumable upload %1 started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>uploadType &quot;%1&quot; is not served here (media or resumable)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a media upload needs the object&apos;s name: ?name=</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fault injected during a single-shot upload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a PUT to /upload/storage/v1/b/{bucket}/o continues a resumable upload: ?upload_id=</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Content-Range must be &quot;bytes FIRST-LAST/TOTAL&quot;, &quot;bytes FIRST-LAST/*&quot;, &quot;bytes */TOTAL&quot; or &quot;bytes */*&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Content-Range says %1 bytes, the body has %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Content-Range goes past the total it names</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Content-Range &quot;bytes */...&quot; comes without a body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fault injected during a resumable upload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 bytes are persisted, more than the total %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>resumable upload %1: %2 bytes persisted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 retry tests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body must be a JSON object {&quot;instructions&quot;: {...}}: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retry test %1 created</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retry tests are at /retry_test/{id}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retry test %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retry test %1 deleted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no retry test &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>instruction &quot;%1&quot; for %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the status must be from 400 to 599</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the size must be at most %1K</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it counts uploaded bytes, so it applies to storage.objects.insert only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it cuts a download, so it applies to storage.objects.get only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the stall must be from 1 to %1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it stalls a transfer, so it applies to storage.objects.get and storage.objects.insert only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the storage-testbench knows this instruction, but RetryLab&apos;s fault server does not play it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown instruction (known: return-&lt;code&gt;, return-reset-connection, return-broken-stream, return-broken-stream-after-&lt;N&gt;K, return-&lt;code&gt;-after-&lt;N&gt;K, stall-for-&lt;S&gt;s-after-&lt;N&gt;K)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>precondition %1=%2 failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 bytes are more than this server keeps for all its objects together (%2 bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server&apos;s objects and uploads hold %1 of %2 bytes: %3 more do not fit; delete objects first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no such object: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server holds %1 objects, its limit: delete objects first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server holds %1 unfinished resumable uploads, its limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no resumable upload &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the chunk starts at byte %1, but only %2 bytes are persisted: ask for the upload&apos;s state (Content-Range: bytes */*) and resume from there</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown field (known: instructions, transport)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>only &quot;HTTP&quot; is served here (the testbench&apos;s gRPC is not)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>instructions is not defined: give an object of operation names to lists of instructions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not an operation this server serves (it serves %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a list of instructions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>at most %1 instructions per test</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an instruction is a string</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server holds %1 retry tests, its limit: delete some (DELETE /retry_test/{id})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the retry tests would hold more than %1 instructions in all: delete some</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>inside an intercepted tunnel to %1 only requests for it are taken (GET /path)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bytes came before the tunnel was open; TLS interception needs the client to wait for the proxy&apos;s 200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the connection cannot carry TLS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TLS intercepted with the proxy&apos;s CA; the requests inside follow as https://%1:%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the TLS handshake with the client failed (%1): does it trust the proxy&apos;s CA?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TLS interception is for a forward proxy; a reverse proxy&apos;s upstream is its own</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TLS interception needs a CA certificate and its private key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no certificate for %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a list of [name, value] pairs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be [name, value]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (body %1...)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot make the recording folder %1 (is its parent writable?)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 holds something that is not a recording to add to: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot write to the recording folder %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot write exchanges.jsonl: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is no recording: recording.json cannot be read (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1/recording.json: not a %2 file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1/recording.json: version %2 is not one this RetryLab reads (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1/exchanges.jsonl cannot be read: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: more than %2 exchanges</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: needs method, a path starting with /, status 100-599 and bodySha256</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: body must name a file under bodies/</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 cannot be read: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the recording&apos;s bodies are larger than a replay holds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not recorded: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; nothing was recorded for %1 (%2 exchanges in %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; recorded for this path: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not a loopback address; other machines could read the recording (allow it explicitly)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>recorded %1 from %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ACLs are not modelled by the fault server&apos;s storage API</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bucket writes and listings are not modelled: every valid bucket name exists</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>IAM policies of buckets are not modelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HMAC keys belong to projects, which are not modelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pub/Sub notifications are not modelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>server-side copies (compose, copy, rewrite) are not served; their retry rule is the same as insert&apos;s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>metadata updates (patch, update) are not served; their retry rule is the same as delete&apos;s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>project service accounts are not modelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not JSON: %1 at offset %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be a list of cases</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is neither served by the fault server nor known as unsupported</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>has no instruction list</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the program carries no retry_tests.json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the fault server for the Cloud Storage cases did not start: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the retry test was refused: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the object to act on could not be made: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; instructions left unused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; %1 attempts where %2 were expected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected %1, got %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failure</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the HTTP fault layer cannot start: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CONNECT is for a forward proxy; this server opens no tunnels</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>is not a header field that can be sent (a name of token characters, a value on one line)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 listens on loopback only, not on %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the control port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the toxiproxy API</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown auth type &quot;%1&quot; (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the bearer token is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the API key&apos;s name is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the OAuth 2.0 token URL is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the OAuth 2.0 refresh token is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the OAuth 2.0 authorization URL is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the AWS access key id is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the AWS secret access key is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the AWS region is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the AWS service is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the service account&apos;s key file is not given</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the authorization URL is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the authorization URL is not an http or https URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client ID is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the redirect carries no state, so it cannot be told apart from a forged one</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the redirect&apos;s state is not the one this request sent: it answers another request, or was forged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the authorization server refused: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the redirect carries no authorization code</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Inherit from the folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No auth</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Basic</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bearer token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Digest</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OAuth 2.0 client credentials</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OAuth 2.0 refresh token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OAuth 2.0 authorization code (PKCE)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AWS Signature Version 4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Google service account</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the JWT&apos;s %1 is not base64url</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the JWT&apos;s %1 is not a JSON object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a JWT has three parts separated by dots; this one does not</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>header</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>claims</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the JWT&apos;s signature is not base64url</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the JWT is signed with &quot;%1&quot;, not RS256</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no algorithm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>there is no key to verify the JWT with</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the JWT&apos;s signature does not verify with the key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the key is %1, not RSA: RS256 signs with RSA keys only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>of an unknown algorithm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the RSA key has %1 bits; RS256 needs at least %2 (RFC 7518, section 3.3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the private key is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the private key is not PEM (there is no &quot;-----BEGIN&quot; line)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the private key is encrypted with a passphrase; an unencrypted key is needed (as in Google&apos;s key files)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the PEM text holds no private key that can be read (a PKCS#8 &quot;PRIVATE KEY&quot; or PKCS#1 &quot;RSA PRIVATE KEY&quot; block is needed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the public key is not PEM (there is no &quot;-----BEGIN&quot; line)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the PEM text holds no public key that can be read (a &quot;PUBLIC KEY&quot;, &quot;RSA PUBLIC KEY&quot; or &quot;CERTIFICATE&quot; block is needed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an RSA key has %1 to 8192 bits, not %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OpenSSL could not make an RSA key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>signing needs a private key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OpenSSL could not sign with the RSA key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot use the service-account key file %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the field &quot;%1&quot; is missing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the field &quot;%1&quot; is not a string</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the field &quot;%1&quot; is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a service-account key file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is not JSON (%1 at byte %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is not a JSON object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the field &quot;type&quot; is missing (a service-account key has &quot;type&quot;: &quot;service_account&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>its &quot;type&quot; is &quot;%1&quot;, not &quot;service_account&quot; (gcloud writes other kinds of credentials, such as &quot;authorized_user&quot;, to files of the same form)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a string</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the field &quot;token_uri&quot; is not an http or https URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the field &quot;private_key&quot; does not load: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the token URL is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the token URL is not an http or https URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no service-account key file is given</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the authorization code flow needs the code from the browser before it can ask for a token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 fetches no token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the refresh token is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the authorization code is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request lacks a parameter or is malformed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client ID or secret was not accepted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the grant (a refresh token, an authorization code or an assertion) is invalid, expired or revoked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this client may not use this grant type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server does not support this grant type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the scope asked for is invalid or more than the client may have</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the user or the server denied the request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server does not hand out authorization codes this way</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server is overloaded or down for maintenance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an error that RFC 6749 does not define</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (the server says: %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the token endpoint refused the request with %1, %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>the token endpoint answered %1 without an OAuth 2.0 error (%n byte(s) of body)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the token endpoint&apos;s answer is not a JSON object (%n byte(s))</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>the token endpoint&apos;s answer has no &quot;access_token&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the token endpoint&apos;s &quot;token_type&quot; is not a string</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the token endpoint&apos;s &quot;expires_in&quot; is not a number of seconds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OAuth 2.0 token endpoint: client_credentials, refresh_token, authorization_code (PKCE) and urn:ietf:params:oauth:grant-type:jwt-bearer; client retrylab, secret retrylab-secret (HTTP Basic or in the body); tokens live S seconds (default 3600); wrong secret 401 invalid_client, bad grant 400 invalid_grant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>approves at once: 302 to the loopback redirect_uri with a code and the state (PKCE required); deny=1 redirects with error=access_denied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>200 with a valid, unexpired bearer token; 401 with WWW-Authenticate: Bearer otherwise</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a Google service-account key file (JSON, private key included) whose JWTs /oauth/token accepts; its token_uri is this server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server is not listening, so its token URL is not known yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the Authorization header is not Basic base64(id:secret)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client authenticated twice, in the Authorization header and in the body; RFC 6749 2.3 allows one method</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client_id of the body is not the client of the Authorization header</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an OAuth client has no id</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the OAuth client &quot;%1&quot; is given twice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the service account&apos;s email is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 takes %2 only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no such OAuth endpoint: %1 (there are /oauth/token, /oauth/authorize, /oauth/protected and /oauth/service-account-key)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no client_id: authenticate with HTTP Basic or client_id and client_secret in the body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client &quot;%1&quot; is public and has no secret</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client &quot;%1&quot; must send its secret</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>wrong secret for the client &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown client &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server holds %1 tokens already; reset it (POST /_control/reset)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: a token for &quot;%2&quot; valid %3 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a token request&apos;s body is application/x-www-form-urlencoded (RFC 6749 4.4.2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body has no grant_type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the jwt-bearer grant needs an assertion</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>grant_type &quot;%1&quot; is not one of client_credentials, refresh_token, authorization_code and %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the refresh_token grant needs a refresh_token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the refresh token is not one this server issued to &quot;%1&quot;, or the server was reset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the authorization code is unknown or was used already</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the authorization code was issued to another client</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the authorization code expired</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>redirect_uri is not the one the authorization request named (RFC 6749 4.1.3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the code was issued with a PKCE challenge: code_verifier is missing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>code_verifier does not match the code challenge (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server holds too many refresh tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the assertion&apos;s issuer (iss) &quot;%1&quot; is not a service account this server knows (GET /oauth/service-account-key makes one)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the assertion&apos;s audience (aud) is not this token endpoint, http://%1/oauth/token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the assertion needs numeric exp and iat claims</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the assertion expired (exp is in the past)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the assertion was issued in the future (iat)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the assertion is valid for more than an hour (exp - iat = %1 s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>redirect_uri must be a loopback http URL (http://127.0.0.1:PORT/..., RFC 8252 7.3): the fault server redirects nowhere else</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>response_type must be code</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>denied as asked (?deny=1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PKCE is required: code_challenge is missing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>code_challenge_method must be S256 or plain</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>code_challenge must have 43 to 128 characters (RFC 7636 4.2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server holds too many codes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>authorization code for &quot;%1&quot;, approved at once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no bearer token: send Authorization: Bearer TOKEN</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the Authorization header is not a bearer token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the access token is unknown (or the server was reset)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the access token expired</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a valid token of &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request has no Host header, so the key&apos;s token_uri is unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the key file of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the quoted string that starts at byte %1 is not closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>byte %1 (&apos;%2&apos;) cannot start an authentication scheme</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>byte %1 (&apos;%2&apos;) cannot start a parameter of the %3 challenge</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the parameter %1 of the %2 challenge has no value (byte %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>byte %1 (&apos;%2&apos;) follows the parameter %3 where a comma belongs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the authentication challenge is malformed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>authentication challenge %1 of %2 is malformed: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the AWS access key ID is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the AWS region is empty (for example us-east-1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the AWS service is empty (for example s3 or execute-api)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the AWS region &quot;%1&quot; has a slash, white space or a control character</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the AWS service &quot;%1&quot; has a slash, white space or a control character</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the AWS access key ID has a slash, white space or a control character</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the URL is not valid: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the URL %1 is not an http or https URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the URL %1 has no host to sign</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the method is not an HTTP token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the signing time is not valid</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the payload hash is neither 64 lower-case hex digits (a SHA-256) nor UNSIGNED-PAYLOAD</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a header name cannot be signed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a presigned URL must expire after 1 to %1 seconds (7 days), not %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the %1 challenge is not a Digest challenge</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server asks for the Digest algorithm %1, which RetryLab does not support (it supports %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the Digest challenge has no nonce</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the Digest challenge offers only qop &quot;%1&quot;; RetryLab answers auth and auth-int</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server sent no authentication challenge (no WWW-Authenticate field)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server offers no Digest challenge, only %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request target has a byte that cannot be sent in a Digest uri parameter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the Digest client nonce is empty or not printable ASCII</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the user name has characters beyond ASCII, and the server&apos;s Digest challenge allows them neither with charset=UTF-8 nor with userhash</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>there is no Digest challenge to answer yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the Digest nonce count is exhausted; a new challenge is needed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: cannot read: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: larger than an auth file can be (1 MiB)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: an auth file holds one object, such as {&quot;type&quot;: &quot;basic&quot;, ...}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Auth: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the token request to %1 failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; an access token from %1 first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; the server&apos;s %1 challenge answered</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the authorization code flow needs a person at a browser: get the tokens in the window&apos;s Auth tab, then send with their refresh token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no access token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server refused the Digest credentials of &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The API key %1 goes in the query: add %1=... to the URL.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl signs with headers; RetryLab presigns the URL (the query carries the signature).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl 7.88 signs a query with parameters out of order differently from AWS: such a signature is refused.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl fetches no access token (%1): get one from %2 and add --oauth2-bearer TOKEN.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the key file&apos;s token_uri</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown hop kind &quot;%1&quot; (known: redirect, token, challenge)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 takes provider1[:provider2[:region[:service]]], such as aws:amz:us-east-1:s3, not &quot;%2&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: only the &quot;aws&quot; provider is signed (AWS4-HMAC-SHA256), not &quot;%2&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--aws-sigv4 signs with the keys -u gives: add -u ACCESS_KEY_ID:SECRET_ACCESS_KEY</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--aws-sigv4 names no region and the host %1 gives none: write aws:amz:REGION:SERVICE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--aws-sigv4 names no service and the host %1 gives none: write aws:amz:REGION:SERVICE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--digest is not used: --aws-sigv4 signs the request.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--digest without -u sends no credentials.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>oauth2 with the authorization code grant needs a person at a browser, and no token or refresh token was kept</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>oauth2 with the %1 grant is not supported</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not supported</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 authorization of %2 (%3: add its header by hand)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>auth oauth2 with the %1 grant is not sent: the runner fetches client_credentials tokens, and refresh tokens it is given</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unnamed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>auth %1 is not sent: the runner sends basic, bearer, apikey, digest, awsv4 and oauth2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>: %1 authorization: %2; sent without authorization</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; the request was not sent; retried as a refused connection would be</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; the request was not sent; not retried, as a refused connection would not be</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 has no %2 address, and only %2 was asked for</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no connection within the connect timeout of %1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a body from a file or form parts is for single requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request has a body and a body file; it can send one</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the connect timeout must be more than 0 and at most %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the --resolve entry &quot;%1&quot; is not HOST:PORT:ADDRESS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body file %1 cannot be read: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it does not exist</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 is not a regular file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: RetryLab connects to the first address given; curl tries the others when it fails.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: a form part is NAME=VALUE, NAME=@FILE or NAME=&lt;FILE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the part&apos;s %2 is not sent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: a form part from standard input is not supported</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 and %2 cannot be used together: the request has one body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 and -I/--head cannot be used together: a HEAD request has no body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body file %1 does not exist</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body file %1 is a folder, not a file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body file %1 is not a regular file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body file %1 cannot be read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>file %1 (%2 bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>multipart/form-data: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot;: removing an entry (-HOST:PORT) is not supported; give HOST:PORT:ADDRESS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not HOST:PORT:ADDRESS (e.g. example.test:443:127.0.0.1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot;: the port &quot;%2&quot; is not from 1 to 65535</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; gives no address to connect to (HOST:PORT:ADDRESS)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot;: &quot;%2&quot; is not an IPv4 or IPv6 address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected milliseconds above 0, or null for none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (edited by curl --retry flags)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, changed by an imported curl command&apos;s retry flags.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>every client</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 % of the clients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take-away: at %1 clients %2 got %3 through with %4 calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take-away: at %1 clients use %2: it got %3 through with the fewest calls, %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; %1 was done sooner (%2 against %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> but got only %1 % of the clients through</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> only by sending %1 % more calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Form row %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Form row %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a file body needs the file&apos;s path</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a row is a value or a file, not both</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is a file: a URL-encoded form holds text only (choose Multipart form).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the file to send as the body.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: a field&apos;s name cannot hold quotes or line breaks.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The multipart form has no field to send: add a field or a file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Content-Type is set by the multipart form (with its boundary): remove it from the headers.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>form-data file field &quot;%1&quot;: no file chosen, so it is not sent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>file body: no file chosen, so no body is sent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>: file field &quot;%1&quot; has no file, so it is not sent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>: a file body without a file is not sent</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Core::AlertDispatcher</name>
    <message>
        <source>there is no alert target named &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no executor carries webhooks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>alert %1 to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>the webhook was not delivered (%1, %n attempt(s)): %2</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>the executor carrying the webhook was destroyed</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Core::ConformanceRunner</name>
    <message>
        <source>the policy is not usable: %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the embedded fault server cannot listen: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the fault server is not listening</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server refused the script of &quot;%1&quot;: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>did not run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the matrix&apos;s time limit of %1 ran out before this cell finished (the model allows it up to %2)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Core::OperationPoller</name>
    <message>
        <source>an operation is being polled already</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>there is no executor to send the polls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the polling policy cannot be used: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the polling policy cannot be used: %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cancelled by the user</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>poll %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the first request</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1 failed after %n attempt(s): %2: %3</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>done after %n poll(s) in %1</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>not done after %n poll(s), the most the polling policy allows</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>not done within the total timeout of %1: poll %2 would be sent at %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>not done within the total timeout of %1 (%n poll(s))</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>the answer is not a JSON object, so it does not say whether the operation is done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is %2, not true or false</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>code %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no code</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the operation failed (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the operation failed (%1): %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Core::PolicyComparison</name>
    <message>
        <source>compare two to four policies (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the embedded fault server cannot listen: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Core::RetryExecutor</name>
    <message>
        <source>the policy is not usable: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request&apos;s policy is not usable: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the total deadline of %1 ms passed before attempt %2 could start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>circuit open for %1: failing fast (%2 ms until a trial request is let through)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the total deadline of %1 ms was reached</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cancelled by the user</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; then %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the policy gave up (%1): trying %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: trying %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; no fallback asked: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (no attempt was made)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (&quot;%2&quot; is in the request&apos;s fallback list)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: attempt %2 would wait %3 for its reset, beyond the %4 ms left before the deadline; giving up now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>held back %1 before it started: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>waited %1 for the adaptive rate limiter (%2 requests/s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1; it answered first: %n other attempt(s) cancelled</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>attempt %1 answered first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>attempt %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; not fatal: attempt %2 goes out now</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1; waiting for the %n attempt(s) still in flight</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1; the retry budget refused a further attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; all %2 hedged attempts failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retry budget exhausted after %1 hedged attempt(s): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>all %1 hedged attempts failed; the last: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request&apos;s auth cannot be used: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>401 with the cached access token: a fresh token is fetched and the request sent again</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Core::ScenarioRunner</name>
    <message>
        <source>%1 #%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the embedded fault server cannot listen: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the fault server is not listening</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server refused it: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>time limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (the scenario&apos;s time limit of %1 ran out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>the run did not finish within the scenario&apos;s time limit of %1; %2 of %n request(s) finished, the rest were cancelled or never sent</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui</name>
    <message>
        <source>only the first %1 of %2 headers fit in the header table</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body (%1 bytes) is binary and the composer holds text: it was left out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body (%1 characters) is longer than the composer takes (%2): it was left out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it ignores certificate errors for %1 (-k/--insecure); that was not carried over: tick &quot;Ignore certificate errors for this host&quot; under Connection if you mean it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it was a read-modify-write sequence; the composer sends its first request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Idle for %1: nothing was running.
Drawn narrow so that the runs on either side keep their width; zoom or drag to see it at scale.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2; grouped: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>served %1 by the path; grouped: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>served %1 (plan step %2); grouped: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server&apos;s fault: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client got its answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>the client stopped retrying after %n attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>through the proxy:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>control port: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No script: the URL decides</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests are answered by their path, e.g. /fail/3 or /status/503.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>3 × 503, then 200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every request is refused three times with 503 Service Unavailable, then served.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reset, 429 after 2 s, then 200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The connection is reset, then 429 Too Many Requests asks to wait 2 s (Retry-After), then 200.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flaky: 30 % of answers are 503</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One script shared by all requests: about 30 % of the next 100 answers are 503, the rest 200.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Broken body, then 200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The first answer announces 1024 bytes and sends 512, then the request is served.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Down: 500 every time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every answer is 500 Internal Server Error, so requests fail for good once their attempts run out.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>preset: must be text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>instructions: must be a list of steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>instructions: more than %1 steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>instructions[%1]: must be text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>instructions: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sharing: must be &quot;per-request&quot; or &quot;shared&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A credential: hidden on screen and redacted in exports. Use &quot;Show credentials&quot; to see it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: a picture is written as PNG (.png) or SVG (.svg)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: there is nothing on screen to draw</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot be written: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drawn by RetryLab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot be written: the drawing could not start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>monitor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the collection holds no request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the collection has no request or folder &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>collection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>environments file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A collection run is going on; stop it or wait for its end before starting another.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in flight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>network error %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no attempt was made: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>recording: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>type an http:// or https:// URL with a host, or {server} for RetryLab&apos;s own fault server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{server} stands for RetryLab&apos;s own fault server, which is not running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>what follows {server} must be a path starting with /, as in {server}/api</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no upstream: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream is not a URL (%1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the upstream %1 is not a URL the proxy can forward to: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a request history</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The request history %1 is damaged (%2); it starts empty.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n entry(s) of the request history %1 could not be read and were left out.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::AssertionTableModel</name>
    <message>
        <source>Status is</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status class</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time under (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Header present</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Header equals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Header matches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Body contains</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON pointer equals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON pointer exists</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON pointer matches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Body valid against schema</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. 200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. 2xx</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. 200,204 or 500-504</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>milliseconds, e.g. 800</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>header name, e.g. ETag</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON pointer, e.g. /id</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the whole value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>regular expression</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>text to find</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON value, e.g. 7, true, &quot;ok&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON Schema, e.g. {&quot;type&quot;:&quot;object&quot;}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>give a number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>give a JSON Schema, e.g. {&quot;type&quot;: &quot;object&quot;}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not JSON: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not used: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 needs nothing here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checked on the last attempt of each request sent: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>⚠ not used: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Target</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The status (200, 2xx, 200,204), the time in milliseconds, the header&apos;s name or the JSON pointer (/id), as the kind asks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The header&apos;s value, a regular expression (searched), the text the body contains, a JSON value (plain text is taken as a string) or a JSON Schema, as the kind asks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Turns the check around: the header must be absent, the body must not contain the text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What the verdicts call it; empty: the check&apos;s own description</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What the row checks, or why it cannot be used</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::AttemptInspector</name>
    <message>
        <source>success</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>transient: retry after a delay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>transient: retry at once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>give up: not worth retrying</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>[%1 body, %2]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>image</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>binary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show credentials</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Previous attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The previous attempt of the same request (Ctrl+[)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The next attempt of the same request (Ctrl+])</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the values of Authorization, cookies, API keys and tokens, and the secrets in URLs and bodies, on screen and in what the copy buttons copy. Exports stay redacted.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy exchange</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request and the response</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy as curl</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a curl command</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Summary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Response</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select an attempt in the timeline or the error log to see what it sent and what came back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy %1 to the clipboard (redacted unless credentials are shown)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy summary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the summary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the response body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Headers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy headers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the response headers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request headers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What the client could measure</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy timings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the timings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copied %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No attempt selected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In flight for %1: what came back shows when the attempt ends.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, retried after %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Classification</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reason</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ended by</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delay before it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>planned %1, actual %2 (%3%4)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none: the first attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delay after it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none: no retry followed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry-After</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (honoured: %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read-modify-write</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 step, round %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (left out: %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (not followed: %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Redirects</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Protocol</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not reported</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>subject: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>issuer: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>valid from %1 to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>error (ignored for this host): %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TLS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not recorded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none (plain HTTP)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Received</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 announced</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Queued</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 before the start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not at all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 into the run (%2 UTC)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connection started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not reported (a reused connection)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request sent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>First byte</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Duration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No response: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>  (then: %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No body: a %1 sends none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No response</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Empty body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · attempt %2 of %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · attempt %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · at %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fallback %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>[body dropped to bound memory]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>[the first %1 of %2]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>[the first %1; the transfer was ended after %2, the rest never read]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; the reset read as %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not used: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rate limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · the answer kept (hedging)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · hedged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, %1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>access token from %1 (%2%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no token from %1 (%2): %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 challenge answered</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Auth</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none (a reused connection)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connected to</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>DNS lookup</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connect + TLS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connect</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sending</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting (first byte)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Download</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connect timeout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the connection was not ready in time</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::AttemptLogModel</name>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2 s after the run started)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1
Next: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status / error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request outcome</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reason</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next delay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Duration</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::AuthForm</name>
    <message>
        <source>The request is sent as it is: its headers may still carry credentials.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Authorization: Basic, unless a header of the request sets Authorization itself.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Authorization: Bearer, unless a header of the request sets Authorization itself.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The key goes in a header or in the query, unless the request sets it itself.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The first request goes without credentials; the server&apos;s 401 challenge is answered within the same attempt, and later attempts answer its nonce with the count one higher.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every attempt is signed at its own time (AWS4-HMAC-SHA256); with Presign, the signature goes in the URL&apos;s query instead of the headers.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An access token is fetched before the first attempt (a step of the attempt), kept until shortly before it expires, and fetched again once after a 401. The retry policy applies to the token request too.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The code is asked for in your browser (PKCE, a redirect to 127.0.0.1); the tokens it gives are then used and refreshed as for a refresh token.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Presign the URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No auth</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Type:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;User name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Password:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>T&amp;oken:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Key name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Value:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In a header</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In the query</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sent:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Authori&amp;zation URL:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Token &amp;URL:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Client ID:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client &amp;secret:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Refresh token:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sco&amp;pe:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Audience:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Basic header</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In the body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client sent:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Access &amp;key ID:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Secret access ke&amp;y:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Session toke&amp;n:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Re&amp;gion:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ser&amp;vice:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Valid for:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the service account&apos;s JSON key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the key file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key &amp;file:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show or hide the value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Service account key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON key files (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Auth</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Auth · %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sign in with the browser…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opens the authorization URL in your browser and waits on 127.0.0.1 for the code</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not signed in: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Signed in: the refresh token is kept (hidden) and exchanged for an access token when the request is sent.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Signed in; no refresh token came: the access token is sent as a bearer token until it expires.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sign-in cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel sign-in</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::AuthorizationCodeFlow</name>
    <message numerus="yes">
        <source>No answer came back from the browser in %n minute(s).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Give the authorization URL and the token URL first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot listen on 127.0.0.1 for the browser&apos;s redirect: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No browser could be started for %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for the browser: sign in there, and RetryLab gets the code at %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab has the code and asks for the tokens now: you may close this tab.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab did not get a code: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Got the code; exchanging it at the token URL…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The token URL did not answer: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This is not the sign-in RetryLab is waiting for.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The token URL cannot be reached as the request is sent: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::BeatBarDelegate</name>
    <message>
        <source>succeeded, in maintenance (not counted)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed, in maintenance (not counted)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>succeeded after %n failed attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n attempt(s), %1</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>HTTP %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No check yet</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::BodyForm</name>
    <message>
        <source>Add &amp;file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show values</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Form, URL-encoded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Multipart form (fields and files)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File, streamed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Text&lt;/b&gt;: the body as typed.&lt;br&gt;&lt;b&gt;Form, URL-encoded&lt;/b&gt;: the fields as application/x-www-form-urlencoded.&lt;br&gt;&lt;b&gt;Multipart form&lt;/b&gt;: fields and files as multipart/form-data (curl -F).&lt;br&gt;&lt;b&gt;File&lt;/b&gt;: a file sent as the body (curl -T), read from disk for every attempt.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request body, sent with every attempt. {server} and {id} are expanded here too.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Add field</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A file part, read from disk as each attempt is sent; only its path is saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the values of fields named like credentials (password, token, …).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>/path/to/file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Choose…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sen&amp;d:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a file to the form</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send a file as the body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Body (%1 B)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Body</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Body (form, %n field(s))</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Body (multipart, %n part(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>, %n file(s))</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Body (multipart, %n part(s))</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Body (file)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sent as typed, with every attempt. Set its Content-Type under Headers.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sent as application/x-www-form-urlencoded (unless a header sets Content-Type): %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an empty body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sent as multipart/form-data with a boundary of its own (so Content-Type is not set under Headers). Files are read from disk as each attempt is sent, so a retry sends them whole again; a saved request keeps their paths only.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the file to send as the body.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot be read.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is read from disk for every attempt and streamed, never held in memory; a saved request keeps its path only.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::BodyView</name>
    <message>
        <source>Formatted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hex</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Formatted: JSON as a tree, images as pictures, binary as hex. Text: the bytes as text (JSON indented). Hex: a hex dump.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy all of the body that was kept (JSON indented, binary as a hex dump)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 byte</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2 bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Text, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 image, %2 × %3 px</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Binary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Body dropped to bound memory: the run keeps the newest bodies, %1 of this one are gone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only the first %1 of %2 were kept.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The charset &quot;%1&quot; is not known here: shown as UTF-8.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not valid JSON (cut short?): shown as text.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The image could not be decoded: shown as a hex dump.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Body dropped to bound memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Showing the first %1 of %2 characters; Copy takes them all.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Showing the first %1 as hex; Copy takes all %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{1 key}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{%1 keys}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>[1 item]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>[%1 items]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The tree shows the first %1 values of %2; Text shows all of it.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ChecksForm</name>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove the selected assertions (Delete)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove the selected rules (Delete)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add an assertion after the current one (Insert)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a rule after the current one (Insert)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Assertions on the answer:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Values into &amp;variables:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checked on the last attempt of each request sent from here (after its retries), and saved with it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 check runs on the last attempt of each request sent from here; its verdict shows in the attempt inspector&apos;s Checks page.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 checks run on the last attempt of each request sent from here; the verdicts show in the attempt inspector&apos;s Checks page.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>assertion %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>variable rule %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>⚠ 1 row not used until corrected: %1. </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>⚠ %1 rows not used until corrected; %2. </source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ChecksVerdictView</name>
    <message>
        <source>Result</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What came</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This request carries no checks.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks …</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks run when the request ends, on its last attempt (%1 of them).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks ✗</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing was checked: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>attempt %1, the request&apos;s last</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No assertions; the extract rules ran on %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks ✓ %1/%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✓ The assertion passed on %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✓ All %1 assertions passed on %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks ✗ %1/%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✗ %1 of %2 assertions FAILED on %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✓ passed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✗ FAILED</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 = %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>⚠ not set: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Variables for the next requests:
%1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ClientListModel</name>
    <message>
        <source>(none sent)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(none)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>User-Agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dropped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1
User-Agent: %2
from %3
</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n logical request(s), </source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n attempt(s) kept</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>
%n older logical request(s) dropped to keep memory bounded</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>
%n request(s) refused as malformed; the last: %1</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ClientsView</name>
    <message>
        <source>Observe clients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load plan...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy curl command</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Group the requests other programs send to the embedded server into logical requests, serve them the plan, and infer how each client retries. Paths that are not the server&apos;s endpoints get the plan&apos;s answers instead of 404 while this is on.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What each logical request of an observed client is served</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The longest pause between an answer and a retry of the same request; a longer pause starts a new logical request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plan:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gap window:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No client has sent a request yet. Point one at the URL above.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Turn on &quot;Observe clients&quot; and point a client at the URL above.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load an observation plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Observation plans (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The plan was not loaded: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (file)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The embedded server is not running: start it on the Server tab.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Point a client at any path of %1 but the endpoints, e.g. %1/items/1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not observing.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Observing as soon as the server runs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Observing with the plan &quot;%1&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source> %n client(s), </source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n logical request(s), </source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n attempt(s).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> %n older logical request(s) dropped to keep memory bounded.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::CollectionModel</name>
    <message>
        <source>%1 copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2
Policy: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collection: %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not saved yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
Auth: %1, inherited</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
Auth: %1, for its requests with no auth of their own</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::CollectionRunDialog</name>
    <message>
        <source>Run %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How many times the whole selection runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A pause between two requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop at the first request that &amp;fails</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None: one attempt each</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy of requests that have none of their own, nor their folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request&apos;s or its policy&apos;s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each attempt&apos;s timeout where the request does not set its own</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Iterations:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Delay between requests:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default &amp;policy:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempt &amp;timeout:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No environment: variables come from the collection alone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Environment: %1 (the one chosen in the toolbar)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::CollectionRunModel</name>
    <message>
        <source>Error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>passed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retried</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>skipped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (iteration %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sending…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Assertion: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Test: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status or message</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1: passed after %n attempt(s) under the policy %2</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::CollectionRunPanel</name>
    <message>
        <source>Failed o&amp;nly</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the attempts of the selected request in the timeline and the inspector (Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>E&amp;xport…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the run as a JSON report, JUnit XML or HAR</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop the run after cancelling the request in flight (Esc)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No collection has run yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show only the requests that failed, with their failed assertions, tests and errors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests run: %1, in %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped early: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not used: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 passed · %2 failed · %3 retried</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests done out of those the run will send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests the run sent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retried: passed only after more than one attempt, what a runner without retries would have failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (iteration %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 in %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run goes on; export it once it has ended.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab JSON report (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JUnit XML (*.xml)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HAR (*.har)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run was not exported: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exported to %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expand all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collapse all</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::CollectionSidebar</name>
    <message>
        <source>Search by name or URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No saved requests yet. Save request (Ctrl+S) keeps what the composer holds, with its policy.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New &amp;collection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New &amp;folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Save request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save as &amp;new request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Duplicate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Rename</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>De&amp;lete…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save what the composer holds, with the policy, over the request loaded last (or as a new one) (Ctrl+S)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A new request (what the composer holds), folder or collection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; uses the preset &quot;%2&quot;, which this RetryLab does not have; the policy in the editor is kept.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New collection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New collection %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>My requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the collection &quot;%1&quot; with its %2 requests, and its file?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the folder &quot;%1&quot; and everything in it?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the request &quot;%1&quot;?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The collection &quot;%1&quot; was not saved: %2. It stays as it is in the sidebar; try again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The collection &quot;%1&quot; was removed, but its file was not: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The environments were not saved: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Run collection…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run f&amp;older…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run the selected collection or folder, request after request, with their policies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; cannot run: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Auth…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The auth of the selected collection or folder: its requests whose own is &quot;No auth&quot; are sent with it</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::CompareDialog</name>
    <message>
        <source>Compare policies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy A:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy B:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy C:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy D:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scenario:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fresh for each run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every policy draws its jitter from this seed; the server&apos;s random faults too.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts (load)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Busiest second</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>To success, median</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slowest success</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a scenario</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab scenario (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot compare: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The comparison failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Running &quot;%1&quot; under %n policies with seed %2…</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Seed %1: every policy met the same faults; only the policy differs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>as many attempts as</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n attempt(s) against none for</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1 % fewer attempts than</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 % more attempts than</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>finished at the same time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>finished %1 sooner</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>finished %1 later</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B (%1) sent %2 A (%3) and %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; both succeeded %1 of %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; B succeeded %1 of %2, A %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play the scenario under each policy at once, against the same faults</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The requests and the faults they meet: the same for every policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One band per policy (A, B, …), one line per request: %1 %2 %3, and a grey line for the wait before a retry.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed, then retried</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed for good</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy, by its letter in the bands above</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests the scenario sent under this policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests that ended with a success</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests that ended failed: the retries ran out or the error was not retryable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts that reached the server: the load this policy put on it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The most attempts that started within one second</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From the first attempt to the success, the median of the requests that succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The longest any request took to succeed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ComparisonTimeline</name>
    <message>
        <source>Choose the policies and a scenario, then Run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>request %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1: %2: %3 of %4 succeeded, %n attempt(s), busiest second %5</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ConformanceModel</name>
    <message>
        <source>succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gave up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>exhausted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>deadline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>breaker open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>budget empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>invalid</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expect %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>as expected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NOT as expected</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1 after %n attempt(s), %2
%3</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>expected: %1
%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>n/a</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1
a whole read-modify-write of a resource on /occ; server steps for its reads and writes in turn: %2, then /occ answers as itself</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1
the path answers %2 to every attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1
server steps: %2, then the path answers %3</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ConformanceView</name>
    <message>
        <source>The policy whose retry rules the matrix checks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preset: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run every cell against the embedded fault server (a few seconds)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a cell to see why it is expected to end as it does, and what happened.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Policy:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edited policy: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This policy cannot run: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Running %n cell(s) for “%1” against the embedded fault server...</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1 of %2 cells done for “%3”...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The edited policy changed to “%1”; the next run uses it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All %1 cells behave as the rules of “%2” say.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 cells pass for “%3”; select a red cell to see what differs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The matrix could not run: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1
%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each cell shows what the policy&apos;s rules expect. The run compresses the waits (base %1, cap %2%3) so that the matrix takes a few seconds; what is retried, and how often, stays as the policy says.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, deadline %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fault sequences × idempotency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cloud Storage cases (Google&apos;s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Which suite the tab shows: RetryLab&apos;s matrix, or Google&apos;s retry conformance cases for Cloud Storage client libraries</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>succeeded (5)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::CurlImportDialog</name>
    <message numerus="yes">
        <source>now %n attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>now none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>paste a curl command</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import a curl command</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>curl -X POST https://api.example.com/orders -H &apos;Content-Type: application/json&apos; -d &apos;{&quot;id&quot;: 1}&apos; --retry 5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Also change the &amp;policy as the --retry flags say</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Import</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Command line (as in a terminal or a browser&apos;s ǌopy as cURL”):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The request it sends:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paste a curl command line; it is read as you type.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>At %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>… (%1 bytes in all)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;Not carried out&lt;/b&gt; (RetryLab cannot do these): %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;Ignored&lt;/b&gt; (they do not change what is sent): %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;Not kept in the composer&lt;/b&gt;: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-L: RetryLab follows redirects itself and shows each in the attempt&apos;s record.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No --retry flags: the policy stays as it is.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The --retry flags would change the policy “%1”:&lt;ul&gt;%2&lt;/ul&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>now %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::EmbeddedServer</name>
    <message>
        <source>Your certificate for the HTTPS port could not be used (%1); one was made for it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTPS could not start (%1); the server serves HTTP only.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server&apos;s CA certificate could not be saved for requests to trust: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::EndpointPoliciesDialog</name>
    <message>
        <source>Endpoint policies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>preset %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>user preset %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Path</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Add</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>saved %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Row %1: a path pattern starts with / (got &quot;%2&quot;).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tune the policy to the operation (the Retry pattern): requests whose URL matches a row run under its policy, the first matching row wins, and the others under the policy dock&apos;s. A host takes * and ? as wildcards; a path takes * within a segment, ** across segments and ? for one character (/upload/**); an empty one matches anything. The circuit breaker and the retry budget stay the dock policy&apos;s, shared by every request.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::EnvironmentBar</name>
    <message>
        <source>The environment whose variables fill {{name}} in the request (URL, headers, body)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add, rename or delete environments and their variables</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Environment:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No environment</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::EnvironmentDialog</name>
    <message>
        <source>Keep secret values on disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show secret values</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Environments</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Variable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Secret</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Off: secret values are kept only until RetryLab closes, and typed again the next time. On: they are written to the environments file (plain text, in your data folder, never in a collection or an export).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add variable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove variable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use a variable as {{name}} in the URL, a header or the body.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New environment %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An environment has no name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Two environments are called &quot;%1&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: &quot;%2&quot; is not a variable name (letters, digits, _ - and ., starting with a letter or _).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the variable &quot;%2&quot; is defined twice.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ErrorLogView</name>
    <message>
        <source>Follow newest</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failures</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Final failures</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retried failures</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Successes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show only attempts with this outcome</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Filter: status, cause, reason, URL, label, or #request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Case-insensitive text in any column; &quot;#12&quot; shows request 12 only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scroll to the newest attempt as attempts arrive</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the log as CSV or JSON</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All rows as CSV…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shown rows as CSV…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All rows as JSON…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shown rows as JSON…</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1 of %Ln attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ExportController</name>
    <message>
        <source>JSON report (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CSV, one row per attempt (*.csv)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CSV</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HAR 1.2, for browsers&apos; network panels (*.har)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HAR</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the shown rows</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing to export yet: send a request first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The export was not written: %1. Nothing in the run was lost; try another place.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exported to %1 (%2, %3): attempts %4, requests %5.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>credentials redacted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NOT redacted: the file contains credentials</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests still running: %1; their attempts so far are included.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Older attempts were rebuilt from the log: their response headers and bodies are not included.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>To bound memory only the newest request and response bodies are kept (%1 MiB); older bodies dropped: %2 (empty in the file). Attempts and statistics are complete.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Export run…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save every attempt as a JSON report, CSV or HAR (Ctrl+E)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export run &amp;as</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Redact credentials in exports</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Authorization, cookies, API keys, tokens and passwords are replaced by REDACTED in exports and in &quot;Copy as curl&quot;. Turned on at every start.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ExtractRuleTableModel</name>
    <message>
        <source>JSON pointer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Header</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Regular expression</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. /access_token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. ETag</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. id=(\d+): the first group</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>give the variable a name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not used: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The status needs nothing here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>⚠ not used: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{{%1}} ← the status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{{%1}} ← %2 %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Variable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sets</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The variable the value goes into, used by the next requests as {{name}} (over the environment&apos;s, until another environment is chosen)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The JSON pointer (/data/token), the header&apos;s name or the regular expression (its first group)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::FaultActionModel</name>
    <message>
        <source>The backoff delay after this fault, times this factor (0 to %1). 1: the backoff as it is.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Network fault</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Action</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connection refused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connection reset / closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timeout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Host not found (DNS)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TLS failure</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Broken stream</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Protocol failure</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Other network error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing listens on the port: the server is down or restarting. Usually transient when a service is being redeployed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The peer reset or closed the connection before answering: a busy server or a proxy dropping connections. Usually transient.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No answer within the per-attempt timeout, or the network timed out. The server may be overloaded, and it may still have applied the request.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The name did not resolve. A typo in the host does not fix itself, so giving up is the usual choice.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The TLS handshake or the certificate check failed. Not transient, and never ignored: a retry would only repeat the failure.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The body ended before its announced length: the connection broke in the middle of the response.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bytes that are not HTTP arrived, for example a corrupted packet. The Retry pattern treats such rare, unusual faults as a case for retrying at once.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Any other network error Qt reports.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry after a delay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry immediately</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel (give up)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connectivity or busy faults: wait the policy&apos;s backoff delay, then retry (Retry pattern).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A rare, unusual fault that is unlikely to repeat: the first retry goes out at once, without waiting; later retries wait the backoff delay (Retry pattern).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not transient: report the failure at once instead of retrying (Retry pattern: cancel).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::FaultRulesModel</name>
    <message>
        <source>On</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rule</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What it does</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Matched</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fired</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not applied: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rule %1 (%2): %3</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::FieldMessage</name>
    <message>
        <source>Warning: </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error: </source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::FileOpener</name>
    <message>
        <source>a file the window opens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the scenario has no request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is an observation report, which the window does not show; its verdicts are in the file, as retrylab observe wrote them</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::FolderAuthDialog</name>
    <message>
        <source>Auth of “%1”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests in “%1” whose auth is “No auth” are sent with this; a folder inside may set its own. “No auth” here hands down what the folder around it has.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::FormFieldTableModel</name>
    <message>
        <source>Send this field</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (not readable)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read from disk as each attempt is sent (never held in memory or saved with the request: only its path is). Sent as &quot;%1&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The part&apos;s Content-Type; empty sends none.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only a file&apos;s part carries a Content-Type here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value or file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Content-Type</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::GrpcMethodDialog</name>
    <message>
        <source>gRPC method</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The service&apos;s full name, with its package, as in the .proto file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>every method of the service</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A gRPC client applies a retry policy to the methods its service config names. Which calls is this one for?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Service:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Method:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Export…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Give the service, e.g. pkg.Orders.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a service name: letters, digits and _, in parts joined by dots.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a method name: letters, digits and _ only.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>methodConfig name: {&quot;service&quot;: &quot;%1&quot;}, every method of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>methodConfig name: {&quot;service&quot;: &quot;%1&quot;, &quot;method&quot;: &quot;%2&quot;}, the calls of /%1/%2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::HarImportDialog</name>
    <message>
        <source>Import from %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an unnamed tool</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1: %n request(s), written by %2. Pick one or several (Ctrl or Shift + click).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Its credentials were masked when it was written: values that read REDACTED have to be typed in again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Left out: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Filter by method, URL, status or page</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Method</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Page</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source> (%n attempt(s))</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Also take the run&apos;s policy “%1”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Import</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>&amp;Import %n requests</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::HeaderTableModel</name>
    <message>
        <source>RetryLab adds X-Retry-Request-Id (the same for every attempt of a request) and X-Retry-Attempt (1, 2, …) so that a server can tell a retry from a resend. Untick to send this request without them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a new id for each request (added by RetryLab)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1, 2, 3, … for each attempt (added by RetryLab)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send this header</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 — re-enter the token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This value was not saved (settings are plain text), so it reads REDACTED. Type the credential again, or untick the header; until then Send is blocked.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::HerdCharts</name>
    <message>
        <source>Drag to zoom in, right-click to zoom out.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>millions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>thousands</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Logarithmic scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load over time for</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Calls per run vs clients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Completion time vs clients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Server load over time</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%Ln client(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seconds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>clients</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Server load over time, %Ln client(s) (mean of %1 runs)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>outage</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>virtual time (s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>calls/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time to an answer, 99th percentile, vs clients</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::HerdJob</name>
    <message>
        <source>A simulation is already running.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The simulation stopped without a result.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::HerdParametersForm</name>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>first:last:step (10:190:10), one number, or a list (10,50,100)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs per cell</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Strategies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retry as soon as the answer arrives</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backoff (shared by all strategies)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Random part added by the Google and IAM algorithms: U[0, jitter]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Base</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Multiplier</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Additive jitter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deadline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Network and arrivals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All at once (herd)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Poisson stream</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> /s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delay mean</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delay std. dev.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Arrivals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Arrival rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>503 Service Unavailable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>429 Too Many Requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not sent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clients honour Retry-After</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Service rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Queue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overload answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry-After</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Outage</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Down from</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Up again at</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load chart</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bin width</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seed: &quot;%1&quot; is not a whole number from 0 to 2^64 - 1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slow answers and hedging</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sigma of the lognormal answer time: 0 for none, 1 for a long tail.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The hedging strategy sends a further attempt when none has answered for this long, and at once after a failure.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Median answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tail (sigma)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failing answers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hedged attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hedging delay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each client limits its own rate after 429s (AWS adaptive mode)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>botocore&apos;s adaptive rate limiter in every client: after a throttling answer (429) the client sends no faster than a token bucket whose rate follows a CUBIC curve.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::HistoryReaderWorker</name>
    <message>
        <source>no history is open</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::HttpsPanel</name>
    <message>
        <source>Serve HTTPS too, on port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A second port serves every endpoint over TLS, with a certificate made at each start and signed by a CA made with it; one more port per TLS fault (unknown CA, expired, wrong host, cut handshake, ...). Changing this starts the server again on the same HTTP port.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>any free</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save CA certificate…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the CA that signs the HTTPS port&apos;s certificate (PEM), e.g. for curl --cacert</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Trust this CA in the request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put the server&apos;s CA in the request&apos;s Connection part (Trust CA file). The file is written again at every start, so the request keeps working although the certificates are new each time.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the server&apos;s CA certificate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PEM certificates (*.pem *.crt)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every endpoint of the server, over TLS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>own certificate (PEM)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A PEM file with the certificate the HTTPS port presents, then its chain; empty: a certificate made at each start, signed by a CA made with it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>its key (PEM)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>passphrase</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>For an encrypted key; kept until RetryLab closes, never saved</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start the server again with this certificate (or, with the fields empty, with one made for it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Certificate for the HTTPS port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key of that certificate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTPS could not start: %1. The server runs as before.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server could not start again: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PEM files (*.pem *.crt *.key);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The certificate could not be used: %1. The server runs as before.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The HTTPS port presents a certificate made for it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The HTTPS port presents %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing saved: HTTPS is off.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not saved: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved the CA certificate to %1 (it changes at every start of the server).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TLS faults:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One port per fault of the TLS handshake; the HTTPS port&apos;s handshake script (POST /_control/tls/handshakes) gives its next connections chosen faults too.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ImportController</name>
    <message>
        <source>Imported requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Import request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paste &amp;curl command…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;HAR file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Postman collection…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Undo import</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bring back the request (and policy) the last import replaced</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Save imported requests as a collection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep the requests of the last import in the Collections dock, in their folders</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> at %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot be read%2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1. Nothing was imported.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing was imported; the request and the policy are as they were.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a curl command</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import requests from a HAR file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP Archive (*.har *.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HAR file not imported</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>there is no request RetryLab can send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import requests from a Postman collection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Postman collection v2.1 (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Postman collection not imported</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the collection holds no request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Postman environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Postman environment (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File not opened</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is not a HAR file, a Postman collection (v2.1) or a RetryLab report (JSON)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n imported request(s) saved in the collection &quot;%1&quot;.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Request %1 of %2 from %3 is in the composer: %4.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Imported %1 from %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy was changed too.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Note: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The request that was in the composer had changes that were not sent: File › Import request › Undo import (Ctrl+Alt+Z) brings it back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo import (Ctrl+Alt+Z) brings back the request that was there.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The request and the policy from before the import are back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The request from before the import is back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The pasted curl command cannot be read: %1. File → Import request → Paste curl command shows where.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a curl command pasted into the URL</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ImportedRequestList</name>
    <message>
        <source>&amp;Previous</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Load into request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ne&amp;xt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>When several requests are imported from a HAR file or a Postman collection, the ones not in the composer wait here (File › Import request).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put the previous imported request in the composer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put the next imported request in the composer</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n request(s) imported from %1. One at a time goes into the composer.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::IncidentListModel</name>
    <message>
        <source>ongoing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>hidden</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>yes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Still failing at the end of the window, after %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every check succeeded, but only after failed attempts: the retries hid it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks failed: users saw it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Monitor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Duration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>First error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts / failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hidden or seen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Acknowledged</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::IncidentsView</name>
    <message>
        <source>&amp;Hidden only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Unacknowledged only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>E&amp;xport…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export incidents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CSV files (*.csv);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Filter by monitor, agent or error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Find:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Monitor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All monitors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only the incidents retries hid: every check succeeded after failed attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the incidents shown as CSV</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show in history</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Toggle acknowledged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot be written: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n incident(s) written to %1</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::InsecureBanner</name>
    <message>
        <source>⚠ Certificate errors are IGNORED for %1: the server&apos;s identity is not checked (Request → Connection).</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1This run has %n attempt(s) whose certificate errors were ignored (%2); exports say so.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Ignoring certificate errors lets anyone on the path pose as the server. It is off by default, never saved, and marked in every export while on.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::LastResponseBar</name>
    <message>
        <source>Inspect</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open this attempt in the attempt inspector: headers, body, timing (Ctrl+I). Any bar of the timeline or row of the error log opens there too.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last answer:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2 in %3, %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no answer after %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempt %1 of request #%2: %3 %4</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::LayerCalculator</name>
    <message>
        <source>Layer calculator</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A task with a retry policy that calls another task with one adds a layer of retries (the Retry pattern): every attempt of a layer runs the whole retry sequence of the layer below. Stack the layers outermost first, for example app, SDK, service mesh.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layer 1 (outermost):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layer 2:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layer 3:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layer 4 (innermost):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Probability that one attempt at the server fails (retryably), for the expected figures. The worst case assumes every attempt fails.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An attempt fails with probability:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How long a failing attempt at the server takes (0: it fails at once).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A failing attempt takes:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warn when one user action may send more attempts to the server than this.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warn above (attempts per action):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checked by playing %1 user actions on a virtual clock: %2 ± %3 attempts at the server on average (exact: %4), at most %5.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>⚠ %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::MainWindow</name>
    <message>
        <source>RetryLab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The embedded fault server could not start: %1. Requests to other servers still work; URLs with {server} cannot be sent.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempt inspector</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collections</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open run…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit &amp;URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Tools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Preferences…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fault server &amp;endpoints</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fault server endpoints</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The embedded server answers these paths; {server} in a URL stands for it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About RetryLab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About RetryLab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;RetryLab %1&lt;/b&gt;&lt;/p&gt;&lt;p&gt;See and test how clients retry failed network requests: backoff, jitter, classification, circuit breakers and retry budgets, against real requests.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server scenario (Server tab) has an error: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab — %1 (read-only)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the policy cannot be used: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a custom script</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>with the server scenario %1 (one shared copy)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>with the server scenario %1 (a copy per request)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Server: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Server: not running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a run (JSON report)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab report (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collection run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>+ / - / Home / End</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timeline: zoom in, zoom out, fit, follow the live edge</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keys</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Action</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>History</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every request sent from the composer; double-click one to open it again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Window &amp;guide</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The guide to the window: the policy, the request, the timeline, the tabs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The window guide is missing from this build.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RetryLab window guide</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The request history was not saved: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opened %1 %2 from the history in the composer.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::MessageBar</name>
    <message>
        <source>Details</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::MonitorController</name>
    <message>
        <source>RetryLab monitors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show RetryLab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The monitors&apos; history was not switched: %1. They go on writing %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That check is no longer in the history (retention removed it).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check of %1 at %2 from the monitor history</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The history could not be read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A monitor named “%1” exists already.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“%1” could not be changed: the name “%2” is taken or it is gone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“%1” cannot be checked now: it is paused, a check is running, or the history is not open.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The monitors&apos; history was not switched: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The monitors&apos; history could not be opened: %1. The monitors do not run; choose another history in Tools &gt; Preferences.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>History: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>History: %1 (opened with the first monitor)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The current request cannot be monitored: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a saved request, a folder or a collection in the Collections dock first (View &gt; Collections); its requests become monitors.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep monitoring?</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n monitor(s) are running. Keep monitoring with RetryLab in the tray, or stop them and quit?</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>The answer is kept; Tools &gt; Preferences changes it. The tray icon&apos;s menu shows the window or quits.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Keep monitoring</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Stop and quit</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::MonitorEditDialog</name>
    <message>
        <source>New Monitor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit Monitor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Schedule</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>C&amp;onditions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Method:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;URL:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Paused: no checks until resumed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Headers, body and transport are kept as they were.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check &amp;every:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>as when up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>While &amp;down, every:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The whole check, retries included, ends after this</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check &amp;timeout:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Policy:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> failed checks in a row</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Down &amp;after:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> good checks in a row</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Up a&amp;gain after:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>any the policy calls a success; or 2xx, or 200,204</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S&amp;tatus:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Answer &amp;within:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Body contains:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ok, 200, true</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON value equals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>equals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;JSON at:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>present is enough</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Header value matches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>matches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Header:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not checked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Certificate &amp;valid for:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Current policy (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None: one attempt per check</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preset: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Also kept: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Answer within</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Body contains</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON at</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Header</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Certificate valid for</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Give the monitor a name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Another monitor is called &quot;%1&quot;; choose another name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The method is a word such as GET or POST.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Give the URL to check, such as https://api.example.com/health.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The URL needs http:// or https:// and a host, such as https://api.example.com/health (or {server}/status/200 for the embedded server).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check at most every %1: the interval must be at least that.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check at least every %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The interval while down is between %1 and %2, or none.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The check timeout must be more than 0 s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The check timeout is at most %1.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::MonitorHistoryPage</name>
    <message>
        <source>&amp;Log scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Monitor:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>24 h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>7 d</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>30 d</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The last hour</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The last 24 hours</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The last 7 days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The last 30 days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read the window again, up to now (F5)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Objective</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;What if</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a monitor.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reading…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No checks in this window.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks %1 available (attempts %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 attempts per check</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n incident(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n hidden by retries</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>MTBF %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MTTR %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>(%n check(s) in maintenance, not counted)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>(before %1 from aggregates: no incidents or percentiles there)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::MonitorHistoryView</name>
    <message>
        <source>Pending</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Down</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Monitor history</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempt latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed check</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retried check</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Incident</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hidden incident</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Maintenance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No checks in this window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>hidden</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 at %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>maintenance (not counted)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>succeeded after retries</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: check %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts: %1 (%2 failed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check latency: %1 (backoff included)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempt latency: %1 to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ongoing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hidden incident from %1, %2: retries hid %3 failed attempts of %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Incident from %1, %2: %3 failed attempts of %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last error: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Maintenance from %1 to %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::MonitorHost</name>
    <message>
        <source>The monitors are not saved: the file holding them could not be read (%1); fix or move it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot be removed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is down</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is up again</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n failed attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1: the retries hid a fault</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n check(s) succeeded only after %1; the first error: %2</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::MonitorListModel</name>
    <message>
        <source>%1 %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pending</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Down</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No checks in this window</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source> (%n check(s) in maintenance not counted)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Median duration of the last %n check(s), retries included</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of the last %n check(s) failed</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>paused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>State</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recent checks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks 24 h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts 24 h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks 30 d</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts 30 d</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next check</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The last %1 checks, newest on the right; a check is split by its attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Share of checks that succeeded, retries included (what users of a retrying client see)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Share of single attempts that succeeded (what the retries hid)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recent check durations; the text is their median</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n attempt(s) succeeded</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n check(s) succeeded</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::MonitorWorker</name>
    <message>
        <source>the monitors have stopped</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::MonitorsView</name>
    <message>
        <source>Edit monitor %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Monitors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Filter monitors by name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Filter by name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No monitors yet. A monitor sends a request every interval and keeps how each check went.

Add one from the request you are composing (%1), from a request saved in a collection (%2), or from a monitors file (%3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add from &amp;Current Request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Monitor the request being composed, under its policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add from C&amp;ollection…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Monitor a request saved in a collection, or every request of a folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add from Monitors &amp;File…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add the monitors of a monitors file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Edit…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit the monitor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop checking</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the monitor (undo brings it back)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check &amp;Now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run a check now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show &amp;History</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the monitor&apos;s checks, incidents and availability</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Filter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Filter the monitors by name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add Monitor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Add</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add monitors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add Monitors from File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Monitors files (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add monitor %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Add %n monitor(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Delete monitor %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Delete %n monitor(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1. %2 brings it back.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ObjectivePanel</name>
    <message>
        <source>No objective set for this monitor. Give it one in the monitors file, such as &quot;objective&quot;: 0.999, to see its error budget and burn rates.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error budget left</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Target:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Availability:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error budget:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Burn rate, long window:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Burn rate, short window:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Alert:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>last %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: no checks counted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2× (%3 of %4 checks failed): %5 the threshold of %6×</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>over</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>under</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of checks over %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2 of %3 checks failed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no checks counted in the last %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 left: %2 of %3 allowed failed checks spent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overspent by %1: %2 failed checks of %3 allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown: no checks counted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Alerting: both windows burn the budget faster than %1×</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not alerting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Part of the window was counted from per-minute and per-hour aggregates.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::OpenedRun</name>
    <message>
        <source>&amp;Close, back to the live run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the live run again; the file is not changed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> at %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot be opened as a run%2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run that was open is still shown.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The current run is unchanged.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run not opened</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an unknown date</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source> (and %n more)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>&lt;b&gt;Opened from %1&lt;/b&gt;, run of %2, policy %3: &lt;b&gt;read-only&lt;/b&gt;. %4 Send, Batch and Repeat go back to the live run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Credentials in it are masked.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>It holds credentials (written with redaction off).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an unknown time</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Replay of the run of %1&lt;/b&gt;, %n request(s): &lt;b&gt;read-only&lt;/b&gt;. Send, Batch and Repeat go back to the live run.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;: &lt;b&gt;read-only&lt;/b&gt;. Send, Batch and Repeat go back to the live run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>replay of the run of %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::PolicyActions</name>
    <message>
        <source>&amp;Policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Import policy…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Export policy…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export as &amp;gRPC service config…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Endpoint &amp;policies…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Layer calculator…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Compare policies…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import a policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy JSON (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy JSON (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the policy as a gRPC service config</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC service config (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not export: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> What gRPC does differently: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>every method of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exported %1 (methodConfig.retryPolicy for %2; load it as the channel&apos;s service config).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>E&amp;xport…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exported %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare policies: the same requests against the same faults under two policies, side by side, with the attempts each sent</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::PolicyEditor</name>
    <message>
        <source>Memorystore for Redis and Cloud Storage: wait min(2^n + random_number_milliseconds, maximum_backoff), the random part at most 1000 ms and drawn again for every retry. Once the cap is reached the client keeps retrying at that interval, up to the retry limit, but never indefinitely.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>IAM: wait min(2^n + random-fraction, maximum-backoff) seconds, random-fraction at most 1 s and different for every retry; stop retrying after deadline seconds (300 s for work that is not time-critical, such as a CI/CD pipeline).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No jitter: clients that failed together retry together, in synchronised waves. Useful as the baseline that shows why jitter matters.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AWS architecture blog, AWS SDK standard mode: a uniform draw between 0 and the exponential term; spreads clients out the most.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AWS architecture blog: keeps half of the exponential term and draws the other half, so no retry comes too early.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AWS architecture blog: each delay is drawn between the base and three times the previous delay.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC (f = 20 %) and cenkalti/backoff: the exponential term times a random factor around 1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Polly and the Azure Retry pattern: the same delay before every retry.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The Azure Retry pattern&apos;s incremental delay: it grows by the base with every retry.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The Azure Retry pattern: for a rare, unusual fault (a corrupted packet), retry at once.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backoff</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What to retry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Breaker &amp;&amp; budget</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Details</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delay before retry n</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Formula</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Limits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A person waits (interactive)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A person waits for the answer. Not part of the policy: with it, the editor warns when the policy may keep a person waiting for more than 10 s before it gives up.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP responses</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. 429, 500-599</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Network faults</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The Retry pattern&apos;s three answers to a fault: cancel when it is not transient, retry immediately when it is rare and unusual, retry after a delay for connectivity and busy faults.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Circuit breaker (per host)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry budget (all requests)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AWS SDK standard mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC retry throttling</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: delay(n) = %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No budget: retries are limited per request only, so a burst of failing requests multiplies the load by the number of attempts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AWS SDK standard mode: a shared bucket of tokens pays for retries; successes refill it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gRPC retry throttling: failures drain the tokens, successes refill them; no retries while at or below half.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Closed → open after the failures below; open → half-open after the open time.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Off: requests to a failing host keep going out (the fields below are used once it is on).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 errors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 warning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 warnings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy cannot be used: %1 and %2, marked at the fields.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy cannot be used: %1, marked at the field.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usable, with %1 marked at the fields.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy is usable.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none, e.g. 429=2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>condition %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none; one a line, e.g.
json /status = &quot;PENDING&quot;
header X-Retry = yes
body try again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rate limiter (this client)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AWS SDK adaptive mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hedging (parallel attempts)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::PolicyExportDialog</name>
    <message>
        <source>A complete &amp;program that requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Save…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Format:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What the format cannot express:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A program needs an http:// or https:// URL; the snippet is shown instead.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing dropped: the format expresses the whole policy.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copied to the clipboard.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not save: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the policy as %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (*.%2);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::PolicyStackChooser</name>
    <message>
        <source>current policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Current policy: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>preset %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preset: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(none)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::PostmanImportDialog</name>
    <message>
        <source>Import from %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none: only the collection&apos;s own variables</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>C&amp;hoose…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;None</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Import</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Environment:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The environment %1 cannot be read: %2. The requests keep the variables they had.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The collection %1 cannot be read again: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n value(s) from the environment “%1”.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>“%1”: %n request(s). Pick requests or whole folders (Ctrl or Shift + click).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>(unnamed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1
Left as written: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every variable is resolved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not resolved, left as written: %1. An environment that defines them resolves them; otherwise type the values in after importing.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>&amp;Import %n requests</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::PreferencesDialog</name>
    <message>
        <source>Preferences</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connection of new requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Monitors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A SQLite file, or postgresql://USER@HOST:PORT/DB to share one history between monitor agents. Empty: the default file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;History:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ask</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep monitoring, with the tray icon</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop monitoring and quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Closing the window:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No history is open.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In use: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the folder %1 does not exist</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is a folder; name a file in it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Monitor history</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SQLite histories (*.sqlite *.db);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::PresentationController</name>
    <message>
        <source>&amp;Presentation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A larger font, thicker bars and the timeline alone, full screen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Replay the Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play the finished run (or the opened one) again at 0.1× to 10×; the views follow the playhead</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export pic&amp;ture of the tab…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The tab on top as a PNG picture or an SVG drawing, for slides (Ctrl+Shift+E)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PNG picture (*.png)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SVG drawing, sharp at any size (*.svg)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export picture of the tab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrote %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run is still going: replay it once it has finished (or after Stop).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing to replay yet: send a request first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Reset layout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replay</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Wrote %1: the whole run, %n request(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source> (the first %1 of %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, at print resolution</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PNG picture of the whole run (*.png)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SVG drawing of the whole run (*.svg)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PNG picture of the time and lanes in view (*.png)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SVG drawing of the time and lanes in view (*.svg)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrote %1: requests %2 to %3 of %4, from %5 to %6</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::PresetBar</name>
    <message>
        <source>&amp;Preset:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Custom policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load a built-in preset (from the seed documents and common clients) or one of your own. Choosing the same entry again discards your edits.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(modified)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The fields differ from the chosen preset.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save as…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the current policy as one of your own presets.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overwrite</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the edits over the preset of yours they were made to.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the chosen preset of yours.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read a policy from a JSON file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the policy to a JSON file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Presets of your own need the application&apos;s settings.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fix the errors first: an exported policy must be readable again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Source: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (yours)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One of your presets.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fix the retryable statuses first: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Yours, made from the preset &quot;%1&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your edit of &quot;%1&quot; (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved as your preset &quot;%1&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only presets of your own can be overwritten; use Save as.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is no preset of yours called &quot;%1&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deleted your preset &quot;%1&quot;; its policy is still in the editor.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not import: %1. The policy in the editor is unchanged.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Imported &quot;%1&quot; from %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy has errors; fix them before exporting, so that the file can be read again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not export: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exported to %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>My %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save preset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name of your preset:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replace preset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>You already have a preset called &quot;%1&quot;. Replace it?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete preset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete your preset &quot;%1&quot;? The policy stays in the editor.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policies (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export policy</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ProxyView</name>
    <message>
        <source>Add</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep Host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All on</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send the client&apos;s Host header on; by default it names the upstream.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none: the system&apos;s CAs only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A PEM file of CA certificates trusted for an https upstream besides the system&apos;s.
Certificate errors are never ignored: the client gets 502 with the reason.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>any free port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The port on 127.0.0.1 that clients are pointed at (the proxy listens on loopback only).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a fault rule</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove the selected fault rule</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The clients seen through this proxy, their logical requests, inferred retry policies and verdicts appear here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proxies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Upstream</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CA bundle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fault rules (the next request sees a change)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lanes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>● %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot start: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a proxy to put RetryLab between a client and a real service.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (the new port applies at the next start)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load fault rules</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fault rules (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 was not loaded: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save fault rules</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fault rules (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot save %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One fault per rule, written as in retrylab proxy --fault: status=503 retry-after=2, latency=200,
latency=50-300, latency=lognormal:200:0.5 at=response, bandwidth=64k, reset, reset=after,
reset=unsent, empty, stall, cut=512, corrupt; with method=, path=/api/**, header=Name:glob,
p=0.3, every=3, first=2, from=S to=S. Double-click a rule to edit it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A folder to record every answer of the upstream into (status, headers, body, timing;
credentials masked), from the next start on. Serve it back offline from the Server
tab (Replay a recording…) or with retrylab serve --replay.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the folder to record answers into</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Record answers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Record answers into</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Recording answers into %1: %2 so far.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Not recorded: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (recording changes at the next start)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forward proxy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A forward proxy instead: no upstream; clients point HTTP_PROXY and HTTPS_PROXY (or
their proxy option) at it and reach every service through it. Rules match host= too;
a CONNECT tunnel&apos;s faults act on the connection. Applies at the next start.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>forward proxy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Point clients at it: HTTP_PROXY=%1 HTTPS_PROXY=%1 (a forward proxy).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Point the client at %1 (-&gt; %2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 Seed %2. Switch faults from a script: curl -X POST -H &apos;Content-Type: application/json&apos; &apos;%3?enabled=false&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy the address clients are pointed at (the proxy&apos;s URL) to the clipboard</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The real service: an http or https URL, or {server} for RetryLab&apos;s own fault server (the
default; it follows the server to whatever port it has); a path is put in front of every
request&apos;s path.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its saved upstream %1 no longer answers; it now forwards to RetryLab&apos;s own fault server ({server}).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped. %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ReadModifyWriteForm</name>
    <message>
        <source>Read, modify and write the resource (optimistic concurrency)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Instead of the method and body: read the resource, add the increment to an integer in it and write it back under the version read. When another writer got there first (409 ABORTED, or 412 on a stale If-Match) the whole sequence starts again after the policy&apos;s delay, as Cloud IAM asks of its get/set policy calls.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A JSON pointer to the integer in the document read: /value, /spec/replicas, /items/0/count.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ETag header, sent back as If-Match</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a field of the body, sent back in it:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request&apos;s URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where the write goes, when not to the URL read: {server} and {id} are expanded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none: the document itself</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A member name: the write sends {&quot;policy&quot;: document}, as IAM&apos;s setIamPolicy takes it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Like /occ</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GET {&quot;value&quot;: n} and its ETag, PUT with If-Match: RetryLab&apos;s own /occ/{name} endpoint.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Like an IAM policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fill in:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add to the value:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value at:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Version:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read with:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write with:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Envelope:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>IAM&apos;s shape: the read is a POST to the request&apos;s URL (...:getIamPolicy), the version is the document&apos;s &quot;etag&quot;, the write is a POST of {&quot;policy&quot;: document} (give its URL, ...:setIamPolicy); a stale etag is answered 409 ABORTED and the whole sequence restarts.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ReplayBar</name>
    <message>
        <source>How fast the run plays back: 0.1× narrates a five-second run in fifty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1×</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where the replay is; drag to show the run as it was at that moment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Spee&amp;d:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pa&amp;use</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Play</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pause the replay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play the run again at the chosen speed, from where the slider is (from the start when it is at the end)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run time at the playhead. Stretches of more than a second where no request was running are not played: the replay jumps to just before the next attempt.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, %1 idle skipped</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::RequestComposer</name>
    <message>
        <source>503 three times, then 200 (the default)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>429 with Retry-After: 1 s twice, then 200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>flaky: each answer is 503 with probability 30 % (at most 5 times)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>always 200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>always 500: fails for good</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>404: not transient, never retried</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>200 after 1.5 s (try a short per-attempt timeout)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>connection reset before the answer (Qt resends once on its own)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the body stops halfway</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>never answers: the per-attempt timeout decides</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rate limit: beyond 2 per second, 429 with Retry-After</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show credentials</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Safe to repeat (idempotent)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Own per-attempt timeout:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send &amp;batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Repeat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The HTTP method. POST and PATCH are not retried unless marked idempotent (Options) or sent with an Idempotency-Key header.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{server}/status/200 or https://example.org/path</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;The URL; the list holds recent ones.&lt;/p&gt;&lt;p&gt;&lt;b&gt;{server}&lt;/b&gt; is the embedded fault server (its port changes at every start), &lt;b&gt;{id}&lt;/b&gt; a new key for every request, so that &lt;tt&gt;/fail/3?key={id}&lt;/tt&gt; fails three times for each request sent. Both also work in header values and the body.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop repeating and cancel every request (Esc)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Endpoints</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>URLs of the embedded fault server that fail in different ways</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a header row</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove the selected header rows</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the values of Authorization, cookies, API keys and tokens on screen. They are still redacted in exports and are never saved in the settings.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>You vouch that sending this request twice does no harm. Without it, POST and PATCH are not retried: the first attempt may have been applied although its answer was lost.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cut each attempt after this long, instead of the policy&apos;s per-attempt timeout. Separate from the policy&apos;s total deadline.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One URL per line, e.g. {server}/status/200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Alternative services, tried in order once the policy gives up on the URL (its attempts used up, its deadline passed, a fault it does not retry, the circuit open, the retry budget spent): one attempt each, at once, until one succeeds. Their attempts show on the request&apos;s lane, marked as fallbacks. At most %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Logical requests sent by Send batch (Ctrl+Shift+Return)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> at once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts on the wire at once, for every send; the others wait in a queue (the wait is recorded). A request sleeping before its next retry holds no slot.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Repeat (Ctrl+R) sends one request now and one more every this long, until Stop (Esc).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fresh for each send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The seed of the jitter. Empty: every send, batch or repeat draws a fresh one, shown in the status bar and the exports. A number: the sends draw exactly the delays of the run that had this seed, to replay it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replay last</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put the seed of the last send here, so that the next send draws the same delays.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch size:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Concurrency:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Repeat every:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In flight: %1 · running: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · repeating, sent: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put the seed of the last send (%1) here, so that the next send draws the same delays.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>batch %1/%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 requests of the batch finished, %3 of them succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connection: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>re-enter the value of %1: it was not saved and reads REDACTED (or untick the header).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The per-attempt timeout must be longer than 0 s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not retried: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retried as the policy says: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot send: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 will not be retried unless it is marked safe to repeat or carries an Idempotency-Key (see Options).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sends to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1

The next request, with {server} and {id} filled in; every request gets a new {id}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing can be sent yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>

Cannot send: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send one request (Ctrl+Return)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send a batch of %1 requests, at most %2 attempts on the wire at once (Ctrl+Shift+Return)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send one request every %1 until Stop (Ctrl+R)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Otherwise the policy&apos;s: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Headers (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Headers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Options</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch &amp;&amp; repeat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connection ⚠ insecure</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connection ⚠</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fallbacks (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fallbacks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read-modify-write ✓</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read-modify-write</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The Read-modify-write tab sets the methods of its read and write.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch ×%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Repeating…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Repeat every %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>404: retried by this policy (eventual consistency), always 404</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>eventually consistent: PUT creates it, then GET answers 404 for 1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the faults the policy retries; or e.g. 503, 5xx, timeout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Which faults send the request to its fallbacks: HTTP statuses (503), classes of them (5xx) or network faults (%1), separated by commas. Empty: the faults the policy retries. A request that may not be repeated never goes to a fallback.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fall back on:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The list applies once there is a fallback URL above.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Falls back after %1 only, in place of the faults the policy retries; a request that may not be repeated still never does.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ⚠</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> ⚠ %1 not used</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send one request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Poll until done (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send starts or reads a long-running operation and asks again after each wait of the polling policy until its answer says &quot;done&quot;: true (Google&apos;s operations.get, 1 s x1.5 up to 45 s). Each poll is a lane of its own, its retries inside it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Auth: re-enter the secrets that read REDACTED: they were not saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Body: re-enter the value of %1: it was not saved and reads REDACTED.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::RequestHistoryModel</name>
    <message>
        <source>%1 %2
sent %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
Its body was larger than %1 KiB and is not kept.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
Double-click or press Enter to open it in the composer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RMW</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>batch of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>repeat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::RequestHistoryView</name>
    <message>
        <source>&amp;Open in composer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear history</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search by URL, method or time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put the selected request back into the composer, as it was sent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forget every request of the history</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every request you send from the composer appears here: search them, and double-click one to open it again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No request of the history matches &quot;%1&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear the request history</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Forget all %n request(s) of the history?</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::RequestRunner</name>
    <message>
        <source>The server scenario needs the embedded server, which is not running.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server scenario needs the embedded server, which is not running: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server did not take the scenario: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing to send with.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>batch %1/%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sent %1 of %2 requests: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>repeat %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Repeating stopped (requests sent: %1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An operation is being polled already; stop it first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>operation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>poll %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::RunActions</name>
    <message>
        <source>C&amp;lear run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Copy as curl</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy as &amp;HAR entry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel what is running and forget the run&apos;s attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not sent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not sent: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not repeating</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not repeating: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing copied: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server scenario is not part of it: it needs an X-Retry-Test-Id of its own.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copied a curl command to the clipboard.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copied a curl command to the clipboard, credentials redacted.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copied a curl command to the clipboard, WITH credentials.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copied a HAR entry to the clipboard (credentials redacted).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copied a HAR entry to the clipboard, WITH credentials.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not sent: no polling policy &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::SchedulePreviewChart</name>
    <message>
        <source>Delays jitter can produce</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sampled schedules</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waited so far, fastest</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>slowest</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deadline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry index n (0 = first retry)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Scale:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Linear</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Logarithmic</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Automatic picks a logarithmic delay axis when the delays span more than a factor of 50, so that the small first delays do not vanish into the floor.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The sampled schedules come from generators seeded with this number and the next ones, so the same seed always draws the same schedules.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Re-roll</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Draw other sampled schedules with a new seed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No retries: the policy makes a single attempt.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Showing the first %1 of %2 retries.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only the deadline limits the retries, and more than %1 fit in it; showing the first %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only the deadline limits the retries: showing them until the fastest schedule crosses it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No retries shown: the policy has neither an attempt limit nor a deadline.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retries that fit in the deadline at best: %1; then the client gives up instead of sleeping past it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every delay is 0, which a logarithmic axis cannot show; the axis stays linear.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delay before retry (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waited so far (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waited so far adds up the delays; the attempts themselves take time on top.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy has errors (see the editor); the chart shows what its numbers would do.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sampled schedules (seed %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waited so far, fastest and slowest (right axis)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deadline (right axis)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not even the first retry fits in the %1 deadline.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hedging is on: a further attempt goes out every %1 while none has answered, %2 in all, the next at once after an answer the policy would retry; the delays charted here are not used.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ServerLogModel</name>
    <message>
        <source>#</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Method</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Target</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Script step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Action</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Duration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Detail</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server&apos;s number for the request, counted since it started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The scripted test (X-Retry-Test-Id) and the step of it that answered</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>X-Retry-Attempt as the client sent it; &quot;resent&quot; when its HTTP library sent the same attempt again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What the server did: respond, reset, empty, stall, broken-stream, garbage, drip, ...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (steps used up)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 step %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (resent)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The client sent this attempt again on its own (its HTTP library resends when a connection closes before the status line); the script gave it the same step.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::ServerView</name>
    <message>
        <source>the repeat count must be from 1 to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;One step per line; each request with the script&apos;s X-Retry-Test-Id gets the next step. Once the steps are used up, requests are answered by their URL again. Lines starting with # are comments.&lt;/p&gt;&lt;table&gt;%1&lt;/table&gt;&lt;p&gt;Any step may end in *K to repeat it K times: &lt;tt&gt;reset*4&lt;/tt&gt;.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Follow newest</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy the server&apos;s URL, e.g. for curl or a browser</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reset server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Make the server forget /fail keys, scripts, rate limits, resources and its log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Custom script</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No script: requests are answered by their URL.
One step per line, e.g.
return-503*3
return-200</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Insert a step…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each request gets its own copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every logical request starts the script from its first step (a new scripted test per request, selected by its X-Retry-Test-Id header)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All requests share one copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One scripted test for all requests: its steps are used in the order attempts arrive, like one flaky server seen by many clients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Restart</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The next request starts a fresh shared copy from the first step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scenario for the next sends</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Empty this list (the server keeps its own log until it is reset)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What the server received</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Embedded fault server: &lt;b&gt;%1&lt;/b&gt; (loopback only). &lt;tt&gt;{server}&lt;/tt&gt; in a URL stands for it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Embedded fault server: not running.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The embedded server is not running; requests to other servers still work.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The embedded server could not start: %1. Requests to other servers still work.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Line %1 (&quot;%2&quot;): %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your own steps (see the tooltip of the script for the steps).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1. The scenario is not used until this is fixed; nothing can be sent meanwhile.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No script in force: the server answers by each request&apos;s URL.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In force: every request gets its own copy of the script (a new X-Retry-Test-Id each); steps: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In force: the next request starts one copy of the script, shared by all requests; steps: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In force: shared copy %1, %2 of %3 steps used%4.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; further requests are answered by their URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In force: the server forgot the shared copy; the next request starts a new one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The edited script has an error; still in force: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests shown: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (older ones dropped: %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replay a recording…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Serve a recording made by the Proxy tab (Record answers) or retrylab proxy --record,
offline, on a second port: each request gets the answer recorded for it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replay a recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not replayed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replay of %1 (%2 recorded answers) on %3: answers join the log below, marked replayed or not-recorded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop replay</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::Settings</name>
    <message>
        <source>The setting &quot;%1&quot; holds %2 instead of %3; the default is used.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it holds %1 instead of JSON text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is not valid JSON (%1 at offset %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is not a JSON object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The saved %1 could not be read (%2); the default is used.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A field of the saved %1 could not be read and has its default: %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a policy in JSON</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The saved policy could not be used (%1); the default policy is used instead.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your saved preset number %1 could not be read (%2); it is left out of the list.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>binary data</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a list of URLs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A damaged recent URL (&quot;%1&quot;) was left out.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The default connection settings could not be read (%1); the defaults are used.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The saved request could not be read (%1); the default request is used.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The saved server scenario could not be read (%1); the server answers by the URL instead.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>server scenario</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The saved endpoint policies could not be read (%1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved endpoint policy %1 was left out: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The saved fault proxies could not be read (%1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved fault proxy %1 was left out: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The saved herd simulator settings could not be read (%1); the defaults are used.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A field of the saved herd simulator settings could not be used and has its default: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The settings file %1 cannot be read (%2); default settings are used and changes may not be saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is not in the settings format</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it contains binary data</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is not UTF-8 text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The settings file %1 is still damaged (%2). Settings that could be read are kept, the rest use their defaults; the original file is kept at %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The settings file %1 is damaged (%2). Settings that could be read are kept, the rest use their defaults; the original file was copied to %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The settings file %1 is damaged (%2) and could not be copied aside. Settings that could be read are kept, the rest use their defaults.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot write the settings file %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A preset needs a name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is the name of a built-in preset; choose another name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy has errors and cannot be saved as a preset:
%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is not a JSON list</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::SimulatorView</name>
    <message>
        <source>Choose a model and press Run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A simulation is already running.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelling...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Simulating %L1 runs...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%p% (%L1 of %L2 runs)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%p%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled after %L1 of %L2 runs; the charts still show the previous results.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%L1 runs, %L2 simulated events, in %3.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::StatisticsView</name>
    <message>
        <source>Latest run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All runs since Clear</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What the figures and charts count: the latest run (the requests sent since the last moment nothing was running), every run since the last Clear, or one run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Count:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Success rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry amplification</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request latency p50 / p90 / p99</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempt latency p50 / p90 / p99</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed attempts / requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Circuit breakers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry budget</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From the first attempt&apos;s start to the result, nearest-rank percentiles; cancelled requests left out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One attempt on the wire, nearest-rank percentiles</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts made by finished requests / finished requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Succeeded / finished requests; a request cancelled by the user did not succeed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts that failed (retried or not) / requests that ended without success (cancelled ones left out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts per request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latency percentiles</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Errors over time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request outcomes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Whole request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Single attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>milliseconds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ms (log)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seconds since the run started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run %1: 1 request at %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run %1: %2 requests from %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 done, %2 running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2 in flight)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1×</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each request reached the server %1 times: %2 % extra load.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>all closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not limited</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1+</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seconds since the session started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>other</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Errors per %1, by cause</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::StatusBarPresenter</name>
    <message>
        <source>closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OPEN</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>half-open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The circuit breaker of each host the requests went to</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens left in the retry budget shared by all requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts on the wire now, and logical requests not finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The embedded fault server; {server} in a URL stands for it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The last send drew its jitter from the fresh seed %1. To replay it, put %1 in the composer&apos;s Seed field (Batch tab, Replay last).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The last send drew its jitter from the seed %1 given in the composer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In flight: %1 · running: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Circuit breaker: off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Circuit breakers: no host yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Circuit breakers: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (+%1 more hosts)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry budget: off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry budget: %1 / %2 tokens</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::StorageConformanceModel</name>
    <message>
        <source>This case does not name %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>success</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failure</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expect %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running…</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>✓ pass, %1 (%n attempt(s))</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>✗ FAIL (%n attempt(s))</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Case %1, %2
Instructions: %3
Precondition provided: %4; expected: %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>yes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::StorageConformanceView</name>
    <message>
        <source>Run cases</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play every case against a fault server of its own (about half a minute: some cases stall for 10 s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a cell to see the case, its instructions and what happened.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n method(s) of the file are not played: the fault server does not serve them (hover for why).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Not run: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The cases cannot be read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Playing %1 runs of Google&apos;s Cloud Storage retry cases under %2…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 runs as the cases expect, under %3 (waits compressed, timeouts as the policy says). Cases: %4.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 runs of Google&apos;s Cloud Storage retry cases (%2), each instruction list against each method the fault server serves, with and without preconditions as the case says. Run them under %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expected: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>success</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failure</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::TimelineView</name>
    <message>
        <source>at a fallback endpoint (band on top)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>planned delay (dashed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>actual gap (solid)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zoom out (-, Ctrl+wheel)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zoom in (+, Ctrl+wheel)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the selected request&apos;s run, or the latest; again, the whole session (Home)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Live</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Follow the newest attempts (End)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Result</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Why</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Took</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>waiting to retry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reason</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>started at +%1, </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running for %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>took %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, queued %1 before</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, first byte after %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delay before</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>planned %1, timer gave %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry-After</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next delay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backoff before attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Planned delay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timer gave</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gap on the axis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Queued for a slot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry planned in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts left</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No requests yet. Send one to see its attempts here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hedging</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the answer the request kept</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sent while an earlier attempt was still in flight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>hedged: side by side, kept one outlined</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Auth</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of it went to auth first (a token fetched or a challenge answered; hatched)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>▼ 1 new request below</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>▼ %1 new requests below</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fitted %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1. Fit shows the selected request&apos;s run, or the latest; again, the whole session (Home)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the run of request #%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the latest run, request #%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the latest run, requests #%1 to #%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>the whole session, %n request(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::TimingWaterfall</name>
    <message>
        <source>Queued</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for a free slot (the concurrency limit) before the attempt started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Blocked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connect</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sending the request on a connection that was already open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wait</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for the response&apos;s first byte</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Receive</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From the first byte to the end of the attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No timing: the attempt never started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 (from %3 to %4 ms of the attempt)
%5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>DNS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The name lookup RetryLab made before handing the request to Qt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Until the socket started to connect (Qt&apos;s own queue)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connecting: TCP, and the TLS handshake over HTTPS (Qt reports no instant in between); in a record without the lookup&apos;s times, the lookup and the sending too</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::TransportController</name>
    <message>
        <source>The request now trusts the embedded server&apos;s CA (%1) besides the system&apos;s CAs; its HTTPS URLs are on the Server tab.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::TransportForm</name>
    <message>
        <source>The passphrase and the proxy password are kept until RetryLab closes and are never saved. Ignoring certificate errors is never saved either: it is off at every start.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use defaults</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put in the default connection settings of Preferences (Tools → Preferences)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PEM files (*.pem *.crt *.cer *.key);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>only the system&apos;s CAs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A PEM file of CA certificates trusted for this request in addition to the system&apos;s, e.g. the embedded server&apos;s CA (Server tab).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The client certificate: a PEM file (with its key, or the key in the next field), or a PKCS#12 file (.p12, .pfx) holding both.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in the certificate&apos;s file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The client certificate&apos;s private key (PEM), when it is not in the certificate&apos;s file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>for an encrypted key or PKCS#12</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kept until RetryLab closes; never saved, never exported.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Qt&apos;s default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TLS 1.2 or newer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TLS 1.3 only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The oldest TLS version the request accepts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accept this host&apos;s certificate even when it cannot be verified (unknown CA, expired, another name). Anyone on the path could then pose as the server. Off by default, never saved, and said in red in the window and in every export while on.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TLS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Trust CA file:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CA certificates to trust</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client certificate:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client certificate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Certificates (*.pem *.crt *.cer *.p12 *.pfx);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client key:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Passphrase:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TLS version:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Certificate:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None (direct)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System proxy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP proxy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SOCKS5 proxy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None goes straight to the server whatever the environment says; System follows the system&apos;s settings (http_proxy and friends on Linux).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>user (optional)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>password</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kept until RetryLab closes; never saved, redacted in logs and exports.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP/1.1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP/2 if offered (ALPN)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP/2 prior knowledge (h2c)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;HTTP/2 if offered&lt;/b&gt;: over TLS the server may choose HTTP/2 during the handshake (ALPN), else HTTP/1.1.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Prior knowledge&lt;/b&gt;: HTTP/2 straight away, also in cleartext (http://).&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proxy and HTTP</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proxy:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Address:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Login:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP version:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Certificate errors of %1 are no longer ignored: the URL now goes to %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New requests start from these settings. Passphrases and passwords are not saved, and ignoring certificate errors cannot be a default: it is chosen per request and host, in the request&apos;s Connection part.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A PKCS#12 file holds its key: only its passphrase is needed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ignore certificate errors for this host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ignore certificate errors for %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>⚠ Warning: certificate errors of %1 are ignored. Its identity is not checked, so anyone on the path could pose as it. Not saved: off at the next start.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time allowed to connect (name lookup, TCP, TLS), apart from the per-attempt timeout, as curl&apos;s --connect-timeout. A connection not ready by then ends the attempt as a connection failure: the request was not sent.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>IPv4 or IPv6</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>IPv4 only (-4)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>IPv6 only (-6)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep connections open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Off: every attempt sends Connection: close and opens a connection of its own (curl&apos;s --no-keepalive).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HOST:PORT:ADDRESS, ...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>As curl&apos;s --resolve: connect to ADDRESS for HOST and PORT. The URL, the Host header and the certificate check keep HOST. Several entries separated by spaces.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connect timeout:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>IP version:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resolve:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resolve: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::VerdictPanel</name>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not seen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>yes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Inferred</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Evidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rule and evidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Field</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This client</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Same</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Make a policy like this client</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the inferred policy in the policy dock, to run it in the executor and the herd simulator</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a client to see how it retries.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No client selected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Closest preset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pass</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fail</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not observed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1
source: %2
%3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>algorithm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>growth</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>base</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>multiplier</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not reached</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>jitter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>deadline %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>honours Retry-After</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retries POST/PATCH without a key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retries permanent errors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retries after a reset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retries after a stall</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retries in waves</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Closest preset: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Closest preset: none until the retries show a policy</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::WhatIfPanel</name>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Replay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Policy:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replay the recorded checks of this window under the chosen policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy dock&apos;s (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None (one attempt per check)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preset: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replaying the history…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The replay failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a policy and press Replay to estimate how this window&apos;s checks would have gone under it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recorded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Estimate: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Availability of checks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts per check</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Incidents seen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Incidents hidden by retries</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks counted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2 unknown)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Estimate, not a measurement: each counterfactual attempt at time t takes the outcome and duration of the recorded attempt nearest t; a check with an attempt farther than %1 from every recorded one is unknown and left out. Retry budgets, circuit breakers and Retry-After are not replayed.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryLab::Ui::WorkspaceTabs</name>
    <message>
        <source>Timeline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Statistics</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proxy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Conformance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Herd simulator</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Monitors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>History</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Incidents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (Alt+%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No client seen yet. Turn on &quot;Observe clients&quot; and point a client at the server: its requests and their attempts appear here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No request through the proxy yet. Point a client at the proxy to see its attempts here.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>monitor</name>
    <message numerus="yes">
        <source>alert delivered to %1 after %n attempt(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
</TS>
