#include "core/executor/streamedbody.h"

#include "core/util/coretr.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHttpMultiPart>
#include <QNetworkRequest>

#include <memory>

namespace RetryLab::Core::StreamedBody {

namespace {

// A quoted-string of a Content-Disposition parameter: quotes and backslashes escaped, no line breaks.
QByteArray quotedParameter(QByteArray value)
{
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\r', ' ').replace('\n', ' ');
    return '"' + value + '"';
}

Result<QFile *> openFile(const QString &path, QObject *parent)
{
    auto file = std::make_unique<QFile>(path);
    if (!QFileInfo(path).isFile() || !file->open(QIODevice::ReadOnly)) {
        return Result<QFile *>::failure(
            Tr::tr("the body file %1 cannot be read: %2")
                .arg(QDir::toNativeSeparators(path),
                    QFileInfo::exists(path) ? file->errorString() : Tr::tr("it does not exist")));
    }
    file->setParent(parent);
    return file.release();
}

} // namespace

Result<Opened> open(const BodySource &source, QObject *parent)
{
    Opened opened;
    switch (source.kind) {
    case BodySource::Kind::Inline:
        return opened;
    case BodySource::Kind::File: {
        auto file = openFile(source.filePath, parent);
        if (!file)
            return file.errorDetail();
        opened.device = *file;
        opened.size = (*file)->size();
        return opened;
    }
    case BodySource::Kind::Multipart: {
        auto multipart = std::make_unique<QHttpMultiPart>(QHttpMultiPart::FormDataType);
        for (const FormPart &part : source.parts) {
            QHttpPart http;
            QByteArray disposition = "form-data; name=" + quotedParameter(part.name);
            if (part.isFile()) {
                const QByteArray fileName
                    = part.fileName.isEmpty() ? QFileInfo(part.filePath).fileName().toUtf8() : part.fileName;
                disposition += "; filename=" + quotedParameter(fileName);
                // Opened now and owned by the multipart body: Qt reads it as it sends.
                auto file = openFile(part.filePath, multipart.get());
                if (!file)
                    return file.errorDetail();
                http.setBodyDevice(*file);
                http.setHeader(QNetworkRequest::ContentTypeHeader,
                    part.contentType.isEmpty() ? QByteArray("application/octet-stream") : part.contentType);
            } else {
                http.setBody(part.value);
                if (!part.contentType.isEmpty())
                    http.setHeader(QNetworkRequest::ContentTypeHeader, part.contentType);
            }
            http.setRawHeader(QByteArrayLiteral("Content-Disposition"), disposition);
            multipart->append(http);
        }
        multipart->setParent(parent);
        opened.multipart = multipart.release();
        return opened;
    }
    }
    return opened;
}

} // namespace RetryLab::Core::StreamedBody
