//! The address checks Helm's `Chart.yaml` rules make, through asaskevich/govalidator (the version Helm 4.1.4
//! pins, a9d515a): `IsRequestURL` for sources and the icon, `IsURL` and `IsEmail` for maintainers. Each stands on
//! Go's `net/url` parser, whose refusals decide as much as govalidator's patterns do, so the part of `url.Parse`
//! and `url.ParseRequestURI` that can refuse is ported here ([`parse`]); the patterns are govalidator's, with
//! Go's ASCII-only `\d`, `\s` and `\S` written out (Rust's are Unicode).

use regex::Regex;
use std::sync::LazyLock;

/// govalidator's `Email` pattern.
const EMAIL: &str = r#"^(((([a-zA-Z]|[0-9]|[!#\$%&'\*\+\-\/=\?\^_`{\|}~]|[\x{00A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}])+(\.([a-zA-Z]|[0-9]|[!#\$%&'\*\+\-\/=\?\^_`{\|}~]|[\x{00A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}])+)*)|((\x22)((((\x20|\x09)*(\x0d\x0a))?(\x20|\x09)+)?(([\x01-\x08\x0b\x0c\x0e-\x1f\x7f]|\x21|[\x23-\x5b]|[\x5d-\x7e]|[\x{00A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}])|(\([\x01-\x09\x0b\x0c\x0d-\x7f]|[\x{00A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}]))))*(((\x20|\x09)*(\x0d\x0a))?(\x20|\x09)+)?(\x22)))@((([a-zA-Z]|[0-9]|[\x{00A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}])|(([a-zA-Z]|[0-9]|[\x{00A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}])([a-zA-Z]|[0-9]|-|\.|_|~|[\x{00A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}])*([a-zA-Z]|[0-9]|[\x{00A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}])))\.)+(([a-zA-Z]|[\x{00A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}])|(([a-zA-Z]|[\x{00A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}])([a-zA-Z]|[0-9]|-|_|~|[\x{00A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}])*([a-zA-Z]|[\x{00A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}])))\.?$"#;

/// govalidator's `IP` pattern (inside `URL`).
const IP: &str = r"(([0-9a-fA-F]{1,4}:){7,7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:)|fe80:(:[0-9a-fA-F]{0,4}){0,4}%[0-9a-zA-Z]{1,}|::(ffff(:0{1,4}){0,1}:){0,1}((25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])|([0-9a-fA-F]{1,4}:){1,4}:((25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9]))";

/// govalidator's `URL` pattern, assembled from its parts as govalidator does.
fn url_pattern() -> String {
    let schema = r"((ftp|tcp|udp|wss?|https?):\/\/)";
    let username = r"([^\t\n\f\r ]+(:[^\t\n\f\r ]*)?@)";
    let path = r"((\/|\?|#)[^\t\n\f\r ]*)";
    let port = r"(:([0-9]{1,5}))";
    let url_ip = r"([1-9][0-9]?|1[0-9][0-9]|2[01][0-9]|22[0-3]|24[0-9]|25[0-5])(\.([0-9]{1,2}|1[0-9][0-9]|2[0-4][0-9]|25[0-5])){2}(?:\.([0-9][0-9]?|1[0-9][0-9]|2[0-4][0-9]|25[0-5]))";
    let subdomain = r"((www\.)|([a-zA-Z0-9]+([-_\.]?[a-zA-Z0-9])*[a-zA-Z0-9]\.[a-zA-Z0-9]+))";
    format!(
        r"^{schema}?{username}?(({url_ip}|(\[{IP}\])|(([a-zA-Z0-9]([a-zA-Z0-9-_]+)?[a-zA-Z0-9]([-\.][a-zA-Z0-9]+)*)|({subdomain}?))?(([a-zA-Z\x{{00a1}}-\x{{ffff}}0-9]+-?-?)*[a-zA-Z\x{{00a1}}-\x{{ffff}}0-9]+)(?:\.([a-zA-Z\x{{00a1}}-\x{{ffff}}]{{1,}}))?))\.?{port}?{path}?$"
    )
}

