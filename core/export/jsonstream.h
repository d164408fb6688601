#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <functional>

QT_BEGIN_NAMESPACE
class QIODevice;
QT_END_NAMESPACE

namespace RetryLab::Core {

/// Writes a JSON document whose large arrays are produced element by element,
/// so that an export of 100,000 attempts holds one attempt's JSON at a time,
/// not the whole document. The bytes are exactly those of
/// QJsonDocument(document).toJson(QJsonDocument::Indented) with the arrays
/// filled in: readers, diffs and tests see no difference.
namespace JsonStream {

/// One array of the document that is written as it is produced.
struct StreamedArray
{
    /// The keys leading to it: {"attempts"} at the top, {"log", "entries"} in a HAR.
    QStringList path;
    /// Calls `emit` once per element, in order; false to give up (the writer
    /// also stops when the device fails).
    std::function<bool(const std::function<bool(const QJsonObject &)> &emit)> produce;
};

/// `skeleton` holds each streamed array as an empty array at its path.
bool write(QIODevice &device, const QJsonObject &skeleton, const QList<StreamedArray> &arrays);

/// The same, into memory (for toJson()).
QByteArray toJson(const QJsonObject &skeleton, const QList<StreamedArray> &arrays);

} // namespace JsonStream

} // namespace RetryLab::Core
