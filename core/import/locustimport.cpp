#include "core/import/locustimport.h"

#include "core/util/boundedfile.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"
#include "core/util/jsonreader.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace RetryLab::Core::LocustImport {

namespace {

constexpr char formatName[] = "retrylab-locust-attempts";

/// One attempt line, with the worker clock it is measured on.
struct Line
{
    QString request;
    QString entry;
    QString step; ///< "read" or "write" for a read-modify-write
    int fallback = 0; ///< 0: the request's URL; n: its n-th fallback
    int attempt = 0;
    QByteArray method;
    QUrl url;
    double startWallMs = 0.0; ///< the worker's wall clock at its start plus its monotonic time since
    double endWallMs = 0.0;
    double plannedDelayMs = 0.0;
    double actualDelayMs = 0.0;
    std::optional<int> status;
    QString fault;
    QString decision;
    QString cause;
    QString reason;
    double nextDelayMs = -1.0;
    QString outcome;
};

struct Worker
{
    QString name;
    double startUnixMs = 0.0;
    qint64 startMonoNs = 0;
};

Classification::Decision decisionOf(const QString &name)
{
    if (name == QLatin1String("success"))
        return Classification::Decision::Success;
    if (name == QLatin1String("retry"))
        return Classification::Decision::RetryAfterDelay;
    if (name == QLatin1String("retry-immediately"))
        return Classification::Decision::RetryImmediately;
    return Classification::Decision::GiveUp;
}

// A log line is a few hundred bytes: a million attempts fit.
constexpr qint64 maxLogBytes = qint64(512) * 1024 * 1024;

QStringList filesOf(const QStringList &paths, QString *error)
{
    QStringList files;
    for (const QString &path : paths) {
        const QFileInfo info(path);
        if (info.isDir()) {
            const QDir dir(path);
            const QStringList found = dir.entryList({QStringLiteral("*.jsonl")}, QDir::Files, QDir::Name);
            if (found.isEmpty()) {
                *error = Tr::tr("%1: no attempt logs (*.jsonl) in this folder").arg(QDir::toNativeSeparators(path));
                return {};
            }
            for (const QString &name : found)
                files.append(dir.filePath(name));
        } else if (info.isFile()) {
            if (info.size() > maxLogBytes) {
                *error = Tr::tr("%1 is larger than %2, the most an attempt log may be")
                             .arg(QDir::toNativeSeparators(path), BoundedFile::sizeText(maxLogBytes));
                return {};
            }
            files.append(path);
        } else if (info.exists()) {
            // A FIFO would block the import until somebody writes; a device may never end.
            *error = BoundedFile::notARegularFile(path);
            return {};
        } else {
            *error = Tr::tr("%1: no such file or folder").arg(QDir::toNativeSeparators(path));
            return {};
        }
    }
    return files;
}

} // namespace

