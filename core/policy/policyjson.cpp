#include "core/policy/policyjson.h"

#include "core/policy/policyfields.h"
#include "core/policy/responseconditions.h"
#include "core/util/boundedfile.h"
#include "core/util/coretr.h"
#include "core/util/exportfile.h"
#include "core/util/jsonreader.h"

#include <QDir>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <limits>

namespace RetryLab::Core {

namespace {

using Id = PolicyFieldId;
using Section = PolicyField::Section;

QString keyOf(Id id)
{
    return QLatin1String(policyField(id).key);
}

// The keys of a section's fields in the file.
QStringList keysOf(std::initializer_list<Section> sections)
{
    QStringList keys;
    for (const PolicyField &field : policyFields()) {
        if (std::find(sections.begin(), sections.end(), field.section) != sections.end())
            keys.append(QLatin1String(field.key));
    }
    return keys;
}

// A field that is absent keeps the default the policy already holds.
void readScalar(JsonReader &r, const PolicyField &field, BackoffPolicy &p)
{
    const QString key = QLatin1String(field.key);
    switch (field.type) {
    case PolicyField::Type::Text:
        if (const auto v = r.string(key))
            field.setText(p, *v);
        break;
    case PolicyField::Type::Switch:
        if (const auto v = r.boolean(key))
            field.setFlag(p, *v);
        break;
    case PolicyField::Type::WholeNumber: {
        // A number an int cannot hold is refused by the field's own limit, which is what the
        // reader can act on, rather than by the range of a C++ int.
        const QJsonValue raw = r.object().value(key);
        const double whole = raw.toDouble();
        if (raw.isDouble() && std::isfinite(whole) && whole == std::trunc(whole)
            && std::abs(whole) > double(std::numeric_limits<int>::max())) {
            r.fail(key,
                Tr::tr("%1 is beyond the sensible limit of %2").arg(QString::number(whole, 'f', 0)).arg(field.max));
            break;
        }
        if (const auto v = r.integer(key, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()))
            field.setNumber(p, static_cast<double>(*v));
        break;
    }
    case PolicyField::Type::Number:
        if (const auto v = r.number(key))
            field.setNumber(p, *v);
        break;
    case PolicyField::Type::Choice:
    case PolicyField::Type::Collection:
        break;
    }
}

QJsonValue scalarValue(const PolicyField &field, const BackoffPolicy &p)
{
    switch (field.type) {
    case PolicyField::Type::Text:
        return field.text(p);
    case PolicyField::Type::Switch:
        return field.flag(p);
    case PolicyField::Type::WholeNumber:
        return static_cast<int>(field.number(p));
    case PolicyField::Type::Number:
        return field.number(p);
    case PolicyField::Type::Choice:
    case PolicyField::Type::Collection:
        break;
    }
    return {};
}

// validatePolicy() names the classification fields as the policy editor shows
// them; in the file they live in "classification".
// An element of a collection ("retryOnResponse[2].jsonPointer") goes under its field's path.
QString jsonPath(const QString &field)
{
    if (const PolicyField *f = policyFieldNamed(field))
        return f->path();
    const qsizetype bracket = field.indexOf(QLatin1Char('['));
    if (bracket > 0) {
        if (const PolicyField *f = policyFieldNamed(field.left(bracket)))
            return f->path() + field.mid(bracket);
    }
    return field;
}

// The keys of a condition object: its kind's key, and the value it must equal.
const QString jsonPointerKey = QStringLiteral("jsonPointer");
const QString headerKey = QStringLiteral("header");
const QString bodyContainsKey = QStringLiteral("bodyContains");
const QString equalsKey = QStringLiteral("equals");

// [{"jsonPointer": "/status", "equals": "PENDING"}, {"header": "X-Pending"}, {"bodyContains": "later"}];
// false when refused. Whether a pointer or a name is usable is validatePolicy()'s call.
bool readResponseConditions(JsonReader &c, ClassificationRules &rules)
{
    auto list = c.array(keyOf(Id::RetryOnResponse));
    if (!list)
        return !c.failed();
    const PolicyField &field = policyField(Id::RetryOnResponse);
    if (list->size() > field.max) {
        list->failHere(Tr::tr("%1 conditions are more than the %2 a policy may have").arg(list->size()).arg(field.max));
        return false;
    }
    QList<ResponseRetryCondition> conditions;
    for (qsizetype i = 0; i < list->size(); ++i) {
        auto item = list->object(i, Presence::Required);
        if (!item)
            return false;
        item->rejectUnknown({jsonPointerKey, headerKey, bodyContainsKey, equalsKey});
        if (item->failed())
            return false;
        QStringList kinds;
        for (const QString &key : {jsonPointerKey, headerKey, bodyContainsKey}) {
            if (item->contains(key))
                kinds.append(key);
        }
        if (kinds.size() != 1) {
            item->failHere(kinds.isEmpty() ? Tr::tr("a condition needs one of jsonPointer, header or bodyContains")
                                           : Tr::tr("a condition has one kind, not %1 (%2): write an object for each")
                                                 .arg(kinds.size())
                                                 .arg(kinds.join(QStringLiteral(", "))));
            return false;
        }
        const QString &kind = kinds.constFirst();
        const auto subject = item->string(kind, Presence::Required);
        if (!subject)
            return false;
        if (kind == jsonPointerKey) {
            if (!item->require(equalsKey))
                return false;
            conditions.append(ResponseRetryCondition::jsonEquals(*subject, item->value(equalsKey)));
        } else if (kind == headerKey) {
            std::optional<QString> value;
            if (item->contains(equalsKey)) {
                value = item->string(equalsKey);
                if (!value)
                    return false;
            }
            conditions.append(ResponseRetryCondition::headerPresent(*subject, value));
        } else {
            if (item->contains(equalsKey)) {
                item->fail(equalsKey, Tr::tr("a bodyContains condition compares nothing: leave equals out"));
                return false;
            }
            conditions.append(ResponseRetryCondition::bodyContains(*subject));
        }
    }
    rules.retryOnResponse = conditions;
    return true;
}

QJsonArray responseConditionsJson(const QList<ResponseRetryCondition> &conditions)
{
    QJsonArray list;
    for (const ResponseRetryCondition &c : conditions) {
        switch (c.kind) {
        case ResponseRetryCondition::Kind::JsonPointer:
            list.append(QJsonObject{{jsonPointerKey, c.jsonPointer}, {equalsKey, c.equals}});
            break;
        case ResponseRetryCondition::Kind::Header:
            list.append(c.headerValue ? QJsonObject{{headerKey, c.header}, {equalsKey, *c.headerValue}}
                                      : QJsonObject{{headerKey, c.header}});
            break;
        case ResponseRetryCondition::Kind::BodyContains:
            list.append(QJsonObject{{bodyContainsKey, c.bodyText}});
            break;
        }
    }
    return list;
}

void readStatuses(JsonReader &c, ClassificationRules &rules)
{
    if (const auto statuses = c.integers(keyOf(Id::RetryableStatuses), 100, 599)) {
        QSet<int> set;
        for (qint64 status : *statuses)
            set.insert(static_cast<int>(status));
        rules.retryableStatuses = set;
    }
}

// {"429": 2, "503": 1}: the delay factors by HTTP status; false when refused.
bool readStatusDelayFactors(JsonReader &c, ClassificationRules &rules)
{
    auto factors = c.object(keyOf(Id::StatusDelayFactors));
    if (!factors)
        return true;
    const PolicyField &field = policyField(Id::StatusDelayFactors);
    for (const QString &key : factors->object().keys()) {
        bool isNumber = false;
        const int status = key.toInt(&isNumber);
        if (!isNumber || status < 100 || status > 599 || key != QString::number(status)) {
            factors->fail(key, Tr::tr("not an HTTP status code (100-599)"));
            return false;
        }
        const auto factor = factors->number(key, field.min, field.max, Presence::Required);
        if (!factor)
            return false;
        rules.statusDelayFactors.insert(status, *factor);
    }
    return true;
}

// The network actions and delay factors, keyed by fault class; false when refused.
bool readNetworkFaults(JsonReader &c, ClassificationRules &rules)
{
    QStringList knownFaults;
    for (NetworkFaultClass fault : allNetworkFaultClasses())
        knownFaults.append(networkFaultClassName(fault));
    const auto unknownFault = [&knownFaults](JsonReader &reader, const QString &key) {
        const auto suggestion = JsonReader::closestName(key, knownFaults);
        reader.fail(key,
            suggestion ? Tr::tr("unknown network fault class; did you mean \"%1\"?").arg(*suggestion)
                       : Tr::tr("unknown network fault class (known: %1)").arg(knownFaults.join(QStringLiteral(", "))));
    };
    if (auto factors = c.object(keyOf(Id::NetworkDelayFactors))) {
        const PolicyField &field = policyField(Id::NetworkDelayFactors);
        for (const QString &key : factors->object().keys()) {
            const auto fault = networkFaultClassFromName(key);
            if (!fault) {
                unknownFault(*factors, key);
                return false;
            }
            const auto factor = factors->number(key, field.min, field.max, Presence::Required);
            if (!factor)
                return false;
            rules.networkDelayFactors.insert(*fault, *factor);
        }
    }

    auto actions = c.object(keyOf(Id::NetworkActions));
    if (!actions)
        return true;
    const QList<FaultAction> allActions{
        FaultAction::RetryAfterDelay, FaultAction::RetryImmediately, FaultAction::GiveUp};
    for (const QString &key : actions->object().keys()) {
        const auto fault = networkFaultClassFromName(key);
        if (!fault) {
            unknownFault(*actions, key);
            return false;
        }
        const auto action = actions->named(
            key, allActions, &faultActionName, Presence::Required, Tr::tr("unknown action \"%1\" (known: %2)"));
        if (!action)
            return false;
        rules.networkActions.insert(*fault, *action);
    }
    return true;
}

// The fields of `sections`, in the table's order; the choices and collections
// by their own formats.
void readSections(JsonReader &r, BackoffPolicy &p, std::initializer_list<Section> sections)
{
    for (const PolicyField &field : policyFields()) {
        if (std::find(sections.begin(), sections.end(), field.section) == sections.end())
            continue;
        if (field.isScalar()) {
            readScalar(r, field, p);
            continue;
        }
        const QString key = QLatin1String(field.key);
        switch (field.id) {
        case Id::Algorithm:
            if (const auto algorithm = r.named(key, allAlgorithms(), &algorithmName, Presence::Optional,
                    Tr::tr("unknown algorithm \"%1\" (known: %2)")))
                p.algorithm = *algorithm;
            break;
        case Id::IntervalJitter:
            if (const auto jitter = r.named(key, allIntervalJitters(), &intervalJitterName, Presence::Optional,
                    Tr::tr("unknown interval jitter \"%1\" (known: %2)")))
                p.intervalJitter = *jitter;
            break;
        case Id::BudgetKind: {
            const QList<RetryBudgetKind> kinds{
                RetryBudgetKind::None, RetryBudgetKind::AwsStandard, RetryBudgetKind::GrpcThrottling};
            if (const auto kind = r.named(key, kinds, &retryBudgetKindName, Presence::Optional,
                    Tr::tr("unknown kind of retry budget \"%1\" (known: %2)")))
                p.retryBudget.kind = *kind;
            break;
        }
        case Id::LimiterKind:
            if (const auto kind = r.named(key, allRateLimiterKinds(), &rateLimiterKindName, Presence::Optional,
                    Tr::tr("unknown kind of rate limiter \"%1\" (known: %2)")))
                p.rateLimiter.kind = *kind;
            break;
        case Id::RetryableStatuses:
            readStatuses(r, p.classification);
            break;
        case Id::NetworkActions:
            // The delay factors are read first, then the actions; both stop at
            // the first fault class refused.
            if (!readNetworkFaults(r, p.classification))
                return;
            break;
        case Id::NetworkDelayFactors: // read with the actions
            break;
        case Id::StatusDelayFactors:
            if (!readStatusDelayFactors(r, p.classification))
                return;
            break;
        case Id::RetryOnResponse:
            if (!readResponseConditions(r, p.classification))
                return;
            break;
        default:
            break;
        }
    }
}

} // namespace

namespace PolicyJson {

QJsonObject toJsonObject(const BackoffPolicy &p)
{
    // The scalars from the table, each into its object.
    QJsonObject object{
        {QStringLiteral("format"), QStringLiteral("retrylab-policy")},
        {QStringLiteral("version"), formatVersion},
    };
    QHash<QString, QJsonObject> nested;
    // The rate limiter is written only when there is one, so that files without it stay as they were.
    const bool limiter = p.rateLimiter.kind != RateLimiterKind::None;
    // Hedging, too, only when it is on.
    const bool hedging = p.hedging.enabled;
    for (const PolicyField &field : policyFields()) {
        if (!field.isScalar() || (field.section == Section::RateLimiter && !limiter)
            || (field.section == Section::Hedging && !hedging))
            continue;
        const QString outer = field.object();
        (outer.isEmpty() ? object : nested[outer]).insert(QLatin1String(field.key), scalarValue(field, p));
    }

    QJsonArray statuses;
    QList<int> sorted(p.classification.retryableStatuses.cbegin(), p.classification.retryableStatuses.cend());
    std::sort(sorted.begin(), sorted.end());
    for (int s : sorted)
        statuses.append(s);
    QJsonObject actions;
    for (auto it = p.classification.networkActions.cbegin(); it != p.classification.networkActions.cend(); ++it)
        actions.insert(networkFaultClassName(it.key()), faultActionName(it.value()));

    QJsonObject &classification = nested[policyField(Id::RetryableStatuses).object()];
    classification.insert(keyOf(Id::RetryableStatuses), statuses);
    classification.insert(keyOf(Id::NetworkActions), actions);
    // Written only when set, so that files without them stay as they were.
    if (!p.classification.networkDelayFactors.isEmpty()) {
        QJsonObject factors;
        for (auto it = p.classification.networkDelayFactors.cbegin(); it != p.classification.networkDelayFactors.cend();
             ++it)
            factors.insert(networkFaultClassName(it.key()), it.value());
        classification.insert(keyOf(Id::NetworkDelayFactors), factors);
    }
    if (!p.classification.statusDelayFactors.isEmpty()) {
        QJsonObject factors;
        for (auto it = p.classification.statusDelayFactors.cbegin(); it != p.classification.statusDelayFactors.cend();
             ++it)
            factors.insert(QString::number(it.key()), it.value());
        classification.insert(keyOf(Id::StatusDelayFactors), factors);
    }
    if (!p.classification.retryOnResponse.isEmpty())
        classification.insert(keyOf(Id::RetryOnResponse), responseConditionsJson(p.classification.retryOnResponse));
    nested[policyField(Id::BudgetKind).object()].insert(keyOf(Id::BudgetKind), retryBudgetKindName(p.retryBudget.kind));
    if (limiter)
        nested[policyField(Id::LimiterKind).object()].insert(
            keyOf(Id::LimiterKind), rateLimiterKindName(p.rateLimiter.kind));
    object.insert(keyOf(Id::Algorithm), algorithmName(p.algorithm));
    if (p.intervalJitter != IntervalJitter::None)
        object.insert(keyOf(Id::IntervalJitter), intervalJitterName(p.intervalJitter));

    for (auto it = nested.cbegin(); it != nested.cend(); ++it)
        object.insert(it.key(), it.value());
    return object;
}

QByteArray toJson(const BackoffPolicy &policy)
{
    return QJsonDocument(toJsonObject(policy)).toJson(QJsonDocument::Indented);
}

Result<BackoffPolicy> fromJsonObject(const QJsonObject &object)
{
    BackoffPolicy p;
    JsonReader r(object);

    const QString classificationKey = policyField(Id::RetryableStatuses).object();
    const QString breakerKey = policyField(Id::BreakerEnabled).object();
    const QString budgetKey = policyField(Id::BudgetKind).object();
    const QString limiterKey = policyField(Id::LimiterKind).object();
    const QString hedgingKey = policyField(Id::HedgingEnabled).object();
    r.rejectUnknown(QStringList{QStringLiteral("format"), QStringLiteral("version")}
        + keysOf({Section::Details, Section::Delay, Section::Limits})
        + QStringList{classificationKey, breakerKey, budgetKey, limiterKey, hedgingKey});

    if (const auto format = r.string(QStringLiteral("format")); format && *format != QLatin1String("retrylab-policy"))
        r.fail(QStringLiteral("format"), Tr::tr("expected \"retrylab-policy\", got \"%1\"").arg(*format));
    if (const auto version = r.integer(QStringLiteral("version"));
        version && (*version < 1 || *version > formatVersion)) {
        r.fail(QStringLiteral("version"),
            Tr::tr("version %1 is not supported (this build reads up to %2)").arg(*version).arg(formatVersion));
    }

    readSections(r, p, {Section::Details, Section::Delay, Section::Limits});
    if (auto classification = r.object(classificationKey)) {
        classification->rejectUnknown(keysOf({Section::Responses, Section::NetworkFaults}));
        readSections(*classification, p, {Section::Responses, Section::NetworkFaults});
    }
    if (auto breaker = r.object(breakerKey)) {
        breaker->rejectUnknown(keysOf({Section::CircuitBreaker}));
        readSections(*breaker, p, {Section::CircuitBreaker});
    }
    if (auto budget = r.object(budgetKey)) {
        budget->rejectUnknown(keysOf({Section::RetryBudget}));
        readSections(*budget, p, {Section::RetryBudget});
    }
    if (auto limiter = r.object(limiterKey)) {
        limiter->rejectUnknown(keysOf({Section::RateLimiter}));
        readSections(*limiter, p, {Section::RateLimiter});
    }
    if (auto hedging = r.object(hedgingKey)) {
        hedging->rejectUnknown(keysOf({Section::Hedging}));
        readSections(*hedging, p, {Section::Hedging});
    }
    if (r.failed())
        return r.firstError();

    for (const PolicyIssue &issue : validatePolicy(p)) {
        if (issue.isError())
            return Result<BackoffPolicy>::failure(jsonPath(issue.field), issue.message);
    }
    return p;
}

Result<BackoffPolicy> fromJson(const QByteArray &json)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return jsonSyntaxError(json, parseError);
    if (!doc.isObject())
        return Result<BackoffPolicy>::failure(Tr::tr("a policy file must hold a JSON object"));
    return fromJsonObject(doc.object());
}

Result<BackoffPolicy> readFile(const QString &path)
{
    // A policy is a few kilobytes; refuse anything absurd before parsing it.
    const auto bytes = BoundedFile::read(path, {4 * 1024 * 1024, Tr::tr("a policy file")});
    if (!bytes)
        return bytes.errorDetail();
    auto result = fromJson(*bytes);
    if (!result)
        return Result<BackoffPolicy>::failure(Tr::tr("%1: %2").arg(QDir::toNativeSeparators(path), result.error()));
    return result;
}

Result<qint64> writeFile(const QString &path, const BackoffPolicy &policy)
{
    return ExportFile::write(path, toJson(policy));
}

} // namespace PolicyJson

} // namespace RetryLab::Core
