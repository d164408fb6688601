#pragma once

#include "core/import/importedrequest.h"

#include <QList>
#include <QString>
#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace RetryLab::Ui {

/// The requests of the last import that picked several: one is in the composer,
/// the others wait here. A double-click, Enter or "Load" puts one in the
/// composer; Previous and Next step through them in order.
class ImportedRequestList final : public QWidget
{
    Q_OBJECT

public:
    explicit ImportedRequestList(QWidget *parent = nullptr);
    ~ImportedRequestList() override;

    void setRequests(const QList<Core::ImportedRequest> &requests, const QString &source);
    const QList<Core::ImportedRequest> &requests() const { return m_requests; }
    QString source() const { return m_source; }
    /// The request in the composer (marked in the list); -1 none.
    int current() const { return m_current; }
    void setCurrent(int index);

    QListWidget *list() const { return m_list; }

public Q_SLOTS:
    void loadSelected();
    void loadPrevious();
    void loadNext();

Q_SIGNALS:
    /// The user wants this request in the composer.
    void loadRequested(int index);

private:
    void updateButtons();

    QList<Core::ImportedRequest> m_requests;
    QString m_source;
    int m_current = -1;
    QLabel *m_title;
    QListWidget *m_list;
    QPushButton *m_previous;
    QPushButton *m_load;
    QPushButton *m_next;
};

} // namespace RetryLab::Ui
