// The AWS SDKs' adaptive retry mode, compared with the real thing: botocore
// (Debian's python3-botocore) in adaptive mode and RetryLab's executor under the
// aws-adaptive preset send the same load, four at a time, to the fault server's
// /ratelimit?headers=s3, which throttles both as Amazon S3 does (503 SlowDown,
// the throttling code botocore knows), each under a key of its own. Their send
// rates over time are read from the server's own log and compared, beside a
// RetryLab client without the limiter under the same throttling.

#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/http/serverlogentry.h"
#include "core/policy/presets.h"
#include "tests/core/executor/executorcollector.h"
#include "tests/tools/requiredtool.h"

#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace RetryLab::Core;
using RetryLab::Core::Testing::Collector;

namespace {

// The server lets 8 requests a second through, 4 at once; each client sends 48 requests, 4 at a time.
constexpr double allowedPerSecond = 8.0;
constexpr int burst = 4;
constexpr int requests = 48;
constexpr int concurrency = 4;

// What a client did to the server: when each attempt came, and whether it was slowed down.
struct Traffic
{
    QList<double> atS; ///< seconds since the client's first attempt
    QList<bool> throttled;

    int attempts() const { return int(atS.size()); }
    int throttles() const { return int(throttled.count(true)); }
    double firstThrottleS() const
    {
        const qsizetype i = throttled.indexOf(true);
        return i < 0 ? -1.0 : atS.at(i);
    }
    /// Attempts a second from the first throttle to the last attempt.
    double rateAfterFirstThrottle() const
    {
        const double from = firstThrottleS();
        if (from < 0.0 || atS.constLast() <= from)
            return 0.0;
        const auto after = std::count_if(atS.cbegin(), atS.cend(), [from](double t) { return t >= from; });
        return double(after) / (atS.constLast() - from);
    }
    /// Attempts per whole second, for the record.
    QString perSecond() const
    {
        QList<int> bins(int(atS.isEmpty() ? 0 : atS.constLast()) + 1, 0);
        for (double t : atS)
            ++bins[int(t)];
        QStringList text;
        for (int n : bins)
            text.append(QString::number(n));
        return text.join(QLatin1Char(' '));
    }
};

// botocore's S3 client in adaptive mode, unsigned, every attempt sent to the URL given.
const char *const driver = R"(import sys
import threading

import botocore.session
from botocore import UNSIGNED
from botocore.config import Config

url, count, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
config = Config(signature_version=UNSIGNED, retries={'mode': 'adaptive', 'total_max_attempts': 3})
client = botocore.session.get_session().create_client(
    's3', region_name='us-east-1', endpoint_url='http://127.0.0.1:9', config=config)


def to_the_limit(request, **kwargs):
    request.url = url


client.meta.events.register('before-sign.s3.GetObject', to_the_limit)
outcomes = []


def work(n):
    for _ in range(n):
        try:
            client.get_object(Bucket='retrylab', Key='object')['Body'].read()
            outcomes.append(True)
        except Exception:
            outcomes.append(False)


workers = [threading.Thread(target=work, args=(count // threads,)) for _ in range(threads)]
for worker in workers:
    worker.start()
for worker in workers:
    worker.join()
print(sum(outcomes), len(outcomes) - sum(outcomes))
)";

} // namespace

class TestAdaptiveCompared final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void botocoreAndRetryLab_slowDownAlike();

private:
    QUrl limitUrl(const QString &key) const
    {
        return m_server.baseUrl().resolved(QUrl(
            QStringLiteral("/ratelimit?rps=%1&burst=%2&key=%3&headers=s3").arg(allowedPerSecond).arg(burst).arg(key)));
    }
    /// One client's attempts, from the server's log.
    Traffic trafficOf(const QString &key) const;
    /// RetryLab's executor sends the load under `policy`; the requests that succeeded.
    int sendWithRetryLab(const BackoffPolicy &policy, const QString &key);

    FaultServer m_server;
    QTemporaryDir m_dir;
};

void TestAdaptiveCompared::initTestCase()
{
    QVERIFY(m_server.listen());
    QVERIFY(m_dir.isValid());
}

Traffic TestAdaptiveCompared::trafficOf(const QString &key) const
{
    Traffic traffic;
    qint64 firstNs = -1;
    for (const ServerLogEntry &e : m_server.log()) {
        if (!e.target.contains(QStringLiteral("key=%1&").arg(key)))
            continue;
        if (firstNs < 0)
            firstNs = e.receivedNs;
        traffic.atS.append(double(e.receivedNs - firstNs) / 1e9);
        traffic.throttled.append(e.status == 503);
    }
    return traffic;
}

int TestAdaptiveCompared::sendWithRetryLab(const BackoffPolicy &policy, const QString &key)
{
    RetryExecutor executor;
    executor.setPolicy(policy);
    executor.setConcurrencyLimit(concurrency);
    Collector c(&executor);
    for (int i = 0; i < requests; ++i)
        executor.submit(Testing::getSpec(limitUrl(key)));
    if (!QTest::qWaitFor([&c] { return c.results.size() == requests; }, 180'000))
        return -1;
    return int(std::count_if(c.results.cbegin(), c.results.cend(),
        [](const RequestResult &r) { return r.outcome == RequestOutcome::Succeeded; }));
}

void TestAdaptiveCompared::botocoreAndRetryLab_slowDownAlike()
{
    QProcess probe;
    probe.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), QStringLiteral("import botocore")});
    if (!QFileInfo::exists(QStringLiteral("/usr/bin/python3")) || !probe.waitForFinished(20'000)
        || probe.exitCode() != 0)
        RETRYLAB_MISSING_TOOL(
            "botocore is missing: install the Debian package python3-botocore (scripts/deps.sh does)");

    // botocore first, on its own key.
    const QString script = m_dir.filePath(QStringLiteral("adaptive.py"));
    QFile file(script);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(driver);
    file.close();
    QProcess python;
    python.setProcessChannelMode(QProcess::SeparateChannels);
    python.start(QStringLiteral("/usr/bin/python3"),
        {script, limitUrl(QStringLiteral("botocore")).toString(), QString::number(requests),
            QString::number(concurrency)});
    // The server answers on this thread: its event loop runs while botocore sends.
    QVERIFY2(QTest::qWaitFor([&python] { return python.state() == QProcess::NotRunning; }, 180'000),
        "botocore did not finish in 3 minutes");
    QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    const QStringList counts = QString::fromUtf8(python.readAllStandardOutput()).split(QLatin1Char(' '));
    const int botocoreSucceeded = counts.value(0).toInt();

    // Then RetryLab, with the limiter and without it.
    const BackoffPolicy adaptive = *Presets::find(QStringLiteral("aws-adaptive"));
    QCOMPARE(adaptive.rateLimiter.kind, RateLimiterKind::AwsAdaptive);
    const int retrylabSucceeded = sendWithRetryLab(adaptive, QStringLiteral("retrylab"));
    QVERIFY(retrylabSucceeded >= 0);
    BackoffPolicy standard = adaptive;
    standard.rateLimiter = {};
    const int standardSucceeded = sendWithRetryLab(standard, QStringLiteral("standard"));
    QVERIFY(standardSucceeded >= 0);

    const Traffic boto = trafficOf(QStringLiteral("botocore"));
    const Traffic lab = trafficOf(QStringLiteral("retrylab"));
    const Traffic free = trafficOf(QStringLiteral("standard"));
    const auto describe = [](const char *who, const Traffic &t, int succeeded) {
        return QStringLiteral("%1: %2 of %3 requests succeeded in %4 attempts, %5 slowed down, %6 a second after "
                              "the first SlowDown; attempts per second: %7")
            .arg(QLatin1String(who))
            .arg(succeeded)
            .arg(requests)
            .arg(t.attempts())
            .arg(t.throttles())
            .arg(t.rateAfterFirstThrottle(), 0, 'f', 2)
            .arg(t.perSecond());
    };
    const QString record = describe("botocore adaptive", boto, botocoreSucceeded) + QLatin1Char('\n')
        + describe("RetryLab aws-adaptive", lab, retrylabSucceeded) + QLatin1Char('\n')
        + describe("RetryLab aws-standard", free, standardSucceeded);
    qInfo().noquote() << record;

    // Both met the throttle and slowed down to about what the server allows: within a factor of
    // two of each other after the first SlowDown, and neither above twice the allowed rate.
    QVERIFY2(boto.throttles() > 0 && lab.throttles() > 0, qPrintable(record));
    const double botoRate = boto.rateAfterFirstThrottle();
    const double labRate = lab.rateAfterFirstThrottle();
    QVERIFY2(labRate <= 2.0 * botoRate && botoRate <= 2.0 * labRate, qPrintable(record));
    QVERIFY2(labRate <= 2.0 * allowedPerSecond && botoRate <= 2.0 * allowedPerSecond, qPrintable(record));
    // And they spent about as many attempts on the same requests.
    QVERIFY2(
        lab.attempts() * 2 <= boto.attempts() * 3 && boto.attempts() * 2 <= lab.attempts() * 3, qPrintable(record));
    // The limiter is what makes the difference: without it the same client is slowed down more often.
    QVERIFY2(lab.throttles() < free.throttles(), qPrintable(record));
}

QTEST_GUILESS_MAIN(TestAdaptiveCompared)
#include "tst_adaptivecompared.moc"
