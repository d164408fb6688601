#include "core/policy/pollingpolicy.h"
#include "core/policy/pollingpolicyjson.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <limits>

using namespace RetryLab::Core;

class TestPollingPolicy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void defaults_areGooglesOperationsGet();
    void googleLroPreset_hasATotalTimeout();
    void unknownPreset_isNone();
    void delay_growsByTheMultiplierUpToTheCap();
    void delay_ofAHugeIndexIsTheCap();
    void validate_refusesBadValues_data();
    void validate_refusesBadValues();
    void validate_refusesAPolicyWithoutAnEnd();
    void validate_acceptsEitherEnd();
    void validate_acceptsAnEmptyErrorPointer();
    void json_roundTrips();
    void json_missingFieldsKeepDefaults();
    void json_refusesBadInput_data();
    void json_refusesBadInput();
    void json_refusesAPolicyWithoutAnEnd();
    void readFile_namesTheFile();
};

void TestPollingPolicy::defaults_areGooglesOperationsGet()
{
    const PollingPolicy p;
    QCOMPARE(p.initialDelayMs, 1000.0);
    QCOMPARE(p.multiplier, 1.5);
    QCOMPARE(p.maxDelayMs, 45000.0);
    QCOMPARE(p.totalTimeoutMs, 0.0);
    QCOMPARE(p.maxPolls, 0);
    QCOMPARE(p.donePointer, QStringLiteral("/done"));
    QCOMPARE(p.errorPointer, QStringLiteral("/error"));
}

void TestPollingPolicy::googleLroPreset_hasATotalTimeout()
{
    const auto p = PollingPolicy::preset(QStringLiteral("google-lro"));
    QVERIFY(p);
    QCOMPARE(p->initialDelayMs, 1000.0);
    QCOMPARE(p->multiplier, 1.5);
    QCOMPARE(p->maxDelayMs, 45000.0);
    QCOMPARE(p->totalTimeoutMs, 300000.0);
    QVERIFY2(validatePollingPolicy(*p).ok(), qPrintable(validatePollingPolicy(*p).error()));
    QVERIFY(PollingPolicy::presetIds().contains(QStringLiteral("google-lro")));
}

void TestPollingPolicy::unknownPreset_isNone()
{
    QVERIFY(!PollingPolicy::preset(QStringLiteral("google-cloud-storage")));
    QVERIFY(!PollingPolicy::preset(QString()));
}

void TestPollingPolicy::delay_growsByTheMultiplierUpToTheCap()
{
    const PollingPolicy p;
    const QList<double> expected{
        1000, 1500, 2250, 3375, 5062.5, 7593.75, 11390.625, 17085.9375, 25628.90625, 38443.359375, 45000, 45000};
    for (int i = 0; i < expected.size(); ++i)
        QCOMPARE(p.delayBeforePoll(i), expected.at(i));

    PollingPolicy scaled;
    scaled.initialDelayMs = 20;
    scaled.maxDelayMs = 200;
    const QList<double> small{20, 30, 45, 67.5, 101.25, 151.875, 200, 200};
    for (int i = 0; i < small.size(); ++i)
        QCOMPARE(scaled.delayBeforePoll(i), small.at(i));
}

void TestPollingPolicy::delay_ofAHugeIndexIsTheCap()
{
    const PollingPolicy p;
    QCOMPARE(p.delayBeforePoll(std::numeric_limits<int>::max()), 45000.0);
    QCOMPARE(p.delayBeforePoll(-3), 1000.0);
}

