#include "app/screenshotmonitors.h"

#include "app/apptr.h"
#include "core/history/historystore.h"
#include "core/monitor/monitorschedule.h"
#include "core/monitor/monitorsfile.h"
#include "core/util/randomsource.h"

#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace RetryLab::App::ScreenshotMonitors {

namespace {

Q_LOGGING_CATEGORY(lcScreenshotMonitors, "retrylab.app.screenshotmonitors")

constexpr qint64 minuteMs = 60'000;
constexpr qint64 hourMs = 60 * minuteMs;
// Checks queued before each write: one transaction per few thousand keeps memory small.
constexpr int checksPerFlush = 4000;

// How the failing attempts of a stretch fail.
enum class Fault { None, Http503, Http502, Http500, Http429, Reset, Refused, Timeout };

// A stretch of the history, placed in minutes before its end, where something went wrong.
struct Trouble
{
    qint64 fromMinutesAgo = 0;
    qint64 minutes = 0;
    Fault fault = Fault::None;
    double firstFails = 1.0; ///< the chance that a check's first attempt fails
    double retryFails = 1.0; ///< the chance that a retry fails
    double slower = 1.0; ///< what the latency is multiplied by
    bool maintenance = false; ///< the monitor's maintenance window
};

// One monitor: how it is checked live, and how its made-up history behaves.
struct Profile
{
    QString name;
    QString path; ///< on the embedded server
    QString preset; ///< empty: policy "none", one attempt per check
    int maxAttempts = 3;
    double baseDelayMs = 250.0;
    double attemptTimeoutMs = 2000.0;
    double medianMs = 50.0;
    double sigma = 0.25;
    qint64 bytes = 1200;
    int downAfter = 1;
    std::optional<double> objective;
    QList<Trouble> troubles;
};

constexpr qint64 hoursAgo(qint64 hours, qint64 minutes = 0)
{
    return hours * 60 + minutes;
}

// Every check of the stretch fails.
Trouble outage(qint64 fromMinutesAgo, qint64 minutes, Fault fault)
{
    Trouble trouble;
    trouble.fromMinutesAgo = fromMinutesAgo;
    trouble.minutes = minutes;
    trouble.fault = fault;
    return trouble;
}

// First attempts fail often and retries seldom: the retries hide most of it.
Trouble retried(qint64 fromMinutesAgo, qint64 minutes, Fault fault, double firstFails, double retryFails)
{
    Trouble trouble = outage(fromMinutesAgo, minutes, fault);
    trouble.firstFails = firstFails;
    trouble.retryFails = retryFails;
    return trouble;
}

Trouble slowdown(qint64 fromMinutesAgo, qint64 minutes, double factor)
{
    Trouble trouble = outage(fromMinutesAgo, minutes, Fault::None);
    trouble.slower = factor;
    return trouble;
}

// A deployment: the service restarts now and then, and nothing of it counts.
Trouble maintenance(qint64 fromMinutesAgo, qint64 minutes)
{
    Trouble trouble = retried(fromMinutesAgo, minutes, Fault::Refused, 0.7, 0.6);
    trouble.maintenance = true;
    return trouble;
}

// Six endpoints a team might watch: a health check with an objective and a
// bit of everything, a slow search, a rate-limited token endpoint, a CDN
// checked without retries, a webhook that had an outage, and an old service
// that is down right now.
QList<Profile> profiles()
{
    Profile checkout;
    checkout.name = QStringLiteral("checkout-api /health");
    checkout.path = QStringLiteral("/fail/1?key={id}&p=0.25");
    checkout.preset = QStringLiteral("aws-standard");
    checkout.medianMs = 42.0;
    checkout.sigma = 0.22;
    checkout.bytes = 310;
    checkout.downAfter = 2;
    checkout.objective = 0.999;
    checkout.troubles
        = {retried(hoursAgo(58, 20), 20, Fault::Http503, 0.97, 0.05), outage(hoursAgo(46, 10), 3, Fault::Http503),
            maintenance(hoursAgo(31), 40), retried(hoursAgo(20, 30), 12, Fault::Reset, 1.0, 0.05),
            slowdown(hoursAgo(7), 25, 2.2), retried(11, 4, Fault::Http503, 0.97, 0.05)};

    Profile search;
    search.name = QStringLiteral("search /v2/query");
    search.path = QStringLiteral("/delay/160?dist=lognormal&sigma=0.35");
    search.preset = QStringLiteral("google-cloud-storage");
    search.medianMs = 160.0;
    search.sigma = 0.35;
    search.bytes = 8400;
    search.downAfter = 2;
    search.troubles = {retried(hoursAgo(52), 8, Fault::Timeout, 0.97, 0.1), slowdown(hoursAgo(40), 50, 2.5)};

    Profile auth;
    auth.name = QStringLiteral("auth /token");
    auth.path = QStringLiteral("/fail/1?key={id}&p=0.3&code=429");
    auth.preset = QStringLiteral("aws-standard");
    auth.maxAttempts = 4;
    auth.medianMs = 28.0;
    auth.sigma = 0.2;
    auth.bytes = 870;
    auth.downAfter = 2;
    auth.troubles = {retried(hoursAgo(10), 15, Fault::Http429, 1.0, 0.2), retried(19, 20, Fault::Http429, 0.08, 0.05)};

    Profile cdn;
    cdn.name = QStringLiteral("images CDN");
    cdn.path = QStringLiteral("/status/200?asset=hero.webp");
    cdn.maxAttempts = 1;
    cdn.medianMs = 11.0;
    cdn.sigma = 0.5;
    cdn.bytes = 48'000;
    cdn.downAfter = 2;
    cdn.troubles = {outage(hoursAgo(65), 1, Fault::Reset)};

    Profile payments;
    payments.name = QStringLiteral("payments webhook");
    payments.path = QStringLiteral("/status/200?service=payments");
    payments.preset = QStringLiteral("google-cloud-storage");
    payments.maxAttempts = 4;
    payments.medianMs = 95.0;
    payments.sigma = 0.3;
    payments.bytes = 540;
    payments.downAfter = 2;
    payments.troubles = {outage(hoursAgo(26), 22, Fault::Http502)};

    Profile soap;
    soap.name = QStringLiteral("legacy SOAP");
    soap.path = QStringLiteral("/status/503?service=legacy-soap");
    soap.preset = QStringLiteral("aws-standard");
    soap.maxAttempts = 2;
    soap.baseDelayMs = 500.0;
    soap.attemptTimeoutMs = 5000.0;
    soap.medianMs = 420.0;
    soap.sigma = 0.3;
    soap.bytes = 3900;
    // A nightly batch job starves its connection pool, and it is down now.
    soap.troubles
        = {retried(hoursAgo(62), 12, Fault::Http500, 0.97, 0.03), retried(hoursAgo(38), 12, Fault::Http500, 0.97, 0.03),
            retried(hoursAgo(14), 12, Fault::Http500, 0.97, 0.03), outage(9, 10, Fault::Http503)};

    return {checkout, search, auth, cdn, payments, soap};
}

// Where a stretch lies. A maintenance window starts on a whole ten minutes, as people plan them.
std::pair<qint64, qint64> spanOf(const Trouble &trouble, qint64 nowMs)
{
    qint64 from = nowMs - trouble.fromMinutesAgo * minuteMs;
    if (trouble.maintenance)
        from -= from % (10 * minuteMs);
    return {from, from + trouble.minutes * minuteMs};
}

const Trouble *troubleAt(const QList<std::pair<qint64, qint64>> &spans, const Profile &profile, qint64 atMs)
{
    for (qsizetype i = 0; i < spans.size(); ++i) {
        if (atMs >= spans.at(i).first && atMs < spans.at(i).second)
            return &profile.troubles.at(i);
    }
    return nullptr;
}

// Busier afternoons (UTC) answer a little slower.
double dailyRhythm(qint64 atMs)
{
    const double hour = static_cast<double>(atMs % (24 * hourMs)) / static_cast<double>(hourMs);
    return 1.0 + 0.18 * std::sin(2.0 * std::numbers::pi * (hour - 9.0) / 24.0);
}

// What a failing attempt got: its status, the classifier's words, the body kept.
struct FaultText
{
    std::optional<int> status;
    QString cause;
    QString reason;
    QByteArray body;
};

// The words are the engine's own (Core::Classifier), as a history written in English has them.
FaultText faultText(Fault fault)
{
    const QString transient = QStringLiteral("transient: retry after a delay");
    switch (fault) {
    case Fault::Http503:
        return {503, QStringLiteral("http-503"),
            QStringLiteral("HTTP 503: server error; transient, retry after a delay"),
            R"({"error": "upstream unavailable", "retryable": true})"};
    case Fault::Http502:
        return {502, QStringLiteral("http-502"),
            QStringLiteral("HTTP 502: server error; transient, retry after a delay"),
            "<html><body><h1>502 Bad Gateway</h1></body></html>"};
    case Fault::Http500:
        return {500, QStringLiteral("http-500"),
            QStringLiteral("HTTP 500: server error; transient, retry after a delay"),
            "<soap:Envelope><soap:Body><soap:Fault><faultcode>soap:Server</faultcode>"
            "<faultstring>Connection pool exhausted</faultstring></soap:Fault></soap:Body></soap:Envelope>"};
    case Fault::Http429:
        return {429, QStringLiteral("http-429"),
            QStringLiteral("HTTP 429: rate limited; transient, retry after a delay"),
            R"({"error": "rate_limited", "limit": "200/min"})"};
    case Fault::Reset:
        return {std::nullopt, QStringLiteral("connection-reset"),
            QStringLiteral("connection reset or closed by the server; ") + transient, {}};
    case Fault::Refused:
        return {std::nullopt, QStringLiteral("connection-refused"),
            QStringLiteral("connection refused (nothing listens, or the service is restarting); ") + transient, {}};
    case Fault::Timeout:
        return {std::nullopt, QStringLiteral("attempt-timeout"),
            QStringLiteral("the per-attempt timeout expired; ") + transient, {}};
    case Fault::None:
        break;
    }
    return {200, QStringLiteral("http-200"), QStringLiteral("HTTP 200: success"), {}};
}

Core::StoredAttempt makeAttempt(
    Core::RandomSource &random, const Profile &profile, Fault fault, double medianMs, int index, bool last)
{
    Core::StoredAttempt a;
    a.index = index;
    a.queuedMs = random.uniform(0.02, 0.3);
    // A retry reuses the connection: no connect phase.
    a.connectMs = index == 0 ? random.uniform(0.2, 1.2) : -1.0;
    const double exchange = std::max(1.0, random.lognormal(std::log(medianMs), profile.sigma));
    const FaultText text = faultText(fault);
    a.status = text.status;
    a.cause = text.cause;
    a.reason = text.reason;
    switch (fault) {
    case Fault::None:
        a.success = true;
        a.totalMs = exchange;
        a.bytes = profile.bytes + random.uniformInt(-profile.bytes / 20, profile.bytes / 20);
        break;
    case Fault::Reset:
        a.totalMs = random.uniform(2.0, 25.0);
        break;
    case Fault::Refused:
        a.connectMs = -1.0;
        a.totalMs = random.uniform(0.3, 1.5);
        break;
    case Fault::Timeout:
        a.totalMs = profile.attemptTimeoutMs;
        break;
    default: // an error page comes quicker than the real answer
        a.totalMs = exchange * random.uniform(0.4, 0.7);
        a.failureBody = text.body;
        a.bytes = text.body.size();
        break;
    }
    if (a.status)
        a.firstByteMs = a.totalMs - random.uniform(0.05, std::min(2.0, a.totalMs * 0.1));
    a.decision = a.success ? QStringLiteral("success")
        : last             ? QStringLiteral("give-up")
                           : QStringLiteral("retry-after-delay");
    return a;
}

Core::StoredCheck makeCheck(Core::RandomSource &random, const Profile &profile, qint64 startMs, const Trouble *trouble)
{
    Core::StoredCheck check;
    check.monitor = profile.name;
    check.startMs = startMs;
    check.maintenance = trouble && trouble->maintenance;
    const double median = profile.medianMs * dailyRhythm(startMs) * (trouble ? trouble->slower : 1.0);
    double elapsedMs = 0.0;
    for (int index = 0; index < profile.maxAttempts; ++index) {
        const bool fails = trouble && trouble->fault != Fault::None
            && random.chance(index == 0 ? trouble->firstFails : trouble->retryFails);
        const bool last = !fails || index + 1 == profile.maxAttempts;
        // Full jitter over an exponential term, as the presets these monitors use.
        const double delayMs = index == 0 ? 0.0 : random.uniform(0.0, profile.baseDelayMs * std::pow(2.0, index - 1));
        elapsedMs += delayMs;
        Core::StoredAttempt attempt
            = makeAttempt(random, profile, fails ? trouble->fault : Fault::None, median, index, last);
        attempt.startMs = startMs + std::llround(elapsedMs + attempt.queuedMs);
        attempt.delayBeforeMs = delayMs;
        elapsedMs += attempt.queuedMs + attempt.totalMs;
        check.attempts.append(attempt);
        if (last)
            break;
    }
    const Core::StoredAttempt &final = check.attempts.constLast();
    check.endMs = startMs + std::llround(elapsedMs);
    check.success = final.success;
    check.finalStatus = final.status;
    check.outcome = check.success ? QStringLiteral("succeeded") : QStringLiteral("attempts-exhausted");
    if (!check.success) {
        const auto count = check.attempts.size();
        check.reason = count == 1 ? QStringLiteral("gave up after 1 attempt: %1").arg(final.reason)
                                  : QStringLiteral("gave up after %1 attempts: %2").arg(count).arg(final.reason);
    }
    return check;
}

// The states a monitor went through, with the engine's words (Core::MonitorStateMachine, upAfter 1).
class StateTrail final
{
public:
    explicit StateTrail(const Profile &profile) : m_profile(profile) { }

