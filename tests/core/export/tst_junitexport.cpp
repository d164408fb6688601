#include "core/export/junitexport.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

using namespace RetryLab::Core;

namespace {

// The parts of a JUnit file the tests look at.
struct Case
{
    QString name;
    QString classname;
    QString time;
    bool failed = false;
    QString failureMessage;
    QString failureText;
    QString systemOut;
};

struct SuiteXml
{
    QXmlStreamAttributes attributes;
    QHash<QString, QString> properties;
    QList<Case> cases;
};

struct Document
{
    QXmlStreamAttributes root;
    QList<SuiteXml> suites;
    QStringList comments;
    QString error;
};

Document read(const QByteArray &xml)
{
    Document d;
    QXmlStreamReader r(xml);
    while (!r.atEnd()) {
        r.readNext();
        if (r.isComment())
            d.comments.append(r.text().toString());
        if (!r.isStartElement())
            continue;
        const auto name = r.name();
        if (name == QLatin1String("testsuites")) {
            d.root = r.attributes();
        } else if (name == QLatin1String("testsuite")) {
            d.suites.append(SuiteXml{r.attributes(), {}, {}});
        } else if (name == QLatin1String("property")) {
            d.suites.last().properties.insert(r.attributes().value(QLatin1String("name")).toString(),
                r.attributes().value(QLatin1String("value")).toString());
        } else if (name == QLatin1String("testcase")) {
            Case c;
            c.name = r.attributes().value(QLatin1String("name")).toString();
            c.classname = r.attributes().value(QLatin1String("classname")).toString();
            c.time = r.attributes().value(QLatin1String("time")).toString();
            d.suites.last().cases.append(c);
        } else if (name == QLatin1String("failure")) {
            Case &c = d.suites.last().cases.last();
            c.failed = true;
            c.failureMessage = r.attributes().value(QLatin1String("message")).toString();
            c.failureText = r.readElementText();
        } else if (name == QLatin1String("system-out")) {
            d.suites.last().cases.last().systemOut = r.readElementText();
        }
    }
    if (r.hasError())
        d.error = QStringLiteral("%1 at line %2").arg(r.errorString()).arg(r.lineNumber());
    return d;
}

JUnitExport::Suite sampleSuite()
{
    JUnitExport::Suite s;
    s.name = QStringLiteral("flaky <endpoint> & \"friends\"");
    s.timestamp = QDateTime(QDate(2025, 3, 4), QTime(5, 6, 7, 89), Qt::UTC);
    s.policyName = QStringLiteral("Google Cloud Storage – für Tests");
    s.results = {
        {QStringLiteral("request 1 succeeds"), true, QStringLiteral("succeeded after 4 attempts"), 1234.0, {1}},
        {QStringLiteral("upload <retried> ×3 ]]> \x01 ok"), false,
            QStringLiteral("expected 3 attempts, got 1\nsecond line with \"quotes\" & <tags>\x02"), 45.0, {2, 3}},
        {QStringLiteral("no secret leaks"), false,
            QStringLiteral("GET https://u:pw-SECRET@h/x?access_token=tok-SECRET failed"), 1.0, {}},
    };
    return s;
}

} // namespace

class TestJUnitExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void document_isWellFormedWithCounts();
    void testCases_oneperExpectation();
    void escaping_andInvalidCharacters();
    void severalSuites_addUp();
    void suiteFor_takesTimesFromTheRun();
    void emptySuite_isValid();
    void redactedByDefault_unredactedWarns();
    void certificateErrorsIgnored_saidBySuiteAndComment();
    void file_isWritten();
};

void TestJUnitExport::document_isWellFormedWithCounts()
{
    const Document d = read(JUnitExport::toXml({sampleSuite()}));
    QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
    QCOMPARE(d.root.value(QLatin1String("tests")).toString(), QStringLiteral("3"));
    QCOMPARE(d.root.value(QLatin1String("failures")).toString(), QStringLiteral("2"));
    QCOMPARE(d.root.value(QLatin1String("errors")).toString(), QStringLiteral("0"));
    QCOMPARE(d.root.value(QLatin1String("skipped")).toString(), QStringLiteral("0"));
    QCOMPARE(d.root.value(QLatin1String("time")).toString(), QStringLiteral("1.280"));
    QCOMPARE(d.suites.size(), 1);
    const QXmlStreamAttributes &s = d.suites.at(0).attributes;
    QCOMPARE(s.value(QLatin1String("name")).toString(), QStringLiteral("flaky <endpoint> & \"friends\""));
    QCOMPARE(s.value(QLatin1String("tests")).toString(), QStringLiteral("3"));
    QCOMPARE(s.value(QLatin1String("failures")).toString(), QStringLiteral("2"));
    QCOMPARE(s.value(QLatin1String("time")).toString(), QStringLiteral("1.280"));
    QCOMPARE(s.value(QLatin1String("timestamp")).toString(), QStringLiteral("2025-03-04T05:06:07"));
    QVERIFY(!s.value(QLatin1String("hostname")).isEmpty());
    QCOMPARE(
        d.suites.at(0).properties.value(QStringLiteral("policy")), QStringLiteral("Google Cloud Storage – für Tests"));
    QCOMPARE(d.suites.at(0).properties.value(QStringLiteral("redacted")), QStringLiteral("true"));
}

