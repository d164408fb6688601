#include "core/export/curlretryflags.h"
#include "core/policy/presets.h"

#include "tests/core/capturingserver.h"
#include "tests/tools/requiredtool.h"

#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace RetryLab::Core;

namespace {

BackoffPolicy preset(const char *id)
{
    return Presets::find(QString::fromLatin1(id)).value();
}

bool notes(const CurlRetryFlags::Flags &flags, const QString &fragment)
{
    for (const QString &note : flags.notes) {
        if (note.contains(fragment))
            return true;
    }
    return false;
}

QString argAfter(const CurlRetryFlags::Flags &flags, const QString &option)
{
    const qsizetype at = flags.arguments.indexOf(option);
    return at >= 0 ? flags.arguments.value(at + 1) : QString();
}

void giveUpOnNetworkFaults(BackoffPolicy &p)
{
    for (auto &action : p.classification.networkActions)
        action = FaultAction::GiveUp;
}

} // namespace

class TestCurlRetryFlags : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void curlPreset_isCurlsOwnBehaviour();
    void storagePreset_usesCurlBackoffAndNamesTheDifferences();
    void constantDelay_becomesRetryDelay();
    void otherExponential_becomesAConstantDelayWithANote();
    void immediateAndLinear_sayWhatCurlDoesInstead();
    void deadline_becomesRetryMaxTimeInWholeSeconds();
    void deadlineOnly_stillBoundsTheRetries();
    void singleAttempt_hasNoRetry();
    void networkFaults_chooseConnrefusedOrAllErrors();
    void statuses_namesWhatCurlRetriesDifferently();
    void decimalSeconds_data();
    void decimalSeconds();
    void realCurl_acceptsTheFlagsOfEveryPreset();
    void realCurl_retriesAsTheFlagsSay();
};

void TestCurlRetryFlags::curlPreset_isCurlsOwnBehaviour()
{
    const auto flags = CurlRetryFlags::fromPolicy(preset("curl-retry"));
    QCOMPARE(flags.arguments,
        (QStringList{
            QStringLiteral("--retry"), QStringLiteral("3"), QStringLiteral("--max-time"), QStringLiteral("30")}));
    QVERIFY(!notes(flags, QStringLiteral("jitter")));
    QVERIFY(!notes(flags, QStringLiteral("10 minutes")));
    QVERIFY(!notes(flags, QStringLiteral("curl also retries")));
    QVERIFY(!notes(flags, QStringLiteral("cannot retry")));
    QVERIFY(notes(flags, QStringLiteral("POST and PATCH")));
}

void TestCurlRetryFlags::storagePreset_usesCurlBackoffAndNamesTheDifferences()
{
    const auto flags = CurlRetryFlags::fromPolicy(preset("google-cloud-storage"));
    QCOMPARE(argAfter(flags, QStringLiteral("--retry")), QStringLiteral("9"));
    QVERIFY(!flags.arguments.contains(QStringLiteral("--retry-delay")));
    QVERIFY(notes(flags, QStringLiteral("cannot cap it at 32 s")));
    QVERIFY(notes(flags, QStringLiteral("no jitter")));
    QVERIFY(notes(flags, QStringLiteral("it cannot retry 501, 505-599 alone")));
    QVERIFY(!notes(flags, QStringLiteral("curl also retries HTTP 408"))); // so does Cloud Storage
    QVERIFY(notes(flags, QStringLiteral("caps it at 1 min")));
}

void TestCurlRetryFlags::constantDelay_becomesRetryDelay()
{
    const auto azure = CurlRetryFlags::fromPolicy(preset("azure-retry-pattern"));
    QCOMPARE(argAfter(azure, QStringLiteral("--retry")), QStringLiteral("3"));
    QCOMPARE(argAfter(azure, QStringLiteral("--retry-delay")), QStringLiteral("5"));
    QVERIFY(!notes(azure, QStringLiteral("whole seconds")));

    BackoffPolicy p = preset("azure-retry-pattern");
    p.baseDelayMs = 2500.0;
    p.maxBackoffMs = 2500.0;
    const auto rounded = CurlRetryFlags::fromPolicy(p);
    QCOMPARE(argAfter(rounded, QStringLiteral("--retry-delay")), QStringLiteral("3"));
    QVERIFY(notes(rounded, QStringLiteral("2500 ms became 3 s")));
}

