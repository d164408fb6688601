// Real clients that nobody here wrote, pointed at the observer on the fault
// server: what it groups and infers is checked against what their
// documentation says they do. scripts/deps.sh installs them from Debian; a
// client that is missing is skipped with its package named.

#include "core/faultserver/faultserver.h"
#include "core/observe/observer.h"
#include "tests/tools/requiredtool.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

namespace {

bool within(double actual, double expected, double fraction)
{
    return std::abs(actual - expected) <= std::abs(expected) * fraction;
}

QString describe(const InferredPolicy &p)
{
    QString text = p.summary();
    text += QStringLiteral(" | growth %1: %2 | jitter %3: %4 | limit: %5 | delays:")
                .arg(PolicyInference::growthName(p.growth), p.growthConfidence.evidence,
                    PolicyInference::jitterName(p.jitter), p.jitterConfidence.evidence,
                    p.maxAttemptsConfidence.evidence);
    for (const auto &d : p.delays)
        text += QStringLiteral(" [%1: n=%2 %3..%4]")
                    .arg(d.retryIndex)
                    .arg(d.count)
                    .arg(d.minMs, 0, 'f', 0)
                    .arg(d.maxMs, 0, 'f', 0);
    return text;
}

QStringList strings(std::initializer_list<const char *> list)
{
    QStringList result;
    for (const char *s : list)
        result.append(QString::fromLatin1(s));
    return result;
}

} // namespace

