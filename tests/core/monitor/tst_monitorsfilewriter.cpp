// A monitors file written by MonitorsFileWriter reads back, through the
// reader, to the same monitors: every field the reader reads, on a file.

#include "core/monitor/monitorsfile.h"
#include "core/monitor/monitorsfilewriter.h"
#include "core/policy/policyjson.h"
#include "core/policy/presets.h"
#include "core/record/transportjson.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

class TestMonitorsFileWriter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void writeFile_readBack_givesEveryFieldOfEveryMonitor();
    void writeFile_isReadableByItsOwnerOnly_evenOverAnOpenFile();
    void writeFile_missingFolder_namesTheFile();
    void toJson_isTheFormatAndVersionTheReaderTakes();
    void serverPlaceholder_isWrittenAsTypedAndReadBackByTheWindow();

private:
    static MonitorsFile richFile();
};

namespace {

const QByteArray richJson = R"({"format": "retrylab-monitors", "version": 1,
  "alerts": [{"name": "ops", "kind": "webhook", "url": "http://127.0.0.1:9/hook",
              "headers": {"Authorization": "Bearer hook-secret"}},
             {"name": "desk", "kind": "desktop"}],
  "monitors": [
    {"name": "api", "label": "the api", "method": "post", "url": "http://127.0.0.1:8/orders?key={id}",
     "headers": {"Authorization": "Bearer s3cr3t", "X-Trace": "yes"}, "body": "{\"a\":1}",
     "idempotent": true, "attemptTimeoutMs": 1500,
     "fallbacks": ["http://127.0.0.1:7/orders"], "fallbackOn": ["503", "timeout"],
     "intervalMs": 15000, "downIntervalMs": 5000,
     "policy": {"name": "mine", "algorithm": "constant", "baseDelayMs": 30, "maxAttempts": 4,
                "attemptTimeoutMs": 5000, "jitterMs": 0, "intervalJitter": "none"},
     "timeoutMs": 9000,
     "conditions": [{"status": "2xx"}, {"status": [200, 204]}, {"responseTimeUnderMs": 800},
                    {"bodyContains": "ok"}, {"jsonPointer": "/state", "equals": {"up": true}},
                    {"header": "X-Served-By"}, {"header": "Content-Type", "matches": "^application/json"},
                    {"certificateValidDays": 14}],
     "downAfter": 3, "upAfter": 2,
     "maintenance": [{"from": "2026-11-29T02:00:00.250Z", "to": "2026-11-29T03:00:00Z"},
                     {"daily": "23:30-00:15"}],
     "objective": 0.999, "alerts": ["ops", "desk"], "paused": true},
    {"name": "preset", "url": "http://127.0.0.1:8/", "intervalMs": 60000, "policy": "aws-standard"},
    {"name": "single", "url": "http://127.0.0.1:8/health", "intervalMs": 100, "policy": "none"}
  ]})";

} // namespace

void TestMonitorsFileWriter::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

MonitorsFile TestMonitorsFileWriter::richFile()
{
    const auto read = MonitorsFileReader::fromJson(richJson);
    if (!read)
        qFatal("%s", qPrintable(read.error()));
    MonitorsFile file = *read;
    // An auth and transport options with their secrets, which only the user's own file keeps.
    AuthSpec &auth = file.monitors[0].request.auth;
    auth.kind = AuthSpec::Kind::OAuth2ClientCredentials;
    auth.tokenUrl = QStringLiteral("https://login.example.test/oauth/token");
    auth.clientId = QStringLiteral("monitor");
    auth.clientSecret = QStringLiteral("{{clientSecret}}");
    auth.scope = QStringLiteral("orders.read");
    TransportOptions &t = file.monitors[0].request.transport;
    t.caBundlePath = QStringLiteral("/etc/ssl/certs/ca-certificates.crt");
    t.tlsFloor = TransportOptions::TlsFloor::Tls12;
    t.insecureHosts = {QStringLiteral("self-signed.test")};
    t.proxyMode = TransportOptions::ProxyMode::Http;
    t.proxyHost = QStringLiteral("127.0.0.1");
    t.proxyPort = 3128;
    t.proxyUser = QStringLiteral("proxy-user");
    t.proxyPassword = QStringLiteral("proxy-password");
    return file;
}

