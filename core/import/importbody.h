#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

namespace RetryLab::Core {

/// Request bodies that the importers build from fields (a HAR entry's
/// `postData.params`, a Postman urlencoded or form-data body), encoded as a
/// browser encodes a form, so that the server receives what the source tool sent.
namespace ImportBody {

/// application/x-www-form-urlencoded as browsers write it: UTF-8, letters,
/// digits and `*-._` as they are, a space as `+`, everything else `%XX`.
QByteArray urlEncoded(const QList<QPair<QString, QString>> &fields);

/// One text part of a multipart/form-data body.
struct FormField
{
    QString name;
    QString value;
    QString contentType; ///< empty: none written (text/plain for the server)
};

struct Multipart
{
    QByteArray body;
    QByteArray contentType; ///< multipart/form-data; boundary=...
};

/// multipart/form-data (RFC 7578). The boundary is derived from the content,
/// so that the same fields give the same bytes (tests, diffs), and is checked
/// not to occur in any value.
Multipart multipart(const QList<FormField> &fields);

} // namespace ImportBody

} // namespace RetryLab::Core
