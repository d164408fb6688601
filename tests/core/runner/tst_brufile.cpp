#include "core/runner/brufile.h"

#include <QTest>

using namespace RetryLab::Core;

namespace {

BruFile::Entry entryOf(const char *key, const char *value, bool enabled, int line)
{
    return {QString::fromUtf8(key), QString::fromUtf8(value), enabled, line};
}

} // namespace

class TestBruFile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_request_keepsEveryBlockInOrder();
    void parse_dictionary_keepsDisabledEntriesAndValuesWithColons();
    void parse_textBlock_outdentsAndKeepsItsFirstLine();
    void parse_multilineValue_isOutdented();
    void parse_secretList_readsNames();
    void parse_newerSyntax_annotationsQuotedKeysAndLists();
    void parse_emptyBlocksAndCrLf_areRead();
    void parse_refused_namesFileAndLine_data();
    void parse_refused_namesFileAndLine();
};

void TestBruFile::parse_request_keepsEveryBlockInOrder()
{
    const QString text = QStringLiteral("meta {\n"
                                        "  name: Create user\n"
                                        "  seq: 3\n"
                                        "}\n"
                                        "\n"
                                        "post {\n"
                                        "  url: {{baseUrl}}/users\n"
                                        "  body: json\n"
                                        "  auth: bearer\n"
                                        "}\n"
                                        "\n"
                                        "body:json {\n"
                                        "  {\"name\": \"{{name}}\"}\n"
                                        "}\n"
                                        "\n"
                                        "tests {\n"
                                        "  test(\"ok\", function() {});\n"
                                        "}\n");
    const Result<BruFile> file = BruFile::parse(text, QStringLiteral("users/create.bru"));
    QVERIFY2(file.ok(), qPrintable(file.error()));
    QStringList names;
    for (const BruFile::Block &block : file->blocks())
        names.append(block.name);
    QCOMPARE(names,
        (QStringList{
            QStringLiteral("meta"), QStringLiteral("post"), QStringLiteral("body:json"), QStringLiteral("tests")}));
    QCOMPARE(file->block(QStringLiteral("meta"))->value(QStringLiteral("seq")), QStringLiteral("3"));
    QCOMPARE(file->block(QStringLiteral("meta"))->line, 1);
    const BruFile::Block *post = file->block(QStringLiteral("post"));
    QCOMPARE(post->line, 6);
    QCOMPARE(post->value(QStringLiteral("url")), QStringLiteral("{{baseUrl}}/users"));
    QCOMPARE(post->entry(QStringLiteral("auth"))->line, 9);
    QCOMPARE(file->block(QStringLiteral("body:json"))->text, QStringLiteral("{\"name\": \"{{name}}\"}"));
    QCOMPARE(file->block(QStringLiteral("body:json"))->textLine, 13);
    QCOMPARE(file->block(QStringLiteral("tests"))->shape, BruFile::Shape::Text);
    QCOMPARE(file->block(QStringLiteral("docs")), nullptr);
    QCOMPARE(file->where(13), QStringLiteral("users/create.bru:13"));
}

void TestBruFile::parse_dictionary_keepsDisabledEntriesAndValuesWithColons()
{
    const Result<BruFile> file = BruFile::parse(QStringLiteral("headers {\n"
                                                               "  Accept: application/json\n"
                                                               "  ~X-Debug: on\n"
                                                               "  X-Url:   http://a:8080/x  \n"
                                                               "  X-Empty:\n"
                                                               "}\n"),
        QStringLiteral("h.bru"));
    QVERIFY2(file.ok(), qPrintable(file.error()));
    const BruFile::Block *headers = file->block(QStringLiteral("headers"));
    QCOMPARE(headers->shape, BruFile::Shape::Dictionary);
    QCOMPARE(headers->entries,
        QList<BruFile::Entry>({entryOf("Accept", "application/json", true, 2), entryOf("X-Debug", "on", false, 3),
            entryOf("X-Url", "http://a:8080/x", true, 4), entryOf("X-Empty", "", true, 5)}));
    // A disabled entry is not a value.
    QCOMPARE(headers->value(QStringLiteral("X-Debug")), QString());
    QCOMPARE(headers->entry(QStringLiteral("X-Debug")), nullptr);
}

