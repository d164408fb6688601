// A long run at a steady rate through the retry executor against the embedded
// fault server (in a thread of its own, as in the application), with a share of
// transient failures. It checks that every submitted request finishes exactly
// once (counted per outcome), that none is stuck, and samples memory so that
// its growth after a warm-up can be reported. The summary goes to a JSON file.
//
// Usage: soak_driver [--seconds S] [--rate R] [--failure-rate P] [--warmup-seconds W]
//                    [--server-log N] [--out FILE]

#include "bench/processmemory.h"
#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/policy/backoffpolicy.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QMap>
#include <QTextStream>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <vector>

Q_LOGGING_CATEGORY(lcSoak, "retrylab.bench.soak", QtInfoMsg)

using namespace RetryLab::Core;
using namespace RetryLab::Bench;

namespace {

struct Sample
{
    double seconds = 0.0;
    qint64 rssKiB = 0;
    qint64 heapBytes = 0;
    int active = 0;
    int inFlight = 0;
};

// Least-squares slope of y over x.
double slope(const QList<QPair<double, double>> &points)
{
    if (points.size() < 2)
        return 0.0;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto &[x, y] : points) {
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    const double n = double(points.size());
    const double denominator = n * sxx - sx * sx;
    return denominator == 0.0 ? 0.0 : (n * sxy - sx * sy) / denominator;
}

/// Request times in whole milliseconds, in memory allocated once: a soak run
/// must not grow because of its own bookkeeping.
class Histogram
{
public:
    void add(double ms)
    {
        ++m_counts[std::size_t(std::clamp(ms, 0.0, double(m_counts.size() - 1)))];
        ++m_total;
    }

