// The endpoints that answer from the request and from small state kept per name (fail
// counters, rate-limit buckets, optimistic-concurrency resources, eventual resources and
// long-running operations) are one job here: they share one mutex, one limit on that state,
// its reset, and the error answers, so each is a member of FaultEndpoints in this file.
#include "core/faultserver/faultendpoints.h"

#include "core/faultserver/endpointcatalog.h"
#include "core/faultserver/requesttarget.h"
#include "core/http/httprequestparser.h"
#include "core/http/retryafter.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"

#include <QDateTime>
#include <QHostAddress>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QMutexLocker>
#include <QUrl>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace RetryLab::Core {

namespace {

// /eventual keeps bodies: all of them together may take this many request bodies.
constexpr qint64 eventualStorageInBodies = 8;
constexpr qint64 maxDelayMs = FaultInstruction::maxDelayMs;
constexpr qint64 maxSeconds = 365LL * 24 * 3600;
constexpr qint64 maxBrokenBytes = 16 * 1024 * 1024;
constexpr qint64 maxDripBytes = 1'000'000;
constexpr qint64 maxDripTotalMs = 600'000;
constexpr qint64 maxEventualHiddenMs = 3'600'000;
constexpr qint64 maxOccDelayMs = 60'000;
constexpr qsizetype maxKeyLength = 200;
// Slower buckets would announce waits of days; /ratelimit refuses them with 400.
constexpr double minRps = 0.001;

QString shortened(const QString &text, qsizetype max = 60)
{
    return RequestTarget::shortened(text, max);
}

template<typename T>
ResponsePlan badRequest(const Result<T> &result)
{
    return ResponsePlan::error(400, result.error());
}

ResponsePlan badName()
{
    return ResponsePlan::error(400, Tr::tr("a resource name has 1 to 128 of the characters A-Z a-z 0-9 . _ ~ -"));
}

ResponsePlan wrongMethod(const QString &message, const QByteArray &allow = "GET, HEAD, PUT")
{
    ResponsePlan p = ResponsePlan::error(405, message);
    p.addHeader("Allow", allow);
    return p;
}

// A /fail/N answer's body: numbers and the key, in the order of the names, as
// QJsonDocument writes it. Written directly for a key of unreserved characters (which
// JSON writes as they are: RetryLab's {id} and most keys), through QJsonObject otherwise:
// every request of a batch gets one.
ResponsePlan counterJson(
    int status, std::initializer_list<std::pair<QLatin1StringView, qint64>> numbers, const QString &key, QString detail)
{
    const bool plain = std::all_of(key.cbegin(), key.cend(), RequestTarget::isUnreserved);
    if (!plain) {
        QJsonObject body{{QStringLiteral("key"), key}};
        for (const auto &[name, value] : numbers)
            body.insert(name, value);
        return ResponsePlan::json(status, body, std::move(detail));
    }
    // The names sorted, "key" among them, as QJsonObject keeps them.
    std::vector<std::pair<QLatin1StringView, std::optional<qint64>>> fields(numbers.begin(), numbers.end());
    fields.emplace_back(QLatin1StringView("key"), std::nullopt);
    std::sort(fields.begin(), fields.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    QByteArray body;
    body.reserve(64 + key.size());
    body += '{';
    for (const auto &[name, value] : fields) {
        if (body.size() > 1)
            body += ',';
        body += '"';
        body += QByteArrayView(name.data(), name.size());
        body += "\":";
        if (value) {
            body += QByteArray::number(*value);
        } else {
            body += '"';
            body += key.toLatin1();
            body += '"';
        }
    }
    body += "}\n";
    ResponsePlan p;
    p.status = status;
    p.body = std::move(body);
    p.detail = std::move(detail);
    return p;
}

} // namespace

FaultEndpoints::FaultEndpoints(quint64 seed) : m_clock(&SteadyClock::instance()), m_random(seed)
{
    const QString detail = Tr::tr("status %1 as asked");
    const qsizetype at = detail.indexOf(QLatin1StringView("%1"));
    m_statusDetailBefore = at < 0 ? detail + QLatin1Char(' ') : detail.left(at);
    m_statusDetailAfter = at < 0 ? QString() : detail.mid(at + 2);
}

void FaultEndpoints::setClock(const Clock *clock)
{
    m_clock = clock ? clock : &SteadyClock::instance();
}

void FaultEndpoints::setSeed(quint64 seed)
{
    QMutexLocker lock(&m_mutex);
    m_random.reseed(seed);
}

void FaultEndpoints::setMaxBodyBytes(qint64 bytes)
{
    QMutexLocker lock(&m_mutex);
    m_maxBodyBytes = bytes;
}

void FaultEndpoints::reset()
{
    QMutexLocker lock(&m_mutex);
    m_failCounters.clear();
    m_buckets.clear();
    m_occ.clear();
    m_eventual.clear();
    m_eventualBytes = 0;
    m_operations.clear();
    m_random.reseed(m_random.seed());
}

ResponsePlan FaultEndpoints::handle(const HttpRequest &request)
{
    return handle(request, RequestTarget(request));
}

bool FaultEndpoints::owns(const RequestTarget &target)
{
    const QStringList &segments = target.segments();
    const QString first = segments.value(0);
    switch (segments.size()) {
    case 0:
        return true;
    case 1:
        return first == QLatin1String("ratelimit") || first == QLatin1String("redirect");
    case 2:
        return first == QLatin1String("status") || first == QLatin1String("delay") || first == QLatin1String("fail")
            || first == QLatin1String("fault") || first == QLatin1String("occ") || first == QLatin1String("eventual")
            || first == QLatin1String("operation");
    default:
        return false;
    }
}

bool FaultEndpoints::keysRequests(QStringView path)
{
    // The path's segments, empty ones skipped, without a list of them (asked for every
    // request the server logs with a query).
    QStringView first;
    qsizetype count = 0;
    for (const QStringView segment : path.tokenize(u'/', Qt::SkipEmptyParts)) {
        if (++count == 1)
            first = segment;
        else if (count > 2)
            return false;
    }
    return (count == 2 && first == QLatin1String("fail")) || (count == 1 && first == QLatin1String("ratelimit"));
}

ResponsePlan FaultEndpoints::handle(const HttpRequest &r, const RequestTarget &target)
{
    const QStringList &segments = target.segments();
    const QString first = segments.value(0);
    const qsizetype count = segments.size();

    if (count == 0) {
        ResponsePlan p;
        p.contentType = "text/plain; charset=utf-8";
        p.body = EndpointCatalog::usageText().toUtf8();
        p.detail = Tr::tr("the list of endpoints");
        return p;
    }
    if (first == QLatin1String("status") && count == 2)
        return statusEndpoint(segments[1], target);
    if (first == QLatin1String("delay") && count == 2)
        return delayEndpoint(segments[1], target);
    if (first == QLatin1String("fail") && count == 2)
        return failEndpoint(segments[1], target);
    if (first == QLatin1String("fault") && count == 2)
        return faultEndpoint(segments[1], target);
    if (first == QLatin1String("ratelimit") && count == 1)
        return rateLimitEndpoint(target);
    if (first == QLatin1String("redirect") && count == 1)
        return redirectEndpoint(target);
    if (first == QLatin1String("occ") && count == 2)
        return occEndpoint(r, segments[1], target);
    if (first == QLatin1String("eventual") && count == 2)
        return eventualEndpoint(r, segments[1], target);
    if (first == QLatin1String("operation") && count == 2)
        return operationEndpoint(r, segments[1], target);
    return ResponsePlan::error(404, Tr::tr("no endpoint at %1; GET / lists them").arg(shortened(target.path())));
}

ResponsePlan FaultEndpoints::statusEndpoint(const QString &codeText, const RequestTarget &target)
{
    const auto code = RequestTarget::readInteger(
        codeText, QT_TRANSLATE_NOOP("RetryLab::Core", "the status in /status/{code}"), 200, 599, 0);
    if (!code)
        return badRequest(code);
    const auto retryAfter = target.integer("retry_after", 0, maxSeconds, -1);
    if (!retryAfter)
        return badRequest(retryAfter);
    const auto reset = target.integer("ratelimit_reset", 0, maxSeconds, -1);
    if (!reset)
        return badRequest(reset);

    // What ResponsePlan::json() writes for {"status": code}, without a JSON document per request.
    ResponsePlan p;
    p.status = static_cast<int>(*code);
    // A status has three digits (200 to 599): written directly, as QByteArray::number()
    // and QString::arg(int) cost more than all the rest of this answer.
    const char digits[] = {char('0' + *code / 100), char('0' + *code / 10 % 10), char('0' + *code % 10)};
    p.body.reserve(20);
    p.body.append("{\"status\":").append(digits, 3).append("}\n");
    p.detail = m_statusDetailBefore + QLatin1StringView(digits, 3) + m_statusDetailAfter;
    if (*retryAfter >= 0)
        p.addHeader("Retry-After", QByteArray::number(*retryAfter));
    if (const auto date = target.query(QLatin1String("retry_after_date"))) {
        // Either an HTTP-date passed through, or seconds from now turned into one.
        QDateTime when;
        const QString t = date->trimmed();
        if (!t.isEmpty() && std::all_of(t.cbegin(), t.cend(), [](QChar c) { return c.isDigit(); })) {
            const auto seconds = RequestTarget::readInteger(t, "retry_after_date", 0, maxSeconds, 0);
            if (!seconds)
                return badRequest(seconds);
            when = m_clock->wallTime().addSecs(*seconds);
        } else {
            when = parseHttpDate(t.toLatin1());
            if (!when.isValid()) {
                return ResponsePlan::error(400,
                    Tr::tr("retry_after_date must be an HTTP-date (\"Sun, 06 Nov 1994 08:49:37 GMT\") or seconds "
                           "from now (got \"%1\")")
                        .arg(shortened(*date, 40)));
            }
        }
        p.addHeader("Retry-After", formatHttpDate(when));
    }
    if (*reset >= 0)
        p.addHeader("X-RateLimit-Reset", QByteArray::number(*reset));
    return p;
}

ResponsePlan FaultEndpoints::delayEndpoint(const QString &msText, const RequestTarget &target)
{
    const auto msRead = RequestTarget::readInteger(
        msText, QT_TRANSLATE_NOOP("RetryLab::Core", "the delay in /delay/{ms}"), 0, maxDelayMs, 0);
    if (!msRead)
        return badRequest(msRead);
    const qint64 ms = *msRead;
    double delay = static_cast<double>(ms);
    QString how = Tr::tr("fixed");
    const std::optional<QString> dist = target.query(QLatin1String("dist"));
    if (dist && *dist == QLatin1String("uniform")) {
        const auto min = target.integer("min", 0, ms, 0);
        if (!min)
            return badRequest(min);
        QMutexLocker lock(&m_mutex);
        delay = m_random.uniform(static_cast<double>(*min), static_cast<double>(ms));
        how = Tr::tr("uniform in [%1, %2] ms").arg(*min).arg(ms);
    } else if (dist && *dist == QLatin1String("lognormal")) {
        const auto sigma = target.real("sigma", 0.0, 3.0, true, 0.5);
        if (!sigma)
            return badRequest(sigma);
        QMutexLocker lock(&m_mutex);
        delay = ms > 0 ? m_random.lognormal(std::log(static_cast<double>(ms)), *sigma) : 0.0;
        delay = std::clamp(delay, 0.0, static_cast<double>(maxDelayMs));
        how = Tr::tr("lognormal, median %1 ms, sigma %2").arg(ms).arg(*sigma);
    } else if (dist) {
        return ResponsePlan::error(
            400, Tr::tr("dist must be \"uniform\" or \"lognormal\" (got \"%1\")").arg(shortened(*dist, 40)));
    }
    const int waitMs = static_cast<int>(std::llround(delay));
    return ResponsePlan::wait(waitMs, [waitMs, how] {
        return ResponsePlan::json(200,
            QJsonObject{{QStringLiteral("delay_ms"), waitMs}, {QStringLiteral("distribution"), how}},
            Tr::tr("answered after %1 ms (%2)").arg(waitMs).arg(how));
    });
}

ResponsePlan FaultEndpoints::failEndpoint(const QString &nText, const RequestTarget &target)
{
    const auto nRead = RequestTarget::readInteger(
        nText, QT_TRANSLATE_NOOP("RetryLab::Core", "the failure count in /fail/{n}"), 0, 1'000'000, 0);
    if (!nRead)
        return badRequest(nRead);
    const auto code = target.integer("code", 400, 599, 503);
    if (!code)
        return badRequest(code);
    const auto retryAfter = target.integer("retry_after", 0, maxSeconds, -1);
    if (!retryAfter)
        return badRequest(retryAfter);
    const auto pRead = target.real("p", 0.0, 1.0, false, -1.0);
    if (!pRead)
        return badRequest(pRead);
    const qint64 n = *nRead;
    const double p = *pRead;
    const QString key = target.query(QLatin1String("key")).value_or(QStringLiteral("default"));
    if (key.isEmpty() || key.size() > maxKeyLength)
        return ResponsePlan::error(400, Tr::tr("key must have 1 to %1 characters").arg(maxKeyLength));

    bool fail = false;
    qint64 requests = 0;
    qint64 failures = 0;
    {
        QMutexLocker lock(&m_mutex);
        if (!m_failCounters.contains(key) && m_failCounters.size() >= m_maxStateEntries)
            return ResponsePlan::error(503, Tr::tr("too many /fail keys; reset the server (POST /_control/reset)"));
        FailCounter &counter = m_failCounters[key];
        ++counter.requests;
        fail = counter.failures < n && (p < 0.0 || m_random.chance(p));
        if (fail)
            ++counter.failures;
        requests = counter.requests;
        failures = counter.failures;
    }
    if (!fail) {
        return counterJson(200, {{QLatin1StringView("request"), requests}, {QLatin1StringView("failures"), failures}},
            key,
            p >= 0.0 ? Tr::tr("request %1 for key \"%2\" passed (p=%3, %4 of at most %5 failures so far)")
                           .arg(requests)
                           .arg(shortened(key))
                           .arg(p)
                           .arg(failures)
                           .arg(n)
                     : Tr::tr("request %1 for key \"%2\" passed after %n failure(s)", nullptr, int(failures))
                           .arg(requests)
                           .arg(shortened(key)));
    }
    ResponsePlan plan = counterJson(static_cast<int>(*code),
        {{QLatin1StringView("status"), *code}, {QLatin1StringView("failure"), failures}, {QLatin1StringView("of"), n}},
        key,
        p >= 0.0
            ? Tr::tr("failure %1 (at most %2, p=%3) for key \"%4\"").arg(failures).arg(n).arg(p).arg(shortened(key))
            : Tr::tr("failure %1 of %2 for key \"%3\"").arg(failures).arg(n).arg(shortened(key)));
    if (*retryAfter >= 0)
        plan.addHeader("Retry-After", QByteArray::number(*retryAfter));
    return plan;
}

ResponsePlan FaultEndpoints::faultEndpoint(const QString &which, const RequestTarget &target)
{
    if (which == QLatin1String("reset")) {
        const QString when = target.query(QLatin1String("when")).value_or(QStringLiteral("before-headers"));
        if (when == QLatin1String("before-headers") || when == QLatin1String("before")) {
            ResponsePlan p = ResponsePlan::fault(ResponsePlan::Kind::Reset);
            p.detail = Tr::tr("reset before any response");
            return p;
        }
        if (when == QLatin1String("after-headers") || when == QLatin1String("after")) {
            ResponsePlan p = ResponsePlan::fault(ResponsePlan::Kind::ResetAfterHeaders);
            p.detail = Tr::tr("reset after the headers");
            return p;
        }
        return ResponsePlan::error(
            400, Tr::tr("when must be \"before-headers\" or \"after-headers\" (got \"%1\")").arg(shortened(when, 40)));
    }
    if (which == QLatin1String("empty")) {
        ResponsePlan p = ResponsePlan::fault(ResponsePlan::Kind::Empty);
        p.detail = Tr::tr("closed without a response");
        return p;
    }
    if (which == QLatin1String("stall")) {
        ResponsePlan p = ResponsePlan::fault(ResponsePlan::Kind::Stall);
        p.detail = Tr::tr("holding the connection without answering");
        return p;
    }
    if (which == QLatin1String("garbage")) {
        ResponsePlan p = ResponsePlan::fault(ResponsePlan::Kind::Garbage);
        p.detail = Tr::tr("sent %1 bytes that are not HTTP").arg(ResponsePlan::garbageBytes().size());
        return p;
    }
    if (which == QLatin1String("broken")) {
        const auto total = target.integer("total", 1, maxBrokenBytes, FaultInstruction::brokenAnnouncedBytes);
        if (!total)
            return badRequest(total);
        const auto sent = target.integer("sent", 0, *total - 1, *total / 2);
        if (!sent)
            return badRequest(sent);
        const auto chunked = target.integer("chunked", 0, 1, 0);
        if (!chunked)
            return badRequest(chunked);
        ResponsePlan p = ResponsePlan::fault(ResponsePlan::Kind::BrokenStream);
        p.announcedBytes = *total;
        p.sentBytes = *sent;
        p.chunked = *chunked == 1;
        p.detail = p.chunked ? Tr::tr("chunked: sent %1 bytes, closed before the last chunk").arg(*sent)
                             : Tr::tr("announced %1 bytes, sent %2, closed").arg(*total).arg(*sent);
        return p;
    }
    if (which == QLatin1String("drip")) {
        const auto bytes = target.integer("bytes", 1, maxDripBytes, FaultInstruction::dripBytes);
        if (!bytes)
            return badRequest(bytes);
        const auto ms
            = target.integer("ms", 0, FaultInstruction::maxDripIntervalMs, FaultInstruction::defaultDripIntervalMs);
        if (!ms)
            return badRequest(ms);
        if (*bytes * *ms > maxDripTotalMs) {
            return ResponsePlan::error(400,
                Tr::tr("%1 bytes at one every %2 ms would take longer than %3 s")
                    .arg(*bytes)
                    .arg(*ms)
                    .arg(maxDripTotalMs / 1000));
        }
        ResponsePlan p = ResponsePlan::fault(ResponsePlan::Kind::Drip);
        p.dripBytes = *bytes;
        p.dripIntervalMs = static_cast<int>(*ms);
        p.detail = Tr::tr("sent %1 bytes, one every %2 ms").arg(*bytes).arg(*ms);
        return p;
    }
    return ResponsePlan::error(
        404, Tr::tr("no fault \"%1\"; known: reset, empty, stall, broken, garbage, drip").arg(shortened(which, 40)));
}

ResponsePlan FaultEndpoints::rateLimitEndpoint(const RequestTarget &target)
{
    const auto rpsRead = target.real("rps", minRps, 100'000.0, false, 1.0);
    if (!rpsRead)
        return badRequest(rpsRead);
    const double rps = *rpsRead;
    const qint64 defaultBurst = std::max<qint64>(1, static_cast<qint64>(std::ceil(rps)));
    const auto burstRead = target.integer("burst", 1, 100'000, defaultBurst);
    if (!burstRead)
        return badRequest(burstRead);
    const qint64 burst = *burstRead;
    const QString key = target.query(QLatin1String("key")).value_or(QStringLiteral("default"));
    if (key.isEmpty() || key.size() > maxKeyLength)
        return ResponsePlan::error(400, Tr::tr("key must have 1 to %1 characters").arg(maxKeyLength));

    // How the limit is told: X-RateLimit-* (the default), the IETF httpapi draft's RateLimit and
    // RateLimit-Policy, or Retry-After alone (on a 429, which every style has); or as Amazon S3
    // throttles, a 503 whose XML error says SlowDown, which the AWS SDKs take for throttling.
    enum class Style { XRateLimit, Ietf, RetryAfterOnly, S3 };
    const QString styleName = target.query(QLatin1String("headers")).value_or(QStringLiteral("x-ratelimit"));
    Style style = Style::XRateLimit;
    if (styleName == QLatin1String("ietf"))
        style = Style::Ietf;
    else if (styleName == QLatin1String("retry-after"))
        style = Style::RetryAfterOnly;
    else if (styleName == QLatin1String("s3"))
        style = Style::S3;
    else if (styleName != QLatin1String("x-ratelimit"))
        return ResponsePlan::error(400,
            Tr::tr("headers must be x-ratelimit, ietf, retry-after or s3 (got \"%1\")").arg(shortened(styleName, 40)));

    const qint64 now = m_clock->nowNs();
    QMutexLocker lock(&m_mutex);
    if (!m_buckets.contains(key) && m_buckets.size() >= m_maxStateEntries)
        return ResponsePlan::error(503, Tr::tr("too many rate-limit keys; reset the server (POST /_control/reset)"));
    auto it = m_buckets.find(key);
    if (it == m_buckets.end())
        it = m_buckets.insert(key, Bucket{rps, burst, static_cast<double>(burst), now});
    Bucket &b = *it;
    b.rps = rps;
    b.burst = burst;
    b.tokens = std::min(static_cast<double>(burst), b.tokens + (now - b.updatedNs) / 1e9 * rps);
    b.updatedNs = now;

    // Bounded before the conversion: a double beyond qint64 would be undefined behaviour.
    const auto seconds
        = [](double value) { return static_cast<qint64>(std::clamp(std::ceil(value), 0.0, double(maxSeconds))); };
    const auto resetSeconds = [&b, &seconds] { return seconds((static_cast<double>(b.burst) - b.tokens) / b.rps); };
    const auto addLimitHeaders = [&](ResponsePlan &p, qint64 remaining) {
        switch (style) {
        case Style::XRateLimit:
            p.addHeader("X-RateLimit-Limit", QByteArray::number(burst));
            p.addHeader("X-RateLimit-Remaining", QByteArray::number(remaining));
            p.addHeader("X-RateLimit-Reset", QByteArray::number(resetSeconds()));
            break;
        case Style::Ietf: {
            // The window a whole bucket takes to refill, in whole seconds.
            const qint64 window = std::max<qint64>(1, seconds(static_cast<double>(burst) / b.rps));
            p.addHeader("RateLimit",
                "\"default\";r=" + QByteArray::number(remaining) + ";t=" + QByteArray::number(resetSeconds()));
            p.addHeader(
                "RateLimit-Policy", "\"default\";q=" + QByteArray::number(burst) + ";w=" + QByteArray::number(window));
            break;
        }
        case Style::RetryAfterOnly:
        case Style::S3:
            break;
        }
    };
    if (b.tokens >= 1.0) {
        b.tokens -= 1.0;
        ResponsePlan p = ResponsePlan::json(200,
            QJsonObject{{QStringLiteral("key"), key}, {QStringLiteral("remaining"), std::floor(b.tokens)}},
            Tr::tr("allowed; key \"%1\" has %2 of %3 tokens left")
                .arg(shortened(key))
                .arg(b.tokens, 0, 'f', 2)
                .arg(burst));
        addLimitHeaders(p, static_cast<qint64>(std::floor(b.tokens)));
        return p;
    }
    const qint64 wait = std::max<qint64>(1, seconds((1.0 - b.tokens) / rps));
    if (style == Style::S3) {
        ResponsePlan p;
        p.status = 503;
        p.contentType = "application/xml";
        p.body = QByteArrayLiteral("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>"
                                   "<Message>Please reduce your request rate.</Message></Error>");
        p.detail = Tr::tr("slowed down (S3): key \"%1\" has %2 of %3 tokens at %4/s")
                       .arg(shortened(key))
                       .arg(b.tokens, 0, 'f', 2)
                       .arg(burst)
                       .arg(rps);
        return p;
    }
    ResponsePlan p = ResponsePlan::json(429,
        QJsonObject{{QStringLiteral("status"), 429}, {QStringLiteral("error"), QStringLiteral("rate limited")},
            {QStringLiteral("retry_after"), wait}},
        Tr::tr("rate limited: key \"%1\" has %2 of %3 tokens at %4/s")
            .arg(shortened(key))
            .arg(b.tokens, 0, 'f', 2)
            .arg(burst)
            .arg(rps));
    p.addHeader("Retry-After", QByteArray::number(wait));
    addLimitHeaders(p, 0);
    return p;
}

ResponsePlan FaultEndpoints::redirectEndpoint(const RequestTarget &target)
{
    const auto codeRead = target.integer("code", 300, 399, 302);
    if (!codeRead)
        return badRequest(codeRead);
    const qint64 code = *codeRead;
    if (code != 301 && code != 302 && code != 303 && code != 307 && code != 308)
        return ResponsePlan::error(400, Tr::tr("code must be 301, 302, 303, 307 or 308 (got %1)").arg(code));
    const QString to = target.query(QLatin1String("to")).value_or(QString()).trimmed();
    if (to.isEmpty())
        return ResponsePlan::error(400, Tr::tr("to is missing: /redirect?to=URL&code=302"));
    const QUrl location(to, QUrl::StrictMode);
    if (!location.isValid())
        return ResponsePlan::error(400, Tr::tr("to is not a valid URL (got \"%1\")").arg(shortened(to, 80)));
    // The server must not become an open redirector to the rest of the network.
    if (location.isRelative()) {
        if (!to.startsWith(QLatin1Char('/')) || to.startsWith(QLatin1String("//")))
            return ResponsePlan::error(400, Tr::tr("to must be a path starting with / or an http(s) URL"));
    } else {
        const QString scheme = location.scheme().toLower();
        const QString host = location.host();
        const QHostAddress address(host);
        const bool loopback = host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0
            || (!address.isNull() && address.isLoopback());
        if (scheme != QLatin1String("http") && scheme != QLatin1String("https")) {
            return ResponsePlan::error(
                400, Tr::tr("to must be an http or https URL (got \"%1\")").arg(shortened(scheme, 20)));
        }
        if (!loopback) {
            return ResponsePlan::error(
                400, Tr::tr("to must point to a loopback address (got \"%1\")").arg(shortened(host, 80)));
        }
    }
    ResponsePlan p
        = ResponsePlan::json(static_cast<int>(code), QJsonObject{{QStringLiteral("status"), static_cast<int>(code)}},
            Tr::tr("redirect %1 to %2").arg(code).arg(shortened(QString::fromUtf8(location.toEncoded()), 120)));
    p.addHeader("Location", location.toEncoded());
    return p;
}

ResponsePlan FaultEndpoints::writeWithBodyEtag(
    OccResource &res, const QString &name, const QByteArray &body, const QString &envelope)
{
    const QByteArray current = res.etag();
    // As IAM's setIamPolicy: the document carries the etag it was read with.
    const QJsonObject whole = QJsonDocument::fromJson(body).object();
    const QJsonObject document = envelope.isEmpty() ? whole : whole.value(envelope).toObject();
    const QJsonValue etag = document.value(QStringLiteral("etag"));
    const QJsonValue value = document.value(QStringLiteral("value"));
    const double number = value.toDouble();
    if (!etag.isString() || !value.isDouble() || std::floor(number) != number || std::abs(number) > 9.0e15) {
        return ResponsePlan::error(400,
            envelope.isEmpty()
                ? Tr::tr("the body must be a JSON object with an integer \"value\" and the \"etag\" it was read with")
                : Tr::tr("the body must be {\"%1\": {...}} with an integer \"value\" and the \"etag\" it was read "
                         "with")
                      .arg(envelope));
    }
    if (etag.toString().toUtf8() != current) {
        const QString message = Tr::tr("the resource changed: etag %1 was read, it is now %2")
                                    .arg(etag.toString(), QString::fromLatin1(current));
        return ResponsePlan::json(409,
            QJsonObject{{QStringLiteral("error"),
                QJsonObject{{QStringLiteral("code"), 409}, {QStringLiteral("message"), message},
                    {QStringLiteral("status"), QStringLiteral("ABORTED")}}}},
            Tr::tr("conflict on \"%1\": %2").arg(name, message));
    }
    const qint64 old = res.value;
    res.value = static_cast<qint64>(number);
    ++res.version;
    const QByteArray now = res.etag();
    return ResponsePlan::json(200,
        QJsonObject{{QStringLiteral("value"), res.value}, {QStringLiteral("etag"), QString::fromLatin1(now)}},
        Tr::tr("wrote \"%1\": %2 -> %3, etag now %4").arg(name).arg(old).arg(res.value).arg(QString::fromLatin1(now)));
}

ResponsePlan FaultEndpoints::occEndpoint(const HttpRequest &r, const QString &segment, const RequestTarget &target)
{
    // IAM's own verbs: POST /occ/NAME:getIamPolicy reads, POST /occ/NAME:setIamPolicy writes.
    enum class Verb { ByMethod, GetIamPolicy, SetIamPolicy };
    Verb verb = Verb::ByMethod;
    QString name = segment;
    if (const qsizetype colon = segment.indexOf(QLatin1Char(':')); colon >= 0) {
        const QStringView suffix = QStringView(segment).mid(colon + 1);
        if (suffix == QLatin1String("getIamPolicy"))
            verb = Verb::GetIamPolicy;
        else if (suffix == QLatin1String("setIamPolicy"))
            verb = Verb::SetIamPolicy;
        else
            return ResponsePlan::error(404,
                Tr::tr("/occ/{name}:VERB knows getIamPolicy and setIamPolicy, not \"%1\"")
                    .arg(shortened(suffix.toString())));
        name = segment.left(colon);
    }
    if (!RequestTarget::isResourceName(name))
        return badName();
    const auto delay = target.integer("delay_ms", 0, maxOccDelayMs, 0);
    if (!delay)
        return badRequest(delay);
    // ?etag=body: the version is a field of the document, as an IAM policy's etag, and a
    // stale one is refused with 409 ABORTED; ?envelope=NAME: writes carry {"NAME": document}.
    const QString etagIn = target.query(QLatin1StringView("etag")).value_or(QStringLiteral("header"));
    if (etagIn != QLatin1String("header") && etagIn != QLatin1String("body"))
        return ResponsePlan::error(400, Tr::tr("etag must be header or body, not \"%1\"").arg(shortened(etagIn)));
    const bool bodyEtag = etagIn == QLatin1String("body");
    const QString envelope = target.query(QLatin1StringView("envelope")).value_or(QString());
    if (envelope.size() > 64)
        return ResponsePlan::error(400, Tr::tr("envelope is a member name of at most 64 characters"));
    if (verb != Verb::ByMethod && r.method != "POST")
        return wrongMethod(Tr::tr("/occ/{name}:getIamPolicy and :setIamPolicy take POST, as IAM's do"), "POST");
    const bool read
        = verb == Verb::GetIamPolicy || (verb == Verb::ByMethod && (r.method == "GET" || r.method == "HEAD"));
    if (!read && r.method != "PUT" && r.method != "POST")
        return wrongMethod(Tr::tr("/occ/{name} takes GET, HEAD, PUT and POST"), "GET, HEAD, PUT, POST");
    const std::optional<QByteArray> ifMatch = r.header("If-Match");
    const QByteArray body = r.body;

    // The check happens when the wait is over, so that concurrent writers really race.
    auto decide = [this, name, read, ifMatch, body, bodyEtag, envelope]() -> ResponsePlan {
        QMutexLocker lock(&m_mutex);
        if (!m_occ.contains(name) && m_occ.size() >= m_maxStateEntries)
            return ResponsePlan::error(503, Tr::tr("too many /occ resources; reset the server (POST /_control/reset)"));
        OccResource &res = m_occ[name];
        if (read) {
            QJsonObject document{{QStringLiteral("value"), res.value}};
            if (bodyEtag)
                document.insert(QStringLiteral("etag"), QString::fromLatin1(res.etag()));
            ResponsePlan p = ResponsePlan::json(200, document,
                Tr::tr("read \"%1\": value %2, ETag %3").arg(name).arg(res.value).arg(QString::fromLatin1(res.etag())));
            if (!bodyEtag)
                p.addHeader("ETag", res.etag());
            return p;
        }
        if (bodyEtag)
            return writeWithBodyEtag(res, name, body, envelope);
        if (!ifMatch) {
            return ResponsePlan::error(
                428, Tr::tr("a PUT to /occ/%1 needs If-Match with the ETag of a previous GET").arg(name));
        }
        const QByteArray current = res.etag();
        bool matches = false;
        for (const QByteArray &candidate : ifMatch->split(',')) {
            const QByteArray tag = candidate.trimmed();
            matches = matches || tag == "*" || tag == current;
        }
        if (!matches) {
            ResponsePlan p = ResponsePlan::json(409,
                QJsonObject{{QStringLiteral("status"), QStringLiteral("ABORTED")},
                    {QStringLiteral("message"),
                        Tr::tr("the resource changed: If-Match %1, current ETag %2")
                            .arg(QString::fromLatin1(*ifMatch), QString::fromLatin1(current))}},
                Tr::tr("conflict on \"%1\": If-Match %2 is stale (now %3)")
                    .arg(name, QString::fromLatin1(*ifMatch), QString::fromLatin1(current)));
            p.addHeader("ETag", current);
            return p;
        }
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
        const QJsonValue value = doc.object().value(QStringLiteral("value"));
        const double number = value.toDouble();
        if (!doc.isObject() || !value.isDouble() || std::floor(number) != number || std::abs(number) > 9.0e15)
            return ResponsePlan::error(400, Tr::tr("the body must be a JSON object with an integer \"value\""));
        const qint64 old = res.value;
        res.value = static_cast<qint64>(number);
        ++res.version;
        ResponsePlan p = ResponsePlan::json(200, QJsonObject{{QStringLiteral("value"), res.value}},
            Tr::tr("wrote \"%1\": %2 -> %3, ETag now %4")
                .arg(name)
                .arg(old)
                .arg(res.value)
                .arg(QString::fromLatin1(res.etag())));
        p.addHeader("ETag", res.etag());
        return p;
    };
    if (*delay > 0)
        return ResponsePlan::wait(static_cast<int>(*delay), decide);
    return decide();
}

ResponsePlan FaultEndpoints::eventualEndpoint(const HttpRequest &r, const QString &name, const RequestTarget &target)
{
    if (!RequestTarget::isResourceName(name))
        return badName();
    const qint64 now = m_clock->nowNs();
    if (r.method == "PUT") {
        const auto hidden = target.integer("hidden_ms", 0, maxEventualHiddenMs, 1000);
        if (!hidden)
            return badRequest(hidden);
        QMutexLocker lock(&m_mutex);
        auto it = m_eventual.find(name);
        const qint64 storage = eventualStorageInBodies * m_maxBodyBytes;
        if (m_eventualBytes - (it != m_eventual.end() ? it->body.size() : 0) + r.body.size() > storage) {
            return ResponsePlan::error(507,
                Tr::tr("/eventual already stores %1 bytes, at most %2 in all; reset the server (POST /_control/reset)")
                    .arg(m_eventualBytes)
                    .arg(storage));
        }
        const QByteArray contentType = r.header("Content-Type").value_or(QByteArray("application/octet-stream"));
        if (it != m_eventual.end()) {
            m_eventualBytes += r.body.size() - it->body.size();
            it->body = r.body;
            it->contentType = contentType;
            return ResponsePlan::json(200,
                QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("updated"), true}},
                Tr::tr("updated \"%1\"").arg(name));
        }
        if (m_eventual.size() >= m_maxStateEntries) {
            return ResponsePlan::error(
                503, Tr::tr("too many /eventual resources; reset the server (POST /_control/reset)"));
        }
        m_eventualBytes += r.body.size();
        m_eventual.insert(name, EventualResource{r.body, contentType, now, *hidden});
        return ResponsePlan::json(201,
            QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("visible_in_ms"), *hidden}},
            Tr::tr("created \"%1\", invisible for %2 ms").arg(name).arg(*hidden));
    }
    if (r.method != "GET" && r.method != "HEAD")
        return wrongMethod(Tr::tr("/eventual/{name} takes GET, HEAD and PUT"));
    QMutexLocker lock(&m_mutex);
    const auto it = m_eventual.constFind(name);
    if (it == m_eventual.cend())
        return ResponsePlan::error(404, Tr::tr("no resource \"%1\"").arg(name));
    const double ageMs = (now - it->createdNs) / 1e6;
    if (ageMs < static_cast<double>(it->hiddenMs)) {
        const qint64 left = static_cast<qint64>(std::ceil(static_cast<double>(it->hiddenMs) - ageMs));
        ResponsePlan p = ResponsePlan::error(404, Tr::tr("no resource \"%1\"").arg(name));
        p.detail = Tr::tr("\"%1\" exists but stays invisible for another %2 ms").arg(name).arg(left);
        p.addHeader("X-RetryLab-Visible-In-Ms", QByteArray::number(left));
        return p;
    }
    ResponsePlan p;
    p.body = it->body;
    p.contentType = it->contentType;
    p.detail = Tr::tr("\"%1\" is visible").arg(name);
    return p;
}

