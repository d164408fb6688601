#pragma once

// Suites that need a screen of a given size: the offscreen platform's is 800×600 unless a
// configuration file says otherwise, and it is read when the application starts. Call
// before constructing the QApplication; `dir` must outlive it.

#include <QByteArray>
#include <QFile>
#include <QSize>
#include <QString>
#include <QTemporaryDir>

inline bool useOffscreenScreen(QSize size, const QTemporaryDir &dir)
{
    const QString config = dir.filePath(QStringLiteral("screen.json"));
    QFile file(config);
    if (!dir.isValid() || !file.open(QIODevice::WriteOnly))
        return false;
    file.write(QStringLiteral(R"({"screens": [{"name": "screen", "x": 0, "y": 0, "width": %1, "height": %2,
        "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})")
                   .arg(size.width())
                   .arg(size.height())
                   .toUtf8());
    file.close();
    qputenv("QT_QPA_PLATFORM", QByteArray("offscreen:configfile=") + QFile::encodeName(config));
    return true;
}

// QTEST_MAIN with a screen of `size`.
#define RETRYLAB_TEST_MAIN_WITH_SCREEN(TestObject, size)                                                               \
    int main(int argc, char *argv[])                                                                                   \
    {                                                                                                                  \
        QTemporaryDir screenDir;                                                                                       \
        if (!useOffscreenScreen(size, screenDir))                                                                      \
            return 1;                                                                                                  \
        QApplication app(argc, argv);                                                                                  \
        app.setAttribute(Qt::AA_Use96Dpi, true);                                                                       \
        TestObject tc;                                                                                                 \
        QTEST_SET_MAIN_SOURCE_PATH                                                                                     \
        return QTest::qExec(&tc, argc, argv);                                                                          \
    }
