#include "core/util/jsonreader.h"

#include "core/util/coretr.h"
#include "core/util/terminaltext.h"

#include <QLocale>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace RetryLab::Core {

struct JsonReader::State
{
    Mode mode = Mode::FirstError;
    QList<Error> errors;

    void record(Error error)
    {
        if (mode == Mode::FirstError && !errors.isEmpty())
            return;
        errors.append(std::move(error));
    }
};

namespace {

int editDistance(const QString &a, const QString &b)
{
    QList<int> previous(b.size() + 1);
    QList<int> current(b.size() + 1);
    for (qsizetype j = 0; j <= b.size(); ++j)
        previous[j] = static_cast<int>(j);
    for (qsizetype i = 1; i <= a.size(); ++i) {
        current[0] = static_cast<int>(i);
        for (qsizetype j = 1; j <= b.size(); ++j) {
            const int substitution = previous[j - 1] + (a[i - 1].toLower() == b[j - 1].toLower() ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
        }
        std::swap(previous, current);
    }
    return previous[b.size()];
}

// A whole number as people write it, without an exponent while that stays short.
QString wholeText(double value)
{
    return std::abs(value) < 1e15 ? QString::number(value, 'f', 0)
                                  : QString::number(value, 'g', QLocale::FloatingPointShortest);
}

} // namespace

JsonReader::JsonReader(const QJsonObject &object, QString path, Mode mode)
    : JsonReader(object, std::move(path), std::make_shared<State>(State{mode, {}}))
{ }

JsonReader::JsonReader(const QJsonArray &array, QString path, Mode mode)
    : JsonReader(array, std::move(path), std::make_shared<State>(State{mode, {}}))
{ }

JsonReader::JsonReader(const QJsonObject &object, QString path, std::shared_ptr<State> state)
    : m_object(object), m_path(std::move(path)), m_state(std::move(state))
{ }

JsonReader::JsonReader(const QJsonArray &array, QString path, std::shared_ptr<State> state)
    : m_array(array), m_isArray(true), m_path(std::move(path)), m_state(std::move(state))
{ }

QString JsonReader::pathOf(const Key &key) const
{
    if (key.isIndex())
        return m_path + QLatin1Char('[') + QString::number(key.index()) + QLatin1Char(']');
    if (key.name().isEmpty())
        return m_path;
    // A key is the file's text: a 15 MB one is named by its start and size, not copied into every message.
    const QString name = TerminalText::elided(key.name(), TerminalText::echoLimit);
    if (m_path.isEmpty())
        return name;
    return m_path + QLatin1Char('.') + name;
}

qsizetype JsonReader::size() const
{
    return m_isArray ? m_array.size() : m_object.size();
}

bool JsonReader::contains(const Key &key) const
{
    if (key.isIndex())
        return m_isArray && key.index() < m_array.size();
    return !m_isArray && m_object.contains(key.name());
}

QJsonValue JsonReader::value(const Key &key) const
{
    if (!contains(key))
        return QJsonValue(QJsonValue::Undefined);
    return key.isIndex() ? m_array.at(key.index()) : m_object.value(key.name());
}

bool JsonReader::failed() const
{
    return !m_state->errors.isEmpty();
}

void JsonReader::fail(const Key &key, const QString &message)
{
    m_state->record(Error{pathOf(key), message});
}

void JsonReader::fail(const Key &key, const Error &inner)
{
    m_state->record(inner.under(pathOf(key)));
}

void JsonReader::failHere(const QString &message)
{
    m_state->record(Error{m_path, message});
}

Error JsonReader::firstError() const
{
    return m_state->errors.isEmpty() ? Error{} : m_state->errors.constFirst();
}

QList<Error> JsonReader::errors() const
{
    return m_state->errors;
}

bool JsonReader::require(const Key &key)
{
    return present(key, Presence::Required).has_value();
}

std::optional<QJsonValue> JsonReader::present(const Key &key, Presence presence)
{
    if (!contains(key)) {
        if (presence == Presence::Required)
            fail(key, Tr::tr("missing"));
        return std::nullopt;
    }
    return value(key);
}

std::optional<QString> JsonReader::string(const Key &key, Presence presence)
{
    const auto v = present(key, presence);
    if (!v)
        return std::nullopt;
    if (!v->isString()) {
        fail(key, Tr::tr("expected a string, got %1").arg(describe(*v)));
        return std::nullopt;
    }
    return v->toString();
}

std::optional<bool> JsonReader::boolean(const Key &key, Presence presence)
{
    const auto v = present(key, presence);
    if (!v)
        return std::nullopt;
    if (!v->isBool()) {
        fail(key, Tr::tr("expected true or false, got %1").arg(describe(*v)));
        return std::nullopt;
    }
    return v->toBool();
}

std::optional<qint64> JsonReader::integer(const Key &key, qint64 min, qint64 max, Presence presence)
{
    const auto v = present(key, presence);
    if (!v)
        return std::nullopt;
    if (!v->isDouble()) {
        fail(key, Tr::tr("expected a whole number, got %1").arg(describe(*v)));
        return std::nullopt;
    }
    const double d = v->toDouble();
    if (!std::isfinite(d) || d != std::floor(d)) {
        fail(key, Tr::tr("expected a whole number, got %1").arg(d));
        return std::nullopt;
    }
    // 2^63 itself does not fit a qint64, although double(max) rounds up to it.
    if (d < double(min) || d > double(max) || std::abs(d) >= 0x1p63) {
        fail(key, Tr::tr("%1 is out of range (%2 to %3)").arg(wholeText(d)).arg(min).arg(max));
        return std::nullopt;
    }
    return static_cast<qint64>(d);
}

std::optional<double> JsonReader::number(const Key &key, double min, double max, Presence presence)
{
    const auto v = present(key, presence);
    if (!v)
        return std::nullopt;
    if (!v->isDouble()) {
        fail(key, Tr::tr("expected a number, got %1").arg(describe(*v)));
        return std::nullopt;
    }
    const double d = v->toDouble();
    if (!std::isfinite(d)) {
        fail(key, Tr::tr("expected a finite number, got %1").arg(d));
        return std::nullopt;
    }
    if (d < min || d > max) {
        fail(key, Tr::tr("%1 is out of range (%2 to %3)").arg(d).arg(min).arg(max));
        return std::nullopt;
    }
    return d;
}

std::optional<qsizetype> JsonReader::nameIndex(
    const Key &key, const QStringList &names, Presence presence, const QString &unknownMessage)
{
    const auto text = string(key, presence);
    if (!text)
        return std::nullopt;
    const qsizetype index = names.indexOf(*text);
    if (index < 0) {
        const QString message = unknownMessage.isEmpty() ? Tr::tr("unknown value \"%1\" (known: %2)") : unknownMessage;
        fail(key, message.arg(TerminalText::elided(*text), names.join(QStringLiteral(", "))));
        return std::nullopt;
    }
    return index;
}

std::optional<JsonReader> JsonReader::object(const Key &key, Presence presence)
{
    const auto v = present(key, presence);
    if (!v)
        return std::nullopt;
    if (!v->isObject()) {
        fail(key, Tr::tr("expected an object, got %1").arg(describe(*v)));
        return std::nullopt;
    }
    return JsonReader(v->toObject(), pathOf(key), m_state);
}

std::optional<JsonReader> JsonReader::array(const Key &key, Presence presence)
{
    const auto v = present(key, presence);
    if (!v)
        return std::nullopt;
    if (!v->isArray()) {
        fail(key, Tr::tr("expected an array, got %1").arg(describe(*v)));
        return std::nullopt;
    }
    return JsonReader(v->toArray(), pathOf(key), m_state);
}

template<typename T, typename Read>
std::optional<QList<T>> JsonReader::listOf(const Key &key, Presence presence, Read read)
{
    auto elements = array(key, presence);
    if (!elements)
        return std::nullopt;
    QList<T> list;
    list.reserve(elements->size());
    for (qsizetype i = 0; i < elements->size(); ++i) {
        const std::optional<T> element = read(*elements, i);
        if (!element)
            return std::nullopt;
        list.append(*element);
    }
    return list;
}

std::optional<QStringList> JsonReader::strings(const Key &key, Presence presence)
{
    return listOf<QString>(key, presence, [](JsonReader &r, qsizetype i) { return r.string(i); });
}

std::optional<QList<qint64>> JsonReader::integers(const Key &key, qint64 min, qint64 max, Presence presence)
{
    return listOf<qint64>(key, presence, [=](JsonReader &r, qsizetype i) { return r.integer(i, min, max); });
}

std::optional<QList<double>> JsonReader::numbers(const Key &key, double min, double max, Presence presence)
{
    return listOf<double>(key, presence, [=](JsonReader &r, qsizetype i) { return r.number(i, min, max); });
}

void JsonReader::rejectUnknown(const QStringList &known)
{
    if (m_isArray)
        return;
    // The first few are named, with a suggestion each; a file of a million unknown keys
    // took seconds to refuse when every one was compared with every known name.
    constexpr int namedAtMost = 20;
    int unknown = 0;
    for (auto it = m_object.begin(); it != m_object.end(); ++it) {
        if (known.contains(it.key()) || ++unknown > namedAtMost)
            continue;
        const auto suggestion = closestName(it.key(), known);
        fail(it.key(),
            suggestion ? Tr::tr("unknown field; did you mean \"%1\"?").arg(*suggestion)
                       : Tr::tr("unknown field (known: %1)").arg(known.join(QStringLiteral(", "))));
    }
    if (unknown > namedAtMost)
        failHere(Tr::tr("%1 more unknown fields").arg(unknown - namedAtMost));
}

QString JsonReader::describe(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
        return Tr::tr("null");
    case QJsonValue::Bool:
        return Tr::tr("true or false");
    case QJsonValue::Double:
        return Tr::tr("a number");
    case QJsonValue::String:
        return Tr::tr("a string");
    case QJsonValue::Array:
        return Tr::tr("an array");
    case QJsonValue::Object:
        return Tr::tr("an object");
    case QJsonValue::Undefined:
        break;
    }
    return Tr::tr("nothing");
}