void TestMonitorsFileWriter::writeFile_readBack_givesEveryFieldOfEveryMonitor()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("monitors.json"));
    const MonitorsFile original = richFile();
    const auto written = MonitorsFileWriter::writeFile(path, original.monitors, original.alertTargets);
    QVERIFY2(written, qPrintable(written.error()));
    const auto read = MonitorsFileReader::readFile(path);
    QVERIFY2(read, qPrintable(read.error()));
    QCOMPARE(read->monitors.size(), original.monitors.size());
    QCOMPARE(read->alertNames(), original.alertNames());

    for (qsizetype i = 0; i < original.monitors.size(); ++i) {
        const Monitor &a = original.monitors[i];
        const Monitor &b = read->monitors[i];
        QCOMPARE(b.name, a.name);
        QCOMPARE(b.request.label, a.request.label);
        QCOMPARE(b.request.method, a.request.method);
        QCOMPARE(b.urlTemplate, a.urlTemplate);
        QCOMPARE(b.request.headers, a.request.headers);
        QCOMPARE(b.request.body, a.request.body);
        QCOMPARE(b.request.idempotent, a.request.idempotent);
        QCOMPARE(b.request.attemptTimeoutMs, a.request.attemptTimeoutMs);
        QVERIFY(b.request.transport == a.request.transport);
        QVERIFY(b.request.auth == a.request.auth);
        QCOMPARE(b.request.fallbackUrls, a.request.fallbackUrls);
        QCOMPARE(b.request.fallbackOn, a.request.fallbackOn);
        QCOMPARE(b.intervalMs, a.intervalMs);
        QCOMPARE(b.downIntervalMs, a.downIntervalMs);
        QVERIFY2(b.policy == a.policy, qPrintable(a.name));
        QCOMPARE(b.timeoutMs, a.timeoutMs);
        QCOMPARE(b.conditions.size(), a.conditions.size());
        for (qsizetype c = 0; c < a.conditions.size(); ++c) {
            QCOMPARE(b.conditions[c].kind, a.conditions[c].kind);
            QCOMPARE(b.conditions[c].describe(), a.conditions[c].describe());
            QCOMPARE(b.conditions[c].statuses, a.conditions[c].statuses);
            QCOMPARE(b.conditions[c].expected, a.conditions[c].expected);
            QCOMPARE(b.conditions[c].pattern, a.conditions[c].pattern);
            QCOMPARE(b.conditions[c].days, a.conditions[c].days);
            QCOMPARE(b.conditions[c].maxMs, a.conditions[c].maxMs);
        }
        QCOMPARE(b.request.responseCheck != nullptr, !a.conditions.isEmpty());
        QCOMPARE(b.downAfter, a.downAfter);
        QCOMPARE(b.upAfter, a.upAfter);
        QCOMPARE(b.maintenance.size(), a.maintenance.size());
        for (qsizetype m = 0; m < a.maintenance.size(); ++m) {
            QCOMPARE(b.maintenance[m].fromMs, a.maintenance[m].fromMs);
            QCOMPARE(b.maintenance[m].toMs, a.maintenance[m].toMs);
            QCOMPARE(b.maintenance[m].dailyFrom, a.maintenance[m].dailyFrom);
            QCOMPARE(b.maintenance[m].dailyTo, a.maintenance[m].dailyTo);
        }
        QCOMPARE(b.objective, a.objective);
        QCOMPARE(b.alerts, a.alerts);
        QCOMPARE(b.paused, a.paused);
        // Whatever this test does not name explicitly, the entry as a whole does.
        QCOMPARE(MonitorsFileWriter::monitorToJson(b), MonitorsFileWriter::monitorToJson(a));
    }
    QVERIFY(read->monitors[0].request.transport.proxyPassword == QLatin1String("proxy-password"));
    QCOMPARE(read->monitors[0].policy.name, QStringLiteral("mine"));
    QCOMPARE(read->monitors[1].policyOrigin, QStringLiteral("preset aws-standard"));
    QCOMPARE(read->monitors[2].policyOrigin, QStringLiteral("none"));

    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    // The user's own credentials are kept as they are.
    QVERIFY(bytes.contains("Bearer s3cr3t"));
    QVERIFY(bytes.contains("Bearer hook-secret"));
}

