#include "core/collections/dynamicvariables.h"
#include "core/collections/requesttemplate.h"
#include "core/collections/variables.h"
#include "core/util/clock.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QSet>
#include <QTest>
#include <QUuid>

using namespace RetryLab;
using Core::DynamicVariables;
using Core::ManualClock;

namespace {

// 2025-03-04T05:06:07.089Z: a wall time whose every field shows.
QDateTime testWallTime()
{
    return QDateTime(QDate(2025, 3, 4), QTime(5, 6, 7, 89), Qt::UTC);
}

QString everyReference()
{
    QStringList references;
    for (const QString &name : DynamicVariables::names())
        references.append(QStringLiteral("{{%1}}").arg(name));
    return references.join(QLatin1Char('|'));
}

} // namespace

class TestDynamicVariables final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void names_areTheThirtyOneOfPostman();
    void everyName_givesAPlausibleValue_data();
    void everyName_givesAPlausibleValue();
    void timeValues_readTheInjectedClock();
    void sameSeed_givesTheSameValues();
    void otherSeed_givesOtherValues();
    void guid_isAVersion4UuidNewAtEveryReference();
    void randomInt_staysWithinZeroToAThousand();
    void expand_leavesUnknownNamesAndReportsThemOnce();
    void expand_leavesPlainVariablesAndTextAlone();
    void variablesApply_withDynamic_fillsEveryPart();
    void variablesApply_environmentValueMayHoldADynamicName();
    void variablesApply_unknownDynamicName_isAnError();
    void variablesApply_withoutDynamic_keepsTheReference();
    void requestTemplate_build_fillsTheUrl();
};

void TestDynamicVariables::names_areTheThirtyOneOfPostman()
{
    const QStringList names = DynamicVariables::names();
    QCOMPARE(names.size(), 31);
    QCOMPARE(QSet<QString>(names.cbegin(), names.cend()).size(), 31);
    for (const QString &name : names) {
        QVERIFY2(name.startsWith(QLatin1Char('$')), qPrintable(name));
        QVERIFY(DynamicVariables::isKnown(name));
    }
    QVERIFY(!DynamicVariables::isKnown(QStringLiteral("$randomNope")));
    QVERIFY(!DynamicVariables::isKnown(QStringLiteral("guid")));
}

void TestDynamicVariables::everyName_givesAPlausibleValue_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("pattern");
    const QString uuid = QStringLiteral("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    const QString iso = QStringLiteral("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z");
    const QString name = QStringLiteral("[A-Z][a-z]+");
    const QString words = QStringLiteral("[A-Za-z]+( [A-Za-z]+)*");
    const QList<QPair<const char *, QString>> rows{
        {"$guid", uuid},
        {"$randomUUID", uuid},
        {"$timestamp", QStringLiteral("\\d{10}")},
        {"$isoTimestamp", iso},
        {"$randomInt", QStringLiteral("(0|[1-9]\\d{0,2}|1000)")},
        {"$randomBoolean", QStringLiteral("(true|false)")},
        {"$randomFirstName", name},
        {"$randomLastName", name},
        {"$randomFullName", name + QLatin1Char(' ') + name},
        {"$randomEmail", QStringLiteral("[a-z]+\\.[a-z]+\\d{2}@example\\.(com|org|net)")},
        {"$randomUserName", QStringLiteral("[A-Z][a-z]+\\.[A-Z][a-z]+\\d{2}")},
        {"$randomPhoneNumber", QStringLiteral("[2-9]\\d{2}-\\d{3}-\\d{4}")},
        {"$randomCity", name},
        {"$randomCountry", QStringLiteral("[A-Z][a-z]+( [A-Z][a-z]+)?")},
        {"$randomStreetAddress", QStringLiteral("[1-9]\\d{0,3} [A-Z][a-z]+ [A-Z][a-z]+")},
        {"$randomCompanyName", QStringLiteral("[A-Z][a-z]+ [A-Z][A-Za-z]+")},
        {"$randomProduct", name},
        {"$randomProductName", name + QLatin1Char(' ') + name + QLatin1Char(' ') + name},
        {"$randomPrice", QStringLiteral("[1-9]\\d{0,3}\\.\\d{2}")},
        {"$randomColor", QStringLiteral("[a-z]+")},
        {"$randomWord", QStringLiteral("[a-z]+")},
        {"$randomWords", QStringLiteral("[a-z]+( [a-z]+){1,3}")},
        {"$randomLoremSentence", QStringLiteral("[A-Z][a-z]*( [a-z]+){3,9}\\.")},
        {"$randomAlphaNumeric", QStringLiteral("[a-z0-9]")},
        {"$randomHexColor", QStringLiteral("#[0-9a-f]{6}")},
        {"$randomIP", QStringLiteral("(\\d{1,3}\\.){3}\\d{1,3}")},
        {"$randomUrl", QStringLiteral("https://[a-z]+\\.(com|net|org|io|info)")},
        {"$randomDateFuture", iso},
        {"$randomDatePast", iso},
        {"$randomJobTitle", words},
        {"$randomCurrencyCode", QStringLiteral("[A-Z]{3}")},
    };
    QCOMPARE(rows.size(), DynamicVariables::names().size());
    for (const auto &row : rows)
        QTest::addRow("%s", row.first) << QString::fromLatin1(row.first) << row.second;
}

