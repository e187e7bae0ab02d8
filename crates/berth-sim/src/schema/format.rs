//! The string formats kube-apiserver checks in custom resources (apiextensions-apiserver
//! `pkg/apiserver/validation/formats.go` keeps these and strips every other `format`), each read as the
//! kube-openapi `strfmt` registry reads it, closely enough for what charts write: times, dates, addresses,
//! UUIDs, base64, DNS names. `isbn`, `isbn10`, `isbn13` and `creditcard` are kept by a real server but not
//! checked here.

use crate::dns::{MAX_LABEL, MAX_SUBDOMAIN, is_dns1035_label, is_subdomain};
use base64::Engine;
use std::net::IpAddr;

/// Whether a string is of a format.
type Check = fn(&str) -> bool;

/// Format names as the apiserver normalizes them (`-` removed) with their checks.
const FORMATS: &[(&str, Check)] = &[
    ("datetime", is_date_time),
    ("date", is_date),
    ("ipv4", |text| text.contains('.') && text.parse::<IpAddr>().is_ok()),
    ("ipv6", |text| text.contains(':') && text.parse::<IpAddr>().is_ok()),
    ("cidr", is_cidr),
    ("uuid", |text| is_uuid(text, None)),
    ("uuid3", |text| is_uuid(text, Some('3'))),
    ("uuid4", |text| is_uuid(text, Some('4'))),
    ("uuid5", |text| is_uuid(text, Some('5'))),
    ("byte", |text| base64::engine::general_purpose::STANDARD.decode(text).is_ok()),
    ("password", |_| true),
    ("email", is_email),
    ("uri", is_uri),
    ("hostname", is_hostname),
    ("mac", is_mac),
    ("bsonobjectid", |text| text.len() == 24 && text.bytes().all(|byte| byte.is_ascii_hexdigit())),
    ("hexcolor", is_hex_color),
    ("rgbcolor", is_rgb_color),
    ("ssn", is_ssn),
    ("duration", |text| crate::duration::parse_duration(text).is_ok()),
    ("k8sshortname", |text| text.len() <= MAX_LABEL && is_dns1035_label(text)),
    ("k8slongname", |text| text.len() <= MAX_SUBDOMAIN && is_subdomain(text)),
];

/// A format's name as the apiserver compares it (`date-time` is `datetime`).
pub fn normalized(format: &str) -> String {
    format.replace('-', "")
}

/// Whether the apiserver checks `format` (and this module can).
pub fn is_checked(format: &str) -> bool {
    let name = normalized(format);
    FORMATS.iter().any(|(known, _)| *known == name)
}

/// Whether `text` is of `format`; a format not checked accepts anything.
pub fn matches(format: &str, text: &str) -> bool {
    let name = normalized(format);
    FORMATS.iter().find(|(known, _)| *known == name).is_none_or(|(_, check)| check(text))
}

/// RFC 3339 with an offset, or a local date and time (strfmt's `ParseDateTime` layouts).
fn is_date_time(text: &str) -> bool {
    text.parse::<jiff::Timestamp>().is_ok() || text.parse::<jiff::civil::DateTime>().is_ok_and(|_| text.contains('T'))
}

fn is_date(text: &str) -> bool {
    text.len() == 10 && text.parse::<jiff::civil::Date>().is_ok()
}

fn is_cidr(text: &str) -> bool {
    let Some((address, prefix)) = text.split_once('/') else { return false };
    let Ok(address) = address.parse::<IpAddr>() else { return false };
    let bits = if address.is_ipv4() { 32 } else { 128 };
    prefix.parse::<u8>().is_ok_and(|prefix| prefix <= bits) && !prefix.starts_with('+')
}

/// `(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?V[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$`, the version digit `V` when given.
fn is_uuid(text: &str, version: Option<char>) -> bool {
    let digits: String = text.chars().filter(|character| *character != '-').collect();
    let groups = [8, 4, 4, 4, 12];
    let mut rest = text;
    for (index, length) in groups.iter().enumerate() {
        let Some(group) = rest.get(..*length) else { return false };
        if !group.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            return false;
        }
        rest = &rest[*length..];
        if index < groups.len() - 1 {
            rest = rest.strip_prefix('-').unwrap_or(rest);
        }
    }
    rest.is_empty() && version.is_none_or(|version| digits.chars().nth(12) == Some(version))
}

