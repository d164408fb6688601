#include "core/collections/savedtransport.h"
#include "core/policy/policyjson.h"
#include "core/policy/presets.h"
#include "tests/core/collections/transportfixtures.h"
#include "ui/session/settings/settings.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace RetryLab;
using Core::RequestDraft;
using Core::TransportOptions;
using Ui::ProxySettings;
using Ui::Settings;
namespace SavedTransport = Core::SavedTransport;
using TransportFixtures::everything;

Q_DECLARE_METATYPE(RetryLab::Core::BackoffPolicy)

namespace RetryLab::Core {
// Lets QCOMPARE print a policy that differs.
char *toString(const BackoffPolicy &policy)
{
    return qstrdup(PolicyJson::toJson(policy).constData());
}
} // namespace RetryLab::Core

class TestSettings final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void currentPolicy_withoutFile_isDefaultWithoutProblems();
    void currentPolicy_roundTripsThroughTheFile();
    void currentPolicy_unusablePolicy_isNotStored();
    void currentPolicy_thatNoLongerValidates_fallsBackWithMessage();

    void userPresets_saveOverwriteDelete_persist();
    void saveUserPreset_refused_data();
    void saveUserPreset_refused();
    void userPresets_damagedEntry_isSkippedReportedAndKept();

    void damagedFile_fallsBackKeepsReadableValuesAndCopiesOriginal();
    void binaryFile_fallsBackWithMessage();
    void wrongTypes_fallBackPerKeyWithMessages();
    void unreadableFile_reportsIt();

    void recentUrls_newestFirstDeduplicatedAndCapped();
    void recentUrls_neverStorePasswordsOrInvalidUrls();
    void requestDraft_savedWithoutCredentials_restIntact();
    void savedRequestScenarioPolicy_oneBadField_restKept();
    void simulatorParameters_roundTrip_badFieldFallsBackAlone();
    void recentUrlTemplates_passwordWithAt_isMasked();
    void windowLayout_bytes_roundTrip();
    void endpointPolicies_roundTrip_damagedEntryLeftOut();
    void endpointPolicies_damagedEntries_namedByNumberAndField_data();
    void endpointPolicies_damagedEntries_namedByNumberAndField();
    void proxies_roundTrip_damagedEntryLeftOut();
    void transport_insecureHost_isNeverWrittenToTheFile();
    void transport_newRequest_startsFromTheDefault();
    void transport_damagedDefault_isReported_defaultsUsed();
    void serverHttps_onByDefault_offWhenTurnedOff();
    void monitorSettings_roundTrip_askByDefault();

private:
    static QString settingsPath();
    static void writeFile(const QByteArray &bytes);
    static QStringList backups();
};

QString TestSettings::settingsPath()
{
    return QSettings().fileName();
}

void TestSettings::writeFile(const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(settingsPath()).absolutePath());
    QFile file(settingsPath());
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(bytes);
}

QStringList TestSettings::backups()
{
    const QFileInfo info(settingsPath());
    return QDir(info.absolutePath()).entryList({info.fileName() + QStringLiteral(".damaged-*")}, QDir::Files);
}

void TestSettings::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_settings"));
    QVERIFY(settingsPath().contains(QLatin1String("qttest")));
}

void TestSettings::init()
{
    QFile::remove(settingsPath());
    const QFileInfo info(settingsPath());
    for (const QString &backup : backups())
        QFile::remove(info.absoluteDir().filePath(backup));
}

void TestSettings::currentPolicy_withoutFile_isDefaultWithoutProblems()
{
    Settings settings;
    QCOMPARE(settings.currentPolicy(), Core::BackoffPolicy{});
    QVERIFY(settings.problems().isEmpty());
    QVERIFY(settings.userPresets().isEmpty());
    QVERIFY(settings.recentUrls().isEmpty());
}

void TestSettings::currentPolicy_roundTripsThroughTheFile()
{
    auto policy = *Core::Presets::find(QStringLiteral("iam"));
    policy.name = QStringLiteral("Edited, with \"quotes\", commas; and ünïcode");
    policy.description = QStringLiteral("line one\nline two");
    policy.classification.retryableStatuses.insert(404);
    policy.circuitBreaker.enabled = true;
    {
        Settings settings;
        settings.setCurrentPolicy(policy);
        QVERIFY(settings.sync());
    }
    Settings reopened;
    QCOMPARE(reopened.currentPolicy(), policy);
    QVERIFY2(reopened.problems().isEmpty(), qPrintable(reopened.problems().join(QLatin1Char('\n'))));
}

