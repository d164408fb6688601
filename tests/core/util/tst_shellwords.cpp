#include "core/util/shellwords.h"
#include "tests/tools/placetext.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTest>

using namespace RetryLab::Core;

using RetryLab::Testing::indexOfPlace;

namespace {

// The arguments a shell hands to curl for a command line: a curl function
// prints each argument (base64, one per line).
struct Invocation
{
    QList<QByteArray> arguments;
    QString error;
};

Invocation runIn(const QString &shell, const QStringList &options, const QString &commandLine)
{
    Invocation result;
    const QString fakeCurl
        = QStringLiteral("curl() { for a in \"$@\"; do printf '%s' \"$a\" | base64 -w0; echo; done; }\n");
    QProcess process;
    process.start(shell, options + QStringList{QStringLiteral("-c"), fakeCurl + commandLine});
    process.closeWriteChannel();
    if (!process.waitForFinished(30'000) || process.exitCode() != 0) {
        result.error = QStringLiteral("%1 failed: %2 %3")
                           .arg(shell, process.errorString(), QString::fromUtf8(process.readAllStandardError()));
        return result;
    }
    QList<QByteArray> lines = process.readAllStandardOutput().split('\n');
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    for (const QByteArray &line : std::as_const(lines))
        result.arguments.append(QByteArray::fromBase64(line));
    return result;
}

Invocation runInBash(const QString &commandLine)
{
    return runIn(QStringLiteral("bash"), {QStringLiteral("--norc")}, commandLine);
}

// Words that a careless quoter gets wrong.
QStringList hostileWords()
{
    return {QStringLiteral("it's"), QStringLiteral("''"), QStringLiteral("'\\''"),
        QStringLiteral("$(id) `id` ${HOME} $HOME"), QStringLiteral("a\nb\r\nc"), QStringLiteral("tab\there"),
        QStringLiteral("\\n \\\\ \\'"), QStringLiteral("; rm -rf / #"), QStringLiteral("*?[a-z]"),
        QStringLiteral("Grüße 東京 🚀"), QStringLiteral("-X"), QStringLiteral("%s %d %%"), QStringLiteral("!bang"),
        QStringLiteral("~root"), QStringLiteral("{a,b}"), QStringLiteral("#x"), QStringLiteral("a=b"),
        QStringLiteral("--retry-delay"), QStringLiteral("user@host:/p,q+r"), QString()};
}

} // namespace

class TestShellWords : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void split_likeBash_data();
    void split_likeBash();
    void split_keepsExpansionsAndListsThem();
    void split_marksOperators();
    void split_unclosedQuote_namesItsPlace_data();
    void split_unclosedQuote_namesItsPlace();

    void quote_data();
    void quote();
    void quote_roundTripsThroughSplit_data();
    void quote_roundTripsThroughSplit();
    void quote_survivesTheShell_data();
    void quote_survivesTheShell();
};

// ---------------------------------------------------------------- splitting

void TestShellWords::split_likeBash_data()
{
    QTest::addColumn<QString>("line");
    QTest::addRow("plain") << QStringLiteral("curl -X POST http://h/a");
    QTest::addRow("single quotes") << QStringLiteral("curl -H 'X-A: b c' 'http://h/a b'");
    QTest::addRow("quote inside single quotes") << QStringLiteral("curl -d 'it'\\''s' http://h/");
    QTest::addRow("double quotes and escapes") << QStringLiteral(R"(curl -d "a \"b\" \$c \\ \` \n d" h)");
    QTest::addRow("adjacent parts") << QStringLiteral(R"(curl a'b'"c"\ d'')");
    QTest::addRow("empty arguments") << QStringLiteral("curl '' \"\" h");
    QTest::addRow("backslash escapes") << QStringLiteral(R"(curl a\ b \'x\' \\ \")");
    QTest::addRow("line continuations") << QStringLiteral("curl -X POST \\\n  -H 'A: b' \\\n  http://h/");
    QTest::addRow("continuation inside double quotes") << QStringLiteral("curl \"a\\\nb\" h");
    QTest::addRow("ansi-c quoting") << QStringLiteral(
        R"(curl $'a\nb\tc\x41\101\u00e9\U0001F680\'q\'\\ \e\a\c@\?\"' h)");
    QTest::addRow("ansi-c unknown escape kept") << QStringLiteral(R"(curl $'\z\q' h)");
    QTest::addRow("comment") << QStringLiteral("curl http://h/ # the end 'unclosed");
    QTest::addRow("hash inside a word") << QStringLiteral("curl http://h/#frag a#b");
    QTest::addRow("unicode") << QStringLiteral("curl -d 'Grüße 東京 🚀' h");
    QTest::addRow("tabs and runs of blanks") << QStringLiteral("curl\t-s \t  h");
    QTest::addRow("dollar alone") << QStringLiteral("curl -d 'a$' -d a$ -d \"$\" h");
    QTest::addRow("json body") << QStringLiteral(R"(curl --json '{ "drink": "coffe" }' https://example.com)");
    QTest::addRow("firefox posix style") << QStringLiteral(
        "curl 'https://example.com/api' -X POST -H 'Accept: */*' --data-raw $'{\"a\":\"\\u00e9\"}'");
}

