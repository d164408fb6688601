#include "ui/widgets/bodyview.h"

#include <QApplication>
#include <QBuffer>
#include <QClipboard>
#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImageReader>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLocale>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QStringDecoder>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace RetryLab::Ui {

namespace {

enum Page { EmptyPage, TreePage, TextPage, ImagePage };

// The media type of a Content-Type, lower case, without parameters.
QByteArray mediaType(const QByteArray &contentType)
{
    const qsizetype semicolon = contentType.indexOf(';');
    return (semicolon < 0 ? contentType : contentType.left(semicolon)).trimmed().toLower();
}

bool isTextType(const QByteArray &type)
{
    return type.startsWith("text/") || type.contains("xml") || type.contains("javascript")
        || type.contains("x-www-form-urlencoded") || type.contains("yaml") || type.contains("csv")
        || type.contains("graphql") || type == "application/x-ndjson";
}

// Valid UTF-8 (a multi-byte character cut at the end aside) with no more control
// characters than text has.
bool looksLikeText(const QByteArray &bytes)
{
    QByteArrayView view(bytes.constData(), std::min<qsizetype>(bytes.size(), 64 * 1024));
    // A body kept in part may end inside a character.
    for (int i = 0; i < 3 && !view.isEmpty() && (uchar(view.back()) & 0x80); ++i)
        view.chop(1);
    QStringDecoder decoder(QStringDecoder::Utf8);
    const QString text = decoder.decode(view);
    if (decoder.hasError())
        return false;
    qsizetype control = 0;
    for (const QChar c : text) {
        if (c == QChar(0))
            return false;
        if ((c.unicode() < 0x20 && c != u'\n' && c != u'\r' && c != u'\t' && c != u'\f') || c.unicode() == 0x7f)
            ++control;
    }
    return control * 100 <= text.size();
}

bool isJson(const QByteArray &bytes)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    return error.error == QJsonParseError::NoError && (document.isObject() || document.isArray());
}

// The image format Qt reads from these bytes, or empty.
QByteArray imageFormatOf(const QByteArray &bytes)
{
    QBuffer buffer;
    buffer.setData(bytes);
    if (!buffer.open(QIODevice::ReadOnly))
        return {};
    return QImageReader::imageFormat(&buffer);
}

QString jsonScalar(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::String:
        return QLatin1Char('"') + value.toString() + QLatin1Char('"');
    case QJsonValue::Double: {
        const double d = value.toDouble();
        return d == double(qint64(d)) && std::abs(d) < 9e15 ? QString::number(qint64(d)) : QString::number(d, 'g', 17);
    }
    case QJsonValue::Bool:
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Null:
        return QStringLiteral("null");
    default:
        return {};
    }
}

} // namespace