void TestSettings::currentPolicy_unusablePolicy_isNotStored()
{
    Core::BackoffPolicy good;
    good.baseDelayMs = 250;
    Core::BackoffPolicy bad;
    bad.baseDelayMs = -1;
    {
        Settings settings;
        settings.setCurrentPolicy(good);
        settings.setCurrentPolicy(bad);
    }
    QCOMPARE(Settings().currentPolicy(), good);
}

void TestSettings::currentPolicy_thatNoLongerValidates_fallsBackWithMessage()
{
    QJsonObject object = Core::PolicyJson::toJsonObject(Core::BackoffPolicy{});
    object.insert(QStringLiteral("maxAttempts"), 0); // and no deadline: would retry forever
    {
        QSettings raw;
        raw.setValue(QStringLiteral("policy/current"), QString::fromUtf8(QJsonDocument(object).toJson()));
        raw.setValue(QStringLiteral("request/recentUrls"), QStringList{QStringLiteral("http://127.0.0.1:1/a")});
    }
    Settings settings;
    QCOMPARE(settings.currentPolicy(), Core::BackoffPolicy{});
    const QString problems = settings.problems().join(QLatin1Char('\n'));
    QVERIFY2(problems.contains(QLatin1String("maxAttempts")), qPrintable(problems));
    QVERIFY2(problems.contains(QLatin1String("has its default")), qPrintable(problems));
    // Nothing else is lost.
    QCOMPARE(settings.recentUrls(), QList<QUrl>{QUrl(QStringLiteral("http://127.0.0.1:1/a"))});
}

void TestSettings::userPresets_saveOverwriteDelete_persist()
{
    Core::BackoffPolicy fast;
    fast.name = QStringLiteral("Fast");
    fast.baseDelayMs = 50;
    Core::BackoffPolicy slow;
    slow.name = QStringLiteral("Slow");
    slow.baseDelayMs = 5000;
    slow.maxBackoffMs = 60'000;
    {
        Settings settings;
        QSignalSpy changed(&settings, &Settings::userPresetsChanged);
        QVERIFY(settings.saveUserPreset(fast));
        QVERIFY(settings.saveUserPreset(slow));
        QCOMPARE(changed.count(), 2);
    }
    {
        Settings settings;
        QCOMPARE(settings.userPresets(), (QList<Core::BackoffPolicy>{fast, slow}));
        // Same name, other case: replaces instead of adding.
        Core::BackoffPolicy faster = fast;
        faster.name = QStringLiteral("FAST");
        faster.baseDelayMs = 10;
        QVERIFY(settings.saveUserPreset(faster));
        QCOMPARE(settings.userPresets().size(), 2);
        QCOMPARE(settings.userPreset(QStringLiteral("fast"))->baseDelayMs, 10.0);
    }
    {
        Settings settings;
        QCOMPARE(settings.userPresets().size(), 2);
        QVERIFY(settings.removeUserPreset(QStringLiteral("slow")));
        QVERIFY(!settings.removeUserPreset(QStringLiteral("slow")));
        QVERIFY(settings.sync());
    }
    Settings settings;
    QCOMPARE(settings.userPresets().size(), 1);
    QCOMPARE(settings.userPresets().constFirst().name, QStringLiteral("FAST"));
    QVERIFY(settings.problems().isEmpty());
}

void TestSettings::saveUserPreset_refused_data()
{
    QTest::addColumn<Core::BackoffPolicy>("policy");
    QTest::addColumn<QString>("expected");

    Core::BackoffPolicy unnamed;
    unnamed.name = QStringLiteral("   ");
    QTest::addRow("empty name") << unnamed << QStringLiteral("needs a name");

    Core::BackoffPolicy builtIn;
    builtIn.name = QStringLiteral("iam");
    QTest::addRow("built-in name, other case") << builtIn << QStringLiteral("built-in");

    Core::BackoffPolicy builtInId;
    builtInId.name = QStringLiteral("google-cloud-storage");
    QTest::addRow("built-in id") << builtInId << QStringLiteral("built-in");

    Core::BackoffPolicy invalid;
    invalid.name = QStringLiteral("Broken");
    invalid.maxBackoffMs = 10;
    QTest::addRow("cap below base") << invalid << QStringLiteral("maxBackoffMs");
}

void TestSettings::saveUserPreset_refused()
{
    QFETCH(Core::BackoffPolicy, policy);
    QFETCH(QString, expected);
    Settings settings;
    QSignalSpy changed(&settings, &Settings::userPresetsChanged);
    const auto saved = settings.saveUserPreset(policy);
    QVERIFY(!saved);
    const QString error = saved.error();
    QVERIFY2(error.contains(expected), qPrintable(error));
    QCOMPARE(changed.count(), 0);
    QVERIFY(settings.userPresets().isEmpty());
}

