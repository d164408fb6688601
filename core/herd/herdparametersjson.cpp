#include "core/herd/herdparametersjson.h"

#include "core/util/coretr.h"

#include <QJsonArray>

#include <functional>

namespace RetryLab::Core::HerdParametersJson {

namespace {

// Reads one field into the parameters; false when the reader refused it (and said why).
using FieldReader = std::function<bool(JsonReader &, HerdParameters &)>;

FieldReader numericField(const HerdParameterField &field)
{
    return [&field](JsonReader &r, HerdParameters &p) {
        const QString key = field.key();
        std::optional<double> value;
        switch (field.type) {
        case HerdParameterField::Type::Number:
            value = r.number(key);
            break;
        case HerdParameterField::Type::OptionalWholeNumber:
            if (r.value(key).isNull()) {
                field.setValue(p, std::nullopt);
                return true;
            }
            [[fallthrough]];
        case HerdParameterField::Type::WholeNumber:
            // The bounds are the validation's; this only keeps the value an int.
            if (const auto n = r.integer(key, -1'000'000'000, 1'000'000'000))
                value = static_cast<double>(*n);
            break;
        }
        if (!value)
            return false;
        field.setValue(p, value);
        return true;
    };
}

// In the order a form is filled in, so that a field is checked against the ones before it.
QList<std::pair<QString, FieldReader>> fieldReaders()
{
    const auto numeric = [](const char *name) {
        const HerdParameterField *field = herdParameterField(QLatin1String(name));
        Q_ASSERT(field && field->stored);
        return std::pair<QString, FieldReader>(field->key(), numericField(*field));
    };
    return {
        {QStringLiteral("clients"),
            [](JsonReader &r, HerdParameters &p) {
                const auto text = r.string(QStringLiteral("clients"));
                if (!text)
                    return false;
                const auto counts = parseClientCounts(*text);
                if (!counts) {
                    r.fail(QStringLiteral("clients"), counts.errorDetail().message);
                    return false;
                }
                p.clientCounts = *counts;
                return true;
            }},
        numeric("runs"),
        {QStringLiteral("seed"),
            [](JsonReader &r, HerdParameters &p) {
                // A string: beyond 2^53 a JSON number loses digits.
                const auto text = r.string(QStringLiteral("seed"));
                if (!text)
                    return false;
                bool ok = false;
                const quint64 seed = text->toULongLong(&ok);
                if (!ok) {
                    r.fail(QStringLiteral("seed"),
                        Tr::tr("\"%1\" is not a whole number from 0 to 18446744073709551615").arg(text->left(40)));
                    return false;
                }
                p.seed = seed;
                return true;
            }},
        {QStringLiteral("strategies"),
            [](JsonReader &r, HerdParameters &p) {
                const auto names = r.strings(QStringLiteral("strategies"));
                if (!names)
                    return false;
                const auto strategies = parseStrategies(names->join(QLatin1Char(',')));
                if (!strategies) {
                    r.fail(QStringLiteral("strategies"), strategies.errorDetail().message);
                    return false;
                }
                p.strategies = *strategies;
                return true;
            }},
        numeric("baseDelayMs"),
        numeric("maxBackoffMs"),
        numeric("multiplier"),
        numeric("jitterMs"),
        numeric("maxAttempts"),
        numeric("deadlineMs"),
        numeric("networkMeanMs"),
        numeric("networkSdMs"),
        {QStringLiteral("arrivals"),
            [](JsonReader &r, HerdParameters &p) {
                const auto mode = r.named(QStringLiteral("arrivals"),
                    QList<ArrivalMode>{ArrivalMode::Herd, ArrivalMode::Poisson}, &arrivalModeName);
                if (!mode)
                    return false;
                p.arrivals = *mode;
                return true;
            }},
        numeric("arrivalRatePerSec"),
        numeric("serviceRatePerSec"),
        numeric("queueCapacity"),
        numeric("overloadStatus"),
        numeric("retryAfterS"),
        {QStringLiteral("honourRetryAfter"),
            [](JsonReader &r, HerdParameters &p) {
                const auto honour = r.boolean(QStringLiteral("honourRetryAfter"));
                if (!honour)
                    return false;
                p.honourRetryAfter = *honour;
                return true;
            }},
        {QStringLiteral("rateLimiter"),
            [](JsonReader &r, HerdParameters &p) {
                const auto kind = r.named(QStringLiteral("rateLimiter"), allRateLimiterKinds(), &rateLimiterKindName);
                if (!kind)
                    return false;
                p.rateLimiter = *kind;
                return true;
            }},
        numeric("outageStartMs"),
        numeric("outageEndMs"),
        numeric("latencyMedianMs"),
        numeric("latencySigma"),
        numeric("failureRate"),
        numeric("hedgedAttempts"),
        numeric("hedgingDelayMs"),
        numeric("binMs"),
    };
}

// Why parameters with this field are refused: the problem with the field itself,
// or else the first one it causes elsewhere.
Error refusal(const QList<Error> &errors, const QString &key)
{
    for (const Error &error : errors) {
        if (error.path == key)
            return error;
    }
    return errors.constFirst();
}

// A field left out: its path is the field (which has its default now), the message
// the problem, with its own path when that lies deeper ("strategies[1]: ...").
Error leftOut(const QString &key, const Error &cause)
{
    return Error{key, cause.path == key ? cause.message : cause.text()};
}

} // namespace

QJsonObject toJsonObject(const HerdParameters &p)
{
    QJsonArray strategies;
    for (const HerdStrategy &strategy : p.strategies)
        strategies.append(strategy.name());
    QJsonObject object{
        {QStringLiteral("model"), herdModelName(p.model)},
        {QStringLiteral("clients"), formatClientCounts(p.clientCounts)},
        {QStringLiteral("seed"), QString::number(p.seed)}, // beyond 2^53 a JSON number loses digits
        {QStringLiteral("strategies"), strategies},
        {QStringLiteral("arrivals"), arrivalModeName(p.arrivals)},
        {QStringLiteral("honourRetryAfter"), p.honourRetryAfter},
        {QStringLiteral("rateLimiter"), rateLimiterKindName(p.rateLimiter)},
    };
    for (const HerdParameterField &field : herdParameterFields()) {
        if (!field.stored)
            continue;
        const auto value = field.value(p);
        object.insert(field.key(), value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null));
    }
    return object;
}