void TestCurlRetryFlags::otherExponential_becomesAConstantDelayWithANote()
{
    const auto flags = CurlRetryFlags::fromPolicy(preset("grpc-retry-policy"));
    QCOMPARE(argAfter(flags, QStringLiteral("--retry")), QStringLiteral("3"));
    QCOMPARE(argAfter(flags, QStringLiteral("--retry-delay")), QStringLiteral("1"));
    QCOMPARE(argAfter(flags, QStringLiteral("--max-time")), QStringLiteral("10"));
    QVERIFY(notes(flags, QStringLiteral("cannot grow the wait from 100 ms by 2")));
    QVERIFY(notes(flags, QStringLiteral("no retry budget")));
}

void TestCurlRetryFlags::immediateAndLinear_sayWhatCurlDoesInstead()
{
    BackoffPolicy immediate;
    immediate.algorithm = BackoffAlgorithm::Immediate;
    immediate.baseDelayMs = 0.0;
    const auto a = CurlRetryFlags::fromPolicy(immediate);
    QCOMPARE(argAfter(a, QStringLiteral("--retry-delay")), QStringLiteral("1"));
    QVERIFY(notes(a, QStringLiteral("cannot retry at once")));

    BackoffPolicy linear;
    linear.algorithm = BackoffAlgorithm::Linear;
    linear.baseDelayMs = 2000.0;
    const auto b = CurlRetryFlags::fromPolicy(linear);
    QCOMPARE(argAfter(b, QStringLiteral("--retry-delay")), QStringLiteral("2"));
    QVERIFY(notes(b, QStringLiteral("linearly")));
}

void TestCurlRetryFlags::deadline_becomesRetryMaxTimeInWholeSeconds()
{
    BackoffPolicy p = preset("curl-retry");
    p.deadlineMs = 90'500.0;
    const auto flags = CurlRetryFlags::fromPolicy(p);
    QCOMPARE(argAfter(flags, QStringLiteral("--retry-max-time")), QStringLiteral("91"));
    QVERIFY(notes(flags, QStringLiteral("90500 ms became 91 s")));
    QVERIFY(notes(flags, QStringLiteral("only stops new retries")));
}

void TestCurlRetryFlags::deadlineOnly_stillBoundsTheRetries()
{
    const auto flags = CurlRetryFlags::fromPolicy(preset("iam"));
    QCOMPARE(argAfter(flags, QStringLiteral("--retry-max-time")), QStringLiteral("300"));
    QVERIFY(argAfter(flags, QStringLiteral("--retry")).toInt() >= 12);
    QVERIFY(notes(flags, QStringLiteral("bounded only by its deadline")));
}

void TestCurlRetryFlags::singleAttempt_hasNoRetry()
{
    BackoffPolicy p;
    p.maxAttempts = 1;
    p.attemptTimeoutMs = 2500.0;
    const auto flags = CurlRetryFlags::fromPolicy(p);
    QCOMPARE(flags.arguments, (QStringList{QStringLiteral("--max-time"), QStringLiteral("2.5")}));
    QVERIFY(notes(flags, QStringLiteral("single attempt")));
}

void TestCurlRetryFlags::networkFaults_chooseConnrefusedOrAllErrors()
{
    BackoffPolicy p = preset("curl-retry");
    giveUpOnNetworkFaults(p);
    auto flags = CurlRetryFlags::fromPolicy(p);
    QVERIFY(!flags.arguments.contains(QStringLiteral("--retry-connrefused")));
    QVERIFY(!flags.arguments.contains(QStringLiteral("--retry-all-errors")));
    QVERIFY(notes(flags, QStringLiteral("always retries timeouts")));

    p.classification.networkActions[NetworkFaultClass::ConnectionRefused] = FaultAction::RetryAfterDelay;
    flags = CurlRetryFlags::fromPolicy(p);
    QVERIFY(flags.arguments.contains(QStringLiteral("--retry-connrefused")));
    QVERIFY(!flags.arguments.contains(QStringLiteral("--retry-all-errors")));

    // Resets alone do not justify retrying DNS and TLS failures too: a note, no flag.
    p.classification.networkActions[NetworkFaultClass::ConnectionReset] = FaultAction::RetryAfterDelay;
    p.classification.networkActions[NetworkFaultClass::BrokenStream] = FaultAction::RetryImmediately;
    flags = CurlRetryFlags::fromPolicy(p);
    QVERIFY(flags.arguments.contains(QStringLiteral("--retry-connrefused")));
    QVERIFY(!flags.arguments.contains(QStringLiteral("--retry-all-errors")));
    QVERIFY(notes(flags, QStringLiteral("curl treats connection-reset, broken-stream as permanent")));

    // A policy that retries every transport fault is what --retry-all-errors does.
    for (auto &action : p.classification.networkActions)
        action = FaultAction::RetryAfterDelay;
    flags = CurlRetryFlags::fromPolicy(p);
    QVERIFY(flags.arguments.contains(QStringLiteral("--retry-all-errors")));
    QVERIFY(!flags.arguments.contains(QStringLiteral("--retry-connrefused")));
    QVERIFY(notes(flags, QStringLiteral("every transport error")));
}