void TestSettings::userPresets_damagedEntry_isSkippedReportedAndKept()
{
    Core::BackoffPolicy good;
    good.name = QStringLiteral("Good");
    {
        QSettings raw;
        raw.beginWriteArray(QStringLiteral("policy/userPresets"));
        raw.setArrayIndex(0);
        raw.setValue(QStringLiteral("json"), QStringLiteral("{ this is not json"));
        raw.setArrayIndex(1);
        raw.setValue(QStringLiteral("json"), QString::fromUtf8(Core::PolicyJson::toJson(good)));
        raw.endArray();
        // A damaged size must not hide entries.
        raw.setValue(QStringLiteral("policy/userPresets/size"), QStringLiteral("banana"));
    }
    {
        Settings settings;
        QCOMPARE(settings.userPresets(), QList<Core::BackoffPolicy>{good});
        const QString problems = settings.problems().join(QLatin1Char('\n'));
        QVERIFY2(problems.contains(QLatin1String("not valid JSON")), qPrintable(problems));

        Core::BackoffPolicy other;
        other.name = QStringLiteral("Other");
        QVERIFY(settings.saveUserPreset(other));
    }
    // The unreadable entry is still in the file, for the user to repair.
    QSettings raw;
    raw.beginGroup(QStringLiteral("policy/userPresets"));
    QStringList values;
    for (const QString &group : raw.childGroups())
        values.append(raw.value(group + QStringLiteral("/json")).toString());
    QVERIFY(values.contains(QStringLiteral("{ this is not json")));
    QCOMPARE(values.size(), 3);
}

void TestSettings::damagedFile_fallsBackKeepsReadableValuesAndCopiesOriginal()
{
    const QByteArray original = "[request]\n"
                                "recentUrls=http://127.0.0.1:8080/fail/3\n"
                                "[[[ this line is not a section\n"
                                "[policy\n"
                                "current=\"{unterminated\n";
    writeFile(original);

    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("damaged settings file")));
    Settings settings;
    const QStringList problems = settings.problems();
    QVERIFY2(!problems.isEmpty(), "a damaged file must be reported");
    QVERIFY2(problems.constFirst().contains(QLatin1String("damaged")), qPrintable(problems.constFirst()));
    QCOMPARE(settings.currentPolicy(), Core::BackoffPolicy{});
    QCOMPARE(settings.recentUrls(), QList<QUrl>{QUrl(QStringLiteral("http://127.0.0.1:8080/fail/3"))});

    const QStringList copies = backups();
    QCOMPARE(copies.size(), 1);
    QVERIFY2(problems.constFirst().contains(copies.constFirst()), qPrintable(problems.constFirst()));
    QFile copy(QFileInfo(settingsPath()).absoluteDir().filePath(copies.constFirst()));
    QVERIFY(copy.open(QIODevice::ReadOnly));
    QCOMPARE(copy.readAll(), original);

    // A second look at the same damaged file reuses that copy instead of piling up new ones.
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("damaged settings file")));
    const QStringList again = Settings().problems();
    QCOMPARE(backups(), copies);
    QVERIFY2(again.constFirst().contains(copies.constFirst()), qPrintable(again.constFirst()));

    // Settings keep working: a new value is written and read back.
    settings.addRecentUrl(QUrl(QStringLiteral("http://127.0.0.1:8080/ok")));
    QVERIFY(settings.sync());
    QCOMPARE(Settings().recentUrls().size(), 2);
}

void TestSettings::binaryFile_fallsBackWithMessage()
{
    writeFile(QByteArray("\x00\x01\xff\xfe\x00garbage\x00", 13));
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("damaged settings file")));
    Settings settings;
    QCOMPARE(settings.currentPolicy(), Core::BackoffPolicy{});
    const QString problems = settings.problems().join(QLatin1Char('\n'));
    QVERIFY2(problems.contains(QLatin1String("binary")), qPrintable(problems));
    QCOMPARE(backups().size(), 1);
}

