#pragma once

// What the proxy suites share: one request through a QNetworkAccessManager, and a
// program run to its end, waited for with the event loop running (the proxy runs on
// the test's thread).

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>
#include <QUrl>

namespace ProxyTesting {

struct Answer
{
    int status = 0;
    QByteArray body;
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QList<QNetworkReply::RawHeaderPair> headers;
    QByteArray retryAfter;
    qint64 elapsedMs = 0;
    int curlExit = -1; ///< curl only
};

/// Sends `method` (with `body` as JSON when there is one) and waits for the answer; an empty Answer when none came.
inline Answer fetch(QNetworkAccessManager &manager, const QUrl &url, int timeoutMs = 20'000,
    const QByteArray &method = "GET", const QByteArray &body = {})
{
    QNetworkRequest request(url);
    request.setTransferTimeout(timeoutMs);
    request.setRawHeader("User-Agent", "retrylab-proxy-tests");
    // Bodies here are JSON; a POST to a control port must say so even without one.
    if (!body.isEmpty() || method == "POST")
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    QElapsedTimer clock;
    clock.start();
    QNetworkReply *reply = manager.sendCustomRequest(request, method, body);
    QSignalSpy finished(reply, &QNetworkReply::finished);
    if (!reply->isFinished() && !finished.wait(timeoutMs + 20'000))
        return {};
    Answer a;
    a.elapsedMs = clock.elapsed();
    a.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    a.body = reply->readAll();
    a.error = reply->error();
    a.headers = reply->rawHeaderPairs();
    a.retryAfter = reply->rawHeader("Retry-After");
    reply->deleteLater();
    return a;
}

/// How a program of the suite's (curl, redis-cli, psql, python, node) ended.
struct Finished
{
    int exitCode = -1; ///< -1: it crashed or was killed
    QString out;
    QString err;
    qint64 ms = 0;
    bool timedOut = false;
};

/// Runs a program to its end while the event loop (and the proxy on this thread) goes on:
/// never a blocking wait. Killed after `timeoutMs`.
inline Finished runProgram(const QString &program, const QStringList &arguments,
    const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment(), int timeoutMs = 60'000)
{
    QProcess process;
    process.setProcessEnvironment(environment);
    QElapsedTimer clock;
    clock.start();
    process.start(program, arguments);
    Finished finished;
    if (!QTest::qWaitFor([&] { return process.state() == QProcess::NotRunning; }, timeoutMs)) {
        finished.timedOut = true;
        process.kill();
        (void)QTest::qWaitFor([&] { return process.state() == QProcess::NotRunning; }, 5000);
    }
    finished.ms = clock.elapsed();
    finished.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    finished.out = QString::fromUtf8(process.readAllStandardOutput());
    finished.err = QString::fromUtf8(process.readAllStandardError());
    return finished;
}

} // namespace ProxyTesting
