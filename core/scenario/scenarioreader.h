#pragma once

#include "core/scenario/scenario.h"
#include "core/util/jsonreader.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// Reads scenario files (format "retrylab-scenario", version 1). A file that
/// is not valid JSON is refused with its line and column; a field of the wrong
/// type, an impossible value or an unknown field is refused with the field's
/// path ("requests[2].url: ..."). Nothing is guessed and nothing is ignored.
/// The format is described in docs/files.md; resources/scenarios/ holds examples.
namespace ScenarioReader {

inline constexpr int formatVersion = 1;
inline constexpr char formatName[] = "retrylab-scenario";

/// Limits beyond which a file is refused rather than run.
inline constexpr int maxRequestEntries = 1000;
inline constexpr int maxTotalRequests = 100'000;
inline constexpr int maxConcurrency = 1000;
inline constexpr qint64 maxFileBytes = 16 * 1024 * 1024;

Result<Scenario> fromJson(const QByteArray &json);
/// Reads a file (Qt resource paths such as ":/scenarios/x.json" too). The
/// error starts with the file name; a scenario without a name takes the file's.
Result<Scenario> readFile(const QString &path);

/// Reads the fields of one request entry of a scenario's "requests" from `entry`
/// (an object reader), into `request`, with the same rules and errors; other
/// formats made of request entries (monitors files) allow their own fields
/// beside them in `extraKeys` and read those themselves. False when it failed
/// (the error is in `entry`'s reader). The uniqueness of names is the caller's.
bool readRequestEntry(JsonReader &entry, ScenarioRequest &request, const QStringList &extraKeys = {});

/// The scenarios shipped in resources/scenarios/, as resource paths, sorted.
QStringList builtInScenarios();

} // namespace ScenarioReader

} // namespace RetryLab::Core
