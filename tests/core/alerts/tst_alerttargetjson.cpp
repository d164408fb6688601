// The monitors file's "alerts" entries: every kind read, every mistake refused
// with its path, and a header's value (a credential) never in a message.

#include "core/alerts/alerttargetjson.h"
#include "core/policy/policyjson.h"
#include "core/policy/presets.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace RetryLab::Core;

namespace {

QJsonObject objectOf(const char *json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray(json), &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("bad test JSON: %s", json);
    return document.object();
}

Result<AlertTarget> readOne(const QJsonObject &object)
{
    JsonReader reader(object);
    auto target = AlertTargetJson::read(reader);
    if (!target)
        return reader.firstError();
    if (reader.failed())
        return Error{QStringLiteral("(test)"), QStringLiteral("a target came back from a failed reader")};
    return *target;
}

} // namespace

class TestAlertTargetJson final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void webhook_withPresetAndHeaders_isRead();
    void webhook_withoutPolicy_usesTheDefault();
    void webhook_inlinePolicyAndPresetWithOverrides_areRead();
    void command_isRead();
    void desktop_takesTheDefaults();
    void readList_readsEveryKind();
    void toJson_readsBackTheSame();
    void toJson_changedPolicy_isWrittenWhole();
    void bad_isRefusedWithItsPath_data();
    void bad_isRefusedWithItsPath();
    void readList_duplicateName_isRefusedAtTheSecond();
    void readList_entryNotAnObject_isRefusedAtItsIndex();
    void messages_neverQuoteACredential();
};

void TestAlertTargetJson::webhook_withPresetAndHeaders_isRead()
{
    const auto target = readOne(objectOf(R"({"name": "ops", "kind": "webhook",
        "url": "http://127.0.0.1:9000/hook", "headers": {"Authorization": "Bearer x", "X-Team": "sre"},
        "policy": "aws-standard", "minIntervalMs": 30000, "maxPerMinute": 4})"));
    QVERIFY2(target, qPrintable(target.error()));
    QCOMPARE(target->name, QStringLiteral("ops"));
    QCOMPARE(target->kind, AlertTarget::Kind::Webhook);
    QCOMPARE(target->url, QUrl(QStringLiteral("http://127.0.0.1:9000/hook")));
    QCOMPARE(target->headers.size(), 2);
    QCOMPARE(headerValue(target->headers, "authorization").value_or(QByteArray()), QByteArray("Bearer x"));
    QCOMPARE(headerValue(target->headers, "X-Team").value_or(QByteArray()), QByteArray("sre"));
    QCOMPARE(target->policy, *Presets::find(QStringLiteral("aws-standard")));
    QCOMPARE(target->policyOrigin, QStringLiteral("preset aws-standard"));
    QCOMPARE(target->minIntervalMs, 30000);
    QCOMPARE(target->maxPerMinute, 4);
}

