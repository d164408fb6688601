#include "ui/session/settings.h"

#include "core/policy/policyjson.h"
#include "core/policy/presets.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QMetaType>
#include <QStringDecoder>

#include <algorithm>
#include <cmath>
#include <functional>

Q_LOGGING_CATEGORY(lcSettings, "retrylab.ui.settings")

namespace RetryLab::Ui {

namespace {

const QString currentPolicyKey = QStringLiteral("policy/current");
const QString userPresetsKey = QStringLiteral("policy/userPresets");
const QString presetJsonKey = QStringLiteral("json");
const QString geometryKey = QStringLiteral("window/geometry");
const QString stateKey = QStringLiteral("window/state");
const QString recentUrlsKey = QStringLiteral("request/recentUrls");
const QString requestDraftKey = QStringLiteral("request/draft");
const QString recentTemplatesKey = QStringLiteral("request/recentTemplates");
const QString serverScenarioKey = QStringLiteral("server/scenario");
const QString exportDirectoryKey = QStringLiteral("export/directory");
const QString simulatorKey = QStringLiteral("simulator/parameters");
const QString conformanceChoiceKey = QStringLiteral("conformance/policy");

QString typeName(const QVariant &value)
{
    return QString::fromLatin1(value.metaType().name());
}

QString wrongType(const QString &key, const QVariant &value, const QString &expected)
{
    return Settings::tr("The setting \"%1\" holds %2 instead of %3; the default is used.")
        .arg(key, typeName(value), expected);
}

// QSettings parses a file once per process and hands later instances the parsed
// result with a clean status; remember what the first look found.
struct KnownDamage
{
    QDateTime modified;
    qint64 size = 0;
    QString reason;
};

QHash<QString, KnownDamage> &knownDamage()
{
    static QHash<QString, KnownDamage> damage;
    return damage;
}

bool sameName(const QString &a, const QString &b)
{
    return a.trimmed().compare(b.trimmed(), Qt::CaseInsensitive) == 0;
}

// A JSON object stored as text; the error says what is wrong with it.
std::optional<QJsonObject> readJsonObject(const QVariant &value, QString *error)
{
    if (value.typeId() != QMetaType::QString) {
        *error = Settings::tr("it holds %1 instead of JSON text").arg(typeName(value));
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(value.toString().toUtf8(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error = Settings::tr("it is not valid JSON (%1 at offset %2)")
                     .arg(parseError.errorString())
                     .arg(parseError.offset);
        return std::nullopt;
    }
    if (!document.isObject()) {
        *error = Settings::tr("it is not a JSON object");
        return std::nullopt;
    }
    return document.object();
}

// A part of a saved JSON object that can be left out on its own: a key, a key of a
// nested object ("circuitBreaker.openMs") or an element of a list ("headers[2]").
struct JsonField
{
    QString key;
    QString subKey;
    qsizetype index = -1;

    QString name() const
    {
        if (!subKey.isEmpty())
            return key + QLatin1Char('.') + subKey;
        if (index >= 0)
            return QStringLiteral("%1[%2]").arg(key).arg(index);
        return key;
    }
};

// The finer parts first, so that as little as possible is left out.
QList<JsonField> fieldsOf(const QJsonObject &object, const QStringList &listsByElement)
{
    QList<JsonField> fields;
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it->isObject()) {
            const QJsonObject nested = it->toObject();
            for (auto sub = nested.begin(); sub != nested.end(); ++sub)
                fields.append({it.key(), sub.key(), -1});
        } else if (it->isArray() && listsByElement.contains(it.key())) {
            // From the end, so that the indexes of the elements before stay right.
            for (qsizetype i = it->toArray().size() - 1; i >= 0; --i)
                fields.append({it.key(), {}, i});
        }
        fields.append({it.key(), {}, -1});
    }
    return fields;
}

QJsonObject without(QJsonObject object, const JsonField &field)
{
    if (!field.subKey.isEmpty()) {
        QJsonObject nested = object.value(field.key).toObject();
        nested.remove(field.subKey);
        object.insert(field.key, nested);
    } else if (field.index >= 0) {
        QJsonArray list = object.value(field.key).toArray();
        list.removeAt(field.index);
        object.insert(field.key, list);
    } else {
        object.remove(field.key);
    }
    return object;
}

// Reads a saved object field by field: when the whole does not parse, the fields that
// make it fail are left out (each gets its default) and the rest is kept. A parser
// names the first field it refuses, so a field whose removal changes that error (and
// is not what the new error is about) was at fault. `leftOut` gets a sentence per field.
template<typename T, typename Parse>
T readFieldByField(const QJsonObject &object, Parse parse, const QStringList &listsByElement, const QString &what,
    QStringList *leftOut)
{
    auto whole = parse(object);
    if (whole)
        return std::move(whole).value();

    QJsonObject current = object;
    QString error = whole.error();
    QStringList dropped;
    bool progressed = true;
    while (progressed) {
        progressed = false;
        for (const JsonField &field : fieldsOf(current, listsByElement)) {
            const QJsonObject trial = without(current, field);
            auto result = parse(trial);
            if (result) {
                dropped.append(field.name() + QStringLiteral(" (") + error + QLatin1Char(')'));
                for (const QString &each : std::as_const(dropped)) {
                    qCWarning(lcSettings).noquote() << what << "field left out:" << each;
                    if (leftOut) {
                        leftOut->append(
                            Settings::tr("A field of the saved %1 could not be read and has its default: %2.")
                                .arg(what, each));
                    }
                }
                return std::move(result).value();
            }
            if (result.error() != error && !result.error().startsWith(field.key)) {
                dropped.append(field.name() + QStringLiteral(" (") + error + QLatin1Char(')'));
                current = trial;
                error = result.error();
                progressed = true;
                break;
            }
        }
    }
    qCWarning(lcSettings).noquote() << what << "could not be read:" << whole.error();
    if (leftOut) {
        leftOut->append(
            Settings::tr("The saved %1 could not be read (%2); the default is used.").arg(what, whole.error()));
    }
    return T{};
}

QString jsonText(const QJsonObject &object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

QJsonObject herdJson(const Core::HerdParameters &p)
{
    QJsonArray strategies;
    for (const Core::HerdStrategy &strategy : p.strategies)
        strategies.append(strategy.name());
    QJsonObject object{
        {QStringLiteral("model"), Core::herdModelName(p.model)},
        {QStringLiteral("clients"), Core::formatClientCounts(p.clientCounts)},
        {QStringLiteral("runs"), p.runs},
        {QStringLiteral("seed"), QString::number(p.seed)}, // beyond 2^53 a JSON number loses digits
        {QStringLiteral("strategies"), strategies},
        {QStringLiteral("baseDelayMs"), p.baseDelayMs},
        {QStringLiteral("maxBackoffMs"), p.maxBackoffMs},
        {QStringLiteral("multiplier"), p.multiplier},
        {QStringLiteral("jitterMs"), p.jitterMs},
        {QStringLiteral("maxAttempts"), p.maxAttempts},
        {QStringLiteral("deadlineMs"), p.deadlineMs},
        {QStringLiteral("networkMeanMs"), p.networkMeanMs},
        {QStringLiteral("networkSdMs"), p.networkSdMs},
        {QStringLiteral("arrivals"), Core::arrivalModeName(p.arrivals)},
        {QStringLiteral("arrivalRatePerSec"), p.arrivalRatePerSec},
        {QStringLiteral("serviceRatePerSec"), p.serviceRatePerSec},
        {QStringLiteral("queueCapacity"), p.queueCapacity},
        {QStringLiteral("overloadStatus"), p.overloadStatus},
        {QStringLiteral("honourRetryAfter"), p.honourRetryAfter},
        {QStringLiteral("outageStartMs"), p.outageStartMs},
        {QStringLiteral("outageEndMs"), p.outageEndMs},
        {QStringLiteral("binMs"), p.binMs},
    };
    object.insert(QStringLiteral("retryAfterS"), p.retryAfterS ? QJsonValue(*p.retryAfterS) : QJsonValue());
    return object;
}

// Sets one field from its saved value; false when the value has the wrong type or is unknown.
using HerdField = std::function<bool(const QJsonValue &, Core::HerdParameters &)>;

HerdField number(double Core::HerdParameters::*field)
{
    return [field](const QJsonValue &v, Core::HerdParameters &p) {
        if (!v.isDouble() || !std::isfinite(v.toDouble()))
            return false;
        p.*field = v.toDouble();
        return true;
    };
}

HerdField whole(int Core::HerdParameters::*field)
{
    return [field](const QJsonValue &v, Core::HerdParameters &p) {
        const double d = v.toDouble(0.5);
        if (!v.isDouble() || d != std::floor(d) || std::abs(d) > 1e9)
            return false;
        p.*field = static_cast<int>(d);
        return true;
    };
}

const QList<std::pair<QString, HerdField>> &herdFields()
{
    using P = Core::HerdParameters;
    static const QList<std::pair<QString, HerdField>> fields{
        {QStringLiteral("clients"),
            [](const QJsonValue &v, P &p) {
                const auto counts = Core::parseClientCounts(v.toString());
                if (!v.isString() || !counts)
                    return false;
                p.clientCounts = *counts;
                return true;
            }},
        {QStringLiteral("runs"), whole(&P::runs)},
        {QStringLiteral("seed"),
            [](const QJsonValue &v, P &p) {
                bool ok = false;
                const quint64 seed = v.toString().toULongLong(&ok);
                if (!ok)
                    return false;
                p.seed = seed;
                return true;
            }},
        {QStringLiteral("strategies"),
            [](const QJsonValue &v, P &p) {
                QStringList names;
                for (const QJsonValue &each : v.toArray())
                    names.append(each.toString());
                const auto strategies = Core::parseStrategies(names.join(QLatin1Char(',')));
                if (!v.isArray() || !strategies)
                    return false;
                p.strategies = *strategies;
                return true;
            }},
        {QStringLiteral("baseDelayMs"), number(&P::baseDelayMs)},
        {QStringLiteral("maxBackoffMs"), number(&P::maxBackoffMs)},
        {QStringLiteral("multiplier"), number(&P::multiplier)},
        {QStringLiteral("jitterMs"), number(&P::jitterMs)},
        {QStringLiteral("maxAttempts"), whole(&P::maxAttempts)},
        {QStringLiteral("deadlineMs"), number(&P::deadlineMs)},
        {QStringLiteral("networkMeanMs"), number(&P::networkMeanMs)},
        {QStringLiteral("networkSdMs"), number(&P::networkSdMs)},
        {QStringLiteral("arrivals"),
            [](const QJsonValue &v, P &p) {
                const auto mode = Core::arrivalModeFromName(v.toString());
                if (!mode)
                    return false;
                p.arrivals = *mode;
                return true;
            }},
        {QStringLiteral("arrivalRatePerSec"), number(&P::arrivalRatePerSec)},
        {QStringLiteral("serviceRatePerSec"), number(&P::serviceRatePerSec)},
        {QStringLiteral("queueCapacity"), whole(&P::queueCapacity)},
        {QStringLiteral("overloadStatus"), whole(&P::overloadStatus)},
        {QStringLiteral("retryAfterS"),
            [](const QJsonValue &v, P &p) {
                if (v.isNull()) {
                    p.retryAfterS.reset();
                    return true;
                }
                const double d = v.toDouble(0.5);
                if (!v.isDouble() || d != std::floor(d) || std::abs(d) > 1e9)
                    return false;
                p.retryAfterS = static_cast<int>(d);
                return true;
            }},
        {QStringLiteral("honourRetryAfter"),
            [](const QJsonValue &v, P &p) {
                if (!v.isBool())
                    return false;
                p.honourRetryAfter = v.toBool();
                return true;
            }},
        {QStringLiteral("outageStartMs"), number(&P::outageStartMs)},
        {QStringLiteral("outageEndMs"), number(&P::outageEndMs)},
        {QStringLiteral("binMs"), number(&P::binMs)},
    };
    return fields;
}

} // namespace

Settings::Settings(QObject *parent) : QObject(parent), m_settings(std::make_unique<QSettings>())
{
    inspectFile();
}

Settings::~Settings() = default;

QString Settings::fileName() const
{
    return m_settings->fileName();
}

// QSettings reads what it can from a damaged file and, on the next write,
// replaces the file with only that. A copy of the original is taken first so
// that whatever it could not read is still there for the user.
void Settings::inspectFile()
{
    const QString path = m_settings->fileName();
    if (!QFileInfo::exists(path))
        return;

    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        m_fileProblems.append(tr("The settings file %1 cannot be read (%2); default settings are used and "
                                 "changes may not be saved.")
                                  .arg(QDir::toNativeSeparators(path), file.errorString()));
        qCWarning(lcSettings) << "cannot read" << path << file.errorString();
        return;
    }
    const QByteArray bytes = file.readAll();
    file.close();

