#include "core/runner/harrun.h"

#include "core/import/harimport.h"
#include "core/util/coretr.h"

#include <QFileInfo>
#include <QLoggingCategory>
#include <QStringDecoder>
#include <QUrl>

namespace RetryLab::Core::HarRun {

namespace {

Q_LOGGING_CATEGORY(lcHarRun, "retrylab.core.harrun")

RunItem itemOf(const HarImport::Entry &entry, QStringList &ignored)
{
    const ImportedRequest &imported = entry.request;
    const RequestSpec &spec = imported.spec;
    RunItem item;
    item.kind = RunItem::Kind::Request;
    item.place = QStringLiteral("log.entries[%1]").arg(entry.sourceIndexes.value(0));
    RequestDraft &draft = item.request;
    draft.method = QString::fromLatin1(spec.method);
    draft.urlTemplate = imported.urlText.isEmpty() ? spec.url.toString(QUrl::FullyEncoded) : imported.urlText;
    item.name = imported.name.isEmpty() ? draft.method + QLatin1Char(' ') + draft.urlTemplate : imported.name;
    for (const auto &[name, value] : spec.headers)
        draft.headers.append({QString::fromLatin1(name), QString::fromUtf8(value), true});
    if (!spec.body.isEmpty()) {
        QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
        const QString text = decoder.decode(spec.body);
        if (decoder.hasError() || text.contains(QChar(0)))
            ignored.append(
                item.place + Tr::tr(": the body (%1 bytes) is not text; sent without it").arg(spec.body.size()));
        else
            draft.body = text;
    }
    draft.idempotent = spec.idempotent;
    draft.attemptTimeoutMs = spec.attemptTimeoutMs;
    draft.transport = spec.transport;
    // Ignoring certificate errors is never switched on by a file: --insecure says so.
    draft.transport.insecureHosts.clear();
    for (const QString &each : imported.ignored + imported.notes)
        ignored.append(item.place + QStringLiteral(": ") + each);
    return item;
}

} // namespace

Result<RunCollection> readFile(const QString &path)
{
    const auto archive = HarImport::readFile(path);
    if (!archive) {
        const Error error = archive.errorDetail();
        return Error{path, error.text(), error.offset};
    }
    RunCollection out;
    out.format = RunCollection::Format::Har;
    out.dialect = ScriptDialect::Postman;
    out.name = QFileInfo(path).completeBaseName();
    out.source = path;
    if (archive->policy)
        out.policy = SavedPolicy::from(*archive->policy);
    for (const HarImport::Entry &entry : archive->entries)
        out.items.append(itemOf(entry, out.ignored));
    for (const Error &skipped : archive->skipped)
        out.ignored.append(skipped.text());
    for (const QString &note : archive->notes)
        out.ignored.append(note);
    qCDebug(lcHarRun) << "read" << out.items.size() << "requests of" << path;
    return out;
}

} // namespace RetryLab::Core::HarRun
