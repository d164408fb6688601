#include "core/runner/brunorun.h"

#include "core/import/importbody.h"
#include "core/runner/brufile.h"
#include "core/runner/brunoassert.h"
#include "core/util/boundedfile.h"
#include "core/util/coretr.h"
#include "core/util/jsonreader.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QLoggingCategory>
#include <QRegularExpression>

#include <algorithm>
#include <limits>

namespace RetryLab::Core::BrunoRun {

Q_LOGGING_CATEGORY(lcBrunoRun, "retrylab.core.brunorun")

namespace {

const QRegularExpression &placeholderPattern()
{
    static const QRegularExpression pattern(QStringLiteral(R"(\{\{[^{}]*\}\})"));
    return pattern;
}

// What collection.bru and the folders above a request give it.
struct Inherited
{
    QList<DraftHeader> headers;
    QList<QPair<QString, QString>> variables;
};

// An item and what orders it among its siblings.
struct Ordered
{
    int seq = std::numeric_limits<int>::max();
    QString name;
    RunItem item;
    /// Not run (a gRPC or WebSocket request); listed in `ignored`.
    bool skipped = false;
};

// A piece of a script with the line of the .bru where it begins; 0: generated,
// placed after what comes before it.
struct Segment
{
    int line = 0;
    QString text;
};

// The segments one after the other; where a segment begins further down the
// file than the script has reached, blank lines carry it to its own line, so
// that an error's line in the script is the file's line.
RunScript composedScript(const QList<Segment> &segments, const QString &place, int fallbackLine)
{
    RunScript script;
    script.place = place;
    QStringList lines;
    for (const Segment &segment : segments) {
        if (segment.text.isEmpty())
            continue;
        if (lines.isEmpty()) {
            script.firstLine = segment.line > 0 ? segment.line : fallbackLine;
        } else if (script.firstLine > 0 && segment.line > 0) {
            for (int next = script.firstLine + int(lines.size()); next < segment.line; ++next)
                lines.append(QString());
        }
        lines.append(segment.text.split(QLatin1Char('\n')));
    }
    script.source = lines.join(QLatin1Char('\n'));
    return script;
}

// application/x-www-form-urlencoded, but {{variables}} stay as written, so that
// the runner can fill them in when it sends the request.
QByteArray formEncodedKeepingVariables(const QString &text)
{
    const auto encoded = [](const QString &piece) {
        if (piece.isEmpty())
            return QByteArray();
        const QByteArray pair = ImportBody::urlEncoded({{piece, QString()}});
        return pair.left(pair.size() - 1); // "piece=" without its '='
    };
    QByteArray out;
    qsizetype from = 0;
    QRegularExpressionMatchIterator it = placeholderPattern().globalMatch(text);
    while (it.hasNext()) {
        const QRegularExpressionMatch match = it.next();
        out += encoded(text.mid(from, match.capturedStart() - from));
        out += match.captured().toUtf8();
        from = match.capturedEnd();
    }
    out += encoded(text.mid(from));
    return out;
}

bool hasHeader(const QList<DraftHeader> &headers, const QString &name)
{
    return std::any_of(headers.cbegin(), headers.cend(), [&](const DraftHeader &header) {
        return header.enabled && header.name.compare(name, Qt::CaseInsensitive) == 0;
    });
}

// `outer` then `own`; an enabled header of `own` replaces the outer ones of its name.
QList<DraftHeader> mergedHeaders(QList<DraftHeader> outer, const QList<DraftHeader> &own)
{
    for (const DraftHeader &header : own) {
        if (header.enabled) {
            outer.removeIf([&](const DraftHeader &existing) {
                return existing.name.compare(header.name, Qt::CaseInsensitive) == 0;
            });
        }
    }
    outer.append(own);
    return outer;
}

QList<DraftHeader> headersOf(const BruFile &file)
{
    QList<DraftHeader> headers;
    if (const BruFile::Block *block = file.block(QStringLiteral("headers"))) {
        for (const BruFile::Entry &entry : block->entries)
            headers.append({entry.key, entry.value, entry.enabled});
    }
    return headers;
}

QList<QPair<QString, QString>> preRequestVariables(const BruFile &file)
{
    QList<QPair<QString, QString>> variables;
    if (const BruFile::Block *block = file.block(QStringLiteral("vars:pre-request"))) {
        for (const BruFile::Entry &entry : block->entries) {
            if (entry.enabled)
                variables.append({entry.key, entry.value});
        }
    }
    return variables;
}

// ":id" path segments of the URL's path replaced by params:path values.
QString withPathParameters(QString url, const BruFile &file)
{
    const BruFile::Block *block = file.block(QStringLiteral("params:path"));
    if (!block)
        return url;
    const qsizetype queryAt = url.indexOf(QLatin1Char('?'));
    QString path = queryAt < 0 ? url : url.left(queryAt);
    const QString rest = queryAt < 0 ? QString() : url.mid(queryAt);
    for (const BruFile::Entry &entry : block->entries) {
        if (!entry.enabled)
            continue;
        const QRegularExpression segment(
            QStringLiteral("(?<=/):%1(?=/|#|$)").arg(QRegularExpression::escape(entry.key)));
        path.replace(segment, entry.value);
    }
    return path + rest;
}

class FolderReader
{
public:
    explicit FolderReader(const QString &dir) : m_root(QDir(dir).absolutePath()), m_source(dir) { }

