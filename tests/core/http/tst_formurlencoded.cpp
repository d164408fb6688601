#include "core/http/formurlencoded.h"

#include <QTest>

using namespace RetryLab::Core;

/// application/x-www-form-urlencoded as the WHATWG URL standard writes and
/// reads it: what OAuth 2.0's token requests and the fault server's token
/// endpoint exchange.
class TestFormUrlEncoded final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void encode_escapesAllButTheUnreservedSet();
    void decode_plusPercentAndOddPieces_data();
    void decode_plusPercentAndOddPieces();
    void roundTrip_keepsEveryCharacter();
};

void TestFormUrlEncoded::encode_escapesAllButTheUnreservedSet()
{
    QCOMPARE(FormUrlEncoded::encodeText(QStringLiteral("aZ09*-._")), QByteArray("aZ09*-._"));
    QCOMPARE(FormUrlEncoded::encodeText(QStringLiteral("a b&c=d+e/f~g%")), QByteArray("a+b%26c%3Dd%2Be%2Ff%7Eg%25"));
    QCOMPARE(FormUrlEncoded::encodeText(QStringLiteral("é")), QByteArray("%C3%A9"));
    QCOMPARE(FormUrlEncoded::encode({{QStringLiteral("grant_type"), QStringLiteral("client_credentials")},
                 {QStringLiteral("scope"), QStringLiteral("read write")}}),
        QByteArray("grant_type=client_credentials&scope=read+write"));
    QCOMPARE(FormUrlEncoded::encode({}), QByteArray());
}

void TestFormUrlEncoded::decode_plusPercentAndOddPieces_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QStringList>("pairs"); // name, value, name, value ...
    QTest::addRow("plus is a space") << QByteArray("scope=read+write")
                                     << QStringList{QStringLiteral("scope"), QStringLiteral("read write")};
    QTest::addRow("percent") << QByteArray("a%3Db=c%26d%2B")
                             << QStringList{QStringLiteral("a=b"), QStringLiteral("c&d+")};
    QTest::addRow("utf-8") << QByteArray("n=%C3%A9") << QStringList{QStringLiteral("n"), QStringLiteral("é")};
    QTest::addRow("lone percent stays") << QByteArray("n=100%&m=%4")
                                        << QStringList{QStringLiteral("n"), QStringLiteral("100%"), QStringLiteral("m"),
                                               QStringLiteral("%4")};
    QTest::addRow("no equals, empty pieces")
        << QByteArray("&flag&&x=")
        << QStringList{QStringLiteral("flag"), QStringLiteral(""), QStringLiteral("x"), QStringLiteral("")};
    QTest::addRow("repeated names kept in order") << QByteArray(
        "a=1&a=2") << QStringList{QStringLiteral("a"), QStringLiteral("1"), QStringLiteral("a"), QStringLiteral("2")};
}

void TestFormUrlEncoded::decode_plusPercentAndOddPieces()
{
    QFETCH(QByteArray, body);
    QFETCH(QStringList, pairs);
    const FormUrlEncoded::Fields fields = FormUrlEncoded::decode(body);
    QCOMPARE(fields.size(), pairs.size() / 2);
    for (qsizetype i = 0; i < fields.size(); ++i) {
        QCOMPARE(fields.at(i).first, pairs.at(2 * i));
        QCOMPARE(fields.at(i).second, pairs.at(2 * i + 1));
    }
    if (!fields.isEmpty())
        QCOMPARE(FormUrlEncoded::value(fields, fields.first().first), fields.first().second);
    QVERIFY(!FormUrlEncoded::value(fields, QStringLiteral("absent")));
}

void TestFormUrlEncoded::roundTrip_keepsEveryCharacter()
{
    QString all;
    for (char16_t c = 1; c < 0x250; ++c)
        all.append(QChar(c));
    const FormUrlEncoded::Fields fields{{all, all}, {QStringLiteral("&="), QStringLiteral("+ %")}};
    QCOMPARE(FormUrlEncoded::decode(FormUrlEncoded::encode(fields)), fields);
}

QTEST_GUILESS_MAIN(TestFormUrlEncoded)
#include "tst_formurlencoded.moc"
