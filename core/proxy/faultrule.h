#pragma once

#include "core/util/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// One fault rule of the proxy: which requests it matches, when it fires
/// among them, and what it does to the exchange.
///
/// Written as a line of `key=value` words (the `--fault` option, the rules
/// editor), or as a JSON object with the same keys (format `retrylab-faults`):
///
///     status=503 retry-after=2 p=0.3 path=/api/**
///     latency=lognormal:200:0.5 at=response method=GET
///     reset=after first=2 name=flaky-downloads
///
/// Match: `method=GET`, `host=*.example.com` (the host a forward proxy's request
/// is for, or the Host header's), `path=/api/**` (a PathPattern, as everywhere a path is
/// matched: `*` within a segment, `**` across segments, `?` one character),
/// `header=Name` (sent) or `header=Name:glob` (sent with a value matching the
/// glob, where `*` is any run of characters and `?` one).
/// When, all of which must hold: `p=0.3` (probability, seeded), `every=N` (the
/// Nth, 2Nth, ... matching request), `first=N` (the first N attempts of each
/// logical request, as the observer groups them), `from=S` and `to=S` (seconds
/// since the rules were set). `off` starts the rule switched off.
/// Fault, one per rule: `status=CODE` with an optional `retry-after=S` (answered
/// by the proxy, the upstream never sees the request); `latency=MS`,
/// `latency=MIN-MAX` (uniform) or `latency=lognormal:MEDIAN:SIGMA`, before
/// forwarding (`at=request`, the default) or before responding (`at=response`);
/// `bandwidth=BYTES` per second (`k` and `m` suffixes for KiB and MiB); `reset`
/// or `reset=before` (the upstream answers, the client gets a reset instead of
/// the answer), `reset=after` (after the headers), `reset=unsent` (at once,
/// not forwarded); `empty` (the connection closes without a byte, not
/// forwarded); `stall` (no answer ever, not forwarded); `cut=N` (the
/// connection closes after N bytes of the body); `corrupt` or `corrupt=N`
/// (every Nth byte of the body inverted, 1024 by default; the length is kept).
struct FaultRule
{
    enum class Kind { Status, Latency, Bandwidth, Reset, Empty, Stall, Cut, Corrupt };
    enum class ResetPoint { Unsent, BeforeHeaders, AfterHeaders };
    enum class LatencyShape { Fixed, Uniform, Lognormal };

    QString name; ///< unique within a rule set, no spaces; "rule-N" when not given
    bool enabled = true;

    // --- match
    QByteArray method; ///< empty: any
    /// `*` and `?` glob on the host a request is for, lowercase: the host of an
    /// absolute-form target or a CONNECT, else of the Host header; empty: any.
    QByteArray host;
    QString path; ///< PathPattern on the path (without the query); empty: any
    QByteArray headerName; ///< empty: no header condition
    QByteArray headerGlob; ///< empty: the header only has to be sent

    // --- when
    double probability = 1.0;
    int every = 0; ///< 0: every matching request
    int firstPerLogicalRequest = 0; ///< 0: any attempt
    std::optional<double> fromS;
    std::optional<double> toS;

    // --- what
    Kind kind = Kind::Status;
    int status = 503;
    std::optional<double> retryAfterS;
    LatencyShape latencyShape = LatencyShape::Fixed;
    double latencyMs = 0.0; ///< fixed value, uniform minimum, or lognormal median
    double latencyMaxMs = 0.0; ///< uniform maximum
    double latencySigma = 0.0; ///< lognormal sigma
    bool latencyBeforeResponse = false; ///< at=response
    qint64 bandwidthBytesPerS = 0;
    ResetPoint resetPoint = ResetPoint::BeforeHeaders;
    qint64 cutAfterBytes = 0;
    int corruptEvery = 1024;

    /// The rule as a `--fault` line; parse(spec()) gives the same rule.
    QString spec() const;
    /// The rule in words: "503 with Retry-After 2 s to 30 % of GET /api/*".
    QString describe() const;
    /// The rule answers without calling the upstream (status, empty, stall, reset=unsent).
    bool answersLocally() const;

    QJsonObject toJson() const;

    /// Reads one `--fault` line. Errors name the key: "p: must be between 0 and 1 (got 1.5)".
    static Result<FaultRule> parse(const QString &spec);
    /// Reads one rule of a `retrylab-faults` file; values may be strings or numbers.
    static Result<FaultRule> fromJson(const QJsonObject &object);

    /// `*` and `?` glob over the whole text (header values; paths take PathPattern).
    static bool globMatch(QByteArrayView glob, QByteArrayView text);

    bool operator==(const FaultRule &) const = default;
};

/// The rules of one proxy, as a `retrylab-faults` file holds them.
struct FaultRuleList
{
    /// The most rules one proxy takes: every request is checked against each.
    static constexpr qsizetype maxRules = 1000;

    QList<FaultRule> rules;
    std::optional<quint64> seed;

    QJsonObject toJson() const;
    /// Reads a `retrylab-faults` version 1 document. Errors name the rule and
    /// the field: `rules[1] ("outage").status: must be a status from 100 to 599 (got 700)`.
    static Result<FaultRuleList> fromJson(const QByteArray &json);
    /// Reads a `retrylab-faults` file of at most 16 MiB; errors name the file.
    static Result<FaultRuleList> readFile(const QString &path);
    /// Reads `--fault` lines; errors name the line: `--fault 2 ("p=2 status=503"): p: ...`.
    static Result<FaultRuleList> fromSpecs(const QStringList &specs);
    /// Refuses more than maxRules rules, saying how many there are.
    static Result<void> checkCount(qsizetype count);
    /// Gives each unnamed rule "rule-N" and makes names unique ("outage-2").
    void nameRules();
};

} // namespace RetryLab::Core
