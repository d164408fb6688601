#include "ui/request/bodyform.h"

#include "core/http/formurlencoded.h"
#include "core/http/redactor.h"
#include "ui/request/formfieldtablemodel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QStackedWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace RetryLab::Ui {

namespace {

using Mode = Core::DraftBody::Mode;

enum Page { TextPage, FieldsPage, FilePage };

int pageOf(Mode mode)
{
    switch (mode) {
    case Mode::Raw:
        return TextPage;
    case Mode::UrlEncoded:
    case Mode::Multipart:
        return FieldsPage;
    case Mode::File:
        return FilePage;
    }
    return TextPage;
}

QToolButton *bodyButton(const QString &text, const QString &name)
{
    auto *button = new QToolButton;
    button->setText(text);
    button->setObjectName(name);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    return button;
}

} // namespace

BodyForm::BodyForm(QWidget *parent)
    : QWidget(parent), m_mode(new QComboBox), m_pages(new QStackedWidget), m_text(new QPlainTextEdit),
      m_fields(new FormFieldTableModel(this)), m_fieldView(new QTableView),
      m_addFile(bodyButton(tr("Add &file\u2026"), QStringLiteral("addFormFile"))),
      m_removeField(bodyButton(tr("Remove"), QStringLiteral("removeFormField"))),
      m_reveal(new QCheckBox(tr("Show values"))), m_file(new QLineEdit), m_note(new QLabel)
{
    m_mode->setObjectName(QStringLiteral("bodyMode"));
    m_mode->addItem(tr("Text"), int(Mode::Raw));
    m_mode->addItem(tr("Form, URL-encoded"), int(Mode::UrlEncoded));
    m_mode->addItem(tr("Multipart form (fields and files)"), int(Mode::Multipart));
    m_mode->addItem(tr("File, streamed"), int(Mode::File));
    m_mode->setToolTip(tr("<p><b>Text</b>: the body as typed.<br><b>Form, URL-encoded</b>: the fields as "
                          "application/x-www-form-urlencoded.<br><b>Multipart form</b>: fields and files as "
                          "multipart/form-data (curl -F).<br><b>File</b>: a file sent as the body (curl -T), read "
                          "from disk for every attempt.</p>"));

    m_text->setObjectName(QStringLiteral("body"));
    m_text->setPlaceholderText(tr("Request body, sent with every attempt. {server} and {id} are expanded here too."));
    m_text->setTabChangesFocus(true);
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::TypeWriter);
    m_text->setFont(mono);

    m_fieldView->setObjectName(QStringLiteral("formFields"));
    m_fieldView->setModel(m_fields);
    m_fieldView->verticalHeader()->hide();
    m_fieldView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_fieldView->horizontalHeader()->setSectionResizeMode(FormFieldTableModel::Enabled, QHeaderView::ResizeToContents);
    m_fieldView->horizontalHeader()->setSectionResizeMode(FormFieldTableModel::Value, QHeaderView::Stretch);
    m_fieldView->setEditTriggers(QAbstractItemView::AllEditTriggers);
    auto *addField = bodyButton(tr("&Add field"), QStringLiteral("addFormField"));
    m_addFile->setToolTip(tr("A file part, read from disk as each attempt is sent; only its path is saved."));
    m_reveal->setObjectName(QStringLiteral("revealFormValues"));
    m_reveal->setToolTip(tr("Show the values of fields named like credentials (password, token, …)."));
    auto *fieldButtons = new QVBoxLayout;
    fieldButtons->addWidget(addField);
    fieldButtons->addWidget(m_addFile);
    fieldButtons->addWidget(m_removeField);
    fieldButtons->addStretch();
    fieldButtons->addWidget(m_reveal);
    auto *fieldsPage = new QWidget;
    auto *fieldsLayout = new QHBoxLayout(fieldsPage);
    fieldsLayout->setContentsMargins(0, 0, 0, 0);
    fieldsLayout->addWidget(m_fieldView, 1);
    fieldsLayout->addLayout(fieldButtons);

    m_file->setObjectName(QStringLiteral("bodyFile"));
    m_file->setPlaceholderText(tr("/path/to/file"));
    m_file->setClearButtonEnabled(true);
    auto *chooseFile = bodyButton(tr("&Choose\u2026"), QStringLiteral("chooseBodyFile"));
    auto *filePage = new QWidget;
    auto *fileLayout = new QHBoxLayout(filePage);
    fileLayout->setContentsMargins(0, 0, 0, 0);
    fileLayout->addWidget(new QLabel(tr("File:")));
    fileLayout->addWidget(m_file, 1);
    fileLayout->addWidget(chooseFile);
    auto *filePageOuter = new QWidget;
    auto *fileOuterLayout = new QVBoxLayout(filePageOuter);
    fileOuterLayout->setContentsMargins(0, 0, 0, 0);
    fileOuterLayout->addWidget(filePage);
    fileOuterLayout->addStretch();

    m_pages->addWidget(m_text);
    m_pages->addWidget(fieldsPage);
    m_pages->addWidget(filePageOuter);

    m_note->setObjectName(QStringLiteral("bodyNote"));
    m_note->setWordWrap(true);
    m_note->setTextFormat(Qt::PlainText);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *modeRow = new QHBoxLayout;
    auto *modeLabel = new QLabel(tr("Sen&d:"));
    modeLabel->setBuddy(m_mode);
    modeRow->addWidget(modeLabel);
    modeRow->addWidget(m_mode);
    modeRow->addStretch();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(modeRow);
    layout->addWidget(m_pages, 1);
    layout->addWidget(m_note);

    const auto changed = [this] {
        updateNote();
        if (!m_filling)
            Q_EMIT edited();
    };
    connect(m_mode, &QComboBox::currentIndexChanged, this, &BodyForm::handleModeChanged);
    connect(m_text, &QPlainTextEdit::textChanged, this, changed);
    connect(m_fields, &FormFieldTableModel::fieldsChanged, this, changed);
    connect(m_file, &QLineEdit::textChanged, this, changed);
    connect(addField, &QToolButton::clicked, this, [this] {
        const int row = m_fields->addField();
        if (row >= 0)
            m_fieldView->edit(m_fields->index(row, FormFieldTableModel::Name));
    });
    connect(m_addFile, &QToolButton::clicked, this, &BodyForm::handleAddFile);
    connect(m_removeField, &QToolButton::clicked, this, &BodyForm::handleRemoveField);
    connect(chooseFile, &QToolButton::clicked, this, &BodyForm::handleChooseFile);
    connect(m_reveal, &QCheckBox::toggled, m_fields, &FormFieldTableModel::setRevealed);
    connect(m_reveal, &QCheckBox::toggled, this, &BodyForm::updateNote);
    handleModeChanged();
}