void TestShellWords::split_likeBash()
{
    QFETCH(QString, line);
    const Invocation bash = runInBash(line);
    QVERIFY2(bash.error.isEmpty(), qPrintable(bash.error));
    const auto split = ShellWords::split(line);
    QVERIFY2(split, qPrintable(split.error()));
    QList<QByteArray> words;
    for (const ShellWords::Word &w : split->words) {
        QVERIFY2(!w.isOperator, w.text.constData());
        words.append(w.text);
    }
    QCOMPARE(words.value(0), QByteArray("curl"));
    QCOMPARE(words.mid(1), bash.arguments);
}

void TestShellWords::split_keepsExpansionsAndListsThem()
{
    const auto split = ShellWords::split(
        QStringLiteral(R"x(curl -H "Authorization: Bearer $TOKEN" -d ${BODY} "$(date +%s)" `id -u` '$NOT')x"));
    QVERIFY2(split, qPrintable(split.error()));
    QCOMPARE(split->words.size(), 8);
    QCOMPARE(split->words[7].text, QByteArray("$NOT"));
    QCOMPARE(split->words[2].text, QByteArray("Authorization: Bearer $TOKEN"));
    QCOMPARE(split->words[4].text, QByteArray("${BODY}"));
    QCOMPARE(split->words[5].text, QByteArray("$(date +%s)"));
    QCOMPARE(split->words[6].text, QByteArray("`id -u`"));
    QCOMPARE(split->expansions,
        (QStringList{QStringLiteral("$TOKEN"), QStringLiteral("${BODY}"), QStringLiteral("$(date +%s)"),
            QStringLiteral("`id -u`")}));
}

void TestShellWords::split_marksOperators()
{
    const auto split = ShellWords::split(QStringLiteral("printf 'x' | curl -d @- h > out.txt 2>&1; echo '|'"));
    QVERIFY2(split, qPrintable(split.error()));
    QStringList shown;
    for (const ShellWords::Word &w : split->words)
        shown.append(w.isOperator ? QStringLiteral("<%1>").arg(QString::fromUtf8(w.text)) : QString::fromUtf8(w.text));
    QCOMPARE(shown,
        (QStringList{QStringLiteral("printf"), QStringLiteral("x"), QStringLiteral("<|>"), QStringLiteral("curl"),
            QStringLiteral("-d"), QStringLiteral("@-"), QStringLiteral("h"), QStringLiteral("<>>"),
            QStringLiteral("out.txt"), QStringLiteral("<2>&>"), QStringLiteral("1"), QStringLiteral("<;>"),
            QStringLiteral("echo"), QStringLiteral("|")}));
}

void TestShellWords::split_unclosedQuote_namesItsPlace_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("where");
    QTest::addColumn<QString>("what");
    QTest::addRow("single") << QStringLiteral("curl -H 'X: y http://h") << QStringLiteral("column 9")
                            << QStringLiteral("single quote");
    QTest::addRow("double") << QStringLiteral("curl -d \"a\\\" http://h") << QStringLiteral("column 9")
                            << QStringLiteral("double quote");
    QTest::addRow("ansi-c") << QStringLiteral("curl $'abc\\'") << QStringLiteral("column 6")
                            << QStringLiteral("$' quote");
    QTest::addRow("second line") << QStringLiteral("curl \\\n  -d 'abc") << QStringLiteral("line 2, column 6")
                                 << QStringLiteral("single quote");
    QTest::addRow("command substitution")
        << QStringLiteral("curl $(date") << QStringLiteral("column 6") << QStringLiteral("\"$(\"");
    QTest::addRow("backquote") << QStringLiteral("curl `id") << QStringLiteral("column 6")
                               << QStringLiteral("backquote");
}

