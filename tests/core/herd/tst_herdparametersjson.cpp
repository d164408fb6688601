#include "core/herd/herdparameters.h"
#include "core/herd/herdparametersjson.h"
#include "core/policy/policyfields.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QSet>
#include <QTest>

#include <cmath>

using namespace RetryLab::Core;

namespace {

QStringList paths(const QList<Error> &errors)
{
    QStringList list;
    for (const Error &error : errors)
        list.append(error.path);
    return list;
}

} // namespace

class TestHerdParametersJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTrip_keepsEveryStoredField_data();
    void roundTrip_keepsEveryStoredField();
    void damagedField_keepsItsDefaultAlone_data();
    void damagedField_keepsItsDefaultAlone();
    void fieldsValidOnlyTogether_areKept();
    void fieldTable_onePlaceForNamesOptionsAndValues();
    void fieldTable_backoffFieldsAreThePolicys();
    void errors_nameTheFieldApart_data();
    void errors_nameTheFieldApart();
    void parseErrors_nameTheirField();
};

void TestHerdParametersJson::roundTrip_keepsEveryStoredField_data()
{
    QTest::addColumn<int>("model");
    for (HerdModel model : allHerdModels())
        QTest::addRow("%s", qPrintable(herdModelName(model))) << int(model);
}

void TestHerdParametersJson::roundTrip_keepsEveryStoredField()
{
    QFETCH(int, model);
    HerdParameters p = HerdParameters::defaultsFor(HerdModel(model));
    p.clientCounts = {10, 25, 70};
    p.runs = 9;
    p.seed = 18'000'000'000'000'000'000ULL; // beyond 2^53: kept exactly as text
    p.strategies = {HerdStrategy{}, HerdStrategy{BackoffAlgorithm::FullJitter}};
    p.baseDelayMs = 7.5;
    p.maxBackoffMs = 900.0;
    p.networkSdMs = 4.5;
    p.arrivals = ArrivalMode::Poisson;
    p.arrivalRatePerSec = 33.0;
    p.overloadStatus = 429;
    p.retryAfterS = 2;
    p.honourRetryAfter = false;
    p.outageEndMs = 4000.0;
    p.latencyMedianMs = 42.0;
    p.latencySigma = 1.5;
    p.failureRate = 0.2;
    p.hedgedAttempts = 5;
    p.hedgingDelayMs = 120.0;
    p.rateLimiter = RateLimiterKind::AwsAdaptive;
    QVERIFY2(p.errors().isEmpty(), qPrintable(p.validate().join(QLatin1Char('\n'))));

    const QJsonObject json = HerdParametersJson::toJsonObject(p);
    QCOMPARE(json.value(QStringLiteral("seed")).toString(), QStringLiteral("18000000000000000000"));
    QCOMPARE(json.value(QStringLiteral("clients")).toString(), QStringLiteral("10,25,70"));
    const Salvaged<HerdParameters> back = HerdParametersJson::fromJsonObject(json);
    QVERIFY2(back.clean(), qPrintable(paths(back.leftOut).join(QLatin1Char(' '))));
    const HerdParameters &q = back.value;
    QCOMPARE(q.model, p.model);
    QCOMPARE(q.clientCounts, p.clientCounts);
    QCOMPARE(q.seed, p.seed);
    QCOMPARE(q.strategies, p.strategies);
    QCOMPARE(q.arrivals, p.arrivals);
    QCOMPARE(q.honourRetryAfter, p.honourRetryAfter);
    QCOMPARE(q.rateLimiter, p.rateLimiter);
    for (const HerdParameterField &field : herdParameterFields()) {
        if (field.stored)
            QCOMPARE(field.value(q), field.value(p));
    }

    // An unset Retry-After is stored as null and read back unset.
    p.retryAfterS.reset();
    const QJsonObject unset = HerdParametersJson::toJsonObject(p);
    QVERIFY(unset.value(QStringLiteral("retryAfterS")).isNull());
    QVERIFY(!HerdParametersJson::fromJsonObject(unset).value.retryAfterS);
}