void TestSettings::wrongTypes_fallBackPerKeyWithMessages()
{
    Core::BackoffPolicy preset;
    preset.name = QStringLiteral("Kept");
    {
        QSettings raw;
        raw.setValue(QStringLiteral("policy/current"), QByteArray("not a string"));
        raw.setValue(QStringLiteral("window/geometry"), QStringLiteral("a string, not bytes"));
        raw.setValue(QStringLiteral("request/recentUrls"), QSize(3, 4));
    }
    {
        Settings settings;
        QVERIFY(settings.saveUserPreset(preset));
    }
    Settings settings;
    QCOMPARE(settings.currentPolicy(), Core::BackoffPolicy{});
    QVERIFY(settings.windowGeometry().isEmpty());
    QVERIFY(settings.recentUrls().isEmpty());
    QCOMPARE(settings.userPresets(), QList<Core::BackoffPolicy>{preset});

    const QStringList problems = settings.problems();
    QCOMPARE(problems.size(), 3);
    for (const char *key : {"policy/current", "window/geometry", "request/recentUrls"}) {
        QVERIFY2(std::any_of(problems.cbegin(), problems.cend(),
                     [&](const QString &p) { return p.contains(QLatin1String(key)); }),
            key);
    }
}

void TestSettings::unreadableFile_reportsIt()
{
    writeFile("[policy]\n");
    QFile::setPermissions(settingsPath(), QFileDevice::Permissions{});
    QFile probe(settingsPath());
    if (probe.open(QIODevice::ReadOnly)) {
        QFile::setPermissions(settingsPath(), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        QSKIP("running with privileges that read any file (root); the unreadable case cannot be made");
    }
    Settings settings;
    QFile::setPermissions(settingsPath(), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    const QString problems = settings.problems().join(QLatin1Char('\n'));
    QVERIFY2(problems.contains(QLatin1String("cannot be read")), qPrintable(problems));
    QCOMPARE(settings.currentPolicy(), Core::BackoffPolicy{});
}

void TestSettings::recentUrls_newestFirstDeduplicatedAndCapped()
{
    Settings settings;
    QSignalSpy changed(&settings, &Settings::recentUrlsChanged);
    for (int i = 0; i < Settings::maxRecentUrls + 3; ++i)
        settings.addRecentUrl(QUrl(QStringLiteral("http://127.0.0.1:8080/item/%1").arg(i)));
    QCOMPARE(changed.count(), Settings::maxRecentUrls + 3);

    QList<QUrl> urls = settings.recentUrls();
    QCOMPARE(urls.size(), Settings::maxRecentUrls);
    QCOMPARE(urls.constFirst(), QUrl(QStringLiteral("http://127.0.0.1:8080/item/12")));
    QCOMPARE(urls.constLast(), QUrl(QStringLiteral("http://127.0.0.1:8080/item/3")));

    settings.addRecentUrl(QUrl(QStringLiteral("http://127.0.0.1:8080/item/5")));
    urls = Settings().recentUrls();
    QCOMPARE(urls.size(), Settings::maxRecentUrls);
    QCOMPARE(urls.constFirst(), QUrl(QStringLiteral("http://127.0.0.1:8080/item/5")));
    QCOMPARE(urls.count(QUrl(QStringLiteral("http://127.0.0.1:8080/item/5"))), 1);

    settings.clearRecentUrls();
    QVERIFY(Settings().recentUrls().isEmpty());
}

void TestSettings::recentUrls_neverStorePasswordsOrInvalidUrls()
{
    Settings settings;
    settings.addRecentUrl(QUrl(QStringLiteral("http://user:secret@127.0.0.1:8080/private")));
    settings.addRecentUrl(QUrl());
    settings.addRecentUrl(QUrl(QStringLiteral("http://[::1")));
    QVERIFY(settings.sync());

    QCOMPARE(Settings().recentUrls(), QList<QUrl>{QUrl(QStringLiteral("http://user@127.0.0.1:8080/private"))});
    QFile file(settingsPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(!file.readAll().contains("secret"));
}

void TestSettings::requestDraft_savedWithoutCredentials_restIntact()
{
    Core::RequestDraft draft;
    draft.method = QStringLiteral("POST");
    draft.urlTemplate = QStringLiteral("http://u:p@ss@127.0.0.1/x?token=tok123&page=2&key={id}#frag");
    draft.headers = {{QStringLiteral(" Authorization "), QStringLiteral("Bearer s3cret"), true},
        {QStringLiteral("Cookie"), QStringLiteral("session=c00kie"), true},
        {QStringLiteral("X-Api-Key"), QStringLiteral("k3y"), false},
        {QStringLiteral("Accept "), QStringLiteral("application/json"), true},
        {QStringLiteral("Idempotency-Key"), QStringLiteral("{id}"), true}};
    draft.body = QStringLiteral("{\"password\": \"hunter2\", \"n\": 1}");
    draft.idempotent = true;
    draft.batchCount = 7;
    {
        Ui::Settings settings;
        settings.setRequestDraft(draft);
        QVERIFY(settings.sync());
    }
    QFile file(settingsPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray raw = file.readAll();
    for (const char *secret : {"p@ss", "p%40ss", "tok123", "s3cret", "c00kie", "k3y", "hunter2"})
        QVERIFY2(!raw.contains(secret), secret);

    Ui::Settings settings;
    QVERIFY2(settings.problems().isEmpty(), qPrintable(settings.problems().join(QLatin1Char('\n'))));
    const Core::RequestDraft back = settings.requestDraft();
    QCOMPARE(back.urlTemplate, QStringLiteral("http://u:REDACTED@127.0.0.1/x?token=REDACTED&page=2&key={id}#frag"));
    QCOMPARE(back.headers.size(), 5);
    QCOMPARE(back.headers.at(0).name, QStringLiteral("Authorization"));
    QCOMPARE(back.headers.at(0).value, QStringLiteral("Bearer REDACTED"));
    QVERIFY(back.headers.at(1).value.contains(QLatin1String("REDACTED")));
    QVERIFY(!back.headers.at(1).value.contains(QLatin1String("c00kie")));
    QCOMPARE(back.headers.at(2).value, QStringLiteral("REDACTED"));
    QCOMPARE(back.headers.at(2).enabled, false);
    QCOMPARE(back.headers.at(3).name, QStringLiteral("Accept"));
    QCOMPARE(back.headers.at(3).value, QStringLiteral("application/json"));
    QCOMPARE(back.headers.at(4).value, QStringLiteral("{id}"));
    QVERIFY2(back.body.contains(QLatin1String("REDACTED")) && back.body.contains(QLatin1String("\"n\"")),
        qPrintable(back.body));
    QCOMPARE(back.method, draft.method);
    QCOMPARE(back.idempotent, true);
    QCOMPARE(back.batchCount, 7);
}

void TestSettings::savedRequestScenarioPolicy_oneBadField_restKept()
{
    Core::RequestDraft draft;
    draft.method = QStringLiteral("PUT");
    draft.urlTemplate = QStringLiteral("{server}/status/200?key={id}");
    draft.headers = {{QStringLiteral("Accept"), QStringLiteral("text/plain"), true},
        {QStringLiteral("X-Trace"), QStringLiteral("on"), false}};
    draft.batchCount = 33;
    draft.repeatIntervalMs = 2000;
    QJsonObject draftJson = draft.toJson(true);
    draftJson.insert(QStringLiteral("concurrency"), QStringLiteral("six"));

    Ui::ServerScenario scenario;
    scenario.instructions = {QStringLiteral("return-503"), QStringLiteral("return-200")};
    QJsonObject scenarioJson = scenario.toJson();
    scenarioJson.insert(QStringLiteral("sharing"), QStringLiteral("sometimes"));

    Core::BackoffPolicy policy;
    policy.name = QStringLiteral("Mine");
    policy.baseDelayMs = 250.0;
    policy.maxAttempts = 7;
    policy.circuitBreaker.enabled = true;
    policy.circuitBreaker.consecutiveFailures = 3;
    QJsonObject policyJson = Core::PolicyJson::toJsonObject(policy);
    QJsonObject breaker = policyJson.value(QStringLiteral("circuitBreaker")).toObject();
    breaker.insert(QStringLiteral("openMs"), QStringLiteral("soon"));
    policyJson.insert(QStringLiteral("circuitBreaker"), breaker);
    {
        QSettings raw;
        raw.setValue(QStringLiteral("request/draft"), QString::fromUtf8(QJsonDocument(draftJson).toJson()));
        raw.setValue(QStringLiteral("server/scenario"), QString::fromUtf8(QJsonDocument(scenarioJson).toJson()));
        raw.setValue(QStringLiteral("policy/current"), QString::fromUtf8(QJsonDocument(policyJson).toJson()));
    }

    Settings settings;
    const QRegularExpression fieldWarning(QStringLiteral("field left out"));
    QTest::ignoreMessage(QtWarningMsg, fieldWarning);
    const Core::RequestDraft readDraft = settings.requestDraft();
    Core::RequestDraft expectedDraft = draft;
    expectedDraft.concurrency = Core::RequestDraft().concurrency;
    QCOMPARE(readDraft, expectedDraft);

    QTest::ignoreMessage(QtWarningMsg, fieldWarning);
    Ui::ServerScenario expectedScenario = scenario;
    expectedScenario.sharing = Ui::ServerScenario::Sharing::PerRequest;
    QCOMPARE(settings.serverScenario(), expectedScenario);

    QTest::ignoreMessage(QtWarningMsg, fieldWarning);
    Core::BackoffPolicy expectedPolicy = policy;
    expectedPolicy.circuitBreaker.openMs = Core::CircuitBreakerSettings().openMs;
    QCOMPARE(settings.currentPolicy(), expectedPolicy);

    const QString problems = settings.problems().join(QLatin1Char('\n'));
    QVERIFY2(problems.contains(QLatin1String("concurrency")), qPrintable(problems));
    QVERIFY2(problems.contains(QLatin1String("sharing")), qPrintable(problems));
    QVERIFY2(problems.contains(QLatin1String("circuitBreaker.openMs (expected a number, got a string)")),
        qPrintable(problems));
    QCOMPARE(settings.problems().size(), 3);
}

void TestSettings::simulatorParameters_roundTrip_badFieldFallsBackAlone()
{
    QVERIFY(!Settings().simulatorParameters());
    Core::HerdParameters parameters = Core::HerdParameters::defaultsFor(Core::HerdModel::Outage);
    parameters.clientCounts = {10, 20};
    parameters.runs = 9;
    parameters.networkSdMs = 4.5;
    parameters.outageEndMs = 4000.0;
    {
        Settings settings;
        settings.setSimulatorParameters(parameters);
        settings.setConformancePolicyChoice(QStringLiteral("polly-default"));
        QVERIFY(settings.sync());
    }
    {
        Settings settings;
        const auto back = settings.simulatorParameters();
        QVERIFY(back);
        QCOMPARE(back->model, Core::HerdModel::Outage);
        QCOMPARE(back->clientCounts, parameters.clientCounts);
        QCOMPARE(back->runs, 9);
        QCOMPARE(back->networkSdMs, 4.5);
        QCOMPARE(back->outageEndMs, 4000.0);
        QCOMPARE(settings.conformancePolicyChoice(), QStringLiteral("polly-default"));
        QVERIFY(settings.problems().isEmpty());
    }
    {
        QSettings raw;
        QJsonObject object
            = QJsonDocument::fromJson(raw.value(QStringLiteral("simulator/parameters")).toString().toUtf8()).object();
        object.insert(QStringLiteral("runs"), QStringLiteral("many"));
        object.insert(QStringLiteral("networkSdMs"), -3.0); // the right type, but invalid
        raw.setValue(QStringLiteral("simulator/parameters"), QString::fromUtf8(QJsonDocument(object).toJson()));
    }
    Settings settings;
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("simulator field left out: runs")));
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("simulator field left out: networkSdMs")));
    const auto back = settings.simulatorParameters();
    QVERIFY(back);
    const Core::HerdParameters defaults = Core::HerdParameters::defaultsFor(Core::HerdModel::Outage);
    QCOMPARE(back->runs, defaults.runs);
    QCOMPARE(back->networkSdMs, defaults.networkSdMs);
    QCOMPARE(back->clientCounts, parameters.clientCounts);
    QCOMPARE(back->outageEndMs, 4000.0);
    const QString problems = settings.problems().join(QLatin1Char('\n'));
    QVERIFY2(problems.contains(QLatin1String("runs (expected a whole number, got a string)"))
            && problems.contains(QLatin1String("networkSdMs (-3 is below the minimum of 0.)")),
        qPrintable(problems));
}

