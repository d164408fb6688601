#pragma once

#include "core/http/redactor.h"
#include "core/record/attemptrecord.h"
#include "core/record/expectationresult.h"
#include "core/record/runrecord.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// The Redactor applied to whole records: an export redacts each attempt (and
/// each request, final result and verdict it writes) once, in one pass, then
/// writes the copy it gets back without knowing which fields can carry a
/// credential. A writer that streams a run redacts one record at a time as it
/// writes it, so that no redacted copy of the whole run is ever held.
///
/// It is not a member of Redactor because the records live in core/record,
/// above core/http. What comes out masked, by the Redactor's rules:
///  - URLs: an attempt's, each redirect hop's `from` and `to`, a request's,
///    its fallback URLs and its read-modify-write `writeUrl`;
///  - header lists, and an attempt's raw Retry-After value as its header;
///  - bodies, each by the Content-Type of the headers it came with: an
///    attempt's request and response bodies, a request's, a final result's;
///  - free text: error strings, reasons, redirect notes, reason phrases,
///    labels, the names and messages of verdicts;
///  - a request's proxy user and password, its client key's passphrase and
///    the secrets of its auth (AuthSpec::secrets());
///  - those auth secrets by value wherever they appear (in a request's own
///    headers and URL, and, given the run, in every attempt's): an API key sent
///    under a name the name rule does not know ("X-Tenant", "?t=") is masked too.
/// Everything else (times, statuses, classification causes, TLS details) is
/// copied as it is. A disabled RecordRedactor returns copies of its input.
class RecordRedactor final
{
public:
    /// Whether the copy carries the bodies. Parsing a JSON body is the costly
    /// part of redaction: a writer that writes no body leaves them out.
    enum class Bodies {
        Include, ///< redacted
        Omit, ///< emptied (the *BodyDropped flags are left as they were)
    };

    explicit RecordRedactor(bool enabled = true) : m_redactor(enabled) { }
    /// Also masks the auth secrets of every request of `run` by value.
    RecordRedactor(bool enabled, const RunRecord &run);

    bool isEnabled() const { return m_redactor.isEnabled(); }

    AttemptRecord redacted(const AttemptRecord &attempt, Bodies bodies = Bodies::Include) const;
    RequestSpec redacted(const RequestSpec &request, Bodies bodies = Bodies::Include) const;
    /// `responseHeaders`: those of the response the result's body came with
    /// (its request's last attempt's), whose Content-Type says how to read it.
    RequestResult redacted(const RequestResult &result, const HeaderList &responseHeaders) const;
    ExpectationResult redacted(const ExpectationResult &verdict) const;
    /// Free text that belongs to no record, such as a suite's or a policy's name.
    QString redactedText(const QString &text) const;

private:
    static void addSecretsOf(const RequestSpec &request, QStringList *secrets);

    Redactor m_redactor;
    /// The run's auth secrets, as SecretMask looks for them.
    QList<QByteArray> m_secretForms;
};

} // namespace RetryLab::Core
