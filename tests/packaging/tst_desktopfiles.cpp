#include "tests/tools/requiredtool.h"

#include <QDir>
#include <QFile>
#include <QMimeDatabase>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

// What the retrylab package tells the desktop (packaging/): the desktop entry as
// desktop-file-validate sees it, the AppStream metainfo as appstreamcli validate
// --pedantic does, and the MIME types of RetryLab's files as a file manager knows
// them: shared-mime-info's database made with update-mime-database from our
// definitions, asked through QMimeDatabase about files RetryLab wrote.
class TestDesktopFiles : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void desktopEntry_passesDesktopFileValidate();
    void desktopEntry_hasTheActionsAndEveryMimeType();
    void metainfo_passesAppstreamcliPedantic();
    void metainfo_namesTheDesktopEntryTypesAndThisVersion();
    void mimeTypes_recogniseEachFile_data();
    void mimeTypes_recogniseEachFile();

private:
    QTemporaryDir m_dir;
    QStringList m_mimeTypes; ///< as packaging/retrylab-mime.xml defines them
};

namespace {

const QString packaging = QStringLiteral(RETRYLAB_SOURCE_DIR "/packaging");
const QString desktopEntry = packaging + QStringLiteral("/io.github.retrylab.retrylab.desktop");
const QString metainfo = packaging + QStringLiteral("/io.github.retrylab.retrylab.metainfo.xml");
const QString observationType = QStringLiteral("application/vnd.retrylab.observation+json");

struct Run
{
    int exitCode = -1;
    QString output; ///< standard output and error together
};

Run runTool(const QString &program, const QStringList &arguments)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, arguments);
    if (!process.waitForFinished(120000))
        return {};
    return {
        process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, QString::fromUtf8(process.readAll())};
}

QString readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

} // namespace

void TestDesktopFiles::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QFile xml(packaging + QStringLiteral("/retrylab-mime.xml"));
    QVERIFY(xml.open(QIODevice::ReadOnly));
    QXmlStreamReader reader(&xml);
    while (!reader.atEnd()) {
        reader.readNext();
        if (reader.isStartElement() && reader.name() == QLatin1String("mime-type"))
            m_mimeTypes.append(reader.attributes().value(QLatin1String("type")).toString());
    }
    QVERIFY2(!reader.hasError(), qPrintable(reader.errorString()));
    QCOMPARE(m_mimeTypes.size(), 7);

    // A shared-mime-info database of our definitions over the system's, for QMimeDatabase
    // (which reads it at its first use, after this).
    const QString share = m_dir.filePath(QStringLiteral("share"));
    QVERIFY(QDir().mkpath(share + QStringLiteral("/mime/packages")));
    QVERIFY(QFile::copy(xml.fileName(), share + QStringLiteral("/mime/packages/retrylab.xml")));
    qputenv("XDG_DATA_HOME", share.toUtf8());
    qputenv("XDG_DATA_DIRS", "/usr/local/share:/usr/share");
    if (QStandardPaths::findExecutable(QStringLiteral("update-mime-database")).isEmpty())
        return; // mimeTypes_recogniseEachFile says so
    const Run update = runTool(QStringLiteral("update-mime-database"), {share + QStringLiteral("/mime")});
    QVERIFY2(update.exitCode == 0 && update.output.trimmed().isEmpty(), qPrintable(update.output));
}

void TestDesktopFiles::desktopEntry_passesDesktopFileValidate()
{
    if (QStandardPaths::findExecutable(QStringLiteral("desktop-file-validate")).isEmpty())
        RETRYLAB_MISSING_TOOL("desktop-file-validate is missing (Debian package desktop-file-utils)");
    const Run run = runTool(QStringLiteral("desktop-file-validate"), {desktopEntry});
    QCOMPARE(run.exitCode, 0);
    // Hints too: a silent run is the only pass.
    QVERIFY2(run.output.trimmed().isEmpty(), qPrintable(run.output));
}

void TestDesktopFiles::desktopEntry_hasTheActionsAndEveryMimeType()
{
    const QString text = readAll(desktopEntry);
    QVERIFY(text.contains(QLatin1String("\nActions=new-request;open-run;monitors;\n")));
    for (const char *action : {"new-request", "open-run", "monitors"}) {
        const QString group = QStringLiteral("[Desktop Action %1]\n").arg(QLatin1String(action));
        QVERIFY2(text.contains(group + QStringLiteral("Name=")), action);
        QVERIFY2(text.contains(QStringLiteral("Exec=retrylab --%1\n").arg(QLatin1String(action))), action);
    }
    // Files open in the window: a list of them goes on the command line.
    QVERIFY(text.contains(QLatin1String("\nExec=retrylab %F\n")));
    const QRegularExpression mimeLine(QStringLiteral(R"(\nMimeType=([^\n]*)\n)"));
    const QStringList listed = mimeLine.match(text).captured(1).split(QLatin1Char(';'), Qt::SkipEmptyParts);
    // Every type the window opens; an observation report it does not show (FileOpener).
    for (const QString &type : std::as_const(m_mimeTypes)) {
        if (type == observationType)
            QVERIFY(!listed.contains(type));
        else
            QVERIFY2(listed.contains(type), qPrintable(type));
    }
}

