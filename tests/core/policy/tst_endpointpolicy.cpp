#include "core/policy/endpointpolicy.h"

#include <QTest>

using namespace RetryLab::Core;

class TestEndpointPolicy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void matches_data();
    void matches();
    void firstMatchingRuleWins();
};

void TestEndpointPolicy::matches_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("expected");

    // Cloud Storage's JSON API: uploads and downloads under their own prefixes.
    const QString gcs = QStringLiteral("storage.googleapis.com");
    QTest::addRow("resumable upload") << gcs << "/upload/**"
                                      << "https://storage.googleapis.com/upload/storage/v1/b/my-bucket/o"
                                         "?uploadType=resumable&name=photos%2Fcat.jpg"
                                      << true;
    QTest::addRow("media download") << gcs << "/download/**"
                                    << "https://storage.googleapis.com/download/storage/v1/b/my-bucket/o/"
                                       "photos%2Fcat.jpg?alt=media"
                                    << true;
    QTest::addRow("object name with an encoded slash") << gcs << "/storage/v1/b/*/o/*"
                                                       << "https://storage.googleapis.com/storage/v1/b/my-bucket/o/"
                                                          "photos%2Fcat.jpg"
                                                       << true;
    QTest::addRow("metadata call is no upload") << gcs << "/upload/**"
                                                << "https://storage.googleapis.com/storage/v1/b/my-bucket/o" << false;
    QTest::addRow("star stays in one segment") << QString() << "/upload/*"
                                               << "https://storage.googleapis.com/upload/storage/v1/b/B/o" << false;
    QTest::addRow("a path of * matches every path") << QString() << "*"
                                                    << "http://127.0.0.1:8080/fail/3?key=a" << true;
    QTest::addRow("a path of * matches the root") << QString() << "*"
                                                  << "http://127.0.0.1:8080" << true;
    QTest::addRow("host wildcard") << "*.googleapis.com" << QString() << "https://storage.googleapis.com/x" << true;
    QTest::addRow("host wildcard, several labels")
        << "*.example.com" << QString() << "https://a.b.example.com/" << true;
    QTest::addRow("host case") << "Storage.GoogleAPIs.com" << QString() << "https://storage.googleapis.com/" << true;
    QTest::addRow("other host") << gcs << QString() << "https://example.com/upload/x" << false;
    QTest::addRow("trailing slash") << QString() << "/status/503"
                                    << "http://h/status/503/" << true;
    QTest::addRow("encoded space") << QString() << "/a b/**"
                                   << "http://h/a%20b/c/d" << true;
    QTest::addRow("empty rule matches all") << QString() << QString() << "http://h/anything" << true;
}

void TestEndpointPolicy::matches()
{
    QFETCH(QString, host);
    QFETCH(QString, path);
    QFETCH(QString, url);
    QFETCH(bool, expected);
    EndpointPolicy e;
    e.host = host;
    e.path = path;
    QCOMPARE(e.matches(QUrl(url)), expected);
}

void TestEndpointPolicy::firstMatchingRuleWins()
{
    EndpointPolicy uploads;
    uploads.path = QStringLiteral("/upload/**");
    uploads.origin = QStringLiteral("uploads");
    EndpointPolicy everything;
    everything.path = QStringLiteral("**");
    everything.origin = QStringLiteral("everything");
    const QList<EndpointPolicy> rules{uploads, everything};
    QCOMPARE(matchingEndpointPolicy(rules, QUrl(QStringLiteral("https://h/upload/storage/v1/b/B/o")))->origin,
        QStringLiteral("uploads"));
    QCOMPARE(matchingEndpointPolicy(rules, QUrl(QStringLiteral("https://h/download/storage/v1/b/B/o/x")))->origin,
        QStringLiteral("everything"));
    QVERIFY(!matchingEndpointPolicy({uploads}, QUrl(QStringLiteral("https://h/storage/v1/b"))));
}

QTEST_APPLESS_MAIN(TestEndpointPolicy)
#include "tst_endpointpolicy.moc"
