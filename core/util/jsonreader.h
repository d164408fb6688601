#pragma once

#include "core/util/result.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonParseError>
#include <QJsonValue>
#include <QLatin1String>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <limits>
#include <memory>
#include <optional>

namespace RetryLab::Core {

/// Whether a field may be left out.
enum class Presence { Optional, Required };

/// Reads a JSON object or array field by field and knows where it is
/// ("requests[2].policy.classification.maxRetryAfterMs"), so that every format
/// of RetryLab (policies, reports, scenarios, stored settings) refuses input in
/// the same words and reports the place apart from the sentence, as
/// Error{path, message}: a caller that needs the field reads `path` and never
/// parses the message.
///
/// The typed getters return the value, or nothing when the field is absent
/// (an error if it is Required) or cannot be used (always an error). Readers
/// of nested objects and arrays extend the path and share the errors of the
/// reader they came from. In FirstError mode the first error is the one kept
/// (a file that is refused names its first mistake); in Salvage mode every
/// error is kept, so that stored settings can keep whatever is still valid
/// and say what was not.
class JsonReader final
{
public:
    enum class Mode {
        FirstError, ///< keep the first error: the input is refused
        Salvage, ///< keep every error: the caller keeps what is valid
    };

    /// A field of an object ("maxAttempts") or an element of an array (2).
    class Key
    {
    public:
        Key(const QString &name) : m_name(name) { } // NOLINT(google-explicit-constructor)
        Key(QLatin1String name) : m_name(name) { } // NOLINT(google-explicit-constructor)
        Key(qsizetype index) : m_index(index) { } // NOLINT(google-explicit-constructor)
        Key(int index) : m_index(index) { } // NOLINT(google-explicit-constructor)

        bool isIndex() const { return m_index >= 0; }
        const QString &name() const { return m_name; }
        qsizetype index() const { return m_index; }

    private:
        QString m_name;
        qsizetype m_index = -1;
    };

    explicit JsonReader(const QJsonObject &object, QString path = {}, Mode mode = Mode::FirstError);
    explicit JsonReader(const QJsonArray &array, QString path = {}, Mode mode = Mode::FirstError);

    // --- where ---

    /// The path of what this reader reads; empty at the top.
    const QString &path() const { return m_path; }
    /// "requests[2]" + "url" gives "requests[2].url", + 3 gives "requests[2][3]";
    /// an empty name gives the reader's own path.
    QString pathOf(const Key &key) const;

    bool isArray() const { return m_isArray; }
    /// Elements of an array, fields of an object.
    qsizetype size() const;
    const QJsonObject &object() const { return m_object; }
    const QJsonArray &array() const { return m_array; }
    bool contains(const Key &key) const;
    /// The raw value (undefined when absent), for formats with conventions of their own.
    QJsonValue value(const Key &key) const;

    // --- errors ---

    /// True once any reader of this tree has recorded an error.
    bool failed() const;
    /// Records `message` about the field or element.
    void fail(const Key &key, const QString &message);
    /// Records an error of another reader (a module's own format) found at `key`:
    /// its path is nested under this one, as Error::under() does.
    void fail(const Key &key, const Error &inner);
    /// Records `message` about what this reader reads as a whole.
    void failHere(const QString &message);
    /// The first error; empty when none.
    Error firstError() const;
    /// Every error (in FirstError mode, at most one).
    QList<Error> errors() const;
    /// The value, or the first error.
    template<typename T>
    Result<T> result(T value) const
    {
        if (failed())
            return Result<T>(firstError());
        return Result<T>(std::move(value));
    }

    // --- values ---

    /// True when the field is there; records "missing" when it is not. For
    /// fields whose format has conventions of its own (read through value()).
    bool require(const Key &key);

    std::optional<QString> string(const Key &key, Presence presence = Presence::Optional);
    std::optional<bool> boolean(const Key &key, Presence presence = Presence::Optional);
    /// A whole number in [min, max].
    std::optional<qint64> integer(const Key &key, qint64 min = std::numeric_limits<qint64>::min(),
        qint64 max = std::numeric_limits<qint64>::max(), Presence presence = Presence::Optional);
    /// A finite number in [min, max].
    std::optional<double> number(const Key &key, double min = -std::numeric_limits<double>::max(),
        double max = std::numeric_limits<double>::max(), Presence presence = Presence::Optional);
    /// One of the names of `all`. `unknownMessage` takes the value as %1 and the
    /// known names as %2 ("unknown algorithm \"%1\" (known: %2)").
    template<typename E>
    std::optional<E> named(const Key &key, const QList<E> &all, QString (*nameOf)(E),
        Presence presence = Presence::Optional, const QString &unknownMessage = {})
    {
        QStringList names;
        for (E each : all)
            names.append(nameOf(each));
        const auto index = nameIndex(key, names, presence, unknownMessage);
        if (!index)
            return std::nullopt;
        return all.at(*index);
    }

