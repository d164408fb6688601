#include "core/policy/backoffpolicy.h"
#include "core/util/englishplurals.h"
#include "ui/import/curlimportdialog.h"

#include <QCheckBox>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTest>
#include <QTextBlock>

using namespace RetryLab;
using Ui::CurlImportDialog;

// The "Paste curl command" dialog: read as typed, errors placed by line and
// column, unknown and ignored options listed, the --retry flags previewed.
class TestCurlImportDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void empty_saysWhatToDo_andCannotImport();
    void documentationExamples_areReadAsTyped_data();
    void documentationExamples_areReadAsTyped();
    void malformed_namesLineAndColumn_andUnderlinesIt_data();
    void malformed_namesLineAndColumn_andUnderlinesIt();
    void unknownAndIgnoredOptions_areListed();
    void retryFlags_changeThePolicyPreview();
    void noRetryFlags_leaveThePolicyAlone();
    void credentials_maskedInThePreview_keptInTheRequest();
    void whatTheComposerCannotKeep_isSaidBeforeImporting();
};

void TestCurlImportDialog::initTestCase()
{
    Core::EnglishPlurals::install();
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
}

void TestCurlImportDialog::empty_saysWhatToDo_andCannotImport()
{
    CurlImportDialog dialog;
    QVERIFY(!dialog.canImport());
    QVERIFY(!dialog.importButton()->isEnabled());
    QVERIFY(dialog.errorText().contains(QLatin1String("Paste a curl command")));
    QVERIFY(!dialog.appliesPolicy());
}

void TestCurlImportDialog::documentationExamples_areReadAsTyped_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("firstLine"); // of the preview: method and URL
    QTest::addColumn<QString>("alsoShown"); // a header or body line of the preview
    // From curl's manual and "Everything curl".
    QTest::addRow("plain GET") << QStringLiteral("curl https://example.com")
                               << QStringLiteral("GET https://example.com") << QString();
    QTest::addRow("-d is a form POST") << QStringLiteral("curl -d \"name=curl\" https://example.com")
                                       << QStringLiteral("POST https://example.com")
                                       << QStringLiteral("Content-Type: application/x-www-form-urlencoded");
    QTest::addRow("-X PUT with JSON") << QStringLiteral(
        "curl -X PUT -H \"Content-Type: application/json\" -d '{\"tool\": \"curl\"}' "
        "https://example.com/api/1") << QStringLiteral("PUT https://example.com/api/1")
                                      << QStringLiteral("{\"tool\": \"curl\"}");
    QTest::addRow("-I is HEAD") << QStringLiteral("curl -I https://example.com/")
                                << QStringLiteral("HEAD https://example.com/") << QString();
    QTest::addRow("-G moves data to the query")
        << QStringLiteral("curl -G -d \"q=retry\" https://example.com/search")
        << QStringLiteral("GET https://example.com/search?q=retry") << QString();
    QTest::addRow("continued lines") << QStringLiteral("curl -X POST \\\n  -H 'Accept: application/json' \\\n"
                                                       "  --data-raw 'a=1' \\\n  https://example.com/x")
                                     << QStringLiteral("POST https://example.com/x")
                                     << QStringLiteral("Accept: application/json");
    QTest::addRow("user agent and referer")
        << QStringLiteral("curl -A \"Mozilla/5.0\" -e https://a.example/ "
                          "https://example.com/")
        << QStringLiteral("GET https://example.com/") << QStringLiteral("User-Agent: Mozilla/5.0");
}

void TestCurlImportDialog::documentationExamples_areReadAsTyped()
{
    QFETCH(QString, line);
    QFETCH(QString, firstLine);
    QFETCH(QString, alsoShown);
    CurlImportDialog dialog;
    // Typed, not set: the dialog reads at every keystroke.
    QTest::keyClicks(dialog.editor(), line.left(5));
    QVERIFY(!dialog.canImport()); // "curl ": no URL yet
    QVERIFY(dialog.errorText().contains(QLatin1String("URL")));
    const QStringList lines = line.mid(5).split(QLatin1Char('\n'));
    for (qsizetype i = 0; i < lines.size(); ++i) {
        if (i > 0)
            QTest::keyClick(dialog.editor(), Qt::Key_Return);
        QTest::keyClicks(dialog.editor(), lines.at(i));
    }
    QCOMPARE(dialog.commandLine(), line);
    QVERIFY2(dialog.canImport(), qPrintable(dialog.errorText()));
    QVERIFY(dialog.importButton()->isEnabled());
    QVERIFY(dialog.errorText().isEmpty());
    const QStringList preview = dialog.requestPreview().split(QLatin1Char('\n'));
    QCOMPARE(preview.first(), firstLine);
    if (!alsoShown.isEmpty())
        QVERIFY2(preview.contains(alsoShown), qPrintable(dialog.requestPreview()));
}

