#include "core/proxy/recording.h"

#include "core/http/redactor.h"
#include "core/util/coretr.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <algorithm>

namespace RetryLab::Core {

namespace {

const QString formatName = QStringLiteral("retrylab-recording");
constexpr int formatVersion = 1;
// A recording read back holds at most this many exchanges and this many body bytes.
constexpr qsizetype maxExchanges = 100'000;
constexpr qint64 maxTotalBodyBytes = 2LL * 1024 * 1024 * 1024;

QJsonArray headersToJson(const HeaderList &headers)
{
    QJsonArray array;
    for (const auto &[name, value] : headers)
        array.append(QJsonArray{QString::fromLatin1(name), QString::fromLatin1(value)});
    return array;
}

Result<HeaderList> headersFromJson(const QJsonValue &value, const QString &field)
{
    HeaderList headers;
    if (!value.isArray())
        return Result<HeaderList>::failure(field, Tr::tr("must be a list of [name, value] pairs"));
    const QJsonArray array = value.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QJsonArray pair = array.at(i).toArray();
        if (pair.size() != 2 || !pair.at(0).isString() || !pair.at(1).isString())
            return Result<HeaderList>::failure(
                QStringLiteral("%1[%2]").arg(field).arg(i), Tr::tr("must be [name, value]"));
        const QByteArray name = pair.at(0).toString().toLatin1();
        const QByteArray text = pair.at(1).toString().toLatin1();
        // What goes back on the wire at a replay: a field name is a token, a value has no line break.
        const bool token = !name.isEmpty() && std::all_of(name.cbegin(), name.cend(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
        });
        if (!token || text.contains('\r') || text.contains('\n') || text.contains('\0'))
            return Result<HeaderList>::failure(QStringLiteral("%1[%2]").arg(field).arg(i),
                Tr::tr("is not a header field that can be sent (a name of token characters, a value on one line)"));
        headers.append({name, text});
    }
    return headers;
}

QString keyOf(const QByteArray &method, const QByteArray &path, const QByteArray &query, const QByteArray &digest)
{
    return QString::fromLatin1(method + ' ' + path + (query.isEmpty() ? QByteArray() : '?' + query) + ' ' + digest);
}

QString describe(const QByteArray &method, const QByteArray &path, const QByteArray &query, const QByteArray &digest)
{
    QString text = QString::fromLatin1(method + ' ' + path + (query.isEmpty() ? QByteArray() : '?' + query));
    if (digest != RecordedExchange::sha256Of({}))
        text += Tr::tr(" (body %1...)").arg(QString::fromLatin1(digest.left(12)));
    return text;
}

} // namespace

QByteArray RecordedExchange::sha256Of(const QByteArray &body)
{
    return QCryptographicHash::hash(body, QCryptographicHash::Sha256).toHex();
}

QByteArray RecordedExchange::maskedQuery(const QByteArray &query)
{
    if (query.isEmpty())
        return query;
    const QString masked = Redactor().text(QStringLiteral("/?") + QString::fromLatin1(query));
    return masked.mid(2).toLatin1();
}

QString RecordedExchange::key() const
{
    return describe(method, path, query, bodySha256);
}

// --- RecordingWriter

Result<std::unique_ptr<RecordingWriter>> RecordingWriter::open(const QString &directory)
{
    using Opened = Result<std::unique_ptr<RecordingWriter>>;
    const QString shown = QDir::toNativeSeparators(directory);
    QDir dir(directory);
    if (!dir.mkpath(QStringLiteral("bodies")))
        return Opened::failure(Tr::tr("cannot make the recording folder %1 (is its parent writable?)").arg(shown));
    auto writer = std::unique_ptr<RecordingWriter>(new RecordingWriter);
    writer->m_directory = dir.absolutePath();
    const QString header = dir.filePath(QStringLiteral("recording.json"));
    if (QFileInfo::exists(header)) {
        const auto existing = Recording::read(directory);
        if (!existing)
            return Opened::failure(
                Tr::tr("%1 holds something that is not a recording to add to: %2").arg(shown, existing.error()));
        writer->m_count = int(existing->exchanges().size());
    } else {
        QSaveFile file(header);
        const QJsonObject object{{QStringLiteral("format"), formatName}, {QStringLiteral("version"), formatVersion},
            {QStringLiteral("started"), QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)}};
        if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(object).toJson()) < 0 || !file.commit())
            return Opened::failure(
                Tr::tr("cannot write to the recording folder %1: %2").arg(shown, file.errorString()));
    }
    writer->m_lines.setFileName(dir.filePath(QStringLiteral("exchanges.jsonl")));
    if (!writer->m_lines.open(QIODevice::ReadWrite))
        return Opened::failure(
            Tr::tr("cannot write to the recording folder %1: %2").arg(shown, writer->m_lines.errorString()));
    // A line cut off by a crash is cut away, so that the next one starts on a line of its own.
    const QByteArray all = writer->m_lines.readAll();
    if (!all.isEmpty() && !all.endsWith('\n'))
        writer->m_lines.resize(all.lastIndexOf('\n') + 1);
    writer->m_lines.seek(writer->m_lines.size());
    return writer;
}

