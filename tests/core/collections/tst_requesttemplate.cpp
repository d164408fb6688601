#include "core/collections/requesttemplate.h"

#include "core/collections/dynamicvariables.h"

#include <QRegularExpression>
#include <QSet>
#include <QTest>

using namespace RetryLab;
using Core::DraftHeader;
using Core::ExpansionContext;
using Core::RequestDraft;
namespace RequestTemplate = Core::RequestTemplate;

class TestRequestTemplate final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void url_data();
    void url();
    void url_serverNotRunning_saysWhy();
    void unknownPlaceholder_findsWhatTheExpressionFinds();
    void build_expandsUrlHeadersAndBody();
    void build_differentKeys_giveDifferentRequests();
    void build_leavesOtherBracesInBodyAlone();
    void build_skipsDisabledAndEmptyHeaders();
    void headerProblem_data();
    void headerProblem();
    void methodProblem_data();
    void methodProblem();
    void newKeyToken_fourLettersOrDigits_newEachTime();
    void batchBuilder_givesWhatBuildGives_data();
    void batchBuilder_givesWhatBuildGives();

private:
    static ExpansionContext context(const QString &key = QStringLiteral("k1"))
    {
        return {QUrl(QStringLiteral("http://127.0.0.1:4711")), {}, key};
    }
};

void TestRequestTemplate::url_data()
{
    QTest::addColumn<QString>("urlTemplate");
    QTest::addColumn<QString>("expected"); // the URL, or "!" followed by a word of the error
    QTest::addRow("default") << RequestDraft::defaultUrlTemplate()
                             << QStringLiteral("http://127.0.0.1:4711/fail/3?key=k1");
    QTest::addRow("server root") << QStringLiteral("{server}") << QStringLiteral("http://127.0.0.1:4711");
    QTest::addRow("id in path") << QStringLiteral("{server}/eventual/{id}")
                                << QStringLiteral("http://127.0.0.1:4711/eventual/k1");
    QTest::addRow("other server") << QStringLiteral("https://example.org/a?b=1")
                                  << QStringLiteral("https://example.org/a?b=1");
    QTest::addRow("spaces trimmed") << QStringLiteral("  http://h/x  ") << QStringLiteral("http://h/x");
    QTest::addRow("empty") << QString() << QStringLiteral("!Enter a URL");
    QTest::addRow("blank") << QStringLiteral("   ") << QStringLiteral("!Enter a URL");
    QTest::addRow("unknown placeholder") << QStringLiteral("{host}/x") << QStringLiteral("!{host}");
    QTest::addRow("misspelt placeholder") << QStringLiteral("{server}/x?key={ID}") << QStringLiteral("!{ID}");
    QTest::addRow("no scheme") << QStringLiteral("127.0.0.1:8080/x") << QStringLiteral("!http://");
    QTest::addRow("ftp") << QStringLiteral("ftp://example.org/f") << QStringLiteral("!ftp");
    QTest::addRow("no host") << QStringLiteral("http:///path") << QStringLiteral("!host");
    QTest::addRow("bad port") << QStringLiteral("http://h:99999/") << QStringLiteral("!not valid");
    QTest::addRow("glued placeholder") << QStringLiteral("{server}fail/3") << QStringLiteral("!not valid");
    QTest::addRow("too long") << QStringLiteral("http://h/") + QString(9000, QLatin1Char('a'))
                              << QStringLiteral("!longer");
    QTest::addRow("scheme of its own") << QStringLiteral("a+b.c-9://h/") << QStringLiteral("!not a+b.c-9");
    QTest::addRow("scheme after a digit") << QStringLiteral("9http://h/") << QStringLiteral("!http://");
    QTest::addRow("one slash") << QStringLiteral("http:/h/") << QStringLiteral("!http://");
    QTest::addRow("brace in a brace") << QStringLiteral("{server}/x?{a{id}}")
                                      << QStringLiteral("http://127.0.0.1:4711/x?%7Bak1%7D");
}

