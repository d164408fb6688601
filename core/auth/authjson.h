#pragma once

#include "core/auth/authspec.h"

#include "core/util/result.h"

#include <QJsonObject>

namespace RetryLab::Core {

class JsonReader;

/// AuthSpec as JSON, in one spelling for collections, scenario and monitor
/// files, `retrylab request --auth FILE` and the window's settings:
///
///   {"type": "basic", "username": "ada", "password": "..."}
///   {"type": "bearer", "token": "..."}
///   {"type": "apikey", "key": "X-API-Key", "value": "...", "in": "header"}   ("query")
///   {"type": "digest", "username": "ada", "password": "..."}
///   {"type": "oauth2-client-credentials", "tokenUrl": "...", "clientId": "...",
///    "clientSecret": "...", "scope": "read write", "audience": "...", "clientAuth": "basic"}  ("body")
///   {"type": "oauth2-refresh-token", "tokenUrl": ..., "clientId": ..., "refreshToken": ...}
///   {"type": "oauth2-authorization-code", "authorizationUrl": ..., "tokenUrl": ..., "clientId": ...}
///   {"type": "aws-sigv4", "accessKeyId": ..., "secretAccessKey": ..., "sessionToken": ...,
///    "region": "us-east-1", "service": "s3", "presign": false, "expires": 3600}
///   {"type": "google-service-account", "keyFile": "key.json", "scope": "..."}
///   {"type": "none"}, {"type": "inherit"}
///
/// Only the fields of its type are written; reading refuses fields that are not
/// (with the closest known name) and a type it does not know (with the known ones).
namespace AuthJson {

/// Whether toJson() writes passwords, tokens and other secrets (AuthSpec::secrets()).
/// Exports never do; a file the user saves does only when the user opts in.
enum class Secrets { Leave, Write };

QJsonObject toJson(const AuthSpec &auth, Secrets secrets = Secrets::Leave);
AuthSpec read(JsonReader &reader);

/// The auth object of a file of its own (`retrylab request --auth FILE`); a
/// relative keyFile is taken from the file's folder. Errors name the file and
/// the field, never a secret.
Result<AuthSpec> readFile(const QString &path);

/// What is missing for the auth to be sent at all ("the AWS secret access key
/// is empty"), once its variables are filled in; empty when nothing is.
QString problem(const AuthSpec &auth);

} // namespace AuthJson

} // namespace RetryLab::Core