BodyView::BodyView(QWidget *parent)
    : QWidget(parent), m_summaryLabel(new QLabel), m_noteLabel(new QLabel), m_modeChooser(new QComboBox),
      m_copy(new QToolButton), m_stack(new QStackedWidget), m_empty(new QLabel), m_tree(new QTreeView),
      m_treeModel(new QStandardItemModel(this)), m_text(new QPlainTextEdit), m_imageArea(new QScrollArea),
      m_image(new QLabel)
{
    m_summaryLabel->setObjectName(QStringLiteral("bodySummary"));
    m_summaryLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_noteLabel->setObjectName(QStringLiteral("bodyNote"));
    m_noteLabel->setWordWrap(true);
    m_noteLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_noteLabel->hide();

    m_modeChooser->setObjectName(QStringLiteral("bodyMode"));
    m_modeChooser->addItem(tr("Formatted"), int(Mode::Auto));
    m_modeChooser->addItem(tr("Text"), int(Mode::Text));
    m_modeChooser->addItem(tr("Hex"), int(Mode::Hex));
    m_modeChooser->setToolTip(tr("Formatted: JSON as a tree, images as pictures, binary as hex. Text: the bytes as "
                                 "text (JSON indented). Hex: a hex dump."));
    m_copy->setObjectName(QStringLiteral("copyBody"));
    m_copy->setText(tr("Copy body"));
    m_copy->setToolTip(tr("Copy all of the body that was kept (JSON indented, binary as a hex dump)"));

    m_empty->setObjectName(QStringLiteral("bodyEmpty"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setForegroundRole(QPalette::PlaceholderText);

    m_tree->setObjectName(QStringLiteral("jsonTree"));
    m_tree->setModel(m_treeModel);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tree->setSelectionBehavior(QAbstractItemView::SelectRows);

    m_text->setObjectName(QStringLiteral("bodyText"));
    m_text->setReadOnly(true);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_text->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere); // base64 and minified JSON too

    m_image->setObjectName(QStringLiteral("bodyImage"));
    m_image->setAlignment(Qt::AlignCenter);
    m_imageArea->setWidget(m_image);
    m_imageArea->setWidgetResizable(true);
    m_imageArea->setAlignment(Qt::AlignCenter);

    m_stack->insertWidget(EmptyPage, m_empty);
    m_stack->insertWidget(TreePage, m_tree);
    m_stack->insertWidget(TextPage, m_text);
    m_stack->insertWidget(ImagePage, m_imageArea);

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_summaryLabel, 1);
    bar->addWidget(m_modeChooser);
    bar->addWidget(m_copy);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addLayout(bar);
    layout->addWidget(m_noteLabel);
    layout->addWidget(m_stack, 1);

    connect(m_modeChooser, &QComboBox::activated, this,
        [this](int index) { setMode(Mode(m_modeChooser->itemData(index).toInt())); });
    connect(m_copy, &QToolButton::clicked, this, [this] {
        copyToClipboard();
        Q_EMIT copied();
    });
    refresh();
}

void BodyView::setBody(const Body &body)
{
    m_body = body;
    m_kind = detect(body.bytes, body.contentType);
    m_picture = QImage();
    m_imageFormat.clear();
    if (m_kind == Kind::Image) {
        QBuffer buffer;
        buffer.setData(body.bytes);
        buffer.open(QIODevice::ReadOnly);
        QImageReader reader(&buffer);
        m_imageFormat = reader.format();
        m_picture = reader.read();
        if (m_picture.isNull())
            m_kind = Kind::Binary; // refresh() says why
    }
    refresh();
}

void BodyView::setMode(Mode mode)
{
    if (mode == m_mode)
        return;
    m_mode = mode;
    m_modeChooser->setCurrentIndex(m_modeChooser->findData(int(mode)));
    refresh();
}

QString BodyView::charsetOf(const QByteArray &contentType)
{
    for (const QByteArray &parameter : contentType.split(';')) {
        const QByteArray trimmed = parameter.trimmed();
        if (trimmed.toLower().startsWith("charset=")) {
            QByteArray value = trimmed.mid(8).trimmed();
            if (value.size() >= 2 && value.startsWith('"') && value.endsWith('"'))
                value = value.mid(1, value.size() - 2);
            if (!value.isEmpty())
                return QString::fromLatin1(value).toLower();
        }
    }
    return QStringLiteral("utf-8");
}

BodyView::Kind BodyView::detect(const QByteArray &bytes, const QByteArray &contentType)
{
    if (bytes.isEmpty())
        return Kind::None;
    const QByteArray type = mediaType(contentType);
    if (type.contains("json"))
        return isJson(bytes) ? Kind::Json : looksLikeText(bytes) ? Kind::Text : Kind::Binary;
    if (type.startsWith("image/"))
        return imageFormatOf(bytes).isEmpty() ? Kind::Binary : Kind::Image;
    if (isTextType(type))
        return Kind::Text;
    if (!imageFormatOf(bytes).isEmpty())
        return Kind::Image;
    if (type == "application/octet-stream")
        return Kind::Binary;
    const QByteArray trimmed = bytes.trimmed();
    if ((trimmed.startsWith('{') || trimmed.startsWith('[')) && isJson(bytes))
        return Kind::Json;
    return looksLikeText(bytes) ? Kind::Text : Kind::Binary;
}

