#pragma once

#include <QString>

#include <utility>
#include <variant>

namespace RetryLab::Core {

/// The outcome of a synchronous call that can fail: a value, or a message that
/// says what was wrong (naming the field or line where there is one).
template<typename T>
class Result
{
public:
    Result(T value) : m_data(std::move(value)) { } // NOLINT(google-explicit-constructor)

    static Result failure(QString message) { return Result(Error{std::move(message)}); }

    bool ok() const { return std::holds_alternative<T>(m_data); }
    explicit operator bool() const { return ok(); }

    const T &value() const & { return std::get<T>(m_data); }
    T &value() & { return std::get<T>(m_data); }
    T &&value() && { return std::get<T>(std::move(m_data)); }
    const T *operator->() const { return &value(); }
    const T &operator*() const & { return value(); }

    QString error() const { return ok() ? QString() : std::get<Error>(m_data).message; }

private:
    struct Error
    {
        QString message;
    };
    explicit Result(Error error) : m_data(std::move(error)) { }

    std::variant<T, Error> m_data;
};

} // namespace RetryLab::Core
