#pragma once

#include "core/record/bodysource.h"
#include "core/util/result.h"

#include <QByteArray>

QT_BEGIN_NAMESPACE
class QHttpMultiPart;
class QIODevice;
class QObject;
QT_END_NAMESPACE

namespace RetryLab::Core {

/// A request's BodySource opened for one hop on the wire: the file, or the
/// multipart/form-data body whose file parts read their files as Qt sends
/// them. Made anew for every attempt and every redirect that repeats the body:
/// a device Qt has read to its end cannot be sent again.
namespace StreamedBody {

struct Opened
{
    QIODevice *device = nullptr; ///< Kind::File: the file, open for reading
    QHttpMultiPart *multipart = nullptr; ///< Kind::Multipart
    qint64 size = -1; ///< the file's size (Kind::File)
};

/// Opens `source` (not Inline), everything a child of `parent`. A file that
/// cannot be opened fails with a sentence naming it; nothing is left behind.
Result<Opened> open(const BodySource &source, QObject *parent);

} // namespace StreamedBody

} // namespace RetryLab::Core