    Result<RunCollection> read()
    {
        const QFileInfo root(m_root.path());
        if (!root.isDir())
            return Error{m_source, Tr::tr("no such folder")};
        if (Result<void> read = readBrunoJson(); !read)
            return read.errorDetail();
        m_collection.format = RunCollection::Format::Bruno;
        m_collection.dialect = ScriptDialect::Bruno;
        m_collection.source = m_source;
        Inherited inherited;
        if (Result<void> read = readCollectionFile(inherited); !read)
            return read.errorDetail();
        if (Result<void> read = readEnvironments(); !read)
            return read.errorDetail();
        Result<QList<RunItem>> items = readItems(QString(), inherited);
        if (!items)
            return items.errorDetail();
        m_collection.items = std::move(items).value();
        qCDebug(lcBrunoRun) << "read" << m_source << m_collection.requestCount() << "requests";
        return m_collection;
    }

private:
    QString absolute(const QString &relative) const { return m_root.filePath(relative); }

    Result<void> readBrunoJson()
    {
        const QString path = absolute(QStringLiteral("bruno.json"));
        if (!QFileInfo::exists(path)) {
            return Error{m_source, Tr::tr("not a Bruno collection: the folder has no bruno.json")};
        }
        const Result<QByteArray> bytes = BoundedFile::read(path, {maxFileBytes, Tr::tr("a Bruno file")});
        if (!bytes)
            return Error{QStringLiteral("bruno.json"), bytes.error()};
        QJsonParseError parseError;
        const QJsonDocument document = QJsonDocument::fromJson(*bytes, &parseError);
        if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
            const QString why
                = parseError.error != QJsonParseError::NoError ? parseError.errorString() : Tr::tr("not a JSON object");
            return Error{QStringLiteral("bruno.json"), Tr::tr("not valid JSON: %1").arg(why), parseError.offset};
        }
        JsonReader json(document.object(), QStringLiteral("bruno.json"));
        m_collection.name = json.string(QStringLiteral("name")).value_or(QString());
        m_ignore = json.strings(QStringLiteral("ignore")).value_or(QStringList());
        if (json.failed())
            return json.firstError();
        if (m_collection.name.trimmed().isEmpty())
            m_collection.name = QFileInfo(m_root.path()).fileName();
        return {};
    }

    Result<BruFile> readBru(const QString &relative)
    {
        const Result<QByteArray> bytes = BoundedFile::read(absolute(relative), {maxFileBytes, Tr::tr("a Bruno file")});
        if (!bytes)
            return Error{relative, bytes.error()};
        const QString text = QString::fromUtf8(*bytes);
        noteProcessEnv(text, relative);
        return BruFile::parse(text, relative);
    }