void TestRequestTemplate::url()
{
    QFETCH(QString, urlTemplate);
    QFETCH(QString, expected);
    const auto result = RequestTemplate::url(urlTemplate, context());
    if (expected.startsWith(QLatin1Char('!'))) {
        QVERIFY2(!result, qPrintable(result ? result->toString() : QString()));
        QVERIFY2(result.error().contains(expected.mid(1)), qPrintable(result.error()));
    } else {
        QVERIFY2(result, qPrintable(result.error()));
        QCOMPARE(result->toString(), expected);
    }
}

void TestRequestTemplate::url_serverNotRunning_saysWhy()
{
    const ExpansionContext noServer{{}, QStringLiteral("the address is already in use"), QStringLiteral("k")};
    const auto result = RequestTemplate::url(RequestDraft::defaultUrlTemplate(), noServer);
    QVERIFY(!result);
    QVERIFY2(result.error().contains(QLatin1String("not running")), qPrintable(result.error()));
    QVERIFY2(result.error().contains(QLatin1String("already in use")), qPrintable(result.error()));
    // Other servers are still fine.
    QVERIFY(RequestTemplate::url(QStringLiteral("http://127.0.0.1:1/x"), noServer));
}

void TestRequestTemplate::unknownPlaceholder_findsWhatTheExpressionFinds()
{
    // The scan by hand against the expression it stands for.
    static const QRegularExpression placeholder(QStringLiteral("\\{([^{}/?#\\s]*)\\}"));
    const auto byExpression = [](const QString &text) -> QString {
        for (auto it = placeholder.globalMatch(text); it.hasNext();) {
            const QString whole = it.next().captured(0);
            if (whole != RequestTemplate::serverPlaceholder() && whole != RequestTemplate::idPlaceholder())
                return whole;
        }
        return {};
    };
    const QStringList texts{QString(), QStringLiteral("{"), QStringLiteral("}"), QStringLiteral("{}"),
        QStringLiteral("{server}{id}"), QStringLiteral("{server}/{x}"), QStringLiteral("{a b}{c}"),
        QStringLiteral("{a\tb}{d}"), QStringLiteral("{a{b}"), QStringLiteral("{{id}}"), QStringLiteral("{id}{x/y}{z}"),
        QStringLiteral("{x?}{#}{ok}"), QStringLiteral("{server"), QStringLiteral("{\u00e9t\u00e9}"),
        QStringLiteral("{a\u00a0b}"), QStringLiteral("x{server}}{y")};
    for (const QString &text : texts)
        QCOMPARE(RequestTemplate::unknownPlaceholder(text), byExpression(text));
}