Salvaged<HerdParameters> fromJsonObject(const QJsonObject &object)
{
    // Salvage mode: a field the reader refuses does not stop it reading the others.
    JsonReader r(object, {}, JsonReader::Mode::Salvage);
    Salvaged<HerdParameters> out;
    // The first error a read adds is why its field is left out.
    const auto refused = [&](const QString &key, qsizetype errorsBefore) {
        if (r.errors().size() > errorsBefore)
            out.leftOut.append(leftOut(key, r.errors().at(errorsBefore)));
    };

    const QString modelKey = QStringLiteral("model");
    const auto model = r.named(modelKey, allHerdModels(), &herdModelName);
    refused(modelKey, 0);
    const HerdParameters defaults = HerdParameters::defaultsFor(model.value_or(HerdModel::OptimisticConcurrency));
    const auto readers = fieldReaders();

    // Usually every field reads and the whole is valid: then each is kept as
    // stored, whatever order the checks of single fields would need.
    HerdParameters all = defaults;
    QList<qsizetype> readable;
    for (qsizetype i = 0; i < readers.size(); ++i) {
        const auto &[key, read] = readers.at(i);
        if (!r.contains(key))
            continue;
        const qsizetype before = r.errors().size();
        if (read(r, all))
            readable.append(i);
        else
            refused(key, before);
    }
    if (all.errors().isEmpty()) {
        out.value = all;
        return out;
    }

    // Otherwise field by field on top of the defaults: a field that makes the
    // parameters invalid keeps its default, and the others are kept.
    out.value = defaults;
    for (qsizetype i : std::as_const(readable)) {
        const auto &[key, read] = readers.at(i);
        HerdParameters candidate = out.value;
        read(r, candidate);
        const QList<Error> errors = candidate.errors();
        if (!errors.isEmpty()) {
            out.leftOut.append(leftOut(key, refusal(errors, key)));
            continue;
        }
        out.value = candidate;
    }
    return out;
}

} // namespace RetryLab::Core::HerdParametersJson