    // Bruno fills {{process.env.X}} from a .env file or the shell; the runner does not.
    void noteProcessEnv(const QString &text, const QString &relative)
    {
        static const QRegularExpression reference(QStringLiteral(R"(\{\{\s*process\.env\.([^{}\s]+)\s*\}\})"));
        const QStringList lines = text.split(QLatin1Char('\n'));
        for (qsizetype i = 0; i < lines.size(); ++i) {
            QRegularExpressionMatchIterator it = reference.globalMatch(lines.at(i));
            while (it.hasNext()) {
                const QRegularExpressionMatch match = it.next();
                m_collection.ignored.append(Tr::tr("%1:%2: %3 is left as written: process.env is not read")
                                                .arg(relative, QString::number(i + 1), match.captured()));
            }
        }
    }

    void ignore(const BruFile &file, int line, const QString &what)
    {
        m_collection.ignored.append(file.where(line) + QStringLiteral(": ") + what);
    }

    void noteDocs(const BruFile &file)
    {
        if (const BruFile::Block *docs = file.block(QStringLiteral("docs")); docs && !docs->text.isEmpty())
            ignore(file, docs->line, Tr::tr("docs are not used"));
    }

    // An auth mode of a request (`auth: bearer`) or of a folder or the collection
    // (`auth { mode: bearer }`), with the block of its values.
    RunAuth authOf(const BruFile &file, const QString &mode, int line)
    {
        RunAuth auth;
        const auto values = [&](const QString &name) {
            const BruFile::Block *block = file.block(name);
            return block ? *block : BruFile::Block{};
        };
        if (mode == QLatin1String("inherit")) {
            auth.kind = RunAuth::Kind::Inherit;
        } else if (mode.isEmpty() || mode == QLatin1String("none")) {
            auth.kind = RunAuth::Kind::None;
        } else if (mode == QLatin1String("basic")) {
            const BruFile::Block block = values(QStringLiteral("auth:basic"));
            auth.kind = RunAuth::Kind::Basic;
            auth.username = block.value(QStringLiteral("username"));
            auth.password = block.value(QStringLiteral("password"));
        } else if (mode == QLatin1String("bearer")) {
            auth.kind = RunAuth::Kind::Bearer;
            auth.token = values(QStringLiteral("auth:bearer")).value(QStringLiteral("token"));
        } else if (mode == QLatin1String("apikey")) {
            const BruFile::Block block = values(QStringLiteral("auth:apikey"));
            auth.kind = RunAuth::Kind::ApiKey;
            auth.key = block.value(QStringLiteral("key"));
            auth.value = block.value(QStringLiteral("value"));
            auth.inQuery = block.value(QStringLiteral("placement")) == QLatin1String("queryparams");
        } else if (mode == QLatin1String("digest")) {
            const BruFile::Block block = values(QStringLiteral("auth:digest"));
            auth.kind = RunAuth::Kind::Digest;
            auth.username = block.value(QStringLiteral("username"));
            auth.password = block.value(QStringLiteral("password"));
        } else if (mode == QLatin1String("awsv4")) {
            const BruFile::Block block = values(QStringLiteral("auth:awsv4"));
            auth.kind = RunAuth::Kind::AwsSigV4;
            auth.accessKeyId = block.value(QStringLiteral("accessKeyId"));
            auth.secretAccessKey = block.value(QStringLiteral("secretAccessKey"));
            auth.sessionToken = block.value(QStringLiteral("sessionToken"));
            auth.region = block.value(QStringLiteral("region"));
            auth.service = block.value(QStringLiteral("service"));
        } else if (mode == QLatin1String("oauth2")) {
            const BruFile::Block block = values(QStringLiteral("auth:oauth2"));
            const QString grant = block.value(QStringLiteral("grant_type"));
            auth.tokenUrl = block.value(QStringLiteral("access_token_url"));
            auth.authorizationUrl = block.value(QStringLiteral("authorization_url"));
            auth.clientId = block.value(QStringLiteral("client_id"));
            auth.clientSecret = block.value(QStringLiteral("client_secret"));
            auth.scope = block.value(QStringLiteral("scope"));
            auth.refreshToken = block.value(QStringLiteral("refresh_token"));
            if (grant == QLatin1String("client_credentials")) {
                auth.kind = RunAuth::Kind::OAuth2ClientCredentials;
            } else if (grant == QLatin1String("authorization_code") && !auth.refreshToken.isEmpty()) {
                auth.kind = RunAuth::Kind::OAuth2RefreshToken;
            } else {
                auth = RunAuth{};
                auth.kind = RunAuth::Kind::None;
                ignore(file, line,
                    Tr::tr("auth oauth2 with the %1 grant is not sent: the runner fetches client_credentials tokens, "
                           "and refresh tokens it is given")
                        .arg(grant.isEmpty() ? Tr::tr("unnamed") : grant));
            }
        } else {
            auth.kind = RunAuth::Kind::None;
            ignore(file, line,
                Tr::tr("auth %1 is not sent: the runner sends basic, bearer, apikey, digest, awsv4 and oauth2")
                    .arg(mode));
        }
        return auth;
    }