void TestJUnitExport::testCases_oneperExpectation()
{
    const Document d = read(JUnitExport::toXml({sampleSuite()}));
    QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
    const QList<Case> cases = d.suites.at(0).cases;
    QCOMPARE(cases.size(), 3);
    QCOMPARE(cases.at(0).name, QStringLiteral("request 1 succeeds"));
    QCOMPARE(cases.at(0).classname, QStringLiteral("retrylab.flaky <endpoint> & \"friends\""));
    QCOMPARE(cases.at(0).time, QStringLiteral("1.234"));
    QVERIFY(!cases.at(0).failed);
    QCOMPARE(cases.at(0).systemOut, QStringLiteral("requests: 1\nsucceeded after 4 attempts\n"));
    QVERIFY(cases.at(1).failed);
    QCOMPARE(cases.at(1).failureMessage, QStringLiteral("expected 3 attempts, got 1"));
    QCOMPARE(cases.at(1).systemOut, QStringLiteral("requests: 2, 3\n"));
    QCOMPARE(cases.at(2).time, QStringLiteral("0.001"));
}

void TestJUnitExport::escaping_andInvalidCharacters()
{
    const QByteArray xml = JUnitExport::toXml({sampleSuite()});
    QVERIFY(!xml.contains('\x01'));
    QVERIFY(!xml.contains('\x02'));
    const Document d = read(xml);
    QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
    const Case c = d.suites.at(0).cases.at(1);
    QCOMPARE(c.name, QStringLiteral("upload <retried> ×3 ]]> \uFFFD ok"));
    QCOMPARE(c.failureText, QStringLiteral("expected 3 attempts, got 1\nsecond line with \"quotes\" & <tags>\uFFFD"));
}

void TestJUnitExport::severalSuites_addUp()
{
    JUnitExport::Suite second;
    second.name = QStringLiteral("second");
    second.durationMs = 2000.0;
    second.results
        = {{QStringLiteral("a"), true, {}, 10.0, {}}, {QStringLiteral("b"), false, QStringLiteral("no"), 10.0, {}}};
    const Document d = read(JUnitExport::toXml({sampleSuite(), second}));
    QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
    QCOMPARE(d.suites.size(), 2);
    QCOMPARE(d.root.value(QLatin1String("tests")).toString(), QStringLiteral("5"));
    QCOMPARE(d.root.value(QLatin1String("failures")).toString(), QStringLiteral("3"));
    QCOMPARE(d.root.value(QLatin1String("time")).toString(), QStringLiteral("3.280"));
    QCOMPARE(d.suites.at(1).attributes.value(QLatin1String("time")).toString(), QStringLiteral("2.000"));
    QCOMPARE(d.suites.at(1).attributes.value(QLatin1String("id")).toString(), QStringLiteral("1"));
    QVERIFY(!d.suites.at(1).attributes.hasAttribute(QLatin1String("timestamp")));
}

