#pragma once

#include "core/http/httpheaders.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

struct AttemptRecord;

/// Rules that take values from a response into variables of a run, as a
/// collection runner chains requests (a login's token into the next request's
/// Authorization). Each rule names the variable and where its value is:
///   {"name": "token", "from": "jsonPointer", "pointer": "/access_token"}
///   {"name": "etag", "from": "header", "header": "ETag"}
///   {"name": "id", "from": "regex", "pattern": "id=(\\d+)"}
///   {"name": "code", "from": "status"}
/// A JSON string is taken as it is, any other JSON value as compact JSON; a
/// header's first value (its name compared case-insensitively); a regular
/// expression's first capture group, else its whole match, over the body as
/// UTF-8. A rule that finds nothing sets nothing and says so in a sentence:
/// a variable is never silently set to an empty value.
class ResponseVariables final
{
public:
    struct Rule
    {
        enum class Source { JsonPointer, Header, Regex, Status };
        /// The variable it sets (Variables::isValidName).
        QString name;
        Source from = Source::JsonPointer;
        /// For JsonPointer: RFC 6901 ("" is the whole body).
        QString pointer;
        /// For Header: the field's name.
        QString header;
        /// For Regex: a Perl-compatible expression (QRegularExpression).
        QString pattern;

        friend bool operator==(const Rule &, const Rule &) = default;
    };

    /// What applying the rules gave.
    struct Outcome
    {
        /// The variables set, by name; a later rule replaces an earlier one's value.
        QHash<QString, QString> values;
        /// One sentence per rule that found nothing, in the rules' order
        /// ("token: /access_token is not in the body").
        QStringList problems;

        bool complete() const { return problems.isEmpty(); }
    };

    ResponseVariables() = default;
    explicit ResponseVariables(QList<Rule> rules) : m_rules(std::move(rules)) { }

    const QList<Rule> &rules() const { return m_rules; }
    bool isEmpty() const { return m_rules.isEmpty(); }

    static QString sourceName(Rule::Source source);

    /// The rules of a JSON array (`path` names it in errors: "requests[2].set"),
    /// or the first error, at its place ("[1].pointer").
    static Result<ResponseVariables> fromJson(const QJsonArray &array, const QString &path = {});
    /// One rule, or the first error at its place under `path`.
    static Result<Rule> ruleFromJson(const QJsonObject &object, const QString &path = {});
    QJsonArray toJson() const;
    static QJsonObject ruleToJson(const Rule &rule);

    /// The rules applied to one response: its status (none when no response
    /// came), its headers and its body bytes.
    Outcome apply(std::optional<int> status, const HeaderList &headers, const QByteArray &body) const;
    /// The same for an attempt's response; a body the record holds only in
    /// part (responseBodyTruncated) is said to be so when a rule finds nothing in it.
    Outcome apply(const AttemptRecord &attempt) const;

private:
    QList<Rule> m_rules;
};

} // namespace RetryLab::Core