void TestMonitorsFileWriter::writeFile_isReadableByItsOwnerOnly_evenOverAnOpenFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("monitors.json"));
    {
        QFile open(path);
        QVERIFY(open.open(QIODevice::WriteOnly));
        open.write("{}");
        QVERIFY(open.setPermissions(
            QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther));
    }
    const MonitorsFile original = richFile();
    QVERIFY(MonitorsFileWriter::writeFile(path, original.monitors, original.alertTargets));
    const QFileDevice::Permissions others = QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup
        | QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther;
    QCOMPARE(QFile::permissions(path) & others, QFileDevice::Permissions());
    QVERIFY(QFile::permissions(path).testFlag(QFileDevice::ReadOwner));
    QVERIFY(QFile::permissions(path).testFlag(QFileDevice::WriteOwner));
    QVERIFY(MonitorsFileReader::readFile(path));
}

void TestMonitorsFileWriter::writeFile_missingFolder_namesTheFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("no/such/folder/monitors.json"));
    const auto written = MonitorsFileWriter::writeFile(path, richFile().monitors, richFile().alertTargets);
    QVERIFY(!written);
    QVERIFY2(written.error().contains(QStringLiteral("monitors.json")), qPrintable(written.error()));
    QVERIFY(!QFile::exists(path));
}

void TestMonitorsFileWriter::toJson_isTheFormatAndVersionTheReaderTakes()
{
    const MonitorsFile original = richFile();
    const QJsonObject json = MonitorsFileWriter::toJson(original.monitors, original.alertTargets);
    QCOMPARE(json.value(QStringLiteral("format")).toString(), QStringLiteral("retrylab-monitors"));
    QCOMPARE(json.value(QStringLiteral("version")).toInt(), 1);
    QVERIFY(MonitorsFileReader::fromJson(QJsonDocument(json).toJson()));
    // Without its alert targets, a monitor that names them is refused, as the writer's comment warns.
    QVERIFY(!MonitorsFileReader::fromJson(QJsonDocument(MonitorsFileWriter::toJson(original.monitors)).toJson()));
}

void TestMonitorsFileWriter::serverPlaceholder_isWrittenAsTypedAndReadBackByTheWindow()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("monitors.json"));
    Monitor monitor;
    monitor.name = QStringLiteral("local");
    monitor.urlTemplate = QStringLiteral("{server}/fail/2?key={id}");
    monitor.request.label = monitor.name;
    monitor.policy = singleAttemptPolicy();
    const auto written = MonitorsFileWriter::writeFile(path, {monitor});
    QVERIFY2(written, qPrintable(written.error()));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject entry
        = QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("monitors")).toArray().at(0).toObject();
    QCOMPARE(entry.value(QStringLiteral("url")).toString(), monitor.urlTemplate);
    const auto read = MonitorsFileReader::readFile(path, {}, {.allowServer = true});
    QVERIFY2(read, qPrintable(read.error()));
    QCOMPARE(read->monitors.constFirst().urlTemplate, monitor.urlTemplate);
    // The headless command refuses the same file, saying where.
    const auto headless = MonitorsFileReader::readFile(path);
    QVERIFY(!headless);
    QVERIFY2(headless.error().contains(QStringLiteral("monitors[0].url")), qPrintable(headless.error()));
}

QTEST_GUILESS_MAIN(TestMonitorsFileWriter)
#include "tst_monitorsfilewriter.moc"