void TestCurlRetryFlags::statuses_namesWhatCurlRetriesDifferently()
{
    const auto flags = CurlRetryFlags::fromPolicy(preset("iam-retry-404"));
    QVERIFY(notes(flags, QStringLiteral("it cannot retry 404 alone")));
    QVERIFY(notes(flags, QStringLiteral("curl also retries HTTP 408, 429, which the policy does not")));
    QCOMPARE(CurlRetryFlags::curlRetriedStatuses(), (QList<int>{408, 429, 500, 502, 503, 504}));
}

void TestCurlRetryFlags::decimalSeconds_data()
{
    QTest::addColumn<double>("ms");
    QTest::addColumn<QString>("expected");
    QTest::addRow("whole") << 10'000.0 << QStringLiteral("10");
    QTest::addRow("half") << 1500.0 << QStringLiteral("1.5");
    QTest::addRow("quarter") << 250.0 << QStringLiteral("0.25");
    QTest::addRow("sub-millisecond never 0") << 0.2 << QStringLiteral("0.001");
    QTest::addRow("zero") << 0.0 << QStringLiteral("0");
    QTest::addRow("a day") << 86'400'000.0 << QStringLiteral("86400");
}

void TestCurlRetryFlags::decimalSeconds()
{
    QFETCH(double, ms);
    QFETCH(QString, expected);
    QCOMPARE(CurlRetryFlags::decimalSeconds(ms), expected);
}

void TestCurlRetryFlags::realCurl_acceptsTheFlagsOfEveryPreset()
{
    const QString curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
    if (curl.isEmpty())
        RETRYLAB_MISSING_TOOL("curl is not installed: install the Debian package curl (scripts/deps.sh does)");
    CapturingServer::Server server;
    QVERIFY(server.start());
    for (const Presets::Preset &p : Presets::all()) {
        const auto flags = CurlRetryFlags::fromPolicy(p.policy);
        QProcess process;
        process.start(
            curl, flags.arguments + QStringList{QStringLiteral("-s"), QString::fromLatin1(server.baseUrl() + "/ok")});
        QSignalSpy finished(&process, &QProcess::finished);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 20'000);
        QVERIFY2(process.exitCode() == 0,
            qPrintable(QStringLiteral("%1: curl %2 exited with %3: %4")
                           .arg(p.id, flags.arguments.join(QLatin1Char(' ')))
                           .arg(process.exitCode())
                           .arg(QString::fromUtf8(process.readAllStandardError()))));
    }
    QCOMPARE(server.requests.size(), Presets::all().size());
}

void TestCurlRetryFlags::realCurl_retriesAsTheFlagsSay()
{
    const QString curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
    if (curl.isEmpty())
        RETRYLAB_MISSING_TOOL("curl is not installed: install the Debian package curl (scripts/deps.sh does)");
    CapturingServer::Server server;
    QVERIFY(server.start());
    server.statuses = {503, 429};

    BackoffPolicy p = preset("azure-retry-pattern");
    p.baseDelayMs = 1000.0;
    p.maxBackoffMs = 1000.0;
    p.maxAttempts = 3;
    const auto flags = CurlRetryFlags::fromPolicy(p);
    QCOMPARE(argAfter(flags, QStringLiteral("--retry")), QStringLiteral("2"));

    QProcess process;
    process.start(
        curl, flags.arguments + QStringList{QStringLiteral("-s"), QString::fromLatin1(server.baseUrl() + "/flaky")});
    QSignalSpy finished(&process, &QProcess::finished);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30'000);
    QCOMPARE(process.exitCode(), 0);
    QCOMPARE(server.requests.size(), 3);
    // curl writes every response it got to stdout, the retried ones included.
    QCOMPARE(process.readAllStandardOutput(), QByteArray("status 503\nstatus 429\nstatus 200\n"));
}

QTEST_GUILESS_MAIN(TestCurlRetryFlags)
#include "tst_curlretryflags.moc"
