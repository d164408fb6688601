#include "core/export/botocoreexport.h"
#include "core/export/pythonsource.h"
#include "core/export/tenacityexport.h"
#include "core/export/urllib3export.h"
#include "core/policy/presets.h"

#include "tests/tools/requiredtool.h"

#include <QFileInfo>
#include <QProcess>
#include <QTest>

using namespace RetryLab::Core;

namespace {

BackoffPolicy pythonPreset(const char *id)
{
    return Presets::find(QString::fromLatin1(id)).value();
}

bool hasNote(const PythonSource::Code &code, const QString &fragment)
{
    for (const QString &note : code.notes) {
        if (note.contains(fragment))
            return true;
    }
    return false;
}

/// Runs Debian's python3 with `script` and `input` on standard input; its standard output, or
/// nothing with the error in `error`.
std::optional<QByteArray> runPython(const QString &script, const QByteArray &input, QString *error)
{
    QProcess python;
    python.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), script});
    if (!python.waitForStarted(10'000)) {
        *error = python.errorString();
        return std::nullopt;
    }
    python.write(input);
    python.closeWriteChannel();
    if (!python.waitForFinished(30'000) || python.exitCode() != 0) {
        *error = QString::fromUtf8(python.readAllStandardError());
        return std::nullopt;
    }
    return python.readAllStandardOutput();
}

} // namespace

