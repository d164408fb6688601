#include "core/executor/redirectstep.h"

#include "core/http/redactor.h"
#include "core/http/retryheaders.h"
#include "core/util/coretr.h"

#include <QStringList>

#include <algorithm>
#include <utility>

namespace RetryLab::Core {

bool isRedirectStatus(int status)
{
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

namespace {

// Why the redirect from `from` to `to` is not followed; empty when it is.
QString refusal(const QUrl &from, const QUrl &to, const QByteArray &location, qsizetype redirectsSoFar)
{
    const QString toScheme = to.scheme().toLower();
    if (!to.isValid() || to.host().isEmpty())
        return Tr::tr("the Location \"%1\" is not a valid URL").arg(QString::fromLatin1(location.left(200)));
    if (toScheme != QLatin1String("http") && toScheme != QLatin1String("https"))
        return Tr::tr("only http and https redirects are followed (got \"%1\")").arg(toScheme);
    if (from.scheme().compare(QLatin1String("https"), Qt::CaseInsensitive) == 0 && toScheme == QLatin1String("http"))
        return Tr::tr("it leads from https to plain http");
    if (redirectsSoFar >= maxRedirectsPerAttempt)
        return Tr::tr("more than %n redirect(s) in one attempt", nullptr, maxRedirectsPerAttempt);
    return {};
}

} // namespace

std::optional<RedirectStep> nextHop(
    const HopRequest &current, int status, const QByteArray &location, qsizetype redirectsSoFar)
{
    if (!isRedirectStatus(status) || location.isEmpty())
        return std::nullopt;

    RedirectStep step;
    RedirectHop &hop = step.hop;
    hop.status = status;
    hop.method = current.method;
    hop.from = current.url;
    hop.to = current.url.resolved(QUrl::fromEncoded(location.trimmed()));
    hop.crossOrigin
        = hop.to.scheme().toLower() != current.url.scheme().toLower() || hostKey(hop.to) != hostKey(current.url);
    hop.note = refusal(current.url, hop.to, location, redirectsSoFar);
    if (!hop.note.isEmpty()) {
        hop.followed = false;
        return step;
    }

    HopRequest &next = step.next;
    next = current;
    next.url = hop.to;
    if (hop.nextMethod() != current.method) {
        next.method = hop.nextMethod();
        next.body.clear();
        next.streamedBody = false;
        next.headers.removeIf([](const auto &h) {
            return h.first.compare("Content-Type", Qt::CaseInsensitive) == 0
                || h.first.compare("Content-Length", Qt::CaseInsensitive) == 0;
        });
    }
    if (hop.crossOrigin) {
        // Every header the redactor takes for a credential (one list, shared:
        // Authorization, Cookie, X-Api-Key, X-Auth-Token, ...) and the test id,
        // which selects the fault server's script, stay with their origin.
        next.headers.removeIf([&hop](const auto &h) {
            if (Redactor::isSensitiveHeader(h.first)
                || h.first.compare(QByteArrayView(RetryHeaders::testId), Qt::CaseInsensitive) == 0) {
                hop.droppedHeaders.append(h.first);
                return true;
            }
            return false;
        });
    }
    return step;
}

void closeHopTiming(RedirectHop &hop, AttemptRecord &attempt, qint64 nowNs)
{
    hop.startNs = attempt.lastExchangeStartNs();
    hop.connectionStartedNs = std::exchange(attempt.connectionStartedNs, -1);
    hop.requestSentNs = std::exchange(attempt.requestSentNs, -1);
    hop.firstByteNs = std::exchange(attempt.firstByteNs, -1);
    hop.finishedNs = nowNs;
}

QString hostKey(const QUrl &url)
{
    const int port = url.port(url.scheme() == QLatin1String("https") ? 443 : 80);
    return url.host() + QLatin1Char(':') + QString::number(port);
}

QString describeRedirects(const QList<RedirectHop> &hops)
{
    const Redactor redactor;
    QString text;
    const auto followed = std::count_if(hops.cbegin(), hops.cend(),
        [](const RedirectHop &h) { return h.followed && h.kind == RedirectHop::Kind::Redirect; });
    if (followed > 0)
        text += Tr::tr("; followed %n redirect(s)", nullptr, int(followed));
    for (const RedirectHop &hop : hops) {
        const QString to = redactor.urlString(hop.to);
        if (hop.kind == RedirectHop::Kind::Token) {
            if (hop.followed)
                text += Tr::tr("; an access token from %1 first").arg(redactor.urlString(hop.from));
        } else if (hop.kind == RedirectHop::Kind::Challenge) {
            if (hop.followed)
                text += Tr::tr("; the server's %1 challenge answered").arg(hop.status);
        } else if (!hop.followed) {
            text += Tr::tr("; the %1 redirect to %2 was not followed: %3").arg(hop.status).arg(to, hop.note);
        } else if (!hop.droppedHeaders.isEmpty()) {
            QStringList names;
            for (const QByteArray &name : hop.droppedHeaders)
                names.append(QString::fromLatin1(name));
            text += Tr::tr("; %1 not sent to %2 (another origin)").arg(names.join(QStringLiteral(", ")), to);
        }
    }
    return text;
}

} // namespace RetryLab::Core
