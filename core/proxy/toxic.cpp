#include "core/proxy/toxic.h"

#include "core/util/coretr.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QRegularExpression>

#include <array>
#include <cmath>

namespace RetryLab::Core {

namespace {

struct TypeEntry
{
    Toxic::Type type;
    const char *name;
};

constexpr std::array types{
    TypeEntry{Toxic::Type::Latency, "latency"},
    TypeEntry{Toxic::Type::Bandwidth, "bandwidth"},
    TypeEntry{Toxic::Type::SlowClose, "slow_close"},
    TypeEntry{Toxic::Type::Timeout, "timeout"},
    TypeEntry{Toxic::Type::ResetPeer, "reset_peer"},
    TypeEntry{Toxic::Type::Slicer, "slicer"},
    TypeEntry{Toxic::Type::LimitData, "limit_data"},
};

// One attribute: its name, where it lives in a Toxic, and its largest value.
struct Attribute
{
    const char *name;
    qint64 Toxic::*field;
    qint64 max;
};

QList<Attribute> attributesOf(Toxic::Type type)
{
    switch (type) {
    case Toxic::Type::Latency:
        return {{"latency", &Toxic::latencyMs, Toxic::maxMs}, {"jitter", &Toxic::jitterMs, Toxic::maxMs}};
    case Toxic::Type::Bandwidth:
        return {{"rate", &Toxic::rateKBps, 1'000'000'000}};
    case Toxic::Type::SlowClose:
        return {{"delay", &Toxic::delayMs, Toxic::maxMs}};
    case Toxic::Type::Timeout:
    case Toxic::Type::ResetPeer:
        return {{"timeout", &Toxic::timeoutMs, Toxic::maxMs}};
    case Toxic::Type::Slicer:
        return {{"average_size", &Toxic::averageSize, 16 * 1024 * 1024},
            {"size_variation", &Toxic::sizeVariation, 16 * 1024 * 1024},
            {"delay", &Toxic::delayUs, Toxic::maxMs * 1000}};
    case Toxic::Type::LimitData:
        return {{"bytes", &Toxic::bytes, std::numeric_limits<qint64>::max() / 2}};
    }
    return {};
}

Result<qint64> readWhole(const QJsonValue &value, qint64 max)
{
    double number = 0;
    if (value.isDouble()) {
        number = value.toDouble();
    } else if (value.isString()) {
        bool ok = false;
        number = value.toString().trimmed().toDouble(&ok);
        if (!ok)
            return Result<qint64>::failure(Tr::tr("must be a number (got \"%1\")").arg(value.toString().left(40)));
    } else {
        return Result<qint64>::failure(Tr::tr("must be a number"));
    }
    if (!std::isfinite(number) || number < 0 || number != std::floor(number))
        return Result<qint64>::failure(Tr::tr("must be a whole number 0 or more (got %1)").arg(number));
    if (number > double(max))
        return Result<qint64>::failure(Tr::tr("must be at most %1 (got %2)").arg(max).arg(number, 0, 'g', 17));
    return qint64(number);
}

Result<Toxic::Stream> readStream(const QString &text)
{
    if (text == QLatin1String("upstream") || text == QLatin1String("up"))
        return Toxic::Stream::Upstream;
    if (text == QLatin1String("downstream") || text == QLatin1String("down"))
        return Toxic::Stream::Downstream;
    return Result<Toxic::Stream>::failure(
        QStringLiteral("stream"), Tr::tr("must be \"upstream\" or \"downstream\" (got \"%1\")").arg(text.left(40)));
}

Result<double> readToxicity(const QJsonValue &value)
{
    bool ok = value.isDouble();
    double toxicity = value.toDouble();
    if (value.isString())
        toxicity = value.toString().toDouble(&ok);
    if (!ok || !std::isfinite(toxicity) || toxicity < 0 || toxicity > 1) {
        return Result<double>::failure(QStringLiteral("toxicity"),
            Tr::tr("must be a probability from 0 to 1 (got %1)")
                .arg(value.isString() ? value.toString().left(40) : QString::number(toxicity)));
    }
    return toxicity;
}

Result<void> checkName(const QString &name)
{
    static const QRegularExpression allowed(QStringLiteral("^[A-Za-z0-9_.-]{1,100}$"));
    if (!allowed.match(name).hasMatch()) {
        return Result<void>::failure(QStringLiteral("name"),
            Tr::tr("must be 1-100 letters, digits, '_', '.' or '-' (got \"%1\")").arg(name.left(100)));
    }
    return {};
}

// Reads `attributes` into `toxic`; every name must belong to its type.
Result<void> readAttributes(const QJsonObject &attributes, Toxic &toxic)
{
    const QList<Attribute> known = attributesOf(toxic.type);
    for (auto it = attributes.begin(); it != attributes.end(); ++it) {
        const auto found = std::find_if(known.begin(), known.end(),
            [&](const Attribute &attribute) { return it.key() == QLatin1String(attribute.name); });
        if (found == known.end()) {
            QStringList names;
            for (const Attribute &attribute : known)
                names << QString::fromLatin1(attribute.name);
            return Result<void>::failure(QStringLiteral("attributes.") + it.key().left(40),
                Tr::tr("is not an attribute of %1 (it has %2)")
                    .arg(Toxic::typeName(toxic.type), names.join(QStringLiteral(", "))));
        }
        const auto value = readWhole(it.value(), found->max);
        if (!value)
            return Result<void>::failure(QStringLiteral("attributes.") + it.key(), value.error());
        toxic.*(found->field) = *value;
    }
    if (toxic.type == Toxic::Type::Slicer && toxic.averageSize == 0)
        return Result<void>::failure(QStringLiteral("attributes.average_size"), Tr::tr("must be 1 or more"));
    if (toxic.type == Toxic::Type::Bandwidth && toxic.rateKBps == 0)
        return Result<void>::failure(QStringLiteral("attributes.rate"), Tr::tr("must be 1 KB/s or more"));
    return {};
}

QString duration(qint64 ms)
{
    return ms >= 10'000 && ms % 1000 == 0 ? Tr::tr("%1 s").arg(ms / 1000) : Tr::tr("%1 ms").arg(ms);
}

} // namespace

QString Toxic::typeName(Type type)
{
    for (const TypeEntry &entry : types) {
        if (entry.type == type)
            return QString::fromLatin1(entry.name);
    }
    return {};
}

QString Toxic::streamName(Stream stream)
{
    return stream == Stream::Upstream ? QStringLiteral("upstream") : QStringLiteral("downstream");
}

QStringList Toxic::typeNames()
{
    QStringList names;
    for (const TypeEntry &entry : types)
        names << QString::fromLatin1(entry.name);
    return names;
}

QString Toxic::describe() const
{
    QString what;
    switch (type) {
    case Type::Latency:
        what = jitterMs > 0 ? Tr::tr("%1 +- %2 latency").arg(duration(latencyMs), duration(jitterMs))
                            : Tr::tr("%1 latency").arg(duration(latencyMs));
        break;
    case Type::Bandwidth:
        what = Tr::tr("bandwidth %1 KB/s").arg(rateKBps);
        break;
    case Type::SlowClose:
        what = Tr::tr("close delayed %1").arg(duration(delayMs));
        break;
    case Type::Timeout:
        what = timeoutMs > 0 ? Tr::tr("no data, closed after %1").arg(duration(timeoutMs))
                             : Tr::tr("no data, never closed");
        break;
    case Type::ResetPeer:
        what = timeoutMs > 0 ? Tr::tr("reset after %1").arg(duration(timeoutMs)) : Tr::tr("reset at once");
        break;
    case Type::Slicer:
        what = Tr::tr("sliced into %1 +- %2 byte writes %3 us apart").arg(averageSize).arg(sizeVariation).arg(delayUs);
        break;
    case Type::LimitData:
        what = Tr::tr("closed after %1 bytes").arg(bytes);
        break;
    }
    QString text = Tr::tr("%1 %2").arg(what, streamName(stream));
    if (toxicity < 1.0)
        text += Tr::tr(", to %1 % of connections").arg(toxicity * 100.0, 0, 'g', 3);
    return text;
}

QJsonObject Toxic::toJson() const
{
    QJsonObject attributes;
    for (const Attribute &attribute : attributesOf(type))
        attributes.insert(QString::fromLatin1(attribute.name), double(this->*(attribute.field)));
    return {
        {QStringLiteral("name"), name},
        {QStringLiteral("type"), typeName(type)},
        {QStringLiteral("stream"), streamName(stream)},
        {QStringLiteral("toxicity"), toxicity},
        {QStringLiteral("attributes"), attributes},
    };
}

Result<Toxic> Toxic::fromJson(const QJsonObject &object)
{
    static const QStringList keys{QStringLiteral("name"), QStringLiteral("type"), QStringLiteral("stream"),
        QStringLiteral("toxicity"), QStringLiteral("attributes")};
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!keys.contains(it.key())) {
            return Result<Toxic>::failure(
                it.key().left(40), Tr::tr("is not a field of a toxic (%1)").arg(keys.join(QStringLiteral(", "))));
        }
    }
    Toxic toxic;
    const QString type = object.value(QStringLiteral("type")).toString();
    const auto found = std::find_if(
        types.begin(), types.end(), [&](const TypeEntry &entry) { return type == QLatin1String(entry.name); });
    if (found == types.end()) {
        return Result<Toxic>::failure(QStringLiteral("type"),
            type.isEmpty() ? Tr::tr("is required (one of %1)").arg(typeNames().join(QStringLiteral(", ")))
                           : Tr::tr("\"%1\" is not a toxic (one of %2)")
                                 .arg(type.left(40), typeNames().join(QStringLiteral(", "))));
    }
    toxic.type = found->type;
    if (object.contains(QStringLiteral("stream"))) {
        const auto stream = readStream(object.value(QStringLiteral("stream")).toString());
        if (!stream)
            return stream.errorDetail();
        toxic.stream = *stream;
    }
    if (object.contains(QStringLiteral("toxicity"))) {
        const auto toxicity = readToxicity(object.value(QStringLiteral("toxicity")));
        if (!toxicity)
            return toxicity.errorDetail();
        toxic.toxicity = *toxicity;
    }
    const QJsonValue attributes = object.value(QStringLiteral("attributes"));
    if (!attributes.isUndefined() && !attributes.isNull() && !attributes.isObject())
        return Result<Toxic>::failure(QStringLiteral("attributes"), Tr::tr("must be an object"));
    if (const auto read = readAttributes(attributes.toObject(), toxic); !read)
        return read.errorDetail();
    toxic.name = object.value(QStringLiteral("name")).toString();
    if (toxic.name.isEmpty())
        toxic.name = typeName(toxic.type) + QLatin1Char('_') + streamName(toxic.stream);
    if (const auto name = checkName(toxic.name); !name)
        return name.errorDetail();
    return toxic;
}

Result<void> Toxic::update(const QJsonObject &object)
{
    Toxic changed = *this;
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString key = it.key();
        if (key == QLatin1String("toxicity")) {
            const auto read = readToxicity(it.value());
            if (!read)
                return read.errorDetail();
            changed.toxicity = *read;
        } else if (key == QLatin1String("stream")) {
            const auto read = readStream(it.value().toString());
            if (!read)
                return read.errorDetail();
            changed.stream = *read;
        } else if (key == QLatin1String("attributes")) {
            if (!it.value().isObject())
                return Result<void>::failure(QStringLiteral("attributes"), Tr::tr("must be an object"));
            if (const auto read = readAttributes(it.value().toObject(), changed); !read)
                return read;
        } else if (key == QLatin1String("type")) {
            if (it.value().toString() != typeName(type))
                return Result<void>::failure(
                    QStringLiteral("type"), Tr::tr("cannot change; remove the toxic and add another"));
        } else if (key == QLatin1String("name")) {
            if (it.value().toString() != name)
                return Result<void>::failure(
                    QStringLiteral("name"), Tr::tr("cannot change; remove the toxic and add another"));
        } else {
            return Result<void>::failure(key.left(40), Tr::tr("is not a field of a toxic"));
        }
    }
    *this = changed;
    return {};
}

Result<Toxic> Toxic::parse(const QString &spec)
{
    const QStringList words = spec.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (words.isEmpty())
        return Result<Toxic>::failure(
            Tr::tr("is empty; start with a type (%1)").arg(typeNames().join(QStringLiteral(", "))));
    QJsonObject object{{QStringLiteral("type"), words.first()}};
    QJsonObject attributes;
    for (qsizetype i = 1; i < words.size(); ++i) {
        const qsizetype equals = words.at(i).indexOf(QLatin1Char('='));
        if (equals <= 0) {
            return Result<Toxic>::failure(
                Tr::tr("\"%1\" is not key=value (e.g. latency=1000, stream=upstream)").arg(words.at(i).left(40)));
        }
        const QString key = words.at(i).left(equals);
        const QString value = words.at(i).mid(equals + 1);
        if (key == QLatin1String("name") || key == QLatin1String("stream") || key == QLatin1String("toxicity"))
            object.insert(key, value);
        else
            attributes.insert(key, value);
    }
    object.insert(QStringLiteral("attributes"), attributes);
    return fromJson(object);
}

} // namespace RetryLab::Core