void TestPollingPolicy::validate_refusesBadValues_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");

    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    QTest::addRow("initial NaN") << "initialDelayMs" << nan << "initialDelayMs"
                                 << "not a number";
    QTest::addRow("initial infinite") << "initialDelayMs" << inf << "initialDelayMs"
                                      << "must be finite";
    QTest::addRow("initial negative") << "initialDelayMs" << -1.0 << "initialDelayMs"
                                      << "cannot be negative";
    QTest::addRow("initial zero") << "initialDelayMs" << 0.0 << "initialDelayMs"
                                  << "greater than zero";
    QTest::addRow("initial huge") << "initialDelayMs" << 1e12 << "initialDelayMs"
                                  << "beyond the sensible limit";
    QTest::addRow("multiplier NaN") << "multiplier" << nan << "multiplier"
                                    << "finite number";
    QTest::addRow("multiplier below 1") << "multiplier" << 0.9 << "multiplier"
                                        << "between 1 and 10";
    QTest::addRow("multiplier huge") << "multiplier" << 11.0 << "multiplier"
                                     << "between 1 and 10";
    QTest::addRow("max NaN") << "maxDelayMs" << nan << "maxDelayMs"
                             << "not a number";
    QTest::addRow("max negative") << "maxDelayMs" << -5.0 << "maxDelayMs"
                                  << "cannot be negative";
    QTest::addRow("max huge") << "maxDelayMs" << 1e12 << "maxDelayMs"
                              << "beyond the sensible limit";
    QTest::addRow("max below initial") << "maxDelayMs" << 500.0 << "maxDelayMs"
                                       << "shorter than the first";
    QTest::addRow("total NaN") << "totalTimeoutMs" << nan << "totalTimeoutMs"
                               << "not a number";
    QTest::addRow("total negative") << "totalTimeoutMs" << -1.0 << "totalTimeoutMs"
                                    << "cannot be negative";
    QTest::addRow("total huge") << "totalTimeoutMs" << 1e12 << "totalTimeoutMs"
                                << "beyond the sensible limit";
    QTest::addRow("polls negative") << "maxPolls" << -1.0 << "maxPolls"
                                    << "between 0 and 1000000";
    QTest::addRow("polls huge") << "maxPolls" << 2e6 << "maxPolls"
                                << "between 0 and 1000000";
}

void TestPollingPolicy::validate_refusesBadValues()
{
    QFETCH(QString, field);
    QFETCH(double, value);
    QFETCH(QString, path);
    QFETCH(QString, message);

    PollingPolicy p;
    p.totalTimeoutMs = 60000;
    if (field == QLatin1String("initialDelayMs"))
        p.initialDelayMs = value;
    else if (field == QLatin1String("multiplier"))
        p.multiplier = value;
    else if (field == QLatin1String("maxDelayMs"))
        p.maxDelayMs = value;
    else if (field == QLatin1String("totalTimeoutMs"))
        p.totalTimeoutMs = value;
    else if (field == QLatin1String("maxPolls"))
        p.maxPolls = int(value);
    if (field == QLatin1String("initialDelayMs"))
        p.maxDelayMs = PollingPolicy::maxDurationMs; // so that only the first wait is at fault

    const auto result = validatePollingPolicy(p);
    QVERIFY(!result.ok());
    QCOMPARE(result.errorDetail().path, path);
    QVERIFY2(result.errorDetail().message.contains(message), qPrintable(result.error()));
}

void TestPollingPolicy::validate_refusesAPolicyWithoutAnEnd()
{
    const PollingPolicy p; // neither a total timeout nor a number of polls
    const auto result = validatePollingPolicy(p);
    QVERIFY(!result.ok());
    QVERIFY2(result.error().contains(QLatin1String("a polling policy without an end")), qPrintable(result.error()));
}

void TestPollingPolicy::validate_acceptsEitherEnd()
{
    PollingPolicy byTime;
    byTime.totalTimeoutMs = 1000;
    QVERIFY(validatePollingPolicy(byTime).ok());
    PollingPolicy byCount;
    byCount.maxPolls = 3;
    QVERIFY(validatePollingPolicy(byCount).ok());
}

void TestPollingPolicy::validate_acceptsAnEmptyErrorPointer()
{
    PollingPolicy p;
    p.maxPolls = 3;
    p.errorPointer.clear();
    QVERIFY(validatePollingPolicy(p).ok());
    p.donePointer.clear();
    const auto result = validatePollingPolicy(p);
    QVERIFY(!result.ok());
    QCOMPARE(result.errorDetail().path, QStringLiteral("donePointer"));
}

void TestPollingPolicy::json_roundTrips()
{
    PollingPolicy p;
    p.initialDelayMs = 20;
    p.multiplier = 2;
    p.maxDelayMs = 250;
    p.totalTimeoutMs = 5000;
    p.maxPolls = 12;
    p.donePointer = QStringLiteral("/status/finished");
    p.errorPointer = QStringLiteral("/status/problem");
    const auto back = PollingPolicyJson::fromJson(PollingPolicyJson::toJson(p));
    QVERIFY2(back.ok(), qPrintable(back.error()));
    QCOMPARE(*back, p);
    QCOMPARE(PollingPolicyJson::toJsonObject(p).value(QStringLiteral("format")).toString(),
        QStringLiteral("retrylab-polling-policy"));
}