static EMAIL_PATTERN: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(EMAIL).ok());
static URL_PATTERN: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(&url_pattern()).ok());

/// govalidator's `maxURLRuneCount` and `minURLRuneCount`.
const MAX_URL_RUNES: usize = 2083;
const MIN_URL_RUNES: usize = 3;

/// govalidator `IsEmail`.
pub(super) fn is_email(text: &str) -> bool {
    EMAIL_PATTERN.as_ref().is_some_and(|pattern| pattern.is_match(text))
}

/// govalidator `IsRequestURL`: `url.ParseRequestURI` accepts it and it has a scheme.
pub(super) fn is_request_url(text: &str) -> bool {
    parse(text, true).is_some_and(|url| !url.scheme.is_empty())
}

/// govalidator `IsURL`.
pub(super) fn is_url(text: &str) -> bool {
    let runes = text.chars().count();
    if text.is_empty() || runes >= MAX_URL_RUNES || text.len() <= MIN_URL_RUNES || text.starts_with('.') {
        return false;
    }
    // "support no indicated urlscheme but with colon for port number"
    let parsed_text =
        if text.contains(':') && !text.contains("://") { format!("http://{text}") } else { text.to_string() };
    let Some(url) = parse_with_fragment(&parsed_text) else { return false };
    if url.host.starts_with('.') || (url.host.is_empty() && !url.path.is_empty() && !url.path.contains('.')) {
        return false;
    }
    URL_PATTERN.as_ref().is_some_and(|pattern| pattern.is_match(text))
}

/// What the checks read of a parsed URL.
#[derive(Debug, Default, PartialEq, Eq)]
struct Url {
    scheme: String,
    host: String,
    path: String,
}

/// `url.Parse`: the fragment cut off (and checked), the rest parsed as a reference.
fn parse_with_fragment(text: &str) -> Option<Url> {
    let (reference, fragment) = text.split_once('#').unwrap_or((text, ""));
    let url = parse(reference, false)?;
    unescape(fragment, Encoding::Fragment)?;
    Some(url)
}

/// net/url's `parse(rawURL, viaRequest)`: `None` where Go returns an error.
fn parse(text: &str, via_request: bool) -> Option<Url> {
    if text.bytes().any(|byte| byte < 0x20 || byte == 0x7f) || (text.is_empty() && via_request) {
        return None;
    }
    let mut url = Url::default();
    if text == "*" {
        url.path = "*".to_string();
        return Some(url);
    }
    let (scheme, rest) = scheme(text)?;
    url.scheme = scheme.to_ascii_lowercase();
    let rest = if rest.ends_with('?') && rest.matches('?').count() == 1 {
        &rest[..rest.len() - 1]
    } else {
        rest.split_once('?').map_or(rest, |(before, _)| before)
    };
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            return Some(url);
        }
        if via_request {
            return None;
        }
        // "first path segment in URL cannot contain colon"
        let segment = rest.split('/').next().unwrap_or_default();
        if segment.contains(':') {
            return None;
        }
    }
    let mut path = rest;
    if (!url.scheme.is_empty() || !via_request && !rest.starts_with("///")) && rest.starts_with("//") {
        let authority_and_path = &rest[2..];
        let (authority, after) = match authority_and_path.find('/') {
            Some(slash) => (&authority_and_path[..slash], &authority_and_path[slash..]),
            None => (authority_and_path, ""),
        };
        url.host = parse_authority(authority)?;
        path = after;
    }
    url.path = unescape(path, Encoding::Path)?;
    Some(url)
}

/// `getScheme`: the scheme and the rest; no scheme when the text does not start like one.
fn scheme(text: &str) -> Option<(&str, &str)> {
    for (index, byte) in text.bytes().enumerate() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if index > 0 => {}
            b':' if index == 0 => return None, // "missing protocol scheme"
            b':' => return Some((&text[..index], &text[index + 1..])),
            _ => return Some(("", text)),
        }
    }
    Some(("", text))
}