QString BodyView::decode(const QByteArray &bytes, const QString &charset, bool *known)
{
    const QString name = charset.trimmed().toLower();
    // US-ASCII is a subset of UTF-8; Qt does not list it by that name.
    const bool ascii = name == QLatin1String("us-ascii") || name == QLatin1String("ascii");
    QStringDecoder decoder(ascii ? "UTF-8" : name.toLatin1().constData());
    if (known)
        *known = decoder.isValid();
    if (!decoder.isValid())
        decoder = QStringDecoder(QStringDecoder::Utf8);
    return decoder.decode(bytes);
}

QString BodyView::hexDump(const QByteArray &bytes, qsizetype maxBytes)
{
    const qsizetype shown = std::min(bytes.size(), maxBytes);
    QString out;
    out.reserve((shown / 16 + 1) * 80);
    for (qsizetype line = 0; line < shown; line += 16) {
        out += QStringLiteral("%1 ").arg(line, 8, 16, QLatin1Char('0'));
        QString ascii;
        for (qsizetype i = 0; i < 16; ++i) {
            if (i == 8)
                out += QLatin1Char(' ');
            if (line + i < shown) {
                const auto byte = uchar(bytes.at(line + i));
                out += QStringLiteral(" %1").arg(byte, 2, 16, QLatin1Char('0'));
                ascii += byte >= 0x20 && byte < 0x7f ? QLatin1Char(char(byte)) : QLatin1Char('.');
            } else {
                out += QStringLiteral("   ");
            }
        }
        out += QStringLiteral("  |") + ascii + QStringLiteral("|\n");
    }
    return out;
}

QString BodyView::sizeText(qint64 bytes)
{
    const QLocale locale;
    if (bytes < 1024)
        return bytes == 1 ? tr("1 byte") : tr("%1 bytes").arg(locale.toString(bytes));
    return tr("%1 (%2 bytes)")
        .arg(locale.formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat), locale.toString(bytes));
}

QString BodyView::prettyJson() const
{
    const QJsonDocument document = QJsonDocument::fromJson(m_body.bytes);
    return QString::fromUtf8(document.toJson(QJsonDocument::Indented));
}

QString BodyView::summary() const
{
    const qint64 total = m_body.totalBytes >= 0 ? m_body.totalBytes : m_body.bytes.size();
    QString what;
    switch (m_kind) {
    case Kind::None:
        if (!m_body.dropped)
            return m_body.absentNote.isEmpty() ? tr("No body") : m_body.absentNote;
        what = tr("Body");
        break;
    case Kind::Json:
        what = tr("JSON");
        break;
    case Kind::Text: {
        bool known = true;
        decode(QByteArray(), charsetOf(m_body.contentType), &known);
        what = tr("Text, %1").arg(known ? charsetOf(m_body.contentType).toUpper() : QStringLiteral("UTF-8"));
        break;
    }
    case Kind::Image:
        what = tr("%1 image, %2 \u00d7 %3 px")
                   .arg(QString::fromLatin1(m_imageFormat.toUpper()))
                   .arg(m_picture.width())
                   .arg(m_picture.height());
        break;
    case Kind::Binary:
        what = tr("Binary");
        break;
    }
    const QByteArray type = mediaType(m_body.contentType);
    if (!type.isEmpty() && m_kind != Kind::Image)
        what += QStringLiteral(" (%1)").arg(QString::fromLatin1(type));
    return tr("%1 \u00b7 %2").arg(what, sizeText(total));
}

