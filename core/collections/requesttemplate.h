#pragma once

#include "core/collections/requestdraft.h"
#include "core/record/attemptrecord.h"
#include "core/util/result.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QUrl>

#include <optional>
#include <utility>

namespace RetryLab::Core {

class DynamicVariables;

/// What the placeholders of a request stand for when one logical request is made.
struct ExpansionContext
{
    /// The embedded server's base URL ("http://127.0.0.1:PORT"); empty when it is not running.
    QUrl serverUrl;
    /// Why the server is not running, for the message when {server} is used anyway.
    QString serverProblem;
    /// What {id} becomes: a key of its own for every logical request.
    QString requestKey;
    /// The active environment's variables, for {{name}} (see Variables); resolved first.
    QHash<QString, QString> variables = {};
    /// Its name, for the message about an undefined variable; empty when none is active.
    QString environmentName = {};
    /// Postman's {{$guid}}, {{$timestamp}}... (DynamicVariables), resolved after
    /// the {{name}} ones; null: {{$name}} is left as written. Not owned.
    DynamicVariables *dynamic = nullptr;
};

/// Turns a RequestDraft into a RequestSpec. Two placeholders may appear in the URL,
/// header values and the body:
///   {server}  the embedded fault server's base URL, e.g. http://127.0.0.1:41234, so
///             that a saved request still works after a restart gives the server a new port
///   {id}      a new key for every logical request (the same for all its attempts), so
///             that "/fail/3?key={id}" fails three times for every request sent
/// {{name}} stands for a variable of the active environment (Variables), resolved
/// before the two placeholders; an undefined one is an error that names it.
/// Other braces are left alone in headers and bodies (JSON has plenty); in the URL an
/// unknown {word} is an error, because braces are not valid there anyway.
namespace RequestTemplate {

QString serverPlaceholder();
QString idPlaceholder();

/// Four random letters and digits for the keys {id} becomes ("k3f9-1",
/// "k3f9-2", ...): new for every run of the program, so that the keys stay
/// fresh on a server that outlives it (retrylab serve).
QString newKeyToken();

/// The first {word} in a URL that is not {server} or {id} ("{ide}"), or an empty
/// string: braces are not valid in a URL, so an unknown one is a typo, never text.
QString unknownPlaceholder(const QString &urlText);
/// Replaces {server} and {id} in `text`.
QString expand(const QString &text, const ExpansionContext &context);
/// True when the draft's URL, a header value or the body uses {server}.
bool usesServer(const RequestDraft &draft);

/// The expanded URL, or why it cannot be sent (empty, unknown placeholder, no server,
/// not http(s), no host, not a valid URL).
Result<QUrl> url(const QString &urlTemplate, const ExpansionContext &context);
/// Why the method or a header cannot be sent; empty when they can.
QString methodProblem(const QString &method);
QString headerProblem(const DraftHeader &header, int row);

/// The request for one send, or everything that is wrong with it (the first problem).
Result<RequestSpec> build(const RequestDraft &draft, const ExpansionContext &context);

/// The requests of a batch: one draft sent many times, each with a key of its own
/// for {id}. build() gives what RequestTemplate::build() gives with that key. The
/// first request is built in full; when {id} stands (once {{variables}} are put in)
/// in the URL, header values or a raw body only, the next ones copy it and make
/// just those again with their key. Otherwise, and with dynamic variables (new
/// values for every request), every request is built in full. The files a request
/// reads (a form's, the transport's) are checked once then, for the first request.
class BatchBuilder final
{
public:
    /// `context` without its key (requestKey is ignored).
    BatchBuilder(RequestDraft draft, ExpansionContext context);

    /// The request whose {id} is `key`, or what is wrong with it.
    Result<RequestSpec> build(const QString &key);
    /// Whether requests after the first are made by putting their key in.
    bool putsKeysIn() const { return m_keyOnly; }

private:
    Result<RequestSpec> buildInFull(const QString &key);

    RequestDraft m_draft;
    ExpansionContext m_context;
    bool m_keyOnly = false;
    std::optional<RequestSpec> m_first; ///< built in full; the others copy it
    QString m_urlText; ///< {{variables}} and {server} put in, {id} left; null: the URL has no {id}
    QList<std::pair<qsizetype, QString>> m_keyedHeaders; ///< the request's header at, its value with {id} left
    QString m_keyedBody; ///< the raw body with {id} left; null: it has no {id}
};

} // namespace RequestTemplate

} // namespace RetryLab::Core