    std::optional<Core::StateEvent> checkFinished(const Core::StoredCheck &check)
    {
        if (check.maintenance)
            return std::nullopt;
        if (check.success) {
            m_failures = 0;
            if (m_state == Core::MonitorState::Up)
                return std::nullopt;
            return moveTo(check, Core::MonitorState::Up,
                m_state == Core::MonitorState::Pending ? QStringLiteral("the check succeeded")
                                                       : QStringLiteral("the check succeeded again"));
        }
        ++m_failures;
        if (m_state == Core::MonitorState::Down || m_failures < m_profile.downAfter)
            return std::nullopt;
        return moveTo(check, Core::MonitorState::Down,
            m_profile.downAfter == 1
                ? QStringLiteral("the check failed: %1").arg(check.reason)
                : QStringLiteral("%1 checks in a row failed, the last: %2").arg(m_failures).arg(check.reason));
    }

private:
    Core::StateEvent moveTo(const Core::StoredCheck &check, Core::MonitorState to, const QString &reason)
    {
        Core::StateEvent event;
        event.monitor = m_profile.name;
        event.atMs = check.endMs;
        event.from = m_state;
        event.to = to;
        event.reason = reason;
        m_state = to;
        return event;
    }

    const Profile &m_profile;
    Core::MonitorState m_state = Core::MonitorState::Pending;
    int m_failures = 0;
};

QString isoOf(qint64 utcMs)
{
    return QDateTime::fromMSecsSinceEpoch(utcMs, Qt::UTC).toString(Qt::ISODate);
}

} // namespace