void TestSettings::recentUrlTemplates_passwordWithAt_isMasked()
{
    Ui::Settings settings;
    settings.addRecentUrlTemplate(QStringLiteral("http://u:p@ss@127.0.0.1/x"));
    settings.addRecentUrlTemplate(QStringLiteral("{server}/fail/3?key={id}"));
    QCOMPARE(settings.recentUrlTemplates(),
        (QStringList{QStringLiteral("{server}/fail/3?key={id}"), QStringLiteral("http://u:REDACTED@127.0.0.1/x")}));
}

void TestSettings::windowLayout_bytes_roundTrip()
{
    const QByteArray geometry("\x01\xd9\xd0\xcb geometry", 13);
    const QByteArray state("\x00\x00\x00\xff state");
    {
        Settings settings;
        settings.setWindowGeometry(geometry);
        settings.setWindowState(state);
        QVERIFY(settings.sync());
    }
    Settings settings;
    QCOMPARE(settings.windowGeometry(), geometry);
    QCOMPARE(settings.windowState(), state);
    QVERIFY(settings.problems().isEmpty());
}

void TestSettings::monitorSettings_roundTrip_askByDefault()
{
    {
        Settings settings;
        QCOMPARE(settings.monitorDatabase(), QString());
        QCOMPARE(settings.closeWithMonitors(), Settings::CloseWithMonitors::Ask);
        QVERIFY(settings.acknowledgedIncidents().isEmpty());
        settings.setMonitorDatabase(QStringLiteral(" postgresql://monitor@127.0.0.1:5432/history "));
        settings.setCloseWithMonitors(Settings::CloseWithMonitors::KeepMonitoring);
        settings.setAcknowledgedIncidents({QStringLiteral("api|a|1000"), QStringLiteral("api|a|2000")});
        QVERIFY(settings.sync());
    }
    {
        Settings settings;
        QCOMPARE(settings.monitorDatabase(), QStringLiteral("postgresql://monitor@127.0.0.1:5432/history"));
        QCOMPARE(settings.closeWithMonitors(), Settings::CloseWithMonitors::KeepMonitoring);
        QCOMPARE(settings.acknowledgedIncidents(),
            QStringList({QStringLiteral("api|a|1000"), QStringLiteral("api|a|2000")}));
        settings.setCloseWithMonitors(Settings::CloseWithMonitors::Ask);
    }
    Settings settings;
    QCOMPARE(settings.closeWithMonitors(), Settings::CloseWithMonitors::Ask);
}

