#include "core/proxy/faultrule.h"

#include "core/http/httpheaders.h"
#include "core/util/boundedfile.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"
#include "core/util/jsonreader.h"
#include "core/util/wildcardmatch.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <QSet>

#include <cmath>

namespace RetryLab::Core {

namespace {

const QStringList &faultKeys()
{
    static const QStringList keys{QStringLiteral("status"), QStringLiteral("latency"), QStringLiteral("bandwidth"),
        QStringLiteral("reset"), QStringLiteral("empty"), QStringLiteral("stall"), QStringLiteral("cut"),
        QStringLiteral("corrupt")};
    return keys;
}

const QStringList &allKeys()
{
    static const QStringList keys = [] {
        QStringList k{QStringLiteral("name"), QStringLiteral("off"), QStringLiteral("method"), QStringLiteral("host"),
            QStringLiteral("path"), QStringLiteral("header"), QStringLiteral("p"), QStringLiteral("every"),
            QStringLiteral("first"), QStringLiteral("from"), QStringLiteral("to"), QStringLiteral("retry-after"),
            QStringLiteral("at")};
        k += faultKeys();
        return k;
    }();
    return keys;
}

QString number(double value)
{
    return QString::number(value, 'g', 12);
}

std::optional<double> toNumber(const QString &text)
{
    bool ok = false;
    const double v = text.trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(v))
        return std::nullopt;
    return v;
}

std::optional<qint64> toInteger(const QString &text)
{
    bool ok = false;
    const qint64 v = text.trimmed().toLongLong(&ok);
    if (!ok)
        return std::nullopt;
    return v;
}

/// Applies one key; an error message (without the key) when its value is wrong.
std::optional<QString> apply(FaultRule &r, const QString &key, const QString &value, bool hasValue)
{
    const auto needsValue = [&]() -> std::optional<QString> {
        if (!hasValue || value.isEmpty())
            return Tr::tr("needs a value (%1=...)").arg(key);
        return std::nullopt;
    };
    if (key == QLatin1String("name")) {
        if (auto e = needsValue())
            return e;
        if (value.size() > 80)
            return Tr::tr("is longer than 80 characters");
        if (value.contains(QRegularExpression(QStringLiteral("\\s"))))
            return Tr::tr("has a space in it (\"%1\"); use - or _").arg(value.left(40));
        r.name = value;
    } else if (key == QLatin1String("off")) {
        if (hasValue)
            return Tr::tr("takes no value (write \"off\" alone)");
        r.enabled = false;
    } else if (key == QLatin1String("method")) {
        if (auto e = needsValue())
            return e;
        if (!isToken(value.toLatin1()) || value.size() > 32)
            return Tr::tr("\"%1\" is not an HTTP method").arg(value.left(40));
        r.method = value.toUpper().toLatin1();
    } else if (key == QLatin1String("host")) {
        if (auto e = needsValue())
            return e;
        if (value.contains(QRegularExpression(QStringLiteral("[\\s/:@]"))))
            return Tr::tr("is a host name or address without port or path, * and ? as wildcards (got \"%1\")")
                .arg(value.left(40));
        r.host = value.toLower().toUtf8();
    } else if (key == QLatin1String("path")) {
        if (auto e = needsValue())
            return e;
        if (!value.startsWith(QLatin1Char('/')) && !value.startsWith(QLatin1Char('*')))
            return Tr::tr("must start with / or * (got \"%1\")").arg(value.left(40));
        if (value.contains(QRegularExpression(QStringLiteral("\\s"))))
            return Tr::tr("has a space in it; a path has none (%20 is a space as sent)");
        r.path = value;
    } else if (key == QLatin1String("header")) {
        if (auto e = needsValue())
            return e;
        const qsizetype colon = value.indexOf(QLatin1Char(':'));
        const QByteArray name = (colon < 0 ? value : value.left(colon)).trimmed().toLatin1();
        if (!isToken(name))
            return Tr::tr("\"%1\" is not a header name (write Name or Name:glob)").arg(value.left(40));
        const QString glob = colon < 0 ? QString() : value.mid(colon + 1).trimmed();
        if (glob.contains(QRegularExpression(QStringLiteral("\\s"))))
            return Tr::tr("the value has a space in it; write ? for it (\"Bearer?*\")");
        r.headerName = name;
        r.headerGlob = glob.toUtf8();
    } else if (key == QLatin1String("p")) {
        const auto v = toNumber(value);
        if (!v || *v < 0.0 || *v > 1.0)
            return Tr::tr("must be a probability between 0 and 1 (got \"%1\")").arg(value.left(40));
        r.probability = *v;
    } else if (key == QLatin1String("every") || key == QLatin1String("first")) {
        const auto v = toInteger(value);
        if (!v || *v < 1 || *v > 1'000'000)
            return Tr::tr("must be a whole number from 1 to 1000000 (got \"%1\")").arg(value.left(40));
        (key == QLatin1String("every") ? r.every : r.firstPerLogicalRequest) = int(*v);
    } else if (key == QLatin1String("from") || key == QLatin1String("to")) {
        const auto v = toNumber(value);
        if (!v || *v < 0.0 || *v > 1e7)
            return Tr::tr("must be seconds from 0 to 10000000 (got \"%1\")").arg(value.left(40));
        (key == QLatin1String("from") ? r.fromS : r.toS) = *v;
    } else if (key == QLatin1String("status")) {
        const auto v = toInteger(value);
        if (!v || *v < 100 || *v > 599)
            return Tr::tr("must be a status from 100 to 599 (got \"%1\")").arg(value.left(40));
        r.kind = FaultRule::Kind::Status;
        r.status = int(*v);
    } else if (key == QLatin1String("retry-after")) {
        const auto v = toNumber(value);
        if (!v || *v < 0.0 || *v > 86'400.0)
            return Tr::tr("must be seconds from 0 to 86400 (got \"%1\")").arg(value.left(40));
        r.retryAfterS = *v;
    } else if (key == QLatin1String("latency")) {
        if (auto e = needsValue())
            return e;
        r.kind = FaultRule::Kind::Latency;
        const QString bad = Tr::tr("write MS, MIN-MAX or lognormal:MEDIAN:SIGMA, in milliseconds up to 600000 (got "
                                   "\"%1\")")
                                .arg(value.left(40));
        if (value.startsWith(QLatin1String("lognormal:"))) {
            const QStringList parts = value.split(QLatin1Char(':'));
            const auto median = parts.size() == 3 ? toNumber(parts[1]) : std::nullopt;
            const auto sigma = parts.size() == 3 ? toNumber(parts[2]) : std::nullopt;
            if (!median || !sigma || *median <= 0.0 || *median > 600'000.0 || *sigma < 0.0 || *sigma > 5.0)
                return bad + Tr::tr("; the median above 0, sigma from 0 to 5");
            r.latencyShape = FaultRule::LatencyShape::Lognormal;
            r.latencyMs = *median;
            r.latencySigma = *sigma;
        } else if (value.indexOf(QLatin1Char('-'), 1) > 0) {
            const qsizetype dash = value.indexOf(QLatin1Char('-'), 1);
            const auto lo = toNumber(value.left(dash));
            const auto hi = toNumber(value.mid(dash + 1));
            if (!lo || !hi || *lo < 0.0 || *hi < *lo || *hi > 600'000.0)
                return bad;
            r.latencyShape = FaultRule::LatencyShape::Uniform;
            r.latencyMs = *lo;
            r.latencyMaxMs = *hi;
        } else {
            const auto v = toNumber(value);
            if (!v || *v < 0.0 || *v > 600'000.0)
                return bad;
            r.latencyShape = FaultRule::LatencyShape::Fixed;
            r.latencyMs = *v;
        }
    } else if (key == QLatin1String("at")) {
        if (value != QLatin1String("request") && value != QLatin1String("response"))
            return Tr::tr("must be \"request\" (before forwarding) or \"response\" (before responding), not \"%1\"")
                .arg(value.left(40));
        r.latencyBeforeResponse = value == QLatin1String("response");
    } else if (key == QLatin1String("bandwidth")) {
        QString digits = value.trimmed().toLower();
        qint64 unit = 1;
        if (digits.endsWith(QLatin1Char('k'))) {
            unit = 1024;
            digits.chop(1);
        } else if (digits.endsWith(QLatin1Char('m'))) {
            unit = 1024 * 1024;
            digits.chop(1);
        }
        const auto v = toInteger(digits);
        if (!v || *v < 1 || *v > (qint64(1) << 40) / unit)
            return Tr::tr("must be bytes per second, at least 1 (k and m for KiB and MiB), not \"%1\"")
                .arg(value.left(40));
        r.kind = FaultRule::Kind::Bandwidth;
        r.bandwidthBytesPerS = *v * unit;
    } else if (key == QLatin1String("reset")) {
        r.kind = FaultRule::Kind::Reset;
        if (!hasValue || value == QLatin1String("before"))
            r.resetPoint = FaultRule::ResetPoint::BeforeHeaders;
        else if (value == QLatin1String("after"))
            r.resetPoint = FaultRule::ResetPoint::AfterHeaders;
        else if (value == QLatin1String("unsent"))
            r.resetPoint = FaultRule::ResetPoint::Unsent;
        else
            return Tr::tr("must be \"before\", \"after\" or \"unsent\" (got \"%1\")").arg(value.left(40));
    } else if (key == QLatin1String("empty") || key == QLatin1String("stall")) {
        if (hasValue)
            return Tr::tr("takes no value (write \"%1\" alone)").arg(key);
        r.kind = key == QLatin1String("empty") ? FaultRule::Kind::Empty : FaultRule::Kind::Stall;
    } else if (key == QLatin1String("cut")) {
        const auto v = toInteger(value);
        if (!v || *v < 0)
            return Tr::tr("must be a number of body bytes, 0 or more (got \"%1\")").arg(value.left(40));
        r.kind = FaultRule::Kind::Cut;
        r.cutAfterBytes = *v;
    } else if (key == QLatin1String("corrupt")) {
        r.kind = FaultRule::Kind::Corrupt;
        if (hasValue) {
            const auto v = toInteger(value);
            if (!v || *v < 1 || *v > 1'000'000'000)
                return Tr::tr("must be 1 or more: every Nth byte is inverted (got \"%1\")").arg(value.left(40));
            r.corruptEvery = int(*v);
        }
    }
    return std::nullopt;
}

/// Reads the keys in order; checks what only makes sense together.
Result<FaultRule> build(const QList<std::pair<QString, std::optional<QString>>> &fields)
{
    FaultRule r;
    QSet<QString> seen;
    QString fault;
    for (const auto &[key, value] : fields) {
        if (!allKeys().contains(key)) {
            const auto close = JsonReader::closestName(key, allKeys());
            return Result<FaultRule>::failure(key,
                close ? Tr::tr("unknown key; did you mean \"%1\"?").arg(*close)
                      : Tr::tr("unknown key (known: %1)").arg(allKeys().join(QStringLiteral(", "))));
        }
        if (seen.contains(key))
            return Result<FaultRule>::failure(key, Tr::tr("given twice"));
        seen.insert(key);
        if (faultKeys().contains(key)) {
            if (!fault.isEmpty())
                return Result<FaultRule>::failure(
                    key, Tr::tr("a rule has one fault and this one has %1 already; write a second rule").arg(fault));
            fault = key;
        }
        if (auto error = apply(r, key, value.value_or(QString()), value.has_value()))
            return Result<FaultRule>::failure(key, *error);
    }
    if (fault.isEmpty())
        return Result<FaultRule>::failure(
            Tr::tr("no fault: give one of %1").arg(faultKeys().join(QStringLiteral("=, ")) + QLatin1Char('=')));
    if (seen.contains(QStringLiteral("retry-after")) && r.kind != FaultRule::Kind::Status)
        return Result<FaultRule>::failure(
            QStringLiteral("retry-after"), Tr::tr("goes with status=, which sends it; this rule has %1").arg(fault));
    if (seen.contains(QStringLiteral("at")) && r.kind != FaultRule::Kind::Latency)
        return Result<FaultRule>::failure(
            QStringLiteral("at"), Tr::tr("goes with latency=, which it places; this rule has %1").arg(fault));
    if (r.fromS && r.toS && *r.toS <= *r.fromS)
        return Result<FaultRule>::failure(
            QStringLiteral("to"), Tr::tr("must be after from (%1 s), got %2 s").arg(number(*r.fromS), number(*r.toS)));
    return r;
}

} // namespace

bool FaultRule::globMatch(QByteArrayView glob, QByteArrayView text)
{
    return wildcardMatch(
        glob.size(), text.size(), [glob](qsizetype g) { return glob[g] == '*'; },
        [glob, text](qsizetype g, qsizetype t) { return glob[g] == '?' || glob[g] == text[t]; });
}

bool FaultRule::answersLocally() const
{
    return kind == Kind::Status || kind == Kind::Empty || kind == Kind::Stall
        || (kind == Kind::Reset && resetPoint == ResetPoint::Unsent);
}

QString FaultRule::spec() const
{
    QStringList words;
    switch (kind) {
    case Kind::Status:
        words << QStringLiteral("status=%1").arg(status);
        if (retryAfterS)
            words << QStringLiteral("retry-after=") + number(*retryAfterS);
        break;
    case Kind::Latency:
        switch (latencyShape) {
        case LatencyShape::Fixed:
            words << QStringLiteral("latency=") + number(latencyMs);
            break;
        case LatencyShape::Uniform:
            words << QStringLiteral("latency=%1-%2").arg(number(latencyMs), number(latencyMaxMs));
            break;
        case LatencyShape::Lognormal:
            words << QStringLiteral("latency=lognormal:%1:%2").arg(number(latencyMs), number(latencySigma));
            break;
        }
        if (latencyBeforeResponse)
            words << QStringLiteral("at=response");
        break;
    case Kind::Bandwidth:
        words << QStringLiteral("bandwidth=%1").arg(bandwidthBytesPerS);
        break;
    case Kind::Reset:
        words << (resetPoint == ResetPoint::BeforeHeaders ? QStringLiteral("reset=before")
                : resetPoint == ResetPoint::AfterHeaders  ? QStringLiteral("reset=after")
                                                          : QStringLiteral("reset=unsent"));
        break;
    case Kind::Empty:
        words << QStringLiteral("empty");
        break;
    case Kind::Stall:
        words << QStringLiteral("stall");
        break;
    case Kind::Cut:
        words << QStringLiteral("cut=%1").arg(cutAfterBytes);
        break;
    case Kind::Corrupt:
        words << QStringLiteral("corrupt=%1").arg(corruptEvery);
        break;
    }
    if (probability < 1.0)
        words << QStringLiteral("p=") + number(probability);
    if (every > 0)
        words << QStringLiteral("every=%1").arg(every);
    if (firstPerLogicalRequest > 0)
        words << QStringLiteral("first=%1").arg(firstPerLogicalRequest);
    if (fromS)
        words << QStringLiteral("from=") + number(*fromS);
    if (toS)
        words << QStringLiteral("to=") + number(*toS);
    if (!method.isEmpty())
        words << QStringLiteral("method=") + QString::fromLatin1(method);
    if (!host.isEmpty())
        words << QStringLiteral("host=") + QString::fromUtf8(host);
    if (!path.isEmpty())
        words << QStringLiteral("path=") + path;
    if (!headerName.isEmpty())
        words << QStringLiteral("header=") + QString::fromLatin1(headerName)
                + (headerGlob.isEmpty() ? QString() : QLatin1Char(':') + QString::fromUtf8(headerGlob));
    if (!name.isEmpty())
        words << QStringLiteral("name=") + name;
    if (!enabled)
        words << QStringLiteral("off");
    return words.join(QLatin1Char(' '));
}

QString FaultRule::describe() const
{
    QString what;
    switch (kind) {
    case Kind::Status:
        what = retryAfterS ? Tr::tr("answer %1 with Retry-After %2 s").arg(status).arg(number(*retryAfterS))
                           : Tr::tr("answer %1").arg(status);
        break;
    case Kind::Latency:
        what = latencyShape == LatencyShape::Fixed
            ? Tr::tr("wait %1").arg(DurationText::format(latencyMs, DurationText::Style::Exact))
            : latencyShape == LatencyShape::Uniform
            ? Tr::tr("wait %1 to %2")
                  .arg(DurationText::format(latencyMs, DurationText::Style::Exact),
                      DurationText::format(latencyMaxMs, DurationText::Style::Exact))
            : Tr::tr("wait a lognormal time (median %1, sigma %2)")
                  .arg(DurationText::format(latencyMs, DurationText::Style::Exact), number(latencySigma));
        what += latencyBeforeResponse ? Tr::tr(" before responding") : Tr::tr(" before forwarding");
        break;
    case Kind::Bandwidth:
        what = Tr::tr("limit the answer to %1 bytes/s").arg(bandwidthBytesPerS);
        break;
    case Kind::Reset:
        what = resetPoint == ResetPoint::Unsent ? Tr::tr("reset the connection without forwarding")
            : resetPoint == ResetPoint::BeforeHeaders
            ? Tr::tr("forward, then reset the connection instead of answering")
            : Tr::tr("reset the connection after the answer's headers");
        break;
    case Kind::Empty:
        what = Tr::tr("close the connection with an empty reply");
        break;
    case Kind::Stall:
        what = Tr::tr("never answer");
        break;
    case Kind::Cut:
        what = Tr::tr("cut the body after %1 bytes").arg(cutAfterBytes);
        break;
    case Kind::Corrupt:
        what = Tr::tr("invert every %1th byte of the body").arg(corruptEvery);
        break;
    }
    QStringList when;
    if (probability < 1.0)
        when << Tr::tr("%1 % of").arg(number(probability * 100.0));
    if (every > 0)
        when << Tr::tr("every %1th of").arg(every);
    if (firstPerLogicalRequest > 0)
        when << Tr::tr("the first %1 attempts of each logical request among").arg(firstPerLogicalRequest);
    QString which = QString::fromLatin1(method.isEmpty() ? QByteArray("any method") : method);
    which += QLatin1Char(' ') + (path.isEmpty() ? QStringLiteral("*") : path);
    if (!host.isEmpty())
        which += Tr::tr(" on %1").arg(QString::fromUtf8(host));
    if (!headerName.isEmpty())
        which += Tr::tr(" with %1%2")
                     .arg(QString::fromLatin1(headerName),
                         headerGlob.isEmpty() ? QString() : QStringLiteral(": ") + QString::fromUtf8(headerGlob));
    QString text
        = what + Tr::tr(" to ") + (when.isEmpty() ? QString() : when.join(QLatin1Char(' ')) + QLatin1Char(' ')) + which;
    if (fromS || toS)
        text += Tr::tr(", from %1 s to %2")
                    .arg(number(fromS.value_or(0.0)), toS ? Tr::tr("%1 s").arg(number(*toS)) : Tr::tr("the end"));
    return text;
}

QJsonObject FaultRule::toJson() const
{
    // The same keys as the spec; numbers as numbers, flags as true.
    QJsonObject o;
    if (!name.isEmpty())
        o.insert(QStringLiteral("name"), name);
    o.insert(QStringLiteral("enabled"), enabled);
    switch (kind) {
    case Kind::Status:
        o.insert(QStringLiteral("status"), status);
        if (retryAfterS)
            o.insert(QStringLiteral("retry-after"), *retryAfterS);
        break;
    case Kind::Latency:
        if (latencyShape == LatencyShape::Fixed)
            o.insert(QStringLiteral("latency"), latencyMs);
        else if (latencyShape == LatencyShape::Uniform)
            o.insert(QStringLiteral("latency"), QStringLiteral("%1-%2").arg(number(latencyMs), number(latencyMaxMs)));
        else
            o.insert(QStringLiteral("latency"),
                QStringLiteral("lognormal:%1:%2").arg(number(latencyMs), number(latencySigma)));
        if (latencyBeforeResponse)
            o.insert(QStringLiteral("at"), QStringLiteral("response"));
        break;
    case Kind::Bandwidth:
        o.insert(QStringLiteral("bandwidth"), double(bandwidthBytesPerS));
        break;
    case Kind::Reset:
        o.insert(QStringLiteral("reset"),
            resetPoint == ResetPoint::BeforeHeaders      ? QStringLiteral("before")
                : resetPoint == ResetPoint::AfterHeaders ? QStringLiteral("after")
                                                         : QStringLiteral("unsent"));
        break;
    case Kind::Empty:
        o.insert(QStringLiteral("empty"), true);
        break;
    case Kind::Stall:
        o.insert(QStringLiteral("stall"), true);
        break;
    case Kind::Cut:
        o.insert(QStringLiteral("cut"), double(cutAfterBytes));
        break;
    case Kind::Corrupt:
        o.insert(QStringLiteral("corrupt"), corruptEvery);
        break;
    }
    if (probability < 1.0)
        o.insert(QStringLiteral("p"), probability);
    if (every > 0)
        o.insert(QStringLiteral("every"), every);
    if (firstPerLogicalRequest > 0)
        o.insert(QStringLiteral("first"), firstPerLogicalRequest);
    if (fromS)
        o.insert(QStringLiteral("from"), *fromS);
    if (toS)
        o.insert(QStringLiteral("to"), *toS);
    if (!method.isEmpty())
        o.insert(QStringLiteral("method"), QString::fromLatin1(method));
    if (!host.isEmpty())
        o.insert(QStringLiteral("host"), QString::fromUtf8(host));
    if (!path.isEmpty())
        o.insert(QStringLiteral("path"), path);
    if (!headerName.isEmpty())
        o.insert(QStringLiteral("header"),
            QString(QString::fromLatin1(headerName)
                + (headerGlob.isEmpty() ? QString() : QLatin1Char(':') + QString::fromUtf8(headerGlob))));
    return o;
}

Result<FaultRule> FaultRule::parse(const QString &spec)
{
    QList<std::pair<QString, std::optional<QString>>> fields;
    const QStringList words = spec.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
    if (words.isEmpty())
        return Result<FaultRule>::failure(Tr::tr("empty rule"));
    for (const QString &word : words) {
        const qsizetype eq = word.indexOf(QLatin1Char('='));
        if (eq < 0)
            fields.append({word.toLower(), std::nullopt});
        else
            fields.append({word.left(eq).toLower(), word.mid(eq + 1)});
    }
    return build(fields);
}

Result<FaultRule> FaultRule::fromJson(const QJsonObject &object)
{
    QList<std::pair<QString, std::optional<QString>>> fields;
    bool enabled = true;
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString key = it.key();
        const QJsonValue v = it.value();
        if (key == QLatin1String("enabled")) {
            if (!v.isBool())
                return Result<FaultRule>::failure(
                    key, Tr::tr("must be true or false, not %1").arg(JsonReader::describe(v)));
            enabled = v.toBool();
            continue;
        }
        if (v.isBool()) {
            if (v.toBool())
                fields.append({key, std::nullopt});
        } else if (v.isDouble()) {
            fields.append({key, QString::number(v.toDouble(), 'g', 17)});
        } else if (v.isString()) {
            fields.append({key, v.toString()});
        } else {
            return Result<FaultRule>::failure(
                key, Tr::tr("must be a string, a number or true, not %1").arg(JsonReader::describe(v)));
        }
    }
    Result<FaultRule> rule = build(fields);
    if (rule.ok() && !enabled)
        rule.value().enabled = false;
    return rule;
}

Result<void> FaultRuleList::checkCount(qsizetype count)
{
    if (count <= maxRules)
        return {};
    return Result<void>::failure(
        Tr::tr("%1 rules are too many: a proxy takes at most %2, as it checks every request against each")
            .arg(count)
            .arg(maxRules));
}

void FaultRuleList::nameRules()
{
    QSet<QString> used;
    for (qsizetype i = 0; i < rules.size(); ++i) {
        FaultRule &r = rules[i];
        QString name = r.name.isEmpty() ? QStringLiteral("rule-%1").arg(i + 1) : r.name;
        const QString base = name;
        for (int n = 2; used.contains(name); ++n)
            name = QStringLiteral("%1-%2").arg(base).arg(n);
        used.insert(name);
        r.name = name;
    }
}

QJsonObject FaultRuleList::toJson() const
{
    QJsonArray list;
    for (const FaultRule &r : rules)
        list.append(r.toJson());
    QJsonObject o{{QStringLiteral("format"), QStringLiteral("retrylab-faults")}, {QStringLiteral("version"), 1},
        {QStringLiteral("rules"), list}};
    if (seed)
        o.insert(QStringLiteral("seed"), QString::number(*seed));
    return o;
}

Result<FaultRuleList> FaultRuleList::fromJson(const QByteArray &json)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return Result<FaultRuleList>::failure(
            Tr::tr("not JSON: %1 at byte %2").arg(parseError.errorString()).arg(parseError.offset));
    if (!doc.isObject())
        return Result<FaultRuleList>::failure(Tr::tr("expected a JSON object with \"format\": \"retrylab-faults\""));
    JsonReader r(doc.object());
    // "counts" is what the control port adds when it answers; it is not read back.
    r.rejectUnknown({QStringLiteral("format"), QStringLiteral("version"), QStringLiteral("rules"),
        QStringLiteral("seed"), QStringLiteral("counts")});
    const auto format = r.string(QStringLiteral("format"), Presence::Required);
    if (format && *format != QLatin1String("retrylab-faults"))
        r.fail(QStringLiteral("format"), Tr::tr("expected \"retrylab-faults\", got \"%1\"").arg(format->left(40)));
    const auto version = r.integer(QStringLiteral("version"), 1, 1000, Presence::Required);
    if (version && *version != 1)
        r.fail(QStringLiteral("version"), Tr::tr("version %1 is newer than this RetryLab reads (1)").arg(*version));
    FaultRuleList list;
    if (r.contains(QStringLiteral("seed"))) {
        const QJsonValue s = r.value(QStringLiteral("seed"));
        bool ok = false;
        const quint64 seed = s.isString() ? s.toString().toULongLong(&ok) : quint64(s.toInteger(-1));
        ok = ok || (s.isDouble() && s.toDouble() >= 0 && s.toDouble() == std::floor(s.toDouble()));
        if (!ok)
            r.fail(QStringLiteral("seed"),
                Tr::tr("must be a whole number 0 or more, not %1").arg(JsonReader::describe(s)));
        else
            list.seed = seed;
    }
    if (r.failed())
        return Result<FaultRuleList>(r.firstError());
    const auto rules = r.array(QStringLiteral("rules"), Presence::Required);
    if (!rules)
        return Result<FaultRuleList>(r.firstError());
    if (const auto count = checkCount(rules->size()); !count)
        return Result<FaultRuleList>(count.errorDetail().under(QStringLiteral("rules")));
    for (qsizetype i = 0; i < rules->size(); ++i) {
        const QJsonValue v = rules->array().at(i);
        const QString where = QStringLiteral("rules[%1]").arg(i);
        if (!v.isObject())
            return Result<FaultRuleList>::failure(
                where, Tr::tr("must be an object, not %1").arg(JsonReader::describe(v)));
        const QString name = v.toObject().value(QStringLiteral("name")).toString();
        const QString named = name.isEmpty() ? where : QStringLiteral("%1 (\"%2\")").arg(where, name.left(40));
        Result<FaultRule> rule = FaultRule::fromJson(v.toObject());
        if (!rule)
            return Result<FaultRuleList>(rule.errorDetail().under(named));
        list.rules.append(*rule);
    }
    list.nameRules();
    return list;
}

Result<FaultRuleList> FaultRuleList::readFile(const QString &path)
{
    const auto bytes = BoundedFile::read(path, {16 * 1024 * 1024, Tr::tr("a fault rules file")});
    if (!bytes)
        return bytes.errorDetail();
    auto list = fromJson(*bytes);
    if (!list)
        return Result<FaultRuleList>::failure(Tr::tr("%1: %2").arg(QDir::toNativeSeparators(path), list.error()));
    return list;
}

Result<FaultRuleList> FaultRuleList::fromSpecs(const QStringList &specs)
{
    if (const auto count = checkCount(specs.size()); !count)
        return Result<FaultRuleList>(count.errorDetail().under(QStringLiteral("--fault")));
    FaultRuleList list;
    for (qsizetype i = 0; i < specs.size(); ++i) {
        Result<FaultRule> rule = FaultRule::parse(specs[i]);
        if (!rule)
            return Result<FaultRuleList>(rule.errorDetail().under(
                QStringLiteral("--fault %1 (\"%2\")").arg(i + 1).arg(specs[i].simplified().left(60))));
        list.rules.append(*rule);
    }
    list.nameRules();
    return list;
}

} // namespace RetryLab::Core
