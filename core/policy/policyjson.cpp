#include "core/policy/policyjson.h"

#include "core/util/coretr.h"
#include "core/util/exportfile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QSaveFile>

#include <algorithm>
#include <cmath>

Q_LOGGING_CATEGORY(lcPolicyJson, "retrylab.core.policyjson")

namespace RetryLab::Core {

namespace {

// Reads fields from one JSON object, remembering the first error with its path.
class FieldReader
{
public:
    FieldReader(const QJsonObject &object, QString prefix, QString *error)
        : m_object(object), m_prefix(std::move(prefix)), m_error(error)
    { }

    QString path(const QString &key) const { return m_prefix.isEmpty() ? key : m_prefix + QLatin1Char('.') + key; }

    bool failed() const { return !m_error->isEmpty(); }

    void fail(const QString &key, const QString &message)
    {
        if (m_error->isEmpty())
            *m_error = Tr::tr("field \"%1\": %2").arg(path(key), message);
    }

    void readString(const QString &key, QString &out)
    {
        const QJsonValue v = m_object.value(key);
        if (v.isUndefined())
            return;
        if (!v.isString())
            return fail(key, Tr::tr("expected a string"));
        out = v.toString();
    }

    void readNumber(const QString &key, double &out)
    {
        const QJsonValue v = m_object.value(key);
        if (v.isUndefined())
            return;
        if (!v.isDouble())
            return fail(key, Tr::tr("expected a number"));
        out = v.toDouble();
    }

    void readInt(const QString &key, int &out)
    {
        const QJsonValue v = m_object.value(key);
        if (v.isUndefined())
            return;
        const double d = v.toDouble(std::nan(""));
        if (!v.isDouble() || d != std::floor(d) || std::abs(d) > 2e9)
            return fail(key, Tr::tr("expected a whole number"));
        out = static_cast<int>(d);
    }

    void readBool(const QString &key, bool &out)
    {
        const QJsonValue v = m_object.value(key);
        if (v.isUndefined())
            return;
        if (!v.isBool())
            return fail(key, Tr::tr("expected true or false"));
        out = v.toBool();
    }

    std::optional<QJsonObject> object(const QString &key)
    {
        const QJsonValue v = m_object.value(key);
        if (v.isUndefined())
            return std::nullopt;
        if (!v.isObject()) {
            fail(key, Tr::tr("expected an object"));
            return std::nullopt;
        }
        return v.toObject();
    }

