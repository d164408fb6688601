#include "ui/widgets/credentialmask.h"

#include "core/http/redactor.h"
#include "ui/session/uitr.h"

namespace RetryLab::Ui::CredentialMask {

bool isCredentialHeader(const QString &name)
{
    const QString trimmed = name.trimmed();
    return !trimmed.isEmpty() && Core::Redactor::isSensitiveHeader(trimmed.toLatin1());
}

QString masked(const QString &value)
{
    return value.isEmpty() ? QString() : QString(8, QChar(0x2022));
}

QString maskedToolTip()
{
    return Tr::tr("A credential: hidden on screen and redacted in exports. Use \"Show credentials\" to see it.");
}

} // namespace RetryLab::Ui::CredentialMask
