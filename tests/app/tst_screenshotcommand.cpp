#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestScreenshotCommand final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void screenshot_writesANonEmptyPngPerTab();
    void screenshot_smallScreens_nothingExceedsTheSizeAsked_data();
    void screenshot_smallScreens_nothingExceedsTheSizeAsked();
    void screenshot_unwritableFolder_failsWithAMessage();
    void screenshot_withoutOut_isAUsageError();

private:
    static QProcessEnvironment environment()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("retrylab.*.debug=false"));
        return env;
    }
    static int run(const QStringList &arguments, QByteArray *out, QByteArray *err, int timeoutMs = 120'000,
        const QString &scale = {})
    {
        QProcess process;
        QProcessEnvironment env = environment();
        if (!scale.isEmpty())
            env.insert(QStringLiteral("QT_SCALE_FACTOR"), scale);
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(RETRYLAB_BINARY), arguments);
        if (!process.waitForFinished(timeoutMs)) {
            process.kill();
            process.waitForFinished();
            return -1;
        }
        *out = process.readAllStandardOutput();
        *err = process.readAllStandardError();
        return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    }
};

void TestScreenshotCommand::screenshot_writesANonEmptyPngPerTab()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath(QStringLiteral("shots/new"));
    QByteArray stdOut;
    QByteArray stdErr;
    const int code = run({QStringLiteral("screenshot"), QStringLiteral("--out"), out}, &stdOut, &stdErr);
    QVERIFY2(code == 0, stdErr.constData());
    for (const QString &name :
        {QStringLiteral("timeline.png"), QStringLiteral("errorlog.png"), QStringLiteral("statistics.png"),
            QStringLiteral("server.png"), QStringLiteral("conformance.png"), QStringLiteral("simulator.png"),
            QStringLiteral("policy.png"), QStringLiteral("inspector.png"), QStringLiteral("collections.png"),
            QStringLiteral("collection-run.png"), QStringLiteral("connection.png"), QStringLiteral("auth.png"),
            QStringLiteral("body.png"), QStringLiteral("readmodifywrite.png"), QStringLiteral("import-curl.png"),
            QStringLiteral("import-har.png"), QStringLiteral("import-postman.png"), QStringLiteral("openrun.png"),
            QStringLiteral("preferences.png"), QStringLiteral("clients.png"), QStringLiteral("proxy.png"),
            QStringLiteral("layers.png"), QStringLiteral("compare.png"), QStringLiteral("presentation.png"),
            QStringLiteral("monitors.png"), QStringLiteral("monitor-history.png"), QStringLiteral("incidents.png"),
            QStringLiteral("policy-export.png"), QStringLiteral("compare-hedging.png"), QStringLiteral("operation.png"),
            QStringLiteral("conformance-storage.png"), QStringLiteral("inspector-window.png"),
            QStringLiteral("batch-live.png"), QStringLiteral("clients-gave-up.png")}) {
        const QString path = QDir(out).filePath(name);
        QVERIFY2(QFile::exists(path), qPrintable(path));
        QVERIFY2(stdOut.contains(QDir::toNativeSeparators(path).toLocal8Bit()), stdOut.constData());
        QImage image;
        QVERIFY2(image.load(path, "PNG"), qPrintable(path));
        // The Preferences dialog is wide and short.
        const int least = name == QLatin1String("preferences.png") ? 200 : 300;
        QVERIFY2(image.width() >= 300 && image.height() >= least, qPrintable(name));
        // Not a blank picture: a real window has many colours.
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7) {
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        }
        QVERIFY2(colours.size() > 20, qPrintable(name));
        // The dock and the dialogs have sizes of their own.
        if (name != QLatin1String("policy.png") && name != QLatin1String("preferences.png")
            && name != QLatin1String("layers.png") && name != QLatin1String("compare.png")
            && name != QLatin1String("compare-hedging.png") && name != QLatin1String("policy-export.png")
            && name != QLatin1String("presentation.png") // full screen: the screen's size
            && !name.startsWith(QLatin1String("import-")))
            QCOMPARE(image.size(), QSize(1280, 800));
    }
    // The user's settings were not touched: the command leaves nothing behind in the folder either.
    QCOMPARE(QDir(out).entryList(QDir::Files).size(), 35); // 34 pictures and manifest.json
    QVERIFY(stdOut.contains("manifest.json"));
}