    void rejectUnknown(std::initializer_list<const char *> known)
    {
        for (auto it = m_object.begin(); it != m_object.end(); ++it) {
            const bool isKnown
                = std::any_of(known.begin(), known.end(), [&](const char *k) { return it.key() == QLatin1String(k); });
            if (!isKnown)
                return fail(it.key(), Tr::tr("unknown field"));
        }
    }

private:
    const QJsonObject &m_object;
    QString m_prefix;
    QString *m_error;
};

} // namespace

namespace PolicyJson {

QJsonObject toJsonObject(const BackoffPolicy &p)
{
    QJsonArray statuses;
    QList<int> sorted(p.classification.retryableStatuses.cbegin(), p.classification.retryableStatuses.cend());
    std::sort(sorted.begin(), sorted.end());
    for (int s : sorted)
        statuses.append(s);

    QJsonObject actions;
    for (auto it = p.classification.networkActions.cbegin(); it != p.classification.networkActions.cend(); ++it)
        actions.insert(networkFaultClassName(it.key()), faultActionName(it.value()));

    const QJsonObject classification{
        {QStringLiteral("retryableStatuses"), statuses},
        {QStringLiteral("retryConflictAborted"), p.classification.retryConflictAborted},
        {QStringLiteral("retryNonIdempotent"), p.classification.retryNonIdempotent},
        {QStringLiteral("honourRetryAfter"), p.classification.honourRetryAfter},
        {QStringLiteral("maxRetryAfterMs"), p.classification.maxRetryAfterMs},
        {QStringLiteral("networkActions"), actions},
    };
    const auto &cb = p.circuitBreaker;
    const QJsonObject breaker{
        {QStringLiteral("enabled"), cb.enabled},
        {QStringLiteral("consecutiveFailures"), cb.consecutiveFailures},
        {QStringLiteral("failureRatio"), cb.failureRatio},
        {QStringLiteral("window"), cb.window},
        {QStringLiteral("openMs"), cb.openMs},
        {QStringLiteral("halfOpenTrials"), cb.halfOpenTrials},
    };
    const auto &rb = p.retryBudget;
    const QJsonObject budget{
        {QStringLiteral("kind"), retryBudgetKindName(rb.kind)},
        {QStringLiteral("awsCapacity"), rb.awsCapacity},
        {QStringLiteral("awsRetryCost"), rb.awsRetryCost},
        {QStringLiteral("awsTimeoutCost"), rb.awsTimeoutCost},
        {QStringLiteral("awsSuccessRefund"), rb.awsSuccessRefund},
        {QStringLiteral("grpcMaxTokens"), rb.grpcMaxTokens},
        {QStringLiteral("grpcTokenRatio"), rb.grpcTokenRatio},
    };
    return QJsonObject{
        {QStringLiteral("format"), QStringLiteral("retrylab-policy")},
        {QStringLiteral("version"), formatVersion},
        {QStringLiteral("name"), p.name},
        {QStringLiteral("description"), p.description},
        {QStringLiteral("source"), p.source},
        {QStringLiteral("algorithm"), algorithmName(p.algorithm)},
        {QStringLiteral("baseDelayMs"), p.baseDelayMs},
        {QStringLiteral("multiplier"), p.multiplier},
        {QStringLiteral("maxBackoffMs"), p.maxBackoffMs},
        {QStringLiteral("jitterMs"), p.jitterMs},
        {QStringLiteral("jitterFraction"), p.jitterFraction},
        {QStringLiteral("maxAttempts"), p.maxAttempts},
        {QStringLiteral("deadlineMs"), p.deadlineMs},
        {QStringLiteral("attemptTimeoutMs"), p.attemptTimeoutMs},
        {QStringLiteral("classification"), classification},
        {QStringLiteral("circuitBreaker"), breaker},
        {QStringLiteral("retryBudget"), budget},
    };
}

QByteArray toJson(const BackoffPolicy &policy)
{
    return QJsonDocument(toJsonObject(policy)).toJson(QJsonDocument::Indented);
}

Result<BackoffPolicy> fromJsonObject(const QJsonObject &object)
{
    BackoffPolicy p;
    QString error;
    FieldReader r(object, {}, &error);

    r.rejectUnknown({"format", "version", "name", "description", "source", "algorithm", "baseDelayMs", "multiplier",
        "maxBackoffMs", "jitterMs", "jitterFraction", "maxAttempts", "deadlineMs", "attemptTimeoutMs", "classification",
        "circuitBreaker", "retryBudget"});

    QString format = QStringLiteral("retrylab-policy");
    r.readString(QStringLiteral("format"), format);
    if (!r.failed() && format != QLatin1String("retrylab-policy"))
        r.fail(QStringLiteral("format"), Tr::tr("expected \"retrylab-policy\", got \"%1\"").arg(format));
    int version = formatVersion;
    r.readInt(QStringLiteral("version"), version);
    if (!r.failed() && (version < 1 || version > formatVersion))
        r.fail(QStringLiteral("version"),
            Tr::tr("version %1 is not supported (this build reads up to %2)").arg(version).arg(formatVersion));

    r.readString(QStringLiteral("name"), p.name);
    r.readString(QStringLiteral("description"), p.description);
    r.readString(QStringLiteral("source"), p.source);

    QString algorithm = algorithmName(p.algorithm);
    r.readString(QStringLiteral("algorithm"), algorithm);
    if (!r.failed()) {
        if (const auto a = algorithmFromName(algorithm)) {
            p.algorithm = *a;
        } else {
            QStringList names;
            for (auto each : allAlgorithms())
                names.append(algorithmName(each));
            r.fail(QStringLiteral("algorithm"),
                Tr::tr("unknown algorithm \"%1\" (known: %2)").arg(algorithm, names.join(QStringLiteral(", "))));
        }
    }
    r.readNumber(QStringLiteral("baseDelayMs"), p.baseDelayMs);
    r.readNumber(QStringLiteral("multiplier"), p.multiplier);
    r.readNumber(QStringLiteral("maxBackoffMs"), p.maxBackoffMs);
    r.readNumber(QStringLiteral("jitterMs"), p.jitterMs);
    r.readNumber(QStringLiteral("jitterFraction"), p.jitterFraction);
    r.readInt(QStringLiteral("maxAttempts"), p.maxAttempts);
    r.readNumber(QStringLiteral("deadlineMs"), p.deadlineMs);
    r.readNumber(QStringLiteral("attemptTimeoutMs"), p.attemptTimeoutMs);

    if (const auto cl = r.object(QStringLiteral("classification"))) {
        FieldReader c(*cl, QStringLiteral("classification"), &error);
        c.rejectUnknown({"retryableStatuses", "retryConflictAborted", "retryNonIdempotent", "honourRetryAfter",
            "maxRetryAfterMs", "networkActions"});
        const QJsonValue statuses = cl->value(QStringLiteral("retryableStatuses"));
        if (!statuses.isUndefined()) {
            if (!statuses.isArray()) {
                c.fail(QStringLiteral("retryableStatuses"), Tr::tr("expected an array of status codes"));
            } else {
                QSet<int> set;
                for (const QJsonValue &v : statuses.toArray()) {
                    const double d = v.toDouble(-1);
                    if (!v.isDouble() || d != std::floor(d) || d < 100 || d > 599) {
                        c.fail(QStringLiteral("retryableStatuses"),
                            Tr::tr("%1 is not an HTTP status code")
                                .arg(QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact))));
                        break;
                    }
                    set.insert(static_cast<int>(d));
                }
                p.classification.retryableStatuses = set;
            }
        }
        c.readBool(QStringLiteral("retryConflictAborted"), p.classification.retryConflictAborted);
        c.readBool(QStringLiteral("retryNonIdempotent"), p.classification.retryNonIdempotent);
        c.readBool(QStringLiteral("honourRetryAfter"), p.classification.honourRetryAfter);
        c.readNumber(QStringLiteral("maxRetryAfterMs"), p.classification.maxRetryAfterMs);
        if (const auto actions = c.object(QStringLiteral("networkActions"))) {
            for (auto it = actions->begin(); it != actions->end(); ++it) {
                const auto fault = networkFaultClassFromName(it.key());
                const auto action = faultActionFromName(it.value().toString());
                const QString key = QStringLiteral("networkActions.") + it.key();
                if (!fault) {
                    c.fail(key, Tr::tr("unknown network fault class"));
                    break;
                }
                if (!it.value().isString() || !action) {
                    c.fail(key, Tr::tr("expected \"retry-after-delay\", \"retry-immediately\" or \"give-up\""));
                    break;
                }
                p.classification.networkActions.insert(*fault, *action);
            }
        }
    }