    QString damage;
    if (m_settings->status() == QSettings::FormatError) {
        damage = tr("it is not in the settings format");
    } else if (bytes.contains('\0')) {
        damage = tr("it contains binary data");
    } else {
        QStringDecoder decoder(QStringDecoder::Utf8);
        const QString text = decoder(bytes);
        Q_UNUSED(text);
        if (decoder.hasError())
            damage = tr("it is not UTF-8 text");
    }
    const QFileInfo info(path);
    if (damage.isEmpty()) {
        const auto known = knownDamage().constFind(path);
        if (known == knownDamage().cend() || known->modified != info.lastModified() || known->size != info.size())
            return;
        damage = known->reason;
    } else {
        knownDamage().insert(path, {info.lastModified(), info.size(), damage});
    }

    qCWarning(lcSettings) << "damaged settings file" << path << damage;

    // Started again on the same damaged file: the copy taken last time is still good.
    for (const QFileInfo &earlier :
        info.absoluteDir().entryInfoList({info.fileName() + QStringLiteral(".damaged-*")}, QDir::Files, QDir::Time)) {
        QFile copy(earlier.absoluteFilePath());
        if (earlier.size() == bytes.size() && copy.open(QIODevice::ReadOnly) && copy.readAll() == bytes) {
            m_fileProblems.append(
                tr("The settings file %1 is still damaged (%2). Settings that could be read are "
                   "kept, the rest use their defaults; the original file is kept at %3.")
                    .arg(QDir::toNativeSeparators(path), damage, QDir::toNativeSeparators(earlier.absoluteFilePath())));
            return;
        }
    }

    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    QString backup = path + QStringLiteral(".damaged-") + stamp;
    for (int n = 2; QFileInfo::exists(backup); ++n)
        backup = path + QStringLiteral(".damaged-") + stamp + QLatin1Char('-') + QString::number(n);

