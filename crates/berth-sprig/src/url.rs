//! Sprig's `urlParse` and `urlJoin` (url.go) over a port of Go's `net/url` (`Parse`, `URL.String`, the
//! `escape`/`unescape` modes): the dict holds `scheme`, `host`, `hostname`, `path` (unescaped), `query` (raw),
//! `opaque`, `fragment` (unescaped) and `userinfo`; a parse error is Sprig's panic
//! `unable to parse url: parse "x": ...`.

use std::string::String;

use crate::args::SprigFn;
use crate::args::{call_error, fixed, map, nil_dereference, string};
use berth_go::Result;
use berth_go::strings::from_go_bytes;
use berth_go::{Map, Value};

pub(super) const FUNCTIONS: &[(&str, SprigFn)] = &[("urlParse", url_parse), ("urlJoin", url_join)];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

/// Go's `shouldEscape`.
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone)
        && matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        )
    {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => return c == b'?',
            Mode::UserPassword => return matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::QueryComponent => return true,
            Mode::Fragment => return false,
            Mode::Host | Mode::Zone => {}
        },
        _ => {}
    }
    if mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*') {
        return false;
    }
    true
}

fn unhex(c: u8) -> u8 {
    (c as char).to_digit(16).unwrap_or(0) as u8
}

/// Go's `unescape`; the error is Go's text (`invalid URL escape "%zz"`, `invalid character " " in host name`).
fn unescape(s: &str, mode: Mode) -> std::result::Result<String, String> {
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut escapes = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                escapes += 1;
                if i + 2 >= bytes.len() || !bytes[i + 1].is_ascii_hexdigit() || !bytes[i + 2].is_ascii_hexdigit() {
                    let end = (i + 3).min(bytes.len());
                    return Err(format!(
                        "invalid URL escape {}",
                        berth_go::strconv::quote(&from_go_bytes(&bytes[i..end]))
                    ));
                }
                let escape = &s[i..i + 3];
                if mode == Mode::Host && unhex(bytes[i + 1]) < 8 && escape != "%25" {
                    return Err(format!("invalid URL escape {}", berth_go::strconv::quote(escape)));
                }
                if mode == Mode::Zone {
                    let v = unhex(bytes[i + 1]) << 4 | unhex(bytes[i + 2]);
                    if escape != "%25" && v != b' ' && should_escape(v, Mode::Host) {
                        return Err(format!("invalid URL escape {}", berth_go::strconv::quote(escape)));
                    }
                }
                i += 3;
            }
            c => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(format!("invalid character {} in host name", berth_go::strconv::quote(&s[i..i + 1])));
                }
                i += 1;
            }
        }
    }
    if escapes == 0 && !(mode == Mode::QueryComponent && s.contains('+')) {
        return Ok(String::from(s));
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                out.push(unhex(bytes[i + 1]) << 4 | unhex(bytes[i + 2]));
                i += 3;
            }
            b'+' if mode == Mode::QueryComponent => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(from_go_bytes(&out))
}

/// Go's `escape`.
fn escape(s: &str, mode: Mode) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(s.len());
    for &c in s.as_bytes() {
        if c == b' ' && mode == Mode::QueryComponent {
            out.push('+');
        } else if should_escape(c, mode) {
            out.push('%');
            out.push(HEX[(c >> 4) as usize] as char);
            out.push(HEX[(c & 15) as usize] as char);
        } else {
            out.push(c as char);
        }
    }
    out
}

/// `username` and optional password.
#[derive(Default, Clone)]
struct Userinfo {
    username: String,
    password: Option<String>,
}

impl Userinfo {
    /// `Userinfo.String`.
    fn encoded(&self) -> String {
        let mut s = escape(&self.username, Mode::UserPassword);
        if let Some(password) = &self.password {
            s.push(':');
            s.push_str(&escape(password, Mode::UserPassword));
        }
        s
    }
}

/// The fields of Go's `url.URL` that Sprig reads or sets.
#[derive(Default)]
struct Url {
    scheme: String,
    opaque: String,
    user: Option<Userinfo>,
    host: String,
    path: String,
    raw_path: String,
    force_query: bool,
    raw_query: String,
    fragment: String,
    raw_fragment: String,
}

/// Go's `getScheme`.
fn get_scheme(raw: &str) -> std::result::Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err(String::from("missing protocol scheme")),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

fn valid_optional_port(port: &str) -> bool {
    port.is_empty() || (port.starts_with(':') && port[1..].bytes().all(|b| b.is_ascii_digit()))
}

