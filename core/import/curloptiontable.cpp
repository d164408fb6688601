#include "core/import/curloptiontable.h"

#include <QStringList>

#include <algorithm>
#include <array>

namespace RetryLab::Core::CurlOptionTable {

namespace {

// Every option `curl --help all` lists (curl 7.88.1, Debian 12), with its
// short form and the name of its value as curl's help gives it, and a few added
// since (so that their values are not mistaken for URLs). Sorted by long name.
constexpr std::array entries{
    Entry{"abstract-unix-socket", 0, "<path>"},
    Entry{"alt-svc", 0, "<file name>"},
    Entry{"anyauth", 0, nullptr},
    Entry{"append", 'a', nullptr},
    Entry{"aws-sigv4", 0, "<provider1[:provider2[:region[:service]]]>"},
    Entry{"basic", 0, nullptr},
    Entry{"ca-native", 0, nullptr},
    Entry{"cacert", 0, "<file>"},
    Entry{"capath", 0, "<dir>"},
    Entry{"cert", 'E', "<certificate[:password]>"},
    Entry{"cert-status", 0, nullptr},
    Entry{"cert-type", 0, "<type>"},
    Entry{"ciphers", 0, "<list of ciphers>"},
    Entry{"compressed", 0, nullptr},
    Entry{"compressed-ssh", 0, nullptr},
    Entry{"config", 'K', "<file>"},
    Entry{"connect-timeout", 0, "<fractional seconds>"},
    Entry{"connect-to", 0, "<HOST1:PORT1:HOST2:PORT2>"},
    Entry{"continue-at", 'C', "<offset>"},
    Entry{"cookie", 'b', "<data|filename>"},
    Entry{"cookie-jar", 'c', "<filename>"},
    Entry{"create-dirs", 0, nullptr},
    Entry{"create-file-mode", 0, "<mode>"},
    Entry{"crlf", 0, nullptr},
    Entry{"crlfile", 0, "<file>"},
    Entry{"curves", 0, "<algorithm list>"},
    Entry{"data", 'd', "<data>"},
    Entry{"data-ascii", 0, "<data>"},
    Entry{"data-binary", 0, "<data>"},
    Entry{"data-raw", 0, "<data>"},
    Entry{"data-urlencode", 0, "<data>"},
    Entry{"delegation", 0, "<LEVEL>"},
    Entry{"digest", 0, nullptr},
    Entry{"disable", 'q', nullptr},
    Entry{"disable-eprt", 0, nullptr},
    Entry{"disable-epsv", 0, nullptr},
    Entry{"disallow-username-in-url", 0, nullptr},
    Entry{"dns-interface", 0, "<interface>"},
    Entry{"dns-ipv4-addr", 0, "<address>"},
    Entry{"dns-ipv6-addr", 0, "<address>"},
    Entry{"dns-servers", 0, "<addresses>"},
    Entry{"doh-cert-status", 0, nullptr},
    Entry{"doh-insecure", 0, nullptr},
    Entry{"doh-url", 0, "<URL>"},
    Entry{"dump-header", 'D', "<filename>"},
    Entry{"ech", 0, "<config>"},
    Entry{"egd-file", 0, "<file>"},
    Entry{"engine", 0, "<name>"},
    Entry{"etag-compare", 0, "<file>"},
    Entry{"etag-save", 0, "<file>"},
    Entry{"expand-data", 0, "<data>"},
    Entry{"expand-header", 0, "<header>"},
    Entry{"expand-url", 0, "<url>"},
    Entry{"expect100-timeout", 0, "<seconds>"},
    Entry{"fail", 'f', nullptr},
    Entry{"fail-early", 0, nullptr},
    Entry{"fail-with-body", 0, nullptr},
    Entry{"false-start", 0, nullptr},
    Entry{"follow", 0, nullptr},
    Entry{"form", 'F', "<name=content>"},
    Entry{"form-escape", 0, nullptr},
    Entry{"form-string", 0, "<name=string>"},
    Entry{"ftp-account", 0, "<data>"},
    Entry{"ftp-alternative-to-user", 0, "<command>"},
    Entry{"ftp-create-dirs", 0, nullptr},
    Entry{"ftp-method", 0, "<method>"},
    Entry{"ftp-pasv", 0, nullptr},
    Entry{"ftp-port", 'P', "<address>"},
    Entry{"ftp-pret", 0, nullptr},
    Entry{"ftp-skip-pasv-ip", 0, nullptr},
    Entry{"ftp-ssl-ccc", 0, nullptr},
    Entry{"ftp-ssl-ccc-mode", 0, "<active/passive>"},
    Entry{"ftp-ssl-control", 0, nullptr},
    Entry{"get", 'G', nullptr},
    Entry{"globoff", 'g', nullptr},
    Entry{"happy-eyeballs-timeout-ms", 0, "<milliseconds>"},
    Entry{"haproxy-protocol", 0, nullptr},
    Entry{"head", 'I', nullptr},
    Entry{"header", 'H', "<header/@file>"},
    Entry{"help", 'h', nullptr},
    Entry{"hostpubmd5", 0, "<md5>"},
    Entry{"hostpubsha256", 0, "<sha256>"},
    Entry{"hsts", 0, "<file name>"},
    Entry{"http0.9", 0, nullptr},
    Entry{"http1.0", '0', nullptr},
    Entry{"http1.1", 0, nullptr},
    Entry{"http2", 0, nullptr},
    Entry{"http2-prior-knowledge", 0, nullptr},
    Entry{"http3", 0, nullptr},
    Entry{"http3-only", 0, nullptr},
    Entry{"ignore-content-length", 0, nullptr},
    Entry{"include", 'i', nullptr},
    Entry{"insecure", 'k', nullptr},
    Entry{"interface", 0, "<name>"},
    Entry{"ip-tos", 0, "<string>"},
    Entry{"ipfs-gateway", 0, "<URL>"},
    Entry{"ipv4", '4', nullptr},
    Entry{"ipv6", '6', nullptr},
    Entry{"json", 0, "<data>"},
    Entry{"junk-session-cookies", 'j', nullptr},
    Entry{"keepalive-time", 0, "<seconds>"},
    Entry{"key", 0, "<key>"},
    Entry{"key-type", 0, "<type>"},
    Entry{"krb", 0, "<level>"},
    Entry{"libcurl", 0, "<file>"},
    Entry{"limit-rate", 0, "<speed>"},
    Entry{"list-only", 'l', nullptr},
    Entry{"local-port", 0, "<num/range>"},
    Entry{"location", 'L', nullptr},
    Entry{"location-trusted", 0, nullptr},
    Entry{"login-options", 0, "<options>"},
    Entry{"mail-auth", 0, "<address>"},
    Entry{"mail-from", 0, "<address>"},
    Entry{"mail-rcpt", 0, "<address>"},
    Entry{"mail-rcpt-allowfails", 0, nullptr},
    Entry{"manual", 'M', nullptr},
    Entry{"max-filesize", 0, "<bytes>"},
    Entry{"max-redirs", 0, "<num>"},
    Entry{"max-time", 'm', "<fractional seconds>"},
    Entry{"metalink", 0, nullptr},
    Entry{"mptcp", 0, nullptr},
    Entry{"negotiate", 0, nullptr},
    Entry{"netrc", 'n', nullptr},
    Entry{"netrc-file", 0, "<filename>"},
    Entry{"netrc-optional", 0, nullptr},
    Entry{"next", ':', nullptr},
    Entry{"no-alpn", 0, nullptr},
    Entry{"no-buffer", 'N', nullptr},
    Entry{"no-clobber", 0, nullptr},
    Entry{"no-keepalive", 0, nullptr},
    Entry{"no-npn", 0, nullptr},
    Entry{"no-progress-meter", 0, nullptr},
    Entry{"no-sessionid", 0, nullptr},
    Entry{"noproxy", 0, "<no-proxy-list>"},
    Entry{"ntlm", 0, nullptr},
    Entry{"ntlm-wb", 0, nullptr},
    Entry{"oauth2-bearer", 0, "<token>"},
    Entry{"out-null", 0, nullptr},
    Entry{"output", 'o', "<file>"},
    Entry{"output-dir", 0, "<dir>"},
    Entry{"parallel", 'Z', nullptr},
    Entry{"parallel-immediate", 0, nullptr},
    Entry{"parallel-max", 0, "<num>"},
    Entry{"pass", 0, "<phrase>"},
    Entry{"path-as-is", 0, nullptr},
    Entry{"pinnedpubkey", 0, "<hashes>"},
    Entry{"post301", 0, nullptr},
    Entry{"post302", 0, nullptr},
    Entry{"post303", 0, nullptr},
    Entry{"preproxy", 0, "[protocol://]host[:port]"},
    Entry{"progress-bar", '#', nullptr},
    Entry{"proto", 0, "<protocols>"},
    Entry{"proto-default", 0, "<protocol>"},
    Entry{"proto-redir", 0, "<protocols>"},
    Entry{"proxy", 'x', "[protocol://]host[:port]"},
    Entry{"proxy-anyauth", 0, nullptr},
    Entry{"proxy-basic", 0, nullptr},
    Entry{"proxy-ca-native", 0, nullptr},
    Entry{"proxy-cacert", 0, "<file>"},
    Entry{"proxy-capath", 0, "<dir>"},
    Entry{"proxy-cert", 0, "<cert[:passwd]>"},
    Entry{"proxy-cert-type", 0, "<type>"},
    Entry{"proxy-ciphers", 0, "<list>"},
    Entry{"proxy-crlfile", 0, "<file>"},
    Entry{"proxy-digest", 0, nullptr},
    Entry{"proxy-header", 0, "<header/@file>"},
    Entry{"proxy-http2", 0, nullptr},
    Entry{"proxy-insecure", 0, nullptr},
    Entry{"proxy-key", 0, "<key>"},
    Entry{"proxy-key-type", 0, "<type>"},
    Entry{"proxy-negotiate", 0, nullptr},
    Entry{"proxy-ntlm", 0, nullptr},
    Entry{"proxy-pass", 0, "<phrase>"},
    Entry{"proxy-pinnedpubkey", 0, "<hashes>"},
    Entry{"proxy-service-name", 0, "<name>"},
    Entry{"proxy-ssl-allow-beast", 0, nullptr},
    Entry{"proxy-ssl-auto-client-cert", 0, nullptr},
    Entry{"proxy-tls13-ciphers", 0, "<ciphersuite list>"},
    Entry{"proxy-tlsauthtype", 0, "<type>"},
    Entry{"proxy-tlspassword", 0, "<string>"},
    Entry{"proxy-tlsuser", 0, "<name>"},
    Entry{"proxy-tlsv1", 0, nullptr},
    Entry{"proxy-user", 'U', "<user:password>"},
    Entry{"proxy1.0", 0, "<host[:port]>"},
    Entry{"proxytunnel", 'p', nullptr},
    Entry{"pubkey", 0, "<key>"},
    Entry{"quote", 'Q', "<command>"},
    Entry{"random-file", 0, "<file>"},
    Entry{"range", 'r', "<range>"},
    Entry{"rate", 0, "<max request rate>"},
    Entry{"raw", 0, nullptr},
    Entry{"referer", 'e', "<URL>"},
    Entry{"remote-header-name", 'J', nullptr},
    Entry{"remote-name", 'O', nullptr},
    Entry{"remote-name-all", 0, nullptr},
    Entry{"remote-time", 'R', nullptr},
    Entry{"remove-on-error", 0, nullptr},
    Entry{"request", 'X', "<method>"},
    Entry{"request-target", 0, "<path>"},
    Entry{"resolve", 0, "<[+]host:port:addr[,addr]...>"},
    Entry{"retry", 0, "<num>"},
    Entry{"retry-all-errors", 0, nullptr},
    Entry{"retry-connrefused", 0, nullptr},
    Entry{"retry-delay", 0, "<seconds>"},
    Entry{"retry-max-time", 0, "<seconds>"},
    Entry{"sasl-authzid", 0, "<identity>"},
    Entry{"sasl-ir", 0, nullptr},
    Entry{"service-name", 0, "<name>"},
    Entry{"show-error", 'S', nullptr},
    Entry{"silent", 's', nullptr},
    Entry{"skip-existing", 0, nullptr},
    Entry{"socks4", 0, "<host[:port]>"},
    Entry{"socks4a", 0, "<host[:port]>"},
    Entry{"socks5", 0, "<host[:port]>"},
    Entry{"socks5-basic", 0, nullptr},
    Entry{"socks5-gssapi", 0, nullptr},
    Entry{"socks5-gssapi-nec", 0, nullptr},
    Entry{"socks5-gssapi-service", 0, "<name>"},
    Entry{"socks5-hostname", 0, "<host[:port]>"},
    Entry{"speed-limit", 'Y', "<speed>"},
    Entry{"speed-time", 'y', "<seconds>"},
    Entry{"ssl", 0, nullptr},
    Entry{"ssl-allow-beast", 0, nullptr},
    Entry{"ssl-auto-client-cert", 0, nullptr},
    Entry{"ssl-no-revoke", 0, nullptr},
    Entry{"ssl-reqd", 0, nullptr},
    Entry{"ssl-revoke-best-effort", 0, nullptr},
    Entry{"sslv2", '2', nullptr},
    Entry{"sslv3", '3', nullptr},
    Entry{"stderr", 0, "<file>"},
    Entry{"styled-output", 0, nullptr},
    Entry{"suppress-connect-headers", 0, nullptr},
    Entry{"tcp-fastopen", 0, nullptr},
    Entry{"tcp-nodelay", 0, nullptr},
    Entry{"telnet-option", 't', "<opt=val>"},
    Entry{"tftp-blksize", 0, "<value>"},
    Entry{"tftp-no-options", 0, nullptr},
    Entry{"time-cond", 'z', "<time>"},
    Entry{"tls-max", 0, "<VERSION>"},
    Entry{"tls13-ciphers", 0, "<ciphersuite list>"},
    Entry{"tlsauthtype", 0, "<type>"},
    Entry{"tlspassword", 0, "<string>"},
    Entry{"tlsuser", 0, "<name>"},
    Entry{"tlsv1", '1', nullptr},
    Entry{"tlsv1.0", 0, nullptr},
    Entry{"tlsv1.1", 0, nullptr},
    Entry{"tlsv1.2", 0, nullptr},
    Entry{"tlsv1.3", 0, nullptr},
    Entry{"tr-encoding", 0, nullptr},
    Entry{"trace", 0, "<file>"},
    Entry{"trace-ascii", 0, "<file>"},
    Entry{"trace-config", 0, "<string>"},
    Entry{"trace-time", 0, nullptr},
    Entry{"unix-socket", 0, "<path>"},
    Entry{"upload-file", 'T', "<file>"},
    Entry{"upload-flags", 0, "<flags>"},
    Entry{"url", 0, "<url>"},
    Entry{"url-query", 0, "<data>"},
    Entry{"use-ascii", 'B', nullptr},
    Entry{"user", 'u', "<user:password>"},
    Entry{"user-agent", 'A', "<name>"},
    Entry{"variable", 0, "<[%]name=text/@file>"},
    Entry{"verbose", 'v', nullptr},
    Entry{"version", 'V', nullptr},
    Entry{"vlan-priority", 0, "<priority>"},
    Entry{"write-out", 'w', "<format>"},
    Entry{"xattr", 0, nullptr},
};

} // namespace

std::span<const Entry> all()
{
    return entries;
}

const Entry *findExact(QLatin1StringView name)
{
    const auto it = std::lower_bound(entries.cbegin(), entries.cend(), name,
        [](const Entry &e, QLatin1StringView n) { return QLatin1StringView(e.longName) < n; });
    return (it != entries.cend() && QLatin1StringView(it->longName) == name) ? &*it : nullptr;
}

LongMatch findLong(QLatin1StringView name)
{
    LongMatch match;
    if ((match.entry = findExact(name)))
        return match;
    // --no-X switches a boolean option off.
    if (name.startsWith(QLatin1StringView("no-"))) {
        const Entry *positive = findExact(name.mid(3));
        if (positive && !positive->takesValue()) {
            match.entry = positive;
            match.negated = true;
            return match;
        }
    }
    // curl takes any unambiguous start of a long name.
    const Entry *only = nullptr;
    for (const Entry &e : entries) {
        if (!name.isEmpty() && QLatin1StringView(e.longName).startsWith(name)) {
            only = &e;
            match.candidates.append(QString::fromLatin1(e.longName));
        }
    }
    if (match.candidates.size() == 1) {
        match.entry = only;
        match.candidates.clear();
    }
    return match;
}

const Entry *findShort(char letter)
{
    const auto it
        = std::find_if(entries.cbegin(), entries.cend(), [letter](const Entry &e) { return e.shortName == letter; });
    return it != entries.cend() ? &*it : nullptr;
}

} // namespace RetryLab::Core::CurlOptionTable
