#include "core/faultserver/faultserver.h"
#include "tests/app/commandtesting.h"

#include <QFile>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace RetryLab::Core;

namespace {

using CommandTesting::Outcome;

QString describe(const Outcome &o)
{
    return QStringLiteral("exit %1\n--- stdout\n%2\n--- stderr\n%3").arg(o.exitCode).arg(o.out, o.err);
}

// Fast retries: a few milliseconds between attempts.
QStringList fast()
{
    return {
        QStringLiteral("--retry-base-ms"), QStringLiteral("5"), QStringLiteral("--retry-cap-ms"), QStringLiteral("20")};
}

} // namespace

/// `retrylab request --poll` against the suite's fault server on loopback: the
/// lines per poll, the exit statuses and the errors of a bad polling policy.
class TestRequestPoll : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void operation_pollsUntilDone_exit0();
    void pollMeeting503s_isRetriedUnderTheRetryPolicy();
    void postStartingTheOperation_pollsWithGet();
    void operationWithError_exit1WithTheCode();
    void totalTimeout_exit1WithTheReason();
    void badPollingPolicy_exit2AndSendNothing_data();
    void badPollingPolicy_exit2AndSendNothing();

private:
    // Runs retrylab-cli with the event loop turning, so that the suite's server answers it.
    Outcome request(const QStringList &arguments);
    QString url(const QString &path) const { return m_server.baseUrl().toString() + path; }
    QString writePolicy(const char *name, const QByteArray &json);

    FaultServer m_server;
    QTemporaryDir m_dir;
};

void TestRequestPoll::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(m_server.listen(), qPrintable(m_server.errorString()));
}

void TestRequestPoll::init()
{
    m_server.reset();
}

Outcome TestRequestPoll::request(const QStringList &arguments)
{
    return CommandTesting::run(QStringList{QStringLiteral("request")} + arguments);
}

QString TestRequestPoll::writePolicy(const char *name, const QByteArray &json)
{
    const QString path = m_dir.filePath(QLatin1String(name));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size())
        return {};
    return path;
}

void TestRequestPoll::operation_pollsUntilDone_exit0()
{
    const QString policy = writePolicy(
        "scaled.json", R"({"initialDelayMs": 20, "multiplier": 1.5, "maxDelayMs": 200, "totalTimeoutMs": 20000})");
    QVERIFY(!policy.isEmpty());
    const Outcome o = request(
        fast() << QStringLiteral("--poll") << policy << url(QStringLiteral("/operation/cli1?done_after_ms=200")));
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("polled under ") + policy), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("first request: done=false (1 attempt)")), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("poll 1 after 20 ms: done=false (1 attempt)")), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("poll 2 after 30 ms: done=")), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String(": done=true (1 attempt)")), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("operation done after ")), qPrintable(o.err));
    QVERIFY2(o.out.contains(QLatin1String("\"done\":true")), qPrintable(describe(o))); // the last answer
    // One request to start it and one per poll, none retried.
    const int polls = int(o.err.count(QLatin1String("\npoll ")));
    QCOMPARE(m_server.log().size(), polls + 1);
}

void TestRequestPoll::pollMeeting503s_isRetriedUnderTheRetryPolicy()
{
    // The test's steps go to the requests that carry its id: the first passes, the first poll meets two 503s.
    const auto created = m_server.createTest({QStringLiteral("pass"), QStringLiteral("return-503*2")});
    QVERIFY2(created, qPrintable(created.error()));
    const QString policy = writePolicy(
        "scaled.json", R"({"initialDelayMs": 20, "multiplier": 1.5, "maxDelayMs": 200, "totalTimeoutMs": 20000})");
    const Outcome o = request(fast() << QStringLiteral("-H") << QStringLiteral("X-Retry-Test-Id: ") + *created
                                     << QStringLiteral("--poll") << policy
                                     << url(QStringLiteral("/operation/cli4?done_after_ms=150")));
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("first request: done=false (1 attempt)\n  attempt 1 failed: HTTP 503")),
        qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("\n  attempt 2 failed: HTTP 503")), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("\npoll 1 after 20 ms: done=false (3 attempts)\npoll 2 after 30 ms")),
        qPrintable(o.err));
    QCOMPARE(m_server.consumedInstructions(*created), 3);
}