void TestBruFile::parse_textBlock_outdentsAndKeepsItsFirstLine()
{
    const Result<BruFile> file = BruFile::parse(QStringLiteral("script:post-response {\n"
                                                               "\n"
                                                               "  if (res.status === 200) {\n"
                                                               "    bru.setVar(\"id\", res.body.id);\n"
                                                               "\n"
                                                               "  }\n"
                                                               "  \n"
                                                               "}\n"
                                                               "docs {\n"
                                                               "}\n"),
        QStringLiteral("s.bru"));
    QVERIFY2(file.ok(), qPrintable(file.error()));
    const BruFile::Block *script = file->block(QStringLiteral("script:post-response"));
    // The indented "}" belongs to the script; leading and trailing blank lines go.
    QCOMPARE(script->text, QStringLiteral("if (res.status === 200) {\n  bru.setVar(\"id\", res.body.id);\n\n}"));
    QCOMPARE(script->textLine, 3);
    QCOMPARE(script->line, 1);
    QCOMPARE(file->block(QStringLiteral("docs"))->text, QString());
}

void TestBruFile::parse_multilineValue_isOutdented()
{
    const Result<BruFile> file = BruFile::parse(QStringLiteral("vars:pre-request {\n"
                                                               "  query: '''\n"
                                                               "    line one\n"
                                                               "      line two\n"
                                                               "  '''\n"
                                                               "  after: 1\n"
                                                               "}\n"),
        QStringLiteral("m.bru"));
    QVERIFY2(file.ok(), qPrintable(file.error()));
    const BruFile::Block *vars = file->block(QStringLiteral("vars:pre-request"));
    QCOMPARE(vars->value(QStringLiteral("query")), QStringLiteral("line one\n  line two"));
    QCOMPARE(vars->entry(QStringLiteral("after"))->line, 6);
}

void TestBruFile::parse_secretList_readsNames()
{
    const Result<BruFile> file = BruFile::parse(QStringLiteral("vars {\n"
                                                               "  baseUrl: http://127.0.0.1:8080\n"
                                                               "}\n"
                                                               "vars:secret [\n"
                                                               "  token,\n"
                                                               "  ~old, password\n"
                                                               "]\n"),
        QStringLiteral("environments/local.bru"));
    QVERIFY2(file.ok(), qPrintable(file.error()));
    const BruFile::Block *secrets = file->block(QStringLiteral("vars:secret"));
    QCOMPARE(secrets->shape, BruFile::Shape::List);
    QCOMPARE(secrets->entries,
        QList<BruFile::Entry>(
            {entryOf("token", "", true, 5), entryOf("old", "", false, 6), entryOf("password", "", true, 6)}));
}

void TestBruFile::parse_newerSyntax_annotationsQuotedKeysAndLists()
{
    const Result<BruFile> file = BruFile::parse(QStringLiteral("meta {\n"
                                                               "  name: a\n"
                                                               "  tags: [\n"
                                                               "    smoke\n"
                                                               "    regression\n"
                                                               "  ]\n"
                                                               "}\n"
                                                               "headers {\n"
                                                               "  @description('''one''')\n"
                                                               "  X-One: 1\n"
                                                               "  @description('''\n"
                                                               "    several: lines\n"
                                                               "  ''')\n"
                                                               "  ~\"X Two: b\": 2\n"
                                                               "  X-Three: '''inline'''\n"
                                                               "}\n"
                                                               "assert {\n"
                                                               "  res.body['a b']: eq 1\n"
                                                               "}\n"
                                                               "http {\n"
                                                               "  method: purge\n"
                                                               "}\n"),
        QStringLiteral("n.bru"));
    QVERIFY2(file.ok(), qPrintable(file.error()));
    QCOMPARE(file->block(QStringLiteral("meta"))->value(QStringLiteral("tags")), QStringLiteral("smoke\nregression"));
    QCOMPARE(file->block(QStringLiteral("headers"))->entries,
        QList<BruFile::Entry>({entryOf("X-One", "1", true, 10), entryOf("X Two: b", "2", false, 14),
            entryOf("X-Three", "inline", true, 15)}));
    QCOMPARE(file->block(QStringLiteral("assert"))->entries,
        QList<BruFile::Entry>({entryOf("res.body['a b']", "eq 1", true, 18)}));
    QCOMPARE(file->block(QStringLiteral("http"))->value(QStringLiteral("method")), QStringLiteral("purge"));
}

