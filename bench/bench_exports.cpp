// Measures how long each export takes for a large run, redacted and not, and
// writes the numbers to a file (default: bench_exports.tsv in the current
// directory). Not a test: run it by hand, e.g.
//   build/tests/core/bench_exports 20000 /tmp/bench_exports.tsv

#include "core/export/csvexport.h"
#include "core/export/harexport.h"
#include "core/export/junitexport.h"
#include "core/export/reportjson.h"

#include "tests/core/export/exportsamples.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QSet>
#include <QTextStream>

#include <algorithm>
#include <functional>

using namespace RetryLab::Core;

namespace {

// The sample run repeated until it holds about `attempts` attempts.
RunRecord largeRun(int attempts)
{
    RunRecord sample = ExportSamples::sampleRun();
    // The sample's 200 KiB header tests limits; it would dominate the timings.
    const HeaderList ordinary{{"Accept", "application/json"}, {"User-Agent", "RetryLab"}};
    sample.requests[4].headers = ordinary;
    for (AttemptRecord &a : sample.attempts) {
        if (a.requestId == 4)
            a.requestHeaders = ordinary;
    }
    RunRecord run = sample;
    run.requests.clear();
    run.attempts.clear();
    run.results.clear();
    const quint64 stride = 10;
    for (quint64 copy = 0; run.attempts.size() < attempts; ++copy) {
        for (auto it = sample.requests.cbegin(); it != sample.requests.cend(); ++it)
            run.requests.insert(it.key() + stride * copy, it.value());
        for (AttemptRecord a : sample.attempts) {
            a.requestId += stride * copy;
            run.attempts.append(a);
        }
        for (RequestResult r : sample.results) {
            r.requestId += stride * copy;
            run.results.append(r);
        }
    }
    return run;
}

/// The header bytes of a run: as many as its arrays add up to, and as many as it
/// holds (distinct buffers; equal values read back share one).
std::pair<qint64, qint64> headerBytes(const RunRecord &run)
{
    qint64 total = 0;
    qint64 held = 0;
    QSet<const char *> seen;
    const auto add = [&](const HeaderList &headers) {
        for (const auto &[name, value] : headers) {
            for (const QByteArray *bytes : {&name, &value}) {
                total += bytes->size();
                if (!bytes->isEmpty() && !seen.contains(bytes->constData())) {
                    seen.insert(bytes->constData());
                    held += bytes->size();
                }
            }
        }
    };
    for (const RequestSpec &spec : run.requests)
        add(spec.headers);
    for (const AttemptRecord &a : run.attempts) {
        add(a.requestHeaders);
        add(a.responseHeaders);
    }
    return {total, held};
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const int attempts = argc > 1 ? QString::fromLocal8Bit(argv[1]).toInt() : 20'000;
    const QString path = argc > 2 ? QString::fromLocal8Bit(argv[2]) : QStringLiteral("bench_exports.tsv");
    if (attempts <= 0) {
        QTextStream(stderr) << "usage: bench_exports [ATTEMPTS] [OUTPUT.tsv]\n";
        return 2;
    }
    const RunRecord run = largeRun(attempts);

    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        QTextStream(stderr) << "cannot write " << path << ": " << file.errorString() << "\n";
        return 2;
    }
    QTextStream out(&file);
    out << "format\tredacted\tattempts\tms\tbytes\n";

    const auto measure = [&](const QString &name, bool redact, const std::function<QByteArray()> &produce) {
        QElapsedTimer timer;
        timer.start();
        const QByteArray bytes = produce();
        out << name << '\t' << (redact ? "yes" : "no") << '\t' << run.attempts.size() << '\t' << timer.elapsed() << '\t'
            << bytes.size() << '\n';
        return bytes;
    };
    for (bool redact : {true, false}) {
        const ExportOptions options{redact};
        const QByteArray report
            = measure(QStringLiteral("json-report"), redact, [&] { return ReportJson::toJson(run, options); });
        measure(QStringLiteral("json-report-read"), redact,
            [&] { return ReportJson::fromJson(report).ok() ? report : QByteArray(); });
        measure(QStringLiteral("csv"), redact, [&] { return CsvExport::toCsv(run, options); });
        measure(QStringLiteral("har"), redact, [&] { return HarExport::toJson(run, options); });
    }
    // A run read back from its report: every request with a 60 KB header of its
    // own (a large cookie), repeated by each attempt. The bytes the read run holds
    // for its headers, per attempt, against what separate copies would take.
    RunRecord cookies = largeRun(std::min(attempts, 2'000));
    const QByteArray cookie(60 * 1024, 'c');
    for (RequestSpec &spec : cookies.requests)
        spec.headers.append(qMakePair(QByteArray("Cookie"), cookie));
    for (AttemptRecord &a : cookies.attempts)
        a.requestHeaders.append(qMakePair(QByteArray("Cookie"), cookie));
    const auto back = ReportJson::fromJson(ReportJson::toJson(cookies, ExportOptions{false}));
    if (!back) {
        QTextStream(stderr) << "the report did not read back: " << back.error() << "\n";
        return 1;
    }
    const auto [total, held] = headerBytes(back->run);
    out << "\nread back\tattempts\theader bytes\theld\theld per attempt\n";
    out << "json-report-read-60k-cookie\t" << back->run.attempts.size() << '\t' << total << '\t' << held << '\t'
        << held / std::max<qsizetype>(1, back->run.attempts.size()) << '\n';
    out.flush();
    QTextStream(stdout) << "wrote " << path << "\n";
    return 0;
}