    /// A nested object, read by a reader whose path goes on from this one.
    std::optional<JsonReader> object(const Key &key, Presence presence = Presence::Optional);
    /// A nested array, read by a reader whose path goes on from this one.
    std::optional<JsonReader> array(const Key &key, Presence presence = Presence::Optional);

    /// Arrays of one type; an element of another type is an error at its index.
    std::optional<QStringList> strings(const Key &key, Presence presence = Presence::Optional);
    std::optional<QList<qint64>> integers(const Key &key, qint64 min = std::numeric_limits<qint64>::min(),
        qint64 max = std::numeric_limits<qint64>::max(), Presence presence = Presence::Optional);
    std::optional<QList<double>> numbers(const Key &key, double min = -std::numeric_limits<double>::max(),
        double max = std::numeric_limits<double>::max(), Presence presence = Presence::Optional);

    /// Refuses fields that are not in `known`, naming the closest known one
    /// ("unknown field; did you mean \"idempotent\"?"), or listing them all when
    /// none is close: a misspelt field must not be silently ignored.
    void rejectUnknown(const QStringList &known);

    /// "a string", "an object", "null"...: what a value is, for messages.
    static QString describe(const QJsonValue &value);
    /// The known name closest to `name` by edit distance (ignoring case), if
    /// one is close enough to be a slip of the keyboard.
    static std::optional<QString> closestName(const QString &name, const QStringList &known);

private:
    struct State;

    JsonReader(const QJsonObject &object, QString path, std::shared_ptr<State> state);
    JsonReader(const QJsonArray &array, QString path, std::shared_ptr<State> state);

    // The value at `key`, or nothing (with "missing" when required) if absent.
    std::optional<QJsonValue> present(const Key &key, Presence presence);
    std::optional<qsizetype> nameIndex(
        const Key &key, const QStringList &names, Presence presence, const QString &unknownMessage);
    template<typename T, typename Read>
    std::optional<QList<T>> listOf(const Key &key, Presence presence, Read read);

    QJsonObject m_object;
    QJsonArray m_array;
    bool m_isArray = false;
    QString m_path;
    std::shared_ptr<State> m_state;
};

/// "line 3, column 14" of a byte offset into the UTF-8 `text`, counting
/// characters, not bytes, so that an editor finds the spot.
QString lineAndColumn(const QByteArray &text, qsizetype offset);

/// A text QJsonDocument refused: "line 2, column 6: not valid JSON: ..." with no
/// path, and the offset of the place in the text as a QString.
Error jsonSyntaxError(const QByteArray &text, const QJsonParseError &error);

/// What could be kept of a stored object that did not read as a whole.
template<typename T>
struct Salvaged
{
    /// What could be read; T{} (or the caller's defaults) when nothing could.
    T value{};
    /// Each field that was left out (and so has its default), with why: the
    /// path is the field, the message the problem it caused.
    QList<Error> leftOut;
    /// Set when not even a part could be read; `value` is then the default.
    std::optional<Error> unreadable;

    bool clean() const { return leftOut.isEmpty() && !unreadable; }
};

namespace JsonSalvage {

/// The non-template part of salvage(): `errorOf` is nothing when an object
/// reads, or the error it causes. Returns the fields left out, or the error of
/// the whole when no subset of the fields reads.
struct Plan
{
    QList<Error> leftOut;
    std::optional<Error> unreadable;
};
Plan plan(const QJsonObject &object, const std::function<std::optional<Error>(const QJsonObject &)> &errorOf,
    const QStringList &listsByElement);

/// Reads a stored object with a strict reader (`parse`: QJsonObject -> Result<T>)
/// and, when the whole is refused, leaves out the fields that make it fail,
/// finest first (a key of a nested object, an element of a list named in
/// `listsByElement`, then a whole key), so that each keeps its default and the
/// rest is kept. A reader names the first field it refuses, so a field whose
/// removal changes the error, and is not what the new error is about, was at fault.
template<typename T, typename Parse>
Salvaged<T> salvage(const QJsonObject &object, Parse parse, const QStringList &listsByElement = {})
{
    std::optional<T> last;
    const auto errorOf = [&](const QJsonObject &candidate) -> std::optional<Error> {
        auto result = parse(candidate);
        if (!result)
            return result.errorDetail();
        last = std::move(result).value();
        return std::nullopt;
    };
    Plan found = plan(object, errorOf, listsByElement);
    Salvaged<T> out;
    out.leftOut = std::move(found.leftOut);
    out.unreadable = std::move(found.unreadable);
    if (!out.unreadable && last)
        out.value = std::move(*last);
    return out;
}

} // namespace JsonSalvage

} // namespace RetryLab::Core
