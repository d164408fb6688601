#pragma once

#include "ui/session/run/attemptstore.h"

#include <QString>

namespace RetryLab::Ui::RunText {

/// "#12 label" or "#12 GET /path" for lanes and tooltips; credentials never shown.
/// Once the run holds requests to two hosts, every title names its host
/// ("#12 GET 127.0.0.1:8080/path", "#12 label @ host").
QString laneTitle(const AttemptStore &store, qsizetype lane);

/// "503 Service Unavailable", "connection refused (ConnectionRefusedError)", "in flight", ...
QString statusText(const AttemptStore &store, const AttemptStore::AttemptRow &row);

/// An interned detail (AttemptRow::detail): method, step and reason phrase as one
/// searchable text; empty for an id the store does not have.
QString detailText(const AttemptStore &store, quint32 detail);

} // namespace RetryLab::Ui::RunText