QString BodyView::note() const
{
    QStringList parts;
    const qint64 total = m_body.totalBytes >= 0 ? m_body.totalBytes : m_body.bytes.size();
    if (m_body.dropped) {
        parts.append(tr("Body dropped to bound memory: the run keeps the newest bodies, %1 of this one are gone.")
                         .arg(sizeText(total)));
    } else if (m_body.truncated && total > m_body.bytes.size()) {
        parts.append(tr("Only the first %1 of %2 were kept.").arg(sizeText(m_body.bytes.size()), sizeText(total)));
    }
    if (m_kind == Kind::Text && m_mode == Mode::Auto) {
        bool known = true;
        const QString charset = charsetOf(m_body.contentType);
        decode(QByteArray(), charset, &known);
        if (!known)
            parts.append(tr("The charset \"%1\" is not known here: shown as UTF-8.").arg(charset));
        if (mediaType(m_body.contentType).contains("json"))
            parts.append(tr("Not valid JSON (cut short?): shown as text."));
    }
    if (m_kind == Kind::Binary && mediaType(m_body.contentType).startsWith("image/"))
        parts.append(tr("The image could not be decoded: shown as a hex dump."));
    if (!m_viewNote.isEmpty())
        parts.append(m_viewNote);
    return parts.join(QLatin1Char(' '));
}

QString BodyView::copyText() const
{
    if (m_body.bytes.isEmpty())
        return {};
    const Kind shownAs = m_mode == Mode::Hex ? Kind::Binary : m_mode == Mode::Text ? Kind::Text : m_kind;
    switch (shownAs) {
    case Kind::Json:
        return prettyJson();
    case Kind::Text:
        return m_kind == Kind::Json ? prettyJson() : decode(m_body.bytes, charsetOf(m_body.contentType));
    case Kind::Image:
    case Kind::Binary:
    case Kind::None:
        break;
    }
    return hexDump(m_body.bytes, m_body.bytes.size());
}

void BodyView::copyToClipboard() const
{
    auto *mime = new QMimeData;
    if (m_kind == Kind::Image && m_mode == Mode::Auto) {
        mime->setImageData(m_picture);
        if (const QByteArray type = mediaType(m_body.contentType); !type.isEmpty())
            mime->setData(QString::fromLatin1(type), m_body.bytes);
    } else {
        mime->setText(copyText());
    }
    QApplication::clipboard()->setMimeData(mime);
}

void BodyView::refresh()
{
    m_viewNote.clear();
    const bool hasBytes = !m_body.bytes.isEmpty();
    m_copy->setEnabled(hasBytes);
    m_modeChooser->setEnabled(hasBytes);
    if (!hasBytes) {
        m_empty->setText(m_body.dropped ? tr("Body dropped to bound memory")
                                        : (m_body.absentNote.isEmpty() ? tr("No body") : m_body.absentNote));
        m_stack->setCurrentIndex(EmptyPage);
    } else if (m_mode == Mode::Hex || (m_mode == Mode::Auto && m_kind == Kind::Binary)) {
        showHex();
    } else if (m_mode == Mode::Text) {
        const QString text = m_kind == Kind::Json ? prettyJson() : decode(m_body.bytes, charsetOf(m_body.contentType));
        showText(text, text.size());
    } else if (m_kind == Kind::Json) {
        showJsonTree();
    } else if (m_kind == Kind::Image) {
        showImage();
    } else {
        const QString text = decode(m_body.bytes, charsetOf(m_body.contentType));
        showText(text, text.size());
    }
    m_summaryLabel->setText(summary());
    const QString text = note();
    m_noteLabel->setText(text);
    m_noteLabel->setVisible(!text.isEmpty());
}

void BodyView::showText(const QString &text, qsizetype totalChars)
{
    if (totalChars > maxShownChars) {
        m_text->setPlainText(text.left(maxShownChars));
        m_viewNote = tr("Showing the first %1 of %2 characters; Copy takes them all.")
                         .arg(QLocale().toString(maxShownChars), QLocale().toString(totalChars));
    } else {
        m_text->setPlainText(text);
    }
    m_text->setLineWrapMode(m_kind == Kind::Json ? QPlainTextEdit::NoWrap : QPlainTextEdit::WidgetWidth);
    m_stack->setCurrentIndex(TextPage);
}

