#pragma once

#include "core/history/storedcheck.h"
#include "core/record/runrecord.h"

namespace RetryLab::Core {

struct Monitor;

/// One check of a monitor's history as a run of one logical request
/// (requestId 1), for the run views: the timeline, the attempt inspector and
/// the statistics show it as if it had just been sent.
///
/// Only what the history kept is carried over; what it did not keep stays as
/// a record says "unknown" (a phase Qt did not report stays -1, a Qt error,
/// TLS, headers of the answer, a success's body are absent). Wall times map
/// back exactly: run.wallTimeOf(attempt.startNs) is the stored start, to the
/// millisecond, and storedAttemptOf() of every attempt gives back the stored
/// attempt. Two things are placed, not known: the history keeps one delay per
/// attempt (what the timer gave), so the planned delay before an attempt and
/// the delay after the one before it are that delay too; and it keeps the
/// connect phase as a length, which starts where the attempt starts.
///
/// `monitor`, when given, supplies the request (method, URL as written,
/// headers, body, conditions) and Monitor::checkPolicy(); without it the
/// request is a GET without URL labelled with the monitor's name, under
/// singleAttemptPolicy(). A URL with {id} keeps the placeholder: the key each
/// check sent is not kept.
RunRecord runRecordOf(const StoredCheck &check, const Monitor *monitor = nullptr);

} // namespace RetryLab::Core