void TestRequestTemplate::build_expandsUrlHeadersAndBody()
{
    RequestDraft draft;
    draft.method = QStringLiteral("post");
    draft.urlTemplate = QStringLiteral("{server}/status/201?key={id}");
    draft.headers = {{QStringLiteral("Idempotency-Key"), QStringLiteral("{id}"), true},
        {QStringLiteral("X-Origin"), QStringLiteral("{server}"), true}};
    draft.body = QStringLiteral("{\"request\": \"{id}\"}");
    draft.idempotent = true;
    draft.attemptTimeoutMs = 750.0;
    draft.fallbackTemplates = {QStringLiteral("{server}/status/200?key={id}")};

    const auto spec = RequestTemplate::build(draft, context(QStringLiteral("abcd-7")));
    QVERIFY2(spec, qPrintable(spec.error()));
    QCOMPARE(spec->method, QByteArray("post"));
    QCOMPARE(spec->url.toString(), QStringLiteral("http://127.0.0.1:4711/status/201?key=abcd-7"));
    QCOMPARE(spec->headers.size(), 2);
    QCOMPARE(spec->headers.at(0), (QPair<QByteArray, QByteArray>("Idempotency-Key", "abcd-7")));
    QCOMPARE(spec->headers.at(1), (QPair<QByteArray, QByteArray>("X-Origin", "http://127.0.0.1:4711")));
    QCOMPARE(spec->body, QByteArray("{\"request\": \"abcd-7\"}"));
    QVERIFY(spec->idempotent);
    QCOMPARE(spec->attemptTimeoutMs, std::optional<double>(750.0));
    QCOMPARE(spec->fallbackUrls, QList<QUrl>{QUrl(QStringLiteral("http://127.0.0.1:4711/status/200?key=abcd-7"))});
    QVERIFY(spec->fallbackOn.isEmpty());
    // The list of faults that lead to a fallback, as typed, kept normalized; a bad entry is named.
    draft.fallbackOn = {QStringLiteral("5XX"), QStringLiteral(" timeout")};
    QCOMPARE(RequestTemplate::build(draft, context(QStringLiteral("abcd-7")))->fallbackOn,
        (QStringList{QStringLiteral("5xx"), QStringLiteral("timeout")}));
    draft.fallbackOn.append(QStringLiteral("teapot"));
    const auto badList = RequestTemplate::build(draft, context(QStringLiteral("abcd-7")));
    QVERIFY(!badList);
    QVERIFY2(badList.error().contains(QLatin1String("\"teapot\"")), qPrintable(badList.error()));
    draft.fallbackOn.clear();
    // A fallback that cannot be sent stops the send and is named.
    draft.fallbackTemplates.append(QStringLiteral("{nope}/x"));
    const auto refused = RequestTemplate::build(draft, context(QStringLiteral("abcd-7")));
    QVERIFY(!refused);
    QVERIFY2(refused.error().startsWith(QLatin1String("Fallback 2:")), qPrintable(refused.error()));
}

void TestRequestTemplate::build_differentKeys_giveDifferentRequests()
{
    const RequestDraft draft;
    const auto first = RequestTemplate::build(draft, context(QStringLiteral("r-1")));
    const auto second = RequestTemplate::build(draft, context(QStringLiteral("r-2")));
    QVERIFY(first && second);
    QCOMPARE(first->url.query(), QStringLiteral("key=r-1"));
    QCOMPARE(second->url.query(), QStringLiteral("key=r-2"));
}

void TestRequestTemplate::build_leavesOtherBracesInBodyAlone()
{
    RequestDraft draft;
    draft.urlTemplate = QStringLiteral("http://h/x");
    draft.body = QStringLiteral("{\"a\": {\"b\": 1}, \"t\": \"{token}\"}");
    const auto spec = RequestTemplate::build(draft, context());
    QVERIFY2(spec, qPrintable(spec.error()));
    QCOMPARE(spec->body, draft.body.toUtf8());
}

void TestRequestTemplate::build_skipsDisabledAndEmptyHeaders()
{
    RequestDraft draft;
    draft.headers = {{QStringLiteral("A"), QStringLiteral("1"), false}, {QString(), QString(), true},
        {QStringLiteral(" B "), QStringLiteral("2"), true}, {QStringLiteral("bad name"), QStringLiteral("x"), false}};
    const auto spec = RequestTemplate::build(draft, context());
    QVERIFY2(spec, qPrintable(spec.error()));
    QCOMPARE(spec->headers.size(), 1);
    QCOMPARE(spec->headers.constFirst(), (QPair<QByteArray, QByteArray>("B", "2")));
}

