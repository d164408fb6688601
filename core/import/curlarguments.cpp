#include "core/import/curlarguments.h"

#include "core/util/coretr.h"

#include <QCoreApplication>

namespace RetryLab::Core::CurlArguments {

namespace {

const ExtraOption *findExtra(const QList<ExtraOption> &extras, QStringView name)
{
    for (const auto &extra : extras) {
        if (extra.names.contains(name))
            return &extra;
    }
    return nullptr;
}

QString text(const QByteArray &bytes)
{
    return QString::fromUtf8(bytes);
}

} // namespace

Result<QList<Item>> walk(const QList<Argument> &arguments, const QList<ExtraOption> &extraOptions)
{
    QList<Item> items;
    bool options = true;
    const auto missing = [](const Argument &a, const QString &name, const char *valueName) {
        return a.where.error(valueName ? Tr::tr("%1 needs a value, %2").arg(name, QString::fromLatin1(valueName))
                                       : Tr::tr("%1 needs a value").arg(name));
    };
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const Argument &a = arguments[i];
        const QByteArray &t = a.text;
        if (options && t == "--") {
            options = false;
            continue;
        }
        if (options && t.startsWith("--") && t.size() > 2) {
            const QByteArray full = t.mid(2);
            const qsizetype eq = full.indexOf('=');
            const QByteArray name = eq >= 0 ? full.left(eq) : full;
            Item item;
            item.where = a.where;
            item.written = QStringLiteral("--") + text(name);
            if (const auto *extra = findExtra(extraOptions, text(name))) {
                item.kind = Item::Kind::Extra;
                item.extra = extra;
                if (extra->takesValue) {
                    if (eq >= 0)
                        item.value = full.mid(eq + 1);
                    else if (i + 1 < arguments.size())
                        item.value = arguments[++i].text;
                    else
                        return missing(a, item.written, nullptr);
                } else if (eq >= 0) {
                    return a.where.error(Tr::tr("%1 takes no value").arg(item.written));
                }
                items.append(item);
                continue;
            }
            item.kind = Item::Kind::Curl;
            const CurlOptionTable::LongMatch match = CurlOptionTable::findLong(QLatin1StringView(name));
            if (!match.candidates.isEmpty()) {
                return a.where.error(Tr::tr("%1 is ambiguous: it could be --%2")
                                         .arg(item.written, match.candidates.join(QStringLiteral(", --"))));
            }
            if (!match.entry) {
                item.written = text(t);
                items.append(item);
                continue;
            }
            item.entry = match.entry;
            item.negated = match.negated;
            if (match.entry->takesValue()) {
                if (eq >= 0)
                    item.value = full.mid(eq + 1);
                else if (i + 1 < arguments.size())
                    item.value = arguments[++i].text;
                else
                    return missing(a, item.written, match.entry->valueName);
            } else if (eq >= 0) {
                return a.where.error(Tr::tr("%1 takes no value").arg(item.written));
            }
            items.append(item);
            continue;
        }
        if (options && t.startsWith('-') && t.size() > 1) {
            for (qsizetype j = 1; j < t.size(); ++j) {
                const char letter = t[j];
                Item item;
                item.where = a.where;
                item.written = QStringLiteral("-") + QLatin1Char(letter);
                const QByteArray rest = t.mid(j + 1);
                if (const auto *extra = findExtra(extraOptions, QString(QLatin1Char(letter)))) {
                    item.kind = Item::Kind::Extra;
                    item.extra = extra;
                    if (extra->takesValue) {
                        if (!rest.isEmpty())
                            item.value = rest;
                        else if (i + 1 < arguments.size())
                            item.value = arguments[++i].text;
                        else
                            return missing(a, item.written, nullptr);
                        items.append(item);
                        break;
                    }
                    items.append(item);
                    continue;
                }
                item.kind = Item::Kind::Curl;
                item.entry = CurlOptionTable::findShort(letter);
                if (!item.entry) {
                    item.written = QStringLiteral("-") + text(t.mid(j));
                    items.append(item);
                    break;
                }
                if (item.entry->takesValue()) {
                    if (!rest.isEmpty())
                        item.value = rest;
                    else if (i + 1 < arguments.size())
                        item.value = arguments[++i].text;
                    else
                        return missing(a, item.written, item.entry->valueName);
                    items.append(item);
                    break;
                }
                items.append(item);
            }
            continue;
        }
        Item item;
        item.kind = Item::Kind::Positional;
        item.written = text(t);
        item.value = t;
        item.where = a.where;
        items.append(item);
    }
    return items;
}

} // namespace RetryLab::Core::CurlArguments
