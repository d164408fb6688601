#include "ui/request/assertiontablemodel.h"

#include "core/assertions/assertionjson.h"
#include "core/util/jsonreader.h"

#include <QColor>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace RetryLab::Ui {

using CheckKind = Core::Assertion::Kind;

namespace {

// A value as JSON text; through an array, because a document holds no bare scalar.
QString jsonTextOf(const QJsonValue &value)
{
    const QByteArray json = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(json.mid(1, json.size() - 2));
}

// The JSON value `text` is, or nothing when it is not JSON.
std::optional<QJsonValue> jsonValueOf(const QString &text, QJsonParseError *error = nullptr)
{
    QJsonParseError parseError{};
    const QJsonDocument document
        = QJsonDocument::fromJson(QByteArray('[' + text.toUtf8() + ']'), error ? error : &parseError);
    if (document.isNull() || document.array().size() != 1)
        return std::nullopt;
    return document.array().at(0);
}

// What is typed in "equals" of a pointer: JSON (7, true, "7", {"a":1}), or else plain
// text, taken as a string; and back: a string shown bare unless it would read as
// another value.
QJsonValue expectedValueOf(const QString &text)
{
    return jsonValueOf(text).value_or(QJsonValue(text));
}

QString expectedTextOf(const QJsonValue &value)
{
    if (value.isString() && !jsonValueOf(value.toString()))
        return value.toString();
    return jsonTextOf(value);
}

// A number field typed as text: the number, or the text for the reader to refuse.
QJsonValue numberOf(const QString &text)
{
    bool ok = false;
    const double number = text.toDouble(&ok);
    return ok ? QJsonValue(number) : QJsonValue(text);
}

// The keys of the file format each column fills, for a kind.
QString targetKey(CheckKind kind)
{
    switch (kind) {
    case CheckKind::StatusEquals:
        return QStringLiteral("equals");
    case CheckKind::StatusClass:
        return QStringLiteral("class");
    case CheckKind::StatusIn:
        return QStringLiteral("in");
    case CheckKind::ResponseTimeUnder:
        return QStringLiteral("underMs");
    case CheckKind::HeaderPresent:
    case CheckKind::HeaderEquals:
    case CheckKind::HeaderMatches:
        return QStringLiteral("header");
    case CheckKind::JsonPointerEquals:
    case CheckKind::JsonPointerExists:
    case CheckKind::JsonPointerMatches:
        return QStringLiteral("pointer");
    case CheckKind::BodyContains:
    case CheckKind::Schema:
        break;
    }
    return {};
}

QString expectedKey(CheckKind kind)
{
    switch (kind) {
    case CheckKind::HeaderEquals:
    case CheckKind::JsonPointerEquals:
        return QStringLiteral("equals");
    case CheckKind::HeaderMatches:
    case CheckKind::JsonPointerMatches:
        return QStringLiteral("matches");
    case CheckKind::BodyContains:
        return QStringLiteral("contains");
    case CheckKind::Schema:
        return QStringLiteral("schema");
    default:
        break;
    }
    return {};
}

QString fileKind(CheckKind kind)
{
    switch (kind) {
    case CheckKind::StatusEquals:
    case CheckKind::StatusClass:
    case CheckKind::StatusIn:
        return QStringLiteral("status");
    case CheckKind::ResponseTimeUnder:
        return QStringLiteral("responseTime");
    case CheckKind::HeaderPresent:
    case CheckKind::HeaderEquals:
    case CheckKind::HeaderMatches:
        return QStringLiteral("header");
    case CheckKind::BodyContains:
        return QStringLiteral("body");
    case CheckKind::JsonPointerEquals:
    case CheckKind::JsonPointerExists:
    case CheckKind::JsonPointerMatches:
        return QStringLiteral("jsonPointer");
    case CheckKind::Schema:
        break;
    }
    return QStringLiteral("schema");
}

} // namespace

AssertionTableModel::AssertionTableModel(QObject *parent) : QAbstractTableModel(parent)
{ }

const QList<CheckKind> &AssertionTableModel::kinds()
{
    static const QList<CheckKind> all{CheckKind::StatusEquals, CheckKind::StatusClass, CheckKind::StatusIn,
        CheckKind::ResponseTimeUnder, CheckKind::HeaderPresent, CheckKind::HeaderEquals, CheckKind::HeaderMatches,
        CheckKind::BodyContains, CheckKind::JsonPointerEquals, CheckKind::JsonPointerExists,
        CheckKind::JsonPointerMatches, CheckKind::Schema};
    return all;
}

