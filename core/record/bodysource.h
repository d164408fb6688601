#pragma once

#include "core/util/result.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace RetryLab::Core {

/// One part of a multipart/form-data body, as curl's -F gives it: a field
/// (`name=value`) or a file (`name=@path;type=text/plain;filename=x.txt`).
struct FormPart
{
    QByteArray name;
    QByteArray value; ///< a field's value; empty for a file
    QString filePath; ///< a file's path; empty for a field
    QByteArray fileName; ///< the name sent for a file; empty: the path's last part
    QByteArray contentType; ///< the part's Content-Type; empty: none for a field, Qt's guess is not made

    bool isFile() const { return !filePath.isEmpty(); }
    friend bool operator==(const FormPart &, const FormPart &) = default;
};

/// Where a request's body comes from when it is not held in RequestSpec::body:
/// a file read as it is sent (curl's -T FILE and --data-binary @FILE), or the
/// parts of a multipart/form-data body (-F), files among them read as they are
/// sent. The executor opens the files again for every attempt and every
/// redirect that repeats the body, so that a retry sends the whole body again.
struct BodySource
{
    enum class Kind {
        Inline, ///< RequestSpec::body, held in memory (the default)
        File, ///< filePath, streamed
        Multipart, ///< parts, as multipart/form-data
    };
    Kind kind = Kind::Inline;
    QString filePath;
    QList<FormPart> parts;

    bool isInline() const { return kind == Kind::Inline; }
    /// A file that is named cannot be read now: the sentence names it (nothing
    /// when every file is a readable regular file).
    Result<void> checkFiles() const;
    /// What the body is, for records and logs: "file /tmp/a.bin (2048 bytes)",
    /// "multipart/form-data: name, upload=@/tmp/a.txt".
    QString description() const;

    friend bool operator==(const BodySource &, const BodySource &) = default;
};

} // namespace RetryLab::Core