void TestHerdParametersJson::damagedField_keepsItsDefaultAlone_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("message");

    QTest::addRow("runs of the wrong type")
        << "runs" << QJsonValue(QStringLiteral("many")) << "expected a whole number, got a string";
    QTest::addRow("runs not whole") << "runs" << QJsonValue(2.5) << "expected a whole number, got 2.5";
    QTest::addRow("a number the validation refuses")
        << "networkSdMs" << QJsonValue(-3.0) << "-3 is below the minimum of 0.";
    QTest::addRow("a backoff field the policy refuses")
        << "multiplier" << QJsonValue(0.5) << "a multiplier of 0.5 is below 1";
    QTest::addRow("an overload status") << "overloadStatus" << QJsonValue(500) << "must be 503 or 429 (got 500).";
    QTest::addRow("a seed as a number") << "seed" << QJsonValue(5) << "expected a string, got a number";
    QTest::addRow("a seed that is no number")
        << "seed" << QJsonValue(QStringLiteral("-5")) << "\"-5\" is not a whole number";
    QTest::addRow("client counts") << "clients" << QJsonValue(QStringLiteral("lots"))
                                   << "\"lots\" is not a whole number.";
    QTest::addRow("an unknown strategy") << "strategies"
                                         << QJsonValue(QJsonArray{QStringLiteral("none"), QStringLiteral("wobble")})
                                         << "unknown strategy \"wobble\"";
    QTest::addRow("a strategy of the wrong type") << "strategies" << QJsonValue(QJsonArray{QStringLiteral("none"), 1})
                                                  << "strategies[1]: expected a string, got a number";
    QTest::addRow("arrivals") << "arrivals" << QJsonValue(QStringLiteral("trickle"))
                              << "unknown value \"trickle\" (known: herd, poisson)";
    QTest::addRow("honour flag") << "honourRetryAfter" << QJsonValue(QStringLiteral("yes"))
                                 << "expected true or false, got a string";
}

void TestHerdParametersJson::damagedField_keepsItsDefaultAlone()
{
    QFETCH(QString, key);
    QFETCH(QJsonValue, value);
    QFETCH(QString, message);

    HerdParameters p = HerdParameters::defaultsFor(HerdModel::CapacityLimited);
    p.clientCounts = {10, 20};
    p.runs = 9;
    p.networkSdMs = 4.5;
    p.seed = 77;
    QJsonObject json = HerdParametersJson::toJsonObject(p);
    json.insert(key, value);

    const Salvaged<HerdParameters> back = HerdParametersJson::fromJsonObject(json);
    QVERIFY(!back.unreadable);
    QCOMPARE(back.leftOut.size(), 1);
    QCOMPARE(back.leftOut.constFirst().path, key);
    QVERIFY2(back.leftOut.constFirst().message.startsWith(message), qPrintable(back.leftOut.constFirst().message));
    QVERIFY(back.value.errors().isEmpty());

    // The damaged field has the model's default, the others what was stored.
    const HerdParameters defaults = HerdParameters::defaultsFor(HerdModel::CapacityLimited);
    QCOMPARE(back.value.model, HerdModel::CapacityLimited);
    QCOMPARE(back.value.runs, key == QLatin1String("runs") ? defaults.runs : 9);
    QCOMPARE(back.value.networkSdMs, key == QLatin1String("networkSdMs") ? defaults.networkSdMs : 4.5);
    QCOMPARE(back.value.seed, key == QLatin1String("seed") ? defaults.seed : quint64(77));
    QCOMPARE(back.value.clientCounts, key == QLatin1String("clients") ? defaults.clientCounts : p.clientCounts);
}

void TestHerdParametersJson::fieldsValidOnlyTogether_areKept()
{
    // A base delay above the default cap is valid only with the stored cap:
    // both are kept, whichever is read first.
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::OptimisticConcurrency);
    p.baseDelayMs = 5000.0;
    p.maxBackoffMs = 60'000.0;
    QVERIFY(p.errors().isEmpty());
    const Salvaged<HerdParameters> back = HerdParametersJson::fromJsonObject(HerdParametersJson::toJsonObject(p));
    QVERIFY(back.clean());
    QCOMPARE(back.value.baseDelayMs, 5000.0);
    QCOMPARE(back.value.maxBackoffMs, 60'000.0);

    // An unknown model is left out and gives the first model's defaults.
    QJsonObject json = HerdParametersJson::toJsonObject(p);
    json.insert(QStringLiteral("model"), QStringLiteral("queueing"));
    const Salvaged<HerdParameters> unknown = HerdParametersJson::fromJsonObject(json);
    QCOMPARE(paths(unknown.leftOut), QStringList{QStringLiteral("model")});
    QCOMPARE(unknown.value.model, HerdModel::OptimisticConcurrency);
    QCOMPARE(unknown.value.maxBackoffMs, 60'000.0);
}

void TestHerdParametersJson::fieldTable_onePlaceForNamesOptionsAndValues()
{
    QSet<QString> names;
    QSet<QString> options;
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::Outage);
    for (const HerdParameterField &field : herdParameterFields()) {
        QVERIFY2(!names.contains(field.key()), field.name);
        QVERIFY2(!options.contains(QLatin1String(field.option)), field.option);
        names.insert(field.key());
        options.insert(QLatin1String(field.option));
        QCOMPARE(herdParameterField(field.key()), &field);
        QVERIFY(!field.help().isEmpty());
        if (field.check == HerdParameterField::Check::Range || field.check == HerdParameterField::Check::AboveMinimum)
            QVERIFY2(field.min < field.max, field.name);

        field.setValue(p, 3.0);
        QCOMPARE(field.value(p), std::optional<double>(3.0));
    }
    QCOMPARE(herdParameterField(QStringLiteral("clients")), nullptr);

    // Every stored field is written, and only those.
    const QJsonObject json = HerdParametersJson::toJsonObject(HerdParameters::defaultsFor(HerdModel::Outage));
    for (const HerdParameterField &field : herdParameterFields())
        QCOMPARE(json.contains(field.key()), field.stored);
}