QString AssertionTableModel::kindTitle(CheckKind kind)
{
    switch (kind) {
    case CheckKind::StatusEquals:
        return tr("Status is");
    case CheckKind::StatusClass:
        return tr("Status class");
    case CheckKind::StatusIn:
        return tr("Status in");
    case CheckKind::ResponseTimeUnder:
        return tr("Time under (ms)");
    case CheckKind::HeaderPresent:
        return tr("Header present");
    case CheckKind::HeaderEquals:
        return tr("Header equals");
    case CheckKind::HeaderMatches:
        return tr("Header matches");
    case CheckKind::BodyContains:
        return tr("Body contains");
    case CheckKind::JsonPointerEquals:
        return tr("JSON pointer equals");
    case CheckKind::JsonPointerExists:
        return tr("JSON pointer exists");
    case CheckKind::JsonPointerMatches:
        return tr("JSON pointer matches");
    case CheckKind::Schema:
        break;
    }
    return tr("Body valid against schema");
}

bool AssertionTableModel::uses(CheckKind kind, int column)
{
    if (column == Target)
        return !targetKey(kind).isEmpty();
    if (column == Expected)
        return !expectedKey(kind).isEmpty();
    return true;
}

QString AssertionTableModel::hint(CheckKind kind, int column)
{
    if (column == Target) {
        switch (kind) {
        case CheckKind::StatusEquals:
            return tr("e.g. 200");
        case CheckKind::StatusClass:
            return tr("e.g. 2xx");
        case CheckKind::StatusIn:
            return tr("e.g. 200,204 or 500-504");
        case CheckKind::ResponseTimeUnder:
            return tr("milliseconds, e.g. 800");
        case CheckKind::HeaderPresent:
        case CheckKind::HeaderEquals:
        case CheckKind::HeaderMatches:
            return tr("header name, e.g. ETag");
        case CheckKind::JsonPointerEquals:
        case CheckKind::JsonPointerExists:
        case CheckKind::JsonPointerMatches:
            return tr("JSON pointer, e.g. /id");
        default:
            return {};
        }
    }
    switch (kind) {
    case CheckKind::HeaderEquals:
        return tr("the whole value");
    case CheckKind::HeaderMatches:
    case CheckKind::JsonPointerMatches:
        return tr("regular expression");
    case CheckKind::BodyContains:
        return tr("text to find");
    case CheckKind::JsonPointerEquals:
        return tr("JSON value, e.g. 7, true, \"ok\"");
    case CheckKind::Schema:
        return tr("JSON Schema, e.g. {\"type\":\"object\"}");
    default:
        return {};
    }
}

void AssertionTableModel::validate(Row &row)
{
    row.parsed.reset();
    row.problem.clear();
    row.problemColumn = -1;

    const QString target = row.kind == CheckKind::JsonPointerEquals || row.kind == CheckKind::JsonPointerExists
            || row.kind == CheckKind::JsonPointerMatches
        ? row.target
        : row.target.trimmed();
    QJsonObject object{{QStringLiteral("kind"), fileKind(row.kind)}};
    if (row.negate)
        object.insert(QStringLiteral("not"), true);
    if (!row.name.trimmed().isEmpty())
        object.insert(QStringLiteral("name"), row.name.trimmed());
    const QString tKey = targetKey(row.kind);
    const QString eKey = expectedKey(row.kind);
    if (!tKey.isEmpty()) {
        const bool numeric = row.kind == CheckKind::StatusEquals || row.kind == CheckKind::ResponseTimeUnder;
        if (numeric && !numberOf(target).isDouble()) {
            row.problem = target.isEmpty() ? tr("give a number") : tr("\"%1\" is not a number").arg(target);
            row.problemColumn = Target;
            return;
        }
        object.insert(tKey, numeric ? numberOf(target) : QJsonValue(target));
    }
    if (row.kind == CheckKind::HeaderPresent || row.kind == CheckKind::JsonPointerExists)
        object.insert(QStringLiteral("exists"), true);
    if (row.kind == CheckKind::Schema) {
        QJsonParseError error{};
        const auto schema = jsonValueOf(row.expected, &error);
        if (!schema) {
            row.problem = row.expected.trimmed().isEmpty() ? tr("give a JSON Schema, e.g. {\"type\": \"object\"}")
                                                           : tr("not JSON: %1").arg(error.errorString());
            row.problemColumn = Expected;
            return;
        }
        object.insert(eKey, *schema);
    } else if (row.kind == CheckKind::JsonPointerEquals) {
        object.insert(eKey, expectedValueOf(row.expected));
    } else if (!eKey.isEmpty()) {
        object.insert(eKey, row.expected);
    }

    Core::JsonReader reader(object);
    const auto assertion = Core::AssertionJson::readOne(reader);
    if (assertion) {
        row.parsed = *assertion;
        return;
    }
    const Core::Error error = reader.firstError();
    // The path's first field says which column is at fault; the rest (inside a
    // schema) is part of what to say.
    const QString field = error.path.section(QLatin1Char('.'), 0, 0).section(QLatin1Char('['), 0, 0);
    QString inner = error.path.mid(field.size());
    if (inner.startsWith(QLatin1Char('.')))
        inner.remove(0, 1);
    row.problem = inner.isEmpty() ? error.message : QStringLiteral("%1: %2").arg(inner, error.message);
    if (field == QLatin1String("name"))
        row.problemColumn = Name;
    else if (!field.isEmpty() && field == eKey)
        row.problemColumn = Expected;
    else if (!field.isEmpty() && field == tKey)
        row.problemColumn = Target;
    else
        row.problemColumn = Kind;
}