void TestPollingPolicy::json_missingFieldsKeepDefaults()
{
    const auto p = PollingPolicyJson::fromJson(R"({"maxPolls": 4})");
    QVERIFY2(p.ok(), qPrintable(p.error()));
    PollingPolicy expected;
    expected.maxPolls = 4;
    QCOMPARE(*p, expected);
}

void TestPollingPolicy::json_refusesBadInput_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");

    QTest::addRow("not JSON") << QByteArray("{\"maxPolls\": ") << QString() << "not valid JSON";
    QTest::addRow("not an object") << QByteArray("[1]") << QString() << "must hold a JSON object";
    QTest::addRow("unknown field") << QByteArray(R"({"maxPoll": 3})") << "maxPoll"
                                   << "maxPolls";
    QTest::addRow("wrong format") << QByteArray(R"({"format": "retrylab-policy", "maxPolls": 3})") << "format"
                                  << "retrylab-polling-policy";
    QTest::addRow("future version") << QByteArray(R"({"version": 2, "maxPolls": 3})") << "version"
                                    << "not supported";
    QTest::addRow("text for a number") << QByteArray(R"({"initialDelayMs": "1s", "maxPolls": 3})") << "initialDelayMs"
                                       << "a string";
    QTest::addRow("fraction of a poll") << QByteArray(R"({"maxPolls": 2.5})") << "maxPolls"
                                        << "";
    QTest::addRow("negative initial") << QByteArray(R"({"initialDelayMs": -1, "maxPolls": 3})") << "initialDelayMs"
                                      << "cannot be negative";
    QTest::addRow("huge total") << QByteArray(R"({"totalTimeoutMs": 1e300})") << "totalTimeoutMs"
                                << "beyond the sensible limit";
    QTest::addRow("multiplier below 1") << QByteArray(R"({"multiplier": 0.5, "maxPolls": 3})") << "multiplier"
                                        << "between 1 and 10";
    QTest::addRow("max below initial") << QByteArray(R"({"initialDelayMs": 2000, "maxDelayMs": 1000, "maxPolls": 3})")
                                       << "maxDelayMs"
                                       << "shorter than the first";
    QTest::addRow("polls beyond an int") << QByteArray(R"({"maxPolls": 1e10})") << "maxPolls"
                                         << "";
    QTest::addRow("bad done pointer") << QByteArray(R"({"donePointer": "done", "maxPolls": 3})") << "donePointer"
                                      << "not a JSON pointer";
    QTest::addRow("bad error pointer") << QByteArray(R"({"errorPointer": "/a~2", "maxPolls": 3})") << "errorPointer"
                                       << "not a JSON pointer";
    QTest::addRow("done pointer not text") << QByteArray(R"({"donePointer": true, "maxPolls": 3})") << "donePointer"
                                           << "";
}

void TestPollingPolicy::json_refusesBadInput()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, path);
    QFETCH(QString, message);

    const auto result = PollingPolicyJson::fromJson(json);
    QVERIFY(!result.ok());
    QCOMPARE(result.errorDetail().path, path);
    QVERIFY2(!result.errorDetail().message.isEmpty(), "an error says what is wrong");
    QVERIFY2(result.errorDetail().message.contains(message), qPrintable(result.error()));
}

void TestPollingPolicy::json_refusesAPolicyWithoutAnEnd()
{
    for (const QByteArray &json : {QByteArray("{}"), QByteArray(R"({"totalTimeoutMs": 0, "maxPolls": 0})")}) {
        const auto result = PollingPolicyJson::fromJson(json);
        QVERIFY(!result.ok());
        QVERIFY2(result.error().contains(QLatin1String("a polling policy without an end")), qPrintable(result.error()));
    }
}

void TestPollingPolicy::readFile_namesTheFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("poll.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"multiplier": 0.5, "maxPolls": 3})");
    file.close();
    const auto result = PollingPolicyJson::readFile(path);
    QVERIFY(!result.ok());
    QVERIFY2(result.error().startsWith(path), qPrintable(result.error()));
    QVERIFY2(result.error().contains(QLatin1String("multiplier")), qPrintable(result.error()));

    const auto missing = PollingPolicyJson::readFile(dir.filePath(QStringLiteral("none.json")));
    QVERIFY(!missing.ok());
}

QTEST_GUILESS_MAIN(TestPollingPolicy)
#include "tst_pollingpolicy.moc"
