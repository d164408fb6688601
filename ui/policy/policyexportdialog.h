#pragma once

#include "core/policy/backoffpolicy.h"

#include <QDialog>
#include <QString>
#include <QStringList>

#include <functional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace RetryLab::Ui {

/// Policy > Export…: the policy in any of the export formats of
/// Core::PolicyExport (the ones `retrylab policy export` writes), previewed,
/// with what the format cannot express listed beneath it, copied or saved. A
/// runnable format can be a complete program that sends one GET to a URL (the
/// request's, unless changed).
class PolicyExportDialog final : public QDialog
{
    Q_OBJECT

public:
    /// Asks where Save… writes (ExportController::chooseFile in the window, which tests answer).
    using FileChooser
        = std::function<QString(const QString &title, const QString &suggestedPath, const QString &filter)>;

    explicit PolicyExportDialog(QWidget *parent = nullptr);

    void setPolicy(const Core::BackoffPolicy &policy);
    /// The URL a runnable program requests; an empty or non-HTTP one leaves the field as it was.
    void setRequestUrl(const QString &url);
    /// Chooses a format by its name ("polly", "envoy", ...); false for an unknown name.
    bool setFormat(const QString &name);
    QString format() const;
    /// The runnable checkbox; ignored for a format that is not runnable.
    void setRunnable(bool runnable);
    void setFileChooser(FileChooser chooser);
    /// Where Save… suggests the file.
    void setDirectory(const QString &directory);

    /// What is previewed, and the notes listed beneath it.
    QString text() const;
    QStringList notes() const;

    /// Writes the previewed text to `path`; false when it cannot, with lastMessage() saying why.
    bool saveTo(const QString &path);
    /// What the last copy or save did, or why not.
    QString lastMessage() const;

Q_SIGNALS:
    /// The text was written to `path`.
    void saved(const QString &path);

private:
    void handleFormatChanged();
    void handleCopy();
    void handleSave();
    void refresh();
    void setMessage(const QString &message);

    Core::BackoffPolicy m_policy;
    QString m_directory;
    QString m_text;
    QStringList m_notes;
    QString m_lastMessage;
    FileChooser m_chooser;
    QComboBox *m_format;
    QCheckBox *m_runnable;
    QLineEdit *m_url;
    QPlainTextEdit *m_preview;
    QListWidget *m_noteList;
    QLabel *m_message;
    QPushButton *m_copy;
    QPushButton *m_save;
};

} // namespace RetryLab::Ui
