// The composer's body modes in a request draft: how a saved request keeps a
// form, a multipart form with files and a streamed file, and what
// RequestTemplate makes of them for the executor.
#include "core/collections/draftbody.h"
#include "core/collections/requestdraft.h"
#include "core/collections/requesttemplate.h"
#include "core/http/httpheaders.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;
using Core::DraftBody;
using Core::DraftFormField;
using Core::RequestDraft;
namespace RequestTemplate = Core::RequestTemplate;

class TestDraftBody final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void json_rawWritesNothing_oldDraftsReadAsRaw();
    void json_roundTripsEveryMode_data();
    void json_roundTripsEveryMode();
    void json_masksCredentialFieldsUnlessKept();
    void json_badField_isNamed_data();
    void json_badField_isNamed();
    void build_urlEncoded_encodesAndSetsContentType();
    void build_urlEncoded_keepsTheUsersContentType();
    void build_urlEncoded_refusesAFileRow();
    void build_multipart_givesPartsWithPlaceholdersExpanded();
    void build_multipart_refusesContentTypeHeaderAndEmptyForm();
    void build_file_streamsTheNamedFile();
    void build_unreadableFile_isNamed_data();
    void build_unreadableFile_isNamed();
    void build_variablesOfTheUnsentTextAreNotNeeded();
    void fromSource_mirrorsEveryKind();

private:
    static Core::ExpansionContext context(const QHash<QString, QString> &variables = {})
    {
        Core::ExpansionContext c{QUrl(QStringLiteral("http://127.0.0.1:4711")), {}, QStringLiteral("k1")};
        c.variables = variables;
        c.environmentName = QStringLiteral("Local");
        return c;
    }
    static RequestDraft post(const DraftBody &body)
    {
        RequestDraft draft;
        draft.method = QStringLiteral("POST");
        draft.urlTemplate = QStringLiteral("{server}/status/200");
        draft.bodyFrom = body;
        return draft;
    }
    QString file(const QString &name) const { return m_dir.filePath(name); }

    QTemporaryDir m_dir;
};

void TestDraftBody::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QFile payload(file(QStringLiteral("payload.bin")));
    QVERIFY(payload.open(QIODevice::WriteOnly));
    payload.write(QByteArray(3000, 'x'));
}

void TestDraftBody::json_rawWritesNothing_oldDraftsReadAsRaw()
{
    RequestDraft draft;
    draft.body = QStringLiteral("{}");
    const QJsonObject json = draft.toJson();
    QVERIFY(!json.contains(QStringLiteral("bodyFrom")));
    const auto read = RequestDraft::fromJson(json);
    QVERIFY2(read, qPrintable(read.error()));
    QCOMPARE(read->bodyFrom.mode, DraftBody::Mode::Raw);
    QCOMPARE(*read, draft);
}

void TestDraftBody::json_roundTripsEveryMode_data()
{
    QTest::addColumn<DraftBody>("body");
    DraftBody form;
    form.mode = DraftBody::Mode::UrlEncoded;
    form.fields = {{QStringLiteral("q"), QStringLiteral("a b&c"), {}, {}, {}, true},
        {QStringLiteral("off"), QStringLiteral("1"), {}, {}, {}, false}};
    QTest::addRow("url-encoded") << form;
    DraftBody multipart;
    multipart.mode = DraftBody::Mode::Multipart;
    multipart.fields = {{QStringLiteral("title"), QStringLiteral("{{title}}"), {}, {}, {}, true},
        {QStringLiteral("upload"), {}, QStringLiteral("{{dir}}/a.png"), QStringLiteral("shot.png"),
            QStringLiteral("image/png"), true}};
    QTest::addRow("multipart with a file") << multipart;
    DraftBody streamed;
    streamed.mode = DraftBody::Mode::File;
    streamed.filePath = QStringLiteral("/var/tmp/big.iso");
    QTest::addRow("file") << streamed;
}

void TestDraftBody::json_roundTripsEveryMode()
{
    QFETCH(DraftBody, body);
    RequestDraft draft = post(body);
    draft.body = QStringLiteral("the text stays while another mode is chosen");
    const QJsonObject json = draft.toJson();
    QCOMPARE(json.value(QStringLiteral("bodyFrom")).toObject().value(QStringLiteral("mode")).toString(),
        DraftBody::modeName(body.mode));
    const auto read = RequestDraft::fromJson(json);
    QVERIFY2(read, qPrintable(read.error()));
    QCOMPARE(read->bodyFrom, body);
    QCOMPARE(read->body, draft.body);
}

