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
#include <QTextStream>

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
    out.flush();
    QTextStream(stdout) << "wrote " << path << "\n";
    return 0;
}
