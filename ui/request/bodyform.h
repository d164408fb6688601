#pragma once

#include "core/collections/requestdraft.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QStackedWidget;
class QTableView;
class QToolButton;

namespace RetryLab::Ui {

class FormFieldTableModel;

/// The composer's Body tab: what a request sends as its body. Text as typed
/// (with {server}, {id} and {{variables}}), form fields sent URL-encoded, a
/// multipart/form-data form whose file rows are read from disk as each attempt
/// is sent, or a whole file streamed (curl's -T and --data-binary @FILE). The
/// typed text is kept while another mode is chosen, so switching back loses
/// nothing; a saved request keeps a file's path, never its content.
class BodyForm final : public QWidget
{
    Q_OBJECT

public:
    explicit BodyForm(QWidget *parent = nullptr);

    /// Fills the form from the draft's body and bodyFrom; emits no edited().
    void setFrom(const Core::RequestDraft &draft);
    /// Writes body and bodyFrom into `draft`.
    void applyTo(Core::RequestDraft &draft) const;

    Core::DraftBody::Mode mode() const;
    void setMode(Core::DraftBody::Mode mode);
    /// Adds a file row to the multipart form (switching to it from text or a
    /// URL-encoded form), as "Add file…" does after its dialog.
    void addFile(const QString &path);
    /// Sends `path` as the whole body (the File mode), as "Choose…" does.
    void setBodyFile(const QString &path);

    /// "Body (12 B)", "Body (form, 3 fields)", "Body (multipart, 2 fields, 1 file)", "Body (file)".
    QString title() const;
    /// The fields whose value reads REDACTED (not saved): they must be typed again.
    QStringList maskedFields() const;

    QPlainTextEdit *textEdit() const { return m_text; }
    FormFieldTableModel *fieldModel() const { return m_fields; }

Q_SIGNALS:
    void edited();

private:
    void handleModeChanged();
    void handleAddFile();
    void handleChooseFile();
    void handleRemoveField();
    void updateNote();

    QComboBox *m_mode;
    QStackedWidget *m_pages;
    QPlainTextEdit *m_text;
    FormFieldTableModel *m_fields;
    QTableView *m_fieldView;
    QToolButton *m_addFile;
    QToolButton *m_removeField;
    QCheckBox *m_reveal;
    QLineEdit *m_file;
    QLabel *m_note;
    bool m_filling = false;
};

} // namespace RetryLab::Ui