void TestRequestTemplate::headerProblem_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("problem"); // a word of it; empty: none
    QTest::addRow("fine") << QStringLiteral("Accept") << QStringLiteral("*/*") << QString();
    QTest::addRow("empty row") << QString() << QString() << QString();
    QTest::addRow("value without name") << QString() << QStringLiteral("x") << QStringLiteral("no name");
    QTest::addRow("space in name") << QStringLiteral("X Y") << QStringLiteral("1") << QStringLiteral("not a valid");
    QTest::addRow("colon in name") << QStringLiteral("X:") << QStringLiteral("1") << QStringLiteral("not a valid");
    QTest::addRow("non-ASCII name") << QStringLiteral("Grü") << QStringLiteral("1") << QStringLiteral("not a valid");
    QTest::addRow("line break in value") << QStringLiteral("X") << QStringLiteral("a\r\nInjected: 1")
                                         << QStringLiteral(
                                                "a carriage return (CR) at byte 2 cannot stand in a header value");
    QTest::addRow("content length") << QStringLiteral("content-length") << QStringLiteral("5")
                                    << QStringLiteral("from the body");
}

void TestRequestTemplate::headerProblem()
{
    QFETCH(QString, name);
    QFETCH(QString, value);
    QFETCH(QString, problem);
    const QString found = RequestTemplate::headerProblem({name, value, true}, 2);
    if (problem.isEmpty()) {
        QVERIFY2(found.isEmpty(), qPrintable(found));
        return;
    }
    QVERIFY2(found.contains(problem), qPrintable(found));
    QVERIFY2(found.contains(QLatin1String("3")), "the row is named as people count it");
    RequestDraft draft;
    draft.headers = {{QStringLiteral("Ok"), QStringLiteral("1"), true}, {}, {name, value, true}};
    const auto spec = RequestTemplate::build(draft, context());
    QVERIFY(!spec);
    QCOMPARE(spec.error(), found);
}

void TestRequestTemplate::methodProblem_data()
{
    QTest::addColumn<QString>("method");
    QTest::addColumn<bool>("ok");
    QTest::addRow("GET") << QStringLiteral("GET") << true;
    QTest::addRow("custom") << QStringLiteral("PURGE") << true;
    QTest::addRow("empty") << QString() << false;
    QTest::addRow("space") << QStringLiteral("GET X") << false;
    QTest::addRow("newline") << QStringLiteral("GET\n") << true; // trimmed
    QTest::addRow("slash") << QStringLiteral("GE/T") << false;
}

void TestRequestTemplate::methodProblem()
{
    QFETCH(QString, method);
    QFETCH(bool, ok);
    QCOMPARE(RequestTemplate::methodProblem(method).isEmpty(), ok);
}

void TestRequestTemplate::newKeyToken_fourLettersOrDigits_newEachTime()
{
    static const QRegularExpression shape(QStringLiteral("^[0-9a-z]{4}$"));
    QSet<QString> tokens;
    for (int i = 0; i < 8; ++i) {
        const QString token = RequestTemplate::newKeyToken();
        QVERIFY2(shape.match(token).hasMatch(), qPrintable(token));
        tokens.insert(token);
    }
    // 36^4 tokens: eight draws that are all alike would be a broken generator.
    QVERIFY(tokens.size() > 1);
}

QTEST_GUILESS_MAIN(TestRequestTemplate)
#include "tst_requesttemplate.moc"

Q_DECLARE_METATYPE(RetryLab::Core::RequestDraft)

using VariableValues = QHash<QString, QString>;

namespace {

// What differs between two requests, field by field; empty when nothing does.
QStringList differences(const Core::RequestSpec &a, const Core::RequestSpec &b)
{
    QStringList differ;
    const auto check = [&differ](bool same, const char *field) {
        if (!same)
            differ.append(QLatin1String(field));
    };
    check(a.kind == b.kind, "kind");
    check(a.method == b.method, "method");
    check(a.url == b.url && a.url.toString(QUrl::FullyEncoded) == b.url.toString(QUrl::FullyEncoded), "url");
    check(a.headers == b.headers, "headers");
    check(a.body == b.body, "body");
    check(a.bodySource == b.bodySource, "bodySource");
    check(a.idempotent == b.idempotent, "idempotent");
    check(a.attemptHeaders == b.attemptHeaders, "attemptHeaders");
    check(a.attemptTimeoutMs == b.attemptTimeoutMs, "attemptTimeoutMs");
    check(a.label == b.label, "label");
    check(a.increment == b.increment, "increment");
    check(a.readModifyWrite == b.readModifyWrite, "readModifyWrite");
    check(a.transport == b.transport, "transport");
    check(a.auth == b.auth, "auth");
    check(a.fallbackUrls == b.fallbackUrls, "fallbackUrls");
    check(a.fallbackOn == b.fallbackOn, "fallbackOn");
    return differ;
}

} // namespace

