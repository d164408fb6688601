#include "core/record/hostpin.h"

#include <QTest>

using namespace RetryLab::Core;

// curl's --resolve HOST:PORT:ADDRESS, read and matched against URLs.
class TestHostPin : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_curlSpellings_data();
    void parse_curlSpellings();
    void parse_badEntry_saysWhy_data();
    void parse_badEntry_saysWhy();
    void find_matchesHostAndPort();
};

void TestHostPin::parse_curlSpellings_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("address");
    QTest::addColumn<QString>("written");
    QTest::addRow("IPv4") << "example.test:443:127.0.0.1"
                          << "example.test" << 443 << "127.0.0.1"
                          << "example.test:443:127.0.0.1";
    QTest::addRow("IPv6 in brackets") << "Example.Test:8080:[::1]"
                                      << "example.test" << 8080 << "::1"
                                      << "example.test:8080:[::1]";
    QTest::addRow("later, several addresses") << "+api.test:80:10.0.0.1,10.0.0.2"
                                              << "api.test" << 80 << "10.0.0.1"
                                              << "api.test:80:10.0.0.1";
    QTest::addRow("any host") << "*:443:127.0.0.1"
                              << "*" << 443 << "127.0.0.1"
                              << "*:443:127.0.0.1";
}

void TestHostPin::parse_curlSpellings()
{
    QFETCH(QString, text);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(QString, address);
    QFETCH(QString, written);
    const Result<HostPin> pin = HostPin::parse(text);
    QVERIFY2(pin, qPrintable(pin.error()));
    QCOMPARE(pin->host, host);
    QCOMPARE(int(pin->port), port);
    QCOMPARE(pin->address, address);
    QCOMPARE(pin->text(), written);
    QCOMPARE(HostPin::parse(pin->text()).value(), *pin);
}

void TestHostPin::parse_badEntry_saysWhy_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("words");
    QTest::addRow("no address") << "example.test:443"
                                << "HOST:PORT:ADDRESS";
    QTest::addRow("empty address") << "example.test:443:"
                                   << "gives no address";
    QTest::addRow("a name, not an address") << "example.test:443:localhost"
                                            << "is not an IPv4 or IPv6 address";
    QTest::addRow("port 0") << "example.test:0:127.0.0.1"
                            << "is not from 1 to 65535";
    QTest::addRow("port not a number") << "example.test:https:127.0.0.1"
                                       << "is not from 1 to 65535";
    QTest::addRow("removal") << "-example.test:443"
                             << "not supported";
}

void TestHostPin::parse_badEntry_saysWhy()
{
    QFETCH(QString, text);
    QFETCH(QString, words);
    const Result<HostPin> pin = HostPin::parse(text);
    QVERIFY(!pin);
    QVERIFY2(pin.error().contains(words), qPrintable(pin.error()));
}

void TestHostPin::find_matchesHostAndPort()
{
    const QList<HostPin> pins{HostPin::parse(QStringLiteral("a.test:443:10.0.0.1")).value(),
        HostPin::parse(QStringLiteral("*:8080:10.0.0.2")).value()};
    QCOMPARE(HostPin::find(pins, QUrl(QStringLiteral("https://A.test/x")))->address, QStringLiteral("10.0.0.1"));
    QVERIFY(!HostPin::find(pins, QUrl(QStringLiteral("http://a.test/x")))); // port 80
    QCOMPARE(HostPin::find(pins, QUrl(QStringLiteral("http://b.test:8080/")))->address, QStringLiteral("10.0.0.2"));
    QVERIFY(!HostPin::find(pins, QUrl(QStringLiteral("https://b.test/"))));
}

QTEST_GUILESS_MAIN(TestHostPin)
#include "tst_hostpin.moc"