    // folder.bru and collection.bru: `auth { mode: ... }`; none said: `absent`.
    RunAuth blockAuthOf(const BruFile &file, RunAuth::Kind absent)
    {
        const BruFile::Block *block = file.block(QStringLiteral("auth"));
        const BruFile::Entry *mode = block ? block->entry(QStringLiteral("mode")) : nullptr;
        if (!mode) {
            RunAuth auth;
            auth.kind = absent;
            return auth;
        }
        return authOf(file, mode->value, mode->line);
    }

    // The pre-request and test scripts of any .bru; with `assertions`, its
    // `res.status: eq N` asserts go there instead of into the test script.
    static void readScripts(const BruFile &file, RunScript &preRequest, RunScript &test, QList<Assertion> *assertions)
    {
        const BruFile::Block none;
        const auto blockOf = [&](const QString &name) {
            const BruFile::Block *block = file.block(name);
            return block ? block : &none;
        };
        const BruFile::Block *pre = blockOf(QStringLiteral("script:pre-request"));
        preRequest = composedScript({{pre->textLine, pre->text}}, file.place(), pre->textLine);

        QList<Segment> segments;
        for (const BruFile::Entry &entry : blockOf(QStringLiteral("vars:post-response"))->entries) {
            if (entry.enabled)
                segments.append({entry.line, BrunoAssert::setVarScript(entry.key, entry.value)});
        }
        const BruFile::Block *post = blockOf(QStringLiteral("script:post-response"));
        segments.append({post->textLine, post->text});
        const BruFile::Block *tests = blockOf(QStringLiteral("tests"));
        segments.append({tests->textLine, tests->text});
        QStringList generated;
        int assertLine = 0;
        for (const BruFile::Entry &entry : blockOf(QStringLiteral("assert"))->entries) {
            if (!entry.enabled)
                continue;
            if (assertLine == 0)
                assertLine = entry.line;
            if (assertions) {
                if (std::optional<Assertion> status = BrunoAssert::statusAssertion(entry.key, entry.value)) {
                    assertions->append(*status);
                    continue;
                }
            }
            generated.append(BrunoAssert::testScript(entry.key, entry.value));
        }
        if (std::any_of(generated.cbegin(), generated.cend(), &BrunoAssert::needsHelpers))
            generated.prepend(BrunoAssert::helperScript());
        segments.append({0, generated.join(QLatin1Char('\n'))});
        test = composedScript(segments, file.place(), assertLine);
    }

    Result<void> readCollectionFile(Inherited &inherited)
    {
        const QString relative = QStringLiteral("collection.bru");
        if (!QFileInfo::exists(absolute(relative)))
            return {};
        Result<BruFile> file = readBru(relative);
        if (!file)
            return file.errorDetail();
        inherited.headers = headersOf(*file);
        m_collection.variables = preRequestVariables(*file);
        m_collection.auth = blockAuthOf(*file, RunAuth::Kind::None);
        readScripts(*file, m_collection.preRequest, m_collection.test, nullptr);
        noteDocs(*file);
        return {};
    }