void TestBruFile::parse_emptyBlocksAndCrLf_areRead()
{
    const Result<BruFile> file = BruFile::parse(
        QStringLiteral("headers {}\r\nget {\r\n  url: http://x/\r\n}\r\nbody:text {\r\n  a\r\n  b\r\n}\r\n"),
        QStringLiteral("c.bru"));
    QVERIFY2(file.ok(), qPrintable(file.error()));
    QVERIFY(file->block(QStringLiteral("headers"))->entries.isEmpty());
    QCOMPARE(file->block(QStringLiteral("get"))->value(QStringLiteral("url")), QStringLiteral("http://x/"));
    QCOMPARE(file->block(QStringLiteral("body:text"))->text, QStringLiteral("a\nb"));
}

void TestBruFile::parse_refused_namesFileAndLine_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");
    QTest::addRow("unclosed text block") << QStringLiteral("meta {\n  name: a\n}\nbody:json {\n  {\n  }\n")
                                         << QStringLiteral("users/create.bru:4")
                                         << QStringLiteral("unclosed block body:json");
    QTest::addRow("unclosed dictionary") << QStringLiteral("get {\n  url: http://x\n")
                                         << QStringLiteral("users/create.bru:1")
                                         << QStringLiteral("unclosed block get");
    QTest::addRow("indented brace does not close a text block")
        << QStringLiteral("tests {\n  x();\n  }\n") << QStringLiteral("users/create.bru:1")
        << QStringLiteral("unclosed block tests");
    QTest::addRow("line outside any block")
        << QStringLiteral("get {\n  url: http://x\n}\nurl: http://y\n") << QStringLiteral("users/create.bru:4")
        << QStringLiteral("a line outside any block: \"url: http://y\"");
    QTest::addRow("unknown method block")
        << QStringLiteral("meta {\n  name: a\n}\n\nfetch {\n  url: http://x\n}\n")
        << QStringLiteral("users/create.bru:5") << QStringLiteral("unknown block \"fetch\"");
    QTest::addRow("bad key line") << QStringLiteral("headers {\n  Accept application/json\n}\n")
                                  << QStringLiteral("users/create.bru:2")
                                  << QStringLiteral(
                                         "expected \"name: value\" in block headers, not \"Accept application/json\"");
    QTest::addRow("key with a blank") << QStringLiteral("get {\n  url http://x\n}\n")
                                      << QStringLiteral("users/create.bru:2")
                                      << QStringLiteral("expected \"name: value\" in block get, not \"url http://x\"");
    QTest::addRow("empty key") << QStringLiteral("headers {\n  : x\n}\n") << QStringLiteral("users/create.bru:2")
                               << QStringLiteral("expected \"name: value\" in block headers, not \": x\"");
    QTest::addRow("list opened as a dictionary")
        << QStringLiteral("vars:secret {\n  a\n}\n") << QStringLiteral("users/create.bru:1")
        << QStringLiteral("block vars:secret opens with \"{\"; it takes \"[\"");
    QTest::addRow("unclosed list") << QStringLiteral("vars:secret [\n  a\n") << QStringLiteral("users/create.bru:1")
                                   << QStringLiteral("unclosed block vars:secret");
    QTest::addRow("unclosed multi-line value")
        << QStringLiteral("vars {\n  a: '''\n  x\n}\n") << QStringLiteral("users/create.bru:2")
        << QStringLiteral("unclosed ''' value of a in block vars");
}

void TestBruFile::parse_refused_namesFileAndLine()
{
    QFETCH(QString, text);
    QFETCH(QString, path);
    QFETCH(QString, message);
    const Result<BruFile> file = BruFile::parse(text, QStringLiteral("users/create.bru"));
    QVERIFY(!file.ok());
    QCOMPARE(file.errorDetail().path, path);
    QCOMPARE(file.errorDetail().message, message);
    QCOMPARE(file.error(), path + QStringLiteral(": ") + message);
}

QTEST_GUILESS_MAIN(TestBruFile)
#include "tst_brufile.moc"
