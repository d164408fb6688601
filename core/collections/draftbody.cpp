#include "core/collections/draftbody.h"

#include "core/http/formurlencoded.h"
#include "core/http/redactor.h"
#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QRegularExpression>

namespace RetryLab::Core {

namespace {

constexpr qsizetype maxFieldText = 64 * 1024;

const QList<DraftBody::Mode> &allBodyModes()
{
    static const QList<DraftBody::Mode> modes{
        DraftBody::Mode::Raw, DraftBody::Mode::UrlEncoded, DraftBody::Mode::Multipart, DraftBody::Mode::File};
    return modes;
}

// A value that is only a {placeholder} or a {{variable}} holds no secret.
bool isOnlyPlaceholder(const QString &value)
{
    static const QRegularExpression placeholder(QStringLiteral(R"(^\s*(\{[^{}]+\}|\{\{[^{}]+\}\})\s*$)"));
    return placeholder.match(value).hasMatch();
}

void readFieldText(JsonReader &reader, const QString &key, QString *out)
{
    const auto text = reader.string(key);
    if (!text)
        return;
    if (text->size() > maxFieldText)
        reader.fail(key, Tr::tr("longer than %1 characters").arg(maxFieldText));
    else
        *out = *text;
}

QString fieldLabel(int row, const DraftFormField &field)
{
    return field.name.isEmpty() ? Tr::tr("Form row %1").arg(row + 1)
                                : Tr::tr("Form row %1 (%2)").arg(row + 1).arg(field.name);
}

} // namespace

QString DraftBody::modeName(Mode mode)
{
    switch (mode) {
    case Mode::Raw:
        return QStringLiteral("raw");
    case Mode::UrlEncoded:
        return QStringLiteral("urlencoded");
    case Mode::Multipart:
        return QStringLiteral("multipart");
    case Mode::File:
        return QStringLiteral("file");
    }
    return {};
}

QList<DraftFormField> DraftBody::sentFields() const
{
    QList<DraftFormField> out;
    for (const DraftFormField &field : fields) {
        if (field.enabled && !field.name.trimmed().isEmpty())
            out.append(field);
    }
    return out;
}

void DraftBody::forEachText(const std::function<void(QString &)> &visit)
{
    for (DraftFormField &field : fields) {
        if (!field.enabled)
            continue;
        visit(field.name);
        visit(field.value);
        visit(field.filePath);
        visit(field.fileName);
    }
    visit(filePath);
}

QJsonObject DraftBody::toJson(bool keepCredentials) const
{
    if (mode == Mode::Raw)
        return {};
    QJsonObject object{{QStringLiteral("mode"), modeName(mode)}};
    if (mode == Mode::File) {
        object.insert(QStringLiteral("file"), filePath);
        return object;
    }
    QJsonArray rows;
    for (const DraftFormField &field : fields) {
        QJsonObject row{{QStringLiteral("name"), field.name}};
        if (field.isFile()) {
            row.insert(QStringLiteral("file"), field.filePath);
            if (!field.fileName.isEmpty())
                row.insert(QStringLiteral("fileName"), field.fileName);
            if (!field.contentType.isEmpty())
                row.insert(QStringLiteral("contentType"), field.contentType);
        } else {
            const bool secret = !keepCredentials && !field.value.isEmpty() && !isOnlyPlaceholder(field.value)
                && Redactor::isSensitiveName(field.name.trimmed());
            row.insert(QStringLiteral("value"), secret ? QString::fromLatin1(Redactor::mask()) : field.value);
        }
        if (!field.enabled)
            row.insert(QStringLiteral("enabled"), false);
        rows.append(row);
    }
    object.insert(QStringLiteral("fields"), rows);
    return object;
}

DraftBody DraftBody::read(JsonReader &parent)
{
    DraftBody body;
    auto reader = parent.object(QStringLiteral("bodyFrom"));
    if (!reader)
        return body;
    reader->rejectUnknown({QStringLiteral("mode"), QStringLiteral("fields"), QStringLiteral("file")});
    body.mode = reader->named(QStringLiteral("mode"), allBodyModes(), &DraftBody::modeName, Presence::Required)
                    .value_or(Mode::Raw);
    readFieldText(*reader, QStringLiteral("file"), &body.filePath);
    if (body.mode == Mode::File && body.filePath.trimmed().isEmpty())
        reader->fail(QStringLiteral("file"), Tr::tr("a file body needs the file's path"));
    if (auto rows = reader->array(QStringLiteral("fields"))) {
        if (rows->size() > maxFields)
            rows->failHere(Tr::tr("more than %1 entries").arg(maxFields));
        for (qsizetype i = 0; i < rows->size() && i < maxFields; ++i) {
            auto entry = rows->object(i, Presence::Required);
            if (!entry)
                continue;
            entry->rejectUnknown({QStringLiteral("name"), QStringLiteral("value"), QStringLiteral("file"),
                QStringLiteral("fileName"), QStringLiteral("contentType"), QStringLiteral("enabled")});
            DraftFormField field;
            readFieldText(*entry, QStringLiteral("name"), &field.name);
            readFieldText(*entry, QStringLiteral("value"), &field.value);
            readFieldText(*entry, QStringLiteral("file"), &field.filePath);
            readFieldText(*entry, QStringLiteral("fileName"), &field.fileName);
            readFieldText(*entry, QStringLiteral("contentType"), &field.contentType);
            field.enabled = entry->boolean(QStringLiteral("enabled")).value_or(true);
            if (field.isFile() && !field.value.isEmpty())
                entry->fail(QStringLiteral("value"), Tr::tr("a row is a value or a file, not both"));
            body.fields.append(field);
        }
    }
    return body;
}

DraftBody DraftBody::fromSource(const BodySource &source)
{
    DraftBody body;
    switch (source.kind) {
    case BodySource::Kind::Inline:
        break;
    case BodySource::Kind::File:
        body.mode = Mode::File;
        body.filePath = source.filePath;
        break;
    case BodySource::Kind::Multipart:
        body.mode = Mode::Multipart;
        for (const FormPart &part : source.parts) {
            body.fields.append({QString::fromUtf8(part.name), QString::fromUtf8(part.value), part.filePath,
                QString::fromUtf8(part.fileName), QString::fromUtf8(part.contentType), true});
        }
        break;
    }
    return body;
}

Result<QByteArray> DraftBody::encodedForm() const
{
    using R = Result<QByteArray>;
    FormUrlEncoded::Fields pairs;
    for (int row = 0; row < fields.size(); ++row) {
        const DraftFormField &field = fields.at(row);
        if (!field.enabled || field.name.trimmed().isEmpty())
            continue;
        if (field.isFile()) {
            return R::failure(Tr::tr("%1 is a file: a URL-encoded form holds text only (choose Multipart form).")
                                  .arg(fieldLabel(row, field)));
        }
        pairs.append({field.name.trimmed(), field.value});
    }
    return FormUrlEncoded::encode(pairs);
}

Result<BodySource> DraftBody::source() const
{
    using R = Result<BodySource>;
    BodySource out;
    if (mode == Mode::File) {
        out.kind = BodySource::Kind::File;
        out.filePath = filePath.trimmed();
        if (out.filePath.isEmpty())
            return R::failure(Tr::tr("Choose the file to send as the body."));
    } else if (mode == Mode::Multipart) {
        out.kind = BodySource::Kind::Multipart;
        for (int row = 0; row < fields.size(); ++row) {
            const DraftFormField &field = fields.at(row);
            if (!field.enabled || field.name.trimmed().isEmpty())
                continue;
            if (field.name.contains(QLatin1Char('"')) || field.name.contains(QLatin1Char('\n'))
                || field.name.contains(QLatin1Char('\r'))) {
                return R::failure(
                    Tr::tr("%1: a field's name cannot hold quotes or line breaks.").arg(fieldLabel(row, field)));
            }
            FormPart part;
            part.name = field.name.trimmed().toUtf8();
            part.value = field.value.toUtf8();
            part.filePath = field.filePath.trimmed();
            part.fileName = field.fileName.toUtf8();
            part.contentType = field.contentType.trimmed().toUtf8();
            out.parts.append(part);
        }
        if (out.parts.isEmpty())
            return R::failure(Tr::tr("The multipart form has no field to send: add a field or a file."));
    } else {
        return out;
    }
    if (Result<void> files = out.checkFiles(); !files)
        return R::failure(files.error());
    return out;
}

} // namespace RetryLab::Core