    Result<void> readEnvironments()
    {
        const QDir folder(absolute(QStringLiteral("environments")));
        if (!folder.exists())
            return {};
        const QStringList names = folder.entryList({QStringLiteral("*.bru")}, QDir::Files, QDir::Name);
        for (const QString &name : names) {
            const QString relative = QStringLiteral("environments/") + name;
            Result<BruFile> file = readBru(relative);
            if (!file)
                return file.errorDetail();
            RunEnvironment environment;
            environment.name = QFileInfo(name).completeBaseName();
            if (const BruFile::Block *vars = file->block(QStringLiteral("vars"))) {
                for (const BruFile::Entry &entry : vars->entries) {
                    if (entry.enabled)
                        environment.values.append({entry.key, entry.value});
                }
            }
            if (const BruFile::Block *secrets = file->block(QStringLiteral("vars:secret"))) {
                for (const BruFile::Entry &entry : secrets->entries) {
                    if (entry.enabled) {
                        ignore(*file, entry.line,
                            Tr::tr("secret variable \"%1\": Bruno keeps its value outside the file; give it with "
                                   "--var %1=VALUE")
                                .arg(entry.key));
                    }
                }
            }
            m_collection.environments.append(environment);
        }
        return {};
    }

    bool skipped(const QString &relative, const QString &name) const
    {
        if (name == QLatin1String("node_modules") || (relative == QLatin1String("environments")))
            return true;
        return m_ignore.contains(relative) || m_ignore.contains(name);
    }

    Result<QList<RunItem>> readItems(const QString &folder, const Inherited &outer)
    {
        const QDir dir(absolute(folder));
        const QFileInfoList entries = dir.entryInfoList(QDir::Dirs | QDir::Files | QDir::NoDotAndDotDot, QDir::Name);
        QList<Ordered> ordered;
        for (const QFileInfo &entry : entries) {
            const QString name = entry.fileName();
            const QString relative = folder.isEmpty() ? name : folder + QLatin1Char('/') + name;
            Result<Ordered> item = Error{};
            if (entry.isDir()) {
                if (skipped(relative, name))
                    continue;
                item = readFolderItem(relative, outer);
            } else {
                if (entry.suffix() != QLatin1String("bru") || name == QLatin1String("folder.bru")
                    || (folder.isEmpty() && name == QLatin1String("collection.bru")))
                    continue;
                item = readRequest(relative, outer);
            }
            if (!item)
                return item.errorDetail();
            if (!item->skipped)
                ordered.append(std::move(item).value());
        }
        std::stable_sort(ordered.begin(), ordered.end(), [](const Ordered &a, const Ordered &b) {
            if (a.seq != b.seq)
                return a.seq < b.seq;
            const int byName = a.name.compare(b.name, Qt::CaseInsensitive);
            return byName != 0 ? byName < 0 : a.name < b.name;
        });
        QList<RunItem> items;
        for (Ordered &item : ordered)
            items.append(std::move(item.item));
        return items;
    }

    static void readMeta(const BruFile &file, Ordered &ordered)
    {
        const BruFile::Block *meta = file.block(QStringLiteral("meta"));
        if (!meta)
            return;
        const QString name = meta->value(QStringLiteral("name"));
        if (!name.isEmpty())
            ordered.name = name;
        bool ok = false;
        const int seq = meta->value(QStringLiteral("seq")).toInt(&ok);
        if (ok)
            ordered.seq = seq;
    }