void TestAlertTargetJson::webhook_withoutPolicy_usesTheDefault()
{
    const auto target
        = readOne(objectOf(R"({"name": "ops", "kind": "webhook", "url": "https://hooks.example/alert"})"));
    QVERIFY2(target, qPrintable(target.error()));
    QCOMPARE(target->policy, AlertTarget::defaultWebhookPolicy());
    QVERIFY2(isUsable(target->policy), qPrintable(firstPolicyError(target->policy)));
    QVERIFY(target->policyOrigin.isEmpty());
    QVERIFY(target->headers.isEmpty());
    QCOMPARE(target->minIntervalMs, AlertTarget::defaultMinIntervalMs);
    QCOMPARE(target->maxPerMinute, AlertTarget::defaultMaxPerMinute);
}

void TestAlertTargetJson::webhook_inlinePolicyAndPresetWithOverrides_areRead()
{
    const auto inlined = readOne(objectOf(R"({"name": "ops", "kind": "webhook", "url": "http://127.0.0.1:1/",
        "policy": {"algorithm": "constant", "baseDelayMs": 20, "maxAttempts": 3}})"));
    QVERIFY2(inlined, qPrintable(inlined.error()));
    QCOMPARE(inlined->policy.algorithm, BackoffAlgorithm::Constant);
    QCOMPARE(inlined->policy.baseDelayMs, 20.0);
    QCOMPARE(inlined->policy.maxAttempts, 3);
    QCOMPARE(inlined->policyOrigin, QStringLiteral("inline"));

    const auto overridden = readOne(objectOf(R"({"name": "ops", "kind": "webhook", "url": "http://127.0.0.1:1/",
        "policy": {"preset": "iam", "overrides": {"maxAttempts": 2}}})"));
    QVERIFY2(overridden, qPrintable(overridden.error()));
    QCOMPARE(overridden->policy.maxAttempts, 2);
    QCOMPARE(overridden->policy.baseDelayMs, Presets::find(QStringLiteral("iam"))->baseDelayMs);
}

void TestAlertTargetJson::command_isRead()
{
    const auto target = readOne(objectOf(R"({"name": "page", "kind": "command",
        "command": ["/usr/local/bin/page", "--urgent"], "timeoutMs": 2500, "minIntervalMs": 0})"));
    QVERIFY2(target, qPrintable(target.error()));
    QCOMPARE(target->kind, AlertTarget::Kind::Command);
    QCOMPARE(target->command, QStringList({QStringLiteral("/usr/local/bin/page"), QStringLiteral("--urgent")}));
    QCOMPARE(target->timeoutMs, 2500);
    QCOMPARE(target->minIntervalMs, 0);

    const auto defaults
        = readOne(objectOf(R"({"name": "page", "kind": "command", "command": ["/usr/local/bin/page"]})"));
    QVERIFY2(defaults, qPrintable(defaults.error()));
    QCOMPARE(defaults->timeoutMs, AlertTarget::defaultCommandTimeoutMs);
}

void TestAlertTargetJson::desktop_takesTheDefaults()
{
    const auto target = readOne(objectOf(R"({"name": " desktop ", "kind": "desktop"})"));
    QVERIFY2(target, qPrintable(target.error()));
    QCOMPARE(target->name, QStringLiteral("desktop"));
    QCOMPARE(target->kind, AlertTarget::Kind::Desktop);
    QCOMPARE(target->minIntervalMs, AlertTarget::defaultMinIntervalMs);
    QCOMPARE(target->maxPerMinute, AlertTarget::defaultMaxPerMinute);
}

void TestAlertTargetJson::readList_readsEveryKind()
{
    const QJsonArray entries = objectOf(R"({"alerts": [
        {"name": "ops", "kind": "webhook", "url": "http://127.0.0.1:9000/hook"},
        {"name": "page", "kind": "command", "command": ["/bin/true"]},
        {"name": "desktop", "kind": "desktop"}]})")
                                   .value(QStringLiteral("alerts"))
                                   .toArray();
    JsonReader reader(entries, QStringLiteral("alerts"));
    const auto targets = AlertTargetJson::readList(reader);
    QVERIFY2(targets, qPrintable(reader.firstError().text()));
    QCOMPARE(targets->size(), 3);
    QCOMPARE(targets->at(0).kind, AlertTarget::Kind::Webhook);
    QCOMPARE(targets->at(1).kind, AlertTarget::Kind::Command);
    QCOMPARE(targets->at(2).kind, AlertTarget::Kind::Desktop);
}

void TestAlertTargetJson::toJson_readsBackTheSame()
{
    for (const char *json : {
             R"({"name": "ops", "kind": "webhook", "url": "http://127.0.0.1:9000/hook?team=a%20b",
                 "headers": {"Authorization": "Bearer x"}, "policy": "aws-standard", "maxPerMinute": 3})",
             R"({"name": "ops", "kind": "webhook", "url": "http://127.0.0.1:9000/hook",
                 "policy": {"preset": "iam", "overrides": {"maxAttempts": 2}}})",
             R"({"name": "ops", "kind": "webhook", "url": "http://127.0.0.1:9000/hook"})",
             R"({"name": "page", "kind": "command", "command": ["/bin/sh", "-c", "exit 0"], "timeoutMs": 5,
                 "minIntervalMs": 0})",
             R"({"name": "desktop", "kind": "desktop"})",
         }) {
        const auto first = readOne(objectOf(json));
        QVERIFY2(first, qPrintable(first.error()));
        const QJsonObject written = AlertTargetJson::toJson(*first);
        const auto again = readOne(written);
        QVERIFY2(again, qPrintable(again.error()));
        QCOMPARE(*again, *first);
        // What the file said is what is written: the preset by name, no defaults spelt out.
        QCOMPARE(written.value(QStringLiteral("policy")), objectOf(json).value(QStringLiteral("policy")));
        QCOMPARE(written.keys(), objectOf(json).keys());
    }
}