void TestShellWords::split_unclosedQuote_namesItsPlace()
{
    QFETCH(QString, line);
    QFETCH(QString, where);
    QFETCH(QString, what);
    const auto split = ShellWords::split(line);
    QVERIFY(!split);
    QCOMPARE(split.errorDetail().path, where);
    QCOMPARE(split.errorDetail().offset, indexOfPlace(line, where));
    QVERIFY2(split.errorDetail().message.contains(what), qPrintable(split.error()));
}

// ---------------------------------------------------------------- quoting

void TestShellWords::quote_data()
{
    QTest::addColumn<QString>("word");
    QTest::addColumn<QString>("expected");
    QTest::addRow("safe") << QStringLiteral("--retry") << QStringLiteral("--retry");
    QTest::addRow("every safe character") << QStringLiteral("aZ09_@%+=:,./-") << QStringLiteral("aZ09_@%+=:,./-");
    QTest::addRow("number") << QStringLiteral("3") << QStringLiteral("3");
    QTest::addRow("url") << QStringLiteral("http://h:80/a,b.c?x=1") << QStringLiteral("'http://h:80/a,b.c?x=1'");
    QTest::addRow("space") << QStringLiteral("a b") << QStringLiteral("'a b'");
    QTest::addRow("quote") << QStringLiteral("it's") << QStringLiteral("'it'\\''s'");
    QTest::addRow("only a quote") << QStringLiteral("'") << QStringLiteral("''\\'''");
    QTest::addRow("empty") << QString() << QStringLiteral("''");
    QTest::addRow("dollar") << QStringLiteral("$HOME") << QStringLiteral("'$HOME'");
    QTest::addRow("tilde") << QStringLiteral("~") << QStringLiteral("'~'");
    QTest::addRow("hash") << QStringLiteral("#") << QStringLiteral("'#'");
    QTest::addRow("glob") << QStringLiteral("*") << QStringLiteral("'*'");
    QTest::addRow("braces") << QStringLiteral("{a,b}") << QStringLiteral("'{a,b}'");
    QTest::addRow("bang") << QStringLiteral("!") << QStringLiteral("'!'");
    QTest::addRow("backslash") << QStringLiteral("a\\b") << QStringLiteral("'a\\b'");
    QTest::addRow("line end") << QStringLiteral("a\nb") << QStringLiteral("'a\nb'");
    QTest::addRow("non-ascii letter") << QStringLiteral("Grüße") << QStringLiteral("'Grüße'");
}

void TestShellWords::quote()
{
    QFETCH(QString, word);
    QFETCH(QString, expected);
    QCOMPARE(ShellWords::quote(word), expected);
}

void TestShellWords::quote_roundTripsThroughSplit_data()
{
    QTest::addColumn<QString>("word");
    const QStringList words = hostileWords();
    for (qsizetype i = 0; i < words.size(); ++i)
        QTest::addRow("word %lld", qlonglong(i)) << words.at(i);
}

// Two quoted words in a row come back as the same two words, and nothing in
// them is taken for an expansion or an operator.
void TestShellWords::quote_roundTripsThroughSplit()
{
    QFETCH(QString, word);
    const QString line = QStringLiteral("curl ") + ShellWords::quote(word) + QLatin1Char(' ') + ShellWords::quote(word);
    const auto split = ShellWords::split(line);
    QVERIFY2(split, qPrintable(split.error()));
    QCOMPARE(split->words.size(), 3);
    for (const ShellWords::Word &w : split->words)
        QVERIFY(!w.isOperator);
    QCOMPARE(split->words[1].text, word.toUtf8());
    QCOMPARE(split->words[2].text, word.toUtf8());
    QVERIFY(split->expansions.isEmpty());
}

void TestShellWords::quote_survivesTheShell_data()
{
    quote_roundTripsThroughSplit_data();
}

// What quote() writes, sh and bash both hand over unchanged.
void TestShellWords::quote_survivesTheShell()
{
    QFETCH(QString, word);
    const QString line = QStringLiteral("curl ") + ShellWords::quote(word);
    for (const Invocation &call : {runIn(QStringLiteral("sh"), {}, line), runInBash(line)}) {
        QVERIFY2(call.error.isEmpty(), qPrintable(call.error));
        QCOMPARE(call.arguments, QList<QByteArray>{word.toUtf8()});
    }
}

QTEST_GUILESS_MAIN(TestShellWords)
#include "tst_shellwords.moc"