void TestSettings::endpointPolicies_roundTrip_damagedEntryLeftOut()
{
    Core::EndpointPolicy uploads;
    uploads.host = QStringLiteral("*.example.com");
    uploads.path = QStringLiteral("/upload/*");
    uploads.policy = *Core::Presets::find(QStringLiteral("azure-batch"));
    uploads.origin = QStringLiteral("preset azure-batch");
    Core::EndpointPolicy api;
    api.path = QStringLiteral("/api/*");
    api.policy.maxAttempts = 2;
    api.policy.name = QStringLiteral("Mine");
    {
        Settings settings;
        QVERIFY(settings.endpointPolicies().isEmpty());
        settings.setEndpointPolicies({uploads, api});
        QVERIFY(settings.sync());
    }
    QCOMPARE(Settings().endpointPolicies(), (QList<Core::EndpointPolicy>{uploads, api}));

    // One damaged entry is left out and named; the other is kept.
    {
        QSettings raw;
        raw.setValue(QStringLiteral("policy/endpoints"),
            QStringLiteral(R"([{"path": "/a", "policy": {"maxAttempts": -1}}, {"path": "/b", "policy": {}}])"));
    }
    Settings settings;
    const QList<Core::EndpointPolicy> kept = settings.endpointPolicies();
    QCOMPARE(kept.size(), 1);
    QCOMPARE(kept.first().path, QStringLiteral("/b"));
    QVERIFY2(settings.problems().join(QLatin1Char(' ')).contains(QLatin1String("Saved endpoint policy 1 was left out")),
        qPrintable(settings.problems().join(QLatin1Char(' '))));
}