RecordingWriter::~RecordingWriter() = default;

Result<void> RecordingWriter::append(const RecordedExchange &exchange)
{
    const int number = m_count + 1;
    const QString bodyName = QStringLiteral("bodies/%1.bin").arg(number, 6, 10, QLatin1Char('0'));
    if (!exchange.body.isEmpty()) {
        QSaveFile body(QDir(m_directory).filePath(bodyName));
        if (!body.open(QIODevice::WriteOnly) || body.write(exchange.body) != exchange.body.size() || !body.commit())
            return Result<void>::failure(Tr::tr("cannot write %1: %2").arg(bodyName, body.errorString()));
    }
    const QJsonObject line{
        {QStringLiteral("method"), QString::fromLatin1(exchange.method)},
        {QStringLiteral("path"), QString::fromLatin1(exchange.path)},
        {QStringLiteral("query"), QString::fromLatin1(exchange.query)},
        {QStringLiteral("bodySha256"), QString::fromLatin1(exchange.bodySha256)},
        {QStringLiteral("requestHeaders"), headersToJson(exchange.requestHeaders)},
        {QStringLiteral("origin"), exchange.origin},
        {QStringLiteral("status"), exchange.status},
        {QStringLiteral("reason"), QString::fromLatin1(exchange.reason)},
        {QStringLiteral("headers"), headersToJson(exchange.headers)},
        {QStringLiteral("body"), exchange.body.isEmpty() ? QString() : bodyName},
        {QStringLiteral("bodyBytes"), double(exchange.body.size())},
        {QStringLiteral("firstByteMs"), exchange.firstByteMs},
        {QStringLiteral("durationMs"), exchange.durationMs},
        {QStringLiteral("recorded"), exchange.recorded.toString(Qt::ISODateWithMs)},
    };
    const QByteArray text = QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n';
    const qint64 before = m_lines.size();
    if (m_lines.write(text) != text.size() || !m_lines.flush()) {
        const QString why = m_lines.errorString();
        m_lines.resize(before); // no half line stays behind
        m_lines.seek(before);
        return Result<void>::failure(Tr::tr("cannot write exchanges.jsonl: %1").arg(why));
    }
    m_count = number;
    return {};
}

// --- Recording

