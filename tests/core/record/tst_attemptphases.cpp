#include "core/record/attemptphases.h"

#include <QTest>

using namespace RetryLab::Core;

namespace {

constexpr qint64 ms = 1'000'000;

// An exchange that opened a connection: start at 100 ms, lookup 100-104, Qt
// starts connecting at 105, connected (plain) or handshake done (TLS) at 120,
// request sent at 121, first byte at 171, finished at 181.
AttemptRecord openedExchange(bool tls)
{
    AttemptRecord a;
    a.url = QUrl(tls ? QStringLiteral("https://example.test/") : QStringLiteral("http://example.test/"));
    a.startNs = 100 * ms;
    a.lookupStartNs = 100 * ms;
    a.lookupEndNs = 104 * ms;
    a.connectionStartedNs = 105 * ms;
    if (tls)
        a.encryptedNs = 120 * ms;
    else
        a.connectedNs = 120 * ms;
    a.requestSentNs = 121 * ms;
    a.firstByteNs = 171 * ms;
    a.finishedNs = 181 * ms;
    a.endNs = 181 * ms;
    return a;
}

} // namespace

// The phases of an attempt's last exchange, from the points its record holds:
// each known phase is the time between two recorded points, and a phase whose
// points were not recorded is unknown, never guessed.
class TestAttemptPhases : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void plainHttp_newConnection_everyPhaseKnown();
    void tls_newConnection_connectAndHandshakeOnlyTogether();
    void reusedConnection_noLookupConnectOrTls();
    void afterARedirect_theLastExchangeOnly();
    void noAnswer_waitAndDownloadUnknown();
    void addressInTheUrl_lookupIsZero();
};

void TestAttemptPhases::plainHttp_newConnection_everyPhaseKnown()
{
    const AttemptPhases p = AttemptPhases::of(openedExchange(false));
    QVERIFY(!p.reusedConnection);
    QCOMPARE(p.dnsMs, 4.0);
    QCOMPARE(p.connectMs, 15.0);
    QVERIFY(!p.tlsMs);
    QVERIFY(!p.connectTlsMs);
    QCOMPARE(p.sendMs, 1.0);
    QCOMPARE(p.firstByteMs, 50.0);
    QCOMPARE(p.downloadMs, 10.0);
    QCOMPARE(p.totalMs, 81.0);
    // curl's cumulative times.
    QCOMPARE(p.untilLookupMs, 4.0);
    QCOMPARE(p.untilConnectMs, 20.0);
    QVERIFY(!p.untilTlsMs);
    QCOMPARE(p.untilReadyMs, 20.0);
    QCOMPARE(p.untilFirstByteMs, 71.0);
}

void TestAttemptPhases::tls_newConnection_connectAndHandshakeOnlyTogether()
{
    const AttemptPhases p = AttemptPhases::of(openedExchange(true));
    QCOMPARE(p.dnsMs, 4.0);
    QVERIFY(!p.connectMs);
    QVERIFY(!p.tlsMs);
    QCOMPARE(p.connectTlsMs, 15.0);
    QCOMPARE(p.sendMs, 1.0);
    QVERIFY(!p.untilConnectMs);
    QCOMPARE(p.untilTlsMs, 20.0);
}

void TestAttemptPhases::reusedConnection_noLookupConnectOrTls()
{
    AttemptRecord a = openedExchange(true);
    a.connectionStartedNs = -1;
    a.encryptedNs = -1;
    const AttemptPhases p = AttemptPhases::of(a);
    QVERIFY(p.reusedConnection);
    QVERIFY(!p.dnsMs);
    QVERIFY(!p.connectMs);
    QVERIFY(!p.tlsMs);
    QVERIFY(!p.connectTlsMs);
    // Ready once the lookup made before it was known that none was needed ended.
    QCOMPARE(p.sendMs, 17.0);
    QCOMPARE(p.firstByteMs, 50.0);
    QCOMPARE(p.untilConnectMs, 0.0);
}

void TestAttemptPhases::afterARedirect_theLastExchangeOnly()
{
    AttemptRecord a = openedExchange(false);
    RedirectHop hop;
    hop.status = 307;
    hop.followed = true;
    hop.startNs = 100 * ms;
    hop.finishedNs = 102 * ms; // the last exchange starts here
    a.redirects.append(hop);
    a.lookupStartNs = a.lookupEndNs = -1; // no lookup of its own for the hop
    const AttemptPhases p = AttemptPhases::of(a);
    QVERIFY(!p.dnsMs);
    QCOMPARE(p.connectMs, 15.0);
    QCOMPARE(p.totalMs, 79.0);
}

void TestAttemptPhases::noAnswer_waitAndDownloadUnknown()
{
    AttemptRecord a = openedExchange(false);
    a.connectedNs = -1;
    a.requestSentNs = -1;
    a.firstByteNs = -1;
    const AttemptPhases p = AttemptPhases::of(a);
    QCOMPARE(p.dnsMs, 4.0);
    QVERIFY(!p.connectMs);
    QVERIFY(!p.sendMs);
    QVERIFY(!p.firstByteMs);
    QVERIFY(!p.downloadMs);
    QVERIFY(!p.reusedConnection);
    QCOMPARE(p.totalMs, 81.0);
}

void TestAttemptPhases::addressInTheUrl_lookupIsZero()
{
    AttemptRecord a = openedExchange(false);
    a.lookupStartNs = a.lookupEndNs = a.startNs;
    QCOMPARE(AttemptPhases::of(a).dnsMs, 0.0);
}

QTEST_GUILESS_MAIN(TestAttemptPhases)
#include "tst_attemptphases.moc"
