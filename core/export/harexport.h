#pragma once

#include "core/export/exportoptions.h"
#include "core/record/runrecord.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>

namespace RetryLab::Core {

/// A run as HAR 1.2 (HTTP Archive), for browsers' network panels and HAR tools.
///
/// Every attempt is one entry, sorted by start time, and every logical request
/// one page, so that a viewer groups the retries of a request. An attempt that
/// got no response is still a valid entry: status 0, an empty httpVersion and
/// the error in `response._error`. Custom fields (HAR allows names starting
/// with "_"): `_requestId`, `_attemptIndex`, `_step`, `_sequenceRound`,
/// `_plannedDelayMs`, `_actualDelayMs`, `_queuedMs`, `_nextDelayMs`,
/// `_retryAfterMs`, `_end`, `_classification` (the cause, e.g. "http-503"),
/// `_decision` and `_reason`; the log carries `_policy`.
///
/// `serverIPAddress` is written when the URL's host is an IP address (the
/// records do not hold the peer address of a resolved name); `connection` is
/// not written because Qt does not report a connection id.
namespace HarExport {

/// HAR timings of one attempt, in milliseconds, from the record's timing points:
/// blocked = start to connectionStarted, connect = connectionStarted to
/// requestSent (Qt reports no "connected" instant, so DNS, TCP, TLS and sending
/// the request are all in it), send = start to requestSent on a reused
/// connection, wait = requestSent to firstByte, receive = firstByte to end.
/// Unknown phases are -1 (optional ones) or 0; the known ones add up to the
/// attempt's duration.
struct Timings
{
    double blocked = -1.0;
    double dns = -1.0;
    double connect = -1.0;
    double ssl = -1.0;
    double send = 0.0;
    double wait = 0.0;
    double receive = 0.0;

    double total() const;
};

Timings timingsOf(const AttemptRecord &attempt);
/// The phases of one exchange between monotonic instants (-1: did not happen).
Timings timingsBetween(qint64 start, qint64 connectionStarted, qint64 requestSent, qint64 firstByte, qint64 end);

QJsonObject toJsonObject(const RunRecord &run, const ExportOptions &options = {});
QByteArray toJson(const RunRecord &run, const ExportOptions &options = {});
Result<qint64> writeFile(const QString &path, const RunRecord &run, const ExportOptions &options = {});

/// One request as a HAR entry, before or without sending it ("export a request
/// as HAR"): the request as RetryLab sends it (with the Content-Type the
/// executor adds when none is given as postData's mimeType), a response with
/// status 0 and the comment that none was sent, zero timings, and RetryLab's
/// fields for what HAR has no place for: `_label`, `_idempotent`,
/// `_attemptTimeoutMs`, `_kind`, `_increment`, `_httpVersion` ("http1", "http2",
/// "http2-prior-knowledge"), so that HarImport reads it back as it was.
/// `started` is the entry's date (now when invalid). Credentials are redacted
/// unless the options say otherwise; the entry then carries the warning as its comment.
QJsonObject requestEntry(const RequestSpec &request, const ExportOptions &options = {}, const QDateTime &started = {});
/// A HAR document holding requestEntry() on a page of its own, titled as the
/// run export titles a request's page ("POST https://... (label)").
QJsonObject requestHar(const RequestSpec &request, const ExportOptions &options = {}, const QDateTime &started = {});

} // namespace HarExport

} // namespace RetryLab::Core