Mode BodyForm::mode() const
{
    return Mode(m_mode->currentData().toInt());
}

void BodyForm::setMode(Mode mode)
{
    m_mode->setCurrentIndex(m_mode->findData(int(mode)));
}

void BodyForm::setFrom(const Core::RequestDraft &draft)
{
    m_filling = true;
    if (m_text->toPlainText() != draft.body)
        m_text->setPlainText(draft.body);
    m_fields->setFields(draft.bodyFrom.fields);
    m_file->setText(draft.bodyFrom.filePath);
    setMode(draft.bodyFrom.mode);
    m_filling = false;
    updateNote();
}

void BodyForm::applyTo(Core::RequestDraft &draft) const
{
    draft.body = m_text->toPlainText();
    draft.bodyFrom.mode = mode();
    draft.bodyFrom.fields = m_fields->fields();
    draft.bodyFrom.filePath = m_file->text();
}

void BodyForm::addFile(const QString &path)
{
    if (path.isEmpty())
        return;
    if (mode() != Mode::Multipart)
        setMode(Mode::Multipart);
    const int row = m_fields->addFile(path);
    if (row >= 0)
        m_fieldView->setCurrentIndex(m_fields->index(row, FormFieldTableModel::Name));
}

void BodyForm::setBodyFile(const QString &path)
{
    if (path.isEmpty())
        return;
    setMode(Mode::File);
    m_file->setText(path);
}

void BodyForm::handleModeChanged()
{
    m_pages->setCurrentIndex(pageOf(mode()));
    m_addFile->setVisible(mode() == Mode::Multipart);
    updateNote();
    if (!m_filling)
        Q_EMIT edited();
}

