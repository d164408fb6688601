#include "core/runner/brufile.h"

#include "core/util/coretr.h"

#include <QLoggingCategory>
#include <QPair>
#include <QRegularExpression>
#include <QSet>

namespace RetryLab::Core {

Q_LOGGING_CATEGORY(lcBruFile, "retrylab.core.brufile")

namespace {

// Bruno's own parser (an ohm grammar) decides a block's shape by its name; so do we.
const QSet<QString> &bruTextBlocks()
{
    static const QSet<QString> names{
        QStringLiteral("body:json"),
        QStringLiteral("body:text"),
        QStringLiteral("body:xml"),
        QStringLiteral("body:sparql"),
        QStringLiteral("body:graphql"),
        QStringLiteral("body:graphql:vars"),
        QStringLiteral("script:pre-request"),
        QStringLiteral("script:post-response"),
        QStringLiteral("tests"),
        QStringLiteral("docs"),
        QStringLiteral("body"),
        QStringLiteral("example"),
    };
    return names;
}

const QSet<QString> &bruDictionaryBlocks()
{
    static const QSet<QString> names{
        QStringLiteral("meta"),
        QStringLiteral("headers"),
        QStringLiteral("query"),
        QStringLiteral("params:query"),
        QStringLiteral("params:path"),
        QStringLiteral("auth"),
        QStringLiteral("auth:basic"),
        QStringLiteral("auth:bearer"),
        QStringLiteral("auth:apikey"),
        QStringLiteral("auth:digest"),
        QStringLiteral("auth:awsv4"),
        QStringLiteral("auth:ntlm"),
        QStringLiteral("auth:oauth2"),
        QStringLiteral("auth:wsse"),
        QStringLiteral("body:form-urlencoded"),
        QStringLiteral("body:multipart-form"),
        QStringLiteral("body:file"),
        QStringLiteral("vars"),
        QStringLiteral("vars:pre-request"),
        QStringLiteral("vars:post-response"),
        QStringLiteral("assert"),
        QStringLiteral("settings"),
        QStringLiteral("app"),
        QStringLiteral("metadata"),
        QStringLiteral("http"),
        QStringLiteral("grpc"),
        QStringLiteral("ws"),
        QStringLiteral("body:grpc"),
        QStringLiteral("body:ws"),
        QStringLiteral("auth:oauth1"),
        QStringLiteral("auth:akamai-edgegrid"),
    };
    return names;
}

qsizetype bruIndentOf(const QString &line)
{
    qsizetype indent = 0;
    while (indent < line.size() && (line.at(indent) == QLatin1Char(' ') || line.at(indent) == QLatin1Char('\t')))
        ++indent;
    return indent;
}

bool bruIsBlank(const QString &line)
{
    return line.trimmed().isEmpty();
}

// Lines [first, end) of `lines` without the blank lines around them, shifted left
// by their common indentation; `firstLine` becomes the file line (1-based) of the
// first kept one.
QString bruOutdented(const QStringList &lines, qsizetype first, qsizetype end, int &firstLine)
{
    firstLine = int(first) + 1;
    while (first < end && bruIsBlank(lines.at(first))) {
        ++first;
        ++firstLine;
    }
    while (end > first && bruIsBlank(lines.at(end - 1)))
        --end;
    if (first == end)
        return {};
    qsizetype indent = std::numeric_limits<qsizetype>::max();
    for (qsizetype i = first; i < end; ++i) {
        if (!bruIsBlank(lines.at(i)))
            indent = std::min(indent, bruIndentOf(lines.at(i)));
    }
    QStringList kept;
    for (qsizetype i = first; i < end; ++i)
        kept.append(bruIsBlank(lines.at(i)) ? QString() : lines.at(i).mid(indent));
    return kept.join(QLatin1Char('\n'));
}

class BruParser
{
public:
    BruParser(const QString &text, const QString &place) : m_place(place)
    {
        m_lines = text.split(QLatin1Char('\n'));
        for (QString &line : m_lines) {
            if (line.endsWith(QLatin1Char('\r')))
                line.chop(1);
        }
    }