std::optional<QString> JsonReader::closestName(const QString &name, const QStringList &known)
{
    // Two edits cover a swapped pair of letters or one left out and one doubled;
    // more than that suggests a different word rather than a slip.
    std::optional<QString> suggestion;
    int best = 3;
    for (const QString &candidate : known) {
        if (std::abs(name.size() - candidate.size()) >= best)
            continue; // the edit distance is at least the difference in length: no need to compute it
        const int distance = editDistance(name, candidate);
        if (distance < best) {
            best = distance;
            suggestion = candidate;
        }
    }
    return suggestion;
}

QString lineAndColumn(const QByteArray &text, qsizetype offset)
{
    offset = std::clamp<qsizetype>(offset, 0, text.size());
    const QByteArrayView before(text.constData(), offset);
    const qsizetype line = before.count('\n') + 1;
    const qsizetype lineStart = before.lastIndexOf('\n') + 1;
    // Columns count characters, not bytes, so that an editor finds the spot.
    const qsizetype column = QString::fromUtf8(before.sliced(lineStart)).size() + 1;
    return Tr::tr("line %1, column %2").arg(line).arg(column);
}

Error jsonSyntaxError(const QByteArray &text, const QJsonParseError &error)
{
    const qsizetype offset = std::clamp<qsizetype>(error.offset, 0, text.size());
    return Error{QString(), Tr::tr("%1: not valid JSON: %2").arg(lineAndColumn(text, offset), error.errorString()),
        QString::fromUtf8(text.first(offset)).size()};
}

