//! The one redaction of credentials in text berth shows: every URL's password (`https://user:xxxxx@host`, as Go's
//! `url.URL.Redacted` writes it) and the values of query parameters that sign or authorise a request (cloud
//! storage signatures, tokens). Applied wherever a URL or a message that may hold one reaches an error, a log line
//! or stdout, so a password in `repositories.yaml`, on the command line or in a chart's dependency list is never
//! printed. Pure: works on any text, not only on URLs that parse, because messages quote URLs inside other text.

/// What stands for a removed secret (Go's `Redacted` writes the same).
pub const MASK: &str = "xxxxx";

/// Query parameters whose values authorise a request (compared case-insensitively): Azure SAS `sig`, S3 and GCS
/// presigned URLs, OAuth-style tokens.
const SECRET_QUERY_PARAMETERS: &[&str] = &[
    "sig",
    "signature",
    "token",
    "access_token",
    "password",
    "x-amz-signature",
    "x-amz-credential",
    "x-amz-security-token",
    "x-goog-signature",
    "x-goog-credential",
];

/// `text` with the credentials of every URL in it replaced by [`MASK`]: the password of `scheme://user:password@`
/// (the user is kept, as Go's `Redacted` keeps it) and the values of [`SECRET_QUERY_PARAMETERS`].
pub fn urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (before, after) = rest.split_at(at + 3);
        out.push_str(before);
        // A URL ends where quoting or white space begins.
        let span_end =
            after.find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>')).unwrap_or(after.len());
        let (span, tail) = after.split_at(span_end);
        out.push_str(&redact_span(span));
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// One URL without its scheme: `authority[path][?query][#fragment]`.
fn redact_span(span: &str) -> String {
    let authority_end = span.find(['/', '?', '#']).unwrap_or(span.len());
    let (authority, path_and_query) = span.split_at(authority_end);
    let mut out = String::with_capacity(span.len());
    match authority.rfind('@') {
        Some(at) => {
            let (userinfo, host) = authority.split_at(at);
            match userinfo.split_once(':') {
                Some((user, _password)) => {
                    out.push_str(user);
                    out.push(':');
                    out.push_str(MASK);
                }
                None => out.push_str(userinfo),
            }
            out.push_str(host);
        }
        None => out.push_str(authority),
    }
    match path_and_query.split_once('?') {
        Some((path, query)) => {
            out.push_str(path);
            out.push('?');
            out.push_str(&redact_query(query));
        }
        None => out.push_str(path_and_query),
    }
    out
}

/// `a=1&sig=SECRET#frag` with the secret values masked; a value ends at `&`, `#` or closing punctuation that
/// surrounds the URL in a message.
fn redact_query(query: &str) -> String {
    let mut out = String::with_capacity(query.len());
    let mut rest = query;
    loop {
        let end = rest.find(['&', '#', ')', ']', ',', ';']).unwrap_or(rest.len());
        let (pair, tail) = rest.split_at(end);
        match pair.split_once('=') {
            Some((name, _value)) if is_secret_parameter(name) => {
                out.push_str(name);
                out.push('=');
                out.push_str(MASK);
            }
            _ => out.push_str(pair),
        }
        match tail.chars().next() {
            Some('&') => {
                out.push('&');
                rest = &tail[1..];
            }
            _ => {
                out.push_str(tail);
                return out;
            }
        }
    }
}

/// `text` with every occurrence of the known `secrets` (the password and tokens a request carried) replaced by
/// [`MASK`]: for text a server wrote, which may echo what it was sent.
pub fn known(text: &str, secrets: &[&str]) -> String {
    let mut out = text.to_string();
    for secret in secrets.iter().filter(|secret| !secret.is_empty()) {
        if out.contains(*secret) {
            out = out.replace(*secret, MASK);
        }
    }
    out
}

fn is_secret_parameter(name: &str) -> bool {
    SECRET_QUERY_PARAMETERS.iter().any(|secret| secret.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_and_signatures_are_masked_wherever_a_url_stands() {
        let table = [
            ("http://me:s3cret@host/x", "http://me:xxxxx@host/x"),
            ("http://host/x", "http://host/x"),
            ("https://me@host/x", "https://me@host/x"),
            ("https://me:s3cret@host", "https://me:xxxxx@host"),
            ("oci://me:p%40ss@host:5000/charts/app", "oci://me:xxxxx@host:5000/charts/app"),
            (
                "looks like \"http://u:pw@h:1/charts\" is not a valid chart repository",
                "looks like \"http://u:xxxxx@h:1/charts\" is not a valid chart repository",
            ),
            (
                "failed (http://a:b@one/x) and (https://c:d@two/y)",
                "failed (http://a:xxxxx@one/x) and (https://c:xxxxx@two/y)",
            ),
            (
                "https://store.example/charts/app.tgz?sv=2022&sig=SECRET&se=1#top",
                "https://store.example/charts/app.tgz?sv=2022&sig=xxxxx&se=1#top",
            ),
            ("get https://h/x?X-Amz-Signature=abc, then", "get https://h/x?X-Amz-Signature=xxxxx, then"),
            ("http://[::1]:8080/x", "http://[::1]:8080/x"),
            ("no url here: a:b@c", "no url here: a:b@c"),
            ("ends with ://", "ends with ://"),
            ("", ""),
        ];
        for (input, want) in table {
            assert_eq!(urls(input), want, "{input}");
        }
    }

    #[test]
    fn echoed_secrets_are_masked() {
        assert_eq!(
            known("denied for user alice with password hunter2 (token t0k3n)", &["hunter2", "", "t0k3n"]),
            "denied for user alice with password xxxxx (token xxxxx)"
        );
        assert_eq!(known("nothing to hide", &["hunter2"]), "nothing to hide");
    }

    #[test]
    fn nothing_of_a_password_survives_whatever_it_holds() {
        // `/`, `?` and `#` end the authority of a URL, so a password holds them percent-encoded.
        for password in ["p:w", "pw@x", "p%2Fw", "p%3Fw%23"] {
            let text = format!("see http://user:{password}@host/index.yaml");
            let shown = urls(&text);
            assert!(!shown.contains(&format!(":{password}@")), "{password}: {shown}");
        }
    }
}