void TestAlertTargetJson::toJson_changedPolicy_isWrittenWhole()
{
    auto target = readOne(
        objectOf(R"({"name": "ops", "kind": "webhook", "url": "http://127.0.0.1:9000/", "policy": "aws-standard"})"));
    QVERIFY(target);
    AlertTarget changed = *target;
    changed.policy.maxAttempts = 2;
    const QJsonObject written = AlertTargetJson::toJson(changed);
    QVERIFY(written.value(QStringLiteral("policy")).isObject());
    const auto again = readOne(written);
    QVERIFY2(again, qPrintable(again.error()));
    QCOMPARE(again->policy, changed.policy);
}

void TestAlertTargetJson::bad_isRefusedWithItsPath_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");

    const auto row = [](const char *name, const char *json, const char *path, const char *message) {
        QTest::newRow(name) << QString::fromUtf8(json) << QString::fromUtf8(path) << QString::fromUtf8(message);
    };
    row("no name", R"({"kind": "desktop"})", "name", "missing");
    row("empty name", R"({"name": "  ", "kind": "desktop"})", "name", "empty");
    row("no kind", R"({"name": "x"})", "kind", "missing");
    row("unknown kind", R"({"name": "x", "kind": "pager"})", "kind",
        "unknown alert target kind \"pager\" (known: webhook, command, desktop)");
    row("kind not a string", R"({"name": "x", "kind": 3})", "kind", "expected a string");
    row("webhook without url", R"({"name": "x", "kind": "webhook"})", "url", "missing");
    row("ftp url", R"({"name": "x", "kind": "webhook", "url": "ftp://files.example/x"})", "url",
        "expected an http:// or https:// URL");
    row("not a url", R"({"name": "x", "kind": "webhook", "url": "hooks.example/alert"})", "url",
        "expected an http:// or https:// URL");
    row("url without host", R"({"name": "x", "kind": "webhook", "url": "http:///alert"})", "url",
        "expected an http:// or https:// URL");
    row("headers not an object", R"({"name": "x", "kind": "webhook", "url": "http://h/", "headers": ["a"]})", "headers",
        "expected an object of header names and values");
    row("bad header name", R"({"name": "x", "kind": "webhook", "url": "http://h/", "headers": {"Bad Name": "v"}})",
        "headers.Bad Name", "not a valid header name");
    row("header value a number", R"({"name": "x", "kind": "webhook", "url": "http://h/", "headers": {"X-A": 3}})",
        "headers.X-A", "expected a string");
    row("header value with a line feed",
        R"({"name": "x", "kind": "webhook", "url": "http://h/", "headers": {"X-A": "a\nInjected: 1"}})", "headers.X-A",
        "line feed");
    row("unknown preset", R"({"name": "x", "kind": "webhook", "url": "http://h/", "policy": "fastest"})", "policy",
        "unknown preset \"fastest\"");
    row("policy a number", R"({"name": "x", "kind": "webhook", "url": "http://h/", "policy": 3})", "policy",
        "expected a preset name or a policy object");
    row("bad policy field", R"({"name": "x", "kind": "webhook", "url": "http://h/", "policy": {"maxAttempts": -1}})",
        "policy.maxAttempts", "cannot be negative");
    row("bad override",
        R"({"name": "x", "kind": "webhook", "url": "http://h/",
            "policy": {"preset": "iam", "overrides": {"maxAttempts": "many"}}})",
        "policy.overrides.maxAttempts", "expected a whole number");
    row("misspelt field", R"({"name": "x", "kind": "webhook", "url": "http://h/", "hedaers": {}})", "hedaers",
        "did you mean \"headers\"");
    row("url on a command", R"({"name": "x", "kind": "command", "command": ["/bin/true"], "url": "http://h/"})", "url",
        "unknown field");
    row("command on a desktop", R"({"name": "x", "kind": "desktop", "command": ["/bin/true"]})", "command",
        "unknown field");
    row("no command", R"({"name": "x", "kind": "command"})", "command", "missing");
    row("empty command", R"({"name": "x", "kind": "command", "command": []})", "command", "empty");
    row("command a string", R"({"name": "x", "kind": "command", "command": "/bin/true"})", "command",
        "expected an array");
    row("relative program", R"({"name": "x", "kind": "command", "command": ["page", "--urgent"]})", "command[0]",
        "absolute path, got \"page\"");
    row("dotted program", R"({"name": "x", "kind": "command", "command": ["./page"]})", "command[0]", "absolute path");
    row("empty program", R"({"name": "x", "kind": "command", "command": [""]})", "command[0]", "absolute path");
    row("argument a number", R"({"name": "x", "kind": "command", "command": ["/bin/echo", 3]})", "command[1]",
        "expected a string");
    row("zero timeout", R"({"name": "x", "kind": "command", "command": ["/bin/true"], "timeoutMs": 0})", "timeoutMs",
        "out of range (1 to 3600000)");
    row("negative interval", R"({"name": "x", "kind": "desktop", "minIntervalMs": -1})", "minIntervalMs",
        "out of range");
    row("zero a minute", R"({"name": "x", "kind": "desktop", "maxPerMinute": 0})", "maxPerMinute",
        "out of range (1 to 1000)");
    row("fractional a minute", R"({"name": "x", "kind": "desktop", "maxPerMinute": 2.5})", "maxPerMinute",
        "expected a whole number");
}