void TestRequestPoll::postStartingTheOperation_pollsWithGet()
{
    // Whether each request came with a Content-Type, in order (the hook runs on the server's thread, this one).
    QList<bool> typed;
    m_server.setRequestHook([&typed](const HttpRequest &r, ServerLogEntry &) -> std::optional<FaultInstruction> {
        typed.append(std::any_of(r.headers.cbegin(), r.headers.cend(),
            [](const auto &h) { return h.first.compare("Content-Type", Qt::CaseInsensitive) == 0; }));
        return std::nullopt;
    });
    const auto unhook = qScopeGuard([this] { m_server.setRequestHook({}); });
    const QString policy = writePolicy(
        "scaled.json", R"({"initialDelayMs": 20, "multiplier": 1.5, "maxDelayMs": 200, "totalTimeoutMs": 20000})");
    const Outcome o = request(fast() << QStringLiteral("-d") << QStringLiteral("size=3") << QStringLiteral("--poll")
                                     << policy << url(QStringLiteral("/operation/cli5?done_after_ms=100")));
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    const auto log = m_server.log();
    QVERIFY(log.size() >= 2);
    QCOMPARE(log.constFirst().method, QByteArray("POST"));
    for (qsizetype i = 1; i < log.size(); ++i)
        QCOMPARE(log.at(i).method, QByteArray("GET"));
    // The form's Content-Type went with the POST only: a GET has no body to describe.
    QCOMPARE(typed.size(), log.size());
    QVERIFY(typed.constFirst());
    QCOMPARE(typed.count(true), 1);
}

void TestRequestPoll::operationWithError_exit1WithTheCode()
{
    const QString policy = writePolicy(
        "scaled.json", R"({"initialDelayMs": 20, "multiplier": 1.5, "maxDelayMs": 200, "totalTimeoutMs": 20000})");
    const Outcome o = request(fast() << QStringLiteral("--poll") << policy
                                     << url(QStringLiteral("/operation/cli2?done_after_ms=50&error=5")));
    QVERIFY2(o.exitCode == 1, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("operation failed (operation-failed): the operation failed (code 5)")),
        qPrintable(o.err));
}

void TestRequestPoll::totalTimeout_exit1WithTheReason()
{
    const QString policy = writePolicy(
        "short.json", R"({"initialDelayMs": 20, "multiplier": 1.5, "maxDelayMs": 200, "totalTimeoutMs": 150})");
    const Outcome o = request(fast() << QStringLiteral("-q") << QStringLiteral("--poll") << policy
                                     << url(QStringLiteral("/operation/cli3?done_after_ms=5000")));
    QVERIFY2(o.exitCode == 1, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("not done within the total timeout of 150 ms")), qPrintable(o.err));
    QVERIFY2(!o.err.contains(QLatin1String("poll 1 after")), qPrintable(o.err)); // -q: no line per poll
}

void TestRequestPoll::badPollingPolicy_exit2AndSendNothing_data()
{
    QTest::addColumn<QByteArray>("json"); // empty: --poll names a preset that does not exist
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("message");

    QTest::addRow("unknown preset") << QByteArray() << QStringList()
                                    << "is neither a polling policy file nor a "
                                       "preset (presets: google-lro)";
    QTest::addRow("without an end") << QByteArray(R"({"initialDelayMs": 20})") << QStringList()
                                    << "a polling policy without an end";
    QTest::addRow("multiplier below 1") << QByteArray(R"({"multiplier": 0.5, "maxPolls": 3})") << QStringList()
                                        << "multiplier: must lie between 1 and 10";
    QTest::addRow("with -o") << QByteArray(R"({"maxPolls": 3})")
                             << QStringList{QStringLiteral("-o"), m_dir.filePath(QStringLiteral("body"))}
                             << "-i, -o, --report";
}

void TestRequestPoll::badPollingPolicy_exit2AndSendNothing()
{
    QFETCH(QByteArray, json);
    QFETCH(QStringList, extra);
    QFETCH(QString, message);

    const QString poll = json.isEmpty() ? QStringLiteral("no-such-preset") : writePolicy("bad.json", json);
    QVERIFY(!poll.isEmpty());
    const Outcome o = request(
        fast() << extra << QStringLiteral("--poll") << poll << url(QStringLiteral("/operation/bad?done_after_ms=10")));
    QVERIFY2(o.exitCode == 2, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(message), qPrintable(o.err));
    QCOMPARE(m_server.log().size(), 0);
}

QTEST_GUILESS_MAIN(TestRequestPoll)
#include "tst_requestpoll.moc"
