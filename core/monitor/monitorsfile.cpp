#include "core/monitor/monitorsfile.h"

#include "core/alerts/alerttargetjson.h"
#include "core/collections/savedrequest.h"
#include "core/monitor/savedrequestmonitor.h"
#include "core/policy/policyreference.h"
#include "core/scenario/scenario.h"
#include "core/scenario/scenarioreader.h"
#include "core/util/boundedfile.h"
#include "core/util/coretr.h"
#include "core/util/jsonreader.h"
#include "core/util/variablesubstitution.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QRegularExpression>

#include <cmath>

namespace RetryLab::Core {

namespace {

Q_LOGGING_CATEGORY(lcMonitorsFile, "retrylab.core.monitorsfile")

const QStringList &monitorKeys()
{
    static const QStringList keys{QStringLiteral("intervalMs"), QStringLiteral("downIntervalMs"),
        QStringLiteral("policy"), QStringLiteral("timeoutMs"), QStringLiteral("conditions"),
        QStringLiteral("downAfter"), QStringLiteral("upAfter"), QStringLiteral("maintenance"),
        QStringLiteral("objective"), QStringLiteral("alerts"), QStringLiteral("paused")};
    return keys;
}

// {{name}} in the URL, header values, body and fallbacks, from the chosen environment.
std::optional<Error> substituteVariables(
    QJsonObject &entry, const QHash<QString, QString> &values, const QString &environment)
{
    // `text` with its variables filled in, or the error at `path` for the first one without a value.
    std::optional<Error> problem;
    const auto fill = [&](const QString &text, const QString &path) {
        QStringList unresolved;
        QString out = VariableSubstitution::substitute(text, values, &unresolved);
        if (!unresolved.isEmpty() && !problem) {
            problem = Error{path,
                environment.isEmpty()
                    ? Tr::tr("{{%1}} is not defined: the file chooses no environment").arg(unresolved.constFirst())
                    : Tr::tr("{{%1}} is not defined in the environment \"%2\"")
                          .arg(unresolved.constFirst(), environment)};
        }
        return out;
    };
    for (const QString &key : {QStringLiteral("url"), QStringLiteral("body")}) {
        if (entry.value(key).isString())
            entry.insert(key, fill(entry.value(key).toString(), key));
    }
    if (entry.value(QStringLiteral("headers")).isObject()) {
        QJsonObject headers = entry.value(QStringLiteral("headers")).toObject();
        for (auto it = headers.begin(); it != headers.end(); ++it) {
            if (it.value().isString())
                it.value() = fill(it.value().toString(), QStringLiteral("headers.") + it.key());
        }
        entry.insert(QStringLiteral("headers"), headers);
    }
    if (entry.value(QStringLiteral("fallbacks")).isArray()) {
        QJsonArray fallbacks = entry.value(QStringLiteral("fallbacks")).toArray();
        for (qsizetype i = 0; i < fallbacks.size(); ++i) {
            if (fallbacks[i].isString())
                fallbacks[i] = fill(fallbacks[i].toString(), QStringLiteral("fallbacks[%1]").arg(i));
        }
        entry.insert(QStringLiteral("fallbacks"), fallbacks);
    }
    return problem;
}

std::optional<QTime> readClock(const QString &text)
{
    static const QRegularExpression form(QStringLiteral("^([01]\\d|2[0-3]):([0-5]\\d)$"));
    const auto m = form.match(text.trimmed());
    if (!m.hasMatch())
        return std::nullopt;
    return QTime(m.captured(1).toInt(), m.captured(2).toInt());
}

std::optional<qint64> readInstant(JsonReader &o, const QString &key)
{
    const auto text = o.string(key, Presence::Required);
    if (!text)
        return std::nullopt;
    const QDateTime at = QDateTime::fromString(*text, Qt::ISODateWithMs);
    if (!at.isValid() || at.timeSpec() == Qt::LocalTime) {
        o.fail(key, Tr::tr("\"%1\" is not a date and time with its zone (2026-11-29T02:00:00Z)").arg(*text));
        return std::nullopt;
    }
    return at.toMSecsSinceEpoch();
}

// [{"from": ISO, "to": ISO}, {"daily": "02:00-02:30"}]
bool readMaintenance(JsonReader &r, Monitor &monitor)
{
    auto list = r.array(QStringLiteral("maintenance"));
    if (!list)
        return !r.failed();
    for (qsizetype i = 0; i < list->size(); ++i) {
        auto o = list->object(i, Presence::Required);
        if (!o)
            return false;
        o->rejectUnknown({QStringLiteral("from"), QStringLiteral("to"), QStringLiteral("daily")});
        if (o->failed())
            return false;
        MaintenanceWindow window;
        if (o->contains(QStringLiteral("daily"))) {
            if (o->contains(QStringLiteral("from")) || o->contains(QStringLiteral("to"))) {
                o->failHere(Tr::tr("a window is either daily or from-to, not both"));
                return false;
            }
            const auto daily = o->string(QStringLiteral("daily"), Presence::Required);
            if (!daily)
                return false;
            const QStringList parts = daily->split(QLatin1Char('-'));
            const auto from = parts.size() == 2 ? readClock(parts[0]) : std::nullopt;
            const auto to = parts.size() == 2 ? readClock(parts[1]) : std::nullopt;
            if (!from || !to || *from == *to) {
                o->fail(QStringLiteral("daily"),
                    Tr::tr("\"%1\" is not a daily window of UTC times (\"02:00-02:30\")").arg(*daily));
                return false;
            }
            window.dailyFrom = from;
            window.dailyTo = to;
        } else {
            window.fromMs = readInstant(*o, QStringLiteral("from"));
            if (!window.fromMs)
                return false;
            window.toMs = readInstant(*o, QStringLiteral("to"));
            if (!window.toMs)
                return false;
            if (*window.toMs <= *window.fromMs) {
                o->fail(QStringLiteral("to"), Tr::tr("the window ends before it starts"));
                return false;
            }
        }
        monitor.maintenance.append(window);
    }
    return true;
}

// {"name": ..., "collection": "shop.json", "request": "Orders/List", "environments": "environments.json",
//  "environment": "Staging"}: a request saved in a collection, as `retrylab request --collection` sends it.
bool readCollectionRequest(JsonReader &o, const QDir &folder, bool allowServer, ScenarioRequest &request,
    std::optional<PolicyReference::Read> &savedPolicy)
{
    const QStringList own{QStringLiteral("name"), QStringLiteral("collection"), QStringLiteral("request"),
        QStringLiteral("environments"), QStringLiteral("environment")};
    o.rejectUnknown(own + monitorKeys());
    const auto name = o.string(QStringLiteral("name"), Presence::Required);
    const auto collection = o.string(QStringLiteral("collection"), Presence::Required);
    const auto saved = o.string(QStringLiteral("request"), Presence::Required);
    const auto environments = o.string(QStringLiteral("environments"));
    const auto environment = o.string(QStringLiteral("environment"));
    if (o.failed())
        return false;
    if (name->trimmed().isEmpty() || name->size() > 100) {
        o.fail(QStringLiteral("name"), Tr::tr("a name has 1 to 100 characters"));
        return false;
    }
    SavedRequest::Source source;
    source.collectionFile = QDir::cleanPath(folder.filePath(*collection));
    source.request = *saved;
    if (environments)
        source.environmentFile = QDir::cleanPath(folder.filePath(*environments));
    source.environmentName = environment.value_or(QString());
    source.names.collection = o.pathOf(QStringLiteral("collection"));
    source.names.request = o.pathOf(QStringLiteral("request"));
    source.names.environmentFile = o.pathOf(QStringLiteral("environments"));
    source.names.environmentName = o.pathOf(QStringLiteral("environment"));
    const auto loaded = SavedRequest::load(source);
    if (!loaded) {
        o.fail(QStringLiteral("collection"), loaded.error());
        return false;
    }
    const bool keepSavedPolicy = !o.contains(QStringLiteral("policy"));
    const auto made = monitorFromSavedRequest(*loaded, *name, keepSavedPolicy, allowServer);
    if (!made) {
        o.fail(QStringLiteral("request"), made.error());
        return false;
    }
    request.name = made->name;
    request.spec = made->request;
    request.urlTemplate = made->urlTemplate;
    // The policy saved with the request, when the monitor names none.
    if (keepSavedPolicy)
        savedPolicy = PolicyReference::Read{made->policy, made->policyOrigin};
    return true;
}

bool readMonitorPolicy(JsonReader &o, Monitor &monitor, const std::optional<PolicyReference::Read> &savedPolicy)
{
    const QString key = QStringLiteral("policy");
    if (savedPolicy && !o.contains(key)) {
        monitor.policy = savedPolicy->policy;
        monitor.policyOrigin = savedPolicy->origin;
        return true;
    }
    if (o.value(key).isString() && o.value(key).toString() == QLatin1String("none")) {
        monitor.policy = singleAttemptPolicy();
        monitor.policyOrigin = QStringLiteral("none");
        return true;
    }
    if (!o.contains(key)) {
        o.fail(key, Tr::tr("missing; name a preset, give a policy object, or \"none\" for one attempt per check"));
        return false;
    }
    auto read = PolicyReference::read(o, key);
    if (!read)
        return false;
    monitor.policy = std::move(read->policy);
    monitor.policyOrigin = std::move(read->origin);
    if (const QString problem = firstPolicyError(monitor.policy); !problem.isEmpty()) {
        o.fail(key, problem);
        return false;
    }
    return true;
}

Result<Monitor> readMonitor(JsonReader &monitors, qsizetype index, const MonitorsFile &file,
    const QHash<QString, QString> &values, const QDir &folder, const MonitorsFileReader::ReadOptions &options)
{
    const QString at = monitors.pathOf(index);
    const QJsonValue value = monitors.value(index);
    if (!value.isObject())
        return Error{at, Tr::tr("expected an object, got %1").arg(JsonReader::describe(value))};
    QJsonObject entry = value.toObject();
    if (const auto missing = substituteVariables(entry, values, file.environment))
        return missing->under(at);
    // The substituted copy is read in place of the original, under the original's path.
    JsonReader o(entry, at);
    const auto refuse = [&o]() -> Result<Monitor> { return o.firstError(); };
    for (const QString &scenarioOnly : {QStringLiteral("count"), QStringLiteral("concurrency"),
             QStringLiteral("script"), QStringLiteral("increment")}) {
        if (o.contains(scenarioOnly)) {
            o.fail(scenarioOnly,
                Tr::tr("a monitor sends one request per check; \"%1\" belongs to scenarios").arg(scenarioOnly));
            return refuse();
        }
    }
    ScenarioRequest request;
    std::optional<PolicyReference::Read> savedPolicy;
    if (entry.contains(QStringLiteral("collection"))) {
        if (!readCollectionRequest(o, folder, options.allowServer, request, savedPolicy))
            return refuse();
    } else if (!ScenarioReader::readRequestEntry(o, request, monitorKeys())) {
        return refuse();
    }
    const QString server = Scenario::serverPlaceholder();
    if (!options.allowServer && request.urlTemplate.contains(server)) {
        o.fail(QStringLiteral("url"),
            Tr::tr("{server} is the window's embedded fault server, which `retrylab monitor` does not have; start "
                   "one with `retrylab serve` and use its URL"));
        return refuse();
    }
    // Only the URL is expanded at each check: {server} anywhere else would be sent as written.
    if (request.writeUrlTemplate.contains(server)) {
        o.fail(QStringLiteral("readModifyWrite"), Tr::tr("a monitor expands {server} in its url only"));
        return refuse();
    }
    const QByteArray serverBytes = server.toUtf8();
    if (request.spec.body.contains(serverBytes)) {
        o.fail(QStringLiteral("body"), Tr::tr("a monitor expands {server} in its url only"));
        return refuse();
    }
    for (const auto &header : std::as_const(request.spec.headers)) {
        if (header.second.contains(serverBytes)) {
            o.fail(QStringLiteral("headers"),
                Tr::tr("%1: a monitor expands {server} in its url only").arg(QString::fromLatin1(header.first)));
            return refuse();
        }
    }
    for (qsizetype i = 0; i < request.fallbackTemplates.size(); ++i) {
        if (request.fallbackTemplates.at(i).contains(server)) {
            o.fail(QStringLiteral("fallbacks"),
                Tr::tr("fallback %1: a monitor expands {server} in its url only").arg(i + 1));
            return refuse();
        }
    }
    Monitor monitor;
    monitor.name = request.name;
    for (const Monitor &earlier : file.monitors) {
        if (earlier.name == monitor.name) {
            o.fail(QStringLiteral("name"), Tr::tr("\"%1\" is already the name of another monitor").arg(monitor.name));
            return refuse();
        }
    }
    monitor.request = request.spec;
    monitor.urlTemplate = request.urlTemplate;
    for (const QString &fallback : request.fallbackTemplates)
        monitor.request.fallbackUrls.append(QUrl(fallback));

    monitor.intervalMs = o.number(QStringLiteral("intervalMs"), MonitorsFileReader::minIntervalMs,
                              MonitorsFileReader::maxIntervalMs, Presence::Required)
                             .value_or(0.0);
    if (o.failed())
        return refuse();
    monitor.downIntervalMs = o.number(
        QStringLiteral("downIntervalMs"), MonitorsFileReader::minIntervalMs, MonitorsFileReader::maxIntervalMs);
    if (!readMonitorPolicy(o, monitor, savedPolicy))
        return refuse();
    monitor.timeoutMs = o.number(QStringLiteral("timeoutMs"), 1.0, PolicyLimits::maxDeadlineMs)
                            .value_or(std::min(30'000.0, std::max(1'000.0, monitor.intervalMs)));
    if (const auto conditions = MonitorConditions::read(o, QStringLiteral("conditions")))
        monitor.conditions = *conditions;
    monitor.downAfter = static_cast<int>(o.integer(QStringLiteral("downAfter"), 1, 1000).value_or(1));
    monitor.upAfter = static_cast<int>(o.integer(QStringLiteral("upAfter"), 1, 1000).value_or(1));
    if (o.failed() || !readMaintenance(o, monitor))
        return refuse();
    if (o.contains(QStringLiteral("objective"))) {
        const auto objective = o.number(QStringLiteral("objective"), 0.0, 1.0);
        if (objective && (*objective <= 0.0 || *objective >= 1.0)) {
            o.fail(QStringLiteral("objective"),
                Tr::tr("an objective is a fraction between 0 and 1, such as 0.999 (got %1)").arg(*objective));
        }
        monitor.objective = objective;
    }
    if (const auto alerts = o.strings(QStringLiteral("alerts"))) {
        const QStringList alertNames = file.alertNames();
        for (const QString &name : *alerts) {
            if (!alertNames.contains(name)) {
                o.fail(QStringLiteral("alerts"),
                    alertNames.isEmpty()
                        ? Tr::tr("\"%1\" is not an alert target: the file's \"alerts\" names none").arg(name)
                        : Tr::tr("\"%1\" is not an alert target (known: %2)")
                              .arg(name, alertNames.join(QStringLiteral(", "))));
                break;
            }
        }
        monitor.alerts = *alerts;
    }
    monitor.paused = o.boolean(QStringLiteral("paused")).value_or(false);
    if (o.failed())
        return refuse();
    if (!monitor.conditions.isEmpty())
        monitor.request.responseCheck = std::make_shared<MonitorConditions>(monitor.conditions);
    return monitor;
}

} // namespace