void TestRequestTemplate::batchBuilder_givesWhatBuildGives_data()
{
    QTest::addColumn<RequestDraft>("draft");
    QTest::addColumn<VariableValues>("variables");
    QTest::addColumn<bool>("dynamic");
    QTest::addColumn<bool>("putsKeysIn");
    QTest::addColumn<bool>("keyInUrl");

    const QHash<QString, QString> none;
    RequestDraft draft;
    draft.urlTemplate = QStringLiteral("{server}/fail/2?key={id}");
    QTest::newRow("key in the query") << draft << none << false << true << true;
    draft.urlTemplate = QStringLiteral("  {server}/items/{id}/parts?k={id}#{id}  ");
    QTest::newRow("key three times, spaces around") << draft << none << false << true << true;
    draft.urlTemplate = QStringLiteral("http://h{id}.test:80/x");
    QTest::newRow("key in the host") << draft << none << false << true << true;
    draft.urlTemplate = QStringLiteral("http://127.0.0.1:{id}/x");
    QTest::newRow("key as the port: not a URL") << draft << none << false << true << true;
    draft.urlTemplate = QStringLiteral("{id}://h/x");
    QTest::newRow("key as the scheme") << draft << none << false << true << true;
    draft.urlTemplate = QStringLiteral("{server}/status/200");
    QTest::newRow("no key") << draft << none << false << true << false;

    draft.urlTemplate = QStringLiteral("{server}/status/201?key={id}");
    draft.method = QStringLiteral("POST");
    draft.headers = {{QStringLiteral("A"), QStringLiteral("1"), false}, {QString(), QString(), true},
        {QStringLiteral("Idempotency-Key"), QStringLiteral("{id}"), true},
        {QStringLiteral("X-Origin"), QStringLiteral("{server}/{id}"), true},
        {QStringLiteral("X-Plain"), QStringLiteral("{server}"), true}};
    draft.body = QStringLiteral("{\"request\": \"{id}\", \"from\": \"{server}\", \"t\": {}}");
    draft.fallbackOn = {QStringLiteral("5XX")};
    draft.auth.kind = Core::AuthSpec::Kind::Bearer;
    draft.auth.token = QStringLiteral("{server}");
    QTest::newRow("key in headers and the body") << draft << none << false << true << true;

    RequestDraft variables = draft;
    variables.urlTemplate = QStringLiteral("{{base}}/fail/1?key={{key}}");
    variables.headers.append({QStringLiteral("X-Env"), QStringLiteral("{{key}}"), true});
    QTest::newRow("key through variables")
        << variables
        << QHash<QString, QString>{{QStringLiteral("base"), QStringLiteral("{server}")},
               {QStringLiteral("key"), QStringLiteral("{id}")}}
        << false << true << true;
    QTest::newRow("undefined variable") << variables << none << false << false << false;
    QTest::newRow("dynamic variables") << variables
                                       << QHash<QString, QString>{{QStringLiteral("base"), QStringLiteral("{server}")},
                                              {QStringLiteral("key"), QStringLiteral("{{$randomInt}}")}}
                                       << true << false << false;

    // url() resolves the URLs once more: a variable's value may name another.
    RequestDraft nested = draft;
    nested.urlTemplate = QStringLiteral("{server}/fail/3?key={{a}}");
    const VariableValues twice{
        {QStringLiteral("a"), QStringLiteral("{{b}}")}, {QStringLiteral("b"), QStringLiteral("{id}")}};
    QTest::newRow("key through a variable named by a variable") << nested << twice << false << true << true;
    RequestDraft nestedFallback = draft;
    nestedFallback.fallbackTemplates = {QStringLiteral("{server}/status/200?key={{a}}")};
    QTest::newRow("key in a fallback, through two variables") << nestedFallback << twice << false << false << true;
    RequestDraft switchedOff = draft;
    switchedOff.headers.prepend({QStringLiteral("X-Off"), QStringLiteral("{id}"), false});
    switchedOff.headers.append({QStringLiteral("X-Last"), QStringLiteral("{id}-{server}"), true});
    QTest::newRow("key in a header switched off") << switchedOff << none << false << true << true;

    RequestDraft fallback = draft;
    fallback.fallbackTemplates = {QStringLiteral("{server}/status/200?key={id}")};
    QTest::newRow("key in a fallback") << fallback << none << false << false << true;
    RequestDraft auth = draft;
    auth.auth.token = QStringLiteral("t-{id}");
    QTest::newRow("key in the auth") << auth << none << false << false << true;
    RequestDraft form = draft;
    form.bodyFrom.mode = Core::DraftBody::Mode::UrlEncoded;
    form.bodyFrom.fields = {{QStringLiteral("k"), QStringLiteral("{id}"), {}, {}, {}}};
    QTest::newRow("key in a form") << form << none << false << false << true;
    form.bodyFrom.fields = {{QStringLiteral("k"), QStringLiteral("{server}"), {}, {}, {}}};
    form.headers.clear();
    QTest::newRow("form without the key") << form << none << false << true << true;
    RequestDraft badMethod = draft;
    badMethod.method = QStringLiteral("GE T");
    QTest::newRow("no method") << badMethod << none << false << true << true;
    RequestDraft unknown = draft;
    unknown.urlTemplate = QStringLiteral("{server}/x?key={id}&{ide}");
    QTest::newRow("unknown placeholder") << unknown << none << false << false << true;
}

