#include "ui/session/settings/settings.h"

#include "core/collections/savedtransport.h"
#include "core/herd/herdparametersjson.h"
#include "core/policy/policyjson.h"
#include "core/policy/presets.h"
#include "core/util/jsonreader.h"

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

// One job: every setting's key, its default, and how it is read back when missing or
// damaged. The readers share one way to salvage a damaged value and to report it in
// problems(), so each setting is read, checked and written in this one file.

namespace {
Q_LOGGING_CATEGORY(lcSettings, "retrylab.ui.settings")
} // namespace

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
const QString proxiesKey = QStringLiteral("proxy/proxies");
const QString endpointPoliciesKey = QStringLiteral("policy/endpoints");
const QString exportDirectoryKey = QStringLiteral("export/directory");
const QString simulatorKey = QStringLiteral("simulator/parameters");
const QString conformanceChoiceKey = QStringLiteral("conformance/policy");
const QString defaultTransportKey = QStringLiteral("request/defaultTransport");
const QString serverHttpsKey = QStringLiteral("server/https");
const QString serverHttpsPortKey = QStringLiteral("server/httpsPort");
const QString serverTlsCertificateKey = QStringLiteral("server/tlsCertificate");
const QString serverTlsKeyKey = QStringLiteral("server/tlsKey");
const QString monitorDatabaseKey = QStringLiteral("monitor/database");
const QString closeWithMonitorsKey = QStringLiteral("monitor/closeWithMonitors");
const QString acknowledgedIncidentsKey = QStringLiteral("monitor/acknowledgedIncidents");
// Incidents acknowledged, newest kept: older ones have left the raw history anyway.
constexpr qsizetype maxAcknowledgedIncidents = 5000;

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

// What a read of one setting gives: the value (the default where the file had
// something unusable) and a sentence for each thing that was replaced.
template<typename T>
struct Loaded
{
    T value{};
    QStringList problems;
};