void TestCurlImportDialog::malformed_namesLineAndColumn_andUnderlinesIt_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("where");
    QTest::addColumn<int>("underlinedLine"); // 0-based block
    QTest::addColumn<int>("underlinedColumn"); // 0-based
    QTest::addRow("unbalanced quote") << QStringLiteral("curl -H 'X: y http://h") << QStringLiteral("column 9") << 0
                                      << 8;
    QTest::addRow("value missing") << QStringLiteral("curl http://h/ -H") << QStringLiteral("column 16") << 0 << 15;
    QTest::addRow("retry not a number") << QStringLiteral("curl --retry abc http://h/") << QStringLiteral("column 6")
                                        << 0 << 5;
    QTest::addRow("second line") << QStringLiteral("curl \\\n  -d 'abc") << QStringLiteral("line 2, column 6") << 1
                                 << 5;
}

void TestCurlImportDialog::malformed_namesLineAndColumn_andUnderlinesIt()
{
    QFETCH(QString, line);
    QFETCH(QString, where);
    QFETCH(int, underlinedLine);
    QFETCH(int, underlinedColumn);
    CurlImportDialog dialog;
    dialog.setCommandLine(line);
    QVERIFY(!dialog.canImport());
    QVERIFY(!dialog.importButton()->isEnabled());
    QCOMPARE(dialog.parsed().errorDetail().path, where);
    QVERIFY2(dialog.errorText().contains(where), qPrintable(dialog.errorText()));
    QVERIFY(dialog.requestPreview().isEmpty());
    const QList<QTextEdit::ExtraSelection> marks = dialog.editor()->extraSelections();
    QCOMPARE(marks.size(), 1);
    const QTextCursor mark = marks.first().cursor;
    QCOMPARE(mark.document()->findBlock(mark.selectionStart()).blockNumber(), underlinedLine);
    QCOMPARE(mark.selectionStart() - mark.document()->findBlockByNumber(underlinedLine).position(), underlinedColumn);
    QVERIFY(mark.hasSelection());
    QVERIFY2(dialog.errorText().startsWith(QStringLiteral("At ") + where), qPrintable(dialog.errorText()));
    // What the user typed stays as typed.
    QCOMPARE(dialog.commandLine(), line);

    // Fixed, the mark goes.
    dialog.setCommandLine(QStringLiteral("curl http://h/"));
    QVERIFY(dialog.canImport());
    QVERIFY(dialog.editor()->extraSelections().isEmpty());
}

void TestCurlImportDialog::unknownAndIgnoredOptions_areListed()
{
    CurlImportDialog dialog;
    dialog.setCommandLine(QStringLiteral("curl -s -o out.json --negotiate --ntlm --frobnicate https://example.com/"));
    QVERIFY2(dialog.canImport(), qPrintable(dialog.errorText()));
    const QString options = dialog.optionsText();
    const qsizetype notCarried = options.indexOf(QLatin1String("Not carried out"));
    const qsizetype ignored = options.indexOf(QLatin1String("Ignored"));
    QVERIFY2(notCarried >= 0 && ignored > notCarried, qPrintable(options));
    const QString unknownPart = options.mid(notCarried, ignored - notCarried);
    for (const char *option : {"--negotiate", "--ntlm", "--frobnicate"})
        QVERIFY2(unknownPart.contains(QLatin1String(option)), option);
    const QString ignoredPart = options.mid(ignored);
    for (const char *option : {"-s", "-o out.json"})
        QVERIFY2(ignoredPart.contains(QLatin1String(option)), option);
}

