#pragma once

#include <QString>
#include <QTranslator>

namespace RetryLab::Core {

/// The English numerus forms of RetryLab's own texts. Counted texts are
/// written once, Qt's way: tr("%n attempt(s)", nullptr, n). Qt picks the
/// plural form through a translator and, with none installed, prints the
/// "(s)" as it is. This translator knows the one rule those texts need in
/// English: "(s)" becomes "" when n is 1 and "s" otherwise. Texts without a
/// count, or without "(s)", are left to the next translator or the source.
class EnglishPlurals final : public QTranslator
{
    Q_OBJECT

public:
    using QTranslator::QTranslator;

    QString translate(
        const char *context, const char *sourceText, const char *disambiguation = nullptr, int n = -1) const override;
    bool isEmpty() const override { return false; }

    /// The rule itself, for a text whose %n is still unreplaced.
    static QString resolve(const QString &text, int n);
    /// Installs one translator for the application (owned by it); a second call does nothing.
    static void install();
};

} // namespace RetryLab::Core