/// `net/mail.ParseAddress`, for a bare address.
fn is_email(text: &str) -> bool {
    let address = text.rsplit_once('<').map_or(text, |(_, inner)| inner.trim_end_matches('>'));
    address.split_once('@').is_some_and(|(local, domain)| {
        !local.is_empty() && !domain.is_empty() && !address.contains(char::is_whitespace)
    })
}

/// `url.ParseRequestURI`: an absolute URI or an absolute path.
fn is_uri(text: &str) -> bool {
    if text.starts_with('/') {
        return !text.contains(char::is_whitespace);
    }
    let Some((scheme, _)) = text.split_once(':') else { return false };
    let mut characters = scheme.chars();
    characters.next().is_some_and(|first| first.is_ascii_alphabetic())
        && characters.all(|character| character.is_ascii_alphanumeric() || matches!(character, '+' | '-' | '.'))
        && !text.contains(char::is_whitespace)
}

/// RFC 1034 host names: dot-separated labels of letters, digits and inner hyphens, 255 bytes at most.
fn is_hostname(text: &str) -> bool {
    text.len() <= 255
        && text.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|character| character.is_alphanumeric() || character == '-')
        })
}

/// `net.ParseMAC`: six, eight or twenty groups of two hex digits separated by `:` or `-`, or dotted quads.
fn is_mac(text: &str) -> bool {
    let separated = |separator: char| {
        let groups: Vec<&str> = text.split(separator).collect();
        matches!(groups.len(), 6 | 8 | 20)
            && groups.iter().all(|group| group.len() == 2 && group.bytes().all(|byte| byte.is_ascii_hexdigit()))
    };
    let dotted = {
        let groups: Vec<&str> = text.split('.').collect();
        matches!(groups.len(), 3 | 4 | 10)
            && groups.iter().all(|group| group.len() == 4 && group.bytes().all(|byte| byte.is_ascii_hexdigit()))
    };
    separated(':') || separated('-') || dotted
}

/// `^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`
fn is_hex_color(text: &str) -> bool {
    let digits = text.strip_prefix('#').unwrap_or(text);
    matches!(digits.len(), 3 | 6) && digits.bytes().all(|byte| byte.is_ascii_hexdigit())
}

/// `rgb(R, G, B)` with components from 0 to 255.
fn is_rgb_color(text: &str) -> bool {
    let Some(inner) = text.strip_prefix("rgb(").and_then(|rest| rest.strip_suffix(')')) else { return false };
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    parts.len() == 3 && parts.iter().all(|part| part.parse::<u8>().is_ok())
}

/// `^\d{3}[- ]?\d{2}[- ]?\d{4}$`
fn is_ssn(text: &str) -> bool {
    let digits: String = text.chars().filter(|character| !matches!(character, '-' | ' ')).collect();
    digits.len() == 9 && digits.bytes().all(|byte| byte.is_ascii_digit()) && text.len() <= 11
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checked_formats_accept_and_refuse_as_strfmt() {
        let cases = [
            ("date-time", "2026-01-02T03:04:05Z", true),
            ("date-time", "2026-01-02T03:04:05.123+02:00", true),
            ("date-time", "yesterday", false),
            ("date", "2026-01-02", true),
            ("date", "2026-13-02", false),
            ("ipv4", "10.0.0.1", true),
            ("ipv4", "::1", false),
            ("ipv6", "fe80::1", true),
            ("cidr", "10.0.0.0/8", true),
            ("cidr", "10.0.0.0/33", false),
            ("uuid", "0f8fad5b-d9cb-469f-a165-70867728950e", true),
            ("uuid", "0f8fad5b", false),
            ("uuid4", "0f8fad5b-d9cb-369f-a165-70867728950e", false),
            ("byte", "aGVsbG8=", true),
            ("byte", "not base64!", false),
            ("email", "ops@example.com", true),
            ("email", "ops", false),
            ("uri", "https://example.com/x", true),
            ("uri", "example.com", false),
            ("hostname", "api.example.com", true),
            ("hostname", "-bad-.com", false),
            ("k8s-short-name", "web", true),
            ("k8s-short-name", "1web", false),
            ("duration", "1m30s", true),
            ("mac", "00:1a:2b:3c:4d:5e", true),
            ("hexcolor", "#fff", true),
            ("not-a-format", "anything", true),
        ];
        for (format, text, expected) in cases {
            assert_eq!(matches(format, text), expected, "{format} {text}");
        }
        assert!(is_checked("date-time") && !is_checked("int-or-string") && !is_checked("int32"));
    }
}
