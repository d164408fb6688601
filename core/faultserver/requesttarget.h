#pragma once

#include "core/util/result.h"

#include <QLatin1StringView>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

struct HttpRequest;

/// A request's target as the endpoints read it: the percent-decoded path, its
/// segments, and the decoded query parameters (the first of a repeated name
/// counts), with bounded readers for the numbers in them. Every number a client
/// sends is bounded, and a bad one is refused with a message that names it.
class RequestTarget final
{
public:
    explicit RequestTarget(const HttpRequest &request);

    /// "/status/503", percent-decoded.
    const QString &path() const { return m_path; }
    /// The path's segments without the empty ones at either end: {"status", "503"}.
    const QStringList &segments() const { return m_segments; }
    /// A query parameter, decoded; nullopt when absent.
    std::optional<QString> query(QLatin1StringView name) const;

    /// The query parameter `name` as a whole number in [lo, hi]; absent: fallback.
    Result<qint64> integer(const char *name, qint64 lo, qint64 hi, qint64 fallback) const;
    /// The query parameter `name` as a finite number in [lo, hi] (lo excluded when openLow); absent: fallback.
    Result<double> real(const char *name, double lo, double hi, bool openLow, double fallback) const;

    /// Reads a whole decimal number in [lo, hi] (no sign, no exponent); absent: fallback.
    /// `what` names the value in the error: a parameter name, or a phrase marked with
    /// QT_TRANSLATE_NOOP; it is translated only when there is an error to report.
    static Result<qint64> readInteger(
        const std::optional<QString> &text, const char *what, qint64 lo, qint64 hi, qint64 fallback);
    /// Reads a finite decimal number in [lo, hi] (lo excluded when openLow); absent: fallback.
    static Result<double> readReal(
        const std::optional<QString> &text, const char *what, double lo, double hi, bool openLow, double fallback);

    /// A name of an /occ or /eventual resource: 1-128 of A-Z a-z 0-9 . _ ~ -
    static bool isResourceName(const QString &name);
    /// One of A-Z a-z 0-9 . _ ~ - (RFC 3986's unreserved characters): what a URL and
    /// JSON both carry as it is.
    static constexpr bool isUnreserved(QChar c)
    {
        const char16_t u = c.unicode();
        return (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9') || u == u'-'
            || u == u'.' || u == u'_' || u == u'~';
    }
    /// Client text quoted in a message, cut after `max` characters.
    static QString shortened(const QString &text, qsizetype max = 60);

private:
    QString m_path;
    QStringList m_segments;
    QList<QPair<QString, QString>> m_query;
};

} // namespace RetryLab::Core