void BodyView::showHex()
{
    m_text->setPlainText(hexDump(m_body.bytes, maxHexBytes));
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    if (m_body.bytes.size() > maxHexBytes) {
        m_viewNote = tr("Showing the first %1 as hex; Copy takes all %2.")
                         .arg(sizeText(maxHexBytes), sizeText(m_body.bytes.size()));
    }
    m_stack->setCurrentIndex(TextPage);
}

void BodyView::showImage()
{
    QPixmap pixmap = QPixmap::fromImage(m_picture);
    // A small picture keeps its pixels; a very large one is scaled down (the scroll area shows the rest).
    constexpr int largest = 1200;
    if (pixmap.width() > largest || pixmap.height() > largest)
        pixmap = pixmap.scaled(QSize(largest, largest), Qt::KeepAspectRatio, Qt::SmoothTransformation);
    m_image->setPixmap(pixmap);
    m_stack->setCurrentIndex(ImagePage);
}

void BodyView::showJsonTree()
{
    m_treeModel->clear();
    m_treeModel->setHorizontalHeaderLabels({tr("Key"), tr("Value")});
    const QJsonDocument document = QJsonDocument::fromJson(m_body.bytes);
    int nodes = 0;
    int skipped = 0;
    // Depth-first, so that what is shown is the beginning of the document.
    const auto add = [&](auto &self, QStandardItem *parent, const QString &key, const QJsonValue &value) -> void {
        if (nodes >= maxJsonNodes) {
            ++skipped;
            return;
        }
        ++nodes;
        auto *keyItem = new QStandardItem(key);
        auto *valueItem = new QStandardItem;
        parent->appendRow({keyItem, valueItem});
        if (value.isObject()) {
            const QJsonObject object = value.toObject();
            valueItem->setText(object.size() == 1 ? tr("{1 key}") : tr("{%1 keys}").arg(object.size()));
            valueItem->setForeground(palette().brush(QPalette::PlaceholderText));
            for (auto it = object.begin(); it != object.end(); ++it)
                self(self, keyItem, it.key(), it.value());
        } else if (value.isArray()) {
            const QJsonArray array = value.toArray();
            valueItem->setText(array.size() == 1 ? tr("[1 item]") : tr("[%1 items]").arg(array.size()));
            valueItem->setForeground(palette().brush(QPalette::PlaceholderText));
            for (qsizetype i = 0; i < array.size(); ++i)
                self(self, keyItem, QString::number(i), array.at(i));
        } else {
            valueItem->setText(jsonScalar(value));
            valueItem->setToolTip(value.isString() && value.toString().size() > 80 ? value.toString() : QString());
        }
    };
    QStandardItem *root = m_treeModel->invisibleRootItem();
    if (document.isObject()) {
        const QJsonObject object = document.object();
        for (auto it = object.begin(); it != object.end(); ++it)
            add(add, root, it.key(), it.value());
    } else {
        const QJsonArray array = document.array();
        for (qsizetype i = 0; i < array.size(); ++i)
            add(add, root, QString::number(i), array.at(i));
    }
    if (skipped > 0) {
        m_viewNote = tr("The tree shows the first %1 values of %2; Text shows all of it.")
                         .arg(QLocale().toString(nodes), QLocale().toString(nodes + skipped));
    }
    // Fold markers only where there is something to fold.
    bool nested = false;
    for (int r = 0; r < root->rowCount() && !nested; ++r)
        nested = root->child(r)->hasChildren();
    m_tree->setRootIsDecorated(nested);
    if (nodes <= 300)
        m_tree->expandAll();
    else
        m_tree->expandToDepth(0);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setStretchLastSection(true);
    m_stack->setCurrentIndex(TreePage);
}

} // namespace RetryLab::Ui
