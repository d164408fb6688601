#include "core/executor/requestcheck.h"
#include "core/policy/backoffpolicy.h"

#include <QTest>

#include <cmath>

using namespace RetryLab::Core;

class TestRequestCheck : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sendable_data();
    void sendable();
    void brokenUrl_neverShowsItsSecrets_data();
    void brokenUrl_neverShowsItsSecrets();
};

void TestRequestCheck::sendable_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QVariant>("attemptTimeoutMs"); // null: none of its own
    QTest::addColumn<QString>("error"); // empty: sendable

    const QString ok = QStringLiteral("http://127.0.0.1:8080/status/200");
    QTest::addRow("http") << ok << QByteArray("GET") << QVariant() << QString();
    QTest::addRow("https, lower-case method")
        << QStringLiteral("https://example.test/x") << QByteArray("post") << QVariant() << QString();
    QTest::addRow("its own timeout") << ok << QByteArray("GET") << QVariant(0.0) << QString();
    QTest::addRow("no host") << QStringLiteral("http://") << QByteArray("GET") << QVariant()
                             << QStringLiteral("the URL \"http://\" is not valid: no host");
    QTest::addRow("ftp") << QStringLiteral("ftp://127.0.0.1/x") << QByteArray("GET") << QVariant()
                         << QStringLiteral("only http and https URLs can be sent (got \"ftp\")");
    QTest::addRow("no method") << ok << QByteArray(" ") << QVariant() << QStringLiteral("\" \" is not an HTTP method");
    QTest::addRow("two words") << ok << QByteArray("GET /x") << QVariant()
                               << QStringLiteral("\"GET /x\" is not an HTTP method");
    const QString timeout = QStringLiteral("the per-attempt timeout must lie between 0 and 604800000 ms");
    QTest::addRow("negative timeout") << ok << QByteArray("GET") << QVariant(-0.5) << timeout;
    QTest::addRow("timeout beyond a week")
        << ok << QByteArray("GET") << QVariant(PolicyLimits::maxDeadlineMs + 1) << timeout;
    QTest::addRow("timeout not a number") << ok << QByteArray("GET") << QVariant(std::nan("")) << timeout;
}

void TestRequestCheck::sendable()
{
    QFETCH(QString, url);
    QFETCH(QByteArray, method);
    QFETCH(QVariant, attemptTimeoutMs);
    QFETCH(QString, error);
    RequestSpec spec;
    spec.url = QUrl(url);
    spec.method = method;
    if (!attemptTimeoutMs.isNull())
        spec.attemptTimeoutMs = attemptTimeoutMs.toDouble();
    const Result<void> check = checkRequest(spec);
    QCOMPARE(check.ok(), error.isEmpty());
    QCOMPARE(check.error(), error);
}

void TestRequestCheck::brokenUrl_neverShowsItsSecrets_data()
{
    QTest::addColumn<QString>("url");
    QTest::addRow("port out of range") << QStringLiteral("http://user:pw-secret@host:99999/x");
    QTest::addRow("no host") << QStringLiteral("http://user:pw-secret@/path");
    QTest::addRow("space in the host") << QStringLiteral("http://user:pw-secret@ho st/x?token=tok-secret");
    QTest::addRow("encoded password") << QStringLiteral("http://user:pw%2Dsecret@host:99999/x");
}

void TestRequestCheck::brokenUrl_neverShowsItsSecrets()
{
    QFETCH(QString, url);
    RequestSpec spec;
    spec.url = QUrl(url);
    const QString error = checkRequest(spec).error();
    QVERIFY2(error.startsWith(QLatin1String("the URL \"")), qPrintable(error));
    QVERIFY2(error.contains(QLatin1String("not valid")), qPrintable(error));
    // Known gap: the mask replaces the password as QUrl decodes and encodes
    // it, not as it was typed, so an escape the user wrote ("%2D" for "-")
    // survives in QUrl's quote of the input.
    QEXPECT_FAIL("encoded password", "the password as typed is not masked", Continue);
    QVERIFY2(!error.contains(QLatin1String("secret")), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestRequestCheck)
#include "tst_requestcheck.moc"