void TestCurlImportDialog::retryFlags_changeThePolicyPreview()
{
    CurlImportDialog dialog;
    Core::BackoffPolicy policy;
    policy.name = QStringLiteral("Mine");
    policy.maxAttempts = 4;
    dialog.setPolicy(policy);
    dialog.setCommandLine(
        QStringLiteral("curl --retry 7 --retry-delay 2 --retry-max-time 30 --retry-connrefused https://example.com/"));
    QVERIFY(dialog.canImport());
    QStringList fields;
    for (const auto &change : dialog.policyChanges())
        fields.append(change.field);
    QCOMPARE(fields,
        (QStringList{QStringLiteral("maxAttempts"), QStringLiteral("baseDelayMs"), QStringLiteral("deadlineMs"),
            QStringLiteral("classification.networkActions.connection-refused")}));
    QCOMPARE(dialog.policyAfter().maxAttempts, 8);
    QCOMPARE(dialog.policyAfter().baseDelayMs, 2000.0);
    QCOMPARE(dialog.policyAfter().deadlineMs, 30'000.0);
    const QString text = dialog.policyText();
    QVERIFY2(text.contains(QLatin1String("Mine")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("at most 8 attempts")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("--retry 7; now 4 attempts")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("--retry-connrefused")), qPrintable(text));

    // Only when asked.
    auto *apply = dialog.findChild<QCheckBox *>(QStringLiteral("curlApplyPolicy"));
    QVERIFY(apply->isEnabled());
    QVERIFY(!dialog.appliesPolicy());
    apply->click();
    QVERIFY(dialog.appliesPolicy());

    // The preview follows the text.
    dialog.setCommandLine(QStringLiteral("curl --retry 2 https://example.com/"));
    QCOMPARE(dialog.policyAfter().maxAttempts, 3);
    QCOMPARE(dialog.policyAfter().deadlineMs, policy.deadlineMs);
}

void TestCurlImportDialog::noRetryFlags_leaveThePolicyAlone()
{
    CurlImportDialog dialog;
    dialog.setAppliesPolicy(true);
    dialog.setCommandLine(QStringLiteral("curl https://example.com/"));
    QVERIFY(dialog.policyChanges().isEmpty());
    QVERIFY(!dialog.appliesPolicy());
    QVERIFY(dialog.policyText().contains(QLatin1String("policy stays as it is")));
}

void TestCurlImportDialog::credentials_maskedInThePreview_keptInTheRequest()
{
    CurlImportDialog dialog;
    dialog.setCommandLine(QStringLiteral(
        "curl -H 'Authorization: Bearer s3cr3t-token' -d 'password=hunter2' 'https://ann:pw@example.com/login'"));
    QVERIFY2(dialog.canImport(), qPrintable(dialog.errorText()));
    const QString preview = dialog.requestPreview();
    for (const char *secret : {"s3cr3t-token", "hunter2", ":pw@"})
        QVERIFY2(!preview.contains(QLatin1String(secret)), qPrintable(preview));
    QVERIFY(preview.contains(QLatin1String("REDACTED")));
    QVERIFY(dialog.parsed()->spec.headers.contains({QByteArrayLiteral("Authorization"), "Bearer s3cr3t-token"}));
}

void TestCurlImportDialog::whatTheComposerCannotKeep_isSaidBeforeImporting()
{
    CurlImportDialog dialog;
    // TLS, proxy and HTTP version come along; -k does not.
    dialog.setCommandLine(QStringLiteral("curl --http2 -x http://proxy.example:3128 https://example.com/"));
    QVERIFY2(dialog.canImport(), qPrintable(dialog.errorText()));
    QVERIFY2(!dialog.optionsText().contains(QLatin1String("Not kept")), qPrintable(dialog.optionsText()));
    dialog.setCommandLine(QStringLiteral("curl -k --http2 https://example.com/"));
    QVERIFY2(
        dialog.optionsText().contains(QLatin1String("Not kept in the composer")), qPrintable(dialog.optionsText()));
    QVERIFY2(dialog.optionsText().contains(QLatin1String("ignores certificate errors for example.com")),
        qPrintable(dialog.optionsText()));
    dialog.setCommandLine(QStringLiteral("curl https://example.com/"));
    QVERIFY(!dialog.optionsText().contains(QLatin1String("Not kept")));
}

QTEST_MAIN(TestCurlImportDialog)
#include "tst_curlimportdialog.moc"
