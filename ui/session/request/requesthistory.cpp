#include "ui/session/request/requesthistory.h"

#include "core/util/boundedfile.h"
#include "core/util/exportfile.h"
#include "ui/session/uitr.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace RetryLab::Ui {

namespace {

// Entries at most 64 KiB of body each, and 200 of them: the file stays far below this.
constexpr qint64 historyFileLimit = 64LL * 1024 * 1024;

std::optional<RequestHistory::Kind> historyKindFromName(const QString &name)
{
    for (const RequestHistory::Kind kind :
        {RequestHistory::Kind::Send, RequestHistory::Kind::Batch, RequestHistory::Kind::Repeat}) {
        if (RequestHistory::kindName(kind) == name)
            return kind;
    }
    return std::nullopt;
}

} // namespace

RequestHistory::RequestHistory(const QString &filePath, QObject *parent) : QObject(parent), m_filePath(filePath)
{
    m_saveTimer.setSingleShot(true);
    m_saveTimer.setInterval(saveDelayMs);
    connect(&m_saveTimer, &QTimer::timeout, this, [this] { save(); });
}

RequestHistory::~RequestHistory()
{
    // Whoever heard of failures may be gone already (the window, being destroyed).
    if (m_saveTimer.isActive())
        save(false);
}

QString RequestHistory::kindName(Kind kind)
{
    switch (kind) {
    case Kind::Send:
        return QStringLiteral("send");
    case Kind::Batch:
        return QStringLiteral("batch");
    case Kind::Repeat:
        return QStringLiteral("repeat");
    }
    return {};
}

Core::Result<void> RequestHistory::load()
{
    // The file's entries replace those held: a change not written yet is dropped with them.
    m_saveTimer.stop();
    m_entries.clear();
    if (m_filePath.isEmpty() || !QFileInfo::exists(m_filePath)) {
        Q_EMIT changed();
        return {};
    }
    const auto bytes = Core::BoundedFile::read(m_filePath, {historyFileLimit, Tr::tr("a request history")});
    if (!bytes) {
        Q_EMIT changed();
        return Core::Result<void>::failure(bytes.error());
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(*bytes, &parseError);
    if (!document.isObject()) {
        Q_EMIT changed();
        return Core::Result<void>::failure(Tr::tr("The request history %1 is damaged (%2); it starts empty.")
                                               .arg(m_filePath, parseError.errorString()));
    }
    int leftOut = 0;
    const QJsonArray items = document.object().value(QLatin1String("entries")).toArray();
    for (const QJsonValue &item : items) {
        const QJsonObject object = item.toObject();
        const auto draft = Core::RequestDraft::fromJson(object.value(QLatin1String("request")).toObject());
        const auto kind = historyKindFromName(object.value(QLatin1String("kind")).toString());
        const QDateTime sentAt
            = QDateTime::fromString(object.value(QLatin1String("sentAt")).toString(), Qt::ISODateWithMs);
        if (!draft || !kind || !sentAt.isValid()) {
            ++leftOut;
            continue;
        }
        m_entries.append({sentAt, *kind, *draft, object.value(QLatin1String("bodyDropped")).toBool()});
        if (m_entries.size() == maxEntries)
            break;
    }
    Q_EMIT changed();
    if (leftOut > 0) {
        return Core::Result<void>::failure(
            Tr::tr("%n entry(s) of the request history %1 could not be read and were left out.", nullptr, leftOut)
                .arg(m_filePath));
    }
    return {};
}

void RequestHistory::add(const Core::RequestDraft &draft, Kind kind, const QDateTime &sentAt)
{
    Entry entry{sentAt, kind, draft, false};
    if (entry.draft.body.size() > maxBodyBytes) {
        entry.draft.body.clear();
        entry.bodyDropped = true;
    }
    // Kept as the file keeps it, so that what the list re-opens is what a restart would.
    if (auto redacted = Core::RequestDraft::fromJson(entry.draft.toJson()))
        entry.draft = *redacted;
    m_entries.prepend(entry);
    while (m_entries.size() > maxEntries)
        m_entries.removeLast();
    Q_EMIT changed();
    m_saveTimer.start();
}

void RequestHistory::clear()
{
    m_entries.clear();
    Q_EMIT changed();
    m_saveTimer.start();
}

void RequestHistory::save(bool report)
{
    m_saveTimer.stop();
    if (m_filePath.isEmpty())
        return;
    QJsonArray items;
    for (const Entry &entry : std::as_const(m_entries)) {
        QJsonObject object;
        object.insert(QLatin1String("sentAt"), entry.sentAt.toString(Qt::ISODateWithMs));
        object.insert(QLatin1String("kind"), kindName(entry.kind));
        if (entry.bodyDropped)
            object.insert(QLatin1String("bodyDropped"), true);
        object.insert(QLatin1String("request"), entry.draft.toJson());
        items.append(object);
    }
    QJsonObject root;
    root.insert(QLatin1String("format"), formatVersion);
    root.insert(QLatin1String("entries"), items);
    QDir().mkpath(QFileInfo(m_filePath).absolutePath());
    const auto written = Core::ExportFile::write(m_filePath, QJsonDocument(root).toJson(QJsonDocument::Compact));
    if (!written && report)
        Q_EMIT saveFailed(written.error());
}

} // namespace RetryLab::Ui
