#pragma once

#include "core/util/result.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// The blocks of one file in Bruno's .bru markup (a request, folder.bru,
/// collection.bru or an environment), as written: nothing is interpreted
/// beyond the block's shape, which its name decides.
///
/// - Dictionary blocks (`meta`, `get`, `headers`, `auth:bearer`, `vars`, `assert`...)
///   hold `key: value` lines; a `~` before the key disables the entry, a
///   "quoted key" may hold blanks and colons (an assert's key may hold blanks
///   unquoted), a value of `'''` goes on to a line starting with `'''`, one of
///   `[` to a line starting with `]`; `@annotation(...)` lines are skipped.
/// - Text blocks (`body:json`, `script:pre-request`, `tests`, `docs`...) keep
///   their inner text, de-indented by its common indentation, and the line
///   where that text begins; they end at a `}` at the start of a line.
/// - List blocks (`vars:secret [ a, b ]`) hold names.
///
/// Errors name the file and the line, as Error::path "users/create.bru:12"
/// ("unclosed block body:json", "unknown block \"fetch\"").
class BruFile final
{
public:
    enum class Shape { Dictionary, Text, List };

    struct Entry
    {
        QString key;
        QString value;
        bool enabled = true;
        int line = 0;
        friend bool operator==(const Entry &, const Entry &) = default;
    };

    struct Block
    {
        QString name;
        Shape shape = Shape::Dictionary;
        /// The line of its opening ("body:json {"), from 1.
        int line = 0;
        /// Dictionary and list blocks (a list's names are keys with empty values).
        QList<Entry> entries;
        /// Text blocks: the inner text, and the line where it begins (the line
        /// after the opening when the text is empty).
        QString text;
        int textLine = 0;

        /// The value of the first enabled entry named `key`, or an empty string.
        QString value(const QString &key) const;
        const Entry *entry(const QString &key) const;
        friend bool operator==(const Block &, const Block &) = default;
    };

    /// Reads `text`; `place` names the file in errors ("users/create.bru").
    static Result<BruFile> parse(const QString &text, const QString &place);
    /// The shape of a block Bruno writes, or nothing for a name it does not know.
    static std::optional<Shape> shapeOf(const QString &name);
    /// The request methods Bruno writes as blocks: get, post, put, ... (lower case).
    static const QStringList &methods();

    const QString &place() const { return m_place; }
    const QList<Block> &blocks() const { return m_blocks; }
    /// The first block named `name`, or null.
    const Block *block(const QString &name) const;
    /// "users/create.bru:12", for messages about what is at `line`.
    QString where(int line) const;

private:
    QString m_place;
    QList<Block> m_blocks;
};

} // namespace RetryLab::Core
