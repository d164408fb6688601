#pragma once

#include "ui/session/run/requestchecks.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace RetryLab::Ui {

/// The inspector's Checks page: what the checks of a request sent from the window
/// said of its last attempt. Each assertion is a row with a word and a mark
/// ("✓ passed", "✗ FAILED"), never a colour alone, its name and the sentence of
/// its verdict; below, each variable its extract rules set ("token = …") and each
/// rule that found nothing.
class ChecksVerdictView final : public QWidget
{
    Q_OBJECT

public:
    enum Column { Result, Name, Message, ColumnCount };

    explicit ChecksVerdictView(QWidget *parent = nullptr);

    /// The checks of the request and, once it ended, their verdict (null before).
    void setVerdict(const RequestChecks &checks, const ChecksVerdict *verdict);
    void clear();

    /// "2 of 3 assertions passed" and the like, for the tab's title.
    QString titleText() const { return m_titleText; }
    /// The page as plain lines, one per assertion and variable.
    QString text() const;

    QLabel *summaryLabel() const { return m_summary; }
    QTableWidget *assertionTable() const { return m_table; }
    QLabel *variablesLabel() const { return m_variables; }

private:
    QLabel *m_summary;
    QTableWidget *m_table;
    QLabel *m_variables;
    QString m_titleText;
};

} // namespace RetryLab::Ui