    if (QFile::copy(path, backup)) {
        m_fileProblems.append(tr("The settings file %1 is damaged (%2). Settings that could be read are kept, "
                                 "the rest use their defaults; the original file was copied to %3.")
                                  .arg(QDir::toNativeSeparators(path), damage, QDir::toNativeSeparators(backup)));
    } else {
        m_fileProblems.append(tr("The settings file %1 is damaged (%2) and could not be copied aside. Settings "
                                 "that could be read are kept, the rest use their defaults.")
                                  .arg(QDir::toNativeSeparators(path), damage));
    }
}

QStringList Settings::problems() const
{
    QStringList problems = m_fileProblems;
    readCurrentPolicy(&problems);
    readUserPresets(&problems);
    readBytes(geometryKey, &problems);
    readBytes(stateKey, &problems);
    readRecentUrls(&problems);
    readRequestDraft(&problems);
    readRecentUrlTemplates(&problems);
    readServerScenario(&problems);
    readSimulatorParameters(&problems);
    return problems;
}

Core::Result<void> Settings::sync()
{
    m_settings->sync();
    if (m_settings->status() == QSettings::AccessError)
        return Core::Result<void>::failure(
            tr("Cannot write the settings file %1.").arg(QDir::toNativeSeparators(m_settings->fileName())));
    return {};
}

Core::BackoffPolicy Settings::readCurrentPolicy(QStringList *problems) const
{
    if (!m_settings->contains(currentPolicyKey))
        return {};
    const QVariant value = m_settings->value(currentPolicyKey);
    if (value.typeId() != QMetaType::QString) {
        if (problems)
            problems->append(wrongType(currentPolicyKey, value, tr("a policy in JSON")));
        return {};
    }
    QString error;
    const auto object = readJsonObject(value, &error);
    if (!object) {
        if (problems)
            problems->append(
                tr("The saved policy could not be used (%1); the default policy is used instead.").arg(error));
        return {};
    }
    return readFieldByField<Core::BackoffPolicy>(
        *object, &Core::PolicyJson::fromJsonObject, {}, tr("policy"), problems);
}

Core::BackoffPolicy Settings::currentPolicy() const
{
    return readCurrentPolicy(nullptr);
}

void Settings::setCurrentPolicy(const Core::BackoffPolicy &policy)
{
    if (!Core::isUsable(policy))
        return;
    m_settings->setValue(currentPolicyKey, QString::fromUtf8(Core::PolicyJson::toJson(policy)));
}

// Entries are found through the group's children rather than the array's
// "size" key, so that a damaged size cannot hide (and later erase) presets.
// Entries that cannot be read are carried along unchanged when writing.
QList<Settings::RawPreset> Settings::readUserPresets(QStringList *problems) const
{
    m_settings->beginGroup(userPresetsKey);
    QList<std::pair<int, QString>> groups;
    for (const QString &group : m_settings->childGroups()) {
        bool ok = false;
        const int index = group.toInt(&ok);
        if (ok)
            groups.append({index, group});
    }
    std::sort(groups.begin(), groups.end());

    QList<RawPreset> presets;
    for (const auto &[index, group] : groups) {
        RawPreset preset;
        preset.raw = m_settings->value(group + QLatin1Char('/') + presetJsonKey);
        if (preset.raw.typeId() != QMetaType::QString) {
            preset.error = wrongType(userPresetsKey + QLatin1Char('/') + group, preset.raw, tr("a policy in JSON"));
        } else if (auto result = Core::PolicyJson::fromJson(preset.raw.toString().toUtf8())) {
            preset.policy = std::move(result).value();
        } else {
            preset.error = tr("Your saved preset number %1 could not be read (%2); it is left out of the list.")
                               .arg(index)
                               .arg(result.error());
        }
        if (problems && !preset.error.isEmpty())
            problems->append(preset.error);
        presets.append(preset);
    }
    m_settings->endGroup();
    return presets;
}

void Settings::writeUserPresets(const QList<RawPreset> &presets)
{
    m_settings->remove(userPresetsKey);
    m_settings->beginWriteArray(userPresetsKey, static_cast<int>(presets.size()));
    for (int i = 0; i < presets.size(); ++i) {
        m_settings->setArrayIndex(i);
        m_settings->setValue(presetJsonKey, presets.at(i).raw);
    }
    m_settings->endArray();
    Q_EMIT userPresetsChanged();
}

QList<Core::BackoffPolicy> Settings::userPresets() const
{
    QList<Core::BackoffPolicy> policies;
    for (const RawPreset &preset : readUserPresets(nullptr)) {
        if (preset.policy)
            policies.append(*preset.policy);
    }
    return policies;
}

std::optional<Core::BackoffPolicy> Settings::userPreset(const QString &name) const
{
    for (const RawPreset &preset : readUserPresets(nullptr)) {
        if (preset.policy && sameName(preset.policy->name, name))
            return preset.policy;
    }
    return std::nullopt;
}

bool Settings::isBuiltInPresetName(const QString &name)
{
    const auto &presets = Core::Presets::all();
    return std::any_of(presets.cbegin(), presets.cend(), [&](const Core::Presets::Preset &preset) {
        return sameName(preset.id, name) || sameName(preset.policy.name, name);
    });
}

Core::Result<void> Settings::saveUserPreset(const Core::BackoffPolicy &policy)
{
    using R = Core::Result<void>;
    const QString name = policy.name.trimmed();
    if (name.isEmpty())
        return R::failure(tr("A preset needs a name."));
    if (isBuiltInPresetName(name))
        return R::failure(tr("\"%1\" is the name of a built-in preset; choose another name.").arg(name));

    QList<Core::PolicyIssue> errors;
    for (const Core::PolicyIssue &issue : Core::validatePolicy(policy)) {
        if (issue.isError())
            errors.append(issue);
    }
    if (!errors.isEmpty())
        return R::failure(
            tr("The policy has errors and cannot be saved as a preset:\n%1").arg(Core::describeIssues(errors)));

    Core::BackoffPolicy named = policy;
    named.name = name;
    RawPreset entry;
    entry.raw = QString::fromUtf8(Core::PolicyJson::toJson(named));
    entry.policy = named;

    QList<RawPreset> presets = readUserPresets(nullptr);
    const auto existing = std::find_if(presets.begin(), presets.end(),
        [&](const RawPreset &preset) { return preset.policy && sameName(preset.policy->name, name); });
    if (existing != presets.end())
        *existing = entry;
    else
        presets.append(entry);
    writeUserPresets(presets);
    return sync();
}

bool Settings::removeUserPreset(const QString &name)
{
    QList<RawPreset> presets = readUserPresets(nullptr);
    const auto removed = presets.removeIf(
        [&](const RawPreset &preset) { return preset.policy && sameName(preset.policy->name, name); });
    if (removed == 0)
        return false;
    writeUserPresets(presets);
    return true;
}

QByteArray Settings::readBytes(const QString &key, QStringList *problems) const
{
    if (!m_settings->contains(key))
        return {};
    const QVariant value = m_settings->value(key);
    if (value.typeId() != QMetaType::QByteArray) {
        if (problems)
            problems->append(wrongType(key, value, tr("binary data")));
        return {};
    }
    return value.toByteArray();
}

QByteArray Settings::windowGeometry() const
{
    return readBytes(geometryKey, nullptr);
}

void Settings::setWindowGeometry(const QByteArray &geometry)
{
    m_settings->setValue(geometryKey, geometry);
}

QByteArray Settings::windowState() const
{
    return readBytes(stateKey, nullptr);
}

void Settings::setWindowState(const QByteArray &state)
{
    m_settings->setValue(stateKey, state);
}

QList<QUrl> Settings::readRecentUrls(QStringList *problems) const
{
    if (!m_settings->contains(recentUrlsKey))
        return {};
    const QVariant value = m_settings->value(recentUrlsKey);
    QStringList texts;
    if (value.typeId() == QMetaType::QStringList) {
        texts = value.toStringList();
    } else if (value.typeId() == QMetaType::QString) {
        // INI files store a one-element list as a plain string.
        texts = QStringList{value.toString()};
    } else if (value.isValid()) {
        if (problems)
            problems->append(wrongType(recentUrlsKey, value, tr("a list of URLs")));
        return {};
    }

    QList<QUrl> urls;
    for (const QString &text : std::as_const(texts)) {
        const QUrl url(text, QUrl::StrictMode);
        if (text.isEmpty() || !url.isValid()) {
            if (problems)
                problems->append(tr("A damaged recent URL (\"%1\") was left out.").arg(text.left(200)));
            continue;
        }
        if (urls.size() < maxRecentUrls)
            urls.append(url);
    }
    return urls;
}

QList<QUrl> Settings::recentUrls() const
{
    return readRecentUrls(nullptr);
}

void Settings::addRecentUrl(const QUrl &url)
{
    if (url.isEmpty() || !url.isValid())
        return;
    // A password typed into a URL must not end up in a plain-text file.
    const QUrl stored = url.adjusted(QUrl::RemovePassword);
    QList<QUrl> urls = recentUrls();
    urls.removeAll(stored);
    urls.prepend(stored);
    if (urls.size() > maxRecentUrls)
        urls.resize(maxRecentUrls);

    QStringList texts;
    for (const QUrl &each : std::as_const(urls))
        texts.append(each.toString(QUrl::FullyEncoded));
    m_settings->setValue(recentUrlsKey, texts);
    Q_EMIT recentUrlsChanged();
}

void Settings::clearRecentUrls()
{
    m_settings->remove(recentUrlsKey);
    Q_EMIT recentUrlsChanged();
}

RequestDraft Settings::readRequestDraft(QStringList *problems) const
{
    if (!m_settings->contains(requestDraftKey))
        return {};
    QString error;
    const auto object = readJsonObject(m_settings->value(requestDraftKey), &error);
    if (object) {
        return readFieldByField<RequestDraft>(
            *object, &RequestDraft::fromJson, {QStringLiteral("headers")}, tr("request"), problems);
    }
    if (problems)
        problems->append(tr("The saved request could not be read (%1); the default request is used.").arg(error));
    return {};
}

RequestDraft Settings::requestDraft() const
{
    return readRequestDraft(nullptr);
}

void Settings::setRequestDraft(const RequestDraft &draft)
{
    m_settings->setValue(requestDraftKey, jsonText(draft.toJson(false)));
}

QStringList Settings::readRecentUrlTemplates(QStringList *problems) const
{
    if (!m_settings->contains(recentTemplatesKey))
        return {};
    const QVariant value = m_settings->value(recentTemplatesKey);
    QStringList texts;
    if (value.typeId() == QMetaType::QStringList) {
        texts = value.toStringList();
    } else if (value.typeId() == QMetaType::QString) {
        texts = QStringList{value.toString()}; // INI stores a one-element list as a plain string
    } else {
        if (problems)
            problems->append(wrongType(recentTemplatesKey, value, tr("a list of URLs")));
        return {};
    }
    QStringList out;
    for (const QString &text : std::as_const(texts)) {
        if (text.trimmed().isEmpty() || text.size() > RequestDraft::maxUrlLength) {
            if (problems)
                problems->append(tr("A damaged recent URL (\"%1\") was left out.").arg(text.left(200)));
            continue;
        }
        if (out.size() < maxRecentUrls && !out.contains(text))
            out.append(text);
    }
    return out;
}

QStringList Settings::recentUrlTemplates() const
{
    return readRecentUrlTemplates(nullptr);
}

void Settings::addRecentUrlTemplate(const QString &urlTemplate)
{
    const QString stored = RequestDraft::urlTemplateWithoutCredentials(urlTemplate.trimmed());
    if (stored.isEmpty() || stored.size() > RequestDraft::maxUrlLength)
        return;
    QStringList templates = recentUrlTemplates();
    if (!templates.isEmpty() && templates.constFirst() == stored)
        return; // already the newest: nothing to rebuild
    templates.removeAll(stored);
    templates.prepend(stored);
    if (templates.size() > maxRecentUrls)
        templates.resize(maxRecentUrls);
    m_settings->setValue(recentTemplatesKey, templates);
    Q_EMIT recentUrlsChanged();
}

ServerScenario Settings::readServerScenario(QStringList *problems) const
{
    if (!m_settings->contains(serverScenarioKey))
        return {};
    QString error;
    const auto object = readJsonObject(m_settings->value(serverScenarioKey), &error);
    if (object)
        return readFieldByField<ServerScenario>(
            *object, &ServerScenario::fromJson, {}, tr("server scenario"), problems);
    if (problems) {
        problems->append(
            tr("The saved server scenario could not be read (%1); the server answers by the URL instead.").arg(error));
    }
    return {};
}

ServerScenario Settings::serverScenario() const
{
    return readServerScenario(nullptr);
}

void Settings::setServerScenario(const ServerScenario &scenario)
{
    m_settings->setValue(serverScenarioKey, jsonText(scenario.toJson()));
}

// Field by field on top of the model's defaults: a field that is damaged, or that
// makes the parameters invalid, keeps its default and the others are kept.
std::optional<Core::HerdParameters> Settings::readSimulatorParameters(QStringList *problems) const
{
    if (!m_settings->contains(simulatorKey))
        return std::nullopt;
    QString error;
    const auto object = readJsonObject(m_settings->value(simulatorKey), &error);
    if (!object) {
        qCWarning(lcSettings).noquote() << "simulator settings could not be read:" << error;
        if (problems) {
            problems->append(
                tr("The saved herd simulator settings could not be read (%1); the defaults are used.").arg(error));
        }
        return std::nullopt;
    }
    const auto leaveOut = [&](const QString &field) {
        qCWarning(lcSettings).noquote() << "simulator field left out:" << field;
        if (problems) {
            problems->append(
                tr("A field of the saved herd simulator settings could not be used and has its default: %1.")
                    .arg(field));
        }
    };
    auto model = Core::herdModelFromName(object->value(QStringLiteral("model")).toString());
    if (!model) {
        if (object->contains(QStringLiteral("model")))
            leaveOut(QStringLiteral("model"));
        model = Core::HerdModel::OptimisticConcurrency;
    }
    Core::HerdParameters parameters = Core::HerdParameters::defaultsFor(*model);
    for (const auto &[key, apply] : herdFields()) {
        if (!object->contains(key))
            continue;
        Core::HerdParameters candidate = parameters;
        if (!apply(object->value(key), candidate) || !candidate.validate().isEmpty()) {
            leaveOut(key);
            continue;
        }
        parameters = candidate;
    }
    return parameters;
}

std::optional<Core::HerdParameters> Settings::simulatorParameters() const
{
    return readSimulatorParameters(nullptr);
}

void Settings::setSimulatorParameters(const Core::HerdParameters &parameters)
{
    if (!parameters.validate().isEmpty())
        return;
    m_settings->setValue(simulatorKey, jsonText(herdJson(parameters)));
}

QString Settings::conformancePolicyChoice() const
{
    const QVariant value = m_settings->value(conformanceChoiceKey);
    return value.typeId() == QMetaType::QString ? value.toString() : QString();
}

void Settings::setConformancePolicyChoice(const QString &choice)
{
    m_settings->setValue(conformanceChoiceKey, choice);
}

QString Settings::exportDirectory() const
{
    const QVariant value = m_settings->value(exportDirectoryKey);
    return value.typeId() == QMetaType::QString ? value.toString() : QString();
}

void Settings::setExportDirectory(const QString &directory)
{
    m_settings->setValue(exportDirectoryKey, directory);
}

} // namespace RetryLab::Ui