QStringList MonitorsFile::alertNames() const
{
    QStringList names;
    for (const AlertTarget &target : alertTargets)
        names.append(target.name);
    return names;
}

const Monitor *MonitorsFile::find(const QString &name) const
{
    for (const Monitor &monitor : monitors) {
        if (monitor.name == name)
            return &monitor;
    }
    return nullptr;
}

namespace MonitorsFileReader {

Result<MonitorsFile> fromJson(
    const QByteArray &json, const QString &environment, const QString &folderPath, const ReadOptions &options)
{
    const QDir folder(folderPath.isEmpty() ? QDir::currentPath() : folderPath);
    using R = Result<MonitorsFile>;
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return jsonSyntaxError(json, parseError);
    if (!document.isObject())
        return R::failure(Tr::tr("a monitors file holds one JSON object"));

    JsonReader r(document.object());
    r.rejectUnknown({QStringLiteral("format"), QStringLiteral("version"), QStringLiteral("environments"),
        QStringLiteral("environment"), QStringLiteral("alerts"), QStringLiteral("monitors")});
    if (r.failed())
        return r.firstError();
    const auto format = r.string(QStringLiteral("format"), Presence::Required);
    if (r.failed())
        return r.firstError();
    if (*format != QLatin1String(formatName)) {
        return R::failure(QStringLiteral("format"),
            Tr::tr("\"%1\" is not a monitors file (expected \"%2\")").arg(*format, QLatin1String(formatName)));
    }
    const auto version = r.integer(QStringLiteral("version"), 1, std::numeric_limits<int>::max(), Presence::Required);
    if (r.failed())
        return r.firstError();
    if (*version > formatVersion) {
        return R::failure(QStringLiteral("version"),
            Tr::tr("written by a newer RetryLab (version %1; this one reads up to %2)")
                .arg(*version)
                .arg(formatVersion));
    }

    MonitorsFile file;
    if (auto environments = r.array(QStringLiteral("environments"))) {
        for (qsizetype i = 0; i < environments->size(); ++i) {
            const QJsonValue v = environments->value(i);
            if (!v.isObject()) {
                environments->fail(i, Tr::tr("expected an object, got %1").arg(JsonReader::describe(v)));
                return r.firstError();
            }
            auto read = Environment::fromJson(v.toObject());
            if (!read) {
                environments->fail(i, read.error());
                return r.firstError();
            }
            for (const Environment &earlier : std::as_const(file.environments)) {
                if (earlier.name == read->name) {
                    environments->fail(i, Tr::tr("\"%1\" is already the name of another environment").arg(read->name));
                    return r.firstError();
                }
            }
            file.environments.append(*read);
        }
    }
    if (r.failed())
        return r.firstError();
    file.environment
        = environment.isEmpty() ? r.string(QStringLiteral("environment")).value_or(QString()) : environment;
    if (r.failed())
        return r.firstError();
    QHash<QString, QString> values;
    if (!file.environment.isEmpty()) {
        const auto found = std::find_if(file.environments.cbegin(), file.environments.cend(),
            [&](const Environment &e) { return e.name == file.environment; });
        if (found == file.environments.cend()) {
            QStringList names;
            for (const Environment &e : std::as_const(file.environments))
                names.append(e.name);
            return R::failure(QStringLiteral("environment"),
                names.isEmpty() ? Tr::tr("\"%1\" is not an environment: the file has none").arg(file.environment)
                                : Tr::tr("\"%1\" is not an environment of the file (known: %2)")
                                      .arg(file.environment, names.join(QStringLiteral(", "))));
        }
        values = found->values();
    }

    if (auto alerts = r.array(QStringLiteral("alerts"))) {
        auto targets = AlertTargetJson::readList(*alerts);
        if (!targets)
            return r.firstError();
        file.alertTargets = std::move(*targets);
    }
    if (r.failed())
        return r.firstError();

    auto monitors = r.array(QStringLiteral("monitors"), Presence::Required);
    if (!monitors)
        return r.firstError();
    if (monitors->size() > maxMonitors) {
        return R::failure(QStringLiteral("monitors"),
            Tr::tr("%1 monitors; one file holds at most %2").arg(monitors->size()).arg(maxMonitors));
    }
    for (qsizetype i = 0; i < monitors->size(); ++i) {
        auto monitor = readMonitor(*monitors, i, file, values, folder, options);
        if (!monitor)
            return monitor.errorDetail();
        file.monitors.append(std::move(monitor).value());
    }
    if (file.monitors.isEmpty())
        return R::failure(QStringLiteral("monitors"), Tr::tr("empty; a monitors file has at least one monitor"));
    qCDebug(lcMonitorsFile) << "read" << file.monitors.size() << "monitors";
    return file;
}

Result<MonitorsFile> readFile(const QString &path, const QString &environment, const ReadOptions &options)
{
    const QString shown = QDir::toNativeSeparators(path);
    const auto bytes = BoundedFile::read(path, {maxFileBytes, Tr::tr("a monitors file")});
    if (!bytes)
        return bytes.errorDetail();
    auto file = fromJson(*bytes, environment, QFileInfo(path).absolutePath(), options);
    if (!file)
        return Result<MonitorsFile>::failure(Tr::tr("%1: %2").arg(shown, file.error()));
    // Certificate files named relative to the monitors file are found beside it.
    const QDir folder = QFileInfo(path).absoluteDir();
    for (Monitor &monitor : file.value().monitors) {
        TransportOptions &t = monitor.request.transport;
        for (QString *named : {&t.caBundlePath, &t.clientCertificatePath, &t.clientKeyPath}) {
            if (!named->isEmpty() && QFileInfo(*named).isRelative())
                *named = QDir::cleanPath(folder.filePath(*named));
        }
    }
    return file;
}

} // namespace MonitorsFileReader

} // namespace RetryLab::Core
