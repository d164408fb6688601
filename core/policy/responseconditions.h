#pragma once

#include "core/http/httpheaders.h"
#include "core/policy/backoffpolicy.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// The conditions of ClassificationRules::retryOnResponse: what each means, why
/// one cannot be used, whether a response meets one, and the text the policy
/// editor shows them in, one condition per line:
///
///     json /status = "PENDING"      the JSON body's value at the pointer equals the JSON value
///     header X-Retry = yes          the header is there with that value
///     header X-Pending              the header is there
///     body try again                the body contains the text ("..." keeps spaces at the ends)
///
/// Empty lines and lines starting with # are skipped.
namespace ResponseConditions {

/// "json", "header" or "body": the word that starts a condition's line, and the
/// end of the cause of an attempt it retries ("response-json").
QString kindName(ResponseRetryCondition::Kind kind);

/// Where a condition is wrong, and why.
struct Problem
{
    /// The key of the condition's object that is wrong: "jsonPointer", "header" or "bodyContains".
    QString key;
    QString message;
};
/// Why `condition` cannot be used (a pointer that does not parse, an empty or
/// malformed header name, an empty text); nullopt when it can.
std::optional<Problem> problemOf(const ResponseRetryCondition &condition);

/// The first of `conditions` a response meets, and what was found.
struct Match
{
    int index = -1; ///< in the list
    ResponseRetryCondition::Kind kind = ResponseRetryCondition::Kind::JsonPointer;
    /// For people: `/status is "PENDING"`, `X-Retry is "yes"`, `the body contains "try again"`.
    QString found;
};
/// Checks `conditions` in order against a response's headers and body. The
/// body is parsed as JSON once, and only when a JSON condition is there; a
/// body that is not JSON meets no JSON condition.
std::optional<Match> match(
    const QList<ResponseRetryCondition> &conditions, const HeaderList &headers, const QByteArray &body);

/// One condition as a line of the editor's text.
QString formatLine(const ResponseRetryCondition &condition);
/// The conditions, one line each.
QString format(const QList<ResponseRetryCondition> &conditions);
/// Reads format()'s text back; a line that does not read is refused with its
/// number and the way to write it. Whether a pointer or a header name can be
/// used is problemOf()'s call (validatePolicy() asks it).
Result<QList<ResponseRetryCondition>> parse(const QString &text);

} // namespace ResponseConditions

} // namespace RetryLab::Core