// The herd keeps a table of its own parameters; those that are a policy's are
// named, set on the command line and checked as the policy's field table says.
void TestHerdParametersJson::fieldTable_backoffFieldsAreThePolicys()
{
    int shared = 0;
    for (const HerdParameterField &field : herdParameterFields()) {
        const PolicyField *policyField = policyFieldNamed(field.key());
        if (field.check == HerdParameterField::Check::Policy)
            QVERIFY2(policyField, field.name);
        if (!policyField)
            continue;
        ++shared;
        QVERIFY2(policyField->option && qstrcmp(policyField->option, field.option) == 0, field.name);
        QVERIFY2(policyField->access.number, field.name);
        if (field.check == HerdParameterField::Check::Range) {
            QCOMPARE(field.min, policyField->min);
            QCOMPARE(field.max, policyField->max);
        }
    }
    QCOMPARE(shared, 7);
}

void TestHerdParametersJson::errors_nameTheFieldApart_data()
{
    QTest::addColumn<int>("which");
    QTest::addColumn<QStringList>("fields");

    QTest::addRow("valid") << 0 << QStringList();
    QTest::addRow("runs") << 1 << QStringList{QStringLiteral("runs")};
    QTest::addRow("a backoff field") << 2 << QStringList{QStringLiteral("maxBackoffMs")};
    QTest::addRow("a server field without a server") << 3 << QStringList();
    QTest::addRow("a server field") << 4 << QStringList{QStringLiteral("overloadStatus")};
    QTest::addRow("the grid") << 5 << QStringList{QStringLiteral("grid")};
    QTest::addRow("several") << 6 << QStringList{QStringLiteral("clients"), QStringLiteral("threads")};
}

void TestHerdParametersJson::errors_nameTheFieldApart()
{
    QFETCH(int, which);
    QFETCH(QStringList, fields);
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::OptimisticConcurrency);
    switch (which) {
    case 1:
        p.runs = 0;
        break;
    case 2:
        p.maxBackoffMs = -1.0;
        break;
    case 3:
        p.overloadStatus = 500; // the occ model has no server that answers 503
        break;
    case 4:
        p.model = HerdModel::CapacityLimited;
        p.overloadStatus = 500;
        break;
    case 5:
        p.clientCounts = {10'000};
        p.runs = 100'000;
        break;
    case 6:
        p.clientCounts = {0};
        p.threads = -1;
        break;
    default:
        break;
    }
    const QList<Error> errors = p.errors();
    QCOMPARE(paths(errors), fields);
    QStringList texts;
    for (const Error &error : errors) {
        QVERIFY(!error.message.isEmpty());
        texts.append(error.text());
    }
    QCOMPARE(p.validate(), texts);
}

void TestHerdParametersJson::parseErrors_nameTheirField()
{
    const auto counts = parseClientCounts(QStringLiteral("0:10:5"));
    QVERIFY(!counts);
    QCOMPARE(counts.errorDetail().path, QStringLiteral("clients"));
    QCOMPARE(counts.error(), QStringLiteral("clients: 0 is outside 1..1000000 in \"0:10:5\"."));

    const auto strategies = parseStrategies(QStringLiteral("none,wobble"));
    QVERIFY(!strategies);
    QCOMPARE(strategies.errorDetail().path, QStringLiteral("strategies"));
    QVERIFY(strategies.errorDetail().message.startsWith(QLatin1String("unknown strategy \"wobble\"")));
}

QTEST_GUILESS_MAIN(TestHerdParametersJson)
#include "tst_herdparametersjson.moc"