void TestSettings::endpointPolicies_damagedEntries_namedByNumberAndField_data()
{
    QTest::addColumn<QString>("stored");
    QTest::addColumn<QStringList>("keptPaths");
    QTest::addColumn<QString>("problem");
    QTest::addRow("host not text") << QStringLiteral(R"([{"host": 5, "path": "/a"}, {"path": "/b"}])")
                                   << QStringList{QStringLiteral("/b")}
                                   << QStringLiteral("Saved endpoint policy 1 was left out: host: expected a string");
    QTest::addRow("not an object") << QStringLiteral(R"([{"path": "/a"}, 3])") << QStringList{QStringLiteral("/a")}
                                   << QStringLiteral("Saved endpoint policy 2 was left out: expected an object");
    QTest::addRow("bad policy field") << QStringLiteral(R"([{"policy": {"maxAttempts": -1}}, {"path": "/b"}])")
                                      << QStringList{QStringLiteral("/b")}
                                      << QStringLiteral("Saved endpoint policy 1 was left out: policy.maxAttempts");
    QTest::addRow("not a list") << QStringLiteral(R"({"path": "/a"})") << QStringList()
                                << QStringLiteral("could not be read (it is not a JSON list)");
    QTest::addRow("not JSON") << QStringLiteral("[{") << QStringList() << QStringLiteral(": not valid JSON");
}

void TestSettings::endpointPolicies_damagedEntries_namedByNumberAndField()
{
    QFETCH(QString, stored);
    QFETCH(QStringList, keptPaths);
    QFETCH(QString, problem);
    QSettings().setValue(QStringLiteral("policy/endpoints"), stored);
    Settings settings;
    QStringList paths;
    for (const Core::EndpointPolicy &endpoint : settings.endpointPolicies())
        paths.append(endpoint.path);
    QCOMPARE(paths, keptPaths);
    const QString problems = settings.problems().join(QLatin1Char('\n'));
    QVERIFY2(problems.contains(problem), qPrintable(problems));
}

