#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTreeView;

namespace RetryLab::Core {
struct RequestDraft;
}

namespace RetryLab::Ui {

class RequestHistory;
class RequestHistoryModel;

/// The History dock: every request sent from the composer, newest first, with a search
/// over its time, method and URL. Double-click, Enter or "Open in composer" puts the
/// request back into the composer as it was sent (credentials redacted).
class RequestHistoryView final : public QWidget
{
    Q_OBJECT

public:
    explicit RequestHistoryView(QWidget *parent = nullptr);

    /// Not owned.
    void setHistory(RequestHistory *history);
    RequestHistoryModel *model() const { return m_model; }
    /// The rows the search leaves, over model().
    QSortFilterProxyModel *filter() const { return m_filter; }
    /// Opens the shown row `row` (of filter()) in the composer.
    void openRow(int row);

Q_SIGNALS:
    /// The user chose an entry to send again.
    void openRequested(const RetryLab::Core::RequestDraft &draft);

private:
    void handleSearchEdited(const QString &text);
    void updateState();
    void clearHistory();

    RequestHistory *m_history = nullptr;
    RequestHistoryModel *m_model = nullptr;
    QSortFilterProxyModel *m_filter = nullptr;
    QLineEdit *m_search = nullptr;
    QTreeView *m_list = nullptr;
    QLabel *m_empty = nullptr;
    QPushButton *m_open = nullptr;
    QPushButton *m_clear = nullptr;
};

} // namespace RetryLab::Ui