void TestRequestTemplate::batchBuilder_givesWhatBuildGives()
{
    QFETCH(RequestDraft, draft);
    QFETCH(VariableValues, variables);
    QFETCH(bool, dynamic);
    QFETCH(bool, putsKeysIn);
    QFETCH(bool, keyInUrl);

    Core::DynamicVariables random(7);
    ExpansionContext base = context(QString());
    base.variables = variables;
    base.dynamic = dynamic ? &random : nullptr;
    RequestTemplate::BatchBuilder builder(draft, base);
    QCOMPARE(builder.putsKeysIn(), putsKeysIn);
    Core::DynamicVariables sameRandom(7);
    // A port and a scheme among them, for the drafts that put the key there.
    const QStringList keys = {QStringLiteral("80"), QStringLiteral("k3f9-1"), QStringLiteral("http"),
        QStringLiteral("k3f9-2"), QStringLiteral("k3f9-10")};
    for (const QString &key : keys) {
        ExpansionContext alone = base;
        alone.requestKey = key;
        alone.dynamic = dynamic ? &sameRandom : nullptr;
        const auto expected = RequestTemplate::build(draft, alone);
        const auto built = builder.build(key);
        QCOMPARE(bool(built), bool(expected));
        if (!expected) {
            QCOMPARE(built.error(), expected.error());
            continue;
        }
        const QStringList differ = differences(*built, *expected);
        QVERIFY2(differ.isEmpty(), qPrintable(key + QLatin1String(": ") + differ.join(QLatin1String(", "))));
        // Each request its own key where the draft asks for one (the checks above compare it).
        if (keyInUrl)
            QVERIFY2(built->url.toString().contains(key), qPrintable(built->url.toString()));
    }
}
