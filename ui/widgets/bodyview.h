#pragma once

#include <QByteArray>
#include <QImage>
#include <QString>
#include <QWidget>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QScrollArea;
class QStackedWidget;
class QStandardItemModel;
class QToolButton;
class QTreeView;

namespace RetryLab::Ui {

/// An HTTP body, shown the way its content asks: JSON as a tree that folds (or
/// pretty-printed text), text in its charset, images as pictures (whatever Qt's image
/// plugins read: PNG, JPEG, GIF, and WebP and SVG where their plugins are installed),
/// anything else as a hex dump. The line above it says what it is and how large, and
/// whether only a part of it was kept, or none of it any more.
///
/// Large bodies are shown in part (text, hex dump, JSON tree alike), with the sizes
/// said, so that a 1 MiB body does not freeze the window; "Copy" takes all that was kept.
class BodyView final : public QWidget
{
    Q_OBJECT

public:
    enum class Kind { None, Json, Text, Image, Binary };
    Q_ENUM(Kind)
    /// How the body is shown: as its kind asks, as text, or as a hex dump.
    enum class Mode { Auto, Text, Hex };
    Q_ENUM(Mode)

    struct Body
    {
        QByteArray bytes; ///< what was kept
        QByteArray contentType; ///< the Content-Type header's value; empty when there was none
        qint64 totalBytes = -1; ///< how many bytes there were in all; -1: bytes.size()
        bool truncated = false; ///< `bytes` is only the first part of them
        bool dropped = false; ///< there was a body, dropped since to bound memory
        /// Said instead of an empty view when there is no body ("no response").
        QString absentNote;
    };

    /// Parts shown, at most: characters of text, bytes of a hex dump, nodes of a JSON tree.
    /// (Qt lays out a long line without a break opportunity slowly: 64 Ki characters
    /// of one take about a third of a second.)
    static constexpr qsizetype maxShownChars = 64 * 1024;
    static constexpr qsizetype maxHexBytes = 64 * 1024;
    static constexpr int maxJsonNodes = 5000;

    explicit BodyView(QWidget *parent = nullptr);

    void setBody(const Body &body);
    const Body &body() const { return m_body; }
    Kind kind() const { return m_kind; }
    void setMode(Mode mode);
    Mode mode() const { return m_mode; }

    /// "JSON", "Text, UTF-8", "PNG image, 16 × 16", "Binary"; with the size.
    QString summary() const;
    /// The line that says what was kept and what is shown ("Showing the first ...").
    QString note() const;
    /// What Copy puts on the clipboard as text: the JSON pretty-printed, the text as
    /// decoded, anything else as a hex dump; all that was kept, not only what is shown.
    QString copyText() const;
    /// Copies the body: copyText(), and an image as an image too.
    void copyToClipboard() const;

    /// The charset named by a Content-Type ("utf-8" when none is).
    static QString charsetOf(const QByteArray &contentType);
    /// What `bytes` are, by their Content-Type and by their content.
    static Kind detect(const QByteArray &bytes, const QByteArray &contentType);
    /// "00000000  7b 22 61 22 ...  |{"a"...|", 16 bytes a line, the first `maxBytes`.
    static QString hexDump(const QByteArray &bytes, qsizetype maxBytes);
    /// The text of `bytes` in `charset` (UTF-8 when Qt does not know it); `known` says whether it did.
    static QString decode(const QByteArray &bytes, const QString &charset, bool *known = nullptr);
    /// "1.5 KiB (1,536 bytes)".
    static QString sizeText(qint64 bytes);

    QTreeView *jsonTree() const { return m_tree; }
    QPlainTextEdit *textView() const { return m_text; }
    QLabel *imageLabel() const { return m_image; }
    QToolButton *copyButton() const { return m_copy; }
    QComboBox *modeChooser() const { return m_modeChooser; }
    QLabel *noteLabel() const { return m_noteLabel; }

Q_SIGNALS:
    /// The body was copied (the inspector says so).
    void copied();

private:
    void refresh();
    void showJsonTree();
    void showText(const QString &text, qsizetype totalChars);
    void showHex();
    void showImage();
    QString prettyJson() const;

    Body m_body;
    Kind m_kind = Kind::None;
    Mode m_mode = Mode::Auto;
    QImage m_picture; ///< the decoded image, when kind() is Image
    QByteArray m_imageFormat;
    QString m_viewNote; ///< what the current view leaves out

    QLabel *m_summaryLabel;
    QLabel *m_noteLabel;
    QComboBox *m_modeChooser;
    QToolButton *m_copy;
    QStackedWidget *m_stack;
    QLabel *m_empty;
    QTreeView *m_tree;
    QStandardItemModel *m_treeModel;
    QPlainTextEdit *m_text;
    QScrollArea *m_imageArea;
    QLabel *m_image;
};

} // namespace RetryLab::Ui
