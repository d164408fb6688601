#pragma once

#include "ui/session/run/requestchecks.h"

#include <QWidget>

class QAction;
class QLabel;
class QTableView;
class QToolButton;

namespace RetryLab::Ui {

class AssertionTableModel;
class ExtractRuleTableModel;

/// The composer's Checks tab: the request's assertions and the rules that take
/// values from its answer into variables, side by side, each a table edited in
/// place (the kind and the source from a list). Insert adds a row to the table
/// that has the focus and Delete removes its selected rows; the buttons do the
/// same. A row that does not read is marked with why, and is not used.
class ChecksForm final : public QWidget
{
    Q_OBJECT

public:
    explicit ChecksForm(QWidget *parent = nullptr);

    /// The rows that read; the others are left out.
    RequestChecks checks() const;
    /// Fills both tables; emits checksChanged().
    void setChecks(const RequestChecks &checks);
    /// Rows of both tables that do not read (and are not used).
    int invalidCount() const;

    AssertionTableModel *assertionModel() const { return m_assertions; }
    ExtractRuleTableModel *extractModel() const { return m_extract; }
    QTableView *assertionView() const { return m_assertionView; }
    QTableView *extractView() const { return m_extractView; }

    /// Adds a row after the current one (or at the end) and starts editing it.
    void addAssertion();
    void addExtractRule();
    /// Removes the selected rows, or the current one.
    void removeAssertions();
    void removeExtractRules();

Q_SIGNALS:
    /// A row was added, removed or edited.
    void checksChanged();

private:
    QTableView *makeView(const QString &objectName);
    void addRow(QTableView *view, int firstColumn);
    void removeRows(QTableView *view);
    void updateSummary();

    AssertionTableModel *m_assertions;
    ExtractRuleTableModel *m_extract;
    QTableView *m_assertionView;
    QTableView *m_extractView;
    QToolButton *m_removeAssertion;
    QToolButton *m_removeRule;
    QLabel *m_summary;
};

} // namespace RetryLab::Ui
