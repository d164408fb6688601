#include "core/import/importbody.h"

#include <QCryptographicHash>
#include <QUrl>

namespace RetryLab::Core::ImportBody {

namespace {

QByteArray formComponent(const QString &text)
{
    QByteArray encoded = QUrl::toPercentEncoding(text, QByteArrayLiteral("*-._ "));
    encoded.replace(' ', '+');
    return encoded;
}

// A quoted-string of a Content-Disposition parameter: quotes and line breaks
// escaped as browsers do (the HTML standard's form-data encoding).
QByteArray dispositionValue(const QString &text)
{
    QByteArray bytes = text.toUtf8();
    bytes.replace('"', "%22");
    bytes.replace('\r', "%0D");
    bytes.replace('\n', "%0A");
    return bytes;
}

} // namespace

QByteArray urlEncoded(const QList<QPair<QString, QString>> &fields)
{
    QByteArray body;
    for (const auto &[name, value] : fields) {
        if (!body.isEmpty())
            body += '&';
        body += formComponent(name) + '=' + formComponent(value);
    }
    return body;
}

Multipart multipart(const QList<FormField> &fields)
{
    QCryptographicHash hash(QCryptographicHash::Sha1);
    for (const FormField &field : fields) {
        hash.addData(field.name.toUtf8());
        hash.addData(QByteArrayView("\0", 1));
        hash.addData(field.value.toUtf8());
        hash.addData(QByteArrayView("\0", 1));
    }
    QByteArray seed = hash.result();
    QByteArray boundary;
    for (;;) {
        boundary = QByteArrayLiteral("----RetryLabFormBoundary") + seed.toHex().left(16);
        bool clash = false;
        for (const FormField &field : fields)
            clash = clash || field.value.toUtf8().contains(boundary) || field.name.toUtf8().contains(boundary);
        if (!clash)
            break;
        seed = QCryptographicHash::hash(seed, QCryptographicHash::Sha1);
    }

    Multipart out;
    for (const FormField &field : fields) {
        out.body += "--" + boundary + "\r\n";
        out.body += "Content-Disposition: form-data; name=\"" + dispositionValue(field.name) + "\"\r\n";
        if (!field.contentType.isEmpty())
            out.body += "Content-Type: " + field.contentType.toUtf8() + "\r\n";
        out.body += "\r\n" + field.value.toUtf8() + "\r\n";
    }
    out.body += "--" + boundary + "--\r\n";
    out.contentType = "multipart/form-data; boundary=" + boundary;
    return out;
}

} // namespace RetryLab::Core::ImportBody