void TestScreenshotCommand::screenshot_smallScreens_nothingExceedsTheSizeAsked_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<QString>("scale");
    QTest::addRow("projector 1024x640") << QSize(1024, 640) << QString();
    QTest::addRow("1366x768 at 1.5x") << QSize(1366, 768) << QStringLiteral("1.5");
}

void TestScreenshotCommand::screenshot_smallScreens_nothingExceedsTheSizeAsked()
{
    QFETCH(QSize, size);
    QFETCH(QString, scale);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QByteArray stdOut;
    QByteArray stdErr;
    const int code = run({QStringLiteral("screenshot"), QStringLiteral("--out"), dir.path(), QStringLiteral("--size"),
                             QStringLiteral("%1x%2").arg(size.width()).arg(size.height())},
        &stdOut, &stdErr, 240'000, scale);
    QVERIFY2(code == 0, stdErr.constData());
    QFile file(QDir(dir.path()).filePath(QStringLiteral("manifest.json")));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject manifest = QJsonDocument::fromJson(file.readAll()).object();
    const auto sizeOf = [](const QJsonValue &value) {
        const QJsonArray pair = value.toArray();
        return QSize(pair.at(0).toInt(), pair.at(1).toInt());
    };
    QCOMPARE(sizeOf(manifest.value(QStringLiteral("size"))), size);
    const QJsonArray shots = manifest.value(QStringLiteral("shots")).toArray();
    QCOMPARE(shots.size(), QDir(dir.path()).entryList({QStringLiteral("*.png")}, QDir::Files).size());
    QStringList tooLarge;
    for (const QJsonValue &value : shots) {
        const QJsonObject shot = value.toObject();
        QVERIFY(QFile::exists(QDir(dir.path()).filePath(shot.value(QStringLiteral("file")).toString())));
        const QSize window = sizeOf(shot.value(QStringLiteral("windowSize")));
        const QSize minimum = sizeOf(shot.value(QStringLiteral("minimumSize")));
        QVERIFY(!window.isEmpty() && !minimum.isEmpty());
        // A pixel either way: a logical size times 1.5 rounds.
        const QSize slack = size + QSize(1, 1);
        if (window.width() > slack.width() || window.height() > slack.height() || minimum.width() > slack.width()
            || minimum.height() > slack.height())
            tooLarge.append(QStringLiteral("%1: window %2x%3, minimum %4x%5")
                                .arg(shot.value(QStringLiteral("file")).toString())
                                .arg(window.width())
                                .arg(window.height())
                                .arg(minimum.width())
                                .arg(minimum.height()));
    }
    QVERIFY2(tooLarge.isEmpty(), qPrintable(tooLarge.join(QLatin1Char('\n'))));
}

void TestScreenshotCommand::screenshot_unwritableFolder_failsWithAMessage()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = dir.filePath(QStringLiteral("a-file"));
    {
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
    }
    QByteArray stdOut;
    QByteArray stdErr;
    // A folder inside a regular file cannot be made.
    const int code = run({QStringLiteral("screenshot"), QStringLiteral("--out"), file + QStringLiteral("/shots")},
        &stdOut, &stdErr, 30'000);
    QCOMPARE(code, 1);
    QVERIFY2(stdErr.contains("cannot"), stdErr.constData());
    QVERIFY(stdErr.contains("a-file"));
}

void TestScreenshotCommand::screenshot_withoutOut_isAUsageError()
{
    QByteArray stdOut;
    QByteArray stdErr;
    QCOMPARE(run({QStringLiteral("screenshot")}, &stdOut, &stdErr, 30'000), 2);
    QVERIFY2(stdErr.contains("--out"), stdErr.constData());
    QCOMPARE(run({QStringLiteral("screenshot"), QStringLiteral("--help")}, &stdOut, &stdErr, 30'000), 0);
    QVERIFY(stdOut.contains("--dark"));
}

QTEST_GUILESS_MAIN(TestScreenshotCommand)
#include "tst_screenshotcommand.moc"