// A JSON object stored as text.
Core::Result<QJsonObject> readJsonObject(const QVariant &value)
{
    using R = Core::Result<QJsonObject>;
    if (value.typeId() != QMetaType::QString)
        return R::failure(Settings::tr("it holds %1 instead of JSON text").arg(typeName(value)));
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(value.toString().toUtf8(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        return R::failure(Settings::tr("it is not valid JSON (%1 at offset %2)")
                              .arg(parseError.errorString())
                              .arg(parseError.offset));
    }
    if (!document.isObject())
        return R::failure(Settings::tr("it is not a JSON object"));
    return document.object();
}

// "circuitBreaker.openMs (expected a number, got a string)"
QString describeLeftOut(const Core::Error &error)
{
    return error.path + QStringLiteral(" (") + error.message + QLatin1Char(')');
}

// Reads a saved object with its strict reader; when the whole is refused, the
// fields at fault are left out (each keeps its default) and the rest is kept.
template<typename T, typename Parse>
Loaded<T> readSalvaging(const QJsonObject &object, Parse parse, const QStringList &listsByElement, const QString &what)
{
    Core::Salvaged<T> salvaged = Core::JsonSalvage::salvage<T>(object, parse, listsByElement);
    Loaded<T> loaded{std::move(salvaged.value), {}};
    if (salvaged.unreadable) {
        const QString why = salvaged.unreadable->text();
        qCWarning(lcSettings).noquote() << what << "could not be read:" << why;
        loaded.problems.append(
            Settings::tr("The saved %1 could not be read (%2); the default is used.").arg(what, why));
        return loaded;
    }
    for (const Core::Error &field : std::as_const(salvaged.leftOut)) {
        qCWarning(lcSettings).noquote() << what << "field left out:" << describeLeftOut(field);
        loaded.problems.append(Settings::tr("A field of the saved %1 could not be read and has its default: %2.")
                                   .arg(what, describeLeftOut(field)));
    }
    return loaded;
}

QString jsonText(const QJsonObject &object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

// A list of texts; INI files store a one-element list as a plain string.
std::optional<QStringList> readTexts(const QVariant &value)
{
    if (value.typeId() == QMetaType::QStringList)
        return value.toStringList();
    if (value.typeId() == QMetaType::QString)
        return QStringList{value.toString()};
    return std::nullopt;
}

// One entry of the user's presets: what the file holds (written back unchanged,
// so that an entry this version cannot read is not lost), and the policy when it reads.
struct SavedPreset
{
    QVariant raw;
    std::optional<Core::BackoffPolicy> policy;
};

Loaded<Core::BackoffPolicy> readCurrentPolicy(const QSettings &settings)
{
    if (!settings.contains(currentPolicyKey))
        return {};
    const QVariant value = settings.value(currentPolicyKey);
    if (value.typeId() != QMetaType::QString)
        return {{}, {wrongType(currentPolicyKey, value, Settings::tr("a policy in JSON"))}};
    const auto object = readJsonObject(value);
    if (!object) {
        return {{},
            {Settings::tr("The saved policy could not be used (%1); the default policy is used instead.")
                    .arg(object.error())}};
    }
    return readSalvaging<Core::BackoffPolicy>(*object, &Core::PolicyJson::fromJsonObject, {}, Settings::tr("policy"));
}

// Entries are found through the group's children rather than the array's
// "size" key, so that a damaged size cannot hide (and later erase) presets.
// Entries that cannot be read are carried along unchanged when writing.
Loaded<QList<SavedPreset>> readUserPresets(QSettings &settings)
{
    settings.beginGroup(userPresetsKey);
    QList<std::pair<int, QString>> groups;
    for (const QString &group : settings.childGroups()) {
        bool ok = false;
        const int index = group.toInt(&ok);
        if (ok)
            groups.append({index, group});
    }
    std::sort(groups.begin(), groups.end());

    Loaded<QList<SavedPreset>> loaded;
    for (const auto &[index, group] : groups) {
        SavedPreset preset;
        preset.raw = settings.value(group + QLatin1Char('/') + presetJsonKey);
        if (preset.raw.typeId() != QMetaType::QString) {
            loaded.problems.append(
                wrongType(userPresetsKey + QLatin1Char('/') + group, preset.raw, Settings::tr("a policy in JSON")));
        } else if (auto result = Core::PolicyJson::fromJson(preset.raw.toString().toUtf8())) {
            preset.policy = std::move(result).value();
        } else {
            loaded.problems.append(
                Settings::tr("Your saved preset number %1 could not be read (%2); it is left out of the list.")
                    .arg(index)
                    .arg(result.error()));
        }
        loaded.value.append(preset);
    }
    settings.endGroup();
    return loaded;
}

Loaded<QByteArray> readBytes(const QSettings &settings, const QString &key)
{
    if (!settings.contains(key))
        return {};
    const QVariant value = settings.value(key);
    if (value.typeId() != QMetaType::QByteArray)
        return {{}, {wrongType(key, value, Settings::tr("binary data"))}};
    return {value.toByteArray(), {}};
}

Loaded<QList<QUrl>> readRecentUrls(const QSettings &settings)
{
    if (!settings.contains(recentUrlsKey))
        return {};
    const QVariant value = settings.value(recentUrlsKey);
    const auto texts = readTexts(value);
    if (!texts) {
        if (!value.isValid())
            return {};
        return {{}, {wrongType(recentUrlsKey, value, Settings::tr("a list of URLs"))}};
    }
    Loaded<QList<QUrl>> loaded;
    for (const QString &text : *texts) {
        const QUrl url(text, QUrl::StrictMode);
        if (text.isEmpty() || !url.isValid()) {
            loaded.problems.append(Settings::tr("A damaged recent URL (\"%1\") was left out.").arg(text.left(200)));
            continue;
        }
        if (loaded.value.size() < Settings::maxRecentUrls)
            loaded.value.append(url);
    }
    return loaded;
}

Loaded<Core::TransportOptions> readDefaultTransport(const QSettings &settings)
{
    if (!settings.contains(defaultTransportKey))
        return {};
    const auto object = readJsonObject(settings.value(defaultTransportKey));
    const auto options
        = object ? Core::SavedTransport::fromJson(*object) : Core::Result<Core::TransportOptions>(object.errorDetail());
    if (!options) {
        return {{},
            {Settings::tr("The default connection settings could not be read (%1); the defaults are used.")
                    .arg(options.error())}};
    }
    return {*options, {}};
}

Loaded<Core::RequestDraft> readRequestDraft(const QSettings &settings)
{
    if (!settings.contains(requestDraftKey))
        return {};
    const auto object = readJsonObject(settings.value(requestDraftKey));
    if (!object) {
        return {{},
            {Settings::tr("The saved request could not be read (%1); the default request is used.")
                    .arg(object.error())}};
    }
    return readSalvaging<Core::RequestDraft>(
        *object, &Core::RequestDraft::fromJson, {QStringLiteral("headers")}, Settings::tr("request"));
}

Loaded<QStringList> readRecentUrlTemplates(const QSettings &settings)
{
    if (!settings.contains(recentTemplatesKey))
        return {};
    const QVariant value = settings.value(recentTemplatesKey);
    const auto texts = readTexts(value);
    if (!texts)
        return {{}, {wrongType(recentTemplatesKey, value, Settings::tr("a list of URLs"))}};
    Loaded<QStringList> loaded;
    for (const QString &text : *texts) {
        if (text.trimmed().isEmpty() || text.size() > Core::RequestDraft::maxUrlLength) {
            loaded.problems.append(Settings::tr("A damaged recent URL (\"%1\") was left out.").arg(text.left(200)));
            continue;
        }
        if (loaded.value.size() < Settings::maxRecentUrls && !loaded.value.contains(text))
            loaded.value.append(text);
    }
    return loaded;
}

Loaded<ServerScenario> readServerScenario(const QSettings &settings)
{
    if (!settings.contains(serverScenarioKey))
        return {};
    const auto object = readJsonObject(settings.value(serverScenarioKey));
    if (!object) {
        return {{},
            {Settings::tr("The saved server scenario could not be read (%1); the server answers by the URL instead.")
                    .arg(object.error())}};
    }
    return readSalvaging<ServerScenario>(*object, &ServerScenario::fromJson, {}, Settings::tr("server scenario"));
}

// A list of objects stored as JSON text, read element by element, so that a
// damaged element is left out and named by its number while the others are
// kept. `unreadable` takes why the text is not a list as %1; `leftOut` takes
// the element's number and what was wrong with it.
template<typename T>
Loaded<QList<T>> readObjectList(const QSettings &settings, const QString &key, const QString &unreadable,
    const QString &leftOut, Core::Result<T> (*read)(const QJsonObject &))
{
    Loaded<QList<T>> loaded;
    if (!settings.contains(key))
        return loaded;
    const QByteArray text = settings.value(key).toString().toUtf8();
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError) {
        loaded.problems.append(unreadable.arg(Core::jsonSyntaxError(text, error).text()));
        return loaded;
    }
    if (!document.isArray()) {
        loaded.problems.append(unreadable.arg(Settings::tr("it is not a JSON list")));
        return loaded;
    }
    const QJsonArray array = document.array();
    for (qsizetype i = 0; i < array.size(); ++i) {
        // A reader of its own for each element: the errors of one do not mark the next.
        Core::JsonReader elements(array);
        const auto element = elements.object(i, Core::Presence::Required);
        const Core::Result<T> value
            = element ? read(element->object()) : Core::Result<T>::failure(elements.firstError().message);
        if (value)
            loaded.value.append(*value);
        else
            loaded.problems.append(leftOut.arg(i + 1).arg(value.error()));
    }
    return loaded;
}

// One entry of setEndpointPolicies(); an entry without a policy has the default one.
Core::Result<Core::EndpointPolicy> endpointPolicyFromJson(const QJsonObject &object)
{
    Core::JsonReader reader(object);
    Core::EndpointPolicy endpoint;
    endpoint.host = reader.string(QStringLiteral("host")).value_or(QString());
    endpoint.path = reader.string(QStringLiteral("path")).value_or(QString());
    endpoint.origin = reader.string(QStringLiteral("origin")).value_or(QString());
    QJsonObject policyObject;
    if (const auto policy = reader.object(QStringLiteral("policy")))
        policyObject = policy->object();
    if (reader.failed())
        return reader.result(endpoint);
    const auto policy = Core::PolicyJson::fromJsonObject(policyObject);
    if (!policy)
        reader.fail(QStringLiteral("policy"), policy.errorDetail());
    else
        endpoint.policy = *policy;
    return reader.result(endpoint);
}

Loaded<QList<Core::EndpointPolicy>> readEndpointPolicies(const QSettings &settings)
{
    return readObjectList<Core::EndpointPolicy>(settings, endpointPoliciesKey,
        Settings::tr("The saved endpoint policies could not be read (%1)."),
        Settings::tr("Saved endpoint policy %1 was left out: %2"), &endpointPolicyFromJson);
}

Loaded<QList<ProxySettings>> readProxies(const QSettings &settings)
{
    return readObjectList<ProxySettings>(settings, proxiesKey,
        Settings::tr("The saved fault proxies could not be read (%1)."),
        Settings::tr("Saved fault proxy %1 was left out: %2"), &ProxySettings::fromJson);
}

// Field by field on top of the model's defaults (HerdParametersJson): a field that
// is damaged, or that makes the parameters invalid, keeps its default and the
// others are kept.
Loaded<std::optional<Core::HerdParameters>> readSimulatorParameters(const QSettings &settings)
{
    if (!settings.contains(simulatorKey))
        return {};
    const auto object = readJsonObject(settings.value(simulatorKey));
    if (!object) {
        qCWarning(lcSettings).noquote() << "simulator settings could not be read:" << object.error();
        return {std::nullopt,
            {Settings::tr("The saved herd simulator settings could not be read (%1); the defaults are used.")
                    .arg(object.error())}};
    }
    const auto salvaged = Core::HerdParametersJson::fromJsonObject(*object);
    Loaded<std::optional<Core::HerdParameters>> loaded{salvaged.value, {}};
    for (const Core::Error &field : salvaged.leftOut) {
        qCWarning(lcSettings).noquote() << "simulator field left out:" << describeLeftOut(field);
        loaded.problems.append(
            Settings::tr("A field of the saved herd simulator settings could not be used and has its default: %1.")
                .arg(describeLeftOut(field)));
    }
    return loaded;
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
    problems += readCurrentPolicy(*m_settings).problems;
    problems += readUserPresets(*m_settings).problems;
    problems += readBytes(*m_settings, geometryKey).problems;
    problems += readBytes(*m_settings, stateKey).problems;
    problems += readRecentUrls(*m_settings).problems;
    problems += readRequestDraft(*m_settings).problems;
    problems += readRecentUrlTemplates(*m_settings).problems;
    problems += readServerScenario(*m_settings).problems;
    problems += readProxies(*m_settings).problems;
    problems += readEndpointPolicies(*m_settings).problems;
    problems += readSimulatorParameters(*m_settings).problems;
    problems += readDefaultTransport(*m_settings).problems;
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

Core::BackoffPolicy Settings::currentPolicy() const
{
    return readCurrentPolicy(*m_settings).value;
}

bool Settings::hasCurrentPolicy() const
{
    return m_settings->contains(currentPolicyKey);
}

void Settings::setCurrentPolicy(const Core::BackoffPolicy &policy)
{
    if (!Core::isUsable(policy))
        return;
    m_settings->setValue(currentPolicyKey, QString::fromUtf8(Core::PolicyJson::toJson(policy)));
}

void Settings::writeUserPresets(const QVariantList &raw)
{
    m_settings->remove(userPresetsKey);
    m_settings->beginWriteArray(userPresetsKey, static_cast<int>(raw.size()));
    for (int i = 0; i < raw.size(); ++i) {
        m_settings->setArrayIndex(i);
        m_settings->setValue(presetJsonKey, raw.at(i));
    }
    m_settings->endArray();
    Q_EMIT userPresetsChanged();
}

QList<Core::BackoffPolicy> Settings::userPresets() const
{
    QList<Core::BackoffPolicy> policies;
    for (const SavedPreset &preset : readUserPresets(*m_settings).value) {
        if (preset.policy)
            policies.append(*preset.policy);
    }
    return policies;
}

std::optional<Core::BackoffPolicy> Settings::userPreset(const QString &name) const
{
    for (const SavedPreset &preset : readUserPresets(*m_settings).value) {
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
    const QString raw = QString::fromUtf8(Core::PolicyJson::toJson(named));

    QVariantList presets;
    bool replaced = false;
    for (const SavedPreset &preset : readUserPresets(*m_settings).value) {
        if (!replaced && preset.policy && sameName(preset.policy->name, name)) {
            presets.append(raw);
            replaced = true;
        } else {
            presets.append(preset.raw);
        }
    }
    if (!replaced)
        presets.append(raw);
    writeUserPresets(presets);
    return sync();
}

bool Settings::removeUserPreset(const QString &name)
{
    const QList<SavedPreset> presets = readUserPresets(*m_settings).value;
    QVariantList kept;
    for (const SavedPreset &preset : presets) {
        if (!preset.policy || !sameName(preset.policy->name, name))
            kept.append(preset.raw);
    }
    if (kept.size() == presets.size())
        return false;
    writeUserPresets(kept);
    return true;
}

QByteArray Settings::windowGeometry() const
{
    return readBytes(*m_settings, geometryKey).value;
}

void Settings::setWindowGeometry(const QByteArray &geometry)
{
    m_settings->setValue(geometryKey, geometry);
}

QByteArray Settings::windowState() const
{
    return readBytes(*m_settings, stateKey).value;
}

void Settings::setWindowState(const QByteArray &state)
{
    m_settings->setValue(stateKey, state);
}

QList<QUrl> Settings::recentUrls() const
{
    return readRecentUrls(*m_settings).value;
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

Core::RequestDraft Settings::requestDraft() const
{
    // A new request (none saved yet) starts from the default connection settings.
    if (!m_settings->contains(requestDraftKey)) {
        Core::RequestDraft draft;
        draft.transport = defaultTransport();
        return draft;
    }
    return readRequestDraft(*m_settings).value;
}

void Settings::setRequestDraft(const Core::RequestDraft &draft)
{
    m_settings->setValue(requestDraftKey, jsonText(draft.toJson(false)));
}

QStringList Settings::recentUrlTemplates() const
{
    return readRecentUrlTemplates(*m_settings).value;
}

void Settings::addRecentUrlTemplate(const QString &urlTemplate)
{
    const QString stored = Core::RequestDraft::urlTemplateWithoutCredentials(urlTemplate.trimmed());
    if (stored.isEmpty() || stored.size() > Core::RequestDraft::maxUrlLength)
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

ServerScenario Settings::serverScenario() const
{
    return readServerScenario(*m_settings).value;
}

void Settings::setServerScenario(const ServerScenario &scenario)
{
    m_settings->setValue(serverScenarioKey, jsonText(scenario.toJson()));
}

QList<Core::EndpointPolicy> Settings::endpointPolicies() const
{
    return readEndpointPolicies(*m_settings).value;
}

void Settings::setEndpointPolicies(const QList<Core::EndpointPolicy> &policies)
{
    QJsonArray array;
    for (const Core::EndpointPolicy &e : policies) {
        array.append(QJsonObject{{QStringLiteral("host"), e.host}, {QStringLiteral("path"), e.path},
            {QStringLiteral("origin"), e.origin},
            {QStringLiteral("policy"), Core::PolicyJson::toJsonObject(e.policy)}});
    }
    m_settings->setValue(endpointPoliciesKey, QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Compact)));
}

QList<ProxySettings> Settings::proxies() const
{
    return readProxies(*m_settings).value;
}

void Settings::setProxies(const QList<ProxySettings> &proxies)
{
    QJsonArray array;
    for (const ProxySettings &p : proxies)
        array.append(p.toJson());
    m_settings->setValue(proxiesKey, QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Compact)));
}

std::optional<Core::HerdParameters> Settings::simulatorParameters() const
{
    return readSimulatorParameters(*m_settings).value;
}

void Settings::setSimulatorParameters(const Core::HerdParameters &parameters)
{
    if (!parameters.errors().isEmpty())
        return;
    m_settings->setValue(simulatorKey, jsonText(Core::HerdParametersJson::toJsonObject(parameters)));
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

Core::TransportOptions Settings::defaultTransport() const
{
    return readDefaultTransport(*m_settings).value;
}

void Settings::setDefaultTransport(const Core::TransportOptions &options)
{
    m_settings->setValue(defaultTransportKey, jsonText(Core::SavedTransport::toJson(options)));
}

std::optional<quint16> Settings::serverHttpsPort() const
{
    const QVariant on = m_settings->value(serverHttpsKey);
    if (on.isValid() && !on.toBool())
        return std::nullopt;
    bool ok = false;
    const int port = m_settings->value(serverHttpsPortKey, 0).toInt(&ok);
    return (ok && port >= 0 && port <= 65535) ? static_cast<quint16>(port) : quint16(0);
}

void Settings::setServerHttpsPort(std::optional<quint16> port)
{
    m_settings->setValue(serverHttpsKey, port.has_value());
    if (port)
        m_settings->setValue(serverHttpsPortKey, int(*port));
}

QString Settings::serverTlsCertificateFile() const
{
    const QVariant value = m_settings->value(serverTlsCertificateKey);
    return value.typeId() == QMetaType::QString ? value.toString() : QString();
}

QString Settings::serverTlsKeyFile() const
{
    const QVariant value = m_settings->value(serverTlsKeyKey);
    return value.typeId() == QMetaType::QString ? value.toString() : QString();
}

void Settings::setServerTlsFiles(const QString &certificateFile, const QString &keyFile)
{
    m_settings->setValue(serverTlsCertificateKey, certificateFile);
    m_settings->setValue(serverTlsKeyKey, keyFile);
}

QString Settings::monitorDatabase() const
{
    const QVariant value = m_settings->value(monitorDatabaseKey);
    return value.typeId() == QMetaType::QString ? value.toString().trimmed() : QString();
}

void Settings::setMonitorDatabase(const QString &database)
{
    m_settings->setValue(monitorDatabaseKey, database.trimmed());
}

Settings::CloseWithMonitors Settings::closeWithMonitors() const
{
    const QString value = m_settings->value(closeWithMonitorsKey).toString();
    if (value == QLatin1String("keep"))
        return CloseWithMonitors::KeepMonitoring;
    if (value == QLatin1String("quit"))
        return CloseWithMonitors::Quit;
    return CloseWithMonitors::Ask;
}

void Settings::setCloseWithMonitors(CloseWithMonitors choice)
{
    switch (choice) {
    case CloseWithMonitors::Ask:
        m_settings->remove(closeWithMonitorsKey);
        return;
    case CloseWithMonitors::KeepMonitoring:
        m_settings->setValue(closeWithMonitorsKey, QStringLiteral("keep"));
        return;
    case CloseWithMonitors::Quit:
        m_settings->setValue(closeWithMonitorsKey, QStringLiteral("quit"));
        return;
    }
}

QStringList Settings::acknowledgedIncidents() const
{
    const QVariant value = m_settings->value(acknowledgedIncidentsKey);
    return value.typeId() == QMetaType::QStringList || value.typeId() == QMetaType::QString ? value.toStringList()
                                                                                            : QStringList();
}

void Settings::setAcknowledgedIncidents(const QStringList &keys)
{
    m_settings->setValue(
        acknowledgedIncidentsKey, keys.mid(std::max<qsizetype>(0, keys.size() - maxAcknowledgedIncidents)));
}

} // namespace RetryLab::Ui