/// tenacity, urllib3 and botocore code written from policies: the text for
/// presets, a note for every field a library cannot express, and every
/// preset's snippet and program accepted by Python's compiler.
class TestPythonExports : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (!QFileInfo::exists(QStringLiteral("/usr/bin/python3")))
            RETRYLAB_MISSING_TOOL("python3 is not installed: install the Debian package python3");
    }

    void literals()
    {
        QCOMPARE(PythonSource::seconds(50), QStringLiteral("0.05"));
        QCOMPARE(PythonSource::seconds(20'000), QStringLiteral("20"));
        QCOMPARE(PythonSource::seconds(0.0005), QStringLiteral("0.000001"));
        QCOMPARE(PythonSource::statusSet({}), QStringLiteral("set()"));
        QCOMPARE(PythonSource::statusSet({503, 429, 500, 502, 504}), QStringLiteral("{429, 500, 502, 503, 504}"));
        QList<int> all{408, 429};
        for (int s = 500; s < 600; ++s)
            all << s;
        QCOMPARE(PythonSource::statusSet(all), QStringLiteral("{408, 429, *range(500, 600)}"));
        QCOMPARE(PythonSource::comment(QStringLiteral("a\nb\r\x1b c")), QStringLiteral("# a b   c"));
    }

    // A value with quotes, backslashes, line breaks and control characters reads back as itself.
    void stringLiteral_readsBackAsTheSameText()
    {
        const QString nasty = QStringLiteral("http://h/a'b\"c\\d\ne\r\x1b\u2028\u00e9'''\\");
        QString error;
        const auto back = runPython(QStringLiteral("import ast,sys; sys.stdout.buffer.write(ast.literal_eval("
                                                   "sys.stdin.read()).encode())"),
            PythonSource::stringLiteral(nasty).toUtf8(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(QString::fromUtf8(*back), nasty);
    }

    void tenacity_text()
    {
        const auto aws = TenacityExport::snippet(pythonPreset("aws-standard"));
        QVERIFY2(aws.text.contains(QStringLiteral("wait=wait_random_exponential(multiplier=1, exp_base=2, max=20),")),
            qPrintable(aws.text));
        QVERIFY(aws.text.contains(QStringLiteral("stop=stop_after_attempt(3),")));
        QVERIFY(aws.text.contains(QStringLiteral("RETRYABLE_STATUSES = {429, 500, 502, 503, 504}")));
        QVERIFY(
            aws.text.contains(QStringLiteral("retry=retry_if_result(retryable_status) | retry_if_exception_type(")));
        QVERIFY(aws.text.contains(QStringLiteral("requests.get(url, timeout=30)")));
        QVERIFY(hasNote(aws, QStringLiteral("tenacity ignores Retry-After")));
        QVERIFY(hasNote(aws, QStringLiteral("no retry budget")));

        const auto curl = TenacityExport::snippet(pythonPreset("curl-retry"));
        QVERIFY(curl.text.contains(QStringLiteral("wait=wait_exponential(multiplier=1, exp_base=2, max=600),")));
        const auto gcs = TenacityExport::snippet(pythonPreset("google-cloud-storage"));
        QVERIFY(gcs.text.contains(
            QStringLiteral("wait=wait_exponential_jitter(initial=1, exp_base=2, max=32, jitter=1),")));
        const auto polly = TenacityExport::snippet(pythonPreset("polly-default"));
        QVERIFY(polly.text.contains(QStringLiteral("wait=wait_fixed(2),")));
        QVERIFY(polly.text.contains(QStringLiteral("{408, 429, *range(500, 600)}")));
        // Equal jitter: a fixed half and a random half.
        const auto batch = TenacityExport::snippet(pythonPreset("azure-batch"));
        QVERIFY(batch.text.contains(QStringLiteral("wait=wait_exponential(multiplier=0.5, exp_base=2, max=30) + "
                                                   "wait_random_exponential(multiplier=0.5, exp_base=2, max=30),")));
        QVERIFY(batch.text.contains(QStringLiteral("stop=stop_after_attempt(8) | stop_after_delay(600),")));
        QVERIFY(hasNote(batch, QStringLiteral("stop_after_delay is checked after each attempt")));
        // A deadline alone.
        const auto iam = TenacityExport::snippet(pythonPreset("iam"));
        QVERIFY(iam.text.contains(QStringLiteral("stop=stop_after_delay(300),")));
        QVERIFY(!iam.text.contains(QStringLiteral("stop_after_attempt")));
        const auto interactive = TenacityExport::snippet(pythonPreset("azure-interactive"));
        QVERIFY(interactive.text.contains(QStringLiteral("wait=wait_fixed(0.25) + wait_random(0, 0.25),")));

        BackoffPolicy decorrelated = pythonPreset("aws-standard");
        decorrelated.algorithm = BackoffAlgorithm::DecorrelatedJitter;
        QVERIFY(hasNote(TenacityExport::snippet(decorrelated), QStringLiteral("no decorrelated jitter")));
        BackoffPolicy linear = pythonPreset("polly-default");
        linear.algorithm = BackoffAlgorithm::Linear;
        linear.maxBackoffMs = 10'000;
        linear.intervalJitter = IntervalJitter::Full;
        const auto lin = TenacityExport::snippet(linear);
        QVERIFY(lin.text.contains(QStringLiteral("wait=wait_incrementing(start=2, increment=2, max=10),")));
        QVERIFY(hasNote(lin, QStringLiteral("cannot randomise a growing linear wait")));
    }

    void urllib3_text()
    {
        const auto curl = Urllib3Export::snippet(pythonPreset("curl-retry"));
        QVERIFY2(curl.text.contains(QStringLiteral("    total=3,\n    connect=0,\n    backoff_factor=1,\n")),
            qPrintable(curl.text));
        QVERIFY(curl.text.contains(QStringLiteral("DEFAULT_BACKOFF_MAX = 600")));
        QVERIFY(curl.text.contains(QStringLiteral("status_forcelist={408, 429, 500, 502, 503, 504},")));
        QVERIFY(curl.text.contains(QStringLiteral("respect_retry_after_header=True,")));
        QVERIFY(curl.text.contains(QStringLiteral("session.mount('http://', HTTPAdapter(max_retries=retry))")));
        QVERIFY(hasNote(curl, QStringLiteral("urllib3 retries the first time at once")));
        QVERIFY(!hasNote(curl, QStringLiteral("no jitter")));

        const auto aws = Urllib3Export::snippet(pythonPreset("aws-standard"));
        QVERIFY(hasNote(aws, QStringLiteral("urllib3 1.26 (Debian 12) has no jitter")));
        const auto polly = Urllib3Export::snippet(pythonPreset("polly-default"));
        QVERIFY(hasNote(polly, QStringLiteral("cannot wait a constant time")));
        const auto iam = Urllib3Export::snippet(pythonPreset("iam"));
        QVERIFY(hasNote(iam, QStringLiteral("urllib3 has no deadline")));
        QVERIFY(hasNote(iam, QStringLiteral("total=")));

        BackoffPolicy triple = pythonPreset("curl-retry");
        triple.multiplier = 3;
        triple.classification.retryNonIdempotent = true;
        const auto t = Urllib3Export::snippet(triple);
        QVERIFY(hasNote(t, QStringLiteral("always doubles the wait")));
        QVERIFY(t.text.contains(QStringLiteral("allowed_methods=False,")));
        BackoffPolicy now = triple;
        now.algorithm = BackoffAlgorithm::Immediate;
        QVERIFY(Urllib3Export::snippet(now).text.contains(QStringLiteral("backoff_factor=0,")));
    }

    void botocore_text()
    {
        const auto aws = BotocoreExport::snippet(pythonPreset("aws-standard"));
        QVERIFY2(aws.text.contains(QStringLiteral("retries={'total_max_attempts': 3, 'mode': 'standard'},")),
            qPrintable(aws.text));
        QVERIFY(aws.text.contains(QStringLiteral("connect_timeout=30,\n    read_timeout=30,")));
        // The AWS preset's delays are standard mode's own: no note about them.
        QVERIFY(!hasNote(aws, QStringLiteral("fixed by its mode")));
        QVERIFY(hasNote(aws, QStringLiteral("botocore ignores Retry-After")));

        const auto grpc = BotocoreExport::snippet(pythonPreset("grpc-retry-policy"));
        QVERIFY(grpc.text.contains(QStringLiteral("'mode': 'legacy'")));
        QVERIFY(hasNote(grpc, QStringLiteral("fixed by its mode: legacy waits U[0, 1 s * 2^n] without a cap")));
        QVERIFY(hasNote(grpc, QStringLiteral("no gRPC-style retry throttling")));
        QVERIFY(hasNote(grpc, QStringLiteral("also retries HTTP 500, 502, 504,")));
        const auto iam = BotocoreExport::snippet(pythonPreset("iam"));
        QVERIFY(hasNote(iam, QStringLiteral("botocore has no deadline")));
        QVERIFY(hasNote(iam, QStringLiteral("cannot retry 404")) == false);
        QVERIFY(hasNote(BotocoreExport::snippet(pythonPreset("iam-retry-404")), QStringLiteral("cannot retry 404")));

        // The adaptive rate limiter is botocore's adaptive mode: standard's delays and quota, no note.
        const auto adaptive = BotocoreExport::snippet(pythonPreset("aws-adaptive"));
        QVERIFY2(adaptive.text.contains(QStringLiteral("'mode': 'adaptive'")), qPrintable(adaptive.text));
        QVERIFY(!hasNote(adaptive, QStringLiteral("fixed by its mode")));
        QVERIFY(!hasNote(adaptive, QStringLiteral("slows the whole client down")));
        QVERIFY(!hasNote(adaptive, QStringLiteral("rate limiter is fixed")));
        BackoffPolicy tuned = pythonPreset("aws-adaptive");
        tuned.rateLimiter.beta = 0.5;
        tuned.retryBudget.kind = RetryBudgetKind::None;
        const auto tunedOut = BotocoreExport::snippet(tuned);
        QVERIFY(tunedOut.text.contains(QStringLiteral("'mode': 'adaptive'")));
        QVERIFY(hasNote(tunedOut, QStringLiteral("rate limiter is fixed (beta 0.7, scale 0.4")));
        QVERIFY(hasNote(tunedOut, QStringLiteral("adaptive mode comes with standard mode's retry quota")));
        // Every other target says it has no such limiter.
        QVERIFY(hasNote(
            TenacityExport::snippet(pythonPreset("aws-adaptive")), QStringLiteral("tenacity has no such limiter")));
        QVERIFY(!hasNote(TenacityExport::snippet(pythonPreset("aws-standard")), QStringLiteral("no such limiter")));
    }

    void program_usesTheUrlAndItsArgument()
    {
        const QString url = QStringLiteral("http://127.0.0.1:8080/bucket/key");
        for (const auto &code : {TenacityExport::program(pythonPreset("aws-standard"), url),
                 Urllib3Export::program(pythonPreset("aws-standard"), url),
                 BotocoreExport::program(pythonPreset("aws-standard"), url)}) {
            QVERIFY2(code.text.contains(QStringLiteral(
                         "URL = sys.argv[1] if len(sys.argv) > 1 else 'http://127.0.0.1:8080/bucket/key'")),
                qPrintable(code.text));
            QVERIFY(code.text.contains(QStringLiteral("sys.exit(main())")));
        }
        // Notes are the same for the snippet and the program.
        QCOMPARE(
            Urllib3Export::program(pythonPreset("iam"), url).notes, Urllib3Export::snippet(pythonPreset("iam")).notes);
    }

    // Every preset, every target, snippet and program: Python's compiler accepts them.
    void everyPresetCompiles()
    {
        QString sources;
        int count = 0;
        for (const Presets::Preset &preset : Presets::all()) {
            const QString url = QStringLiteral("http://127.0.0.1:1/it's");
            for (const auto &code :
                {TenacityExport::snippet(preset.policy), TenacityExport::program(preset.policy, url),
                    Urllib3Export::snippet(preset.policy), Urllib3Export::program(preset.policy, url),
                    BotocoreExport::snippet(preset.policy), BotocoreExport::program(preset.policy, url)}) {
                sources += code.text + QStringLiteral("\n#@@@ %1\n").arg(preset.id);
                ++count;
            }
        }
        QString error;
        const auto out = runPython(QStringLiteral("import sys\n"
                                                  "n = 0\n"
                                                  "for part in sys.stdin.read().split('\\n#@@@ ')[:-1]:\n"
                                                  "    compile(part, 'export', 'exec')\n"
                                                  "    n += 1\n"
                                                  "print(n)\n"),
            sources.toUtf8(), &error);
        QVERIFY2(out, qPrintable(error));
        QCOMPARE(out->trimmed().toInt(), count);
    }
};

QTEST_GUILESS_MAIN(TestPythonExports)
#include "tst_pythonexports.moc"