void TestDesktopFiles::metainfo_passesAppstreamcliPedantic()
{
    if (QStandardPaths::findExecutable(QStringLiteral("appstreamcli")).isEmpty())
        RETRYLAB_MISSING_TOOL("appstreamcli is missing (Debian package appstream)");
    // --no-net: the suites reach no server but their own; the URLs are not fetched.
    const Run run = runTool(QStringLiteral("appstreamcli"),
        {QStringLiteral("validate"), QStringLiteral("--pedantic"), QStringLiteral("--no-net"), metainfo});
    QCOMPARE(run.exitCode, 0);
    // Not even a pedantic note or an info: the only line is the verdict.
    const QStringList lines = run.output.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY2(lines.size() == 1 && lines.first().contains(QLatin1String("Validation was successful")),
        qPrintable(run.output));
}

void TestDesktopFiles::metainfo_namesTheDesktopEntryTypesAndThisVersion()
{
    const QString text = readAll(metainfo);
    QVERIFY(text.contains(QLatin1String("<id>io.github.retrylab.retrylab</id>")));
    QVERIFY(text.contains(
        QLatin1String("<launchable type=\"desktop-id\">io.github.retrylab.retrylab.desktop</launchable>")));
    for (const QString &type : std::as_const(m_mimeTypes)) {
        if (type != QLatin1String("application/vnd.retrylab+json") && type != observationType)
            QVERIFY2(text.contains(QStringLiteral("<mediatype>%1</mediatype>").arg(type)), qPrintable(type));
    }
    // The newest release is this version: a release without its entry is caught here.
    const QRegularExpression release(QStringLiteral(R"re(<release version="([^"]+)")re"));
    QCOMPARE(release.match(text).captured(1), QStringLiteral(RETRYLAB_VERSION_TEXT));
}

void TestDesktopFiles::mimeTypes_recogniseEachFile_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("type");
    const QByteArray scenario
        = readAll(QStringLiteral(RETRYLAB_SOURCE_DIR "/resources/scenarios/flaky-service.json")).toUtf8();
    const QByteArray policy = readAll(QStringLiteral(RETRYLAB_SOURCE_DIR "/resources/presets/iam.json")).toUtf8();
    QTest::addRow("a scenario") << "flaky.retrylab.json" << scenario << "application/vnd.retrylab.scenario+json";
    QTest::addRow("a scenario without an extension")
        << "flaky-service" << scenario << "application/vnd.retrylab.scenario+json";
    QTest::addRow("a policy") << "iam.retrylab.json" << policy << "application/vnd.retrylab.policy+json";
    QTest::addRow("a policy without an extension") << "iam" << policy << "application/vnd.retrylab.policy+json";
    QTest::addRow("a monitors file") << "watch.retrylab.json"
                                     << QByteArray("{\n  \"format\": \"retrylab-monitors\",\n  \"version\": 1,\n"
                                                   "  \"monitors\": []\n}\n")
                                     << "application/vnd.retrylab.monitors+json";
    QTest::addRow("a collection") << "shop.retrylab.json"
                                  << QByteArray("{\n    \"formatVersion\": 1,\n    \"items\": [\n    ],\n"
                                                "    \"name\": \"shop\"\n}\n")
                                  << "application/vnd.retrylab.collection+json";
    QTest::addRow("an observation report") << "observed.retrylab.json"
                                           << QByteArray("{\n    \"clients\": [\n    ],\n    \"format\": "
                                                         "\"retrylab-observation\",\n    \"version\": 1\n}\n")
                                           << "application/vnd.retrylab.observation+json";
    QTest::addRow("any file of the double extension")
        << "other.retrylab.json" << QByteArray("{\"a\": 1}\n") << "application/vnd.retrylab+json";
    QTest::addRow("other JSON") << "other.json" << QByteArray("{\"format\": \"something-else\"}\n")
                                << "application/json";
    // shared-mime-info's rule: one glob that matches alone is not second-guessed by content.
    QTest::addRow("a scenario named .json alone") << "flaky.json" << scenario << "application/json";

    // A report as retrylab run writes it, its attempts first.
    const QString report = m_dir.filePath(QStringLiteral("written-report.json"));
    runTool(QStringLiteral(RETRYLAB_CLI_BINARY),
        {QStringLiteral("run"), QStringLiteral(":/scenarios/flaky-service.json"), QStringLiteral("-q"),
            QStringLiteral("--report"), report});
    QFile file(report);
    const QByteArray written = file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    QTest::addRow("a run report retrylab wrote")
        << "run.retrylab.json" << written << "application/vnd.retrylab.report+json";
    QTest::addRow("a run report without an extension")
        << "run-report" << written << "application/vnd.retrylab.report+json";
}

void TestDesktopFiles::mimeTypes_recogniseEachFile()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, content);
    QFETCH(QString, type);
    if (QStandardPaths::findExecutable(QStringLiteral("update-mime-database")).isEmpty())
        RETRYLAB_MISSING_TOOL("update-mime-database is missing (Debian package shared-mime-info)");
    QVERIFY(!content.isEmpty());
    const QString path = m_dir.filePath(name);
    QVERIFY(writeFile(path, content));
    const QMimeDatabase database;
    QCOMPARE(database.mimeTypeForFile(path).name(), type);
}

QTEST_GUILESS_MAIN(TestDesktopFiles)
#include "tst_desktopfiles.moc"