/// Go's `parseHost`.
fn parse_host(host: &str) -> std::result::Result<String, String> {
    if host.starts_with('[') {
        let Some(close) = host.rfind(']') else {
            return Err(String::from("missing ']' in host"));
        };
        let colon_port = &host[close + 1..];
        if !valid_optional_port(colon_port) {
            return Err(format!("invalid port {} after host", berth_go::strconv::quote(colon_port)));
        }
        if let Some(zone) = host[..close].find("%25") {
            let first = unescape(&host[..zone], Mode::Host)?;
            let second = unescape(&host[zone..close], Mode::Zone)?;
            let third = unescape(&host[close..], Mode::Host)?;
            return Ok(first + &second + &third);
        }
    } else if let Some(colon) = host.rfind(':') {
        let colon_port = &host[colon..];
        if !valid_optional_port(colon_port) {
            return Err(format!("invalid port {} after host", berth_go::strconv::quote(colon_port)));
        }
    }
    unescape(host, Mode::Host)
}

fn valid_userinfo(s: &str) -> bool {
    s.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '-' | '.'
                    | '_'
                    | ':'
                    | '~'
                    | '!'
                    | '$'
                    | '&'
                    | '\''
                    | '('
                    | ')'
                    | '*'
                    | '+'
                    | ','
                    | ';'
                    | '='
                    | '%'
                    | '@'
            )
    })
}

/// Go's `parseAuthority`.
fn parse_authority(authority: &str) -> std::result::Result<(Option<Userinfo>, String), String> {
    let at = authority.rfind('@');
    let host = parse_host(match at {
        Some(i) => &authority[i + 1..],
        None => authority,
    })?;
    let Some(at) = at else {
        return Ok((None, host));
    };
    let userinfo = &authority[..at];
    if !valid_userinfo(userinfo) {
        return Err(String::from("net/url: invalid userinfo"));
    }
    let user = match userinfo.split_once(':') {
        None => Userinfo { username: unescape(userinfo, Mode::UserPassword)?, password: None },
        Some((name, password)) => Userinfo {
            username: unescape(name, Mode::UserPassword)?,
            password: Some(unescape(password, Mode::UserPassword)?),
        },
    };
    Ok((Some(user), host))
}

impl Url {
    /// Go's `parse(rawURL, false)`.
    fn parse_without_fragment(raw: &str) -> std::result::Result<Url, String> {
        if raw.bytes().any(|b| b < b' ' || b == 0x7f) {
            return Err(String::from("net/url: invalid control character in URL"));
        }
        let mut url = Url::default();
        if raw == "*" {
            url.path = String::from("*");
            return Ok(url);
        }
        let (scheme, mut rest) = get_scheme(raw)?;
        url.scheme = scheme.to_ascii_lowercase();
        if rest.ends_with('?') && rest.matches('?').count() == 1 {
            url.force_query = true;
            rest = &rest[..rest.len() - 1];
        } else if let Some((before, query)) = rest.split_once('?') {
            url.raw_query = String::from(query);
            rest = before;
        }
        if !rest.starts_with('/') {
            if !url.scheme.is_empty() {
                url.opaque = String::from(rest);
                return Ok(url);
            }
            let segment = rest.split('/').next().unwrap_or("");
            if segment.contains(':') {
                return Err(String::from("first path segment in URL cannot contain colon"));
            }
        }
        if (!url.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
            let authority = &rest[2..];
            let (authority, path) = match authority.find('/') {
                Some(i) => (&authority[..i], &authority[i..]),
                None => (authority, ""),
            };
            let (user, host) = parse_authority(authority)?;
            url.user = user;
            url.host = host;
            rest = path;
        }
        url.set_path(rest)?;
        Ok(url)
    }

    /// Go's `url.Parse`; the error is `parse "<url>": <reason>`.
    fn parse(raw: &str) -> std::result::Result<Url, String> {
        let (before, fragment) = match raw.split_once('#') {
            Some((before, fragment)) => (before, Some(fragment)),
            None => (raw, None),
        };
        let mut url = Url::parse_without_fragment(before)
            .map_err(|e| format!("parse {}: {e}", berth_go::strconv::quote(before)))?;
        if let Some(fragment) = fragment.filter(|f| !f.is_empty()) {
            url.set_fragment(fragment).map_err(|e| format!("parse {}: {e}", berth_go::strconv::quote(raw)))?;
        }
        Ok(url)
    }

    fn set_path(&mut self, escaped: &str) -> std::result::Result<(), String> {
        self.path = unescape(escaped, Mode::Path)?;
        self.raw_path = if escape(&self.path, Mode::Path) == escaped { String::new() } else { String::from(escaped) };
        Ok(())
    }

    fn set_fragment(&mut self, escaped: &str) -> std::result::Result<(), String> {
        self.fragment = unescape(escaped, Mode::Fragment)?;
        self.raw_fragment =
            if escape(&self.fragment, Mode::Fragment) == escaped { String::new() } else { String::from(escaped) };
        Ok(())
    }

