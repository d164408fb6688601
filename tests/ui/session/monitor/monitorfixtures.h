#pragma once

#include "core/monitor/monitorsfile.h"
#include "ui/session/monitor/historyreader.h"

#include <QByteArray>
#include <QSignalSpy>
#include <QTest>
#include <QUrl>

#include <functional>
#include <optional>

namespace RetryLab::Testing {

/// A monitor as a monitors file entry gives it; {{server}} is `server`.
inline Core::Monitor monitorOf(const QUrl &server, const QByteArray &entry)
{
    const QByteArray json = R"({"format": "retrylab-monitors", "version": 1, "environments": [{"name": "test",
        "variables": [{"name": "server", "value": ")"
        + server.toString().toUtf8() + R"("}]}], "environment": "test", "monitors": [)" + entry + "]}";
    const auto read = Core::MonitorsFileReader::fromJson(json);
    if (!read)
        qFatal("%s", qPrintable(read.error()));
    return read->monitors.constFirst();
}

/// Asks `reader` through `request` (which makes the request and returns its id)
/// and waits for the answer carried by `signal`: its payload, or nothing (and
/// `error` set) when the read failed or no answer came in time.
template<typename T>
std::optional<T> askReader(Ui::HistoryReader &reader, void (Ui::HistoryReader::*signal)(quint64, const T &),
    const std::function<quint64()> &request, QString *error = nullptr)
{
    QSignalSpy answers(&reader, signal);
    QSignalSpy failures(&reader, &Ui::HistoryReader::readFailed);
    const quint64 id = request();
    std::optional<T> answer;
    QString failure = QStringLiteral("no answer in time");
    const bool came = QTest::qWaitFor(
        [&] {
            for (const QList<QVariant> &args : std::as_const(answers)) {
                if (args.at(0).toULongLong() == id) {
                    answer = args.at(1).value<T>();
                    return true;
                }
            }
            for (const QList<QVariant> &args : std::as_const(failures)) {
                if (args.at(0).toULongLong() == id) {
                    failure = args.at(1).toString();
                    return true;
                }
            }
            return false;
        },
        20'000);
    if (!came)
        failure = QStringLiteral("no answer in time");
    if (!answer && error)
        *error = failure;
    return answer;
}

} // namespace RetryLab::Testing