    Result<QList<BruFile::Block>> blocks()
    {
        static const QRegularExpression opening(
            QStringLiteral(R"(^([A-Za-z][A-Za-z0-9_:-]*)\s*([{\[])\s*([}\]]?)\s*$)"));
        QList<BruFile::Block> blocks;
        qsizetype i = 0;
        while (i < m_lines.size()) {
            const QString line = m_lines.at(i).trimmed();
            if (line.isEmpty()) {
                ++i;
                continue;
            }
            const QRegularExpressionMatch match = opening.match(line);
            if (!match.hasMatch())
                return fail(i, Tr::tr("a line outside any block: \"%1\"").arg(shortened(line)));
            BruFile::Block block;
            block.name = match.captured(1);
            block.line = int(i) + 1;
            const std::optional<BruFile::Shape> shape = BruFile::shapeOf(block.name);
            if (!shape)
                return fail(i, Tr::tr("unknown block \"%1\"").arg(block.name));
            block.shape = *shape;
            const bool list = match.captured(2) == QLatin1String("[");
            if (list != (block.shape == BruFile::Shape::List)) {
                return fail(i,
                    Tr::tr("block %1 opens with \"%2\"; it takes \"%3\"")
                        .arg(block.name, match.captured(2), list ? QStringLiteral("{") : QStringLiteral("[")));
            }
            if (!match.captured(3).isEmpty()) {
                block.textLine = block.line;
                blocks.append(block);
                ++i;
                continue;
            }
            Result<qsizetype> end = readBlock(i, block);
            if (!end)
                return end.errorDetail();
            blocks.append(block);
            i = *end + 1;
        }
        return blocks;
    }

private:
    static QString shortened(const QString &line)
    {
        return line.size() > 60 ? line.left(57) + QStringLiteral("...") : line;
    }

    Error error(qsizetype index, const QString &message) const
    {
        return Error{m_place + QLatin1Char(':') + QString::number(index + 1), message};
    }
    Result<QList<BruFile::Block>> fail(qsizetype index, const QString &message) const { return error(index, message); }

    // Reads the block opened at `open`; gives the index of its closing line.
    Result<qsizetype> readBlock(qsizetype open, BruFile::Block &block)
    {
        switch (block.shape) {
        case BruFile::Shape::Text:
            return readText(open, block);
        case BruFile::Shape::List:
            return readList(open, block);
        case BruFile::Shape::Dictionary:
            return readDictionary(open, block);
        }
        return error(open, Tr::tr("unclosed block %1").arg(block.name));
    }

    // As Bruno's grammar: the text ends at a "}" that starts a line; an indented
    // "}" belongs to the text (a JSON body, a script).
    Result<qsizetype> readText(qsizetype open, BruFile::Block &block)
    {
        for (qsizetype i = open + 1; i < m_lines.size(); ++i) {
            const QString &line = m_lines.at(i);
            if (line.startsWith(QLatin1Char('}')) && line.trimmed() == QLatin1String("}")) {
                block.text = bruOutdented(m_lines, open + 1, i, block.textLine);
                return i;
            }
        }
        return error(open, Tr::tr("unclosed block %1").arg(block.name));
    }

    Result<qsizetype> readList(qsizetype open, BruFile::Block &block)
    {
        for (qsizetype i = open + 1; i < m_lines.size(); ++i) {
            const QString line = m_lines.at(i).trimmed();
            if (line == QLatin1String("]"))
                return i;
            for (QString name : line.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
                name = name.trimmed();
                if (name.isEmpty())
                    continue;
                BruFile::Entry entry;
                entry.enabled = !name.startsWith(QLatin1Char('~'));
                entry.key = entry.enabled ? name : name.mid(1).trimmed();
                entry.line = int(i) + 1;
                block.entries.append(entry);
            }
        }
        return error(open, Tr::tr("unclosed block %1").arg(block.name));
    }

    // The index of the first line from `from` whose trimmed text starts with
    // `marker`, or the number of lines.
    qsizetype lineStartingWith(qsizetype from, QLatin1String marker) const
    {
        while (from < m_lines.size() && !m_lines.at(from).trimmed().startsWith(marker))
            ++from;
        return from;
    }

    // A "quoted key" (Bruno writes keys with blanks or colons so): its text and
    // the rest of the line after it, or nothing when the quote is not closed.
    static std::optional<QPair<QString, QString>> quotedKey(const QString &line)
    {
        QString key;
        for (qsizetype i = 1; i < line.size(); ++i) {
            const QChar c = line.at(i);
            if (c == QLatin1Char('\\') && i + 1 < line.size() && line.at(i + 1) == QLatin1Char('"')) {
                key += QLatin1Char('"');
                ++i;
            } else if (c == QLatin1Char('"')) {
                return QPair<QString, QString>(key, line.mid(i + 1));
            } else {
                key += c;
            }
        }
        return std::nullopt;
    }