QString featuredMonitor()
{
    return profiles().at(0).name;
}

QString acknowledgedMonitor()
{
    return profiles().at(4).name;
}

Core::Result<QList<Core::Monitor>> monitors(const QUrl &server, qint64 nowMs)
{
    QString base = server.toString();
    while (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    QJsonArray entries;
    for (const Profile &profile : profiles()) {
        QJsonObject entry{{QStringLiteral("name"), profile.name}, {QStringLiteral("url"), QString(base + profile.path)},
            {QStringLiteral("intervalMs"), static_cast<double>(intervalMs)},
            {QStringLiteral("downAfter"), profile.downAfter}};
        if (profile.preset.isEmpty()) {
            entry.insert(QStringLiteral("policy"), QStringLiteral("none"));
            entry.insert(QStringLiteral("attemptTimeoutMs"), profile.attemptTimeoutMs);
        } else {
            // The presets' delays of seconds, shortened: a check ends while the pictures are taken.
            entry.insert(QStringLiteral("policy"),
                QJsonObject{{QStringLiteral("preset"), profile.preset},
                    {QStringLiteral("overrides"),
                        QJsonObject{{QStringLiteral("maxAttempts"), profile.maxAttempts},
                            {QStringLiteral("baseDelayMs"), profile.baseDelayMs},
                            {QStringLiteral("maxBackoffMs"), profile.baseDelayMs * 4},
                            {QStringLiteral("attemptTimeoutMs"), profile.attemptTimeoutMs}}}});
        }
        QJsonArray maintenance;
        for (const Trouble &trouble : profile.troubles) {
            if (!trouble.maintenance)
                continue;
            const auto [from, to] = spanOf(trouble, nowMs);
            maintenance.append(QJsonObject{{QStringLiteral("from"), isoOf(from)}, {QStringLiteral("to"), isoOf(to)}});
        }
        if (!maintenance.isEmpty())
            entry.insert(QStringLiteral("maintenance"), maintenance);
        if (profile.objective)
            entry.insert(QStringLiteral("objective"), *profile.objective);
        entries.append(entry);
    }
    const QJsonObject file{{QStringLiteral("format"), QLatin1String(Core::MonitorsFileReader::formatName)},
        {QStringLiteral("version"), Core::MonitorsFileReader::formatVersion}, {QStringLiteral("monitors"), entries}};
    const auto read = Core::MonitorsFileReader::fromJson(QJsonDocument(file).toJson());
    if (!read)
        return read.errorDetail();
    return read->monitors;
}

QString writeHistory(const QString &database, qint64 nowMs, quint64 seed)
{
    Core::HistoryStore::Options options;
    options.quickCheck = false;
    auto opened = Core::HistoryStore::open(database, QString(), options);
    if (!opened)
        return Tr::tr("cannot write the monitors' history %1: %2")
            .arg(QDir::toNativeSeparators(database), opened.error());
    Core::HistoryStore &store = *opened.value();

    const QList<Profile> all = profiles();
    qint64 written = 0;
    for (qsizetype i = 0; i < all.size(); ++i) {
        const Profile &profile = all.at(i);
        Core::RandomSource random(Core::RandomSource::derive(seed, static_cast<quint64>(i)));
        QList<std::pair<qint64, qint64>> spans;
        for (const Trouble &trouble : profile.troubles)
            spans.append(spanOf(trouble, nowMs));
        StateTrail states(profile);
        // The engine's grid: the live checks that follow fall in step with these.
        const qint64 phase = Core::MonitorSchedule::phaseMs(profile.name, intervalMs);
        for (qint64 at = Core::MonitorSchedule::nextDueMs(nowMs - historyMs, intervalMs, phase); at < nowMs - 1000;
             at += intervalMs) {
            const Core::StoredCheck check = makeCheck(random, profile, at, troubleAt(spans, profile, at));
            store.append(check);
            if (const auto event = states.checkFinished(check))
                store.append(*event);
            if (++written % checksPerFlush == 0 && !store.flush())
                return Tr::tr("cannot write the monitors' history %1: %2")
                    .arg(QDir::toNativeSeparators(database), store.warning());
        }
    }
    if (!store.flush())
        return Tr::tr("cannot write the monitors' history %1: %2")
            .arg(QDir::toNativeSeparators(database), store.warning());
    qCDebug(lcScreenshotMonitors) << written << "checks written to" << database;
    return {};
}

} // namespace RetryLab::App::ScreenshotMonitors
