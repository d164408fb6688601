#include "core/scenario/scenario.h"

#include "core/record/runrecord.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>
#include <QMap>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

namespace {

QString statusText(const std::optional<int> &status)
{
    return status ? QString::number(*status) : Tr::tr("none");
}

// At most this many individual misses are spelled out in one verdict.
constexpr int listedMisses = 5;

} // namespace

bool ScenarioRequest::usesServer() const
{
    const QString server = Scenario::serverPlaceholder();
    if (script.has_value() || urlTemplate.contains(server) || writeUrlTemplate.contains(server)
        || spec.body.contains(server.toUtf8()))
        return true;
    const auto inText = [&server](const QString &t) { return t.contains(server); };
    const auto inHeader = [&server](const auto &h) { return h.second.contains(server.toUtf8()); };
    return std::any_of(fallbackTemplates.cbegin(), fallbackTemplates.cend(), inText)
        || std::any_of(spec.headers.cbegin(), spec.headers.cend(), inHeader);
}

QString ScenarioExpectation::describe() const
{
    QStringList parts;
    if (!outcomes.isEmpty()) {
        QStringList names;
        for (RequestOutcome outcome : outcomes)
            names.append(requestOutcomeName(outcome));
        parts.append(names.join(Tr::tr(" or ")));
    }
    if (minAttempts && maxAttempts && *minAttempts == *maxAttempts)
        parts.append(Tr::tr("%n attempt(s)", nullptr, *minAttempts));
    else if (minAttempts && maxAttempts)
        parts.append(Tr::tr("%1-%2 attempts").arg(*minAttempts).arg(*maxAttempts));
    else if (minAttempts)
        parts.append(Tr::tr("at least %n attempt(s)", nullptr, *minAttempts));
    else if (maxAttempts)
        parts.append(Tr::tr("at most %n attempt(s)", nullptr, *maxAttempts));
    if (checkFinalStatus)
        parts.append(finalStatus ? Tr::tr("status %1").arg(*finalStatus) : Tr::tr("no HTTP status"));
    if (minTotalMs)
        parts.append(Tr::tr("at least %1").arg(DurationText::format(*minTotalMs, DurationText::Style::Exact)));
    if (maxTotalMs)
        parts.append(Tr::tr("within %1").arg(DurationText::format(*maxTotalMs, DurationText::Style::Exact)));
    if (minSuccessRate)
        parts.append(Tr::tr("success rate at least %1 %").arg(*minSuccessRate * 100.0, 0, 'g', 4));
    if (!lastCause.isEmpty())
        parts.append(Tr::tr("last cause %1").arg(lastCause));
    return parts.join(QStringLiteral(", "));
}

bool Scenario::needsServer() const
{
    return std::any_of(requests.cbegin(), requests.cend(), [](const ScenarioRequest &r) { return r.usesServer(); });
}

int Scenario::totalRequests() const
{
    int total = 0;
    for (const ScenarioRequest &r : requests)
        total += r.count;
    return total;
}

const ScenarioRequest *Scenario::request(const QString &requestName) const
{
    for (const ScenarioRequest &r : requests) {
        if (r.name == requestName)
            return &r;
    }
    return nullptr;
}

QString Scenario::expand(const QString &text, const QUrl &serverBase, const QString &key)
{
    if (!text.contains(QLatin1Char('{')))
        return text;
    ExpansionContext context;
    context.serverUrl = serverBase;
    context.requestKey = key;
    return RequestTemplate::expand(text, context);
}

QUrl Scenario::resolveUrl(const QString &urlTemplate, const QUrl &serverBase, const QString &key)
{
    return QUrl(expand(urlTemplate, serverBase, key));
}