    if (const auto cbObject = r.object(QStringLiteral("circuitBreaker"))) {
        FieldReader c(*cbObject, QStringLiteral("circuitBreaker"), &error);
        c.rejectUnknown({"enabled", "consecutiveFailures", "failureRatio", "window", "openMs", "halfOpenTrials"});
        c.readBool(QStringLiteral("enabled"), p.circuitBreaker.enabled);
        c.readInt(QStringLiteral("consecutiveFailures"), p.circuitBreaker.consecutiveFailures);
        c.readNumber(QStringLiteral("failureRatio"), p.circuitBreaker.failureRatio);
        c.readInt(QStringLiteral("window"), p.circuitBreaker.window);
        c.readNumber(QStringLiteral("openMs"), p.circuitBreaker.openMs);
        c.readInt(QStringLiteral("halfOpenTrials"), p.circuitBreaker.halfOpenTrials);
    }

    if (const auto rbObject = r.object(QStringLiteral("retryBudget"))) {
        FieldReader c(*rbObject, QStringLiteral("retryBudget"), &error);
        c.rejectUnknown({"kind", "awsCapacity", "awsRetryCost", "awsTimeoutCost", "awsSuccessRefund", "grpcMaxTokens",
            "grpcTokenRatio"});
        QString kind = retryBudgetKindName(p.retryBudget.kind);
        c.readString(QStringLiteral("kind"), kind);
        if (!c.failed()) {
            if (const auto k = retryBudgetKindFromName(kind))
                p.retryBudget.kind = *k;
            else
                c.fail(QStringLiteral("kind"), Tr::tr("expected \"none\", \"aws-standard\" or \"grpc-throttling\""));
        }
        c.readNumber(QStringLiteral("awsCapacity"), p.retryBudget.awsCapacity);
        c.readNumber(QStringLiteral("awsRetryCost"), p.retryBudget.awsRetryCost);
        c.readNumber(QStringLiteral("awsTimeoutCost"), p.retryBudget.awsTimeoutCost);
        c.readNumber(QStringLiteral("awsSuccessRefund"), p.retryBudget.awsSuccessRefund);
        c.readNumber(QStringLiteral("grpcMaxTokens"), p.retryBudget.grpcMaxTokens);
        c.readNumber(QStringLiteral("grpcTokenRatio"), p.retryBudget.grpcTokenRatio);
    }

