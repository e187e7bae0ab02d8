//! What Kubernetes' CEL environment has beyond cel's standard library and the strings and lists extensions,
//! that the simulated cluster adds to the `cel` crate's environment: `isURL` (apiserver `pkg/cel/library`),
//! which charts' rules call most (`isURL(self) && self.startsWith('https://')`), and the `cel.bind` macro
//! (cel-go's `ext.Bindings`). The other library functions are listed in
//! [`super::compile::KUBERNETES_LIBRARY`]: a rule calling one is not judged.

use cel::common::ast::{ComprehensionExpr, Expr, IdedExpr, ListExpr, LiteralValue};
use cel::common::types::{CelBool, CelString};
use cel::parser::{Macro, MacroExprHelper, ParseError};
use cel::{DeclarationError, Env};

/// Adds the functions and macros to `env`.
///
/// # Errors
/// The crate's refusal of a declaration (a name it already declares).
pub fn extension(env: &mut Env) -> Result<(), DeclarationError> {
    cel::add_overload!(env, fn is_url: (CelString) -> CelBool, name = "isURL")?;
    env.add_macro(Macro::receiver("bind", 3, bind))?;
    Ok(())
}

/// `cel.bind(name, init, result)`: `result` with `name` bound to `init`, as cel-go's `celBind` expands it (a
/// comprehension over no element whose accumulator is the variable). A `bind` on another target is left
/// alone.
fn bind(
    helper: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
) -> Result<Option<IdedExpr>, ParseError> {
    if !target.as_ref().is_some_and(|target| matches!(&target.expr, Expr::Ident(namespace) if namespace == "cel")) {
        return Ok(None);
    }
    let [variable, init, result] =
        std::mem::take(args).try_into().map_err(|_| helper.new_error(0, "cel.bind() takes three arguments"))?;
    let Expr::Ident(name) = variable.expr else {
        return Err(helper.new_error(variable.id, "cel.bind() variable names must be simple identifiers"));
    };
    let range = helper.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let condition = helper.next_expr(Expr::Literal(LiteralValue::Boolean(false.into())));
    let step = helper.next_expr(Expr::Ident(name.clone()));
    Ok(Some(helper.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range: range,
        iter_var: "#unused".to_string(),
        iter_var2: None,
        accu_var: name,
        accu_init: init,
        loop_cond: condition,
        loop_step: step,
        result,
    })))))
}

/// `isURL`: whether Go's `url.ParseRequestURI` takes the text (library `urls.go`).
fn is_url(text: &CelString) -> CelBool {
    parse_request_uri(text.inner()).is_some().into()
}

/// Go's `url.ParseRequestURI` (`net/url`'s `parse` with `viaRequest`): `Some(())` when it parses. An absolute
/// URI (a scheme, then an authority and path, or an opaque part) or an absolute path; no control characters;
/// a host of allowed characters with an optional numeric port; `%` escapes well formed.
fn parse_request_uri(raw: &str) -> Option<()> {
    if raw.is_empty() || raw.bytes().any(|byte| byte < 0x20 || byte == 0x7f) {
        return None;
    }
    if raw == "*" {
        return Some(());
    }
    let (scheme, rest) = scheme(raw)?;
    // The query is cut off (no checks on it); a fragment stays in the path, as a request URI has none.
    let rest = rest.split_once('?').map_or(rest, |(before, _)| before);
    if !rest.starts_with('/') {
        // `mailto:x` is opaque; a relative reference is not a request URI.
        return (!scheme.is_empty()).then_some(());
    }
    let path = match rest.strip_prefix("//").filter(|_| !scheme.is_empty()) {
        Some(after) => {
            let (authority, path) = after.find('/').map_or((after, ""), |slash| after.split_at(slash));
            authority_host(authority)?;
            path
        }
        None => rest,
    };
    valid_escapes(path).then_some(())
}

/// `getScheme`: the scheme before the first `:` (letters, then letters, digits, `+`, `-`, `.`), or none when
/// another character comes first; a leading `:` is an error.
fn scheme(raw: &str) -> Option<(&str, &str)> {
    for (index, c) in raw.char_indices() {
        match c {
            'a'..='z' | 'A'..='Z' => {}
            '0'..='9' | '+' | '-' | '.' if index > 0 => {}
            ':' if index == 0 => return None,
            ':' => return Some((&raw[..index], &raw[index + 1..])),
            _ => return Some(("", raw)),
        }
    }
    Some(("", raw))
}

/// `parseAuthority` then `parseHost`: user information before the last `@` (not checked beyond escapes),
/// an IPv6 literal in brackets or a host, an optional `:port` of digits.
fn authority_host(authority: &str) -> Option<()> {
    let (user, host) = authority.rsplit_once('@').map_or(("", authority), |(user, host)| (user, host));
    // `validUserinfo`.
    let user_character = |c: char| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c);
    if !user.chars().all(user_character) || !valid_escapes(user) {
        return None;
    }
    let (name, port) = if let Some(literal) = host.strip_prefix('[') {
        let close = literal.find(']')?;
        (&literal[..close], &literal[close + 1..])
    } else {
        match host.rfind(':') {
            Some(colon) => (&host[..colon], &host[colon..]),
            None => (host, ""),
        }
    };
    let port_valid =
        port.is_empty() || port.strip_prefix(':').is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit()));
    // `shouldEscape(c, encodeHost)` refuses the other ASCII characters; bytes past ASCII pass.
    let allowed = |c: char| !c.is_ascii() || c.is_ascii_alphanumeric() || "-_.~!$&'()*+,;=:[]<>\"%".contains(c);
    (port_valid && name.chars().all(allowed) && valid_escapes(name)).then_some(())
}

/// Every `%` is followed by two hexadecimal digits.
fn valid_escapes(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().filter(|(_, byte)| **byte == b'%').all(|(index, _)| {
        bytes.get(index + 1..index + 3).is_some_and(|digits| digits.iter().all(u8::is_ascii_hexdigit))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cel_bind_names_a_value_for_the_result() {
        let env = super::super::compile::ENVIRONMENT.clone();
        let program = env.compile("cel.bind(x, 'web', x + '-' + x) == 'web-web'").expect("it parses");
        let context = cel::Context::with_env(env);
        assert_eq!(program.execute(&context), Ok(cel::Value::Bool(true)));
        assert!(super::super::compile::ENVIRONMENT.compile("cel.bind('x', 1, 2)").is_err(), "a name, not a string");
    }

    #[test]
    fn urls_are_taken_as_gos_parse_request_uri_takes_them() {
        let taken = [
            "https://example.com",
            "http://example.com:8080/a/b?c=d",
            "ldaps://user@ldap.example.com:636",
            "/absolute/path",
            "mailto:someone@example.com",
            "https://[::1]:443/",
            "https://host/a%20b",
            "*",
            "urn:isbn:0451450523",
            "HTTP://EXAMPLE.COM",
            "https://bücher.example/",
        ];
        for text in taken {
            assert!(parse_request_uri(text).is_some(), "{text}");
        }
        let refused = [
            "",
            "example.com",
            "relative/path",
            "://missing",
            "https://exa mple.com",
            "https://host:port/",
            "https://host/%zz",
            "https://[::1/",
            "http://host\n/",
            "1http://host",
            "https://us er@host/",
        ];
        for text in refused {
            assert!(parse_request_uri(text).is_none(), "{text}");
        }
    }
}
