#pragma once

#include "core/collections/requestdraft.h"
#include "core/util/jsonreader.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// The request of one Postman collection item (v2.0 or v2.1) as the draft
/// `retrylab run` sends, its texts keeping their {{variables}} for the runner
/// to fill in at send time (after the pre-request scripts, as Postman does).
///
/// - `request` may be a URL string (sent with GET) or an object; its `url` a
///   string or an object (`raw`, or `protocol`/`host`/`port`/`path`/`query`/
///   `hash`, as Postman's own library assembles it). Path variables (`:id`)
///   are replaced from `url.variable` as written; disabled query parameters
///   and headers are left out; `header` may also be "Name: value" lines.
/// - Bodies: raw (with the Content-Type its `options.raw.language` implies
///   when the request sets none), urlencoded (encoded as a form, the
///   {{variables}} left as they are), form-data text fields as
///   multipart/form-data, GraphQL as JSON. Files (form-data file fields, a
///   file body) are not sent: they are listed in `ignored` with their place.
///
/// Errors go to the item's reader, at their place ("item[1].request.url: missing").
namespace PostmanRunRequest {

/// The draft of `item`'s `request`; nothing when the reader failed. `ignored`
/// gets what the request holds that is not sent, each with its place.
std::optional<RequestDraft> read(JsonReader &item, QStringList &ignored);

} // namespace PostmanRunRequest

} // namespace RetryLab::Core
