// The proof of the runnable exports: the program `retrylab policy export
// --runnable` writes is run under Debian's python3 with the real library (or,
// for curl, the script under /bin/sh with Debian's curl) against `retrylab
// observe`, and the policy the observer infers from what the library did must
// be the exported one.

#include "commandtesting.h"

#include "core/export/botocoreexport.h"
#include "core/export/curlscript.h"
#include "core/export/tenacityexport.h"
#include "core/export/urllib3export.h"
#include "core/observe/observationreport.h"
#include "core/policy/policyjson.h"
#include "core/policy/presets.h"
#include "tests/tools/requiredtool.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <memory>
#include <vector>

using namespace RetryLab;

namespace {

bool near(double actual, double expected, double fraction)
{
    return std::abs(actual - expected) <= std::abs(expected) * fraction;
}

QString describeInferred(const Core::InferredPolicy &p)
{
    QString text = p.summary();
    text += QStringLiteral(" | growth %1 | jitter %2: %3 | limit: %4 | delays:")
                .arg(Core::PolicyInference::growthName(p.growth), Core::PolicyInference::jitterName(p.jitter),
                    p.jitterConfidence.evidence, p.maxAttemptsConfidence.evidence);
    for (const auto &d : p.delays)
        text += QStringLiteral(" [%1: n=%2 %3..%4]")
                    .arg(d.retryIndex)
                    .arg(d.count)
                    .arg(d.minMs, 0, 'f', 0)
                    .arg(d.maxMs, 0, 'f', 0);
    return text;
}

/// A preset with its times scaled down and `attempts` attempts, so that a run takes a second or two.
Core::BackoffPolicy scaled(const char *id, double factor, int attempts)
{
    Core::BackoffPolicy p = *Core::Presets::find(QLatin1String(id));
    p.baseDelayMs *= factor;
    p.maxBackoffMs *= factor;
    p.jitterMs *= factor;
    p.maxAttempts = attempts;
    p.deadlineMs = 0.0;
    p.attemptTimeoutMs = 10'000.0;
    return p;
}

Core::JitterKind expectedJitter(const Core::BackoffPolicy &p)
{
    switch (p.algorithm) {
    case Core::BackoffAlgorithm::FullJitter:
        return Core::JitterKind::Full;
    case Core::BackoffAlgorithm::EqualJitter:
        return Core::JitterKind::Equal;
    case Core::BackoffAlgorithm::GoogleTruncatedExponential:
    case Core::BackoffAlgorithm::IamTruncatedExponential:
        return Core::JitterKind::Additive;
    default:
        return Core::JitterKind::None;
    }
}

Core::Growth expectedGrowth(const Core::BackoffPolicy &p)
{
    switch (p.algorithm) {
    case Core::BackoffAlgorithm::Constant:
        return Core::Growth::Constant;
    case Core::BackoffAlgorithm::Linear:
        return Core::Growth::Linear;
    default:
        return Core::Growth::Exponential;
    }
}

/// What compareInferred() requires, as a yes or no, to decide whether a trial needs another.
bool matchesExported(const Core::BackoffPolicy &policy, const Core::InferredPolicy &p)
{
    return p.jitter == expectedJitter(policy) && p.growth == expectedGrowth(policy) && p.baseMs
        && near(*p.baseMs, policy.baseDelayMs, 0.10)
        && (policy.algorithm == Core::BackoffAlgorithm::Constant
            || (p.multiplier && near(*p.multiplier, policy.multiplier, 0.10)))
        && p.maxAttempts.value_or(-1) == policy.maxAttempts && (!p.capMs || near(*p.capMs, policy.maxBackoffMs, 0.10));
}

} // namespace