    Result<Ordered> readFolderItem(const QString &relative, const Inherited &outer)
    {
        Ordered ordered;
        ordered.name = QFileInfo(relative).fileName();
        RunItem &item = ordered.item;
        item.kind = RunItem::Kind::Folder;
        item.place = relative;
        item.id = relative;
        Inherited inner = outer;
        const QString folderFile = relative + QStringLiteral("/folder.bru");
        if (QFileInfo::exists(absolute(folderFile))) {
            Result<BruFile> file = readBru(folderFile);
            if (!file)
                return file.errorDetail();
            readMeta(*file, ordered);
            inner.headers = mergedHeaders(inner.headers, headersOf(*file));
            inner.variables.append(preRequestVariables(*file));
            item.auth = blockAuthOf(*file, RunAuth::Kind::Inherit);
            readScripts(*file, item.preRequest, item.test, nullptr);
            noteDocs(*file);
        }
        item.name = ordered.name;
        Result<QList<RunItem>> items = readItems(relative, inner);
        if (!items)
            return items.errorDetail();
        item.items = std::move(items).value();
        return ordered;
    }

    Result<Ordered> readRequest(const QString &relative, const Inherited &outer)
    {
        Result<BruFile> read = readBru(relative);
        if (!read)
            return read.errorDetail();
        const BruFile &file = *read;
        Ordered ordered;
        ordered.name = QFileInfo(relative).completeBaseName();
        readMeta(file, ordered);

        const BruFile::Block *method = nullptr;
        for (const BruFile::Block &block : file.blocks()) {
            if (!BruFile::methods().contains(block.name) && block.name != QLatin1String("http"))
                continue;
            if (method) {
                return Error{file.where(block.line),
                    Tr::tr("a second request block (%1); the first is %2 at line %3")
                        .arg(block.name, method->name, QString::number(method->line))};
            }
            method = &block;
        }
        if (!method) {
            for (const QString &kind : {QStringLiteral("grpc"), QStringLiteral("ws")}) {
                if (const BruFile::Block *other = file.block(kind)) {
                    ignore(file, other->line, Tr::tr("a %1 request is not run").arg(kind));
                    ordered.skipped = true;
                    return ordered;
                }
            }
            const BruFile::Block *meta = file.block(QStringLiteral("meta"));
            return Error{file.where(meta ? meta->line : 1),
                Tr::tr("no request block (%1)").arg(BruFile::methods().join(QStringLiteral(", ")))};
        }

        RunItem &item = ordered.item;
        item.kind = RunItem::Kind::Request;
        item.name = ordered.name;
        item.place = relative;
        item.id = relative;
        RequestDraft &request = item.request;
        // `http { method: PURGE }`: a method of its own.
        request.method
            = (method->name == QLatin1String("http") ? method->value(QStringLiteral("method")) : method->name)
                  .toUpper();
        request.urlTemplate = withPathParameters(method->value(QStringLiteral("url")), file);
        request.headers = mergedHeaders(outer.headers, headersOf(file));
        readBody(file, *method, request);
        const BruFile::Entry *authMode = method->entry(QStringLiteral("auth"));
        item.auth = authOf(file, authMode ? authMode->value : QString(), authMode ? authMode->line : method->line);
        item.variables = outer.variables + preRequestVariables(file);
        readScripts(file, item.preRequest, item.test, &item.assertions);
        noteDocs(file);
        return ordered;
    }

    void readBody(const BruFile &file, const BruFile::Block &method, RequestDraft &request)
    {
        const BruFile::Entry *modeEntry = method.entry(QStringLiteral("body"));
        const QString mode = modeEntry ? modeEntry->value : QString();
        const int modeLine = modeEntry ? modeEntry->line : method.line;
        const auto text = [&](const QString &name) {
            const BruFile::Block *block = file.block(name);
            return block ? block->text : QString();
        };
        QString contentType;
        if (mode.isEmpty() || mode == QLatin1String("none")) {
            return;
        } else if (mode == QLatin1String("json")) {
            request.body = text(QStringLiteral("body:json"));
            contentType = QStringLiteral("application/json");
        } else if (mode == QLatin1String("text")) {
            request.body = text(QStringLiteral("body:text"));
            contentType = QStringLiteral("text/plain");
        } else if (mode == QLatin1String("xml")) {
            request.body = text(QStringLiteral("body:xml"));
            contentType = QStringLiteral("application/xml");
        } else if (mode == QLatin1String("sparql")) {
            request.body = text(QStringLiteral("body:sparql"));
            contentType = QStringLiteral("application/sparql-query");
        } else if (mode == QLatin1String("formUrlEncoded")) {
            request.body = formBody(file);
            contentType = QStringLiteral("application/x-www-form-urlencoded");
        } else if (mode == QLatin1String("multipartForm")) {
            contentType = multipartBody(file, request);
        } else if (mode == QLatin1String("graphql")) {
            request.body = graphqlBody(file);
            contentType = QStringLiteral("application/json");
        } else {
            ignore(file, modeLine, Tr::tr("body mode %1 is not sent").arg(mode));
            return;
        }
        if (!request.body.isEmpty() && !contentType.isEmpty()
            && !hasHeader(request.headers, QStringLiteral("Content-Type")))
            request.headers.append({QStringLiteral("Content-Type"), contentType, true});
    }