void TestAlertTargetJson::bad_isRefusedWithItsPath()
{
    QFETCH(QString, json);
    QFETCH(QString, path);
    QFETCH(QString, message);
    const auto target = readOne(objectOf(json.toUtf8().constData()));
    QVERIFY2(!target, "a bad entry was accepted");
    QCOMPARE(target.errorDetail().path, path);
    QVERIFY2(target.errorDetail().message.contains(message), qPrintable(target.error()));
}

void TestAlertTargetJson::readList_duplicateName_isRefusedAtTheSecond()
{
    const QJsonArray entries = objectOf(R"({"alerts": [
        {"name": "ops", "kind": "desktop"},
        {"name": "page", "kind": "command", "command": ["/bin/true"]},
        {"name": "ops", "kind": "webhook", "url": "http://127.0.0.1:9000/hook"}]})")
                                   .value(QStringLiteral("alerts"))
                                   .toArray();
    JsonReader reader(entries, QStringLiteral("alerts"));
    QVERIFY(!AlertTargetJson::readList(reader));
    QCOMPARE(reader.firstError().path, QStringLiteral("alerts[2].name"));
    QVERIFY(reader.firstError().message.contains(QLatin1String("a second alert target named \"ops\"")));
}

void TestAlertTargetJson::readList_entryNotAnObject_isRefusedAtItsIndex()
{
    JsonReader reader(QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("d")},
                                     {QStringLiteral("kind"), QStringLiteral("desktop")}},
                          QStringLiteral("ops")},
        QStringLiteral("alerts"));
    QVERIFY(!AlertTargetJson::readList(reader));
    QCOMPARE(reader.firstError().path, QStringLiteral("alerts[1]"));

    JsonReader nested(QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("d")},
                          {QStringLiteral("kind"), QStringLiteral("webhook")}, {QStringLiteral("url"), 5}}},
        QStringLiteral("alerts"));
    QVERIFY(!AlertTargetJson::readList(nested));
    QCOMPARE(nested.firstError().path, QStringLiteral("alerts[0].url"));
}

void TestAlertTargetJson::messages_neverQuoteACredential()
{
    const auto badValue = readOne(objectOf(R"({"name": "x", "kind": "webhook", "url": "http://h/",
        "headers": {"Authorization": "Bearer s3cr3t-token\r\nX-Evil: 1"}})"));
    QVERIFY(!badValue);
    QCOMPARE(badValue.errorDetail().path, QStringLiteral("headers.Authorization"));
    QVERIFY2(!badValue.error().contains(QLatin1String("s3cr3t")), qPrintable(badValue.error()));

    const auto badUrl = readOne(
        objectOf(R"({"name": "x", "kind": "webhook", "url": "ftp://alice:hunter2@files.example/hook?token=abc123"})"));
    QVERIFY(!badUrl);
    QCOMPARE(badUrl.errorDetail().path, QStringLiteral("url"));
    QVERIFY2(!badUrl.error().contains(QLatin1String("hunter2")), qPrintable(badUrl.error()));
    QVERIFY2(!badUrl.error().contains(QLatin1String("abc123")), qPrintable(badUrl.error()));
}

QTEST_GUILESS_MAIN(TestAlertTargetJson)
#include "tst_alerttargetjson.moc"