void TestSettings::proxies_roundTrip_damagedEntryLeftOut()
{
    ProxySettings first;
    first.name = QStringLiteral("api");
    first.upstream = QUrl(QStringLiteral("http://127.0.0.1:9000"));
    first.port = 8081;
    ProxySettings second;
    second.upstream = QUrl(QStringLiteral("https://example.org"));
    second.keepHost = true;
    {
        Settings settings;
        QVERIFY(settings.proxies().isEmpty());
        settings.setProxies({first, second});
        QVERIFY(settings.sync());
    }
    QCOMPARE(Settings().proxies(), (QList<ProxySettings>{first, second}));
    QVERIFY(Settings().problems().isEmpty());

    QSettings().setValue(QStringLiteral("proxy/proxies"),
        QStringLiteral("[{\"upstream\": \"http://a\", \"port\": 70000}, 3, {\"upstream\": \"http://b\"}]"));
    Settings settings;
    const QList<ProxySettings> kept = settings.proxies();
    QCOMPARE(kept.size(), 1);
    QCOMPARE(kept.first().upstream, QUrl(QStringLiteral("http://b")));
    const QString problems = settings.problems().join(QLatin1Char('\n'));
    QVERIFY2(problems.contains(QLatin1String("Saved fault proxy 1 was left out: port: 70000 is out of range")),
        qPrintable(problems));
    QVERIFY2(problems.contains(QLatin1String("Saved fault proxy 2 was left out: expected an object, got a number")),
        qPrintable(problems));
}

void TestSettings::transport_insecureHost_isNeverWrittenToTheFile()
{
    {
        Settings settings;
        RequestDraft draft;
        draft.urlTemplate = QStringLiteral("https://secret-host.test/x");
        draft.transport.insecureHosts = {QStringLiteral("secret-host.test")};
        draft.transport.caBundlePath = QStringLiteral("/tmp/ca.pem");
        settings.setRequestDraft(draft);
        settings.setDefaultTransport(everything());
        QVERIFY(settings.sync().ok());
    }
    QFile file(settingsPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY2(!text.contains("insecure"), text.constData());
    QVERIFY2(!text.contains("hunter2") && !text.contains("open sesame"), text.constData());
    Settings again;
    QVERIFY(again.requestDraft().transport.insecureHosts.isEmpty());
    QCOMPARE(again.requestDraft().transport.caBundlePath, QStringLiteral("/tmp/ca.pem"));
    QCOMPARE(again.defaultTransport(), SavedTransport::withoutSessionOnly(everything()));
    QVERIFY(again.problems().isEmpty());
}

void TestSettings::transport_newRequest_startsFromTheDefault()
{
    Settings settings;
    TransportOptions defaults;
    defaults.caBundlePath = QStringLiteral("/tmp/company-ca.pem");
    defaults.httpVersion = TransportOptions::HttpVersion::Http2;
    settings.setDefaultTransport(defaults);
    QCOMPARE(settings.requestDraft().transport, defaults);
    QCOMPARE(settings.requestDraft().urlTemplate, RequestDraft::defaultUrlTemplate());
    // A saved request keeps its own connection.
    RequestDraft own;
    settings.setRequestDraft(own);
    QCOMPARE(settings.requestDraft().transport, TransportOptions{});
}

void TestSettings::transport_damagedDefault_isReported_defaultsUsed()
{
    {
        QSettings raw;
        raw.setValue(QStringLiteral("request/defaultTransport"), QStringLiteral(R"({"proxyMode": "carrier-pigeon"})"));
    }
    Settings settings;
    QCOMPARE(settings.defaultTransport(), TransportOptions{});
    const QStringList problems = settings.problems();
    QCOMPARE(problems.size(), 1);
    QVERIFY2(problems.first().contains(QLatin1String("proxyMode")), qPrintable(problems.first()));
}

void TestSettings::serverHttps_onByDefault_offWhenTurnedOff()
{
    Settings settings;
    QCOMPARE(settings.serverHttpsPort(), std::optional<quint16>(0));
    settings.setServerHttpsPort(std::nullopt);
    QCOMPARE(settings.serverHttpsPort(), std::nullopt);
    settings.setServerHttpsPort(8443);
    QCOMPARE(settings.serverHttpsPort(), std::optional<quint16>(8443));
}

QTEST_GUILESS_MAIN(TestSettings)
#include "tst_settings.moc"