void TestDraftBody::json_masksCredentialFieldsUnlessKept()
{
    DraftBody form;
    form.mode = DraftBody::Mode::UrlEncoded;
    form.fields = {{QStringLiteral("username"), QStringLiteral("ann"), {}, {}, {}, true},
        {QStringLiteral("password"), QStringLiteral("hunter2"), {}, {}, {}, true},
        {QStringLiteral("client_secret"), QStringLiteral("{{secret}}"), {}, {}, {}, true}};
    const QJsonArray masked
        = post(form).toJson().value(QStringLiteral("bodyFrom")).toObject().value(QStringLiteral("fields")).toArray();
    QCOMPARE(masked.at(0).toObject().value(QStringLiteral("value")).toString(), QStringLiteral("ann"));
    QCOMPARE(masked.at(1).toObject().value(QStringLiteral("value")).toString(), QStringLiteral("REDACTED"));
    // Only a variable: the secret is in the environment, not here.
    QCOMPARE(masked.at(2).toObject().value(QStringLiteral("value")).toString(), QStringLiteral("{{secret}}"));
    const QJsonArray kept = post(form)
                                .toJson(true)
                                .value(QStringLiteral("bodyFrom"))
                                .toObject()
                                .value(QStringLiteral("fields"))
                                .toArray();
    QCOMPARE(kept.at(1).toObject().value(QStringLiteral("value")).toString(), QStringLiteral("hunter2"));
}

void TestDraftBody::json_badField_isNamed_data()
{
    QTest::addColumn<QJsonObject>("bodyFrom");
    QTest::addColumn<QString>("expected");
    QTest::addRow("unknown mode") << QJsonObject{{QStringLiteral("mode"), QStringLiteral("xml")}}
                                  << QStringLiteral("bodyFrom.mode");
    QTest::addRow("no mode") << QJsonObject{{QStringLiteral("file"), QStringLiteral("/a")}}
                             << QStringLiteral("bodyFrom.mode");
    QTest::addRow("file without a path") << QJsonObject{{QStringLiteral("mode"), QStringLiteral("file")}}
                                         << QStringLiteral("bodyFrom.file");
    QTest::addRow("misspelt key") << QJsonObject{{QStringLiteral("mode"), QStringLiteral("multipart")},
        {QStringLiteral("feilds"), QJsonArray{}}}
                                  << QStringLiteral("fields");
    QTest::addRow("value and file") << QJsonObject{{QStringLiteral("mode"), QStringLiteral("multipart")},
        {QStringLiteral("fields"),
            QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("a")}},
                QJsonObject{{QStringLiteral("name"), QStringLiteral("b")},
                    {QStringLiteral("value"), QStringLiteral("1")}, {QStringLiteral("file"), QStringLiteral("/x")}}}}}
                                    << QStringLiteral("bodyFrom.fields[1].value");
    QTest::addRow("row not an object") << QJsonObject{{QStringLiteral("mode"), QStringLiteral("urlencoded")},
        {QStringLiteral("fields"), QJsonArray{1}}}
                                       << QStringLiteral("bodyFrom.fields[0]");
}

void TestDraftBody::json_badField_isNamed()
{
    QFETCH(QJsonObject, bodyFrom);
    QFETCH(QString, expected);
    QJsonObject json = RequestDraft().toJson();
    json.insert(QStringLiteral("bodyFrom"), bodyFrom);
    const auto read = RequestDraft::fromJson(json);
    QVERIFY(!read);
    QVERIFY2(read.error().contains(expected), qPrintable(read.error()));
}

void TestDraftBody::build_urlEncoded_encodesAndSetsContentType()
{
    DraftBody form;
    form.mode = DraftBody::Mode::UrlEncoded;
    form.fields = {{QStringLiteral("q"), QStringLiteral("a b&c={id}"), {}, {}, {}, true},
        {QStringLiteral("who"), QStringLiteral("{{user}}"), {}, {}, {}, true},
        {QStringLiteral("off"), QStringLiteral("1"), {}, {}, {}, false}, {QString(), QString(), {}, {}, {}, true}};
    const auto spec = RequestTemplate::build(post(form), context({{QStringLiteral("user"), QStringLiteral("Zoë")}}));
    QVERIFY2(spec, qPrintable(spec.error()));
    QCOMPARE(spec->body, QByteArray("q=a+b%26c%3Dk1&who=Zo%C3%AB"));
    QCOMPARE(Core::headerValue(spec->headers, "Content-Type"),
        std::optional<QByteArray>("application/x-www-form-urlencoded"));
    QVERIFY(spec->bodySource.isInline());
}