void BodyForm::handleAddFile()
{
    addFile(QFileDialog::getOpenFileName(this, tr("Add a file to the form")));
}

void BodyForm::handleChooseFile()
{
    setBodyFile(QFileDialog::getOpenFileName(this, tr("Send a file as the body"), m_file->text()));
}

void BodyForm::handleRemoveField()
{
    const QModelIndexList rows = m_fieldView->selectionModel()->selectedRows();
    QList<int> numbers;
    for (const QModelIndex &index : rows)
        numbers.append(index.row());
    if (numbers.isEmpty() && m_fieldView->currentIndex().isValid())
        numbers.append(m_fieldView->currentIndex().row());
    std::sort(numbers.begin(), numbers.end(), std::greater<>());
    for (int row : numbers)
        m_fields->removeRows(row, 1);
}

QString BodyForm::title() const
{
    const QList<Core::DraftFormField> sent = Core::DraftBody{mode(), m_fields->fields(), {}}.sentFields();
    const auto files = std::count_if(sent.cbegin(), sent.cend(), [](const auto &f) { return f.isFile(); });
    switch (mode()) {
    case Mode::Raw: {
        const qsizetype bytes = m_text->toPlainText().toUtf8().size();
        return bytes > 0 ? tr("Body (%1 B)").arg(bytes) : tr("Body");
    }
    case Mode::UrlEncoded:
        return tr("Body (form, %n field(s))", nullptr, int(sent.size()));
    case Mode::Multipart:
        return files > 0
            ? tr("Body (multipart, %n part(s)", nullptr, int(sent.size())) + tr(", %n file(s))", nullptr, int(files))
            : tr("Body (multipart, %n part(s))", nullptr, int(sent.size()));
    case Mode::File:
        return tr("Body (file)");
    }
    return tr("Body");
}

QStringList BodyForm::maskedFields() const
{
    QStringList names;
    if (mode() != Mode::UrlEncoded && mode() != Mode::Multipart)
        return names;
    for (const Core::DraftFormField &field : m_fields->fields()) {
        if (field.enabled && !field.isFile() && Core::RequestDraft::holdsMaskedCredential(field.value))
            names.append(field.name);
    }
    return names;
}

void BodyForm::updateNote()
{
    const QList<Core::DraftFormField> sent = Core::DraftBody{mode(), m_fields->fields(), {}}.sentFields();
    switch (mode()) {
    case Mode::Raw:
        m_note->setText(tr("Sent as typed, with every attempt. Set its Content-Type under Headers."));
        break;
    case Mode::UrlEncoded: {
        Core::FormUrlEncoded::Fields pairs;
        for (const Core::DraftFormField &field : sent) {
            const bool masked = !m_reveal->isChecked() && Core::Redactor::isSensitiveName(field.name.trimmed());
            pairs.append({field.name.trimmed(), masked ? QString::fromLatin1(Core::Redactor::mask()) : field.value});
        }
        QString body = QString::fromUtf8(Core::FormUrlEncoded::encode(pairs));
        if (body.size() > 200)
            body = body.left(200) + QStringLiteral("\u2026");
        m_note->setText(tr("Sent as application/x-www-form-urlencoded (unless a header sets Content-Type): %1")
                            .arg(body.isEmpty() ? tr("an empty body") : body));
        break;
    }
    case Mode::Multipart:
        m_note->setText(tr("Sent as multipart/form-data with a boundary of its own (so Content-Type is not set "
                           "under Headers). Files are read from disk as each attempt is sent, so a retry sends them "
                           "whole again; a saved request keeps their paths only."));
        break;
    case Mode::File: {
        const QFileInfo info(m_file->text().trimmed());
        if (m_file->text().trimmed().isEmpty())
            m_note->setText(tr("Choose the file to send as the body."));
        else if (!info.isFile() || !info.isReadable())
            m_note->setText(tr("%1 cannot be read.").arg(QDir::toNativeSeparators(info.filePath())));
        else
            m_note->setText(tr("%1 is read from disk for every attempt and streamed, never held in memory; a saved "
                               "request keeps its path only.")
                                .arg(QLocale().formattedDataSize(info.size())));
        break;
    }
    }
}

} // namespace RetryLab::Ui
