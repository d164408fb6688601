#include "ui/request/checksform.h"

#include "ui/request/assertiontablemodel.h"
#include "ui/request/extractruletablemodel.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

namespace RetryLab::Ui {

namespace {

// Edits a column of choices (an assertion's kind, a rule's source) with a list:
// the model gives the names (ChoicesRole, the same number in both models) and
// takes the index.
class ChecksChoiceDelegate final : public QStyledItemDelegate
{
public:
    ChecksChoiceDelegate(int choicesRole, QObject *parent) : QStyledItemDelegate(parent), m_role(choicesRole) { }

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        const QStringList choices = index.data(m_role).toStringList();
        if (choices.isEmpty())
            return QStyledItemDelegate::createEditor(parent, option, index);
        auto *combo = new QComboBox(parent);
        combo->addItems(choices);
        return combo;
    }
    void setEditorData(QWidget *editor, const QModelIndex &index) const override
    {
        if (auto *combo = qobject_cast<QComboBox *>(editor))
            combo->setCurrentIndex(index.data(Qt::EditRole).toInt());
        else
            QStyledItemDelegate::setEditorData(editor, index);
    }
    void setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const override
    {
        if (auto *combo = qobject_cast<QComboBox *>(editor))
            model->setData(index, combo->currentIndex(), Qt::EditRole);
        else
            QStyledItemDelegate::setModelData(editor, model, index);
    }

private:
    int m_role;
};

QToolButton *checksButton(const QString &objectName, const QString &text, const QString &toolTip)
{
    auto *button = new QToolButton;
    button->setObjectName(objectName);
    button->setText(text);
    button->setToolTip(toolTip);
    button->setAutoRaise(true);
    return button;
}

} // namespace

ChecksForm::ChecksForm(QWidget *parent)
    : QWidget(parent), m_assertions(new AssertionTableModel(this)), m_extract(new ExtractRuleTableModel(this)),
      m_assertionView(makeView(QStringLiteral("assertions"))), m_extractView(makeView(QStringLiteral("extractRules"))),
      m_removeAssertion(
          checksButton(QStringLiteral("removeAssertion"), tr("Remove"), tr("Remove the selected assertions (Delete)"))),
      m_removeRule(
          checksButton(QStringLiteral("removeExtractRule"), tr("Remove"), tr("Remove the selected rules (Delete)"))),
      m_summary(new QLabel)
{
    m_assertionView->setModel(m_assertions);
    m_assertionView->setItemDelegateForColumn(
        AssertionTableModel::Kind, new ChecksChoiceDelegate(AssertionTableModel::ChoicesRole, m_assertionView));
    QHeaderView *header = m_assertionView->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setSectionResizeMode(AssertionTableModel::Not, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(AssertionTableModel::Check, QHeaderView::Stretch);
    const QFontMetrics metrics = fontMetrics();
    m_assertionView->setColumnWidth(
        AssertionTableModel::Kind, metrics.horizontalAdvance(QStringLiteral("JSON pointer matches")) + 24);
    m_assertionView->setColumnWidth(AssertionTableModel::Target, metrics.horizontalAdvance(QStringLiteral("x")) * 11);
    m_assertionView->setColumnWidth(AssertionTableModel::Expected, metrics.horizontalAdvance(QStringLiteral("x")) * 13);
    m_assertionView->setColumnWidth(AssertionTableModel::Name, metrics.horizontalAdvance(QStringLiteral("x")) * 8);

    m_extractView->setModel(m_extract);
    m_extractView->setItemDelegateForColumn(
        ExtractRuleTableModel::Source, new ChecksChoiceDelegate(ExtractRuleTableModel::ChoicesRole, m_extractView));
    m_extractView->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_extractView->horizontalHeader()->setSectionResizeMode(ExtractRuleTableModel::Check, QHeaderView::Stretch);
    m_extractView->setColumnWidth(ExtractRuleTableModel::Variable, metrics.horizontalAdvance(QStringLiteral("x")) * 8);
    m_extractView->setColumnWidth(
        ExtractRuleTableModel::Source, metrics.horizontalAdvance(QStringLiteral("Regular expression")) + 30);
    m_extractView->setColumnWidth(ExtractRuleTableModel::Where, metrics.horizontalAdvance(QStringLiteral("x")) * 12);

    auto *addAssertionButton = checksButton(
        QStringLiteral("addAssertion"), tr("Add"), tr("Add an assertion after the current one (Insert)"));
    auto *addRuleButton
        = checksButton(QStringLiteral("addExtractRule"), tr("Add"), tr("Add a rule after the current one (Insert)"));
    connect(addAssertionButton, &QToolButton::clicked, this, &ChecksForm::addAssertion);
    connect(m_removeAssertion, &QToolButton::clicked, this, &ChecksForm::removeAssertions);
    connect(addRuleButton, &QToolButton::clicked, this, &ChecksForm::addExtractRule);
    connect(m_removeRule, &QToolButton::clicked, this, &ChecksForm::removeExtractRules);

    // Insert and Delete act on the table that has the focus; an open editor keeps Delete for its text.
    const auto keys = [this](QTableView *view, const std::function<void()> &add, const std::function<void()> &remove) {
        auto *addAction = new QAction(view);
        addAction->setShortcut(QKeySequence(Qt::Key_Insert));
        addAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        connect(addAction, &QAction::triggered, this, add);
        auto *removeAction = new QAction(view);
        removeAction->setShortcut(QKeySequence::Delete);
        removeAction->setShortcutContext(Qt::WidgetShortcut);
        connect(removeAction, &QAction::triggered, this, remove);
        view->addActions({addAction, removeAction});
    };
    keys(
        m_assertionView, [this] { addAssertion(); }, [this] { removeAssertions(); });
    keys(
        m_extractView, [this] { addExtractRule(); }, [this] { removeExtractRules(); });

    const auto titled = [](const QString &title, QWidget *view, QToolButton *add, QToolButton *remove) {
        auto *box = new QWidget;
        auto *row = new QHBoxLayout;
        auto *label = new QLabel(title);
        label->setBuddy(view);
        row->addWidget(label);
        row->addStretch(1);
        row->addWidget(add);
        row->addWidget(remove);
        auto *layout = new QVBoxLayout(box);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->setSpacing(2);
        layout->addLayout(row);
        layout->addWidget(view, 1);
        return box;
    };
    auto *splitter = new QSplitter(Qt::Horizontal);
    splitter->setObjectName(QStringLiteral("checksSplitter"));
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(
        titled(tr("&Assertions on the answer:"), m_assertionView, addAssertionButton, m_removeAssertion));
    splitter->addWidget(titled(tr("Values into &variables:"), m_extractView, addRuleButton, m_removeRule));
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 1);

    m_summary->setObjectName(QStringLiteral("checksSummary"));
    m_summary->setWordWrap(true);
    m_summary->setForegroundRole(QPalette::PlaceholderText);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_summary);

    connect(m_assertions, &AssertionTableModel::assertionsChanged, this, [this] {
        updateSummary();
        Q_EMIT checksChanged();
    });
    connect(m_extract, &ExtractRuleTableModel::rulesChanged, this, [this] {
        updateSummary();
        Q_EMIT checksChanged();
    });
    setTabOrder(m_assertionView, m_extractView);
    updateSummary();
}

