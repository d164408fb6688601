// Measures the retry executor on real loopback HTTP, with the fault server in a
// child process of its own (this program started with --serve), so that client
// and server each have a process and every memory figure is the client's alone.
//
//   overhead  requests per second through the executor against raw
//             QNetworkAccessManager, every first attempt succeeding, at the same
//             concurrency with the same number of managers (so the same number of
//             connections), at 6, 48 and 256 in flight: the executor given all
//             requests at once (it queues them), fed one more as each ends (as
//             the raw client is), and fed without its two X-Retry headers (the
//             raw client's bytes on the wire); the order of the four turns every
//             round to cancel drift; the CPU per request of both processes (user
//             and system) and how many cores they kept busy; and the heap each
//             side holds per request in flight
//   timers    1,000 concurrent requests, each failing twice: actual minus planned
//             backoff of every retry, with the default policy (Google's truncated
//             exponential), with full jitter over one second, and without jitter
//             (all of them wake at once: the thundering herd)
//   scale     10,000 concurrent logical requests (--scale-requests N), each failing
//             twice, 1,000 in flight at most: all must succeed; peak resident
//             memory and heap, their cost per request, and the heap left after
//
// Usage: bench_executor [--part overhead|timers|scale|all] [--out FILE] [--quick]
//                       [--scale-requests N]
//        bench_executor --serve      (the child: prints "PORT <n>", serves until killed)

#include "bench/processmemory.h"
#include "bench/serverprocess.h"
#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/policy/backoffpolicy.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QProcess>
#include <QTextStream>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numeric>

#if defined(Q_OS_LINUX)
#include <malloc.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#endif

Q_LOGGING_CATEGORY(lcBench, "retrylab.bench.executor", QtInfoMsg)

using namespace RetryLab::Core;
using namespace RetryLab::Bench;

namespace {

// Qt opens at most six HTTP/1.1 connections per host and manager.
constexpr int connectionsPerManager = 6;

void raiseFileLimit()
{
#if defined(Q_OS_LINUX)
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &limit);
    }
#endif
}

double percentile(QList<double> values, double p)
{
    if (values.isEmpty())
        return 0.0;
    std::sort(values.begin(), values.end());
    // Nearest rank.
    const auto rank = static_cast<qsizetype>(std::ceil(p / 100.0 * double(values.size())));
    return values[std::clamp<qsizetype>(rank - 1, 0, values.size() - 1)];
}

QJsonObject distribution(const QList<double> &values)
{
    const double sum = std::accumulate(values.cbegin(), values.cend(), 0.0);
    return QJsonObject{
        {QStringLiteral("count"), values.size()},
        {QStringLiteral("min"), percentile(values, 0.0)},
        {QStringLiteral("p50"), percentile(values, 50.0)},
        {QStringLiteral("p90"), percentile(values, 90.0)},
        {QStringLiteral("p99"), percentile(values, 99.0)},
        {QStringLiteral("max"), percentile(values, 100.0)},
        {QStringLiteral("mean"), values.isEmpty() ? 0.0 : sum / double(values.size())},
    };
}