QList<ExpectationResult> evaluateExpectations(
    const Scenario &scenario, const RunRecord &run, const QHash<quint64, QString> &requestNames)
{
    QHash<quint64, const RequestResult *> results;
    for (const RequestResult &r : run.results)
        results.insert(r.requestId, &r);
    QHash<quint64, const AttemptRecord *> lastAttempts;
    for (const AttemptRecord &a : run.attempts) {
        const AttemptRecord *&last = lastAttempts[a.requestId];
        if (!last || a.attemptIndex >= last->attemptIndex)
            last = &a;
    }
    QMap<QString, QList<quint64>> idsByName; // ids come out sorted per name
    for (auto it = requestNames.cbegin(); it != requestNames.cend(); ++it)
        idsByName[it.value()].append(it.key());
    for (QList<quint64> &ids : idsByName)
        std::sort(ids.begin(), ids.end());

    QList<ExpectationResult> verdicts;
    for (const ScenarioExpectation &e : scenario.expectations) {
        ExpectationResult verdict;
        const QString criteria = e.describe();
        verdict.name = e.name.isEmpty() ? Tr::tr("%1 (%2)").arg(e.request, criteria) : e.name;
        const QList<quint64> ids = idsByName.value(e.request);
        verdict.requestIds = ids;

        QStringList misses;
        int missCount = 0;
        const auto miss = [&](const QString &text) {
            if (++missCount <= listedMisses)
                misses.append(text);
        };
        int succeeded = 0;
        for (qsizetype i = 0; i < ids.size(); ++i) {
            const QString who = ids.size() == 1 ? e.request : Tr::tr("%1 #%2").arg(e.request).arg(i + 1);
            const RequestResult *result = results.value(ids[i]);
            if (!result) {
                miss(Tr::tr("%1 did not finish").arg(who));
                continue;
            }
            verdict.durationMs = std::max(verdict.durationMs, result->totalMs());
            if (result->outcome == RequestOutcome::Succeeded)
                ++succeeded;
            if (!e.outcomes.isEmpty() && !e.outcomes.contains(result->outcome)) {
                miss(Tr::tr("%1 ended %2 (%3)").arg(who, requestOutcomeName(result->outcome), result->reason));
            }
            if ((e.minAttempts && result->attempts < *e.minAttempts)
                || (e.maxAttempts && result->attempts > *e.maxAttempts)) {
                miss(Tr::tr("%1 made %n attempt(s)", nullptr, result->attempts).arg(who));
            }
            if (e.checkFinalStatus && result->finalStatus != e.finalStatus)
                miss(Tr::tr("%1 ended with status %2").arg(who, statusText(result->finalStatus)));
            const double total = result->totalMs();
            if (e.minTotalMs && total < *e.minTotalMs)
                miss(Tr::tr("%1 took only %2").arg(who, DurationText::format(total)));
            if (e.maxTotalMs && total > *e.maxTotalMs)
                miss(Tr::tr("%1 took %2").arg(who, DurationText::format(total)));
            if (!e.lastCause.isEmpty()) {
                const AttemptRecord *last = lastAttempts.value(ids[i]);
                const QString cause = last ? last->cause : Tr::tr("(no attempt)");
                if (cause != e.lastCause)
                    miss(Tr::tr("%1 ended on cause %2").arg(who, cause));
            }
        }
        // Requests the scenario asked for but the run never sent (cut off by its
        // time limit, or cancelled) miss every expectation on them.
        qsizetype planned = 0;
        for (const ScenarioRequest &entry : scenario.requests) {
            if (entry.name == e.request)
                planned += entry.count;
        }
        const qsizetype unsent = std::max<qsizetype>(0, planned - ids.size());
        if (ids.isEmpty())
            miss(Tr::tr("no request named \"%1\" ran").arg(e.request));
        else if (unsent > 0)
            miss(Tr::tr("%n request(s) never sent", nullptr, static_cast<int>(unsent)));
        const qsizetype judged = std::max(planned, ids.size());
        if (e.minSuccessRate && judged > 0) {
            const double rate = double(succeeded) / double(judged);
            if (rate + 1e-12 < *e.minSuccessRate)
                miss(Tr::tr("success rate %1 % (%2 of %3)").arg(rate * 100.0, 0, 'f', 1).arg(succeeded).arg(judged));
        }

        verdict.passed = missCount == 0;
        if (verdict.passed) {
            verdict.message = Tr::tr("%n request(s): %1", nullptr, static_cast<int>(ids.size())).arg(criteria);
        } else {
            QString text = Tr::tr("expected %1; but %2").arg(criteria, misses.join(QStringLiteral("; ")));
            if (missCount > listedMisses)
                text += Tr::tr(" (and %n more)", nullptr, missCount - listedMisses);
            verdict.message = text;
        }
        verdicts.append(verdict);
    }
    return verdicts;
}

} // namespace RetryLab::Core