AssertionTableModel::Row AssertionTableModel::rowOf(const Core::Assertion &a)
{
    Row row;
    row.kind = a.kind;
    row.negate = a.negate;
    row.name = a.name;
    switch (a.kind) {
    case CheckKind::StatusEquals:
        row.target = a.statuses.isEmpty() ? QString() : QString::number(*a.statuses.constBegin());
        break;
    case CheckKind::StatusClass:
    case CheckKind::StatusIn:
        row.target = a.statusText;
        break;
    case CheckKind::ResponseTimeUnder:
        row.target = QString::number(a.maxMs);
        break;
    case CheckKind::HeaderPresent:
        row.target = QString::fromLatin1(a.header);
        break;
    case CheckKind::HeaderEquals:
        row.target = QString::fromLatin1(a.header);
        row.expected = a.text;
        break;
    case CheckKind::HeaderMatches:
        row.target = QString::fromLatin1(a.header);
        row.expected = a.pattern.pattern();
        break;
    case CheckKind::BodyContains:
        row.expected = a.text;
        break;
    case CheckKind::JsonPointerEquals:
        row.target = a.pointer;
        row.expected = expectedTextOf(a.expected);
        break;
    case CheckKind::JsonPointerExists:
        row.target = a.pointer;
        break;
    case CheckKind::JsonPointerMatches:
        row.target = a.pointer;
        row.expected = a.pattern.pattern();
        break;
    case CheckKind::Schema:
        row.expected = jsonTextOf(a.schema.source());
        break;
    }
    validate(row);
    return row;
}

QList<Core::Assertion> AssertionTableModel::assertions() const
{
    QList<Core::Assertion> out;
    for (const Row &row : m_rows) {
        if (row.parsed)
            out.append(*row.parsed);
    }
    return out;
}

void AssertionTableModel::setAssertions(const QList<Core::Assertion> &assertions)
{
    beginResetModel();
    m_rows.clear();
    for (const Core::Assertion &assertion : assertions)
        m_rows.append(rowOf(assertion));
    endResetModel();
    Q_EMIT assertionsChanged();
}

int AssertionTableModel::invalidCount() const
{
    return static_cast<int>(std::count_if(m_rows.cbegin(), m_rows.cend(), [](const Row &r) { return !r.parsed; }));
}

QString AssertionTableModel::problem(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).problem : QString();
}

int AssertionTableModel::problemColumn(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).problemColumn : -1;
}

int AssertionTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int AssertionTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AssertionTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows.at(index.row());
    const int column = index.column();
    const bool used = uses(row.kind, column);
    switch (role) {
    case ValidRole:
        return row.parsed.has_value();
    case ProblemRole:
        return row.problem;
    case UsedRole:
        return used;
    case ChoicesRole:
        if (column == Kind) {
            QStringList names;
            for (Core::Assertion::Kind kind : kinds())
                names.append(kindTitle(kind));
            return names;
        }
        return {};
    case Qt::ToolTipRole:
        if (!row.parsed && (column == row.problemColumn || column == Check))
            return tr("Not used: %1").arg(row.problem);
        if (!used)
            return tr("%1 needs nothing here.").arg(kindTitle(row.kind));
        if (column == Check)
            return tr("Checked on the last attempt of each request sent: %1").arg(row.parsed->describe());
        return {};
    case Qt::ForegroundRole:
        if (column == Check && !row.parsed)
            return QColor(0xb0, 0x20, 0x20);
        if (column == Check || !used
            || ((column == Target || column == Expected) && (column == Target ? row.target : row.expected).isEmpty()))
            return QColor(0x80, 0x80, 0x80);
        return {};
    default:
        break;
    }
    if (column == Not) {
        if (role == Qt::CheckStateRole)
            return row.negate ? Qt::Checked : Qt::Unchecked;
        if (role == Qt::DisplayRole)
            return row.negate ? tr("not") : QString();
        return {};
    }
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    switch (column) {
    case Kind:
        return role == Qt::EditRole ? QVariant(static_cast<int>(kinds().indexOf(row.kind))) : kindTitle(row.kind);
    case Target:
    case Expected: {
        const QString &text = column == Target ? row.target : row.expected;
        if (role == Qt::EditRole)
            return text;
        if (!used)
            return QStringLiteral("\u2014");
        // An empty cell shows what to type, greyed.
        return text.isEmpty() ? hint(row.kind, column) : text;
    }
    case Name:
        return row.name;
    case Check:
        if (role == Qt::EditRole)
            return {};
        // A word and a mark, never the colour alone.
        return row.parsed ? row.parsed->describe() : tr("\u26a0 not used: %1").arg(row.problem);
    default:
        break;
    }
    return {};
}