    Result<qsizetype> readDictionary(qsizetype open, BruFile::Block &block)
    {
        static const QLatin1String tripleQuote("'''");
        static const QRegularExpression blank(QStringLiteral(R"(\s)"));
        for (qsizetype i = open + 1; i < m_lines.size(); ++i) {
            QString line = m_lines.at(i).trimmed();
            if (line.isEmpty())
                continue;
            if (line == QLatin1String("}"))
                return i;
            if (line.startsWith(QLatin1Char('@'))) {
                // An annotation of the next entry (@description, @number): not used.
                // Its ''' argument may run over several lines.
                if (line.count(tripleQuote) == 1) {
                    i = lineStartingWith(i + 1, tripleQuote);
                    if (i == m_lines.size())
                        return error(open, Tr::tr("unclosed block %1").arg(block.name));
                }
                continue;
            }
            BruFile::Entry entry;
            entry.line = int(i) + 1;
            entry.enabled = !line.startsWith(QLatin1Char('~'));
            if (!entry.enabled)
                line = line.mid(1);
            QString rest;
            if (line.startsWith(QLatin1Char('"'))) {
                const auto quoted = quotedKey(line);
                if (quoted && quoted->second.trimmed().startsWith(QLatin1Char(':'))) {
                    entry.key = quoted->first;
                    rest = quoted->second.trimmed().mid(1);
                }
            } else if (const qsizetype colon = line.indexOf(QLatin1Char(':')); colon > 0) {
                entry.key = line.left(colon).trimmed();
                rest = line.mid(colon + 1);
                // As Bruno's grammar: a key holds no blanks ("url http://x" is no
                // "url"), but an assert's left side may ("res.body['a b']").
                if (block.name != QLatin1String("assert") && entry.key.contains(blank))
                    entry.key.clear();
            }
            if (entry.key.isEmpty()) {
                return error(
                    i, Tr::tr("expected \"name: value\" in block %1, not \"%2\"").arg(block.name, shortened(line)));
            }
            entry.value = rest.trimmed();
            if (entry.value.startsWith(tripleQuote)) {
                const qsizetype closing = entry.value.indexOf(tripleQuote, 3);
                if (closing > 0) {
                    entry.value = entry.value.mid(3, closing - 3);
                } else {
                    // Bruno's multi-line value: up to a line that starts with '''.
                    const qsizetype end = lineStartingWith(i + 1, tripleQuote);
                    if (end == m_lines.size())
                        return error(i, Tr::tr("unclosed ''' value of %1 in block %2").arg(entry.key, block.name));
                    int firstLine = 0;
                    entry.value = bruOutdented(m_lines, i + 1, end, firstLine);
                    i = end;
                }
            } else if (entry.value == QLatin1String("[")) {
                // A list value (meta's tags): its items, one a line.
                const qsizetype end = lineStartingWith(i + 1, QLatin1String("]"));
                if (end == m_lines.size())
                    return error(i, Tr::tr("unclosed list value of %1 in block %2").arg(entry.key, block.name));
                QStringList items;
                for (qsizetype item = i + 1; item < end; ++item) {
                    if (!bruIsBlank(m_lines.at(item)))
                        items.append(m_lines.at(item).trimmed());
                }
                entry.value = items.join(QLatin1Char('\n'));
                i = end;
            }
            block.entries.append(entry);
        }
        return error(open, Tr::tr("unclosed block %1").arg(block.name));
    }

    QString m_place;
    QStringList m_lines;
};

} // namespace

QString BruFile::Block::value(const QString &key) const
{
    const Entry *found = entry(key);
    return found ? found->value : QString();
}

const BruFile::Entry *BruFile::Block::entry(const QString &key) const
{
    for (const Entry &candidate : entries) {
        if (candidate.enabled && candidate.key == key)
            return &candidate;
    }
    return nullptr;
}

Result<BruFile> BruFile::parse(const QString &text, const QString &place)
{
    BruParser parser(text, place);
    Result<QList<Block>> blocks = parser.blocks();
    if (!blocks) {
        qCDebug(lcBruFile) << "refused" << blocks.error();
        return blocks.errorDetail();
    }
    BruFile file;
    file.m_place = place;
    file.m_blocks = std::move(blocks).value();
    return file;
}

std::optional<BruFile::Shape> BruFile::shapeOf(const QString &name)
{
    if (bruTextBlocks().contains(name))
        return Shape::Text;
    if (name == QLatin1String("vars:secret"))
        return Shape::List;
    // OAuth 2's extra parameters: auth:oauth2:additional_params:auth_req:headers...
    if (bruDictionaryBlocks().contains(name) || methods().contains(name)
        || name.startsWith(QLatin1String("auth:oauth2:additional_params:")))
        return Shape::Dictionary;
    return std::nullopt;
}

const QStringList &BruFile::methods()
{
    static const QStringList names{QStringLiteral("get"), QStringLiteral("post"), QStringLiteral("put"),
        QStringLiteral("patch"), QStringLiteral("delete"), QStringLiteral("options"), QStringLiteral("head"),
        QStringLiteral("connect"), QStringLiteral("trace")};
    return names;
}

const BruFile::Block *BruFile::block(const QString &name) const
{
    for (const Block &candidate : m_blocks) {
        if (candidate.name == name)
            return &candidate;
    }
    return nullptr;
}

QString BruFile::where(int line) const
{
    return m_place + QLatin1Char(':') + QString::number(line);
}

} // namespace RetryLab::Core