void TestDraftBody::build_urlEncoded_keepsTheUsersContentType()
{
    DraftBody form;
    form.mode = DraftBody::Mode::UrlEncoded;
    form.fields = {{QStringLiteral("a"), QStringLiteral("1"), {}, {}, {}, true}};
    RequestDraft draft = post(form);
    draft.headers
        = {{QStringLiteral("content-type"), QStringLiteral("application/x-www-form-urlencoded; charset=utf-8"), true}};
    const auto spec = RequestTemplate::build(draft, context());
    QVERIFY2(spec, qPrintable(spec.error()));
    QCOMPARE(spec->headers.size(), 1);
    QCOMPARE(spec->headers.first().second, QByteArray("application/x-www-form-urlencoded; charset=utf-8"));
}

void TestDraftBody::build_urlEncoded_refusesAFileRow()
{
    DraftBody form;
    form.mode = DraftBody::Mode::UrlEncoded;
    form.fields = {{QStringLiteral("a"), QStringLiteral("1"), {}, {}, {}, true},
        {QStringLiteral("doc"), {}, file(QStringLiteral("payload.bin")), {}, {}, true}};
    const auto spec = RequestTemplate::build(post(form), context());
    QVERIFY(!spec);
    QVERIFY2(spec.error().contains(QLatin1String("Form row 2 (doc)")), qPrintable(spec.error()));
    QVERIFY2(spec.error().contains(QLatin1String("Multipart")), qPrintable(spec.error()));
}

void TestDraftBody::build_multipart_givesPartsWithPlaceholdersExpanded()
{
    DraftBody multipart;
    multipart.mode = DraftBody::Mode::Multipart;
    multipart.fields = {{QStringLiteral("title"), QStringLiteral("{{title}} {id}"), {}, {}, {}, true},
        {QStringLiteral("upload"), {}, QStringLiteral("{{dir}}/payload.bin"), QStringLiteral("p.bin"),
            QStringLiteral("application/octet-stream"), true},
        {QStringLiteral("skipped"), {}, QStringLiteral("/nonexistent/not-sent"), {}, {}, false}};
    const auto spec = RequestTemplate::build(post(multipart),
        context({{QStringLiteral("title"), QStringLiteral("Report")}, {QStringLiteral("dir"), m_dir.path()}}));
    QVERIFY2(spec, qPrintable(spec.error()));
    QCOMPARE(spec->bodySource.kind, Core::BodySource::Kind::Multipart);
    QVERIFY(spec->body.isEmpty());
    QCOMPARE(spec->bodySource.parts.size(), 2);
    QCOMPARE(spec->bodySource.parts.at(0).name, QByteArray("title"));
    QCOMPARE(spec->bodySource.parts.at(0).value, QByteArray("Report k1"));
    QCOMPARE(spec->bodySource.parts.at(1).filePath, file(QStringLiteral("payload.bin")));
    QCOMPARE(spec->bodySource.parts.at(1).fileName, QByteArray("p.bin"));
    QCOMPARE(spec->bodySource.parts.at(1).contentType, QByteArray("application/octet-stream"));
}

void TestDraftBody::build_multipart_refusesContentTypeHeaderAndEmptyForm()
{
    DraftBody multipart;
    multipart.mode = DraftBody::Mode::Multipart;
    multipart.fields = {{QStringLiteral("a"), QStringLiteral("1"), {}, {}, {}, true}};
    RequestDraft draft = post(multipart);
    draft.headers = {{QStringLiteral("Content-Type"), QStringLiteral("multipart/form-data"), true}};
    auto spec = RequestTemplate::build(draft, context());
    QVERIFY(!spec);
    QVERIFY2(spec.error().contains(QLatin1String("Content-Type")), qPrintable(spec.error()));

    multipart.fields.first().enabled = false;
    spec = RequestTemplate::build(post(multipart), context());
    QVERIFY(!spec);
    QVERIFY2(spec.error().contains(QLatin1String("no field")), qPrintable(spec.error()));
}