namespace JsonSalvage {

namespace {

// A part of an object that can be left out on its own: a key, a key of a nested
// object ("circuitBreaker.openMs") or an element of a list ("headers[2]").
struct Part
{
    QString key;
    QString subKey;
    qsizetype index = -1;

    QString path() const
    {
        if (!subKey.isEmpty())
            return key + QLatin1Char('.') + subKey;
        if (index >= 0)
            return QStringLiteral("%1[%2]").arg(key).arg(index);
        return key;
    }
};

// The finer parts first, so that as little as possible is left out.
QList<Part> partsOf(const QJsonObject &object, const QStringList &listsByElement)
{
    QList<Part> parts;
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it->isObject()) {
            const QJsonObject nested = it->toObject();
            for (auto sub = nested.begin(); sub != nested.end(); ++sub)
                parts.append({it.key(), sub.key(), -1});
        } else if (it->isArray() && listsByElement.contains(it.key())) {
            // From the end, so that the indexes of the elements before stay right.
            for (qsizetype i = it->toArray().size() - 1; i >= 0; --i)
                parts.append({it.key(), {}, i});
        }
        parts.append({it.key(), {}, -1});
    }
    return parts;
}

QJsonObject without(QJsonObject object, const Part &part)
{
    if (!part.subKey.isEmpty()) {
        QJsonObject nested = object.value(part.key).toObject();
        nested.remove(part.subKey);
        object.insert(part.key, nested);
    } else if (part.index >= 0) {
        QJsonArray list = object.value(part.key).toArray();
        list.removeAt(part.index);
        object.insert(part.key, list);
    } else {
        object.remove(part.key);
    }
    return object;
}

bool isAbout(const Error &error, const QString &key)
{
    return error.path == key || error.path.startsWith(key + QLatin1Char('.'))
        || error.path.startsWith(key + QLatin1Char('['));
}

// The part left out, and the problem that made it go.
Error leftOut(const Part &part, const Error &cause)
{
    const QString path = part.path();
    return Error{path, cause.path == path ? cause.message : cause.text()};
}

} // namespace

Plan plan(const QJsonObject &object, const std::function<std::optional<Error>(const QJsonObject &)> &errorOf,
    const QStringList &listsByElement)
{
    const std::optional<Error> whole = errorOf(object);
    if (!whole)
        return {};

    QJsonObject current = object;
    Error error = *whole;
    QList<Error> dropped;
    bool progressed = true;
    while (progressed) {
        progressed = false;
        for (const Part &part : partsOf(current, listsByElement)) {
            const QJsonObject trial = without(current, part);
            const std::optional<Error> trialError = errorOf(trial);
            if (!trialError) {
                dropped.append(leftOut(part, error));
                return {dropped, std::nullopt};
            }
            if (*trialError != error && !isAbout(*trialError, part.key)) {
                dropped.append(leftOut(part, error));
                current = trial;
                error = *trialError;
                progressed = true;
                break;
            }
        }
    }
    return {{}, whole};
}

} // namespace JsonSalvage

} // namespace RetryLab::Core