Result<Imported> read(const QStringList &paths)
{
    using R = Result<Imported>;
    QString error;
    const QStringList files = filesOf(paths, &error);
    if (!error.isEmpty())
        return R::failure(error);
    if (files.isEmpty())
        return R::failure(Tr::tr("no attempt logs given"));

    Imported imported;
    QList<Worker> workers;
    QList<Line> lines;
    for (const QString &path : files) {
        const QString shown = QDir::toNativeSeparators(path);
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return R::failure(Tr::tr("cannot read %1: %2").arg(shown, file.errorString()));
        Worker worker;
        int number = 0;
        while (!file.atEnd()) {
            const QByteArray raw = file.readLine(16 * 1024 * 1024);
            ++number;
            const QString where = Tr::tr("%1:%2").arg(shown).arg(number);
            if (!raw.endsWith('\n'))
                return R::failure(Tr::tr("%1: the line is cut short (the log ends inside it)").arg(where));
            if (raw.trimmed().isEmpty())
                continue;
            QJsonParseError parseError;
            const QJsonDocument document = QJsonDocument::fromJson(raw, &parseError);
            if (parseError.error != QJsonParseError::NoError || !document.isObject())
                return R::failure(Tr::tr("%1: not a JSON object: %2").arg(where, parseError.errorString()));
            JsonReader r(document.object());
            if (number == 1) {
                const QString format = r.string(QStringLiteral("format"), Presence::Required).value_or(QString());
                const auto version = r.integer(QStringLiteral("version"), 1, 1000, Presence::Required);
                if (!r.failed() && format != QLatin1String(formatName)) {
                    return R::failure(
                        Tr::tr("%1: not an attempt log of a RetryLab Locust file (format \"%2\")").arg(where, format));
                }
                if (!r.failed() && *version != 1)
                    return R::failure(
                        Tr::tr("%1: version %2 is not supported (this build reads 1)").arg(where).arg(*version));
                const QString run = r.string(QStringLiteral("run"), Presence::Required).value_or(QString());
                worker.name = r.string(QStringLiteral("worker"), Presence::Required).value_or(QString());
                worker.startUnixMs
                    = r.number(QStringLiteral("startUnixMs"), 0.0, 1e15, Presence::Required).value_or(0.0);
                worker.startMonoNs = r.integer(QStringLiteral("startMonoNs"), 0, std::numeric_limits<qint64>::max(),
                                          Presence::Required)
                                         .value_or(0);
                if (r.failed())
                    return R::failure(Tr::tr("%1: %2").arg(where, r.firstError().text()));
                if (imported.runId.isEmpty()) {
                    imported.runId = run;
                } else if (run != imported.runId) {
                    return R::failure(
                        Tr::tr("%1: the log of run %2, not of run %3 as the others").arg(where, run, imported.runId));
                }
                workers.append(worker);
                continue;
            }
            Line line;
            const QString run = r.string(QStringLiteral("run"), Presence::Required).value_or(QString());
            line.request = r.string(QStringLiteral("request"), Presence::Required).value_or(QString());
            line.entry = r.string(QStringLiteral("entry")).value_or(QString());
            line.step = r.string(QStringLiteral("step")).value_or(QString());
            line.fallback = int(r.integer(QStringLiteral("fallback"), 0, 1000).value_or(0));
            line.attempt = int(r.integer(QStringLiteral("attempt"), 0, 1'000'000, Presence::Required).value_or(0));
            line.method = r.string(QStringLiteral("method")).value_or(QStringLiteral("GET")).toLatin1();
            line.url = QUrl(r.string(QStringLiteral("url")).value_or(QString()));
            const qint64 startNs
                = r.integer(QStringLiteral("startNs"), 0, std::numeric_limits<qint64>::max() / 2, Presence::Required)
                      .value_or(0);
            const qint64 endNs
                = r.integer(QStringLiteral("endNs"), 0, std::numeric_limits<qint64>::max() / 2, Presence::Required)
                      .value_or(0);
            line.plannedDelayMs = r.number(QStringLiteral("plannedDelayMs"), 0.0, 1e12).value_or(0.0);
            line.actualDelayMs = r.number(QStringLiteral("actualDelayMs"), 0.0, 1e12).value_or(0.0);
            if (!r.value(QStringLiteral("status")).isNull())
                line.status = int(r.integer(QStringLiteral("status"), 0, 999).value_or(0));
            if (!r.value(QStringLiteral("fault")).isNull())
                line.fault = r.string(QStringLiteral("fault")).value_or(QString());
            line.decision = r.string(QStringLiteral("decision"), Presence::Required).value_or(QString());
            line.cause = r.string(QStringLiteral("cause")).value_or(QString());
            line.reason = r.string(QStringLiteral("reason")).value_or(QString());
            line.nextDelayMs = r.number(QStringLiteral("nextDelayMs"), -1.0, 1e12).value_or(-1.0);
            if (!r.value(QStringLiteral("outcome")).isNull())
                line.outcome = r.string(QStringLiteral("outcome")).value_or(QString());
            if (r.failed())
                return R::failure(Tr::tr("%1: %2").arg(where, r.firstError().text()));
            if (run != imported.runId)
                return R::failure(
                    Tr::tr("%1: an attempt of run %2 in a log of run %3").arg(where, run, imported.runId));
            if (!line.outcome.isEmpty() && !requestOutcomeFromName(line.outcome))
                return R::failure(Tr::tr("%1: outcome: unknown outcome \"%2\"").arg(where, line.outcome));
            if (endNs < startNs)
                return R::failure(Tr::tr("%1: the attempt ends before it starts").arg(where));
            line.startWallMs = worker.startUnixMs + double(startNs) / 1e6;
            line.endWallMs = worker.startUnixMs + double(endNs) / 1e6;
            lines.append(line);
        }
        if (number == 0)
            return R::failure(Tr::tr("%1: empty").arg(shown));
    }

    // One time axis: the earliest worker's start is the run's.
    double epochMs = std::numeric_limits<double>::max();
    for (const Worker &w : std::as_const(workers))
        epochMs = std::min(epochMs, w.startUnixMs);
    for (const Worker &w : std::as_const(workers)) {
        imported.workers.append(w.name);
        imported.notes.append(Tr::tr("%1: its clock started %2 after the run's; its attempts are placed by its "
                                     "monotonic clock from there")
                                  .arg(w.name, DurationText::format(w.startUnixMs - epochMs)));
    }
    std::stable_sort(
        lines.begin(), lines.end(), [](const Line &a, const Line &b) { return a.startWallMs < b.startWallMs; });

    RunRecord &run = imported.run;
    run.startedAt = QDateTime::fromMSecsSinceEpoch(qint64(std::llround(epochMs)), Qt::UTC);
    run.epochNs = 0;
    QHash<QString, quint64> ids;
    QHash<quint64, RequestResult> results;
    const auto toNs = [epochMs](double wallMs) { return qint64(std::llround((wallMs - epochMs) * 1e6)); };
    for (const Line &line : std::as_const(lines)) {
        quint64 &id = ids[line.request];
        if (id == 0) {
            id = quint64(ids.size());
            RequestSpec spec;
            spec.method = line.method;
            spec.url = line.url;
            spec.label = line.request;
            if (!line.step.isEmpty())
                spec.kind = RequestSpec::Kind::ReadModifyWrite;
            run.requests.insert(id, spec);
            imported.entries.insert(id, line.entry);
        }
        AttemptRecord a;
        a.requestId = id;
        a.attemptIndex = line.attempt;
        a.step = line.step;
        a.fallback = line.fallback;
        a.method = line.method;
        a.url = line.url;
        a.startNs = toNs(line.startWallMs);
        a.endNs = toNs(line.endWallMs);
        a.finishedNs = a.endNs;
        a.startWall = run.wallTimeOf(a.startNs);
        a.plannedDelayMs = line.plannedDelayMs;
        a.actualDelayMs = line.actualDelayMs;
        a.httpStatus = line.status;
        a.end = line.status ? AttemptEnd::Response : AttemptEnd::NetworkError;
        a.errorString = line.fault;
        a.decision = decisionOf(line.decision);
        a.cause = line.cause;
        a.reason = line.reason;
        a.nextDelayMs = line.nextDelayMs;
        run.attempts.append(a);
        RequestResult &result = results[id];
        if (result.requestId == 0) {
            result.requestId = id;
            result.startNs = a.startNs;
        }
        result.attempts = std::max(result.attempts, line.attempt + 1);
        if (!line.outcome.isEmpty()) {
            result.outcome = *requestOutcomeFromName(line.outcome);
            result.reason = line.reason;
            result.finalStatus = line.status;
            result.fallback = line.fallback;
            result.endNs = a.endNs;
        }
    }
    for (quint64 id = 1; id <= quint64(ids.size()); ++id) {
        const RequestResult &result = results.value(id);
        if (result.endNs < 0)
            ++imported.unfinished;
        else
            run.results.append(result);
    }
    return imported;
}

} // namespace RetryLab::Core::LocustImport
