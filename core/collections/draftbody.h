#pragma once

#include "core/record/bodysource.h"
#include "core/util/jsonreader.h"
#include "core/util/result.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <functional>

namespace RetryLab::Core {

/// One row of the composer's form: a field (`name=value`) or, in a multipart
/// form, a file read as the request is sent. Texts may hold placeholders.
struct DraftFormField
{
    QString name;
    QString value; ///< a field's value; empty for a file
    QString filePath; ///< a file's path; empty for a field
    QString fileName; ///< the name sent for a file; empty: the path's last part
    QString contentType; ///< a file part's Content-Type; empty: none
    bool enabled = true;

    bool isFile() const { return !filePath.isEmpty(); }
    friend bool operator==(const DraftFormField &, const DraftFormField &) = default;
};

/// Where the body of a RequestDraft comes from when it is not the text typed in
/// RequestDraft::body: form fields sent URL-encoded, a multipart/form-data form
/// with fields and files, or a file read from disk for every attempt (never held
/// in memory or in the saved request, which keeps its path only).
struct DraftBody
{
    enum class Mode {
        Raw, ///< RequestDraft::body as typed
        UrlEncoded, ///< fields, as application/x-www-form-urlencoded
        Multipart, ///< fields and files, as multipart/form-data
        File, ///< filePath, streamed
    };
    static constexpr int maxFields = 200;

    Mode mode = Mode::Raw;
    QList<DraftFormField> fields;
    QString filePath;

    bool isRaw() const { return mode == Mode::Raw; }
    /// "raw", "urlencoded", "multipart", "file": the spelling of saved requests.
    static QString modeName(Mode mode);
    /// The enabled fields with a name (a row left blank is not sent).
    QList<DraftFormField> sentFields() const;
    /// Every text that may hold a placeholder, in turn (names, values, paths).
    void forEachText(const std::function<void(QString &)> &visit);

    /// The saved form: {"mode", "fields": [...], "file"}; nothing for Raw. Values
    /// of fields with a credential's name are masked unless `keepCredentials`.
    QJsonObject toJson(bool keepCredentials) const;
    /// Reads toJson()'s form under `reader`'s key "bodyFrom"; errors name the field.
    static DraftBody read(JsonReader &reader);

    /// A RequestSpec's body that is not inline, as the composer holds it.
    static DraftBody fromSource(const BodySource &source);

    /// The body for a RequestSpec, once the placeholders are expanded: the
    /// URL-encoded text (UrlEncoded) or the BodySource (Multipart, File). The
    /// error says which row or file is wrong: a file in a URL-encoded form, a file
    /// that cannot be read, a form without fields.
    Result<QByteArray> encodedForm() const;
    Result<BodySource> source() const;

    friend bool operator==(const DraftBody &, const DraftBody &) = default;
};

} // namespace RetryLab::Core