/// `parseAuthority`: the user information checked, the host returned unescaped.
fn parse_authority(authority: &str) -> Option<String> {
    let (userinfo, host) = match authority.rfind('@') {
        Some(at) => (Some(&authority[..at]), &authority[at + 1..]),
        None => (None, authority),
    };
    if let Some(userinfo) = userinfo {
        let valid = userinfo.bytes().all(|byte| byte.is_ascii_alphanumeric() || b"-._:~!$&'()*+,;=%@".contains(&byte));
        if !valid {
            return None;
        }
        let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
        unescape(user, Encoding::UserPassword)?;
        unescape(password, Encoding::UserPassword)?;
    }
    parse_host(host)
}

/// `parseHost`: an IP literal in brackets or a name, an optional numeric port, escapes only where allowed.
fn parse_host(host: &str) -> Option<String> {
    if host.starts_with('[') {
        let close = host.rfind(']')?;
        let port = &host[close + 1..];
        if !is_optional_port(port) {
            return None;
        }
        return unescape(host, Encoding::Host);
    }
    if let Some(colon) = host.rfind(':')
        && !is_optional_port(&host[colon..])
    {
        return None;
    }
    unescape(host, Encoding::Host)
}

/// `validOptionalPort`: empty, or `:` and digits.
fn is_optional_port(port: &str) -> bool {
    match port.strip_prefix(':') {
        Some(digits) => digits.bytes().all(|byte| byte.is_ascii_digit()),
        None => port.is_empty(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Path,
    Host,
    UserPassword,
    Fragment,
}

/// net/url's `unescape`: `%XX` escapes decoded, a bad escape refused, and in a host the characters a host may
/// not hold refused.
fn unescape(text: &str, encoding: Encoding) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        if byte == b'%' {
            let high = bytes.get(index + 1).and_then(|digit| char::from(*digit).to_digit(16))?;
            let low = bytes.get(index + 2).and_then(|digit| char::from(*digit).to_digit(16))?;
            // Only `%25` and, in IPv6 zones, UTF-8 escapes may appear in a host; Go refuses the rest there.
            if encoding == Encoding::Host && high < 8 && !(high == 2 && low == 5) && !text[..index].contains('[') {
                return None;
            }
            out.push(u8::try_from(high * 16 + low).ok()?);
            index += 3;
            continue;
        }
        if encoding == Encoding::Host && byte < 0x80 && host_must_escape(byte) {
            return None;
        }
        out.push(byte);
        index += 1;
    }
    String::from_utf8(out).ok().or_else(|| Some(String::new()))
}

/// `shouldEscape(c, encodeHost)`: what a host may not hold unescaped.
fn host_must_escape(byte: u8) -> bool {
    !(byte.is_ascii_alphanumeric() || b"-_.~!$&'()*+,;=:[]<>\"".contains(&byte))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_urls_need_a_scheme_and_a_parseable_rest() {
        let cases = [
            ("https://github.com/example/chart", true),
            ("https://example.com/icon.png", true),
            ("http://localhost:8080/x", true),
            ("mailto:someone@example.com", true),
            ("not a url", false),
            ("/absolute/path", false),
            ("://missing", false),
            ("http://exa mple.com/", false),
            ("http://example.com:80a/", false),
            ("http://example.com/%zz", false),
            ("", false),
        ];
        for (text, valid) in cases {
            assert_eq!(is_request_url(text), valid, "{text:?}");
        }
    }

    #[test]
    fn urls_as_govalidator_reads_them() {
        let cases = [
            ("https://example.com", true),
            ("example.com", true),
            ("example.com:8080/path", true),
            ("http://user:pass@example.com/", true),
            ("ab", false),
            (".example.com", false),
            ("not a url", false),
            ("http://", false),
        ];
        for (text, valid) in cases {
            assert_eq!(is_url(text), valid, "{text:?}");
        }
    }

    #[test]
    fn emails_as_govalidator_reads_them() {
        for (text, valid) in
            [("someone@example.com", true), ("first.last+tag@sub.example.org", true), ("not-an-email", false)]
        {
            assert_eq!(is_email(text), valid, "{text:?}");
        }
        assert!(EMAIL_PATTERN.is_some() && URL_PATTERN.is_some(), "the patterns compile");
    }
}
