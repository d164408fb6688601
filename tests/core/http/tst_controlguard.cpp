#include "core/http/controlguard.h"

#include <QTest>

using namespace RetryLab::Core;

// What a control API on loopback takes: requests a web page in the user's
// browser could not send without a preflight, for a loopback host.
class TestControlGuard final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void loopbackHost_data();
    void loopbackHost();
    void refusal_data();
    void refusal();
};

void TestControlGuard::loopbackHost_data()
{
    QTest::addColumn<QByteArray>("host");
    QTest::addColumn<bool>("loopback");
    QTest::addRow("127.0.0.1 with port") << QByteArray("127.0.0.1:8080") << true;
    QTest::addRow("127.1.2.3") << QByteArray("127.1.2.3") << true;
    QTest::addRow("localhost") << QByteArray("LocalHost:1") << true;
    QTest::addRow("[::1]:8080") << QByteArray("[::1]:8080") << true;
    QTest::addRow("bare ::1") << QByteArray("::1") << true;
    QTest::addRow("rebound name") << QByteArray("attacker.example:8080") << false;
    QTest::addRow("localhost as a suffix") << QByteArray("localhost.attacker.example") << false;
    QTest::addRow("127 as a prefix") << QByteArray("127.0.0.1.attacker.example") << false;
    QTest::addRow("another address") << QByteArray("192.168.1.10:8080") << false;
    QTest::addRow("out of range") << QByteArray("127.0.0.256") << false;
    QTest::addRow("bracket junk") << QByteArray("[::1]x") << false;
    QTest::addRow("empty") << QByteArray() << false;
}

void TestControlGuard::loopbackHost()
{
    QFETCH(QByteArray, host);
    QFETCH(bool, loopback);
    QCOMPARE(isLoopbackHost(host), loopback);
}

void TestControlGuard::refusal_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QList<QByteArray>>("headers"); // "Name: value"
    QTest::addColumn<int>("status"); // 0: taken
    const QByteArray host = "Host: 127.0.0.1:8080";
    const QByteArray json = "Content-Type: application/json";
    QTest::addRow("GET") << QByteArray("GET") << QList<QByteArray>{host} << 0;
    QTest::addRow("POST JSON") << QByteArray("POST") << QList<QByteArray>{host, json} << 0;
    QTest::addRow("POST JSON with charset")
        << QByteArray("POST") << QList<QByteArray>{host, "Content-Type: Application/JSON; charset=utf-8"} << 0;
    QTest::addRow("DELETE") << QByteArray("DELETE") << QList<QByteArray>{host} << 0;
    QTest::addRow("POST as a form") << QByteArray("POST")
                                    << QList<QByteArray>{host, "Content-Type: application/x-www-form-urlencoded"}
                                    << 415;
    QTest::addRow("POST text/plain") << QByteArray("POST") << QList<QByteArray>{host, "Content-Type: text/plain"}
                                     << 415;
    QTest::addRow("POST without a type") << QByteArray("POST") << QList<QByteArray>{host} << 415;
    QTest::addRow("rebound host") << QByteArray("GET") << QList<QByteArray>{"Host: attacker.example:8080"} << 421;
    QTest::addRow("no host") << QByteArray("GET") << QList<QByteArray>{} << 421;
    QTest::addRow("page's origin") << QByteArray("POST")
                                   << QList<QByteArray>{host, json, "Origin: https://attacker.example"} << 403;
    QTest::addRow("null origin") << QByteArray("GET") << QList<QByteArray>{host, "Origin: null"} << 403;
    QTest::addRow("loopback origin") << QByteArray("POST")
                                     << QList<QByteArray>{host, json, "Origin: http://localhost:3000"} << 0;
}

void TestControlGuard::refusal()
{
    QFETCH(QByteArray, method);
    QFETCH(QList<QByteArray>, headers);
    QFETCH(int, status);
    HttpRequest request;
    request.method = method;
    request.path = "/_control/reset";
    for (const QByteArray &header : headers) {
        const qsizetype colon = header.indexOf(':');
        request.headers.append({header.left(colon), header.mid(colon + 1).trimmed()});
    }
    const auto refusal = controlRequestRefusal(request);
    QCOMPARE(refusal ? refusal->status : 0, status);
    if (refusal)
        QVERIFY(!refusal->message.isEmpty());
}

QTEST_GUILESS_MAIN(TestControlGuard)
#include "tst_controlguard.moc"
