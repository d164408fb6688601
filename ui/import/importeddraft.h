#pragma once

#include "core/collections/requestdraft.h"
#include "core/import/importedrequest.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Ui {

/// An imported request as the composer can hold it, and what did not fit.
///
/// The composer holds text (method, URL, headers, a UTF-8 body, or a form, a
/// multipart form with files or a file's path) and the
/// per-request options with the transport (TLS, proxy, HTTP version); what an
/// import brings beyond that (a binary body, certificate errors to ignore, more
/// headers than the table takes) is said in `notes` rather than dropped silently. The batch and repeat settings are the
/// composer's own and stay as they were.
struct ImportedDraft
{
    Core::RequestDraft draft;
    QStringList notes;

    static ImportedDraft from(const Core::ImportedRequest &request, const Core::RequestDraft &base = {});
    /// "GET https://example.com/x" or the source's name with it, for lists.
    static QString title(const Core::ImportedRequest &request);
};

} // namespace RetryLab::Ui
