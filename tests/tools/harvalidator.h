#pragma once

// Runs tests/tools/validate-har.js, with the har-validator npm package that the
// node_tools CTest fixture installs, on HAR files. Shared by the HAR export suite
// and the command-line suites; they define RETRYLAB_HAR_VALIDATOR_SCRIPT and
// RETRYLAB_NODE_TOOLS_DIR (tests/CMakeLists.txt).

#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QString>
#include <QStringList>

namespace HarValidator {

struct Run
{
    bool skipped = false; ///< no node on this machine
    int exitCode = -1; ///< 0 every file valid, 1 one invalid, 3 the validator is not installed; -1 crashed
    QString output;
};

inline Run validate(const QStringList &files)
{
    Run result;
    const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
    if (node.isEmpty()) {
        result.skipped = true;
        return result;
    }
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("NODE_PATH"), QStringLiteral(RETRYLAB_NODE_TOOLS_DIR "/node_modules"));
    process.setProcessEnvironment(env);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(node, QStringList{QStringLiteral(RETRYLAB_HAR_VALIDATOR_SCRIPT)} + files);
    if (!process.waitForFinished(120'000)) {
        process.kill();
        process.waitForFinished();
        result.output = QStringLiteral("node did not finish: ") + process.errorString();
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.output = QString::fromUtf8(process.readAll());
    return result;
}

} // namespace HarValidator