    if (!error.isEmpty())
        return Result<BackoffPolicy>::failure(error);

    for (const PolicyIssue &issue : validatePolicy(p)) {
        if (issue.isError())
            return Result<BackoffPolicy>::failure(Tr::tr("field \"%1\": %2").arg(issue.field, issue.message));
    }
    return p;
}

Result<BackoffPolicy> fromJson(const QByteArray &json)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        return Result<BackoffPolicy>::failure(
            Tr::tr("not valid JSON at offset %1: %2").arg(parseError.offset).arg(parseError.errorString()));
    }
    if (!doc.isObject())
        return Result<BackoffPolicy>::failure(Tr::tr("a policy file must hold a JSON object"));
    return fromJsonObject(doc.object());
}

Result<BackoffPolicy> readFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Result<BackoffPolicy>::failure(Tr::tr("cannot read %1: %2").arg(path, file.errorString()));
    // A policy is a few kilobytes; refuse anything absurd before parsing it.
    if (file.size() > 4 * 1024 * 1024)
        return Result<BackoffPolicy>::failure(Tr::tr("%1 is too large to be a policy file").arg(path));
    auto result = fromJson(file.readAll());
    if (!result)
        return Result<BackoffPolicy>::failure(Tr::tr("%1: %2").arg(QDir::toNativeSeparators(path), result.error()));
    return result;
}

Result<qint64> writeFile(const QString &path, const BackoffPolicy &policy)
{
    return ExportFile::write(path, toJson(policy));
}

} // namespace PolicyJson

namespace Presets {

const QList<Preset> &all()
{
    static const QList<Preset> presets = [] {
        QList<Preset> list;
        const QDir dir(QStringLiteral(":/presets"));
        const auto entries = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
        for (const QString &entry : entries) {
            auto result = PolicyJson::readFile(dir.filePath(entry));
            if (!result) {
                qCWarning(lcPolicyJson) << "built-in preset" << entry << "is invalid:" << result.error();
                continue;
            }
            list.append({entry.chopped(5), std::move(result).value()});
        }
        std::sort(list.begin(), list.end(), [](const Preset &a, const Preset &b) { return a.id < b.id; });
        return list;
    }();
    return presets;
}

std::optional<BackoffPolicy> find(const QString &idOrName)
{
    for (const Preset &preset : all()) {
        if (preset.id == idOrName || preset.policy.name.compare(idOrName, Qt::CaseInsensitive) == 0)
            return preset.policy;
    }
    return std::nullopt;
}

QStringList ids()
{
    QStringList list;
    for (const Preset &preset : all())
        list.append(preset.id);
    return list;
}

} // namespace Presets

} // namespace RetryLab::Core