void TestJUnitExport::suiteFor_takesTimesFromTheRun()
{
    RunRecord run;
    run.policy.name = QStringLiteral("IAM");
    run.startedAt = QDateTime(QDate(2025, 1, 2), QTime(3, 4, 5), Qt::UTC);
    run.epochNs = 1'000'000'000;
    RequestResult r;
    r.endNs = run.epochNs + 2'500'000'000;
    run.results.append(r);
    AttemptRecord a;
    a.endNs = run.epochNs + 2'000'000'000;
    run.attempts.append(a);
    const JUnitExport::Suite s
        = JUnitExport::suiteFor(QStringLiteral("iam"), run, {{QStringLiteral("x"), true, {}, 1.0, {}}});
    QCOMPARE(s.name, QStringLiteral("iam"));
    QCOMPARE(s.policyName, QStringLiteral("IAM"));
    QCOMPARE(s.timestamp, run.startedAt);
    QCOMPARE(s.durationMs, 2500.0);
    QCOMPARE(s.results.size(), 1);
    QVERIFY(!s.seed);

    // The seed: the run's, or the one all of its requests share.
    RequestSpec spec;
    spec.seed = 77;
    run.requests.insert(1, spec);
    run.requests.insert(2, spec);
    QCOMPARE(JUnitExport::suiteFor(QStringLiteral("iam"), run, {}).seed, std::optional<quint64>(77));
    spec.seed = 78;
    run.requests.insert(3, spec);
    QVERIFY(!JUnitExport::suiteFor(QStringLiteral("iam"), run, {}).seed);
    run.seed = 5;
    const JUnitExport::Suite seeded = JUnitExport::suiteFor(QStringLiteral("iam"), run, {});
    QCOMPARE(seeded.seed, std::optional<quint64>(5));
    QVERIFY(JUnitExport::toXml({seeded}).contains(R"(<property name="seed" value="5"/>)"));
}

void TestJUnitExport::emptySuite_isValid()
{
    JUnitExport::Suite empty;
    const Document d = read(JUnitExport::toXml({empty}));
    QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
    QCOMPARE(d.root.value(QLatin1String("tests")).toString(), QStringLiteral("0"));
    const Document none = read(JUnitExport::toXml({}));
    QVERIFY2(none.error.isEmpty(), qPrintable(none.error));
    QCOMPARE(none.suites.size(), 0);
}

void TestJUnitExport::redactedByDefault_unredactedWarns()
{
    const QByteArray redacted = JUnitExport::toXml({sampleSuite()});
    QVERIFY(!redacted.contains("pw-SECRET"));
    QVERIFY(!redacted.contains("tok-SECRET"));
    QVERIFY(redacted.contains("access_token=REDACTED"));
    QVERIFY(read(redacted).comments.isEmpty());

    const QByteArray unredacted = JUnitExport::toXml({sampleSuite()}, ExportOptions{false});
    QVERIFY(unredacted.contains("pw-SECRET"));
    QVERIFY(unredacted.contains("tok-SECRET"));
    const Document d = read(unredacted);
    QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
    QCOMPARE(d.suites.at(0).properties.value(QStringLiteral("redacted")), QStringLiteral("false"));
    QCOMPARE(
        d.suites.at(0).properties.value(QStringLiteral("credentialsWarning")), ExportOptions::credentialsWarning());
    QCOMPARE(d.comments.size(), 1);
    QVERIFY(d.comments.at(0).contains(QLatin1String("contains credentials")));
}

void TestJUnitExport::certificateErrorsIgnored_saidBySuiteAndComment()
{
    RunRecord run;
    AttemptRecord verified;
    verified.url = QUrl(QStringLiteral("https://a.example/"));
    verified.tls.protocol = QStringLiteral("TLSv1.3");
    AttemptRecord ignored = verified;
    ignored.url = QUrl(QStringLiteral("https://b.example/"));
    ignored.tls.errors = {QStringLiteral("The certificate has expired")};
    ignored.tls.errorsIgnored = true;
    run.attempts = {verified, ignored, ignored};

    const Document plain = read(JUnitExport::toXml({JUnitExport::suiteFor(QStringLiteral("s"), RunRecord{}, {})}));
    QVERIFY(plain.comments.isEmpty());
    QVERIFY(!plain.suites.at(0).properties.contains(QStringLiteral("insecureWarning")));

    const Document d = read(JUnitExport::toXml({JUnitExport::suiteFor(QStringLiteral("s"), run, {})}));
    QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
    QCOMPARE(d.suites.at(0).properties.value(QStringLiteral("certificateErrorsIgnored")), QStringLiteral("2"));
    const QString warning = d.suites.at(0).properties.value(QStringLiteral("insecureWarning"));
    QVERIFY2(warning.contains(QLatin1String("b.example")) && !warning.contains(QLatin1String("a.example")),
        qPrintable(warning));
    QCOMPARE(d.comments.size(), 1);
    QVERIFY(d.comments.at(0).contains(QLatin1String("Certificate errors were ignored")));
}

void TestJUnitExport::file_isWritten()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("junit.xml"));
    const auto written = JUnitExport::writeFile(path, {sampleSuite()});
    QVERIFY2(written.ok(), qPrintable(written.error()));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray xml = file.readAll();
    QVERIFY(xml.startsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    QVERIFY(read(xml).error.isEmpty());
}

QTEST_GUILESS_MAIN(TestJUnitExport)
#include "tst_junitexport.moc"