QTableView *ChecksForm::makeView(const QString &objectName)
{
    auto *view = new QTableView;
    view->setObjectName(objectName);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
        | QAbstractItemView::AnyKeyPressed | QAbstractItemView::SelectedClicked);
    view->setWordWrap(false);
    view->setTabKeyNavigation(false);
    return view;
}

RequestChecks ChecksForm::checks() const
{
    return {m_assertions->assertions(), m_extract->rules()};
}

void ChecksForm::setChecks(const RequestChecks &checks)
{
    m_assertions->setAssertions(checks.assertions);
    m_extract->setRules(checks.extract);
}

int ChecksForm::invalidCount() const
{
    return m_assertions->invalidCount() + m_extract->invalidCount();
}

void ChecksForm::addRow(QTableView *view, int firstColumn)
{
    QAbstractItemModel *model = view->model();
    const QModelIndex current = view->currentIndex();
    const int row = current.isValid() ? current.row() + 1 : model->rowCount();
    if (!model->insertRows(row, 1))
        return;
    const QModelIndex first = model->index(row, firstColumn);
    view->setFocus(Qt::OtherFocusReason);
    view->setCurrentIndex(first);
    view->edit(first);
}

void ChecksForm::removeRows(QTableView *view)
{
    QList<int> rows;
    for (const QModelIndex &index : view->selectionModel()->selectedRows())
        rows.append(index.row());
    if (rows.isEmpty() && view->currentIndex().isValid())
        rows.append(view->currentIndex().row());
    std::sort(rows.begin(), rows.end(), std::greater<>());
    for (int row : std::as_const(rows))
        view->model()->removeRows(row, 1);
}

void ChecksForm::addAssertion()
{
    // A new assertion starts as "status is 200": its kind is the first thing to change.
    addRow(m_assertionView, AssertionTableModel::Kind);
}

void ChecksForm::addExtractRule()
{
    addRow(m_extractView, ExtractRuleTableModel::Variable);
}

void ChecksForm::removeAssertions()
{
    removeRows(m_assertionView);
}

void ChecksForm::removeExtractRules()
{
    removeRows(m_extractView);
}

void ChecksForm::updateSummary()
{
    m_removeAssertion->setEnabled(m_assertions->rowCount() > 0);
    m_removeRule->setEnabled(m_extract->rowCount() > 0);
    const int invalid = invalidCount();
    const int used = m_assertions->rowCount() + m_extract->rowCount() - invalid;
    // No plural forms without a translation loaded: each number gets its own sentence.
    QString text;
    if (used == 0)
        text = tr("Checked on the last attempt of each request sent from here (after its retries), and saved with it.");
    else if (used == 1)
        text = tr("1 check runs on the last attempt of each request sent from here; its verdict shows in the attempt "
                  "inspector's Checks page.");
    else
        text = tr("%1 checks run on the last attempt of each request sent from here; the verdicts show in the "
                  "attempt inspector's Checks page.")
                   .arg(used);
    // The first row at fault says why in full here; the table has room for the start only.
    QString first;
    for (int row = 0; row < m_assertions->rowCount() && first.isEmpty(); ++row) {
        if (!m_assertions->problem(row).isEmpty())
            first = tr("assertion %1: %2").arg(row + 1).arg(m_assertions->problem(row));
    }
    for (int row = 0; row < m_extract->rowCount() && first.isEmpty(); ++row) {
        if (!m_extract->problem(row).isEmpty())
            first = tr("variable rule %1: %2").arg(row + 1).arg(m_extract->problem(row));
    }
    if (invalid == 1)
        text = tr("\u26a0 1 row not used until corrected: %1. ").arg(first) + text;
    else if (invalid > 1)
        text = tr("\u26a0 %1 rows not used until corrected; %2. ").arg(invalid).arg(first) + text;
    m_summary->setText(text);
}

} // namespace RetryLab::Ui