// A long-running operation, as Google's APIs poll them (operations.get): the first request
// for a name starts it; every poll answers 200 with "done": false until done_after_ms have
// passed, then "done": true with a response, or with the error (a google.rpc.Code) asked for.
ResponsePlan FaultEndpoints::operationEndpoint(const HttpRequest &r, const QString &name, const RequestTarget &target)
{
    if (!RequestTarget::isResourceName(name))
        return badName();
    if (r.method != "GET" && r.method != "HEAD" && r.method != "POST")
        return wrongMethod(Tr::tr("/operation/{name} takes GET, HEAD and POST"), "GET, HEAD, POST");
    const auto doneAfter = target.integer("done_after_ms", 0, maxEventualHiddenMs, 1000);
    if (!doneAfter)
        return badRequest(doneAfter);
    std::optional<int> error;
    if (target.query(QLatin1String("error"))) {
        // google.rpc.Code: 1 CANCELLED to 16 UNAUTHENTICATED; 0 (OK) is not an error.
        const auto code = target.integer("error", 1, 16, 13);
        if (!code)
            return badRequest(code);
        error = int(*code);
    }
    const qint64 now = m_clock->nowNs();
    QMutexLocker lock(&m_mutex);
    auto it = m_operations.find(name);
    if (it == m_operations.end()) {
        if (m_operations.size() >= m_maxStateEntries)
            return ResponsePlan::error(503, Tr::tr("too many operations; reset the server (POST /_control/reset)"));
        it = m_operations.insert(name, Operation{now, *doneAfter, error});
    }
    const QString fullName = QStringLiteral("operations/") + name;
    const double elapsedMs = (now - it->startedNs) / 1e6;
    if (elapsedMs < static_cast<double>(it->doneAfterMs)) {
        const int percent = it->doneAfterMs > 0 ? int(100.0 * elapsedMs / static_cast<double>(it->doneAfterMs)) : 100;
        const qint64 left = static_cast<qint64>(std::ceil(static_cast<double>(it->doneAfterMs) - elapsedMs));
        return ResponsePlan::json(200,
            QJsonObject{{QStringLiteral("name"), fullName}, {QStringLiteral("done"), false},
                {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("progressPercent"), percent}}}},
            Tr::tr("operation \"%1\" runs for another %2 ms").arg(name).arg(left));
    }
    if (it->error) {
        return ResponsePlan::json(200,
            QJsonObject{{QStringLiteral("name"), fullName}, {QStringLiteral("done"), true},
                {QStringLiteral("error"),
                    QJsonObject{{QStringLiteral("code"), *it->error},
                        {QStringLiteral("message"), QStringLiteral("the operation failed, as asked")}}}},
            Tr::tr("operation \"%1\" is done with error %2").arg(name).arg(*it->error));
    }
    return ResponsePlan::json(200,
        QJsonObject{{QStringLiteral("name"), fullName}, {QStringLiteral("done"), true},
            {QStringLiteral("response"), QJsonObject{{QStringLiteral("name"), name}}}},
        Tr::tr("operation \"%1\" is done").arg(name));
}

} // namespace RetryLab::Core
