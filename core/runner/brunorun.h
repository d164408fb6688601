#pragma once

#include "core/runner/runcollection.h"
#include "core/util/result.h"

#include <QString>

namespace RetryLab::Core {

/// A Bruno collection folder (https://docs.usebruno.com) read as a collection
/// to run, for `retrylab run FOLDER`.
///
/// - bruno.json at the root names it (a folder without one is refused);
///   its `ignore` folders are skipped, as are hidden ones and node_modules.
/// - Each folder is a RunItem folder; its folder.bru, when present, gives its
///   name, seq, auth and scripts. collection.bru gives the collection's auth,
///   scripts and variables (vars:pre-request). Items are ordered by meta.seq
///   (those without one last), then by name.
/// - The headers and vars:pre-request of collection.bru and of the folders are
///   copied into each request below them, outermost first (a request's own
///   header replaces one of the same name), as Bruno sends them.
/// - Each other .bru file is a request (gRPC and WebSocket ones are listed in
///   `ignored` and left out): method (`http { method: PURGE }` too), url (params:path filled in),
///   headers (disabled ones kept, disabled), body by the request's body mode
///   (json, text, xml, sparql, form-urlencoded, multipart-form, graphql; with
///   its Content-Type unless a header sets one), auth (inherit, none, basic,
///   bearer, apikey), vars:pre-request as RunItem::variables.
/// - Scripts keep their file and line (RunScript::place, firstLine):
///   script:pre-request is the pre-request script; the test script is
///   `bru.setVar(...)` for each vars:post-response entry, then
///   script:post-response, then tests, then the assert entries as test()
///   calls (BrunoAssert), except `res.status: eq N`, which becomes an
///   Assertion. Blank lines keep the file's line numbers where they can.
/// - {{variables}} stay as written; {{process.env.X}} too, and is listed in
///   RunCollection::ignored, as are docs, other auth modes, file fields and
///   bodies and secret environment variables, each with file:line.
/// - environments/*.bru are RunCollection::environments (their enabled `vars`).
///
/// Errors name the file and line: "users/create.bru:12: unclosed block body:json".
namespace BrunoRun {

/// Files above this size are refused before they are read.
inline constexpr qint64 maxFileBytes = qint64(16) * 1024 * 1024;

Result<RunCollection> readFolder(const QString &dir);

} // namespace BrunoRun

} // namespace RetryLab::Core