    /// Nearest rank, in ms.
    double percentile(double p) const
    {
        if (m_total == 0)
            return 0.0;
        const auto rank = std::max<qint64>(1, qint64(std::ceil(p / 100.0 * double(m_total))));
        qint64 seen = 0;
        for (std::size_t i = 0; i < m_counts.size(); ++i) {
            seen += m_counts[i];
            if (seen >= rank)
                return double(i);
        }
        return double(m_counts.size() - 1);
    }

private:
    std::vector<qint64> m_counts = std::vector<qint64>(120'001, 0);
    qint64 m_total = 0;
};

BackoffPolicy soakPolicy()
{
    BackoffPolicy p;
    p.name = QStringLiteral("soak");
    p.algorithm = BackoffAlgorithm::FullJitter;
    p.baseDelayMs = 100.0;
    p.multiplier = 2.0;
    p.maxBackoffMs = 2000.0;
    p.maxAttempts = 6;
    p.attemptTimeoutMs = 10'000.0;
    p.deadlineMs = 30'000.0;
    return p;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    // A line per retry (tens per second for ten minutes) would measure the terminal.
    QLoggingCategory::setFilterRules(QStringLiteral("retrylab.core.*.info=false\nretrylab.core.*.warning=false"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Runs requests at a steady rate against the embedded fault server and accounts for each."));
    parser.addHelpOption();
    const QCommandLineOption secondsOption(QStringLiteral("seconds"),
        QStringLiteral("How long to submit (default 600)."), QStringLiteral("s"), QStringLiteral("600"));
    const QCommandLineOption rateOption(QStringLiteral("rate"), QStringLiteral("Requests per second (default 50)."),
        QStringLiteral("r"), QStringLiteral("50"));
    const QCommandLineOption failureOption(QStringLiteral("failure-rate"),
        QStringLiteral("Share of attempts answered 503 (default 0.3)."), QStringLiteral("p"), QStringLiteral("0.3"));
    const QCommandLineOption warmupOption(QStringLiteral("warmup-seconds"),
        QStringLiteral("Samples before this are not used for the growth (default: a fifth of the run, at least 20)."),
        QStringLiteral("s"));
    const QCommandLineOption logOption(QStringLiteral("server-log"),
        QStringLiteral("Entries the server's log keeps (default 2000; it fills during the warm-up)."),
        QStringLiteral("n"), QStringLiteral("2000"));
    const QCommandLineOption outOption(QStringLiteral("out"), QStringLiteral("JSON summary (default soak.json)."),
        QStringLiteral("file"), QStringLiteral("soak.json"));
    parser.addOptions({secondsOption, rateOption, failureOption, warmupOption, logOption, outOption});
    parser.process(app);

    bool ok1 = false, ok2 = false, ok3 = false, ok4 = false;
    const double seconds = parser.value(secondsOption).toDouble(&ok1);
    const double rate = parser.value(rateOption).toDouble(&ok2);
    const double failureRate = parser.value(failureOption).toDouble(&ok3);
    const int serverLog = parser.value(logOption).toInt(&ok4);
    if (!ok1 || !ok2 || !ok3 || !ok4 || !(seconds > 0) || !(rate > 0 && rate <= 10'000)
        || !(failureRate >= 0 && failureRate < 1) || serverLog < 1) {
        qCCritical(lcSoak)
            << "bad arguments: --seconds > 0, 0 < --rate <= 10000, 0 <= --failure-rate < 1, --server-log >= 1";
        return 2;
    }
    const double warmup
        = parser.isSet(warmupOption) ? parser.value(warmupOption).toDouble() : std::max(20.0, seconds / 5.0);

    // The embedded server in a thread of its own, as the application runs it.
    QThread serverThread;
    serverThread.setObjectName(QStringLiteral("fault server"));
    FaultServerOptions options;
    options.logCapacity = serverLog;
    auto *server = new FaultServer(options);
    server->moveToThread(&serverThread);
    QObject::connect(&serverThread, &QThread::finished, server, &QObject::deleteLater);
    serverThread.start();
    bool listening = false;
    QMetaObject::invokeMethod(
        server, [server, &listening] { listening = server->listen(); }, Qt::BlockingQueuedConnection);
    if (!listening) {
        qCCritical(lcSoak).noquote() << "the fault server cannot listen:" << server->errorString();
        serverThread.quit();
        serverThread.wait();
        return 1;
    }
    // One key for every request: each attempt fails on its own with the given
    // chance, and the server keeps one counter, not one per request.
    const QUrl url(
        server->baseUrl().toString() + QStringLiteral("/fail/1000000?key=soak&p=%1").arg(failureRate, 0, 'f', 3));

    RetryExecutor executor;
    const BackoffPolicy policy = soakPolicy();
    executor.setPolicy(policy);
    executor.setConcurrencyLimit(100);
    executor.setSeed(2025);

    QHash<quint64, qint64> active; // id -> submission time (ns)
    QMap<QString, qint64> outcomes;
    QMap<int, qint64> attemptsByStatus; // -1: no HTTP status
    Histogram totalMs;
    qint64 submitted = 0;
    qint64 finished = 0;
    qint64 attempts = 0;
    qint64 duplicateOrUnknown = 0;
    qint64 stuckDuring = 0;
    double oldestActiveMs = 0.0;
    const double stuckAfterMs = policy.deadlineMs + 10'000.0;

    QElapsedTimer clock;
    clock.start();
    QObject::connect(&executor, &RetryExecutor::attemptFinished, &executor, [&](const AttemptRecord &r) {
        ++attempts;
        ++attemptsByStatus[r.httpStatus.value_or(-1)];
    });
    QObject::connect(&executor, &RetryExecutor::requestFinished, &executor, [&](const RequestResult &r) {
        const auto it = active.find(r.requestId);
        if (it == active.end()) {
            ++duplicateOrUnknown;
            qCWarning(lcSoak) << "request" << r.requestId << "finished twice or was never submitted";
            return;
        }
        totalMs.add(double(clock.nsecsElapsed() - *it) / 1e6);
        active.erase(it);
        ++finished;
        ++outcomes[requestOutcomeName(r.outcome)];
    });

    // Submissions follow the clock, not a timer's count, so that late ticks catch up.
    QTimer submitter;
    submitter.setTimerType(Qt::PreciseTimer);
    submitter.setInterval(std::max(1, int(500.0 / rate)));
    bool submitting = true;
    RequestSpec spec;
    spec.url = url;
    QObject::connect(&submitter, &QTimer::timeout, &executor, [&] {
        const double elapsed = double(clock.nsecsElapsed()) / 1e9;
        if (elapsed >= seconds) {
            submitter.stop();
            submitting = false;
            return;
        }
        const auto due = static_cast<qint64>(elapsed * rate);
        while (submitted < due) {
            const quint64 id = executor.submit(spec);
            active.insert(id, clock.nsecsElapsed());
            ++submitted;
        }
    });

    QList<Sample> samples;
    samples.reserve(qsizetype(seconds) + 120); // one a second, allocated up front
    QTextStream out(stdout);
    QTimer sampler;
    sampler.setInterval(1000);
    QObject::connect(&sampler, &QTimer::timeout, &executor, [&] {
        Sample s;
        s.seconds = double(clock.nsecsElapsed()) / 1e9;
        s.rssKiB = residentKiB();
        s.heapBytes = heapInUseBytes();
        s.active = int(active.size());
        s.inFlight = executor.inFlightCount();
        samples.append(s);
        const qint64 now = clock.nsecsElapsed();
        oldestActiveMs = 0.0;
        qint64 stuckNow = 0;
        for (const qint64 since : std::as_const(active)) {
            const double age = double(now - since) / 1e6;
            oldestActiveMs = std::max(oldestActiveMs, age);
            if (age > stuckAfterMs)
                ++stuckNow;
        }
        stuckDuring = std::max(stuckDuring, stuckNow);
        if (samples.size() % 30 == 0) {
            out << QStringLiteral("%1 s: submitted %2, finished %3, active %4, RSS %5 MiB, heap %6 MiB\n")
                       .arg(s.seconds, 0, 'f', 0)
                       .arg(submitted)
                       .arg(finished)
                       .arg(s.active)
                       .arg(s.rssKiB / 1024.0, 0, 'f', 1)
                       .arg(s.heapBytes / 1048576.0, 0, 'f', 1);
            out.flush();
        }
    });

    submitter.start();
    sampler.start();
    // Submit for the run's length, then let what is left drain: every request
    // has a 30 s deadline, so anything still active well after it is stuck.
    // Sleeping between events (with a time limit, processEvents() returns at once when
    // nothing is pending, and the loop would spin): the sampler's timer wakes it.
    while (submitting || (!active.isEmpty() && clock.elapsed() < seconds * 1000.0 + stuckAfterMs))
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    sampler.stop();
    const double runSeconds = double(clock.nsecsElapsed()) / 1e9;
    const qint64 stuck = active.size();

    QList<QPair<double, double>> rssPoints;
    QList<QPair<double, double>> heapPoints;
    for (const Sample &s : std::as_const(samples)) {
        if (s.seconds < warmup || s.seconds > seconds)
            continue;
        rssPoints.append({s.seconds / 60.0, double(s.rssKiB)});
        heapPoints.append({s.seconds / 60.0, double(s.heapBytes) / 1024.0});
    }
    const double rssGrowth = slope(rssPoints);
    const double heapGrowth = slope(heapPoints);

    QJsonObject outcomeJson;
    for (auto it = outcomes.cbegin(); it != outcomes.cend(); ++it)
        outcomeJson.insert(it.key(), it.value());
    QJsonObject statusJson;
    for (auto it = attemptsByStatus.cbegin(); it != attemptsByStatus.cend(); ++it)
        statusJson.insert(it.key() < 0 ? QStringLiteral("no-status") : QString::number(it.key()), it.value());
    QJsonArray sampleJson;
    for (qsizetype i = 0; i < samples.size(); i += 10) {
        const Sample &s = samples[i];
        sampleJson.append(QJsonArray{std::round(s.seconds), s.rssKiB, s.heapBytes / 1024, s.active, s.inFlight});
    }
    const bool accounted = submitted == finished && stuck == 0 && duplicateOrUnknown == 0 && stuckDuring == 0;
    const QJsonObject summary{
        {QStringLiteral("seconds"), seconds},
        {QStringLiteral("run_seconds"), runSeconds},
        {QStringLiteral("rate_per_second"), rate},
        {QStringLiteral("failure_rate"), failureRate},
        {QStringLiteral("url"), url.toString()},
        {QStringLiteral("policy"),
            QStringLiteral("full jitter, base %1 ms, cap %2 ms, %3 attempts, %4 ms per attempt, %5 ms deadline")
                .arg(policy.baseDelayMs)
                .arg(policy.maxBackoffMs)
                .arg(policy.maxAttempts)
                .arg(policy.attemptTimeoutMs)
                .arg(policy.deadlineMs)},
        {QStringLiteral("submitted"), submitted},
        {QStringLiteral("finished"), finished},
        {QStringLiteral("outcomes"), outcomeJson},
        {QStringLiteral("attempts"), attempts},
        {QStringLiteral("attempts_by_status"), statusJson},
        {QStringLiteral("stuck"), stuck},
        {QStringLiteral("stuck_during_run"), stuckDuring},
        {QStringLiteral("finished_twice_or_unknown"), duplicateOrUnknown},
        {QStringLiteral("request_ms_p50"), totalMs.percentile(50)},
        {QStringLiteral("request_ms_p99"), totalMs.percentile(99)},
        {QStringLiteral("request_ms_max"), totalMs.percentile(100)},
        {QStringLiteral("warmup_seconds"), warmup},
        {QStringLiteral("rss_first_kib"), samples.isEmpty() ? 0 : samples.first().rssKiB},
        {QStringLiteral("rss_last_kib"), samples.isEmpty() ? 0 : samples.last().rssKiB},
        {QStringLiteral("rss_growth_kib_per_min"), rssGrowth},
        {QStringLiteral("heap_growth_kib_per_min"), heapGrowth},
        {QStringLiteral("samples_every_10s"), sampleJson},
        {QStringLiteral("sample_columns"),
            QJsonArray{QStringLiteral("s"), QStringLiteral("rss_kib"), QStringLiteral("heap_kib"),
                QStringLiteral("active"), QStringLiteral("in_flight")}},
        {QStringLiteral("accounted"), accounted},
    };

    out << QStringLiteral("submitted %1, finished %2 (%3), attempts %4, stuck %5; RSS growth after %6 s: %7 KiB/min, "
                          "heap growth %8 KiB/min\n")
               .arg(submitted)
               .arg(finished)
               .arg(QString::fromUtf8(QJsonDocument(outcomeJson).toJson(QJsonDocument::Compact)))
               .arg(attempts)
               .arg(stuck)
               .arg(warmup, 0, 'f', 0)
               .arg(rssGrowth, 0, 'f', 1)
               .arg(heapGrowth, 0, 'f', 1);
    out.flush();

    QFile file(parser.value(outOption));
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        qCCritical(lcSoak).noquote() << "cannot write" << file.fileName() << ":" << file.errorString();
        return 1;
    }
    file.write(QJsonDocument(summary).toJson());

    serverThread.quit();
    serverThread.wait();
    return accounted ? 0 : 1;
}
