// Measures the observer on synthetic traffic fed straight into it (no sockets):
// grouping 10,000 and 100,000 attempts of clients that retry with full jitter,
// then inferring and judging every client, and a flood of unrelated requests.
// The target: 10,000 attempts grouped and judged in under a second, and
// time linear in attempts (the 100,000 figure about ten times the 10,000 one).
// Writes JSON (default bench/observe-results.json); scripts/bench.sh runs it.
//   build-bench/bench/bench_observe [--out FILE]

#include "core/http/serverlogentry.h"
#include "core/observe/observationreport.h"
#include "core/observe/observer.h"
#include "core/policy/backoff.h"
#include "core/util/exportfile.h"
#include "core/util/randomsource.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

using namespace RetryLab::Core;

namespace {

struct Timing
{
    int attempts = 0;
    int logicalRequests = 0;
    int clients = 0;
    double groupMs = 0.0;
    double judgeMs = 0.0;
};

/// `clients` clients each sending logical requests one after another, each
/// served 503 three times and then 200 (the default plan), retrying with full
/// jitter from 100 ms; stops at `attempts` attempts.
Timing measure(int attempts, int clients)
{
    Observer observer;
    observer.setMaxLogicalRequests(1'000'000);
    BackoffPolicy policy;
    policy.algorithm = BackoffAlgorithm::FullJitter;
    policy.baseDelayMs = 100;
    policy.maxBackoffMs = 2000;
    RandomSource random(42);
    QList<qint64> clockNs(clients, 0);
    QList<int> retryIndex(clients, 0);
    QList<int> requestOf(clients, 0);
    quint64 sequence = 0;

    QElapsedTimer timer;
    timer.start();
    for (int n = 0; n < attempts; ++n) {
        const int c = n % clients;
        ServerLogEntry entry;
        entry.sequence = ++sequence;
        entry.receivedNs = clockNs[c];
        entry.peer = QStringLiteral("127.0.0.%1:%2").arg(1 + c / 250).arg(40000 + n % 20000);
        entry.method = "GET";
        entry.target = QStringLiteral("/items/%1").arg(requestOf[c]);
        entry.identityHeaders = {{"user-agent", "bench-client/" + QByteArray::number(c % 250)}};
        const FaultInstruction step = observer.observeRequest(entry);
        entry.action = QStringLiteral("respond");
        entry.status = step.status;
        entry.durationMs = 0.5;
        observer.observeAnswer(entry);
        clockNs[c] += 500'000;
        if (step.status == 200) {
            retryIndex[c] = 0;
            ++requestOf[c];
            clockNs[c] += 5'000'000;
        } else {
            clockNs[c] += qint64(Backoff::delayMs(policy, retryIndex[c]++, -1, random) * 1e6);
        }
    }
    Timing t;
    t.groupMs = timer.nsecsElapsed() / 1e6;
    timer.restart();
    const ObservationReport report = ObservationReport::from(observer);
    t.judgeMs = timer.nsecsElapsed() / 1e6;
    t.attempts = observer.totalAttempts();
    t.logicalRequests = int(observer.allLogicalRequests().size());
    t.clients = int(report.clients.size());
    return t;
}

/// Unrelated requests, each from a client of its own: the worst case for the grouping's tables.
double flood(int requests)
{
    Observer observer;
    observer.setMaxLogicalRequests(10'000);
    QElapsedTimer timer;
    timer.start();
    for (int n = 0; n < requests; ++n) {
        ServerLogEntry entry;
        entry.sequence = n + 1;
        entry.receivedNs = qint64(n) * 100'000;
        entry.peer = QStringLiteral("127.0.0.1:%1").arg(1024 + n % 60000);
        entry.method = "POST";
        entry.target = QStringLiteral("/flood/%1").arg(n);
        entry.identityHeaders = {{"user-agent", "flood/" + QByteArray::number(n)}};
        entry.bodyDigest = QByteArray::number(n, 16);
        const FaultInstruction step = observer.observeRequest(entry);
        entry.status = step.status;
        entry.action = QStringLiteral("respond");
        observer.observeAnswer(entry);
    }
    return timer.nsecsElapsed() / 1e6;
}

QJsonObject toJson(const Timing &t)
{
    return {{QStringLiteral("attempts"), t.attempts}, {QStringLiteral("logicalRequests"), t.logicalRequests},
        {QStringLiteral("clients"), t.clients}, {QStringLiteral("groupMs"), t.groupMs},
        {QStringLiteral("inferAndJudgeMs"), t.judgeMs}, {QStringLiteral("totalMs"), t.groupMs + t.judgeMs}};
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QString out = QStringLiteral("bench/observe-results.json");
    const QStringList args = app.arguments();
    if (const qsizetype i = args.indexOf(QStringLiteral("--out")); i > 0 && i + 1 < args.size())
        out = args[i + 1];

    QTextStream console(stdout);
    measure(2000, 20); // warm up allocators and the presets
    const Timing small = measure(10'000, 100);
    const Timing large = measure(100'000, 1000);
    const double floodMs = flood(100'000);
    const double ratio = (large.groupMs + large.judgeMs) / (small.groupMs + small.judgeMs);
    console << QStringLiteral("10,000 attempts (%1 logical requests, %2 clients): grouped in %3 ms, inferred and "
                              "judged in %4 ms\n")
                   .arg(small.logicalRequests)
                   .arg(small.clients)
                   .arg(small.groupMs, 0, 'f', 1)
                   .arg(small.judgeMs, 0, 'f', 1);
    console << QStringLiteral("100,000 attempts: %1 ms + %2 ms; ratio to 10,000: %3 (linear: 10)\n")
                   .arg(large.groupMs, 0, 'f', 1)
                   .arg(large.judgeMs, 0, 'f', 1)
                   .arg(ratio, 0, 'f', 2);
    console << QStringLiteral("flood of 100,000 unrelated requests (10,000 kept): %1 ms\n").arg(floodMs, 0, 'f', 1);
    const QJsonObject result{
        {QStringLiteral("attempts10k"), toJson(small)},
        {QStringLiteral("attempts100k"), toJson(large)},
        {QStringLiteral("ratio100kTo10k"), ratio},
        {QStringLiteral("flood100kMs"), floodMs},
    };
    const auto written = ExportFile::write(out, QJsonDocument(result).toJson());
    if (!written) {
        QTextStream(stderr) << written.error() << '\n';
        return 1;
    }
    return 0;
}