void TestDraftBody::build_file_streamsTheNamedFile()
{
    DraftBody streamed;
    streamed.mode = DraftBody::Mode::File;
    streamed.filePath = QStringLiteral("{{dir}}/payload.bin");
    RequestDraft draft = post(streamed);
    draft.body = QStringLiteral("typed, not sent");
    const auto spec = RequestTemplate::build(draft, context({{QStringLiteral("dir"), m_dir.path()}}));
    QVERIFY2(spec, qPrintable(spec.error()));
    QCOMPARE(spec->bodySource.kind, Core::BodySource::Kind::File);
    QCOMPARE(spec->bodySource.filePath, file(QStringLiteral("payload.bin")));
    QVERIFY(spec->body.isEmpty());
}

void TestDraftBody::build_unreadableFile_isNamed_data()
{
    QTest::addColumn<DraftBody>("body");
    QTest::addColumn<QString>("expected");
    DraftBody streamed;
    streamed.mode = DraftBody::Mode::File;
    streamed.filePath = QStringLiteral("/nonexistent/body.bin");
    QTest::addRow("file") << streamed << QStringLiteral("/nonexistent/body.bin");
    DraftBody folder = streamed;
    folder.filePath = QStringLiteral("/tmp");
    QTest::addRow("a folder") << folder << QStringLiteral("/tmp");
    DraftBody empty = streamed;
    empty.filePath = QStringLiteral("  ");
    QTest::addRow("no path") << empty << QStringLiteral("Choose the file");
    DraftBody multipart;
    multipart.mode = DraftBody::Mode::Multipart;
    multipart.fields = {{QStringLiteral("up"), {}, QStringLiteral("/nonexistent/part.txt"), {}, {}, true}};
    QTest::addRow("multipart file") << multipart << QStringLiteral("/nonexistent/part.txt");
}

void TestDraftBody::build_unreadableFile_isNamed()
{
    QFETCH(DraftBody, body);
    QFETCH(QString, expected);
    const auto spec = RequestTemplate::build(post(body), context());
    QVERIFY(!spec);
    QVERIFY2(spec.error().contains(expected), qPrintable(spec.error()));
}

void TestDraftBody::build_variablesOfTheUnsentTextAreNotNeeded()
{
    // The typed text is kept in the draft, not sent: its {{names}} need no value.
    DraftBody form;
    form.mode = DraftBody::Mode::UrlEncoded;
    form.fields = {{QStringLiteral("a"), QStringLiteral("1"), {}, {}, {}, true}};
    RequestDraft draft = post(form);
    draft.body = QStringLiteral("{{undefined}}");
    const auto spec = RequestTemplate::build(draft, context());
    QVERIFY2(spec, qPrintable(spec.error()));
    // In a field that is sent, it is an error that names it.
    draft.bodyFrom.fields.first().value = QStringLiteral("{{undefined}}");
    const auto missing = RequestTemplate::build(draft, context());
    QVERIFY(!missing);
    QVERIFY2(missing.error().contains(QLatin1String("{{undefined}}")), qPrintable(missing.error()));
}

void TestDraftBody::fromSource_mirrorsEveryKind()
{
    QCOMPARE(DraftBody::fromSource({}).mode, DraftBody::Mode::Raw);
    Core::BodySource file;
    file.kind = Core::BodySource::Kind::File;
    file.filePath = QStringLiteral("/a/b.bin");
    QCOMPARE(DraftBody::fromSource(file).mode, DraftBody::Mode::File);
    QCOMPARE(DraftBody::fromSource(file).filePath, file.filePath);
    Core::BodySource multipart;
    multipart.kind = Core::BodySource::Kind::Multipart;
    multipart.parts = {{"name", "value", {}, {}, {}}, {"up", {}, QStringLiteral("/x.txt"), "y.txt", "text/plain"}};
    const DraftBody body = DraftBody::fromSource(multipart);
    QCOMPARE(body.mode, DraftBody::Mode::Multipart);
    QCOMPARE(body.fields.size(), 2);
    QCOMPARE(body.fields.at(0).value, QStringLiteral("value"));
    QCOMPARE(body.fields.at(1).filePath, QStringLiteral("/x.txt"));
    QCOMPARE(body.fields.at(1).fileName, QStringLiteral("y.txt"));
    QCOMPARE(body.fields.at(1).contentType, QStringLiteral("text/plain"));
    // And back: the same parts for the executor.
    const auto source = DraftBody{body.mode, {body.fields.first()}, {}}.source();
    QVERIFY2(source, qPrintable(source.error()));
    QCOMPARE(source->parts.first(), multipart.parts.first());
}

QTEST_GUILESS_MAIN(TestDraftBody)
#include "tst_draftbody.moc"