class TestPythonExportsObserved : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    /// Whether Debian's python3 has `module`.
    static bool hasModule(const char *module)
    {
        if (!QFileInfo::exists(QStringLiteral("/usr/bin/python3")))
            return false;
        QProcess probe;
        probe.start(QStringLiteral("/usr/bin/python3"),
            {QStringLiteral("-c"), QStringLiteral("import %1").arg(QLatin1String(module))});
        return probe.waitForFinished(20'000) && probe.exitCode() == 0;
    }

    /// Exports `policy` as a runnable program of `format`; its path, empty on failure.
    QString exportProgram(const Core::BackoffPolicy &policy, const QString &format, const QString &tag)
    {
        const QString policyPath = m_dir.filePath(tag + QStringLiteral(".json"));
        if (!Core::PolicyJson::writeFile(policyPath, policy))
            return {};
        const QString program
            = m_dir.filePath(tag + (format == QLatin1String("curl") ? QStringLiteral(".sh") : QStringLiteral(".py")));
        const auto outcome = CommandTesting::run({QStringLiteral("policy"), QStringLiteral("export"),
            QStringLiteral("--format"), format, QStringLiteral("--runnable"),
            QStringLiteral("http://127.0.0.1:9/bucket/key"), QStringLiteral("--out"), program, policyPath});
        if (outcome.exitCode != 0) {
            qWarning().noquote() << outcome.err;
            return {};
        }
        return program;
    }

    /// Runs `count` copies of the program at once against a fresh `retrylab observe`
    /// (every attempt answered 503), `parallel` at a time, each on its own path, with
    /// `interpreter`; the observer's report.
    std::optional<Core::ObservationReport> observe(const QString &program, int count, int parallel,
        const QString &interpreter = QStringLiteral("/usr/bin/python3"))
    {
        const QString reportPath = m_dir.filePath(QStringLiteral("report-%1.json").arg(QFileInfo(program).baseName()));
        QFile::remove(reportPath);
        QProcess observer;
        const QUrl base = CommandTesting::startObserver(observer,
            {QStringLiteral("--plan"), QStringLiteral("always-503"), QStringLiteral("--report"), reportPath,
                QStringLiteral("--quiet")});
        if (!base.isValid()) {
            qWarning().noquote() << observer.readAllStandardError();
            return std::nullopt;
        }
        // A few at a time: thirty Python processes starting at once on a small machine hold up the
        // ones already retrying by a hundred milliseconds, which the observer would see as their delays.
        bool allFailed = true;
        for (int first = 0; first < count; first += parallel) {
            std::vector<std::unique_ptr<QProcess>> clients;
            for (int i = first; i < std::min(count, first + parallel); ++i) {
                auto client = std::make_unique<QProcess>();
                client->setProcessChannelMode(QProcess::MergedChannels);
                client->start(
                    interpreter, {program, base.resolved(QUrl(QStringLiteral("/bucket/key-%1").arg(i))).toString()});
                clients.push_back(std::move(client));
            }
            for (auto &client : clients) {
                QSignalSpy finished(client.get(), &QProcess::finished);
                if (client->state() != QProcess::NotRunning && !finished.wait(60'000)) {
                    client->kill();
                    client->waitForFinished(5'000);
                    qWarning() << "a client did not finish";
                    return std::nullopt;
                }
                // Every attempt got 503: the program must say it failed.
                if (client->exitCode() != 1) {
                    allFailed = false;
                    qWarning().noquote() << "exit" << client->exitCode() << client->readAll();
                }
            }
        }
        QSignalSpy ended(&observer, &QProcess::finished);
        observer.terminate(); // as Ctrl+C: it writes the report
        if (!ended.wait(15'000))
            return std::nullopt;
        if (!allFailed)
            return std::nullopt;
        const auto report
            = Core::ObservationReport::fromJson(QJsonDocument::fromJson(CommandTesting::read(reportPath)).object());
        if (!report) {
            qWarning().noquote() << report.error();
            return std::nullopt;
        }
        return *report;
    }

    static std::optional<Core::InferredPolicy> inferredFor(const Core::ObservationReport &report, const QString &agent)
    {
        for (const auto &c : report.clients) {
            if (c.client.userAgent.contains(agent)) {
                qInfo().noquote() << c.client.userAgent << "->" << describeInferred(c.policy);
                return c.policy;
            }
        }
        return std::nullopt;
    }

    /// The exported policy against what the observer saw the real library do.
    static void compareInferred(const Core::BackoffPolicy &policy, const Core::InferredPolicy &p)
    {
        const QString seen = describeInferred(p);
        QCOMPARE(p.jitter, expectedJitter(policy));
        QCOMPARE(p.growth, expectedGrowth(policy));
        QVERIFY2(p.baseMs && near(*p.baseMs, policy.baseDelayMs, 0.10), qPrintable(seen));
        if (policy.algorithm != Core::BackoffAlgorithm::Constant)
            QVERIFY2(p.multiplier && near(*p.multiplier, policy.multiplier, 0.10), qPrintable(seen));
        QCOMPARE(p.maxAttempts.value_or(-1), policy.maxAttempts);
        // The cap is compared where the attempts reach it.
        if (p.capMs)
            QVERIFY2(near(*p.capMs, policy.maxBackoffMs, 0.10), qPrintable(seen));
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // tenacity expresses every exponential family but decorrelated jitter, and constant waits.
    void tenacityFollowsTheExportedPolicy_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<int>("clients");
        QTest::addColumn<double>("scale");
        // Times scaled to a tenth or a twentieth: 1 s becomes 100 or 50 ms. Jitter needs more logical requests to be
        // told, and longer delays, so that the few milliseconds Python takes between an answer and
        // the next attempt stay well below the 10 % the base is compared within.
        QTest::newRow("curl-retry: exponential") << QStringLiteral("curl-retry") << 3 << 0.1;
        QTest::newRow("aws-standard: full jitter") << QStringLiteral("aws-standard") << 24 << 0.1;
        QTest::newRow("azure-retry-pattern: constant") << QStringLiteral("azure-retry-pattern") << 3 << 0.05;
    }

    void tenacityFollowsTheExportedPolicy()
    {
        QFETCH(QString, preset);
        QFETCH(int, clients);
        QFETCH(double, scale);
        if (!hasModule("tenacity") || !hasModule("requests"))
            RETRYLAB_MISSING_TOOL("tenacity or requests is missing: install the Debian packages python3-tenacity and "
                                  "python3-requests (scripts/deps.sh does)");
        const Core::BackoffPolicy policy = scaled(preset.toLatin1().constData(), scale, 4);
        const QString program = exportProgram(policy, QStringLiteral("tenacity"), QStringLiteral("tenacity-") + preset);
        QVERIFY(!program.isEmpty());
        // A machine busy elsewhere delays a Python process by tens of milliseconds, which looks like
        // jitter where the library draws none, and the highest of a few dozen random delays may
        // fall short of the band's top: such a trial gets another, on fresh observations.
        std::optional<Core::InferredPolicy> p;
        for (int trial = 1; trial <= 3; ++trial) {
            const auto report = observe(program, clients, 2);
            QVERIFY(report);
            p = inferredFor(*report, QLatin1String(Core::TenacityExport::userAgent));
            QVERIFY(p);
            if (matchesExported(policy, *p))
                break;
            qWarning().noquote() << "trial" << trial << "did not match:" << describeInferred(*p);
        }
        compareInferred(policy, *p);
    }

    // urllib3 1.26 can only double from backoff_factor, without jitter: curl's preset is what it can express.
    void urllib3FollowsTheExportedPolicy()
    {
        if (!hasModule("urllib3") || !hasModule("requests"))
            RETRYLAB_MISSING_TOOL("urllib3 or requests is missing: install the Debian packages python3-urllib3 and "
                                  "python3-requests (scripts/deps.sh does)");
        const Core::BackoffPolicy policy = scaled("curl-retry", 0.05, 5);
        const QString program = exportProgram(policy, QStringLiteral("urllib3"), QStringLiteral("urllib3-curl-retry"));
        QVERIFY(!program.isEmpty());
        std::optional<Core::InferredPolicy> p;
        for (int trial = 1; trial <= 3; ++trial) {
            const auto report = observe(program, 3, 3);
            QVERIFY(report);
            p = inferredFor(*report, QLatin1String(Core::Urllib3Export::userAgent));
            QVERIFY(p);
            if (p->firstRetryImmediate && matchesExported(policy, *p))
                break;
            qWarning().noquote() << "trial" << trial << "did not match:" << describeInferred(*p);
        }
        // urllib3 retries the first time at once (the export's note); from the second, base * 2^n.
        QVERIFY(p->firstRetryImmediate);
        compareInferred(policy, *p);
    }

    // botocore's delays are its mode's, not settable: the AWS preset is standard mode itself, and it
    // cannot be scaled down. Its full-jitter delays from 1 s need far more logical requests than a
    // quick test sends to pin the base within 10 %, so the attempt limit (announced in
    // amz-sdk-request) and the jitter kind are compared, and each delay must lie in standard
    // mode's [0, 2^n s].
    void botocoreFollowsTheExportedPolicy()
    {
        if (!hasModule("botocore"))
            RETRYLAB_MISSING_TOOL(
                "botocore is missing: install the Debian package python3-botocore (scripts/deps.sh does)");
        const Core::BackoffPolicy policy = *Core::Presets::find(QStringLiteral("aws-standard"));
        QCOMPARE(Core::BotocoreExport::mode(policy), QStringLiteral("standard"));
        const QString program = exportProgram(policy, QStringLiteral("botocore"), QStringLiteral("botocore-aws"));
        QVERIFY(!program.isEmpty());
        // Full jitter against decorrelated is told apart from a sample of delays: a trial whose
        // sample is too small to say is run again, as the other cases do.
        std::optional<Core::InferredPolicy> p;
        for (int trial = 1; trial <= 3; ++trial) {
            const auto report = observe(program, 20, 10);
            QVERIFY(report);
            p = inferredFor(*report, QLatin1String(Core::BotocoreExport::userAgentExtra));
            QVERIFY(p);
            if (p->jitter == Core::JitterKind::Full)
                break;
            qWarning().noquote() << "trial" << trial << "did not match:" << describeInferred(*p);
        }
        QCOMPARE(p->maxAttempts.value_or(-1), policy.maxAttempts);
        QCOMPARE(p->jitter, Core::JitterKind::Full);
        const Core::BackoffPolicy standard = Core::BotocoreExport::standardModeBackoff();
        for (const auto &d : p->delays) {
            const double high = std::min(standard.maxBackoffMs, standard.baseDelayMs * std::pow(2.0, d.retryIndex));
            QVERIFY2(d.maxMs <= high + 100.0, qPrintable(describeInferred(*p)));
        }
    }

    // curl's script: its retry flags can say a constant wait of whole seconds (--retry-delay) or
    // curl's own backoff, 1 s doubled, without jitter; those are what it is proved on. Neither can
    // be scaled down, so a few clients suffice: there is no jitter to tell apart.
    void curlScriptFollowsTheExportedPolicy_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<double>("baseMs");
        QTest::newRow("curl-retry: curl's own backoff") << QStringLiteral("curl-retry") << 1000.0;
        QTest::newRow("azure-retry-pattern: constant 1 s") << QStringLiteral("azure-retry-pattern") << 1000.0;
    }

    void curlScriptFollowsTheExportedPolicy()
    {
        QFETCH(QString, preset);
        QFETCH(double, baseMs);
        if (!QFileInfo::exists(QStringLiteral("/usr/bin/curl")))
            RETRYLAB_MISSING_TOOL("curl is missing: install the Debian package curl (scripts/deps.sh does)");
        Core::BackoffPolicy policy = *Core::Presets::find(preset);
        policy.baseDelayMs = baseMs;
        if (policy.algorithm == Core::BackoffAlgorithm::Constant)
            policy.maxBackoffMs = baseMs;
        policy.maxAttempts = 4;
        policy.deadlineMs = 0.0;
        policy.attemptTimeoutMs = 10'000.0;
        const QString program = exportProgram(policy, QStringLiteral("curl"), QStringLiteral("curl-") + preset);
        QVERIFY(!program.isEmpty());
        QVERIFY(CommandTesting::read(program).contains("--user-agent retrylab-curl/1.0"));
        std::optional<Core::InferredPolicy> p;
        for (int trial = 1; trial <= 3; ++trial) {
            const auto report = observe(program, 3, 3, QStringLiteral("/bin/sh"));
            QVERIFY(report);
            p = inferredFor(*report, QLatin1String(Core::CurlScript::userAgent));
            QVERIFY(p);
            if (matchesExported(policy, *p))
                break;
            qWarning().noquote() << "trial" << trial << "did not match:" << describeInferred(*p);
        }
        compareInferred(policy, *p);
    }
};

QTEST_GUILESS_MAIN(TestPythonExportsObserved)
#include "tst_pythonexportsobserved.moc"
