#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/util/jsonreader.h"

#include <QString>

#include <optional>

namespace RetryLab::Core {

/// A policy as the files that hold one name it (scenarios, the monitors file
/// and its alert targets): a preset's id or name ("aws-standard"), a whole
/// policy object (PolicyJson), or a preset with some of its fields changed
/// ({"preset": "iam", "overrides": {"maxAttempts": 3}}). One reader, so that
/// every file takes the same three forms and refuses them in the same words.
namespace PolicyReference {

struct Read
{
    BackoffPolicy policy;
    /// Where the policy came from, for people: "preset iam", "inline",
    /// "preset iam with overrides: maxAttempts".
    QString origin;
};

/// Reads the policy at `key` of `reader`. A mistake is recorded in `reader`
/// with its path (a policy object's own paths nested under `key`) and gives
/// nothing; so does an absent key, an error only when it is Required.
std::optional<Read> read(JsonReader &reader, const JsonReader::Key &key, Presence presence = Presence::Required);

/// The ids of the presets, comma-separated, for messages.
QString presetList();

} // namespace PolicyReference

} // namespace RetryLab::Core
