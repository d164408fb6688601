#pragma once

#include <QString>

#include <utility>
#include <variant>

namespace RetryLab::Core {

/// What went wrong in a synchronous call: where, as a path into the input
/// ("requests[2].policy.classification.maxRetryAfterMs"; empty when the whole
/// input is at fault or there is no input), and what, as a sentence for people.
/// Callers that need the place read `path` (and `offset`, for text); nobody
/// parses `message`.
struct Error
{
    QString path;
    QString message;
    /// For text inputs (a JSON file, a command line), where in the text the
    /// error is, as an index into it as a QString (what a QTextCursor takes);
    /// -1 when the input is not text or the place is not known.
    qsizetype offset = -1;

    /// "path: message", or the message alone without a path.
    QString text() const { return path.isEmpty() ? message : path + QStringLiteral(": ") + message; }
    /// The same error one level further out: "policy" + "maxAttempts" gives
    /// "policy.maxAttempts", "requests[2]" + "[0]" gives "requests[2][0]".
    Error under(const QString &outer) const
    {
        if (outer.isEmpty())
            return *this;
        if (path.isEmpty())
            return {outer, message, offset};
        const QString joined
            = path.startsWith(QLatin1Char('[')) ? QString(outer + path) : QString(outer + QLatin1Char('.') + path);
        return {joined, message, offset};
    }

    bool operator==(const Error &) const = default;
};

/// The outcome of a synchronous call that can fail: a value, or an Error.
/// Result<void> is the outcome of a call that has nothing to return.
template<typename T>
class Result
{
public:
    Result(T value) : m_data(std::move(value)) { } // NOLINT(google-explicit-constructor)
    Result(Error error) : m_data(std::move(error)) { } // NOLINT(google-explicit-constructor)

    static Result failure(QString message) { return Result(Error{QString(), std::move(message)}); }
    static Result failure(QString path, QString message) { return Result(Error{std::move(path), std::move(message)}); }

    bool ok() const { return std::holds_alternative<T>(m_data); }
    explicit operator bool() const { return ok(); }

    const T &value() const & { return std::get<T>(m_data); }
    T &value() & { return std::get<T>(m_data); }
    T &&value() && { return std::get<T>(std::move(m_data)); }
    const T *operator->() const { return &value(); }
    const T &operator*() const & { return value(); }

    /// The error as one sentence ("path: message"); empty when ok().
    QString error() const { return ok() ? QString() : std::get<Error>(m_data).text(); }
    /// The error with its path apart; empty when ok().
    Error errorDetail() const { return ok() ? Error{} : std::get<Error>(m_data); }

private:
    std::variant<T, Error> m_data;
};

template<>
class Result<void>
{
public:
    Result() = default;
    Result(Error error) : m_error(std::move(error)), m_failed(true) { } // NOLINT(google-explicit-constructor)

    static Result failure(QString message) { return Result(Error{QString(), std::move(message)}); }
    static Result failure(QString path, QString message) { return Result(Error{std::move(path), std::move(message)}); }

    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }

    QString error() const { return ok() ? QString() : m_error.text(); }
    Error errorDetail() const { return m_error; }

private:
    Error m_error;
    bool m_failed = false;
};

} // namespace RetryLab::Core