Result<Recording> Recording::read(const QString &directory)
{
    using Read = Result<Recording>;
    const QString shown = QDir::toNativeSeparators(directory);
    const QDir dir(directory);
    QFile header(dir.filePath(QStringLiteral("recording.json")));
    if (!header.open(QIODevice::ReadOnly))
        return Read::failure(
            Tr::tr("%1 is no recording: recording.json cannot be read (%2)").arg(shown, header.errorString()));
    QJsonParseError parse;
    const QJsonObject head = QJsonDocument::fromJson(header.read(1024 * 1024), &parse).object();
    if (parse.error != QJsonParseError::NoError || head.value(QStringLiteral("format")).toString() != formatName)
        return Read::failure(Tr::tr("%1/recording.json: not a %2 file").arg(shown, formatName));
    if (head.value(QStringLiteral("version")).toInt() != formatVersion) {
        return Read::failure(Tr::tr("%1/recording.json: version %2 is not one this RetryLab reads (%3)")
                                 .arg(shown)
                                 .arg(head.value(QStringLiteral("version")).toInt())
                                 .arg(formatVersion));
    }
    Recording recording;
    recording.m_directory = dir.absolutePath();
    QFile lines(dir.filePath(QStringLiteral("exchanges.jsonl")));
    if (!lines.exists())
        return recording; // started, nothing recorded yet
    if (!lines.open(QIODevice::ReadOnly))
        return Read::failure(Tr::tr("%1/exchanges.jsonl cannot be read: %2").arg(shown, lines.errorString()));
    qint64 bodyBytes = 0;
    int number = 0;
    while (!lines.atEnd()) {
        const QByteArray raw = lines.readLine(64 * 1024 * 1024);
        const QByteArray text = raw.trimmed();
        ++number;
        if (text.isEmpty())
            continue;
        // A last line without its end was being written when the recorder stopped (a crash, a
        // full disk): what came before it stands, and the next recorder cuts it off.
        if (!raw.endsWith('\n') && lines.atEnd() && QJsonDocument::fromJson(text).isNull())
            break;
        const auto where = [&](const QString &field) {
            return QStringLiteral("%1/exchanges.jsonl line %2%3")
                .arg(shown)
                .arg(number)
                .arg(field.isEmpty() ? QString() : QStringLiteral(" (") + field + QLatin1Char(')'));
        };
        const QJsonObject o = QJsonDocument::fromJson(text, &parse).object();
        if (parse.error != QJsonParseError::NoError)
            return Read::failure(Tr::tr("%1: %2").arg(where({}), parse.errorString()));
        if (recording.m_exchanges.size() >= maxExchanges)
            return Read::failure(Tr::tr("%1: more than %2 exchanges").arg(where({})).arg(maxExchanges));
        RecordedExchange e;
        e.method = o.value(QStringLiteral("method")).toString().toLatin1();
        e.path = o.value(QStringLiteral("path")).toString().toLatin1();
        e.query = o.value(QStringLiteral("query")).toString().toLatin1();
        e.bodySha256 = o.value(QStringLiteral("bodySha256")).toString().toLatin1();
        e.status = o.value(QStringLiteral("status")).toInt();
        if (e.method.isEmpty() || !e.path.startsWith('/') || e.status < 100 || e.status > 599
            || e.bodySha256.size() != 64)
            return Read::failure(
                Tr::tr("%1: needs method, a path starting with /, status 100-599 and bodySha256").arg(where({})));
        auto requestHeaders
            = headersFromJson(o.value(QStringLiteral("requestHeaders")), QStringLiteral("requestHeaders"));
        auto headers = headersFromJson(o.value(QStringLiteral("headers")), QStringLiteral("headers"));
        if (!requestHeaders || !headers)
            return Read::failure(
                Tr::tr("%1: %2").arg(where({}), requestHeaders ? headers.error() : requestHeaders.error()));
        e.requestHeaders = std::move(requestHeaders).value();
        e.headers = std::move(headers).value();
        e.origin = o.value(QStringLiteral("origin")).toString();
        e.reason = o.value(QStringLiteral("reason")).toString().toLatin1();
        e.firstByteMs = std::max(0.0, o.value(QStringLiteral("firstByteMs")).toDouble());
        e.durationMs = std::max(e.firstByteMs, o.value(QStringLiteral("durationMs")).toDouble());
        e.recorded = QDateTime::fromString(o.value(QStringLiteral("recorded")).toString(), Qt::ISODateWithMs);
        const QString bodyName = o.value(QStringLiteral("body")).toString();
        if (!bodyName.isEmpty()) {
            if (bodyName.contains(QLatin1String("..")) || !bodyName.startsWith(QLatin1String("bodies/")))
                return Read::failure(
                    Tr::tr("%1: body must name a file under bodies/").arg(where(QStringLiteral("body"))));
            QFile body(dir.filePath(bodyName));
            if (!body.open(QIODevice::ReadOnly))
                return Read::failure(Tr::tr("%1: %2 cannot be read: %3")
                                         .arg(where(QStringLiteral("body")), bodyName, body.errorString()));
            bodyBytes += body.size();
            if (body.size() > RecordingWriter::maxBodyBytes || bodyBytes > maxTotalBodyBytes)
                return Read::failure(Tr::tr("%1: the recording's bodies are larger than a replay holds")
                                         .arg(where(QStringLiteral("body"))));
            e.body = body.readAll();
        }
        recording.m_byKey[keyOf(e.method, e.path, e.query, e.bodySha256)].append(recording.m_exchanges.size());
        recording.m_exchanges.append(std::move(e));
    }
    return recording;
}

const RecordedExchange *Recording::next(
    const QByteArray &method, const QByteArray &path, const QByteArray &query, const QByteArray &body)
{
    const QString key = keyOf(method, path, RecordedExchange::maskedQuery(query), RecordedExchange::sha256Of(body));
    const auto found = m_byKey.constFind(key);
    if (found == m_byKey.cend())
        return nullptr;
    qsizetype &turn = m_turns[key];
    const qsizetype index = found->at(std::min(turn, found->size() - 1));
    ++turn;
    return &m_exchanges.at(index);
}

QString Recording::notRecorded(
    const QByteArray &method, const QByteArray &path, const QByteArray &query, const QByteArray &body) const
{
    QString text
        = Tr::tr("not recorded: %1")
              .arg(describe(method, path, RecordedExchange::maskedQuery(query), RecordedExchange::sha256Of(body)));
    QStringList samePath;
    for (const RecordedExchange &e : m_exchanges) {
        if (e.path == path && !samePath.contains(e.key()))
            samePath << e.key();
        if (samePath.size() >= 10)
            break;
    }
    if (samePath.isEmpty())
        text += Tr::tr("; nothing was recorded for %1 (%2 exchanges in %3)")
                    .arg(QString::fromLatin1(path))
                    .arg(m_exchanges.size())
                    .arg(QDir::toNativeSeparators(m_directory));
    else
        text += Tr::tr("; recorded for this path: %1").arg(samePath.join(QStringLiteral(", ")));
    return text;
}

} // namespace RetryLab::Core