class TestThirdPartyClients : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<FaultServer> m_server;
    std::unique_ptr<Observer> m_observer;
    QTemporaryDir m_dir;

    QString base() const { return m_server->baseUrl().toString(); }

    /// Debian's python3 (the packages live in /usr/lib/python3/dist-packages), if it has `module`.
    static QString python(const char *module)
    {
        const QString python = QFileInfo::exists(QStringLiteral("/usr/bin/python3"))
            ? QStringLiteral("/usr/bin/python3")
            : QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (python.isEmpty())
            return {};
        QProcess probe;
        probe.start(python, {QStringLiteral("-c"), QStringLiteral("import %1").arg(QLatin1String(module))});
        return probe.waitForFinished(20'000) && probe.exitCode() == 0 ? python : QString();
    }

    static QString script(const char *name)
    {
        return QStringLiteral(RETRYLAB_OBSERVE_CLIENTS_DIR "/") + QLatin1String(name);
    }

    /// Runs the clients at once and waits for all of them with the event loop
    /// running (the fault server answers them meanwhile), then for the server's
    /// last answers to be recorded, then ends the observation.
    bool runClients(const QList<QPair<QString, QStringList>> &commands, int timeoutMs = 40'000)
    {
        std::vector<std::unique_ptr<QProcess>> processes;
        for (const auto &[program, arguments] : commands) {
            auto process = std::make_unique<QProcess>();
            process->setProcessChannelMode(QProcess::MergedChannels);
            process->start(program, arguments);
            if (!process->waitForStarted(10'000)) {
                qWarning() << program << "did not start:" << process->errorString();
                return false;
            }
            processes.push_back(std::move(process));
        }
        for (auto &process : processes) {
            if (process->state() != QProcess::NotRunning) {
                QSignalSpy finished(process.get(), &QProcess::finished);
                if (!finished.wait(timeoutMs)) {
                    process->kill();
                    qWarning() << process->program() << "did not finish";
                    return false;
                }
            }
            qInfo().noquote() << process->program().section(QLatin1Char('/'), -1) << "exit" << process->exitCode()
                              << QString::fromUtf8(process->readAll()).trimmed().left(400);
        }
        const auto answered = [this] {
            for (const LogicalRequest &r : m_observer->allLogicalRequests()) {
                for (const ObservedAttempt &a : r.attempts) {
                    if (!a.complete)
                        return false;
                }
            }
            return true;
        };
        if (!QTest::qWaitFor(answered, 10'000))
            return false;
        m_observer->finish();
        return true;
    }

    /// The one client whose User-Agent starts with `agent`.
    std::optional<ObservedClient> client(const QString &agent) const
    {
        for (const ObservedClient &c : m_observer->clients()) {
            if (c.userAgent.startsWith(agent))
                return c;
        }
        return std::nullopt;
    }

    InferredPolicy inferred(const ObservedClient &c) const
    {
        const InferredPolicy p = m_observer->inferPolicy(c.id);
        qInfo().noquote() << c.id << "->" << describe(p);
        for (const Verdict &v : m_observer->verdicts(c.id))
            qInfo().noquote() << "   " << Verdict::outcomeName(v.outcome) << v.rule << ":" << v.evidence;
        return p;
    }

    void usePlan(const char *id) { m_observer->setPlan(*ObservationPlan::load(QLatin1String(id))); }

private Q_SLOTS:
    void init()
    {
        m_server = std::make_unique<FaultServer>();
        QVERIFY2(m_server->listen(), qPrintable(m_server->errorString()));
        m_observer = std::make_unique<Observer>();
        m_observer->attach(m_server.get());
    }

    void cleanup()
    {
        m_observer.reset();
        m_server.reset();
    }

    // curl --retry: "it will first wait one second, and then for all forthcoming
    // retries it will double the waiting time" (curl(1)), no jitter.
    void curlDoublesFromOneSecond()
    {
        const QString curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
        if (curl.isEmpty())
            RETRYLAB_MISSING_TOOL("curl is not installed: install the Debian package curl (scripts/deps.sh does)");
        usePlan("always-503");
        // Two curls at once on two paths: two logical requests of one client.
        // (-o FILE, not /dev/null: curl truncates its output before a retry.)
        const auto command = [&](const char *path, const char *out) {
            return QPair<QString, QStringList>{curl,
                strings({"-sS", "-A", "curl-retry-test/1", "--retry", "2", "-o"})
                    << m_dir.filePath(QLatin1String(out)) << base() + QLatin1String(path)};
        };
        QVERIFY(runClients({command("/a", "a"), command("/b", "b")}));
        const auto c = client(QStringLiteral("curl-retry-test/1"));
        QVERIFY(c);
        const QList<LogicalRequest> requests = m_observer->logicalRequests(c->id);
        QCOMPARE(requests.size(), 2);
        for (const LogicalRequest &r : requests) {
            QCOMPARE(r.attempts.size(), 3);
            QCOMPARE(r.attempts[1].rule, GroupingRule::SameRequest);
            QVERIFY2(within(*r.attempts[1].delayMs, 1000, 0.15), qPrintable(QString::number(*r.attempts[1].delayMs)));
            QVERIFY2(within(*r.attempts[2].delayMs, 2000, 0.15), qPrintable(QString::number(*r.attempts[2].delayMs)));
        }
        const InferredPolicy p = inferred(*c);
        QCOMPARE(p.growth, Growth::Exponential);
        QVERIFY2(within(*p.baseMs, 1000, 0.10), qPrintable(describe(p)));
        QVERIFY2(within(*p.multiplier, 2, 0.10), qPrintable(describe(p)));
        QCOMPARE(p.jitter, JitterKind::None);
        QCOMPARE(p.maxAttempts.value_or(-1), 3);
    }

    // curl honours Retry-After: "If the response headers include Retry-After, curl waits that long".
    void curlHonoursRetryAfter()
    {
        const QString curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
        if (curl.isEmpty())
            RETRYLAB_MISSING_TOOL("curl is not installed: install the Debian package curl (scripts/deps.sh does)");
        usePlan("503-retry-after-1");
        QVERIFY(runClients({{curl,
            strings({"-sS", "-A", "curl-retry-after/1", "--retry", "3", "-o"})
                << m_dir.filePath(QStringLiteral("c")) << base() + QStringLiteral("/c")}}));
        const auto c = client(QStringLiteral("curl-retry-after/1"));
        QVERIFY(c);
        const LogicalRequest r = m_observer->logicalRequests(c->id).constFirst();
        QCOMPARE(r.attempts.size(), 3);
        QVERIFY(r.succeeded());
        const InferredPolicy p = inferred(*c);
        QCOMPARE(p.honoursRetryAfter.value, std::optional<bool>(true));
    }

    // --retry-delay: a fixed wait instead of the doubling one.
    void curlRetryDelayIsConstant()
    {
        const QString curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
        if (curl.isEmpty())
            RETRYLAB_MISSING_TOOL("curl is not installed: install the Debian package curl (scripts/deps.sh does)");
        usePlan("always-503");
        QVERIFY(runClients({{curl,
            strings({"-sS", "-A", "curl-retry-delay/1", "--retry", "3", "--retry-delay", "1", "-o"})
                << m_dir.filePath(QStringLiteral("d")) << base() + QStringLiteral("/d")}}));
        const auto c = client(QStringLiteral("curl-retry-delay/1"));
        QVERIFY(c);
        const InferredPolicy p = inferred(*c);
        QCOMPARE(p.growth, Growth::Constant);
        QVERIFY2(within(*p.baseMs, 1000, 0.10), qPrintable(describe(p)));
        QCOMPARE(p.maxAttempts.value_or(-1), 4);
    }

    // --retry-all-errors retries what --retry alone does not, a reset among them;
    // --retry-max-time stops retrying once that much time has passed.
    void curlRetryAllErrorsAndMaxTime()
    {
        const QString curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
        if (curl.isEmpty())
            RETRYLAB_MISSING_TOOL("curl is not installed: install the Debian package curl (scripts/deps.sh does)");
        usePlan("reset-then-200");
        QVERIFY(runClients({{curl,
                                strings({"-sS", "-A", "curl-all-errors/1", "--retry", "2", "--retry-all-errors", "-o"})
                                    << m_dir.filePath(QStringLiteral("e")) << base() + QStringLiteral("/e")},
            {curl,
                strings({"-sS", "-A", "curl-no-all-errors/1", "--retry", "2", "-o"})
                    << m_dir.filePath(QStringLiteral("f")) << base() + QStringLiteral("/f")}}));
        const auto all = client(QStringLiteral("curl-all-errors/1"));
        QVERIFY(all);
        QCOMPARE(inferred(*all).retriesAfterReset.value, std::optional<bool>(true));
        const auto plain = client(QStringLiteral("curl-no-all-errors/1"));
        QVERIFY(plain);
        QCOMPARE(inferred(*plain).retriesAfterReset.value, std::optional<bool>(false));

        m_observer->clear();
        usePlan("always-503");
        QVERIFY(runClients({{curl,
            strings(
                {"-sS", "-A", "curl-max-time/1", "--retry", "10", "--retry-max-time", "2", "--retry-delay", "1", "-o"})
                << m_dir.filePath(QStringLiteral("g")) << base() + QStringLiteral("/g")}}));
        const auto limited = client(QStringLiteral("curl-max-time/1"));
        QVERIFY(limited);
        const LogicalRequest r = m_observer->logicalRequests(limited->id).constFirst();
        // Retries stop once two seconds have passed: far fewer than ten.
        QVERIFY2(r.attempts.size() >= 2 && r.attempts.size() <= 4, qPrintable(QString::number(r.attempts.size())));
        QVERIFY(r.attempts.last().arrivalMs - r.attempts.first().arrivalMs <= 3000.0);
    }

    // wget --waitretry=S: "wait 1..S seconds between retries": 1 s, 2 s, ... up to S.
    void wgetBacksOffLinearly()
    {
        const QString wget = QStandardPaths::findExecutable(QStringLiteral("wget"));
        if (wget.isEmpty())
            RETRYLAB_MISSING_TOOL("wget is not installed: install the Debian package wget (scripts/deps.sh does)");
        usePlan("always-503");
        // wget 1.21 treats 503 as fatal unless --retry-on-http-error names it.
        const auto command = [&](const char *path, const char *out) {
            return QPair<QString, QStringList>{wget,
                strings({"-q", "--tries=4", "--waitretry=3", "--retry-on-http-error=503", "-O"})
                    << m_dir.filePath(QLatin1String(out)) << base() + QLatin1String(path)};
        };
        QVERIFY(runClients({command("/w1", "w1"), command("/w2", "w2")}));
        const auto c = client(QStringLiteral("Wget/"));
        QVERIFY(c);
        const QList<LogicalRequest> requests = m_observer->logicalRequests(c->id);
        QCOMPARE(requests.size(), 2);
        QCOMPARE(requests[0].attempts.size(), 4);
        const InferredPolicy p = inferred(*c);
        QCOMPARE(p.growth, Growth::Linear);
        QVERIFY2(within(*p.baseMs, 1000, 0.10), qPrintable(describe(p)));
        QCOMPARE(p.maxAttempts.value_or(-1), 4);
        QCOMPARE(p.jitter, JitterKind::None);
    }

    // Two curl runs, one after the other, that differ only in a query value the
    // log masks (key=): two logical requests of four attempts, not one of eight.
    void curlRuns_differingInAMaskedQueryValue_stayApart()
    {
        const QString curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
        if (curl.isEmpty())
            RETRYLAB_MISSING_TOOL("curl is not installed: install the Debian package curl (scripts/deps.sh does)");
        const QString out = m_dir.filePath(QStringLiteral("masked.out"));
        const QString run = QStringLiteral("%1 -sS -A curl-masked/1 --retry 3 --retry-delay 1 -o %2 %3/fail/5?key=%4");
        QVERIFY(runClients({{QStringLiteral("/bin/sh"),
            {QStringLiteral("-c"),
                run.arg(curl, out, base(), QStringLiteral("curl-a")) + QStringLiteral(" ; ")
                    + run.arg(curl, out, base(), QStringLiteral("curl-b"))}}}));
        const auto c = client(QStringLiteral("curl-masked/1"));
        QVERIFY(c);
        const QList<LogicalRequest> requests = m_observer->logicalRequests(c->id);
        QCOMPARE(requests.size(), 2);
        QCOMPARE(requests[0].attempts.size(), 4);
        QCOMPARE(requests[1].attempts.size(), 4);
        const InferredPolicy p = inferred(*c);
        QCOMPARE(p.growth, Growth::Constant);
        QCOMPARE(p.maxAttempts.value_or(-1), 4);
    }

    // urllib3 requests that differ only in a masked query value, a masked header
    // value or the body: one logical request each.
    void urllib3Requests_differingInOneValue_stayApart_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::addRow("query value") << QStringLiteral("query");
        QTest::addRow("masked header value") << QStringLiteral("header");
        QTest::addRow("body") << QStringLiteral("body");
    }

    void urllib3Requests_differingInOneValue_stayApart()
    {
        QFETCH(QString, mode);
        const QString python = TestThirdPartyClients::python("requests");
        if (python.isEmpty())
            RETRYLAB_MISSING_TOOL(
                "requests is not installed: install the Debian package python3-requests (scripts/deps.sh does)");
        usePlan("always-503");
        QVERIFY(runClients(
            {{python, {script("distinct_requests.py"), base(), mode, QStringLiteral("3"), QStringLiteral("4")}}}));
        const auto c = client(QStringLiteral("distinct-") + mode);
        QVERIFY(c);
        const QList<LogicalRequest> requests = m_observer->logicalRequests(c->id);
        QCOMPARE(requests.size(), 3);
        for (const LogicalRequest &r : requests)
            QCOMPARE(r.attempts.size(), 5);
    }

    // urllib3 1.26 Retry: "{backoff factor} * (2 ** ({number of total retries} - 1))",
    // and 0 for the first retry; Retry-After honoured for 413, 429 and 503.
    void urllib3BackoffFactor()
    {
        const QString python = TestThirdPartyClients::python("requests");
        if (python.isEmpty())
            RETRYLAB_MISSING_TOOL(
                "requests is not installed: install the Debian package python3-requests (scripts/deps.sh does)");
        usePlan("always-503");
        // urllib3 draws no jitter, so its delays of one retry index agree within milliseconds; a
        // Python process held up by the machine for tens of milliseconds looks like jitter. A trial
        // that sees jitter gets another, on fresh observations; the third must see none.
        InferredPolicy p;
        for (int trial = 1; trial <= 3; ++trial) {
            m_observer->clear();
            QVERIFY(runClients({{python,
                {script("urllib3_client.py"), base(), QStringLiteral("4"), QStringLiteral("4"),
                    QStringLiteral("0.05")}}}));
            const auto c = client(QStringLiteral("urllib3-retry-client/"));
            QVERIFY(c);
            const QList<LogicalRequest> requests = m_observer->logicalRequests(c->id);
            QCOMPARE(requests.size(), 4);
            QCOMPARE(requests[0].attempts.size(), 5);
            p = inferred(*c);
            if (p.jitter == JitterKind::None)
                break;
            qWarning().noquote() << "trial" << trial << "saw jitter where urllib3 draws none:" << describe(p);
        }
        QVERIFY2(p.firstRetryImmediate, qPrintable(describe(p)));
        QCOMPARE(p.growth, Growth::Exponential);
        QVERIFY2(within(*p.baseMs, 50, 0.10), qPrintable(describe(p)));
        QVERIFY2(within(*p.multiplier, 2, 0.10), qPrintable(describe(p)));
        QCOMPARE(p.jitter, JitterKind::None);
        QCOMPARE(p.maxAttempts.value_or(-1), 5);

        m_observer->clear();
        usePlan("503-retry-after-1");
        QVERIFY(runClients({{python,
            {script("urllib3_client.py"), base(), QStringLiteral("1"), QStringLiteral("4"), QStringLiteral("0.05")}}}));
        const auto again = client(QStringLiteral("urllib3-retry-client/"));
        QVERIFY(again);
        QCOMPARE(inferred(*again).honoursRetryAfter.value, std::optional<bool>(true));
    }

    // botocore: attempts grouped by amz-sdk-invocation-id, the limit read from
    // amz-sdk-request; standard mode waits rand(0, 1) * 2^(attempt-1) s, capped at 20 s.
    void botocore_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::addRow("standard") << QStringLiteral("standard");
        QTest::addRow("legacy") << QStringLiteral("legacy");
    }

    void botocore()
    {
        QFETCH(QString, mode);
        const QString python = TestThirdPartyClients::python("botocore");
        if (python.isEmpty())
            RETRYLAB_MISSING_TOOL(
                "botocore is not installed: install the Debian package python3-botocore (scripts/deps.sh does)");
        usePlan("always-503");
        QVERIFY(runClients(
            {{python, {script("botocore_client.py"), base(), mode, QStringLiteral("3"), QStringLiteral("16")}}}));
        const auto c = client(QStringLiteral("Botocore/"));
        QVERIFY(c);
        const QList<LogicalRequest> requests = m_observer->logicalRequests(c->id);
        QCOMPARE(requests.size(), 16);
        for (const LogicalRequest &r : requests) {
            QCOMPARE(r.rule, GroupingRule::AwsInvocationId);
            QCOMPARE(r.attempts.size(), 3);
            QCOMPARE(r.attempts[1].rule, GroupingRule::AwsInvocationId);
            QCOMPARE(r.attempts[2].sdkAttempt.value_or(-1), 3);
        }
        const InferredPolicy p = inferred(*c);
        QCOMPARE(p.maxAttempts.value_or(-1), 3);
        if (mode == QLatin1String("standard")) {
            QVERIFY2(p.maxAttemptsConfidence.evidence.contains(QStringLiteral("announced")), qPrintable(describe(p)));
            QCOMPARE(p.jitter, JitterKind::Full);
            // 16 draws of rand(0, 1) s and rand(0, 2) s: the base within a third.
            QVERIFY2(within(*p.baseMs, 1000, 0.35), qPrintable(describe(p)));
            // Every delay lies in [0, 2^n s].
            for (const auto &d : p.delays)
                QVERIFY2(d.maxMs <= 1000.0 * std::pow(2, d.retryIndex) + 50, qPrintable(describe(p)));
        }
    }

    // tenacity's wait_random_exponential: "random.uniform(0, min(max, multiplier * 2 ** (attempt - 1)))".
    void tenacityRandomExponential()
    {
        const QString python = TestThirdPartyClients::python("tenacity");
        if (python.isEmpty())
            RETRYLAB_MISSING_TOOL(
                "tenacity is not installed: install the Debian package python3-tenacity (scripts/deps.sh does)");
        usePlan("always-503");
        QVERIFY(runClients({{python,
            {script("tenacity_client.py"), base(), QStringLiteral("20"), QStringLiteral("4"),
                QStringLiteral("0.05")}}}));
        const auto c = client(QStringLiteral("tenacity-client/"));
        QVERIFY(c);
        const InferredPolicy p = inferred(*c);
        QCOMPARE(p.jitter, JitterKind::Full);
        QCOMPARE(p.growth, Growth::Exponential);
        QVERIFY2(within(*p.baseMs, 50, 0.25), qPrintable(describe(p)));
        QVERIFY2(within(*p.multiplier, 2, 0.25), qPrintable(describe(p)));
        QCOMPARE(p.maxAttempts.value_or(-1), 4);
    }

    // backoff.expo with full_jitter: "random.uniform(0, factor * base ** n)".
    void backoffExpoFullJitter()
    {
        const QString python = TestThirdPartyClients::python("backoff");
        if (python.isEmpty())
            RETRYLAB_MISSING_TOOL(
                "backoff is not installed: install the Debian package python3-backoff (scripts/deps.sh does)");
        usePlan("always-503");
        QVERIFY(runClients({{python,
            {script("backoff_client.py"), base(), QStringLiteral("20"), QStringLiteral("4"),
                QStringLiteral("0.05")}}}));
        const auto c = client(QStringLiteral("backoff-client/"));
        QVERIFY(c);
        const InferredPolicy p = inferred(*c);
        QCOMPARE(p.jitter, JitterKind::Full);
        QCOMPARE(p.growth, Growth::Exponential);
        QVERIFY2(within(*p.baseMs, 50, 0.25), qPrintable(describe(p)));
        QVERIFY2(within(*p.multiplier, 2, 0.25), qPrintable(describe(p)));
        QCOMPARE(p.maxAttempts.value_or(-1), 4);
    }
};

QTEST_GUILESS_MAIN(TestThirdPartyClients)
#include "tst_thirdpartyclients.moc"
