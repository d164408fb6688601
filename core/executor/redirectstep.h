#pragma once

#include "core/executor/hoprequest.h"
#include "core/record/attemptrecord.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QUrl>

#include <optional>

namespace RetryLab::Core {

/// What the executor does with a redirect: the hop as the record shows it
/// and, when `hop.followed`, the request that goes to `hop.to`.
struct RedirectStep
{
    RedirectHop hop;
    HopRequest next; ///< only meaningful when hop.followed
};

/// Redirects followed within one attempt; browsers allow about 20, curl 50.
inline constexpr int maxRedirectsPerAttempt = 10;

/// 301, 302, 303, 307 or 308: the statuses nextHop() follows (given a Location).
bool isRedirectStatus(int status);

/// The step after `current` was answered with `status` and `location`, when
/// `redirectsSoFar` redirects were met in this attempt already. Nothing when
/// the answer is not a redirect (not 301, 302, 303, 307 or 308, or without a
/// Location): a 3xx like that is an answer like any other.
///
/// A redirect is not followed to an invalid URL, to a scheme other than http
/// and https, from https to http, or beyond maxRedirectsPerAttempt; hop.note
/// says why. As browsers and Qt do, 303 turns any method but HEAD into a GET
/// without a body, and so do 301 and 302 for a POST; 307 and 308 repeat the
/// request as it was. Authorization, Cookie and Proxy-Authorization never go
/// to another origin (scheme, host or port): hop.droppedHeaders lists those
/// that were left out.
std::optional<RedirectStep> nextHop(
    const HopRequest &current, int status, const QByteArray &location, qsizetype redirectsSoFar);

/// Ends the timing of a followed hop: the exchange's points so far (since
/// `attempt` started, or since its previous hop finished) move into `hop`,
/// which finishes at `nowNs`, and the attempt's start the next exchange afresh.
void closeHopTiming(RedirectHop &hop, AttemptRecord &attempt, qint64 nowNs);

/// "host:port", with the scheme's default port when the URL has none: the key
/// of a circuit breaker and, with the scheme, what makes an origin.
QString hostKey(const QUrl &url);

/// Appended to the reason of an attempt that met redirects, so that the log
/// and the exports say where the answer came from and what was left out.
/// Empty when `hops` is.
QString describeRedirects(const QList<RedirectHop> &hops);

} // namespace RetryLab::Core