    /// Go's `validEncoded`.
    fn valid_encoded(s: &str, mode: Mode) -> bool {
        s.bytes().all(|c| {
            matches!(
                c,
                b'!' | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'@'
                    | b'['
                    | b']'
                    | b'%'
            ) || !should_escape(c, mode)
        })
    }

    fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty()
            && Url::valid_encoded(&self.raw_path, Mode::Path)
            && unescape(&self.raw_path, Mode::Path).is_ok_and(|p| p == self.path)
        {
            return self.raw_path.clone();
        }
        if self.path == "*" {
            return String::from("*");
        }
        escape(&self.path, Mode::Path)
    }

    fn escaped_fragment(&self) -> String {
        if !self.raw_fragment.is_empty()
            && Url::valid_encoded(&self.raw_fragment, Mode::Fragment)
            && unescape(&self.raw_fragment, Mode::Fragment).is_ok_and(|f| f == self.fragment)
        {
            return self.raw_fragment.clone();
        }
        escape(&self.fragment, Mode::Fragment)
    }

    /// Go's `URL.String`.
    fn to_go_string(&self) -> String {
        let mut out = String::new();
        if !self.scheme.is_empty() {
            out.push_str(&self.scheme);
            out.push(':');
        }
        if !self.opaque.is_empty() {
            out.push_str(&self.opaque);
        } else {
            if !self.scheme.is_empty() || !self.host.is_empty() || self.user.is_some() {
                if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                    out.push_str("//");
                }
                if let Some(user) = &self.user {
                    out.push_str(&user.encoded());
                    out.push('@');
                }
                if !self.host.is_empty() {
                    out.push_str(&escape(&self.host, Mode::Host));
                }
            }
            let path = self.escaped_path();
            if !path.is_empty() && !path.starts_with('/') && !self.host.is_empty() {
                out.push('/');
            }
            if out.is_empty() && path.split('/').next().is_some_and(|segment| segment.contains(':')) {
                out.push_str("./");
            }
            out.push_str(&path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            out.push('?');
            out.push_str(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            out.push('#');
            out.push_str(&self.escaped_fragment());
        }
        out
    }

    /// Go's `Hostname`: the host without a valid port and without IPv6 brackets.
    fn hostname(&self) -> &str {
        let mut host = self.host.as_str();
        if let Some(colon) = host.rfind(':')
            && valid_optional_port(&host[colon..])
        {
            host = &host[..colon];
        }
        if host.starts_with('[') && host.ends_with(']') && host.len() >= 2 {
            host = &host[1..host.len() - 1];
        }
        host
    }
}

fn url_parse(args: &[Value]) -> Result<Value> {
    let [raw] = fixed("urlParse", args)?;
    let url = Url::parse(string(raw)?).map_err(|e| call_error(format!("unable to parse url: {e}")))?;
    let dict = Map::new();
    dict.insert("scheme", Value::from(url.scheme.as_str()));
    dict.insert("host", Value::from(url.host.as_str()));
    dict.insert("hostname", Value::from(url.hostname()));
    dict.insert("path", Value::from(url.path.as_str()));
    dict.insert("query", Value::from(url.raw_query.as_str()));
    dict.insert("opaque", Value::from(url.opaque.as_str()));
    dict.insert("fragment", Value::from(url.fragment.as_str()));
    dict.insert("userinfo", Value::from(url.user.as_ref().map(Userinfo::encoded).unwrap_or_default()));
    Ok(Value::Map(dict))
}

/// Sprig's `dictGetOrEmpty`: "" for a missing key, Go's panic for a value that is not a string.
fn dict_string(dict: &Map, key: &str) -> Result<String> {
    match dict.get(key) {
        None => Ok(String::new()),
        Some(Value::String(s)) => Ok(String::from(&*s)),
        Some(Value::Nil) => Err(nil_dereference()),
        Some(other) => Err(call_error(format!(
            "unable to parse {key} key, must be of type string, but {} found",
            other.kind_name()
        ))),
    }
}

fn url_join(args: &[Value]) -> Result<Value> {
    let [dict] = fixed("urlJoin", args)?;
    let dict = map(dict)?;
    let mut url = Url {
        scheme: dict_string(dict, "scheme")?,
        host: dict_string(dict, "host")?,
        path: dict_string(dict, "path")?,
        raw_query: dict_string(dict, "query")?,
        opaque: dict_string(dict, "opaque")?,
        fragment: dict_string(dict, "fragment")?,
        ..Url::default()
    };
    let userinfo = dict_string(dict, "userinfo")?;
    if !userinfo.is_empty() {
        let parsed = Url::parse(&format!("proto://{userinfo}@host"))
            .map_err(|e| call_error(format!("unable to parse userinfo in dict: {e}")))?;
        url.user = parsed.user;
    }
    Ok(Value::from(url.to_go_string()))
}
