#include "core/record/attemptrecord.h"

#include <QTest>

using namespace RetryLab::Core;

// The names an attempt's record is written with.
class TestAttemptRecord : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void networkErrorName_isQtsNameOrTheNumber_data();
    void networkErrorName_isQtsNameOrTheNumber();
};

void TestAttemptRecord::networkErrorName_isQtsNameOrTheNumber_data()
{
    QTest::addColumn<int>("error");
    QTest::addColumn<QString>("name");
    QTest::addRow("none") << int(QNetworkReply::NoError) << QStringLiteral("NoError");
    QTest::addRow("refused") << int(QNetworkReply::ConnectionRefusedError) << QStringLiteral("ConnectionRefusedError");
    QTest::addRow("cancelled") << int(QNetworkReply::OperationCanceledError)
                               << QStringLiteral("OperationCanceledError");
    QTest::addRow("503") << int(QNetworkReply::ServiceUnavailableError) << QStringLiteral("ServiceUnavailableError");
    QTest::addRow("TLS") << int(QNetworkReply::SslHandshakeFailedError) << QStringLiteral("SslHandshakeFailedError");
    QTest::addRow("unknown to Qt") << 4242 << QStringLiteral("4242");
}

void TestAttemptRecord::networkErrorName_isQtsNameOrTheNumber()
{
    QFETCH(int, error);
    QFETCH(QString, name);
    QCOMPARE(networkErrorName(QNetworkReply::NetworkError(error)), name);
}

QTEST_GUILESS_MAIN(TestAttemptRecord)
#include "tst_attemptrecord.moc"
