#pragma once

#include <QString>

namespace RetryLab::Ui {

/// How credentials look on screen, wherever headers are shown (the request composer's
/// header table, the attempt inspector): the value of a credential header (Authorization,
/// cookies, API keys, tokens: Core::Redactor's rule) shows as eight bullets until the user
/// chooses "Show credentials", so that a screen share or a screenshot does not leak it.
namespace CredentialMask {

/// Whether a header's value is a credential.
bool isCredentialHeader(const QString &name);
/// What a masked value shows: eight bullets, or nothing for an empty value (the
/// number of bullets never tells the length).
QString masked(const QString &value);
/// The tooltip of a masked value.
QString maskedToolTip();

} // namespace CredentialMask

} // namespace RetryLab::Ui