    static QString formBody(const BruFile &file)
    {
        QByteArray body;
        if (const BruFile::Block *block = file.block(QStringLiteral("body:form-urlencoded"))) {
            for (const BruFile::Entry &entry : block->entries) {
                if (!entry.enabled)
                    continue;
                if (!body.isEmpty())
                    body += '&';
                body += formEncodedKeepingVariables(entry.key) + '=' + formEncodedKeepingVariables(entry.value);
            }
        }
        return QString::fromUtf8(body);
    }

    // Gives the Content-Type with its boundary, or nothing when no field is sent.
    QString multipartBody(const BruFile &file, RequestDraft &request)
    {
        static const QRegularExpression fileValue(QStringLiteral(R"(^@file\((.*?)\)(\s+@contentType\(.*\))?$)"));
        static const QRegularExpression typed(QStringLiteral(R"(^(.*?)\s+@contentType\(([^)]*)\)$)"));
        const BruFile::Block *block = file.block(QStringLiteral("body:multipart-form"));
        if (!block)
            return {};
        QList<ImportBody::FormField> fields;
        for (const BruFile::Entry &entry : block->entries) {
            if (!entry.enabled)
                continue;
            if (const QRegularExpressionMatch match = fileValue.match(entry.value); match.hasMatch()) {
                ignore(file, entry.line,
                    Tr::tr("file field \"%1\" (%2) is not sent: files are not read").arg(entry.key, match.captured(1)));
                continue;
            }
            ImportBody::FormField field{entry.key, entry.value, QString()};
            if (const QRegularExpressionMatch match = typed.match(entry.value); match.hasMatch()) {
                field.value = match.captured(1);
                field.contentType = match.captured(2).trimmed();
            }
            fields.append(field);
        }
        if (fields.isEmpty())
            return {};
        const ImportBody::Multipart multipart = ImportBody::multipart(fields);
        request.body = QString::fromUtf8(multipart.body);
        return QString::fromLatin1(multipart.contentType);
    }

    // Bruno sends a GraphQL request as JSON: {"query", "variables"}.
    QString graphqlBody(const BruFile &file)
    {
        const BruFile::Block *query = file.block(QStringLiteral("body:graphql"));
        QJsonObject payload{{QStringLiteral("query"), query ? query->text : QString()}};
        if (const BruFile::Block *vars = file.block(QStringLiteral("body:graphql:vars"));
            vars && !vars->text.isEmpty()) {
            QJsonParseError error;
            const QJsonDocument parsed = QJsonDocument::fromJson(vars->text.toUtf8(), &error);
            if (error.error == QJsonParseError::NoError && parsed.isObject())
                payload.insert(QStringLiteral("variables"), parsed.object());
            else
                ignore(file, vars->textLine, Tr::tr("GraphQL variables that are not a JSON object are not sent"));
        }
        return QString::fromUtf8(QJsonDocument(payload).toJson(QJsonDocument::Compact));
    }

    QDir m_root;
    QString m_source;
    RunCollection m_collection;
    QStringList m_ignore;
};

} // namespace

Result<RunCollection> readFolder(const QString &dir)
{
    FolderReader reader(dir);
    return reader.read();
}

} // namespace RetryLab::Core::BrunoRun