// Runs the event loop until `done` holds, or fails the benchmark after `limitMs`.
void waitUntil(const std::function<bool()> &done, int limitMs, const char *what)
{
    // Sleeps until something happens. With a time limit, processEvents() only takes
    // what is pending and returns at once: this loop spun a core that the clients'
    // network threads and the server needed, on both sides of every comparison. A
    // timer wakes it to check the limit.
    QTimer wake;
    wake.start(100);
    QElapsedTimer timer;
    timer.start();
    while (!done()) {
        if (timer.elapsed() > limitMs)
            qFatal("timed out after %d ms waiting for %s", limitMs, what);
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
}

/// Plain QNetworkAccessManager use: `concurrency` GETs in flight, spread over as
/// many managers as the executor would use, each reply read and checked.
class RawClient final
{
public:
    explicit RawClient(int concurrency) : m_concurrency(concurrency)
    {
        const int managers = (concurrency + connectionsPerManager - 1) / connectionsPerManager;
        for (int i = 0; i < managers; ++i) {
            m_managers.append(new QNetworkAccessManager(&m_context));
            m_load.append(0);
        }
    }

    /// Seconds for `count` requests; every one must answer 200.
    double run(const QUrl &url, int count)
    {
        m_url = url;
        m_left = count;
        m_done = 0;
        QElapsedTimer timer;
        timer.start();
        while (m_inFlight < m_concurrency && m_left > 0)
            launch();
        waitUntil([this, count] { return m_done == count; }, 600'000, "the raw client");
        return double(timer.nsecsElapsed()) / 1e9;
    }

private:
    void launch()
    {
        const auto least = std::min_element(m_load.begin(), m_load.end());
        const auto index = static_cast<int>(least - m_load.begin());
        // What plain Qt sends, header for header what the executor sends without
        // its X-Retry headers. Not the executor's cache attributes: its managers
        // have no cache, and on a get() AlwaysNetwork makes Qt add Cache-Control
        // and Pragma (the executor's custom-verb GET sends neither).
        QNetworkRequest request(m_url);
        request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
        QNetworkReply *reply = m_managers[index]->get(request);
        ++m_load[index];
        ++m_inFlight;
        --m_left;
        QObject::connect(reply, &QNetworkReply::finished, &m_context, [this, reply, index] {
            const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            const QByteArray body = reply->readAll();
            if (status != 200 || body.isEmpty())
                qFatal("raw client: status %d, error %s", status, qPrintable(reply->errorString()));
            reply->deleteLater();
            --m_load[index];
            --m_inFlight;
            ++m_done;
            if (m_left > 0)
                launch();
        });
    }

    QObject m_context;
    QList<QNetworkAccessManager *> m_managers;
    QList<int> m_load;
    QUrl m_url;
    int m_concurrency = 1;
    int m_inFlight = 0;
    int m_left = 0;
    int m_done = 0;
};

/// The same load through RetryExecutor::submit().
class ExecutorClient final
{
public:
    /// Without `attemptHeaders` the executor sends what the raw client sends,
    /// header for header (no X-Retry-Request-Id, X-Retry-Attempt).
    explicit ExecutorClient(int concurrency, bool attemptHeaders = true)
    {
        m_executor.setConcurrencyLimit(concurrency);
        m_executor.setAttemptHeadersEnabled(attemptHeaders);
        QObject::connect(&m_executor, &RetryExecutor::requestFinished, &m_executor, [this](const RequestResult &r) {
            if (r.outcome != RequestOutcome::Succeeded || r.attempts != 1)
                qFatal("executor: request %llu ended %s after %d attempts: %s", r.requestId,
                    qPrintable(requestOutcomeName(r.outcome)), r.attempts, qPrintable(r.reason));
            ++m_done;
            if (m_left > 0) {
                --m_left;
                m_executor.submit(m_spec);
            }
        });
    }

    /// Seconds for `count` requests. All are submitted at once (the executor
    /// queues what exceeds its limit), or, with `feed`, one more as each ends,
    /// as the raw client does, so that none waits in the executor's queue.
    double run(const QUrl &url, int count, bool feed = false)
    {
        m_spec = RequestSpec();
        m_spec.url = url;
        m_done = 0;
        const int first = feed ? std::min(count, m_executor.concurrencyLimit()) : count;
        m_left = count - first;
        QElapsedTimer timer;
        timer.start();
        for (int i = 0; i < first; ++i)
            m_executor.submit(m_spec);
        waitUntil([this, count] { return m_done == count; }, 600'000, "the executor");
        return double(timer.nsecsElapsed()) / 1e9;
    }

private:
    RetryExecutor m_executor;
    RequestSpec m_spec;
    int m_done = 0;
    int m_left = 0;
};

/// Heap held per request in flight while `run` sends requests, never more than
/// `concurrency` at once (none queued): the largest heap seen (sampled
/// every 5 ms) over the heap at rest, divided by the concurrency. A run of its
/// own, apart from the timed ones.
double heapPerInFlight(const std::function<void()> &run, int concurrency)
{
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    const qint64 rest = heapInUseBytes();
    qint64 peak = rest;
    QTimer sampler;
    sampler.setInterval(5);
    QObject::connect(&sampler, &QTimer::timeout, &sampler, [&peak] { peak = std::max(peak, heapInUseBytes()); });
    sampler.start();
    run();
    return double(peak - rest) / concurrency;
}

QJsonObject measureOverhead(const ServerProcess &server, int concurrency, int requests, int pairs, QTextStream &out)
{
    const QUrl url = server.url(QStringLiteral("/status/200"));
    RawClient raw(concurrency);
    ExecutorClient executor(concurrency);
    ExecutorClient plain(concurrency, /*attemptHeaders*/ false);
    // Warm-up: connections opened, code paged in, allocator primed.
    raw.run(url, requests / 4);
    executor.run(url, requests / 4);
    plain.run(url, requests / 4, true);
    const double rawHeap = heapPerInFlight([&] { raw.run(url, requests / 4); }, concurrency);
    const double executorHeap = heapPerInFlight([&] { executor.run(url, requests / 4, /*feed*/ true); }, concurrency);

    // Four ways to send the same requests, timed in turn: raw Qt; the executor
    // given them all at once (it queues what is over its limit); the executor
    // fed one more as each ends, as the raw client is; the same without the
    // two X-Retry headers, so that the bytes on the wire are raw Qt's.
    enum Way { Raw, Queued, Fed, FedPlain, Ways };
    const std::array<std::function<double()>, Ways> runs{
        [&] { return raw.run(url, requests); },
        [&] { return executor.run(url, requests); },
        [&] { return executor.run(url, requests, true); },
        [&] { return plain.run(url, requests, true); },
    };
    std::array<double, Ways> seconds{};
    std::array<double, Ways> cpuSeconds{}; // both processes', user and system
    const auto cpuNow = [&server] { return processCpuSeconds() + server.cpuSeconds(); };
    std::array<QJsonArray, Ways> rates;
    std::array<QList<double>, Ways> ratios; // per round, raw's time over the way's
    for (int round = 0; round < pairs; ++round) {
        // The order turns every round: whatever drifts during a round weighs on every way alike.
        std::array<double, Ways> taken{};
        for (int k = 0; k < Ways; ++k) {
            const int way = (k + round) % Ways;
            const double cpuBefore = cpuNow();
            taken[way] = runs[way]();
            cpuSeconds[way] += cpuNow() - cpuBefore;
        }
        for (int way = 0; way < Ways; ++way) {
            seconds[way] += taken[way];
            rates[way].append(requests / taken[way]);
            ratios[way].append(taken[Raw] / taken[way]);
        }
    }
    const auto rps = [&](int way) { return requests * pairs / seconds[way]; };
    const auto ratio = [&](int way) { return seconds[Raw] / seconds[way]; };
    // CPU per request, client and server together, and how many of the machine's
    // cores they kept busy: at (nearly) all of them, requests per second can only
    // follow CPU per request.
    const auto cpuUs = [&](int way) { return cpuSeconds[way] / (double(requests) * pairs) * 1e6; };
    const auto coresBusy = [&](int way) { return cpuSeconds[way] / seconds[way]; };
    const auto cpuRatio = [&](int way) { return cpuSeconds[way] > 0 ? cpuSeconds[Raw] / cpuSeconds[way] : 0.0; };
    out << QStringLiteral("overhead, concurrency %1: raw %2 req/s, executor %3 req/s, ratio %4 "
                          "(rounds: median %5, min %6, max %7); fed as raw Qt is: %8 (median %9); "
                          "fed, without the X-Retry headers: %10 (median %11)\n")
               .arg(concurrency)
               .arg(rps(Raw), 0, 'f', 0)
               .arg(rps(Queued), 0, 'f', 0)
               .arg(ratio(Queued), 0, 'f', 3)
               .arg(percentile(ratios[Queued], 50), 0, 'f', 3)
               .arg(percentile(ratios[Queued], 0), 0, 'f', 3)
               .arg(percentile(ratios[Queued], 100), 0, 'f', 3)
               .arg(ratio(Fed), 0, 'f', 3)
               .arg(percentile(ratios[Fed], 50), 0, 'f', 3)
               .arg(ratio(FedPlain), 0, 'f', 3)
               .arg(percentile(ratios[FedPlain], 50), 0, 'f', 3);
    out << QStringLiteral("overhead, concurrency %1: CPU per request (both processes): raw %2 us, executor %3 us, "
                          "fed %4 us, fed without the X-Retry headers %5 us; cores busy: raw %6, executor %7 of %8\n")
               .arg(concurrency)
               .arg(cpuUs(Raw), 0, 'f', 1)
               .arg(cpuUs(Queued), 0, 'f', 1)
               .arg(cpuUs(Fed), 0, 'f', 1)
               .arg(cpuUs(FedPlain), 0, 'f', 1)
               .arg(coresBusy(Raw), 0, 'f', 2)
               .arg(coresBusy(Queued), 0, 'f', 2)
               .arg(QThread::idealThreadCount());
    out << QStringLiteral("overhead, concurrency %1: heap per request in flight: raw %2 KiB, executor %3 KiB\n")
               .arg(concurrency)
               .arg(rawHeap / 1024.0, 0, 'f', 1)
               .arg(executorHeap / 1024.0, 0, 'f', 1);
    out.flush();
    return QJsonObject{
        {QStringLiteral("concurrency"), concurrency},
        {QStringLiteral("managers"), (concurrency + connectionsPerManager - 1) / connectionsPerManager},
        {QStringLiteral("requests_per_run"), requests},
        {QStringLiteral("pairs"), pairs},
        {QStringLiteral("raw_rps"), rps(Raw)},
        {QStringLiteral("executor_rps"), rps(Queued)},
        {QStringLiteral("ratio"), ratio(Queued)},
        {QStringLiteral("pair_ratio_median"), percentile(ratios[Queued], 50)},
        {QStringLiteral("pair_ratio_min"), percentile(ratios[Queued], 0)},
        {QStringLiteral("pair_ratio_max"), percentile(ratios[Queued], 100)},
        {QStringLiteral("executor_fed_rps"), rps(Fed)},
        {QStringLiteral("ratio_fed"), ratio(Fed)},
        {QStringLiteral("pair_ratio_fed_median"), percentile(ratios[Fed], 50)},
        {QStringLiteral("executor_fed_without_attempt_headers_rps"), rps(FedPlain)},
        {QStringLiteral("ratio_fed_without_attempt_headers"), ratio(FedPlain)},
        {QStringLiteral("pair_ratio_fed_without_attempt_headers_median"), percentile(ratios[FedPlain], 50)},
        {QStringLiteral("raw_cpu_us_per_request"), cpuUs(Raw)},
        {QStringLiteral("executor_cpu_us_per_request"), cpuUs(Queued)},
        {QStringLiteral("executor_fed_cpu_us_per_request"), cpuUs(Fed)},
        {QStringLiteral("executor_fed_without_attempt_headers_cpu_us_per_request"), cpuUs(FedPlain)},
        {QStringLiteral("cpu_ratio"), cpuRatio(Queued)},
        {QStringLiteral("cpu_ratio_fed"), cpuRatio(Fed)},
        {QStringLiteral("cpu_ratio_fed_without_attempt_headers"), cpuRatio(FedPlain)},
        {QStringLiteral("raw_cores_busy"), coresBusy(Raw)},
        {QStringLiteral("executor_cores_busy"), coresBusy(Queued)},
        {QStringLiteral("raw_heap_per_in_flight_bytes"), rawHeap},
        {QStringLiteral("executor_heap_per_in_flight_bytes"), executorHeap},
        {QStringLiteral("raw_rps_runs"), rates[Raw]},
        {QStringLiteral("executor_rps_runs"), rates[Queued]},
        {QStringLiteral("executor_fed_rps_runs"), rates[Fed]},
        {QStringLiteral("executor_fed_without_attempt_headers_rps_runs"), rates[FedPlain]},
    };
}

/// Submits `count` requests that each fail twice (/fail/2 with a key of their
/// own) and collects every retry's lateness: actual minus planned delay.
struct RetryRun
{
    int succeeded = 0;
    int finished = 0;
    int attempts = 0;
    QList<double> latenessMs;
    QList<double> plannedMs;
    QList<double> queuedMs;
    double seconds = 0.0;
};

RetryRun runFailingTwice(RetryExecutor &executor, const ServerProcess &server, const QString &keyPrefix, int count,
    const std::function<void()> &sample = {})
{
    RetryRun run;
    const auto recordConnection
        = QObject::connect(&executor, &RetryExecutor::attemptFinished, &executor, [&run](const AttemptRecord &r) {
              ++run.attempts;
              if (r.attemptIndex > 0) {
                  run.latenessMs.append(r.actualDelayMs - r.plannedDelayMs);
                  run.plannedMs.append(r.plannedDelayMs);
                  run.queuedMs.append(double(r.queuedNs) / 1e6);
              }
          });
    const auto finishConnection
        = QObject::connect(&executor, &RetryExecutor::requestFinished, &executor, [&run](const RequestResult &r) {
              ++run.finished;
              if (r.outcome == RequestOutcome::Succeeded)
                  ++run.succeeded;
          });
    QTimer sampler;
    if (sample) {
        sampler.setInterval(20);
        QObject::connect(&sampler, &QTimer::timeout, &sampler, sample);
        sampler.start();
    }
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < count; ++i) {
        RequestSpec spec;
        spec.url = server.url(QStringLiteral("/fail/2?key=%1-%2").arg(keyPrefix).arg(i));
        executor.submit(spec);
    }
    if (sample)
        sample();
    waitUntil([&run, count] { return run.finished == count; }, 600'000, "requests that fail twice");
    run.seconds = double(timer.nsecsElapsed()) / 1e9;
    QObject::disconnect(recordConnection);
    QObject::disconnect(finishConnection);
    return run;
}

BackoffPolicy policyFor(BackoffAlgorithm algorithm, double baseMs, double multiplier, double capMs)
{
    BackoffPolicy policy;
    policy.name = QStringLiteral("benchmark");
    policy.algorithm = algorithm;
    policy.baseDelayMs = baseMs;
    policy.multiplier = multiplier;
    policy.maxBackoffMs = capMs;
    policy.jitterMs = 0.0;
    policy.maxAttempts = 5;
    policy.attemptTimeoutMs = 30'000.0;
    if (!isUsable(policy))
        qFatal("benchmark policy is not usable: %s", qPrintable(describeIssues(validatePolicy(policy))));
    return policy;
}

QJsonObject measureTimers(const ServerProcess &server, int count, QTextStream &out)
{
    QJsonObject result;
    // The product's default policy (Google's truncated exponential: 2^n s plus up to
    // 1 s of jitter), a denser full jitter over one second, and no jitter at all,
    // where all 1,000 wake in the same millisecond and each waits for the others.
    BackoffPolicy google;
    google.name = QStringLiteral("benchmark");
    google.attemptTimeoutMs = 30'000.0;
    const struct
    {
        const char *name;
        BackoffPolicy policy;
    } variants[] = {
        {"google_default", google},
        {"full_jitter", policyFor(BackoffAlgorithm::FullJitter, 1000.0, 1.0, 1000.0)},
        {"herd_no_jitter", policyFor(BackoffAlgorithm::Exponential, 200.0, 2.0, 1000.0)},
    };
    for (const auto &variant : variants) {
        RetryExecutor executor;
        executor.setConcurrencyLimit(count);
        executor.setSeed(42);
        executor.setPolicy(variant.policy);
        const RetryRun run = runFailingTwice(executor, server, QString::fromLatin1(variant.name), count);
        if (run.succeeded != count)
            qFatal("timers: only %d of %d requests succeeded", run.succeeded, count);
        const QJsonObject lateness = distribution(run.latenessMs);
        out << QStringLiteral("timers, %1, %2 requests, %3 retries: actual - planned p50 %4 ms, p99 %5 ms, max %6 ms\n")
                   .arg(QString::fromLatin1(variant.name))
                   .arg(count)
                   .arg(run.latenessMs.size())
                   .arg(lateness.value(QStringLiteral("p50")).toDouble(), 0, 'f', 3)
                   .arg(lateness.value(QStringLiteral("p99")).toDouble(), 0, 'f', 3)
                   .arg(lateness.value(QStringLiteral("max")).toDouble(), 0, 'f', 3);
        out.flush();
        result.insert(QString::fromLatin1(variant.name),
            QJsonObject{
                {QStringLiteral("requests"), count},
                {QStringLiteral("retries"), run.latenessMs.size()},
                {QStringLiteral("algorithm"), algorithmName(variant.policy.algorithm)},
                {QStringLiteral("base_ms"), variant.policy.baseDelayMs},
                {QStringLiteral("lateness_ms"), lateness},
                {QStringLiteral("planned_ms"), distribution(run.plannedMs)},
                {QStringLiteral("queued_ms"), distribution(run.queuedMs)},
                {QStringLiteral("seconds"), run.seconds},
            });
    }
    return result;
}

// Forgets the server's /fail keys (it keeps at most 100,000).
void resetServer(const ServerProcess &server)
{
    QNetworkAccessManager manager;
    QNetworkRequest reset(server.url(QStringLiteral("/_control/reset")));
    reset.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    QNetworkReply *reply = manager.post(reset, QByteArray());
    waitUntil([reply] { return reply->isFinished(); }, 30'000, "the server's reset");
    if (reply->error() != QNetworkReply::NoError)
        qFatal("scale: the server's reset failed: %s", qPrintable(reply->errorString()));
    delete reply;
}

QJsonObject measureScale(const ServerProcess &server, int count, QTextStream &out)
{
    RetryExecutor executor;
    executor.setConcurrencyLimit(1000);
    executor.setSeed(7);
    executor.setPolicy(policyFor(BackoffAlgorithm::FullJitter, 100.0, 2.0, 1000.0));
    // Warm-up, so that the baseline holds Qt's network stack and a few managers.
    runFailingTwice(executor, server, QStringLiteral("warm"), 200);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    resetServer(server); // the server keeps at most 100,000 /fail keys: the warm-up's go first

    const qint64 baseRss = residentKiB();
    const qint64 baseHeap = heapInUseBytes();
    resetPeakResident();
    qint64 peakHeap = baseHeap;
    qint64 heapAfterSubmit = -1;
    int peakActive = 0;
    int peakInFlight = 0;
    const auto sample = [&] {
        peakHeap = std::max(peakHeap, heapInUseBytes());
        peakActive = std::max(peakActive, executor.activeCount());
        peakInFlight = std::max(peakInFlight, executor.inFlightCount());
        if (heapAfterSubmit < 0)
            heapAfterSubmit = heapInUseBytes();
    };
    const RetryRun run = runFailingTwice(executor, server, QStringLiteral("scale"), count, sample);
    const qint64 peakRss = peakResidentKiB();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    const qint64 endHeap = heapInUseBytes();
    const qint64 endRss = residentKiB();
    // Whether what stays after completion grows with more requests, or is room kept once:
    // a second pass of a tenth as many, then the heap again.
    const int againCount = std::max(1000, count / 10);
    resetServer(server);
    const RetryRun again = runFailingTwice(executor, server, QStringLiteral("again"), againCount);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    const qint64 endHeapAgain = heapInUseBytes();
    if (again.succeeded != againCount)
        qFatal("scale: only %d of %d requests of the second pass succeeded", again.succeeded, againCount);

    const double rssPerRequest = double(peakRss - baseRss) * 1024.0 / count;
    const double heapPerRequest = double(peakHeap - baseHeap) / count;
    const double queuedPerRequest = double(heapAfterSubmit - baseHeap) / count;
    out << QStringLiteral("scale, %1 requests each failing twice: %2 succeeded, %3 attempts in %4 s; peak active %5, "
                          "in flight %6; peak RSS %7 MiB (+%8 MiB, %9 KiB per request), peak heap +%10 MiB "
                          "(%11 KiB per request; %12 KiB per queued request)\n")
               .arg(count)
               .arg(run.succeeded)
               .arg(run.attempts)
               .arg(run.seconds, 0, 'f', 2)
               .arg(peakActive)
               .arg(peakInFlight)
               .arg(peakRss / 1024.0, 0, 'f', 1)
               .arg((peakRss - baseRss) / 1024.0, 0, 'f', 1)
               .arg(rssPerRequest / 1024.0, 0, 'f', 2)
               .arg((peakHeap - baseHeap) / 1048576.0, 0, 'f', 1)
               .arg(heapPerRequest / 1024.0, 0, 'f', 2)
               .arg(queuedPerRequest / 1024.0, 0, 'f', 2);
    out << QStringLiteral("scale, after completion: heap +%1 MiB over the start; after %2 more requests: %3 MiB more\n")
               .arg((endHeap - baseHeap) / 1048576.0, 0, 'f', 1)
               .arg(againCount)
               .arg((endHeapAgain - endHeap) / 1048576.0, 0, 'f', 2);
    out.flush();
    if (run.succeeded != count)
        qFatal("scale: only %d of %d requests succeeded", run.succeeded, count);
    return QJsonObject{
        {QStringLiteral("requests"), count},
        {QStringLiteral("concurrency_limit"), executor.concurrencyLimit()},
        {QStringLiteral("succeeded"), run.succeeded},
        {QStringLiteral("attempts"), run.attempts},
        {QStringLiteral("seconds"), run.seconds},
        {QStringLiteral("peak_active"), peakActive},
        {QStringLiteral("peak_in_flight"), peakInFlight},
        {QStringLiteral("baseline_rss_kib"), baseRss},
        {QStringLiteral("peak_rss_kib"), peakRss},
        {QStringLiteral("end_rss_kib"), endRss},
        {QStringLiteral("rss_bytes_per_request"), rssPerRequest},
        {QStringLiteral("heap_baseline_bytes"), baseHeap},
        {QStringLiteral("heap_peak_bytes"), peakHeap},
        {QStringLiteral("heap_end_bytes"), endHeap},
        {QStringLiteral("heap_bytes_per_request"), heapPerRequest},
        {QStringLiteral("heap_bytes_per_queued_request"), queuedPerRequest},
        {QStringLiteral("heap_retained_bytes"), endHeap - baseHeap},
        {QStringLiteral("second_pass_requests"), againCount},
        {QStringLiteral("heap_after_second_pass_bytes"), endHeapAgain},
        {QStringLiteral("heap_growth_in_second_pass_bytes"), endHeapAgain - endHeap},
    };
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    raiseFileLimit();
    if (app.arguments().contains(QStringLiteral("--serve")))
        return serveFaults();

    // One line per retry would measure the terminal, not the executor.
    QLoggingCategory::setFilterRules(QStringLiteral("retrylab.core.*.info=false"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Measures the retry executor on loopback HTTP."));
    parser.addHelpOption();
    const QCommandLineOption partOption(QStringLiteral("part"),
        QStringLiteral("overhead, timers, scale or all (default)."), QStringLiteral("part"), QStringLiteral("all"));
    const QCommandLineOption outOption(QStringLiteral("out"), QStringLiteral("JSON file for the results."),
        QStringLiteral("file"), QStringLiteral("bench_executor.json"));
    const QCommandLineOption quickOption(QStringLiteral("quick"), QStringLiteral("Fewer repetitions (a smoke run)."));
    const QCommandLineOption profileOption(QStringLiteral("profile"),
        QStringLiteral("Only send N requests through one client at concurrency C (default 48; for a profiler): raw "
                       "Qt, the executor, or the executor without its X-Retry headers (plain)."),
        QStringLiteral("client:N[:C]"));
    const QCommandLineOption scaleRequestsOption(QStringLiteral("scale-requests"),
        QStringLiteral("Logical requests of the scale part (default 10,000; 2,000 with --quick)."),
        QStringLiteral("n"));
    parser.addOptions({partOption, outOption, quickOption, profileOption, scaleRequestsOption});
    parser.process(app);
    const QString part = parser.value(partOption);
    const bool quick = parser.isSet(quickOption);
    if (!QStringList{
            QStringLiteral("overhead"), QStringLiteral("timers"), QStringLiteral("scale"), QStringLiteral("all")}
             .contains(part)) {
        qCCritical(lcBench).noquote() << "unknown --part" << part;
        return 2;
    }

    ServerProcess server;
    if (!server.start()) {
        qCCritical(lcBench) << "the fault server did not start";
        return 1;
    }
    QTextStream out(stdout);
    if (parser.isSet(profileOption)) {
        const QStringList spec = parser.value(profileOption).split(QLatin1Char(':'));
        const int count = spec.value(1).toInt();
        const int concurrency = spec.size() > 2 ? std::max(1, spec.value(2).toInt()) : 48;
        const QUrl url = server.url(QStringLiteral("/status/200"));
        double seconds = 0.0;
        if (spec.value(0) == QLatin1String("raw") && count > 0) {
            RawClient client(concurrency);
            seconds = client.run(url, count);
        } else if (spec.value(0) == QLatin1String("executor") && count > 0) {
            ExecutorClient client(concurrency);
            seconds = client.run(url, count);
        } else if (spec.value(0) == QLatin1String("plain") && count > 0) {
            ExecutorClient client(concurrency, /*attemptHeaders*/ false);
            seconds = client.run(url, count);
        } else {
            qCCritical(lcBench).noquote() << "--profile wants raw:N[:C], executor:N[:C] or plain:N[:C]";
            return 2;
        }
        out << spec.value(0) << ": " << count << " requests in " << seconds << " s" << Qt::endl;
        return 0;
    }
    QJsonObject results{
        {QStringLiteral("qt"), QString::fromLatin1(qVersion())},
        {QStringLiteral("server"), QStringLiteral("FaultServer in a child process")},
    };
    const bool all = part == QLatin1String("all");
    if (all || part == QLatin1String("scale"))
        results.insert(QStringLiteral("scale"),
            measureScale(server,
                parser.isSet(scaleRequestsOption) ? std::max(1, parser.value(scaleRequestsOption).toInt())
                                                  : (quick ? 2000 : 10'000),
                out));
    if (all || part == QLatin1String("overhead")) {
        QJsonArray runs;
        for (int concurrency : {6, 48, 256})
            runs.append(measureOverhead(server, concurrency, quick ? 1000 : 4000, quick ? 2 : 8, out));
        results.insert(QStringLiteral("overhead"), runs);
    }
    if (all || part == QLatin1String("timers"))
        results.insert(QStringLiteral("timers"), measureTimers(server, 1000, out));

    QFile file(parser.value(outOption));
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        qCCritical(lcBench).noquote() << "cannot write" << file.fileName() << ":" << file.errorString();
        return 1;
    }
    file.write(QJsonDocument(results).toJson());
    out << "written to " << file.fileName() << Qt::endl;
    return 0;
}
