//! The URL rules Helm applies to repository and chart addresses (pkg/repo/v1 `ResolveReferenceURL`,
//! internal/urlutil `Equal` and `URLJoin`, the credential scoping of pkg/getter and `urlEqual` of
//! pkg/action/install.go). Pure.

use berth_go::path;
use url::Url;

/// `ResolveReferenceURL`: `reference` as is when absolute, else resolved against `base` taken as a directory
/// (a trailing `/` added), keeping the base's query (some repositories sign URLs with it).
///
/// # Errors
///
/// Either URL does not parse (`failed to parse X as URL: ...`).
pub fn resolve_reference_url(base: &str, reference: &str) -> Result<String, String> {
    if Url::parse(reference).is_ok() {
        return Ok(reference.to_string());
    }
    let mut base_url = Url::parse(base).map_err(|error| format!("failed to parse {base} as URL: {error}"))?;
    let directory = format!("{}/", base_url.path().trim_end_matches('/'));
    base_url.set_path(&directory);
    let query = base_url.query().map(str::to_string);
    let mut resolved =
        base_url.join(reference).map_err(|error| format!("failed to parse {reference} as URL: {error}"))?;
    resolved.set_query(query.as_deref());
    Ok(resolved.to_string())
}

/// `urlutil.Equal`: the same URL once each path is cleaned (`/` for none, no trailing slash).
pub fn urls_equal(a: &str, b: &str) -> bool {
    let normalise = |text: &str| -> Option<String> {
        let mut url = Url::parse(text).ok()?;
        let cleaned = if url.path().is_empty() { "/".to_string() } else { path::clean(url.path()) };
        url.set_path(&cleaned);
        Some(url.to_string())
    };
    match (normalise(a), normalise(b)) {
        (Some(a), Some(b)) => a == b,
        (None, _) => path::clean(a) == path::clean(b),
        _ => false,
    }
}

/// Whether credentials for `credential_url` may go with a request to `request_url`: same scheme and host
/// (port included), as pkg/getter's HTTP getter decides.
pub fn same_origin(credential_url: &str, request_url: &str) -> bool {
    match (Url::parse(credential_url), Url::parse(request_url)) {
        (Ok(a), Ok(b)) => {
            a.scheme() == b.scheme()
                && a.host_str() == b.host_str()
                && a.port_or_known_default() == b.port_or_known_default()
        }
        _ => false,
    }
}

/// `urlutil.URLJoin`: `base` with `elements` appended to its path.
pub fn url_join(base: &str, elements: &[&str]) -> Result<String, String> {
    let mut url = Url::parse(base).map_err(|error| error.to_string())?;
    let mut parts = vec![url.path().to_string()];
    parts.extend(elements.iter().map(|element| element.to_string()));
    // Go's `path.Join`: empty elements ignored, "" when all are.
    let elements: Vec<String> = parts.into_iter().filter(|part| !part.is_empty()).collect();
    let joined = if elements.is_empty() { String::new() } else { path::clean(&elements.join("/")) };
    url.set_path(&joined);
    Ok(url.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_chart_urls_resolve_against_the_repository() {
        let table = [
            ("http://r.example/charts", "app-1.0.0.tgz", "http://r.example/charts/app-1.0.0.tgz"),
            ("http://r.example/charts/", "app-1.0.0.tgz", "http://r.example/charts/app-1.0.0.tgz"),
            ("http://r.example/charts?sig=1", "sub/app.tgz", "http://r.example/charts/sub/app.tgz?sig=1"),
            ("http://r.example/charts", "https://cdn.example/app.tgz", "https://cdn.example/app.tgz"),
            ("http://r.example", "/abs/app.tgz", "http://r.example/abs/app.tgz"),
        ];
        for (base, reference, want) in table {
            assert_eq!(resolve_reference_url(base, reference).as_deref(), Ok(want), "{base} {reference}");
        }
    }

    #[test]
    fn equal_urls_ignore_trailing_slashes() {
        assert!(urls_equal("http://a/charts/", "http://a/charts"));
        assert!(urls_equal("http://a", "http://a/"));
        assert!(!urls_equal("http://a/x", "http://a/y"));
        assert!(same_origin("http://a:80/x", "http://a/y"));
        assert!(!same_origin("http://a:8080/x", "http://a/y"));
        assert!(!same_origin("https://a/x", "http://a/x"));
        assert_eq!(url_join("http://a/charts", &["x.tgz"]).as_deref(), Ok("http://a/charts/x.tgz"));
        assert_eq!(url_join("http://a/charts/", &["../x.tgz"]).as_deref(), Ok("http://a/x.tgz"));
        assert_eq!(url_join("http://a", &[""]).as_deref(), Ok("http://a/"));
    }
}
