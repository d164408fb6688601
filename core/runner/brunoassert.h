#pragma once

#include "core/assertions/assertion.h"

#include <QString>

#include <optional>

namespace RetryLab::Core {

/// Bruno's declarative lines (an `assert` block's `res.body.id: isNumber`, a
/// `vars:post-response` block's `id: res.body.id`) as what the runner runs:
/// `res.status: eq 200` as an Assertion, every other one as a line of
/// Bruno-dialect JavaScript for the request's test script, which uses `test`,
/// `expect` (chai: eql, above, below, at.least, at.most, oneOf, include,
/// lengthOf, match, within, empty, null, undefined, ok, a/an, satisfy), `res`
/// and `bru.setVar/getVar/getEnvVar`.
///
/// The right-hand side is read as Bruno reads it: true, false, null,
/// undefined, numbers, JSON arrays and objects as such, "quoted" or 'quoted'
/// text as a string, anything else as a string; `in`, `notIn` and `between`
/// take comma-separated values. {{name}} in it is looked up when the test runs
/// (bru.getVar, else bru.getEnvVar), through the helpers of helperScript().
namespace BrunoAssert {

/// `res.status: eq 200` (or `res.status: 200`): a StatusEquals named "res.status: eq 200".
std::optional<Assertion> statusAssertion(const QString &lhs, const QString &rhs);
/// One line: test("res.body.name: isString", function () { expect(res.body.name).to.be.a("string"); });
QString testScript(const QString &lhs, const QString &rhs);
/// Whether a line of testScript() calls the helpers of helperScript().
bool needsHelpers(const QString &script);
/// One line defining __bruVar(name) and __bruValue(text), which the tests
/// with {{variables}} call.
QString helperScript();
/// One line: bru.setVar("id", res.body.id);
QString setVarScript(const QString &name, const QString &expression);
/// `text` as a JavaScript string literal, quoted.
QString jsString(const QString &text);

} // namespace BrunoAssert

} // namespace RetryLab::Core