bool AssertionTableModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid))
        return false;
    Row &row = m_rows[index.row()];
    switch (index.column()) {
    case Kind: {
        if (role != Qt::EditRole)
            return false;
        bool ok = false;
        int choice = value.toInt(&ok);
        if (!ok || value.typeId() == QMetaType::QString) {
            // A kind's title also does, as typed or pasted.
            choice = -1;
            for (qsizetype i = 0; i < kinds().size(); ++i) {
                if (kindTitle(kinds().at(i)).compare(value.toString(), Qt::CaseInsensitive) == 0)
                    choice = static_cast<int>(i);
            }
        }
        if (choice < 0 || choice >= kinds().size())
            return false;
        row.kind = kinds().at(choice);
        break;
    }
    case Target:
    case Expected:
        if (role != Qt::EditRole || !uses(row.kind, index.column()))
            return false;
        (index.column() == Target ? row.target : row.expected) = value.toString();
        break;
    case Not:
        if (role != Qt::CheckStateRole)
            return false;
        row.negate = value.toInt() == Qt::Checked;
        break;
    case Name:
        if (role != Qt::EditRole)
            return false;
        row.name = value.toString();
        break;
    default:
        return false;
    }
    validate(row);
    // The kind changes what every cell of the row shows.
    Q_EMIT dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
    Q_EMIT assertionsChanged();
    return true;
}

Qt::ItemFlags AssertionTableModel::flags(const QModelIndex &index) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    const Row &row = m_rows.at(index.row());
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    switch (index.column()) {
    case Not:
        return f | Qt::ItemIsUserCheckable;
    case Check:
        return f;
    case Target:
    case Expected:
        return uses(row.kind, index.column()) ? f | Qt::ItemIsEditable : f;
    default:
        return f | Qt::ItemIsEditable;
    }
}

QVariant AssertionTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Kind:
            return tr("Kind");
        case Target:
            return tr("Target");
        case Expected:
            return tr("Expected");
        case Not:
            return tr("Not");
        case Name:
            return tr("Name");
        case Check:
            return tr("Check");
        default:
            break;
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Target:
            return tr("The status (200, 2xx, 200,204), the time in milliseconds, the header's name or the JSON "
                      "pointer (/id), as the kind asks");
        case Expected:
            return tr("The header's value, a regular expression (searched), the text the body contains, a JSON "
                      "value (plain text is taken as a string) or a JSON Schema, as the kind asks");
        case Not:
            return tr("Turns the check around: the header must be absent, the body must not contain the text");
        case Name:
            return tr("What the verdicts call it; empty: the check's own description");
        case Check:
            return tr("What the row checks, or why it cannot be used");
        default:
            break;
        }
    }
    return {};
}

bool AssertionTableModel::insertRows(int row, int count, const QModelIndex &parent)
{
    if (parent.isValid() || row < 0 || row > m_rows.size() || count < 1)
        return false;
    beginInsertRows(parent, row, row + count - 1);
    for (int i = 0; i < count; ++i) {
        Row added;
        added.target = QStringLiteral("200");
        validate(added);
        m_rows.insert(row + i, added);
    }
    endInsertRows();
    Q_EMIT assertionsChanged();
    return true;
}

bool AssertionTableModel::removeRows(int row, int count, const QModelIndex &parent)
{
    if (parent.isValid() || row < 0 || count < 1 || row + count > m_rows.size())
        return false;
    beginRemoveRows(parent, row, row + count - 1);
    m_rows.remove(row, count);
    endRemoveRows();
    Q_EMIT assertionsChanged();
    return true;
}

} // namespace RetryLab::Ui
