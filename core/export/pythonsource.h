#pragma once

#include "core/export/sourcetext.h"
#include "core/policy/backoffpolicy.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// The pieces the Python exports (tenacity, urllib3, botocore) share: Python
/// literals written safely from any text, and the notes every Python target
/// shares (circuit breaker, retry budget, per-fault delay factors).
namespace PythonSource {

/// Exported Python code and what the target library cannot express, one sentence each.
using Code = SourceText::Code;

/// `text` as a single-quoted Python literal; quotes, backslashes and control
/// characters escaped, so no value can end the string or the line.
QString stringLiteral(const QString &text);

/// Milliseconds as Python seconds, shortest form: 50 -> "0.05", 20000 -> "20".
QString seconds(double milliseconds);

/// A plain number in its shortest form: 2 -> "2", 1.5 -> "1.5".
QString number(double value);

/// Statuses as a Python set, runs of five or more written as ranges:
/// {408, 429, *range(500, 600)}; "set()" when there is none.
QString statusSet(QList<int> statuses);

/// `text` as one `# ` comment line (SourceText::comment).
QString comment(const QString &text);

/// A program's `URL = ...` line: its first command-line argument, else `url`.
QString urlLine(const QString &url);

/// The end of a program sending one GET with requests: main() makes the request
/// with `call` ("get(URL)"), reports `exceptions` ("requests.RequestException")
/// on standard error and returns 1, else prints the status and returns 0 below
/// 400; then the `__main__` guard.
QString requestsMain(const QString &call, const QString &exceptions);

/// The `if __name__ == '__main__':` guard that exits with main()'s status.
QString mainGuard();

/// The policy's statuses, sorted.
QList<int> sortedStatuses(const BackoffPolicy &policy);

/// True when the policy gives up on that network fault class.
bool givesUp(const BackoffPolicy &policy, NetworkFaultClass fault);

/// Notes for what no Python target here has: a circuit breaker, per-fault delay
/// factors, immediate retries of some faults, 409 ABORTED restarts.
/// `library` names the target in the sentences.
QStringList commonNotes(const BackoffPolicy &policy, const QString &library);

} // namespace PythonSource

} // namespace RetryLab::Core
