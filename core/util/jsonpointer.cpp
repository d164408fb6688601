#include "core/util/jsonpointer.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>

namespace RetryLab::Core::JsonPointer {

namespace {

/// An array index as RFC 6901 writes it: digits, no leading zero.
std::optional<qsizetype> index(const QString &token, qsizetype size)
{
    if (token.isEmpty() || (token.size() > 1 && token.front() == QLatin1Char('0'))
        || !std::all_of(token.cbegin(), token.cend(), [](QChar c) { return c.isDigit(); }))
        return std::nullopt;
    bool ok = false;
    const qlonglong n = token.toLongLong(&ok);
    if (!ok || n >= size)
        return std::nullopt;
    return qsizetype(n);
}

bool setIn(QJsonValue &node, const QStringList &path, qsizetype at, const QJsonValue &value)
{
    if (at == path.size()) {
        node = value;
        return true;
    }
    const QString &token = path.at(at);
    if (node.isObject()) {
        QJsonObject object = node.toObject();
        const bool last = at + 1 == path.size();
        if (!object.contains(token) && !last)
            return false;
        QJsonValue child = object.value(token);
        if (!setIn(child, path, at + 1, value))
            return false;
        object.insert(token, child);
        node = object;
        return true;
    }
    if (node.isArray()) {
        QJsonArray array = node.toArray();
        const auto i = index(token, array.size());
        if (!i)
            return false;
        QJsonValue child = array.at(*i);
        if (!setIn(child, path, at + 1, value))
            return false;
        array.replace(*i, child);
        node = array;
        return true;
    }
    return false;
}

} // namespace

std::optional<QStringList> tokens(const QString &pointer)
{
    if (pointer.isEmpty())
        return QStringList{};
    if (!pointer.startsWith(QLatin1Char('/')))
        return std::nullopt;
    QStringList list = pointer.mid(1).split(QLatin1Char('/'));
    for (QString &token : list) {
        for (qsizetype i = token.indexOf(QLatin1Char('~')); i >= 0; i = token.indexOf(QLatin1Char('~'), i + 1)) {
            if (i + 1 >= token.size() || (token.at(i + 1) != QLatin1Char('0') && token.at(i + 1) != QLatin1Char('1')))
                return std::nullopt;
        }
        token.replace(QLatin1String("~1"), QLatin1String("/"));
        token.replace(QLatin1String("~0"), QLatin1String("~"));
    }
    return list;
}

bool isValid(const QString &pointer)
{
    return tokens(pointer).has_value();
}

std::optional<QJsonValue> get(const QJsonValue &document, const QString &pointer)
{
    const auto path = tokens(pointer);
    if (!path)
        return std::nullopt;
    QJsonValue node = document;
    for (const QString &token : *path) {
        if (node.isObject()) {
            const QJsonObject object = node.toObject();
            if (!object.contains(token))
                return std::nullopt;
            node = object.value(token);
        } else if (node.isArray()) {
            const QJsonArray array = node.toArray();
            const auto i = index(token, array.size());
            if (!i)
                return std::nullopt;
            node = array.at(*i);
        } else {
            return std::nullopt;
        }
    }
    return node;
}

bool set(QJsonValue &document, const QString &pointer, const QJsonValue &value)
{
    const auto path = tokens(pointer);
    if (!path)
        return false;
    QJsonValue copy = document;
    if (!setIn(copy, *path, 0, value))
        return false;
    document = copy;
    return true;
}

} // namespace RetryLab::Core::JsonPointer