void TestDynamicVariables::everyName_givesAPlausibleValue()
{
    QFETCH(QString, name);
    QFETCH(QString, pattern);
    QVERIFY(DynamicVariables::isKnown(name));
    const QRegularExpression expected(QRegularExpression::anchoredPattern(pattern));
    QVERIFY(expected.isValid());
    const ManualClock clock(testWallTime());
    DynamicVariables dynamic(7, &clock);
    // Many draws, so that every word of a list and both ends of a range get their turn.
    for (int i = 0; i < 200; ++i) {
        const auto value = dynamic.value(name);
        QVERIFY(value);
        QVERIFY2(expected.match(*value).hasMatch(), qPrintable(name + QStringLiteral(" gave ") + *value));
    }
    if (name == QLatin1String("$randomIP")) {
        for (const QString &octet : dynamic.value(name)->split(QLatin1Char('.')))
            QVERIFY(octet.toInt() <= 255);
    }
}

void TestDynamicVariables::timeValues_readTheInjectedClock()
{
    ManualClock clock(testWallTime());
    DynamicVariables dynamic(1, &clock);
    QCOMPARE(*dynamic.value(QStringLiteral("$timestamp")), QString::number(testWallTime().toSecsSinceEpoch()));
    QCOMPARE(*dynamic.value(QStringLiteral("$isoTimestamp")), QStringLiteral("2025-03-04T05:06:07.089Z"));
    clock.advanceMs(10'000);
    QCOMPARE(*dynamic.value(QStringLiteral("$timestamp")), QString::number(testWallTime().toSecsSinceEpoch() + 10));
    for (int i = 0; i < 100; ++i) {
        const QDateTime now = clock.wallTime();
        const QDateTime future
            = QDateTime::fromString(*dynamic.value(QStringLiteral("$randomDateFuture")), Qt::ISODateWithMs);
        const QDateTime past
            = QDateTime::fromString(*dynamic.value(QStringLiteral("$randomDatePast")), Qt::ISODateWithMs);
        QVERIFY(future.isValid() && past.isValid());
        QVERIFY(future > now && future <= now.addDays(366));
        QVERIFY(past < now && past >= now.addDays(-366));
    }
}

void TestDynamicVariables::sameSeed_givesTheSameValues()
{
    const ManualClock clock(testWallTime());
    DynamicVariables first(42, &clock);
    DynamicVariables second(42, &clock);
    QCOMPARE(first.seed(), quint64(42));
    const QString text = everyReference();
    for (int i = 0; i < 5; ++i) {
        const QString a = first.expand(text);
        QVERIFY(!a.contains(QLatin1String("{{")));
        QCOMPARE(second.expand(text), a);
    }
}

void TestDynamicVariables::otherSeed_givesOtherValues()
{
    const ManualClock clock(testWallTime());
    DynamicVariables first(42, &clock);
    DynamicVariables second(43, &clock);
    QVERIFY(first.expand(everyReference()) != second.expand(everyReference()));
}

void TestDynamicVariables::guid_isAVersion4UuidNewAtEveryReference()
{
    DynamicVariables dynamic(3);
    const QStringList values = dynamic.expand(QStringLiteral("{{$guid}} {{ $guid }} {{$randomUUID}}")).split(u' ');
    QCOMPARE(values.size(), 3);
    QCOMPARE(QSet<QString>(values.cbegin(), values.cend()).size(), 3);
    for (const QString &value : values) {
        const QUuid uuid(value);
        QVERIFY2(!uuid.isNull(), qPrintable(value));
        QCOMPARE(uuid.version(), QUuid::Random);
        QCOMPARE(uuid.variant(), QUuid::DCE);
    }
}

void TestDynamicVariables::randomInt_staysWithinZeroToAThousand()
{
    DynamicVariables dynamic(11);
    int lowest = 1000;
    int highest = 0;
    for (int i = 0; i < 5000; ++i) {
        const int value = dynamic.value(QStringLiteral("$randomInt"))->toInt();
        QVERIFY(value >= 0 && value <= 1000);
        lowest = std::min(lowest, value);
        highest = std::max(highest, value);
    }
    QVERIFY(lowest < 10);
    QVERIFY(highest > 990);
}

void TestDynamicVariables::expand_leavesUnknownNamesAndReportsThemOnce()
{
    DynamicVariables dynamic(5);
    QStringList unknown;
    const QString out
        = dynamic.expand(QStringLiteral("a={{$nope}}&b={{$randomInt}}&c={{$nope}}&d={{$other}}"), &unknown);
    QVERIFY(out.startsWith(QLatin1String("a={{$nope}}&b=")));
    QVERIFY(out.endsWith(QLatin1String("&c={{$nope}}&d={{$other}}")));
    QVERIFY(!out.contains(QLatin1String("$randomInt")));
    QCOMPARE(unknown, (QStringList{QStringLiteral("$nope"), QStringLiteral("$other")}));
    QVERIFY(DynamicVariables::mentions(QStringLiteral("x {{$nope}}")));
    QVERIFY(!DynamicVariables::mentions(QStringLiteral("x {{nope}}")));
}

void TestDynamicVariables::expand_leavesPlainVariablesAndTextAlone()
{
    DynamicVariables dynamic(5);
    QStringList unknown;
    const QString text = QStringLiteral("{{token}} {\"a\": {\"b\": 1}} $guid {$guid} {{ }}");
    QCOMPARE(dynamic.expand(text, &unknown), text);
    QVERIFY(unknown.isEmpty());
}

void TestDynamicVariables::variablesApply_withDynamic_fillsEveryPart()
{
    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("{{base}}/orders/{{$randomInt}}");
    draft.headers = {{QStringLiteral("X-Request-Id"), QStringLiteral("{{$guid}}"), true},
        {QStringLiteral("X-Off"), QStringLiteral("{{$nope}}"), false}};
    draft.body = QStringLiteral("{\"at\": {{$timestamp}}, \"who\": \"{{$randomFirstName}}\"}");
    draft.fallbackTemplates = {QStringLiteral("{{base}}/b?n={{$randomInt}}")};
    const ManualClock clock(testWallTime());
    DynamicVariables dynamic(9, &clock);
    const auto applied = Core::Variables::apply(
        draft, {{QStringLiteral("base"), QStringLiteral("https://api.example.org")}}, QStringLiteral("Dev"), &dynamic);
    QVERIFY2(applied, qPrintable(applied.error()));
    QVERIFY(QRegularExpression(QStringLiteral("^https://api\\.example\\.org/orders/\\d+$"))
                .match(applied->urlTemplate)
                .hasMatch());
    QVERIFY(!QUuid(applied->headers.at(0).value).isNull());
    // A disabled header is not sent, so it is left as typed, as for {{name}}.
    QCOMPARE(applied->headers.at(1).value, QStringLiteral("{{$nope}}"));
    QVERIFY(
        applied->body.startsWith(QStringLiteral("{\"at\": %1, \"who\": \"").arg(testWallTime().toSecsSinceEpoch())));
    QVERIFY(!applied->fallbackTemplates.at(0).contains(QLatin1String("{{")));
}

void TestDynamicVariables::variablesApply_environmentValueMayHoldADynamicName()
{
    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("https://example.org/?id={{requestId}}");
    DynamicVariables dynamic(9);
    const auto applied = Core::Variables::apply(
        draft, {{QStringLiteral("requestId"), QStringLiteral("{{$guid}}")}}, QStringLiteral("Dev"), &dynamic);
    QVERIFY2(applied, qPrintable(applied.error()));
    QVERIFY(!QUuid(applied->urlTemplate.section(QLatin1Char('='), 1)).isNull());
}

void TestDynamicVariables::variablesApply_unknownDynamicName_isAnError()
{
    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("https://example.org/");
    draft.body = QStringLiteral("{{$randomNope}}");
    DynamicVariables dynamic(9);
    const auto applied = Core::Variables::apply(draft, {}, QString(), &dynamic);
    QVERIFY(!applied);
    QVERIFY2(applied.error().startsWith(QLatin1String("{{$randomNope}} is not a dynamic variable (known: $guid, ")),
        qPrintable(applied.error()));
}

void TestDynamicVariables::variablesApply_withoutDynamic_keepsTheReference()
{
    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("https://example.org/{{$guid}}");
    const auto applied = Core::Variables::apply(draft, {}, QString());
    QVERIFY(applied);
    QCOMPARE(applied->urlTemplate, draft.urlTemplate);
}

void TestDynamicVariables::requestTemplate_build_fillsTheUrl()
{
    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("http://127.0.0.1:1/items/{{$randomInt}}");
    draft.body = QStringLiteral("{{$randomWord}}");
    DynamicVariables dynamic(21);
    Core::ExpansionContext context;
    context.dynamic = &dynamic;
    const auto spec = Core::RequestTemplate::build(draft, context);
    QVERIFY2(spec, qPrintable(spec.error()));
    QVERIFY(QRegularExpression(QStringLiteral("^/items/\\d+$")).match(spec->url.path()).hasMatch());
    QVERIFY(QRegularExpression(QStringLiteral("^[a-z]+$")).match(QString::fromUtf8(spec->body)).hasMatch());

    const auto url = Core::RequestTemplate::url(QStringLiteral("http://127.0.0.1:1/{{$nope}}"), context);
    QVERIFY(!url);
    QVERIFY2(url.error().contains(QLatin1String("{{$nope}} is not a dynamic variable")), qPrintable(url.error()));
}

QTEST_GUILESS_MAIN(TestDynamicVariables)
#include "tst_dynamicvariables.moc"
